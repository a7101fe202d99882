"""minigrad.nn.functional: torch.nn.functional's names (linear, activations, dropout, losses).

Signatures, defaults, results, gradients and error messages follow torch. Each loss and
linear is one fused node (minigrad/ops/loss.py, minigrad/ops/nn_ops.py); the functions here
handle torch's argument conventions (legacy size_average/reduce, inplace=, dim=None).
"""
import warnings
from numbers import Number

from ..ops import loss as _loss, nn_ops as _nn
from ..ops.inplace import inplace as _inplace
from ..ops import norm as _norm
from ..tensor import Tensor, _make

__all__ = ["linear", "relu", "leaky_relu", "sigmoid", "tanh", "softmax", "log_softmax", "dropout", "elu",
           "softplus", "softsign", "gelu", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy",
           "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits"]

# more activations, embedding and one_hot (minigrad/ops/activations.py, embedding.py)
from ..ops.activations import (silu, mish, hardtanh, relu6, logsigmoid, softmin, hardsigmoid,  # noqa: E402
                               hardswish, prelu, celu, selu, threshold, tanhshrink, softshrink, hardshrink)
from ..ops.embedding import embedding, one_hot, embedding_bag  # noqa: E402
# convolution and pooling (minigrad/ops/conv.py)
from ..ops.conv import (conv1d, conv2d, unfold, fold, max_pool1d, max_pool2d, avg_pool1d,  # noqa: E402
                        avg_pool2d, adaptive_avg_pool1d, adaptive_avg_pool2d)
__all__ += ["conv1d", "conv2d", "unfold", "fold", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d",
            "adaptive_avg_pool1d", "adaptive_avg_pool2d"]
from ..ops.conv import (conv_transpose1d, conv_transpose2d, adaptive_max_pool1d,  # noqa: E402
                        adaptive_max_pool2d)
__all__ += ["conv_transpose1d", "conv_transpose2d", "adaptive_max_pool1d", "adaptive_max_pool2d"]
from ..ops.conv import (conv3d, conv_transpose3d, max_pool3d, avg_pool3d, adaptive_avg_pool3d,  # noqa: E402
                        adaptive_max_pool3d, lp_pool1d, lp_pool2d, lp_pool3d)
__all__ += ["conv3d", "conv_transpose3d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d",
            "lp_pool1d", "lp_pool2d", "lp_pool3d"]
from ..ops.conv import max_unpool1d, max_unpool2d, max_unpool3d  # noqa: E402
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies
__all__ += ["max_unpool1d", "max_unpool2d", "max_unpool3d"]
__all__ += ["silu", "mish", "hardtanh", "relu6", "logsigmoid", "softmin", "hardsigmoid", "hardswish", "prelu",
            "celu", "selu", "threshold", "tanhshrink", "softshrink", "hardshrink", "embedding", "one_hot",
            "embedding_bag"]


