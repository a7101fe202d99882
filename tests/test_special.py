"""torch.special and the integer bit math (minigrad/ops/special.py, minigrad/special.py): values over
wide ranges with special values (poles, zeros, infinities, NaN), result dtypes, node names, gradients
and errors compared with torch's on every device (the CUDA backend's kernels are elementwise.cu's
SPECIAL_KERNELS and BIT_KERNELS)."""
import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck
from test_math_more import INF, NAN, _dev, grads_as_torch, same_as_torch

try:
    import torch
except ImportError:
    torch = None

rng = np.random.default_rng(11)
SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, -3.0, 0.5, -0.5, -2.5, 1e-8, 1e-30, 10.0, 30.0, -30.5, 100.0,
           INF, -INF, NAN]


def _wide(dtype, lo=-30, hi=30, n=300):
    x = np.concatenate([rng.uniform(lo, hi, n), rng.uniform(-1, 1, 60), SPECIAL])
    return x.astype(dtype)


# (top-level name or None, torch.special name or None, domain, float32 rtol, float64 rtol)
UNARY = {
    "lgamma": ("lgamma", "gammaln", (-30, 30), 1e-5, 1e-12),
    "digamma": ("digamma", "psi", (-30, 30), 1e-5, 1e-12),
    "erfc": ("erfc", "erfc", (-10, 10), 2e-6, 1e-12),
    "erfinv": ("erfinv", "erfinv", (-0.999, 0.999), 2e-6, 1e-9),
    "i0": ("i0", "i0", (-30, 30), 2e-6, 1e-12),
    "i0e": (None, "i0e", (-30, 30), 2e-6, 1e-12),
    "i1": (None, "i1", (-30, 30), 2e-6, 1e-12),
    "i1e": (None, "i1e", (-30, 30), 2e-6, 1e-12),
    "ndtri": (None, "ndtri", (0, 1), 2e-6, 1e-12),
    "log_ndtr": (None, "log_ndtr", (-40, 10), 2e-6, 1e-12),
    "erfcx": (None, "erfcx", (-5, 30), 2e-5, 1e-12),
    "entr": (None, "entr", (-1, 10), 2e-6, 1e-12),
    "ndtr": (None, "ndtr", (-10, 10), 2e-6, 1e-12),
}


def _fn(L, name):
    top, sp, *_ = UNARY[name]
    return getattr(L, top) if top else getattr(L.special, sp)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_values(device, name, dtype):
    top, sp, (lo, hi), r32, r64 = UNARY[name]
    x = _wide(dtype, lo, hi)
    if name == "erfinv":
        x = np.concatenate([x[np.abs(x) <= 1], [1.0, -1.0, 1.5, NAN]]).astype(dtype)
    rtol = r32 if dtype == "float32" else r64
    node = name != "ndtr"   # torch's ndtr ends in MulBackward1 (minigrad's scalar product is MulBackward0)
    same_as_torch(lambda L, kw: _fn(L, name)(L.tensor(x, **kw)), device, rtol, node)
    same_as_torch(lambda L, kw: _fn(L, name)(L.tensor(x[:0], **kw)), device, rtol)                  # empty
    same_as_torch(lambda L, kw: _fn(L, name)(L.tensor(x[5], **kw)), device, rtol)                   # 0-d
    xs = x[:360].reshape(20, 18)
    same_as_torch(lambda L, kw: _fn(L, name)(L.tensor(xs, **kw).t()), device, rtol, node)           # strided
    if sp:
        same_as_torch(lambda L, kw: getattr(L.special, sp)(L.tensor(x, **kw)), device, rtol, node)


@pytest.mark.parametrize("name", ["lgamma", "digamma", "erfc", "erfinv", "i0", "i0e", "i1", "ndtri", "entr"])
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_unary_integers_promote(device, name, dtype):
    x = np.array([0, 1, 2, 3, -2, 5], dtype=dtype) if dtype == "int64" else np.array([True, False, True])
    same_as_torch(lambda L, kw: _fn(L, name)(L.tensor(x, **kw)), device, 1e-6)


