"""minigrad.nn.functional against torch.nn.functional: values, gradients, node names and errors,
plus gradcheck/gradgradcheck in float64, numerical stability and dropout's statistics.

Comparisons run the same call on both libraries (their APIs match), so every expected value,
gradient, node name and error message comes from torch at test time.
"""
import functools
import math
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck, gradgradcheck


def _np(t):
    return t.detach().cpu().numpy()


class _OnDevice:
    """minigrad with its factories defaulting to one device, so that a call written once as
    `lib.tensor(...)` runs on that device for minigrad and on the CPU for torch."""
    _FACTORIES = ("tensor", "ones", "zeros", "rand", "randn", "full", "arange", "empty")

    def __init__(self, device):
        self._device = device

    def __getattr__(self, name):
        f = getattr(minigrad, name)
        return functools.partial(f, device=self._device) if name in self._FACTORIES else f


def compare(call, arrays, device, grads=None, rtol=1e-10, atol=1e-12, node=True, dtype=np.float64):
    """call(F, *tensors) on both libraries: same values, dtype, node name and gradients (the
    backward uses one random cotangent for both)."""
    torch = pytest.importorskip("torch")
    grads = grads if grads is not None else [np.asarray(a).dtype.kind == "f" for a in arrays]
    arrays = [np.asarray(a, dtype=dtype) if np.asarray(a).dtype.kind == "f" else np.asarray(a) for a in arrays]
    ms = [minigrad.tensor(a, device=device, requires_grad=g) for a, g in zip(arrays, grads)]
    ts = [torch.tensor(a, requires_grad=g) for a, g in zip(arrays, grads)]
    om, ot = call(F, *ms), call(torch.nn.functional, *ts)
    assert tuple(om.shape) == tuple(ot.shape)
    assert str(om.dtype).split(".")[1] == str(ot.dtype).split(".")[1]
    np.testing.assert_allclose(_np(om), ot.detach().numpy(), rtol=rtol, atol=atol)
    if node:
        assert (om.grad_fn.name() if om.grad_fn else None) == (ot.grad_fn.name() if ot.grad_fn else None)
    if ot.requires_grad:
        cot = np.random.default_rng(1).standard_normal(tuple(ot.shape)).astype(arrays[0].dtype)
        om.backward(minigrad.tensor(cot, device=device))
        ot.backward(torch.tensor(cot))
        for m, t in zip(ms, ts):
            if t.grad is None:
                assert m.grad is None
            else:
                np.testing.assert_allclose(_np(m.grad), t.grad.numpy(), rtol=rtol, atol=atol)
    return om


def same_error(call, device):
    """call(lib, F) raises the same exception type and message on both libraries."""
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # some calls warn before they fail (a target size)
        with pytest.raises(Exception) as want:
            call(torch, torch.nn.functional)
        with pytest.raises(Exception) as got:
            call(_OnDevice(device), F)
    assert type(got.value).__name__ == type(want.value).__name__, str(got.value)
    expected = str(want.value).replace("torch.Size", "minigrad.Size")
    assert str(got.value) == expected


