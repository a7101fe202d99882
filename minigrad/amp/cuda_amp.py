"""torch.cuda.amp: the deprecated CUDA spellings of autocast, custom_fwd/bwd and GradScaler."""
import functools
import warnings

from . import autocast_mode as _mode
from .grad_scaler import GradScaler as _GradScaler, OptState  # noqa: F401

__all__ = ["autocast", "custom_fwd", "custom_bwd", "GradScaler"]


def _warn(old, new):
    warnings.warn(f"`{old}` is deprecated. Please use `{new}` instead.", FutureWarning, stacklevel=3)


class autocast(_mode.autocast):
    """torch.cuda.amp.autocast(args...): torch.amp.autocast('cuda', args...)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        _warn("torch.cuda.amp.autocast(args...)", "torch.amp.autocast('cuda', args...)")
        if dtype is None:
            from .. import dtypes
            dtype = dtypes.float16
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    _warn("torch.cuda.amp.custom_fwd(args...)", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return functools.partial(_mode.custom_fwd, device_type="cuda")(fwd=fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd):
    _warn("torch.cuda.amp.custom_bwd(args...)", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return functools.partial(_mode.custom_bwd, device_type="cuda")(bwd)


class GradScaler(_GradScaler):
    """torch.cuda.amp.GradScaler(args...): torch.amp.GradScaler('cuda', args...)."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        _warn("torch.cuda.amp.GradScaler(args...)", "torch.amp.GradScaler('cuda', args...)")
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)


def amp_definitely_not_available():
    from .. import cuda
    return not cuda.is_available()
