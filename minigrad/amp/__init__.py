"""torch.amp: autocast regions and gradient scaling (see autocast_mode.py, policy.py, grad_scaler.py)."""
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler
from . import cuda_amp, cpu_amp  # noqa: F401  (torch.cuda.amp, torch.cpu.amp)

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
