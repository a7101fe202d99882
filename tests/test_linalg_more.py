"""The rest of torch.linalg's real-valued API (matrix_exp, lstsq, vecdot, diagonal, vander, matmul,
tensorinv, tensorsolve, householder_product / orgqr, geqrf, ormqr, lu_unpack) and
nn.utils.parametrizations.orthogonal, against torch 2.13 on every device: values, dtypes, shapes,
result fields, errors, grad_fn names, gradients (against torch's and by minigrad's gradcheck)."""
import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(4321)
TOL = {"float32": 2e-5, "float64": 1e-12}


def mg(x, device, grad=False):
    return minigrad.tensor(x, device=device, requires_grad=grad)


def tt(x, grad=False):
    return torch.tensor(x, requires_grad=grad)


def np_(t):
    return t.detach().cpu().numpy()


def close(a, b, dt, scale=1.0):
    np.testing.assert_allclose(np_(a), b.detach().numpy(), rtol=TOL[dt] * scale, atol=TOL[dt] * scale)


def node(t):
    return type(t.grad_fn).__name__


# ---- matrix_exp --------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("scale", [1e-9, 1e-5, 1e-3, 0.02, 0.2, 0.7, 1.3, 2.5, 9.0, 60.0])
def test_matrix_exp_every_degree(device, dt, scale):
    # one batch whose matrices fall in different degree intervals (and squarings)
    a = RNG.standard_normal((4, 4, 4)) / 4
    a *= np.array([scale, scale / 7, scale * 3, scale / 300])[:, None, None]
    a = a.astype(dt)
    out = minigrad.linalg.matrix_exp(mg(a, device))
    ref = torch.linalg.matrix_exp(tt(a))
    assert str(out.dtype).endswith(dt) and tuple(out.shape) == (4, 4, 4)
    close(out, ref, dt, scale=max(1.0, float(np.abs(ref.numpy()).max())) * (5 if dt == "float32" else 10))


def test_matrix_exp_shapes_and_spellings(device):
    for shape in [(1, 1), (2, 3, 1, 1), (2, 0, 0), (0, 3, 3), (2, 1, 5, 5)]:
        a = RNG.standard_normal(shape)
        out = minigrad.linalg.matrix_exp(mg(a, device))
        close(out, torch.linalg.matrix_exp(tt(a)), "float64")
    a = RNG.standard_normal((3, 3))
    for f in (lambda L, x: L.matrix_exp(x), lambda L, x: x.matrix_exp()):
        close(f(minigrad, mg(a, device)), f(torch, tt(a)), "float64")
    # NaN / inf make the whole matrix NaN, its batch neighbours untouched
    bad = np.stack([np.array([[1.0, np.nan], [0.0, 1.0]]), np.eye(2), np.array([[1.0, np.inf], [0.0, 1.0]])])
    np.testing.assert_array_equal(np_(minigrad.linalg.matrix_exp(mg(bad, device))),
                                  torch.linalg.matrix_exp(tt(bad)).numpy())


def test_matrix_exp_gradients(device):
    for a in (RNG.standard_normal((3, 3)), RNG.standard_normal((2, 4, 4)) * 2, RNG.standard_normal((1, 1))):
        g = RNG.standard_normal(a.shape)
        x, t = mg(a, device, True), tt(a, True)
        out, ref = minigrad.linalg.matrix_exp(x), torch.linalg.matrix_exp(t)
        assert node(out) == node(ref) == "LinalgMatrixExpBackward0"
        (out * mg(g, device)).sum().backward()
        (ref * tt(g)).sum().backward()
        close(x.grad, t.grad, "float64", scale=100)
    x = mg(RNG.standard_normal((2, 3, 3)) * 0.7, device, True)
    assert gradcheck(minigrad.linalg.matrix_exp, (x,))
    assert gradgradcheck(minigrad.linalg.matrix_exp, (mg(RNG.standard_normal((2, 2)), device, True),))


