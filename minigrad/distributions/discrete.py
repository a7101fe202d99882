"""Discrete families: Bernoulli, Categorical, OneHotCategorical, Poisson, Binomial.

Several of them (and Geometric, NegativeBinomial, the relaxed Bernoulli) are parameterized either
by probabilities or by their logits, exactly one given; the other is derived lazily, so that a
distribution built from logits never takes the log of a rounded-off probability. The helpers
below hold that shared bookkeeping.
"""
import math

import minigrad as mg
from .. import Size, no_grad
from . import constraints
from ._params import broadcast_all, logits_to_probs, lowest, probs_to_logits
from .distribution import Distribution, _checks_value, _expand_into, lazy_property
from .exp_family import ExponentialFamily

__all__ = ["Bernoulli", "Categorical", "OneHotCategorical", "Poisson", "Binomial"]

_ONE_OF = "Either `probs` or `logits` must be specified, but not both."


def _probs_or_logits(probs, logits):
    """("probs", probs) or ("logits", logits), whichever of the two was given."""
    if (probs is None) == (logits is None):
        raise ValueError(_ONE_OF)
    return ("probs", probs) if logits is None else ("logits", logits)


def _expanded_param(src, shape):
    """probs and/or logits, those src holds already (the given one, and the derived one once it
    has been computed), expanded to shape, with _param: keyword arguments for _expand_into."""
    out = {}
    for name in ("probs", "logits"):
        if name in src.__dict__:
            out[name] = out["_param"] = src.__dict__[name].expand(shape)
    return out


def _arange_support(count, dtype, device, batch_shape, expand):
    """0, 1, ..., count-1 along a new leading dim, in front of batch_shape (broadcast to it when
    expand, size-1 dims otherwise): enumerate_support's layout."""
    column = mg.arange(count, dtype=dtype, device=device).view((count,) + (1,) * len(batch_shape))
    return column.expand((count,) + tuple(batch_shape)) if expand else column


def _softplus(x):
    """log(1 + e^x) = max(x, 0) + log1p(e^-|x|), without overflow. max(x, 0) is spelled (x + |x|) / 2
    so that its gradient at x = 0 is 1/2, the true slope of softplus there."""
    return (x + x.abs()) / 2 + (-x.abs()).exp().log1p()


class _ProbsOrLogits:
    """Mixin for a family given by probs or by logits, the other one computed on first use. With
    _binary (one success probability p per element) logits = log(p / (1 - p)); otherwise (a
    Categorical's last dim) logits = log p up to a constant and probs = softmax(logits)."""
    _binary = True

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=self._binary)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=self._binary)

    @property
    def param_shape(self):
        return self._param.size()

    def _take_param(self, probs, logits, *others):
        """Store whichever of probs / logits was given as that attribute and as _param, after
        broadcasting it with the others (numbers become tensors of its dtype); return the others."""
        name, given = _probs_or_logits(probs, logits)
        *others, self._param = broadcast_all(*others, given)
        setattr(self, name, self._param)
        return others


class _CategoricalView:
    """Mixin for a family built on a Categorical over the last dim, held as self._categorical:
    its parameters are that Categorical's."""

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape


class Bernoulli(_ProbsOrLogits, ExponentialFamily):
    """x in {0, 1} with P(x = 1) = p: log p(x) = x * logit - softplus(logit), which is minus the
    binary cross-entropy of the logits against x."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._take_param(probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        return _expand_into(self, Bernoulli, _instance, batch_shape, **_expanded_param(self, batch_shape))

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        # the likelier outcome; a fair coin has none
        p = self.probs
        return (p >= 0.5).to(p.dtype).masked_fill(p == 0.5, math.nan)

    @property
    def variance(self):
        p = self.probs
        return p * (1 - p)

    def sample(self, sample_shape=Size()):
        with no_grad():
            return mg.bernoulli(self.probs.expand(self._extended_shape(sample_shape)))

    @_checks_value
    def log_prob(self, value):
        logit, x = broadcast_all(self.logits, value)
        return -mg.nn.functional.binary_cross_entropy_with_logits(logit, x, reduction="none")

    def entropy(self):
        # H = -p log p - (1 - p) log(1 - p): the cross-entropy of the distribution with itself
        return mg.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        return _arange_support(2, self._param.dtype, self._param.device, self._batch_shape, expand)

    # exponential-family form: theta = logit(p), F(theta) = log(1 + e^theta), carrier measure 0
    @property
    def _natural_params(self):
        return (self.probs.logit(),)

    def _log_normalizer(self, theta):
        return theta.exp().log1p()


class Categorical(_ProbsOrLogits, Distribution):
    """An index in 0..K-1 drawn with probabilities probs[..., k]; the last dim of the parameter
    holds the K categories and the rest is the batch. probs are renormalized to sum to one, and
    logits shifted to log-probabilities (logits - logsumexp(logits))."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True
    _binary = False

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, given = _probs_or_logits(probs, logits)
        if given.dim() < 1:
            raise ValueError(f"`{name}` parameter must be at least one-dimensional.")
        if name == "probs":
            self._param = given / given.sum(-1, keepdim=True)
        else:
            self._param = given - given.logsumexp(dim=-1, keepdim=True)
        setattr(self, name, self._param)
        *batch, self._num_events = self._param.shape
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        k = self._num_events
        return _expand_into(self, Categorical, _instance, batch_shape, _num_events=k,
                            **_expanded_param(self, batch_shape + (k,)))

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self):
        # category labels are not quantities: no mean, no variance
        p = self.probs
        return mg.full(self._extended_shape(), math.nan, dtype=p.dtype, device=p.device)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return self.mean

    def sample(self, sample_shape=Size()):
        # one multinomial call, with replacement, draws every sample of every batch row at once:
        # rows of the flattened batch, one column per sample, then transposed to samples-first
        n_draws = Size(sample_shape).numel()
        table = mg.multinomial(self.probs.reshape(-1, self._num_events), n_draws, True)
        return table.T.reshape(self._extended_shape(sample_shape))

    @_checks_value
    def log_prob(self, value):
        # log p(k) = logits[..., k]: pick it out after broadcasting the index against the batch
        index, table = mg.broadcast_tensors(value.long().unsqueeze(-1), self.logits)
        return table.gather(-1, index[..., :1]).squeeze(-1)

    def entropy(self):
        # H = -sum_k p_k log p_k; a log-probability of -inf is raised to the dtype's lowest finite
        # value so that its zero probability contributes 0 rather than 0 * -inf = nan
        log_p = self.logits.clamp(min=lowest(self.logits.dtype))
        return -(self.probs * log_p).sum(-1)

    def enumerate_support(self, expand=True):
        return _arange_support(self._num_events, mg.int64, self._param.device, self._batch_shape, expand)


