"""Losses as fused ops, each one node: cross-entropy / NLL over class indices (and over class
probabilities), MSE, smooth L1, Huber, binary cross-entropy (on probabilities and on logits).

Forwards compute on backend arrays; the results of the argument checks (class counts, which
targets are ignored) are decided in the wrappers below, so the ops only compute. Weights are
constants: torch does not differentiate these losses with respect to them either.
"""
import warnings

from ..autograd.function import _record, NO_CTX, check_savable
from ..autograd.grad_mode import _grad_enabled
from .._arg_errors import type_name
from ..dtypes import int64, promote_types, uint8
from ..tensor import Tensor, _make
from .broadcast import broadcast_shape, sum_to, sum_to_array
from .elementwise import Builtin, device_error
from .index import index_bounds
from .nn_ops import NllLossBackward, log_sigmoid_tensor
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

_NAN = float("nan")
_BCE_EPS = 9.999999960041972e-13  # torch clamps with 1e-12 as a float32 constant, in every dtype


def check_reduction(reduction):
    if reduction not in ("mean", "sum", "none"):
        if reduction == "elementwise_mean":
            warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                          stacklevel=3)
            return "mean"
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(be, elem, reduction):
    """An array of per-element losses reduced as asked ('mean' of nothing is nan, as in torch)."""
    if reduction == "none":
        return elem
    if reduction == "sum":
        return be.sum(elem, None, False)
    return be.mean(elem, None, False)  # one launch on a GPU; nan when there is nothing to average


def _scale(g, reduction, n):
    """The incoming gradient as a factor per element (Tensor or array alike)."""
    return g / n if reduction == "mean" and n else g


def _weighted_scale_array(ctx, be, g):
    """The per-element gradient scale of a reduced loss, times the loss's weight if it has one."""
    scale = _scale_array(be, g, ctx.reduction, ctx.n)
    return scale if ctx.weight is None else be.mul(scale, ctx.weight)


def _scale_array(be, g, reduction, n):
    return be.div(g, n) if reduction == "mean" and n else g


def _dtype_name(t):
    return t.dtype._legacy[:-6]


def _no_weight_grad(fn, name, t):
    if t is not None and t._requires_grad and _grad_enabled():
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument '{name}'. "
                           "This input cannot have requires_grad True.")


def _same_device(input, *others):
    for t in others:
        if t is not None and t._device is not input._device:
            raise device_error(input, t)


# ---- pointwise regression losses ---------------------------------------------------------------

class MseLoss(Builtin):
    """(input - target)^2, reduced; input and target broadcast against each other."""
    _node_name = "MseLossBackward0"

    @staticmethod
    def forward(ctx, x, t, reduction):
        be = x._device.backend
        d = be.sub(x._data, t._data)
        n = d.size
        if ctx.needs_input_grad[0] or ctx.needs_input_grad[1]:
            # the difference is kept for the raw backward; x and t for the Tensor one
            ctx.save_for_backward(x, t, _make(d, x._device))
            ctx.reduction, ctx.k = reduction, (2.0 / n if reduction == "mean" and n else 2.0)
            xs, ts = x._data.shape, t._data.shape
            ctx.shapes = None if xs == ts else (xs, ts)
        if reduction == "none":
            return _make(be.mul(d, d), x._device)
        total = be.vdot(d, d)  # the sum of squares, without the squares as an array
        if reduction == "sum":
            return _make(total, x._device)
        return _make(be.div(total, n) if n else be.full((), _NAN, d.dtype), x._device)

    @staticmethod
    def backward(ctx, g):
        x, t, _ = ctx.saved_tensors
        nx, nt = ctx.needs_input_grad[:2]
        gd = (x - t) * (g * ctx.k)
        return (sum_to(gd, x._data.shape) if nx else None,
                sum_to(-gd, t._data.shape) if nt else None, None)

    @staticmethod
    def backward_raw(ctx, be, g):
        d = ctx.saved_array(2)
        nx, nt = ctx.needs_input_grad[:2]
        gd = be.mul(be.mul(d, ctx.k), g)  # g is 0-d unless reduction="none": scale d first
        shapes = ctx.shapes
        if shapes is None:
            return gd if nx else None, be.neg(gd) if nt else None, None
        return (sum_to_array(be, gd, shapes[0]) if nx else None,
                sum_to_array(be, be.neg(gd), shapes[1]) if nt else None, None)


