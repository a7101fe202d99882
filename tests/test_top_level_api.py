"""torch's top-level utilities: finfo/iinfo/can_cast, asarray/frombuffer, the default device, the
deterministic and precision flags (torch.backends.*), torch.compile / torch.compiler, ChainDataset,
StackDataset, IterableDataset workers, and the backends' rng_state primitives behind the RNG
state functions; each compared with torch 2.13 (messages with 'torch' read as 'minigrad')."""
import array
import copy
import pickle
import random
import warnings

import numpy as np
import pytest

import minigrad
from minigrad.utils import data as mdata

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _torch_distribution_validation_restored():
    """torch.compile (its dynamo) switches torch.distributions' argument validation off for the
    whole process; put it back so that later tests compare against torch's default."""
    before = torch.distributions.Distribution._validate_args
    yield
    torch.distributions.Distribution.set_default_validate_args(before)
import torch.utils.data as tdata  # noqa: E402


def outcome(fn, lib):
    """fn(lib)'s result (repr-ish) or its error (type, message), for comparing minigrad with torch."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(lib)
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, str(e).replace("torch", "minigrad")
    if hasattr(r, "tolist") and hasattr(r, "dtype"):
        return str(r.dtype).split(".")[-1], r.tolist()
    return r if isinstance(r, (bool, int, float, type(None))) else str(r).replace("torch", "minigrad")


def same(fn):
    assert outcome(fn, minigrad) == outcome(fn, torch)


# ---- finfo, iinfo, can_cast ---------------------------------------------------------------

INFO_CASES = {
    "finfo-f32": lambda L: L.finfo(L.float32),
    "finfo-f64": lambda L: L.finfo(L.float64),
    "finfo-default": lambda L: L.finfo(),
    "finfo-keyword": lambda L: L.finfo(type=L.float64),
    "finfo-int": lambda L: L.finfo(L.int64),
    "finfo-bool": lambda L: L.finfo(L.bool),
    "finfo-str": lambda L: L.finfo("float32"),
    "finfo-none": lambda L: L.finfo(None),
    "finfo-two": lambda L: L.finfo(L.float32, 1),
    "finfo-dtype-kw": lambda L: L.finfo(dtype=L.float32),
    "iinfo-i32": lambda L: L.iinfo(L.int32),
    "iinfo-i64": lambda L: L.iinfo(L.int64),
    "iinfo-float": lambda L: L.iinfo(L.float32),
    "iinfo-bool": lambda L: L.iinfo(L.bool),
    "iinfo-none": lambda L: L.iinfo(None),
    "iinfo-missing": lambda L: L.iinfo(),
    "iinfo-two": lambda L: L.iinfo(L.int32, 1),
    "can_cast-missing": lambda L: L.can_cast(L.float32),
    "can_cast-missing-both": lambda L: L.can_cast(),
    "can_cast-int": lambda L: L.can_cast(1, L.float32),
    "can_cast-str": lambda L: L.can_cast(L.float32, "float32"),
    "can_cast-keywords": lambda L: L.can_cast(from_=L.float32, to=L.int32),
    "can_cast-three": lambda L: L.can_cast(L.float32, L.float32, L.float32),
}


@pytest.mark.parametrize("case", list(INFO_CASES))
def test_info_and_can_cast_as_torch(case):
    same(INFO_CASES[case])


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "int64"])
def test_info_attributes(name):
    info = minigrad.finfo if name.startswith("float") else minigrad.iinfo
    tinfo = torch.finfo if name.startswith("float") else torch.iinfo
    m, t = info(getattr(minigrad, name)), tinfo(getattr(torch, name))
    attrs = ["bits", "max", "min", "dtype"] + (["eps", "tiny", "smallest_normal", "resolution"]
                                               if name.startswith("float") else [])
    for a in attrs:
        assert getattr(m, a) == getattr(t, a) and type(getattr(m, a)) is type(getattr(t, a)), a
    assert repr(m) == repr(t) and str(m) == str(t)
    assert m == info(getattr(minigrad, name)) and not (m == 1)
    with pytest.raises(AttributeError, match=f"attribute 'bits' of 'minigrad.{type(m).__name__}' objects is not writable"):
        m.bits = 3
    with pytest.raises(TypeError, match="unhashable"):
        hash(m)


def test_finfo_follows_default_dtype():
    minigrad.set_default_dtype(minigrad.float64)
    try:
        assert minigrad.finfo().dtype == "float64"
    finally:
        minigrad.set_default_dtype(minigrad.float32)


def test_can_cast_table():
    names = ["float32", "float64", "int64", "int32", "bool"]
    for a in names:
        for b in names:
            assert minigrad.can_cast(getattr(minigrad, a), getattr(minigrad, b)) == \
                torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)


# ---- asarray --------------------------------------------------------------------------------

ASARRAY_CASES = {
    "list": lambda L: L.asarray([1, 2, 3]),
    "floats": lambda L: L.asarray([1.0, 2]),
    "number": lambda L: L.asarray(3.5),
    "bool": lambda L: L.asarray(True),
    "nested-dtype": lambda L: L.asarray([[1, 2], [3, 4]], dtype=L.float32),
    "empty": lambda L: L.asarray([]),
    "tensors-inside": lambda L: L.asarray([L.tensor(1.0), L.tensor(2.0)]),
    "numpy-scalar": lambda L: L.asarray(np.float64(2.5)),
    "numpy-int32-scalar": lambda L: L.asarray(np.int32(2)),
    "numpy-scalar-dtype": lambda L: L.asarray(np.int64(2), dtype=L.float32),
    "numpy-scalar-no-copy": lambda L: L.asarray(np.float32(2), copy=False),
    "sequence-no-copy": lambda L: L.asarray([1, 2], copy=False),
    "numpy-wrong-dtype-no-copy": lambda L: L.asarray(np.arange(3.0, dtype=np.float32), dtype=L.float64,
                                                     copy=False),
    "tensor-wrong-dtype-no-copy": lambda L: L.asarray(L.ones(2, dtype=L.int32), dtype=L.float64, copy=False),
    "long-to-bool-no-copy": lambda L: L.asarray(L.ones(2, dtype=L.int64), dtype=L.bool, copy=False),
    "int-requires-grad": lambda L: L.asarray(np.arange(3), requires_grad=True),
    "list-requires-grad": lambda L: L.asarray([1.0, 2.0], requires_grad=True).requires_grad,
    "string": lambda L: L.asarray("abc"),
    "positional-dtype": lambda L: L.asarray([1, 2], np.float32),
    "dtype-str": lambda L: L.asarray([1, 2], dtype="float32"),
    "copy-int": lambda L: L.asarray([1], copy=3),
    "unknown-keyword": lambda L: L.asarray([1], foo=3),
    "bytearray-default-dtype": lambda L: L.asarray(bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00")),
    "bytearray-int32": lambda L: L.asarray(bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00"), dtype=L.int32),
    "array-module": lambda L: L.asarray(array.array("d", [1, 2])),
}


@pytest.mark.parametrize("case", list(ASARRAY_CASES))
def test_asarray_as_torch(case):
    same(ASARRAY_CASES[case])


def test_asarray_shares_memory_as_torch():
    for lib in (minigrad, torch):
        a = np.arange(6, dtype=np.float32)
        t = lib.asarray(a)
        a[0] = 100
        assert t[0].item() == 100 and t.dtype == lib.float32
        converted = lib.asarray(a, dtype=lib.float64)  # a conversion copies
        a[1] = 50
        assert converted[1].item() == 1
        copied = lib.asarray(a, copy=True)
        a[2] = 7
        assert copied[2].item() == 2
        b = np.arange(6).reshape(2, 3).T  # non-contiguous arrays are shared too
        tb = lib.asarray(b)
        b[0, 0] = 99
        assert tb[0, 0].item() == 99
        x = lib.ones(3)
        assert lib.asarray(x) is x and lib.asarray(x, device="cpu") is x
        assert lib.asarray(x, dtype=lib.float32, copy=False) is x
        y = lib.asarray(x, copy=True)
        y[0] = 5
        assert y is not x and x[0].item() == 1
        buf = bytearray(8)
        tbuf = lib.asarray(buf, dtype=lib.int32)
        buf[0] = 5
        assert tbuf.tolist() == [5, 0]
        tbuf[1] = 3
        assert buf[4] == 3


def test_asarray_requires_grad_as_torch():
    for lib in (minigrad, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = lib.ones(3, requires_grad=True)
            y = lib.asarray(x)
            assert y is x and y.requires_grad
            y = lib.asarray(x, copy=True)
            assert y.requires_grad and type(y.grad_fn).__name__ == "CloneBackward0"
            y = lib.asarray(x, dtype=lib.float64)
            assert type(y.grad_fn).__name__ == "ToCopyBackward0"
            y = lib.asarray(x, copy=True, requires_grad=False)
            assert not y.requires_grad and x.requires_grad
            h = x * 2
            y = lib.asarray(h, requires_grad=False)  # a history: a detached alias
            assert y is not h and not y.requires_grad and h.requires_grad
            assert lib.asarray(h, requires_grad=True) is h
            y = lib.asarray(x, requires_grad=False)  # a leaf: changed in place, as torch does
            assert y is x and not x.requires_grad
            z = lib.ones(3)
            y = lib.asarray(z, requires_grad=True)
            assert y is z and z.requires_grad and y.is_leaf
            y = lib.asarray(lib.ones(3), copy=True, requires_grad=True)
            assert y.requires_grad and y.is_leaf
        with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
            lib.asarray(lib.ones(3, dtype=lib.int64), requires_grad=True)


def test_asarray_warns_once_as_torch():
    from minigrad import creation
    creation._WARNED.discard("asarray")
    creation._WARNED.discard("numpy")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        x = minigrad.ones(2, requires_grad=True)
        minigrad.asarray(x)
        minigrad.asarray(x * 2)
        ro = np.arange(3.0)
        ro.flags.writeable = False
        minigrad.asarray(ro)
        minigrad.asarray(ro)
    messages = [str(m.message) for m in w]
    assert len(messages) == 2, messages
    assert messages[0].startswith("minigrad.asarray: unspecified requires_grad now defaults to obj.requires_grad")
    assert messages[1].startswith("The given NumPy array is not writable")
    assert all(m.filename == __file__ for m in w)  # attributed to the caller


def test_asarray_device(device):
    x = minigrad.asarray([1.0, 2.0], device=device)
    assert x.device.type == device
    assert minigrad.asarray(x) is x
    y = minigrad.asarray(np.arange(3.0), device=device)
    assert y.device.type == device and y.tolist() == [0.0, 1.0, 2.0]
    if device == "cuda":
        with pytest.raises(ValueError, match="can't alias tensor from device 'cpu' to 'cuda'."):
            minigrad.asarray(minigrad.ones(2), device="cuda", copy=False)
        moved = minigrad.asarray(minigrad.ones(2), device="cuda")
        assert moved.device.type == "cuda" and moved.tolist() == [1.0, 1.0]


# ---- frombuffer -----------------------------------------------------------------------------

BUF = b"\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00"
FROMBUFFER_CASES = {
    "int32": lambda L: L.frombuffer(bytearray(BUF), dtype=L.int32),
    "count-offset": lambda L: L.frombuffer(bytearray(BUF), dtype=L.int32, count=2, offset=4),
    "count-too-large": lambda L: L.frombuffer(bytearray(BUF), dtype=L.int32, count=4),
    "offset-end": lambda L: L.frombuffer(bytearray(BUF), dtype=L.int32, offset=12),
    "offset-negative": lambda L: L.frombuffer(bytearray(BUF), dtype=L.int32, offset=-1),
    "not-multiple": lambda L: L.frombuffer(bytearray(BUF), dtype=L.int64),
    "count-0": lambda L: L.frombuffer(bytearray(BUF), dtype=L.int32, count=0),
    "count-negative": lambda L: L.frombuffer(bytearray(BUF), dtype=L.int32, count=-2),
    "offset-unaligned": lambda L: L.frombuffer(bytearray(BUF), dtype=L.int32, offset=2),
    "float64-offset": lambda L: L.frombuffer(bytearray(BUF), dtype=L.float64, offset=4),
    "no-dtype": lambda L: L.frombuffer(bytearray(BUF)),
    "empty": lambda L: L.frombuffer(bytearray(0), dtype=L.int32),
    "list": lambda L: L.frombuffer([1, 2], dtype=L.int32),
    "numpy": lambda L: L.frombuffer(np.arange(3, dtype=np.int64), dtype=L.int64),
    "bool": lambda L: L.frombuffer(bytearray(b"\x00\x01\x01"), dtype=L.bool),
    "requires-grad": lambda L: L.frombuffer(bytearray(8), dtype=L.float32, requires_grad=True).requires_grad,
    "int-requires-grad": lambda L: L.frombuffer(bytearray(8), dtype=L.int32, requires_grad=True),
    "positional-dtype": lambda L: L.frombuffer(bytearray(8), L.int32),
    "dtype-str": lambda L: L.frombuffer(bytearray(8), dtype="int32"),
    "count-float": lambda L: L.frombuffer(bytearray(8), dtype=L.int32, count=1.5),
    "memoryview": lambda L: L.frombuffer(memoryview(bytearray(8)), dtype=L.int32),
    "array-offset": lambda L: L.frombuffer(array.array("i", [1, 2, 3]), dtype=L.int32, offset=4),
}


@pytest.mark.parametrize("case", list(FROMBUFFER_CASES))
def test_frombuffer_as_torch(case):
    same(FROMBUFFER_CASES[case])


def test_frombuffer_shares_memory():
    for lib in (minigrad, torch):
        buf = bytearray(BUF)
        t = lib.frombuffer(buf, dtype=lib.int32)
        buf[0] = 9
        t[2] = 7
        assert t.tolist() == [9, 2, 7] and buf[8] == 7


def test_frombuffer_readonly_buffer_warns_once_and_is_written_through():
    from minigrad import creation
    creation._WARNED.discard("buffer")
    data = bytes(BUF)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = minigrad.frombuffer(data, dtype=minigrad.int32)
        minigrad.frombuffer(data, dtype=minigrad.int32)
    assert len(w) == 1 and str(w[0].message).startswith("The given buffer is not writable")
    assert w[0].filename == __file__
    t[0] = 5  # as torch: writes reach the (supposedly immutable) buffer
    assert data[0] == 5 and t.tolist() == [5, 2, 3]


# ---- default device -----------------------------------------------------------------------

@pytest.fixture
def restore_default_device():
    yield
    minigrad.set_default_device(None)


def test_default_device_as_torch(restore_default_device):
    for lib in (minigrad, torch):
        assert repr(lib.get_default_device()) == "device(type='cpu')"
        lib.set_default_device("cpu")
        assert repr(lib.get_default_device()) == "device(type='cpu')"
        lib.set_default_device(lib.device("cpu", 0))
        assert repr(lib.get_default_device()) == "device(type='cpu', index=0)"
        lib.set_default_device(None)
        assert repr(lib.get_default_device()) == "device(type='cpu')"
    same(lambda L: L.set_default_device())


FACTORIES = {
    "tensor": lambda: minigrad.tensor([1.0, 2.0]),
    "as_tensor": lambda: minigrad.as_tensor([1, 2]),
    "as_tensor-numpy": lambda: minigrad.as_tensor(np.arange(3.0)),
    "asarray": lambda: minigrad.asarray([1, 2]),
    "zeros": lambda: minigrad.zeros(2, 3),
    "ones": lambda: minigrad.ones(2),
    "empty": lambda: minigrad.empty(2),
    "full": lambda: minigrad.full((2,), 1.5),
    "arange": lambda: minigrad.arange(4),
    "linspace": lambda: minigrad.linspace(0, 1, 5),
    "eye": lambda: minigrad.eye(3),
    "rand": lambda: minigrad.rand(3),
    "randn": lambda: minigrad.randn(3),
    "randint": lambda: minigrad.randint(0, 5, (3,)),
    "randperm": lambda: minigrad.randperm(4),
    "linear-weight": lambda: minigrad.nn.Linear(2, 3).weight,
    "batchnorm-buffer": lambda: minigrad.nn.BatchNorm1d(3).running_mean,
}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_factories_create_on_the_default_device(name, device, restore_default_device):
    minigrad.set_default_device(device)
    t = FACTORIES[name]()
    assert t.device.type == device
    minigrad.set_default_device(None)
    assert FACTORIES[name]().device.type == "cpu"
    # explicit devices and the tensors' own stay as they are
    minigrad.set_default_device(device)
    assert minigrad.zeros(2, device="cpu").device.type == "cpu"
    assert minigrad.from_numpy(np.zeros(2)).device.type == "cpu"
    assert minigrad.frombuffer(bytearray(4), dtype=minigrad.int32).device.type == "cpu"
    assert minigrad.zeros_like(minigrad.zeros(2, device="cpu")).device.type == "cpu"


def test_default_device_cuda_index(restore_default_device):
    if not minigrad.cuda.is_available():
        minigrad.set_default_device("cuda")  # set: accepted; used: the CUDA error
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            minigrad.zeros(1)
        return
    minigrad.set_default_device("cuda")
    assert minigrad.get_default_device() == minigrad.device("cuda", minigrad.cuda.current_device())
    x = minigrad.ones(2)
    assert x.is_cuda and minigrad.nn.Linear(2, 2)(x.unsqueeze(0)).is_cuda


def test_default_device_errors():
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda device type at start of device string: foo"):
        minigrad.set_default_device("foo")
    assert repr(minigrad.get_default_device()) == "device(type='cpu')"


# ---- deterministic algorithms, matmul precision, torch.backends flags ------------------------

def test_deterministic_flags_as_torch():
    def run(L):
        out = [L.are_deterministic_algorithms_enabled(), L.is_deterministic_algorithms_warn_only_enabled()]
        L.use_deterministic_algorithms(True, warn_only=True)
        out += [L.are_deterministic_algorithms_enabled(), L.is_deterministic_algorithms_warn_only_enabled(),
                L.get_deterministic_debug_mode()]
        L.use_deterministic_algorithms(True)
        out += [L.is_deterministic_algorithms_warn_only_enabled(), L.get_deterministic_debug_mode()]
        L.set_deterministic_debug_mode("warn")
        out += [L.are_deterministic_algorithms_enabled(), L.is_deterministic_algorithms_warn_only_enabled()]
        L.use_deterministic_algorithms(False)
        out += [L.are_deterministic_algorithms_enabled(), L.get_deterministic_debug_mode()]
        for bad in ((1,), ("x",), (True, False)):
            out.append(outcome(lambda L: L.use_deterministic_algorithms(*bad), L))
        out.append(outcome(lambda L: L.use_deterministic_algorithms(True, warn_only=1), L))
        out.append(outcome(lambda L: L.use_deterministic_algorithms(), L))
        for bad in ("x", 5, 1.0):
            out.append(outcome(lambda L: L.set_deterministic_debug_mode(bad), L))
        L.use_deterministic_algorithms(False)
        return out
    assert run(minigrad) == run(torch)


def test_matmul_precision_and_cudnn_flags_as_torch():
    def run(L):
        m, c = L.backends.cuda.matmul, L.backends.cudnn
        out = [L.get_float32_matmul_precision(), m.allow_tf32, m.allow_fp16_reduced_precision_reduction,
               m.allow_bf16_reduced_precision_reduction, c.enabled, c.benchmark, c.deterministic, c.allow_tf32,
               c.is_available(), c.version(), L.backends.mps.is_available()]
        L.set_float32_matmul_precision("high")
        out += [L.get_float32_matmul_precision(), m.allow_tf32]
        L.set_float32_matmul_precision("medium")
        out += [L.get_float32_matmul_precision(), m.allow_tf32]
        L.set_float32_matmul_precision("highest")
        out += [m.allow_tf32]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            L.set_float32_matmul_precision("foo")
        out += [str(w[0].message).split(" (Triggered")[0], L.get_float32_matmul_precision()]
        out.append(outcome(lambda L: L.set_float32_matmul_precision(3), L))
        m.allow_fp16_reduced_precision_reduction = False
        out.append(m.allow_fp16_reduced_precision_reduction)
        m.allow_fp16_reduced_precision_reduction = True
        for name in ("allow_tf32", "allow_fp16_reduced_precision_reduction", "foo"):
            out.append(outcome(lambda L: setattr(L.backends.cuda.matmul, name, "x"), L))
        out.append(outcome(lambda L: L.backends.cuda.matmul.foo, L))
        for name in ("enabled", "benchmark", "deterministic", "allow_tf32"):
            out.append(outcome(lambda L: setattr(L.backends.cudnn, name, 1), L))
        c.benchmark = True
        c.deterministic = True
        out += [c.benchmark, c.deterministic]
        c.benchmark = False
        c.deterministic = False
        return out
    assert run(minigrad) == run(torch)


def test_backends_flags_leave_array_backends_alone():
    from minigrad.backends import PRIMITIVES, numpy_backend
    import minigrad.backends.cudnn as cudnn
    assert minigrad.backends.cudnn is cudnn and "rng_state" in PRIMITIVES
    assert callable(numpy_backend.matmul)


# ---- compile ------------------------------------------------------------------------------

def test_compile_module_as_torch():
    def run(L):
        L.manual_seed(0)
        m = L.nn.Linear(2, 3)
        c = L.compile(m, backend="eager")
        out = [type(c).__name__, isinstance(c, L.nn.Module), isinstance(c, L.nn.Linear), repr(c),
               list(c.state_dict()), c._orig_mod is m, c.weight is m.weight,
               [n for n, _ in c.named_parameters()], c.training, c.in_features]
        c.eval()
        out += [m.training, c.training]
        c.train()
        out.append(m.training)
        c.foo = 3  # attribute writes reach the module
        out += [m.foo, c.foo]
        del c.foo
        out.append(hasattr(m, "foo"))
        out.append(outcome(lambda L: c.load_state_dict(L.nn.Linear(2, 3).state_dict()), L))
        c2 = L.compile(L.nn.Linear(2, 3))
        c2.load_state_dict(c.state_dict())
        out.append(L.equal(c2.weight, m.weight))
        out += [len(list(c.parameters())), [n for n, _ in c.named_modules()]]
        x = L.randn(4, 2)
        out.append(L.equal(c(x), m(x)))
        c(x).sum().backward()
        out.append(m.weight.grad is not None)
        s = L.compile(L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU()))
        out += [repr(s), len(s)]
        out.append(outcome(lambda L: c.nonexistent, L))
        out += ["weight" in dir(c), "forward" in dir(c)]
        return out
    assert [str(v).replace("torch", "minigrad") for v in run(minigrad)] == \
        [str(v).replace("torch", "minigrad") for v in run(torch)]


def test_compiled_module_copies_and_pickles():
    m = minigrad.nn.Linear(2, 3)
    c = minigrad.compile(m)
    x = minigrad.randn(4, 2)
    for clone in (copy.deepcopy(c), pickle.loads(pickle.dumps(c))):
        assert type(clone).__name__ == "OptimizedModule" and clone._orig_mod is not m
        assert list(clone.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
        assert minigrad.equal(clone(x), c(x))


def test_compiled_module_hooks_and_gradients_match_eager(device):
    minigrad.manual_seed(1)
    m = minigrad.nn.Sequential(minigrad.nn.Linear(3, 4), minigrad.nn.Tanh(), minigrad.nn.Linear(4, 1)).to(device)
    seen = []
    m.register_forward_hook(lambda mod, inp, out: seen.append(out.shape))
    c = minigrad.compile(m, mode="max-autotune")
    x = minigrad.randn(5, 3, device=device)
    eager = m(x)
    eager.sum().backward()
    g = [p.grad.clone() for p in m.parameters()]
    m.zero_grad()
    compiled = c(x)
    compiled.sum().backward()
    assert minigrad.equal(eager, compiled) and len(seen) == 2
    assert all(minigrad.equal(a, p.grad) for a, p in zip(g, m.parameters()))


def f_plus_one(x):
    "adds one"
    return x + 1


COMPILE_CASES = {
    "mode-unknown": lambda L: L.compile(f_plus_one, mode="foo"),
    "mode-int": lambda L: L.compile(f_plus_one, mode=3),
    "mode-and-options": lambda L: L.compile(f_plus_one, mode="default", options={}),
    "backend-unknown": lambda L: L.compile(f_plus_one, backend="nope"),
    "not-callable": lambda L: L.compile(3),
    "decorator-none": lambda L: L.compile()(None),
    "function": lambda L: L.compile(f_plus_one)(1),
    "decorator": lambda L: L.compile(mode="reduce-overhead")(f_plus_one)(2),
    "disabled-is-the-function": lambda L: L.compile(f_plus_one, disable=True) is f_plus_one,
    "name": lambda L: L.compile(f_plus_one).__name__,
    "doc": lambda L: L.compile(f_plus_one).__doc__,
    "wrapped": lambda L: L.compile(f_plus_one).__wrapped__ is f_plus_one,
    "is_compiling": lambda L: L.compiler.is_compiling(),
    "compiler-disable": lambda L: L.compiler.disable(f_plus_one)(1),
    "compiler-disable-name": lambda L: L.compiler.disable(recursive=False)(f_plus_one).__name__,
    "compiler-disable-is-new": lambda L: L.compiler.disable(f_plus_one) is f_plus_one,
    "compiler-reset": lambda L: L.compiler.reset(),
}


def _torch_hint(o):
    """torch's invalid-backend message names torch._dynamo.list_backends; minigrad's its own."""
    fix = lambda v: v.replace("minigrad._dynamo", "minigrad.compiler") if isinstance(v, str) else v  # noqa: E731
    return tuple(map(fix, o)) if isinstance(o, tuple) else fix(o)


@pytest.mark.parametrize("case", list(COMPILE_CASES))
def test_compile_as_torch(case):
    assert outcome(COMPILE_CASES[case], minigrad) == _torch_hint(outcome(COMPILE_CASES[case], torch))


def test_invalid_backend_is_a_runtime_error():
    with pytest.raises(RuntimeError) as e:
        minigrad.compile(f_plus_one, backend="nope")
    assert type(e.value).__name__ == "InvalidBackend"


# ---- utils.data: ChainDataset, StackDataset, IterableDataset workers -------------------------

def _data_run(L, D):
    class It(D.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n

    class NoLen(D.IterableDataset):
        def __iter__(self):
            return iter([7])

    class M(D.Dataset):
        def __getitem__(self, i):
            return i

        def __len__(self):
            return 3

    class G(M):
        def __getitems__(self, idx):
            return [("g", i) for i in idx]

    class Short(M):
        def __getitems__(self, idx):
            return list(idx)[:1]

    out = []
    c = D.ChainDataset([It(2), It(3)])
    out += [list(c), len(c), type(It(2) + It(3)).__name__, list(It(1) + It(2))]
    out.append(outcome(lambda L: len(D.ChainDataset([It(2), NoLen()])), L))
    out.append(outcome(lambda L: list(D.ChainDataset([M()])), L))
    out.append(outcome(lambda L: len(D.ChainDataset([M()])), L))
    x, y = L.arange(6).reshape(3, 2), L.arange(3)
    s = D.StackDataset(x, y)
    out += [len(s), str(s[1]), str(s.__getitems__([0, 2]))]
    s = D.StackDataset(a=x, b=y)
    out += [len(s), str(s[2]), str(s.__getitems__([0, 2])), type(s.datasets).__name__]
    for args, kw in (((x, L.arange(4)), {}), ((), {"a": x, "b": L.arange(4)}), ((x,), {"b": y}), ((), {})):
        out.append(outcome(lambda L: D.StackDataset(*args, **kw), L))
    out += [str(b) for b in D.DataLoader(D.StackDataset(a=x, b=y), batch_size=2)]
    out.append(str(D.StackDataset(G(), M()).__getitems__([0, 1])))
    out.append(outcome(lambda L: D.StackDataset(Short(), M()).__getitems__([0, 1]), L))
    out.append(outcome(lambda L: D.StackDataset(a=Short(), b=M()).__getitems__([0, 1]), L))
    out.append(D.get_worker_info())
    return [str(v).replace("torch", "minigrad") for v in out]


def test_chain_and_stack_datasets_as_torch():
    assert _data_run(minigrad, mdata) == _data_run(torch, tdata)


def _make_sharded(D):
    class Sharded(D.IterableDataset):
        def __init__(self, n):
            self.start, self.end = 0, n

        def __iter__(self):
            info = D.get_worker_info()
            if info is None:
                return iter(range(self.start, self.end))
            return iter([(info.id, info.num_workers, v) for v in range(self.start, self.end)])

    class Stream(D.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

    class Uneven(D.IterableDataset):
        def __iter__(self):
            info = D.get_worker_info()
            return iter(range(10 * info.id, 10 * info.id + (3 if info.id == 0 else 1)))

    return Sharded, Stream, Uneven


def _shard(wid):
    import sys
    lib = sys.modules[_shard.lib]
    info = lib.utils.data.get_worker_info()
    ds = info.dataset
    per = (ds.end - ds.start) // info.num_workers
    start = ds.start + wid * per
    ds.end = ds.end if wid == info.num_workers - 1 else start + per
    ds.start = start


def _worker_run(L, D):
    _shard.lib = L.__name__
    Sharded, Stream, Uneven = _make_sharded(D)
    out = [[str(b) for b in D.DataLoader(Stream(5), num_workers=2)],
           [b.tolist() for b in D.DataLoader(Stream(5), num_workers=2, batch_size=2)],
           [b.tolist() for b in D.DataLoader(Stream(5), num_workers=2, batch_size=2, drop_last=True)],
           [str(b) for b in D.DataLoader(Sharded(5), num_workers=3, batch_size=None, worker_init_fn=_shard)],
           [[t.tolist() for t in b] for b in D.DataLoader(Sharded(7), num_workers=2, batch_size=3,
                                                          worker_init_fn=_shard)],
           [int(b) for b in D.DataLoader(Uneven(), num_workers=2)]]
    ds = Sharded(4)
    list(D.DataLoader(ds, num_workers=2, worker_init_fn=_shard))
    out.append((ds.start, ds.end))  # the workers' copies were sharded, not the dataset
    out.append(D.get_worker_info())
    return out


@pytest.mark.filterwarnings("ignore:This DataLoader will create")
def test_iterable_dataset_workers_as_torch():
    assert _worker_run(minigrad, mdata) == _worker_run(torch, tdata)


def test_worker_rng_is_seeded_per_worker_and_leaves_the_main_stream():
    class Draws(mdata.IterableDataset):
        def __iter__(self):
            yield minigrad.rand(1).item(), random.random(), np.random.rand()

    loader = mdata.DataLoader(Draws(), num_workers=2, batch_size=None)
    minigrad.manual_seed(3)
    random.seed(3)
    np.random.seed(3)
    first = list(loader)
    main_after = (minigrad.rand(1).item(), random.random(), np.random.rand())
    minigrad.manual_seed(3)
    random.seed(3)
    np.random.seed(3)
    assert list(loader) == first  # reproducible from the main seed
    minigrad.rand(1)  # the loader took one draw for its base seed: the main stream is otherwise untouched
    minigrad.manual_seed(3)
    random.seed(3)
    np.random.seed(3)
    minigrad.randint(0, 1 << 63, (), device="cpu")
    assert (minigrad.rand(1).item(), random.random(), np.random.rand()) == main_after
    assert len({tuple(map(float, w)) for w in first}) == 2  # the two workers draw differently


def test_persistent_workers_call_init_once():
    calls = []

    class Stream(mdata.IterableDataset):
        def __iter__(self):
            return iter([mdata.get_worker_info().id])

    loader = mdata.DataLoader(Stream(), num_workers=2, worker_init_fn=calls.append, persistent_workers=True,
                              batch_size=None)
    assert list(loader) == [0, 1] and list(loader) == [0, 1] and calls == [0, 1]
    fresh = mdata.DataLoader(Stream(), num_workers=2, worker_init_fn=calls.append, batch_size=None)
    list(fresh), list(fresh)
    assert calls == [0, 1, 0, 1, 0, 1]


# ---- RNG state through the backends' rng_state primitives ---------------------------------

def test_rng_state_round_trip(device):
    minigrad.manual_seed(5)
    if device == "cpu":
        state = minigrad.get_rng_state()
        a = minigrad.rand(4), minigrad.randperm(6)
        minigrad.set_rng_state(state)
        b = minigrad.rand(4), minigrad.randperm(6)
    else:
        state = minigrad.cuda.get_rng_state()
        a = (minigrad.rand(4, device="cuda"),)
        minigrad.cuda.set_rng_state(state)
        b = (minigrad.rand(4, device="cuda"),)
    assert all(minigrad.equal(x, y) for x, y in zip(a, b))
    g = minigrad.Generator().manual_seed(2)
    s = g.get_state()
    first = minigrad.rand(3, generator=g)
    g.set_state(s)
    assert minigrad.equal(minigrad.rand(3, generator=g), first)
