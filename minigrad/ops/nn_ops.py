"""Ops behind minigrad.nn.functional: linear (one fused node), leaky_relu, elu, softplus, gelu.

Like every built-in op, each forward computes on backend arrays; `backward` is written in Tensor
ops (so double backward works) and `backward_raw` on arrays (the hot path without create_graph).
"""
import math

from ..autograd.function import _record, NO_CTX, apply_first
from ..autograd.grad_mode import _grad_enabled
from ..dtypes import cpp_name
from ..tensor import Tensor, _make, _wrap_dim
from .broadcast import sum_to, sum_to_array
from .elementwise import Builtin, Relu as _Relu, device_error, where
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

_T = (1, 0)
_DIM0 = (0,)


class Linear(Builtin):
    """input @ weight.T + bias for input (..., in), weight (out, in), bias broadcastable to the
    result (usually (out,)). One node; the product reads weight through a transposed view."""
    _node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, x, w, b):
        be = x._device.backend
        xd = x._data
        shape = xd.shape
        if len(shape) > 2:
            xd = be.reshape(xd, (-1, shape[-1]))
        bd = None if b is None else b._data
        fused = bd is not None and bd.shape == w._data.shape[:1]
        # the usual bias (out,) is added by the product itself (one GEMM launch on CUDA)
        out = be.matmul(xd, be.transpose(w._data, _T), bd if fused else None)
        if len(shape) > 2:
            out = be.reshape(out, shape[:-1] + (out.shape[-1],))
        if bd is not None and not fused:
            if len(bd.shape) == 1:
                be.binary_inplace("add", out, bd)  # into the product's fresh memory
            else:
                out = be.add(out, bd)
        nx, nw, nb = ctx.needs_input_grad[:3]
        if nx or nw:
            ctx.save_for_backward(x if nw else None, w if nx else None)
        if nb:
            bs = b._data.shape
            # the usual bias (out,) on a 2-d product sums its gradient over dim 0
            ctx.bias_shape = None if len(shape) == 2 and bs == out.shape[1:] else bs
        return _make(out, x._device)

    @staticmethod
    def backward(ctx, g):
        nx, nw, nb = ctx.needs_input_grad
        x, w = ctx.saved_tensors if nx or nw else (None, None)
        gx = gw = gb = None
        if nx:
            gx = g.matmul(w)
        if nw:
            gw = g.reshape(-1, g._data.shape[-1]).t().matmul(x.reshape(-1, x._data.shape[-1]))
        if nb:
            bs = ctx.bias_shape
            gb = g.sum(0) if bs is None else sum_to(g, bs)
        return gx, gw, gb

    @staticmethod
    def backward_raw(ctx, be, g):
        nx, nw, nb = ctx.needs_input_grad
        x, w = ctx.saved_arrays() if nx or nw else (None, None)
        gx = gw = gb = None
        gshape = g.shape
        if len(gshape) == 2:
            if nx:
                gx = be.matmul(g, w)
            if nw:
                gw = be.matmul(be.transpose(g, _T), x)
        else:
            g2 = be.reshape(g, (-1, gshape[-1]))
            if nx:
                gx = be.reshape(be.matmul(g2, w), gshape[:-1] + (w.shape[1],))
            if nw:
                gw = be.matmul(be.transpose(g2, _T), be.reshape(x, (-1, x.shape[-1])))
        if nb:
            bs = ctx.bias_shape
            gb = be.sum(g, _DIM0, False) if bs is None else sum_to_array(be, g, bs)
        return gx, gw, gb


# torch's node names: addmm/mm for 2-d input; other ranks go through a view of a 2-d product
class _LinearMm(Linear):
    _node_name = "MmBackward0"


class _LinearView(Linear):
    _node_name = "ViewBackward0"


class _LinearUnsafeView(Linear):
    _node_name = "UnsafeViewBackward0"


class _LinearSqueeze(Linear):
    _node_name = "SqueezeBackward4"


class _LinearAdd(Linear):
    _node_name = "AddBackward0"  # torch: a product, then a bias that is not a vector added to it