class _PointwiseLoss(Builtin):
    """loss(input - target; param) per element, reduced. Subclasses give the loss on arrays and
    its derivative in d on arrays and on Tensors."""

    @classmethod
    def forward(cls, ctx, x, t, reduction, param):
        be = x._device.backend
        elem = cls._loss(be, be.sub(x._data, t._data), param)
        if ctx.needs_input_grad[0] or ctx.needs_input_grad[1]:
            ctx.save_for_backward(x, t)
            ctx.reduction, ctx.n, ctx.param = reduction, elem.size, param
        return _make(_reduce(be, elem, reduction), x._device)

    @classmethod
    def backward(cls, ctx, g):
        x, t = ctx.saved_tensors
        nx, nt = ctx.needs_input_grad[:2]
        gd = cls._dloss(x - t, ctx.param) * _scale(g, ctx.reduction, ctx.n)
        return (sum_to(gd, x._data.shape) if nx else None,
                sum_to(-gd, t._data.shape) if nt else None, None, None)

    @classmethod
    def backward_raw(cls, ctx, be, g):
        x, t = ctx.saved_arrays()
        nx, nt = ctx.needs_input_grad[:2]
        gd = be.mul(cls._dloss_array(be, be.sub(x, t), ctx.param),
                    _scale_array(be, g, ctx.reduction, ctx.n))
        return (sum_to_array(be, gd, x.shape) if nx else None,
                sum_to_array(be, be.neg(gd), t.shape) if nt else None, None, None)


class SmoothL1Loss(_PointwiseLoss):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta; the derivative is clamp(d / beta, -1, 1)."""
    _node_name = "SmoothL1LossBackward0"

    @staticmethod
    def _loss(be, d, beta):
        a = be.abs(d)
        return be.where(be.lt(a, beta), be.div(be.mul(be.mul(d, d), 0.5), beta), be.sub(a, 0.5 * beta))

    @staticmethod
    def _dloss(d, beta):
        return (d / beta).clamp(-1.0, 1.0)

    @staticmethod
    def _dloss_array(be, d, beta):
        return be.clip(be.div(d, beta), -1.0, 1.0)


class HuberLoss(_PointwiseLoss):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta); the derivative is clamp(d, -delta, delta)."""
    _node_name = "HuberLossBackward0"

    @staticmethod
    def _loss(be, d, delta):
        a = be.abs(d)
        return be.where(be.lt(a, delta), be.mul(be.mul(d, d), 0.5), be.mul(be.sub(a, 0.5 * delta), delta))

    @staticmethod
    def _dloss(d, delta):
        return d.clamp(-delta, delta)

    @staticmethod
    def _dloss_array(be, d, delta):
        return be.clip(d, -delta, delta)


def _size(t):
    return f"minigrad.Size({list(t._data.shape)})"


def regression_operands(input, target, name, floating=True):
    """torch's checks and warning for mse/l1/smooth-l1/huber; the operands in one dtype."""
    for t in (target, input):  # torch's wrappers compare target.size() with input.size() first
        if not isinstance(t, Tensor):
            raise AttributeError(f"'{type(t).__name__}' object has no attribute 'size'")
    _same_device(input, target)
    if target._data.shape != input._data.shape:
        warnings.warn(f"Using a target size ({_size(target)}) that is different to the input size "
                      f"({_size(input)}). This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)
        broadcast_shape(input._data.shape, target._data.shape)
    if input._data.dtype is not target._data.dtype:
        d = promote_types(input.dtype, target.dtype)
        input, target = input.to(d), target.to(d)
    if floating and not input.is_floating_point():
        raise NotImplementedError(f"\"{name.replace('_loss', '')}_cpu\" not implemented for "
                                  f"'{_dtype_name(input)}'")
    return input, target


def mse_loss(input, target, reduction="mean"):
    """The fused MSE; the fast path is a float input and target of one shape, dtype and device."""
    if _AUTOCAST_ON[0] and (r := _autocast("mse_loss", mse_loss, input, target, reduction)) is not None:
        return r
    try:
        ok = (input._data.shape == target._data.shape and input._device is target._device
              and input._data.dtype is target._data.dtype and input._data.dtype.kind == "f")  # (bfloat16: below)
    except AttributeError:
        ok = False
    if not ok:
        input, target = regression_operands(input, target, "mse_loss")
    if reduction != "mean" and reduction != "sum" and reduction != "none":
        reduction = check_reduction(reduction)
    if _grad_enabled():
        nx, nt = input._requires_grad, target._requires_grad
        if nx or nt:
            return _record(MseLoss, (input, target, reduction), (nx, nt, False))
    return MseLoss.forward(NO_CTX, input, target, reduction)


def smooth_l1_loss(input, target, reduction, beta):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "smooth_l1_loss", smooth_l1_loss, input, target, reduction, beta)) is not None:
        return r
    input, target = regression_operands(input, target, "smooth_l1_loss")
    if beta.__class__ is not float and beta.__class__ is not int:
        if not isinstance(beta, (int, float)) or isinstance(beta, bool):
            raise TypeError(f"smooth_l1_loss(): argument 'beta' (position 4) must be float, not {type_name(beta)}")
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return _reduce_tensor((input - target).abs(), reduction)  # torch: plain L1 here
    return SmoothL1Loss.apply(input, target, reduction, float(beta))


def huber_loss(input, target, reduction, delta):
    if _AUTOCAST_ON[0] and (r := _autocast("huber_loss", huber_loss, input, target, reduction, delta)) is not None:
        return r
    out_dtype = input.dtype if isinstance(input, Tensor) else None
    input, target = regression_operands(input, target, "huber_loss")
    if out_dtype is not input.dtype and not out_dtype.is_floating_point:
        raise RuntimeError(f"result type {_dtype_name(input)} can't be cast to the desired output type "
                           f"{out_dtype._legacy[:-6]}")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    out = HuberLoss.apply(input, target, reduction, float(delta))
    # torch writes huber's result into a tensor of the input's dtype (smooth_l1 and mse promote)
    return out if out_dtype is input.dtype else out.to(out_dtype)


