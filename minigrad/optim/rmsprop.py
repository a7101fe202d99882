"""RMSprop: divide the gradient by a running root mean square of recent gradients."""
from .optimizer import (Optimizer, _blocks, _bump, _check_scalar_tensor, _increment, _scalar,
                        _step_tensor, _zeros_like)


class RMSprop(Optimizer):
    """torch.optim.RMSprop, with the same arguments, defaults, state names and update:

        g = grad (negated if maximize) + weight_decay * p
        square_avg = alpha * square_avg + (1 - alpha) * g * g
        avg = sqrt(square_avg - grad_avg**2) with centered (grad_avg = lerp(grad_avg, g, 1 - alpha)),
              else sqrt(square_avg); then avg += eps
        buf = momentum * buf + g / avg; p -= lr * buf     (momentum > 0)
        p -= lr * g / avg                                 (otherwise)
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_scalar_tensor(lr, "lr")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by minigrad.optim")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._upgrade_state(momentum=0, centered=False, foreach=None, maximize=False, differentiable=False,
                            capturable=False)

    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            alpha = group["alpha"]
            eps = group["eps"]
            weight_decay = group["weight_decay"]
            momentum = group["momentum"]
            centered = group["centered"]
            maximize = group["maximize"]
            lists = {}  # backend -> (params, grads, square_avgs, grad_avgs, momentum buffers)
            for p, g, be, state in self._with_grads(group):
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["square_avg"] = _zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = _zeros_like(p)
                    if centered:
                        state["grad_avg"] = _zeros_like(p)
                _increment(state["step"])
                entry = lists.get(be)
                if entry is None:
                    entry = lists[be] = ([], [], [], [], [])
                for block in _blocks(p._device, p._data, g._data, state["square_avg"]._data,
                                     state["grad_avg"]._data if centered else None,
                                     state["momentum_buffer"]._data if momentum > 0 else None):
                    for k in range(5):
                        entry[k].append(block[k])
                _bump(p)
            for be, (ps, gs, sqs, gas, bufs) in lists.items():
                be.foreach_rmsprop(ps, gs, sqs, gas if centered else None, bufs if momentum > 0 else None, lr=lr,
                                   alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                   centered=centered, maximize=maximize)
        return loss
