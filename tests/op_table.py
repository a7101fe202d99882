"""The op table behind tests/test_ops.py: one row per (op, input shapes) case.

A row's `fn(lib, *tensors)` is written once against the PyTorch API, so the same
callable runs with `lib = minigrad` and `lib = torch`; `ref(*arrays)` is the NumPy
float64 reference for the same computation. Inputs are drawn from the row's domain,
which keeps them away from kinks (abs, relu, clamp) and ties (max, min, maximum) so
that finite differences are meaningful.
"""
import math
import operator
from dataclasses import dataclass

import numpy as np

FLOAT = ("float32", "float64")
FLOAT_INT = FLOAT + ("int64",)
FLOAT_INT_BOOL = FLOAT_INT + ("bool",)


@dataclass(frozen=True)
class Arg:
    """One input: shape, domain, and a fixed dtype for inputs that never vary
    with the row's dtype (masks, conditions, a float64 partner in a promotion case)."""
    shape: tuple
    domain: str = "any"  # any | pos | nonzero | distinct | small_int
    dtype: str = None
    avoid: tuple = ()  # points (kinks) the values keep at least 0.1 away from


@dataclass(frozen=True)
class Op:
    name: str
    fn: object
    ref: object
    args: tuple
    dtypes: tuple = FLOAT
    grad: bool = True  # differentiable w.r.t. its float inputs
    smooth: bool = True  # run gradgradcheck
    separate: bool = False  # keep the float inputs 0.1 apart elementwise (maximum)
    rtol: float = 1e-5  # float32 forward tolerances; float64 is held much tighter
    atol: float = 1e-5

    @property
    def id(self):
        shapes = ",".join("x".join(map(str, a.shape)) if a.shape else "0d" for a in self.args)
        return f"{self.name}-{shapes}"


