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
    """Context manager that makes device `dev` the current one, like torch.cuda.device; a
    negative index (device_of a CPU tensor) changes nothing."""

    def __init__(self, dev):
        self.index = dev if isinstance(dev, int) and dev < 0 else _index(dev)

    idx = property(lambda self: self.index)  # torch's name for it

    def __enter__(self):
        if self.index >= 0:
            self._prev = _state["current"]
            set_device(self.index)

    def __exit__(self, *exc):
        if self.index >= 0:
            set_device(self._prev)
        return False


class device_of(device):
    """torch.cuda.device_of(obj): the device context of a tensor's GPU, or no change for a CPU
    tensor (index -1)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


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


_accumulated = {"allocations": 0, "bytes": 0, "ooms": 0}  # since reset_accumulated_memory_stats
_fraction = {}  # device index -> the share of its memory set_per_process_memory_fraction allows


class OutOfMemoryError(RuntimeError):
    """An allocation on the GPU failed (torch.OutOfMemoryError, also torch.cuda.OutOfMemoryError)."""


OutOfMemoryError.__module__ = "minigrad"


def _format_size(n):
    """Bytes as torch's allocator writes them: "512 bytes", "2.50 KiB", "1.00 GiB"."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n > scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n} bytes"


def _total_memory(index):
    cupy = _state["cupy"]
    with cupy.cuda.Device(index):
        return cupy.cuda.runtime.memGetInfo()[1]


def _out_of_memory(size, index):
    """Raise torch's out-of-memory error for a failed allocation of `size` bytes on GPU index."""
    cupy = _state["cupy"]
    _accumulated["ooms"] += 1
    with cupy.cuda.Device(index):
        free, total = cupy.cuda.runtime.memGetInfo()
    if _peak["caching"]:
        pool = cupy.get_default_memory_pool()
        allocated, reserved = pool.used_bytes(), pool.total_bytes()
    else:
        allocated = reserved = _uncached["bytes"]
    allowed = f"{_format_size(int(_fraction[index] * total))} allowed; " if index in _fraction else ""
    raise OutOfMemoryError(
        f"CUDA out of memory. Tried to allocate {_format_size(size)}. GPU {index} has a total capacity "
        f"of {_format_size(total)} of which {_format_size(free)} is free. {allowed}Of the allocated "
        f"memory {_format_size(allocated)} is allocated by minigrad, and "
        f"{_format_size(reserved - allocated)} is reserved by minigrad but unallocated. If reserved "
        f"but unallocated memory is large, minigrad.cuda.empty_cache() gives it back to the device.")


def _guarded(allocate, size):
    """allocate(size), counted, with CuPy's out-of-memory errors (the pool's, or cudaMalloc's
    when caching is off) raised as OutOfMemoryError: every allocation the backend makes comes
    through the allocator _track_peak installs, so this is the one place that maps them."""
    cupy = _state["cupy"]
    try:
        mem = allocate(size)
    except cupy.cuda.memory.OutOfMemoryError:
        mem = None
    except cupy.cuda.runtime.CUDARuntimeError as e:
        if "cudaErrorMemoryAllocation" not in str(e):
            raise
        mem = None
    if mem is None:  # raised here, outside the handler, so CuPy's error is not chained to it
        _out_of_memory(size, cupy.cuda.runtime.getDevice())
    _accumulated["allocations"] += 1
    _accumulated["bytes"] += size
    return mem


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
            mem = _guarded(pool.malloc, size)
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
            index = cupy.cuda.runtime.getDevice()
            limit = _fraction.get(index)
            if limit is not None and _uncached["bytes"] + size > limit * _total_memory(index):
                _out_of_memory(size, index)
            mem = _guarded(Allocation, size)
            weakref.finalize(mem, _release_uncached, size)
            _uncached["bytes"] += size
            if _uncached["bytes"] > _peak["bytes"]:
                _peak["bytes"] = _peak["reserved"] = _uncached["bytes"]
            return cupy.cuda.MemoryPointer(mem, 0)

    cupy.cuda.set_allocator(malloc)
    _peak.update(installed=True, caching=caching)


def memory_allocated(dev=None):
    if not is_available():
        return 0  # torch's answer before CUDA is initialized
    _index(dev)
    if not _peak["caching"]:
        return _uncached["bytes"]
    return _cupy().get_default_memory_pool().used_bytes()


def max_memory_allocated(dev=None):
    if not is_available():
        return 0
    _index(dev)
    return max(_peak["bytes"], memory_allocated(dev))


def reset_peak_memory_stats(dev=None):
    _index(dev)  # the no-GPU error, as torch has no allocator to reset there
    _peak["bytes"] = memory_allocated(dev)
    _peak["reserved"] = memory_reserved(dev)


