"""Transposed convolutions (F.conv_transpose1d/2d, nn.ConvTranspose1d/2d) and adaptive max
pooling (F.adaptive_max_pool1d/2d, nn.AdaptiveMaxPool1d/2d), plus the im2col/col2im primitives
under F.unfold/F.fold: values, gradients, grad_fn names, reprs and errors against torch, on
every device."""
import numpy as np
import pytest

import minigrad
import minigrad.nn as mnn
import minigrad.nn.functional as MF
from minigrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _run(fm, ft, arrs, device, dtype="float64", seed=0, grads=True):
    """fm on minigrad tensors, ft on torch tensors of the same arrays: outputs (and int64
    indices), grad_fn names, then the gradients of a random cotangent."""
    rng = np.random.default_rng(seed)
    arrs = [a.astype(dtype) for a in arrs]
    mt = [minigrad.tensor(a, device=device, requires_grad=grads) for a in arrs]
    tt = [torch.tensor(a, requires_grad=grads) for a in arrs]
    om, ot = fm(*mt), ft(*tt)
    if isinstance(ot, tuple):
        np.testing.assert_array_equal(om[1].cpu().numpy(), ot[1].numpy())
        assert om[1].dtype == minigrad.int64 and not om[1].requires_grad
        om, ot = om[0], ot[0]
    assert tuple(om.shape) == tuple(ot.shape)
    assert om.dtype == getattr(minigrad, str(ot.dtype).split(".")[1])
    if grads:
        assert type(om.grad_fn).__name__ == type(ot.grad_fn).__name__
    tol = dict(rtol=1e-10, atol=1e-10) if dtype == "float64" else dict(rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(om.detach().cpu().numpy(), ot.detach().numpy(), **tol)
    if grads:
        g = rng.standard_normal(tuple(ot.shape)).astype(dtype)
        om.backward(minigrad.tensor(g, device=device))
        ot.backward(torch.tensor(g))
        for a, b in zip(mt, tt):
            np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), **tol)
    return om, ot


def _randn(rng, *shape):
    return rng.standard_normal(shape)


def outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, str(e)
    return None


# ---- conv_transpose ------------------------------------------------------------------------------

# (input shape, weight shape, bias?, kwargs)
CT2 = [((2, 4, 5, 6), (4, 3, 3, 3), True, {}),
       ((2, 4, 5, 6), (4, 3, 3, 2), True, dict(stride=2, padding=1, output_padding=1)),
       ((2, 4, 5, 6), (4, 3, 3, 3), False, dict(stride=(2, 3), padding=(0, 2), output_padding=(1, 2))),
       ((2, 4, 5, 6), (4, 2, 3, 3), True, dict(groups=2, dilation=2, stride=2, output_padding=1)),
       ((1, 6, 4, 3), (6, 1, 2, 3), True, dict(groups=6, dilation=(1, 3), padding=(1, 2))),
       ((2, 3, 4, 4), (3, 2, 1, 1), True, dict(stride=3, output_padding=2)),
       ((2, 2, 3, 3), (2, 3, 4, 4), True, dict(stride=1, padding=2)),
       ((4, 4, 5), (4, 2, 2, 3), True, dict(stride=2)),           # unbatched
       ((0, 4, 5, 6), (4, 3, 3, 3), True, dict(stride=2)),        # empty batch
       ((2, 4, 7, 7), (4, 6, 5, 5), True, dict(stride=4, padding=2, dilation=3, output_padding=3, groups=2))]

CT1 = [((2, 4, 9), (4, 3, 3), True, {}),
       ((2, 4, 9), (4, 3, 4), True, dict(stride=3, padding=2, output_padding=2, dilation=2)),
       ((2, 6, 7), (6, 1, 3), False, dict(groups=3, stride=2, output_padding=1)),
       ((4, 5), (4, 2, 2), True, dict(stride=(2,), padding=[1]))]


@pytest.mark.parametrize("case", range(len(CT2)))
def test_conv_transpose2d(device, case):
    xs, ws, bias, kw = CT2[case]
    rng = np.random.default_rng(case)
    arrs = [_randn(rng, *xs), _randn(rng, *ws)] + ([_randn(rng, ws[1] * kw.get("groups", 1))] if bias else [])
    _run(lambda *a: MF.conv_transpose2d(*a, **kw), lambda *a: TF.conv_transpose2d(*a, **kw), arrs, device)