def same_warning(call, device):
    """call(lib, F) warns with the same category and message on both libraries."""
    torch = pytest.importorskip("torch")
    msgs = []
    for lib, fn in ((torch, torch.nn.functional), (_OnDevice(device), F)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(lib, fn)
        msgs.append([(w.category.__name__, str(w.message).replace("torch.Size", "minigrad.Size"))
                     for w in caught])
    assert msgs[0] and msgs[1] == msgs[0]


def rng(seed=0):
    return np.random.default_rng(seed)


# ---- linear -----------------------------------------------------------------------------------

@pytest.mark.parametrize("xshape,bshape", [
    ((4, 5), (3,)), ((4, 5), None), ((5,), (3,)), ((5,), None), ((2, 4, 5), (3,)), ((2, 4, 5), None),
    ((2, 2, 1, 5), (3,)), ((4, 5), (4, 3)), ((4, 5), (4, 1)), ((4, 5), (1,)), ((2, 4, 5), (4, 3)),
    ((0, 5), (3,)),
], ids=["2d", "2d-nobias", "1d", "1d-nobias", "3d", "3d-nobias", "4d", "bias-2d", "bias-col", "bias-1",
        "3d-bias-2d", "empty"])
def test_linear_matches_torch(device, xshape, bshape):
    r = rng()
    arrays = [r.standard_normal(xshape), r.standard_normal((3, 5))] + ([r.standard_normal(bshape)] if bshape else [])
    compare(lambda F, *a: F.linear(*a), arrays, device)


@pytest.mark.parametrize("grads", [(True, False, False), (False, True, True), (False, False, True)])
def test_linear_gradients_only_where_asked(device, grads):
    r = rng(2)
    compare(lambda F, *a: F.linear(*a), [r.standard_normal((4, 5)), r.standard_normal((3, 5)),
                                         r.standard_normal(3)], device, grads=list(grads))


def test_linear_float32_and_without_grad(device):
    r = rng(3)
    out = compare(lambda F, *a: F.linear(*a), [r.standard_normal((6, 7)), r.standard_normal((2, 7)),
                                               r.standard_normal(2)], device, rtol=1e-5, atol=1e-6, dtype=np.float32)
    assert out.dtype == minigrad.float32
    x, w = minigrad.randn(2, 3, device=device), minigrad.randn(4, 3, device=device, requires_grad=True)
    with minigrad.no_grad():
        y = F.linear(x, w)
    assert y.grad_fn is None and not y.requires_grad


def test_linear_reads_transposed_and_strided_weights(device):
    torch = pytest.importorskip("torch")
    r = rng(4)
    wt = r.standard_normal((5, 3))  # the weight is wt.T: a non-contiguous view
    mw = minigrad.tensor(wt, device=device, requires_grad=True)
    tw = torch.tensor(wt, requires_grad=True)
    x = r.standard_normal((4, 5))
    om = F.linear(minigrad.tensor(x, device=device), mw.t())
    ot = torch.nn.functional.linear(torch.tensor(x), tw.t())
    np.testing.assert_allclose(_np(om), ot.detach().numpy(), rtol=1e-12)
    om.sum().backward()
    ot.sum().backward()
    np.testing.assert_allclose(_np(mw.grad), tw.grad.numpy(), rtol=1e-12)


def test_linear_vector_weight_is_a_matrix_vector_product(device):
    r = rng(5)
    compare(lambda F, x, w: F.linear(x, w), [r.standard_normal((4, 5)), r.standard_normal(5)], device)


def test_linear_gradcheck_and_gradgradcheck(device):
    r = rng(6)
    for xshape in ((3, 4), (2, 2, 4), (4,)):
        args = tuple(minigrad.tensor(a, device=device, requires_grad=True)
                     for a in (r.standard_normal(xshape), r.standard_normal((2, 4)), r.standard_normal(2)))
        assert gradcheck(F.linear, args)
        assert gradgradcheck(F.linear, args)


@pytest.mark.parametrize("call", [
    lambda lib, F: F.linear(lib.ones(3, 4), lib.ones(6, 5)),
    lambda lib, F: F.linear(lib.ones(2, 3, 4), lib.ones(6, 5)),
    lambda lib, F: F.linear(lib.ones(4), lib.ones(6, 5)),
    lambda lib, F: F.linear(lib.ones(3, 4), lib.ones(6, 4), lib.ones(5)),
    lambda lib, F: F.linear(lib.ones(3, 4), lib.ones(6, 4, dtype=lib.float64)),
    lambda lib, F: F.linear(lib.ones(3, 4), lib.ones(6, 4), lib.ones(6, dtype=lib.float64)),
    lambda lib, F: F.linear(lib.ones(3, 4), lib.ones(4), lib.ones(())),
    lambda lib, F: F.linear(lib.ones(3, 4), lib.ones(2, 6, 4)),
    lambda lib, F: F.linear(lib.ones(()), lib.ones(6, 4)),
    lambda lib, F: F.linear(lib.ones(3, 4), 3),
    lambda lib, F: F.linear(lib.ones(3, 4), lib.ones(6, 4), 3),
], ids=["2d", "3d", "1d", "bias", "dtype", "bias-dtype", "vector-bias", "3d-weight", "0d", "weight-type",
        "bias-type"])
def test_linear_errors(device, call):
    same_error(call, device)


def test_linear_error_message():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(3x4 and 5x6\)"):
        F.linear(minigrad.ones(3, 4), minigrad.ones(6, 5))


# ---- activations --------------------------------------------------------------------------------

ACTIVATIONS = {
    "relu": lambda F, x: F.relu(x),
    "leaky_relu": lambda F, x: F.leaky_relu(x),
    "leaky_relu-0.2": lambda F, x: F.leaky_relu(x, 0.2),
    "leaky_relu-neg": lambda F, x: F.leaky_relu(x, -0.3),
    "elu": lambda F, x: F.elu(x),
    "elu-1.7": lambda F, x: F.elu(x, alpha=1.7),
    "softplus": lambda F, x: F.softplus(x),
    "softplus-beta": lambda F, x: F.softplus(x, beta=2.0, threshold=3.0),
    "gelu-tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "gelu": lambda F, x: F.gelu(x),
    "gelu-none": lambda F, x: F.gelu(x, approximate="none"),
    "sigmoid": lambda F, x: F.sigmoid(x),
    "tanh": lambda F, x: F.tanh(x),
    "softmax": lambda F, x: F.softmax(x, dim=1),
    "softmax-0": lambda F, x: F.softmax(x, 0),
    "log_softmax": lambda F, x: F.log_softmax(x, dim=-1),
    "softmax-dtype": lambda F, x: F.softmax(x.float(), dim=1, dtype=x.dtype),
}


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activations_match_torch(device, name):
    x = rng(7).standard_normal((4, 6)) * 3
    x[0, :3] = [40.0, -40.0, 0.5]  # past softplus's threshold and far into the saturated ranges
    compare(ACTIVATIONS[name], [x], device, node=name != "softmax-dtype")


INPLACE = {
    "relu": lambda F, x: F.relu(x, inplace=True),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.2, inplace=True),
    "elu": lambda F, x: F.elu(x, 1.7, inplace=True),
    "dropout-eval": lambda F, x: F.dropout(x, 0.5, training=False, inplace=True),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_activations_match_torch(device, name):
    def call(F, x):
        y = x * 1  # a non-leaf to overwrite
        out = INPLACE[name](F, y)
        assert out is y
        return out
    compare(call, [rng(8).standard_normal((3, 5))], device)


@pytest.mark.parametrize("call", [
    lambda lib, F: F.relu(lib.ones(3, requires_grad=True), inplace=True),
    lambda lib, F: F.leaky_relu(lib.ones(3, requires_grad=True), inplace=True),
    lambda lib, F: F.leaky_relu(lib.tensor([-1, 2])),
    lambda lib, F: F.gelu(lib.ones(3), approximate="x"),
    lambda lib, F: F.leaky_relu(lib.randn(3, requires_grad=True) * 1, -0.2, inplace=True).sum().backward(),
    lambda lib, F: F.elu(lib.randn(3, requires_grad=True) * 1, -0.5, inplace=True).sum().backward(),
    lambda lib, F: F.elu(lib.tensor([-1, 2])),
    lambda lib, F: F.softplus(lib.tensor([-1, 2])),
    lambda lib, F: F.gelu(lib.tensor([-1, 2]), approximate="tanh"),
], ids=["relu-leaf", "leaky-leaf", "leaky-int", "gelu-mode", "leaky-inplace-negative-slope",
        "elu-inplace-negative-alpha", "elu-int", "softplus-int", "gelu-int"])
def test_activation_errors(device, call):
    same_error(call, device)


def test_relu_keeps_integer_dtype(device):
    out = F.relu(minigrad.tensor([-1, 2], device=device))
    assert out.dtype == minigrad.int64 and out.tolist() == [0, 2]


def test_softmax_without_dim_warns_and_picks_torchs_dim(device):
    for shape in ((5,), (2, 5), (2, 3, 4), (2, 3, 4, 5)):
        same_warning(lambda lib, F: F.softmax(lib.ones(*shape)), device)
        same_warning(lambda lib, F: F.log_softmax(lib.ones(*shape)), device)
    x = rng(9).standard_normal((2, 3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(lambda F, x: F.softmax(x), [x], device)
        compare(lambda F, x: F.log_softmax(x), [x[0]], device)


def test_exact_gelu_follows_torch_roundings_around_erf():
    """gelu(x) = x * 0.5 * (1 + erf(x / sqrt(2))) and its gradient g * (cdf + x * pdf), rounded in
    torch's order: in float64, where erf comes from the C library in both, the bits agree
    wherever torch's erf and exp give the C library's."""
    import math
    x = rng(13).standard_normal(4000) * 3
    t = minigrad.tensor(x, requires_grad=True)
    y = F.gelu(t)
    assert y.grad_fn.name() == "GeluBackward0"
    erf = np.array([math.erf(v) for v in x * math.sqrt(0.5)])
    assert y.detach().numpy().tobytes() == (x * 0.5 * (1 + erf)).tobytes()
    y.backward(minigrad.tensor(np.full_like(x, 0.75)))
    pdf = np.exp(x * x * -0.5) * (2 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5)
    assert t.grad.numpy().tobytes() == (0.75 * ((erf + 1) * 0.5 + x * pdf)).tobytes()


@pytest.mark.parametrize("fn", [
    lambda x: F.leaky_relu(x, 0.1), lambda x: F.elu(x, 1.3), lambda x: F.softplus(x, 1.5, 2.0),
    lambda x: F.gelu(x, approximate="tanh"), lambda x: F.gelu(x), lambda x: F.elu(x * 1, 0.5, inplace=True),
    lambda x: F.leaky_relu(x * 1, 0.3, inplace=True),
], ids=["leaky_relu", "elu", "softplus", "gelu-tanh", "gelu", "elu_", "leaky_relu_"])
def test_activation_gradcheck_and_gradgradcheck(device, fn):
    x = rng(10).uniform(0.2, 2.0, (3, 4)) * rng(11).choice([-1.0, 1.0], (3, 4))  # away from the kinks
    t = minigrad.tensor(x, device=device, requires_grad=True)
    assert gradcheck(fn, (t,))
    assert gradgradcheck(fn, (t,))


# ---- dropout --------------------------------------------------------------------------------------

def test_dropout_statistics_and_scaling(device):
    p, n = 0.3, 200_000
    x = minigrad.ones(n, device=device)
    y = _np(F.dropout(x, p))
    kept = y != 0
    # the fraction dropped is binomial: its standard deviation is sqrt(p (1 - p) / n) ~ 0.001
    assert abs((1 - kept.mean()) - p) < 0.01
    np.testing.assert_allclose(y[kept], 1 / (1 - p), rtol=1e-6)
    assert abs(y.mean() - 1.0) < 0.02  # the scaling keeps the expectation


def test_dropout_gradient_is_the_scaled_mask(device):
    x = minigrad.tensor(rng(12).standard_normal((50, 40)), device=device, requires_grad=True)
    y = F.dropout(x, 0.4)
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    mask = _np(y) / _np(x)
    np.testing.assert_allclose(_np(x.grad), mask, rtol=1e-12)
    assert set(np.round(np.unique(mask), 12)) <= {0.0, round(1 / 0.6, 12)}


def test_dropout_is_reproducible_with_manual_seed(device):
    x = minigrad.ones(1000, device=device)
    minigrad.manual_seed(123)
    a = _np(F.dropout(x, 0.5))
    minigrad.manual_seed(123)
    b = _np(F.dropout(x, 0.5))
    c = _np(F.dropout(x, 0.5))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(b, c)


def test_dropout_eval_and_edge_probabilities(device):
    x = minigrad.randn(20, device=device, requires_grad=True)
    assert F.dropout(x, 0.5, training=False) is x  # torch returns the input itself
    assert F.dropout(x, 0.0) is x
    y = F.dropout(x, 1.0)
    assert not _np(y).any()
    y.sum().backward()
    assert not _np(x.grad).any()


def test_dropout_inplace(device):
    x = minigrad.ones(1000, device=device, requires_grad=True)
    h = x * 2
    out = F.dropout(h, 0.5, inplace=True)
    assert out is h and h._version == 1
    assert set(np.unique(_np(h))) <= {0.0, 4.0}
    h.sum().backward()
    np.testing.assert_allclose(_np(x.grad), _np(h))  # d(2 x mask / 0.5)/dx = h where x = 1
    z = minigrad.ones(10, device=device)
    assert F.dropout(z, 0.5, inplace=True) is z


def test_dropout_gradcheck_with_a_fixed_mask(device):
    x = minigrad.tensor(rng(13).standard_normal((4, 5)), device=device, requires_grad=True)

    def fn(t):
        minigrad.manual_seed(7)
        return F.dropout(t, 0.35)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("call", [
    lambda lib, F: F.dropout(lib.ones(3), 1.5),
    lambda lib, F: F.dropout(lib.ones(3), -0.1),
    lambda lib, F: F.dropout(lib.ones(3).long(), 0.5),
    lambda lib, F: F.dropout(lib.ones(3, requires_grad=True), 0.5, inplace=True),
], ids=["p>1", "p<0", "integer", "leaf-inplace"])
def test_dropout_errors(device, call):
    same_error(call, device)


def test_dropout_error_message():
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(minigrad.ones(3), 1.5)


# ---- regression losses ------------------------------------------------------------------------------

REDUCTIONS = ["mean", "sum", "none"]
REGRESSION = {
    "mse": lambda F, x, t, red: F.mse_loss(x, t, reduction=red),
    "l1": lambda F, x, t, red: F.l1_loss(x, t, reduction=red),
    "smooth_l1": lambda F, x, t, red: F.smooth_l1_loss(x, t, reduction=red),
    "smooth_l1-beta": lambda F, x, t, red: F.smooth_l1_loss(x, t, reduction=red, beta=0.4),
    "smooth_l1-beta0": lambda F, x, t, red: F.smooth_l1_loss(x, t, reduction=red, beta=0.0),
    "huber": lambda F, x, t, red: F.huber_loss(x, t, reduction=red),
    "huber-delta": lambda F, x, t, red: F.huber_loss(x, t, reduction=red, delta=0.3),
}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", list(REGRESSION))
def test_regression_losses_match_torch(device, name, reduction):
    r = rng(14)
    x, t = r.standard_normal((4, 5)), r.standard_normal((4, 5))
    fn = REGRESSION[name]
    compare(lambda F, x, t: fn(F, x, t, reduction), [x, t], device)  # target requires grad too
    compare(lambda F, x, t: fn(F, x, t, reduction), [x, t], device, grads=[True, False])
    compare(lambda F, x, t: fn(F, x, t, reduction), [x, t], device, rtol=1e-5, atol=1e-6, dtype=np.float32)


@pytest.mark.parametrize("name", ["mse", "l1", "smooth_l1", "huber"])
def test_regression_losses_broadcast_with_torchs_warning(device, name):
    fn = REGRESSION[name]
    same_warning(lambda lib, F: fn(F, lib.ones(3, 2), lib.ones(3, 1), "mean"), device)
    r = rng(15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for red in REDUCTIONS:
            compare(lambda F, x, t: fn(F, x, t, red), [r.standard_normal((4, 3)), r.standard_normal((4, 1))], device)
            compare(lambda F, x, t: fn(F, x, t, red), [r.standard_normal(3), r.standard_normal((2, 3))], device)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse", "l1", "huber"])
def test_weighted_regression_losses_match_torch(device, name, reduction):
    r = rng(16)
    call = {"mse": lambda F, x, t, w: F.mse_loss(x, t, reduction=reduction, weight=w),
            "l1": lambda F, x, t, w: F.l1_loss(x, t, reduction=reduction, weight=w),
            "huber": lambda F, x, t, w: F.huber_loss(x, t, reduction=reduction, weight=w, delta=0.5)}[name]
    compare(call, [r.standard_normal((3, 4)), r.standard_normal((3, 4)), r.random((3, 4))], device, node=False)


def test_legacy_reduction_flags(device):
    same_warning(lambda lib, F: F.mse_loss(lib.ones(2), lib.zeros(2), size_average=False), device)
    r = rng(17)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kw in ({"size_average": False}, {"reduce": False}, {"size_average": True, "reduce": True}):
            compare(lambda F, x, t: F.mse_loss(x, t, **kw), [r.standard_normal(4), r.standard_normal(4)], device)
            compare(lambda F, x, t: F.cross_entropy(x, t, **kw), [r.standard_normal((3, 4)), np.array([0, 3, 1])],
                    device)


def test_mse_loss_mixed_dtypes_and_empty(device):
    compare(lambda F, x, t: F.mse_loss(x, t.long()), [rng(18).standard_normal(5), np.arange(5.0)], device,
            grads=[True, False], rtol=1e-5, dtype=np.float32)
    out = F.mse_loss(minigrad.zeros(0, device=device), minigrad.zeros(0, device=device))
    assert math.isnan(out.item())


@pytest.mark.parametrize("call", [
    lambda lib, F: F.mse_loss(lib.ones(3, 2), lib.ones(2, 2)),
    lambda lib, F: F.mse_loss(lib.ones(3), lib.ones(3), reduction="avg"),
    lambda lib, F: F.mse_loss(lib.ones(3).long(), lib.ones(3).long()),
    lambda lib, F: F.mse_loss(lib.ones(3), lib.ones(3), weight=lib.ones(2)),
    lambda lib, F: F.mse_loss(lib.ones(3), lib.ones(3), weight=lib.ones(3), reduction="avg"),
    lambda lib, F: F.l1_loss(lib.ones(3), lib.ones(3), reduction="avg"),
    lambda lib, F: F.smooth_l1_loss(lib.ones(3), lib.ones(3), beta=-1.0),
    lambda lib, F: F.huber_loss(lib.ones(3), lib.ones(3), delta=0.0),
    lambda lib, F: F.huber_loss(lib.ones(3), lib.ones(3), reduction="x"),
    lambda lib, F: F.l1_loss(lib.ones(3).long(), lib.ones(3).long()),
    lambda lib, F: F.smooth_l1_loss(lib.ones(3).long(), lib.ones(3).long()),
    lambda lib, F: F.huber_loss(lib.ones(3).long(), lib.ones(3).long()),
], ids=["shapes", "reduction", "integer", "weight-size", "weight-reduction", "l1-reduction", "beta", "delta",
        "huber-reduction", "l1-integer", "smooth-l1-integer", "huber-integer"])
def test_regression_errors(device, call):
    same_error(call, device)


def test_reduction_error_message():
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        F.mse_loss(minigrad.ones(2), minigrad.ones(2), reduction="avg")


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_gradcheck_and_gradgradcheck(device, reduction):
    r = rng(19)
    x, t = (minigrad.tensor(r.standard_normal(s), device=device, requires_grad=True) for s in ((3, 4), (3, 4)))
    for fn in (lambda a, b: F.mse_loss(a, b, reduction=reduction),
               lambda a, b: F.smooth_l1_loss(a, b, reduction=reduction, beta=0.7),
               lambda a, b: F.huber_loss(a, b, reduction=reduction, delta=0.6)):
        assert gradcheck(fn, (x, t))
        assert gradgradcheck(fn, (x, t))
    tb = minigrad.tensor(r.standard_normal((1, 4)), device=device, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradgradcheck(lambda a, b: F.mse_loss(a, b, reduction=reduction), (x, tb))


# ---- cross-entropy and NLL over class indices ----------------------------------------------------------

CE_OPTIONS = {
    "plain": {},
    "weight": {"weight": True},
    "ignore": {"ignore": True},
    "ignore_index=2": {"ignore_index": 2},
    "smoothing": {"label_smoothing": 0.2},
    "weight+ignore": {"weight": True, "ignore": True},
    "weight+smoothing": {"weight": True, "label_smoothing": 0.3},
    "all": {"weight": True, "ignore": True, "label_smoothing": 0.15},
    "negative-smoothing": {"label_smoothing": -0.1},  # torch applies smoothing only when > 0
}


CE_SHAPES = {"2d": (6, 5), "4d": (2, 5, 3, 2), "3d": (2, 5, 3), "unbatched": (5,)}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape,option", [
    pytest.param(shape, option, id=f"{name}-{option}") for name, shape in CE_SHAPES.items() for option in CE_OPTIONS
    if not (name == "unbatched" and CE_OPTIONS[option].get("ignore"))  # one target: nothing left if ignored
])
def test_cross_entropy_matches_torch(device, shape, option, reduction):
    opts = CE_OPTIONS[option]
    r = rng(20)
    c = shape[1] if len(shape) > 1 else shape[0]
    t = r.integers(0, c, (shape[0],) + shape[2:] if len(shape) > 1 else ())
    if opts.get("ignore"):
        t.reshape(-1)[1] = -100
    arrays = [r.standard_normal(shape) * 2, t] + ([r.random(c) + 0.2] if opts.get("weight") else [])
    kw = {k: v for k, v in opts.items() if k in ("ignore_index", "label_smoothing")}
    grads = [True, False, False][:len(arrays)]
    compare(lambda F, x, t, w=None: F.cross_entropy(x, t, weight=w, reduction=reduction, **kw), arrays, device,
            grads=grads, node=not (len(shape) == 3 and reduction == "none"))  # torch: a view of a 4-d loss
    if not kw.get("label_smoothing"):
        compare(lambda F, x, t, w=None: F.nll_loss(F.log_softmax(x, 1 if len(shape) > 1 else 0), t, weight=w,
                                                   reduction=reduction, **kw),
                arrays, device, grads=grads, node=False)
        compare(lambda F, x, t, w=None: F.nll_loss(x, t, weight=w, reduction=reduction, **kw), arrays, device,
                grads=grads, node=not (len(shape) == 3 and reduction == "none"))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_float32(device, reduction):
    r = rng(21)
    arrays = [r.standard_normal((16, 10)), r.integers(0, 10, 16)]
    compare(lambda F, x, t: F.cross_entropy(x, t, reduction=reduction), arrays, device, rtol=1e-5, atol=1e-6,
            dtype=np.float32)
    arrays.append(r.random(10))
    compare(lambda F, x, t, w: F.cross_entropy(x, t, w, reduction=reduction, label_smoothing=0.1), arrays, device,
            grads=[True, False, False], rtol=1e-5, atol=1e-6, dtype=np.float32)


def test_cross_entropy_fast_and_general_paths_agree(device):
    r = rng(22)
    x = minigrad.tensor(r.standard_normal((8, 6)), device=device, requires_grad=True)
    t = minigrad.tensor(r.integers(0, 6, 8), device=device)
    fast = F.cross_entropy(x, t)  # the fused primitives
    general = F.cross_entropy(x, t, weight=minigrad.ones(6, dtype=minigrad.float64, device=device))
    np.testing.assert_allclose(fast.item(), general.item(), rtol=1e-13)
    g1, = minigrad.autograd.grad(fast, x)
    g2, = minigrad.autograd.grad(general, x)
    np.testing.assert_allclose(_np(g1), _np(g2), rtol=1e-12, atol=1e-15)


def test_cross_entropy_all_ignored_is_nan_with_zero_gradient(device):
    torch = pytest.importorskip("torch")
    for kw in ({}, {"label_smoothing": 0.2}):
        x = minigrad.randn(3, 4, device=device, requires_grad=True)
        tx = torch.tensor(_np(x), requires_grad=True)
        t = [-100, -100, -100]
        loss = F.cross_entropy(x, minigrad.tensor(t, device=device), **kw)
        tloss = torch.nn.functional.cross_entropy(tx, torch.tensor(t), **kw)
        assert math.isnan(loss.item()) and math.isnan(tloss.item())
        loss.backward()
        tloss.backward()
        np.testing.assert_array_equal(_np(x.grad), tx.grad.numpy())
    loss = F.cross_entropy(minigrad.randn(3, 4, device=device), minigrad.tensor([-100] * 3, device=device),
                           reduction="sum")
    assert loss.item() == 0.0


def test_cross_entropy_is_stable_for_huge_logits(device):
    logits = np.array([[1e4, 0.0, -1e4], [0.0, 1e4, 1e4], [-1e4, -1e4, -1e4]])
    target = np.array([0, 2, 1])
    probs = np.array([[1.0, 0, 0], [0, 0.5, 0.5], [0.2, 0.3, 0.5]])
    for dtype, atol in ((np.float64, 1e-9), (np.float32, 1e-6)):
        for kw in ({"reduction": "none"}, {"label_smoothing": 0.1}, {"reduction": "sum", "label_smoothing": 0.2}):
            out = compare(lambda F, x, t: F.cross_entropy(x, t, **kw), [logits, target], device,
                          rtol=1e-6, atol=atol, dtype=dtype)
            assert np.isfinite(_np(out)).all()
        compare(lambda F, x, t: F.cross_entropy(x, t, reduction="none"), [logits, probs], device, rtol=1e-6,
                atol=atol, dtype=dtype)
        compare(lambda F, x, t: F.nll_loss(F.log_softmax(x, 1), t), [logits, target], device, rtol=1e-6, atol=atol,
                dtype=dtype, node=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("option", ["plain", "weight", "smoothing", "weight+smoothing"])
@pytest.mark.parametrize("shape", [(4, 5), (2, 5, 3), (5,)], ids=["2d", "3d", "unbatched"])
def test_cross_entropy_probability_targets_match_torch(device, shape, option, reduction):
    r = rng(23)
    opts = CE_OPTIONS[option]
    p = r.random(shape)
    arrays = [r.standard_normal(shape), p / p.sum(axis=1 if len(shape) > 1 else 0, keepdims=True)]
    if opts.get("weight"):
        arrays.append(r.random(5) + 0.2)
    ls = opts.get("label_smoothing", 0.0)
    grads = [True, True, False][:len(arrays)]
    compare(lambda F, x, t, w=None: F.cross_entropy(x, t, weight=w, reduction=reduction, label_smoothing=ls),
            arrays, device, grads=grads, node=False)


def test_cross_entropy_gradcheck_and_gradgradcheck(device):
    r = rng(24)
    x = minigrad.tensor(r.standard_normal((4, 5)), device=device, requires_grad=True)
    t = minigrad.tensor([1, -100, 4, 0], device=device)
    t_ok = minigrad.tensor([1, 3, 4, 0], device=device)
    w = minigrad.tensor(r.random(5) + 0.2, device=device)
    x4 = minigrad.tensor(r.standard_normal((2, 3, 2, 2)), device=device, requires_grad=True)
    t4 = minigrad.tensor(r.integers(0, 3, (2, 2, 2)), device=device)
    cases = [
        (lambda a: F.cross_entropy(a, t_ok), x),  # the fused fast path
        (lambda a: F.cross_entropy(a, t_ok, reduction="none"), x),
        (lambda a: F.cross_entropy(a, t, weight=w, label_smoothing=0.2), x),
        (lambda a: F.cross_entropy(a, t, weight=w, reduction="none", label_smoothing=0.1), x),
        (lambda a: F.nll_loss(a, t, weight=w), x),
        (lambda a: F.cross_entropy(a, t4, label_smoothing=0.3, reduction="sum"), x4),
    ]
    for fn, inp in cases:
        assert gradcheck(fn, (inp,))
        assert gradgradcheck(fn, (inp,))
    p = minigrad.tensor(r.random((4, 5)), device=device, requires_grad=True)
    for red in REDUCTIONS:
        fn = functools.partial(F.cross_entropy, weight=w, reduction=red, label_smoothing=0.2)
        assert gradcheck(fn, (x, p))
        assert gradgradcheck(fn, (x, p))


@pytest.mark.parametrize("call", [
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.zeros(3)),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.zeros(3, dtype=lib.int32)),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.zeros(3, 5).long()),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.zeros(2).long()),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.zeros(3, 1).long()),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.tensor([0, 5, 1])),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.tensor([0, -1, 1])),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.tensor([0, 7, 1]), ignore_index=2),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.tensor(1)),
    lambda lib, F: F.cross_entropy(lib.randn(5), lib.tensor([1, 2])),
    lambda lib, F: F.cross_entropy(lib.randn(()), lib.tensor(2)),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.tensor([0, 2, 1]), weight=lib.ones(4)),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.tensor([0, 2, 1]), weight=lib.ones(1, 5)),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.tensor([0, 2, 1]), weight=lib.ones(5, dtype=lib.float64)),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.tensor([0, 2, 1]), weight=lib.ones(5, requires_grad=True)),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.tensor([0, 2, 1]), label_smoothing=1.5),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.tensor([0, 2, 1]), reduction="avg"),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.rand(3, 5), ignore_index=1),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.rand(3, 5), label_smoothing=1.5),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.rand(3, 5), weight=lib.ones(4)),
    lambda lib, F: F.cross_entropy(lib.randn(3, 5), lib.rand(3, 4)),
    lambda lib, F: F.cross_entropy(lib.randn(2, 3, 4, 5), lib.zeros(2, 4, 6).long()),
    lambda lib, F: F.cross_entropy(lib.randn(2, 3, 4, 5), lib.zeros(2, 4).long()),
    lambda lib, F: F.cross_entropy(lib.randn(2, 3, 4), lib.zeros(2, 5).long()),
    lambda lib, F: F.cross_entropy(lib.zeros(3, 5).long(), lib.zeros(3).long()),
    lambda lib, F: F.nll_loss(lib.randn(3, 5), lib.tensor([0, 5, 1])),
    lambda lib, F: F.nll_loss(lib.tensor(1.0), lib.tensor(0)),
    lambda lib, F: F.nll_loss(lib.randn(2, 3, 4), lib.tensor([0, 1])),
    lambda lib, F: F.nll_loss(lib.randn(3, 5), lib.tensor([0, 1])),
    lambda lib, F: F.nll_loss(lib.randn(3, 5), lib.tensor([0, 1, 2]), weight=lib.ones(3)),
], ids=["float-target", "int32-target", "long-prob-target", "batch", "multi-target", "target-5", "target--1",
        "target-7-ignore-2", "0d-target", "unbatched-2-targets", "0d-input", "weight-size", "weight-2d",
        "weight-dtype", "weight-grad", "smoothing-1.5", "reduction", "prob-ignore", "prob-smoothing",
        "prob-weight", "prob-shape", "4d-size", "4d-target-dims", "3d-size", "integer-input", "nll-target-5",
        "nll-0d", "nll-3d-target", "nll-batch", "nll-weight-size"])