def _linear_checks(input, weight, bias):
    for name, t in (("input", input), ("weight", weight), ("bias", bias)):
        if (t is not None or name != "bias") and not isinstance(t, Tensor):
            from .._arg_errors import type_name
            pos = {"input": 1, "weight": 2, "bias": 3}[name]
            raise TypeError(f"linear(): argument '{name}' (position {pos}) must be Tensor, "
                            f"not {type_name(t)}")
    for t in (weight, bias):
        if t is not None and t._device is not input._device:
            raise device_error(input, t)
    xs, ws = input._data.shape, weight._data.shape
    if not xs or not ws:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{len(xs)}D and {len(ws)}D")
    if len(ws) > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {len(ws)}D")
    if input._data.dtype != weight._data.dtype:
        a, b = input.dtype._legacy[:-6], weight.dtype._legacy[:-6]
        if bias is not None:  # torch's addmm path words it differently from its mm path
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {a} and {b}")
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cpp_name(input.dtype)} != "
                           f"{cpp_name(weight.dtype)}")
    if len(ws) == 1:
        if bias is not None:
            raise RuntimeError("mat2 must be a matrix, got 1-D tensor")
        return
    if xs[-1] != ws[1]:
        rows = 1
        for s in xs[:-1]:
            rows *= s
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{xs[-1]} and "
                           f"{ws[1]}x{ws[0]})")
    if input._data.dtype.kind == "b":
        from .linalg import bool_product
        bool_product(xs, (ws[1], ws[0]), "addmm_impl_cpu_")
    if bias is not None:
        if bias._data.dtype != input._data.dtype:
            raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                               f"{bias.dtype._legacy[:-6]} and {input.dtype._legacy[:-6]}")
        out = xs[:-1] + (ws[0],)
        bs = bias._data.shape
        if len(bs) > len(out):
            raise RuntimeError(f"The expand operation's number of sizes provided ({len(out)}) must be "
                               f"greater or equal to the number of dimensions in the tensor ({len(bs)})")
        for i in range(1, len(bs) + 1):
            if bs[-i] != 1 and bs[-i] != out[-i]:
                raise RuntimeError(f"The expanded size of the tensor ({out[-i]}) must match the existing "
                                   f"size ({bs[-i]}) at non-singleton dimension {len(out) - i}.  Target "
                                   f"sizes: {list(out)}.  Tensor sizes: {list(bs)}")


def linear(input, weight, bias=None):
    """torch.nn.functional.linear: input @ weight.T + bias, recorded as one node."""
    if _AUTOCAST_ON[0] and (r := _autocast("linear", linear, input, weight, bias)) is not None:
        return r
    try:
        xd, wd = input._data, weight._data
        ok = (input._device is weight._device and xd.dtype is wd.dtype and len(wd.shape) == 2
              and xd.shape and xd.shape[-1] == wd.shape[1] and xd.dtype.kind != "b")
        if ok and bias is not None:
            bd = bias._data
            ok = bias._device is input._device and bd.dtype is xd.dtype and bd.shape == (wd.shape[0],)
    except AttributeError:
        ok = False
    if not ok:
        _linear_checks(input, weight, bias)
        if len(weight._data.shape) == 1:
            return input.matmul(weight)  # torch: a vector weight makes this a matrix-vector product
    nd = len(xd.shape)
    if nd == 2:
        cls = Linear if bias is not None else _LinearMm
    elif bias is not None:
        # torch flattens a contiguous input into one addmm (a view after it); a strided one takes
        # a matmul and then the bias added
        flat = nd == 1 or (input.is_contiguous() and bias.is_contiguous())
        cls = _LinearView if len(bias._data.shape) == 1 and flat else _LinearAdd
    else:
        cls = _LinearSqueeze if nd == 1 else _LinearUnsafeView
    if _grad_enabled():
        nx, nw = input._requires_grad, weight._requires_grad
        nb = bias._requires_grad if bias is not None else False
        if nx or nw or nb:
            return _record(cls, (input, weight, bias), (nx, nw, nb))
    return cls.forward(NO_CTX, input, weight, bias)


# ---- activations ------------------------------------------------------------------------------

class _GradOp(Builtin):
    """An op's gradient, linear in the incoming gradient g, as a function of g and of the op's
    input (or output) x, recorded with create_graph the way torch records threshold_backward and
    friends: x is an input whose derivative is zero. Because of it a gradient taken with
    create_graph stays connected to x (requires_grad, as in torch), and differentiating it again
    gives zeros instead of "appears to not have been used in the graph". Subclasses give _grad,
    on arrays; the ordinary backward never builds these nodes."""

    @classmethod
    def forward(cls, ctx, g, x, *params):
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(x)
            ctx.params = params
        return _make(cls._grad(x._device.backend, g._data, x._data, *params), x._device)

    @classmethod
    def backward(cls, ctx, gg):
        ng, nx = ctx.needs_input_grad[:2]
        x, = ctx.saved_tensors if ng else (None,)
        rest = (None,) * (len(ctx.needs_input_grad) - 2)
        zero = _make(gg._device.backend.zeros(gg._data.shape, gg._data.dtype), gg._device) if nx else None
        return (cls.apply(gg, x, *ctx.params) if ng else None, zero) + rest

    @classmethod
    def backward_raw(cls, ctx, be, gg):
        ng, nx = ctx.needs_input_grad[:2]
        rest = (None,) * (len(ctx.needs_input_grad) - 2)
        return ((cls._grad(be, gg, ctx.saved_array(), *ctx.params) if ng else None,
                 be.zeros(gg.shape, gg.dtype) if nx else None) + rest)


