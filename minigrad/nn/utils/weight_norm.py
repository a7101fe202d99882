"""Weight normalization w = g * v / ||v||, as torch.nn.utils.weight_norm (the hook-based form
that torch deprecates in favour of parametrizations.weight_norm) and torch's _weight_norm and
norm_except_dim, which both forms use."""
import warnings

from ...autograd.function import Function
from ..parameter import Parameter, is_lazy

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm of v over every dim but dim, kept as size-1 dims (torch.norm_except_dim);
    dim=-1: the norm of the whole tensor, 0-d."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(
            (v.size(0),) + (1,) * (v.dim() - 1))
    if dim == v.dim() - 1:
        return v.contiguous().view(-1, v.size(v.dim() - 1)).norm(pow, 0).view(
            (1,) * (v.dim() - 1) + (v.size(v.dim() - 1),))
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


class _WeightNormInterface(Function):
    """torch's fused weight norm over dim 0 or the last dim (grad_fn WeightNormInterfaceBackward0)."""
    _node_name = "WeightNormInterfaceBackward0"

    @staticmethod
    def forward(ctx, v, g, dim):
        norm = norm_except_dim(v, 2, dim)
        ctx.dim = dim
        ctx.save_for_backward(v, g, norm)
        return v * (g / norm)

    @staticmethod
    def backward(ctx, grad):
        v, g, norm = ctx.saved_tensors
        dims = [d for d in range(v.dim()) if d != ctx.dim]
        # d(g v / n)/dv = g/n (I - v v^T / n^2), d/dg = v / n, per slice along dim
        gv = (grad * v).sum(dims, keepdim=True) if dims else grad * v
        grad_g = gv / norm
        grad_v = (g / norm) * (grad - v * (gv / (norm * norm)))
        return grad_v, grad_g, None


def _weight_norm(v, g, dim=0):
    """torch._weight_norm: v * (g / norm_except_dim(v, 2, dim))."""
    if v.device != g.device:
        raise RuntimeError("Expected all tensors to be on the same device, but found at least two "
                           f"devices, {v.device} and {g.device}!")
    if dim == 0 or dim == v.dim() - 1:
        return _WeightNormInterface.apply(v.contiguous(), g.contiguous(), dim)
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook of weight_norm: recomputes module.<name> from <name>_g, <name>_v."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if is_lazy(weight):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized parameters. "
                             "Make sure to run the dummy forward before applying weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Replace parameter `name` by `name_g` (magnitude) and `name_v` (direction), recombined
    before every forward. Deprecated in torch: a FutureWarning, as torch's."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo weight_norm: `name` becomes a plain parameter holding the current weight."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")

