"""minigrad.nn.utils: gradient clipping and flattening parameters, as torch.nn.utils; the
packed-sequence helpers are in minigrad.nn.utils.rnn, parametrizations in .parametrize and
.parametrizations, pruning in .prune, BatchNorm folding in .fusion, functional_call in .stateless."""
import types
import warnings

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from . import rnn  # noqa: F401
from . import parametrize, parametrizations, prune, stateless  # noqa: F401
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, \
    fuse_linear_bn_weights  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the per-tensor norms of tensors (a tensor or an iterable of them): the norm
    of all their elements joined into one vector, as a 0-d tensor."""
    from ...creation import tensor
    from ...functional import stack
    from ...linalg import vector_norm
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    else:
        tensors = list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tensor(0.0)
    with no_grad():
        first_device = tensors[0].device
        norms = [vector_norm(t, norm_type) for t in tensors]
        total_norm = vector_norm(stack([n.to(first_device) for n in norms]), norm_type)
        if error_if_nonfinite and bool(total_norm.isnan() | total_norm.isinf()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                "so it cannot be clipped. To disable this error and scale the gradients by the "
                "non-finite norm anyway, set `error_if_nonfinite=False`")
    return total_norm


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients of parameters in place by min(1, max_norm / (total_norm + 1e-6)),
    total_norm as get_total_norm computed it."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    with no_grad():
        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)  # a number over a tensor: torch's rounding
        for g in grads:
            g.mul_(coef.to(g.device, g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the gradients in place so that their joint norm (the norm of the per-tensor norms)
    is at most max_norm; returns that total norm, before clipping, as a tensor."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=2)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated spelling of clip_grad_norm_ (a FutureWarning, as torch's)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


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
from . import convert_parameters  # noqa: E402,F401
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format  # noqa: E402,F401
from .init import skip_init  # noqa: E402,F401
