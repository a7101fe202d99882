"""Independent: the rightmost `reinterpreted_batch_ndims` batch dims of a distribution read as
event dims, so a batch of independent scalars becomes one vector-valued variable whose log-density
is the sum of theirs (p(x_1..x_k) = prod_i p(x_i))."""
from .. import Size
from . import constraints
from ._params import sum_rightmost
from .distribution import Distribution, _expand_into

__all__ = ["Independent"]


class Independent(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        k, base_batch = reinterpreted_batch_ndims, tuple(base_distribution.batch_shape)
        if k > len(base_batch):
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                             f"actual {k} vs {len(base_batch)}")
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = k
        # the split between batch and event dims moves k places to the left
        cut = len(base_batch) - k
        super().__init__(base_batch[:cut], base_batch[cut:] + tuple(base_distribution.event_shape),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        k = self.reinterpreted_batch_ndims
        moved = self.event_shape[:k]  # the base's batch dims that are read as event dims here
        return _expand_into(self, Independent, _instance, batch_shape, reinterpreted_batch_ndims=k,
                            base_dist=self.base_dist.expand(batch_shape + moved))

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        # enumerating would need the cartesian product over the reinterpreted dims
        return self.reinterpreted_batch_ndims == 0 and self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        inner = self.base_dist.support
        k = self.reinterpreted_batch_ndims
        return constraints.independent(inner, k) if k else inner

    # moments and draws are those of the base: only the bookkeeping of dims changes
    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=Size()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=Size()):
        return self.base_dist.rsample(sample_shape)

    # log-densities and entropies of independent parts add up
    def log_prob(self, value):
        return sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
