"""3-d convolution and pooling (F.conv3d, F.conv_transpose3d, F.max_pool3d, F.avg_pool3d,
F.adaptive_avg/max_pool3d, F.lp_pool1d/2d/3d, F.max_unpool1d/2d/3d and their modules), conv
padding modes (reflect / replicate / circular for Conv1d/2d/3d) and the 3-d padding modules:
values, gradients, grad_fn names, reprs, state_dict keys and errors against torch, on every
device (the 3-d forms run through the backend's im2col / col2im: conv.cu's vol2col / col2vol)."""
import math
import re

import numpy as np
import pytest

import minigrad
import minigrad.nn as mnn
import minigrad.nn.functional as MF
from minigrad.autograd import gradcheck, gradgradcheck
from test_conv_more import _randn, _run

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _sorted_sets(msg):
    """A message with each printed set of strings ({'a', 'b'}) in sorted order: a set's order
    follows string hashes (and the marshaled constants of a .pyc), not the code."""
    return re.sub(r"\{('[^{}]*')\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", msg)


def outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, _sorted_sets(str(e).replace("minigrad.", "torch."))
    return None


# ---- conv3d ----------------------------------------------------------------------------------------

# (input shape, weight shape, bias?, kwargs)
C3 = [((2, 3, 4, 5, 6), (4, 3, 2, 3, 2), True, {}),
      ((2, 4, 5, 6, 7), (6, 2, 2, 3, 2), True, dict(stride=(1, 2, 3), padding=(1, 0, 2), dilation=(2, 1, 1), groups=2)),
      ((1, 4, 5, 4, 6), (4, 1, 3, 2, 3), False, dict(padding="same", dilation=(1, 2, 1), groups=4)),
      ((2, 2, 3, 4, 5), (3, 2, 2, 2, 2), True, dict(padding="valid", stride=2)),
      ((3, 4, 5, 6), (2, 3, 2, 2, 3), True, dict(padding=1)),                # unbatched
      ((0, 3, 4, 4, 4), (2, 3, 2, 2, 2), True, dict(stride=2)),             # empty batch
      ((1, 2, 2, 3, 2), (2, 2, 1, 1, 1), True, dict(stride=3, padding=[0])),  # 1x1x1 kernel, stride > size
      ((1, 3, 6, 5, 7), (3, 1, 3, 3, 3), True, dict(stride=2, padding=(3, 2, 1), dilation=(3, 2, 1), groups=3))]


@pytest.mark.parametrize("case", range(len(C3)))
def test_conv3d(device, case):
    xs, ws, bias, kw = C3[case]
    rng = np.random.default_rng(case)
    arrs = [_randn(rng, *xs), _randn(rng, *ws)] + ([_randn(rng, ws[0])] if bias else [])
    _run(lambda *a: MF.conv3d(*a, **kw), lambda *a: TF.conv3d(*a, **kw), arrs, device)


def test_conv3d_float32_and_int64(device):
    rng = np.random.default_rng(1)
    kw = dict(stride=(2, 1, 1), padding=(1, 1, 0), groups=2)
    _run(lambda *a: MF.conv3d(*a, **kw), lambda *a: TF.conv3d(*a, **kw),
         [_randn(rng, 2, 4, 5, 4, 5), _randn(rng, 6, 2, 3, 2, 2), _randn(rng, 6)], device, dtype="float32")
    x, w = rng.integers(-4, 5, (2, 2, 3, 4, 3)), rng.integers(-4, 5, (3, 2, 2, 2, 2))
    got = MF.conv3d(minigrad.tensor(x), minigrad.tensor(w), padding=1)  # integer GEMMs: CPU only, as torch
    want = TF.conv3d(torch.tensor(x), torch.tensor(w), padding=1)
    assert got.dtype == minigrad.int64
    np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


def test_conv3d_gradcheck(device):
    f64 = dict(dtype=minigrad.float64, device=device, requires_grad=True)
    x, w, b = minigrad.randn(1, 2, 3, 4, 3, **f64), minigrad.randn(4, 1, 2, 2, 2, **f64), minigrad.randn(4, **f64)
    fn = lambda x, w, b: MF.conv3d(x, w, b, stride=(1, 2, 1), padding=(1, 0, 1), dilation=(1, 1, 2),  # noqa: E731
                                   groups=2)
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


