"""torch.special's functions, lgamma/digamma/polygamma/igamma/..., and the integer bit math.

- Float functions with kernels of their own (elementwise.cu's SPECIAL_KERNELS, the NumPy
  backend's numpy_special.py): lgamma, digamma, polygamma, erfc, erfinv, i0, i0e, i1, i1e, ndtri,
  log_ndtr, erfcx, entr; zeta, igamma, igammac, xlog1py, nextafter; frexp. Integer and bool inputs
  are computed in the default float dtype, as torch's (igamma, igammac and nextafter refuse them).
  Gradients are torch's formulas and node names; zeta and igamma's first argument have none, and
  raise torch's "the derivative for ... is not implemented." when backward reaches them.
- Composed: mvlgamma (MvlgammaBackward0), ldexp (LdexpBackward0), ndtr ((1 + erf(x / sqrt 2)) / 2).
- Integer bit math (BIT_KERNELS): bitwise_and/or/xor/not, shifts, gcd, lcm, and the operators
  & | ^ ~ << >> with their in-place forms; floats get torch's NotImplementedError.
"""
import math
from collections import namedtuple
from numbers import Number

from .._typename import typename
from ..autograd.function import apply_unary
from ..dtypes import get_default_dtype, int64
from ..tensor import Tensor, _make
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies
from . import elementwise as ew
from .broadcast import sum_to
from .composed import _inplace_unary
from .inplace import inplace
from .math_more import _legacy, _tensor

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)
_LN2 = math.log(2.0)


def _not_implemented(kernel, t, dtype_of=None):
    return NotImplementedError(f"\"{kernel}_{t._device.type}\" not implemented for '{_legacy(dtype_of or t)}'")


def _float(a):
    return a if a.is_floating_point() else a.to(get_default_dtype())


def _is_number(x):
    return isinstance(x, Number) and not isinstance(x, complex)


def _no_derivative(name):
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


# ---- unary float functions (their own kernels) ----------------------------------------------------

def _unary_cls(node, prim, saves_output, grad):
    base = ew._SavesOutput if saves_output else ew._SavesInput
    return type(node[:-len("Backward0")], (base,), {
        "_node_name": node, "_prim": prim,
        "backward": staticmethod(lambda ctx, g: grad(ctx.saved_tensors[0], g))})


def _i1_grad(x, g, scaled):
    """torch's i1_backward / i1e_backward: 1/2 where |x| <= eps (the limit at 0)."""
    eps = 1.1920928955078125e-07 if x.dtype.itemsize == 4 else 2.220446049250313e-16
    tiny = x.abs() <= eps
    safe = x.masked_fill(tiny, eps)
    if scaled:
        d = i0e(safe) - i1e(safe) * (safe.sign() + safe.reciprocal())
    else:
        d = i0(safe) - i1(safe) / safe
    return g * d.masked_fill(tiny, 0.5)


UNARY = {
    "lgamma": _unary_cls("LgammaBackward0", "lgamma", False, lambda x, g: g * digamma(x)),
    "digamma": _unary_cls("DigammaBackward0", "digamma", False, lambda x, g: g * polygamma(1, x)),
    "erfc": _unary_cls("ErfcBackward0", "erfc", False, lambda x, g: g * ((-x * x).exp() * (-2 / _SQRT_PI))),
    "erfinv": _unary_cls("ErfinvBackward0", "erfinv", True, lambda y, g: g * ((y * y).exp() * (_SQRT_PI / 2))),
    "i0": _unary_cls("I0Backward0", "i0", False, lambda x, g: g * i1(x)),
    "i0e": _unary_cls("SpecialI0EBackward0", "i0e", False, lambda x, g: g * (i1e(x) - x.sign() * i0e(x))),
    "i1": _unary_cls("SpecialI1Backward0", "i1", False, lambda x, g: _i1_grad(x, g, False)),
    "i1e": _unary_cls("SpecialI1EBackward0", "i1e", False, lambda x, g: _i1_grad(x, g, True)),
    "ndtri": _unary_cls("SpecialNdtriBackward0", "ndtri", True,
                        lambda y, g: g * ((y * y / 2).exp() * _SQRT_2PI)),
    "erfcx": _unary_cls("SpecialErfcxBackward0", "erfcx", False,
                        lambda x, g: g * (2 * x * erfcx(x) - 2 / _SQRT_PI)),
    "entr": _unary_cls("SpecialEntrBackward0", "entr", False, lambda x, g: g * -(x.log() + 1)),
}


