"""Learning-rate schedulers, as torch.optim.lr_scheduler: each step() sets every group's "lr".

Most schedules are computed "chainably": the new lr is derived from the lr the group holds now
(lr_t = lr_{t-1} * something), not from the epoch number alone. That is what lets several
schedulers act on one optimizer and compound, and it is also why the float arithmetic below is
written in exactly the order that reproduces torch's sequences bit for bit. step(epoch) with an
explicit epoch uses the closed form (lr_t from initial_lr and t) where a scheduler has one.

A group's lr may be a float or a 1-element Tensor; a Tensor is updated in place, so code holding
it sees the change.
"""
import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from functools import partial, wraps
from weakref import ref

from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
           "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
           "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR", "LRScheduler"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different "
    "from None, the closed form is used instead of the new chainable form, where available. Please open "
    "an issue if you are unable to replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose."
)

_LR_ORDER_DOCS = "See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"


# ---- group options: a float, or a 1-element Tensor changed in place ---------------------------------

def _group_values(optimizer, key):
    """Every group's `key` option, as a list; Tensors are cloned, so the list is a snapshot."""
    return [value.clone() if isinstance(value, Tensor) else value
            for value in (group[key] for group in optimizer.param_groups)]


def _set_group_value(group, key, value):
    current = group[key]
    if isinstance(current, Tensor):
        current.fill_(float(value))
    else:
        group[key] = value


def _format_param(name, optimizer, param):
    """One value per parameter group: a list or tuple of one per group, or one value for all."""
    count = len(optimizer.param_groups)
    if not isinstance(param, (list, tuple)):
        param = [param] * count
    elif len(param) != count:
        raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has {len(param)} "
                         f"values, param_groups has {count}.")
    return [value.clone() if isinstance(value, Tensor) else value for value in param]


def _require_optimizer(optimizer):
    if isinstance(optimizer, Optimizer):
        return
    raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _warn_epoch_argument():
    # stacklevel 3: the line that called the scheduler's step(..., epoch)
    warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=3)


def _callable_state(fn):
    """What a state_dict keeps of a user function: nothing for a plain function (it cannot be
    saved by value), a copy of the attributes of a callable object (its parameters, usually)."""
    if fn is None or isinstance(fn, types.FunctionType):
        return None
    return fn.__dict__.copy()


def _check_int_at_least(value, minimum, message):
    # compared first, as torch does: a value of the wrong type that cannot be compared raises TypeError
    if value < minimum or not isinstance(value, int):
        raise ValueError(message)


def _cosine_between(low, high, t, period):
    """The half-cosine from high (t = 0) down to low (t = period)."""
    return low + (high - low) * (1 + math.cos(math.pi * t / period)) / 2