# ---- lstsq ---------------------------------------------------------------------------------------------

def _lstsq_cases():
    A = RNG.standard_normal((2, 6, 3))
    Ad = A.copy()
    Ad[0, :, 2] = Ad[0, :, 0] - 2 * Ad[0, :, 1]  # rank 2
    return [(A, RNG.standard_normal((2, 6, 2))), (Ad, RNG.standard_normal((2, 6, 2))),
            (np.swapaxes(A, -1, -2), RNG.standard_normal((2, 3, 4))), (A[0], RNG.standard_normal(6)),
            (A, RNG.standard_normal((2, 6))), (A[:1][None], RNG.standard_normal((3, 1, 6, 2))),
            (A[0, :3], RNG.standard_normal((3, 2))), (np.zeros((4, 3)), RNG.standard_normal((4, 2))),
            (np.zeros((0, 3)), np.zeros((0, 2))), (np.zeros((3, 0)), RNG.standard_normal((3, 2)))]


@pytest.mark.parametrize("driver", [None, "gelsy", "gelsd", "gelss", "gels", "GELSD"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_lstsq_fields(device, driver, dt):
    if device.startswith("cuda") and driver not in (None, "gels"):
        with pytest.raises(RuntimeError, match="`driver` other than `gels` is not supported on CUDA"):
            minigrad.linalg.lstsq(mg(np.ones((2, 2)), device), mg(np.ones((2, 2)), device), driver=driver)
        return
    tdriver = "gels" if device.startswith("cuda") else driver  # torch's CUDA default
    for i, (A, B) in enumerate(_lstsq_cases()):
        if tdriver == "gels" and i in (1, 7):
            continue  # gels assumes full rank (LAPACK returns garbage otherwise)
        A, B = A.astype(dt), B.astype(dt)
        r = minigrad.linalg.lstsq(mg(A, device), mg(B, device), driver=driver)
        ref = torch.linalg.lstsq(tt(A), tt(B), driver=tdriver)
        assert type(r).__name__ == "linalg_lstsq" and r._fields == ("solution", "residuals", "rank", "singular_values")
        for name, x, y in zip(r._fields, r, ref):
            assert tuple(x.shape) == tuple(y.shape), (i, name, x.shape, y.shape)
            assert str(x.dtype).split(".")[-1] == str(y.dtype).split(".")[-1], (i, name)
            if name == "rank":
                np.testing.assert_array_equal(np_(x), y.numpy())
            else:
                close(x, y, dt, scale=200)


def test_lstsq_rcond_and_broadcasting(device):
    A = RNG.standard_normal((5, 3)) @ np.diag([1.0, 1e-3, 1e-9])
    B = RNG.standard_normal((5, 2))
    for rcond in (None, 1e-6, 1e-2) if device == "cpu" else ():  # CUDA's gels has no rank
        r = minigrad.linalg.lstsq(mg(A, device), mg(B, device), rcond, driver="gelsd")
        ref = torch.linalg.lstsq(tt(A), tt(B), rcond, driver="gelsd")
        assert int(r.rank.item()) == int(ref.rank.item())
        if rcond is not None:
            close(r.solution, ref.solution, "float64", scale=1e3)
    A, B = RNG.standard_normal((2, 1, 5, 3)), RNG.standard_normal((1, 4, 5, 2))
    r, ref = minigrad.linalg.lstsq(mg(A, device), mg(B, device)), torch.linalg.lstsq(tt(A), tt(B), driver="gelsd")
    close(r.solution, ref.solution, "float64", scale=100)


def test_lstsq_gradients(device):
    A, B = RNG.standard_normal((2, 5, 3)), RNG.standard_normal((2, 5, 2))
    for a, b in ((A, B), (np.swapaxes(A, -1, -2), B[:, :3]), (A[0], B[0, :, 0]), (A[:1], B)):
        x, y, tx, ty = mg(a, device, True), mg(b, device, True), tt(a, True), tt(b, True)
        out = minigrad.linalg.lstsq(x, y, driver="gels")
        ref = torch.linalg.lstsq(tx, ty, driver="gels")
        assert node(out.solution) == node(ref.solution) == "LinalgLstsqBackward0"
        g = RNG.standard_normal(tuple(out.solution.shape))
        loss = (out.solution * mg(g, device)).sum() + (out.residuals.sum() if out.residuals.numel() else 0)
        tloss = (ref.solution * tt(g)).sum() + (ref.residuals.sum() if ref.residuals.numel() else 0)
        loss.backward()
        tloss.backward()
        close(x.grad, tx.grad, "float64", scale=1e3)
        close(y.grad, ty.grad, "float64", scale=1e3)
    a, b = mg(A[0], device, True), mg(B[0], device, True)
    assert gradcheck(lambda p, q: minigrad.linalg.lstsq(p, q).solution, (a, b))
    assert gradcheck(lambda p, q: minigrad.linalg.lstsq(p.mT, q[:3]).solution, (a, b))
    drv = "gelsd" if device == "cpu" else "gels"
    assert gradcheck(lambda p, q: minigrad.linalg.lstsq(p, q, driver=drv).residuals, (a, b))


# ---- vecdot, diagonal, vander, matmul, tensorinv, tensorsolve ---------------------------------------------

def test_small_compositions(device):
    x, y = RNG.standard_normal((2, 1, 3)), RNG.standard_normal((4, 3))
    cases = [
        (lambda L, a, b: L.linalg.vecdot(a, b), (x, y), "SumBackward1"),
        (lambda L, a, b: L.linalg.vecdot(a, b, dim=0), (x[:, 0], y[:2]), "SumBackward1"),
        (lambda L, a: L.linalg.diagonal(a), (RNG.standard_normal((2, 3, 4)),), "DiagonalBackward0"),
        (lambda L, a: L.linalg.diagonal(a, offset=1, dim1=0, dim2=2), (RNG.standard_normal((2, 3, 4)),),
         "DiagonalBackward0"),
        (lambda L, a: L.linalg.vander(a), (RNG.standard_normal(4),), "CatBackward0"),
        (lambda L, a: L.linalg.vander(a, N=5), (RNG.standard_normal((2, 3)),), "CatBackward0"),
        (lambda L, a: L.linalg.vander(a), (np.array(1.5),), None),
        (lambda L, a, b: L.linalg.matmul(a, b), (RNG.standard_normal((2, 3, 4)), RNG.standard_normal((4, 2))), None),
        (lambda L, a: L.linalg.tensorinv(a), (RNG.standard_normal((4, 6, 8, 3)),), None),
        (lambda L, a: L.linalg.tensorinv(a, ind=1), (RNG.standard_normal((6, 2, 3)),), None),
        (lambda L, a, b: L.linalg.tensorsolve(a, b), (RNG.standard_normal((2, 3, 6)), RNG.standard_normal((2, 3))),
         "ViewBackward0"),
        (lambda L, a, b: L.linalg.tensorsolve(a, b, dims=(0,)),
         (RNG.standard_normal((6, 2, 3)), RNG.standard_normal((2, 3))), "ViewBackward0"),
    ]
    for f, args, name in cases:
        if len(args) and np.ndim(args[0]) == 0:
            with pytest.raises(RuntimeError, match="N must be greater than 1."):
                f(minigrad, mg(args[0], device))
            continue
        ms = [mg(a, device, True) for a in args]
        ts = [tt(a, True) for a in args]
        out, ref = f(minigrad, *ms), f(torch, *ts)
        close(out, ref, "float64", scale=100)
        if name:
            assert node(out) == node(ref) == name
        g = RNG.standard_normal(tuple(out.shape))
        (out * mg(g, device)).sum().backward()
        (ref * tt(g)).sum().backward()
        for m_, t_ in zip(ms, ts):
            close(m_.grad, t_.grad, "float64", scale=1e3)
    v = minigrad.linalg.vander(minigrad.tensor([1, 2, 3], dtype=minigrad.int32, device=device))
    assert v.dtype == minigrad.int64 and np_(v).tolist() == [[1, 1, 1], [1, 2, 4], [1, 3, 9]]
    assert gradcheck(lambda a: minigrad.linalg.tensorinv(a, ind=1), (mg(RNG.standard_normal((4, 2, 2)), device, True),))


# ---- lu_unpack, geqrf, householder_product / orgqr, ormqr ---------------------------------------------

@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3), (2, 0, 0)])
def test_lu_unpack(device, shape):
    A = RNG.standard_normal(shape)
    LU, piv = torch.linalg.lu_factor(tt(A))
    x = mg(LU.numpy(), device, True)
    p = mg(piv.numpy(), device)
    tLU = LU.clone().requires_grad_()
    for flags in ((True, True), (False, True), (True, False), (False, False)):
        r, ref = minigrad.lu_unpack(x, p, *flags), torch.lu_unpack(tLU, piv, *flags)
        assert type(r).__name__ == "lu_unpack" and r._fields == ("P", "L", "U")
        for a, b in zip(r, ref):
            assert tuple(a.shape) == tuple(b.shape)
            close(a, b, "float64")
    P, L, U = minigrad.lu_unpack(x, p)
    tP, tL, tU = torch.lu_unpack(tLU, piv)
    assert node(L) == node(tL) == "LuUnpackBackward0" and P.grad_fn is None
    if A.size:
        gL, gU = RNG.standard_normal(tuple(L.shape)), RNG.standard_normal(tuple(U.shape))
        ((L * mg(gL, device)).sum() + (U * mg(gU, device)).sum()).backward()
        ((tL * tt(gL)).sum() + (tU * tt(gU)).sum()).backward()
        close(x.grad, tLU.grad, "float64")


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 6, 2), (3, 1), (1, 3), (2, 0, 3)])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_geqrf_householder_ormqr_values(device, shape, dt):
    A = RNG.standard_normal(shape).astype(dt)
    if shape == (4, 4):
        A[2:, 1] = 0  # a column with nothing to reflect: tau 0 where LAPACK's is
        A[3, 2] = 0
    a, tau = minigrad.geqrf(mg(A, device))
    ta, ttau = torch.geqrf(tt(A))
    assert type(a).__name__ == "Tensor" and tuple(tau.shape) == tuple(ttau.shape)
    close(a, ta, dt, scale=50)
    close(tau, ttau, dt, scale=50)
    m, n = shape[-2:]
    if m >= n:
        Q = minigrad.linalg.householder_product(mg(ta.numpy(), device), mg(ttau.numpy(), device))
        close(Q, torch.linalg.householder_product(ta, ttau), dt, scale=50)
        close(minigrad.orgqr(mg(ta.numpy(), device), mg(ttau.numpy(), device)), torch.orgqr(ta, ttau), dt, scale=50)
    for left in (True, False):
        for transpose in (True, False):
            C = RNG.standard_normal(shape[:-2] + ((m, 2) if left else (2, m))).astype(dt)
            out = minigrad.ormqr(mg(ta.numpy(), device), mg(ttau.numpy(), device), mg(C, device), left, transpose)
            close(out, torch.ormqr(ta, ttau, tt(C), left=left, transpose=transpose), dt, scale=50)