class LogNdtr(ew._SavesInput):
    """log(ndtr(x)); torch's gradient g exp(-(result + x^2 / 2)) / sqrt(2 pi)."""
    _node_name, _prim = "SpecialLogNdtrBackward0", "log_ndtr"

    @classmethod
    def forward(cls, ctx, a):
        out = _make(a._device.backend.log_ndtr(a._data), a._device)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        return g / _SQRT_2PI * (-(out + x * x / 2)).exp()


UNARY["log_ndtr"] = LogNdtr


def _unary(name):
    cls = UNARY[name]

    def fn(t):
        if _AUTOCAST_ON[0] and (r := _autocast(name, fn, t)) is not None:  # erfinv: float32 on CUDA
            return r
        return apply_unary(cls, _float(t))
    return fn


def lgamma(t):
    return _unary("lgamma")(t)


def digamma(t):
    return _unary("digamma")(t)


def i0(t):
    return _unary("i0")(t)


def i0e(t):
    return _unary("i0e")(t)


def i1(t):
    return _unary("i1")(t)


def i1e(t):
    return _unary("i1e")(t)


def erfcx(t):
    return _unary("erfcx")(t)


class Polygamma(ew.Builtin):
    _node_name = "PolygammaBackward0"

    @staticmethod
    def forward(ctx, a, n):
        ctx.n = n
        ctx.save_for_backward(a)
        return _make(a._device.backend.polygamma(a._data, n), a._device)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * polygamma(ctx.n + 1, x), None


def _check_n(n, op="polygamma", pos=1):
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(f"{op}(): argument 'n' (position {pos}) must be int, not {typename(type(n))}")
    n = n.__index__()
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return n


def polygamma(n, input):
    n = _check_n(n)
    return Polygamma.apply(_float(_tensor(input, "polygamma", pos=2)), n)


class Mvlgamma(ew.Builtin):
    """sum_j lgamma(x - j/2) + p(p-1)/4 log(pi); the gradient g sum_j digamma(x - j/2)."""
    _node_name = "MvlgammaBackward0"

    @staticmethod
    def forward(ctx, a, p):
        ctx.p = p
        ctx.save_for_backward(a)
        be = a._device.backend
        total = be.full(a._data.shape, p * (p - 1) / 4 * math.log(math.pi), a._data.dtype)
        for j in range(p):
            total = be.add(total, be.lgamma(be.sub(a._data, j / 2)))
        return _make(total, a._device)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        total = digamma(x)
        for j in range(1, ctx.p):
            total = total + digamma(x - j / 2)
        return g * total, None


def mvlgamma(input, p, _op="mvlgamma"):
    t = _float(_tensor(input, _op))
    if isinstance(p, bool) or not hasattr(p, "__index__"):
        raise TypeError(f"{_op}(): argument 'p' (position 2) must be int, not {typename(type(p))}")
    p = p.__index__()
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return Mvlgamma.apply(t, p)


# ---- binary float functions (their own kernels) ---------------------------------------------------

class _Binary(ew.Builtin):
    """a (op) b for a Tensor a and a Tensor-or-number b already of one float dtype."""
    _prim = None

    @classmethod
    def forward(cls, ctx, a, b):
        out = ew._apply_binary(getattr(a._device.backend, cls._prim), a, b)
        if ctx.needs_input_grad and any(ctx.needs_input_grad):
            ctx.shapes = (a._data.shape, ew._shape(b))
            ctx.b_number = None if isinstance(b, Tensor) else b
            ctx.save_for_backward(a, *((b,) if isinstance(b, Tensor) else ()))
        return out

    @classmethod
    def backward(cls, ctx, g):
        saved = ctx.saved_tensors
        a = saved[0]
        b = saved[1] if ctx.b_number is None else ctx.b_number
        na, nb = ctx.needs_input_grad
        ga, gb = cls.grads(a, b, g, na, nb)
        return (sum_to(ga, ctx.shapes[0]) if na else None), (sum_to(gb, ctx.shapes[1]) if nb else None)


def _binary_cls(node, prim, grads):
    return type(node[:-len("Backward0")], (_Binary,), {"_node_name": node, "_prim": prim,
                                                        "grads": staticmethod(grads)})


def _zeta_grads(a, b, g, na, nb):
    """torch has no derivative in x; in q, d zeta(x, q) / dq = -x * zeta(x + 1, q)."""
    if na:
        _no_derivative("zeta")
    return None, g * -a * binary("zeta", a + 1, b)


