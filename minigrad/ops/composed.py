"""Ops composed from the backend primitives, with no kernel of their own: float tests (isnan,
...), nan_to_num, logsumexp, tril/triu, diag, trace, flip, narrow, unbind, movedim,
index_select, masked_select, outer, gather/scatter/scatter_add, take_along_dim, lerp,
clamp_min/clamp_max, logical ops, count_nonzero, var_mean/std_mean, and the in-place unary and
random methods. Each runs on every backend, the CUDA one included, through primitives only
(gathers and scatters are getitem/setitem/index_add with index arrays).
"""
import builtins

from .._typename import typename
from ..autograd.function import apply_first, apply_unary
from ..dtypes import bool_, cpp_name, get_default_dtype, int64
from ..tensor import Tensor, _make, _wrap_dim
from .broadcast import broadcast_shape, sum_to
from .elementwise import Builtin, Clamp, Overwrite, device_error, round_op, unary_float
from . import elementwise as ew
from .index import Index, IndexAdd, Slice, index_bounds
from .inplace import check_writable, inplace
from .reduce import Std, Var, _count, _expand_back, _expand_back_array, bind_var_args, normalize_dims
from .shape import permute
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

_INF = float("inf")
_NO = object()


def _tensor_arg(x, op, arg, pos):
    if not isinstance(x, Tensor):
        where = f" (position {pos})" if pos else ""
        raise TypeError(f"{op}(): argument '{arg}'{where} must be Tensor, not {typename(type(x))}")
    return x


def _same_device(a, b):
    if a._device is not b._device:
        raise device_error(a, b)


def _arange(be, n, shape=None):
    r = be.arange(0, n, 1, int64.np)
    return r if shape is None else be.reshape(r, shape)


# ---- tests of float values ------------------------------------------------------------------

def _test(a, on_float, others):
    """A bool tensor: on_float(backend, array) for a float tensor; for integer and bool tensors,
    whose values are all finite, the constant others."""
    be = a._device.backend
    if a.is_floating_point():
        return _make(on_float(be, a._data), a._device)
    return _make(be.full(a._data.shape, others, bool_.np), a._device)


def isnan(a):
    return _test(a, lambda be, x: be.ne(x, x), False)


def isinf(a):
    return _test(a, lambda be, x: be.eq(be.abs(x), _INF), False)


def isfinite(a):
    return _test(a, lambda be, x: be.lt(be.abs(x), _INF), True)  # nan < inf is False


def isposinf(a):
    return _test(a, lambda be, x: be.eq(x, _INF), False)


def isneginf(a):
    return _test(a, lambda be, x: be.eq(x, -_INF), False)


