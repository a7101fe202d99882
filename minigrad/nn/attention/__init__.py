"""minigrad.nn.attention: SDPBackend and the sdpa_kernel context manager, as torch.nn.attention.

torch picks one of several kernels for F.scaled_dot_product_attention (math, flash, memory-
efficient, cuDNN) and sdpa_kernel restricts that choice. minigrad has a single implementation
(minigrad/ops/attention.py) on every device, so sdpa_kernel validates its argument like torch,
sets torch.backends.cuda's enable_*_sdp switches for the duration of the block and restores them
after, and otherwise changes nothing: the result is the same whichever backends are named. Only
a block that enables none of the backends torch has for the device (on the CPU: math and flash)
makes attention raise torch's "No viable backend" error.
"""
import contextlib
import enum

from ...backends import cuda as _cuda
from . import bias  # noqa: F401  (causal_upper_left, causal_lower_right)

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

# torch warns why a fused kernel was not used when this is True; minigrad uses no fused kernel
WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """The attention kernels torch can choose between (names and values as torch's)."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value

    __index__ = __int__


# the torch.backends.cuda switch each backend stands for (ERROR and OVERRIDEABLE have none there)
_SWITCH = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash",
           SDPBackend.EFFICIENT_ATTENTION: "mem_efficient", SDPBackend.CUDNN_ATTENTION: "cudnn"}
_priority = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH,
             SDPBackend.CUDNN_ATTENTION, SDPBackend.OVERRIDEABLE]


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Enable only `backends` (an SDPBackend or a list of them) for scaled_dot_product_attention
    inside the block; with set_priority=True their order is also recorded as the preference.
    In minigrad this selects no kernel (see the module doc)."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
                             f"got {type(backends).__name__}")
    chosen = [backends] if isinstance(backends, SDPBackend) else [b for b in backends if isinstance(b, SDPBackend)]
    saved = dict(_cuda._sdp), list(_priority)
    try:
        for backend, key in _SWITCH.items():
            _cuda._sdp[key] = backend in chosen
        if set_priority:
            _priority[:] = chosen + [b for b in _priority if b not in chosen]
        yield {}
    finally:
        _cuda._sdp.clear()
        _cuda._sdp.update(saved[0])
        _priority[:] = saved[1]
