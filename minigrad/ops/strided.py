"""Strided views: as_strided, unfold, diagonal. Each is one as_strided view of its input's memory
(sharing the version counter, as the views in ops/shape.py), and each backward scatters the
gradient back through the flat positions the view reads, so overlapping windows add up."""
from ..autograd.function import apply_first
from ..tensor import _make, _wrap_dim
from .elementwise import Builtin
from .shape import view_of


def _root(a):
    r = a._base if a._base is not None else a
    return r if r._storage_of is None else r._storage_of  # a tensor set_ to another's memory


def _offset(a):
    """a's first element, in elements from its root's first element (torch's storage_offset)."""
    root = _root(a)
    if root is a or not a._data.size or not root._data.size:
        return 0
    be = a._device.backend
    return (be.data_ptr(a._data) - be.data_ptr(root._data)) // a._data.itemsize


def _storage_size(a):
    """The elements of memory a's root spans from its first element (its storage size)."""
    r = _root(a)._data
    if not r.size:
        return 0
    be = a._device.backend
    return 1 + sum((n - 1) * s for n, s in zip(r.shape, be.strides(r)) if s > 0)


def _extent(shape, strides, offset):
    """One past the last element a geometry reaches (offset when it has none)."""
    if any(n == 0 for n in shape):
        return offset
    return offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides))


def _may_overlap(shape, strides):
    """Whether two elements of the geometry may share a memory position."""
    reach = 1
    for s, n in sorted((s, n) for n, s in zip(shape, strides) if n > 1):
        if s < reach:
            return True
        reach += s * (n - 1)
    return False


def _positions(be, shape, strides, offset, size):
    """The flat memory position of each element of a geometry (an int64 array shaped like it)."""
    from ..dtypes import int64
    return be.as_strided(be.arange(0, max(size, 1), 1, int64.np), shape, strides, offset)


class FlatGather(Builtin):
    """x (1-d) read at flat positions idx (an int64 backend array): x[idx]."""
    _node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, x, idx):
        ctx.idx, ctx.n = idx, x._data.shape[0]
        be = x._device.backend
        return _make(be.getitem(x._data, (idx,), ((0, ctx.n - 1),)), x._device)

    @staticmethod
    def backward(ctx, g):
        return FlatScatter.apply(g, ctx.idx, ctx.n), None


class FlatScatter(Builtin):
    """zeros(n) with g added at flat positions idx (repeated positions accumulate)."""
    _node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, g, idx, n):
        ctx.idx = idx
        be = g._device.backend
        return _make(be.index_add((n,), (be.reshape(idx, (-1,)),), be.reshape(be.ascontiguous(g._data), (-1,)),
                                  g._data.dtype), g._device)

    @staticmethod
    def backward(ctx, gg):
        return FlatGather.apply(gg, ctx.idx), None, None


def _logical_positions(be, in_shape, geometry):
    """The positions, in the row-major flattening of a tensor shaped in_shape, that a view made by
    geometry (a function of (shape, strides) giving (shape, strides, offset)) reads."""
    strides, step = [], 1
    for n in reversed(in_shape):
        strides.append(step)
        step *= n
    shape, vstrides, offset = geometry(in_shape, tuple(reversed(strides)))
    return _positions(be, shape, vstrides, offset, step)


class _GeometryView(Builtin):
    """A view given by a geometry function of the input's (shape, strides); its gradient is
    scattered back to the positions it read, in the input's logical layout."""

    @classmethod
    def forward(cls, ctx, a, geometry):
        be = a._device.backend
        ctx.in_shape, ctx.geometry = a._data.shape, geometry
        shape, strides, offset = geometry(a._data.shape, be.strides(a._data))
        return view_of(a, be.as_strided(a._data, shape, strides, offset),
                       ("as_strided", lambda be, arr: geometry(arr.shape, be.strides(arr))))

    @staticmethod
    def backward(ctx, g):
        be = g._device.backend
        idx = _logical_positions(be, ctx.in_shape, ctx.geometry)
        n = 1
        for s in ctx.in_shape:
            n *= s
        return FlatScatter.apply(g, idx, n).reshape(ctx.in_shape), None


class Unfold(_GeometryView):
    _node_name = "UnfoldBackward0"


class Diagonal(_GeometryView):
    _node_name = "DiagonalBackward0"