def _zeta_int_x_grads(a, b, g, na, nb):
    """zeta's gradient in q for an integer x: torch forms x + 1. from the integers, in the default
    float dtype, which a 0-d q then does not widen."""
    if na:
        _no_derivative("zeta")
    x = a.to(int64)
    return None, g * -x * binary("zeta", x + 1.0, b)


def _nextafter_grads(a, b, g, na, nb):
    """torch's: the step is treated as locally constant, g for input and zeros for other."""
    return g, (g * 0 if nb else None)


def _igamma_grads(sign, name):
    def grads(a, x, g, na, nb):
        if na:
            _no_derivative(f"{name}: input")
        return None, g * ((a - 1) * x.log() - x - lgamma(a)).exp() * sign
    return grads


def _xlog1py_grads(a, b, g, na, nb):
    ga = gb = None
    if na:
        bt = b if isinstance(b, Tensor) else ew._scalar_tensor(b, g).to(g.dtype)
        ga = xlog1py(g, bt).masked_fill((a == 0) & (bt <= -1), 0)
    if nb:
        gb = g * a / (b + 1)
    return ga, gb


BINARY = {
    "zeta": _binary_cls("SpecialZetaBackward0", "zeta", _zeta_grads),
    "igamma": _binary_cls("IgammaBackward0", "igamma", _igamma_grads(1, "igamma")),
    "igammac": _binary_cls("IgammacBackward0", "igammac", _igamma_grads(-1, "igammac")),
    "xlog1py": _binary_cls("SpecialXlog1PyBackward0", "xlog1py", _xlog1py_grads),
    "nextafter": _binary_cls("NextafterBackward0", "nextafter", _nextafter_grads),
}
# torch's nodes for a number as the first (Backward1) or the second (Backward2) argument
_SCALAR_SELF = {n: type(c.__name__ + "1", (c,), {"_node_name": c._node_name[:-1] + "1"})
                for n, c in BINARY.items() if n in ("zeta", "xlog1py")}
_SCALAR_OTHER = {n: type(c.__name__ + "2", (c,), {"_node_name": c._node_name[:-1] + "2"})
                 for n, c in BINARY.items() if n in ("zeta", "xlog1py")}
_NO_INTEGERS = ("igamma", "igammac", "nextafter")   # torch's kernels refuse integers and bools


def _call_error(name, method, args):
    from .._arg_errors import call_error
    return call_error(name, method, args)


def binary(name, input, other, method=False, shown=None):
    """torch.<name>(input, other) (shown: the name in torch's errors, special_zeta); zeta and
    xlog1py take a number on either side, the others two Tensors."""
    shown = shown or name
    cls = BINARY[name]
    if name in _SCALAR_SELF and not isinstance(input, Tensor):
        if not _is_number(input) or not isinstance(other, Tensor):
            raise TypeError(f"{shown}(): argument 'input' (position 1) must be Tensor, not {typename(type(input))}")
        a, b = ew._operands(other, input, True)
        return ew.binary(_SCALAR_SELF[name], ew._scalar_tensor(b, a).to(a.dtype), a, True)
    _tensor(input, shown)
    if not isinstance(other, Tensor):
        if name in _SCALAR_OTHER and _is_number(other):
            a, b = ew._operands(input, other, True)
            return ew.apply_binary(_SCALAR_OTHER[name], a, float(b))
        raise TypeError(f"{shown}(): argument 'other' (position {1 if method else 2}) must be Tensor, "
                        f"not {typename(type(other))}")
    if name in _NO_INTEGERS:
        a, b = ew._operands(input, other)
        if not a.is_floating_point():
            raise _not_implemented(name, a)
        return ew.binary(cls, a, b)
    if name == "zeta" and input._data.dtype.kind in "iub":
        cls = _ZETA_BOOL_X if input._data.dtype.kind == "b" else _ZETA_INT_X
    return ew.binary(cls, input, other, True)


def _zeta_bool_x_grads(a, b, g, na, nb):
    raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                       "invert a mask, use the `~` or `logical_not()` operator instead.")  # torch's -x


_ZETA_INT_X = _binary_cls("SpecialZetaBackward0", "zeta", _zeta_int_x_grads)
_ZETA_BOOL_X = _binary_cls("SpecialZetaBackward0", "zeta", _zeta_bool_x_grads)


def xlog1py(input, other):
    return binary("xlog1py", input, other, shown="special_xlog1py")


