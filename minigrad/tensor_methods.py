"""The op methods of Tensor (operators, math, reductions, shape, indexing, in-place ops).

Each is a thin call into minigrad/ops, where the op is written once for every backend.
"""
from .autograd.function import apply_unary
from .ops import cumulative as _cum
from .ops import elementwise as ew, reduce as red, linalg, shape as sh, index as ix, join, nn_ops
from .ops import division
from .ops.elementwise import rbinary, compare
from .ops.inplace import inplace, inplace_arith
from . import _arg_errors
from ._arg_errors import ArgTypeError, binds as _binds, call_error as _call_error, given as _given
from .dtypes import dtype as _dtype
from .tensor import Tensor, _make


def _dims_arg(dims):
    """f(2, 3) and f((2, 3)) both pass the sizes (2, 3)."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    return tuple(d.__index__() if hasattr(d, "__index__") else d for d in dims)


# ---- arithmetic operators ---------------------------------------------------------
Tensor.__add__ = Tensor.__radd__ = ew.binary_method(ew.Add)  # commutative: no scalar tensor
Tensor.__sub__ = ew.binary_method(ew.Sub)
Tensor.__rsub__ = lambda self, other: ew.rsub(self, other)
Tensor.__mul__ = Tensor.__rmul__ = ew.binary_method(ew.Mul)
Tensor.__truediv__ = ew.binary_method(ew.Div, True)
Tensor.__rtruediv__ = lambda self, other: ew.rtruediv(self, other)
Tensor.__pow__ = ew.binary_method(ew.Pow, tensor_cls=ew.PowTensor, autocast="pow")


def _rpow(self, other):
    if ew._AUTOCAST_ON[0] and (r := ew._autocast("pow", _rpow, self, other)) is not None:
        return r
    return rbinary(ew.PowScalarBase, self, other)


Tensor.__rpow__ = _rpow
Tensor.__matmul__ = lambda self, other: _matmul_method(self, other)
Tensor.__rmatmul__ = lambda self, other: NotImplemented
Tensor.__neg__ = ew.unary_method(ew.Neg)
Tensor.__pos__ = lambda self: _pos(self)
Tensor.__abs__ = lambda self: apply_unary(ew.Abs, self)
# ~ & | ^ << >> (and their reflected and in-place forms): ops/special.py's bit math, installed below

Tensor.add = lambda self, other, alpha=1: ew.binary_alpha(ew.Add, self, other, alpha, "add")
Tensor.sub = lambda self, other, alpha=1: ew.binary_alpha(ew.Sub, self, other, alpha, "sub")
Tensor.mul = ew.binary_method(ew.Mul, name="mul")  # the operators' NotImplemented is their TypeError
_true_div = ew.binary_method(ew.Div, True, name="div")  # Tensor.div without rounding_mode (below)
_pow = ew.binary_method(ew.Pow, tensor_cls=ew.PowTensor, name="pow", autocast="pow")
Tensor.pow = lambda self, exponent: _pow(self, exponent)  # (torch's name for the operand)
Tensor.matmul = lambda self, other: linalg.matmul(self, other)
Tensor.mm = lambda self, mat2: linalg.mm(self, mat2)
Tensor.bmm = lambda self, mat2: linalg.bmm(self, mat2)
Tensor.mv = lambda self, vec: linalg.mv(self, vec)
Tensor.neg = Tensor.__neg__
Tensor.abs = Tensor.__abs__
Tensor.maximum = lambda self, other: ew.binary(ew.Maximum, self, _tensor_arg(other, "maximum"))
Tensor.minimum = lambda self, other: ew.binary(ew.Minimum, self, _tensor_arg(other, "minimum"))


def _tensor_arg(x, name, position=1):
    """x, the argument 'other' of op name (at position 1 of the method, 2 of the function)."""
    if not isinstance(x, Tensor):
        from ._typename import typename
        raise TypeError(f"{name}(): argument 'other' (position {position}) must be Tensor, not {typename(type(x))}")
    return x


def _matmul_method(a, b):
    """a @ b for a Tensor a. A NumPy array b counts as a tensor of its dtype, the two promoted (as
    torch does for `tensor @ ndarray`); anything else is left to b's __rmatmul__."""
    if isinstance(b, Tensor):
        return linalg.matmul(a, b)
    if not hasattr(b, "__array_interface__"):
        return NotImplemented
    from .creation import tensor
    from .dtypes import promote_types
    b = tensor(b)
    rd = promote_types(a.dtype, b.dtype)
    return linalg.matmul(a.to(rd), b.to(rd))


def _pos(t):
    if t._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return t


# ---- comparisons --------------------------------------------------------------------
for _name, _prim in (("lt", "lt"), ("le", "le"), ("gt", "gt"), ("ge", "ge"), ("eq", "eq"), ("ne", "ne")):
    def _cmp(self, other, _prim=_prim):
        return compare(_prim, self, other)

    def _cmp_method(self, other, _prim=_prim):
        result = compare(_prim, self, other)
        if result is NotImplemented:  # the operator's answer; the method raises torch's TypeError
            raise _call_error(_prim, True, (other,))
        return result
    setattr(Tensor, f"__{_name}__", _cmp)
    setattr(Tensor, _name, _cmp_method)
Tensor.__hash__ = lambda self: id(self)


def _contains(self, element):
    """`element in t`: whether any element of t equals it, as torch's Tensor.__contains__."""
    from numbers import Number
    if isinstance(element, (Tensor, Number)):
        return bool((element == self).any())
    raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")


