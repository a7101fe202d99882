"""F.grid_sample and F.affine_grid (torch's grid_sampler_2d/3d and affine_grid_generator).

grid_sample is composed from minigrad's tensor ops (floor, where, gather, arithmetic), so it
runs on both backends, and wrapped in one Function so that it records one node named as torch's
(GridSampler2DBackward0 / GridSampler3DBackward0). Its backward recomputes the composed forward
with grad enabled and differentiates it: gathers scatter-add the gradient into the input, and
the grid gets the derivative of the interpolation weights. The coordinate rules are torch's
(aten/src/ATen/native/GridSampler.h): unnormalize, then clip (border) or reflect and clip
(reflection), with the gradient of a clip zero on the borders themselves (torch counts them as
outside); nearest rounds half to even (nearbyint) and gives the grid no gradient; bicubic uses
A = -0.75 and pads each of its 16 taps by the padding mode.
"""
import warnings

from .._arg_errors import type_name
from ..autograd.function import Function
from ..tensor import Tensor
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_AC_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
               "Please specify align_corners=True if the old behavior is desired. See the documentation of "
               "grid_sample for details.")


def _sizes(t):
    return "[" + ", ".join(str(s) for s in t._data.shape) + "]"


# ---- coordinate rules -------------------------------------------------------------------------------

def _unnormalize(coord, size, align_corners, vectorized):
    """Grid value in [-1, 1] to a pixel coordinate; the 2-d CPU kernel's vectorized form or the
    generic one (the 3-d kernel), which round differently in the last bit."""
    if vectorized:
        if align_corners:
            return (coord + 1) * ((size - 1) / 2)
        s = size / 2
        return coord * s + (s - 0.5)
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _clip(x, size):
    """min(size - 1, max(x, 0)), with gradient 1 strictly inside (0, size - 1) and 0 elsewhere."""
    inside = (x > 0) & (x < size - 1)
    return x.where(inside, x.detach().clamp(0, size - 1))


def _reflect(x, twice_low, twice_high):
    if twice_low == twice_high:
        return x * 0
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    d = x - lo
    neg = d < 0
    a = d.where(~neg, -d)
    extra = a.fmod(span)
    flips = (a / span).detach().floor()
    odd = flips.fmod(2) != 0
    return (span - extra).where(odd, extra) + lo


def _compute_coordinates(x, size, padding, align_corners):
    if padding == 1:
        return _clip(x, size)
    if padding == 2:
        if align_corners:
            x = _reflect(x, 0, 2 * (size - 1))
        else:
            x = _reflect(x, -1, 2 * size - 1)
        return _clip(x, size)
    return x


# ---- the composed sampler ----------------------------------------------------------------------------

class _Sampler:
    """Gathers input values at integer positions (one tensor per spatial dim), zero where a
    position is outside the input."""

    def __init__(self, input, n_out):
        self.shape = tuple(input._data.shape)
        self.spatial = self.shape[2:]
        N, C = self.shape[:2]
        L = 1
        for n in self.spatial:
            L *= n
        self.flat = input.reshape(N, C, L)
        self.n_out = n_out

    def __call__(self, pos):
        N, C = self.shape[:2]
        mask = None
        lin = None
        stride = 1
        for d in range(len(self.spatial) - 1, -1, -1):
            p, n = pos[d], self.spatial[d]
            ok = (p >= 0) & (p <= n - 1)
            mask = ok if mask is None else mask & ok
            i = p.where(ok, p.new_zeros(())).long() * stride
            lin = i if lin is None else lin + i
            stride *= n
        idx = lin.reshape(N, 1, self.n_out).expand(N, C, self.n_out)
        vals = self.flat.gather(2, idx)
        return vals, mask.reshape(N, 1, self.n_out)


def _linear(sampler, coords):
    """Bilinear / trilinear: the 2^D corners around each point, in torch's order (nw, ne, sw, se)."""
    D = len(coords)
    lows = [c.detach().floor() for c in coords]
    fr = [c - lo for c, lo in zip(coords, lows)]
    out = None
    for corner in range(2 ** D):
        bits = [(corner >> (D - 1 - d)) & 1 for d in range(D)]  # first dim most significant
        pos = [lows[d] + bits[d] for d in range(D)]
        w = None
        for d in range(D):
            wd = fr[d] if bits[d] else 1 - fr[d]
            w = wd if w is None else w * wd
        vals, mask = sampler(pos)
        term = vals * w.reshape(w.shape[0], 1, sampler.n_out)
        term = term.where(mask, term.new_zeros(()))
        out = term if out is None else out + term
    return out


