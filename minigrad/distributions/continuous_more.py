"""The remaining continuous families of torch.distributions, with torch's semantics.

Several are images of a simpler distribution under a fixed map, and are built as such
(TransformedDistribution), so sampling, log_prob and cdf follow from the change of variables:

    LogNormal        exp(N)                        HalfNormal / HalfCauchy   |N| / |Cauchy|
    Gumbel           loc - scale log(-log U)       Weibull                   scale E^(1/k)
    Pareto           scale exp(E / alpha)          Kumaraswamy               (1 - U^(1/b))^(1/a)
    InverseGamma     1 / Gamma                     LogisticNormal            stick-breaking of N

(U uniform, E exponential, N normal). Chi2, StudentT and FisherSnedecor are built on Gamma draws;
Cauchy, VonMises, ContinuousBernoulli and GeneralizedPareto are written directly from their densities."""
import math
from numbers import Number

import minigrad as mg
from .. import Size, no_grad
from . import constraints
from ._params import broadcast_all, clamp_probs, eps, logits_to_probs, probs_to_logits, standard_normal, tiny
from .continuous import (Exponential, Gamma, Normal, Uniform, _adopt_shape, _checks_value, _clamp_values, _expanded,
                         _noise, _store_params)
from .distribution import Distribution, _CentredAtLoc, lazy_property
from .exp_family import ExponentialFamily
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform, AffineTransform, ExpTransform, PowerTransform, StickBreakingTransform

__all__ = ["Cauchy", "Chi2", "ContinuousBernoulli", "FisherSnedecor", "GeneralizedPareto", "Gumbel", "HalfCauchy",
           "HalfNormal", "InverseGamma", "Kumaraswamy", "LogNormal", "LogisticNormal", "Pareto", "StudentT",
           "VonMises", "Weibull"]

_EULER_GAMMA = 0.57721566490153286060  # lim (H_n - log n): appears in Gumbel, Weibull, Kumaraswamy


def _full(like, value, shape):
    """A constant tensor of the given shape with like's dtype and device."""
    return mg.full(shape, value, dtype=like.dtype, device=like.device)


def _expanded_transformed(dist, cls, batch_shape, _instance, names=()):
    """expand for a TransformedDistribution family: its own parameters `names` expanded, then the
    base distribution expanded under the (unchanged, broadcasting) transforms."""
    new = dist._get_checked_instance(cls, _instance)
    for name in names:
        setattr(new, name, getattr(dist, name).expand(batch_shape))
    return TransformedDistribution.expand(dist, batch_shape, _instance=new)


# ---- Cauchy and the folded (half-) distributions -------------------------------------------------