Tensor.__contains__ = _contains


# ---- unary math ---------------------------------------------------------------------
Tensor.exp = lambda self: ew.unary_float(ew.Exp, self)
Tensor.log = lambda self: ew.unary_float(ew.Log, self)
Tensor.sqrt = lambda self: ew.unary_float(ew.Sqrt, self)
Tensor.reciprocal = lambda self: ew.unary_float(ew.Reciprocal, self)
Tensor.log1p = lambda self: ew.unary_float(ew.Log1p, self)
Tensor.expm1 = lambda self: ew.unary_float(ew.Expm1, self)
Tensor.erf = lambda self: ew.unary_float(ew.Erf, self)
Tensor.sin = lambda self: ew.unary_float(ew.Sin, self)
Tensor.cos = lambda self: ew.unary_float(ew.Cos, self)
Tensor.tanh = lambda self: ew.unary_float(ew.Tanh, self)
Tensor.sigmoid = lambda self: ew.unary_float(ew.Sigmoid, self)
Tensor.relu = ew.unary_method(nn_ops.Relu)  # torch's bool check; a connected create_graph backward
Tensor.sign = lambda self: ew.Sign.apply(self)
Tensor.floor = ew.unary_method(ew.Floor)
Tensor.ceil = ew.unary_method(ew.Ceil)
Tensor.trunc = ew.unary_method(ew.Trunc)
Tensor.fix = Tensor.trunc
Tensor.round = lambda self, *, decimals=0: ew.round_op(self, decimals)
Tensor.frac = ew.unary_method(ew.Frac)
Tensor.square = lambda self: self ** 2  # torch's pow(x, 2): PowBackward0, an int64 square of a bool
Tensor.clamp = lambda self, min=None, max=None: ew.clamp(self, min, max)
Tensor.where = lambda self, condition, other: ew.where(condition, self, other)
Tensor.clip = Tensor.clamp


# ---- reductions -----------------------------------------------------------------------
# Each takes its arguments by position or by keyword, as torch's do, and NumPy's spellings axis=
# and keepdims= (x.sum(axis=0)). The positional ones arrive apart (*args) so that an argument of
# the wrong type gets torch's message for the way it was given (x.sum(1.5): "got (float)",
# x.sum(dim=1.5): "got (dim=float, )"), worked out only then (_arg_errors.call_error). Each
# reduction is made once by a factory for both its forms, the Tensor method (method=True) and
# the function (minigrad.sum(input, ...), in functional.py).
_np = red.numpy_names
_NO = _arg_errors.NOT_GIVEN


def _error_maker(name, method, names, defaults):
    """error(x, args, values, skip, e): torch's TypeError for a call of op `name` (the Tensor method,
    or the function with input x first) with positional args and keyword values of `names`."""
    def error(x, args, values, skip, e=None):
        return _call_error(name, method, args if method else (x,) + args, _given(names, values, defaults, skip), e)
    return error


def _bind_dim_keepdim(args, dim, keepdim, unset):
    """(dim, keepdim) from one or two positional arguments and the keywords; None when a
    positional argument is also given by keyword (dim not `unset`, keepdim not False)."""
    if len(args) == 1 and dim is unset:
        return args[0], keepdim
    if len(args) == 2 and dim is unset and keepdim is False:
        return args
    return None


def _keepdim_error(keepdim):
    return ArgTypeError(f"argument 'keepdim' must be bool, not {_arg_errors.type_name(keepdim)}")


def sum_mean(name, method, unset=None):
    """sum, mean and prod: (dim, keepdim) and a keyword dtype. prod's dim is one int, and not
    given at all for every element: dim=None is an error there (unset=_NO)."""
    fn = getattr(red, name)
    names, defaults = ("dim", "keepdim", "dtype"), (unset, False, None)
    error = _error_maker(name, method, names, defaults)

    def reduce(input, *args, dim=unset, keepdim=False, dtype=None, axis=None, keepdims=None):
        if not method and not isinstance(input, Tensor):
            raise error(input, args, (dim, keepdim, dtype), 0)
        if args:
            bound = _bind_dim_keepdim(args, dim, keepdim, unset)
            if bound is None:
                raise error(input, args, (dim, keepdim, dtype), 0)
            dim, keepdim = bound
        if axis is not None or keepdims is not None:
            dim, keepdim = _np(name, None if dim is _NO else dim, keepdim, axis, keepdims)
            dim = unset if dim is None else dim
        try:
            if keepdim.__class__ is not bool:
                raise _keepdim_error(keepdim)
            if dtype is not None and not isinstance(dtype, _dtype):  # (float16, bfloat16: a subclass)
                raise ArgTypeError(f"argument 'dtype' must be minigrad.dtype, not {_arg_errors.type_name(dtype)}")
            if dim is _NO:
                if keepdim:  # keepdim without dim: torch's parser matches no overload
                    raise ArgTypeError(f"{name}(): argument 'dim' is required with keepdim")
                return fn(input, None, False, dtype=dtype)
            if unset is _NO and dim is None:
                raise ArgTypeError(f"{name}(): argument 'dim' must be int, not NoneType")
            return fn(input, dim, keepdim, dtype=dtype)
        except ArgTypeError as e:
            raise error(input, args, (dim, keepdim, dtype), len(args), e) from None
    reduce.__name__ = reduce.__qualname__ = name
    return reduce


