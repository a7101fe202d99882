"""The rest of torch.distributions against torch: the added families (log_prob, entropy, cdf/icdf,
moments and their gradients for the same parameters and values; rsample's gradients for the same
noise; sample shapes and statistics with fixed seeds; validation errors and reprs), transforms
(values, log|det J|, inverses, caching, domains), TransformedDistribution, biject_to/transform_to,
ExponentialFamily's Bregman entropy and the KL pairs torch registers."""
import math

import numpy as np
import pytest

import minigrad
import minigrad.distributions as D
import minigrad.distributions.transforms as MT

torch = pytest.importorskip("torch")
TD = torch.distributions
TT = torch.distributions.transforms


def _pair(values, device="cpu"):
    """The same float64 leaf, requiring grad, in torch and in minigrad."""
    return (torch.tensor(values, dtype=torch.float64, requires_grad=True),
            minigrad.tensor(values, dtype=minigrad.float64, requires_grad=True, device=device))


def _np(x):
    return x.detach().cpu().numpy() if isinstance(x, minigrad.Tensor) else x.detach().numpy()


def _check(t_out, m_out, t_params, m_params, rtol=1e-9, atol=1e-12):
    """Values equal, and the gradients of a weighted sum with respect to every parameter."""
    np.testing.assert_allclose(_np(m_out), _np(t_out), rtol=rtol, atol=atol)
    if not t_out.requires_grad:
        return
    w = np.linspace(0.5, 1.5, t_out.numel()).reshape(tuple(t_out.shape))  # a cotangent
    finite = np.isfinite(_np(t_out))
    w = np.where(finite, w, 0.0)
    t_masked = torch.where(torch.tensor(finite), t_out, torch.zeros_like(t_out))
    tg = torch.autograd.grad((t_masked * torch.tensor(w)).sum(), t_params, allow_unused=True, retain_graph=True)
    fin = minigrad.tensor(finite, device=m_out.device)
    mg = minigrad.autograd.grad((minigrad.where(fin, m_out, minigrad.zeros_like(m_out))
                                 * minigrad.tensor(w, device=m_out.device)).sum(),
                                m_params, allow_unused=True, retain_graph=True)
    for a, b in zip(tg, mg):
        if a is None:
            assert b is None or not b.cpu().numpy().any()
        else:
            assert b is not None
            np.testing.assert_allclose(b.cpu().numpy(), a.numpy(), rtol=rtol, atol=1e-10)


# name -> (params as lists, build(lib D, *params), value for log_prob (list))
CASES = {
    "Cauchy": ([[0.0, 1.0, -2.0], [1.0, 2.0, 0.5]], lambda d, a, b: d.Cauchy(a, b), [0.5, -1.0, 3.0]),
    "HalfCauchy": ([[1.0, 2.0, 0.5]], lambda d, s: d.HalfCauchy(s), [0.5, 1.0, 3.0]),
    "HalfNormal": ([[1.0, 2.0, 0.5]], lambda d, s: d.HalfNormal(s), [0.5, 1.0, 3.0]),
    "LogNormal": ([[0.0, 1.0, -0.5], [1.0, 0.5, 2.0]], lambda d, a, b: d.LogNormal(a, b), [0.5, 1.0, 3.0]),
    "Chi2": ([[1.0, 2.5, 7.0]], lambda d, k: d.Chi2(k), [0.5, 1.0, 3.0]),
    "StudentT": ([[0.8, 1.5, 5.0], [0.0, 1.0, -1.0], [1.0, 2.0, 0.5]], lambda d, df, a, b: d.StudentT(df, a, b),
                 [0.5, -1.0, 3.0]),
    "Gumbel": ([[0.0, 1.0, -2.0], [1.0, 2.0, 0.5]], lambda d, a, b: d.Gumbel(a, b), [0.5, -1.0, 3.0]),
    "Weibull": ([[1.0, 2.0, 0.5], [0.7, 1.5, 3.0]], lambda d, s, c: d.Weibull(s, c), [0.5, 1.0, 3.0]),
    "Pareto": ([[1.0, 2.0, 0.5], [0.7, 2.5, 3.0]], lambda d, s, a: d.Pareto(s, a), [1.5, 2.0, 3.0]),
    "FisherSnedecor": ([[1.0, 3.0, 6.0], [2.0, 5.0, 9.0]], lambda d, a, b: d.FisherSnedecor(a, b), [0.5, 1.0, 3.0]),
    "InverseGamma": ([[0.5, 2.5, 3.0], [1.0, 3.0, 0.5]], lambda d, a, b: d.InverseGamma(a, b), [0.5, 1.0, 3.0]),
    "Kumaraswamy": ([[0.5, 2.0, 3.0], [1.5, 3.0, 0.7]], lambda d, a, b: d.Kumaraswamy(a, b), [0.2, 0.5, 0.9]),
    "VonMises": ([[0.0, 1.0, -2.0], [0.5, 2.0, 5.0]], lambda d, a, b: d.VonMises(a, b), [0.5, -1.0, 3.0]),
    "ContinuousBernoulli-probs": ([[0.2, 0.5, 0.8]], lambda d, p: d.ContinuousBernoulli(probs=p), [0.3, 0.5, 0.9]),
    "ContinuousBernoulli-logits": ([[-1.0, 0.001, 2.0]], lambda d, lg: d.ContinuousBernoulli(logits=lg),
                                   [0.3, 0.5, 0.9]),
    "GeneralizedPareto": ([[0.0, 1.0, -1.0], [1.0, 2.0, 0.5], [0.3, 0.0, -0.2]],
                          lambda d, a, b, c: d.GeneralizedPareto(a, b, c), [0.5, 2.0, -0.5]),
    "Geometric-probs": ([[0.2, 0.5, 0.9]], lambda d, p: d.Geometric(probs=p), [0.0, 2.0, 5.0]),
    "Geometric-logits": ([[-1.0, 0.5, 2.0]], lambda d, lg: d.Geometric(logits=lg), [0.0, 2.0, 5.0]),
    "NegativeBinomial": ([[2.0, 3.5, 1.0], [0.2, 0.5, 0.7]], lambda d, n, p: d.NegativeBinomial(n, p),
                         [0.0, 2.0, 5.0]),
    "NegativeBinomial-logits": ([[2.0, 3.5, 1.0], [0.2, -0.5, 0.7]],
                                lambda d, n, lg: d.NegativeBinomial(n, logits=lg), [0.0, 2.0, 5.0]),
    "Multinomial": ([[[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]]], lambda d, p: d.Multinomial(5, p),
                    [[1.0, 2.0, 2.0], [0.0, 0.0, 5.0]]),
    "Multinomial-logits": ([[0.2, -1.3, 0.5]], lambda d, lg: d.Multinomial(4, logits=lg), [1.0, 2.0, 1.0]),
    "Dirichlet": ([[[0.5, 2.0, 3.0], [1.0, 1.0, 4.0]]], lambda d, c: d.Dirichlet(c),
                  [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]),
    "LowRankMultivariateNormal": ([[0.0, 1.0, -1.0], [[1.0, 0.5], [0.2, -0.3], [0.0, 1.0]], [1.0, 2.0, 0.5]],
                                  lambda d, m, w, c: d.LowRankMultivariateNormal(m, w, c), [0.3, -0.2, 1.0]),
    "MixtureSameFamily": ([[0.2, 0.3, 0.5], [-1.0, 0.0, 2.0], [1.0, 0.5, 2.0]],
                          lambda d, p, a, b: d.MixtureSameFamily(d.Categorical(p), d.Normal(a, b)), [0.5]),
    "RelaxedBernoulli": ([[0.5, 1.0], [0.2, 0.7]], lambda d, t, p: d.RelaxedBernoulli(t, probs=p), [0.3, 0.9]),
    "RelaxedOneHotCategorical": ([[0.5], [0.2, 0.3, 0.5]], lambda d, t, p: d.RelaxedOneHotCategorical(t[0], p),
                                 [0.1, 0.3, 0.6]),
    "OneHotCategoricalStraightThrough": ([[0.2, 0.3, 0.5]], lambda d, p: d.OneHotCategoricalStraightThrough(p),
                                         [0.0, 1.0, 0.0]),
    "LogisticNormal": ([[0.0, 1.0], [1.0, 0.5]], lambda d, a, b: d.LogisticNormal(a, b), [0.2, 0.3, 0.5]),
    "ExpRelaxedCategorical": ([[0.5], [0.2, 0.3, 0.5]],
                              lambda d, t, p: (D.ExpRelaxedCategorical if d is D else
                                               TD.relaxed_categorical.ExpRelaxedCategorical)(t[0], p),
                              [-2.0, -1.0, -0.5]),
    "TransformedDistribution": ([[0.0, 1.0], [1.0, 0.5]],
                                lambda d, a, b: d.TransformedDistribution(
                                    d.Normal(a, b), [d.transforms.AffineTransform(1.0, 2.0),
                                                     d.transforms.SigmoidTransform()]), [0.2, 0.7]),
}
NO_ENTROPY = {"FisherSnedecor", "VonMises", "NegativeBinomial", "NegativeBinomial-logits", "MixtureSameFamily",
              "RelaxedBernoulli", "RelaxedOneHotCategorical", "LogisticNormal", "ExpRelaxedCategorical",
              "TransformedDistribution"}
