"""Storages: torch's view of the memory under tensors (x.untyped_storage(), the deprecated
x.storage()), and the Tensor methods about that memory: is_shared / share_memory_, is_pinned /
pin_memory, set_ / is_set_to, and the deprecated non-inplace resize / resize_as.

minigrad has no storage object under its tensors: a tensor holds a backend array, and a view
knows the tensor it was made from (its _base, the root). The memory of a storage is therefore its
root tensor's, from the root's first element over the span of the root's array; views of one
root share that storage (same data_ptr), as torch's do. A storage made on its own
(UntypedStorage(n)) holds a uint8 tensor of n bytes."""
import warnings

import numpy as np

from . import dtypes as _dt
from .tensor import Tensor, _make

_TYPED_WARNING = ("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
                  "storage class. This should only matter to you if you are using storages directly.  To access "
                  "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")
_typed_warned = []


def _warn_typed(stacklevel=3):
    """torch's TypedStorage deprecation warning: once per process, unless warn_always is set."""
    from .ops.tensor_more import is_warn_always_enabled
    if _typed_warned and not is_warn_always_enabled():
        return
    _typed_warned.append(True)
    warnings.warn(_TYPED_WARNING, UserWarning, stacklevel=stacklevel)


def memory_root(t):
    """The tensor whose memory t views: its base, or the tensor a set_ pointed it at."""
    r = t._base if t._base is not None else t
    return r if r._storage_of is None else r._storage_of


def _span(root):
    """The elements root's array reaches from its first element."""
    a = root._data
    if not a.size:
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(a.shape, root._device.backend.strides(a)) if s > 0)


class UntypedStorage:
    """torch.UntypedStorage: bytes of memory on a device. UntypedStorage(n) (n uninitialized
    bytes), UntypedStorage(sequence of byte values), UntypedStorage() (empty); device= names the
    device. x.untyped_storage() is the memory under x."""
    __slots__ = ("_root", "_nbytes", "__weakref__")
    is_sparse = False
    is_sparse_csr = False

    def __init__(self, *args, device=None):
        from . import creation
        if len(args) > 1:
            raise TypeError(f"UntypedStorage(): expected at most 1 argument, but got {len(args)}")
        arg = args[0] if args else 0
        if isinstance(arg, int) and arg.__class__ is not bool:
            root = creation.empty(arg, dtype=_dt.uint8, device=device)
        elif isinstance(arg, (list, tuple)):
            root = creation.tensor(list(arg), dtype=_dt.uint8, device=device)
        else:
            from ._typename import tp_name
            raise TypeError(f"UntypedStorage(): expected an int or a sequence of ints, got {tp_name(arg)}")
        self._root, self._nbytes = root, root._data.size

    @classmethod
    def _of(cls, t):
        """The storage under tensor t (the same object while the memory stays the same)."""
        root = memory_root(t)
        nbytes = _span(root) * root._data.itemsize
        held = root.__dict__.get("_untyped_storage")
        if held is not None and held._root is root and held._nbytes == nbytes:
            return held
        s = object.__new__(cls)
        s._root, s._nbytes = root, nbytes
        root._untyped_storage = s
        return s

    # ---- what it is ----------------------------------------------------------------------------
    def nbytes(self):
        return self._nbytes

    def size(self):
        return self._nbytes

    def __len__(self):
        return self._nbytes

    def element_size(self):
        return 1

    @property
    def device(self):
        return self._root._device

    @property
    def is_cuda(self):
        return self._root._device.type == "cuda"

    def get_device(self):
        return self._root._device.index if self.is_cuda else -1

    def data_ptr(self):
        return self._root._device.backend.data_ptr(self._root._data) if self._nbytes else 0

    def type(self):
        return "torch.storage.UntypedStorage"

    def untyped(self):
        return self

    def resizable(self):
        return True

    # ---- the bytes -----------------------------------------------------------------------------
    def _raw(self):
        """The root's memory as a flat backend array of its elements, in memory order."""
        root = self._root
        n = self._nbytes // root._data.itemsize
        return root._device.backend.as_strided(root._data, (n,), (1,), 0)

    def _bytes(self):
        """A host copy of the bytes (a NumPy uint8 array)."""
        if not self._nbytes:
            return np.zeros(0, np.uint8)
        return np.ascontiguousarray(self._root._device.backend.to_numpy(self._raw())).view(np.uint8)

    def _write(self, host_bytes):
        """Overwrite the memory with host_bytes (nbytes of them)."""
        if not self._nbytes:
            return
        root = self._root
        be = root._device.backend
        typed = np.ascontiguousarray(host_bytes, dtype=np.uint8).view(root._data.dtype)
        be.copyto(self._raw(), be.asarray(typed))

    def tolist(self):
        return self._bytes().tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            raise RuntimeError("minigrad's storages take integer indices only")
        n = self._nbytes
        i = _index(idx, n)
        return int(self._bytes()[i])

    def __setitem__(self, idx, value):
        data = self._bytes()
        data[_index(idx, self._nbytes)] = value
        self._write(data)

    def fill_(self, value):
        self._write(np.full(self._nbytes, value, np.uint8))
        return self

    def copy_(self, src, non_blocking=None):
        if not isinstance(src, (UntypedStorage, TypedStorage)):
            from ._typename import tp_name
            raise TypeError(f"copy_(): argument 'src' must be a storage, not {tp_name(src)}")
        src = src.untyped()
        if src.nbytes() != self._nbytes:
            raise RuntimeError(f"size does not match, self was {self._nbytes} bytes but src was {src.nbytes()} bytes")
        self._write(src._bytes())
        return self

    def _copy_to(self, device):
        s = UntypedStorage(self._nbytes, device=device)
        s._write(self._bytes())
        return s

    def clone(self):
        return self._copy_to(self.device)

    def cpu(self):
        return self if not self.is_cuda else self._copy_to("cpu")

    def cuda(self, device=None, non_blocking=False):
        if self.is_cuda and device is None:
            return self
        return self._copy_to("cuda" if device is None else device)

    def to(self, *, device, non_blocking=False):
        from .devices import canonical
        return self if canonical(device) is self.device else self._copy_to(device)

    def resize_(self, size):
        """The storage takes size bytes: its first bytes are kept, what follows is uninitialized.
        Unlike torch's, whose tensors follow their storage to its new memory, tensors that used
        this storage's memory keep the old memory: the storage alone moves."""
        size = int(size)
        if size < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: [{size}]")
        if size == self._nbytes:
            return self
        old = self._bytes()
        fresh = UntypedStorage(size, device=self.device)
        keep = min(size, old.size)
        if keep:
            head = fresh._bytes()
            head[:keep] = old[:keep]
            fresh._write(head)
        self._root, self._nbytes = fresh._root, fresh._nbytes
        return self

    # ---- sharing and pinning -------------------------------------------------------------------
    def is_shared(self):
        return self.is_cuda or bool(self._root.__dict__.get("_shared", False))

    def share_memory_(self):
        if not self.is_cuda:
            self._root._shared = True
        return self

    def is_pinned(self, device="cuda"):
        return bool(self._root.__dict__.get("_pinned", False))

    def pin_memory(self, device="cuda"):
        _check_can_pin()
        if self.is_cuda:
            raise RuntimeError(f"cannot pin '{self.type()}' only CPU memory can be pinned")
        if self.is_pinned():
            return self
        s = self.clone()
        s._root._pinned = True
        return s

    def __repr__(self):
        return _storage_str(self, f"[minigrad.storage.UntypedStorage(device={self.device}) of size {len(self)}]")

    __str__ = __repr__


