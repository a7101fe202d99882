"""minigrad.distributions against torch.distributions: log_prob, entropy, cdf/icdf, kl_divergence
and their gradients for the same parameters and values; rsample's gradients for the same noise;
sample shapes and statistics with fixed seeds; validation errors and reprs; a VAE-style
reparameterized loss and a REINFORCE-style score-function loss."""
import math

import numpy as np
import pytest

import minigrad
import minigrad.distributions as D

torch = pytest.importorskip("torch")
TD = torch.distributions


def _pair(values, device="cpu"):
    """The same float64 leaf, requiring grad, in torch and in minigrad."""
    return (torch.tensor(values, dtype=torch.float64, requires_grad=True),
            minigrad.tensor(values, dtype=minigrad.float64, requires_grad=True, device=device))


def _check(t_out, m_out, t_params, m_params, rtol=1e-9):
    np.testing.assert_allclose(m_out.detach().cpu().numpy(), t_out.detach().numpy(), rtol=rtol, atol=1e-12)
    w = np.linspace(0.5, 1.5, t_out.numel()).reshape(tuple(t_out.shape))  # a cotangent
    tg = torch.autograd.grad((t_out * torch.tensor(w)).sum(), t_params, allow_unused=True, retain_graph=True)
    mg = minigrad.autograd.grad((m_out * minigrad.tensor(w, device=m_out.device)).sum(), m_params, allow_unused=True,
                                retain_graph=True)
    for a, b in zip(tg, mg):
        if a is None:
            assert b is None or not b.cpu().numpy().any()
        else:
            np.testing.assert_allclose(b.cpu().numpy(), a.numpy(), rtol=rtol, atol=1e-12)