GRAD_DOMAIN = {"lgamma": (0.3, 6), "digamma": (0.3, 6), "erfc": (-2, 2), "erfinv": (-0.9, 0.9),
               "i0": (-4, 4), "i0e": (-10, 10), "i1": (-10, 10), "i1e": (-10, 10), "ndtri": (0.05, 0.95),
               "log_ndtr": (-5, 3), "erfcx": (-2, 5), "entr": (0.1, 4), "ndtr": (-3, 3)}


@pytest.mark.parametrize("name", GRAD_DOMAIN)
def test_unary_gradients(device, name):
    lo, hi = GRAD_DOMAIN[name]
    x = rng.uniform(lo, hi, 12)
    if name in ("i1", "i1e"):
        x[:2] = [0.0, 1e-20]   # torch's limit 1/2 at 0
    grads_as_torch(lambda L, t: _fn(L, name)(t), [x], device)
    t = minigrad.tensor(x, requires_grad=True, **_dev(device))
    assert gradcheck(lambda a: _fn(minigrad, name)(a), (t,), eps=1e-6, atol=1e-5)


@pytest.mark.parametrize("name", ["lgamma", "digamma", "erfc", "erfinv", "i0"])
def test_unary_methods_and_inplace(device, name):
    x = rng.uniform(0.1, 0.9, 8)
    same_as_torch(lambda L, kw: getattr(L.tensor(x, **kw), name)(), device)
    same_as_torch(lambda L, kw: getattr(L.tensor(x, **kw), name + "_")(), device)
    same_as_torch(lambda L, kw: getattr(L.tensor([1, 2], **kw), name + "_")(), device)   # Float into Long
    grads_as_torch(lambda L, t: getattr(t * 1, name + "_")(), [x], device)
    same_as_torch(lambda L, kw: getattr(L, name)(3), device)                               # not a Tensor


# ---- polygamma, mvlgamma -----------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_polygamma(device, n, dtype):
    # float32's reflection near the negative poles is ill-conditioned (torch's own values there are
    # a few float32 roundings away from the true ones): float32 compares on x > 0 and the specials
    x = _wide(dtype, -10 if dtype == "float64" else 0.01, 30)
    rtol = 2e-5 if dtype == "float32" else 1e-10
    same_as_torch(lambda L, kw: L.polygamma(n, L.tensor(x, **kw)), device, rtol)
    same_as_torch(lambda L, kw: L.special.polygamma(n, L.tensor(x, **kw)), device, rtol)
    same_as_torch(lambda L, kw: L.tensor(x, **kw).polygamma(n), device, rtol)
    same_as_torch(lambda L, kw: L.tensor(x, **kw).polygamma_(n), device, rtol)
    same_as_torch(lambda L, kw: L.polygamma(n, L.tensor(x[:0], **kw)), device, rtol)
    grads_as_torch(lambda L, t: L.polygamma(n, t), [rng.uniform(0.5, 5, 6)], device, rtol=1e-9)


@pytest.mark.parametrize("case", ["L.polygamma(-1, L.tensor([1.0], **kw))", "L.polygamma(1.5, L.tensor([1.0], **kw))",
                                  "L.polygamma(1, 3)",
                                  "L.polygamma(1, L.tensor([1, 2], **kw))"])
def test_polygamma_arguments(device, case):
    same_as_torch(lambda L, kw: eval(case), device, 1e-6)


@pytest.mark.parametrize("p", [1, 2, 3, 5])
def test_mvlgamma(device, p):
    x = rng.uniform(-1, 8, 40)
    same_as_torch(lambda L, kw: L.mvlgamma(L.tensor(x, **kw), p), device)
    same_as_torch(lambda L, kw: L.special.multigammaln(L.tensor(x, **kw), p), device)
    same_as_torch(lambda L, kw: L.tensor(x, **kw).mvlgamma_(p=p), device)
    same_as_torch(lambda L, kw: L.mvlgamma(L.tensor([1, 2, 3], **kw), p), device)
    grads_as_torch(lambda L, t: L.mvlgamma(t, p), [rng.uniform(3, 6, 5)], device)


