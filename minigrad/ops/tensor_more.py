"""Still more of torch's tensor API, composed from minigrad's ops in torch's own formulas (so the
graphs end in torch's nodes): fliplr/flipud, trapezoid/trapz/cumulative_trapezoid, gradient,
histogram/histogramdd, vdot, dist, renorm, isin, the *_scatter ops, split_with_sizes and the
unsafe splits, sum_to_size, narrow_copy, angle and the real-dtype complex helpers (real, conj,
is_conj, ...), the window functions, range, scalar_tensor, apply_/map_/map2_, the torch.xxx_
spellings of in-place methods, and a few process-wide settings (threads, warn_always).
"""
import builtins
import math
import warnings

from ..autograd.function import Function
from ..tensor import Tensor, _make, _wrap_dim
from .math_more import _return_type
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

return_types_histogram = _return_type("histogram", ("hist", "bin_edges"))
return_types_histogramdd = _return_type("histogramdd", ("hist", "bin_edges"))


def _tensor(x, op, arg="input", pos=1):
    if not isinstance(x, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"{op}(): argument '{arg}' (position {pos}) must be Tensor, not {type_name(x)}")


# ---- one node over a composed computation -------------------------------------------------------

class _Composite(Function):
    """fn(*args) as one node named _node_name: the forward composed from minigrad's ops, the
    backward their gradient, recomputed (through the saved inputs themselves when the backward
    is recorded, so it differentiates again)."""

    @staticmethod
    def forward(ctx, fn, *args):
        ctx.fn, ctx.args = fn, args
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        return fn(*args)

    @staticmethod
    def backward(ctx, g):
        from ..autograd import grad as _grad
        from ..autograd.grad_mode import enable_grad, is_grad_enabled
        saved = iter(ctx.saved_tensors)
        create = is_grad_enabled()
        args, wrt = [], []
        needs = ctx.needs_input_grad[1:]
        for a, need in zip(ctx.args, needs):
            if isinstance(a, Tensor):
                t = next(saved)
                if need:
                    t = t if create else t.detach().requires_grad_()
                    wrt.append(t)
                a = t
            args.append(a)
        with enable_grad():
            out = ctx.fn(*args)
            if wrt and out.requires_grad:
                grads = iter(_grad(out, wrt, g, create_graph=create, allow_unused=True))
            else:  # nothing reaches the inputs (fill's output): zeros
                grads = iter([None] * len(wrt))
        result = [None]
        for a, need in zip(ctx.args, needs):
            if need:
                gi = next(grads)
                result.append(gi if gi is not None else a.new_zeros(tuple(a.shape)))
            else:
                result.append(None)
        return tuple(result)


_NODES = {}


def one_node(name, fn, *args):
    """fn(*args) recorded as one node torch names `name`."""
    cls = _NODES.get(name)
    if cls is None:
        cls = _NODES[name] = type(name.replace("Backward", "Composite"), (_Composite,), {"_node_name": name})
    return cls.apply(fn, *args)


# ---- flips ----------------------------------------------------------------------------------------

def fliplr(input):
    _tensor(input, "fliplr")
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input):
    _tensor(input, "flipud")
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


# ---- integration ----------------------------------------------------------------------------------

def _zeros_except(y, dim):
    shape = list(y.shape)
    del shape[dim]
    from ..creation import zeros
    return zeros(shape, dtype=y.dtype if y.is_floating_point() else None, device=y.device)


def _check_y(y, op):
    _tensor(y, op, "y")
    if y._data.dtype.kind == "b":
        raise RuntimeError(f"{op}: received a bool input for `y`, but bool is not supported")


def _spacing(y, x, dim, op):
    """x's differences along dim, x viewed to broadcast with y as torch's trapezoid does."""
    if x._data.ndim == 1:
        if x._data.shape[0] != y._data.shape[dim]:
            raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
        shape = [1] * y._data.ndim
        shape[dim] = x._data.shape[0]
        xv = x.view(shape)
    elif x._data.ndim < y._data.ndim:
        xv = x.view((1,) * (y._data.ndim - x._data.ndim) + tuple(x.shape))
    else:
        xv = x
    n = xv._data.shape[dim]
    return xv.narrow(dim, 1, n - 1) - xv.narrow(dim, 0, n - 1)


def _dx_number(dx, op):
    if isinstance(dx, Tensor) or isinstance(dx, bool) or not isinstance(dx, (int, float)):
        raise RuntimeError(f"{op}: Currently, we only support dx as a real number.")
    return float(dx)


