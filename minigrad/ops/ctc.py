"""Connectionist temporal classification: torch.ctc_loss (ATen's signature, an integer reduction),
F.ctc_loss and nn.CTCLoss, with torch's CPU semantics.

Composed from backend primitives, so it runs on every device with no kernel of its own. The
forward is Graves' alpha recursion in log space over the extended label sequence l' (blank, l1,
blank, l2, ..., blank), one step per time frame, vectorised over the batch and the labels: the
three allowed predecessors of every state are read as one (N, 3, S) window of the previous row
(an as_strided view of a padded buffer), the illegal skips masked by an additive 0 / -inf mask,
then one logsumexp over the window. The backward is torch's: the beta recursion, the same way,
and ATen's formula grad = exp(lp) - sum_{s: l'(s) = c} exp(alpha + beta + nll - lp), which is the
gradient through a log_softmax that the log-probabilities are assumed to come from (not the raw
derivative of the loss); NaN where the loss is infinite or a log-probability is -inf, zero past
each input's length. A double backward raises, as torch's does.
"""
import operator
from itertools import accumulate

from .._arg_errors import Parser
from ..dtypes import int64
from ..tensor import Tensor, _make
from .elementwise import Builtin, where
from .loss import check_reduction
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

_INF = float("inf")
_FLOAT_MAX = {"float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}
_WHERE = " (while checking arguments for ctc_loss_allocate_outputs)"
_SIG = ("Tensor log_probs, Tensor targets, {0} input_lengths, {0} target_lengths, int blank=0, "
        "int reduction=at::Reduction::Mean, bool zero_infinity=False")
_PARSER = Parser("ctc_loss", _SIG.format("int[]"), _SIG.format("Tensor"))
_ENUM = {"none": 0, "mean": 1, "sum": 2}


# ---- the recursions, on backend arrays ------------------------------------------------------------

def _lse3(be, window, mask, floor):
    """logsumexp over axis 1 of window + mask, (N, 3, S) -> (N, S); floor (the dtype's lowest
    finite value) stands in for a maximum of -inf so that no -inf - -inf appears."""
    z = be.add(window, mask)
    m = be.maximum(be.amax(z, (1,), True), floor)
    s = be.sum(be.exp(be.sub(z, m)), (1,), False)
    return be.add(be.log(s), be.reshape(m, s.shape))


def _skip_masks(be, ext, dt):
    """Additive masks (N, 3, S) for the alpha and beta windows: -inf where the skip over a blank
    is not allowed (l'(s) == l'(s - 2), which every blank state meets), 0 elsewhere."""
    n, s = ext.shape
    skip = be.where(be.ne(be.getitem(ext, (slice(None), slice(2, None))),
                          be.getitem(ext, (slice(None), slice(0, s - 2)))),
                    be.zeros((), dt), be.full((), -_INF, dt))
    ma, mb = be.zeros((n, 3, s), dt), be.zeros((n, 3, s), dt)
    be.setitem(ma, (slice(None), 0, slice(2, None)), skip)    # alpha: from s - 2 into s
    be.setitem(mb, (slice(None), 2, slice(0, s - 2)), skip)   # beta: from s + 2 into s
    return ma, mb


def _ctc_grad(be, x, g, node):
    """torch's _ctc_loss_backward: the gradient of the log-probabilities x (T, N, C) for the
    incoming gradient g (N,) of the per-sequence losses."""
    alpha, lpe, nll, ext, il, tl, zero_infinity, blank_last = node.ctc_state
    T, N, C = x.shape
    tm, s = alpha.shape[0] - 1, ext.shape[1]
    w, dt = s + 2, x.dtype
    floor = -_FLOAT_MAX[dt.name]
    n_idx = be.arange(0, N, 1, int64.np)
    t_col = be.reshape(be.arange(0, tm, 1, int64.np), (tm, 1, 1))
    il_a = be.reshape(be.asarray(il, int64.np), (1, N, 1))
    live = be.lt(t_col, il_a)                                   # (tm, N, 1): t < input length
    # beta, state s in column s (two -inf columns after); row tm: the end state v, 0 at the last
    # blank, from which one step of the recursion gives torch's start at t = il - 1
    beta = be.full((tm + 1, N, w), -_INF, dt)
    end = be.mul(be.asarray(tl, int64.np), 2)
    be.setitem(beta, (tm, n_idx, end), be.zeros((), dt), (None, (0, N - 1), (0, 2 * max(tl))))
    v = be.getitem(beta, (tm, slice(None), slice(0, s)))
    mb = node.ctc_mb
    for t in range(tm - 1, -1, -1):
        win = be.as_strided(be.getitem(beta, (t + 1,)), (N, 3, s), (w, 1, 1))
        new = be.add(_lse3(be, win, mb, floor), be.getitem(lpe, (t,)))
        be.setitem(beta, (t, slice(None), slice(0, s)), be.where(be.getitem(live, (t,)), new, v))
    a = be.getitem(alpha, (slice(1, None), slice(None), slice(2, None)))
    b = be.getitem(beta, (slice(0, tm), slice(None), slice(0, s)))
    nll3 = be.reshape(nll, (1, N, 1))
    occ = be.exp(be.sub(be.add(be.add(a, b), nll3), lpe))     # exp(alpha + beta + nll - lp) per state
    if blank_last is not None and tm:
        # at an input's last frame ATen assigns the last label's term over the final blank's, not
        # adding them: where that label is the blank, the final blank state's term is dropped
        at = (be.asarray([max(v - 1, 0) for v in il], int64.np), n_idx, end)
        bounds = ((0, tm - 1), (0, N - 1), (0, 2 * max(tl)))
        be.setitem(occ, at, be.where(blank_last, be.zeros((), dt), be.getitem(occ, at, bounds)), bounds)
    index = (t_col, be.reshape(n_idx, (1, N, 1)), be.reshape(ext, (1, N, s)))
    xt = be.getitem(x, (slice(0, tm),))
    grad = be.sub(be.exp(xt), be.index_add((tm, N, C), index, occ, dt))
    # torch's exp(lcab + nll - lp) is NaN wherever nll is inf or lp is -inf
    inf_n = be.eq(nll3, _INF)
    grad = be.where(be.bitwise_or(be.eq(xt, -_INF), inf_n), be.full((), float("nan"), dt), grad)
    grad = be.mul(grad, be.reshape(g, (1, N, 1)))
    keep = be.bitwise_and(live, be.bitwise_not(inf_n)) if zero_infinity else live
    grad = be.where(keep, grad, be.zeros((), dt))
    if tm == T:
        return grad
    out = be.zeros((T, N, C), dt)
    be.setitem(out, (slice(0, tm),), grad)
    return out


class CtcLoss(Builtin):
    """The per-sequence negative log-likelihoods (N,) of log_probs (T, N, C) for the extended
    label sequences ext (N, S) and the lengths il, tl (lists of ints)."""
    _node_name = "CtcLossBackward0"

    @staticmethod
    def forward(ctx, log_probs, ext, il, tl, zero_infinity, blank_last):
        dev = log_probs._device
        be, x = dev.backend, log_probs._data
        T, N, C = x.shape
        s = ext.shape[1]
        w, dt = s + 2, x.dtype
        tm = max(il)
        floor = -_FLOAT_MAX[dt.name]
        n_idx = be.arange(0, N, 1, int64.np)
        # the log-probabilities of the extended labels, gathered once: (tm, N, S)
        lpe = be.getitem(x, (slice(0, tm), be.reshape(n_idx, (N, 1)), ext), (None, (0, N - 1), (0, C - 1)))
        ma, mb = _skip_masks(be, ext, dt)
        # alpha, state s in column s + 2 (two -inf columns before); row t + 1 holds time t and
        # row 0 a virtual start, 0 at state 0, from which one step gives torch's first row
        alpha = be.full((tm + 1, N, w), -_INF, dt)
        be.setitem(alpha, (0, slice(None), 2), be.zeros((), dt))
        for t in range(tm):
            win = be.as_strided(be.getitem(alpha, (t,)), (N, 3, s), (w, 1, 1))
            new = be.add(_lse3(be, win, ma, floor), be.getitem(lpe, (t,)))
            be.setitem(alpha, (t + 1, slice(None), slice(2, None)), new)
        # the likelihood: the last label or the blank after it, at the last frame of each input
        il_a, end = be.asarray(il, int64.np), be.mul(be.asarray(tl, int64.np), 2)
        bounds = ((min(il), tm), (0, N - 1), (1, 2 * max(tl) + 2))
        last = be.getitem(alpha, (il_a, n_idx, be.add(end, 2)), bounds)
        before = be.getitem(alpha, (il_a, n_idx, be.add(end, 1)), bounds)
        nll = be.neg(be.logaddexp(last, before))
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(log_probs)
            ctx.ctc_state = (alpha, lpe, nll, ext, il, tl, zero_infinity, blank_last)
            ctx.ctc_mb = mb
        return _make(nll, dev)

    @staticmethod
    def backward(ctx, g):
        log_probs, = ctx.saved_tensors
        return _CtcLossGrad.apply(log_probs, g, ctx), None, None, None, None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        return _ctc_grad(be, ctx.saved_array(), g, ctx), None, None, None, None, None


class _CtcLossGrad(Builtin):
    """The gradient with create_graph: torch records it without a derivative."""
    _node_name = "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, log_probs, g, node):
        be = log_probs._device.backend
        return _make(_ctc_grad(be, log_probs._data, g._data, node), log_probs._device)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


# ---- arguments ------------------------------------------------------------------------------------

def _lengths(obj, name, tensor_form):
    if tensor_form:
        if obj._data.dtype.kind not in "iu" or obj.is_floating_point():
            raise RuntimeError(f"{name} must be integral")
        return [int(v) for v in obj.reshape(-1).tolist()]
    return [int(v.item()) if isinstance(v, Tensor) else operator.index(v) for v in obj]


def _bind(args, kwargs):
    """{parameter: value} as torch's parser binds ctc_loss's arguments, and whether the lengths
    came as tensors; or torch's TypeError."""
    err = _PARSER.error(args, kwargs)
    if err is not None:
        raise err
    for k, sig in enumerate(_PARSER.signatures):
        bound = []
        if sig.parse(args, kwargs, False, bound):
            # torch's binding cannot evaluate the default at::Reduction::Mean and reads it as 0: a
            # reduction left out means none
            values = {"blank": 0, "reduction": 0, "zero_infinity": False}
            values.update((p.name, operator.index(obj) if p.kind == "int" else obj) for p, obj in bound)
            return values, k == 1
    raise TypeError("ctc_loss(): invalid arguments")  # unreachable: the parser took them above


def _extended(be, tg, tl, blank, n, c):
    """The extended label sequences (N, 2 * max(tl) + 1) of int64 targets tg, padded (N, S) or
    concatenated (sum(tl),): blank, l1, blank, l2, ..., blank, then blanks; and a bool (N,) of
    the sequences whose last label is the blank, or None where there is none."""
    smax = max(tl)
    ext = be.full((n, 2 * smax + 1), blank, int64.np)
    if not smax:
        return ext, None
    j = be.reshape(be.arange(0, smax, 1, int64.np), (1, smax))
    inside = be.lt(j, be.reshape(be.asarray(tl, int64.np), (n, 1)))
    if tg.ndim == 1:
        starts = be.reshape(be.asarray([0] + list(accumulate(tl))[:-1], int64.np), (n, 1))
        idx = be.where(inside, be.add(starts, j), be.zeros((), int64.np))
        labels = be.getitem(tg, (idx,), ((0, tg.shape[0] - 1),))
    else:
        labels = be.getitem(tg, (slice(None), slice(0, smax)))
    labels = be.where(inside, labels, be.full((), blank, int64.np))  # torch never reads the padding
    tl_a = be.asarray(tl, int64.np)
    last = be.getitem(labels, (be.arange(0, n, 1, int64.np), be.asarray([max(v - 1, 0) for v in tl], int64.np)),
                      ((0, n - 1), (0, smax - 1)))
    blank_last = be.bitwise_and(be.eq(last, blank), be.gt(tl_a, 0))   # a last label equal to the blank
    both = be.concatenate([be.reshape(be.amin(labels), (1,)), be.reshape(be.amax(labels), (1,)),
                           be.reshape(be.sum(blank_last, None, False), (1,))], 0)
    lo, hi, n_blank_last = (int(v) for v in be.to_numpy(both))
    if lo < 0 or hi >= c:
        # torch reads out of bounds there (undefined behaviour); refuse instead
        raise RuntimeError(f"ctc_loss: targets must be in the label range [0, {c}), but got a target of "
                           f"{lo if lo < 0 else hi}")
    be.setitem(ext, (slice(None), slice(1, None, 2)), labels)
    return ext, (blank_last if n_blank_last else None)


def _check(x, tg, il, tl, blank):
    """ATen's ctc_loss_allocate_outputs checks, in its order."""
    if x.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {x.ndim}-dimensional tensor for argument #1 "
                           f"'log_probs'{_WHERE}")
    if not 1 <= tg.ndim <= 2:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {tg.ndim}-dimensional tensor for argument #2 "
                           f"'targets'{_WHERE}")
    T, N, C = x.shape
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    if len(il) != N:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != N:
        raise RuntimeError("target_lengths must be of size batch_size")
    for v in tl:
        if v < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {v}{_WHERE}")
    if tg.ndim == 1:
        if tg.shape[0] != sum(tl):
            raise RuntimeError(f"Expected tensor to have size {sum(tl)} at dimension 0, but got size {tg.shape[0]} "
                               f"for argument #2 'targets'{_WHERE}")
    else:
        if tg.shape[0] != N:
            raise RuntimeError(f"Expected tensor to have size {N} at dimension 0, but got size {tg.shape[0]} for "
                               f"argument #2 'targets'{_WHERE}")
        if tg.shape[1] < max(tl):
            raise RuntimeError(f"Expected tensor to have size at least {max(tl)} at dimension 1, but got size "
                               f"{tg.shape[1]} for argument #2 'targets'{_WHERE}")
    for v in il:
        if v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {v}{_WHERE}")
        if v > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {v}{_WHERE}")


