"""More losses and the distances they are built on, composed from recorded Tensor ops: kl_div,
cosine_embedding, margin_ranking, hinge_embedding, soft_margin, multilabel_soft_margin,
multi_margin, multilabel_margin, poisson_nll, gaussian_nll, triplet_margin; normalize,
cosine_similarity, pairwise_distance, cdist, dist.

Where torch's losses are compositions (kl_div, the embedding and ranking losses, the NLLs), so are
these, op for op, so the grad_fn is torch's (MeanBackward0, SubBackward0, ...). Where torch has a
fused node (SoftMarginLossBackward0, MultiMarginLossBackward0, MultilabelMarginLossBackward0,
CdistBackward0, DistBackward0, NormBackward1) a Function of that name computes the forward with
Tensor ops and writes its backward in Tensor ops (so double backward works), as torch's formulas.
Everything runs on the backends' primitives: nothing here needs its own kernel.
"""
import math
import warnings
from numbers import Number

from .._arg_errors import type_name
from ..autograd.function import Function, apply_first
from ..dtypes import int64
from ..tensor import Tensor, _make
from .elementwise import device_error, where
from .loss import _no_weight_grad, check_reduction
from .reduce import Norm, norm as _norm
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

_INF = float("inf")


# ---- argument conventions -------------------------------------------------------------------------

def _tensor(x, fn, arg="input", pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not {type_name(x)}")
    return x


def _number(x, fn, arg, pos, kind="float"):
    if not isinstance(x, Number) or isinstance(x, complex):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be {kind}, not {type_name(x)}")
    return x


def _same_device(*ts):
    first = ts[0]
    for t in ts[1:]:
        if t is not None and t._device is not first._device:
            raise device_error(first, t)


def _legacy(size_average, reduce, reduction):
    """The reduction meant by torch's deprecated size_average / reduce flags, with its warning."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                  stacklevel=3)
    return ret


def _filled(like, fill, shape=None):
    """A constant tensor of like's dtype and device (no graph)."""
    be = like._device.backend
    shape = like._data.shape if shape is None else shape
    make = be.zeros if fill == 0 else be.ones
    return _make(make(shape, like._data.dtype), like._device)


def _reduced(out, reduction):
    """torch's apply_loss_reduction: the mean of nothing is nan."""
    if reduction == "mean":
        return out.mean()
    if reduction == "sum":
        return out.sum()
    return out


def _scale(g, reduction, n, shape):
    """The incoming gradient of a reduced loss as a per-item factor broadcastable to shape."""
    if reduction == "none":
        return g.reshape(shape)
    return g / n if reduction == "mean" and n else g


# ---- pointwise and embedding losses (compositions, as torch's) -----------------------------------

_KL_MEAN_WARNING = ("reduction: 'mean' divides the total loss by both the batch size and the support size."
                    "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                    "'mean' will be changed to behave the same as 'batchmean' in the next major release.")


def _xlogy_self(t):
    """torch.xlogy(t, t): t log t, 0 where t is 0 (nan stays nan)."""
    return where(t == 0, 0.0, t * where(t == 0, 1.0, t).log())


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "kl_div", kl_div, input, target, size_average, reduce, reduction, log_target)) is not None:
        return r
    _tensor(input, "kl_div"), _tensor(target, "kl_div", "target", 2)
    _same_device(input, target)
    if size_average is not None or reduce is not None:
        red = _legacy(size_average, reduce, reduction)
        reduction = red
    else:
        if reduction == "mean":
            warnings.warn(_KL_MEAN_WARNING, stacklevel=3)
        red = "sum" if reduction == "batchmean" else check_reduction(reduction)
    if log_target:
        elem = target.exp() * (target - input)
    else:
        elem = _xlogy_self(target) - target * input
    out = _reduced(elem, red)
    if reduction == "batchmean" and input._data.ndim:
        out = out / input._data.shape[0]
    return out


