"""minigrad.nn.init: in-place parameter initializers with torch.nn.init's names and formulas.

Each fills the tensor's memory in place without recording a graph and returns the tensor.
Random values come from the tensor's device backend (reproducible with minigrad.manual_seed),
or from `generator` (a minigrad.Generator) when one is given; trunc_normal_, orthogonal_ and
sparse_ draw on the host (from the global generator without one) and copy the result over.
The names without the trailing underscore are torch's deprecated aliases.
"""
import math
import warnings

import numpy as np

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor, _make


def _check(tensor, name):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{name}(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")


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


def _host_rng(generator):
    """The NumPy generator drawing host-side values: generator's, else the global one."""
    from ..creation import default_generator
    return (generator if generator is not None else default_generator)._rng


def _fill_from_host(tensor, host):
    """Write a host (NumPy) array of tensor's shape into tensor, in tensor's dtype."""
    be = tensor._device.backend
    # asarray with order='C', not ascontiguousarray, which turns a 0-d array into a 1-d one
    return _fill_from(tensor, be.asarray(np.asarray(host, dtype=tensor._data.dtype, order="C")))


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
    _check_uniform_bounds(tensor, a, b)
    be = tensor._device.backend
    u = _uniform01(tensor, generator)
    return _fill_from(tensor, be.add(be.mul(u, float(b) - float(a)), float(a)))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    _check(tensor, "normal_")
    _check_normal_std(tensor, std)
    be = tensor._device.backend
    n = _normal01(tensor, generator)
    return _fill_from(tensor, be.add(be.mul(n, float(std)), float(mean)))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Normal(mean, std) conditioned on [a, b], by torch's two rejection samplers (drawn on the
    host): normal draws redrawn while outside [a, b] when that interval holds more than 30% of
    the mass, else uniform proposals on [a, b] accepted with the normal density's ratio to its
    peak there, so far-tail intervals still finish."""
    _check(tensor, "trunc_normal_")

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    rng = _host_rng(generator)
    shape, dt = tensor._data.shape, tensor._data.dtype
    draws = (math.prod(shape),)  # drawn flat (a 0-d tensor included), shaped at the end
    p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
    if p > 0.3:
        _check_normal_std(tensor, std)
        lo, hi = dt.type(a), dt.type(b)
        out = rng.normal(mean, std, draws).astype(dt)
        bad = (out < lo) | (out > hi)
        while bad.any():
            out[bad] = rng.normal(mean, std, int(bad.sum())).astype(dt)
            bad = (out < lo) | (out > hi)
    else:
        _check_uniform_bounds(tensor, a, b)
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        out = rng.uniform(a, b, draws)
        pending = np.log(rng.random(draws)) > -0.5 * ((out - mean) / std) ** 2 - log_peak
        while pending.any():
            n = int(pending.sum())
            cand = rng.uniform(a, b, n)
            out[pending] = cand
            still = np.log(rng.random(n)) > -0.5 * ((cand - mean) / std) ** 2 - log_peak
            pending[pending] = still
    return _fill_from_host(tensor, out.reshape(shape))


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
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
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
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix (tensor viewed as rows x rest) from the QR decomposition of a
    normal matrix, with torch's sign correction, times gain (computed on the host)."""
    _check(tensor, "orthogonal_")
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    _check_normal_std(tensor, 1.0)
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flattened = _host_rng(generator).standard_normal((rows, cols))
    if rows < cols:
        flattened = flattened.T
    q, r = np.linalg.qr(flattened)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill_from_host(tensor, (q * gain).reshape(tensor._data.shape))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Normal(0, std) values with ceil(sparsity * rows) entries of every column set to zero."""
    _check(tensor, "sparse_")
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    _check_normal_std(tensor, std)
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    rng = _host_rng(generator)
    out = rng.normal(0.0, std, (rows, cols))
    for col_idx in range(cols):
        out[rng.permutation(rows)[:num_zeros], col_idx] = 0
    return _fill_from_host(tensor, out)


def dirac_(tensor, groups=1):
    """The identity of a convolution weight (3-5 dims): 1 at the centre of the kernel of each
    (output channel, matching input channel) pair, per group; 0 elsewhere."""
    _check(tensor, "dirac_")
    dimensions = tensor.dim()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    out = np.zeros(tuple(sizes))
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min_dim):
            out[(g * out_chans_per_grp + d, d) + centre] = 1
    return _fill_from_host(tensor, out)


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
                      FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"Deprecated: use nn.init.{new_name}."
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
