"""Convolution and pooling on (N, C, *spatial) tensors with one or two spatial dims.

Everything rests on the backend's im2col: the zero-padded input's sliding windows as columns
(N, C * prod(kernel), L), written straight from the input (kernels/conv.cu on CUDA); col2im is
its adjoint, each input element gathering the sum of the column entries read from it. A
convolution is then one batched GEMM in our matmul (groups as a batch dim), a transposed
convolution a GEMM then col2im, average pooling a reduction over the kernel axis of the
columns; max pooling takes the windows as an as_strided view of the input padded with -inf.
"""
import math

from ..autograd.grad_mode import _grad_enabled
from ..tensor import _make
from .elementwise import Builtin
from .strided import FlatScatter


def out_size(n, k, d, lo, hi, s, ceil_mode=False):
    """Sliding positions along a dim of n elements padded by (lo, hi) (torch's formula)."""
    span = n + lo + hi - d * (k - 1) - 1
    if ceil_mode:
        o = -(-span // s) + 1
        if (o - 1) * s >= n + lo:  # the last window must start inside the input or left padding
            o -= 1
        return o
    return span // s + 1


def _window_geometry(shape, strides, k, dil, stride, out, kernel_first=True):
    """The (N, C, *kernel, *out) (or (N, C, *out, *kernel)) windows of an array (N, C, *spatial)."""
    ks = tuple(d * st for d, st in zip(dil, strides[2:]))
    os_ = tuple(s * st for s, st in zip(stride, strides[2:]))
    if kernel_first:
        return shape[:2] + tuple(k) + tuple(out), tuple(strides[:2]) + ks + os_
    return shape[:2] + tuple(out) + tuple(k), tuple(strides[:2]) + os_ + ks


def _pad(be, x, pads, value):
    """x (N, C, *spatial) padded by pads ((lo, hi) per spatial dim) with value; x itself when none."""
    if not any(lo or hi for lo, hi in pads):
        return x
    shape = x.shape[:2] + tuple(n + lo + hi for n, (lo, hi) in zip(x.shape[2:], pads))
    out = be.full(shape, value, x.dtype)
    index = (slice(None), slice(None)) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(x.shape[2:], pads))
    be.setitem(out, index, x)
    return out


def _windows(be, x, k, dil, pads, stride, out, value, kernel_first=True):
    """The windows of x padded with value, as a view of the padded array."""
    xp = _pad(be, x, pads, value)
    shape, strides = _window_geometry(xp.shape, be.strides(xp), k, dil, stride, out, kernel_first)
    return be.as_strided(xp, shape, strides, 0)


def im2col(be, x, k, dil, pads, stride, out):
    """The columns (N, C * prod(k), L) of x (N, C, *spatial) zero-padded by pads ((lo, hi) per
    dim): each window, channel-major (the backend's im2col: no padded copy)."""
    return be.im2col(x, tuple(k), tuple(dil), tuple(lo for lo, _ in pads), tuple(stride), tuple(out))


def col2im(be, cols, spatial, k, dil, pads, stride, out):
    """The adjoint of im2col: columns (N, C * prod(k), L) summed back into (N, C, *spatial)
    (the backend's col2im: each element gathers its terms, no scatter)."""
    return be.col2im(cols, tuple(spatial), tuple(k), tuple(dil), tuple(lo for lo, _ in pads), tuple(stride),
                     tuple(out))


class Im2Col(Builtin):
    """F.unfold's node: x (N, C, *spatial) to columns (N, C * prod(k), L)."""
    _node_name = "Im2ColBackward0"

    @staticmethod
    def forward(ctx, x, k, dil, pads, stride, out):
        ctx.spatial, ctx.args = x._data.shape[2:], (k, dil, pads, stride, out)
        return _make(im2col(x._device.backend, x._data, k, dil, pads, stride, out), x._device)

    @staticmethod
    def backward(ctx, g):
        return (Col2Im.apply(g, ctx.spatial, *ctx.args),) + (None,) * 5


class Col2Im(Builtin):
    """F.fold's node: columns (N, C * prod(k), L) summed into (N, C, *spatial)."""
    _node_name = "Col2ImBackward0"

    @staticmethod
    def forward(ctx, cols, spatial, k, dil, pads, stride, out):
        ctx.args = (k, dil, pads, stride, out)
        return _make(col2im(cols._device.backend, cols._data, spatial, k, dil, pads, stride, out), cols._device)

    @staticmethod
    def backward(ctx, g):
        return (Im2Col.apply(g, *ctx.args),) + (None,) * 6


