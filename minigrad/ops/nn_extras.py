"""The rest of torch.nn.functional's common names, composed from minigrad's ops: channel-wise
dropout (dropout1d/2d/3d), alpha_dropout, feature_alpha_dropout, rrelu, rms_norm, pdist,
triplet_margin_with_distance_loss, the in-place forms (relu_, elu_, ...), and the torch.*
spellings of nn.functional ops (torch.conv2d, torch.dropout(input, p, train), torch.embedding(
weight, indices), torch.layer_norm, losses with integer reductions, ...).

Random masks come from the backend's generator, as F.dropout's do: the same distribution as
torch's, not torch's stream.
"""
import math
import warnings

from .._arg_errors import type_name
from ..autograd.function import Function
from ..tensor import Tensor, _make
from .ctc import ctc_loss as _torch_ctc_loss
from .inplace import inplace
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

_ALPHA = 1.7580993408473766   # -SELU's negative saturation (scale * alpha), as ATen's alpha_dropout


def _tensor(x, op, arg="input", pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{arg}' (position {pos}) must be Tensor, not {type_name(x)}")
    return x


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _noise_dropout(input, p, train, feature, alpha, inplace_):
    """ATen's _dropout_impl: a Bernoulli(1 - p) mask (one per channel for feature dropout),
    scaled by 1 / (1 - p); alpha dropout sets dropped elements to the SELU saturation instead and
    rescales to keep zero mean and unit variance."""
    if p == 0 or not train or input.numel() == 0:
        return input
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {input.dtype._legacy[:-6]}")
    be = input._device.backend
    if p == 1:
        zero = _make(be.zeros((), input._data.dtype), input._device)
        return input.mul_(zero) if inplace_ else input * zero
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2) if feature else tuple(input.shape)
    x = input._data
    keep = be.astype(be.lt(be.rand(shape, x.dtype), 1.0 - p), x.dtype)
    noise = _make(keep, input._device)
    if not alpha:
        noise = noise / (1.0 - p)
        return input.mul_(noise) if inplace_ else input * noise
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = (noise - 1) * (_ALPHA * a) + _ALPHA * a * p
    noise = noise * a
    return input.mul_(noise).add_(b) if inplace_ else input * noise + b


def dropout1d(input, p=0.5, training=True, inplace=False):
    _tensor(input, "dropout1d")
    _check_p(p)
    n = input.dim()
    if n not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {n}D input. Note that dropout1d "
                           "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _batched(input, n == 3, p, training, inplace)


def _batched(input, is_batched, p, training, inplace_):
    if is_batched:
        return _noise_dropout(input, p, training, True, False, inplace_)
    if inplace_:   # written through a view with a batch dim of 1: input itself holds the result
        _noise_dropout(input.unsqueeze(0), p, training, True, False, True)
        return input
    return _noise_dropout(input.unsqueeze(0), p, training, True, False, False).squeeze(0)


