"""Tensor: an array on a device (a backend array) plus its place in the autograd graph."""
import operator
import weakref

from . import dtypes as _dt
from .autograd import function as _function, engine as _engine
from .autograd import backward as _backward
from .autograd.grad_mode import _inference_enabled
from .devices import canonical, CPU
from . import memory_formats as _mf

_new = object.__new__
_NOT_GIVEN = object()  # an argument not given (minigrad/_arg_errors.py's NOT_GIVEN)


def _make(data, device):
    """Wrap a backend array in a Tensor (the fast path every op uses)."""
    t = _new(Tensor)
    t._data = data
    t._device = device
    if _inference_enabled():
        t._inference = True
    return t


_TO_OVERLOADS = (
    "(minigrad.device device = None, minigrad.dtype dtype = None, bool non_blocking = False, bool copy = False, *, "
    "minigrad.memory_format memory_format = None)",
    "(minigrad.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "minigrad.memory_format memory_format = None)",
    "(Tensor tensor, bool non_blocking = False, bool copy = False, *, minigrad.memory_format memory_format = None)",
)


def _is_device_arg(a):
    """What torch's parser takes for a device: a device, a str, or an int (a CUDA ordinal)."""
    from .devices import device as _device_cls
    return a is None or isinstance(a, (str, _device_cls)) or (isinstance(a, int) and a.__class__ is not bool)


def to_args(args, kwargs):
    """(device, dtype, non_blocking, copy) named by .to()'s three overloads, for tensors and
    modules alike: to(device=None, dtype=None, non_blocking=False, copy=False), to(dtype,
    non_blocking=False, copy=False) and to(tensor, non_blocking=False, copy=False); anything
    else is torch's "invalid combination of arguments" TypeError."""
    if len(args) == 1 and not kwargs:  # the common calls: to(device), to(dtype), to(tensor)
        a = args[0]
        if isinstance(a, _dt.dtype):
            return None, a, False, False
        if isinstance(a, Tensor):
            return a._device, a.dtype, False, False
        if _is_device_arg(a):
            return a, None, False, False
    first = args[0] if args else None
    if isinstance(first, _dt.dtype):
        head, names = (None, first), ("dtype", "non_blocking", "copy")
    elif isinstance(first, Tensor):
        head, names = (first._device, first.dtype), ("tensor", "non_blocking", "copy")
    else:
        head, names = None, ("device", "dtype", "non_blocking", "copy")
    bound = dict(zip(names, args))
    ok = len(args) <= len(names)
    for k, v in kwargs.items():
        if k not in names or k in bound:
            ok = False
        bound[k] = v
    if head is None:
        ok = ok and _is_device_arg(bound.get("device")) and (
            bound.get("dtype") is None or isinstance(bound["dtype"], _dt.dtype))
        head = (bound.get("device"), bound.get("dtype"))
    non_blocking, copy = bound.get("non_blocking", False), bound.get("copy", False)
    if not (ok and isinstance(non_blocking, bool) and isinstance(copy, bool)):
        from ._arg_errors import _format_invalid_args
        raise TypeError(_format_invalid_args(args, kwargs, "to()", _TO_OVERLOADS))
    return head[0], head[1], non_blocking, copy


def _zeros_meta(shape, npdtype, device):
    return _make(device.backend.zeros(shape, npdtype), device)


def require_grad_at_creation(t, requires_grad):
    """Sets requires_grad of a tensor being made (a factory's or Parameter's requires_grad=):
    torch's message for an integer tensor is worded apart from the attribute setter's."""
    if requires_grad and not _dt.floating(t._data):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t.requires_grad = requires_grad


