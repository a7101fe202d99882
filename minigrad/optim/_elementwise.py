"""Elementwise steps shared by the optimizers written with the backends' generic primitives
(Adamax, NAdam, RAdam, Adadelta): each is one of torch's in-place tensor ops on a parameter's
arrays, with torch's CPU kernel's order of operations, so the bits follow torch's on every
backend (the CUDA backend runs each primitive in the project's elementwise kernels)."""
from ..tensor import Tensor


def grad_term(be, p, g, maximize, weight_decay):
    """torch's `grad = -grad if maximize`, then `grad = grad.add(param, alpha=weight_decay)`."""
    d = be.neg(g) if maximize else g
    if weight_decay != 0:
        d = be.add(d, be.mul(p, weight_decay))
    return d


def lerp_(be, a, end, w):
    """a.lerp_(end, w), torch's formula: a + (end - a) * w for |w| < 0.5, else
    end - (end - a) * (1 - w), exact at both ends."""
    if abs(w) < 0.5:
        be.binary_inplace("add", a, be.mul(be.sub(end, a), w))
    else:
        be.copyto(a, be.sub(end, be.mul(be.sub(end, a), 1 - w)))


def decay_square_(be, v, d, beta):
    """v.mul_(beta).addcmul_(d, d, value=1 - beta): v = v * beta + ((1 - beta) * d) * d."""
    be.binary_inplace("mul", v, beta)
    be.binary_inplace("add", v, be.mul(be.mul(d, 1 - beta), d))


def addcdiv_(be, p, t1, t2, value):
    """p.addcdiv_(t1, t2, value=value): p = p + (value * t1) / t2."""
    be.binary_inplace("add", p, be.div(be.mul(t1, value), t2))


def lr_value(lr):
    """The group's lr for the scalar arithmetic of a step: a Python float, or for a Tensor lr a
    NumPy scalar of its dtype, since torch keeps a Tensor lr a 0-d tensor through that arithmetic
    (Adamax's lr / bias_correction is rounded to the lr's dtype, float32 by default)."""
    if isinstance(lr, Tensor):
        return lr.dtype.np.type(lr.item())
    return lr
