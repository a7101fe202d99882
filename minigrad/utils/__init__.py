"""minigrad.utils: helpers around the engine, as torch.utils (data loading lives in minigrad.utils.data)."""
from . import data
from . import checkpoint  # noqa: F401  (torch.utils.checkpoint)

__all__ = ["data", "checkpoint"]  # imported so that `minigrad.utils.data` works after `import minigrad`
