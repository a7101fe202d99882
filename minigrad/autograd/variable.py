"""torch.autograd.Variable: the pre-0.4 wrapper, now a constructor of plain tensors.

Variable(t) is t detached (sharing its memory and version counter), Variable(t,
requires_grad=True) a leaf requiring grad; volatile= is accepted with torch's warning; and
isinstance(x, Variable) is true for every tensor, as torch's metaclass makes it."""
import operator
import warnings

_NAMES = ("data", "requires_grad", "volatile", "_grad_fn", "name")


class VariableMeta(type):
    def __instancecheck__(cls, other):
        from ..tensor import Tensor
        return isinstance(other, Tensor)


def _flag(value):
    """A flag as torch's parser reads it: anything with __index__ (nonzero: True)."""
    try:
        return bool(operator.index(value))
    except TypeError:
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer") from None


class Variable(metaclass=VariableMeta):
    """Variable(data=None, requires_grad=False, volatile=False, _grad_fn=None, name=None)."""

    def __new__(cls, *args, **kwargs):
        from ..tensor import Tensor
        from .function import Node
        from .._typename import tp_name
        if len(args) > len(_NAMES):
            raise TypeError(f"function takes at most {len(_NAMES)} arguments ({len(args)} given)")
        bound = dict(zip(_NAMES, args))
        for k, v in kwargs.items():
            if k not in _NAMES:
                raise TypeError(f"'{k}' is an invalid keyword argument for this function")
            if k in bound:
                raise TypeError(f"argument for function given by name ('{k}') and position "
                                f"({_NAMES.index(k) + 1})")
            bound[k] = v
        data = bound.get("data")
        requires_grad = _flag(bound.get("requires_grad", False))
        volatile = _flag(bound.get("volatile", False))
        grad_fn = bound.get("_grad_fn")
        name = bound.get("name")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"argument 5 must be str or None, not {tp_name(name)}")
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with minigrad.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if volatile and requires_grad:
            raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if grad_fn is not None and not isinstance(grad_fn, Node):
            raise TypeError(f"_grad_fn has to be a Function object or None, but got {tp_name(grad_fn)}")
        if data is None:
            from ..creation import empty
            var = empty(0)
        elif isinstance(data, Tensor):
            var = data.detach()
        else:
            raise TypeError(f"Variable data has to be a tensor, but got {tp_name(data)}")
        if requires_grad:
            from ..tensor import require_grad_at_creation
            require_grad_at_creation(var, True)
        return var


Variable.__module__ = VariableMeta.__module__ = __name__
