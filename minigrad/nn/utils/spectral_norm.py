"""Spectral normalization (Miyato et al., 2018): a weight used as W / sigma(W), sigma the largest
singular value of W seen as a matrix (output channels as rows), so the layer is 1-Lipschitz.

sigma is estimated by power iteration: unit vectors u (rows) and v (columns) are kept between
calls and refined, v <- W^T u / |W^T u|, u <- W v / |W v|, a few steps per training forward;
then sigma ~ u^T W v. Gradients flow through W in sigma, not through u and v.

This is torch.nn.utils.spectral_norm, the hook-based spelling: parameter `<name>_orig`, buffers
`<name>_u` and `<name>_v`, a forward pre-hook that recomputes the plain attribute `<name>`, and
state-dict hooks that version the checkpoint (older ones, without `_v`, are converted on
load). parametrizations.spectral_norm is the newer spelling."""
from ... import linalg
from ...autograd.grad_mode import no_grad
from ...functional import dot, mv
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..parameter import Parameter, is_lazy

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "spectral_norm", "remove_spectral_norm"]

_TRANSPOSED_CONVS = (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)


def _default_dim(module):
    """The dim of the weight that indexes output channels: 1 for a transposed convolution
    (weight in_channels x out_channels x ...), 0 otherwise."""
    return 1 if isinstance(module, _TRANSPOSED_CONVS) else 0


def _refine(matrix, u, v, steps, eps):
    """`steps` power-iteration steps on matrix, written into u and v in place (the buffers
    carry the estimate from one forward to the next)."""
    with no_grad():
        for _ in range(steps):
            v.copy_(F.normalize(mv(matrix.t(), u), dim=0, eps=eps))
            u.copy_(F.normalize(mv(matrix, v), dim=0, eps=eps))


def _pop_first(hooks, matches):
    """Delete the first entry of a module's hook dict for which matches(hook); whether one was."""
    for key in list(hooks):
        if matches(hooks[key]):
            del hooks[key]
            return True
    return False


class SpectralNorm:
    """The forward pre-hook of spectral_norm for one parameter, with its settings."""
    _version = 1  # 1: the state dict holds `_v` as well as `_u`

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """weight as a matrix: one row per index along self.dim. (The dim is not normalized:
        a negative one lists one dim too many, and permute refuses it, as torch's does.)"""
        if self.dim != 0:
            weight = weight.permute([self.dim] + [d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        """<name>_orig / sigma, refining the u, v buffers first when do_power_iteration."""
        original = getattr(module, f"{self.name}_orig")
        u = getattr(module, f"{self.name}_u")
        v = getattr(module, f"{self.name}_v")
        matrix = self.reshape_weight_to_matrix(original)
        if do_power_iteration:
            _refine(matrix, u, v, self.n_power_iterations, self.eps)
            # copies: the next forward's in-place refinement must not change what this
            # forward's backward reads
            u, v = u.clone(), v.clone()
        sigma = dot(u, mv(matrix, v))
        return original / sigma

    def remove(self, module):
        with no_grad():
            final = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(final.detach()))

    def __call__(self, module, inputs):
        # iterate only in training mode: evaluation leaves the estimate as it is
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        """A v for an old checkpoint that saved only u: the least-squares solution of
        weight_mat v = u (through the pseudo-inverse of W^T W), scaled so that u^T W v equals
        target_sigma."""
        gram = weight_mat.t().mm(weight_mat)
        v = linalg.pinv(gram).mm(weight_mat.t().mm(u.unsqueeze(1))).squeeze(1)
        return v.mul_(target_sigma / dot(u, mv(weight_mat, v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        """Install spectral normalization of module.<name>; returns the hook."""
        for existing in module._forward_pre_hooks.values():
            if isinstance(existing, SpectralNorm) and existing.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        hook = SpectralNorm(name, n_power_iterations, dim, eps)
        param = module._parameters[name]
        if param is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if is_lazy(param):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. "
                             "Make sure to run the dummy forward before applying spectral normalization")
        with no_grad():
            rows, cols = hook.reshape_weight_to_matrix(param).shape
            # random unit starting vectors (u first, then v: the order of the draws)
            start_u = F.normalize(param.new_empty(rows).normal_(0, 1), dim=0, eps=eps)
            start_v = F.normalize(param.new_empty(cols).normal_(0, 1), dim=0, eps=eps)
        delattr(module, name)
        module.register_parameter(f"{name}_orig", param)
        # until the first forward runs the hook, `name` reads as the unnormalized values
        setattr(module, name, param.data)
        module.register_buffer(f"{name}_u", start_u)
        module.register_buffer(f"{name}_v", start_v)
        module.register_forward_pre_hook(hook)
        module._register_state_dict_hook(SpectralNormStateDictHook(hook))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(hook))
        return hook


class SpectralNormLoadStateDictPreHook:
    """Upgrades a checkpoint saved before version 1 (which has `<name>` and `<name>_u` but no
    `<name>_v`) while it loads: v is recovered from W, u and sigma = mean(W_orig / W)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs):
        hook = self.fn
        saved_version = local_metadata.get("spectral_norm", {}).get(f"{hook.name}.version")
        if saved_version is not None and saved_version >= 1:
            return
        base = prefix + hook.name
        current_layout = all(base + suffix in state_dict for suffix in ("_orig", "_u", "_v"))
        if saved_version is None and current_layout and base not in state_dict:
            return  # a version-1 checkpoint whose metadata was dropped
        absent = [base + suffix for suffix in ("_orig", "", "_u") if base + suffix not in state_dict]
        if absent:
            if strict:
                missing_keys.extend(absent)
            return
        with no_grad():
            original = state_dict[base + "_orig"]
            sigma = (original / state_dict.pop(base)).mean()
            matrix = hook.reshape_weight_to_matrix(original)
            state_dict[base + "_v"] = hook._solve_v_and_rescale(matrix, state_dict[base + "_u"], sigma)


class SpectralNormStateDictHook:
    """Writes metadata['spectral_norm']['<name>.version'] into the state dict."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        entry = f"{self.fn.name}.version"
        if entry in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {entry}")
        versions[entry] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide parameter `name` by its largest singular value before every forward (estimated
    with n_power_iterations power-iteration steps per training-mode forward). Returns module."""
    SpectralNorm.apply(module, name, n_power_iterations, _default_dim(module) if dim is None else dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo spectral_norm: `name` becomes a plain parameter holding the normalized weight."""
    def is_ours(hook):
        return isinstance(hook, SpectralNorm) and hook.name == name

    def reports_ours(hook):
        return isinstance(hook, (SpectralNormStateDictHook, SpectralNormLoadStateDictPreHook)) and \
            hook.fn.name == name

    for key, hook in module._forward_pre_hooks.items():
        if is_ours(hook):
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    _pop_first(module._state_dict_hooks, reports_ours)
    # (the load pre-hook is stored wrapped, so, as in torch, it is not found and stays)
    _pop_first(module._load_state_dict_pre_hooks, reports_ours)
    return module
