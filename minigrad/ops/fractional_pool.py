"""F.fractional_max_pool2d/3d (torch's FractionalMaxPool2d.cpp / FractionalMaxPool3d.cpp).

Each (batch, channel) plane draws one sample u per spatial dim (`_random_samples`, (N, C, D));
its window starts are torch's generate_intervals, computed in the input's dtype:
start[i] = int((i + u) * alpha) - int(u * alpha) with alpha = (in - k) / (out - 1), and the last
start = in - k. A window's maximum is its first largest value, or its last NaN (torch's
`val > maxVal || isnan(val)`). Composed from tensor ops (gather, where, amax/amin), so both
backends run it; one node per call (FractionalMaxPool2DBackward0 / 3D), whose backward
scatter-adds the gradient to the argmax positions.
"""
from .._arg_errors import type_name
from ..autograd.function import Function
from ..tensor import Tensor
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

_WORD = {2: ("height", "width"), 3: ("time", "height", "width")}


def _dtype_word(t):
    return t.dtype._legacy[:-len("Tensor")]


def _tuple(v, n):
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


def _starts(u, n_in, n_out, k):
    """(..., n_out) int64 window starts from samples u (...,) in the input's dtype."""
    from ..creation import arange
    if n_out <= 0:
        return u.new_zeros(tuple(u.shape) + (0,)).long()
    last = u.new_full(tuple(u.shape) + (1,), n_in - k).long()
    if n_out == 1:
        return last
    alpha = u.new_tensor(float(n_in - k)) / u.new_tensor(float(n_out - 1))
    i = arange(n_out - 1, dtype=u.dtype, device=u.device)
    uu = u.unsqueeze(-1)
    seq = ((i + uu) * alpha).trunc().long() - (uu * alpha).trunc().long()
    from .join import cat
    return cat([seq, last], -1).clamp(0, max(n_in - k, 0))


def _argmax_indices(input, kernel, out_size, samples):
    """Flat (per plane) int64 indices (N, C, prod(out)) of each window's maximum."""
    from ..creation import arange
    N, C = tuple(input._data.shape[:2])
    spatial = tuple(input._data.shape[2:])
    D = len(spatial)
    O = 1
    for o in out_size:
        O *= o
    K = 1
    for k in kernel:
        K *= k
    dev = input.device
    flat = None
    stride = 1
    # positions broadcast over (N, C, o_1..o_D, k_1..k_D)
    for d in range(D - 1, -1, -1):
        col = (1 - d) if D == 2 else d   # torch's 2-d samples are (w, h), its 3-d ones (t, h, w)
        st = _starts(samples[:N, :, col], spatial[d], out_size[d], kernel[d])   # (N, C, o_d)
        pos = st.unsqueeze(-1) + arange(kernel[d], device=dev)                # (N, C, o_d, k_d)
        shape = [N, C] + [1] * (2 * D)
        shape[2 + d], shape[2 + D + d] = out_size[d], kernel[d]
        term = pos.reshape(shape) * stride
        flat = term if flat is None else flat + term
        stride *= spatial[d]
    flat = flat.expand(N, C, *out_size, *kernel).reshape(N, C, O, K)
    vals = input.reshape(N, C, _prod(spatial)).gather(2, flat.reshape(N, C, O * K)).reshape(N, C, O, K)
    kpos = arange(K, device=dev)
    isnan = vals.isnan()
    last_nan = kpos.where(isnan, kpos.new_full((), -1)).amax(-1, keepdim=True) if K else None
    v2 = vals.where(~isnan, vals.new_full((), float("-inf")))
    mx = v2.amax(-1, keepdim=True)
    first = kpos.where(v2 == mx, kpos.new_full((), K)).amin(-1, keepdim=True)
    sel = last_nan.where(last_nan >= 0, first)
    return flat.gather(-1, sel).reshape(N, C, O)


class _FractionalMaxPool(Function):
    @staticmethod
    def forward(ctx, input, kernel, out_size, samples):
        D = ctx.D = len(kernel)
        ctx.in_shape = tuple(input._data.shape)
        x = input if input._data.ndim == D + 2 else input.unsqueeze(0)
        N, C = tuple(x._data.shape[:2])
        idx = _argmax_indices(x, kernel, out_size, samples)
        ctx.save_for_backward(idx)
        out = x.reshape(N, C, _prod(x._data.shape[2:])).gather(2, idx)
        ctx.mark_non_differentiable(idx)
        shape = ctx.in_shape[:-D] + tuple(out_size)
        return out.reshape(shape), idx.reshape(shape)

    @staticmethod
    def backward(ctx, g, _gi):
        (idx,) = ctx.saved_tensors
        N, C = idx.shape[:2]
        gi = g.new_zeros((N, C, _prod(ctx.in_shape[-ctx.D:]))).scatter_add(2, idx, g.reshape(N, C, idx.shape[2]))
        return gi.reshape(ctx.in_shape), None, None, None