def test_cross_entropy_and_nll_errors(device, call):
    same_error(call, device)


def test_cross_entropy_error_messages(device):
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        F.cross_entropy(minigrad.zeros(3, 5, device=device), minigrad.tensor([0, 5, 1], device=device))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target batch_size \(2\)"):
        F.cross_entropy(minigrad.zeros(3, 5, device=device), minigrad.tensor([0, 1], device=device))


def test_ignored_targets_may_be_out_of_range(device):
    compare(lambda F, x, t: F.cross_entropy(x, t, ignore_index=9), [rng(25).standard_normal((3, 4)),
                                                                    np.array([9, 1, 3])], device)


# ---- binary cross-entropy ------------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [None, (4, 5), (5,)], ids=["noweight", "weight", "weight-bcast"])
def test_binary_cross_entropy_matches_torch(device, reduction, weight):
    r = rng(26)
    arrays = [r.uniform(0.02, 0.98, (4, 5)), r.random((4, 5))] + ([r.random(weight)] if weight else [])
    grads = [True, True, False][:len(arrays)]
    compare(lambda F, x, t, w=None: F.binary_cross_entropy(x, t, w, reduction=reduction), arrays, device, grads=grads)
    compare(lambda F, x, t, w=None: F.binary_cross_entropy(x, t, w, reduction=reduction), arrays, device,
            grads=[True, False, False][:len(arrays)], rtol=1e-5, atol=1e-6, dtype=np.float32)


