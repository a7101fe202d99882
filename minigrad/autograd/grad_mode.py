"""Whether operations are recorded for backward: no_grad, enable_grad, set_grad_enabled.

Per thread, as in torch: a no_grad() in one thread leaves the others recording, and a new
thread starts with grad mode on. The mode is a context variable, which is per thread (new
threads start from an empty context) and is read on every op at the cost of one C call."""
import contextvars
import functools

_GRAD_MODE = contextvars.ContextVar("minigrad_grad_enabled", default=True)
_grad_enabled = _GRAD_MODE.get
_set_grad_enabled = _GRAD_MODE.set


def is_grad_enabled():
    return _grad_enabled()


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
        _set_grad_enabled(self._mode)

    def __exit__(self, *exc):
        _set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    _mode = False


class enable_grad(_GradModeContext):
    _mode = True


class set_grad_enabled(_GradModeContext):
    """Sets the mode as soon as it is created (usable as a plain call), like torch."""

    def __init__(self, mode):
        self._mode = bool(mode)
        self._prev = _grad_enabled()
        _set_grad_enabled(self._mode)

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
