"""torch.testing.make_tensor: a tensor of random values drawn uniformly from [low, high)."""
import math
import warnings

from .. import dtypes as _dt

_INTEGER_NAMES = ("uint8", "int8", "int16", "int32", "int64")
_FLOAT_NAMES = ("float16", "bfloat16", "float32", "float64")


def _bounds(dtype, low, high, lowest, beyond, default_low, default_high):
    """[low, high) from the user's values (or the defaults), checked and clamped into
    [lowest, beyond); integer bounds round up, as torch's."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype.name in _FLOAT_NAMES:
        warnings.warn("Passing `low==high` to `minigrad.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `minigrad.full(...)` instead.",
                      FutureWarning, stacklevel=4)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= beyond:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype!r} only "
                         f"supports [{lowest}, {beyond})")
    low, high = min(max(low, lowest), beyond), min(max(high, lowest), beyond)
    if dtype.name not in _FLOAT_NAMES:
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of the given shape, dtype and device, its values drawn uniformly from [low, high).
    Default ranges: bool [0, 2), unsigned integers [0, 10), signed integers [-9, 10), floating
    point [-9, 9); given bounds outside the dtype's range are clamped into it. noncontiguous:
    a view with a step along the last dim (for two elements or more); exclude_zero: zeros become
    1 (bool, integers) or the dtype's tiny; requires_grad is for floating point dtypes only."""
    import minigrad
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    exact = dtype is _dt.bool_ or dtype.name in _INTEGER_NAMES
    if requires_grad and exact:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype!r}")
    numel = 1
    for n in shape:
        numel *= n
    noncontiguous = noncontiguous and numel > 1
    if noncontiguous:
        shape = shape[:-1] + (2 * shape[-1],)
    if dtype is _dt.bool_:
        low, high = _bounds(dtype, low, high, 0, 2, 0, 2)
        out = minigrad.randint(low, high, shape, device=device, dtype=dtype)
    elif exact:
        info = _dt.iinfo(dtype)
        # randint cannot draw int64's largest value: its range ends there, exclusive
        low, high = _bounds(dtype, low, high, info.min, info.max + (dtype is not _dt.int64), -9, 10)
        out = minigrad.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype.name in _FLOAT_NAMES:
        info = _dt.finfo(dtype)
        low, high = _bounds(dtype, low, high, info.min, info.max, -9, 9)
        out = minigrad.empty(shape, device=device, dtype=dtype)
        if high - low >= info.max:  # the width itself would overflow: draw half of it, then double
            out.uniform_(low / 2, high / 2).mul_(2)
        else:
            out.uniform_(low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype!r}' is not supported by minigrad.testing.make_tensor(). To "
                        "request support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        out = out[..., 1::2]
    elif memory_format is not None:
        out = out.clone(memory_format=memory_format)
    if exclude_zero:
        out[out == 0] = 1 if exact else _dt.finfo(dtype).tiny
    if not exact:
        out.requires_grad = requires_grad
    return out
