"""Weight averaging (torch.optim.swa_utils): AveragedModel keeps a running average of a model's
weights (stochastic weight averaging, SWA, or an exponential moving average, EMA), update_bn
recomputes BatchNorm statistics for the averaged weights, and SWALR anneals the learning rate to
a constant for the averaging phase.

Two kinds of averaging function are accepted, as in torch: avg_fn(averaged, current, n) returns
the new average of one tensor; multi_avg_fn(averaged_list, current_list, n) updates a list of
tensors (all of one device and dtype) in place.
"""
import itertools
import math
from copy import deepcopy

from .. import dtypes as _dt
from ..autograd.grad_mode import no_grad
from ..creation import tensor as _tensor
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from ..tensor import Tensor
from .lr_scheduler import LRScheduler, _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:  # (NaN passes, as in torch)
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


# ---- averaging functions -------------------------------------------------------------------------

def get_ema_multi_avg_fn(decay=0.999):
    """In-place EMA of lists of tensors: avg <- decay * avg + (1 - decay) * current."""
    _check_decay(decay)
    new_weight = 1 - decay

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        pairs = zip(ema_param_list, current_param_list, strict=True)
        if ema_param_list[0].is_floating_point():
            for avg, cur in pairs:
                avg.lerp_(cur, new_weight)  # avg + (1 - decay) * (cur - avg)
        else:  # integer tensors: computed in floating point, truncated back on the copy
            for avg, cur in pairs:
                avg.copy_(avg * decay + cur * new_weight)

    return ema_update


def get_swa_multi_avg_fn():
    """In-place running mean of lists of tensors: avg <- avg + (current - avg) / (n + 1)."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if averaged_param_list[0].is_floating_point():
            # (a 0-d tensor weight when n is a tensor)
            weight = 1 / (num_averaged + 1)
            for avg, cur in zip(averaged_param_list, current_param_list, strict=True):
                avg.lerp_(cur, weight)
            return
        # integer tensors: all the differences first, then one division per tensor
        steps = [cur - avg for avg, cur in zip(averaged_param_list, current_param_list, strict=True)]
        as_tensor = isinstance(num_averaged, Tensor)
        for avg, step in zip(averaged_param_list, steps):
            if as_tensor:
                avg.addcdiv_(step, num_averaged + 1)
            else:
                avg.add_(step, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """avg_fn(ema, current, n) -> decay * ema + (1 - decay) * current."""
    _check_decay(decay)
    new_weight = 1 - decay

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + new_weight * current_param

    return ema_update


def get_swa_avg_fn():
    """avg_fn(avg, current, n) -> the running mean of n + 1 values, avg + (current - avg) / (n + 1)."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


# ---- the averaged model -------------------------------------------------------------------------

def _by_device_and_dtype(pairs):
    """{(device, dtype): ([averaged...], [current...])}, keys in order of first appearance."""
    groups = {}
    for avg, cur in pairs:
        avgs, curs = groups.setdefault((avg.device, avg.dtype), ([], []))
        avgs.append(avg)
        curs.append(cur)
    return groups


