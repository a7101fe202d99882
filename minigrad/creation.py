"""Creating tensors: tensor, from_numpy, zeros/ones/full/empty, arange, linspace, eye, random."""
import operator
import threading
from numbers import Number

import numpy as np

from . import dtypes as _dt
from .devices import canonical, CPU
from .tensor import Tensor, _make, _normalize_shape, require_grad_at_creation
from . import memory_formats as _mf


def _finish(data, device, requires_grad):
    t = _make(data, device)
    if requires_grad:
        require_grad_at_creation(t, True)  # validates: only floating point tensors may require grad
    return t


# torch.set_default_device: per thread, as torch's (a thread-local device context). None: the CPU,
# without a DeviceContext; the factory functions that torch's context reaches (tensor, as_tensor,
# asarray, zeros, ones, empty, full, arange, linspace, eye, rand, randn, randint, randperm) take
# it when called without device= (or with device=None); *_like, from_numpy and frombuffer do not.
_DEFAULT_DEVICE = threading.local()


def set_default_device(device):
    """torch.set_default_device: factories called without a device create on `device` (None: the CPU)."""
    if device is not None:
        from .devices import device as _device_cls
        device = _device_cls(device)  # torch's errors for what names no device
    _DEFAULT_DEVICE.device = device


def get_default_device():
    """torch.get_default_device: the default device, with the current CUDA device's index for 'cuda'."""
    from .devices import device as _device_cls
    dev = getattr(_DEFAULT_DEVICE, "device", None)
    if dev is None:
        return _device_cls("cpu")
    if dev.index is None and dev.type == "cuda":
        from . import cuda
        return _device_cls("cuda", cuda.current_device())
    return dev


def _target(device):
    """The device a factory creates on: device, else the default device (canonical)."""
    if device is None:
        device = getattr(_DEFAULT_DEVICE, "device", None)
    return canonical(device)


def _kinds(data):
    """What decides data's dtype, element by element (see _leaf_kinds), for Python data."""
    kinds = set()
    if isinstance(data, (list, tuple)):
        _leaf_kinds(data, kinds)
    else:
        kinds.add(data.__class__)
    return kinds


def _leaf_kinds(seq, acc):
    """Adds to acc what decides the dtype of each element of the nested sequence seq: the type
    of a Python or NumPy scalar, the dtype of an array or tensor."""
    kinds = set(map(type, seq))
    if list in kinds or tuple in kinds or Tensor in kinds or np.ndarray in kinds:
        for x in seq:
            c = x.__class__
            if c is list or c is tuple:
                _leaf_kinds(x, acc)
            elif isinstance(x, (Tensor, np.ndarray)):
                acc.add(x.dtype)
            else:
                acc.add(c)
    else:
        acc |= kinds


def _kind_dtype(k):
    if k is float:
        return _dt.get_default_dtype()
    if k is int:
        return _dt.int64
    if k is bool:
        return _dt.bool_
    if isinstance(k, _dt.dtype):
        return k
    if isinstance(k, np.dtype) or (isinstance(k, type) and issubclass(k, np.generic)):
        return _dt.from_numpy_dtype(np.dtype(k))
    return None


def _infer_dtype(host, data, kinds):
    """torch.tensor's dtype inference: NumPy arrays and tensors keep their dtype; Python numbers
    give bool, int64 or the default float; NumPy scalars and tensors inside a sequence keep
    theirs; a sequence takes the promotion of its elements' dtypes (torch's infer_scalar_type,
    so [np.float64(1), 2] is float64 and [1.5, np.float64(2)] float64 too)."""
    if kinds is None:  # a NumPy array or a tensor
        return _dt.from_numpy_dtype(host.dtype)
    if kinds and not kinds <= {float, int, bool}:
        result = None
        for k in kinds:
            d = _kind_dtype(k)
            if d is None:
                break
            result = d if result is None else _dt.promote_types(result, d)
        else:
            return result
    kind = host.dtype.kind
    if kind == "b":
        return _dt.bool_
    if kind in "iu":
        return _dt.int64
    if kind == "f":
        return _dt.get_default_dtype()
    raise _no_dtype_error(data)


def _host_array(data, kinds=None):
    """data (a tensor, an array, or Python data whose element kinds are kinds) as a NumPy array."""
    if isinstance(data, Tensor):
        return data.detach().cpu()._data
    if kinds and any(k.__class__ is _dt.dtype for k in kinds):  # tensors among the elements
        data = _element(data)
    try:
        arr = np.asarray(data)
    except ValueError:
        raise ValueError(_ragged_message(data)) from None
    if arr.dtype == object or arr.dtype.kind in "SUV":
        raise _no_dtype_error(data)
    return arr


