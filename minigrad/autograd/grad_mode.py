"""Whether operations are recorded for backward: no_grad, enable_grad, set_grad_enabled,
inference_mode.

Per thread, as in torch: a no_grad() in one thread leaves the others recording, and a new
thread starts with grad mode on. The mode is a context variable, which is per thread (new
threads start from an empty context) and is read on every op at the cost of one C call."""
import contextvars
import functools

_GRAD_MODE = contextvars.ContextVar("minigrad_grad_enabled", default=True)
_grad_enabled = _GRAD_MODE.get
_set_grad_enabled = _GRAD_MODE.set

# Inference mode: nothing is recorded, whatever the grad mode, and the tensors made are inference
# tensors (minigrad/tensor.py); _make reads this on every tensor it creates.
_INFERENCE_MODE = contextvars.ContextVar("minigrad_inference_mode", default=False)
_inference_enabled = _INFERENCE_MODE.get


class _GradOnInInference:
    """What the grad mode holds when grad mode is on inside inference mode (enable_grad() there):
    falsy, so that every op's `if _grad_enabled()` records nothing, as torch's inference mode
    ensures; is_grad_enabled() still reports True, as torch's does."""
    __slots__ = ()

    def __bool__(self):
        return False


_GRAD_ON_IN_INFERENCE = _GradOnInInference()


def grad_mode_value(mode):
    """The value the grad mode takes for grad mode `mode` here: under inference mode, grad mode
    on records nothing."""
    return _GRAD_ON_IN_INFERENCE if mode and _inference_enabled() else mode


def is_grad_enabled():
    mode = _grad_enabled()
    return True if mode is _GRAD_ON_IN_INFERENCE else mode


def is_inference_mode_enabled():
    return _inference_enabled()


class _GradModeContext:
    """Context manager and decorator, as torch's are."""
    _mode = None

    def __new__(cls, *args):
        # @no_grad without parentheses decorates directly, as in torch 2
        if cls is not set_grad_enabled and len(args) == 1 and callable(args[0]):
            return cls()(args[0])
        return super().__new__(cls)

    def __enter__(self):
        self._prev = _grad_enabled()
        _set_grad_enabled(grad_mode_value(self._mode))

    def __exit__(self, *exc):
        _set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        """A fresh context manager of the same kind (each decorated call enters its own)."""
        return self.__class__()


class no_grad(_GradModeContext):
    _mode = False


class enable_grad(_GradModeContext):
    _mode = True


class set_grad_enabled(_GradModeContext):
    """Sets the mode as soon as it is created (usable as a plain call), like torch."""

    def __init__(self, mode):
        if mode.__class__ is not bool:
            from .._arg_errors import type_name
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not {type_name(mode)}")
        self._mode = mode
        self._prev = _grad_enabled()
        _set_grad_enabled(grad_mode_value(self._mode))

    def __enter__(self):
        pass

    def __call__(self, fn):
        _set_grad_enabled(self._prev)  # used as a decorator: undo the eager set
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper


class inference_mode(_GradModeContext):
    """torch.inference_mode(mode=True): as no_grad, and the tensors made inside are inference
    tensors, which autograd refuses to save for backward, and which cannot be changed in place,
    outside inference mode (minigrad/tensor.py, minigrad/autograd/function.py). mode=False
    leaves inference mode with grad mode on, as torch's does."""

    def __new__(cls, mode=True):
        if not isinstance(mode, bool):  # @inference_mode without parentheses, as torch decides it
            return cls()(mode)
        return object.__new__(cls)

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self._prev = _grad_enabled(), _inference_enabled()
        _INFERENCE_MODE.set(self.mode)
        _set_grad_enabled(not self.mode)

    def __exit__(self, *exc):
        _set_grad_enabled(self._prev[0])
        _INFERENCE_MODE.set(self._prev[1])
        return False

    def clone(self):
        return self.__class__(self.mode)