_FLOAT_MAX = {"float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}


class NanToNum(Builtin):
    _node_name = "NanToNumBackward0"

    @staticmethod
    def forward(ctx, a, nan, posinf, neginf):
        be, x = a._device.backend, a._data
        if x.dtype.kind != "f":  # integers and bools have nothing to replace
            return _make(be.copy(x), a._device)
        big = _FLOAT_MAX[a.dtype.name]
        dt = x.dtype

        def fill(v):
            return be.full((), v, dt)
        out = be.where(be.ne(x, x), fill(0.0 if nan is None else nan), x)
        out = be.where(be.eq(x, _INF), fill(big if posinf is None else posinf), out)
        out = be.where(be.eq(x, -_INF), fill(-big if neginf is None else neginf), out)
        if ctx.needs_input_grad[0]:
            # the mask, not the input: nan_to_num_ overwrites the input
            ctx.save_for_backward(_make(be.lt(be.abs(x), _INF), a._device))
        return _make(out, a._device)

    @staticmethod
    def backward(ctx, g):
        finite, = ctx.saved_tensors
        return g * finite.to(g.dtype), None, None, None  # torch's grad * isfinite(self)

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.mul(g, be.astype(ctx.saved_array(), g.dtype)), None, None, None


def nan_to_num(a, nan=0.0, posinf=None, neginf=None):
    return NanToNum.apply(a, nan, posinf, neginf)


# ---- logsumexp ----------------------------------------------------------------------------------

class Logsumexp(Builtin):
    _node_name = "LogsumexpBackward0"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        be, x = a._device.backend, a._data
        if not x.size:
            out = be.log(be.sum(be.exp(x), dims, keepdim))  # -inf where nothing is summed
        else:
            # torch's order: the max (0 where it is infinite) out, exp, sum, log, the max back in
            m = be.amax(x, dims, True)
            m = be.where(be.eq(be.abs(m), _INF), be.zeros((), x.dtype), m)
            s = be.sum(be.exp(be.sub(x, m)), dims, keepdim)
            out = be.add(be.log(s), m if keepdim else be.reshape(m, s.shape))
        out = _make(out, a._device)
        ctx.save_for_backward(a, out)
        ctx.dims, ctx.keepdim = dims, keepdim
        return out

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        shape, dims, keepdim = a._data.shape, ctx.dims, ctx.keepdim
        g, out = _expand_back(g, shape, dims, keepdim), _expand_back(out, shape, dims, keepdim)
        return g * (a - out).exp(), None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        a, out = ctx.saved_arrays()
        shape, dims, keepdim = a.shape, ctx.dims, ctx.keepdim
        g = _expand_back_array(be, g, shape, dims, keepdim)
        out = _expand_back_array(be, out, shape, dims, keepdim)
        return be.mul(g, be.exp(be.sub(a, out))), None, None


def logsumexp(a, dim=_NO, keepdim=False):
    if _AUTOCAST_ON[0] and (r := _autocast("logsumexp", logsumexp, a, dim, keepdim)) is not None:
        return r
    if dim is _NO:
        raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
    if not a.is_floating_point():
        a = a.to(get_default_dtype())  # torch computes integers and bools in the default float dtype
    dims = normalize_dims(dim, a._data.ndim, "logsumexp")
    return apply_first(Logsumexp, a, dims, keepdim)


# ---- triangles, diagonals ---------------------------------------------------------------------------

def _triangle(be, x, k, upper):
    """x with the elements outside its lower (upper) triangle, from diagonal k, set to zero."""
    n, m = x.shape[-2], x.shape[-1]
    offset = be.sub(_arange(be, m, (1, m)), _arange(be, n, (n, 1)))  # column - row
    keep = be.ge(offset, k) if upper else be.le(offset, k)
    return be.where(keep, x, be.zeros((), x.dtype))


class Tril(Builtin):
    _node_name = "TrilBackward0"
    _upper = False

    @classmethod
    def forward(cls, ctx, a, k):
        ctx.k = k
        return _make(_triangle(a._device.backend, a._data, k, cls._upper), a._device)

    @classmethod
    def backward(cls, ctx, g):
        return apply_first(cls, g, ctx.k), None

    @classmethod
    def backward_raw(cls, ctx, be, g):
        return _triangle(be, g, ctx.k, cls._upper), None


class Triu(Tril):
    _node_name = "TriuBackward0"
    _upper = True


def _tri(cls, name, a, diagonal):
    if a._data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return apply_first(cls, a, _index_arg(diagonal, name, "diagonal"))


def tril(a, diagonal=0):
    return _tri(Tril, "tril", a, diagonal)


def triu(a, diagonal=0):
    return _tri(Triu, "triu", a, diagonal)


def _index_arg(x, op, name):
    if x.__class__ is int:
        return x
    if x.__class__ is bool or not hasattr(x, "__index__"):
        raise TypeError(f"{op}(): argument '{name}' must be int, not {typename(type(x))}")
    return x.__index__()


def _diagonal_index(be, n, m, k):
    """(rows, cols) of diagonal k of an (n, m) matrix, and the bounds of each."""
    r0, c0 = builtins.max(-k, 0), builtins.max(k, 0)
    length = builtins.max(builtins.min(n - r0, m - c0), 0)
    ramp = _arange(be, length)
    idx = (be.add(ramp, r0), be.add(ramp, c0))
    bounds = ((r0, r0 + length - 1), (c0, c0 + length - 1)) if length else None
    return idx, bounds, length


class DiagonalCopy(Index):
    """torch.diag of a matrix: its diagonal, a copy (torch's diagonal_copy)."""
    _node_name = "DiagonalBackward0_copy"


class DiagEmbed(Builtin):
    """torch.diag of a vector: a square matrix with the vector on diagonal k."""
    _node_name = "DiagEmbedBackward0"

    @staticmethod
    def forward(ctx, v, k):
        be = v._device.backend
        n = v._data.shape[0] + abs(k)
        idx, bounds, _ = _diagonal_index(be, n, n, k)
        out = be.zeros((n, n), v._data.dtype)
        be.setitem(out, idx, v._data, bounds)
        ctx.index, ctx.bounds = idx, bounds
        return _make(out, v._device)

    @staticmethod
    def backward(ctx, g):
        return apply_first(Index, g, ctx.index, False, ctx.bounds), None

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.getitem(g, ctx.index, ctx.bounds), None


def diag(a, diagonal=0):
    k = _index_arg(diagonal, "diag", "diagonal")
    nd = a._data.ndim
    if nd == 1:
        return apply_first(DiagEmbed, a, k)
    if nd != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {nd}D")
    n, m = a._data.shape
    idx, bounds, _ = _diagonal_index(a._device.backend, n, m, k)
    return apply_first(DiagonalCopy, a, idx, False, bounds)


class Trace(Builtin):
    _node_name = "TraceBackward0"

    @staticmethod
    def forward(ctx, a):
        be, x = a._device.backend, a._data
        n, m = x.shape
        idx, bounds, length = _diagonal_index(be, n, m, 0)
        ctx.shape, ctx.index, ctx.bounds = x.shape, idx, bounds
        d = be.getitem(x, idx, bounds) if length else be.zeros((0,), x.dtype)
        return _make(be.sum(d, None, False, int64.np if x.dtype.kind in "iu" and x.dtype.char != "H" else None), a._device)

    @staticmethod
    def backward(ctx, g):
        n = builtins.min(ctx.shape)
        return IndexAdd.apply(g.expand(n), ctx.shape, ctx.index)

    @staticmethod
    def backward_raw(ctx, be, g):
        n = builtins.min(ctx.shape)
        return be.index_add(ctx.shape, ctx.index, be.broadcast_to(g, (n,)), g.dtype)


def trace(a):
    if _AUTOCAST_ON[0] and (r := _autocast("trace", trace, a)) is not None:
        return r
    if a._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a._data.ndim}")
    if a._data.dtype.kind == "b":
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return apply_unary(Trace, a)


# ---- reordering and selecting ------------------------------------------------------------------------

