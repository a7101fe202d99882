"""Channel-wise and alpha dropout, RReLU, RMSNorm, pdist, TripletMarginWithDistanceLoss, the
in-place functional forms and the torch.* spellings of nn.functional ops (minigrad/ops/nn_extras.py):
deterministic results against torch, random ones by the structure torch's have."""
import math

import numpy as np
import pytest

import minigrad
import minigrad.nn as nn
import minigrad.nn.functional as F
from test_api_sweep import outcome, warned
from test_nn_functional import _OnDevice
from test_tensor_extras import _close, _on_cpu

torch = pytest.importorskip("torch")


def same(program, device, rtol=1e-6):
    _LEAVES.clear()
    got = _on_cpu(outcome(program, _OnDevice(device), device))
    _LEAVES.clear()
    want = outcome(program, torch)
    assert _close(got, want, rtol), (got, want)


_LEAVES = {}


def _x(L, shape, seed=0):
    """A leaf: within one program the same tensor for the same shape and seed, so _grads'
    gradients are those of the leaf the outputs were computed from."""
    key = (L is torch, tuple(shape), seed)
    if key not in _LEAVES:
        data = np.random.default_rng(seed).standard_normal(shape)
        _LEAVES[key] = L.tensor(data, dtype=L.float64).requires_grad_()
    return _LEAVES[key]


def _grads(outs, *leaves):
    sum((o * (k + 1.5)).sum() for k, o in enumerate(outs)).backward()
    return outs, tuple(t.grad for t in leaves)


# ---- deterministic, against torch ----------------------------------------------------------------------

