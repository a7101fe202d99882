"""Automatic mixed precision (torch.autocast, torch.amp.GradScaler) against PyTorch.

CPU autocast is compared with torch 2.13's CPU autocast (float16, and bfloat16 when minigrad has
it). torch's CUDA autocast cannot run here: the CUDA tests (emulated or real GPU) check the
documented CUDA policies against minigrad's own CPU results computed with explicit casts.
"""
import pickle
import threading
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.nn.functional as MF

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

from conftest import CUDA_AVAILABLE  # noqa: E402

HAS_BF16 = hasattr(minigrad, "bfloat16")
needs_bf16 = pytest.mark.skipif(not HAS_BF16, reason="minigrad.bfloat16 does not exist yet (added by another change)")
needs_cuda = pytest.mark.skipif(not CUDA_AVAILABLE, reason="no CUDA GPU available (minigrad.cuda.is_available() is False)")

RNG = np.random.default_rng(0)


def _arr(*shape, positive=False):
    a = RNG.standard_normal(shape).astype(np.float32)
    return np.abs(a) * 0.8 + 0.1 if positive else a


def _pair(a, dtype="float32", requires_grad=False, device="cpu"):
    m = minigrad.tensor(a, dtype=getattr(minigrad, dtype), device=device, requires_grad=requires_grad)
    t = torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=requires_grad)
    return m, t


def _name(d):
    return str(d).split(".")[-1]


def _close(m, t, tol):
    np.testing.assert_allclose(m.detach().cpu().float().numpy(), t.detach().float().numpy(), rtol=tol, atol=tol)


# ---- the ops, each as (name, inputs, f(lib, F, *tensors)) --------------------------------------------

_OPS = [
    ("matmul", [(3, 4), (4, 5)], lambda L, F, a, b: L.matmul(a, b)),
    ("matmul_vec", [(3, 4), (4,)], lambda L, F, a, b: L.matmul(a, b)),
    ("@", [(2, 3, 4), (4, 5)], lambda L, F, a, b: a @ b),
    ("mm", [(3, 4), (4, 5)], lambda L, F, a, b: L.mm(a, b)),
    ("bmm", [(2, 3, 4), (2, 4, 5)], lambda L, F, a, b: L.bmm(a, b)),
    ("mv", [(3, 4), (4,)], lambda L, F, a, b: L.mv(a, b)),
    ("dot", [(4,), (4,)], lambda L, F, a, b: L.dot(a, b)),
    ("addmm", [(3, 5), (3, 4), (4, 5)], lambda L, F, a, b, c: L.addmm(a, b, c)),
    ("addmv", [(3,), (3, 4), (4,)], lambda L, F, a, b, c: L.addmv(a, b, c)),
    ("addbmm", [(3, 5), (2, 3, 4), (2, 4, 5)], lambda L, F, a, b, c: L.addbmm(a, b, c)),
    ("baddbmm", [(2, 3, 5), (2, 3, 4), (2, 4, 5)], lambda L, F, a, b, c: L.baddbmm(a, b, c)),
    ("linear", [(3, 4), (5, 4), (5,)], lambda L, F, a, b, c: F.linear(a, b, c)),
    ("conv1d", [(1, 2, 6), (3, 2, 2)], lambda L, F, a, b: F.conv1d(a, b)),
    ("conv2d", [(1, 2, 5, 5), (3, 2, 2, 2)], lambda L, F, a, b: F.conv2d(a, b)),
    ("conv_transpose2d", [(1, 2, 4, 4), (2, 3, 2, 2)], lambda L, F, a, b: F.conv_transpose2d(a, b)),
    ("prelu", [(2, 3), (3,)], lambda L, F, a, b: F.prelu(a, b)),
    ("chain_matmul", [(2, 3), (3, 4), (4, 2)], lambda L, F, a, b, c: L.linalg.multi_dot([a, b, c])),
    ("sdpa", [(1, 2, 3, 4)] * 3, lambda L, F, q, k, v: F.scaled_dot_product_attention(q, k, v)),
    ("softmax", [(3, 4)], lambda L, F, a: L.softmax(a, 1)),
    ("log_softmax", [(3, 4)], lambda L, F, a: F.log_softmax(a, 1)),
    ("exp", [(3,)], lambda L, F, a: L.exp(a)),
    ("log", [(3,)], lambda L, F, a: a.abs().log()),
    ("sum", [(3, 4)], lambda L, F, a: a.sum()),
    ("prod", [(3,)], lambda L, F, a: L.prod(a)),
    ("norm", [(3,)], lambda L, F, a: L.norm(a)),
    ("layer_norm", [(2, 3)], lambda L, F, a: F.layer_norm(a, (3,))),
    ("group_norm", [(2, 4, 3)], lambda L, F, a: F.group_norm(a, 2)),
    ("mse_loss", [(3,), (3,)], lambda L, F, a, b: F.mse_loss(a, b)),
    ("l1_loss", [(3,), (3,)], lambda L, F, a, b: F.l1_loss(a, b)),
    ("smooth_l1_loss", [(3,), (3,)], lambda L, F, a, b: F.smooth_l1_loss(a, b)),
    ("cross_entropy", [(3, 4)], lambda L, F, a: F.cross_entropy(a, L.tensor([0, 1, 2], device=a.device))),
    ("bce_with_logits", [(3,), (3,)], lambda L, F, a, b: F.binary_cross_entropy_with_logits(a, b.sigmoid())),
    ("cdist", [(2, 3), (4, 3)], lambda L, F, a, b: L.cdist(a, b)),
    ("relu", [(3,)], lambda L, F, a: L.relu(a)),
    ("tanh", [(3,)], lambda L, F, a: L.tanh(a)),
    ("add", [(3,), (3,)], lambda L, F, a, b: a + b),
]
_IDS = [o[0] for o in _OPS]


def _run_op(f, shapes, in_dtype, ac_dtype, requires_grad=True):
    """The op on fresh inputs of in_dtype under CPU autocast to ac_dtype, in both libraries."""
    arrays = [_arr(*s) for s in shapes]
    ms, ts = zip(*(_pair(a, in_dtype, requires_grad) for a in arrays))
    with minigrad.autocast("cpu", dtype=getattr(minigrad, ac_dtype)):
        mo = f(minigrad, MF, *ms)
    with torch.autocast("cpu", dtype=getattr(torch, ac_dtype)):
        to = f(torch, TF, *ts)
    return ms, ts, mo, to


