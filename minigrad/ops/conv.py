"""Convolution and pooling on (N, C, *spatial) tensors with one to three spatial dims.

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
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies


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
        gr = g.reshape(n, groups, o // groups, math.prod(out))  # explicit: n may be 0
        gx = gw = gb = None
        if nw:
            if _grad_enabled():  # create_graph: the columns as a function of x
                cols = Im2Col.apply(x, k, dil, pads, stride, out)
                cols = cols.reshape(n, groups, cols._data.shape[1] // groups, cols._data.shape[2])
            else:
                cols = _make(ctx.cols, g._device)
            gw = gr.matmul(cols.transpose(-1, -2)).sum(0).reshape(o, -1, *k)
        if nx:
            wm = w.reshape(groups, o // groups, -1)
            gcols = wm.transpose(-1, -2).matmul(gr)
            gx = Col2Im.apply(gcols.reshape(n, groups * gcols._data.shape[2], gcols._data.shape[3]), spatial, k, dil,
                              pads, stride, out)
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
        ctx.in_shape = xd.shape
        if xd.ndim == len(k) + 1:  # an unbatched (C, *spatial): a batch of one
            xd = be.reshape(xd, (1,) + xd.shape)
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
        lead = ctx.in_shape[:len(ctx.in_shape) - len(k)]
        vals, idx = be.reshape(vals, lead + out), be.reshape(idx, lead + out)
        indices = _make(idx, x._device)
        ctx.mark_non_differentiable(indices)
        return _make(vals, x._device), indices

    @staticmethod
    def backward(ctx, g, _gi=None):
        g = g.reshape(ctx.idx.shape)
        return _scatter_planes(g, ctx.idx, ctx.shape).reshape(ctx.in_shape), None, None, None, None, None


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
        ctx.in_shape = xd.shape
        if xd.ndim == len(k) + 1:  # an unbatched (C, *spatial): a batch of one
            xd = be.reshape(xd, (1,) + xd.shape)
        spatial = xd.shape[2:]
        ones = (1,) * len(k)
        pads, out = _pool_pads(padding, k, ones, stride, spatial, ceil_mode)
        n, c, nk, L = xd.shape[0], xd.shape[1], math.prod(k), math.prod(out)
        cols = be.reshape(im2col(be, xd, k, ones, pads, stride, out), (n, c, nk, L))
        div = be.asarray(_avg_divisors(spatial, k, padding, stride, out, count_include_pad, divisor_override),
                         xd.dtype)
        ctx.div, ctx.geometry = div, (spatial, k, ones, pads, stride, out)
        divide = be.div if xd.dtype.kind == "f" else be.trunc_divide  # torch's integer avg_pool3d: C's division
        lead = ctx.in_shape[:len(ctx.in_shape) - len(k)]
        return _make(be.reshape(divide(be.sum(cols, (2,)), div), lead + out), x._device)

    @staticmethod
    def backward(ctx, g):
        spatial, k, ones, pads, stride, out = ctx.geometry
        shape = ctx.in_shape if len(ctx.in_shape) == len(k) + 2 else (1,) + ctx.in_shape
        n, c, nk, L = shape[0], shape[1], math.prod(k), math.prod(out)
        gd = g.reshape(n, c, 1, L) / _make(ctx.div, g._device)
        gd = gd.expand(n, c, nk, L).reshape(n, c * nk, L)
        return (Col2Im.apply(gd, spatial, k, ones, pads, stride, out).reshape(ctx.in_shape),) + (None,) * 6


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
        off = xd.ndim - nd  # the spatial dims' start: 2, or 1 for an unbatched (C, *spatial)
        mats = [_adaptive_matrix(be, n, o, xd.dtype) for n, o in zip(xd.shape[off:], out)]
        ctx.mats, ctx.off = mats, off
        r = xd
        for i, m in enumerate(mats):  # contract spatial dim i: move it last, multiply, move back
            axes = tuple(a for a in range(r.ndim) if a != off + i) + (off + i,)
            r = be.matmul(be.transpose(r, axes), be.transpose(m, (1, 0)))
            back = list(range(r.ndim - 1))
            back.insert(off + i, r.ndim - 1)
            r = be.transpose(r, tuple(back))
        return _make(be.ascontiguous(r), x._device) if nd else _make(r, x._device)

    @staticmethod
    def backward(ctx, g):
        sizes = list(g._data.shape)
        if len(ctx.mats) == 1:  # torch pools one dim as two, the first of size 1
            sizes.insert(len(sizes) - 1, 1)
        for d in range(1, len(sizes)):
            if not sizes[d]:
                raise RuntimeError(f"adaptive_avg_pool{3 if len(ctx.mats) == 3 else 2}d_backward(): Expected "
                                   "grad_output to have non-zero size for non-batch dimensions, but grad_output "
                                   f"has sizes {sizes} with dimension {d} being empty")
        r = g
        for i, m in enumerate(ctx.mats):
            r = r.transpose(ctx.off + i, -1).matmul(_make(m, g._device)).transpose(ctx.off + i, -1)
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
    """F.conv1d (nd 1), F.conv2d (nd 2) and F.conv3d (nd 3)."""
    name = f"conv{nd}d"
    _tensor(input, name), _tensor(weight, name, "weight", 2)
    if bias is not None:
        _tensor(bias, name, "bias", 3)
    if nd == 3:  # torch's conv3d: its int-list arguments checked against the weight's dims
        stride, dilation, padding = _conv3d_lists(name, weight, stride, dilation, padding)
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
            if nd == 3:
                what = "weight" if other is weight else "bias"
                raise RuntimeError(f"Input type (minigrad.{input.dtype._legacy}) and {what} type "
                                   f"(minigrad.{other.dtype._legacy}) should be the same or input should be a "
                                   f"MKLDNN tensor and {what} is a dense tensor")
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
        if nd == 3:
            raise RuntimeError("non-positive dilation is not supported")
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
    if _AUTOCAST_ON[0] and (r := _autocast(
            "conv1d", conv1d, input, weight, bias, stride, padding, dilation, groups)) is not None:
        return r
    return conv(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "conv2d", conv2d, input, weight, bias, stride, padding, dilation, groups)) is not None:
        return r
    return conv(2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "conv3d", conv3d, input, weight, bias, stride, padding, dilation, groups)) is not None:
        return r
    return conv(3, input, weight, bias, stride, padding, dilation, groups)


def _conv3d_lists(name, weight, stride, dilation, padding):
    """conv3d's stride / dilation / padding (a string padding as it is): torch expands each to
    3 ints, then checks the lengths against the weight's spatial dims."""
    wnd = weight._data.ndim - 2
    res = []
    for arg, v in (("stride", stride), ("dilation", dilation), ("padding", padding)):
        if arg == "padding" and isinstance(v, str):
            res.append(v)
            continue
        from .._arg_errors import _is_index
        if not (_is_index(v) or (isinstance(v, (tuple, list)) and all(_is_index(i) for i in v))):
            from .._arg_errors import type_name
            raise TypeError(f"{name}(): argument '{arg}' must be tuple of ints, not {type_name(v)}")
        vals = (int(v),) * 3 if _is_index(v) else tuple(int(i) for i in v)
        if len(vals) != 1 and len(vals) != wnd:
            raise RuntimeError(f"expected {arg} to be a single integer value or a list of {wnd} values to match the "
                               f"convolution dimensions, but got {arg}=[{', '.join(map(str, vals))}]")
        res.append(vals * 3 if len(vals) == 1 else vals)
    return tuple(res)


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


