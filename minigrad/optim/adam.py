"""Adam and AdamW (Adam with decoupled weight decay): one update, two sets of defaults."""
from ..tensor import Tensor
from .optimizer import (Optimizer, _blocks, _bump, _check_adam_args, _check_scalar_tensor, _increment, _scalar, _step_tensor,
                        _zeros_like)


class Adam(Optimizer):
    """torch.optim.Adam, with the same arguments, defaults, state names and update:

        g = grad (negated if maximize), plus weight_decay * p (or p *= 1 - lr * weight_decay
            first when decoupled_weight_decay, which is AdamW)
        exp_avg = lerp(exp_avg, g, 1 - beta1); exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * g * g
        p -= lr / (1 - beta1**t) * exp_avg / (sqrt(v) / sqrt(1 - beta2**t) + eps)
    where v is exp_avg_sq, or its running maximum max_exp_avg_sq with amsgrad.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        _check_scalar_tensor(betas[0], "betas[0]")
        _check_scalar_tensor(betas[1], "betas[1]")
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by minigrad.optim")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        self._upgrade_state(amsgrad=False, maximize=False, foreach=None, capturable=False, differentiable=False,
                            decoupled_weight_decay=False, fused=None)

    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given.

        The update is the backend's foreach_adam over every parameter of a group on one backend
        (on a GPU, torch's fused Adam: up to eight parameters per launch); on the CPU a large
        parameter goes in blocks (see _blocks), each one list entry."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            beta1, beta2 = (_scalar(b) for b in group["betas"])
            amsgrad = group["amsgrad"]
            decays = group["weight_decay"] != 0 and group["decoupled_weight_decay"]
            lists = {}  # backend -> (params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps)
            for p, g, be, state in self._with_grads(group):
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["exp_avg"] = _zeros_like(p)
                    state["exp_avg_sq"] = _zeros_like(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = _zeros_like(p)
                step = _increment(state["step"])
                entry = lists.get(be)
                if entry is None:
                    entry = lists[be] = ([], [], [], [], [] if amsgrad else None, [])
                vmax = state["max_exp_avg_sq"]._data if amsgrad else None
                for block in _blocks(p._device, p._data, g._data, state["exp_avg"]._data,
                                     state["exp_avg_sq"]._data, vmax):
                    for k in range(4 + amsgrad):
                        entry[k].append(block[k])
                    entry[5].append(step)
                if decays:  # torch's AdamW changes p twice, as p.mul_ then p.addcdiv_
                    _bump(p)
                _bump(p)
            for be, (ps, gs, ms, vs, vms, steps) in lists.items():
                be.foreach_adam(ps, gs, ms, vs, vms, steps, lr=lr, beta1=beta1, beta2=beta2, eps=group["eps"],
                                weight_decay=group["weight_decay"], decoupled=group["decoupled_weight_decay"],
                                maximize=group["maximize"])
        return loss


class AdamW(Adam):
    """torch.optim.AdamW: Adam whose weight decay shrinks the parameters directly (default 1e-2)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