def _reduce_tensor(elem, reduction):
    if reduction == "none":
        return elem
    return elem.sum() if reduction == "sum" else elem.mean()


# ---- cross-entropy and NLL over class indices ---------------------------------------------------

def _host_number(be, a):
    """The one number in array a as a Python number (bfloat16 arrays hold bits: widened first)."""
    return be.to_numpy(be.bf16_to_f32(a) if a.dtype.char == "H" else a).item()


class CrossEntropy(Builtin):
    """Cross-entropy from logits x (or NLL from log-probabilities) over class indices.

    x is (N, C, *rest) (or (C,) for one sample) with the classes on dim 1; target (N, *rest).
    Per element: loss = -(1 - eps) w[t] logp[t] - eps / C * sum_c w[c] logp[c], 0 where t is
    ignored; 'mean' divides by the sum of w[t] over the targets not ignored (torch's weighted
    mean). The common case (2-d logits, no weight, nothing ignored, no smoothing) runs on the
    backend's fused cross_entropy primitives; the rest composes primitives.
    """
    _node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, x, t, weight, ignore_index, reduction, smoothing, logits, fast):
        be = x._device.backend
        xd = x._data
        record = ctx.needs_input_grad[0]
        if fast:
            loss, stats = be.cross_entropy(xd, t)
            if record:
                ctx.save_for_backward(x)
                ctx.reduction, ctx.fast, ctx.t, ctx.stats, ctx.total = reduction, True, t, stats, loss.shape[0]
            return _make(loss if reduction == "none" else _reduce(be, loss, reduction), x._device)
        shape = xd.shape
        n, c = (shape[0], shape[1]) if len(shape) > 1 else (1, shape[0])
        r = 1
        for s in shape[2:]:
            r *= s
        x3 = be.reshape(xd, (n, c, r))
        logp = be.log_softmax(x3, 1) if logits else x3
        valid, onehot, wt = _target_arrays(be, be.reshape(t, (n, r)), weight, ignore_index, c, xd.dtype)
        zero = be.zeros((), xd.dtype)
        picked = be.sum(be.where(onehot, logp, zero), (1,), False)
        elem = nll = be.neg(be.mul(picked, wt))
        if smoothing > 0:
            lw = logp if weight is None else be.mul(logp, be.reshape(weight, (1, c, 1)))
            smooth = be.where(valid, be.neg(be.sum(lw, (1,), False)), zero)
            elem = be.add(be.mul(elem, 1.0 - smoothing), be.mul(smooth, smoothing / c))
        if record:
            ctx.reduction, ctx.fast, ctx.logits, ctx.shapes = reduction, False, logits, (shape, (n, c, r))
            # for the backward, an ignored target has no class: its row of the gradient is then
            # p * 0 = +0 (or where(onehot, ...)'s +0), as torch's, not (p - 1) * 0 = -0 at class 0
            # (the forward keeps class 0: -(logp[0] * 0) is torch's +0)
            onehot_bw = be.mul(onehot, be.reshape(valid, (n, 1, r)))
            ctx.valid, ctx.onehot, ctx.wt, ctx.weight, ctx.smoothing = valid, onehot_bw, wt, weight, smoothing
            ctx.save_for_backward(x)  # nll_loss: only to connect a create_graph gradient to x
        if reduction == "none":
            return _make(be.reshape(elem, shape[:1] + shape[2:] if len(shape) > 1 else ()), x._device)
        total = be.sum(elem, None, False)
        if reduction == "sum":
            return _make(total, x._device)
        w_sum = _host_number(be, be.sum(wt, None, False))
        if record:
            ctx.total = w_sum
        # a zero weight sum divides as in torch: 0/0 is nan (all targets ignored, or weighted 0),
        # and weights of both signs that cancel give +-inf; torch divides the NLL and the
        # smoothing term apart, which shows when both are infinite
        if w_sum:
            return _make(be.div(total, w_sum), x._device)
        with warnings.catch_warnings():  # NumPy's divide-by-zero warnings: torch is silent
            warnings.simplefilter("ignore", RuntimeWarning)
            if smoothing > 0:
                return _make(be.add(be.mul(be.div(be.sum(nll, None, False), 0.0), 1.0 - smoothing),
                                    be.mul(be.div(be.sum(smooth, None, False), 0.0), smoothing / c)), x._device)
            return _make(be.div(total, 0.0), x._device)

    @staticmethod
    def backward(ctx, g):
        if ctx.reduction == "mean":
            if not ctx.total:
                x, = ctx.saved_tensors
                dx = _zero_total_grad(ctx, x._device.backend, g._data, x._data)
                return (NllLossBackward.apply(_make(dx, x._device), x),) + (None,) * 7
            g = g / ctx.total
        if ctx.fast:
            x, = ctx.saved_tensors
            be, dev = x._device.backend, x._device
            n, c = x._data.shape
            onehot = _make(be.eq(be.reshape(be.astype(ctx.t, int64.np), (n, 1)),
                                 be.reshape(be.arange(0, c, 1, int64.np), (1, c))), dev)
            scale = g.reshape(n, 1) if ctx.reduction == "none" else g
            return (x.softmax(1) - onehot.to(x.dtype)) * scale, None, None, None, None, None, None, None
        shape, (n, c, r) = ctx.shapes
        scale = g.reshape(n, 1, r) if ctx.reduction == "none" else g
        dev = g._device
        be = dev.backend
        dt = g._data.dtype

        def const(a, shape3):
            return _make(be.reshape(be.astype(a, dt), shape3), dev)
        onehot = const(ctx.onehot, (n, c, r))
        wt = const(ctx.wt, (n, 1, r))
        x, = ctx.saved_tensors
        if not ctx.logits:
            # recorded with x as an input (of zero derivative), as torch's nll_loss_backward is
            return NllLossBackward.apply(-(onehot * wt * scale).reshape(shape), x), None, None, None, None, None, None, None
        p = x.reshape(n, c, r).softmax(1)
        dx = (p - onehot) * wt
        eps = ctx.smoothing
        if eps > 0:
            w = ctx.weight
            wsum, wc = (c, 1.0) if w is None else (_host_number(be, be.sum(w, None, False)),
                                                    const(w, (1, c, 1)))
            dx = dx * (1.0 - eps) + (p * wsum - wc) * const(ctx.valid, (n, 1, r)) * (eps / c)
        return (dx * scale).reshape(shape), None, None, None, None, None, None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        if ctx.fast:
            x = ctx.saved_array()
            if ctx.reduction == "none":
                one = be.full((), 1, x.dtype)
                dx = be.mul(be.cross_entropy_backward(x, ctx.t, ctx.stats, one), be.reshape(g, (-1, 1)))
            else:  # g stays where it is (reading it on the host would wait for the GPU), and
                # the backward kernel divides it by the mean's count itself
                divisor = ctx.total if ctx.reduction == "mean" else 1
                dx = be.cross_entropy_backward(x, ctx.t, ctx.stats, g, divisor)
            return dx, None, None, None, None, None, None, None
        if ctx.reduction == "mean":
            if not ctx.total:
                return (_zero_total_grad(ctx, be, g, ctx.saved_array()),) + (None,) * 7
            g = be.div(g, ctx.total)
        shape, (n, c, r) = ctx.shapes
        scale = be.reshape(g, (n, 1, r)) if ctx.reduction == "none" else g
        wt = be.reshape(ctx.wt, (n, 1, r))
        if not ctx.logits:  # -w[t] g at each target, +0 elsewhere (not -0, as torch)
            dx = be.where(ctx.onehot, be.neg(be.mul(wt, scale)), be.zeros((), scale.dtype))
        else:
            x = ctx.saved_array()
            p = be.softmax(be.reshape(x, (n, c, r)), 1)
            dx = be.mul(be.sub(p, ctx.onehot), wt)
            eps = ctx.smoothing
            if eps > 0:
                w = ctx.weight
                smooth = (be.sub(be.mul(p, c), 1.0) if w is None else
                          be.sub(be.mul(p, be.sum(w, None, False)), be.reshape(w, (1, c, 1))))
                smooth = be.mul(smooth, be.reshape(ctx.valid, (n, 1, r)))
                dx = be.add(be.mul(dx, 1.0 - eps), be.mul(smooth, eps / c))
            dx = be.mul(dx, scale)
        return be.reshape(dx, shape), None, None, None, None, None, None, None


