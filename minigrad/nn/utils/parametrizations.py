"""minigrad.nn.utils.parametrizations: orthogonal, weight_norm and spectral_norm written as
parametrizations (torch.nn.utils.parametrizations)."""
from enum import Enum, auto

from ...autograd.grad_mode import no_grad
from ...functional import dot, mv
from ...tensor import Tensor
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .spectral_norm import _default_dim
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---- orthogonal ----------------------------------------------------------------------------------
#
# The parametrized weight is computed from an unconstrained tensor X of the weight's shape, always
# handled in its tall orientation (n rows >= k columns; a wide weight is transposed in and out):
#
# - "matrix_exp" / "cayley": X's lower triangle, padded to n x n, gives the skew-symmetric
#   S = L - L^H; exp(S), or the Cayley transform (I - S/2)^-1 (I + S/2), is orthogonal, and its
#   first k columns are orthonormal.
# - "householder": X's strict lower triangle holds the reflectors of a QR-style product; X's
#   diagonal (+1 / -1, never trained) fixes the sign of each column.
#
# With use_trivialization a buffer `base` (an n x n orthogonal matrix) multiplies the result from
# the left: assigning a matrix Q stores it (completed to a square one) as base and sets X to -I,
# the point where every map above yields the identity, so the weight starts out as Q itself.


def _has_orthonormal_columns(Q):
    """Whether Q^H Q is the identity, to a tolerance scaled by the row count and dtype."""
    from ... import eye, finfo
    rows, cols = Q.size(-2), Q.size(-1)
    tolerance = 10.0 * rows * finfo(Q.dtype).eps
    return (Q.mH @ Q).allclose(eye(cols, dtype=Q.dtype, device=Q.device), atol=tolerance)


