"""torch.linalg's LU and Cholesky families: lu_factor(_ex), lu, lu_solve, solve(_ex), inv(_ex), det,
slogdet, cholesky(_ex), solve_triangular, and torch.inverse/det/logdet/slogdet/cholesky_solve/
cholesky_inverse/triangular_solve, with torch's results, errors, nodes and gradients.

The factorizations are four backend primitives (lu_factor, lu_solve, triangular_solve, cholesky:
kernels/linalg.cu on CUDA); everything else is composed here. Backward formulas are torch's
(FunctionsManual.cpp), written in Tensor ops over the differentiable functions of this file, so
that a double backward works: where torch's first backward reuses the forward's LU factors,
this one does too unless a graph of the backward is being built (create_graph), when it solves
with A itself, which keeps the second derivative connected to A.
"""
from .._arg_errors import type_name
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..dtypes import float32, float64, int32, int64
from ..tensor import Tensor, _make
from .broadcast import broadcast_shape, sum_to
from .elementwise import device_error
from .math_more import _return_type
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError (torch._C._LinAlgError): a factorization that could not complete."""


_LinAlgError.__module__ = "minigrad._C"

linalg_lu_factor = _return_type("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = _return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_lu = _return_type("linalg_lu", ("P", "L", "U"))
linalg_inv_ex = _return_type("linalg_inv_ex", ("inverse", "info"))
linalg_slogdet = _return_type("linalg_slogdet", ("sign", "logabsdet"))
slogdet_type = _return_type("slogdet", ("sign", "logabsdet"))
linalg_solve_ex = _return_type("linalg_solve_ex", ("result", "info"))
linalg_cholesky_ex = _return_type("linalg_cholesky_ex", ("L", "info"))
triangular_solve_type = _return_type("triangular_solve", ("solution", "cloned_coefficient"))


# ---- argument checks, with torch's messages -------------------------------------------------------

def _tensor(x, fn, arg="A", pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not {type_name(x)}")
    return x


def _legacy(t):
    return t.dtype._legacy[:-6]


def _floating(A, op, low_precision=True):
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {_legacy(A)}")
    if A.dtype not in (float32, float64):
        if not low_precision:
            raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {_legacy(A)}")
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_legacy(A)}'")


def _not_implemented(A, kernel):
    """torch's CPU kernels for float32/float64 only: other dtypes name the kernel."""
    if A.dtype not in (float32, float64):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_legacy(A)}'")


def _square(A, op, name="A"):
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    if m != n:
        raise RuntimeError(f"{op}: {name} must be batches of square matrices, but they are {m} by {n} matrices")


def _same_device(a, b):
    if a._device is not b._device:
        raise device_error(a, b)


def _batch_prefix(info_list, i):
    return f"(Batch element {i}): " if len(info_list) > 1 else ""


def _flat_info(info):
    """info as a flat list of ints (a host sync, as torch's error checks)."""
    return info.reshape(-1).tolist()


def _check_singular(info, op):
    vals = _flat_info(info)
    for i, v in enumerate(vals):
        if v > 0:
            raise _LinAlgError(f"{op}: {_batch_prefix(vals, i)}The diagonal element {v} is zero, the inversion could "
                               "not be completed because the input matrix is singular.")


def _check_solver(info, op):
    if any(v > 0 for v in _flat_info(info)):
        raise _LinAlgError(f"{op}: The solver failed because the input matrix is singular.")


