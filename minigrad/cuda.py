"""minigrad.cuda: what torch.cuda offers, for the devices minigrad can reach through CuPy.

CuPy is imported lazily: on a machine without it (or without a GPU) everything here answers
"no GPU" instead of raising, except the calls that need one.
"""

_INSTALL_HINT = ("CUDA is not available: minigrad found no usable NVIDIA GPU through CuPy. "
                 "Install the CUDA extra with `pip install \"minigrad[cuda]\"` (it brings a CuPy "
                 "build such as cupy-cuda13x) on a machine with an NVIDIA GPU and driver.")

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
    index = _index(dev)
    _cupy().cuda.Device(index).use()
    _state["current"] = index


def _backend(index):
    try:
        from .backends import cuda_backend
    except ImportError as e:
        raise RuntimeError(f"minigrad's CUDA backend could not be loaded: {e}") from e
    _track_peak()
    return cuda_backend.for_device(index)


def _cupy():
    if not is_available():
        raise RuntimeError(_INSTALL_HINT)
    return _state["cupy"]


def _index(dev):
    """A device index from None (the current device), an int, a string or a minigrad.device."""
    if dev is None:
        return current_device()
    if isinstance(dev, int):
        index = dev
    else:
        from .devices import device as _device
        d = _device(dev)
        if d.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {d}")
        index = d.index if d.index is not None else current_device()
    _check_device(index)
    return index


class device:
    """Context manager that makes device `dev` the current one, like torch.cuda.device."""

    def __init__(self, dev):
        self.index = _index(dev)

    def __enter__(self):
        self._prev = _state["current"]
        set_device(self.index)

    def __exit__(self, *exc):
        set_device(self._prev)
        return False


class _DeviceProperties:
    def __init__(self, props):
        self.name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        self.total_memory = props["totalGlobalMem"]
        self.multi_processor_count = props["multiProcessorCount"]
        self.major, self.minor = props["major"], props["minor"]

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(dev=None):
    return _DeviceProperties(_cupy().cuda.runtime.getDeviceProperties(_index(dev)))


def get_device_name(dev=None):
    return get_device_properties(dev).name


def get_device_capability(dev=None):
    p = get_device_properties(dev)
    return p.major, p.minor


def synchronize(dev=None):
    cupy = _cupy()
    with cupy.cuda.Device(_index(dev)):
        cupy.cuda.runtime.deviceSynchronize()


# memory: CuPy's pool allocates; peak use is tracked by wrapping its malloc.
# With MINIGRAD_NO_CUDA_MEMORY_CACHING=1 in the environment when the first CUDA tensor is made
# (PyTorch's PYTORCH_NO_CUDA_MEMORY_CACHING), every allocation is its own cudaMalloc, freed with
# the last array that uses it. Slower; for debugging: compute-sanitizer then knows each tensor's
# exact bounds, where the pool hands out 512-byte-rounded pieces of larger blocks.
NO_CACHING_ENV = "MINIGRAD_NO_CUDA_MEMORY_CACHING"
_peak = {"bytes": 0, "reserved": 0, "installed": False, "caching": True}
_uncached = {"bytes": 0}  # bytes held by live allocations when caching is off


def _release_uncached(size):
    _uncached["bytes"] -= size


def _track_peak():
    if _peak["installed"]:
        return
    import os
    import weakref
    cupy = _cupy()
    pool = cupy.get_default_memory_pool()
    caching = os.environ.get(NO_CACHING_ENV, "0") != "1"

    if caching:
        def malloc(size):
            mem = pool.malloc(size)
            used = pool.used_bytes()
            if used > _peak["bytes"]:
                _peak["bytes"] = used
            held = pool.total_bytes()
            if held > _peak["reserved"]:
                _peak["reserved"] = held
            return mem
    else:
        class Allocation(cupy.cuda.Memory):
            """One cudaMalloc (none for 0 bytes), freed when the last array using it goes."""

        def malloc(size):
            mem = Allocation(size)
            weakref.finalize(mem, _release_uncached, size)
            _uncached["bytes"] += size
            if _uncached["bytes"] > _peak["bytes"]:
                _peak["bytes"] = _peak["reserved"] = _uncached["bytes"]
            return cupy.cuda.MemoryPointer(mem, 0)

    cupy.cuda.set_allocator(malloc)
    _peak.update(installed=True, caching=caching)


def memory_allocated(dev=None):
    _index(dev)
    if not _peak["caching"]:
        return _uncached["bytes"]
    return _cupy().get_default_memory_pool().used_bytes()


def max_memory_allocated(dev=None):
    _index(dev)
    return max(_peak["bytes"], memory_allocated(dev))


def reset_peak_memory_stats(dev=None):
    _peak["bytes"] = memory_allocated(dev)
    _peak["reserved"] = memory_reserved(dev)


