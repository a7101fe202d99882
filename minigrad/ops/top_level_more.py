"""More of torch's small top-level functions and Tensor methods: is_complex, get_device_module,
set_flush_denormal, Tensor.as_subclass, Tensor.new_empty_strided and Tensor.dim_order; and the
names torch 1.9 removed (solve, eig, symeig, lstsq, Tensor.reinforce, Tensor.volatile), which
fail or warn as torch's do."""
from ..tensor import Tensor


def is_complex(input):
    """minigrad has no complex dtypes, so no tensor is complex."""
    if not isinstance(input, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"is_complex(): argument 'input' (position 1) must be Tensor, not {type_name(input)}")
    return False


def get_device_module(device=None):
    """The module of a device type (minigrad.cuda for "cuda:1", minigrad.cpu for "cpu"); with no
    device, that of the current accelerator, or minigrad.cpu when there is none."""
    import minigrad
    from ..devices import device as _device
    if device is None:
        found = minigrad.accelerator.current_accelerator()
        kind = "cpu" if found is None else found.type
    elif isinstance(device, _device):
        kind = device.type
    elif isinstance(device, str):
        kind = _device(device).type  # torch's RuntimeError for an unknown device string
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect minigrad.device, str, or None")
    module = getattr(minigrad, kind, None)
    if module is None:
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered as 'minigrad.{kind}'.")
    return module


def set_flush_denormal(mode):
    """torch's switch for flushing subnormal floats to zero on the CPU. NumPy gives minigrad no
    portable way to set the FPU's flush-to-zero mode, so, like torch on a CPU without it, this
    reports that it is unsupported (False) and changes nothing."""
    if mode.__class__ is not bool:
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return False


def _as_subclass(self, cls):
    """A `cls` instance sharing this tensor's data and staying in its autograd graph (an alias)."""
    if not isinstance(cls, type):
        raise TypeError(f"cls must be a type (got {type(cls).__name__})")
    if not issubclass(cls, Tensor):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
                        "Make sure your class inherits from Tensor.")
    out = self.view_as(self)
    out.__class__ = cls
    return out


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, layout=None,
                       pin_memory=False):
    """empty_strided with this tensor's dtype and device unless given."""
    from .. import creation
    for name, pos, value in (("size", 1, size), ("stride", 2, stride)):
        if not isinstance(value, (tuple, list)):
            from .._arg_errors import type_name
            raise TypeError(f"new_empty_strided(): argument '{name}' (position {pos}) must be tuple of ints, not "
                            f"{type_name(value)}")
    return creation.empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                                  device=self.device if device is None else device, requires_grad=requires_grad,
                                  pin_memory=pin_memory)


_AMBIGUOUS = "The tensor does not have unique dim order, or cannot map to exact one of the given memory formats."


def _dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory: a stable sort by decreasing stride (larger
    size first among equal strides). With ambiguity_check=True, a RuntimeError when another order
    fits the strides too (a size-1 dim, equal strides); with a list of memory formats, the one
    format among them the tensor is laid out in, or a RuntimeError when not exactly one fits."""
    from ..memory_formats import memory_format, channels_last, channels_last_3d
    formats = None
    if isinstance(ambiguity_check, list):
        if not all(isinstance(f, memory_format) for f in ambiguity_check):
            raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
        formats = ambiguity_check
    elif ambiguity_check.__class__ is not bool:
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    shape, strides = tuple(self.shape), self.stride()
    order = tuple(sorted(range(len(shape)), key=lambda d: (-strides[d], -shape[d])))
    unique = all(s > 1 for s in shape) and len(set(strides)) == len(strides)
    if formats is not None and not unique:
        fitting = [f for f in formats if self.is_contiguous(memory_format=f)]
        if len(fitting) != 1:
            raise RuntimeError(_AMBIGUOUS)
        rank = len(shape)
        if fitting[0] is channels_last and rank == 4:
            return (0, 2, 3, 1)
        if fitting[0] is channels_last_3d and rank == 5:
            return (0, 2, 3, 4, 1)
        return tuple(range(rank))
    if ambiguity_check is True and not unique:
        raise RuntimeError(_AMBIGUOUS)
    return order


# torch 1.9 removed these; torch 2.13 keeps the names only to say what replaces them (a program
# from an old tutorial then fails with directions instead of an AttributeError)
_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def solve(input, A, *, out=None):
    raise RuntimeError(f"{_REMOVED} Use minigrad.linalg.solve(A, B), whose arguments are reversed: "
                       "X = minigrad.solve(B, A).solution becomes X = minigrad.linalg.solve(A, B) (for the LU "
                       "factorization, see minigrad.linalg.lu_factor).")


def eig(input, eigenvectors=False, *, out=None):
    raise RuntimeError(f"{_REMOVED} torch replaces it with torch.linalg.eigvals / torch.linalg.eig, which return "
                       "complex tensors that minigrad does not have; for a symmetric matrix use "
                       "minigrad.linalg.eigvalsh(A) or minigrad.linalg.eigh(A).")


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    raise RuntimeError(f"{_REMOVED} Use minigrad.linalg.eigvalsh(A, UPLO='U' if upper else 'L') for the eigenvalues "
                       "or minigrad.linalg.eigh(A, UPLO=...) for eigenvalues and eigenvectors; note that these read "
                       "the lower triangle by default, where symeig read the upper one.")


def lstsq(input, A, *, out=None):
    raise RuntimeError(f"{_REMOVED} Use minigrad.linalg.lstsq(A, B), whose arguments are reversed: "
                       "X = minigrad.lstsq(B, A).solution[:n] becomes X = minigrad.linalg.lstsq(A, B).solution; its "
                       "result names the residuals and does not hold a QR decomposition (see minigrad.linalg.qr).")


def _reinforce(self, reward):
    raise RuntimeError("reinforce() was removed.\nUse minigrad.distributions instead: draw the action with "
                       "m = minigrad.distributions.Categorical(probs); action = m.sample(), then backpropagate "
                       "loss = -m.log_prob(action) * reward.")


def _volatile_get(self):
    import warnings
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def _volatile_set(self, value):
    import warnings
    warnings.warn("volatile was removed and now has no effect. Use `with minigrad.no_grad():` instead.", UserWarning,
                  stacklevel=2)


FUNCTIONS = {"is_complex": is_complex, "get_device_module": get_device_module,
             "set_flush_denormal": set_flush_denormal, "solve": solve, "eig": eig, "symeig": symeig,
             "lstsq": lstsq}


def attach_methods(cls):
    for name, fn in (("as_subclass", _as_subclass), ("new_empty_strided", _new_empty_strided),
                     ("dim_order", _dim_order)):
        fn.__name__, fn.__qualname__ = name, f"Tensor.{name}"  # Python's TypeErrors name the method as torch's
        setattr(cls, name, fn)
    for name, fn in (("solve", solve), ("eig", eig), ("symeig", symeig), ("lstsq", lstsq),
                     ("reinforce", _reinforce)):
        if not hasattr(cls, name):
            setattr(cls, name, fn)
    if not hasattr(cls, "volatile"):
        cls.volatile = property(_volatile_get, _volatile_set)
