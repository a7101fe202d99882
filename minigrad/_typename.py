"""torch.typename, shared by the error messages of nn and optim."""
from .tensor import Tensor


def typename(obj, tensor_name=None):
    """The qualified class name of obj ('int', 'numpy.ndarray', '__main__.Foo'); for a tensor,
    tensor_name(obj) when given, else its legacy type name ('minigrad.FloatTensor')."""
    if isinstance(obj, Tensor):
        if tensor_name is not None:
            return tensor_name(obj)
        return ("minigrad.cuda." if obj.is_cuda else "minigrad.") + obj.dtype._legacy
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"