def test_mvlgamma_errors(device):
    same_as_torch(lambda L, kw: L.mvlgamma(L.tensor([2.0], **kw), 0), device)
    same_as_torch(lambda L, kw: L.mvlgamma(L.tensor([2.0], **kw), 1.5), device)


# ---- two-argument float functions ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zeta(device, dtype):
    x = np.concatenate([rng.uniform(1, 12, 200), [1.0, 0.5, 2.0, 3.0, 2.0, 4.0, INF, NAN]]).astype(dtype)
    q = np.concatenate([rng.uniform(-5, 20, 200), [1.0, 1.0, -2.0, -2.5, 0.0, -1.5, 2.0, 1.0]]).astype(dtype)
    rtol = 2e-5 if dtype == "float32" else 1e-10
    same_as_torch(lambda L, kw: L.special.zeta(L.tensor(x, **kw), L.tensor(q, **kw)), device, rtol)
    same_as_torch(lambda L, kw: L.special.zeta(L.tensor(x, **kw), 2.0), device, rtol)
    same_as_torch(lambda L, kw: L.special.zeta(3.0, L.tensor(q, **kw)), device, rtol)
    same_as_torch(lambda L, kw: L.special.zeta(L.tensor([2, 3], **kw), L.tensor([1, 2], **kw)), device, rtol)
    same_as_torch(lambda L, kw: L.special.zeta(L.tensor(x[:6].reshape(2, 3), **kw), L.tensor(q[:3], **kw)),
                  device, rtol)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_igamma(device, name, dtype):
    a = np.concatenate([10 ** rng.uniform(-3, 2.5, 300), [0, 0, 1, INF, 1, -1, 2, INF, NAN, 3]]).astype(dtype)
    x = np.concatenate([10 ** rng.uniform(-3, 2.5, 300), [1, 0, 0, 1, INF, 1, -1, INF, 1, NAN]]).astype(dtype)
    # torch's asymptotic series (20 < a < 200, a ~ x) is good to ~1e-9; the series and continued
    # fraction used here are good to ~1e-14 there (checked against mpmath)
    rtol = 1e-4 if dtype == "float32" else 1e-8
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(a, **kw), L.tensor(x, **kw)), device, rtol)
    same_as_torch(lambda L, kw: getattr(L.tensor(a, **kw), name)(L.tensor(x, **kw)), device, rtol)
    same_as_torch(lambda L, kw: getattr(L.special, "gammainc" if name == "igamma" else "gammaincc")(
        L.tensor(a, **kw), L.tensor(x, **kw)), device, rtol)
    same_as_torch(lambda L, kw: getattr(L.tensor(a, **kw), name + "_")(L.tensor(x, **kw)), device, rtol)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_igamma_gradients_and_errors(device, name):
    a, x = rng.uniform(0.5, 5, 6), rng.uniform(0.5, 5, 6)
    grads_as_torch(lambda L, t: getattr(L, name)(L.tensor(a, **_dev(device) if L is minigrad else {}), t),
                   [x], device)
    same_as_torch(lambda L, kw: _backward_error(L, lambda u, v: getattr(L, name)(u, v), a, x, kw), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor([1, 2], **kw), L.tensor([1, 2], **kw)), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor([1.0], **kw), 2.0), device)


