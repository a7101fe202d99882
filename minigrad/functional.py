"""The torch.* function forms of the Tensor ops (minigrad.exp(x), minigrad.cat([...]), ...)."""
from numbers import Number as _Number

from . import dtypes as _dt
from .ops import elementwise as _ew, join as _join, linalg as _linalg, nn_ops as _nn_ops, shape as _shape
from .ops import division as _division_ops
from . import tensor_methods as _tm
from ._arg_errors import ArgTypeError as _ArgTypeError, NOT_GIVEN as _NO, binds as _binds, call_error as _call_error
from .tensor import Tensor


def _t(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    return x


def _operand(input, other, name):
    """The input of add, sub, mul or div, which torch also takes as a number (a 0-d tensor that
    promotes as a number does) when other is a tensor: torch.mul(2, x)."""
    if isinstance(input, _Number) and not isinstance(input, complex) and isinstance(other, Tensor):
        return _ew._scalar_tensor(input, other)
    return _t(input, name)


def _other(other, name):
    """add's and sub's other: a tensor or a number (position 2 of the function form)."""
    if not isinstance(other, (Tensor, _Number)) or isinstance(other, complex):
        _no_operand(NotImplemented, name, other)
    return other


def add(input, other, *, alpha=1):
    return _operand(input, other, "add").add(_other(other, "add"), alpha=alpha)


def sub(input, other, *, alpha=1):
    return _operand(input, other, "sub").sub(_other(other, "sub"), alpha=alpha)


def rsub(input, other, *, alpha=1):
    return _ew.rsub_alpha(_t(input, "rsub"), other, alpha)


def _no_operand(result, name, other):
    if result is NotImplemented:
        from ._typename import typename
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {typename(type(other))}")
    return result


def mul(input, other):
    return _no_operand(_operand(input, other, "mul").__mul__(other), "mul", other)


def div(input, other, *args, rounding_mode=_NO):
    if args:
        kwargs = {} if rounding_mode is _NO else {"rounding_mode": rounding_mode}
        raise _call_error("div", False, (input, other) + args, kwargs)
    if rounding_mode is _NO:
        return _no_operand(_operand(input, other, "div").__truediv__(other), "div", other)
    if not isinstance(other, (Tensor, _Number)) or isinstance(other, complex) or not isinstance(
            input, (Tensor, _Number)) or not isinstance(rounding_mode, (str, type(None))):
        raise _call_error("div", False, (input, other), {"rounding_mode": rounding_mode})
    return _operand(input, other, "div").div(other, rounding_mode=rounding_mode)


divide = div


def true_divide(input, other):
    return div(input, other)


def _division(name, fn, number_first=None):
    """torch.floor_divide / remainder / fmod: number_first(other, input) takes a number input
    (torch's remainder(Scalar self, Tensor other); floor_divide takes it as a 0-d tensor)."""
    def function(input, other):
        if isinstance(input, Tensor):
            result = fn(input, other)
        elif number_first and isinstance(other, Tensor) and isinstance(input, _Number) and not isinstance(
                input, complex):
            result = number_first(other, input)
        elif name == "floor_divide" and isinstance(input, _Number) and isinstance(other, _Number) and not (
                isinstance(input, complex) or isinstance(other, complex)):
            from .creation import tensor
            result = fn(tensor(input), other)
        else:
            result = NotImplemented
        if result is NotImplemented:
            raise _call_error(name, False, (input, other))
        return result
    function.__name__ = name
    return function


floor_divide = _division("floor_divide", _division_ops.floor_divide,
                         lambda other, number: _division_ops.floor_divide(_operand(number, other, ""), other))
remainder = _division("remainder", _division_ops.remainder, _division_ops.rmod)
fmod = _division("fmod", _division_ops.fmod)


def pow(*args, **kwargs):
    """pow(input, exponent), by position or keyword; torch's overload for a number base names it
    self (pow(self=2, exponent=t)). (The keywords are kept as given: torch's TypeError lists them
    in the reverse of the call's order.)"""
    if len(args) == 2 and not kwargs:
        input, exponent = args
    else:
        bases = [kwargs[k] for k in ("input", "self") if k in kwargs]
        if (len(args) > 2 or len(bases) + (1 if args else 0) != 1 or ("exponent" in kwargs) == (len(args) == 2)
                or set(kwargs) - {"input", "self", "exponent"}):
            raise _call_error("pow", False, args, kwargs)
        input = args[0] if args else bases[0]
        exponent = args[1] if len(args) == 2 else kwargs["exponent"]
    if isinstance(input, Tensor):
        result = input.__pow__(exponent)
    elif isinstance(exponent, Tensor):
        result = exponent.__rpow__(input)
    else:
        result = NotImplemented
    if result is NotImplemented:
        raise _call_error("pow", False, (input, exponent))
    return result


def _unary(name):
    def fn(input):
        return getattr(_t(input, name), name)()
    fn.__name__ = name
    return fn


neg, abs, exp, log, sqrt = _unary("neg"), _unary("abs"), _unary("exp"), _unary("log"), _unary("sqrt")
reciprocal, log1p, expm1, erf = _unary("reciprocal"), _unary("log1p"), _unary("expm1"), _unary("erf")
sin, cos, tanh, sigmoid = _unary("sin"), _unary("cos"), _unary("tanh"), _unary("sigmoid")


def relu(input):
    return _nn_ops.relu(_t(input, "relu"))  # torch's bool check, and a connected double backward
square = _unary("square")
floor, ceil, trunc, fix, frac = _unary("floor"), _unary("ceil"), _unary("trunc"), _unary("fix"), _unary("frac")
sign = _unary("sign")


def round(input, *, decimals=0):
    return _t(input, "round").round(decimals=decimals)


def clamp(input, min=None, max=None):
    return _ew.clamp(_t(input, "clamp"), min, max)


clip = clamp


def maximum(input, other):
    return _ew.binary(_ew.Maximum, _t(input, "maximum"), _tm._tensor_arg(other, "maximum", 2))


def minimum(input, other):
    return _ew.binary(_ew.Minimum, _t(input, "minimum"), _tm._tensor_arg(other, "minimum", 2))


def where(condition, input=None, other=None):
    if input is None and other is None:  # where(condition) is nonzero(condition, as_tuple=True)
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() received an invalid combination of arguments - got (Tensor, Tensor), but "
                        "expected one of:\n * (Tensor condition)\n * (Tensor condition, Tensor input, "
                        "Tensor other, *, Tensor out = None)")
    return _ew.where(condition, input, other)


