"""Division with rounding: floor_divide (`//`), remainder (`%`), fmod, and div's rounding modes
(torch.div(a, b, rounding_mode='trunc' or 'floor')), with torch's dtypes, nodes and gradients.

Operands are promoted as every binary op's (elementwise.binary): int // int stays an integer,
an integer tensor with a float number becomes the default float, a bool tensor with an int
number int64; bool with bool is refused, as torch's kernels are not instantiated for it.
"""
from numbers import Number

from ..autograd.function import apply_binary
from ..tensor import Tensor, _make
from .broadcast import sum_to, sum_to_array
from .elementwise import Builtin, Div, binary, _apply_binary, _operands, _shape

ROUNDING_MODES = (None, "trunc", "floor")


def _bool_error(a, kernel):
    """torch's NotImplementedError: its division kernels have no bool instance."""
    return NotImplementedError(f"\"{kernel}_{a._device.type}\" not implemented for 'Bool'")


def _forward(cls, a, b):
    """a (op) b for operands already of one dtype (b a tensor or a Python number)."""
    if a._data.dtype.kind == "b" and (not isinstance(b, Tensor) or b._data.dtype.kind == "b"):
        raise _bool_error(a, cls._kernel)
    return _apply_binary(getattr(a._device.backend, cls._prim), a, b)


class _NotDifferentiable(Builtin):
    """torch records these ops without a derivative: the output requires grad, and a backward
    through it raises."""
    _node_name = "torch::autograd::NotImplemented"
    _aten = None

    @classmethod
    def forward(cls, ctx, a, b):
        return _forward(cls, a, b)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError(f"derivative for aten::{ctx._forward_cls._aten} is not implemented")


class FloorDivide(_NotDifferentiable):
    _node_name = _NotDifferentiable._node_name
    _prim, _kernel, _aten = "floor_divide", "div_floor", "floor_divide"


class FloorDivideInplace(FloorDivide):
    """a //= b (floor_divide_): torch names the in-place op in its error."""
    _node_name = _NotDifferentiable._node_name
    _aten = "floor_divide_"


class _ScalarFirst(_NotDifferentiable):
    """number (op) a, for a Tensor a already in the result's dtype: the scalar-first kernel."""

    @classmethod
    def forward(cls, ctx, a, number):
        if a._data.dtype.kind == "b" and number.__class__ is bool:
            raise _bool_error(a, cls._kernel)
        return _make(getattr(a._device.backend, cls._prim)(number, a._data), a._device)


class RFloorDivide(_ScalarFirst):
    """number // a (torch.floor_divide(number, a))."""
    _node_name = _NotDifferentiable._node_name
    _prim, _kernel, _aten = "floor_divide", "div_floor", "floor_divide"


class RRemainder(_ScalarFirst):
    """number % a: torch's remainder.Scalar_Tensor, which has no derivative."""
    _node_name = _NotDifferentiable._node_name
    _prim, _kernel, _aten = "remainder", "remainder", "remainder"


class Remainder(Builtin):
    """a - b * floor(a / b): the gradient is g for a and -g * floor(a / b) for b (torch's)."""
    _node_name = "RemainderBackward1"
    _prim, _kernel, _quotient = "remainder", "remainder", "floor_divide"

    @classmethod
    def forward(cls, ctx, a, b):
        out = _forward(cls, a, b)
        na, nb = ctx.needs_input_grad[:2]
        if na or nb:
            ctx.shapes = (a._data.shape, _shape(b))
            if nb:
                ctx.save_for_backward(a, b)
        return out

    @staticmethod
    def backward(ctx, g):
        na, nb = ctx.needs_input_grad
        gb = None
        if nb:
            a, b = ctx.saved_tensors
            quotient = DivFloor if ctx._forward_cls._quotient == "floor_divide" else DivTrunc
            gb = sum_to(-g * apply_binary(quotient, a, b), ctx.shapes[1])
        return (sum_to(g, ctx.shapes[0]) if na else None), gb

    @staticmethod
    def backward_raw(ctx, be, g):
        na, nb = ctx.needs_input_grad
        gb = None
        if nb:
            a, b = ctx.saved_arrays()
            q = be.floor_divide(a, b) if ctx._forward_cls._quotient == "floor_divide" else be.trunc_divide(a, b)
            gb = sum_to_array(be, be.mul(be.neg(g), q), ctx.shapes[1])
        return (sum_to_array(be, g, ctx.shapes[0]) if na else None), gb