def _check_op(f, shapes, in_dtype, ac_dtype):
    ms, ts, mo, to = _run_op(f, shapes, in_dtype, ac_dtype)
    assert _name(mo.dtype) == _name(to.dtype)
    tol = 2e-2 if ac_dtype == "bfloat16" else 3e-3
    _close(mo, to, tol)
    # backward outside the region (torch's advice): gradients and their dtypes
    seed = _arr(*to.shape)
    mo.backward(minigrad.tensor(seed).to(mo.dtype))
    to.backward(torch.tensor(seed).to(to.dtype))
    for m, t in zip(ms, ts):
        assert _name(m.grad.dtype) == _name(t.grad.dtype)
        _close(m.grad, t.grad, 5 * tol)


@pytest.mark.parametrize("name,shapes,f", _OPS, ids=_IDS)
@pytest.mark.parametrize("in_dtype", ["float32", "float16"])
def test_cpu_float16_policy(name, shapes, f, in_dtype):
    _check_op(f, shapes, in_dtype, "float16")


@needs_bf16
@pytest.mark.parametrize("name,shapes,f", _OPS, ids=_IDS)
@pytest.mark.parametrize("in_dtype", ["float32", "bfloat16"])
def test_cpu_bfloat16_policy(name, shapes, f, in_dtype):
    _check_op(f, shapes, in_dtype, "bfloat16")


@needs_bf16
def test_cpu_default_dtype_is_bfloat16():
    assert minigrad.get_autocast_dtype("cpu") is minigrad.bfloat16
    x, w = minigrad.randn(2, 3), minigrad.randn(4, 3)
    with minigrad.autocast("cpu"):
        assert MF.linear(x, w).dtype is minigrad.bfloat16
    with minigrad.cpu.amp.autocast() if False else minigrad.autocast("cpu"):
        assert minigrad.get_autocast_dtype("cpu") is minigrad.bfloat16


@pytest.mark.parametrize("op", ["matmul", "linear", "softmax", "mse_loss"])
def test_float64_inputs_are_left_alone(op):
    f, shapes = {o[0]: (o[2], o[1]) for o in _OPS}[op]
    _, _, mo, to = _run_op(f, shapes, "float64", "float16")
    assert _name(mo.dtype) == _name(to.dtype) == "float64"


def test_promote_ops_cpu():
    a, b = _arr(2, 3), _arr(2, 3)
    with minigrad.autocast("cpu", dtype=minigrad.float16):
        h = minigrad.tensor(a).half()
        f32 = minigrad.tensor(b)
        mixed = [minigrad.cat([h, f32]), minigrad.stack([h, f32]), minigrad.cat([h, h]),
                 minigrad.stack([h.double(), h]), h.index_copy(0, minigrad.tensor([0]), f32[:1])]
    with torch.autocast("cpu", dtype=torch.float16):
        th, tf = torch.tensor(a).half(), torch.tensor(b)
        want = [torch.cat([th, tf]), torch.stack([th, tf]), torch.cat([th, th]),
                torch.stack([th.double(), th]), th.index_copy(0, torch.tensor([0]), tf[:1])]
    for m, t in zip(mixed, want):
        assert _name(m.dtype) == _name(t.dtype)
        _close(m, t, 1e-3)


def test_non_floating_and_other_device_inputs_untouched():
    idx = minigrad.tensor([[1, 2], [3, 4]])
    with minigrad.autocast("cpu", dtype=minigrad.float16):
        assert minigrad.matmul(idx, idx).dtype is minigrad.int64
    with torch.autocast("cpu", dtype=torch.float16):
        assert torch.matmul(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[1, 2], [3, 4]])).dtype is torch.int64


def test_graph_records_the_casts():
    xm, xt = _pair(_arr(3, 4), requires_grad=True)
    wm, wt = _pair(_arr(4, 2), requires_grad=True)
    with minigrad.autocast("cpu", dtype=minigrad.float16):
        ym = minigrad.mm(xm, wm)
    with torch.autocast("cpu", dtype=torch.float16):
        yt = torch.mm(xt, wt)
    assert ym.grad_fn.name() == yt.grad_fn.name() == "MmBackward0"
    assert ([n.name() for n, _ in ym.grad_fn.next_functions]
            == [n.name() for n, _ in yt.grad_fn.next_functions] == ["ToCopyBackward0"] * 2)


# ---- regions: nesting, disabling, decorators, threads ------------------------------------------------

def test_nesting_and_disabled_subregion():
    a = minigrad.randn(3, 3)
    assert not minigrad.is_autocast_enabled("cpu")
    with minigrad.autocast("cpu", dtype=minigrad.float16):
        assert minigrad.is_autocast_enabled("cpu") and not minigrad.is_autocast_enabled()
        assert minigrad.mm(a, a).dtype is minigrad.float16
        with minigrad.autocast("cpu", enabled=False):
            assert not minigrad.is_autocast_enabled("cpu")
            assert minigrad.mm(a, a).dtype is minigrad.float32
            with minigrad.autocast("cpu", dtype=minigrad.float16):
                assert minigrad.mm(a, a).dtype is minigrad.float16
        assert minigrad.is_autocast_enabled("cpu")
        assert minigrad.mm(a, a).dtype is minigrad.float16
    assert not minigrad.is_autocast_enabled("cpu")
    assert minigrad.mm(a, a).dtype is minigrad.float32


def test_exception_restores_state():
    with pytest.raises(ValueError):
        with minigrad.autocast("cpu", dtype=minigrad.float16):
            raise ValueError("boom")
    assert not minigrad.is_autocast_enabled("cpu")
    assert minigrad.mm(minigrad.randn(2, 2), minigrad.randn(2, 2)).dtype is minigrad.float32


