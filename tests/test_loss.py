"""The fused cross-entropy op against log_softmax + indexing and, when importable, PyTorch."""
import math

import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck, gradgradcheck
from minigrad.ops.loss import cross_entropy


def _data(n=6, c=5, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, c)), rng.integers(0, c, n)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_matches_log_softmax_formula(device, reduction):
    x, t = _data()
    logits = minigrad.tensor(x, device=device, requires_grad=True)
    target = minigrad.tensor(t, device=device)
    loss = cross_entropy(logits, target, reduction)
    ref = -(logits.log_softmax(1)[minigrad.arange(6, device=device), target])
    ref = ref.mean() if reduction == "mean" else ref.sum() if reduction == "sum" else ref
    np.testing.assert_allclose(loss.tolist(), ref.tolist(), rtol=1e-12)
    g = minigrad.ones_like(loss)
    got, = minigrad.autograd.grad(loss, logits, g)
    want, = minigrad.autograd.grad(ref, logits, g)
    np.testing.assert_allclose(got.tolist(), want.tolist(), rtol=1e-10, atol=1e-12)


def test_gradcheck_and_gradgradcheck(device):
    x, t = _data(4, 3, seed=1)
    logits = minigrad.tensor(x, device=device, requires_grad=True)
    target = minigrad.tensor(t, device=device)
    assert gradcheck(lambda z: cross_entropy(z, target), (logits,))
    assert gradgradcheck(lambda z: cross_entropy(z, target, "sum"), (logits,))


def test_against_torch(device):
    torch = pytest.importorskip("torch")
    x, t = _data(8, 10, seed=2)
    logits = minigrad.tensor(x.astype(np.float32), device=device, requires_grad=True)
    loss = cross_entropy(logits, minigrad.tensor(t, device=device))
    loss.backward()
    tl = torch.tensor(x.astype(np.float32), requires_grad=True)
    tloss = torch.nn.functional.cross_entropy(tl, torch.tensor(t))
    tloss.backward()
    assert loss.dtype == minigrad.float32 and loss.grad_fn.name() == "NllLossBackward0"
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-6)
    np.testing.assert_allclose(logits.grad.tolist(), tl.grad.numpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(32, 10), (8, 300)])
def test_float32_logits_near_1e4_match_torch_to_rounding(device, reduction, shape):
    # The row max is kept apart from log(sum(exp(x - max))): a float32 logsumexp near 1e4 is
    # only good to ~5e-4, which would show in both the loss and the gradient.
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    n, c = shape
    x = rng.standard_normal(shape) * 4 + 1e4
    x[n // 2:] -= 2e4                                          # and rows near -1e4
    x[0] = np.linspace(1e4 - 80, 1e4, c)                       # probabilities down to ~1e-35
    x, t = x.astype(np.float32), rng.integers(0, c, n)
    t[0] = c - 1                                               # a loss of nearly 0
    cot = rng.standard_normal(n if reduction == "none" else ()).astype(np.float32)
    logits = minigrad.tensor(x, device=device, requires_grad=True)
    loss = cross_entropy(logits, minigrad.tensor(t, device=device), reduction)
    loss.backward(minigrad.tensor(cot, device=device))
    tl = torch.tensor(x, requires_grad=True)
    tloss = torch.nn.functional.cross_entropy(tl, torch.tensor(t), reduction=reduction)
    tloss.backward(torch.tensor(cot))
    eps = np.finfo(np.float32).eps
    for got, want in ((loss.detach().cpu().numpy(), tloss.detach().numpy()),
                      (logits.grad.cpu().numpy(), tl.grad.numpy())):
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=4 * eps, atol=8 * eps * np.abs(want).max())


def test_bad_targets(device):
    logits = minigrad.zeros(3, 4, device=device)
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        cross_entropy(logits, minigrad.tensor([0, 4, 1], device=device))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target batch_size \(2\)"):
        cross_entropy(logits, minigrad.tensor([0, 1], device=device))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Float"):
        cross_entropy(logits, minigrad.zeros(3, device=device))
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected, multi-target not supported"):
        cross_entropy(logits, minigrad.zeros(3, 1, dtype=minigrad.int64, device=device))


def test_bce_target_outside_unit_interval_raises(device):
    # torch checks the input first, then the target; nan fails either check
    F = minigrad.nn.functional
    x = minigrad.tensor([0.5, 0.5], device=device)
    for bad in (2.0, -0.1, float("nan"), float("inf")):
        with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
            F.binary_cross_entropy(x, minigrad.tensor([bad, 1.0], device=device))
        with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
            minigrad.nn.BCELoss()(x, minigrad.tensor([1.0, bad], device=device))
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(minigrad.tensor([2.0, 0.5], device=device), minigrad.tensor([2.0, 1.0], device=device))
    assert math.isnan(F.binary_cross_entropy(minigrad.zeros(0, device=device), minigrad.zeros(0, device=device)).item())


