"""torch.linalg's orthogonal factorizations: eigh, eigvalsh, svd, svdvals, qr, and what they
give by composition (pinv, matrix_rank, cond, and the 2 / -2 / 'nuc' matrix norms), with
torch.svd / torch.qr / torch.pinverse and their Tensor methods.

Each factorization is one backend primitive (eigh, svd, qr: LAPACK through numpy.linalg on the
CPU, kernels/linalg_eig.cu's one-block-per-matrix Jacobi / Householder kernels on CUDA), batched
over the leading dims. Backward formulas are torch's (FunctionsManual.cpp), in Tensor ops so
they differentiate again. Eigenvector and singular vector signs are not unique: the NumPy
backend gives LAPACK's (torch's CPU results), the CUDA kernels make each vector's largest entry
positive. Like torch, gradients through the vectors of repeated eigenvalues / singular values
are NaN or inf (the formulas divide by their differences); no error is raised.
"""
import math

from .._arg_errors import Parser
from ..autograd.function import apply_first
from ..autograd.grad_mode import _grad_enabled, no_grad
from ..tensor import Tensor, _make
from .elementwise import Builtin
from .math_more import _return_type
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

return_types_linalg_eigh = _return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
return_types_linalg_svd = _return_type("linalg_svd", ("U", "S", "Vh"))
return_types_svd = _return_type("svd", ("U", "S", "V"))
return_types_linalg_qr = _return_type("linalg_qr", ("Q", "R"))
return_types_qr = _return_type("qr", ("Q", "R"))

_SPECS = {
    "linalg_eigh": "Tensor input, str UPLO=\"L\", *, Tensor[] out=None",
    "linalg_eigvalsh": "Tensor input, str UPLO=\"L\", *, Tensor out=None",
    "linalg_svd": "Tensor A, bool full_matrices=True, *, str? driver=None, Tensor[] out=None",
    "linalg_svdvals": "Tensor A, *, str? driver=None, Tensor out=None",
    "svd": "Tensor input, bool some=True, bool compute_uv=True, *, Tensor[] out=None",
    "linalg_qr": "Tensor A, str mode=\"reduced\", *, Tensor[] out=None",
    "qr": "Tensor input, bool some=True, *, Tensor[] out=None",
}
_parsers = {}


def _check_args(name, args):
    """torch's TypeError where a positional argument has the wrong type (args: the values in
    the signature's order, as given)."""
    kinds = {"Tensor": Tensor, "bool": bool, "str": str}
    sig = _SPECS[name].split(", *")[0].split(", ")
    for spec, value in zip(sig, args):
        kind = spec.split(" ")[0]
        if not isinstance(value, kinds[kind]) and not (value is None and kind == "str?"):
            parser = _parsers.get(name) or _parsers.setdefault(name, Parser(name, _SPECS[name]))
            raise parser.error(tuple(args)) or TypeError(f"{name}(): invalid arguments")


def _legacy(A):
    return A.dtype._legacy[:-6]


def _at_least_2d(A, op, what="A"):
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor {what} must have at least 2 dimensions.")


def _square(A, op):
    m, n = A.shape[-2:]
    if m != n:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {m} by {n} matrices")


def _floating(A, op):
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {_legacy(A)}")


def _eye(n, like):
    from ..creation import eye
    return eye(n, dtype=like.dtype, device=like.device)


def _diag_embed(v):
    """A (..., n, n) stack of diagonal matrices from v (..., n)."""
    return v.unsqueeze(-1) * _eye(v.shape[-1], v)


def _needs_grad(A):
    return A.requires_grad and _grad_enabled()


# ---- eigh ----------------------------------------------------------------------------------------------

class LinalgEigh(Builtin):
    """(eigenvalues ascending, eigenvectors) of symmetric matrices, read from one triangle.
    Backward (torch's linalg_eig_backward, Hermitian case): with X = V^T gV made skew,
    gA = V (X / E + diag(gL)) V^T, E_ij = L_j - L_i (1 on the diagonal)."""
    _node_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx, a, upper):
        dev = a._device
        w, v = dev.backend.eigh(a._data, upper)
        w, v = _make(w, dev), _make(v, dev)
        ctx.save_for_backward(w, v)
        return w, v

    @staticmethod
    def backward(ctx, gL, gV):
        L, V = ctx.saved_tensors
        if gV is None:
            if gL is None:
                return None, None
            return (V * gL.unsqueeze(-2)) @ V.mT, None
        X = V.mT @ gV
        X = 0.5 * (X - X.mT)
        E = L.unsqueeze(-2) - L.unsqueeze(-1) + _eye(L.shape[-1], L)
        ret = X / E
        if gL is not None:
            ret = ret + _diag_embed(gL)
        return V @ (ret @ V.mT), None


