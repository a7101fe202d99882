"""torch's sampling functions (ops/random_ops.py): bernoulli, multinomial, normal, poisson,
random_, exponential_, geometric_, cauchy_, log_normal_, randint_like, on every device. Random
streams differ from torch's, so samples are checked statistically with fixed seeds (tolerances of
several standard errors), reproducibility with manual_seed and generator=, and shapes, dtypes,
grad_fn names, gradients, errors and messages against torch."""
import math
import warnings

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")

N = 20000  # draws per statistical check: standard errors of about 1% of a standard deviation


def _np(t):
    return t.detach().cpu().numpy().astype(np.float64)


def _same_error(fn):
    """fn(torch) and fn(minigrad) raise the same error type and message (torch -> minigrad)."""
    with pytest.raises(Exception) as want:
        fn(torch)
    with pytest.raises(Exception) as got:
        fn(minigrad)
    assert type(got.value).__name__ == type(want.value).__name__
    assert str(got.value) == str(want.value).replace("torch.", "minigrad.")


def _close_mean(x, mean, std, k=5):
    assert abs(x.mean() - mean) < k * std / math.sqrt(x.size), (x.mean(), mean)


# ---- bernoulli -------------------------------------------------------------------------------------

def test_bernoulli_statistics_and_dtypes(device):
    minigrad.manual_seed(0)
    p = minigrad.tensor([0.0, 0.2, 0.7, 1.0], dtype=minigrad.float64, device=device).expand(N, 4).contiguous()
    s = minigrad.bernoulli(p)
    assert s.dtype == minigrad.float64 and s.device == p.device and tuple(s.shape) == (N, 4)
    x = _np(s)
    assert set(np.unique(x)) <= {0.0, 1.0}
    assert (x[:, 0] == 0).all() and (x[:, 3] == 1).all()
    for j, q in ((1, 0.2), (2, 0.7)):
        _close_mean(x[:, j], q, math.sqrt(q * (1 - q)))
    y = _np(minigrad.ones(N, dtype=minigrad.int64, device=device).bernoulli(0.3))
    _close_mean(y, 0.3, math.sqrt(0.21))
    assert minigrad.zeros(3, dtype=minigrad.int64, device=device).bernoulli(0.3).dtype == minigrad.int64


def test_bernoulli_grad_fn_and_zero_gradient(device):
    x = minigrad.tensor([0.2, 0.5, 0.9], requires_grad=True, device=device)
    s = minigrad.bernoulli(x)
    assert s.requires_grad and s.grad_fn.name() == "BernoulliBackward0"
    s.sum().backward()
    assert _np(x.grad).tolist() == [0.0, 0.0, 0.0]
    s2 = x.bernoulli(0.3)
    assert s2.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::bernoulli is not implemented"):
        s2.sum().backward()


@pytest.mark.parametrize("case", [
    lambda L: L.bernoulli(L.tensor([1.5])), lambda L: L.bernoulli(L.tensor([float("nan")])),
    lambda L: L.bernoulli(L.tensor([1, 0])), lambda L: L.bernoulli(L.tensor([0.5]), 1.5),
    lambda L: L.bernoulli([0.5]), lambda L: L.bernoulli(L.tensor([0.5]), "a"),
    lambda L: L.bernoulli(L.tensor([0.5]), generator=1)])
def test_bernoulli_errors(case):
    _same_error(case)


# ---- multinomial -----------------------------------------------------------------------------------

@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial_frequencies(device, replacement):
    minigrad.manual_seed(1)
    w = minigrad.tensor([[1.0, 0.0, 3.0, 4.0], [0.0, 0.0, 0.0, 2.5]], device=device)
    if replacement:
        s = minigrad.multinomial(w, N, replacement=True)
        assert s.dtype == minigrad.int64 and tuple(s.shape) == (2, N)
        counts = np.bincount(s[0].cpu().numpy(), minlength=4) / N
        np.testing.assert_allclose(counts, [0.125, 0, 0.375, 0.5], atol=0.015)
        assert (s[1].cpu().numpy() == 3).all()
    else:  # without replacement: the first draw is weighted, and each row's draws are distinct
        firsts = []
        for _ in range(400):
            s = minigrad.multinomial(w[0], 3)
            vals = s.cpu().numpy().tolist()
            assert len(set(vals)) == 3 and 1 not in vals  # the zero weight comes last, never among 3
            firsts.append(vals[0])
        freq = np.bincount(firsts, minlength=4) / 400
        np.testing.assert_allclose(freq, [0.125, 0, 0.375, 0.5], atol=0.08)
        full = minigrad.multinomial(w[0], 4).cpu().numpy().tolist()
        assert full[-1] == 1 and sorted(full) == [0, 1, 2, 3]