class RemainderScalar(Remainder):
    _node_name = "RemainderBackward0"


class Fmod(Remainder):
    """C's fmod, a - b * trunc(a / b): the gradient is g for a and -g * trunc(a / b) for b."""
    _node_name = "FmodBackward1"
    _prim, _kernel, _quotient = "fmod", "fmod", "trunc_divide"


class FmodScalar(Fmod):
    _node_name = "FmodBackward0"


class DivFloor(Builtin):
    """torch.div(a, b, rounding_mode='floor'): piecewise constant, so its gradients are zeros
    (torch's, even for a NaN or infinite incoming gradient)."""
    _node_name = "DivBackward2"
    _prim, _kernel = "floor_divide", "div_floor"

    @classmethod
    def forward(cls, ctx, a, b):
        if ctx.needs_input_grad[0] or ctx.needs_input_grad[1]:
            ctx.shapes = (a._data.shape, _shape(b))
        return _forward(cls, a, b)

    @staticmethod
    def backward(ctx, g):
        be, na, nb = g._device.backend, *ctx.needs_input_grad
        return (_make(be.zeros(ctx.shapes[0], g._data.dtype), g._device) if na else None,
                _make(be.zeros(ctx.shapes[1], g._data.dtype), g._device) if nb else None)

    @staticmethod
    def backward_raw(ctx, be, g):
        na, nb = ctx.needs_input_grad
        return (be.zeros(ctx.shapes[0], g.dtype) if na else None,
                be.zeros(ctx.shapes[1], g.dtype) if nb else None)


class DivTrunc(DivFloor):
    _node_name = "DivBackward2"
    _prim, _kernel = "trunc_divide", "div_trunc"


class DivTrue(Div):
    """torch.div(a, b, rounding_mode=None): a true division recorded as torch records the
    rounding-mode overload."""
    _node_name = "DivBackward2"


def _is_operand(b):
    return isinstance(b, Tensor) or hasattr(b, "__array_interface__")


def floor_divide(a, b, inplace=False):
    """a // b for a Tensor a; NotImplemented for an operand of no operand type. inplace: the
    node of floor_divide_ (the result is written into a by the caller)."""
    return binary(FloorDivideInplace if inplace else FloorDivide, a, b)


def rfloordiv(a, number):
    """number // a for a Tensor a (torch.floor_divide with a number first)."""
    return _scalar_first(RFloorDivide, a, number)


def remainder(a, b):
    return binary(Remainder if _is_operand(b) else RemainderScalar, a, b)


def rmod(a, number):
    """number % a for a Tensor a (torch.remainder(number, a))."""
    return _scalar_first(RRemainder, a, number)


def fmod(a, b):
    return binary(Fmod if _is_operand(b) else FmodScalar, a, b)


def _scalar_first(cls, a, number):
    if not isinstance(number, Number) or isinstance(number, complex):
        return NotImplemented
    a, number = _operands(a, number)
    if number.__class__ is bool and a._data.dtype.kind != "b":
        number = int(number)
    return apply_binary(cls, a, number)


def div_mode(a, b, rounding_mode):
    """torch.div(a, b, rounding_mode=...) for a Tensor a, the mode already checked."""
    if rounding_mode is None:
        return binary(DivTrue, a, b, True)
    return binary(DivTrunc if rounding_mode == "trunc" else DivFloor, a, b)


def rounding_mode_error(rounding_mode):
    return RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                        f"'{rounding_mode}'")
