"""Cumulative ops along one dim: cumsum and cumprod (torch.cumsum, torch.cumprod, their Tensor
methods and in-place forms), with torch's result dtypes, argument errors and gradients."""
from .. import _arg_errors
from .._arg_errors import _is_long
from ..autograd.function import apply_first
from ..autograd.grad_mode import _grad_enabled
from ..dtypes import dtype as _dtype, bool_, int64
from ..tensor import Tensor, _make, _wrap_dim
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies
from .elementwise import Builtin


class Cumsum(Builtin):
    """The inclusive sum along dim (reverse: from the dim's end). Its gradient is the sum the
    other way, torch's reversed cumsum (flip, cumsum, flip: the same additions in the same order)."""
    _node_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx, a, dim, reverse):
        ctx.dim, ctx.reverse = dim, reverse
        return _make(a._device.backend.cumsum(a._data, dim, reverse), a._device)

    @staticmethod
    def backward(ctx, g):
        return apply_first(Cumsum, g, ctx.dim, not ctx.reverse), None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.cumsum(g, ctx.dim, not ctx.reverse), None, None


class Cumprod(Builtin):
    """The inclusive product along dim. Its gradient is torch's: without zeros in the input,
    reversed_cumsum(out * g) / x (after a host sync, as torch's); with zeros, the O(n) formula
    that treats each slice's first zero apart (the elements after it get 0)."""
    _node_name = "CumprodBackward0"

    @staticmethod
    def forward(ctx, a, dim):
        out = _make(a._device.backend.cumprod(a._data, dim), a._device)
        ctx.save_for_backward(a, out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, g):
        """In Tensor ops, for a double backward. With zeros, as torch's differentiable O(n^2)
        formula: element k's gradient is sum over i >= k of g_i times the product of x_j, j <= i,
        j != k, from the cumulative products of an (..., n, n) stack of the slice with its k-th
        element replaced by 1 (n^2 memory, only for a double backward through zeros)."""
        from .elementwise import where
        a, out = ctx.saved_tensors
        dim, shape = ctx.dim, a._data.shape
        if a._data.size <= 1 or shape[dim] == 1:
            return g, None, None
        if not (a == 0).any().item():
            return apply_first(Cumsum, out * g, dim, True) / a, None, None
        last = dim == len(shape) - 1
        x, gt = (a, g) if last else (a.transpose(dim, -1), g.transpose(dim, -1))
        n = shape[dim]
        i = _make(a._device.backend.arange(0, n, 1, int64.np), a._device)
        k = i.unsqueeze(1)
        others = where(k == i, 1.0, x.unsqueeze(-2)).cumprod(-1)  # [.., k, i]: prod_{j <= i, j != k} x_j
        grad = where(i >= k, others * gt.unsqueeze(-2), 0.0).sum(-1)
        return (grad if last else grad.transpose(dim, -1)), None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        a, out = ctx.saved_arrays()
        dim, shape = ctx.dim, a.shape
        if a.size <= 1 or shape[dim] == 1:
            return g, None, None
        zero = be.eq(a, 0)
        if not be.to_numpy(be.amax(zero)).item():
            return be.div(be.cumsum(be.mul(out, g), dim, True), a), None, None
        one, nothing = be.ones((), a.dtype), be.zeros((), a.dtype)
        seen = be.cumsum(zero, dim)  # zeros up to and including each element
        before = be.eq(seen, 0)  # ahead of the slice's first zero: out / x there is finite
        w = be.where(before, be.mul(out, g), nothing)
        grad = be.where(before, be.div(be.cumsum(w, dim, True), be.where(before, a, one)), nothing)
        # the first zero: the product of the elements before it, times the sum over i from it
        # to the next zero of g_i times the product of the elements after it up to i
        span = be.eq(seen, 1)
        first = be.mul(zero, span)  # bool * bool: and
        after = be.mul(span, be.ne(a, 0))  # the one zero in the span is the first
        tail = be.cumprod(be.where(after, a, one), dim)
        s = be.sum(be.mul(tail, be.where(span, g, nothing)), (dim,), True)
        head = be.prod(be.where(before, a, one), (dim,), True)
        return be.where(first, be.mul(s, head), grad), None, None


class Cummax(Builtin):
    """cummax along dim -> (values, indices); the gradient of each output goes to the element at
    its index (torch's zeros().scatter_add_(dim, indices, grad): repeats accumulate)."""
    _node_name = "CummaxBackward0"
    _prim = "cummax"

    @classmethod
    def forward(cls, ctx, a, dim):
        values, indices = getattr(a._device.backend, cls._prim)(a._data, dim)
        values, indices = _make(values, a._device), _make(indices, a._device)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.dim = dim
        return values, indices

    @staticmethod
    def backward(ctx, g, _g_indices):
        from .composed import scatter_add
        indices, = ctx.saved_tensors
        if not g._data.ndim or not g._data.size:
            return g, None
        zeros = _make(g._device.backend.zeros(g._data.shape, g._data.dtype), g._device)
        return scatter_add(zeros, ctx.dim, indices, g), None