F32_LOG_PROB = {"GeneralizedPareto"}


def _build(name, device):
    params, build, value = CASES[name]
    pairs = [_pair(p, device) for p in params]
    tp, mp = [p[0] for p in pairs], [p[1] for p in pairs]
    return build(TD, *tp), build(D, *mp), tp, mp, value


def _maybe(fn):
    """fn()'s value, or the type of the exception it raised."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - compared against torch's
        return type(e)


@pytest.mark.parametrize("name", list(CASES))
def test_log_prob_entropy_moments(name, device):
    td, md, tp, mp, value = _build(name, device)
    tv = torch.tensor(value, dtype=torch.float64)
    mv = minigrad.tensor(value, dtype=minigrad.float64, device=device)
    if name in F32_LOG_PROB:  # torch's own log_prob fails on float64 parameters there: compare in float32
        t32 = [p.detach().float().requires_grad_() for p in tp]
        m32 = [p.detach().float().requires_grad_() for p in mp]
        _check(CASES[name][1](TD, *t32).log_prob(tv.float()), CASES[name][1](D, *m32).log_prob(mv.float()), t32, m32,
               rtol=2e-6, atol=1e-6)
        assert _maybe(lambda: td.log_prob(tv)) is RuntimeError  # torch.isclose(float64, float32 0.0)
        ref = np.array([float(CASES[name][1](TD, *[p.detach().float() for p in tp]).log_prob(tv.float())[i])
                        for i in range(3)])
        np.testing.assert_allclose(_np(md.log_prob(mv)), ref, rtol=2e-6)
    else:
        _check(td.log_prob(tv), md.log_prob(mv), tp, mp)
    if name not in NO_ENTROPY:
        _check(td.entropy(), md.entropy(), tp, mp)
    else:
        assert _maybe(td.entropy) is NotImplementedError and _maybe(md.entropy) is NotImplementedError
    for prop in ("mean", "variance", "stddev", "mode"):
        a, b = _maybe(lambda: getattr(td, prop)), _maybe(lambda: getattr(md, prop))
        if isinstance(a, type):
            assert b is a, (prop, b)
            continue
        np.testing.assert_allclose(_np(b), _np(a), rtol=1e-9, atol=1e-12, equal_nan=True)
        if prop in ("mean", "variance") and a.requires_grad and np.isfinite(_np(a)).all():
            _check(a, b, tp, mp)
    assert tuple(md.batch_shape) == tuple(td.batch_shape) and tuple(md.event_shape) == tuple(td.event_shape)
    assert repr(md) == repr(td).replace("torch.", "minigrad.")
    assert md.has_rsample == td.has_rsample
    assert md.has_enumerate_support == td.has_enumerate_support
    squash = lambda r: " ".join(r.split())  # noqa: E731 - tensor reprs inside may wrap lines elsewhere
    assert (squash(repr(md.support).replace(", device='cuda:0'", ""))
            == squash(repr(td.support).replace("torch.", "minigrad.")))
    assert type(md.support).__name__ == type(td.support).__name__
    for k in td.arg_constraints:
        assert repr(md.arg_constraints[k]) == repr(td.arg_constraints[k])


CDF_CASES = {"Cauchy": [0.2, -0.7, 2.9], "HalfCauchy": [0.2, 0.7, 2.9], "HalfNormal": [0.2, 0.7, 2.9],
             "LogNormal": [0.2, 0.7, 2.9], "Chi2": [0.2, 0.7, 2.9], "Gumbel": [0.2, -0.7, 2.9],
             "Weibull": [0.2, 0.7, 2.9], "Pareto": [1.2, 2.7, 2.9], "InverseGamma": [0.2, 0.7, 2.9],
             "Kumaraswamy": [0.2, 0.7, 0.9], "ContinuousBernoulli-probs": [0.2, 0.7, 0.9],
             "ContinuousBernoulli-logits": [0.2, 0.7, 0.9], "GeneralizedPareto": [0.2, 2.7, -0.9],
             "MixtureSameFamily": [0.3], "TransformedDistribution": [0.2, 0.7]}
CDF_NO_GRAD = {"Chi2", "InverseGamma"}


@pytest.mark.parametrize("name", list(CDF_CASES))
def test_cdf_icdf(name, device):
    td, md, tp, mp, _ = _build(name, device)
    value = CDF_CASES[name]
    tv, mv = torch.tensor(value, dtype=torch.float64), minigrad.tensor(value, dtype=minigrad.float64, device=device)
    if name in F32_LOG_PROB:  # torch's cdf fails on float64 parameters there (torch.isclose): compare in float32
        t32 = CASES[name][1](TD, *[p.detach().float() for p in tp])
        np.testing.assert_allclose(_np(md.cdf(mv)), _np(t32.cdf(tv.float())), rtol=2e-6)
        assert _maybe(lambda: td.cdf(tv)) is RuntimeError
    elif name in CDF_NO_GRAD:  # torch has no derivative of igamma with respect to its first argument
        np.testing.assert_allclose(_np(md.cdf(mv)), _np(td.cdf(tv)), rtol=1e-9)
    else:
        a, b = _maybe(lambda: td.cdf(tv)), _maybe(lambda: md.cdf(mv))
        if isinstance(a, type):
            assert b is a
        else:
            _check(a, b, tp, mp)
    q = [0.25, 0.6, 0.9][:len(value)]
    tq, mq = torch.tensor(q, dtype=torch.float64), minigrad.tensor(q, dtype=minigrad.float64, device=device)
    a, b = _maybe(lambda: td.icdf(tq)), _maybe(lambda: md.icdf(mq))
    if isinstance(a, type):
        assert b is a
    else:
        _check(a, b, tp, mp)


NO_SAMPLE_GRAD_SHAPES = {"MixtureSameFamily"}


@pytest.mark.parametrize("name", list(CASES))
def test_sample_shapes_and_expand(name, device):
    td, md, *_ = _build(name, device)
    minigrad.manual_seed(0)
    for shape in ((), (4,), (2, 3)):
        a, b = td.sample(shape), md.sample(shape)
        assert tuple(b.shape) == tuple(a.shape) and str(b.dtype)[9:] == str(a.dtype)[6:], (b.shape, a.shape)
        assert not b.requires_grad
        assert bool(md.support.check(b).all()) if name != "GeneralizedPareto" else True
    if md.has_rsample:
        r = md.rsample((3,))
        assert r.requires_grad and tuple(r.shape) == tuple(td.rsample((3,)).shape)
    big = (5,) + tuple(md.batch_shape)
    e = md.expand(big)
    assert type(e) is type(md)
    assert tuple(e.batch_shape) == big and tuple(e.sample().shape) == tuple(td.expand(big).sample().shape)
    if md.has_rsample:
        assert tuple(e.rsample((2,)).shape) == tuple(td.expand(big).rsample((2,)).shape)
    tv = td.expand(big).sample((2,))
    if name in F32_LOG_PROB:
        return
    np.testing.assert_allclose(_np(e.log_prob(minigrad.tensor(tv.numpy(), device=device))),
                               _np(td.expand(big).log_prob(tv)), rtol=1e-9, atol=1e-12)


def _stats(x):
    x = x.cpu().numpy().astype(np.float64)
    return x.mean(0), x.std(0)


def test_sample_statistics(device):
    """Sample means and standard deviations against the exact moments, 5 standard errors."""
    minigrad.manual_seed(11)
    n = 20000
    f64 = dict(dtype=minigrad.float64, device=device)
    T = lambda v: minigrad.tensor(v, **f64)  # noqa: E731
    checks = [D.HalfNormal(T(2.0)), D.LogNormal(T(0.3), T(0.4)), D.Chi2(T(3.0)), D.StudentT(T(6.0), T(1.0), T(2.0)),
              D.Gumbel(T(1.0), T(2.0)), D.Weibull(T(2.0), T(1.5)), D.Pareto(T(1.0), T(5.0)),
              D.FisherSnedecor(T(5.0), T(12.0)), D.InverseGamma(T(6.0), T(2.0)), D.Kumaraswamy(T(2.0), T(3.0)),
              D.ContinuousBernoulli(T(0.3)), D.ContinuousBernoulli(T(0.5)), D.Geometric(T(0.3)),
              D.NegativeBinomial(T(3.0), T(0.4)), D.GeneralizedPareto(T(0.5), T(1.0), T(0.1)),
              D.GeneralizedPareto(T(0.5), T(1.0), T(-0.3)),
              D.MixtureSameFamily(D.Categorical(T([0.3, 0.7])), D.Normal(T([-2.0, 1.0]), T([0.5, 1.0])))]
    for d in checks:
        mean, std = _stats(d.sample((n,)))
        want_mean, want_std = d.mean.item(), d.stddev.item()
        assert abs(mean - want_mean) < 5 * want_std / math.sqrt(n), (d, mean, want_mean)
        assert abs(std / want_std - 1) < 0.06, (d, std, want_std)
    # Cauchy and HalfCauchy have no moments: their quartiles
    half_cauchy_quartiles = [2 * math.tan(math.pi / 8), 2.0, 2 * math.tan(3 * math.pi / 8)]
    for d, q in ((D.Cauchy(T(1.0), T(2.0)), [-1.0, 1.0, 3.0]), (D.HalfCauchy(T(2.0)), half_cauchy_quartiles)):
        x = d.sample((n,)).cpu().numpy()
        np.testing.assert_allclose(np.quantile(x, [0.25, 0.5, 0.75]), q, rtol=0.05, atol=0.05)
    # VonMises: circular mean and mean resultant length I1(k)/I0(k)
    vm = D.VonMises(T(1.0), T(2.0))
    x = vm.sample((n,)).cpu().numpy()
    assert (np.abs(x) <= math.pi).all()
    c, s = np.cos(x).mean(), np.sin(x).mean()
    assert abs(math.atan2(s, c) - 1.0) < 0.03 and abs(math.hypot(c, s) - (1 - vm.variance.item())) < 0.01
    # Dirichlet and Multinomial: means and covariances
    conc = np.array([2.0, 3.0, 5.0])
    x = D.Dirichlet(T(conc)).sample((n,)).cpu().numpy()
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(x.mean(0), conc / 10, atol=0.005)
    a0, p = 10.0, conc / 10
    np.testing.assert_allclose(np.cov(x.T), (np.diag(p) - np.outer(p, p)) / (a0 + 1), atol=0.002)
    x = D.Multinomial(6, T([0.2, 0.3, 0.5])).sample((n,)).cpu().numpy()
    assert (x.sum(-1) == 6).all()
    np.testing.assert_allclose(x.mean(0), [1.2, 1.8, 3.0], atol=0.05)
    p = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(np.cov(x.T), 6 * (np.diag(p) - np.outer(p, p)), atol=0.08)
    lr = D.LowRankMultivariateNormal(T([1.0, -1.0]), T([[1.0], [0.5]]), T([0.5, 0.2]))
    x = lr.sample((n,)).cpu().numpy()
    np.testing.assert_allclose(x.mean(0), [1.0, -1.0], atol=0.04)
    np.testing.assert_allclose(np.cov(x.T), [[1.5, 0.5], [0.5, 0.45]], atol=0.05)
    # relaxed distributions: at a low temperature their samples approach the one-hot draws
    rb = D.RelaxedBernoulli(T(0.05), probs=T(0.3)).sample((n,)).cpu().numpy()
    assert abs((rb > 0.5).mean() - 0.3) < 0.015
    ro = D.RelaxedOneHotCategorical(T(0.05), probs=T([0.2, 0.3, 0.5])).sample((n,)).cpu().numpy()
    np.testing.assert_allclose(np.bincount(ro.argmax(-1), minlength=3) / n, [0.2, 0.3, 0.5], atol=0.015)
    st = D.OneHotCategoricalStraightThrough(T([0.2, 0.3, 0.5])).sample((n,)).cpu().numpy()
    np.testing.assert_allclose(st.mean(0), [0.2, 0.3, 0.5], atol=0.015)


class _Noise:
    """torch's noise replayed into minigrad's draws: rand/randn/rand_like/randn_like and the in-place
    samplers (uniform_, exponential_, cauchy_) take the next values of the same torch stream."""

    def __init__(self, monkeypatch, device):
        self.mp, self.device = monkeypatch, device

    def install(self, seed):
        torch.manual_seed(seed)
        dev = self.device

        def draw(kind, shape, dtype=None, low=0.0, high=1.0):
            shape = tuple(shape)
            t = {"rand": lambda: torch.rand(shape, dtype=torch.float64),
                 "randn": lambda: torch.randn(shape, dtype=torch.float64),
                 "uniform": lambda: torch.empty(shape, dtype=torch.float64).uniform_(low, high),
                 "exponential": lambda: torch.empty(shape, dtype=torch.float64).exponential_(),
                 "cauchy": lambda: torch.empty(shape, dtype=torch.float64).cauchy_()}[kind]()
            return minigrad.tensor(t.numpy(), dtype=dtype or minigrad.float64, device=dev)

        def shape_of(shape):
            return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape

        self.mp.setattr(minigrad, "rand", lambda *s, dtype=None, device=None, **k: draw("rand", shape_of(s), dtype))
        self.mp.setattr(minigrad, "randn", lambda *s, dtype=None, device=None, **k: draw("randn", shape_of(s), dtype))

        def inplace(kind):
            def fill(self_, *args, **kw):
                low, high = (args + (0.0, 1.0))[:2] if kind == "uniform" else (0.0, 1.0)
                v = draw(kind, self_.shape, self_.dtype, kw.get("from", low), kw.get("to", high))
                self_.copy_(v)
                return self_
            return fill
        for kind in ("uniform", "exponential", "cauchy"):
            self.mp.setattr(minigrad.Tensor, kind + "_", inplace(kind))


# families whose torch rsample is a deterministic function of rand/randn/uniform_/exponential_/cauchy_
RSAMPLE_CASES = ["Cauchy", "HalfCauchy", "HalfNormal", "LogNormal", "Gumbel", "Weibull", "Pareto", "Kumaraswamy",
                 "ContinuousBernoulli-probs", "ContinuousBernoulli-logits", "GeneralizedPareto",
                 "LowRankMultivariateNormal", "RelaxedBernoulli", "RelaxedOneHotCategorical", "LogisticNormal",
                 "ExpRelaxedCategorical", "TransformedDistribution"]


@pytest.mark.parametrize("name", RSAMPLE_CASES)
def test_rsample_gradients_match_torch_for_the_same_noise(name, monkeypatch, device):
    td, md, tp, mp, _ = _build(name, device)
    torch.manual_seed(0)
    t_out = td.rsample((4,))
    _Noise(monkeypatch, device).install(0)
    m_out = md.rsample((4,))
    monkeypatch.undo()
    _check(t_out, m_out, tp, mp, rtol=1e-8)


def test_straight_through_and_gamma_based_rsample_gradients(device):
    """OneHotCategoricalStraightThrough: the one-hot sample forward, the probabilities' gradient
    backward. Chi2/StudentT/FisherSnedecor/InverseGamma/Dirichlet: through the Gamma draws'
    implicit reparameterization, checked in expectation (d E[x] / d theta)."""
    p_t, p_m = _pair([0.2, 0.3, 0.5], device)
    minigrad.manual_seed(1)
    s = D.OneHotCategoricalStraightThrough(p_m * 2).rsample()
    assert sorted(s.detach().cpu().numpy().tolist()) == [0.0, 0.0, 1.0]
    w = minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64, device=device)
    (s * w).sum().backward()
    t_s = TD.OneHotCategoricalStraightThrough(p_t * 2).rsample()
    (torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64) * t_s).sum().backward()
    np.testing.assert_allclose(p_m.grad.cpu().numpy(), p_t.grad.numpy(), rtol=1e-12)  # (the probs normalized)
    minigrad.manual_seed(4)
    n = 4000
    f64 = dict(dtype=minigrad.float64, device=device)
    df = minigrad.tensor([3.0, 8.0], requires_grad=True, **f64)
    D.Chi2(df).rsample((n,)).mean(0).sum().backward()  # E = df
    np.testing.assert_allclose(df.grad.cpu().numpy(), [1.0, 1.0], rtol=0.1)
    conc = minigrad.tensor([6.0, 9.0], requires_grad=True, **f64)
    D.InverseGamma(conc, 2.0).rsample((n,)).mean(0).sum().backward()  # E = 2 / (c - 1)
    np.testing.assert_allclose(conc.grad.cpu().numpy(), [-2 / 25, -2 / 64], rtol=0.15)
    c = minigrad.tensor([2.0, 3.0, 5.0], requires_grad=True, **f64)
    x = D.Dirichlet(c).rsample((n,))
    (x[:, 0]).mean().backward()  # E[x0] = c0 / sum(c)
    np.testing.assert_allclose(c.grad.cpu().numpy(), [8 / 100, -2 / 100, -2 / 100], atol=0.01)
    loc = minigrad.tensor(0.5, requires_grad=True, **f64)
    D.StudentT(5.0, loc, 2.0).rsample((n,)).mean().backward()
    assert abs(loc.grad.item() - 1.0) < 1e-12
    d1 = minigrad.tensor(4.0, requires_grad=True, **f64)
    y = D.FisherSnedecor(d1, 10.0).rsample((n,))
    assert y.requires_grad and bool((y > 0).all())
    y.mean().backward()  # E = d2 / (d2 - 2), independent of d1
    assert abs(d1.grad.item()) < 0.05


# ---- ExponentialFamily --------------------------------------------------------------------------

@pytest.mark.parametrize("name,build,params", [
    ("Normal", lambda d, a, b: d.Normal(a, b), [[0.0, 1.0], [1.0, 2.0]]),
    ("Exponential", lambda d, r: d.Exponential(r), [[0.5, 2.0]]),
    ("Gamma", lambda d, a, b: d.Gamma(a, b), [[0.5, 3.0], [1.0, 2.0]]),
    ("Beta", lambda d, a, b: d.Beta(a, b), [[0.5, 3.0], [1.0, 2.0]]),
    ("Bernoulli", lambda d, p: d.Bernoulli(p), [[0.3, 0.8]]),
    ("Dirichlet", lambda d, c: d.Dirichlet(c), [[[0.5, 3.0, 1.0]]]),
    ("ContinuousBernoulli", lambda d, p: d.ContinuousBernoulli(p), [[0.3, 0.8]])])
def test_exponential_family_bregman_entropy(name, build, params, device):
    """ExponentialFamily.entropy (the Bregman form, by autograd of the log-normalizer) against
    torch's, and against the family's closed form; KL through the generic Bregman pair."""
    pairs = [_pair(p, device) for p in params]
    tp, mp = [p[0] for p in pairs], [p[1] for p in pairs]
    td, md = build(TD, *tp), build(D, *mp)
    assert isinstance(md, D.ExponentialFamily)
    a = _maybe(lambda: TD.ExponentialFamily.entropy(td))
    if isinstance(a, type):  # no _mean_carrier_measure (Beta, Dirichlet)
        assert a is NotImplementedError and _maybe(lambda: D.ExponentialFamily.entropy(md)) is a
    else:
        _check(a, D.ExponentialFamily.entropy(md), tp, mp, rtol=1e-8)
        np.testing.assert_allclose(_np(D.ExponentialFamily.entropy(md)), _np(md.entropy()), rtol=1e-8)
    tq, mq = build(TD, *[t.detach() * 0.7 for t in tp]), build(D, *[m.detach() * 0.7 for m in mp])
    _check(TD.kl._kl_expfamily_expfamily(td, tq), D.kl._kl_expfamily_expfamily(md, mq), tp, mp, rtol=1e-8)


def test_poisson_has_no_entropy_and_expfamily_cross_kl_raises():
    with pytest.raises(NotImplementedError):
        D.Poisson(minigrad.tensor([1.0])).entropy()
    assert isinstance(D.Poisson(1.0), D.ExponentialFamily)
    with pytest.raises(NotImplementedError, match="cross KL-divergence between different exponential families"):
        D.kl._kl_expfamily_expfamily(D.Poisson(1.0), D.Exponential(1.0))


# ---- KL ------------------------------------------------------------------------------------------

def _b(d, name, *a, **k):
    return getattr(d, name)(*a, **k)


KL_FAMILIES = {  # name -> (build(d, *params), params)
    "Normal": (lambda d, a, b: d.Normal(a, b), [[0.1, 0.9], [1.0, 2.0]]),
    "Normal2": (lambda d, a, b: d.Normal(a, b), [[1.0, -0.5], [0.7, 1.5]]),
    "LogNormal": (lambda d, a, b: d.LogNormal(a, b), [[0.1, 0.9], [1.0, 2.0]]),
    "LogNormal2": (lambda d, a, b: d.LogNormal(a, b), [[1.0, -0.5], [0.7, 1.5]]),
    "HalfNormal": (lambda d, s: d.HalfNormal(s), [[1.0, 2.0]]),
    "HalfNormal2": (lambda d, s: d.HalfNormal(s), [[0.5, 3.0]]),
    "Exponential": (lambda d, r: d.Exponential(r), [[0.5, 2.0]]),
    "Exponential2": (lambda d, r: d.Exponential(r), [[1.5, 0.7]]),
    "Gamma": (lambda d, a, b: d.Gamma(a, b), [[0.5, 3.0], [1.0, 2.0]]),
    "Gamma2": (lambda d, a, b: d.Gamma(a, b), [[2.0, 1.5], [0.5, 1.0]]),
    "Beta": (lambda d, a, b: d.Beta(a, b), [[0.5, 3.0], [1.0, 2.0]]),
    "Beta2": (lambda d, a, b: d.Beta(a, b), [[2.0, 1.5], [0.5, 4.0]]),
    "Dirichlet": (lambda d, c: d.Dirichlet(c), [[[0.5, 3.0, 1.0], [1.0, 1.0, 2.0]]]),
    "Dirichlet2": (lambda d, c: d.Dirichlet(c), [[[2.0, 1.0, 1.5], [0.7, 3.0, 2.0]]]),
    "Poisson": (lambda d, r: d.Poisson(r), [[0.5, 3.0]]),
    "Poisson2": (lambda d, r: d.Poisson(r), [[1.5, 2.0]]),
    "Geometric": (lambda d, p: d.Geometric(p), [[0.2, 0.7]]),
    "Geometric2": (lambda d, p: d.Geometric(p), [[0.5, 0.4]]),
    "Laplace": (lambda d, a, b: d.Laplace(a, b), [[0.1, 0.9], [1.0, 2.0]]),
    "Laplace2": (lambda d, a, b: d.Laplace(a, b), [[1.0, -0.5], [0.7, 1.5]]),
    "Gumbel": (lambda d, a, b: d.Gumbel(a, b), [[0.1, 0.9], [1.0, 2.0]]),
    "Gumbel2": (lambda d, a, b: d.Gumbel(a, b), [[1.0, -0.5], [0.7, 1.5]]),
    "Pareto": (lambda d, s, a: d.Pareto(s, a), [[1.0, 2.0], [3.0, 2.5]]),
    "Pareto2": (lambda d, s, a: d.Pareto(s, a), [[0.5, 2.5], [1.5, 4.0]]),
    "Uniform": (lambda d, a, b: d.Uniform(a, b), [[0.1, 0.2], [0.6, 0.9]]),
    "Uniform2": (lambda d, a, b: d.Uniform(a, b), [[0.0, 0.1], [0.8, 0.95]]),
    "Cauchy": (lambda d, a, b: d.Cauchy(a, b), [[0.1, 0.9], [1.0, 2.0]]),
    "Cauchy2": (lambda d, a, b: d.Cauchy(a, b), [[1.0, -0.5], [0.7, 1.5]]),
    "ContinuousBernoulli": (lambda d, p: d.ContinuousBernoulli(p), [[0.2, 0.7]]),
    "ContinuousBernoulli2": (lambda d, p: d.ContinuousBernoulli(p), [[0.6, 0.3]]),
    "Bernoulli": (lambda d, p: d.Bernoulli(p), [[0.2, 0.7]]),
    "Binomial": (lambda d, p: d.Binomial(3, p), [[0.2, 0.7]]),
    "Binomial2": (lambda d, p: d.Binomial(3, p), [[0.5, 0.4]]),
    "OneHotCategorical": (lambda d, p: d.OneHotCategorical(p), [[[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]]),
    "OneHotCategorical2": (lambda d, p: d.OneHotCategorical(p), [[[0.4, 0.3, 0.3], [0.5, 0.2, 0.3]]]),
    "LowRankMultivariateNormal": (lambda d, m, w, c: d.LowRankMultivariateNormal(m, w, c),
                                  [[0.0, 1.0], [[1.0], [0.5]], [1.0, 2.0]]),
    "LowRankMultivariateNormal2": (lambda d, m, w, c: d.LowRankMultivariateNormal(m, w, c),
                                   [[1.0, 0.0], [[0.3, 0.1], [-0.5, 0.2]], [0.5, 1.5]]),
    "MultivariateNormal": (lambda d, m, c: d.MultivariateNormal(m, c), [[0.5, -1.0], [[2.0, 0.3], [0.3, 1.0]]]),
    "Independent": (lambda d, a, b: d.Independent(d.Normal(a, b), 1), [[0.1, 0.9], [1.0, 2.0]]),
    "Independent2": (lambda d, a, b: d.Independent(d.Normal(a, b), 1), [[1.0, -0.5], [0.7, 1.5]]),
}
_PAIR_NAMES = sorted({k.rstrip("2") for k in KL_FAMILIES})
KL_PAIRS = [(a, b) for a in _PAIR_NAMES for b in _PAIR_NAMES
            if (a + "2" if a == b else b) in KL_FAMILIES]


@pytest.mark.parametrize("p_name,q_name", KL_PAIRS)
def test_kl_divergence_pairs(p_name, q_name, device):
    """Every pair among these families: torch's value and gradients where it registers one, its
    NotImplementedError (or its infinities) where it does not."""
    q_key = q_name + "2" if p_name == q_name else q_name
    pb, pparams = KL_FAMILIES[p_name]
    qb, qparams = KL_FAMILIES[q_key]
    pairs = [_pair(p, device) for p in pparams + qparams]
    tp, mp = [p[0] for p in pairs], [p[1] for p in pairs]
    k = len(pparams)
    tpd, tqd = pb(TD, *tp[:k]), qb(TD, *tp[k:])
    mpd, mqd = pb(D, *mp[:k]), qb(D, *mp[k:])
    try:
        want = TD.kl_divergence(tpd, tqd)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as got:
            D.kl_divergence(mpd, mqd)
        assert str(got.value) == str(e).replace("torch.", "minigrad.")
        return
    got = D.kl_divergence(mpd, mqd)
    _check(want, got, tp, mp, rtol=1e-8, atol=1e-10)


def test_kl_pairs_registered_like_torch():
    """The registry holds every pair torch's does, by class name."""
    names = lambda reg: {(p.__name__, q.__name__) for p, q in reg}  # noqa: E731
    assert names(TD.kl._KL_REGISTRY) <= names(D.kl._KL_REGISTRY)


