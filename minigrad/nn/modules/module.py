"""nn.Module: parameters, buffers and submodules registered by attribute, as torch.nn.Module."""
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
import functools
import itertools
import warnings
import weakref

from ...autograd.function import _SCOPE_CELL, scope_cell
from ...autograd.grad_mode import no_grad, _grad_enabled
from ...autograd.function import Function
from ...devices import canonical
from ... import dtypes as _dt
from ...tensor import Tensor, to_args
from ..._typename import typename as _typename
from ..parameter import Buffer, Parameter, is_lazy

_cell_get = _SCOPE_CELL.get

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns; prints as torch's `<All keys matched successfully>` when
    nothing is missing or unexpected."""
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """What register_*_hook returns: `.remove()` unregisters the hook (also as a context manager)."""
    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self._hooks = hooks_dict
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        if extra_dict is None:
            extra_dict = ()
        elif isinstance(extra_dict, dict):
            extra_dict = (extra_dict,)
        self._extra = tuple(extra_dict)

    def remove(self):
        self._hooks.pop(self.id, None)
        for d in self._extra:
            d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()




class _WrappedHook:
    """A hook called with its module first (held weakly, as torch's), or as it is."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if module is not None:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self):
        result = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            result["module"] = self.module()
        return result

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


class _Registry(dict):
    """A Module's `_parameters`, `_buffers` or `_modules`. Every write is mirrored into the
    module's instance `__dict__`, so `self.weight` in a forward is a plain attribute lookup;
    torch finds registered names through `__getattr__`, which costs a failed lookup and a Python
    call on every access. Code that edits the dicts directly keeps the mirror right too."""
    __slots__ = ("_owner",)

    def __init__(self, owner, items=()):
        dict.__init__(self)
        self._owner = owner
        for k, v in items:
            self[k] = v

    def __setitem__(self, key, value):
        dict.__setitem__(self, key, value)
        self._owner.__dict__[key] = value

    def __delitem__(self, key):
        dict.__delitem__(self, key)
        self._owner.__dict__.pop(key, None)

    def pop(self, key, *default):
        if key in self:
            self._owner.__dict__.pop(key, None)
        return dict.pop(self, key, *default)

    def popitem(self):
        key, value = dict.popitem(self)
        self._owner.__dict__.pop(key, None)
        return key, value

    def clear(self):
        d = self._owner.__dict__
        for key in self:
            d.pop(key, None)
        dict.clear(self)

    def update(self, *args, **kwargs):
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return dict.__getitem__(self, key)

    def __reduce_ex__(self, protocol):
        return (_Registry, (self._owner, list(self.items())))


def _addindent(s, num_spaces):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    pad = " " * num_spaces
    # as torch: blank lines stay empty, not indented
    return lines[0] + "\n" + "\n".join(pad + line if line.strip() else "" for line in lines[1:])


class Module:
    """Base class of all layers and models: subclass it, build layers in `__init__`, compute
    in `forward`, and call the instance."""
    training = True
    call_super_init = False  # as torch's: True passes __init__'s arguments on (cooperative classes)
    _is_full_backward_hook = None  # set by the first register_(full_)backward_hook
    # True once a hook was registered on the module (in its __dict__), or while a global module
    # hook is set (on the class): __call__ then takes the hooks path, at the cost of one lookup
    _has_hooks = False
    _version = 1

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if self.call_super_init is False and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = _Registry(self)
        d["_buffers"] = _Registry(self)
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = _Registry(self)
        for key in _HOOK_DICTS:
            d[key] = OrderedDict()
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- calling ------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        cell = _cell_get(None)
        if cell is None:
            cell = scope_cell()
        outer = cell[0]
        cell[0] = (self, outer)  # nodes recorded in forward note the modules running
        try:
            if self._has_hooks:
                return self._call_with_hooks(args, kwargs)
            return self.forward(*args, **kwargs)
        finally:
            cell[0] = outer

    def _call_with_hooks(self, args, kwargs):
        """torch's _call_impl with hooks (the module's and the global ones): forward pre-hooks may
        replace the arguments, forward hooks the result; full backward hooks wrap the tensors going
        in and out in BackwardHookFunction nodes; when the forward (or a hook) raises, the hooks
        registered with always_call=True that have not run yet still run, and the error propagates."""
        result = None
        called_always = set()
        try:
            full_backward_hooks, non_full_backward_hooks = [], []
            backward_pre_hooks = []
            if self._backward_pre_hooks or _global_backward_pre_hooks:
                backward_pre_hooks = self._get_backward_pre_hooks()
            if self._backward_hooks or _global_backward_hooks:
                full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()
            if _global_forward_pre_hooks or self._forward_pre_hooks:
                pre_kw = self._forward_pre_hooks_with_kwargs
                for hook_id, hook in (*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
                    if hook_id in pre_kw:
                        res = hook(self, args, kwargs)
                        if res is not None:
                            if not (isinstance(res, tuple) and len(res) == 2):
                                raise RuntimeError("forward pre-hook must return None or a tuple of "
                                                   f"(new_args, new_kwargs), but got {res}.")
                            args, kwargs = res
                    else:
                        res = hook(self, args)
                        if res is not None:
                            args = res if isinstance(res, tuple) else (res,)
            bw_hook = None
            if full_backward_hooks or backward_pre_hooks:
                bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            if _global_forward_hooks or self._forward_hooks:
                with_kw, always = self._forward_hooks_with_kwargs, self._forward_hooks_always_called
                for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                    if hook_id in always or hook_id in _global_forward_hooks_always_called:
                        called_always.add(hook_id)
                    if hook_id in with_kw or hook_id in _global_forward_hooks_with_kwargs:
                        res = hook(self, args, kwargs, result)
                    else:
                        res = hook(self, args, result)
                    if res is not None:
                        result = res
            if bw_hook:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a Tensor or a "
                                  f"tuple of Tensors but received {type(result)}", stacklevel=2)
                result = bw_hook.setup_output_hook(result)
            if non_full_backward_hooks:
                var = result
                while not isinstance(var, Tensor):
                    if isinstance(var, dict):
                        var = next(v for v in var.values() if isinstance(v, Tensor))
                    else:
                        var = var[0]
                grad_fn = var.grad_fn
                if grad_fn is not None:
                    for hook in non_full_backward_hooks:
                        grad_fn.register_hook(_WrappedHook(hook, self))
                    self._maybe_warn_non_full_backward_hook(args, result, grad_fn)
            return result
        except Exception:
            for hook_id, hook in _global_forward_hooks.items():
                if hook_id in _global_forward_hooks_always_called and hook_id not in called_always:
                    try:
                        res = hook(self, args, result)
                        if res is not None:
                            result = res
                    except Exception as e:
                        warnings.warn("global module forward hook with ``always_call=True`` raised an "
                                      "exception that was silenced as another error was raised in forward: "
                                      f"{e}", stacklevel=2)
            with_kw = self._forward_hooks_with_kwargs
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called and hook_id not in called_always:
                    try:
                        res = hook(self, args, kwargs, result) if hook_id in with_kw else \
                            hook(self, args, result)
                        if res is not None:
                            result = res
                    except Exception as e:
                        warnings.warn("module forward hook with ``always_call=True`` raised an exception "
                                      f"that was silenced as another error was raised in forward: {e}",
                                      stacklevel=2)
            raise

    # ---- backward hooks -----------------------------------------------------------
    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) -> new grad_output or None, before the gradients with respect
        to the module's inputs are computed."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        self.__dict__["_has_hooks"] = True
        return handle

    def register_backward_hook(self, hook):
        """Deprecated (torch's non-full hook): hook(module, grad_input, grad_output) on the grad_fn of
        the module's output, whose grad_input are that one node's gradients."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single "
                               "Module. Please use only one of them.")
        self.__dict__["_is_full_backward_hook"] = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        self.__dict__["_has_hooks"] = True
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) -> new grad_input or None, once the gradients with
        respect to the module's inputs are computed (with respect to its outputs when no input
        requires grad)."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single "
                               "Module. Please use only one of them.")
        self.__dict__["_is_full_backward_hook"] = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        self.__dict__["_has_hooks"] = True
        return handle

    def _get_backward_hooks(self):
        full, non_full = [], []
        if _global_is_full_backward_hook[0] is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if _global_is_full_backward_hook[0] is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
        if not isinstance(result, Tensor):
            if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
                warnings.warn("Using non-full backward hooks on a Module that does not return a single Tensor "
                              "or a tuple of Tensors is deprecated and will be removed in future versions. "
                              "This hook will be missing some of the grad_output. Please use "
                              "register_full_backward_hook to get the documented behavior.",
                              FutureWarning, stacklevel=2)
                return
        else:
            result = (result,)
        if not isinstance(inputs, Tensor):
            if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
                warnings.warn("Using non-full backward hooks on a Module that does not take as input a single "
                              "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                              "versions. This hook will be missing some of the grad_input. Please use "
                              "register_full_backward_hook to get the documented behavior.",
                              FutureWarning, stacklevel=2)
                return
        else:
            inputs = (inputs,)
        out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
        if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
            warnings.warn("Using a non-full backward hook when outputs are nested in python data structure is "
                          "deprecated and will be removed in future versions. This hook will be missing some "
                          "grad_output.", FutureWarning, stacklevel=2)
        elif len(out_grad_fn) > 1:
            warnings.warn("Using a non-full backward hook when outputs are generated by different autograd Nodes "
                          "is deprecated and will be removed in future versions. This hook will be missing some "
                          "grad_output. Please use register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=2)
        else:
            inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
            next_functions = {n[0] for n in grad_fn.next_functions}
            if inputs_grad_fn != next_functions:
                warnings.warn("Using a non-full backward hook when the forward contains multiple autograd Nodes "
                              "is deprecated and will be removed in future versions. This hook will be missing "
                              "some grad_input. Please use register_full_backward_hook to get the documented "
                              "behavior.", FutureWarning, stacklevel=2)

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        self.__dict__["_has_hooks"] = True
        return handle

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs), with the module first when with_module, runs at the start of this module's
        _load_from_state_dict (lazy modules materialize their parameters there)."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(hook, self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        handle = RemovableHandle(self._forward_hooks, extra_dict=[self._forward_hooks_with_kwargs,
                                                                  self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        self.__dict__["_has_hooks"] = True
        return handle

    # ---- registration -------------------------------------------------------------
    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            if name not in params:  # a reassigned parameter keeps its place, as in torch's dict
                d.pop(name, None)
            d["_buffers"].pop(name, None)
            d["_modules"].pop(name, None)
            d["_non_persistent_buffers_set"].discard(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            modules = d.get("_modules")
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            if name not in modules:  # a replaced submodule keeps its place
                d.pop(name, None)
            params.pop(name, None)
            d["_buffers"].pop(name, None)
            d["_non_persistent_buffers_set"].discard(name)
            modules[name] = value
        elif params is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            d["_modules"][name] = value
        else:
            buffers = d.get("_buffers")
            if isinstance(value, Buffer) or buffers is not None and name in buffers:
                if value is not None and not isinstance(value, Tensor):
                    raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                    "(torch.nn.Buffer, torch.Tensor or None expected)")
                if isinstance(value, Buffer):
                    persistent = value.persistent
                else:
                    persistent = name not in d["_non_persistent_buffers_set"]
                if type(self).register_buffer is Module.register_buffer:
                    self.register_buffer(name, value, persistent)
                else:  # a subclass's register_buffer may predate the persistent argument
                    import inspect
                    if "persistent" in inspect.signature(self.register_buffer).parameters:
                        self.register_buffer(name, value, persistent)
                    elif not persistent:
                        raise RuntimeError("Registering a non-persistent buffer on a Module subclass "
                                           "that implements register_buffer() without the persistent "
                                           "argument is not allowed.")
                    else:
                        self.register_buffer(name, value)
            else:
                object.__setattr__(self, name, value)

    def __delattr__(self, name):
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            if name in d.get(key, ()):
                del d[key][name]
                if key == "_buffers":
                    d["_non_persistent_buffers_set"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(super().__dir__())
        keys += list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(set(k for k in keys if not k[0].isdigit()))

    def _registry_for(self, kind, name):
        """The registry of `kind` ("parameter" or "buffer") that may take `name`, after torch's
        checks on it, in torch's order and words."""
        d = self.__dict__
        key = "_parameters" if kind == "parameter" else "_buffers"
        if key not in d:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in d[key]:
            raise KeyError(f"attribute '{name}' already exists")
        return d[key]

    def register_parameter(self, name, param):
        params = self._registry_for("parameter", name)
        if param is None:
            params[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters "
                             f"must be created explicitly. To express '{name}' as a function of another "
                             "Tensor, compute the value in the forward() method.")
        params[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        buffers = self._registry_for("buffer", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        d = self.__dict__
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if "_modules" not in d:
            raise AttributeError("cannot assign module before Module.__init__() call")
        if hasattr(self, name) and name not in d["_modules"]:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        d["_modules"][name] = module

    register_module = add_module

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`" + "module" + f"` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]):
            mod = getattr(parent, atoms[-1])
            if not isinstance(mod, Module):
                raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target):
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    # ---- traversal ----------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        # torch's recursive pre-order walk, with a stack (deep nesting needs no recursion)
        if memo is None:
            memo = set()
        stack = [(prefix, self)]
        while stack:
            pfx, mod = stack.pop()
            if mod in memo:
                continue
            if remove_duplicate:
                memo.add(mod)
            yield pfx, mod
            children = [(pfx + ("." if pfx else "") + name, m) for name, m in mod._modules.items()
                        if m is not None]
            stack.extend(reversed(children))

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        memo = set()
        for name, m in self._modules.items():
            if m is not None and m not in memo:
                memo.add(m)
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, store, prefix, recurse, remove_duplicate):
        memo = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for mpfx, mod in mods:
            for name, v in mod.__dict__[store].items():
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield mpfx + ("." if mpfx else "") + name, v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ---- state --------------------------------------------------------------------
    def get_extra_state(self):
        """Override (with set_extra_state) to put a `<prefix>_extra_state` entry in state_dict."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called.")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        if getattr(type(self), "get_extra_state", Module.get_extra_state) is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:  # the old positional form state_dict(destination, prefix, keep_vars)
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        # torch's per-module metadata, keyed by the module's prefix without its trailing dot
        metadata = getattr(destination, "_metadata", None)
        local_metadata = {"version": self._version}
        if metadata is not None:
            metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if result is not None:  # the private form's result replaces the state dict
                    destination = result
            elif result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _register_state_dict_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata), run after the module's state_dict
        is filled in; a result other than None replaces it (torch's private form)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook that was "
                               "previously registered via register_state_dict_post_hook")
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) -> None, after the module's state_dict
        is filled in (it may change it in place)."""
        hook._from_public_api = True
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars) -> None, before the module's state_dict is made."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) -> None, after load_state_dict has loaded this module
        and its children; it may change incompatible_keys' lists in place."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Copy this module's own entries of state_dict (keys prefix + name) into its parameters
        and persistent buffers, appending to the three lists what is missing, unexpected or wrong:
        torch's method of the same name and signature, which subclasses may override."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent = [(k, v) for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set]
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent)
                       if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor '
                                  f"or Tensor-like object from checkpoint but received {type(input_param)}")
                continue
            # an uninitialized parameter (a lazy module's) takes any shape: its pre-hook has
            # materialized it from the checkpoint's, or copies an uninitialized one (no shape)
            param_lazy = is_lazy(param)
            if not param_lazy and len(param.shape) == 0 and len(input_param.shape) == 1 \
                    and input_param.shape[0] == 1:
                input_param = input_param[0]  # an old checkpoint's 1-element vector for a scalar
            if not param_lazy and input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} "
                                  f"from checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            if not isinstance(input_param, Parameter):
                                input_param = Parameter(input_param, requires_grad=param.requires_grad)
                            else:
                                input_param.requires_grad_(param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the '
                                  f"model are {param.size()} and whose dimensions in the checkpoint are "
                                  f"{input_param.size()}, an exception occurred : {ex.args}.")
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if getattr(type(self), "set_extra_state", Module.set_extra_state) is not Module.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:  # a dotted name must belong to a submodule
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing,
                                         unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                    load(child, child_state, child_prefix)
            incompatible_keys = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible_keys) is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                         "expected to return new values, if incompatible_keys need to be "
                                         "modified, it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # ---- modes --------------------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():  # each child's own train(), which a subclass may override
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p._grad is None:
                continue
            if set_to_none:
                p._grad = None
            else:
                g = p._grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ---- devices and dtypes -----------------------------------------------------------
    def _apply(self, fn):
        """Replace every parameter's and buffer's memory by fn(tensor), keeping the Parameter
        objects (so an optimizer made before .to() still holds this model's parameters)."""
        for m in self.modules():
            for name, p in m._parameters.items():
                if p is None:
                    continue
                with no_grad():
                    new = fn(p)
                if new is not p:
                    p._data, p._device = new._data, new._device
                if p._grad is not None:
                    with no_grad():
                        g = fn(p._grad)
                    if g is not p._grad:
                        p._grad = g
            for name, b in m._buffers.items():
                if b is not None:
                    with no_grad():
                        m._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs):
        device, dtype, _, copy = to_args(args, kwargs)
        if copy:
            raise RuntimeError(".to() does not accept copy argument")
        if dtype is not None:
            dtype = _dt.to_dtype(dtype)
            if not dtype.is_floating_point:
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                                f"desired dtype={dtype}")
        if device is not None:
            device = canonical(device)

        def convert(t):
            if dtype is not None and t.is_floating_point():
                t = t.to(dtype)
            if device is not None:
                t = t.to(device)
            return t
        return self._apply(convert)

    def cuda(self, device=None):
        from ...devices import device as _device_cls
        if device is None:
            dev = canonical("cuda")
        else:
            dev = canonical(_device_cls("cuda", device) if isinstance(device, int) else device)
        return self._apply(lambda t: t.to(dev))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        raise TypeError("bfloat16(): minigrad has no bfloat16 dtype; use float() or double()")

    def type(self, dst_type):
        return self._apply(lambda t: t.to(dst_type))

    # ---- printing -----------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, m in self._modules.items():
            lines.append(f"({name}): " + _addindent(repr(m), 2))
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    # ---- copying ------------------------------------------------------------------------
    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        self.__dict__.update(state)
        d = self.__dict__
        # modules pickled before the hooks took torch's layout: {id: (hook, with_kwargs)}
        for key in _HOOK_DICTS:
            d.setdefault(key, OrderedDict())
        if any(d[key] for key in _HOOK_DICTS if "hooks" in key):
            d["_has_hooks"] = True
        for hooks, kw in ((d["_forward_hooks"], d["_forward_hooks_with_kwargs"]),
                          (d["_forward_pre_hooks"], d["_forward_pre_hooks_with_kwargs"])):
            for hook_id, entry in list(hooks.items()):
                if isinstance(entry, tuple) and len(entry) == 2 and callable(entry[0]):
                    hooks[hook_id] = entry[0]
                    if entry[1]:
                        kw[hook_id] = True