def _dim_list(dims, ndim, op):
    """An int or a sequence of ints as wrapped dims; torch's error for a repeated one."""
    dims = (dims,) if not isinstance(dims, (tuple, list)) else dims
    out = [_wrap_dim(d, ndim, op) for d in dims]
    for i, d in enumerate(out):
        if d in out[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


class Flip(Builtin):
    _node_name = "FlipBackward0"

    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        return _make(_flip(a._device.backend, a._data, dims), a._device)

    @staticmethod
    def backward(ctx, g):
        return apply_first(Flip, g, ctx.dims), None

    @staticmethod
    def backward_raw(ctx, be, g):
        return _flip(be, g, ctx.dims), None


def _flip(be, x, dims):
    """x reversed along dims: a gather with reversed ramps (a copy, as torch's flip)."""
    if not x.ndim:
        return be.copy(x)
    index = []
    for d, n in enumerate(x.shape):
        if d in dims and n > 1:
            index.append(be.sub(n - 1, _arange(be, n)))
        else:
            index.append(slice(None))
    if builtins.all(isinstance(i, slice) for i in index):
        return be.copy(x)
    bounds = tuple(None if isinstance(i, slice) else (0, x.shape[d] - 1) for d, i in enumerate(index))
    arrays = [i for i in index if not isinstance(i, slice)]
    if len(arrays) == 1:
        return be.getitem(x, tuple(index), bounds)
    # several reversed dims: one after the other (separate index arrays would pair up)
    for d, i in enumerate(index):
        if not isinstance(i, slice):
            one = (slice(None),) * d + (i,)
            x = be.getitem(x, one, (None,) * d + (bounds[d],))
    return x


def flip(a, *dims, **kwargs):
    if kwargs:
        if dims or list(kwargs) != ["dims"]:
            raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
        dims = kwargs["dims"]
    elif len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    return apply_first(Flip, a, tuple(_dim_list(tuple(dims), a._data.ndim, "flip")))


def narrow(a, dim, start, length):
    nd = a._data.ndim
    if not nd:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, nd, "narrow")
    start, length = int(_index_arg(start, "narrow", "start")), _index_arg(length, "narrow", "length")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    size = a._data.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    index = (slice(None),) * d + (slice(start, start + length),)
    return apply_first(Slice, a, index, True, None)


class Unbind(Builtin):
    """The slices of a along dim, as views: one node with an output per slice."""
    _node_name = "UnbindBackward0"

    @staticmethod
    def forward(ctx, a, dim):
        from .shape import view_of
        be = a._device.backend
        ctx.dim, ctx.shape = dim, a._data.shape
        out = []
        for i in range(a._data.shape[dim]):
            index = (slice(None),) * dim + (i,)
            out.append(view_of(a, be.getitem(a._data, index), ("getitem", index)))
        return tuple(out)

    @staticmethod
    def backward(ctx, *grads):
        from .join import stack
        return stack(list(grads), ctx.dim), None


def unbind(a, dim=0):
    nd = a._data.ndim
    if not nd:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, nd, "unbind")
    if a._data.shape[d] == 0:
        return ()
    out = apply_first(Unbind, a, d)
    return out if isinstance(out, tuple) else (out,)


def movedim(a, source, destination):
    nd = a._data.ndim
    src = list(source) if isinstance(source, (tuple, list)) else [source]
    dst = list(destination) if isinstance(destination, (tuple, list)) else [destination]
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain "
                           f"the same number of dims as destination ({dst} dims)")
    src = [_wrap_dim(d, nd, "movedim") for d in src]
    dst = [_wrap_dim(d, nd, "movedim") for d in dst]
    for name, ds in (("source", src), ("destination", dst)):
        if len(set(ds)) != len(ds):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({ds})")
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(nd) if d not in src)
    order = [next(rest) if o is None else o for o in order]
    return permute(a, order) if nd else permute(a, ())


class IndexSelect(Index):
    _node_name = "IndexSelectBackward0"


def index_select(a, dim, index):
    _tensor_arg(index, "index_select", "index", 2)
    d = _wrap_dim(dim, a._data.ndim, "index_select")
    if index._data.dtype.name not in ("int64", "int32"):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index._data.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    _same_device(a, index)
    if not a._data.ndim:  # a 0-d tensor is a 1-element vector here
        if index._data.size != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index._data.size} "
                               "value(s)")
        be = a._device.backend
        idx = be.reshape(index._data, (1,))
        lo, hi = index_bounds(index)
        if lo != 0 or hi != 0:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={lo or hi} axis_dim=1")
        return apply_first(IndexSelectScalar, a, (idx,), ((0, 0),), ())
    size = a._data.shape[d]
    idx = index._data if index._data.ndim else a._device.backend.reshape(index._data, (1,))
    bounds = None
    if idx.size:
        lo, hi = index_bounds(index)
        bad = hi if hi >= size else lo if lo < 0 else None
        if bad is not None:
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
        bounds = (None,) * d + ((lo, hi),)
    return apply_first(IndexSelect, a, (slice(None),) * d + (idx,), False, bounds)


class MaskedSelect(Index):
    _node_name = "MaskedSelectBackward0"


def masked_select(a, mask):
    _tensor_arg(mask, "masked_select", "mask", 1)
    if mask._data.dtype.kind != "b":
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    _same_device(a, mask)
    shape = broadcast_shape(mask._data.shape, a._data.shape)
    if a._data.shape != shape:
        a = a.expand(shape)
    be = a._device.backend
    m = mask._data if mask._data.shape == shape else be.broadcast_to(mask._data, shape)
    if not shape:  # a 0-d selection gives a 1-d result
        a, m = a.reshape(1), be.reshape(m, (1,))
    return apply_first(MaskedSelect, a, (m,), False, None)


