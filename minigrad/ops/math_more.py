"""The rest of the math PyTorch users reach for, with torch's API, dtypes, nodes and gradients.

- Float functions with their own kernels (elementwise.cu's MATH_MORE_KERNELS): tan, asin, acos,
  atan, sinh, cosh, asinh, acosh, atanh, log2, log10, exp2, rsqrt; atan2, hypot, logaddexp,
  logaddexp2, copysign, xlogy. Integer and bool inputs are computed in the default float dtype,
  as torch's float functions do (hypot, logaddexp and logaddexp2 refuse them, as torch).
- Composed from recorded ops and existing primitives: sinc, deg2rad, rad2deg, square_, heaviside,
  roll, rot90, diff, meshgrid, cartesian_prod, tensordot, kron, cross / linalg.cross, addmm,
  addmv, baddbmm, addbmm, nansum, nanmean, median, nanmedian, quantile, nanquantile, mode,
  logcumsumexp, aminmax.
"""
import math
import warnings
from collections import namedtuple
from numbers import Number

from .._arg_errors import ArgTypeError, call_error
from .._typename import typename
from ..autograd.function import Function, apply_unary
from ..dtypes import bool_, get_default_dtype, int64
from ..tensor import Tensor, _make, _wrap_dim
from . import elementwise as ew
from .broadcast import sum_to
from .composed import _inplace_unary
from .division import _NotDifferentiable
from .inplace import inplace
from .reduce import normalize_dims
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _tensor(x, op, arg="input", pos=1):
    if not isinstance(x, Tensor):
        where = f" (position {pos})" if pos else ""
        raise TypeError(f"{op}(): argument '{arg}'{where} must be Tensor, not {typename(type(x))}")
    return x


def _legacy(t):
    return t.dtype._legacy[:-6]   # 'Long' from 'LongTensor'


class _Composed(Function):
    """An op whose forward is written in Tensor ops (run under no_grad) and recorded as one node
    with torch's name."""


# ---- unary float functions (their own kernels) ----------------------------------------------------

def _unary_cls(node, prim, saves_output, grad):
    base = ew._SavesOutput if saves_output else ew._SavesInput
    return type(node[:-len("Backward0")], (base,), {
        "_node_name": node, "_prim": prim,
        "backward": staticmethod(lambda ctx, g: grad(ctx.saved_tensors[0], g))})


UNARY = {
    "tan": _unary_cls("TanBackward0", "tan", True, lambda out, g: g * (out * out + 1)),
    "asin": _unary_cls("AsinBackward0", "asin", False, lambda x, g: g * (-x * x + 1).rsqrt()),
    "acos": _unary_cls("AcosBackward0", "acos", False, lambda x, g: g * -((-x * x + 1).rsqrt())),
    "atan": _unary_cls("AtanBackward0", "atan", False, lambda x, g: g / (x * x + 1)),
    "sinh": _unary_cls("SinhBackward0", "sinh", False, lambda x, g: g * x.cosh()),
    "cosh": _unary_cls("CoshBackward0", "cosh", False, lambda x, g: g * x.sinh()),
    "asinh": _unary_cls("AsinhBackward0", "asinh", False, lambda x, g: g * (x * x + 1).rsqrt()),
    "acosh": _unary_cls("AcoshBackward0", "acosh", False, lambda x, g: g * (x * x - 1).rsqrt()),
    "atanh": _unary_cls("AtanhBackward0", "atanh", False, lambda x, g: g / (1 - x * x)),
    "log2": _unary_cls("Log2Backward0", "log2", False, lambda x, g: g / (x * _LN2)),
    "log10": _unary_cls("Log10Backward0", "log10", False, lambda x, g: g / (x * _LN10)),
    "exp2": _unary_cls("Exp2Backward0", "exp2", True, lambda out, g: g * out * _LN2),
    "rsqrt": _unary_cls("RsqrtBackward0", "rsqrt", True, lambda out, g: g * -0.5 * (out * out * out)),
}
ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
           "arctanh": "atanh", "arctan2": "atan2"}


def _unary_method(cls):
    return lambda self: ew.unary_float(cls, self)


# ---- binary float functions (their own kernels) ---------------------------------------------------

class _Binary(ew.Builtin):
    """a (op) b for a Tensor a and a Tensor-or-number b already of one float dtype."""
    _prim = None

    @classmethod
    def forward(cls, ctx, a, b):
        out = ew._apply_binary(getattr(a._device.backend, cls._prim), a, b)
        if ctx.needs_input_grad and (ctx.needs_input_grad[0] or ctx.needs_input_grad[1]):
            ctx.shapes = (a._data.shape, ew._shape(b))
            ctx.b_number = None if isinstance(b, Tensor) else b
            ctx.save_for_backward(a, *((b,) if isinstance(b, Tensor) else ()), out)
        return out

    @classmethod
    def backward(cls, ctx, g):
        saved = ctx.saved_tensors
        a, out = saved[0], saved[-1]
        b = saved[1] if ctx.b_number is None else ctx.b_number
        ga, gb = cls.grads(a, b, out, g, ctx.needs_input_grad)
        na, nb = ctx.needs_input_grad
        return (sum_to(ga, ctx.shapes[0]) if na else None), (sum_to(gb, ctx.shapes[1]) if nb else None)


class Atan2(_Binary):
    _node_name, _prim = "Atan2Backward0", "atan2"

    @staticmethod
    def grads(a, b, out, g, needs):
        den = a * a + b * b
        # at the origin torch's gradient is 0, not 0 * inf
        recip = ew.where(den == 0, 0.0, den.reciprocal())
        return g * b * recip, g * -a * recip


