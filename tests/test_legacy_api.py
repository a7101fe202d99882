"""The legacy and testing APIs older programs use, each call run on minigrad and on torch (the
oracle) and compared: values, dtypes, shapes, warnings, error types and messages.

Variable, the legacy tensor types (FloatTensor, cuda.FloatTensor, ...) and their constructors,
Tensor(...), Tensor.new, Tensor.type(t), set_default_tensor_type, the constants pi/e/inf/nan/
newaxis, torch.testing (assert_close, make_tensor, assert_allclose), storages, set_, is_set_to,
is_shared/share_memory_, pin_memory/is_pinned, and the deprecated resize/resize_as."""
import math
import warnings

import numpy as np
import pytest

import minigrad
from minigrad import legacy as _legacy, storage as _storage

torch = pytest.importorskip("torch")


def _norm(text):
    """torch's text as minigrad words it (minigrad's names where torch's appear)."""
    import re
    text = re.sub(r" \(Triggered internally at [^)]*\)", "", text)
    return (text.replace("torch.testing", "minigrad.testing").replace("<class 'torch.Tensor'>",
                                                                       "<class 'minigrad.tensor.Tensor'>")
            .replace("torch.", "minigrad.").replace("pyminigrad.", "pytorch."))


def _value(r):
    """A comparable summary of a result (tensors by dtype name, shape and values)."""
    if isinstance(r, (torch.Tensor, minigrad.Tensor)):
        vals = r.detach().cpu().tolist() if r.numel() and r.dtype.is_floating_point is not None else r.tolist()
        return ("tensor", str(r.dtype).split(".")[-1], tuple(r.shape), vals, bool(r.requires_grad))
    if isinstance(r, (tuple, list)):
        return type(r).__name__, [_value(x) for x in r]
    if isinstance(r, (torch.dtype, minigrad.dtype)):
        return ("dtype", str(r).split(".")[-1])
    return r


def _run(module, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = ("ok", _value(fn(module)))
        except Exception as e:  # noqa: BLE001 (the error is what is compared)
            out = ("error", type(e).__name__, str(e))
    return out, [(w.category.__name__, str(w.message)) for w in caught]


def same(fn, values=True):
    """fn(torch) and fn(minigrad) agree: same result (values=False: the same kind of result) or
    the same error, and the same warnings."""
    want, want_warn = _run(torch, fn)
    got, got_warn = _run(minigrad, fn)
    if want[0] == "error":
        want = (want[0], want[1], _norm(want[2]))
    elif not values:
        want, got = want[0], got[0]
    assert got == want
    assert got_warn == [(c, _norm(m)) for c, m in want_warn]
    return got


# ---- Variable ------------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda T: T.autograd.Variable(T.ones(2)),
    lambda T: T.autograd.Variable(T.ones(2), requires_grad=True),
    lambda T: T.autograd.Variable(T.ones(2), True),
    lambda T: T.autograd.Variable(T.ones(2), volatile=True),
    lambda T: T.autograd.Variable(T.ones(2), False, True),
    lambda T: T.autograd.Variable(T.ones(2), True, True),
    lambda T: T.autograd.Variable(T.ones(2), requires_grad=True, volatile=True),
    lambda T: T.autograd.Variable(),
    lambda T: T.autograd.Variable(None),
    lambda T: T.autograd.Variable([1.0, 2.0]),
    lambda T: T.autograd.Variable(3),
    lambda T: T.autograd.Variable(T.ones(2, dtype=T.long), requires_grad=True),
    lambda T: T.autograd.Variable(T.ones(2), foo=1),
    lambda T: T.autograd.Variable(T.ones(2), requires_grad=2),
    lambda T: T.autograd.Variable(T.ones(2), requires_grad="a"),
    lambda T: T.autograd.Variable(T.ones(2), requires_grad=None),
    lambda T: T.autograd.Variable(T.ones(2), False, True, None, 1),
    lambda T: T.autograd.Variable(T.ones(2), False, True, None, None, 2),
    lambda T: T.autograd.Variable(data=T.ones(2), _grad_fn=None),
    lambda T: T.autograd.Variable(T.ones(2), is_leaf=True),
    lambda T: isinstance(T.ones(2), T.autograd.Variable),
    lambda T: isinstance(3, T.autograd.Variable),
    lambda T: isinstance(T.nn.Parameter(T.ones(2)), T.autograd.Variable),
    lambda T: type(T.autograd.Variable(T.nn.Parameter(T.ones(2)))) is T.Tensor,
    lambda T: T.autograd.variable(T.ones(2)),
])
def test_variable(call):
    same(call)


