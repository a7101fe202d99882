"""torch.unique, unique_consecutive and bincount: values against NumPy (np.unique with NaNs
kept apart, as torch keeps them; np.bincount), torch's dtypes, nodes and errors, on every device."""
import numpy as np
import pytest

import minigrad

try:
    import torch
except ImportError:
    torch = None

NAN = float("nan")


def _np_unique(a, axis=None):
    return np.unique(a, return_inverse=True, return_counts=True, axis=axis, equal_nan=False)


@pytest.mark.parametrize("data", [
    [3.0, 1.0, 2.0, 3.0, 1.0, NAN, NAN, -0.0, 0.0],
    list(np.random.default_rng(0).integers(0, 7, 50)),
    [[4, 1], [1, 4]],
    [],
    [True, False, True],
], ids=["floats-nan", "ints", "matrix", "empty", "bools"])
def test_unique_flat_matches_numpy(data, device):
    a = np.array(data)
    x = minigrad.tensor(a, device=device)
    values, inverse, counts = minigrad.unique(x, return_inverse=True, return_counts=True)
    ev, ei, ec = _np_unique(a)
    got = values.cpu().numpy()
    assert values.dtype == x.dtype and inverse.dtype == counts.dtype == minigrad.int64
    np.testing.assert_array_equal(got, ev)  # NaNs compare equal here, each kept once per NaN
    np.testing.assert_array_equal(inverse.cpu().numpy(), ei.reshape(a.shape))
    np.testing.assert_array_equal(counts.cpu().numpy(), ec)
    assert minigrad.unique(x).tolist() == values.tolist() or np.isnan(got).any()


def test_negative_zero_keeps_the_first_and_each_nan_is_its_own(device):
    x = minigrad.tensor([0.0, NAN, -0.0, 1.0, NAN], device=device)
    v, c = x.unique(return_counts=True)
    assert str(v.cpu().numpy().tolist()) == "[0.0, 1.0, nan, nan]" and c.tolist() == [2, 1, 1, 1]
    assert str(minigrad.unique(minigrad.tensor([-0.0, 0.0], device=device)).tolist()) == "[-0.0]"


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_unique_over_a_dim_matches_numpy(dim, device):
    a = np.random.default_rng(1).integers(0, 3, (6, 3, 5)) % 2
    values, inverse, counts = minigrad.unique(minigrad.tensor(a, device=device), dim=dim, return_inverse=True,
                                              return_counts=True)
    ev, ei, ec = _np_unique(a, axis=dim)
    np.testing.assert_array_equal(values.cpu().numpy(), ev)
    np.testing.assert_array_equal(inverse.cpu().numpy(), ei.reshape(-1))
    np.testing.assert_array_equal(counts.cpu().numpy(), ec)


def test_unique_consecutive(device):
    x = minigrad.tensor([1, 1, 2, 2, 3, 1, 1, 2], device=device)
    v, i, c = minigrad.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert (v.tolist(), i.tolist(), c.tolist()) == ([1, 2, 3, 1, 2], [0, 0, 1, 1, 2, 3, 3, 4], [2, 2, 1, 2, 1])
    y = minigrad.tensor([[1, 2], [1, 2], [0, 5], [1, 2]], device=device)
    v, i, c = y.unique_consecutive(dim=0, return_inverse=True, return_counts=True)
    assert (v.tolist(), i.tolist(), c.tolist()) == ([[1, 2], [0, 5], [1, 2]], [0, 0, 1, 2], [2, 1, 1])


def test_unique_records_a_node_whose_backward_raises():
    x = minigrad.tensor([2.0, 1.0, 2.0], requires_grad=True)
    u, inverse = minigrad.unique(x, return_inverse=True)
    assert type(u.grad_fn).__name__ == "Unique2Backward0" and not inverse.requires_grad
    with pytest.raises(RuntimeError, match="the derivative for '_unique2' is not implemented."):
        u.sum().backward()
    assert type(minigrad.unique(x[None], dim=0).grad_fn).__name__ == "UniqueDimBackward0"


def test_bincount(device):
    x = minigrad.tensor([0, 1, 1, 3], device=device)
    assert minigrad.bincount(x).tolist() == [1, 2, 0, 1] and minigrad.bincount(x).dtype == minigrad.int64
    w32 = minigrad.tensor([0.5, 1.0, 1.0, 2.0], device=device)
    r = minigrad.bincount(x, weights=w32, minlength=6)
    assert r.dtype == minigrad.float32 and r.tolist() == [0.5, 2.0, 0.0, 2.0, 0.0, 0.0]
    assert x.bincount(minigrad.tensor([1, 2, 3, 4], device=device)).dtype == minigrad.float64
    assert minigrad.bincount(minigrad.tensor([], dtype=minigrad.int64, device=device)).tolist() == []
    big = np.random.default_rng(2).integers(0, 20, 300)
    np.testing.assert_array_equal(minigrad.bincount(minigrad.tensor(big, device=device)).cpu().numpy(),
                                  np.bincount(big))