@pytest.mark.parametrize("case", range(len(CT1)))
def test_conv_transpose1d(device, case):
    xs, ws, bias, kw = CT1[case]
    rng = np.random.default_rng(case)
    arrs = [_randn(rng, *xs), _randn(rng, *ws)] + ([_randn(rng, ws[1] * kw.get("groups", 1))] if bias else [])
    _run(lambda *a: MF.conv_transpose1d(*a, **kw), lambda *a: TF.conv_transpose1d(*a, **kw), arrs, device)


def test_conv_transpose_float32_and_int64(device):
    rng = np.random.default_rng(5)
    kw = dict(stride=2, padding=1, output_padding=1, groups=2)
    _run(lambda *a: MF.conv_transpose2d(*a, **kw), lambda *a: TF.conv_transpose2d(*a, **kw),
         [_randn(rng, 2, 4, 6, 5), _randn(rng, 4, 3, 3, 3), _randn(rng, 6)], device, dtype="float32")
    x, w = rng.integers(-4, 5, (2, 4, 3, 3)), rng.integers(-4, 5, (4, 3, 2, 2))
    got = MF.conv_transpose2d(minigrad.tensor(x), minigrad.tensor(w), stride=2)
    want = TF.conv_transpose2d(torch.tensor(x), torch.tensor(w), stride=2)
    assert got.dtype == minigrad.int64
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_conv_transpose_is_the_convolution_adjoint(device):
    # <conv(x, w), y> == <x, conv_transpose(y, w)>, with the geometry of torch's docs
    rng = np.random.default_rng(7)
    kw = dict(stride=(2, 3), padding=(1, 2), dilation=(2, 1), groups=2)
    x, w = _randn(rng, 2, 4, 11, 13), _randn(rng, 6, 2, 3, 4)
    t = lambda a: minigrad.tensor(a, device=device)  # noqa: E731
    y = MF.conv2d(t(x), t(w), **kw)
    r = _randn(rng, *y.shape)
    back = MF.conv_transpose2d(t(r), t(w), **kw, output_padding=(0, 1))
    assert tuple(back.shape) == x.shape
    np.testing.assert_allclose(float((y * t(r)).sum()), float((back * t(x)).sum()), rtol=1e-10)


def test_conv_transpose_gradcheck(device):
    f64 = dict(dtype=minigrad.float64, device=device, requires_grad=True)
    x, w, b = minigrad.randn(2, 4, 3, 4, **f64), minigrad.randn(4, 2, 2, 3, **f64), minigrad.randn(4, **f64)
    fn = lambda x, w, b: MF.conv_transpose2d(x, w, b, stride=2, padding=(1, 0), output_padding=1,  # noqa: E731
                                             groups=2, dilation=(1, 2))
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))
    x1, w1 = minigrad.randn(2, 3, 5, **f64), minigrad.randn(3, 2, 3, **f64)
    assert gradcheck(lambda x, w: MF.conv_transpose1d(x, w, stride=3, output_padding=2, dilation=2), (x1, w1))


def test_conv_transpose_modules(device):
    cases = [(mnn.ConvTranspose2d, torch.nn.ConvTranspose2d, (4, 6, 3), {}),
             (mnn.ConvTranspose2d, torch.nn.ConvTranspose2d, (4, 6, (3, 2)),
              dict(stride=2, padding=1, output_padding=1, groups=2, bias=False, dilation=2)),
             (mnn.ConvTranspose1d, torch.nn.ConvTranspose1d, (4, 6, 3), dict(stride=2, output_padding=(1,))),
             (mnn.ConvTranspose1d, torch.nn.ConvTranspose1d, (2, 2, 1), dict(groups=2, padding=0))]
    for M, T, args, kw in cases:
        m, t = M(*args, **kw, device=device), T(*args, **kw)
        assert repr(m) == repr(t)
        assert tuple(m.weight.shape) == tuple(t.weight.shape)
        assert (m.bias is None) == (t.bias is None)
        assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
        for a in ("kernel_size", "stride", "padding", "dilation", "output_padding", "groups", "transposed"):
            assert getattr(m, a) == getattr(t, a), a
        with torch.no_grad():
            t.weight.copy_(torch.tensor(m.weight.detach().cpu().numpy()))
            if t.bias is not None:
                t.bias.copy_(torch.tensor(m.bias.detach().cpu().numpy()))
        nd = 2 if M is mnn.ConvTranspose2d else 1
        x = np.random.default_rng(1).standard_normal((2, args[0]) + (5,) * nd).astype("float32")
        np.testing.assert_allclose(m(minigrad.tensor(x, device=device)).detach().cpu().numpy(),
                                   t(torch.tensor(x)).detach().numpy(), rtol=1e-4, atol=1e-5)
    # torch's init: kaiming_uniform_(a=sqrt(5)) on (in, out / groups, *k): fan_in = out / groups * prod(k)
    m = mnn.ConvTranspose2d(3, 64, 3)
    bound = 1 / (64 * 9) ** 0.5
    assert 0.9 * bound < float(m.weight.abs().max()) <= bound
    assert float(m.bias.abs().max()) <= bound
    assert mnn.ConvTranspose2d(2, 3, 3, dtype=minigrad.float64).weight.dtype == minigrad.float64