def test_variable_shares_memory_and_version():
    for T in (torch, minigrad):
        x = T.ones(2)
        v = T.autograd.Variable(x)
        v.add_(1)
        assert x.tolist() == [2.0, 2.0] and x._version == v._version == 1
        b = T.ones(2, requires_grad=True) * 2
        vb = T.autograd.Variable(b)
        assert vb.grad_fn is None and vb.is_leaf and not vb.requires_grad
    import importlib
    assert importlib.import_module("minigrad.autograd.variable").Variable is minigrad.autograd.Variable


# ---- the legacy tensor types -------------------------------------------------------------------------

TYPES = ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor", "ByteTensor", "CharTensor",
         "ShortTensor", "HalfTensor"] + (["BFloat16Tensor"] if hasattr(minigrad, "bfloat16") else [])


@pytest.mark.parametrize("name", TYPES)
def test_type_attributes(name):
    m, t = getattr(minigrad, name), getattr(torch, name)
    assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert m.is_cuda is False and getattr(minigrad.cuda, name).is_cuda is True
    assert m.is_sparse is False and repr(m) == f"<class 'minigrad.{name}'>"
    assert repr(getattr(minigrad.cuda, name)) == f"<class 'minigrad.cuda.{name}'>"
    assert m.__name__ == name and not issubclass(m, minigrad.Tensor)
    same(lambda T: getattr(T, name)(2, 3).shape)
    same(lambda T: getattr(T, name)(2, 3).dtype)
    same(lambda T: getattr(T, name)([1, 0, 2]))
    same(lambda T: getattr(T, name)())
    same(lambda T: getattr(T, name)(T.Size([2, 1])).shape)
    same(lambda T: isinstance(T.zeros(2, dtype=getattr(T, name).dtype), getattr(T, name)))
    same(lambda T: isinstance(T.zeros(2, dtype=getattr(T, name).dtype), getattr(T.cuda, name)))
    if not minigrad.cuda.is_available():  # torch (CPU-only, the oracle) has no CUDA: its error
        same(lambda T: getattr(T.cuda, name)(2))
    else:
        t = getattr(minigrad.cuda, name)(2, 3)
        assert t.is_cuda and t.shape == (2, 3) and isinstance(t, getattr(minigrad.cuda, name))
        assert not isinstance(t, getattr(minigrad, name)) and t.type() == f"torch.cuda.{name}"


@pytest.mark.parametrize("call", [
    lambda T: T.FloatTensor([1, 2]),
    lambda T: T.FloatTensor((1, 2)),
    lambda T: T.FloatTensor([[1, 2], [3, 4]]),
    lambda T: T.LongTensor([1.5, 2]),
    lambda T: T.IntTensor([1.5, 2]),
    lambda T: T.BoolTensor([1.5, 0]),
    lambda T: T.ByteTensor([-1, 2]),
    lambda T: T.ByteTensor([300, 2]),
    lambda T: T.HalfTensor([1, 2]),
    lambda T: T.FloatTensor([True, False]),
    lambda T: T.FloatTensor(()),
    lambda T: T.FloatTensor([]),
    lambda T: T.FloatTensor(np.array([1, 2])),
    lambda T: T.FloatTensor(np.int64(3)).shape,
    lambda T: T.LongTensor(2, 3).stride(),
    lambda T: T.FloatTensor(2.5),
    lambda T: T.FloatTensor(True),
    lambda T: T.FloatTensor(None),
    lambda T: T.FloatTensor(2, 3.0),
    lambda T: T.FloatTensor(2, None),
    lambda T: T.FloatTensor("a"),
    lambda T: T.FloatTensor(-1),
    lambda T: T.FloatTensor(2, -1),
    lambda T: T.FloatTensor([1], [2]),
    lambda T: T.FloatTensor(T.ones(2), 2),
    lambda T: T.FloatTensor(T.ones(2, dtype=T.float64)),
    lambda T: T.FloatTensor(T.ones(2)),
    lambda T: T.FloatTensor(3, dtype=T.float64),
    lambda T: T.FloatTensor([1], requires_grad=True),
    lambda T: T.FloatTensor(2, 3, out=None),
    lambda T: T.FloatTensor(3, device="cpu").shape,
    lambda T: T.FloatTensor([1], device="cpu"),
    lambda T: T.FloatTensor(3, device="cuda"),
    lambda T: T.FloatTensor(T.FloatTensor(2)).shape,
    lambda T: isinstance(T.ones(2), T.FloatTensor),
    lambda T: isinstance(T.ones(2, dtype=T.float64), T.FloatTensor),
    lambda T: isinstance(3, T.FloatTensor),
    lambda T: isinstance(T.nn.Parameter(T.ones(2)), T.FloatTensor),
    lambda T: issubclass(T.Tensor, T.FloatTensor),
    lambda T: type(T.FloatTensor(2)) is T.Tensor,
    # torch.Tensor(...), the legacy constructor of the default type
    lambda T: T.Tensor(2, 3).shape,
    lambda T: T.Tensor([1, 2]),
    lambda T: T.Tensor(),
    lambda T: T.Tensor([1, 2], dtype=T.float64),
    lambda T: T.Tensor(2.5),
    lambda T: T.Tensor(T.ones(2, dtype=T.long)),
    lambda T: T.Tensor(T.ones(2)),
    lambda T: T.Tensor([1], device="cuda"),
])
def test_legacy_constructors(call):
    same(call)


