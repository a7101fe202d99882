"""The rest of torch's math (minigrad/ops/math_more.py): the float functions with their own kernels
(tan ... rsqrt; atan2, hypot, logaddexp, logaddexp2, copysign, xlogy) and the ops composed from
existing ones (sinc ... aminmax). Values (special values included), dtypes, node names, gradients
and errors are compared with torch's on every device; gradients also by gradcheck in float64."""
import warnings

import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck

try:
    import torch
except ImportError:
    torch = None

INF, NAN = float("inf"), float("nan")
rng = np.random.default_rng(7)


def _dev(device):
    return {} if device in (None, "cpu") else {"device": device}


def _np(x):
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


def _outcome(fn, lib, device):
    """Each result's (dtype, shape, values, node name), or (error type, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(lib, _dev(device) if lib is minigrad else {})
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        # torch's CUDA kernels name themselves <op>_cuda where its CPU ones say <op>_cpu
        return type(e).__name__, str(e).replace("torch", "minigrad").replace('_cuda"', '_cpu"')
    rs = tuple(r) if isinstance(r, (tuple, list)) else (r,)
    return [(str(t.dtype).split(".")[-1], tuple(t.shape), _np(t),
             type(t.grad_fn).__name__ if t.grad_fn is not None else None) for t in rs]


def same_as_torch(fn, device, rtol=None, node=True):
    if torch is None:
        pytest.skip("torch is not installed")
    got, want = _outcome(fn, minigrad, device), _outcome(fn, torch, None)
    if isinstance(want, tuple) or isinstance(got, tuple):
        assert got == want, f"\nminigrad: {got}\ntorch:    {want}"
        return got
    assert len(got) == len(want)
    for (gd, gs, gv, gn), (wd, ws, wv, wn) in zip(got, want):
        assert (gd, gs) == (wd, ws), f"minigrad {gd}{gs}, torch {wd}{ws}"
        if node:
            assert gn == wn, f"node: minigrad {gn}, torch {wn}"
        tol = rtol if rtol is not None else (2e-6 if gd == "float32" else 1e-12)
        if gv.dtype.kind == "f":
            np.testing.assert_allclose(gv, wv, rtol=tol, atol=tol, equal_nan=True)
            # infinities and signs of zeros as torch's
            zeros = (gv == 0) & (wv == 0)
            assert np.array_equal(np.isinf(gv), np.isinf(wv))
            assert np.array_equal(np.signbit(gv[zeros]), np.signbit(wv[zeros]))
        else:
            assert np.array_equal(gv, wv)
    return got


def grads_as_torch(fn, inputs, device, rtol=1e-10):
    """fn(lib, *tensors) summed with a fixed cotangent: gradients of every input as torch's."""
    if torch is None:
        pytest.skip("torch is not installed")
    res = {}
    for lib in (minigrad, torch):
        kw = _dev(device) if lib is minigrad else {}
        ts = [lib.tensor(a, requires_grad=True, **kw) for a in inputs]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(lib, *ts)
        out = out[0] if isinstance(out, tuple) else out
        w = lib.tensor(np.linspace(-1.0, 2.0, max(out.numel(), 1)).reshape(out.shape), dtype=out.dtype, **kw)
        (out * w).sum().backward()
        res[lib] = [_np(t.grad) if t.grad is not None else None for t in ts]
    for g, w in zip(res[minigrad], res[torch]):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True)


# ---- unary float functions with their own kernels ------------------------------------------------

UNARY_DOMAIN = {"tan": (-1.4, 1.4), "asin": (-0.95, 0.95), "acos": (-0.95, 0.95), "atan": (-5, 5),
                "sinh": (-5, 5), "cosh": (-5, 5), "asinh": (-5, 5), "acosh": (1.05, 6), "atanh": (-0.95, 0.95),
                "log2": (0.05, 5), "log10": (0.05, 5), "exp2": (-5, 5), "rsqrt": (0.05, 5)}
SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 1e-8, 100.0, -100.0, 1000.0, INF, -INF, NAN]
ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
           "arctanh": "atanh"}


@pytest.mark.parametrize("name", list(UNARY_DOMAIN) + list(ALIASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_values(device, name, dtype):
    lo, hi = UNARY_DOMAIN[ALIASES.get(name, name)]
    x = np.concatenate([rng.uniform(lo, hi, 300), SPECIAL]).astype(dtype)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(x, **kw)), device)
    same_as_torch(lambda L, kw: getattr(L.tensor(x, **kw).reshape(2, -1).t(), name)(), device)  # strided
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(x[:0], **kw)), device)                 # empty
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(x[3], **kw)), device)                  # 0-d