def _pool3d_list(fn, v, arg, must):
    """max_pool3d / avg_pool3d's int-or-three-ints arguments, with torch's messages."""
    from .._arg_errors import _is_index, type_name
    if _is_index(v):
        return (int(v),) * 3
    if not (isinstance(v, (tuple, list)) and all(_is_index(i) for i in v)):
        raise TypeError(f"{fn}(): argument '{arg}' must be tuple of ints, not {type_name(v)}")
    if len(v) not in (1, 3):
        raise RuntimeError(f"{fn}: {arg} {must}")
    return tuple(int(i) for i in v) * (3 if len(v) == 1 else 1)


def _pool3d_args(fn, input, kernel_size, stride, padding, dilation, ceil_mode, avg):
    """torch's checks of max_pool3d (avg False) / avg_pool3d (avg True), in its order: the
    argument lengths, the input's dims, each dim's output size, then pool3d_shape_check."""
    _tensor(input, fn)
    either = "" if avg else "either "
    k = _pool3d_list(fn, kernel_size, "kernel_size", f"must {either}be a single int, or a tuple of three ints")
    if stride is None or (isinstance(stride, (tuple, list)) and not stride):
        stride = k
    else:
        stride = _pool3d_list(fn, stride, "stride", f"must {either}be omitted, a single int, or a tuple of three ints")
    padding = _pool3d_list(fn, padding, "padding", f"must {either}be a single int, or a tuple of three ints")
    dilation = _pool3d_list(fn, dilation, "dilation", "must be either a single int, or a tuple of three ints")
    shape = input._data.shape
    if input._data.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    spatial = shape[-3:]
    out = []
    for n, kk, p, st, d in zip(spatial, k, padding, stride, dilation):  # torch's pooling_output_shape
        if st == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        eff = (kk - 1) * d + 1
        if p > int(eff / 2):  # C's division, toward zero
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={kk} and dilation={d}")
        out.append(out_size(n, kk, d, p, p, st, ceil_mode) if st > 0 and d > 0 and kk > 0 else 1)
    if any(v <= 0 for v in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}")
    if any(v <= 0 for v in stride):
        raise RuntimeError(f"stride should be greater than zero, but got dT: {stride[0]} dH: {stride[1]} "
                           f"dW: {stride[2]}")
    if any(v <= 0 for v in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {dilation[0]} "
                           f"dilationH: {dilation[1]} dilationW: {dilation[2]}")
    where = "avg_pool3d()" if avg else "max_pool3d_with_indices_out_cpu_template()"
    if any(n == 0 for n in shape[(1 if len(shape) == 5 else 0):]):
        raise RuntimeError(f"{where}: Expected input's non-batch dimensions to have positive length, but input has a "
                           f"shape of {_sizes(shape)} and non-batch dimension 0 has length zero!")
    if avg and any(n < kk for n, kk in zip(spatial, k)):
        raise RuntimeError(f"input image (T: {spatial[0]} H: {spatial[1]} W: {spatial[2]}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    if any(kk // 2 < p for kk, p in zip(k, padding)):
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got kT: {k[0]} kW: {k[2]} "
                           f"kH: {k[1]} padT: {padding[0]} padW: {padding[2]} padH: {padding[1]}")
    if any(o < 1 for o in out):
        c = shape[-4]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (c,) + tuple(spatial)))}). Calculated output size: "
                           f"({'x'.join(map(str, (c,) + tuple(out)))}). Output size is too small")
    return k, stride, padding, dilation