class Hypot(_Binary):
    _node_name, _prim = "HypotBackward0", "hypot"

    @staticmethod
    def grads(a, b, out, g, needs):
        return g * a / out, g * b / out


class Logaddexp(_Binary):
    _node_name, _prim = "LogaddexpBackward0", "logaddexp"

    @staticmethod
    def grads(a, b, out, g, needs):
        return g / ((b - a).exp() + 1), g / ((a - b).exp() + 1)


class Logaddexp2(_Binary):
    _node_name, _prim = "Logaddexp2Backward0", "logaddexp2"

    @staticmethod
    def grads(a, b, out, g, needs):
        return g / ((b - a).exp2() + 1), g / ((a - b).exp2() + 1)


class Copysign(_Binary):
    """copysign(a, b): the gradient is g * out / a (0 where a == 0) for a, zeros for b (torch's)."""
    _node_name, _prim = "CopysignBackward0", "copysign"

    @staticmethod
    def grads(a, b, out, g, needs):
        ratio = (out / a).masked_fill(a == 0, 0)
        gb = _make(g._device.backend.zeros(b.shape, g._data.dtype), g._device) if needs[1] else None
        return g * ratio, gb


class CopysignScalar(Copysign):
    _node_name = "CopysignBackward1"


class Xlogy(_Binary):
    """x * log(y): g * log(y) for x (0 where x == 0 and y <= 0), g * x / y for y (torch's)."""
    _node_name, _prim = "XlogyBackward0", "xlogy"

    @staticmethod
    def grads(a, b, out, g, needs):
        ga = gb = None
        if needs[0]:
            bt = b if isinstance(b, Tensor) else ew._scalar_tensor(b, g).to(g.dtype)
            ga = xlogy(g, bt).masked_fill((a == 0) & (bt <= 0), 0)
        if needs[1]:
            gb = g * a / b
        return ga, gb


class XlogyScalarSelf(Xlogy):
    _node_name = "XlogyBackward1"


class XlogyScalarOther(Xlogy):
    _node_name = "XlogyBackward2"


BINARY = {"atan2": Atan2, "hypot": Hypot, "logaddexp": Logaddexp, "logaddexp2": Logaddexp2,
          "copysign": Copysign, "xlogy": Xlogy}
_FLOAT_ONLY = ("hypot", "logaddexp", "logaddexp2")   # torch's kernels refuse integers and bools
_SCALAR_OTHER = {"copysign": CopysignScalar, "xlogy": XlogyScalarOther}


def _is_number(x):
    return isinstance(x, Number) and not isinstance(x, complex)


def _call_error(name, method, args):
    from .._arg_errors import call_error
    return call_error(name, method, args)


def binary(name, a, b, method, shown=None):
    """torch.<name>(a, b) for a Tensor a; method: the Tensor method's errors (other at position 1);
    shown: the name torch's errors give (an alias's own, arctan2)."""
    if _AUTOCAST_ON[0] and (r := _autocast(name, binary, name, a, b, method, shown)) is not None:
        return r  # atan2: promote
    cls = BINARY[name]
    if not isinstance(b, Tensor):
        if name in _SCALAR_OTHER and _is_number(b):
            cls = _SCALAR_OTHER[name]
        elif name in _SCALAR_OTHER:
            raise _call_error(shown or name, method, (b,) if method else (a, b))
        else:
            raise TypeError(f"{shown or name}(): argument 'other' (position {1 if method else 2}) must be Tensor, "
                            f"not {typename(type(b))}")
    if name in _FLOAT_ONLY:
        ops = ew._operands(a, b)
        if ops[0]._data.dtype.kind != "f":
            raise NotImplementedError(f"\"{name}_{a._device.type}\" not implemented for '{_legacy(ops[0])}'")
        return ew.binary(cls, *ops)
    return ew.binary(cls, a, b, True)


def xlogy(input, other):
    """torch.xlogy: a number on either side (a number first is a 0-d tensor of its type)."""
    if isinstance(input, Tensor):
        return binary("xlogy", input, other, False)
    if _is_number(input) and isinstance(other, Tensor):
        return ew.binary(XlogyScalarSelf, ew._scalar_tensor(input, other), other, True)
    raise _call_error("xlogy", False, (input, other))


def _binary_function(name, shown):
    def fn(input, other):
        if name == "xlogy":
            return xlogy(input, other)
        if name == "copysign" and not isinstance(input, Tensor):
            raise _call_error("copysign", False, (input, other))
        return binary(name, _tensor(input, shown), other, False, shown)
    fn.__name__ = fn.__qualname__ = shown
    return fn


def _binary_method(name, shown):
    return lambda self, other: binary(name, self, other, True, shown)


def _binary_inplace(name, shown):
    def method(self, other):
        if not isinstance(other, Tensor):
            if name not in _SCALAR_OTHER:
                raise TypeError(f"{shown}_(): argument 'other' (position 1) must be Tensor, not "
                                f"{typename(type(other))}")
            if not _is_number(other):
                raise _call_error(shown + "_", True, (other,))
        return inplace(self, lambda t: binary(name, t, other, True, shown), other)
    return method


# ---- elementwise, composed ------------------------------------------------------------------------

def _float(a):
    return a if a.is_floating_point() else a.to(get_default_dtype())