def test_decorator():
    @minigrad.autocast("cpu", dtype=minigrad.float16)
    def f(a, b):
        """doc"""
        return minigrad.mm(a, b), minigrad.is_autocast_enabled("cpu")

    out, on = f(minigrad.randn(2, 2), minigrad.randn(2, 2))
    assert out.dtype is minigrad.float16 and on
    assert f.__doc__ == "doc" and f.__name__ == "f"
    assert not minigrad.is_autocast_enabled("cpu")

    @minigrad.amp.autocast("cpu", enabled=False)
    def g(a):
        return minigrad.mm(a, a)
    with minigrad.autocast("cpu", dtype=minigrad.float16):
        assert g(minigrad.randn(2, 2)).dtype is minigrad.float32


def test_state_is_thread_local():
    seen = {}

    def other():
        seen["enabled"] = minigrad.is_autocast_enabled("cpu")
        seen["dtype"] = minigrad.mm(minigrad.randn(2, 2), minigrad.randn(2, 2)).dtype
    with minigrad.autocast("cpu", dtype=minigrad.float16):
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen == {"enabled": False, "dtype": minigrad.float32}


def test_set_functions_match_torch():
    for lib in (minigrad, torch):
        assert lib.get_autocast_dtype("cuda") is lib.float16
        lib.set_autocast_dtype("cuda", lib.float32)
        assert lib.get_autocast_dtype("cuda") is lib.float32
        lib.set_autocast_dtype("cuda", lib.float16)
        lib.set_autocast_enabled("cpu", True)
        assert lib.is_autocast_enabled("cpu")
        lib.set_autocast_enabled("cpu", False)
        assert lib.is_autocast_enabled("cpu") is False and lib.is_autocast_enabled() is False
        assert lib.is_autocast_cache_enabled() is True
        assert lib.autocast_increment_nesting() == 1 and lib.autocast_decrement_nesting() == 0
        assert lib.amp.is_autocast_available("cuda") and lib.amp.is_autocast_available("cpu:0")
        assert not lib.amp.is_autocast_available("meta")
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert lib.is_autocast_cpu_enabled() is False
            assert lib.get_autocast_gpu_dtype() is lib.float16
        assert [str(x.message).split(" (Triggered")[0] for x in w] == [
            "torch.is_autocast_cpu_enabled() is deprecated. Please use torch.is_autocast_enabled('cpu') instead.",
            "torch.get_autocast_gpu_dtype() is deprecated. Please use torch.get_autocast_dtype('cuda') instead."]
        assert all(x.category is DeprecationWarning for x in w)