def _div_scalar(t, s):
    """t / s as torch's Scalar overload records it (DivBackward1)."""
    return one_node("DivBackward1", lambda a: a / s, t) if t.requires_grad else t / s


def _mul_scalar(t, s):
    return one_node("MulBackward1", lambda a: a * s, t) if t.requires_grad else t * s


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """torch.trapezoid: the trapezoidal rule along dim, with sample points x or a spacing dx."""
    _check_y(y, "trapezoid")
    if x is not None and dx is not None:
        raise RuntimeError("trapezoid: received both x and dx")  # torch's parser refuses the pair
    d = _wrap_dim(dim, y._data.ndim)
    n = y._data.shape[d]
    if n == 0:
        return _zeros_except(y, d)
    if x is not None:
        _tensor(x, "trapezoid", "x", 2)
        step = _spacing(y, x, d, "trapezoid")
        return _div_scalar((step * (y.narrow(d, 0, n - 1) + y.narrow(d, 1, n - 1))).sum(d), 2.0)
    h = 1.0 if dx is None else _dx_number(dx, "trapezoid")
    return _mul_scalar(y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5, h)


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    _check_y(y, "cumulative_trapezoid")
    d = _wrap_dim(dim, y._data.ndim)
    n = y._data.shape[d]
    if n == 0:
        return y.narrow(d, 0, 0) * 1.0
    left, right = y.narrow(d, 0, n - 1), y.narrow(d, 1, n - 1)
    if x is not None:
        _tensor(x, "cumulative_trapezoid", "x", 2)
        return _div_scalar((_spacing(y, x, d, "cumulative_trapezoid") * (left + right)).cumsum(d), 2.0)
    h = 1.0 if dx is None else _dx_number(dx, "cumulative_trapezoid")
    return (h / 2.0 * (left + right)).cumsum(d)


# ---- gradient -------------------------------------------------------------------------------------

