"""The fused cross-entropy op against log_softmax + indexing and, when importable, PyTorch."""
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
