"""The rest of torch.linalg's real-valued API: matrix_exp, lstsq, vecdot, diagonal, vander, matmul,
tensorinv, tensorsolve, householder_product (torch.orgqr), torch.geqrf, torch.ormqr and
torch.lu_unpack, with torch's results, errors, node names and gradients.

Everything is composed from existing ops (matmul, svd, solve, inv, indexing), so it runs on both
backends without kernels of its own:
- matrix_exp is torch's algorithm (Bader, Blanes & Casas 2019, aten's mexp): by the 1-norm of
  each matrix a Taylor-type polynomial of degree 1, 2, 4, 8 or 12, or degree 18 after scaling by
  2^-s and squaring s times, with torch's coefficients and thresholds per dtype. Its backward is
  torch's: the top-right block of the exponential of [[A^T, G], [0, A^T]].
- lstsq solves through the SVD (the minimum-norm solution; singular values at or below
  rcond * the largest are dropped, as LAPACK's gelsy/gelsd/gelss do), and returns the fields
  each LAPACK driver fills; its backward is torch's (through pinv).
- geqrf is LAPACK's dgeqr2 (Householder reflectors beta = -sign(alpha) ||x||, tau 0 where there
  is nothing to reflect) over the columns; householder_product and ormqr apply the reflectors
  one at a time. Their gradients come from the same composed ops, recomputed in the backward
  (differentiable again under create_graph), recorded as torch's single node.
"""
import math
import struct

from .._arg_errors import type_name
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..dtypes import float32, float64, int32, int64
from ..tensor import Tensor
from .broadcast import broadcast_shape, sum_to
from .elementwise import device_error
from .math_more import _return_type
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

linalg_lstsq = _return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
lu_unpack_type = _return_type("lu_unpack", ("P", "L", "U"))
geqrf_type = _return_type("geqrf", ("a", "tau"))


def _tensor(x, fn, arg="input", pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not {type_name(x)}")
    return x


def _legacy(t):
    return t.dtype._legacy[:-6]


def _same_device(a, b):
    if a._device is not b._device:
        raise device_error(a, b)


def _not_implemented(A, kernel):
    if A.dtype not in (float32, float64):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_legacy(A)}'")


def _eye(m, n, like):
    from ..creation import eye
    return eye(m, n, dtype=like.dtype, device=like.device)


def _f32(x):
    """x rounded to float32, as a C++ `constexpr float` holds it."""
    return struct.unpack("f", struct.pack("f", x))[0]


def _recomputed_backward(ctx, compute, grads):
    """The gradients of compute(*inputs) (one output), recomputed from the saved inputs: through
    the inputs themselves when the backward is being recorded (create_graph), so that it is
    differentiable again, otherwise through detached copies."""
    from ..autograd import grad as _grad
    saved = ctx.saved_tensors
    create = is_grad_enabled()
    needs = ctx.needs_input_grad[:len(saved)]
    with enable_grad():
        leaves = [t if create else (t.detach().requires_grad_() if need else t.detach())
                  for t, need in zip(saved, needs)]
        out = compute(*leaves, *ctx.params)
        wrt = [t for t, need in zip(leaves, needs) if need]
        got = list(_grad(out, wrt, grads[0], create_graph=create, allow_unused=True)) if wrt else []
    result = []
    for t, need in zip(saved, needs):
        g = got.pop(0) if need else None
        result.append(g if g is not None or not need else t.new_zeros(tuple(t.shape)))
    return tuple(result) + (None,) * len(ctx.params)


# ---- matrix_exp ---------------------------------------------------------------------------------------

_THETAS = {  # the largest 1-norm each degree (1, 2, 4, 8, 12, 18) is used for
    "float32": (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
                5.800524627688768e-01, 1.461661507209034e+00, 3.010066362817634e+00),
    "float64": (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00),
}
_B12 = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
        (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031, 0.01108844528519167989),
        (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968, 0.00610700528898058230),
        (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359))