def _element(x):
    """An element of a sequence given to tensor(): a tensor in it counts as the number it holds
    (torch converts it with item() or __index__), so it must have one element."""
    if isinstance(x, (list, tuple)):
        return [_element(y) for y in x]
    if not isinstance(x, Tensor):
        return x
    if x._data.size != 1:
        if x.is_floating_point():
            raise ValueError("only one element tensors can be converted to Python scalars")
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return x.detach().cpu()._data.reshape(())


def _no_dtype_error(data):
    """torch's error for data with an element that is no number: a string met first, where torch
    takes it for one more dimension, or anywhere else; or another object."""
    first = data
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
    if isinstance(first, str) and first is not data:
        return ValueError("too many dimensions 'str'")
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(reversed(x))
        elif isinstance(x, (str, bytes)):
            return TypeError(f"new(): invalid data type '{type(x).__name__}'")
        elif not isinstance(x, (Number, np.generic, np.ndarray)):
            return RuntimeError(f"Could not infer dtype of {type(x).__name__}")
    return TypeError(f"can't convert {type(data).__name__} of mixed or non-numeric elements to a tensor")


def _ragged_message(data):
    """torch's message for a nested list whose rows differ in length, found breadth-first."""
    level, dim = [data], 0
    while level:
        lengths = [len(x) for x in level if isinstance(x, (list, tuple))]
        if lengths and (len(lengths) != len(level) or len(set(lengths)) > 1):
            want = lengths[0]
            got = next((len(x) if isinstance(x, (list, tuple)) else 0) for x in level
                       if not isinstance(x, (list, tuple)) or len(x) != want)
            return f"expected sequence of length {want} at dim {dim} (got {got})"
        level = [y for x in level if isinstance(x, (list, tuple)) for y in x]
        dim += 1
    return "expected a rectangular nested sequence of numbers"


def _check_int_range(data, kinds):
    """torch's error for Python integers outside int64 in data without floats (NumPy would make
    them uint64 or objects, or wrap them)."""
    if int in kinds and float not in kinds:
        flat = [data] if data.__class__ is int else data
        stack = [flat]
        while stack:
            for x in stack.pop():
                c = x.__class__
                if c is int and not -(1 << 63) <= x < (1 << 63):
                    raise ValueError("Overflow when unpacking long long")
                if c is list or c is tuple:
                    stack.append(x)


_NUMPY_BOOLS = (np.bool_, np.dtype(np.bool_))


def _check_numpy_bools(kinds):
    """torch's error for NumPy bools (scalars, or the elements of a bool array inside a list) in
    data becoming an integer tensor, kinds being what decides data's dtype (_kinds): torch
    converts them one by one, through __index__, which NumPy's bool does not have (Python's
    bool, and a bool array as a whole, convert fine)."""
    if _NUMPY_BOOLS[0] in kinds or _NUMPY_BOOLS[1] in kinds:
        from ._typename import tp_name
        raise TypeError(f"'{tp_name(np.True_)}' object cannot be interpreted as an integer")


def copy_construct_warning(name):
    """torch's warning for tensor(t) / t.new_tensor(s) given a tensor (stacklevel: the user's call)."""
    import warnings
    warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                  "sourceTensor.detach().clone().requires_grad_(True), rather than "
                  f"{name}(sourceTensor).", UserWarning, stacklevel=3)


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if isinstance(data, Tensor):
        copy_construct_warning("minigrad.tensor")
    return _tensor(data, dtype, device, requires_grad)


def _tensor(data, dtype, device, requires_grad):
    kinds = None
    if not isinstance(data, (np.ndarray, Tensor)):
        kinds = _kinds(data)
        try:
            host = _host_array(data, kinds)
        except (TypeError, OverflowError):
            _check_int_range(data, kinds)
            raise
        if host.dtype.kind in "uf":
            _check_int_range(data, kinds)
    else:
        host = _host_array(data)
    dtype = _infer_dtype(host, data, kinds) if dtype is None else _dt.to_dtype(dtype)
    if kinds is not None and dtype._category == 1:  # an integer dtype
        _check_numpy_bools(kinds)
        if host.dtype.kind == "f" and not (np.abs(host) < 2.0 ** 63).all():  # nan, inf, too large
            raise RuntimeError(f"value cannot be converted to type {dtype.np.name} without overflow")
        if dtype.itemsize < 8 and host.size and host.dtype.kind in "iuf":  # the small integers' ranges
            for v in (host.min().item(), host.max().item()):
                _dt.check_fits(v, dtype, c_name=False)
    dev = _target(device)
    return _finish(dev.backend.asarray(_host_as(host, dtype)), dev, requires_grad)


def _host_as(host, d):
    """The NumPy array host in dtype d: into bfloat16 through the CPU backend's cast (float32,
    then rounded to bfloat16's bits), as every conversion to it goes."""
    npd = d.np
    if d is _dt.bfloat16 and host.dtype != npd:
        return CPU.backend.astype(host, npd)
    return host.astype(npd, copy=False)