def test_alias_and_uninitialized():
    for T in (torch, minigrad):
        x = T.ones(2)
        y = T.FloatTensor(x)
        assert y is not x and y.data_ptr() == x.data_ptr()
        r = T.ones(2, requires_grad=True)
        assert r.new(r).grad_fn.name() == "AliasBackward0"


@pytest.mark.parametrize("call", [
    lambda T: T.ones(2, 3, dtype=T.float64).new(2).shape,
    lambda T: T.ones(2, 3, dtype=T.float64).new(2).dtype,
    lambda T: T.ones(2, 3, dtype=T.float64).new([1, 2]),
    lambda T: T.ones(2, 3, dtype=T.float64).new(),
    lambda T: T.ones(2, 3, dtype=T.float64).new(T.Size([1, 2])).shape,
    lambda T: T.ones(2, 3, dtype=T.float64).new(T.ones(2)),
    lambda T: T.ones(2, 3, dtype=T.float64).new(T.ones(2, dtype=T.float64)),
    lambda T: T.ones(2, 3, dtype=T.float64).new(2, dtype=T.int64),
    lambda T: T.ones(2, 3, dtype=T.float64).new([1, 2], device="cpu"),
    lambda T: T.ones(2, 3, dtype=T.float64).new(2.5),
    lambda T: T.ones(2, 3, dtype=T.float64).new(2, requires_grad=True),
    lambda T: T.ones(2, dtype=T.long).new([1.5]),
    lambda T: T.ones(2, requires_grad=True).new([1.5]),
    lambda T: T.ones(2, requires_grad=True).new(T.ones(2)),
])
def test_new(call):
    same(call)


@pytest.mark.parametrize("call", [
    lambda T: T.ones(2, dtype=T.float64).type(),
    lambda T: T.ones(2, dtype=T.uint8).type(),
    lambda T: T.ones(2, dtype=T.float64).type(T.LongTensor),
    lambda T: T.ones(2, dtype=T.float64).type(T.float32),
    lambda T: T.ones(2, dtype=T.float64).type("torch.LongTensor"),
    lambda T: T.ones(2, dtype=T.float64).type("foo.FooTensor"),
    lambda T: T.ones(2, dtype=T.float64).type("FloatTensor"),
    lambda T: T.ones(2, dtype=T.float64).type("float"),
    lambda T: T.ones(2, dtype=T.float64).type("float32"),
    lambda T: T.ones(2, dtype=T.float64).type(T.Tensor),
    lambda T: T.ones(2, dtype=T.float64).type(int),
    lambda T: T.ones(2, dtype=T.float64).type(3),
    lambda T: T.ones(2, dtype=T.float64).type(None),
    lambda T: T.ones(2, dtype=T.float64).type(T.FloatTensor, True),
    lambda T: T.ones(2, dtype=T.float64).type(T.FloatTensor, non_blocking=True),
    lambda T: T.ones(2, dtype=T.float64).type(dtype=T.FloatTensor),
    lambda T: T.ones(2, dtype=T.float64).type(T.FloatTensor, **{"async": True}),
    lambda T: T.ones(2, dtype=T.float64).type(T.FloatTensor, foo=1),
    lambda T: T.ones(2, requires_grad=True).type(T.DoubleTensor).grad_fn.name(),
    lambda T: T.ones(2, requires_grad=True).type(T.FloatTensor).grad_fn,
])
def test_type_conversion(call):
    same(call)


def test_type_returns_self():
    for T in (torch, minigrad):
        x = T.ones(2, dtype=T.float64)
        assert x.type(T.DoubleTensor) is x and x.type(T.float64) is x and x.type("torch.DoubleTensor") is x


def test_type_to_cuda_without_gpu():
    if minigrad.cuda.is_available():
        x = minigrad.ones(2, dtype=minigrad.float64)
        y = x.type("torch.cuda.FloatTensor")
        assert y.is_cuda and y.dtype is minigrad.float32 and isinstance(y, minigrad.cuda.FloatTensor)
        assert x.type(minigrad.cuda.FloatTensor).type() == "torch.cuda.FloatTensor"
        return
    with pytest.raises(RuntimeError) as want:
        minigrad.ones(2).cuda()
    with pytest.raises(RuntimeError) as got:
        minigrad.ones(2).type("torch.cuda.FloatTensor")
    assert str(got.value) == str(want.value)