def _slice(t, d, start, stop=None):
    n = t._data.shape[d]
    start = start + n if start < 0 else start
    stop = n if stop is None else (stop + n if stop < 0 else stop)
    return t.narrow(d, start, stop - start)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """minigrad.gradient: central differences inside, one-sided (edge_order 1 or 2) at the ends,
    for a uniform spacing (numbers) or sample coordinates (1-d tensors), one tensor per dim."""
    _tensor(input, "gradient")
    nd = input._data.ndim
    if dim is None:
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [_wrap_dim(dim, nd)]
    else:
        dims = [_wrap_dim(d, nd) for d in dim]
    if isinstance(spacing, (list, tuple)):
        spacings = list(spacing)
        if dim is None and len(spacings) != nd:
            raise RuntimeError("minigrad.gradient expected spacing to be unspecified, a scalar, or a list of length "
                               f"equal to 'self.dim() = {nd}', since dim argument was not given, but got a list of "
                               f"length {len(spacings)}")
        if len(spacings) != len(dims):
            raise RuntimeError("minigrad.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacings)} and a dim argument of length {len(dims)}.")
    else:
        spacings = [spacing] * len(dims)
    if edge_order not in (1, 2):
        raise RuntimeError("minigrad.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input._data.shape[d] < edge_order + 1:
            raise RuntimeError("minigrad.gradient expected each dimension size to be at least edge_order+1")
    from ..functional import cat
    x = input if input.is_floating_point() else input.to(_default_float())
    out = []
    for d, h in zip(dims, spacings):
        if isinstance(h, Tensor):
            out.append(_gradient_coordinates(x, d, h, edge_order, cat))
            continue
        center = (_slice(x, d, 2) - _slice(x, d, 0, -2)) / h
        if edge_order == 1:
            first = (_slice(x, d, 1, 2) - _slice(x, d, 0, 1)) / h
            last = (_slice(x, d, -1) - _slice(x, d, -2, -1)) / h
        else:
            first = (_slice(x, d, 0, 1) * -1.5 + _slice(x, d, 1, 2) * 2.0 - _slice(x, d, 2, 3) * 0.5) / h
            last = (_slice(x, d, -3, -2) * 0.5 - _slice(x, d, -2, -1) * 2.0 + _slice(x, d, -1) * 1.5) / h
        out.append(cat([first, center / 2, last], d))
    return tuple(out)


def _default_float():
    from ..dtypes import get_default_dtype
    return get_default_dtype()


def _gradient_coordinates(x, d, coords, edge_order, cat):
    """The second-order-accurate differences for unevenly spaced samples (torch's and NumPy's)."""
    if coords._data.ndim != 1 or coords._data.shape[0] != x._data.shape[d]:
        raise RuntimeError("minigrad.gradient expected each tensor to be on the same device, and each spacing tensor to "
                           "be one-dimensional with as many elements as the dimension it spans")
    shape = [1] * x._data.ndim
    shape[d] = -1
    h = coords[1:] - coords[:-1]
    h1, h2 = h[:-1], h[1:]
    a = (-h2 / (h1 * (h1 + h2))).reshape(shape)
    b = ((h2 - h1) / (h1 * h2)).reshape(shape)
    c = (h1 / (h2 * (h1 + h2))).reshape(shape)
    center = a * _slice(x, d, 0, -2) + b * _slice(x, d, 1, -1) + c * _slice(x, d, 2)
    if edge_order == 1:
        first = (_slice(x, d, 1, 2) - _slice(x, d, 0, 1)) / h[0]
        last = (_slice(x, d, -1) - _slice(x, d, -2, -1)) / h[-1]
    else:
        a = -(2.0 * h[0] + h[1]) / (h[0] * (h[0] + h[1]))
        b = (h[0] + h[1]) / (h[0] * h[1])
        c = -h[0] / (h[1] * (h[0] + h[1]))
        first = a * _slice(x, d, 0, 1) + b * _slice(x, d, 1, 2) + c * _slice(x, d, 2, 3)
        a = h[-1] / (h[-2] * (h[-1] + h[-2]))
        b = -(h[-1] + h[-2]) / (h[-1] * h[-2])
        c = (2 * h[-1] + h[-2]) / (h[-1] * (h[-1] + h[-2]))
        last = a * _slice(x, d, -3, -2) + b * _slice(x, d, -2, -1) + c * _slice(x, d, -1)
    return cat([first, center, last], d)


# ---- histograms -----------------------------------------------------------------------------------

def _edges_for(column, bins, rng, name):
    """The bin edges of one dim: bins a count (evenly spaced over range or the data's extent,
    widened by 1 each way when that is one point, as torch) or an increasing 1-d tensor."""
    from ..creation import linspace
    if isinstance(bins, Tensor):
        if bins._data.ndim != 1:
            raise RuntimeError(f"{name}(): bins tensor should have one dimension, but got {bins._data.ndim} dimensions")
        return bins
    if bins <= 0:
        raise RuntimeError(f"{name}(): bins must be > 0, but got {bins} for dimension 0")
    if rng is not None:
        lo, hi = float(rng[0]), float(rng[1])
    elif column.numel():
        lo, hi = column.min().item(), column.max().item()
    else:
        lo, hi = 0.0, 1.0
    if lo > hi:
        raise RuntimeError(f"{name}(): max must be larger than min")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"{name}(): range of [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return linspace(lo, hi, bins + 1, dtype=column.dtype, device=column.device)


def _bin_index(column, edges):
    """Each value's bin (the last bin includes its right edge) and whether it falls in one."""
    from .search import bucketize
    pos = bucketize(column, edges, right=True) - 1
    n = edges._data.shape[0] - 1
    at_end = column == edges[-1]
    pos = pos.masked_fill(at_end, n - 1)
    inside = (column >= edges[0]) & (column <= edges[-1])
    return pos, inside


def histogramdd(input, bins=10, *, range=None, weight=None, density=False):
    _tensor(input, "histogramdd")
    if not input.is_floating_point():
        raise NotImplementedError(f'"histogramdd" not implemented for \'{input.dtype._legacy[:-6]}\'')
    if input._data.ndim < 1:
        raise RuntimeError("minigrad.histogramdd: input tensor should have at least 1 dimension, but got 0")
    D = input._data.shape[-1]
    pts = input.reshape(-1, D)
    if isinstance(bins, (int,)) and not isinstance(bins, bool):
        bins = [bins] * D
    bins = list(bins)
    if len(bins) != D:
        raise RuntimeError(f"minigrad.histogramdd: expected {D} sequences of bin edges for each of the {D} dimensions "
                           f"of the input tensor, but got {len(bins)}")
    if range is not None and len(range) != 2 * D:
        raise RuntimeError(f"minigrad.histogramdd: for a {D}-dimensional histogram range should have {2 * D} elements, "
                           f"but got {len(range)}")
    edges = [_edges_for(pts[:, k], bins[k], None if range is None else range[2 * k:2 * k + 2], "minigrad.histogramdd")
             for k in builtins.range(D)]
    counts = [e._data.shape[0] - 1 for e in edges]
    flat = None
    keep = None
    for k in builtins.range(D):
        pos, inside = _bin_index(pts[:, k], edges[k])
        flat = pos if flat is None else flat * counts[k] + pos
        keep = inside if keep is None else keep & inside
    total = math.prod(counts)
    w = weight.reshape(-1) if weight is not None else None
    if weight is not None and weight._data.shape != input._data.shape[:-1]:
        raise RuntimeError("minigrad.histogramdd: if weight tensor is provided it should have the same shape as the "
                           f"input tensor excluding its innermost dimension, but got input with shape "
                           f"{list(input._data.shape)} and weight with shape {list(weight._data.shape)}")
    flat = flat.masked_fill(~keep, 0)
    w = keep.to(input.dtype) if w is None else w * keep.to(w.dtype)
    from .unique import bincount
    hist = bincount(flat, w, total).to(input.dtype).reshape(counts) if flat.numel() else \
        _make(input._device.backend.zeros(tuple(counts), input._data.dtype), input._device)
    if density:
        hist = hist / hist.sum()
        for k, e in enumerate(edges):
            shape = [1] * D
            shape[k] = counts[k]
            hist = hist / (e[1:] - e[:-1]).reshape(shape)
    return return_types_histogramdd(hist.detach(), tuple(edges))


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """minigrad.histogram: a 1-d histogram of every element, (hist, bin_edges)."""
    _tensor(input, "histogram")
    if isinstance(bins, Tensor) and bins._data.dtype != input._data.dtype:
        raise RuntimeError(f"minigrad.histogram: input tensor and bins tensors should have the same dtype, but got "
                           f"input {input.dtype._legacy[:-6].lower()} and bins {bins.dtype._legacy[:-6].lower()}")
    if weight is not None and weight._data.shape != input._data.shape:
        raise RuntimeError("minigrad.histogram: if weight tensor is provided, it should have the same shape as the input "
                           f"tensor excluding its innermost dimension, but got input with shape "
                           f"{list(input._data.shape)} and weight with shape {list(weight._data.shape)}")
    hist, edges = histogramdd(input.reshape(-1, 1), [bins], range=range,
                              weight=None if weight is None else weight.reshape(-1), density=density)
    return return_types_histogram(hist, edges[0])


# ---- products, distances, norms ---------------------------------------------------------------

def vdot(input, other):
    if _AUTOCAST_ON[0] and (r := _autocast("vdot", vdot, input, other)) is not None:
        return r
    _tensor(input, "vdot")
    _tensor(other, "vdot", "other", 2)
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    return one_node("VdotBackward0", lambda a, b: a.dot(b), input, other)


def dist(input, other, p=2):
    if _AUTOCAST_ON[0] and (r := _autocast("dist", dist, input, other, p)) is not None:
        return r
    _tensor(input, "dist")
    _tensor(other, "dist", "other", 2)
    from .loss_more import dist as _dist
    return one_node("DistBackward0", lambda a, b: _dist(a, b, p), input, other)


def renorm(input, p, dim, maxnorm):
    """Each slice along dim whose p-norm exceeds maxnorm scaled down to norm maxnorm."""
    if _AUTOCAST_ON[0] and (r := _autocast("renorm", renorm, input, p, dim, maxnorm)) is not None:
        return r
    _tensor(input, "renorm")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    d = _wrap_dim(dim, input._data.ndim)

    def run(x):
        others = tuple(k for k in builtins.range(x._data.ndim) if k != d)
        norms = x.norm(p, others, keepdim=True) if others else x.abs()
        return x * (maxnorm / (norms + 1e-7)).where(norms > maxnorm, norms.new_ones(()))
    return one_node("RenormBackward0", run, input)


def renorm_(input, p, dim, maxnorm):
    from .inplace import inplace
    return inplace(input, lambda t: renorm(t, p, dim, maxnorm))


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    from ..creation import tensor as _tensor_of
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got (int, int), but expected one of:\n"
                        " * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = False,"
                        " Tensor out = None)\n * (Number element, Tensor test_elements, *, bool assume_unique = "
                        "False, bool invert = False, Tensor out = None)\n * (Tensor elements, Number test_element, *,"
                        " bool assume_unique = False, bool invert = False, Tensor out = None)\n")
    dev = (elements if isinstance(elements, Tensor) else test_elements).device
    e = elements if isinstance(elements, Tensor) else _tensor_of(elements, device=dev)
    t = test_elements if isinstance(test_elements, Tensor) else _tensor_of(test_elements, device=dev)
    e, t = e.detach(), t.detach().reshape(-1)
    if not t.numel():
        from ..creation import zeros
        from .. import dtypes
        hit = zeros(tuple(e.shape), dtype=dtypes.bool_, device=e.device)
    else:
        from .search import searchsorted
        sorted_t = t.sort().values
        i = searchsorted(sorted_t, e.reshape(-1)).clamp(max=t.numel() - 1)
        hit = (sorted_t[i] == e.reshape(-1)).reshape(e.shape)
    return ~hit if invert else hit