def as_tensor(data, dtype=None, device=None):
    """Like tensor(), but without a copy where none is needed: a tensor already of that dtype and
    device is returned as is, and a NumPy array of that dtype on the CPU shares its memory."""
    if device is None:
        device = getattr(_DEFAULT_DEVICE, "device", None)  # torch's device context applies here too
    if isinstance(data, Tensor):
        return data if dtype is None and device is None else data.to(device=device, dtype=dtype)
    if (isinstance(data, np.ndarray) and _target(device) is CPU
            and (dtype is None or _dt.to_dtype(dtype).np == data.dtype)):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array):
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dt.from_numpy_dtype(array.dtype)
    return _make(array, CPU)  # shares memory both ways, as torch does


_WARNED = set()  # torch's warnings given once per program (TORCH_WARN_ONCE)


def _warn_once(key, message):
    if key not in _WARNED:
        _WARNED.add(key)
        import warnings
        warnings.warn(message, UserWarning, stacklevel=3)


def _kw_type_check(fn, name, value, kind, kind_name):
    if value is not None and (not isinstance(value, kind) or kind is int and isinstance(value, bool)):
        from ._arg_errors import type_name
        raise TypeError(f"{fn}(): argument '{name}' must be {kind_name}, not {type_name(value)}")


def _short_name(d):
    return d._legacy[:-len("Tensor")]  # 'Float', 'Long': the names torch's messages give dtypes


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """torch.asarray: obj (a tensor, a NumPy array or scalar, an object with the buffer protocol,
    a number or a sequence) as a tensor, sharing memory with tensors, arrays and buffers unless
    copy=True or a dtype/device conversion needs a copy (copy=False then raises)."""
    _kw_type_check("asarray", "dtype", dtype, _dt.dtype, "minigrad.dtype")
    _kw_type_check("asarray", "copy", copy, bool, "bool")
    _kw_type_check("asarray", "requires_grad", requires_grad, bool, "bool")
    if device is None:
        device = getattr(_DEFAULT_DEVICE, "device", None)  # torch's device context applies here too
    src, numpy_readonly = None, False
    if isinstance(obj, Tensor):
        src = obj
    elif isinstance(obj, np.ndarray):
        _dt.from_numpy_dtype(obj.dtype)
        src = _make(obj, CPU)  # shares memory both ways, as from_numpy
        numpy_readonly = not obj.flags.writeable
    elif isinstance(obj, np.generic):
        if copy is False:
            raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray. ")
    elif not isinstance(obj, (str, list, tuple, Number)) and _has_buffer(obj):
        src = frombuffer(obj, dtype=dtype if dtype is not None else _dt.get_default_dtype())
    if src is None:  # numbers, NumPy scalars and sequences: always a new tensor
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        t = _tensor(obj, dtype, device, False)
        if requires_grad:
            require_grad_at_creation(t, True)
        return t
    from .devices import device as _device_cls
    want_dev = _device_cls(device) if device is not None else None
    dev = canonical(want_dev) if want_dev is not None else src._device
    d = dtype if dtype is not None else src.dtype
    wrong_device, wrong_dtype = dev is not src._device, d is not src.dtype
    if copy or (copy is None and (wrong_device or wrong_dtype)):
        t = src.to(device=dev, dtype=d, copy=True) if wrong_device or wrong_dtype else src.clone()
    else:
        if wrong_device:
            raise ValueError(f"can't alias tensor from device '{src.device}' to '{want_dev}'.")
        if wrong_dtype:
            raise ValueError(f"can't alias tensor with dtype '{_short_name(src.dtype)}' into dtype "
                             f"'{_short_name(d)}'.")
        t = src
        if numpy_readonly:
            _warn_once("numpy", "The given NumPy array is not writable, and PyTorch does not support "
                       "non-writable tensors. This means writing to this tensor will result in undefined "
                       "behavior. You may want to copy the array to protect its data or make it writable "
                       "before converting it to a tensor. This type of warning will be suppressed for the "
                       "rest of this program.")
    if requires_grad is None:
        if src.requires_grad:
            _warn_once("asarray", "minigrad.asarray: unspecified requires_grad now defaults to "
                       "obj.requires_grad instead of False. Pass requires_grad=False explicitly to get the "
                       "old behavior and silence this warning.")
    elif requires_grad != t.requires_grad:
        if not requires_grad and t.grad_fn is not None:
            t = t.detach()  # a tensor with a history stops requiring grad as a new alias only
        else:
            require_grad_at_creation(t, requires_grad)  # a leaf changes in place, as in torch
    return t


def _has_buffer(obj):
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


_NO_DTYPE = object()