class OneHotCategorical(_CategoricalView, Distribution):
    """A Categorical draw written as a one-hot vector of length K (the event dim)."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        return _expand_into(self, OneHotCategorical, _instance, batch_shape,
                            _categorical=self._categorical.expand(batch_shape))

    @property
    def _param(self):
        return self._categorical._param

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        p = self._categorical.probs
        return mg.nn.functional.one_hot(p.argmax(dim=-1), num_classes=p.shape[-1]).to(p.dtype)

    @property
    def variance(self):
        # each coordinate is a Bernoulli(p_k) indicator
        p = self._categorical.probs
        return p * (1 - p)

    def sample(self, sample_shape=Size()):
        cat = self._categorical
        index = cat.sample(Size(sample_shape))
        return mg.nn.functional.one_hot(index, cat._num_events).to(cat.probs.dtype)

    @_checks_value
    def log_prob(self, value):
        return self._categorical.log_prob(value.max(-1)[1])  # the position of the 1

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        # the K unit vectors: rows of the identity, along a new leading dim
        k, batch = self.event_shape[0], tuple(self.batch_shape)
        rows = mg.eye(k, dtype=self._param.dtype, device=self._param.device).view((k,) + (1,) * len(batch) + (k,))
        return rows.expand((k,) + batch + (k,)) if expand else rows


class Poisson(ExponentialFamily):
    """Counts with p(k) = rate^k e^-rate / k!, so log p(k) = k log(rate) - rate - lgamma(k + 1)."""
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        return _expand_into(self, Poisson, _instance, batch_shape, rate=self.rate.expand(batch_shape))

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=Size()):
        with no_grad():
            return mg.poisson(self.rate.expand(self._extended_shape(sample_shape)))

    @_checks_value
    def log_prob(self, value):
        rate, k = broadcast_all(self.rate, value)
        return k.xlogy(rate) - rate - (k + 1).lgamma()  # xlogy: 0 * log 0 = 0 when rate = 0

    # exponential-family form: theta = log(rate), F(theta) = e^theta
    @property
    def _natural_params(self):
        return (self.rate.log(),)

    def _log_normalizer(self, theta):
        return theta.exp()


class Binomial(_ProbsOrLogits, Distribution):
    """Successes among total_count Bernoulli(p) trials:
    log p(k) = log C(n, k) + k log p + (n - k) log(1 - p) = log C(n, k) + k * logit - n * softplus(logit)."""
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        (count,) = self._take_param(probs, logits, total_count)
        self.total_count = count.type_as(self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        return _expand_into(self, Binomial, _instance, batch_shape, total_count=self.total_count.expand(batch_shape),
                            **_expanded_param(self, batch_shape))

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)  # 0..n successes

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        n = self.total_count
        peak = (self.probs * (n + 1)).floor()
        return mg.where(peak <= n, peak, n)  # at most n successes (a tie keeps peak's gradient)

    @property
    def variance(self):
        p = self.probs
        return self.total_count * p * (1 - p)

    def sample(self, sample_shape=Size()):
        """Run max(total_count) uniform trials per element along a new leading dim and count the
        successes among the first total_count of them (memory grows with the largest count)."""
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            n_max = int(self.total_count.max().item()) if self.total_count.numel() else 0
            p = self.probs.expand(shape)
            u = mg.rand((n_max,) + shape, dtype=p.dtype, device=p.device)
            trial_no = mg.arange(n_max, device=p.device).view((n_max,) + (1,) * len(shape)).to(p.dtype)
            counted = trial_no < self.total_count.expand(shape)
            return ((u < p) & counted).sum(0).to(p.dtype)

    @_checks_value
    def log_prob(self, value):
        n, k, logit = self.total_count, value, self.logits
        log_choose = (n + 1).lgamma() - (k + 1).lgamma() - (n - k + 1).lgamma()
        return log_choose + k * logit - n * _softplus(logit)

    def _homogeneous_count(self, what):
        n = int(self.total_count.max())
        if not self.total_count.min() == n:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return n

    def entropy(self):
        # the finite sum -sum_k p(k) log p(k) over k = 0..n (n must be the same everywhere)
        self._homogeneous_count("entropy")
        log_p = self.log_prob(self.enumerate_support(False))
        return -(log_p.exp() * log_p).sum(0)

    def enumerate_support(self, expand=True):
        n = self._homogeneous_count("enumerate_support")
        return _arange_support(n + 1, self._param.dtype, self._param.device, self._batch_shape, expand)