def _check_lu(info, op):
    for v in _flat_info(info):
        if v > 0:
            raise RuntimeError(f"{op}: U[{v},{v}] is zero and using it on lu_solve would result in a division by "
                               "zero. If you still want to perform the factorization, consider calling "
                               "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def _check_cholesky(info, op):
    vals = _flat_info(info)
    for i, v in enumerate(vals):
        if v > 0:
            raise _LinAlgError(f"{op}: {_batch_prefix(vals, i)}The factorization could not be completed because the "
                               f"input is not positive-definite (the leading minor of order {v} is not "
                               "positive-definite).")


# ---- small helpers on Tensors -----------------------------------------------------------------------

def _mT(t):
    return t.transpose(-1, -2)


def _wrap(arr, device):
    return _make(arr, device)


def _eye_like(A, n=None):
    n = A.shape[-1] if n is None else n
    be = A._device.backend
    return _make(be.eye(n, n, A._data.dtype), A._device)


def _expand_batch(t, batch):
    """t (..., r, c) broadcast to batch + (r, c), as an array (a view where possible)."""
    be = t._device.backend
    shape = tuple(batch) + tuple(t._data.shape[-2:])
    return t._data if tuple(t._data.shape) == shape else be.broadcast_to(t._data, shape)


def _permutation(pivots, m, like):
    """P (..., m, m) with A = P L U from 1-based LAPACK pivots (..., k): a host loop over the row
    interchanges (a sync; torch's lu_unpack runs its own loop)."""
    batch = tuple(pivots.shape[:-1])
    be, nb = like._device.backend, _count(batch)
    if not nb or not m:
        return _make(be.zeros(batch + (m, m), like._data.dtype), like._device)
    perms = []
    for piv in pivots.reshape(nb, pivots.shape[-1]).tolist():
        perm = list(range(m))
        for k, p in enumerate(piv):
            p = min(max(int(p) - 1, 0), m - 1)
            perm[k], perm[p] = perm[p], perm[k]
        perms.extend(perm)
    idx = _make(be.asarray(perms, int64.np), like._device)
    # the identity's rows in perm's order are P^T: row i of P^T A is row perm[i] of A
    return _mT(_eye_like(like, m).index_select(0, idx).reshape(batch + (m, m)))


def _count(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _unpack(LU):
    """L (..., m, k) unit lower and U (..., k, n) of lu_factor's LU (k = min(m, n))."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = LU.narrow(-1, 0, k).tril(-1) + _make(LU._device.backend.eye(m, k, LU._data.dtype), LU._device)
    U = LU.narrow(-2, 0, k).triu()
    return L, U


# ---- LU ----------------------------------------------------------------------------------------------

def _lu_arrays(A):
    return A._device.backend.lu_factor(A._data)


class LinalgLuFactorEx(Function):
    _node_name = "LinalgLuFactorExBackward0"

    @staticmethod
    def forward(ctx, A):
        lu, piv, info = _lu_arrays(A)
        LU, pivots, info = _wrap(lu, A._device), _wrap(piv, A._device), _wrap(info, A._device)
        ctx.save_for_backward(LU, pivots)
        return LU, pivots, info

    @staticmethod
    def backward(ctx, gLU, _gp, _gi):
        LU, pivots = ctx.saved_tensors
        L, U = _unpack(LU)
        P = _permutation(pivots, LU.shape[-2], LU)
        k = min(LU.shape[-2:])
        return _lu_backward(gLU.narrow(-1, 0, k).tril(-1), gLU.narrow(-2, 0, k).triu(), P, L, U)


class LinalgLu(Function):
    _node_name = "LinalgLuBackward0"

    @staticmethod
    def forward(ctx, A):
        lu, piv, _ = _lu_arrays(A)
        LU, pivots = _wrap(lu, A._device), _wrap(piv, A._device)
        L, U = _unpack(LU)
        P = _permutation(pivots, A.shape[-2], A)
        ctx.save_for_backward(P, L, U)
        ctx.mark_non_differentiable(P)
        return P, L, U

    @staticmethod
    def backward(ctx, _gP, gL, gU):
        P, L, U = ctx.saved_tensors
        return _lu_backward(gL, gU, P, L, U)


def _lu_backward(gL, gU, P, L, U):
    """torch's linalg_lu_backward (square, wide and tall), A = P L U."""
    m, n = L.shape[-2], U.shape[-1]
    if m == n:
        gA = (_mT(L) @ gL).tril(-1) + (gU @ _mT(U)).triu()
        gA = solve_triangular(_mT(U), gA, upper=False, left=False)
        gA = solve_triangular(_mT(L), gA, upper=True, left=True, unitriangular=True)
        return P @ gA
    if m < n:  # wide: U = [U1 U2]; A2's part only reaches U2
        U1, U2, gU1, gU2 = U.narrow(-1, 0, m), U.narrow(-1, m, n - m), gU.narrow(-1, 0, m), gU.narrow(-1, m, n - m)
        gX = (_mT(L) @ gL - gU2 @ _mT(U2)).tril(-1) + (gU1 @ _mT(U1)).triu()
        gA = _cat([solve_triangular(_mT(U1), gX, upper=False, left=False), gU2], -1)
        gA = solve_triangular(_mT(L), gA, upper=True, left=True, unitriangular=True)
        return P @ gA
    # tall: L = [L1; L2]
    L1, L2, gL1, gL2 = L.narrow(-2, 0, n), L.narrow(-2, n, m - n), gL.narrow(-2, 0, n), gL.narrow(-2, n, m - n)
    gX = (_mT(L1) @ gL1).tril(-1) + (gU @ _mT(U) - _mT(L2) @ gL2).triu()
    gA = _cat([solve_triangular(_mT(L1), gX, upper=True, left=True, unitriangular=True), gL2], -2)
    gA = solve_triangular(_mT(U), gA, upper=False, left=False)
    return P @ gA


def _cat(ts, dim):
    from .join import cat
    return cat(ts, dim)


def _lu_checks(A, op):
    _tensor(A, op.replace(".", "_").replace("torch_", ""))
    if A.dim() < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} "
                           "instead")
    _not_implemented(A, "lu_cpu")