def test_multinomial_reproducible_and_generator(device):
    w = minigrad.tensor([0.1, 0.2, 0.3, 0.4], device=device)
    minigrad.manual_seed(5)
    a = minigrad.multinomial(w, 50, True)
    minigrad.manual_seed(5)
    assert minigrad.equal(a, minigrad.multinomial(w, 50, True))
    g1, g2 = minigrad.Generator().manual_seed(3), minigrad.Generator().manual_seed(3)
    assert minigrad.equal(w.multinomial(3, generator=g1), w.multinomial(3, generator=g2))
    assert tuple(minigrad.multinomial(minigrad.ones(0, 3, device=device), 2).shape) == (0, 2)


@pytest.mark.parametrize("case", [
    lambda L: L.multinomial(L.ones(2, 2, 2), 1), lambda L: L.multinomial(L.tensor(1.0), 1),
    lambda L: L.multinomial(L.tensor([1.0, 2.0]), 3), lambda L: L.multinomial(L.tensor([-1.0, 2.0]), 1),
    lambda L: L.multinomial(L.tensor([-1.0, 2.0]), 2, True),
    lambda L: L.multinomial(L.tensor([float("inf"), 2.0]), 2, True),
    lambda L: L.multinomial(L.tensor([float("nan"), 2.0]), 1),
    lambda L: L.multinomial(L.tensor([0.0, 0.0]), 1), lambda L: L.multinomial(L.tensor([0.0, 0.0]), 2, True),
    lambda L: L.multinomial(L.tensor([[1.0, 0.0], [0.0, 0.0]]), 1),
    lambda L: L.multinomial(L.tensor([[1.0, 1.0], [0.0, 0.0]]), 3, True),
    lambda L: L.multinomial(L.tensor([1.0, 2.0]), 0), lambda L: L.multinomial(L.tensor([1, 2]), 1),
    lambda L: L.multinomial(L.tensor([1.0, 2.0]), 1.5), lambda L: L.multinomial([1.0, 2.0], 1),
    lambda L: L.multinomial(L.tensor([]), 1, True), lambda L: L.multinomial(L.tensor([]), 2, True)])
def test_multinomial_errors(case):
    _same_error(case)


# ---- normal ----------------------------------------------------------------------------------------

def test_normal_overloads(device):
    minigrad.manual_seed(2)
    mean = minigrad.tensor([[-1.0], [2.0]], dtype=minigrad.float64, requires_grad=True, device=device)
    std = minigrad.tensor([0.5, 3.0, 1.0], requires_grad=True, device=device)
    s = minigrad.normal(mean.expand(2, N).contiguous(), 2.0)
    assert s.grad_fn.name() == "NormalBackward1" and s.dtype == minigrad.float64
    x = _np(s)
    _close_mean(x[0], -1.0, 2.0)
    _close_mean(x[1], 2.0, 2.0)
    assert abs(x.std(axis=1) - 2).max() < 0.05
    both = minigrad.normal(mean, std)  # broadcast (2, 1) with (3,), mean's dtype
    assert tuple(both.shape) == (2, 3) and both.dtype == minigrad.float64 and both.grad_fn.name() == "NormalBackward3"
    both.sum().backward()
    assert _np(mean.grad).tolist() == [[0.0], [0.0]] and _np(std.grad).tolist() == [0.0, 0.0, 0.0]
    f = minigrad.normal(1.0, std)
    assert f.dtype == minigrad.float32 and f.grad_fn.name() == "NormalBackward2"
    big = _np(minigrad.normal(3.0, 0.5, (N,), device=device, dtype=minigrad.float64))
    _close_mean(big, 3.0, 0.5)
    assert abs(big.std() - 0.5) < 0.01
    r = minigrad.normal(0.0, 1.0, size=[2, 3], requires_grad=True)
    assert r.requires_grad and r.grad_fn is None and tuple(r.shape) == (2, 3)


def test_normal_generator_reproducible(device):
    m = minigrad.zeros(5, device=device)
    a = minigrad.normal(m, 1.0, generator=minigrad.Generator().manual_seed(9))
    b = minigrad.normal(m, 1.0, generator=minigrad.Generator().manual_seed(9))
    assert minigrad.equal(a, b)
    c = minigrad.normal(0.0, 1.0, (5,), generator=minigrad.Generator().manual_seed(9), device=device)
    assert minigrad.equal(a, c)
    minigrad.manual_seed(4)
    d = minigrad.normal(m, 1.0)
    minigrad.manual_seed(4)
    assert minigrad.equal(d, minigrad.normal(m, 1.0)) and not minigrad.equal(a, d)


