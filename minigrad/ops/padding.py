"""F.pad: constant padding (negative pads crop), and reflect / replicate / circular padding of the
last 1-3 dims, on the backends' primitives (full + setitem, and gathers along each padded dim).

A constant pad's gradient is the constant pad of the gradient with the pads negated (cropping
what was added, zero-filling what was cropped), so its backward is the op itself. The other
modes read each output element from one input element per dim (an index map built in Python):
the forward gathers along each padded dim, the backward adds the gradient back along the same
maps (scatter_add), so copied elements collect the gradients of all their copies.
"""
from numbers import Number

from .._arg_errors import type_name
from ..autograd.function import Function
from ..dtypes import int64
from ..tensor import Tensor, _make
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

_MODES = ("constant", "reflect", "replicate", "circular")


class ConstantPadNd(Function):
    _node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, x, pads, value):
        ctx.pads = pads
        return _make(_constant_pad(x._data, x._device.backend, pads, value), x._device)

    @staticmethod
    def backward(ctx, g):
        return ConstantPadNd.apply(g, tuple(-p for p in ctx.pads), 0), None, None


def _constant_pad(a, be, pads, value):
    """a padded with value (pads: (left, right) of the last dims, last dim first, as torch's)."""
    shape = list(a.shape)
    nd = len(shape)
    src, dst = [slice(None)] * nd, [slice(None)] * nd
    out_shape = list(shape)
    for k in range(len(pads) // 2):
        d = nd - 1 - k
        lo, hi = pads[2 * k], pads[2 * k + 1]
        n = shape[d]
        out_shape[d] = n + lo + hi
        # the input's part that survives the cropping, and where it lands
        s0, s1 = max(-lo, 0), n - max(-hi, 0)
        src[d] = slice(s0, s1)
        dst[d] = slice(max(lo, 0), max(lo, 0) + max(s1 - s0, 0))
    out = be.full(tuple(out_shape), value, a.dtype)
    if all(s.stop is None or s.stop > s.start for s in src) and 0 not in out_shape:
        be.setitem(out, tuple(dst), be.getitem(a, tuple(src)))
    return out


def _index_map(n, lo, hi, mode):
    """For each output position along a dim of n elements padded by (lo, hi), its source index."""
    if mode == "circular":  # as torch: crop first, then wrap around what is left
        first, m = max(-lo, 0), n - max(-lo, 0) - max(-hi, 0)
        return [first + (j - max(lo, 0)) % m for j in range(n + lo + hi)]
    out = []
    for j in range(n + lo + hi):
        s = j - lo
        if mode == "reflect":
            s = -s if s < 0 else 2 * (n - 1) - s if s >= n else s
        else:
            s = 0 if s < 0 else n - 1 if s >= n else s
        out.append(s)
    return out


class _IndexPad(Function):
    """Gathers along each padded dim; the gradient scatter-adds back along the same maps."""

    @staticmethod
    def forward(ctx, x, maps):
        ctx.maps = maps
        ctx.shape = x._data.shape
        out = x
        for d, idx in maps:
            out = out.index_select(d, _index_tensor(x, idx))
        return out

    @staticmethod
    def backward(ctx, g):
        shape = list(ctx.shape)
        for d, idx in reversed(ctx.maps):
            cur = list(g._data.shape)
            cur[d] = shape[d]
            index = _index_tensor(g, idx)
            view = [1] * len(cur)
            view[d] = len(idx)
            index = index.reshape(view).expand(*g._data.shape)
            be = g._device.backend
            g = _make(be.zeros(tuple(cur), g._data.dtype), g._device).scatter_add(d, index, g)
        return g, None


def _index_tensor(like, idx):
    be = like._device.backend
    return _make(be.asarray(idx, int64.np), like._device)


def _named(mode, k):
    name = {"reflect": "ReflectionPad", "replicate": "ReplicationPad", "circular": "CircularPad"}[mode]
    # torch writes circular padding as copies into slices of a new tensor: its node is CopySlices
    node = "CopySlices" if mode == "circular" else f"{name}{k}DBackward0"
    return type(f"{name}{k}d", (_IndexPad,), {"_node_name": node})


_PAD_OPS = {(m, k): _named(m, k) for m in ("reflect", "replicate", "circular") for k in (1, 2, 3)}

_UNSUPPORTED = ("Supported combinations for non-constant padding:\n"
                "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


_AUTOCAST_PADS = {"reflect": "reflection_pad", "replicate": "replication_pad"}


def pad(input, pad, mode="constant", value=None):
    if not isinstance(input, Tensor):
        raise TypeError(f"pad(): argument 'input' (position 1) must be Tensor, not {type_name(input)}")
    if not isinstance(pad, (tuple, list)):
        if isinstance(pad, Tensor) or type(pad).__name__ == "Size":
            pad = tuple(pad)
        else:
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not {type_name(pad)}")
    for i, p in enumerate(pad):
        if not isinstance(p, int) or isinstance(p, bool):
            if isinstance(p, Tensor) and not p._data.ndim and p._data.dtype.kind in "iu":
                continue
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of "
                            f"type {type_name(p)} at pos {i}")
    pads = tuple(int(p) for p in pad)
    if not isinstance(mode, str):
        raise TypeError(f"pad(): argument 'mode' (position 3) must be str, not {type_name(mode)}")
    if value is not None and (not isinstance(value, Number) or isinstance(value, complex)):
        raise TypeError(f"pad(): argument 'value' (position 4) must be float, not {type_name(value)}")
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    shape = list(input._data.shape)
    nd = len(shape)
    if mode == "constant":
        return _pad_constant(input, pads, 0 if value is None else value, shape)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if len(pads) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    k = len(pads) // 2
    if len(pads) not in (2, 4, 6) or nd not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pads)} is not supported for {nd}D input tensor.\n"
                                  + _UNSUPPORTED)
    if _AUTOCAST_ON[0] and mode in _AUTOCAST_PADS and (  # torch's reflection_/replication_pad{k}d
            r := _autocast(f"{_AUTOCAST_PADS[mode]}{k}d", globals()["pad"], input, pads, mode, value)) is not None:
        return r
    if mode != "circular":
        if any(shape[d] == 0 for d in range(1, nd)):  # only a batch may be empty
            raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and "
                               f"other non-zero dimensions for input, but got: {shape}")
    maps = []
    for j in range(k):
        d = nd - 1 - j
        lo, hi = pads[2 * j], pads[2 * j + 1]
        n = shape[d]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(f"Argument #{4 + 2 * j}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({lo}, {hi}) at dimension {d} of input {shape}")
        if mode == "circular":
            if lo > n or hi > n:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if n + lo + hi <= 0 and (lo < 0 or hi < 0):
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
        if n + lo + hi < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        if lo or hi:
            maps.append((d, _index_map(n, lo, hi, mode)))
    return _PAD_OPS[mode, k].apply(input, tuple(maps))


def _pad_constant(input, pads, value, shape):
    if len(pads) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    nd = len(shape)
    if len(pads) // 2 > nd:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pads)} and input of dimension {nd}")
    for k in range(len(pads) // 2):
        d = nd - 1 - k
        lo, hi = pads[2 * k], pads[2 * k + 1]
        n = shape[d]
        if n + min(lo, 0) + min(hi, 0) < 0 or n + lo < 0 or n + hi < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        if n + lo + hi < 0:
            raise RuntimeError(f"The input size {n}, plus negative padding {lo} and {hi} resulted in a negative "
                               f"output size, which is invalid. Check dimension {d} of your input.")
    kind = "f" if input._data.dtype.char == "H" else input._data.dtype.kind  # (H: bfloat16)
    if kind == "b":
        value = bool(value)
    elif kind in "iu":
        value = int(value)
    else:
        value = float(value)
    return ConstantPadNd.apply(input, pads, value)


# a channels_last(_3d) input gives a result in that format, as torch's
from ..memory_formats import keeps_format as _keeps_format  # noqa: E402
pad = _keeps_format(pad, (0, "input"))