def nonzero(input, *, as_tuple=False):
    return _t(input, "nonzero").nonzero(as_tuple=as_tuple)


def masked_fill(input, mask, value):
    return _t(input, "masked_fill").masked_fill(mask, value)


def _cmp(name):
    def fn(input, other):
        if not isinstance(input, Tensor):
            raise _call_error(name, False, (input, other))
        result = getattr(input, f"__{name}__")(other)
        if result is NotImplemented:
            raise _call_error(name, False, (input, other))
        return result
    fn.__name__ = name
    return fn


lt, le, gt, ge, eq, ne = _cmp("lt"), _cmp("le"), _cmp("gt"), _cmp("ge"), _cmp("eq"), _cmp("ne")


# the reductions: made by the factories of their Tensor methods (tensor_methods.py), which give
# an argument of the wrong type torch's message for the function form (got (Tensor, float))
sum, mean = _tm.sum_mean("sum", False), _tm.sum_mean("mean", False)
prod = _tm.sum_mean("prod", False, _tm._NO)
max, min = _tm.max_min("max", False), _tm.max_min("min", False)
amax, amin = _tm.dim_keepdim("amax", False, ()), _tm.dim_keepdim("amin", False, ())
argmax, argmin = _tm.dim_keepdim("argmax", False), _tm.dim_keepdim("argmin", False)
any, all = _tm.dim_keepdim("any", False), _tm.dim_keepdim("all", False)
var, std = _tm.var_std("var", False), _tm.var_std("std", False)
softmax, log_softmax = _tm.softmax_like("softmax", False), _tm.softmax_like("log_softmax", False)
cumsum, cumprod = _tm._cum.entry("cumsum", False), _tm._cum.entry("cumprod", False)
cummax, cummin = _tm._cum.entry("cummax", False), _tm._cum.entry("cummin", False)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    return _t(input, "norm").norm(p, dim, keepdim, dtype)