@pytest.mark.parametrize("case", [
    lambda L: L.normal(L.zeros(2), L.ones(3)), lambda L: L.normal(L.zeros(2), -1.0),
    lambda L: L.normal(L.zeros(2), L.tensor([-1.0, 1.0])), lambda L: L.normal(0.0, -1.0, (2,)),
    lambda L: L.normal(0.0, 1.0), lambda L: L.normal(L.tensor([1, 2]), 1.0),
    lambda L: L.normal(0.0, 1.0, (2,), dtype=L.int64), lambda L: L.normal(1, L.tensor([1])),
    lambda L: L.normal(L.zeros(2), L.tensor([float("nan"), 1.0]))])
def test_normal_errors(case):
    _same_error(case)


# ---- poisson ---------------------------------------------------------------------------------------

def test_poisson(device):
    minigrad.manual_seed(3)
    rates = minigrad.tensor([0.0, 0.5, 4.0, 300.0], dtype=minigrad.float64, requires_grad=True, device=device)
    s = minigrad.poisson(rates.expand(N, 4).contiguous())
    assert s.dtype == minigrad.float64 and s.grad_fn.name() == "PoissonBackward0"
    x = _np(s)
    assert (x[:, 0] == 0).all() and (x == np.round(x)).all() and (x >= 0).all()
    for j, r in ((1, 0.5), (2, 4.0), (3, 300.0)):
        _close_mean(x[:, j], r, math.sqrt(r))
        assert abs(x[:, j].var() / r - 1) < 0.06
    minigrad.poisson(rates).sum().backward()
    assert _np(rates.grad).tolist() == [0.0] * 4
    g = [minigrad.poisson(rates.detach(), minigrad.Generator().manual_seed(1)) for _ in range(2)]
    assert minigrad.equal(*g)
    assert _np(minigrad.poisson(minigrad.tensor([math.inf]))).tolist() == \
        torch.poisson(torch.tensor([math.inf])).tolist()


@pytest.mark.parametrize("case", [
    lambda L: L.poisson(L.tensor([-1.0])), lambda L: L.poisson(L.tensor([float("nan")])),
    lambda L: L.poisson(L.tensor([1, 2])), lambda L: L.poisson([1.0])])
def test_poisson_errors(case):
    _same_error(case)


# ---- in-place fills ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,top", [("float32", 2 ** 24), ("float64", 2 ** 53), ("int32", 2 ** 31 - 1),
                                       ("int64", 2 ** 63 - 1), ("bool", 1)])
def test_random_default_ranges(device, dtype, top):
    minigrad.manual_seed(6)
    t = minigrad.empty(N, dtype=getattr(minigrad, dtype), device=device).random_()
    x = t.cpu().numpy()
    assert x.dtype == np.dtype(dtype) and x.min() >= 0 and x.max() <= top
    assert float(x.astype(np.float64).max()) > 0.9 * top  # the whole range is used
    if dtype == "float32":
        assert (x == np.round(x)).all()


def test_random_from_to(device):
    minigrad.manual_seed(7)
    a = minigrad.empty(N, dtype=minigrad.int64, device=device).random_(-3, 5).cpu().numpy()
    assert set(np.unique(a)) == set(range(-3, 5))
    b = minigrad.empty(N, device=device).random_(4).cpu().numpy()
    assert set(np.unique(b)) == {0.0, 1.0, 2.0, 3.0}
    c = minigrad.empty(1000, dtype=minigrad.int32, device=device).random_(2 ** 31 - 10, None).cpu().numpy()
    assert c.min() >= 2 ** 31 - 10
    d = minigrad.empty(100, device=device).random_(0, to=5).cpu().numpy()
    assert set(np.unique(d)) <= set(range(5))
    g = [minigrad.empty(20).random_(100, generator=minigrad.Generator().manual_seed(2)) for _ in range(2)]
    assert minigrad.equal(*g)
    with pytest.warns(UserWarning, match=r"to - 1 is out of bounds \[-\(2\^24\), 2\^24\]"):
        minigrad.empty(3, device=device).random_(2 ** 40)


@pytest.mark.parametrize("args,node", [((), "RandomBackward2"), ((5,), "RandomBackward1"),
                                       ((1, 5), "RandomBackward0")])
