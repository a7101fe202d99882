"""minigrad.nn.init: in-place parameter initializers with torch.nn.init's names and formulas.

Each fills the tensor's memory in place without recording a graph and returns the tensor.
Random values come from the tensor's device backend (reproducible with minigrad.manual_seed),
or from `generator` (a minigrad.Generator) when one is given; trunc_normal_, orthogonal_ and
sparse_ draw on the host (from the global generator without one) and copy the result over.
The stream use is part of the contract: tests compare initial weights with torch's under the
same seed, so the number, order and shape of the draws of each initializer must not change.
The names without the trailing underscore are torch's deprecated aliases.
"""
import math
import warnings

import numpy as np

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor, _make


# ---- argument checks, with torch's messages --------------------------------------------------------

def _require_tensor(tensor, caller):
    if isinstance(tensor, Tensor):
        return
    raise TypeError(f"{caller}(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")


def _require_float(tensor, kernel):
    # torch's kernels have no integer or bool version: its error names the kernel and dtype
    if not tensor.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{tensor.dtype._legacy[:-6]}\'')


def _check_uniform_bounds(tensor, a, b):
    _require_float(tensor, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a:g} > to={b:g}")


def _check_normal_std(tensor, std):
    _require_float(tensor, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


# ---- writing values into a tensor --------------------------------------------------------------------

def _host_rng(generator):
    """The NumPy generator drawing host-side values: generator's, else the global one."""
    from ..creation import default_generator
    return (default_generator if generator is None else generator)._rng


def _fill_from(tensor, array):
    """Write a backend array with tensor's shape into tensor's memory (an in-place op)."""
    with no_grad():
        tensor.copy_(_make(array, tensor._device))
    return tensor


def _fill_from_host(tensor, host):
    """Write a host (NumPy) array of tensor's shape into tensor, in tensor's dtype."""
    # asarray with order='C', not ascontiguousarray, which turns a 0-d array into a 1-d one
    staged = np.asarray(host, dtype=tensor._data.dtype, order="C")
    return _fill_from(tensor, tensor._device.backend.asarray(staged))


def _standard_draws(tensor, generator, host_method, backend_method):
    """Standard uniform / normal values of tensor's shape and dtype: from the device backend's
    own stream, or drawn on the host from `generator` and moved over."""
    shape, dtype = tensor._data.shape, tensor._data.dtype
    backend = tensor._device.backend
    if generator is None:
        return getattr(backend, backend_method)(shape, dtype)
    return backend.asarray(getattr(generator._rng, host_method)(shape).astype(dtype))


# ---- the basic distributions -------------------------------------------------------------------------

def uniform_(tensor, a=0.0, b=1.0, generator=None):
    _require_tensor(tensor, "uniform_")
    _check_uniform_bounds(tensor, a, b)
    backend = tensor._device.backend
    unit = _standard_draws(tensor, generator, "random", "rand")
    low, width = float(a), float(b) - float(a)
    return _fill_from(tensor, backend.add(backend.mul(unit, width), low))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    _require_tensor(tensor, "normal_")
    _check_normal_std(tensor, std)
    backend = tensor._device.backend
    unit = _standard_draws(tensor, generator, "standard_normal", "randn")
    return _fill_from(tensor, backend.add(backend.mul(unit, float(std)), float(mean)))


def _std_normal_cdf(z):
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def _trunc_by_redraw(rng, mean, std, lo, hi, count, dtype):
    """Normal draws, each one outside [lo, hi] drawn again until none is: quick when the
    interval holds a fair share of the mass. Compared in the target dtype, so that a value
    rounding onto a bound counts as inside."""
    values = rng.normal(mean, std, count).astype(dtype)
    outside = (values < lo) | (values > hi)
    while outside.any():
        values[outside] = rng.normal(mean, std, int(outside.sum())).astype(dtype)
        outside = (values < lo) | (values > hi)
    return values


def _trunc_by_uniform_proposals(rng, mean, std, a, b, count):
    """Uniform proposals on [a, b] accepted with probability density(x) / max density on
    [a, b]; it finishes in a few rounds even for intervals far in a tail, where redrawing
    normal values would almost never land."""
    def log_density(x):  # up to a constant
        return -0.5 * ((x - mean) / std) ** 2
    log_max = log_density(min(max(mean, a), b))
    values = rng.uniform(a, b, count)
    rejected = np.log(rng.random(count)) > log_density(values) - log_max
    while rejected.any():
        retries = int(rejected.sum())
        proposals = rng.uniform(a, b, retries)
        values[rejected] = proposals
        rejected[rejected] = np.log(rng.random(retries)) > log_density(proposals) - log_max
    return values


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Normal(mean, std) conditioned on [a, b], drawn on the host by one of two rejection
    samplers: redrawing normal values when [a, b] holds more than 30% of the mass, uniform
    proposals otherwise."""
    _require_tensor(tensor, "trunc_normal_")
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    rng = _host_rng(generator)
    shape, dtype = tensor._data.shape, tensor._data.dtype
    count = (math.prod(shape),)  # drawn flat (a 0-d tensor included), shaped at the end
    mass = _std_normal_cdf((b - mean) / std) - _std_normal_cdf((a - mean) / std)
    if mass > 0.3:
        _check_normal_std(tensor, std)
        values = _trunc_by_redraw(rng, mean, std, dtype.type(a), dtype.type(b), count, dtype)
    else:
        _check_uniform_bounds(tensor, a, b)
        values = _trunc_by_uniform_proposals(rng, mean, std, a, b, count)
    return _fill_from_host(tensor, values.reshape(shape))


def constant_(tensor, val):
    _require_tensor(tensor, "constant_")
    with no_grad():
        tensor.fill_(val)
    return tensor


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    _require_tensor(tensor, "zeros_")
    with no_grad():
        tensor.zero_()
    return tensor


def eye_(tensor):
    _require_tensor(tensor, "eye_")
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    return _fill_from(tensor, tensor._device.backend.eye(rows, cols, tensor._data.dtype))


# ---- gains and fans -----------------------------------------------------------------------------------

# layers that leave the scale of their input alone (sigmoid is counted with them, as in torch)
_UNIT_GAIN = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")


def _leaky_relu_slope(param):
    if param is None:
        return 0.01
    if isinstance(param, (int, float)) and not isinstance(param, bool):
        return param
    raise ValueError(f"negative_slope {param} not a valid number")


def calculate_gain(nonlinearity, param=None):
    """The factor by which an activation shrinks the variance, to scale initial weights by."""
    if nonlinearity in _UNIT_GAIN:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1 + _leaky_relu_slope(param) ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fans(tensor):
    """(fan_in, fan_out) of a weight laid out (out, in, *kernel): each side's channel count
    times the number of kernel positions."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    outputs, inputs, *kernel = tensor.shape
    positions = math.prod(kernel)
    return inputs * positions, outputs * positions


# torch's private name, which layer code (conv's bias bound) and users call
_calculate_fan_in_and_fan_out = _fans


def _fan_for_mode(tensor, mode):
    mode = mode.lower()
    modes = ["fan_in", "fan_out"]
    if mode not in modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {modes}")
    fan_in, fan_out = _fans(tensor)
    return fan_out if mode == "fan_out" else fan_in


# ---- scaled initializers ------------------------------------------------------------------------------

def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _fans(tensor)
    # a uniform on [-bound, bound] has the variance 2 / (fan_in + fan_out) times gain^2
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _fans(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    """The std that keeps activations' variance through the layer; None (with torch's
    warning) for a tensor with no elements, which is then left as it is."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _fan_for_mode(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


# ---- structured initializers (computed on the host) ---------------------------------------------------

def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix (tensor viewed as rows x rest) times gain: the Q factor of a
    standard normal matrix's QR decomposition, its columns' signs fixed by R's diagonal so
    that the result is uniformly distributed rather than biased by the QR convention."""
    _require_tensor(tensor, "orthogonal_")
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    _check_normal_std(tensor, 1.0)
    height = tensor.shape[0]
    width = tensor.numel() // height
    wide = height < width
    gaussian = _host_rng(generator).standard_normal((height, width))
    # QR of the tall orientation gives orthonormal columns; a wide matrix is factored transposed
    q, r = np.linalg.qr(gaussian.T if wide else gaussian)
    q = q * np.sign(np.diag(r))
    result = q.T if wide else q
    return _fill_from_host(tensor, (result * gain).reshape(tensor._data.shape))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Normal(0, std) values with ceil(sparsity * rows) entries of every column set to zero."""
    _require_tensor(tensor, "sparse_")
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    _check_normal_std(tensor, std)
    rows, cols = tensor.shape
    zeros_per_column = math.ceil(sparsity * rows)
    rng = _host_rng(generator)
    values = rng.normal(0.0, std, (rows, cols))
    # one fresh permutation per column, drawn after the values, picks the rows to clear
    for col in range(cols):
        values[rng.permutation(rows)[:zeros_per_column], col] = 0
    return _fill_from_host(tensor, values)


def dirac_(tensor, groups=1):
    """The identity of a convolution weight (3-5 dims): 1 at the centre of the kernel of each
    (output channel, matching input channel) pair, per group; 0 elsewhere."""
    _require_tensor(tensor, "dirac_")
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_channels, in_channels, *kernel = tensor.shape
    if out_channels % groups:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = out_channels // groups
    centre = tuple(k // 2 for k in kernel)
    weight = np.zeros((out_channels, in_channels, *kernel))
    for group in range(groups):
        for ch in range(min(per_group, in_channels)):
            weight[(group * per_group + ch, ch, *centre)] = 1
    return _fill_from_host(tensor, weight)


# ---- deprecated aliases -------------------------------------------------------------------------------

def _deprecated_alias(initializer):
    """`nn.init.uniform` and the like: the initializer behind a FutureWarning."""
    current = initializer.__name__
    legacy = current[:-1]

    def alias(*args, **kwargs):
        warnings.warn(f"`nn.init.{legacy}` is now deprecated in favor of `nn.init.{current}`.",
                      FutureWarning, stacklevel=2)
        return initializer(*args, **kwargs)

    alias.__name__ = legacy
    alias.__doc__ = f"Deprecated: use nn.init.{current}."
    return alias


uniform = _deprecated_alias(uniform_)
normal = _deprecated_alias(normal_)
constant = _deprecated_alias(constant_)
eye = _deprecated_alias(eye_)
dirac = _deprecated_alias(dirac_)
xavier_uniform = _deprecated_alias(xavier_uniform_)
xavier_normal = _deprecated_alias(xavier_normal_)
kaiming_uniform = _deprecated_alias(kaiming_uniform_)
kaiming_normal = _deprecated_alias(kaiming_normal_)
orthogonal = _deprecated_alias(orthogonal_)
sparse = _deprecated_alias(sparse_)