class MaxPool3D(MaxPool):
    _node_name = "MaxPool3DWithIndicesBackward0"


class AvgPool3D(AvgPool):
    _node_name = "AvgPool3DBackward0"


class AdaptiveAvgPool3D(AdaptiveAvgPool):
    _node_name = "AdaptiveAvgPool3DBackward0"


class AdaptiveMaxPool3D(AdaptiveMaxPool):
    _node_name = "AdaptiveMaxPool3DBackward0"


def max_pool(nd, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    fn = f"max_pool{nd}d"
    if nd == 3:
        k, stride, padding, dilation = _pool3d_args(fn, input, kernel_size, stride, padding, dilation, ceil_mode,
                                                    False)
        if input._data.dtype.kind == "b":
            raise NotImplementedError(f"\"{fn}\" not implemented for 'Bool'")
    else:
        _pool_input(fn, input, nd)
        k, stride, padding, dilation = _pool_args(fn, nd, input, kernel_size, stride, padding, dilation, ceil_mode)
    if nd == 3:  # (N, C, D, H, W) or (C, D, H, W) as they are: torch's node, no squeeze
        vals, idx = MaxPool3D.apply(input, k, dilation, padding, stride, bool(ceil_mode))
        return (vals, idx) if return_indices else vals
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


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "max_pool3d", max_pool3d, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)) is not None:
        return r
    return max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool(nd, input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
             divisor_override=None):
    fn = f"avg_pool{nd}d"
    if nd == 3:
        from .._arg_errors import _is_long, type_name
        if divisor_override is not None and not _is_long(divisor_override):
            raise TypeError(f"{fn}(): argument 'divisor_override' must be int, not {type_name(divisor_override)}")
        _tensor(input, fn)
        if input._data.ndim in (4, 5) and divisor_override is not None and divisor_override == 0:
            _pool3d_list(fn, kernel_size, "kernel_size", "must be a single int, or a tuple of three ints")
            raise RuntimeError("divisor must be not zero")
        k, stride, padding, _ = _pool3d_args(fn, input, kernel_size, stride, padding, 1, ceil_mode, True)
        if input._data.dtype.kind not in "fi" or input._data.dtype.name == "int32":
            raise NotImplementedError(f"\"avg_pool3d_out_frame\" not implemented for '{input.dtype._legacy[:-6]}'")
        # (N, C, D, H, W) or (C, D, H, W) as they are: torch's node, no squeeze
        return AvgPool3D.apply(input, k, padding, stride, bool(ceil_mode), bool(count_include_pad), divisor_override)
    _pool_input(fn, input, nd)
    k, stride, padding, _ = _pool_args(fn, nd, input, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if not input.is_floating_point():
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


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "avg_pool3d", avg_pool3d, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
            divisor_override)) is not None:
        return r
    return avg_pool(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool(nd, input, output_size):
    fn = f"adaptive_avg_pool{nd}d"
    _tensor(input, fn)
    if nd == 3:
        _adaptive3d_output_size(fn, output_size)
        shape = input._data.shape
        if input._data.ndim in (4, 5):
            for d in range(1, input._data.ndim):
                if shape[d] == 0:
                    raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch dimensions, but "
                                       f"input has sizes {_sizes(shape)} with dimension {d} being empty")
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
        listed = ", ".join(map(str, out)) if nd < 3 else f"{out[0]}, {out[1]},{out[2]}"  # torch's 3-d spacing
        raise RuntimeError(f"{fn}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{listed}}}")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"{fn}{'_cpu' if nd == 3 else ''}\" not implemented for "
                                  f"'{input.dtype._legacy[:-6]}'")
    unbatched = input._data.ndim == nd + 1
    x = _as_2d(input, nd, unbatched)
    if all(o == 1 for o in out):  # torch takes the mean here (its node is MeanBackward1)
        if nd == 3:
            return input.mean((-3, -2, -1), keepdim=True)
        return _from_2d(x.mean((-2, -1), keepdim=True), nd, unbatched)
    if nd == 3:  # (N, C, D, H, W) or (C, D, H, W) as they are: torch's node, no squeeze
        return AdaptiveAvgPool3D.apply(input, out)
    return _from_2d(AdaptiveAvgPool.apply(x, ((1,) if nd == 1 else ()) + out), nd, unbatched)