@pytest.fixture
def restore_default():
    _legacy._warned.clear()
    yield
    for T in (torch, minigrad):
        T.set_default_dtype(T.float32)
    minigrad.set_default_device(None)


SET_DEFAULT_CALLS = [
    lambda T: (T.set_default_tensor_type(T.DoubleTensor), T.get_default_dtype(), T.Tensor(2).dtype,
               T.tensor([1.0]).dtype, T.FloatTensor(1).dtype, T.ones(2).new(1).dtype),
    lambda T: (T.set_default_tensor_type("torch.DoubleTensor"), T.get_default_dtype()),
    lambda T: (T.set_default_tensor_type(T.DoubleTensor), T.set_default_tensor_type(T.FloatTensor),
               T.get_default_dtype()),
    lambda T: T.set_default_tensor_type(T.LongTensor),
    lambda T: T.set_default_tensor_type("torch.LongTensor"),
    lambda T: T.set_default_tensor_type(T.float64),
    lambda T: T.set_default_tensor_type(3),
    lambda T: T.set_default_tensor_type(T.Tensor),
    lambda T: T.set_default_tensor_type(T.cuda.FloatTensor),
    lambda T: T.set_default_tensor_type("torch.cuda.FloatTensor"),
    lambda T: T.set_default_tensor_type("no_such_module_here"),
    lambda T: T.set_default_tensor_type(t=T.FloatTensor),
    lambda T: (T.set_default_dtype(T.float64), T.Tensor(2).dtype, T.Tensor([1]).dtype,
               T.ones(2, dtype=T.float32).new(2).dtype, isinstance(T.Tensor(1), T.DoubleTensor)),
]