def outer(a, vec2, name="outer"):
    _tensor_arg(vec2, name, "vec2", 1)
    for what, t in (("self", a), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {what}, but got {t._data.ndim}-D")
    return a.reshape(-1, 1) * vec2  # torch's composition: a MulBackward0 node


# ---- gather and scatter ------------------------------------------------------------------------------

class Gather(Builtin):
    """out[i][j][k] = a[index[i][j][k]][j][k] (dim 0): a[idx] for the advanced index idx made by
    _grid, reshaped to the index's shape (a 0-d input or index is taken as 1-d, as in torch)."""
    _node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, a, idx, bounds, ishape):
        be = a._device.backend
        x = a._data if a._data.ndim else be.reshape(a._data, (1,))
        ctx.shape, ctx.flat, ctx.index, ctx.grid = a._data.shape, x.shape, idx, _grid_shape(idx)
        out = be.getitem(x, idx, bounds)
        return _make(out if out.shape == ishape else be.reshape(out, ishape), a._device)

    @staticmethod
    def backward(ctx, g):
        g = g.reshape(ctx.grid) if g._data.shape != ctx.grid else g
        ga = IndexAdd.apply(g, ctx.flat, ctx.index)
        return (ga.reshape(ctx.shape) if ctx.flat != ctx.shape else ga), None, None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        ga = be.index_add(ctx.flat, ctx.index, be.reshape(g, ctx.grid), g.dtype)
        return be.reshape(ga, ctx.shape), None, None, None


def _grid_shape(idx):
    """The shape of the index _grid made (its items broadcast together)."""
    # (broadcast: a size other than 1 wins, 0 included, which max() would lose to a 1)
    return tuple(next((n for n in sizes if n != 1), 1) for sizes in zip(*(i.shape for i in idx)))


class IndexSelectScalar(Gather):
    """index_select of a 0-d tensor (its one element, index 0)."""
    _node_name = "IndexSelectBackward0"


