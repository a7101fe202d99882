"""minigrad.utils.dlpack: zero-copy exchange with other array libraries through DLPack, as
torch.utils.dlpack (from_dlpack, to_dlpack) and Tensor.__dlpack__ / __dlpack_device__.

A minigrad tensor's storage is a NumPy array on the CPU and a CuPy array on a GPU, and both
speak DLPack: exporting hands out their capsule, importing wraps the array NumPy or CuPy builds
from the producer's. Memory is shared both ways, as torch's, so a write through one side is
seen by the other. bfloat16 cannot cross: minigrad keeps its bits in a uint16 array, which
DLPack would describe as uint16.
"""
import ctypes
import enum

import numpy as np

from ..tensor import Tensor, _make

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes (the ones torch names)."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


_INVALID_CAPSULE = ("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only once, "
                    "so you might have already constructed a tensor from it once.")


def _check_exportable(tensor):
    if tensor.dtype.name == "bfloat16":
        raise BufferError("minigrad cannot export bfloat16 tensors through DLPack (their storage is uint16)")


def _export(tensor, stream, max_version, dl_device, copy):
    _check_exportable(tensor)
    data = tensor._data
    if tensor._device.type == "cpu":
        if stream is not None and stream != -1:
            raise AssertionError("stream should be None on cpu.")
        return data.__dlpack__(max_version=max_version, dl_device=dl_device, copy=copy)
    export = getattr(data, "__dlpack__", None)
    if export is None:
        raise BufferError("this CuPy build cannot export arrays through DLPack")
    # torch's default -1 keeps the producer's stream; CuPy reads None as "no synchronization"
    return export(stream=None if stream == -1 else stream, max_version=max_version, dl_device=dl_device,
                  copy=copy)


def _dlpack(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule sharing this tensor's memory (versioned when max_version >= (1, 0))."""
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    return _export(self, stream, max_version, dl_device, copy)


def _dlpack_device(self):
    """(device type, device index) as DLPack codes them."""
    if self._device.type == "cpu":
        return DLDeviceType.kDLCPU, 0
    return DLDeviceType.kDLCUDA, self._device.index


Tensor.__dlpack__ = _dlpack
Tensor.__dlpack_device__ = _dlpack_device


def to_dlpack(tensor):
    """The legacy DLPack capsule ("dltensor") sharing `tensor`'s memory; consume it once, with
    from_dlpack. Unlike __dlpack__, it exports tensors that require grad (as torch's)."""
    if not isinstance(tensor, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"_to_dlpack(): argument 'data' (position 1) must be Tensor, not {type_name(tensor)}")
    return _export(tensor, None, None, None, None)


def _capsule_device(capsule):
    """The (device type, index) recorded in a DLPack capsule: DLManagedTensor's DLTensor starts
    with the data pointer then the device; the versioned struct puts the DLTensor after its
    version, manager context, deleter and flags (four 8-byte fields)."""
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    name = api.PyCapsule_GetName(capsule)
    if name not in (b"dltensor", b"dltensor_versioned"):  # a consumed one is renamed "used_dltensor..."
        raise RuntimeError(_INVALID_CAPSULE)
    base = api.PyCapsule_GetPointer(capsule, name) + (32 if name == b"dltensor_versioned" else 0)
    kind, index = (ctypes.c_int32 * 2).from_address(base + ctypes.sizeof(ctypes.c_void_p))
    return kind, index


class _CapsuleProducer:
    """Hands a bare capsule to a consumer (NumPy, CuPy) that wants an object with __dlpack__."""

    def __init__(self, capsule, device):
        self._capsule, self._device = capsule, device

    def __dlpack__(self, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return self._device


def _writable(array):
    """NumPy marks arrays imported from a legacy capsule read-only (that capsule cannot say whether
    the producer allows writes); torch imports them writable, so minigrad re-views the same bytes
    writably, keeping the imported array (and so the producer's memory) alive."""
    if array.flags.writeable or array.size == 0:
        return array
    lo = sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s < 0)
    hi = sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s > 0) + array.itemsize
    start = array.__array_interface__["data"][0] + lo
    memory = (ctypes.c_char * (hi - lo)).from_address(start)
    memory._imported = array
    return np.ndarray(array.shape, array.dtype, buffer=memory, offset=-lo, strides=array.strides)


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A minigrad tensor sharing the memory of `ext_tensor`: any object with __dlpack__ (a NumPy
    or CuPy array, a torch or minigrad tensor) or a DLPack capsule (from to_dlpack). `device`
    moves the result (a copy when it differs); copy=True always copies."""
    if hasattr(ext_tensor, "__dlpack__"):
        kind, index = ext_tensor.__dlpack_device__()
        producer = ext_tensor
    else:
        if type(ext_tensor).__name__ != "PyCapsule":
            raise RuntimeError(_INVALID_CAPSULE)
        kind, index = _capsule_device(ext_tensor)
        producer = _CapsuleProducer(ext_tensor, (kind, index))
    legacy = producer is not ext_tensor
    from ..devices import canonical
    if kind == DLDeviceType.kDLCPU:
        array = np.from_dlpack(producer, copy=copy) if copy is not None else np.from_dlpack(producer)
        if legacy:
            array = _writable(array)
        where = canonical("cpu")
    elif kind == DLDeviceType.kDLCUDA:
        where = canonical(f"cuda:{index}")
        import cupy
        if not hasattr(cupy, "from_dlpack"):
            raise BufferError("this CuPy build cannot import arrays through DLPack")
        with cupy.cuda.Device(index):
            array = cupy.from_dlpack(producer)
            if copy:
                array = array.copy()
    else:
        raise BufferError(f"minigrad cannot import DLPack tensors from device type {int(kind)}: only the CPU "
                          "and CUDA are supported")
    from ..dtypes import from_numpy_dtype
    from_numpy_dtype(array.dtype)  # minigrad's TypeError for a dtype it does not have
    out = _make(array, where)
    if device is not None and canonical(device) != where:
        out = out.to(device)
    return out