def _pivot_arg(pivot, op):
    if not pivot:
        raise RuntimeError(f"{op}: LU without pivoting is not implemented on the CPU")


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    _lu_checks(A, "linalg.lu_factor_ex")
    _pivot_arg(pivot, "linalg.lu_factor")
    LU, pivots, info = LinalgLuFactorEx.apply(A)
    if check_errors:
        _check_lu(info, "torch.linalg.lu_factor_ex")
    return linalg_lu_factor_ex(LU, pivots, info)


def lu_factor(A, *, pivot=True):
    _lu_checks(A, "linalg.lu_factor")
    _pivot_arg(pivot, "linalg.lu_factor")
    LU, pivots, info = LinalgLuFactorEx.apply(A)
    _check_lu(info, "torch.linalg.lu_factor")
    return linalg_lu_factor(LU, pivots)


def lu(A, *, pivot=True):
    _lu_checks(A, "linalg.lu")
    _pivot_arg(pivot, "linalg.lu_factor")
    return linalg_lu(*LinalgLu.apply(A))


# ---- lu_solve ------------------------------------------------------------------------------------------

class LinalgLuSolve(Function):
    """X with op(A) X = B (left) or X op(A) = B, op(A) = A or A^T (adjoint), A = P L U."""
    _node_name = "LinalgLuSolveBackward0"

    @staticmethod
    def forward(ctx, LU, pivots, B, left, adjoint):
        be = LU._device.backend
        batch = broadcast_shape(tuple(B.shape[:-2]), tuple(LU.shape[:-2]))
        lu = _expand_batch(LU, batch)
        piv = pivots._data
        if tuple(piv.shape[:-1]) != tuple(batch):
            piv = be.broadcast_to(piv, tuple(batch) + tuple(piv.shape[-1:]))
        b = _expand_batch(B, batch)
        if left:
            x = be.lu_solve(lu, piv, b, adjoint)
        else:  # X op(A) = B  <=>  op(A)^T X^T = B^T
            x = be.transpose(be.lu_solve(lu, piv, be.transpose(b, _swap_last(b.ndim)), not adjoint),
                             _swap_last(b.ndim))
        X = _wrap(x, B._device)
        ctx.save_for_backward(LU, pivots, X)
        ctx.left, ctx.adjoint = left, adjoint
        ctx.shapes = (tuple(LU.shape), tuple(B.shape))
        return X

    @staticmethod
    def backward(ctx, gX):
        LU, pivots, X = ctx.saved_tensors
        left, adjoint = ctx.left, ctx.adjoint
        gLU = gB = None
        if ctx.needs_input_grad[2]:
            gB = sum_to(lu_solve(LU, pivots, gX, left=left, adjoint=not adjoint), ctx.shapes[1])
        if ctx.needs_input_grad[0]:
            gLU = sum_to(_lu_solve_LU_grad(gX, LU, pivots, X, left, adjoint), ctx.shapes[0])
        return gLU, None, gB, None, None


def _swap_last(nd):
    return tuple(range(nd - 2)) + (nd - 1, nd - 2)


def _lu_solve_LU_grad(gX, LU, pivots, X, left, adjoint):
    """torch's linalg_lu_solve_LU."""
    L, U = _unpack(LU)
    if left != adjoint:
        gR = solve_triangular(_mT(U), -(gX if left else _mT(gX)) @ (_mT(X) if left else X), upper=False)
        gL = solve_triangular(_mT(L), gR @ _mT(U), upper=True, left=True, unitriangular=True).tril(-1)
        return gL + gR.triu()
    P = _permutation(pivots, LU.shape[-1], LU)
    gR = -(_mT(P) @ (X if left else _mT(X)) @ (_mT(gX) if left else gX) @ P)
    gR = solve_triangular(_mT(L), gR, upper=True, left=False, unitriangular=True)
    gU = solve_triangular(_mT(U), _mT(L) @ gR, upper=False, left=False).triu()
    return gR.tril(-1) + gU


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    _tensor(LU, "linalg_lu_solve", "LU", 1)
    _tensor(pivots, "linalg_lu_solve", "pivots", 2)
    _tensor(B, "linalg_lu_solve", "B", 3)
    _same_device(LU, B)
    _same_device(LU, pivots)
    if LU.dim() < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor LU must have at least 2 dimensions.")
    if B.dim() < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if not LU.dtype.is_floating_point:
        raise RuntimeError(f"torch.linalg.lu_solve: Expected a floating point or complex tensor as input. Got "
                           f"{_legacy(LU)}")
    m, n = LU.shape[-2:]
    if m != n:
        raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but they are {m} by {n} "
                           "matrices")
    if LU.dtype is not B.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{_legacy(LU)} and B of type {_legacy(B)} instead")
    if pivots.dtype is not int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")
    if pivots.dim() < 1 or pivots.shape[-1] != n:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the dimension of the "
                           "matrix")
    if tuple(pivots.shape[:-1]) != tuple(LU.shape[:-2]):
        raise RuntimeError("linalg.lu_solve: Expected LU.shape[:-2] == pivots.shape[:-1]")
    if pivots.numel() and int(pivots.min().item()) < 1:
        raise RuntimeError("Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass the "
                           "result of lu_factor?")
    if pivots.numel() and int(pivots.max().item()) > n:
        raise RuntimeError("Pivots given to lu_solve must all be smaller or equal to LDA. Did you properly pass the "
                           "result of lu_factor?")
    return LinalgLuSolve.apply(LU, pivots, B, bool(left), bool(adjoint))


