"""NAdam: Adam with Nesterov momentum (and a momentum schedule, momentum_decay)."""
from ..tensor import Tensor
from ._elementwise import addcdiv_, lr_value, decay_square_, grad_term, lerp_
from .optimizer import (Optimizer, _blocks, _bump, _check_adam_args, _increment, _step_tensor,
                        _zeros_like)


class NAdam(Optimizer):
    """torch.optim.NAdam, with the same arguments, defaults, state names and update:

        p *= 1 - lr * weight_decay                  (decoupled_weight_decay)
        g = grad (negated if maximize), + weight_decay * p   (otherwise)
        mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay)); mu_product *= mu_t
        exp_avg = lerp(exp_avg, g, 1 - beta1); exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * g * g
        denom = sqrt(exp_avg_sq / (1 - beta2**t)) + eps
        p -= lr * (1 - mu_t) / (1 - mu_product) * g / denom
        p -= lr * mu_{t+1} / (1 - mu_product * mu_{t+1}) * exp_avg / denom
    mu_product is a 0-d state tensor (in the step counter's dtype), as torch keeps it.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by minigrad.optim")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._upgrade_state(maximize=False, foreach=None, capturable=False, differentiable=False,
                            decoupled_weight_decay=False)
        for s in self.state.values():
            if isinstance(s, dict) and "mu_product" in s and not isinstance(s["mu_product"], Tensor):
                s["mu_product"] = _step_tensor(float(s["mu_product"]))

    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = lr_value(group["lr"])
            beta1, beta2 = group["betas"]
            eps, weight_decay, maximize = group["eps"], group["weight_decay"], group["maximize"]
            momentum_decay = group["momentum_decay"]
            decoupled = weight_decay != 0 and group["decoupled_weight_decay"]
            for p, g, be, state in self._with_grads(group):
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["mu_product"] = _step_tensor(1.0)
                    state["exp_avg"] = _zeros_like(p)
                    state["exp_avg_sq"] = _zeros_like(p)
                step = _increment(state["step"])
                bias_correction2 = 1 - beta2 ** step
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mp = state["mu_product"]  # mu_product *= mu, in the tensor's dtype
                mp_be = mp._device.backend
                mp_be.binary_inplace("mul", mp._data, mu)
                mu_product = float(mp_be.to_numpy(mp._data))
                c_grad = float(-lr * (1.0 - mu) / (1.0 - mu_product))
                c_avg = float((-lr * mu_next) / (1.0 - mu_product * mu_next))
                for pb, gb, m, v in _blocks(p._device, p._data, g._data, state["exp_avg"]._data,
                                            state["exp_avg_sq"]._data):
                    if decoupled:
                        be.binary_inplace("mul", pb, float(1 - lr * weight_decay))
                    d = grad_term(be, pb, gb, maximize, 0 if decoupled else weight_decay)
                    lerp_(be, m, d, 1 - beta1)
                    decay_square_(be, v, d, beta2)
                    denom = be.add(be.sqrt(be.div(v, bias_correction2)), eps)
                    addcdiv_(be, pb, d, denom, c_grad)
                    addcdiv_(be, pb, m, denom, c_avg)
                if decoupled:
                    _bump(p)
                _bump(p)
                _bump(p)
        return loss