# name -> (params as lists, build(lib D, *params), value for log_prob (list) or None)
CASES = {
    "Normal": ([[0.0, 1.0, -2.0], [1.0, 2.0, 0.5]], lambda d, a, b: d.Normal(a, b), [0.5, -1.0, 3.0]),
    "Uniform": ([[0.0, 1.0], [1.0, 3.0]], lambda d, a, b: d.Uniform(a, b), [0.5, 2.0]),
    "Exponential": ([[0.5, 2.0]], lambda d, a: d.Exponential(a), [1.0, 3.0]),
    "Laplace": ([[0.5, 2.0], [1.0, 3.0]], lambda d, a, b: d.Laplace(a, b), [1.0, -3.0]),
    "Gamma": ([[0.5, 2.0, 7.0], [1.0, 3.0, 0.5]], lambda d, a, b: d.Gamma(a, b), [1.0, 3.0, 10.0]),
    "Beta": ([[0.5, 2.0], [1.0, 3.0]], lambda d, a, b: d.Beta(a, b), [0.2, 0.7]),
    "Bernoulli-probs": ([[0.3, 0.9]], lambda d, p: d.Bernoulli(probs=p), [1.0, 0.0]),
    "Bernoulli-logits": ([[0.3, -2.0]], lambda d, lg: d.Bernoulli(logits=lg), [1.0, 0.0]),
    "Categorical-probs": ([[[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]], lambda d, p: d.Categorical(probs=p), [2, 0]),
    "Categorical-logits": ([[[0.2, 1.3, -0.5], [0.1, 0.1, 0.8]]], lambda d, lg: d.Categorical(logits=lg), [1, 2]),
    "OneHotCategorical": ([[0.2, 0.3, 0.5]], lambda d, p: d.OneHotCategorical(probs=p), [0.0, 1.0, 0.0]),
    "Poisson": ([[0.5, 2.0]], lambda d, r: d.Poisson(r), [1.0, 3.0]),
    "Binomial": ([[0.5, 0.2]], lambda d, p: d.Binomial(5, p), [1.0, 3.0]),
    "MultivariateNormal-cov": ([[0.0, 1.0], [[2.0, 0.5], [0.5, 1.0]]],
                               lambda d, m, c: d.MultivariateNormal(m, covariance_matrix=c), [[0.3, 0.2], [1.0, 1.0]]),
    "MultivariateNormal-tril": ([[0.0, 1.0], [[2.0, 0.0], [0.5, 1.0]]],
                                lambda d, m, s: d.MultivariateNormal(m, scale_tril=s), [0.3, -0.2]),
    "MultivariateNormal-prec": ([[0.0, 1.0], [[2.0, 0.5], [0.5, 1.0]]],
                                lambda d, m, p: d.MultivariateNormal(m, precision_matrix=p), [0.3, -0.2]),
    "Independent": ([[0.0, 1.0], [1.0, 2.0]], lambda d, a, b: d.Independent(d.Normal(a, b), 1), [0.5, -1.0]),
}
NO_ENTROPY = {"Poisson"}


def _build(name, device):
    params, build, value = CASES[name]
    pairs = [_pair(p, device) for p in params]
    tp, mp = [p[0] for p in pairs], [p[1] for p in pairs]
    return build(TD, *tp), build(D, *mp), tp, mp, value


@pytest.mark.parametrize("name", list(CASES))
def test_log_prob_entropy_moments(name, device):
    td, md, tp, mp, value = _build(name, device)
    int_value = name.startswith("Categorical")
    tv = torch.tensor(value, dtype=torch.int64 if int_value else torch.float64)
    mv = minigrad.tensor(value, dtype=minigrad.int64 if int_value else minigrad.float64, device=device)
    _check(td.log_prob(tv), md.log_prob(mv), tp, mp)
    if name not in NO_ENTROPY:
        _check(td.entropy(), md.entropy(), tp, mp)
    for prop in ("mean", "variance", "stddev", "mode"):
        a, b = getattr(td, prop), getattr(md, prop)
        np.testing.assert_allclose(b.detach().cpu().numpy(), a.detach().numpy(), rtol=1e-9, equal_nan=True)
    assert tuple(md.batch_shape) == tuple(td.batch_shape) and tuple(md.event_shape) == tuple(td.event_shape)
    assert repr(md) == repr(td).replace("torch.", "minigrad.")
    assert md.has_rsample == td.has_rsample
    assert repr(md.support).replace(", device='cuda:0'", "") == repr(td.support).replace("torch.", "minigrad.")


@pytest.mark.parametrize("name,value", [("Normal", [0.2, 0.7, 0.9]), ("Uniform", [0.7, 1.2]),
                                        ("Exponential", [0.2, 0.7]), ("Laplace", [0.2, 0.7])])
def test_cdf_icdf(name, value, device):
    td, md, tp, mp, _ = _build(name, device)
    tv, mv = torch.tensor(value, dtype=torch.float64), minigrad.tensor(value, dtype=minigrad.float64, device=device)
    _check(td.cdf(tv), md.cdf(mv), tp, mp)
    q = [0.25, 0.6, 0.9][:len(value)]
    _check(td.icdf(torch.tensor(q, dtype=torch.float64)), md.icdf(minigrad.tensor(q, dtype=minigrad.float64,
                                                                                    device=device)), tp, mp)


@pytest.mark.parametrize("name", [n for n in CASES if n not in ("Binomial",)])
def test_sample_shapes_and_expand(name, device):
    td, md, *_ = _build(name, device)
    minigrad.manual_seed(0)
    for shape in ((), (4,), (2, 3)):
        a, b = td.sample(shape), md.sample(shape)
        assert tuple(b.shape) == tuple(a.shape) and str(b.dtype)[9:] == str(a.dtype)[6:]
        assert not b.requires_grad
    if md.has_rsample:
        r = md.rsample((3,))
        assert r.requires_grad and tuple(r.shape) == tuple(td.rsample((3,)).shape)
    big = (5,) + tuple(md.batch_shape)
    e = md.expand(big)
    assert tuple(e.batch_shape) == big and tuple(e.sample().shape) == tuple(td.expand(big).sample().shape)


def test_sample_statistics(device):
    minigrad.manual_seed(11)
    n = 20000
    f64 = dict(dtype=minigrad.float64, device=device)
    checks = [(D.Normal(minigrad.tensor(1.5, **f64), minigrad.tensor(2.0, **f64)), 1.5, 2.0),
              (D.Uniform(minigrad.tensor(-1.0, **f64), minigrad.tensor(3.0, **f64)), 1.0, 4 / math.sqrt(12)),
              (D.Exponential(minigrad.tensor(4.0, **f64)), 0.25, 0.25),
              (D.Laplace(minigrad.tensor(1.0, **f64), minigrad.tensor(0.5, **f64)), 1.0, 0.5 * math.sqrt(2)),
              (D.Gamma(minigrad.tensor(0.4, **f64), minigrad.tensor(2.0, **f64)), 0.2, math.sqrt(0.4) / 2),
              (D.Gamma(minigrad.tensor(9.0, **f64), minigrad.tensor(3.0, **f64)), 3.0, 1.0),
              (D.Beta(minigrad.tensor(2.0, **f64), minigrad.tensor(5.0, **f64)), 2 / 7, math.sqrt(10 / (49 * 8))),
              (D.Poisson(minigrad.tensor(3.5, **f64)), 3.5, math.sqrt(3.5)),
              (D.Binomial(7, minigrad.tensor(0.3, **f64)), 2.1, math.sqrt(7 * 0.21)),
              (D.Bernoulli(minigrad.tensor(0.3, **f64)), 0.3, math.sqrt(0.21))]
    for d, mean, std in checks:
        x = d.sample((n,)).cpu().numpy().astype(np.float64)
        assert abs(x.mean() - mean) < 5 * std / math.sqrt(n), (d, x.mean(), mean)
        assert abs(x.std() / std - 1) < 0.05, (d, x.std(), std)
    mvn = D.MultivariateNormal(minigrad.tensor([1.0, -1.0], **f64),
                               minigrad.tensor([[2.0, 0.6], [0.6, 1.0]], **f64))
    x = mvn.sample((n,)).cpu().numpy()
    np.testing.assert_allclose(x.mean(0), [1.0, -1.0], atol=0.05)
    np.testing.assert_allclose(np.cov(x.T), [[2.0, 0.6], [0.6, 1.0]], atol=0.08)
    cat = D.Categorical(logits=minigrad.tensor([0.0, math.log(3.0)], **f64)).sample((n,)).cpu().numpy()
    assert abs(cat.mean() - 0.75) < 0.02


@pytest.mark.parametrize("name", ["Normal", "Uniform", "Exponential", "Laplace", "MultivariateNormal-tril"])
def test_rsample_gradients_match_torch_for_the_same_noise(name, monkeypatch, device):
    """rsample is loc + scale * noise (and alike): with the noise fixed, its gradients are torch's."""
    td, md, tp, mp, _ = _build(name, device)
    torch.manual_seed(0)
    t_out = td.rsample((4,))
    torch.manual_seed(0)  # torch's noise again, fed to minigrad's rsample through its draws
    noise = {"rand": lambda s: torch.rand(s, dtype=torch.float64),
             "randn": lambda s: torch.randn(s, dtype=torch.float64)}
    real = {k: getattr(minigrad, k) for k in ("rand", "randn")}

    def fake(kind):
        def draw(*shape, dtype=None, device=None, **kw):
            shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
            return minigrad.tensor(noise[kind](shape).numpy(), dtype=dtype, device=device)
        return draw
    monkeypatch.setattr(minigrad, "rand", fake("rand"))
    monkeypatch.setattr(minigrad, "randn", fake("randn"))
    if name == "Exponential":  # torch draws Exp(1) with exponential_: give both the same noise
        e = torch.empty((4, 2), dtype=torch.float64).exponential_()
        t_out = e / tp[0]
        m_out = minigrad.tensor(e.numpy(), device=device) / mp[0]
    elif name == "Laplace":
        u = torch.empty((4, 2), dtype=torch.float64).uniform_(2.220446049250313e-16 - 1, 1)
        t_out = tp[0] - tp[1] * u.sign() * torch.log1p(-u.abs())
        mu = minigrad.tensor(u.numpy(), device=device)
        m_out = mp[0] - mp[1] * mu.sign() * (-mu.abs()).log1p()
        assert isinstance(md.rsample(), minigrad.Tensor)
    else:
        m_out = md.rsample((4,))
    monkeypatch.setattr(minigrad, "rand", real["rand"])
    monkeypatch.setattr(minigrad, "randn", real["randn"])
    _check(t_out, m_out, tp, mp)


def test_gamma_rsample_gradient_is_the_implicit_reparameterization(device):
    from minigrad.distributions.continuous import _gamma_dsample_dalpha
    alpha = [0.3, 1.0, 2.5, 20.0]
    x = [0.05, 0.8, 3.1, 18.0]
    want = torch._standard_gamma_grad(torch.tensor(alpha, dtype=torch.float64), torch.tensor(x, dtype=torch.float64))
    got = _gamma_dsample_dalpha(minigrad.tensor(x, dtype=minigrad.float64, device=device),
                                minigrad.tensor(alpha, dtype=minigrad.float64, device=device))
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=2e-3)
    conc = minigrad.tensor([0.7, 3.0], dtype=minigrad.float64, requires_grad=True, device=device)
    minigrad.manual_seed(3)
    s = D.Gamma(conc, 2.0).rsample((2000,))
    s.mean().backward()  # d E[x] / d alpha = 1 / rate, each alpha owning half the averaged samples
    np.testing.assert_allclose(conc.grad.cpu().numpy(), [0.5 / 2, 0.5 / 2], rtol=0.15)