@pytest.mark.parametrize("name", UNARY_DOMAIN)
def test_unary_promotes_integers_and_bools(device, name):
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor([1, 2, 3], **kw)), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor([True, False], **kw)), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor([1, 2], dtype=L.int32, **kw)), device)


@pytest.mark.parametrize("name", list(UNARY_DOMAIN) + list(ALIASES))
def test_unary_inplace(device, name):
    lo, hi = UNARY_DOMAIN[ALIASES.get(name, name)]
    x = rng.uniform(lo, hi, 7)

    def inplace(L, kw):
        t = L.tensor(x, **kw)
        r = getattr(t, name + "_")()
        assert r is t
        return t
    same_as_torch(inplace, device)
    same_as_torch(lambda L, kw: getattr(L.tensor([1, 2], **kw), name + "_")(), device)  # Float into Long
    # recorded in place on a non-leaf: the node and the gradient through it as torch's (whose
    # asinh_, acosh_ and atanh_ have no derivative: minigrad's give the out-of-place gradient)
    if ALIASES.get(name, name) not in ("asinh", "acosh", "atanh"):
        grads_as_torch(lambda L, a: getattr(a * 1, name + "_")(), [x], device)


@pytest.mark.parametrize("name", UNARY_DOMAIN)
def test_unary_gradients(device, name):
    lo, hi = UNARY_DOMAIN[name]
    x = rng.uniform(lo, hi, (3, 4))
    grads_as_torch(lambda L, a: getattr(L, name)(a), [x], device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(x, requires_grad=True, **kw)), device)
    a = minigrad.tensor(x, requires_grad=True, **_dev(device))
    assert gradcheck(lambda t: getattr(t, name)(), (a,), eps=1e-6, atol=1e-5)


def test_unary_function_errors(device):
    same_as_torch(lambda L, kw: L.tan([1.0]), device)
    same_as_torch(lambda L, kw: L.rsqrt(2.0), device)


# ---- binary float functions with their own kernels -----------------------------------------------

BINARY = ["atan2", "arctan2", "hypot", "logaddexp", "logaddexp2", "copysign", "xlogy"]
BSPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 1e-8, 50.0, -800.0, INF, -INF, NAN]


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_values(device, name, dtype):
    a = np.repeat(BSPECIAL, len(BSPECIAL)).astype(dtype)
    b = np.tile(BSPECIAL, len(BSPECIAL)).astype(dtype)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(a, **kw), L.tensor(b, **kw)), device)
    x, y = rng.uniform(-3, 3, (3, 1, 4)).astype(dtype), rng.uniform(0.1, 3, (5, 1)).astype(dtype)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(x, **kw), L.tensor(y, **kw)), device)   # broadcast
    same_as_torch(lambda L, kw: getattr(L.tensor(y, **kw), name)(L.tensor(x, **kw)), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(x, **kw).transpose(0, 2), L.tensor(x[0, 0], **kw)),
                  device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(x[:, :, :0], **kw), L.tensor(y, **kw)), device)


@pytest.mark.parametrize("name", BINARY)
def test_binary_dtypes_and_scalars(device, name):
    i, f32 = np.array([1, 0, -2, 3]), np.array([0.5, -1.5, 2.0, 0.0], np.float32)
    cases = [
        lambda L, kw: getattr(L, name)(L.tensor(i, **kw), L.tensor(i[::-1].copy(), **kw)),
        lambda L, kw: getattr(L, name)(L.tensor(i, **kw), L.tensor(f32, **kw)),
        lambda L, kw: getattr(L, name)(L.tensor(f32, **kw), L.tensor(f32, dtype=L.float64, **kw)),
        lambda L, kw: getattr(L, name)(L.tensor([True, False], **kw), L.tensor([True, True], **kw)),
        lambda L, kw: getattr(L, name)(L.tensor(f32, **kw), 2.0),
        lambda L, kw: getattr(L, name)(L.tensor(f32, **kw), -3),
        lambda L, kw: getattr(L, name)(L.tensor(i, **kw), 2.5),
        lambda L, kw: getattr(L, name)(2.0, L.tensor(f32, **kw)),
        lambda L, kw: getattr(L, name)(3, L.tensor(i, **kw)),
        lambda L, kw: getattr(L.tensor(f32, **kw), name)(2.0),
        lambda L, kw: getattr(L.tensor(f32, **kw), name)("x"),
        lambda L, kw: getattr(L, name)(L.tensor(f32, **kw), L.tensor([1.0, 2.0], **kw)),
        lambda L, kw: getattr(L, name)(L.tensor(f32, **kw), L.tensor(2.0, dtype=L.float64, **kw)),
    ]
    for case in cases:
        same_as_torch(case, device)