def dropout2d(input, p=0.5, training=True, inplace=False):
    _tensor(input, "dropout2d")
    _check_p(p)
    n = input.dim()
    if n not in (3, 4):
        warnings.warn(f"dropout2d: Received a {n}-D input to dropout2d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=2)
    if n == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=2)
    return _noise_dropout(input, p, training, True, False, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    _tensor(input, "dropout3d")
    _check_p(p)
    n = input.dim()
    if n not in (4, 5):
        warnings.warn(f"dropout3d: Received a {n}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).", stacklevel=2)
    return _batched(input, n == 5, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _tensor(input, "alpha_dropout")
    _check_p(p)
    return _noise_dropout(input, p, training, False, True, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _tensor(input, "feature_alpha_dropout")
    _check_p(p)
    return _noise_dropout(input, p, training, True, True, inplace)


# ---- rrelu -------------------------------------------------------------------------------------------

class RreluWithNoise(Function):
    """Randomized leaky ReLU: a negative element times a slope drawn from U(lower, upper) in
    training, times (lower + upper) / 2 in eval; the slopes (1 for the others) are the noise
    the backward multiplies by."""
    _node_name = "RreluWithNoiseBackward0"

    @staticmethod
    def forward(ctx, a, lower, upper, training):
        be, x = a._device.backend, a._data
        if training:
            slope = be.add(be.mul(be.rand(x.shape, x.dtype), upper - lower), lower)
        else:
            slope = be.full((), (lower + upper) / 2, x.dtype)
        neg = be.lt(x, be.zeros((), x.dtype))
        noise = be.where(neg, be.broadcast_to(slope, x.shape), be.ones(x.shape, x.dtype))
        ctx.noise = noise
        return _make(be.mul(x, noise), a._device)

    @staticmethod
    def backward(ctx, g):
        return g * _make(ctx.noise, g._device), None, None, None


def _rrelu_args(input, lower, upper, op):
    _tensor(input, op)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"leaky_relu_{input.device.type}\" not implemented for "
                                  f"'{input.dtype._legacy[:-6]}'")


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    _rrelu_args(input, lower, upper, "rrelu")
    if inplace:
        return rrelu_(input, lower, upper, training)
    return RreluWithNoise.apply(input, float(lower), float(upper), bool(training))


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    _rrelu_args(input, lower, upper, "rrelu_")
    return inplace(input, lambda t: RreluWithNoise.apply(t, float(lower), float(upper), bool(training)))


# ---- rms_norm, pdist, triplet loss with a distance function ------------------------------------------

def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2 over the last len(normalized_shape) dims) + eps) * weight, composed as
    torch composes it (eps None: the dtype's machine epsilon)."""
    _tensor(input, "rms_norm")
    shape = [int(s) for s in ((normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape)]
    k = len(shape)
    if list(input.shape[input.dim() - k:]) != shape or input.dim() < k:
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape [*{', '.join(map(str, shape))}]"
                           f", but got input of size{list(input.shape)}")
    if weight is not None and list(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {shape}")
    if eps is None:
        eps = 2.220446049250313e-16 if input.dtype.name == "float64" else 1.1920928955078125e-07
    dims = tuple(range(input.dim() - k, input.dim()))
    out = input * (input.pow(2).mean(dims, keepdim=True) + eps).rsqrt() if dims else \
        input * (input.pow(2) + eps).rsqrt()
    return out if weight is None else out * weight


def pdist(input, p=2):
    """The p-norm distances between each pair of rows i < j of a 2-d input, in row-major order
    of the pairs (the upper triangle of cdist(input, input))."""
    if _AUTOCAST_ON[0] and (r := _autocast("pdist", pdist, input, p)) is not None:
        return r
    _tensor(input, "pdist")
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return _Pdist.apply(input, p)


def _pdist_values(x, p):
    from .reduce import norm
    from .tensor_extras import triu_indices
    n = x.shape[0]
    i, j = triu_indices(n, n, 1, device=x.device)
    if not i.numel():
        return x.new_zeros((0,)) * x.sum()
    return norm(x[i] - x[j], p, 1, False, None)


class _Pdist(Function):
    """pdist as one node (PdistBackward0): the forward composed from indexing and a vector norm,
    the backward their gradient, recomputed (through the saved input itself when the backward is
    recorded, so it is differentiable again)."""
    _node_name = "PdistBackward0"

    @staticmethod
    def forward(ctx, x, p):
        ctx.p = p
        ctx.save_for_backward(x)
        return _pdist_values(x, p)

    @staticmethod
    def backward(ctx, g):
        from ..autograd import grad as _grad
        from ..autograd.grad_mode import enable_grad, is_grad_enabled
        (x,) = ctx.saved_tensors
        create = is_grad_enabled()
        with enable_grad():
            leaf = x if create else x.detach().requires_grad_()
            out = _pdist_values(leaf, ctx.p)
            (gx,) = _grad(out, leaf, g, create_graph=create, allow_unused=True)
        return (gx if gx is not None else x.new_zeros(tuple(x.shape))), None


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p and p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")
    if distance_function is None:
        from .loss_more import pairwise_distance
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = dist_neg.minimum(distance_function(positive, negative))
    loss = (margin + dist_pos - dist_neg).clamp_min(0)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    return loss


# ---- in-place forms of nn.functional -------------------------------------------------------------------

def _F():
    from ..nn import functional
    return functional


def relu_(input):
    return _F().relu(input, inplace=True)


def elu_(input, alpha=1.0):
    return _F().elu(input, alpha, inplace=True)


def celu_(input, alpha=1.0):
    return _F().celu(input, alpha, inplace=True)


def selu_(input):
    return _F().selu(input, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    return _F().leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return _F().hardtanh(input, min_val, max_val, inplace=True)


def threshold_(input, threshold, value):
    return _F().threshold(input, threshold, value, inplace=True)


def _with_indices(name):
    def fn(*args, **kwargs):
        kwargs.pop("return_indices", None)
        return getattr(_F(), name)(*args, return_indices=True, **kwargs)
    fn.__name__ = fn.__qualname__ = name + "_with_indices"
    return fn


FUNCTIONAL = {f.__name__: f for f in (
    dropout1d, dropout2d, dropout3d, alpha_dropout, feature_alpha_dropout, rrelu, rrelu_, rms_norm, pdist,
    triplet_margin_with_distance_loss, relu_, elu_, celu_, selu_, leaky_relu_, hardtanh_, threshold_)}
FUNCTIONAL.update({n + "_with_indices": _with_indices(n) for n in (
    "max_pool1d", "max_pool2d", "max_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d")})


# ---- torch.* spellings (ATen's signatures: positional training flags, integer reductions) -------------

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(r):
    if r not in _REDUCTIONS:
        raise ValueError(f"{r} is not a valid value for reduction")
    return _REDUCTIONS[r]


def _torch_dropout(fn_name, feature=False, alpha=False, inplace_=False):
    def fn(input, p, train):
        _tensor(input, fn.__name__)
        return _noise_dropout(input, p, train, feature, alpha, inplace_)
    fn.__name__ = fn.__qualname__ = fn_name
    return fn


def _torch_embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return _F().embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                          scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def _torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def _torch_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                         cudnn_enabled):
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def _torch_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def _torch_group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    return _F().group_norm(input, num_groups, weight, bias, eps)


def _torch_max_pool(name):
    def fn(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        return getattr(_F(), name)(input, kernel_size, stride or None, padding, dilation, ceil_mode)
    fn.__name__ = fn.__qualname__ = name
    return fn


def _torch_max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode, return_indices=True)


def _torch_adaptive_max_pool1d(input, output_size):
    return _F().adaptive_max_pool1d(input, output_size, return_indices=True)


def _torch_kl_div(input, target, reduction=1, *, log_target=False):
    return _F().kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def _torch_bce_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    return _F().binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction),
                                                 pos_weight=pos_weight)