LinalgEigh._backward_cls.materialize_grads = False  # which outputs got gradients picks the formula


def _eigh_args(name, A, UPLO):
    _check_args(name, (A, UPLO))
    _at_least_2d(A, "linalg.eigh")
    _square(A, "linalg.eigh")
    if UPLO.upper() not in ("L", "U") or len(UPLO) != 1:
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    if not A.dtype.is_floating_point:
        raise NotImplementedError(f"\"linalg_eigh_{A.device.type}\" not implemented for '{_legacy(A)}'")
    return UPLO.upper() == "U"


def eigh(A, UPLO="L", *, out=None):
    """torch.linalg.eigh: (eigenvalues, eigenvectors) of the symmetric matrices in A, from
    its lower (UPLO='L') or upper triangle; eigenvalues ascending."""
    if _AUTOCAST_ON[0] and (r := _autocast("eigh", eigh, A, UPLO, out=out)) is not None:
        return r
    upper = _eigh_args("linalg_eigh", A, UPLO)
    _no_out(out, "linalg_eigh")
    return return_types_linalg_eigh(*apply_first(LinalgEigh, A, upper))


def eigvalsh(A, UPLO="L", *, out=None):
    """torch.linalg.eigvalsh: the eigenvalues (ascending) of the symmetric matrices in A."""
    if _AUTOCAST_ON[0] and (r := _autocast("eigvalsh", eigvalsh, A, UPLO, out=out)) is not None:
        return r
    upper = _eigh_args("linalg_eigvalsh", A, UPLO)
    _no_out(out, "linalg_eigvalsh")
    if _needs_grad(A):
        return apply_first(LinalgEigh, A, upper)[0]
    return _make(A._device.backend.eigh(A._data, upper)[0], A._device)


def _no_out(out, name):
    if out is not None:
        raise TypeError(f"{name}(): out= is not supported by minigrad")


# ---- svd -----------------------------------------------------------------------------------------------

class LinalgSvd(Builtin):
    """(U, S, Vh), singular values descending. Backward: torch's svd_backward, with U and Vh
    narrowed to their first k = min(m, n) columns / rows when full_matrices (the others do
    not depend on A)."""
    _node_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx, a, full_matrices):
        dev = a._device
        u, s, vh = (_make(x, dev) for x in dev.backend.svd(a._data, full_matrices, True))
        ctx.save_for_backward(u, s, vh)
        ctx.full_matrices = full_matrices
        return u, s, vh

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        U, S, Vh = ctx.saved_tensors
        k = S.shape[-1]
        if ctx.full_matrices:
            U, Vh = U[..., :k], Vh[..., :k, :]
            gU = gU[..., :k] if gU is not None else None
            gVh = gVh[..., :k, :] if gVh is not None else None
        return _svd_backward(gU, gS, gVh, U, S, Vh), None


LinalgSvd._backward_cls.materialize_grads = False


def _svd_backward(gU, gS, gVh, U, S, Vh):
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        if gS is None:
            return None
        return U @ (gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)) @ Vh
    UhgU = (lambda X: X - X.mT)(U.mT @ gU) if gU is not None else None
    VhgV = (lambda X: X - X.mT)(Vh @ gVh.mT) if gVh is not None else None
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + _eye(S.shape[-1], S)
    if gU is not None:
        ret = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E if gVh is not None else (UhgU / E) * S.unsqueeze(-2)
    else:
        ret = S.unsqueeze(-1) * (VhgV / E)
    if gS is not None:
        ret = ret + _diag_embed(gS)
    if m > n and gU is not None:
        gA = U @ ret
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U @ (U.mT @ gUSinv)
        return gA @ Vh
    if m < n and gVh is not None:
        gA = ret @ Vh
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - (SinvgVh @ Vh.mT) @ Vh
        return U @ gA
    return U @ (ret @ Vh) if m >= n else (U @ ret) @ Vh