class LRScheduler:
    """Base class of the schedulers: subclasses implement get_lr().

    Creating a scheduler records each group's starting lr as group["initial_lr"] (`base_lrs`) and
    performs the first step (last_epoch becomes 0). Resuming with last_epoch >= 0 expects the
    groups to have their initial_lr already (from the optimizer's state_dict).
    """

    # class-level defaults; the instance gets its own values from the first step on
    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        _require_optimizer(optimizer)
        self.optimizer = optimizer
        groups = optimizer.param_groups
        if last_epoch == -1:  # a new run: the lrs the groups hold now are where the schedule starts
            for group, start in zip(groups, _group_values(optimizer, "lr")):
                group.setdefault("initial_lr", start)
        else:
            missing = [i for i, group in enumerate(groups) if "initial_lr" not in group]
            if missing:
                raise KeyError(
                    f"param 'initial_lr' is not specified in param_groups[{missing[0]}] when resuming scheduler "
                    "with last_epoch >= 0.\nThis typically happens when:\n1. You're trying to resume "
                    "training from a checkpoint but haven't properly loaded the optimizer state\n2. "
                    "You're using last_epoch >= 0 for a fresh training run (not recommended)")
        self.base_lrs = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        self._patch_optimizer_step()
        self._initial_step()

    def _patch_optimizer_step(self):
        """Wrap optimizer.step, on the instance and only once whatever the number of schedulers, so
        that it notes it ran (optimizer._opt_called): the scheduler's first step() warns when it
        comes before the optimizer's."""
        opt = self.optimizer
        if hasattr(opt.step, "_wrapped_by_lr_sched"):
            return
        unbound = opt.step.__func__
        weak_opt = ref(opt)  # the wrapper lives on the optimizer: a strong reference would be a cycle

        @wraps(unbound)
        def step_and_note(*args, **kwargs):
            owner = weak_opt()
            owner._opt_called = True
            return unbound(owner, *args, **kwargs)

        step_and_note._wrapped_by_lr_sched = True
        opt.step = step_and_note

    def _initial_step(self):
        """The step made at construction (again by SequentialLR when it switches)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """Every attribute but the optimizer."""
        return self._attributes_except()

    def _attributes_except(self, *left_out):
        return {name: value for name, value in self.__dict__.items()
                if name != "optimizer" and name not in left_out}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates the last step() set, one per parameter group."""
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def step(self, epoch=None):
        """Advance one epoch and set the groups' lr (call it after optimizer.step())."""
        if self._step_count == 1:
            self._check_call_order()
        self._step_count += 1
        if epoch is not None:
            _warn_epoch_argument()
        self._update_lr(epoch)

    def _check_call_order(self):
        # (stacklevel 3: the warning points at the line that called scheduler.step())
        opt_step = self.optimizer.step
        if not hasattr(opt_step, "_wrapped_by_lr_sched"):
            warnings.warn(
                "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                "initialization. Please, make sure to call `optimizer.step()` before "
                "`lr_scheduler.step()`. " + _LR_ORDER_DOCS, UserWarning, stacklevel=3)
        elif not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
                "later, you should call them in the opposite order: `optimizer.step()` before "
                "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
                "value of the learning rate schedule. " + _LR_ORDER_DOCS, UserWarning, stacklevel=3)

    def _update_lr(self, epoch=None):
        """Move to the next epoch (chainable get_lr), or to `epoch` (the closed form where the
        scheduler has one), and give the groups the new lrs."""
        if epoch is None:
            self.last_epoch += 1
            compute = self.get_lr
        else:
            self.last_epoch = epoch
            compute = getattr(self, "_get_closed_form_lr", None) or self.get_lr
        self._set_lrs(self._call_get_lr(compute))

    def _call_get_lr(self, compute):
        """compute() with the flag up that tells get_lr it runs inside step() (so it doesn't warn)."""
        self._get_lr_called_within_step = True
        try:
            return compute()
        finally:
            self._get_lr_called_within_step = False

    def _set_lrs(self, lrs):
        # strict, as torch: a group added after the scheduler was made raises instead of going unscheduled
        for group, lr in zip(self.optimizer.param_groups, lrs, strict=True):
            _set_group_value(group, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")

    def _warn_get_lr_outside_step(self):
        if self._get_lr_called_within_step:
            return
        warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                      UserWarning, stacklevel=3)

    # shorthands of the get_lr implementations
    def _current_lrs(self):
        return _group_values(self.optimizer, "lr")

    def _scaled_lrs(self, factor):
        """Every group's current lr times factor (the chainable update)."""
        return [group["lr"] * factor for group in self.optimizer.param_groups]

    def _scaled_base_lrs(self, factor):
        """Every initial lr times factor (the closed form)."""
        return [base * factor for base in self.base_lrs]


class _LRScheduler(LRScheduler):
    """The pre-2.0 name of LRScheduler, kept for code that subclasses it."""


def _one_per_group(optimizer, lr_lambda):
    """LambdaLR's and MultiplicativeLR's functions: one for every parameter group, or one each."""
    count = len(optimizer.param_groups)
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * count
    if len(lr_lambda) != count:
        raise ValueError(f"Expected {count} lr_lambdas, but got {len(lr_lambda)}")
    return list(lr_lambda)


class _FunctionsInState:
    """state_dict/load_state_dict of LambdaLR and MultiplicativeLR: the lr_lambdas are saved as
    _callable_state says (None for plain functions), in an entry placed last."""

    def state_dict(self):
        saved = self._attributes_except("lr_lambdas")
        saved["lr_lambdas"] = [_callable_state(fn) for fn in self.lr_lambdas]
        return saved

    def load_state_dict(self, state_dict):
        # the entry is taken out while the rest becomes attributes, then put back (last) in the caller's dict
        fn_states = state_dict.pop("lr_lambdas")
        LRScheduler.load_state_dict(self, state_dict)
        state_dict["lr_lambdas"] = fn_states
        for i, fn_state in enumerate(fn_states):
            if fn_state is not None:
                self.lr_lambdas[i].__dict__.update(fn_state)


