"""Continuous relaxations of discrete draws (the Concrete / Gumbel-softmax distributions of Maddison
et al. and Jang et al., 2017), reparameterized through uniform noise so that rsample has gradients:

- LogitRelaxedBernoulli: (logit(p) + logit(U)) / t, the logit of a relaxed coin flip; RelaxedBernoulli
  is its sigmoid, a value in (0, 1) that approaches {0, 1} as the temperature t -> 0.
- ExpRelaxedCategorical: log_softmax((logits + G) / t), G i.i.d. Gumbel(0, 1); RelaxedOneHotCategorical
  is its exp, a point of the simplex that approaches a one-hot vector as t -> 0.
"""
import math

import minigrad as mg
from .. import Size
from . import constraints
from ._params import broadcast_all, clamp_probs
from .discrete import Categorical, _CategoricalView, _ProbsOrLogits, _expanded_param
from .distribution import Distribution, _checks_value, _expand_into
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform, SigmoidTransform

__all__ = ["ExpRelaxedCategorical", "LogitRelaxedBernoulli", "RelaxedBernoulli", "RelaxedOneHotCategorical"]


def _open_unit_noise(shape, like):
    """U(0, 1) draws kept a float epsilon away from 0 and 1, so that their logs stay finite."""
    return clamp_probs(mg.rand(shape, dtype=like.dtype, device=like.device))


def _log_odds(p):
    return p.log() - (-p).log1p()


class LogitRelaxedBernoulli(_ProbsOrLogits, Distribution):
    """X = (logit(p) + L) / t with L = logit(U) standard logistic noise. Since tX - logit(p) is
    logistic, with d = logit(p) - t x the density is t e^d / (1 + e^d)^2:
    log p(x) = log t + d - 2 softplus(d)."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._take_param(probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        return _expand_into(self, LogitRelaxedBernoulli, _instance, batch_shape, temperature=self.temperature,
                            **_expanded_param(self, batch_shape))

    def rsample(self, sample_shape=Size()):
        draw_shape = self._extended_shape(sample_shape)
        p = clamp_probs(self.probs.expand(draw_shape))
        u = _open_unit_noise(draw_shape, p)
        return (_log_odds(u) + _log_odds(p)) / self.temperature

    @_checks_value
    def log_prob(self, value):
        logits, x = broadcast_all(self.logits, value)
        d = logits - x.mul(self.temperature)
        return self.temperature.log() + d - 2 * d.exp().log1p()


class ExpRelaxedCategorical(_CategoricalView, Distribution):
    """Y = log_softmax((logits + G) / t) over K categories, G i.i.d. Gumbel(0, 1). Its density, on
    the (K-1)-dimensional set where logsumexp(y) = 0, is
    log p(y) = log (K-1)! + (K-1) log t + sum_k (logits_k - t y_k) - K logsumexp(logits - t y)."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector  # in truth the submanifold logsumexp(y) = 0 of it
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        return _expand_into(self, ExpRelaxedCategorical, _instance, batch_shape, temperature=self.temperature,
                            _categorical=self._categorical.expand(batch_shape))

    def rsample(self, sample_shape=Size()):
        logits = self.logits
        u = _open_unit_noise(self._extended_shape(sample_shape), logits)
        gumbel = -(-u.log()).log()  # inverse cdf of Gumbel(0, 1)
        z = (logits + gumbel) / self.temperature
        return z - z.logsumexp(dim=-1, keepdim=True)

    @_checks_value
    def log_prob(self, value):
        k = self._categorical._num_events
        logits, y = broadcast_all(self.logits, value)
        t = self.temperature
        z = logits - y.mul(t)
        log_kernel = (z - z.logsumexp(dim=-1, keepdim=True)).sum(-1)  # sum_k z_k - K logsumexp(z)
        return log_kernel + (t.log() * (k - 1) + math.lgamma(k))


class _RelaxedView:
    """Mixin for the relaxed families that are a fixed transform of a base relaxed distribution:
    temperature, probs and logits are the base's."""

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class RelaxedBernoulli(_RelaxedView, TransformedDistribution):
    """sigmoid of a LogitRelaxedBernoulli draw: a soft coin flip in (0, 1)."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        super().__init__(LogitRelaxedBernoulli(temperature, probs, logits), SigmoidTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, _instance=self._get_checked_instance(RelaxedBernoulli, _instance))


class RelaxedOneHotCategorical(_RelaxedView, TransformedDistribution):
    """exp of an ExpRelaxedCategorical draw: a soft one-hot vector on the simplex."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape,
                              _instance=self._get_checked_instance(RelaxedOneHotCategorical, _instance))
