"""torch.Stream and torch.Event: the device-agnostic stream and event.

On a CUDA device they are minigrad.cuda's Stream and Event (subclasses of these). On the CPU,
where work runs as it is issued, a stream is always idle and an event always complete; recording
an event there is refused, as torch's CPU backend refuses it. Tensor.record_stream lives here too.
"""
from .tensor import Tensor

_NO_CPU_EVENTS = "cpu backend doesn't support events."
_NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def _device_of(device):
    """(type, index) for the device a Stream/Event is asked for: None means the current
    accelerator (the CPU when there is none), an int an accelerator index."""
    from . import cuda
    from .devices import device as _device
    if device is None:
        return ("cuda", cuda.current_device()) if cuda.is_available() else ("cpu", -1)
    if isinstance(device, int) and not isinstance(device, bool):
        if not cuda.is_available():
            raise RuntimeError(_NO_ACCELERATOR)
        return "cuda", device
    d = _device(device)
    if d.type == "cpu":
        return "cpu", -1
    return "cuda", d.index if d.index is not None else cuda.current_device()


class Stream:
    """An in-order queue of work on a device (torch.Stream(device=None, *, priority=0))."""

    def __new__(cls, device=None, *, priority=0):
        kind, index = _device_of(device)
        if kind == "cuda":
            from . import cuda
            return cuda.Stream(index, priority=priority)
        return object.__new__(cls)

    def __init__(self, device=None, *, priority=0):
        pass

    # the CPU stream: nothing is ever pending on it
    device_type = 0   # torch's DeviceType value (CUDA is 1)
    device_index = -1
    stream_id = 0

    @property
    def device(self):
        from .devices import device as _device
        return _device("cpu")

    def query(self):
        return True

    def synchronize(self):
        pass

    def wait_event(self, event):
        event.wait(self)

    def wait_stream(self, stream):
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        if event is None:
            event = Event(self.device)
        event.record(self)
        return event

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __eq__(self, other):
        return (isinstance(other, Stream) and self.device_type == other.device_type
                and self.device_index == other.device_index and self.stream_id == other.stream_id)

    def __hash__(self):
        return hash((self.device_type, self.device_index, self.stream_id))

    def __repr__(self):
        return (f"torch.Stream device_type={self.device.type}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event:
    """A marker in a stream's work, for synchronizing and timing
    (torch.Event(device=None, *, enable_timing=False, blocking=False, interprocess=False))."""

    def __new__(cls, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        kind, index = _device_of(device)
        if kind == "cuda":
            from . import cuda
            return cuda.Event(enable_timing=enable_timing, blocking=blocking, interprocess=interprocess)
        event = object.__new__(cls)
        event.enable_timing = bool(enable_timing)
        return event

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        pass

    device_index = -1
    event_id = 0

    @property
    def device(self):
        from .devices import device as _device
        return _device("cpu")

    def record(self, stream=None):
        raise RuntimeError(_NO_CPU_EVENTS)

    def wait(self, stream=None):
        pass   # never recorded: nothing to wait for

    def query(self):
        return True

    def synchronize(self):
        pass

    def elapsed_time(self, end_event):
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        raise ValueError("Both events must be recorded before calculating elapsed time.")

    def __repr__(self):
        return (f"torch.Event device_type={self.device.type}, device_index={self.device_index}, "
                f"event_flag={int(self.enable_timing)}, event_id={self.event_id}")


def _record_stream(self, stream):
    """Tensor.record_stream(stream): this tensor's memory is in use by work queued on `stream`,
    so it is not handed out again before that work is done (minigrad.cuda keeps the buffer
    alive until an event recorded on the stream now has completed)."""
    if not self.is_cuda:
        raise NotImplementedError(
            "Could not run 'aten::record_stream' with arguments from the 'CPU' backend. This could be "
            "because the operator doesn't exist for this backend, or was omitted during the "
            "selective/custom build process (if using custom build). 'aten::record_stream' is only "
            "available for these backends: [CUDA].")
    from . import cuda
    if not isinstance(stream, cuda.Stream):
        raise TypeError(f"record_stream(): argument 'stream' must be torch.Stream, not {type(stream).__name__}")
    cuda._hold_until_done(stream, self._data)


Tensor.record_stream = _record_stream
