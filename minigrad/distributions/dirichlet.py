"""Dirichlet(alpha): the distribution on the probability simplex with density
prod_i x_i^(alpha_i - 1) / B(alpha). Its density, entropy and sampler are shared with Beta (the
K = 2 case) and live in continuous.py."""
from .. import Size
from . import constraints
from .continuous import (_checks_value, _dirichlet_entropy, _dirichlet_log_prob, _dirichlet_mode,
                         _dirichlet_variance, _expanded, _log_multivariate_beta, _simplex_rsample)
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """rsample normalizes independent Gamma(alpha_i) draws; its gradient flows through each draw's
    implicit reparameterization (dG/dalpha at a fixed quantile). That estimator is unbiased, like
    torch's, though torch's (the marginal Beta's quantile held fixed) gives other per-sample
    values. The natural parameters are alpha itself (t(x) = log x)."""
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() == 0:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        *batch, k = concentration.shape
        super().__init__(Size(batch), Size((k,)), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expanded(self, Dirichlet, batch_shape, _instance, ("concentration",), trailing=self.event_shape)

    def rsample(self, sample_shape=()):
        return _simplex_rsample(self.concentration.expand(self._extended_shape(sample_shape)))

    @_checks_value
    def log_prob(self, value):
        return _dirichlet_log_prob(self.concentration, value)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        return _dirichlet_mode(self.concentration)

    @property
    def variance(self):
        return _dirichlet_variance(self.concentration)

    def entropy(self):
        return _dirichlet_entropy(self.concentration)

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, alpha):
        return _log_multivariate_beta(alpha)
