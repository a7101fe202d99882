"""minigrad.distributions: the subset of torch.distributions built on minigrad's sampling ops.

Every distribution has sample(sample_shape), log_prob, mean/mode/variance/stddev, batch_shape,
event_shape, expand, and validates its parameters and log_prob's values when validation is on
(the default, as in torch: Distribution.set_default_validate_args). rsample is differentiable
(the reparameterization trick) for Normal, Uniform, Exponential, Laplace, Gamma, Beta and
MultivariateNormal; kl_divergence has the Normal, Bernoulli, Categorical, Uniform and
MultivariateNormal pairs, and register_kl adds more.
"""
from . import constraints
from .continuous import Beta, Exponential, Gamma, Laplace, Normal, Uniform
from .discrete import Bernoulli, Binomial, Categorical, OneHotCategorical, Poisson
from .distribution import Distribution
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Distribution", "Exponential", "Gamma", "Independent",
           "Laplace", "MultivariateNormal", "Normal", "OneHotCategorical", "Poisson", "Uniform", "constraints",
           "kl_divergence", "register_kl"]