# ---- solve, inv ------------------------------------------------------------------------------------------

def _is_vector_rhs(A, B):
    """torch's linalg_solve_is_vector_rhs: B is a (batch of) vector(s)."""
    return B.dim() == 1 or (A.dim() - 1 == B.dim() and tuple(B.shape) == tuple(A.shape[:-1]))


class LinalgSolveEx(Function):
    _node_name = "LinalgSolveExBackward0"

    @staticmethod
    def forward(ctx, A, B, left, vector):
        be = A._device.backend
        lu, piv, info = be.lu_factor(A._data)
        Bm = B.unsqueeze(-1) if vector else B
        batch = broadcast_shape(tuple(Bm.shape[:-2]), tuple(A.shape[:-2]))
        lub = _expand_batch(_wrap(lu, A._device), batch)
        pivb = piv if tuple(piv.shape[:-1]) == tuple(batch) else be.broadcast_to(piv, tuple(batch) + piv.shape[-1:])
        b = _expand_batch(Bm, batch)
        if left:
            x = be.lu_solve(lub, pivb, b, False)
        else:
            sw = _swap_last(b.ndim)
            x = be.transpose(be.lu_solve(lub, pivb, be.transpose(b, sw), True), sw)
        X = _wrap(x, A._device)
        if vector:
            X = X.squeeze(-1)
        LU, pivots, info = _wrap(lu, A._device), _wrap(piv, A._device), _wrap(info, A._device)
        ctx.save_for_backward(A, LU, pivots, X)
        ctx.left, ctx.vector = left, vector
        ctx.shapes = (tuple(A.shape), tuple(B.shape))
        return X, info

    @staticmethod
    def backward(ctx, gX, _ginfo):
        A, LU, pivots, X = ctx.saved_tensors
        left, vector = ctx.left, ctx.vector
        if vector:
            gX, X = gX.unsqueeze(-1), X.unsqueeze(-1)
        if is_grad_enabled():  # a graph of the backward: solve with A, so A's second derivative flows
            gB = solve(_mT(A), gX, left=left)
        else:
            gB = LinalgLuSolve.apply(LU, pivots, gX, left, True)
        gA = None
        if ctx.needs_input_grad[0]:
            gA = sum_to(-(gB @ _mT(X)) if left else -(_mT(X) @ gB), ctx.shapes[0])
        if ctx.needs_input_grad[1]:
            gB = sum_to(gB.squeeze(-1) if vector else gB, ctx.shapes[1])
        else:
            gB = None
        return gA, gB, None, None


def _solve_checks(A, B, left, op):
    fn = "linalg_solve_ex" if op.endswith("_ex") else "linalg_solve"
    _tensor(A, fn, "A", 1)
    _tensor(B, fn, "B", 2)
    _same_device(A, B)
    if A.dim() < 2:
        raise RuntimeError("linalg.solve: The input tensor A must have at least 2 dimensions.")
    _floating(A, "linalg.solve")
    m, n = A.shape[-2:]
    if m != n:
        raise RuntimeError(f"linalg.solve: A must be batches of square matrices, but they are {m} by {n} matrices")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type {_legacy(A)} "
                           f"and B of type {_legacy(B)} instead")
    vector = _is_vector_rhs(A, B)
    rows = B.shape[-1] if vector else (B.shape[-2] if left else B.shape[-1])
    if rows != n or (not vector and B.dim() < 2):
        shape = (B.shape[-1], 1) if vector else tuple(B.shape[-2:])
        if not left and vector:
            shape = (B.shape[-1], 1)
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                           f"{shape[0]}x{shape[1]})")
    if vector and not left:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation XA = B ({n}x{n} and "
                           f"{B.shape[-1]}x1)")
    return vector


def solve_ex(A, B, *, left=True, check_errors=False):
    vector = _solve_checks(A, B, left, "linalg.solve_ex")
    X, info = LinalgSolveEx.apply(A, B, bool(left), vector)
    if check_errors:
        _check_solver(info, "torch.linalg.solve_ex")
    return linalg_solve_ex(X, info)