class Sinc(ew.Builtin):
    """sin(pi x) / (pi x), 1 at 0; torch's gradient (cos(pi x) pi x - sin(pi x)) / (pi x^2), 0 at 0."""
    _node_name = "SincBackward0"

    @staticmethod
    def forward(ctx, a):
        be, x = a._device.backend, a._data
        px = be.mul(x, math.pi)
        out = be.where(be.eq(x, 0), be.full((), 1, x.dtype), be.div(be.sin(px), px))
        ctx.save_for_backward(a)
        return _make(out, a._device)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        px = x * math.pi
        return g * ((px * px.cos() - px.sin()) / (x * x * math.pi)).masked_fill(x == 0, 0)


class _Scale(ew.Builtin):
    _factor = None

    @classmethod
    def forward(cls, ctx, a):
        return _make(a._device.backend.mul(a._data, cls._factor), a._device)

    @classmethod
    def backward(cls, ctx, g):
        return g * cls._factor


class Deg2Rad(_Scale):
    _node_name, _factor = "Deg2RadBackward0", math.pi / 180


class Rad2Deg(_Scale):
    _node_name, _factor = "Rad2DegBackward0", 180 / math.pi


class Heaviside(_NotDifferentiable):
    _node_name = _NotDifferentiable._node_name
    _aten = "heaviside"

    @classmethod
    def forward(cls, ctx, a, values):
        be = a._device.backend
        pos = be.astype(be.gt(a._data, 0), a._data.dtype)
        return _make(be.where(be.eq(a._data, 0), values._data, pos), a._device)


def heaviside(input, values):
    _tensor(input, "heaviside")
    _tensor(values, "heaviside", "values", 2)
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    if input._device is not values._device:
        raise ew.device_error(input, values)
    return Heaviside.apply(input, values)


# ---- shape ops ------------------------------------------------------------------------------------

def _int_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


class Roll(_Composed):
    _node_name = "RollBackward0"

    @staticmethod
    def forward(ctx, a, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        return _roll_values(a, shifts, dims)

    @staticmethod
    def backward(ctx, g):
        return roll(g, tuple(-s for s in ctx.shifts), ctx.dims), None, None


def _roll_values(a, shifts, dims):
    from ..functional import cat
    if dims is None:
        return _roll_values(a.flatten(), shifts, (0,)).reshape(a.shape)
    out = a
    for s, d in zip(shifts, dims):
        n = out.shape[d]
        s = s % n if n else 0
        if s:
            out = cat([out.narrow(d, n - s, s), out.narrow(d, 0, n - s)], d)
    return out if out is not a else a.clone()


def roll(input, shifts, dims=None):
    _tensor(input, "roll")
    shifts = _int_tuple(shifts)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return Roll.apply(input, shifts, None)
    dims = _int_tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    dims = tuple(_wrap_dim(d, input.ndim) for d in dims)
    return Roll.apply(input, shifts, dims)


class Rot90(_Composed):
    _node_name = "Rot90Backward0"

    @staticmethod
    def forward(ctx, a, k, dims):
        ctx.k, ctx.dims = k, dims
        d0, d1 = dims
        if k == 1:
            return a.flip(d1).transpose(d0, d1).clone()
        if k == 2:
            return a.flip((d0, d1))
        if k == 3:
            return a.flip(d0).transpose(d0, d1).clone()
        return a.clone()

    @staticmethod
    def backward(ctx, g):
        return rot90(g, -ctx.k, ctx.dims), None, None


def rot90(input, k=1, dims=(0, 1)):
    _tensor(input, "rot90")
    dims = _int_tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = (_wrap_dim(d, input.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    return Rot90.apply(input, k % 4, (d0, d1))


def diff(input, n=1, dim=-1, prepend=None, append=None):
    _tensor(input, "diff")
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = _wrap_dim(dim, input.ndim)
    parts = []
    for extra, label in ((prepend, "prepend"), (append, "append")):
        if extra is not None:
            if not isinstance(extra, Tensor):
                raise TypeError(f"diff(): argument '{label}' must be Tensor, not {typename(type(extra))}")
            if extra.ndim != input.ndim:
                raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        parts.append(extra)
    if parts[0] is not None or parts[1] is not None:
        from ..functional import cat
        input = cat([t for t in (parts[0], input, parts[1]) if t is not None], dim)
    out = input
    for _ in range(n):
        size = out.shape[dim]
        if size == 0:
            break
        hi, lo = out.narrow(dim, 1, size - 1), out.narrow(dim, 0, size - 1)
        out = hi.logical_xor(lo) if out._data.dtype.kind == "b" else hi - lo
    return out


def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        _tensor(t, "meshgrid", "tensors", 1)
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t._device is not tensors[0]._device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    swap = indexing == "xy" and len(tensors) >= 2
    ts = list(tensors)
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.numel() for t in ts)
    outs = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        outs.append(t.reshape(*view).expand(*shape))
    if swap:
        outs[0], outs[1] = outs[1], outs[0]
    return tuple(outs)


def cartesian_prod(*tensors):
    for t in tensors:
        _tensor(t, "cartesian_prod", "tensors", 1)
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    from ..functional import stack
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.flatten() for g in grids], 1)


