"""kl_divergence(p, q) = KL(p || q) = E_p[log p(X) - log q(X)], and register_kl (the API of
torch.distributions.kl).

Closed forms are registered per pair of distribution types; a lookup takes the most specific
registered pair (by the classes' method resolution orders). The same pairs as torch are registered.

Most mixed pairs share one decomposition, KL(p || q) = H(p, q) - H(p): the cross entropy
H(p, q) = -E_p[log q(X)] of a target family q needs only a few expectations under p (its mean and
variance for a Normal q, E[log X] for a Gamma q, ...), so each target family below gets one
cross-entropy helper and a table of the families p that supply those expectations. Where p puts
mass outside q's support, or the expectation diverges, the KL is +inf.
"""
import math
import warnings

import minigrad as mg
from .. import autograd
from ._params import sum_rightmost
from .continuous import Beta, Exponential, Gamma, Laplace, Normal, Uniform
from .continuous_more import Cauchy, ContinuousBernoulli, Gumbel, HalfNormal, Pareto
from .dirichlet import Dirichlet
from .discrete import Bernoulli, Binomial, Categorical, OneHotCategorical, Poisson
from .discrete_more import Geometric
from .exp_family import ExponentialFamily
from .independent import Independent
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal
from .transformed_distribution import TransformedDistribution

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY = {}  # (type of p, type of q) -> fn(p, q)
_KL_MEMOIZE = {}  # (type(p), type(q)) -> the fn the lookup chose, or NotImplemented

_EULER_GAMMA = 0.57721566490153286060


def register_kl(type_p, type_q):
    """Decorator registering fn(p, q) as KL(p || q) for p an instance of type_p and q of type_q
    (subclasses included, unless a more specific pair is registered)."""
    for name, t in (("type_p", type_p), ("type_q", type_q)):
        if not isinstance(t, type):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {t}")

    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        _KL_MEMOIZE.clear()  # a new pair may be more specific than an earlier choice
        return fn
    return decorator


def _dispatch_kl(type_p, type_q):
    """The registered fn for the most specific pair matching (type_p, type_q). Specificity is the
    position in the MRO, compared first on p then on q; if comparing first on q picks another fn,
    the choice is ambiguous, and a warning asks for the missing pair."""
    matches = [(tp, tq) for tp, tq in _KL_REGISTRY if issubclass(type_p, tp) and issubclass(type_q, tq)]
    if not matches:
        return NotImplemented
    rank_p = {c: i for i, c in enumerate(type_p.__mro__)}
    rank_q = {c: i for i, c in enumerate(type_q.__mro__)}
    p_first = min(matches, key=lambda m: (rank_p[m[0]], rank_q[m[1]]))
    q_first = min(matches, key=lambda m: (rank_q[m[1]], rank_p[m[0]]))
    chosen = _KL_REGISTRY[p_first]
    if chosen is not _KL_REGISTRY[q_first]:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({p_first[0].__name__}, {q_first[1].__name__})", RuntimeWarning,
                      stacklevel=2)
    return chosen


def kl_divergence(p, q):
    key = (type(p), type(q))
    if key not in _KL_MEMOIZE:
        _KL_MEMOIZE[key] = _dispatch_kl(*key)
    fn = _KL_MEMOIZE[key]
    if fn is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
                                  f"{q.__class__.__name__}")
    return fn(p, q)


def _register_all(pairs, fn):
    for type_p, type_q in pairs:
        register_kl(type_p, type_q)(fn)


# ---- small helpers --------------------------------------------------------------------------------------

def _for_family(table, p):
    """The entry of table for p's family (its class or the nearest base class listed)."""
    return next(table[c] for c in type(p).__mro__ if c in table)


def _inf_where(mask, value):
    """value, with +inf where mask holds."""
    return mg.where(mask, math.inf, value)


def _inf_like(p):
    """+inf over p's batch shape: the KL when p has mass where q has no density."""
    return mg.full_like(p.mean, math.inf)


def _x_log_x(t):
    return t * t.log()


def _weighted_log_ratio(weight, log_ratio, weight_is_zero, other_is_zero):
    """weight * log_ratio, a term of a discrete KL, with the limits 0 log(0/b) = 0 and
    a log(a/0) = +inf."""
    term = weight * log_ratio
    term = mg.where(other_is_zero, math.inf, term)
    return mg.where(weight_is_zero, 0.0, term)


# ---- discrete families ------------------------------------------------------------------------------------