def _tensor(x, fn, arg="input", pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")
    return x


def _arg(x, fn, arg, pos, kind="Number"):
    """torch's TypeError for a number argument (a slope, a probability) of another type."""
    ok = x.__class__ is float or x.__class__ is int or (
        isinstance(x, Number) and not isinstance(x, complex) if kind == "Number" else
        x.__class__ is bool if kind == "bool" else isinstance(x, Number) and not isinstance(x, complex))
    if not ok:
        from .._arg_errors import type_name
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be {kind}, not {type_name(x)}")
    return x


def _legacy_reduction(size_average, reduce):
    """torch's mapping of the deprecated size_average/reduce flags to a reduction, with its warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                  stacklevel=3)
    return ret


# ---- linear and activations ---------------------------------------------------------------------

linear = _nn.linear


def relu(input, inplace=False):
    _tensor(input, "relu")
    if inplace:
        return _inplace(input, _nn.relu)
    return _nn.relu(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    _tensor(input, "leaky_relu")
    _arg(negative_slope, "leaky_relu", "negative_slope", 2)
    if inplace:
        return _inplace(input, lambda t: _nn.leaky_relu(t, negative_slope, True))
    return _nn.leaky_relu(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    _tensor(input, "elu")
    _arg(alpha, "elu", "alpha", 2)
    if inplace:
        return _inplace(input, lambda t: _nn.elu(t, alpha, True))
    return _nn.elu(input, alpha)


def softplus(input, beta=1.0, threshold=20.0):
    if _AUTOCAST_ON[0] and (r := _autocast("softplus", softplus, input, beta, threshold)) is not None:
        return r
    _arg(beta, "softplus", "beta", 2), _arg(threshold, "softplus", "threshold", 3)
    return _nn.softplus(_tensor(input, "softplus"), beta, threshold)


def softsign(input):
    return input / (input.abs() + 1)  # torch composes it the same way (DivBackward0)


def gelu(input, approximate="none"):
    _tensor(input, "gelu")
    if approximate != "none" and approximate != "tanh":
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _nn.gelu(input, approximate)


def sigmoid(input):
    return _tensor(input, "sigmoid").sigmoid()


def tanh(input):
    return _tensor(input, "tanh").tanh()


def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
                  "dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    _tensor(input, "softmax")
    if dim is None:
        dim = _softmax_dim("softmax", input._data.ndim, _stacklevel)
    # as torch's: dim by position, dtype by keyword (what its argument errors name); an integer
    # input gets torch's NotImplementedError, from the op
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    _tensor(input, "log_softmax")
    if dim is None:
        dim = _softmax_dim("log_softmax", input._data.ndim, _stacklevel)
    # as torch's: dim by position, dtype by keyword (what its argument errors name); an integer
    # input gets torch's NotImplementedError, from the op
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1 / (1 - p), from the backend's
    random generator (minigrad.manual_seed makes it reproducible)."""
    _tensor(input, "dropout")
    if training.__class__ is not bool:
        _arg(training, "dropout", "train", 3, "bool")
    if p.__class__ is not float:
        _arg(p, "dropout", "p", 2, "float")
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    x = input._data
    if not training or p == 0 or x.size == 0:
        return input  # torch returns the input itself here
    if x.dtype.kind != "f":
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{input.dtype._legacy[:-6]}")
    be = input._device.backend
    if p == 1:
        noise = be.zeros((), x.dtype)
    else:
        keep = 1.0 - p
        noise = be.div(be.astype(be.lt(be.rand(x.shape, x.dtype), keep), x.dtype), keep)
    noise = _make(noise, input._device)
    return input.mul_(noise) if inplace else input * noise


# ---- regression losses ---------------------------------------------------------------------------

def _invalid_mode(reduction):
    return ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _weighted(elem, weight, input, reduction, mean_by_weight=True):
    """torch's weighted regression losses: elementwise loss times weight, then reduced ('mean'
    divides by the sum of the weights for mse/l1, by the element count for huber)."""
    _tensor(weight, "loss", "weight")
    if weight._data.shape != input._data.shape:
        raise ValueError("Weights and input must have the same size.")
    out = elem * weight
    if reduction == "none":
        return out
    if reduction == "sum":
        return out.sum()
    if reduction == "mean":
        return out.sum() / weight.sum() if mean_by_weight else out.mean()
    raise _invalid_mode(reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "mse_loss", mse_loss, input, target, size_average, reduce, reduction, weight)) is not None:
        return r
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if weight is None:
        return _loss.mse_loss(input, target, reduction)
    input, target = _loss.regression_operands(input, target, "mse_loss")
    return _weighted(_loss.mse_loss(input, target, "none"), weight, input, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "l1_loss", l1_loss, input, target, size_average, reduce, reduction, weight)) is not None:
        return r
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if isinstance(input, Tensor) and isinstance(target, Tensor) and (
            (input._data.dtype.kind == "b") != (target._data.dtype.kind == "b")):  # torch's input - target
        from ..ops.elementwise import _bool_sub_error
        raise _bool_sub_error(input, target)
    input, target = _loss.regression_operands(input, target, "l1_loss", floating=False)
    elem = (input - target).abs()  # torch composes l1 the same way (AbsBackward0, MeanBackward0)
    if weight is not None:
        return _weighted(elem, weight, input, reduction)
    reduction = _loss.check_reduction(reduction)
    return elem if reduction == "none" else elem.sum() if reduction == "sum" else elem.mean()


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "smooth_l1_loss", smooth_l1_loss, input, target, size_average, reduce, reduction, beta)) is not None:
        return r
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return _loss.smooth_l1_loss(input, target, _loss.check_reduction(reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "huber_loss", huber_loss, input, target, reduction, delta, weight)) is not None:
        return r
    if weight is None:
        return _loss.huber_loss(input, target, _loss.check_reduction(reduction), delta)
    return _weighted(_loss.huber_loss(input, target, "none", delta), weight, input, reduction,
                     mean_by_weight=False)


