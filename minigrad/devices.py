"""minigrad.device, and the canonical device objects tensors carry."""

_TYPES = ("cpu", "cuda")


class device:
    """Like torch.device: device("cpu"), device("cuda"), device("cuda:1"), device("cuda", 1)."""
    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): an index cannot be given with a device object")
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type  # torch.device(0) means cuda:0
        if not isinstance(type, str):
            raise TypeError(f"device(): expected a string or int, got {type.__class__.__name__}")
        name, sep, idx = type.partition(":")
        if name not in _TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(_TYPES)} device type at start of device string: {type}")
        if sep:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(idx)
        if index is not None:
            if not isinstance(index, int) or isinstance(index, bool):
                raise TypeError(f"device(): argument 'index' (position 2) must be int, not "
                                f"{index.__class__.__name__}")
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        # an index is kept as given, the CPU's too (device('cpu', 0) is 'cpu:0', which is not
        # equal to device('cpu')); tensors on any CPU device are on minigrad's one CPU (canonical)
        self.type, self.index = name, index

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __reduce__(self):
        return (device, (self.type, self.index))


class _Device(device):
    """A device a tensor lives on: always with an index for cuda, and bound to its backend."""
    __slots__ = ("backend",)


CPU = _Device("cpu")
from .backends import numpy_backend as _np_backend  # noqa: E402  (the CPU backend is always there)
CPU.backend = _np_backend

_cuda_devices = {}


def canonical(dev):
    """The _Device for anything torch accepts as a device (None means the CPU)."""
    if dev is None or dev is CPU:
        return CPU
    if dev.__class__ is _Device:
        return dev
    if not isinstance(dev, device):
        dev = device(dev)
    if dev.type == "cpu":
        return CPU
    from . import cuda
    index = cuda.current_device() if dev.index is None else dev.index
    found = _cuda_devices.get(index)
    if found is None:
        cuda._check_device(index)
        found = _Device("cuda", index)
        found.backend = cuda._backend(index)
        _cuda_devices[index] = found
    return found
