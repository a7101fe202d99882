"""Transforms: maps y = f(x) with what a change of variables needs (the API of
torch.distributions.transforms).

If x has density p(x) and f is a bijection, y = f(x) has density

    log q(y) = log p(f^-1(y)) - log|det J_f(f^-1(y))|,

so every Transform provides the forward map, its inverse (`t.inv`, itself a Transform) and
`log_abs_det_jacobian(x, y)`. A transform acting on events of `event_dim` dims (a vector for the
simplex maps, a matrix for the Cholesky ones) returns one log-determinant per event; elementwise
transforms return one per element, summed by the caller over the dims it treats as the event.

`domain` and `codomain` are constraints (they carry the event dims); `bijective` says whether the
inverse is a true inverse; `sign` is the sign of the derivative of a monotone elementwise map (used
to turn a cdf into the cdf of the pushed-forward variable). With cache_size=1 a transform remembers
its latest (x, y) pair, so inverting the sample it just produced returns the very object it came
from: no round-off, and no gradient path broken by a numerical inverse.
"""
import functools
import math
from numbers import Number

import minigrad as mg
from .. import Size
from . import constraints
from ._params import broadcast_all, eps, sum_rightmost, tiny
from ..tensor import Tensor
from .distribution import lazy_property

__all__ = ['AbsTransform', 'AffineTransform', 'CatTransform', 'ComposeTransform', 'CumulativeDistributionTransform',
           'ExpTransform', 'IndependentTransform', 'LowerCholeskyTransform', 'PositiveDefiniteTransform',
           'PowerTransform', 'ReshapeTransform', 'SigmoidTransform', 'SoftplusTransform', 'TanhTransform',
           'SoftmaxTransform', 'StackTransform', 'StickBreakingTransform', 'Transform', 'identity_transform']

def _softplus(x):
    return mg.nn.functional.softplus(x)


# A domain / codomain that depends on the transform's parameters: an instance property that also
# reads as a dependent constraint on the class.
_dependent = constraints.dependent_property


def _same_value(a, b):
    """Equality of two parameters that may each be a number or a tensor."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return bool((a == b).all().item())
    return a == b


def _real_events(ndims):
    """Unconstrained real events of ndims dims."""
    return constraints.independent(constraints.real, ndims)


def _need_dims(t, ndims):
    if t.dim() < ndims:
        raise ValueError('Too few dimensions on input')


def _at_least_one_dim(shape):
    if not len(shape):
        raise ValueError('Too few dimensions on input')


class Transform:
    """Base class. A subclass implements `_call` (forward), `_inverse`, `log_abs_det_jacobian`, and
    declares domain / codomain; the base class adds the cache, `inv` and `with_cache`."""
    bijective = False

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError('cache_size must be 0 or 1')
        self._cache_size = cache_size
        self._inv = None  # the inverse, made on first use of .inv and kept
        self._cached_x_y = (None, None)

    def __getstate__(self):
        return {**self.__dict__, '_inv': None}  # the inverse refers back to self: rebuilt on demand

    @property
    def event_dim(self):
        if self.domain.event_dim != self.codomain.event_dim:
            raise ValueError('Please use either .domain.event_dim or .codomain.event_dim')
        return self.domain.event_dim

    @property
    def inv(self):
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self):
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        """This transform with another cache size (self when it already has that one)."""
        return self if cache_size == self._cache_size else self._rebuilt(cache_size)

    def _rebuilt(self, cache_size):
        # The constructor called again: with the arguments a parametrized transform recorded in
        # _ctor_args, or with none at all for a transform that takes none.
        args = self.__dict__.get('_ctor_args')
        if args is None and type(self).__init__ is not Transform.__init__:
            raise NotImplementedError(f'{type(self)}.with_cache is not implemented')
        return type(self)(*(args or ()), cache_size=cache_size)

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self == other

    def _through_cache(self, given, compute, given_is_x):
        """compute(given), or the other half of the cached pair when `given` is its own half."""
        if not self._cache_size:
            return compute(given)
        x, y = self._cached_x_y
        if given is (x if given_is_x else y):
            return y if given_is_x else x
        answer = compute(given)
        self._cached_x_y = (given, answer) if given_is_x else (answer, given)
        return answer

    def __call__(self, x):
        return self._through_cache(x, self._call, given_is_x=True)

    def _inv_call(self, y):
        return self._through_cache(y, self._inverse, given_is_x=False)

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def forward_shape(self, shape):
        """The shape of f(x) for x of this shape."""
        return shape

    def inverse_shape(self, shape):
        """The shape of f^-1(y) for y of this shape."""
        return shape

    def __repr__(self):
        return f'{type(self).__name__}()'


class _InverseTransform(Transform):
    """f^-1 as a Transform: the roles of every pair (call / inverse, domain / codomain, the two
    shape maps) are swapped, and log|det J_{f^-1}(y)| = -log|det J_f(x)|. `_inv` holds f."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    def _forward(self):
        if self._inv is None:
            raise AssertionError('_inv must not be None')
        return self._inv

    @_dependent(is_discrete=False)
    def domain(self):
        return self._forward().codomain

    @_dependent(is_discrete=False)
    def codomain(self):
        return self._forward().domain

    @property
    def bijective(self):
        return self._forward().bijective

    @property
    def sign(self):
        return self._forward().sign  # f and f^-1 are increasing (or decreasing) together

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self._forward().with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._forward() == other._inv

    def __repr__(self):
        return f'{type(self).__name__}({self._forward()!r})'

    def __call__(self, x):
        return self._forward()._inv_call(x)  # shares f's cache

    def log_abs_det_jacobian(self, x, y):
        return -self._forward().log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


