"""torch's deprecated top-level linear algebra (cholesky, lu, lu_solve, nuclear_norm,
frobenius_norm, norm_except_dim, the removed matrix_rank) and the randomized low-rank
factorizations (svd_lowrank, pca_lowrank), each written with the torch.linalg ops: the same
values, gradients and deprecation warnings (once per process, as torch's TORCH_WARN_ONCE)."""
from ..tensor import Tensor
from .linalg_factor import LinalgCholeskyEx, _cholesky_checks, _check_cholesky, lu_factor_ex, lu_solve as _lu_solve
from .math_more import _return_type
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

_lu_with_info = _return_type("_lu_with_info", ("LU", "pivots", "info"))
_WARNED = set()


def _warn_once(key, message):
    if key not in _WARNED:
        _WARNED.add(key)
        import warnings
        warnings.warn(message, UserWarning, stacklevel=3)


class _Cholesky(LinalgCholeskyEx):
    _node_name = "CholeskyBackward0"


def cholesky(input, upper=False, *, out=None):
    if _AUTOCAST_ON[0] and (r := _autocast("cholesky", cholesky, input, upper, out=out)) is not None:
        return r
    _warn_once("cholesky", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
               "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)"
               "\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
               "This transform will produce equivalent results for all valid (symmetric positive definite) inputs.")
    _cholesky_checks(input, "cholesky", "cholesky")
    L, info = _Cholesky.apply(input, bool(upper))
    _check_cholesky(info, "cholesky")
    return L


def lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu: (LU, pivots), or (LU, pivots, infos) with get_infos (infos says where a singular
    matrix's zero pivot is; a singular matrix is no error either way)."""
    if _AUTOCAST_ON[0] and (r := _autocast("lu", lu, A, pivot, get_infos, out)) is not None:
        return r
    _warn_once("lu", "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
               "will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be "
               "replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = "
               "torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
               "torch.linalg.lu_factor_ex(A, compute_pivots)")
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)  # a singular A is no error, as torch's
    if get_infos:
        return _lu_with_info(LU, pivots, info)
    return LU, pivots


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """torch.lu_solve(B, LU, pivots): linalg.lu_solve(LU, pivots, B), arguments reversed."""
    if _AUTOCAST_ON[0] and (r := _autocast("lu_solve", lu_solve, b, LU_data, LU_pivots, out=out)) is not None:
        return r
    _warn_once("lu_solve", "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
               "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = "
               "torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)")
    return _lu_solve(LU_data, LU_pivots, b)


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    raise RuntimeError("This function was deprecated since version 1.9 and is now removed.\nPlease use the "
                       "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
                       "`torch.linalg.matrix_rank()` to 'hermitian'.")


def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """The sum of the singular values over the two dims (the last two when dim is None)."""
    from .. import linalg
    _warn_once("nuclear_norm", "at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will "
               "be removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` "
               "instead")
    if isinstance(dim, bool):  # nuclear_norm(A, keepdim) by position
        dim, keepdim = None, dim
    if input.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    return linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)


def frobenius_norm(input, dim, keepdim=False, *, out=None):
    """The 2-norm of the elements over dims (at most two of them; () means all)."""
    from .. import linalg
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    _warn_once("frobenius_norm", "at::frobenius_norm is deprecated and it is just left for JIT compatibility. It "
               "will be removed in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` "
               "instead")
    return linalg.vector_norm(input, 2, dims if dims else None, keepdim)


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm over every dim but dim, shaped like v with ones elsewhere (weight_norm's g);
    dim=-1: the norm of the whole tensor."""
    from .. import linalg
    if dim == -1:
        return linalg.vector_norm(v, pow)
    from ..tensor import _wrap_dim
    n = v.dim()
    d = dim if -n <= dim < n else _wrap_dim(dim, n)
    d %= n
    return linalg.vector_norm(v, pow, tuple(i for i in range(n) if i != d) or None, True)


# ---- randomized low-rank factorizations (Halko, Martinsson & Tropp 2009) ----------------------

def _mT(x):
    return x.transpose(-2, -1)


def _range_basis(A, q, niter, M):
    """An orthonormal Q (m, q) whose span approximately holds A - M's leading left singular space:
    a Gaussian sketch, then niter rounds of power iteration, orthonormalized at every step."""
    from .. import linalg, randn
    def apply(x):
        return A @ x if M is None else A @ x - M @ x

    def apply_t(x):
        return _mT(A) @ x if M is None else _mT(A) @ x - _mT(M) @ x
    m, n = A.shape[-2:]
    R = randn(*A.shape[:-2], n, q, dtype=A.dtype, device=A.device)
    Q = linalg.qr(apply(R)).Q
    for _ in range(niter):
        Q = linalg.qr(apply_t(Q)).Q
        Q = linalg.qr(apply(Q)).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) with A - M ~= U diag(S) V^T from a random projection of rank q: randomized, so
    the factors differ from run to run but reconstruct A as well as an exact rank-q SVD when A's
    spectrum decays."""
    from .. import linalg
    if not isinstance(A, Tensor):
        raise TypeError(f"svd_lowrank(): argument 'A' must be Tensor, not {type(A).__name__}")
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    tall = m >= n
    if not tall:  # work with the transpose so the sketch has the smaller side
        A, M = _mT(A), (None if M is None else _mT(M))
    Q = _range_basis(A, q, niter, M)
    B = _mT(Q) @ A if M is None else _mT(Q) @ A - _mT(Q) @ M
    U, S, Vh = linalg.svd(B, full_matrices=False)
    U = Q @ U
    V = _mT(Vh)
    return (U, S, V) if tall else (V, S, U)


def pca_lowrank(A, q=None, center=True, niter=2):
    """(U, S, V): the principal directions of A's rows (centered per column when center) by
    svd_lowrank of rank q (default min(6, m, n))."""
    if not isinstance(A, Tensor):
        raise TypeError(f"pca_lowrank(): argument 'A' must be Tensor, not {type(A).__name__}")
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter, None)
    mean = A.mean(-2, keepdim=True)
    return svd_lowrank(A - mean, q, niter, None)


FUNCTIONS = {"cholesky": cholesky, "lu": lu, "lu_solve": lu_solve, "matrix_rank": matrix_rank,
             "nuclear_norm": nuclear_norm, "frobenius_norm": frobenius_norm, "norm_except_dim": norm_except_dim,
             "svd_lowrank": svd_lowrank, "pca_lowrank": pca_lowrank}
