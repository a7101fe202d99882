"""Adamax: Adam with the infinity norm of past gradients in place of their root mean square."""
from ._elementwise import addcdiv_, lr_value, grad_term, lerp_
from .optimizer import (Optimizer, _blocks, _bump, _check_adam_args, _increment, _step_tensor,
                        _zeros_like)


class Adamax(Optimizer):
    """torch.optim.Adamax, with the same arguments, defaults, state names and update:

        g = grad (negated if maximize) + weight_decay * p
        exp_avg = lerp(exp_avg, g, 1 - beta1)
        exp_inf = max(beta2 * exp_inf, |g| + eps)
        p -= lr / (1 - beta1**t) * exp_avg / exp_inf
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by minigrad.optim")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._upgrade_state(foreach=None, maximize=False, differentiable=False, capturable=False)

    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = lr_value(group["lr"])
            beta1, beta2 = group["betas"]
            eps, weight_decay, maximize = group["eps"], group["weight_decay"], group["maximize"]
            for p, g, be, state in self._with_grads(group):
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["exp_avg"] = _zeros_like(p)
                    state["exp_inf"] = _zeros_like(p)
                step = _increment(state["step"])
                clr = float(lr / (1 - beta1 ** step))
                for pb, gb, m, u in _blocks(p._device, p._data, g._data, state["exp_avg"]._data,
                                            state["exp_inf"]._data):
                    d = grad_term(be, pb, gb, maximize, weight_decay)
                    lerp_(be, m, d, 1 - beta1)
                    be.binary_inplace("mul", u, beta2)
                    be.copyto(u, be.maximum(u, be.add(be.abs(d), eps)))
                    addcdiv_(be, pb, m, u, -clr)
                _bump(p)
        return loss