def _prod(s):
    p = 1
    for v in s:
        p *= v
    return p


class FractionalMaxPool2D(_FractionalMaxPool):
    _node_name = "FractionalMaxPool2DBackward0"


class FractionalMaxPool3D(_FractionalMaxPool):
    _node_name = "FractionalMaxPool3DBackward0"


def _native(input, kernel_size, output_size, random_samples, D):
    """torch._C._nn.fractional_max_pool2d/3d: (output, indices)."""
    name = f"fractional_max_pool{D}d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type_name(input)}")
    kernel = _tuple(kernel_size, D)
    out_size = _tuple(output_size, D)
    ints = "tuple of Ints" if D == 2 else "tuple of three Ints"
    if len(kernel) != D:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or {ints}")
    if len(out_size) != D:
        raise RuntimeError(f"{name}: output_size must either be a single Int or {ints}")
    kernel, out_size = tuple(int(k) for k in kernel), tuple(int(o) for o in out_size)
    where = f"{name}()" if D == 2 else f"{name}_out()"
    shape = tuple(input._data.shape)
    nd = len(shape)
    if nd not in (D + 1, D + 2):
        raise RuntimeError(f"{where}: Expected {D + 1}D or {D + 2}D tensor, but got: [{', '.join(map(str, shape))}]")
    for i in range(nd - D - 1, nd):
        if shape[i] == 0:
            raise RuntimeError(f"{where}: Expected input to have non-zero size for non-batch dimensions, but got"
                               f"[{', '.join(map(str, shape))}] with dimension {i} being empty.")
    rs = random_samples
    if rs.dtype is not input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if rs.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {rs.dim()}")
    batched = nd == D + 2
    n_batch = shape[0] if batched else 1
    n_chan = shape[1] if batched else shape[0]
    if rs.shape[0] < n_batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if rs.shape[1] != n_chan:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if rs.shape[2] != D:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {D}; got {rs.shape[2]}.")
    spatial = shape[-D:]
    order = (0, 1) if D == 2 else (0, 2, 1)  # torch checks 3-d sizes as time, width, height
    for d in order:
        ok = out_size[d] + kernel[d] - 1 <= spatial[d] if D == 2 else out_size[d] + kernel[d] - 1 < spatial[d]
        if not ok:
            w = _WORD[D][d]
            raise RuntimeError(f"{where}: pool {w} {kernel[d]} too large relative to input {w} {spatial[d]}")
    if any(o < 0 for o in out_size):
        full = shape[:-D] + out_size
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out_size)}: "
                           f"[{', '.join(map(str, full))}]")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{name}_out_frame\" not implemented for '{_dtype_word(input)}'")
    cls = FractionalMaxPool2D if D == 2 else FractionalMaxPool3D
    return cls.apply(input, kernel, out_size, rs.detach())


def _with_indices(D, input, kernel_size, output_size, output_ratio, return_indices, _random_samples):
    name = f"fractional_max_pool{D}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if D == 2 and len(output_ratio) > 2:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = _tuple(output_ratio, D)
        output_size = [int(input.size(-D + d) * ratio[d]) for d in range(D)]
    if _random_samples is None:
        from ..creation import rand
        n_batch = 1 if input.dim() == D + 1 else input.size(0)
        chans = input.size(-D - 1)
        if not input.dtype.is_floating_point:
            raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{_dtype_word(input)}'")
        _random_samples = rand(n_batch, chans, D, dtype=input.dtype, device=input.device)
    return _native(input, kernel_size, output_size, _random_samples, D)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _with_indices(2, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _with_indices(3, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "fractional_max_pool2d", fractional_max_pool2d, input, kernel_size, output_size, output_ratio,
            return_indices, _random_samples)) is not None:
        return r
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "fractional_max_pool3d", fractional_max_pool3d, input, kernel_size, output_size, output_ratio,
            return_indices, _random_samples)) is not None:
        return r
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]