def _index(idx, n):
    import operator
    i = operator.index(idx)
    if not -n <= i < n:
        raise IndexError(f"index {i} out of range for storage of size {n}")
    return i + n if i < 0 else i


def _storage_str(s, info):
    return " " + "\n ".join(str(v) for v in s.tolist()) + "\n" + info


def _check_can_pin():
    from . import cuda
    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


class TypedStorage:
    """torch.TypedStorage (deprecated): an UntypedStorage read as elements of a dtype.
    TypedStorage(n, dtype=..., device=...), TypedStorage(sequence, ...), or x.storage()."""
    __slots__ = ("_untyped_storage", "dtype")
    is_sparse = False

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None):
        _warn_typed()
        d = _dt.get_default_dtype() if dtype is None else dtype
        if wrap_storage is not None:
            if args:
                raise RuntimeError("No positional arguments should be given when using 'wrap_storage'")
            self._untyped_storage, self.dtype = wrap_storage, d
            return
        from . import creation
        arg = args[0] if args else 0
        if len(args) > 1:
            raise TypeError(f"TypedStorage(): expected at most 1 argument, but got {len(args)}")
        if isinstance(arg, int) and arg.__class__ is not bool:
            t = creation.empty(arg, dtype=d, device=device)
        else:
            t = creation.tensor(list(arg), dtype=d, device=device)
        self._untyped_storage, self.dtype = UntypedStorage._of(t), d

    @classmethod
    def _of(cls, t):
        s = object.__new__(cls)
        s._untyped_storage, s.dtype = UntypedStorage._of(t), t.dtype
        return s

    def untyped(self):
        return self._untyped_storage

    def element_size(self):
        return self.dtype.itemsize

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def size(self):
        return self.nbytes() // self.dtype.itemsize

    def __len__(self):
        return self.size()

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self):
        return self._untyped_storage.is_cuda

    def get_device(self):
        return self._untyped_storage.get_device()

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    def type(self):
        return ("torch.cuda." if self.is_cuda else "torch.") + self.dtype._legacy[:-6] + "Storage"

    def _values(self):
        raw = self._untyped_storage._bytes()
        return raw[:self.size() * self.dtype.itemsize].view(self.dtype.np)

    def tolist(self):
        return self._values().tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            raise RuntimeError("minigrad's storages take integer indices only")
        return self._values()[_index(idx, self.size())].item()

    def __setitem__(self, idx, value):
        values = self._values().copy()
        values[_index(idx, self.size())] = value
        self._untyped_storage._write(values.view(np.uint8))

    def fill_(self, value):
        values = np.full(self.size(), value, dtype=self.dtype.np)
        self._untyped_storage._write(values.view(np.uint8))
        return self

    def copy_(self, src, non_blocking=None):
        self._untyped_storage.copy_(src, non_blocking)
        return self

    def clone(self):
        return _wrap(self._untyped_storage.clone(), self.dtype)

    def cpu(self):
        return self if not self.is_cuda else _wrap(self._untyped_storage.cpu(), self.dtype)

    def is_shared(self):
        return self._untyped_storage.is_shared()

    def share_memory_(self):
        self._untyped_storage.share_memory_()
        return self

    def is_pinned(self, device="cuda"):
        return self._untyped_storage.is_pinned()

    def pin_memory(self, device="cuda"):
        return _wrap(self._untyped_storage.pin_memory(), self.dtype)

    def __repr__(self):
        return _storage_str(self, f"[minigrad.storage.TypedStorage(dtype={self.dtype!r}, device={self.device}) "
                                  f"of size {len(self)}]")

    __str__ = __repr__


