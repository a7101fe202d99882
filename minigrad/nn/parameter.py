"""nn.Parameter and nn.Buffer: the tensors a Module registers when assigned as attributes."""
from ..tensor import Tensor, require_grad_at_creation


class Parameter(Tensor):
    """A Tensor that, assigned as a Module attribute, is registered in `parameters()`.

    `Parameter(t)` shares t's memory (as torch's does) and is a leaf requiring grad by default.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ..creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
        p = object.__new__(cls)
        p._data, p._device = data._data, data._device
        if data._vc is None:
            data._vc = [0, 0]
        p._vc = data._vc
        p._inference = data._inference  # before requires_grad, which an inference tensor may refuse
        require_grad_at_creation(p, requires_grad)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (Parameter, (self.detach(), self._requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        p = Parameter(self.detach().clone(), self._requires_grad)
        memo[id(self)] = p
        return p


class _BufferMeta(type):
    # isinstance(t, Buffer) is true for the tensors Buffer(...) returns, as in torch
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """torch.nn.Buffer: `self.stats = nn.Buffer(t)` in a Module registers a buffer, as
    `register_buffer("stats", t, persistent=...)` does. It returns a detached tensor sharing
    t's memory, marked as a buffer."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from ..creation import empty
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