@pytest.mark.parametrize("output_size", [None, (12, 14), (11, 13), [2, 6, 12, 13], (11, 14)])
def test_conv_transpose_output_size(device, output_size):
    m, t = mnn.ConvTranspose2d(4, 6, 3, stride=2, device=device), torch.nn.ConvTranspose2d(4, 6, 3, stride=2)
    with torch.no_grad():
        t.weight.copy_(torch.tensor(m.weight.detach().cpu().numpy()))
        t.bias.copy_(torch.tensor(m.bias.detach().cpu().numpy()))
    x = np.random.default_rng(2).standard_normal((2, 4, 5, 6)).astype("float32")
    got, want = m(minigrad.tensor(x, device=device), output_size), t(torch.tensor(x), output_size)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-5)
    m1, t1 = mnn.ConvTranspose1d(4, 2, 2, stride=3), torch.nn.ConvTranspose1d(4, 2, 2, stride=3)
    x1 = np.zeros((4, 5), "float32")  # unbatched: output_size may name (C, L)
    assert tuple(m1(minigrad.tensor(x1), [2, 15]).shape) == tuple(t1(torch.tensor(x1), [2, 15]).shape)


CT_ERRORS = [
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3), groups=3),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(5, 3, 3, 3)),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3), output_padding=1),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3), stride=2, output_padding=(1, 2)),
    lambda L, F: F.conv_transpose1d(L.zeros(2, 4, 5), L.zeros(4, 3, 3), stride=2, output_padding=2),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3), padding=-1),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3), stride=0),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3), groups=0),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3), output_padding=-1),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3), dilation=-1),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3), L.zeros(4)),
    lambda L, F: F.conv_transpose2d(L.zeros(5, 6), L.zeros(4, 3, 3, 3)),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3, dtype=L.float64)),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3), L.zeros(3, dtype=L.float64)),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3), padding="same"),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3), stride=(1, 2, 3)),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3), stride=1.5),
    lambda L, F: F.conv_transpose2d(1, L.zeros(4, 3, 3, 3)),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6), L.zeros(4, 3, 3, 3), groups=1.0),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 0, 6), L.zeros(4, 3, 3, 3)),
    lambda L, F: F.conv_transpose2d(L.zeros(2, 4, 5, 6, dtype=L.int32), L.zeros(4, 3, 3, 3, dtype=L.int32)),
    lambda L, F: F.conv_transpose1d(L.zeros(2, 4, 5, dtype=L.bool), L.zeros(4, 3, 3, dtype=L.bool)),
    lambda L, F: L.nn.ConvTranspose2d(4, 3, 3, padding_mode="reflect"),
    lambda L, F: L.nn.ConvTranspose1d(4, 3, 3, padding_mode="circular"),
    lambda L, F: L.nn.ConvTranspose2d(4, 3, 3, groups=3),
    lambda L, F: L.nn.ConvTranspose2d(4, 3, 3, groups=4),
    lambda L, F: L.nn.ConvTranspose2d(4, 3, 3, groups=0),
    lambda L, F: L.nn.ConvTranspose2d(4, 6, 3, stride=2)(L.zeros(2, 4, 5, 6), output_size=(14, 14)),
    lambda L, F: L.nn.ConvTranspose2d(4, 6, 3, stride=2)(L.zeros(2, 4, 5, 6), output_size=(12,)),
    lambda L, F: L.nn.ConvTranspose1d(4, 6, 3, stride=2)(L.zeros(4, 5), output_size=(1, 2, 3)),
]


