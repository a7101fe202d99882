"""Constraints: the sets that parameters and samples of a distribution live in (the API of
torch.distributions.constraints).

A constraint answers `check(value)` with a bool tensor. Scalar constraints (event_dim 0) answer
elementwise; a constraint with event_dim k treats the last k dims of value as one event (a vector,
a matrix) and answers once per event, so the answer has k fewer dims than value.

The public names are mostly singletons (`real`, `positive`, `simplex`) or classes to parametrize
(`interval(a, b)`, `greater_than(a)`, `independent(c, n)`); a repr shows the class name without
its leading underscore, followed by the constructor arguments.
"""
import minigrad as mg
from .. import linalg as _linalg

__all__ = ["Constraint", "MixtureSameFamilyConstraint", "boolean", "cat", "dependent", "dependent_property",
           "greater_than", "greater_than_eq", "half_open_interval", "independent", "integer_interval", "interval",
           "is_dependent", "less_than", "lower_cholesky", "lower_triangular", "multinomial", "nonnegative",
           "nonnegative_integer", "one_hot", "positive", "positive_definite", "positive_integer",
           "positive_semidefinite", "real", "real_vector", "simplex", "square", "stack", "symmetric", "unit_interval"]


def _all_after(mask, keep):
    """mask reduced with `all` over every dim after its first `keep` ones (one answer per event)."""
    return mask.reshape(tuple(mask.shape[:keep]) + (-1,)).all(-1)


def _unless_failed(mask, finer_check):
    """Staged checks (square -> symmetric -> definite): the finer, costlier test runs only when every
    event passed the coarser one; otherwise the coarse answer stands."""
    return finer_check() if bool(mask.all()) else mask


def _is_whole(value):
    return value % 1 == 0  # nan and +-inf give nan here, so they are not whole numbers


def _check_dim_in_range(dim, value):
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for value with {value.dim()} dimensions")


class Constraint:
    """Base class. Subclasses set is_discrete / event_dim and implement check; `_fields` names the
    constructor arguments that __repr__ shows as keywords."""
    is_discrete = False
    event_dim = 0
    _fields = ()

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        shown = ", ".join(f"{name}={getattr(self, name)}" for name in self._fields)
        return f"{type(self).__name__[1:]}({shown})"


# ---- placeholders for constraints known only once a distribution has its parameters ---------------

class _Dependent(Constraint):
    """Stands for a constraint that depends on other parameters (Uniform's support on low and high).
    It cannot check anything; is_discrete / event_dim are known only when they were given."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @staticmethod
    def _known(value, what):
        if value is NotImplemented:
            raise NotImplementedError(f".{what} cannot be determined statically")
        return value

    @property
    def is_discrete(self):
        return self._known(self._is_discrete, "is_discrete")

    @property
    def event_dim(self):
        return self._known(self._event_dim, "event_dim")

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        """A copy with some of the static facts filled in (dependent(event_dim=1))."""
        keep = lambda new, old: old if new is NotImplemented else new  # noqa: E731
        return _Dependent(is_discrete=keep(is_discrete, self._is_discrete),
                          event_dim=keep(event_dim, self._event_dim))

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """Decorator for a distribution property that returns a constraint (TransformedDistribution's
    support): on an instance it is that property; on the class it reads as a dependent constraint.
    Used bare (@dependent_property) or with facts (@dependent_property(is_discrete=False))."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


# ---- combinators -------------------------------------------------------------------------------------

class _Wrapper(Constraint):
    """A constraint built on one base constraint, discrete when the base is."""

    def __init__(self, base_constraint):
        self.base_constraint = base_constraint

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete


class _IndependentConstraint(_Wrapper):
    """A base constraint whose rightmost `reinterpreted_batch_ndims` batch dims join the event: an
    event is valid when every base answer inside it is."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        super().__init__(base_constraint)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        n = self.reinterpreted_batch_ndims
        per_base_event = self.base_constraint.check(value)
        if per_base_event.dim() < n:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return _all_after(per_base_event, per_base_event.dim() - n)

    def __repr__(self):
        return f"{type(self).__name__[1:]}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(_Wrapper):
    """The support of a mixture: a value is valid when it lies in the support of every component
    (the component dim sits just left of the event dims)."""

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        super().__init__(base_constraint)

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        k = self.event_dim
        per_component = self.base_constraint.check(value.unsqueeze(-1 - k))
        if value.dim() < k:
            raise ValueError(f"Expected value.dim() >= {k} but got {value.dim()}")
        return _all_after(per_component, value.dim() - k)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_constraint!r})"


class _PerPiece(Constraint):
    """One constraint per piece of a value cut along `dim` (the pieces differ for cat and stack)."""

    def __init__(self, cseq, dim):
        if any(not isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self):
        return any(piece.is_discrete for piece in self.cseq)

    def _widest_event(self):
        return max(piece.event_dim for piece in self.cseq)


class _Cat(_PerPiece):
    """Constraint cseq[i] on the i-th consecutive block (lengths[i] wide, default 1) along dim, the
    answers concatenated back along dim (the constraint counterpart of cat)."""

    def __init__(self, cseq, dim=0, lengths=None):
        super().__init__(cseq, dim)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")

    @property
    def event_dim(self):
        return self._widest_event()

    def check(self, value):
        _check_dim_in_range(self.dim, value)
        starts = [sum(self.lengths[:i]) for i in range(len(self.lengths))]
        answers = [c.check(value.narrow(self.dim, s, n)) for c, s, n in zip(self.cseq, starts, self.lengths)]
        return mg.cat(answers, self.dim)


class _Stack(_PerPiece):
    """Constraint cseq[i] on the i-th slice along dim, the answers stacked back along dim."""

    def __init__(self, cseq, dim=0):
        super().__init__(cseq, dim)

    @property
    def event_dim(self):
        # the stacked dim is itself part of the event when it is counted from the right inside it
        widest = self._widest_event()
        return widest + 1 if self.dim + widest < 0 else widest

    def check(self, value):
        _check_dim_in_range(self.dim, value)
        answers = [c.check(value.select(self.dim, i)) for i, c in zip(range(value.size(self.dim)), self.cseq)]
        return mg.stack(answers, self.dim)


# ---- discrete sets -------------------------------------------------------------------------------------

def _zero_or_one(value):
    return value.eq(0) | value.eq(1)


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return _zero_or_one(value)


class _OneHot(Constraint):
    """Vectors of zeros with a single one."""
    is_discrete = True
    event_dim = 1

    def check(self, value):
        return _zero_or_one(value).all(-1) & value.sum(-1).eq(1)


class _Multinomial(Constraint):
    """Count vectors: nonnegative entries summing to at most upper_bound."""
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        nonnegative_counts = (x >= 0).all(-1)
        return nonnegative_counts & (x.sum(-1) <= self.upper_bound)


class _Bounded(Constraint):
    """A set given by bounds (numbers, or tensors for a distribution's own parameters); repr shows
    them as keywords, in the order the constructor takes them."""

    def __init__(self, **bounds):
        vars(self).update(bounds)
        self._fields = tuple(bounds)


class _IntegerInterval(_Bounded):
    """Whole numbers in [lower_bound, upper_bound]."""
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        super().__init__(lower_bound=lower_bound, upper_bound=upper_bound)

    def check(self, value):
        return _is_whole(value) & (value >= self.lower_bound) & (value <= self.upper_bound)


class _IntegerGreaterThan(_Bounded):
    """Whole numbers >= lower_bound (the name is torch's, the bound inclusive)."""
    is_discrete = True

    def __init__(self, lower_bound):
        super().__init__(lower_bound=lower_bound)

    def check(self, value):
        return _is_whole(value) & (value >= self.lower_bound)


# ---- real intervals ------------------------------------------------------------------------------------

class _Real(Constraint):
    def check(self, value):
        return value == value  # everything but nan


class _GreaterThan(_Bounded):
    """(lower_bound, inf)."""

    def __init__(self, lower_bound):
        super().__init__(lower_bound=lower_bound)

    def check(self, value):
        return value > self.lower_bound


class _GreaterThanEq(_GreaterThan):
    """[lower_bound, inf)."""

    def check(self, value):
        return value >= self.lower_bound


class _LessThan(_Bounded):
    """(-inf, upper_bound)."""

    def __init__(self, upper_bound):
        super().__init__(upper_bound=upper_bound)

    def check(self, value):
        return value < self.upper_bound


class _Interval(_Bounded):
    """[lower_bound, upper_bound]."""

    def __init__(self, lower_bound, upper_bound):
        super().__init__(lower_bound=lower_bound, upper_bound=upper_bound)

    def check(self, value):
        return (value >= self.lower_bound) & (value <= self.upper_bound)


class _HalfOpenInterval(_Interval):
    """[lower_bound, upper_bound)."""

    def check(self, value):
        return (value >= self.lower_bound) & (value < self.upper_bound)


class _Simplex(Constraint):
    """Probability vectors: nonnegative, summing to 1 (within 1e-6)."""
    event_dim = 1

    def check(self, value):
        total = value.sum(-1)
        return (value >= 0).all(-1) & ((total - 1).abs() < 1e-6)


# ---- matrices ---------------------------------------------------------------------------------------------

class _Matrix(Constraint):
    """A constraint on square-matrix events: one answer per matrix in the last two dims."""
    event_dim = 2

    @staticmethod
    def _lower_triangular(value):
        return _all_after(value == value.tril(), value.dim() - 2)


class _LowerTriangular(_Matrix):
    def check(self, value):
        return self._lower_triangular(value)


class _LowerCholesky(_Matrix):
    """Lower-triangular with a positive diagonal: exactly the Cholesky factors of SPD matrices."""

    def check(self, value):
        diagonal = value.diagonal(dim1=-2, dim2=-1)
        return self._lower_triangular(value) & (diagonal > 0).all(-1)


class _Square(_Matrix):
    def check(self, value):
        rows, cols = value.shape[-2:]
        return mg.full(tuple(value.shape[:-2]), rows == cols, dtype=mg.bool, device=value.device)


class _Symmetric(_Square):
    """Square and equal to its transpose (up to isclose with atol 1e-6)."""

    def check(self, value):
        return _unless_failed(super().check(value),
                              lambda: mg.isclose(value, value.mT, atol=1e-6).all(-2).all(-1))


class _PositiveSemidefinite(_Symmetric):
    """Symmetric with no negative eigenvalue."""

    def check(self, value):
        return _unless_failed(super().check(value), lambda: _linalg.eigvalsh(value).ge(0).all(-1))


class _PositiveDefinite(_Symmetric):
    """Symmetric, and a Cholesky factorization exists (all eigenvalues positive)."""

    def check(self, value):
        return _unless_failed(super().check(value), lambda: _linalg.cholesky_ex(value).info.eq(0))


# ---- the public names ----------------------------------------------------------------------------------

# classes, to be called with their parameters
dependent_property, independent, cat, stack = _DependentProperty, _IndependentConstraint, _Cat, _Stack
greater_than, greater_than_eq, less_than = _GreaterThan, _GreaterThanEq, _LessThan
interval, half_open_interval = _Interval, _HalfOpenInterval
integer_interval, multinomial = _IntegerInterval, _Multinomial

# fixed sets
dependent = _Dependent()
real, boolean, one_hot, simplex = _Real(), _Boolean(), _OneHot(), _Simplex()
real_vector = independent(real, 1)
positive, nonnegative, unit_interval = _GreaterThan(0.0), _GreaterThanEq(0.0), _Interval(0.0, 1.0)
positive_integer, nonnegative_integer = _IntegerGreaterThan(1), _IntegerGreaterThan(0)
square, symmetric, lower_triangular, lower_cholesky = _Square(), _Symmetric(), _LowerTriangular(), _LowerCholesky()
positive_semidefinite, positive_definite = _PositiveSemidefinite(), _PositiveDefinite()
