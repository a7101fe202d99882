"""Strided views (as_strided, unfold, diagonal), F.unfold/F.fold, conv1d/conv2d and pooling:
values, gradients, grad_fn names, shapes, reprs and errors against torch, on every device."""
import numpy as np
import pytest

import minigrad
import minigrad.nn as mnn
import minigrad.nn.functional as MF
from minigrad.autograd import gradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _run(fm, ft, shapes, device, dtype="float64", seed=0, noncontig=False):
    """Run fm on minigrad tensors and ft on torch tensors made from the same random arrays;
    compare outputs (and int indices), then gradients for a random cotangent."""
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal(s).astype(dtype) for s in shapes]
    if noncontig:  # the first input as a transposed copy's transpose: same values, other layout
        arrs[0] = np.ascontiguousarray(np.swapaxes(arrs[0], -1, -2)).swapaxes(-1, -2)
    mt = [minigrad.tensor(a, device=device) for a in arrs]
    if noncontig:
        mt[0] = minigrad.tensor(np.ascontiguousarray(np.swapaxes(arrs[0], -1, -2)), device=device).transpose(-1, -2)
        assert not mt[0].is_contiguous()
    for t in mt:
        t.requires_grad_(True)
    tt = [torch.tensor(a, requires_grad=True) for a in arrs]
    om, ot = fm(*mt), ft(*tt)
    if isinstance(ot, tuple):
        np.testing.assert_array_equal(om[1].cpu().numpy(), ot[1].numpy())
        assert om[1].dtype == minigrad.int64
        om, ot = om[0], ot[0]
    assert tuple(om.shape) == tuple(ot.shape)
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(om.detach().cpu().numpy(), ot.detach().numpy(), **tol)
    g = rng.standard_normal(tuple(ot.shape)).astype(dtype)
    om.backward(minigrad.tensor(g, device=device))
    ot.backward(torch.tensor(g))
    for a, b in zip(mt, tt):
        np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), **tol)
    return om, ot


# ---- strided views --------------------------------------------------------------------------

VIEWS = {
    "as_strided_overlap": (lambda L, x: x.as_strided((4, 3), (2, 1), 1), [(12,)]),
    "as_strided_fn": (lambda L, x: L.as_strided(x, (3, 2), (1, 4)), [(3, 4)]),
    "as_strided_of_view": (lambda L, x: x[1:].as_strided((2, 2), (3, 1), 2), [(12,)]),
    "as_strided_expanded": (lambda L, x: x.expand(3, 4).as_strided((2, 3), (1, 1)), [(4,)]),
    "unfold": (lambda L, x: x.unfold(1, 3, 2), [(3, 8)]),
    "unfold_overlap": (lambda L, x: x.unfold(0, 4, 1), [(9,)]),
    "unfold_last": (lambda L, x: x.unfold(-1, 2, 3), [(2, 3, 7)]),
    "unfold_0d": (lambda L, x: x.unfold(0, 1, 1), [()]),
    "diagonal": (lambda L, x: x.diagonal(), [(3, 4)]),
    "diagonal_offset": (lambda L, x: L.diagonal(x, 1, 1, 0), [(3, 4)]),
    "diagonal_negative": (lambda L, x: x.diagonal(-1, 2, 0), [(4, 2, 3)]),
    "diagonal_empty": (lambda L, x: x.diagonal(5), [(3, 4)]),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_strided_views(device, name):
    fn, shapes = VIEWS[name]
    om, ot = _run(lambda x: fn(minigrad, x), lambda x: fn(torch, x), shapes, device)
    assert om.grad_fn.name() == ot.grad_fn.name()
    if ot.numel():  # (an empty tensor reports contiguous strides, tensor.py)
        assert om.stride() == ot.stride()


@pytest.mark.parametrize("name", ["unfold", "diagonal", "as_strided_overlap"])
def test_strided_views_gradcheck(device, name):
    fn, shapes = VIEWS[name]
    x = minigrad.randn(*shapes[0], dtype=minigrad.float64, device=device, requires_grad=True)
    assert gradcheck(lambda t: fn(minigrad, t), (x,))


def test_views_share_memory_and_version(device):
    for lib in (minigrad, torch):
        x = lib.arange(12.0) if lib is torch else lib.arange(12.0, device=device)
        w = x.unfold(0, 3, 3)
        d = x.reshape(3, 4).diagonal()
        s = x.as_strided((2,), (5,), 1)
        w.mul_(2)  # an in-place op on a view reaches its base
        assert x._version == w._version == d._version == s._version == 1
        assert x.tolist()[:4] == [0.0, 2.0, 4.0, 6.0]
        assert s.tolist() == [2.0, 12.0] and s.storage_offset() == 1
        assert d.tolist() == [0.0, 10.0, 20.0]


def test_inplace_on_strided_view_routes_gradients(device):
    res = []
    for lib in (minigrad, torch):
        kw = {} if lib is torch else {"device": device}
        a = lib.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True, **kw)
        b = a * 1
        b.unfold(0, 2, 2).mul_(lib.tensor([2.0, 3.0], **kw))
        b.reshape(2, 3).diagonal().add_(1)
        (b * lib.arange(6.0, **kw)).sum().backward()
        res.append((b.tolist(), a.grad.tolist()))
    assert res[0] == res[1]


def outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, str(e)
    return None


VIEW_ERRORS = [
    lambda L: L.arange(12.0).as_strided((4, 4), (1, 1), 10),
    lambda L: L.arange(12.0).as_strided((4,), (1, 1)),
    lambda L: L.arange(12.0).as_strided((4,), (-1,)),
    lambda L: L.arange(12.0).as_strided((4,), (1,), -1),
    lambda L: L.arange(12.0).as_strided(2, 1),
    lambda L: L.arange(12.0).unfold(0, 13, 2),
    lambda L: L.arange(12.0).unfold(0, 3, 0),
    lambda L: L.arange(12.0).unfold(0, -1, 1),
    lambda L: L.arange(12.0).unfold(1, 3, 1),
    lambda L: L.arange(12.0).unfold(0, 2.0, 1),
    lambda L: L.arange(12.0).reshape(3, 4).diagonal(0, 0, 0),
    lambda L: L.arange(12.0).diagonal(),
]


@pytest.mark.parametrize("i", range(len(VIEW_ERRORS)))
def test_strided_view_errors(i):
    got, want = outcome(lambda: VIEW_ERRORS[i](minigrad)), outcome(lambda: VIEW_ERRORS[i](torch))
    assert want is not None and got == want


# ---- F.unfold / F.fold ------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=2),
                                dict(kernel_size=3, padding=(0, 2), stride=(2, 1))])
def test_unfold_fold(device, kw):
    om, ot = _run(lambda x: MF.unfold(x, **kw), lambda x: TF.unfold(x, **kw), [(2, 3, 7, 9)], device)
    assert om.grad_fn.name() == ot.grad_fn.name() == "Im2ColBackward0"
    shape = tuple(ot.shape)
    om, ot = _run(lambda x: MF.fold(x, (7, 9), **kw), lambda x: TF.fold(x, (7, 9), **kw), [shape], device)
    assert om.grad_fn.name() == ot.grad_fn.name() == "Col2ImBackward0"
    _run(lambda x: mnn.Unfold(**kw)(x), lambda x: torch.nn.Unfold(**kw)(x), [(3, 7, 9)], device)


def test_unfold_fold_gradcheck(device):
    x = minigrad.randn(1, 2, 5, 4, dtype=minigrad.float64, device=device, requires_grad=True)
    assert gradcheck(lambda t: MF.unfold(t, 2, padding=1, stride=(1, 2)), (x,))
    c = minigrad.randn(1, 8, 18, dtype=minigrad.float64, device=device, requires_grad=True)
    assert gradcheck(lambda t: MF.fold(t, (5, 4), 2, padding=1, stride=(1, 2)), (c,))


# ---- convolutions ----------------------------------------------------------------------------

CONV2D = [
    dict(),
    dict(stride=2, padding=1),
    dict(stride=(2, 1), padding=(1, 2), dilation=(2, 1)),
    dict(padding="same"),
    dict(padding="same", dilation=2),
    dict(padding="valid"),
    dict(groups=2),
    dict(groups=4, padding=1),  # depthwise
]