# ---- transforms ------------------------------------------------------------------------------------

def _tr(mod, name, *args, **kw):
    return getattr(mod, name)(*args, **kw)


class _On:
    """minigrad with tensor() making its tensors on device (for the transforms' parameters)."""
    float64 = minigrad.float64

    def __init__(self, device):
        self.device = device

    def tensor(self, values, dtype=None):
        return minigrad.tensor(values, dtype=dtype, device=self.device)


TRANSFORMS = {  # name -> (build(mod, lib), input values)
    "Exp": (lambda m, L: m.ExpTransform(), [[-1.0, 0.5, 2.0]]),
    "Affine": (lambda m, L: m.AffineTransform(L.tensor([1.0, -2.0, 0.5], dtype=L.float64), 2.0),
               [[-1.0, 0.5, 2.0]]),
    "Affine-neg-event": (lambda m, L: m.AffineTransform(0.5, L.tensor([-1.0, 2.0, 3.0], dtype=L.float64), event_dim=1),
                         [[-1.0, 0.5, 2.0], [0.0, 1.0, -3.0]]),
    "Sigmoid": (lambda m, L: m.SigmoidTransform(), [[-1.0, 0.5, 2.0]]),
    "Tanh": (lambda m, L: m.TanhTransform(), [[-1.0, 0.5, 2.0]]),
    "Softplus": (lambda m, L: m.SoftplusTransform(), [[-1.0, 0.5, 2.0]]),
    "Power": (lambda m, L: m.PowerTransform(L.tensor(2.5, dtype=L.float64)), [[0.3, 0.5, 2.0]]),
    "Softmax": (lambda m, L: m.SoftmaxTransform(), [[-1.0, 0.5, 2.0]]),
    "StickBreaking": (lambda m, L: m.StickBreakingTransform(), [[-1.0, 0.5, 2.0], [0.1, 0.2, 0.3]]),
    "LowerCholesky": (lambda m, L: m.LowerCholeskyTransform(), [[[0.3, 0.1], [-0.5, 0.2]]]),
    "PositiveDefinite": (lambda m, L: m.PositiveDefiniteTransform(), [[[0.3, 0.1], [-0.5, 0.2]]]),
    "Reshape": (lambda m, L: m.ReshapeTransform((2, 3), (3, 2)), [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]),
    "Independent": (lambda m, L: m.IndependentTransform(m.ExpTransform(), 1), [[-1.0, 0.5, 2.0]]),
    "Compose": (lambda m, L: m.ComposeTransform([m.AffineTransform(1.0, 2.0), m.SigmoidTransform(),
                                                 m.PowerTransform(L.tensor(2.0, dtype=L.float64))]),
                [[-1.0, 0.5, 2.0]]),
    "Compose-event": (lambda m, L: m.ComposeTransform([m.ExpTransform(), m.StickBreakingTransform()]),
                      [[-1.0, 0.5, 2.0], [0.1, 0.2, 0.3]]),
    "Cat": (lambda m, L: m.CatTransform([m.ExpTransform(), m.SigmoidTransform()], dim=-1, lengths=[2, 1]),
            [[-1.0, 0.5, 2.0], [0.1, 0.2, 0.3]]),
    "Cat-event": (lambda m, L: m.CatTransform([m.IndependentTransform(m.ExpTransform(), 1), m.ExpTransform()],
                                              dim=0, lengths=[1, 1]), [[-1.0, 0.5, 2.0], [0.1, 0.2, 0.3]]),
    "Stack": (lambda m, L: m.StackTransform([m.ExpTransform(), m.TanhTransform(), m.AffineTransform(1.0, 3.0)],
                                            dim=-1), [[-1.0, 0.5, 2.0], [0.1, 0.2, 0.3]]),
    "CDF": (lambda m, L: m.CumulativeDistributionTransform((TD if m is TT else D).Normal(
        L.tensor([0.5, 1.0, -1.0], dtype=L.float64), L.tensor([2.0, 1.0, 0.5], dtype=L.float64))),
            [[-1.0, 0.5, 2.0]]),
    "Exp-inv": (lambda m, L: m.ExpTransform().inv, [[0.3, 0.5, 2.0]]),
    "identity": (lambda m, L: m.identity_transform, [[-1.0, 0.5, 2.0]]),
}


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transforms(name, device):
    build, x = TRANSFORMS[name]
    tt, mt = build(TT, torch), build(MT, _On(device))
    tx, mx = _pair(x[0] if len(x) == 1 else x, device)
    ty, my = tt(tx), mt(mx)
    _check(ty, my, [tx], [mx])
    _check(tt.inv(ty), mt.inv(my), [tx], [mx], rtol=1e-8)
    a = _maybe(lambda: tt.log_abs_det_jacobian(tx, ty))
    b = _maybe(lambda: mt.log_abs_det_jacobian(mx, my))
    if isinstance(a, type):
        assert b is a
    else:
        _check(a, b, [tx], [mx], rtol=1e-8)
    assert repr(mt).replace("minigrad.", "") == repr(tt).replace("torch.", "")
    assert mt.bijective == tt.bijective
    for attr in ("domain", "codomain"):
        td_, md_ = getattr(tt, attr), getattr(mt, attr)
        assert type(md_).__name__ == type(td_).__name__ and md_.event_dim == td_.event_dim
    for attr in ("event_dim", "sign"):
        a, b = _maybe(lambda: getattr(tt, attr)), _maybe(lambda: getattr(mt, attr))
        if isinstance(a, type) or isinstance(b, type):
            assert a is b, (attr, a, b)
        elif isinstance(a, torch.Tensor):
            assert _np(b).tolist() == _np(a).tolist()
        else:
            assert a == b
    shape = tuple(tx.shape)
    assert tuple(mt.forward_shape(shape)) == tuple(tt.forward_shape(torch.Size(shape)))
    assert tuple(mt.inverse_shape(tuple(ty.shape))) == tuple(tt.inverse_shape(ty.shape))
    for attr, t_v, m_v in (("codomain", ty, my), ("domain", tx, mx)):
        a = _maybe(lambda: getattr(tt, attr).check(t_v.detach()))
        b = _maybe(lambda: getattr(mt, attr).check(m_v.detach()))
        if isinstance(a, type):  # CatTransform of parts of different event dims: torch.cat fails
            assert b is a
        else:
            assert _np(b).tolist() == _np(a).tolist() and bool(b.all())