@pytest.mark.parametrize("name", ["atan2", "arctan2", "hypot", "copysign", "xlogy"])
def test_binary_inplace(device, name):
    x, y = rng.uniform(-2, 2, (2, 3)), rng.uniform(0.1, 2, (3,))

    def inplace(L, kw):
        t = L.tensor(x, **kw)
        r = getattr(t, name + "_")(L.tensor(y, **kw))
        assert r is t
        return t
    same_as_torch(inplace, device)
    same_as_torch(lambda L, kw: getattr(L.tensor(x, **kw), name + "_")(2.0), device)
    same_as_torch(lambda L, kw: getattr(L.tensor([1, 2], **kw), name + "_")(L.tensor([1.0, 2.0], **kw)), device)
    same_as_torch(lambda L, kw: getattr(L.tensor(y, **kw), name + "_")(L.tensor(x, **kw)), device)  # would grow
    grads_as_torch(lambda L, a, b: getattr(a * 1, name + "_")(b), [x, y], device)


@pytest.mark.parametrize("name", BINARY)
def test_binary_gradients(device, name):
    x, y = rng.uniform(0.2, 2, (2, 3)) * rng.choice([-1, 1], (2, 3)), rng.uniform(0.2, 2, (3,))
    grads_as_torch(lambda L, a, b: getattr(L, name)(a, b), [x, y], device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(x, requires_grad=True, **kw), L.tensor(y, **kw)),
                  device)
    a = minigrad.tensor(x, requires_grad=True, **_dev(device))
    b = minigrad.tensor(y, requires_grad=name != "copysign", **_dev(device))
    assert gradcheck(lambda s, t: getattr(minigrad, name)(s, t), (a, b), eps=1e-6, atol=1e-5)
    if name in ("copysign", "xlogy"):   # a number other, and (xlogy) a number self
        grads_as_torch(lambda L, a: getattr(L, name)(a, 2.5), [x], device)
        same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(x, requires_grad=True, **kw), 2.5), device)
    if name == "xlogy":
        grads_as_torch(lambda L, b: L.xlogy(1.5, b), [y], device)
        same_as_torch(lambda L, kw: L.xlogy(1.5, L.tensor(y, requires_grad=True, **kw)), device)
        # zeros in x: torch's masked gradient
        grads_as_torch(lambda L, a, b: L.xlogy(a, b), [np.array([0.0, 0.0, 1.0]), np.array([0.0, 2.0, 3.0])],
                       device)


# ---- composed elementwise ops --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sinc_deg_rad(device, dtype):
    x = np.concatenate([rng.uniform(-4, 4, 50), [0.0, -0.0, 1.0, -2.0, 0.5, INF, NAN]]).astype(dtype)
    for name in ("sinc", "deg2rad", "rad2deg"):
        same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(x, **kw)), device)
        same_as_torch(lambda L, kw: getattr(L, name)(L.tensor([0, 1, 2], **kw)), device)
        same_as_torch(lambda L, kw: getattr(L.tensor(x, **kw), name + "_")(), device)
        same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(x, requires_grad=True, **kw)), device)
        grads_as_torch(lambda L, a: getattr(L, name)(a), [np.append(rng.uniform(-3, 3, 9), 0.0)], device)


def test_square_(device):
    same_as_torch(lambda L, kw: L.tensor([1.5, -2.0], **kw).square_(), device)
    same_as_torch(lambda L, kw: L.tensor([3, -2], **kw).square_(), device)
    grads_as_torch(lambda L, a: (a * 1).square_(), [[1.5, -2.0]], device)


def test_heaviside(device):
    x = np.array([-1.0, 0.0, -0.0, 2.0, NAN, INF])
    same_as_torch(lambda L, kw: L.heaviside(L.tensor(x, **kw), L.tensor([0.5], **kw)), device)
    same_as_torch(lambda L, kw: L.tensor(x, **kw).heaviside(L.tensor(x[::-1].copy(), **kw)), device)
    same_as_torch(lambda L, kw: L.heaviside(L.tensor([1, 0, -1], **kw), L.tensor([5], **kw)), device)
    same_as_torch(lambda L, kw: L.heaviside(L.tensor([True, False], **kw), L.tensor([True], **kw)), device)
    same_as_torch(lambda L, kw: L.heaviside(L.tensor(x, **kw), L.tensor([1], **kw)), device)
    same_as_torch(lambda L, kw: L.tensor(x, **kw).heaviside_(L.tensor([2.0], **kw)), device)
    same_as_torch(lambda L, kw: L.heaviside(L.tensor(x, requires_grad=True, **kw), L.tensor([0.5], **kw)), device)