def _svd_checks(A):
    _at_least_2d(A, "linalg.svd")
    _floating(A, "linalg.svd")


def svd(A, full_matrices=True, *, driver=None, out=None):
    """torch.linalg.svd: (U, S, Vh) with A = U diag(S) Vh, S descending; U (..., m, m) and
    Vh (..., n, n) when full_matrices, else (..., m, k) and (..., k, n), k = min(m, n)."""
    if _AUTOCAST_ON[0] and (r := _autocast("linalg_svd", svd, A, full_matrices, driver=driver, out=out)) is not None:
        return r
    _check_args("linalg_svd", (A, full_matrices))
    _svd_checks(A)
    _no_out(out, "linalg_svd")
    return return_types_linalg_svd(*apply_first(LinalgSvd, A, full_matrices))


def svdvals(A, *, driver=None, out=None):
    """torch.linalg.svdvals: the singular values of A, descending."""
    if _AUTOCAST_ON[0] and (r := _autocast("svdvals", svdvals, A, driver=driver, out=out)) is not None:
        return r
    _check_args("linalg_svdvals", (A,))
    _svd_checks(A)
    _no_out(out, "linalg_svdvals")
    if _needs_grad(A):
        return apply_first(LinalgSvd, A, False)[1]
    return _make(A._device.backend.svd(A._data, False, False)[1], A._device)


def svd_legacy(input, some=True, compute_uv=True, *, out=None):
    """torch.svd: (U, S, V), V not transposed. some=False gives the full U and V; compute_uv=
    False gives zero-filled U (..., m, m) and V (..., n, n)."""
    if _AUTOCAST_ON[0] and (r := _autocast("svd", svd_legacy, input, some, compute_uv, out=out)) is not None:
        return r
    _check_args("svd", (input, some, compute_uv))
    if input.dim() < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has {input.dim()} dimensions "
                           "instead")
    _floating(input, "linalg.svd")
    _no_out(out, "svd")
    if compute_uv:
        U, S, Vh = svd(input, full_matrices=not some)
        return return_types_svd(U, S, Vh.mT)
    from ..creation import zeros
    S = svdvals(input)
    m, n = input.shape[-2:]
    batch = tuple(input.shape[:-2])
    z = (lambda k: zeros(batch + (k, k), dtype=input.dtype, device=input.device))
    return return_types_svd(z(m), S, z(n))


# ---- qr ------------------------------------------------------------------------------------------------

_QR_MODES = ("reduced", "complete", "r")


class LinalgQr(Builtin):
    """(Q, R) with LAPACK's signs; Q is an empty (0,) tensor for mode 'r'. Backward (m >= n,
    reduced; or any shape with m <= n): derived from dA = dQ R + Q dR with Q^T dQ skew and
    dR R^-1 upper triangular; for m < n, A = [X | Y] splits into X = Q R1 and Y = Q R2."""
    _node_name = "LinalgQrBackward0"

    @staticmethod
    def forward(ctx, a, mode):
        dev = a._device
        be = dev.backend
        q, r = be.qr(a._data, mode)
        q = _make(be.empty((0,), a._data.dtype) if q is None else q, dev)
        r = _make(r, dev)
        ctx.save_for_backward(q, r)
        ctx.mode = mode
        return q, r

    @staticmethod
    def backward(ctx, gQ, gR):
        Q, R = ctx.saved_tensors
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                               "linalg.qr.")
        m, n = Q.shape[-2], R.shape[-1]
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        if gQ is None and gR is None:
            return None, None
        if m >= n:
            return _qr_backward_tall(gQ, gR, Q, R), None
        # m < n: R = [R1 | R2], R1 (m, m); Y = A[..., m:] = Q R2
        R1, R2 = R[..., :m], R[..., m:]
        Y = Q @ R2
        gR1 = gR[..., :m] if gR is not None else None
        gY = Q @ gR[..., m:] if gR is not None else None
        if gR is not None:
            extra = Y @ gR[..., m:].mT
            gQ = extra if gQ is None else gQ + extra
        gX = _qr_backward_tall(gQ, gR1, Q, R1)
        from .join import cat
        return cat([gX, gY if gY is not None else gX.new_zeros(tuple(gX.shape[:-1]) + (n - m,))], -1), None


LinalgQr._backward_cls.materialize_grads = False


def _qr_backward_tall(gQ, gR, Q, R):
    """A = Q R with m >= n: with G = gR R^T - Q^T gQ, gA = (Q (triu(G) + tril(G^T, -1)) + gQ) R^-T."""
    if gQ is not None:
        G = gR @ R.mT - Q.mT @ gQ if gR is not None else -(Q.mT @ gQ)
    else:
        G = gR @ R.mT
    M = Q @ (G.triu() + G.mT.tril(-1))
    if gQ is not None:
        M = M + gQ
    return _solve_right_upper_t(M, R)


def _solve_right_upper_t(B, R):
    """X with X R^T = B, for upper triangular R (..., n, n): back substitution over the
    columns, in Tensor ops (differentiable again)."""
    from .join import stack
    n = R.shape[-1]
    cols = [None] * n
    for j in range(n - 1, -1, -1):
        b = B[..., j]
        if j + 1 < n:
            done = stack(cols[j + 1:], -1)
            b = b - (done @ R[..., j, j + 1:].unsqueeze(-1)).squeeze(-1)
        cols[j] = b / R[..., j, j].unsqueeze(-1)
    return stack(cols, -1) if n else B


def qr(A, mode="reduced", *, out=None):
    """torch.linalg.qr: (Q, R) with A = Q R, Q with orthonormal columns, R upper triangular;
    mode 'reduced' (Q (..., m, k)), 'complete' (Q (..., m, m)) or 'r' (R only, Q empty)."""
    if _AUTOCAST_ON[0] and (r := _autocast("linalg_qr", qr, A, mode, out=out)) is not None:
        return r
    _check_args("linalg_qr", (A, mode))
    _at_least_2d(A, "linalg.qr")
    _floating(A, "linalg.qr")
    if mode not in _QR_MODES:
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    _no_out(out, "linalg_qr")
    return return_types_linalg_qr(*apply_first(LinalgQr, A, mode))


def qr_legacy(input, some=True, *, out=None):
    """torch.qr: linalg.qr with mode 'reduced' (some=True) or 'complete'."""
    if _AUTOCAST_ON[0] and (r := _autocast("qr", qr_legacy, input, some, out=out)) is not None:
        return r
    _check_args("qr", (input, some))
    _no_out(out, "qr")
    return return_types_qr(*qr(input, "reduced" if some else "complete"))


# ---- pinv, matrix_rank, cond, matrix norms -------------------------------------------------------------

def _tolerances(A, atol, rtol):
    """torch's get_atol_rtol: atol 0 unless given; rtol eps * max(m, n) unless given (0 when
    only a positive atol is)."""
    from .. import tensor as _t  # noqa: F401
    from ..creation import tensor as make
    eps = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16}[A.dtype.np.name]
    default_rtol = eps * max(A.shape[-2:])
    if atol is None:
        atol_t = make(0.0, dtype=A.dtype, device=A.device)
    else:
        atol_t = atol.to(A.dtype) if isinstance(atol, Tensor) else make(float(atol), dtype=A.dtype, device=A.device)
    if rtol is None:
        if atol is not None:
            rtol_t = (atol_t <= 0).to(A.dtype) * default_rtol
        else:
            rtol_t = make(default_rtol, dtype=A.dtype, device=A.device)
    else:
        rtol_t = rtol.to(A.dtype) if isinstance(rtol, Tensor) else make(float(rtol), dtype=A.dtype, device=A.device)
    return atol_t, rtol_t


def _tol(S_max, atol, rtol):
    return atol.unsqueeze(-1).maximum(rtol.unsqueeze(-1) * S_max)


