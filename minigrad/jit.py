"""minigrad.jit: TorchScript's Python API, run eagerly. minigrad has no graph compiler: script and
trace hand back the function or module itself, as torch does with PYTORCH_JIT=0, so programs
written for TorchScript run unchanged as ordinary Python. The decorators (ignore, unused,
export) return what they decorate, fork runs its function at once and returns a finished
Future, is_scripting()/is_tracing() are False. TorchScript archives (jit.save / jit.load)
cannot be written or read: use minigrad.save / minigrad.load."""
import typing

__all__ = ["script", "trace", "trace_module", "ignore", "unused", "export", "is_scripting", "is_tracing",
           "annotate", "Final", "Attribute", "fork", "wait", "Future", "freeze", "optimize_for_inference",
           "ScriptModule", "ScriptFunction", "RecursiveScriptModule", "TracedModule", "TopLevelTracedModule",
           "save", "load", "script_if_tracing", "interface", "CompilationUnit"]

Final = typing.Final


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """obj itself (a function, Module or class), which then runs as Python (PYTORCH_JIT=0)."""
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """func itself: a traced function or module runs its Python on every call (PYTORCH_JIT=0),
    so data-dependent control flow keeps working instead of being frozen into the trace."""
    return func


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
                 strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
                 example_inputs_is_kwarg=False, _store_inputs=True):
    return mod


def script_if_tracing(fn):
    return fn


def interface(obj):
    return obj


def ignore(drop=False, **kwargs):
    """@jit.ignore or @jit.ignore(drop=True): the function, unchanged."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def is_scripting():
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


def Attribute(value, type):  # noqa: A002  (torch's parameter name)
    return value


class Future:
    """The result of fork: already computed (minigrad runs forked work at once, in order)."""

    def __init__(self, value=None, error=None):
        self._value, self._error = value, error

    def done(self):
        return True

    def wait(self):
        if self._error is not None:
            raise self._error
        return self._value

    def value(self):
        return self.wait()

    def then(self, callback):
        try:
            return Future(callback(self))
        except Exception as e:  # the error surfaces at wait(), as with torch's futures
            return Future(error=e)

    def add_done_callback(self, callback):
        callback(self)

    def set_result(self, result):
        self._value, self._error = result, None

    def set_exception(self, result):
        self._error = result


def fork(func, *args, **kwargs):
    """Runs func(*args, **kwargs) now and returns a Future holding its result."""
    return Future(func(*args, **kwargs))


def wait(future):
    return future.wait()


class ScriptModule:  # isinstance targets only: script() returns the Module itself
    pass


class RecursiveScriptModule(ScriptModule):
    pass


class TracedModule(ScriptModule):
    pass


class TopLevelTracedModule(TracedModule):
    pass


class ScriptFunction:
    pass


class CompilationUnit:
    def __init__(self, lang=None, _frames_up=0):
        if lang is not None:
            raise NotImplementedError("minigrad.jit cannot compile TorchScript source: write the functions in Python")


def _check_module(mod, op):
    from .nn import Module
    if not isinstance(mod, Module):
        raise RuntimeError(f"{op} expects a ScriptModule as input. Please use torch.jit.script or torch.jit.trace "
                           "to script your 'nn.Module'.")


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """The module itself: there is no graph to fold constants into. As torch, only a module in
    eval mode may be frozen."""
    _check_module(mod, "Freezing")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call .eval() "
                           "on your module before freezing.")
    return mod


def optimize_for_inference(mod, other_methods=None):
    """The module, switched to eval mode (what torch freezes before optimizing)."""
    _check_module(mod, "optimize_for_inference")
    return freeze(mod.eval(), preserved_attrs=other_methods)


def save(m, f, _extra_files=None):
    raise NotImplementedError("minigrad.jit.save: minigrad writes no TorchScript archives; save the module's "
                              "state_dict with minigrad.save(module.state_dict(), f) instead")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise NotImplementedError("minigrad.jit.load: minigrad reads no TorchScript archives; load a state_dict "
                              "saved with minigrad.save using minigrad.load(f) instead")