@pytest.mark.parametrize("i", range(len(CT_ERRORS)))
def test_conv_transpose_errors(i):
    got = outcome(lambda: CT_ERRORS[i](minigrad, MF))
    want = outcome(lambda: CT_ERRORS[i](torch, TF))
    assert want is not None and got == (want[0], want[1].replace("torch", "minigrad"))


# ---- adaptive max pooling ------------------------------------------------------------------------

AMP2 = [(2, 3), 3, (1, 1), (5, 2), (7, 9), (10, 11), (None, 2), (4, None), 1]


@pytest.mark.parametrize("size", AMP2)
def test_adaptive_max_pool2d(device, size):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 7, 9))
    _run(lambda x: MF.adaptive_max_pool2d(x, size, return_indices=True),
         lambda x: TF.adaptive_max_pool2d(x, size, return_indices=True), [x], device)
    _run(lambda x: mnn.AdaptiveMaxPool2d(size)(x), lambda x: torch.nn.AdaptiveMaxPool2d(size)(x), [x[0]], device,
         dtype="float32")


@pytest.mark.parametrize("size", [1, 2, 4, 9, 13, (3,)])
def test_adaptive_max_pool1d(device, size):
    rng = np.random.default_rng(4)
    _run(lambda x: MF.adaptive_max_pool1d(x, size, True), lambda x: TF.adaptive_max_pool1d(x, size, True),
         [rng.standard_normal((2, 3, 9))], device)
    _run(lambda x: mnn.AdaptiveMaxPool1d(size, return_indices=True)(x),
         lambda x: torch.nn.AdaptiveMaxPool1d(size, return_indices=True)(x), [rng.standard_normal((3, 9))], device,
         dtype="float32")


def test_adaptive_max_pool_ties_nan_and_gradients(device):
    nan = float("nan")
    # ties: the first maximum; NaN: the last NaN of the window (torch's CPU loop)
    rows = [[1.0, nan, 3.0, nan, 2.0, 5.0, 5.0], [nan, 1.0, 3.0, 3.0, 2.0, 5.0, 5.0], [2.0] * 7,
            [nan, nan, nan, 0.0, 1.0, nan, -1.0]]
    x = np.array(rows)[None]
    for size in (1, 2, 3, 4, 5, 7, 9):
        got = MF.adaptive_max_pool1d(minigrad.tensor(x, device=device), size, return_indices=True)
        want = TF.adaptive_max_pool1d(torch.tensor(x), size, return_indices=True)
        np.testing.assert_array_equal(got[1].cpu().numpy(), want[1].numpy())
        np.testing.assert_array_equal(got[0].cpu().numpy(), want[0].numpy())
    x2 = np.random.default_rng(0).standard_normal((2, 2, 6, 7))
    x2[0, 0, :3, :3] = nan
    x2[1, 1, 2:4, 2:4] = 1.5  # a tie over overlapping windows
    _run(lambda x: MF.adaptive_max_pool2d(x, (4, 5), True), lambda x: TF.adaptive_max_pool2d(x, (4, 5), True), [x2],
         device, grads=False)
    xm = minigrad.tensor(x2, device=device, requires_grad=True)
    xt = torch.tensor(x2, requires_grad=True)
    MF.adaptive_max_pool2d(xm, (4, 5)).sum().backward()
    TF.adaptive_max_pool2d(xt, (4, 5)).sum().backward()
    np.testing.assert_array_equal(xm.grad.cpu().numpy(), xt.grad.numpy())  # overlapping windows add up


def test_adaptive_max_pool_empty_and_gradcheck(device):
    for shape, size in (((0, 3, 4, 4), 2), ((2, 3, 4, 4), 0), ((0, 4, 4), (2, 3))):
        got = MF.adaptive_max_pool2d(minigrad.zeros(*shape, device=device), size, return_indices=True)
        want = TF.adaptive_max_pool2d(torch.zeros(*shape), size, return_indices=True)
        assert tuple(got[0].shape) == tuple(want[0].shape) and tuple(got[1].shape) == tuple(want[1].shape)
    x = minigrad.randn(2, 2, 5, 7, dtype=minigrad.float64, device=device, requires_grad=True)
    assert gradcheck(lambda x: MF.adaptive_max_pool2d(x, (3, 4)), (x,))
    x1 = minigrad.randn(2, 3, 7, dtype=minigrad.float64, device=device, requires_grad=True)
    assert gradcheck(lambda x: MF.adaptive_max_pool1d(x, 4), (x1,))


