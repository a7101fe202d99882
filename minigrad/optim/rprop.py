"""Rprop: resilient backpropagation, a per-element step size grown or shrunk by the gradient's sign."""
from ._elementwise import grad_term
from .optimizer import Optimizer, _blocks, _bump, _check_scalar_tensor, _increment, _scalar, _step_tensor, _zeros_like


class Rprop(Optimizer):
    """torch.optim.Rprop, with the same arguments, defaults, state names and update:

        g = grad (negated if maximize); s = sign(g * prev)
        step_size = clamp(step_size * (etaplus if s > 0, etaminus if s < 0, else 1), *step_sizes)
        g = 0 where s < 0
        p -= sign(g) * step_size; prev = g
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _check_scalar_tensor(lr, "lr")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by minigrad.optim")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._upgrade_state(foreach=None, maximize=False, differentiable=False, capturable=False)

    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            maximize = group["maximize"]
            for p, g, be, state in self._with_grads(group):
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["prev"] = _zeros_like(p)
                    state["step_size"] = _zeros_like(g, _scalar(group["lr"]))
                _increment(state["step"])
                dt = p._data.dtype
                plus, minus, one = (be.full((), v, dt) for v in (etaplus, etaminus, 1))
                zero = be.zeros((), dt)
                for pb, gb, prev, ss in _blocks(p._device, p._data, g._data, state["prev"]._data,
                                                state["step_size"]._data):
                    d = grad_term(be, pb, gb, maximize, 0)
                    s = be.sign(be.mul(d, prev))
                    factor = be.where(be.gt(s, 0), plus, be.where(be.lt(s, 0), minus, one))
                    be.binary_inplace("mul", ss, factor)
                    be.copyto(ss, be.clip(ss, step_size_min, step_size_max))
                    d = be.where(be.eq(factor, minus), zero, d)
                    be.binary_inplace("sub", pb, be.mul(be.sign(d), ss))
                    be.copyto(prev, d)
                _bump(p)
        return loss
