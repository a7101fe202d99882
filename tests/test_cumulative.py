"""torch.cumsum / torch.cumprod (functions, Tensor methods, in-place forms) and torch.cummax /
torch.cummin: values, dtypes, argument errors and gradients as torch 2.13's, on every device;
each expectation is also checked against torch when it is importable.

On the CPU the values are torch's bit for bit: torch's CPU kernel accumulates float32 in
float64 and rounds each output once, and so does minigrad (the CUDA kernels too, though their
parallel order of additions may differ from torch's sequential one in float64's last bits)."""
import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:
    torch = None


def outcome(fn, lib):
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, str(e).replace("torch", "minigrad")
    if isinstance(r, tuple):  # a return_types named tuple: its type's name and repr too
        return (type(r).__name__, repr(r).replace("torch", "minigrad"),
                [(str(t.dtype).split(".")[-1], t.tolist()) for t in r])
    return str(r.dtype).split(".")[-1], r.tolist()


M = [[1.0, 2.0], [3.0, 4.0]]
CASES = {
    "cumsum-dim0": (lambda L: L.cumsum(L.tensor(M), 0), ("float32", [[1.0, 2.0], [4.0, 6.0]])),
    "cumsum-dim1": (lambda L: L.tensor(M).cumsum(1), ("float32", [[1.0, 3.0], [3.0, 7.0]])),
    "cumsum-neg": (lambda L: L.tensor(M).cumsum(dim=-1), ("float32", [[1.0, 3.0], [3.0, 7.0]])),
    "cumsum-keywords": (lambda L: L.cumsum(input=L.tensor(M), dim=0), ("float32", [[1.0, 2.0], [4.0, 6.0]])),
    "cumsum-axis": (lambda L: L.tensor(M).cumsum(axis=0), ("float32", [[1.0, 2.0], [4.0, 6.0]])),
    "cumprod-dim1": (lambda L: L.cumprod(L.tensor(M), 1), ("float32", [[1.0, 2.0], [3.0, 12.0]])),
    "cumprod-method": (lambda L: L.tensor(M).cumprod(dim=0), ("float32", [[1.0, 2.0], [3.0, 8.0]])),
    "int64": (lambda L: L.tensor([1, 2, 3]).cumsum(0), ("int64", [1, 3, 6])),
    "int32-to-int64": (lambda L: L.tensor([1, 2], dtype=L.int32).cumsum(0), ("int64", [1, 3])),
    "int32-prod-to-int64": (lambda L: L.tensor([3, 2], dtype=L.int32).cumprod(0), ("int64", [3, 6])),
    "bool": (lambda L: L.tensor([True, False, True]).cumsum(0), ("int64", [1, 1, 2])),
    "bool-prod": (lambda L: L.tensor([True, False, True]).cumprod(0), ("int64", [1, 0, 0])),
    "dtype-float64": (lambda L: L.tensor([1, 2]).cumsum(0, dtype=L.float64), ("float64", [1.0, 3.0])),
    "dtype-int32": (lambda L: L.tensor([1.5, 2.5]).cumsum(0, dtype=L.int32), ("int32", [1, 3])),
    "dtype-int32-wraps": (lambda L: L.tensor([2 ** 31 - 1, 1], dtype=L.int32).cumsum(0, dtype=L.int32),
                          ("int32", [2 ** 31 - 1, -2 ** 31])),
    "dtype-none": (lambda L: L.cumsum(L.tensor([1, 2]), dim=0, dtype=None), ("int64", [1, 3])),
    "0-d": (lambda L: L.tensor(3.0).cumsum(0), ("float32", 3.0)),
    "0-d-neg": (lambda L: L.tensor(3.0).cumprod(-1), ("float32", 3.0)),
    "empty": (lambda L: L.zeros(0, 3).cumsum(1), ("float32", [])),
    "wraps": (lambda L: L.tensor([2 ** 62, 2 ** 62, 4]).cumsum(0), ("int64", [2 ** 62, -2 ** 63, -2 ** 63 + 4])),
    "prod-wraps": (lambda L: L.tensor([2 ** 40, 2 ** 40, 3]).cumprod(0), ("int64", [2 ** 40, 0, 0])),
    "nan-inf": (lambda L: L.tensor([1.0, float("inf"), -float("inf"), 2.0]).cumsum(0),
                ("float32", [1.0, float("inf"), float("nan"), float("nan")])),
    "in-place": (lambda L: L.tensor([1.0, 2.0, 3.0]).cumsum_(0), ("float32", [1.0, 3.0, 6.0])),
    "in-place-prod": (lambda L: L.tensor([1.0, 2.0, 3.0]).cumprod_(dim=0), ("float32", [1.0, 2.0, 6.0])),
    "in-place-int32-wraps": (lambda L: L.tensor([2 ** 31 - 1, 1], dtype=L.int32).cumsum_(0),
                             ("int32", [2 ** 31 - 1, -2 ** 31])),
    "in-place-same-dtype": (lambda L: L.tensor([1.0, 2.0]).cumsum_(0, dtype=L.float32), ("float32", [1.0, 3.0])),
    # errors
    "missing-dim": (lambda L: L.cumsum(L.tensor(M)),
                    ("TypeError", 'cumsum() missing 1 required positional arguments: "dim"')),
    "method-missing-dim": (lambda L: L.tensor(M).cumprod(),
                           ("TypeError", 'cumprod() missing 1 required positional arguments: "dim"')),
    "in-place-missing-dim": (lambda L: L.tensor(M).cumsum_(),
                             ("TypeError", 'cumsum_() missing 1 required positional arguments: "dim"')),
    "dim-out-of-range": (lambda L: L.tensor(M).cumsum(2),
                         ("IndexError", "Dimension out of range (expected to be in range of [-2, 1], but got 2)")),
    "dim-out-of-range-neg": (lambda L: L.tensor(M).cumprod(-3),
                             ("IndexError", "Dimension out of range (expected to be in range of [-2, 1], but got -3)")),
    "0-d-out-of-range": (lambda L: L.tensor(3.0).cumsum(1),
                         ("IndexError", "Dimension out of range (expected to be in range of [-1, 0], but got 1)")),
    "float-dim": (lambda L: L.cumsum(L.tensor(M), 1.5),
                  ("TypeError", "cumsum(): argument 'dim' (position 2) must be int, not float")),
    "bool-dim": (lambda L: L.tensor(M).cumsum(True),
                 ("TypeError", "cumsum(): argument 'dim' (position 1) must be int, not bool")),
    "none-dim": (lambda L: L.tensor(M).cumprod(None),
                 ("TypeError", "cumprod(): argument 'dim' (position 1) must be int, not NoneType")),
    "tuple-dim": (lambda L: L.tensor(M).cumsum(dim=(0,)),
                  ("TypeError", "cumsum(): argument 'dim' must be int, not tuple")),
    "str-dim-in-place": (lambda L: L.tensor(M).cumsum_(1.0),
                         ("TypeError", "cumsum_(): argument 'dim' (position 1) must be int, not float")),
    "dtype-not-a-dtype": (lambda L: L.cumsum(L.tensor(M), 0, dtype=3),
                          ("TypeError", "cumsum(): argument 'dtype' must be minigrad.dtype, not int")),
    "dtype-str": (lambda L: L.tensor(M).cumprod(0, dtype="float"),
                  ("TypeError", "cumprod(): argument 'dtype' must be minigrad.dtype, not str")),
    "dtype-positional": (lambda L: L.cumsum(L.tensor(M), 0, L.float64),
                         ("TypeError", "cumsum() takes 2 positional arguments but 3 were given")),
    "method-dtype-positional": (lambda L: L.tensor(M).cumsum(0, L.float64),
                                ("TypeError", "cumsum() takes 1 positional argument but 2 were given")),
    "not-a-tensor": (lambda L: L.cumprod([1, 2], 0),
                     ("TypeError", "cumprod(): argument 'input' (position 1) must be Tensor, not list")),
    "unknown-keyword": (lambda L: L.cumsum(L.tensor(M), dim=0, foo=1),
                        ("TypeError", "cumsum() got an unexpected keyword argument 'foo'")),
    "dtype-bool": (lambda L: L.tensor([1, 2]).cumsum(0, dtype=L.bool),
                   ("NotImplementedError", "\"cumsum_out_cpu\" not implemented for 'Bool'")),
    "prod-dtype-bool": (lambda L: L.tensor([1, 2]).cumprod(0, dtype=L.bool),
                        ("NotImplementedError", "\"cumprod_out_cpu\" not implemented for 'Bool'")),
    "in-place-bool": (lambda L: L.tensor([True, False]).cumsum_(0),
                      ("NotImplementedError", "\"cumsum_out_cpu\" not implemented for 'Bool'")),
    "in-place-other-dtype": (lambda L: L.tensor([1.0, 2.0]).cumsum_(0, dtype=L.float64),
                             ("RuntimeError", "Bad in-place call: input tensor dtype float and output tensor dtype "
                                              "double should match")),
    "in-place-int-other-dtype": (lambda L: L.tensor([1, 2]).cumprod_(0, dtype=L.int32),
                                 ("RuntimeError", "Bad in-place call: input tensor dtype long int and output tensor "
                                                  "dtype int should match")),
    "in-place-leaf": (lambda L: L.tensor([1.0, 2.0], requires_grad=True).cumsum_(0),
                      ("RuntimeError", "a leaf Variable that requires grad is being used in an in-place operation.")),
    "int-dtype-with-grad": (lambda L: L.tensor([1.0, 2.0], requires_grad=True).cumsum(0, dtype=L.int64),
                            ("RuntimeError", "Autograd not support dtype: Long")),
}
NAN = float("nan")
EXTREMES = {
    "cummax-ties-nan": (lambda L: L.cummax(L.tensor([1.0, 3.0, 3.0, 2.0, NAN, 5.0, NAN, 1.0]), 0),
                        [1.0, 3.0, 3.0, 3.0, NAN, NAN, NAN, NAN], [0, 1, 2, 2, 4, 4, 6, 6]),
    "cummin-ties-nan": (lambda L: L.tensor([1.0, 0.0, 0.0, 2.0, NAN, -5.0, NAN, 1.0]).cummin(0),
                        [1.0, 0.0, 0.0, 0.0, NAN, NAN, NAN, NAN], [0, 1, 2, 2, 4, 4, 6, 6]),
    "cummax-signed-zeros": (lambda L: L.cummax(L.tensor([0.0, -0.0, 0.0]), dim=0), [0.0, -0.0, 0.0], [0, 1, 2]),
    "cummax-bool": (lambda L: L.tensor([True, False, True]).cummax(0), [True, True, True], [0, 0, 2]),
    "cummin-int32": (lambda L: L.tensor([[3, 1, 2], [0, 5, 0]], dtype=L.int32).cummin(1),
                     [[3, 1, 1], [0, 0, 0]], [[0, 1, 1], [0, 0, 2]]),
    "cummax-dim0": (lambda L: L.cummax(L.tensor([[1, 5], [4, 2], [4, 9]]), -2), [[1, 5], [4, 5], [4, 9]],
                    [[0, 0], [1, 0], [2, 2]]),
    "cummax-0d": (lambda L: L.cummax(L.tensor(2.0), 0), 2.0, 0),
    "cummin-empty": (lambda L: L.cummin(L.zeros(0, 2), 0), [], []),
}
CASES.update({
    "cummax-missing-dim": (lambda L: L.cummax(L.tensor(M)),
                           ("TypeError", 'cummax() missing 1 required positional arguments: "dim"')),
    "cummin-method-missing-dim": (lambda L: L.tensor(M).cummin(),
                                  ("TypeError", 'cummin() missing 1 required positional arguments: "dim"')),
    "cummax-float-dim": (lambda L: L.tensor(M).cummax(1.5),
                         ("TypeError", "cummax(): argument 'dim' (position 1) must be int, not float")),
    "cummax-out-of-range": (lambda L: L.tensor([1.0, 2.0]).cummax(1),
                            ("IndexError", "Dimension out of range (expected to be in range of [-1, 0], but got 1)")),
    "cummax-extra-positional": (lambda L: L.cummax(L.tensor(M), 0, 1),
                                ("TypeError", "cummax() takes 2 positional arguments but 3 were given")),
    "cummin-no-dtype": (lambda L: L.cummin(L.tensor(M), dim=0, dtype=L.float64),
                        ("TypeError", "cummin() got an unexpected keyword argument 'dtype'")),
})