_HOOK_DICTS = ("_forward_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
               "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_load_state_dict_pre_hooks",
               "_state_dict_hooks", "_backward_hooks", "_backward_pre_hooks", "_state_dict_pre_hooks",
               "_load_state_dict_post_hooks")

# ---- global module hooks (torch.nn.modules.module.register_module_*_hook) ----------------
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = [None]
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()
_GLOBAL_HOOKS = (_global_backward_pre_hooks, _global_backward_hooks, _global_forward_pre_hooks,
                 _global_forward_hooks)


class _GlobalHandle(RemovableHandle):
    def remove(self):
        super().remove()
        Module._has_hooks = any(_GLOBAL_HOOKS)


def _global_handle(hooks, hook, extra_dict=None):
    handle = _GlobalHandle(hooks, extra_dict=extra_dict)
    hooks[handle.id] = hook
    Module._has_hooks = True
    return handle


def register_module_forward_pre_hook(hook):
    """A forward pre-hook for every module: hook(module, input) -> None or modified input."""
    return _global_handle(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """A forward hook for every module: hook(module, input, output) -> None or modified output."""
    handle = _global_handle(_global_forward_hooks, hook, extra_dict=_global_forward_hooks_always_called)
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_backward_hook(hook):
    """Deprecated: a non-full backward hook for every module."""
    if _global_is_full_backward_hook[0] is True:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module "
                           "hook. Please use only one of them.")
    _global_is_full_backward_hook[0] = False
    return _global_handle(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook):
    """A full backward pre-hook for every module, run before the modules' own."""
    return _global_handle(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """A full backward hook for every module, run before the modules' own."""
    if _global_is_full_backward_hook[0] is False:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module "
                           "hook. Please use only one of them.")
    _global_is_full_backward_hook[0] = True
    return _global_handle(_global_backward_hooks, hook)