def _wrap(untyped, d):
    s = object.__new__(TypedStorage)
    s._untyped_storage, s.dtype = untyped, d
    return s


UntypedStorage.__module__ = TypedStorage.__module__ = "minigrad.storage"


def is_storage(obj):
    """torch.is_storage: whether obj is a storage."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


# ---- the Tensor methods ----------------------------------------------------------------------------

def untyped_storage(self):
    return UntypedStorage._of(self)


def storage(self):
    _warn_typed()
    return TypedStorage._of(self)


def is_shared(self):
    return UntypedStorage._of(self).is_shared()


def share_memory_(self):
    UntypedStorage._of(self).share_memory_()
    return self


def is_pinned(self, device="cuda"):
    return bool(memory_root(self).__dict__.get("_pinned", False))


def pin_memory(self, device="cuda"):
    _check_can_pin()
    if self.is_cuda:
        raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
    if is_pinned(self):
        return self
    out = self.clone()
    out._pinned = True
    return out


_SET_OVERLOADS = (
    "()",
    "(minigrad.Storage source)",
    "(minigrad.Storage source, int storage_offset, tuple of ints size, tuple of ints stride = None)",
    "(Tensor source)",
    "(Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = None)",
)


def _set_error(args, kwargs):
    from ._arg_errors import _format_invalid_args
    return TypeError(_format_invalid_args(args, kwargs, "set_()", _SET_OVERLOADS))


def set_(self, *args, **kwargs):
    """Tensor.set_(): self becomes an empty tensor; set_(source): self uses all of source's memory
    (a tensor: with its shape, strides and offset; a storage: 1-D over all of it); set_(source,
    storage_offset, size, stride=None): self views source's memory with that geometry. Afterwards
    self and source share memory, as torch's do."""
    names = ("source", "storage_offset", "size", "stride")
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in bound:
            raise _set_error(args, kwargs)
        bound[k] = v
    if len(args) > 4 or (bound and "source" not in bound) or len(bound) == 2:
        raise _set_error(args, kwargs)
    source = bound.get("source")
    if bound and not isinstance(source, (Tensor, UntypedStorage, TypedStorage)):
        raise _set_error(args, kwargs)
    from .ops.inplace import check_writable
    if self._requires_grad and self.grad_fn is None:
        from .autograd.grad_mode import is_grad_enabled
        if is_grad_enabled():
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    check_writable(self)
    be = self._device.backend
    if not bound:  # set_(): a tensor of no elements over a storage of no bytes
        self._data = be.empty((0,), self._data.dtype)
        _detach_memory(self, None)
        return self
    if isinstance(source, Tensor):
        if source.dtype is not self.dtype:
            raise RuntimeError(f"Could not set tensor of type {_dt.cpp_name(source.dtype)} to a tensor of type "
                               f"{_dt.cpp_name(self.dtype)}")
        root, device = memory_root(source), source._device
        if len(bound) == 1:
            offset, size, stride = source.storage_offset(), tuple(source.shape), tuple(source.stride())
    else:
        if isinstance(source, TypedStorage) and source.dtype is not self.dtype:
            raise RuntimeError(f"Expected a Storage of type {_dt.cpp_name(self.dtype)} or an UntypedStorage, but "
                               f"got type {_dt.cpp_name(source.dtype)} for argument 1 'storage'")
        untyped = source.untyped()
        root, device = untyped._root, untyped.device
        if root._data.dtype != self._data.dtype:
            raise RuntimeError("minigrad can set a tensor only to a storage holding elements of its dtype "
                               f"({self.dtype!r}); this one holds {_dt._BY_NP[root._data.dtype]!r}")
        if len(bound) == 1:
            offset, size, stride = 0, (untyped.nbytes() // self._data.itemsize,), (1,)
    if device is not self._device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{device} and {self._device}!")
    if len(bound) > 1:
        from .ops.strided import as_strided_args
        offset = bound["storage_offset"]
        size = bound["size"]
        stride = bound.get("stride")
        if stride is None:
            stride, step = [], 1
            for n in reversed(tuple(size)):
                stride.append(step)
                step *= max(int(n), 1)
            stride = tuple(reversed(stride))
        probe = _make(root._data, root._device)
        size, stride, offset = as_strided_args(probe, size, stride, offset, "set_")
    need = 0 if any(n == 0 for n in size) else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    have = _span(root)
    if need > have:
        isz = self._data.itemsize
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {isz} requiring a storage size of {need * isz} are out of bounds for "
                           f"storage of size {have * isz}")
    self._data = be.as_strided(root._data, tuple(size), tuple(stride), offset) if have else \
        be.empty(tuple(size), self._data.dtype)
    _detach_memory(self, root if have else None)
    return self


