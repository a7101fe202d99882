"""Adadelta: steps scaled by the ratio of running RMS of past updates to that of gradients."""
from ._elementwise import decay_square_, grad_term
from .optimizer import (Optimizer, _blocks, _bump, _check_scalar_tensor, _increment, _scalar, _step_tensor,
                        _zeros_like)


class Adadelta(Optimizer):
    """torch.optim.Adadelta, with the same arguments, defaults, state names and update:

        g = grad (negated if maximize) + weight_decay * p
        square_avg = rho * square_avg + (1 - rho) * g * g
        delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g
        acc_delta = rho * acc_delta + (1 - rho) * delta * delta
        p -= lr * delta
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check_scalar_tensor(lr, "lr")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by minigrad.optim")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._upgrade_state(foreach=None, maximize=False, differentiable=False, capturable=False)

    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            rho, eps, weight_decay, maximize = group["rho"], group["eps"], group["weight_decay"], group["maximize"]
            for p, g, be, state in self._with_grads(group):
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["square_avg"] = _zeros_like(p)
                    state["acc_delta"] = _zeros_like(p)
                _increment(state["step"])
                for pb, gb, sq, acc in _blocks(p._device, p._data, g._data, state["square_avg"]._data,
                                               state["acc_delta"]._data):
                    d = grad_term(be, pb, gb, maximize, weight_decay)
                    decay_square_(be, sq, d, rho)
                    std = be.sqrt(be.add(sq, eps))
                    delta = be.mul(be.div(be.sqrt(be.add(acc, eps)), std), d)
                    decay_square_(be, acc, delta, rho)
                    be.axpy(pb, delta, -lr)
                _bump(p)
        return loss