def frombuffer(buffer, *args, dtype=_NO_DTYPE, count=-1, offset=0, requires_grad=False):
    """torch.frombuffer: a 1-d CPU tensor over the bytes of an object with the buffer protocol,
    sharing its memory (writes through the tensor reach the buffer, a non-writable one too, as
    in torch, which warns once about it)."""
    if args:  # torch's parser words it so
        raise TypeError(f"frombuffer() takes from 2 to 1 positional arguments but {len(args) + 1} were given")
    if dtype is _NO_DTYPE:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    if not isinstance(dtype, _dt.dtype):
        from ._arg_errors import type_name
        raise TypeError(f"frombuffer(): argument 'dtype' must be minigrad.dtype, not {type_name(dtype)}")
    _kw_type_check("frombuffer", "count", count, int, "int")
    _kw_type_check("frombuffer", "offset", offset, int, "int")
    _kw_type_check("frombuffer", "requires_grad", requires_grad, bool, "bool")
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if view.readonly:
        _warn_once("buffer", "The given buffer is not writable, and PyTorch does not support non-writable "
                   "tensors. This means you can write to the underlying (supposedly non-writable) buffer "
                   "using the tensor. You may want to copy the buffer to protect its data or make it "
                   "writable before converting it to a tensor. This type of warning will be suppressed "
                   "for the rest of this program.")
    length, size = view.nbytes, dtype.itemsize
    if not (length > 0 and count != 0):
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count <= 0 and (length - offset) % size:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                         f"multiple of element size ({size})")
    if count < 0:
        count = (length - offset) // size
    if offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must "
                         f"not be greater than actual buffer length ({length} bytes)")
    raw = np.frombuffer(view if view.ndim == 1 and view.format == "B" else view.cast("B"), np.uint8)
    if view.readonly:  # a writable array over the same memory, keeping the buffer alive
        import ctypes
        cells = (ctypes.c_char * length).from_address(raw.ctypes.data)
        cells.keep = view
        raw = np.frombuffer(cells, np.uint8)
    return _finish(raw[offset:offset + count * size].view(dtype.np), CPU, requires_grad)


def _factory(args, dtype, device, default, name):
    shape = _normalize_shape(args, name)
    d = _dt.to_dtype(dtype) if dtype is not None else default
    return shape, d, _target(device)


_NO = object()  # an argument not given
_LEADING = ("size", "fill_value", "low", "high", "start", "end", "step")  # (None is a value given for these)


def _call_error(name, args, kwargs, error=None):
    """torch's TypeError for the factory name called with (args, kwargs): kwargs holds the keyword
    arguments given (those at their defaults count as not given)."""
    from ._arg_errors import call_error
    kwargs = {k: v for k, v in kwargs.items()
              if v is not _NO and (k in _LEADING or v is not None and v is not False)}
    return call_error(name, False, args, kwargs, error)


def _sized(name, args, size, kw):
    """The shape asked of a factory by position (zeros(2, 3), zeros((2, 3))) or as size=; kw: its
    other keyword arguments, for torch's TypeError when the size is missing, given twice, or no
    tuple of ints (a tensor of several elements is none; torch takes a one-element one)."""
    if size is _NO:
        if args and (len(args) > 1 or not isinstance(args[0], Tensor) or args[0]._data.size == 1):
            try:
                return _normalize_shape(args, name)
            except TypeError as e:
                raise _call_error(name, args, kw, e) from None
    elif not args and (isinstance(size, (tuple, list)) or isinstance(size, Tensor) and size._data.size == 1):
        return _normalize_shape((size,), name)
    raise _call_error(name, args, dict(kw, size=size))


def _options(name, out, layout, pin_memory, device, call=None):
    """The keyword arguments torch's factories all take: layout (minigrad has only strided),
    pin_memory (the CPU result in page-locked memory, which needs a GPU) and out (minigrad has
    no out= arguments). Returns whether to pin the result. call: (args, kwargs) as the factory
    was called, for torch's TypeError of an argument of the wrong type."""
    def wrong(arg, value, kind):
        if call is not None:
            return _call_error(name, *call)
        from ._arg_errors import type_name
        return TypeError(f"{name}(): argument '{arg}' must be {kind}, not {type_name(value)}")
    if layout is not None and layout is not _mf.strided:
        raise wrong("layout", layout, "minigrad.layout")
    if out is not None:
        if not isinstance(out, Tensor):
            raise wrong("out", out, "Tensor")
        raise TypeError(f"{name}(): out= is not supported by minigrad")
    if not pin_memory:
        return False
    if pin_memory is not True:
        raise wrong("pin_memory", pin_memory, "bool")
    from . import cuda
    if not cuda.is_available():
        raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
                           "allocator is available on this system.")
    if _target(device).type != "cpu":
        raise RuntimeError("Only dense CPU tensors can be pinned")
    return True


def _dtype_device(dtype, device):
    return _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype(), _target(device)


def _pinned(t, pin):
    if pin:
        t._pinned = True  # (its own memory: Tensor.is_pinned reads this)
    return t