def _backward_error(L, fn, a, b, kw):
    u = L.tensor(a, requires_grad=True, **kw)
    v = L.tensor(b, requires_grad=True, **kw)
    fn(u, v).sum().backward()
    return u.grad


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_xlog1py(device, dtype):
    x = _wide(dtype, -5, 5, 100)
    y = np.concatenate([rng.uniform(-1, 10, x.size - 4), [-1.0, -2.0, NAN, INF]]).astype(dtype)
    x[:4] = 0
    same_as_torch(lambda L, kw: L.special.xlog1py(L.tensor(x, **kw), L.tensor(y, **kw)), device)
    same_as_torch(lambda L, kw: L.special.xlog1py(L.tensor(x, **kw), 2.0), device)
    same_as_torch(lambda L, kw: L.special.xlog1py(3, L.tensor(y, **kw)), device)
    same_as_torch(lambda L, kw: L.special.xlog1py(L.tensor([1, 2], **kw), L.tensor([3, 4], **kw)), device)
    grads_as_torch(lambda L, t, u: L.special.xlog1py(t, u), [rng.uniform(-2, 2, 5), rng.uniform(0, 3, 5)], device)
    grads_as_torch(lambda L, u: L.special.xlog1py(2.0, u), [rng.uniform(0, 3, 5)], device)


def test_zeta_has_no_derivative_nextafter_passes_through(device):
    a, b = rng.uniform(2, 4, 3), rng.uniform(1, 2, 3)
    same_as_torch(lambda L, kw: _backward_error(L, L.special.zeta, a, b, kw), device)
    same_as_torch(lambda L, kw: _backward_error(L, L.nextafter, a, b, kw), device)
    same_as_torch(lambda L, kw: L.special.zeta(L.tensor(a, requires_grad=True, **kw), 2.0), device)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nextafter(device, dtype):
    a = np.array([0.0, -0.0, 1.0, 1.0, -1.0, INF, -INF, NAN, 1.0, 1e-40 if dtype == "float32" else 5e-324],
                 dtype=dtype)
    b = np.array([1.0, -1.0, 2.0, 0.0, -INF, 0.0, INF, 1.0, NAN, 0.0], dtype=dtype)
    same_as_torch(lambda L, kw: L.nextafter(L.tensor(a, **kw), L.tensor(b, **kw)), device, 0)
    same_as_torch(lambda L, kw: L.tensor(a, **kw).nextafter_(L.tensor(b, **kw)), device, 0)
    same_as_torch(lambda L, kw: L.nextafter(L.tensor([1, 2], **kw), L.tensor([1, 2], **kw)), device)
    same_as_torch(lambda L, kw: L.nextafter(L.tensor([1.0], **kw), 1.0), device)


# ---- ldexp, frexp ---------------------------------------------------------------------------------

def test_ldexp(device):
    x, e = rng.uniform(-3, 3, 8), rng.integers(-5, 5, 8)
    same_as_torch(lambda L, kw: L.ldexp(L.tensor(x, **kw), L.tensor(e, **kw)), device)
    same_as_torch(lambda L, kw: L.ldexp(L.tensor(x, dtype=L.float32, **kw), L.tensor(e, **kw)), device)
    same_as_torch(lambda L, kw: L.ldexp(L.tensor(e, **kw), L.tensor(e, **kw)), device)
    same_as_torch(lambda L, kw: L.tensor(x, **kw).ldexp_(L.tensor(e, **kw)), device)
    same_as_torch(lambda L, kw: L.tensor(e, **kw).ldexp_(L.tensor(e, **kw)), device)
    same_as_torch(lambda L, kw: L.ldexp(L.tensor(x, **kw), 2), device)
    grads_as_torch(lambda L, t, u: L.ldexp(t, u), [x, rng.uniform(-2, 2, 8)], device)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_frexp(device, dtype):
    x = np.concatenate([rng.uniform(-1e3, 1e3, 50), [0.0, -0.0, 1.0, 0.5, -3.0, 1e-30, INF, -INF, NAN]]).astype(dtype)
    same_as_torch(lambda L, kw: tuple(L.frexp(L.tensor(x, **kw))), device, 0)
    same_as_torch(lambda L, kw: tuple(L.tensor(x, **kw).reshape(59, 1).t().frexp()), device, 0)
    same_as_torch(lambda L, kw: L.frexp(L.tensor([1, 2], **kw)), device)
    out = minigrad.frexp(minigrad.tensor([3.0], **_dev(device)))
    assert type(out).__name__ == "frexp" and out.exponent.tolist() == [2] and out.mantissa.tolist() == [0.75]
    grads_as_torch(lambda L, t: L.frexp(t).mantissa * 3, [rng.uniform(-9, 9, 6)], device)