class AsStrided(Builtin):
    """A view of the memory of a's root with the given geometry (offset from the root's start)."""
    _node_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, a, size, stride, offset):
        be = a._device.backend
        a_off = _offset(a)
        ctx.out = (size, stride, offset)
        ctx.inp = (a._data.shape, be.strides(a._data), a_off)
        arr = be.as_strided(a._data, size, stride, offset - a_off)
        return view_of(a, arr, ("as_strided", (size, stride, offset - a_off)))

    @staticmethod
    def backward(ctx, g):
        # torch's as_strided_backward: the gradient laid out in a storage, read back at the input's
        # geometry; an input whose elements share positions (an expand) gets a share of each
        be = g._device.backend
        n = max(_extent(*ctx.out), _extent(*ctx.inp))
        buf = FlatScatter.apply(g, _positions(be, *ctx.out, n), n)
        in_idx = _positions(be, *ctx.inp, n)
        if _may_overlap(*ctx.inp[:2]):
            count = be.index_add((n,), (be.reshape(in_idx, (-1,)),), be.ones((in_idx.size,), g._data.dtype),
                                 g._data.dtype)
            buf = buf / _make(be.maximum(count, 1), g._device)
        return FlatGather.apply(buf, in_idx), None, None, None


def _int_seq(op, arg, pos, value):
    from .._arg_errors import _is_index, type_name
    if not isinstance(value, (tuple, list)) or not all(_is_index(v) for v in value):
        raise TypeError(f"{op}(): argument '{arg}' (position {pos}) must be tuple of ints, not {type_name(value)}")
    return tuple(int(v) for v in value)


def _int(op, arg, pos, value):
    from .._arg_errors import _is_long, type_name
    if not _is_long(value):
        raise TypeError(f"{op}(): argument '{arg}' (position {pos}) must be int, not {type_name(value)}")
    return int(value)


def as_strided_args(a, size, stride, storage_offset, op="as_strided"):
    """(size, stride, offset) of a.as_strided(size, stride, storage_offset), checked as torch."""
    size = _int_seq(op, "size", 1, size)
    stride = _int_seq(op, "stride", 2, stride)
    offset = _offset(a) if storage_offset is None else _int(op, "storage_offset", 3, storage_offset)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    need, have = _extent(size, stride, offset), _storage_size(a)
    if any(n == 0 for n in size):
        need = 0
    if need > have:
        isz = a._data.itemsize
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {isz} requiring a storage size of {need * isz} are out of bounds for "
                           f"storage of size {have * isz}")
    return size, stride, offset


def as_strided(input, size, stride, storage_offset=None):
    """torch.as_strided / Tensor.as_strided: a view of input's storage (its root's memory) with
    the given sizes and element strides, from storage_offset (input's own offset when None)."""
    return apply_first(AsStrided, input, *as_strided_args(input, size, stride, storage_offset))


def _unfold_geometry(dim, size, step):
    def geometry(shape, strides):
        if not shape:
            return (size,), (1,), 0
        shape, strides = list(shape), list(strides)
        n, st = shape[dim], strides[dim]
        shape[dim], strides[dim] = (n - size) // step + 1, st * step
        return tuple(shape) + (size,), tuple(strides) + (st,), 0
    return geometry


def unfold(a, dimension, size, step):
    """Tensor.unfold: the windows of `size` elements every `step` along `dimension`, as a new last dim."""
    dimension = _int("unfold", "dimension", 1, dimension)
    size, step = _int("unfold", "size", 2, size), _int("unfold", "step", 3, step)
    shape = a._data.shape
    dim = _wrap_dim(dimension, len(shape))
    n = shape[dim] if shape else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return apply_first(Unfold, a, _unfold_geometry(dim, size, step))


def _diagonal_geometry(offset, d1, d2):
    def geometry(shape, strides):
        n1, n2 = shape[d1], shape[d2]
        length = max(min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2), 0)
        start = 0
        if length:
            start = offset * strides[d2] if offset >= 0 else -offset * strides[d1]
        keep = [i for i in range(len(shape)) if i not in (d1, d2)]
        return (tuple(shape[i] for i in keep) + (length,),
                tuple(strides[i] for i in keep) + (strides[d1] + strides[d2],), start)
    return geometry


def diagonal(input, offset=0, dim1=0, dim2=1):
    """torch.diagonal / Tensor.diagonal: the diagonal of the (dim1, dim2) planes as a last dim (a view)."""
    offset = _int("diagonal", "offset", 1, offset)
    n = input._data.ndim
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if n < 2:
        _wrap_dim(1, n)  # torch's IndexError: a 0-d or 1-d tensor has no second dim
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return apply_first(Diagonal, input, _diagonal_geometry(offset, d1, d2))