KL_PAIRS = {
    "Normal": (lambda d, a, b, c, e: (d.Normal(a, b), d.Normal(c, e)),
               [[0.0, 1.0], [1.0, 2.0], [1.0, 1.0], [3.0, 2.0]]),
    "Bernoulli": (lambda d, a, b: (d.Bernoulli(a), d.Bernoulli(b)), [[0.2, 0.6, 0.9], [0.5, 0.3, 0.3]]),
    "Categorical": (lambda d, a, b: (d.Categorical(a), d.Categorical(b)),
                    [[[0.2, 0.8, 0.0], [0.3, 0.3, 0.4]], [[0.5, 0.25, 0.25], [0.1, 0.1, 0.8]]]),
    "Uniform": (lambda d, a, b, c, e: (d.Uniform(a, b), d.Uniform(c, e)),
                [[0.0, 0.0], [1.0, 2.0], [-1.0, -0.5], [1.0, 3.0]]),
    "MultivariateNormal": (lambda d, a, b, c, e: (d.MultivariateNormal(a, b), d.MultivariateNormal(c, e)),
                           [[0.0, 1.0], [[2.0, 0.5], [0.5, 1.0]], [1.0, 1.0], [[1.0, 0.2], [0.2, 1.0]]]),
}


@pytest.mark.parametrize("name", list(KL_PAIRS))
def test_kl_divergence(name, device):
    build, params = KL_PAIRS[name]
    pairs = [_pair(p, device) for p in params]
    tp, mp = [p[0] for p in pairs], [p[1] for p in pairs]
    _check(TD.kl_divergence(*build(TD, *tp)), D.kl_divergence(*build(D, *mp)), tp, mp)