def _scatter_checks(op, a, dim, index, src=None):
    """torch's checks of gather's and scatter's operands; the wrapped dim."""
    _tensor_arg(index, op, "index", 2)
    nd = a._data.ndim
    d = _wrap_dim(dim, nd, op)
    if index._data.dtype.name not in ("int64", "int32"):
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")
    _same_device(a, index)
    if src is not None:
        _same_device(a, src)
        if src._data.dtype != a._data.dtype:
            raise RuntimeError(f"{op}(): Expected self.dtype to be equal to src.dtype")
    ishape = index._data.shape
    if builtins.max(index._data.ndim, 1) != builtins.max(nd, 1):
        what = "input" if op == "gather" else "self"
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} tensor")
    if src is not None and builtins.max(src._data.ndim, 1) != builtins.max(nd, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if nd and index._data.size:
        for k, (i, s) in enumerate(zip(ishape, a._data.shape)):
            if (k != d and i > s) or (src is not None and src._data.ndim and i > src._data.shape[k]):
                if op == "gather":
                    raise RuntimeError(f"Size does not match at dimension {k} expected index {list(ishape)} to be "
                                       f"no larger than self {list(a._data.shape)} apart from dimension {d}")
                message = (f"Expected index {list(ishape)} to be no larger than self {list(a._data.shape)} "
                           f"apart from dimension {d}")
                if src is not None:
                    message += f" and to be no larger size than src {list(src._data.shape)}"
                raise RuntimeError(message)
    return d


def _grid(a, d, index):
    """The advanced index (and each item's bounds) reaching a[index[i][j][k]][j][k] (d = 0): the
    index array at d, a ramp broadcast along every other dim; torch's error for an index out of
    range. A 0-d a or index counts as 1-d."""
    be = a._device.backend
    arr = index._data if index._data.ndim else be.reshape(index._data, (1,))
    size = a._data.shape[d] if a._data.ndim else 1
    lo_hi = None
    if arr.size:
        lo, hi = lo_hi = index_bounds(index)
        bad = hi if hi >= size else lo if lo < 0 else None
        if bad is not None:
            raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    shape, nd = arr.shape, arr.ndim
    idx, bounds = [], []
    for k in range(nd):
        if k == d:
            idx.append(arr)
            bounds.append(lo_hi)
        else:
            along = [1] * nd
            along[k] = shape[k]
            idx.append(_arange(be, shape[k], tuple(along)))
            bounds.append((0, shape[k] - 1) if shape[k] else None)
    return tuple(idx), tuple(bounds)


def gather(a, dim, index, *, sparse_grad=False):
    d = _scatter_checks("gather", a, dim, index)
    idx, bounds = _grid(a, d, index)
    return apply_first(Gather, a, idx, bounds, index._data.shape)


def _scattered(a, write):
    """A copy of a (taken as 1-d when 0-d) with write(copy) applied, in a's shape."""
    be = a._device.backend
    out = be.copy(a._data)
    write(be, out if out.ndim else be.reshape(out, (1,)))  # a reshaped copy shares its memory
    return _make(out, a._device)


class ScatterValue(Builtin):
    """a with value written at the advanced index idx."""
    _node_name = "ScatterBackward1"

    @staticmethod
    def forward(ctx, a, idx, bounds, value):
        ctx.index, ctx.bounds = idx, bounds
        return _scattered(a, lambda be, out: be.setitem(out, idx, be.full((), value, out.dtype), bounds))

    @staticmethod
    def backward(ctx, g):
        return ScatterValue.apply(g, ctx.index, ctx.bounds, 0), None, None, None


class Scatter(Builtin):
    """a with src's leading block (of index's shape) written at the advanced index idx."""
    _node_name = "ScatterBackward0"

    @staticmethod
    def forward(ctx, a, src, idx, bounds):
        ctx.index, ctx.bounds = idx, bounds
        ctx.src_shape, ctx.ishape = src._data.shape, _grid_shape(idx)
        values = _block(src._device.backend, src._data, ctx.ishape)
        return _scattered(a, lambda be, out: be.setitem(out, idx, values, bounds))

    @staticmethod
    def backward(ctx, g):
        na, ns = ctx.needs_input_grad[:2]
        ga = ScatterValue.apply(g, ctx.index, ctx.bounds, 0) if na else None
        return ga, (_src_grad(g, ctx) if ns else None), None, None


def _block(be, x, shape):
    """The leading block of x of the given shape (x taken as 1-d when 0-d)."""
    if not x.ndim:
        x = be.reshape(x, (1,))
    if x.shape == shape:
        return x
    if 0 in shape:  # an empty index reads nothing: src may even be smaller than it (torch checks no sizes)
        return be.zeros(shape, x.dtype)
    return be.getitem(x, tuple(slice(0, n) for n in shape))


def _src_grad(g, ctx):
    """The gradient of a scatter's src: g gathered at the index (torch's grad.gather(dim, index),
    which torch's engine refuses when src is larger than the index: minigrad pads it)."""
    shape = ctx.src_shape if ctx.src_shape else (1,)
    if 0 in ctx.ishape:  # nothing was read from src
        return _make(g._device.backend.zeros(ctx.src_shape, g._data.dtype), g._device)
    gs = apply_first(Gather, g, ctx.index, ctx.bounds, ctx.ishape)
    if gs._data.shape != shape:
        from .index import SlicePut
        pad = _make(g._device.backend.zeros(shape, g._data.dtype), g._device)
        gs = SlicePut.apply(pad, gs, tuple(slice(0, n) for n in gs._data.shape), None)
    return gs if ctx.src_shape else gs.reshape(())


class ScatterAdd(Scatter):
    """a plus src's leading block added at the advanced index idx (repeats accumulate)."""
    _node_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, a, src, idx, bounds):
        ctx.index, ctx.bounds = idx, bounds
        ctx.src_shape, ctx.ishape = src._data.shape, _grid_shape(idx)
        be, x = a._device.backend, a._data
        if 0 in ctx.ishape:  # an empty index adds nothing
            return _make(be.copy(x), a._device)
        flat = x.shape if x.ndim else (1,)
        values = _block(be, src._data, ctx.ishape)
        if x.dtype.kind == "b":  # a logical or, counted in int32
            added = be.ne(be.index_add(flat, idx, be.astype(values, "int32"), "int32"), 0)
            return _make(be.maximum(x, be.reshape(added, x.shape)), a._device)
        added = be.index_add(flat, idx, values, x.dtype)
        return _make(be.add(x, be.reshape(added, x.shape)), a._device)

    @staticmethod
    def backward(ctx, g):
        na, ns = ctx.needs_input_grad[:2]
        return (g if na else None), (_src_grad(g, ctx) if ns else None), None, None


def _scatter(op, a, dim, index, src, value):
    if src is not None and not isinstance(src, Tensor):
        value, src = src, None
    d = _scatter_checks(op, a, dim, index, src)
    idx, bounds = _grid(a, d, index)
    if src is None:
        return ScatterValue.apply(a, idx, bounds, value)
    return (Scatter if op == "scatter" else ScatterAdd).apply(a, src, idx, bounds)


def scatter(a, dim, index, src=None, *, value=None):
    if src is None and value is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    return _scatter("scatter", a, dim, index, src, value)


def scatter_add(a, dim, index, src):
    if _AUTOCAST_ON[0] and (r := _autocast("scatter_add", scatter_add, a, dim, index, src)) is not None:
        return r
    _tensor_arg(src, "scatter_add", "src", 3)
    return _scatter("scatter_add", a, dim, index, src, None)


def scatter_(a, dim, index, src=None, *, value=None):
    other = src if isinstance(src, Tensor) else None
    return inplace(a, lambda t: scatter(t, dim, index, src, value=value), other)


def scatter_add_(a, dim, index, src):
    return inplace(a, lambda t: scatter_add(t, dim, index, src), src if isinstance(src, Tensor) else None)


