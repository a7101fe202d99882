"""Losses with fused kernels: cross-entropy over class indices (log-softmax + NLL in one pass)."""
from ..dtypes import int64
from ..tensor import Tensor, _make
from .elementwise import Builtin, device_error


class CrossEntropy(Builtin):
    """Mean (or sum, or per-sample) of -log_softmax(x)[i, target[i]] for logits x (N, C)."""
    _node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, x, target, reduction):
        be = x._device.backend
        loss_rows, lse = be.cross_entropy(x._data, target._data)
        ctx.save_for_backward(x, target)
        ctx.lse, ctx.reduction = lse, reduction
        if reduction == "none":
            return _make(loss_rows, x._device)
        total = be.sum(loss_rows, None, False)
        n = x._data.shape[0]
        return _make(be.div(total, n) if reduction == "mean" else total, x._device)

    @staticmethod
    def backward(ctx, g):
        x, target = ctx.saved_tensors
        n = x._data.shape[0]
        onehot = (target.unsqueeze(1) == _arange_like(x)).to(x.dtype)
        scale = g / n if ctx.reduction == "mean" else g if ctx.reduction == "sum" else g.unsqueeze(1)
        return (x.softmax(1) - onehot) * scale, None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        if ctx.reduction == "none":
            return NotImplemented
        x, target = ctx.saved_arrays()
        scale = be.to_numpy(g).item()
        if ctx.reduction == "mean":
            scale /= x.shape[0]
        return be.cross_entropy_backward(x, target, ctx.lse, scale), None, None


def _arange_like(x):
    be = x._device.backend
    return _make(be.arange(0, x._data.shape[1], 1, int64.np), x._device)


def cross_entropy(input, target, reduction="mean"):
    """torch.nn.functional.cross_entropy for (N, C) logits and (N,) class indices."""
    if not isinstance(target, Tensor) or target._data.dtype.kind not in "iu":
        raise RuntimeError("cross_entropy: expected target to be a tensor of class indices (int64)")
    if input._device is not target._device:
        raise device_error(input, target)
    if input._data.ndim != 2 or target._data.ndim != 1:
        raise RuntimeError(f"cross_entropy: expected input of shape (N, C) and target of shape (N,), got "
                           f"{list(input._data.shape)} and {list(target._data.shape)}")
    n, c = input._data.shape
    if target._data.shape[0] != n:
        raise ValueError(f"Expected input batch_size ({n}) to match target batch_size ({target._data.shape[0]}).")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    be = input._device.backend
    if n and (be.to_numpy(be.amin(target._data)) < 0 or be.to_numpy(be.amax(target._data)) >= c):
        bad = be.to_numpy(target._data)
        bad = bad[(bad < 0) | (bad >= c)][0]
        raise IndexError(f"Target {bad} is out of bounds.")
    if input._data.dtype.kind != "f":
        raise RuntimeError("cross_entropy: expected floating point logits")
    return CrossEntropy.apply(input, target.long(), reduction)
