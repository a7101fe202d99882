"""torch.sort, argsort, msort, topk and kthvalue (and their Tensor methods) against torch 2.13:
values, indices, dtypes, grad_fn names, gradients, NaN order, ties (every minigrad sort is
stable, so it is compared with torch's stable=True), 0-d and empty tensors, rows longer than
the CUDA kernels' shared-memory tile (then merged in global memory), non-last and
non-contiguous dims, and torch's argument errors; on every device."""
import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

NAN = float("nan")
DTYPES = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "int32": np.int32, "bool": np.bool_}


def data(shape, dtype, seed=0, ties=True):
    """Values with many ties (a few distinct ones), NaNs and infinities for floats; or without
    ties (nor NaNs)."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("int"):
        return rng.integers(-4, 5 if ties else 10 ** 9, shape).astype(DTYPES[dtype])
    x = rng.integers(-3, 4, shape).astype(DTYPES[dtype]) if ties else rng.standard_normal(shape).astype(DTYPES[dtype])
    flat = x.reshape(-1)
    if ties and flat.size > 4:
        picks = rng.choice(flat.size, min(flat.size // 4, 40), replace=False)
        flat[picks[::3]] = np.nan
        flat[picks[1::3]] = np.inf
        flat[picks[2::3]] = -0.0
    return x


def both(x, device, requires_grad=False):
    m = minigrad.tensor(x, device=device, requires_grad=requires_grad)
    t = torch.tensor(x, requires_grad=requires_grad)
    return m, t


def same(m, t):
    """Equal values (NaN where NaN), dtype and shape."""
    got = m.detach().cpu().numpy()
    want = t.detach().numpy()
    assert str(m.dtype) == str(t.dtype).replace("torch", "minigrad")
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def same_pair(mr, tr):
    same(mr.values, tr.values)
    same(mr.indices, tr.indices)
    assert type(mr).__name__ == type(tr).__name__ and tuple(mr._fields) == ("values", "indices")


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("shape, dim", [((7,), 0), ((3, 33), -1), ((5, 4, 6), 1), ((6, 5), 0), ((2, 1), 1)])
def test_sort_matches_torch_stable(device, dtype, descending, shape, dim):
    x = data(shape, dtype)
    m, t = both(x, device)
    same_pair(minigrad.sort(m, dim, descending), torch.sort(t, stable=True, dim=dim, descending=descending))
    # stable=False gives the same (stable) order here; the stable= overload and the method too
    same_pair(m.sort(dim, descending), torch.sort(t, stable=True, dim=dim, descending=descending))
    same_pair(m.sort(stable=True, dim=dim, descending=descending),
              torch.sort(t, stable=True, dim=dim, descending=descending))
    same(minigrad.argsort(m, dim, descending), torch.argsort(t, stable=True, dim=dim, descending=descending))
    same(m.argsort(stable=False, dim=dim, descending=descending),
         torch.argsort(t, stable=True, dim=dim, descending=descending))


def test_nan_inf_and_signed_zero_order(device):
    x = np.array([np.inf, NAN, -np.inf, NAN, 0.0, -0.0, 1.0, -0.0], np.float32)
    m, t = both(x, device)
    for desc in (False, True):
        same_pair(m.sort(descending=desc), t.sort(stable=True, descending=desc))
    assert m.sort().indices.tolist() == [2, 4, 5, 7, 6, 0, 1, 3]
    assert m.sort(descending=True).indices.tolist() == [1, 3, 0, 6, 4, 5, 7, 2]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("descending", [False, True])
def test_long_rows_take_the_merge_path(device, dtype, descending):
    # 10000 > the shared-memory tile (4096 or 2048 elements): tiles, then merge passes; many ties
    x = data((2, 10000), dtype, seed=3)
    m, t = both(x, device)
    same_pair(m.sort(1, descending), t.sort(stable=True, dim=1, descending=descending))


def test_long_row_non_power_of_two_tiles_float64(device):
    x = data((1, 2048 * 3 + 5), "float64", seed=4, ties=False)  # a short last tile, odd run counts
    m, t = both(x, device)
    same_pair(m.sort(-1, True), t.sort(stable=True, descending=True))
    same_pair(m.topk(20), t.topk(20))
    same_pair(m.topk(20, largest=False), t.topk(20, largest=False))


def test_non_contiguous_inputs(device):
    x = data((6, 9), "float32", seed=5)
    m, t = both(x, device)
    same_pair(m.t().sort(1), t.t().sort(stable=True, dim=1))
    same_pair(m[:, ::2].sort(0, True), t[:, ::2].sort(stable=True, dim=0, descending=True))
    same(m.t().argsort(0), t.t().argsort(stable=True, dim=0))
    same_pair(m.expand(3, 6, 9)[1:].topk(2, 0), t.expand(3, 6, 9)[1:].topk(2, 0))


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (3, 0), (2, 0, 4)])
def test_0d_and_empty(device, shape):
    x = data(shape, "float32") if shape else np.array(2.5, np.float32)
    m, t = both(x, device)
    for dim in range(-max(len(shape), 1), max(len(shape), 1)):
        same_pair(m.sort(dim), t.sort(stable=True, dim=dim))
        same(m.argsort(dim, True), t.argsort(stable=True, dim=dim, descending=True))
        same_pair(m.topk(0, dim), t.topk(0, dim))
        n = x.shape[dim] if shape else 1
        same_pair(m.topk(n, dim), t.topk(n, dim))
    same(minigrad.msort(m), torch.msort(t))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_topk_values_indices_k0_kn(device, dtype):
    x = data((4, 9), dtype, seed=6, ties=False)  # no ties: torch's topk order is then defined
    m, t = both(x, device)
    for k in (0, 1, 4, 9):
        for largest in (True, False):
            same_pair(m.topk(k, largest=largest), t.topk(k, largest=largest))
            same_pair(minigrad.topk(m, k, 0 if k <= 4 else 1, largest), torch.topk(t, k, 0 if k <= 4 else 1, largest))
    same_pair(m.topk(3, sorted=False), t.topk(3, sorted=True))  # sorted=False: still sorted here


def test_topk_with_ties_is_the_stable_sorts_prefix(device):
    x = data((5, 40), "float32", seed=7)
    m, t = both(x, device)
    for largest in (True, False):
        got = m.topk(6, largest=largest)
        want = t.sort(stable=True, descending=largest)
        same(got.values, want.values[:, :6])
        same(got.indices, want.indices[:, :6])
        np.testing.assert_array_equal(got.values.cpu().numpy(), t.topk(6, largest=largest).values.numpy())


@pytest.mark.parametrize("keepdim", [False, True])
def test_kthvalue(device, keepdim):
    x = data((4, 7), "float64", seed=8)
    m, t = both(x, device)
    for dim in (0, 1, -1):
        for k in (1, 3, 4):
            got = m.kthvalue(k, dim, keepdim)
            want = t.sort(stable=True, dim=dim)
            same(got.values, t.kthvalue(k, dim, keepdim).values)
            idx = want.indices.select(dim, k - 1)
            same(got.indices, idx.unsqueeze(dim) if keepdim else idx)
    m0, t0 = both(np.array(2.0), device)
    same_pair(minigrad.kthvalue(m0, 1), torch.kthvalue(t0, 1))
    mi, ti = both(np.array([5, 1, 3], np.int64), device)
    same_pair(mi.kthvalue(2), ti.kthvalue(2))


def _grads(lib, x, fn, device=None):
    t = lib.tensor(x, requires_grad=True, **({} if device is None else {"device": device}))
    r = fn(t)
    out = r if lib.is_tensor(r) else r.values
    w = lib.tensor(np.arange(1.0, 1.0 + out.numel()).reshape(tuple(out.shape)), dtype=out.dtype,
                   **({} if device is None else {"device": device}))
    (out * w).sum().backward()
    return out.grad_fn.name(), t.grad.cpu().numpy() if device else t.grad.numpy()


GRAD_CASES = {
    "sort": (lambda L, t: L.sort(t, 1), lambda t: torch.sort(t, 1)),
    "sort-desc-dim0": (lambda L, t: t.sort(0, True), lambda t: t.sort(0, True)),
    "sort-stable": (lambda L, t: L.sort(t, stable=True), lambda t: torch.sort(t, stable=True)),
    "msort": (lambda L, t: L.msort(t), lambda t: torch.msort(t)),
    "topk": (lambda L, t: t.topk(2), lambda t: t.topk(2)),
    "topk-smallest-dim0": (lambda L, t: L.topk(t, 2, 0, False), lambda t: torch.topk(t, 2, 0, False)),
    "topk-0": (lambda L, t: t.topk(0), lambda t: t.topk(0)),
    "kthvalue": (lambda L, t: t.kthvalue(2), lambda t: t.kthvalue(2)),
    "kthvalue-keepdim-dim0": (lambda L, t: L.kthvalue(t, 3, 0, True), lambda t: torch.kthvalue(t, 3, 0, True)),
}


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_gradients_flow_to_the_indexed_positions(device, name):
    x = np.random.default_rng(9).standard_normal((4, 5))  # distinct values: torch's choice is defined
    mine, theirs = GRAD_CASES[name]
    mname, mgrad = _grads(minigrad, x, lambda t: mine(minigrad, t), device)
    tname, tgrad = _grads(torch, x, theirs)
    assert mname == tname
    np.testing.assert_array_equal(mgrad, tgrad)


def test_indices_are_not_differentiable_and_0d_gradient(device):
    x = minigrad.tensor([[3.0, 1.0], [2.0, 4.0]], device=device, requires_grad=True)
    r = x.sort()
    assert r.indices.dtype == minigrad.int64 and not r.indices.requires_grad and r.indices.grad_fn is None
    assert not x.argsort().requires_grad
    s = minigrad.tensor(2.0, device=device, requires_grad=True)
    v = s.sort().values
    assert v.grad_fn.name() == "SortBackward0"
    (v * 3).backward()
    assert s.grad.item() == 3.0


@pytest.mark.parametrize("fn", [lambda t: t.sort(1, True).values, lambda t: t.topk(3, 0).values,
                                lambda t: t.kthvalue(2, 1).values, lambda t: minigrad.msort(t)],
                         ids=["sort", "topk", "kthvalue", "msort"])
def test_gradcheck_and_gradgradcheck(device, fn):
    x = minigrad.tensor(np.random.default_rng(10).standard_normal((4, 5)), device=device, requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def outcome(fn, lib):
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, str(e).replace("torch", "minigrad").replace("TensorBase.", "")
    return "ok", repr([v.tolist() for v in r] if isinstance(r, tuple) else r.tolist())


X = [[3.0, 1.0, NAN], [2.0, 2.0, -1.0]]
ERRORS = {
    "sort-dim-range": lambda L: L.sort(L.tensor(X), 5),
    "sort-float-dim": lambda L: L.sort(L.tensor(X), 1.5),
    "sort-positional-stable": lambda L: L.sort(L.tensor(X), 0, True, True),
    "sort-bool-dim": lambda L: L.sort(L.tensor(X), True),
    "sort-descending-None": lambda L: L.sort(L.tensor(X), descending=None),
    "sort-stable-None": lambda L: L.sort(L.tensor(X), stable=None),
    "sort-not-tensor": lambda L: L.sort([1, 2]),
    "sort-bad-keyword": lambda L: L.sort(L.tensor(X), foo=1),
    "method-sort-float": lambda L: L.tensor(X).sort(1.5),
    "method-sort-stable-int": lambda L: L.tensor(X).sort(stable=1),
    "sort-0d-dim1": lambda L: L.sort(L.tensor(3.0), 1),
    "argsort-stable-None": lambda L: L.argsort(L.tensor(X), stable=None),
    "argsort-positional-with-stable": lambda L: L.argsort(L.tensor(X), 0, True, stable=True),
    "argsort-4-positional": lambda L: L.argsort(L.tensor(X), 0, True, True),
    "method-argsort-3": lambda L: L.tensor(X).argsort(0, True, True),
    "argsort-bad-keyword": lambda L: L.argsort(L.tensor(X), foo=1),
    "topk-k-too-big": lambda L: L.topk(L.tensor(X), 4),
    "topk-k-negative": lambda L: L.topk(L.tensor(X), -1),
    "topk-dim-before-k": lambda L: L.topk(L.tensor(X), -1, 5),
    "topk-float-k": lambda L: L.topk(L.tensor(X), 2.0),
    "topk-bool-k": lambda L: L.topk(L.tensor(X), True),
    "topk-missing-k": lambda L: L.topk(L.tensor(X)),
    "method-topk-missing-k": lambda L: L.tensor(X).topk(),
    "method-topk-float": lambda L: L.tensor(X).topk(1.5),
    "topk-largest-int": lambda L: L.topk(L.tensor(X), 1, largest=1),
    "topk-bad-keyword": lambda L: L.topk(L.tensor(X), 2, foo=1),
    "topk-0d-k2": lambda L: L.topk(L.tensor(3.0), 2),
    "topk-0d-k0": lambda L: L.topk(L.tensor(3.0), 0),
    "topk-empty-dim-k1": lambda L: L.topk(L.zeros(3, 0, 2), 1, 1),
    "topk-bool-cpu": lambda L: L.topk(L.tensor([True, False]), 1),
    "topk-0d-tensor-k": lambda L: L.topk(L.tensor(X), L.tensor(2)),
    "kthvalue-k0": lambda L: L.kthvalue(L.tensor(X), 0),
    "kthvalue-k-too-big": lambda L: L.kthvalue(L.tensor(X), 4),
    "kthvalue-empty-dim": lambda L: L.kthvalue(L.zeros(2, 0), 1),
    "kthvalue-empty-other-dim": lambda L: L.kthvalue(L.zeros(0, 2), 1),
    "kthvalue-0d-k2": lambda L: L.kthvalue(L.tensor(2.0), 2),
    "kthvalue-bool-cpu": lambda L: L.kthvalue(L.tensor([True, False]), 1),
    "kthvalue-keepdim-int": lambda L: L.kthvalue(L.tensor(X), 1, keepdim=1),
    "kthvalue-missing-k": lambda L: L.kthvalue(L.tensor(X)),
    "method-kthvalue-float": lambda L: L.tensor(X).kthvalue(1.5),
    "msort-extra": lambda L: L.msort(L.tensor(X), 1),
    "method-msort-extra": lambda L: L.tensor(X).msort(1),
    "msort-0d": lambda L: L.msort(L.tensor(2.0)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_and_edge_cases_match_torch(name):
    fn = ERRORS[name]
    assert outcome(fn, minigrad) == outcome(fn, torch)


def test_return_types_unpack_and_repr():
    r = minigrad.tensor([2.0, 1.0]).sort()
    values, indices = r
    assert values.tolist() == [1.0, 2.0] and indices.tolist() == [1, 0] and r[0] is values
    assert repr(r).startswith("minigrad.return_types.sort(\nvalues=tensor([1., 2.]),\nindices=tensor([1, 0]))")
    assert type(minigrad.tensor([1.0]).topk(1)).__name__ == "topk"
    assert type(minigrad.tensor([1.0]).kthvalue(1)).__name__ == "kthvalue"