def test_householder_ormqr_gradients(device):
    ta, ttau = torch.geqrf(tt(RNG.standard_normal((2, 5, 3))))
    a, tau = mg(ta.numpy(), device, True), mg(ttau.numpy(), device, True)
    ta.requires_grad_(), ttau.requires_grad_()
    Q, tQ = minigrad.linalg.householder_product(a, tau[..., :2]), torch.linalg.householder_product(ta, ttau[..., :2])
    assert node(Q) == node(tQ) == "LinalgHouseholderProductBackward0"
    assert node(minigrad.orgqr(a, tau)) == "LinalgHouseholderProductBackward0"
    g = RNG.standard_normal(tuple(Q.shape))
    (Q * mg(g, device)).sum().backward()
    (tQ * tt(g)).sum().backward()
    close(a.grad, ta.grad, "float64", scale=100)
    close(tau.grad, ttau.grad, "float64", scale=100)
    C = RNG.standard_normal((2, 2, 5))
    c, tc = mg(C, device, True), tt(C, True)
    out = minigrad.ormqr(a, tau, c, left=False, transpose=True)
    ref = torch.ormqr(ta, ttau, tc, left=False, transpose=True)
    assert node(out) == node(ref) == "OrmqrBackward0"
    a.grad = tau.grad = ta.grad = ttau.grad = None
    (out * out).sum().backward()
    (ref * ref).sum().backward()
    for x, y in ((a, ta), (tau, ttau), (c, tc)):
        close(x.grad, y.grad, "float64", scale=100)
    a0, t0 = mg(ta.detach().numpy()[0], device, True), mg(ttau.detach().numpy()[0], device, True)
    assert gradcheck(minigrad.linalg.householder_product, (a0, t0))
    assert gradgradcheck(minigrad.linalg.householder_product, (a0, t0))
    assert gradcheck(lambda p, q, r: minigrad.ormqr(p, q, r), (a0, t0, mg(C[0].T, device, True)))
    # geqrf records a node whose backward is torch's NotImplementedError
    ga, _ = minigrad.geqrf(mg(RNG.standard_normal((3, 2)), device, True))
    assert node(ga) == "GeqrfBackward0"
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented."):
        ga.sum().backward()