def test_bce_weight_of_another_dtype(device):
    # torch multiplies the loss by the weight in place: any weight dtype, the input's result dtype
    F = minigrad.nn.functional
    x = minigrad.tensor([0.3, 0.4], device=device, requires_grad=True)
    want = (-math.log(0.3) - 2 * math.log(0.4)) / 2
    for w in (minigrad.tensor([1, 2], device=device), minigrad.tensor([1.0, 2.0], dtype=minigrad.float64, device=device)):
        loss = minigrad.nn.BCELoss(weight=w)(x, minigrad.ones(2, device=device))
        assert loss.dtype == minigrad.float32
        np.testing.assert_allclose(loss.item(), want, rtol=1e-6)
    loss.backward()
    np.testing.assert_allclose(x.grad.tolist(), [-1 / 0.3 / 2, -2 / 0.4 / 2], rtol=1e-5)
    x64 = minigrad.tensor([0.3, 0.4], dtype=minigrad.float64, device=device)
    loss = F.binary_cross_entropy(x64, minigrad.ones(2, dtype=minigrad.float64, device=device),
                                  weight=minigrad.tensor([1.0, 2.0], device=device))
    assert loss.dtype == minigrad.float64


def test_bce_with_logits_dtype_follows_target_and_weights_cannot_grow_the_shape(device):
    F = minigrad.nn.functional
    f32, f64 = minigrad.float32, minigrad.float64
    x, t = minigrad.tensor([0.3, 0.4], device=device), minigrad.ones(2, device=device)
    w64 = minigrad.tensor([1.0, 2.0], dtype=f64, device=device)
    for kw in ({"weight": w64}, {"pos_weight": w64}, {"weight": minigrad.tensor([1, 2], device=device)}):
        for reduction in ("mean", "none"):
            assert F.binary_cross_entropy_with_logits(x, t, reduction=reduction, **kw).dtype == f32
    assert minigrad.nn.BCEWithLogitsLoss(pos_weight=w64)(x, t).dtype == f32
    assert F.binary_cross_entropy_with_logits(x, t.to(f64)).dtype == f64      # as torch: the target's
    assert F.binary_cross_entropy_with_logits(x.to(f64), t).dtype == f32
    z, o = minigrad.zeros(3, device=device), minigrad.ones(3, device=device)
    for name in ("pos_weight", "weight"):
        for shape, bcast in (((2, 3), "[2, 3]"), ((1, 1), "[1, 3]")):
            for reduction in ("none", "mean", "sum"):
                with pytest.raises(RuntimeError, match=rf"output with shape \[3\] doesn't match the broadcast "
                                                       rf"shape \{bcast}"):
                    F.binary_cross_entropy_with_logits(z, o, reduction=reduction,
                                                       **{name: minigrad.ones(*shape, device=device)})


def test_huber_result_has_the_input_dtype(device):
    F = minigrad.nn.functional
    x = minigrad.tensor([0.3, 4.0], device=device, requires_grad=True)
    t64 = minigrad.ones(2, dtype=minigrad.float64, device=device)
    for reduction in ("mean", "sum", "none"):
        assert F.huber_loss(x, t64, reduction=reduction).dtype == minigrad.float32
    assert F.huber_loss(x, t64, weight=minigrad.ones(2, device=device)).dtype == minigrad.float32
    assert F.huber_loss(x.detach().to(minigrad.float64), minigrad.ones(2, device=device)).dtype == minigrad.float64
    assert F.smooth_l1_loss(x, t64).dtype == minigrad.float64  # smooth_l1 promotes, as torch
    loss = F.huber_loss(x, t64)
    np.testing.assert_allclose(loss.item(), (0.5 * 0.7 ** 2 + (3.0 - 0.5)) / 2, rtol=1e-6)
    loss.backward()  # torch's backward raises here; minigrad's works
    np.testing.assert_allclose(x.grad.tolist(), [-0.35, 0.5], rtol=1e-6)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        F.huber_loss(minigrad.tensor([1, 2], device=device), minigrad.ones(2, device=device))
    with pytest.raises(NotImplementedError, match='"huber_cpu" not implemented for \'Long\''):
        F.huber_loss(minigrad.tensor([1, 2], device=device), minigrad.tensor([1, 2], device=device))