class AveragedModel(Module):
    """A copy of `model` (its `module`) whose weights are the average of those passed to
    update_parameters(model): the running mean by default (SWA), or avg_fn / multi_avg_fn (for
    example an EMA). With use_buffers the buffers are averaged too; otherwise update_parameters
    copies them from the model. The `n_averaged` buffer (int64) counts the updates."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        copy = deepcopy(model)
        self.module = copy if device is None else copy.to(device)
        self.register_buffer("n_averaged", _tensor(0, dtype=_dt.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _tracked_pairs(self, model):
        """(averaged, current) detached tensor pairs, current moved to the averaged one's device."""
        if self.use_buffers:
            ours = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            ours, theirs = self.parameters(), model.parameters()
        return [(avg.detach(), cur.detach().to(avg.device)) for avg, cur in zip(ours, theirs)]

    def _average_into(self, pairs):
        if self.avg_fn is not None and self.multi_avg_fn is None:
            for avg, cur in pairs:
                avg.copy_(self.avg_fn(avg, cur, self.n_averaged.to(avg.device)))
            return
        # list-wise: the given multi_avg_fn, or the running mean (torch's foreach form on CUDA,
        # tensor by tensor elsewhere)
        for (device, _), (avgs, curs) in _by_device_and_dtype(pairs).items():
            count = self.n_averaged.to(device)
            if self.multi_avg_fn:
                self.multi_avg_fn(avgs, curs, count)
            elif device.type == "cuda":
                get_swa_multi_avg_fn()(avgs, curs, count)
            else:
                running_mean = get_swa_avg_fn()
                for avg, cur in zip(avgs, curs, strict=True):
                    avg.copy_(running_mean(avg, cur, count))

    def update_parameters(self, model):
        """Fold model's current weights into the average (the first call just copies them)."""
        pairs = self._tracked_pairs(model)
        if bool(self.n_averaged == 0):
            for avg, cur in pairs:
                avg.copy_(cur)
        elif bool(self.n_averaged > 0):
            self._average_into(pairs)

        if not self.use_buffers:
            # unaveraged buffers (BatchNorm's running statistics) follow the model's
            for mine, theirs in zip(self.module.buffers(), model.buffers(), strict=True):
                mine.detach().copy_(theirs.detach().to(mine.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader, model, device=None):
    """Recompute model's BatchNorm running statistics with one pass over loader.

    The statistics are reset and accumulated as a plain average over the batches (momentum None)
    in training mode; the momenta and model's training flag are restored afterwards. A batch that
    is a list or tuple contributes its first element (the input)."""
    norms = [m for m in model.modules() if isinstance(m, _BatchNorm)]
    if not norms:
        return
    saved_momenta = [m.momentum for m in norms]
    for m in norms:
        m.reset_running_stats()

    training_before = model.training
    model.train()
    for m in norms:
        m.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        model(batch if device is None else batch.to(device))

    for m, momentum in zip(norms, saved_momenta):
        m.momentum = momentum
    model.train(training_before)


# ---- the learning-rate schedule ---------------------------------------------------------------------

def _linear_anneal(t):
    return t


def _cosine_anneal(t):
    return (1 - math.cos(math.pi * t)) / 2


_ANNEAL_FUNCS = {"cos": _cosine_anneal, "linear": _linear_anneal}


class SWALR(LRScheduler):
    """Anneal each group's lr to its swa_lr over anneal_epochs steps ("cos" or "linear"), then hold it.

    After k steps lr_k = alpha_k * swa_lr + (1 - alpha_k) * lr_0, alpha_k = anneal(min(1, k / anneal_epochs)).
    The schedule is chainable: lr_0 is not stored but recovered from the group's current lr, which
    is taken to be lr_{k-1}."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for group, target in zip(optimizer.param_groups, _format_param("swa_lr", optimizer, swa_lr), strict=True):
            group["swa_lr"] = target
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._use_strategy(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def _use_strategy(self, name):
        self._anneal_strategy = name
        self.anneal_func = _ANNEAL_FUNCS[name]

    def _fraction(self, k):
        """How far the annealing is after k steps, in [0, 1]."""
        return max(0, min(1, k / max(1, self.anneal_epochs)))

    def get_lr(self):
        self._warn_get_lr_outside_step()
        k = self._step_count - 1
        if self.anneal_epochs == 0:
            k = max(1, k)
        alpha_prev = self.anneal_func(self._fraction(k - 1))
        alpha = self.anneal_func(self._fraction(k))
        new_lrs = []
        for group in self.optimizer.param_groups:
            target = group["swa_lr"]
            # undo the previous step's interpolation to find the lr the annealing started from
            if alpha_prev == 1:
                start = target
            else:
                start = (group["lr"] - alpha_prev * target) / (1 - alpha_prev)
            new_lrs.append(target * alpha + start * (1 - alpha))
        return new_lrs

    def state_dict(self):
        """Every attribute but the optimizer and the annealing function (restored from its name)."""
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._use_strategy(self._anneal_strategy)
