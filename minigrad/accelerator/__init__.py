"""torch.accelerator: the device-agnostic view of the machine's accelerator.

minigrad's one accelerator type is CUDA: on a machine with a GPU these calls answer for
minigrad.cuda, and without one they say there is no accelerator, with torch's words.
"""
import warnings as _warnings

from .. import cuda as _cuda
from . import memory  # noqa: F401  (torch.accelerator.memory)
from .memory import (empty_cache, empty_host_cache, get_memory_info, max_memory_allocated,  # noqa: F401
                     max_memory_reserved, memory_allocated, memory_reserved, memory_stats,
                     reset_accumulated_memory_stats, reset_peak_memory_stats)

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "get_device_capability",
           "current_stream", "device_count", "device_index", "empty_cache", "empty_host_cache",
           "get_memory_info", "is_available", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
           "reset_peak_memory_stats", "set_device_idx", "set_device_index", "set_stream", "synchronize"]

NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def _require():
    if not _cuda.is_available():
        raise RuntimeError(NO_ACCELERATOR)


def _index(device, optional=False):
    """An accelerator device index from an int, a string, a minigrad.device or None (with
    optional: the current index)."""
    from ..devices import device as _device
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if device is not None:
        d = _device(device)
        acc = current_accelerator()
        if acc is None:
            raise RuntimeError("Accelerator expected")
        if acc.type != d.type:
            raise ValueError(f"{d.type} doesn't match the current accelerator {acc}.")
        if d.index is not None:
            return d.index
        if not optional:
            raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{d}")
    return current_device_index()


def is_available():
    return _cuda.is_available()


def device_count():
    return _cuda.device_count() if _cuda.is_available() else 0


def current_accelerator(check_available=False):
    """minigrad.device('cuda') when a GPU is usable, else None. minigrad decides at run time
    what torch decides when it is built, so check_available changes nothing."""
    from ..devices import device as _device
    return _device("cuda") if _cuda.is_available() else None


def current_device_index():
    _require()
    return _cuda.current_device()


def current_device_idx():
    """Deprecated name of current_device_index."""
    _warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_index(device, /):
    index = _index(device)
    _require()
    _cuda.set_device(index)


def set_device_idx(device, /):
    """Deprecated name of set_device_index."""
    _warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


def get_device_capability(device=None, /):
    """{'supported_dtypes': the dtypes a tensor on the accelerator can have}."""
    index = _index(device, optional=True)
    _require()
    _cuda.get_device_properties(index)  # a valid device
    from .. import dtypes
    names = ("float16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool", "bfloat16")
    return {"supported_dtypes": {getattr(dtypes, n) for n in names if hasattr(dtypes, n)}}


def current_stream(device=None, /):
    index = _index(device, optional=True)
    _require()
    return _cuda.current_stream(index)


def set_stream(stream):
    from ..streams import Stream
    if not isinstance(stream, Stream):
        raise TypeError(f"set_stream(): argument 'stream' must be torch.Stream, not {type(stream).__name__}")
    if not isinstance(stream, _cuda.Stream):
        raise RuntimeError(NO_ACCELERATOR)
    _cuda.set_stream(stream)


def synchronize(device=None, /):
    """Wait for all work queued on the device (default: the current one) to finish."""
    index = _index(device, optional=True)
    _require()
    _cuda.synchronize(index)


class device_index:
    """with device_index(i): ... makes accelerator device i current in the block (None: no change)."""

    def __init__(self, device, /):
        self.idx = device

    def __enter__(self):
        if self.idx is not None:
            _require()
            self._prev = _cuda.current_device()
            _cuda.set_device(self.idx)

    def __exit__(self, *exc):
        if self.idx is not None:
            _cuda.set_device(self._prev)
        return False
