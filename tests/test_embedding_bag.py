"""F.embedding_bag and nn.EmbeddingBag against torch: the bags' sums, means and maxima, sample
weights, padding_idx, offsets with include_last_offset and empty bags, the gradients of the
weight and of the sample weights, node names and errors."""
import numpy as np
import pytest

import minigrad
from test_api_sweep import outcome
from test_nn_functional import _OnDevice
from test_tensor_extras import _close, _on_cpu

torch = pytest.importorskip("torch")


def same(program, device, rtol=1e-10):
    got = _on_cpu(outcome(program, _OnDevice(device), device))
    want = outcome(program, torch)
    assert _close(got, want, rtol), (got, want)


def _w(L, n=10, d=3, seed=0):
    return L.tensor(np.random.default_rng(seed).standard_normal((n, d)), dtype=L.float64).requires_grad_()


def _bag(mode, **kw):
    def program(L, d, kw=kw):
        kw = dict(kw)
        w = _w(L)
        idx = L.tensor([1, 2, 4, 5, 4, 3, 2, 9, 4, 4])
        offsets = kw.pop("offsets", [0, 4, 4, 7])
        psw = kw.pop("psw", False)
        p = L.tensor(np.linspace(0.5, 2.0, 10), dtype=L.float64, requires_grad=True) if psw else None
        out = L.nn.functional.embedding_bag(idx, w, L.tensor(offsets), mode=mode, per_sample_weights=p, **kw)
        (out * L.arange(out.numel(), dtype=L.float64).reshape(out.shape)).sum().backward()
        return out, w.grad, None if p is None else p.grad
    return program


CASES = {
    "sum": _bag("sum"), "mean": _bag("mean"), "max": _bag("max"),
    "sum-weights": _bag("sum", psw=True),
    "mean-padding": _bag("mean", padding_idx=4), "sum-padding": _bag("sum", padding_idx=4, psw=True),
    "max-padding": _bag("max", padding_idx=4),
    "last-offset": _bag("sum", offsets=[0, 3, 7, 10], include_last_offset=True),
    "last-offset-short": _bag("mean", offsets=[0, 3, 7], include_last_offset=True),
    "2d": lambda L, d: _grads2d(L, "mean"), "2d-max": lambda L, d: _grads2d(L, "max"),
    "module": lambda L, d: (repr(L.nn.EmbeddingBag(10, 3)),
                            repr(L.nn.EmbeddingBag(10, 3, mode="max", padding_idx=0, max_norm=1.0,
                                                   include_last_offset=True)),
                            sorted(L.nn.EmbeddingBag(4, 2).state_dict()),
                            L.nn.EmbeddingBag.from_pretrained(_w(L, 4, 2), mode="sum")(L.tensor([[0, 3], [1, 1]]))),
    "padding-index": lambda L, d: (L.nn.EmbeddingBag(5, 2, padding_idx=-2).padding_idx,
                                   L.nn.Embedding(5, 2, padding_idx=-5).padding_idx,
                                   L.nn.EmbeddingBag(5, 2, padding_idx=-1).weight[4].tolist()),
    "padding-index-bag-high": lambda L, d: L.nn.EmbeddingBag(5, 2, padding_idx=5),
    "padding-index-bag-low": lambda L, d: L.nn.EmbeddingBag(5, 2, padding_idx=-6),
    "padding-index-embedding": lambda L, d: L.nn.Embedding(5, 2, padding_idx=5),
    "2d-offsets": lambda L, d: L.nn.functional.embedding_bag(L.tensor([[1, 2]]), _w(L), L.tensor([0])),
    "no-offsets": lambda L, d: L.nn.functional.embedding_bag(L.tensor([1, 2]), _w(L)),
    "3d": lambda L, d: L.nn.functional.embedding_bag(L.ones(2, 2, 2, dtype=L.int64), _w(L)),
    "first-offset": lambda L, d: L.nn.functional.embedding_bag(L.tensor([1, 2]), _w(L), L.tensor([1])),
    "last-offset-big": lambda L, d: L.nn.functional.embedding_bag(L.tensor([1, 2]), _w(L), L.tensor([0, 3])),
    "mode": lambda L, d: L.nn.functional.embedding_bag(L.tensor([1, 2]), _w(L), L.tensor([0]), mode="avg"),
    "weights-mode": lambda L, d: L.nn.functional.embedding_bag(L.tensor([1, 2]), _w(L), L.tensor([0]),
                                                               per_sample_weights=L.ones(2, dtype=L.float64)),
    "weights-shape": lambda L, d: L.nn.functional.embedding_bag(L.tensor([1, 2]), _w(L), L.tensor([0]), mode="sum",
                                                                per_sample_weights=L.ones(3, dtype=L.float64)),
    "float-index": lambda L, d: L.nn.functional.embedding_bag(L.tensor([1.0, 2.0]), _w(L), L.tensor([0])),
    "out-of-range": lambda L, d: L.nn.functional.embedding_bag(L.tensor([3, 10, -1]), _w(L), L.tensor([0])),
    "out-of-range-float32": lambda L, d: L.nn.functional.embedding_bag(L.tensor([3, 10, -1]), _w(L).float(),
                                                                       L.tensor([0])),
    "out-of-range-max": lambda L, d: L.nn.functional.embedding_bag(L.tensor([3, -1]), _w(L).float(),
                                                                   L.tensor([0]), mode="max"),
    "max-freq": lambda L, d: L.nn.functional.embedding_bag(L.tensor([1]), _w(L), L.tensor([0]), mode="max",
                                                           scale_grad_by_freq=True),
    "int32": lambda L, d: L.nn.functional.embedding_bag(L.tensor([1, 2, 3], dtype=L.int32), _w(L),
                                                        L.tensor([0, 1], dtype=L.int32), mode="sum"),
}