def _adaptive3d_output_size(fn, output_size):
    """torch's parsing of a 3-d adaptive pool's output_size: an int, or a sequence of ints or Nones."""
    from .._arg_errors import _is_index, type_name
    if _is_index(output_size) or output_size is None:
        return
    if not isinstance(output_size, (tuple, list)):
        if isinstance(output_size, str):
            raise TypeError(f"{fn}(): argument 'output_size' (position 2) must be tuple of ints, but found element "
                            f"of type str at pos 0")
        raise TypeError(f"object of type '{type_name(output_size)}' has no len()")
    for i, o in enumerate(output_size):
        if o is not None and not _is_index(o):
            raise TypeError(f"{fn}(): argument 'output_size' (position 2) must be tuple of ints, but found element "
                            f"of type {type_name(o)} at pos {i}")


def adaptive_avg_pool1d(input, output_size):
    return adaptive_avg_pool(1, input, output_size)


def adaptive_avg_pool2d(input, output_size):
    return adaptive_avg_pool(2, input, output_size)


def adaptive_avg_pool3d(input, output_size):
    if _AUTOCAST_ON[0] and (r := _autocast("adaptive_avg_pool3d", adaptive_avg_pool3d, input, output_size)) is not None:
        return r
    return adaptive_avg_pool(3, input, output_size)


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
    """F.conv_transpose1d (nd 1), F.conv_transpose2d (nd 2) and F.conv_transpose3d (nd 3)."""
    name = f"conv_transpose{nd}d"
    _tensor(input, name), _tensor(weight, name, "weight", 2)
    if bias is not None:
        _tensor(bias, name, "bias", 3)
    if nd == 3 and weight._data.ndim != 5:  # torch checks conv3d's expanded lists against the weight
        _conv3d_lists(name, weight, stride, dilation, padding)
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
        raise RuntimeError("dimensions are invalid" if nd == 3 else "dilation should be greater than zero")
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
    if not input.is_floating_point() and input._data.dtype.name != "int64":  # torch's CPU kernel: floats, int64
        raise NotImplementedError(f"\"slow_conv_transpose{max(nd, 2)}d_out_cpu\" not implemented for "
                                  f"'{input.dtype._legacy[:-6]}'")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        # torch runs a 1-d one as 2-d, of height 1
        dims = ("depth", "height", "width") if nd == 3 else ("height", "width")
        vals = [f"{what}_{h}: {v}" for what, vs, one in (("output_padding", output_padding, 0), ("stride", stride, 1),
                                                         ("dilation", dilation, 1))
                for h, v in zip(dims, ((one,) if nd == 1 else ()) + tuple(vs))]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(vals))
    k = ws[2:]
    spatial = tuple((n - 1) * s - 2 * p + d * (kk - 1) + op + 1 for n, s, p, d, kk, op in
                    zip(xs[2:], stride, padding, dilation, k, output_padding))
    if nd == 3 and input._data.dtype.name == "float32" and min(spatial) >= 0 and 0 in spatial:
        pass  # torch's float32 conv_transpose3d (oneDNN) returns the empty result
    elif nd == 3 and input._data.dtype.name == "float32" and min(spatial) < 0:
        raise RuntimeError("could not construct a memory descriptor using a format tag")
    elif any(o <= 0 for o in spatial):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, xs[2:]))}). Calculated output size "
                           f"per channel: ({' x '.join(map(str, spatial))}). Output size is too small")
    out = ConvTranspose.apply(x, weight, bias, stride, tuple((p, p) for p in padding), dilation, int(groups), spatial)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "conv_transpose1d", conv_transpose1d, input, weight, bias, stride, padding, output_padding, groups,
            dilation)) is not None:
        return r
    return conv_transpose(1, input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "conv_transpose2d", conv_transpose2d, input, weight, bias, stride, padding, output_padding, groups,
            dilation)) is not None:
        return r
    return conv_transpose(2, input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "conv_transpose3d", conv_transpose3d, input, weight, bias, stride, padding, output_padding, groups,
            dilation)) is not None:
        return r
    return conv_transpose(3, input, weight, bias, stride, padding, output_padding, groups, dilation)