_B18 = ((0., -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045729985177e-04, 0.),
        (0., 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01,
         -6.37898194594723280150e-04),
        (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
         -6.98210122488052056106e-03, 3.34975017086070470649e-05),
        (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
         2.95552570429315521194e-02, -1.39180257516060693404e-05),
        (0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02, -1.40086798182036094347e-05))


def _t8_coefficients(single):
    r = _f32 if single else float
    sqrt_177 = r(0.1330413469565007072504e+2)
    x3 = r(2. / 3.)
    x1 = r(x3 * ((1. + sqrt_177) / 88.))
    x2 = r(x3 * ((1. + sqrt_177) / 352.))
    x4 = r((-271. + 29. * sqrt_177) / (315. * x3))
    x5 = r((-11. + 11. * sqrt_177) / (1260. * x3))
    x6 = r((-99. + 11. * sqrt_177) / (5040. * x3))
    x7 = r((89. - sqrt_177) / (5040. * x3))
    y2 = r((857. - 58. * sqrt_177) / 630.)
    return x1, x2, x3, x4, x5, x6, x7, y2


def _combine(mats, coeffs):
    """sum_j coeffs[j] * mats[j], accumulated in order (aten's _compute_linear_combination)."""
    acc = mats[0] * coeffs[0]
    for m, c in zip(mats[1:], coeffs[1:]):
        acc = acc + m * c
    return acc


def _taylor(A, degree):
    """torch's compute_T{degree} of a batch A (b, n, n)."""
    single = A.dtype is float32
    r = _f32 if single else float
    n = A.shape[-1]
    Id = _eye(n, n, A).expand(tuple(A.shape))
    if degree == 1:
        return Id + A
    A2 = A @ A
    if degree == 2:
        return Id + A + A2 / 2.0
    if degree == 4:
        A3 = A2 @ _combine([Id, A, A2], [r(1 / 2.0), r(1 / 6.0), r(1 / 24.0)])
        return _combine([Id, A, A2, A3], [1.0, 1.0, 0.0, 1.0])
    if degree == 8:
        x1, x2, x3, x4, x5, x6, x7, y2 = _t8_coefficients(single)
        A4 = A2 @ _combine([A, A2], [x1, x2])
        A8 = _combine([A2, A4], [x3, 1.0]) @ _combine([Id, A, A2, A4], [x4, x5, x6, x7])
        return _combine([Id, A, A2, A4, A8], [1.0, 1.0, y2, 0.0, 1.0])
    A3 = A @ A2
    if degree == 12:
        Bs = [_combine([Id, A, A2, A3], [r(c) for c in row]) for row in _B12]
        B2 = Bs[2] + Bs[3] @ Bs[3]
        return Bs[0] + (Bs[1] + B2) @ B2
    A6 = A3 @ A3
    Bs = [_combine([Id, A, A2, A3, A6], [r(c) for c in row]) for row in _B18]
    B3 = Bs[3] + Bs[0] @ Bs[4]
    return Bs[1] + (Bs[2] + B3) @ B3


def _index(ids, like):
    from ..creation import tensor
    return tensor(ids, dtype=int64, device=like.device)


def _scale_square(A, norm, theta):
    """Degree 18 on A / 2^s, squared s times, s = max(0, ceil(log2(norm / theta))) per matrix."""
    s_list = [int(s) for s in (norm / theta).log2().ceil().clamp_min(0).tolist()]
    from ..creation import tensor
    pow2 = tensor([2.0 ** s for s in s_list], dtype=A.dtype, device=A.device).reshape(-1, 1, 1)
    out = _taylor(A / pow2, 18)
    for p in range(max(s_list, default=0)):
        active = [i for i, s in enumerate(s_list) if s > p]
        if len(active) == len(s_list):
            out = out @ out
        else:
            idx = _index(active, A)
            sub = out.index_select(0, idx)
            out = out.index_copy(0, idx, sub @ sub)
    return out


