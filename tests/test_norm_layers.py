"""nn.LayerNorm / F.layer_norm and nn.BatchNorm1d, nn.BatchNorm2d / F.batch_norm against torch
2.13: values, input/weight/bias gradients (float64 to 1e-10, float32 to 1e-5), running
statistics over several training steps, eval mode, state_dict, repr, errors and node names, on
every device (the emulated CUDA device runs norm.cu's kernels)."""
import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

TOL = {"float64": dict(rtol=1e-10, atol=1e-10), "float32": dict(rtol=1e-5, atol=1e-5)}
rng = np.random.default_rng(7)


def close(got, want, dtype):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), **TOL[dtype])


def leaf(L, a, dtype, device=None, grad=True):
    if a is None:
        return None
    t = L.tensor(a, dtype=getattr(L, dtype))
    if device is not None and device != "cpu":
        t = t.to(device)
    return t.requires_grad_(grad)


def host(t):
    """A copy: a CPU .grad's numpy() would follow later in-place accumulation."""
    return None if t is None else np.array(t.detach().cpu().numpy())


# ---- layer norm ---------------------------------------------------------------------------------

LN_CASES = {
    "last-dim": ((4, 7), (7,), "wb"),
    "two-dims": ((2, 3, 5), (3, 5), "wb"),
    "weight-only": ((3, 6), (6,), "w"),
    "no-affine": ((2, 2, 9), (9,), ""),
    "long-rows": ((3, 5000), (5000,), "wb"),
    "whole-tensor": ((4, 5), (4, 5), "wb"),
    "non-contiguous": ((6, 4, 3), (4,), "wb"),   # the input is transposed (dims 1, 2) first
    "one-column": ((5, 1), (1,), "wb"),
    "offset": ((3, 64), (64,), "wb"),            # values near 1e3: a one-pass variance cancels
}


def run_layer_norm(L, case, dtype, device, x, w, b, g):
    shape, ns, affine = LN_CASES[case]
    tx = leaf(L, x, dtype, device)
    tw = leaf(L, w, dtype, device) if "w" in affine else None
    tb = leaf(L, b, dtype, device) if "b" in affine else None
    inp = tx.transpose(1, 2) if case == "non-contiguous" else tx
    y = L.nn.functional.layer_norm(inp, ns, tw, tb)
    y.backward(leaf(L, g, dtype, device, grad=False))
    return y.grad_fn.name(), host(y), host(tx.grad), None if tw is None else host(tw.grad), \
        None if tb is None else host(tb.grad)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", list(LN_CASES))
def test_layer_norm_matches_torch(device, case, dtype):
    shape, ns, _ = LN_CASES[case]
    x = rng.standard_normal(shape) + (1000.0 if case == "offset" else 0.0)
    gshape = (shape[0], shape[2], shape[1]) if case == "non-contiguous" else shape
    w, b, g = rng.standard_normal(ns), rng.standard_normal(ns), rng.standard_normal(gshape)
    got = run_layer_norm(minigrad, case, dtype, device, x, w, b, g)
    want = run_layer_norm(torch, case, dtype, "cpu", x, w, b, g)
    assert got[0] == want[0] == "NativeLayerNormBackward0"
    assert got[1].dtype == want[1].dtype
    for i, (a, e) in enumerate(zip(got[1:], want[1:])):
        assert (a is None) == (e is None)
        if a is None:
            continue
        if case == "one-column" and i in (1, 2):
            # exact gradients of x and weight are 0 (xhat = 0); roundings are amplified by 1/sqrt(eps)
            np.testing.assert_allclose(a, e, atol=1e-5 / np.sqrt(1e-5) if dtype == "float32" else 1e-8)
        elif case == "offset" and dtype == "float32":
            # float32 holds values near 1e3 to ~6e-5: both libraries' means are off by that much
            np.testing.assert_allclose(a, e, rtol=1e-5, atol=5e-4)
        else:
            close(a, e, dtype)


def test_layer_norm_gradcheck(device):
    x = minigrad.randn(3, 4, 5, dtype=minigrad.float64, device=device, requires_grad=True)
    w = minigrad.randn(4, 5, dtype=minigrad.float64, device=device, requires_grad=True)
    b = minigrad.randn(4, 5, dtype=minigrad.float64, device=device, requires_grad=True)
    fn = lambda x, w, b: minigrad.nn.functional.layer_norm(x, (4, 5), w, b)  # noqa: E731
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def test_layer_norm_double_backward_matches_torch():
    x = rng.standard_normal((3, 6))
    w = rng.standard_normal(6)
    res = []
    for L in (minigrad, torch):
        tx, tw = leaf(L, x, "float64"), leaf(L, w, "float64")
        y = L.nn.functional.layer_norm(tx, (6,), tw)
        (gx,) = L.autograd.grad((y * y * y).sum(), tx, create_graph=True)
        (gx * gx).sum().backward()
        res.append((host(tx.grad), host(tw.grad)))
    for a, e in zip(*res):
        close(a, e, "float64")