def _grads2d(L, mode):
    w = _w(L)
    out = L.nn.functional.embedding_bag(L.tensor([[1, 2, 2], [9, 0, 1]]), w, mode=mode)
    (out * L.arange(6, dtype=L.float64).reshape(2, 3)).sum().backward()
    return out, w.grad


@pytest.mark.parametrize("name", CASES)
def test_embedding_bag_against_torch(name, device):
    same(CASES[name], device)


def test_gradgradcheck():
    w = minigrad.randn(6, 2, dtype=minigrad.float64, requires_grad=True)
    p = minigrad.rand(5, dtype=minigrad.float64, requires_grad=True)
    idx, offs = minigrad.tensor([0, 2, 2, 5, 1]), minigrad.tensor([0, 2])
    F = minigrad.nn.functional
    assert minigrad.autograd.gradcheck(lambda a, b: F.embedding_bag(idx, a, offs, mode="sum",
                                                                    per_sample_weights=b), (w, p))
    assert minigrad.autograd.gradgradcheck(lambda a: F.embedding_bag(idx, a, offs) ** 2, (w,))
    assert minigrad.autograd.gradcheck(lambda a: F.embedding_bag(idx, a, offs, mode="max"), (w,))


def test_scale_grad_by_freq_divides_by_each_index_count(device):
    # (torch 2.13's CPU kernel divides by the counts of other indices: its gradient here is
    # [0, 1, 1, 0.5, 4, 0.25, 0, 0, 0, 0.25]; minigrad divides each row's by its own count)
    w = minigrad.zeros(10, 1, device=device, requires_grad=True)
    idx = minigrad.tensor([1, 2, 4, 5, 4, 3, 2, 9, 4, 4], device=device)
    offs = minigrad.tensor([0, 4, 4, 7], device=device)
    minigrad.nn.functional.embedding_bag(idx, w, offs, mode="sum", scale_grad_by_freq=True).sum().backward()
    assert w.grad.flatten().tolist() == [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]
