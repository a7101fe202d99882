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


def _is_orthogonal(Q, eps=None):
    from ... import eye, finfo
    n, k = Q.size(-2), Q.size(-1)
    Id = eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * finfo(Q.dtype).eps  # a reasonable eps, but not too large
    return (Q.mH @ Q).allclose(Id, atol=eps)


def _make_orthogonal(A):
    """The Q of A = QR (A tall) with diag(R) non-negative."""
    from ... import geqrf, linalg
    X, tau = geqrf(A)
    Q = linalg.householder_product(X, tau)
    # the diagonal of X is R's: normalise by its signs
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        from ... import cat, eye, linalg, matrix_exp
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        # here n >= k: X is tall
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            # n k - k (k - 1) / 2 parameters: the lower triangle, embedded in a square matrix
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH  # skew-symmetric
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:  # the Cayley retraction (I + A/2)(I - A/2)^{-1}
                Id = eye(n, dtype=A.dtype, device=A.device)
                Q = linalg.solve(Id.add(A, alpha=-0.5), Id.add(A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg.householder_product(A, tau)
            # X's diagonal holds 1's and -1's: not differentiated through, nor updated
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        from ... import cat, geqrf, randn, zeros_like
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                          "or the Cayley parametrizations when use_trivialization=False.")
            # householder: Q made orthogonal through its QR decomposition, diag(R) > 0
            A, tau = geqrf(Q)
            A.diagonal(dim1=-2, dim2=-1).sign_()
            # LAPACK's tau is exactly 0 where it reflects nothing
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:  # complete Q to an n x n orthogonal matrix
            N = randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        # -Id: householder(zeros(m, n)) == eye(m, n)
        neg_Id = zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Parametrize `name` as an orthogonal matrix (batch): orthonormal columns when m >= n, rows
    otherwise, through "matrix_exp" or "cayley" of a skew-symmetric matrix or a "householder"
    product (default: matrix_exp for square matrices, householder otherwise); with
    use_trivialization an extra `base` buffer holds the orthogonal matrix the map starts from."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
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
