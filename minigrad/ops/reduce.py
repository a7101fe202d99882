"""Reductions over dims: sum, mean, max/min (with indices), amax/amin, argmax/argmin, var/std,
and softmax/log_softmax."""
import builtins
from collections import namedtuple
from numbers import Number

from .._arg_errors import ArgTypeError, dim_type_error, type_name
from ..dtypes import dtype as _dtype, float32, float64, int64, to_dtype as _to_dtype
from ..tensor import Tensor, _make, _wrap_dim, _wrap_dims
from ..autograd.function import apply_first
from .elementwise import Builtin
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies


def normalize_dims(dim, ndim, op=None):
    """dim as given (None, int, tuple/list) -> a sorted tuple of non-negative dims. An empty
    tuple or list means every dim, as in torch's sum, mean, var, std, norm, amax and amin.
    op names the op in torch's TypeError for a dim that is no integer."""
    if dim is None or (dim.__class__ in (tuple, list) and not dim):
        return tuple(range(ndim))
    if isinstance(dim, (tuple, list)):
        try:
            dims = _wrap_dims(dim, ndim)
        except TypeError:
            raise dim_type_error(op, dim) from None
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
        return tuple(sorted(dims)) if ndim else ()
    d = _wrap_dim(dim, ndim, op)  # validates even for 0-d tensors, whose only dims are 0 and -1
    return (d,) if ndim else ()


def numpy_names(name, dim, keepdim, axis, keepdims):
    """NumPy's spellings axis= and keepdims=, which torch accepts for dim= and keepdim=."""
    if axis is not None:
        if dim is not None and dim != ():
            raise TypeError(f"{name}() got an unexpected keyword argument 'axis'")
        dim = axis
    if keepdims is not None:
        if keepdim:
            raise TypeError(f"{name}() got an unexpected keyword argument 'keepdims'")
        keepdim = keepdims
    return dim, keepdim


def _kept_shape(shape, dims):
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _expand_back(g, shape, dims, keepdim):
    """A reduced gradient broadcast back over the input's shape."""
    if not keepdim and dims:
        g = g.reshape(_kept_shape(shape, dims))
    return g.expand(shape)


def _expand_back_array(be, g, shape, dims, keepdim):
    if len(dims) == len(shape):
        return be.full(shape, be.reshape(g, ()), g.dtype)  # a full reduction: a fresh array
    if not keepdim and dims:
        g = be.reshape(g, _kept_shape(shape, dims))
    return be.broadcast_to(g, shape)


def _count(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d]
    return n


class Sum(Builtin):
    _node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype):
        ctx.shape, ctx.dims, ctx.keepdim = a._data.shape, dims, keepdim
        ctx.in_dtype = a.dtype if dtype is not None and dtype is not a.dtype and a.dtype.is_floating_point else None
        be = a._device.backend
        if dtype is None and a._data.dtype.kind in "biu" and a._data.dtype.char != "H":  # (H: bfloat16)
            dtype = int64  # torch sums integers and bools in int64
        out = be.sum(a._data, dims, keepdim, dtype.np if dtype is not None else None)
        return _make(out, a._device)

    @staticmethod
    def backward(ctx, g):
        if ctx.in_dtype is not None:  # a sum computed in dtype=: the gradient in the input's dtype
            g = g.to(ctx.in_dtype)
        return _expand_back(g, ctx.shape, ctx.dims, ctx.keepdim), None, None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        if ctx.in_dtype is not None:
            g = be.astype(g, ctx.in_dtype.np)
        return _expand_back_array(be, g, ctx.shape, ctx.dims, ctx.keepdim), None, None, None


class SumDim(Sum):
    _node_name = "SumBackward1"


def sum(a, dim=None, keepdim=False, *, dtype=None):
    if _AUTOCAST_ON[0] and (r := _autocast("sum", sum, a, dim, keepdim, dtype=dtype)) is not None:
        return r
    dims = normalize_dims(dim, a._data.ndim, "sum")
    if dtype is not None and a._requires_grad:
        check_autograd_dtype(dtype)
    return apply_first(Sum if dim is None else SumDim, a, dims, keepdim, dtype)