@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # pi log(pi/theta) + (1-pi) log((1-pi)/(1-theta)), the log-ratios from the logits
    # (log pi = -softplus(-logit), log(1-pi) = -softplus(logit)), stable for extreme probabilities
    sp = mg.nn.functional.softplus
    ones = _weighted_log_ratio(p.probs, sp(-q.logits) - sp(-p.logits), p.probs == 0, q.probs == 0)
    zeros = _weighted_log_ratio(1 - p.probs, sp(q.logits) - sp(p.logits), p.probs == 1, q.probs == 1)
    return ones + zeros


@register_kl(Categorical, Categorical)
@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_categorical_categorical(p, q):
    # sum_k pi_k (log pi_k - log theta_k); a one-hot categorical has the same probs and logits
    terms = _weighted_log_ratio(p.probs, p.logits - q.logits, p.probs == 0, q.probs == 0)
    return terms.sum(-1)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    # With n trials, KL = E[k] log(pi/theta) + E[n-k] log((1-pi)/(1-theta)), E[k] = n pi; infinite
    # when p reaches counts above q's total_count.
    if (p.total_count < q.total_count).any():
        raise NotImplementedError('KL between Binomials where q.total_count > p.total_count is not implemented')
    per_trial = p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p()
    return _inf_where(p.total_count > q.total_count, p.total_count * per_trial)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    # -log q(k) = -k log(1-theta) - log theta, with E_p[k] = (1-pi)/pi
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    rp, rq = p.rate, q.rate
    return rp * (rp.log() - rq.log()) - (rp - rq)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    # -log q(k) = r - k log r + log k!, and log k! = 0 for k in {0, 1}
    return -p.entropy() + q.rate - p.probs * q.rate.log()


# ---- families whose KL has its own closed form ---------------------------------------------------------

@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    # 1/2 (v + d^2 - 1 - log v), v the variance ratio, d the mean gap in units of q's scale
    v = (p.scale / q.scale).pow(2)
    d = (p.loc - q.loc) / q.scale
    return 0.5 * (v + d.pow(2) - 1 - v.log())


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    # folding both normals at 0 keeps the density ratio, hence the KL
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    value = ((q.high - q.low) / (p.high - p.low)).log()  # log of the width ratio
    return _inf_where((q.low > p.low) | (q.high < p.high), value)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    # log[((s_p + s_q)^2 + (m_p - m_q)^2) / (4 s_p s_q)]
    spread = (p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)
    return spread.log() - (4 * p.scale * q.scale).log()


def _dirichlet_kl(a, b):
    """KL between Dirichlets of concentration vectors a and b (last dim):
    log B(b) - log B(a) + sum_i (a_i - b_i) (digamma(a_i) - digamma(a_0)), a_0 = sum_i a_i, with
    log B(c) = sum_i lgamma(c_i) - lgamma(c_0)."""
    a0, b0 = a.sum(-1), b.sum(-1)
    log_beta_ratio = (a0.lgamma() - b0.lgamma()) - (a.lgamma() - b.lgamma()).sum(-1)
    mean_log = a.digamma() - a0.digamma().unsqueeze(-1)  # E_p[log x_i]
    return log_beta_ratio + ((a - b) * mean_log).sum(-1)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    return _dirichlet_kl(p.concentration, q.concentration)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    # Beta(a, b) is the Dirichlet of (a, b) on the two-point simplex
    def pair(d):
        return mg.stack([d.concentration1, d.concentration0], -1)
    return _dirichlet_kl(pair(p), pair(q))


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    kp, rp, kq, rq = p.concentration, p.rate, q.concentration, q.rate
    return (kq * (rp / rq).log() + kq.lgamma() - kp.lgamma() + (kp - kq) * kp.digamma()
            + (rq - rp) * (kp / rp))


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - ratio.log() - 1


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    # infinite when p starts below q's scale, where q has no density
    alpha_ratio = q.alpha / p.alpha
    value = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return _inf_where(p.scale < q.scale, value)


# ---- cross entropies H(p, q) = -E_p[log q(X)], one per target family q ----------------------------

def _normal_cross_entropy(p, q):
    """-E log N(X; m, s) = 1/2 log(2 pi s^2) + (Var X + (E X - m)^2) / (2 s^2)."""
    var_q = q.scale.pow(2)
    return 0.5 * (2 * math.pi * var_q).log() + (p.variance + (p.mean - q.loc).pow(2)) / (2 * var_q)


def _exponential_cross_entropy(p, q):
    """-E log(r e^{-r X}) = r E X - log r."""
    return q.rate * p.mean - q.rate.log()