def _sample(rng, arg, dtype):
    shape = arg.shape
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == "bool":
        v = rng.random(n) < 0.5
        if n > 1 and (v.all() or not v.any()):  # a mask that selects all or nothing tests little
            v[0] = not v[0]
    elif arg.domain == "distinct":
        v = (rng.permutation(n) - n // 2).astype(np.float64)
        if dtype not in ("int64", "int32"):
            v = v * 0.25 + rng.uniform(-0.04, 0.04, n)
    elif arg.domain == "small_int":  # ties on purpose: eq/ne need equal elements
        v = rng.integers(-2, 3, n)
    elif dtype in ("int64", "int32"):
        lo, hi = {"any": (-5, 6), "pos": (1, 6), "nonzero": (1, 6)}[arg.domain]
        v = rng.integers(lo, hi, n)
        if arg.domain == "nonzero":
            v = v * rng.choice([-1, 1], n)
    else:
        if arg.domain == "pos":
            v = rng.uniform(0.5, 2.0, n)
        elif arg.domain == "nonzero":
            v = rng.uniform(0.3, 2.0, n) * rng.choice([-1.0, 1.0], n)
        else:
            v = rng.uniform(-2.0, 2.0, n)
        for k in arg.avoid:
            near = np.abs(v - k) < 0.1
            while near.any():
                v[near] = rng.uniform(-2.0, 2.0, near.sum())
                near = np.abs(v - k) < 0.1
    return np.asarray(v).reshape(shape).astype(dtype)


def make_inputs(op, dtype, rng):
    """The row's inputs as NumPy arrays of their final dtypes (`dtype` for the varying ones)."""
    arrays = [_sample(rng, a, a.dtype or dtype) for a in op.args]
    if op.separate and arrays[0].dtype.kind == "f":
        # redraw the second operand until no broadcast pair is within 0.1 (no ties)
        while np.min(np.abs(arrays[0].astype(np.float64) - arrays[1].astype(np.float64))) < 0.1:
            arrays[1] = _sample(rng, op.args[1], op.args[1].dtype or dtype)
    return arrays


def reference_inputs(arrays):
    """The reference computes in float64 from exactly the values the op saw."""
    return [a.astype(np.float64) if a.dtype.kind == "f" else a for a in arrays]


OPS = []


def rows(name, fn, ref, *arg_sets, domain="any", avoid=(), **kw):
    """Add one row per argument set; a set lists shapes (or Args) for the op's inputs."""
    for args in arg_sets:
        args = tuple(a if isinstance(a, Arg) else Arg(tuple(a), domain, None, avoid) for a in args)
        OPS.append(Op(name, fn, ref, args, **kw))


def _key(t, x, key):
    """NumPy arrays inside an index key become index tensors on x's device."""
    def one(k):
        return t.tensor(k, device=x.device) if isinstance(k, np.ndarray) else k
    return tuple(one(k) for k in key) if isinstance(key, tuple) else one(key)


# ---------------------------------------------------------------- elementwise binary
BINARY_SHAPES = ([(3, 4), (3, 4)], [(3, 4), (4,)], [(3, 1), (1, 4)], [(2, 1, 3), (4, 3)],
                 [(), (3,)], [(3, 4), ()], [(), ()])
rows("add", lambda t, x, y: x + y, np.add, *BINARY_SHAPES, dtypes=FLOAT_INT + ("int32",))
rows("sub", lambda t, x, y: x - y, np.subtract, *BINARY_SHAPES[1:5], dtypes=FLOAT_INT)
rows("mul", lambda t, x, y: x * y, np.multiply, *BINARY_SHAPES[1:5], dtypes=FLOAT_INT)
rows("div", lambda t, x, y: x / y, np.divide,
     [(3, 4), Arg((4,), "nonzero")], [(3, 1), Arg((1, 4), "nonzero")], [(), Arg((3,), "nonzero")],
     [(3, 4), Arg((), "nonzero")], dtypes=FLOAT_INT)
rows("pow", lambda t, x, y: x ** y, np.power,
     [Arg((3, 4), "pos"), (3, 4)], [Arg((3, 4), "pos"), (4,)], [Arg((), "pos"), (3,)])
# division with rounding: forward only here (the remainders' gradients jump where the quotient
# does, which finite differences cannot follow; tests/test_floor_divide.py checks them away from it)
for _name, _fn, _ref in (("floor_divide", lambda t, x, y: x // y, np.floor_divide),
                         ("remainder", lambda t, x, y: x % y, lambda x, y: x - y * np.floor_divide(x, y)),
                         ("fmod", lambda t, x, y: t.fmod(x, y), np.fmod),
                         ("div_trunc", lambda t, x, y: t.div(x, y, rounding_mode="trunc"),
                          lambda x, y: np.trunc(x / y) if x.dtype.kind == "f" else np.fix(x / y).astype(x.dtype))):
    rows(_name, _fn, _ref, [(3, 4), Arg((4,), "nonzero")], [(3, 1), Arg((1, 4), "nonzero")],
         [(), Arg((3,), "nonzero")], [(3, 4), Arg((), "nonzero")], grad=False, dtypes=FLOAT_INT)

# tensor with a Python scalar, both ways
rows("add_scalar", lambda t, x: x + 2.5, lambda x: x + 2.5, [(3, 4)], [()])
rows("add_int_scalar", lambda t, x: x + 2, lambda x: x + 2, [(3, 4)], dtypes=FLOAT_INT)
rows("radd", lambda t, x: 2.5 + x, lambda x: 2.5 + x, [(3, 4)], [()])
rows("sub_scalar", lambda t, x: x - 1.5, lambda x: x - 1.5, [(3, 4)])
rows("rsub", lambda t, x: 1.5 - x, lambda x: 1.5 - x, [(3, 4)], [()])
rows("rsub_int", lambda t, x: 3 - x, lambda x: 3 - x, [(3, 4)], dtypes=FLOAT_INT)
rows("mul_scalar", lambda t, x: x * 2.5, lambda x: x * 2.5, [(3, 4)], [()], dtypes=FLOAT_INT)
rows("rmul", lambda t, x: -1.5 * x, lambda x: -1.5 * x, [(3, 4)], [()], dtypes=FLOAT_INT)
rows("div_scalar", lambda t, x: x / 4.0, lambda x: x / 4.0, [(3, 4)], dtypes=FLOAT_INT)
rows("div_int_scalar", lambda t, x: x / 2, lambda x: x / 2, [(3, 4)], dtypes=FLOAT_INT)
rows("rtruediv", lambda t, x: 2.0 / x, lambda x: 2.0 / x, [(3, 4)], [()], domain="nonzero",
     dtypes=FLOAT_INT)
rows("pow_2", lambda t, x: x ** 2, lambda x: x ** 2, [(3, 4)], [()], dtypes=FLOAT_INT)
rows("pow_3", lambda t, x: x ** 3, lambda x: x ** 3, [(3, 4)])
rows("pow_half", lambda t, x: x ** 0.5, lambda x: x ** 0.5, [(3, 4)], domain="pos")
rows("pow_neg1", lambda t, x: x ** -1, lambda x: x ** -1.0, [(3, 4)], domain="nonzero")
rows("pow_0", lambda t, x: x ** 0, lambda x: x ** 0.0, [(3, 4)])
rows("rpow", lambda t, x: 2.5 ** x, lambda x: 2.5 ** x, [(3, 4)], [()])
rows("rpow_int", lambda t, x: 2 ** x, lambda x: 2 ** x, [(3, 4)], domain="pos", dtypes=FLOAT_INT)

# type promotion between tensors (torch's rules: category first, 0-d tensors rank lower)
rows("add_f32_f64", lambda t, x, y: x + y, np.add, [(3, 4), Arg((4,), dtype="float64")],
     dtypes=("float32",))
rows("mul_int_float", lambda t, x, y: x * y, np.multiply, [Arg((3, 4), dtype="int64"), (4,)])
rows("add_0d_f64_to_f32", lambda t, x, y: x + y, np.add, [(3,), Arg((), dtype="float64")],
     dtypes=("float32",))

# ---------------------------------------------------------------- elementwise unary
UNARY_SHAPES = ([(3, 4)], [()])
rows("neg", lambda t, x: -x, np.negative, *UNARY_SHAPES, dtypes=FLOAT_INT)
rows("neg_method", lambda t, x: x.neg(), np.negative, [(2, 3)], dtypes=FLOAT_INT)
rows("neg_fn", lambda t, x: t.neg(x), np.negative, [(2, 3)])
rows("abs", lambda t, x: x.abs(), np.abs, *UNARY_SHAPES, avoid=(0,), dtypes=FLOAT_INT, smooth=False)
rows("abs_fn", lambda t, x: t.abs(x), np.abs, [(2, 3)], avoid=(0,), smooth=False)
rows("exp", lambda t, x: x.exp(), np.exp, *UNARY_SHAPES)
rows("exp_fn", lambda t, x: t.exp(x), np.exp, [(2, 3)], dtypes=FLOAT_INT)
rows("log", lambda t, x: x.log(), np.log, *UNARY_SHAPES, domain="pos")
rows("log1p", lambda t, x: x.log1p(), np.log1p, *UNARY_SHAPES, domain="pos", dtypes=FLOAT_INT)
rows("log1p_fn", lambda t, x: t.log1p(x), np.log1p, [(2, 3)], domain="pos")
rows("expm1", lambda t, x: x.expm1(), np.expm1, *UNARY_SHAPES)
rows("expm1_fn", lambda t, x: t.expm1(x), np.expm1, [(2, 3)])
rows("erf", lambda t, x: x.erf(), np.vectorize(math.erf, otypes=[np.float64]), *UNARY_SHAPES, dtypes=FLOAT_INT)
rows("erf_fn", lambda t, x: t.erf(x), np.vectorize(math.erf, otypes=[np.float64]), [(2, 3)])
rows("log_fn", lambda t, x: t.log(x), np.log, [(2, 3)], domain="pos")
rows("sqrt", lambda t, x: x.sqrt(), np.sqrt, *UNARY_SHAPES, domain="pos")
rows("reciprocal", lambda t, x: x.reciprocal(), lambda x: 1.0 / x, *UNARY_SHAPES, domain="nonzero",
     dtypes=FLOAT_INT)
rows("reciprocal_fn", lambda t, x: t.reciprocal(x), lambda x: 1.0 / x, [(2, 3)], domain="nonzero")
rows("sqrt_fn", lambda t, x: t.sqrt(x), np.sqrt, [(2, 3)], domain="pos")
rows("sin", lambda t, x: x.sin(), np.sin, *UNARY_SHAPES)
rows("sin_fn", lambda t, x: t.sin(x), np.sin, [(2, 3)])
rows("cos", lambda t, x: x.cos(), np.cos, *UNARY_SHAPES)
rows("cos_fn", lambda t, x: t.cos(x), np.cos, [(2, 3)])
rows("tanh", lambda t, x: x.tanh(), np.tanh, *UNARY_SHAPES)
rows("tanh_fn", lambda t, x: t.tanh(x), np.tanh, [(2, 3)])
rows("sigmoid", lambda t, x: x.sigmoid(), lambda x: 1 / (1 + np.exp(-x)), *UNARY_SHAPES)
rows("sigmoid_fn", lambda t, x: t.sigmoid(x), lambda x: 1 / (1 + np.exp(-x)), [(2, 3)])
rows("relu", lambda t, x: x.relu(), lambda x: np.maximum(x, 0), *UNARY_SHAPES, avoid=(0,),
     dtypes=FLOAT_INT, smooth=False)
rows("relu_fn", lambda t, x: t.relu(x), lambda x: np.maximum(x, 0), [(2, 3)], avoid=(0,),
     smooth=False)
rows("sign", lambda t, x: x.sign(), np.sign, *UNARY_SHAPES, avoid=(0,), dtypes=FLOAT_INT, smooth=False)
rows("sign_fn", lambda t, x: t.sign(x), np.sign, [(2, 3)], avoid=(0,), smooth=False)
# rounding: piecewise constant (zero gradient) away from the jumps the values avoid
_INTEGERS, _HALVES = (-2, -1, 0, 1, 2), (-1.5, -0.5, 0.5, 1.5)


def _rint(x):  # integers stay integers, as in torch
    return x.copy() if x.dtype.kind in "iu" else np.rint(x)


rows("floor", lambda t, x: x.floor(), np.floor, *UNARY_SHAPES, avoid=_INTEGERS, dtypes=FLOAT_INT, smooth=False)
rows("floor_fn", lambda t, x: t.floor(x), np.floor, [(2, 3)], avoid=_INTEGERS, smooth=False)
rows("ceil", lambda t, x: x.ceil(), np.ceil, *UNARY_SHAPES, avoid=_INTEGERS, dtypes=FLOAT_INT, smooth=False)
rows("ceil_fn", lambda t, x: t.ceil(x), np.ceil, [(2, 3)], avoid=_INTEGERS, smooth=False)
rows("trunc", lambda t, x: x.trunc(), np.trunc, *UNARY_SHAPES, avoid=_INTEGERS, dtypes=FLOAT_INT, smooth=False)
rows("fix_fn", lambda t, x: t.fix(x), np.trunc, [(2, 3)], avoid=_INTEGERS, smooth=False)
rows("round", lambda t, x: x.round(), _rint, *UNARY_SHAPES, avoid=_HALVES, dtypes=FLOAT_INT, smooth=False)
rows("round_fn", lambda t, x: t.round(x), _rint, [(2, 3)], avoid=_HALVES, smooth=False)
rows("round_decimals", lambda t, x: t.round(x, decimals=1), lambda x: np.rint(x * 10) / 10, [(3, 4)], [()],
     smooth=False)
rows("round_negative_decimals", lambda t, x: (x * 100).round(decimals=-1), lambda x: np.rint(x * 10) * 10,
     [(3, 4)], smooth=False)
rows("frac", lambda t, x: x.frac(), lambda x: x - np.trunc(x), *UNARY_SHAPES, avoid=_INTEGERS)
rows("frac_fn", lambda t, x: t.frac(x), lambda x: x - np.trunc(x), [(2, 3)], avoid=_INTEGERS)
rows("clamp", lambda t, x: x.clamp(-0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5), *UNARY_SHAPES,
     avoid=(-0.5, 0.5), smooth=False)
rows("clamp_int", lambda t, x: x.clamp(-2, 3), lambda x: np.clip(x, -2, 3), [(3, 4)],
     dtypes=FLOAT_INT, avoid=(-2, 3), smooth=False)
rows("clamp_min", lambda t, x: x.clamp(min=0.25), lambda x: np.maximum(x, 0.25), [(3, 4)],
     avoid=(0.25,), smooth=False)
rows("clamp_max", lambda t, x: x.clamp(max=-0.25), lambda x: np.minimum(x, -0.25), [(3, 4)],
     avoid=(-0.25,), smooth=False)
rows("clamp_fn", lambda t, x: t.clamp(x, min=-1.0, max=1.0), lambda x: np.clip(x, -1, 1), [(3, 4)],
     avoid=(-1, 1), smooth=False)

rows("maximum", lambda t, x, y: t.maximum(x, y), np.maximum, [(3, 4), (3, 4)], [(3, 4), (4,)],
     [(), (3,)], separate=True, dtypes=FLOAT_INT, smooth=False)
rows("minimum", lambda t, x, y: t.minimum(x, y), np.minimum, [(3, 4), (3, 4)], [(3, 1), (1, 4)],
     separate=True, dtypes=FLOAT_INT, smooth=False)
rows("where", lambda t, c, x, y: t.where(c, x, y), np.where,
     [Arg((3, 4), dtype="bool"), (3, 4), (3, 4)], [Arg((3, 1), dtype="bool"), (1, 4), (4,)],
     [Arg((), dtype="bool"), (3,), ()], dtypes=FLOAT_INT)
rows("where_scalar", lambda t, c, x: t.where(c, x, 0.0), lambda c, x: np.where(c, x, 0.0),
     [Arg((3, 4), dtype="bool"), (3, 4)])
rows("where_method", lambda t, c, x, y: x.where(c, y), lambda c, x, y: np.where(c, x, y),
     [Arg((3, 4), dtype="bool"), (3, 4), (4,)])
rows("where_from_compare", lambda t, x, y: t.where(x > 0, x, y), lambda x, y: np.where(x > 0, x, y),
     [Arg((3, 4), "nonzero"), (3, 4)])

# composed ops (minigrad/ops/composed.py): tests of float values, nan_to_num, lerp, clamp_min/max
for _name in ("isnan", "isinf", "isfinite", "isposinf", "isneginf"):
    rows(_name, lambda t, x, n=_name: getattr(t, n)(x), getattr(np, _name), [(3, 4)], [()], grad=False,
         dtypes=FLOAT_INT)
rows("nan_to_num", lambda t, x: t.nan_to_num(x, nan=0.5), lambda x: x, [(3, 4)])
rows("lerp_scalar", lambda t, x, y: t.lerp(x, y, 0.3), lambda x, y: x + 0.3 * (y - x), [(3, 4), (4,)], [(), ()])
rows("lerp_scalar_big", lambda t, x, y: x.lerp(y, 0.8), lambda x, y: y - (y - x) * 0.2, [(3, 4), (3, 4)])
rows("lerp_tensor", lambda t, x, y, w: t.lerp(x, y, w), lambda x, y, w: x + w * (y - x),
     [(3, 4), (3, 4), (3, 1)], [(4,), (3, 4), ()])
rows("clamp_min_fn", lambda t, x: t.clamp_min(x, 0.25), lambda x: np.maximum(x, 0.25), [(3, 4)],
     avoid=(0.25,), smooth=False)
rows("clamp_max_method", lambda t, x: x.clamp_max(-1), lambda x: np.minimum(x, -1), [(3, 4)], avoid=(-1,),
     dtypes=FLOAT_INT, smooth=False)

# ---------------------------------------------------------------- comparisons (bool results)
for _name, _f in (("lt", operator.lt), ("le", operator.le), ("gt", operator.gt),
                  ("ge", operator.ge), ("eq", operator.eq), ("ne", operator.ne)):
    rows(_name, lambda t, x, y, f=_f: f(x, y), _f, [(3, 4), (3, 4)], [(3, 4), (4,)], [(), (3,)],
         domain="small_int", grad=False, dtypes=FLOAT_INT_BOOL if _name in ("eq", "ne") else FLOAT_INT)
    rows(_name + "_method", lambda t, x, y, m=_name: getattr(x, m)(y), _f, [(2, 3), (2, 3)],
         domain="small_int", grad=False, dtypes=FLOAT_INT)
    rows(_name + "_scalar", lambda t, x, f=_f: f(x, 1), lambda x, f=_f: f(x, 1), [(3, 4)],
         domain="small_int", grad=False, dtypes=FLOAT_INT)
rows("gt_rscalar", lambda t, x: 0.5 < x, lambda x: 0.5 < x, [(3, 4)], grad=False)
for _name in ("logical_and", "logical_or", "logical_xor"):
    rows(_name, lambda t, x, y, n=_name: getattr(t, n)(x, y), getattr(np, _name), [(3, 4), (4,)], [(), (3,)],
         domain="small_int", grad=False, dtypes=FLOAT_INT_BOOL)
rows("logical_not", lambda t, x: x.logical_not(), np.logical_not, [(3, 4)], domain="small_int", grad=False,
     dtypes=FLOAT_INT_BOOL)

# ---------------------------------------------------------------- reductions
rows("sum", lambda t, x: x.sum(), np.sum, [(3, 4)], [()], [(5,)],
     dtypes=FLOAT_INT_BOOL + ("int32",))
rows("sum_dim0", lambda t, x: x.sum(0), lambda x: x.sum(0), [(3, 4)], dtypes=FLOAT_INT_BOOL)
rows("sum_dim_neg_keepdim", lambda t, x: x.sum(dim=-1, keepdim=True),
     lambda x: x.sum(-1, keepdims=True), [(2, 3, 4)], dtypes=FLOAT_INT)
rows("sum_dim_tuple", lambda t, x: x.sum((0, 2)), lambda x: x.sum((0, 2)), [(2, 3, 4)],
     dtypes=FLOAT_INT)
rows("sum_fn", lambda t, x: t.sum(x, dim=1), lambda x: x.sum(1), [(2, 3, 4)])
rows("prod", lambda t, x: x.prod(), lambda x: np.prod(x, dtype=None if x.dtype.kind == "f" else np.int64),
     [(3, 4)], [()], dtypes=FLOAT_INT_BOOL)
rows("prod_dim", lambda t, x: x.prod(1), lambda x: x.prod(1), [(2, 3, 4)])
rows("prod_fn_keepdim", lambda t, x: t.prod(x, -1, keepdim=True), lambda x: x.prod(-1, keepdims=True), [(3, 4)])
rows("sort", lambda t, x: x.sort(1).values, lambda x: np.sort(x, 1), [(2, 3, 4)], dtypes=FLOAT_INT)
rows("sort_desc_fn", lambda t, x: t.sort(x, descending=True).values,
     lambda x: -np.sort(-x.reshape(x.shape or (1,)), -1).reshape(x.shape), [(3, 5)], [()])
rows("msort", lambda t, x: t.msort(x), lambda x: np.sort(x, 0), [(4, 3)])
rows("topk", lambda t, x: x.topk(2).values, lambda x: -np.sort(-x, -1)[..., :2], [(3, 5)], dtypes=FLOAT_INT)
rows("topk_smallest_dim0", lambda t, x: t.topk(x, 3, 0, largest=False).values, lambda x: np.sort(x, 0)[:3], [(4, 3)])
rows("kthvalue", lambda t, x: x.kthvalue(2, 0).values, lambda x: np.sort(x, 0)[1], [(4, 3)], dtypes=FLOAT_INT)
rows("kthvalue_keepdim", lambda t, x: x.kthvalue(3, -1, True).values, lambda x: np.sort(x, -1)[..., 2:3], [(2, 3, 4)])
rows("cumsum", lambda t, x: x.cumsum(1), lambda x: np.cumsum(x, 1, dtype=None if x.dtype.kind == "f" else np.int64),
     [(2, 3, 4)], dtypes=FLOAT_INT_BOOL)
rows("cumsum_fn_last", lambda t, x: t.cumsum(x, -1), lambda x: np.cumsum(x, -1).reshape(x.shape), [(3, 5)], [()])
rows("cumprod", lambda t, x: x.cumprod(0), lambda x: np.cumprod(x, 0, dtype=None if x.dtype.kind == "f" else np.int64),
     [(3, 4)], dtypes=FLOAT_INT_BOOL, domain="nonzero")
rows("cumprod_fn_last", lambda t, x: t.cumprod(x, dim=-1), lambda x: np.cumprod(x, -1).reshape(x.shape),
     [(2, 3, 4)], [()],
     domain="nonzero")
rows("sum_0d_dim", lambda t, x: x.sum(0), lambda x: x, [()])
rows("mean", lambda t, x: x.mean(), np.mean, [(3, 4)], [()])
rows("mean_dim", lambda t, x: x.mean(1), lambda x: x.mean(1), [(2, 3, 4)])
rows("mean_dim_tuple_keepdim", lambda t, x: x.mean(dim=(0, -1), keepdim=True),
     lambda x: x.mean((0, -1), keepdims=True), [(2, 3, 4)])
rows("mean_fn", lambda t, x: t.mean(x, -1), lambda x: x.mean(-1), [(3, 4)])

_D = dict(domain="distinct", smooth=False)
rows("max", lambda t, x: x.max(), np.max, [(3, 4)], [()], dtypes=FLOAT_INT, **_D)
rows("min", lambda t, x: x.min(), np.min, [(3, 4)], dtypes=FLOAT_INT, **_D)
rows("max_fn", lambda t, x: t.max(x), np.max, [(2, 3)], **_D)
rows("max_dim", lambda t, x: x.max(1), lambda x: (x.max(1), x.argmax(1)), [(3, 4)], [(2, 3, 4)],
     dtypes=FLOAT_INT, **_D)
rows("max_dim_keepdim", lambda t, x: x.max(dim=-1, keepdim=True),
     lambda x: (x.max(-1, keepdims=True), x.argmax(-1, keepdims=True)), [(3, 4)], **_D)
rows("max_dim_values", lambda t, x: x.max(dim=0).values, lambda x: x.max(0), [(3, 4)], **_D)
rows("max_dim_indices", lambda t, x: x.max(dim=0).indices, lambda x: x.argmax(0), [(3, 4)],
     grad=False, **_D)
rows("max_dim_fn", lambda t, x: t.max(x, 0), lambda x: (x.max(0), x.argmax(0)), [(3, 4)], **_D)


def _running(acc, x, axis):
    """(values, indices) of cummax/cummin (acc: np.maximum/np.minimum) of distinct elements."""
    x = x.reshape(x.shape or (1,))
    values = acc.accumulate(x, axis)
    pos = np.arange(x.shape[axis]).reshape([-1 if d == axis % x.ndim else 1 for d in range(x.ndim)])
    return values, np.maximum.accumulate(np.where(x == values, pos, 0), axis)


rows("cummax", lambda t, x: x.cummax(1), lambda x: _running(np.maximum, x, 1), [(3, 4)], [(2, 3, 4)],
     dtypes=FLOAT_INT, **_D)
rows("cummin_fn", lambda t, x: t.cummin(x, 0), lambda x: _running(np.minimum, x, 0), [(4, 3)], dtypes=FLOAT_INT, **_D)
rows("cummax_0d", lambda t, x: x.cummax(-1), lambda x: (x, np.zeros((), np.int64)), [()], **_D)
rows("min_dim", lambda t, x: x.min(0), lambda x: (x.min(0), x.argmin(0)), [(3, 4)],
     dtypes=FLOAT_INT, **_D)
rows("min_dim_keepdim", lambda t, x: x.min(-2, keepdim=True),
     lambda x: (x.min(-2, keepdims=True), x.argmin(-2, keepdims=True)), [(2, 3, 4)], **_D)
rows("min_dim_values", lambda t, x: x.min(dim=1)[0], lambda x: x.min(1), [(3, 4)], **_D)
rows("max_binary", lambda t, x, y: t.max(x, y), np.maximum, [(3, 4), (4,)], separate=True,
     smooth=False)
rows("amax", lambda t, x: x.amax(), np.max, [(3, 4)], dtypes=FLOAT_INT, **_D)
rows("amax_dim", lambda t, x: x.amax(1), lambda x: x.max(1), [(3, 4)], **_D)
rows("amax_dim_tuple_keepdim", lambda t, x: x.amax(dim=(0, 2), keepdim=True),
     lambda x: x.max((0, 2), keepdims=True), [(2, 3, 4)], dtypes=FLOAT_INT, **_D)
rows("amin", lambda t, x: t.amin(x, -1), lambda x: x.min(-1), [(3, 4)], dtypes=FLOAT_INT, **_D)
rows("amin_dim_tuple", lambda t, x: x.amin((0, 1)), lambda x: x.min((0, 1)), [(2, 3, 4)], **_D)
rows("argmax", lambda t, x: x.argmax(), lambda x: np.argmax(x), [(3, 4)], [()], grad=False,
     dtypes=FLOAT_INT, **_D)
rows("argmax_dim", lambda t, x: x.argmax(dim=1), lambda x: x.argmax(1), [(3, 4)], grad=False,
     dtypes=FLOAT_INT, **_D)
rows("argmax_dim_keepdim", lambda t, x: t.argmax(x, -1, keepdim=True),
     lambda x: x.argmax(-1, keepdims=True), [(2, 3, 4)], grad=False, **_D)
rows("argmin", lambda t, x: x.argmin(), lambda x: np.argmin(x), [(3, 4)], grad=False,
     dtypes=FLOAT_INT, **_D)
rows("argmin_dim", lambda t, x: x.argmin(0), lambda x: x.argmin(0), [(3, 4)], grad=False, **_D)
# first index wins on ties, as in torch and NumPy
rows("argmax_ties", lambda t, x: x.argmax(1), lambda x: x.argmax(1), [(4, 6)], domain="small_int",
     grad=False, dtypes=FLOAT_INT)

rows("var", lambda t, x: x.var(), lambda x: x.var(ddof=1), [(3, 4)], [(5,)])
rows("var_dim", lambda t, x: x.var(1), lambda x: x.var(1, ddof=1), [(3, 4)])
rows("var_dim_tuple_keepdim", lambda t, x: x.var(dim=(0, 2), keepdim=True),
     lambda x: x.var((0, 2), ddof=1, keepdims=True), [(2, 3, 4)])
rows("var_biased", lambda t, x: x.var(-1, unbiased=False), lambda x: x.var(-1), [(3, 4)])
rows("var_correction0", lambda t, x: x.var(dim=0, correction=0), lambda x: x.var(0), [(3, 4)])
rows("var_fn", lambda t, x: t.var(x, 1), lambda x: x.var(1, ddof=1), [(3, 4)])
rows("std", lambda t, x: x.std(), lambda x: x.std(ddof=1), [(3, 4)])
rows("std_dim_keepdim", lambda t, x: x.std(0, keepdim=True),
     lambda x: x.std(0, ddof=1, keepdims=True), [(3, 4)])
rows("std_dim_tuple", lambda t, x: x.std(dim=(1, 2)), lambda x: x.std((1, 2), ddof=1), [(2, 3, 4)])
rows("std_biased", lambda t, x: x.std(unbiased=False), lambda x: x.std(), [(3, 4)])
rows("std_correction2_fn", lambda t, x: t.std(x, dim=-1, correction=2),
     lambda x: x.std(-1, ddof=2), [(3, 5)])


def _softmax(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


rows("softmax", lambda t, x: t.softmax(x, dim=-1), lambda x: _softmax(x, -1), [(3, 4)], [(5,)])
rows("softmax_dim0", lambda t, x: x.softmax(0), lambda x: _softmax(x, 0), [(2, 3, 4)], [()])
rows("log_softmax", lambda t, x: t.log_softmax(x, 1), lambda x: np.log(_softmax(x, 1)),
     [(3, 4)], [(2, 3, 4)])
rows("log_softmax_method", lambda t, x: x.log_softmax(dim=-1), lambda x: np.log(_softmax(x, -1)),
     [(5,)])


def _logsumexp(x, axis, keepdims=False):
    m = x.max(axis, keepdims=True)
    out = np.log(np.exp(x - m).sum(axis, keepdims=True)) + m
    return out if keepdims else out.squeeze(axis)


rows("logsumexp", lambda t, x: t.logsumexp(x, 1), lambda x: _logsumexp(x, 1), [(3, 4)], [(2, 3, 4)])
rows("logsumexp_dims_keepdim", lambda t, x: x.logsumexp((0, 2), keepdim=True),
     lambda x: _logsumexp(x, (0, 2), True), [(2, 3, 4)])
rows("count_nonzero", lambda t, x: t.count_nonzero(x), np.count_nonzero, [(3, 4)], domain="small_int",
     grad=False, dtypes=FLOAT_INT_BOOL)
rows("count_nonzero_dim", lambda t, x: x.count_nonzero(dim=(0, -1)), lambda x: np.count_nonzero(x, (0, 2)),
     [(2, 3, 4)], domain="small_int", grad=False, dtypes=FLOAT_INT)
rows("var_mean", lambda t, x: t.var_mean(x, 1), lambda x: (x.var(1, ddof=1), x.mean(1)), [(3, 4)])
rows("var_mean_all", lambda t, x: t.var_mean(x, correction=0), lambda x: (x.var(), x.mean()), [(3, 4)])
rows("std_mean", lambda t, x: t.std_mean(x, (0, 1), keepdim=True),
     lambda x: (x.std((0, 1), ddof=1, keepdims=True), x.mean((0, 1), keepdims=True)), [(2, 3, 4)])
rows("trace", lambda t, x: x.trace(), np.trace, [(3, 4)], [(4, 2)], dtypes=FLOAT_INT)

# ---------------------------------------------------------------- matmul
rows("matmul", lambda t, x, y: x @ y, np.matmul,
     [(4,), (4,)], [(4,), (4, 3)], [(3, 4), (4,)], [(3, 4), (4, 5)], [(2, 3, 4), (2, 4, 5)],
     [(2, 1, 3, 4), (5, 4, 2)], [(2, 3, 4), (4,)], [(4,), (2, 4, 3)], [(3, 4), (2, 4, 5)],
     rtol=1e-5, atol=1e-5)
rows("matmul_fn", lambda t, x, y: t.matmul(x, y), np.matmul, [(3, 4), (4, 2)])
rows("matmul_method", lambda t, x, y: x.matmul(y), np.matmul, [(2, 3, 4), (4, 2)])
rows("mm", lambda t, x, y: t.mm(x, y), np.matmul, [(3, 4), (4, 5)])
rows("mm_method", lambda t, x, y: x.mm(y), np.matmul, [(1, 4), (4, 1)])
rows("bmm", lambda t, x, y: t.bmm(x, y), np.matmul, [(2, 3, 4), (2, 4, 5)])
rows("bmm_method", lambda t, x, y: x.bmm(y), np.matmul, [(3, 1, 4), (3, 4, 2)])
rows("matmul_of_transposed", lambda t, x, y: x.t() @ y, lambda x, y: x.T @ y, [(4, 3), (4, 2)])

# ---------------------------------------------------------------- shapes and views
_SHAPE = dict(dtypes=FLOAT_INT_BOOL)
rows("reshape", lambda t, x: x.reshape(3, 4), lambda x: x.reshape(3, 4), [(2, 6)], **_SHAPE)
rows("reshape_tuple_neg1", lambda t, x: x.reshape((2, -1, 3)), lambda x: x.reshape(2, -1, 3),
     [(12,)], **_SHAPE)
rows("reshape_flat", lambda t, x: x.reshape(-1), lambda x: x.reshape(-1), [(3, 4)], [()])
rows("reshape_to_0d", lambda t, x: x.reshape(()), lambda x: x.reshape(()), [(1,)])
rows("reshape_fn", lambda t, x: t.reshape(x, (4, 3)), lambda x: x.reshape(4, 3), [(3, 4)])
rows("reshape_noncontig", lambda t, x: x.t().reshape(-1), lambda x: x.T.reshape(-1), [(3, 4)])
rows("view", lambda t, x: x.view(2, 2, 3), lambda x: x.reshape(2, 2, 3), [(3, 4)], **_SHAPE)
rows("view_neg1", lambda t, x: x.view(-1), lambda x: x.reshape(-1), [(3, 4)], [()])
rows("flatten", lambda t, x: x.flatten(), lambda x: x.reshape(-1), [(2, 3, 4)], [()], **_SHAPE)
rows("flatten_start", lambda t, x: x.flatten(1), lambda x: x.reshape(2, -1), [(2, 3, 4)])
rows("flatten_start_end", lambda t, x: x.flatten(0, 1), lambda x: x.reshape(6, 4), [(2, 3, 4)])
rows("flatten_neg", lambda t, x: t.flatten(x, start_dim=-2, end_dim=-1),
     lambda x: x.reshape(2, -1), [(2, 3, 4)])
rows("squeeze", lambda t, x: x.squeeze(), np.squeeze, [(3, 1, 4, 1)], [(1,)], [()], **_SHAPE)
rows("squeeze_dim", lambda t, x: x.squeeze(1), lambda x: x.squeeze(1), [(3, 1, 4)])
rows("squeeze_neg_dim", lambda t, x: x.squeeze(-1), lambda x: x.squeeze(-1), [(3, 4, 1)])
rows("squeeze_dim_not1", lambda t, x: x.squeeze(0), lambda x: x, [(3, 1)])
rows("unsqueeze", lambda t, x: x.unsqueeze(0), lambda x: x[None], [(3, 4)], [()], **_SHAPE)
rows("unsqueeze_neg", lambda t, x: x.unsqueeze(-1), lambda x: x[..., None], [(3, 4)])
rows("unsqueeze_mid_fn", lambda t, x: t.unsqueeze(x, 1), lambda x: x[:, None], [(3, 4)])
rows("transpose", lambda t, x: x.transpose(0, 1), lambda x: x.swapaxes(0, 1), [(3, 4)], **_SHAPE)
rows("transpose_neg", lambda t, x: x.transpose(-1, 0), lambda x: x.swapaxes(-1, 0), [(2, 3, 4)])
rows("transpose_fn", lambda t, x: t.transpose(x, 1, 2), lambda x: x.swapaxes(1, 2), [(2, 3, 4)])
rows("t", lambda t, x: x.t(), lambda x: x.T, [(3, 4)], [(4,)], **_SHAPE)
rows("T", lambda t, x: x.T, lambda x: x.T, [(3, 4)])
rows("permute", lambda t, x: x.permute(2, 0, 1), lambda x: x.transpose(2, 0, 1), [(2, 3, 4)],
     **_SHAPE)
rows("permute_tuple_neg", lambda t, x: x.permute((-1, 0, 1)), lambda x: x.transpose(2, 0, 1),
     [(2, 3, 4)])
rows("permute_then_add", lambda t, x, y: x.permute(1, 0) + y, lambda x, y: x.T + y,
     [(3, 4), (4, 3)])
rows("expand", lambda t, x: x.expand(3, 4), lambda x: np.broadcast_to(x, (3, 4)), [(3, 1)],
     [(4,)], [()], **_SHAPE)
rows("expand_neg1", lambda t, x: x.expand(2, -1, 4), lambda x: np.broadcast_to(x, (2, 3, 4)),
     [(3, 1)])
rows("expand_tuple", lambda t, x: x.expand((2, 3)), lambda x: np.broadcast_to(x, (2, 3)), [(1, 3)])
rows("contiguous", lambda t, x: x.transpose(0, 1).contiguous(), lambda x: x.T, [(3, 4)], **_SHAPE)
rows("clone", lambda t, x: x.clone(), np.copy, [(3, 4)], [()], **_SHAPE)
rows("clone_fn", lambda t, x: t.clone(x) * 2, lambda x: x * 2, [(3, 4)])
rows("tril", lambda t, x: x.tril(), np.tril, [(3, 4)], [(2, 3, 3)], **_SHAPE)
rows("tril_k_fn", lambda t, x: t.tril(x, -1), lambda x: np.tril(x, -1), [(4, 3)])
rows("triu", lambda t, x: t.triu(x, 1), lambda x: np.triu(x, 1), [(3, 4)], [(2, 3, 3)], **_SHAPE)
rows("flip", lambda t, x: x.flip(0), lambda x: np.flip(x, 0) if x.ndim else x, [(3, 4)], [()], **_SHAPE)
rows("flip_dims_fn", lambda t, x: t.flip(x, (0, -1)), lambda x: np.flip(x, (0, 2)), [(2, 3, 4)])
rows("narrow", lambda t, x: x.narrow(1, 1, 2), lambda x: x[:, 1:3], [(3, 4)], **_SHAPE)
rows("narrow_neg_fn", lambda t, x: t.narrow(x, -1, -3, 2), lambda x: x[..., 1:3], [(2, 3, 4)])
rows("unbind", lambda t, x: x.unbind(1), lambda x: tuple(np.moveaxis(x, 1, 0)), [(3, 4)], **_SHAPE)
rows("unbind_fn", lambda t, x: t.unbind(x)[1] * 2, lambda x: x[1] * 2, [(3, 2, 2)])
rows("movedim", lambda t, x: t.movedim(x, 0, -1), lambda x: np.moveaxis(x, 0, -1), [(2, 3, 4)], **_SHAPE)
rows("moveaxis_tuple", lambda t, x: x.moveaxis((0, 1), (2, 0)), lambda x: np.moveaxis(x, (0, 1), (2, 0)),
     [(2, 3, 4)])
rows("diag", lambda t, x: t.diag(x), np.diag, [(3,)], [(3, 4)], **_SHAPE)
rows("diag_k", lambda t, x: x.diag(1), lambda x: np.diag(x, 1), [(3,)], [(3, 4)])
rows("diag_neg_k", lambda t, x: x.diag(-2), lambda x: np.diag(x, -2), [(2,)], [(4, 3)])
rows("outer", lambda t, x, y: t.outer(x, y), np.outer, [(3,), (4,)], dtypes=FLOAT_INT)
rows("ger", lambda t, x, y: x.ger(y), np.outer, [(2,), (3,)])

# ---------------------------------------------------------------- indexing
_MASK45 = np.array([[1, 0, 0, 1, 1], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1], [0, 1, 0, 0, 1]], bool)


def getitem(name, key, *arg_sets, dtypes=FLOAT_INT_BOOL):
    rows(name, lambda t, x: x[_key(t, x, key)], lambda x: x[key], *arg_sets, dtypes=dtypes)


getitem("index_int", 1, [(4, 5)])
getitem("index_neg_int", -1, [(4, 5)], [(3,)])
getitem("index_int_int", np.s_[1, -2], [(4, 5)])
getitem("index_slice", np.s_[1:3], [(4, 5)])
getitem("index_step", np.s_[::2], [(5, 3)])
getitem("index_slices_steps", np.s_[1::2, ::3], [(4, 5)])
getitem("index_neg_slice", np.s_[:, -3:-1], [(4, 5)])
getitem("index_slice_empty", np.s_[3:1], [(4, 5)], dtypes=FLOAT)
getitem("index_none", None, [(4, 5)], [()])
getitem("index_ellipsis", np.s_[..., 1], [(3, 4, 5)])
getitem("index_ellipsis_0d", Ellipsis, [()], dtypes=FLOAT)
getitem("index_int_ellipsis_none", np.s_[1, ..., None], [(3, 4, 5)])
getitem("index_slice_none_int", np.s_[:, None, 2], [(4, 5)])
getitem("index_list_repeated", [0, 2, 0], [(4, 5)])
getitem("index_list_neg", [-1, 0], [(4, 5)])
getitem("index_list_dim1", np.s_[:, [4, 0, 1]], [(4, 5)])
getitem("index_list_pairs", np.s_[[0, 1, 3], [2, 3, 2]], [(4, 5)])
getitem("index_tensor", np.array([3, 0, 3]), [(4, 5)])
getitem("index_tensor_2d", np.array([[0, 1], [3, 0]]), [(4, 5)])
getitem("index_tensor_neg", np.array([1, -1]), [(4,)])
getitem("index_mask", _MASK45, [(4, 5)])
getitem("index_mask_rows", np.array([True, False, True, True]), [(4, 5)])
getitem("index_slice_list", np.s_[1:, [0, 2]], [(4, 5)])
getitem("index_list_slice", np.s_[[0, 2], 1:], [(4, 5)])
getitem("index_list_slice_list", np.s_[[0, 1], :, [1, 2]], [(3, 4, 5)])
getitem("index_ellipsis_list", np.s_[..., [0, 2]], [(3, 4, 5)])
getitem("index_int_tensor_slice", np.s_[1, np.array([0, 2, 2]), ::2], [(3, 4, 5)])
rows("index_mask_arg", lambda t, x, m: x[m], lambda x, m: x[m], [(3, 4), Arg((3, 4), dtype="bool")],
     dtypes=FLOAT_INT)
rows("index_mask_from_compare", lambda t, x: x[x > 0], lambda x: x[x > 0], [(3, 4)],
     domain="nonzero")
rows("index_chained", lambda t, x: x[1][2:], lambda x: x[1][2:], [(4, 5)])
_GATHER1 = np.array([[0, 4, 4], [1, 0, 2], [3, 3, 3], [2, 1, 0]])
_GATHER0 = np.array([[0, 3, 1, 1, 2], [2, 2, 0, 1, 3]])
rows("gather", lambda t, x: x.gather(1, _key(t, x, _GATHER1)), lambda x: np.take_along_axis(x, _GATHER1, 1),
     [(4, 5)], dtypes=FLOAT_INT_BOOL)
rows("gather_dim0_fn", lambda t, x: t.gather(x, 0, _key(t, x, _GATHER0)),
     lambda x: np.take_along_axis(x, _GATHER0, 0), [(4, 5)])
rows("take_along_dim", lambda t, x: t.take_along_dim(x, _key(t, x, _GATHER1[:1]), 1),
     lambda x: np.take_along_axis(x, np.broadcast_to(_GATHER1[:1], (4, 3)), 1), [(4, 5)])
rows("take_along_dim_flat", lambda t, x: x.take_along_dim(_key(t, x, _GATHER1)),
     lambda x: x.reshape(-1)[_GATHER1.reshape(-1)], [(4, 5)])
rows("index_select", lambda t, x: x.index_select(1, _key(t, x, np.array([4, 0, 4]))),
     lambda x: x[:, [4, 0, 4]], [(4, 5)], dtypes=FLOAT_INT_BOOL)
rows("index_select_fn", lambda t, x: t.index_select(x, 0, _key(t, x, np.array([2, 3]))), lambda x: x[[2, 3]],
     [(4, 5)])
rows("masked_select", lambda t, x, m: x.masked_select(m), lambda x, m: x[m], [(3, 4), Arg((3, 4), dtype="bool")],
     dtypes=FLOAT_INT_BOOL)
rows("masked_select_broadcast", lambda t, x, m: t.masked_select(x, m),
     lambda x, m: np.broadcast_to(x, (3, 4))[np.broadcast_to(m, (3, 4))], [(4,), Arg((3, 1), dtype="bool")])


def setitem(name, key, *arg_sets, scalar=None, dtypes=FLOAT):
    """y = x.clone(); y[key] = value: gradients flow to x (outside key) and to the value."""
    if scalar is None:
        def fn(t, x, v):
            y = x.clone()
            y[_key(t, x, key)] = v
            return y

        def ref(x, v):
            y = x.copy()
            y[key] = v
            return y
    else:
        def fn(t, x):
            y = x * 1
            y[_key(t, x, key)] = scalar
            return y

        def ref(x):
            y = x.copy()
            y[key] = scalar
            return y
    rows(name, fn, ref, *arg_sets, dtypes=dtypes)


setitem("setitem_int", 1, [(4, 5), (5,)], dtypes=FLOAT_INT)
setitem("setitem_int_broadcast", 1, [(4, 5), (1,)], [(4, 5), ()])
setitem("setitem_slice_step", np.s_[:, ::2], [(4, 5), (3,)], [(4, 5), (4, 3)])
setitem("setitem_scalar", 0, [(4, 5)], scalar=2.5)
setitem("setitem_int_scalar", np.s_[1:, 2], [(4, 5)], scalar=7, dtypes=FLOAT_INT)
setitem("setitem_mask_scalar", _MASK45, [(4, 5)], scalar=0.0)
setitem("setitem_mask_value", _MASK45, [(4, 5), ()])
setitem("setitem_list", [0, 2], [(4, 5), (2, 5)])
setitem("setitem_tensor", np.array([3, 1]), [(4, 5), (5,)])
setitem("setitem_slice_list", np.s_[1:3, [0, 4]], [(4, 5), (2, 2)])
setitem("setitem_ellipsis", np.s_[..., 1], [(3, 4, 5), (3, 4)])


def _setitem_then_use(t, x, v):
    y = x * 2
    y[0] = v
    return (y * x).sum(0)


rows("setitem_then_use", _setitem_then_use,
     lambda x, v: (np.concatenate([v[None] + 0 * x[:1], x[1:] * 2]) * x).sum(0), [(3, 4), (4,)])

_SCATTER1 = np.array([[4, 0], [1, 2], [3, 4], [0, 1]])  # distinct within a row: a defined result


def _scattered(x, src, add=False):
    y = x.copy()
    for i, j in np.ndindex(_SCATTER1.shape):
        if add:
            y[i, _SCATTER1[i, j] % 3] += src[i, j]
        else:
            y[i, _SCATTER1[i, j]] = src[i, j]
    return y


rows("scatter", lambda t, x, s: x.scatter(1, _key(t, x, _SCATTER1), s), _scattered, [(4, 5), (4, 2)],
     dtypes=FLOAT_INT_BOOL)
rows("scatter_src_larger_fn", lambda t, x, s: t.scatter(x, 1, _key(t, x, _SCATTER1), s),
     lambda x, s: _scattered(x, s), [(4, 5), (4, 3)], grad=False)  # torch's engine refuses src's gradient
rows("scatter_value", lambda t, x: x.scatter(1, _key(t, x, _SCATTER1), 2.5),
     lambda x: _scattered(x, np.full((4, 2), 2.5)), [(4, 5)])
rows("scatter_add", lambda t, x, s: x.scatter_add(1, _key(t, x, _SCATTER1 % 3), s),
     lambda x, s: _scattered(x, s, True), [(4, 5), (4, 2)], dtypes=FLOAT_INT)
rows("scatter_", lambda t, x, s: (x * 1).scatter_(1, _key(t, x, _SCATTER1), s), _scattered, [(4, 5), (4, 2)])
rows("scatter_add_", lambda t, x, s: (x * 1).scatter_add_(1, _key(t, x, _SCATTER1 % 3), s),
     lambda x, s: _scattered(x, s, True), [(4, 5), (4, 2)])

# ---------------------------------------------------------------- joining and splitting
rows("cat", lambda t, x, y: t.cat([x, y]), lambda x, y: np.concatenate([x, y]),
     [(2, 3), (4, 3)], [(3,), (2,)], dtypes=FLOAT_INT_BOOL)
rows("cat_dim1", lambda t, x, y: t.cat((x, y), dim=1), lambda x, y: np.concatenate([x, y], 1),
     [(2, 3), (2, 1)])
rows("cat_three_neg", lambda t, x, y, z: t.cat([x, y, z], -1),
     lambda x, y, z: np.concatenate([x, y, z], -1), [(2, 3), (2, 2), (2, 1)])
rows("cat_f32_f64", lambda t, x, y: t.cat([x, y]), lambda x, y: np.concatenate([x, y]),
     [(2, 3), Arg((1, 3), dtype="float64")], dtypes=("float32",))
rows("stack", lambda t, x, y: t.stack([x, y]), lambda x, y: np.stack([x, y]), [(3, 4), (3, 4)],
     [(), ()], dtypes=FLOAT_INT_BOOL)
rows("stack_neg", lambda t, x, y: t.stack((x, y), dim=-1), lambda x, y: np.stack([x, y], -1),
     [(3, 4), (3, 4)])
rows("stack_three_dim1", lambda t, x, y, z: t.stack([x, y, z], 1),
     lambda x, y, z: np.stack([x, y, z], 1), [(2, 3), (2, 3), (2, 3)])
rows("split", lambda t, x: x.split(2), lambda x: np.split(x, [2, 4]), [(5, 3)], dtypes=FLOAT_INT)
rows("split_sizes", lambda t, x: x.split([1, 3], dim=1), lambda x: np.split(x, [1], 1), [(2, 4)])
rows("split_neg_dim", lambda t, x: x.split(2, dim=-1), lambda x: np.split(x, [2, 4], -1), [(3, 5)])
rows("split_fn", lambda t, x: t.split(x, [2, 3]), lambda x: np.split(x, [2]), [(5,)])
rows("chunk", lambda t, x: x.chunk(3), lambda x: np.split(x, [2, 4]), [(6, 2)], [(5, 2)],
     dtypes=FLOAT_INT)
# torch keeps ceil(6/4) = 2 per chunk, so 4 chunks of a 6-vector come back as 3
rows("chunk_fewer", lambda t, x: x.chunk(4), lambda x: np.split(x, [2, 4]), [(6,)])
rows("chunk_fn_neg", lambda t, x: t.chunk(x, 2, dim=-1), lambda x: np.split(x, [2], -1), [(5, 3)])


# ---------------------------------------------------------------- in-place on non-leaf tensors
def inplace(name, apply, ref, *arg_sets, dtypes=FLOAT, smooth=True):
    """y = x * 1 (a non-leaf), then `apply(y, *others)` changes y in place; y is returned."""
    def fn(t, x, *others):
        y = x * 1
        apply(y, *others)
        return y
    rows(name, fn, ref, *arg_sets, dtypes=dtypes, smooth=smooth)


_W = ([(3, 4), (4,)], [(3, 4), (3, 4)], [(3, 4), ()])
inplace("add_", lambda y, w: y.add_(w), np.add, *_W, dtypes=FLOAT_INT)
inplace("add_scalar_", lambda y: y.add_(2.5), lambda x: x + 2.5, [(3, 4)])
inplace("sub_", lambda y, w: y.sub_(w), np.subtract, *_W[:2], dtypes=FLOAT_INT)
inplace("sub_scalar_", lambda y: y.sub_(1), lambda x: x - 1, [(3, 4)], dtypes=FLOAT_INT)
inplace("mul_", lambda y, w: y.mul_(w), np.multiply, *_W, dtypes=FLOAT_INT)
inplace("mul_scalar_", lambda y: y.mul_(2), lambda x: x * 2, [(3, 4)], [()], dtypes=FLOAT_INT)
inplace("div_", lambda y, w: y.div_(w), np.divide, [(3, 4), Arg((4,), "nonzero")])
inplace("div_scalar_", lambda y: y.div_(4.0), lambda x: x / 4.0, [(3, 4)])
inplace("clamp_", lambda y: y.clamp_(-0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5),
        [Arg((3, 4), avoid=(-0.5, 0.5))], smooth=False)
inplace("clamp_min_", lambda y: y.clamp_(min=0.0), lambda x: np.maximum(x, 0.0),
        [Arg((3, 4), avoid=(0,))], smooth=False)
inplace("iadd", operator.iadd, np.add, *_W[:2], dtypes=FLOAT_INT)
inplace("iadd_scalar", lambda y: operator.iadd(y, 1.5), lambda x: x + 1.5, [(3, 4)])
inplace("isub", operator.isub, np.subtract, _W[0], dtypes=FLOAT_INT)
inplace("isub_scalar", lambda y: operator.isub(y, 1.5), lambda x: x - 1.5, [()])
inplace("imul", operator.imul, np.multiply, *_W, dtypes=FLOAT_INT)
inplace("imul_scalar", lambda y: operator.imul(y, 3), lambda x: x * 3, [(3, 4)])
inplace("inplace_chain", lambda y, w: y.add_(w).mul_(w).sub_(1.0), lambda x, w: (x + w) * w - 1.0,
        [(3, 4), (4,)])
inplace("zero_", lambda y: y.zero_(), np.zeros_like, [(3, 4)])
inplace("fill_", lambda y: y.fill_(2.5), lambda x: np.full_like(x, 2.5), [(3, 4)])
inplace("copy_", lambda y, w: y.copy_(w), lambda x, w: np.broadcast_to(w, x.shape) + 0 * x,
        [(3, 4), (4,)], [(3, 4), (3, 4)])


def _mul_on_view(y):
    y[0].mul_(2)  # the change lands in y through the view


def _mul_on_view_ref(x):
    y = x.copy()
    y[0] *= 2
    return y


inplace("mul_on_view", _mul_on_view, _mul_on_view_ref, [(3, 4)])

# in-place unary methods (ops/composed.py); log_ and abs_ differentiate at the value before the write
inplace("exp_", lambda y: y.exp_(), np.exp, [(3, 4)], [()])
inplace("log_", lambda y: y.log_(), np.log, [Arg((3, 4), "pos")])
inplace("sqrt_", lambda y: y.sqrt_(), np.sqrt, [Arg((3, 4), "pos")])
inplace("abs_", lambda y: y.abs_(), np.abs, [Arg((3, 4), avoid=(0,))], dtypes=FLOAT_INT, smooth=False)
inplace("neg_", lambda y: y.neg_(), np.negative, [(3, 4)], dtypes=FLOAT_INT)
inplace("sigmoid_", lambda y: y.sigmoid_(), lambda x: 1 / (1 + np.exp(-x)), [(3, 4)])
inplace("tanh_", lambda y: y.tanh_(), np.tanh, [(3, 4)])
inplace("relu_", lambda y: y.relu_(), lambda x: np.maximum(x, 0), [Arg((3, 4), avoid=(0,))], dtypes=FLOAT_INT,
        smooth=False)
inplace("floor_", lambda y: y.floor_(), np.floor, [Arg((3, 4), avoid=_INTEGERS)], smooth=False)
inplace("ceil_", lambda y: y.ceil_(), np.ceil, [Arg((3, 4), avoid=_INTEGERS)], smooth=False)
inplace("round_", lambda y: y.round_(), np.rint, [Arg((3, 4), avoid=_HALVES)], smooth=False)
inplace("trunc_", lambda y: y.trunc_(), np.trunc, [Arg((3, 4), avoid=_INTEGERS)], smooth=False)
inplace("clamp_min__", lambda y: y.clamp_min_(0.5), lambda x: np.maximum(x, 0.5), [Arg((3, 4), avoid=(0.5,))],
        smooth=False)
inplace("clamp_max_", lambda y: y.clamp_max_(0.5), lambda x: np.minimum(x, 0.5), [Arg((3, 4), avoid=(0.5,))],
        smooth=False)
inplace("lerp_", lambda y, w: y.lerp_(w, 0.25), lambda x, w: x + 0.25 * (w - x), [(3, 4), (4,)])
inplace("tril_", lambda y: y.tril_(1), lambda x: np.tril(x, 1), [(3, 4)])
inplace("exp_on_view", lambda y: y[1].exp_(), lambda x: np.concatenate([x[:1], np.exp(x[1:2]), x[2:]]), [(3, 4)])


def _check_ids_unique():
    ids = [op.id for op in OPS]
    dup = {i for i in ids if ids.count(i) > 1}
    assert not dup, f"op table ids must be unique: {sorted(dup)}"


_check_ids_unique()