def _matrix_exp_values(A):
    n = A.shape[-1]
    if A.numel() == 0:
        return A.clone()
    if n == 1:
        return A.exp()
    a = A.reshape(-1, n, n)
    thetas = _THETAS["float32" if A.dtype is not float64 else "float64"]
    if A.dtype is not float64:
        thetas = tuple(_f32(t) for t in thetas)
    norm = a.abs().sum(-2).amax(-1)
    norms = norm.tolist()
    res = a.new_full(tuple(a.shape), math.nan)  # non-finite matrices stay NaN, as in torch
    groups = {}
    for i, v in enumerate(norms):
        if not math.isfinite(v):
            continue
        if v >= thetas[4]:
            groups.setdefault(18, []).append(i)
            continue
        for deg, lo, hi in zip((1, 2, 4, 8, 12), (-1.0,) + thetas[:4], thetas[:5]):
            if lo < v <= hi:
                groups.setdefault(deg, []).append(i)
                break
    for deg, ids in groups.items():
        whole = len(ids) == a.shape[0]
        sub = a if whole else a.index_select(0, _index(ids, a))
        if deg == 18:
            sub_norm = norm if whole else norm.index_select(0, _index(ids, a))
            val = _scale_square(sub, sub_norm, thetas[5])
        else:
            val = _taylor(sub, deg)
        res = val if whole else res.index_copy(0, _index(ids, a), val)
    return res.reshape(tuple(A.shape))


class LinalgMatrixExp(Function):
    """exp(A) by torch's scaling and squaring; backward: exp([[A^T, G], [0, A^T]])[:n, n:]."""
    _node_name = "LinalgMatrixExpBackward0"

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        return _matrix_exp_values(A)

    @staticmethod
    def backward(ctx, g):
        from .join import cat
        A, = ctx.saved_tensors
        n = A.shape[-1]
        At = A.mT
        meta = cat([cat([At, g], -1), cat([At.new_zeros(tuple(At.shape)), At], -1)], -2)
        return LinalgMatrixExp.apply(meta)[..., :n, n:]


def matrix_exp(A):
    """torch.linalg.matrix_exp / torch.matrix_exp / Tensor.matrix_exp."""
    _tensor(A, "linalg_matrix_exp")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    if m != n:
        raise RuntimeError(f"linalg.matrix_exp: A must be batches of square matrices, but they are {m} by {n} matrices")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as input. Got {_legacy(A)}")
    return LinalgMatrixExp.apply(A)


def matrix_exp_fn(input):
    _tensor(input, "matrix_exp")
    return matrix_exp(input)


# ---- lstsq --------------------------------------------------------------------------------------------

_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _pinv_backward(g, pinvA, A):
    """torch's pinv_backward: the gradient of A for a gradient g of pinv(A)."""
    m, n = A.shape[-2:]
    pinvAh, gradh = pinvA.mT, g.mT
    if m <= n:
        K = gradh @ pinvA
        KpinvAh = K @ pinvAh
        return -(pinvA @ K).mT + KpinvAh - (A @ pinvA) @ KpinvAh + (pinvAh @ pinvA) @ (gradh - K @ A)
    K = pinvA @ gradh
    pinvAhK = pinvAh @ K
    return -(K @ pinvA).mT + ((gradh - A @ K) @ pinvA) @ pinvAh + pinvAhK - (pinvAhK @ pinvA) @ A


