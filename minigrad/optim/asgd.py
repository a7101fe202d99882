"""ASGD: averaged stochastic gradient descent (Polyak-Juditsky averaging of the iterates)."""
from .. import dtypes as _dt
from ..tensor import _make
from ._elementwise import grad_term, lr_value
from .optimizer import Optimizer, _blocks, _bump, _check_scalar_tensor, _scalar_dtype, _zeros_like


def _scalar_state(p, value):
    """A 0-d tensor of torch's scalar dtype on p's device (ASGD keeps eta, mu and step there)."""
    be = p._device.backend
    return _make(be.full((), value, _scalar_dtype().np), p._device)


def _read(t):
    return float(t._device.backend.to_numpy(t._data))


def _write(t, value):
    """t.copy_(torch.as_tensor(value)): value rounded to the default dtype, then to t's dtype."""
    be = t._device.backend
    be.copyto(t._data, be.full((), _dt.get_default_dtype().np.type(value), t._data.dtype))


class ASGD(Optimizer):
    """torch.optim.ASGD, with the same arguments, defaults, state names (0-d tensors step, eta, mu on
    the parameter's device, and ax) and update:

        g = grad (negated if maximize) + weight_decay * p
        p = p * (1 - lambd * eta) - eta * g
        ax = p (while mu == 1), else ax + (p - ax) * mu
        eta = lr / (1 + lambd * lr * t)**alpha; mu = 1 / max(1, t - t0)
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _check_scalar_tensor(lr, "lr")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by minigrad.optim")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._upgrade_state(foreach=None, maximize=False, differentiable=False, capturable=False)

    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = lr_value(group["lr"])  # a Tensor lr: eta's arithmetic in its dtype, as torch
            lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
            weight_decay, maximize = group["weight_decay"], group["maximize"]
            for p, g, be, state in self._with_grads(group):
                if len(state) == 0:
                    state["step"] = _scalar_state(p, 0)
                    state["eta"] = _scalar_state(p, lr)
                    state["mu"] = _scalar_state(p, 1)
                    state["ax"] = _zeros_like(p)
                step_t, eta_t, mu_t = state["step"], state["eta"], state["mu"]
                step_t._device.backend.binary_inplace("add", step_t._data, 1)
                eta = _read(eta_t)
                mu = _read(mu_t)
                for pb, gb, ax in _blocks(p._device, p._data, g._data, state["ax"]._data):
                    d = grad_term(be, pb, gb, maximize, weight_decay)
                    be.binary_inplace("mul", pb, 1 - lambd * eta)
                    be.axpy(pb, d, -eta)
                    if mu != 1:
                        be.binary_inplace("add", ax, be.mul(be.sub(pb, ax), mu))
                    else:
                        be.copyto(ax, pb)
                _bump(p)
                step = _read(step_t)
                _write(eta_t, lr / ((1 + lambd * lr * step) ** alpha))
                _write(mu_t, 1 / max(1, step - t0))
        return loss