@pytest.mark.parametrize("kw", CONV2D)
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("kernel", [(3, 3), (2, 4)])
def test_conv2d(device, kw, bias, kernel):
    groups = kw.get("groups", 1)
    shapes = [(2, 4, 7, 8), (8, 4 // groups) + kernel] + ([(8,)] if bias else [])
    om, ot = _run(lambda *a: MF.conv2d(*a, **kw) if bias else MF.conv2d(*a, **kw),
                  lambda *a: TF.conv2d(*a, **kw), shapes, device)
    assert om.grad_fn.name() == ot.grad_fn.name() == "ConvolutionBackward0"


@pytest.mark.parametrize("kw", [dict(), dict(stride=3, padding=2), dict(padding="same", dilation=2),
                                dict(groups=4), dict(padding="same")])
def test_conv1d(device, kw):
    groups = kw.get("groups", 1)
    _run(lambda *a: MF.conv1d(*a, **kw), lambda *a: TF.conv1d(*a, **kw), [(3, 4, 11), (8, 4 // groups, 4), (8,)], device)


def test_conv_batch1_unbatched_noncontiguous_float32(device):
    _run(lambda x, w, b: MF.conv2d(x, w, b), lambda x, w, b: TF.conv2d(x, w, b), [(1, 3, 6, 5), (2, 3, 3, 3), (2,)],
         device, noncontig=True)
    _run(lambda x, w, b: MF.conv2d(x, w, b, padding=1), lambda x, w, b: TF.conv2d(x, w, b, padding=1),
         [(3, 6, 5), (2, 3, 3, 3), (2,)], device)
    _run(lambda x, w: MF.conv1d(x, w), lambda x, w: TF.conv1d(x, w), [(3, 9), (5, 3, 2)], device)
    _run(lambda x, w, b: MF.conv2d(x, w, b, stride=2, padding=1, groups=3),
         lambda x, w, b: TF.conv2d(x, w, b, stride=2, padding=1, groups=3),
         [(2, 3, 9, 8), (6, 1, 3, 3), (6,)], device, dtype="float32")


def test_conv_gradcheck(device):
    x = minigrad.randn(2, 4, 5, 6, dtype=minigrad.float64, device=device, requires_grad=True)
    w = minigrad.randn(6, 2, 3, 2, dtype=minigrad.float64, device=device, requires_grad=True)
    b = minigrad.randn(6, dtype=minigrad.float64, device=device, requires_grad=True)
    assert gradcheck(lambda x, w, b: MF.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
                     (x, w, b))
    x1 = minigrad.randn(2, 3, 7, dtype=minigrad.float64, device=device, requires_grad=True)
    w1 = minigrad.randn(4, 3, 2, dtype=minigrad.float64, device=device, requires_grad=True)
    assert gradcheck(lambda x, w: MF.conv1d(x, w, padding="same"), (x1, w1))


def test_conv_modules(device):
    for args, kw in [((1, 6, 5), {}), ((3, 6, (3, 2)), dict(stride=2, padding=1, dilation=2, groups=3, bias=False)),
                     ((2, 4, 4), dict(padding="same"))]:
        m, t = mnn.Conv2d(*args, **kw, device=device), torch.nn.Conv2d(*args, **kw)
        assert repr(m) == repr(t)
        assert m.weight.shape == tuple(t.weight.shape)
        with torch.no_grad():
            t.weight.copy_(torch.tensor(m.weight.detach().cpu().numpy()))
            if t.bias is not None:
                t.bias.copy_(torch.tensor(m.bias.detach().cpu().numpy()))
        x = np.random.default_rng(1).standard_normal((2, args[0], 9, 8)).astype("float32")
        np.testing.assert_allclose(m(minigrad.tensor(x, device=device)).detach().cpu().numpy(),
                                   t(torch.tensor(x)).detach().numpy(), rtol=1e-4, atol=1e-5)
    m = mnn.Conv1d(2, 4, 3, padding="same")
    assert repr(m) == repr(torch.nn.Conv1d(2, 4, 3, padding="same"))
    # torch's default init: kaiming_uniform_(a=sqrt(5)) gives bound 1/sqrt(fan_in), the bias too
    m = mnn.Conv2d(3, 64, 3)
    bound = 1 / 27 ** 0.5
    assert float(m.weight.abs().max()) <= bound and float(m.weight.abs().max()) > 0.9 * bound
    assert float(m.bias.abs().max()) <= bound
    # padding_mode reflect / replicate / circular: F.pad, then a convolution (tests/test_conv3d.py)
    assert repr(mnn.Conv2d(2, 2, 3, padding_mode="reflect")) == repr(torch.nn.Conv2d(2, 2, 3, padding_mode="reflect"))


CONV_ERRORS = [
    lambda L, F: F.conv2d(L.zeros(8, 8), L.zeros(6, 3, 3, 3)),
    lambda L, F: F.conv2d(L.zeros(1, 3, 8, 8), L.zeros(6, 1, 3, 3)),
    lambda L, F: F.conv2d(L.zeros(1, 3, 8, 8), L.zeros(6, 3, 9, 9)),
    lambda L, F: F.conv2d(L.zeros(1, 3, 8, 8), L.zeros(6, 3, 3, 3), padding="same", stride=2),
    lambda L, F: F.conv2d(L.zeros(1, 3, 8, 8), L.zeros(6, 3, 3, 3), padding="foo"),
    lambda L, F: F.conv2d(L.zeros(1, 3, 8, 8), L.zeros(6, 3, 3, 3), groups=2),
    lambda L, F: F.conv2d(L.zeros(1, 3, 8, 8), L.zeros(6, 1, 3, 3), groups=4),
    lambda L, F: F.conv2d(L.zeros(1, 3, 8, 8), L.zeros(6, 3, 3, 3), L.zeros(5)),
    lambda L, F: F.conv2d(L.zeros(1, 3, 8, 8), L.zeros(6, 3, 3, 3), stride=0),
    lambda L, F: F.conv2d(L.zeros(1, 3, 8, 8), L.zeros(6, 3, 3, 3), padding=-1),
    lambda L, F: F.conv2d(L.zeros(1, 3, 8, 8), L.zeros(6, 3, 3, 3), dilation=0),
    lambda L, F: F.conv2d(L.zeros(1, 3, 8, 8, dtype=L.float64), L.zeros(6, 3, 3, 3)),
    lambda L, F: F.conv1d(L.zeros(1, 3, 8), L.zeros(6, 3, 3, 3)),
    lambda L, F: F.max_pool2d(L.zeros(1, 3, 8, 8), 2, padding=2),
    lambda L, F: F.max_pool2d(L.zeros(1, 3, 8, 8), 9),
    lambda L, F: F.max_pool2d(L.zeros(1, 3, 8, 8), 0, 1),
    lambda L, F: F.max_pool2d(L.zeros(8, 8), 2),
    lambda L, F: F.avg_pool2d(L.zeros(1, 3, 8, 8), 2, padding=2),
    lambda L, F: F.fold(L.zeros(1, 12, 49), (9, 8), 2),
    lambda L, F: F.fold(L.zeros(1, 5, 49), (8, 8), 2),
    lambda L, F: L.nn.Conv2d(3, 2, 3, groups=2),
    lambda L, F: L.nn.Conv2d(2, 3, 3, groups=2),
    lambda L, F: L.nn.Conv2d(2, 4, 3, padding="same", stride=2),
    lambda L, F: L.nn.Conv2d(2, 4, 3, groups=0),
]


@pytest.mark.parametrize("i", range(len(CONV_ERRORS)))
def test_conv_pool_errors(i):
    got = outcome(lambda: CONV_ERRORS[i](minigrad, MF))
    want = outcome(lambda: CONV_ERRORS[i](torch, TF))
    assert want is not None and got == (want[0], want[1].replace("torch", "minigrad"))


# ---- pooling ---------------------------------------------------------------------------------

MAXPOOL = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=3, stride=2, ceil_mode=True),
           dict(kernel_size=(2, 3), stride=1, padding=(1, 0), dilation=(2, 1)),
           dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, return_indices=True)]


@pytest.mark.parametrize("kw", MAXPOOL)
def test_max_pool(device, kw):
    om, ot = _run(lambda x: MF.max_pool2d(x, **kw), lambda x: TF.max_pool2d(x, **kw), [(2, 3, 9, 8)], device)
    r = om[0] if isinstance(om, tuple) else om
    k = kw["kernel_size"]
    k1 = {**kw, "kernel_size": k if isinstance(k, int) else k[0]}
    for key in ("stride", "padding", "dilation"):
        if isinstance(k1.get(key), tuple):
            k1[key] = k1[key][0]
    _run(lambda x: MF.max_pool1d(x, **k1), lambda x: TF.max_pool1d(x, **k1), [(2, 3, 11)], device)
    m = mnn.MaxPool2d(**kw)
    assert repr(m) == repr(torch.nn.MaxPool2d(**kw))
    assert r is not None


def test_max_pool_ties_nan_and_ints(device):
    # ties: the first maximum; NaN propagates (with one NaN per window torch's index is the NaN's;
    # with several, torch's CPU kernels disagree among themselves, minigrad takes the first)
    x = [[[[1.0, 1.0, 0.0], [1.0, float("nan"), 2.0], [3.0, 3.0, 5.0]]]]
    for kw in (dict(kernel_size=2, stride=1), dict(kernel_size=2, stride=1, padding=1)):
        got = MF.max_pool2d(minigrad.tensor(x, device=device), return_indices=True, **kw)
        want = TF.max_pool2d(torch.tensor(x), return_indices=True, **kw)
        np.testing.assert_array_equal(got[0].cpu().numpy(), want[0].numpy())
        np.testing.assert_array_equal(got[1].cpu().numpy(), want[1].numpy())
    xg = minigrad.tensor(x, device=device, requires_grad=True)
    MF.max_pool2d(xg, 2, 1).sum().backward()
    assert xg.grad.tolist() == [[[[0.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 0.0]]]]  # every window's NaN
    xi = [[[5, 5, 1, 7], [2, 8, 8, 0]]]
    got = MF.max_pool1d(minigrad.tensor(xi, device=device), 2, 1, return_indices=True)
    want = TF.max_pool1d(torch.tensor(xi), 2, 1, return_indices=True)
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()
    assert got[0].dtype == minigrad.int64


AVGPOOL = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=3, stride=2, ceil_mode=True),
           dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
           dict(kernel_size=(3, 2), stride=1, padding=(1, 0), divisor_override=5)]