# ---- shape ops -----------------------------------------------------------------------------------

def test_roll_rot90(device):
    x = rng.standard_normal((3, 4, 2))
    cases = [lambda L, kw: L.roll(L.tensor(x, **kw), 1), lambda L, kw: L.roll(L.tensor(x, **kw), -5, 1),
             lambda L, kw: L.roll(L.tensor(x, **kw), (1, 7), (0, -1)),
             lambda L, kw: L.tensor(x, **kw).roll(2, dims=0),
             lambda L, kw: L.roll(L.tensor(x, **kw), (1, 2), 0), lambda L, kw: L.roll(L.tensor(x, **kw), (), ()),
             lambda L, kw: L.roll(L.tensor(x[:0], **kw), 3, 0), lambda L, kw: L.roll(L.tensor(x, **kw), 1, 3),
             lambda L, kw: L.roll(L.tensor(x, requires_grad=True, **kw), 1, 0)]
    for k in (-1, 0, 1, 2, 3, 6):
        cases.append(lambda L, kw, k=k: L.rot90(L.tensor(x, requires_grad=True, **kw), k, (0, 2)))
        cases.append(lambda L, kw, k=k: L.tensor(x, **kw).rot90(k))
    cases += [lambda L, kw: L.rot90(L.tensor(x, **kw), 1, (0,)), lambda L, kw: L.rot90(L.tensor([1.0], **kw)),
              lambda L, kw: L.rot90(L.tensor(x, **kw), 1, (0, 0)), lambda L, kw: L.rot90(L.tensor(x, **kw), 1, (0, 5)),
              lambda L, kw: L.rot90(L.tensor(x, **kw), 1, (0, -3))]
    for case in cases:
        same_as_torch(case, device)
    grads_as_torch(lambda L, a: L.roll(a, (1, -2), (0, 1)), [x], device)
    grads_as_torch(lambda L, a: L.rot90(a, 3, (2, 1)), [x], device)


def test_diff(device):
    x = rng.standard_normal((3, 5))
    cases = [lambda L, kw: L.diff(L.tensor(x, **kw)), lambda L, kw: L.diff(L.tensor(x, **kw), n=2, dim=0),
             lambda L, kw: L.diff(L.tensor(x, **kw), n=9),
             lambda L, kw: L.diff(L.tensor(x, **kw), prepend=L.tensor(x[:, :2], **kw), append=L.tensor(x, **kw)),
             lambda L, kw: L.tensor([3, 1, 4, 1, 5], **kw).diff(),
             lambda L, kw: L.diff(L.tensor([True, False, False, True], **kw)),
             lambda L, kw: L.diff(L.tensor(1.0, **kw)), lambda L, kw: L.diff(L.tensor(x, **kw), n=-1),
             lambda L, kw: L.diff(L.tensor(x, **kw), prepend=L.tensor([1.0], **kw)),
             lambda L, kw: L.diff(L.tensor(x, **kw), prepend=1.0),
             lambda L, kw: L.diff(L.tensor(x, requires_grad=True, **kw), n=2)]
    for case in cases:
        same_as_torch(case, device)
    grads_as_torch(lambda L, a, p: L.diff(a, n=2, dim=0, prepend=p), [x, x[:1]], device)