def dim_keepdim(name, method, default_dim=None):
    """amax, amin, argmax, argmin, any, all: (dim, keepdim)."""
    fn = getattr(red, name)
    names, defaults = ("dim", "keepdim"), (default_dim, False)
    error = _error_maker(name, method, names, defaults)

    def reduce(input, *args, dim=default_dim, keepdim=False, axis=None, keepdims=None):
        if not method and not isinstance(input, Tensor):
            raise error(input, args, (dim, keepdim), 0)
        if args:
            bound = _bind_dim_keepdim(args, dim, keepdim, default_dim)
            if bound is None:
                raise error(input, args, (dim, keepdim), 0)
            dim, keepdim = bound
        if axis is not None or keepdims is not None:
            dim, keepdim = _np(name, dim, keepdim, axis, keepdims)
        try:
            if keepdim.__class__ is not bool:
                raise _keepdim_error(keepdim)
            return fn(input, dim, keepdim)
        except ArgTypeError as e:
            raise error(input, args, (dim, keepdim), len(args), e) from None
    reduce.__name__ = reduce.__qualname__ = name
    return reduce


def max_min(name, method):
    """max and min: (dim, keepdim) for values and indices, or a tensor (other) for the
    elementwise extreme, or nothing. torch's take no dim=None, so dim defaults to _NO."""
    fn = getattr(red, name)
    names, defaults = ("dim", "keepdim"), (_NO, False)
    error = _error_maker(name, method, names, defaults)

    def reduce(input, *args, dim=_NO, keepdim=False, other=None, axis=None, keepdims=None):
        if not method and not isinstance(input, Tensor):
            raise error(input, args, (dim, keepdim), 0)
        if args:
            bound = _bind_dim_keepdim(args, dim, keepdim, _NO)
            if bound is None:
                raise error(input, args, (dim, keepdim), 0)
            dim, keepdim = bound
        if axis is not None or keepdims is not None:
            dim, keepdim = _np(name, None if dim is _NO else dim, keepdim, axis, keepdims)
        try:
            if keepdim.__class__ is not bool:
                raise _keepdim_error(keepdim)
            if dim.__class__ is int and other is None:
                return fn(input, dim, keepdim)
            if other is not None:
                return fn(input, None if dim is _NO else dim, keepdim, other=other)
            if dim is _NO:
                return fn(input, None, keepdim)
            if dim is None:
                raise ArgTypeError(f"{name}(): argument 'dim' must be int, not NoneType")
            if isinstance(dim, Tensor) and (len(args) != 1 or keepdim):
                dim = dim.__index__()  # a tensor given as dim (by keyword, or with keepdim) is one
            return fn(input, dim, keepdim)  # a tensor alone, by position, is other
        except ArgTypeError as e:
            raise error(input, args, (dim, keepdim), len(args), e) from None
    reduce.__name__ = reduce.__qualname__ = name
    return reduce


def var_std(name, method):
    fn = getattr(red, name)
    # unbiased defaults to _NO: torch's var and std take no unbiased=None
    names, defaults = ("dim", "unbiased", "keepdim", "correction"), (None, _NO, False, None)
    error = _error_maker(name, method, names, defaults)

    def reduce(input, *args, dim=None, unbiased=_NO, keepdim=False, correction=None, axis=None, keepdims=None):
        if not method and not isinstance(input, Tensor):
            raise error(input, args, (dim, unbiased, keepdim, correction), 0)
        positional_unbiased = False
        if args:
            bound = red.bind_var_args(args, dim, unbiased, keepdim, _NO)
            if bound is None:
                raise error(input, args, (dim, unbiased, keepdim, correction), 0)
            dim, unbiased, keepdim, positional_unbiased = bound
        if axis is not None or keepdims is not None:
            dim, keepdim = _np(name, dim, keepdim, axis, keepdims)
        try:
            if keepdim.__class__ is not bool:
                raise _keepdim_error(keepdim)
            if unbiased is not _NO and unbiased.__class__ is not bool:
                raise ArgTypeError(f"argument 'unbiased' must be bool, not {_arg_errors.type_name(unbiased)}")
            return fn(input, dim, None if unbiased is _NO else unbiased, keepdim, correction=correction)
        except ArgTypeError as e:
            if positional_unbiased:
                raise error(input, args, (dim, _NO, keepdim, correction), 0, e) from None
            raise error(input, args, (dim, unbiased, keepdim, correction), len(args), e) from None
    reduce.__name__ = reduce.__qualname__ = name
    return reduce


def softmax_like(name, method):
    fn = getattr(red, name)
    names, defaults = ("dim", "dtype"), (_NO, None)
    error = _error_maker(name, method, names, defaults)

    def softmax(input, *args, dim=_NO, dtype=None, axis=None):
        if not method and not isinstance(input, Tensor):
            raise error(input, args, (dim, dtype), 0)
        if args:
            if len(args) == 1 and dim is _NO:
                dim = args[0]
            elif len(args) == 2 and dim is _NO and dtype is None:
                dim, dtype = args
            else:
                raise error(input, args, (dim, dtype), 0)
        if axis is not None:
            dim, _ = _np(name, None if dim is _NO else dim, False, axis, None)
        try:
            if dim is _NO:
                raise ArgTypeError(f"{name}() missing required argument 'dim'")
            return fn(input, dim, dtype)
        except ArgTypeError as e:
            raise error(input, args, (dim, dtype), len(args), e) from None
    softmax.__name__ = softmax.__qualname__ = name
    return softmax


