"""torch.linalg: all of its real-valued API but ldl_factor(_ex) / ldl_solve. vector_norm (any
ord), matrix_norm and norm (every ord: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf; 2, -2 and 'nuc' through svdvals), cross, and the
orthogonal factorizations of ops/linalg_eig.py (eigh, eigvalsh, svd, svdvals, qr) with pinv,
matrix_rank and cond."""
from .ops.math_more import linalg_cross as cross  # noqa: F401
from .ops.linalg_eig import (eigh, eigvalsh, svd, svdvals, qr, pinv, matrix_rank, cond,  # noqa: F401
                              matrix_norm_svd as _matrix_norm_svd)
from .ops.tensor_extras import multi_dot, matrix_power  # noqa: F401
# the LU and Cholesky families (ops/linalg_factor.py; kernels/linalg.cu on CUDA)
from .ops.linalg_factor import (lu_factor, lu_factor_ex, lu, lu_solve, inv, inv_ex, det, slogdet, solve,  # noqa: F401
                                solve_ex, cholesky, cholesky_ex, solve_triangular, _LinAlgError as LinAlgError)
# matrix_exp, lstsq, householder_product and the small compositions (ops/linalg_more.py)
from .ops.linalg_more import (matrix_exp, lstsq, vecdot, diagonal, vander, matmul, tensorinv,  # noqa: F401
                              tensorsolve, householder_product)
from .ops import reduce as _reduce
from .tensor import Tensor
from ._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

_INF = float("inf")


def _tensor(x, op):
    if not isinstance(x, Tensor):
        from ._arg_errors import type_name
        raise TypeError(f"linalg_{op}(): argument 'input' (position 1) must be Tensor, not {type_name(x)}")
    return x


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The vector norm of x's elements over dim (all of them when None)."""
    return _reduce.norm(_tensor(x, "vector_norm"), ord, dim, keepdim, dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm over the two dims `dim`: 'fro', 'nuc' (the sum of the singular values),
    the largest (smallest) singular value for ord 2 (-2), the largest (smallest) absolute column
    sum for ord 1 (-1), row sum for inf (-inf)."""
    if _AUTOCAST_ON[0] and (r := _autocast("matrix_norm", matrix_norm, A, ord, dim, keepdim, dtype=dtype)) is not None:
        return r
    A = _tensor(A, "matrix_norm")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim}")
    d0, d1 = (d % A.dim() for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        return _reduce.norm(A, 2, (d0, d1), keepdim, dtype)
    if ord not in (1, -1, _INF, -_INF, 2, -2, "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. "
                           f"Got {A.dtype._legacy[:-6]}")
    if dtype is not None:
        A = A.to(dtype)
    if ord in ("nuc", 2, -2):
        return _matrix_norm_svd(A, ord, d0, d1, keepdim)
    # ord 1: sum down each column (over d0), then the extreme over the columns (d1); inf: rows
    summed, over = (d0, d1) if abs(ord) == 1 else (d1, d0)
    sums = A.abs().sum(summed, keepdim=keepdim)
    if not keepdim and summed < over:
        over -= 1  # (the summed dim is gone)
    return sums.amax(over, keepdim=keepdim) if ord > 0 else sums.amin(over, keepdim=keepdim)  # torch's nodes


def norm(input, ord=None, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.norm: with ord None the 2-norm of the flattened input (of the dims `dim`);
    otherwise a vector norm over one dim (or of a 1-d input), a matrix norm over two dims (or of a
    2-d input)."""
    input = _tensor(input, "norm")
    if ord is None:
        return _reduce.norm(input, 2, dim, keepdim, dtype)
    if isinstance(dim, int):
        dim = (dim,)
    if (dim is None and input.dim() == 2) or (dim is not None and len(dim) == 2):
        return matrix_norm(input, ord, (-2, -1) if dim is None else tuple(dim), keepdim, dtype=dtype)
    if dim is None and input.dim() != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{input.dim()}D.")
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, not {ord!r}")
    return _reduce.norm(input, ord, dim, keepdim, dtype)
