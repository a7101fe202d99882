"""More of torch's tensor-level API, composed from the ops minigrad has, with torch's names,
results, nodes and errors:

- aliases: multiply, subtract, negative, absolute, greater, greater_equal, less, less_equal,
  not_equal, swapaxes, concatenate, positive, ravel, sgn, and the in-place comparisons eq_ ... ge_;
- shapes: broadcast_to, broadcast_tensors, broadcast_shapes, atleast_1d/2d/3d, hstack, vstack,
  row_stack, dstack, column_stack, tensor_split, hsplit, vsplit, dsplit, unflatten, select;
- building: argwhere, block_diag, diag_embed, diagflat, combinations, tril_indices, triu_indices,
  unravel_index, vander, logspace;
- indexing: take, repeat_interleave, index_add, index_copy, index_fill (and their in-place forms);
- math: addcmul, addcdiv, inner, addr, chain_matmul, matrix_power, cov, corrcoef, histc, fmax,
  fmin, float_power, logit, signbit, is_nonzero, is_same_size, is_signed.

Each runs on every device through the ops it is written in. Those that are one node in torch
(index_add, block_diag, take, ...) are recorded as one node with torch's name.
"""
import builtins
import math
import warnings
from numbers import Number

from .._arg_errors import type_name
from ..autograd.function import Function
from ..dtypes import bool_, float64, get_default_dtype, int64
from ..tensor import Tensor, _wrap_dim
from .inplace import inplace
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies


def _tensor(x, op, arg="input", pos=1):
    if not isinstance(x, Tensor):
        where = f" (position {pos})" if pos else ""
        raise TypeError(f"{op}(): argument '{arg}'{where} must be Tensor, not {type_name(x)}")
    return x


def _int(x, op, arg):
    if x.__class__ is int:
        return x
    if x.__class__ is bool or not hasattr(x, "__index__"):
        raise TypeError(f"{op}(): argument '{arg}' must be int, not {type_name(x)}")
    return x.__index__()


def _legacy(t):
    return t.dtype._legacy[:-6]   # 'Long' from 'LongTensor'


def _like(t, data, dtype=None):
    from ..creation import tensor
    return tensor(data, dtype=dtype or t.dtype, device=t.device)


def _seq(tensors, op, arg="tensors"):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (tuple, list)):
        raise TypeError(f"{op}(): argument '{arg}' (position 1) must be tuple of Tensors, not "
                        f"{type_name(tensors)}")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {list(tensors).index(t)} in argument 0, but got "
                            f"{type_name(t)}")
    return list(tensors)


class _Composed(Function):
    """An op whose forward is written in Tensor ops (run under no_grad) and recorded as one node
    with torch's name."""


# ---- aliases ---------------------------------------------------------------------------------------

def multiply(input, other):
    from ..functional import mul
    return mul(input, other)


def subtract(input, other, *, alpha=1):
    from ..functional import sub
    return sub(input, other, alpha=alpha)


def negative(input):
    return _tensor(input, "negative").neg()


def absolute(input):
    return _tensor(input, "absolute").abs()


def positive(input):
    _tensor(input, "positive")
    if input.dtype.name == "bool":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def sgn(input):
    return _tensor(input, "sgn").sign()


def ravel(input):
    # torch's ravel: a view of the tensor made contiguous, a copy first when it is not (expanded too)
    return _tensor(input, "ravel").contiguous().view(-1)


def swapaxes(input, axis0, axis1):
    return _tensor(input, "swapaxes").transpose(axis0, axis1)


def _compare(method):
    def fn(input, other):
        return getattr(_tensor(input, method), method)(other)
    fn.__name__ = fn.__qualname__ = method
    return fn


_COMPARE_ALIASES = {"greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le", "not_equal": "ne"}


def _inplace_compare(method):
    """x.eq_(y) ...: the comparison written into x, as 1 and 0 in x's dtype (no gradient)."""
    def op(self, other):
        return inplace(self, lambda t: getattr(t, method)(other).to(t.dtype), other)
    op.__name__ = op.__qualname__ = method + "_"
    return op


def signbit(input):
    _tensor(input, "signbit")
    if input.dtype.is_floating_point:   # -0.0 and -nan have their sign bits set
        with _no_grad():
            return input.new_ones(()).expand(tuple(input.shape)).copysign(input) < 0
    return input < 0


def _no_grad():
    from ..autograd.grad_mode import no_grad
    return no_grad()


def is_nonzero(input):
    _tensor(input, "is_nonzero")
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input.item() != 0)


def is_same_size(input, other):
    return _tensor(input, "is_same_size").shape == _tensor(other, "is_same_size", "other", 2).shape


def is_signed(input):
    return _tensor(input, "is_signed").dtype.is_signed


# ---- shapes ----------------------------------------------------------------------------------------

def broadcast_to(input, size):
    return _tensor(input, "broadcast_to").expand(size)


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to, or torch's error naming the first that does not."""
    from ..tensor import Size
    out = []
    norm = []
    for s in shapes:
        if isinstance(s, int) and s.__class__ is not bool:
            s = (s,)
        if not isinstance(s, (tuple, list)):
            raise RuntimeError("Input shapes should be of type ints, a tuple of ints, or a list of ints, got ", s)
        norm.append(tuple(_int(d, "broadcast_shapes", "shape") for d in s))
    for i, s in enumerate(norm):
        if len(s) > len(out):
            out = [1] * (len(s) - len(out)) + out
        for k in range(1, len(s) + 1):
            d, o = s[-k], out[-k]
            if d < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if o == 1 or o == d:
                out[-k] = d
            elif d != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {d} at {-k}! Mismatching "
                                   f"argument at index {i} had {tuple(s)}; but expected shape should be "
                                   f"broadcastable to {out}")
    return Size(out)


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    ts = [_tensor(t, "broadcast_tensors", "tensors") for t in tensors]
    shape = _broadcast_shape(ts)
    return tuple(t.expand(shape) for t in ts)


def _broadcast_shape(ts):
    out = []
    for i, t in enumerate(ts):
        s = tuple(t.shape)
        if len(s) > len(out):
            out = [1] * (len(s) - len(out)) + out
        for k in range(1, len(s) + 1):
            d, o = s[-k], out[-k]
            if o == 1:
                out[-k] = d
            elif d != 1 and d != o:
                raise RuntimeError(f"The size of tensor a ({o}) must match the size of tensor b ({d}) at "
                                   f"non-singleton dimension {len(out) - k}")
    return tuple(out)


def _atleast(nd):
    name = f"atleast_{nd}d"

    def one(t):
        _tensor(t, name, "tensors" if False else "input")
        n = t.dim()
        if n >= nd:
            return t
        if nd == 1:
            return t.reshape(1)
        if nd == 2:
            return t.reshape(1, 1) if n == 0 else t.unsqueeze(0)
        return (t.reshape(1, 1, 1) if n == 0 else t.unsqueeze(0).unsqueeze(-1) if n == 1 else t.unsqueeze(-1))

    def fn(*tensors):
        if len(tensors) == 1:
            (x,) = tensors
            if isinstance(x, (tuple, list)):
                return tuple(one(t) for t in x)
            return one(x)
        return tuple(one(t) for t in tensors)
    fn.__name__ = fn.__qualname__ = name
    return fn


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)