def _zero_total_grad(ctx, be, g, x):
    """The gradient of a 'mean' whose weights sum to 0, as torch computes it: each target not
    ignored gets -w[t] * (g / 0) (so nan where w[t] is 0, +-inf elsewhere), ignored ones 0 (all
    ignored: a zero gradient), then the log_softmax backward for logits."""
    with warnings.catch_warnings():  # NumPy's warnings about inf and nan: torch is silent
        warnings.simplefilter("ignore", RuntimeWarning)
        return _zero_total_grad_arrays(ctx, be, g, x)


def _zero_total_grad_arrays(ctx, be, g, x):
    shape, (n, c, r) = ctx.shapes
    dt = ctx.wt.dtype
    zero = be.zeros((), dt)
    s = be.neg(be.div(be.astype(g, dt), 0.0))
    valid = be.reshape(ctx.valid, (n, 1, r))
    gl = be.where(ctx.onehot, be.where(valid, be.mul(be.reshape(ctx.wt, (n, 1, r)), s), zero), zero)
    eps = ctx.smoothing
    if eps > 0:
        w = ctx.weight
        ws = s if w is None else be.mul(be.reshape(w, (1, c, 1)), s)
        gl = be.add(be.mul(gl, 1.0 - eps), be.mul(be.where(valid, ws, zero), eps / c))
    if ctx.logits:
        p = be.softmax(be.reshape(x, (n, c, r)), 1)
        gl = be.sub(gl, be.mul(p, be.sum(gl, (1,), True)))
    return be.reshape(gl, shape)