def test_binary_cross_entropy_at_zero_and_one(device):
    # torch clamps each log at -100 and the gradient's denominator at 1e-12
    x, t = np.array([0.0, 1.0, 0.0, 1.0, 0.5]), np.array([0.0, 1.0, 1.0, 0.0, 0.3])
    out = compare(lambda F, x, t: F.binary_cross_entropy(x, t, reduction="none"), [x, t], device,
                  grads=[True, False], rtol=1e-12, atol=0)
    np.testing.assert_allclose(_np(out)[2:4], 100.0)
    compare(lambda F, x, t: F.binary_cross_entropy(x, t), [x, t], device, grads=[True, False], dtype=np.float32,
            rtol=1e-6, atol=0)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("option", ["plain", "weight", "pos_weight", "both"])
def test_binary_cross_entropy_with_logits_matches_torch(device, reduction, option):
    r = rng(27)
    arrays = [r.standard_normal((4, 5)) * 4, r.random((4, 5))]
    w = r.random((4, 1)) if option in ("weight", "both") else None
    pw = r.random(5) * 3 if option in ("pos_weight", "both") else None
    extra = [a for a in (w, pw) if a is not None]

    def call(F, x, t, *rest):
        it = iter(rest)
        ww = next(it) if w is not None else None
        pp = next(it) if pw is not None else None
        return F.binary_cross_entropy_with_logits(x, t, ww, reduction=reduction, pos_weight=pp)
    compare(call, arrays + extra, device, grads=[True, True] + [False] * len(extra))
    compare(call, arrays + extra, device, grads=[True, False] + [False] * len(extra), rtol=1e-5, atol=1e-6,
            dtype=np.float32)