# ---- the integer bit math ---------------------------------------------------------------------------

INTS = {"int64": np.concatenate([rng.integers(-2 ** 40, 2 ** 40, 40), [0, -1, 1, 2 ** 62, -2 ** 63, 7]]),
        "int32": np.concatenate([rng.integers(-2 ** 30, 2 ** 30, 40), [0, -1, 1, 2 ** 30, -2 ** 31, 7]])}


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm"])
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_bitwise_binary(device, name, dtype):
    a = INTS[dtype].astype(dtype)
    b = np.roll(a, 3)
    if name in ("gcd", "lcm"):
        a, b = a % 10000 - 5000, b % 600 - 300
        a[:3], b[2:5] = 0, 0
        a, b = a.astype(dtype), b.astype(dtype)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(a, **kw), L.tensor(b, **kw)), device)
    same_as_torch(lambda L, kw: getattr(L.tensor(a, **kw), name)(L.tensor(b[:1], **kw)), device)      # broadcast
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(a.reshape(2, -1), **kw).t(),
                                                 L.tensor(b.reshape(-1, 2), **kw)), device)            # strided
    same_as_torch(lambda L, kw: getattr(L.tensor(a, **kw), name + "_")(L.tensor(b, **kw)), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(a[:0], **kw), L.tensor(b[:0], **kw)), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(a, **kw), L.tensor(b, dtype=L.int32, **kw)), device)
    for other in (5, 2.5, True):
        same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(a, **kw), other), device)
        same_as_torch(lambda L, kw: getattr(L, name)(other, L.tensor(a, **kw)), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor([1.0], **kw), L.tensor([1.0], **kw)), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor([True], **kw), L.tensor([False], **kw)), device)


@pytest.mark.parametrize("name", ["bitwise_left_shift", "bitwise_right_shift"])
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_shifts(device, name, dtype):
    a = INTS[dtype].astype(dtype)
    s = np.concatenate([rng.integers(-3, 70, a.size - 6), [0, 31, 32, 63, 64, -1]]).astype(dtype)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(a, **kw), L.tensor(s, **kw)), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(a, **kw), 3), device)
    same_as_torch(lambda L, kw: getattr(L, name)(2, L.tensor(s % 20, **kw)), device)
    same_as_torch(lambda L, kw: getattr(L.tensor(a, **kw), name + "_")(L.tensor(s, **kw)), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor([1.0], **kw), 1), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor([True], **kw), L.tensor([True], **kw)), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor([True], **kw), 1), device)


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor"])
def test_bitwise_bools(device, name):
    a, b = rng.random(30) < 0.5, rng.random(30) < 0.5
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(a, **kw), L.tensor(b, **kw)), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(a, **kw), True), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(a, **kw), 3), device)
    same_as_torch(lambda L, kw: getattr(L, name)(L.tensor(a.reshape(5, 6), **kw).t(), L.tensor(b[:5], **kw)),
                  device)
    same_as_torch(lambda L, kw: getattr(L.tensor(a, **kw), name + "_")(L.tensor(b, **kw)), device)
    same_as_torch(lambda L, kw: getattr(L.tensor(a, **kw), name + "_")(L.tensor([1, 2], **kw)[:1]), device)


def test_bitwise_not(device):
    for x in (INTS["int64"], INTS["int32"].astype("int32"), rng.random(9) < 0.5):
        same_as_torch(lambda L, kw: L.bitwise_not(L.tensor(x, **kw)), device)
        same_as_torch(lambda L, kw: ~L.tensor(x, **kw), device)
        same_as_torch(lambda L, kw: L.tensor(x, **kw).bitwise_not_(), device)
    same_as_torch(lambda L, kw: L.bitwise_not(L.tensor([1.0], **kw)), device)
    same_as_torch(lambda L, kw: ~L.tensor([1.0], **kw), device)


