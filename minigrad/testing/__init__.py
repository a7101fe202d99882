"""minigrad.testing (torch.testing): assert_close, make_tensor and the deprecated assert_allclose."""
from ._comparison import assert_close, assert_allclose  # noqa: F401
from ._creation import make_tensor  # noqa: F401

__all__ = ["assert_close", "make_tensor", "assert_allclose"]
