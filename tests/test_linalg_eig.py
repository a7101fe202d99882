"""torch.linalg's orthogonal factorizations (eigh, eigvalsh, svd, svdvals, qr), torch.svd /
torch.qr / pinverse, and pinv, matrix_rank, cond and the 2 / -2 / 'nuc' matrix norms, against
torch 2.13 on every device: values (sign-invariant where vectors' signs are free), dtypes,
shapes, batching, errors, grad_fn names and gradients (of sign-invariant losses), and
minigrad's gradcheck."""
import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
RNG = np.random.default_rng(1234)
TOL = {"float32": 2e-4, "float64": 1e-10}


def mg(x, device, dtype=None, grad=False):
    return minigrad.tensor(x, dtype=dtype, device=device, requires_grad=grad)


def np_(t):
    return t.detach().cpu().numpy()


def sym(shape, dt="float64"):
    a = RNG.standard_normal(shape)
    return (a + np.swapaxes(a, -1, -2)).astype(dt)


SHAPES = [(3, 3), (2, 4, 4), (5, 3), (3, 5), (2, 1, 6, 2), (1, 1)]
DTYPES = ["float32", "float64"]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n,batch", [(1, ()), (3, ()), (5, (2,)), (8, (2, 3)), (17, ())])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(device, dt, n, batch, uplo):
    A = RNG.standard_normal(batch + (n, n)).astype(dt)  # not symmetric: only one triangle is read
    w, v = minigrad.linalg.eigh(mg(A, device), UPLO=uplo)
    assert str(w.dtype).endswith(dt) and tuple(w.shape) == batch + (n,) and tuple(v.shape) == batch + (n, n)
    tri = np.triu(A) if uplo == "U" else np.tril(A)
    S = tri + np.swapaxes(tri, -1, -2) - np.tril(np.triu(A))
    ref = np.linalg.eigvalsh(S.astype(np.float64))
    tol = TOL[dt] * max(1, np.abs(ref).max())
    np.testing.assert_allclose(np_(w), ref, atol=tol)
    V = np_(v).astype(np.float64)
    np.testing.assert_allclose(V @ (np_(w)[..., None] * np.swapaxes(V, -1, -2)), S, atol=5 * tol)
    np.testing.assert_allclose(np.swapaxes(V, -1, -2) @ V, np.broadcast_to(np.eye(n), batch + (n, n)), atol=5 * TOL[dt])
    np.testing.assert_allclose(np_(minigrad.linalg.eigvalsh(mg(A, device), uplo)), np_(w), atol=tol)
    if torch is not None:
        tw, tv = torch.linalg.eigh(torch.tensor(A), UPLO=uplo)
        np.testing.assert_allclose(np_(w), tw.numpy(), atol=tol)
        np.testing.assert_allclose(np.abs(V), np.abs(tv.numpy()), atol=100 * tol)  # distinct eigenvalues


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("full", [True, False])
def test_svd(device, dt, shape, full):
    A = RNG.standard_normal(shape).astype(dt)
    U, S, Vh = minigrad.linalg.svd(mg(A, device), full_matrices=full)
    m, n = shape[-2:]
    k = min(m, n)
    assert tuple(U.shape) == shape[:-2] + ((m, m) if full else (m, k))
    assert tuple(Vh.shape) == shape[:-2] + ((n, n) if full else (k, n))
    assert str(S.dtype).endswith(dt) and tuple(S.shape) == shape[:-2] + (k,)
    ref = np.linalg.svd(A.astype(np.float64), compute_uv=False)
    tol = TOL[dt] * max(1, ref.max())
    np.testing.assert_allclose(np_(S), ref, atol=tol)
    u, vh = np_(U).astype(np.float64), np_(Vh).astype(np.float64)
    np.testing.assert_allclose((u[..., :k] * np_(S)[..., None, :]) @ vh[..., :k, :], A, atol=5 * tol)
    for q in (u, np.swapaxes(vh, -1, -2)):
        eye = np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2)
        np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, eye, atol=5 * TOL[dt])
    np.testing.assert_allclose(np_(minigrad.linalg.svdvals(mg(A, device))), np_(S), atol=tol)
    if torch is not None:
        tu, ts, tvh = torch.linalg.svd(torch.tensor(A), full_matrices=full)
        np.testing.assert_allclose(np_(S), ts.numpy(), atol=tol)
        np.testing.assert_allclose(np.abs(u[..., :k]), np.abs(tu.numpy()[..., :k]), atol=100 * tol)


