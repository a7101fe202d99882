"""Memory formats (torch.contiguous_format, channels_last, ...): how a dense tensor's elements are
laid out in memory. A backend array carries its own strides, so a channels_last tensor is an
NHWC-ordered buffer seen through an NCHW-shaped transposed view: stride() reports the real steps
and every op reads it through the array's strides, as it reads any transposed view."""


class memory_format:
    """One of minigrad.contiguous_format, channels_last, channels_last_3d, preserve_format."""
    __slots__ = ("_name", "_rank", "_order")

    def __init__(self, name, rank=None, order=None):
        self._name, self._rank, self._order = name, rank, order

    def __repr__(self):
        return "minigrad." + self._name

    def __reduce__(self):  # pickled by name: loading gives the same object back
        return self._name


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
# _order: the dims from the slowest-varying in memory to the fastest (channels last)
channels_last = memory_format("channels_last", 4, (0, 2, 3, 1))
channels_last_3d = memory_format("channels_last_3d", 5, (0, 2, 3, 4, 1))

_FORMATS = (contiguous_format, preserve_format, channels_last, channels_last_3d)


def check(fmt, op, position=None):
    """fmt if it is a memory format, else torch's TypeError for op's memory_format argument."""
    if isinstance(fmt, memory_format):
        return fmt
    from ._arg_errors import type_name
    where = f" (position {position})" if position is not None else ""
    raise TypeError(f"{op}(): argument 'memory_format'{where} must be minigrad.memory_format, not {type_name(fmt)}")


def check_rank(fmt, ndim):
    if fmt._rank is not None and ndim != fmt._rank:
        raise RuntimeError(f"required rank {fmt._rank} tensor to use {fmt._name} format")


def is_contiguous_as(shape, strides, fmt):
    """torch's is_contiguous(memory_format=fmt): the dims of size > 1, taken fastest first in
    fmt's order, step by the product of the sizes before them (size-1 dims may step anyhow)."""
    if fmt._order is None:
        order = range(len(shape))
    else:
        if len(shape) != fmt._rank:
            return False
        order = fmt._order
    if fmt._order is None and any(n == 0 for n in shape):
        return True
    expected = 1
    for d in reversed(order):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def _looks_channels_last(shape, strides, fmt):
    """Whether strides put fmt's channel dim fastest and the rest in fmt's order (torch's
    suggest_memory_format test; ambiguous layouts, such as one channel, count as contiguous)."""
    if len(shape) != fmt._rank or strides[1] == 0:
        return False
    floor = 0
    for d in reversed(fmt._order):
        if shape[d] == 0 or strides[d] < floor:
            return False
        if d == 0 and floor == strides[1]:
            return False
        floor = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def suggest(t):
    """The dense format closest to t's layout: channels_last(_3d) or contiguous_format."""
    shape, strides = tuple(t._data.shape), t.stride()
    for fmt in (channels_last, channels_last_3d):
        if _looks_channels_last(shape, strides, fmt):
            return fmt
    return contiguous_format


def _dense_order(shape, strides):
    """The dims from slowest to fastest when t's elements tile one block of memory without
    overlap or holes (torch's non_overlapping_and_dense), else None."""
    order = sorted(range(len(shape)), key=lambda d: (-strides[d], -d))
    expected = 1
    for d in reversed(order):
        if shape[d] == 1:
            continue
        if strides[d] != expected:
            return None
        expected *= shape[d]
    return tuple(order)


def preserved_order(t):
    """The dim order, slowest first, that a copy of t made with preserve_format takes: t's own when
    t is dense, else its suggested format's."""
    shape = tuple(t._data.shape)
    if t._data.size:
        order = _dense_order(shape, t.stride())
        if order is not None:
            return order
    fmt = suggest(t)
    return fmt._order if fmt._order is not None else tuple(range(len(shape)))


def order_of(t, fmt):
    """The dim order (slowest first) a tensor made from t in fmt takes."""
    if fmt is preserve_format:
        return preserved_order(t)
    check_rank(fmt, t._data.ndim)
    return fmt._order if fmt._order is not None else tuple(range(t._data.ndim))


def _inverse(order):
    inv = [0] * len(order)
    for i, d in enumerate(order):
        inv[d] = i
    return tuple(inv)


def relaid(be, data, order):
    """A copy of backend array data whose memory runs over its dims in order (slowest first)."""
    if order == tuple(range(data.ndim)):
        return be.ascontiguous(data) if not be.is_contiguous(data) else be.copy(data)
    return be.transpose(be.ascontiguous(be.transpose(data, order)), _inverse(order))


def allocate(be, shape, npdtype, order, fill="empty"):
    """A new backend array of shape laid out in order (slowest dim first)."""
    shape = tuple(shape)
    make = getattr(be, fill)
    if order == tuple(range(len(shape))):
        return make(shape, npdtype)
    return be.transpose(make(tuple(shape[d] for d in order), npdtype), _inverse(order))


def in_layout(be, data, order):
    """data itself when its memory already runs in order, else a copy that does."""
    strides = be.strides(data)
    shape = data.shape
    expected = 1
    for d in reversed(order):
        if shape[d] != 1 and strides[d] != expected:
            return relaid(be, data, order)
        expected *= shape[d]
    return data
