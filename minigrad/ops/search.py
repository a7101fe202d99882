"""torch.searchsorted and torch.bucketize, composed from the stable sort and cumsum, so they run
on every backend with no kernel of their own.

The values and the boundaries of a row are sorted together, stably, the values placed before
the boundaries (side='left': a value goes before boundaries equal to it) or after them
('right'). A value's answer is then its position in that merged order less the number of
values before it: the number of boundaries before it.
"""
from numbers import Number

from ..autograd.grad_mode import no_grad
from ..creation import arange, ones, tensor, zeros
from ..dtypes import int32, int64, promote_types
from ..tensor import Tensor


def _error(msg):
    return RuntimeError("minigrad.searchsorted(): " + msg)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    if not isinstance(sorted_sequence, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"searchsorted(): argument 'sorted_sequence' (position 1) must be Tensor, not "
                        f"{type_name(sorted_sequence)}")
    seq = sorted_sequence
    if side is not None:
        if side not in ("left", "right"):
            raise _error(f"side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise _error("side and right can't be set to opposites, got side of left while right was True")
        right = side == "right"
    if isinstance(input, Number):
        input = tensor(input, device=seq.device)
    elif not isinstance(input, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"searchsorted(): argument 'input' (position 2) must be Tensor, not {type_name(input)}")
    if seq.dim() == 0:
        raise _error("boundaries tensor should have positive dimension, but got 0 dimension")
    if seq.dim() > 1 and list(seq.shape[:-1]) != list(input.shape[:-1]):
        raise _error("boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and "
                     f"input value tensor must match, but we got boundaries tensor {list(seq.shape)} and input "
                     f"value tensor {list(input.shape)}")
    if seq.device != input.device:
        from .elementwise import device_error
        raise device_error(seq, input)
    with no_grad():
        s, v = seq.detach(), input.detach()
        if sorter is not None:
            s = s.gather(-1, sorter)
        common = promote_types(s.dtype, v.dtype)
        s, v = s.to(common), v.to(common)
        n = s.shape[-1]
        out_shape = tuple(v.shape)
        rows, m = (_rows(v), v.shape[-1]) if seq.dim() > 1 else (1, v.numel())
        s = s.reshape(rows, n) if seq.dim() > 1 else s.reshape(1, n)
        v = v.reshape(rows, m)
        dtype = int32 if out_int32 else int64
        if m == 0:
            return zeros(out_shape, dtype=dtype, device=seq.device)
        is_value = ones(rows, m, dtype=int64, device=seq.device)
        not_value = zeros(rows, n, dtype=int64, device=seq.device)
        if right:  # boundaries first: a value goes after the boundaries equal to it
            keys, flags, offset = _cat(s, v), _cat(not_value, is_value), n
        else:
            keys, flags, offset = _cat(v, s), _cat(is_value, not_value), 0
        order = keys.sort(dim=-1, stable=True).indices
        flag = flags.gather(-1, order)
        before = arange(n + m, device=seq.device) - (flag.cumsum(-1) - flag)  # boundaries before each slot
        picked = flag.bool()
        where = order[picked].reshape(rows, m) - offset  # each value's column, in merged order
        found = before[picked].reshape(rows, m)
        out = zeros(rows, m, dtype=int64, device=seq.device).scatter(-1, where, found)
        return out.reshape(out_shape).to(dtype)


def _rows(v):
    r = 1
    for d in v.shape[:-1]:
        r *= d
    return r


def _cat(a, b):
    from .join import cat
    return cat([a, b], -1)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """torch.bucketize: the index of the bucket of each input value, boundaries a 1-d sorted
    tensor; right=False puts a value equal to a boundary in the bucket that boundary opens
    (searchsorted's side='left'), right=True in the next one."""
    if not isinstance(boundaries, Tensor) or boundaries.dim() != 1:
        dims = boundaries.dim() if isinstance(boundaries, Tensor) else 0
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({dims})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)
