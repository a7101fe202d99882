"""minigrad.nn.init: in-place parameter initializers with torch.nn.init's names and formulas.

Each fills the tensor's memory in place without recording a graph and returns the tensor.
Random values come from the tensor's device backend (reproducible with minigrad.manual_seed),
or from `generator` (a minigrad.Generator) when one is given.
"""
import math

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor, _make


def _check(tensor, name):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{name}(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")


def _fill_from(tensor, array):
    """Write a backend array with tensor's shape into tensor's memory (an in-place op)."""
    with no_grad():
        tensor.copy_(_make(array, tensor._device))
    return tensor


def _uniform01(tensor, generator):
    be = tensor._device.backend
    if generator is not None:
        host = generator._rng.random(tensor._data.shape)
        return be.asarray(host.astype(tensor._data.dtype))
    return be.rand(tensor._data.shape, tensor._data.dtype)


def _normal01(tensor, generator):
    be = tensor._device.backend
    if generator is not None:
        host = generator._rng.standard_normal(tensor._data.shape)
        return be.asarray(host.astype(tensor._data.dtype))
    return be.randn(tensor._data.shape, tensor._data.dtype)


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    _check(tensor, "uniform_")
    be = tensor._device.backend
    u = _uniform01(tensor, generator)
    return _fill_from(tensor, be.add(be.mul(u, float(b) - float(a)), float(a)))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    _check(tensor, "normal_")
    be = tensor._device.backend
    n = _normal01(tensor, generator)
    return _fill_from(tensor, be.add(be.mul(n, float(std)), float(mean)))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Normal(mean, std) values redrawn until they lie in [a, b] (rejection sampling on the host)."""
    _check(tensor, "trunc_normal_")
    from ..creation import default_generator
    rng = (generator if generator is not None else default_generator)._rng
    out = rng.normal(mean, std, tensor._data.shape)
    bad = (out < a) | (out > b)
    while bad.any():
        out[bad] = rng.normal(mean, std, int(bad.sum()))
        bad = (out < a) | (out > b)
    return _fill_from(tensor, tensor._device.backend.asarray(out.astype(tensor._data.dtype)))


def constant_(tensor, val):
    _check(tensor, "constant_")
    with no_grad():
        tensor.fill_(val)
    return tensor


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    _check(tensor, "zeros_")
    with no_grad():
        tensor.zero_()
    return tensor


def eye_(tensor):
    _check(tensor, "eye_")
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    be = tensor._device.backend
    return _fill_from(tensor, be.eye(tensor.shape[0], tensor.shape[1], tensor._data.dtype))


def calculate_gain(nonlinearity, param=None):
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    num_input_fmaps = tensor.shape[1]
    num_output_fmaps = tensor.shape[0]
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tensor.shape:
        import warnings
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tensor.shape:
        import warnings
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)
