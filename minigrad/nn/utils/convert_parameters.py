"""torch.nn.utils.convert_parameters: the module torch keeps parameters_to_vector and
vector_to_parameters in (both defined in minigrad.nn.utils)."""
from . import parameters_to_vector, vector_to_parameters  # noqa: F401

__all__ = ["parameters_to_vector", "vector_to_parameters"]