@pytest.mark.parametrize("call", SET_DEFAULT_CALLS)
def test_set_default_tensor_type(call, restore_default):
    if minigrad.cuda.is_available() and any("cuda" in str(c) for c in call.__code__.co_names +
                                               call.__code__.co_consts):
        pytest.skip("the oracle (CPU-only torch) has no CUDA types to compare with")
    want, want_warn = _run(torch, call)
    got, got_warn = _run(minigrad, call)
    if want[0] == "error":
        want = (want[0], want[1], _norm(want[2]))
    assert got == want
    want_warn = [(c, _norm(m.split(" (Triggered internally")[0])) for c, m in want_warn]
    deprecation = [("UserWarning", "minigrad.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                    "minigrad.set_default_dtype() and minigrad.set_default_device() as alternatives.")]
    # torch warns once per process (an earlier test may have had its warning); minigrad's flag was reset
    assert got_warn == want_warn if want_warn else got_warn in ([], deprecation)


def test_set_default_tensor_type_warns_once(restore_default):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        minigrad.set_default_tensor_type(minigrad.DoubleTensor)
        minigrad.set_default_tensor_type(minigrad.FloatTensor)
    assert [str(w.message) for w in caught] == [
        "minigrad.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use minigrad.set_default_dtype() "
        "and minigrad.set_default_device() as alternatives."]


# ---- constants -------------------------------------------------------------------------------------------

def test_constants():
    for name in ("pi", "e", "inf"):
        assert getattr(minigrad, name) == getattr(torch, name) and type(getattr(minigrad, name)) is float
    assert math.isnan(minigrad.nan) and minigrad.newaxis is None is torch.newaxis


# ---- torch.testing -------------------------------------------------------------------------------------------

def _t(T, data, **kw):
    return T.tensor(data, **kw)


CLOSE_CASES = [
    lambda T: T.testing.assert_close(_t(T, [1., 2., 3.]), _t(T, [1., 2.5, 3.])),
    lambda T: T.testing.assert_close(_t(T, [1., 2., 3.], dtype=T.float64), _t(T, [1., 2.5, 3.], dtype=T.float64)),
    lambda T: T.testing.assert_close(_t(T, [1, 2, 3]), _t(T, [1, 4, 3])),
    lambda T: T.testing.assert_close(_t(T, [True, False]), _t(T, [True, True])),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1., 2., 3.])),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1, 2])),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1, 2]), check_dtype=False),
    lambda T: T.testing.assert_close(_t(T, [1., float("nan")]), _t(T, [1., float("nan")])),
    lambda T: T.testing.assert_close(_t(T, [1., float("nan")]), _t(T, [1., float("nan")]), equal_nan=True),
    lambda T: T.testing.assert_close(_t(T, [1., float("inf")]), _t(T, [1., float("-inf")])),
    lambda T: T.testing.assert_close(_t(T, [1., float("inf")]), _t(T, [1., float("inf")])),
    lambda T: T.testing.assert_close(_t(T, [1., float("nan")]), _t(T, [1., 2.])),
    lambda T: T.testing.assert_close(1.0, 2.0),
    lambda T: T.testing.assert_close(1, 2),
    lambda T: T.testing.assert_close(1, 1.0),
    lambda T: T.testing.assert_close(1, 1.0, check_dtype=False),
    lambda T: T.testing.assert_close(1.5, 2),
    lambda T: T.testing.assert_close(0.0, 1e-3),
    lambda T: T.testing.assert_close(True, False),
    lambda T: T.testing.assert_close(True, np.bool_(True)),
    lambda T: T.testing.assert_close(np.float32(1.0), 1.0),
    lambda T: T.testing.assert_close(1.0, 1.0 + 1e-9),
    lambda T: T.testing.assert_close(float("nan"), float("nan")),
    lambda T: T.testing.assert_close(float("nan"), float("nan"), equal_nan=True),
    lambda T: T.testing.assert_close(_t(T, 1.), _t(T, 2.)),
    lambda T: T.testing.assert_close(_t(T, 3), _t(T, 2)),
    lambda T: T.testing.assert_close(_t(T, [[1., 2.], [3., 4.]]), _t(T, [[1., 2.], [3., 5.]])),
    lambda T: T.testing.assert_close(_t(T, [1., 2., 3., 4., 5., 6.]).reshape(2, 3),
                                     _t(T, [1., 2., 3., 4., 5., 7.]).reshape(2, 3)),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1., 3.]), msg="custom"),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1., 3.]), msg=lambda m: "X" + m + "Y"),
    lambda T: T.testing.assert_close([_t(T, [1., 2.]), _t(T, [1.])], [_t(T, [1., 2.]), _t(T, [2.])]),
    lambda T: T.testing.assert_close([_t(T, [1.])], [_t(T, [2.])], msg=lambda m: "<" + m + ">"),
    lambda T: T.testing.assert_close({"a": _t(T, [1., 2.])}, {"a": _t(T, [1., 3.])}),
    lambda T: T.testing.assert_close({"a": [_t(T, [1.]), 2]}, {"a": [_t(T, [1.]), 3]}),
    lambda T: T.testing.assert_close({"a": _t(T, [1., 2.])}, {"b": _t(T, [1., 3.])}),
    lambda T: T.testing.assert_close({"a": 1}, {"a": 1, "b": 2}),
    lambda T: T.testing.assert_close([_t(T, [1.])], [_t(T, [1.]), _t(T, [2.])]),
    lambda T: T.testing.assert_close((1, 2), (1, 3)),
    lambda T: T.testing.assert_close([1., 2.], [1., 2.5]),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), [1., 2.]),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), 1.),
    lambda T: T.testing.assert_close(1.0, _t(T, 1.0)),
    lambda T: T.testing.assert_close("a", "a"),
    lambda T: T.testing.assert_close(None, None),
    lambda T: T.testing.assert_close(None, 1),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1., 3.]), rtol=0.1),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1., 3.]), atol=1e-5),
    lambda T: T.testing.assert_close([_t(T, [1.])], [_t(T, [1.])], atol=1e-5),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1., 3.]), rtol=0.1, atol=0),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1., 3.]), rtol=0, atol=0),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1., 3.]), rtol=0.5, atol=0),
    lambda T: T.testing.assert_close(_t(T, [0., 2.]), _t(T, [1., 2.])),
    lambda T: T.testing.assert_close(_t(T, [1e-9, 2.]), _t(T, [0., 2.])),
    lambda T: T.testing.assert_close(_t(T, [100000., 2.]), _t(T, [100001., 2.])),
    lambda T: T.testing.assert_close(_t(T, [[1., 2.], [3., 4.]]).t(), _t(T, [[1., 3.], [2., 4.]]), check_stride=True),
    lambda T: T.testing.assert_close(_t(T, [[1., 2.], [3., 4.]]).t(), _t(T, [[1., 3.], [2., 4.]])),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1., 2.]).double(), check_dtype=False),
    lambda T: T.testing.assert_close(_t(T, [1, 2]), _t(T, [1., 2.5]), check_dtype=False),
    lambda T: T.testing.assert_close(_t(T, [1., 2.], requires_grad=True), _t(T, [1., 2.])),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]).half(), _t(T, [1., 2.001]).half()),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]).half(), _t(T, [1., 2.01]).half()),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1., 2.]).half()),
    lambda T: T.testing.assert_close(_t(T, [1, 2], dtype=T.uint8), _t(T, [2, 1], dtype=T.uint8)),
    lambda T: T.testing.assert_close(_t(T, [5, 2]), _t(T, [1, 2])),
    lambda T: T.testing.assert_close(_t(T, [0, 2]), _t(T, [1, 2])),
    lambda T: T.testing.assert_close(_t(T, [], dtype=T.float32), _t(T, [])),
    lambda T: T.testing.assert_close(np.array([1., 2.]), np.array([1., 3.])),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), np.array([1., 2.])),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1., 2.]), foo=1),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1., 2.]), None, None),
    lambda T: T.testing.assert_close(T.nn.Parameter(_t(T, [1., 2.])), _t(T, [1., 2.])),
    lambda T: T.testing.assert_close(T.nn.Parameter(_t(T, [1., 2.])), _t(T, [1., 2.]), allow_subclasses=False),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1., 3.]), msg="custom", rtol=1),
    lambda T: T.testing.assert_close(_t(T, [1., 2.]), _t(T, [1., 2.]), check_layout=False, check_device=False),
    # the deprecated assert_allclose: dtype checks off, NaNs equal, its own tolerances
    lambda T: T.testing.assert_allclose(_t(T, [1., 2.]), _t(T, [1., 2.0001])),
    lambda T: T.testing.assert_allclose(_t(T, [1., 2.]), _t(T, [1., 2.01])),
    lambda T: T.testing.assert_allclose(_t(T, [1., float("nan")]), [1., float("nan")]),
    lambda T: T.testing.assert_allclose([1, 2], [1, 3]),
    lambda T: T.testing.assert_allclose(_t(T, [1., 2.]), _t(T, [1, 2])),
    lambda T: T.testing.assert_allclose(_t(T, [1., 2.]), _t(T, [1., 3.]), msg="m"),
    lambda T: T.testing.assert_allclose(_t(T, [1., 2.], dtype=T.float64), _t(T, [1., 2.0001], dtype=T.float64)),
]