class ThresholdBackward(_GradOp):
    """relu's gradient: g where relu's output is positive, else 0."""
    _node_name = "ThresholdBackwardBackward0"

    @staticmethod
    def _grad(be, g, out):
        return be.relu_backward(g, out)


class LeakyReluBackward(_GradOp):
    """leaky_relu's gradient: g where the input is positive, else negative_slope * g."""
    _node_name = "LeakyReluBackwardBackward0"

    @staticmethod
    def _grad(be, g, a, slope):
        return be.where(be.gt(a, 0), g, be.mul(g, slope))


class NllLossBackward(_GradOp):
    """nll_loss's gradient with respect to its input (computed by the loss, handed over as g)."""
    _node_name = "NllLossBackwardBackward0"

    @staticmethod
    def _grad(be, g, x):
        return g


class Relu(_Relu):
    """Tensor.relu's op with torch's check of bool inputs, and a create_graph backward that stays
    connected to the input (through the saved output) as torch's threshold_backward does."""
    _node_name = "ReluBackward0"

    @staticmethod
    def forward(ctx, a):
        if a._data.dtype.kind == "b":
            raise RuntimeError("Boolean inputs not supported for relu")
        out = _make(a._device.backend.relu(a._data), a._device)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        out, = ctx.saved_tensors
        return ThresholdBackward.apply(g, out)


def relu(a):
    """minigrad.relu / F.relu: Relu applied to a Tensor a."""
    if a._requires_grad and _grad_enabled():
        return _record(Relu, (a,), (True,))
    return Relu.forward(NO_CTX, a)


def softmax_non_float(a, dim, name):
    """torch's error for softmax / log_softmax of a non-float tensor (an empty one is returned
    as is, in its dtype, as torch does); ops.reduce's softmax calls it for non-float input."""
    d = _wrap_dim(dim, a._data.ndim, name)
    if not a._data.size:
        return a.clone()
    kernel = "lastdim_kernel_impl" if d == max(a._data.ndim, 1) - 1 else "kernel_impl"
    raise NotImplementedError(f"\"{name}_{kernel}\" not implemented for '{a.dtype._legacy[:-6]}'")


_NEG_SLOPE_INPLACE = ("In-place {} backward calculation is triggered with a negative slope which is not "
                      "supported. This is caused by calling in-place forward function with a negative "
                      "slope, please call out-of-place version instead.")
_FILE_AN_ISSUE = (" File an issue at https://github.com/pytorch/pytorch if you do require supporting "
                  "in-place leakRelu backward calculation with negative slope")  # torch's words


class LeakyRelu(Builtin):
    """x where x > 0, else negative_slope * x. Saves a mask, not the input, so that the in-place
    form (computed, then copied over the input) leaves nothing stale behind."""
    _node_name = "LeakyReluBackward0"
    _inplace = False

    @classmethod
    def forward(cls, ctx, a, slope):
        be = a._device.backend
        pos = be.gt(a._data, 0)
        if ctx.needs_input_grad[0]:
            # the input only for the create_graph backward (the in-place form overwrites it)
            ctx.save_for_backward(_make(pos, a._device), None if cls._inplace else a)
            ctx.slope = slope
        return _make(be.where(pos, a._data, be.mul(a._data, slope)), a._device)

    @classmethod
    def backward(cls, ctx, g):
        if cls._inplace and ctx.slope < 0:
            raise RuntimeError(_NEG_SLOPE_INPLACE.format("leakyReLu") + _FILE_AN_ISSUE)
        pos, a = ctx.saved_tensors
        if a is None:
            return where(pos, g, g * ctx.slope), None
        return LeakyReluBackward.apply(g, a, ctx.slope), None

    @classmethod
    def backward_raw(cls, ctx, be, g):
        if cls._inplace and ctx.slope < 0:
            return NotImplemented
        pos = ctx.saved_array()
        return be.where(pos, g, be.mul(g, ctx.slope)), None


class LeakyReluInplace(LeakyRelu):
    _node_name = "LeakyReluBackward1"
    _inplace = True