def test_meshgrid_cartesian_prod(device):
    a, b, c = [1.0, 2.0, 3.0], [4.0, 5.0], [6.0, 7.0, 8.0, 9.0]
    for indexing in ("ij", "xy"):
        same_as_torch(lambda L, kw: L.meshgrid(L.tensor(a, **kw), L.tensor(b, **kw), L.tensor(c, **kw),
                                               indexing=indexing), device)
        same_as_torch(lambda L, kw: L.meshgrid([L.tensor(a, **kw), L.tensor(5.0, **kw)], indexing=indexing), device)
        same_as_torch(lambda L, kw: L.meshgrid(L.tensor(a, **kw), indexing=indexing), device)
    same_as_torch(lambda L, kw: L.meshgrid(L.tensor(a, **kw), L.tensor(b, **kw)), device)
    with pytest.warns(UserWarning, match="indexing argument"):
        minigrad.meshgrid(minigrad.tensor(a))
    errors = [lambda L, kw: L.meshgrid(L.tensor(a, **kw), L.tensor([1], **kw), indexing="ij"),
              lambda L, kw: L.meshgrid(L.tensor(a, **kw), indexing="zz"), lambda L, kw: L.meshgrid(indexing="ij")]
    for case in errors:
        same_as_torch(case, device)
    for case in [lambda L, kw: L.cartesian_prod(L.tensor(a, **kw), L.tensor(b, **kw), L.tensor(c, **kw)),
                 lambda L, kw: L.cartesian_prod(L.tensor([1, 2], **kw), L.tensor([3], **kw)),
                 lambda L, kw: L.cartesian_prod(L.tensor(a, **kw)),
                 lambda L, kw: L.cartesian_prod(L.tensor([a], **kw)),
                 lambda L, kw: L.cartesian_prod(L.tensor(a, requires_grad=True, **kw), L.tensor(b, **kw))]:
        same_as_torch(case, device)
    grads_as_torch(lambda L, x, y: L.meshgrid(x, y, indexing="xy")[0] * 2 + L.meshgrid(x, y, indexing="xy")[1],
                   [np.array(a), np.array(b)], device)
    grads_as_torch(lambda L, x, y: L.cartesian_prod(x, y), [np.array(a), np.array(b)], device)


def test_tensordot_kron(device):
    x, y = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 3, 5))
    cases = [lambda L, kw: L.tensordot(L.tensor(x, **kw), L.tensor(y, **kw), 1),
             lambda L, kw: L.tensordot(L.tensor(x, **kw), L.tensor(y, **kw), ([1, 2], [1, 0])),
             lambda L, kw: L.tensordot(L.tensor(x, **kw), L.tensor(y, **kw), 0),
             lambda L, kw: L.tensordot(L.tensor(x, **kw), L.tensor(x, **kw), 3),
             lambda L, kw: L.tensordot(L.tensor(x, **kw), L.tensor(y, **kw), -1),
             lambda L, kw: L.tensordot(L.tensor(x, **kw), L.tensor(y, **kw), 2),
             lambda L, kw: L.tensordot(L.tensor(x, **kw), L.tensor(y, **kw), ([0], [0, 1])),
             lambda L, kw: L.tensordot(L.tensor(x, **kw), L.tensor(y, **kw), 4),
             lambda L, kw: L.kron(L.tensor(x[0], **kw), L.tensor(y[0], **kw)),
             lambda L, kw: L.kron(L.tensor([1, 2], **kw), L.tensor([[1, 10], [100, 1000]], **kw)),
             lambda L, kw: L.tensor(x, **kw).kron(L.tensor([2.0, -1.0], **kw))]
    for case in cases:
        same_as_torch(case, device, node=False)   # torch records views of its matrix product
    grads_as_torch(lambda L, a, b: L.tensordot(a, b, ([1, 2], [1, 0])), [x, y], device)
    grads_as_torch(lambda L, a, b: L.kron(a, b), [x[0], y[0, :2]], device)


def test_cross(device):
    x, y = rng.standard_normal((4, 3)), rng.standard_normal((1, 3))
    cases = [lambda L, kw: L.linalg.cross(L.tensor(x, requires_grad=True, **kw), L.tensor(y, **kw)),
             lambda L, kw: L.cross(L.tensor(x.T.copy(), **kw), L.tensor(x.T.copy()[:, ::-1].copy(), **kw), dim=0),
             lambda L, kw: L.cross(L.tensor(x, **kw), L.tensor(x[::-1].copy(), **kw)),
             lambda L, kw: L.tensor(x, **kw).cross(L.tensor(y, **kw), dim=1),
             lambda L, kw: L.linalg.cross(L.tensor([1, 2, 3], **kw), L.tensor([4, 5, 6], **kw)),
             lambda L, kw: L.linalg.cross(L.tensor(x[:, :2], **kw), L.tensor(x[:, :2], **kw)),
             lambda L, kw: L.linalg.cross(L.tensor(x[0], **kw), L.tensor(x, **kw)),
             lambda L, kw: L.linalg.cross(L.tensor(x, **kw), L.tensor(x, dtype=L.float32, **kw))]
    for case in cases:
        same_as_torch(case, device)
    with pytest.warns(UserWarning, match="without specifying the dim"):
        minigrad.cross(minigrad.tensor(x), minigrad.tensor(x))
    grads_as_torch(lambda L, a, b: L.linalg.cross(a, b), [x, y], device)


# ---- matrix products with an added input ---------------------------------------------------------