def test_regression_loss_with_a_non_tensor_raises_attribute_error(device):
    # torch's Python wrappers call target.size() first
    F = minigrad.nn.functional
    x = minigrad.ones(2, device=device)
    for fn in (F.mse_loss, F.l1_loss, F.huber_loss, F.smooth_l1_loss):
        with pytest.raises(AttributeError, match="'float' object has no attribute 'size'"):
            fn(x, 1.0)
        with pytest.raises(AttributeError, match="'float' object has no attribute 'size'"):
            fn(1.0, x)


_ZERO_SUM_CASES = [  # (weight, target, extra kwargs, input shape)
    ([0.0, 0.0, 1.0], [0, 1], {}, (2, 3)),
    ([-1.0, 1.0, 1.0], [1, 0], {}, (2, 3)),
    ([-1.0, 1.0, 1.0], [[1], [0]], {}, (2, 3, 1)),
    ([0.0, 0.0, 1.0], [0, -100], {}, (2, 3)),
    ([1.0, 1.0, 1.0], [-100, -100], {}, (2, 3)),          # all ignored: nan, and a zero gradient
    ([0.0, 0.0, 1.0], [0, 1], {"label_smoothing": 0.2}, (2, 3)),
    ([-1.0, 1.0, 1.0], [[1], [0]], {"label_smoothing": 0.2}, (2, 3, 1)),
]


@pytest.mark.parametrize("logits", [True, False])
@pytest.mark.parametrize("case", range(len(_ZERO_SUM_CASES)))
def test_weights_summing_to_zero_match_torch(device, logits, case):
    # torch divides by the zero weight sum: loss and gradient nan or +-inf, not a zero gradient
    torch = pytest.importorskip("torch")
    w, t, kw, shape = _ZERO_SUM_CASES[case]
    if not logits and kw:
        pytest.skip("nll_loss has no label_smoothing")
    x = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 2.0]], dtype=np.float32).reshape(shape)
    results = []
    for lib, dev in ((minigrad, device), (torch, "cpu")):
        F = lib.nn.functional
        xt = lib.tensor(x, requires_grad=True, device=dev)
        tt, wt = lib.tensor(t, device=dev), lib.tensor(w, device=dev)
        loss = (F.cross_entropy(xt, tt, weight=wt, **kw) if logits
                else F.nll_loss(F.log_softmax(xt, 1), tt, weight=wt))
        loss.backward()
        results.append((loss.item(), xt.grad.cpu().numpy() if lib is minigrad else xt.grad.numpy()))
    (got, got_g), (want, want_g) = results
    np.testing.assert_equal(got, want)  # nan and +-inf alike
    np.testing.assert_allclose(got_g, want_g, rtol=1e-6, equal_nan=True)


def test_cross_entropy_checks_in_torchs_order(device):
    F = minigrad.nn.functional
    f = lambda *s: minigrad.zeros(s, device=device)
    long_ = lambda *s: minigrad.zeros(s, dtype=minigrad.int64, device=device)
    for fn in (F.cross_entropy, F.nll_loss):
        # a float target shaped unlike the input is class indices: its dtype is checked first
        with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Float"):
            fn(minigrad.tensor([1.0, 2.0, 3.0], device=device), minigrad.tensor([0.5, 0.5], device=device))
        with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Float"):
            fn(f(2, 3), f(2), weight=f(4))
        with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
            fn(f(0, 3), long_())
        with pytest.raises(RuntimeError, match="weight tensor should be defined either for all or no classes$"):
            fn(f(2, 3, 4), long_(2, 4), weight=f(4))
        with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Float"):
            fn(f(2, 3, 4, 5), f(2, 4, 6))
        with pytest.raises(RuntimeError, match=r"ArrayRef: invalid slice, N = 1; size = 0"):
            fn(f(0, 3, 4), long_())
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)"):
        F.cross_entropy(minigrad.tensor(1.0, device=device), long_(1))
    with pytest.raises(IndexError, match="Dimension specified as 1 but tensor has no dimensions"):
        F.cross_entropy(minigrad.tensor(1.0, device=device), minigrad.tensor(0.0, device=device))
    with pytest.raises(RuntimeError, match="Expected floating point type for target with class probabilities, got Long"):
        F.cross_entropy(minigrad.tensor(1.0, device=device), long_())
    with pytest.raises(ValueError, match=r"Expected 1 or more dimensions \(got 0\)"):
        F.nll_loss(minigrad.tensor(1.0, device=device), long_(1))
    with pytest.raises(NotImplementedError, match='"log_softmax_kernel_impl" not implemented for \'Long\''):
        F.cross_entropy(long_(2, 3, 4), long_(2, 5))
    with pytest.raises(NotImplementedError, match='"nll_loss_out_frame" not implemented for \'Long\''):
        F.nll_loss(long_(2, 3), long_(2), weight=f(3))
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        F.cross_entropy(long_(2, 3), long_(2), label_smoothing=1.5)