def _margin_red(size_average, reduce, reduction):
    return check_reduction(_legacy(size_average, reduce, reduction))


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "cosine_embedding_loss", cosine_embedding_loss, input1, input2, target, margin, size_average, reduce,
            reduction)) is not None:
        return r
    _tensor(input1, "cosine_embedding_loss", "input1"), _tensor(input2, "cosine_embedding_loss", "input2", 2)
    _tensor(target, "cosine_embedding_loss", "target", 3)
    reduction = _margin_red(size_average, reduce, reduction)
    _same_device(input1, input2, target)
    td = target._data.ndim
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    s1, s2 = list(input1._data.shape), list(input2._data.shape)
    if td == 1 and (len(s1) != 2 or len(s2) != 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes {s1} and {s2}.")
    if td == 0 and (len(s1) != 1 or len(s2) != 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes {s1} and {s2}.")
    eps = 1e-12
    prod_sum = (input1 * input2).sum(td)
    mag1 = (input1 * input1).sum(td) + eps
    mag2 = (input2 * input2).sum(td) + eps
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = _filled(cos, 0)
    pos = 1 - cos
    neg = (cos - margin).clamp_min(0)
    out = where(target == 1, pos, zeros) + where(target == -1, neg, zeros)
    return _reduced(out, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "margin_ranking_loss", margin_ranking_loss, input1, input2, target, margin, size_average, reduce,
            reduction)) is not None:
        return r
    reduction = _margin_red(size_average, reduce, reduction)
    for t in (input1, input2, target):
        if not isinstance(t, Tensor):
            raise AttributeError(f"'{type(t).__name__}' object has no attribute 'dim'")
    if not (input1._data.ndim == input2._data.ndim == target._data.ndim):
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    _same_device(input1, input2, target)
    return _reduced((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "hinge_embedding_loss", hinge_embedding_loss, input, target, margin, size_average, reduce, reduction)) is not None:
        return r
    _tensor(input, "hinge_embedding_loss"), _tensor(target, "hinge_embedding_loss", "target", 2)
    reduction = _margin_red(size_average, reduce, reduction)
    _same_device(input, target)
    zeros = _filled(input, 0)
    out = where(target != 1, (margin - input).clamp_min(0), zeros) + where(target != -1, input, zeros)
    return _reduced(out, reduction)


class SoftMarginLoss(Function):
    """log(1 + exp(-y x)), reduced; torch's fused node and formulas."""
    _node_name = "SoftMarginLossBackward0"

    @staticmethod
    def forward(ctx, x, y, reduction):
        out = (-x * y).exp().log1p()
        ctx.save_for_backward(x, y)
        ctx.reduction, ctx.n, ctx.shape = reduction, out._data.size, out._data.shape
        return _reduced(out, reduction)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        s = _scale(g, ctx.reduction, ctx.n, ctx.shape)
        z = (-x * y).exp()
        d = z / (1 + z) * s
        gx = (-y * d) if ctx.needs_input_grad[0] else None
        gy = (-x * d) if ctx.needs_input_grad[1] else None
        from .broadcast import sum_to
        return (sum_to(gx, x._data.shape) if gx is not None else None,
                sum_to(gy, y._data.shape) if gy is not None else None, None)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "soft_margin_loss", soft_margin_loss, input, target, size_average, reduce, reduction)) is not None:
        return r
    _tensor(input, "soft_margin_loss"), _tensor(target, "soft_margin_loss", "target", 2)
    reduction = _margin_red(size_average, reduce, reduction)
    _same_device(input, target)
    if not input.is_floating_point():
        raise NotImplementedError(f"\"exp_vml_cpu\" not implemented for '{input.dtype._legacy[:-6]}'")
    _no_weight_grad("soft_margin_loss", "target", target)
    return SoftMarginLoss.apply(input, target, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    from .activations import logsigmoid
    reduction = _legacy(size_average, reduce, reduction)
    _tensor(input, "log_sigmoid"), _tensor(target, "mul", "other", 2)
    _same_device(input, target, weight)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input._data.ndim - 1
    c = input.size(class_dim)
    loss = loss.sum(dim=class_dim) / c
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduced(loss, reduction)


def _frames(input, target, name):
    """(nframe, dim) of a multi-margin loss's (C,) or (N, C) input, with torch's shape checks."""
    nd = input._data.ndim
    shape = list(input._data.shape)
    if not ((nd == 2 and shape[1] != 0) or (nd == 1 and shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {shape}")
    if nd <= 1:
        return 1, (1 if nd == 0 else shape[0])
    return shape[0], shape[1]


def _target_check(t, name):
    if t._data.dtype is not int64.np and t._data.dtype.name != "int64":
        raise RuntimeError(f"expected scalar type Long but found {t.dtype._legacy[:-6]}")


def _check_range(be, t, lo, hi, msg):
    if t._data.size:
        bad = be.to_numpy(be.sum(be.add(be.lt(t._data, lo), be.ge(t._data, hi)), None, False)).item()
        if bad:
            raise RuntimeError(msg)


class MultiMarginLoss(Function):
    """sum over i != y of max(0, margin - x[y] + x[i])^p * w[y] / C per frame, reduced."""
    _node_name = "MultiMarginLossBackward0"

    @staticmethod
    def forward(ctx, x, t, w, p, margin, reduction, nframe, dim, out_shape):
        x2 = x.reshape(nframe, dim)
        t2 = t.reshape(nframe, 1)
        z = margin - x2.gather(1, t2) + x2
        other = _filled(x2, 1).scatter(1, t2, 0.0)  # 0 at the target class, 1 elsewhere
        h = z.clamp_min(0)
        term = (h if p == 1 else h * h) * other
        if w is not None:
            term = term * w.gather(0, t2.reshape(nframe)).reshape(nframe, 1)
        per = term.sum(1) / dim
        ctx.save_for_backward(x, t, w)
        ctx.args = p, margin, reduction, nframe, dim
        return _reduced(per.reshape(out_shape), reduction)

    @staticmethod
    def backward(ctx, g):
        x, t, w = ctx.saved_tensors
        p, margin, reduction, nframe, dim = ctx.args
        x2 = x.reshape(nframe, dim)
        t2 = t.reshape(nframe, 1)
        z = margin - x2.gather(1, t2) + x2
        other = _filled(x2, 1).scatter(1, t2, 0.0)
        d = (z > 0).to(x.dtype) * other
        if p == 2:
            d = d * 2 * z
        if w is not None:
            d = d * w.gather(0, t2.reshape(nframe)).reshape(nframe, 1)
        d = d * (_scale(g, reduction, nframe, (nframe, 1)) / dim)
        d = d.scatter_add(1, t2, -d.sum(1, keepdim=True))
        return d.reshape(x._data.shape), None, None, None, None, None, None, None, None


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "multi_margin_loss", multi_margin_loss, input, target, p, margin, weight, size_average, reduce, reduction)) is not None:
        return r
    _tensor(input, "multi_margin_loss"), _tensor(target, "multi_margin_loss", "target", 2)
    reduction = _margin_red(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight._data.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    _same_device(input, target, weight)
    nframe, dim = _frames(input, target, "multi_margin_loss")
    if target._data.ndim > 1 or target._data.size != nframe:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{nframe}], but got "
                           f"{list(target._data.shape)}. Input has shape {list(input._data.shape)}.")
    if weight is not None and weight._data.size != dim:
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {list(weight._data.shape)}")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"multi_margin_loss_cpu\" not implemented for '{input.dtype._legacy[:-6]}'")
    _target_check(target, "multi_margin_loss")
    _check_range(input._device.backend, target, 0, dim, "target out of range")
    out_shape = (nframe,) if target._data.ndim > 0 else ()
    w = weight.to(input.dtype).detach() if weight is not None else None
    return MultiMarginLoss.apply(input, target, w, int(p), float(margin), reduction, nframe, dim, out_shape)