def test_transform_cache_inverse_and_equality():
    t = MT.ExpTransform(cache_size=1)
    x = minigrad.tensor([0.5, 1.0], dtype=minigrad.float64)
    y = t(x)
    assert t(x) is y and t.inv(y) is x  # cached: the same objects back
    assert MT.ExpTransform()(x) is not MT.ExpTransform()(x)
    assert MT.ExpTransform().inv.inv == MT.ExpTransform() and MT.ExpTransform().inv != MT.ExpTransform()
    assert MT.ExpTransform().with_cache(1)._cache_size == 1
    c = MT.ComposeTransform([MT.ExpTransform(), MT.AffineTransform(1.0, 2.0)], cache_size=1)
    assert all(p._cache_size == 1 for p in c.parts) and c.inv.inv is c
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        MT.ExpTransform(cache_size=2)
    with pytest.raises(NotImplementedError, match="with_cache is not implemented"):
        type("MyTransform", (MT.Transform,), {"__init__": lambda self, a, cache_size=0: MT.Transform.__init__(
            self, cache_size)})(1).with_cache(1)
    with pytest.raises(NotImplementedError):
        MT.AbsTransform().sign
    with pytest.raises(ValueError, match="in_shape, out_shape have different numbers of elements"):
        MT.ReshapeTransform((2, 3), (4, 2))
    assert MT.AffineTransform(1.0, 2.0) == MT.AffineTransform(1.0, 2.0)
    assert MT.AffineTransform(1.0, 2.0) != MT.AffineTransform(1.0, 3.0)
    with pytest.raises(ValueError, match="Please use either .domain.event_dim or .codomain.event_dim"):
        MT.ComposeTransform([MT.ExpTransform(), MT.ReshapeTransform((4,), (2, 2))]).event_dim


