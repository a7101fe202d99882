"""minigrad.cpu: the parts of torch.cpu minigrad has (the CPU is always there; torch.cpu.amp)."""
import sys

from .amp import cpu_amp as amp

sys.modules[__name__ + ".amp"] = amp


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    """The CPU runs synchronously: nothing to wait for."""
