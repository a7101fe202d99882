"""minigrad.backends.mps: torch.backends.mps. minigrad has no Metal backend."""

__all__ = ["is_available", "is_built"]


def is_available():
    return False


def is_built():
    return False