def solve(A, B, *, left=True):
    if _AUTOCAST_ON[0] and (r := _autocast("linalg_solve", solve, A, B, left=left)) is not None:
        return r
    vector = _solve_checks(A, B, left, "linalg.solve")
    X, info = LinalgSolveEx.apply(A, B, bool(left), vector)
    _check_solver(info, "torch.linalg.solve")
    return X


class LinalgInvEx(Function):
    _node_name = "LinalgInvExBackward0"

    @staticmethod
    def forward(ctx, A):
        be = A._device.backend
        lu, piv, info = be.lu_factor(A._data)
        n = A.shape[-1]
        eye = be.broadcast_to(be.eye(n, n, A._data.dtype), tuple(A.shape))
        inv = _wrap(be.lu_solve(lu, piv, eye, False), A._device)
        ctx.save_for_backward(inv)
        return inv, _wrap(info, A._device)

    @staticmethod
    def backward(ctx, g, _ginfo):
        inv, = ctx.saved_tensors
        invT = _mT(inv)
        return -(invT @ g @ invT)


def _inv_checks(A, op, fn="linalg_inv"):
    _tensor(A, fn)
    _square(A, op)
    _floating(A, op, low_precision=False)


def inv_ex(A, *, check_errors=False):
    if _AUTOCAST_ON[0] and (r := _autocast("linalg_inv_ex", inv_ex, A, check_errors=check_errors)) is not None:
        return r
    _inv_checks(A, "linalg.inv_ex", "linalg_inv_ex")
    inv, info = LinalgInvEx.apply(A)
    if check_errors:
        _check_singular(info, "linalg.inv_ex")
    return linalg_inv_ex(inv, info)


def inv(A):
    if _AUTOCAST_ON[0] and (r := _autocast("linalg_inv", inv, A)) is not None:
        return r
    _inv_checks(A, "linalg.inv")
    out, info = LinalgInvEx.apply(A)
    _check_singular(info, "linalg.inv")
    return out


def inverse(input):
    if _AUTOCAST_ON[0] and (r := _autocast("inverse", inverse, input)) is not None:
        return r
    _tensor(input, "inverse", "input")
    _inv_checks(input, "linalg.inv", "inverse")
    out, info = LinalgInvEx.apply(input)
    _check_singular(info, "linalg.inv")
    return out


# ---- det, slogdet, logdet ---------------------------------------------------------------------------------

def _pivot_sign(pivots, dtype):
    """(-1) ** (the number of row interchanges) per matrix, as a float tensor."""
    n = pivots.shape[-1]
    be = pivots._device.backend
    ids = _make(be.arange(1, n + 1, 1, pivots._data.dtype), pivots._device)
    swaps = (pivots != ids).sum(-1)
    return 1 - 2 * (swaps % 2).to(dtype)


def _det_parts(A):
    be = A._device.backend
    lu, piv, _ = be.lu_factor(A._data)
    LU, pivots = _wrap(lu, A._device), _wrap(piv, A._device)
    return LU, pivots, LU.diagonal(0, -2, -1), _pivot_sign(pivots, A.dtype)


class LinalgDet(Function):
    _node_name = "LinalgDetBackward0"

    @staticmethod
    def forward(ctx, A):
        LU, pivots, diag, sign = _det_parts(A)
        det = sign * diag.prod(-1)
        ctx.save_for_backward(A, LU, pivots, det)
        return det

    @staticmethod
    def backward(ctx, g):
        A, LU, pivots, det = ctx.saved_tensors
        if A.shape[-1] == 0:
            return A * 0
        d = (g * det).unsqueeze(-1).unsqueeze(-1)
        if is_grad_enabled():
            # a graph of the backward, as torch: the cofactor matrix, which singular matrices need
            # (torch gets it from an SVD), else det * A^-T through inv, differentiable again
            if bool((det == 0).any().item()):
                return _cofactors(A) * g.unsqueeze(-1).unsqueeze(-1)
            return _mT(inv(A)) * d
        # as torch's first-order backward: det * A^-T by the forward's LU, 0 where det == 0
        from .elementwise import where
        gA = LinalgLuSolve.apply(LU, pivots, _eye_like(A) * d, True, True)
        return where((det == 0).unsqueeze(-1).unsqueeze(-1), 0.0, gA)


def _cofactors(A):
    """C[..., i, j] = (-1)^(i+j) det(A without row i and column j), by a batch of (n-1)^2 minors."""
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    be = A._device.backend
    if n == 1:
        return A * 0 + 1
    others = [[r for r in range(n) if r != i] for i in range(n)]
    idx = _make(be.asarray([x for row in others for x in row], int64.np), A._device)
    rows = A.index_select(-2, idx).reshape(batch + (n, n - 1, n))
    minors = rows.index_select(-1, idx).reshape(batch + (n, n - 1, n, n - 1)).transpose(-3, -2)
    signs = _make(be.asarray([[(-1.0) ** (i + j) for j in range(n)] for i in range(n)], A._data.dtype),
                  A._device)
    return det(minors) * signs