def test_kl_infinities_and_registry():
    p, q = D.Uniform(0.0, 2.0), D.Uniform(0.5, 3.0)
    assert D.kl_divergence(p, q).item() == math.inf
    b = D.kl_divergence(D.Bernoulli(minigrad.tensor([0.5, 0.0])), D.Bernoulli(minigrad.tensor([0.0, 0.0])))
    assert b.tolist() == [math.inf, 0.0]
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Poisson and "
                                                  "q type Laplace"):
        D.kl_divergence(D.Poisson(1.0), D.Laplace(0.0, 1.0))
    with pytest.raises(NotImplementedError, match="cross KL-divergence between different exponential families"):
        D.kl_divergence(D.Poisson(1.0), D.Normal(0.0, 1.0))  # both ExponentialFamily, as in torch

    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        return minigrad.tensor(-1.0)
    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0)).item() == -1.0
    assert D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(0.0, 1.0)).item() == 0.0


@pytest.mark.parametrize("case", [
    lambda d, L: d.Normal(L.tensor([0.0, 1.0]), L.tensor([1.0, -2.0])),
    lambda d, L: d.Normal(0.0, 1.0).log_prob(L.tensor([float("nan")])),
    lambda d, L: d.Uniform(L.tensor([0.0, 1.0]), L.tensor([1.0, 0.5])),
    lambda d, L: d.Uniform(L.tensor([0.0]), L.tensor([1.0])).log_prob(L.tensor([1.5])),
    lambda d, L: d.Bernoulli(probs=L.tensor([0.3]), logits=L.tensor([0.3])),
    lambda d, L: d.Bernoulli(probs=L.tensor([0.3, 0.9])).log_prob(L.tensor([0.5, 0.0])),
    lambda d, L: d.Bernoulli(probs=L.tensor([1.3])),
    lambda d, L: d.Categorical(probs=L.tensor([[0.2, -0.3, 0.5]])),
    lambda d, L: d.Categorical(logits=L.tensor(1.0)),
    lambda d, L: d.Categorical(logits=L.tensor([[0.2, 0.3, 0.5]])).log_prob(L.tensor([3])),
    lambda d, L: d.Poisson(L.tensor([-1.0])),
    lambda d, L: d.Poisson(L.tensor([1.0])).log_prob(L.tensor([0.5])),
    lambda d, L: d.Binomial(L.tensor([2.5]), L.tensor([0.5])),
    lambda d, L: d.Gamma(L.tensor([1.0]), L.tensor([0.0])),
    lambda d, L: d.Beta(L.tensor([1.0]), L.tensor([1.0])).log_prob(L.tensor([1.5])),
    lambda d, L: d.Exponential(L.tensor([1.0])).log_prob(L.tensor([-1.0])),
    lambda d, L: d.MultivariateNormal(L.tensor([0.0, 1.0]), L.tensor([[2.0, 3.0], [0.5, 1.0]])),
    lambda d, L: d.MultivariateNormal(L.tensor([0.0, 1.0]), scale_tril=L.tensor([[2.0, 1.0], [0.5, 1.0]])),
    lambda d, L: d.MultivariateNormal(L.tensor(0.0), L.eye(1)),
    lambda d, L: d.MultivariateNormal(L.tensor([0.0]), L.eye(1), scale_tril=L.eye(1)),
    lambda d, L: d.Independent(d.Normal(L.zeros(2), L.ones(2)), 2),
    lambda d, L: d.Distribution.set_default_validate_args(3)])
