"""minigrad.nn.utils: gradient clipping and flattening parameters, as torch.nn.utils; the
packed-sequence helpers are in minigrad.nn.utils.rnn."""
import math

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from . import rnn  # noqa: F401


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the gradients in place so that their joint norm (the norm of the per-tensor norms)
    is at most max_norm; returns that total norm, before clipping, as a tensor."""
    from ...creation import tensor
    from ...functional import stack
    grads = _grads(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)  # as torch: checked even with no gradients
    if not grads:
        return tensor(0.0)
    with no_grad():
        norms = stack([g.detach().norm(norm_type).to(grads[0].device) for g in grads])
        total = norms.amax() if norm_type == math.inf else norms.norm(norm_type)
        if error_if_nonfinite and not math.isfinite(total.item()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                "so it cannot be clipped. To disable this error and scale the gradients by the "
                "non-finite norm anyway, set `error_if_nonfinite=False`")
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)  # a number over a tensor: torch's rounding
        for g in grads:
            g.mul_(coef.to(g.device, g.dtype))
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient in place to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters):
    """All parameters flattened and joined into one 1-d tensor (differentiable)."""
    from ...functional import cat
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of the 1-d tensor vec into the parameters' memory."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[offset:offset + n].view_as(p))
            offset += n