def reset_max_memory_allocated(dev=None):
    """Deprecated: resets every peak, as reset_peak_memory_stats (torch's older name)."""
    import warnings
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, "
                  "which resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(dev)


def max_memory_reserved(dev=None):
    """The most memory the allocator has held (in use or cached for reuse) since the start or
    the last reset_peak_memory_stats."""
    if not is_available():
        return 0
    return max(_peak["reserved"], memory_reserved(dev))


def memory_stats(dev=None):
    """The counters minigrad keeps, under torch's key names: bytes in use and held by the
    allocator, current and peak (torch's allocator keeps many more; these are the ones most
    programs read), plus the accumulated counts since reset_accumulated_memory_stats: the
    allocations made (and their bytes) and the out-of-memory errors raised. Empty without a GPU,
    as torch's before CUDA is initialized."""
    if not is_available():
        return {}
    allocated, reserved = memory_allocated(dev), memory_reserved(dev)
    return {"allocated_bytes.all.allocated": _accumulated["bytes"],
            "allocated_bytes.all.current": allocated,
            "allocated_bytes.all.peak": max_memory_allocated(dev),
            "allocation.all.allocated": _accumulated["allocations"],
            "num_ooms": _accumulated["ooms"],
            "reserved_bytes.all.current": reserved,
            "reserved_bytes.all.peak": max_memory_reserved(dev)}


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
    if not is_available():
        return 0  # torch's answer before CUDA is initialized
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
    """Whether the current GPU supports bfloat16, as torch answers: False without a GPU, True from
    compute capability 8.0 (Ampere) on, and otherwise whether bfloat16 tensors work there, which
    they do on every GPU minigrad runs on (its bfloat16 is computed in float32 kernels)."""
    if not is_available():
        return False
    return get_device_capability()[0] >= 8 or bool(including_emulation)


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


# ---- streams and events -----------------------------------------------------------------------
# minigrad's current stream on a device IS CuPy's current stream there: set_stream makes the
# CuPy stream current (per host thread and per device, as torch's), and every kernel launch,
# copy and allocation of the backend then goes to it without naming it.

from .streams import Stream as _AnyStream, Event as _AnyEvent  # noqa: E402


class Stream(_AnyStream):
    """torch.cuda.Stream(device=None, priority=0): a CUDA stream on a GPU (a cupy.cuda.Stream).
    Lower priorities run first; CUDA clamps the value to what the device supports."""

    def __new__(cls, device=None, priority=0, **kwargs):
        cupy = _cupy()
        index = current_device() if device is None or (isinstance(device, int) and device < 0) else _index(device)
        with cupy.cuda.Device(index):
            raw = cupy.cuda.Stream(non_blocking=False, priority=int(priority))
        return cls._wrap(raw, index)

    def __init__(self, *args, **kwargs):
        pass

    @classmethod
    def _wrap(cls, raw, index):
        s = object.__new__(cls)
        s._raw, s._index, s._contexts = raw, index, []
        return s

    device_type = 1   # torch's DeviceType.CUDA
    device_index = property(lambda self: self._index)
    cuda_stream = property(lambda self: int(self._raw.ptr))
    stream_id = cuda_stream   # minigrad identifies a stream by its handle

    @property
    def device(self):
        from .devices import device as _device
        return _device("cuda", self._index)

    @property
    def priority(self):
        with _state["cupy"].cuda.Device(self._index):
            return int(self._raw.priority)

    def query(self):
        with _state["cupy"].cuda.Device(self._index):
            return bool(self._raw.done)

    def synchronize(self):
        with _state["cupy"].cuda.Device(self._index):
            self._raw.synchronize()

    def record_event(self, event=None):
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __enter__(self):
        ctx = StreamContext(self)
        ctx.__enter__()
        self._contexts.append(ctx)
        return self

    def __exit__(self, *exc):
        self._contexts.pop().__exit__(*exc)
        return False

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.cuda_stream, self._index) == (other.cuda_stream, other._index)

    def __hash__(self):
        return hash((self.cuda_stream, self._index))

    def __repr__(self):
        return f"<torch.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"

    def __cuda_stream__(self):
        return 0, self.cuda_stream


class ExternalStream(Stream):
    """torch.cuda.ExternalStream(stream_ptr, device=None): a stream made outside minigrad (its
    owner keeps it alive), wrapped so that minigrad's work can be queued on it."""

    def __new__(cls, stream_ptr, device=None, **kwargs):
        cupy = _cupy()
        index = current_device() if device is None else _index(device)
        ptr = int(stream_ptr)

        class _Handle:  # the CUDA stream protocol, which CuPy's Stream.from_external reads
            def __cuda_stream__(self):
                return 0, ptr
        with cupy.cuda.Device(index):
            if hasattr(cupy.cuda.Stream, "from_external"):
                raw = cupy.cuda.Stream.from_external(_Handle())
            else:  # CuPy before 14
                raw = cupy.cuda.ExternalStream(ptr, index)
        return cls._wrap(raw, index)