def _stack_family(name, prep, dim):
    def fn(tensors):
        from ..functional import cat
        ts = _seq(tensors, name)
        if not ts:
            raise RuntimeError(f"{name} expects a non-empty TensorList")
        ts = [prep(t) for t in ts]
        d = dim(ts) if callable(dim) else dim
        return cat(ts, d)
    fn.__name__ = fn.__qualname__ = name
    return fn


def _column(t):
    return t.reshape(t.numel(), 1) if t.dim() <= 1 else t


hstack = _stack_family("hstack", atleast_1d, lambda ts: 0 if ts[0].dim() == 1 else 1)
vstack = _stack_family("vstack", atleast_2d, 0)
row_stack = _stack_family("row_stack", atleast_2d, 0)
dstack = _stack_family("dstack", atleast_3d, 2)
column_stack = _stack_family("column_stack", _column, 1)


def tensor_split(input, indices_or_sections, dim=0):
    """Pieces of input along dim: `sections` nearly equal ones (the first input.size(dim) %
    sections one longer), or the pieces between the given indices (clamped to the size)."""
    _tensor(input, "tensor_split")
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _wrap_dim(dim, input.dim())
    size = input.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios.device.type != "cpu":
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on cpu, but it's on "
                               f"{ios.device}")
        if ios.dtype.name != "int64":
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{_legacy(ios)}")
        if ios.dim() > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {ios.dim()} dims")
        ios = ios.item() if ios.dim() == 0 else ios.tolist()
    if isinstance(ios, (tuple, list)):
        bounds = [0] + [builtins.min(builtins.max(_int(i, "tensor_split", "indices"), 0) if i >= 0
                                     else builtins.max(size + i, 0), size) for i in ios] + [size]
    else:
        n = _int(ios, "tensor_split", "sections")
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        bounds = [0]
        for k in range(n):
            bounds.append(bounds[-1] + q + (1 if k < r else 0))
    return tuple(input.narrow(d, a, builtins.max(b - a, 0)) if b >= a else input.narrow(d, a, 0)
                 for a, b in zip(bounds[:-1], bounds[1:]))


def _dir_split(name, dim, min_dims):
    def fn(input, indices_or_sections):
        _tensor(input, name)
        if input.dim() < min_dims:
            raise RuntimeError(f"minigrad.{name} requires a tensor with at least {min_dims} dimension, but got a "
                               f"tensor with {input.dim()} dimensions!")
        d = 0 if name == "hsplit" and input.dim() == 1 else dim
        if isinstance(indices_or_sections, (tuple, list)):
            return tensor_split(input, indices_or_sections, d)
        n = _int(indices_or_sections, name, "sections")
        size = input.shape[d]
        if n == 0 or size % n:
            raise RuntimeError(f"minigrad.{name} attempted to split along dimension {d}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {n}!")
        return tensor_split(input, n, d)
    fn.__name__ = fn.__qualname__ = name
    return fn


hsplit, vsplit, dsplit = _dir_split("hsplit", 1, 1), _dir_split("vsplit", 0, 2), _dir_split("dsplit", 2, 3)


def unflatten(input, dim, sizes):
    _tensor(input, "unflatten")
    d = _wrap_dim(dim, input.dim())
    sizes = [_int(s, "unflatten", "sizes") for s in sizes]
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = input.shape[d]
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes:
        if known == 0 or n % known:
            raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} "
                               f"({n}) in the input tensor")
        sizes[sizes.index(-1)] = n // known
    elif known != n:
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} ({n}) "
                           f"in the input tensor")
    shape = tuple(input.shape)
    return input.reshape(shape[:d] + tuple(sizes) + shape[d + 1:])


def select(input, dim, index):
    _tensor(input, "select")
    if input.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.dim())
    i = _int(index, "select", "index")
    n = input.shape[d]
    if not -n <= i < n:
        raise IndexError(f"select(): index {i} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {d}")
    return input[(slice(None),) * d + (i,)]


# ---- building --------------------------------------------------------------------------------------

def argwhere(input):
    return _tensor(input, "argwhere").nonzero()


class BlockDiag(_Composed):
    _node_name = "BlockDiagBackward0"

    @staticmethod
    def forward(ctx, *ts):
        from ..creation import zeros
        mats = [t.reshape(1, -1) if t.dim() < 2 else t for t in ts]
        dtype = mats[0].dtype
        for m in mats[1:]:
            dtype = _promote(dtype, m.dtype)
        rows = builtins.sum(m.shape[0] for m in mats)
        cols = builtins.sum(m.shape[1] for m in mats)
        out = zeros(rows, cols, dtype=dtype, device=ts[0].device)
        ctx.spans, r, c = [], 0, 0
        for t, m in zip(ts, mats):
            out[r:r + m.shape[0], c:c + m.shape[1]] = m
            ctx.spans.append((r, c, m.shape, tuple(t.shape), t.dtype))
            r, c = r + m.shape[0], c + m.shape[1]
        return out

    @staticmethod
    def backward(ctx, g):
        return tuple(g[r:r + s[0], c:c + s[1]].reshape(shape).to(dt)
                     for r, c, s, shape, dt in ctx.spans)


def _promote(a, b):
    from ..dtypes import promote_types
    return promote_types(a, b)