def test_adaptive_max_pool_modules():
    for m, t in ((mnn.AdaptiveMaxPool2d((3, None)), torch.nn.AdaptiveMaxPool2d((3, None))),
                 (mnn.AdaptiveMaxPool1d(3, return_indices=True), torch.nn.AdaptiveMaxPool1d(3, return_indices=True)),
                 (mnn.AdaptiveMaxPool2d(3), torch.nn.AdaptiveMaxPool2d(3))):
        assert repr(m) == repr(t)
        assert m.return_indices == t.return_indices and m.output_size == t.output_size


AMP_ERRORS = [
    lambda L, F: F.adaptive_max_pool2d(L.zeros(1, 5, 6, dtype=L.int64), 2),
    lambda L, F: F.adaptive_max_pool2d(L.zeros(1, 5, 6, dtype=L.bool), 2),
    lambda L, F: F.adaptive_max_pool1d(L.zeros(5, 6, dtype=L.int32), 2),
    lambda L, F: F.adaptive_max_pool2d(L.zeros(2, 3, 5, 6), (3, 4, 5)),
    lambda L, F: F.adaptive_max_pool2d(L.zeros(2, 3, 5, 6), (3,)),
    lambda L, F: F.adaptive_max_pool2d(L.zeros(2, 3, 5, 6), -1),
    lambda L, F: F.adaptive_max_pool2d(L.zeros(2, 3, 5, 6), (2, -3)),
    lambda L, F: F.adaptive_max_pool2d(L.zeros(6), 2),
    lambda L, F: F.adaptive_max_pool2d(L.zeros(2, 3, 0, 4), 2),
    lambda L, F: F.adaptive_max_pool2d(L.zeros(2, 0, 4, 4), 2),
    lambda L, F: F.adaptive_max_pool1d(L.zeros(2, 3, 5, 6), 2),
    lambda L, F: F.adaptive_max_pool1d(L.zeros(6), 2),
    lambda L, F: F.adaptive_max_pool1d(L.zeros(3, 6), (2, 3)),
    lambda L, F: F.adaptive_max_pool1d(L.zeros(3, 6), 2.5),
    lambda L, F: F.adaptive_max_pool2d(L.zeros(3, 6, 6), 2.5),
    lambda L, F: F.adaptive_max_pool1d(L.zeros(3, 6), -1),
    lambda L, F: F.adaptive_max_pool1d(L.zeros(3, 0), 2),
    lambda L, F: F.adaptive_max_pool1d(5, 2),
]


@pytest.mark.parametrize("i", range(len(AMP_ERRORS)))
def test_adaptive_max_pool_errors(i):
    got = outcome(lambda: AMP_ERRORS[i](minigrad, MF))
    want = outcome(lambda: AMP_ERRORS[i](torch, TF))
    assert want is not None and got == (want[0], want[1].replace("torch", "minigrad"))


# ---- F.fold / F.unfold over the primitives -----------------------------------------------------------

@pytest.mark.parametrize("kw", [dict(kernel_size=3, stride=2, padding=2, dilation=2),
                                dict(kernel_size=(1, 4), stride=(3, 1), padding=(0, 3)),
                                dict(kernel_size=2, stride=3)])
def test_fold_unfold_geometries(device, kw):
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 3, 8, 7))
    om, _ = _run(lambda x: MF.unfold(x, **kw), lambda x: TF.unfold(x, **kw), [x], device)
    _run(lambda c: MF.fold(c, (8, 7), **kw), lambda c: TF.fold(c, (8, 7), **kw),
         [rng.standard_normal(tuple(om.shape))], device)
    _run(lambda c: MF.fold(c, (8, 7), **kw), lambda c: TF.fold(c, (8, 7), **kw),
         [rng.standard_normal(tuple(om.shape))], device, dtype="float32")