def adaptive_max_pool(nd, input, output_size, return_indices=False):
    """F.adaptive_max_pool1d (nd 1), F.adaptive_max_pool2d (nd 2) and F.adaptive_max_pool3d (nd 3)."""
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
        if nd == 3:
            _adaptive3d_output_size(fn, output_size)
        if _is_index(output_size):
            out = (int(output_size),) * nd
        elif isinstance(output_size, (tuple, list)):
            if len(output_size) != nd:
                raise RuntimeError(f"{fn}(): internal error: output_size.size() must be {nd}")
            out = tuple(int(s) if o is None else o for o, s in zip(output_size, shape[-nd:]))
            if not all(_is_index(o) for o in out):
                raise TypeError(f"{fn}(): argument 'output_size' (position 2) must be tuple of ints, not "
                                f"{type_name(output_size)}")
            out = tuple(int(o) for o in out)
        else:
            raise TypeError(f"object of type '{type_name(output_size)}' has no len()")
        if input._data.ndim not in (nd + 1, nd + 2):
            raise RuntimeError(f"{fn}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {_sizes(shape)}")
    for d in range(1, input._data.ndim):  # dim 0 may be empty (a batch, also of an unbatched input)
        if shape[d] == 0:
            raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                               f"sizes {_sizes(shape)} with dimension {d} being empty")
    if any(o < 0 for o in out):
        bad = next(o for o in out if o < 0)
        full = shape[:-nd] + ((1,) if nd == 1 else ()) + out  # torch pools a 1-d input as height 1
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {_sizes(full)}")
    if not input.is_floating_point():
        kname = "adaptive_max_pool3d_cpu" if nd == 3 else "adaptive_max_pool2d"
        raise NotImplementedError(f"\"{kname}\" not implemented for '{input.dtype._legacy[:-6]}'")
    if nd >= 2:  # (N, C, *spatial) or (C, *spatial) as they are: torch's node, no squeeze
        vals, idx = (AdaptiveMaxPool3D if nd == 3 else AdaptiveMaxPool).apply(input, out)
    else:
        unbatched = input._data.ndim == 2
        vals, idx = AdaptiveMaxPool.apply(_as_2d(input, 1, unbatched), (1,) + out)
        vals, idx = _from_2d(vals, 1, unbatched), _from_2d(idx, 1, unbatched)
    return (vals, idx) if return_indices else vals


