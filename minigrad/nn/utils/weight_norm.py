"""Weight normalization (Salimans & Kingma, 2016): a weight w is trained as a magnitude g and a
direction v, w = g * v / ||v||, the norm taken over every dim but one (each output channel
gets its own magnitude) or over the whole tensor.

This file holds the math shared by both of torch's spellings (norm_except_dim, _weight_norm
with its fused WeightNormInterfaceBackward0 node) and the older hook-based spelling,
torch.nn.utils.weight_norm: parameters `<name>_g` and `<name>_v`, and a forward pre-hook that
recombines them into a plain attribute `<name>` before every call. torch deprecates that
spelling for parametrizations.weight_norm (see parametrizations.py)."""
import warnings

from ...autograd.function import Function
from ..parameter import Parameter, is_lazy

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm of each slice v[..., i, ...] along dim, shaped to broadcast against v
    (size 1 everywhere but dim); dim=-1 means the norm of the whole tensor, 0-d."""
    if dim == -1:
        return v.norm(pow)
    channels = v.size(dim)
    # one row per index along dim, every other element of the slice in that row
    per_channel = v.movedim(dim, 0).reshape(channels, -1).norm(pow, 1)
    keep_shape = [1] * v.dim()
    keep_shape[dim] = channels
    return per_channel.reshape(keep_shape)


class _WeightNormInterface(Function):
    """g * v / ||v|| as one node (torch fuses the case of the first or the last dim the same
    way, hence its grad_fn name)."""
    _node_name = "WeightNormInterfaceBackward0"

    @staticmethod
    def forward(ctx, v, g, dim):
        norms = norm_except_dim(v, 2, dim)
        ctx.dim = dim
        ctx.save_for_backward(v, g, norms)
        return v * (g / norms)

    @staticmethod
    def backward(ctx, grad):
        v, g, norms = ctx.saved_tensors
        summed = [axis for axis in range(v.dim()) if axis != ctx.dim]
        # per slice, with n = ||v||: dw/dg = v / n, and dw/dv = (g / n) (I - v v^T / n^2), so
        # both need only the projection <grad, v> of the incoming gradient on the slice
        projection = grad * v
        if summed:
            projection = projection.sum(summed, keepdim=True)
        grad_g = projection / norms
        grad_v = (g / norms) * (grad - v * (projection / (norms * norms)))
        return grad_v, grad_g, None


def _weight_norm(v, g, dim=0):
    """torch._weight_norm: v * (g / norm_except_dim(v, 2, dim)), fused for the first and last
    dim as torch's."""
    if v.device != g.device:
        raise RuntimeError("Expected all tensors to be on the same device, but found at least two "
                           f"devices, {v.device} and {g.device}!")
    if dim in (0, v.dim() - 1):
        return _WeightNormInterface.apply(v.contiguous(), g.contiguous(), dim)
    return v * (g / norm_except_dim(v, 2, dim))


def _find_hook(module, name):
    """(key, hook) of the WeightNorm hook of `name` among module's forward pre-hooks, or None."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            return key, hook
    return None


class WeightNorm:
    """The forward pre-hook of weight_norm: refreshes module.<name> from <name>_g and <name>_v
    (dim None, stored as -1: one norm over the whole tensor)."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        magnitude = getattr(module, f"{self.name}_g")
        direction = getattr(module, f"{self.name}_v")
        return _weight_norm(direction, magnitude, self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
        if _find_hook(module, name) is not None:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        hook = WeightNorm(name, dim)
        param = getattr(module, name)
        if is_lazy(param):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized parameters. "
                             "Make sure to run the dummy forward before applying weight normalization")
        # the weight splits into its norms (g) and itself as the direction (v), which
        # recombine to the same weight
        del module._parameters[name]
        module.register_parameter(f"{name}_g", Parameter(norm_except_dim(param, 2, hook.dim).data))
        module.register_parameter(f"{name}_v", Parameter(param.data))
        setattr(module, name, hook.compute_weight(module))
        module.register_forward_pre_hook(hook)
        return hook

    def remove(self, module):
        merged = self.compute_weight(module)
        delattr(module, self.name)
        for part in ("_g", "_v"):
            del module._parameters[self.name + part]
        setattr(module, self.name, Parameter(merged.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Train parameter `name` as `name_g` (its norms over every dim but dim; dim=None: one norm)
    and `name_v` (its direction). Returns the module; warns FutureWarning, as torch's."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo weight_norm: `name` becomes a plain parameter again, holding the current weight."""
    found = _find_hook(module, name)
    if found is None:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    key, hook = found
    hook.remove(module)
    del module._forward_pre_hooks[key]
    return module