def test_svd_rank_deficient_and_empty(device):
    A = RNG.standard_normal((5, 3))
    A[:, 2] = 0.5 * A[:, 0] - 2.0 * A[:, 1]
    U, S, Vh = minigrad.linalg.svd(mg(A, device))
    u = np_(U)
    np.testing.assert_allclose(u.T @ u, np.eye(5), atol=1e-12)
    np.testing.assert_allclose((u[:, :3] * np_(S)) @ np_(Vh), A, atol=1e-12)
    assert np_(S)[2] < 1e-12
    U, S, Vh = minigrad.linalg.svd(minigrad.zeros(0, 3, device=device))
    assert tuple(U.shape) == (0, 0) and tuple(S.shape) == (0,) and np_(Vh).tolist() == np.eye(3).tolist()
    U, S, Vh = minigrad.linalg.svd(minigrad.zeros(2, 0, 3, device=device), full_matrices=False)
    assert (tuple(U.shape), tuple(S.shape), tuple(Vh.shape)) == ((2, 0, 0), (2, 0), (2, 0, 3))
    w, v = minigrad.linalg.eigh(minigrad.zeros(0, 0, device=device))
    assert tuple(w.shape) == (0,) and tuple(v.shape) == (0, 0)
    Z = minigrad.linalg.svd(minigrad.zeros(3, 2, dtype=minigrad.float64, device=device))
    np.testing.assert_allclose(np_(Z.U).T @ np_(Z.U), np.eye(3), atol=1e-12)
    assert np_(Z.S).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SHAPES + [(0, 3), (3, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_matches_lapack_signs(device, dt, shape, mode):
    A = RNG.standard_normal(shape).astype(dt)
    Q, R = minigrad.linalg.qr(mg(A, device), mode)
    assert str(R.dtype).endswith(dt)
    if torch is not None:  # torch's CPU QR is LAPACK's geqrf + orgqr: the same signs
        tq, tr = torch.linalg.qr(torch.tensor(A), mode)
        assert tuple(Q.shape) == tuple(tq.shape) and tuple(R.shape) == tuple(tr.shape)
        np.testing.assert_allclose(np_(R), tr.numpy(), atol=TOL[dt] * 10)
        np.testing.assert_allclose(np_(Q), tq.numpy(), atol=TOL[dt] * 10)
    if mode != "r":
        np.testing.assert_allclose(np_(Q).astype(np.float64) @ np_(R), A, atol=TOL[dt] * 10)
        assert np.all(np.tril(np_(R), -1) == 0)


def test_legacy_svd_qr_and_methods(device):
    A = RNG.standard_normal((4, 3))
    t = mg(A, device)
    U, S, V = minigrad.svd(t)
    assert tuple(U.shape) == (4, 3) and tuple(V.shape) == (3, 3)
    np.testing.assert_allclose((np_(U) * np_(S)) @ np_(V).T, A, atol=1e-12)
    U, S, V = t.svd(some=False)
    assert tuple(U.shape) == (4, 4) and tuple(V.shape) == (3, 3)
    U, S, V = minigrad.svd(t, compute_uv=False)
    assert np_(U).tolist() == np.zeros((4, 4)).tolist() and np_(V).tolist() == np.zeros((3, 3)).tolist()
    Q, R = t.qr()
    assert tuple(Q.shape) == (4, 3) and type(minigrad.qr(t, some=False)).__name__ == "qr"
    assert tuple(minigrad.qr(t, False).Q.shape) == (4, 4)
    np.testing.assert_allclose(np_(t.pinverse()), np.linalg.pinv(A), atol=1e-12)
    np.testing.assert_allclose(np_(minigrad.pinverse(t)), np.linalg.pinv(A), atol=1e-12)
    r = minigrad.linalg.eigh(mg(sym((2, 2)), device))
    assert type(r).__name__ == "linalg_eigh" and r.eigenvalues is r[0] and r.eigenvectors is r[1]
    r = minigrad.linalg.svd(t)
    assert type(r).__name__ == "linalg_svd" and r.Vh is r[2]
    assert type(minigrad.linalg.qr(t)).__name__ == "linalg_qr"


@needs_torch
@pytest.mark.parametrize("dt", DTYPES)
def test_pinv_rank_cond_norms_match_torch(device, dt):
    A = RNG.standard_normal((2, 4, 3)).astype(dt)
    A[1, :, 2] = 0.5 * A[1, :, 0] - 0.3 * A[1, :, 1]  # rank 2 (a null vector without ties in |entry|)
    Sq = sym((3, 3), dt)
    T, TS = torch.tensor(A), torch.tensor(Sq)
    a, s = mg(A, device), mg(Sq, device)
    tol = TOL[dt] * 10
    cases = [
        (minigrad.linalg.pinv(a), torch.linalg.pinv(T)),
        (minigrad.linalg.pinv(a, rtol=0.3), torch.linalg.pinv(T, rtol=0.3)),
        (minigrad.linalg.pinv(a, atol=0.5), torch.linalg.pinv(T, atol=0.5)),
        (minigrad.linalg.pinv(a, 0.2), torch.linalg.pinv(T, 0.2)),
        (minigrad.linalg.pinv(s, hermitian=True), torch.linalg.pinv(TS, hermitian=True)),
        (minigrad.linalg.matrix_rank(a), torch.linalg.matrix_rank(T)),
        (minigrad.linalg.matrix_rank(a, atol=1.0, rtol=0.0), torch.linalg.matrix_rank(T, atol=1.0, rtol=0.0)),
        (minigrad.linalg.matrix_rank(s, hermitian=True), torch.linalg.matrix_rank(TS, hermitian=True)),
        (minigrad.linalg.matrix_rank(a, tol=0.5), torch.linalg.matrix_rank(T, tol=0.5)),
        (minigrad.linalg.cond(s), torch.linalg.cond(TS)),
        (minigrad.linalg.cond(s, -2), torch.linalg.cond(TS, -2)),
        (minigrad.linalg.cond(a[0], 2), torch.linalg.cond(T[0], 2)),
        (minigrad.linalg.matrix_norm(a, 2), torch.linalg.matrix_norm(T, 2)),
        (minigrad.linalg.matrix_norm(a, -2), torch.linalg.matrix_norm(T, -2)),
        (minigrad.linalg.matrix_norm(a, "nuc"), torch.linalg.matrix_norm(T, "nuc")),
        (minigrad.linalg.matrix_norm(a, "nuc", dim=(0, 2), keepdim=True),
         torch.linalg.matrix_norm(T, "nuc", dim=(0, 2), keepdim=True)),
        (minigrad.linalg.matrix_norm(a, 2, dim=(2, 1), keepdim=True),
         torch.linalg.matrix_norm(T, 2, dim=(2, 1), keepdim=True)),
        (minigrad.linalg.norm(a[0], 2), torch.linalg.norm(T[0], 2)),
        (minigrad.linalg.norm(a, "nuc", dim=(1, 2)), torch.linalg.norm(T, "nuc", dim=(1, 2))),
        (minigrad.linalg.matrix_norm(a[0], -2, dtype=minigrad.float64),  # full rank: a float32 rank-2 matrix has
         torch.linalg.matrix_norm(T[0], -2, dtype=torch.float64)),       # a noise-sized 3rd singular value in float64
    ]
    for i, (got, want) in enumerate(cases):
        assert tuple(got.shape) == tuple(want.shape), i
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], i
        np.testing.assert_allclose(np_(got), want.numpy(), atol=tol * max(1, float(want.abs().max())), err_msg=str(i))


def _err(fn, lib):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__.lstrip("_"), str(e)
    return None


ONES = lambda L, *s, dt=None: L.ones(*s, dtype=dt)  # noqa: E731
ERRORS = {
    "eigh-int": lambda L: L.linalg.eigh(ONES(L, 3, 3, dt=L.int64)),
    "eigh-bool": lambda L: L.linalg.eigvalsh(ONES(L, 3, 3, dt=L.bool)),
    "eigh-1d": lambda L: L.linalg.eigh(ONES(L, 3)),
    "eigh-nonsquare": lambda L: L.linalg.eigh(ONES(L, 2, 3)),
    "eigh-uplo": lambda L: L.linalg.eigh(ONES(L, 3, 3), UPLO="X"),
    "eigvalsh-uplo": lambda L: L.linalg.eigvalsh(ONES(L, 3, 3), "LU"),
    "eigh-uplo-type": lambda L: L.linalg.eigh(ONES(L, 3, 3), 1),
    "eigh-list": lambda L: L.linalg.eigh([[1.0]]),
    "svd-int": lambda L: L.linalg.svd(ONES(L, 3, 3, dt=L.int64)),
    "svd-1d": lambda L: L.linalg.svd(ONES(L, 3)),
    "svd-full-type": lambda L: L.linalg.svd(ONES(L, 3, 3), 1),
    "svd-list": lambda L: L.linalg.svd([[1.0]]),
    "svdvals-int": lambda L: L.linalg.svdvals(ONES(L, 3, 3, dt=L.int64)),
    "legacy-svd-1d": lambda L: L.svd(ONES(L, 3)),
    "legacy-svd-some-type": lambda L: L.svd(ONES(L, 3, 3), 1),
    "qr-int": lambda L: L.linalg.qr(ONES(L, 3, 3, dt=L.int64)),
    "qr-int-bad-mode": lambda L: L.linalg.qr(ONES(L, 2, 2, dt=L.int64), mode="x"),
    "qr-1d": lambda L: L.linalg.qr(ONES(L, 3)),
    "qr-mode": lambda L: L.linalg.qr(ONES(L, 3, 3), mode="foo"),
    "qr-mode-type": lambda L: L.linalg.qr(ONES(L, 3, 3), 1),
    "legacy-qr-some-type": lambda L: L.qr(ONES(L, 2, 2), "a"),
    "pinv-int": lambda L: L.linalg.pinv(ONES(L, 3, 3, dt=L.int64)),
    "pinv-1d": lambda L: L.linalg.pinv(ONES(L, 3)),
    "pinv-hermitian-nonsquare": lambda L: L.linalg.pinv(ONES(L, 2, 3), hermitian=True),
    "rank-int": lambda L: L.linalg.matrix_rank(ONES(L, 3, 3, dt=L.int64)),
    "rank-1d": lambda L: L.linalg.matrix_rank(ONES(L, 3)),
    "rank-hermitian-nonsquare": lambda L: L.linalg.matrix_rank(ONES(L, 2, 3), hermitian=True),
    "cond-int": lambda L: L.linalg.cond(ONES(L, 3, 3, dt=L.int64)),
    "cond-1d": lambda L: L.linalg.cond(ONES(L, 3)),
    "cond-bad-ord": lambda L: L.linalg.cond(ONES(L, 3, 3), 3),
    "cond-fro-nonsquare": lambda L: L.linalg.cond(ONES(L, 2, 3), "fro"),
    "cond-inf-nonsquare": lambda L: L.linalg.cond(ONES(L, 2, 3), float("inf")),
    "norm-2-int": lambda L: L.linalg.matrix_norm(ONES(L, 3, 3, dt=L.int64), 2),
    "norm-nuc-int": lambda L: L.linalg.matrix_norm(ONES(L, 3, 3, dt=L.int64), "nuc"),
    "norm-3": lambda L: L.linalg.matrix_norm(ONES(L, 3, 3), 3),
}
EXPECTED = {
    "eigh-int": ("NotImplementedError", "\"linalg_eigh_cpu\" not implemented for 'Long'"),
    "eigh-1d": ("RuntimeError", "linalg.eigh: The input tensor A must have at least 2 dimensions."),
    "eigh-uplo": ("RuntimeError", "Expected UPLO argument to be 'L' or 'U', but got X"),
    "svd-int": ("RuntimeError", "linalg.svd: Expected a floating point or complex tensor as input. Got Long"),
    "qr-mode": ("RuntimeError", "qr received unrecognized mode 'foo' but expected one of 'reduced' (default), 'r', "
                "or 'complete'"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    got = _err(ERRORS[name], minigrad)
    assert got is not None
    if name in EXPECTED:
        assert got == EXPECTED[name]
    if torch is not None:
        want = _err(ERRORS[name], torch)
        if name.startswith("cond") and name.endswith("nonsquare") or name == "cond-bad-ord":
            assert got == want
        else:
            assert (got[0], got[1].replace("torch", "minigrad")) == (want[0].replace("LinAlgError", "RuntimeError"),
                                                                       want[1].replace("torch", "minigrad"))


# ---- gradients ----

def _sign_free_losses(lib, A, kind):
    """Losses that do not depend on the free signs of eigen / singular vectors."""
    if kind == "eigh":
        w, v = lib.linalg.eigh(A + A.mT)
        ramp = lib.arange(1.0, 1.0 + w.shape[-1], dtype=w.dtype, device=w.device)
        return (w * ramp).sum() + (v * v)[..., :1, :].sum() + (v[..., :, :1] @ v[..., :, :1].mT).pow(2).mul(ramp).sum()
    if kind == "eigvalsh":
        return lib.linalg.eigvalsh(A + A.mT, "U").pow(3).sum()
    if kind in ("svd", "svd-full"):
        U, S, Vh = lib.linalg.svd(A, full_matrices=kind == "svd-full")
        k = S.shape[-1]
        u, vh = U[..., :, :k], Vh[..., :k, :]
        return (S * S).sum() + (u[..., :, :1] @ vh[..., :1, :]).mul(A).sum() + (vh[..., 1:, :] ** 2).mul(
            lib.arange(1.0, 1.0 + vh.shape[-1], dtype=S.dtype, device=S.device)).sum() + (u ** 2)[..., 0, :].sum()
    if kind == "svdvals":
        return lib.linalg.svdvals(A).pow(2).sum() + lib.linalg.svdvals(A)[..., 0].sum()
    if kind == "qr":
        Q, R = lib.linalg.qr(A)
        return (Q * A[..., :, :Q.shape[-1]]).sum() + (R * R).sum() + R[..., 0, :].sum()
    if kind == "qr-complete-wide":
        Q, R = lib.linalg.qr(A, "complete")
        return Q.pow(3).sum() + (R * lib.arange(1.0, 1.0 + R.shape[-1], dtype=R.dtype, device=R.device)).sum()
    if kind == "pinv":
        return lib.linalg.pinv(A).pow(2).sum()
    if kind == "nuc":
        return lib.linalg.matrix_norm(A, "nuc").sum() + lib.linalg.matrix_norm(A, 2).sum() + lib.linalg.cond(A).sum()
    raise AssertionError(kind)


GRAD_CASES = [("eigh", (4, 4)), ("eigh", (2, 3, 3)), ("eigvalsh", (5, 5)), ("svd", (5, 3)), ("svd", (3, 5)),
              ("svd", (2, 4, 4)), ("svd-full", (5, 3)), ("svd-full", (2, 5)), ("svdvals", (4, 6)), ("qr", (5, 3)),
              ("qr", (4, 4)), ("qr", (3, 5)), ("qr-complete-wide", (2, 4)), ("pinv", (4, 2)), ("pinv", (2, 4)),
              ("nuc", (3, 4))]


@needs_torch
@pytest.mark.parametrize("kind,shape", GRAD_CASES)
def test_gradients_match_torch(device, kind, shape):
    A = RNG.standard_normal(shape)
    a = mg(A, device, grad=True)
    _sign_free_losses(minigrad, a, kind).backward()
    t = torch.tensor(A, requires_grad=True)
    _sign_free_losses(torch, t, kind).backward()
    np.testing.assert_allclose(np_(a.grad), t.grad.numpy(), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("kind,shape", GRAD_CASES[:1] + GRAD_CASES[3:7] + GRAD_CASES[9:15])
def test_gradcheck(device, kind, shape):
    a = mg(RNG.standard_normal(shape), device, grad=True)
    fns = {"eigh": lambda x: minigrad.linalg.eigh(x + x.mT).eigenvalues,
           "svd": lambda x: minigrad.linalg.svd(x, full_matrices=False).S,
           "qr": lambda x: minigrad.linalg.qr(x),
           "qr-complete-wide": lambda x: minigrad.linalg.qr(x, "complete"),
           "pinv": lambda x: minigrad.linalg.pinv(x)}
    assert gradcheck(fns.get(kind, lambda x: _sign_free_losses(minigrad, x, kind)), (a,))


@needs_torch
def test_grad_fn_names():
    a = minigrad.tensor(RNG.standard_normal((3, 3)), requires_grad=True)
    t = torch.tensor(a.detach().numpy(), requires_grad=True)
    calls = [lambda L, x: L.linalg.eigh(x).eigenvalues, lambda L, x: L.linalg.eigvalsh(x),
             lambda L, x: L.linalg.svd(x).U, lambda L, x: L.linalg.svdvals(x), lambda L, x: L.svd(x).V,
             lambda L, x: L.linalg.qr(x).R, lambda L, x: L.linalg.qr(x, "r").Q, lambda L, x: L.linalg.pinv(x),
             lambda L, x: L.linalg.pinv(x + x.mT, hermitian=True), lambda L, x: L.linalg.cond(x),
             lambda L, x: L.linalg.matrix_norm(x, 2), lambda L, x: L.linalg.matrix_norm(x, -2),
             lambda L, x: L.linalg.matrix_norm(x, "nuc")]
    for call in calls:
        assert call(minigrad, a).grad_fn.name() == call(torch, t).grad_fn.name()


@needs_torch
def test_qr_backward_errors_and_repeated_values_give_nan():
    for lib in (minigrad, torch):
        x = lib.tensor(RNG.standard_normal((5, 3)), requires_grad=True)
        for mode, msg in (("complete", "The QR decomposition is not differentiable when mode='complete' and "
                                       "nrows > ncols."),
                          ("r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'.")):
            with pytest.raises(RuntimeError, match=msg.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
                lib.linalg.qr(x, mode).R.sum().backward()
        eye = lib.eye(3, dtype=lib.float64, requires_grad=True)
        lib.linalg.svd(eye).U.sum().backward()  # repeated singular values: no error, NaN (as torch)
        assert np.isnan(np_(eye.grad)).all()


def test_full_matrices_gradient_ignores_the_extra_columns(device):
    A = RNG.standard_normal((4, 2))
    a, b = mg(A, device, grad=True), mg(A, device, grad=True)
    U = minigrad.linalg.svd(a).U
    (U[:, :2] * U[:, :2]).sum().backward()
    (minigrad.linalg.svd(b).U ** 2).sum().backward()
    np.testing.assert_allclose(np_(a.grad), np_(b.grad), atol=1e-12)


@needs_torch
@pytest.mark.parametrize("p", ["fro", "nuc", 1, -1, float("inf"), -float("inf")])
def test_cond_other_orders_match_torch(device, p):
    A = RNG.standard_normal((2, 3, 3))
    A[1] = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]]  # singular
    a, t = mg(A, device, grad=True), torch.tensor(A, requires_grad=True)
    got, want = minigrad.linalg.cond(a, p), torch.linalg.cond(t, p)
    assert got.grad_fn.name() == want.grad_fn.name()
    np.testing.assert_allclose(np_(got)[0], want.detach().numpy()[0], rtol=1e-10)
    assert np_(got)[1] > 1e15 and want.detach().numpy()[1] > 1e15  # inf, or huge from rounding
    # torch's own backward fails here (its inv_ex output is masked_fill_-ed in place), so the
    # gradient is checked against finite differences
    assert gradcheck(lambda x: minigrad.linalg.cond(x, p), (mg(A[0], device, grad=True),))
