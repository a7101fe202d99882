"""minigrad.backends.cudnn: torch.backends.cudnn's flags.

minigrad never calls cuDNN (its convolutions run in its own kernels, kernels/*.cu), so
is_available() is False and version() None, as in a PyTorch built without cuDNN. The flags are
stored and read back with torch's defaults and type checks; they change nothing in minigrad.
"""
import sys
import types

__all__ = ["is_available", "version", "enabled", "benchmark", "deterministic", "allow_tf32"]

_FLAGS = {"enabled": True, "benchmark": False, "deterministic": False, "allow_tf32": True}
# the names of torch's C setters, which its type errors print (allow_tf32's is cuBLAS's, as in torch)
_SETTERS = {"enabled": "set_enabled_cudnn", "benchmark": "set_benchmark_cudnn",
            "deterministic": "set_deterministic_cudnn", "allow_tf32": "set_allow_tf32_cublas"}


def is_available():
    """False: minigrad does not use cuDNN."""
    return False


def version():
    """None: no cuDNN is linked."""
    return None


def _flag_property(name):
    def get(self):
        return _FLAGS[name]

    def set(self, value):
        if value.__class__ is not bool:
            raise RuntimeError(f"{_SETTERS[name]} expects a bool, but got {type(value).__name__}")
        _FLAGS[name] = value
    return property(get, set)


class CudnnModule(types.ModuleType):
    """The module's class, as torch's: its flags are properties with type checks."""


for _name in _FLAGS:
    setattr(CudnnModule, _name, _flag_property(_name))

sys.modules[__name__].__class__ = CudnnModule