def _normalize_shape(args, name):
    """zeros(2, 3), zeros((2, 3)), zeros([2, 3]) and zeros(()) all name a shape, of ints or
    anything with __index__ (NumPy integers, 0-d integer tensors); name is the factory's, for
    torch's messages."""
    shape = args
    if len(args) == 1 and args[0].__class__ is not int:
        shape = args[0]
        if isinstance(shape, Tensor) and shape._data.ndim:
            shape = shape.tolist()
        elif shape.__class__ is not bool and hasattr(shape, "__index__") and not getattr(shape, "ndim", 0):
            shape = (shape,)  # one integer: a NumPy integer, a 0-d tensor
        elif not isinstance(shape, (tuple, list)):
            from ._typename import tp_name
            raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not {tp_name(shape)}")
    if any(s.__class__ is not int for s in shape):
        shape = tuple(_size_element(s, i, name, len(args) > 1) for i, s in enumerate(shape))
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    return tuple(shape)


def _size_element(s, i, name, spread):
    """Element i of a size, as an int; spread: the size was given as separate arguments."""
    if hasattr(s, "__index__") and (spread or s.__class__ is not bool):
        return operator.index(s)  # as in torch, zeros(2, True) is zeros(2, 1)
    from ._typename import tp_name
    if spread:
        raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                        f"\"type must be tuple of ints,but got {tp_name(s)}\"")
    raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, but found element of type "
                    f"{tp_name(s)} at pos {i}")


class Size(tuple):
    """torch.Size: a tuple that prints as minigrad.Size([2, 3])."""

    def __repr__(self):
        return f"minigrad.Size({list(self)})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    # a slice of a Size, and a Size joined with a tuple or repeated, are Sizes (as torch's)
    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if index.__class__ is slice else item

    def __add__(self, other):
        return Size(tuple.__add__(self, other)) if isinstance(other, tuple) else NotImplemented

    def __radd__(self, other):
        return Size(tuple.__add__(other, self)) if isinstance(other, tuple) else NotImplemented

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__


