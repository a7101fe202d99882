"""torch.scatter_reduce / Tensor.scatter_reduce_ and torch.index_reduce / Tensor.index_reduce_.

The forward is one pass over raw arrays: `sum` and `mean` through the backends' index_add, `prod`,
`amax` and `amin` through their index_reduce (kernels/scatter.cu on CUDA). With
include_self=False the scattered-to positions start from the reduction's identity. The
gradients are torch's formulas (FunctionsManual's scatter_reduce_backward), written in tensor
ops so they differentiate again: `mean` divides by the count, `prod` divides the result by each
factor with torch's handling of zeros, and `amax`/`amin` share the gradient evenly among ties.
index_reduce is scatter_reduce with the index repeated across the source's other dims, under its
own name, checks and messages.
"""
from ..tensor import _make
from .composed import _block, _grid, _grid_shape, _scatter_checks, _tensor_arg
from .elementwise import Builtin
from .inplace import inplace

REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _identity(dtype, reduce):
    """The value a scattered-to position starts from without self: prod's 1, amax's lowest."""
    if reduce == "prod":
        return True if dtype.kind == "b" else 1
    if dtype.kind == "b":
        return reduce == "amin"
    if dtype.kind == "f":
        return float("-inf") if reduce == "amax" else float("inf")
    import numpy as np
    info = np.iinfo(dtype)
    return int(info.min) if reduce == "amax" else int(info.max)


def _reduced(be, x, idx, bounds, vals, reduce, include_self):
    """A copy of x (contiguous) with vals, shaped like the index grid, reduced in at idx."""
    out = be.copy(x)
    flat = out if out.ndim else be.reshape(out, (1,))
    dt = out.dtype
    if not include_self:
        start = 0 if reduce in ("sum", "mean") else _identity(dt, reduce)
        be.setitem(flat, idx, be.full((), start, dt), bounds)
    if reduce in ("prod", "amax", "amin"):
        be.index_reduce(flat, idx, vals, reduce)
        return out
    if dt.kind == "b":  # a logical or, counted in int32 (a mean of bools is refused before)
        added = be.ne(be.index_add(flat.shape, idx, be.astype(vals, "int32"), "int32"), 0)
        return be.reshape(be.maximum(flat, added), x.shape)
    res = be.add(flat, be.index_add(flat.shape, idx, vals, dt))
    if reduce == "mean":
        count = be.index_add(flat.shape, idx, be.ones(vals.shape, dt), dt)
        if include_self:
            count = be.add(count, 1)
        count = be.maximum(count, 1)
        res = be.div(res, count) if dt.kind == "f" else be.floor_divide(res, count)
    return be.reshape(res, x.shape)


def _pad_to(gs, shape):
    """gs, the gradient of src's leading block, in a zero tensor of src's shape."""
    if tuple(gs._data.shape) == tuple(shape):
        return gs
    if not shape:
        return gs.reshape(())
    from .index import SlicePut
    pad = _make(gs._device.backend.zeros(shape, gs._data.dtype), gs._device)
    return SlicePut.apply(pad, gs, tuple(slice(0, n) for n in gs._data.shape), None)


def _backward(g, a, src, out, dim, index, reduce, include_self, need_a, need_src):
    """torch's scatter_reduce_backward in tensor ops: (grad of a, grad of src's leading block)."""
    from .. import creation as F
    from .elementwise import where
    ga = gs = None
    if reduce == "sum":
        ga = g
        gs = g.gather(dim, index) if need_src else None
    elif reduce == "mean":
        n = (F.ones_like(g) if include_self else F.zeros_like(g)).scatter_add(dim, index, F.ones_like(src))
        n = n.masked_fill(n == 0, 1)
        ga = g / n
        gs = g.gather(dim, index) / n.gather(dim, index) if need_src else None
    elif reduce == "prod":
        if need_a:
            masked_a = a.masked_fill(a == 0, 1)
            ga = g * masked_a.scatter_reduce(dim, index, src, "prod", include_self=include_self) / masked_a
        if need_src:
            src_zero = src == 0
            zeros = F.zeros_like(a).scatter_add(dim, index, src_zero.to(a.dtype)).gather(dim, index)
            single = src_zero & (zeros == 1)
            masked_src_result = a.scatter_reduce(dim, index, src.masked_fill(single, 1), "prod",
                                                 include_self=include_self)
            gs = where(single, (g * masked_src_result).gather(dim, index),
                       (g * out).gather(dim, index) / src.masked_fill(src_zero, 1))
    else:  # amax, amin: shared evenly among the elements equal to the result
        value = out.gather(dim, index)
        a_is = a == out
        src_is = src == value
        count = a_is.to(a.dtype).scatter_add(dim, index, src_is.to(a.dtype))
        shared = g / count
        ga = a_is * shared
        gs = src_is * shared.gather(dim, index) if need_src else None
    if need_a and not include_self:
        ga = ga.scatter(dim, index, 0)
    return (ga if need_a else None), gs