@pytest.mark.parametrize("name", list(EXTREMES))
def test_cummax_cummin_values_indices_and_return_type(name):
    fn, values, indices = EXTREMES[name]
    kind = name.split("-")[0]
    got = outcome(fn, minigrad)
    assert got[0] == kind and got[1].startswith(f"minigrad.return_types.{kind}(\nvalues=tensor(")
    (vdtype, v), (idtype, i) = got[2]
    assert repr(v) == repr(values) and i == indices and idtype == "int64"
    r = fn(minigrad)
    assert r.values is r[0] and r.indices is r[1]
    if vdtype.startswith("float"):  # the sign of a zero: the value is the element at the index
        assert np.signbit(r.values.numpy()).tolist() == np.signbit(np.array(values)).tolist()
    if torch is not None:
        assert repr(outcome(fn, torch)) == repr(got)


@pytest.mark.parametrize("name", list(CASES))
def test_values_dtypes_and_errors(name):
    fn, expect = CASES[name]
    got = outcome(fn, minigrad)
    assert repr(got) == repr(expect)  # repr: nan equals nan
    if torch is not None:
        assert repr(outcome(fn, torch)) == repr(expect)


def _values(shape, dtype, kind, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in ("int64", "int32"):
        return rng.integers(-3, 4, shape).astype(dtype)
    if kind == "cumprod":  # near 1: long products neither overflow nor underflow
        return rng.uniform(0.999, 1.001, shape).astype(dtype) * rng.choice([-1, 1], shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


SHAPES = [((), 0), ((0,), 0), ((1,), 0), ((7,), -1), ((5000,), 0), ((3, 5000), 1), ((3, 5000), 0),
          ((2, 0, 3), 1), ((2, 0, 3), 2), ((4, 70, 33), 1), ((4, 70, 33), 0), ((3, 100, 5), 1),
          ((2, 10, 40), -2), ((37, 33), 1), ((2, 3, 4, 5), 2)]


def _check_like_torch(got, want, device):
    assert got.dtype == want.dtype and got.shape == want.shape
    if device == "cpu" or got.dtype.kind != "f":  # torch's CPU kernel's values, bit for bit
        assert got.tobytes() == want.tobytes()
    else:  # the GPU scans in parallel: another order of the float64 additions
        np.testing.assert_allclose(got, want, rtol=1e-5 if got.dtype == np.float32 else 1e-10, atol=1e-6)


@pytest.mark.parametrize("kind", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
@pytest.mark.parametrize("shape,dim", SHAPES, ids=[f"{'x'.join(map(str, s)) or '0d'}-dim{d}" for s, d in SHAPES])
def test_values_match_torch(device, kind, dtype, shape, dim):
    x = _values(shape, dtype, kind)
    got = getattr(minigrad.tensor(x, device=device), kind)(dim).cpu().numpy()
    if dtype.startswith("float"):
        want = getattr(np, kind)(x.astype(np.float64).reshape(x.shape or (1,)), dim).astype(dtype).reshape(shape)
    else:
        want = getattr(np, kind)(x.reshape(x.shape or (1,)), dim, dtype=np.int64).reshape(shape)
    _check_like_torch(got, want, device)
    if torch is not None:
        _check_like_torch(got, getattr(torch.tensor(x), kind)(dim).numpy(), device)


@pytest.mark.parametrize("kind", ["cumsum", "cumprod"])
def test_non_contiguous_inputs(device, kind):
    x = _values((6, 40, 9), "float64", kind, seed=3)
    t = minigrad.tensor(x, device=device)
    for view, ref in ((t.transpose(0, 2), np.swapaxes(x, 0, 2)), (t[:, ::3], x[:, ::3]),
                      (t.permute(2, 0, 1), x.transpose(2, 0, 1))):
        for dim in range(3):
            got = getattr(view, kind)(dim).cpu().numpy()
            np.testing.assert_allclose(got, getattr(np, kind)(ref, dim), rtol=1e-12, atol=1e-12)


def _grads(lib, x, kind, dim, weights, device=None, **kw):
    dev = {} if device is None else {"device": device}
    t = lib.tensor(x, requires_grad=True, **dev)
    out = getattr(t, kind)(dim, **kw)
    (out * lib.tensor(weights, **dev)).sum().backward()
    return out.grad_fn.name(), t.grad.cpu().numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,dim", [((7,), 0), ((3, 5000), 1), ((4, 70, 33), 1), ((4, 70, 33), 0), ((), 0)])
def test_cumsum_gradient_is_torchs_reversed_cumsum(device, dtype, shape, dim):
    x = _values(shape, dtype, "cumsum", seed=1)
    w = _values(shape, dtype, "cumsum", seed=2)
    name, grad = _grads(minigrad, x, "cumsum", dim, w, device)
    assert name == "CumsumBackward0" and grad.dtype == np.dtype(dtype)
    want = np.flip(np.cumsum(np.flip(w.reshape(w.shape or (1,)), dim).astype(np.float64), dim), dim)
    _check_like_torch(grad, want.astype(dtype).reshape(shape), device)
    if torch is not None:
        tname, tgrad = _grads(torch, x, "cumsum", dim, w)
        assert tname == name
        _check_like_torch(grad, tgrad, device)


def test_dtype_argument_casts_first_and_the_gradient_comes_back_in_the_input_dtype(device):
    x = np.array([[0.5, 1.5, -2.0], [1.0, 2.0, 3.0]], np.float32)
    for kind in ("cumsum", "cumprod"):
        t = minigrad.tensor(x, requires_grad=True, device=device)
        out = getattr(t, kind)(1, dtype=minigrad.float64)
        assert out.dtype == minigrad.float64 and out.grad_fn.name() == kind.capitalize() + "Backward0"
        out.sum().backward()
        assert t.grad.dtype == minigrad.float32
        if torch is not None:
            tt = torch.tensor(x, requires_grad=True)
            getattr(tt, kind)(1, dtype=torch.float64).sum().backward()
            np.testing.assert_allclose(t.grad.cpu().numpy(), tt.grad.numpy(), rtol=1e-6)


# slices without zeros, with one zero (first, middle, last), with two and three zeros
ZEROS = np.array([[1.5, -2.0, 0.5, 3.0, 0.7], [0.0, 2.0, -1.5, 4.0, 1.1], [1.2, 2.0, 0.0, -4.0, 0.9],
                  [1.2, 2.0, 0.3, -4.0, 0.0], [0.6, 0.0, -1.0, 0.0, 1.3], [0.0, 0.0, 2.0, 0.0, 1.5]])


def _cumprod_grad_by_hand(x, w):
    """d/dx_k of sum_i w_i * prod_{j <= i} x_j, each product of the other elements written out."""
    n = x.shape[-1]
    out = np.zeros_like(x)
    for r in range(x.shape[0]):
        for k in range(n):
            out[r, k] = sum(w[r, i] * np.prod(np.delete(x[r, :i + 1], k)) for i in range(k, n))
    return out


@pytest.mark.parametrize("transpose", [False, True])
def test_cumprod_gradient_around_zeros(device, transpose):
    w = np.random.default_rng(4).uniform(0.5, 1.5, ZEROS.shape)
    want = _cumprod_grad_by_hand(ZEROS, w)
    x, wx, dim = (ZEROS.T, w.T, 0) if transpose else (ZEROS, w, 1)
    name, grad = _grads(minigrad, x, "cumprod", dim, wx, device)
    assert name == "CumprodBackward0"
    np.testing.assert_allclose(grad.T if transpose else grad, want, rtol=1e-12, atol=1e-15)
    if torch is not None:
        tname, tgrad = _grads(torch, x, "cumprod", dim, wx)
        assert tname == name
        np.testing.assert_allclose(grad, tgrad, rtol=1e-12, atol=1e-15)


def test_cumprod_gradient_without_zeros_is_torchs_bit_for_bit():
    x = np.random.default_rng(5).uniform(0.5, 1.5, (6, 300)).astype(np.float32)
    w = np.random.default_rng(6).uniform(-1, 1, (6, 300)).astype(np.float32)
    _, grad = _grads(minigrad, x, "cumprod", 1, w)
    out = np.cumprod(x.astype(np.float64), 1).astype(np.float32)
    want = np.flip(np.cumsum(np.flip(out * w, 1).astype(np.float64), 1), 1).astype(np.float32) / x
    assert grad.tobytes() == want.tobytes()
    if torch is not None:
        assert grad.tobytes() == _grads(torch, x, "cumprod", 1, w)[1].tobytes()


@pytest.mark.parametrize("kind", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gradcheck_and_gradgradcheck(device, kind, dim):
    x = minigrad.tensor(np.random.default_rng(7).uniform(0.5, 1.5, (3, 4)) * [1, -1, 1, -1],
                        dtype=minigrad.float64, device=device, requires_grad=True)
    assert gradcheck(lambda t: getattr(t, kind)(dim), (x,))
    assert gradgradcheck(lambda t: getattr(t, kind)(dim), (x,))


@pytest.mark.parametrize("dim", [0, 1])
def test_cumprod_gradcheck_and_gradgradcheck_with_zeros(device, dim):
    x = minigrad.tensor(ZEROS, dtype=minigrad.float64, device=device, requires_grad=True)
    assert gradcheck(lambda t: t.cumprod(dim), (x,))
    assert gradgradcheck(lambda t: t.cumprod(dim), (x,))


def test_cumprod_double_backward_with_zeros_matches_torch():
    def hess_vec(lib):
        x = lib.tensor(ZEROS[:, :4], dtype=lib.float64, requires_grad=True)
        w = lib.tensor(np.linspace(0.5, 1.5, 24).reshape(6, 4), dtype=lib.float64)
        (g,) = lib.autograd.grad((x.cumprod(1) * w).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad((g * w).sum(), x)
        return g.detach().numpy(), h.numpy()
    g, h = hess_vec(minigrad)
    np.testing.assert_allclose(g, _cumprod_grad_by_hand(ZEROS[:, :4], np.linspace(0.5, 1.5, 24).reshape(6, 4)),
                               rtol=1e-12, atol=1e-15)
    if torch is not None:
        tg, th = hess_vec(torch)
        np.testing.assert_allclose(g, tg, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(h, th, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("kind", ["cumsum", "cumprod"])
def test_in_place_on_a_non_leaf_records_the_op(device, kind):
    x = np.array([[0.5, 1.5, -2.0], [1.0, 2.0, 3.0]])

    def run(lib, **dev):
        t = lib.tensor(x, requires_grad=True, **dev)
        y = t * 1.0
        r = getattr(y, kind + "_")(1)
        assert r is y
        name = y.grad_fn.name()
        (y * lib.tensor(x, **dev)).sum().backward()
        return name, y.detach().cpu().numpy(), t.grad.cpu().numpy()
    name, val, grad = run(minigrad, device=device)
    assert name == kind.capitalize() + "Backward0"
    if torch is not None:
        tname, tval, tgrad = run(torch)
        assert tname == name
        np.testing.assert_allclose(val, tval, rtol=1e-12)
        np.testing.assert_allclose(grad, tgrad, rtol=1e-12)


def _with_ties_and_nans(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    x = rng.integers(-3, 4, shape).astype(dtype)  # few values: many ties
    if dtype.startswith("float") and x.size:
        x[rng.random(shape) < 0.02] = np.nan
    return x


@pytest.mark.parametrize("kind", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
@pytest.mark.parametrize("shape,dim", SHAPES, ids=[f"{'x'.join(map(str, s)) or '0d'}-dim{d}" for s, d in SHAPES])
def test_cummax_cummin_match_torch(device, kind, dtype, shape, dim):
    x = _with_ties_and_nans(shape, dtype, 8)
    values, indices = getattr(minigrad.tensor(x, device=device), kind)(dim)
    values, indices = values.cpu().numpy(), indices.cpu().numpy()
    assert values.dtype == x.dtype and indices.dtype == np.int64 and values.shape == indices.shape == x.shape
    # torch's rule: the values are the elements at the indices
    moved = x.reshape(x.shape or (1,))
    at = np.take_along_axis(moved, indices.reshape(moved.shape), dim).reshape(x.shape)
    assert at.tobytes() == values.tobytes()
    if torch is not None:
        tv, ti = getattr(torch.tensor(x), kind)(dim)
        assert values.tobytes() == tv.numpy().tobytes() and indices.tobytes() == ti.numpy().tobytes()


@pytest.mark.parametrize("kind", ["cummax", "cummin"])
@pytest.mark.parametrize("shape,dim", [((9,), 0), ((3, 5000), 1), ((4, 70, 33), 1), ((4, 70, 33), 0), ((), 0),
                                       ((0, 3), 0)])
def test_cummax_cummin_gradient_goes_to_the_indices(device, kind, shape, dim):
    x = _with_ties_and_nans(shape, "float64", 9)
    w = np.random.default_rng(10).uniform(0.5, 1.5, shape)
    name, grad = _grads_of_values(minigrad, x, kind, dim, w, device)
    assert name == kind.capitalize() + "Backward0"
    if torch is not None:
        tname, tgrad = _grads_of_values(torch, x, kind, dim, w)
        assert tname == name
        np.testing.assert_allclose(grad, tgrad, rtol=1e-12, atol=0)


def _grads_of_values(lib, x, kind, dim, weights, device=None):
    dev = {} if device is None else {"device": device}
    t = lib.tensor(x, requires_grad=True, **dev)
    values, indices = getattr(t, kind)(dim)
    assert not indices.requires_grad
    (values * lib.tensor(weights, **dev)).sum().backward()
    return values.grad_fn.name(), t.grad.cpu().numpy()


@pytest.mark.parametrize("kind", ["cummax", "cummin"])
@pytest.mark.parametrize("dim", [0, 1])
def test_cummax_cummin_gradcheck_and_gradgradcheck(device, kind, dim):
    x = minigrad.tensor(np.random.default_rng(11).permutation(12).reshape(3, 4) * 0.5, dtype=minigrad.float64,
                        device=device, requires_grad=True)  # distinct values: no ties to differentiate across
    assert gradcheck(lambda t: getattr(t, kind)(dim).values, (x,))
    assert gradgradcheck(lambda t: getattr(t, kind)(dim).values, (x,))
