"""nn.Module: the base class of layers and models.

A module owns three registries (parameters, buffers, submodules) that are filled by plain
attribute assignment, plus a set of hook tables. Everything else here is built on walking those
registries: the named_* generators, state_dict / load_state_dict, train/eval, .to() and friends,
and the printed form. The behaviour follows torch.nn.Module (tests compare the two); the layout
is minigrad's, chosen so that calling a module and reading its attributes stay cheap:

- each registry mirrors its entries into the instance __dict__ (see _Registry), so
  `self.weight` never reaches a Python-level __getattr__;
- `__call__` goes straight to forward() unless the module (or the class, for global hooks)
  has its `_has_hooks` flag up; the hooked path lives in _HookedForward.
"""
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
_MISSING = object()

# state_dict key (after the module's prefix) of what get_extra_state returns
_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """load_state_dict's result. When both lists are empty it prints as
    `<All keys matched successfully>`, otherwise as the namedtuple it is."""
    __slots__ = ()

    def __repr__(self):
        if self.missing_keys or self.unexpected_keys:
            return super().__repr__()
        return "<All keys matched successfully>"

    __str__ = __repr__


# ---- hook bookkeeping ----------------------------------------------------------------------

class RemovableHandle:
    """Returned by every register_*_hook: `remove()` deletes the hook from its table, and its id
    from the side tables that flag it (with_kwargs, always_call). Usable as a context manager.
    Ids come from one counter shared by all tables, so a global hook and a module's hook never
    share an id (the forward hook loop looks both up in the same flag tables)."""
    _ids = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.id = next(RemovableHandle._ids)
        if extra_dict is None:
            side_tables = ()
        elif isinstance(extra_dict, dict):
            side_tables = (extra_dict,)
        else:
            side_tables = tuple(extra_dict)
        self._tables = (hooks_dict,) + side_tables

    def remove(self):
        for table in self._tables:
            table.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _WrappedHook:
    """A stored hook that, when `module` is given, receives that module as its first argument.
    The module is held through a weak reference so a hook does not keep its owner alive; the
    wrapper copies the hook's name and docstring (functools.update_wrapper) and survives
    pickling/deepcopy together with its module."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if not self.with_module:
            return self.hook(*args, **kwargs)
        owner = self.module()
        if owner is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(owner, *args, **kwargs)

    def __getstate__(self):
        # a weakref cannot be pickled: store the module itself (or nothing) instead
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if not self.with_module:
            return
        owner = state["module"]
        if owner is None:
            raise RuntimeError("You are trying to revive the hook of a dead Module!")
        self.module = weakref.ref(owner)


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
    """Indent every line of s but the first by num_spaces (a child's repr inside its parent's);
    blank lines stay empty."""
    first, newline, rest = s.partition("\n")
    if not newline:
        return s
    pad = " " * num_spaces
    return first + "\n" + "\n".join(pad + line if line.strip() else "" for line in rest.split("\n"))


def _attr_or_raise(owner, name):
    """owner.<name>, or the AttributeError get_submodule & co. raise when it is missing."""
    value = getattr(owner, name, _MISSING)
    if value is _MISSING:
        raise AttributeError(owner._get_name() + " has no attribute `" + name + "`")
    return value


def _tensor_tuple(x):
    """x as a tuple of tensors when it is one tensor or a tuple of them, else None."""
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, tuple) and all(isinstance(v, Tensor) for v in x):
        return x
    return None


def _first_tensor(out):
    """The tensor a deprecated backward hook attaches to: descend into the first element of
    sequences and the first tensor value of dicts until a tensor is reached."""
    while not isinstance(out, Tensor):
        if isinstance(out, dict):
            out = next(v for v in out.values() if isinstance(v, Tensor))
        else:
            out = out[0]
    return out


def _private_state_dict_hook(hook):
    """True for hooks added by _register_state_dict_hook (whose result may replace the state
    dict), False for register_state_dict_post_hook's (which must return None)."""
    return not getattr(hook, "_from_public_api", False)


# ---- the module ---------------------------------------------------------------------------------

class Module:
    """Base class of all layers and models: subclass it, build layers in `__init__`, compute
    in `forward`, and call the instance."""
    training = True
    call_super_init = False  # as torch's: True passes __init__'s arguments on (cooperative classes)
    _is_full_backward_hook = None  # True/False after the first register_(full_)backward_hook
    # True once a hook was registered on the module (in its __dict__), or while a global module
    # hook is set (on the class): __call__ then takes the hooks path, at the cost of one lookup
    _has_hooks = False
    _version = 1

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and (args or kwargs):
            if kwargs:
                raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                                f"'{next(iter(kwargs))}'")
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        # written straight into __dict__: __setattr__ relies on these existing
        state = self.__dict__
        state["training"] = True
        state["_parameters"] = _Registry(self)
        state["_buffers"] = _Registry(self)
        state["_non_persistent_buffers_set"] = set()
        state["_modules"] = _Registry(self)
        for table in _HOOK_DICTS:
            state[table] = OrderedDict()
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- calling ------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        # the scope cell holds the chain of modules whose forward is running: nodes recorded
        # meanwhile note it (for graph tools); it is restored however forward ends
        scope = _cell_get(None) or scope_cell()
        caller = scope[0]
        scope[0] = (self, caller)
        try:
            if self._has_hooks:
                return _HookedForward(self, args, kwargs).run()
            return self.forward(*args, **kwargs)
        finally:
            scope[0] = caller

    # ---- hook registration --------------------------------------------------------
    def _add_hook(self, table, hook, prepend=False, flags=(), side_tables=None):
        """Put hook in table (first with prepend), set its id in each of flags, and raise the
        module's `_has_hooks` flag so that __call__ looks at the tables."""
        handle = RemovableHandle(table, extra_dict=side_tables)
        table[handle.id] = hook
        for flag_table in flags:
            flag_table[handle.id] = True
        if prepend:
            table.move_to_end(handle.id, last=False)
        self.__dict__["_has_hooks"] = True
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) -> None or new args (a non-tuple is wrapped in one); with
        with_kwargs, hook(module, args, kwargs) -> None or (new args, new kwargs)."""
        kw = self._forward_pre_hooks_with_kwargs
        return self._add_hook(self._forward_pre_hooks, hook, prepend, (kw,) if with_kwargs else (), kw)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """hook(module, args, output) -> None or a new output (hook(module, args, kwargs, output)
        with with_kwargs); always_call hooks also run when forward raises."""
        kw, always = self._forward_hooks_with_kwargs, self._forward_hooks_always_called
        flags = [t for t, on in ((kw, with_kwargs), (always, always_call)) if on]
        return self._add_hook(self._forward_hooks, hook, prepend, flags, [kw, always])

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) -> new grad_output or None, before the gradients with respect
        to the module's inputs are computed."""
        return self._add_hook(self._backward_pre_hooks, hook, prepend)

    def _claim_backward_kind(self, full):
        """A module's backward hooks are either all full or all deprecated ones."""
        if self._is_full_backward_hook is (not full):
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single "
                               "Module. Please use only one of them.")
        self.__dict__["_is_full_backward_hook"] = full

    def register_backward_hook(self, hook):
        """Deprecated (torch's non-full hook): hook(module, grad_input, grad_output) on the grad_fn of
        the module's output, whose grad_input are that one node's gradients."""
        self._claim_backward_kind(False)
        return self._add_hook(self._backward_hooks, hook)

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) -> new grad_input or None, once the gradients with
        respect to the module's inputs are computed (with respect to its outputs when no input
        requires grad)."""
        self._claim_backward_kind(True)
        return self._add_hook(self._backward_hooks, hook, prepend)

    def _backward_hooks_by_kind(self):
        """(full hooks, deprecated hooks) that apply to a call, the global ones first."""
        full, deprecated = [], []
        for table, kind in ((_EVERY_MODULE.backward, _EVERY_MODULE.backward_full),
                            (self._backward_hooks, self._is_full_backward_hook)):
            if kind is True:
                full.extend(table.values())
            elif kind is False:
                deprecated.extend(table.values())
        return full, deprecated

    def _attach_deprecated_backward_hooks(self, hooks, args, result):
        """register_backward_hook's hooks go on the grad_fn of the first output tensor; they
        see that node's gradients only, which _warn_deprecated_backward_hook points out when the
        forward was not a single node from the inputs to the outputs."""
        node = _first_tensor(result).grad_fn
        if node is None:
            return
        for hook in hooks:
            node.register_hook(_WrappedHook(hook, self))
        self._warn_deprecated_backward_hook(args, result, node)

    def _warn_deprecated_backward_hook(self, inputs, result, node):
        outs = _tensor_tuple(result)
        if outs is None:
            warnings.warn("Using non-full backward hooks on a Module that does not return a single Tensor "
                          "or a tuple of Tensors is deprecated and will be removed in future versions. "
                          "This hook will be missing some of the grad_output. Please use "
                          "register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=2)
            return
        ins = _tensor_tuple(inputs)
        if ins is None:
            warnings.warn("Using non-full backward hooks on a Module that does not take as input a single "
                          "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                          "versions. This hook will be missing some of the grad_input. Please use "
                          "register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=2)
            return
        out_nodes = set(t.grad_fn for t in outs) - {None}
        if not out_nodes or (len(out_nodes) == 1 and node not in out_nodes):
            warnings.warn("Using a non-full backward hook when outputs are nested in python data structure is "
                          "deprecated and will be removed in future versions. This hook will be missing some "
                          "grad_output.", FutureWarning, stacklevel=2)
        elif len(out_nodes) > 1:
            warnings.warn("Using a non-full backward hook when outputs are generated by different autograd Nodes "
                          "is deprecated and will be removed in future versions. This hook will be missing some "
                          "grad_output. Please use register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=2)
        elif set(t.grad_fn for t in ins) - {None} != set(edge[0] for edge in node.next_functions):
            # the single output node should lead straight back to the inputs' nodes
            warnings.warn("Using a non-full backward hook when the forward contains multiple autograd Nodes "
                          "is deprecated and will be removed in future versions. This hook will be missing "
                          "some grad_input. Please use register_full_backward_hook to get the documented "
                          "behavior.", FutureWarning, stacklevel=2)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs), with the module first when with_module, runs at the start of this module's
        _load_from_state_dict (lazy modules materialize their parameters there)."""
        table = self._load_state_dict_pre_hooks
        handle = RemovableHandle(table)
        table[handle.id] = _WrappedHook(hook, self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    # The state-dict hooks do not concern __call__: no `_has_hooks`.
    def _register_state_dict_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata), run after the module's state_dict
        is filled in; a result other than None replaces it (torch's private form)."""
        if not _private_state_dict_hook(hook):
            raise RuntimeError("Cannot register the same function as the state dict post hook that was "
                               "previously registered via register_state_dict_post_hook")
        return _table_hook(self._state_dict_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) -> None, after the module's state_dict
        is filled in (it may change it in place)."""
        hook._from_public_api = True
        return _table_hook(self._state_dict_hooks, hook)

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars) -> None, before the module's state_dict is made."""
        return _table_hook(self._state_dict_pre_hooks, hook)

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) -> None, after load_state_dict has loaded this module
        and its children; it may change incompatible_keys' lists in place."""
        return _table_hook(self._load_state_dict_post_hooks, hook)

    # ---- registration -------------------------------------------------------------
    def __setattr__(self, name, value):
        # The checks go in torch's order, which decides what wins: a Parameter value, then a
        # name already registered as parameter, a Module value, a registered submodule name,
        # a Buffer value or registered buffer name; anything else is a plain attribute.
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._evict(name, keep=params)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, None)
        elif isinstance(value, Module):
            children = d.get("_modules")
            if children is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._evict(name, keep=children)
            children[name] = value
        elif params is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            d["_modules"][name] = None
        elif isinstance(value, Buffer) or name in d.get("_buffers", ()):
            self._set_buffer_attr(name, value)
        else:
            object.__setattr__(self, name, value)

    def _evict(self, name, keep):
        """Before `name` goes into registry `keep`, drop it from the other registries and, unless
        `keep` has it already (a re-assignment keeps its place), from the plain attributes."""
        d = self.__dict__
        if name not in keep:
            d.pop(name, None)
        for key in ("_parameters", "_buffers", "_modules"):
            if d[key] is not keep:
                d[key].pop(name, None)
        d["_non_persistent_buffers_set"].discard(name)

    def _set_buffer_attr(self, name, value):
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                            "(torch.nn.Buffer, torch.Tensor or None expected)")
        # a Buffer says whether it persists; a plain tensor keeps the slot's current setting
        keep = value.persistent if isinstance(value, Buffer) else \
            name not in self.__dict__["_non_persistent_buffers_set"]
        if type(self).register_buffer is Module.register_buffer:
            self.register_buffer(name, value, keep)
            return
        # a subclass's register_buffer may predate the `persistent` argument
        import inspect
        if "persistent" in inspect.signature(self.register_buffer).parameters:
            self.register_buffer(name, value, keep)
        elif keep:
            self.register_buffer(name, value)
        else:
            raise RuntimeError("Registering a non-persistent buffer on a Module subclass "
                               "that implements register_buffer() without the persistent "
                               "argument is not allowed.")

    def __delattr__(self, name):
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            registry = d.get(key, ())
            if name in registry:
                del registry[name]
                if key == "_buffers":
                    d["_non_persistent_buffers_set"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        names = set(super().__dir__())
        for registry in (self._parameters, self._buffers, self._modules):
            names.update(registry)
        return sorted(n for n in names if not n[0].isdigit())

    def _slot_table(self, kind, name):
        """The registry ("parameter" -> _parameters, "buffer" -> _buffers) that `name` may be
        registered in, once the name has passed torch's checks (in torch's order and words)."""
        key = "_parameters" if kind == "parameter" else "_buffers"
        table = self.__dict__.get(key)
        if table is None:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if not name:
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if name not in table and hasattr(self, name):
            raise KeyError(f"attribute '{name}' already exists")
        return table

    def register_parameter(self, name, param):
        table = self._slot_table("parameter", name)
        if param is not None:
            if not isinstance(param, Parameter):
                raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                                "(torch.nn.Parameter or None required)")
            if param.grad_fn is not None:
                raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters "
                                 f"must be created explicitly. To express '{name}' as a function of another "
                                 "Tensor, compute the value in the forward() method.")
        table[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        table = self._slot_table("buffer", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        table[name] = tensor
        transient = self._non_persistent_buffers_set
        (transient.discard if persistent else transient.add)(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        children = self.__dict__.get("_modules")
        if children is None:
            raise AttributeError("cannot assign module before Module.__init__() call")
        if name not in children and hasattr(self, name):
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if not name:
            raise KeyError('module name can\'t be empty string ""')
        children[name] = module

    register_module = add_module

    # ---- dotted-path access -------------------------------------------------------
    def get_submodule(self, target):
        node = self
        if target == "":
            return node
        for step in target.split("."):
            node = _attr_or_raise(node, step)
            if not isinstance(node, Module):
                raise AttributeError("`" + step + "` is not an nn.Module")
        return node

    def set_submodule(self, target, module, strict=False):
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        parent_path, _, leaf = target.rpartition(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self.get_submodule(parent_path)
        current = getattr(parent, leaf, _MISSING)
        if current is _MISSING:
            if strict:
                raise AttributeError(parent._get_name() + " has no attribute `" + leaf + "`")
        elif not isinstance(current, Module):
            raise AttributeError("`" + leaf + "` is not an nn.Module")
        setattr(parent, leaf, module)

    def _resolve(self, target):
        """(owning module, last name, value) for a dotted target like "block.0.weight"."""
        owner_path, _, leaf = target.rpartition(".")
        owner = self.get_submodule(owner_path)
        return owner, leaf, _attr_or_raise(owner, leaf)

    def get_parameter(self, target):
        _, leaf, value = self._resolve(target)
        if isinstance(value, Parameter):
            return value
        raise AttributeError("`" + leaf + "` is not an nn.Parameter")

    def get_buffer(self, target):
        owner, leaf, value = self._resolve(target)
        if leaf in owner._buffers:
            return value
        raise AttributeError("`" + leaf + "` is not a buffer")

    # ---- traversal ----------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Pre-order walk (a module, then each child's subtree in registration order), with an
        explicit stack so that deep nesting needs no recursion. A module already seen (in memo)
        is skipped with its subtree unless remove_duplicate is False."""
        seen = set() if memo is None else memo
        todo = [(prefix, self)]
        while todo:
            path, mod = todo.pop()
            if mod in seen:
                continue
            if remove_duplicate:
                seen.add(mod)
            yield path, mod
            lead = path + "." if path else ""
            todo.extend((lead + name, child) for name, child in reversed(mod._modules.items())
                        if child is not None)

    def modules(self):
        for _, mod in self.named_modules():
            yield mod

    def named_children(self):
        seen = set()
        for name, child in self._modules.items():
            if child is None or child in seen:
                continue
            seen.add(child)
            yield name, child

    def children(self):
        for _, child in self.named_children():
            yield child

    def _named_members(self, registry, prefix, recurse, remove_duplicate):
        """(dotted name, value) of the entries of `registry` ("_parameters" or "_buffers") of this
        module, or of its whole tree; a tensor shared by several modules comes once (by identity)
        unless remove_duplicate is False."""
        owners = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else ((prefix, self),)
        seen = set()
        for path, mod in owners:
            lead = path + "." if path else ""
            for name, value in mod.__dict__[registry].items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield lead + name, value

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

    # ---- state_dict ---------------------------------------------------------------
    def get_extra_state(self):
        """Override (with set_extra_state) to put a `<prefix>_extra_state` entry in state_dict."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called.")

    def _overrides(self, method_name):
        """Whether the class defines its own get_extra_state / set_extra_state."""
        base = getattr(Module, method_name)
        return getattr(type(self), method_name, base) is not base

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """This module's own entries (not its children's): parameters, persistent buffers and the
        extra state, detached unless keep_vars."""
        skip = self._non_persistent_buffers_set
        entries = itertools.chain(self._parameters.items(),
                                  ((k, v) for k, v in self._buffers.items() if k not in skip))
        for name, value in entries:
            if value is not None:
                destination[prefix + name] = value if keep_vars else value.detach()
        if self._overrides("get_extra_state"):
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:
            destination, prefix, keep_vars = _legacy_state_dict_args(args, destination, prefix, keep_vars)
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        # per-module metadata ({"version": ...}), keyed by the prefix without its final dot
        info = {"version": self._version}
        all_info = getattr(destination, "_metadata", None)
        if all_info is not None:
            all_info[prefix[:-1]] = info
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=destination, prefix=f"{prefix}{name}.", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            replacement = hook(self, destination, prefix, info)
            if replacement is None:
                continue
            if not _private_state_dict_hook(hook):
                raise RuntimeError("state_dict post-hook must return None")
            destination = replacement
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Copy this module's own entries of state_dict (keys prefix + name) into its parameters
        and persistent buffers, appending to the three lists what is missing, unexpected or wrong:
        torch's method of the same name and signature, which subclasses may override."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        skip = self._non_persistent_buffers_set
        own = {name: value for name, value in itertools.chain(
                   self._parameters.items(), ((k, v) for k, v in self._buffers.items() if k not in skip))
               if value is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, current in own.items():
            key = prefix + name
            if key in state_dict:
                problem = self._load_one(name, key, current, state_dict[key], assign)
                if problem:
                    error_msgs.append(problem)
            elif strict:
                missing_keys.append(key)

        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if self._overrides("set_extra_state"):
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)

        if not strict:
            return
        for key in state_dict:
            if key == extra_key or not key.startswith(prefix):
                continue
            # "name" must be one of ours; "child.rest" must at least name a submodule
            head, dotted, _ = key[len(prefix):].partition(".")
            if head not in (self._modules if dotted else own):
                unexpected_keys.append(key)

    def _load_one(self, name, key, current, incoming, assign):
        """Load checkpoint value `incoming` into the parameter/buffer `current` (by copy, or by
        replacing it when assign); returns an error message, or None when it went in."""
        if not isinstance(incoming, Tensor):
            return (f'While copying the parameter named "{key}", expected torch.Tensor '
                    f"or Tensor-like object from checkpoint but received {type(incoming)}")
        # a lazy module's placeholder has no shape yet: its pre-hook gave it the checkpoint's
        # (or it receives another placeholder), so no shape checks apply
        if not is_lazy(current):
            if len(current.shape) == 0 and tuple(incoming.shape) == (1,):
                incoming = incoming[0]  # old checkpoints saved scalars as 1-element vectors
            if incoming.shape != current.shape:
                return (f"size mismatch for {key}: copying a param with shape {incoming.shape} "
                        f"from checkpoint, the shape in current model is {current.shape}.")
        try:
            with no_grad():
                if not assign:
                    current.copy_(incoming)
                    return None
                if isinstance(current, Parameter):
                    # the new tensor takes the old parameter's place and requires_grad
                    if isinstance(incoming, Parameter):
                        incoming.requires_grad_(current.requires_grad)
                    else:
                        incoming = Parameter(incoming, requires_grad=current.requires_grad)
                setattr(self, name, incoming)
        except Exception as ex:
            return (f'While copying the parameter named "{key}", whose dimensions in the '
                    f"model are {current.size()} and whose dimensions in the checkpoint are "
                    f"{incoming.size()}, an exception occurred : {ex.args}.")
        return None

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        report = _LoadReport(getattr(state_dict, "_metadata", None), assign)
        report.load(self, OrderedDict(state_dict), "")
        return report.finish(self, strict)

    # ---- modes --------------------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for child in self.children():  # each child's own train(), which a subclass may override
            child.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for param in self.parameters():
            grad = param._grad
            if grad is None:
                continue
            if set_to_none:
                param._grad = None
                continue
            # zero in place, first cutting the gradient off any graph it belongs to
            if grad.grad_fn is None:
                grad.requires_grad_(False)
            else:
                grad.detach_()
            grad.zero_()

    def apply(self, fn):
        """fn(m) on every module of the tree, children (depth first) before their parent."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ---- devices and dtypes -----------------------------------------------------------
    def _apply(self, fn):
        """Replace every parameter's and buffer's memory by fn(tensor), keeping the Parameter
        objects (so an optimizer made before .to() still holds this model's parameters)."""
        with no_grad():
            for mod in self.modules():
                for param in mod._parameters.values():
                    if param is not None:
                        _convert_in_place(param, fn)
                buffers = mod._buffers
                for name, buf in buffers.items():
                    if buf is not None:
                        buffers[name] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        fmt = None
        if "memory_format" in kwargs:  # applied to the 4-d and 5-d parameters and buffers
            from ... import memory_formats as _mf
            fmt = kwargs["memory_format"]
            if fmt is not None and not isinstance(fmt, _mf.memory_format):
                from ..._arg_errors import _format_invalid_args
                from ...tensor import _TO_OVERLOADS
                raise TypeError(_format_invalid_args(args, kwargs, "to()", _TO_OVERLOADS))
            kwargs = {k: v for k, v in kwargs.items() if k != "memory_format"}
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
        # only floating-point tensors change dtype; every tensor moves
        return self._apply(functools.partial(_cast, device=device, dtype=dtype, fmt=fmt))

    def cuda(self, device=None):
        from ...devices import device as _device_cls
        if isinstance(device, int):
            device = _device_cls("cuda", device)
        target = canonical("cuda" if device is None else device)
        return self._apply(lambda t: t.to(target))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def float(self):
        return self._apply(functools.partial(_cast_floating, method="float"))

    def double(self):
        return self._apply(functools.partial(_cast_floating, method="double"))

    def half(self):
        return self._apply(functools.partial(_cast_floating, method="half"))

    def bfloat16(self):
        return self._apply(functools.partial(_cast_floating, method="bfloat16"))

    def type(self, dst_type):
        return self._apply(lambda t: t.to(dst_type))

    # ---- printing -----------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        """Name(extra) on one line when there are no children and extra_repr is one line;
        otherwise each extra line and each `(name): child repr` on its own indented line."""
        extra = self.extra_repr()
        body = extra.split("\n") if extra else []
        children = self._modules
        if len(body) == 1 and not children:
            return f"{self._get_name()}({body[0]})"
        body += [f"({name}): {_addindent(repr(child), 2)}" for name, child in children.items()]
        if not body:
            return self._get_name() + "()"
        return self._get_name() + "(\n  " + "\n  ".join(body) + "\n)"

    # ---- copying ------------------------------------------------------------------------
    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        d = self.__dict__
        d.update(state)
        for table in _HOOK_DICTS:
            d.setdefault(table, OrderedDict())
        if any(d[table] for table in _HOOK_DICTS):
            d["_has_hooks"] = True
        # modules pickled when forward (pre-)hooks were stored as (hook, with_kwargs) pairs
        for hooks, kw in ((d["_forward_hooks"], d["_forward_hooks_with_kwargs"]),
                          (d["_forward_pre_hooks"], d["_forward_pre_hooks_with_kwargs"])):
            for hook_id, entry in list(hooks.items()):
                if isinstance(entry, tuple) and len(entry) == 2 and callable(entry[0]):
                    hooks[hook_id], takes_kwargs = entry
                    if takes_kwargs:
                        kw[hook_id] = True


# the per-module hook tables (torch's attribute names: utilities and tests read them)
_HOOK_DICTS = ("_forward_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
               "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_load_state_dict_pre_hooks",
               "_state_dict_hooks", "_backward_hooks", "_backward_pre_hooks", "_state_dict_pre_hooks",
               "_load_state_dict_post_hooks")


def _table_hook(table, hook):
    handle = RemovableHandle(table)
    table[handle.id] = hook
    return handle


def _legacy_state_dict_args(args, destination, prefix, keep_vars):
    """state_dict(destination, prefix, keep_vars) given positionally (deprecated): each
    positional value counts where its keyword was left at the default."""
    warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                  "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                  "#torch.nn.Module.state_dict for details.", FutureWarning, stacklevel=3)
    given = list(args[:3])
    if destination is None:
        destination = given[0]
    if len(given) >= 2 and prefix == "":
        prefix = given[1]
    if len(given) >= 3 and keep_vars is False:
        keep_vars = given[2]
    return destination, prefix, keep_vars


class _LoadReport:
    """One load_state_dict call: walks the module tree (each module gets the entries under its
    prefix), collects missing/unexpected keys and error messages across it, and turns them
    into the result or the RuntimeError at the end."""

    def __init__(self, metadata, assign):
        self.metadata = metadata
        self.assign = assign
        self.missing, self.unexpected, self.errors = [], [], []

    def load(self, module, entries, prefix):
        info = {} if self.metadata is None else dict(self.metadata.get(prefix[:-1], {}))
        if self.assign:
            info["assign_to_params_buffers"] = self.assign
        module._load_from_state_dict(entries, prefix, info, True, self.missing, self.unexpected,
                                     self.errors)
        for name, child in module._modules.items():
            if child is None:
                continue
            lead = f"{prefix}{name}."
            self.load(child, {k: v for k, v in entries.items() if k.startswith(lead)}, lead)
        # the post-hooks run once the module's whole subtree is loaded and see the lists so far
        keys = _IncompatibleKeys(self.missing, self.unexpected)
        for hook in module._load_state_dict_post_hooks.values():
            if hook(module, keys) is not None:
                raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                     "expected to return new values, if incompatible_keys need to be "
                                     "modified, it should be done inplace.")

    def finish(self, module, strict):
        errors = list(self.errors)
        if strict:
            quoted = lambda keys: ", ".join(f'"{k}"' for k in keys)  # noqa: E731
            head = []
            if self.missing:
                head.append(f"Missing key(s) in state_dict: {quoted(self.missing)}. ")
            if self.unexpected:
                head.append(f"Unexpected key(s) in state_dict: {quoted(self.unexpected)}. ")
            errors = head + errors
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(module).__name__}:\n\t"
                               + "\n\t".join(errors))
        return _IncompatibleKeys(self.missing, self.unexpected)


def _convert_in_place(param, fn):
    """Give param (and its .grad) the memory of fn(param), keeping the Parameter object."""
    moved = fn(param)
    if moved is not param:
        param._data, param._device = moved._data, moved._device
    grad = param._grad
    if grad is not None:
        moved = fn(grad)
        if moved is not grad:
            param._grad = moved


def _cast(t, device, dtype, fmt=None):
    if dtype is not None and t.is_floating_point():
        t = t.to(dtype)
    if fmt is not None and t.dim() in (4, 5):
        t = t.to(memory_format=fmt)
    return t if device is None else t.to(device)


def _cast_floating(t, method):
    return getattr(t, method)() if t.is_floating_point() else t


# ---- one call of a module with hooks -----------------------------------------------------------

class _HookedForward:
    """Module.__call__ when hooks may apply (the module's own and the global ones, global
    first): forward pre-hooks may replace the arguments and forward hooks the result; full
    backward (pre-)hooks are wired by a _GradTap around forward, deprecated backward hooks on the
    output's grad_fn. When anything raises, the always_call forward hooks that have not run
    yet still run (their own errors become warnings) and the error propagates. `args`,
    `kwargs` and `result` always hold the latest values, which is what those hooks receive."""
    __slots__ = ("module", "args", "kwargs", "result", "fired")

    def __init__(self, module, args, kwargs):
        self.module = module
        self.args = args
        self.kwargs = kwargs
        self.result = None
        self.fired = set()  # ids of always_call hooks already run

    def run(self):
        try:
            return self._run()
        except Exception:
            self._after_error()
            raise

    def _run(self):
        module = self.module
        grad_pre_hooks = [*_EVERY_MODULE.backward_pre.values(), *module._backward_pre_hooks.values()]
        full_hooks, deprecated_hooks = module._backward_hooks_by_kind()
        self._forward_pre_hooks()
        tap = None
        if full_hooks or grad_pre_hooks:
            tap = _GradTap(module, full_hooks, grad_pre_hooks)
            self.args = tap.wrap_inputs(self.args)
        self.result = module.forward(*self.args, **self.kwargs)
        self._forward_hooks()
        if tap is not None:
            if not isinstance(self.result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor or a "
                              f"tuple of Tensors but received {type(self.result)}", stacklevel=3)
            self.result = tap.wrap_outputs(self.result)
        if deprecated_hooks:
            module._attach_deprecated_backward_hooks(deprecated_hooks, self.args, self.result)
        return self.result

    def _forward_pre_hooks(self):
        module = self.module
        takes_kwargs = module._forward_pre_hooks_with_kwargs
        for hook_id, hook in (*_EVERY_MODULE.forward_pre.items(), *module._forward_pre_hooks.items()):
            if hook_id in takes_kwargs:
                new = hook(module, self.args, self.kwargs)
                if new is None:
                    continue
                if not (isinstance(new, tuple) and len(new) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {new}.")
                self.args, self.kwargs = new
            else:
                new = hook(module, self.args)
                if new is not None:
                    self.args = new if isinstance(new, tuple) else (new,)

    def _forward_hooks(self):
        module = self.module
        every = _EVERY_MODULE
        always = (module._forward_hooks_always_called, every.forward_always)
        takes_kwargs = (module._forward_hooks_with_kwargs, every.forward_with_kwargs)
        for hook_id, hook in (*every.forward.items(), *module._forward_hooks.items()):
            if hook_id in always[0] or hook_id in always[1]:
                self.fired.add(hook_id)
            if hook_id in takes_kwargs[0] or hook_id in takes_kwargs[1]:
                new = hook(module, self.args, self.kwargs, self.result)
            else:
                new = hook(module, self.args, self.result)
            if new is not None:
                self.result = new

    def _after_error(self):
        module = self.module
        every = _EVERY_MODULE
        # the global ones get (module, args, result) whatever they were registered with
        for hook_id, hook in list(every.forward.items()):
            if hook_id not in every.forward_always or hook_id in self.fired:
                continue
            try:
                new = hook(module, self.args, self.result)
            except Exception as e:
                warnings.warn("global module forward hook with ``always_call=True`` raised an "
                              "exception that was silenced as another error was raised in forward: "
                              f"{e}", stacklevel=3)
                continue
            if new is not None:
                self.result = new
        takes_kwargs = module._forward_hooks_with_kwargs
        for hook_id, hook in list(module._forward_hooks.items()):
            if hook_id not in module._forward_hooks_always_called or hook_id in self.fired:
                continue
            try:
                if hook_id in takes_kwargs:
                    new = hook(module, self.args, self.kwargs, self.result)
                else:
                    new = hook(module, self.args, self.result)
            except Exception as e:
                warnings.warn("module forward hook with ``always_call=True`` raised an exception "
                              f"that was silenced as another error was raised in forward: {e}",
                              stacklevel=3)
                continue
            if new is not None:
                self.result = new


# ---- full backward hooks -------------------------------------------------------------------------

class BackwardHookFunction(Function):
    """An identity node (BackwardHookFunctionBackward in the graph). A module with full backward
    hooks routes the tensors going into and out of its forward through one, so that hooks on
    those two nodes see exactly the gradients with respect to the module's inputs and outputs."""

    @staticmethod
    def forward(ctx, *tensors):
        # the outputs of a node all require grad: those whose input did not are marked
        frozen = [t for t in tensors if not t.requires_grad]
        ctx.mark_non_differentiable(*frozen)
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return grads


def _spread(slots, grads, size):
    """Lay the gradients of the tensors at positions `slots` out over `size` positions (None at
    the positions of non-tensor arguments), as the hooks see them."""
    laid_out = [None] * size
    for slot, grad in zip(slots, grads):
        laid_out[slot] = grad
    return tuple(laid_out)


class _GradTap:
    """The full backward (pre-)hooks of one module call. Backward reaches the output identity
    node first: its node hook records grad_output (after the pre-hooks had their say, which
    may replace it). Then, at the input identity node, the full hooks run with (grad_input,
    grad_output) and may replace grad_input. When no input requires grad there is no input
    node, and the full hooks run at the output node with grad_input all None."""

    def __init__(self, module, hooks, pre_hooks):
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.n_args = self.n_outs = -1
        # positions of the tensors among the arguments / outputs, None when not routed
        self.arg_slots = self.out_slots = None
        self.grad_output = None  # recorded at the output node, used up at the input node

    def wrap_inputs(self, args):
        routed, self.arg_slots = self._route(args, self._at_inputs)
        self.n_args = len(args)
        return routed

    def wrap_outputs(self, result):
        single = not isinstance(result, tuple)
        outs = (result,) if single else result
        routed, self.out_slots = self._route(outs, self._at_outputs)
        self.n_outs = len(outs)
        return routed[0] if single else routed

    @staticmethod
    def _route(values, node_hook):
        """Pass the tensors of `values` through one BackwardHookFunction (when any of them
        requires grad and grad mode is on) and hook its node; the same sequence type comes back
        with the tensors replaced, with their positions (None when nothing was routed)."""
        slots = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
        if not _grad_enabled() or not any(values[i].requires_grad for i in slots):
            return values, None
        routed = BackwardHookFunction.apply(*[values[i] for i in slots])
        nodes = [t.grad_fn for t in routed if t.grad_fn is not None]
        nodes = [n for n in nodes if n.name() == "BackwardHookFunctionBackward"]
        if not nodes:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue with a code "
                               "sample to reproduce this.")
        nodes[0].register_hook(node_hook)
        items = list(values)
        for slot, tensor in zip(slots, routed):
            items[slot] = tensor
        rebuilt = tuple(items) if type(values) is tuple else type(values)(*items)
        return rebuilt, slots

    def _at_outputs(self, grad_inputs, grad_outputs):
        """Node hook of the output identity node."""
        grads = self.grad_output = _spread(self.out_slots, grad_outputs, self.n_outs)
        for pre_hook in self.pre_hooks:
            new = pre_hook(self.module, grads)
            if new is None:
                continue
            if len(new) != self.n_outs:
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(new)}, but expected {self.n_outs}")
            grads = self.grad_output = new
        if self.arg_slots is None:
            # no input requires grad: the hooks fire here, with grad_input all None
            warnings.warn("Full backward hook is firing when gradients are computed with respect to "
                          "module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=5)
            no_grads = (None,) * self.n_args
            for hook in self.hooks:
                new = hook(self.module, no_grads, grads)
                if new is not None and not (isinstance(new, tuple) and all(g is None for g in new)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient "
                                       "should always return None or None for all gradients.")
            self.grad_output = None
        return tuple(grads[i] for i in self.out_slots)

    def _at_inputs(self, grad_inputs, grad_outputs):
        """Node hook of the input identity node."""
        if self.grad_output is None:
            # reached without passing through the outputs (a double backward): not ours
            return None
        grads = _spread(self.arg_slots, grad_inputs, self.n_args)
        for hook in self.hooks:
            new = hook(self.module, grads, self.grad_output)
            if new is None:
                continue
            if len(new) != len(grads):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(new)}, but expected {len(grads)}")
            grads = new
        self.grad_output = None
        return tuple(grads[i] for i in self.arg_slots)


# ---- global module hooks (torch.nn.modules.module.register_module_*_hook) ----------------------

class _EveryModuleHooks:
    """The hooks that the register_module_*_hook functions put on every module. While any is
    set, Module._has_hooks (the class attribute) sends every call through _HookedForward."""

    def __init__(self):
        self.forward_pre = OrderedDict()
        self.forward = OrderedDict()
        self.forward_with_kwargs = {}
        self.forward_always = {}
        self.backward_pre = OrderedDict()
        self.backward = OrderedDict()
        self.backward_full = None  # True / False once a (full) backward hook was registered

    def add(self, table, hook, flags=(), side_tables=None):
        handle = _EveryModuleHandle(table, extra_dict=side_tables)
        table[handle.id] = hook
        for flag_table in flags:
            flag_table[handle.id] = True
        Module._has_hooks = True
        return handle

    def claim_backward_kind(self, full):
        if self.backward_full is (not full):
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global "
                               "Module hook. Please use only one of them.")
        self.backward_full = full

    def any(self):
        return bool(self.forward_pre or self.forward or self.backward_pre or self.backward)


class _EveryModuleHandle(RemovableHandle):
    def remove(self):
        super().remove()
        Module._has_hooks = _EVERY_MODULE.any()


_EVERY_MODULE = _EveryModuleHooks()


def register_module_forward_pre_hook(hook):
    """A forward pre-hook for every module: hook(module, input) -> None or modified input."""
    return _EVERY_MODULE.add(_EVERY_MODULE.forward_pre, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """A forward hook for every module: hook(module, input, output) -> None or modified output."""
    every = _EVERY_MODULE
    flags = [t for t, on in ((every.forward_with_kwargs, with_kwargs), (every.forward_always, always_call))
             if on]
    return every.add(every.forward, hook, flags, [every.forward_with_kwargs, every.forward_always])


def register_module_backward_hook(hook):
    """Deprecated: a non-full backward hook for every module."""
    _EVERY_MODULE.claim_backward_kind(False)
    return _EVERY_MODULE.add(_EVERY_MODULE.backward, hook)


def register_module_full_backward_pre_hook(hook):
    """A full backward pre-hook for every module, run before the modules' own."""
    return _EVERY_MODULE.add(_EVERY_MODULE.backward_pre, hook)


def register_module_full_backward_hook(hook):
    """A full backward hook for every module, run before the modules' own."""
    _EVERY_MODULE.claim_backward_kind(True)
    return _EVERY_MODULE.add(_EVERY_MODULE.backward, hook)


def _replica_registries(r, parameters, buffers, modules):
    """Give module copy r its own registries (a shallow copy shares the original's)."""
    d = r.__dict__
    for key, items in (("_parameters", parameters), ("_buffers", buffers), ("_modules", modules)):
        for name in d[key]:
            d.pop(name, None)
        d[key] = _Registry(r, items)