def take_along_dim(a, indices, dim=None):
    _tensor_arg(indices, "take_along_dim", "indices", 2)
    if indices._data.dtype.name != "int64":
        raise RuntimeError(f"minigrad.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype._legacy[:-6]}")
    if dim is None:
        return gather(a.reshape(-1), 0, indices.reshape(-1))
    nd = a._data.ndim
    d = _wrap_dim(dim, nd, "take_along_dim")
    if indices._data.ndim != nd:
        raise RuntimeError(f"minigrad.take_along_dim(): input and indices should have the same number of "
                           f"dimensions, but got {nd} dimensions for input, and {indices._data.ndim} "
                           "dimensions for indices")
    _same_device(a, indices)
    a_sizes = list(a._data.shape)
    a_sizes[d] = indices._data.shape[d]
    shape = list(broadcast_shape(tuple(a_sizes), indices._data.shape))
    if tuple(shape) != indices._data.shape:
        indices = indices.expand(shape)
    shape[d] = a._data.shape[d]
    if tuple(shape) != a._data.shape:
        a = a.expand(shape)
    if indices._data.size and nd:
        lo, _ = index_bounds(indices)
        if lo < 0:  # torch counts negative indices from the end here (gather refuses them)
            be = a._device.backend
            size = a._data.shape[d]
            wrapped = be.where(be.lt(indices._data, 0), be.add(indices._data, size), indices._data)
            indices = _make(wrapped, indices._device)
    return gather(a, d, indices)


# ---- lerp, clamp_min, clamp_max ---------------------------------------------------------------------

def _lerp_arrays(be, start, end, w):
    """torch's lerp: start + w * (end - start) for |w| < 0.5, else end - (end - start) * (1 - w)."""
    diff = be.sub(end, start)
    if not hasattr(w, "shape"):
        if abs(w) < 0.5:
            return be.add(start, be.mul(diff, w))
        return be.sub(end, be.mul(diff, 1.0 - w))
    small = be.lt(be.abs(w), 0.5)
    return be.where(small, be.add(start, be.mul(w, diff)), be.sub(end, be.mul(diff, be.sub(1.0, w))))


class Lerp(Builtin):
    _node_name = "LerpBackward0"

    @staticmethod
    def forward(ctx, a, end, weight):
        be = a._device.backend
        wt = isinstance(weight, Tensor)
        out = _lerp_arrays(be, a._data, end._data, weight._data if wt else weight)
        if builtins.any(ctx.needs_input_grad):
            nw = wt and ctx.needs_input_grad[2]
            # start and end only for the weight's gradient (lerp_ overwrites start)
            ctx.save_for_backward(a if nw else None, end if nw else None, weight if wt else None)
            ctx.weight = None if wt else weight
            ctx.shapes = (a._data.shape, end._data.shape, weight._data.shape if wt else ())
        return _make(out, a._device)

    @staticmethod
    def backward(ctx, g):
        a, end, w = ctx.saved_tensors
        na, ne, nw = (tuple(ctx.needs_input_grad) + (False,))[:3]
        w = ctx.weight if w is None else w
        sa, se, sw = ctx.shapes
        return (sum_to(g * (1 - w), sa) if na else None, sum_to(g * w, se) if ne else None,
                sum_to(g * (end - a), sw) if nw else None)


class LerpTensor(Lerp):
    _node_name = "LerpBackward1"


def lerp(a, end, weight):
    _tensor_arg(end, "lerp", "end", 1)
    wt = isinstance(weight, Tensor)
    if not wt and (weight.__class__ is bool or not isinstance(weight, (int, float))):
        if not hasattr(weight, "__float__") or hasattr(weight, "shape") and weight.shape:
            raise TypeError(f"lerp(): argument 'weight' (position 2) must be Tensor or Number, not "
                            f"{typename(type(weight))}")
        weight = float(weight)
    if end._data.dtype != a._data.dtype:
        raise RuntimeError(f"expected dtype {cpp_name(a.dtype)} for `end` but got dtype {cpp_name(end.dtype)}")
    if wt and weight._data.dtype != a._data.dtype:
        if weight._data.ndim:
            raise RuntimeError(f"expected dtype {cpp_name(a.dtype)} for `weight` but got dtype "
                               f"{cpp_name(weight.dtype)}")
        weight = weight.to(a.dtype)  # a 0-d weight takes the inputs' dtype, as in torch
    if not a.is_floating_point():
        kernel = "lerp_kernel_tensor" if wt else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{a.dtype._legacy[:-6]}'")
    _same_device(a, end)
    if wt:
        _same_device(a, weight)
        broadcast_shape(broadcast_shape(a._data.shape, end._data.shape), weight._data.shape)
        return LerpTensor.apply(a, end, weight)
    broadcast_shape(a._data.shape, end._data.shape)
    return Lerp.apply(a, end, float(weight))


def lerp_(a, end, weight):
    other = end if isinstance(end, Tensor) and end._requires_grad else weight
    return inplace(a, lambda t: lerp(t, end, weight), other if isinstance(other, Tensor) else None)


class ClampMin(Clamp):
    _node_name = "ClampMinBackward0"


class ClampMax(Clamp):
    _node_name = "ClampMaxBackward0"


def _clamp_bound(a, bound, name):
    if isinstance(bound, Tensor):
        raise TypeError(f"{name} with a tensor bound is not supported by minigrad; use minigrad.maximum / "
                        "minigrad.minimum")
    if bound is None or bound.__class__ is str or not isinstance(bound, (int, float)) and not hasattr(
            bound, "__float__"):
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"{typename(type(bound))}), but expected one of:\n * (Tensor input, Tensor {name[6:]}, *, "
                        f"Tensor out = None)\n * (Tensor input, Number {name[6:]}, *, Tensor out = None)\n")
    kind = "f" if a._data.dtype.char == "H" else a._data.dtype.kind  # (H: bfloat16)
    if kind != "f" and isinstance(bound, float):
        a = a.to(get_default_dtype())
    elif kind == "b" and bound.__class__ is not bool:
        a = a.to(int64)  # torch: a bool tensor clamped by an integer becomes int64
    return a