def _multilabel_parts(x2, t2):
    """For (N, C) scores and targets: the (N, C, C) hinge terms [n, j, i] of the valid target j
    against the non-target class i, and the mask where each counts."""
    n, c = x2._data.shape
    valid = (t2 != -1).to(int64).cumprod(1) > 0          # the targets before the first -1
    tc = where(valid, t2, 0)
    is_target = _filled(t2, 0).scatter_add(1, tc, valid.to(int64)) > 0
    xy = x2.gather(1, tc)                                  # x[n, y_j]
    z = 1 - xy.reshape(n, c, 1) + x2.reshape(n, 1, c)
    mask = valid.reshape(n, c, 1) & (~is_target).reshape(n, 1, c)
    return z, mask, tc


class MultilabelMarginLoss(Function):
    _node_name = "MultilabelMarginLossBackward0"

    @staticmethod
    def forward(ctx, x, t, reduction, nframe, dim, out_shape):
        x2, t2 = x.reshape(nframe, dim), t.reshape(nframe, dim)
        z, mask, _ = _multilabel_parts(x2, t2)
        per = (z.clamp_min(0) * mask.to(x.dtype)).sum((1, 2)) / dim
        ctx.save_for_backward(x, t)
        ctx.args = reduction, nframe, dim
        return _reduced(per.reshape(out_shape), reduction)

    @staticmethod
    def backward(ctx, g):
        x, t = ctx.saved_tensors
        reduction, nframe, dim = ctx.args
        x2, t2 = x.reshape(nframe, dim), t.reshape(nframe, dim)
        z, mask, tc = _multilabel_parts(x2, t2)
        d = ((z > 0) & mask).to(x.dtype) * (_scale(g, reduction, nframe, (nframe, 1, 1)) / dim)
        gx = d.sum(1)  # as the non-target class i
        gx = gx.scatter_add(1, tc, -d.sum(2))  # as the target class y_j (zero rows for invalid j)
        return gx.reshape(x._data.shape), None, None, None, None, None


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "multilabel_margin_loss", multilabel_margin_loss, input, target, size_average, reduce, reduction)) is not None:
        return r
    _tensor(input, "multilabel_margin_loss"), _tensor(target, "multilabel_margin_loss", "target", 2)
    reduction = _margin_red(size_average, reduce, reduction)
    _same_device(input, target)
    nd = input._data.ndim
    nframe, dim = _frames(input, target, "multilabel_margin_loss")
    ts = target._data.shape
    if (nd <= 1 and not (len(ts) <= 1 and target._data.size == dim)) or (
            nd == 2 and tuple(ts) != (nframe, dim)):
        raise RuntimeError(f"inconsistent target size: {list(ts)} for input of size: {list(input._data.shape)}")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"multilabel_margin_loss_forward_out_frame\" not implemented for "
                                  f"'{input.dtype._legacy[:-6]}'")
    _target_check(target, "multilabel_margin_loss")
    _check_range(input._device.backend, target, -1, dim, "argument #2 'target' is out of range")
    out_shape = (nframe,) if nd == 2 else ()
    return MultilabelMarginLoss.apply(input, target, reduction, nframe, dim, out_shape)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "poisson_nll_loss", poisson_nll_loss, input, target, log_input, full, size_average, eps, reduce, reduction)) is not None:
        return r
    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce, reduction)
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not a valid value for reduction")
    _tensor(input, "poisson_nll_loss"), _tensor(target, "poisson_nll_loss", "target", 2)
    _same_device(input, target)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        safe = where(target <= 1, 1.0, target)  # the masked entries' log is never taken
        stirling = target * safe.log() - target + 0.5 * (2 * math.pi * safe).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduced(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    _tensor(input, "gaussian_nll_loss"), _tensor(target, "gaussian_nll_loss", "target", 2)
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _filled(input, 1)
    else:
        _tensor(var, "gaussian_nll_loss", "var", 3)
        _same_device(input, target, var)
        if (var < 0).any().item():
            raise ValueError("var has negative entry/entries")
    ish, vsh = tuple(input._data.shape), tuple(var._data.shape)
    if vsh != ish:
        if ish[:-1] == vsh:
            var = var.unsqueeze(-1)
        elif len(ish) == len(vsh) and sum(y for x, y in zip(ish, vsh) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not valid")
    # torch clamps a clone in place under no_grad: the gradient passes as if unclamped
    var = var + (var.detach().clamp_min(eps) - var.detach())
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduced(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "triplet_margin_loss", triplet_margin_loss, anchor, positive, negative, margin, p, eps, swap,
            size_average, reduce, reduction)) is not None:
        return r
    reduction = _margin_red(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _tensor(anchor, "triplet_margin_loss", "anchor"), _tensor(positive, "triplet_margin_loss", "positive", 2)
    _tensor(negative, "triplet_margin_loss", "negative", 3)
    a, pd, nd = anchor._data.ndim, positive._data.ndim, negative._data.ndim
    if not a == pd == nd:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a}D, positive {pd}D, and negative {nd}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        from ..functional import minimum
        dist_neg = minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    return _reduced((margin + dist_pos - dist_neg).clamp_min(0), reduction)


# ---- distances --------------------------------------------------------------------------------------

def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    if _AUTOCAST_ON[0] and (r := _autocast("normalize", normalize, input, p, dim, eps, out)) is not None:
        return r
    _tensor(input, "normalize")
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    from ..functional import div
    return div(input, denom, out=out)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """torch's: each side divided by its norm (clamped to eps, the clamp passing no gradient), then
    the product summed over dim (SumBackward1)."""
    if _AUTOCAST_ON[0] and (r := _autocast("cosine_similarity", cosine_similarity, x1, x2, dim, eps)) is not None:
        return r
    _tensor(x1, "cosine_similarity", "x1"), _tensor(x2, "cosine_similarity", "x2", 2)
    _same_device(x1, x2)
    from .broadcast import broadcast_shape
    shape = broadcast_shape(x1._data.shape, x2._data.shape)
    if not x1.is_floating_point() or not x2.is_floating_point() or x1.dtype is not x2.dtype:
        from ..dtypes import promote_types, get_default_dtype
        dt = promote_types(x1.dtype, x2.dtype)
        if not dt.is_floating_point:
            dt = get_default_dtype()
        x1, x2 = x1.to(dt), x2.to(dt)
    if tuple(x1._data.shape) != shape:
        x1 = x1.expand(*shape)
    if tuple(x2._data.shape) != shape:
        x2 = x2.expand(*shape)
    n1 = x1.norm(2, dim, keepdim=True)
    n2 = x2.norm(2, dim, keepdim=True)
    n1 = n1 + (n1.detach().clamp_min(eps) - n1.detach())
    n2 = n2 + (n2.detach().clamp_min(eps) - n2.detach())
    return ((x1 / n1) * (x2 / n2)).sum(dim)


class _PairwiseNorm(Norm):
    _node_name = "NormBackward1"


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    _tensor(x1, "pairwise_distance", "x1"), _tensor(x2, "pairwise_distance", "x2", 2)
    _same_device(x1, x2)
    nd = max(x1._data.ndim, x2._data.ndim)
    d = x1 - x2 + eps
    if not d.is_floating_point():
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {d.dtype._legacy[:-6]}")
    p = float(p)
    dims = (nd - 1,) if nd else ()
    if (p < 0 or p == _INF) and not d._data.size:
        _norm(d, p, nd - 1, keepdim)  # torch's error for the max/min of nothing
    return apply_first(_PairwiseNorm, d, p, dims, keepdim)


def _lp_grad(diff, dist, p, g):
    """torch's cdist/dist backward for one difference and its p-distance: 0 at zero distance."""
    if p == 0:
        return diff * 0
    if p == 1:
        return g * diff.sign()
    if p == _INF:
        return g * diff.sign() * (diff.abs() == dist).to(diff.dtype)
    zero = dist == 0
    safe = where(zero, 1.0, dist)
    if p == 2:
        r = diff / safe
    elif p < 1:
        r = diff.sign() * where(diff == 0, 1.0, diff.abs()) ** (p - 1) / safe ** (p - 1)
        r = where(diff == 0, 0.0, r)
    else:
        r = diff.sign() * diff.abs() ** (p - 1) / safe ** (p - 1)
    return where(zero, 0.0, g * r)


def _lp(diff, p, dim):
    a = diff.abs()
    if p == 0:
        return (diff != 0).to(diff.dtype).sum(dim)
    if p == 1:
        return a.sum(dim)
    if p == 2:
        return (a * a).sum(dim).sqrt()
    if p == _INF:
        return a.amax(dim)
    if p == -_INF:
        return a.amin(dim)
    return (a ** p).sum(dim) ** (1.0 / p)


class Cdist(Function):
    _node_name = "CdistBackward0"

    @staticmethod
    def forward(ctx, x1, x2, p):
        diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (..., P, R, M)
        out = _lp(diff, p, -1)
        ctx.save_for_backward(x1, x2, out)
        ctx.p = p
        return out

    @staticmethod
    def backward(ctx, g):
        x1, x2, out = ctx.saved_tensors
        from .broadcast import sum_to
        diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
        gd = _lp_grad(diff, out.unsqueeze(-1), ctx.p, g.unsqueeze(-1))
        g1 = sum_to(gd.sum(-2), x1._data.shape) if ctx.needs_input_grad[0] else None
        g2 = sum_to(-gd.sum(-3), x2._data.shape) if ctx.needs_input_grad[1] else None
        return g1, g2, None


def cdist(x1, x2, p=2.0, compute_mode=None):
    if _AUTOCAST_ON[0] and (r := _autocast("cdist", cdist, x1, x2, p, compute_mode)) is not None:
        return r
    _tensor(x1, "cdist", "x1"), _tensor(x2, "cdist", "x2", 2)
    _number(p, "cdist", "p", 3)
    if compute_mode not in (None, "use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.is_floating_point():
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {t.dtype._legacy[:-6]}")
    d1, d2 = x1._data.ndim, x2._data.ndim
    if d1 < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {d1}D")
    if d2 < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {d2}D")
    c1, c2 = x1._data.shape[-1], x2._data.shape[-1]
    if c1 != c2:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {c1} X2: {c2}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    _same_device(x1, x2)
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"cdist: X1 and X2 must have the same dtype, but got {x1.dtype._legacy[:-6]} and "
                           f"{x2.dtype._legacy[:-6]}")
    from .broadcast import broadcast_shape
    batch = broadcast_shape(x1._data.shape[:-2], x2._data.shape[:-2])
    if tuple(x1._data.shape[:-2]) != batch:
        x1 = x1.expand(*batch, *x1._data.shape[-2:])
    if tuple(x2._data.shape[:-2]) != batch:
        x2 = x2.expand(*batch, *x2._data.shape[-2:])
    return Cdist.apply(x1, x2, float(p))


class Dist(Function):
    _node_name = "DistBackward0"

    @staticmethod
    def forward(ctx, a, b, p):
        diff = a - b
        out = _lp(diff.reshape(-1), p, 0)
        ctx.save_for_backward(a, b, out)
        ctx.p = p
        return out

    @staticmethod
    def backward(ctx, g):
        a, b, out = ctx.saved_tensors
        from .broadcast import sum_to
        p = ctx.p
        diff = a - b
        if p == _INF:  # torch's norm backward: the gradient shared among the maxima
            hit = (diff.abs() == out).to(diff.dtype)
            gd = g * diff.sign() * hit / hit.sum()
        else:
            gd = _lp_grad(diff, out, p, g)
        return (sum_to(gd, a._data.shape) if ctx.needs_input_grad[0] else None,
                sum_to(-gd, b._data.shape) if ctx.needs_input_grad[1] else None, None)


def dist(input, other, p=2):
    if _AUTOCAST_ON[0] and (r := _autocast("dist", dist, input, other, p)) is not None:
        return r
    _tensor(input, "dist"), _tensor(other, "dist", "other", 2)
    _number(p, "dist", "p", 3, "Number")
    _same_device(input, other)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._legacy[:-6]} but found {other.dtype._legacy[:-6]}")
    if not input.is_floating_point():
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {input.dtype._legacy[:-6]}")
    p = float(p)
    if p < 0 or p == _INF:
        if p < 0:  # torch's norm: its own gradient formulas for negative orders
            return _norm(input - other, p)
        if not input._data.size and not other._data.size:
            _norm(input - other, p)  # torch's error for the max of nothing
    return Dist.apply(input, other, p)