# ---- the public forms -----------------------------------------------------------------------------

def ctc_loss(*args, **kwargs):
    """torch.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=Mean,
    zero_infinity=False): lengths as tuples of ints or as integer tensors; reduction 1 (mean of
    the losses divided by their target lengths), 2 (sum), anything else none, and none where it
    is left out, as in torch."""
    a, tensor_form = _bind(args, kwargs)
    il = _lengths(a["input_lengths"], "input_lengths", tensor_form)
    tl = _lengths(a["target_lengths"], "target_lengths", tensor_form)
    blank, reduction, zero_infinity = a["blank"], a["reduction"], a["zero_infinity"]
    log_probs, targets = a["log_probs"], a["targets"]
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    dev = lp._device
    tg = targets.detach().to(dev, int64)._data
    x = lp._data
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"ctc_loss_{dev.type}\" not implemented for '{lp.dtype._legacy[:-6]}'")
    if not x.size:
        raise RuntimeError("log_probs tensor must not be empty")
    _check(x, tg, il, tl, blank)
    ext, blank_last = _extended(dev.backend, tg, tl, blank, x.shape[1], x.shape[2])
    res = CtcLoss.apply(lp, ext, il, tl, zero_infinity, blank_last)
    if zero_infinity:
        res = where(res == _INF, _make(dev.backend.zeros((), x.dtype), dev), res)
    if reduction == 1:
        be = dev.backend
        div = be.maximum(be.astype(be.asarray(tl, int64.np), x.dtype), 1.0)  # lengths clamped to 1
        return (res / _make(div, dev)).mean()
    if reduction == 2:
        return res.sum()
    return res if batched else res.squeeze(0)


def functional_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
                        zero_infinity=False):
    """F.ctc_loss: torch.ctc_loss with the reduction named."""
    if _AUTOCAST_ON[0] and (r := _autocast(
            "ctc_loss", functional_ctc_loss, log_probs, targets, input_lengths, target_lengths, blank, reduction,
            zero_infinity)) is not None:
        return r
    return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _ENUM[check_reduction(reduction)],
                    zero_infinity)


functional_ctc_loss.__name__ = functional_ctc_loss.__qualname__ = "ctc_loss"