def check_autograd_dtype(dtype):
    """torch's error for a reduction of a tensor that requires grad into an integer dtype=."""
    from ..autograd.grad_mode import _grad_enabled
    d = _to_dtype(dtype)
    if not d.is_floating_point and _grad_enabled():
        raise RuntimeError(f"Autograd not support dtype: {d._legacy[:-6]}")


class Prod(Builtin):
    """The product over dims. Its gradient is torch's: g * (out / x) in a slice without zeros; in
    a slice with one zero, the product of the others at the zero and 0 elsewhere; with two or
    more zeros, 0. The raw backward works that out per slice with `where`, with no host sync."""
    _node_name = "ProdBackward0"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        out = _make(a._device.backend.prod(a._data, dims, keepdim), a._device)
        ctx.save_for_backward(a, out)
        ctx.dims, ctx.keepdim = dims, keepdim
        return out

    @staticmethod
    def backward(ctx, g):
        """In Tensor ops, for a double backward: g * (out / x) without zeros (after a host sync,
        as torch's); with zeros, each element's product of the others, as the product over a
        (..., n, n) stack of the slice with that element replaced by 1 (n^2 memory, as only a
        double backward through zeros needs it; torch uses cumulative products)."""
        from .elementwise import where
        a, out = ctx.saved_tensors
        shape, dims, keepdim = a._data.shape, ctx.dims, ctx.keepdim
        if not shape:
            return g, None, None
        g = _expand_back(g, shape, dims, keepdim)
        if not (a == 0).any().item():
            return g * (_expand_back(out, shape, dims, keepdim) / a), None, None
        one_dim = len(dims) == 1 and len(shape) > 1  # torch's prod takes one dim or all of them
        x = a.transpose(dims[0], -1) if one_dim else a.reshape(-1)
        n = x._data.shape[-1]
        i = _arange_along((n,), 0, a)
        stack = where(i.unsqueeze(1) == i, 1.0, x.unsqueeze(-2))  # row k: the slice, its element k as 1
        others = stack.prod(-1)
        others = others.transpose(dims[0], -1) if one_dim else others.reshape(shape)
        return g * others, None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        a, out = ctx.saved_arrays()
        shape, dims, keepdim = a.shape, ctx.dims, ctx.keepdim
        if not shape:
            return g, None, None
        g, out = _expand_back_array(be, g, shape, dims, keepdim), _expand_back_array(be, out, shape, dims, keepdim)
        one, nothing = be.ones((), a.dtype), be.zeros((), a.dtype)
        zero = be.eq(a, 0)
        zeros = be.sum(be.astype(zero, a.dtype), dims, True)
        safe = be.where(zero, one, a)
        alone = be.mul(zero, be.eq(zeros, 1))  # bool * bool: and
        others = be.where(alone, be.mul(g, be.prod(safe, dims, True)), nothing)
        return be.where(be.eq(zeros, 0), be.mul(g, be.div(out, safe)), others), None, None


class ProdDim(Prod):
    _node_name = "ProdBackward1"


def prod(a, dim=None, keepdim=False, *, dtype=None):
    """torch.prod: of every element (dim None), or over one int dim; dtype casts the input first."""
    if _AUTOCAST_ON[0] and (r := _autocast("prod", prod, a, dim, keepdim, dtype=dtype)) is not None:
        return r
    if dim is not None and (dim.__class__ is bool or not hasattr(dim, "__index__")):
        raise ArgTypeError(f"prod(): argument 'dim' must be int, not {type_name(dim)}")
    if dtype is not None:
        if a._requires_grad:
            check_autograd_dtype(dtype)
        a = a.to(dtype)
    dims = normalize_dims(None if dim is None else dim.__index__(), a._data.ndim, "prod")
    out = apply_first(Prod if dim is None else ProdDim, a, dims, keepdim)
    return out if dtype is None or out.dtype is a.dtype else out.to(a.dtype)  # (an int32 dtype= stays int32)