def test_binary_cross_entropy_with_logits_is_stable_for_huge_logits(device):
    x = np.array([1e4, -1e4, 1e4, -1e4, 50.0, -50.0, 0.0])
    t = np.array([1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.5])
    for dtype in (np.float64, np.float32):
        out = compare(lambda F, x, t: F.binary_cross_entropy_with_logits(x, t, reduction="none"), [x, t], device,
                      rtol=1e-6, atol=1e-30, dtype=dtype)
        assert np.isfinite(_np(out)).all()
        compare(lambda F, x, t, pw: F.binary_cross_entropy_with_logits(x, t, pos_weight=pw, reduction="none"),
                [x, t, np.full(7, 2.5)], device, grads=[True, True, False], rtol=1e-6, atol=1e-30, dtype=dtype)


def test_binary_cross_entropy_gradcheck_and_gradgradcheck(device):
    r = rng(28)
    x = minigrad.tensor(r.uniform(0.1, 0.9, (3, 4)), device=device, requires_grad=True)
    t = minigrad.tensor(r.random((3, 4)), device=device, requires_grad=True)
    z = minigrad.tensor(r.standard_normal((3, 4)) * 3, device=device, requires_grad=True)
    w = minigrad.tensor(r.random(4), device=device)
    pw = minigrad.tensor(r.random(4) * 2, device=device)
    for red in REDUCTIONS:
        fn = functools.partial(F.binary_cross_entropy, weight=w, reduction=red)
        assert gradcheck(fn, (x, t))
        assert gradgradcheck(fn, (x, t))
        fn = functools.partial(F.binary_cross_entropy_with_logits, weight=w, pos_weight=pw, reduction=red)
        assert gradcheck(fn, (z, t))
        assert gradgradcheck(fn, (z, t))
    assert gradgradcheck(F.binary_cross_entropy_with_logits, (z, t))