class _CrossEntropyNd(CrossEntropy):
    _node_name = "NllLoss2DBackward0"


class _CrossEntropySmoothed(CrossEntropy):
    _node_name = "AddBackward0"  # torch adds the smoothing term to the NLL


def _target_arrays(be, t2, weight, ignore_index, c, dtype):
    """For targets t2 (N, R): which are not ignored (N, R), their one-hot mask (N, C, R), and
    their weights w[t] (0 where ignored), in dtype."""
    n, r = t2.shape
    valid = be.ne(t2, ignore_index)
    safe = be.mul(be.astype(t2, int64.np), valid)  # ignored targets point at class 0, masked later
    onehot = be.eq(be.reshape(safe, (n, 1, r)), be.reshape(be.arange(0, c, 1, int64.np), (1, c, 1)))
    wt = be.astype(valid, dtype) if weight is None else be.mul(be.getitem(weight, (safe,)), valid)
    return valid, onehot, wt


def _check_target_dtype(target):
    if target._data.dtype != int64.np and target._data.dtype != uint8.np:  # torch takes Byte class indices too
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_dtype_name(target)}")


def _check_int_float(ignore_index, label_smoothing, logits):
    """torch's TypeErrors for an ignore_index that is no integer, a label_smoothing no number."""
    name, pos = ("cross_entropy_loss", 5) if logits else ("nll_loss_nd", 5)
    if not hasattr(ignore_index, "__index__") or isinstance(ignore_index, bool):
        raise TypeError(f"{name}(): argument 'ignore_index' (position {pos}) must be int, not "
                        f"{type_name(ignore_index)}")
    if not isinstance(label_smoothing, (int, float)) or isinstance(label_smoothing, bool):
        raise TypeError(f"{name}(): argument 'label_smoothing' (position 6) must be float, not "
                        f"{type_name(label_smoothing)}")


def class_nll(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0,
              logits=True):
    """cross_entropy (logits=True) or nll_loss over class indices, with torch's checks."""
    reduction = check_reduction(reduction)
    if not isinstance(target, Tensor):
        raise TypeError(f"{'cross_entropy' if logits else 'nll_loss'}(): argument 'target' (position 2) "
                        f"must be Tensor, not {type(target).__name__}")
    _same_device(input, target, weight)
    if ignore_index.__class__ is not int or label_smoothing.__class__ is not float:
        _check_int_float(ignore_index, label_smoothing, logits)
    # torch's checks, in its order: cross_entropy checks label_smoothing, then takes log_softmax over
    # the class dim; nll_loss_nd checks the batch; nll_loss (1-d/2-d input) or nll_loss2d (the rest,
    # through a 4-d view) check the target's shape and dtype and the weight; then the kernel runs
    if logits and label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    shape, tshape = input._data.shape, target._data.shape
    nd = len(shape)
    floating = input.is_floating_point()
    if logits:
        if not nd:
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
        if not floating and input._data.size:
            kernel = "log_softmax_lastdim_kernel_impl" if nd <= 2 else "log_softmax_kernel_impl"
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype_name(input)}'")
    if not nd:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    c = shape[1] if nd > 1 else shape[0]
    if nd > 1 and shape[0] != (tshape[0] if tshape else 0):  # torch reads a 0-d target's batch as 0
        raise ValueError(f"Expected input batch_size ({shape[0]}) to match target batch_size "
                         f"({tshape[0] if tshape else 0}).")
    if nd <= 2:
        if len(tshape) > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        _check_target_dtype(target)
        if nd == 1 and len(tshape) == 1 and tshape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {tshape[0]}")
        if nd == 2 and not tshape:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    else:
        if nd == 4:
            if len(tshape) != 3:
                raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets "
                                   f"of dimension: {len(tshape)}")
        elif not tshape:
            raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
        elif tshape[1:] != shape[2:]:
            raise RuntimeError(f"Expected target size {[shape[0]] + list(shape[2:])}, got {list(tshape)}")
        _check_target_dtype(target)
    if weight is not None:
        if not isinstance(weight, Tensor):
            raise TypeError(f"argument 'weight' must be Tensor, not {type(weight).__name__}")
        if weight._data.shape != (c,):
            raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes "
                               f"but got weight tensor of shape: {list(weight._data.shape)}" if nd <= 2 else
                               "weight tensor should be defined either for all or no classes")
    if nd == 4 and tshape[1:] != shape[2:]:
        raise RuntimeError(f"size mismatch (got input: {list(shape)} , target: {list(tshape)}")
    if not floating:
        kernel = "nll_loss_out_frame" if nd <= 2 else "nll_loss2d_forward_out_frame"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype_name(input)}'")
    if weight is not None:
        if weight._data.dtype != input._data.dtype:
            raise RuntimeError(f"expected scalar type {_dtype_name(input)} but found {_dtype_name(weight)}")
        _no_weight_grad("nll_loss_forward", "weight", weight)
    be = input._device.backend
    t = target._data
    if t.dtype != int64.np:  # a Byte target: the kernels index with int64
        t = be.astype(t, int64.np)
    hits = False
    if t.size:
        lo, hi = index_bounds(target)
        if lo < 0 or hi >= c:  # out of range, unless it is the ignored index
            bad = be.to_numpy(t).reshape(-1)
            bad = bad[((bad < 0) | (bad >= c)) & (bad != ignore_index)]
            if bad.size:
                raise IndexError(f"Target {bad[0]} is out of bounds.")
            hits = True
        elif 0 <= ignore_index < c:
            hits = bool(be.to_numpy(be.amax(be.eq(t, ignore_index))).item())
    smoothing = float(label_smoothing) if label_smoothing > 0 else 0.0
    fast = (logits and weight is None and not smoothing and not hits and len(shape) == 2 and shape[0] > 0)
    cls = _CrossEntropySmoothed if smoothing else _CrossEntropyNd if len(shape) > 2 else CrossEntropy
    if input._requires_grad and _grad_enabled():
        check_savable(target)  # torch's nll_loss saves the target (minigrad keeps its array)
    return cls.apply(input, t, weight._data if weight is not None else None, ignore_index, reduction,
                     smoothing, logits, fast)