class Mean(Builtin):
    _node_name = "MeanBackward0"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.shape, ctx.dims, ctx.keepdim = a._data.shape, dims, keepdim
        be = a._device.backend
        return _make(be.mean(a._data, dims, keepdim), a._device)  # nan where nothing is averaged

    @staticmethod
    def backward(ctx, g):
        n = _count(ctx.shape, ctx.dims)
        return _expand_back(g / n, ctx.shape, ctx.dims, ctx.keepdim), None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        n = _count(ctx.shape, ctx.dims)
        return _expand_back_array(be, be.div(g, n), ctx.shape, ctx.dims, ctx.keepdim), None, None


class MeanDim(Mean):
    _node_name = "MeanBackward1"


def mean(a, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        d = _to_dtype(dtype)
        if not d.is_floating_point:
            raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be either a floating "
                               f"point or complex dtype. Got: {d._legacy[:-6]}")
        a = a.to(dtype)
    if not a.is_floating_point():
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                           f"point or complex dtype. Got: {a.dtype._legacy[:-6]}")
    dims = normalize_dims(dim, a._data.ndim, "mean")
    return apply_first(Mean if dim is None else MeanDim, a, dims, keepdim)


class Amax(Builtin):
    """max/min over dims; the gradient is shared evenly among tied extremes (torch's amax)."""
    _node_name = "AmaxBackward0"
    _prim = _op = "amax"  # the backend's primitive, and the op named in errors

    @classmethod
    def forward(cls, ctx, a, dims, keepdim):
        be = a._device.backend
        if a._data.size == 0:
            shape = a._data.shape
            if len(dims) == len(shape):
                raise RuntimeError(f"{cls._op}(): Expected reduction dim to be specified for input.numel() == 0. "
                                   "Specify the reduction dim with the 'dim' argument.")
            for d in dims:
                if shape[d] == 0:
                    raise IndexError(f"{cls._prim}(): Expected reduction dim {d} to have non-zero size.")
            # the reduced dims are not empty, so the result is: an empty tensor of the kept shape
            kept = tuple(1 if d in dims else s for d, s in enumerate(shape)) if keepdim else \
                tuple(s for d, s in enumerate(shape) if d not in dims)
            out = _make(be.empty(kept, a._data.dtype), a._device)
        else:
            out = _make(getattr(be, cls._prim)(a._data, dims, keepdim), a._device)
        ctx.save_for_backward(a, out)
        ctx.dims, ctx.keepdim = dims, keepdim
        return out

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        shape = a._data.shape
        hit = (a == _expand_back(out, shape, ctx.dims, ctx.keepdim)).to(g.dtype)
        count = hit.sum(ctx.dims, keepdim=True)
        return _expand_back(g, shape, ctx.dims, ctx.keepdim) * hit / count, None, None


class Amin(Amax):
    _node_name = "AminBackward0"
    _prim = _op = "amin"


class MaxAll(Amax):
    _node_name, _op = "MaxBackward1", "max"


class MinAll(Amin):
    _node_name, _op = "MinBackward1", "min"


def amax(a, dim=(), keepdim=False):
    dims = normalize_dims(dim, a._data.ndim, "amax")
    if a._data.size == 0:
        _empty_dim_as_given(a, dim, dims, "amax")
    return apply_first(Amax, a, dims, keepdim)


def amin(a, dim=(), keepdim=False):
    dims = normalize_dims(dim, a._data.ndim, "amin")
    if a._data.size == 0:
        _empty_dim_as_given(a, dim, dims, "amin")
    return apply_first(Amin, a, dims, keepdim)


def _empty_dim_as_given(a, dim, dims, op):
    """amax/amin's error for an empty reduced dim of a tensor with no elements, which names the
    dim as the caller wrote it (-1, not 1), unlike the other reductions."""
    shape = a._data.shape
    for g in (dim if isinstance(dim, (tuple, list)) else (dim,)):  # (no dim given: Amax's own error)
        if (shape[_wrap_dim(g, len(shape))] if shape else 0) == 0:
            raise IndexError(f"{op}(): Expected reduction dim {int(g)} to have non-zero size.")