def _gamma_cross_entropy(p, q):
    """-E log Gamma(X; k, r) = lgamma(k) - k log r - (k - 1) E log X + r E X."""
    k, r = q.concentration, q.rate
    return k.lgamma() - k * r.log() - (k - 1) * _for_family(_MEAN_LOG, p)(p) + r * p.mean


def _gumbel_cross_entropy(p, q):
    """With z = (X - m) / b: -E log Gumbel(X; m, b) = log b + E z + E exp(-z). E exp(-z) is p's
    moment generating function at -1/b, shifted (table _GUMBEL_TILT)."""
    return q.scale.log() + (p.mean - q.loc) / q.scale + _for_family(_GUMBEL_TILT, p)(p, q)


def _laplace_cross_entropy(p, q):
    """-E log Laplace(X; m, b) = log(2 b) + E|X - m| / b."""
    return (2 * q.scale).log() + _for_family(_MEAN_ABS_DEVIATION, p)(p, q) / q.scale


def _pareto_cross_entropy(p, q):
    """-E log Pareto(X; s, a) = -log a - a log s + (a + 1) E log X (for X >= s)."""
    a = q.alpha
    return (a + 1) * _for_family(_MEAN_LOG, p)(p) - (a * q.scale.pow(a)).log()


def _beta_cross_entropy(p, q):
    """-E log Beta(X; a, b) = log B(a, b) - (a - 1) E log X - (b - 1) E log(1 - X), for p uniform
    (the one family registered against Beta), so that 1 - X is uniform on [1 - high, 1 - low]."""
    a, b = q.concentration1, q.concentration0
    log_beta = a.lgamma() + b.lgamma() - (a + b).lgamma()
    return log_beta - (a - 1) * _for_family(_MEAN_LOG, p)(p) - (b - 1) * _uniform_mean_log(1 - p.high, 1 - p.low)


def _continuous_bernoulli_cross_entropy(p, q):
    """log q(x) is affine in x on [0, 1] (x logit + log(1 - lambda) + log C(lambda)), so its mean is
    log q(0) + E X (log q(1) - log q(0))."""
    zero = q.probs.new_zeros(())
    at0, at1 = q.log_prob(zero), q.log_prob(zero + 1)
    return -(at0 + p.mean * (at1 - at0))


def _uniform_cross_entropy(p, q):
    """-E log U(X; a, b) = log(b - a), for p inside [a, b]."""
    return (q.high - q.low).log()


# E[log X] under p
def _uniform_mean_log(lo, hi):
    """E log X for X uniform on [lo, hi]: (hi log hi - lo log lo) / (hi - lo) - 1."""
    return (_x_log_x(hi) - _x_log_x(lo)) / (hi - lo) - 1


_MEAN_LOG = {
    Beta: lambda p: p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma(),
    Exponential: lambda p: -_EULER_GAMMA - p.rate.log(),
    Gamma: lambda p: p.concentration.digamma() - p.rate.log(),
    Pareto: lambda p: p.scale.log() + p.alpha.reciprocal(),
    Uniform: lambda p: _uniform_mean_log(p.low, p.high),
}

# E exp(-(X - m) / b) under p, for the Gumbel q(m, b)
_GUMBEL_TILT = {
    Exponential: lambda p, q: (q.loc / q.scale).exp() * (p.rate * q.scale) / (p.rate * q.scale + 1),
    Gamma: lambda p, q: (q.loc / q.scale).exp() * (1 + (p.rate * q.scale).reciprocal()).pow(-p.concentration),
    Gumbel: lambda p, q: ((q.loc - p.loc) / q.scale + (1 + p.scale / q.scale).lgamma()).exp(),
    Normal: lambda p, q: ((q.loc - p.loc) / q.scale + 0.5 * (p.scale / q.scale).pow(2)).exp(),
    Uniform: lambda p, q: (q.scale / (p.high - p.low)) * (((q.loc - p.low) / q.scale).exp()
                                                          - ((q.loc - p.high) / q.scale).exp()),
}


def _normal_mean_abs_deviation(p, q):
    # |X - m| for X ~ N(mu, s) is folded normal: s sqrt(2/pi) e^{-d^2/(2 s^2)} + d erf(d / (s sqrt 2)),
    # d = mu - m
    gap = p.loc - q.loc
    z = gap / p.scale
    return math.sqrt(2 / math.pi) * p.scale * (-0.5 * z.pow(2)).exp() + gap * mg.erf(z / math.sqrt(2))


# E|X - m| under p, for the Laplace q(m, b)
_MEAN_ABS_DEVIATION = {
    Laplace: lambda p, q: (p.loc - q.loc).abs() + p.scale * (-(p.loc - q.loc).abs() / p.scale).exp(),
    Normal: _normal_mean_abs_deviation,
}