def test_addmm_family(device):
    m, a, b = rng.standard_normal((3, 5)), rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    v, bb1, bb2 = rng.standard_normal(4), rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5))
    nan_in = np.full((3, 5), NAN)
    cases = [lambda L, kw: L.addmm(L.tensor(m, requires_grad=True, **kw), L.tensor(a, **kw), L.tensor(b, **kw)),
             lambda L, kw: L.addmm(L.tensor(m[0], **kw), L.tensor(a, **kw), L.tensor(b, **kw), beta=0.5, alpha=2),
             lambda L, kw: L.addmm(L.tensor(nan_in, **kw), L.tensor(a, **kw), L.tensor(b, **kw), beta=0),
             lambda L, kw: L.tensor(m, **kw).addmm(L.tensor(a, **kw), L.tensor(b, **kw), alpha=-1),
             lambda L, kw: L.addmm(L.tensor(m, **kw), L.tensor(a, **kw), L.tensor(a, **kw)),
             lambda L, kw: L.addmm(L.tensor(m, **kw), L.tensor(v, **kw), L.tensor(b, **kw)),
             lambda L, kw: L.addmv(L.tensor(m[:, 0].copy(), requires_grad=True, **kw), L.tensor(a, **kw),
                                   L.tensor(v, **kw), beta=2),
             lambda L, kw: L.addmv(L.tensor(m, **kw), L.tensor(a, **kw), L.tensor(v, **kw)),
             lambda L, kw: L.baddbmm(L.tensor(m, requires_grad=True, **kw), L.tensor(bb1, **kw), L.tensor(bb2, **kw),
                                     alpha=0.5),
             lambda L, kw: L.addbmm(L.tensor(m, requires_grad=True, **kw), L.tensor(bb1, **kw), L.tensor(bb2, **kw)),
             lambda L, kw: L.addbmm(L.tensor(m, **kw), L.tensor(bb1, **kw), L.tensor(bb1, **kw))]
    for case in cases:
        same_as_torch(case, device, rtol=1e-10)
    grads_as_torch(lambda L, i, x, y: L.addmm(i, x, y, beta=0.5, alpha=2), [m[0], a, b], device)
    grads_as_torch(lambda L, i, x, y: L.addmv(i, x, y, beta=-1), [m[:, 0].copy(), a, v], device)
    grads_as_torch(lambda L, i, x, y: L.baddbmm(i, x, y, alpha=3), [m, bb1, bb2], device)
    grads_as_torch(lambda L, i, x, y: L.addbmm(i, x, y, beta=2), [m, bb1, bb2], device)


# ---- reductions ----------------------------------------------------------------------------------

WITH_NAN = np.array([[1.0, NAN, 3.0, -2.0], [NAN, NAN, NAN, NAN], [5.0, 0.5, 5.0, -1.0]])


def test_nansum_nanmean(device):
    x = rng.standard_normal((3, 4))
    cases = []
    for data in (WITH_NAN, x):
        for f in ("nansum", "nanmean"):
            cases += [lambda L, kw, d=data, f=f: getattr(L, f)(L.tensor(d, requires_grad=True, **kw)),
                      lambda L, kw, d=data, f=f: getattr(L, f)(L.tensor(d, **kw), 1),
                      lambda L, kw, d=data, f=f: getattr(L.tensor(d, **kw), f)(dim=(0, 1), keepdim=True),
                      lambda L, kw, d=data, f=f: getattr(L, f)(L.tensor(d, dtype=L.float32, **kw), 0)]
    cases += [lambda L, kw: L.nansum(L.tensor([1, 2, 3], **kw)), lambda L, kw: L.nansum(L.tensor([True, True], **kw)),
              lambda L, kw: L.nanmean(L.tensor([1, 2], **kw)),
              lambda L, kw: L.nansum(L.tensor(x, **kw), dtype=L.float32)]
    for case in cases:
        same_as_torch(case, device, node=True)
    grads_as_torch(lambda L, a: L.nansum(a, 1), [WITH_NAN], device)
    grads_as_torch(lambda L, a: L.nanmean(a, 0), [WITH_NAN], device)


