"""Elementwise ops: arithmetic, comparisons, unary math, clamp, where, dtype casts."""
import math
from numbers import Number

from ..autograd.function import Function, NO_CTX, apply_binary, apply_unary, _record
from ..autograd.grad_mode import _grad_enabled
from ..dtypes import cpp_name, result_type, get_default_dtype, int64
from ..tensor import Tensor, _make
from .broadcast import broadcast_shape, sum_to, sum_to_array
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies


class Builtin(Function):
    _builtin = True


def device_error(a, b):
    da, db = str(a._device), str(b._device)
    if db != "cpu" and da == "cpu":
        da, db = db, da
    return RuntimeError("Expected all tensors to be on the same device, but found at least two "
                        f"devices, {da} and {db}!")


def _shape_error(a, b):
    """Raise torch's message for operands whose shapes do not broadcast."""
    broadcast_shape(a._data.shape, _shape(b))
    raise RuntimeError(f"shapes {list(a._data.shape)} and {list(_shape(b))} could not be combined")


def _operands(a, b, floating=False, wrap=True):
    """Cast a Tensor a and a Tensor-or-scalar b to torch's result dtype; None if b is no operand.
    A Python int b with an integer tensor a is cast to a's dtype as torch does, wrapping (uint8
    takes -3 as 253), unless wrap is False."""
    if isinstance(b, Tensor):
        if a._device is not b._device:
            raise device_error(a, b)
        if a._data.dtype != b._data.dtype or floating:
            rd = result_type(a, b)
            if floating and not rd.is_floating_point:
                rd = get_default_dtype()
            if a.dtype is not rd:
                a = a.to(rd)
            if b.dtype is not rd:
                b = b.to(rd)
        return a, b
    cls = b.__class__
    if cls is not float and cls is not int and cls is not bool:
        if not isinstance(b, Number) or isinstance(b, complex):
            return None
        b = b.item() if hasattr(b, "item") else float(b)  # NumPy scalars count as Python's
        cls = b.__class__
    kind = a._data.dtype.kind
    if kind != "f" and (cls is float or floating) and a._data.dtype.char != "H":  # (H: bfloat16, a float)
        a = a.to(get_default_dtype())
    elif kind == "b" and cls is int:
        a = a.to(int64)
    elif cls is int and wrap and (kind == "i" or kind == "u"):
        b = wrap_int(b, a._data.dtype)
    return a, b


def wrap_int(v, dt):
    """Python int v cast to integer NumPy dtype dt as C++ casts an int64 (modulo 2**bits)."""
    span = 1 << (8 * dt.itemsize)
    lo = 0 if dt.kind == "u" else -(span >> 1)
    if lo <= v < lo + span or not -(1 << 63) <= v < (1 << 64):
        return v
    return (v - lo) % span + lo


def _scalar_tensor(value, like):
    """A 0-d tensor on like's device holding a Python scalar (for scalar-first operations)."""
    dt = result_type(like, value)
    if value.__class__ is int and dt.np.kind in "iu":
        value = wrap_int(value, dt.np)
    return _make(like._device.backend.full((), value, dt.np), like._device)


BOOL_SUB = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead.")
BOOL_SUB_TWO = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                "`logical_xor()` operator instead.")


def _is_bool(x):
    return x.__class__ is bool or (isinstance(x, Tensor) and x._data.dtype.kind == "b")


def _bool_sub_error(a, b):
    """torch's refusal of a subtraction with a bool operand (a Python bool counts as one)."""
    return RuntimeError(BOOL_SUB_TWO if _is_bool(a) and _is_bool(b) else BOOL_SUB)


def binary(cls, a, b, floating=False):
    # fast paths: same-dtype tensors on one device, or a float tensor with a Python number
    if isinstance(b, Tensor):
        if a._device is b._device and a._data.dtype is b._data.dtype and (
                not floating or a._data.dtype.kind == "f"):
            return apply_binary(cls, a, b)
    elif (b.__class__ is float or b.__class__ is int) and a._data.dtype.kind == "f":
        return apply_binary(cls, a, b)
    if (cls is Sub or cls is RsubTensor) and (_is_bool(a) or _is_bool(b)):
        raise _bool_sub_error(a, b)
    if cls is Pow and b.__class__ is int and a._data.dtype.kind in "iu":
        from ..dtypes import check_fits  # torch range-checks an integer exponent (others wrap)
        check_fits(b, a.dtype)
    ops = _operands(a, b, floating, cls is not Pow) or _array_operands(a, b, floating)
    if ops is None:
        return NotImplemented
    if cls is PowTensor and isinstance(b, Tensor) and b._data.dtype.kind == "b":
        cls = _PowBoolExponent
    return apply_binary(cls, *ops)


def _array_operands(a, b, floating=False):
    """A Tensor a and a NumPy array b, which torch takes as a tensor of its dtype (on the CPU),
    cast to their result dtype; None if b is no array."""
    if not hasattr(b, "__array_interface__"):
        return None
    from ..creation import tensor
    from ..dtypes import promote_types
    b = tensor(b)
    rd = promote_types(a.dtype, b.dtype)
    if floating and not rd.is_floating_point:
        rd = get_default_dtype()
    if b._device is not a._device:
        raise device_error(a, b)
    return (a if a.dtype is rd else a.to(rd)), (b if b.dtype is rd else b.to(rd))


