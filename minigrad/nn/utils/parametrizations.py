"""minigrad.nn.utils.parametrizations: weight_norm and spectral_norm written as
parametrizations (torch.nn.utils.parametrizations). orthogonal is not provided: it needs
matrix_exp / householder_product, which minigrad does not have."""
from ...autograd.grad_mode import no_grad
from ...functional import dot, mv
from ...tensor import Tensor
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .spectral_norm import _default_dim
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        weight_g = norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module, name="weight", dim=0):
    """Parametrize `name` as g * v / ||v|| (norm over every dim but dim; dim=None: the whole
    tensor), g and v stored as `parametrizations.<name>.original0` and `original1`."""
    _weight_norm_p = _WeightNorm(dim)
    parametrize.register_parametrization(module, name, _weight_norm_p, unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs):
        # a checkpoint of the hook-based weight_norm (<name>_g, <name>_v) loads too
        g_key = f"{prefix}{name}_g"
        v_key = f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from a good estimate of the top singular vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(f"Expected weight to have more than 1 dimension, got {weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        if weight_mat.ndim <= 1:
            raise AssertionError(f"Expected weight_mat to have more than 1 dimension, got {weight_mat.ndim}")
        with no_grad():
            for _ in range(n_power_iterations):
                # in place (torch's out=): _u and _v stay the same buffers
                self._u.copy_(F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mv(weight_mat.mT, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = dot(u, mv(weight_mat, v))  # vdot: minigrad tensors are real
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Parametrize `name` as weight / sigma, sigma its largest singular value estimated by
    power iteration (buffers `_u`, `_v`, updated in training mode only)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = _default_dim(module)
    parametrize.register_parametrization(module, name,
                                         _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