def zeros(*args, size=_NO, out=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    try:
        shape = _sized("zeros", args, size, dict(out=out, dtype=dtype, layout=layout, device=device,
                                                 pin_memory=pin_memory, requires_grad=requires_grad))
    except RuntimeError:  # a negative size, which only zeros words so
        raise RuntimeError("zeros: Dimension size must be non-negative.") from None
    pin = _options("zeros", out, layout, pin_memory, device, (args, dict(
        size=size, out=out, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)))
    d, dev = _dtype_device(dtype, device)
    return _pinned(_finish(dev.backend.zeros(shape, d.np), dev, requires_grad), pin)


def ones(*args, size=_NO, out=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    kw = dict(out=out, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory, requires_grad=requires_grad)
    shape = _sized("ones", args, size, kw)
    pin = _options("ones", out, layout, pin_memory, device, (args, dict(kw, size=size)))
    d, dev = _dtype_device(dtype, device)
    return _pinned(_finish(dev.backend.ones(shape, d.np), dev, requires_grad), pin)


def empty(*args, size=_NO, memory_format=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
          requires_grad=False):
    kw = dict(memory_format=memory_format, out=out, dtype=dtype, layout=layout, device=device,
              pin_memory=pin_memory, requires_grad=requires_grad)
    shape = _sized("empty", args, size, kw)
    pin = _options("empty", out, layout, pin_memory, device, (args, dict(kw, size=size)))
    d, dev = _dtype_device(dtype, device)
    if memory_format is None:
        return _pinned(_finish(dev.backend.empty(shape, d.np), dev, requires_grad), pin)
    _mf.check(memory_format, "empty")
    if memory_format is _mf.preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    _mf.check_rank(memory_format, len(shape))
    order = memory_format._order or tuple(range(len(shape)))
    return _pinned(_finish(_mf.allocate(dev.backend, shape, d.np, order), dev, requires_grad), pin)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """An uninitialized tensor with exactly these strides (its memory spans the elements they reach)."""
    pin = _options("empty_strided", None, layout, pin_memory, device)
    from ._arg_errors import _is_index, type_name
    for arg, pos, val in (("size", 1, size), ("stride", 2, stride)):
        if not isinstance(val, (tuple, list)) or not all(_is_index(v) for v in val):
            raise TypeError(f"empty_strided(): argument '{arg}' (position {pos}) must be tuple of ints, "
                            f"not {type_name(val)}")
    shape, strides = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(shape) != len(strides):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality of strides "
                           f"({len(strides)})")
    _normalize_shape((shape,), "empty_strided")
    if any(s < 0 for s in strides):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)} and "
                           f"strides={list(strides)}")
    d = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    dev = _target(device)
    be = dev.backend
    span = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    flat = be.empty((max(span, 1),), d.np)
    data = be.as_strided(flat, shape, strides, 0) if span else be.empty(shape, d.np)
    return _pinned(_finish(data, dev, requires_grad), pin)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An uninitialized tensor of shape size whose memory runs over its dims in physical_layout
    (slowest first): empty_permuted((N, C, H, W), (0, 2, 3, 1)) is channels-last."""
    from ._arg_errors import _is_index, type_name
    for arg, pos, val in (("size", 1, size), ("physical_layout", 2, physical_layout)):
        if not isinstance(val, (tuple, list)) or not all(_is_index(v) for v in val):
            raise TypeError(f"empty_permuted(): argument '{arg}' (position {pos}) must be tuple of ints, "
                            f"not {type_name(val)}")
    shape, order = tuple(int(n) for n in size), tuple(int(p) for p in physical_layout)
    if len(shape) != len(order):
        raise RuntimeError("Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(shape)} is not equal to len(physical_layout) = {len(order)}")
    seen = set()
    for i, p in enumerate(order):
        if not 0 <= p < len(order):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(order) - 1}, but got {p} "
                               f"at index {i}).  NB: negative dims not currently supported; file an issue if you "
                               "want it.")
        if p in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(p)
    _normalize_shape((shape,), "empty_permuted")
    d = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    dev = _target(device)
    pin = _options("empty_permuted", None, layout, pin_memory, device)
    return _pinned(_finish(_mf.allocate(dev.backend, shape, d.np, order), dev, requires_grad), pin)


def _fill_number(value, name):
    """full's fill_value: a number, or a one-element tensor as torch takes it (item())."""
    if isinstance(value, Tensor) and value._data.size == 1:
        return value.item()
    if not isinstance(value, Number) or isinstance(value, complex):
        from ._arg_errors import type_name
        raise TypeError(f"{name}(): argument 'fill_value' (position 2) must be Number, not {type_name(value)}")
    return value