# ---- conv_transpose3d ------------------------------------------------------------------------------

CT3 = [((2, 4, 3, 4, 3), (4, 3, 2, 3, 2), True, {}),
       ((2, 4, 3, 4, 5), (4, 3, 2, 3, 2), True, dict(stride=(2, 1, 3), padding=(1, 0, 1), output_padding=(1, 0, 2),
                                                      dilation=(1, 2, 1), groups=2)),
       ((4, 3, 2, 3), (4, 2, 3, 2, 2), False, dict(stride=2, output_padding=1)),  # unbatched
       ((0, 2, 3, 3, 3), (2, 2, 2, 2, 2), True, dict(stride=2)),                   # empty batch
       ((1, 2, 2, 3, 2), (2, 3, 3, 3, 3), True, dict(stride=1, padding=1, dilation=(1, 1, 2)))]


@pytest.mark.parametrize("case", range(len(CT3)))
def test_conv_transpose3d(device, case):
    xs, ws, bias, kw = CT3[case]
    rng = np.random.default_rng(10 + case)
    arrs = [_randn(rng, *xs), _randn(rng, *ws)] + ([_randn(rng, ws[1] * kw.get("groups", 1))] if bias else [])
    _run(lambda *a: MF.conv_transpose3d(*a, **kw), lambda *a: TF.conv_transpose3d(*a, **kw), arrs, device)


def test_conv_transpose3d_float32_int64_and_adjoint(device):
    rng = np.random.default_rng(3)
    kw = dict(stride=2, padding=1, output_padding=1)
    _run(lambda *a: MF.conv_transpose3d(*a, **kw), lambda *a: TF.conv_transpose3d(*a, **kw),
         [_randn(rng, 1, 2, 3, 2, 3), _randn(rng, 2, 3, 3, 3, 3), _randn(rng, 3)], device, dtype="float32")
    x, w = rng.integers(-4, 5, (1, 2, 2, 3, 2)), rng.integers(-4, 5, (2, 2, 2, 2, 2))
    got = MF.conv_transpose3d(minigrad.tensor(x), minigrad.tensor(w), stride=2)  # CPU only, as torch
    np.testing.assert_array_equal(got.numpy(), TF.conv_transpose3d(torch.tensor(x), torch.tensor(w),
                                                                          stride=2).numpy())
    # <conv3d(x, w), y> == <x, conv_transpose3d(y, w)>
    t = lambda a: minigrad.tensor(a, device=device)  # noqa: E731
    kw = dict(stride=(2, 1, 3), padding=(1, 0, 2), dilation=(1, 2, 1))
    x, w = _randn(rng, 1, 2, 7, 6, 8), _randn(rng, 3, 2, 3, 2, 3)
    y = MF.conv3d(t(x), t(w), **kw)
    r = _randn(rng, *y.shape)
    back = MF.conv_transpose3d(t(r), t(w), **kw, output_padding=(0, 0, 0))
    assert tuple(back.shape) == x.shape
    np.testing.assert_allclose(float((y * t(r)).sum()), float((back * t(x)).sum()), rtol=1e-10)


def test_conv_transpose3d_gradcheck(device):
    f64 = dict(dtype=minigrad.float64, device=device, requires_grad=True)
    x, w = minigrad.randn(1, 2, 2, 3, 2, **f64), minigrad.randn(2, 2, 2, 2, 2, **f64)
    fn = lambda x, w: MF.conv_transpose3d(x, w, stride=(2, 1, 2), padding=(0, 1, 0), output_padding=(1, 0, 0))  # noqa
    assert gradcheck(fn, (x, w))
    assert gradgradcheck(fn, (x, w))


# ---- pooling ---------------------------------------------------------------------------------------

MP3 = [(2, {}), ((2, 3, 2), dict(stride=(1, 2, 2), padding=(1, 1, 0), dilation=(1, 1, 2), ceil_mode=True)),
       (3, dict(stride=2, padding=1)), ((3, 2, 2), dict(stride=(2, 1, 3), ceil_mode=True)), ([2], dict(stride=[1]))]


