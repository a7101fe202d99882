"""nn.utils: gradient clipping and parameter flattening, against torch."""
import math

import numpy as np
import pytest

import minigrad
import minigrad.nn as nn


def _pair(seed=0):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(np.float32) * 3 for s in ((4, 3), (3,), (2, 2))]
    grads = [rng.standard_normal(a.shape).astype(np.float32) * 5 for a in arrays]
    ours = [minigrad.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    for p, q, g in zip(ours, theirs, grads):
        p.grad, q.grad = minigrad.tensor(g), torch.tensor(g)
    return torch, ours, theirs


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3, math.inf])
@pytest.mark.parametrize("max_norm", [0.5, 1e4])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    torch, ours, theirs = _pair()
    total = nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    ttotal = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    assert total.item() == pytest.approx(ttotal.item(), rel=1e-5)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_clip_grad_norm_edge_cases():
    p = minigrad.ones(3, requires_grad=True)
    assert nn.utils.clip_grad_norm_([p], 1.0).item() == 0.0  # no gradients at all
    p.grad = minigrad.tensor([3.0, 4.0, 0.0])
    assert nn.utils.clip_grad_norm_(p, 1.0).item() == pytest.approx(5.0)  # a single tensor
    assert np.linalg.norm(p.grad.numpy()) == pytest.approx(1.0, rel=1e-5)
    p.grad = minigrad.tensor([float("inf"), 1.0, 0.0])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` "
                                           "is non-finite"):
        nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)


def test_clip_grad_value_and_vector_round_trip():
    torch, ours, theirs = _pair(1)
    nn.utils.clip_grad_value_(ours, 0.7)
    torch.nn.utils.clip_grad_value_(theirs, 0.7)
    for p, q in zip(ours, theirs):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())
    vec = nn.utils.parameters_to_vector(ours)
    tvec = torch.nn.utils.parameters_to_vector(theirs)
    np.testing.assert_array_equal(vec.detach().numpy(), tvec.detach().numpy())
    assert vec.shape == (12 + 3 + 4,) and vec.grad_fn is not None
    model = nn.Linear(3, 2)
    new = minigrad.arange(8, dtype=minigrad.float32)
    nn.utils.vector_to_parameters(new, model.parameters())
    assert model.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and model.bias.tolist() == [6.0, 7.0]
    with pytest.raises(TypeError, match="expected torch.Tensor"):
        nn.utils.vector_to_parameters([1.0], model.parameters())