def tensordot(a, b, dims=2, out=None):
    if _AUTOCAST_ON[0] and (r := _autocast("tensordot", tensordot, a, b, dims, out)) is not None:
        return r
    _tensor(a, "tensordot", "a")
    _tensor(b, "tensordot", "b", 2)
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.ndim or dims > b.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(-dims, 0)), list(range(dims))
    else:
        da, db = dims
        da, db = list(_int_tuple(da)), list(_int_tuple(db))
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    if a._device is not b._device:
        raise ew.device_error(a, b)
    for x, y in zip(da, db):
        sa, sb = a.shape[_wrap_dim(x, a.ndim)], b.shape[_wrap_dim(y, b.ndim)]
        if sa != sb:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {sa} in dim {x} and "
                               f"second has size {sb} in dim {y}")
    da = [_wrap_dim(d, a.ndim) for d in da]
    db = [_wrap_dim(d, b.ndim) for d in db]
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    k = 1
    for d in da:
        k *= a.shape[d]
    m = 1
    for d in free_a:
        m *= a.shape[d]
    n = 1
    for d in free_b:
        n *= b.shape[d]
    left = a.permute(*free_a, *da).reshape(m, k)
    right = b.permute(*db, *free_b).reshape(k, n)
    return left.mm(right).reshape(*[a.shape[d] for d in free_a], *[b.shape[d] for d in free_b])


def kron(input, other):
    _tensor(input, "kron")
    _tensor(other, "kron", "other", 2)
    nd = max(input.ndim, other.ndim)
    a = input.reshape(*([1] * (nd - input.ndim)), *input.shape)
    b = other.reshape(*([1] * (nd - other.ndim)), *other.shape)
    a_view, b_view = [], []
    for sa, sb in zip(a.shape, b.shape):
        a_view += [sa, 1]
        b_view += [1, sb]
    prod = a.reshape(*a_view) * b.reshape(*b_view)
    return prod.reshape(*[sa * sb for sa, sb in zip(a.shape, b.shape)])


class LinalgCross(_Composed):
    _node_name = "LinalgCrossBackward0"

    @staticmethod
    def forward(ctx, a, b, dim):
        ctx.dim = dim
        ctx.save_for_backward(a, b)
        return _cross_values(a, b, dim)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        na, nb, _ = ctx.needs_input_grad
        return (sum_to(_cross_values(b, g, ctx.dim), a.shape) if na else None,
                sum_to(_cross_values(g, a, ctx.dim), b.shape) if nb else None, None)


def _cross_values(a, b, dim):
    from ..functional import stack
    shape = ew.broadcast_shape(a.shape, b.shape)
    a, b = a.expand(*shape), b.expand(*shape)
    a0, a1, a2 = (a.narrow(dim, i, 1).squeeze(dim) for i in range(3))
    b0, b1, b2 = (b.narrow(dim, i, 1).squeeze(dim) for i in range(3))
    return stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim)


def linalg_cross(input, other, *, dim=-1):
    _tensor(input, "linalg_cross")
    _tensor(other, "linalg_cross", "other", 2)
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {_legacy(input)} but found {_legacy(other)}")
    if input._device is not other._device:
        raise ew.device_error(input, other)
    d = _wrap_dim(dim, input.ndim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
                           f"{other.shape[d]}")
    ew.broadcast_shape(input.shape, other.shape)
    return LinalgCross.apply(input, other, d)


def cross(input, other, dim=None):
    if _AUTOCAST_ON[0] and (r := _autocast("cross", cross, input, other, dim)) is not None:
        return r
    if dim is None:
        _tensor(input, "cross")
        _tensor(other, "cross", "other", 2)
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        shape = ew.broadcast_shape(input.shape, other.shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), -1)
    return linalg_cross(input, other, dim=dim)


# ---- matrix products with an added input ----------------------------------------------------------

class _AddProduct(_Composed):
    """beta * input + alpha * product(m1, m2), torch's addmm family (beta == 0 ignores input,
    NaN included)."""

    @classmethod
    def forward(cls, ctx, inp, m1, m2, beta, alpha):
        ctx.beta, ctx.alpha = beta, alpha
        ctx.save_for_backward(m1, m2)
        ctx.in_shape = inp.shape
        prod = cls.product(m1, m2)
        if alpha != 1:
            prod = prod * alpha
        shape = ew.broadcast_shape(inp.shape, prod.shape)
        if tuple(shape) != tuple(prod.shape):
            inp.expand(*prod.shape)   # torch's expand error
        if beta == 0:
            return prod
        return (inp if beta == 1 else inp * beta) + prod

    @classmethod
    def backward(cls, ctx, g):
        m1, m2 = ctx.saved_tensors
        ni, n1, n2 = ctx.needs_input_grad[:3]
        gi = sum_to(g * ctx.beta, ctx.in_shape) if ni else None
        g1, g2 = cls.grads(g, m1, m2, n1, n2)
        if ctx.alpha != 1:
            g1 = g1 * ctx.alpha if g1 is not None else None
            g2 = g2 * ctx.alpha if g2 is not None else None
        return gi, g1, g2, None, None


class Addmm(_AddProduct):
    _node_name = "AddmmBackward0"
    product = staticmethod(lambda a, b: a.mm(b))

    @staticmethod
    def grads(g, m1, m2, n1, n2):
        return (g.mm(m2.t()) if n1 else None), (m1.t().mm(g) if n2 else None)


class Addmv(_AddProduct):
    _node_name = "AddmvBackward0"
    product = staticmethod(lambda a, b: a.mv(b))

    @staticmethod
    def grads(g, m, v, n1, n2):
        return (g.reshape(-1, 1) * v.reshape(1, -1) if n1 else None), (m.t().mv(g) if n2 else None)


class Baddbmm(_AddProduct):
    _node_name = "BaddbmmBackward0"
    product = staticmethod(lambda a, b: a.bmm(b))

    @staticmethod
    def grads(g, m1, m2, n1, n2):
        return (g.bmm(m2.transpose(1, 2)) if n1 else None), (m1.transpose(1, 2).bmm(g) if n2 else None)


