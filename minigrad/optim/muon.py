"""Muon: momentum SGD for 2-d parameters whose update is orthogonalised by a Newton-Schulz iteration."""
import math

from .. import dtypes as _dt
from ..tensor import Tensor
from ._elementwise import lerp_
from .optimizer import Optimizer, _bump, _scalar, _zeros_like

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5

def _bfloat16(be, a):
    """a rounded to bfloat16 (torch's .bfloat16(), which goes through float32 from float64), held
    in a float32 array: torch's bfloat16 arithmetic is float32 arithmetic (its opmath type)
    rounded to bfloat16 after each op, so the iteration keeps float32 arrays and rounds them with
    the backends' bfloat16 casts."""
    if a.dtype != _dt.float32.np:
        a = be.astype(a, _dt.float32.np)
    return be.bf16_to_f32(be.f32_to_bf16(a))


def _zeropower_via_newtonschulz(be, grad, ns_coefficients, ns_steps, eps):
    """torch's quintic Newton-Schulz iteration (in bfloat16) towards the orthogonal factor of grad."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    x = _bfloat16(be, grad)
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = be.ascontiguous(be.transpose(x, (1, 0)))
    norm = _bfloat16(be, be.sqrt(be.vdot(x, x)))
    norm = be.maximum(norm, _bfloat16(be, be.full((), eps, _dt.float32.np)))
    x = _bfloat16(be, be.div(x, norm))
    for _ in range(ns_steps):
        xt = be.ascontiguous(be.transpose(x, (1, 0)))
        gram = _bfloat16(be, be.matmul(x, xt))
        gram_update = _bfloat16(be, be.add(be.mul(be.matmul(gram, gram), c), be.mul(gram, b)))
        x = _bfloat16(be, be.add(be.matmul(gram_update, x), be.mul(x, a)))
    if tall:
        x = be.ascontiguous(be.transpose(x, (1, 0)))
    return x


def _adjust_lr(lr, adjust_lr_fn, param_shape):
    """Muon's learning-rate scaling by the matrix's shape (A, B)."""
    A, B = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        adjusted_ratio = math.sqrt(max(1, A / B))
    elif adjust_lr_fn == "match_rms_adamw":
        adjusted_ratio = 0.2 * math.sqrt(max(A, B))
    else:
        adjusted_ratio = 1.0
    return lr * adjusted_ratio


class Muon(Optimizer):
    """torch.optim.Muon (torch >= 2.9), with the same arguments, defaults, state and update:

        buf = lerp(buf, g, 1 - momentum); u = lerp(g, buf, momentum) if nesterov else buf
        O = NewtonSchulz(u) (ns_steps quintic iterations in bfloat16, coefficients ns_coefficients)
        p *= 1 - lr * weight_decay; p -= adjust_lr(lr, p.shape) * O
    Only 2-d parameters. The iteration runs in float32 rounded to bfloat16 after each op, as
    torch's CPU bfloat16 kernels round (results can differ from torch's
    by a unit in bfloat16's last place where a matrix product's float32 sum rounds differently).
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS, ns_steps=DEFAULT_NS_STEPS,
                 adjust_lr_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
                    "ns_coefficients": ns_coefficients, "eps": eps, "ns_steps": ns_steps,
                    "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    def step(self, closure=None):
        """Perform a single optimization step; returns closure()'s loss when a closure is given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            momentum, weight_decay = group["momentum"], group["weight_decay"]
            for p, g, be, state in self._with_grads(group):
                if g.ndim != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = _zeros_like(g)
                gd, buf = g._data, state["momentum_buffer"]._data
                lerp_(be, buf, gd, 1 - momentum)
                if group["nesterov"]:
                    update = be.copy(gd)
                    lerp_(be, update, buf, momentum)
                else:
                    update = buf
                update = _zeropower_via_newtonschulz(be, update, group["ns_coefficients"], group["ns_steps"],
                                                     group["eps"])
                adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], p.shape)
                pd = p._data
                be.binary_inplace("mul", pd, 1 - lr * weight_decay)
                be.binary_inplace("add", pd, be.mul(be.astype(update, pd.dtype), -adjusted_lr))
                _bump(p)
                _bump(p)
        return loss
