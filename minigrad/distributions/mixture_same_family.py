"""MixtureSameFamily: p(x) = sum_k w_k p_k(x), the K components being one distribution whose
rightmost batch dim indexes them and the weights w a Categorical over that dim."""
import minigrad as mg
from .. import Size, no_grad
from . import constraints
from .discrete import Categorical
from .distribution import Distribution, _checks_value, _expand_into

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of minigrad.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "minigrad.distributions.Distribution")
        weights_batch = mixture_distribution.batch_shape
        batch = component_distribution.batch_shape[:-1]  # the mixture's own batch: all but the K dim
        if any(a != b and 1 not in (a, b) for a, b in zip(reversed(weights_batch), reversed(batch))):
            raise ValueError(f"`mixture_distribution.batch_shape` ({weights_batch}) is not compatible with "
                             f"`component_distribution.batch_shape`({batch})")
        k_weights = mixture_distribution.logits.shape[-1]
        k_components = component_distribution.batch_shape[-1]
        if k_weights != k_components:
            raise ValueError(f"`mixture_distribution component` ({k_weights}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({k_components})")
        self._num_component = k_weights
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(batch_shape=batch, event_shape=component_distribution.event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        components = self._component_distribution.expand(batch_shape + (self._num_component,))
        return _expand_into(self, MixtureSameFamily, _instance, batch_shape, components.event_shape,
                            _mixture_distribution=self._mixture_distribution.expand(batch_shape),
                            _component_distribution=components, _num_component=self._num_component,
                            _event_ndims=self._event_ndims)

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    # ---- layout: the component axis sits just left of the event dims ---------------------------
    @property
    def _k_dim(self):
        return -1 - self._event_ndims

    def _pad(self, x):
        """x (a value, or a per-mixture quantity) with a size-1 component axis inserted."""
        return x.unsqueeze(self._k_dim)

    def _weights(self):
        """The mixture weights w, with size-1 event dims appended so they line up with the
        components' (..., K, *event) quantities."""
        w = self.mixture_distribution.probs
        return w.reshape(tuple(w.shape) + (1,) * self._event_ndims)

    def _average(self, per_component):
        """sum_k w_k f_k."""
        return (self._weights() * per_component).sum(dim=self._k_dim)

    # ---- moments ------------------------------------------------------------------------------
    @property
    def mean(self):
        return self._average(self.component_distribution.mean)

    @property
    def variance(self):
        # law of total variance: Var X = E_k[Var(X | k)] + Var_k(E[X | k])
        comp = self.component_distribution
        spread = (comp.mean - self._pad(self.mean)).pow(2.0)
        return self._average(comp.variance) + self._average(spread)

    # ---- densities ----------------------------------------------------------------------------
    def cdf(self, x):
        # F(x) = sum_k w_k F_k(x) (scalar events only)
        return (self.component_distribution.cdf(self._pad(x)) * self.mixture_distribution.probs).sum(dim=-1)

    @_checks_value
    def log_prob(self, x):
        # log sum_k exp(log w_k + log p_k(x)), stably
        per_component = self.component_distribution.log_prob(self._pad(x))  # (*sample, *batch, K)
        log_w = mg.log_softmax(self.mixture_distribution.logits, dim=-1)
        return mg.logsumexp(per_component + log_w, dim=-1)

    def sample(self, sample_shape=Size()):
        """Pick a component index k per draw, draw every component, keep the k-th."""
        with no_grad():
            k = self.mixture_distribution.sample(sample_shape)  # (*sample, *batch)
            every = self.component_distribution.sample(sample_shape)  # (*sample, *batch, K, *event)
            axis = len(sample_shape) + len(self.batch_shape)
            event = tuple(self.event_shape)
            index = k.reshape(tuple(k.shape) + (1,) * (1 + len(event))).expand(tuple(k.shape) + (1,) + event)
            return mg.gather(every, axis, index).squeeze(axis)

    def __repr__(self):
        return f"MixtureSameFamily(\n  {self.mixture_distribution},\n  {self.component_distribution})"
