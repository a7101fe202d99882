"""The basic continuous families: Normal, Uniform, Exponential, Laplace, Gamma, Beta.

Each is written from its density. Reparameterized samplers push parameter-free noise through a
differentiable map (loc + scale * eps, low + width * u, E / rate, ...); Gamma's draws are not such a
map, so their gradient comes from the implicit function theorem applied to the Gamma cdf. The
module also holds the pieces shared with Dirichlet (simplex sampling, density and entropy), since
Beta is the two-component Dirichlet."""
import functools
import math
from numbers import Number

import minigrad as mg
from .. import Size, no_grad
from ..autograd.function import Function
from . import constraints
from ._params import broadcast_all, eps, standard_normal, tiny
from .distribution import Distribution, _CentredAtLoc
from .exp_family import ExponentialFamily

__all__ = ["Normal", "Uniform", "Exponential", "Laplace", "Gamma", "Beta"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


# ---- parameter plumbing shared by every family here and in continuous_more -----------------------

def _store_params(dist, **params):
    """Broadcast the given parameters together, set them as attributes of dist, and return the
    batch shape they imply: () when all of them were plain Python numbers."""
    for name, value in zip(params, broadcast_all(*params.values())):
        setattr(dist, name, value)
    if all(isinstance(v, Number) for v in params.values()):
        return Size()
    return getattr(dist, next(iter(params))).size()


def _adopt_shape(new, source, batch_shape, event_shape=Size()):
    """Give an expanded copy its shapes (its parameters were checked when source was built, so no
    second validation) and source's validation flag."""
    Distribution.__init__(new, batch_shape, event_shape, validate_args=False)
    new._validate_args = source._validate_args
    return new


def _expanded(dist, cls, batch_shape, _instance, names, trailing=()):
    """A copy of dist (an instance of cls or of a subclass) whose parameters `names` are views
    broadcast to batch_shape + trailing (trailing: the parameters' own dims beyond the batch).
    A name may also be an inner distribution, which expands to batch_shape the same way."""
    out = dist._get_checked_instance(cls, _instance)
    batch_shape = Size(batch_shape)
    for name in names:
        setattr(out, name, getattr(dist, name).expand(Size(tuple(batch_shape) + tuple(trailing))))
    return _adopt_shape(out, dist, batch_shape, dist.event_shape)


def _checks_value(method):
    """Decorates log_prob / cdf and alike: with validation on, the value is first checked against
    the support (and the batch and event shapes)."""
    @functools.wraps(method)
    def checked(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return method(self, value)
    return checked


def _noise(dist_param, shape):
    """An uninitialised tensor of the parameter's dtype and device, for an in-place sampler."""
    return mg.empty(shape, dtype=dist_param.dtype, device=dist_param.device)


# ---- Normal ------------------------------------------------------------------------------------

class Normal(_CentredAtLoc, ExponentialFamily):
    """N(loc, scale^2): log p(x) = -z^2 / 2 - log(scale) - log(sqrt(2 pi)), z = (x - loc) / scale.
    As an exponential family its natural parameters are (loc / scale^2, -1 / (2 scale^2))."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc, scale, validate_args=None):
        shape = _store_params(self, loc=loc, scale=scale)
        super().__init__(shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded(self, Normal, batch_shape, _instance, ("loc", "scale"))

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale.pow(2)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return mg.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=Size()):
        # reparameterization: x = loc + scale * eps with eps ~ N(0, 1) carries the gradient
        eps_ = standard_normal(self._extended_shape(sample_shape), self.loc.dtype, self.loc.device)
        return self.loc + eps_ * self.scale

    @_checks_value
    def log_prob(self, value):
        z = (value - self.loc) / self.scale
        return -0.5 * z * z - self.scale.log() - _LOG_SQRT_2PI

    @_checks_value
    def cdf(self, value):
        # Phi(z) = (1 + erf(z / sqrt 2)) / 2
        z = (value - self.loc) / self.scale
        return 0.5 * (z / math.sqrt(2)).erf() + 0.5

    def icdf(self, value):
        # (the value's dtype enters first: a float32 scale is not rounded against sqrt 2 alone)
        return self.loc + self.scale * ((2 * value - 1).erfinv() * math.sqrt(2))

    def entropy(self):
        # H = log(scale * sqrt(2 pi e))
        return self.scale.log() + (0.5 + _LOG_SQRT_2PI)

    @property
    def _natural_params(self):
        precision = self.scale.pow(2).reciprocal()
        return (self.loc * precision, -0.5 * precision)

    def _log_normalizer(self, eta1, eta2):
        # F(eta) = -eta1^2 / (4 eta2) + log(pi / -eta2) / 2
        return 0.5 * (math.pi / -eta2).log() - eta1.pow(2) / (4 * eta2)


# ---- Uniform -----------------------------------------------------------------------------------

class Uniform(Distribution):
    """U[low, high): density 1 / (high - low) on the half-open interval, 0 (log -inf) outside."""
    has_rsample = True

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        shape = _store_params(self, low=low, high=high)
        super().__init__(shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded(self, Uniform, batch_shape, _instance, ("low", "high"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    def _width(self):
        return self.high - self.low

    @property
    def mean(self):
        return (self.low + self.high) / 2

    @property
    def mode(self):
        return self.high * math.nan  # every point is a mode: undefined

    @property
    def stddev(self):
        return self._width() / math.sqrt(12)

    @property
    def variance(self):
        return self._width().pow(2) / 12

    def rsample(self, sample_shape=Size()):
        u = mg.rand(self._extended_shape(sample_shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + u * self._width()

    @_checks_value
    def log_prob(self, value):
        # log of the indicator (0 or -inf, no gradient) minus log of the width
        inside = (self.low <= value) & (self.high > value)
        return inside.to(self.low.dtype).log() - self._width().log()

    @_checks_value
    def cdf(self, value):
        return ((value - self.low) / self._width()).clamp(min=0, max=1)

    def icdf(self, value):
        return self.low + value * self._width()

    def entropy(self):
        return self._width().log()


# ---- Exponential -------------------------------------------------------------------------------

class Exponential(ExponentialFamily):
    """Exp(rate): p(x) = rate * exp(-rate x) on x >= 0; natural parameter -rate."""
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        super().__init__(_store_params(self, rate=rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded(self, Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return 1 / self.rate

    @property
    def mode(self):
        return mg.zeros_like(self.rate)

    @property
    def stddev(self):
        return 1 / self.rate

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=Size()):
        # E ~ Exp(1) scaled: E / rate ~ Exp(rate)
        unit = _noise(self.rate, self._extended_shape(sample_shape)).exponential_()
        return unit / self.rate

    @_checks_value
    def log_prob(self, value):
        return self.rate.log() - value * self.rate

    @_checks_value
    def cdf(self, value):
        return 1 - (-(value * self.rate)).exp()

    def icdf(self, value):
        return (-value).log1p() / -self.rate

    def entropy(self):
        return 1 - self.rate.log()

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, eta):
        return -(-eta).log()  # F(eta) = -log(-eta)


# ---- Laplace -----------------------------------------------------------------------------------

class Laplace(_CentredAtLoc, Distribution):
    """Laplace(loc, scale): p(x) = exp(-|x - loc| / scale) / (2 scale)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(_store_params(self, loc=loc, scale=scale), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded(self, Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def variance(self):
        return self.scale.pow(2) * 2

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    @staticmethod
    def _signed_log_tail(t):
        """sign(t) * log(1 - 2|t|): the standard Laplace quantile of 1/2 + t, up to sign."""
        return t.sign() * (-2 * t.abs()).log1p()

    def rsample(self, sample_shape=Size()):
        # inverse cdf of u ~ U(-1 + eps, 1), read as 1/2 + u/2 (eps keeps log1p(-|u|) finite)
        u = _noise(self.loc, self._extended_shape(sample_shape)).uniform_(eps(self.loc.dtype) - 1, 1)
        return self.loc - self.scale * self._signed_log_tail(u / 2)

    @_checks_value
    def log_prob(self, value):
        return -(value - self.loc).abs() / self.scale - (2 * self.scale).log()

    @_checks_value
    def cdf(self, value):
        d = value - self.loc
        # 1/2 + sign(d) * (1 - exp(-|d| / scale)) / 2
        return 0.5 - 0.5 * d.sign() * (-d.abs() / self.scale).expm1()

    def icdf(self, value):
        return self.loc - self.scale * self._signed_log_tail(value - 0.5)

    def entropy(self):
        return (2 * self.scale).log() + 1


# ---- Gamma sampling ------------------------------------------------------------------------------
# Draws: Marsaglia and Tsang's rejection method. Gradient: for a draw x = F^-1(u; alpha) at a fixed
# quantile u, dx/dalpha = -(dF/dalpha) / p(x) (implicit reparameterization).

def _gamma_draw(alpha):
    """Standard Gamma(alpha) draws (rate 1) of alpha's shape from the global generator. For alpha
    >= 1: x = d v with v = (1 + c n)^3, n ~ N(0, 1), accepted when log u < n^2/2 + d - d v + d log v;
    for alpha < 1 a Gamma(alpha + 1) draw times U^(1/alpha)."""
    with no_grad():
        a = alpha.detach()
        small = a < 1
        d = mg.where(small, a + 1, a) - 1.0 / 3
        c = (9 * d).rsqrt()
        draws = mg.zeros_like(a)
        pending = mg.ones_like(a, dtype=mg.bool)
        while bool(pending.any()):
            n = mg.randn_like(a)
            v = (1 + c * n) ** 3
            log_u = (1 - mg.rand_like(a)).log()  # u in (0, 1]
            ok = (v > 0) & (log_u < 0.5 * n * n + d - d * v + d * v.log())
            draws = mg.where(pending & ok, d * v, draws)
            pending = pending & ~ok
        boost = (1 - mg.rand_like(a)).pow(a.reciprocal())
        return mg.where(small, draws * boost, draws)


def _gamma_dsample_dalpha(x, alpha):
    """dx/dalpha of a standard Gamma draw x held at its quantile: -(dP(alpha, x)/dalpha) / p(x),
    P the regularized lower incomplete gamma function, differentiated by central differences in
    float64."""
    a, xd = alpha.double(), x.double()
    h = 1e-5 * a.clamp(min=1.0)
    dP = (mg.igamma(a + h, xd) - mg.igamma(a - h, xd)) / (2 * h)
    density = ((a - 1) * xd.log() - xd - a.lgamma()).exp()
    return (-dP / density).to(x.dtype)


def _clamp_values(x, lo, hi=None):
    """x with its values clamped to [lo, hi] but its gradient passed straight through (the effect of
    an in-place clamp on a reparameterized sample)."""
    frozen = x.detach()
    return x + (frozen.clamp(min=lo, max=hi) - frozen)


class _StandardGamma(Function):
    """Standard Gamma draws whose backward is the implicit reparameterization gradient."""

    @staticmethod
    def forward(ctx, alpha):
        x = _gamma_draw(alpha)
        ctx.save_for_backward(x, alpha)
        return x

    @staticmethod
    def backward(ctx, grad):
        x, alpha = ctx.saved_tensors
        return grad * _gamma_dsample_dalpha(x, alpha)


# ---- the simplex: Dirichlet(alpha) and Beta (its K = 2 case) ---------------------------------------

def _simplex_rsample(alpha):
    """One Dirichlet(alpha) draw per row of alpha (already of the sample's shape): independent
    Gamma(alpha_i) draws normalized to sum to 1, kept strictly inside the simplex."""
    g = _clamp_values(_StandardGamma.apply(alpha), tiny(alpha.dtype))
    x = g / g.sum(-1, keepdim=True)
    return _clamp_values(x, tiny(x.dtype), 1 - eps(x.dtype))


def _log_multivariate_beta(alpha):
    """log B(alpha) = sum_i lgamma(alpha_i) - lgamma(sum_i alpha_i), over the last dim."""
    return alpha.lgamma().sum(-1) - alpha.sum(-1).lgamma()


def _dirichlet_log_prob(alpha, x):
    """log p(x) = sum_i (alpha_i - 1) log x_i - log B(alpha) (xlogy: 0 log 0 = 0 at alpha_i = 1)."""
    return mg.xlogy(alpha - 1.0, x).sum(-1) - _log_multivariate_beta(alpha)


def _dirichlet_entropy(alpha):
    """H = log B(alpha) + (alpha_0 - K) psi(alpha_0) - sum_i (alpha_i - 1) psi(alpha_i)."""
    total = alpha.sum(-1)
    k = alpha.shape[-1]
    return (_log_multivariate_beta(alpha) + (total - k) * total.digamma()
            - ((alpha - 1.0) * alpha.digamma()).sum(-1))


def _dirichlet_mode(alpha):
    """(alpha_i - 1)_+ normalized; where every alpha_i < 1 the density peaks at a vertex instead,
    the one picked by argmax (index 0 of the all-nan row, as torch)."""
    excess = (alpha - 1).clamp(min=0.0)
    interior = excess / excess.sum(-1, True)
    at_vertex = (alpha < 1).all(-1, keepdim=True)
    vertex = mg.nn.functional.one_hot(interior.argmax(-1), alpha.shape[-1]).to(interior.dtype)
    return mg.where(at_vertex, vertex, interior)


def _dirichlet_variance(alpha):
    total = alpha.sum(-1, True)
    return alpha * (total - alpha) / (total.pow(2) * (total + 1))


# ---- Gamma -------------------------------------------------------------------------------------

class Gamma(ExponentialFamily):
    """Gamma(concentration a, rate b): p(x) = b^a x^(a-1) exp(-b x) / Gamma(a); natural parameters
    (a - 1, -b)."""
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        shape = _store_params(self, concentration=concentration, rate=rate)
        super().__init__(shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded(self, Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return (self.concentration - 1).clamp(min=0) / self.rate  # 0 when concentration < 1

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        x = _StandardGamma.apply(self.concentration.expand(shape)) / self.rate.expand(shape)
        return _clamp_values(x, tiny(x.dtype))  # an underflow to 0 is moved back into the support

    def log_prob(self, value):
        value = mg.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration, self.rate
        return mg.xlogy(a, b) + mg.xlogy(a - 1, value) - b * value - a.lgamma()

    @_checks_value
    def cdf(self, value):
        return mg.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        a = self.concentration
        return a + a.lgamma() + (1.0 - a) * a.digamma() - self.rate.log()

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, eta1, eta2):
        # F = lgamma(a) - a log(b) with a = eta1 + 1, b = -eta2
        a = eta1 + 1
        return a.lgamma() - a * (-eta2).log()


# ---- Beta --------------------------------------------------------------------------------------

class Beta(ExponentialFamily):
    """Beta(concentration1 a, concentration0 b): x^(a-1) (1-x)^(b-1) / B(a, b), the first coordinate
    of a Dirichlet(a, b); the pair is kept stacked in the last dim of one tensor."""
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self._concentration = mg.stack(list(broadcast_all(concentration1, concentration0)), -1)
        super().__init__(self._concentration.shape[:-1], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded(self, Beta, batch_shape, _instance, ("_concentration",), trailing=(2,))

    @property
    def concentration1(self):
        return self._concentration[..., 0]

    @property
    def concentration0(self):
        return self._concentration[..., 1]

    @property
    def mean(self):
        a, b = self.concentration1, self.concentration0
        return a / (a + b)

    @property
    def mode(self):
        return _dirichlet_mode(self._concentration)[..., 0]

    @property
    def variance(self):
        return _dirichlet_variance(self._concentration)[..., 0]

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape)) + (2,)
        return _simplex_rsample(self._concentration.expand(shape))[..., 0]

    @_checks_value
    def log_prob(self, value):
        return _dirichlet_log_prob(self._concentration, mg.stack([value, 1.0 - value], -1))

    def entropy(self):
        return _dirichlet_entropy(self._concentration)

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, a, b):
        return a.lgamma() + b.lgamma() - (a + b).lgamma()  # log B(a, b)
