"""torch.linalg's LU and Cholesky families (lu_factor(_ex), lu, lu_solve, solve(_ex), inv(_ex), det,
slogdet, cholesky(_ex), solve_triangular; torch.inverse/det/logdet/slogdet/cholesky_solve/
cholesky_inverse/triangular_solve): values, dtypes, result types, nodes, gradients and errors
against torch 2.13 (CPU) on every device, plus the NumPy backend's factorizations against
NumPy's own linear algebra."""
import warnings

import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck, gradgradcheck
from minigrad.backends import numpy_backend as nb

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)


def well(*shape):
    """Well-conditioned square matrices (diagonally weighted), any batch."""
    n = shape[-1]
    return RNG.standard_normal(shape) + 2 * n ** 0.5 * np.eye(n) * RNG.choice([-1, 1], shape[:-2] + (1, n))


def spd(*shape):
    a = RNG.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def tri(upper, *shape):
    a = well(*shape)
    return np.triu(a) if upper else np.tril(a)


def t_of(lib, x, dtype="float64", device=None, grad=False):
    kw = {} if device is None else {"device": device}
    return lib.tensor(np.asarray(x), dtype=getattr(lib, dtype), requires_grad=grad, **kw)


def as_np(r):
    if isinstance(r, tuple):
        return tuple(as_np(x) for x in r)
    return r.detach().cpu().numpy()


def assert_close(a, b, dtype):
    tol = 1e-4 if dtype == "float32" else 1e-10
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_close(x, y, dtype)
        return
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    if a.dtype.kind == "f":
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(a, b)


def lu_inputs():
    return {
        "lu_factor": (lambda L, t: L.linalg.lu_factor(t(well(4, 4))), True),
        "lu_factor_batch": (lambda L, t: L.linalg.lu_factor(t(well(3, 5, 5))), True),
        "lu_factor_wide": (lambda L, t: L.linalg.lu_factor_ex(t(RNG.standard_normal((2, 3, 5)))), True),
        "lu_factor_tall": (lambda L, t: L.linalg.lu_factor_ex(t(RNG.standard_normal((5, 3)))), True),
        "lu_factor_ex_singular": (lambda L, t: L.linalg.lu_factor_ex(t([[1.0, 2.0], [2.0, 4.0]])), False),
        "lu": (lambda L, t: L.linalg.lu(t(well(2, 4, 4))), True),
        "lu_tall": (lambda L, t: L.linalg.lu(t(RNG.standard_normal((5, 3)))), True),
        "lu_wide": (lambda L, t: L.linalg.lu(t(RNG.standard_normal((3, 5)))), True),
        "lu_solve": (lambda L, t: L.linalg.lu_solve(*L.linalg.lu_factor(t(well(3, 4, 4))),
                                                    t(RNG.standard_normal((3, 4, 2)))), True),
        "lu_solve_adjoint_right": (lambda L, t: L.linalg.lu_solve(*L.linalg.lu_factor(t(well(4, 4))),
                                                                  t(RNG.standard_normal((2, 3, 4))), left=False,
                                                                  adjoint=True), True),
        "lu_solve_adjoint": (lambda L, t: L.linalg.lu_solve(*L.linalg.lu_factor(t(well(4, 4))),
                                                            t(RNG.standard_normal((4, 3))), adjoint=True), True),
        "inv": (lambda L, t: L.linalg.inv(t(well(2, 3, 5, 5))), True),
        "inv_ex": (lambda L, t: L.linalg.inv_ex(t(np.stack([well(3, 3), np.ones((3, 3))]))), False),
        "inverse": (lambda L, t: L.inverse(t(well(4, 4))), True),
        "inverse_method": (lambda L, t: t(well(4, 4)).inverse(), True),
        "inv_empty": (lambda L, t: L.linalg.inv(t(np.ones((3, 0, 0)))), False),
        "det": (lambda L, t: L.linalg.det(t(well(3, 4, 4))), True),
        "det_singular": (lambda L, t: L.det(t([[1.0, 2.0], [2.0, 4.0]])), False),
        "det_empty": (lambda L, t: L.linalg.det(t(np.ones((2, 0, 0)))), False),
        "det_method": (lambda L, t: t(well(3, 3)).det(), True),
        "slogdet": (lambda L, t: L.linalg.slogdet(t(well(3, 4, 4))), True),
        "slogdet_torch": (lambda L, t: L.slogdet(t(well(4, 4))), True),
        "slogdet_singular": (lambda L, t: t([[1.0, 2.0], [2.0, 4.0]]).slogdet(), False),
        "logdet": (lambda L, t: L.logdet(t(spd(2, 3, 3))), True),
        "logdet_negative": (lambda L, t: t([[-1.0, 0.0], [0.0, 2.0]]).logdet(), False),
        "solve": (lambda L, t: L.linalg.solve(t(well(3, 4, 4)), t(RNG.standard_normal((3, 4, 2)))), True),
        "solve_vector": (lambda L, t: L.linalg.solve(t(well(3, 4, 4)), t(RNG.standard_normal((3, 4)))), True),
        "solve_vector_1d": (lambda L, t: L.linalg.solve(t(well(3, 4, 4)), t(RNG.standard_normal(4))), True),
        "solve_broadcast": (lambda L, t: L.linalg.solve(t(well(4, 4)), t(RNG.standard_normal((2, 4, 3)))), True),
        "solve_right": (lambda L, t: L.linalg.solve(t(well(2, 4, 4)), t(RNG.standard_normal((2, 3, 4))),
                                                    left=False), True),
        "solve_ex": (lambda L, t: L.linalg.solve_ex(t(well(4, 4)), t(RNG.standard_normal((4, 1)))), True),
        "solve_empty": (lambda L, t: L.linalg.solve(t(np.ones((0, 0))), t(np.ones((0, 3)))), False),
        "cholesky": (lambda L, t: L.linalg.cholesky(t(spd(3, 5, 5))), True),
        "cholesky_upper": (lambda L, t: L.linalg.cholesky(t(spd(4, 4)), upper=True), True),
        "cholesky_reads_one_triangle": (lambda L, t: L.linalg.cholesky(t(np.tril(spd(4, 4)))), False),
        "cholesky_ex": (lambda L, t: L.linalg.cholesky_ex(t(np.stack([spd(3, 3), -spd(3, 3)]))).info, False),
        "cholesky_solve": (lambda L, t: L.cholesky_solve(t(RNG.standard_normal((2, 4, 3))),
                                                         t(np.linalg.cholesky(spd(4, 4)))), True),
        "cholesky_solve_upper": (lambda L, t: t(RNG.standard_normal((4, 2))).cholesky_solve(
            t(np.linalg.cholesky(spd(4, 4)).T), upper=True), True),
        "cholesky_inverse": (lambda L, t: L.cholesky_inverse(t(np.linalg.cholesky(spd(2, 4, 4)))), True),
        "cholesky_inverse_upper": (lambda L, t: t(np.linalg.cholesky(spd(4, 4)).T).cholesky_inverse(True), True),
        "solve_triangular": (lambda L, t: L.linalg.solve_triangular(t(tri(True, 3, 4, 4)),
                                                                    t(RNG.standard_normal((3, 4, 2))), upper=True),
                             True),
        "solve_triangular_lower_right_unit": (lambda L, t: L.linalg.solve_triangular(
            t(tri(False, 4, 4)), t(RNG.standard_normal((2, 3, 4))), upper=False, left=False, unitriangular=True),
            True),
        "triangular_solve": (lambda L, t: L.triangular_solve(t(RNG.standard_normal((4, 2))), t(tri(False, 4, 4)),
                                                             upper=False), True),
        "triangular_solve_transpose": (lambda L, t: t(RNG.standard_normal((4, 2))).triangular_solve(
            t(tri(True, 4, 4)), transpose=True, unitriangular=True), True),
    }


CASES = lu_inputs()