class LinalgLstsq(Function):
    """(solution, residuals) from A's SVD (U, S, Vh, given) keeping the singular values in keep.
    Backward: torch's linalg_lstsq_backward for the solution (through pinv(A)); the residuals
    ||A X - B||^2 differentiate as at the minimum (2 R X^T for A, -2 R for B)."""
    _node_name = "LinalgLstsqBackward0"

    @staticmethod
    def forward(ctx, A, B, U, S, Vh, keep, vector, want_residuals):
        B2 = B.unsqueeze(-1) if vector else B
        batch = broadcast_shape(tuple(A.shape[:-2]), tuple(B2.shape[:-2]))
        m, n = A.shape[-2:]
        k = B2.shape[-1]
        if min(m, n, k) == 0:
            X = A.new_zeros(batch + (n, k))
        else:
            Sinv = S.masked_fill(~keep, 1.0).reciprocal().masked_fill(~keep, 0.0)
            X = Vh.mT @ (Sinv.unsqueeze(-1) * (U.mT @ B2))
            if tuple(X.shape[:-2]) != batch:
                X = X.expand(batch + (n, k)).clone()
        if want_residuals:
            R = A @ X - B2
            residuals = (R * R).sum(-2)
        else:
            residuals = A.new_zeros((0,))
        ctx.vector, ctx.want_residuals = vector, want_residuals
        ctx.save_for_backward(A, B, X)
        return (X.squeeze(-1) if vector else X), residuals

    @staticmethod
    def backward(ctx, gX, gR):
        from .linalg_eig import pinv
        A, B, X = ctx.saved_tensors
        vector = ctx.vector
        B2 = B.unsqueeze(-1) if vector else B
        nA, nB = ctx.needs_input_grad[:2]
        gA = gB = None
        if gX is not None:
            gX2 = gX.unsqueeze(-1) if vector else gX
            pinvA = pinv(A)
            if nA:
                gA = _pinv_backward(gX2 @ B2.mT, pinvA, A)
            if nB:
                gB = pinvA.mT @ gX2
        if gR is not None and ctx.want_residuals:
            R = A @ X - B2
            Rg = R * gR.unsqueeze(-2)
            if nA:
                extra = 2.0 * (Rg @ X.mT)
                gA = extra if gA is None else gA + extra
            if nB:
                extra = -2.0 * Rg
                gB = extra if gB is None else gB + extra
        if gA is not None:
            gA = sum_to(gA, tuple(A.shape))
        if gB is not None:
            gB = sum_to(gB, tuple(B2.shape))
            gB = gB.squeeze(-1) if vector else gB
        return gA, gB, None, None, None, None, None, None


LinalgLstsq._backward_cls.materialize_grads = False


def _lstsq_driver(driver, A):
    cuda = A.device.type == "cuda"
    if driver is None:
        return "gels" if cuda else "gelsy"
    d = str(driver).lower()
    if cuda:
        if d != "gels":
            raise RuntimeError("torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA")
    elif d not in _LSTSQ_DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    return d