class MaxDim(Builtin):
    """max(dim) -> (values, indices); the gradient goes to the index picked."""
    _node_name = "MaxBackward0"
    _prims = ("amax", "argmax")

    @classmethod
    def forward(cls, ctx, a, dim, keepdim):
        be = a._device.backend
        if a._data.ndim and a._data.shape[dim] == 0:
            raise IndexError(f"{cls._prims[0][1:]}(): Expected reduction dim {dim} to have non-zero size.")
        values = _make(getattr(be, cls._prims[0])(a._data, (dim,), keepdim), a._device)
        indices = _make(getattr(be, cls._prims[1])(a._data, dim if a._data.ndim else None, keepdim),
                        a._device)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.shape, ctx.dim, ctx.keepdim = a._data.shape, dim, keepdim
        return values, indices

    @staticmethod
    def backward(ctx, g, _g_indices):
        indices, = ctx.saved_tensors
        shape, dim = ctx.shape, ctx.dim
        if not shape:
            return g, None, None
        if not ctx.keepdim:
            g, indices = g.unsqueeze(dim), indices.unsqueeze(dim)
        positions = _arange_along(shape, dim, indices)
        return (positions == indices).to(g.dtype) * g, None, None


class MinDim(MaxDim):
    _node_name = "MinBackward0"
    _prims = ("amin", "argmin")


def _arange_along(shape, dim, like):
    be = like._device.backend
    view = [1] * len(shape)
    view[dim] = shape[dim]
    return _make(be.reshape(be.arange(0, shape[dim], 1, int64.np), tuple(view)), like._device)


def _return_type(name):
    """torch.return_types.max/min: a (values, indices) named tuple with torch's repr."""
    def __repr__(self):
        return f"minigrad.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"
    return type(name, (namedtuple(name, ["values", "indices"]),), {"__slots__": (), "__repr__": __repr__})


return_types_max = _return_type("max")
return_types_min = _return_type("min")


def _max_min(a, dim, keepdim, other, all_cls, dim_cls, rtype, pairwise):
    if isinstance(dim, Tensor):
        return pairwise(a, dim)
    if other is not None:
        return pairwise(a, other)
    if dim is None:
        if keepdim:
            raise ArgTypeError(f"{rtype.__name__}() with keepdim needs dim")
        return apply_first(all_cls, a, normalize_dims(None, a._data.ndim), False)
    d = _wrap_dim(dim, a._data.ndim, rtype.__name__)
    if not a._data.ndim:  # a 0-d tensor: its value and index 0, of shape () even with keepdim
        return rtype(*apply_first(dim_cls, a.reshape(1), 0, False))
    return rtype(*apply_first(dim_cls, a, d, keepdim))


def max(a, dim=None, keepdim=False, *, other=None):
    from .elementwise import Maximum, binary
    return _max_min(a, dim, keepdim, other, MaxAll, MaxDim, return_types_max,
                    lambda x, y: binary(Maximum, x, y))


def min(a, dim=None, keepdim=False, *, other=None):
    from .elementwise import Minimum, binary
    return _max_min(a, dim, keepdim, other, MinAll, MinDim, return_types_min,
                    lambda x, y: binary(Minimum, x, y))


def argmax(a, dim=None, keepdim=False):
    return _arg(a, dim, keepdim, "argmax")


def argmin(a, dim=None, keepdim=False):
    return _arg(a, dim, keepdim, "argmin")


def _arg(a, dim, keepdim, prim):
    be = a._device.backend
    if a._data.dtype.kind == "b":
        raise RuntimeError(f"{prim}(): does not support bool input")
    if a._data.size == 0:
        if dim is None:
            raise IndexError(f"{prim}(): Expected reduction dim to be specified for input.numel() == 0.")
        d = _wrap_dim(dim, a._data.ndim, prim)
        if not a._data.ndim or a._data.shape[d] == 0:
            raise IndexError(f"{prim}(): Expected reduction dim {d} to have non-zero size.")
    if dim is None:
        out = getattr(be, prim)(be.reshape(a._data, (-1,)), 0, False)
        if keepdim:
            out = be.reshape(out, (1,) * a._data.ndim)
    else:
        d = _wrap_dim(dim, a._data.ndim, prim)
        out = getattr(be, prim)(a._data, d if a._data.ndim else None, keepdim)
    return _make(be.astype(out, int64.np), a._device)