class Addbmm(_AddProduct):
    _node_name = "AddbmmBackward0"
    product = staticmethod(lambda a, b: a.bmm(b).sum(0))

    @staticmethod
    def grads(g, m1, m2, n1, n2):
        ge = g.unsqueeze(0).expand(m1.shape[0], *g.shape)
        return (ge.bmm(m2.transpose(1, 2)) if n1 else None), (m1.transpose(1, 2).bmm(ge) if n2 else None)


def _add_product(cls, name, input, m1, m2, beta, alpha):
    _tensor(input, name)
    _tensor(m1, name, "mat1" if name == "addmm" else "mat" if name == "addmv" else "batch1", 2)
    _tensor(m2, name, "mat2" if name == "addmm" else "vec" if name == "addmv" else "batch2", 3)
    if name == "addmm":
        for t, label in ((m1, "mat1"), (m2, "mat2")):
            if t.ndim != 2:
                raise RuntimeError(f"{label} must be a matrix, got {t.ndim}-D tensor")
        if m1.shape[1] != m2.shape[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m1.shape[0]}x{m1.shape[1]} and "
                               f"{m2.shape[0]}x{m2.shape[1]})")
    elif name == "addmv":
        if m1.ndim != 2 or m2.ndim != 1 or input.ndim > 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {m1.ndim}, {m2.ndim}")
        if m1.shape[1] != m2.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.ndim else 1}), mat "
                               f"({m1.shape[0]}x{m1.shape[1]}), vec ({m2.shape[0]})")
    else:
        for t, label in ((m1, "batch1"), (m2, "batch2")):
            if t.ndim != 3:
                raise RuntimeError(f"{label} must be a 3D tensor")
        target = (m1.shape[1], m2.shape[2]) if name == "addbmm" else (m1.shape[0], m1.shape[1], m2.shape[2])
        input.expand(*target)   # torch checks the input against the result's shape first
        if m1.shape[0] != m2.shape[0] or m1.shape[2] != m2.shape[1]:
            raise RuntimeError(f"Incompatible matrix sizes for bmm ({m1.shape[1]}x{m1.shape[2]} and "
                               f"{m2.shape[1]}x{m2.shape[2]})")
    return cls.apply(input, m1, m2, beta, alpha)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    if _AUTOCAST_ON[0] and (r := _autocast("addmm", addmm, input, mat1, mat2, beta=beta, alpha=alpha)) is not None:
        return r
    return _add_product(Addmm, "addmm", input, mat1, mat2, beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    if _AUTOCAST_ON[0] and (r := _autocast("addmv", addmv, input, mat, vec, beta=beta, alpha=alpha)) is not None:
        return r
    return _add_product(Addmv, "addmv", input, mat, vec, beta, alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "baddbmm", baddbmm, input, batch1, batch2, beta=beta, alpha=alpha)) is not None:
        return r
    return _add_product(Baddbmm, "baddbmm", input, batch1, batch2, beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "addbmm", addbmm, input, batch1, batch2, beta=beta, alpha=alpha)) is not None:
        return r
    return _add_product(Addbmm, "addbmm", input, batch1, batch2, beta, alpha)


# ---- reductions -----------------------------------------------------------------------------------