def lstsq(A, B, rcond=None, *, driver=None):
    """torch.linalg.lstsq: the least-squares (minimum-norm when rank deficient) solution of
    A X = B, with residuals (the squared residual norms, for m > n and full-rank inputs, drivers
    other than gelsy), rank (drivers other than gels) and singular values (gelsd, gelss) as the
    LAPACK driver (CPU default gelsy; gels on CUDA) fills them; the others are empty."""
    if _AUTOCAST_ON[0] and (r := _autocast("lstsq", lstsq, A, B, rcond, driver=driver)) is not None:
        return r
    _tensor(A, "linalg_lstsq", "input", 1)
    _tensor(B, "linalg_lstsq", "b", 2)
    _same_device(A, B)
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if not 0 <= A.dim() - B.dim() <= 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                           f"dtype {_legacy(A)} and other's dtype {_legacy(B)}")
    if A.dtype not in (float32, float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    vector = B.dim() == 1 or (A.dim() - 1 == B.dim() and tuple(B.shape) == tuple(A.shape[:-1]))
    m, n = A.shape[-2:]
    rows = B.shape[-1] if vector else B.shape[-2]
    if rows != m:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    if not vector and B.dim() != A.dim():
        # torch then reads B as a batch of columns: its batch is B.shape[:-1]
        broadcast_shape(tuple(A.shape[:-2]), tuple(B.shape[:-1]))
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    drv = _lstsq_driver(driver, A)
    eps = 1.1920928955078125e-07 if A.dtype is float32 else 2.220446049250313e-16
    rc = eps * max(m, n) if rcond is None else float(rcond)
    if rc < 0 and drv in ("gelsd", "gelss"):
        rc = eps
    from ..creation import zeros
    from .linalg_eig import svd
    Bm = B.unsqueeze(-1) if vector else B
    broadcast_shape(tuple(A.shape[:-2]), tuple(Bm.shape[:-2]))
    with no_grad():
        if min(m, n) == 0:
            U = S = Vh = keep = None
            rank = zeros(tuple(A.shape[:-2]), dtype=int64, device=A.device)
            S_out = A.new_zeros((0,))
        else:
            U, S, Vh = svd(A.detach(), full_matrices=False)
            keep = S > S[..., :1] * rc if drv != "gels" else S > 0
            rank = keep.sum(-1)
            S_out = S
    want_res = m > n and drv != "gelsy" and (drv == "gels" or bool((rank == n).all().item()))
    X, residuals = LinalgLstsq.apply(A, B, U, S, Vh, keep, vector, want_res)
    if drv == "gels" and n == 0 and m > 0:
        residuals = residuals.new_zeros(tuple(residuals.shape))  # LAPACK's gels returns early: zeros
    if drv == "gels":
        rank = zeros((0,), dtype=int64, device=A.device)
    singular_values = S_out if drv in ("gelsd", "gelss") else A.new_zeros((0,))
    return linalg_lstsq(X, residuals, rank, singular_values)


# ---- small compositions: vecdot, diagonal, vander, matmul, tensorinv, tensorsolve -----------------------

def vecdot(x, y, *, dim=-1):
    """torch.linalg.vecdot: sum(x * y, dim) (x conjugated: minigrad is real), broadcast."""
    if _AUTOCAST_ON[0] and (r := _autocast("vecdot", vecdot, x, y, dim=dim)) is not None:
        return r
    _tensor(x, "linalg_vecdot", "x", 1)
    _tensor(y, "linalg_vecdot", "y", 2)
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_legacy(x)} and y of type {_legacy(y)} instead")
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got {_legacy(x)}")
    return (x * y).sum(dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.linalg.diagonal: torch.diagonal with the last two dims as the default."""
    _tensor(A, "linalg_diagonal", "A", 1)
    return A.diagonal(offset, dim1, dim2)


_VANDER_TYPES = ("float32", "float64", "int8", "uint8", "int16", "int32", "int64")


def vander(x, *, N=None):
    """torch.linalg.vander: the powers x^0 ... x^(N-1) along a new last dim (batched; the
    cumulative product of N - 1 copies of x after a column of ones)."""
    from .join import cat
    _tensor(x, "linalg_vander", "x", 1)
    if x.dtype.np.name not in _VANDER_TYPES:
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got "
                           f"{_legacy(x)}")
    x_ = x.unsqueeze(-1) if x.dim() == 0 else x
    n = x_.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    shape = tuple(x_.shape)
    result = x_.unsqueeze(-1).expand(shape + (n - 1,)).cumprod(-1)
    return cat([result.new_ones(shape + (1,)), result], -1)


def _prod(xs):
    p = 1
    for v in xs:
        p *= v
    return p


def tensorinv(A, ind=2):
    """torch.linalg.tensorinv: the inverse of A read as a (prod(A.shape[:ind]), prod(A.shape[ind:]))
    matrix, shaped A.shape[ind:] + A.shape[:ind]."""
    if _AUTOCAST_ON[0] and (r := _autocast("tensorinv", tensorinv, A, ind)) is not None:
        return r
    from .linalg_factor import inv_ex, _check_singular, _floating
    _tensor(A, "linalg_tensorinv", "input", 1)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    front, back = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    pf, pb = _prod(front), _prod(back)
    if pf != pb:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {pb} != {pf}")
    _floating(A, "linalg.inv", low_precision=False)
    result, info = inv_ex(A.reshape(pf, pb))
    _check_singular(info, "inv")
    return result.reshape(back + front)


def tensorsolve(A, B, dims=None):
    """torch.linalg.tensorsolve: X with tensordot(A, X, X.ndim) = B (dims of A moved last first)."""
    if _AUTOCAST_ON[0] and (r := _autocast("tensorsolve", tensorsolve, A, B, dims)) is not None:
        return r
    from .linalg_factor import solve
    _tensor(A, "linalg_tensorsolve", "input", 1)
    _tensor(B, "linalg_tensorsolve", "other", 2)
    nd = A.dim()
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        A = A.movedim(dims, list(range(nd - len(dims), nd)))
    result_shape = tuple(A.shape[B.dim():])
    pr, po = _prod(result_shape), _prod(B.shape)
    if pr != po:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {pr} != {po}")
    return solve(A.reshape(pr, pr), B.flatten()).reshape(result_shape)


def matmul(input, other):
    """torch.linalg.matmul: an alias of torch.matmul."""
    from .linalg import matmul as _matmul
    _tensor(input, "linalg_matmul", "input", 1)
    _tensor(other, "linalg_matmul", "other", 2)
    return _matmul(input, other)


# ---- lu_unpack ----------------------------------------------------------------------------------------

class LuUnpack(Function):
    """(L, U) of lu_factor's packed LU (L unit lower (m, k), U upper (k, n)); backward: the
    strictly lower part of gL and the upper part of gU, placed back into LU's shape."""
    _node_name = "LuUnpackBackward0"

    @staticmethod
    def forward(ctx, LU, unpack_data):
        from .linalg_factor import _unpack
        ctx.shape, ctx.unpack = tuple(LU.shape), unpack_data
        if not unpack_data:
            return LU.new_zeros((0,)), LU.new_zeros((0,))
        return _unpack(LU)

    @staticmethod
    def backward(ctx, gL, gU):
        m, n = ctx.shape[-2:]
        if not ctx.unpack:
            return None, None
        from .join import cat
        batch = ctx.shape[:-2]
        if m == n:
            return gL.tril(-1) + gU.triu(), None
        if m < n:  # L (m, m), U (m, n)
            g = gU.triu()
            return cat([g[..., :m] + gL.tril(-1), g[..., m:]], -1).expand(batch + (m, n)), None
        g = gL.tril(-1)  # L (m, n), U (n, n)
        return cat([g[..., :n, :] + gU.triu(), g[..., n:, :]], -2).expand(batch + (m, n)), None


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """torch.lu_unpack: (P, L, U) from lu_factor's (LU, pivots); P, or L and U, are empty (0,)
    tensors when unpack_pivots, unpack_data is False."""
    from .linalg_factor import _permutation
    _tensor(LU_data, "lu_unpack", "LU_data", 1)
    _tensor(LU_pivots, "lu_unpack", "LU_pivots", 2)
    if LU_data.dim() < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data.shape)} instead")
    if LU_pivots.dtype is not int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")
    L, U = LuUnpack.apply(LU_data, bool(unpack_data))
    if unpack_pivots:
        m = LU_data.shape[-2]
        batch = broadcast_shape(tuple(LU_data.shape[:-2]), tuple(LU_pivots.shape[:-1]))
        piv = LU_pivots.expand(batch + tuple(LU_pivots.shape[-1:]))
        P = _permutation(piv, m, LU_data)
    else:
        P = LU_data.new_zeros((0,))
    return lu_unpack_type(P, L, U)


