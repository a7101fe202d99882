"""Normalization ops behind nn.functional.layer_norm and nn.functional.batch_norm.

Layer norm is one fused primitive each way (be.layer_norm / be.layer_norm_backward: one
norm.cu launch on CUDA); batch norm is composed from the backend's reductions over the
batch and spatial axes (the column kernels on CUDA). Each is one node with torch's name.
`backward_raw` is the hot path; `backward` (for create_graph) recomputes the statistics from
the input in Tensor ops, so that a double backward differentiates through them.
"""
import math

from ..autograd.function import NO_CTX
from ..tensor import Tensor, _make
from .elementwise import Builtin, device_error
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies


def _scalar_name(dtype):
    return dtype._legacy[:-len("Tensor")]  # FloatTensor -> Float, as torch's kernel errors name it


def _check_params(x, kernel, *params):
    """torch's errors for a non-float input, and for parameters on another device or of another
    dtype than x's."""
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_scalar_name(x.dtype)}'")
    for p in params:
        if p is None:
            continue
        if p._device is not x._device:
            raise device_error(x, p)
        if p.dtype is not x.dtype:
            if p.dtype.itemsize < x.dtype.itemsize:
                raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
            raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of "
                               f"{_scalar_name(x.dtype)}")


# ---- layer norm ---------------------------------------------------------------------------------

class NativeLayerNorm(Builtin):
    """y = (x - mean) * rstd * weight + bias over the last n_norm dims of x."""
    _node_name = "NativeLayerNormBackward0"

    @staticmethod
    def forward(ctx, x, w, b, n_norm, eps):
        be = x._device.backend
        shape = x._data.shape
        cols = math.prod(shape[len(shape) - n_norm:])
        rows = math.prod(shape[:len(shape) - n_norm])
        flat = (cols,)
        y, mean, rstd = be.layer_norm(be.reshape(x._data, (rows, cols)),
                                      None if w is None else be.reshape(w._data, flat),
                                      None if b is None else be.reshape(b._data, flat), eps)
        if ctx is not NO_CTX:
            ctx.save_for_backward(x, w)
            ctx.mean, ctx.rstd, ctx.n_norm, ctx.eps = mean, rstd, n_norm, eps
            ctx.b_shape = None if b is None else b._data.shape
        return _make(be.reshape(y, shape), x._device)

    @staticmethod
    def backward(ctx, g):
        """In Tensor ops, mean and rstd recomputed from x, so that this backward is
        differentiable again with respect to x, weight and g."""
        nx, nw, nb = ctx.needs_input_grad[:3]
        x, w = ctx.saved_tensors
        nd = x.dim()
        dims = tuple(range(nd - ctx.n_norm, nd))
        lead = tuple(range(nd - ctx.n_norm))
        mu = x.mean(dims, keepdim=True)
        xc = x - mu
        rstd = ((xc * xc).mean(dims, keepdim=True) + ctx.eps).sqrt().reciprocal()
        xhat = xc * rstd
        gx = gw = gb = None
        if nx:
            gwt = g * w if w is not None else g
            gx = rstd * ((gwt - gwt.mean(dims, keepdim=True)) - xhat * (gwt * xhat).mean(dims, keepdim=True))
        if nw:
            gw = (g * xhat).sum(lead) if lead else g * xhat
        if nb:
            gb = (g.sum(lead) if lead else g).reshape(ctx.b_shape)
        return gx, gw, gb, None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        nx, nw, nb = ctx.needs_input_grad[:3]
        x, w = ctx.saved_arrays()
        shape = x.shape
        mean, rstd = ctx.mean, ctx.rstd
        rows = mean.shape[0]
        cols = math.prod(shape[len(shape) - ctx.n_norm:])
        g2 = be.reshape(g, (rows, cols))
        x2 = be.reshape(x, (rows, cols))
        gx = gw = gb = None
        if nx:
            w2 = None if w is None else be.reshape(w, (cols,))
            gx = be.reshape(be.layer_norm_backward(g2, x2, mean, rstd, w2), shape)
        if nw:
            xhat = be.mul(be.sub(x2, be.reshape(mean, (rows, 1))), be.reshape(rstd, (rows, 1)))
            gw = be.reshape(be.sum(be.mul(g2, xhat), (0,)), w.shape)
        if nb:
            gb = be.reshape(be.sum(g2, (0,)), ctx.b_shape)
        return gx, gw, gb, None, None