CASES = {
    "rms_norm": lambda L, d: _grads((L.nn.functional.rms_norm(_x(L, (2, 3, 4)), [4]),
                                     L.nn.functional.rms_norm(_x(L, (2, 3, 4)), (3, 4), _x(L, (3, 4), 1), 1e-3),
                                     L.rms_norm(_x(L, (3,)), [3])), _x(L, (2, 3, 4))),
    "rms_norm-float32": lambda L, d: L.rms_norm(L.tensor([[1e-4, 2e-4], [3.0, 4.0]]), [2]),
    "rms_norm-shape": lambda L, d: L.rms_norm(L.ones(2, 3), [4]),
    "rms_norm-weight": lambda L, d: L.rms_norm(L.ones(2, 3), [3], L.ones(2)),
    "rmsnorm-module": lambda L, d: (repr(L.nn.RMSNorm(3)),
                                    repr(L.nn.RMSNorm([2, 3], eps=1e-3, elementwise_affine=False)),
                                    L.nn.RMSNorm(3).to(d if L is not torch else "cpu")(L.tensor([[1.0, 2.0, 3.0]])),
                                    sorted(L.nn.RMSNorm(3).state_dict())),
    "pdist": lambda L, d: _grads((L.pdist(_x(L, (5, 3))), L.nn.functional.pdist(_x(L, (5, 3)), 1),
                                  L.pdist(_x(L, (5, 3)), float("inf")), L.pdist(_x(L, (5, 3)), 0.5)), _x(L, (5, 3))),
    "pdist-small": lambda L, d: (L.pdist(L.ones(1, 3)), L.pdist(L.ones(0, 2))),
    "pdist-3d": lambda L, d: L.pdist(L.ones(2, 3, 4)),
    "pdist-negative-p": lambda L, d: L.pdist(L.ones(2, 3), -1),
    "pdist-int": lambda L, d: L.pdist(L.ones(3, 3, dtype=L.int64)),
    "triplet_distance": lambda L, d: _grads((
        L.nn.functional.triplet_margin_with_distance_loss(_x(L, (4, 3)), _x(L, (4, 3), 1), _x(L, (4, 3), 2)),
        L.nn.functional.triplet_margin_with_distance_loss(
            _x(L, (4, 3)), _x(L, (4, 3), 1), _x(L, (4, 3), 2), distance_function=lambda a, b: (a - b).abs().sum(-1),
            margin=0.5, swap=True, reduction="none"),
        L.nn.TripletMarginWithDistanceLoss(reduction="sum", swap=True)(_x(L, (4, 3)), _x(L, (4, 3), 1),
                                                                       _x(L, (4, 3), 2))),
        _x(L, (4, 3))),
    "triplet_distance-repr": lambda L, d: (repr(L.nn.TripletMarginWithDistanceLoss()),
                                           repr(L.nn.TripletMarginWithDistanceLoss(distance_function=abs))),
    "triplet_distance-margin": lambda L, d: L.nn.TripletMarginWithDistanceLoss(margin=0),
    "triplet_distance-dims": lambda L, d: L.nn.functional.triplet_margin_with_distance_loss(L.ones(2, 3), L.ones(3),
                                                                                             L.ones(2, 3)),
    "triplet_distance-reduction": lambda L, d: L.nn.functional.triplet_margin_with_distance_loss(
        L.ones(2, 3), L.ones(2, 3), L.ones(2, 3), reduction="avg"),
    "rrelu-eval": lambda L, d: _grads((L.nn.functional.rrelu(_x(L, (3, 4))), L.rrelu(_x(L, (3, 4)), 0.1, 0.3),
                                       L.nn.RReLU(0.2, 0.4).eval()(_x(L, (3, 4)))), _x(L, (3, 4))),
    "rrelu-repr": lambda L, d: (repr(L.nn.RReLU()), repr(L.nn.RReLU(0.1, 0.3, True))),
    "rrelu-bounds": lambda L, d: L.nn.functional.rrelu(L.ones(2), 0.5, 0.1, True),
    "rrelu-int": lambda L, d: L.rrelu(L.ones(2, dtype=L.int64)),
    "softmax2d": lambda L, d: (L.nn.Softmax2d()(_x(L, (2, 3, 2, 2))), L.nn.Softmax2d()(_x(L, (3, 2, 2))),
                               repr(L.nn.Softmax2d())),
    "softmax2d-1d": lambda L, d: L.nn.Softmax2d()(L.ones(2)),
    "dropout-reprs": lambda L, d: tuple(repr(getattr(L.nn, n)(0.2)) for n in (
        "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout")),
    "dropout-p": lambda L, d: L.nn.functional.dropout1d(L.ones(2, 3), 1.5),
    "dropout-p-module": lambda L, d: L.nn.Dropout2d(-0.1),
    "dropout1d-dims": lambda L, d: L.nn.functional.dropout1d(L.ones(4), 0.5),
    "feature-dropout-dims": lambda L, d: L.nn.functional.feature_alpha_dropout(L.ones(4), 0.5, True),
    "dropout-eval": lambda L, d: tuple(getattr(L.nn.functional, n)(_x(L, (2, 3, 4)), 0.3, False) for n in (
        "dropout1d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")),
    "dropout-p1": lambda L, d: (L.nn.functional.alpha_dropout(L.ones(4), 1.0, True),
                                L.nn.functional.dropout1d(L.ones(2, 3), 1.0), L.dropout(L.ones(3), 1.0, True)),
    "inplace-forms": lambda L, d: tuple(f(L.tensor([-2.0, -0.5, 0.5, 2.0])) for f in (
        L.nn.functional.relu_, L.nn.functional.elu_, L.nn.functional.celu_, L.nn.functional.selu_,
        L.nn.functional.leaky_relu_, L.nn.functional.hardtanh_, lambda t: L.nn.functional.threshold_(t, 0.6, -9.0),
        L.relu_, L.selu_, lambda t: L.celu_(t, 2.0), lambda t: L.threshold_(t, 1.0, 0.0), L.sigmoid_, L.tanh_)),
    "with_indices": lambda L, d: (L.nn.functional.max_pool1d_with_indices(_x(L, (1, 2, 6)), 2),
                                  L.nn.functional.max_pool2d_with_indices(_x(L, (1, 1, 4, 4)), 2, 1),
                                  L.nn.functional.adaptive_max_pool1d_with_indices(_x(L, (1, 2, 6)), 3),
                                  L.max_pool1d_with_indices(_x(L, (1, 2, 6)), 3, 2),
                                  L.adaptive_max_pool1d(_x(L, (1, 2, 6)), 2)),
}


