"""Optimizer: the base class of minigrad.optim, with torch.optim.Optimizer's API.

Parameters live in `param_groups` (dicts holding "params" and the group's options), per-parameter
state in `state` (a dict of Tensors keyed by the parameter). `state_dict()` has torch's layout:
state keyed by the parameter's index in the groups, and groups whose "params" are index lists.

Updates run on the parameters' backend arrays (`p._data`) with the backend primitives, so no graph
is recorded and they work on every device; each update bumps the parameter's version counter as an
in-place op does, so that a graph which saved the parameter refuses to backward through the old
value.

The module also holds the small helpers the concrete optimizers (sgd.py, adam.py, ...) share:
argument checks, step counters, state allocation and the CPU blocking of large updates.
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
    """The default of an option every parameter group must give itself (e.g. a custom
    optimizer's lr); add_param_group refuses a group without it."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


# ---- hooks ----------------------------------------------------------------------------------------
# Hooks that run around the step() of every optimizer; each optimizer also has its own tables.
_all_optimizers_pre_step = OrderedDict()
_all_optimizers_post_step = OrderedDict()

# The per-optimizer hook tables, by the attribute names torch gives them.
_HOOK_DICTS = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
               "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
               "_optimizer_load_state_dict_post_hooks")


def _add_hook(table, hook, prepend=False):
    """Put hook in table (last, or first with prepend) and return the handle that removes it."""
    from ..nn.modules.module import RemovableHandle  # nn sits beside optim: imported when first used
    handle = RemovableHandle(table)
    table[handle.id] = hook
    if prepend:
        table.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook):
    """Register hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), called before
    every optimizer's step(); returns a handle whose remove() unregisters it."""
    return _add_hook(_all_optimizers_pre_step, hook)


def register_optimizer_step_post_hook(hook):
    """Register hook(optimizer, args, kwargs) -> None, called after every optimizer's step()."""
    return _add_hook(_all_optimizers_post_step, hook)


def _pass_through_hooks(hooks, owner, value):
    """Offer value to each hook(owner, value) in turn; a hook returning something replaces it."""
    for hook in hooks.values():
        replaced = hook(owner, value)
        if replaced is not None:
            value = replaced
    return value


def _step_with_hooks(step, opt, args, kwargs):
    """step(*args, **kwargs) with the step hooks around it. args holds the optimizer first; a pre-hook
    may swap args and kwargs. Pre-hooks run the global ones first, post-hooks the optimizer's first."""
    for hook in chain(_all_optimizers_pre_step.values(), opt._optimizer_step_pre_hooks.values()):
        swapped = hook(opt, args, kwargs)
        if swapped is None:
            continue
        if not (isinstance(swapped, tuple) and len(swapped) == 2):
            raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), but got {swapped}.")
        args, kwargs = swapped
    loss = step(*args, **kwargs)
    for hook in chain(opt._optimizer_step_post_hooks.values(), _all_optimizers_post_step.values()):
        hook(opt, args, kwargs)
    return loss


# ---- helpers of the concrete optimizers -----------------------------------------------------------

def _scalar(x):
    """A hyperparameter as a Python float (a 1-element Tensor is read once per step)."""
    if x.__class__ is float:
        return x
    return float(x.item()) if isinstance(x, Tensor) else float(x)


def _check_scalar_tensor(value, what):
    """A hyperparameter given as a Tensor must hold exactly one number."""
    if isinstance(value, Tensor) and value.numel() != 1:
        raise ValueError(f"Tensor {what} must be 1-element")


def _refuse_unless(ok, message):
    if not ok:
        raise ValueError(message)


def _check_adam_args(lr, betas, eps, weight_decay):
    """The range checks of the hyperparameters the Adam family shares (Adam, AdamW, Adamax, NAdam,
    RAdam), in torch's order so that the first bad value is the one reported."""
    _check_scalar_tensor(lr, "lr")
    # each comparison keeps the number on the left, as torch's: a value of the wrong type then
    # fails with Python's own TypeError for (float, that type), as it does in torch
    _refuse_unless(0.0 <= lr, f"Invalid learning rate: {lr}")
    _refuse_unless(0.0 <= eps, f"Invalid epsilon value: {eps}")
    for i in (0, 1):
        _refuse_unless(0.0 <= betas[i] < 1.0, f"Invalid beta parameter at index {i}: {betas[i]}")
    _refuse_unless(0.0 <= weight_decay, f"Invalid weight_decay value: {weight_decay}")


def _scalar_dtype():
    """torch keeps step counters in float32, or float64 when that is the default dtype."""
    return _dt.float64 if _dt.get_default_dtype() is _dt.float64 else _dt.float32


def _step_tensor(value=0.0):
    """A step counter: a 0-d tensor on the CPU (torch keeps it there so reading it never syncs)."""
    return _make(CPU.backend.full((), value, _scalar_dtype().np), CPU)


def _increment(step_t):
    """step_t += 1 in place; returns the new count as a float."""
    backend, counter = step_t._device.backend, step_t._data
    backend.binary_inplace("add", counter, 1)
    return float(backend.to_numpy(counter))


