"""torch.compile and torch.compiler, for programs written against them.

minigrad has no graph compiler: `minigrad.compile(model)` runs the model eagerly, exactly as the
uncompiled model runs, with the same results and gradients. What it returns looks to the user as
torch's does: a module becomes an OptimizedModule wrapping it (`_orig_mod`, state_dict keys
prefixed `_orig_mod.`, parameters shared, attribute reads and writes forwarded to the model), a
function becomes a function calling it. The arguments torch checks before compiling (mode,
options, backend, a callable model) get torch's errors; the rest (fullgraph, dynamic, options'
contents, ...) are accepted and have nothing to act on.
"""
import functools

from .nn.modules.module import Module

__all__ = ["compile", "disable", "reset", "is_compiling", "is_dynamo_compiling", "is_exporting",
           "list_backends", "OptimizedModule", "InvalidBackend"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# the backends torch registers (torch._dynamo.list_backends(exclude_tags=())); all run eagerly here
_BACKENDS = ("aot_eager", "aot_eager_decomp_partition", "aot_eager_decomp_partition_crossref",
             "aot_eager_decomp_partition_with_mode", "aot_eager_default_partitioner", "aot_ts", "cudagraphs",
             "eager", "eager_debug", "eager_noexcept", "inductor", "invoke_subgraph", "openxla", "openxla_eval",
             "pre_dispatch_eager", "ts", "tvm")
_LISTED = ("cudagraphs", "inductor", "openxla", "tvm")  # those without torch's debug/experimental tags


class InvalidBackend(RuntimeError):
    """torch._dynamo.exc.InvalidBackend: a backend name torch does not know."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `minigrad.compiler.list_backends()` for available "
                         "backends.")


def list_backends(exclude_tags=("debug", "experimental")):
    """The backend names compile() accepts (torch's list; each runs the model eagerly here)."""
    return sorted(_LISTED if exclude_tags else _BACKENDS)


class OptimizedModule(Module):
    """What compile(module) returns: a module wrapping the compiled one, as torch's
    torch._dynamo.eval_frame.OptimizedModule (calling it calls the wrapped module)."""

    _opt_mod_attributes = {"_orig_mod", "forward", "_forward", "__dict__", "_super_module_initialized",
                           "_compile_options"}

    def __init__(self, mod, options=None):
        # first, as torch's: every attribute access below goes through _orig_mod
        object.__setattr__(self, "_orig_mod", mod)
        self._super_module_initialized = False
        super().__init__()
        self._super_module_initialized = True
        self._orig_mod = mod  # registered as the only child: state_dict keys get "_orig_mod."
        self._compile_options = dict(options or {})

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)  # the module's own __call__: its hooks run

    @property
    def training(self):
        return self._orig_mod.training

    @training.setter
    def training(self, value):
        if self.__dict__.get("_super_module_initialized"):
            self._orig_mod.training = value

    def __len__(self):
        if hasattr(type(self._orig_mod), "__len__"):
            return len(self._orig_mod)
        raise TypeError(f"{type(self._orig_mod).__name__} does not support len()")

    def __getattr__(self, name):
        d = self.__dict__
        if "_orig_mod" not in d:  # while unpickling, before the state is back
            raise AttributeError(name)
        return getattr(d["_orig_mod"], name)

    def __setattr__(self, name, value):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__delattr__(name)
        return delattr(self._orig_mod, name)

    def __reduce__(self):
        return (self.__class__, (self._orig_mod, self._compile_options))

    def __dir__(self):
        own = dir(self._orig_mod)
        return own + [a for a in super().__dir__() if a not in own]


def _check(backend, mode, options):
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is None and options is None:
        mode = "default"
    if backend is None:
        backend = "inductor"
    if isinstance(backend, str):
        if backend not in _BACKENDS:
            raise InvalidBackend(backend)
        if backend == "inductor" and mode is not None and mode not in _MODES:
            raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None, name=None,
            disable=False, recompile_limit=None, isolate_recompiles=False, shapes_spec=None):
    """torch.compile: model (a module or a function) ready to run; here it runs eagerly, unchanged.
    Without a model, a decorator taking these options: @compile and @compile(mode=...) both work."""
    if model is None:
        def decorate(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, name=name, disable=disable, recompile_limit=recompile_limit,
                           isolate_recompiles=isolate_recompiles, shapes_spec=shapes_spec)
        return decorate
    _check(backend, mode, options)
    if disable:
        return model
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if isinstance(model, Module):
        return OptimizedModule(model, {"fullgraph": fullgraph, "dynamic": dynamic, "backend": backend,
                                       "mode": mode, "options": options})
    return _calling(model)


def _calling(fn):
    @functools.wraps(fn)
    def compiled(*args, **kwargs):
        return fn(*args, **kwargs)
    return compiled


def disable(fn=None, recursive=True, *, reason=None):
    """torch.compiler.disable: fn, excluded from compilation (a function calling it; a module is
    returned as it is). Without fn, a decorator."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)
    if isinstance(fn, Module):
        return fn
    return _calling(fn)


def reset():
    """torch.compiler.reset: clears compilation caches; minigrad keeps none."""
    return None


def is_compiling():
    """False: minigrad never traces a program (code runs eagerly, also under compile)."""
    return False


def is_dynamo_compiling():
    return False


def is_exporting():
    return False