# ---- geqrf, householder_product / orgqr, ormqr ------------------------------------------------------

def _geqrf_values(A):
    """LAPACK's dgeqr2: R on and above the diagonal, the reflectors' tails below, and tau."""
    from .join import cat, stack
    a = A.clone()
    m, n = A.shape[-2:]
    k = min(m, n)
    batch = tuple(A.shape[:-2])
    taus = []
    for i in range(k):
        alpha = a[..., i, i]
        zero = alpha.new_zeros(batch)
        if i + 1 < m:
            x = a[..., i + 1:, i]
            xnorm = (x * x).sum(-1).sqrt()
        else:
            x, xnorm = None, zero
        nothing = xnorm == 0
        beta = -alpha.hypot(xnorm).copysign(alpha)
        safe = beta.masked_fill(nothing, 1.0)
        tau = ((beta - alpha) / safe).masked_fill(nothing, 0.0)
        taus.append(tau)
        if x is None:
            continue
        scale = (alpha - beta).masked_fill(nothing, 1.0).reciprocal().masked_fill(nothing, 0.0)
        v = x * scale.unsqueeze(-1)
        a[..., i + 1:, i] = v  # where nothing: x is zero, and so is v
        a[..., i, i] = beta.where(~nothing, alpha)
        if i + 1 < n:
            vfull = cat([v.new_ones(batch + (1,)), v], -1)
            C = a[..., i:, i + 1:]
            w = (vfull.unsqueeze(-2) @ C)
            a[..., i:, i + 1:] = C - (tau.unsqueeze(-1) * vfull).unsqueeze(-1) * w
    tau = stack(taus, -1) if k else A.new_zeros(batch + (0,))
    return a, tau


