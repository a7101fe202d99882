"""Folding an eval-mode BatchNorm into the convolution or linear layer that feeds it, as
torch.nn.utils.fusion.

In eval mode BatchNorm is a fixed affine map per channel,

    bn(z) = gamma * (z - mean) / sqrt(var + eps) + beta = scale * (z - mean) + beta,

so following a layer z = W x + b it can be absorbed into that layer: W' = scale * W (each
output channel's slice of W times its scale) and b' = scale * (b - mean) + beta."""
import copy

from ... import creation
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def _require_eval(layer, bn):
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")


def _require_running_stats(bn):
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def _fused_pair(weight, bias, weight_dtype, bias_dtype, weight_grad, bias_grad):
    """The fused tensors as Parameters in the layer's own dtypes; each keeps requires_grad of
    the tensor it replaces (a missing bias counts as one that needs no gradient)."""
    return (Parameter(weight.to(dtype=weight_dtype), weight_grad),
            Parameter(bias.to(dtype=bias_dtype), bias_grad))


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of conv (eval mode) computing bn(conv(x)); transpose: conv is a ConvTranspose,
    whose output channels are weight dim 1."""
    _require_eval(conv, bn)
    fused = copy.deepcopy(conv)
    _require_running_stats(bn)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The (weight, bias) Parameters of the convolution that computes bn(conv(x)); a missing
    conv bias or BatchNorm affine part counts as zero bias / unit weight."""
    weight_dtype = conv_w.dtype
    bias_dtype = weight_dtype if conv_b is None else conv_b.dtype
    bias_grad = False if conv_b is None else conv_b.requires_grad
    zeros = creation.zeros_like(bn_rm)
    conv_b = zeros if conv_b is None else conv_b
    gamma = creation.ones_like(bn_rm) if bn_w is None else bn_w
    beta = zeros if bn_b is None else bn_b
    inv_std = (bn_rv + bn_eps).rsqrt()
    # one factor per output channel, broadcast over the rest of the kernel
    channel_axis = 1 if transpose else 0
    per_channel = [1] * conv_w.dim()
    per_channel[channel_axis] = -1
    weight = conv_w * (gamma * inv_std).reshape(per_channel)
    bias = (conv_b - bn_rm) * inv_std * gamma + beta
    return _fused_pair(weight, bias, weight_dtype, bias_dtype, conv_w.requires_grad, bias_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of linear (eval mode) computing bn(linear(x)); a BatchNorm of one feature
    broadcasts over all the layer's outputs."""
    _require_eval(linear, bn)
    fused = copy.deepcopy(linear)
    if bn.num_features not in (1, linear.out_features):
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
            f"got linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    _require_running_stats(bn)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean,
                                                      bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The (weight, bias) Parameters of the linear layer that computes bn(linear(x))."""
    weight_dtype = linear_w.dtype
    bias_dtype = weight_dtype if linear_b is None else linear_b.dtype
    bias_grad = False if linear_b is None else linear_b.requires_grad
    if linear_b is None:
        linear_b = creation.zeros_like(bn_rm)
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    # scale multiplies the rows of W (one per output feature)
    weight = linear_w * scale.unsqueeze(-1).to(dtype=weight_dtype)
    bias = (linear_b - bn_rm) * scale + bn_b
    return _fused_pair(weight, bias, weight_dtype, bias_dtype, linear_w.requires_grad, bias_grad)