class Cummin(Cummax):
    _node_name = "CumminBackward0"
    _prim = "cummin"


def _out_of_place(a, name, dim, dtype=None):
    """cumsum / cumprod out of place: autocast's entry check, then cumulative()."""
    if _AUTOCAST_ON[0] and (r := _autocast(name, _out_of_place, a, name, dim, dtype=dtype)) is not None:
        return r
    return cumulative(name, a, dim, dtype)


def cumulative(name, a, dim, dtype=None):
    """torch.cumsum / torch.cumprod of Tensor a along an int dim; dtype casts the input first.
    Integers and bools give int64 (an integer dtype= its own type, as torch's)."""
    d = _wrap_dim(dim, a._data.ndim, name)
    if dtype is not None:
        if dtype is bool_:
            raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
        if not dtype.is_floating_point and a._requires_grad and _grad_enabled():
            raise RuntimeError(f"Autograd not support dtype: {dtype._legacy[:-6]}")
        if dtype is not a.dtype:
            a = a.to(dtype)
    out = apply_first(Cumsum, a, d, False) if name == "cumsum" else apply_first(Cumprod, a, d)
    return out if dtype is None or out.dtype is dtype else out.to(dtype)


# torch's C++ names of the dtypes, in its message for an in-place call given another dtype
from ..dtypes import _CPP_NAMES as _CNAMES  # noqa: E402  (torch's C++ names: 'long int', 'c10::Half')
_MISSING = object()


def _bind(op, method, self, args, kwargs):
    """(input, dim, dtype) as torch's parser binds the call, or its TypeError for the call."""
    names = ("dim",) if method else ("input", "dim")
    keywords = () if op in ("cummax", "cummin") else ("dtype",)
    if "axis" in kwargs and "dim" not in kwargs:  # NumPy's name, which torch also takes
        kwargs = {("dim" if k == "axis" else k): v for k, v in kwargs.items()}
    if len(args) <= len(names) and all((k in names and names.index(k) >= len(args)) or k in keywords
                                       for k in kwargs):
        bound = dict(zip(names, args), **kwargs)
        x, dim, dtype = (self if method else bound.get("input")), bound.get("dim", _MISSING), bound.get("dtype")
        if (isinstance(x, Tensor) and dim is not _MISSING and _is_long(dim)
                and (dtype is None or dtype.__class__ is _dtype)):
            return x, int(dim), dtype
    raise _arg_errors.call_error(op, method, args, kwargs)


def _extreme_entry(name, method):
    """torch.cummax / torch.cummin, or the Tensor method: a return_types named tuple."""
    from .reduce import _return_type
    cls, result = (Cummax if name == "cummax" else Cummin), _return_type(name)

    def call(*args, **kwargs):
        if method:
            self, args = args[0], args[1:]
        x, dim, _ = _bind(name, method, self if method else None, args, kwargs)
        return result(*apply_first(cls, x, _wrap_dim(dim, x._data.ndim, name)))
    call.__name__ = call.__qualname__ = name
    return call


def entry(name, method, in_place=False):
    """The user's form of cumsum or cumprod: the function (method False), the Tensor method, or
    the in-place Tensor method (in_place), which keeps the tensor's dtype and takes no other."""
    from .inplace import inplace
    if name in ("cummax", "cummin"):
        return _extreme_entry(name, method)
    op = name + "_" if in_place else name

    if method:
        def call(self, *args, **kwargs):
            x, dim, dtype = _bind(op, True, self, args, kwargs)
            if not in_place:
                return _out_of_place(x, name, dim, dtype)
            if dtype is not None and dtype is not x.dtype:
                raise RuntimeError(f"Bad in-place call: input tensor dtype {_CNAMES[x.dtype.name]} and output "
                                   f"tensor dtype {_CNAMES[dtype.name]} should match")
            if x.dtype is bool_:
                raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
            _wrap_dim(dim, x._data.ndim, op)
            # cumprod saves its input for backward: a recorded op gets a copy of the old value
            return inplace(x, lambda t: cumulative(name, t, dim), keeps_input=name == "cumprod")
    else:
        def call(*args, **kwargs):
            x, dim, dtype = _bind(op, False, None, args, kwargs)
            return _out_of_place(x, name, dim, dtype)
    call.__name__ = call.__qualname__ = op
    return call


