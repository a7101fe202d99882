"""Lazy modules (nn.LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*),
nn.modules.lazy.LazyModuleMixin and nn.UninitializedParameter / UninitializedBuffer, against
torch: reprs before and after the first call, the class they become, shapes, init distributions,
state_dict round trips, errors, dtype / device moves before the first call, and one training step
equal to the eager module's with the same weights, on every device."""
import copy
import pickle
import re
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.nn as mnn
from minigrad.nn.parameter import is_lazy
from test_conv3d import _sorted_sets

torch = pytest.importorskip("torch")
tnn = torch.nn


def outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        msg = str(e).replace("minigrad.", "torch.")
        # the function torch's message names is its C++ one, printed with an address
        msg = re.sub(r"in <(built-in |)function [^>]*>\.", "in <FUNCTION>.", msg)
        return type(e).__name__, _sorted_sets(msg)
    return "ok", type(r).__name__


def both(fn):
    """fn(lib) with lib = torch and minigrad: the same outcome."""
    t, m = outcome(lambda: fn(torch)), outcome(lambda: fn(minigrad))
    assert m == t
    return m


def _np(t):
    return t.detach().cpu().numpy() if isinstance(t, minigrad.Tensor) else t.detach().numpy()


def _dev(device):
    """The device a tensor made on `device` reports ("cuda" is cuda:0)."""
    return minigrad.empty(0, device=device).device


# ---- UninitializedParameter / UninitializedBuffer -------------------------------------------------------

def test_uninitialized_parameter_basics():
    for lib in (torch, minigrad):
        p = lib.nn.UninitializedParameter()
        assert repr(p) == str(p) == "<UninitializedParameter>"
        assert isinstance(p, lib.nn.Parameter) and lib.nn.parameter.is_lazy(p)
        assert p.requires_grad and p.is_leaf and p.grad is None and p.grad_fn is None
        assert tuple(p.size()) == (0,) and p.ndim == 1 and p.is_floating_point()
        assert str(p.dtype).split(".")[-1] == "float32" and str(p.device) == "cpu"
        assert p.float() is p and p.cpu() is p and p.to("cpu") is p
        b = lib.nn.UninitializedBuffer()
        assert repr(b) == "<UninitializedBuffer>" and b.persistent and not b.requires_grad
        assert isinstance(b, lib.nn.Buffer) and not isinstance(b, lib.nn.Parameter)
        assert not lib.nn.UninitializedBuffer(persistent=False).persistent
    assert minigrad.nn.parameter.is_lazy(mnn.UninitializedBuffer())
    assert not minigrad.nn.parameter.is_lazy(mnn.Parameter(minigrad.ones(2)))


@pytest.mark.parametrize("name", ["shape", "numel", "dim", "sum", "add", "radd", "mul", "neg", "lt", "len",
                                  "detach", "clone", "zero_", "tolist", "requires_grad_", "share_memory_",
                                  "getitem", "bool", "float()", "item", "view", "abs", "matmul", "eq", "format",
                                  "linear", "relu_fn", "element_size", "contiguous", "retain_grad",
                                  "buffer_shape", "buffer_add", "buffer_deepcopy", "new_from_tensor"])
