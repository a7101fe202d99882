"""torch.autocast: regions in which the ops of minigrad/amp/policy.py run in a lower precision.

The state lives per thread in minigrad/_autocast.py; this module gives torch's Python API over it:
the autocast context manager / decorator, the get/set functions torch exposes at top level,
custom_fwd / custom_bwd for autograd.Function, and is_autocast_available.
"""
import functools
import re
import warnings

from .. import _autocast
from .._autocast import STATE, set_enabled as _set_enabled, get_dtype as _get_dtype

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]

# every device type torch's device-string parser knows; autocast works on those of
# _autocast.DEFAULT_DTYPES (minigrad's tensors only ever live on cpu and cuda)
_TORCH_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_DEVICE_STRING = re.compile(r"([A-Za-z_]+)(?::([0-9]+))?")


def _device_type(name):
    """The device type of a device string ('cuda:0' -> 'cuda'), with torch's error for bad ones."""
    m = _DEVICE_STRING.fullmatch(name)
    if m is None:
        raise RuntimeError(f"Invalid device string: '{name}'")
    kind = m.group(1)
    if kind not in _TORCH_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_TORCH_TYPES)} device type at start of device string: "
                           f"{kind}")
    return kind


def _checked_type(device_type):
    kind = _device_type(device_type)
    if kind not in _autocast.DEFAULT_DTYPES:
        raise RuntimeError("unknown device type for autocast in get_autocast_dispatch_key_from_device_type")
    return kind


def is_autocast_available(device_type):
    """Whether autocast can run on this device type (torch.amp.is_autocast_available)."""
    return _device_type(device_type) in _autocast.DEFAULT_DTYPES


# ---- the state functions (torch.is_autocast_enabled, ...) ---------------------------------------

def is_autocast_enabled(device_type=None):
    """With no argument, CUDA's flag (torch's legacy form)."""
    return STATE.enabled.get("cuda" if device_type is None else _checked_type(device_type), False)


def set_autocast_enabled(*args):
    """set_autocast_enabled(device_type, enabled), or the legacy set_autocast_enabled(enabled) for CUDA."""
    if len(args) == 1:
        kind, flag, pos = "cuda", args[0], 1
    elif len(args) == 2:
        kind, flag, pos = _checked_type(args[0]), args[1], 2
    else:
        raise TypeError(f"set_autocast_enabled() takes 1 or 2 arguments ({len(args)} given)")
    if flag.__class__ is not bool:
        raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position {pos}) must be bool, not "
                        f"{type(flag).__name__}")
    _set_enabled(kind, flag)


def get_autocast_dtype(device_type):
    kind = _device_type(device_type)
    if kind not in _autocast.DEFAULT_DTYPES:
        raise RuntimeError("unsupported scalarType")
    return _get_dtype(kind)


def set_autocast_dtype(device_type, dtype):
    from ..dtypes import dtype as _dtype_cls
    kind = _checked_type(device_type)
    if not isinstance(dtype, _dtype_cls):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' (position 2) must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    STATE.dtypes[kind] = dtype


def _deprecated(old, new):
    warnings.warn(f"{old} is deprecated. Please use {new} instead.", DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    _deprecated("torch.is_autocast_cpu_enabled()", "torch.is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _deprecated("torch.set_autocast_cpu_enabled(enabled)", "torch.set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    _deprecated("torch.get_autocast_cpu_dtype()", "torch.get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype():
    _deprecated("torch.get_autocast_gpu_dtype()", "torch.get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_cpu_dtype(dtype):
    _deprecated("torch.set_autocast_cpu_dtype(dtype)", "torch.set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def set_autocast_gpu_dtype(dtype):
    _deprecated("torch.set_autocast_gpu_dtype(dtype)", "torch.set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


def is_autocast_cache_enabled():
    return STATE.cache_enabled


def set_autocast_cache_enabled(enabled):
    STATE.cache_enabled = bool(enabled)


def clear_autocast_cache():
    STATE.cache.clear()


def autocast_increment_nesting():
    STATE.nesting += 1
    return STATE.nesting


def autocast_decrement_nesting():
    STATE.nesting -= 1
    return STATE.nesting


# ---- the context manager ----------------------------------------------------------------------

def _supported_lower(dtype):
    return getattr(dtype, "name", None) in ("bfloat16", "float16")


class autocast:
    """Run the region's ops in mixed precision (torch.autocast): see minigrad/amp/policy.py for
    which ops cast to what. Nestable, usable as a decorator; the state is per thread."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled:
            if device_type == "cuda":
                from .. import cuda
                if not cuda.is_available():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                                  stacklevel=2)
                    enabled = False
                elif getattr(self.fast_dtype, "name", None) == "bfloat16" and not cuda.is_bf16_supported():
                    raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch dtype to "
                                       "float16.")
            elif not _supported_lower(self.fast_dtype):
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                              f"{name} Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                              stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        kind = _device_type(self.device)
        st = STATE
        self.prev_cache_enabled = st.cache_enabled
        self.prev = st.enabled.get(kind, False)
        self.prev_fastdtype = st.dtypes.get(kind)
        _set_enabled(kind, self._enabled)
        st.dtypes[kind] = self.fast_dtype
        st.nesting += 1
        st.cache_enabled = self._cache_enabled
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        kind = _device_type(self.device)
        st = STATE
        st.nesting -= 1
        if st.nesting == 0:  # leaving the outermost region drops the cached weight casts
            st.cache.clear()
        _set_enabled(kind, self.prev)
        if self.prev_fastdtype is None:
            st.dtypes.pop(kind, None)
        else:
            st.dtypes[kind] = self.prev_fastdtype
        st.cache_enabled = self.prev_cache_enabled
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


# ---- custom autograd Functions ------------------------------------------------------------------

def _cast(value, device_type, dtype):
    """Cast the eligible tensors found in value (nested lists, tuples, dicts) to dtype."""
    from ..tensor import Tensor
    from ..dtypes import float64
    if isinstance(value, Tensor):
        ok = value.is_floating_point() and value.device.type == device_type and value.dtype is not float64
        return value.to(dtype) if ok else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorate an autograd.Function's forward: record the autocast state for custom_bwd and,
    with cast_inputs, run forward on inputs cast to that dtype with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        on = is_autocast_enabled(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = on
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not on:
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorate an autograd.Function's backward: run it under forward's autocast state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