@pytest.mark.parametrize("constraint", [
    lambda c, L: c.real, lambda c, L: c.positive, lambda c, L: c.nonnegative, lambda c, L: c.greater_than(1.5),
    lambda c, L: c.greater_than_eq(-1.0), lambda c, L: c.less_than(2.0), lambda c, L: c.unit_interval,
    lambda c, L: c.interval(-1.0, 3.0), lambda c, L: c.half_open_interval(0.0, 2.0), lambda c, L: c.simplex,
    lambda c, L: c.real_vector, lambda c, L: c.independent(c.positive, 1), lambda c, L: c.lower_cholesky,
    lambda c, L: c.positive_definite, lambda c, L: c.cat([c.positive, c.real], 0, [2, 1]),
    lambda c, L: c.stack([c.positive, c.unit_interval, c.real], -1)])
def test_biject_to_and_transform_to(constraint):
    tc, mc = constraint(TD.constraints, torch), constraint(D.constraints, minigrad)
    x = np.array([[-0.3, 0.7, 1.2], [0.4, -1.1, 0.2], [0.5, 0.1, -0.6]])
    for reg_t, reg_m in ((TD.biject_to, D.biject_to), (TD.transform_to, D.transform_to)):
        a = _maybe(lambda: reg_t(tc))
        b = _maybe(lambda: reg_m(mc))
        if isinstance(a, type):
            assert b is a
            continue
        assert repr(b).replace("minigrad.", "") == repr(a).replace("torch.", "")
        tx, mx = _pair(x)
        ty, my = a(tx), b(mx)
        _check(ty, my, [tx], [mx])
        assert bool(mc.check(my.detach()).all())
        ja, jb = _maybe(lambda: a.log_abs_det_jacobian(tx, ty)), _maybe(lambda: b.log_abs_det_jacobian(mx, my))
        if isinstance(ja, type):  # not bijective (SoftmaxTransform, LowerCholeskyTransform...)
            assert jb is ja
        else:
            _check(ja, jb, [tx], [mx], rtol=1e-8)
    with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
        D.biject_to(D.constraints.boolean)


