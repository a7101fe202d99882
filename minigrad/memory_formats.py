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


class layout:
    """torch.layout. minigrad has one, minigrad.strided: dense memory reached through strides
    (no sparse layouts)."""
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "minigrad." + self._name

    def __reduce__(self):  # pickled by name: loading gives the same object back
        return self._name


strided = layout("strided")


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


# ---- the layout of an elementwise op's result (torch's TensorIterator rule) ----------------------

def _dense_same_strides(operands):
    """The common strides when every operand is non-overlapping and dense with the same strides."""
    first = operands[0][1]
    for shape, strides in operands:
        if strides != first or _dense_order(shape, strides) is None:
            return None
    return first


def result_strides(shape, operands):
    """The strides of the result of an elementwise op over operands (each a
    (shape, strides) pair in torch's reporting, inputs in argument order) broadcast to shape; None
    when the result is row-major. As torch: operands of one shape that are all contiguous, all
    channels_last, or all dense with equal strides give that layout; otherwise the dims are
    sorted, fastest first, by the first operand that orders each pair (broadcast dims abstain,
    equal steps put the smaller dim first)."""
    ndim = len(shape)
    if ndim <= 1:
        return None
    if all(s == shape for s, _ in operands):
        if all(is_contiguous_as(s, st, contiguous_format) for s, st in operands):
            return None
        if ndim == 4 and all(is_contiguous_as(s, st, channels_last) for s, st in operands):
            return _strides_in(shape, channels_last._order)  # (torch has no such case for 3d)
        strides = _dense_same_strides(operands)
        if strides is not None:
            return strides
    steps = []
    for s, st in operands:  # each operand's steps once broadcast to shape (0: broadcast)
        lead = ndim - len(s)
        steps.append([0] * lead + [0 if n == 1 and shape[lead + i] != 1 else st[i] for i, n in enumerate(s)])

    def after(d0, d1):  # 1: d0 should be slower than d1; -1: faster; 0: no operand minds
        for st in steps:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(ndim - 1, -1, -1))  # fastest first
    for i in range(1, ndim):
        j = i
        for k in range(i - 1, -1, -1):
            c = after(perm[k], perm[j])
            if c > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif c < 0:
                break
    order = tuple(reversed(perm))
    return None if order == tuple(range(ndim)) else _strides_in(shape, order)


def _strides_in(shape, order):
    """The strides of a dense tensor of shape whose memory runs over the dims in order."""
    strides, step = [0] * len(shape), 1
    for d in reversed(order):
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def with_strides(be, data, strides):
    """data itself when its (non-empty) memory steps as strides say (None: row-major), else a
    copy that does."""
    if strides is None:
        return data if be.is_contiguous(data) or not data.size else be.ascontiguous(data)
    have = be.strides(data)
    if have == strides or not data.size:
        return data
    out = allocate_strided(be, data.shape, data.dtype, strides)
    be.copyto(out, data)
    return out


def allocate_strided(be, shape, npdtype, strides):
    """A new backend array of shape whose memory steps as the dense strides say."""
    out = allocate(be, shape, npdtype, _dense_order(shape, strides))
    if be.strides(out) != strides:  # the steps of size-1 dims, which the order leaves open
        out = be.as_strided(out, shape, strides)
    return out


def keep_format(out, *inputs):
    """out, an op's fresh result, relaid in channels_last(_3d) when the first input whose strides
    suggest such a format does (torch's suggest_memory_format rule for conv, norm, pool, resize
    and pad outputs). A cheap check first: row-major inputs leave out as it is."""
    for x in inputs:
        if x is not None and not x._data.flags.c_contiguous:
            break
    else:
        return out
    for x in inputs:
        if x is None:
            continue
        fmt = suggest(x)
        if fmt._order is not None:
            for o in (out if isinstance(out, tuple) else (out,)):
                # only fresh results: never an input returned as is, nor a view of one
                if (o._data.ndim == fmt._rank and o._data.size and o._base is None
                        and not any(o is y for y in inputs)):
                    o._data = with_strides(o._device.backend, o._data, _strides_in(o._data.shape, fmt._order))
            return out
    return out


def row_major(out):
    """out, an op's fresh result, made row-major (the ops torch computes on a contiguous copy)."""
    if not out._data.flags.c_contiguous:
        out._data = out._device.backend.ascontiguous(out._data)
    return out


def keeps_format(fn, *args_at):
    """fn with keep_format applied to its result, the deciding inputs being fn's arguments at
    args_at: (position, keyword name) pairs."""
    import functools

    @functools.wraps(fn)
    def run(*args, **kwargs):
        out = fn(*args, **kwargs)
        xs = [args[i] if i < len(args) else kwargs.get(name) for i, name in args_at]
        return keep_format(out, *[x for x in xs if hasattr(x, "_data")])
    return run
