"""The Distribution base class (torch.distributions.Distribution's contract).

A distribution describes a batch of independent random variables, each of them shaped like an
event; a draw under `sample_shape` has shape sample_shape + batch_shape + event_shape. With
validation on (the default, as in torch unless python runs with -O) the constructor checks every
parameter against `arg_constraints`, and log_prob checks its value against `support`.
"""
import functools
import warnings

from .. import Size, no_grad
from . import constraints

__all__ = ["Distribution"]


def _joined(*shapes):
    """The concatenation of several shapes, as a Size."""
    out = ()
    for s in shapes:
        out += tuple(s)
    return Size(out)


def _shape_text(t):
    return f"{type(t).__name__} of shape {tuple(t.shape)}"


class Distribution:
    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Switch argument/sample validation on or off for every distribution built afterwards."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape, self._event_shape = Size(batch_shape), Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _declared(self, attr, advice):
        """self.<attr>, or None, with a warning, where the family leaves it undeclared: validation
        then checks what it can and skips the rest."""
        try:
            return getattr(self, attr)
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `{attr}`{advice} the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=4)
            return None

    def _check_parameters(self):
        checks = self._declared("arg_constraints", ". Please set `arg_constraints = {}` or initialize")
        for name, constraint in (checks or {}).items():
            # a dependent constraint has nothing to check; a parameter still held only as its
            # lazy_property (probs given as logits, say) would be computed just to be checked
            lazy = name not in self.__dict__ and isinstance(getattr(type(self), name), lazy_property)
            if lazy or constraints.is_dependent(constraint):
                continue
            param = getattr(self, name)
            if not bool(constraint.check(param).all()):
                raise ValueError(f"Expected parameter {name} ({_shape_text(param)}) of distribution {self!r} to "
                                 f"satisfy the constraint {constraint!r}, but found invalid values:\n{param}")

    # ---- shapes -------------------------------------------------------------------------------
    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=Size()):
        """sample_shape + batch_shape + event_shape: the shape of a draw."""
        return _joined(sample_shape, self._batch_shape, self._event_shape)

    def expand(self, batch_shape, _instance=None):
        raise NotImplementedError

    def _get_checked_instance(self, cls, _instance=None):
        """The blank object expand fills in: _instance when a subclass's expand passes its own, else
        an uninitialised instance of type(self). A subclass with its own __init__ but without its own
        expand would get an object cls.expand cannot set up, so that is an error."""
        if _instance is not None:
            return _instance
        if type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self))

    # ---- what each family defines -------------------------------------------------------------
    @property
    def arg_constraints(self):
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def rsample(self, sample_shape=Size()):
        raise NotImplementedError

    def sample(self, sample_shape=Size()):
        """A draw of shape sample_shape + batch_shape + event_shape that carries no gradient."""
        with no_grad():
            return self.rsample(sample_shape)

    def sample_n(self, n):
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        """exp(H): the effective number of equally likely outcomes."""
        return self.entropy().exp()

    # ---- value validation ---------------------------------------------------------------------
    def _validate_sample(self, value):
        """Raise ValueError unless value is a tensor whose trailing dims are the event shape, that
        broadcasts against batch_shape + event_shape, and that lies in the support."""
        from ..tensor import Tensor
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        have = value.size()
        n_event = len(self._event_shape)
        if have[len(have) - n_event:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {have} vs "
                             f"{self._event_shape}.")
        want = _joined(self._batch_shape, self._event_shape)
        if any(a != b and 1 not in (a, b) for a, b in zip(reversed(have), reversed(want))):
            raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {have} vs {want}.")
        support = self._declared("support", " to enable sample validation. Please initialize")
        if support is not None and not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument ({_shape_text(value)}) to be within the support "
                             f"({support!r}) of the distribution {self!r}, but found invalid values:\n{value}")

    def __repr__(self):
        # each parameter the instance holds: its value when it is a single number, else its size
        shown = []
        for name in self.arg_constraints:
            if name in self.__dict__:
                v = self.__dict__[name]
                shown.append(f"{name}: {v if v.numel() == 1 else v.size()}")
        return f"{self.__class__.__name__}({', '.join(shown)})"


class _CentredAtLoc:
    """For families symmetric and unimodal about `loc` (Normal, Laplace, VonMises, the
    multivariate normals): their mean and mode are both loc. Listed before the base class."""

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc


def _finish_expand(new, source, batch_shape, event_shape=None):
    """The tail every expand shares: set new's shapes without re-validating its (already checked)
    parameters, and carry over source's validation flag."""
    Distribution.__init__(new, batch_shape, source.event_shape if event_shape is None else event_shape,
                          validate_args=False)
    new._validate_args = source._validate_args
    return new


def _expand_into(source, cls, instance, batch_shape, event_shape=None, **attrs):
    """The whole of a simple expand: the blank instance, its (already expanded) attributes, its
    shapes."""
    new = source._get_checked_instance(cls, instance)
    for name, value in attrs.items():
        setattr(new, name, value)
    return _finish_expand(new, source, batch_shape, event_shape)


def _checks_value(method):
    """Decorator for log_prob, cdf and the like: validate the value first when validation is on."""
    @functools.wraps(method)
    def checked(self, x, *args, **kwargs):
        if self._validate_args:
            self._validate_sample(x)
        return method(self, x, *args, **kwargs)
    return checked


class lazy_property:
    """A derived parameter (probs from logits, a Cholesky factor...) computed on first access and
    then stored on the instance, shadowing this descriptor. It is built with grad mode on, so that
    it stays differentiable even when first touched under no_grad (inside sample, say)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        from .. import enable_grad
        with enable_grad():
            computed = self.wrapped(instance)
        instance.__dict__[self.__name__] = computed
        return computed