class LinalgSlogdet(Function):
    _node_name = "LinalgSlogdetBackward0"

    @staticmethod
    def forward(ctx, A):
        LU, pivots, diag, sign = _det_parts(A)
        sign = sign * diag.sign().prod(-1)
        logabsdet = diag.abs().log().sum(-1)
        ctx.save_for_backward(A, LU, pivots)
        return sign, logabsdet  # sign has torch's node too; its gradient is zero for real inputs

    @staticmethod
    def backward(ctx, _gsign, g):
        A, LU, pivots = ctx.saved_tensors
        if A.shape[-1] == 0:
            return A * 0
        d = g.unsqueeze(-1).unsqueeze(-1)
        if is_grad_enabled():
            return _mT(inv(A)) * d
        return LinalgLuSolve.apply(LU, pivots, _eye_like(A) * d, True, True)


def _det_checks(A, op, fn):
    _tensor(A, fn, "A" if fn.startswith("linalg") else "input")
    _square(A, op)
    _floating(A, op)


def det(A):
    _det_checks(A, "linalg.det", "linalg_det")
    return LinalgDet.apply(A)


def det_fn(input):
    """torch.det / Tensor.det."""
    _det_checks(input, "linalg.det", "det")
    return LinalgDet.apply(input)


def slogdet(A):
    _det_checks(A, "linalg.slogdet", "linalg_slogdet")
    return linalg_slogdet(*LinalgSlogdet.apply(A))


def slogdet_fn(input):
    """torch.slogdet / Tensor.slogdet."""
    _det_checks(input, "linalg.slogdet", "slogdet")
    return slogdet_type(*LinalgSlogdet.apply(input))


def logdet(input):
    """torch.logdet: logabsdet, NaN where the determinant is negative."""
    from .elementwise import where
    _det_checks(input, "logdet", "logdet")
    sign, logabsdet = LinalgSlogdet.apply(input)
    return where(sign == -1, float("nan"), logabsdet)


# ---- Cholesky -------------------------------------------------------------------------------------------

class LinalgCholeskyEx(Function):
    _node_name = "LinalgCholeskyExBackward0"

    @staticmethod
    def forward(ctx, A, upper):
        be = A._device.backend
        # upper: potrf with uplo U reads A's upper triangle, which is A^T's lower one
        a = be.transpose(A._data, _swap_last(A.dim())) if upper else A._data
        l, info = be.cholesky(a)
        L = _wrap(be.ascontiguous(be.transpose(l, _swap_last(l.ndim))) if upper else l, A._device)
        ctx.save_for_backward(L)
        ctx.upper = upper
        return L, _wrap(info, A._device)

    @staticmethod
    def backward(ctx, gL, _ginfo):
        L, = ctx.saved_tensors
        if ctx.upper:
            L, gL = _mT(L), _mT(gL)
        gA = (_mT(L) @ gL).tril()
        gA = 0.5 * (gA + _mT(gA.tril(-1)))
        gA = solve_triangular(_mT(L), gA, upper=True, left=True)
        return solve_triangular(L, gA, upper=False, left=False), None


def _cholesky_checks(A, op, fn):
    _tensor(A, fn, "input")
    _square(A, op)
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"linalg.cholesky: Expected a floating point or complex tensor as input. Got {_legacy(A)}")
    _not_implemented(A, "cholesky_cpu")


def cholesky_ex(A, *, upper=False, check_errors=False):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "linalg_cholesky_ex", cholesky_ex, A, upper=upper, check_errors=check_errors)) is not None:
        return r
    _cholesky_checks(A, "linalg.cholesky", "linalg_cholesky_ex")
    L, info = LinalgCholeskyEx.apply(A, bool(upper))
    if check_errors:
        _check_cholesky(info, "linalg.cholesky_ex")
    return linalg_cholesky_ex(L, info)


def cholesky(A, *, upper=False):
    if _AUTOCAST_ON[0] and (r := _autocast("linalg_cholesky", cholesky, A, upper=upper)) is not None:
        return r
    _cholesky_checks(A, "linalg.cholesky", "linalg_cholesky")
    L, info = LinalgCholeskyEx.apply(A, bool(upper))
    _check_cholesky(info, "linalg.cholesky")
    return L


# ---- triangular solves -------------------------------------------------------------------------------

def _triangular(be, a, b, upper, left, unit):
    """X with T X = B (left) or X T = B, T = a's upper or lower triangle; batches already equal."""
    if left:
        return be.triangular_solve(a, b, not upper, False, unit)
    sw = _swap_last(b.ndim)  # X T = B  <=>  T^T X^T = B^T, T^T of the other triangle
    return be.transpose(be.triangular_solve(a, be.transpose(b, sw), upper, True, unit), sw)


