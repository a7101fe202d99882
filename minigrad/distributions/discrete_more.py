"""More discrete families: Geometric, NegativeBinomial, Multinomial and the straight-through
OneHotCategorical."""
import math

import minigrad as mg
from .. import Size, no_grad
from . import constraints
from ._params import broadcast_all, tiny
from .continuous import Gamma
from .discrete import Binomial, Categorical, OneHotCategorical, _CategoricalView, _ProbsOrLogits, _expanded_param
from .distribution import Distribution, _checks_value, _expand_into, lazy_property

__all__ = ["Geometric", "Multinomial", "NegativeBinomial", "OneHotCategoricalStraightThrough"]


class Geometric(_ProbsOrLogits, Distribution):
    """The number k of failures before the first success of Bernoulli(p) trials:
    p(k) = (1 - p)^k p, so log p(k) = k log1p(-p) + log p."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._take_param(probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)
        # unit_interval admits p = 0, which would never succeed: reject it as well
        if probs is not None and self._validate_args:
            p = self.probs
            ok = p > 0
            if not bool(ok.all()):
                raise ValueError(f"Expected parameter probs ({type(p).__name__} of shape {tuple(p.shape)}) "
                                 f"of distribution {self!r} to be positive but found invalid values:\n"
                                 f"{p.detach()[~ok]}")

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        return _expand_into(self, Geometric, _instance, batch_shape, **_expanded_param(self, batch_shape))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0  # (1 - p) / p

    @property
    def mode(self):
        return mg.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs  # (1 - p) / p^2

    def sample(self, sample_shape=Size()):
        # inverse cdf: P(K >= k) = (1 - p)^k, so K = floor(log U / log(1 - p)); U starts at the
        # smallest positive float so that log U stays finite
        p = self.probs
        with no_grad():
            u = mg.empty(self._extended_shape(sample_shape), dtype=p.dtype, device=p.device)
            u.uniform_(tiny(p.dtype), 1)
            return (u.log() / (-p).log1p()).floor()

    @_checks_value
    def log_prob(self, value):
        k, p = broadcast_all(value, self.probs)
        # at p = 1 only k = 0 is possible, and its term k * log(1 - p) is 0 * -inf: use p = 0 there
        p_fail = mg.where((p == 1) & (k == 0), 0.0, p)
        return k * (-p_fail).log1p() + self.probs.log()

    def entropy(self):
        # H = [-p log p - (1 - p) log(1 - p)] / p: one Bernoulli entropy per expected trial
        bernoulli_h = mg.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bernoulli_h / self.probs


class NegativeBinomial(_ProbsOrLogits, Distribution):
    """The number k of successes before total_count = r failures of Bernoulli(p) trials:
    p(k) = Gamma(r + k) / (k! Gamma(r)) p^k (1 - p)^r."""
    arg_constraints = {"total_count": constraints.greater_than_eq(0), "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        (count,) = self._take_param(probs, logits, total_count)
        self.total_count = count.type_as(self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        return _expand_into(self, NegativeBinomial, _instance, batch_shape,
                            total_count=self.total_count.expand(batch_shape), **_expanded_param(self, batch_shape))

    # with odds e^logits = p / (1 - p):
    @property
    def mean(self):
        return self.total_count * self.logits.exp()  # r p / (1 - p)

    @property
    def mode(self):
        odds = self.logits.exp()
        return (odds * (self.total_count - 1)).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / (-self.logits).sigmoid()  # r p / (1 - p)^2

    @lazy_property
    def _gamma(self):
        # the mixing distribution of the Gamma-Poisson construction; total_count may be 0, which
        # Gamma's own validation would reject
        return Gamma(concentration=self.total_count, rate=(-self.logits).exp(), validate_args=False)

    def sample(self, sample_shape=Size()):
        """Poisson(lambda) with lambda ~ Gamma(r, (1 - p) / p): the negative binomial as a mixture."""
        with no_grad():
            return mg.poisson(self._gamma.sample(sample_shape=sample_shape))

    @_checks_value
    def log_prob(self, value):
        r, k = self.total_count, value
        logsigmoid = mg.nn.functional.logsigmoid
        # log p^k (1 - p)^r with log p = logsigmoid(logits), log(1 - p) = logsigmoid(-logits)
        log_powers = r * logsigmoid(-self.logits) + k * logsigmoid(self.logits)
        # the coefficient log[Gamma(r + k) / (Gamma(k + 1) Gamma(r))]; at r = k = 0 the event is
        # certain, and its inf - inf is replaced by log 1 = 0
        log_coef = (r + k).lgamma() - (1.0 + k).lgamma() - r.lgamma()
        return log_powers + log_coef.masked_fill(r + k == 0.0, 0.0)


class Multinomial(_CategoricalView, Distribution):
    """Counts, per category, of total_count independent Categorical(probs) draws:
    p(x) = n! / prod_k x_k! * prod_k p_k^x_k with n = sum_k x_k."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs, logits)
        # each count on its own is Binomial(n, p_k): the entropy's sum runs over those marginals
        self._binomial = Binomial(total_count, probs=self._categorical.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        cat = self._categorical.expand(batch_shape)
        return _expand_into(self, Multinomial, _instance, batch_shape, total_count=self.total_count, _categorical=cat,
                            _binomial=Binomial(self.total_count, probs=cat.probs, validate_args=False))

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        p = self.probs
        return self.total_count * p * (1 - p)

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        with no_grad():
            # n category indices per draw, (n, *sample, *batch), turned to (*sample, *batch, n) ...
            picks = self._categorical.sample(Size((self.total_count,)) + sample_shape)
            picks = picks.permute(*range(1, picks.dim()), 0)
            # ... and tallied per category
            counts = mg.zeros(tuple(self._extended_shape(sample_shape)), dtype=picks.dtype, device=picks.device)
            counts.scatter_add_(-1, picks, mg.ones_like(picks))
            return counts.to(self.probs.dtype)

    def entropy(self):
        # H = n H(Categorical) - log n! + sum_k E[log x_k!], the expectation over the Binomial(n, p_k)
        # marginal of each count: sum_k sum_{j=1..n} P(x_k = j) log j!  (j = 0 adds nothing)
        n = self.total_count
        # log n! of an integer, in the default dtype as torch computes it
        log_n_fact = mg.tensor(n + 1.0, device=self.probs.device).lgamma()
        j = self._binomial.enumerate_support(expand=False)[1:]
        expected_log_fact = (self._binomial.log_prob(j).exp() * (j + 1).lgamma()).sum([0, -1])
        return n * self._categorical.entropy() - log_n_fact + expected_log_fact

    @_checks_value
    def log_prob(self, value):
        logits, x = broadcast_all(self.logits, value)
        log_multinomial_coef = (x.sum(-1) + 1).lgamma() - (x + 1).lgamma().sum(-1)
        # an impossible category (logit -inf) that was not drawn contributes 0 * -inf := 0
        logits = mg.where((x == 0) & (logits == -math.inf), 0.0, logits)
        return log_multinomial_coef + (x * logits).sum(-1)


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical with the straight-through gradient estimator as rsample: the value is the
    one-hot draw, the gradient that of the probabilities (d sample / d probs := identity)."""
    has_rsample = True

    def rsample(self, sample_shape=Size()):
        hard = self.sample(sample_shape)
        p = self._categorical.probs
        return hard + (p - p.detach())  # adds zero, but routes the gradient to p