class LinalgPinv(Builtin):
    """The pseudoinverse: V diag(1/S where S > tol) U^T (or by eigh when hermitian); torch's
    pinv_backward."""
    _node_name = "LinalgPinvBackward0"

    @staticmethod
    def forward(ctx, a, atol, rtol, hermitian):
        A = _make(a._data, a._device)
        with no_grad():
            if A.shape[-1] == 0 or A.shape[-2] == 0:
                from ..creation import zeros
                out = zeros(tuple(A.shape[:-2]) + (A.shape[-1], A.shape[-2]), dtype=A.dtype, device=A.device)
            elif not hermitian:
                U, S, Vh = svd(A, full_matrices=False)
                tol = _tol(S[..., :1], atol, rtol)
                Sinv = (S > tol).to(S.dtype) * S.reciprocal().nan_to_num(0.0, 0.0, 0.0)
                out = (Vh.mT * Sinv.unsqueeze(-2)) @ U.mT
            else:
                L, V = eigh(A)
                Labs = L.abs()
                tol = _tol(Labs.amax(-1, keepdim=True), atol, rtol)
                Linv = (Labs > tol).to(L.dtype) * L.reciprocal().nan_to_num(0.0, 0.0, 0.0)
                out = (V * Linv.unsqueeze(-2)) @ V.mT
        ctx.save_for_backward(a, out)
        return _make(out._data, a._device)

    @staticmethod
    def backward(ctx, g):
        A, pinvA = ctx.saved_tensors
        m, n = A.shape[-2:]
        pinvAh, gradh = pinvA.mT, g.mT
        if m <= n:
            K = gradh @ pinvA
            KpinvAh = K @ pinvAh
            gA = -(pinvA @ K).mT + KpinvAh - (A @ pinvA) @ KpinvAh + (pinvAh @ pinvA) @ (gradh - K @ A)
        else:
            K = pinvA @ gradh
            pinvAhK = pinvAh @ K
            gA = -(K @ pinvA).mT + ((gradh - A @ K) @ pinvA) @ pinvAh + pinvAhK - (pinvAhK @ pinvA) @ A
        return gA, None, None, None


def _pinv_type_error(A):
    return RuntimeError(f"linalg.pinv({_legacy(A)}{{{list(A.shape)}}}): expected a tensor with 2 or more dimensions "
                        "of float, double, cfloat or cdouble types")


def pinv(A, *args, atol=None, rtol=None, hermitian=False, rcond=None, out=None):
    """torch.linalg.pinv(A, *, atol=None, rtol=None, hermitian=False), or the older overload
    pinv(A, rcond, hermitian=False) (rtol=rcond, atol=0)."""
    if not isinstance(A, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"linalg_pinv(): argument 'input' (position 1) must be Tensor, not {type_name(A)}")
    if args or rcond is not None:
        if len(args) > 2:
            raise TypeError(f"linalg_pinv() takes at most 3 positional arguments ({len(args) + 1} given)")
        rcond = args[0] if args else rcond
        hermitian = args[1] if len(args) > 1 else hermitian
        atol, rtol = 0.0, rcond
    _no_out(out, "linalg_pinv")
    if A.dim() < 2 or not A.dtype.is_floating_point:
        raise _pinv_type_error(A)
    if hermitian:
        _square(A, "linalg.eigh")
    atol_t, rtol_t = _tolerances(A, atol, rtol)
    return apply_first(LinalgPinv, A, atol_t, rtol_t, bool(hermitian))


def pinverse(input, rcond=1e-15):
    """torch.pinverse: linalg.pinv with rtol=rcond."""
    if _AUTOCAST_ON[0] and (r := _autocast("pinverse", pinverse, input, rcond)) is not None:
        return r
    return pinv(input, rcond)


def matrix_rank(A, *args, atol=None, rtol=None, hermitian=False, tol=None, out=None):
    """torch.linalg.matrix_rank(A, *, atol=None, rtol=None, hermitian=False): the number of
    singular values (absolute eigenvalues when hermitian) above max(atol, rtol * the largest);
    also the older overload matrix_rank(A, tol, hermitian=False) (atol=tol, rtol=0)."""
    if _AUTOCAST_ON[0] and (r := _autocast(
            "matrix_rank", matrix_rank, A, *args, atol=atol, rtol=rtol, hermitian=hermitian, tol=tol, out=out)) is not None:
        return r
    if not isinstance(A, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"linalg_matrix_rank(): argument 'input' (position 1) must be Tensor, not {type_name(A)}")
    if args or tol is not None:
        tol = args[0] if args else tol
        hermitian = args[1] if len(args) > 1 else hermitian
        atol, rtol = tol, 0.0
    _no_out(out, "linalg_matrix_rank")
    _at_least_2d(A, "torch.linalg.matrix_rank", "input")
    if not A.dtype.is_floating_point:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if hermitian:
        _square(A, "linalg.eigh")
    atol_t, rtol_t = _tolerances(A, atol, rtol)
    with no_grad():
        S = eigvalsh(A).abs() if hermitian else svdvals(A)
        if S.shape[-1] == 0:
            from ..creation import zeros
            from ..dtypes import int64
            return zeros(tuple(S.shape[:-1]), dtype=int64, device=A.device)
        tol = _tol(S.amax(-1, keepdim=True), atol_t, rtol_t)
        return (S > tol).sum(-1)