def clamp_min(a, min):
    a = _clamp_bound(a, min, "clamp_min")
    return ClampMin.apply(a, min, None)


def clamp_max(a, max):
    a = _clamp_bound(a, max, "clamp_max")
    return ClampMax.apply(a, None, max)


# ---- logical ops, count_nonzero -----------------------------------------------------------------------

def _truth(be, x):
    return x if x.dtype.kind == "b" else be.ne(x, 0)  # nan counts as true, as in torch


def _logical(prim, name):
    def op(a, other, _pos=1):
        _tensor_arg(other, name, "other", _pos)
        _same_device(a, other)
        be = a._device.backend
        try:
            out = getattr(be, prim)(_truth(be, a._data), _truth(be, other._data))
        except ValueError:
            broadcast_shape(a._data.shape, other._data.shape)
            raise
        return _make(out, a._device)
    op.__name__ = op.__qualname__ = name
    return op


logical_and = _logical("mul", "logical_and")      # and of bools (the CUDA backend's and_b8)
logical_or = _logical("maximum", "logical_or")    # or of bools (or_b8)
logical_xor = _logical("ne", "logical_xor")


def logical_not(a):
    be = a._device.backend
    x = a._data
    return _make(be.eq(x, False) if x.dtype.kind == "b" else be.eq(x, 0), a._device)


def count_nonzero(a, dim=None):
    dims = normalize_dims(dim, a._data.ndim, "count_nonzero")
    be = a._device.backend
    return _make(be.sum(be.ne(a._data, 0), dims, False, int64.np), a._device)


# ---- var_mean, std_mean -----------------------------------------------------------------------------

class VarMean(Builtin):
    """(var, mean) as one node; StdMean: (std, mean). The statistic's own op computes it and its
    gradient; the mean's gradient is added."""
    _node_name, _stat = "VarMeanBackward0", Var

    @classmethod
    def forward(cls, ctx, a, dims, correction, keepdim):
        stat = cls._stat.forward(ctx, a, dims, correction, keepdim)
        return stat, _make(a._device.backend.mean(a._data, dims, keepdim), a._device)

    @classmethod
    def backward(cls, ctx, gs, gm):
        a = ctx.saved_tensors[0]
        mean_grad = _expand_back(gm / _count(a._data.shape, ctx.dims), a._data.shape, ctx.dims, ctx.keepdim)
        return cls._stat.backward(ctx, gs)[0] + mean_grad, None, None, None


class StdMean(VarMean):
    _node_name, _stat = "StdMeanBackward0", Std


def _moments(cls, name, input, args, dim, unbiased, keepdim, correction):
    _tensor_arg(input, name, "input", 1)
    if args:
        bound = bind_var_args(args, dim, unbiased, keepdim, _NO)
        if bound is None:
            raise TypeError(f"{name}() received an invalid combination of arguments")
        dim, unbiased, keepdim, _ = bound
    if unbiased is not _NO and correction is not None:
        raise TypeError(f"{name}(): pass either unbiased or correction, not both")
    if correction is None:
        correction = 0 if unbiased is False else 1
    if not input.is_floating_point():
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    dims = normalize_dims(dim, input._data.ndim, name)
    return apply_first(cls, input, dims, correction, keepdim)


def var_mean(input, *args, dim=None, unbiased=_NO, keepdim=False, correction=None):
    return _moments(VarMean, "var_mean", input, args, dim, unbiased, keepdim, correction)


def std_mean(input, *args, dim=None, unbiased=_NO, keepdim=False, correction=None):
    return _moments(StdMean, "std_mean", input, args, dim, unbiased, keepdim, correction)


# ---- in-place unary methods -----------------------------------------------------------------------------

def _inplace_unary(method, keeps_input=False):
    """Tensor.<op>_(): the out-of-place method's result written into the tensor. keeps_input:
    the op saves its input for backward (log, abs), so the old value is kept as a copy."""
    def op(self, *args, **kwargs):
        return inplace(self, lambda t: method(t, *args, **kwargs), keeps_input=keeps_input)
    return op


def _methods_inplace():
    from ..ops import nn_ops
    return {
        "exp_": _inplace_unary(lambda t: unary_float(ew.Exp, t)),
        "log_": _inplace_unary(lambda t: unary_float(ew.Log, t), True),
        "sqrt_": _inplace_unary(lambda t: unary_float(ew.Sqrt, t)),
        "abs_": _inplace_unary(lambda t: apply_unary(ew.Abs, t), True),
        "neg_": _inplace_unary(lambda t: apply_unary(ew.Neg, t)),
        "sigmoid_": _inplace_unary(lambda t: unary_float(ew.Sigmoid, t)),
        "tanh_": _inplace_unary(lambda t: unary_float(ew.Tanh, t)),
        "relu_": _inplace_unary(lambda t: apply_unary(nn_ops.Relu, t)),
        "floor_": _inplace_unary(lambda t: apply_unary(ew.Floor, t)),
        "ceil_": _inplace_unary(lambda t: apply_unary(ew.Ceil, t)),
        "trunc_": _inplace_unary(lambda t: apply_unary(ew.Trunc, t)),
        "round_": _inplace_unary(lambda t, *, decimals=0: round_op(t, decimals)),
        "clamp_min_": _inplace_unary(clamp_min),
        "clamp_max_": _inplace_unary(clamp_max),
        "nan_to_num_": _inplace_unary(nan_to_num),
        "tril_": _inplace_unary(tril),
        "triu_": _inplace_unary(triu),
    }


