"""Continuous distributions: Normal, Uniform, Exponential, Laplace, Gamma, Beta."""
import math
from numbers import Number

from .. import Size, no_grad
from ..autograd.function import Function
from . import constraints
from ._params import broadcast_all, eps, standard_normal, tiny
from .distribution import Distribution

__all__ = ["Normal", "Uniform", "Exponential", "Laplace", "Gamma", "Beta"]


def _shape_of(params, *values):
    """The batch shape: () when every given parameter was a Python number."""
    return Size() if all(isinstance(v, Number) for v in values) else params.size()


def _expand_params(self, cls, batch_shape, _instance, names):
    new = self._get_checked_instance(cls, _instance)
    batch_shape = Size(batch_shape)
    for n in names:
        setattr(new, n, getattr(self, n).expand(batch_shape))
    Distribution.__init__(new, batch_shape, validate_args=False)
    new._validate_args = self._validate_args
    return new


class Normal(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_shape_of(self.loc, loc, scale), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Normal, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def sample(self, sample_shape=Size()):
        import minigrad
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return minigrad.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        noise = standard_normal(shape, self.loc.dtype, self.loc.device)
        return self.loc + noise * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = math.log(self.scale) if isinstance(self.scale, Number) else self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())

    def icdf(self, value):
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()


class Uniform(Distribution):
    has_rsample = True

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(_shape_of(self.low, low, high), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Uniform, batch_shape, _instance, ("low", "high"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return math.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=Size()):
        import minigrad
        shape = self._extended_shape(sample_shape)
        rand = minigrad.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return lb.mul(ub).log() - (self.high - self.low).log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()


class Exponential(Distribution):
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(_shape_of(self.rate, rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return self.rate.new_zeros(self.rate.shape)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=Size()):
        import minigrad
        shape = self._extended_shape(sample_shape)
        return minigrad.empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        return -(-value).log1p() / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()


class Laplace(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_shape_of(self.loc, loc, scale), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=Size()):
        import minigrad
        shape = self._extended_shape(sample_shape)
        u = minigrad.empty(shape, dtype=self.loc.dtype, device=self.loc.device).uniform_(eps(self.loc.dtype) - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * (-(value - self.loc).abs() / self.scale).expm1()

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()


# ---- Gamma sampling: Marsaglia and Tsang's rejection method, with the implicit reparameterization
# gradient of the sample with respect to the concentration ------------------------------------------

def _gamma_draw(alpha):
    """Standard Gamma(alpha) draws (rate 1) of alpha's shape, from the global generator: Marsaglia
    and Tsang's squeeze-free rejection from normal and uniform draws, boosted by U^(1/alpha) for
    alpha < 1."""
    import minigrad
    with no_grad():
        a = alpha.detach()
        boost = a < 1
        d = minigrad.where(boost, a + 1, a) - 1.0 / 3
        c = (9 * d).rsqrt()
        out = minigrad.zeros_like(a)
        todo = minigrad.ones_like(a, dtype=minigrad.bool)
        while bool(todo.any()):
            x = minigrad.randn_like(a)
            v = (1 + c * x) ** 3
            u = 1 - minigrad.rand_like(a)  # in (0, 1]
            ok = (v > 0) & (u.log() < 0.5 * x * x + d - d * v + d * v.log())
            out = minigrad.where(todo & ok, d * v, out)
            todo = todo & ~ok
        u = 1 - minigrad.rand_like(a)
        return minigrad.where(boost, out * u.pow(a.reciprocal()), out)


def _gamma_dsample_dalpha(x, alpha):
    """d x / d alpha of a standard Gamma sample x held at a fixed quantile: -dP(alpha, x)/dalpha
    over the density, P the regularized lower incomplete gamma function (its alpha derivative by
    central differences in float64)."""
    import minigrad
    a, xd = alpha.double(), x.double()
    h = 1e-5 * a.clamp(min=1.0)
    dp = (minigrad.igamma(a + h, xd) - minigrad.igamma(a - h, xd)) / (2 * h)
    log_pdf = (a - 1) * xd.log() - xd - a.lgamma()
    return (-dp / log_pdf.exp()).to(x.dtype)


def _clamp_values(x, lo, hi=None):
    """x with its values clamped to [lo, hi], its gradient passing through unchanged."""
    return x + (x.detach().clamp(min=lo, max=hi) - x.detach())


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx, alpha):
        x = _gamma_draw(alpha)
        ctx.save_for_backward(x, alpha)
        return x

    @staticmethod
    def backward(ctx, g):
        x, alpha = ctx.saved_tensors
        return g * _gamma_dsample_dalpha(x, alpha)


class Gamma(Distribution):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(_shape_of(self.concentration, concentration, rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        value = _StandardGamma.apply(self.concentration.expand(shape)) / self.rate.expand(shape)
        # as torch: a draw that underflowed to 0 is moved into the support, the gradient untouched
        return _clamp_values(value, tiny(value.dtype))

    def log_prob(self, value):
        import minigrad
        value = minigrad.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (minigrad.xlogy(self.concentration, self.rate) + minigrad.xlogy(self.concentration - 1, value)
                - self.rate * value - self.concentration.lgamma())

    def entropy(self):
        c = self.concentration
        return c - self.rate.log() + c.lgamma() + (1.0 - c) * c.digamma()

    def cdf(self, value):
        import minigrad
        if self._validate_args:
            self._validate_sample(value)
        return minigrad.special.gammainc(self.concentration, self.rate * value)


class Beta(Distribution):
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        import minigrad
        c1, c0 = broadcast_all(concentration1, concentration0)
        self._concentration = minigrad.stack([c1, c0], -1)
        super().__init__(self._concentration.shape[:-1], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = Size(batch_shape)
        new._concentration = self._concentration.expand(tuple(batch_shape) + (2,))
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self):
        return self._concentration[..., 0]

    @property
    def concentration0(self):
        return self._concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        import minigrad
        # the Dirichlet's mode: where both concentrations are below 1, the larger one's vertex
        cm1 = (self._concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, True)
        both_below = (self._concentration < 1).all(-1, keepdim=True)
        vertex = minigrad.nn.functional.one_hot(mode.argmax(-1), 2).to(mode.dtype)
        return minigrad.where(both_below, vertex, mode)[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        g = _StandardGamma.apply(self._concentration.expand(tuple(shape) + (2,)))
        g = _clamp_values(g, tiny(g.dtype))
        x = g / g.sum(-1, keepdim=True)
        return _clamp_values(x, tiny(x.dtype), 1 - eps(x.dtype))[..., 0]

    def log_prob(self, value):
        import minigrad
        if self._validate_args:
            self._validate_sample(value)
        x = minigrad.stack([value, 1.0 - value], -1)
        conc = self._concentration
        return (minigrad.xlogy(conc - 1.0, x).sum(-1) + conc.sum(-1).lgamma() - conc.lgamma().sum(-1))

    def entropy(self):
        conc = self._concentration
        a0 = conc.sum(-1)
        return (conc.lgamma().sum(-1) - a0.lgamma() - (2 - a0) * a0.digamma()
                - ((conc - 1.0) * conc.digamma()).sum(-1))