def _check_indices(got_values, got_indices, data, dim, keepdim):
    """indices of ties may differ from torch's: each must hold its value."""
    vals = np.take_along_axis(data, got_indices if keepdim else np.expand_dims(got_indices, dim), dim)
    np.testing.assert_array_equal(vals.squeeze(dim) if not keepdim else vals, got_values)


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median(device, name):
    x = rng.integers(0, 5, (4, 7)).astype(np.float64)   # ties
    cases = [lambda L, kw: getattr(L, name)(L.tensor(d, requires_grad=True, **kw))
             for d in (x, WITH_NAN, x[:, :6], np.zeros(0))]
    cases += [lambda L, kw: getattr(L, name)(L.tensor([3, 1, 2, 2], **kw)),
              lambda L, kw: getattr(L, name)(L.tensor(np.zeros((0, 3)), **kw), 0),
              lambda L, kw: getattr(L, name)(L.tensor(x, **kw), 2),
              lambda L, kw: getattr(L, name)(L.tensor(5.0, **kw), 0)]
    for case in cases:
        same_as_torch(case, device)
    for data in (x, WITH_NAN, rng.standard_normal((3, 6))):
        for dim in (0, 1, -1):
            for keepdim in (False, True):
                got = getattr(minigrad, name)(minigrad.tensor(data, **_dev(device)), dim, keepdim)
                want = getattr(torch, name)(torch.tensor(data), dim, keepdim) if torch is not None else None
                if want is not None:
                    np.testing.assert_array_equal(_np(got.values), want.values.numpy())
                    assert type(got).__name__ == name and got.indices.dtype == minigrad.int64
                ok = ~np.isnan(_np(got.values))
                if ok.all():
                    _check_indices(_np(got.values), _np(got.indices), data, dim, keepdim)
    distinct = rng.standard_normal((3, 5))
    grads_as_torch(lambda L, a: getattr(L, name)(a), [x], device)
    grads_as_torch(lambda L, a: getattr(L, name)(a, 1), [distinct], device)
    grads_as_torch(lambda L, a: getattr(L, name)(a, 0, True)[0], [distinct], device)


def test_mode(device):
    x = np.array([[1.0, 1, 2, 2, 3], [3, 2, 2, 3, 1], [5, 4, 3, 2, 1], [0, 0, 0, 7, 7]])
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            same_as_torch(lambda L, kw: L.mode(L.tensor(x, requires_grad=True, **kw), dim, keepdim), device)
    same_as_torch(lambda L, kw: L.tensor([2, 2, 1, 1, 9], **kw).mode(), device)
    same_as_torch(lambda L, kw: L.mode(L.tensor(4.0, **kw)), device)
    same_as_torch(lambda L, kw: L.mode(L.tensor(np.zeros((2, 0)), **kw)), device)
    grads_as_torch(lambda L, a: L.mode(a, 1)[0], [x], device)


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile(device, name, interpolation):
    x = rng.standard_normal((3, 6))
    for data in (x, WITH_NAN):
        for q in (0.0, 0.3, 0.5, 1.0, [0.1, 0.25, 0.9]):
            for dim, keepdim in ((None, False), (None, True), (0, False), (1, True), (-1, False)):
                def case(L, kw, data=data, q=q, dim=dim, keepdim=keepdim):
                    qq = L.tensor(q, dtype=L.float64, **kw) if isinstance(q, list) else q
                    return getattr(L, name)(L.tensor(data, **kw), qq, dim, keepdim, interpolation=interpolation)
                same_as_torch(case, device, node=False)   # torch records its own view ops
    grads_as_torch(lambda L, a: getattr(L, name)(a, L.tensor([0.2, 0.7], dtype=L.float64), 1,
                                                 interpolation=interpolation), [x], device)


def test_quantile_errors(device):
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    for case in [lambda L, kw: L.quantile(L.tensor([1, 2], **kw), 0.5),
                 lambda L, kw: L.quantile(L.tensor(x, **kw), 1.5),
                 lambda L, kw: L.quantile(L.tensor(x, **kw), L.tensor(x, **kw)),
                 lambda L, kw: L.quantile(L.tensor(x, **kw), 0.5, interpolation="cubic"),
                 lambda L, kw: L.nanquantile(L.tensor(np.zeros(0), **kw), 0.5),
                 lambda L, kw: L.quantile(L.tensor(x, **kw), L.tensor([0.5], dtype=L.float32, **kw)),
                 lambda L, kw: L.tensor(x, dtype=L.float32, **kw).quantile(0.25, dim=0)]:
        same_as_torch(case, device, node=False)


def test_logcumsumexp(device):
    x = np.array([[-1000.0, 0.0, 1000.0, 2.0, -INF], [INF, 1.0, 2.0, -INF, NAN], [-INF, -INF, 0.0, 1.0, 3.0]])
    y = rng.standard_normal((4, 9))
    for data in (x, y, y.astype(np.float32)):
        for dim in (0, 1, -1):
            same_as_torch(lambda L, kw: L.logcumsumexp(L.tensor(data, requires_grad=True, **kw), dim), device,
                          rtol=1e-5 if data.dtype == np.float32 else 1e-12)
    same_as_torch(lambda L, kw: L.tensor(2.0, **kw).logcumsumexp(0), device)
    same_as_torch(lambda L, kw: L.logcumsumexp(L.tensor([1, 2], **kw), 0), device)
    same_as_torch(lambda L, kw: L.logcumsumexp(L.tensor(np.zeros((2, 0)), **kw), 1), device)
    grads_as_torch(lambda L, a: L.logcumsumexp(a, 1), [y], device)
    a = minigrad.tensor(y[:2, :5], requires_grad=True, **_dev(device))
    assert gradcheck(lambda t: t.logcumsumexp(0), (a,), eps=1e-6, atol=1e-5)


def test_aminmax(device):
    x = rng.integers(0, 4, (3, 5)).astype(np.float64)
    cases = [lambda L, kw: L.aminmax(L.tensor(x, requires_grad=True, **kw)),
             lambda L, kw: L.aminmax(L.tensor(x, **kw), dim=1),
             lambda L, kw: L.tensor(x, **kw).aminmax(dim=0, keepdim=True),
             lambda L, kw: L.aminmax(L.tensor(x, **kw), keepdim=True),
             lambda L, kw: L.aminmax(L.tensor(WITH_NAN, **kw), dim=1),
             lambda L, kw: L.aminmax(L.tensor([3, 1, 2], **kw)),
             lambda L, kw: L.aminmax(L.tensor(np.zeros(0), **kw)),
             lambda L, kw: L.aminmax(L.tensor(2.0, **kw), dim=0)]
    for case in cases:
        same_as_torch(case, device)
    r = minigrad.aminmax(minigrad.tensor(x, **_dev(device)), dim=1)
    assert type(r).__name__ == "aminmax" and r.min is r[0] and r.max is r[1]
    grads_as_torch(lambda L, a: sum(L.aminmax(a, dim=1)) * 1, [x], device)
    grads_as_torch(lambda L, a: L.aminmax(a)[1] * 2 + L.aminmax(a)[0], [x], device)


# ---- minigrad.linalg: vector_norm, matrix_norm, norm ----------------------------------------------

def test_linalg_norms_match_numpy(device):
    rng = np.random.default_rng(5)
    a, v = rng.standard_normal((3, 4, 5)), rng.standard_normal(6)
    A, V = minigrad.tensor(a, device=device), minigrad.tensor(v, device=device)
    inf = float("inf")
    close = lambda t, e: np.testing.assert_allclose(t.cpu().numpy(), e, rtol=1e-12, atol=1e-12)  # noqa: E731
    close(minigrad.linalg.vector_norm(V), np.linalg.norm(v))
    close(minigrad.linalg.vector_norm(A, 1, (0, 2)), np.abs(a).sum((0, 2)))
    close(minigrad.linalg.vector_norm(A, inf, -1, True), np.abs(a).max(-1, keepdims=True))
    for ord in ("fro", 1, -1, inf, -inf):
        close(minigrad.linalg.matrix_norm(A, ord), np.linalg.norm(a, ord, axis=(-2, -1)))
        close(minigrad.linalg.norm(A[0], ord), np.linalg.norm(a[0], ord))
    close(minigrad.linalg.matrix_norm(A, 1, (0, 2)), np.linalg.norm(a, 1, axis=(0, 2)))
    close(minigrad.linalg.matrix_norm(A, inf, (2, 0), keepdim=True), np.linalg.norm(a, inf, axis=(2, 0), keepdims=True))
    close(minigrad.linalg.norm(A), np.linalg.norm(a.reshape(-1)))
    close(minigrad.linalg.norm(V, 3), np.linalg.norm(v, 3))
    g = minigrad.tensor(a[0], device=device, requires_grad=True)
    minigrad.linalg.matrix_norm(g, 1).backward()  # the gradient of the largest column's sum
    col = np.abs(a[0]).sum(0).argmax()
    expect = np.zeros_like(a[0])
    expect[:, col] = np.sign(a[0][:, col])
    close(g.grad, expect)


@pytest.mark.parametrize("call, kind, message", [
    (lambda L: L.linalg.matrix_norm(L.ones(3)), RuntimeError,
     "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."),
    (lambda L: L.linalg.matrix_norm(L.ones(2, 2), 3), RuntimeError, "linalg.matrix_norm: Order 3 not supported."),
    (lambda L: L.linalg.norm(L.ones(2, 2, 2), 1), RuntimeError,
     "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."),
])
def test_linalg_norm_errors(call, kind, message):
    for L in [minigrad] + ([torch] if torch is not None else []):
        with pytest.raises(kind) as e:
            call(L)
        assert str(e.value) == message