# Where p has mass outside q's support (or p's moments diverge), the KL is +inf. Beta/Uniform and
# ContinuousBernoulli/Uniform compare the bounds differently (strictly, or not), as torch does.
_INFINITE_WHERE = {
    (Beta, Uniform): lambda p, q: (q.low > p.support.lower_bound) | (q.high < p.support.upper_bound),
    (ContinuousBernoulli, Uniform): lambda p, q: ((q.low >= p.support.lower_bound)
                                                  | (q.high <= p.support.upper_bound)),
    (Uniform, Beta): lambda p, q: (p.high > q.support.upper_bound) | (p.low < q.support.lower_bound),
    (Uniform, ContinuousBernoulli): lambda p, q: ((p.high >= q.support.upper_bound)
                                                  | (p.low <= q.support.lower_bound)),
    (Uniform, Exponential): lambda p, q: p.low < q.support.lower_bound,
    (Uniform, Gamma): lambda p, q: p.low < q.support.lower_bound,
    (Uniform, Pareto): lambda p, q: p.low < q.support.lower_bound,
    (Pareto, Exponential): lambda p, q: p.alpha <= 1,  # E X diverges
    (Pareto, Gamma): lambda p, q: p.alpha <= 1,
    (Pareto, Normal): lambda p, q: p.alpha <= 2,  # Var X diverges
}

_CROSS_ENTROPY_PAIRS = {  # target family q: (its cross entropy, the families p it is registered for)
    Normal: (_normal_cross_entropy, (Beta, ContinuousBernoulli, Exponential, Gamma, Gumbel, Laplace, Pareto,
                                     Uniform)),
    Exponential: (_exponential_cross_entropy, (Beta, ContinuousBernoulli, Gamma, Pareto, Uniform)),
    Gamma: (_gamma_cross_entropy, (Beta, Exponential, Pareto, Uniform)),
    Gumbel: (_gumbel_cross_entropy, (Exponential, Gamma, Gumbel, Normal, Uniform)),
    Laplace: (_laplace_cross_entropy, (Laplace, Normal)),
    Pareto: (_pareto_cross_entropy, (Uniform,)),
    Beta: (_beta_cross_entropy, (Uniform,)),
    ContinuousBernoulli: (_continuous_bernoulli_cross_entropy, (Beta, ContinuousBernoulli, Uniform)),
    Uniform: (_uniform_cross_entropy, (Beta, ContinuousBernoulli)),
}


def _kl_by_cross_entropy(cross_entropy, infinite_where):
    def kl(p, q):
        value = cross_entropy(p, q) - p.entropy()
        return value if infinite_where is None else _inf_where(infinite_where(p, q), value)
    return kl


for _q_type, (_cross_entropy, _p_types) in _CROSS_ENTROPY_PAIRS.items():
    for _p_type in _p_types:
        register_kl(_p_type, _q_type)(_kl_by_cross_entropy(_cross_entropy, _INFINITE_WHERE.get((_p_type, _q_type))))
del _q_type, _cross_entropy, _p_types, _p_type

# p's support reaches where q's density is zero: beyond [0, 1] (Beta, ContinuousBernoulli, Uniform
# q's of any fixed interval), below 0 (Exponential, Gamma) or below q's scale (Pareto). Poisson
# counts above 1 (or above a Binomial's total_count) likewise.
_SUPPORT_ESCAPES = {
    Beta: (Pareto,),
    ContinuousBernoulli: (Pareto,),
    Exponential: (Beta, ContinuousBernoulli, Pareto, Uniform),
    Gamma: (Beta, ContinuousBernoulli, Pareto, Uniform),
    Gumbel: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
    Laplace: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
    Normal: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
    Pareto: (Beta, ContinuousBernoulli, Uniform),
    Poisson: (Bernoulli, Binomial),
}
_register_all([(p, q) for p, qs in _SUPPORT_ESCAPES.items() for q in qs], lambda p, q: _inf_like(p))


# ---- multivariate normals, full or low-rank covariance ------------------------------------------------
#
# KL(p || q) = 1/2 [log det S_q - log det S_p + tr(S_q^-1 S_p) + (m_q - m_p)^T S_q^-1 (m_q - m_p) - n].
# Both the trace and the Mahalanobis term are tr(M^T S_q^-1 M): with M any square root of S_p
# (S_p = M M^T) and with M = m_q - m_p as one column. For a full covariance S_q = L L^T this is the
# squared Frobenius norm of L^-1 M. For a low-rank S_q = W W^T + D, Woodbury gives
# S_q^-1 = D^-1 - D^-1 W C^-1 W^T D^-1 with the small capacitance C = I + W^T D^-1 W = K K^T, so
# tr(M^T S_q^-1 M) = |D^-1/2 M|^2 - |K^-1 W^T D^-1 M|^2, and log det S_q = log det C + sum log D.