class Ldexp(ew.Builtin):
    """input * 2^other: g 2^other for input, g input 2^other ln 2 for a float other (torch's)."""
    _node_name = "LdexpBackward0"

    @staticmethod
    def forward(ctx, a, e):
        be = a._device.backend
        scale = be.exp2(e._data)
        ctx.shapes = (a._data.shape, e._data.shape)
        ctx.save_for_backward(a, e)
        return _make(be.mul(a._data, scale), a._device)

    @staticmethod
    def backward(ctx, g):
        a, e = ctx.saved_tensors
        na, nb = ctx.needs_input_grad
        scale = e.exp2()
        ga = sum_to(g * scale, ctx.shapes[0]) if na else None
        gb = sum_to(g * a * scale * _LN2, ctx.shapes[1]) if nb else None
        return ga, gb


def ldexp(input, other, method=False):
    _tensor(input, "ldexp")
    _tensor(other, "ldexp", "other", 1 if method else 2)
    a, e = ew._operands(input, other, True)
    return ew.binary(Ldexp, a, e)


class Frexp(ew.Builtin):
    """(mantissa, exponent); the mantissa's gradient g / 2^exponent, the exponent has none."""
    _node_name = "FrexpBackward0"

    @staticmethod
    def forward(ctx, a):
        m, e = a._device.backend.frexp(a._data)
        exponent = _make(e, a._device)
        ctx.save_for_backward(exponent)
        ctx.mark_non_differentiable(exponent)
        return _make(m, a._device), exponent

    @staticmethod
    def backward(ctx, gm, ge):
        e, = ctx.saved_tensors
        return gm / e.to(gm.dtype).exp2()


return_types_frexp = namedtuple("frexp", ["mantissa", "exponent"])
return_types_frexp.__module__ = "torch.return_types"


def frexp(input):
    _tensor(input, "frexp")
    if not input.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    if input._requires_grad:
        m, e = Frexp.apply(input)
    else:
        be = input._device.backend
        m, e = (_make(x, input._device) for x in be.frexp(input._data))
    return return_types_frexp(m, e)


def ndtr(input):
    """(1 + erf(x / sqrt 2)) / 2, composed as torch's."""
    from .tensor_more import _mul_scalar  # (torch's Scalar overload: MulBackward1)
    t = _float(_tensor(input, "special_ndtr"))
    return _mul_scalar(1 + (t * (1 / math.sqrt(2))).erf(), 0.5)


# ---- the integer bit math -------------------------------------------------------------------------

_KERNEL = {"bitwise_left_shift": "lshift", "bitwise_right_shift": "rshift"}
_BOOL_OK = ("bitwise_and", "bitwise_or", "bitwise_xor")
_NUMBERS_OK = _BOOL_OK + ("bitwise_left_shift", "bitwise_right_shift")


def _bit(name, a, b):
    """name(a, b) for a Tensor a and a Tensor-or-number b: no graph, torch's result dtype, torch's
    NotImplementedError for floats (and bools, for shifts, gcd and lcm)."""
    ops = ew._operands(a, b)
    if ops is None:
        return NotImplemented
    x, y = ops
    kind = "f" if x._data.dtype.char == "H" else x._data.dtype.kind  # (H: bfloat16)
    if kind == "f" or (kind == "b" and name not in _BOOL_OK):
        raise _not_implemented(_KERNEL.get(name, name), x)
    if isinstance(y, Tensor):
        y = y._data
    elif kind == "b":
        y = bool(y)
    be = x._device.backend
    try:
        return _make(getattr(be, name)(x._data, y), x._device)
    except ValueError:
        ew._shape_error(x, ops[1])


def bitwise(name, input, other, method=False):
    """torch.<name>(input, other): a number on either side for the bitwise ops, Tensors for gcd
    and lcm."""
    if not isinstance(input, Tensor):
        if name in _NUMBERS_OK and _is_number(input) and isinstance(other, Tensor):
            return _bit(name, ew._scalar_tensor(input, other), other)
        if name not in _NUMBERS_OK:
            _tensor(input, name)
        raise _call_error(name, False, (input, other))
    if not isinstance(other, Tensor) and (name not in _NUMBERS_OK or not _is_number(other)):
        if name in _NUMBERS_OK:
            raise _call_error(name, method, (other,) if method else (input, other))
        raise TypeError(f"{name}(): argument 'other' (position {1 if method else 2}) must be Tensor, "
                        f"not {typename(type(other))}")
    return _bit(name, input, other)