def test_uninitialized_errors(name):
    ops = {"shape": lambda p, lib: p.shape, "numel": lambda p, lib: p.numel(), "dim": lambda p, lib: p.dim(),
           "sum": lambda p, lib: p.sum(), "add": lambda p, lib: p + 1, "radd": lambda p, lib: 1 + p,
           "mul": lambda p, lib: p * 2, "neg": lambda p, lib: -p, "lt": lambda p, lib: p < 1,
           "len": lambda p, lib: len(p), "detach": lambda p, lib: p.detach(), "clone": lambda p, lib: p.clone(),
           "zero_": lambda p, lib: p.zero_(), "tolist": lambda p, lib: p.tolist(),
           "requires_grad_": lambda p, lib: p.requires_grad_(False), "share_memory_": lambda p, lib: p.share_memory_(),
           "getitem": lambda p, lib: p[0], "bool": lambda p, lib: bool(p), "float()": lambda p, lib: float(p),
           "item": lambda p, lib: p.item(), "view": lambda p, lib: p.view(-1), "abs": lambda p, lib: p.abs(),
           "matmul": lambda p, lib: p @ lib.ones(0), "eq": lambda p, lib: p == p,
           "format": lambda p, lib: f"{p}",
           "linear": lambda p, lib: lib.nn.functional.linear(lib.ones(2, 0), p),
           "relu_fn": lambda p, lib: lib.nn.functional.relu(p),
           "element_size": lambda p, lib: p.element_size(), "contiguous": lambda p, lib: p.contiguous(),
           "retain_grad": lambda p, lib: p.retain_grad(),
           "buffer_shape": lambda p, lib: lib.nn.UninitializedBuffer().shape,
           "buffer_add": lambda p, lib: lib.nn.UninitializedBuffer() + 1,
           "buffer_deepcopy": lambda p, lib: copy.deepcopy(lib.nn.UninitializedBuffer()),
           "new_from_tensor": lambda p, lib: lib.nn.UninitializedParameter(lib.ones(2))}
    fn = ops[name]
    kind, msg = both(lambda lib: fn(lib.nn.UninitializedParameter(), lib))
    assert kind != "ok"
    if kind == "ValueError":
        assert msg.startswith("Attempted to use an uninitialized parameter in ")


def _msg_without_function(fn, lib):
    try:
        fn(lib)
    except ValueError as e:
        return re.sub(r"in <[^>]*>\.", "in <F>.", str(e))
    raise AssertionError("no error")


def test_uninitialized_error_message_names_the_method():
    # the method torch names is its own: <method 'sum' of 'torch._C.TensorBase' objects>
    for fn in (lambda lib: lib.nn.UninitializedParameter().sum(), lambda lib: lib.nn.UninitializedParameter() * 2,
               lambda lib: lib.nn.UninitializedParameter().numel(), lambda lib: lib.nn.UninitializedBuffer().dim()):
        t, m = outcome(lambda: fn(torch)), outcome(lambda: fn(minigrad))
        assert t == m
    for fn in (lambda lib: lib.nn.functional.linear(lib.ones(1, 1), lib.nn.UninitializedParameter()),
               lambda lib: len(lib.nn.UninitializedParameter())):
        assert _msg_without_function(fn, minigrad) == _msg_without_function(fn, torch)


def test_uninitialized_conversions_and_materialize(device):
    p = mnn.UninitializedParameter(dtype=minigrad.float64)
    q = p.to(minigrad.float32)  # a plain tensor (torch's Parameter subclasses don't keep their class)
    tp = tnn.UninitializedParameter(dtype=torch.float64).to(torch.float32)
    assert type(q).__name__ == type(tp).__name__ == "Tensor" and q.grad_fn is not None and tp.grad_fn is not None
    b = mnn.UninitializedBuffer(dtype=minigrad.float64)
    b2, tb2 = b.to(minigrad.float32), tnn.UninitializedBuffer(dtype=torch.float64).to(torch.float32)
    assert type(b2).__name__ == type(tb2).__name__ == "UninitializedBuffer"
    assert b2 is not b and b2.dtype == minigrad.float32
    assert b2.to(device).device == _dev(device)

    for lib in (torch, minigrad):
        p = lib.nn.UninitializedParameter(requires_grad=False, dtype=lib.float64)
        p.materialize((2, 3))
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (2, 3) and p.dtype == lib.float64
        assert not p.requires_grad
        p = lib.nn.UninitializedParameter()
        p.materialize(4, dtype=lib.float64)
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (4,) and p.dtype == lib.float64 and p.requires_grad
        b = lib.nn.UninitializedBuffer()
        b.materialize((3, 1))
        assert type(b) is lib.Tensor and tuple(b.shape) == (3, 1) and not b.requires_grad
    p = mnn.UninitializedParameter()
    p.materialize((2,), device=device)
    assert p.device == _dev(device)
    p = mnn.UninitializedParameter(device=device)
    assert p.device == _dev(device)
    p.materialize((5,))
    assert p.device == _dev(device) and p.numel() == 5
    # copy_ is allowed (into its empty placeholder), as torch
    q = mnn.UninitializedParameter(requires_grad=False)
    assert q.copy_(minigrad.ones(0)) is q
    assert both(lambda lib: lib.nn.UninitializedParameter(requires_grad=False).copy_(lib.ones(3)))[0] == "RuntimeError"