# ---- combining transforms ------------------------------------------------------------------------------

def _widened(constraint, event_dim):
    """constraint made to cover event_dim dims (by reinterpreting batch dims as event dims)."""
    extra = event_dim - constraint.event_dim
    if extra < 0:
        raise AssertionError(f'event_dim {event_dim} must be >= {constraint.event_dim}')
    return constraints.independent(constraint, extra) if extra else constraint


class ComposeTransform(Transform):
    """parts applied left to right: y = parts[-1](...parts[1](parts[0](x))). The empty composition
    is the identity (`identity_transform`)."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [p.with_cache(cache_size) for p in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts
        self._ctor_args = (parts,)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    # A part may consume more dims as its event than the previous part produced (an elementwise
    # map followed by a simplex map): the composite's event is then the widest one needed, traced
    # through the chain, and the end constraints are widened to it.
    @_dependent(is_discrete=False)
    def domain(self):
        if not self.parts:
            return constraints.real
        needed = self.parts[-1].codomain.event_dim
        for part in self.parts[::-1]:
            needed = max(needed - part.codomain.event_dim + part.domain.event_dim, part.domain.event_dim)
        return _widened(self.parts[0].domain, needed)

    @_dependent(is_discrete=False)
    def codomain(self):
        if not self.parts:
            return constraints.real
        needed = self.parts[0].domain.event_dim
        for part in self.parts:
            needed = max(needed - part.domain.event_dim + part.codomain.event_dim, part.codomain.event_dim)
        return _widened(self.parts[-1].codomain, needed)

    @lazy_property
    def bijective(self):
        return all(part.bijective for part in self.parts)

    @lazy_property
    def sign(self):
        total = 1
        for p in self.parts:
            total = total * p.sign
        return total

    @property
    def inv(self):
        if self._inv is None:
            backwards = ComposeTransform([p.inv for p in self.parts[::-1]])
            backwards._inv = self
            self._inv = backwards
        return self._inv

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        # The chain rule: log|det J| of a composition is the sum over its parts, each evaluated at
        # its own input and summed over the dims that are event dims of the composite but batch
        # dims of the part.
        if not self.parts:
            return mg.zeros_like(x)
        total, k = None, self.domain.event_dim  # k: event dims of the current stage
        for i, part in enumerate(self.parts):
            out = y if i == len(self.parts) - 1 else part(x)
            term = sum_rightmost(part.log_abs_det_jacobian(x, out), k - part.domain.event_dim)
            total = term if total is None else total + term
            k = k - part.domain.event_dim + part.codomain.event_dim
            x = out
        return total

    def forward_shape(self, shape):
        return functools.reduce(lambda s, part: part.forward_shape(s), self.parts, shape)

    def inverse_shape(self, shape):
        return functools.reduce(lambda s, part: part.inverse_shape(s), self.parts[::-1], shape)

    def __repr__(self):
        inner = ',\n    '.join(repr(p) for p in self.parts)
        return f'{type(self).__name__}(\n    {inner}\n)'


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """base_transform with its rightmost `reinterpreted_batch_ndims` batch dims taken into the
    event: the same map, its log|det J| summed over those dims."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        self._ctor_args = (self.base_transform, reinterpreted_batch_ndims)

    @_dependent(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @_dependent(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        _need_dims(x, self.domain.event_dim)
        return self.base_transform(x)

    def _inverse(self, y):
        _need_dims(y, self.codomain.event_dim)
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self):
        return f'{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})'


def _check_dim(t, dim, size, what, name):
    """t must have dim `dim` of length `size` (the pieces of a Cat/StackTransform must fit)."""
    if not -t.dim() <= dim < t.dim():
        raise AssertionError(f'dim {dim} out of range for {name} with {t.dim()} dimensions')
    if t.size(dim) != size:
        raise AssertionError(f'{name}.size({dim}) = {t.size(dim)} must equal {what}')


class _Piecewise(Transform):
    """One transform per piece of the input cut along `dim`; a piece's result goes back in its
    place. Cat and Stack differ in how they cut (blocks or slices) and rejoin."""
    transforms: list

    def __init__(self, tseq, dim, cache_size):
        if any(not isinstance(t, Transform) for t in tseq):
            raise AssertionError('All elements of tseq must be Transform instances')
        super().__init__(cache_size=cache_size)
        self.transforms = [t.with_cache(cache_size) for t in tseq] if cache_size else list(tseq)
        self.dim = dim

    @property
    def bijective(self):
        return all(piece.bijective for piece in self.transforms)

    def _joined(self, attr):
        """The pieces' domains (or codomains) joined into one constraint, as the pieces are."""
        raise NotImplementedError

    @_dependent
    def domain(self):
        return self._joined('domain')

    @_dependent
    def codomain(self):
        return self._joined('codomain')

    def _pieces(self, t, name):
        raise NotImplementedError

    def _rejoin(self, pieces, dim):
        raise NotImplementedError

    def _call(self, x):
        return self._rejoin([piece(part) for piece, part in self._pieces(x, 'x')], self.dim)

    def _inverse(self, y):
        return self._rejoin([piece.inv(part) for piece, part in self._pieces(y, 'y')], self.dim)


class CatTransform(_Piecewise):
    """tseq[i] applied to the i-th consecutive block (lengths[i] wide, default 1) along dim, the
    results concatenated (the transform counterpart of cat)."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        super().__init__(tseq, dim, cache_size)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f'lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})')
        self._ctor_args = (self.transforms, dim, self.lengths)

    @lazy_property
    def event_dim(self):
        return max(piece.event_dim for piece in self.transforms)

    @lazy_property
    def length(self):
        return sum(self.lengths)

    def _pieces(self, t, name):
        """(transform, block of t) pairs, checking that t is as long as all blocks together."""
        _check_dim(t, self.dim, self.length, f'length {self.length}', name)
        starts = [sum(self.lengths[:i]) for i in range(len(self.lengths))]
        return [(tr, t.narrow(self.dim, s, n)) for tr, s, n in zip(self.transforms, starts, self.lengths)]

    def _rejoin(self, pieces, dim):
        return mg.cat(pieces, dim=dim)

    def _joined(self, attr):
        return constraints.cat([getattr(t, attr) for t in self.transforms], self.dim, self.lengths)

    def log_abs_det_jacobian(self, x, y):
        pieces = []
        for (tr, xb), (_, yb) in zip(self._pieces(x, 'x'), self._pieces(y, 'y')):
            # bring every block to the common event_dim, so the pieces line up
            pieces.append(sum_rightmost(tr.log_abs_det_jacobian(xb, yb), self.event_dim - tr.event_dim))
        # Where does the cat dim sit in the log|det J| (which has lost the event dims)? If it is a
        # batch dim the pieces are concatenated along it; if it fell inside the event, the
        # determinant is block-diagonal and the pieces add.
        dim = (self.dim if self.dim < 0 else self.dim - x.dim()) + self.event_dim
        return self._rejoin(pieces, dim) if dim < 0 else sum(pieces)


class StackTransform(_Piecewise):
    """tseq[i] applied to the i-th slice along dim, the results stacked back along dim."""

    def __init__(self, tseq, dim=0, cache_size=0):
        super().__init__(tseq, dim, cache_size)
        self._ctor_args = (self.transforms, dim)

    def _pieces(self, t, name):
        """(transform, slice of t) pairs, one slice per transform."""
        _check_dim(t, self.dim, len(self.transforms), f'len(transforms) {len(self.transforms)}', name)
        return [(tr, t.select(self.dim, i)) for i, tr in enumerate(self.transforms)]

    def _rejoin(self, pieces, dim):
        return mg.stack(pieces, dim=dim)

    def _joined(self, attr):
        return constraints.stack([getattr(t, attr) for t in self.transforms], self.dim)

    def log_abs_det_jacobian(self, x, y):
        pairs = zip(self._pieces(x, 'x'), self._pieces(y, 'y'))
        return self._rejoin([tr.log_abs_det_jacobian(xs, ys) for (tr, xs), (_, ys) in pairs], self.dim)


# ---- shape changes ---------------------------------------------------------------------------------------

def _replace_trailing(shape, old, new):
    """shape with its trailing `old` dims replaced by `new` (checked)."""
    if len(shape) < len(old):
        raise ValueError('Too few dimensions on input')
    batch = len(shape) - len(old)
    if shape[batch:] != old:
        raise ValueError(f'Shape mismatch: expected {shape[batch:]} but got {old}')
    return shape[:batch] + new


class ReshapeTransform(Transform):
    """The rightmost dims of shape in_shape reshaped to out_shape: a permutation of coordinates,
    so log|det J| = 0."""
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = Size(in_shape), Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError('in_shape, out_shape have different numbers of elements')
        super().__init__(cache_size=cache_size)
        self._ctor_args = (self.in_shape, self.out_shape)

    @_dependent
    def domain(self):
        return _real_events(len(self.in_shape))

    @_dependent
    def codomain(self):
        return _real_events(len(self.out_shape))

    @staticmethod
    def _batch(t, event_shape):
        return t.shape[:t.dim() - len(event_shape)]

    def _call(self, x):
        return x.reshape(self._batch(x, self.in_shape) + self.out_shape)

    def _inverse(self, y):
        return y.reshape(self._batch(y, self.out_shape) + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(self._batch(x, self.in_shape))

    def forward_shape(self, shape):
        return _replace_trailing(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return _replace_trailing(shape, self.out_shape, self.in_shape)


# ---- elementwise maps ------------------------------------------------------------------------------------

class _ParameterFree(Transform):
    """A transform without parameters: all its instances are equal to each other (and to those of
    its subclasses), as the first public class of the chain decides."""
    _kind = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls._kind is None and not cls.__name__.startswith('_'):
            cls._kind = cls

    def __eq__(self, other):
        return isinstance(other, self._kind)


class _IncreasingBijection(_ParameterFree):
    """A strictly increasing elementwise map of the whole real line."""
    domain = constraints.real
    bijective = True
    sign = +1


class ExpTransform(_IncreasingBijection):
    """y = exp(x); dy/dx = y, so log|dy/dx| = x."""
    codomain = constraints.positive

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


def _sigmoid_inside_unit_interval(x):
    """sigmoid(x) kept off the end points 0 and 1 that it rounds to for large |x| (so that the
    inverse and the logs of it stay finite)."""
    return x.sigmoid().clamp(min=tiny(x.dtype), max=1.0 - eps(x.dtype))


class SigmoidTransform(_IncreasingBijection):
    """y = 1 / (1 + exp(-x)); dy/dx = sigmoid(x) sigmoid(-x), whose log is
    -softplus(-x) - softplus(x)."""
    codomain = constraints.unit_interval

    def _call(self, x):
        return _sigmoid_inside_unit_interval(x)

    def _inverse(self, y):
        p = y.clamp(min=tiny(y.dtype), max=1.0 - eps(y.dtype))
        return p.log() - (-p).log1p()  # the logit

    def log_abs_det_jacobian(self, x, y):
        return -(_softplus(x) + _softplus(-x))


class SoftplusTransform(_IncreasingBijection):
    """y = log(1 + exp(x)); dy/dx = sigmoid(x), whose log is -softplus(-x)."""
    codomain = constraints.positive

    def _call(self, x):
        return _softplus(x)

    def _inverse(self, y):
        return y + (-(-y).expm1()).log()  # log(exp(y) - 1) = y + log(1 - exp(-y)), stable for large y

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x)


class TanhTransform(_IncreasingBijection):
    """y = tanh(x); log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), a form that neither
    cancels nor overflows for large |x|."""
    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return mg.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x))


class AbsTransform(_ParameterFree):
    """y = |x|: not injective; its 'inverse' picks the nonnegative preimage."""
    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class PowerTransform(Transform):
    """y = x ** exponent on the positive reals; dy/dx = exponent y / x."""
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.exponent, = broadcast_all(exponent)
        self._ctor_args = (self.exponent,)

    @lazy_property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and self.exponent.eq(other.exponent).all().item()

    def _call(self, x):
        return x ** self.exponent

    def _inverse(self, y):
        return y ** self.exponent.reciprocal()

    def log_abs_det_jacobian(self, x, y):
        return (y / x * self.exponent).abs().log()

    def forward_shape(self, shape):
        return mg.broadcast_shapes(shape, self.exponent.shape)

    def inverse_shape(self, shape):
        return mg.broadcast_shapes(shape, self.exponent.shape)


class AffineTransform(Transform):
    """y = loc + scale * x (loc and scale numbers or tensors, broadcast against x). Every coordinate
    is stretched by |scale|, so log|det J| is the sum of log|scale| over the event_dim event dims."""
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim
        self._ctor_args = (loc, scale, event_dim)

    @property
    def event_dim(self):
        return self._event_dim

    def _reals(self):
        return _real_events(self.event_dim) if self.event_dim else constraints.real

    @_dependent(is_discrete=False)
    def domain(self):
        return self._reals()

    @_dependent(is_discrete=False)
    def codomain(self):
        return self._reals()

    def __eq__(self, other):
        return (isinstance(other, AffineTransform) and _same_value(self.loc, other.loc)
                and _same_value(self.scale, other.scale))

    @property
    def sign(self):
        s = self.scale
        if isinstance(s, Number):
            return (s > 0) - (s < 0)
        return s.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        s = self.scale
        per_coordinate = mg.full_like(x, math.log(abs(s))) if isinstance(s, Number) else s.abs().log()
        batch_shape = x.shape[:x.dim() - self.event_dim]
        return sum_rightmost(per_coordinate, self.event_dim).expand(batch_shape)

    def _broadcast(self, shape):
        return mg.broadcast_shapes(shape, getattr(self.loc, 'shape', ()), getattr(self.scale, 'shape', ()))

    def forward_shape(self, shape):
        return self._broadcast(shape)

    def inverse_shape(self, shape):
        return self._broadcast(shape)


# ---- maps onto the simplex and onto matrices ---------------------------------------------------------------

class SoftmaxTransform(_ParameterFree):
    """y = softmax(x) over the last dim: onto the simplex but not injective (adding a constant to x
    changes nothing), so there is no log|det J|; the 'inverse' log(y) is one preimage."""
    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        return x.softmax(-1)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        _at_least_one_dim(shape)
        return shape

    def inverse_shape(self, shape):
        _at_least_one_dim(shape)
        return shape


def _log_stick_offsets(x, k):
    """log(k), log(k-1), ..., log(1): shifting x_i by -log(k - i) makes x = 0 map to the uniform
    point of the simplex (every stick piece 1/(k+1))."""
    return x.new_ones(k).cumsum(-1).flip(-1).log()


class StickBreakingTransform(_ParameterFree):
    """A bijection from R^k onto the interior of the (k+1)-simplex by stick breaking: the i-th piece
    takes the fraction z_i = sigmoid(x_i - log(k - i)) of what is left of a unit stick,

        y_i = z_i * prod_{j<i} (1 - z_j),      y_k = prod_{j<k} (1 - z_j).

    The Jacobian is triangular with diagonal dy_i/dx_i = y_i (1 - z_i)."""
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        z = _sigmoid_inside_unit_interval(x - _log_stick_offsets(x, x.shape[-1]))
        left_before = mg.nn.functional.pad((1 - z).cumprod(-1), [1, 0], value=1)  # stick left before piece i
        return mg.nn.functional.pad(z, [0, 1], value=1) * left_before

    def _inverse(self, y):
        pieces = y[..., :-1]
        # what is left of the stick after piece i: z_i = y_i / (y_i + left_after_i)
        left_after = (1 - pieces.cumsum(-1)).clamp(min=tiny(y.dtype))
        return pieces.log() - left_after.log() + _log_stick_offsets(y, pieces.shape[-1])

    def log_abs_det_jacobian(self, x, y):
        # sum_i log y_i + log(1 - z_i), with log(1 - sigmoid(u)) = logsigmoid(u) - u
        u = x - _log_stick_offsets(x, x.shape[-1])
        return (y[..., :-1].log() + mg.nn.functional.logsigmoid(u) - u).sum(-1)

    def forward_shape(self, shape):
        _at_least_one_dim(shape)
        return (*shape[:-1], shape[-1] + 1)  # k stick pieces, plus what is left

    def inverse_shape(self, shape):
        _at_least_one_dim(shape)
        return (*shape[:-1], shape[-1] - 1)


def _with_diagonal_mapped(m, fn):
    """The strictly lower triangle of m kept, fn applied to its diagonal, the upper triangle zeroed."""
    return m.tril(-1) + fn(m.diagonal(dim1=-2, dim2=-1)).diag_embed()


class LowerCholeskyTransform(_ParameterFree):
    """Any square matrix onto a Cholesky factor: keep the strict lower triangle, exponentiate the
    diagonal (the upper triangle is dropped, so this is not a bijection of the full matrices)."""
    domain = _real_events(2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return _with_diagonal_mapped(x, lambda d: d.exp())

    def _inverse(self, y):
        return _with_diagonal_mapped(y, lambda d: d.log())


class PositiveDefiniteTransform(_ParameterFree):
    """Any square matrix onto a symmetric positive definite one, as L L^T of its lower Cholesky
    image L; the inverse goes back through the Cholesky factorization."""
    domain = _real_events(2)
    codomain = constraints.positive_definite

    def _call(self, x):
        factor = LowerCholeskyTransform()(x)
        return factor @ factor.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(mg.linalg.cholesky(y))


class CumulativeDistributionTransform(Transform):
    """y = F(x), the cdf of a univariate distribution: onto [0, 1], increasing, with derivative the
    density, so log|dy/dx| = log_prob(x). Its inverse is the icdf (sampling by inversion)."""
    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution
        self._ctor_args = (distribution,)

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)