class LinalgSolveTriangular(Function):
    _node_name = "LinalgSolveTriangularBackward0"

    @staticmethod
    def forward(ctx, A, B, upper, left, unit):
        be = A._device.backend
        batch = broadcast_shape(tuple(B.shape[:-2]), tuple(A.shape[:-2]))
        X = _wrap(_triangular(be, _expand_batch(A, batch), _expand_batch(B, batch), upper, left, unit), A._device)
        ctx.save_for_backward(A, X)
        ctx.flags = (upper, left, unit)
        ctx.shapes = (tuple(A.shape), tuple(B.shape))
        return X

    @staticmethod
    def backward(ctx, gX):
        A, X = ctx.saved_tensors
        upper, left, unit = ctx.flags
        gB = solve_triangular(_mT(A), gX, upper=not upper, left=left, unitriangular=unit)
        gA = None
        if ctx.needs_input_grad[0]:
            gA = -(gB @ _mT(X)) if left else -(_mT(X) @ gB)
            gA = gA.triu(int(unit)) if upper else gA.tril(-int(unit))
            gA = sum_to(gA, ctx.shapes[0])
        return gA, (sum_to(gB, ctx.shapes[1]) if ctx.needs_input_grad[1] else None), None, None, None


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    _tensor(A, "linalg_solve_triangular", "input", 1)
    _tensor(B, "linalg_solve_triangular", "B", 2)
    _same_device(A, B)
    for t, name in ((A, "A"), (B, "B")):
        if t.dim() < 2:
            raise RuntimeError(f"linalg.solve_triangular: The input tensor {name} must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    if m != n:
        raise RuntimeError(f"linalg.solve_triangular: A must be batches of square matrices, but they are {m} by {n} "
                           "matrices")
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if A.dtype is not B.dtype:
        B = B.to(A.dtype)  # torch computes in A's dtype here
    _not_implemented(A, "triangular_solve_cpu")
    return LinalgSolveTriangular.apply(A, B, bool(upper), bool(left), bool(unitriangular))


class TriangularSolve(Function):
    _node_name = "TriangularSolveBackward0"

    @staticmethod
    def forward(ctx, b, A, upper, transpose, unit):
        be = A._device.backend
        batch = broadcast_shape(tuple(b.shape[:-2]), tuple(A.shape[:-2]))
        a = _expand_batch(A, batch)
        x = be.triangular_solve(a, _expand_batch(b, batch), upper == transpose, transpose, unit)
        X = _wrap(x, A._device)
        M = _wrap(be.copy(a), A._device)
        ctx.save_for_backward(A, X)
        ctx.flags = (upper, transpose, unit)
        ctx.shapes = (tuple(b.shape), tuple(A.shape))
        return X, M

    @staticmethod
    def backward(ctx, gX, gM):
        A, X = ctx.saved_tensors
        upper, transpose, unit = ctx.flags
        gb = gA = None
        if gX is not None:
            gb, _ = triangular_solve(gX, A, upper, not transpose, unit)
            gA = -(X @ _mT(gb)) if transpose else -(gb @ _mT(X))
            gA = gA.triu(int(unit)) if upper else gA.tril(-int(unit))
        if gM is not None:
            gA = gM if gA is None else gA + gM
        return (sum_to(gb, ctx.shapes[0]) if gb is not None and ctx.needs_input_grad[0] else None,
                sum_to(gA, ctx.shapes[1]) if gA is not None and ctx.needs_input_grad[1] else None, None, None, None)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """torch.triangular_solve (deprecated in torch for linalg.solve_triangular): (solution,
    cloned_coefficient) of op(A) X = b, op(A) = A or A^T."""
    if _AUTOCAST_ON[0] and (r := _autocast(
            "triangular_solve", triangular_solve, b, A, upper, transpose, unitriangular)) is not None:
        return r
    _tensor(b, "triangular_solve", "input", 1)
    _tensor(A, "triangular_solve", "A", 2)
    _same_device(b, A)
    if b.dim() < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has {b.dim()} "
                           "dimensions instead")
    if A.dim() < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has {A.dim()} "
                           "dimensions instead")
    if b.dtype is not A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_legacy(b)} and A of type "
                           f"{_legacy(A)} instead.")
    m, n = A.shape[-2:]
    if m != n:
        raise RuntimeError(f"A must be batches of square matrices, but they are {m} by {n} matrices")
    if b.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is {n} by {n} but each b "
                           f"matrix is {b.shape[-2]} by {b.shape[-1]}")
    _not_implemented(A, "triangular_solve_cpu")
    return triangular_solve_type(*TriangularSolve.apply(b, A, bool(upper), bool(transpose), bool(unitriangular)))


# ---- cholesky_solve, cholesky_inverse ------------------------------------------------------------------------