def bitwise_not(input):
    _tensor(input, "bitwise_not")
    kind = "f" if input._data.dtype.char == "H" else input._data.dtype.kind  # (H: bfloat16)
    if kind == "f":
        raise _not_implemented("bitwise_not", input)
    return _make(input._device.backend.bitwise_not(input._data), input._device)


def _invert(t):
    if t.is_floating_point():
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(t)


def _operator(name, reflected=False):
    def op(self, other):
        if not (isinstance(other, Tensor) or _is_number(other)):
            return NotImplemented
        if reflected:
            return _bit(name, ew._scalar_tensor(other, self), self)
        return _bit(name, self, other)
    return op


def _inplace_operator(name):
    def op(self, other):
        if not (isinstance(other, Tensor) or _is_number(other)):
            return NotImplemented
        return inplace(self, lambda t: _bit(name, t, other), other)
    return op


# ---- the Tensor methods, torch.* and torch.special functions --------------------------------------

def _methods():
    m = {}
    for name, cls in UNARY.items():
        if name in ("lgamma", "digamma", "erfc", "erfinv", "i0"):
            fn = _unary(name)
            m[name] = fn
            m[name + "_"] = _inplace_unary(fn, keeps_input=not issubclass(cls, ew._SavesOutput))
    m.update({
        "polygamma": lambda self, n: polygamma(_check_n(n, pos=1), self),
        "polygamma_": _inplace_unary(lambda t, n: polygamma(_check_n(n, pos=1), t), keeps_input=True),
        "mvlgamma": lambda self, p: mvlgamma(self, p),
        "mvlgamma_": _inplace_unary(lambda t, p: mvlgamma(t, p), keeps_input=True),
        "frexp": frexp,
        "ldexp": lambda self, other: ldexp(self, other, True),
        "ldexp_": lambda self, other: _ldexp_inplace(self, other),
        "bitwise_not": bitwise_not,
        "bitwise_not_": lambda self: inplace(self, bitwise_not),
        "__invert__": _invert,
    })
    for name in ("igamma", "igammac", "nextafter"):
        m[name] = lambda self, other, _n=name: binary(_n, self, other, True)
        m[name + "_"] = lambda self, other, _n=name: inplace(
            self, lambda t: binary(_n, t, _tensor(other, _n + "_", "other", 1), True), other)
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
                 "gcd", "lcm"):
        m[name] = lambda self, other, _n=name: bitwise(_n, self, other, True)
        m[name + "_"] = lambda self, other, _n=name: _bit_inplace(_n, self, other)
    for op, name in (("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
                     ("lshift", "bitwise_left_shift"), ("rshift", "bitwise_right_shift")):
        m[f"__{op}__"] = _operator(name)
        m[f"__r{op}__"] = _operator(name, True)
        m[f"__i{op}__"] = _inplace_operator(name)
    return m


def _bit_inplace(name, self, other):
    if not isinstance(other, Tensor) and (name not in _NUMBERS_OK or not _is_number(other)):
        raise TypeError(f"{name}_(): argument 'other' (position 1) must be Tensor, not {typename(type(other))}")
    return inplace(self, lambda t: _bit(name, t, other), other)


def _ldexp_inplace(self, other):
    _tensor(other, "ldexp_", "other", 1)
    if not self.is_floating_point():
        raise RuntimeError(f"ldexp can't be cast to the desired output type {_legacy(self)}")
    return inplace(self, lambda t: ldexp(t, other, True), other, keeps_input=True)


METHODS = _methods()


def _unary_function(name, shown):
    def fn(input):
        return _unary(name)(_tensor(input, shown))
    fn.__name__ = fn.__qualname__ = name
    return fn


FUNCTIONS = {name: _unary_function(name, name) for name in ("lgamma", "digamma", "erfc", "erfinv", "i0")}
FUNCTIONS.update({
    "polygamma": polygamma, "mvlgamma": mvlgamma, "frexp": frexp, "ldexp": ldexp,
    "igamma": lambda input, other: binary("igamma", input, other),
    "igammac": lambda input, other: binary("igammac", input, other),
    "nextafter": lambda input, other: binary("nextafter", input, other),
    "bitwise_not": bitwise_not,
})
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm"):
    FUNCTIONS[_name] = (lambda _n: lambda input, other: bitwise(_n, input, other))(_name)
for _name, _fn in FUNCTIONS.items():
    if _fn.__name__ == "<lambda>":
        _fn.__name__ = _fn.__qualname__ = _name


def special_functions():
    """torch.special's own functions (the namespace module adds the shared ones)."""
    fns = {name: _unary_function(name, "special_" + name)
           for name in ("erfc", "erfinv", "i0", "i0e", "i1", "i1e", "ndtri", "log_ndtr", "erfcx", "entr",
                        "digamma")}
    fns["gammaln"] = _unary_function("lgamma", "special_gammaln")
    fns["psi"] = _unary_function("digamma", "special_psi")
    fns["polygamma"] = polygamma
    fns["multigammaln"] = lambda input, p: mvlgamma(input, p, "special_multigammaln")
    fns["ndtr"] = ndtr
    fns["xlog1py"] = xlog1py
    fns["zeta"] = lambda input, other: binary("zeta", input, other, shown="special_zeta")
    fns["gammainc"] = lambda input, other: binary("igamma", input, other, shown="special_gammainc")
    fns["gammaincc"] = lambda input, other: binary("igammac", input, other, shown="special_gammaincc")
    for name, fn in fns.items():
        fn.__name__ = fn.__qualname__ = name
    return fns


def install(cls):
    """Put the methods on Tensor (called once by minigrad/tensor_methods.py)."""
    for name, fn in METHODS.items():
        setattr(cls, name, fn)



# ---- more of torch.special: Bessel and Airy functions, the orthogonal polynomials -----------------
# Backend primitives of their own (elementwise.cu's SPECIAL_MORE_KERNELS, numpy_special.py), in the
# float dtype of the input as torch's kernels (integer and bool inputs in the default float dtype;
# float16 gets torch's NotImplementedError). torch registers no derivative for any of them: their
# results never require grad, whatever the inputs do.

BESSEL = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
          "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
          "spherical_bessel_j0", "airy_ai")
POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
               "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p")
# torch's bindings name the argument of these x, of the other Bessel functions input
_ARG_X = ("scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai")
# the overloads torch's parser lists for the polynomials
_POLYNOMIAL_SPECS = ("Tensor x, Tensor n, *, Tensor out=None", "Scalar x, Tensor n, *, Tensor out=None",
                     "Tensor x, Scalar n, *, Tensor out=None")


def _no_half(name, t):
    from ..dtypes import float16
    if t.dtype is float16:
        raise _not_implemented(name, t)
    return t


def _bessel_function(name):
    arg = "x" if name in _ARG_X else "input"

    def fn(input):
        if not isinstance(input, Tensor):
            raise TypeError(f"special_{name}(): argument '{arg}' (position 1) must be Tensor, "
                            f"not {typename(type(input))}")
        t = _float(_no_half(name, input))
        return _make(getattr(t._device.backend, name)(t._data), t._device)
    if arg == "x":   # the parameter under torch's name, for keyword calls
        def fn_x(x):
            return fn(x)
        return fn_x
    return fn


def _polynomial_function(name):
    shown = "special_" + name

    def fn(*args, **kwargs):
        from .._arg_errors import Parser
        bound = _bind_xn(args, kwargs)
        if bound is None:
            raise Parser(shown, *_POLYNOMIAL_SPECS).error(args, kwargs)
        x, n = bound
        if isinstance(x, Tensor) and isinstance(n, Tensor):
            a, b = ew._operands(x, n, True)
        elif isinstance(x, Tensor) and _is_number(n):
            a, b = ew._operands(x, n, True)
            b = float(b)
        elif _is_number(x) and isinstance(n, Tensor):
            a, b = ew._operands(ew._scalar_tensor(x, n), n, True)
        else:
            raise Parser(shown, *_POLYNOMIAL_SPECS).error(args, kwargs)
        _no_half(name, a)
        return ew._apply_binary(getattr(a._device.backend, name), a, b)
    return fn


def _bind_xn(args, kwargs):
    """(x, n) from a call's arguments as Python would bind them to (x, n), else None."""
    names = ("x", "n")
    if len(args) > 2 or any(k not in names or names.index(k) < len(args) for k in kwargs):
        return None
    values = list(args) + [kwargs[k] for k in names[len(args):] if k in kwargs]
    return tuple(values) if len(values) == 2 else None


def more_special_functions():
    """torch.special's Bessel/Airy functions and orthogonal polynomials, by name."""
    fns = {name: _bessel_function(name) for name in BESSEL}
    fns.update({name: _polynomial_function(name) for name in POLYNOMIALS})
    for name, fn in fns.items():
        fn.__name__ = fn.__qualname__ = name
        fn.__module__ = "minigrad.special"
    return fns