def _nearest(sampler, coords):
    vals, mask = sampler([c.detach().round() for c in coords])
    return vals.where(mask, vals.new_zeros(()))


def _cubic_coeffs(t):
    A = -0.75

    def conv1(x):
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def conv2(x):
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A

    return [conv2(t + 1), conv1(t), conv1(1 - t), conv2(2 - t)]


def _bicubic(sampler, ix, iy, size_w, size_h, padding, align_corners):
    x0, y0 = ix.detach().floor(), iy.detach().floor()
    cx, cy = _cubic_coeffs(ix - x0), _cubic_coeffs(iy - y0)
    n, m = ix.shape[0], sampler.n_out
    xs = [_compute_coordinates(x0 + (i - 1), size_w, padding, align_corners).trunc() for i in range(4)]
    out = None
    for j in range(4):
        py = _compute_coordinates(y0 + (j - 1), size_h, padding, align_corners).trunc()
        row = None
        for i in range(4):
            vals, mask = sampler([py, xs[i]])
            vals = vals.where(mask, vals.new_zeros(()))
            term = vals * cx[i].reshape(n, 1, m)
            row = term if row is None else row + term
        term = row * cy[j].reshape(n, 1, m)
        out = term if out is None else out + term
    return out


def _grid_sample_values(input, grid, mode, padding, align_corners):
    shape = tuple(input._data.shape)
    N, C = shape[:2]
    spatial = shape[2:]
    D = len(spatial)
    out_spatial = tuple(grid._data.shape[1:-1])
    n_out = 1
    for s in out_spatial:
        n_out *= s
    g = grid.reshape(N, n_out, D)
    vec = D == 2
    # grid's last dim is (x, y[, z]): x indexes the last spatial dim
    raw = [g[:, :, D - 1 - d] for d in range(D)]
    sampler = _Sampler(input, n_out)
    if mode == 2:
        ix = _unnormalize(raw[1], spatial[1], align_corners, vec)
        iy = _unnormalize(raw[0], spatial[0], align_corners, vec)
        out = _bicubic(sampler, ix, iy, spatial[1], spatial[0], padding, align_corners)
    else:
        coords = [_compute_coordinates(_unnormalize(raw[d], spatial[d], align_corners, vec), spatial[d], padding,
                                       align_corners) for d in range(D)]
        out = _nearest(sampler, coords) if mode == 1 else _linear(sampler, coords)
    return out.reshape((N, C) + out_spatial)


class _GridSampler(Function):
    @staticmethod
    def forward(ctx, input, grid, mode, padding, align_corners):
        ctx.args = (mode, padding, align_corners)
        ctx.save_for_backward(input, grid)
        return _grid_sample_values(input, grid, mode, padding, align_corners)

    @staticmethod
    def backward(ctx, g):
        from ..autograd import grad as _grad
        from ..autograd.grad_mode import enable_grad, is_grad_enabled
        input, grid = ctx.saved_tensors
        need_x, need_g = ctx.needs_input_grad[:2]
        create = is_grad_enabled()
        with enable_grad():
            x = input if create else input.detach().requires_grad_(need_x)
            gr = grid if create else grid.detach().requires_grad_(need_g)
            out = _grid_sample_values(x, gr, *ctx.args)
            wrt = [t for t, need in ((x, need_x), (gr, need_g)) if need]
            got = list(_grad(out, wrt, g, create_graph=create, allow_unused=True)) if out.requires_grad else [None] * len(wrt)
        res = []
        for t, need in ((input, need_x), (grid, need_g)):
            if not need:
                res.append(None)
                continue
            v = got.pop(0)
            res.append(v if v is not None else t.new_zeros(tuple(t.shape)))
        return res[0], res[1], None, None, None


class GridSampler2D(_GridSampler):
    _node_name = "GridSampler2DBackward0"


class GridSampler3D(_GridSampler):
    _node_name = "GridSampler3DBackward0"