# ---- cross-entropy over class probabilities -------------------------------------------------------

class SoftCrossEntropy(Builtin):
    """-sum_c w[c] q[c] log_softmax(x)[c] along dim 1, q = target (1 - eps) + eps / C; 'mean'
    divides by the number of samples (torch: numel / C), not by the weights."""
    _node_name = "DivBackward1"

    @staticmethod
    def forward(ctx, x, t, weight, reduction, smoothing):
        be = x._device.backend
        shape = x._data.shape
        n, c = (shape[0], shape[1]) if len(shape) > 1 else (1, shape[0])
        r = 1
        for s in shape[2:]:
            r *= s
        x3, q = be.reshape(x._data, (n, c, r)), be.reshape(t._data, (n, c, r))
        if smoothing:
            q = be.add(be.mul(q, 1.0 - smoothing), smoothing / c)
        wc = be.reshape(weight, (1, c, 1)) if weight is not None else None
        qw = be.mul(q, wc) if wc is not None else q
        logp = be.log_softmax(x3, 1)
        elem = be.neg(be.sum(be.mul(logp, qw), (1,), False))
        if ctx.needs_input_grad[0] or ctx.needs_input_grad[1]:
            ctx.save_for_backward(x, t)
            ctx.shapes, ctx.reduction, ctx.smoothing, ctx.weight = (shape, (n, c, r)), reduction, smoothing, weight
        if reduction == "none":
            return _make(be.reshape(elem, shape[:1] + shape[2:] if len(shape) > 1 else ()), x._device)
        return _make(_reduce(be, elem, reduction), x._device)

    @staticmethod
    def backward(ctx, g):
        x, t = ctx.saved_tensors
        shape, (n, c, r) = ctx.shapes
        nx, nt = ctx.needs_input_grad[:2]
        scale = g.reshape(n, 1, r) if ctx.reduction == "none" else _scale(g, ctx.reduction, n * r)
        eps = ctx.smoothing
        q = t.reshape(n, c, r)
        if eps:
            q = q * (1.0 - eps) + eps / c
        wc = None
        if ctx.weight is not None:
            wc = _make(x._device.backend.reshape(ctx.weight, (1, c, 1)), x._device)
        qw = q * wc if wc is not None else q
        x3 = x.reshape(n, c, r)
        gx = gt = None
        if nx:
            gx = ((x3.softmax(1) * qw.sum(1, keepdim=True) - qw) * scale).reshape(shape)
        if nt:
            lw = x3.log_softmax(1)
            lw = lw * wc if wc is not None else lw
            gt = (-(lw * scale) * (1.0 - eps)).reshape(shape)
        return gx, gt, None, None, None


class _SoftCrossEntropyNeg(SoftCrossEntropy):
    _node_name = "NegBackward0"


def prob_cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing):
    reduction = check_reduction(reduction)
    _same_device(input, target, weight)
    if not target.is_floating_point():
        raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                           f"{_dtype_name(target)}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    shape = input._data.shape
    if not shape:
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    c = shape[1] if len(shape) > 1 else shape[0]
    dt = promote_types(input.dtype, target.dtype)
    if weight is not None:
        if weight._data.shape != (c,):
            raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {c} classes "
                               f"or no classes but got weight tensor of shape: {list(weight._data.shape)}")
        _no_weight_grad("cross_entropy", "weight", weight)
        dt = promote_types(dt, weight.dtype)
    if not input.is_floating_point():
        raise NotImplementedError(f"\"log_softmax_lastdim_kernel_impl\" not implemented for "
                                  f"'{_dtype_name(input)}'")
    input, target = input.to(dt), target.to(dt)
    w = weight.to(dt)._data if weight is not None else None
    cls = SoftCrossEntropy if reduction == "mean" else _SoftCrossEntropyNeg
    return cls.apply(input, target, w, reduction, float(label_smoothing))