def binary_alpha(cls, a, b, alpha, name):
    """a.add(b, alpha=alpha) / a.sub(b, alpha=alpha): alpha scales b in the result's dtype."""
    return binary(cls, a, alpha_operand(cls, a, b, alpha, name))


def alpha_operand(cls, a, b, alpha, name):
    """alpha * b, the operand that a.add(b, alpha=alpha) / a.sub(b, alpha=alpha) and their
    in-place forms add or subtract, in the result's dtype, after torch's checks."""
    if not isinstance(b, (Tensor, Number)) or isinstance(b, complex):
        from .._typename import typename
        raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not {typename(type(b))}")
    if alpha == 1 and alpha.__class__ is not bool:
        return b
    if cls is Sub and (_is_bool(a) or _is_bool(b)):
        raise _bool_sub_error(a, b)
    rd = _alpha_result_type(a, b, alpha)
    if isinstance(b, Tensor):
        b = b if b.dtype is rd else b.to(rd)
    elif rd._category == 0:  # a bool scalar: alpha * b in bool is b and alpha
        return bool(b) and bool(alpha)
    if rd._category == 0:  # in a bool result alpha is cast to bool (torch: 2 is True)
        alpha = bool(alpha)
    return b * alpha


def _alpha_result_type(a, b, alpha):
    """The result dtype of a op alpha * b, after torch's checks of alpha against it."""
    rd = result_type(a, b)
    if alpha.__class__ is bool:
        if rd._category != 0:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif not rd.is_floating_point and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    return rd


_NEEDS_A = (True, False)
_NEEDS_ONE = (True,)


def binary_method(cls, floating=False, tensor_cls=None, name=None, autocast=None):
    """Tensor's method for binary op cls (`a * b`, `a.mul(b)`): binary() and apply_binary()
    inlined for their fast cases (these methods are most of a small model's ops), the rest
    through binary(). tensor_cls, when given, is the op for a tensor operand (torch's pow
    records a node of another name for a tensor exponent). name: the named method's (`a.mul`),
    which raises torch's TypeError for an operand of the wrong type where the operator returns
    NotImplemented for Python to try the other operand."""
    forward = cls.forward
    tensor_cls = tensor_cls or cls
    tensor_forward = tensor_cls.forward

    def method(self, other):
        if isinstance(other, Tensor):
            if self._device is other._device and self._data.dtype is other._data.dtype and (
                    not floating or self._data.dtype.kind == "f"):
                if _grad_enabled():
                    ra, rb = self._requires_grad, other._requires_grad
                    if ra or rb:
                        return _record(tensor_cls, (self, other), (ra, rb))
                return tensor_forward(NO_CTX, self, other)
            return binary(tensor_cls, self, other, floating)
        elif (other.__class__ is float or other.__class__ is int) and self._data.dtype.kind == "f":
            if self._requires_grad and _grad_enabled():
                return _record(cls, (self, other), _NEEDS_A)
            return forward(NO_CTX, self, other)
        array = hasattr(other, "__array_interface__") and not isinstance(other, Number)  # a NumPy array
        result = binary(tensor_cls if array else cls, self, other, floating)
        if result is NotImplemented and name is not None:
            raise _named_operand_error(name, other)
        return result
    if autocast is None:
        return method
    plain = method

    def method(self, other):  # an op on autocast's lists (pow): the entry check first
        if _AUTOCAST_ON[0] and (r := _autocast(autocast, method, self, other)) is not None:
            return r
        return plain(self, other)
    return method


def _named_operand_error(name, other):
    """torch's TypeError for a.mul(other) / a.div(other) / a.pow(other) with an other of no
    operand type."""
    if name == "pow":
        from .._arg_errors import call_error
        return call_error("pow", True, (other,))
    from .._typename import typename
    return TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not {typename(type(other))}")


def unary_method(cls):
    """Tensor's method for unary op cls (`a.relu()`, `-a`): apply_unary inlined."""
    forward = cls.forward

    def method(a):
        if a._requires_grad and _grad_enabled():
            return _record(cls, (a,), _NEEDS_ONE)
        return forward(NO_CTX, a)
    return method


def rbinary(cls, a, b, floating=False):
    """b (op) a for a Python scalar b and a Tensor a."""
    if not isinstance(b, Number) or isinstance(b, complex):
        return NotImplemented
    return binary(cls, _scalar_tensor(b, a), a, floating)


def _data(x):
    return x._data if isinstance(x, Tensor) else x


def _apply_binary(prim, a, b):
    try:
        out = prim(a._data, _data(b))
    except ValueError:
        _shape_error(a, b)
    if a._data.flags.c_contiguous and (not isinstance(b, Tensor) or b._data.flags.c_contiguous):
        return _make(out, a._device)  # row-major operands: a row-major result, as torch's
    return _make(laid_out(a._device.backend, out, a, b), a._device)