def _torch_spellings(L, d):
    x = _x(L, (2, 3, 5, 5))
    w, b = _x(L, (4, 3, 3, 3), 1), _x(L, (4,), 2)
    seq = _x(L, (2, 3, 7))
    emb = _x(L, (5, 3), 3)
    rm, rv = L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64)
    outs = (L.conv2d(x, w, b, 2, 1), L.conv1d(seq, _x(L, (2, 3, 2), 4)), L.conv_transpose1d(seq, _x(L, (3, 2, 2), 5)),
            L.max_pool2d(x, 2), L.max_pool1d(seq, 3, 2, 1), L.avg_pool1d(seq, 2), L.adaptive_avg_pool1d(seq, 3),
            L.layer_norm(x, [5, 5]), L.group_norm(x, 3), L.batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5, False),
            L.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
            L.embedding(emb, L.tensor([[0, 4], [2, 2]])), L.embedding(emb, L.tensor([1, 3]), 3),
            L.dropout(x, 0.5, False), L.alpha_dropout(x, 0.5, False), L.feature_dropout(x, 0.2, False),
            L.pixel_shuffle(_x(L, (1, 4, 2, 2)), 2), L.prelu(x, L.tensor([0.1], dtype=L.float64)),
            L.hardshrink(x, 0.3), L.celu(x, 0.7), L.selu(x), L.threshold(x, 0.1, 20.0),
            L.bilinear(_x(L, (2, 3)), _x(L, (2, 4)), _x(L, (5, 3, 4), 6)))
    return _grads(outs, x, w, emb)


def _torch_losses(L, d):
    a, p, n = _x(L, (4, 3)), _x(L, (4, 3), 1), _x(L, (4, 3), 2)
    y = L.tensor([1.0, -1.0, 1.0, -1.0], dtype=L.float64)
    t = L.tensor([[0.0, 1.0, 1.0]] * 4, dtype=L.float64)
    outs = tuple(o for r in (0, 1, 2) for o in (
        L.kl_div(a.log_softmax(1), p.softmax(1), r), L.kl_div(a, p, r, log_target=True),
        L.binary_cross_entropy_with_logits(a, t, None, L.tensor([1.0, 2.0, 3.0], dtype=L.float64), r),
        L.cosine_embedding_loss(a, p, y, 0.1, r), L.hinge_embedding_loss(a[:, 0], y, 0.5, r),
        L.margin_ranking_loss(a[:, 0], p[:, 0], y, 0.2, r), L.poisson_nll_loss(a, t, True, False, 1e-8, r),
        L.triplet_margin_loss(a, p, n, 1.0, 2, 1e-6, False, r)))
    return _grads(outs, a, p)


CASES["torch-spellings"] = _torch_spellings
CASES["torch-losses"] = _torch_losses


@pytest.mark.parametrize("name", CASES)
def test_against_torch(name, device):
    same(CASES[name], device)


def test_dropout2d_warns_as_torch(device):
    def run(L):
        return [warned(lambda: L.nn.functional.dropout2d(L.ones(2, 3, 4), 0.5, False).shape)[1],
                warned(lambda: L.nn.functional.dropout3d(L.ones(2, 3), 0.5, False).shape)[1]]
    assert run(_OnDevice(device)) == run(torch)


# ---- random: the structure of torch's results ----------------------------------------------------------

@pytest.mark.parametrize("fn,shape,batched", [(F.dropout1d, (3, 8, 50), True), (F.dropout1d, (8, 50), False),
                                              (F.dropout2d, (3, 8, 5, 10), True), (F.dropout3d, (3, 8, 2, 5, 5), True),
                                              (F.dropout3d, (8, 2, 5, 5), False)])
def test_channel_dropout_zeroes_whole_channels_and_scales_the_rest(fn, shape, batched, device):
    minigrad.manual_seed(0)
    x = (minigrad.rand(*shape, dtype=minigrad.float64, device=device) + 1).requires_grad_()
    out = fn(x, 0.25)
    out.sum().backward()
    ratio = (out / x).detach().cpu().numpy()
    channels = ratio.reshape(int(np.prod(shape[:2 if batched else 1])), -1)   # one row per channel
    for ch in channels:   # each channel is all dropped or all kept, kept ones scaled by 1 / (1 - p)
        assert np.allclose(ch, 0) or np.allclose(ch, 1 / 0.75)
    kept = np.mean([not np.allclose(ch, 0) for ch in channels])
    assert 0.5 < kept < 0.95
    np.testing.assert_allclose(x.grad.cpu().numpy(), ratio)