def test_random_node_names(args, node):
    leaf = minigrad.zeros(3, requires_grad=True)
    y = leaf.clone().random_(*args)
    assert y.grad_fn.name() == node
    y.sum().backward()
    assert leaf.grad.tolist() == [0.0] * 3


@pytest.mark.parametrize("case", [
    lambda L: L.empty(3).random_(5, 5), lambda L: L.empty(3).random_(0),
    lambda L: L.empty(3, dtype=L.int32).random_(2 ** 40), lambda L: L.empty(3, dtype=L.int32).random_(-2 ** 40, 5),
    lambda L: L.empty(3, dtype=L.bool).random_(-1, 2), lambda L: L.empty(3, dtype=L.bool).random_(3),
    lambda L: L.empty(3).random_(0.5, 3), lambda L: L.empty(3).random_(2 ** 63),
    lambda L: L.empty(3, requires_grad=True).random_(), lambda L: L.empty(3).random_(to=5, **{"from_": 1})])
def test_random_errors(case):
    _same_error(case)


def test_continuous_fills(device):
    minigrad.manual_seed(8)
    e = _np(minigrad.empty(N, dtype=minigrad.float64, device=device).exponential_(2.0))
    _close_mean(e, 0.5, 0.5)
    assert (e >= 0).all() and abs(e.std() - 0.5) < 0.02
    g = _np(minigrad.empty(N, device=device).geometric_(0.25))
    assert (g >= 1).all() and (g == np.round(g)).all()
    _close_mean(g, 4.0, math.sqrt(0.75) / 0.25)
    gi = minigrad.empty(10, dtype=minigrad.int64, device=device).geometric_(0.5)
    assert gi.dtype == minigrad.int64 and (gi.cpu().numpy() >= 1).all()
    c = _np(minigrad.empty(N, dtype=minigrad.float64, device=device).cauchy_(1.0, 2.0))
    assert abs(np.median(c) - 1.0) < 0.1 and abs(np.percentile(c, 75) - 3.0) < 0.15  # quartiles at 1 +- 2
    ln = _np(minigrad.empty(N, dtype=minigrad.float64, device=device).log_normal_(0.5, 0.25))
    assert (ln > 0).all()
    _close_mean(np.log(ln), 0.5, 0.25)
    for name, args, node in (("exponential_", (), "ExponentialBackward0"), ("geometric_", (0.3,), "GeometricBackward0"),
                             ("cauchy_", (), "CauchyBackward0"), ("log_normal_", (), "LogNormalBackward0")):
        y = getattr(minigrad.zeros(2, requires_grad=True).clone(), name)(*args)
        assert y.grad_fn.name() == node
        a = getattr(minigrad.empty(6), name)(*args, generator=minigrad.Generator().manual_seed(1))
        b = getattr(minigrad.empty(6), name)(*args, generator=minigrad.Generator().manual_seed(1))
        assert minigrad.equal(a, b)


@pytest.mark.parametrize("case", [
    lambda L: L.empty(3).exponential_(-1.0), lambda L: L.empty(3).exponential_(0.0),
    lambda L: L.empty(3, dtype=L.int64).exponential_(), lambda L: L.empty(3, dtype=L.int64).exponential_(-1),
    lambda L: L.empty(3).geometric_(0.0), lambda L: L.empty(3).geometric_(1.0), lambda L: L.empty(3).geometric_(),
    lambda L: L.empty(3, dtype=L.bool).geometric_(0.5), lambda L: L.empty(3).cauchy_(0.0, -1.0),
    lambda L: L.empty(3, dtype=L.int64).cauchy_(), lambda L: L.empty(3).log_normal_(0.0, 0.0),
    lambda L: L.empty(3, dtype=L.int64).log_normal_()])
def test_fill_errors(case):
    _same_error(case)


def test_like_functions_take_a_generator(device):
    x = minigrad.zeros(2, 3, device=device)
    for fn, args in ((minigrad.rand_like, ()), (minigrad.randn_like, ()), (minigrad.randint_like, (2, 9))):
        a = fn(x, *args, generator=minigrad.Generator().manual_seed(4))
        b = fn(x, *args, generator=minigrad.Generator().manual_seed(4))
        assert minigrad.equal(a, b) and a.dtype == x.dtype and a.device == x.device
    r = minigrad.randint_like(x, high=5)
    assert ((r.cpu().numpy() >= 0) & (r.cpu().numpy() < 5)).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert minigrad.randint_like(x, low=2, high=5).dtype == minigrad.float32