def _bind(name, args, names, given, kw, required):
    """{parameter: value} for a factory whose leading parameters (names) may come by position or
    keyword, as Python binds them; torch's TypeError where it would not, or required are missing."""
    if len(args) > len(names) or any(given[n] is not _NO for n in names[:len(args)]):
        raise _call_error(name, args, dict(given, **kw))
    bound = dict(zip(names, args))
    bound.update({n: v for n, v in given.items() if v is not _NO})
    if any(n not in bound for n in required):
        raise _call_error(name, args, dict(given, **kw))
    return bound


def full(*args, size=_NO, fill_value=_NO, out=None, dtype=None, layout=None, device=None, pin_memory=False,
         requires_grad=False):
    kw = dict(out=out, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory, requires_grad=requires_grad)
    if len(args) == 2 and size is _NO and fill_value is _NO:
        size, fill_value = args
    else:
        bound = _bind("full", args, ("size", "fill_value"), {"size": size, "fill_value": fill_value}, kw,
                      ("size", "fill_value"))
        size, fill_value = bound["size"], bound["fill_value"]
    if not isinstance(size, (tuple, list)) and not (isinstance(size, Tensor) and size._data.size == 1):
        raise _call_error("full", args, dict(kw, **{k: v for k, v in (("size", size), ("fill_value", fill_value))
                                                    if k not in ("size", "fill_value")[:len(args)]}))
    by_kw = {k: v for k, v in (("size", size), ("fill_value", fill_value)) if k not in ("size", "fill_value")[:len(args)]}
    pin = _options("full", out, layout, pin_memory, device, (args, dict(kw, **by_kw)))
    if fill_value.__class__ is not float and fill_value.__class__ is not int:
        fill_value = _fill_number(fill_value, "full")
    shape, d, dev = _factory((size,), dtype, device, _dt.scalar_dtype(fill_value), "full")
    if d.itemsize < 8 and d._category == 1:  # small integers: torch's range check, then a wrapping store
        _dt.check_fits(fill_value, d)
    return _pinned(_finish(dev.backend.full(shape, fill_value, d.np), dev, requires_grad), pin)


