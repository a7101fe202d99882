"""Adagrad: per-element learning rates from the running sum of squared gradients."""
from .optimizer import (Optimizer, _blocks, _bump, _check_scalar_tensor, _increment, _scalar, _step_tensor,
                        _zeros_like)


class Adagrad(Optimizer):
    """torch.optim.Adagrad, with the same arguments, defaults, state names and update:

        g = grad (negated if maximize) + weight_decay * p
        clr = lr / (1 + (t - 1) * lr_decay)
        sum += g * g;  p -= clr * g / (sqrt(sum) + eps)
    The state ("step", "sum" = initial_accumulator_value) exists from construction on, as in torch.
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_scalar_tensor(lr, "lr")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by minigrad.optim")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, initial_accumulator_value)

    def _init_state(self, p, initial_accumulator_value):
        state = self.state[p]
        state["step"] = _step_tensor()
        state["sum"] = _zeros_like(p, initial_accumulator_value)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._upgrade_state(foreach=None, maximize=False, differentiable=False, fused=None)

    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            lr_decay = group["lr_decay"]
            eps = group["eps"]
            weight_decay = group["weight_decay"]
            maximize = group["maximize"]
            lists = {}  # backend -> (params, grads, state sums, steps)
            for p, g, be, state in self._with_grads(group):
                if len(state) == 0:  # a parameter of a group added after construction
                    self._init_state(p, group["initial_accumulator_value"])
                step = _increment(state["step"])
                entry = lists.get(be)
                if entry is None:
                    entry = lists[be] = ([], [], [], [])
                for pb, gb, state_sum in _blocks(p._device, p._data, g._data, state["sum"]._data):
                    entry[0].append(pb)
                    entry[1].append(gb)
                    entry[2].append(state_sum)
                    entry[3].append(step)
                _bump(p)
            for be, (ps, gs, sums, steps) in lists.items():
                be.foreach_adagrad(ps, gs, sums, steps, lr=lr, lr_decay=lr_decay, eps=eps,
                                   weight_decay=weight_decay, maximize=maximize)
        return loss
