"""F.interpolate (torch's upsample_* family) and the pixel/channel shuffles.

Every interpolation mode is separable: an output element is a sum over taps per spatial dim of
products of per-dim weights. So each spatial dim gets a plan (indices (T * out,) into the input
dim and weights (T, out), T taps: 1 for nearest, 2 linear, 4 cubic) computed on the host with
torch's index and coordinate rules (area_pixel_compute_scale / _source_index, nearest_idx,
guard_index_and_lambda, A = -0.75 with clamped taps for cubic), in the input's opmath
precision (float32 arithmetic for float32 inputs, as torch's CPU kernels). The forward is one
gather per dim (be.getitem), a multiply by the weights and a sum over the taps; the backward is
its adjoint, a scatter-add of the weighted gradient (be.index_add). One node per call, named as
torch's (UpsampleBilinear2DBackward0, ...); its backward is itself a node whose backward is the
forward again, so double backward works.
"""
import math
import struct

from ..autograd.function import NO_CTX
from ..tensor import Tensor, _make
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies
from .elementwise import Builtin


def _f32(v):
    """v rounded to float32 (an op on two float32 values done in double, then rounded, is the
    float32 op exactly: the double result is exact or correctly rounded before the rounding)."""
    return struct.unpack("f", struct.pack("f", v))[0]


def _ident(v):
    return v


# ---- per-dim plans: torch's index / weight rules (aten/src/ATen/native/UpSample.h) -----------------

def _scales_value(r, scale, n_in, n_out):
    return r(1.0 / scale) if scale is not None and scale > 0 else r(r(float(n_in)) / n_out)


def _area_scale(r, n_in, n_out, align_corners, scale):
    if align_corners:
        return r(float(n_in - 1) / (n_out - 1)) if n_out > 1 else 0.0
    return _scales_value(r, scale, n_in, n_out)


def _source_index(r, scale, i, align_corners, cubic):
    if align_corners:
        return r(scale * i)
    src = r(r(scale * r(i + 0.5)) - 0.5)
    return 0.0 if not cubic and src < 0 else src


def _guard(r, real, n_in):
    idx = min(int(math.floor(real)), n_in - 1)
    return idx, min(max(r(real - idx), 0.0), 1.0)


def _plan_nearest(n_in, n_out, scale, exact):
    s = _scales_value(_f32, scale, n_in, n_out)  # always float: torch's nearest uses float scales
    if exact:
        return [min(int(math.floor(_f32((i + 0.5) * s))), n_in - 1) for i in range(n_out)], None
    if n_out == n_in:
        return list(range(n_out)), None
    if n_out == 2 * n_in:
        return [i >> 1 for i in range(n_out)], None
    return [min(int(math.floor(_f32(_f32(float(i)) * s))), n_in - 1) for i in range(n_out)], None


def _plan_linear(r, n_in, n_out, align_corners, scale):
    i0, i1, w0, w1 = [], [], [], []
    ratio = _area_scale(r, n_in, n_out, align_corners, scale)
    for i in range(n_out):
        if n_out == n_in:
            a, lam = i, 0.0
            b = i
        else:
            a, lam = _guard(r, _source_index(r, ratio, i, align_corners, False), n_in)
            b = a + (1 if a < n_in - 1 else 0)
        i0.append(a), i1.append(b), w0.append(r(1.0 - lam)), w1.append(lam)
    return i0 + i1, [w0, w1]


def _cubic_coeffs(r, t):
    A = -0.75

    def conv1(x):  # ((A + 2) x - (A + 3)) x x + 1
        return r(r(r(r(r((A + 2) * x) - (A + 3)) * x) * x) + 1)

    def conv2(x):  # ((A x - 5 A) x + 8 A) x - 4 A
        return r(r(r(r(r(r(A * x) - 5 * A) * x) + 8 * A) * x) - 4 * A)

    x2 = r(1.0 - t)
    return conv2(r(t + 1.0)), conv1(t), conv1(x2), conv2(r(x2 + 1.0))


def _plan_cubic(r, n_in, n_out, align_corners, scale):
    idx, ws = [[], [], [], []], [[], [], [], []]
    ratio = _area_scale(r, n_in, n_out, align_corners, scale)
    for i in range(n_out):
        a, t = _guard(r, _source_index(r, ratio, i, align_corners, True), n_in)
        for j, c in enumerate(_cubic_coeffs(r, t)):
            idx[j].append(max(min(a - 1 + j, n_in - 1), 0))
            ws[j].append(c)
    return idx[0] + idx[1] + idx[2] + idx[3], ws


