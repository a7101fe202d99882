"""minigrad.cuda: what torch.cuda offers, for the devices minigrad can reach through CuPy.

CuPy is imported lazily: on a machine without it (or without a GPU) everything here answers
"no GPU" instead of raising, except the calls that need one.
"""

_INSTALL_HINT = ("CUDA is not available: minigrad found no usable NVIDIA GPU through CuPy. "
                 "Install the CUDA extra with `pip install \"minigrad[cuda]\"` (it brings a CuPy "
                 "build such as cupy-cuda12x) on a machine with an NVIDIA GPU and driver.")

_state = {"checked": False, "cupy": None, "count": 0, "current": 0}


def _probe():
    if not _state["checked"]:
        _state["checked"] = True
        try:
            import cupy
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception:  # no cupy, no driver, no device: all mean "not available"
            cupy, count = None, 0
        _state["cupy"], _state["count"] = cupy, count
    return _state["cupy"]


def is_available():
    return _probe() is not None and _state["count"] > 0


def device_count():
    _probe()
    return _state["count"]


def _check_device(index):
    if not is_available():
        raise RuntimeError(_INSTALL_HINT)
    if not 0 <= index < _state["count"]:
        raise RuntimeError(
            f"CUDA error: invalid device ordinal: cuda:{index} was requested but "
            f"{_state['count']} CUDA device(s) are available (cuda:0 to cuda:{_state['count'] - 1})")


def current_device():
    if not is_available():
        raise RuntimeError(_INSTALL_HINT)
    return _state["current"]


def set_device(dev):
    from .devices import device
    index = dev if isinstance(dev, int) else device(dev).index or 0
    _check_device(index)
    _state["current"] = index


def _backend(index):
    try:
        from .backends import cuda_backend
    except ImportError as e:
        raise RuntimeError(f"minigrad's CUDA backend could not be loaded: {e}") from e
    return cuda_backend.for_device(index)