class LambdaLR(_FunctionsInState, LRScheduler):
    """lr = initial_lr * lr_lambda(epoch); one function, or a list with one per parameter group."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _one_per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        epoch = self.last_epoch
        return [base * fn(epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs, strict=True)]


class MultiplicativeLR(_FunctionsInState, LRScheduler):
    """Multiply the lr by lr_lambda(epoch) every epoch (one function, or one per parameter group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _one_per_group(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        if self._is_initial:
            return self._current_lrs()
        epoch = self.last_epoch
        return [group["lr"] * fn(epoch)
                for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)]


class StepLR(LRScheduler):
    """Multiply the lr by gamma every step_size epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        at_boundary = self.last_epoch != 0 and self.last_epoch % self.step_size == 0
        return self._scaled_lrs(self.gamma) if at_boundary else self._current_lrs()

    def _get_closed_form_lr(self):
        return self._scaled_base_lrs(self.gamma ** (self.last_epoch // self.step_size))


class MultiStepLR(LRScheduler):
    """Multiply the lr by gamma at each milestone epoch (a milestone listed twice counts twice)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)  # epoch -> how many times it is listed
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        times = self.milestones.get(self.last_epoch, 0)
        return self._scaled_lrs(self.gamma ** times) if times else self._current_lrs()

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return self._scaled_base_lrs(self.gamma ** passed)


class ExponentialLR(LRScheduler):
    """Multiply the lr by gamma every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        return self._current_lrs() if self._is_initial else self._scaled_lrs(self.gamma)

    def _get_closed_form_lr(self):
        return self._scaled_base_lrs(self.gamma ** self.last_epoch)


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the initial lr down to eta_min over T_max epochs (and back up after).

    Chainably, each step rescales the distance to eta_min by the ratio of consecutive points of
    the curve 1 + cos(pi t / T_max):
        lr_t = eta_min + (lr_{t-1} - eta_min) * (1 + cos(pi t / T_max)) / (1 + cos(pi (t-1) / T_max))
    At t = T_max + 1 (mod 2 T_max) the previous point is the curve's zero, where the ratio is
    undefined, so that step adds the curve's rise instead.
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def _curve(self, t):
        return 1 + math.cos(math.pi * t / self.T_max)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        t, groups, low = self.last_epoch, self.optimizer.param_groups, self.eta_min
        if self._is_initial:
            return self._current_lrs()
        if self._step_count == 1 and t > 0:
            return [_cosine_between(low, base, t, self.T_max) for base, _ in zip(self.base_lrs, groups, strict=True)]
        if (t - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group["lr"] + (base - low) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base, group in zip(self.base_lrs, groups, strict=True)]
        ratio = self._curve(t) / self._curve(t - 1)
        return [ratio * (group["lr"] - low) + low for group in groups]

    def _get_closed_form_lr(self):
        return [_cosine_between(self.eta_min, base, self.last_epoch, self.T_max) for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """Multiply the lr by factor until epoch total_iters, then give back the initial lr."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor < 0 or factor > 1.0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        if self.last_epoch == 0:
            return self._scaled_lrs(self.factor)
        if self.last_epoch == self.total_iters:
            return self._scaled_lrs(1.0 / self.factor)
        return self._current_lrs()

    def _get_closed_form_lr(self):
        done = self.last_epoch >= self.total_iters
        return self._scaled_base_lrs(self.factor + done * (1 - self.factor))