@pytest.mark.parametrize("call", [
    lambda lib, F: F.binary_cross_entropy(lib.ones(3) * 1.5, lib.ones(3)),
    lambda lib, F: F.binary_cross_entropy(lib.ones(3) * -0.5, lib.ones(3)),
    lambda lib, F: F.binary_cross_entropy(lib.ones(3) * float("nan"), lib.ones(3)),
    lambda lib, F: F.binary_cross_entropy(lib.ones(3, 2) / 2, lib.ones(3, 1)),
    lambda lib, F: F.binary_cross_entropy(lib.ones(3, 2) / 2, lib.ones(3, 2), weight=lib.ones(3)),
    lambda lib, F: F.binary_cross_entropy(lib.ones(3, 2) / 2, lib.ones(3, 2), weight=lib.ones(4, 3, 2)),
    lambda lib, F: F.binary_cross_entropy(lib.ones(3) / 2, lib.ones(3), weight=lib.ones(3, requires_grad=True)),
    lambda lib, F: F.binary_cross_entropy(lib.ones(3) / 2, lib.ones(3, dtype=lib.float64)),
    lambda lib, F: F.binary_cross_entropy(lib.ones(3) / 2, lib.ones(3), reduction="x"),
    lambda lib, F: F.binary_cross_entropy_with_logits(lib.ones(3, 2), lib.ones(3, 1)),
    lambda lib, F: F.binary_cross_entropy_with_logits(lib.ones(3, 2), lib.ones(3, 2), pos_weight=lib.ones(3)),
    lambda lib, F: F.binary_cross_entropy_with_logits(lib.ones(3, 2), lib.ones(3, 2), weight=lib.ones(3)),
    lambda lib, F: F.binary_cross_entropy_with_logits(lib.ones(3), lib.ones(3),
                                                      pos_weight=lib.ones(3, requires_grad=True)),
    lambda lib, F: F.binary_cross_entropy_with_logits(lib.ones(3), lib.ones(3).long()),
    lambda lib, F: F.binary_cross_entropy_with_logits(lib.ones(3).long(), lib.ones(3)),
    lambda lib, F: F.binary_cross_entropy(lib.ones(3).long(), lib.ones(3).long()),
], ids=["above-1", "below-0", "nan", "shape", "weight-bcast", "weight-grows", "weight-grad", "target-dtype",
        "reduction", "logits-shape", "pos-weight-bcast", "logits-weight-bcast", "pos-weight-grad",
        "logits-integer-target", "logits-integer-input", "integer-input"])