def block_diag(*tensors):
    ts = [_tensor(t, "block_diag", "tensors") for t in tensors]
    for i, t in enumerate(ts):
        if t.dim() > 2:
            raise RuntimeError(f"minigrad.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
    if not ts:
        from ..creation import empty
        return empty(1, 0)
    for i, t in enumerate(ts):
        if t.device != ts[0].device:
            raise RuntimeError(f"minigrad.block_diag: input tensors must all be on the same device. Input 0 is on "
                               f"device {ts[0].device} and input {i} is on device {t.device}")
    return BlockDiag.apply(*ts)


class DiagEmbed(_Composed):
    _node_name = "DiagEmbedBackward0"

    @staticmethod
    def forward(ctx, a, offset, dim1, dim2):
        from ..creation import zeros
        n = a.shape[-1] + abs(offset)
        shape = list(a.shape[:-1])
        lo, hi = sorted((dim1, dim2))
        shape.insert(lo, n)
        shape.insert(hi, n)
        out = zeros(tuple(shape), dtype=a.dtype, device=a.device)
        out.diagonal(offset, dim1, dim2).copy_(a)
        ctx.args = (offset, dim1, dim2)
        return out

    @staticmethod
    def backward(ctx, g):
        return g.diagonal(*ctx.args).clone(), None, None, None


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    _tensor(input, "diag_embed")
    offset = _int(offset, "diag_embed", "offset")
    nd = input.dim() + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return DiagEmbed.apply(input, offset, d1, d2)


def diagflat(input, offset=0):
    _tensor(input, "diagflat")
    return diag_embed(input.reshape(-1), _int(offset, "diagflat", "offset"), 0, 1)


def combinations(input, r=2, with_replacement=False):
    """The r-length combinations of a 1-d input's elements, as rows (itertools' order)."""
    import itertools
    _tensor(input, "combinations")
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    r = _int(r, "combinations", "r")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _like(input, [])
    n = input.shape[0]
    make = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(make(range(n), r))
    if not rows:
        from ..creation import empty
        return empty(0, r, dtype=input.dtype, device=input.device)
    idx = _like(input, rows, int64)
    from ..functional import stack
    return stack([input[idx[:, k]] for k in range(r)], 1)


def _tri_indices(name, upper):
    def fn(row, col, offset=0, *, dtype=int64, device=None, layout=None):
        row, col, offset = (_int(v, name, a) for v, a in ((row, "row"), (col, "col"), (offset, "offset")))
        if row < 0:
            raise RuntimeError(f"row must be non-negative, got{row}")
        if col < 0:
            raise RuntimeError(f"col must be non-negative, got{col}")
        if dtype not in (int64,) and dtype.name != "int32":
            raise NotImplementedError(f"\"{name}\" not implemented for '{dtype._legacy[:-6]}'")
        rs, cs = [], []
        for i in range(row):
            for j in range(col):
                if (j - i >= offset) if upper else (j - i <= offset):
                    rs.append(i)
                    cs.append(j)
        from ..creation import tensor
        if not rs:
            from ..creation import empty
            return empty(2, 0, dtype=dtype, device=device)
        return tensor([rs, cs], dtype=dtype, device=device)
    fn.__name__ = fn.__qualname__ = name
    return fn


tril_indices, triu_indices = _tri_indices("tril_indices", False), _tri_indices("triu_indices", True)


def unravel_index(indices, shape):
    """The coordinates, one tensor per dim of shape, of each flat index (negative ones from the end)."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be integer dtype, but got {type_name(indices)}")
    if indices.dtype.is_floating_point or indices.dtype.name == "bool":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, int) and shape.__class__ is not bool:
        shape = (shape,)
    shape = tuple(_int(s, "unravel_index", "shape") for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(shape))
    flat = indices.to(int64)
    if 0 in shape and flat.numel():
        raise RuntimeError("ZeroDivisionError")
    out = []
    for s in reversed(shape):   # floor division and modulo, as torch: -1 is the last position
        out.append(flat % s if s else flat)
        flat = flat // s if s else flat
    return tuple(reversed(out))


def vander(x, N=None, increasing=False):
    _tensor(x, "vander", "x")
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else _int(N, "vander", "N")
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    base = x.to(_vander_dtype(x))
    if n == 0:
        from ..creation import empty
        return empty(x.shape[0], 0, dtype=base.dtype, device=x.device)
    from ..functional import cat
    cols = base.unsqueeze(1).expand(x.shape[0], n - 1) if n > 1 else base.unsqueeze(1)[:, :0]
    out = cat([base.new_ones((x.shape[0], 1)), cols], 1).cumprod(1)
    return out if increasing else out.flip(1)


def _vander_dtype(x):
    return int64 if x.dtype.name in ("bool", "int32", "int64") else x.dtype


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, layout=None,
             out=None, pin_memory=False):
    from ..creation import linspace
    exps = linspace(start, end, steps, dtype=float64, device=device)
    dt = dtype or get_default_dtype()
    vals = exps.new_full((), float(base)).pow(exps) if steps else exps
    if not dt.is_floating_point:
        vals = vals.trunc()
    out = vals.to(dt)
    return out.requires_grad_() if requires_grad else out


# ---- indexing --------------------------------------------------------------------------------------

class Take(_Composed):
    _node_name = "TakeBackward0"

    @staticmethod
    def forward(ctx, a, index):
        n = math.prod(a.shape)
        index = index + (index < 0).to(int64) * n
        ctx.shape, ctx.index = tuple(a.shape), index.reshape(-1)
        return a.reshape(-1)[index]

    @staticmethod
    def backward(ctx, g):
        from ..creation import zeros
        flat = zeros(math.prod(ctx.shape), dtype=g.dtype, device=g.device)
        return index_add(flat, 0, ctx.index, g.reshape(-1)).reshape(ctx.shape), None


def take(input, index):
    _tensor(input, "take")
    _tensor(index, "take", "index", 2)
    if index.dtype.name != "int64":
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_legacy(index)}")
    n = input.numel()
    if index.numel():
        lo, hi = index.min().item(), index.max().item()
        for bad in (lo, hi):
            if not -n <= bad < n:
                raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return Take.apply(input, index)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (each slice along dim) repeated `repeats` times; with a tensor of repeats,
    element i repeated repeats[i] times. repeat_interleave(repeats) alone: the indices
    0, 1, ... each repeated."""
    from ..creation import arange
    if repeats is None:   # torch.repeat_interleave(repeats)
        r = _tensor(input, "repeat_interleave")
        if r.dtype.name not in ("int64", "int32"):
            raise NotImplementedError(f"\"repeat_interleave_{r.device.type}\" not implemented for '{_legacy(r)}'")
        return repeat_interleave(arange(r.numel(), device=r.device), r, 0, output_size=output_size)
    _tensor(input, "repeat_interleave")
    x = input
    if dim is None:
        x, d = input.reshape(-1), 0
    else:
        d = _wrap_dim(dim, input.dim())
    n = x.shape[d] if x.dim() else 1
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats.dtype.name not in ("int64", "int32"):
            raise RuntimeError("repeats has to be Long or Int tensor")
        reps = repeats.reshape(-1).tolist()
        if len(reps) == 1:
            reps = reps * n
        elif len(reps) != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{len(reps)} and input.size({d}) = {n}")
        if any(r < 0 for r in reps):
            raise RuntimeError("repeats can not be negative")
    else:
        r = _int(repeats, "repeat_interleave", "repeats")
        if r < 0:
            raise RuntimeError("Repeats must be non-negative")
        reps = [r] * n
    total = builtins.sum(reps)
    if output_size is not None and output_size != total:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {total} but got {output_size}")
    if not isinstance(repeats, Tensor) and x.dim():
        shape = tuple(x.shape)
        grown = x.unsqueeze(d + 1).expand(shape[:d + 1] + (reps[0] if reps else repeats,) + shape[d + 1:])
        return grown.contiguous().view(shape[:d] + (total,) + shape[d + 1:])  # (torch's nodes: a clone, a view)
    idx = _like(x, [i for i, r in enumerate(reps) for _ in range(r)], int64) if total else \
        arange(0, device=x.device)
    if x.dim() == 0:
        x = x.reshape(1)
    return x.index_select(d, idx)


def _index_arg(self, dim, index, op, pos_dtype="long"):
    d = _wrap_dim(dim, self.dim())
    _tensor(index, op, "index", 3)
    return d


def _check_source(self, d, index, source, op, what):
    if index.dim() > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
                         f"{_legacy(index)} and size: {list(index.shape)}")
    k = index.numel()
    if self.dim() and source.dim() and source.dim() != self.dim():
        raise RuntimeError(f"{op}(): Indexing dim {d} is out of bounds of the source tensor with dim "
                           f"{source.dim()}")
    src_n = source.shape[d] if source.dim() else 1
    if k != src_n:
        if op == "index_copy_":
            raise IndexError(f"index_copy_(): Number of indices ({k}) should be equal to source.size(dim) "
                             f"({src_n})")
        raise RuntimeError(f"{op}(): Number of indices ({k}) should be equal to source.size(dim): ({src_n}), "
                           f"for dim: {d}")
    if self.dim() and source.dim():
        rest_s = [s for i, s in enumerate(self.shape) if i != d]
        rest_o = [s for i, s in enumerate(source.shape) if i != d]
        if rest_s != rest_o:
            raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified "
                               f"dimension. Got self.shape = {list(self.shape)} source.shape = "
                               f"{list(source.shape)}")
    if self.dtype != source.dtype:
        if op == "index_copy_":
            raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                               f"{_legacy(self)} and (source) {_legacy(source)}")
        raise RuntimeError(f"{op}(): self ({_legacy(self)}) and source ({_legacy(source)}) must have the same "
                           f"scalar type")
    if self.device != source.device or self.device != index.device:
        other = source.device if self.device != source.device else index.device
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{self.device} and {other}!")