OPERATORS = ["a & b", "a | b", "a ^ b", "a << (b % 8)", "a >> (b % 8)", "a & 6", "6 & a", "a | 1", "9 ^ a",
             "a << 2", "3 << (b % 8)", "a >> 1", "100 >> (b % 8)", "m & m2", "m | m2", "m ^ m2", "m & a", "a | m",
             "m ^ True", "m & 1", "a & f", "f & f", "f | 1", "f ^ 2", "f << 1", "a << 1.5", "f >> f", "m << m"]


@pytest.mark.parametrize("expr", OPERATORS)
def test_operators(device, expr):
    def run(L, kw):
        a = L.tensor([5, -3, 12, 0, 7], **kw)
        b = L.tensor([3, 6, -2, 9, 7], **kw)
        m = L.tensor([True, False, True, False, True], **kw)
        m2 = L.tensor([True, True, False, False, True], **kw)
        f = L.tensor([1.0, 2.0, 3.0, 4.0, 5.0], **kw)
        return eval(expr, {}, {"a": a, "b": b, "m": m, "m2": m2, "f": f})
    same_as_torch(run, device)


@pytest.mark.parametrize("op", ["&=", "|=", "^=", "<<=", ">>="])
def test_inplace_operators(device, op):
    def run(L, kw):
        a = L.tensor([5, -3, 12, 0, 7], **kw)
        view = a[1:]
        exec(f"a {op} 2")
        exec(f"a {op} L.tensor([1, 2, 3, 1, 2], **kw)")
        return a, view
    same_as_torch(run, device)

    def bad(L, kw):
        m = L.tensor([True, False], **kw)
        exec(f"m {op} L.tensor([1, 2], **kw)")
        return m
    same_as_torch(bad, device)


def test_operators_with_other_types():
    a = minigrad.tensor([1, 2])
    assert a.__and__("x") is NotImplemented and a.__lshift__(None) is NotImplemented
    with pytest.raises(TypeError):
        a & "x"
    same_as_torch(lambda L, kw: L.bitwise_and(L.tensor([1]), "x"), None)
    same_as_torch(lambda L, kw: L.gcd(L.tensor([4]), 2), None)
    same_as_torch(lambda L, kw: L.tensor([4]).gcd(2), None)


# ---- the torch.special namespace ---------------------------------------------------------------

SHARED = ["L.special.erf(x)", "L.special.expit(x)", "L.special.exp2(x)", "L.special.expm1(x)", "L.special.log1p(x)",
          "L.special.sinc(x)", "L.special.logit(x.sigmoid())", "L.special.logit(x, eps=0.2)",
          "L.special.round(x * 10)", "L.special.softmax(x, 0)", "L.special.log_softmax(x, dim=0)",
          "L.special.logsumexp(x, 0)", "L.special.xlogy(x, x.abs())", "L.special.digamma(x)",
          "L.special.expit(L.tensor([1, 2]))", "L.special.gammaln(3)", "L.special.i1(L.tensor([True]))"]


@pytest.mark.parametrize("expr", SHARED)
def test_special_namespace(device, expr):
    x_np = rng.uniform(-2, 2, 9)

    def run(L, kw):
        x = L.tensor(x_np, **kw)
        return eval(expr, {"L": L}, {"x": x})
    same_as_torch(run, device, node=False)


def test_special_names():
    if torch is None:
        pytest.skip("torch is not installed")
    wanted = {"digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc",
              "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit",
              "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax",
              "xlog1py", "xlogy", "zeta"}
    assert wanted <= set(dir(torch.special))
    assert all(callable(getattr(minigrad.special, n)) for n in wanted)