def angle(input):
    """The argument of a real number: 0 for >= 0, pi for < 0, NaN for NaN (torch's AngleBackward0
    gives a zero gradient)."""
    _tensor(input, "angle")
    x = input if input.is_floating_point() else input.to(_default_float())
    return one_node("AngleBackward0", lambda a: (a < 0).to(a.dtype) * math.pi + a * 0, x)


# ---- the *_scatter ops (out-of-place writes into a copy) ----------------------------------------

def _embed(input, src, view_of, name):
    def run(a, s):
        out = a.clone()
        region = view_of(out)
        if tuple(region.shape) != tuple(s.shape):
            raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                               f"{list(s.shape)}, slice size = {list(region.shape)}")
        region.copy_(s)
        return out
    _tensor(input, name.lower())
    _tensor(src, name.lower(), "src", 2)
    return one_node(f"{name}Backward0", run, input, src)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    d = _wrap_dim(dim, input._data.ndim)
    sl = [builtins.slice(None)] * input._data.ndim
    sl[d] = builtins.slice(start, end, step)
    return _embed(input, src, lambda t: t[tuple(sl)], "SliceScatter")


def select_scatter(input, src, dim, index):
    return _embed(input, src, lambda t: t.select(dim, index), "SelectScatter")


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    return _embed(input, src, lambda t: t.diagonal(offset, dim1, dim2), "DiagonalScatter")


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    return _embed(input, src, lambda t: t.as_strided(size, stride, storage_offset), "AsStridedScatter")