def _bounds(index, size, op, error=RuntimeError, negative_ok=False):
    if index.numel():
        lo, hi = index.min().item(), index.max().item()
        for bad in ((lo,) if lo < (-size if negative_ok else 0) else ()) + ((hi,) if hi >= size else ()):
            prefix = f"{op}(): " if op == "index_copy_" else ""
            raise error(f"{prefix}index {bad} is out of bounds for dimension {{d}} with size {size}")


def _flat_positions(shape, d, index):
    """For x of `shape`, the dim-d selection x.index_select(d, index) as a (shape', d) pair:
    the index expanded to the selection's shape, for scatter/gather along d."""
    sel = list(shape)
    sel[d] = index.numel()
    view = [1] * len(shape)
    view[d] = index.numel()
    return index.reshape(view).expand(sel)


class IndexAdd(_Composed):
    _node_name = "IndexAddBackward0"

    @staticmethod
    def forward(ctx, a, d, index, source, alpha):
        ctx.d, ctx.index, ctx.alpha, ctx.src_shape = d, index, alpha, tuple(source.shape)
        if a.dim() == 0:
            return a + source.sum() * alpha if index.numel() else a.clone()
        if not a.numel():
            return a.clone()
        src = source.reshape(_full_shape(a, d, index)) if source.dim() == 0 else source
        if alpha != 1:  # (a bool source stays bool: alpha, as a bool, keeps it or clears it)
            src = (src & bool(alpha)) if src.dtype is bool_ else src * alpha
        return a.scatter_add(d, _flat_positions(a.shape, d, index), src)

    @staticmethod
    def backward(ctx, g):
        if not ctx.needs_input_grad[3]:
            return g, None, None, None, None
        if g.dim() and not g.shape[ctx.d] and ctx.index.numel():  # an empty input's gradient
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        gs = g.index_select(ctx.d, ctx.index) if g.dim() else g.expand(ctx.index.numel())
        if ctx.alpha != 1:
            gs = gs * ctx.alpha
        return g, None, None, gs.reshape(ctx.src_shape), None


def _full_shape(a, d, index):
    s = list(a.shape)
    s[d] = index.numel()
    return s


class IndexCopy(_Composed):
    _node_name = "IndexCopyBackward0"

    @staticmethod
    def forward(ctx, a, d, index, source):
        ctx.d, ctx.index, ctx.src_shape = d, index, tuple(source.shape)
        if a.dim() == 0:
            return source.reshape(()).clone() if index.numel() else a.clone()
        return a.scatter(d, _flat_positions(a.shape, d, index), source.reshape(_full_shape(a, d, index)))

    @staticmethod
    def backward(ctx, g):
        if g.dim() == 0:
            return (g * 0 if ctx.index.numel() else g), None, None, g.reshape(ctx.src_shape), None
        return (g.index_fill(ctx.d, ctx.index, 0), None, None,
                g.index_select(ctx.d, ctx.index).reshape(ctx.src_shape))


class IndexFill(_Composed):
    _node_name = "IndexFillBackward0"

    @staticmethod
    def forward(ctx, a, d, index, value):
        ctx.d, ctx.index = d, index
        if a.dim() == 0:
            return a.new_full((), value) if index.numel() else a.clone()
        pos = _flat_positions(a.shape, d, index)
        return a.scatter(d, pos, a.new_full(tuple(pos.shape), value))

    @staticmethod
    def backward(ctx, g):
        return IndexFill.apply(g, ctx.d, ctx.index, 0), None, None, None


class IndexFillTensor(_Composed):
    _node_name = "IndexFillBackward1"

    @staticmethod
    def forward(ctx, a, d, index, value):
        ctx.d, ctx.index = d, index
        return IndexFill.forward(ctx, a, d, index, value.item())

    @staticmethod
    def backward(ctx, g):
        picked = g.index_select(ctx.d, ctx.index) if g.dim() else g * (1 if ctx.index.numel() else 0)
        return IndexFill.apply(g, ctx.d, ctx.index, 0), None, None, picked.sum()


def _check_index(op, index, dtypes=("int64", "int32")):
    if index.dtype.name not in dtypes:
        if op == "index_fill_":
            raise IndexError("index_fill_(): Expected dtype int64 for index.")
        if op == "index_copy_":
            raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_legacy(index)}")
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index but got: {_legacy(index)}")


def _checked_index(self, d, index, op, error):
    size = self.shape[d] if self.dim() else 1
    try:
        _bounds(index, size, op, error, negative_ok=op == "index_fill_")
    except (IndexError, RuntimeError) as e:
        raise type(e)(str(e).replace("{d}", str(d))) from None
    if op == "index_fill_" and index.numel() and index.min().item() < 0:
        index = index + (index < 0).to(index.dtype) * size   # index_fill takes negative indices
    return index.to(int64)


def index_add(input, dim, index, source, *, alpha=1):
    _tensor(input, "index_add")
    d = _index_arg(input, dim, index, "index_add")
    _tensor(source, "index_add", "source", 4)
    _check_index("index_add_", index)
    _check_source(input, d, index, source, "index_add_", "add")
    if not input.dtype.is_floating_point and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if input.dim() > 1 and not input.numel():  # torch adds nothing and checks no index then
        return IndexAdd.apply(input, d, index.to(int64), source, alpha)
    try:
        index = _checked_index(input, d, index, "index_add_", RuntimeError)
    except RuntimeError:
        if input.dim() > 1:
            raise
        raise IndexError("index out of range in self") from None  # torch's check for a vector or 0-d input
    return IndexAdd.apply(input, d, index, source, alpha)