@pytest.mark.parametrize("case", range(len(MP3)))
@pytest.mark.parametrize("shape", [(2, 3, 5, 6, 7), (3, 4, 5, 6)])
def test_max_pool3d(device, case, shape):
    k, kw = MP3[case]
    rng = np.random.default_rng(case)
    x = rng.permutation(math.prod(shape)).reshape(shape) / 7.0  # distinct values: no ties
    _run(lambda a: MF.max_pool3d(a, k, return_indices=True, **kw),
         lambda a: TF.max_pool3d(a, k, return_indices=True, **kw), [x], device)
    _run(lambda a: MF.max_pool3d(a, k, **kw), lambda a: TF.max_pool3d(a, k, **kw), [x], device, dtype="float32")


def test_max_pool3d_ints_nan_and_empty_batch(device):
    a = np.arange(2 * 3 * 4 * 4 * 4).reshape(2, 3, 4, 4, 4) % 7
    for dt in ("int64", "int32"):
        got, gi = MF.max_pool3d(minigrad.tensor(a.astype(dt), device=device), 2, return_indices=True)
        want, wi = TF.max_pool3d(torch.tensor(a.astype(dt)), 2, return_indices=True)
        assert got.dtype == getattr(minigrad, dt)
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
        np.testing.assert_array_equal(gi.cpu().numpy(), wi.numpy())
    x = np.random.default_rng(0).standard_normal((1, 2, 4, 4, 4))
    x[0, 0, 1, 1, 1] = np.nan
    got, gi = MF.max_pool3d(minigrad.tensor(x, device=device), 2, return_indices=True)
    want, wi = TF.max_pool3d(torch.tensor(x), 2, return_indices=True)
    np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
    np.testing.assert_array_equal(gi.cpu().numpy(), wi.numpy())
    _run(lambda a: MF.max_pool3d(a, 2), lambda a: TF.max_pool3d(a, 2), [np.zeros((0, 2, 4, 4, 4))], device)