class Var(Builtin):
    _node_name = "VarBackward0"
    _sqrt = False

    @classmethod
    def forward(cls, ctx, a, dims, correction, keepdim):
        out = _make(_variance(a, dims, correction, keepdim, cls._sqrt), a._device)
        ctx.save_for_backward(*((a, out) if cls._sqrt else (a,)))
        ctx.dims, ctx.correction, ctx.keepdim = dims, correction, keepdim
        return out

    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return _var_grad(ctx, a, g), None, None, None


def _variance(a, dims, correction, keepdim, sqrt):
    """var (or std) of a over dims, as torch's CPU kernels compute it: a float32 input is summed
    in double and the result rounded once, at the end."""
    be = a._device.backend
    x = a._data
    narrow = x.dtype == float32.np
    if narrow:
        x = be.astype(x, float64.np)
    n = _count(x.shape, dims)
    mu = be.div(be.sum(x, dims, True), n) if n else x
    centered = be.sub(x, mu)
    out = be.div(be.sum(be.mul(centered, centered), dims, keepdim), builtins.max(n - correction, 0))
    if sqrt:
        out = be.sqrt(out)
    return be.astype(out, float32.np) if narrow else out


def _var_grad(ctx, a, g):
    """The gradient reaching a through var(a) when g reaches the variance: torch's var_backward,
    (2 / dof) * g * (a - mean), in that order."""
    dims = ctx.dims
    dof = _count(a._data.shape, dims) - ctx.correction
    if len(dims) == a._data.ndim and not ctx.keepdim and dof <= 0:
        # 2 / dof is infinite: nan where a is its mean (inf * 0), inf elsewhere (as in torch)
        from .elementwise import where
        return g * where(a == a.mean(), float("nan"), float("inf"))
    scale = 2.0 / dof if dof else float("inf")
    return scale * _expand_back(g, a._data.shape, dims, ctx.keepdim) * (a - a.mean(dims, keepdim=True))


def bind_var_args(args, dim, unbiased, keepdim, unset):
    """The positional arguments of var, std, var_mean and std_mean: (dim, unbiased, keepdim), or
    one bool alone as unbiased (var(True), as in torch); unset is unbiased's default. Returns
    (dim, unbiased, keepdim, whether a bool alone was unbiased), or None when an argument is given
    both ways or there are too many."""
    if len(args) == 1 and args[0].__class__ is bool and dim is None and unbiased is unset:
        return dim, args[0], keepdim, True
    if len(args) > 3 or dim is not None or (len(args) >= 2 and unbiased is not unset) or (
            len(args) == 3 and keepdim is not False):
        return None
    return args[0], args[1] if len(args) >= 2 else unbiased, args[2] if len(args) == 3 else keepdim, False


def _var_args(a, dim, unbiased, keepdim, correction, name):
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    elif unbiased is not None:
        raise ArgTypeError(f"{name}(): either unbiased or correction, not both")  # torch's parser refuses it
    if not a.is_floating_point():
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = normalize_dims(dim, a._data.ndim, name)
    if _count(a._data.shape, dims) - correction <= 0:
        import warnings
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel).", UserWarning, stacklevel=4)
    return dims, correction