# ---- classification losses ------------------------------------------------------------------------

def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Class indices (input (N, C, ...) or (C,), target (N, ...) or ()) or class probabilities
    (target shaped like input); one fused node either way."""
    if _AUTOCAST_ON[0] and (r := _autocast(
            "cross_entropy", cross_entropy, input, target, weight, size_average, ignore_index, reduce, reduction,
            label_smoothing)) is not None:
        return r
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    _tensor(input, "cross_entropy_loss")
    _tensor(target, "cross_entropy_loss", "target", 2)
    if target._data.shape == input._data.shape:
        return _loss.prob_cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)
    return _loss.class_nll(input, target, weight, ignore_index, reduction, label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "nll_loss", nll_loss, input, target, weight, size_average, ignore_index, reduce, reduction)) is not None:
        return r
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    _tensor(input, "nll_loss_nd")
    _tensor(target, "nll_loss_nd", "target", 2)
    return _loss.class_nll(input, target, weight, ignore_index, reduction, logits=False)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "binary_cross_entropy", binary_cross_entropy, input, target, weight, size_average, reduce, reduction)) is not None:
        return r
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    _tensor(input, "binary_cross_entropy")
    _tensor(target, "binary_cross_entropy", "target", 2)
    return _loss.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "binary_cross_entropy_with_logits", binary_cross_entropy_with_logits, input, target, weight, size_average,
            reduce, reduction, pos_weight)) is not None:
        return r
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    _tensor(input, "binary_cross_entropy_with_logits")
    _tensor(target, "binary_cross_entropy_with_logits", "target", 2)
    return _loss.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)


# ---- normalization (minigrad/ops/norm.py) ---------------------------------------------------------

__all__ += ["layer_norm", "batch_norm"]
layer_norm = _norm.layer_norm
batch_norm = _norm.batch_norm


# ---- more losses, distances and padding (minigrad/ops/loss_more.py, padding.py) --------------------

from ..ops.loss_more import (kl_div, cosine_embedding_loss, margin_ranking_loss, hinge_embedding_loss,  # noqa: E402
                             soft_margin_loss, multilabel_soft_margin_loss, multi_margin_loss,
                             multilabel_margin_loss, poisson_nll_loss, gaussian_nll_loss, triplet_margin_loss,
                             normalize, cosine_similarity, pairwise_distance)
from ..ops.padding import pad  # noqa: E402
__all__ += ["kl_div", "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
            "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss", "poisson_nll_loss",
            "gaussian_nll_loss", "triplet_margin_loss", "normalize", "cosine_similarity", "pairwise_distance", "pad"]


# ---- attention (minigrad/ops/attention.py) ---------------------------------------------------------

from ..ops.attention import (scaled_dot_product_attention, multi_head_attention_forward,  # noqa: E402
                             _canonical_mask, _none_or_dtype, _mha_shape_check)
__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward"]


# ---- image-model layers: interpolation, shuffles, more normalizations, GLU, bilinear -------------

from ..ops.interpolate import (interpolate, upsample, upsample_nearest, upsample_bilinear,  # noqa: E402
                               pixel_shuffle, pixel_unshuffle, channel_shuffle, glu)
group_norm = _norm.group_norm
instance_norm = _norm.instance_norm
native_channel_shuffle = channel_shuffle
__all__ += ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle", "pixel_unshuffle",
            "channel_shuffle", "native_channel_shuffle", "glu", "group_norm", "instance_norm",
            "local_response_norm", "gumbel_softmax", "bilinear"]


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """torch's composition: the squares averaged over a window of `size` channels (zero-padded),
    then input / (k + alpha * avg) ** beta (its node is DivBackward0)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        # torch pools a (N, 1, C, H, rest) view in 3-d; a (size, 1) window over (C, H * rest) is the same
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], -1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Softmax of (logits + Gumbel noise) / tau, the noise -log(E), E ~ Exp(1) from the backend's
    generator; hard: the one-hot of the argmax, with the soft sample's gradient."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    be = logits._device.backend
    x = logits._data
    # Exp(1) = -log(U), U uniform in (0, 1]
    e = be.neg(be.log(be.sub(be.ones((), x.dtype), be.rand(x.shape, x.dtype))))
    gumbels = _make(be.neg(be.log(e)), logits._device)
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        from .. import creation
        y_hard = creation.zeros_like(logits).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft


def bilinear(input1, input2, weight, bias=None):
    """torch.bilinear: y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] (+ bias), the flattened
    product reshaped to the batch shape (its node is ViewBackward0, AddBackward0 with a bias)."""
    if _AUTOCAST_ON[0] and (r := _autocast("bilinear", bilinear, input1, input2, weight, bias)) is not None:
        return r
    for pos, (name, t) in enumerate((("input1", input1), ("input2", input2), ("weight", weight)), 1):
        _tensor(t, "bilinear", name, pos)
    d1, d2 = input1.dim(), input2.dim()
    if d1 != d2:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {d1} and {d2}")
    for i in range(d1 - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} and "
                               f"{input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but "
                           f"expected {weight.shape[0]}")
    o, i, j = weight.shape
    x1 = input1.reshape(-1, i)
    x2 = input2.reshape(-1, j)
    t = x1.matmul(weight.permute(1, 0, 2).reshape(i, o * j)).reshape(-1, o, j)
    out = (t * x2.unsqueeze(1)).sum(-1).reshape(tuple(input1.shape[:-1]) + (o,))
    return out if bias is None else out + bias


# channel-wise and alpha dropout, rrelu, rms_norm, pdist, the in-place forms (minigrad/ops/nn_extras.py)
from ..ops.nn_extras import FUNCTIONAL as _EXTRAS  # noqa: E402
globals().update(_EXTRAS)
__all__ += list(_EXTRAS)

# connectionist temporal classification (minigrad/ops/ctc.py)
from ..ops.ctc import functional_ctc_loss as ctc_loss  # noqa: E402
__all__ += ["ctc_loss"]

# grid sampling and fractional max pooling (minigrad/ops/grid_sample.py, fractional_pool.py)
from ..ops.grid_sample import grid_sample, affine_grid  # noqa: E402
from ..ops.fractional_pool import (fractional_max_pool2d, fractional_max_pool3d,  # noqa: E402
                                   fractional_max_pool2d_with_indices, fractional_max_pool3d_with_indices)
__all__ += ["grid_sample", "affine_grid", "fractional_max_pool2d", "fractional_max_pool3d",
            "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]

# cross_entropy over the logits of a linear layer (minigrad/nn/linear_cross_entropy.py)
from .linear_cross_entropy import linear_cross_entropy  # noqa: E402
__all__ += ["linear_cross_entropy"]

# torch.nn.functional.grad is the module of convolution gradients (minigrad/nn/grad.py)
from . import grad  # noqa: E402,F401