def _logical_inplace(op):
    """logical_and_ and co: as torch, the values change and the graph does not (a leaf that
    requires grad may take them); the result keeps the tensor's dtype."""
    def method(self, *args):
        check_writable(self)
        result = op(self, *args)
        if result._data.shape != self._data.shape:
            raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                               f"{list(result._data.shape)}")
        self._device.backend.copyto(self._data, result._data)
        self._bump_version()
        return self
    return method


# ---- in-place random fills ------------------------------------------------------------------------------

class Uniform(Overwrite):
    _node_name = "UniformBackward0"


class Normal(Overwrite):
    _node_name = "NormalBackward0"


class Bernoulli(Overwrite):
    _node_name = "BernoulliBackward2"


class BernoulliTensor(Overwrite):
    _node_name = "BernoulliBackward1"


def _require_float(t, kernel):
    if not t.is_floating_point():
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{t.dtype._legacy[:-6]}'")


def _draw(t, kind, generator, dtype=None):
    """Uniform [0, 1) or standard normal draws of t's shape, from generator (on the host) or the
    device's own generator."""
    be = t._device.backend
    dtype = dtype or t._data.dtype
    shape = t._data.shape
    if generator is not None:
        return be.asarray(generator._draw(kind, shape, dtype))
    return be.rand(shape, dtype) if kind == "uniform" else be.randn(shape, dtype)


def _fill_random(t, cls, values):
    src = _make(values, t._device)
    return inplace(t, lambda x: cls.apply(x, src))


def uniform_(t, *args, generator=None, **kwargs):
    bounds = dict(zip(("from", "to"), args))
    for k, v in kwargs.items():
        if k not in ("from", "to") or k in bounds:
            raise TypeError(f"uniform_() got an unexpected keyword argument '{k}'")
        bounds[k] = v
    lo, hi = float(bounds.get("from", 0.0)), float(bounds.get("to", 1.0))
    _require_float(t, "check_uniform_bounds")
    if lo > hi:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={lo:g} > to={hi:g}")
    be = t._device.backend
    return _fill_random(t, Uniform, be.add(be.mul(_draw(t, "uniform", generator), hi - lo), lo))


def normal_(t, mean=0.0, std=1.0, *, generator=None):
    _require_float(t, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    be = t._device.backend
    return _fill_random(t, Normal, be.add(be.mul(_draw(t, "normal", generator), float(std)), float(mean)))


def bernoulli_(t, p=0.5, *, generator=None):
    be = t._device.backend
    if isinstance(p, Tensor):
        _same_device(t, p)
        pd = p._data if p.is_floating_point() else be.astype(p._data, "float64")
        u = _draw(t, "uniform", generator, pd.dtype)
        return _fill_random(t, BernoulliTensor, be.astype(be.lt(u, pd), t._data.dtype))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    u = _draw(t, "uniform", generator, "float64")
    return _fill_random(t, Bernoulli, be.astype(be.lt(u, float(p)), t._data.dtype))


# ---- the Tensor methods and torch.* functions ----------------------------------------------------------

def _function(name, core, arg="input"):
    """torch.<name>(input, ...): core with torch's error for an input that is no tensor."""
    def fn(input, *args, **kwargs):
        _tensor_arg(input, name, arg, 1)
        return core(input, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    return fn


_BOTH = {
    "isnan": isnan, "isinf": isinf, "isfinite": isfinite, "isposinf": isposinf, "isneginf": isneginf,
    "nan_to_num": nan_to_num, "logsumexp": logsumexp, "tril": tril, "triu": triu, "diag": diag,
    "trace": trace, "flip": flip, "narrow": narrow, "unbind": unbind, "movedim": movedim,
    "moveaxis": movedim, "index_select": index_select, "masked_select": masked_select,
    "outer": outer, "ger": lambda a, vec2: outer(a, vec2, "ger"), "gather": gather, "scatter": scatter,
    "scatter_add": scatter_add, "take_along_dim": take_along_dim, "lerp": lerp, "clamp_min": clamp_min,
    "clamp_max": clamp_max, "logical_and": logical_and, "logical_or": logical_or,
    "logical_xor": logical_xor, "logical_not": logical_not, "count_nonzero": count_nonzero,
}

METHODS = dict(_BOTH, scatter_=scatter_, scatter_add_=scatter_add_, lerp_=lerp_, uniform_=uniform_,
               normal_=normal_, bernoulli_=bernoulli_, logical_and_=_logical_inplace(logical_and),
               logical_or_=_logical_inplace(logical_or), logical_xor_=_logical_inplace(logical_xor),
               logical_not_=_logical_inplace(logical_not),
               **_methods_inplace())

FUNCTIONS = {name: _function(name, core) for name, core in _BOTH.items()}
for _name in ("logical_and", "logical_or", "logical_xor"):  # other is the second argument here
    FUNCTIONS[_name] = _function(_name, lambda a, other, _op=_BOTH[_name]: _op(a, other, 2))
FUNCTIONS["var_mean"], FUNCTIONS["std_mean"] = var_mean, std_mean


def install(cls):
    """Put the methods on Tensor (called once by minigrad/tensor_methods.py)."""
    for name, fn in METHODS.items():
        setattr(cls, name, fn)