# ---- errors -------------------------------------------------------------------------------------------

def _error_cases(L):
    f64 = lambda *s: L.ones(*s, dtype=L.float64)  # noqa: E731
    f32 = lambda *s: L.ones(*s, dtype=L.float32)  # noqa: E731
    i64 = lambda *s: L.ones(*s, dtype=L.int64)  # noqa: E731
    a, tau = L.geqrf(L.eye(4, 3, dtype=L.float64) + 0.5)
    LU, piv = L.linalg.lu_factor(L.eye(3, dtype=L.float64) + 0.5)
    return {
        "mexp 1d": lambda: L.linalg.matrix_exp(f64(3)),
        "mexp rect": lambda: L.linalg.matrix_exp(f64(2, 3)),
        "mexp int": lambda: L.linalg.matrix_exp(i64(2, 2)),
        "mexp list": lambda: L.linalg.matrix_exp([[1.0]]),
        "lstsq 1d": lambda: L.linalg.lstsq(f64(3), f64(3)),
        "lstsq dims": lambda: L.linalg.lstsq(f64(5, 3), f64(2, 5, 2)),
        "lstsq dtype": lambda: L.linalg.lstsq(f64(5, 3), f32(5, 2)),
        "lstsq int": lambda: L.linalg.lstsq(i64(5, 3), i64(5, 2)),
        "lstsq rows": lambda: L.linalg.lstsq(f64(5, 3), f64(4, 2)),
        "lstsq rows vec": lambda: L.linalg.lstsq(f64(3, 5, 3), f64(1, 5)),
        "lstsq batch": lambda: L.linalg.lstsq(f64(2, 5, 3), f64(3, 5, 2)),
        "lstsq batch cols": lambda: L.linalg.lstsq(f64(2, 5, 3), f64(5, 2)),
        "lstsq driver": lambda: L.linalg.lstsq(f64(5, 3), f64(5, 2), driver="foo"),
        "lstsq list": lambda: L.linalg.lstsq([1.0], f64(5, 2)),
        "lstsq list2": lambda: L.linalg.lstsq(f64(5, 3), [1.0]),
        "lstsq 4 positional": lambda: L.linalg.lstsq(f64(5, 3), f64(5, 2), None, "gelsd"),
        "vecdot dtype": lambda: L.linalg.vecdot(f64(3), f32(3)),
        "vecdot int": lambda: L.linalg.vecdot(i64(3), i64(3)),
        "vecdot shapes": lambda: L.linalg.vecdot(f64(2, 3), f64(2, 4)),
        "vecdot dim": lambda: L.linalg.vecdot(f64(2, 3), f64(2, 3), dim=2),
        "vecdot positional dim": lambda: L.linalg.vecdot(f64(2, 3), f64(2, 3), 0),
        "diagonal 1d": lambda: L.linalg.diagonal(f64(3)),
        "diagonal positional": lambda: L.linalg.diagonal(f64(3, 3), 1),
        "vander bool": lambda: L.linalg.vander(L.ones(2, dtype=L.bool)),
        "vander N": lambda: L.linalg.vander(f64(3), N=1),
        "vander empty": lambda: L.linalg.vander(f64(0)),
        "vander positional": lambda: L.linalg.vander(f64(3), 3),
        "tensorinv ind": lambda: L.linalg.tensorinv(f64(4, 4), ind=0),
        "tensorinv shape": lambda: L.linalg.tensorinv(f64(2, 3, 4), ind=1),
        "tensorinv singular": lambda: L.linalg.tensorinv(L.zeros(2, 2, 4, dtype=L.float64)),
        "tensorinv int": lambda: L.linalg.tensorinv(i64(2, 2), ind=1),
        "tensorsolve shape": lambda: L.linalg.tensorsolve(f64(2, 3, 5), f64(2, 3)),
        "tensorsolve singular": lambda: L.linalg.tensorsolve(L.zeros(2, 3, 6, dtype=L.float64), f64(2, 3)),
        "tensorsolve dtype": lambda: L.linalg.tensorsolve(f64(2, 3, 6), f32(2, 3)),
        "lu_unpack int64 pivots": lambda: L.lu_unpack(LU, piv.long()),
        "lu_unpack 1d": lambda: L.lu_unpack(LU[0], piv),
        "lu_unpack list": lambda: L.lu_unpack([1.0], piv),
        "geqrf 1d": lambda: L.geqrf(f64(3)),
        "geqrf int": lambda: L.geqrf(i64(3, 3)),
        "geqrf list": lambda: L.geqrf([1.0]),
        "hp wide": lambda: L.linalg.householder_product(a.mT, tau),
        "hp tau long": lambda: L.linalg.householder_product(a, f64(4)),
        "hp tau ndim": lambda: L.linalg.householder_product(a, f64(1, 3)),
        "hp tau batch": lambda: L.linalg.householder_product(a.expand(2, 4, 3), f64(3, 3)),
        "hp tau dtype": lambda: L.linalg.householder_product(a, tau.float()),
        "hp 1d": lambda: L.linalg.householder_product(a[0], tau),
        "hp int": lambda: L.linalg.householder_product(a.long(), tau.long()),
        "hp list": lambda: L.linalg.householder_product([1.0], tau),
        "orgqr list": lambda: L.orgqr([1.0], tau),
        "ormqr rows": lambda: L.ormqr(a, tau, f64(2, 4)),
        "ormqr cols": lambda: L.ormqr(a, tau, f64(4, 2), left=False),
        "ormqr 1d": lambda: L.ormqr(a, tau, f64(4)),
        "ormqr tau ndim": lambda: L.ormqr(a, tau[None], f64(4, 2)),
        "ormqr tau long": lambda: L.ormqr(a, f64(5), f64(4, 2)),
        "ormqr dtype": lambda: L.ormqr(a, tau, f32(4, 2)),
        "ormqr tau dtype": lambda: L.ormqr(a, tau.float(), f64(4, 2)),
        "ormqr batch": lambda: L.ormqr(a.expand(2, 4, 3), tau.expand(2, 3), f64(3, 4, 2)),
        "ormqr ndim": lambda: L.ormqr(a.expand(2, 4, 3), tau.expand(2, 3), f64(4, 2)),
        "ormqr int": lambda: L.ormqr(a.long(), tau.long(), i64(4, 2)),
    }