class LinearLR(LRScheduler):
    """Scale the lr linearly from start_factor to end_factor times the initial lr over total_iters epochs."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor <= 0 or start_factor > 1.0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor < 0 or end_factor > 1.0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        t = self.last_epoch
        if t == 0:
            return self._scaled_lrs(self.start_factor)
        if self._is_initial or t > self.total_iters:
            return self._current_lrs()
        # the factor at t over the factor at t - 1, both as multiples of start_factor * total_iters
        span = self.end_factor - self.start_factor
        return self._scaled_lrs(1.0 + span / (self.total_iters * self.start_factor + (t - 1) * span))

    def _get_closed_form_lr(self):
        span = self.end_factor - self.start_factor
        reached = min(self.total_iters, self.last_epoch)
        return self._scaled_base_lrs(self.start_factor + span * reached / self.total_iters)


class PolynomialLR(LRScheduler):
    """Decay the lr as (1 - epoch / total_iters) ** power, reaching 0 at total_iters."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def _remaining(self, t):
        return 1.0 - t / self.total_iters

    def get_lr(self):
        self._warn_get_lr_outside_step()
        t = self.last_epoch
        if self._is_initial or t > self.total_iters:
            return self._current_lrs()
        return self._scaled_lrs((self._remaining(t) / self._remaining(t - 1)) ** self.power)

    def _get_closed_form_lr(self):
        return self._scaled_base_lrs(self._remaining(min(self.total_iters, self.last_epoch)) ** self.power)


# ---- schedulers of schedulers -------------------------------------------------------------------------

