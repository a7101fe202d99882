"""minigrad.utils: helpers around the engine, as torch.utils (data loading lives in minigrad.utils.data)."""
from . import data
from . import checkpoint  # noqa: F401  (torch.utils.checkpoint)
from . import dlpack  # noqa: F401  (torch.utils.dlpack)
from . import benchmark  # noqa: F401  (torch.utils.benchmark: Timer)

# imported so that `minigrad.utils.data` (and the others) work after `import minigrad`
__all__ = ["data", "checkpoint", "dlpack", "benchmark"]