def test_errors_match_torch():
    mine, ref = _error_cases(minigrad), _error_cases(torch)
    for name in ref:
        with pytest.raises(Exception) as te:
            ref[name]()
        with pytest.raises(Exception) as me:
            mine[name]()
        assert type(me.value).__name__ == type(te.value).__name__, (name, me.value, te.value)
        assert str(me.value) == str(te.value), (name, str(me.value), str(te.value))


# ---- nn.utils.parametrizations.orthogonal -----------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("orthogonal_map", [None, "matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_orthogonal_parametrization(device, shape, orthogonal_map, use_trivialization):
    w = RNG.standard_normal(shape).astype("float64")
    tm, mm = torch.nn.Module(), minigrad.nn.Module()
    tm.weight = torch.nn.Parameter(tt(w))
    mm.weight = minigrad.nn.Parameter(mg(w, device))
    torch.nn.utils.parametrizations.orthogonal(tm, orthogonal_map=orthogonal_map,
                                               use_trivialization=use_trivialization)
    minigrad.nn.utils.parametrizations.orthogonal(mm, orthogonal_map=orthogonal_map,
                                                  use_trivialization=use_trivialization)
    tp, mp = tm.parametrizations.weight, mm.parametrizations.weight
    if use_trivialization and shape[-1] != shape[-2]:  # the completion to a square matrix is random
        with minigrad.no_grad():
            mp[0].base.copy_(mg(tp[0].base.detach().numpy(), device))
    close(mp.original, tp.original, "float64", scale=100)
    Q = mm.weight
    close(Q, tm.weight, "float64", scale=100)
    q = np_(Q)
    k = min(shape[-2:])
    gram = np.swapaxes(q, -1, -2) @ q if shape[-2] >= shape[-1] else q @ np.swapaxes(q, -1, -2)
    np.testing.assert_allclose(gram, np.broadcast_to(np.eye(k), gram.shape), atol=1e-10)
    g = RNG.standard_normal(shape)
    (mm.weight * mg(g, device)).sum().backward()
    (tm.weight * tt(g)).sum().backward()
    close(mp.original.grad, tp.original.grad, "float64", scale=100)
    # assigning an orthogonal matrix goes through right_inverse
    target = np.linalg.qr(RNG.standard_normal(shape[:-2] + (max(shape[-2:]),) * 2))[0][..., :shape[-2], :shape[-1]]
    if not use_trivialization and (orthogonal_map or ("matrix_exp" if shape[-1] == shape[-2] else "householder")) \
            != "householder":
        with pytest.raises(NotImplementedError, match="not possible to assign to the matrix exponential"):
            mm.weight = mg(target, device)
        return
    mm.weight = mg(target, device)
    np.testing.assert_allclose(np.abs(np_(mm.weight)), np.abs(target), atol=1e-10)


def test_orthogonal_errors():
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions."):
        minigrad.nn.utils.parametrizations.orthogonal(minigrad.nn.Linear(3, 3), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                                         "Got: foo"):
        minigrad.nn.utils.parametrizations.orthogonal(minigrad.nn.Linear(3, 3), orthogonal_map="foo")
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'w'"):
        minigrad.nn.utils.parametrizations.orthogonal(minigrad.nn.Linear(3, 3), "w")
    m = minigrad.nn.utils.parametrizations.orthogonal(minigrad.nn.Linear(3, 4))
    with pytest.raises(ValueError, match=r"Expected a matrix or batch of matrices of shape"):
        m.weight = minigrad.ones(3, 3)
