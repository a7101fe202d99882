"""RAdam: Adam whose adaptive step is rectified (switched off while its variance is untractable)."""
from ._elementwise import decay_square_, grad_term, lerp_, lr_value
from .optimizer import (Optimizer, _blocks, _bump, _check_adam_args, _increment, _step_tensor,
                        _zeros_like)


class RAdam(Optimizer):
    """torch.optim.RAdam, with the same arguments, defaults, state names and update:

        p *= 1 - lr * weight_decay                  (decoupled_weight_decay)
        g = grad (negated if maximize), + weight_decay * p   (otherwise)
        exp_avg = lerp(exp_avg, g, 1 - beta1); exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * g * g
        rho_inf = 2 / (1 - beta2) - 1; rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)
        m = exp_avg / (1 - beta1**t)
        p -= m * lr * sqrt(1 - beta2**t) / (sqrt(exp_avg_sq) + eps) * r_t      (rho_t > 5)
        p -= m * lr                                                            (otherwise)
    with r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t)).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by minigrad.optim")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._upgrade_state(foreach=None, maximize=False, differentiable=False, decoupled_weight_decay=False,
                            capturable=False)

    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = lr_value(group["lr"])  # a Tensor lr: its dtype's arithmetic, as torch
            beta1, beta2 = group["betas"]
            eps, weight_decay, maximize = group["eps"], group["weight_decay"], group["maximize"]
            decoupled = weight_decay != 0 and group["decoupled_weight_decay"]
            rho_inf = 2 / (1 - beta2) - 1
            for p, g, be, state in self._with_grads(group):
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["exp_avg"] = _zeros_like(p)
                    state["exp_avg_sq"] = _zeros_like(p)
                step = _increment(state["step"])
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                rect = None
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                for pb, gb, m, v in _blocks(p._device, p._data, g._data, state["exp_avg"]._data,
                                            state["exp_avg_sq"]._data):
                    if decoupled:
                        be.binary_inplace("mul", pb, float(1 - lr * weight_decay))
                    d = grad_term(be, pb, gb, maximize, 0 if decoupled else weight_decay)
                    lerp_(be, m, d, 1 - beta1)
                    decay_square_(be, v, d, beta2)
                    update = be.mul(be.div(m, bias_correction1), float(lr))
                    if rect is not None:
                        adaptive = be.div(bias_correction2 ** 0.5, be.add(be.sqrt(v), eps))
                        update = be.mul(be.mul(update, adaptive), rect)
                    be.binary_inplace("sub", pb, update)
                if decoupled:
                    _bump(p)
                _bump(p)
        return loss