def test_transformed_distribution_shapes_and_cdf(device):
    """A transform that changes the event shape (StickBreaking), one that reverses the cdf's sign,
    and expand."""
    base_t, base_m = _pair([[0.1, 0.2, -0.3], [0.0, 1.0, 2.0]], device)
    td = TD.TransformedDistribution(TD.Normal(base_t, 1.0), [TT.StickBreakingTransform()])
    md = D.TransformedDistribution(D.Normal(base_m, 1.0), [MT.StickBreakingTransform()])
    assert tuple(md.batch_shape) == tuple(td.batch_shape) and tuple(md.event_shape) == tuple(td.event_shape)
    v = [[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]]
    _check(td.log_prob(torch.tensor(v, dtype=torch.float64)),
           md.log_prob(minigrad.tensor(v, dtype=minigrad.float64, device=device)), [base_t], [base_m])
    tn, mn = _pair([0.5, 1.0], device)
    td = TD.TransformedDistribution(TD.Normal(tn, 2.0), [TT.AffineTransform(0.0, -3.0)])
    md = D.TransformedDistribution(D.Normal(mn, 2.0), [MT.AffineTransform(0.0, -3.0)])
    q = [0.3, -2.0]
    _check(td.cdf(torch.tensor(q, dtype=torch.float64)),
           md.cdf(minigrad.tensor(q, dtype=minigrad.float64, device=device)), [tn], [mn])
    _check(td.icdf(torch.tensor([0.2, 0.9], dtype=torch.float64)),
           md.icdf(minigrad.tensor([0.2, 0.9], dtype=minigrad.float64, device=device)), [tn], [mn])
    e = md.expand((3, 2))
    assert tuple(e.batch_shape) == (3, 2) and tuple(e.sample().shape) == (3, 2)
    with pytest.raises(ValueError, match="transforms must be a Transform or list"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), (MT.ExpTransform(),))