class Nansum(_Composed):
    _node_name = "NansumBackward0"

    @staticmethod
    def forward(ctx, a, dim, keepdim, dtype):
        ctx.save_for_backward(a)
        ctx.dims, ctx.keepdim = normalize_dims(dim, a.ndim, "nansum"), keepdim
        clean = a.masked_fill(a.isnan(), 0) if a.is_floating_point() else a
        return clean.sum(ctx.dims, keepdim=keepdim, dtype=dtype) if ctx.dims else clean.to(
            dtype or clean.dtype).clone()

    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        if not ctx.keepdim:
            for d in ctx.dims:
                g = g.unsqueeze(d)
        return (g.expand(a.shape) * a.isnan().logical_not()).to(a.dtype), None, None, None


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    _tensor(input, "nansum")
    if input._data.dtype.kind in "biu" and dtype is None:  # integers sum as int64, as sum's
        dtype = int64
    elif dtype is not None and input._requires_grad:
        from .reduce import check_autograd_dtype
        check_autograd_dtype(dtype)
    return Nansum.apply(input, dim, keepdim, dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    _tensor(input, "nanmean")
    if not input.is_floating_point():
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_legacy(input)}")
    count = input.isnan().logical_not().sum(dim if dim is not None else (), keepdim=keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def _return_type(name, fields=("values", "indices")):
    def __repr__(self):
        body = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"minigrad.return_types.{name}(\n{body})"
    return type(name, (namedtuple(name, list(fields)),), {"__slots__": (), "__repr__": __repr__})


return_types_median = _return_type("median")
return_types_nanmedian = _return_type("nanmedian")
return_types_mode = _return_type("mode")
return_types_aminmax = _return_type("aminmax", ("min", "max"))


class _EvenlyDistributed(_Composed):
    """A value of the whole tensor (median()): the gradient is shared evenly among the elements
    equal to it (NaN counting as equal to NaN), as torch's evenly_distribute_backward."""

    @classmethod
    def forward(cls, ctx, a):
        out = cls.value(a)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        mask = (a == out) | (a.isnan() & out.isnan()) if a.is_floating_point() else a == out
        return mask.to(g.dtype) * (g / mask.sum().to(g.dtype))


def _sorted_flat(a):
    return a.flatten().sort()[0]


def _empty_median(a):
    """torch's median of no elements: NaN, which its integer dtypes hold as the C conversion of
    NaN leaves it (the lowest value of int32/int64; 0 in the narrower types)."""
    dt = a._data.dtype
    if dt.kind == "f" or dt.char == "H":
        value = float("nan")
    else:
        value = -(1 << (8 * dt.itemsize - 1)) if dt.kind == "i" and dt.itemsize >= 4 else 0
    return _make(a._device.backend.full((), value, dt), a._device)


class Median(_EvenlyDistributed):
    _node_name = "MedianBackward0"

    @staticmethod
    def value(a):
        n = a.numel()
        if n == 0:
            return _empty_median(a)
        return _sorted_flat(a)[(n - 1) // 2].clone()   # NaN sorts last: one NaN makes the last the pick


class Nanmedian(_EvenlyDistributed):
    _node_name = "NanmedianBackward0"

    @staticmethod
    def value(a):
        n = a.numel()
        if n == 0:
            return _empty_median(a)
        valid = n - int(a.isnan().sum().item()) if a.is_floating_point() else n
        return _sorted_flat(a)[max(valid - 1, 0) // 2].clone()


class _Selected(_Composed):
    """(values, indices) of one element per slice along dim: the gradient goes to that element."""

    @classmethod
    def forward(cls, ctx, a, dim, keepdim):
        if not a.ndim:  # a 0-d tensor is its own one slice
            values, indices = a.clone(), _make(a._device.backend.zeros((), "int64"), a._device)
        else:
            values, indices = cls.select(a, dim)
        ctx.shape, ctx.dim, ctx.keepdim = a.shape, dim, keepdim
        ctx.indices = indices
        if not keepdim and a.ndim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
        ctx.mark_non_differentiable(indices)
        return values, indices

    @staticmethod
    def backward(ctx, g, _gi):
        if not ctx.keepdim and len(ctx.shape):
            g = g.unsqueeze(ctx.dim)
        be = g._device.backend
        zeros = _make(be.zeros(tuple(ctx.shape), g._data.dtype), g._device)
        if not len(ctx.shape):
            return g + zeros, None, None
        return zeros.scatter(ctx.dim, ctx.indices, g), None, None


def _pick_sorted(a, dim, position):
    """values and indices at position (a tensor of per-slice positions, keepdim shape) of a's
    stable ascending sort along dim."""
    values, indices = a.sort(dim=dim, stable=True)
    return values.gather(dim, position), indices.gather(dim, position)


def _slices_nan(a, dim):
    return a.isnan().sum(dim, keepdim=True) if a.is_floating_point() else None


class MedianDim(_Selected):
    _node_name = "MedianBackward1"

    @staticmethod
    def select(a, dim):
        n = a.shape[dim]
        nans = _slices_nan(a, dim)
        pos = ew._scalar_tensor((n - 1) // 2, a).to(int64).expand(*_kept(a.shape, dim))
        if nans is not None:   # a slice with NaN gives its first NaN, which sorts after every number
            pos = (nans > 0).to(int64) * (n - nans - pos) + pos
        return _pick_sorted(a, dim, pos.contiguous())


class NanmedianDim(_Selected):
    _node_name = "NanmedianBackward1"

    @staticmethod
    def select(a, dim):
        n = a.shape[dim]
        nans = _slices_nan(a, dim)
        valid = ew._scalar_tensor(n, a).to(int64).expand(*_kept(a.shape, dim)) if nans is None else n - nans
        pos = (valid - 1).clamp(min=0) // 2
        return _pick_sorted(a, dim, pos.contiguous())


def _kept(shape, dim):
    return tuple(1 if i == dim else s for i, s in enumerate(shape))


def _median(cls_all, cls_dim, rtype, name, input, dim, keepdim):
    _tensor(input, name)
    if dim is None:
        if input.dtype is bool_:
            if input.numel():
                raise NotImplementedError(f"\"median_{input.device.type}\" not implemented for 'Bool'")
            return _make(input._device.backend.full((), True, "bool"), input._device)  # (torch's NaN as a bool)
        return cls_all.apply(input)
    d = _wrap_dim(dim, input.ndim)
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")  # nanmedian's too
    if input.dtype is bool_:
        raise NotImplementedError("\"median_out\" not implemented for 'Bool'")
    return rtype(*cls_dim.apply(input, d, keepdim))


def median(input, dim=None, keepdim=False):
    return _median(Median, MedianDim, return_types_median, "median", input, dim, keepdim)


def nanmedian(input, dim=None, keepdim=False):
    return _median(Nanmedian, NanmedianDim, return_types_nanmedian, "nanmedian", input, dim, keepdim)


class Mode(_Selected):
    """The most frequent value of each slice (the smallest of equally frequent ones) and the last
    index holding it, as torch's CPU kernel."""
    _node_name = "ModeBackward0"

    @staticmethod
    def select(a, dim):
        from ..functional import cat
        n = a.shape[dim]
        s = a.sort(dim=dim, stable=True)[0]
        # run lengths in the sorted slice: count how far each run extends with a cumulative sum of
        # run starts, then the run of the most elements (first of equal ones: the smallest value)
        starts = cat([ew._scalar_tensor(True, a).expand(*_kept(a.shape, dim)),
                      s.narrow(dim, 1, n - 1) != s.narrow(dim, 0, n - 1)], dim)
        run = starts.to(int64).cumsum(dim)                         # run id (from 1) at each position
        ones = run * 0 + 1
        per_run = (run * 0).scatter_add(dim, run - 1, ones)       # elements per run id
        best = per_run.argmax(dim, keepdim=True)                   # first largest run: smallest value
        pos = (run == best + 1).to(int64).argmax(dim, keepdim=True)   # where that run starts
        value = s.gather(dim, pos)
        idx = ew._scalar_tensor(0, a).to(int64) + _arange_along(a, dim)
        hits = (a == value)
        last = (idx * hits.to(int64) + (hits.logical_not().to(int64) * -1)).amax(dim, keepdim=True)
        return value, last


def _arange_along(a, dim):
    from ..creation import arange
    r = arange(a.shape[dim], device=a.device)
    return r.reshape(*[-1 if i == dim else 1 for i in range(a.ndim)]).expand(*a.shape)


def mode(input, dim=-1, keepdim=False):
    _tensor(input, "mode")
    d = _wrap_dim(dim, input.ndim)
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    return return_types_mode(*Mode.apply(input, d, keepdim))


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(op, input, q, dim, keepdim, interpolation, ignore_nan):
    _tensor(input, op)
    name = "quantile"   # nanquantile's errors say quantile() too
    if not input.is_floating_point():
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        qs, scalar = q.tolist(), q.ndim == 0
        qs = [qs] if scalar else qs
    else:
        qs, scalar = [float(q)], True
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    for v in qs:
        if not 0 <= v <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {v}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    if dim is None:
        x, out_shape = input.flatten(), [1] * input.ndim if keepdim else []
    else:
        d = _wrap_dim(dim, input.ndim)
        x = input.movedim(d, -1) if input.ndim else input.reshape(1)
        out_shape = list(input.shape)
        if input.ndim:
            if keepdim:
                out_shape[d] = 1
            else:
                del out_shape[d]
    s = x.sort(-1)[0]                                  # NaN last
    n = s.shape[-1]
    nans = s.isnan().sum(-1, keepdim=True)
    valid = (n - nans).to(s.dtype) if ignore_nan else ew._scalar_tensor(float(n), s).to(s.dtype)
    results = []
    for v in qs:
        ranks = (valid - 1) * v
        if ignore_nan:
            ranks = ranks.masked_fill(nans == n, n - 1)        # an all-NaN slice gives NaN
        else:
            ranks = ranks.masked_fill(nans > 0, n - 1)         # a slice with NaN gives NaN
        ranks = ranks.expand(*s.shape[:-1], 1) if ranks.ndim else ranks.reshape(1)
        if interpolation == "lower":
            ranks = ranks.floor()
        elif interpolation == "higher":
            ranks = ranks.ceil()
        elif interpolation == "nearest":
            ranks = ranks.round()
        below = ranks.to(int64)
        lo = s.gather(-1, below)
        if interpolation in ("linear", "midpoint"):
            hi = s.gather(-1, ranks.ceil().to(int64))
            weights = ranks - below.to(s.dtype) if interpolation == "linear" else ranks * 0 + 0.5
            lo = lo.lerp(hi, weights)
        results.append(lo.squeeze(-1).reshape(*out_shape))
    if scalar:
        return results[0]
    from ..functional import stack
    return stack(results, 0)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "quantile", quantile, input, q, dim, keepdim, interpolation=interpolation)) is not None:
        return r
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    if _AUTOCAST_ON[0] and (r := _autocast(
            "nanquantile", nanquantile, input, q, dim, keepdim, interpolation=interpolation)) is not None:
        return r
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


class Logcumsumexp(_Composed):
    """log(cumsum(exp(x))) along dim by a doubling scan of logaddexp (log2(n) steps, no overflow
    and no underflow of small terms); torch's gradient, split by the incoming gradient's sign."""
    _node_name = "LogcumsumexpBackward0"

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        out = _lcse(a, dim)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        d = ctx.dim

        def rev(t):
            return _lcse(t.flip(d), d).flip(d) if t.ndim else t
        pos = rev(g.clamp(min=0).log() - out)
        neg = rev((-g).clamp(min=0).log() - out)
        return (pos + a).exp() - (neg + a).exp(), None


def _lcse(a, dim):
    from ..functional import cat
    if not a.ndim:
        return a.clone()
    n, out, step = a.shape[dim], a, 1
    while step < n:
        head = out.narrow(dim, 0, step)
        tail = out.narrow(dim, step, n - step).logaddexp(out.narrow(dim, 0, n - step))
        out = cat([head, tail], dim)
        step *= 2
    return out if out is not a else a.clone()


def logcumsumexp(input, dim):
    _tensor(input, "logcumsumexp")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"logcumsumexp_out_{input._device.type}\" not implemented for "
                                  f"'{_legacy(input)}'")
    return Logcumsumexp.apply(input, _wrap_dim(dim, input.ndim))


class Aminmax(_Composed):
    """(amin, amax): each gradient shared evenly among the elements equal to its extreme."""
    _node_name = "AminmaxBackward0"

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.dims, ctx.keepdim = dims, keepdim
        lo, hi = a.amin(dims, keepdim=True), a.amax(dims, keepdim=True)
        ctx.save_for_backward(a, lo, hi)
        if not keepdim:
            shape = [s for i, s in enumerate(a.shape) if i not in dims]
            lo, hi = lo.reshape(*shape), hi.reshape(*shape)
        return lo, hi

    @staticmethod
    def backward(ctx, g_lo, g_hi):
        a, lo, hi = ctx.saved_tensors
        total = None
        for g, ext in ((g_lo, lo), (g_hi, hi)):
            if g is None:
                continue
            if not ctx.keepdim:
                g = g.reshape(*ext.shape)
            mask = (a == ext) | (a.isnan() & ext.isnan()) if a.is_floating_point() else a == ext
            part = mask.to(g.dtype) * (g / mask.sum(ctx.dims, keepdim=True).to(g.dtype))
            total = part if total is None else total + part
        return total, None, None


def aminmax(input, *, dim=None, keepdim=False):
    _tensor(input, "aminmax")
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                               "has no identity.")
        dims = tuple(range(input.ndim))
    else:
        d = _wrap_dim(dim, input.ndim)
        if input.ndim and input.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")  # (torch's spelling)
        dims = (d,) if input.ndim else ()
    return return_types_aminmax(*Aminmax.apply(input, dims, keepdim))