def _qr_orthonormal(A):
    """The Q factor of a tall A's QR decomposition, made unique by giving R a non-negative
    diagonal (each column of Q times the sign of the matching diagonal entry of R)."""
    from ... import geqrf, linalg
    reflectors, tau = geqrf(A)
    signs = reflectors.diagonal(dim1=-2, dim2=-1).sgn()  # geqrf leaves R's diagonal in place
    return linalg.householder_product(reflectors, tau) * signs.unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """The orthogonal parametrization (see the comment above); `shape` is the weight's, which
    assignments must keep."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)  # set by the first right_inverse

    @property
    def _trivialized(self):
        return "base" in self._buffers

    def _from_skew(self, tall):
        from ... import cat, eye, linalg, matrix_exp
        rows, cols = tall.size(-2), tall.size(-1)
        lower = tall.tril()
        if rows != cols:  # embed the n x k triangle in an n x n matrix
            padding = lower.new_zeros(rows, rows - cols).expand(*lower.shape[:-2], -1, -1)
            lower = cat([lower, padding], dim=-1)
        skew = lower - lower.mH
        if self.orthogonal_map is _OrthMaps.matrix_exp:
            square = matrix_exp(skew)
        else:
            ident = eye(rows, dtype=skew.dtype, device=skew.device)
            square = linalg.solve(ident.add(skew, alpha=-0.5), ident.add(skew, alpha=0.5))
        return square if rows == cols else square[..., :cols]

    @staticmethod
    def _from_reflectors(tall):
        from ... import linalg
        reflectors = tall.tril(diagonal=-1)
        # tau = 2 / |v|^2 with v's implicit unit head: each factor is a true reflection
        tau = 2.0 / (1.0 + (reflectors * reflectors).sum(dim=-2))
        # the diagonal's signs, through .int(): a constant for autograd, never updated
        signs = tall.diagonal(dim1=-2, dim2=-1).int()
        return linalg.householder_product(reflectors, tau) * signs.unsqueeze(-2)

    def forward(self, X):
        wide = X.size(-2) < X.size(-1)
        tall = X.mT if wide else X
        if self.orthogonal_map is _OrthMaps.householder:
            Q = self._from_reflectors(tall)
        else:
            Q = self._from_skew(tall)
        if self._trivialized:
            Q = self.base @ Q
        return Q.mT if wide else Q

    def right_inverse(self, Q):
        with no_grad():
            return self._unconstrained_for(Q)

    def _unconstrained_for(self, Q):
        """The X whose forward() is Q (for an orthogonal Q; other matrices are orthogonalized)."""
        from ... import cat, geqrf, randn, zeros_like
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        wide = Q.size(-2) < Q.size(-1)
        tall = Q.mT if wide else Q
        rows, cols = tall.size(-2), tall.size(-1)
        if not self._trivialized:
            # only the householder map can be inverted directly: X is Q's geqrf output with the
            # diagonal replaced by R's signs (flipped where tau is 0, where LAPACK reflects nothing)
            if self.orthogonal_map is not _OrthMaps.householder:
                raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                          "or the Cayley parametrizations when use_trivialization=False.")
            reflectors, tau = geqrf(tall)
            diagonal = reflectors.diagonal(dim1=-2, dim2=-1)
            diagonal.sign_()
            diagonal[tau == 0.0] *= -1
            return reflectors.mT if wide else reflectors
        if rows == cols:
            base = tall.clone() if _has_orthonormal_columns(tall) else _qr_orthonormal(tall)
        else:
            # complete the k orthonormal columns to a square orthogonal matrix with random ones
            filler = randn(*tall.shape[:-2], rows, rows - cols, dtype=tall.dtype, device=tall.device)
            base = _qr_orthonormal(cat([tall, filler], dim=-1))
        self.base = base
        start = zeros_like(Q)
        start.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return start


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Parametrize `name` as an orthogonal matrix (batch): orthonormal columns when m >= n, rows
    otherwise, through "matrix_exp" or "cayley" of a skew-symmetric matrix or a "householder"
    product (default: matrix_exp for square matrices, householder otherwise); with
    use_trivialization an extra `base` buffer holds the orthogonal matrix the map starts from."""
    target = getattr(module, name, None)
    if not isinstance(target, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if target.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {target.ndim} dimensions.")
    if orthogonal_map is None:
        square = target.size(-2) == target.size(-1)
        orthogonal_map = "matrix_exp" if square else "householder"
    chosen = getattr(_OrthMaps, orthogonal_map, None)
    if chosen is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    parametrization = _Orthogonal(target, chosen, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, parametrization, unsafe=True)
    return module


# ---- weight_norm as a parametrization ------------------------------------------------------------

class _WeightNorm(Module):
    """w = g * v / ||v|| from two originals: original0 = g, the norms of the slices along dim
    (dim -1: one norm for the whole tensor), and original1 = v, the direction."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        # a weight is its own direction, scaled by its own norms
        return norm_except_dim(weight, 2, self.dim), weight


def _hook_checkpoint_renamer(name):
    """A load_state_dict pre-hook: a checkpoint of the hook-based weight_norm stores g and v as
    `<name>_g` and `<name>_v`; they are renamed to the parametrization's originals."""
    def rename(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        old_g, old_v = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if old_g not in state_dict or old_v not in state_dict:
            return
        new = f"{prefix}parametrizations.{name}.original"
        state_dict[new + "0"] = state_dict.pop(old_g)
        state_dict[new + "1"] = state_dict.pop(old_v)
    return rename


def weight_norm(module, name="weight", dim=0):
    """Parametrize `name` as g * v / ||v|| (norm over every dim but dim; dim=None: the whole
    tensor), g and v stored as `parametrizations.<name>.original0` and `original1`."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    module._register_load_state_dict_pre_hook(_hook_checkpoint_renamer(name))
    return module


# ---- spectral_norm as a parametrization ----------------------------------------------------------

class _SpectralNorm(Module):
    """weight / sigma, sigma the largest singular value of the weight as a matrix (rows along
    dim), estimated by power iteration on the buffers _u and _v (left and right singular
    vector estimates), refined in training mode only. A 1-d weight is just normalized."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if not -ndim <= dim < ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim % ndim
        self.eps = eps
        if ndim < 2:
            return
        self.n_power_iterations = n_power_iterations
        matrix = self._reshape_weight_to_matrix(weight)
        rows, cols = matrix.shape
        # random unit vectors (u drawn first), then enough steps for a good first estimate
        start_u = matrix.new_empty(rows).normal_(0, 1)
        start_v = matrix.new_empty(cols).normal_(0, 1)
        self.register_buffer("_u", F.normalize(start_u, dim=0, eps=eps))
        self.register_buffer("_v", F.normalize(start_v, dim=0, eps=eps))
        self._power_method(matrix, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(f"Expected weight to have more than 1 dimension, got {weight.ndim}")
        return weight.movedim(self.dim, 0).flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        """Refine _u and _v in place (they stay the same buffers): u <- W v / |W v|, then
        v <- W^T u / |W^T u|, n_power_iterations times."""
        if weight_mat.ndim <= 1:
            raise AssertionError(f"Expected weight_mat to have more than 1 dimension, got {weight_mat.ndim}")
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mv(weight_mat.mT, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        matrix = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        # copies: a later in-place refinement must not change what this backward reads
        left, right = self._u.clone(), self._v.clone()
        sigma = dot(left, mv(matrix, right))  # u^H W v, and minigrad tensors are real
        return weight / sigma

    def right_inverse(self, value):
        return value  # any weight is a valid original: sigma is recomputed from it


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Parametrize `name` as weight / sigma, sigma its largest singular value estimated by
    power iteration (buffers `_u`, `_v`, updated in training mode only)."""
    target = getattr(module, name, None)
    if not isinstance(target, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    parametrization = _SpectralNorm(target, n_power_iterations, _default_dim(module) if dim is None else dim, eps)
    parametrize.register_parametrization(module, name, parametrization)
    return module