def laid_out(be, out, *operands):
    """out (an elementwise result over operands, Tensors or numbers) in the layout torch's gives
    it: its operands' when they agree, else the order the first of them to decide sets."""
    from ..memory_formats import result_strides, with_strides
    ops = [(x._data.shape, x.stride()) if isinstance(x, Tensor) else ((), ()) for x in operands]
    return with_strides(be, out, result_strides(out.shape, ops))


def _shape(x):
    return x._data.shape if isinstance(x, Tensor) else ()


class Add(Builtin):
    _node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = (a._data.shape, _shape(b))
        return _apply_binary(a._device.backend.add, a, b)

    @staticmethod
    def backward(ctx, g):
        na, nb = ctx.needs_input_grad
        return (sum_to(g, ctx.shapes[0]) if na else None,
                sum_to(g, ctx.shapes[1]) if nb else None)

    @staticmethod
    def backward_raw(ctx, be, g):
        na, nb = ctx.needs_input_grad
        return (sum_to_array(be, g, ctx.shapes[0]) if na else None,
                sum_to_array(be, g, ctx.shapes[1]) if nb else None)


class Sub(Builtin):
    _node_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = (a._data.shape, _shape(b))
        return _sub(a, b)

    @staticmethod
    def backward(ctx, g):
        na, nb = ctx.needs_input_grad
        return (sum_to(g, ctx.shapes[0]) if na else None,
                sum_to(-g, ctx.shapes[1]) if nb else None)

    @staticmethod
    def backward_raw(ctx, be, g):
        na, nb = ctx.needs_input_grad
        return (sum_to_array(be, g, ctx.shapes[0]) if na else None,
                sum_to_array(be, be.neg(g), ctx.shapes[1]) if nb else None)


def _sub(a, b):
    try:
        return _apply_binary(a._device.backend.sub, a, b)
    except TypeError:  # every backend refuses bool - bool (a mixed pair is refused before its cast)
        if a._data.dtype.kind != "b":
            raise
        raise RuntimeError(BOOL_SUB_TWO) from None


class Rsub(Builtin):
    """other - a for a Tensor a and a Python number other (`2 - x`): torch's rsub(Tensor, Scalar)."""
    _node_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, a, other):
        # the scalar first: one kernel on CUDA (sub_rscalar), as torch's rsub
        return _make(a._device.backend.sub(other, a._data), a._device)

    @staticmethod
    def backward(ctx, g):
        return -g, None

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.neg(g), None


class RsubTensor(Builtin):
    """b - a for Tensors (`a.__rsub__(b)`, minigrad.rsub(a, b)): torch's rsub(Tensor, Tensor)."""
    _node_name = "RsubBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = (a._data.shape, b._data.shape)
        return _sub(b, a)

    @staticmethod
    def backward(ctx, g):
        na, nb = ctx.needs_input_grad
        return (sum_to(-g, ctx.shapes[0]) if na else None,
                sum_to(g, ctx.shapes[1]) if nb else None)

    @staticmethod
    def backward_raw(ctx, be, g):
        na, nb = ctx.needs_input_grad
        return (sum_to_array(be, be.neg(g), ctx.shapes[0]) if na else None,
                sum_to_array(be, g, ctx.shapes[1]) if nb else None)


def rsub(a, other):
    """other - a for a Tensor a (`2 - x` calls x.__rsub__(2)): torch's rsub, whose node is
    RsubBackward1 for a number other and RsubBackward0 for a tensor; NotImplemented for other
    operands."""
    if (other.__class__ is float or other.__class__ is int) and a._data.dtype.kind == "f":
        return apply_binary(Rsub, a, other)
    if isinstance(other, Tensor):
        return binary(RsubTensor, a, other)
    if not isinstance(other, Number) or isinstance(other, complex):
        return NotImplemented
    if _is_bool(a) or _is_bool(other):
        raise _bool_sub_error(a, other)
    return apply_binary(Rsub, *_operands(a, other))  # a NumPy scalar counts as a Python number


def rsub_alpha(a, other, alpha=1):
    """minigrad.rsub(a, other, alpha=alpha): other - alpha * a, alpha checked as sub checks it."""
    if not isinstance(other, (Tensor, Number)) or isinstance(other, complex):
        from .._typename import tp_name
        raise TypeError(f"rsub() received an invalid combination of arguments - got (Tensor, {tp_name(other)}), "
                        "but expected one of:\n * (Tensor input, Tensor other, *, Number alpha = 1)\n"
                        " * (Tensor input, Number other, Number alpha = 1)\n")
    if alpha != 1 or alpha.__class__ is bool:
        if _is_bool(a) or _is_bool(other):
            raise _bool_sub_error(a, other)
        rd = _alpha_result_type(a, other, alpha)
        a = (a if a.dtype is rd else a.to(rd)) * alpha
    return rsub(a, other)