# ---- the Tensor methods and torch.* functions -----------------------------------------------------

def _deg(cls):
    return lambda self: apply_unary(cls, _float(self))


def _parsed(name, fn, method):
    """fn as the entry point torch.name (method False) or Tensor.name: a dim that is no integer
    gets torch's TypeError for the arguments as the user gave them (its parser words the position
    of a method's argument without self)."""
    def entry(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ArgTypeError as e:
            raise call_error(name, method, args[1:] if method else args, kwargs, e) from None
    entry.__name__ = entry.__qualname__ = name
    return entry


_PARSED = ("median", "nanmedian", "mode", "aminmax")  # reductions along one int dim


def _methods():
    m = {}
    for name, cls in UNARY.items():
        m[name] = _unary_method(cls)
        m[name + "_"] = _inplace_unary(lambda t, c=cls: ew.unary_float(c, t), keeps_input=not issubclass(
            cls, ew._SavesOutput))
    for alias, name in ALIASES.items():
        if name in UNARY:
            m[alias], m[alias + "_"] = m[name], m[name + "_"]
    for name in BINARY:
        for shown in [name] + [a for a, n in ALIASES.items() if n == name]:
            m[shown] = _binary_method(name, shown)
            if name not in ("logaddexp", "logaddexp2"):
                m[shown + "_"] = _binary_inplace(name, shown)
    m.update({
        "sinc": lambda self: apply_unary(Sinc, _float(self)),
        "sinc_": _inplace_unary(lambda t: apply_unary(Sinc, _float(t)), True),
        "deg2rad": _deg(Deg2Rad), "deg2rad_": _inplace_unary(_deg(Deg2Rad)),
        "rad2deg": _deg(Rad2Deg), "rad2deg_": _inplace_unary(_deg(Rad2Deg)),
        "square_": _inplace_unary(lambda t: t.square(), True),
        "heaviside": heaviside,
        "heaviside_": lambda self, values: inplace(self, lambda t: heaviside(t, values), values),
        "roll": lambda self, shifts, dims=None: roll(self, shifts, dims),
        "rot90": lambda self, k=1, dims=(0, 1): rot90(self, k, dims),
        "diff": lambda self, n=1, dim=-1, prepend=None, append=None: diff(self, n, dim, prepend, append),
        "kron": kron, "cross": lambda self, other, dim=None: cross(self, other, dim),
        "addmm": addmm, "addmv": addmv, "baddbmm": baddbmm, "addbmm": addbmm,
        "addmm_": lambda self, m1, m2, *, beta=1, alpha=1: inplace(
            self, lambda t: addmm(t, m1, m2, beta=beta, alpha=alpha), m1 if m1.requires_grad else m2),
        "nansum": nansum, "nanmean": nanmean, "quantile": quantile, "nanquantile": nanquantile,
        "logcumsumexp": logcumsumexp,
    })
    m.update({name: _parsed(name, globals()[name], True) for name in _PARSED})
    return m


METHODS = _methods()
FUNCTIONS = {name: (lambda input, _n=name: _unary_method(UNARY[_n])(_tensor(input, _n))) for name in UNARY}
for _alias, _name in ALIASES.items():
    if _name in UNARY:
        FUNCTIONS[_alias] = FUNCTIONS[_name]
for _name in BINARY:
    for _shown in [_name] + [a for a, n in ALIASES.items() if n == _name]:
        FUNCTIONS[_shown] = _binary_function(_name, _shown)
FUNCTIONS.update({
    "sinc": lambda input: METHODS["sinc"](_tensor(input, "sinc")),
    "deg2rad": lambda input: METHODS["deg2rad"](_tensor(input, "deg2rad")),
    "rad2deg": lambda input: METHODS["rad2deg"](_tensor(input, "rad2deg")),
    "heaviside": heaviside, "roll": roll, "rot90": rot90, "diff": diff, "meshgrid": meshgrid,
    "cartesian_prod": cartesian_prod, "tensordot": tensordot, "kron": kron, "cross": cross,
    "addmm": addmm, "addmv": addmv, "baddbmm": baddbmm, "addbmm": addbmm, "nansum": nansum, "nanmean": nanmean,
    "quantile": quantile, "nanquantile": nanquantile, "logcumsumexp": logcumsumexp,
})
FUNCTIONS.update({name: _parsed(name, globals()[name], False) for name in _PARSED})
for _name, _fn in FUNCTIONS.items():
    if _fn.__name__ == "<lambda>":
        _fn.__name__ = _fn.__qualname__ = _name


def install(cls):
    """Put the methods on Tensor (called once by minigrad/tensor_methods.py)."""
    for name, fn in METHODS.items():
        setattr(cls, name, fn)