def adaptive_max_pool1d(input, output_size, return_indices=False):
    return adaptive_max_pool(1, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return adaptive_max_pool(2, input, output_size, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "adaptive_max_pool3d", adaptive_max_pool3d, input, output_size, return_indices)) is not None:
        return r
    return adaptive_max_pool(3, input, output_size, return_indices)


def lp_pool(nd, input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """F.lp_pool{1,2,3}d, torch's composition: (sum of x ** p over each window) ** (1 / p), as the
    window's average times its size; max pools of |x| for p = +-inf."""
    pool = (max_pool1d, max_pool2d, max_pool3d)[nd - 1]
    avg = (avg_pool1d, avg_pool2d, avg_pool3d)[nd - 1]
    if nd == 1:
        size = kernel_size
    else:
        ks = (kernel_size,) * nd if not isinstance(kernel_size, (tuple, list)) else tuple(kernel_size)
        if len(ks) != nd:
            raise ValueError(f"{'not enough' if len(ks) < nd else 'too many'} values to unpack (expected {nd}"
                             f"{f', got {len(ks)}' if len(ks) < nd else ''})")
        size = math.prod(ks)
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * out.abs().relu()).mul(size).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


class MaxUnpool(Builtin):
    """F.max_unpool2d's node: zeros (N, C, *out) with each input element written at its index in
    its plane (a repeated index keeps one of its values); the gradient reads g at the indices."""
    _node_name = "MaxUnpool2DBackward0"

    @staticmethod
    def forward(ctx, x, flat, out):
        be = x._device.backend
        xd = x._data
        lead = xd.shape[:xd.ndim - len(out)]  # (N, C) or an unbatched (C,)
        size = math.prod(lead) * math.prod(out)
        res = be.zeros((size,), xd.dtype)
        if flat.size:
            be.setitem(res, (flat,), be.reshape(be.ascontiguous(xd), (-1,)), ((0, size - 1),))
        ctx.flat, ctx.shape = flat, xd.shape
        return _make(be.reshape(res, lead + tuple(out)), x._device)

    @staticmethod
    def backward(ctx, g):
        if ctx.flat.size == 0:  # an empty input or output plane
            return _make(g._device.backend.zeros(ctx.shape, g._data.dtype), g._device), None, None
        from .strided import FlatGather
        return FlatGather.apply(g.reshape(-1), ctx.flat).reshape(ctx.shape), None, None


