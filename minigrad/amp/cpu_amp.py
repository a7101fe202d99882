"""torch.cpu.amp: the deprecated CPU spellings of autocast and GradScaler."""
import warnings

from . import autocast_mode as _mode
from .grad_scaler import GradScaler as _GradScaler

__all__ = ["autocast", "GradScaler"]


class autocast(_mode.autocast):
    """torch.cpu.amp.autocast(args...): torch.amp.autocast('cpu', args...) (default dtype bfloat16)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        if dtype is None:
            dtype = _cpu_default()
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def _cpu_default():
    from .. import dtypes
    d = getattr(dtypes, "bfloat16", None)
    if d is None:
        raise RuntimeError("torch.cpu.amp.autocast's default dtype is torch.bfloat16, which this minigrad does "
                           "not have; pass dtype=minigrad.float16")
    return d


class GradScaler(_GradScaler):
    """torch.cpu.amp.GradScaler(args...): torch.amp.GradScaler('cpu', args...)."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)