def var(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims, correction = _var_args(a, dim, unbiased, keepdim, correction, "var")
    return apply_first(Var, a, dims, correction, keepdim)


class Std(Var):
    _node_name = "StdBackward0"
    _sqrt = True

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        # torch's std_backward: var_backward(g / (2 * std)), 0 where the std is 0 (constant inputs)
        g = (g / (out * 2)).masked_fill(out == 0, 0.0)
        return _var_grad(ctx, a, g), None, None, None


def std(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims, correction = _var_args(a, dim, unbiased, keepdim, correction, "std")
    return apply_first(Std, a, dims, correction, keepdim)


class LogSoftmax(Builtin):
    _node_name = "LogSoftmaxBackward0"

    @staticmethod
    def forward(ctx, a, dim):
        be = a._device.backend
        out = _make(be.log_softmax(a._data, dim) if a._data.size else be.copy(a._data), a._device)
        ctx.save_for_backward(out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, g):
        out, = ctx.saved_tensors
        return g - out.exp() * g.sum(ctx.dim, keepdim=True), None

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.log_softmax_backward(g, ctx.saved_array(), ctx.dim), None


class Softmax(Builtin):
    _node_name = "SoftmaxBackward0"

    @staticmethod
    def forward(ctx, a, dim):
        be = a._device.backend
        out = _make(be.softmax(a._data, dim) if a._data.size else be.copy(a._data), a._device)
        ctx.save_for_backward(out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, g):
        out, = ctx.saved_tensors
        return out * (g - (g * out).sum(ctx.dim, keepdim=True)), None

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.softmax_backward(g, ctx.saved_array(), ctx.dim), None


def _softmax_input(a, dim, dtype, name):
    if dim is None:
        raise ArgTypeError(f"{name}(): argument 'dim' must be int, not NoneType")
    if dtype is not None:
        if not isinstance(dtype, _dtype):
            raise ArgTypeError(f"{name}(): argument 'dtype' must be minigrad.dtype, not {type_name(dtype)}")
        a = a.to(dtype)
    if not a.is_floating_point():
        from .nn_ops import softmax_non_float  # torch's NotImplementedError (an empty tensor passes)
        return softmax_non_float(a, dim, name), None
    return a, _wrap_dim(dim, a._data.ndim, name)


from ..memory_formats import row_major  # noqa: E402


def softmax(a, dim=None, dtype=None):
    if _AUTOCAST_ON[0] and (r := _autocast("softmax", softmax, a, dim, dtype=dtype)) is not None:
        return r
    a, d = _softmax_input(a, dim, dtype, "softmax")
    if d is None:
        return a
    if a._data.ndim == 0:
        return a * 0 + 1
    return row_major(apply_first(Softmax, a, d))  # row-major whatever a's layout, as torch's


def log_softmax(a, dim=None, dtype=None):
    if _AUTOCAST_ON[0] and (r := _autocast("log_softmax", log_softmax, a, dim, dtype=dtype)) is not None:
        return r
    a, d = _softmax_input(a, dim, dtype, "log_softmax")
    if d is None:
        return a
    if a._data.ndim == 0:
        return a * 0
    return row_major(apply_first(LogSoftmax, a, d))  # row-major whatever a's layout, as torch's


def any(a, dim=None, keepdim=False):
    """True where some element along dim is nonzero (not differentiable: a bool tensor)."""
    return _count_test(a, dim, keepdim, "ne", "gt", "any")


def all(a, dim=None, keepdim=False):
    """True where every element along dim is nonzero; an empty reduction is True, as in torch."""
    return _count_test(a, dim, keepdim, "eq", "eq", "all")


def _count_test(a, dim, keepdim, pick, test, name):
    # count the elements picked (nonzero for any, zero for all), then test the count against 0
    be = a._device.backend
    # any/all with dim=() reduce nothing, as in torch
    dims = () if dim.__class__ in (tuple, list) and not dim else normalize_dims(dim, a._data.ndim, name)
    count = be.sum(getattr(be, pick)(a._data, 0), dims, keepdim, int64.np)
    out = getattr(be, test)(count, 0)
    if a._data.dtype.name == "uint8":  # torch answers a uint8 tensor in uint8 (0 or 1)
        out = be.astype(out, a._data.dtype)
    return _make(out, a._device)


class Norm(Builtin):
    """The p-norm over dims (torch.linalg.vector_norm); a zero norm has a zero gradient. p = 0
    counts the nonzero elements (no gradient at all, as in torch), p = -inf is the smallest
    magnitude, and a negative p gives 0 wherever an element is 0."""
    _node_name = "LinalgVectorNormBackward0"

    @staticmethod
    def forward(ctx, a, p, dims, keepdim):
        be = a._device.backend
        x = be.abs(a._data)
        if p == 0:
            out = be.sum(be.ne(a._data, 0), dims, keepdim, a._data.dtype)
        elif p == _INF:
            out = be.amax(x, dims, keepdim)
        elif p == -_INF:
            out = be.amin(x, dims, keepdim)
        elif p == 2:
            out = be.sqrt(be.sum(be.mul(x, x), dims, keepdim))
        elif p == 1:
            out = be.sum(x, dims, keepdim)
        else:
            out = be.pow(be.sum(be.pow(x, p), dims, keepdim), 1.0 / p)
        out = _make(out, a._device)
        ctx.save_for_backward(a, out)
        ctx.p, ctx.dims, ctx.keepdim = p, dims, keepdim
        return out

    @staticmethod
    def backward(ctx, g):
        from .elementwise import where
        a, out = ctx.saved_tensors
        shape, dims, keepdim, p = a._data.shape, ctx.dims, ctx.keepdim, ctx.p
        g, norm = _expand_back(g, shape, dims, keepdim), _expand_back(out, shape, dims, keepdim)
        if p == 0:
            return None, None, None, None
        if p == 1:
            return g * a.sign(), None, None, None
        if p == _INF or p == -_INF:
            hit = ((a.abs() == norm) | (a != a)).to(g.dtype)  # a nan is the norm, as in torch
            return g * a.sign() * hit / hit.sum(dims, keepdim=True), None, None, None
        if p < 1:  # |a|^(p - 1) is infinite at a zero element, whose gradient torch makes 0: sign(0) = 0
            scaled = a.sign() * where(a == 0, 1.0, a.abs()) ** (p - 1)
            return scaled * g * norm ** (1 - p), None, None, None
        # a zero norm means a zero slice: divide by 1 there, so no 0/0 reaches any derivative
        safe = where(norm == 0, 1.0, norm)
        if p == 2:
            return g * a / safe, None, None, None
        return g * a.sign() * a.abs() ** (p - 1) / safe ** (p - 1), None, None, None


def norm(a, p="fro", dim=None, keepdim=False, dtype=None):
    """Tensor.norm / torch.norm for vector norms: p = 'fro' or any number, inf and -inf included."""
    if _AUTOCAST_ON[0] and (r := _autocast("norm", norm, a, p, dim, keepdim, dtype=dtype)) is not None:
        return r
    # the arguments' types first, as torch's parser judges them before anything else
    if not (p is None or isinstance(p, (str, Number)) or (isinstance(p, Tensor) and not p._data.ndim)
            or (type(p).__module__ == "numpy" and not getattr(p, "shape", None))):  # a NumPy scalar
        raise ArgTypeError(f"norm(): argument 'p' must be Number, not {type_name(p)}")
    if p == "fro" and isinstance(dim, (tuple, list)) and len(dim) > 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    dims = normalize_dims(dim, a._data.ndim)
    if not a.is_floating_point():  # the input's own dtype, whatever dtype= asks for (as torch)
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {a.dtype._legacy[:-6]}")
    if dtype is not None:
        if not _to_dtype(dtype).is_floating_point:
            raise RuntimeError("linalg.vector_norm: dtype should be floating point or complex, but got "
                               f"{_to_dtype(dtype)._legacy[:-6]}")
        a = a.to(dtype)
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"norm with p={p!r} is not supported by minigrad (use 'fro' or a number)")
    p = float(p)
    if (p < 0 or p == _INF) and not a._data.size:
        _check_identity(a, p, dim)
    return apply_first(Norm, a, p, dims, keepdim)


_INF = float("inf")


def _check_identity(a, p, dim):
    """torch's error for an empty tensor's norm whose reduction has no value for no elements (the
    max or min of nothing): over the whole tensor, or over a dim of size 0 (named as given)."""
    shown = int(p) if p.is_integer() else p
    if dim is None or (dim.__class__ in (tuple, list) and not dim):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on an empty tensor because the "
                           "operation does not have an identity")
    for d in (dim if isinstance(dim, (tuple, list)) else (dim,)):
        if a._data.shape[_wrap_dim(d, a._data.ndim)] == 0:  # torch's message lacks the space, too
            raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on the dimension {d}because "
                               "this dimension is empty and the operation does not have an identity")