def _detach_memory(t, root):
    """t now uses root's memory (None: memory of its own): no longer a view of anything."""
    if t._base is not None:
        t._base = t._view_replay = None
        t._vc = [t._vc[0], 0]
    t._storage_of = root if root is not t else None
    t.__dict__.pop("_resize_memory", None)
    t._bump_version()


def is_set_to(self, tensor):
    """Whether self and tensor use the same memory with the same geometry."""
    if not isinstance(tensor, Tensor):
        from ._arg_errors import type_name
        raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not {type_name(tensor)}")
    a, b = UntypedStorage._of(self), UntypedStorage._of(tensor)
    return (a.data_ptr() == b.data_ptr() and a.nbytes() == b.nbytes() and a.device is b.device
            and self.dtype is tensor.dtype and self.storage_offset() == tensor.storage_offset()
            and tuple(self.shape) == tuple(tensor.shape) and tuple(self.stride()) == tuple(tensor.stride()))


# ---- the deprecated non-inplace resize / resize_as -------------------------------------------------

def _resize_node():
    from .ops.shape import _UnsafeView

    class Resize(_UnsafeView):
        """A new shape of as many elements, over the same memory (a copy when it is not contiguous)."""
        _node_name = "ResizeBackward"
    return Resize


_RESIZE = []


def _resize_to(self, sizes):
    """self reshaped to sizes, checked as torch's Python Resize checks them: the product of the
    sizes as given (a tuple given whole multiplies as a tuple, and never matches a count)."""
    numel = 1
    for n in sizes:
        numel = numel * n
    shown = "x".join(str(n) for n in sizes)
    if numel != self.numel():
        have = "x".join(str(n) for n in self.shape)
        raise RuntimeError(f"requested resize to {shown} ({numel} elements in total), but the given tensor has a "
                           f"size of {have} ({self.numel()} elements). autograd's resize can only change the shape "
                           "of a given tensor, while preserving the number of elements. ")
    if not _RESIZE:
        _RESIZE.append(_resize_node())
    from .autograd.function import apply_first
    return apply_first(_RESIZE[0], self, tuple(int(n) for n in sizes))


def resize(self, *sizes):
    """Tensor.resize (deprecated): self with a new shape of as many elements."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return _resize_to(self, sizes)


def resize_as(self, tensor):
    """Tensor.resize_as (deprecated): self with tensor's shape (as many elements)."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _resize_to(self, tuple(tensor.shape))


def install():
    for fn in (untyped_storage, storage, is_shared, share_memory_, is_pinned, pin_memory, set_, is_set_to,
               resize, resize_as):
        setattr(Tensor, fn.__name__, fn)