def _outcome(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            f()
            err = None
        except Exception as e:  # noqa: BLE001
            err = (type(e).__name__, str(e))
    return err, [(x.category.__name__, str(x.message)) for x in w]


@pytest.mark.parametrize("case", ["bad_type", "int_type", "meta", "fp32_cpu", "fp64_cpu", "set_enabled_str",
                                  "is_enabled_meta", "dtype_meta"])
def test_errors_and_warnings_match_torch(case):
    def run(lib):
        return {
            "bad_type": lambda: lib.autocast("foo"),
            "int_type": lambda: lib.autocast(1),
            "meta": lambda: lib.autocast("meta", dtype=lib.float16),
            "fp32_cpu": lambda: lib.autocast("cpu", dtype=lib.float32),
            "fp64_cpu": lambda: lib.autocast("cpu", dtype=lib.float64),
            "set_enabled_str": lambda: lib.set_autocast_enabled("cpu"),
            "is_enabled_meta": lambda: lib.is_autocast_enabled("meta"),
            "dtype_meta": lambda: lib.get_autocast_dtype("meta"),
        }[case]
    mine, theirs = _outcome(run(minigrad)), _outcome(run(torch))
    if case == "bad_type":  # torch lists every device type it knows; the message's head is the same
        assert mine[0][0] == theirs[0][0] == "RuntimeError"
        assert mine[0][1].startswith("Expected one of cpu, cuda") and mine[0][1].endswith("device string: foo")
        return
    assert mine == theirs


@pytest.mark.skipif(CUDA_AVAILABLE, reason="checks the no-CUDA warning")
def test_cuda_unavailable_warns_and_disables():
    for lib in (minigrad, torch):
        err, w = _outcome(lambda: lib.autocast("cuda"))
        assert err is None and w == [("UserWarning", "CUDA is not available or torch_xla is imported. Disabling autocast.")]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autocast("cuda"):
                assert not lib.is_autocast_enabled("cuda")
        err, w = _outcome(lambda: lib.amp.GradScaler())
        assert w == [("UserWarning", "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")]
        err, w = _outcome(lambda: lib.cuda.amp.autocast())
        assert w[0] == ("FutureWarning", "`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                                         "`torch.amp.autocast('cuda', args...)` instead.")
        err, w = _outcome(lambda: lib.cuda.amp.GradScaler())
        assert w[0] == ("FutureWarning", "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                                         "`torch.amp.GradScaler('cuda', args...)` instead.")
        s = lib.amp.GradScaler(enabled=False)
        assert not s.is_enabled() and s.get_scale() == 1.0 and s.state_dict() == {}


def test_cpu_amp_deprecated_spelling():
    for lib in (minigrad, torch):
        err, w = _outcome(lambda: lib.cpu.amp.autocast(dtype=lib.float16))
        assert err is None and w == [("FutureWarning", "`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                                                       "`torch.amp.autocast('cpu', args...)` instead.")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with minigrad.cpu.amp.autocast(dtype=minigrad.float16):
            assert minigrad.mm(minigrad.randn(2, 2), minigrad.randn(2, 2)).dtype is minigrad.float16


# ---- the weight cache ----------------------------------------------------------------------------

def test_weight_cache():
    w = minigrad.randn(4, 4, requires_grad=True)
    x = minigrad.randn(2, 4)
    with minigrad.autocast("cpu", dtype=minigrad.float16):
        a, b = MF.linear(x, w), MF.linear(x, w)
        # one cast of the leaf, shared by both products
        assert a.grad_fn.next_functions[1][0] is b.grad_fn.next_functions[1][0]
        with minigrad.autocast("cpu", dtype=minigrad.float16):
            c = MF.linear(x, w)
        assert c.grad_fn.next_functions[1][0] is a.grad_fn.next_functions[1][0]  # inner exit keeps it
        nonleaf = w * 1
        d, e = MF.linear(x, nonleaf), MF.linear(x, nonleaf)
        assert d.grad_fn.next_functions[1][0] is not e.grad_fn.next_functions[1][0]  # only leaves are cached
    with minigrad.autocast("cpu", dtype=minigrad.float16):
        f = MF.linear(x, w)
    assert f.grad_fn.next_functions[1][0] is not a.grad_fn.next_functions[1][0]  # cleared on the outer exit
    with minigrad.autocast("cpu", dtype=minigrad.float16, cache_enabled=False):
        g, h = MF.linear(x, w), MF.linear(x, w)
        assert g.grad_fn.next_functions[1][0] is not h.grad_fn.next_functions[1][0]
    (a.sum() + b.sum()).float().backward()
    assert w.grad.dtype is minigrad.float32


# ---- custom autograd Functions -------------------------------------------------------------------

def _custom(lib, cast_inputs, seen):
    class MyMM(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=cast_inputs)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            seen.append(lib.is_autocast_enabled("cpu"))
            return a.mm(b)

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            assert lib.is_autocast_enabled("cpu") == ctx._fwd_used_autocast
            return g.mm(b.t()), a.t().mm(g)
    return MyMM


@pytest.mark.parametrize("cast_inputs", [None, "float32"])
def test_custom_fwd_bwd(cast_inputs):
    got = []
    for lib in (minigrad, torch):
        a = lib.tensor(_arr(2, 3) if not got else got[0][3], requires_grad=True)
        b = lib.tensor(_arr(3, 2) if not got else got[0][4], requires_grad=True)
        seen = []
        fn = _custom(lib, None if cast_inputs is None else getattr(lib, cast_inputs), seen)
        with lib.autocast("cpu", dtype=lib.float16):
            out = fn.apply(a, b)
            on = seen[0]
            out.float().sum().backward()
        got.append((_name(out.dtype), on, _name(a.grad.dtype), a.detach().numpy(), b.detach().numpy()))
    assert got[0][:3] == got[1][:3]


# ---- CUDA (emulated or real): torch's documented CUDA lists ---------------------------------------

def _cuda_expect(op_name):
    from minigrad.amp.policy import policy_of
    return policy_of("cuda", op_name)


@needs_cuda
@pytest.mark.parametrize("name,shapes,f", _OPS, ids=_IDS)
def test_cuda_float16_policy(name, shapes, f):
    policy_names = {"@": "matmul", "matmul_vec": "matmul", "chain_matmul": "multi_dot", "bce_with_logits":
                    "binary_cross_entropy_with_logits", "sdpa": "scaled_dot_product_attention"}
    arrays = [_arr(*s) for s in shapes]
    xs = [minigrad.tensor(a, device="cuda", requires_grad=True) for a in arrays]
    with minigrad.autocast("cuda"):
        assert minigrad.get_autocast_dtype("cuda") is minigrad.float16
        try:
            out = f(minigrad, MF, *xs)
        except KeyError:  # conv: see below
            out = None
        assert not minigrad.is_autocast_enabled("cpu")
    policy = _cuda_expect(policy_names.get(name, name))
    want_dtype = {"lower_precision_fp": minigrad.float16, "fp32": minigrad.float32}.get(policy, minigrad.float32)
    if name.startswith("conv") and out is None:
        pytest.xfail("the CUDA backend has no float16 im2col (a gap outside autocast)")
    if name in ("relu", "tanh", "add"):  # no CUDA policy: runs in its inputs' dtype
        want_dtype = minigrad.float32
    assert out.dtype is want_dtype, (name, policy, out.dtype)
    # the same computation by hand on the CPU: inputs cast as the policy says
    cast = minigrad.float16 if want_dtype is minigrad.float16 else minigrad.float32
    ref = f(minigrad, MF, *[minigrad.tensor(a).to(cast) for a in arrays])
    tol = 3e-3 if cast is minigrad.float16 else 1e-5
    np.testing.assert_allclose(out.detach().cpu().float().numpy(), ref.float().numpy(), rtol=tol, atol=tol)
    out.float().sum().backward()
    for x in xs:
        assert x.grad.dtype is minigrad.float32 and x.grad.device.type == "cuda"


@needs_cuda
def test_cuda_promote_and_banned():
    h = minigrad.randn(3, device="cuda").half()
    f = minigrad.randn(3, device="cuda")
    with minigrad.autocast("cuda"):
        assert minigrad.cat([h, f]).dtype is minigrad.float32
        assert minigrad.cat([h, h]).dtype is minigrad.float16
        assert minigrad.dot(h, f).dtype is minigrad.float32  # promote on CUDA (CPU: dtype error)
        assert minigrad.softmax(h, 0).dtype is minigrad.float32
        assert minigrad.softmax(h, 0, dtype=minigrad.float16).dtype is minigrad.float16  # explicit dtype wins
        assert minigrad.exp(h).dtype is minigrad.float32
        with pytest.raises(RuntimeError) as e:
            MF.binary_cross_entropy(f.sigmoid(), f.sigmoid())
        assert str(e.value).startswith("torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe")
        # CPU tensors inside a CUDA region are not cast
        c = minigrad.randn(2, 2)
        assert minigrad.mm(c, c).dtype is minigrad.float32
    with minigrad.autocast("cpu", dtype=minigrad.float16):  # a CPU region leaves CUDA tensors alone
        g = minigrad.randn(2, 2, device="cuda")
        assert minigrad.mm(g, g).dtype is minigrad.float32


# ---- GradScaler -----------------------------------------------------------------------------------

def _train(lib, device, steps, inf_at, scaler_kw, use_autocast):
    """A small regression with autocast + GradScaler; an inf injected into one gradient at the
    steps in inf_at. Returns the scale sequence, the parameters and the growth tracker."""
    rng = np.random.default_rng(1)
    w1, b1 = rng.standard_normal((8, 4)).astype(np.float32) * 0.3, np.zeros(8, np.float32)
    w2, b2 = rng.standard_normal((1, 8)).astype(np.float32) * 0.3, np.zeros(1, np.float32)
    x, y = rng.standard_normal((16, 4)).astype(np.float32), rng.standard_normal((16, 1)).astype(np.float32)
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 1))
    with lib.no_grad():
        for p, v in zip(model.parameters(), (w1, b1, w2, b2)):
            p.copy_(lib.tensor(v))
    model.to(device)
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = lib.amp.GradScaler(device, **scaler_kw)
    xs, ys = lib.tensor(x, device=device), lib.tensor(y, device=device)
    scales, results = [], []
    for i in range(steps):
        opt.zero_grad()
        with lib.autocast(device, dtype=lib.float16, enabled=use_autocast):
            loss = lib.nn.functional.mse_loss(model(xs), ys)
        scaler.scale(loss).backward()
        if i in inf_at:
            with lib.no_grad():
                model[0].weight.grad[0, 0] = float("inf") if i % 2 else float("nan")
        results.append(scaler.step(opt))
        scaler.update()
        scales.append(scaler.get_scale())
    params = [p.detach().cpu().numpy() for p in model.parameters()]
    return scales, params, scaler.state_dict(), loss.dtype


@pytest.mark.parametrize("use_autocast", [False, True])
def test_grad_scaler_training_matches_torch(use_autocast):
    kw = dict(init_scale=2.0 ** 10, growth_interval=3)
    mine = _train(minigrad, "cpu", 9, {2, 5}, kw, use_autocast)
    theirs = _train(torch, "cpu", 9, {2, 5}, kw, use_autocast)
    assert mine[0] == theirs[0]  # the scale sequence: backoffs at 2 and 5, growth after 3 clean steps
    assert mine[2] == theirs[2]
    assert _name(mine[3]) == _name(theirs[3]) == "float32"
    for a, b in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=2e-3 if use_autocast else 1e-5, atol=1e-4 if use_autocast else 1e-6)


@needs_cuda
def test_grad_scaler_cuda_matches_cpu():
    kw = dict(init_scale=2.0 ** 10, growth_interval=3)
    cuda = _train(minigrad, "cuda", 7, {2}, kw, True)
    cpu = _train(torch, "cpu", 7, {2}, kw, False)
    assert cuda[0] == cpu[0]
    for a, b in zip(cuda[1], cpu[1]):
        np.testing.assert_allclose(a, b, rtol=1e-2, atol=1e-2)


def test_grad_scaler_api_and_errors():
    for lib in (minigrad, torch):
        s = lib.amp.GradScaler("cpu", init_scale=8.0, growth_factor=4.0, backoff_factor=0.25, growth_interval=5)
        assert (s.get_scale(), s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval(),
                s.is_enabled()) == (8.0, 4.0, 0.25, 5, True)
        s.set_growth_factor(3.0)
        s.set_backoff_factor(0.5)
        s.set_growth_interval(7)
        assert (s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval()) == (3.0, 0.5, 7)
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.1)
        errs = []
        for call in (lambda: s.step(opt), lambda: s.unscale_(opt), lambda: s.update()):
            errs.append(_outcome(call)[0])
        out = s.scale([lib.ones(2), (lib.ones(1) * 2,)])
        assert isinstance(out, list) and isinstance(out[1], tuple)
        assert out[0].tolist() == [8.0, 8.0] and out[1][0].tolist() == [16.0]
        errs.append(_outcome(lambda: s.scale(3))[0])
        (s.scale(p.sum())).backward()
        s.unscale_(opt)
        assert p.grad.tolist() == [1.0, 1.0]
        errs.append(_outcome(lambda: s.unscale_(opt))[0])
        s.step(opt)
        errs.append(_outcome(lambda: s.unscale_(opt))[0])
        errs.append(_outcome(lambda: s.step(opt))[0])
        errs.append(_outcome(lambda: s.step(opt, closure=lambda: 0))[0])
        s.update(2.0)
        assert s.get_scale() == 2.0
        s.update(lib.tensor(4.0))
        errs.append(_outcome(lambda: s.update(lib.tensor([1.0, 2.0])))[0])
        sd = s.state_dict()
        t = lib.amp.GradScaler("cpu")
        t.load_state_dict(sd)
        errs.append(_outcome(lambda: t.load_state_dict({}))[0])
        errs.append(_outcome(lambda: lib.amp.GradScaler("cpu", backoff_factor=1.0))[0])
        q = lib.nn.Parameter(lib.ones(2, dtype=lib.float16))
        q.grad = lib.ones(2, dtype=lib.float16)
        errs.append(_outcome(lambda: s.unscale_(lib.optim.SGD([q], lr=0.1)))[0])
        u = pickle.loads(pickle.dumps(lib.amp.GradScaler("cpu", init_scale=3.0)))
        errs.append((sd, t.state_dict(), u.get_scale()))
        if lib is minigrad:
            mine = errs
    assert mine == errs


# ---- the rest of torch's lists: per-op output dtype, values, gradients and their dtypes ---------------
# (inputs as arrays: some ops need positive, bounded or well-conditioned ones)

def _pos(*s):
    return _arr(*s, positive=True)


def _wellcond(n):
    return (RNG.standard_normal((n, n)) * 0.3 + 3 * np.eye(n)).astype(np.float32)


def _spd(n):
    a = RNG.standard_normal((n, n)).astype(np.float32) * 0.3
    return (a @ a.T + 2 * np.eye(n)).astype(np.float32)


_IDX = (0, 2)
_MORE_OPS = [
    ("pow", lambda: [_pos(3)], lambda L, F, a: a ** 2.5),
    ("pow_tensor", lambda: [_pos(3), _arr(3)], lambda L, F, a, b: L.pow(a, b)),
    ("rpow", lambda: [_arr(3)], lambda L, F, a: 2 ** a),
    ("rtruediv", lambda: [_pos(3)], lambda L, F, a: 2 / a),
    ("cumsum", lambda: [_arr(4)], lambda L, F, a: L.cumsum(a, 0)),
    ("cumprod", lambda: [_arr(4)], lambda L, F, a: a.cumprod(0)),
    ("log2", lambda: [_pos(3)], lambda L, F, a: L.log2(a)),
    ("rsqrt", lambda: [_pos(3)], lambda L, F, a: L.rsqrt(a)),
    ("softplus", lambda: [_arr(3)], lambda L, F, a: F.softplus(a)),
    ("softmin", lambda: [_arr(3, 4)], lambda L, F, a: F.softmin(a, 1)),
    ("normalize", lambda: [_arr(2, 3)], lambda L, F, a: F.normalize(a)),
    ("logsumexp", lambda: [_arr(3, 2)], lambda L, F, a: L.logsumexp(a, 1)),
    ("vector_norm", lambda: [_arr(3)], lambda L, F, a: L.linalg.vector_norm(a)),
    ("cosine_similarity", lambda: [_arr(2, 3), _arr(2, 3)], lambda L, F, a, b: F.cosine_similarity(a, b)),
    ("trace", lambda: [_arr(3, 3)], lambda L, F, a: L.trace(a)),
    ("inverse", lambda: [_wellcond(3)], lambda L, F, a: L.inverse(a)),
    ("linalg_inv", lambda: [_wellcond(3)], lambda L, F, a: L.linalg.inv(a)),
    ("linalg_solve", lambda: [_wellcond(3), _arr(3, 2)], lambda L, F, a, b: L.linalg.solve(a, b)),
    ("cholesky", lambda: [_spd(3)], lambda L, F, a: L.linalg.cholesky(a)),
    ("cholesky_inverse", lambda: [_spd(3)], lambda L, F, a: L.cholesky_inverse(L.linalg.cholesky(a))),
    ("pinverse", lambda: [_wellcond(3)], lambda L, F, a: L.pinverse(a)),
    ("svdvals", lambda: [_wellcond(3)], lambda L, F, a: L.linalg.svdvals(a)),
    ("eigvalsh", lambda: [_spd(3)], lambda L, F, a: L.linalg.eigvalsh(a)),
    ("qr", lambda: [_wellcond(3)], lambda L, F, a: L.linalg.qr(a)[1]),
    ("lstsq", lambda: [_wellcond(3), _arr(3, 2)], lambda L, F, a, b: L.linalg.lstsq(a, b)[0]),
    ("cond", lambda: [_wellcond(3)], lambda L, F, a: L.linalg.cond(a)),
    ("quantile", lambda: [_arr(5)], lambda L, F, a: L.quantile(a, 0.3)),
    ("margin_ranking_loss", lambda: [_arr(3), _arr(3)], lambda L, F, a, b: F.margin_ranking_loss(a, b, (b - a).sign())),
    ("soft_margin_loss", lambda: [_arr(3)], lambda L, F, a: F.soft_margin_loss(a, L.tensor([1.0, -1.0, 1.0]))),
    ("hinge_embedding_loss", lambda: [_arr(3)], lambda L, F, a: F.hinge_embedding_loss(a, L.tensor([1.0, -1.0, 1.0]))),
    ("poisson_nll_loss", lambda: [_arr(3), _pos(3)], lambda L, F, a, b: F.poisson_nll_loss(a, b)),
    ("triplet_margin_loss", lambda: [_arr(2, 3)] * 3, lambda L, F, a, b, c: F.triplet_margin_loss(a, b * 0.5, c)),
    ("multi_margin_loss", lambda: [_arr(2, 3)], lambda L, F, a: F.multi_margin_loss(a, L.tensor([0, 2]))),
    ("multilabel_margin_loss", lambda: [_arr(2, 3)],
     lambda L, F, a: F.multilabel_margin_loss(a, L.tensor([[0, 1, -1], [2, -1, 0]]))),
    ("cosine_embedding_loss", lambda: [_arr(2, 3), _arr(2, 3)],
     lambda L, F, a, b: F.cosine_embedding_loss(a, b, L.tensor([1, -1]))),
    ("huber_loss", lambda: [_arr(3), _arr(3)], lambda L, F, a, b: F.huber_loss(a, b)),
    ("kl_div", lambda: [_arr(3), _pos(3)], lambda L, F, a, b: F.kl_div(a, b, reduction="sum")),
    ("nll_loss2d", lambda: [_arr(2, 3, 2, 2)],
     lambda L, F, a: F.nll_loss(a, L.tensor([[[0, 1], [2, 0]], [[1, 1], [0, 2]]]))),
    ("ctc_loss", lambda: [_arr(5, 1, 3)],
     lambda L, F, a: F.ctc_loss(a.log_softmax(2), L.tensor([[1, 2]]), L.tensor([5]), L.tensor([2]))),
    ("grid_sample", lambda: [_arr(1, 1, 3, 3), np.clip(_arr(1, 2, 2, 2), -0.9, 0.9)],
     lambda L, F, a, g: F.grid_sample(a, g, align_corners=False)),
    ("avg_pool3d", lambda: [_arr(1, 1, 2, 2, 2)], lambda L, F, a: F.avg_pool3d(a, 2)),
    ("max_pool3d", lambda: [_arr(1, 1, 2, 2, 2)], lambda L, F, a: F.max_pool3d(a, 2)),
    ("adaptive_avg_pool3d", lambda: [_arr(1, 1, 2, 2, 2)], lambda L, F, a: F.adaptive_avg_pool3d(a, 1)),
    ("adaptive_max_pool3d", lambda: [_arr(1, 1, 2, 2, 2)], lambda L, F, a: F.adaptive_max_pool3d(a, 1)),
    ("max_unpool1d", lambda: [_arr(1, 1, 4)], lambda L, F, a: F.max_unpool1d(*F.max_pool1d(a, 2, return_indices=True), 2)),
    ("max_unpool2d", lambda: [_arr(1, 1, 4, 4)], lambda L, F, a: F.max_unpool2d(*F.max_pool2d(a, 2, return_indices=True), 2)),
    ("reflect_pad1d", lambda: [_arr(1, 2, 4)], lambda L, F, a: F.pad(a, (1, 1), mode="reflect")),
    ("reflect_pad2d", lambda: [_arr(1, 1, 3, 3)], lambda L, F, a: F.pad(a, (1, 1, 1, 1), mode="reflect")),
    ("reflect_pad3d", lambda: [_arr(1, 1, 3, 3, 3)], lambda L, F, a: F.pad(a, (1, 1, 1, 1, 1, 1), mode="reflect")),
    ("replicate_pad3d", lambda: [_arr(1, 1, 2, 2, 2)], lambda L, F, a: F.pad(a, (1, 1, 1, 1, 1, 1), mode="replicate")),
    ("interpolate", lambda: [_arr(1, 1, 2, 2)], lambda L, F, a: F.interpolate(a, scale_factor=2)),
    ("vecdot", lambda: [_arr(2, 3), _arr(2, 3)], lambda L, F, a, b: L.linalg.vecdot(a, b)),
    ("einsum", lambda: [_arr(2, 3), _arr(3, 2)], lambda L, F, a, b: L.einsum("ij,jk->ik", a, b)),
    ("addcmul", lambda: [_arr(3), _arr(3), _arr(3)], lambda L, F, a, b, c: L.addcmul(a, b, c)),
    ("atan2", lambda: [_arr(3), _arr(3)], lambda L, F, a, b: L.atan2(a, b)),
    ("scatter_add", lambda: [_arr(4), _arr(2)], lambda L, F, a, v: a.scatter_add(0, L.tensor(_IDX), v)),
    ("rnn_cell", lambda: [_arr(2, 3)], lambda L, F, x: _module(L, "RNNCell", 3, 4)(x)),
    ("lstm_cell", lambda: [_arr(2, 3)], lambda L, F, x: _module(L, "LSTMCell", 3, 4)(x)[0]),
    ("gru", lambda: [_arr(2, 1, 3)], lambda L, F, x: _module(L, "GRU", 3, 4)(x)[0]),
    ("rnn", lambda: [_arr(2, 1, 3)], lambda L, F, x: _module(L, "RNN", 3, 4)(x)[0]),
    ("lstm", lambda: [_arr(2, 1, 3)], lambda L, F, x: _module(L, "LSTM", 3, 4)(x)[0]),
]
_MORE_IDS = [o[0] for o in _MORE_OPS]


def _module(L, name, *args):
    """The same module in both libraries: torch's initial weights copied into minigrad's."""
    torch.manual_seed(0)
    t = getattr(torch.nn, name)(*args)
    if L is torch:
        return t
    m = getattr(minigrad.nn, name)(*args)
    with minigrad.no_grad():
        for (_, p), (_, q) in zip(m.named_parameters(), t.named_parameters()):
            p.copy_(minigrad.tensor(q.detach().numpy()))
    return m


def _check_more(make, f, in_dtype, ac_dtype, name):
    arrays = make()
    ms, ts = zip(*(_pair(a, in_dtype, True) for a in arrays))
    with minigrad.autocast("cpu", dtype=getattr(minigrad, ac_dtype)):
        mo = f(minigrad, MF, *ms)
    try:
        with torch.autocast("cpu", dtype=getattr(torch, ac_dtype)):
            to = f(torch, TF, *ts)
    except RuntimeError as e:  # torch's oneDNN LSTM has no float16 kernel for float32 inputs
        assert name == "lstm" and "primitive descriptor" in str(e)
        assert mo.dtype is minigrad.float16
        return
    assert _name(mo.dtype) == _name(to.dtype), (name, mo.dtype, to.dtype)
    low = to.dtype in (torch.float16, torch.bfloat16) or in_dtype != "float32"
    tol = (3e-2 if ac_dtype == "bfloat16" else 5e-3) if low else 1e-4
    _close(mo, to, tol)
    seed = _arr(*to.shape)
    mo.backward(minigrad.tensor(seed).to(mo.dtype))
    to.backward(torch.tensor(seed).to(to.dtype))
    for m, t in zip(ms, ts):
        assert (m.grad is None) == (t.grad is None)
        if t.grad is not None:
            assert _name(m.grad.dtype) == _name(t.grad.dtype), (name, m.grad.dtype, t.grad.dtype)
            _close(m.grad, t.grad, 10 * tol)


@pytest.mark.parametrize("name,make,f", _MORE_OPS, ids=_MORE_IDS)
@pytest.mark.parametrize("ac_dtype,in_dtype", [("float16", "float32"), ("float16", "float16"),
                                               ("bfloat16", "float32"), ("bfloat16", "bfloat16")])
def test_cpu_policy_more_ops(name, make, f, ac_dtype, in_dtype):
    if ac_dtype == "bfloat16" and not HAS_BF16:
        pytest.skip("no minigrad.bfloat16")
    _check_more(make, f, in_dtype, ac_dtype, name)


def _graph(t):
    names, seen, todo = [], set(), [t.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        names.append(n.name().replace("torch::autograd::", ""))
        todo.extend(nx for nx, _ in n.next_functions)
    return sorted(names)


def test_cpu_prod_casts_even_with_dtype():
    """prod is plain float32 on the CPU: its input is cast (a ToCopyBackward0) whatever dtype= says."""
    a = _arr(3)
    for lib in (minigrad, torch):
        x = lib.tensor(a, dtype=lib.float16, requires_grad=True)
        with lib.autocast("cpu", dtype=lib.float16):
            out = lib.prod(x, dtype=lib.float32)
        assert _name(out.dtype) == "float32"
    mx = minigrad.tensor(a, dtype=minigrad.float16, requires_grad=True)
    tx = torch.tensor(a, dtype=torch.float16, requires_grad=True)
    with minigrad.autocast("cpu", dtype=minigrad.float16):
        mo = minigrad.prod(mx, dtype=minigrad.float32)
    with torch.autocast("cpu", dtype=torch.float16):
        to = torch.prod(tx, dtype=torch.float32)
    assert _graph(mo) == _graph(to)


def test_sum_with_dtype_gradient_dtype():
    """sum(x, dtype=) records one SumBackward0 and gives x's gradient in x's dtype, as torch's."""
    a = _arr(3, 4)
    for dt, to_dt in (("float16", "float32"), ("float32", "float64")):
        mx, tx = _pair(a, dt, True)
        mo, to = minigrad.sum(mx, dtype=getattr(minigrad, to_dt)), torch.sum(tx, dtype=getattr(torch, to_dt))
        assert _graph(mo) == _graph(to) == ["AccumulateGrad", "SumBackward0"]
        mo.backward()
        to.backward()
        assert _name(mx.grad.dtype) == _name(tx.grad.dtype) == dt


def test_out_argument_is_not_autocast():
    """A call with out= goes through no autocasting (torch's eligibility rule)."""
    a = minigrad.tensor(_wellcond(3))
    with minigrad.autocast("cpu", dtype=minigrad.float16):
        assert minigrad.linalg.svd(a.half().float())[0].dtype is minigrad.float32


def test_rnn_dtype_check_skipped_in_a_region():
    """nn.GRU with float32 weights takes a bfloat16 input inside a CPU region (torch skips the check)."""
    m = minigrad.nn.GRU(3, 4)
    x = minigrad.randn(2, 1, 3).to(minigrad.float16)
    with pytest.raises(ValueError, match="does not match weight dtype"):
        m(x)
    with minigrad.autocast("cpu", dtype=minigrad.float16):
        assert m(x)[0].dtype is minigrad.float16


# ---- CUDA (emulated or real): the rest of the CUDA lists -----------------------------------------

_CUDA_MORE = [  # (name, inputs, f, expected dtype for float32 inputs)
    ("acos", lambda: [np.clip(_arr(3), -0.9, 0.9)], lambda L, F, a: L.acos(a), "float32"),
    ("erfinv", lambda: [np.clip(_arr(3), -0.9, 0.9)], lambda L, F, a: L.erfinv(a), "float32"),
    ("pow", lambda: [_pos(3)], lambda L, F, a: a ** 2, "float32"),
    ("rpow", lambda: [_arr(3)], lambda L, F, a: 2 ** a, "float32"),
    ("cumsum", lambda: [_arr(4)], lambda L, F, a: L.cumsum(a, 0), "float32"),
    ("cumprod", lambda: [_arr(4)], lambda L, F, a: L.cumprod(a, 0), "float32"),
    ("sum", lambda: [_arr(3, 4)], lambda L, F, a: a.sum(), "float32"),
    ("softplus", lambda: [_arr(3)], lambda L, F, a: F.softplus(a), "float32"),
    ("logsumexp", lambda: [_arr(3, 2)], lambda L, F, a: L.logsumexp(a, 1), "float32"),
    ("dist", lambda: [_arr(3), _arr(3)], lambda L, F, a, b: L.dist(a, b), "float32"),
    ("interpolate", lambda: [_arr(1, 1, 2, 2)], lambda L, F, a: F.interpolate(a, scale_factor=2), "float32"),
    ("addr", lambda: [_arr(3, 4), _arr(3), _arr(4)], lambda L, F, a, b, c: L.addr(a, b, c), "float16"),
    ("vecdot", lambda: [_arr(2, 3), _arr(2, 3)], lambda L, F, a, b: L.linalg.vecdot(a, b), "float16"),
    ("einsum", lambda: [_arr(2, 3), _arr(3, 2)], lambda L, F, a, b: L.einsum("ij,jk->ik", a, b), "float16"),
    ("gru_cell", lambda: [_arr(2, 3)], lambda L, F, x: _module_like(x, "GRUCell", 3, 4)(x), "float16"),
    ("lstm_cell", lambda: [_arr(2, 3)], lambda L, F, x: _module_like(x, "LSTMCell", 3, 4)(x)[1], "float16"),
    ("rnn_cell", lambda: [_arr(2, 3)], lambda L, F, x: _module_like(x, "RNNCell", 3, 4)(x), "float16"),
    ("lstm", lambda: [_arr(2, 1, 3)], lambda L, F, x: _module_like(x, "LSTM", 3, 4)(x)[1][1], "float16"),
    ("gru", lambda: [_arr(2, 1, 3)], lambda L, F, x: _module_like(x, "GRU", 3, 4)(x)[0], "float16"),
]


def _module_like(x, name, *args):
    minigrad.manual_seed(0)
    return getattr(minigrad.nn, name)(*args).to(x.device)


@needs_cuda
@pytest.mark.parametrize("name,make,f,want", _CUDA_MORE, ids=[o[0] for o in _CUDA_MORE])
def test_cuda_policy_more_ops(name, make, f, want):
    arrays = make()
    xs = [minigrad.tensor(a, device="cuda", requires_grad=True) for a in arrays]
    with minigrad.autocast("cuda"):
        out = f(minigrad, MF, *xs)
    assert _name(out.dtype) == want, (name, out.dtype)
    # the same computation on the CPU with the casts done by hand
    cast = getattr(minigrad, want)
    minigrad.manual_seed(0)
    ref_in = [minigrad.tensor(a).to(cast) for a in arrays]
    if name.endswith("cell") or name in ("lstm", "gru"):
        minigrad.manual_seed(0)
        ref = f(minigrad, MF, *[minigrad.tensor(a) for a in arrays])  # float32 reference
        tol = 1e-2
    else:
        ref = f(minigrad, MF, *ref_in)
        tol = 3e-3 if cast is minigrad.float16 else 1e-5
    np.testing.assert_allclose(out.detach().cpu().float().numpy(), ref.detach().float().numpy(), rtol=tol, atol=tol)
    out.float().sum().backward()
    for x in xs:
        assert x.grad.dtype is minigrad.float32 and x.grad.device.type == "cuda"


@needs_cuda
def test_cuda_set_opt_dtype_ops():
    """sum/prod/cumsum/softmax/norm: no input cast, dtype=float32 passed in (torch's graph), and an
    explicit dtype= kept; the gradient comes back in the input's dtype."""
    h = minigrad.randn(3, 4, device="cuda").half().requires_grad_()
    with minigrad.autocast("cuda"):
        s = h.sum()
        assert s.dtype is minigrad.float32 and s.grad_fn.name() == "SumBackward0"
        assert s.grad_fn.next_functions[0][0].name() == "AccumulateGrad"
        assert minigrad.sum(h, dtype=minigrad.float16).dtype is minigrad.float16
        assert minigrad.cumsum(h, 1).dtype is minigrad.float32
        assert minigrad.norm(h).dtype is minigrad.float32
        assert minigrad.linalg.vector_norm(h).dtype is minigrad.float32
        assert minigrad.log_softmax(h, 1).dtype is minigrad.float32
        assert minigrad.sum(h.double()).dtype is minigrad.float64  # float64: not eligible
    s.backward()
    assert h.grad.dtype is minigrad.float16