def reset_max_memory_allocated(dev=None):
    """The peak of memory_allocated starts again from the current value (torch's older name for
    part of reset_peak_memory_stats)."""
    _peak["bytes"] = memory_allocated(dev)


def max_memory_reserved(dev=None):
    """The most memory the allocator has held (in use or cached for reuse) since the start or
    the last reset_peak_memory_stats."""
    return max(_peak["reserved"], memory_reserved(dev))


def memory_stats(dev=None):
    """The counters minigrad keeps, under torch's key names: bytes in use and held by the
    allocator, current and peak (torch's allocator keeps many more; these are the ones most
    programs read)."""
    allocated, reserved = memory_allocated(dev), memory_reserved(dev)
    return {"allocated_bytes.all.current": allocated,
            "allocated_bytes.all.peak": max_memory_allocated(dev),
            "reserved_bytes.all.current": reserved,
            "reserved_bytes.all.peak": max_memory_reserved(dev),
            "num_ooms": 0}


def memory_summary(dev=None, abbreviated=False):
    """A short table of memory_stats() in MiB (torch prints its allocator's full report)."""
    stats = memory_stats(dev)
    index = _index(dev)
    rows = [("Allocated memory", "allocated_bytes"), ("GPU reserved memory", "reserved_bytes")]
    lines = [f"minigrad CUDA memory summary, device ID {index}",
             f"{'Metric':<24}{'Cur Usage':>14}{'Peak Usage':>14}"]
    for label, key in rows:
        cur, peak = stats[key + ".all.current"], stats[key + ".all.peak"]
        lines.append(f"{label:<24}{cur / 2 ** 20:>11.1f} MiB{peak / 2 ** 20:>10.1f} MiB")
    return "\n".join(lines) + "\n"


def memory_reserved(dev=None):
    _index(dev)
    if not _peak["caching"]:
        return _uncached["bytes"]  # nothing is held back for reuse
    return _cupy().get_default_memory_pool().total_bytes()


def empty_cache():
    if is_available():
        _state["cupy"].get_default_memory_pool().free_all_blocks()


_seeds = {}  # device index -> the seed its generator was last seeded with


def manual_seed(seed):
    index = current_device()  # the no-GPU error first, before the backend (which needs CuPy) loads
    from .backends import cuda_backend
    cuda_backend.for_device(index).seed(int(seed))
    _seeds[index] = int(seed)


def manual_seed_all(seed):
    if not device_count():
        return
    from .backends import cuda_backend
    for i in range(device_count()):
        cuda_backend.for_device(i).seed(int(seed))
        _seeds[i] = int(seed)


def _random_seed():
    import random
    return random.randrange(2 ** 63)


def seed():
    """Seed the current device's generator with a random number (see initial_seed)."""
    manual_seed(_random_seed())


def seed_all():
    """Seed every device's generator with one random number."""
    manual_seed_all(_random_seed())


def initial_seed():
    """The seed the current device's generator was last seeded with (a random one, chosen now,
    if it never was, as torch's lazily seeded generators do)."""
    index = current_device()
    if index not in _seeds:
        manual_seed(_random_seed())
    return _seeds[index]


def is_initialized():
    """Whether minigrad has looked for GPUs yet (torch: whether CUDA state is initialized)."""
    return _state["checked"] and is_available()


def init():
    """Look for GPUs now; raises the no-GPU error when there is none (torch's lazy init, forced)."""
    if not is_available():
        raise RuntimeError(_INSTALL_HINT)


def is_bf16_supported(including_emulation=True):
    """False: minigrad has no bfloat16 dtype on any device (NumPy has none)."""
    return False


# The RNG state of a CUDA device: 16 bytes, a seed and an offset, as torch's Philox state (the
# backend's rng_state primitive). CuPy's generator cannot report where it is in its stream, so
# reading the state reseeds the generator with a seed drawn from it and returns that seed with
# offset 0: restoring it restarts the generator exactly there. Unlike torch's, reading the state
# therefore changes the numbers drawn after it (in a reproducible way).
def get_rng_state(device="cuda"):
    from .random import _as_state_tensor
    return _as_state_tensor(_backend(_index(device)).rng_state())


def set_rng_state(new_state, device="cuda"):
    from .random import _state_bytes
    raw = _state_bytes(new_state, 16, "PhiloxCudaState")
    _backend(_index(device)).set_rng_state(raw)


def get_rng_state_all():
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states):
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


class Event:
    """torch.cuda.Event: record() on the current stream, elapsed_time(end) in milliseconds."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self._event = _cupy().cuda.Event(block=blocking, disable_timing=not enable_timing,
                                         interprocess=interprocess)
        self.enable_timing = enable_timing

    def record(self, stream=None):
        self._event.record(stream)

    def synchronize(self):
        self._event.synchronize()

    def query(self):
        return self._event.done

    def elapsed_time(self, end_event):
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        return _state["cupy"].cuda.get_elapsed_time(self._event, end_event._event)