def index_copy(input, dim, index, source):
    if _AUTOCAST_ON[0] and (r := _autocast("index_copy", index_copy, input, dim, index, source)) is not None:
        return r
    _tensor(input, "index_copy")
    d = _index_arg(input, dim, index, "index_copy")
    _tensor(source, "index_copy", "source", 4)
    _check_index("index_copy_", index, ("int64",))
    _check_source(input, d, index, source, "index_copy_", "copy")
    return IndexCopy.apply(input, d, _checked_index(input, d, index, "index_copy_", IndexError), source)


def index_fill(input, dim, index, value):
    _tensor(input, "index_fill")
    d = _index_arg(input, dim, index, "index_fill")
    _check_index("index_fill_", index, ("int64",))
    if index.dim() > 1:
        raise IndexError("index_fill_(): Index is supposed to be a vector")
    index = _checked_index(input, d, index, "index_fill_", IndexError)
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.dim()} dimension(s).")
        return IndexFillTensor.apply(input, d, index, value)
    if not isinstance(value, Number):
        raise TypeError(f"index_fill(): argument 'value' (position 3) must be Number, not {type_name(value)}")
    return IndexFill.apply(input, d, index, value)


# ---- math ------------------------------------------------------------------------------------------

_ADDCDIV_INT = ("Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
                "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented "
                "as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the "
                "latter implementation: (input + value * tensor1 / tensor2), for all dtypes.")


class _Addc(_Composed):
    @staticmethod
    def forward(ctx, a, t1, t2, value, div):
        ctx.value, ctx.div = value, div
        ctx.shapes = (tuple(a.shape), tuple(t1.shape), tuple(t2.shape))
        ctx.dtypes = (a.dtype, t1.dtype, t2.dtype)
        ctx.save_for_backward(t1, t2)
        term = t1 / t2 if div else t1 * t2
        return a + term * value if value != 1 else a + term

    @staticmethod
    def backward(ctx, g):
        from .broadcast import sum_to
        t1, t2 = ctx.saved_tensors
        gv = g * ctx.value if ctx.value != 1 else g
        if ctx.div:
            g1, g2 = gv / t2, -gv * t1 / (t2 * t2)
        else:
            g1, g2 = gv * t2, gv * t1
        out = [sum_to(x, s).to(dt) if x.dtype != dt and dt.is_floating_point else sum_to(x, s)
               for x, s, dt in zip((g, g1, g2), ctx.shapes, ctx.dtypes)]
        return out[0], out[1], out[2], None, None


class Addcmul(_Addc):
    _node_name = "AddcmulBackward0"


class Addcdiv(_Addc):
    _node_name = "AddcdivBackward0"


def _addc(op, cls, div):
    def fn(input, tensor1, tensor2, *, value=1):
        if _AUTOCAST_ON[0] and (r := _autocast(op, fn, input, tensor1, tensor2, value=value)) is not None:
            return r
        _tensor(input, op)
        _tensor(tensor1, op, "tensor1", 2)
        _tensor(tensor2, op, "tensor2", 3)
        if div and not tensor1.dtype.is_floating_point and not tensor2.dtype.is_floating_point:
            raise RuntimeError(_ADDCDIV_INT.replace("torch.", "minigrad."))
        from ..dtypes import promote_types
        out = promote_types(promote_types(input.dtype, tensor1.dtype), tensor2.dtype)
        if not out.is_floating_point and isinstance(value, float):
            value = int(value)   # torch casts the value to the integral result type
        return cls.apply(input, tensor1, tensor2, value, div)
    fn.__name__ = fn.__qualname__ = op
    return fn


addcmul, addcdiv = _addc("addcmul", Addcmul, False), _addc("addcdiv", Addcdiv, True)


def inner(input, other):
    _tensor(input, "inner")
    _tensor(other, "inner", "other", 2)
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    from .math_more import FUNCTIONS
    return FUNCTIONS["tensordot"](input, other, ([-1], [-1]))


class Addr(_Composed):
    _node_name = "AddrBackward0"

    @staticmethod
    def forward(ctx, a, v1, v2, beta, alpha):
        ctx.beta, ctx.alpha, ctx.shape = beta, alpha, tuple(a.shape)
        ctx.save_for_backward(v1, v2)
        prod = v1.unsqueeze(1) * v2.unsqueeze(0)
        prod = prod * alpha if alpha != 1 else prod
        if beta == 0:   # input is not read: its NaNs do not reach the result
            return prod.to(_promote(a.dtype, prod.dtype))
        return a * beta + prod if beta != 1 else a + prod

    @staticmethod
    def backward(ctx, g):
        from .broadcast import sum_to
        v1, v2 = ctx.saved_tensors
        ga = sum_to(g * ctx.beta if ctx.beta != 1 else g, ctx.shape)
        ga_ = g * ctx.alpha if ctx.alpha != 1 else g
        return ga, ga_.mv(v2), ga_.t().mv(v1), None, None


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    if _AUTOCAST_ON[0] and (r := _autocast("addr", addr, input, vec1, vec2, beta=beta, alpha=alpha)) is not None:
        return r
    _tensor(input, "addr")
    _tensor(vec1, "addr", "vec1", 2)
    _tensor(vec2, "addr", "vec2", 3)
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")
    from ..dtypes import promote_types
    out = promote_types(promote_types(input.dtype, vec1.dtype), vec2.dtype)
    if not out.is_floating_point:
        for name, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
    shape = (vec1.shape[0], vec2.shape[0])
    try:
        _bshape_check(tuple(input.shape), shape)
    except RuntimeError:
        raise RuntimeError(f"The expanded size of the tensor ({shape[-1]}) must match the existing size "
                           f"({input.shape[-1]}) at non-singleton dimension 1.  Target sizes: {list(shape)}.  "
                           f"Tensor sizes: {list(input.shape)}") from None
    return Addr.apply(input, vec1, vec2, beta, alpha)


def _bshape_check(a, target):
    if len(a) > len(target):
        raise RuntimeError
    for x, y in zip(reversed(a), reversed(target)):
        if x != y and x != 1:
            raise RuntimeError


def multi_dot(tensors):
    """linalg.multi_dot: the product of the matrices in order (a 1-d first or last is a row or a
    column vector, dropped from the result), multiplied left to right."""
    ts = _seq(tensors, "linalg_multi_dot")
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    for i, t in enumerate(ts):
        if t.dim() != 2 and not (t.dim() == 1 and i in (0, len(ts) - 1)):
            which = "first" if i == 0 else "last" if i == len(ts) - 1 else None
            if which:
                raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {t.dim()}D")
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    shape = ([ts[0].shape[0]] if ts[0].dim() == 2 else []) + ([ts[-1].shape[1]] if ts[-1].dim() == 2 else [])
    mats = [ts[0].unsqueeze(0) if ts[0].dim() == 1 else ts[0]] + ts[1:-1] + \
        [ts[-1].unsqueeze(1) if ts[-1].dim() == 1 else ts[-1]]
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(ts[i].shape)} and "
                               f"{list(ts[i + 1].shape)} cannot be multiplied")
    return _chain(mats, _order(mats), 0, len(mats) - 1).reshape(shape)


