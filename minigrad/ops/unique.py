"""torch.unique, unique_consecutive and bincount, composed from the sort primitive and other ops
(comparisons, cumsum, masked selection, index_add), so they run on every backend.

unique sorts (stably: of equal values the first in the input's order is kept, so -0.0 and 0.0
give the one that comes first) and starts a group where a sorted value differs from the one
before it; NaN differs from everything, itself included, so each NaN is its own group, as in
torch. Over a dim, the slices are sorted lexicographically by one stable sort per column,
from the last column to the first.
"""
from ..autograd.grad_mode import no_grad
from ..creation import arange, ones, zeros
from ..dtypes import float64, int64
from ..tensor import Tensor, _wrap_dim
from .elementwise import Builtin


class Unique2(Builtin):
    """The unique values as a node of the input's graph, whose backward raises (torch's)."""
    _node_name = "Unique2Backward0"

    @staticmethod
    def forward(ctx, a, values):
        return values

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("the derivative for '_unique2' is not implemented.")


class UniqueDim(Unique2):
    _node_name = "UniqueDimBackward0"

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("the derivative for 'unique_dim' is not implemented.")


class UniqueConsecutive(Unique2):
    _node_name = "UniqueConsecutiveBackward0"

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("the derivative for 'unique_consecutive' is not implemented.")


def _groups(starts):
    """(the position where each group starts, each position's group id, each group's size) for
    groups that start where the bool vector `starts` is True."""
    gid = starts.long().cumsum(0) - 1
    first = starts.nonzero().reshape(-1)
    if not first.numel():
        return first, gid, first
    ends = _cat((first[1:], first.new_tensor([starts.shape[0]])))
    return first, gid, ends - first


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _cat(ts):
    from .join import cat
    return cat(list(ts), 0)


def _starts(rows, consecutive_of):
    """True where row i differs from row i - 1 (row 0 always)."""
    n = rows.shape[0]
    if n == 0:
        return zeros(0, dtype=rows.dtype, device=rows.device).bool()
    diff = (consecutive_of[1:] != consecutive_of[:-1])
    if diff.dim() > 1:
        diff = diff.any(1)
    return _cat((ones(1, dtype=diff.dtype, device=diff.device), diff))


def _lexsort(rows):
    """The permutation that sorts the rows of a (n, k) tensor lexicographically, stably."""
    n, k = rows.shape
    order = arange(n, device=rows.device)
    for c in reversed(range(k)):
        order = order[rows[order, c].sort(stable=True).indices]
    return order


def _result(a, node, values, inverse, counts, return_inverse, return_counts):
    if a._requires_grad and a.dtype.is_floating_point:
        from ..autograd.grad_mode import is_grad_enabled
        if is_grad_enabled():
            from ..autograd.function import apply_first
            values = apply_first(node, a, values)
    out = (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return out[0] if len(out) == 1 else out


def _check(a, op):
    if not isinstance(a, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type_name(a)}")


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """torch.unique: always sorted, as torch's CPU and CUDA kernels are (sorted=False too)."""
    _check(input, "unique")
    a = input
    with no_grad():
        x = a.detach()
        if dim is None:
            flat = x.reshape(-1)
            values, order = flat.sort(stable=True)
            starts = _starts(values, values)
            first, gid, counts = _groups(starts)
            uniq = values[first]
            inverse = zeros(flat.shape[0], dtype=int64, device=a.device)
            if flat.shape[0]:
                inverse[order] = gid
            inverse = inverse.reshape(a.shape)
            node = Unique2
        else:
            d = _wrap_dim(dim, max(a.dim(), 1), "unique")
            moved = x.movedim(d, 0) if a.dim() else x.reshape(1)
            n = moved.shape[0]
            rows = moved.reshape(n, _numel(moved.shape[1:]))
            if rows.shape[1] == 0 or n == 0:
                order = arange(n, device=a.device)
            else:
                order = _lexsort(rows)
            srt = rows[order]
            starts = _starts(srt, srt)
            first, gid, counts = _groups(starts)
            uniq = moved[order[first]].movedim(0, d)
            inverse = zeros(n, dtype=int64, device=a.device)
            if n:
                inverse[order] = gid
            node = UniqueDim
    return _result(a, node, uniq, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    _check(input, "unique_consecutive")
    a = input
    with no_grad():
        x = a.detach()
        if dim is None:
            rows = x.reshape(-1)
            starts = _starts(rows, rows)
            first, gid, counts = _groups(starts)
            uniq, inverse = rows[first], gid.reshape(a.shape)
        else:
            d = _wrap_dim(dim, max(a.dim(), 1), "unique_consecutive")
            moved = x.movedim(d, 0) if a.dim() else x.reshape(1)
            n = moved.shape[0]
            rows = moved.reshape(n, _numel(moved.shape[1:]))
            starts = _starts(rows, rows)
            first, gid, counts = _groups(starts)
            uniq, inverse = moved[first].movedim(0, d), gid
    return _result(a, UniqueConsecutive, uniq, inverse, counts, return_inverse, return_counts)


def bincount(input, weights=None, minlength=0):
    """torch.bincount: counts (or summed weights) of each value of a 1-d non-negative integer
    tensor, as int64 (float32 weights give float32, other weights float64)."""
    _check(input, "bincount")
    kind = "f" if input._data.dtype.char == "H" else input._data.dtype.kind  # (H: bfloat16)
    if kind not in "iub":
        raise NotImplementedError(f"\"bincount_{input.device.type}\" not implemented for '{input.dtype._legacy[:-6]}'")
    if kind == "b":
        raise NotImplementedError(f"\"bincount_{input.device.type}\" not implemented for 'Bool'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.dim() != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    with no_grad():
        x = input.detach()
        n = x.shape[0]
        if n and x.min().item() < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        if weights is not None and (weights.dim() != 1 or weights.shape[0] != n):
            raise RuntimeError("weights should be 1-d and have the same length as input")
        size = max(int(x.max().item()) + 1 if n else 0, minlength)
        if weights is None:
            dtype, src = int64, ones(n, dtype=int64, device=x.device)
        else:
            dtype = weights.dtype if weights.dtype.is_floating_point and weights.dtype.itemsize == 4 else float64
            src = weights.detach().to(dtype)
        out = zeros(size, dtype=dtype, device=x.device)
        return out.scatter_add(0, x.long(), src) if n else out