@pytest.mark.parametrize("kw", AVGPOOL)
def test_avg_pool(device, kw):
    om, ot = _run(lambda x: MF.avg_pool2d(x, **kw), lambda x: TF.avg_pool2d(x, **kw), [(2, 3, 9, 8)], device)
    assert om.grad_fn.name() == ot.grad_fn.name() == "AvgPool2DBackward0"
    k1 = {key: (v if not isinstance(v, tuple) else v[0]) for key, v in kw.items() if key != "divisor_override"}
    _run(lambda x: MF.avg_pool1d(x, **k1), lambda x: TF.avg_pool1d(x, **k1), [(3, 11)], device)
    assert repr(mnn.AvgPool2d(**kw)) == repr(torch.nn.AvgPool2d(**kw))
    assert repr(mnn.AvgPool1d(**k1)) == repr(torch.nn.AvgPool1d(**k1))


@pytest.mark.parametrize("size", [3, (2, 5), (None, 4), 1, (7, 9)])
def test_adaptive_avg_pool(device, size):
    om, ot = _run(lambda x: MF.adaptive_avg_pool2d(x, size), lambda x: TF.adaptive_avg_pool2d(x, size),
                  [(2, 3, 7, 9)], device)
    assert om.grad_fn.name() == ot.grad_fn.name()
    s1 = size[1] if isinstance(size, tuple) else size
    _run(lambda x: MF.adaptive_avg_pool1d(x, s1), lambda x: TF.adaptive_avg_pool1d(x, s1), [(3, 9)], device)
    m = mnn.AdaptiveAvgPool2d(size)
    assert repr(m) == repr(torch.nn.AdaptiveAvgPool2d(size))


def test_pool_gradcheck(device):
    x = minigrad.randn(1, 2, 6, 5, dtype=minigrad.float64, device=device, requires_grad=True)
    assert gradcheck(lambda t: MF.max_pool2d(t, 3, 2, 1, ceil_mode=True), (x,))
    assert gradcheck(lambda t: MF.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False), (x,))
    assert gradcheck(lambda t: MF.adaptive_avg_pool2d(t, (4, 3)), (x,))


def test_lenet_forward_backward(device):
    """The README's example: a LeNet-style CNN on random data."""
    nn = mnn
    minigrad.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(6, 16, 5), nn.ReLU(), nn.AvgPool2d(2), nn.Flatten(),
                          nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 10)).to(device)
    x = minigrad.randn(4, 1, 28, 28, device=device)
    loss = MF.cross_entropy(model(x), minigrad.tensor([1, 2, 3, 4], device=device))
    loss.backward()
    assert model[0].weight.grad.shape == (6, 1, 5, 5) and model[3].bias.grad.shape == (16,)
    assert np.isfinite(loss.item())
