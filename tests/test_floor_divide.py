"""floor_divide (`//`), remainder (`%`), fmod and torch.div's rounding_mode: values (bit for bit,
signs of zeros included), dtypes, errors, nodes and gradients as torch 2.13's, on every device;
each expectation is checked against torch when it is importable."""
import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:
    torch = None

INF, NAN = float("inf"), float("nan")


def _dev(device):
    return {} if device in (None, "cpu") else {"device": device}


def outcome(fn, lib, device=None):
    """(dtype, values as bytes and shape, node name) or (error type, message)."""
    try:
        r = fn(lib, _dev(device) if lib is minigrad else {})
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, str(e).replace("torch", "minigrad")
    arr = r.detach().cpu().numpy()
    node = r.grad_fn.name() if r.grad_fn is not None else None
    return str(r.dtype).split(".")[-1], arr.shape, _bits(arr), node


def _bits(arr):
    """The bytes of arr, every NaN made one NaN (their payloads and signs are no contract)."""
    if arr.dtype.kind == "f":
        arr = np.where(np.isnan(arr), np.array(np.nan, arr.dtype), arr)
    return arr.tobytes()


def same_as_torch(fn, device):
    got = outcome(fn, minigrad, device)
    if torch is None:
        pytest.skip("torch is not installed")
    want = outcome(fn, torch)
    assert got == want, f"\nminigrad: {got}\ntorch:    {want}"
    return got