def _order(mats):
    """The split points of the cheapest parenthesization (the textbook matrix-chain program)."""
    dims = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    n = len(mats)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                # ties: torch multiplies three matrices as (AB)C, longer chains split earliest
                if cost[i][j] is None or c < cost[i][j] or (n == 3 and c == cost[i][j]):
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return _chain(mats, split, i, k).mm(_chain(mats, split, k + 1, j))


_WARNED = set()


def _warn_once(key, message):
    """torch's TORCH_WARN_ONCE: the warning on the first call in the process only."""
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(message, UserWarning, stacklevel=3)


def chain_matmul(*matrices):
    if _AUTOCAST_ON[0] and (r := _autocast("chain_matmul", chain_matmul, *matrices)) is not None:
        return r
    _warn_once("chain_matmul", "minigrad.chain_matmul is deprecated and will be removed in a future PyTorch "
                               "release. Use minigrad.linalg.multi_dot instead, which accepts a list of two or more "
                               "tensors rather than multiple parameters.")
    if len(matrices) == 1 and isinstance(matrices[0], (tuple, list)):
        matrices = tuple(matrices[0])
    for t in matrices:
        _tensor(t, "chain_matmul", "matrices")
        if t.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {t.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices)


def matrix_power(input, n):
    _tensor(input, "matrix_power")
    n = _int(n, "matrix_power", "n")
    if input.dim() < 2 or input.shape[-1] != input.shape[-2]:
        if input.dim() < 2:
            raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{input.shape[-2]} by {input.shape[-1]} matrices")
    if n == 0:   # as torch: a copy of input overwritten by the identity, so it stays in the graph
        from ..creation import eye
        return input.clone().copy_(eye(input.shape[-1], dtype=input.dtype, device=input.device).expand(
            tuple(input.shape)))
    a = input
    if n < 0:
        from .. import linalg
        if not hasattr(linalg, "inv"):
            raise NotImplementedError("matrix_power with a negative n needs linalg.inv")
        a, n = linalg.inv(input), -n
    if n == 1:
        return a.clone()
    result, base = None, a
    while n:   # binary powering: log2(n) squarings
        if n & 1:
            result = base if result is None else result.matmul(base)
        n >>= 1
        if n:
            base = base.matmul(base)
    return result


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance of the variables in input's rows (each column an observation), as torch.cov:
    frequency and analytic weights, and the correction (1: Bessel's)."""
    _tensor(input, "cov")
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    n = x.shape[1]
    w = None
    if fweights is not None:
        _tensor(fweights, "cov", "fweights", 0)
        if fweights.dim() > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but got fweights with "
                               f"{fweights.dim()} dimensions")
        if fweights.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                               f"{_legacy(fweights)} dtype")
        if fweights.numel() != n:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are observations in the "
                               f"input but got {fweights.numel()} != {n}")
        if fweights.numel() and fweights.min().item() < 0:
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        _tensor(aweights, "cov", "aweights", 0)
        if aweights.dim() > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but got aweights with "
                               f"{aweights.dim()} dimensions")
        if not aweights.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{_legacy(aweights)} dtype")
        if aweights.numel() != n:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are observations in the "
                               f"input but got {aweights.numel()} != {n}")
        if aweights.numel() and aweights.min().item() < 0:
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    dt = x.dtype if x.dtype.is_floating_point else get_default_dtype()
    if aweights is not None:
        dt = _promote(dt, aweights.dtype)
    x = x.to(dt)
    if w is None:
        w_sum = x.new_full((), float(n))
        avg = x.mean(1)
    else:
        w = w.to(x.dtype) if not w.dtype.is_floating_point else w
        w_sum = w.sum()
        if w_sum.item() == 0:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        avg = (x * w).sum(1) / w_sum
    if w is None:
        norm = w_sum - correction
    elif correction == 0:
        norm = w_sum
    elif aweights is None:
        norm = w_sum - correction
    else:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    if norm.item() <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number "
                      "of observations.", UserWarning, stacklevel=2)
        norm = norm.clamp(min=0)
    xc = x - avg.unsqueeze(1)
    xw = xc if w is None else xc * w
    return (xw.matmul(xc.t()) / norm).squeeze()


def corrcoef(input):
    """Pearson's correlation coefficients of input's rows, clipped to [-1, 1]."""
    _tensor(input, "corrcoef")
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    std = d.sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    return c.clamp(-1, 1)


def histc(input, bins=100, min=0, max=0):
    """A histogram of input's values in `bins` equal bins over [min, max] (the data's range when both
    are 0): elements outside it are left out, max itself goes in the last bin."""
    _tensor(input, "histc")
    bins = _int(bins, "histc", "bins")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogram_{input.device.type}\" not implemented for '{_legacy(input)}'")
    if bins <= 0:
        raise RuntimeError(f"minigrad.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    flat = input.detach().reshape(-1)
    if lo == hi and flat.numel():
        lo, hi = flat.min().item(), flat.max().item()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("minigrad.histc: max must be larger than min")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        name = lambda v: "-nan" if v != v else ("inf" if v > 0 else "-inf") if math.isinf(v) else f"{v:g}"
        raise RuntimeError(f"minigrad.histc: range of [{name(lo)}, {name(hi)}] is not finite")
    from ..creation import zeros
    from .unique import bincount
    with _no_grad():
        keep = flat[(flat >= lo) & (flat <= hi)]
        if not keep.numel():
            return zeros(bins, dtype=input.dtype, device=input.device)
        pos = ((keep - lo) * bins / (hi - lo)).floor().to(int64).clamp(0, bins - 1)
        return bincount(pos, minlength=bins).to(input.dtype)


def _fminmax(name, pick_max):
    class Node(_Composed):
        _node_name = f"F{name[1:]}Backward0"

        @staticmethod
        def forward(ctx, a, b):
            ctx.shapes = (tuple(a.shape), tuple(b.shape))
            ctx.dtypes = (a.dtype, b.dtype)
            take_a = (a >= b) if pick_max else (a <= b)
            take_a = take_a | b.isnan()
            ctx.take_a = take_a
            return _where(take_a, a, b)

        @staticmethod
        def backward(ctx, g):
            from .broadcast import sum_to
            zero = g.new_zeros(())
            ga = sum_to(_where(ctx.take_a, g, zero), ctx.shapes[0])
            gb = sum_to(_where(ctx.take_a, zero, g), ctx.shapes[1])
            return ga, gb
    Node.__name__ = name.capitalize()

    def fn(input, other):
        _tensor(input, name)
        _tensor(other, name, "other", 2)
        return Node.apply(input, other)
    fn.__name__ = fn.__qualname__ = name
    return fn


def _where(cond, a, b):
    from ..functional import where
    return where(cond, a, b)


fmax, fmin = _fminmax("fmax", True), _fminmax("fmin", False)


def float_power(input, exponent):
    """input ** exponent computed in float64."""
    if isinstance(input, Tensor):
        return input.to(float64).pow(exponent.to(float64) if isinstance(exponent, Tensor) else exponent)
    if isinstance(exponent, Tensor):
        from ..functional import pow
        return pow(input, exponent.to(float64))
    raise TypeError(f"float_power(): argument 'input' (position 1) must be Tensor, not {type_name(input)}")


def float_power_(self, exponent):
    if self.dtype != float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_legacy(self)} but the operation's result "
                           f"requires dtype Double")
    return inplace(self, lambda t: float_power(t, exponent), exponent)