@pytest.mark.parametrize("call", CLOSE_CASES)
def test_assert_close(call):
    same(call)


MAKE_CASES = [
    ((3, 4), dict(dtype="float32")), ((2, 3), dict(dtype="float64", low=-1, high=1)),
    ((50,), dict(dtype="int64")), ((50,), dict(dtype="uint8")), ((50,), dict(dtype="bool")),
    ((50,), dict(dtype="int8", low=-200, high=200)), ((40,), dict(dtype="float16")),
    ((4, 5), dict(dtype="float32", noncontiguous=True)), ((1,), dict(dtype="float32", noncontiguous=True)),
    ((200,), dict(dtype="int32", low=0, high=2, exclude_zero=True)),
    ((200,), dict(dtype="float32", low=0, high=1e-30, exclude_zero=True)),
    ((3,), dict(dtype="float32", requires_grad=True)), ((3,), dict(dtype="int64", requires_grad=True)),
    ((3,), dict(dtype="float32", low=2, high=1)), ((3,), dict(dtype="float32", low=float("nan"))),
    ((3,), dict(dtype="uint8", low=-20, high=-10)), ((3,), dict(dtype="float32", low=1, high=1)),
    ((3,), dict(dtype="float64", low=-1e308, high=1e308)), (([2, 3],), dict(dtype="float32")),
    ((2, 3), dict(dtype="int64", low=5, high=6)), ((2, 3), dict(dtype="int64", low=2.5, high=3.5)),
]


@pytest.mark.parametrize("shape,kw", MAKE_CASES)
def test_make_tensor(shape, kw):
    def call(T):
        opts = dict(kw, dtype=getattr(T, kw["dtype"]))
        t = T.testing.make_tensor(*shape, device="cpu", **opts)
        lo = t.detach().double().min().item() if t.numel() else None
        hi = t.detach().double().max().item() if t.numel() else None
        return t.dtype, tuple(t.shape), t.is_contiguous(), t.requires_grad, lo, hi
    want, want_warn = _run(torch, call)
    got, got_warn = _run(minigrad, call)
    assert [c for c, _ in got_warn] == [c for c, _ in want_warn]
    if want[0] == "error":
        assert got == (want[0], want[1], _norm(want[2]))
        return
    assert got[0] == "ok" and got[1][1][:4] == want[1][1][:4]
    low, high = kw.get("low"), kw.get("high")
    lo, hi = got[1][1][4], got[1][1][5]
    name = kw["dtype"]
    exact = name in ("bool", "uint8", "int8", "int32", "int64")
    bounds = {"bool": (0, 2), "uint8": (0, 10)}.get(name, (-9, 10) if exact else (-9, 9))
    low = bounds[0] if low is None else low
    high = bounds[1] if high is None else high
    if exact:  # [ceil(low), ceil(high)) within the dtype's range
        info = (0, 1) if name == "bool" else (np.iinfo(name).min, np.iinfo(name).max)
        low, high = max(math.ceil(low), info[0]), min(math.ceil(high) - 1, info[1])
    if kw.get("exclude_zero"):
        assert 0 not in minigrad.testing.make_tensor(*shape, device="cpu",
                                                     **dict(kw, dtype=getattr(minigrad, name))).tolist()
    elif lo is not None:
        assert low <= lo <= hi <= high


