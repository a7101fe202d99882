"""More activations behind minigrad.nn.functional: silu, mish, hardtanh/relu6, logsigmoid,
softmin, hardsigmoid, hardswish, prelu, celu, selu, threshold, tanhshrink, softshrink,
hardshrink.

Each elementwise one is a node under torch's name, composed of backend primitives in torch's
order of roundings; gradients at the kinks (x exactly at a threshold) take torch's side. The
backward is written in Tensor ops, so create_graph gives a differentiable gradient.
"""
import struct
import warnings

from ..autograd.function import apply_first
from ..tensor import Tensor, _make
from .broadcast import sum_to
from .elementwise import Builtin, device_error, where
from .nn_ops import softplus_array, _float_input, _NEG_SLOPE_INPLACE
from .inplace import inplace as _inplace
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies


def _tensor(x, fn, arg="input", pos=1):
    if not isinstance(x, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not {type_name(x)}")
    return x


def _number(x, fn, arg, pos):
    """torch's TypeError for a Number argument (a threshold, a lambda) of another type."""
    from numbers import Number
    if isinstance(x, bool) or not isinstance(x, Number) or isinstance(x, complex):
        if not isinstance(x, bool):
            from .._arg_errors import type_name
            raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Number, not {type_name(x)}")
    return x


def _full(be, v, dtype):
    return be.full((), v, dtype)


class _Pointwise(Builtin):
    """y = _f(x, *params) elementwise on arrays; the gradient _df(g, x, *params) in Tensor ops
    (x: the saved input). The in-place forms save a copy of the input (inplace(keeps_input))."""

    @classmethod
    def forward(cls, ctx, a, *params):
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(a)
            ctx.params = params
        return _make(cls._f(a._device.backend, a._data, *params), a._device)

    @classmethod
    def backward(cls, ctx, g):
        x, = ctx.saved_tensors
        return (cls._df(g, x, *ctx.params),) + (None,) * len(ctx.params)


class Silu(_Pointwise):
    _node_name = "SiluBackward0"

    @staticmethod
    def _f(be, x):
        return be.div(x, be.add(be.exp(be.neg(x)), 1))  # torch: x / (1 + exp(-x))

    @staticmethod
    def _df(g, x):
        s = 1 / ((-x).exp() + 1)
        return g * s * ((1 - s) * x + 1)


class Mish(_Pointwise):
    _node_name = "MishBackward0"

    @staticmethod
    def _f(be, x):
        return be.mul(x, be.tanh(softplus_array(be, x)))

    @staticmethod
    def _df(g, x):
        t = (x.clamp(min=0) + (-x.abs()).exp().log1p()).tanh()
        s = 1 / ((-x).exp() + 1)
        return g * (t + x * s * (1 - t * t))


class Hardtanh(_Pointwise):
    """clamp(x, min_val, max_val); the gradient is g strictly inside (min_val, max_val), else 0."""
    _node_name = "HardtanhBackward0"

    @staticmethod
    def _f(be, x, lo, hi):
        return be.clip(x, lo, hi)

    @staticmethod
    def _df(g, x, lo, hi):
        return where((x > lo) & (x < hi), g, 0)


class LogSigmoid(_Pointwise):
    _node_name = "LogSigmoidBackward0"

    @staticmethod
    def _f(be, x):  # torch: min(x, 0) - log1p(exp(-|x|))
        return be.sub(be.minimum(x, 0), be.log1p(be.exp(be.neg(be.abs(x)))))

    @staticmethod
    def _df(g, x):
        z = (-x.abs()).exp()
        q = z / (z + 1)
        return g * where(x < 0, 1 - q, q)


# torch's hardsigmoid gradient multiplies by 1.0f / 6.0f, a float32 constant in every dtype
_ONE_SIXTH_F32 = struct.unpack("f", struct.pack("f", 1 / 6))[0]


class Hardsigmoid(_Pointwise):
    _node_name = "HardsigmoidBackward0"

    @staticmethod
    def _f(be, x):  # torch: min(max(x + 3, 0), 6) / 6
        return be.div(be.minimum(be.maximum(be.add(x, 3), 0), 6), 6)

    @staticmethod
    def _df(g, x):
        return where((x > -3) & (x < 3), g * _ONE_SIXTH_F32, 0)


class Hardswish(_Pointwise):
    _node_name = "HardswishBackward0"

    @staticmethod
    def _f(be, x):  # torch: x * min(max(x + 3, 0), 6) / 6
        return be.div(be.mul(x, be.minimum(be.maximum(be.add(x, 3), 0), 6)), 6)

    @staticmethod
    def _df(g, x):
        return where(x <= -3, 0, where(x < 3, g * (x / 3 + 0.5), g))


class Threshold(_Pointwise):
    """x where x > threshold, else value; the gradient is 0 where x <= threshold."""
    _node_name = "ThresholdBackward0"

    @staticmethod
    def _f(be, x, th, value):
        return be.where(be.le(x, th), _full(be, value, x.dtype), x)

    @staticmethod
    def _df(g, x, th, value):
        return where(x <= th, 0, g)


class ThresholdInplace(Threshold):
    _node_name = "ThresholdBackward1"


class Softshrink(_Pointwise):
    _node_name = "SoftshrinkBackward0"

    @staticmethod
    def _f(be, x, lambd):
        zero = _full(be, 0, x.dtype)
        return be.where(be.gt(x, lambd), be.sub(x, lambd),
                        be.where(be.lt(x, -lambd), be.add(x, lambd), zero))

    @staticmethod
    def _df(g, x, lambd):
        return where((x >= -lambd) & (x <= lambd), 0, g)


class Hardshrink(_Pointwise):
    _node_name = "HardshrinkBackward0"

    @staticmethod
    def _f(be, x, lambd):
        return be.where(_between(be, x, -lambd, lambd), _full(be, 0, x.dtype), x)

    @staticmethod
    def _df(g, x, lambd):
        return where((x >= -lambd) & (x <= lambd), 0, g)


def _between(be, x, lo, hi):
    """lo <= x <= hi, as a bool array (from primitives: both comparisons, then a where)."""
    return be.where(be.ge(x, lo), be.le(x, hi), be.ge(x, lo))


class Elu3(Builtin):
    """torch's elu kernel with (alpha, scale, input_scale): x * scale where x > 0, else
    alpha * scale * expm1(x * input_scale); celu and selu are this node (CeluBackward0,
    EluBackward0). The in-place forms save their output, as torch's (is_result)."""
    _node_name = "EluBackward0"
    _result = False

    @classmethod
    def forward(cls, ctx, a, alpha, scale, input_scale):
        be = a._device.backend
        x = a._data
        negcoef = alpha * scale
        neg = be.mul(be.expm1(be.mul(be.minimum(x, 0), input_scale)), negcoef)
        out = _make(be.where(be.gt(x, 0), be.mul(x, scale) if scale != 1 else x, neg), a._device)
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(out if cls._result else a)
            ctx.params = (alpha, scale, input_scale)
        return out

    @classmethod
    def backward(cls, ctx, g):
        y, = ctx.saved_tensors
        alpha, scale, input_scale = ctx.params
        negcoef = alpha * scale
        pos = g * scale if scale != 1 else g
        if cls._result:
            if alpha < 0:
                raise RuntimeError(_NEG_SLOPE_INPLACE.format("elu"))
            return where(y <= 0, g * input_scale * (y + negcoef), pos), None, None, None
        return where(y <= 0, g * (input_scale * negcoef) * (y.clamp(max=0) * input_scale).exp(), pos), \
            None, None, None


class Celu(Elu3):
    _node_name = "CeluBackward0"


class CeluInplace(Elu3):
    _node_name = "CeluBackward1"
    _result = True


class EluInplace3(Elu3):
    _node_name = "EluBackward1"
    _result = True


class Prelu(Builtin):
    """x where x > 0, else weight * x, weight one value or one per channel (dim 1)."""
    _node_name = "PreluKernelBackward0"

    @staticmethod
    def forward(ctx, a, w):
        be = a._device.backend
        x, wd = a._data, w._data
        if wd.size == 1 or x.ndim < 2:
            wb = be.reshape(wd, ())
        else:
            wb = be.reshape(wd, (wd.size,) + (1,) * (x.ndim - 2))
        ctx.save_for_backward(a, _make(wb, w._device))
        ctx.wshape = wd.shape
        return _make(be.where(be.gt(x, 0), x, be.mul(wb, x)), a._device)

    @staticmethod
    def backward(ctx, g):
        x, wb = ctx.saved_tensors
        nx, nw = ctx.needs_input_grad[:2]
        pos = x > 0
        gx = where(pos, g, wb * g) if nx else None
        gw = None
        if nw:
            gw = sum_to(where(pos, 0, x * g), tuple(wb.shape)).reshape(ctx.wshape)
        return gx, gw


# ---- the functions of minigrad.nn.functional ---------------------------------------------------

def _act(cls, input, name, kernel, *params, inplace=False, keeps_input=True):
    _tensor(input, name)
    if kernel is not None:
        _float_input(input, kernel)
    if inplace:
        return _inplace(input, lambda t: apply_first(cls, t, *params), keeps_input=keeps_input)
    return apply_first(cls, input, *params)


def silu(input, inplace=False):
    return _act(Silu, input, "silu", "silu_cpu", inplace=inplace)


def mish(input, inplace=False):
    return _act(Mish, input, "mish", "mish_cpu", inplace=inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    name = "hardtanh_" if inplace else "hardtanh"
    _tensor(input, name)
    _number(min_val, name, "min_val", 2), _number(max_val, name, "max_val", 3)
    if input._data.dtype.kind == "b":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if not input.is_floating_point():
        min_val, max_val = int(min_val), int(max_val)  # torch casts the bounds to the input's type
    return _act(Hardtanh, input, name, None, min_val, max_val, inplace=inplace)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def logsigmoid(input):
    from ..memory_formats import row_major  # torch's result is row-major whatever input's layout
    return row_major(_act(LogSigmoid, input, "log_sigmoid", "log_sigmoid_cpu"))


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if _AUTOCAST_ON[0] and (r := _autocast("softmin", softmin, input, dim, _stacklevel, dtype)) is not None:
        return r
    _tensor(input, "softmin")
    if dim is None:
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the call to "
                      "include dim=X as an argument.", stacklevel=_stacklevel)
        dim = 0 if input._data.ndim in (0, 1, 3) else 1
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


def hardsigmoid(input, inplace=False):
    return _act(Hardsigmoid, input, "hardsigmoid", "hardsigmoid_cpu", inplace=inplace)


def hardswish(input, inplace=False):
    return _act(Hardswish, input, "hardswish", "hardswish_cpu", inplace=inplace)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def celu(input, alpha=1.0, inplace=False):
    name = "celu_" if inplace else "celu"
    _tensor(input, name)
    _number(alpha, name, "alpha", 2)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _act(CeluInplace if inplace else Celu, input, name, "elu_cpu", float(alpha), 1.0, 1.0 / alpha,
                inplace=inplace, keeps_input=False)


def selu(input, inplace=False):
    return _act(EluInplace3 if inplace else Elu3, input, "selu_" if inplace else "selu", "elu_cpu",
                _SELU_ALPHA, _SELU_SCALE, 1.0, inplace=inplace, keeps_input=False)


def threshold(input, threshold, value, inplace=False):
    name = "threshold_" if inplace else "threshold"
    _tensor(input, name)
    _number(threshold, name, "threshold", 2), _number(value, name, "value", 3)
    kind = "f" if input._data.dtype.char == "H" else input._data.dtype.kind  # (H: bfloat16)
    if kind == "b":
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    if kind != "f":
        threshold = int(threshold)  # torch casts the threshold to the input's type
    return _act(ThresholdInplace if inplace else Threshold, input, name, None, threshold, value,
                inplace=inplace)


def tanhshrink(input):
    _tensor(input, "tanhshrink")
    return input - input.tanh()  # torch composes it the same way (SubBackward0)


_FINFO_MAX = {"float32": "3.40282e+38", "float64": "1.79769e+308"}


def softshrink(input, lambd=0.5):
    _tensor(input, "softshrink")
    _number(lambd, "softshrink", "lambd", 2)
    _float_input(input, "softshrink_check")
    if lambd < 0:
        dt = input._data.dtype.name
        raise RuntimeError(f"lambda must be in range [0, {_FINFO_MAX[dt]}] for input dtype "
                           f"{input.dtype._legacy[:-6]}, but found {lambd:g}")
    return apply_first(Softshrink, input, lambd)


def hardshrink(input, lambd=0.5):
    _tensor(input, "hardshrink")
    _number(lambd, "hardshrink", "lambd", 2)
    _float_input(input, "hardshrink_cpu")
    return apply_first(Hardshrink, input, lambd)


def prelu(input, weight):
    if _AUTOCAST_ON[0] and (r := _autocast("prelu", prelu, input, weight)) is not None:
        return r
    _tensor(input, "prelu")
    _tensor(weight, "prelu", "weight", 2)
    if weight._device is not input._device:
        raise device_error(input, weight)
    _float_input(input, "prelu_cpu")
    if weight._data.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = "
                           f"{weight._data.ndim}")
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype._legacy[:-6]} and "
                           f"{weight.dtype._legacy[:-6]}")
    n = weight._data.size
    channels = input._data.shape[1] if input._data.ndim >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers "
                           f"= {n} and channel size = {channels}.")
    return Prelu.apply(input, weight)