class MaxUnpool3D(MaxUnpool):
    _node_name = "MaxUnpool3DBackward0"


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """torch's F._unpool_output_size: the default (in - 1) * stride + k - 2 * pad, or the
    requested sizes (optionally with the batch and channel dims) within a stride of it."""
    input_size = input._data.shape
    default = [(input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(len(kernel_size))]
    if output_size is None:
        ret = default
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError(f"output_size should be a sequence containing {len(kernel_size)} or "
                             f"{len(kernel_size) + 2} elements, but it has a length of '{len(output_size)}'")
        for d in range(len(kernel_size)):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < output_size[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
        ret = output_size
    for d in range(len(kernel_size)):
        if ret[d] < 0:
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={ret[d]}")
    return ret


def _nt(v, n):
    """torch's _single / _pair / _triple: an iterable as a tuple, anything else repeated n times."""
    try:
        return tuple(iter(v))
    except TypeError:
        return (v,) * n


def _max_unpool(nd, input, indices, output_size, stride=None, padding=None):
    """torch's max_unpool2d (nd 2) / max_unpool3d (nd 3) kernels' checks, then the op."""
    from ..tensor import Tensor
    fn = f"max_unpool{nd}d"
    for arg, pos, v in (("input", 1, input), ("indices", 2, indices)):
        if not isinstance(v, Tensor):
            from .._arg_errors import type_name
            raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not {type_name(v)}")
    output_size = [int(o) for o in output_size]
    if indices._data.dtype.name != "int64":
        raise RuntimeError("elements in indices should be type int64" + ("" if nd == 3 else
                                                                        f" but got: {indices.dtype._legacy[:-6]}"))
    shape = input._data.shape
    if nd == 2:
        if len(output_size) != 2:
            raise RuntimeError(f"There should be exactly two elements (height, width) in output_size, but got "
                               f"{len(output_size)} elements.")
        if input._data.ndim not in (3, 4):
            raise RuntimeError(f"Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with "
                               f"{input._data.ndim} dimensions.")
    else:
        if input._data.ndim not in (4, 5):
            raise RuntimeError(f"Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with "
                               f"{input._data.ndim} dimensions.")
        for what, v in (("output_size", output_size), ("stride", stride), ("padding", padding)):
            if len(v) != 3:
                raise RuntimeError(f"There should be exactly three elements (depth, height, width) in {what}, but "
                                   f"got{':' if what != 'output_size' else ''} {len(v)} elements.")
    if tuple(indices._data.shape) != tuple(shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({_sizes(shape)}) but "
                           f"got indices tensor with shape: {_sizes(indices._data.shape)}")
    for d in range(1, len(shape)):
        if shape[d] == 0:
            raise RuntimeError(f"max_unpooling{nd}d_forward_out_cpu(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but got {_sizes(shape)} with dimension {d} being empty.")
    if nd == 3 and any(s <= 0 for s in stride):
        raise RuntimeError(f"strides should be greater than zero, but got stride: {_sizes(stride)}")
    from .elementwise import device_error
    if indices._device is not input._device:
        raise device_error(input, indices)
    if not input.is_floating_point():
        raise NotImplementedError(f"\"{fn}\" not implemented for '{input.dtype._legacy[:-6]}'")
    be = input._device.backend
    plane = math.prod(output_size)
    idx = indices._data
    if plane and idx.size:
        host = be.to_numpy(idx).reshape(-1)
        bad = (host < 0) | (host >= plane)
        if bad.any():
            raise RuntimeError(f"Found an invalid max index: {int(host[bad.argmax()])} (output volumes are of size "
                               f"{'x'.join(map(str, output_size))})")
    from ..dtypes import int64
    lead = shape[:len(shape) - nd]
    base = be.reshape(be.mul(be.arange(0, math.prod(lead), 1, int64.np), plane), lead + (1,) * nd)
    # an empty output plane takes nothing (torch checks no index then)
    flat = be.reshape(be.add(idx, base), (-1,)) if plane else be.zeros((0,), int64.np)
    return (MaxUnpool3D if nd == 3 else MaxUnpool).apply(input, flat, tuple(output_size))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    # torch's max_unpool1d is its max_unpool2d (float32 on the CPU)
    if _AUTOCAST_ON[0] and (r := _autocast("max_unpool2d", max_unpool1d, input, indices, kernel_size, stride, padding,
                                           output_size)) is not None:
        return r
    kernel_size = _nt(kernel_size, 1)
    stride = _nt(stride, 1) if stride is not None else kernel_size
    padding = _nt(padding, 1)
    _tensor(input, "max_unpool1d"), _tensor(indices, "max_unpool1d", "indices", 2)
    out = list(_unpool_output_size(input, kernel_size, stride, padding, output_size)) + [1]
    return _max_unpool(2, input.unsqueeze(-1), indices.unsqueeze(-1), out).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "max_unpool2d", max_unpool2d, input, indices, kernel_size, stride, padding, output_size)) is not None:
        return r
    kernel_size = _nt(kernel_size, 2)
    stride = _nt(stride, 2) if stride is not None else kernel_size
    padding = _nt(padding, 2)
    _tensor(input, "max_unpool2d")
    return _max_unpool(2, input, indices, _unpool_output_size(input, kernel_size, stride, padding, output_size))


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "max_unpool3d", max_unpool3d, input, indices, kernel_size, stride, padding, output_size)) is not None:
        return r
    kernel_size = _nt(kernel_size, 3)
    stride = _nt(stride, 3) if stride is not None else kernel_size
    padding = _nt(padding, 3)
    _tensor(input, "max_unpool3d")
    out = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool(3, input, indices, out, stride, padding)


# channels_last(_3d) inputs (or, for convolutions, weights) give results in that format, as torch's
from ..memory_formats import keeps_format as _keeps_format, keep_format as _keep_format  # noqa: E402
conv = _keeps_format(conv, (1, "input"), (2, "weight"))
conv_transpose = _keeps_format(conv_transpose, (1, "input"), (2, "weight"))
max_pool = _keeps_format(max_pool, (1, "input"))
_avg_pool_any_layout = avg_pool


def avg_pool(nd, input, *args, **kwargs):  # (torch's avg_pool3d gives a row-major result)
    out = _avg_pool_any_layout(nd, input, *args, **kwargs)
    return out if nd == 3 else _keep_format(out, input)


adaptive_avg_pool = _keeps_format(adaptive_avg_pool, (1, "input"))
adaptive_max_pool = _keeps_format(adaptive_max_pool, (1, "input"))