Tensor.sum = sum_mean("sum", True)
Tensor.mean = sum_mean("mean", True)
Tensor.prod = sum_mean("prod", True, _NO)
Tensor.max = max_min("max", True)
Tensor.min = max_min("min", True)
Tensor.amax = dim_keepdim("amax", True, ())
Tensor.amin = dim_keepdim("amin", True, ())
Tensor.argmax = dim_keepdim("argmax", True)
Tensor.argmin = dim_keepdim("argmin", True)
Tensor.any = dim_keepdim("any", True)
Tensor.all = dim_keepdim("all", True)
Tensor.var = var_std("var", True)
Tensor.std = var_std("std", True)
Tensor.softmax = softmax_like("softmax", True)
Tensor.log_softmax = softmax_like("log_softmax", True)
Tensor.cumsum, Tensor.cumsum_ = _cum.entry("cumsum", True), _cum.entry("cumsum", True, True)
Tensor.cumprod, Tensor.cumprod_ = _cum.entry("cumprod", True), _cum.entry("cumprod", True, True)
Tensor.cummax, Tensor.cummin = _cum.entry("cummax", True), _cum.entry("cummin", True)


def _norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    try:
        if keepdim.__class__ is not bool:
            raise _keepdim_error(keepdim)
        return red.norm(self, p, dim, keepdim, dtype)
    except ArgTypeError as e:
        if p == "fro" and dim is not None and not isinstance(dim, int) and not hasattr(dim, "__len__"):
            raise TypeError(f"object of type '{type(dim).__name__}' has no len()") from None  # torch's len(dim) <= 2
        # torch's Tensor.norm calls linalg.vector_norm(input, p, [dim] or dim, keepdim, dtype=dtype)
        args = (self, 2 if p in ("fro", None) else p, [dim] if isinstance(dim, int) else dim, keepdim)
        raise _call_error("linalg_vector_norm", False, args, {"dtype": dtype}, e) from None


Tensor.norm = _norm
Tensor.nonzero = lambda self, *, as_tuple=False: ix.nonzero(self, as_tuple)
Tensor.dot = lambda self, tensor: linalg.dot(self, tensor)


