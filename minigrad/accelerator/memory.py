"""torch.accelerator.memory: the memory counters of the current accelerator (minigrad.cuda's)."""
from .. import cuda as _cuda


def _device(device_index):
    from . import _index, _require
    _require()
    return _index(device_index, optional=True)


def empty_cache():
    """Give the memory cached by the allocator back to the device."""
    _device(None)
    _cuda.empty_cache()


def empty_host_cache():
    """minigrad keeps no pinned host memory, so there is nothing to give back."""
    _device(None)


def memory_stats(device_index=None, /):
    return dict(_cuda.memory_stats(_device(device_index)))


def memory_allocated(device_index=None, /):
    return _cuda.memory_allocated(_device(device_index))


def max_memory_allocated(device_index=None, /):
    return _cuda.max_memory_allocated(_device(device_index))


def memory_reserved(device_index=None, /):
    return _cuda.memory_reserved(_device(device_index))


def max_memory_reserved(device_index=None, /):
    return _cuda.max_memory_reserved(_device(device_index))


def reset_accumulated_memory_stats(device_index=None, /):
    _cuda.reset_accumulated_memory_stats(_device(device_index))


def reset_peak_memory_stats(device_index=None, /):
    _cuda.reset_peak_memory_stats(_device(device_index))


def get_memory_info(device_index=None, /):
    """(free, total) bytes of the device's memory."""
    return _cuda.mem_get_info(_device(device_index))