class Mul(Builtin):
    _node_name = "MulBackward0"

    @staticmethod
    def forward(ctx, a, b):
        na, nb = ctx.needs_input_grad[:2]
        if na or nb:
            # save only what the wanted gradients need (an in-place mul_ depends on this)
            ctx.save_for_backward(a if nb else None, b if na and isinstance(b, Tensor) else None)
            ctx.scalar = None if isinstance(b, Tensor) else b
            ctx.shapes = (a._data.shape, _shape(b))
        return _apply_binary(a._device.backend.mul, a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        na, nb = ctx.needs_input_grad
        other = ctx.scalar if b is None else b
        return (sum_to(g * other, ctx.shapes[0]) if na else None,
                sum_to(g * a, ctx.shapes[1]) if nb else None)

    @staticmethod
    def backward_raw(ctx, be, g):
        a, b = ctx.saved_arrays()
        na, nb = ctx.needs_input_grad
        other = ctx.scalar if b is None else b
        return (sum_to_array(be, be.mul(g, other), ctx.shapes[0]) if na else None,
                sum_to_array(be, be.mul(g, a), ctx.shapes[1]) if nb else None)


class Div(Builtin):
    _node_name = "DivBackward0"

    @staticmethod
    def forward(ctx, a, b):
        out = _apply_binary(a._device.backend.div, a, b)
        na, nb = ctx.needs_input_grad[:2]
        if na or nb:
            is_t = isinstance(b, Tensor)
            ctx.save_for_backward(b if is_t else None, out if nb else None)
            ctx.scalar = None if is_t else b
            ctx.shapes = (a._data.shape, _shape(b))
        return out

    @staticmethod
    def backward(ctx, g):
        b, out = ctx.saved_tensors
        na, nb = ctx.needs_input_grad
        other = ctx.scalar if b is None else b
        return (sum_to(g / other, ctx.shapes[0]) if na else None,
                sum_to(-g * out / b, ctx.shapes[1]) if nb else None)

    @staticmethod
    def backward_raw(ctx, be, g):
        b, out = ctx.saved_arrays()
        na, nb = ctx.needs_input_grad
        other = ctx.scalar if b is None else b
        return (sum_to_array(be, be.div(g, other), ctx.shapes[0]) if na else None,
                sum_to_array(be, be.neg(be.div(be.mul(g, out), other)), ctx.shapes[1])
                if nb else None)


class Pow(Builtin):
    _node_name = "PowBackward0"

    @staticmethod
    def forward(ctx, a, b):
        be = a._device.backend
        if a._data.dtype.kind == "b":  # bool ** bool: only a Python bool exponent, as in torch
            if b.__class__ is not bool:
                raise NotImplementedError("\"pow\" not implemented for 'Bool'")
            return _make(be.copy(a._data) if b else be.ones(a._data.shape, a._data.dtype), a._device)
        # a tensor of negative integer exponents is allowed (1, -1 or 0 result, as in torch);
        # a negative Python integer is refused, as torch does
        if (not isinstance(b, Tensor) and isinstance(b, int) and b < 0 and a._data.dtype.kind in "iub"
                and not a.is_floating_point()):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if (b.__class__ is int or b.__class__ is float) and b == 2 and a._data.dtype.kind == "f":
            out = _make(be.mul(a._data, a._data), a._device)  # NumPy squares this way too
        else:
            out = _apply_binary(be.pow, a, b)
        na, nb = ctx.needs_input_grad[:2]
        if na or nb:
            ctx.save_for_backward(a, b if isinstance(b, Tensor) else None, out if nb else None)
            ctx.scalar = None if isinstance(b, Tensor) else b
            ctx.shapes = (a._data.shape, _shape(b))
        return out

    @staticmethod
    def backward(ctx, g):
        a, b, out = ctx.saved_tensors
        na, nb = ctx.needs_input_grad
        ga = gb = None
        if na:
            if b is None:
                p = ctx.scalar
                ga = g * 0.0 if p == 0 else g * p * a ** (p - 1)
            else:
                # torch's pow_backward_self: 0 where the exponent is 0 (0 * 0 ** -1 would be nan)
                ga = sum_to(where(b == 0, 0.0, g * b * a ** (b - 1)), ctx.shapes[0])
        if nb:
            # 0 ** b has derivative 0 in b for b >= 0 (log 0 would give nan)
            gb = where((a == 0) & (b >= 0), 0.0, g * out * a.log())
            gb = sum_to(gb, ctx.shapes[1])
        return ga, gb

    @staticmethod
    def backward_raw(ctx, be, g):
        if ctx.scalar is None or not ctx.needs_input_grad[0]:
            return NotImplemented  # tensor exponents take the Tensor path
        a, _, _ = ctx.saved_arrays()
        p = ctx.scalar
        if p == 0:
            return be.mul(g, 0.0), None
        grad = be.mul(g, be.add(a, a)) if p == 2 else be.mul(be.mul(g, p), be.pow(a, p - 1))
        return grad, None


class PowTensor(Pow):
    """a ** b for a tensor exponent b (torch's pow.Tensor_Tensor)."""
    _node_name = "PowBackward1"


class _PowBoolExponent(PowTensor):
    """a ** b for a bool tensor b: torch's gradient for a computes b - 1, its error for a bool."""
    _node_name = "PowBackward1"

    @staticmethod
    def backward(ctx, g):
        if ctx.needs_input_grad[0]:
            raise RuntimeError(BOOL_SUB)
        return Pow.backward(ctx, g)


class PowScalarBase(Pow):
    """b ** a for a number b (torch's pow.Scalar), b made a 0-d tensor."""
    _node_name = "PowBackward2"


class Maximum(Builtin):
    _node_name = "MaximumBackward0"
    _pick = "gt"

    @classmethod
    def forward(cls, ctx, a, b):
        be = a._device.backend
        if any(ctx.needs_input_grad):
            ctx.save_for_backward(a, b)
        return _apply_binary(be.maximum if cls._pick == "gt" else be.minimum, a, b)

    @classmethod
    def backward(cls, ctx, g):
        a, b = ctx.saved_tensors
        na, nb = ctx.needs_input_grad
        wins = (a > b) if cls._pick == "gt" else (a < b)
        # ties split the gradient evenly, as torch does
        share = wins.to(g.dtype) + (a == b).to(g.dtype) * 0.5
        return (sum_to(g * share, a._data.shape) if na else None,
                sum_to(g * (1 - share), b._data.shape) if nb else None)


class Minimum(Maximum):
    _node_name = "MinimumBackward0"
    _pick = "lt"


def compare(prim_name, a, b):
    """A comparison: not differentiable, returns a bool tensor. As in torch, `t == array` compares
    with a NumPy array elementwise; the other comparisons leave an array to Python (`t > array`
    raises TypeError, `t != array` is True)."""
    ops = _operands(a, b) or (_array_operands(a, b) if prim_name == "eq" else None)
    if ops is None:
        return NotImplemented
    a, b = ops
    prim = getattr(a._device.backend, prim_name)
    return _apply_binary(prim, a, b)


# ---- unary -----------------------------------------------------------------

class Neg(Builtin):
    _node_name = "NegBackward0"

    @staticmethod
    def forward(ctx, a):
        if a._data.dtype.kind == "b":
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                               "are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
        return _make(a._device.backend.neg(a._data), a._device)

    @staticmethod
    def backward(ctx, g):
        return -g

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.neg(g)


class Abs(Builtin):
    _node_name = "AbsBackward0"

    @staticmethod
    def forward(ctx, a):
        if a._data.dtype.kind == "b":
            raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
        ctx.save_for_backward(a)
        return _make(a._device.backend.abs(a._data), a._device)

    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return g * a.sign()


class _ZeroGrad(Builtin):
    """An op that is piecewise constant: its gradient is zero (torch: zeros_like(grad), so even
    a NaN or infinite incoming gradient gives zeros)."""

    @staticmethod
    def backward(ctx, g):
        return _make(g._device.backend.zeros(g._data.shape, g._data.dtype), g._device)

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.zeros(g.shape, g.dtype)


class Sign(_ZeroGrad):
    _node_name = "SignBackward0"

    @staticmethod
    def forward(ctx, a):
        be = a._device.backend
        return _make(be.copy(a._data) if a._data.dtype.kind == "b" else be.sign(a._data), a._device)


class _Rounding(_ZeroGrad):
    """floor, ceil, trunc, round: float tensors rounded to integral values; integer tensors are
    already integral and come back as a copy, as in torch; bool is refused with torch's words."""
    _prim = None

    @classmethod
    def forward(cls, ctx, a):
        be = a._device.backend
        kind = "f" if a._data.dtype.char == "H" else a._data.dtype.kind  # (H: bfloat16)
        if kind == "f":
            return _make(getattr(be, cls._prim)(a._data), a._device)
        if kind == "b":
            raise NotImplementedError(f"\"{cls._prim}_vml_cpu\" not implemented for 'Bool'")
        return _make(be.copy(a._data), a._device)


class Floor(_Rounding):
    _node_name, _prim = "FloorBackward0", "floor"


class Ceil(_Rounding):
    _node_name, _prim = "CeilBackward0", "ceil"


class Trunc(_Rounding):
    _node_name, _prim = "TruncBackward0", "trunc"


class Round(_Rounding):
    _node_name, _prim = "RoundBackward0", "round"


class RoundDecimals(_ZeroGrad):
    """torch.round(x, decimals=d): rint(x * 10**d) / 10**d, or rint(x / 10**-d) * 10**-d for
    d < 0, in the tensor's dtype, as torch computes it."""
    _node_name = "RoundBackward1"

    @staticmethod
    def forward(ctx, a, decimals):
        be = a._device.backend
        if not a.is_floating_point():
            raise NotImplementedError(f"\"round_cpu\" not implemented for '{a.dtype._legacy[:-6]}'")
        scale = 10.0 ** abs(decimals)
        if decimals >= 0:
            return _make(be.div(be.round(be.mul(a._data, scale)), scale), a._device)
        return _make(be.mul(be.round(be.div(a._data, scale)), scale), a._device)

    @staticmethod
    def backward(ctx, g):
        return _ZeroGrad.backward(ctx, g), None

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.zeros(g.shape, g.dtype), None


class Frac(Builtin):
    """x - trunc(x); the gradient passes through unchanged."""
    _node_name = "FracBackward0"

    @staticmethod
    def forward(ctx, a):
        be = a._device.backend
        if not a.is_floating_point():
            raise NotImplementedError(f"\"frac_cpu\" not implemented for '{a.dtype._legacy[:-6]}'")
        return _make(be.sub(a._data, be.trunc(a._data)), a._device)

    @staticmethod
    def backward(ctx, g):
        return g

    @staticmethod
    def backward_raw(ctx, be, g):
        return g


def round_op(a, decimals=0):
    """Tensor.round / torch.round, with torch's keyword-only decimals."""
    if not isinstance(decimals, int) or isinstance(decimals, bool):
        raise TypeError(f"round() received an invalid combination of arguments - got "
                        f"(decimals={type(decimals).__name__}), but expected decimals to be an int")
    if decimals == 0:
        return apply_unary(Round, a)
    return RoundDecimals.apply(a, decimals)


class _SavesInput(Builtin):
    _prim = None

    @classmethod
    def forward(cls, ctx, a):
        ctx.save_for_backward(a)
        return _make(getattr(a._device.backend, cls._prim)(a._data), a._device)


class _SavesOutput(Builtin):
    _prim = None

    @classmethod
    def forward(cls, ctx, a):
        out = _make(getattr(a._device.backend, cls._prim)(a._data), a._device)
        ctx.save_for_backward(out)
        return out


class Exp(_SavesOutput):
    _node_name, _prim = "ExpBackward0", "exp"

    @staticmethod
    def backward(ctx, g):
        out, = ctx.saved_tensors
        return g * out

    @staticmethod
    def backward_raw(ctx, be, g):
        out = ctx.saved_array()
        return be.mul(g, out)


class Log(_SavesInput):
    _node_name, _prim = "LogBackward0", "log"

    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return g / a

    @staticmethod
    def backward_raw(ctx, be, g):
        a = ctx.saved_array()
        return be.div(g, a)


class Log1p(_SavesInput):
    _node_name, _prim = "Log1PBackward0", "log1p"

    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return g / (a + 1)

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.div(g, be.add(ctx.saved_array(), 1))


class Expm1(_SavesOutput):
    _node_name, _prim = "Expm1Backward0", "expm1"

    @staticmethod
    def backward(ctx, g):
        out, = ctx.saved_tensors
        return g * (out + 1)

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.mul(g, be.add(ctx.saved_array(), 1))


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


class Erf(_SavesInput):
    """erf(x), with torch's gradient 2 / sqrt(pi) * exp(-x^2) * g."""
    _node_name, _prim = "ErfBackward0", "erf"

    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return (-(a * a)).exp() * _TWO_OVER_SQRT_PI * g

    @staticmethod
    def backward_raw(ctx, be, g):
        a = ctx.saved_array()
        return be.mul(be.mul(be.exp(be.neg(be.mul(a, a))), _TWO_OVER_SQRT_PI), g)


class Reciprocal(Builtin):
    """1 / x, with torch's gradient -g * (out * out)."""
    _node_name = "ReciprocalBackward0"

    @staticmethod
    def forward(ctx, a):
        out = _make(a._device.backend.div(1, a._data), a._device)  # one div_rscalar launch on CUDA
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        out, = ctx.saved_tensors
        return -g * (out * out)

    @staticmethod
    def backward_raw(ctx, be, g):
        out = ctx.saved_array()
        return be.neg(be.mul(g, be.mul(out, out)))  # negating g first gives the same bits


def rtruediv(a, number):
    """number / a for a Tensor a and a Python number: a.reciprocal() * number, as torch computes
    it (a rounding of its own, different from a division in about a quarter of float32 cases)."""
    if not isinstance(number, Number) or isinstance(number, complex):
        return NotImplemented
    return unary_float(Reciprocal, a) * number


class Sqrt(_SavesOutput):
    _node_name, _prim = "SqrtBackward0", "sqrt"

    @staticmethod
    def backward(ctx, g):
        out, = ctx.saved_tensors
        return g / (2 * out)


class Sin(_SavesInput):
    _node_name, _prim = "SinBackward0", "sin"

    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return g * a.cos()


class Cos(_SavesInput):
    _node_name, _prim = "CosBackward0", "cos"

    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return -g * a.sin()


class Tanh(_SavesOutput):
    _node_name, _prim = "TanhBackward0", "tanh"

    @staticmethod
    def backward(ctx, g):
        out, = ctx.saved_tensors
        return g * (1 - out * out)

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.tanh_backward(g, ctx.saved_array())


class Sigmoid(_SavesOutput):
    _node_name, _prim = "SigmoidBackward0", "sigmoid"

    @staticmethod
    def backward(ctx, g):
        out, = ctx.saved_tensors
        return g * out * (1 - out)

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.sigmoid_backward(g, ctx.saved_array())


class Relu(_SavesOutput):
    _node_name, _prim = "ReluBackward0", "relu"

    @staticmethod
    def backward(ctx, g):
        out, = ctx.saved_tensors
        return where(out > 0, g, 0.0)

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.relu_backward(g, ctx.saved_array())


class Clamp(Builtin):
    _node_name = "ClampBackward1"

    @staticmethod
    def forward(ctx, a, lo, hi):
        be = a._device.backend
        if ctx.needs_input_grad[0]:
            # a mask, not the input: clamp_ overwrites the input in place
            x = a._data
            masks = [m for m in (be.ge(x, lo) if lo is not None else None,
                                 be.le(x, hi) if hi is not None else None) if m is not None]
            mask = masks[0] if len(masks) == 1 else be.mul(masks[0], masks[1])  # logical and
            ctx.save_for_backward(_make(mask, a._device))
        return _make(be.clip(a._data, lo, hi), a._device)

    @staticmethod
    def backward(ctx, g):
        mask, = ctx.saved_tensors
        return where(mask, g, 0.0), None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.mul(g, ctx.saved_array()), None, None


def clamp(a, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    for name, bound in (("min", min), ("max", max)):
        if bound is None or bound.__class__ is float or bound.__class__ is int:
            continue
        if not isinstance(bound, (Tensor, Number)) and not hasattr(bound, "dtype") or isinstance(bound, complex):
            from .._arg_errors import type_name
            raise TypeError(f"clamp(): argument '{name}' must be Number, not {type_name(bound)}")
    tensors = [isinstance(b, Tensor) for b in (min, max) if b is not None]
    if any(tensors):
        if not all(tensors):  # torch has no overload taking one bound as a tensor and one as a number
            got = ", ".join(["Tensor"] + [("Tensor" if isinstance(b, Tensor) else type(b).__name__)
                                          for b in (min, max)])
            raise TypeError(f"clamp() received an invalid combination of arguments - got ({got}), but expected "
                            "one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)"
                            "\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
        return _clamp_tensors(a, min, max)
    if not a.is_floating_point() and any(isinstance(v, float) for v in (min, max)):
        a = a.to(get_default_dtype())
    elif a._data.dtype.kind in "iu":
        min, max = _int_bound(min, a), _int_bound(max, a)
    return Clamp.apply(a, min, max)


def _int_bound(v, a):
    """An int bound of integer tensor a's clamp as torch takes it: converted to a's dtype, with
    its overflow check (a uint8 tensor takes -1 as 255)."""
    if v.__class__ is not int:
        return v
    if not -2 ** 63 <= v < 2 ** 64:
        raise OverflowError("int too big to convert")
    from ..dtypes import check_fits
    check_fits(v, a.dtype)
    return wrap_int(v, a._data.dtype)


class ClampTensors(Builtin):
    """clamp with tensor bounds: min(max(a, lo), hi), broadcast. Each element's gradient goes to the
    operand the output took, as torch routes it: a where lo <= a <= hi, lo where a < lo < hi, hi
    where hi < max(a, lo); ties between the bounds (lo == hi above a) send it nowhere."""
    _node_name = "ClampBackward0"

    @staticmethod
    def forward(ctx, a, lo, hi):
        be = a._device.backend
        out = a
        if lo is not None:
            out = _apply_binary(be.maximum, out, lo)
        if hi is not None:
            out = _apply_binary(be.minimum, out, hi)
        if any(ctx.needs_input_grad):
            ctx.save_for_backward(a, lo, hi)
        return out if out is not a else _make(be.copy(a._data), a._device)

    @staticmethod
    def backward(ctx, g):
        a, lo, hi = ctx.saved_tensors
        na, nlo, nhi = ctx.needs_input_grad
        take_a = None
        if lo is not None:
            take_a = a >= lo
        if hi is not None:
            take_a = (a <= hi) if take_a is None else take_a & (a <= hi)
        ga = sum_to(where(take_a, g, 0.0), a._data.shape) if na else None
        glo = ghi = None
        if lo is not None and nlo:
            pick = lo > a if hi is None else (lo > a) & (lo < hi)
            glo = sum_to(where(pick, g, 0.0), lo._data.shape)
        if hi is not None and nhi:
            pick = hi < a if lo is None else hi < a.maximum(lo)
            ghi = sum_to(where(pick, g, 0.0), hi._data.shape)
        return ga, glo, ghi


def _clamp_tensors(a, lo, hi):
    from ..dtypes import promote_types
    for b in (lo, hi):
        if b is not None and b._device is not a._device:
            raise device_error(a, b)
    rd = a.dtype
    for b in (lo, hi):
        if b is not None:
            rd = promote_types(rd, result_type(a, b))
    a, lo, hi = (None if t is None else (t if t.dtype is rd else t.to(rd)) for t in (a, lo, hi))
    return ClampTensors.apply(a, lo, hi)


class Where(Builtin):
    _node_name = "WhereBackward0"

    @staticmethod
    def forward(ctx, cond, a, b):
        ctx.save_for_backward(cond)
        ctx.shapes = (a._data.shape, b._data.shape)
        try:
            out = a._device.backend.where(cond._data, a._data, b._data)
        except ValueError:
            broadcast_shape(broadcast_shape(cond._data.shape, a._data.shape), b._data.shape)
            raise
        if not (cond._data.flags.c_contiguous and a._data.flags.c_contiguous and b._data.flags.c_contiguous):
            out = laid_out(a._device.backend, out, cond, a, b)
        return _make(out, a._device)

    @staticmethod
    def backward(ctx, g):
        cond, = ctx.saved_tensors
        _, na, nb = ctx.needs_input_grad
        zero = g * 0.0 if (na or nb) else None
        return (None,
                sum_to(Where.apply(cond, g, zero), ctx.shapes[0]) if na else None,
                sum_to(Where.apply(cond, zero, g), ctx.shapes[1]) if nb else None)


def _where_scalar(x, name):
    """where's input or other given as a scalar: a number (or NumPy scalar), else torch's TypeError."""
    if not isinstance(x, Number) and not hasattr(x, "dtype") or isinstance(x, complex):
        from .._arg_errors import type_name
        raise TypeError(f"where(): argument '{name}' must be Tensor or Number, not {type_name(x)}")
    return x


def where(cond, a, b):
    if not isinstance(cond, Tensor):
        raise TypeError(f"where(): argument 'condition' must be Tensor, not {type(cond).__name__}")
    if cond._data.dtype.kind != "b":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with "
                           f"dtype {cond.dtype._legacy[:-6]}")  # torch's scalar type name: Float, Long
    if not isinstance(a, Tensor):
        a = _scalar_tensor(_where_scalar(a, "input"), b if isinstance(b, Tensor) else cond)
    if not isinstance(b, Tensor):
        b = _scalar_tensor(_where_scalar(b, "other"), a)
    for t in (a, b):
        if t._device is not cond._device:
            raise device_error(cond, t)
    a, b = _operands(a, b)
    return Where.apply(cond, a, b)


class MaskedFill(Where):
    _node_name = "MaskedFillBackward0"


class MaskedFillTensor(Where):
    _node_name = "MaskedFillBackward1"


def masked_fill(a, mask, value, inplace=False):
    """a with value where mask is True: a where(mask, value, a) that keeps a's dtype. (inplace:
    for masked_fill_, which torch lets write a value that requires grad into an integer tensor.)"""
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_fill(): argument 'mask' (position 1) must be Tensor, not {type(mask).__name__}")
    if mask._data.dtype.kind != "b":
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{cpp_name(mask.dtype)}")
    if mask._device is not a._device:
        raise device_error(a, mask)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        if a._data.dtype.kind in "iub" and value._data.dtype != a._data.dtype:
            if a._data.dtype.kind != "b":  # torch takes the value as a number: its range check
                from ..dtypes import check_fits
                check_fits(value.item(), a.dtype)
            if value._requires_grad and not inplace and _grad_enabled():
                raise RuntimeError(f"Autograd not support dtype: {a.dtype._legacy[:-6]}")
        cls, value = MaskedFillTensor, value.to(a._device).to(a.dtype)
    else:
        if not isinstance(value, Number) and not hasattr(value, "dtype") or isinstance(value, complex):
            from .._arg_errors import type_name
            raise TypeError(f"masked_fill(): argument 'value' (position 2) must be Number, not {type_name(value)}")
        cls, value = MaskedFill, _make(a._device.backend.full((), value, a._data.dtype), a._device)
    return cls.apply(mask, value, a)


class ToCopy(Builtin):
    _node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, a, dtype, order=None):
        ctx.in_dtype = a.dtype
        npd = dtype.np  # first: a small dtype's first use puts the wrappers on be's primitives
        be = a._device.backend
        if order is not None:  # to(memory_format=...): a copy whose memory runs over the dims in order
            from ..memory_formats import relaid
            data = relaid(be, a._data, order)
            return _make(data if dtype is a.dtype else be.astype(data, npd), a._device)
        return _make(be.astype(a._data, npd), a._device)

    @staticmethod
    def backward(ctx, g):
        return g.to(ctx.in_dtype), None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.astype(g, ctx.in_dtype.np), None, None


def unary_float(cls, a):
    if _AUTOCAST_ON[0] and (r := _autocast(cls._node_name[:-9].lower(), unary_float, cls, a)) is not None:
        return r  # autocast's name for the op: ExpBackward0 -> exp
    return apply_unary(cls, a if a._data.dtype.kind == "f" or a._data.dtype.char == "H" else a.to(get_default_dtype()))


class Overwrite(Builtin):
    """t's values replaced by src broadcast to t's shape (copy_, fill_, zero_): t gets no gradient."""
    _node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx, t, src):
        ctx.src_shape = src._data.shape
        be = t._device.backend
        return _make(be.astype(be.broadcast_to(src._data, t._data.shape), t._data.dtype), t._device)

    @staticmethod
    def backward(ctx, g):
        na, ns = ctx.needs_input_grad
        return (g * 0.0 if na else None), (sum_to(g, ctx.src_shape) if ns else None)


class Fill(Overwrite):
    _node_name = "FillBackward0"


class FillScalar_(Fill):  # torch names the in-place overloads' nodes apart: fill_.Scalar, fill_.Tensor
    _node_name = "FillBackward2"


class FillTensor_(Fill):
    _node_name = "FillBackward3"


class Zero(Overwrite):
    _node_name = "ZeroBackward0"