def test_validation_errors(case):
    with pytest.raises(Exception) as want:
        case(TD, torch)
    with pytest.raises(Exception) as got:
        case(D, minigrad)
    assert type(got.value) is type(want.value)
    assert str(got.value) == str(want.value).replace("torch.", "minigrad.")


def test_validation_can_be_turned_off():
    d = D.Normal(minigrad.tensor([0.0]), minigrad.tensor([-1.0]), validate_args=False)
    assert math.isnan(d.log_prob(minigrad.tensor([0.0])).item())
    try:
        D.Distribution.set_default_validate_args(False)
        assert D.Normal(0.0, -1.0).scale.item() == -1.0
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(0.0, -1.0)


def test_vae_reparameterization_gradients_match_torch(device):
    """A VAE's encoder output (mu, log sigma) -> z = Normal(mu, sigma).rsample() with a fixed noise
    stream -> decoder loss + KL to the prior: every gradient is torch's."""
    rng = np.random.default_rng(0)
    x, w_enc, w_dec = rng.normal(size=(5, 4)), rng.normal(size=(4, 6)), rng.normal(size=(3, 4))
    noise = rng.normal(size=(5, 3))

    def run(L, dist, params):
        T = (lambda a: L.tensor(a)) if L is torch else (lambda a: L.tensor(a, device=device))  # noqa: E731
        enc = T(x) @ params[0]
        mu, log_sigma = enc[:, :3], enc[:, 3:]
        q = dist.Normal(mu, log_sigma.exp())
        z = mu + T(noise) * q.scale  # rsample with the noise drawn here
        recon = z @ params[1]
        kl = dist.kl_divergence(q, dist.Normal(L.zeros_like(mu), L.ones_like(mu))).sum()
        loss = ((recon - T(x)) ** 2).sum() + kl - q.log_prob(z).sum() * 0.1
        loss.backward()
        return loss, [p.grad for p in params]

    tp = [torch.tensor(w, requires_grad=True) for w in (w_enc, w_dec)]
    mp = [minigrad.tensor(w, requires_grad=True, device=device) for w in (w_enc, w_dec)]
    tl, tg = run(torch, TD, tp)
    ml, mg = run(minigrad, D, mp)
    np.testing.assert_allclose(ml.item(), tl.item(), rtol=1e-10)
    for a, b in zip(tg, mg):
        np.testing.assert_allclose(b.cpu().numpy(), a.numpy(), rtol=1e-9)
    # and rsample itself: with the global seed fixed, the same noise twice, a gradient through both
    mu = minigrad.zeros(3, dtype=minigrad.float64, requires_grad=True, device=device)
    sigma = minigrad.ones(3, dtype=minigrad.float64, requires_grad=True, device=device)
    minigrad.manual_seed(21)
    z1 = D.Normal(mu, sigma).rsample()
    minigrad.manual_seed(21)
    eps = minigrad.randn(3, dtype=minigrad.float64, device=device)
    (z1 ** 2).sum().backward()
    np.testing.assert_allclose(mu.grad.cpu().numpy(), 2 * eps.cpu().numpy(), rtol=1e-12)
    np.testing.assert_allclose(sigma.grad.cpu().numpy(), 2 * eps.cpu().numpy() ** 2, rtol=1e-12)


