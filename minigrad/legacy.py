"""The legacy tensor types (minigrad.FloatTensor, minigrad.cuda.LongTensor, ...), the legacy
constructors that go with them (FloatTensor(2, 3), Tensor([1, 2]), t.new(...)), Tensor.type(...)
given a type, and set_default_tensor_type.

Each legacy type is a class whose metaclass (tensortype) makes isinstance(t, FloatTensor) true
exactly when t is a float32 tensor on the CPU; calling the class builds a plain Tensor of that
dtype and device, as torch's do. They are not Tensor subclasses, as torch's are not."""
import warnings

from . import dtypes as _dt
from .tensor import Tensor, Size, _normalize_shape

# one overload per line, as torch's parser for the legacy constructors lists them
_NEW_OVERLOADS = (
    "(*, minigrad.device device = None)",
    "(minigrad.Storage storage)",
    "(Tensor other)",
    "(tuple of ints size, *, minigrad.device device = None)",
    "(object data, *, minigrad.device device = None)",
)


class tensortype(type):
    """The metaclass of the legacy tensor types: a type stands for a (dtype, device type) pair."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.is_cuda == cls.is_cuda

    def __subclasscheck__(cls, sub):
        return type.__subclasscheck__(cls, sub)

    @property
    def is_sparse(cls):
        return False

    @property
    def is_sparse_csr(cls):
        return False


tensortype.__module__ = "minigrad"


def _type_name(cls):
    return ("minigrad.cuda." if cls.is_cuda else "minigrad.") + cls.__name__


def _cuda_unavailable(cls):
    """torch's error for a CUDA legacy type on a machine without CUDA."""
    from . import cuda
    if not cuda.is_available():
        raise TypeError(f"type {_type_name(cls)} not available. Torch not compiled with CUDA enabled.")


def _make_type(d, cuda):
    def __new__(cls, *args, **kwargs):
        if cls.is_cuda:
            _cuda_unavailable(cls)
        return legacy_new(cls.dtype, "cuda" if cls.is_cuda else "cpu", args, kwargs)
    cls = tensortype(d._legacy, (), {"__new__": __new__, "__module__": "minigrad.cuda" if cuda else "minigrad",
                                     "dtype": d, "is_cuda": cuda,
                                     "__doc__": f"The legacy type of {d!r} tensors on the {'CUDA' if cuda else 'CPU'}."})
    return cls


def _legacy_dtypes():
    ds = list(_dt.ALL)
    bf16 = getattr(_dt, "bfloat16", None)  # present once minigrad has that dtype
    if bf16 is not None and bf16 not in ds:
        ds.append(bf16)
    return ds


CPU_TYPES = {}
CUDA_TYPES = {}
for _d in _legacy_dtypes():
    CPU_TYPES[_d._legacy] = _make_type(_d, False)
    CUDA_TYPES[_d._legacy] = _make_type(_d, True)
del _d


# ---- the legacy constructors -------------------------------------------------------------------

def _invalid(args, kwargs):
    from ._arg_errors import _format_invalid_args
    return TypeError(_format_invalid_args(args, kwargs, "new()", _NEW_OVERLOADS))


def _is_size_int(x):
    return x.__class__ is not bool and hasattr(x, "__index__") and not isinstance(x, Tensor) and \
        not getattr(x, "ndim", 0)