def arange(*args, start=_NO, end=_NO, step=_NO, out=None, dtype=None, layout=None, device=None, pin_memory=False,
           requires_grad=False):
    """arange(end), arange(start, end) or arange(start, end, step), by position or keyword."""
    call = (args, dict(start=start, end=end, step=step, out=out, dtype=dtype, layout=layout, device=device,
                       pin_memory=pin_memory))
    if start is _NO and end is _NO and step is _NO and 0 < len(args) < 4:
        start, end, step = (0,) + args + (1,) if len(args) == 1 else args + (1,) * (3 - len(args))
    else:
        kw = dict(out=out, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory,
                  requires_grad=requires_grad)
        given = {"start": start, "end": end, "step": step}
        names = ("end",) if len(args) <= 1 and start is _NO else ("start", "end", "step")
        bound = _bind("arange", args, names, given, kw, ("end",) if names == ("end",) else ("start", "end"))
        if names == ("end",) and step is not _NO:
            raise _call_error("arange", args, dict(given, **kw))
        start, end, step = bound.get("start", 0), bound["end"], bound.get("step", 1)
    pin = _options("arange", out, layout, pin_memory, device, call)
    if not all(isinstance(v, (Number, Tensor)) and not isinstance(v, complex) for v in (start, end, step)):
        raise _call_error("arange", *call)
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if any(isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))) for v in vals[:2]):
        raise RuntimeError(f"unsupported range: {vals[0]} -> {vals[1]}")
    if (vals[1] - vals[0]) * vals[2] < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dtype = _dt.get_default_dtype() if any(isinstance(v, float) for v in vals) else _dt.int64
    d = _dt.to_dtype(dtype)
    dev = _target(device)
    return _pinned(_finish(dev.backend.arange(*vals, d.np), dev, requires_grad), pin)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False):
    pin = _options("linspace", out, layout, pin_memory, device)
    for name, v, kind in (("start", start, Number), ("end", end, Number), ("steps", steps, int)):
        if (kind is int and (isinstance(v, Tensor) or not hasattr(v, "__index__"))
                or kind is Number and (not isinstance(v, (Number, Tensor)) or isinstance(v, complex))):
            from ._typename import typename
            raise TypeError(f"linspace(): argument '{name}' must be {'int' if kind is int else 'Number'}, "
                            f"not {typename(type(v))}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if d is _dt.bool_:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    dev = _target(device)
    return _pinned(_finish(dev.backend.linspace(start, end, steps, d.np), dev, requires_grad), pin)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    pin = _options("eye", out, layout, pin_memory, device, ((n,) if m is None else (n, m), dict(
        out=out, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)))
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    d = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    dev = _target(device)
    return _pinned(_finish(dev.backend.eye(n, n if m is None else m, d.np), dev, requires_grad), pin)


def _float_dtype(dtype, name):
    d = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if not d.is_floating_point:
        raise NotImplementedError(f"\"{name}\" not implemented for '{d._legacy[:-6]}'")
    return d


def _check_generator(generator, name):
    if generator is not None and not isinstance(generator, Generator):
        from ._typename import typename
        raise TypeError(f"{name}(): argument 'generator' must be minigrad.Generator, not {typename(type(generator))}")


def _random(name, kernel, draw, args, size, generator, out, dtype, layout, device, pin_memory, requires_grad):
    kw = dict(generator=generator, out=out, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory,
              requires_grad=requires_grad)
    shape = _sized(name, args, size, kw)
    if generator is not None and not isinstance(generator, Generator):
        raise _call_error(name, args, dict(kw, size=size))
    pin = _options(name, out, layout, pin_memory, device, (args, dict(kw, size=size)))
    dev = _target(device)
    d = _float_dtype(dtype, kernel)
    if generator is not None:
        data = dev.backend.asarray(generator._draw(draw, shape, d.np))
    else:
        data = getattr(dev.backend, name)(shape, d.np)
    return _pinned(_finish(data, dev, requires_grad), pin)


def rand(*args, size=_NO, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
         requires_grad=False):
    return _random("rand", "check_uniform_bounds", "uniform", args, size, generator, out, dtype, layout, device,
                   pin_memory, requires_grad)


def randn(*args, size=_NO, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
          requires_grad=False):
    return _random("randn", "normal_kernel_cpu", "normal", args, size, generator, out, dtype, layout, device,
                   pin_memory, requires_grad)


def randint(*args, low=_NO, high=_NO, size=_NO, generator=None, out=None, dtype=None, layout=None, device=None,
            pin_memory=False, requires_grad=False):
    """randint(high, size) or randint(low, high, size), each by position or keyword, as torch's
    overloads take them."""
    given = {"low": low, "high": high, "size": size}
    names = ("low", "high", "size") if len(args) == 3 or low is not _NO or (len(args) == 2 and size is not _NO) \
        else ("high", "size")
    bound = dict(zip(names, args))
    kw = dict(generator=generator, out=out, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory,
              requires_grad=requires_grad)
    ok = len(args) <= len(names) and all(given[n] is _NO for n in bound)
    if ok:
        bound.update({n: v for n, v in given.items() if v is not _NO})
        ok = set(bound) == set(names) and all(_is_int(bound[n]) for n in names[:-1]) and (
            isinstance(bound["size"], (tuple, list)) or isinstance(bound["size"], Tensor) and bound["size"].ndim)
    if not ok:
        raise _call_error("randint", args, dict({k: v for k, v in given.items()}, **kw))
    low, high = operator.index(bound.get("low", 0)), operator.index(bound["high"])
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    _check_generator(generator, "randint")
    pin = _options("randint", out, layout, pin_memory, device, (args, dict(given, **kw)))
    shape, d, dev = _factory((bound["size"],), dtype, device, _dt.int64, "randint")
    if d is _dt.bool_ and (low < 0 or high > 2):
        raise RuntimeError("from is out of bounds for bool" if low < 0 else "to - 1 is out of bounds for bool")
    if generator is not None:
        host = generator._draw("integers", shape, d.np, low, high)
        return _pinned(_finish(dev.backend.asarray(host), dev, requires_grad), pin)
    return _pinned(_finish(dev.backend.randint(low, high, shape, d.np), dev, requires_grad), pin)


def _is_int(x):
    from ._arg_errors import _is_long
    return _is_long(x)


def _like(fn, t, dtype, device, requires_grad, *extra, memory_format=None, layout=None, pin_memory=False):
    if not isinstance(t, Tensor):  # the caller's name (zeros_like, ...), on this error path only
        import sys
        from ._arg_errors import type_name
        raise TypeError(f"{sys._getframe(1).f_code.co_name}(): argument 'input' (position 1) must be Tensor, "
                        f"not {type_name(t)}")
    if layout is not None or pin_memory:
        import sys
        _options(sys._getframe(1).f_code.co_name, None, layout, pin_memory, device or t._device)
    out = fn(*extra, dtype=dtype if dtype is not None else t.dtype, device=device if device is not None else t._device,
             requires_grad=requires_grad, pin_memory=pin_memory)
    if memory_format is None and t._device.backend.is_contiguous(t._data):
        return out  # preserve_format of a row-major input: the row-major result already made
    if memory_format is not None:
        import sys
        _mf.check(memory_format, sys._getframe(1).f_code.co_name)
    order = _mf.order_of(t, _mf.preserve_format if memory_format is None else memory_format)
    if order != tuple(range(t._data.ndim)):  # the same values laid out in that order
        out._data = _mf.relaid(out._device.backend, out._data, order)
    return out


def zeros_like(input, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None, pin_memory=False):
    return _like(lambda **k: zeros(input._data.shape, **k), input, dtype, device, requires_grad,
                 memory_format=memory_format, layout=layout, pin_memory=pin_memory)


def ones_like(input, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None, pin_memory=False):
    return _like(lambda **k: ones(input._data.shape, **k), input, dtype, device, requires_grad,
                 memory_format=memory_format, layout=layout, pin_memory=pin_memory)


def empty_like(input, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None, pin_memory=False):
    return _like(lambda **k: empty(input._data.shape, **k), input, dtype, device, requires_grad,
                 memory_format=memory_format, layout=layout, pin_memory=pin_memory)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False,
              memory_format=None, layout=None, pin_memory=False):
    fill_value = _fill_number(fill_value, "full_like")
    return _like(lambda **k: full(input._data.shape, fill_value, **k), input, dtype, device, requires_grad,
                 memory_format=memory_format, layout=layout, pin_memory=pin_memory)