def current_stream(device=None):
    """The stream work on `device` (default: the current device) is queued on now."""
    index = _index(device)
    return Stream._wrap(_state["cupy"].cuda.get_current_stream(index), index)


def default_stream(device=None):
    """The device's default (null) stream."""
    index = _index(device)
    return Stream._wrap(_state["cupy"].cuda.Stream.null, index)


def set_stream(stream):
    """Make `stream` the current stream of its device, and its device the current one (as
    torch's); None changes nothing."""
    if stream is None:
        return
    if stream.device_index != current_device():
        set_device(stream.device_index)
    with _state["cupy"].cuda.Device(stream.device_index):
        stream._raw.use()


class StreamContext:
    """Inside the block, `stream` is current (on its device, which becomes the current device);
    after it, the streams current before on both devices are again. None: no change."""

    def __init__(self, stream):
        self.stream = stream
        self._saved = []

    def __enter__(self):
        s = self.stream
        if s is None or not is_available():
            return
        here = current_stream()
        there = current_stream(s.device_index) if s.device_index != here.device_index else None
        self._saved.append((here, there))
        set_stream(s)

    def __exit__(self, *exc):
        if self.stream is None or not self._saved:
            return False
        here, there = self._saved.pop()
        if there is not None:
            set_stream(there)
        set_stream(here)
        return False


def stream(stream):
    """with minigrad.cuda.stream(s): ... queues the block's work on s (None: no change)."""
    return StreamContext(stream)


class Event(_AnyEvent):
    """torch.cuda.Event(enable_timing=False, blocking=False, interprocess=False): made on the
    device of the stream it is first recorded on (a cupy.cuda.Event then)."""

    def __new__(cls, enable_timing=False, blocking=False, interprocess=False, external=False):
        _cupy()
        event = object.__new__(cls)
        event.enable_timing, event.blocking, event.interprocess = bool(enable_timing), bool(blocking), bool(interprocess)
        event._raw, event._index = None, None
        return event

    def __init__(self, *args, **kwargs):
        pass

    cuda_event = property(lambda self: int(self._raw.ptr) if self._raw is not None else 0)
    event_id = cuda_event
    device_index = property(lambda self: -1 if self._index is None else self._index)

    @property
    def device(self):
        from .devices import device as _device
        return None if self._index is None else _device("cuda", self._index)

    def record(self, stream=None):
        if stream is None:
            stream = current_stream()
        cupy = _state["cupy"]
        if self._raw is None:
            with cupy.cuda.Device(stream.device_index):
                self._raw = cupy.cuda.Event(block=self.blocking, disable_timing=not self.enable_timing,
                                            interprocess=self.interprocess)
            self._index = stream.device_index
        elif self._index != stream.device_index:
            raise RuntimeError(f"Event device {self._index} does not match recording stream's device "
                               f"{stream.device_index}.")
        with cupy.cuda.Device(self._index):
            self._raw.record(stream._raw)

    def wait(self, stream=None):
        """Work queued on `stream` (default: the current stream) from now on starts after this
        event's work is done; the host does not wait. An event never recorded: nothing to wait for."""
        if stream is None:
            stream = current_stream()
        if self._raw is not None:
            with _state["cupy"].cuda.Device(stream.device_index):
                stream._raw.wait_event(self._raw)

    def query(self):
        return True if self._raw is None else bool(self._raw.done)

    def synchronize(self):
        if self._raw is not None:
            self._raw.synchronize()

    def elapsed_time(self, end_event):
        """Milliseconds from this event to end_event (both recorded with enable_timing=True)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if self._raw is None or end_event._raw is None:
            raise ValueError("Both events must be recorded before calculating elapsed time.")
        if not (self.query() and end_event.query()):
            raise RuntimeError("Both events must be completed before calculating elapsed time.")
        return _state["cupy"].cuda.get_elapsed_time(self._raw, end_event._raw)

    def __repr__(self):
        return f"<torch.cuda.Event {self.cuda_event:#x}>" if self._raw is not None else "<torch.cuda.Event uninitialized>"


_held = []  # (event, array): buffers record_stream keeps alive until the event's work is done


def _hold_until_done(stream, array):
    _held[:] = [(e, a) for e, a in _held if not e.query()]
    _held.append((stream.record_event(), array))


# ---- more of torch.cuda's everyday API --------------------------------------------------------

def mem_get_info(device=None):
    """(free, total) bytes of the device's memory, as the driver reports them (all processes)."""
    index = _index(device)
    cupy = _state["cupy"]
    with cupy.cuda.Device(index):
        free, total = cupy.cuda.runtime.memGetInfo()
    return int(free), int(total)


