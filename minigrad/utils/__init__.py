"""minigrad.utils: helpers around the engine, as torch.utils (data loading lives in minigrad.utils.data)."""
from . import data

__all__ = ["data"]  # imported so that `minigrad.utils.data` works after `import minigrad`