AP3 = [(2, {}), (3, dict(stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
       (3, dict(stride=2, padding=1, divisor_override=5)), ((2, 3, 2), dict(stride=(1, 2, 3), padding=(1, 1, 0))),
       ((3, 3, 2), dict(stride=(2, 2, 1), padding=(1, 0, 1), ceil_mode=True)),
       ((3, 3, 2), dict(stride=(2, 2, 1), padding=(1, 0, 1), ceil_mode=True, count_include_pad=False))]


@pytest.mark.parametrize("case", range(len(AP3)))
@pytest.mark.parametrize("shape", [(2, 3, 5, 6, 7), (3, 4, 5, 6)])
def test_avg_pool3d(device, case, shape):
    k, kw = AP3[case]
    x = _randn(np.random.default_rng(case), *shape)
    _run(lambda a: MF.avg_pool3d(a, k, **kw), lambda a: TF.avg_pool3d(a, k, **kw), [x], device)
    _run(lambda a: MF.avg_pool3d(a, k, **kw), lambda a: TF.avg_pool3d(a, k, **kw), [x], device, dtype="float32")


def test_avg_pool3d_int64_truncates(device):
    a = np.arange(2 * 3 * 4 * 4 * 4).reshape(2, 3, 4, 4, 4) - 50
    for kw in (dict(stride=1, padding=1), dict(stride=2, padding=1, count_include_pad=False, ceil_mode=True),
               dict(divisor_override=3)):
        got = MF.avg_pool3d(minigrad.tensor(a, device=device), 3 if "padding" in kw else 2, **kw)
        want = TF.avg_pool3d(torch.tensor(a), 3 if "padding" in kw else 2, **kw)
        assert got.dtype == minigrad.int64
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


@pytest.mark.parametrize("out", [2, (2, None, 3), (3, 4, 5), (1, 1, 1), (5, 1, 7), 1])
@pytest.mark.parametrize("shape", [(2, 3, 5, 6, 7), (3, 4, 5, 6)])
def test_adaptive_pool3d(device, out, shape):
    x = np.random.default_rng(1).permutation(math.prod(shape)).reshape(shape) / 3.0
    _run(lambda a: MF.adaptive_avg_pool3d(a, out), lambda a: TF.adaptive_avg_pool3d(a, out), [x], device)
    _run(lambda a: MF.adaptive_max_pool3d(a, out, return_indices=True),
         lambda a: TF.adaptive_max_pool3d(a, out, return_indices=True), [x], device)
    _run(lambda a: MF.adaptive_max_pool3d(a, out), lambda a: TF.adaptive_max_pool3d(a, out), [x], device,
         dtype="float32")


def test_pool3d_gradcheck(device):
    f64 = dict(dtype=minigrad.float64, device=device, requires_grad=True)
    x = minigrad.tensor(np.random.default_rng(2).permutation(60).reshape(1, 1, 3, 4, 5) / 9.0, **f64)
    assert gradcheck(lambda x: MF.avg_pool3d(x, 2, stride=1, padding=1, count_include_pad=False), (x,))
    assert gradgradcheck(lambda x: MF.avg_pool3d(x, (2, 3, 2), stride=(1, 2, 1)), (x,))
    assert gradcheck(lambda x: MF.max_pool3d(x, 2, stride=1), (x,))
    assert gradcheck(lambda x: MF.adaptive_avg_pool3d(x, (2, 3, 2)), (x,))
    assert gradcheck(lambda x: MF.adaptive_max_pool3d(x, (2, 3, 2)), (x,))


LP = [(1, 2.0, 3, dict(stride=2)), (1, 3, 2, dict(ceil_mode=True, stride=3)), (2, 2, (2, 3), {}),
      (2, 1.5, 2, dict(stride=1)), (3, 2, 2, {}), (3, 3, (2, 1, 2), dict(stride=(1, 2, 1), ceil_mode=True)),
      (2, float("inf"), 2, {}), (3, -float("inf"), 2, dict(stride=1))]


@pytest.mark.parametrize("case", range(len(LP)))
def test_lp_pool(device, case):
    nd, p, k, kw = LP[case]
    shape = (2, 3) + (5, 6, 7)[:nd]
    x = np.abs(_randn(np.random.default_rng(case), *shape)) + 0.5  # positive: x ** p is smooth
    name = f"lp_pool{nd}d"
    _run(lambda a: getattr(MF, name)(a, p, k, **kw), lambda a: getattr(TF, name)(a, p, k, **kw), [x], device)
    mod = getattr(mnn, f"LPPool{nd}d")(p, k, **kw)
    assert repr(mod) == repr(getattr(torch.nn, f"LPPool{nd}d")(p, k, **kw))
    np.testing.assert_allclose(mod(minigrad.tensor(x, device=device)).cpu().numpy(),
                               getattr(torch.nn, f"LPPool{nd}d")(p, k, **kw)(torch.tensor(x)).numpy(), rtol=1e-10)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_unpool(device, nd):
    shape = (2, 3) + (4, 6, 6)[3 - nd:]
    x = np.random.default_rng(nd).permutation(math.prod(shape)).reshape(shape) / 5.0
    pool, unpool = getattr(TF, f"max_pool{nd}d"), f"max_unpool{nd}d"
    for kw, size in ((dict(), None), (dict(stride=1), None), (dict(stride=2, padding=1), shape[2:]),
                     (dict(), tuple(s + 1 for s in shape[2:]))):
        k = 2 if "padding" not in kw else 3
        y, i = pool(torch.tensor(x), k, return_indices=True, **kw)
        for lead in (slice(None), 0):  # batched and unbatched
            yv, iv = y.numpy()[lead], i.numpy()[lead]
            mi, ti = minigrad.tensor(iv, device=device), torch.tensor(iv)
            _run(lambda a: getattr(MF, unpool)(a, mi, k, output_size=size, **kw),
                 lambda a: getattr(TF, unpool)(a, ti, k, output_size=size, **kw), [yv], device)
    m, t = getattr(mnn, f"MaxUnpool{nd}d")(2, stride=1), getattr(torch.nn, f"MaxUnpool{nd}d")(2, stride=1)
    assert repr(m) == repr(t)
    y, i = pool(torch.tensor(x), 2, stride=1, return_indices=True)
    np.testing.assert_array_equal(m(minigrad.tensor(y.numpy(), device=device),
                                    minigrad.tensor(i.numpy(), device=device)).cpu().numpy(), t(y, i).numpy())


def test_max_unpool_gradcheck(device):
    f64 = dict(dtype=minigrad.float64, device=device)
    x = minigrad.tensor(np.random.default_rng(0).permutation(96).reshape(1, 2, 2, 4, 6) / 7.0, **f64)
    y, i = MF.max_pool3d(x, 2, return_indices=True)
    y = y.detach().requires_grad_()
    assert gradcheck(lambda y: MF.max_unpool3d(y, i, 2), (y,))
    assert gradgradcheck(lambda y: MF.max_unpool2d(y[0], i[0], (4, 2)), (y,))  # (2, 1, 2, 3) into 8 x 6 planes


# ---- modules ---------------------------------------------------------------------------------------

def _copy_params(m, t):
    with torch.no_grad():
        for (n, p), (_, q) in zip(m.named_parameters(), t.named_parameters()):
            q.copy_(torch.tensor(p.detach().cpu().numpy()))


CONV_MODULES = [("Conv3d", (4, 6, 3), dict(padding=1)),
                ("Conv3d", (4, 6, (2, 3, 1)), dict(stride=(2, 1, 1), padding=(1, 0, 0), groups=2, bias=False)),
                ("Conv3d", (2, 3, 3), dict(padding="same", dilation=(1, 2, 1))),
                ("Conv3d", (2, 4, 3), dict(padding=(1, 2, 0), padding_mode="reflect")),
                ("Conv3d", (2, 4, 3), dict(padding=1, padding_mode="replicate", stride=2)),
                ("Conv3d", (2, 4, 2), dict(padding=(2, 1, 1), padding_mode="circular", dilation=(2, 1, 1))),
                ("Conv3d", (2, 2, 3), dict(padding="same", padding_mode="reflect")),
                ("Conv3d", (2, 2, 2), dict(padding="valid", padding_mode="circular")),
                ("Conv2d", (2, 4, 3), dict(padding=(1, 2), padding_mode="reflect")),
                ("Conv2d", (2, 4, 3), dict(padding=2, padding_mode="replicate", groups=2)),
                ("Conv2d", (2, 4, (2, 4)), dict(padding="same", padding_mode="circular")),
                ("Conv1d", (2, 4, 3), dict(padding=2, padding_mode="reflect")),
                ("Conv1d", (2, 4, 3), dict(padding=3, padding_mode="replicate")),
                ("Conv1d", (2, 4, 4), dict(padding="same", padding_mode="circular", dilation=2)),
                ("ConvTranspose3d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1, groups=2)),
                ("ConvTranspose3d", (2, 3, (2, 3, 2)), dict(stride=(1, 2, 1), bias=False, dilation=(2, 1, 1)))]


@pytest.mark.parametrize("case", range(len(CONV_MODULES)))
def test_conv_modules(device, case):
    name, args, kw = CONV_MODULES[case]
    m, t = getattr(mnn, name)(*args, **kw, device=device, dtype=minigrad.float64), \
        getattr(torch.nn, name)(*args, **kw, dtype=torch.float64)
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())
    for a in ("kernel_size", "stride", "padding", "dilation", "output_padding", "groups", "transposed",
              "padding_mode", "_reversed_padding_repeated_twice"):
        assert getattr(m, a) == getattr(t, a), a
    for (_, p), (_, q) in zip(m.named_parameters(), t.named_parameters()):
        assert tuple(p.shape) == tuple(q.shape)
    _copy_params(m, t)
    nd = len(m.kernel_size)
    shape = (2, args[0]) + (5, 6, 7)[3 - nd:]
    x = _randn(np.random.default_rng(case), *shape)
    for lead in (slice(None), 0):  # batched and unbatched
        xm = minigrad.tensor(x[lead], device=device, requires_grad=True)
        xt = torch.tensor(x[lead], requires_grad=True)
        om, ot = m(xm), t(xt)
        assert type(om.grad_fn).__name__ == type(ot.grad_fn).__name__
        np.testing.assert_allclose(om.detach().cpu().numpy(), ot.detach().numpy(), rtol=1e-10, atol=1e-10)
        g = _randn(np.random.default_rng(1), *ot.shape)
        om.backward(minigrad.tensor(g, device=device))
        ot.backward(torch.tensor(g))
        np.testing.assert_allclose(xm.grad.cpu().numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-10)
        for (_, p), (_, q) in zip(m.named_parameters(), t.named_parameters()):
            np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-9)
            p.grad = None
            q.grad = None


def test_conv3d_default_init():
    """torch's init: kaiming_uniform(a=sqrt(5)) weights and U(-1/sqrt(fan_in), 1/sqrt(fan_in)) biases."""
    minigrad.manual_seed(0)
    for m in (mnn.Conv3d(4, 8, (2, 3, 2), groups=2), mnn.ConvTranspose3d(4, 6, 3, groups=2)):
        fan_in = m.weight.shape[1] * math.prod(m.kernel_size)
        w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
        bound = 1 / math.sqrt(fan_in)
        assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
        assert np.abs(w).max() > 0.8 * bound and np.std(w) > 0.4 * bound  # spread over the range, not 0


def test_conv_transpose3d_output_size(device):
    m = mnn.ConvTranspose3d(2, 3, 3, stride=2, padding=1, device=device)
    t = torch.nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1)
    _copy_params(m, t)
    x = _randn(np.random.default_rng(0), 1, 2, 3, 4, 3).astype(np.float32)
    for size in ((5, 8, 6), (1, 3, 6, 7, 5)):
        om, ot = m(minigrad.tensor(x, device=device), output_size=size), t(torch.tensor(x), output_size=size)
        np.testing.assert_allclose(om.detach().cpu().numpy(), ot.detach().numpy(), rtol=1e-5, atol=1e-5)
    assert outcome(lambda: m(minigrad.tensor(x), output_size=(9, 8, 6))) == \
        outcome(lambda: t(torch.tensor(x), output_size=(9, 8, 6)))