class Geqrf(Function):
    _node_name = "GeqrfBackward0"

    @staticmethod
    def forward(ctx, A):
        return _geqrf_values(A)

    @staticmethod
    def backward(ctx, ga, gtau):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input):
    """torch.geqrf: LAPACK's compact QR (a: R on and above the diagonal, the Householder vectors'
    tails below; tau: their scales), the input of householder_product / ormqr."""
    if _AUTOCAST_ON[0] and (r := _autocast("geqrf", geqrf, input)) is not None:
        return r
    _tensor(input, "geqrf")
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _not_implemented(input, "geqrf_cpu")
    return geqrf_type(*Geqrf.apply(input))


def _reflectors(A):
    """The Householder vectors of A's columns: unit diagonal, A's entries below it, zeros above."""
    m, n = A.shape[-2:]
    return A.tril(-1) + _eye(m, n, A)


def _householder_values(A, tau):
    m, n = A.shape[-2:]
    V = _reflectors(A)
    Q = _eye(m, n, A).expand(tuple(A.shape[:-2]) + (m, n))
    for i in range(tau.shape[-1] - 1, -1, -1):
        v = V[..., :, i]
        w = v.unsqueeze(-2) @ Q
        Q = Q - (tau[..., i].unsqueeze(-1) * v).unsqueeze(-1) * w
    return Q


class LinalgHouseholderProduct(Function):
    _node_name = "LinalgHouseholderProductBackward0"

    @staticmethod
    def forward(ctx, A, tau):
        ctx.save_for_backward(A, tau)
        ctx.params = ()
        return _householder_values(A, tau)

    @staticmethod
    def backward(ctx, g):
        return _recomputed_backward(ctx, _householder_values, (g,))


def householder_product(A, tau):
    """torch.linalg.householder_product / torch.orgqr: the first n columns of H_1 ... H_k,
    H_i = I - tau_i v_i v_i^T with v_i the i-th column of A below a unit diagonal."""
    if _AUTOCAST_ON[0] and (r := _autocast("householder_product", householder_product, A, tau)) is not None:
        return r
    return _householder(A, tau, "linalg_householder_product")


def orgqr(input, input2):
    if _AUTOCAST_ON[0] and (r := _autocast("orgqr", orgqr, input, input2)) is not None:
        return r
    return _householder(input, input2, "orgqr", "input2")


def _householder(A, tau, fn, tau_name="tau"):
    op = "torch.linalg.householder_product"
    _tensor(A, fn, "input", 1)
    _tensor(tau, fn, tau_name, 2)
    if A.dim() < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau.dim() and A.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if A.dim() - tau.dim() != 1:
        raise RuntimeError(f"{op}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.dim()} and input.ndim is equal to {A.dim()}")
    if A.dim() > 2 and tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"{op}: tau dtype {_legacy(tau)} does not match input dtype {_legacy(A)}")
    _same_device(A, tau)
    _not_implemented(A, "orgqr_cpu")
    return LinalgHouseholderProduct.apply(A, tau)


def _ormqr_values(A, tau, C, left, transpose):
    V = _reflectors(A)
    k = tau.shape[-1]
    order = range(k) if left == transpose else range(k - 1, -1, -1)
    for i in order:
        v = V[..., :, i]
        t = tau[..., i].unsqueeze(-1).unsqueeze(-1)
        if left:   # H C = C - tau v (v^T C)
            C = C - (t * v.unsqueeze(-1)) * (v.unsqueeze(-2) @ C)
        else:      # C H = C - tau (C v) v^T
            C = C - (t * (C @ v.unsqueeze(-1))) * v.unsqueeze(-2)
    return C


