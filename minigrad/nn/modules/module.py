"""nn.Module: parameters, buffers and submodules registered by attribute, as torch.nn.Module."""
from collections import OrderedDict, namedtuple
import itertools

from ...autograd.function import MODULE_SCOPE
from ...autograd.grad_mode import no_grad
from ...devices import canonical
from ... import dtypes as _dt
from ...tensor import Tensor
from ..parameter import Parameter

_IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])

_hook_ids = itertools.count()


class RemovableHandle:
    """What register_*_hook returns: `.remove()` unregisters the hook (also as a context manager)."""

    def __init__(self, hooks_dict, key):
        self._hooks, self.id = hooks_dict, key

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


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
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


def _type_name(value):
    if isinstance(value, Tensor):
        return f"minigrad.{value.dtype._legacy}"
    return type(value).__name__


class Module:
    """Base class of all layers and models: subclass it, build layers in `__init__`, compute
    in `forward`, and call the instance."""
    training = True

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = _Registry(self)
        d["_buffers"] = _Registry(self)
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = _Registry(self)
        d["_forward_hooks"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()

    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- calling ------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        prev = MODULE_SCOPE.current
        MODULE_SCOPE.current = (self, prev)
        try:
            if self._forward_hooks or self._forward_pre_hooks:
                return self._call_with_hooks(args, kwargs)
            return self.forward(*args, **kwargs)
        finally:
            MODULE_SCOPE.current = prev

    def _call_with_hooks(self, args, kwargs):
        for hook, with_kwargs in list(self._forward_pre_hooks.values()):
            if with_kwargs:
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
        result = self.forward(*args, **kwargs)
        for hook, with_kwargs in list(self._forward_hooks.values()):
            res = hook(self, args, kwargs, result) if with_kwargs else hook(self, args, result)
            if res is not None:
                result = res
        return result

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        return self._add_hook(self._forward_pre_hooks, (hook, with_kwargs), prepend)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        return self._add_hook(self._forward_hooks, (hook, with_kwargs), prepend)

    @staticmethod
    def _add_hook(hooks, entry, prepend):
        key = next(_hook_ids)
        hooks[key] = entry
        if prepend:
            hooks.move_to_end(key, last=False)
        return RemovableHandle(hooks, key)

    # ---- registration -------------------------------------------------------------
    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if params is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name)
            d["_modules"][name] = value
        elif params is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            d["_modules"][name] = value
        elif params is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name):
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            d[key].pop(name, None)
        d.pop(name, None)
        d["_non_persistent_buffers_set"].discard(name)

    def __getattr__(self, name):
        # registered names live in __dict__ too (see _Registry): only unknown names get here
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            if name in d.get(key, ()):
                del d[key][name]
                d["_non_persistent_buffers_set"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(super().__dir__())
        keys += list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(set(k for k in keys if not k[0].isdigit()))

    @staticmethod
    def _check_name(name, kind, d):
        if "_parameters" not in d:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def register_parameter(self, name, param):
        d = self.__dict__
        self._check_name(name, "parameter", d)
        if name in d and name not in d["_parameters"] or name in d["_modules"] or name in d["_buffers"]:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            d["_parameters"][name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters "
                             "must be created explicitly. To express '{name}' as a function of another "
                             "Tensor, compute the value in the forward() method.")
        d["_parameters"][name] = param

    def register_buffer(self, name, tensor, persistent=True):
        d = self.__dict__
        self._check_name(name, "buffer", d)
        if name in d and name not in d["_buffers"] or name in d["_parameters"] or name in d["_modules"]:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        d["_buffers"][name] = tensor
        if persistent:
            d["_non_persistent_buffers_set"].discard(name)
        else:
            d["_non_persistent_buffers_set"].add(name)

    def add_module(self, name, module):
        d = self.__dict__
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name(name, "module", d)
        if name in d and name not in d["_modules"]:
            raise KeyError(f"attribute '{name}' already exists")
        d["_modules"][name] = module

    register_module = add_module

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{type(mod).__name__} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._parameters:
            raise AttributeError(f"{type(mod).__name__} has no parameter `{name}`")
        return mod._parameters[name]

    # ---- traversal ----------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        stack = [(prefix, self)]
        while stack:
            pfx, mod = stack.pop()
            if remove_duplicate:
                if id(mod) in memo:
                    continue
                memo.add(id(mod))
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
            if m is not None and id(m) not in memo:
                memo.add(id(m))
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
                if v is None or (remove_duplicate and id(v) in memo):
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
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:  # the old positional form state_dict(destination, prefix, keep_vars)
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        expected = set()
        for mpfx, mod in self.named_modules():
            base = mpfx + "." if mpfx else ""
            local = [(n, p, "_parameters") for n, p in mod._parameters.items() if p is not None]
            local += [(n, b, "_buffers") for n, b in mod._buffers.items()
                      if b is not None and n not in mod._non_persistent_buffers_set]
            for name, current, store in local:
                key = base + name
                expected.add(key)
                if key not in state_dict:
                    missing.append(key)
                    continue
                value = state_dict[key]
                if not isinstance(value, Tensor):
                    errors.append(f'While copying the parameter named "{key}", expected torch.Tensor '
                                  f"or Tensor-like object from checkpoint but received {type(value)}")
                    continue
                if tuple(value.shape) != tuple(current.shape):
                    errors.append(f"size mismatch for {key}: copying a param with shape {value.shape} "
                                  f"from checkpoint, the shape in current model is {current.shape}.")
                    continue
                if assign:
                    new = value if store == "_buffers" or isinstance(value, Parameter) else \
                        Parameter(value, current.requires_grad)
                    mod.__dict__[store][name] = new
                else:
                    with no_grad():
                        current.copy_(value)
        unexpected = [k for k in state_dict.keys() if k not in expected]
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
        for m in self.modules():
            m.__dict__["training"] = mode
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
        device = kwargs.pop("device", None)
        dtype = kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments: {sorted(kwargs)}")
        for a in args:
            if isinstance(a, _dt.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                device, dtype = a._device, a.dtype
            elif isinstance(a, bool):
                continue  # non_blocking given positionally
            elif a is not None:
                device = a
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


def _replica_registries(r, parameters, buffers, modules):
    """Give module copy r its own registries (a shallow copy shares the original's)."""
    d = r.__dict__
    for key, items in (("_parameters", parameters), ("_buffers", buffers), ("_modules", modules)):
        for name in d[key]:
            d.pop(name, None)
        d[key] = _Registry(r, items)