def _renamed(old, new):
    import warnings
    warnings.warn(f"`torch.cuda.{old}` has been renamed to `torch.cuda.{new}`", FutureWarning, stacklevel=3)


def memory_cached(device=None):
    """Deprecated name of memory_reserved."""
    _renamed("memory_cached", "memory_reserved")
    return memory_reserved(device)


def max_memory_cached(device=None):
    """Deprecated name of max_memory_reserved."""
    _renamed("max_memory_cached", "max_memory_reserved")
    return max_memory_reserved(device)


def reset_max_memory_cached(device=None):
    """Deprecated: resets every peak, as reset_peak_memory_stats."""
    import warnings
    warnings.warn("torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, "
                  "which resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device=None):
    """Zero the accumulated counters of memory_stats (allocations made, their bytes, OOMs)."""
    _index(device)
    _accumulated.update(allocations=0, bytes=0, ooms=0)


def memory_stats_as_nested_dict(device=None):
    """memory_stats(), its dotted keys split into nested dicts ("a.b.c" -> d["a"]["b"]["c"])."""
    nested = {}
    for key, value in memory_stats(device).items():
        *path, last = key.split(".")
        d = nested
        for part in path:
            d = d.setdefault(part, {})
        d[last] = value
    return nested


def set_per_process_memory_fraction(fraction, device=None):
    """Cap the memory minigrad may hold on the device at `fraction` of its total: beyond it an
    allocation raises OutOfMemoryError (CuPy's pool limit; checked by minigrad when caching is off)."""
    index = _index(device)
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    cupy = _state["cupy"]
    with cupy.cuda.Device(index):
        cupy.get_default_memory_pool().set_limit(fraction=fraction)
    _fraction[index] = fraction


def get_per_process_memory_fraction(device=None):
    """The fraction set by set_per_process_memory_fraction (1.0 when never set)."""
    return _fraction.get(_index(device), 1.0)


def get_arch_list():
    """The architectures minigrad's kernels are compiled for here (NVRTC compiles them at first use
    for each visible GPU's own): ['sm_90'] on an H100; [] without a GPU."""
    if not is_available():
        return []
    return sorted({"sm_%d%d" % get_device_capability(i) for i in range(device_count())})


def get_gencode_flags():
    """get_arch_list() as nvcc -gencode flags ("" without a GPU)."""
    return " ".join(f"-gencode compute=compute_{a[3:]},code=sm_{a[3:]}" for a in get_arch_list())


def is_tf32_supported():
    """Whether the current GPU has TF32 tensor cores (compute capability 8.0 or newer), as torch
    answers; False without a GPU. (minigrad's own matmul kernels compute in full float32.)"""
    return is_available() and get_device_capability()[0] >= 8


def can_device_access_peer(device, peer_device):
    """Whether GPU `device` can read and write GPU `peer_device`'s memory directly."""
    if not is_available():
        raise RuntimeError(_INSTALL_HINT)
    def as_index(d, optional):
        if isinstance(d, int) or (d is None and not optional):
            return d
        return _index(d) if d is not None else current_device()
    device, peer_device = as_index(device, True), as_index(peer_device, False)
    if device < 0 or device >= device_count():
        raise AssertionError("Invalid device id")
    if peer_device < 0 or peer_device >= device_count():
        raise AssertionError("Invalid peer device id")
    return bool(_state["cupy"].cuda.runtime.deviceCanAccessPeer(device, peer_device))


def ipc_collect():
    """Free memory of CUDA tensors shared with other processes once they are done with it:
    minigrad shares none, so there is never any (it only checks that a GPU is there)."""
    if not is_available():
        raise RuntimeError(_INSTALL_HINT)


_SYNC_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}
_sync_debug = {"mode": 0}


def set_sync_debug_mode(debug_mode):
    """Store the sync debug mode ("default"/0, "warn"/1, "error"/2). minigrad stores and reports
    it but does not warn or raise on synchronizing operations."""
    if not is_available():
        raise RuntimeError(_INSTALL_HINT)
    if isinstance(debug_mode, str):
        if debug_mode not in _SYNC_DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`")
        debug_mode = _SYNC_DEBUG_MODES[debug_mode]
    _sync_debug["mode"] = 0 if int(debug_mode) <= 0 else min(int(debug_mode), 2)


def get_sync_debug_mode():
    if not is_available():
        raise RuntimeError(_INSTALL_HINT)
    return _sync_debug["mode"]