def _check_tensor(v, fn, arg, pos):
    if not isinstance(v, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not {type_name(v)}")


def _check_bool(v, fn, arg, pos):
    if not isinstance(v, bool):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be bool, not {type_name(v)}")


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """torch.grid_sampler: the native function under F.grid_sample (modes and paddings as ints)."""
    _check_tensor(input, "grid_sampler", "input", 1)
    _check_tensor(grid, "grid_sampler", "grid", 2)
    _check_bool(align_corners, "grid_sampler", "align_corners", 5)
    if input.device != grid.device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, but input is on "
                           f"{input.device} and grid is on {grid.device}")
    xs, gs = tuple(input._data.shape), tuple(grid._data.shape)
    if not xs or not gs or xs[0] != gs[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {_sizes(input)} and grid with sizes {_sizes(grid)}")
    if gs[-1] != len(xs) - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {len(xs) - 2} in last dimension, but got "
                           f"grid with sizes {_sizes(grid)}")
    for i in range(2, len(xs)):
        if xs[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                               f"has sizes {_sizes(input)} with dimension {i} being empty")
    two = len(xs) == 4
    want = 4 if two else 5
    if len(xs) != want or len(gs) != want:
        raise RuntimeError(f"grid_sampler(): expected {want}D input and grid with same number of dimensions, but got "
                           f"input with sizes {_sizes(input)} and grid with sizes {_sizes(grid)}")
    if not two and interpolation_mode == 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.dtype.is_floating_point:
        kernel = "grid_sampler_2d_cpu_kernel_impl" if two else "grid_sampler3d_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype._legacy[:-len('Tensor')]}'")
    if grid.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._legacy[:-len('Tensor')]} but found "
                           f"{grid.dtype._legacy[:-len('Tensor')]}")
    cls = GridSampler2D if two else GridSampler3D
    return cls.apply(input, grid, int(interpolation_mode), int(padding_mode), bool(align_corners))


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "grid_sample", grid_sample, input, grid, mode, padding_mode, align_corners)) is not None:
        return r
    if mode not in _MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_AC_WARNING, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _MODES[mode], _PADDINGS[padding_mode], align_corners)


# ---- affine_grid -------------------------------------------------------------------------------------

def _linspace_from_neg_one(theta, n, align_corners):
    from ..creation import linspace
    if n <= 1:
        return theta.new_zeros(())
    r = linspace(-1, 1, n, dtype=theta.dtype, device=theta.device)
    if not align_corners:
        r = r * (n - 1) / n
    return r


def _base_grid(theta, size, align_corners):
    """(N, *spatial, D + 1): the normalized coordinates (x, y[, z]) of each output point and a 1."""
    N = size[0]
    spatial = tuple(size[2:])
    D = len(spatial)
    parts = []
    for k in range(D):  # k = 0 is x (the last spatial dim)
        d = D - 1 - k
        r = _linspace_from_neg_one(theta, spatial[d], align_corners)
        view = [1] * D
        view[d] = -1 if spatial[d] > 1 else 1
        parts.append(r.reshape(view).expand(*spatial))
    parts.append(theta.new_ones(spatial))
    from .join import stack
    base = stack(parts, -1)
    return base.unsqueeze(0).expand(N, *spatial, D + 1)


class AffineGridGenerator(Function):
    _node_name = "AffineGridGeneratorBackward0"

    @staticmethod
    def forward(ctx, theta, size, align_corners):
        base = _base_grid(theta, size, align_corners)
        N, spatial, D = size[0], tuple(size[2:]), len(size) - 2
        n = 1
        for s in spatial:
            n *= s
        ctx.base, ctx.shape = base, (N, n, D + 1)
        grid = base.reshape(N, n, D + 1).bmm(theta.transpose(1, 2))
        return grid.reshape(N, *spatial, D)

    @staticmethod
    def backward(ctx, g):
        N, n, k = ctx.shape
        base = ctx.base.reshape(N, n, k)
        gt = base.transpose(1, 2).bmm(g.reshape(N, n, k - 1))
        return gt.transpose(1, 2), None, None


def affine_grid_generator(theta, size, align_corners):
    _check_tensor(theta, "affine_grid_generator", "theta", 1)
    _check_bool(align_corners, "affine_grid_generator", "align_corners", 3)
    size = tuple(int(s) for s in size)
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    D = len(size) - 2
    tn = theta._data.shape[0] if theta._data.ndim else 0
    if theta._data.ndim != 3 or tn != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, {D + 1}] "
                           f"but got: [{tn}, {theta._data.shape[2] if theta._data.ndim == 3 else 0}].")
    return AffineGridGenerator.apply(theta, size, bool(align_corners))


def affine_grid(theta, size, align_corners=None):
    if align_corners is None:
        warnings.warn(_AC_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                             f"Got {theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                             f"Got {theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the "
                      "documentation of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)