def test_dropout_inplace_writes_into_the_input(device):
    minigrad.manual_seed(1)
    x = minigrad.ones(4, 6, 3, device=device)
    out = F.dropout1d(x, 0.5, inplace=True)
    assert out is x and set(np.unique(x.cpu().numpy()).tolist()) <= {0.0, 2.0}
    y = minigrad.ones(6, 3, device=device)
    assert F.dropout1d(y, 0.5, inplace=True) is y and y.shape == (6, 3)


@pytest.mark.parametrize("fn,feature", [(F.alpha_dropout, False), (F.feature_alpha_dropout, True)])
def test_alpha_dropout_keeps_zero_mean_unit_variance(fn, feature, device):
    minigrad.manual_seed(2)
    x = minigrad.randn(40, 50, 40, dtype=minigrad.float64, device=device)
    out = fn(x, 0.3, True)
    o = out.cpu().numpy()
    assert abs(o.mean()) < 0.03 and abs(o.std() - 1) < 0.03
    p, alpha = 0.3, 1.7580993408473766
    a = 1 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    kept = np.isclose(o, x.cpu().numpy() * a + alpha * a * p)
    dropped = np.isclose(o, -alpha * a + alpha * a * p)   # -alpha' a + b for every dropped element
    assert (kept | dropped).all() and 0.6 < kept.mean() < 0.8
    if feature:   # one choice per (sample, channel)
        assert (kept.all(-1) | dropped.all(-1)).all()


def test_alpha_dropout_modules_follow_training(device):
    x = minigrad.randn(4, 5, device=device)
    m = nn.AlphaDropout(0.5).eval()
    assert m(x) is x
    assert not np.allclose(nn.AlphaDropout(0.5)(x).cpu().numpy(), x.cpu().numpy())


def test_rrelu_training_draws_slopes_between_the_bounds(device):
    minigrad.manual_seed(3)
    x = minigrad.randn(2000, dtype=minigrad.float64, device=device, requires_grad=True)
    out = F.rrelu(x, 0.1, 0.3, training=True)
    assert type(out.grad_fn).__name__ == "RreluWithNoiseBackward0"
    out.sum().backward()
    xv, ov, g = x.detach().cpu().numpy(), out.detach().cpu().numpy(), x.grad.cpu().numpy()
    neg = xv < 0
    slopes = ov[neg] / xv[neg]
    assert (slopes >= 0.1).all() and (slopes <= 0.3).all() and slopes.std() > 0.04
    np.testing.assert_allclose(g[neg], slopes)
    np.testing.assert_array_equal(ov[~neg], xv[~neg])
    np.testing.assert_array_equal(g[~neg], 1.0)


def test_rrelu_inplace_and_module(device):
    x = minigrad.tensor([-1.0, 2.0], device=device)
    assert F.rrelu_(x) is x and x.tolist() == pytest.approx([-(1 / 8 + 1 / 3) / 2, 2.0])
    m = nn.RReLU(0.2, 0.2, inplace=True)
    y = minigrad.tensor([-1.0, 1.0], device=device)
    assert m(y) is y and y.tolist() == pytest.approx([-0.2, 1.0])


def test_gradcheck_of_rms_norm_and_pdist():
    x = minigrad.randn(4, 3, dtype=minigrad.float64, requires_grad=True)
    w = minigrad.randn(3, dtype=minigrad.float64, requires_grad=True)
    assert minigrad.autograd.gradcheck(lambda a, b: F.rms_norm(a, [3], b), (x, w))
    assert minigrad.autograd.gradcheck(lambda a: minigrad.pdist(a, 3), (x,))
    assert minigrad.autograd.gradgradcheck(lambda a: minigrad.pdist(a, 3), (x,))