class Logit(_Composed):
    _node_name = "LogitBackward0"

    @staticmethod
    def forward(ctx, a, eps):
        x = a.clamp(eps, 1 - eps) if eps is not None else a
        ctx.eps = eps
        ctx.save_for_backward(a)
        return (x / (1 - x)).log()

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        grad = g / (a * (1 - a))
        if ctx.eps is not None:
            inside = (a >= ctx.eps) & (a <= 1 - ctx.eps)
            grad = _where(inside, grad, g.new_zeros(()))
        else:  # outside [0, 1] the logit is NaN, and so is torch's gradient
            grad = _where((a < 0) | (a > 1), g.new_full((), float("nan")), grad)
        return grad, None


def logit(input, eps=None):
    _tensor(input, "logit")
    x = input if input.dtype.is_floating_point else input.to(get_default_dtype())
    return Logit.apply(x, None if eps is None else float(eps))


# ---- index_put, put, masked_scatter, fill_diagonal_ ---------------------------------------------------

def _index_tuple(indices, op):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{op}(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type_name(indices)}")
    return tuple(indices)


def index_put(input, indices, values, accumulate=False):
    """input with input[indices] = values (or += values, repeated indices adding up when
    accumulate), out of place."""
    if _AUTOCAST_ON[0] and (r := _autocast("index_put", index_put, input, indices, values, accumulate)) is not None:
        return r
    _tensor(input, "index_put")
    idx = _index_tuple(indices, "index_put")
    _tensor(values, "index_put", "values", 3)
    if not accumulate:
        out = input.clone()
        out[idx] = values
        return out
    return IndexPutAccumulate.apply(input, idx, values)


class IndexPutAccumulate(_Composed):
    """index_put(..., accumulate=True): one node, as torch's; the input's gradient passes whole,
    the values' is the gradient at the positions they were added to."""
    _node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, input, idx, values):
        ctx.idx, ctx.vshape = idx, tuple(values.shape)
        return _index_put_accumulate(input, idx, values)

    @staticmethod
    def backward(ctx, g):
        from .broadcast import sum_to
        return g, None, sum_to(g[ctx.idx], ctx.vshape)


def _index_put_accumulate(input, idx, values):
    # accumulate: the rows the integer (or mask) indices name, as flat positions over the leading
    # dims, and index_add of the values broadcast to the selection
    idx = tuple(i.nonzero().unbind(1) if i.dtype.name == "bool" else (i,) for i in idx)
    idx = tuple(t for group in idx for t in group)
    lead = len(idx)
    shape = tuple(input.shape)
    idx = broadcast_tensors(*idx)
    lin = None
    for k, i in enumerate(idx):
        n = shape[k]
        i = i + (i < 0).to(i.dtype) * n
        lin = i if lin is None else lin * n + i
    rest = shape[lead:]
    sel = tuple(lin.shape) + rest
    flat_vals = values.to(input.dtype).expand(sel).reshape(lin.numel(), math.prod(rest))
    base = input.reshape(math.prod(shape[:lead]), math.prod(rest))
    return index_add(base, 0, lin.reshape(-1).to(int64), flat_vals).reshape(shape)


def put(input, index, source, accumulate=False):
    """input with its flat positions index set to (or, accumulating, added) source's elements."""
    _tensor(input, "put")
    _tensor(index, "put", "index", 2)
    _tensor(source, "put", "source", 3)
    if index.dtype.name != "int64":
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_legacy(index)}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = input.numel()
    if index.numel():
        for bad in (index.min().item(), index.max().item()):
            if not -n <= bad < n:
                raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    pos = (index + (index < 0).to(int64) * n).reshape(-1)
    return Put.apply(input, pos, source, bool(accumulate))


class Put(_Composed):
    _node_name = "PutBackward0"

    @staticmethod
    def forward(ctx, input, pos, source, accumulate):
        ctx.pos, ctx.accumulate, ctx.sshape = pos, accumulate, tuple(source.shape)
        flat = input.reshape(-1)
        values = source.reshape(-1).to(input.dtype)
        out = _index_put_accumulate(flat, (pos,), values) if accumulate else index_put(flat, (pos,), values)
        return out.reshape(tuple(input.shape))

    @staticmethod
    def backward(ctx, g):
        flat = g.reshape(-1)
        gi = g if ctx.accumulate else flat.index_fill(0, ctx.pos, 0).reshape(tuple(g.shape))
        return gi, None, flat[ctx.pos].reshape(ctx.sshape), None


def masked_scatter(input, mask, source):
    """input with the positions where mask (broadcast to input) is True taken, in order, from
    source's first elements."""
    _tensor(input, "masked_scatter")
    _tensor(mask, "masked_scatter", "mask", 2)
    _tensor(source, "masked_scatter", "source", 3)
    if mask.dtype.name != "bool":
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but got "
                           f"{_legacy(input)} and {_legacy(source)}")
    m = mask.expand(tuple(input.shape)) if tuple(mask.shape) != tuple(input.shape) else mask
    k = int(m.sum().item())
    if source.numel() < k:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return MaskedScatter.apply(input, m, source, k)


class MaskedScatter(_Composed):
    _node_name = "MaskedScatterBackward0"

    @staticmethod
    def forward(ctx, input, m, source, k):
        ctx.m, ctx.k, ctx.sshape = m, k, tuple(source.shape)
        out = input.clone()
        out[m] = source.reshape(-1)[:k]
        return out

    @staticmethod
    def backward(ctx, g):
        from ..creation import zeros
        from ..functional import cat
        n = math.prod(ctx.sshape)
        picked = g[ctx.m]
        gs = cat([picked, zeros(n - ctx.k, dtype=g.dtype, device=g.device)]) if n > ctx.k else picked
        return g.masked_fill(ctx.m, 0), None, gs.reshape(ctx.sshape), None