# ---- splits and copies ----------------------------------------------------------------------------

def split_with_sizes(input, split_sizes, dim=0):
    _tensor(input, "split_with_sizes")
    return input.split(list(split_sizes), dim)


def unsafe_split(input, split_size, dim=0):
    return input.split(split_size, dim)


def unsafe_chunk(input, chunks, dim=0):
    return input.chunk(chunks, dim)


def narrow_copy(input, dim, start, length):
    _tensor(input, "narrow_copy")
    return one_node("NarrowCopyBackward0", lambda a: a.narrow(dim, start, length).clone(), input)


def sum_to_size(input, *size):
    """The sum of input over the dims it was broadcast along to reach its shape from size."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    shape = tuple(input.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    dims = tuple(builtins.range(lead)) + tuple(lead + k for k, s in enumerate(size) if s == 1 and shape[lead + k] != 1)
    if not dims:
        return input
    out = input.sum(dims, keepdim=True)
    return out.reshape(size) if lead else out


# ---- real tensors' complex helpers ---------------------------------------------------------------

def _identity(input):
    return input


def _imag(x):
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def isreal(input):
    _tensor(input, "isreal")
    from ..creation import ones_like
    from .. import dtypes
    return ones_like(input, dtype=dtypes.bool_)


# ---- creation ---------------------------------------------------------------------------------

def _window(name, n, periodic, dtype, device, requires_grad, make):
    """torch's window functions: make(k, m) over k = arange(m) in dtype, m = n (+ 1 if periodic),
    the first n values kept; n of 0 or 1 gives [] or [1]."""
    from ..creation import arange, ones, empty
    from .. import dtypes
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={n}")
    dtype = dtype or dtypes.get_default_dtype()
    if not dtype.is_floating_point:
        from ..devices import device as _device
        where = _device(device) if device is not None else "cpu"
        cname = {"int64": "long int", "int32": "int", "bool": "bool"}.get(str(dtype).split(".")[-1], str(dtype))
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype={cname}, device={where}, "
                           f"layout=Strided (default), requires_grad={str(bool(requires_grad)).lower()}"
                           f"{'' if requires_grad else ' (default)'}, pinned_memory=false, memory_format=(nullopt))")
    if n == 0:
        out = empty(0, dtype=dtype, device=device)
    elif n == 1:
        out = ones(1, dtype=dtype, device=device)
    else:
        m = n + 1 if periodic else n
        out = make(arange(m, dtype=dtype, device=device), m)[:n]
    return out.detach().requires_grad_(requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda k, m: (k * (math.pi * 2.0 / (m - 1))).cos() * -0.5 + 0.5)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda k, m: (k * (math.pi * 2.0 / (m - 1))).cos() * -beta + alpha)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    def make(k, m):
        w = k * (math.pi / (m - 1))
        return (w * 4).cos() * 0.08 - (w * 2).cos() * 0.5 + 0.42
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, make)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    def make(k, m):
        w = k * (2.0 / (m - 1))
        half = ((m - 1) >> 1) + 1
        return w.where(k < half, 2 - w)
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, make)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    def make(k, m):
        from ..special import i0
        from ..creation import tensor
        alpha = (m - 1) / 2.0
        inv = 1.0 / i0(tensor(float(beta), dtype=k.dtype, device=k.device))
        return i0(((1 - ((k - alpha) / alpha) ** 2).clamp(min=0)).sqrt() * beta) * inv
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, make)


def torch_range(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, pin_memory=False,
          requires_grad=False):
    """torch.range (deprecated): start to end inclusive, in the default float dtype."""
    from ..creation import arange
    from .. import dtypes
    warnings.warn("minigrad.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use minigrad.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    n = int(math.floor((end - start) / step)) + 1
    return (arange(0, builtins.max(n, 0), dtype=dtypes.float64, device=device) * step + start).to(
        dtype or dtypes.get_default_dtype()).requires_grad_(requires_grad)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    from ..creation import tensor
    from .. import dtypes
    return tensor(s, dtype=dtype or dtypes.get_default_dtype(), device=device, requires_grad=requires_grad)


# ---- Python callables over CPU tensors ---------------------------------------------------------

def _cpu_only(t, name):
    if t._device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")


def apply_(self, callable):
    """Each element replaced by callable(element), in place (CPU only, slow: for tests and
    prototypes, as torch's)."""
    _cpu_only(self, "apply_")
    from ..creation import tensor
    values = [callable(v) for v in self.reshape(-1).tolist()]
    with _no_grad():
        self.copy_(tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def map_(self, tensor, callable):
    _cpu_only(self, "map_")
    from ..creation import tensor as make
    other = tensor.expand(self.shape).reshape(-1).tolist()
    values = [callable(a, b) for a, b in zip(self.reshape(-1).tolist(), other)]
    with _no_grad():
        self.copy_(make(values, dtype=self.dtype).reshape(self.shape))
    return self


def map2_(self, x, y, callable):
    _cpu_only(self, "map2_")
    from ..creation import tensor as make
    xs, ys = x.expand(self.shape).reshape(-1).tolist(), y.expand(self.shape).reshape(-1).tolist()
    values = [callable(a, b, c) for a, b, c in zip(self.reshape(-1).tolist(), xs, ys)]
    with _no_grad():
        self.copy_(make(values, dtype=self.dtype).reshape(self.shape))
    return self


def _no_grad():
    from ..autograd.grad_mode import no_grad
    return no_grad()


# ---- process-wide settings ---------------------------------------------------------------------

_THREADS = {"intra": None, "inter": None, "warn_always": False}


def get_num_threads():
    import os
    return _THREADS["intra"] or os.cpu_count() or 1


def set_num_threads(n):
    if not isinstance(n, int) or n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _THREADS["intra"] = n


def get_num_interop_threads():
    import os
    return _THREADS["inter"] or os.cpu_count() or 1


def set_num_interop_threads(n):
    if not isinstance(n, int) or n <= 0:
        raise RuntimeError("Expected a positive number of threads")
    _THREADS["inter"] = n


def set_warn_always(b):
    _THREADS["warn_always"] = bool(b)


def is_warn_always_enabled():
    return _THREADS["warn_always"]


def typename(obj):
    """torch.typename: a tensor's legacy type name (minigrad.FloatTensor), else the object's
    qualified type name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "")
    name = type(obj).__qualname__
    return name if module in ("builtins", "", None) else f"{module}.{name}"


def is_storage(obj):
    return False


# ---- torch.xxx_ spellings of in-place methods -------------------------------------------------

_INPLACE_FUNCTIONS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
    "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_",
    "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_",
    "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_",
    "negative_", "rad2deg_", "reciprocal_", "round_", "rsqrt_", "sin_", "sinc_", "sinh_", "sqrt_", "square_",
    "tan_", "trunc_", "xlogy_", "zero_", "detach", "resize_as_")


def _method_function(name):
    def fn(input, *args, **kwargs):
        _tensor(input, name)
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    return fn


def fill(input, value):
    """torch.fill: a filled copy (torch.fill_ fills in place); no gradient reaches input."""
    _tensor(input, "fill")
    from ..creation import full_like
    v = value.item() if isinstance(value, Tensor) else value
    return one_node("FillBackward0", lambda a: full_like(a, v), input)


FUNCTIONS = {
    "fliplr": fliplr, "flipud": flipud, "trapezoid": trapezoid, "trapz": trapz,
    "cumulative_trapezoid": cumulative_trapezoid, "gradient": gradient, "histogram": histogram,
    "histogramdd": histogramdd, "vdot": vdot, "dist": dist, "renorm": renorm, "isin": isin, "angle": angle,
    "slice_scatter": slice_scatter, "select_scatter": select_scatter, "diagonal_scatter": diagonal_scatter,
    "as_strided_scatter": as_strided_scatter, "split_with_sizes": split_with_sizes, "unsafe_split": unsafe_split,
    "unsafe_chunk": unsafe_chunk, "narrow_copy": narrow_copy, "isreal": isreal, "hann_window": hann_window,
    "hamming_window": hamming_window, "blackman_window": blackman_window, "bartlett_window": bartlett_window,
    "kaiser_window": kaiser_window, "range": torch_range, "scalar_tensor": scalar_tensor, "fill": fill,
    "get_num_threads": get_num_threads, "set_num_threads": set_num_threads,
    "get_num_interop_threads": get_num_interop_threads, "set_num_interop_threads": set_num_interop_threads,
    "set_warn_always": set_warn_always, "is_warn_always_enabled": is_warn_always_enabled, "typename": typename,
    "is_storage": is_storage,
    "conj": _identity, "resolve_conj": _identity, "resolve_neg": _identity, "conj_physical": _identity,
    "real": _identity, "imag": _imag, "is_conj": lambda input: False, "is_neg": lambda input: False,
}

METHODS = {
    "fliplr": fliplr, "flipud": flipud, "histogram": histogram, "vdot": vdot, "dist": dist, "renorm": renorm,
    "renorm_": renorm_, "angle": angle, "slice_scatter": slice_scatter, "select_scatter": select_scatter,
    "diagonal_scatter": diagonal_scatter, "as_strided_scatter": as_strided_scatter,
    "split_with_sizes": split_with_sizes, "unsafe_split": unsafe_split, "unsafe_chunk": unsafe_chunk,
    "narrow_copy": narrow_copy, "sum_to_size": sum_to_size, "isreal": isreal, "apply_": apply_, "map_": map_,
    "map2_": map2_, "conj": _identity, "resolve_conj": _identity, "resolve_neg": _identity,
    "conj_physical": _identity, "is_conj": lambda self: False, "is_neg": lambda self: False,
    "is_complex": lambda self: False,
}


def install(cls):
    """The Tensor methods and properties (a method Tensor already has is kept)."""
    for name, fn in METHODS.items():
        if not hasattr(cls, name):
            setattr(cls, name, fn)
    cls.real = property(_identity)
    cls.imag = property(_imag)
    cls.is_cpu = property(lambda self: self._device.type == "cpu")
    cls.output_nr = property(lambda self: self._output_nr)
    if not hasattr(cls, "get_device"):
        cls.get_device = lambda self: -1 if self._device.type == "cpu" else self._device.index


def export(namespace):
    """The torch.* functions, into minigrad's namespace (a name it already has is kept)."""
    for name, fn in FUNCTIONS.items():
        namespace.setdefault(name, fn)
    from ..tensor import Tensor as cls
    for name in _INPLACE_FUNCTIONS:
        if name not in namespace and hasattr(cls, name):
            namespace[name] = _method_function(name)