def _torch_cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return _F().cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def _torch_hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def _torch_margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def _torch_poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


def _torch_triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=1):
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    reduction=_reduction(reduction))


def _torch_rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return rrelu(input, lower, upper, training)


def _torch_rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return rrelu_(input, lower, upper, training)


def _passthrough(name, fname=None):
    def fn(*args, **kwargs):
        return getattr(_F(), fname or name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    return fn


def _inplace_method(name):
    def fn(input, *args):
        return getattr(_tensor(input, name), name)(*args)
    fn.__name__ = fn.__qualname__ = name
    return fn


TORCH = {
    "dropout": _torch_dropout("dropout"), "dropout_": _torch_dropout("dropout_", inplace_=True),
    "feature_dropout": _torch_dropout("feature_dropout", feature=True),
    "feature_dropout_": _torch_dropout("feature_dropout_", feature=True, inplace_=True),
    "alpha_dropout": _torch_dropout("alpha_dropout", alpha=True),
    "alpha_dropout_": _torch_dropout("alpha_dropout_", alpha=True, inplace_=True),
    "feature_alpha_dropout": _torch_dropout("feature_alpha_dropout", feature=True, alpha=True),
    "feature_alpha_dropout_": _torch_dropout("feature_alpha_dropout_", feature=True, alpha=True, inplace_=True),
    "embedding": _torch_embedding, "batch_norm": _torch_batch_norm, "instance_norm": _torch_instance_norm,
    "layer_norm": _torch_layer_norm, "group_norm": _torch_group_norm, "rms_norm": rms_norm, "pdist": pdist,
    "max_pool1d": _torch_max_pool("max_pool1d"), "max_pool2d": _torch_max_pool("max_pool2d"),
    "max_pool3d": _torch_max_pool("max_pool3d"), "max_pool1d_with_indices": _torch_max_pool1d_with_indices,
    "adaptive_max_pool1d": _torch_adaptive_max_pool1d,
    "kl_div": _torch_kl_div, "binary_cross_entropy_with_logits": _torch_bce_with_logits,
    "cosine_embedding_loss": _torch_cosine_embedding_loss, "hinge_embedding_loss": _torch_hinge_embedding_loss,
    "margin_ranking_loss": _torch_margin_ranking_loss, "poisson_nll_loss": _torch_poisson_nll_loss,
    "triplet_margin_loss": _torch_triplet_margin_loss, "rrelu": _torch_rrelu, "rrelu_": _torch_rrelu_,
    "relu_": relu_, "selu_": selu_, "celu_": celu_, "threshold_": threshold_,
    "ctc_loss": _torch_ctc_loss,  # ATen's integer reduction (minigrad/ops/ctc.py)
    "sigmoid_": _inplace_method("sigmoid_"), "tanh_": _inplace_method("tanh_"),
}
for _n in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "avg_pool1d",
           "adaptive_avg_pool1d", "bilinear", "celu", "selu", "threshold", "prelu", "hardshrink", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"):
    TORCH[_n] = _passthrough(_n)