class BackwardHookFunction(Function):
    """The identity node (BackwardHookFunctionBackward) a module with full backward hooks puts on
    the tensors going into and out of its forward."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


class BackwardHook:
    """torch.utils.hooks.BackwardHook: runs a module's full backward (pre-)hooks from node hooks on
    the BackwardHookFunction nodes of its outputs (grad_output) and of its inputs (grad_input)."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    def _pack_with_none(self, indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    def _unpack_none(self, indices, values):
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:
                # the gradient reached the inputs without passing through the outputs (double backward)
                return None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        tensors_idx, tensors = [], []
        requires_grad = False
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg.requires_grad
        if not (requires_grad and _grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors
                    if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if len(grad_fns) == 0:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue with a code "
                               "sample to reproduce this.")
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        if type(args) is tuple:
            out = tuple(arg_list)
        else:
            out = type(args)(*arg_list)
        return out, tensors_idx

    def setup_input_hook(self, args):
        def fn(grad_fn):
            self._set_user_hook(grad_fn)

        res, input_idx = self._apply_on_tensors(fn, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        def fn(grad_fn):
            def hook(_, grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                         self.n_outputs)
                if self.user_pre_hooks:
                    expected_len = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                        if hook_grad_outputs is None:
                            continue
                        actual_len = len(hook_grad_outputs)
                        if actual_len != expected_len:
                            raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                               f"got {actual_len}, but expected {expected_len}")
                        self.grad_outputs = hook_grad_outputs
                local_grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:
                    # no input requires grad: the hooks fire here, with grad_input all None
                    warnings.warn("Full backward hook is firing when gradients are computed with respect to "
                                  "module outputs since no inputs require gradients. See "
                                  "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                                  "#torch.nn.Module.register_full_backward_hook for more details.",
                                  stacklevel=5)
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                            raise RuntimeError("Backward hook for Modules where no input requires gradient "
                                               "should always return None or None for all gradients.")
                    self.grad_outputs = None
                if local_grad_outputs is not None:
                    return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
                return None

            grad_fn.register_hook(hook)

        is_tuple = True
        if not isinstance(args, tuple):
            args = (args,)
            is_tuple = False
        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        if not is_tuple:
            res = res[0]
        return res


def _replica_registries(r, parameters, buffers, modules):
    """Give module copy r its own registries (a shallow copy shares the original's)."""
    d = r.__dict__
    for key, items in (("_parameters", parameters), ("_buffers", buffers), ("_modules", modules)):
        for name in d[key]:
            d.pop(name, None)
        d[key] = _Registry(r, items)