class CholeskySolve(Function):
    _node_name = "CholeskySolveBackward0"

    @staticmethod
    def forward(ctx, B, L, upper):
        be = L._device.backend
        batch = broadcast_shape(tuple(B.shape[:-2]), tuple(L.shape[:-2]))
        a, b = _expand_batch(L, batch), _expand_batch(B, batch)
        # A = L L^T (upper: U^T U): two triangular solves
        y = be.triangular_solve(a, b, True, upper, False)        # L y = B (U^T y = B)
        x = be.triangular_solve(a, y, False, not upper, False)   # L^T X = y (U X = y)
        X = _wrap(x, L._device)
        ctx.save_for_backward(L, X)
        ctx.upper = upper
        ctx.shapes = (tuple(B.shape), tuple(L.shape))
        return X

    @staticmethod
    def backward(ctx, gX):
        L, X = ctx.saved_tensors
        gB = cholesky_solve(gX, L, ctx.upper)
        gL = None
        if ctx.needs_input_grad[1]:
            common = gB @ _mT(X)
            common = common + _mT(common)
            gL = sum_to(-(L @ common) if ctx.upper else -(common @ L), ctx.shapes[1])
        return (sum_to(gB, ctx.shapes[0]) if ctx.needs_input_grad[0] else None), gL, None


def cholesky_solve(input, input2, upper=False):
    if _AUTOCAST_ON[0] and (r := _autocast("cholesky_solve", cholesky_solve, input, input2, upper)) is not None:
        return r
    _tensor(input, "cholesky_solve", "input", 1)
    _tensor(input2, "cholesky_solve", "input2", 2)
    _same_device(input, input2)
    if input.dim() < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {input.dim()} dimensions instead")
    if input2.dim() < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {input2.dim()} dimensions instead")
    if input.dtype is not input2.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_legacy(input)} and A of "
                           f"type {_legacy(input2)} instead.")
    m, n = input2.shape[-2:]
    if m != n:
        raise RuntimeError(f"A must be batches of square matrices, but they are {m} by {n} matrices")
    if input.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {n} by {n} but each b "
                           f"matrix is {input.shape[-2]} by {input.shape[-1]}")
    _not_implemented(input2, "cholesky_solve_cpu")
    return CholeskySolve.apply(input, input2, bool(upper))


class CholeskyInverse(Function):
    _node_name = "CholeskyInverseBackward0"

    @staticmethod
    def forward(ctx, L, upper):
        be = L._device.backend
        n = L.shape[-1]
        eye = be.broadcast_to(be.eye(n, n, L._data.dtype), tuple(L.shape))
        y = be.triangular_solve(L._data, eye, True, upper, False)
        inv = _wrap(be.triangular_solve(L._data, y, False, not upper, False), L._device)
        ctx.save_for_backward(L, inv)
        ctx.upper = upper
        return inv

    @staticmethod
    def backward(ctx, g):
        L, inv = ctx.saved_tensors
        common = inv @ ((g + _mT(g)) @ inv)
        return (-(L @ common) if ctx.upper else -(common @ L)), None


def cholesky_inverse(input, upper=False):
    if _AUTOCAST_ON[0] and (r := _autocast("cholesky_inverse", cholesky_inverse, input, upper)) is not None:
        return r
    _tensor(input, "cholesky_inverse", "input")
    _square(input, "cholesky_inverse")
    _not_implemented(input, "cholesky_inverse_out_cpu")
    if input.numel():
        zero = (input.diagonal(0, -2, -1) == 0)
        if bool(zero.any().item()):
            first = zero.to(int64).argmax(-1) + 1
            has = zero.any(-1)
            info = (first * has.to(int64))
            _check_singular(info, "cholesky_inverse")
    return CholeskyInverse.apply(input, bool(upper))


# ---- the torch.* functions and Tensor methods --------------------------------------------------------------

FUNCTIONS = {"inverse": inverse, "det": det_fn, "logdet": logdet, "slogdet": slogdet_fn,
             "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse,
             "triangular_solve": triangular_solve}
for _name, _fn in FUNCTIONS.items():
    _fn.__name__ = _fn.__qualname__ = _name


def install(Tensor):
    """Tensor.inverse, det, logdet, slogdet, cholesky_solve, cholesky_inverse, triangular_solve."""
    Tensor.inverse = lambda self: inverse(self)
    Tensor.det = lambda self: det_fn(self)
    Tensor.logdet = lambda self: logdet(self)
    Tensor.slogdet = lambda self: slogdet_fn(self)
    Tensor.cholesky_solve = lambda self, input2, upper=False: cholesky_solve(self, input2, upper)
    Tensor.cholesky_inverse = lambda self, upper=False: cholesky_inverse(self, upper)
    Tensor.triangular_solve = lambda self, A, upper=True, transpose=False, unitriangular=False: \
        triangular_solve(self, A, upper, transpose, unitriangular)