def _zeros_like(p, value=0):
    """A new state tensor shaped, typed and placed like p, filled with value."""
    backend, like = p._device.backend, p._data
    if value == 0:
        return _make(backend.zeros(like.shape, like.dtype), p._device)
    return _make(backend.full(like.shape, value, like.dtype), p._device)


def _bump(p):
    """Record an in-place change of p's memory, as torch's in-place ops do."""
    counter = p._vc
    if counter is None:
        p._vc = [1, 0]
    else:
        counter[0] += 1


# Elements per block of a large parameter's update on the CPU (128 KB of float32); see _blocks.
_BLOCK = 1 << 15


def _blocks(device, *arrays):
    """The arrays of one parameter's update (the parameter, its gradient, its state; all of one
    shape, None entries passed through) as matching blocks of about _BLOCK elements each on the
    CPU, or whole on other devices.

    Updating a large parameter whole makes NumPy allocate parameter-sized temporaries every
    step, and glibc hands freed blocks that large back to the OS, so the next step faults them
    in again: a stand-alone MLP 784-256-10 training script measured 1.9x slower that way with
    plain SGD and 3.2x with Adam (BENCHMARKS.md). Block-sized temporaries are reused from malloc's
    free lists instead. Every update formula is elementwise, so blocks give the same values bit
    for bit."""
    size = arrays[0].size
    if size <= _BLOCK or device.type != "cpu":
        return (arrays,)
    if all(x is None or x.flags.c_contiguous for x in arrays):
        flat = [None if x is None else x.reshape(-1) for x in arrays]  # views
        return [tuple(None if x is None else x[i:i + _BLOCK] for x in flat) for i in range(0, size, _BLOCK)]
    rows = arrays[0].shape[0]  # not contiguous: slice whole rows, about _BLOCK elements at a time
    per_block = max(1, _BLOCK * rows // size)
    return [tuple(None if x is None else x[r:r + per_block] for x in arrays) for r in range(0, rows, per_block)]


def _split_names(entries):
    """A group's "params" entries as (tensors, names): an entry is a Tensor or a (name, Tensor) pair."""
    tensors, names = [], []
    for entry in entries:
        if isinstance(entry, tuple):
            names.append(entry[0])
            entry = entry[1]
        tensors.append(entry)
    return tensors, names


def _as_param_state(param, value, key=None):
    """One loaded state entry made to match its parameter: tensors move to the parameter's device
    and, when the parameter is floating point, take its dtype, except the "step" counters, which keep
    theirs; dicts, lists and tuples are converted entry by entry."""
    if isinstance(value, Tensor):
        if key == "step":
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)
    if isinstance(value, dict):
        return {k: _as_param_state(param, v, key=k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_as_param_state(param, v) for v in value)
    return value


class Optimizer:
    """Base class for all optimizers.

    Args:
        params: an iterable of Tensors, of (name, Tensor) pairs, or of dicts (parameter groups,
            each with a "params" entry and per-group options overriding `defaults`).
        defaults: the default value of each option.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._new_hook_tables()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors "
                            "or dicts, but got " + typename(params, Tensor.type))
        self.state = defaultdict(dict)
        self.param_groups = []
        given = list(params)
        if not given:
            raise ValueError("optimizer got an empty parameter list")
        # a plain list of parameters (or of named ones) is a single group
        for group in (given if isinstance(given[0], dict) else [{"params": given}]):
            self.add_param_group(group)

    def _new_hook_tables(self, keep_existing=False):
        for name in _HOOK_DICTS:
            if not (keep_existing and name in self.__dict__):
                setattr(self, name, OrderedDict())

    def __getstate__(self):
        # the hooks (often closures or lambdas) stay behind; __setstate__ gives empty tables
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._new_hook_tables(keep_existing=True)
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    # ---- hooks ----------------------------------------------------------------------
    @staticmethod
    def profile_hook_step(func):
        """step wrapped to run the global and the optimizer's step pre- and post-hooks around it."""
        @functools.wraps(func)
        def step(*args, **kwargs):
            opt = args[0]  # args is (optimizer, ...) as the hooks receive it
            # the common case, no hook anywhere, costs four truth tests and one call
            if (opt._optimizer_step_pre_hooks or opt._optimizer_step_post_hooks
                    or _all_optimizers_pre_step or _all_optimizers_post_step):
                return _step_with_hooks(func, opt, args, kwargs)
            return func(*args, **kwargs)
        return step

    def _patch_step_function(self):
        """Make the class's step run the hooks; done once per class, marked by step.hooked."""
        cls = type(self)
        if getattr(cls.step, "hooked", None):
            return
        hooked_step = self.profile_hook_step(cls.step)
        hooked_step.hooked = True
        cls.step = hooked_step

    def register_step_pre_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), before each step()."""
        return _add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None, after each step()."""
        return _add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer) -> None, before state_dict() packs the state."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) -> state_dict or None, on state_dict()'s result."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) -> state_dict or None, before load_state_dict() loads it."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer) -> None, after load_state_dict()."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---- for the subclasses ------------------------------------------------------------
    def _upgrade_state(self, **group_defaults):
        """After __setstate__ from an older pickle: fill the options it lacked and make `step`
        counters tensors, as torch's optimizers do."""
        for group in self.param_groups:
            for option, value in group_defaults.items():
                group.setdefault(option, value)
        for entry in self.state.values():
            if isinstance(entry, dict) and "step" in entry and not isinstance(entry["step"], Tensor):
                entry["step"] = _step_tensor(float(entry["step"]))

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
        text = type(self).__name__ + " ("
        for index, group in enumerate(self.param_groups):
            options = "".join(f"    {name}: {group[name]}\n" for name in sorted(group) if name != "params")
            text += f"\nParameter Group {index}\n{options}"
        return text + ")"

    def step(self, closure=None):
        """Perform a single optimization step (subclasses implement it)."""
        raise NotImplementedError

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all optimized tensors: to None (the default), or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                grad = p._grad
                if grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                    continue
                # zeroed in place, the gradient leaves any graph it was part of
                if grad.grad_fn is None:
                    grad._requires_grad = False
                else:
                    grad.detach_()
                backend = grad._device.backend
                backend.copyto(grad._data, backend.zeros((), grad._data.dtype))
                _bump(grad)

    def add_param_group(self, param_group):
        """Add a parameter group (a dict with "params" and optional per-group options)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        entries = param_group["params"]
        if isinstance(entries, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the "
                            "ordering of tensors in sets will change between runs. Please use a list instead.")
        tensors, names = _split_names([entries] if isinstance(entries, Tensor) else list(entries))
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        self._check_params(tensors)
        self._fill_options(param_group)
        if len(set(tensors)) < len(tensors):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        self._check_disjoint(param_group)
        self.param_groups.append(param_group)

    def _check_params(self, tensors):
        # a non-leaf's .grad is never filled, unless it retains it (or the optimizer differentiates)
        leaves_only = not self.defaults.get("differentiable", None)
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + typename(t, Tensor.type))
            if leaves_only and not t.is_leaf and not t.retains_grad:
                raise ValueError("can't optimize a non-leaf Tensor")

    def _fill_options(self, group):
        """Give group every option it does not set, from the defaults."""
        for option, default in self.defaults.items():
            if option not in group:
                if default is required:
                    raise ValueError("parameter group didn't specify a value of required optimization "
                                     f"parameter {option}")
                group[option] = default

    def _check_disjoint(self, new_group):
        """The new group must be named as the others are, and share no parameter with them."""
        named = "param_names" in new_group
        kind = "with names" if named else "without names"
        seen = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in group) != named:
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {kind} to the optimizer")
        if not seen.isdisjoint(new_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")

    # ---- checkpoints --------------------------------------------------------------
    def _param_indices(self):
        """id(parameter) -> its index in a state_dict: parameters are numbered through the groups in
        order; a parameter listed twice in one group gets its later place, one already numbered in an
        earlier group keeps that number."""
        index = {}
        start = 0
        for group in self.param_groups:
            params = group["params"]
            here = {id(p): start + i for i, p in enumerate(params)}
            for key, i in here.items():
                index.setdefault(key, i)
            start += len(params)
        return index

    def state_dict(self):
        """The optimizer's state as torch lays it out: {"state": {index: {...}}, "param_groups": [...]}.

        Tensors in it are the optimizer's own (not copies), as in torch.
        """
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index = self._param_indices()
        groups = []
        for group in self.param_groups:
            packed = {option: value for option, value in group.items() if option != "params"}
            packed["params"] = [index[id(p)] for p in group["params"]]  # "params" comes last, as in torch
            groups.append(packed)
        state = {(index[id(key)] if isinstance(key, Tensor) else key): entry for key, entry in self.state.items()}
        return _pass_through_hooks(self._optimizer_state_dict_post_hooks, self,
                                   {"state": state, "param_groups": groups})

    def load_state_dict(self, state_dict):
        """Load a state from `state_dict()` (this optimizer's or one built the same way)."""
        state_dict = _pass_through_hooks(self._optimizer_load_state_dict_pre_hooks, self, state_dict.copy())
        saved = deepcopy(state_dict["param_groups"])
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for mine, theirs in zip(self.param_groups, saved):
            if len(mine["params"]) != len(theirs["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                 "optimizer's group")
        # the saved indices name our parameters by position
        by_index = dict(zip(chain.from_iterable(g["params"] for g in saved),
                            chain.from_iterable(g["params"] for g in self.param_groups)))
        state = defaultdict(dict)
        for key, entry in state_dict["state"].items():
            if key in by_index:
                state[by_index[key]] = _as_param_state(by_index[key], entry)
            else:
                state[key] = entry
        # the loaded options, on our parameters (and our names when the checkpoint has none)
        for mine, theirs in zip(self.param_groups, saved):
            theirs["params"] = mine["params"]
            if "param_names" in mine:
                theirs.setdefault("param_names", mine["param_names"])
        self.__setstate__({"state": state, "param_groups": saved})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)