def _run(lib, fn, dtype, device, state):
    rng = np.random.default_rng(state)
    global RNG
    RNG = rng
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(lib, lambda x: t_of(lib, x, dtype, device if lib is minigrad else None))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(CASES))
def test_values_against_torch(device, name, dtype):
    fn, _ = CASES[name]
    ours, theirs = _run(minigrad, fn, dtype, device, 1), _run(torch, fn, dtype, None, 1)
    assert type(ours).__name__ == type(theirs).__name__
    if isinstance(theirs, tuple):  # named fields, read by name
        assert len(ours) == len(theirs)
        ours, theirs = (tuple(getattr(r, f) for f in ours._fields) for r in (ours, theirs))
    assert_close(as_np(ours), as_np(theirs), dtype)


def _grad_outputs(r):
    outs = r if isinstance(r, tuple) else (r,)
    return [o for o in outs if o.dtype.is_floating_point and o.requires_grad]


def _grads(lib, fn, device):
    leaves = []

    def t(x):
        leaf = t_of(lib, x, "float64", device if lib is minigrad else None, grad=True)
        leaves.append(leaf)
        return leaf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = fn(lib, t)
    outs = _grad_outputs(r)
    names = [o.grad_fn.name() for o in outs]
    rng = np.random.default_rng(3)
    loss = sum((o * t_of(lib, rng.standard_normal(tuple(o.shape)), "float64",
                         device if lib is minigrad else None)).sum() for o in outs)
    loss.backward()
    return names, [None if x.grad is None else x.grad.cpu().numpy() for x in leaves]


@pytest.mark.parametrize("name", [n for n, (_, diff) in CASES.items() if diff])
def test_gradients_and_nodes_against_torch(device, name):
    fn, _ = CASES[name]
    global RNG
    RNG = np.random.default_rng(11)
    ours = _grads(minigrad, fn, device)
    RNG = np.random.default_rng(11)
    theirs = _grads(torch, fn, None)
    assert ours[0] == theirs[0]
    assert len(ours[1]) == len(theirs[1])
    for a, b in zip(ours[1], theirs[1]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("create_graph", [False, True])
def test_det_gradient_of_singular_matrices_as_torch(device, create_graph):
    """torch's first-order backward gives 0 where det == 0; with create_graph, the cofactor
    matrix (torch: from an SVD; here from the minors' determinants)."""
    x = np.array([[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], [[2.0, 1.0, 0.0], [1.0, 3.0, 1.0],
                                                                         [0.0, 1.0, 4.0]],
                  [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0]]])
    grads = []
    for lib, kw in ((minigrad, {"device": device}), (torch, {})):
        A = lib.tensor(x, requires_grad=True, **kw)
        g, = lib.autograd.grad(lib.linalg.det(A).sum(), A, create_graph=create_graph)
        grads.append(g.detach().cpu().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-10)
    if create_graph:
        assert np.abs(grads[0][0]).max() > 1  # the adjugate of a rank-2 matrix is not zero


GRADCHECK = {
    "inv": lambda A: minigrad.linalg.inv(A),
    "det": lambda A: minigrad.linalg.det(A),
    "slogdet": lambda A: minigrad.linalg.slogdet(A).logabsdet,
    "solve": lambda A: minigrad.linalg.solve(A, A.sum(-1)),
    "lu_factor": lambda A: minigrad.linalg.lu_factor(A).LU,
    "lu": lambda A: minigrad.linalg.lu(A)[1:],
    "cholesky": lambda A: minigrad.linalg.cholesky(A @ A.mT + 4 * minigrad.eye(3, dtype=A.dtype, device=A.device)),
    "solve_triangular": lambda A: minigrad.linalg.solve_triangular(A.triu(), A.tril(), upper=True),
    "cholesky_solve": lambda A: minigrad.cholesky_solve(A, A.tril() + 3 * minigrad.eye(3, dtype=A.dtype,
                                                                                       device=A.device)),
    "cholesky_inverse": lambda A: minigrad.cholesky_inverse(A.tril() + 3 * minigrad.eye(3, dtype=A.dtype,
                                                                                        device=A.device)),
    "lu_solve": lambda A: minigrad.linalg.lu_solve(*minigrad.linalg.lu_factor(A), A.mT, adjoint=True),
}