@pytest.mark.parametrize("call, kind, message", [
    (lambda L: L.bincount(L.tensor([-1, 2])), RuntimeError, "bincount only supports 1-d non-negative integral inputs."),
    (lambda L: L.bincount(L.tensor([[1]])), RuntimeError, "bincount only supports 1-d non-negative integral inputs."),
    (lambda L: L.bincount(L.tensor([1.0])), NotImplementedError, "\"bincount_cpu\" not implemented for 'Float'"),
    (lambda L: L.bincount(L.tensor([True])), NotImplementedError, "\"bincount_cpu\" not implemented for 'Bool'"),
    (lambda L: L.bincount(L.tensor([1, 2]), minlength=-1), RuntimeError, "minlength should be >= 0"),
    (lambda L: L.bincount(L.tensor([1, 2]), weights=L.ones(3)), RuntimeError,
     "weights should be 1-d and have the same length as input"),
    (lambda L: L.unique(L.ones(2, 3), dim=2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
])
def test_errors_as_torch(call, kind, message):
    for L in [minigrad] + ([torch] if torch is not None else []):
        with pytest.raises(kind) as e:
            call(L)
        assert str(e.value) == message


@pytest.mark.skipif(torch is None, reason="compares against torch")
def test_same_results_as_torch():
    rng = np.random.default_rng(3)
    for a in (rng.integers(-3, 3, (5, 4)), rng.standard_normal(7).round(0), np.array([[1.0, NAN], [1.0, NAN]])):
        for kw in ({}, {"dim": 0}, {"dim": a.ndim - 1}, {"dim": -1}):
            mine = minigrad.unique(minigrad.tensor(a), return_inverse=True, return_counts=True, **kw)
            theirs = torch.unique(torch.tensor(a), return_inverse=True, return_counts=True, **kw)
            assert [str(t.tolist()) for t in mine] == [str(t.tolist()) for t in theirs]


# ---- searchsorted and bucketize (minigrad/ops/search.py) ------------------------------------------

def test_searchsorted_matches_numpy(device):
    rng = np.random.default_rng(4)
    seq = np.sort(rng.integers(0, 30, 40))
    vals = rng.integers(-3, 33, (5, 7))
    for side in ("left", "right"):
        got = minigrad.searchsorted(minigrad.tensor(seq, device=device), minigrad.tensor(vals, device=device), side=side)
        assert got.dtype == minigrad.int64
        np.testing.assert_array_equal(got.cpu().numpy(), np.searchsorted(seq, vals, side=side))
    rows = np.sort(rng.standard_normal((3, 4, 50)), -1)
    vals = rng.standard_normal((3, 4, 9))
    got = minigrad.searchsorted(minigrad.tensor(rows, device=device), minigrad.tensor(vals, device=device), right=True,
                                out_int32=True)
    assert got.dtype == minigrad.int32
    expect = np.stack([np.searchsorted(r, v, side="right") for r, v in zip(rows.reshape(12, 50), vals.reshape(12, 9))])
    np.testing.assert_array_equal(got.cpu().numpy(), expect.reshape(3, 4, 9))


def test_searchsorted_forms(device):
    s = minigrad.tensor([1, 3, 5, 7], device=device)
    assert minigrad.searchsorted(s, 3).tolist() == 1 and minigrad.searchsorted(s, 3, right=True).tolist() == 2
    assert minigrad.searchsorted(s, minigrad.tensor([2.5], device=device)).tolist() == [1]  # promoted
    assert minigrad.searchsorted(minigrad.tensor([5, 1, 3], device=device), minigrad.tensor([2, 4], device=device),
                                 sorter=minigrad.tensor([1, 2, 0], device=device)).tolist() == [1, 2]
    assert minigrad.searchsorted(s.float(), minigrad.tensor([NAN, 2.0], device=device)).tolist() == [4, 1]
    assert minigrad.bucketize(minigrad.tensor([3, 6, 9], device=device), s).tolist() == [1, 3, 4]
    assert minigrad.bucketize(minigrad.tensor([3, 6, 9], device=device), s, right=True).tolist() == [2, 3, 4]
    assert minigrad.searchsorted(s, minigrad.tensor([], dtype=minigrad.int64, device=device)).tolist() == []


@pytest.mark.parametrize("call, message", [
    (lambda L, s: L.searchsorted(L.tensor([[1, 3], [2, 4]]), L.tensor([3])),
     "searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor "
     "and input value tensor must match, but we got boundaries tensor [2, 2] and input value tensor [1]"),
    (lambda L, s: L.searchsorted(s, s, right=True, side="left"),
     "searchsorted(): side and right can't be set to opposites, got side of left while right was True"),
    (lambda L, s: L.searchsorted(s, s, side="foo"), "searchsorted(): side can only be 'left' or 'right' but got foo"),
    (lambda L, s: L.searchsorted(L.tensor(3), s),
     "searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension"),
    (lambda L, s: L.bucketize(L.tensor([1]), L.ones(2, 2)), "boundaries tensor must be 1 dimension, but got dim(2)"),
])
def test_searchsorted_errors_as_torch(call, message):
    for L in [minigrad] + ([torch] if torch is not None else []):
        with pytest.raises(RuntimeError) as e:
            call(L, L.tensor([1, 3, 5, 7]))
        assert str(e.value).replace("torch.", "").replace("minigrad.", "") == message