class Ormqr(Function):
    _node_name = "OrmqrBackward0"

    @staticmethod
    def forward(ctx, A, tau, C, left, transpose):
        ctx.save_for_backward(A, tau, C)
        ctx.params = (left, transpose)
        return _ormqr_values(A, tau, C, left, transpose)

    @staticmethod
    def backward(ctx, g):
        return _recomputed_backward(ctx, _ormqr_values, (g,))


def ormqr(input, input2, input3, left=True, transpose=False):
    """torch.ormqr: Q C, Q^T C, C Q or C Q^T (left, transpose) for Q = H_1 ... H_k given as
    geqrf's (input, tau), without forming Q."""
    if _AUTOCAST_ON[0] and (r := _autocast("ormqr", ormqr, input, input2, input3, left, transpose)) is not None:
        return r
    op = "torch.ormqr"
    A, tau, C = input, input2, input3
    _tensor(A, "ormqr", "input", 1)
    _tensor(tau, "ormqr", "input2", 2)
    _tensor(C, "ormqr", "input3", 3)
    if A.dim() < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if C.dim() < 2:
        raise RuntimeError(f"{op}: other must have at least 2 dimensions.")
    if left and C.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"{op}: other.shape[-2] must be equal to input.shape[-2]")
    if not left and C.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: other.shape[-1] must be equal to input.shape[-2]")
    if A.dim() - tau.dim() != 1:
        raise RuntimeError(f"{op}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.dim()} and input.ndim is equal to {A.dim()}")
    if tau.shape[-1] > min(A.shape[-2], A.shape[-1]):
        raise RuntimeError(f"{op}: tau.shape[-1] must be equal to min(other.shape[-2], input.shape[-1])")
    if C.dim() != A.dim():
        raise RuntimeError(f"{op}: Expected other to have the same number of dimensions as input, but got other.ndim "
                           f"equal to {C.dim()} and input.ndim is equal to {A.dim()}")
    if A.dim() > 2:
        if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
            raise RuntimeError(f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                               f"{list(tau.shape[:-1])}")
        if tuple(C.shape[:-2]) != tuple(A.shape[:-2]):
            raise RuntimeError(f"{op}: Expected batch dimensions of other to be equal to input.shape[:-2], but got "
                               f"{list(C.shape[:-2])}")
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"{op}: Expected input and tau to have the same dtype, but input has dtype{_legacy(A)} "
                           f"and tau has dtype {_legacy(tau)}")
    if C.dtype is not A.dtype:
        raise RuntimeError(f"{op}: Expected input and other to have the same dtype, but input has dtype{_legacy(A)} "
                           f"and other has dtype {_legacy(C)}")
    _same_device(A, tau)
    _same_device(A, C)
    _not_implemented(A, "ormqr_cpu")
    return Ormqr.apply(A, tau, C, bool(left), bool(transpose))


# torch's names for the linalg functions (what Python's own argument errors print)
for _fn in (matrix_exp, lstsq, vecdot, diagonal, vander, matmul, tensorinv, tensorsolve, householder_product):
    _fn.__name__ = _fn.__qualname__ = "linalg_" + _fn.__name__


# ---- the torch.* functions and Tensor methods --------------------------------------------------------

FUNCTIONS = {"matrix_exp": matrix_exp_fn, "lu_unpack": lu_unpack, "geqrf": geqrf, "orgqr": orgqr,
             "ormqr": ormqr}
for _name, _fn in FUNCTIONS.items():
    _fn.__name__ = _fn.__qualname__ = _name


def install(T):
    """Tensor.matrix_exp, geqrf, orgqr, ormqr."""
    T.matrix_exp = lambda self: matrix_exp_fn(self)
    T.geqrf = lambda self: geqrf(self)
    T.orgqr = lambda self, input2: orgqr(self, input2)
    T.ormqr = lambda self, input2, input3, left=True, transpose=False: ormqr(self, input2, input3, left, transpose)