def _ord_name(p):
    if isinstance(p, str):
        return p
    if isinstance(p, float) and math.isinf(p):
        return "inf" if p > 0 else "-inf"
    return str(int(p)) if float(p).is_integer() else str(p)


def cond(A, p=None, *, out=None):
    """torch.linalg.cond: sigma_max / sigma_min for p None or 2 (sigma_min / sigma_max for -2);
    for 'nuc' (square A) sum(sigma) * sum(1 / sigma); for 'fro', inf, -inf, 1, -1 (square A)
    norm(A, p) * norm(inv(A), p), inf where A is singular (through linalg.inv_ex)."""
    if _AUTOCAST_ON[0] and (r := _autocast("cond", cond, A, p, out=out)) is not None:
        return r
    if not isinstance(A, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"linalg_cond(): argument 'input' (position 1) must be Tensor, not {type_name(A)}")
    _no_out(out, "linalg_cond")
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p is None or (not isinstance(p, str) and abs(p) == 2):
        S = svdvals(A)
        s_max, s_min = S[..., :1], S[..., -1:]
        return (s_min / s_max if p is not None and p == -2 else s_max / s_min).squeeze(-1)
    if p not in ("fro", "nuc", math.inf, -math.inf, 1, -1):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {_ord_name(p)}")
    _at_least_2d(A, "linalg.cond")
    m, n = A.shape[-2:]
    if m != n:
        raise RuntimeError(f"linalg.cond(ord={_ord_name(p)}): A must be batches of square matrices, but they are "
                           f"{m} by {n} matrices")
    if p == "nuc":  # torch: by the singular values directly (matrix_norm would meet inf in inv(A))
        S = svdvals(A)
        return S.sum(-1) * S.reciprocal().sum(-1)
    from .. import linalg
    inv_ex = getattr(linalg, "inv_ex", None)
    if inv_ex is None:
        raise NotImplementedError(f"linalg.cond with ord={p!r} needs linalg.inv_ex, which minigrad does not have yet")
    if A.numel() == 0:
        from ..creation import zeros
        return zeros(tuple(A.shape[:-2]), dtype=A.dtype, device=A.device)
    _floating(A, "linalg.matrix_norm")
    inverse, info = inv_ex(A)
    inverse = inverse.masked_fill((info > 0).unsqueeze(-1).unsqueeze(-1), math.inf)
    result = linalg.matrix_norm(A, p) * linalg.matrix_norm(inverse, p)
    return result.nan_to_num(math.inf, math.inf, -math.inf)


def matrix_norm_svd(A, ord, d0, d1, keepdim):
    """matrix_norm for ord 2 (largest singular value), -2 (smallest) and 'nuc' (their sum) over
    dims (d0, d1), as torch: those dims moved last, then svdvals."""
    nd = A.dim()
    perm = [d for d in range(nd) if d not in (d0, d1)] + [d0, d1]
    S = svdvals(A.permute(perm))
    if ord == "nuc":
        r = S.sum(-1)
    else:
        r = S.amax(-1) if ord == 2 else S.amin(-1)
    if keepdim:
        inverse = [0] * nd
        for i, p in enumerate(perm):
            inverse[p] = i
        r = r.unsqueeze(-1).unsqueeze(-1).permute(inverse)
    return r


FUNCTIONS = {"svd": svd_legacy, "qr": qr_legacy, "pinverse": pinverse}  # torch.svd, torch.qr, torch.pinverse


def install(T):
    """Tensor.svd, Tensor.qr, Tensor.pinverse."""
    T.svd = lambda self, some=True, compute_uv=True: svd_legacy(self, some, compute_uv)
    T.qr = lambda self, some=True: qr_legacy(self, some)
    T.pinverse = lambda self, rcond=1e-15: pinverse(self, rcond)