def _shape_list(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _normalized_shape(normalized_shape):
    from .._arg_errors import type_name
    ns = normalized_shape
    if isinstance(ns, Tensor) or not isinstance(ns, (tuple, list)):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, "
                        f"not {type_name(ns)}")
    for i, s in enumerate(ns):
        if s.__class__ is bool or not hasattr(s, "__index__"):
            raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, "
                            f"but found element of type {type_name(s)} at pos {i}")
    return tuple(s.__index__() for s in ns)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """torch.nn.functional.layer_norm, with torch's checks in torch's order."""
    if _AUTOCAST_ON[0] and (r := _autocast(
            "layer_norm", layer_norm, input, normalized_shape, weight, bias, eps)) is not None:
        return r
    from ..nn.functional import _tensor
    _tensor(input, "layer_norm")
    ns = _normalized_shape(normalized_shape)
    if not ns:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
                           f"least one element, but got normalized_shape = {_shape_list(ns)}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p._data.shape) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                               f"shape {_shape_list(p._data.shape)} and normalized_shape = {_shape_list(ns)}")
    shape = tuple(input._data.shape)
    if len(shape) < len(ns) or shape[len(shape) - len(ns):] != ns:
        raise RuntimeError(f"Given normalized_shape={_shape_list(ns)}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in ns)}], but got input of size{_shape_list(shape)}")
    _check_params(input, "LayerNormKernelImpl", weight, bias)
    return NativeLayerNorm.apply(input, weight, bias, len(ns), float(eps))


# ---- batch norm ---------------------------------------------------------------------------------

class NativeBatchNorm(Builtin):
    """Per channel (dim 1): y = (x - mean) * invstd * weight + bias, the batch's statistics
    (biased variance) in training, the running ones otherwise; training also updates the
    running buffers in place (unbiased variance), as torch's kernel does, outside autograd."""
    _node_name = "NativeBatchNormBackward0"

    @staticmethod
    def forward(ctx, x, w, b, rm, rv, training, momentum, eps):
        be = x._device.backend
        xd = x._data
        nd, dt = xd.ndim, xd.dtype
        axes = (0,) + tuple(range(2, nd))
        bshape = (1, xd.shape[1]) + (1,) * (nd - 2)
        one = be.ones((), dt)
        if training:
            mean = be.mean(xd, axes, True)
            xc = be.sub(xd, mean)
            var = be.mean(be.mul(xc, xc), axes, True)
            n = xd.size // xd.shape[1] if xd.shape[1] else 0
            if n and (rm is not None or rv is not None):
                m = float(momentum)
                if rm is not None:
                    new = be.add(be.mul(be.reshape(mean, rm._data.shape), m), be.mul(rm._data, 1 - m))
                    be.copyto(rm._data, new)
                if rv is not None:
                    # n > 1 here: F.batch_norm refuses one value per channel in training
                    unbiased = be.div(be.mul(be.reshape(var, rv._data.shape), float(n)), float(n - 1))
                    be.copyto(rv._data, be.add(be.mul(unbiased, m), be.mul(rv._data, 1 - m)))
        else:
            mean = be.reshape(rm._data, bshape)
            xc = be.sub(xd, mean)
            var = be.reshape(rv._data, bshape)
        invstd = be.div(one, be.sqrt(be.add(var, eps)))
        y = be.mul(xc, invstd)
        if w is not None:
            y = be.mul(y, be.reshape(w._data, bshape))
        if b is not None:
            y = be.add(y, be.reshape(b._data, bshape))
        if ctx is not NO_CTX:
            ctx.save_for_backward(x, w)
            # eval: views of the running buffers, read again in backward, as torch's saved
            # running stats are (a later training step updates them without a version bump)
            ctx.mean, ctx.training, ctx.eps = mean, training, eps
            ctx.invstd, ctx.var = (invstd, None) if training else (None, var)
            ctx.b_shape = None if b is None else b._data.shape
        return _make(y, x._device)

    @staticmethod
    def backward(ctx, g):
        """In Tensor ops; in training, mean and invstd recomputed from x (differentiable again)."""
        nx, nw, nb = ctx.needs_input_grad[:3]
        x, w = ctx.saved_tensors
        nd = x.dim()
        axes = (0,) + tuple(range(2, nd))
        bshape = (1, x.shape[1]) + (1,) * (nd - 2)
        if ctx.training:
            mu = x.mean(axes, keepdim=True)
            xc = x - mu
            invstd = ((xc * xc).mean(axes, keepdim=True) + ctx.eps).sqrt().reciprocal()
        else:
            xc = x - _make(ctx.mean, x._device)
            invstd = (_make(ctx.var, x._device) + ctx.eps).sqrt().reciprocal()
        xhat = xc * invstd
        gx = gw = gb = None
        if nx:
            scale = invstd * w.reshape(bshape) if w is not None else invstd
            if ctx.training:
                gx = scale * ((g - g.mean(axes, keepdim=True)) - xhat * (g * xhat).mean(axes, keepdim=True))
            else:
                gx = g * scale
        if nw:
            gw = (g * xhat).sum(axes)
        if nb:
            gb = g.sum(axes).reshape(ctx.b_shape)
        return gx, gw, gb, None, None, None, None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        nx, nw, nb = ctx.needs_input_grad[:3]
        x, w = ctx.saved_arrays()
        nd = x.ndim
        axes = (0,) + tuple(range(2, nd))
        bshape = (1, x.shape[1]) + (1,) * (nd - 2)
        invstd = ctx.invstd
        if invstd is None:
            invstd = be.div(be.ones((), x.dtype), be.sqrt(be.add(ctx.var, ctx.eps)))
        xhat = be.mul(be.sub(x, ctx.mean), invstd)
        gx = gw = gb = None
        if nx:
            scale = invstd if w is None else be.mul(invstd, be.reshape(w, bshape))
            if ctx.training:
                inner = be.sub(be.sub(g, be.mean(g, axes, True)), be.mul(xhat, be.mean(be.mul(g, xhat), axes, True)))
                gx = be.mul(scale, inner)
            else:
                gx = be.mul(g, scale)
        if nw:
            gw = be.sum(be.mul(g, xhat), axes)
        if nb:
            gb = be.reshape(be.sum(g, axes), ctx.b_shape)
        return gx, gw, gb, None, None, None, None, None


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-05):
    """torch.nn.functional.batch_norm, with torch's checks in torch's order."""
    from ..nn.functional import _tensor
    _tensor(input, "batch_norm")
    shape = tuple(input._data.shape)
    if training:
        size_prods = shape[0] if shape else 1
        for s in shape[2:]:
            size_prods *= s
        if size_prods == 1:
            from ..tensor import Size
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {Size(shape)!r}")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    _check_params(input, "batch_norm", weight, bias, running_mean, running_var)
    features = shape[1] if len(shape) > 1 else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None:
            if t._data.size != features:
                raise RuntimeError(f"{name} should contain {features} elements not {t._data.size}")
        elif not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t._data.size != features:
            raise RuntimeError(f"{name} should contain {features} elements not {t._data.size}")
    return NativeBatchNorm.apply(input, weight, bias, running_mean, running_var, bool(training),
                                 float(momentum), float(eps))