class ScatterReduce(Builtin):
    _node_name = "ScatterReduceBackward0"

    @staticmethod
    def forward(ctx, a, src, dim, index, reduce, include_self):
        be = a._device.backend
        idx, bounds = _grid(a, dim, index)
        vals = _block(be, src._data, _grid_shape(idx))
        out = _make(_reduced(be, a._data, idx, bounds, vals, reduce, include_self), a._device)
        ctx.dim, ctx.index, ctx.reduce, ctx.include_self = dim, index, reduce, include_self
        ctx.src_shape = src._data.shape
        ctx.save_for_backward(a, src, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, src, out = ctx.saved_tensors
        na, ns = ctx.needs_input_grad[:2]
        block = src
        ishape = tuple(ctx.index._data.shape)
        if ns and tuple(src._data.shape) != ishape and src._data.ndim:
            block = src[tuple(slice(0, n) for n in ishape)]
        ga, gs = _backward(g, a, block, out, ctx.dim, ctx.index, ctx.reduce, ctx.include_self, na, ns)
        return ga, (_pad_to(gs, ctx.src_shape) if ns else None), None, None, None, None


class IndexReduce(ScatterReduce):
    _node_name = "IndexReduceBackward0"


def _reduce_arg(op, reduce, allowed):
    if not isinstance(reduce, str):
        from .._arg_errors import type_name
        raise TypeError(f"{op}(): argument 'reduce' (position 4) must be str, not {type_name(reduce)}")
    if reduce not in allowed:
        if op == "index_reduce":
            raise RuntimeError(f"{op}(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")


def _no_bool_mean(a, reduce, kernel):
    if reduce == "mean" and a._data.dtype.kind == "b":
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    _tensor_arg(input, "scatter_reduce", "input", 0)
    _tensor_arg(src, "scatter_reduce", "src", 3)
    _reduce_arg("scatter_reduce", reduce, REDUCES)
    d = _scatter_checks("scatter", input, dim, index, src)
    _no_bool_mean(input, reduce, f"scatter_gather_tensor_{input._device.type}_reduce_mean")
    return ScatterReduce.apply(input, src, d, index, reduce, bool(include_self))


def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    return inplace(input, lambda t: scatter_reduce(t, dim, index, src, reduce, include_self=include_self), src)


def _expanded_index(input, dim, index, source, op):
    """index_reduce's checks, and its index as scatter_reduce's: index[i] at position i along
    dim, repeated across source's other dims."""
    from ..tensor import _wrap_dim
    _tensor_arg(index, op, "index", 2)
    _tensor_arg(source, op, "source", 3)
    nd = input._data.ndim
    d = _wrap_dim(dim, nd, op)
    if index._data.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector, but got dim: {index._data.ndim} with type: "
                         f"{index.dtype._legacy[:-6]} and size: {list(index._data.shape)}")
    if index._data.dtype.name not in ("int64", "int32"):
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index but got: {index.dtype._legacy[:-6]}")
    if input._data.dtype != source._data.dtype:
        raise RuntimeError(f"{op}(): self ({input.dtype._legacy[:-6]}) and source ({source.dtype._legacy[:-6]}) "
                           "must have the same scalar type")
    if source._data.ndim != nd or any(s != t for k, (s, t) in enumerate(zip(source._data.shape, input._data.shape))
                                      if k != d):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(input._data.shape)} source.shape = {list(source._data.shape)}")
    n = index._data.size
    src_n = source._data.shape[d] if nd else 1
    if n != src_n:
        raise RuntimeError(f"{op}(): Number of indices ({n}) should be equal to source.size(dim): ({src_n}), "
                           f"for dim: {d}")
    if n:
        from .index import index_bounds
        lo, hi = index_bounds(index)
        size = input._data.shape[d] if nd else 1
        if lo < 0 or hi >= size:
            raise IndexError("index out of range in self")
    if not nd:
        return 0, index.reshape(-1)[:1] if n else index.reshape(-1)
    shape = [1] * nd
    shape[d] = n
    return d, index.reshape(shape).expand(source._data.shape)


_warned = []


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    _tensor_arg(input, "index_reduce", "input", 0)
    _reduce_arg("index_reduce", reduce, REDUCES[1:])
    if not _warned:  # torch warns once per process
        import warnings
        _warned.append(True)
        warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=2)
    d, full = _expanded_index(input, dim, index, source, "index_reduce_")
    _no_bool_mean(input, reduce, "index_func_")
    return IndexReduce.apply(input, source, d, full, reduce, bool(include_self))


def index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    return inplace(input, lambda t: index_reduce(t, dim, index, source, reduce, include_self=include_self), source)


FUNCTIONS = {"scatter_reduce": scatter_reduce, "index_reduce": index_reduce}
METHODS = {"scatter_reduce": scatter_reduce, "scatter_reduce_": scatter_reduce_,
           "index_reduce": index_reduce, "index_reduce_": index_reduce_}


def install(cls):
    for name, fn in METHODS.items():
        setattr(cls, name, fn)

