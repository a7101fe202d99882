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


# ---- lazy modules' uninitialized tensors (torch.nn.parameter's UninitializedTensorMixin) --------
# The placeholder holds an empty array of its dtype and device; until materialize() only torch's
# allowed methods (and attributes, which torch also lets through) reach it: any other method, an
# operator or an op reading its array raises torch's ValueError, reading .shape its RuntimeError.
import os as _os
import sys as _sys
import threading as _threading

_lazy_state = _threading.local()  # .open > 0 while an allowed method runs
_PKG_DIR = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))) + _os.sep
_NN_MODULES_DIR = _os.path.join(_PKG_DIR, "nn", "modules") + _os.sep
# torch's names (its ATen methods) for the operators whose dunder names differ
_OPERATOR_NAMES = {"__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__isub__": "sub_",
                   "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_", "__truediv__": "div",
                   "__itruediv__": "div_", "__neg__": "neg", "__matmul__": "matmul", "__lt__": "lt", "__le__": "le",
                   "__gt__": "gt", "__ge__": "ge", "__ne__": "ne", "__abs__": "abs", "__pos__": "positive",
                   "__and__": "__and__", "__or__": "__or__", "__xor__": "__xor__", "__invert__": "bitwise_not",
                   "__iter__": "dim", "__getitem__": None, "__setitem__": None}


def _uninit_error(cls, func):
    return ValueError(f"Attempted to use an uninitialized parameter in {func}. This error happens when you are "
                      f"using a `LazyModule` or explicitly manipulating `torch.nn.parameter.{cls.__name__}` "
                      "objects. When using LazyModules Call `forward` with a dummy batch to initialize the "
                      "parameters before calling torch functions")


# the methods torch writes in Python (torch/_tensor.py): its message names them as functions
_PYTHON_METHODS = frozenset({"__array__", "__contains__", "__deepcopy__", "__format__", "__len__", "__rsub__",
                             "__rtruediv__", "__rpow__", "__rmatmul__", "__rfloordiv__", "__rmod__", "__reversed__",
                             "__floordiv__", "backward", "register_hook", "unique", "unique_consecutive", "split",
                             "norm", "unflatten", "lu", "stft", "istft", "resize", "resize_as", "is_shared",
                             "storage", "module_load", "to_sparse_coo"})


def _method_name(name, fn=None):
    if name in _PYTHON_METHODS:
        return f"<function Tensor.{name} at {hex(id(fn))}>"
    if name in _OPERATOR_NAMES and _OPERATOR_NAMES[name] is None:
        return f"<slot wrapper '{name}' of 'torch._C.TensorBase' objects>"
    return f"<method '{_OPERATOR_NAMES.get(name, name)}' of 'torch._C.TensorBase' objects>"


def _internal_function(frame):
    """The outermost function of minigrad's ops on the stack above frame (the function the user
    called, as torch's message names it), or None when frame is outside them (user code, or the
    nn.Module machinery, which torch writes in Python too)."""
    name = None
    while frame is not None:
        fname = frame.f_code.co_filename
        if not fname.startswith(_PKG_DIR) or fname.startswith(_NN_MODULES_DIR):
            break
        if not fname.endswith("parameter.py"):
            name = frame.f_code.co_name
        frame = frame.f_back
    return name


def _blocked(name):
    def method(self, *args, **kwargs):
        raise _uninit_error(type(self), _method_name(name, method))
    method.__name__ = name
    return method


def _allowed(name):
    def method(self, *args, **kwargs):
        fn = getattr(Tensor, name, None)
        if fn is None:  # one of torch's allowed methods that minigrad's Tensor lacks
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        _lazy_state.open = getattr(_lazy_state, "open", 0) + 1
        try:
            out = fn(self, *args, **kwargs)
        finally:
            _lazy_state.open -= 1
        return self._convert_result(out)
    method.__name__ = name
    return method