class Convolution(Builtin):
    """F.conv1d / F.conv2d: x (N, C, *spatial), w (O, C / groups, *k), b (O,) or None; the
    columns of each group times its weights in one batched GEMM (N, groups, O / groups, L)."""
    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, x, w, b, stride, pads, dil, groups):
        be = x._device.backend
        k = w._data.shape[2:]
        n, c = x._data.shape[:2]
        o = w._data.shape[0]
        out = tuple(out_size(s, kk, d, lo, hi, st) for s, kk, d, (lo, hi), st in
                    zip(x._data.shape[2:], k, dil, pads, stride))
        cols = im2col(be, x._data, k, dil, pads, stride, out)
        cols = be.reshape(cols, (n, groups, cols.shape[1] // groups, cols.shape[2]))
        wm = be.reshape(be.ascontiguous(w._data), (groups, o // groups, -1))
        res = be.matmul(wm, cols)
        if b is not None:
            res = be.add(res, be.reshape(b._data, (groups, o // groups, 1)))
        ctx.geometry = (k, dil, pads, stride, out, groups, x._data.shape[2:])
        nx, nw, nb = ctx.needs_input_grad[:3]
        if nx or nw:
            ctx.save_for_backward(x if nw else None, w if nx else None)
            ctx.cols = cols if nw else None
        return _make(be.reshape(res, (n, o) + out), x._device)

    @staticmethod
    def backward(ctx, g):
        nx, nw, nb = ctx.needs_input_grad[:3]
        k, dil, pads, stride, out, groups, spatial = ctx.geometry
        x, w = ctx.saved_tensors if nx or nw else (None, None)
        n, o = g._data.shape[:2]
        gr = g.reshape(n, groups, o // groups, -1)
        gx = gw = gb = None
        if nw:
            if _grad_enabled():  # create_graph: the columns as a function of x
                cols = Im2Col.apply(x, k, dil, pads, stride, out)
                cols = cols.reshape(n, groups, -1, cols._data.shape[2])
            else:
                cols = _make(ctx.cols, g._device)
            gw = gr.matmul(cols.transpose(-1, -2)).sum(0).reshape(o, -1, *k)
        if nx:
            wm = w.reshape(groups, o // groups, -1)
            gcols = wm.transpose(-1, -2).matmul(gr)
            gx = Col2Im.apply(gcols.reshape(n, -1, gcols._data.shape[3]), spatial, k, dil, pads, stride, out)
        if nb:
            gb = g.sum((0,) + tuple(range(2, g._data.ndim)))
        return gx, gw, gb, None, None, None, None


class ConvTranspose(Builtin):
    """F.conv_transpose{1,2}d: the adjoint of a convolution. x (N, C_in, *in), w (C_in, C_out /
    groups, *k): each group's weights transposed times its inputs in one batched GEMM gives the
    columns (N, groups, C_out / groups * prod(k), L_in), which col2im sums into (N, C_out, *out)."""
    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, x, w, b, stride, pads, dil, groups, spatial):
        be = x._device.backend
        xd, wd = x._data, w._data
        k, n, cin, cog = wd.shape[2:], xd.shape[0], xd.shape[1], wd.shape[1]
        insp = xd.shape[2:]
        L = math.prod(insp)
        xm = be.reshape(be.ascontiguous(xd), (n, groups, cin // groups, L))
        wm = be.reshape(be.ascontiguous(wd), (groups, cin // groups, cog * math.prod(k)))
        cols = be.matmul(be.transpose(wm, (0, 2, 1)), xm)
        res = col2im(be, be.reshape(cols, (n, groups * cog * math.prod(k), L)), spatial, k, dil, pads, stride, insp)
        if b is not None:
            res = be.add(res, be.reshape(b._data, (1, groups * cog) + (1,) * len(spatial)))
        ctx.geometry, ctx.channels = (k, dil, pads, stride, insp, groups), (cin, cog, L)
        nx, nw = ctx.needs_input_grad[:2]
        if nx or nw:
            ctx.save_for_backward(x if nw else None, w if nx else None)
        return _make(res, x._device)

    @staticmethod
    def backward(ctx, g):
        nx, nw, nb = ctx.needs_input_grad[:3]
        k, dil, pads, stride, insp, groups = ctx.geometry
        x, w = ctx.saved_tensors if nx or nw else (None, None)
        n = g._data.shape[0]
        gx = gw = gb = None
        cin, cog, L = ctx.channels
        if nx or nw:  # the gradient's columns at the input's positions: a convolution's im2col
            gcols = Im2Col.apply(g, k, dil, pads, stride, insp).reshape(n, groups, cog * math.prod(k), L)
        if nx:
            gx = w.reshape(groups, cin // groups, cog * math.prod(k)).matmul(gcols).reshape(n, cin, *insp)
        if nw:
            xm = x.reshape(n, groups, cin // groups, L)
            gw = xm.matmul(gcols.transpose(-1, -2)).sum(0).reshape(cin, cog, *k)
        if nb:
            gb = g.sum((0,) + tuple(range(2, g._data.ndim)))
        return gx, gw, gb, None, None, None, None, None


def _adaptive_windows(n, o):
    """torch's adaptive windows along a dim: [floor(i n / o), ceil((i + 1) n / o)) for i < o."""
    return [((i * n) // o, -(-((i + 1) * n) // o)) for i in range(o)]


def _adaptive_table(spatial, out):
    """(prod(out), K) input-plane positions of each output's window, row-major, K the largest
    window; shorter windows repeat their last position (which changes neither the max, nor the
    first maximum's position, nor the last NaN's)."""
    per_dim = [_adaptive_windows(n, o) for n, o in zip(spatial, out)]
    rows = [[]]
    for wins in per_dim:
        rows = [r + [list(range(a, b))] for r in rows for a, b in wins]
    table = []
    for r in rows:
        pos = [0]
        for d, rng in enumerate(r):
            step = math.prod(spatial[d + 1:])
            pos = [p + i * step for p in pos for i in rng]
        table.append(pos)
    width = max((len(p) for p in table), default=0)
    return [p + [p[-1]] * (width - len(p)) for p in table], width


class AdaptiveMaxPool(Builtin):
    """F.adaptive_max_pool{1,2}d's node: (values, int64 positions within each input plane) of
    each window's maximum: the first one, or the last NaN where the window has NaNs (torch's
    CPU loop); the gradient of each output goes to that position (overlaps add up)."""
    _node_name = "AdaptiveMaxPool2DBackward0"

    @staticmethod
    def forward(ctx, x, out):
        be = x._device.backend
        from ..dtypes import int64
        xd = x._data
        nd = len(out)
        lead, spatial = xd.shape[:-nd], xd.shape[-nd:]  # (N, C) or an unbatched (C,)
        m, plane, P = math.prod(lead), math.prod(spatial), math.prod(out)
        table, width = _adaptive_table(spatial, out)
        if P == 0 or m == 0:
            vals, idx = be.zeros(lead + tuple(out), xd.dtype), be.zeros(lead + tuple(out), int64.np)
        else:
            tab = be.asarray(table, int64.np)  # (P, K)
            w = be.getitem(be.reshape(be.ascontiguous(xd), (m, plane)), (slice(None), tab),
                           (None, (0, plane - 1)))  # (M, P, K)
            vals = be.amax(w, (2,))  # NaN where the window has one
            first = be.argmax(w, 2)  # the first maximum (NaN counted as the largest)
            rev = be.getitem(be.ne(w, w), (Ellipsis, slice(None, None, -1)))
            last_nan = be.add(be.neg(be.argmax(rev, 2)), width - 1)
            local = be.where(be.ne(vals, vals), last_nan, first)
            flat = be.add(be.mul(be.reshape(be.arange(0, P, 1, int64.np), (1, P)), width), local)
            idx = be.getitem(be.reshape(tab, (P * width,)), (flat,), ((0, P * width - 1),))
            vals, idx = be.reshape(vals, lead + tuple(out)), be.reshape(idx, lead + tuple(out))
        ctx.idx, ctx.shape = idx, (1, m) + tuple(spatial)
        indices = _make(idx, x._device)
        ctx.mark_non_differentiable(indices)
        return _make(vals, x._device), indices

    @staticmethod
    def backward(ctx, g, _gi=None):
        m, spatial, out = ctx.shape[1], ctx.shape[2:], ctx.idx.shape[-len(ctx.shape) + 2:]
        lead = ctx.idx.shape[:ctx.idx.ndim - len(out)]
        idx = g._device.backend.reshape(ctx.idx, (1, m) + tuple(out))
        return _scatter_planes(g.reshape((1, m) + tuple(out)), idx, ctx.shape).reshape(lead + tuple(spatial)), None


def _pool_pads(padding, k, dil, stride, spatial, ceil_mode):
    """(lo, hi) pads: torch's padding on both sides, plus room on the right for the ceil_mode windows."""
    pads, outs = [], []
    for s, kk, d, p, st in zip(spatial, k, dil, padding, stride):
        o = out_size(s, kk, d, p, p, st, ceil_mode)
        need = (o - 1) * st + d * (kk - 1) + 1 - (s + 2 * p)
        pads.append((p, p + max(need, 0)))
        outs.append(o)
    return tuple(pads), tuple(outs)


def _lowest(be, dtype):
    """The padding of a max pool: -inf, or the dtype's smallest value."""
    if dtype.kind == "f":
        return float("-inf")
    if dtype.kind == "b":
        return False
    return -(1 << (8 * dtype.itemsize - 1))


class MaxPool(Builtin):
    """F.max_pool{1,2}d's node: (values, int64 indices into each input plane); the gradient of
    each output goes to its input element (the first maximum in the window; NaN wins)."""
    _node_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, x, k, dil, padding, stride, ceil_mode):
        be = x._device.backend
        xd = x._data
        spatial = xd.shape[2:]
        pads, out = _pool_pads(padding, k, dil, stride, spatial, ceil_mode)
        nk, L = math.prod(k), math.prod(out)
        w = _windows(be, xd, k, dil, pads, stride, out, _lowest(be, xd.dtype), kernel_first=False)
        w = be.reshape(be.ascontiguous(w), xd.shape[:2] + (L, nk))
        local = be.argmax(w, w.ndim - 1)  # (N, C, L): the first maximum, NaN counted as the largest
        # the input position (in its plane) of each window element, -1 on padding
        from ..dtypes import int64
        plane = math.prod(spatial)
        pos = be.reshape(be.arange(0, plane, 1, int64.np), (1, 1) + tuple(spatial))
        pos = _windows(be, pos, k, dil, pads, stride, out, -1, kernel_first=False)
        pos = be.reshape(be.ascontiguous(pos), (L * nk,))
        flat = be.add(be.mul(be.reshape(be.arange(0, L, 1, int64.np), (1, 1, L)), nk), local)
        idx = be.getitem(pos, (flat,), ((0, L * nk - 1),))
        vals = be.reshape(be.amax(w, (w.ndim - 1,)), xd.shape[:2] + out)  # NaN where the window has one
        idx = be.reshape(idx, xd.shape[:2] + out)
        ctx.idx, ctx.shape = idx, xd.shape
        indices = _make(idx, x._device)
        ctx.mark_non_differentiable(indices)
        return _make(vals, x._device), indices

    @staticmethod
    def backward(ctx, g, _gi=None):
        return _scatter_planes(g, ctx.idx, ctx.shape), None, None, None, None, None


def _scatter_planes(g, idx, shape):
    """zeros(shape) with g (N, C, *out) added at idx (positions within each (N, C) plane)."""
    be = g._device.backend
    from ..dtypes import int64
    nc, plane = shape[0] * shape[1], math.prod(shape[2:])
    base = be.reshape(be.mul(be.arange(0, nc, 1, int64.np), plane), shape[:2] + (1,) * (idx.ndim - 2))
    full = be.add(idx, base)
    return FlatScatter.apply(g, full, nc * plane).reshape(shape)


def _avg_divisors(spatial, k, padding, stride, out, count_include_pad, divisor_override):
    """torch's divisor of each output of an average pool, row-major over out (host floats)."""
    per_dim = []
    for n, kk, p, st, o in zip(spatial, k, padding, stride, out):
        sizes = []
        for i in range(o):
            start = i * st - p
            end = min(start + kk, n + p)
            full = end - start
            sizes.append(full if count_include_pad else min(end, n) - max(start, 0))
        per_dim.append(sizes)
    divs = [1.0]
    for sizes in per_dim:
        divs = [d * s for d in divs for s in sizes]
    if divisor_override:
        divs = [float(divisor_override)] * len(divs)
    return divs


class AvgPool(Builtin):
    """F.avg_pool2d's node: the sums over each window's columns, each divided by torch's divisor."""
    _node_name = "AvgPool2DBackward0"

    @staticmethod
    def forward(ctx, x, k, padding, stride, ceil_mode, count_include_pad, divisor_override):
        be = x._device.backend
        xd = x._data
        spatial = xd.shape[2:]
        ones = (1,) * len(k)
        pads, out = _pool_pads(padding, k, ones, stride, spatial, ceil_mode)
        n, c, nk, L = xd.shape[0], xd.shape[1], math.prod(k), math.prod(out)
        cols = be.reshape(im2col(be, xd, k, ones, pads, stride, out), (n, c, nk, L))
        div = be.asarray(_avg_divisors(spatial, k, padding, stride, out, count_include_pad, divisor_override),
                         xd.dtype)
        ctx.div, ctx.geometry = div, (spatial, k, ones, pads, stride, out)
        return _make(be.reshape(be.div(be.sum(cols, (2,)), div), (n, c) + out), x._device)

    @staticmethod
    def backward(ctx, g):
        spatial, k, ones, pads, stride, out = ctx.geometry
        n, c, nk, L = g._data.shape[0], g._data.shape[1], math.prod(k), math.prod(out)
        gd = g.reshape(n, c, 1, L) / _make(ctx.div, g._device)
        gd = gd.expand(n, c, nk, L).reshape(n, c * nk, L)
        return (Col2Im.apply(gd, spatial, k, ones, pads, stride, out),) + (None,) * 6


def _adaptive_matrix(be, n, o, dtype):
    """(o, n): row i averages torch's window [floor(i n / o), ceil((i + 1) n / o))."""
    rows = []
    for i in range(o):
        start, end = (i * n) // o, -(-((i + 1) * n) // o)
        rows.append([1.0 / (end - start) if start <= j < end else 0.0 for j in range(n)])
    return be.asarray(rows, dtype) if rows and n else be.zeros((o, n), dtype)


class AdaptiveAvgPool(Builtin):
    """F.adaptive_avg_pool2d's node: each spatial dim averaged by a (out, in) matrix of its
    windows (the windows are products of per-dim ranges, so the means factor)."""
    _node_name = "AdaptiveAvgPool2DBackward0"

    @staticmethod
    def forward(ctx, x, out):
        be = x._device.backend
        xd = x._data
        nd = len(out)
        mats = [_adaptive_matrix(be, n, o, xd.dtype) for n, o in zip(xd.shape[2:], out)]
        ctx.mats = mats
        r = xd
        for i, m in enumerate(mats):  # contract spatial dim i: move it last, multiply, move back
            axes = tuple(a for a in range(r.ndim) if a != 2 + i) + (2 + i,)
            r = be.matmul(be.transpose(r, axes), be.transpose(m, (1, 0)))
            back = list(range(r.ndim - 1))
            back.insert(2 + i, r.ndim - 1)
            r = be.transpose(r, tuple(back))
        return _make(be.ascontiguous(r), x._device) if nd else _make(r, x._device)

    @staticmethod
    def backward(ctx, g):
        r = g
        for i, m in enumerate(ctx.mats):
            r = r.transpose(2 + i, -1).matmul(_make(m, g._device)).transpose(2 + i, -1)
        return r, None


# ---- torch.nn.functional's forms: argument checks with torch's messages ---------------------------

def _tensor(x, fn, arg="input", pos=1):
    from ..tensor import Tensor
    if not isinstance(x, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not {type_name(x)}")
    return x


def _ntuple(v, n, fn, arg):
    """An int or a sequence of n ints, as a tuple of n ints."""
    from .._arg_errors import _is_index, type_name
    if _is_index(v):
        return (int(v),) * n
    if isinstance(v, (tuple, list)) and all(_is_index(i) for i in v):
        if len(v) == n:
            return tuple(int(i) for i in v)
        if len(v) == 1:
            return (int(v[0]),) * n
        raise RuntimeError(f"{fn}: {arg} must either be a single int, or a tuple of {n} ints")
    raise TypeError(f"{fn}(): argument '{arg}' must be tuple of ints, not {type_name(v)}")


def _sizes(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def conv(nd, input, weight, bias, stride, padding, dilation, groups):
    """F.conv1d (nd 1) and F.conv2d (nd 2)."""
    name = f"conv{nd}d"
    _tensor(input, name), _tensor(weight, name, "weight", 2)
    if bias is not None:
        _tensor(bias, name, "bias", 3)
    if input._data.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input "
                           f"of size: {_sizes(input._data.shape)}")
    unbatched = input._data.ndim == nd + 1
    x = input.unsqueeze(0) if unbatched else input
    ws = weight._data.shape
    if len(ws) != nd + 2:
        raise RuntimeError(f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight {_sizes(ws)}, but "
                           f"got {x._data.ndim}-dimensional input of size {_sizes(x._data.shape)} instead")
    from .elementwise import device_error
    for other in (weight, bias):
        if other is not None and other._device is not input._device:
            raise device_error(input, other)
        if other is not None and other.dtype is not input.dtype:
            raise RuntimeError(f"expected scalar type {input.dtype._legacy[:-6]} but found "
                               f"{other.dtype._legacy[:-6]}")
    stride = _ntuple(stride, nd, name, "stride")
    dilation = _ntuple(dilation, nd, name, "dilation")
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            # torch's split of an odd total: the extra element on the right
            pads = tuple((d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for d, k in zip(dilation, ws[2:]))
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pads = tuple((p, p) for p in _ntuple(padding, nd, name, "padding"))
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(lo < 0 for lo, _ in pads):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    from .._arg_errors import _is_long
    if not _is_long(groups):
        from .._arg_errors import type_name
        raise TypeError(f"{name}(): argument 'groups' (position 7) must be int, not {type_name(groups)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_sizes(ws)}] instead")
    if x._data.shape[1] != ws[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_sizes(ws)}, expected input{_sizes(x._data.shape)} "
                           f"to have {ws[1] * groups} channels, but got {x._data.shape[1]} channels instead")
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != ws[0]):
        raise RuntimeError(f"Given weight of size {_sizes(ws)}, expected bias to be 1-dimensional with {ws[0]} "
                           f"elements, but got bias of size {_sizes(bias._data.shape)} instead")
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(x._data.shape[2:], pads))
    eff = tuple(d * (k - 1) + 1 for d, k in zip(dilation, ws[2:]))
    if any(e > p for e, p in zip(eff, padded)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, eff))}). Kernel size can't be greater than actual input size")
    out = Convolution.apply(x, weight, bias, stride, pads, dilation, int(groups))
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return conv(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return conv(2, input, weight, bias, stride, padding, dilation, groups)


def _unfold_args(fn, kernel_size, dilation, padding, stride):
    return (_ntuple(kernel_size, 2, fn, "kernel_size"), _ntuple(dilation, 2, fn, "dilation"),
            _ntuple(padding, 2, fn, "padding"), _ntuple(stride, 2, fn, "stride"))


def _check_unfold_args(k, dil, pad, stride):
    if any(v <= 0 for v in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {k[0]} kernel_width: {k[1]}")
    if any(v <= 0 for v in dil):
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dil[0]} "
                           f"dilation_width: {dil[1]}")
    if any(v < 0 for v in pad):
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {pad[0]} pad_width: {pad[1]}")
    if any(v <= 0 for v in stride):
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {stride[0]} "
                           f"stride_width: {stride[1]}")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """F.unfold (im2col): (N, C, H, W) to (N, C * kh * kw, L), the blocks as columns."""
    _tensor(input, "unfold")
    k, dil, pad, stride = _unfold_args("unfold", kernel_size, dilation, padding, stride)
    nd = input._data.ndim
    if nd not in (3, 4) or (nd == 4 and input._data.shape[1] == 0) or 0 in input._data.shape[-2:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {_sizes(input._data.shape)}")
    _check_unfold_args(k, dil, pad, stride)
    x = input.unsqueeze(0) if nd == 3 else input
    pads = tuple((p, p) for p in pad)
    out = tuple(out_size(s, kk, d, p, p, st) for s, kk, d, p, st in zip(x._data.shape[2:], k, dil, pad, stride))
    if any(o < 1 for o in out):
        h, w = x._data.shape[2:]
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size=({k[0]}, {k[1]}), dilation=({dil[0]}, "
                           f"{dil[1]}), padding=({pad[0]}, {pad[1]}), calculated shape of the array of sliding blocks "
                           f"as ({out[0]}, {out[1]}), but its components must be at least one.")
    r = Im2Col.apply(x, k, dil, pads, stride, out)
    return r.squeeze(0) if nd == 3 else r


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """F.fold (col2im): (N, C * kh * kw, L) summed into (N, C, *output_size)."""
    _tensor(input, "fold")
    size = _ntuple(output_size, 2, "fold", "output_size")
    k, dil, pad, stride = _unfold_args("fold", kernel_size, dilation, padding, stride)
    nd = input._data.ndim
    if nd not in (2, 3) or 0 in input._data.shape[-2:]:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {_sizes(input._data.shape)}")
    _check_unfold_args(k, dil, pad, stride)
    x = input.unsqueeze(0) if nd == 2 else input
    nk = k[0] * k[1]
    if x._data.shape[1] % nk:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={x._data.shape[1]} and kernel_size=({k[0]}, {k[1]}).")
    out = tuple(out_size(s, kk, d, p, p, st) for s, kk, d, p, st in zip(size, k, dil, pad, stride))
    if out[0] * out[1] != x._data.shape[2] or any(o < 1 for o in out):
        raise RuntimeError(f"Given output_size=({size[0]}, {size[1]}), kernel_size=({k[0]}, {k[1]}), dilation=({dil[0]}, "
                           f"{dil[1]}), padding=({pad[0]}, {pad[1]}), stride=({stride[0]}, {stride[1]}), expected size "
                           f"of input's dimension 2 to match the calculated number of sliding blocks {out[0]} * "
                           f"{out[1]} = {out[0] * out[1]}, but got input.size(2)={x._data.shape[2]}.")
    r = Col2Im.apply(x, size, k, dil, tuple((p, p) for p in pad), stride, out)
    return r.squeeze(0) if nd == 2 else r


def _pool_input(fn, input, nd):
    _tensor(input, fn)
    shape = input._data.shape
    if input._data.ndim not in (nd + 1, nd + 2) or 0 in shape[-(nd + 1):]:
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")


def _pool_args(fn, nd, input, kernel_size, stride, padding, dilation, ceil_mode):
    k = _ntuple(kernel_size, nd, fn, "kernel_size")
    stride = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) else \
        _ntuple(stride, nd, fn, "stride")
    padding, dilation = _ntuple(padding, nd, fn, "padding"), _ntuple(dilation, nd, fn, "dilation")
    if any(v <= 0 for v in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[-1]}" if nd == 2 else
                           f"kernel_size must be greater than zero, but got {list(k)}")
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"stride must be greater than zero, but got {list(stride)}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation must be greater than zero, but got {list(dilation)}")
    for p, kk, d in zip(padding, k, dilation):
        if p < 0 or p > (d * (kk - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={kk} and dilation={d}")
    spatial = input._data.shape[-nd:]
    out = tuple(out_size(s, kk, d, p, p, st, ceil_mode) for s, kk, d, p, st in
                zip(spatial, k, dilation, padding, stride))
    if any(o < 1 for o in out):
        c = input._data.shape[-nd - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (c,) + tuple(spatial)))}). Calculated output size: "
                           f"({'x'.join(map(str, (c,) + out))}). Output size is too small")
    return k, stride, padding, dilation


def _as_2d(input, nd, unbatched):
    """input as (N, C, H, W): a batch dim for an unbatched input, a height of 1 for a 1-d pool."""
    x = input.unsqueeze(0) if unbatched else input
    return x.unsqueeze(2) if nd == 1 else x


def _from_2d(r, nd, unbatched):
    if nd == 1:
        r = r.squeeze(2)
    return r.squeeze(0) if unbatched else r


def max_pool(nd, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    fn = f"max_pool{nd}d"
    _pool_input(fn, input, nd)
    k, stride, padding, dilation = _pool_args(fn, nd, input, kernel_size, stride, padding, dilation, ceil_mode)
    unbatched = input._data.ndim == nd + 1
    x = _as_2d(input, nd, unbatched)
    if nd == 1:
        k, stride, padding, dilation = (1,) + k, (1,) + stride, (0,) + padding, (1,) + dilation
    vals, idx = MaxPool.apply(x, k, dilation, padding, stride, bool(ceil_mode))
    vals, idx = _from_2d(vals, nd, unbatched), _from_2d(idx, nd, unbatched)
    return (vals, idx) if return_indices else vals


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool(nd, input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
             divisor_override=None):
    fn = f"avg_pool{nd}d"
    _pool_input(fn, input, nd)
    k, stride, padding, _ = _pool_args(fn, nd, input, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{fn}\" not implemented for '{input.dtype._legacy[:-6]}'")
    unbatched = input._data.ndim == nd + 1
    x = _as_2d(input, nd, unbatched)
    if nd == 1:
        k, stride, padding = (1,) + k, (1,) + stride, (0,) + padding
    r = AvgPool.apply(x, k, padding, stride, bool(ceil_mode), bool(count_include_pad), divisor_override)
    return _from_2d(r, nd, unbatched)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return avg_pool(1, input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return avg_pool(2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool(nd, input, output_size):
    fn = f"adaptive_avg_pool{nd}d"
    _tensor(input, fn)
    if input._data.ndim not in (nd + 1, nd + 2) or 0 in input._data.shape[-nd:]:
        raise RuntimeError(f"{fn}(): Expected {nd + 1}D or {nd + 2}D tensor, but got {_sizes(input._data.shape)}")
    spatial = input._data.shape[-nd:]
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != nd:
            raise RuntimeError(f"{fn}: output_size must be {nd}")
        out = tuple(s if o is None else o for o, s in zip(output_size, spatial))
    else:
        out = (output_size,) * nd
    out = _ntuple(out, nd, fn, "output_size")
    if any(o < 0 for o in out):
        raise RuntimeError(f"{fn}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{', '.join(map(str, out))}}}")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{fn}\" not implemented for '{input.dtype._legacy[:-6]}'")
    unbatched = input._data.ndim == nd + 1
    x = _as_2d(input, nd, unbatched)
    if all(o == 1 for o in out):  # torch takes the mean here (its node is MeanBackward1)
        return _from_2d(x.mean((-2, -1), keepdim=True), nd, unbatched)
    return _from_2d(AdaptiveAvgPool.apply(x, ((1,) if nd == 1 else ()) + out), nd, unbatched)


def adaptive_avg_pool1d(input, output_size):
    return adaptive_avg_pool(1, input, output_size)


def adaptive_avg_pool2d(input, output_size):
    return adaptive_avg_pool(2, input, output_size)


def _conv_ntuple(v, nd, fn, arg):
    """conv_transpose's int-or-list arguments, with torch's messages."""
    from .._arg_errors import _is_index, type_name
    if _is_index(v):
        return (int(v),) * nd
    if isinstance(v, (tuple, list)) and all(_is_index(i) for i in v):
        if len(v) == 1:
            return (int(v[0]),) * nd
        if len(v) != nd:
            raise RuntimeError(f"expected {arg} to be a single integer value or a list of {nd} values to match the "
                               f"convolution dimensions, but got {arg}=[{', '.join(str(int(i)) for i in v)}]")
        return tuple(int(i) for i in v)
    raise TypeError(f"{fn}(): argument '{arg}' must be tuple of ints, not {type_name(v)}")


def conv_transpose(nd, input, weight, bias, stride, padding, output_padding, groups, dilation):
    """F.conv_transpose1d (nd 1) and F.conv_transpose2d (nd 2)."""
    name = f"conv_transpose{nd}d"
    _tensor(input, name), _tensor(weight, name, "weight", 2)
    if bias is not None:
        _tensor(bias, name, "bias", 3)
    stride, padding = _conv_ntuple(stride, nd, name, "stride"), _conv_ntuple(padding, nd, name, "padding")
    output_padding = _conv_ntuple(output_padding, nd, name, "output_padding")
    dilation = _conv_ntuple(dilation, nd, name, "dilation")
    from .._arg_errors import _is_long, type_name
    if not _is_long(groups):
        raise TypeError(f"{name}(): argument 'groups' must be int, not {type_name(groups)}")
    if input._data.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input "
                           f"of size: {_sizes(input._data.shape)}")
    unbatched = input._data.ndim == nd + 1
    x = input.unsqueeze(0) if unbatched else input
    ws, xs = weight._data.shape, x._data.shape
    if len(ws) != nd + 2:
        raise RuntimeError(f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight {_sizes(ws)}, but "
                           f"got {len(xs)}-dimensional input of size {_sizes(xs)} instead")
    from .elementwise import device_error
    for other in (weight, bias):
        if other is not None and other._device is not input._device:
            raise device_error(input, other)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_sizes(ws)}] instead")
    if xs[1] != ws[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {_sizes(ws)}, expected input{_sizes(xs)} to have "
                           f"{ws[0]} channels, but got {xs[1]} channels instead")
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != ws[1] * groups):
        raise RuntimeError(f"Given transposed=1, weight of size {_sizes(ws)}, expected bias to be 1-dimensional with "
                           f"{ws[1] * groups} elements, but got bias of size {_sizes(bias._data.shape)} instead")
    if 0 in xs[2:]:
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: {_sizes(xs)}")
    for other, what in ((weight, "weight"), (bias, "bias")):
        if other is not None and other.dtype is not input.dtype:
            raise RuntimeError(f"Input type (minigrad.{input.dtype._legacy}) and {what} type "
                               f"(minigrad.{other.dtype._legacy}) should be the same or input should be a MKLDNN "
                               f"tensor and {what} is a dense tensor")
    if input._data.dtype.kind != "f" and input._data.dtype.name != "int64":  # torch's CPU kernel: floats, int64
        raise NotImplementedError(f"\"slow_conv_transpose{max(nd, 2)}d_out_cpu\" not implemented for "
                                  f"'{input.dtype._legacy[:-6]}'")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        # torch runs a 1-d one as 2-d, of height 1
        vals = [f"{what}_{h}: {v}" for what, vs, one in (("output_padding", output_padding, 0), ("stride", stride, 1),
                                                         ("dilation", dilation, 1))
                for h, v in zip(("height", "width"), ((one,) if nd == 1 else ()) + tuple(vs))]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(vals))
    k = ws[2:]
    spatial = tuple((n - 1) * s - 2 * p + d * (kk - 1) + op + 1 for n, s, p, d, kk, op in
                    zip(xs[2:], stride, padding, dilation, k, output_padding))
    if any(o <= 0 for o in spatial):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, xs[2:]))}). Calculated output size "
                           f"per channel: ({' x '.join(map(str, spatial))}). Output size is too small")
    out = ConvTranspose.apply(x, weight, bias, stride, tuple((p, p) for p in padding), dilation, int(groups), spatial)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return conv_transpose(1, input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return conv_transpose(2, input, weight, bias, stride, padding, output_padding, groups, dilation)


def adaptive_max_pool(nd, input, output_size, return_indices=False):
    """F.adaptive_max_pool1d (nd 1) and F.adaptive_max_pool2d (nd 2)."""
    fn = f"adaptive_max_pool{nd}d"
    _tensor(input, fn)
    from .._arg_errors import _is_index, type_name
    shape = input._data.shape
    if nd == 1:
        if isinstance(output_size, (tuple, list)) and len(output_size) != 1:
            raise RuntimeError(f"{fn}() argument 'output_size' should contain one int (got {len(output_size)})")
        out = output_size if _is_index(output_size) else output_size[0] \
            if isinstance(output_size, (tuple, list)) and _is_index(output_size[0]) else None
        if out is None:
            raise TypeError(f"{fn}(): argument 'output_size' (position 2) must be tuple of ints, not "
                            f"{type_name(output_size)}")
        out = (int(out),)
        if input._data.ndim not in (2, 3):
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input._data.ndim}-dimensional tensor for "
                               f"argument #1 'self' (while checking arguments for {fn})")
    else:
        if _is_index(output_size):
            out = (int(output_size),) * 2
        elif isinstance(output_size, (tuple, list)):
            if len(output_size) != 2:
                raise RuntimeError(f"{fn}(): internal error: output_size.size() must be 2")
            out = tuple(int(s) if o is None else o for o, s in zip(output_size, shape[-2:]))
            if not all(_is_index(o) for o in out):
                raise TypeError(f"{fn}(): argument 'output_size' (position 2) must be tuple of ints, not "
                                f"{type_name(output_size)}")
            out = tuple(int(o) for o in out)
        else:
            raise TypeError(f"object of type '{type_name(output_size)}' has no len()")
        if input._data.ndim not in (3, 4):
            raise RuntimeError(f"{fn}(): Expected 3D or 4D tensor, but got: {_sizes(shape)}")
    for d in range(1, input._data.ndim):  # dim 0 may be empty (a batch, also of an unbatched input)
        if shape[d] == 0:
            raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                               f"sizes {_sizes(shape)} with dimension {d} being empty")
    if any(o < 0 for o in out):
        bad = next(o for o in out if o < 0)
        full = shape[:-nd] + ((1,) if nd == 1 else ()) + out  # torch pools a 1-d input as height 1
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {_sizes(full)}")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"adaptive_max_pool2d\" not implemented for '{input.dtype._legacy[:-6]}'")
    if nd == 2:  # (N, C, H, W) or (C, H, W) as they are: torch's node, no squeeze
        vals, idx = AdaptiveMaxPool.apply(input, out)
    else:
        unbatched = input._data.ndim == 2
        vals, idx = AdaptiveMaxPool.apply(_as_2d(input, 1, unbatched), (1,) + out)
        vals, idx = _from_2d(vals, 1, unbatched), _from_2d(idx, 1, unbatched)
    return (vals, idx) if return_indices else vals


def adaptive_max_pool1d(input, output_size, return_indices=False):
    return adaptive_max_pool(1, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return adaptive_max_pool(2, input, output_size, return_indices)