# ---- values: every sign, zero divisors, inf and nan, against torch bit for bit ---------------
SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 3.0, -3.0, 7.0, -7.0, 0.1, -0.1, 1e-10, -1e10, INF, -INF, NAN]
# (not 1e-30 with 1e30: torch's CPU float32 fmod gives nan where |a / b| overflows float32)
A = np.repeat(SPECIAL, len(SPECIAL))
B = np.tile(SPECIAL, len(SPECIAL))
OPS = {
    "floor_divide": lambda L, a, b: L.floor_divide(a, b),
    "operator//": lambda L, a, b: a // b,
    "remainder": lambda L, a, b: L.remainder(a, b),
    "operator%": lambda L, a, b: a % b,
    "fmod": lambda L, a, b: L.fmod(a, b),
    "div-trunc": lambda L, a, b: L.div(a, b, rounding_mode="trunc"),
    "div-floor": lambda L, a, b: a.div(b, rounding_mode="floor"),
    "div-none": lambda L, a, b: L.div(a, b, rounding_mode=None),
    "divide-floor": lambda L, a, b: L.divide(a, b, rounding_mode="floor"),
    "true_divide": lambda L, a, b: L.true_divide(a, b),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", list(OPS))
def test_float_special_values(device, op, dtype):
    f = OPS[op]
    same_as_torch(lambda L, d: f(L, L.tensor(A, dtype=getattr(L, dtype), **d),
                                 L.tensor(B, dtype=getattr(L, dtype), **d)), device)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod", "div-trunc"])
def test_float_random_values(device, op, dtype):
    # magnitudes whose quotients stay in range (torch's CPU float32 fmod gives nan where |a / b|
    # overflows float32: a limit of its vector fmod, not C's fmod, which minigrad gives)
    rng = np.random.default_rng(3)
    a = rng.standard_normal(3000) * 10.0 ** rng.integers(-8, 9, 3000)
    b = rng.standard_normal(3000) * 10.0 ** rng.integers(-8, 9, 3000)
    f = OPS[op]
    same_as_torch(lambda L, d: f(L, L.tensor(a, dtype=getattr(L, dtype), **d),
                                 L.tensor(b, dtype=getattr(L, dtype), **d)), device)


INTS_A = [7, -7, 7, -7, 0, 1, -1, 9, -9, 2 ** 62, -2 ** 63, -2 ** 63, 2 ** 63 - 1]
INTS_B = [2, 2, -2, -2, 3, -3, 3, 3, -4, -5, 1, 7, -1]


@pytest.mark.parametrize("op", ["floor_divide", "operator//", "remainder", "operator%", "fmod", "div-trunc",
                                "div-floor", "div-none"])
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_integer_values(device, op, dtype):
    f = OPS[op]
    a, b = np.array(INTS_A), np.array(INTS_B)
    if dtype == "int32":
        a, b = (a % 1000 - 500), b
    same_as_torch(lambda L, d: f(L, L.tensor(a.tolist(), dtype=getattr(L, dtype), **d),
                                 L.tensor(b.tolist(), dtype=getattr(L, dtype), **d)), device)


@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod"])
def test_int_min_by_minus_one_wraps(device, op):
    # INT64_MIN // -1 overflows: torch gives INT64_MIN (and 0 for the remainders), with no C
    # undefined behaviour in either backend
    f = OPS[op]
    same_as_torch(lambda L, d: f(L, L.tensor([-2 ** 63, -2 ** 63, 5], **d), L.tensor([-1, -1, -1], **d)), device)
    same_as_torch(lambda L, d: f(L, L.tensor([-2 ** 31, 3], dtype=L.int32, **d), -1), device)


def test_trunc_int_min_by_minus_one_wraps(device):
    # torch's CPU kernel dies of SIGFPE on this one; minigrad wraps as floor_divide does
    t = minigrad.tensor([-2 ** 63, 6], **_dev(device))
    assert minigrad.div(t, -1, rounding_mode="trunc").tolist() == [-2 ** 63, -6]


# ---- scalars on both sides, broadcasting, promotion ------------------------------------------
CASES = {
    "tensor-scalar": lambda L, d: L.tensor([7.0, -7.0, 5.5, -0.5], **d) // 2,
    "tensor-neg-scalar": lambda L, d: L.tensor([7.0, -7.0, 5.5, -0.5], **d) % -2.5,
    "rfloordiv-int": lambda L, d: 7 // L.tensor([2, -2, 3, -3], **d),
    "rfloordiv-float": lambda L, d: 7.5 // L.tensor([2, -2], **d),
    "rmod-int": lambda L, d: -7 % L.tensor([2, -2, 3, -3], **d),
    "rmod-float": lambda L, d: 7.5 % L.tensor([2.0, -2.0, 0.0], **d),
    "rmod-fn": lambda L, d: L.remainder(7, L.tensor([2.0, -2.0], **d)),
    "floor_divide-number-first": lambda L, d: L.floor_divide(2, L.tensor([7.0, -7.0], **d)),
    "floor_divide-numbers": lambda L, d: L.floor_divide(-7, 2),
    "div-floor-number-first": lambda L, d: L.div(5, L.tensor([2, -2], **d), rounding_mode="floor"),
    "broadcast": lambda L, d: L.tensor([[7.0], [-7.0], [5.0]], **d) % L.tensor([2.0, -2.0, 3.0, 0.0], **d),
    "broadcast-int": lambda L, d: L.tensor([[7], [-7]], **d) // L.tensor([2, -2, 3], **d),
    "0-d": lambda L, d: L.fmod(L.tensor(-7.5, **d), L.tensor(2.0, **d)),
    "0-d-f64-other": lambda L, d: L.tensor([7.5, -7.5], **d) // L.tensor(2.0, dtype=L.float64, **d),
    "transposed": lambda L, d: L.tensor([[7.0, -7.0], [5.0, -5.0]], **d).t() % L.tensor([[2.0, -3.0]], **d),
    "empty": lambda L, d: L.zeros(0, 3, **d) // L.ones(3, **d),
    "int//float-scalar": lambda L, d: L.tensor([7, -7], **d) // 2.5,
    "int%float-scalar": lambda L, d: L.tensor([7, -7], **d) % 2.5,
    "int32//int-scalar": lambda L, d: L.tensor([7, -7], dtype=L.int32, **d) // 2,
    "int32//int64": lambda L, d: L.tensor([7, -7], dtype=L.int32, **d) // L.tensor([2, 2], **d),
    "int//f32": lambda L, d: L.tensor([7, -7], **d) % L.tensor([2.5, 2.5], **d),
    "bool//int": lambda L, d: L.tensor([True, False], **d) // 2,
    "bool%int": lambda L, d: L.tensor([True, False], **d) % 2,
    "bool//float": lambda L, d: L.tensor([True, False], **d) // 0.5,
    "int//bool-tensor": lambda L, d: L.tensor([3, -3], **d) // L.tensor([True, True], **d),
    "float%bool-scalar": lambda L, d: L.tensor([3.5, -3.5], **d) % True,
    "int-fmod-bool-scalar": lambda L, d: L.fmod(L.tensor([3, -3], **d), True),
    "bool-div-trunc-int": lambda L, d: L.div(L.tensor([True], **d), 2, rounding_mode="trunc"),
    "true_divide-ints": lambda L, d: L.tensor([7, 2], **d).true_divide(2),
    "divide-trunc-ints": lambda L, d: L.tensor([7, -7], **d).divide(2, rounding_mode="trunc"),
    "keywords": lambda L, d: L.floor_divide(input=L.tensor([7.0], **d), other=2),
    "method-keyword": lambda L, d: L.tensor([7.0], **d).fmod(other=-2),
    "div-keyword-other": lambda L, d: L.div(L.tensor([7.0], **d), other=2, rounding_mode="floor"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_operands_and_dtypes(device, name):
    same_as_torch(CASES[name], device)


# ---- errors ----------------------------------------------------------------------------------
ERRORS = {
    "bool//bool": lambda L, d: L.tensor([True], **d) // L.tensor([True], **d),
    "bool%bool": lambda L, d: L.tensor([True], **d) % L.tensor([True], **d),
    "bool-fmod": lambda L, d: L.fmod(L.tensor([True], **d), True),
    "bool//bool-scalar": lambda L, d: L.tensor([True], **d) // True,
    "bool-rmod": lambda L, d: True % L.tensor([True], **d),
    "bool-div-trunc": lambda L, d: L.div(L.tensor([True], **d), True, rounding_mode="trunc"),
    "bool-div-floor": lambda L, d: L.div(L.tensor([True], **d), L.tensor([True], **d), rounding_mode="floor"),
    "bad-mode": lambda L, d: L.div(L.tensor([1.0], **d), 2, rounding_mode="round"),
    "bad-mode-method": lambda L, d: L.tensor([1.0], **d).div(2, rounding_mode="x"),
    "bad-mode-inplace": lambda L, d: L.tensor([1.0], **d).div_(2, rounding_mode="x"),
    "bad-mode-type": lambda L, d: L.div(L.tensor([1.0], **d), 2, rounding_mode=3),
    "bad-mode-type-method": lambda L, d: L.tensor([1.0], **d).div(2, rounding_mode=3),
    "mode-positional": lambda L, d: L.div(L.tensor([1.0], **d), 2, "floor"),
    "mode-positional-method": lambda L, d: L.tensor([1.0], **d).div(2, "floor"),
    "div-list-mode": lambda L, d: L.tensor([1.0], **d).div([2], rounding_mode="floor"),
    "true_divide-mode": lambda L, d: L.true_divide(L.tensor([1.0], **d), 2, rounding_mode="floor"),
    "fd-str": lambda L, d: L.floor_divide(L.tensor([1.0], **d), "a"),
    "fd-none": lambda L, d: L.floor_divide(L.tensor([1.0], **d), None),
    "fd-method-str": lambda L, d: L.tensor([1.0], **d).floor_divide("a"),
    "rem-str": lambda L, d: L.remainder(L.tensor([1.0], **d), "a"),
    "rem-method-str": lambda L, d: L.tensor([1.0], **d).remainder("a"),
    "rem-numbers": lambda L, d: L.remainder(2, 3),
    "fmod-str": lambda L, d: L.fmod(L.tensor([1.0], **d), "a"),
    "fmod-method-str": lambda L, d: L.tensor([1.0], **d).fmod("a"),
    "fmod-number-first": lambda L, d: L.fmod(2, L.tensor([1.0], **d)),
    "fmod-numbers": lambda L, d: L.fmod(2, 3),
    "operator-str": lambda L, d: L.tensor([1.0], **d) // "a",
    "operator-mod-str": lambda L, d: L.tensor([1.0], **d) % "a",
    "shapes": lambda L, d: L.tensor([1.0, 2.0], **d) // L.tensor([1.0, 2.0, 3.0], **d),
    "inplace-int-by-float": lambda L, d: L.tensor([7, -2], **d).floor_divide_(2.5),
    "inplace-int-rem-float": lambda L, d: L.tensor([7, -2], **d).remainder_(2.5),
    "inplace-div-floor-int-by-float": lambda L, d: L.tensor([7, -2], **d).div_(2.5, rounding_mode="floor"),
    "inplace-grow": lambda L, d: L.tensor([7.0], **d).fmod_(L.tensor([2.0, 3.0], **d)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(device, name):
    got = outcome(ERRORS[name], minigrad, device)
    assert got[0].endswith("Error"), got
    if device not in (None, "cpu") and got[0] == "NotImplementedError":
        got = (got[0], got[1].replace("_cuda\"", "_cpu\""))  # torch names the device's kernel
    if torch is not None:
        assert got == outcome(ERRORS[name], torch)


INT_ZERO = {
    "floor_divide": lambda L, d: L.tensor([7, -7], **d) // L.tensor([2, 0], **d),
    "scalar": lambda L, d: L.tensor([7, -7], **d) // 0,
    "remainder": lambda L, d: L.tensor([7, -7], **d) % 0,
    "rmod": lambda L, d: 3 % L.tensor([0, 2], **d),
    "fmod": lambda L, d: L.fmod(L.tensor([7], dtype=L.int32, **d), L.tensor([0], dtype=L.int32, **d)),
    "trunc": lambda L, d: L.div(L.tensor([7], **d), 0, rounding_mode="trunc"),
    "floor": lambda L, d: L.div(L.tensor([7], **d), False, rounding_mode="floor"),
    "inplace": lambda L, d: L.tensor([7, 8], **d).__ifloordiv__(0),
}


@pytest.mark.parametrize("name", list(INT_ZERO))
def test_integer_division_by_zero(device, name):
    if device in (None, "cpu"):
        # torch's CPU kernels raise RuntimeError: ZeroDivisionError, and so does minigrad's CPU
        got = same_as_torch(INT_ZERO[name], device)
        assert got == ("RuntimeError", "ZeroDivisionError")
    else:
        # minigrad's CUDA kernels give 0 (torch's CUDA leaves it undefined; no host sync to raise)
        r = INT_ZERO[name](minigrad, _dev(device))
        want = {"floor_divide": [3, 0], "scalar": [0, 0], "remainder": [0, 0], "rmod": [0, 1], "fmod": [0],
                "trunc": [0], "floor": [0], "inplace": [0, 0]}[name]
        assert r.tolist() == want


def test_integer_zero_divisor_with_no_elements_is_no_error(device):
    same_as_torch(lambda L, d: L.zeros(0, dtype=L.int64, **d) // 0, device)


def test_float_division_by_zero_is_ieee(device):
    same_as_torch(lambda L, d: L.tensor([1.0, -1.0, 0.0, -0.0], **d) // 0.0, device)
    same_as_torch(lambda L, d: L.tensor([1.0, -1.0, 0.0], **d) % L.tensor([0.0, -0.0, 0.0], **d), device)
    same_as_torch(lambda L, d: L.div(L.tensor([1.0, -1.0, 0.0], **d), 0.0, rounding_mode="trunc"), device)


# ---- in-place forms --------------------------------------------------------------------------
INPLACE = {
    "ifloordiv": lambda L, t, d: t.__ifloordiv__(L.tensor([2.0, -2.0, 3.0], **d)),
    "imod": lambda L, t, d: t.__imod__(-2.5),
    "floor_divide_": lambda L, t, d: t.floor_divide_(2),
    "remainder_": lambda L, t, d: t.remainder_(L.tensor([[2.0], [-3.0]], **d)),
    "fmod_": lambda L, t, d: t.fmod_(-2.0),
    "div_-trunc": lambda L, t, d: t.div_(2, rounding_mode="trunc"),
    "div_-floor": lambda L, t, d: t.div_(L.tensor(-2.0, **d), rounding_mode="floor"),
    "div_-none": lambda L, t, d: t.div_(4, rounding_mode=None),
    "divide_": lambda L, t, d: t.divide_(4, rounding_mode="floor"),
    "true_divide_": lambda L, t, d: t.true_divide_(4),
}


@pytest.mark.parametrize("name", list(INPLACE))
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_inplace(device, name, dtype):
    def run(L, d):
        t = L.tensor([[7.0, -7.0, 5.5], [-0.5, 9.0, -9.0]], **d).to(getattr(L, dtype))
        r = INPLACE[name](L, t, d)
        assert r is t
        return t
    same_as_torch(run, device)


# ---- autograd --------------------------------------------------------------------------------
GRADS = {
    "remainder": lambda L, a, b: a % b,
    "remainder-scalar": lambda L, a, b: a % -2.5,
    "fmod": lambda L, a, b: L.fmod(a, b),
    "fmod-scalar": lambda L, a, b: a.fmod(2.0),
    "remainder-broadcast": lambda L, a, b: (a.reshape(4, 1) % b[:2]).sum(1),
    "fmod-broadcast": lambda L, a, b: L.fmod(a[:2], b.reshape(4, 1)).sum(1),
    "remainder-a-only": lambda L, a, b: a % b.detach(),
    "remainder-b-only": lambda L, a, b: a.detach() % b,
    "remainder-int-other": lambda L, a, b: a % L.tensor([2, 3, -4, 5], device=a.device),
    "remainder-int-self": lambda L, a, b: L.tensor([5, -6, 7, 8], device=b.device) % b,
    "div-trunc": lambda L, a, b: L.div(a, b, rounding_mode="trunc"),
    "div-floor": lambda L, a, b: a.div(b, rounding_mode="floor"),
    "div-floor-scalar": lambda L, a, b: a.div(2.0, rounding_mode="floor"),
    "div-floor-number-first": lambda L, a, b: L.div(5.0, b, rounding_mode="floor"),
    "div-none": lambda L, a, b: L.div(a, b, rounding_mode=None),
    "div-none-scalar": lambda L, a, b: a.div(2.0, rounding_mode=None),
    "true_divide": lambda L, a, b: L.true_divide(a, b),
    "imod": lambda L, a, b: a.clone().__imod__(b),
    "fmod_": lambda L, a, b: a.clone().fmod_(2.0),
    "div_-floor": lambda L, a, b: a.clone().div_(b, rounding_mode="floor"),
    # torch records these without a derivative: backward raises
    "floor_divide": lambda L, a, b: a // b,
    "floor_divide-scalar": lambda L, a, b: L.floor_divide(a, 2.0),
    "rfloordiv": lambda L, a, b: 2.0 // a,
    "ifloordiv": lambda L, a, b: a.clone().__ifloordiv__(2.0),
    "rmod": lambda L, a, b: 2.0 % a,
    "remainder-number-first": lambda L, a, b: L.remainder(2.0, a),
}


@pytest.mark.parametrize("name", list(GRADS))
def test_gradients_and_nodes(device, name):
    def run(L, d):
        a = L.tensor([7.0, -7.0, 5.5, 3.0], requires_grad=True, **d)
        b = L.tensor([2.0, 0.0, -1.5, 1.0], requires_grad=True, **d)
        out = GRADS[name](L, a, b)
        node = out.grad_fn.name()
        # a NaN and an infinite incoming gradient: the rounding modes' zeros stay zeros
        cot = L.tensor([1.0, INF, NAN, 2.0], **d)[:out.shape[0]]
        try:
            out.backward(cot)
        except RuntimeError as e:
            return node, out.requires_grad, "RuntimeError", str(e)
        grads = [None if t.grad is None else _bits(t.grad.cpu().numpy()) for t in (a, b)]
        return node, _bits(out.detach().cpu().numpy()), grads
    got = run(minigrad, _dev(device))
    if torch is not None:
        assert got == run(torch, {})


@pytest.mark.parametrize("op", ["remainder", "fmod"])
def test_gradcheck_and_gradgradcheck(device, op):
    rng = np.random.default_rng(0)
    # away from the jumps of the remainder, where finite differences are meaningless
    a = minigrad.tensor(rng.uniform(0.2, 0.8, (3, 4)) + rng.integers(-3, 4, (3, 4)), dtype=minigrad.float64,
                        requires_grad=True, **_dev(device))
    b = minigrad.tensor([1.5, -2.5, 3.5, -1.25], dtype=minigrad.float64, requires_grad=True, **_dev(device))

    def fn(x, y):
        return getattr(minigrad, op)(x, y) * 1.0
    assert gradcheck(fn, (a, b), eps=1e-7)
    assert gradgradcheck(fn, (a, b), eps=1e-7)


def test_no_grad_and_requires_grad(device):
    a = minigrad.tensor([3.0, -4.0], requires_grad=True, **_dev(device))
    with minigrad.no_grad():
        assert not (a // 2).requires_grad and not (a % 2).requires_grad
    assert (a // 2).requires_grad and (a % 2).requires_grad