# ---- validation ---------------------------------------------------------------------------------

@pytest.mark.parametrize("case", [
    lambda d, L: d.Cauchy(L.tensor([0.0]), L.tensor([-1.0])),
    lambda d, L: d.HalfNormal(L.tensor([1.0])).log_prob(L.tensor([-1.0])),
    lambda d, L: d.HalfCauchy(L.tensor([0.0])),
    lambda d, L: d.LogNormal(L.tensor([0.0]), L.tensor([1.0])).log_prob(L.tensor([-1.0])),
    lambda d, L: d.Chi2(L.tensor([-1.0])),
    lambda d, L: d.StudentT(L.tensor([0.0])),
    lambda d, L: d.Gumbel(L.tensor([0.0]), L.tensor([0.0])),
    lambda d, L: d.Weibull(L.tensor([1.0]), L.tensor([-1.0])),
    lambda d, L: d.Pareto(L.tensor([1.0]), L.tensor([1.0])).log_prob(L.tensor([0.5])),
    lambda d, L: d.FisherSnedecor(L.tensor([1.0]), L.tensor([-1.0])),
    lambda d, L: d.InverseGamma(L.tensor([1.0]), L.tensor([-1.0])),
    lambda d, L: d.Kumaraswamy(L.tensor([1.0]), L.tensor([1.0])).log_prob(L.tensor([1.5])),
    lambda d, L: d.VonMises(L.tensor([1.0]), L.tensor([-1.0])),
    lambda d, L: d.ContinuousBernoulli(L.tensor([1.5]), validate_args=True),
    lambda d, L: d.ContinuousBernoulli(L.tensor([0.5])).log_prob(L.tensor([1.5])),
    lambda d, L: d.Geometric(L.tensor([0.0])),
    lambda d, L: d.Geometric(L.tensor([1.5])),
    lambda d, L: d.Geometric(L.tensor([0.5])).log_prob(L.tensor([0.5])),
    lambda d, L: d.NegativeBinomial(L.tensor([1.0]), L.tensor([1.0])),
    lambda d, L: d.NegativeBinomial(L.tensor([-1.0]), L.tensor([0.5])),
    lambda d, L: d.Multinomial(L.tensor(3), L.tensor([0.5, 0.5])),
    lambda d, L: d.Multinomial(3, L.tensor([0.5, 0.5])).log_prob(L.tensor([2.0, 2.0])),
    lambda d, L: d.Dirichlet(L.tensor(1.0)),
    lambda d, L: d.Dirichlet(L.tensor([1.0, -1.0])),
    lambda d, L: d.Dirichlet(L.tensor([1.0, 1.0])).log_prob(L.tensor([0.5, 0.7])),
    lambda d, L: d.LowRankMultivariateNormal(L.tensor(0.0), L.ones(1, 1), L.ones(1)),
    lambda d, L: d.LowRankMultivariateNormal(L.zeros(2), L.ones(3, 1), L.ones(2)),
    lambda d, L: d.LowRankMultivariateNormal(L.zeros(2), L.ones(2), L.ones(2)),
    lambda d, L: d.LowRankMultivariateNormal(L.zeros(2), L.ones(2, 1), L.ones(3)),
    lambda d, L: d.LowRankMultivariateNormal(L.zeros(2), L.ones(2, 1), -L.ones(2)),
    lambda d, L: d.MixtureSameFamily(d.Normal(0.0, 1.0), d.Normal(L.zeros(2), L.ones(2))),
    lambda d, L: d.MixtureSameFamily(d.Categorical(L.ones(3)), d.Normal(L.zeros(2), L.ones(2))),
    lambda d, L: d.MixtureSameFamily(d.Categorical(L.ones(2)), 3.0),
    lambda d, L: d.MixtureSameFamily(d.Categorical(L.ones(4, 2)), d.Normal(L.zeros(3, 2), L.ones(3, 2))),
    lambda d, L: d.RelaxedBernoulli(L.tensor(0.5), probs=L.tensor([1.5])),
    lambda d, L: d.RelaxedBernoulli(L.tensor(0.5)),
    lambda d, L: d.RelaxedOneHotCategorical(L.tensor(0.5), probs=L.tensor([0.5, 0.5])).log_prob(
        L.tensor([0.2, 0.2])),
    lambda d, L: d.LogisticNormal(L.tensor([0.0]), L.tensor([-1.0])),
    lambda d, L: d.GeneralizedPareto(L.tensor([0.0]), L.tensor([-1.0]), L.tensor([0.5])),
    lambda d, L: d.GeneralizedPareto(L.tensor([0.0]), L.tensor([1.0]), L.tensor([-0.5])).log_prob(L.tensor([3.0])),
    lambda d, L: d.Binomial(3, L.tensor([0.5])).entropy() and d.kl_divergence(
        d.Binomial(2, L.tensor([0.5])), d.Binomial(3, L.tensor([0.5]))),
    lambda d, L: d.kl_divergence(d.Normal(0.0, 1.0), d.Cauchy(0.0, 1.0)),
    lambda d, L: d.kl_divergence(d.VonMises(0.0, 1.0), d.VonMises(0.0, 1.0)),
    lambda d, L: d.kl_divergence(d.Exponential(1.0), d.Poisson(1.0)),
])
def test_validation_errors(case):
    with pytest.raises(Exception) as want:
        case(TD, torch)
    with pytest.raises(Exception) as got:
        case(D, minigrad)
    assert type(got.value).__name__ == type(want.value).__name__  # (torch._C._LinAlgError by name)
    assert str(got.value) == str(want.value).replace("torch.", "minigrad.")


def test_float32_dtypes(device):
    """float32 parameters give float32 results throughout."""
    f32 = dict(dtype=minigrad.float32, device=device)
    for d in (D.Cauchy(minigrad.zeros(2, **f32), minigrad.ones(2, **f32)), D.HalfNormal(minigrad.ones(2, **f32)),
              D.Gumbel(minigrad.zeros(2, **f32), minigrad.ones(2, **f32)), D.VonMises(minigrad.zeros(2, **f32),
                                                                                      minigrad.ones(2, **f32)),
              D.Dirichlet(minigrad.ones(3, **f32)), D.Geometric(minigrad.full((2,), 0.3, **f32)),
              D.StudentT(minigrad.full((2,), 3.0, **f32))):
        s = d.sample((3,))
        assert s.dtype == minigrad.float32 and d.log_prob(s).dtype == minigrad.float32, d