class Tensor:
    # defaults live on the class so that creating a tensor sets only _data and _device
    grad_fn = None
    _requires_grad = False
    _grad = None
    _output_nr = 0
    _vc = None          # [version, recorded in-place ops], shared by a tensor and its views
    _base = None        # the tensor this one is a view of
    _view_replay = None  # (parent, (primitive, arg)): how this view was made from parent
    _view_mark = 0      # the base's count of recorded in-place ops when this view was made
    _no_grad_view = None  # a view made in no_grad mode of a tensor requiring grad: its version then
    _inference_mode_view = False  # such a view made in inference mode (torch's errors name the mode)
    _grad_acc = None    # the AccumulateGrad node of a leaf (it refers back weakly)
    _hooks = None
    _post_acc_hooks = None  # {handle id: fn(tensor)} (register_post_accumulate_grad_hook)
    _custom_view = None  # (Function name, output nr) of a view a custom Function returned
    _retains_grad = False
    _inference = False  # made in inference mode (not as a view of a normal tensor): torch's inference tensor
    _storage_of = None  # after t.set_(source): the tensor whose memory t now uses (minigrad/storage.py)
    __array_priority__ = 1000  # NumPy defers to Tensor's reflected operators

    def __new__(cls, *args, **kwargs):
        # torch.Tensor(2, 3), Tensor([1, 2]): the legacy constructor (minigrad/legacy.py)
        from .legacy import tensor_new
        return tensor_new(cls, args, kwargs)

    def __init__(self, *args, **kwargs):
        pass

    # ---- identity and metadata -------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim_=_NOT_GIVEN, /, *, dim=None):
        # dim by position (dim_) or by keyword, kept apart for torch's argument errors
        if dim_ is not _NOT_GIVEN:
            if dim is not None:
                from ._arg_errors import call_error
                raise call_error("size", True, (dim_,), {"dim": dim})
            dim = dim_
        if dim is None:
            return Size(self._data.shape)
        try:
            return self._data.shape[_wrap_dim(dim, self._data.ndim, "size")]
        except TypeError as e:  # an ArgTypeError
            from ._arg_errors import call_error
            positional = dim_ is not _NOT_GIVEN
            raise call_error("size", True, (dim_,) if positional else (), {} if positional else {"dim": dim},
                             e) from None

    def dim(self):
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    @property
    def dtype(self):
        return _dt._BY_NP[self._data.dtype]

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    def is_floating_point(self):
        return _dt.floating(self._data)

    def element_size(self):
        return self._data.itemsize

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if value.__class__ is not bool:
            raise RuntimeError("requires_grad must be a bool")
        if stored_grad_fn(self) is not None:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want "
                               "to use a computed variable in a subgraph that doesn't require "
                               "differentiation use var_no_grad = var.detach().")
        if value and not _dt.floating(self._data):
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if value and self._inference and not _inference_enabled():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        if self._no_grad_view is None:  # a view made in no_grad mode requires grad as its base does
            self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad=True):
        if requires_grad.__class__ is not bool:
            from ._arg_errors import type_name
            raise TypeError("requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                            f"{type_name(requires_grad)}")
        if requires_grad and not _dt.floating(self._data):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")  # torch's wording here
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self):
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            _non_leaf_grad_warning()
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                                   f"tensor of size '{list(self._data.shape)}'. Please ensure that the "
                                   "gradient and the tensor are the same size")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(f"attempting to assign a gradient with dtype '{_dt.cpp_name(value.dtype)}' to a "
                                   f"tensor with grad_dtype '{self.dtype._legacy[:-6]}'. The gradient must match the "
                                   "tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
                                   "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
                                   "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may "
                                   "break downstream systems that assume they match.")
            if value._device is not self._device:
                raise RuntimeError("assigned grad has data located on a different device")
        self._grad = value

    @property
    def _version(self):
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0] if self._vc is not None else 0

    def is_inference(self):
        return self._inference

    def _bump_version(self):
        if self._vc is None:
            self._vc = [0, 0]
        self._vc[0] += 1

    def _alias(self):
        """A new tensor object on the same memory and version counter, outside the graph."""
        t = _make(self._data, self._device)
        if t._inference is not self._inference:  # an alias is an inference tensor as its tensor is
            t._inference = self._inference
        if self._vc is None:
            self._vc = [0, 0]
        t._vc = self._vc
        t._base = self._base if self._base is not None else self
        t._view_mark = self._vc[1]
        t._view_replay = (self, None)
        return t

    @property
    def data(self):
        t = _make(self._data, self._device)  # shares memory, not the version counter (as torch)
        if t._inference is not self._inference:
            t._inference = self._inference
        return t

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        self._data = value._data
        self._device = value._device
        if self._inference is not value._inference:  # an inference tensor's data makes one, and back
            self._inference = value._inference

    def data_ptr(self):
        """The address of the first element (0 for a tensor with no elements, as in torch)."""
        return self._device.backend.data_ptr(self._data) if self._data.size else 0

    def stride(self, dim=None):
        """The step between neighbours along each dim, in elements, as torch reports it: the
        memory layout's, except where the layout leaves the step free (a dim of size 1, a tensor
        with no elements), where torch's rule gives the contiguous value (NumPy's new axes say 0)."""
        shape = self._data.shape
        if self._data.size == 0:
            out, step = [], 1
            for n in reversed(shape):
                out.append(step)
                step *= max(n, 1)
            out = out[::-1]
        else:
            out = list(self._device.backend.strides(self._data))
            for d in range(len(shape) - 1, -1, -1):
                if shape[d] == 1 and out[d] == 0:
                    out[d] = max(out[d + 1] * shape[d + 1], 1) if d + 1 < len(shape) else 1
        if dim is None:
            return tuple(out)
        from ._arg_errors import _is_long, type_name
        if not _is_long(dim):
            raise TypeError(f"stride(): argument 'dim' (position 1) must be int, not {type_name(dim)}")
        if not shape:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return out[_wrap_dim(dim, len(shape), "stride")]

    def storage_offset(self):
        """Elements from the start of the base tensor's memory (a view's offset; 0 otherwise)."""
        base = self._base if self._base is not None else self
        if base._storage_of is not None:
            base = base._storage_of
        if base is self or not self._data.size or not base._data.size:
            return 0
        be = self._device.backend
        return (be.data_ptr(self._data) - be.data_ptr(base._data)) // self._data.itemsize

    # ---- conversion -----------------------------------------------------------
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._host().reshape(()).item()

    def tolist(self):
        return self._host().tolist()

    def _host(self):
        """The values as a NumPy array on the host; bfloat16 (NumPy has none) as float32."""
        be, data = self._device.backend, self._data
        if data.dtype.char == "H":  # uint16: bfloat16's bits
            data = be.bf16_to_f32(data)
        return be.to_numpy(data)

    def numpy(self, *, force=False):
        if not force:
            if self._requires_grad:
                raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                                   "instead.")
            if self._device is not CPU:
                raise TypeError(f"can't convert {self._device} device type tensor to numpy. Use Tensor.cpu() "
                                "to copy the tensor to host memory first.")
        if self._data.dtype.char == "H":  # bfloat16's bits: NumPy has no such dtype
            raise TypeError("Got unsupported ScalarType BFloat16")
        return self.detach().cpu()._data if force else self._data

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __bool__(self):
        if self._data.size == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return float(self.item())

    def __int__(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.dtype.char == "H" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __hash__(self):
        return id(self)

    def __repr__(self):
        from ._tensor_str import tensor_repr
        suffixes = []
        if self._device is not CPU:
            suffixes.append(f"device='{self._device}'")
        d = self.dtype
        if d not in (_dt.get_default_dtype(), _dt.int64, _dt.bool_) or (
                self._data.size == 0 and d is not _dt.get_default_dtype()):
            suffixes.append(f"dtype={d!r}")
        try:
            fn = self.grad_fn
        except RuntimeError:  # a view made in no_grad mode and modified in place since: as torch prints it
            suffixes.append("grad_fn=<Invalid>")
        else:
            if fn is not None:
                suffixes.append(f"grad_fn=<{type(fn).__name__}>")  # torch prints the type's name
            elif self._requires_grad:
                suffixes.append("requires_grad=True")
        return tensor_repr(self._host(), suffixes)

    __str__ = __repr__

    def __format__(self, spec):
        if self._data.ndim == 0:
            from ._tensor_str import format_scalar
            return format_scalar(self._host(), spec)
        return object.__format__(self, spec) if spec else repr(self)

    def __reduce__(self):
        return (_rebuild, (self.detach().cpu()._data.copy(), str(self._device), self._requires_grad))

    def __deepcopy__(self, memo):
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the "
                               "deepcopy protocol at the moment.")
        t = _make(self._device.backend.copy(self._data), self._device)
        t._requires_grad = self._requires_grad
        if self._grad is not None:
            t._grad = self._grad.clone()
        memo[id(self)] = t
        return t

    # ---- devices and dtypes ---------------------------------------------------
    def to(self, *args, **kwargs):
        """to(device), to(dtype), to(device, dtype), to(other), with copy=, non_blocking= and
        memory_format= (a copy laid out in that format unless the result already is)."""
        fmt = None
        if "memory_format" in kwargs:
            kw = dict(kwargs)
            fmt = kw.pop("memory_format")
            if fmt is not None and not isinstance(fmt, _mf.memory_format):
                from ._arg_errors import _format_invalid_args
                raise TypeError(_format_invalid_args(args, kwargs, "to()", _TO_OVERLOADS))
            device, dtype, _, copy = to_args(args, kw) if args or kw else (None, None, False, False)
        else:
            device, dtype, _, copy = to_args(args, kwargs)
        out = self
        if dtype is not None:
            dtype = _dt.to_dtype(dtype)
            if dtype is not out.dtype:
                out = _function.apply_first(_ToCopy, out, dtype)
        if device is not None:
            dev = canonical(device)
            if dev is not out._device:
                out = _function.apply_first(_ToDevice, out, dev)
        if copy and out is self:
            out = self.clone(memory_format=fmt) if fmt is not None else self.clone()
        elif fmt is not None and fmt is not _mf.preserve_format:
            order = _mf.order_of(out, fmt)
            be = out._device.backend
            laid = _mf.in_layout(be, out._data, order)
            if laid is not out._data:
                if out is self:  # torch copies through _to_copy here (ToCopyBackward0)
                    out = _function.apply_first(_ToCopy, out, out.dtype, order)
                else:  # a fresh copy already: lay it out anew in place
                    out._data = laid
        return out

    def cpu(self):
        return self.to(CPU)

    def cuda(self, device=None):
        from .devices import device as _device_cls
        if device is None:
            return self.to("cuda")
        return self.to(_device_cls("cuda", device) if isinstance(device, int) else device)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """type(): the legacy type's name ('torch.FloatTensor'); type(t): self as the legacy type,
        dtype or type name t (minigrad/legacy.py)."""
        from .legacy import tensor_type
        return tensor_type(self, dtype, non_blocking, **kwargs)

    def float(self):
        return self.to(_dt.float32)

    def double(self):
        return self.to(_dt.float64)

    def long(self):
        return self.to(_dt.int64)

    def int(self):
        return self.to(_dt.int32)

    def bool(self):
        return self.to(_dt.bool_)

    # ---- autograd ---------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if gradient is None and inputs is None and not create_graph and self._requires_grad \
                and self._data.size == 1:
            # the common `loss.backward()`: seed with ones and run the engine directly
            seed = _make(self._device.backend.ones(self._data.shape, self._data.dtype), self._device)
            _engine.run_backward((self,), (seed,), bool(retain_graph), False)
            return
        _backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        t = self._alias()
        t._base = None  # not a differentiable view: in-place ops on it are allowed
        return t

    def detach_(self):
        if self._base is not None and not self._inference:  # torch tracks no views of inference tensors
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
                "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
                "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in minigrad/optim/optimizer.py as the solution.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    def retain_grad(self):
        if stored_grad_fn(self) is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self._retains_grad:
            return
        node = self.grad_fn
        if node._retained is None:
            node._retained = {}
        node._retained[self._output_nr] = weakref.ref(self)
        node._hooked = True
        self._retains_grad = True

    @property
    def retains_grad(self):
        return self._retains_grad

    def register_hook(self, hook):
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        handle = _function.HookHandle()
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = {}
            self._hooks[handle.id] = hook
            handle._dict = self._hooks
        else:
            node = self.grad_fn
            if node._tensor_hooks is None:
                node._tensor_hooks = {}
            node._tensor_hooks[handle.id] = (self._output_nr, hook)
            node._hooked = True
            handle._dict = node._tensor_hooks
        return handle

    def register_post_accumulate_grad_hook(self, hook):
        """hook(tensor), run after a backward has accumulated this leaf's gradient into .grad."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        node = _function.accumulator(self)
        if self._post_acc_hooks is None:
            self._post_acc_hooks = {}
        handle = _function.HookHandle()
        self._post_acc_hooks[handle.id] = hook
        handle._dict = self._post_acc_hooks
        if node is not None:
            node._hooked = True  # the engine's slow path for this leaf runs the hooks
        return handle


class _NoGradView(Tensor):
    """The class of a view made in no_grad mode of a tensor that requires grad, and of the views
    made from one in grad mode. torch computes a view's grad_fn when it is read, and for these
    views refuses to once the view, its base or another view of it was modified in place since
    (even in no_grad mode): reading .grad_fn (or is_leaf, or using the view in grad mode) then
    raises. So only these tensors read grad_fn through a property; every other tensor keeps it
    as a plain attribute, whose reads cost what they did. The class passes for Tensor (its name,
    and every isinstance); type(t) is the one thing that tells it apart."""
    __slots__ = ()

    @property
    def grad_fn(self):
        fn = self.__dict__.get("grad_fn")
        if self._vc[0] != self._view_mark_version():
            from .ops.view_inplace import no_grad_view_error
            raise no_grad_view_error(self, fn)
        return fn

    @grad_fn.setter
    def grad_fn(self, fn):
        self.__dict__["grad_fn"] = fn

    def _view_mark_version(self):
        """The version of the memory when the view made in no_grad mode (this one, or the one
        this view was made from) was made."""
        t = self
        while t._no_grad_view is None and t._view_replay is not None:
            t = t._view_replay[0]
        return t._no_grad_view if t._no_grad_view is not None else self._vc[0]

    @property
    def grad(self):  # torch decides on the warning by the stored grad_fn (C++'s is_leaf): no error
        if stored_grad_fn(self) is not None and not self._retains_grad and self._grad is None:
            _non_leaf_grad_warning()
        return self._grad

    grad = grad.setter(Tensor.grad.fset)


_NoGradView.__name__ = _NoGradView.__qualname__ = "Tensor"


def stored_grad_fn(t):
    """t's grad_fn as stored, which reading never raises (torch's C++ is_leaf reads it so). Only
    a _NoGradView's __dict__ is read: reading a tensor's __dict__ makes CPython give it a dict of
    its own, which slows every later attribute read on it (a Parameter's too)."""
    return t.__dict__.get("grad_fn") if t.__class__ is _NoGradView else t.grad_fn


def _non_leaf_grad_warning():
    import warnings
    warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                  "Its .grad attribute won't be populated during autograd.backward(). If you "
                  "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                  ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make "
                  "sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for "
                  "more information.", UserWarning, stacklevel=3)