class Cauchy(Distribution):
    """Cauchy(loc, scale): p(x) = 1 / (pi scale (1 + z^2)), z = (x - loc) / scale. Its mean and
    variance do not exist (nan and inf here, as torch)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(_store_params(self, loc=loc, scale=scale), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded(self, Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return _full(self.loc, math.nan, self._extended_shape())

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return _full(self.loc, math.inf, self._extended_shape())

    def rsample(self, sample_shape=Size()):
        standard = _noise(self.loc, self._extended_shape(sample_shape)).cauchy_()
        return self.loc + standard * self.scale

    @_checks_value
    def log_prob(self, value):
        z = (value - self.loc) / self.scale
        return -(z * z).log1p() - self.scale.log() - math.log(math.pi)

    @_checks_value
    def cdf(self, value):
        return 0.5 + mg.atan((value - self.loc) / self.scale) / math.pi

    def icdf(self, value):
        return self.loc + self.scale * mg.tan((value - 0.5) * math.pi)

    def entropy(self):
        return self.scale.log() + math.log(4 * math.pi)


class _Folded(TransformedDistribution):
    """|X| for X symmetric about 0 with parameter `scale`: on x >= 0 the density is twice X's (x and
    -x both land there), the cdf is 2 F(x) - 1 and the entropy loses log 2."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def _fold(self, scale, symmetric, validate_args):
        TransformedDistribution.__init__(self, symmetric(0, scale, validate_args=False), AbsTransform(),
                                         validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return mg.zeros_like(self.scale)

    @_checks_value
    def log_prob(self, value):
        value = mg.as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        doubled = self.base_dist.log_prob(value) + math.log(2)
        return mg.where(value >= 0, doubled, -math.inf)

    @_checks_value
    def cdf(self, value):
        return self.base_dist.cdf(value) * 2 - 1

    def icdf(self, prob):
        return self.base_dist.icdf(0.5 + prob / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfCauchy(_Folded):
    def __init__(self, scale, validate_args=None):
        self._fold(scale, Cauchy, validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded_transformed(self, HalfCauchy, batch_shape, _instance)

    @property
    def mean(self):
        return _full(self.scale, math.inf, self._extended_shape())

    @property
    def variance(self):
        return self.base_dist.variance


class HalfNormal(_Folded):
    def __init__(self, scale, validate_args=None):
        self._fold(scale, Normal, validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded_transformed(self, HalfNormal, batch_shape, _instance)

    @property
    def mean(self):
        return math.sqrt(2 / math.pi) * self.scale

    @property
    def variance(self):
        return (1 - 2 / math.pi) * self.scale.pow(2)


class LogNormal(TransformedDistribution):
    """exp(N(loc, scale^2)); loc and scale are those of the underlying normal."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded_transformed(self, LogNormal, batch_shape, _instance)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + 0.5 * self.scale.pow(2)).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self):
        s2 = self.scale.pow(2)
        return (2 * self.loc + s2).exp() * s2.expm1()  # (e^{s^2} - 1) e^{2 mu + s^2}

    def entropy(self):
        return self.loc + self.base_dist.entropy()  # H[e^N] = H[N] + E[N]


# ---- built on Gamma draws ------------------------------------------------------------------------

class Chi2(Gamma):
    """chi^2 with df degrees of freedom: Gamma(df / 2, rate 1/2)."""
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, self._get_checked_instance(Chi2, _instance))

    @property
    def df(self):
        return 2 * self.concentration


class StudentT(Distribution):
    """Student's t: loc + scale * N / sqrt(V / df) with V ~ chi^2(df);
    log p(x) = lgamma((df+1)/2) - lgamma(df/2) - log(scale sqrt(pi df)) - (df+1)/2 log(1 + y^2/df)."""
    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        shape = _store_params(self, df=df, loc=loc, scale=scale)
        self._chi2 = Chi2(self.df)  # (its validation of df comes first, as torch's)
        super().__init__(shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        # (the inner Chi2 expands like a tensor: both have .expand(batch_shape))
        return _expanded(self, StudentT, batch_shape, _instance, ("df", "loc", "scale", "_chi2"))

    @property
    def mean(self):
        return mg.where(self.df > 1, self.loc, math.nan)  # undefined for df <= 1

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        # scale^2 df / (df - 2) for df > 2; infinite for 1 < df <= 2; undefined for df <= 1
        df = self.df
        finite = df > 2
        df_ok = mg.where(finite, df, 3.0)  # keeps the unused branch (and its gradient) finite
        tail = mg.where(df > 1, _full(df, math.inf, df.shape), _full(df, math.nan, df.shape))
        return mg.where(finite, self.scale.pow(2) * df_ok / (df_ok - 2), tail)

    def rsample(self, sample_shape=Size()):
        normal = standard_normal(self._extended_shape(sample_shape), self.df.dtype, self.df.device)
        chi2 = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * normal * (chi2 / self.df).rsqrt()

    @_checks_value
    def log_prob(self, value):
        df, half = self.df, 0.5 * (self.df + 1.0)
        t2 = ((value - self.loc) / self.scale).pow(2)
        log_norm = (half.lgamma() - (0.5 * df).lgamma() - self.scale.log()
                    - 0.5 * (df.log() + math.log(math.pi)))
        return log_norm - half * (t2 / df).log1p()

    def entropy(self):
        df = self.df
        half, half_df = 0.5 * (df + 1), 0.5 * df
        log_beta = half_df.lgamma() + math.lgamma(0.5) - half.lgamma()  # log B(df/2, 1/2)
        return (self.scale.log() + 0.5 * df.log() + log_beta
                + half * (half.digamma() - half_df.digamma()))


class FisherSnedecor(Distribution):
    """F(df1, df2) = (X1 / df1) / (X2 / df2) with Xi ~ chi^2(dfi). Xi / dfi is Gamma(dfi / 2, rate dfi / 2);
    both are drawn here (as torch) with rate dfi, i.e. halved, which cancels in the ratio."""
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        shape = _store_params(self, df1=df1, df2=df2)
        self._gamma1 = Gamma(0.5 * self.df1, self.df1)
        self._gamma2 = Gamma(0.5 * self.df2, self.df2)
        super().__init__(shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded(self, FisherSnedecor, batch_shape, _instance, ("df1", "df2", "_gamma1", "_gamma2"))

    @property
    def mean(self):
        d2 = mg.where(self.df2 > 2, self.df2, math.nan)
        return d2 / (d2 - 2)

    @property
    def mode(self):
        d1, d2 = self.df1, self.df2
        return mg.where(d1 > 2, (d1 - 2) / d1 * d2 / (d2 + 2), math.nan)

    @property
    def variance(self):
        d1, d2 = self.df1, mg.where(self.df2 > 4, self.df2, math.nan)
        return 2 * d2.pow(2) * (d1 + d2 - 2) / (d1 * (d2 - 2).pow(2) * (d2 - 4))

    def rsample(self, sample_shape=Size(())):
        shape = self._extended_shape(sample_shape)
        floor = tiny(self.df1.dtype)
        num = self._gamma1.rsample(sample_shape).view(shape)
        den = _clamp_values(self._gamma2.rsample(sample_shape).view(shape), floor)
        return _clamp_values(num / den, floor)

    @_checks_value
    def log_prob(self, value):
        a, b = 0.5 * self.df1, 0.5 * self.df2
        ratio = self.df1 / self.df2
        # log p = a log(ratio) + (a - 1) log x - (a + b) log(1 + ratio x) - log B(a, b)
        log_beta = a.lgamma() + b.lgamma() - (a + b).lgamma()
        return a * ratio.log() + (a - 1) * mg.log(value) - (a + b) * mg.log1p(ratio * value) - log_beta


class InverseGamma(TransformedDistribution):
    """1 / X for X ~ Gamma(concentration, rate)."""
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        gamma = Gamma(concentration, rate, validate_args=validate_args)
        reciprocal = PowerTransform(mg.tensor(-1.0, dtype=gamma.rate.dtype, device=gamma.rate.device))
        super().__init__(gamma, reciprocal, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded_transformed(self, InverseGamma, batch_shape, _instance)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        a, b = self.concentration, self.rate
        return mg.where(a > 1, b / (a - 1), math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        a, b = self.concentration, self.rate
        return mg.where(a > 2, b.pow(2) / ((a - 1).pow(2) * (a - 2)), math.inf)

    def entropy(self):
        a = self.concentration
        return a + a.lgamma() - (1 + a) * a.digamma() + self.rate.log()


# ---- images of uniform and exponential draws ---------------------------------------------------

class Gumbel(TransformedDistribution):
    """Gumbel(loc, scale) = loc - scale log(-log U): p(x) = exp(-(z + e^{-z})) / scale, z = (x - loc) / scale."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        _store_params(self, loc=loc, scale=scale)
        # U on [tiny, 1 - eps] so that both logarithms stay finite
        lo, hi = tiny(self.loc.dtype), 1 - eps(self.loc.dtype)
        uniform = Uniform(mg.full_like(self.loc, lo), mg.full_like(self.loc, hi), validate_args=validate_args)
        log = ExpTransform().inv
        steps = [log, AffineTransform(loc=0, scale=-mg.ones_like(self.scale)),  # u -> -log u
                 log, AffineTransform(loc=self.loc, scale=-self.scale)]         # -> loc - scale log(-log u)
        super().__init__(uniform, steps, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded_transformed(self, Gumbel, batch_shape, _instance, ("loc", "scale"))

    @_checks_value
    def log_prob(self, value):
        z = (value - self.loc) / self.scale
        return -(z + (-z).exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + _EULER_GAMMA * self.scale

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale * (math.pi / math.sqrt(6))

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + _EULER_GAMMA)


class Weibull(TransformedDistribution):
    """Weibull(scale lam, concentration k) = lam E^(1/k) with E ~ Exp(1)."""
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        _store_params(self, scale=scale, concentration=concentration)
        self.concentration_reciprocal = 1 / self.concentration
        unit_exp = Exponential(mg.ones_like(self.scale), validate_args=validate_args)
        steps = [PowerTransform(exponent=self.concentration_reciprocal), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(unit_exp, steps, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        names = ("scale", "concentration", "concentration_reciprocal")
        return _expanded_transformed(self, Weibull, batch_shape, _instance, names)

    def _gamma_moment(self, n):
        """Gamma(1 + n / k): E[X^n] = lam^n Gamma(1 + n / k)."""
        return (1 + n * self.concentration_reciprocal).lgamma().exp()

    @property
    def mean(self):
        return self.scale * self._gamma_moment(1)

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k).pow(1 / k)  # nan for k < 1 (the density peaks at 0)

    @property
    def variance(self):
        return self.scale.pow(2) * (self._gamma_moment(2) - self._gamma_moment(1).pow(2))

    def entropy(self):
        inv_k = self.concentration_reciprocal
        return 1 + (self.scale * inv_k).log() + _EULER_GAMMA * (1 - inv_k)


class Pareto(TransformedDistribution):
    """Pareto(scale, alpha) = scale exp(E) with E ~ Exp(alpha); support [scale, inf)."""
    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        _store_params(self, scale=scale, alpha=alpha)
        steps = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(Exponential(self.alpha, validate_args=validate_args), steps, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded_transformed(self, Pareto, batch_shape, _instance, ("scale", "alpha"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)  # alpha <= 1: infinite (a / (a - 1) at a = 1)
        return self.scale * a / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)  # alpha <= 2: infinite
        return a * self.scale.pow(2) / ((a - 2) * (a - 1).pow(2))

    def entropy(self):
        return (self.scale / self.alpha).log() + 1 / self.alpha + 1


def _kumaraswamy_moment(a, b, n):
    """E[X^n] = b B(1 + n / a, b) for X ~ Kumaraswamy(a, b)."""
    s = 1 + n / a
    return b * (s.lgamma() + b.lgamma() - (s + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy(a, b): cdf 1 - (1 - x^a)^b, so X = (1 - U^(1/b))^(1/a)."""
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        _store_params(self, concentration1=concentration1, concentration0=concentration0)
        a, b = self.concentration1, self.concentration0
        uniform = Uniform(mg.zeros_like(b), mg.ones_like(b), validate_args=validate_args)
        steps = [PowerTransform(exponent=1 / b), AffineTransform(loc=1.0, scale=-1.0), PowerTransform(exponent=1 / a)]
        super().__init__(uniform, steps, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded_transformed(self, Kumaraswamy, batch_shape, _instance, ("concentration1", "concentration0"))

    @property
    def mean(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        # torch's expression, kept for parity: log mode = (1/b) log(1 - b) - log(1 - a b), set to nan
        # where a < 1 or b < 1. Since log(1 - b) is undefined for b > 1 (and gives -inf - -inf at
        # b = 1) it is nan for every parameter; the true mode is ((a - 1) / (a b - 1))^(1/a).
        a, b = self.concentration1, self.concentration0
        log_mode = (-b).log1p() / b - (-(a * b)).log1p()
        return mg.where((a < 1) | (b < 1), math.nan, log_mode).exp()

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        return _kumaraswamy_moment(a, b, 2) - self.mean.pow(2)

    def entropy(self):
        # H = (1 - 1/b) + (1 - 1/a) H_b - log(a b), H_b = psi(b + 1) + gamma the b-th harmonic number
        a, b = self.concentration1, self.concentration0
        harmonic = (b + 1).digamma() + _EULER_GAMMA
        return (1 - 1 / b) + (1 - 1 / a) * harmonic - a.log() - b.log()


# ---- Generalized Pareto ------------------------------------------------------------------------

class GeneralizedPareto(Distribution):
    """GPD(loc, scale, xi): survival (1 + xi z)^(-1/xi), z = (x - loc) / scale, read as exp(-z) at
    xi = 0. Support [loc, inf) for xi >= 0, [loc, loc - scale / xi] for xi < 0."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        shape = _store_params(self, loc=loc, scale=scale, concentration=concentration)
        super().__init__(shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded(self, GeneralizedPareto, batch_shape, _instance, ("loc", "scale", "concentration"))

    def _xi(self):
        """(xi == 0 up to isclose, xi with those entries replaced by 1 so both branches are finite)."""
        xi = self.concentration
        at_zero = mg.isclose(xi, mg.zeros_like(xi))
        return at_zero, mg.where(at_zero, mg.ones_like(xi), xi)

    def _z(self, x):
        return (x - self.loc) / self.scale

    def rsample(self, sample_shape=Size()):
        return self.icdf(mg.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device))

    @_checks_value
    def log_prob(self, value):
        z = self._z(value)
        at_zero, xi = self._xi()
        power = 1 / xi + mg.ones_like(z)  # 1 + 1/xi; at xi = -1 the term is 0 (not 0 * log 0)
        general = mg.where(power == 0, power, power * mg.log1p(xi * z))
        return -self.scale.log() - mg.where(at_zero, z, general)

    @_checks_value
    def log_survival_function(self, value):
        z = self._z(value)
        at_zero, xi = self._xi()
        return mg.where(at_zero, -z, -mg.log1p(xi * z) / xi)

    def log_cdf(self, value):
        return mg.log1p(-self.log_survival_function(value).exp())

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        at_zero, xi = self._xi()
        log_tail = mg.log1p(-value)  # log(1 - u)
        general = self.loc + self.scale / xi * mg.expm1(-xi * log_tail)
        return mg.where(at_zero, self.loc - self.scale * log_tail, general)

    @property
    def mean(self):
        ok = self.concentration < 1
        xi = mg.where(ok, self.concentration, 0.5)
        return mg.where(ok, self.loc + self.scale / (1 - xi), math.nan)

    @property
    def variance(self):
        ok = self.concentration < 0.5
        xi = mg.where(ok, self.concentration, 0.25)
        return mg.where(ok, self.scale.pow(2) / ((1 - xi).pow(2) * (1 - 2 * xi)), math.nan)

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        return mg.broadcast_to(self.scale.log() + self.concentration + 1, tuple(self._batch_shape))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        xi = self.concentration
        upper = mg.where(xi < 0, self.loc - self.scale / xi, math.inf)
        return constraints.interval(self.loc, upper)


# ---- von Mises ---------------------------------------------------------------------------------
# log I_0 and log I_1 from the polynomial approximations of Abramowitz & Stegun 9.8.1-9.8.4 (torch's
# choice too, so values agree to rounding): for x < 3.75 I_0(x) and I_1(x) / x are polynomials in
# (x / 3.75)^2; above, sqrt(x) e^-x I_n(x) is a polynomial in 3.75 / x. Coefficients lowest power first.

_BESSEL_I_SERIES = {
    0: ((1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813),
        (0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706, 0.02635537, -0.01647633,
         0.00392377)),
    1: ((0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411),
        (0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967, -0.02895312, 0.01787654,
         -0.00420059)),
}


def _horner(t, coeffs):
    """sum_k coeffs[k] t^k, by Horner's rule."""
    acc = coeffs[-1]
    for c in coeffs[-2::-1]:
        acc = acc * t + c
    return acc


def _log_bessel_i(x, order=0):
    """log I_order(x) for x > 0, order 0 or 1."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    near, far = _BESSEL_I_SERIES[order]
    r = x / 3.75
    inner = _horner(r * r, near)
    if order == 1:
        inner = x.abs() * inner
    outer = x - 0.5 * x.log() + _horner(3.75 / x, far).log()
    return mg.where(x < 3.75, inner.log(), outer)


def _best_fisher(loc, kappa, r, shape):
    """von Mises draws by Best and Fisher's (1979) rejection from a wrapped Cauchy envelope with
    parameter r: each round takes three uniforms per element (one (3, *shape) draw), proposes
    theta = +-acos(f), f = (1 + r z) / (r + z), z = cos(pi u1), and accepts by a quick squeeze or
    the exact test. Entries accepted again in a later round take the later value (as torch)."""
    theta = mg.empty(shape, dtype=loc.dtype, device=loc.device)
    done = mg.zeros(shape, dtype=mg.bool, device=loc.device)
    while not bool(done.all()):
        u1, u2, u3 = mg.rand((3,) + tuple(shape), dtype=loc.dtype, device=loc.device).unbind()
        z = mg.cos(math.pi * u1)
        f = (1 + r * z) / (r + z)
        c = kappa * (r - f)
        accept = (c * (2 - c) > u2) | ((c / u2).log() + 1 - c >= 0)
        theta = mg.where(accept, (u3 - 0.5).sign() * f.acos(), theta)
        done = done | accept
    return (theta + loc + math.pi) % (2 * math.pi) - math.pi  # centred on loc, wrapped to [-pi, pi)


class VonMises(_CentredAtLoc, Distribution):
    """The circular normal: p(theta) = exp(kappa cos(theta - loc)) / (2 pi I_0(kappa)). Sampled (no
    rsample) in float64."""
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        _store_params(self, loc=loc, concentration=concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def expand(self, batch_shape, _instance=None):
        # a fresh instance of the expanded parameters; validate_args carries over only if it was set
        return type(self)(self.loc.expand(batch_shape), self.concentration.expand(batch_shape),
                          validate_args=self.__dict__.get("_validate_args"))

    @_checks_value
    def log_prob(self, value):
        kappa = self.concentration
        return kappa * mg.cos(value - self.loc) - math.log(2 * math.pi) - _log_bessel_i(kappa, 0)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            loc, kappa = self.loc.to(mg.float64), self.concentration.to(mg.float64)
            # the envelope's r in Best and Fisher's notation (a, b); for tiny kappa its expansion
            # 1 / kappa + kappa avoids 0 / 0
            a = 1 + (1 + 4 * kappa.pow(2)).sqrt()
            b = (a - (2 * a).sqrt()) / (2 * kappa)
            r = mg.where(kappa < 1e-5, 1 / kappa + kappa, (1 + b.pow(2)) / (2 * b))
            return _best_fisher(loc, kappa, r, shape).to(self.loc.dtype)

    @property
    def variance(self):
        # the circular variance 1 - E[cos(theta - loc)] = 1 - I_1(kappa) / I_0(kappa)
        kappa = self.concentration
        return 1 - (_log_bessel_i(kappa, 1) - _log_bessel_i(kappa, 0)).exp()


# ---- continuous Bernoulli ----------------------------------------------------------------------

class ContinuousBernoulli(ExponentialFamily):
    """p(x | p) = C(p) p^x (1 - p)^(1 - x) on [0, 1], with normalizer
    C(p) = 2 artanh(1 - 2p) / (1 - 2p), i.e. log C = log|log(1 - p) - log p| - log|1 - 2p|.
    The closed forms are 0 / 0 at p = 1/2: for p in the window `lims` around it, Taylor series in
    (p - 1/2) replace them (and the closed forms are fed the harmless p = lims[0])."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if sum(arg is not None for arg in (probs, logits)) != 1:
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (p,) = broadcast_all(probs)
            # checked before clamping, which would hide values outside [0, 1]; as torch, whenever
            # validate_args is given at all (even False)
            if validate_args is not None and not bool(constraints.unit_interval.check(p).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = self._param = clamp_probs(p)
        else:
            self.logits = broadcast_all(logits)[0]
            self._param = self.logits
        self._lims = lims
        given = logits if probs is None else probs
        super().__init__(Size() if isinstance(given, Number) else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        batch_shape = Size(batch_shape)
        new._lims = self._lims
        for name in ("probs", "logits"):  # whichever are materialized; _param ends on logits if both
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(batch_shape))
                new._param = getattr(new, name)
        return _adopt_shape(new, self, batch_shape)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def _stable(self):
        """Where p is outside the window around 1/2, so the closed forms are accurate."""
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _safe_probs(self):
        return mg.where(self._stable(), self.probs, self._lims[0] * mg.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """log C(p); near 1/2: log 2 + (4/3) d + (104/45) d^2 with d = (p - 1/2)^2."""
        p = self._safe_probs()
        below = p <= 0.5
        # log|1 - 2p|, each side evaluated only where its argument is positive
        log_gap = mg.where(below, mg.log1p(-2.0 * mg.where(below, p, 0.0)),
                           mg.log(2.0 * mg.where(p >= 0.5, p, 1.0) - 1.0))
        closed = mg.log(mg.abs(mg.log1p(-p) - mg.log(p))) - log_gap
        d = (self.probs - 0.5).pow(2)
        return mg.where(self._stable(), closed, math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * d) * d)

    @property
    def mean(self):
        p = self._safe_probs()
        closed = p / (2.0 * p - 1.0) + 1.0 / (mg.log1p(-p) - mg.log(p))
        t = self.probs - 0.5
        return mg.where(self._stable(), closed, 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * t.pow(2)) * t)

    @property
    def variance(self):
        p = self._safe_probs()
        closed = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + 1.0 / (mg.log1p(-p) - mg.log(p)).pow(2)
        d = (self.probs - 0.5).pow(2)
        return mg.where(self._stable(), closed, 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * d) * d)

    @property
    def stddev(self):
        return self.variance.sqrt()

    def rsample(self, sample_shape=Size()):
        u = mg.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    @_checks_value
    def log_prob(self, value):
        lg, x = broadcast_all(self.logits, value)
        # x log p + (1 - x) log(1 - p) is minus the binary cross-entropy with logits
        log_kernel = -mg.nn.functional.binary_cross_entropy_with_logits(lg, x, reduction="none")
        return log_kernel + self._cont_bern_log_norm()

    @_checks_value
    def cdf(self, value):
        p = self._safe_probs()
        closed = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = mg.where(self._stable(), closed, value)  # uniform-like near p = 1/2
        return mg.where(value <= 0.0, mg.zeros_like(value), mg.where(value >= 1.0, mg.ones_like(value), inside))

    def icdf(self, value):
        p = self._safe_probs()
        log_q = mg.log1p(-p)
        closed = (mg.log1p(value * (2.0 * p - 1.0) - p) - log_q) / (mg.log(p) - log_q)
        return mg.where(self._stable(), closed, value)

    def entropy(self):
        log_p, log_q = mg.log(self.probs), mg.log1p(-self.probs)
        return self.mean * (log_q - log_p) - log_q - self._cont_bern_log_norm()

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, eta):
        """F(eta) = log((e^eta - 1) / eta); near eta = 0 its series eta/2 + eta^2/24 - eta^4/2880."""
        stable = (eta <= self._lims[0] - 0.5) | (eta > self._lims[1] - 0.5)
        safe = mg.where(stable, eta, (self._lims[0] - 0.5) * mg.ones_like(eta))
        closed = mg.log(mg.abs(mg.expm1(safe))) - mg.log(mg.abs(safe))
        return mg.where(stable, closed, 0.5 * eta + eta.pow(2) / 24.0 - eta.pow(4) / 2880.0)


# ---- logistic normal ---------------------------------------------------------------------------

class LogisticNormal(TransformedDistribution):
    """The stick-breaking image of a normal vector: a distribution on the simplex of one more
    dimension than loc."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        normal = Normal(loc, scale, validate_args=validate_args)
        if not normal.batch_shape:
            normal = normal.expand([1])  # the transform needs at least one dimension to act on
        super().__init__(normal, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded_transformed(self, LogisticNormal, batch_shape, _instance)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale
