"""Optimizer: the base class of minigrad.optim, with torch.optim.Optimizer's API.

Parameters live in `param_groups` (dicts holding "params" and the group's options), per-parameter
state in `state` (a dict of Tensors keyed by the parameter). `state_dict()` has torch's layout:
state keyed by the parameter's index in the groups, and groups whose "params" are index lists.

Updates run on the parameters' backend arrays (`p._data`) with the backend primitives, so no graph
is recorded and they work on every device; each update bumps the parameter's version counter as an
in-place op does, so that a graph which saved the parameter refuses to backward through the old
value.
"""
import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

from .. import dtypes as _dt
from ..tensor import Tensor, _make
from ..devices import CPU
from .._typename import typename
from ..autograd.grad_mode import enable_grad


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

# hooks of every optimizer's step (register_optimizer_step_pre_hook / _post_hook), as torch's
_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


def _removable_handle(hooks_dict):
    from ..nn.modules.module import RemovableHandle  # nn sits beside optim: imported when first used
    return RemovableHandle(hooks_dict)


def register_optimizer_step_pre_hook(hook):
    """Register hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), called before
    every optimizer's step(); returns a handle whose remove() unregisters it."""
    handle = _removable_handle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """Register hook(optimizer, args, kwargs) -> None, called after every optimizer's step()."""
    handle = _removable_handle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


_HOOK_DICTS = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
               "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
               "_optimizer_load_state_dict_post_hooks")



def _scalar(x):
    """A hyperparameter as a Python float (a 1-element Tensor is read once per step)."""
    if x.__class__ is float:
        return x
    if isinstance(x, Tensor):
        return float(x.item())
    return float(x)


def _check_scalar_tensor(value, what):
    if isinstance(value, Tensor) and value.numel() != 1:
        raise ValueError(f"Tensor {what} must be 1-element")


def _check_adam_args(lr, betas, eps, weight_decay):
    """torch's checks, in its order, of the hyperparameters the Adam family shares (Adam, AdamW,
    Adamax, NAdam, RAdam)."""
    _check_scalar_tensor(lr, "lr")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _scalar_dtype():
    """torch keeps step counters in float32, or float64 when that is the default dtype."""
    return _dt.float64 if _dt.get_default_dtype() is _dt.float64 else _dt.float32


def _step_tensor(value=0.0):
    """A step counter: a 0-d tensor on the CPU (torch keeps it there so reading it never syncs)."""
    return _make(CPU.backend.full((), value, _scalar_dtype().np), CPU)


def _increment(step_t):
    """step_t += 1 in place; returns the new count as a float."""
    a = step_t._data
    step_t._device.backend.binary_inplace("add", a, 1)
    return float(step_t._device.backend.to_numpy(a))


def _zeros_like(p, value=0):
    be = p._device.backend
    if value == 0:
        return _make(be.zeros(p._data.shape, p._data.dtype), p._device)
    return _make(be.full(p._data.shape, value, p._data.dtype), p._device)


def _bump(p):
    """Record an in-place change of p's memory, as torch's in-place ops do."""
    vc = p._vc
    if vc is None:
        p._vc = [1, 0]
    else:
        vc[0] += 1


# Elements per block of a large parameter's update on the CPU (128 KB of float32); see _blocks.
_BLOCK = 1 << 15