def _options(d, device):
    from .dtypes import cpp_name
    return (f"TensorOptions(dtype={cpp_name(d)}, device={device}, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def legacy_new(d, device_type, args, kwargs, device=None, typed=True):
    """What FloatTensor(...), Tensor(...) and t.new(...) build: a tensor of dtype d on a device of
    device_type (device: the exact device, for t.new). The overloads are torch's: () an empty
    tensor, (storage), (tensor) an alias of a tensor of that very type, (*sizes) an uninitialized
    tensor of that shape, (data) a tensor holding a sequence's values. typed=False (torch.Tensor's
    own constructor): a tensor of any type passes, aliased."""
    from .devices import device as _device_cls, canonical
    extra = [k for k in kwargs if k != "device"]
    if extra:
        raise _invalid(args, kwargs)
    if "device" in kwargs and kwargs["device"] is not None:
        dev = _device_cls(kwargs["device"])
        if dev.type != device_type:
            raise RuntimeError(f"legacy constructor expects device type: {device_type} but device type: "
                               f"{dev.type} was passed")
        device = dev
    if device is None:
        device = device_type
    device = canonical(device)
    from . import creation
    from .storage import UntypedStorage, TypedStorage
    if not args:
        return creation.empty(0, dtype=d, device=device)
    first = args[0]
    if isinstance(first, (UntypedStorage, TypedStorage)):
        if len(args) > 1 or kwargs:
            raise _invalid(args, kwargs)
        return creation.empty(0, dtype=d, device=device).set_(first)
    if isinstance(first, Tensor):
        if len(args) > 1 or kwargs:
            raise _invalid(args, kwargs)
        if typed and (first.dtype is not d or first._device is not device):
            raise TypeError(f"expected {_options(d, device)} (got {_options(first.dtype, first._device)})")
        return first[...]  # an alias, as torch's (AliasBackward0 when it requires grad)
    if _is_size_int(first) or isinstance(first, Size):
        if isinstance(first, Size) and len(args) > 1:
            raise _invalid(args, kwargs)
        shape = _normalize_shape(args if not isinstance(first, Size) else (tuple(first),), "new")
        return creation.empty(shape, dtype=d, device=device)
    if len(args) > 1:
        raise _invalid(args, kwargs)
    if isinstance(first, str):
        raise TypeError(f"new(): invalid data type '{type(first).__name__}'")
    if not hasattr(first, "__len__") and not hasattr(first, "__array__"):
        from ._typename import tp_name
        raise TypeError(f"new(): data must be a sequence (got {tp_name(first)})")
    return creation._tensor(first, d, device, False)


def tensor_new(cls, args, kwargs):
    """torch.Tensor(...): the legacy constructor of the default type (a subclass gets its class)."""
    t = legacy_new(_dt.get_default_dtype(), "cpu", args, kwargs, typed=False)
    if cls is Tensor:
        return t
    out = object.__new__(cls)
    out._data, out._device = t._data, t._device
    return out


def _new(self, *args, **kwargs):
    """Tensor.new(...): the legacy constructor of self's type, on self's device."""
    return legacy_new(self.dtype, self._device.type, args, kwargs, device=self._device)


# ---- Tensor.type(...) ----------------------------------------------------------------------------

def _resolve_name(name):
    """('float32', is_cuda) for a legacy type's name ('torch.cuda.FloatTensor'), else None."""
    for prefix in ("torch.", "minigrad."):
        if name.startswith(prefix):
            rest = name[len(prefix):]
            table = CPU_TYPES
            if rest.startswith("cuda."):
                rest, table = rest[5:], CUDA_TYPES
            return table.get(rest)
    return None


def _default_type():
    return CPU_TYPES[_dt.get_default_dtype()._legacy]


def tensor_type(self, dtype=None, non_blocking=False, **kwargs):
    """Tensor.type(): the type's name ('torch.FloatTensor'); Tensor.type(t): self converted to the
    legacy type (or dtype, or the type's name) t, self itself when it is of that type already."""
    for k in kwargs:
        if k == "async":
            warnings.warn("This overload of type is deprecated:\n\ttype(object dtype = None, bool async = False, "
                          "*, minigrad.memory_format memory_format = None)\nConsider using one of the following "
                          "signatures instead:\n\ttype(object dtype = None, bool non_blocking = False, *, "
                          "minigrad.memory_format memory_format = None)", UserWarning, stacklevel=2)
        elif k != "memory_format":
            raise TypeError(f"type() got an unexpected keyword argument '{k}'")
    if dtype is None:
        return ("torch.cuda." if self.is_cuda else "torch.") + self.dtype._legacy
    if isinstance(dtype, _dt.dtype):
        return self.to(dtype)
    if isinstance(dtype, str):
        cls = _resolve_name(dtype)
        if cls is None:
            raise ValueError(f"invalid type: '{dtype}'")
    elif isinstance(dtype, type):
        if dtype is Tensor:
            cls = _default_type()
        elif isinstance(dtype, tensortype):
            cls = dtype
        else:
            from ._typename import typename
            raise ValueError(f"invalid type: '{typename(dtype)}'")
    else:
        raise TypeError("dtype must be a type, str, or dtype object")
    if isinstance(self, cls):
        return self
    if cls.is_cuda:
        return self.to("cuda" if not self.is_cuda else self._device, cls.dtype)
    return self.to("cpu", cls.dtype)


# ---- set_default_tensor_type -----------------------------------------------------------------------

_warned = []
_set_cuda = []  # the default device was made CUDA by a CUDA type here


def set_default_tensor_type(t, /):
    """torch.set_default_tensor_type (deprecated): the default floating point dtype (and, for a
    CUDA type, the default device) from a legacy type or its name."""
    if not _warned:  # torch warns once per process
        _warned.append(True)
        warnings.warn("minigrad.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                      "minigrad.set_default_dtype() and minigrad.set_default_device() as alternatives.",
                      UserWarning, stacklevel=2)
    if isinstance(t, str):
        cls = _resolve_name(t)
        if cls is None:
            cls = _import_dotted(t)
    else:
        cls = t
    if not isinstance(cls, tensortype):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if cls.is_cuda:
        _cuda_unavailable(cls)
    if not cls.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dt.set_default_dtype(cls.dtype)
    from .creation import set_default_device
    if cls.is_cuda:
        set_default_device("cuda")
        _set_cuda[:] = [True]
    elif _set_cuda:
        set_default_device(None)
        _set_cuda.clear()


def _import_dotted(name):
    """The object a dotted name names ('pkg.mod.attr'), importing its module."""
    import importlib
    parts = name.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], 1):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(".".join(parts[:i + 1]))
    return obj


def install(namespace, cuda_module):
    """The legacy types into minigrad's namespace and minigrad.cuda's, and Tensor.new."""
    namespace.update(CPU_TYPES)
    for name, cls in CUDA_TYPES.items():
        setattr(cuda_module, name, cls)
    Tensor.new = _new