def equal(input, other):
    return _t(input, "equal").equal(other)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _t(input, "isclose").isclose(other, rtol, atol, equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _t(input, "allclose").allclose(other, rtol, atol, equal_nan)


def matmul(input, other):
    return _linalg.matmul(_t(input, "matmul"), other)


def mm(input, mat2):
    return _linalg.mm(_t(input, "mm"), mat2)


def dot(input, tensor):
    return _linalg.dot(_t(input, "dot"), tensor)


def bmm(input, mat2):
    return _linalg.bmm(_t(input, "bmm"), mat2)


def mv(input, vec):
    if not isinstance(input, Tensor):
        from ._arg_errors import type_name
        raise TypeError(f"mv(): argument 'input' (position 1) must be Tensor, not {type_name(input)}")
    try:
        return _linalg.mv(input, vec)
    except TypeError as e:  # the function form counts input as position 1
        raise TypeError(str(e).replace("(position 1)", "(position 2)")) from None


def reshape(input, shape):
    return _t(input, "reshape").reshape(shape)


def tile(input, dims):
    from .ops import shape as _shape
    if not isinstance(dims, (tuple, list)):
        from ._arg_errors import type_name
        raise TypeError(f"tile(): argument 'dims' (position 2) must be tuple of ints, not {type_name(dims)}")
    return _shape.tile(_t(input, "tile"), _shape.int_list("tile", "dims", (dims,)))


flatten, squeeze, unsqueeze, transpose = (_tm.positional(name, *_tm.SHAPE_OPS[name], False)
                                          for name in ("flatten", "squeeze", "unsqueeze", "transpose"))


def t(input):
    return _t(input, "t").t()


def permute(*args, **kwargs):
    """permute(input, dims), by position or keyword."""
    if not _binds(args, kwargs, ("input", "dims"), 2):
        raise _call_error("permute", False, args, kwargs)
    bound = dict(zip(("input", "dims"), args), **kwargs)
    if not isinstance(bound["input"], Tensor) or not isinstance(bound["dims"], (tuple, list)):
        raise _call_error("permute", False, args, kwargs)
    try:
        return _shape.permute(bound["input"], bound["dims"])
    except _ArgTypeError as e:
        raise _call_error("permute", False, args, kwargs, e) from None


def clone(input, *, memory_format=None):
    return _t(input, "clone").clone(memory_format=memory_format)


def _joining(name, fn):
    """cat, concat, stack: (tensors, dim=0) by position or keyword, and NumPy's axis= for dim."""
    def error(args, skip, tensors, dim, axis=None, e=None):
        kwargs = {k: v for k, v in (("tensors", tensors), ("dim", dim))[skip:] if v is not _NO}
        if axis is not None:
            kwargs["axis"] = axis
        return _call_error(name, False, args, kwargs, e)

    def join(*args, tensors=_NO, dim=_NO, axis=None):
        if len(args) == 2 and tensors is _NO and dim is _NO:
            tensors, dim = args
        elif len(args) == 1 and tensors is _NO:
            tensors = args[0]
        elif args or tensors is _NO:
            raise error(args, 0, tensors, dim, axis)
        if axis is not None:  # as torch's parser: axis names dim when dim is not given
            if dim is not _NO:
                raise error(args, len(args), tensors, dim, axis)
            dim = axis
        if tensors.__class__ is not list and tensors.__class__ is not tuple:
            raise error(args, len(args), tensors, dim)
        try:
            return fn(tensors, 0 if dim is _NO else dim)
        except _ArgTypeError as e:
            raise error(args, len(args), tensors, dim, None, e) from None
    join.__name__ = join.__qualname__ = name
    return join


cat, concat, stack = _joining("cat", _join.cat), _joining("concat", _join.cat), _joining("stack", _join.stack)


def split(tensor, split_size_or_sections, dim=0):
    return _t(tensor, "split").split(split_size_or_sections, dim)


chunk = _tm.positional("chunk", *_tm.SHAPE_OPS["chunk"], False)


def numel(input):
    return _t(input, "numel").numel()


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    return _t(input, "is_floating_point").is_floating_point()


def result_type(tensor1, tensor2):
    for x in (tensor1, tensor2):
        if not isinstance(x, (Tensor, _Number)) or isinstance(x, complex):
            from ._arg_errors import type_name
            raise TypeError(f"result_type(): argument must be Tensor or Number, not {type_name(x)}")
    return _dt.result_type(tensor1, tensor2)


def promote_types(type1, type2):
    for i, x in enumerate((type1, type2)):
        if not isinstance(x, _dt.dtype):
            from ._arg_errors import type_name
            raise TypeError(f"promote_types(): argument 'type{i + 1}' (position {i + 1}) must be minigrad.dtype, "
                            f"not {type_name(x)}")
    return _dt.promote_types(type1, type2)


# ops composed from the primitives (ops/composed.py): isnan, logsumexp, gather, lerp, var_mean, ...
from .ops.composed import FUNCTIONS as _COMPOSED  # noqa: E402
globals().update(_COMPOSED)

# sorting (ops/sort.py): sort, argsort, msort, topk, kthvalue
from .ops.sort import FUNCTIONS as _SORTING  # noqa: E402
globals().update(_SORTING)