def cross_entropy(input, target, reduction="mean"):
    """Cross-entropy of (N, C) logits and (N,) class indices (minigrad.nn.functional.cross_entropy
    has torch's full signature)."""
    if _AUTOCAST_ON[0] and (r := _autocast("cross_entropy", cross_entropy, input, target, reduction)) is not None:
        return r
    if not isinstance(input, Tensor):
        raise TypeError(f"cross_entropy(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if isinstance(target, Tensor) and target._data.shape == input._data.shape:
        return prob_cross_entropy(input, target, None, -100, reduction, 0.0)
    return class_nll(input, target, reduction=reduction)


# ---- binary cross-entropy ---------------------------------------------------------------------------

def _clamped_log(be, a):
    """max(log(a), -100) for a in [0, 1], without evaluating log(0)."""
    zero = be.eq(a, 0)
    return be.where(zero, be.full((), -100.0, a.dtype), be.maximum(be.log(be.add(a, zero)), -100.0))


class BinaryCrossEntropy(Builtin):
    """-w (t log x + (1 - t) log(1 - x)), each log clamped to >= -100 as in torch."""
    _node_name = "BinaryCrossEntropyBackward0"

    @staticmethod
    def forward(ctx, x, t, weight, reduction):
        be = x._device.backend
        xd, td = x._data, t._data
        lx, l1x = _clamped_log(be, xd), _clamped_log(be, be.sub(1.0, xd))
        elem = be.neg(be.add(be.mul(td, lx), be.mul(be.sub(1.0, td), l1x)))
        if weight is not None:
            elem = be.mul(elem, weight)
        if ctx.needs_input_grad[0] or ctx.needs_input_grad[1]:
            ctx.save_for_backward(x, t)
            ctx.weight, ctx.reduction, ctx.n = weight, reduction, elem.size
        return _make(_reduce(be, elem, reduction), x._device)

    @staticmethod
    def backward(ctx, g):
        x, t = ctx.saved_tensors
        nx, nt = ctx.needs_input_grad[:2]
        scale = _scale(g, ctx.reduction, ctx.n)
        if ctx.weight is not None:
            scale = scale * _make(ctx.weight, x._device)
        gx = gt = None
        if nx:
            # torch's formula: the denominator is clamped so x at 0 or 1 gives a finite gradient
            gx = (x - t) / (x * (1 - x)).clamp(min=_BCE_EPS) * scale
        if nt:
            gt = ((1 - x).log() - x.log()) * scale
        return gx, gt, None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        x, t = ctx.saved_arrays()
        nx, nt = ctx.needs_input_grad[:2]
        scale = _weighted_scale_array(ctx, be, g)
        gx = gt = None
        if nx:
            den = be.clip(be.mul(x, be.sub(1.0, x)), _BCE_EPS, None)
            gx = be.mul(be.div(be.sub(x, t), den), scale)
        if nt:
            gt = be.mul(be.sub(be.log(be.sub(1.0, x)), be.log(x)), scale)
        return gx, gt, None, None


def _broadcast_weight(weight, shape, tshape):
    """torch expands a BCE weight to the target's shape, which must then be the input's."""
    ws = weight._data.shape
    n = max(len(ws), len(tshape))
    pw, pt = (1,) * (n - len(ws)) + ws, (1,) * (n - len(tshape)) + tuple(tshape)
    for i, (a, b) in enumerate(zip(pw, pt)):
        if a != b and a != 1 and b != 1:
            raise RuntimeError(f"Attempting to broadcast a dimension of length {a} at {i - n}! Mismatching "
                               f"argument at index 1 had {_size(weight)}; but expected shape should be "
                               f"broadcastable to {list(tshape)}")
    out = broadcast_shape(ws, tshape)
    if out != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(out)}")


def binary_cross_entropy(input, target, weight, reduction):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "binary_cross_entropy", binary_cross_entropy, input, target, weight, reduction)) is not None:
        return r
    reduction = check_reduction(reduction)
    _same_device(input, target, weight)
    shape = input._data.shape
    if target._data.shape != shape:
        raise ValueError(f"Using a target size ({_size(target)}) that is different to the input size "
                         f"({_size(input)}) is deprecated. Please ensure they have the same size.")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"binary_cross_entropy\" not implemented for '{_dtype_name(input)}'")
    if target._data.dtype != input._data.dtype:
        raise RuntimeError(f"Found dtype {_dtype_name(target)} but expected {_dtype_name(input)}")
    be = input._device.backend
    x = input._data
    w = None
    if weight is not None:
        _broadcast_weight(weight, shape, target._data.shape)
        _no_weight_grad("binary_cross_entropy", "weight", weight)
        w = weight._data
        if w.dtype != x.dtype:  # torch multiplies the loss by the weight in place: the loss keeps its dtype
            w = be.astype(w, x.dtype)
    if x.size:
        _check_unit_interval(be, x, target._data)
    return BinaryCrossEntropy.apply(input, target, w, reduction)