def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
              memory_format=None, layout=None, pin_memory=False):
    return _like(lambda **k: rand(input._data.shape, generator=generator, **k), input, dtype, device,
                 requires_grad, memory_format=memory_format, layout=layout, pin_memory=pin_memory)


def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
               memory_format=None, layout=None, pin_memory=False):
    return _like(lambda **k: randn(input._data.shape, generator=generator, **k), input, dtype, device,
                 requires_grad, memory_format=memory_format, layout=layout, pin_memory=pin_memory)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None, requires_grad=False,
                 memory_format=None, layout=None, pin_memory=False):
    if high is None:
        low, high = 0, low
    return _like(lambda **k: randint(low, high, input._data.shape, generator=generator, **k), input, dtype,
                 device, requires_grad, memory_format=memory_format, layout=layout, pin_memory=pin_memory)


class Generator:
    """torch.Generator for host-side randomness (shuffling, random_split, initializers):
    `Generator().manual_seed(42)` gives a reproducible stream independent of the global seed."""

    def __init__(self, device="cpu"):
        import numpy as np
        self.device = canonical(device)
        self._seed = int(np.random.SeedSequence().entropy % (2 ** 63))
        self._rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed):
        import numpy as np
        if not hasattr(seed, "__index__") or isinstance(seed, bool):
            from ._typename import typename
            raise RuntimeError(f"manual_seed expected a long, but got {typename(type(seed))}")
        self._seed = _seed_value(int(seed))
        self._rng = np.random.default_rng(self._seed)
        return self

    def seed(self):
        import random
        return self.manual_seed(random.randrange(2 ** 63)).initial_seed()

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """This generator's state (minigrad's encoding: see minigrad/random.py)."""
        from .random import generator_state
        return generator_state(self)

    def set_state(self, new_state):
        from .random import set_generator_state
        return set_generator_state(self, new_state)

    def randperm(self, n):
        """A NumPy int64 permutation of range(n) drawn from this generator."""
        return self._rng.permutation(n)

    def _draw(self, kind, shape, dtype, low=0, high=None):
        """NumPy draws from this generator, as the CPU backend makes them from the global one."""
        from .backends.numpy_backend import _draw
        return _draw(self._rng, kind, shape, dtype, low, high)

    def _poisson(self, lam):
        """Poisson counts of the NumPy array of rates lam drawn from this generator, in lam's dtype."""
        from .backends.numpy_backend import _poisson
        return _poisson(self._rng, lam)


def _global_generator():
    """The Generator that manual_seed reseeds, used when no generator is passed."""
    return _DEFAULT_GENERATOR


def _seed_value(seed):
    """torch's reading of a seed: a 64-bit integer, a negative one wrapping around."""
    if not -(1 << 63) <= seed < (1 << 64):
        raise ValueError("Overflow when unpacking long long")
    return seed % (1 << 64)


def manual_seed(seed):
    from . import cuda
    seed = _seed_value(int(seed))
    CPU.backend.seed(seed)
    _DEFAULT_GENERATOR.manual_seed(seed)
    if cuda.is_available():
        cuda.manual_seed_all(seed)
    return _DEFAULT_GENERATOR


def seed():
    import random
    s = random.randrange(2 ** 63)
    manual_seed(s)
    return s


_DEFAULT_GENERATOR = Generator()
default_generator = _DEFAULT_GENERATOR


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False):
    """A random permutation of 0..n-1 (int64 by default), from generator or the global seed."""
    pin = _options("randperm", out, layout, pin_memory, device)
    gen = generator if generator is not None else _DEFAULT_GENERATOR
    _check_generator(generator, "randperm")
    if not hasattr(n, "__index__") or isinstance(n, bool):
        from ._typename import typename
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not {typename(type(n))}")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    d = _dt.to_dtype(dtype) if dtype is not None else _dt.int64
    if d is _dt.bool_:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    dev = _target(device)
    return _pinned(_finish(dev.backend.asarray(_host_as(gen.randperm(int(n)), d)), dev, requires_grad), pin)