def _equal(self, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"equal(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return self._data.shape == other._data.shape and bool((self == other).all())


def _isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if not isinstance(other, Tensor):
        raise TypeError(f"isclose(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if not isinstance(tol, (int, float)) or isinstance(tol, bool):
            from ._arg_errors import type_name
            raise TypeError(f"isclose(): argument '{name}' must be float, not {type_name(tol)}")
        if tol < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tol:g}")
    if self._data.dtype != other._data.dtype:
        raise RuntimeError(f"{self.dtype._legacy[:-6]} did not match {other.dtype._legacy[:-6]}")
    close = self == other  # also equal infinities, whose difference is nan
    if rtol or atol or self.is_floating_point():
        x, y = (self, other) if self.is_floating_point() else (self.double(), other.double())
        a, b = ew.where(close, 0.0, x), ew.where(close, 0.0, y)  # no inf - inf computed
        diff = (a - b).abs()  # infinite (inf against -inf or a finite value): never close
        close = close | (diff.isfinite() & (diff <= atol + rtol * b.abs()))
        if equal_nan and self.is_floating_point():
            close = close | ((self != self) & (other != other))
    return close


Tensor.equal = _equal
Tensor.isclose = _isclose
Tensor.allclose = lambda self, other, rtol=1e-05, atol=1e-08, equal_nan=False: \
    bool(_isclose(self, other, rtol, atol, equal_nan).all())


# ---- shape ----------------------------------------------------------------------------


def _reshape(self, *shape, **kwargs):
    if kwargs:
        return _int_list_method("reshape", "shape", sh.reshape)(self, *shape, **kwargs)
    try:
        return sh.reshape(self, _dims_arg(shape))
    except TypeError:
        sh.int_list("reshape", "shape", shape)  # torch's message for what was wrong
        raise


Tensor.reshape = _reshape
def _view(self, *shape, **kwargs):
    if kwargs:  # view(size=...) or view(dtype=...), torch's keywords for its two overloads
        if shape or len(kwargs) > 1 or not ("size" in kwargs or "dtype" in kwargs):
            raise _call_error("view", True, shape, kwargs)
        shape = (next(iter(kwargs.values())),)
    return sh.view(self, _dims_arg(shape))


Tensor.view = _view


def positional(name, fn, names, required, method):
    """A shape op (either form, as the reductions) whose arguments, names (the first `required`
    of them with no default), come by position or by keyword, as torch's do: fn takes them the
    same way, under the same names. (The hot Tensor methods below are written out, faster.)"""
    squeeze = name in ("squeeze", "squeeze_")  # x.squeeze(0, 1) is x.squeeze((0, 1)); x.squeeze(None) is refused

    def op(input, *args, **kwargs):
        if squeeze and (args or kwargs):
            if (args and args[0] is None) or kwargs.get("dim", 0) is None:
                raise _call_error(name, method, args if method else (input,) + args, kwargs)
            if method and len(args) > 1:
                args = (args,)
        if kwargs or not required <= len(args) <= len(names) or (not method and not isinstance(input, Tensor)):
            if not _binds(args, kwargs, names, required) or (not method and not isinstance(input, Tensor)):
                raise _call_error(name, method, args if method else (input,) + args, kwargs)
        try:
            return fn(input, *args, **kwargs) if kwargs else fn(input, *args)
        except ArgTypeError as e:
            raise _call_error(name, method, args if method else (input,) + args, kwargs, e) from None
    op.__name__ = op.__qualname__ = name
    return op


SHAPE_OPS = {  # name: (op, its arguments, how many are required), for positional()
    "flatten": (sh.flatten, ("start_dim", "end_dim"), 0), "squeeze": (sh.squeeze, ("dim",), 0),
    "unsqueeze": (sh.unsqueeze, ("dim",), 1), "transpose": (sh.transpose, ("dim0", "dim1"), 2),
    "chunk": (join.chunk, ("chunks", "dim"), 1),
}


# The hot shape methods take their arguments positional-only under private names and keyword-
# only under torch's (no *args tuple to build, which costs a call more): what came by position is
# what is not _NO, so an argument of the wrong type still gets torch's message for how it came.
# (Python's own message for too many positional arguments is the one left unlike torch's.)

def _wrong(name, args, e=None, **kwargs):
    """torch's error for the Tensor method name called with the positional arguments args (those
    not _NO) and the keyword arguments kwargs (those not _NO)."""
    return _call_error(name, True, tuple(a for a in args if a is not _NO),
                       {k: v for k, v in kwargs.items() if v is not _NO}, e)


def _unsqueeze(self, dim_=_NO, /, *, dim=_NO):
    if dim_ is not _NO:
        if dim is not _NO:
            raise _wrong("unsqueeze", (dim_,), dim=dim)
        dim = dim_
    elif dim is _NO:
        raise _wrong("unsqueeze", ())
    try:
        return sh.unsqueeze(self, dim)
    except ArgTypeError as e:
        raise _wrong("unsqueeze", (dim_,), e, dim=_NO if dim_ is not _NO else dim) from None


def _squeeze(self, *args, dim=_NO):
    if args:
        if dim is not _NO or args[0] is None:
            raise _wrong("squeeze", args, dim=dim)
        dim = args[0] if len(args) == 1 else args  # x.squeeze(0, 1) is x.squeeze((0, 1))
    elif dim is None:
        raise _wrong("squeeze", args, dim=dim)
    try:
        return sh.squeeze(self, None if dim is _NO else dim)
    except ArgTypeError as e:
        raise _wrong("squeeze", args, e, dim=_NO if args else dim) from None


def _transposing(name, first, second):
    """The general path of transpose(dim0, dim1) and its aliases swapdims and swapaxes(axis0,
    axis1): any mix of positional (d0, d1) and keyword (k0, k1) arguments."""
    def call(self, d0, d1, k0, k1):
        args = tuple(d for d in (d0, d1) if d is not _NO)
        kwargs = {n: k for n, k in ((first, k0), (second, k1)) if k is not _NO}
        if not _binds(args, kwargs, (first, second), 2) or (d0 is _NO and d1 is not _NO):
            raise _call_error(name, True, args, kwargs)
        dims = args + tuple(kwargs[n] for n in (first, second)[len(args):])
        try:
            return sh.transpose(self, *dims)
        except ArgTypeError as e:
            raise _call_error(name, True, args, kwargs, e) from None
    return call


_transpose_call = _transposing("transpose", "dim0", "dim1")
_swapdims_call = _transposing("swapdims", "dim0", "dim1")
_swapaxes_call = _transposing("swapaxes", "axis0", "axis1")


def _dim_pair(name, call):
    """transpose and swapdims: two dims by position on the common path, anything else through
    call (the general binding)."""
    def method(self, d0=_NO, d1=_NO, /, *, dim0=_NO, dim1=_NO):
        if d1 is _NO or dim0 is not _NO or dim1 is not _NO:
            return call(self, d0, d1, dim0, dim1)
        try:
            return sh.transpose(self, d0, d1)
        except ArgTypeError as e:
            raise _call_error(name, True, (d0, d1), {}, e) from None
    return method


_transpose = _dim_pair("transpose", _transpose_call)
_swapdims = _dim_pair("swapdims", _swapdims_call)


def _swapaxes(self, d0=_NO, d1=_NO, /, *, axis0=_NO, axis1=_NO):
    return _swapaxes_call(self, d0, d1, axis0, axis1)


def _flatten(self, start_dim_=_NO, end_dim_=_NO, /, *, start_dim=_NO, end_dim=_NO):
    if start_dim_ is not _NO:
        if start_dim is not _NO or (end_dim_ is not _NO and end_dim is not _NO):
            raise _wrong("flatten", (start_dim_, end_dim_), start_dim=start_dim, end_dim=end_dim)
        start_dim = start_dim_
        if end_dim_ is not _NO:
            end_dim = end_dim_
    try:
        return sh.flatten(self, 0 if start_dim is _NO else start_dim, -1 if end_dim is _NO else end_dim)
    except ArgTypeError as e:
        raise _wrong("flatten", (start_dim_, end_dim_), e, start_dim=_NO if start_dim_ is not _NO else start_dim,
                     end_dim=_NO if end_dim_ is not _NO else end_dim) from None


for _f, _name in ((_unsqueeze, "unsqueeze"), (_flatten, "flatten"), (_transpose, "transpose"),
                  (_swapdims, "swapdims"), (_swapaxes, "swapaxes")):
    _f.__name__ = _f.__qualname__ = _name  # as Python's own errors name them
Tensor.unsqueeze = _unsqueeze
Tensor.squeeze = _squeeze
Tensor.transpose = _transpose
Tensor.swapdims = _swapdims
Tensor.swapaxes = _swapaxes
Tensor.flatten = _flatten
Tensor.chunk = positional("chunk", *SHAPE_OPS["chunk"], True)


def _permute(self, *args, **kwargs):
    """x.permute(1, 0), x.permute((1, 0)), x.permute(dims=(1, 0))."""
    if kwargs or not args:
        if args or list(kwargs) != ["dims"] or not isinstance(kwargs["dims"], (tuple, list)):
            raise _call_error("permute", True, args, kwargs)
        dims = kwargs["dims"]
    else:
        dims = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    try:
        if len(args) > 1 and isinstance(args[0], (tuple, list)):
            raise ArgTypeError("permute(): a tuple of dims, then more")
        return sh.permute(self, dims)
    except ArgTypeError as e:
        raise _call_error("permute", True, args, kwargs, e) from None


def _split(self, split_size, dim=0):
    try:
        return join.split(self, split_size, dim)
    except ArgTypeError as e:  # torch's Tensor.split passes its arguments on by position, to
        # split (an int split_size) or split_with_sizes (anything else)
        op = "split" if isinstance(split_size, int) else "split_with_sizes"
        raise _call_error(op, False, (self, split_size, dim), {}, e) from None


_split.__name__, _split.__qualname__ = "split", "Tensor.split"  # as Python's own errors name it
Tensor.t = lambda self: sh.t(self)
Tensor.T = property(lambda self: sh.permute(self, tuple(range(self._data.ndim))[::-1]))
Tensor.mT = property(sh.mT)
Tensor.mH, Tensor.H, Tensor.adjoint = property(sh.mH), property(sh.H), sh.adjoint
Tensor.permute = _permute


def _int_list_method(op, arg, fn):
    """A Tensor method taking one int[] argument, as x.op(2, 3), x.op((2, 3)) or x.op(arg=(2, 3))."""
    def method(self, *args, **kwargs):
        if kwargs:
            if args or list(kwargs) != [arg]:
                bad = next((k for k in kwargs if k != arg), arg)
                raise TypeError(f"{op}() got an unexpected keyword argument '{bad}'" if bad != arg
                                else f"{op}() got multiple values for argument '{arg}'")
            args = (kwargs[arg],)
        return fn(self, sh.int_list(op, arg, args))
    method.__name__ = method.__qualname__ = op
    return method


Tensor.expand = _int_list_method("expand", "size", sh.expand)
Tensor.repeat = _int_list_method("repeat", "repeats", sh.repeat)
Tensor.tile = _int_list_method("tile", "dims", sh.tile)
from .ops import strided as _strided  # noqa: E402
Tensor.as_strided, Tensor.unfold, Tensor.diagonal = _strided.as_strided, _strided.unfold, _strided.diagonal
Tensor.expand_as = lambda self, other: sh.expand(self, other._data.shape)
Tensor.reshape_as = lambda self, other: sh.reshape(self, other._data.shape)
Tensor.view_as = lambda self, other: sh.view(self, other._data.shape)
Tensor.contiguous = lambda self, *, memory_format=None: sh.contiguous(self, memory_format)
Tensor.clone = lambda self, *, memory_format=None: sh.clone(self, memory_format)


def _is_contiguous(self, *, memory_format=None):
    if memory_format is None:
        return self._device.backend.is_contiguous(self._data)
    from . import memory_formats as mf
    mf.check(memory_format, "is_contiguous")
    if memory_format is mf.preserve_format:  # torch asks the default layout's question
        memory_format = mf.contiguous_format
    return mf.is_contiguous_as(self._data.shape, self.stride(), memory_format)


Tensor.is_contiguous = _is_contiguous
Tensor.split = _split
Tensor.__getitem__ = lambda self, index: ix.getitem(self, index)


def _setitem(self, index, value):
    ix.setitem(self, index, value)


Tensor.__setitem__ = _setitem


# ---- in-place ------------------------------------------------------------------------------
def _alpha_inplace(self, name, cls, other, alpha):
    """add_/sub_ with an alpha: torch checks the result's dtype against self's before alpha
    (after sub's check of bool operands)."""
    if isinstance(other, Tensor):  # torch: the broadcast shape, then sub's bool check, then dtypes
        from .ops.broadcast import broadcast_shape
        broadcast_shape(self._data.shape, other._data.shape)
    if cls is ew.Sub and (ew._is_bool(self) or ew._is_bool(other)):
        raise ew._bool_sub_error(self, other)
    if isinstance(other, Tensor) or (isinstance(other, (int, float)) and other.__class__ is not complex):
        rd = ew.result_type(self, other)
        if rd._category > self.dtype._category:
            raise RuntimeError(f"result type {rd._legacy[:-6]} can't be cast to the desired output type "
                               f"{self.dtype._legacy[:-6]}")
    return inplace_arith(self, name, cls, ew.alpha_operand(cls, self, other, alpha, name + "_"))


def _add_(self, other, alpha=1):
    if alpha == 1 and alpha.__class__ is not bool:
        return inplace_arith(self, "add", ew.Add, other)
    return _alpha_inplace(self, "add", ew.Add, other, alpha)


def _sub_(self, other, alpha=1):
    if alpha == 1 and alpha.__class__ is not bool:
        return inplace_arith(self, "sub", ew.Sub, other)
    return _alpha_inplace(self, "sub", ew.Sub, other, alpha)


Tensor.add_ = _add_
Tensor.sub_ = _sub_
Tensor.mul_ = lambda self, other: inplace_arith(self, "mul", ew.Mul, other)
_true_div_ = lambda self, other: inplace_arith(self, "div", ew.Div, other, True)  # noqa: E731
Tensor.clamp_ = lambda self, min=None, max=None: inplace(self, lambda t: ew.clamp(t, min, max))
Tensor.masked_fill = lambda self, mask, value: ew.masked_fill(self, mask, value)
Tensor.masked_fill_ = lambda self, mask, value: inplace(self, lambda t: ew.masked_fill(t, mask, value, True),
                                                        value if isinstance(value, Tensor) else None)
Tensor.clip_ = Tensor.clamp_
Tensor.__iadd__ = _add_
Tensor.__isub__ = _sub_
Tensor.__imul__ = Tensor.mul_
Tensor.__itruediv__ = _true_div_


def _zero_(self):
    return _fill(self, 0, ew.Zero)


def _fill_(self, value):
    from numbers import Number
    if not isinstance(value, Tensor) and (not isinstance(value, Number) or isinstance(value, complex)):
        raise _call_error("fill_", True, (value,))
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions.")
    return _fill(self, value, ew.FillTensor_ if isinstance(value, Tensor) else ew.FillScalar_)


def _fill(self, value, cls):
    if not isinstance(value, Tensor):
        value = _make(self._device.backend.full((), value, self._data.dtype), self._device)
    src = value.to(self._device)
    return inplace(self, lambda t: cls.apply(t, src), src)


def _copy_(self, src, non_blocking=False):
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
    from .ops.broadcast import broadcast_shape
    moved = src.to(self._device)

    def overwrite(t):  # (the shape checked after inplace's checks of self, as torch orders them)
        shape = broadcast_shape(t._data.shape, src._data.shape)
        if shape != t._data.shape:
            raise RuntimeError(f"output with shape {list(t._data.shape)} doesn't match the broadcast shape "
                               f"{list(shape)}")
        return ew.Overwrite.apply(t, moved)
    return inplace(self, overwrite, moved)


Tensor.zero_ = _zero_
Tensor.fill_ = _fill_
Tensor.copy_ = _copy_


def _type_as(self, other):
    return self.to(other.dtype)


Tensor.type_as = _type_as


def _new_factory(name):
    def new(self, *args, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False, **size):
        from . import creation
        return getattr(creation, name)(*args, dtype=dtype or self.dtype, device=device or self._device,
                                       requires_grad=requires_grad, layout=layout, pin_memory=pin_memory, **size)
    new.__name__ = new.__qualname__ = "new_" + name
    return new


Tensor.new_zeros = _new_factory("zeros")
Tensor.new_ones = _new_factory("ones")
Tensor.new_full = _new_factory("full")
Tensor.new_empty = _new_factory("empty")


def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    from . import creation
    if isinstance(data, Tensor):
        creation.copy_construct_warning("tensor.new_tensor")
    return creation._tensor(data, dtype or self.dtype, device or self._device, requires_grad)


Tensor.new_tensor = new_tensor
del new_tensor


# ---- division with rounding (ops/division.py): //, %, fmod, div's rounding_mode --------------
def _division_method(name, fn):
    """Tensor.floor_divide / remainder / fmod: torch's TypeError for an other of no operand type."""
    def method(self, other):
        result = fn(self, other)
        if result is NotImplemented:
            raise _call_error(name, True, (other,))
        return result
    method.__name__ = name
    return method


def _check_rounding_mode(name, method, args, rounding_mode):
    if rounding_mode is not None and not isinstance(rounding_mode, str):
        raise _call_error(name, method, args, {"rounding_mode": rounding_mode})
    if rounding_mode not in division.ROUNDING_MODES:
        raise division.rounding_mode_error(rounding_mode)


def _div(self, other, *args, rounding_mode=_arg_errors.NOT_GIVEN):
    if args:
        raise _call_error("div", True, (other,) + args, _given(("rounding_mode",), (rounding_mode,),
                                                                (_arg_errors.NOT_GIVEN,)))
    if rounding_mode is _arg_errors.NOT_GIVEN:
        return _true_div(self, other)
    _check_rounding_mode("div", True, (other,), rounding_mode)
    result = division.div_mode(self, other, rounding_mode)
    if result is NotImplemented:
        raise _call_error("div", True, (other,), {"rounding_mode": rounding_mode})
    return result


def _div_(self, other, *, rounding_mode=_arg_errors.NOT_GIVEN):
    if rounding_mode is _arg_errors.NOT_GIVEN:
        return _true_div_(self, other)
    _check_rounding_mode("div_", True, (other,), rounding_mode)
    return _division_inplace(self, "div", lambda t: division.div_mode(t, other, rounding_mode), other)


def _division_inplace(self, name, compute, other):
    from .ops.inplace import _check
    return inplace(self, lambda t: _check(compute(t), name, other), other)


Tensor.floor_divide = _division_method("floor_divide", division.floor_divide)
Tensor.remainder = _division_method("remainder", division.remainder)
Tensor.fmod = _division_method("fmod", division.fmod)
Tensor.div = Tensor.divide = _div
Tensor.true_divide = _true_div
Tensor.__floordiv__ = division.floor_divide
Tensor.__rfloordiv__ = division.rfloordiv
Tensor.__mod__ = division.remainder
Tensor.__rmod__ = division.rmod
Tensor.div_ = Tensor.divide_ = _div_
Tensor.true_divide_ = _true_div_
Tensor.floor_divide_ = lambda self, other: _division_inplace(
    self, "floor_divide", lambda t: division.floor_divide(t, other, True), other)
Tensor.remainder_ = lambda self, other: _division_inplace(
    self, "remainder", lambda t: division.remainder(t, other), other)
Tensor.fmod_ = lambda self, other: _division_inplace(self, "fmod", lambda t: division.fmod(t, other), other)
Tensor.__ifloordiv__ = Tensor.floor_divide_
Tensor.__imod__ = Tensor.remainder_


# ---- ops composed from the primitives (ops/composed.py): isnan, gather, tril, exp_, uniform_, ...
from .ops import composed as _composed  # noqa: E402
_composed.install(Tensor)

# ---- sorting (ops/sort.py): sort, argsort, msort, topk, kthvalue
from .ops import sort as _sort_ops  # noqa: E402
_sort_ops.install(Tensor)

from .ops import unique as _unique  # noqa: E402
Tensor.unique = lambda self, sorted=True, return_inverse=False, return_counts=False, dim=None: _unique.unique(
    self, sorted, return_inverse, return_counts, dim)
Tensor.unique_consecutive = lambda self, return_inverse=False, return_counts=False, dim=None: \
    _unique.unique_consecutive(self, return_inverse, return_counts, dim)
Tensor.bincount = lambda self, weights=None, minlength=0: _unique.bincount(self, weights, minlength)

# ---- the rest of torch's math (ops/math_more.py): tan, atan2, xlogy, roll, addmm, median, quantile, ...
from .ops import math_more as _math_more  # noqa: E402
_math_more.install(Tensor)

# ---- more of torch's tensor API (ops/tensor_extras.py): index_add, addcmul, tensor_split, take, ...
from .ops import tensor_extras as _tensor_extras  # noqa: E402
_tensor_extras.install(Tensor)

# ---- torch.special's functions and the integer bit math (ops/special.py): lgamma, polygamma, igamma,
# frexp, bitwise_and, gcd, the operators & | ^ ~ << >>, ...
from .ops import special as _special  # noqa: E402
_special.install(Tensor)

# ---- orthogonal factorizations (ops/linalg_eig.py): svd, qr, pinverse
from .ops import linalg_eig as _linalg_eig  # noqa: E402
_linalg_eig.install(Tensor)

# ---- LU and Cholesky families (ops/linalg_factor.py): inverse, det, logdet, slogdet, cholesky_solve, ...
from .ops import linalg_factor as _linalg_factor  # noqa: E402
_linalg_factor.install(Tensor)

# ---- in-place shape changes (ops/shape_inplace.py): unsqueeze_, squeeze_, transpose_, t_, as_strided_, resize_
from .ops import shape_inplace as _shape_inplace  # noqa: E402
Tensor.unsqueeze_ = positional("unsqueeze_", _shape_inplace.unsqueeze_, ("dim",), 1, True)
Tensor.squeeze_ = positional("squeeze_", _shape_inplace.squeeze_, ("dim",), 0, True)
Tensor.transpose_ = positional("transpose_", _shape_inplace.transpose_, ("dim0", "dim1"), 2, True)
Tensor.swapdims_ = positional("swapdims_", _shape_inplace.transpose_, ("dim0", "dim1"), 2, True)
Tensor.swapaxes_ = positional("swapaxes_", lambda t, axis0, axis1: _shape_inplace.transpose_(t, axis0, axis1),
                              ("axis0", "axis1"), 2, True)
Tensor.t_ = _shape_inplace.t_
Tensor.as_strided_ = _shape_inplace.as_strided_
Tensor.resize_, Tensor.resize_as_ = _shape_inplace.resize_, _shape_inplace.resize_as_
Tensor.nbytes = property(lambda self: self._data.size * self._data.itemsize)
Tensor.itemsize = property(lambda self: self._data.itemsize)
from .memory_formats import strided as _layout_strided  # noqa: E402
Tensor.layout = property(lambda self: _layout_strided)  # minigrad's only layout: dense, strided
Tensor.is_sparse = Tensor.is_sparse_csr = Tensor.is_quantized = Tensor.is_meta = Tensor.is_mkldnn = False

# ---- scatter-reductions (ops/scatter_reduce.py): scatter_reduce(_), index_reduce(_)
from .ops import scatter_reduce as _scatter_reduce  # noqa: E402
_scatter_reduce.install(Tensor)

# ---- still more of the tensor API (ops/tensor_more.py): fliplr, histogram, vdot, renorm, *_scatter, apply_, ...
from .ops import tensor_more as _tensor_more  # noqa: E402
_tensor_more.install(Tensor)

# ---- sampling (ops/random_ops.py): bernoulli, multinomial, random_, exponential_, geometric_, ...
from .ops import random_ops as _random_ops  # noqa: E402
_random_ops.install(Tensor)

# ---- matrix_exp, geqrf, orgqr, ormqr (ops/linalg_more.py)
from .ops import linalg_more as _linalg_more  # noqa: E402
_linalg_more.install(Tensor)

# ---- the small dtypes' conversions: byte() (uint8), char() (int8), short() (int16), half() (float16)
from . import dtypes as _small_dt  # noqa: E402


def _cast_method(name, d):
    def method(self):
        return self.to(d)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"self.{name}() is self.to(minigrad.{d.name})."
    return method


for _name, _d in (("byte", _small_dt.uint8), ("char", _small_dt.int8), ("short", _small_dt.int16),
                  ("half", _small_dt.float16), ("bfloat16", _small_dt.bfloat16)):
    setattr(Tensor, _name, _cast_method(_name, _d))
