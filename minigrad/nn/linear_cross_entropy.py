"""F.linear_cross_entropy: cross_entropy over the logits of a linear layer, as torch 2.13's.

Written as the composition torch documents as its reference (linear, then cross_entropy), so its
gradients, second derivatives and devices are those of the two ops. torch's `options` select a
chunked kernel that saves memory; minigrad validates and keeps them but always takes the
reference path (LinearCrossEntropyOptions' module doc says why).
"""
import warnings

from ..ops import loss as _loss
from ..tensor import Tensor
from .modules.linear_cross_entropy_options import LinearCrossEntropyOptions

__all__ = ["linear_cross_entropy"]


def _shape(t):
    return tuple(t._data.shape)


def _check_shapes(input, linear_weight, linear_bias):
    """torch's shape checks, in its order; returns (classes, out_features)."""
    for name, t in (("input", input), ("linear_weight", linear_weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"linear_cross_entropy(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if input.dim() not in (1, 2):
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    wshape = _shape(linear_weight)
    if wshape[-1] != _shape(input)[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions (in_features), got "
                           f"{_shape(input)[-1]} and {wshape[-1]}, respectively")
    out_features = wshape[1:-1]
    if out_features and input.dim() == 1:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {wshape} requires batched input, "
                           f"(N, {wshape[-1]}), got unbatched input with shape {_shape(input)}")
    if linear_bias is not None and _shape(linear_bias) != wshape[:-1]:
        raise RuntimeError(f"expected linear_bias shape {wshape[:-1]}, got {_shape(linear_bias)}")
    return wshape[0], out_features


def _warn_unchunkable(reduction, label_smoothing, target, out_features, linear_bias):
    """torch falls back from its chunked kernel to the reference path with this warning."""
    if (reduction in ("mean", "sum", "none") and label_smoothing == 0 and target._data.dtype.name == "int64"
            and not out_features):
        return
    bias = None if linear_bias is None else _shape(linear_bias)
    warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                  "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, out_features == (). "
                  f"Got reduction={reduction!r}, label_smoothing={label_smoothing!r}, "
                  f"target.dtype={target.dtype!r}, out_features={out_features!r}, tracing=False, "
                  f"linear_bias.shape={bias!r}.", stacklevel=3)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...), with the class
    dimension first in linear_weight (C, in) or (C, d_1, ..., d_K, in) for a K-dimensional loss.

    ignore_index=None means -100 for class-index targets and is the only value allowed with
    class-probability targets. `options` (a LinearCrossEntropyOptions) is validated but changes
    nothing in minigrad: the logits are always materialized.
    """
    from . import functional as F
    classes, out_features = _check_shapes(input, linear_weight, linear_bias)
    if not isinstance(target, Tensor):
        raise TypeError(f"linear_cross_entropy(): argument 'target' must be Tensor, not {type(target).__name__}")
    if options is not None:
        if not isinstance(options, LinearCrossEntropyOptions):
            raise TypeError(f"linear_cross_entropy(): options must be LinearCrossEntropyOptions or None, not "
                            f"{type(options).__name__}")
        if input.dim() == 2:
            _warn_unchunkable(reduction, label_smoothing, target, out_features, linear_bias)
    logits_shape = ((_shape(input)[0],) if input.dim() == 2 else ()) + (classes,) + out_features
    probabilities = _shape(target) == logits_shape
    if probabilities and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if not probabilities:  # torch's order: reduction, label_smoothing, then the target's dtype
        _loss.check_reduction(reduction)
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
        if target._data.dtype.name not in ("int64", "uint8"):
            raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_loss._dtype_name(target)}")
    if out_features:
        flat_bias = None if linear_bias is None else linear_bias.reshape(-1)
        logits = F.linear(input, linear_weight.reshape(-1, _shape(linear_weight)[-1]), flat_bias)
        logits = logits.reshape(logits_shape)
    else:
        logits = F.linear(input, linear_weight, linear_bias)
    return F.cross_entropy(logits, target, weight=weight, reduction=reduction, label_smoothing=label_smoothing,
                           ignore_index=-100 if ignore_index is None else ignore_index)