# ---- group norm: the layer-norm primitive over (N * G, C / G * spatial) rows, then per channel ----

class NativeGroupNorm(Builtin):
    """y = (x - mean) * rstd * weight[c] + bias[c], the statistics over each sample's groups of
    C / G channels and all spatial positions (be.layer_norm's rows)."""
    _node_name = "NativeGroupNormBackward0"

    @staticmethod
    def forward(ctx, x, w, b, groups, eps):
        be = x._device.backend
        xd = x._data
        shape = xd.shape
        n, c = shape[0], shape[1]
        hw = math.prod(shape[2:])
        rows, cols = n * groups, (c // groups) * hw
        x2 = be.reshape(be.ascontiguous(xd), (rows, cols))
        if xd.size:
            y, mean, rstd = be.layer_norm(x2, None, None, eps)
        else:
            y, mean, rstd = x2, be.zeros((rows,), xd.dtype), be.zeros((rows,), xd.dtype)
        y = be.reshape(y, (n, c, hw))
        if w is not None:
            y = be.mul(y, be.reshape(w._data, (c, 1)))
        if b is not None:
            y = be.add(y, be.reshape(b._data, (c, 1)))
        if ctx is not NO_CTX:
            ctx.save_for_backward(x, w)
            ctx.mean, ctx.rstd, ctx.groups, ctx.eps = mean, rstd, groups, eps
        return _make(be.reshape(y, shape), x._device)

    @staticmethod
    def backward(ctx, g):
        """In Tensor ops, the statistics recomputed from x (differentiable again)."""
        nx, nw, nb = ctx.needs_input_grad[:3]
        x, w = ctx.saved_tensors
        shape = tuple(x.shape)
        n, c = shape[0], shape[1]
        grp = ctx.groups
        x3 = x.reshape(n, grp, -1)
        mu = x3.mean(2, keepdim=True)
        xc = x3 - mu
        rstd = ((xc * xc).mean(2, keepdim=True) + ctx.eps).sqrt().reciprocal()
        xhat = (xc * rstd).reshape(n, c, -1)
        g3 = g.reshape(n, c, -1)
        gx = gw = gb = None
        if nx:
            gwt = (g3 * w.reshape(c, 1) if w is not None else g3).reshape(n, grp, -1)
            xh = xhat.reshape(n, grp, -1)
            gx = (rstd * ((gwt - gwt.mean(2, keepdim=True)) - xh * (gwt * xh).mean(2, keepdim=True))).reshape(shape)
        if nw:
            gw = (g3 * xhat).sum((0, 2))
        if nb:
            gb = g3.sum((0, 2))
        return gx, gw, gb, None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        nx, nw, nb = ctx.needs_input_grad[:3]
        x, w = ctx.saved_arrays()
        shape = x.shape
        n, c = shape[0], shape[1]
        hw = math.prod(shape[2:])
        rows = n * ctx.groups
        cols = (c // ctx.groups) * hw
        g3 = be.reshape(be.ascontiguous(g), (n, c, hw))
        gx = gw = gb = None
        if x.size == 0:
            z = be.zeros((c,), x.dtype)
            return (be.zeros(shape, x.dtype) if nx else None, z if nw else None, z if nb else None, None, None)
        x2 = be.reshape(be.ascontiguous(x), (rows, cols))
        if nx:
            gwt = g3 if w is None else be.mul(g3, be.reshape(w, (c, 1)))
            gx = be.reshape(be.layer_norm_backward(be.reshape(be.ascontiguous(gwt), (rows, cols)), x2, ctx.mean,
                                                   ctx.rstd, None), shape)
        if nw:
            xhat = be.mul(be.sub(x2, be.reshape(ctx.mean, (rows, 1))), be.reshape(ctx.rstd, (rows, 1)))
            gw = be.sum(be.mul(g3, be.reshape(xhat, (n, c, hw))), (0, 2))
        if nb:
            gb = be.sum(g3, (0, 2))
        return gx, gw, gb, None, None


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """torch.nn.functional.group_norm, with torch's checks in torch's order."""
    if _AUTOCAST_ON[0] and (r := _autocast("group_norm", group_norm, input, num_groups, weight, bias, eps)) is not None:
        return r
    from ..nn.functional import _tensor
    _tensor(input, "group_norm")
    shape = tuple(input._data.shape)
    if len(shape) < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {len(shape)}")
    size = [shape[0] * shape[1] // num_groups, num_groups] + list(shape[2:])
    prods = size[0]
    for s in size[2:]:
        prods *= s
    if prods == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
    c = shape[1]
    if c % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {_shape_list(shape)} and num_groups={num_groups}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and (p._data.ndim != 1 or p._data.size != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {_shape_list(p._data.shape)} and input of shape "
                               f"{_shape_list(shape)}")
    _check_params(input, "GroupNormKernelImpl", weight, bias)
    return NativeGroupNorm.apply(input, weight, bias, int(num_groups), float(eps))


# ---- instance norm: batch norm of the (1, N * C, *spatial) view, as torch composes it -----------

def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-05):
    """torch.nn.functional.instance_norm: batch_norm over the (1, N * C, ...) view with the
    parameters and running statistics repeated N times; the running statistics are then the
    means over the batch of the updated copies (torch's at::instance_norm)."""
    from ..nn.functional import _tensor
    from ..autograd.grad_mode import no_grad
    from ..tensor import Size
    _tensor(input, "instance_norm")
    shape = tuple(input._data.shape)
    if use_input_stats:
        prods = 1
        for s in shape[2:]:
            prods *= s
        if prods == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {Size(shape)!r}")
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    n, c = shape[0], shape[1]

    def rep(t):
        return None if t is None else t.repeat(n)

    rm, rv = rep(running_mean), rep(running_var)
    if rm is not None:
        rm = rm.detach()
    if rv is not None:
        rv = rv.detach()
    out = batch_norm(input.contiguous().view((1, n * c) + shape[2:]), rm, rv, rep(weight), rep(bias),
                     use_input_stats, momentum, eps)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(rm.view(n, c).mean(0))
        if running_var is not None:
            running_var.copy_(rv.view(n, c).mean(0))
    return out.view(shape)


# a channels_last(_3d) input gives a result in that format, as torch's
from ..memory_formats import keeps_format as _keeps_format  # noqa: E402
batch_norm = _keeps_format(batch_norm, (0, "input"))
group_norm = _keeps_format(group_norm, (0, "input"))
