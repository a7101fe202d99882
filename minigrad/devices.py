"""minigrad.device, and the canonical device objects tensors carry."""

import re

_TYPES = ("cpu", "cuda")
_DEVICE_STRING = re.compile(r"([A-Za-z_]+)(?::([1-9][0-9]*|0))?")


class device:
    """Like torch.device: device("cpu"), device("cuda"), device("cuda:1"), device("cuda", 1)."""
    __slots__ = ("type", "index")

    def __init__(self, *args, **kwargs):
        # device(type, index=None) or device(device), by position or keyword; what torch's argument
        # parser refuses gets its message (minigrad/_arg_errors.py)
        if kwargs or not 1 <= len(args) <= 2:
            from ._arg_errors import binds, call_error
            if not args and list(kwargs) == ["device"]:
                kwargs = {"type": kwargs["device"]}
            elif not binds(args, kwargs, ("type", "index"), 1):
                raise call_error("device", False, args, kwargs)
            bound = dict(zip(("type", "index"), args), **kwargs)
            type, index = bound["type"], bound.get("index")
        else:
            type, index = args[0], (args[1] if len(args) == 2 else None)
        if isinstance(type, device) and index is None:
            self.type, self.index = type.type, type.index
            return
        if type.__class__ is not str or (index is not None and index.__class__ is not int):
            type, index = self._types(type, index, args, kwargs)
        if type in _TYPES:  # the common case, without the grammar below
            name, idx = type, None
        else:
            m = _DEVICE_STRING.fullmatch(type)  # torch's grammar: letters or _, then maybe :N
            if m is None:
                raise RuntimeError(f"Invalid device string: '{type}'")
            name, idx = m.groups()
        if idx is not None and int(idx) > 2 ** 31 - 1:
            raise RuntimeError(f"Could not parse device index '{idx}' in device string '{type}'")
        if name not in _TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(_TYPES)} device type at start of device string: {name}")
        if idx is not None:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
            index = int(idx)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        # an index is kept as given, the CPU's too (device('cpu', 0) is 'cpu:0', which is not
        # equal to device('cpu')); tensors on any CPU device are on minigrad's one CPU (canonical)
        self.type, self.index = name, index

    @staticmethod
    def _types(type, index, args, kwargs):
        """(type, index) for arguments of other types than str and int: an int alone is a CUDA
        index (torch.device(0) is cuda:0), a NumPy integer an index; else torch's TypeError."""
        from ._arg_errors import call_error, _is_long
        if index is None and _is_long(type) and not hasattr(type, "_data"):
            return "cuda", int(type)
        if type.__class__ is str and _is_long(index) and not hasattr(index, "_data"):
            return type, int(index)
        raise call_error("device", False, args, kwargs)

    # as torch's: a device equals only a device of the same type and index, never a string
    # (device("cpu") == "cpu" is False: compare d.type, or str(d)); ordering is refused
    def __eq__(self, other):
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __ne__(self, other):
        if not isinstance(other, device):
            return NotImplemented
        return self.type != other.type or self.index != other.index

    def __lt__(self, other):
        if not isinstance(other, device):
            return NotImplemented
        raise TypeError("comparison not implemented")

    __le__ = __gt__ = __ge__ = __lt__

    def __hash__(self):
        return hash((self.type, self.index))

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __reduce__(self):
        return (device, (self.type,) if self.index is None else (self.type, self.index))


device.__module__ = "minigrad"  # minigrad.device, as torch.device's is torch (the pickled name too)


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
