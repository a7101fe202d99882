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


def tp_name(obj):
    """The type name torch's argument errors print (CPython's tp_name) for obj: 'int', 'NoneType',
    'numpy.ndarray', 'numpy.bool', and a class defined in Python by its bare name ('Tensor')."""
    cls = type(obj)
    if cls.__flags__ & (1 << 9) or cls.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"