POOL_MODULES = [("MaxPool3d", (2,), {}), ("MaxPool3d", ((2, 3, 2),), dict(stride=1, padding=1, dilation=(1, 1, 2),
                                                                        ceil_mode=True, return_indices=True)),
                ("AvgPool3d", (2,), {}), ("AvgPool3d", (3,), dict(stride=2, padding=1, ceil_mode=True,
                                                                  count_include_pad=False, divisor_override=4)),
                ("AdaptiveAvgPool3d", ((2, None, 3),), {}), ("AdaptiveAvgPool3d", (1,), {}),
                ("AdaptiveMaxPool3d", (2,), {}), ("AdaptiveMaxPool3d", ((3, 2, None),), dict(return_indices=True))]


@pytest.mark.parametrize("case", range(len(POOL_MODULES)))
def test_pool3d_modules(device, case):
    name, args, kw = POOL_MODULES[case]
    m, t = getattr(mnn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert repr(m) == repr(t)
    x = np.random.default_rng(case).permutation(2 * 3 * 5 * 6 * 7).reshape(2, 3, 5, 6, 7) / 11.0
    _run(m, t, [x], device)


PAD3 = [("ReflectionPad3d", (1,)), ("ReflectionPad3d", ((1, 2, 0, 1, 2, 1),)), ("ReplicationPad3d", (2,)),
        ("ReplicationPad3d", ((0, 3, 1, 0, 2, 1),)), ("CircularPad3d", ((1, 2, 2, 1, 0, 1),)), ("ZeroPad3d", (1,)),
        ("ZeroPad3d", ((1, -1, 0, 2, 1, 0),)), ("ConstantPad3d", ((1, 0, 2, 1, 0, 1), 2.5)),
        ("ConstantPad3d", (1, -1.0))]


@pytest.mark.parametrize("case", range(len(PAD3)))
@pytest.mark.parametrize("shape", [(2, 3, 3, 4, 5), (3, 3, 4, 5)])
def test_pad3d_modules(device, case, shape):
    name, args = PAD3[case]
    m, t = getattr(mnn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(m) == repr(t)
    assert m.padding == t.padding
    _run(m, t, [_randn(np.random.default_rng(case), *shape)], device)


# ---- errors ----------------------------------------------------------------------------------------

def _errors(lib, F, x, device):
    """(name, thunk) pairs of bad calls; x: a (2, 3, 5, 6, 7) float32 tensor."""
    nn = lib.nn
    kw = dict(device=device) if lib is minigrad else {}
    w = lib.ones(4, 3, 2, 2, 2, **kw)
    wt = lib.ones(3, 2, 2, 2, 2, **kw)
    y, i = F.max_pool3d(x[:, :, :4, :, :6].contiguous(), 2, return_indices=True)
    return [
        lambda: F.conv3d(x, lib.ones(4, 3, 2, 2, **kw)),
        lambda: F.conv3d(x[0, 0], w),
        lambda: F.conv3d(x, lib.ones(4, 2, 2, 2, 2, **kw)),
        lambda: F.conv3d(x, lib.ones(4, 3, 9, 2, 2, **kw)),
        lambda: F.conv3d(x, w, stride=(1, 2)),
        lambda: F.conv3d(x, w, padding="same", stride=2),
        lambda: F.conv3d(x, w, padding="foo"),
        lambda: F.conv3d(x, w, groups=2),
        lambda: F.conv3d(x, w, groups=0),
        lambda: F.conv3d(x, w, dilation=0),
        lambda: F.conv3d(x, w, padding=-1),
        lambda: F.conv3d(x, w, stride=0),
        lambda: F.conv3d(x, w, bias=lib.ones(3, **kw)),
        lambda: F.conv3d(x, w.double()),
        lambda: F.conv_transpose3d(x, wt, output_padding=2),
        lambda: F.conv_transpose3d(x, wt, output_padding=(0, 1, 2), stride=2),
        lambda: F.conv_transpose3d(x.int(), wt.int()),
        lambda: F.conv_transpose3d(x, wt, padding=5),
        lambda: F.conv_transpose3d(x.double(), wt.double(), padding=5),
        lambda: F.conv_transpose3d(x, lib.ones(3, 2, 2, 2, **kw)),
        lambda: F.conv_transpose3d(x[0, 0], wt),
        lambda: F.conv_transpose3d(x, wt, dilation=0),
        lambda: F.conv_transpose3d(x, wt.double()),
        lambda: F.max_pool3d(x, 0, stride=1),
        lambda: F.max_pool3d(x, 2, stride=0),
        lambda: F.max_pool3d(x, 2, stride=-1),
        lambda: F.max_pool3d(x, 2, padding=2),
        lambda: F.max_pool3d(x, 2, padding=-1),
        lambda: F.max_pool3d(x, 2, dilation=0),
        lambda: F.max_pool3d(x, 3, padding=2, dilation=2),
        lambda: F.max_pool3d(x, 6),
        lambda: F.max_pool3d(x, (2, 2)),
        lambda: F.max_pool3d(x, 2, stride=(1, 2)),
        lambda: F.max_pool3d(x, 2, padding=(1, 0)),
        lambda: F.max_pool3d(x, 2, dilation=(1, 2)),
        lambda: F.max_pool3d(x[0, 0, 0], 2),
        lambda: F.max_pool3d(x[:, :0], 2),
        lambda: F.max_pool3d(x[0, :0], 2),
        lambda: F.max_pool3d(x > 0, 2),
        lambda: F.avg_pool3d(x, 0, stride=1),
        lambda: F.avg_pool3d(x, 2, stride=-1),
        lambda: F.avg_pool3d(x, 2, padding=2),
        lambda: F.avg_pool3d(x, 6),
        lambda: F.avg_pool3d(x, 6, padding=3),
        lambda: F.avg_pool3d(x, (2, 2)),
        lambda: F.avg_pool3d(x, 2, stride=(1, 2)),
        lambda: F.avg_pool3d(x, 2, padding=(1, 0)),
        lambda: F.avg_pool3d(x[0, 0, 0], 2),
        lambda: F.avg_pool3d(x[:, :, :0], 2),
        lambda: F.avg_pool3d(x > 0, 2),
        lambda: F.avg_pool3d(x.int(), 2),
        lambda: F.avg_pool3d(x, 2, divisor_override=0),
        lambda: F.avg_pool3d(x, 2, divisor_override=2.5),
        lambda: F.adaptive_avg_pool3d(x, (2, 2)),
        lambda: F.adaptive_avg_pool3d(x[0, 0, 0], 2),
        lambda: F.adaptive_avg_pool3d(x, -1),
        lambda: F.adaptive_avg_pool3d(x.long(), 2),
        lambda: F.adaptive_avg_pool3d(x, "a"),
        lambda: F.adaptive_avg_pool3d(x[:, :0], 2),
        lambda: F.adaptive_max_pool3d(x, (2, 2)),
        lambda: F.adaptive_max_pool3d(x[0, 0, 0], 2),
        lambda: F.adaptive_max_pool3d(x, -1),
        lambda: F.adaptive_max_pool3d(x.long(), 2),
        lambda: F.adaptive_max_pool3d(x, "a"),
        lambda: F.adaptive_max_pool3d(x, 2.5),
        lambda: F.adaptive_max_pool3d(x[:, :0], 2),
        lambda: F.max_unpool3d(y, i.int(), 2),
        lambda: F.max_unpool2d(y[0], i[0].int(), 2),
        lambda: F.max_unpool3d(y, i[:, :2], 2),
        lambda: F.max_unpool3d(y, i * 0 + 200, 2),
        lambda: F.max_unpool2d(y[0], i[0] * 0 - 1, 2),
        lambda: F.max_unpool1d(y[0, 0, 0], i[0, 0, 0] * 0 + 50, 2),
        lambda: F.max_unpool3d(y[0, 0], i[0, 0], 2),
        lambda: F.max_unpool2d(y[0, 0, 0], i[0, 0, 0], 2),
        lambda: F.max_unpool3d(y[:, :0], i[:, :0], 2),
        lambda: F.max_unpool3d(y, i, 2, output_size=(6, 7, 7)),
        lambda: F.max_unpool3d(y, i, 2, output_size=(5, 7)),
        lambda: F.max_unpool3d(y, i, 2, stride=0),
        lambda: F.max_unpool3d(y, i, 2, padding=3),
        lambda: F.max_unpool3d(y.double(), i, (2, 2)),
        lambda: F.max_unpool3d(y.long(), i, 2),
        lambda: nn.Conv3d(3, 4, 2, padding_mode="foo"),
        lambda: nn.Conv3d(3, 4, 2, padding="full"),
        lambda: nn.Conv3d(3, 4, 2, padding="same", stride=2),
        lambda: nn.Conv3d(3, 4, 2, groups=2),
        lambda: nn.ConvTranspose3d(3, 4, 2, padding_mode="reflect"),
        lambda: nn.Conv3d(3, 4, 2, padding=5, padding_mode="reflect", **kw)(x),
        lambda: nn.Conv2d(3, 4, 2, padding=(1, 8), padding_mode="circular", **kw)(x[0, :, 0]),
        lambda: nn.Conv1d(3, 4, 2, padding=1, padding_mode="replicate", **kw)(x[0, 0, 0]),
        lambda: nn.CircularPad3d(1)(x[0, 0]),
        lambda: nn.ReflectionPad3d(5)(x),
    ]


def test_errors(device):
    xm = minigrad.tensor(np.random.default_rng(0).standard_normal((2, 3, 5, 6, 7)).astype(np.float32),
                         device=device)
    xt = torch.tensor(xm.cpu().numpy())
    got, want = _errors(minigrad, MF, xm, device), _errors(torch, TF, xt, "cpu")
    for j, (g, w) in enumerate(zip(got, want)):
        o, e = outcome(g), outcome(w)
        assert e is not None, j
        assert o == e, (j, o, e)
