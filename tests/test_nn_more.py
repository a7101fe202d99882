"""More nn layers and functions against torch: the activations silu, mish, hardtanh, relu6,
logsigmoid, softmin, hardsigmoid, hardswish, prelu, celu, selu, threshold, tanhshrink,
softshrink, hardshrink (functions and modules), embedding and one_hot, nn.Unflatten,
nn.ParameterList and nn.ParameterDict.

Every expected value, gradient, node name, repr and error message comes from torch at test time;
each test runs on every device (the CUDA backend too, emulated where there is no GPU).
"""
import functools
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import minigrad
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

from test_nn_functional import _OnDevice, _np  # noqa: E402  (minigrad on one device; a tensor as NumPy)


def same_error(call, device):
    """call(lib, F) raises the same exception type and message on both libraries."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as want:
            call(torch, torch.nn.functional)
        with pytest.raises(Exception) as got:
            call(_OnDevice(device), F)
    assert type(got.value).__name__ == type(want.value).__name__, str(got.value)
    assert str(got.value) == str(want.value).replace("torch.Size", "minigrad.Size")


# the kinks of every activation below, then random values
_KINKS = [-7.0, -6.0, -3.0, -2.0, -1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0, 2.0, 3.0, 6.0, 7.0, 30.0, -30.0]


def _inputs(dtype, n=40):
    r = np.random.default_rng(0)
    return np.concatenate([np.array(_KINKS), r.standard_normal(n) * 4]).astype(dtype)


ACTIVATIONS = {
    "silu": lambda F, x: F.silu(x),
    "mish": lambda F, x: F.mish(x),
    "hardtanh": lambda F, x: F.hardtanh(x),
    "hardtanh-2-3": lambda F, x: F.hardtanh(x, -2.0, 3.0),
    "relu6": lambda F, x: F.relu6(x),
    "logsigmoid": lambda F, x: F.logsigmoid(x),
    "softmin": lambda F, x: F.softmin(x, dim=0),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x),
    "hardswish": lambda F, x: F.hardswish(x),
    "celu": lambda F, x: F.celu(x),
    "celu-2": lambda F, x: F.celu(x, alpha=2.0),
    "selu": lambda F, x: F.selu(x),
    "threshold": lambda F, x: F.threshold(x, 1.0, 20.0),
    "threshold-neg": lambda F, x: F.threshold(x, -0.5, -2),
    "tanhshrink": lambda F, x: F.tanhshrink(x),
    "softshrink": lambda F, x: F.softshrink(x),
    "softshrink-1": lambda F, x: F.softshrink(x, 1),
    "hardshrink": lambda F, x: F.hardshrink(x),
    "hardshrink-2": lambda F, x: F.hardshrink(x, lambd=2.0),
}


def _compare_activation(call, device, dtype, shape=None, inplace=False):
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    x = _inputs(dtype)
    if shape is not None:
        x = x[:int(np.prod(shape))].reshape(shape)
    xm = minigrad.tensor(x, device=device, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    # the in-place forms write into a non-leaf copy
    om, ot = (call(F, xm * 1), call(torch.nn.functional, xt * 1)) if inplace else \
        (call(F, xm), call(torch.nn.functional, xt))
    assert om.dtype == getattr(minigrad, str(ot.dtype).split(".")[1])
    np.testing.assert_allclose(_np(om), ot.detach().numpy(), **tol)
    assert om.grad_fn.name() == ot.grad_fn.name()
    cot = np.random.default_rng(1).standard_normal(tuple(ot.shape)).astype(dtype)
    om.backward(minigrad.tensor(cot, device=device))
    ot.backward(torch.tensor(cot))
    np.testing.assert_allclose(_np(xm.grad), xt.grad.numpy(), **tol)
    # at the kinks the gradient takes torch's side exactly
    if shape is None:
        k = len(_KINKS)
        np.testing.assert_array_equal(_np(xm.grad)[:k] == 0, xt.grad.numpy()[:k] == 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_matches_torch(device, name, dtype):
    _compare_activation(ACTIVATIONS[name], device, dtype)


@pytest.mark.parametrize("name", ["silu", "hardswish", "celu", "softshrink"])
def test_activation_nd_and_empty(device, name):
    _compare_activation(ACTIVATIONS[name], device, np.float64, shape=(2, 3, 4))
    for lib, f in ((minigrad, F), (torch, torch.nn.functional)):
        out = ACTIVATIONS[name](f, lib.zeros(0, 3))
        assert tuple(out.shape) == (0, 3)


INPLACE = {
    "silu": lambda F, x: F.silu(x, inplace=True),
    "mish": lambda F, x: F.mish(x, inplace=True),
    "hardtanh": lambda F, x: F.hardtanh(x, -0.5, 2.0, inplace=True),
    "relu6": lambda F, x: F.relu6(x, inplace=True),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x, inplace=True),
    "hardswish": lambda F, x: F.hardswish(x, inplace=True),
    "celu": lambda F, x: F.celu(x, 1.5, inplace=True),
    "selu": lambda F, x: F.selu(x, inplace=True),
    "threshold": lambda F, x: F.threshold(x, 0.5, -1.0, inplace=True),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_activation_matches_torch(device, name, dtype):
    _compare_activation(INPLACE[name], device, dtype, inplace=True)


def test_inplace_activation_writes_the_input(device):
    x = minigrad.tensor([-4.0, -1.0, 0.5, 4.0], device=device)
    y = F.hardswish(x, inplace=True)
    assert y is x and x._version == 1
    np.testing.assert_allclose(_np(x), [0.0, -1 / 3, 0.5 * 3.5 / 6, 4.0])
    with pytest.raises(RuntimeError, match="leaf Variable"):
        F.silu(minigrad.ones(2, device=device, requires_grad=True), inplace=True)


@pytest.mark.parametrize("name", ["silu", "mish", "logsigmoid", "hardswish", "celu-2", "selu", "softshrink"])
def test_activation_double_backward(device, name):
    # away from the kinks, where the second derivative exists
    x = minigrad.tensor([-2.5, -1.2, -0.7, 0.8, 1.9, 2.6], dtype=minigrad.float64, device=device,
                        requires_grad=True)
    f = functools.partial(ACTIVATIONS[name], F)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


@pytest.mark.parametrize("wshape,xshape", [((1,), (4, 3)), ((3,), (4, 3)), ((3,), (2, 3, 5)), ((), (2, 3)),
                                            ((1,), (5,)), ((1,), ()), ((2,), (0, 2, 2))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_prelu_matches_torch(device, wshape, xshape, dtype):
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    r = np.random.default_rng(3)
    x = r.standard_normal(xshape).astype(dtype)
    if x.size:
        x.reshape(-1)[0] = 0.0  # the kink: torch gives weight * g there, and x * g = 0 to the weight
    w = (r.standard_normal(wshape) * 0.3).astype(dtype)
    xm, wm = (minigrad.tensor(a, device=device, requires_grad=True) for a in (x, w))
    xt, wt = (torch.tensor(a, requires_grad=True) for a in (x, w))
    om, ot = F.prelu(xm, wm), torch.nn.functional.prelu(xt, wt)
    np.testing.assert_allclose(_np(om), ot.detach().numpy(), **tol)
    assert om.grad_fn.name() == ot.grad_fn.name()
    cot = r.standard_normal(tuple(ot.shape)).astype(dtype)
    om.backward(minigrad.tensor(cot, device=device))
    ot.backward(torch.tensor(cot))
    np.testing.assert_allclose(_np(xm.grad), xt.grad.numpy(), **tol)
    np.testing.assert_allclose(_np(wm.grad), wt.grad.numpy(), **tol)


def test_prelu_module(device):
    for args in [(), (3,), (3, 0.1)]:
        m, t = nn.PReLU(*args).to(device), torch.nn.PReLU(*args)
        assert repr(m) == repr(t)
        np.testing.assert_array_equal(_np(m.weight), t.weight.detach().numpy())
        assert list(m.state_dict()) == list(t.state_dict())
    x = np.random.default_rng(4).standard_normal((2, 3, 4)).astype(np.float32)
    m, t = nn.PReLU(3, 0.1).to(device), torch.nn.PReLU(3, 0.1)
    m(minigrad.tensor(x, device=device)).sum().backward()
    t(torch.tensor(x)).sum().backward()
    np.testing.assert_allclose(_np(m.weight.grad), t.weight.grad.numpy(), rtol=1e-5)
    assert nn.PReLU(dtype=minigrad.float64).weight.dtype == minigrad.float64


MODULES = [
    ("SiLU", ()), ("SiLU", (True,)), ("Mish", ()), ("Mish", (True,)), ("Hardtanh", ()),
    ("Hardtanh", (-2, 2, True)), ("Hardtanh", (-0.5, 3.0)), ("ReLU6", ()), ("ReLU6", (True,)),
    ("LogSigmoid", ()), ("Softmin", ()), ("Softmin", (1,)), ("Hardsigmoid", ()), ("Hardsigmoid", (True,)),
    ("Hardswish", ()), ("Hardswish", (True,)), ("CELU", ()), ("CELU", (2.0, True)), ("SELU", ()),
    ("SELU", (True,)), ("Threshold", (0.1, 20)), ("Threshold", (1, 2.5, True)), ("Tanhshrink", ()),
    ("Softshrink", ()), ("Softshrink", (1,)), ("Hardshrink", ()), ("Hardshrink", (2.0,)),
]


@pytest.mark.parametrize("name,args", MODULES, ids=[f"{n}{a}" for n, a in MODULES])
def test_activation_modules_match_torch(device, name, args):
    m, t = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(m) == repr(t)
    x = _inputs(np.float32).reshape(-1, 19)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Softmin() picks its dim with a deprecation warning
        om, ot = m(minigrad.tensor(x, device=device)), t(torch.tensor(x))
    np.testing.assert_allclose(_np(om), ot.numpy(), rtol=1e-5, atol=1e-6)


def test_modules_and_functions_are_exported():
    for name in ["silu", "mish", "hardtanh", "relu6", "logsigmoid", "softmin", "hardsigmoid", "hardswish",
                 "prelu", "celu", "selu", "threshold", "tanhshrink", "softshrink", "hardshrink", "embedding",
                 "one_hot"]:
        assert name in F.__all__ and callable(getattr(minigrad.nn.functional, name))
    for name in ["SiLU", "Mish", "Hardtanh", "ReLU6", "LogSigmoid", "Softmin", "Hardsigmoid", "Hardswish",
                 "PReLU", "CELU", "SELU", "Threshold", "Tanhshrink", "Softshrink", "Hardshrink", "Unflatten",
                 "Embedding", "ParameterList", "ParameterDict"]:
        assert issubclass(getattr(nn, name), nn.Module)


def test_hardtanh_module_checks_and_deprecated_names():
    for args in [(1.0, 1.0), (2.0, -2.0)]:
        with pytest.raises(AssertionError) as want:
            torch.nn.Hardtanh(*args)
        with pytest.raises(AssertionError) as got:
            nn.Hardtanh(*args)
        assert str(got.value) == str(want.value)
    with pytest.warns(FutureWarning, match="`min_value` is deprecated"):
        m = nn.Hardtanh(min_value=-3.0)
    assert m.min_val == -3.0


def test_integer_inputs(device):
    x = np.array([-7, -3, -1, 0, 1, 2, 5, 9])
    for call in [lambda F, t: F.hardtanh(t), lambda F, t: F.relu6(t), lambda F, t: F.hardtanh(t, -2.5, 3.7),
                 lambda F, t: F.threshold(t, 1, 5), lambda F, t: F.threshold(t, -1.5, 7),
                 lambda F, t: F.threshold(t, 1.5, 5), lambda F, t: F.tanhshrink(t)]:
        om, ot = call(F, minigrad.tensor(x, device=device)), call(torch.nn.functional, torch.tensor(x))
        assert str(om.dtype) == str(ot.dtype).replace("torch", "minigrad")
        np.testing.assert_allclose(_np(om), ot.numpy(), rtol=1e-6)


ERRORS = {
    "silu-int": lambda lib, F: F.silu(lib.tensor([1, 2])),
    "silu-bool": lambda lib, F: F.silu(lib.tensor([True])),
    "mish-int": lambda lib, F: F.mish(lib.tensor([1, 2])),
    "hardtanh-bool": lambda lib, F: F.hardtanh(lib.tensor([True])),
    "relu6-bool": lambda lib, F: F.relu6(lib.tensor([True])),
    "hardtanh-order": lambda lib, F: F.hardtanh(lib.tensor([1.0]), 2.0, 1.0),
    "logsigmoid-int": lambda lib, F: F.logsigmoid(lib.tensor([1, 2])),
    "softmin-int": lambda lib, F: F.softmin(lib.tensor([1, 2]), 0),
    "hardsigmoid-int": lambda lib, F: F.hardsigmoid(lib.tensor([1, 2])),
    "hardswish-bool": lambda lib, F: F.hardswish(lib.tensor([True])),
    "celu-int": lambda lib, F: F.celu(lib.tensor([1, 2])),
    "celu-alpha0": lambda lib, F: F.celu(lib.tensor([1.0]), 0.0),
    "selu-int": lambda lib, F: F.selu(lib.tensor([1, 2])),
    "threshold-bool": lambda lib, F: F.threshold(lib.tensor([True]), 0, 1),
    "threshold-str": lambda lib, F: F.threshold(lib.tensor([1.0]), "a", 1),
    "tanhshrink-bool": lambda lib, F: F.tanhshrink(lib.tensor([True])),
    "softshrink-int": lambda lib, F: F.softshrink(lib.tensor([1, 2])),
    "softshrink-neg": lambda lib, F: F.softshrink(lib.tensor([1.0]), -1),
    "softshrink-neg-f64": lambda lib, F: F.softshrink(lib.tensor([1.0], dtype=lib.float64), -0.5),
    "softshrink-str": lambda lib, F: F.softshrink(lib.tensor([1.0]), "a"),
    "hardshrink-int": lambda lib, F: F.hardshrink(lib.tensor([1, 2])),
    "prelu-int": lambda lib, F: F.prelu(lib.tensor([1, 2]), lib.tensor([1])),
    "prelu-channels": lambda lib, F: F.prelu(lib.ones(2, 3), lib.ones(2)),
    "prelu-1d-input": lambda lib, F: F.prelu(lib.ones(3), lib.ones(3)),
    "prelu-2d-weight": lambda lib, F: F.prelu(lib.ones(2, 3, 4), lib.ones(1, 3)),
    "prelu-dtypes": lambda lib, F: F.prelu(lib.ones(2, 3), lib.ones(3, dtype=lib.float64)),
    "silu-not-tensor": lambda lib, F: F.silu(1.0),
    "prelu-not-tensor": lambda lib, F: F.prelu(lib.ones(2), [0.25]),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_activation_errors_match_torch(device, name):
    same_error(ERRORS[name], device)


def test_softmin_dim_none_warns_as_torch(device):
    x = np.random.default_rng(5).standard_normal((2, 3))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        om = F.softmin(minigrad.tensor(x, device=device))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ot = torch.nn.functional.softmin(torch.tensor(x))
    np.testing.assert_allclose(_np(om), ot.numpy(), rtol=1e-12)
    om = F.softmin(minigrad.tensor(x, device=device), 1, dtype=minigrad.float32)
    assert om.dtype == minigrad.float32


# ---- embedding ----------------------------------------------------------------------------------

@pytest.mark.parametrize("padding_idx", [None, 0, 3, -1])
@pytest.mark.parametrize("scale", [False, True])
@pytest.mark.parametrize("itype", [np.int64, np.int32], ids=["i64", "i32"])
def test_embedding_matches_torch(device, padding_idx, scale, itype):
    r = np.random.default_rng(6)
    w = r.standard_normal((6, 4))
    idx = np.array([[0, 3, 5], [3, 3, 1]], dtype=itype)
    wm, wt = minigrad.tensor(w, device=device, requires_grad=True), torch.tensor(w, requires_grad=True)
    om = F.embedding(minigrad.tensor(idx, device=device), wm, padding_idx, scale_grad_by_freq=scale)
    ot = torch.nn.functional.embedding(torch.tensor(idx), wt, padding_idx, scale_grad_by_freq=scale)
    np.testing.assert_array_equal(_np(om), ot.detach().numpy())
    assert om.grad_fn.name() == ot.grad_fn.name() == "EmbeddingBackward0"
    cot = r.standard_normal(tuple(ot.shape))
    om.backward(minigrad.tensor(cot, device=device))
    ot.backward(torch.tensor(cot))
    np.testing.assert_allclose(_np(wm.grad), wt.grad.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 0), (2, 2, 3)])
def test_embedding_index_shapes(device, shape):
    r = np.random.default_rng(7)
    w = r.standard_normal((7, 2)).astype(np.float32)
    idx = r.integers(0, 7, size=shape)
    om = F.embedding(minigrad.tensor(idx, device=device), minigrad.tensor(w, device=device))
    ot = torch.nn.functional.embedding(torch.tensor(idx), torch.tensor(w))
    assert tuple(om.shape) == tuple(ot.shape) and om.dtype == minigrad.float32
    np.testing.assert_array_equal(_np(om), ot.numpy())


def test_embedding_double_backward_and_gradcheck(device):
    w = minigrad.randn(5, 3, dtype=minigrad.float64, device=device, requires_grad=True)
    idx = minigrad.tensor([[1, 4], [1, 0]], device=device)
    f = lambda w: F.embedding(idx, w) ** 2  # noqa: E731 (a padding row's zero gradient is no derivative)
    assert gradcheck(f, (w,))
    assert gradgradcheck(f, (w,))


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0])
def test_embedding_max_norm_renormalizes_rows_in_place(device, norm_type):
    r = np.random.default_rng(8)
    w = r.standard_normal((6, 4)) * 2
    idx = np.array([0, 2, 2, 5])
    m = nn.Embedding(6, 4, max_norm=1.5, norm_type=norm_type).double().to(device)
    t = torch.nn.Embedding(6, 4, max_norm=1.5, norm_type=norm_type).double()
    with minigrad.no_grad():
        m.weight.copy_(minigrad.tensor(w, device=device))
    with torch.no_grad():
        t.weight.copy_(torch.tensor(w))
    om, ot = m(minigrad.tensor(idx, device=device)), t(torch.tensor(idx))
    np.testing.assert_allclose(_np(om), ot.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(_np(m.weight), t.weight.detach().numpy(), rtol=1e-10)
    om.sum().backward(), ot.sum().backward()
    np.testing.assert_allclose(_np(m.weight.grad), t.weight.grad.numpy(), rtol=1e-10)
    assert repr(m) == repr(t)


def test_embedding_module(device):
    minigrad.manual_seed(0)
    for kwargs in [{}, {"padding_idx": 0}, {"padding_idx": -1}, {"max_norm": 1.0, "scale_grad_by_freq": True},
                   {"norm_type": 1.0}, {"norm_type": 2}]:
        m, t = nn.Embedding(10, 3, **kwargs), torch.nn.Embedding(10, 3, **kwargs)
        assert repr(m) == repr(t)
        assert m.padding_idx == t.padding_idx
        assert list(m.state_dict()) == list(t.state_dict()) == ["weight"]
    m = nn.Embedding(1000, 8, padding_idx=2, device=device)
    w = _np(m.weight)
    assert m.weight.requires_grad and w.shape == (1000, 8) and m.weight.dtype == minigrad.float32
    assert (w[2] == 0).all() and (w[:2] != 0).all()
    assert abs(w.mean()) < 0.05 and abs(w.std() - 1) < 0.05  # N(0, 1)
    out = m(minigrad.tensor([[2, 5], [5, 7]], device=device))
    assert out.grad_fn.name() == "EmbeddingBackward0" and tuple(out.shape) == (2, 2, 8)
    out.sum().backward()
    g = _np(m.weight.grad)
    assert (g[2] == 0).all() and (g[5] == 2).all() and (g[7] == 1).all() and g.sum() == 3 * 8
    assert nn.Embedding(4, 2, dtype=minigrad.float64).weight.dtype == minigrad.float64
    assert not nn.Embedding(4, 2, _freeze=True).weight.requires_grad


def test_embedding_from_pretrained(device):
    w = minigrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device=device)
    m = nn.Embedding.from_pretrained(w)
    t = torch.nn.Embedding.from_pretrained(torch.tensor(_np(w)))
    assert repr(m) == repr(t) and not m.weight.requires_grad
    assert m.weight.data_ptr() == w.data_ptr()  # the same memory, as torch's
    m = nn.Embedding.from_pretrained(w, freeze=False, padding_idx=1)
    assert m.weight.requires_grad and m.padding_idx == 1
    np.testing.assert_array_equal(_np(m.weight[1]), [3.0, 4.0])  # the padding row is kept as given
    out = m(minigrad.tensor([1, 2, 1], device=device))
    out.sum().backward()
    np.testing.assert_array_equal(_np(m.weight.grad), [[0, 0], [0, 0], [1, 1]])


EMBEDDING_ERRORS = {
    "too-large": lambda lib, F: F.embedding(lib.tensor([1, 5]), lib.ones(5, 3)),
    "negative": lambda lib, F: F.embedding(lib.tensor([-1]), lib.ones(5, 3)),
    "float-indices": lambda lib, F: F.embedding(lib.tensor([1.0]), lib.ones(5, 3)),
    "bool-indices": lambda lib, F: F.embedding(lib.tensor([True]), lib.ones(5, 3)),
    "weight-1d": lambda lib, F: F.embedding(lib.tensor([1]), lib.ones(5)),
    "weight-3d": lambda lib, F: F.embedding(lib.tensor([1]), lib.ones(5, 2, 2)),
    "padding-high": lambda lib, F: F.embedding(lib.tensor([1]), lib.ones(5, 3), padding_idx=5),
    "padding-low": lambda lib, F: F.embedding(lib.tensor([1]), lib.ones(5, 3), padding_idx=-6),
    "indices-list": lambda lib, F: F.embedding([1], lib.ones(5, 3)),
    "weight-list": lambda lib, F: F.embedding(lib.tensor([1]), [1.0]),
    "module-padding": lambda lib, F: lib.nn.Embedding(5, 3, padding_idx=5),
    "module-padding-low": lambda lib, F: lib.nn.Embedding(5, 3, padding_idx=-6),
    "module-weight-shape": lambda lib, F: lib.nn.Embedding(5, 3, _weight=lib.ones(4, 3)),
    "pretrained-1d": lambda lib, F: lib.nn.Embedding.from_pretrained(lib.ones(3)),
}


@pytest.mark.parametrize("name", list(EMBEDDING_ERRORS))
def test_embedding_errors_match_torch(device, name):
    same_error(EMBEDDING_ERRORS[name], device)


def test_embedding_sparse_is_refused():
    with pytest.raises(NotImplementedError, match="sparse=True"):
        nn.Embedding(5, 3, sparse=True)
    with pytest.raises(NotImplementedError, match="sparse=True"):
        F.embedding(minigrad.tensor([1]), minigrad.ones(5, 3), sparse=True)


def test_embedding_integer_weight(device):
    w = np.arange(10).reshape(5, 2)
    om = F.embedding(minigrad.tensor([4, 1], device=device), minigrad.tensor(w, device=device))
    ot = torch.nn.functional.embedding(torch.tensor([4, 1]), torch.tensor(w))
    assert om.dtype == minigrad.int64 and om.grad_fn is None
    np.testing.assert_array_equal(_np(om), ot.numpy())


# ---- one_hot ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("values,num_classes", [([0, 2], -1), ([0, 2], 5), ([[1, 0], [3, 3]], -1), (1, 3),
                                                 ([], 3), ([[]], 2), ([4], 5)])
def test_one_hot_matches_torch(device, values, num_classes):
    om = F.one_hot(minigrad.tensor(values, dtype=minigrad.int64, device=device), num_classes)
    ot = torch.nn.functional.one_hot(torch.tensor(values, dtype=torch.int64), num_classes)
    assert om.dtype == minigrad.int64 and tuple(om.shape) == tuple(ot.shape)
    np.testing.assert_array_equal(_np(om), ot.numpy())
    assert F.one_hot(minigrad.tensor([2], device=device), num_classes=4).tolist() == [[0, 0, 1, 0]]


ONE_HOT_ERRORS = {
    "negative": lambda lib, F: F.one_hot(lib.tensor([0, -1])),
    "too-small": lambda lib, F: F.one_hot(lib.tensor([0, 3]), 2),
    "zero": lambda lib, F: F.one_hot(lib.tensor([1]), 0),
    "minus-2": lambda lib, F: F.one_hot(lib.tensor([1]), -2),
    "float": lambda lib, F: F.one_hot(lib.tensor([0.0, 1.0]), 2),
    "int32": lambda lib, F: F.one_hot(lib.tensor([0, 1], dtype=lib.int32), 2),
    "empty-infer": lambda lib, F: F.one_hot(lib.tensor([], dtype=lib.int64)),
    "list": lambda lib, F: F.one_hot([1], 3),
    "float-classes": lambda lib, F: F.one_hot(lib.tensor([1]), num_classes=2.0),
}


@pytest.mark.parametrize("name", list(ONE_HOT_ERRORS))
def test_one_hot_errors_match_torch(device, name):
    same_error(ONE_HOT_ERRORS[name], device)


# ---- Unflatten ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim,sizes,shape", [(1, (2, 3), (4, 6)), (-1, [3, -1], (2, 6)), (0, (1, 4), (4,)),
                                             (1, (2, 5, 5), (2, 50)), (-2, (1, 1), (3, 1, 2))])
def test_unflatten_matches_torch(device, dim, sizes, shape):
    x = np.random.default_rng(9).standard_normal(shape)
    m, t = nn.Unflatten(dim, sizes), torch.nn.Unflatten(dim, sizes)
    assert repr(m) == repr(t)
    xm, xt = minigrad.tensor(x, device=device, requires_grad=True), torch.tensor(x, requires_grad=True)
    om, ot = m(xm), t(xt)
    assert tuple(om.shape) == tuple(ot.shape) and om.grad_fn.name() == ot.grad_fn.name()
    np.testing.assert_array_equal(_np(om), ot.detach().numpy())
    om.sum().backward()
    assert tuple(xm.grad.shape) == shape
    assert repr(nn.Unflatten(1, minigrad.Size([2, 3]))) == "Unflatten(dim=1, unflattened_size=minigrad.Size([2, 3]))"


UNFLATTEN_ERRORS = {
    "float-size": lambda lib, F: lib.nn.Unflatten(1, (2, 3.0)),
    "int-size": lambda lib, F: lib.nn.Unflatten(1, 6),
    "product": lambda lib, F: lib.nn.Unflatten(1, (2, 4))(lib.ones(2, 6)),
    "dim": lambda lib, F: lib.nn.Unflatten(3, (2, 3))(lib.ones(2, 6)),
}


@pytest.mark.parametrize("name", list(UNFLATTEN_ERRORS))
def test_unflatten_errors_match_torch(device, name):
    same_error(UNFLATTEN_ERRORS[name], device)


# ---- ParameterList and ParameterDict -----------------------------------------------------------------

def _repr(m):
    return repr(m).replace("torch.", "minigrad.")


class _Net:
    """The same model on both libraries: a Linear, a ParameterList and a ParameterDict."""

    @staticmethod
    def build(lib, device=None):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = lib.nn.Linear(3, 2)
                self.plist = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2, 3)), lib.zeros(3)])
                self.pdict = lib.nn.ParameterDict({"b": lib.ones(2), "a": lib.nn.Parameter(lib.zeros(1, 2))})
                self.register_parameter("scale", lib.nn.Parameter(lib.ones(())))

            def forward(self, x):
                y = self.fc(x) * self.scale
                for p in self.plist:
                    y = y + p.sum()
                return y + self.pdict["a"] + self.pdict["b"]
        return Net()


def test_parameter_containers_register_as_torch(device):
    m, t = _Net.build(minigrad).to(device), _Net.build(torch)
    assert list(m.state_dict()) == list(t.state_dict())
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert repr(_Net.build(minigrad)) == _repr(t)  # on the CPU (a CUDA entry names its device)
    assert m.get_parameter("plist.1").shape == (3,) and m.get_parameter("pdict.a").shape == (1, 2)
    assert m.get_submodule("pdict") is m.pdict
    with pytest.raises(AttributeError) as got:
        m.get_parameter("plist.5")
    with pytest.raises(AttributeError) as want:
        t.get_parameter("plist.5")
    assert str(got.value) == str(want.value)
    out = m(minigrad.ones(4, 3, device=device))
    out.sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    np.testing.assert_array_equal(_np(m.pdict["b"].grad), [4.0, 4.0])
    np.testing.assert_array_equal(_np(m.plist[0].grad), np.full((2, 3), 8.0))
    sd = m.state_dict()
    m2 = _Net.build(minigrad).to(device)
    m2.load_state_dict(sd)


def test_parameter_list():
    for lib in (minigrad, torch):
        pl = lib.nn.ParameterList([lib.ones(2), lib.nn.Parameter(lib.zeros(3, 4))])
        assert all(isinstance(p, lib.nn.Parameter) for p in pl)
        pl.append(lib.ones(5)).extend([lib.ones(1), "text"])
        pl += [lib.zeros(2, 2)]
        assert len(pl) == 6 and isinstance(pl[4], str) and pl[-1].shape == (2, 2)
        assert len(list(pl.parameters())) == 5
        pl[1] = lib.full((3,), 2.0)
        assert isinstance(pl[1], lib.nn.Parameter) and pl[1].shape == (3,)
        sl = pl[1:4]
        assert type(sl) is lib.nn.ParameterList and len(sl) == 3 and sl[0] is pl[1]
        assert [k for k in dir(pl) if k.isdigit()] == []
    m = minigrad.nn.ParameterList([minigrad.ones(2, 3), minigrad.ones(1, dtype=minigrad.float64), "x"])
    t = torch.nn.ParameterList([torch.ones(2, 3), torch.ones(1, dtype=torch.float64), "x"])
    assert repr(m) == _repr(t)
    assert repr(minigrad.nn.ParameterList()) == repr(torch.nn.ParameterList()) == "ParameterList()"
    for call in [lambda lib: lib.nn.ParameterList([lib.ones(1)])[1],
                 lambda lib: lib.nn.ParameterList([lib.ones(1)])[-2],
                 lambda lib: lib.nn.ParameterList().extend(lib.ones(2)),
                 lambda lib: lib.nn.ParameterList().extend(3),
                 lambda lib: lib.nn.ParameterList()(lib.ones(1))]:
        with pytest.raises(Exception) as want:
            call(torch)
        with pytest.raises(Exception) as got:
            call(minigrad)
        assert type(got.value) is type(want.value) and str(got.value) == str(want.value)


def test_parameter_dict():
    for lib in (minigrad, torch):
        pd = lib.nn.ParameterDict(OrderedDict([("z", lib.ones(2)), ("y", lib.nn.Parameter(lib.zeros(1)))]))
        assert list(pd) == ["z", "y"] and isinstance(pd["z"], lib.nn.Parameter)
        pd.update({"b": lib.ones(3), "a": "text"})  # a plain dict's keys go in sorted, as torch's
        assert list(pd.keys()) == ["z", "y", "a", "b"] and pd["a"] == "text"
        assert [n for n, _ in pd.named_parameters()] == ["z", "y", "b"]
        assert "b" in pd and len(pd) == 4 and pd.get("q", 7) == 7
        assert pd.pop("z").shape == (2,) and "z" not in pd and len(list(pd.parameters())) == 2
        assert pd.setdefault("n", lib.ones(1)).shape == (1,)
        k, v = pd.popitem()
        assert k == "n" and list(reversed(pd)) == ["b", "a", "y"]
        pd2 = pd | lib.nn.ParameterDict({"w": lib.ones(4)})
        assert list(pd2) == list(pd) + ["w"] and pd2["y"] is pd["y"]
        del pd["y"]
        assert list(pd) == ["a", "b"]
        pd.clear()
        assert len(pd) == 0 and not list(pd.parameters())
        pd.update([("q", lib.ones(2))])
        assert list(pd.state_dict()) == ["q"]
    m = minigrad.nn.ParameterDict({"w": minigrad.ones(2, 3), "s": "x"})
    t = torch.nn.ParameterDict({"w": torch.ones(2, 3), "s": "x"})
    assert repr(m) == _repr(t)
    for call in [lambda lib: lib.nn.ParameterDict()[1],
                 lambda lib: lib.nn.ParameterDict().update(3),
                 lambda lib: lib.nn.ParameterDict().update([("a", lib.ones(1), 1)]),
                 lambda lib: lib.nn.ParameterDict().update([3]),
                 lambda lib: lib.nn.ParameterDict({"a.b": lib.ones(1)}),
                 lambda lib: lib.nn.ParameterDict()["missing"],
                 lambda lib: lib.nn.ParameterDict()(lib.ones(1))]:
        with pytest.raises(Exception) as want:
            call(torch)
        with pytest.raises(Exception) as got:
            call(minigrad)
        assert type(got.value) is type(want.value) and str(got.value) == str(want.value)


def test_parameter_containers_on_device_repr(device):
    m = minigrad.nn.ParameterList([minigrad.ones(2)]).to(device)
    suffix = " (cuda:0)" if device == "cuda" else ""
    assert repr(m) == f"ParameterList(  (0): Parameter containing: [minigrad.float32 of size 2{suffix}])"
    d = minigrad.nn.ParameterDict({"w": minigrad.ones(2, dtype=minigrad.float64)}).to(device)
    name = "minigrad.cuda.DoubleTensor" if device == "cuda" else "minigrad.DoubleTensor"
    assert repr(d) == f"ParameterDict(  (w): Parameter containing: [{name} of size 2{suffix}])"