def _rebuild(array, device, requires_grad):
    from .creation import tensor
    return tensor(array, device=device, requires_grad=requires_grad)


def _wrap_dim(dim, ndim, op=None):
    """A possibly negative dim as an index in range, or torch's IndexError; for a dim that is no
    integer (1.5, "a", or a bool, which torch refuses as a dim), an ArgTypeError with torch's
    message for the op named op (minigrad/_arg_errors.py)."""
    if dim.__class__ is not int:
        try:
            dim = _as_index(dim)
        except TypeError:
            from ._arg_errors import dim_type_error
            raise dim_type_error(op, dim) from None
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def _as_index(x):
    """x as an int through __index__; TypeError for a bool, which torch's parser never takes for
    an int argument."""
    if x.__class__ is bool:
        raise TypeError
    return operator.index(x)


def _wrap_dims(dims, ndim):
    """A non-empty tuple or list of dims, each wrapped into range (_index_dims, then _wrap_dim)."""
    return tuple([_wrap_dim(d, ndim) for d in _index_dims(dims)])


def _index_dims(dims):
    """A non-empty tuple or list of dims as ints, or an ArgTypeError. As torch's parser does, the
    first element decides whether it is a tuple of ints at all (a bool is not); the others are
    then taken as integers, a bool too (x.sum((0, True)) sums dims 0 and 1)."""
    out = []
    for d in dims:
        if d.__class__ is not int:
            try:
                if d.__class__ is bool and not out:
                    raise TypeError
                d = int(operator.index(d))
            except TypeError:
                from ._arg_errors import dim_type_error
                raise dim_type_error(None, d) from None
        out.append(d)
    return out


_function.Tensor = Tensor
_function.NoGradView = _NoGradView
_engine._make = _make
from . import tensor_methods  # noqa: E402,F401  (attaches the op methods to Tensor)
from .ops.elementwise import ToCopy as _ToCopy  # noqa: E402  (ops import this module first)
from .ops.transfer import ToDevice as _ToDevice  # noqa: E402
