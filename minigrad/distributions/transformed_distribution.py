"""TransformedDistribution: the law of y = f_n(...f_1(x)) for x drawn from a base distribution (the
API of torch.distributions.TransformedDistribution).

Sampling pushes base samples through the transforms; log_prob pulls a value back through them and
applies the change of variables,

    log p_Y(y) = log p_X(x) - sum_k log|det J_{f_k}(x_k)|,   x = f^-1(y), x_k the input of f_k,

each log-determinant summed over the dims that are event dims of y but batch dims of f_k.
"""
import math

from .. import Size, no_grad
from ..tensor import Tensor
from . import constraints
from ._params import sum_rightmost
from .distribution import Distribution
from .independent import Independent
from .transforms import ComposeTransform, Transform

__all__ = ['TransformedDistribution']


def _transform_list(transforms):
    listed = [transforms] if isinstance(transforms, Transform) else transforms
    if not isinstance(listed, list):
        raise ValueError(f'transforms must be a Transform or list, but was {transforms}')
    if any(not isinstance(t, Transform) for t in listed):
        raise ValueError('transforms must be a Transform or a list of Transforms')
    return listed


class TransformedDistribution(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        self.transforms = _transform_list(transforms)
        chain = ComposeTransform(self.transforms)
        base = base_distribution
        base_event_dim, base_shape = len(base.event_shape), base.batch_shape + base.event_shape
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError(f'base_distribution needs to have shape with size at least '
                             f'{chain.domain.event_dim}, but got {base_shape}.')
        shape = chain.forward_shape(base_shape)
        # Transforms with tensor parameters may broadcast: then the base must be expanded to the
        # batch shape that pulls back from the output shape.
        pulled_back = chain.inverse_shape(shape)
        if pulled_back != base_shape:
            base = base.expand(pulled_back[:len(pulled_back) - base_event_dim])
        # Dims the transforms read as one event but the base treats as batch become base event dims.
        if chain.domain.event_dim > base_event_dim:
            base = Independent(base, chain.domain.event_dim - base_event_dim)
        self.base_dist = base
        # the event: whatever the codomain needs, and at least the base's event carried through
        growth = chain.codomain.event_dim - chain.domain.event_dim
        event_dim = max(chain.codomain.event_dim, base_event_dim + growth)
        if event_dim > len(shape):
            raise AssertionError(f'forward_shape length {len(shape)} must be >= event_dim {event_dim}')
        split = len(shape) - event_dim
        super().__init__(shape[:split], shape[split:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = Size(batch_shape)
        base_shape = batch_shape + self.event_shape
        for t in self.transforms[::-1]:
            base_shape = t.inverse_shape(base_shape)
        new.base_dist = self.base_dist.expand(base_shape[:len(base_shape) - len(self.base_dist.event_shape)])
        new.transforms = self.transforms
        super(TransformedDistribution, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        last = self.transforms[-1].codomain
        missing = len(self.event_shape) - last.event_dim
        return constraints.independent(last, missing) if missing > 0 else last

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    def _push_forward(self, x):
        for t in self.transforms:
            x = t(x)
        return x

    def sample(self, sample_shape=Size()):
        with no_grad():
            return self._push_forward(self.base_dist.sample(sample_shape))

    def rsample(self, sample_shape=Size()):
        return self._push_forward(self.base_dist.rsample(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # Walk back from y to x, keeping track of how many trailing dims form one event at the
        # current stage: each transform's log|det J| is summed over the event dims it saw as batch.
        # (the corrections are subtracted from 0 as they come and the base term added last, as
        # torch does: its result is an AddBackward0 node)
        k = len(self.event_shape)  # event dims at the current stage
        total = 0.0
        y = value
        for t in self.transforms[::-1]:
            x = t.inv(y)
            k = k - t.codomain.event_dim + t.domain.event_dim
            total = total - sum_rightmost(t.log_abs_det_jacobian(x, y), k - t.domain.event_dim)
            y = x
        return total + sum_rightmost(self.base_dist.log_prob(y), k - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        """P(Y <= y) is the base cdf at f^-1(y) when f increases, one minus it when f decreases
        (sign -1); with a tensor sign both cases are written as sign * (value - 1/2) + 1/2."""
        sign = math.prod(t.sign for t in self.transforms)
        if not isinstance(sign, Tensor) and sign == 1:
            return value
        return 0.5 + sign * (value - 0.5)

    def cdf(self, value):
        for t in self.transforms[::-1]:
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        return self._push_forward(self.base_dist.icdf(self._monotonize_cdf(value)))