def test_make_tensor_draws_the_whole_range():
    t = minigrad.testing.make_tensor(2000, dtype=minigrad.int64, device="cpu")
    assert sorted(set(t.tolist())) == list(range(-9, 10))
    b = minigrad.testing.make_tensor(200, dtype=minigrad.bool, device="cpu")
    assert set(b.tolist()) == {False, True}
    f = minigrad.testing.make_tensor(4000, dtype=minigrad.float32, device="cpu")
    assert -9 <= f.min().item() < -8.5 and 8.5 < f.max().item() < 9


# ---- storages --------------------------------------------------------------------------------------------

def test_untyped_storage_basics():
    for T in (torch, minigrad):
        a = T.arange(6, dtype=T.float32)
        s = a.untyped_storage()
        assert (s.nbytes(), s.size(), len(s), s.element_size()) == (24, 24, 24, 1)
        assert str(s.device) == "cpu" and s.is_cuda is False
        assert s.data_ptr() == a.data_ptr() == a[1:].untyped_storage().data_ptr()
        assert a[1:].data_ptr() - s.data_ptr() == 4
        assert a.untyped_storage() is a.untyped_storage()
        assert a.t().untyped_storage().data_ptr() == s.data_ptr() if a.dim() == 2 else True
        assert a.clone().untyped_storage().data_ptr() != s.data_ptr()
        assert s.cpu() is s and s.untyped() is s
        c = s.clone()
        assert c.data_ptr() != s.data_ptr() and c.tolist() == s.tolist() and type(c) is type(s)
        assert T.is_storage(s) and not T.is_storage(a)
        assert T.tensor([]).untyped_storage().nbytes() == 0
        assert T.tensor([]).untyped_storage().data_ptr() == 0
    for make in (lambda T: T.tensor([[1., 2.], [3., 4.]]), lambda T: T.tensor([1, 2]),
                 lambda T: T.tensor([True]), lambda T: T.arange(6, dtype=T.float32)[2:4]):
        same(lambda T: make(T).untyped_storage().tolist())
        same(lambda T: make(T).untyped_storage()[1] if make(T).untyped_storage().nbytes() > 1 else 0)
        same(lambda T: str(make(T).untyped_storage()).replace("torch.", "minigrad."))


def test_untyped_storage_writes_and_resize():
    same(lambda T: (lambda a: (a.untyped_storage().fill_(0), a)[1])(T.arange(6, dtype=T.float32)))
    same(lambda T: (lambda a: (a.untyped_storage().copy_(T.ones(2).untyped_storage()), a)[1])(T.zeros(2)))
    same(lambda T: T.zeros(2).untyped_storage().copy_(T.ones(3).untyped_storage()))
    same(lambda T: T.UntypedStorage([1, 2, 3]).tolist())
    same(lambda T: T.UntypedStorage(8).nbytes())
    same(lambda T: T.UntypedStorage().nbytes())
    same(lambda T: T.UntypedStorage([1, 2]).type())
    for T in (torch, minigrad):
        b = T.ones(2)
        s = b.untyped_storage()
        assert s.resize_(4) is s and s.nbytes() == 4 and s.tolist() == [0, 0, 128, 63]
        s.resize_(16)
        assert s.nbytes() == 16 and s.tolist()[:4] == [0, 0, 128, 63]
        u = T.UntypedStorage([1, 2])
        u[0] = 7
        assert u.tolist() == [7, 2]


def test_typed_storage():
    _storage._typed_warned.clear()
    same(lambda T: (lambda st: (st.dtype, st.size(), len(st), st.nbytes(), st.element_size(), st.tolist(),
                                st[1], st.type()))(T.tensor([1., 2., 3.]).storage()))
    for T in (torch, minigrad):
        x = T.tensor([1, 2, 3])
        st = x.storage()
        assert st.data_ptr() == x.data_ptr() and st.untyped().nbytes() == 24 and st.tolist() == [1, 2, 3]
        st[0] = 5
        assert x.tolist() == [5, 2, 3]
        assert T.is_storage(st) and isinstance(st, T.TypedStorage) and isinstance(st.untyped(), T.UntypedStorage)
    assert str(minigrad.tensor([1., 2.]).storage()) == (
        " 1.0\n 2.0\n[minigrad.storage.TypedStorage(dtype=minigrad.float32, device=cpu) of size 2]")