class UninitializedTensorMixin:
    """What UninitializedParameter and UninitializedBuffer share: torch's allowed methods, the
    errors for everything else, materialize()."""
    _allowed_methods = ("size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char",
                        "short", "int", "long", "cuda", "cpu", "to", "get_device")

    def __getattribute__(self, name):
        if name[0] == "_" or name in _MIXIN_NAMES:
            return object.__getattribute__(self, name)
        for klass in type(self).__mro__:
            attr = klass.__dict__.get(name, _MISSING)
            if attr is _MISSING:
                continue
            if isinstance(attr, property):  # attributes pass, as torch's getset descriptors
                _lazy_state.open = getattr(_lazy_state, "open", 0) + 1
                try:
                    value = object.__getattribute__(self, name)
                finally:
                    _lazy_state.open -= 1
                return self._convert_result(value) if name == "data" else value
            if callable(attr) and not isinstance(attr, type):
                return _blocked(name).__get__(self)
            break
        return object.__getattribute__(self, name)

    @property
    def _data(self):
        if getattr(_lazy_state, "open", 0):
            return self.__dict__["_data"]
        raise _uninit_error(type(self), f"<function {_internal_function(_sys._getframe(1)) or '_data'}>")

    @_data.setter
    def _data(self, value):
        self.__dict__["_data"] = value

    @property
    def shape(self):
        func = _internal_function(_sys._getframe(1))
        if func is not None:  # an op's own look at the shape: torch's op would refuse the tensor
            raise _uninit_error(type(self), f"<function {func}>")
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    def _convert_result(self, out):
        return out

    def materialize(self, shape, device=None, dtype=None):
        """Give the tensor memory of `shape` (uninitialized, as torch.empty), on this one's device
        and of its dtype unless given, and turn it into a cls_to_become (Parameter / Tensor) in
        place: whoever holds it (a module, an optimizer) holds the materialized tensor."""
        from ..creation import empty
        data = self.data
        if device is None:
            device = data.device
        if dtype is None:
            dtype = data.dtype
        self.data = empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
                           "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (type(self), (self.requires_grad,))

    __hash__ = Tensor.__hash__


for _name in UninitializedTensorMixin._allowed_methods:
    setattr(UninitializedTensorMixin, _name, _allowed(_name))
for _name in ("__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__", "__rmul__",
              "__imul__", "__truediv__", "__rtruediv__", "__itruediv__", "__floordiv__", "__rfloordiv__",
              "__mod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__", "__pos__", "__abs__",
              "__invert__", "__and__", "__or__", "__xor__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
              "__ge__", "__bool__", "__float__", "__int__", "__index__", "__len__", "__iter__", "__getitem__",
              "__setitem__", "__format__", "__array__", "__contains__"):
    setattr(UninitializedTensorMixin, _name, _blocked(_name))
_MISSING = object()
_MIXIN_NAMES = frozenset(UninitializedTensorMixin._allowed_methods) | {
    "materialize", "share_memory_", "cls_to_become", "persistent", "shape"}


def is_lazy(param):
    """Whether param is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


def _placeholder(cls, requires_grad, device, dtype):
    from ..creation import empty
    if requires_grad.__class__ is not bool:
        raise TypeError(f"_make_subclass(): argument 'require_grad' (position 3) must be bool, not "
                        f"{type(requires_grad).__name__}")
    data = empty(0, device=device, dtype=dtype)
    t = object.__new__(cls)
    t.__dict__["_data"] = data.__dict__["_data"]
    t._device = data._device
    t._vc = [0, 0]
    _lazy_state.open = getattr(_lazy_state, "open", 0) + 1
    try:
        require_grad_at_creation(t, requires_grad)
    finally:
        _lazy_state.open -= 1
    return t


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (a lazy module's, until its first forward): only
    dtype and device changes and materialize(shape) are allowed; materialize() makes it a
    Parameter in place. device= and dtype= set what it materializes as."""
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _placeholder(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        data = self.data
        result = type(self)(self.requires_grad, data.device, data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet; materialize() makes it a Tensor in place. Its dtype
    and device conversions give UninitializedBuffers (torch converts a Tensor subclass's results)."""
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = _placeholder(cls, requires_grad, device, dtype)
        t.persistent = persistent
        t._is_buffer = True
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass

    def _convert_result(self, out):
        if type(out) is Tensor:  # a new tensor (not self): torch returns it as this subclass
            out.__class__ = type(self)
        return out

    __deepcopy__ = _blocked("__deepcopy__")
