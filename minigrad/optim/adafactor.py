"""Adafactor: Adam-like steps whose second moments of a matrix are kept as row and column factors."""
from ..tensor import _make
from ._elementwise import lerp_, lr_value
from .optimizer import Optimizer, _bump, _check_scalar_tensor, _increment, _step_tensor, _zeros_like


# torch.finfo(dtype).eps of the float dtypes
_EPS = {"float32": 2.0 ** -23, "float64": 2.0 ** -52}


def _sum_squares(be, a, axis=None, keepdims=False):
    return be.sum(be.mul(a, a), axis, keepdims)


def _mean_square(be, a, axis):
    """torch.norm(a, dim=axis, keepdim=True).square_().div_(a.size(axis)): the norm rounded, then squared."""
    n = be.sqrt(_sum_squares(be, a, (axis,), True))
    return be.div(be.mul(n, n), a.shape[axis])


def _norm(be, a):
    """The 2-norm of all of a's elements, as a Python float."""
    return float(be.to_numpy(be.astype(be.sqrt(_sum_squares(be, a)), "float64")))  # (bfloat16 is its bits)


class Adafactor(Optimizer):
    """torch.optim.Adafactor (torch >= 2.5), with the same arguments, defaults, state names and update:

        beta2_t = 1 - t**beta2_decay; rho_t = min(lr, 1 / sqrt(t)); alpha = max(eps2, RMS(p)) * rho_t
        p *= 1 - lr * weight_decay
        p >= 2-d: row_var = lerp(row_var, mean of g**2 over the last dim, 1 - beta2_t) (likewise
            col_var over the second-to-last), v = row_var * col_var / max(mean of row_var, eps1)
        else: variance = lerp(variance, g**2, 1 - beta2_t); v = variance
        u = g / sqrt(max(v, eps1**2)); p -= alpha / max(1, RMS(u) / d) * u
    with g the gradient (negated if maximize) and eps1 the dtype's eps when None.
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        _check_scalar_tensor(lr, "lr")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._upgrade_state(foreach=None)

    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = lr_value(group["lr"])  # a Tensor lr: rho_t's arithmetic in its dtype, as torch
            eps1, eps2 = group["eps"]
            d, beta2_decay, weight_decay, maximize = (group["d"], group["beta2_decay"], group["weight_decay"],
                                                      group["maximize"])
            for p, g, be, state in self._with_grads(group):
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    if g.dim() > 1:
                        shape = list(g.shape)
                        state["row_var"] = _make(be.zeros(tuple(shape[:-1] + [1]), g._data.dtype), g._device)
                        state["col_var"] = _make(be.zeros(tuple(shape[:-2] + [1] + shape[-1:]), g._data.dtype),
                                                 g._device)
                    else:
                        state["variance"] = _zeros_like(g)
                pd = p._data
                gd = be.neg(g._data) if maximize else g._data
                if eps1 is None:  # as torch: set from the first parameter, then kept for the group
                    eps1 = _EPS[p.dtype.name]
                step = _increment(state["step"])
                one_minus_beta2_t = step ** beta2_decay
                rho_t = min(lr, 1 / (step ** 0.5))
                alpha = max(eps2, _norm(be, pd) / (p.numel() ** 0.5)) * rho_t
                if weight_decay != 0:
                    be.binary_inplace("mul", pd, float(1 - lr * weight_decay))
                if gd.ndim > 1:
                    row_var, col_var = state["row_var"]._data, state["col_var"]._data
                    row_mean = _mean_square(be, gd, gd.ndim - 1)
                    lerp_(be, row_var, row_mean, one_minus_beta2_t)
                    col_mean = _mean_square(be, gd, gd.ndim - 2)
                    lerp_(be, col_var, col_mean, one_minus_beta2_t)
                    # row_var @ col_var: an outer product, each entry one rounded product
                    var_estimate = be.mul(row_var, col_var)
                    row_scale = be.clip(be.mean(row_var, (row_var.ndim - 2,), True), eps1, None)
                    var_estimate = be.div(var_estimate, row_scale)
                else:
                    variance = state["variance"]._data
                    lerp_(be, variance, be.mul(gd, gd), one_minus_beta2_t)
                    var_estimate = variance
                update = be.mul(be.rsqrt(be.clip(var_estimate, eps1 * eps1, None)), gd)
                denom = max(1.0, _norm(be, update) / ((update.size ** 0.5) * d))
                be.axpy(pd, update, float(-alpha / denom))
                if weight_decay != 0:
                    _bump(p)
                _bump(p)
        return loss