@pytest.mark.parametrize("name", list(GRADCHECK))
def test_gradcheck(device, name):
    A = minigrad.tensor(well(2, 3, 3), dtype=minigrad.float64, requires_grad=True, device=device)
    assert gradcheck(GRADCHECK[name], (A,))


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "solve", "cholesky", "solve_triangular"])
def test_gradgradcheck(device, name):
    A = minigrad.tensor(well(3, 3), dtype=minigrad.float64, requires_grad=True, device=device)
    assert gradgradcheck(GRADCHECK[name], (A,))


def outcome(lib, fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(lib)
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, str(e).replace("torch.", "minigrad.")
    return "ok", None


I = [[1.0, 0.0], [0.0, 1.0]]
S = [[1.0, 2.0], [2.0, 4.0]]
ERRORS = {
    "inv-int": lambda L: L.linalg.inv(L.ones(2, 2, dtype=L.int64)),
    "inverse-bool": lambda L: L.inverse(L.ones(2, 2, dtype=L.bool)),
    "inv-1d": lambda L: L.linalg.inv(L.ones(2)),
    "inv-nonsquare": lambda L: L.linalg.inv(L.ones(4, 2, 3)),
    "inv-singular": lambda L: L.linalg.inv(L.tensor(S)),
    "inv-singular-batch": lambda L: L.linalg.inv(L.stack([L.tensor(I), L.tensor(S), L.zeros(2, 2)])),
    "inv_ex-check": lambda L: L.linalg.inv_ex(L.zeros(2, 2), check_errors=True),
    "inv-list": lambda L: L.linalg.inv(I),
    "inverse-list": lambda L: L.inverse(I),
    "det-int": lambda L: L.linalg.det(L.ones(2, 2, dtype=L.int64)),
    "det-torch-int": lambda L: L.det(L.ones(2, 2, dtype=L.int64)),
    "det-1d": lambda L: L.linalg.det(L.ones(2)),
    "det-nonsquare": lambda L: L.linalg.det(L.ones(2, 3)),
    "det-list": lambda L: L.linalg.det(I),
    "slogdet-int": lambda L: L.linalg.slogdet(L.ones(2, 2, dtype=L.int64)),
    "slogdet-nonsquare": lambda L: L.slogdet(L.ones(2, 3)),
    "logdet-int": lambda L: L.logdet(L.ones(2, 2, dtype=L.int64)),
    "logdet-nonsquare": lambda L: L.logdet(L.ones(2, 3)),
    "lu_factor-singular": lambda L: L.linalg.lu_factor(L.tensor(S)),
    "lu_factor-zero": lambda L: L.linalg.lu_factor(L.zeros(2, 2)),
    "lu_factor_ex-check": lambda L: L.linalg.lu_factor_ex(L.zeros(2, 2), check_errors=True),
    "lu_factor-int": lambda L: L.linalg.lu_factor(L.ones(2, 2, dtype=L.int64)),
    "lu_factor-1d": lambda L: L.linalg.lu_factor(L.ones(2)),
    "lu_factor-no-pivot": lambda L: L.linalg.lu_factor(L.tensor(I), pivot=False),
    "lu_factor-list": lambda L: L.linalg.lu_factor(I),
    "lu-int": lambda L: L.linalg.lu(L.ones(2, 2, dtype=L.int64)),
    "solve-singular": lambda L: L.linalg.solve(L.tensor(S), L.ones(2)),
    "solve_ex-check": lambda L: L.linalg.solve_ex(L.zeros(2, 2), L.ones(2), check_errors=True),
    "solve-mismatch": lambda L: L.linalg.solve(L.tensor(I), L.ones(3)),
    "solve-mismatch-matrix": lambda L: L.linalg.solve(L.tensor(I), L.ones(3, 1)),
    "solve-batch-mismatch": lambda L: L.linalg.solve(L.eye(2).expand(3, 2, 2), L.ones(4, 2, 1)),
    "solve-right-vector": lambda L: L.linalg.solve(L.tensor(I), L.ones(2), left=False),
    "solve-dtype": lambda L: L.linalg.solve(L.tensor(I), L.ones(2, dtype=L.float64)),
    "solve-int": lambda L: L.linalg.solve(L.eye(2, dtype=L.int64), L.ones(2, dtype=L.int64)),
    "solve-1d": lambda L: L.linalg.solve(L.ones(2), L.ones(2)),
    "solve-nonsquare": lambda L: L.linalg.solve(L.ones(2, 3), L.ones(2)),
    "solve-list": lambda L: L.linalg.solve(L.tensor(I), [1.0, 2.0]),
    "cholesky-not-pd": lambda L: L.linalg.cholesky(-L.eye(2)),
    "cholesky-not-pd-batch": lambda L: L.linalg.cholesky(L.stack([L.eye(2), -L.eye(2)])),
    "cholesky-minor-2": lambda L: L.linalg.cholesky(L.tensor([[4.0, 2.0], [9.0, 5.0]])),
    "cholesky_ex-check": lambda L: L.linalg.cholesky_ex(-L.eye(2), check_errors=True),
    "cholesky-int": lambda L: L.linalg.cholesky(L.eye(2, dtype=L.int64)),
    "cholesky-1d": lambda L: L.linalg.cholesky(L.ones(2)),
    "cholesky-nonsquare": lambda L: L.linalg.cholesky(L.ones(2, 3)),
    "cholesky-list": lambda L: L.linalg.cholesky([1.0]),
    "solve_triangular-1d": lambda L: L.linalg.solve_triangular(L.tensor(I), L.ones(2), upper=True),
    "solve_triangular-mismatch": lambda L: L.linalg.solve_triangular(L.tensor(I), L.ones(3, 1), upper=True),
    "solve_triangular-right-mismatch": lambda L: L.linalg.solve_triangular(L.tensor(I), L.ones(2, 3), upper=True,
                                                                           left=False),
    "solve_triangular-nonsquare": lambda L: L.linalg.solve_triangular(L.ones(2, 3), L.ones(2, 1), upper=True),
    "solve_triangular-int": lambda L: L.linalg.solve_triangular(L.eye(2, dtype=L.int64),
                                                                L.ones(2, 1, dtype=L.int64), upper=True),
    "cholesky_solve-1d": lambda L: L.cholesky_solve(L.ones(2), L.tensor(I)),
    "cholesky_solve-mismatch": lambda L: L.cholesky_solve(L.ones(3, 1), L.tensor(I)),
    "cholesky_solve-dtype": lambda L: L.cholesky_solve(L.ones(2, 1), L.eye(2, dtype=L.float64)),
    "cholesky_solve-int": lambda L: L.cholesky_solve(L.ones(2, 1, dtype=L.int64), L.eye(2, dtype=L.int64)),
    "cholesky_inverse-1d": lambda L: L.cholesky_inverse(L.ones(2)),
    "cholesky_inverse-nonsquare": lambda L: L.cholesky_inverse(L.ones(2, 3)),
    "cholesky_inverse-singular": lambda L: L.cholesky_inverse(L.zeros(2, 2)),
    "cholesky_inverse-int": lambda L: L.cholesky_inverse(L.eye(2, dtype=L.int64)),
    "triangular_solve-1d": lambda L: L.triangular_solve(L.ones(2), L.tensor(I)),
    "triangular_solve-mismatch": lambda L: L.triangular_solve(L.ones(3, 1), L.tensor(I)),
    "triangular_solve-dtype": lambda L: L.triangular_solve(L.ones(2, 1), L.eye(2, dtype=L.float64)),
    "lu_solve-mismatch": lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.tensor(I)), L.ones(3, 1)),
    "lu_solve-1d": lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.tensor(I)), L.ones(2)),
    "lu_solve-pivots-dtype": lambda L: L.linalg.lu_solve(L.tensor(I), L.ones(2, dtype=L.int64), L.ones(2, 1)),
    "lu_solve-pivots-shape": lambda L: L.linalg.lu_solve(L.tensor(I), L.ones(3, dtype=L.int32), L.ones(2, 1)),
    "lu_solve-bad-pivots": lambda L: L.linalg.lu_solve(L.tensor(I), L.tensor([5, 0], dtype=L.int32), L.ones(2, 3)),
    "lu_solve-dtype": lambda L: L.linalg.lu_solve(L.tensor(I), L.ones(2, dtype=L.int32), L.ones(2, 1,
                                                                                           dtype=L.float64)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_torch(name):
    theirs = outcome(torch, ERRORS[name])
    assert theirs[0] != "ok"
    assert outcome(minigrad, ERRORS[name]) == theirs


def test_ex_variants_report_info_instead_of_raising(device):
    L = minigrad.linalg
    A = minigrad.tensor([I, S, [[0.0, 0.0], [0.0, 0.0]]], device=device)
    assert L.inv_ex(A).info.tolist() == [0, 2, 1]
    assert L.lu_factor_ex(A).info.tolist() == [0, 2, 1]
    assert L.solve_ex(A, minigrad.ones(3, 2, device=device)).info.tolist() == [0, 2, 1]
    assert L.cholesky_ex(minigrad.stack([-minigrad.eye(2), minigrad.eye(2)]).to(device)).info.tolist() == [1, 0]
    assert L.lu_factor_ex(A).info.dtype == minigrad.int32


def test_device_mismatch():
    if not minigrad.cuda.is_available():
        pytest.skip("needs a second device")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        minigrad.linalg.solve(minigrad.eye(2, device="cuda"), minigrad.ones(2))


def test_linalg_error_is_a_runtime_error():
    assert issubclass(minigrad.linalg.LinAlgError, RuntimeError)
    with pytest.raises(minigrad.linalg.LinAlgError):
        minigrad.linalg.inv(minigrad.zeros(2, 2))


# ---- the NumPy backend's primitives (the kernels' models) against NumPy's linear algebra ----

@pytest.mark.parametrize("shape", [(1, 1), (5, 5), (3, 6, 6), (2, 4, 7), (2, 7, 4), (0, 3, 3), (37, 37)])
def test_numpy_lu_factor_reconstructs(shape):
    a = RNG.standard_normal(shape)
    lu, piv, info = nb.lu_factor(a)
    m, n = shape[-2:]
    k = min(m, n)
    L = np.tril(lu[..., :, :k], -1) + np.eye(m, k)
    U = np.triu(lu[..., :k, :])
    pa = a.reshape((-1, m, n)).copy()
    for b, p in enumerate(piv.reshape(-1, k)):
        for i, pi in enumerate(p):
            pa[b, [i, pi - 1]] = pa[b, [pi - 1, i]]
    np.testing.assert_allclose((L @ U).reshape(pa.shape), pa, atol=1e-12)
    assert (info == 0).all() and piv.dtype == np.int32 and info.dtype == np.int32


def test_numpy_pivot_ties_go_to_the_lowest_row_and_nan_never_wins():
    lu, piv, _ = nb.lu_factor(np.array([[1.0, 0.0, 0.0], [-3.0, 1.0, 0.0], [3.0, 0.0, 1.0]]))
    assert piv[0] == 2
    _, piv, _ = nb.lu_factor(np.array([[1.0, 1.0], [np.nan, 1.0]]))
    assert piv[0] == 1


@pytest.mark.parametrize("n, k", [(1, 1), (6, 3), (33, 1), (5, 0)])
def test_numpy_solves(n, k):
    a, b = well(2, n, n), RNG.standard_normal((2, n, k))
    lu, piv, _ = nb.lu_factor(a)
    np.testing.assert_allclose(nb.lu_solve(lu, piv, b, False), np.linalg.solve(a, b), atol=1e-10)
    np.testing.assert_allclose(nb.lu_solve(lu, piv, b, True), np.linalg.solve(np.swapaxes(a, -1, -2), b),
                               atol=1e-10)
    for lower in (True, False):
        for trans in (True, False):
            m = np.tril(a) if lower != trans else np.triu(a)
            x = nb.triangular_solve(m, b, lower, trans, False)
            np.testing.assert_allclose((np.swapaxes(m, -1, -2) if trans else m) @ x, b, atol=1e-10)
    s = spd(3, n, n)
    L, info = nb.cholesky(s)
    np.testing.assert_allclose(L, np.linalg.cholesky(s), atol=1e-10)
    assert (info == 0).all()