def _plan_area(n_in, n_out):
    """Adaptive average pooling's windows [floor(i n / o), ceil((i + 1) n / o)), padded to the
    widest window with zero weights."""
    wins = [((i * n_in) // n_out, -(-((i + 1) * n_in) // n_out)) for i in range(n_out)]
    taps = max((b - a for a, b in wins), default=1)
    idx = [[min(a + t, b - 1) for a, b in wins] for t in range(taps)]
    ws = [[1.0 / (b - a) if a + t < b else 0.0 for a, b in wins] for t in range(taps)]
    return [i for row in idx for i in row], ws


class _Plan:
    """Per spatial dim: (n_in, n_out, idx (T * n_out,) int64 array, weights (T, n_out) or None)."""

    def __init__(self, be, dtype, mode, spatial, out, align_corners, scales):
        r = _f32 if dtype.itemsize == 4 else _ident
        self.dims = []
        for d, (n_in, n_out) in enumerate(zip(spatial, out)):
            scale = None if scales is None else scales[d]
            if mode in ("nearest", "nearest-exact"):
                idx, ws = _plan_nearest(n_in, n_out, scale, mode == "nearest-exact")
            elif mode == "bicubic":
                idx, ws = _plan_cubic(r, n_in, n_out, align_corners, scale)
            elif mode == "area":
                idx, ws = _plan_area(n_in, n_out)
            else:
                idx, ws = _plan_linear(r, n_in, n_out, align_corners, scale)
            ia = be.asarray(idx, "int64") if idx else be.zeros((0,), "int64")
            wa = None if ws is None else (be.asarray(ws, dtype) if n_out else be.zeros((len(ws), 0), dtype))
            self.dims.append((n_in, n_out, ia, wa))


def _apply(be, x, plan):
    nd = len(plan.dims)
    for d in range(nd - 1, -1, -1):
        n_in, n_out, idx, w = plan.dims[d]
        ax = x.ndim - nd + d
        lead = (slice(None),) * ax
        bounds = (None,) * ax + ((0, n_in - 1),)
        g = be.getitem(x, lead + (idx,), bounds)
        if w is not None:
            taps = w.shape[0]
            shape = x.shape[:ax] + (taps, n_out) + x.shape[ax + 1:]
            g = be.sum(be.mul(be.reshape(g, shape), be.reshape(w, (taps, n_out) + (1,) * (x.ndim - ax - 1))),
                       (ax,))
        x = g
    return be.ascontiguous(x)


def _apply_adjoint(be, g, plan):
    nd = len(plan.dims)
    for d in range(nd):
        n_in, n_out, idx, w = plan.dims[d]
        ax = g.ndim - nd + d
        if w is not None:
            taps = w.shape[0]
            tail = (1,) * (g.ndim - ax - 1)
            v = be.mul(be.reshape(g, g.shape[:ax] + (1, n_out) + g.shape[ax + 1:]),
                       be.reshape(w, (taps, n_out) + tail))
            v = be.reshape(v, g.shape[:ax] + (taps * n_out,) + g.shape[ax + 1:])
        else:
            v = be.ascontiguous(g)
        g = be.index_add(g.shape[:ax] + (n_in,) + g.shape[ax + 1:], (slice(None),) * ax + (idx,), v, g.dtype)
    return g


class _Interpolate(Builtin):
    @staticmethod
    def forward(ctx, x, plan):
        if ctx is not NO_CTX:
            ctx.plan = plan
        return _make(_apply(x._device.backend, x._data, plan), x._device)

    @staticmethod
    def backward(ctx, g):
        return _InterpolateAdjoint.apply(g, ctx.plan), None


class _InterpolateAdjoint(Builtin):
    """The backward of an interpolation (a linear map): its own backward is the forward."""

    @staticmethod
    def forward(ctx, g, plan):
        if ctx is not NO_CTX:
            ctx.plan = plan
        return _make(_apply_adjoint(g._device.backend, g._data, plan), g._device)

    @staticmethod
    def backward(ctx, gg):
        return _NODES["UpsampleBackwardBackward"].apply(gg, ctx.plan), None


_NODES = {}
for _name in ("UpsampleNearest1D", "UpsampleNearest2D", "UpsampleNearest3D", "UpsampleNearestExact1D",
              "UpsampleNearestExact2D", "UpsampleNearestExact3D", "UpsampleLinear1D", "UpsampleBilinear2D",
              "UpsampleBicubic2D", "UpsampleTrilinear3D", "AdaptiveAvgPool3D", "UpsampleBackward"):
    _NODES[_name] = type(_name, (_Interpolate,), {"_node_name": _name + "Backward0"})
_NODES["UpsampleBackwardBackward"] = _NODES.pop("UpsampleBackward")


# ---- F.interpolate: torch's argument handling (torch/nn/functional.py) -----------------------------

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_LETTERS = {1: "W", 2: "HW", 3: "DHW"}
_SCALE_ARGS = {1: "float scales = None", 2: "float scales_h = None, float scales_w = None",
               3: "float scales_d = None, float scales_h = None, float scales_w = None"}


def _type_word(v):
    from .._arg_errors import type_name
    return type_name(v)


def _is_integer(v):
    if isinstance(v, Tensor):
        return not v.dtype.is_floating_point
    return isinstance(v, int) or (hasattr(v, "__index__") and not isinstance(v, float)
                                  and type(v).__module__ == "numpy")


def _native_name(mode, dim):
    return {"nearest": f"upsample_nearest{dim}d", "nearest-exact": f"_upsample_nearest_exact{dim}d",
            "linear": "upsample_linear1d", "bilinear": "upsample_bilinear2d", "bicubic": "upsample_bicubic2d",
            "trilinear": "upsample_trilinear3d"}[mode]


def _native_type_error(mode, dim, output_size, scale_factors, align_corners):
    """torch's argument-parser TypeError for an output size or scale list with wrong-typed items."""
    fn = _native_name(mode, dim)
    ac = mode not in ("nearest", "nearest-exact")

    def desc(v, bad):
        if v is None:
            return "!NoneType!" if bad else "NoneType"
        inner = "list of [" + ", ".join(_type_word(e) for e in v) + "]"
        return f"!{inner}!" if bad else inner

    got = ["Tensor", "list" if output_size is not None else "NoneType"] + (["bool"] if ac else []) + \
          ["list" if scale_factors is not None else "NoneType"]
    marks = ["Tensor", desc(output_size, True)] + (["bool"] if ac else []) + \
            [desc(scale_factors, scale_factors is None or output_size is None)]
    a = "bool align_corners, " if ac else ""
    return TypeError(f"{fn}() received an invalid combination of arguments - got ({', '.join(got)}), but expected "
                     f"one of:\n * (Tensor input, tuple of ints output_size, {a}tuple of floats scale_factors)\n"
                     f"      didn't match because some of the arguments have invalid types: ({', '.join(marks)})\n"
                     f" * (Tensor input, tuple of ints output_size, {a}{_SCALE_ARGS[dim]}, *, Tensor out = None)\n")


def _dtype_error(mode, dim, dtype):
    kernel = {"nearest": "compute_indices_weights_nearest", "nearest-exact": "compute_indices_weights_nearest",
              "linear": "compute_indices_weights_linear", "trilinear": "compute_indices_weights_linear",
              "bicubic": "compute_indices_weights_cubic", "bilinear": "compute_indices_weights_linear"}[mode]
    if dim == 2 and mode in ("nearest", "nearest-exact", "bilinear"):
        kernel = f"upsample_{'bilinear' if mode == 'bilinear' else 'nearest'}2d_channels_last"
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype._legacy[:-len('Tensor')]}'")


def _upsample(input, mode, dim, output_size, scale_factors, align_corners):
    """The native upsample_* function: output size, torch's checks, then one node."""
    spatial = tuple(input._data.shape[2:])
    if output_size is not None and any(not isinstance(s, int) for s in output_size) or \
            scale_factors is not None and any(isinstance(s, (str, bytes)) or s is None for s in scale_factors):
        raise _native_type_error(mode, dim, output_size, scale_factors, align_corners)
    if output_size is None:
        out = tuple(int(n * float(s)) for n, s in zip(spatial, scale_factors))
    else:
        out = tuple(int(s) for s in output_size)
    if min(spatial) <= 0 or min(out) <= 0:
        L = _LETTERS[dim]
        ins = ", ".join(f"{c}: {n}" for c, n in zip(L, spatial))
        outs = ", ".join(f"{c}: {n}" for c, n in zip(L, out))
        sep = " and" if dim == 1 else ""
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}){sep} "
                           f"output ({outs})")
    shape = tuple(input._data.shape)
    if math.prod(shape[:2] + out) * input._data.dtype.itemsize >= 2 ** 63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[{', '.join(map(str, shape[:2] + out))}]")
    if shape[1] == 0:
        raise RuntimeError(f"Non-empty {dim + 2}D data tensor expected but got a tensor with sizes "
                           f"[{', '.join(map(str, shape))}]")
    if not input.dtype.is_floating_point:
        raise _dtype_error(mode, dim, input.dtype)
    scales = None if scale_factors is None else tuple(float(s) for s in scale_factors)
    name = {"nearest": "UpsampleNearest", "nearest-exact": "UpsampleNearestExact", "linear": "UpsampleLinear",
            "bilinear": "UpsampleBilinear", "bicubic": "UpsampleBicubic", "trilinear": "UpsampleTrilinear"}[mode]
    plan = _Plan(input._device.backend, input._data.dtype, mode, spatial, out, bool(align_corners), scales)
    return _NODES[f"{name}{dim}D"].apply(input, plan)


