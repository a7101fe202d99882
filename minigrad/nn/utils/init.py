"""torch.nn.utils.skip_init."""
import inspect


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) for a module class that takes a device argument. torch leaves
    the parameters uninitialized; minigrad initializes them as usual (their values are
    unspecified either way, and are meant to be overwritten)."""
    if not (isinstance(module_cls, type) and _is_module(module_cls)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)


def _is_module(cls):
    from ..modules import Module
    return issubclass(cls, Module)