def test_binary_cross_entropy_errors(device, call):
    same_error(call, device)


def test_binary_cross_entropy_error_message(device):
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(minigrad.tensor([0.5, 1.5], device=device), minigrad.ones(2, device=device))


@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("xshape", [(3,), (2, 3), (4, 2, 3)])
def test_linear_dtype_mismatch_message_matches_torch(with_bias, xshape):
    torch = pytest.importorskip("torch")
    bias = minigrad.ones(2) if with_bias else None
    tbias = torch.ones(2) if with_bias else None
    with pytest.raises(RuntimeError) as ours:
        F.linear(minigrad.ones(*xshape, dtype=minigrad.float64), minigrad.ones(2, 3), bias)
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.functional.linear(torch.ones(*xshape, dtype=torch.float64), torch.ones(2, 3), tbias)
    assert str(ours.value) == str(theirs.value)


def test_softmax_of_integer_or_bool_tensors_raises_torchs_error():
    x = minigrad.tensor([[1, 0], [0, 1]])
    for name in ("softmax", "log_softmax"):
        for fn in (getattr(F, name), getattr(minigrad, name)):
            for t, legacy in ((x, "Long"), (x.to(minigrad.int32), "Int"), (x.to(minigrad.bool), "Bool")):
                with pytest.raises(NotImplementedError, match=f'"{name}_lastdim_kernel_impl" not implemented '
                                                              f"for '{legacy}'"):
                    fn(t, 1)
                with pytest.raises(NotImplementedError, match=f'"{name}_kernel_impl" not implemented for '
                                                              f"'{legacy}'"):
                    fn(t, 0)
            with pytest.raises(NotImplementedError, match=f'"{name}_lastdim_kernel_impl"'):
                fn(minigrad.tensor(1), 0)
            with pytest.raises(IndexError, match="Dimension out of range"):
                fn(x, 5)
            empty = fn(minigrad.zeros(0, 2, dtype=minigrad.int64), 1)  # torch returns it as is
            assert empty.shape == (0, 2) and empty.dtype == minigrad.int64
            np.testing.assert_allclose(fn(x, 1, dtype=minigrad.float32).tolist(),
                                       fn(x.float(), 1).tolist())
    with pytest.raises(NotImplementedError, match='"softmax_lastdim_kernel_impl" not implemented for \'Long\''):
        minigrad.nn.Softmax(1)(x)
    with pytest.raises(NotImplementedError, match='"log_softmax_lastdim_kernel_impl" not implemented for \'Long\''):
        minigrad.nn.LogSoftmax(1)(x)


def test_relu_of_bool_tensors_raises_torchs_error():
    b = minigrad.tensor([True, False])
    for fn in (minigrad.relu, F.relu, lambda t: F.relu(t, inplace=True), minigrad.nn.ReLU()):
        for t in (b, minigrad.tensor(True), minigrad.zeros(0, dtype=minigrad.bool)):
            with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu"):
                fn(t)
    for fn in (F.leaky_relu, lambda t: F.leaky_relu(t, inplace=True), minigrad.nn.LeakyReLU()):
        with pytest.raises(NotImplementedError, match="\"leaky_relu_cpu\" not implemented for 'Bool'"):
            fn(b)
    assert F.relu(minigrad.tensor([1, -2])).tolist() == [1, 0]