def fill_diagonal_(self, fill_value, wrap=False):
    """Writes fill_value on the main diagonal (all dims of equal length beyond 2-d); a tall
    matrix with wrap=True starts the diagonal again every cols + 1 rows, as NumPy's."""
    n = self.dim()
    if n < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = tuple(self.shape)
    if n > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    numel = self.numel()
    if n == 2:
        rows, cols = shape
        step = cols + 1
        end = numel if (wrap and rows > cols) else min(rows, cols) * cols
    else:
        step = sum(shape[0] ** k for k in range(n))
        end = numel
    from ..creation import arange
    pos = arange(0, end, step, device=self.device) if end else arange(0, device=self.device)
    if self.is_contiguous():   # written through a flat view, so the graph records CopySlices as torch's
        self.view(-1)[pos] = fill_value
        return self
    return inplace(self, lambda t: t.reshape(-1).index_fill(0, pos, fill_value).reshape(shape))


def _inplace_of(method, keeps_input=False):
    def op(self, *args, **kwargs):
        others = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]
        return inplace(self, lambda t: getattr(t, method)(*args, **kwargs), _sources(*others),
                       keeps_input=keeps_input)
    op.__name__ = op.__qualname__ = method + "_"
    return op


def _logit_(self, eps=None):
    return inplace(self, lambda t: logit(t, eps), keeps_input=True)


def _method(fn):
    """fn(input, ...) as a Tensor method."""
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = fn.__name__
    return method


def _inplace_method(fn, name, keeps_input=False, other_pos=None):
    def method(self, *args, **kwargs):
        other = args[other_pos] if other_pos is not None and len(args) > other_pos else None
        return inplace(self, lambda t: fn(t, *args, **kwargs), other if isinstance(other, Tensor) else None,
                       keeps_input=keeps_input)
    method.__name__ = method.__qualname__ = name
    return method


def _sources(*tensors):
    """The first tensor among tensors that requires grad (what an in-place op's `other` is for)."""
    for t in tensors:
        if isinstance(t, Tensor) and t.requires_grad:
            return t
    return None


def _inplace_multi(fn, name, positions, elementwise=False):
    """An in-place form whose other tensor arguments sit at `positions` among the arguments
    (elementwise: operands broadcast with the written tensor, which torch's errors name first)."""
    def method(self, *args, **kwargs):
        others = [args[p] for p in positions if p < len(args)] + [kwargs.get(k) for k in ("source", "value")]
        return inplace(self, lambda t: fn(t, *args, **kwargs), _sources(*others),
                       operands=[o for o in others if isinstance(o, Tensor)] if elementwise else None)
    method.__name__ = method.__qualname__ = name
    return method


FUNCTIONS = {
    "multiply": multiply, "subtract": subtract, "negative": negative, "absolute": absolute, "positive": positive,
    "sgn": sgn, "ravel": ravel, "swapaxes": swapaxes, "signbit": signbit, "is_nonzero": is_nonzero,
    "is_same_size": is_same_size, "is_signed": is_signed,
    "broadcast_to": broadcast_to, "broadcast_shapes": broadcast_shapes, "broadcast_tensors": broadcast_tensors,
    "atleast_1d": atleast_1d, "atleast_2d": atleast_2d, "atleast_3d": atleast_3d, "hstack": hstack,
    "vstack": vstack, "row_stack": row_stack, "dstack": dstack, "column_stack": column_stack,
    "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit, "unflatten": unflatten,
    "select": select, "argwhere": argwhere, "block_diag": block_diag, "diag_embed": diag_embed,
    "diagflat": diagflat, "combinations": combinations, "tril_indices": tril_indices, "triu_indices": triu_indices,
    "unravel_index": unravel_index, "vander": vander, "logspace": logspace, "take": take,
    "repeat_interleave": repeat_interleave, "index_add": index_add, "index_copy": index_copy,
    "index_fill": index_fill, "addcmul": addcmul, "addcdiv": addcdiv, "inner": inner, "addr": addr,
    "chain_matmul": chain_matmul, "matrix_power": matrix_power, "cov": cov, "corrcoef": corrcoef, "histc": histc,
    "fmax": fmax, "fmin": fmin, "float_power": float_power, "logit": logit, "index_put": index_put,
    "put": put, "masked_scatter": masked_scatter,
}
for _alias, _name in _COMPARE_ALIASES.items():
    FUNCTIONS[_alias] = _compare(_name)

METHODS = {name: _method(FUNCTIONS[name]) for name in (
    "multiply", "subtract", "negative", "absolute", "positive", "sgn", "ravel", "swapaxes", "signbit",
    "is_nonzero", "is_same_size", "is_signed", "broadcast_to", "tensor_split", "hsplit", "vsplit", "dsplit",
    "unflatten", "select", "argwhere", "diag_embed", "diagflat", "take", "repeat_interleave", "index_add",
    "index_copy", "index_fill", "addcmul", "addcdiv", "inner", "addr", "matrix_power", "cov", "corrcoef", "histc",
    "fmax", "fmin", "float_power", "logit", "index_put", "put", "masked_scatter") + tuple(_COMPARE_ALIASES)}
METHODS.update({
    "multiply_": _inplace_method(multiply, "multiply_", other_pos=0),
    "subtract_": _inplace_method(subtract, "subtract_", other_pos=0),
    "negative_": _inplace_method(negative, "negative_"),
    "absolute_": _inplace_method(absolute, "absolute_", keeps_input=True),
    "sgn_": _inplace_method(sgn, "sgn_"),
    "index_add_": _inplace_multi(index_add, "index_add_", (2,)),
    "index_copy_": _inplace_multi(index_copy, "index_copy_", (2,)),
    "index_fill_": _inplace_multi(index_fill, "index_fill_", (2,)),
    "addcmul_": _inplace_multi(addcmul, "addcmul_", (0, 1), True),
    "addcdiv_": _inplace_multi(addcdiv, "addcdiv_", (0, 1), True),
    "addr_": _inplace_multi(addr, "addr_", (0, 1)),
    "float_power_": float_power_,
    "logit_": _logit_,
    "index_put_": _inplace_multi(index_put, "index_put_", (1,)),
    "put_": _inplace_multi(put, "put_", (1,)),
    "masked_scatter_": _inplace_multi(masked_scatter, "masked_scatter_", (1,)),
    "fill_diagonal_": fill_diagonal_,
})
# the in-place forms of methods Tensor has (sin_ is sin written into the tensor)
METHODS.update({m + "_": _inplace_of(m, keeps) for m, keeps in (
    ("sin", True), ("cos", True), ("erf", True), ("log1p", True), ("expm1", False), ("fix", False),
    ("frac", False), ("reciprocal", False), ("sign", False), ("pow", True), ("addmv", False),
    ("addbmm", False), ("baddbmm", False))})
for _alias, _name in list(_COMPARE_ALIASES.items()) + [(n, n) for n in ("eq", "ne", "lt", "le", "gt", "ge")]:
    METHODS[_alias + "_"] = _inplace_compare(_name)
LINALG = {"multi_dot": multi_dot, "matrix_power": matrix_power}


def install(cls):
    """Put the methods on Tensor (called once by minigrad/tensor_methods.py); a method Tensor
    already has is kept."""
    for name, fn in METHODS.items():
        if not hasattr(cls, name):
            setattr(cls, name, fn)