def test_reinforce_score_function_gradient_matches_torch(device):
    logits_np = np.array([[0.2, -1.0, 0.5, 0.0], [1.0, 0.3, -0.2, 0.1]])
    actions, rewards = [[2, 0], [1, 3]], np.array([[1.0, -0.5], [0.25, 2.0]])

    def run(L, dist, logits):
        pi = dist.Categorical(logits=logits)
        T = (lambda v: L.tensor(v)) if L is torch else (lambda v: L.tensor(v, device=device))  # noqa: E731
        a = T(actions)  # (2 steps, 2 envs)
        loss = -(pi.log_prob(a) * T(rewards)).sum() - 0.01 * pi.entropy().sum()
        loss.backward()
        return loss

    tl = torch.tensor(logits_np, requires_grad=True)
    ml = minigrad.tensor(logits_np, requires_grad=True, device=device)
    np.testing.assert_allclose(run(minigrad, D, ml).item(), run(torch, TD, tl).item(), rtol=1e-10)
    np.testing.assert_allclose(ml.grad.cpu().numpy(), tl.grad.numpy(), rtol=1e-9)
    # the estimator is unbiased: E[grad log pi(a) * R(a)] = grad E[R]
    minigrad.manual_seed(5)
    lg = minigrad.tensor([0.0, 0.5, -0.5], dtype=minigrad.float64, requires_grad=True, device=device)
    reward = minigrad.tensor([1.0, 0.0, 3.0], dtype=minigrad.float64, device=device)
    pi = D.Categorical(logits=lg)
    a = pi.sample((40000,))
    (pi.log_prob(a) * reward[a]).mean().backward()
    p = np.exp([0.0, 0.5, -0.5]) / np.exp([0.0, 0.5, -0.5]).sum()
    exact = p * (np.array([1.0, 0.0, 3.0]) - (p * [1.0, 0.0, 3.0]).sum())
    np.testing.assert_allclose(lg.grad.cpu().numpy(), exact, atol=0.03)