def test_typed_storage_warns_once():
    _storage._typed_warned.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        minigrad.ones(2).storage()
        minigrad.ones(2).storage()
    assert [str(w.message) for w in caught] == [_storage._TYPED_WARNING]
    assert _storage._TYPED_WARNING == str(torch.storage._warn_typed_storage_removal.__code__.co_consts[-1]) or \
        "TypedStorage is deprecated" in _storage._TYPED_WARNING


def test_shared_and_pinned():
    for T in (torch, minigrad):
        a = T.arange(6, dtype=T.float32)
        assert a.is_pinned() is False and a.is_shared() is False
        assert a.share_memory_() is a and a.is_shared() and a[1:].is_shared()
        assert a.untyped_storage().is_shared()
    if not minigrad.cuda.is_available():
        same(lambda T: T.ones(2).pin_memory())
        same(lambda T: T.ones(2).untyped_storage().pin_memory())
    else:
        p = minigrad.ones(2).pin_memory()
        assert p.is_pinned() and p.tolist() == [1.0, 1.0] and p.pin_memory() is p


SET_CASES = [
    lambda T: (lambda a, b: (b.set_(a, 2, (2, 2), (1, 1)), b.data_ptr() - a.data_ptr(), b.storage_offset(),
                             b.is_set_to(a), b.fill_(7), a))(T.arange(6.), T.zeros(3)),
    lambda T: (lambda a, c: (c.set_(a), c.data_ptr() == a.data_ptr(), c.shape, c.is_set_to(a)))(T.arange(6.),
                                                                                                 T.zeros(3)),
    lambda T: (lambda a, c: (c.set_(a.untyped_storage()), c.shape))(T.arange(6.), T.zeros(3)),
    lambda T: (lambda a, c: (c.set_(a.untyped_storage(), 1, (2,)), c.storage_offset()))(T.arange(6.), T.zeros(3)),
    lambda T: (lambda a, c: c.set_(a.untyped_storage(), 1, (2,), (2,)))(T.arange(6.), T.zeros(3)),
    lambda T: (lambda a, c: (c.set_(a[2:]), c.storage_offset(), c.untyped_storage().data_ptr() ==
                             a.untyped_storage().data_ptr()))(T.arange(6.), T.zeros(3)),
    lambda T: (lambda c: (c.set_(), c.shape, c.untyped_storage().nbytes()))(T.zeros(3)),
    lambda T: T.zeros(3).set_(T.ones(2, dtype=T.long)),
    lambda T: T.zeros(3).set_(T.arange(6.), 1),
    lambda T: T.zeros(3).set_(T.arange(6.).untyped_storage(), 1),
    lambda T: T.zeros(3).set_(3),
    lambda T: T.ones(2, requires_grad=True).set_(T.arange(6.)),
    lambda T: T.zeros(3).set_(source=T.arange(6.)),
    lambda T: T.zeros(1).set_(T.arange(6.), 0, (2, 2), (3, 1)),
    lambda T: T.arange(6.).is_set_to(T.arange(6.)),
    lambda T: (lambda a: (a.is_set_to(a), a.is_set_to(a[1:]), a[1:].is_set_to(a[1:])))(T.arange(6.)),
]


@pytest.mark.parametrize("call", SET_CASES)
def test_set_(call):
    same(call)


def test_set_shares_memory():
    for T in (torch, minigrad):
        a = T.arange(6.)
        c = T.zeros(1).set_(a, 1, (2, 2), (2, 1))
        c.mul_(10)
        assert a.tolist() == [0., 10., 20., 30., 40., 5.]
        a.add_(1)
        assert c.tolist() == [[11., 21.], [31., 41.]]


@pytest.mark.parametrize("call", [
    lambda T: T.ones(2, 3).resize(3, 2),
    lambda T: T.ones(2, 3).resize((6,)),
    lambda T: T.ones(2, 3).resize(7),
    lambda T: T.ones(2, 3).resize(6),
    lambda T: T.ones(2, 3).resize_as(T.ones(6)),
    lambda T: T.ones(2, 3).resize_as(T.ones(5)),
    lambda T: T.ones(2, requires_grad=True).resize(2).grad_fn.name(),
    lambda T: (lambda x: (x.resize(2, 2).sum().backward(), x.grad)[1])(T.ones(4, requires_grad=True)),
])
def test_resize_deprecated(call):
    same(call)