def test_uninitialized_copy_and_pickle():
    p = mnn.UninitializedParameter(requires_grad=False, dtype=minigrad.float64)
    c = copy.deepcopy(p)
    assert type(c) is mnn.UninitializedParameter and c is not p and not c.requires_grad
    assert c.data.dtype == minigrad.float64
    c = pickle.loads(pickle.dumps(p))
    assert type(c) is mnn.UninitializedParameter and not c.requires_grad
    assert hash(p) == hash(p) and p in {p}


# ---- lazy modules: construction, repr, first call --------------------------------------------------------

# (class name, constructor args, kwargs, input shape)
CASES = [
    ("LazyLinear", (3,), {}, (2, 5)),
    ("LazyLinear", (4,), {"bias": False}, (2, 3, 6)),
    ("LazyLinear", (2,), {}, (7,)),
    ("LazyConv1d", (4, 3), {}, (2, 2, 9)),
    ("LazyConv1d", (4, 3), {"padding": 1, "padding_mode": "circular", "bias": False}, (2, 2, 5)),
    ("LazyConv2d", (6, 3), {"stride": 2, "padding": 1, "groups": 2}, (2, 4, 7, 6)),
    ("LazyConv2d", (4, (2, 3)), {"dilation": 2, "padding": "same"}, (3, 6, 7)),
    ("LazyConv3d", (2, 2), {"padding": (1, 0, 1)}, (1, 3, 4, 5, 4)),
    ("LazyConvTranspose1d", (4, 3), {"bias": False}, (2, 6, 5)),
    ("LazyConvTranspose2d", (4, (2, 3)), {"stride": 2, "output_padding": 1, "dilation": 2, "groups": 2},
     (1, 4, 3, 4)),
    ("LazyConvTranspose3d", (3, 2), {"stride": (1, 2, 1), "padding": 1}, (2, 2, 3, 3, 3)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm1d", (), {"momentum": None, "eps": 1e-3, "affine": False}, (4, 3, 5)),
    ("LazyBatchNorm2d", (), {"bias": False}, (2, 3, 4, 4)),
    ("LazyBatchNorm2d", (), {"affine": False, "track_running_stats": False}, (2, 3, 2, 2)),
    ("LazyBatchNorm3d", (), {}, (2, 2, 3, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 4)),
    ("LazyInstanceNorm2d", (), {"affine": False}, (2, 3, 4, 5)),
    ("LazyInstanceNorm3d", (), {"track_running_stats": False}, (2, 3, 2, 3, 2)),
]


def _build(case, lib, **extra):
    name, args, kwargs, _ = CASES[case]
    return getattr(lib.nn, name)(*args, **kwargs, **extra)


def _summary(m):
    """What the tests compare about a module: class, repr, parameters and buffers (name, class,
    shape or None while uninitialized), hooks, has_uninitialized_params."""
    def entry(n, t):
        return n, type(t).__name__, None if "Uninitialized" in type(t).__name__ else tuple(t.shape)
    return (type(m).__name__, repr(m).replace("minigrad.", "torch."),
            [entry(n, p) for n, p in m.named_parameters()], [entry(n, b) for n, b in m.named_buffers()],
            len(m._forward_pre_hooks), len(m._load_state_dict_pre_hooks),
            m.has_uninitialized_params() if hasattr(m, "has_uninitialized_params") else None,
            hasattr(m, "_initialize_hook"))


@pytest.mark.parametrize("case", range(len(CASES)))
def test_lazy_module_first_call(case, device):
    rng = np.random.default_rng(case)
    x = rng.standard_normal(CASES[case][3]).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch 2.13 no longer warns that lazy modules are new
        tm, mm = _build(case, torch), _build(case, minigrad)
    assert _summary(mm) == _summary(tm)
    if device != "cpu":
        mm.to(device)
        assert _summary(mm) == _summary(tm)
    ty, my = tm(torch.tensor(x)), mm(minigrad.tensor(x, device=device))
    assert _summary(mm) == _summary(tm)
    assert type(mm) is getattr(mnn, CASES[case][0][4:])  # LazyLinear -> Linear ...
    assert my.shape == ty.shape and my.device == _dev(device)
    for n, p in mm.named_parameters():
        assert type(p) is mnn.Parameter and p.device == _dev(device) and p.requires_grad
    for n, b in mm.named_buffers():
        assert type(b) is minigrad.Tensor and b.device == _dev(device)
    # a second call is the eager module's
    y2 = mm(minigrad.tensor(x, device=device))
    assert y2.shape == my.shape


def _copy_into_torch(mm, tm):
    with torch.no_grad():
        for (n, p), (tn, tp) in zip(mm.named_parameters(), tm.named_parameters()):
            assert n == tn
            tp.copy_(torch.tensor(_np(p)))
        for (n, b), (tn, tb) in zip(mm.named_buffers(), tm.named_buffers()):
            assert n == tn
            tb.copy_(torch.tensor(_np(b)))


@pytest.mark.parametrize("case", range(len(CASES)))
def test_lazy_module_values_and_training_step(case, device):
    """After the first call the module computes what torch's eager module with the same weights
    does, and one SGD step (made after the first call) gives the same parameters and buffers."""
    rng = np.random.default_rng(100 + case)
    shape = CASES[case][3]
    x0, x1 = (rng.standard_normal(shape) for _ in range(2))
    mm = _build(case, minigrad, dtype=minigrad.float64)
    mm.to(device)
    mm(minigrad.tensor(x0, device=device))  # the dry run
    tm = _build(case, torch, dtype=torch.float64)
    tm(torch.tensor(x0))
    _copy_into_torch(mm, tm)
    has_params = bool(list(tm.parameters()))
    assert has_params == bool(list(mm.parameters()))
    mopt = minigrad.optim.SGD(mm.parameters(), lr=0.1, momentum=0.9) if has_params else None
    topt = torch.optim.SGD(tm.parameters(), lr=0.1, momentum=0.9) if has_params else None
    my, ty = mm(minigrad.tensor(x1, device=device)), tm(torch.tensor(x1))
    np.testing.assert_allclose(_np(my), _np(ty), rtol=1e-10, atol=1e-10)
    if topt is None:
        for (n, b), (_, tb) in zip(mm.named_buffers(), tm.named_buffers()):
            np.testing.assert_allclose(_np(b), _np(tb), rtol=1e-10, atol=1e-10, err_msg=n)
        return
    w = rng.standard_normal(ty.shape)
    (my * minigrad.tensor(w, device=device)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    mopt.step()
    topt.step()
    for (n, p), (_, tp) in zip(list(mm.named_parameters()) + list(mm.named_buffers()),
                               list(tm.named_parameters()) + list(tm.named_buffers())):
        np.testing.assert_allclose(_np(p), _np(tp), rtol=1e-10, atol=1e-10, err_msg=n)


# ---- initialization ----------------------------------------------------------------------------------------

EAGER_OF = {
    "LazyLinear": lambda out, inp, kw: mnn.Linear(inp, out, **kw),
    "LazyConv2d": lambda out, inp, kw: mnn.Conv2d(inp, out, **kw),
    "LazyConvTranspose1d": lambda out, inp, kw: mnn.ConvTranspose1d(inp, out, **kw),
    "LazyConv3d": lambda out, inp, kw: mnn.Conv3d(inp, out, **kw),
}


@pytest.mark.parametrize("name, kw, shape", [
    ("LazyLinear", {}, (3, 7)), ("LazyLinear", {"bias": False}, (2, 11)),
    ("LazyConv2d", {"kernel_size": 3, "groups": 2}, (1, 4, 5, 5)),
    ("LazyConvTranspose1d", {"kernel_size": 2, "stride": 2}, (2, 3, 4)),
    ("LazyConv3d", {"kernel_size": (1, 2, 2)}, (1, 2, 3, 3, 3))])
def test_lazy_init_is_the_eager_reset_parameters(name, kw, shape, device):
    """The first call draws the weights exactly as the eager class's constructor does."""
    out = 6
    minigrad.manual_seed(7)
    lazy = getattr(mnn, name)(out, **kw, device=device)
    lazy(minigrad.zeros(shape, device=device))
    minigrad.manual_seed(7)
    eager = EAGER_OF[name](out, shape[-1] if name == "LazyLinear" else shape[1], kw)
    eager.to(device)
    minigrad.manual_seed(7)
    eager.reset_parameters()
    for (n, p), (en, ep) in zip(lazy.named_parameters(), eager.named_parameters()):
        assert n == en and p.shape == ep.shape
        np.testing.assert_array_equal(_np(p), _np(ep))


def test_lazy_init_statistics():
    """LazyLinear's weights and bias are uniform in +-1/sqrt(in_features), as torch's."""
    for lib in (torch, minigrad):
        lib.manual_seed(0)
        m = lib.nn.LazyLinear(400)
        m(lib.ones(1, 100))
        w, b = _np(m.weight), _np(m.bias)
        bound = 1 / np.sqrt(100)
        assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
        assert abs(w.mean()) < 0.01 * bound * 10 and abs(w.std() - bound / np.sqrt(3)) < 0.02 * bound
        assert np.abs(b).max() <= bound and abs(b.std() - bound / np.sqrt(3)) < 0.15 * bound
        c = lib.nn.LazyConv2d(64, 3)
        c(lib.ones(1, 8, 3, 3))
        cb = 1 / np.sqrt(8 * 9)
        cw = _np(c.weight)
        assert np.abs(cw).max() <= cb and abs(cw.std() - cb / np.sqrt(3)) < 0.05 * cb
        bn = lib.nn.LazyBatchNorm2d()
        bn(lib.ones(2, 5, 2, 2))
        assert (_np(bn.weight) == 1).all() and (_np(bn.bias) == 0).all()
        assert (_np(bn.running_var) > 0).all() and int(bn.num_batches_tracked) == 1


# ---- dtypes, devices, optimizers ---------------------------------------------------------------------------

def test_dtype_and_device_before_first_call(device):
    m = mnn.Sequential(mnn.LazyLinear(4), mnn.ReLU(), mnn.LazyBatchNorm1d())
    m.double()
    m.to(device)
    for n, t in list(m.named_parameters()) + list(m.named_buffers()):
        assert t.dtype == (minigrad.int64 if n.endswith("num_batches_tracked") else minigrad.float64), n
        assert t.device == _dev(device), n
    assert is_lazy(m[2].running_mean) and m[2].running_mean.data.dtype == minigrad.float64
    assert [type(p).__name__ for p in m.parameters()] == ["UninitializedParameter"] * 4
    assert m[0].weight.data.dtype == minigrad.float64 and m[0].weight.device == _dev(device)
    y = m(minigrad.ones(3, 2, dtype=minigrad.float64, device=device))
    assert y.dtype == minigrad.float64 and y.device == _dev(device)
    assert [type(x).__name__ for x in m] == ["Linear", "ReLU", "BatchNorm1d"]
    for n, t in list(m.named_parameters()) + list(m.named_buffers()):
        assert t.device == _dev(device), n
        assert t.dtype == (minigrad.int64 if n.endswith("num_batches_tracked") else minigrad.float64), n
    # the module's dtype= and device= arguments too
    m = mnn.LazyConv1d(2, 1, dtype=minigrad.float64, device=device)
    m(minigrad.ones(1, 3, 2, dtype=minigrad.float64, device=device))
    assert m.weight.dtype == minigrad.float64 and m.weight.device == _dev(device)


def test_cuda_method_before_first_call():
    if not minigrad.cuda.is_available():
        pytest.skip("no CUDA device (real or emulated)")
    m = mnn.LazyLinear(3).cuda()
    assert m.weight.device.type == "cuda" and is_lazy(m.weight)
    y = m(minigrad.ones(2, 4, device="cuda"))
    assert y.device.type == "cuda" and m.weight.device.type == "cuda" and type(m) is mnn.Linear


def test_dtype_mismatch_in_first_call():
    # the parameters are made (float32) before the forward refuses the float64 input, as torch's
    assert both(lambda lib: lib.nn.LazyLinear(3)(lib.ones(2, 5, dtype=lib.float64)))[0] == "RuntimeError"
    m = mnn.LazyLinear(3)
    with pytest.raises(RuntimeError):
        m(minigrad.ones(2, 5, dtype=minigrad.float64))
    assert type(m) is mnn.Linear and m.weight.dtype == minigrad.float32


def test_optimizer_made_before_and_after_first_call(device):
    for lib in (torch, minigrad):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # torch gives no warning for uninitialized parameters
            m = lib.nn.LazyLinear(2)
            if lib is minigrad:
                m.to(device)
            opt = lib.optim.SGD(m.parameters(), lr=0.5)
        dev = device if lib is minigrad else "cpu"
        y = m(lib.ones(3, 4, device=dev))
        assert opt.param_groups[0]["params"][0] is m.weight
        before = _np(m.weight).copy()
        y.sum().backward()
        opt.step()
        np.testing.assert_allclose(_np(m.weight), before - 0.5 * 3, rtol=1e-6)
        m2 = lib.nn.LazyLinear(2)
        if lib is minigrad:
            m2.to(device)
        m2(lib.ones(1, 4, device=dev))
        opt2 = lib.optim.Adam(m2.parameters())
        assert [tuple(p.shape) for g in opt2.param_groups for p in g["params"]] == [(2, 4), (2,)]


# ---- state_dict --------------------------------------------------------------------------------------------

def test_state_dict_of_uninitialized_module():
    for name, kw in (("LazyLinear", {"out_features": 3}), ("LazyBatchNorm1d", {}), ("LazyConv2d", {
            "out_channels": 2, "kernel_size": 1, "bias": False}), ("LazyInstanceNorm1d", {"affine": False})):
        t, m = getattr(tnn, name)(**kw).state_dict(), getattr(mnn, name)(**kw).state_dict()
        assert [(k, repr(v)) for k, v in m.items()] == [(k, repr(v)) for k, v in t.items()]
        assert all(m[k] is not None for k in m)
    sd = mnn.LazyLinear(3).state_dict(keep_vars=True)
    assert all(type(v) is mnn.UninitializedParameter for v in sd.values())


def test_load_initialized_state_into_lazy_module(device):
    src = mnn.Linear(4, 3).to(device)
    for lib, s in ((torch, tnn.Linear(4, 3)), (minigrad, src)):
        m = lib.nn.LazyLinear(3)
        if lib is minigrad:
            m.to(device)
        r = m.load_state_dict(s.state_dict())
        assert repr(r) == "<All keys matched successfully>"
        # materialized from the loaded shapes, still a LazyLinear until its first call
        assert type(m).__name__ == "LazyLinear" and m.in_features == 0 and not m.has_uninitialized_params()
        assert type(m.weight) is lib.nn.Parameter and tuple(m.weight.shape) == (3, 4)
        np.testing.assert_array_equal(_np(m.weight), _np(s.weight))
        dev = device if lib is minigrad else "cpu"
        m(lib.ones(2, 4, device=dev))
        assert type(m) is lib.nn.Linear and m.in_features == 4
        np.testing.assert_array_equal(_np(m.weight), _np(s.weight))  # the loaded values are kept
        np.testing.assert_array_equal(_np(m.bias), _np(s.bias))


def test_load_state_dict_errors_and_lazy_to_lazy():
    def mismatch(lib):
        m = lib.nn.LazyLinear(3)
        m.load_state_dict(lib.nn.Linear(4, 3).state_dict())
        return m(lib.ones(1, 5))
    assert both(mismatch)[0] == "AssertionError"
    # an uninitialized state_dict into an initialized module: torch's shape error
    assert both(lambda lib: lib.nn.Linear(4, 3).load_state_dict(lib.nn.LazyLinear(3).state_dict()))[0] == \
        "RuntimeError"
    # uninitialized into uninitialized: nothing to copy, both stay lazy
    for lib in (torch, minigrad):
        m = lib.nn.LazyLinear(3)
        m.load_state_dict(lib.nn.LazyLinear(3).state_dict())
        assert m.has_uninitialized_params()
    # shapes still checked against an initialized lazy module
    assert both(lambda lib: lib.nn.LazyLinear(3).load_state_dict({"weight": lib.ones(3, 2)}))[0] == "RuntimeError"
    t = outcome(lambda: tnn.LazyLinear(3).load_state_dict({"weight": torch.ones(3, 2)}))
    m = outcome(lambda: mnn.LazyLinear(3).load_state_dict({"weight": minigrad.ones(3, 2)}))
    assert m == t and "Missing key(s) in state_dict" in m[1]


def test_state_dict_round_trip_batchnorm(device):
    mm = mnn.LazyBatchNorm2d().to(device)
    x = np.random.default_rng(3).standard_normal((4, 3, 2, 2)).astype(np.float32)
    mm(minigrad.tensor(x, device=device))
    sd = mm.state_dict()
    assert list(sd) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    fresh = mnn.LazyBatchNorm2d().to(device)
    fresh.load_state_dict(sd)
    assert type(fresh) is mnn.LazyBatchNorm2d and fresh.num_features == 0
    for k in sd:
        np.testing.assert_array_equal(_np(fresh.state_dict()[k]), _np(sd[k]))
    tm = tnn.LazyBatchNorm2d()
    tm(torch.tensor(x))
    for k in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_allclose(_np(sd[k]), _np(tm.state_dict()[k]), rtol=1e-5, atol=1e-6)
    fresh(minigrad.tensor(x, device=device))
    # loaded parameters are not re-inferred: num_features stays 0, as torch's
    tfresh = tnn.LazyBatchNorm2d()
    tfresh.load_state_dict(tm.state_dict())
    tfresh(torch.tensor(x))
    assert repr(fresh) == repr(tfresh) and type(fresh) is mnn.BatchNorm2d and fresh.num_features == 0
    assert int(fresh.num_batches_tracked) == int(tfresh.num_batches_tracked) == 2
    # and into an eager module
    eager = mnn.BatchNorm2d(3).to(device)
    eager.load_state_dict(sd)
    np.testing.assert_array_equal(_np(eager.running_mean), _np(sd["running_mean"]))


# ---- the mixin ---------------------------------------------------------------------------------------------

def test_mixin_protocol():
    def custom(lib, init=True, all_params=True):
        class M(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.UninitializedParameter()
                self.register_buffer("s", lib.nn.UninitializedBuffer())

            if init:
                def initialize_parameters(self, x, scale=1.0):
                    self.w.materialize(x.shape)
                    if all_params:
                        self.s.materialize(())

            def forward(self, x, scale=1.0):
                return x * self.w * scale
        return M()
    assert both(lambda lib: custom(lib, init=False)(lib.ones(2))) == (
        "NotImplementedError", "initialize_parameters is not implemented for M")
    assert both(lambda lib: custom(lib, all_params=False)(lib.ones(2))) == (
        "RuntimeError", "module M has not been fully initialized")
    for lib in (torch, minigrad):
        m = custom(lib)
        y = m(lib.ones(3), scale=2.0)  # keyword arguments reach initialize_parameters
        assert type(m).__name__ == "M" and tuple(y.shape) == (3,) and not m.has_uninitialized_params()
        assert not m._forward_pre_hooks and not m._load_state_dict_pre_hooks
        assert not hasattr(m, "_initialize_hook") and not hasattr(m, "_load_hook")
    m = custom(minigrad)
    with pytest.raises(RuntimeError, match="DataParallel"):
        m._replicate_for_data_parallel()


def test_forward_hooks_and_deepcopy():
    for lib in (torch, minigrad):
        seen = []
        m = lib.nn.LazyLinear(3)
        m.register_forward_hook(lambda mod, args, out: seen.append(type(mod).__name__))
        c = copy.deepcopy(m)  # the copy initializes on its own call
        c(lib.ones(1, 2))
        assert type(c).__name__ == "Linear" and type(m).__name__ == "LazyLinear" and m.has_uninitialized_params()
        m(lib.ones(1, 5))
        assert seen == ["Linear", "Linear"] and m.in_features == 5 and c.in_features == 2
        p = pickle.loads(pickle.dumps(lib.nn.LazyConv1d(2, 1)))
        p(lib.ones(1, 3, 4))
        assert type(p).__name__ == "Conv1d" and p.in_channels == 3
    assert both(lambda lib: copy.deepcopy(lib.nn.LazyBatchNorm1d()))[0] == "ValueError"
    assert both(lambda lib: copy.deepcopy(lib.nn.LazyBatchNorm1d(track_running_stats=False)))[0] == "ok"


def test_uninitialized_module_methods():
    assert both(lambda lib: lib.nn.LazyLinear(3).requires_grad_(False))[0] == "ValueError"
    assert both(lambda lib: lib.nn.LazyLinear(3).zero_grad()) == ("ok", "NoneType")
    assert both(lambda lib: lib.nn.LazyLinear(3).forward(lib.ones(2, 3)))[0] == "ValueError"
    assert both(lambda lib: list(lib.nn.LazyLinear(3).named_parameters())) == ("ok", "list")
    # initialize_parameters can be called by hand; the hook then only unhooks
    for lib in (torch, minigrad):
        m = lib.nn.LazyLinear(3)
        m.initialize_parameters(lib.ones(2, 4))
        assert type(m).__name__ == "LazyLinear" and repr(m).endswith("(in_features=4, out_features=3, bias=True)")
        m(lib.ones(2, 4))
        assert type(m).__name__ == "Linear"


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.LazyConv2d(4, 3, groups=2)(lib.ones(1, 3, 5, 5)),
    lambda lib: lib.nn.LazyConv2d(4, 3)(lib.ones(3, 5)),
    lambda lib: lib.nn.LazyConv3d(4, 3)(lib.ones(1, 1, 3, 5, 5, 5)),
    lambda lib: lib.nn.LazyConvTranspose1d(4, 3, padding_mode="reflect"),
    lambda lib: lib.nn.LazyConv2d(4, 3, padding="same", stride=2),
    lambda lib: lib.nn.LazyConv2d(4, 3, groups=3),
    lambda lib: lib.nn.LazyConv1d(4, 3, padding_mode="bad"),
    lambda lib: lib.nn.LazyBatchNorm3d()(lib.ones(2, 3, 4)),
    lambda lib: lib.nn.LazyBatchNorm1d()(lib.ones(2, 3, 4, 5)),
    lambda lib: lib.nn.LazyInstanceNorm2d()(lib.ones(3, 4, 5)),  # dim 1 is num_features, also unbatched
    lambda lib: lib.nn.LazyInstanceNorm1d(affine=False, track_running_stats=False)(lib.ones(3, 4)),
    lambda lib: lib.nn.LazyLinear(3)(lib.ones(())),
])
def test_lazy_errors(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(fn)


def test_exports():
    import minigrad.nn.modules.lazy as lazy
    assert lazy.__all__ == tnn.modules.lazy.__all__ == ["LazyModuleMixin"]
    for name in ("LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
                 "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
                 "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"):
        assert name in mnn.modules.__all__ and issubclass(getattr(mnn, name), lazy.LazyModuleMixin)
        assert getattr(mnn, name).cls_to_become is getattr(mnn, name[4:])
    assert mnn.UninitializedParameter.cls_to_become is mnn.Parameter
    assert mnn.UninitializedBuffer.cls_to_become is minigrad.Tensor


def test_load_state_dict_pre_hooks():
    """Module.register_load_state_dict_pre_hook (the mechanism the lazy modules' load hook uses):
    the hook gets the module, then load_state_dict's arguments, before the module's own entries
    are copied, and may edit the state_dict."""
    for lib in (torch, minigrad):
        m = lib.nn.Sequential(lib.nn.Linear(2, 2))
        seen = []

        def hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
            seen.append((type(module).__name__, prefix, strict, sorted(state_dict)))
            state_dict[prefix + "bias"] = state_dict[prefix + "bias"] * 0 + 7

        h = m[0].register_load_state_dict_pre_hook(hook)
        sd = lib.nn.Linear(2, 2).state_dict()
        m.load_state_dict({"0." + k: v for k, v in sd.items()})
        assert seen == [("Linear", "0.", True, ["0.bias", "0.weight"])]
        assert (_np(m[0].bias) == 7).all()
        h.remove()
        m.load_state_dict({"0." + k: v for k, v in sd.items()})
        assert len(seen) == 1 and (_np(m[0].bias) == _np(sd["bias"])).all()