class Elu(Builtin):
    """x where x > 0, else alpha * (exp(x) - 1); the in-place form saves its output instead."""
    _node_name = "EluBackward0"
    _inplace = False

    @classmethod
    def forward(cls, ctx, a, alpha):
        be = a._device.backend
        x = a._data
        neg = be.mul(be.sub(be.exp(be.minimum(x, 0)), 1), alpha)  # exp never overflows
        out = _make(be.where(be.gt(x, 0), x, neg), a._device)
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(out if cls._inplace else a)
            ctx.alpha = alpha
        return out

    @classmethod
    def backward(cls, ctx, g):
        y, = ctx.saved_tensors
        if cls._inplace:
            if ctx.alpha < 0:
                raise RuntimeError(_NEG_SLOPE_INPLACE.format("elu"))
            return where(y > 0, g, g * (y + ctx.alpha)), None
        return where(y > 0, g, g * (y.clamp(max=0).exp() * ctx.alpha)), None


class EluInplace(Elu):
    _node_name = "EluBackward1"
    _inplace = True


def softplus_array(be, z):
    """log(1 + exp(z)) without overflow: max(z, 0) + log1p(exp(-|z|))."""
    return be.add(be.maximum(z, 0), be.log1p(be.exp(be.neg(be.abs(z)))))


def log_sigmoid_tensor(x):
    """log(sigmoid(x)) in Tensor ops (for double backward): min(x, 0) - log(1 + exp(-|x|))."""
    return x.clamp(max=0) - (-x.abs()).exp().log1p()


class Softplus(Builtin):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold (as torch)."""
    _node_name = "SoftplusBackward0"

    @staticmethod
    def forward(ctx, a, beta, threshold):
        be = a._device.backend
        z = be.mul(a._data, beta)
        linear = be.gt(z, threshold)
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(a, _make(linear, a._device))
            ctx.beta = beta
        out = be.where(linear, a._data, be.div(softplus_array(be, z), beta))
        return _make(out, a._device)

    @staticmethod
    def backward(ctx, g):
        a, linear = ctx.saved_tensors
        return where(linear, g, g * (a * ctx.beta).sigmoid()), None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        a, linear = ctx.saved_arrays()
        return be.where(linear, g, be.mul(g, be.sigmoid(be.mul(a, ctx.beta)))), None, None


_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_GELU_C = 0.044715


class GeluTanh(Builtin):
    """gelu(x, approximate='tanh'): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    _node_name = "GeluBackward0"

    @staticmethod
    def forward(ctx, a, _approximate):
        be = a._device.backend
        x = a._data
        inner = be.mul(be.add(x, be.mul(be.mul(be.mul(x, x), x), _GELU_C)), _SQRT_2_OVER_PI)
        out = be.mul(be.mul(x, 0.5), be.add(be.tanh(inner), 1))
        ctx.save_for_backward(a)
        return _make(out, a._device)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        t = ((x + x * x * x * _GELU_C) * _SQRT_2_OVER_PI).tanh()
        dinner = (x * x * (3 * _GELU_C) + 1) * _SQRT_2_OVER_PI
        return g * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * dinner), None


_SQRT1_2 = math.sqrt(0.5)
_GELU_PDF = 2 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5  # 1 / sqrt(2 pi), as torch's kBeta


class Gelu(Builtin):
    """gelu(x) = x * 0.5 * (1 + erf(x / sqrt(2))), in torch's order of roundings; its gradient
    g * (cdf + x * pdf) likewise."""
    _node_name = "GeluBackward0"

    @staticmethod
    def forward(ctx, a, _approximate):
        be = a._device.backend
        x = a._data
        ctx.save_for_backward(a)
        return _make(be.mul(be.mul(x, 0.5), be.add(be.erf(be.mul(x, _SQRT1_2)), 1)), a._device)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        cdf = ((x * _SQRT1_2).erf() + 1) * 0.5
        pdf = (x * x * -0.5).exp() * _GELU_PDF
        return g * (cdf + x * pdf), None

    @staticmethod
    def backward_raw(ctx, be, g):
        x = ctx.saved_array()
        cdf = be.mul(be.add(be.erf(be.mul(x, _SQRT1_2)), 1), 0.5)
        pdf = be.mul(be.exp(be.mul(be.mul(x, x), -0.5)), _GELU_PDF)
        return be.mul(g, be.add(cdf, be.mul(x, pdf))), None


def _float_input(a, kernel):
    if not a.is_floating_point():
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{a.dtype._legacy[:-6]}'")


def leaky_relu(a, slope, inplace_form=False):
    _float_input(a, "leaky_relu_cpu")
    return apply_first(LeakyReluInplace if inplace_form else LeakyRelu, a, float(slope))


def elu(a, alpha, inplace_form=False):
    _float_input(a, "elu_cpu")
    return apply_first(EluInplace if inplace_form else Elu, a, float(alpha))


def softplus(a, beta, threshold):
    _float_input(a, "softplus_cpu")
    return apply_first(Softplus, a, beta, threshold)


def gelu(a, approximate):
    _float_input(a, "GeluKernelImpl")
    return apply_first(GeluTanh if approximate == "tanh" else Gelu, a, approximate)