def _check_unit_interval(be, x, t):
    """torch's checks that BCE's input and target lie in [0, 1] (nan fails). Reading the answer
    waits for a GPU's queued work (torch asserts on the device instead): both answers come back
    in one transfer, so checking the target costs no wait beyond the input's."""
    ok = [be.reshape(be.amin(be.mul(be.ge(a, 0), be.le(a, 1))), (1,)) for a in (x, t)]
    ok_x, ok_t = be.to_numpy(be.concatenate(ok, 0)).tolist()
    if not ok_x:
        raise RuntimeError("all elements of input should be between 0 and 1")
    if not ok_t:
        raise RuntimeError("all elements of target should be between 0 and 1")


class BinaryCrossEntropyWithLogits(Builtin):
    """w ((1 - t) x - (1 + (pw - 1) t) log_sigmoid(x)), with a log_sigmoid that never overflows."""
    _node_name = "BinaryCrossEntropyWithLogitsBackward0"

    @staticmethod
    def forward(ctx, x, t, weight, pos_weight, reduction):
        be = x._device.backend
        xd, td = x._data, t._data
        ls = be.sub(be.minimum(xd, 0), be.log1p(be.exp(be.neg(be.abs(xd)))))
        if pos_weight is not None:
            ls = be.mul(ls, be.add(be.mul(be.sub(pos_weight, 1.0), td), 1.0))
        elem = be.sub(be.mul(be.sub(1.0, td), xd), ls)
        if weight is not None:
            elem = be.mul(elem, weight)
        if ctx.needs_input_grad[0] or ctx.needs_input_grad[1]:
            ctx.save_for_backward(x, t)
            ctx.weight, ctx.pos_weight, ctx.reduction, ctx.n = weight, pos_weight, reduction, elem.size
        return _make(_reduce(be, elem, reduction), x._device)

    @staticmethod
    def backward(ctx, g):
        x, t = ctx.saved_tensors
        nx, nt = ctx.needs_input_grad[:2]
        dev = x._device
        scale = _scale(g, ctx.reduction, ctx.n)
        if ctx.weight is not None:
            scale = scale * _make(ctx.weight, dev)
        pw = _make(ctx.pos_weight, dev) if ctx.pos_weight is not None else None
        gx = gt = None
        if nx:
            # d/dx = (1 + (pw - 1) t) sigmoid(x) - pw t
            gx = ((x.sigmoid() * ((pw - 1) * t + 1) - pw * t) if pw is not None else x.sigmoid() - t) * scale
        if nt:
            gt = (((1 - pw) * log_sigmoid_tensor(x) - x) if pw is not None else -x) * scale
        return gx, gt, None, None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        x, t = ctx.saved_arrays()
        nx, nt = ctx.needs_input_grad[:2]
        scale = _weighted_scale_array(ctx, be, g)
        pw = ctx.pos_weight
        gx = gt = None
        if nx:
            s = be.sigmoid(x)
            d = (be.sub(be.mul(s, be.add(be.mul(be.sub(pw, 1.0), t), 1.0)), be.mul(pw, t))
                 if pw is not None else be.sub(s, t))
            gx = be.mul(d, scale)
        if nt:
            if pw is None:
                d = be.neg(x)
            else:
                ls = be.sub(be.minimum(x, 0), be.log1p(be.exp(be.neg(be.abs(x)))))
                d = be.sub(be.mul(be.sub(1.0, pw), ls), x)
            gt = be.mul(d, scale)
        return gx, gt, None, None, None


def binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "binary_cross_entropy_with_logits", binary_cross_entropy_with_logits, input, target, weight, reduction,
            pos_weight)) is not None:
        return r
    reduction = check_reduction(reduction)
    _same_device(input, target, weight, pos_weight)
    shape = input._data.shape
    if target._data.shape != shape:
        raise ValueError(f"Target size ({_size(target)}) must be the same as input size ({_size(input)})")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for '{_dtype_name(input)}'")
    if not target.is_floating_point():
        raise RuntimeError(f"result type {_dtype_name(input)} can't be cast to the desired output type "
                           f"{_dtype_name(target)}")
    # torch computes (1 - target) * input - log_sigmoid(input) * (1 + (pos_weight - 1) * target),
    # times weight, multiplying in place: the result has the target's dtype and the input's
    # shape, whatever the weights' dtypes, and weights that broadcast to more raise
    out_dtype = target.dtype
    dt = promote_types(input.dtype, out_dtype)
    if pos_weight is not None:
        _check_inplace_broadcast(shape, broadcast_shape(pos_weight._data.shape, target._data.shape))
        _no_weight_grad("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    if weight is not None:
        _check_inplace_broadcast(shape, broadcast_shape(shape, weight._data.shape))
        _no_weight_grad("binary_cross_entropy_with_logits", "weight", weight)
    input, target = input.to(dt), target.to(dt)
    w = weight.to(dt)._data if weight is not None else None
    pw = pos_weight.to(dt)._data if pos_weight is not None else None
    out = BinaryCrossEntropyWithLogits.apply(input, target, w, pw, reduction)
    return out if out_dtype is dt else out.to(out_dtype)


def _check_inplace_broadcast(shape, out):
    if out != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(out)}")