def _frobenius2(m):
    return m.pow(2).sum((-2, -1))


def _solve_lower(lower, rhs):
    """lower^-1 rhs, the two broadcast over their batch dims first."""
    batch = mg.broadcast_shapes(lower.shape[:-2], rhs.shape[:-2])
    lower = lower.expand(tuple(batch) + tuple(lower.shape[-2:]))
    rhs = rhs.expand(tuple(batch) + tuple(rhs.shape[-2:]))
    return mg.linalg.solve_triangular(lower, rhs, upper=False)


def _capacitance_cholesky(d):
    w_over_d = d.cov_factor.mT / d.cov_diag.unsqueeze(-2)  # W^T D^-1
    rank = d.cov_factor.shape[-1]
    eye = mg.eye(rank, dtype=w_over_d.dtype, device=w_over_d.device)
    return mg.linalg.cholesky(eye + w_over_d @ d.cov_factor), w_over_d


def _gaussian_log_det(d):
    if isinstance(d, MultivariateNormal):
        return 2 * d.scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    k, _ = _capacitance_cholesky(d)
    return 2 * k.diagonal(dim1=-2, dim2=-1).log().sum(-1) + d.cov_diag.log().sum(-1)


def _gaussian_sqrt_cov(d):
    """A matrix M with M M^T the covariance: the Cholesky factor, or [W, D^1/2] for a low rank."""
    if isinstance(d, MultivariateNormal):
        return d.scale_tril
    return mg.cat([d.cov_factor, d.cov_diag.sqrt().diag_embed()], -1)


def _inverse_quadratic(q, m):
    """tr(M^T S_q^-1 M)."""
    if isinstance(q, MultivariateNormal):
        return _frobenius2(_solve_lower(q.scale_tril, m))
    k, w_over_d = _capacitance_cholesky(q)
    whitened = m / q.cov_diag.sqrt().unsqueeze(-1)
    return _frobenius2(whitened) - _frobenius2(_solve_lower(k, w_over_d @ m))


def _gaussian_kl(message):
    def kl(p, q):
        if p.event_shape != q.event_shape:
            raise ValueError(message)
        trace = _inverse_quadratic(q, _gaussian_sqrt_cov(p))
        mahalanobis = _inverse_quadratic(q, (q.loc - p.loc).unsqueeze(-1))
        return 0.5 * (_gaussian_log_det(q) - _gaussian_log_det(p) + trace + mahalanobis - p.event_shape[0])
    return kl


_MIXED_RANK = ('KL-divergence between two (Low Rank) Multivariate Normals with'
               '                          different event shapes cannot be computed')
register_kl(MultivariateNormal, MultivariateNormal)(_gaussian_kl(
    "KL-divergence between two Multivariate Normals with different event shapes cannot be computed"))
register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)(_gaussian_kl(
    'KL-divergence between two Low Rank Multivariate Normals with'
    '                          different event shapes cannot be computed'))
register_kl(MultivariateNormal, LowRankMultivariateNormal)(_gaussian_kl(_MIXED_RANK))
register_kl(LowRankMultivariateNormal, MultivariateNormal)(_gaussian_kl(_MIXED_RANK))


# ---- generic pairs --------------------------------------------------------------------------------------

@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """Within one exponential family (log-normalizer F, natural parameters eta) the KL is the
    Bregman divergence of F: F(eta_q) - F(eta_p) - <eta_q - eta_p, grad F(eta_p)>, with grad F by
    autograd. (p's eta are detached first, as in torch: no gradient reaches p's parameters.)"""
    if type(p) is not type(q):
        raise NotImplementedError('The cross KL-divergence between different exponential families cannot'
                                  '                             be computed using Bregman divergences')
    eta_p = [e.detach().requires_grad_() for e in p._natural_params]
    eta_q = q._natural_params
    f_p = p._log_normalizer(*eta_p)
    grad_f_p = autograd.grad(f_p.sum(), eta_p, create_graph=True)
    result = q._log_normalizer(*eta_q) - f_p
    for ep, eq, g in zip(eta_p, eta_q, grad_f_p):
        result = result - sum_rightmost((eq - ep) * g, len(q.event_shape))
    return result


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    # independent coordinates: the KLs add over the reinterpreted dims
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    # the KL is invariant under a common bijection of both variables
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)