def _blocks(device, *arrays):
    """The arrays of one parameter's update (the parameter, its gradient, its state; all of one
    shape, None entries passed through) as matching blocks of about _BLOCK elements each on the
    CPU, or whole on other devices.

    Updating a large parameter whole makes NumPy allocate parameter-sized temporaries every
    step, and glibc hands freed blocks that large back to the OS, so the next step faults them
    in again: a stand-alone MLP 784-256-10 training script measured 1.9x slower that way with
    plain SGD and 3.2x with Adam (BENCHMARKS.md). Block-sized temporaries are reused from malloc's free lists instead. Every
    update formula is elementwise, so blocks give the same values bit for bit."""
    a = arrays[0]
    n = a.size
    if n <= _BLOCK or device.type != "cpu":
        return (arrays,)
    if all(x is None or x.flags.c_contiguous for x in arrays):
        flat = [None if x is None else x.reshape(-1) for x in arrays]  # views
        return [tuple(None if x is None else x[i:i + _BLOCK] for x in flat) for i in range(0, n, _BLOCK)]
    rows = a.shape[0]
    step = max(1, _BLOCK * rows // n)
    return [tuple(None if x is None else x[r:r + step] for x in arrays) for r in range(0, rows, step)]


class Optimizer:
    """Base class for all optimizers.

    Args:
        params: an iterable of Tensors, of (name, Tensor) pairs, or of dicts (parameter groups,
            each with a "params" entry and per-group options overriding `defaults`).
        defaults: the default value of each option.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        for name in _HOOK_DICTS:
            setattr(self, name, OrderedDict())
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors "
                            "or dicts, but got " + typename(params, Tensor.type))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    # ---- hooks ----------------------------------------------------------------------
    @staticmethod
    def profile_hook_step(func):
        """step wrapped to run the global and the optimizer's step pre- and post-hooks around it."""
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self = args[0]
            pre = self._optimizer_step_pre_hooks
            if not (pre or _global_optimizer_pre_hooks or self._optimizer_step_post_hooks
                    or _global_optimizer_post_hooks):
                return func(*args, **kwargs)
            for pre_hook in chain(_global_optimizer_pre_hooks.values(), pre.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(f"{func} must return None or a tuple of (new_args, new_kwargs), but "
                                           f"got {result}.")
            out = func(*args, **kwargs)
            for post_hook in chain(self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
                post_hook(self, args, kwargs)
            return out
        return wrapper

    def _patch_step_function(self):
        """Wrap the class's step once with profile_hook_step, as torch does."""
        cls = self.__class__
        if not getattr(cls.step, "hooked", None):
            cls.step = self.profile_hook_step(cls.step)
            cls.step.hooked = True

    def _register(self, name, hook, prepend=False):
        hooks = getattr(self, name)
        handle = _removable_handle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), before each step()."""
        return self._register("_optimizer_step_pre_hooks", hook)

    def register_step_post_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None, after each step()."""
        return self._register("_optimizer_step_post_hooks", hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer) -> None, before state_dict() packs the state."""
        return self._register("_optimizer_state_dict_pre_hooks", hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) -> state_dict or None, on state_dict()'s result."""
        return self._register("_optimizer_state_dict_post_hooks", hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) -> state_dict or None, before load_state_dict() loads it."""
        return self._register("_optimizer_load_state_dict_pre_hooks", hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer) -> None, after load_state_dict()."""
        return self._register("_optimizer_load_state_dict_post_hooks", hook, prepend)

    def _upgrade_state(self, **group_defaults):
        """After __setstate__ from an older pickle: fill the options it lacked and make `step`
        counters tensors, as torch's optimizers do."""
        for group in self.param_groups:
            for key, value in group_defaults.items():
                group.setdefault(key, value)
        for s in self.state.values():
            if isinstance(s, dict) and "step" in s and not isinstance(s["step"], Tensor):
                s["step"] = _step_tensor(float(s["step"]))

    def _with_grads(self, group):
        """(p, p.grad, p's backend, p's state dict) for each parameter of group with a gradient."""
        state = self.state
        for p in group["params"]:
            g = p._grad
            if g is not None:
                yield p, g, p._device.backend, state[p]

    @staticmethod
    def _closure_loss(closure):
        """step(closure)'s loss: the closure runs with grad enabled (step itself records nothing)."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def __repr__(self):
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    def step(self, closure=None):
        """Perform a single optimization step (subclasses implement it)."""
        raise NotImplementedError

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all optimized tensors: to None (the default), or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g._requires_grad = False
                    be = g._device.backend
                    be.copyto(g._data, be.zeros((), g._data.dtype))
                    _bump(g)

    def add_param_group(self, param_group):
        """Add a parameter group (a dict with "params" and optional per-group options)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")

        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the "
                            "ordering of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)

        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) == len(tensors):
                param_group["param_names"] = names
            else:
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")

        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + typename(param, Tensor.type))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)

        if len(tensors) != len(set(tensors)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)

        param_set = set()
        for group in self.param_groups:
            param_set.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                current = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {current} to the optimizer")
        if not param_set.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")

        self.param_groups.append(param_group)

    # ---- checkpoints --------------------------------------------------------------
    def state_dict(self):
        """The optimizer's state as torch lays it out: {"state": {index: {...}}, "param_groups": [...]}.

        Tensors in it are the optimizer's own (not copies), as in torch.
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        param_mappings = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update({id(p): i for i, p in enumerate(group["params"], start_index)
                                   if id(p) not in param_mappings})
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            hook_result = post_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, key=None):
        # step counters keep their dtype and device; floating state follows the parameter's dtype
        if key == "step":
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict):
        """Load a state from `state_dict()` (this optimizer's or one built the same way)."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            hook_result = pre_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])

        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")

        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(param, value, key)
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)