def test_layer_norm_module():
    for L in (minigrad, torch):
        m = L.nn.LayerNorm(10)
        assert repr(m) == "LayerNorm((10,), eps=1e-05, elementwise_affine=True, bias=True)"
        assert list(m.state_dict()) == ["weight", "bias"]
        assert host(m.weight).tolist() == [1.0] * 10 and host(m.bias).tolist() == [0.0] * 10
        assert m.weight.requires_grad
        m = L.nn.LayerNorm([3, 4], eps=1e-3, elementwise_affine=False)
        assert repr(m) == "LayerNorm((3, 4), eps=0.001, elementwise_affine=False, bias=False)"
        assert list(m.state_dict()) == [] and m.weight is None and m.bias is None
        m = L.nn.LayerNorm(5, bias=False, dtype=L.float64)
        assert list(m.state_dict()) == ["weight"] and m.weight.dtype == L.float64
    x = rng.standard_normal((2, 3, 4))
    m, tm = minigrad.nn.LayerNorm((3, 4)), torch.nn.LayerNorm((3, 4))
    with torch.no_grad():
        tm.weight.copy_(torch.tensor(rng.standard_normal((3, 4))))
    m.load_state_dict({k: minigrad.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    close(host(m(minigrad.tensor(x, dtype=minigrad.float32))), host(tm(torch.tensor(x, dtype=torch.float32))),
          "float32")


# ---- batch norm ---------------------------------------------------------------------------------

BN_CASES = {
    "1d-2d-input": ("BatchNorm1d", (8, 3), {}),
    "1d-3d-input": ("BatchNorm1d", (4, 3, 5), {}),
    "cumulative": ("BatchNorm1d", (6, 2, 3), dict(momentum=None)),
    "no-affine": ("BatchNorm1d", (5, 4), dict(affine=False)),
    "no-bias": ("BatchNorm1d", (5, 4), dict(bias=False)),
    "momentum": ("BatchNorm1d", (3, 2, 4), dict(momentum=0.3, eps=1e-3)),
    "untracked": ("BatchNorm1d", (4, 3, 2), dict(track_running_stats=False)),
    "2d": ("BatchNorm2d", (2, 3, 4, 5), {}),
}


def run_batch_norm(L, case, dtype, device, steps, weight):
    cls, shape, kw = BN_CASES[case]
    m = getattr(L.nn, cls)(shape[1], dtype=getattr(L, dtype), **kw)
    if device != "cpu":
        m = m.to(device)
    if m.weight is not None:
        with L.no_grad():
            m.weight.copy_(leaf(L, weight, dtype, device, grad=False))
    out = []
    for i, (x, g) in enumerate(steps):
        if i == len(steps) - 1:
            m.eval()
        tx = leaf(L, x, dtype, device)
        y = m(tx)
        y.backward(leaf(L, g, dtype, device, grad=False))
        stats = [host(getattr(m, k)) for k in ("running_mean", "running_var")]
        nbt = None if m.num_batches_tracked is None else m.num_batches_tracked.item()
        grads = [None if p is None else host(p.grad) for p in (m.weight, m.bias)]
        out.append((y.grad_fn.name(), host(y), host(tx.grad), grads, stats, nbt))
    return out, m


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", list(BN_CASES))
def test_batch_norm_training_then_eval_matches_torch(device, case, dtype):
    """Three training steps (the running statistics move), then one step in eval mode."""
    shape = BN_CASES[case][1]
    steps = [(rng.standard_normal(shape) * (i + 1) + i, rng.standard_normal(shape)) for i in range(4)]
    weight = rng.standard_normal(shape[1])
    got, _ = run_batch_norm(minigrad, case, dtype, device, steps, weight)
    want, _ = run_batch_norm(torch, case, dtype, "cpu", steps, weight)
    for a, e in zip(got, want):
        assert a[0] == e[0] == "NativeBatchNormBackward0"
        assert a[5] == e[5]
        for u, v in zip([a[1], a[2]] + a[3] + a[4], [e[1], e[2]] + e[3] + e[4]):
            assert (u is None) == (v is None)
            if u is not None:
                close(u, v, dtype)


def test_batch_norm_buffers_state_dict_and_repr(device):
    m = minigrad.nn.BatchNorm1d(3).to(device)
    tm = torch.nn.BatchNorm1d(3)
    assert repr(m) == repr(tm) == ("BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                                   "track_running_stats=True)")
    assert repr(minigrad.nn.BatchNorm2d(4, momentum=None, affine=False, track_running_stats=False)) == \
        repr(torch.nn.BatchNorm2d(4, momentum=None, affine=False, track_running_stats=False))
    sd, tsd = m.state_dict(), tm.state_dict()
    assert list(sd) == list(tsd) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert sd["num_batches_tracked"].dtype == minigrad.int64 and sd["num_batches_tracked"].item() == 0
    assert host(sd["running_var"]).tolist() == [1.0] * 3 and host(sd["running_mean"]).tolist() == [0.0] * 3
    assert sd._metadata[""]["version"] == tsd._metadata[""]["version"] == 2
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in tm.named_buffers()]
    assert list(minigrad.nn.BatchNorm1d(3, affine=False, track_running_stats=False).state_dict()) == []
    # round trip: a trained module's state into a fresh one gives the same eval outputs
    x = minigrad.randn(6, 3, device=device) * 3 + 2
    for _ in range(3):
        m(x)
    fresh = minigrad.nn.BatchNorm1d(3).to(device)
    fresh.load_state_dict(m.state_dict())
    assert fresh.num_batches_tracked.item() == 3
    m.eval(), fresh.eval()
    close(host(fresh(x)), host(m(x)), "float32")
    # an old (version 1) state_dict without num_batches_tracked loads, as torch's
    old = {k: v for k, v in m.state_dict().items() if k != "num_batches_tracked"}
    fresh.load_state_dict(old)
    # torch's state_dict loads into minigrad's module
    tm(torch.randn(5, 3))
    m.load_state_dict({k: minigrad.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    close(host(m.running_var), tm.running_var.numpy(), "float32")
    assert m.num_batches_tracked.item() == 1


def test_batch_norm_functional(device):
    x = rng.standard_normal((5, 3, 2))
    rm, rv = rng.standard_normal(3), rng.random(3) + 0.5
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    res = []
    for L, dev in ((minigrad, device), (torch, "cpu")):
        F = L.nn.functional
        args = [leaf(L, a, "float64", dev, grad=False) for a in (rm, rv)]
        tx, tw, tb = (leaf(L, a, "float64", dev) for a in (x, w, b))
        y_eval = F.batch_norm(tx, *args, tw, tb)                        # eval: the running stats
        y_train = F.batch_norm(tx, *args, weight=tw, bias=tb, training=True, momentum=0.25)
        y_plain = F.batch_norm(tx, None, None, training=True)            # no buffers, no affine
        (y_eval.sum() + (y_train * y_train).sum() + y_plain.pow(3).sum()).backward()
        res.append([host(y_eval), host(y_train), host(y_plain), host(tx.grad), host(tw.grad), host(tb.grad)]
                   + [host(a) for a in args])
    for a, e in zip(*res):
        close(a, e, "float64")


def test_batch_norm_gradcheck(device):
    x = minigrad.randn(4, 3, 2, dtype=minigrad.float64, device=device, requires_grad=True)
    w = minigrad.randn(3, dtype=minigrad.float64, device=device, requires_grad=True)
    b = minigrad.randn(3, dtype=minigrad.float64, device=device, requires_grad=True)
    rm = minigrad.randn(3, dtype=minigrad.float64, device=device)
    rv = minigrad.rand(3, dtype=minigrad.float64, device=device) + 0.5
    F = minigrad.nn.functional
    train = lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True)  # noqa: E731
    evaluate = lambda x, w, b: F.batch_norm(x, rm, rv, w, b)  # noqa: E731
    for fn in (train, evaluate):
        assert gradcheck(fn, (x, w, b))
        assert gradgradcheck(fn, (x, w, b))


def test_untracked_module_uses_batch_stats_in_eval():
    x = rng.standard_normal((6, 2))
    outs = []
    for L in (minigrad, torch):
        m = L.nn.BatchNorm1d(2, track_running_stats=False).eval()
        outs.append(host(m(L.tensor(x, dtype=L.float32))))
    close(outs[0], outs[1], "float32")


def test_empty_inputs(device):
    y = minigrad.nn.functional.layer_norm(minigrad.zeros(0, 5, device=device), (5,))
    assert tuple(y.shape) == (0, 5)
    m = minigrad.nn.BatchNorm1d(5).to(device)
    y = m(minigrad.zeros(0, 5, device=device))
    assert tuple(y.shape) == (0, 5)
    assert host(m.running_mean).tolist() == [0.0] * 5 and host(m.running_var).tolist() == [1.0] * 5


# ---- errors -------------------------------------------------------------------------------------

def outcome(fn, L):
    try:
        fn(L)
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, str(e).replace("torch", "minigrad")
    return "ok"


ERRORS = {
    "ln-input-shape": lambda L: L.nn.functional.layer_norm(L.randn(3, 5), (10,)),
    "ln-input-shape-2": lambda L: L.nn.functional.layer_norm(L.randn(5), (2, 5)),
    "ln-module-shape": lambda L: L.nn.LayerNorm(5)(L.randn(3, 4)),
    "ln-weight": lambda L: L.nn.functional.layer_norm(L.randn(3, 5), (5,), L.ones(4)),
    "ln-bias": lambda L: L.nn.functional.layer_norm(L.randn(3, 5), (5,), None, L.ones(4)),
    "ln-int-shape": lambda L: L.nn.functional.layer_norm(L.randn(3, 5), 5),
    "ln-float-shape": lambda L: L.nn.functional.layer_norm(L.randn(3, 5), [5.0]),
    "ln-empty-shape": lambda L: L.nn.functional.layer_norm(L.randn(3, 5), ()),
    "ln-int-input": lambda L: L.nn.functional.layer_norm(L.ones(3, 5, dtype=L.int64), (5,)),
    "ln-mixed-dtype": lambda L: L.nn.functional.layer_norm(L.randn(3, 5), (5,), L.ones(5, dtype=L.float64)),
    "ln-not-tensor": lambda L: L.nn.functional.layer_norm([1.0, 2.0], (2,)),
    "bn-one-value": lambda L: L.nn.BatchNorm1d(3)(L.randn(1, 3)),
    "bn-one-value-3d": lambda L: L.nn.functional.batch_norm(L.randn(1, 3, 1), None, None, training=True),
    "bn-4d-input": lambda L: L.nn.BatchNorm1d(3)(L.randn(2, 3, 4, 5)),
    "bn2d-3d-input": lambda L: L.nn.BatchNorm2d(3)(L.randn(2, 3, 4)),
    "bn-features": lambda L: L.nn.BatchNorm1d(3)(L.randn(2, 4)),
    "bn-eval-no-stats": lambda L: L.nn.functional.batch_norm(L.randn(2, 3), None, None),
    "bn-weight-size": lambda L: L.nn.functional.batch_norm(L.randn(4, 5), L.zeros(5), L.ones(5), L.ones(4)),
    "bn-int-input": lambda L: L.nn.functional.batch_norm(L.ones(3, 5, dtype=L.int64), L.zeros(5), L.ones(5)),
    "bn-mixed-dtype": lambda L: L.nn.functional.batch_norm(L.randn(3, 5), L.zeros(5, dtype=L.float64), L.ones(5)),
    "bn-mixed-dtype-2": lambda L: L.nn.functional.batch_norm(L.randn(3, 5, dtype=L.float64), None, None,
                                                              L.ones(5), training=True),
    "ln-mixed-dtype-2": lambda L: L.nn.functional.layer_norm(L.randn(3, 5, dtype=L.float64), (5,), L.ones(5)),
    "bn-eps": lambda L: L.nn.functional.batch_norm(L.randn(3, 5), None, None, training=True, eps=0.0),
    "bn-negative-eps": lambda L: L.nn.functional.batch_norm(L.randn(3, 5), L.zeros(5), L.ones(5), eps=-1.0),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    got, want = outcome(ERRORS[name], minigrad), outcome(ERRORS[name], torch)
    assert got == want and got != "ok"


def test_failed_training_call_still_counts_the_batch():
    """torch increments num_batches_tracked before F.batch_norm's checks, so does minigrad."""
    counts = []
    for L in (minigrad, torch):
        m = L.nn.BatchNorm1d(3)
        for x in (L.randn(1, 3), L.randn(2, 4)):
            with pytest.raises((ValueError, RuntimeError)):
                m(x)
        counts.append(m.num_batches_tracked.item())
    assert counts == [2, 2]
