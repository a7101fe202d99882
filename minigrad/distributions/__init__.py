"""minigrad.distributions: the subset of torch.distributions built on minigrad's sampling ops.

Every distribution has sample(sample_shape), log_prob, mean/mode/variance/stddev, batch_shape,
event_shape, expand, and validates its parameters and log_prob's values when validation is on
(the default, as in torch: Distribution.set_default_validate_args). rsample is differentiable
(the reparameterization trick) for Normal, Uniform, Exponential, Laplace, Gamma, Beta and
MultivariateNormal; kl_divergence has the Normal, Bernoulli, Categorical, Uniform and
MultivariateNormal pairs, and register_kl adds more.

Beyond those: ExponentialFamily (entropy and KL by the Bregman divergence of the log-normalizer),
every other family of torch.distributions but LKJCholesky and Wishart (see __all__), the
transforms with TransformedDistribution, biject_to/transform_to, and every KL pair torch registers.
"""
from . import constraints, transforms
from .constraint_registry import biject_to, transform_to
from .continuous import Beta, Exponential, Gamma, Laplace, Normal, Uniform
from .continuous_more import (Cauchy, Chi2, ContinuousBernoulli, FisherSnedecor, GeneralizedPareto, Gumbel, HalfCauchy,
                              HalfNormal, InverseGamma, Kumaraswamy, LogisticNormal, LogNormal, Pareto, StudentT,
                              VonMises, Weibull)
from .dirichlet import Dirichlet
from .discrete import Bernoulli, Binomial, Categorical, OneHotCategorical, Poisson
from .discrete_more import Geometric, Multinomial, NegativeBinomial, OneHotCategoricalStraightThrough
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .independent import Independent
from .kl import kl_divergence, register_kl
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multivariate_normal import MultivariateNormal
from .relaxed import ExpRelaxedCategorical, LogitRelaxedBernoulli, RelaxedBernoulli, RelaxedOneHotCategorical
from .transformed_distribution import TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, CatTransform, ComposeTransform, CumulativeDistributionTransform,
                         ExpTransform, IndependentTransform, LowerCholeskyTransform, PositiveDefiniteTransform,
                         PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform, SoftplusTransform,
                         StackTransform, StickBreakingTransform, TanhTransform, Transform, identity_transform)

__all__ = ["AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "CatTransform", "Categorical", "Cauchy",
           "Chi2", "ComposeTransform", "ContinuousBernoulli", "CumulativeDistributionTransform", "Dirichlet",
           "Distribution", "ExpRelaxedCategorical", "ExpTransform", "Exponential", "ExponentialFamily",
           "FisherSnedecor", "Gamma", "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal",
           "Independent", "IndependentTransform", "InverseGamma", "Kumaraswamy", "Laplace", "LogNormal",
           "LogisticNormal", "LogitRelaxedBernoulli", "LowRankMultivariateNormal", "LowerCholeskyTransform",
           "MixtureSameFamily", "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Pareto", "Poisson", "PositiveDefiniteTransform", "PowerTransform",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StackTransform", "StickBreakingTransform", "StudentT", "TanhTransform", "Transform",
           "TransformedDistribution", "Uniform", "VonMises", "Weibull", "biject_to", "constraints",
           "identity_transform", "kl_divergence", "register_kl", "transform_to", "transforms"]