def _adaptive_avg_pool3d(input, output_size):
    """interpolate's area mode for 5-d inputs (torch's adaptive_avg_pool3d), one node."""
    shape = tuple(input._data.shape)
    if any(o < 0 for o in output_size):
        raise RuntimeError("adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{output_size[0]}, {output_size[1]},{output_size[2]}}}")
    for d in range(1, 5):
        if shape[d] == 0:
            raise RuntimeError("adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes [{', '.join(map(str, shape))}] with dimension {d} "
                               "being empty")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"adaptive_avg_pool3d_cpu\" not implemented for "
                                  f"'{input.dtype._legacy[:-len('Tensor')]}'")
    plan = _Plan(input._device.backend, input._data.dtype, "area", shape[2:], tuple(output_size), False, None)
    return _NODES["AdaptiveAvgPool3D"].apply(input, plan)


def _autocast_name(mode, d, antialias):
    """The aten op torch's interpolate reaches for this mode and spatial rank (autocast's name)."""
    if mode == "area":
        return f"adaptive_avg_pool{d}d"
    base = {"nearest": "upsample_nearest", "nearest-exact": "upsample_nearest_exact"}.get(mode, "upsample_" + mode)
    return f"{base}{d}d" + ("_aa" if antialias else "")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """torch.nn.functional.interpolate, without antialias (NotImplementedError)."""
    if not isinstance(input, Tensor):
        raise AttributeError(f"'{type(input).__name__}' object has no attribute 'dim'")
    if _AUTOCAST_ON[0] and (r := _autocast(_autocast_name(mode, input._data.ndim - 2, antialias), interpolate, input, size,
                                           scale_factor, mode, align_corners, recompute_scale_factor, antialias)) is not None:
        return r
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    ndim = input._data.ndim
    dim = ndim - 2
    spatial = list(input._data.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {spatial} and output size of {size}. "
                                 "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}")
            output_size = [int(s) for s in size]
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but "
                                 f"got input with spatial dimensions of {spatial} and "
                                 f"scale_factor of shape {scale_factor}. "
                                 "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input._data.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    if antialias or mode == "lanczos":
        raise NotImplementedError(f"minigrad's interpolate has no antialiased modes (mode='{mode}', "
                                  "antialias=True)")
    nd_of = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
    if 1 <= dim <= 3 and (mode in ("nearest", "nearest-exact") or nd_of.get(mode) == dim):
        return _upsample(input, mode, dim, output_size, scale_factors, align_corners)
    if 1 <= dim <= 3 and mode == "area":
        from .conv import adaptive_avg_pool1d, adaptive_avg_pool2d
        if dim == 3:
            return _adaptive_avg_pool3d(input, output_size)
        return (adaptive_avg_pool1d if dim == 1 else adaptive_avg_pool2d)(input, output_size)
    if 1 <= dim <= 3 and mode in ("linear", "bilinear", "trilinear"):
        need = nd_of[mode]
        raise NotImplementedError(f"Got {ndim}D input, but {mode} mode needs {need + 2}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {ndim}D) for the "
                              f"modes: {_MODES} (got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    import warnings
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    import warnings
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    import warnings
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---- pixel shuffle, pixel unshuffle, channel shuffle: one reshape-permute-copy node each ---------

def _shuffled(be, a, shape, perm, out_shape):
    return be.reshape(be.ascontiguous(be.transpose(be.reshape(be.ascontiguous(a), shape), perm)), out_shape)


def _pixel_shuffle_raw(be, a, r):
    *b, c, h, w = a.shape
    lead = len(b)
    perm = tuple(range(lead)) + (lead, lead + 3, lead + 1, lead + 4, lead + 2)
    return _shuffled(be, a, tuple(b) + (c // (r * r), r, r, h, w), perm, tuple(b) + (c // (r * r), h * r, w * r))


def _pixel_unshuffle_raw(be, a, r):
    *b, c, h, w = a.shape
    lead = len(b)
    perm = tuple(range(lead)) + (lead, lead + 2, lead + 4, lead + 1, lead + 3)
    return _shuffled(be, a, tuple(b) + (c, h // r, r, w // r, r), perm, tuple(b) + (c * r * r, h // r, w // r))


def _channel_shuffle_raw(be, a, groups):
    n, c = a.shape[:2]
    rest = tuple(a.shape[2:])
    return _shuffled(be, a, (n, groups, c // groups) + rest, (0, 2, 1) + tuple(range(3, 3 + len(rest))), a.shape)


class PixelShuffle(Builtin):
    _node_name = "PixelShuffleBackward0"

    @staticmethod
    def forward(ctx, x, r):
        if ctx is not NO_CTX:
            ctx.r = r
        return _make(_pixel_shuffle_raw(x._device.backend, x._data, r), x._device)

    @staticmethod
    def backward(ctx, g):
        return PixelUnshuffle.apply(g, ctx.r), None


class PixelUnshuffle(Builtin):
    _node_name = "PixelUnshuffleBackward0"

    @staticmethod
    def forward(ctx, x, r):
        if ctx is not NO_CTX:
            ctx.r = r
        return _make(_pixel_unshuffle_raw(x._device.backend, x._data, r), x._device)

    @staticmethod
    def backward(ctx, g):
        return PixelShuffle.apply(g, ctx.r), None


class ChannelShuffle(Builtin):
    _node_name = "ChannelShuffleBackward0"

    @staticmethod
    def forward(ctx, x, groups):
        if ctx is not NO_CTX:
            ctx.groups = groups
        return _make(_channel_shuffle_raw(x._device.backend, x._data, groups), x._device)

    @staticmethod
    def backward(ctx, g):
        # the inverse permutation is the shuffle with C / groups groups
        return ChannelShuffle.apply(g, g._data.shape[1] // ctx.groups), None


def _int_arg(v, fn, arg, pos):
    ok = v.__class__ is not bool and not isinstance(v, (float, Tensor)) and hasattr(v, "__index__")
    if not ok:
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be int, not {_type_word(v)}")
    return v.__index__()


def _tensor_arg(x, fn):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {_type_word(x)}")


def pixel_shuffle(input, upscale_factor):
    _tensor_arg(input, "pixel_shuffle")
    r = _int_arg(upscale_factor, "pixel_shuffle", "upscale_factor", 2)
    nd = input._data.ndim
    if nd < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {nd} "
                           "dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c = input._data.shape[-3]
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    return PixelShuffle.apply(input, r)


def pixel_unshuffle(input, downscale_factor):
    _tensor_arg(input, "pixel_unshuffle")
    r = _int_arg(downscale_factor, "pixel_unshuffle", "downscale_factor", 2)
    nd = input._data.ndim
    if nd < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with {nd} "
                           "dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    h, w = input._data.shape[-2:]
    for name, n, d in (("height", h, -2), ("width", w, -1)):
        if n % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({d})={n} is not divisible by {r}")
    return PixelUnshuffle.apply(input, r)


def channel_shuffle(input, groups):
    _tensor_arg(input, "channel_shuffle")
    g = _int_arg(groups, "channel_shuffle", "groups", 2)
    shape = tuple(input._data.shape)
    if len(shape) <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"[{', '.join(map(str, shape))}]")
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{g}")
    if shape[1] % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {shape[1]} channels and {g} groups.")
    return ChannelShuffle.apply(input, g)


# ---- GLU: one node, as torch's glu ------------------------------------------------------------------

class Glu(Builtin):
    """a * sigmoid(b), a and b the halves of x along dim."""
    _node_name = "GluBackward0"

    @staticmethod
    def forward(ctx, x, dim):
        be = x._device.backend
        a, b = be.split(x._data, 2, dim)
        if ctx is not NO_CTX:
            ctx.save_for_backward(x)
            ctx.dim = dim
        return _make(be.mul(a, be.sigmoid(b)), x._device)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        a, b = x.chunk(2, ctx.dim)
        s = b.sigmoid()
        from .join import cat
        return cat([g * s, g * a * s * (1 - s)], ctx.dim), None


def glu(input, dim=-1):
    _tensor_arg(input, "glu")
    d = _int_arg(dim, "glu", "dim", 2)
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if not -nd <= d < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {d})")
    d %= nd
    n = input._data.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"glu_cpu\" not implemented for '{input.dtype._legacy[:-len('Tensor')]}'")
    return Glu.apply(input, d)


# a channels_last(_3d) input gives a result in that format, as torch's
from ..memory_formats import keeps_format as _keeps_format  # noqa: E402
interpolate = _keeps_format(interpolate, (0, "input"))