def _check_schedulers(cls_name, optimizer, schedulers):
    """The schedulers SequentialLR and ChainedScheduler drive must all act on `optimizer` and be
    steppable without arguments."""
    for i, sched in enumerate(schedulers):
        if not hasattr(sched, "optimizer"):
            raise TypeError(f"{cls_name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(sched, ReduceLROnPlateau):
            raise ValueError(
                f"{cls_name} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be "
                f"specified when calling `step`, but got one at index {i} in the given schedulers sequence.")
        if optimizer != sched.optimizer:
            raise ValueError(
                f"{cls_name} expects all schedulers to belong to the same optimizer, but got scheduler "
                f"{type(sched).__name__} at index {i} has {sched.optimizer}, which is "
                f"different from {type(optimizer).__name__}.")


def _require_some(scheduler, schedulers, what):
    if not schedulers:
        raise ValueError(f"{type(scheduler).__name__} expects at least one scheduler{what}, but got no scheduler.")


class _SchedulerList:
    """state_dict/load_state_dict of a scheduler of schedulers: the inner ones' state_dicts go
    in a "_schedulers" entry placed last."""

    def state_dict(self):
        saved = self._attributes_except("_schedulers")
        saved["_schedulers"] = [inner.state_dict() for inner in self._schedulers]
        return saved

    def load_state_dict(self, state_dict):
        inner_states = state_dict.pop("_schedulers")
        LRScheduler.load_state_dict(self, state_dict)
        state_dict["_schedulers"] = inner_states
        for inner, inner_state in zip(self._schedulers, inner_states):
            inner.load_state_dict(inner_state)


class SequentialLR(_SchedulerList, LRScheduler):
    """Run schedulers one after another, switching to the next at each milestone epoch."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _require_some(self, schedulers, "")
        _check_schedulers(type(self).__name__, optimizer, schedulers)
        if len(milestones) + 1 != len(schedulers):
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
                f"milestone points, but got number of schedulers {len(schedulers)} and the number of milestones "
                f"to be equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Each inner scheduler stepped once when it was made, and the lrs are now their compound
        # result: go back to the initial lrs and epochs, then let only the first one in charge step.
        for group in self.optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        current = self._schedulers[bisect_right(milestones, 0)]
        current._initial_step()
        self._last_lr = current.get_last_lr()

    def recursive_undo(self, sched=None):
        """Step back every (nested) scheduler's last_epoch by one."""
        target = self if sched is None else sched
        if hasattr(target, "_schedulers"):
            for inner in target._schedulers:
                self.recursive_undo(inner)
        elif hasattr(target, "last_epoch"):
            target.last_epoch -= 1

    def step(self):
        self.last_epoch += 1
        which = bisect_right(self._milestones, self.last_epoch)
        current = self._schedulers[which]
        if which and self._milestones[which - 1] == self.last_epoch:
            current._update_lr(0)  # its first epoch: start it from its beginning (closed form)
        else:
            current.step()
        self._last_lr = current.get_last_lr()


class ChainedScheduler(_SchedulerList, LRScheduler):
    """Step several schedulers together (their changes to the lr compound)."""

    def __init__(self, schedulers, optimizer=None):
        _require_some(self, schedulers, " to be chained")
        if not optimizer:  # by default, the optimizer of the first one
            optimizer = schedulers[0].optimizer
        _check_schedulers(type(self).__name__, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(schedulers[-1].optimizer, "lr")

    def step(self):
        for inner in self._schedulers:
            inner.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")


# ---- ReduceLROnPlateau ---------------------------------------------------------------------------------

class ReduceLROnPlateau(LRScheduler):
    """Multiply the lr by factor when the metric passed to step(metrics) stopped improving for more
    than patience epochs (then wait cooldown epochs), never below min_lr.

    "Improving" means beating the best value so far by threshold, relative (a fraction of best)
    or absolute, in the direction mode says ("min": lower is better)."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _require_optimizer(optimizer)
        self.optimizer = optimizer
        groups = len(optimizer.param_groups)
        per_group = isinstance(min_lr, (list, tuple))
        if per_group and len(min_lr) != groups:
            raise ValueError(f"expected {groups} min_lrs, got {len(min_lr)}")
        # one min_lr for all also serves groups added later; a list per group cannot be extended
        self.default_min_lr = None if per_group else min_lr
        self.min_lrs = list(min_lr) if per_group else [min_lr] * groups
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer, "lr")
        self._set_comparison(mode, threshold, threshold_mode)
        self._start_over()

    def _set_comparison(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = -math.inf if mode == "max" else math.inf  # the starting "best": anything beats it
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def _start_over(self):
        self.best, self.cooldown_counter, self.num_bad_epochs = self.mode_worse, 0, 0

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        relative = self.threshold_mode == "rel"
        if self.mode == "min":
            return a < (best * (1.0 - self.threshold) if relative else best - self.threshold)
        return a > (best * (self.threshold + 1.0) if relative else best + self.threshold)

    def step(self, metrics, epoch=None):
        """Record one epoch's metric (a number or a 1-element tensor) and reduce the lr if it is time."""
        value = float(metrics)
        if epoch is not None:
            _warn_epoch_argument()
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self._is_better(value, self.best):
            self.best, self.num_bad_epochs = value, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:  # bad epochs during the cooldown do not count
            self.cooldown_counter, self.num_bad_epochs = self.cooldown_counter - 1, 0
        out_of_patience = self.num_bad_epochs > self.patience
        if out_of_patience:  # lower the lrs, then cool down
            self._lower_lrs()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _lower_lrs(self):
        groups = self.optimizer.param_groups
        if len(self.min_lrs) != len(groups):  # groups were added since
            if self.default_min_lr is not None:
                self.min_lrs = [self.default_min_lr] * len(groups)
            else:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs "
                    f"from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new "
                    "param group being added to the optimizer. Please modify the `min_lrs` field to match the "
                    "length of the `optimizer` param groups.")
        for group, floor in zip(groups, self.min_lrs):
            before = float(group["lr"])
            after = max(before * self.factor, floor)
            if before - after > self.eps:  # changes smaller than eps are not worth making
                _set_group_value(group, "lr", after)

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        self._set_comparison(self.mode, self.threshold, self.threshold_mode)


# ---- cyclical schedules, which may move the momentum too ---------------------------------------------

def _set_momentum(scheduler, group, momentum):
    """Set the group's momentum: Adam-like optimizers have it as beta1, the first of its betas."""
    if scheduler.use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


def _init_momentum(scheduler, optimizer, base_momentum, max_momentum, last_epoch):
    """cycle_momentum's setup (CyclicLR, OneCycleLR): the momentum starts at max_momentum, and each
    group records both bounds. Returns (base_momentums, max_momentums)."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    scheduler.use_beta1 = "betas" in optimizer.defaults
    highs = _format_param("max_momentum", optimizer, max_momentum)
    lows = _format_param("base_momentum", optimizer, base_momentum)
    if last_epoch == -1:
        for high, low, group in zip(highs, lows, optimizer.param_groups, strict=True):
            _set_momentum(scheduler, group, high)
            group["max_momentum"] = high
            group["base_momentum"] = low
    return lows, highs


class CyclicLR(LRScheduler):
    """Cycle the lr between base_lr and max_lr (triangular, triangular2, exp_range or a scale_fn),
    one step per batch; with cycle_momentum the momentum (or Adam's beta1) cycles the other way.

    A cycle is step_size_up steps up then step_size_down steps down; the amplitude is multiplied by
    scale_fn of the cycle number (scale_mode "cycle") or of the step count ("iterations")."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1):
        _require_optimizer(optimizer)
        self.optimizer = optimizer
        lows = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for low, group in zip(lows, optimizer.param_groups, strict=True):
                _set_group_value(group, "lr", low)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = up if step_size_down is None else float(step_size_down)
        self.total_size = up + down
        self.step_ratio = up / self.total_size  # the fraction of a cycle spent going up
        if scale_fn is None and mode not in ("triangular", "triangular2", "exp_range"):
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._use_mode_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.base_momentums, self.max_momentums = _init_momentum(self, optimizer, base_momentum, max_momentum,
                                                                     last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = lows

    def _use_mode_scale_fn(self):
        """Without a custom scale_fn, the mode's one (and the scale_mode that goes with it)."""
        mode = self.mode
        if self._scale_fn_custom is None and mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"
        elif self._scale_fn_custom is None and mode in ("triangular", "triangular2"):
            self._scale_fn_ref = (self._triangular_scale_fn if mode == "triangular"
                                  else self._triangular2_scale_fn)
            self.scale_mode = "cycle"

    def scale_fn(self, x):
        """The amplitude's scale at cycle (or iteration) x."""
        chosen = self._scale_fn_custom
        return self._scale_fn_ref(x) if chosen is None else chosen(x)

    @staticmethod
    def _triangular_scale_fn(x):
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x):
        return 1 / (2.0 ** (x - 1))  # halved every cycle

    @staticmethod
    def _exp_range_scale_fn(gamma, x):
        return gamma ** x

    def _position(self):
        """(cycle number from 1, fraction of the amplitude at this step: 0 at the bottom, 1 at the top)."""
        steps = self.last_epoch
        cycle = math.floor(1 + steps / self.total_size)
        x = 1.0 + steps / self.total_size - cycle  # how far into the cycle, in [0, 1)
        if x <= self.step_ratio:
            return cycle, x / self.step_ratio
        return cycle, (x - 1) / (self.step_ratio - 1)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        cycle, height = self._position()
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        # scale_fn is called once per group, for the lrs then for the momenta, as in torch
        lrs = [low + (high - low) * height * self.scale_fn(at)
               for low, high in zip(self.base_lrs, self.max_lrs, strict=True)]
        if self.cycle_momentum:
            momenta = [high - (high - low) * height * self.scale_fn(at)
                       for low, high in zip(self.base_momentums, self.max_momentums, strict=True)]
            for group, momentum in zip(self.optimizer.param_groups, momenta, strict=True):
                _set_momentum(self, group, momentum)
        return lrs

    def state_dict(self):
        """As the base's, without the scale function (a custom callable object keeps its __dict__)."""
        saved = self._attributes_except("_scale_fn_ref", "_scale_fn_custom")
        saved["_scale_fn_custom"] = _callable_state(self._scale_fn_custom)
        return saved

    def load_state_dict(self, state_dict):
        fn_state = state_dict.pop("_scale_fn_custom")  # taken out of the caller's dict, as torch does
        super().load_state_dict(state_dict)
        if fn_state is not None:
            self._scale_fn_custom.__dict__.update(fn_state)
        self._use_mode_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from the initial lr to eta_min, restarted every T_i epochs (T_0, then times T_mult).

    T_cur counts the epochs since the last restart; step(epoch) accepts fractional epochs (one
    step per batch) and finds the restart period the epoch falls in."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        _check_int_at_least(T_0, 1, f"Expected positive integer T_0, but got {T_0}")
        _check_int_at_least(T_mult, 1, f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (int, float)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        return [_cosine_between(self.eta_min, base, self.T_cur, self.T_i) for base in self.base_lrs]

    def _next_epoch(self):
        self.T_cur += 1
        if self.T_cur >= self.T_i:  # restart, with a period T_mult times longer
            self.T_cur %= self.T_i
            self.T_i *= self.T_mult

    def _go_to_epoch(self, epoch):
        if epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        if not epoch >= self.T_0:  # (not "<": a NaN epoch lands here)
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:  # equal periods
            self.T_cur = epoch % self.T_0
        else:
            # periods T_0 * T_mult**k: the restarts before period n add up to T_0 (T_mult**n - 1) / (T_mult - 1)
            n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult ** n

    def step(self, epoch=None):
        """One epoch on, or to epoch (which may be fractional: a step per batch)."""
        if epoch is None and self.last_epoch >= 0:
            epoch = 1 + self.last_epoch
            self._next_epoch()
        else:
            epoch = 0 if epoch is None else epoch  # None here: the step made at construction
            self._go_to_epoch(epoch)
        self.last_epoch = math.floor(epoch)
        self._set_lrs(self._call_get_lr(self.get_lr))


def _phase(end_step, start_lr, end_lr, start_momentum, end_momentum):
    """One phase of OneCycleLR: the step it ends at, and the names of the group options its lr and
    momentum go from and to."""
    return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr, "start_momentum": start_momentum,
            "end_momentum": end_momentum}


class OneCycleLR(LRScheduler):
    """The 1cycle policy, one step per batch: the lr rises from max_lr / div_factor to max_lr over
    pct_start of total_steps, then anneals (cos or linear) to initial_lr / final_div_factor (three_phase:
    back to initial_lr first); with cycle_momentum the momentum (or beta1) moves the other way."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25.0, final_div_factor=1e4, three_phase=False, last_epoch=-1):
        _require_optimizer(optimizer)
        self.optimizer = optimizer
        self.total_steps = self._count_steps(total_steps, epochs, steps_per_epoch)
        warm_end = float(pct_start * self.total_steps) - 1
        last = self.total_steps - 1
        if three_phase:
            self._schedule_phases = [
                _phase(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr", "base_momentum",
                       "max_momentum"),
                _phase(last, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            self._schedule_phases = [
                _phase(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(last, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        if not isinstance(pct_start, float) or pct_start < 0 or pct_start > 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        peaks = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for peak, group in zip(peaks, optimizer.param_groups):
                group["initial_lr"] = peak / div_factor
                group["max_lr"] = peak
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _init_momentum(self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _count_steps(total_steps, epochs, steps_per_epoch):
        """The schedule's length: total_steps, or epochs * steps_per_epoch."""
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
            for name, count in (("epochs", epochs), ("steps_per_epoch", steps_per_epoch)):
                # (the type is checked first here, unlike total_steps')
                if isinstance(count, int) and count > 0:
                    continue
                raise ValueError(f"Expected positive integer {name}, but got {count}")
            return epochs * steps_per_epoch
        _check_int_at_least(total_steps, 1, f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps

    @staticmethod
    def _annealing_cos(start, end, pct):
        """Cosine anneal from start to end as pct goes from 0.0 to 1.0."""
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _annealing_linear(start, end, pct):
        """Linear anneal from start to end as pct goes from 0.0 to 1.0."""
        return start + (end - start) * pct

    def _anneal(self, start, end, pct):
        kind = self._anneal_func_type
        if kind == "cos":
            return self._annealing_cos(start, end, pct)
        if kind == "linear":
            return self._annealing_linear(start, end, pct)
        raise ValueError(f"Unknown _anneal_func_type: {kind}")

    def _current_phase(self, step):
        """(the phase step falls in, how far through it step is); past the end, the last phase."""
        phase_start = 0.0
        for phase in self._schedule_phases[:-1]:
            if step <= phase["end_step"]:
                break
            phase_start = phase["end_step"]
        else:
            phase = self._schedule_phases[-1]
        return phase, (step - phase_start) / (phase["end_step"] - phase_start)

    def get_lr(self):
        self._warn_get_lr_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is "
                             f"{self.total_steps}")
        groups = self.optimizer.param_groups
        if not groups:
            return []
        phase, pct = self._current_phase(step)
        lrs = []
        for group in groups:
            lrs.append(self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct))
            if self.cycle_momentum:
                _set_momentum(self, group,
                              self._anneal(group[phase["start_momentum"]], group[phase["end_momentum"]], pct))
        return lrs
