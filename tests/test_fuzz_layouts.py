"""A seeded differential fuzzer against PyTorch over input layouts.

Most op tests feed fresh contiguous inputs; programs feed views. Each case here draws (from a
fixed seed and its own index, so any case replays alone) an op and its inputs, each input a
recipe: NumPy values, a dtype, and a list of view steps (permute, stepped slices, offsets,
expand to stride 0, unsqueeze, overlapping as_strided) applied the same way in both libraries.
It then compares minigrad with torch: values (bit for bit where torch's algorithm is exact on
the drawn values, within a tolerance otherwise), dtypes, shapes, the strides and offsets of
results that are views, version counters after in-place ops, errors (type and message, torch's
name read as minigrad's), grad_fn names, and the gradient of every float input that requires
grad after a backward pass with a random cotangent.

A failing case prints one line that replays it:
    cd tests && python -c "import test_fuzz_layouts as f; f.replay('cpu', 123)"

The op families: elementwise (unary, binary, operators, ternary), reductions, cumulative ops,
matmul, softmax, indexing (get, set, index functions), joins, shape ops, sorting, in-place ops,
nn.functional (conv, pools, norms, losses; interpolate, pad, one_hot, distances, unfold/fold,
pixel_shuffle, grid_sample), linalg, special functions and distributions' log_prob.

The cuda variant runs the same cases (fewer, and with block-boundary sizes) on minigrad's CUDA
backend; it runs on a GPU or under MINIGRAD_EMULATED_CUDA=1 and is skipped otherwise.
bfloat16 and channels_last are not drawn (other work covers them).
"""
import re
import warnings

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")

from conftest import DEVICES  # noqa: E402

SEED = 0x5EED
N_CASES = {"cpu": 60000, "cuda": 1500}  # (cpu: about 40 s on one free core)

FLOATS = ("float32", "float64", "float16")
INTS = ("int64", "int32", "uint8")
ALL = FLOATS + INTS + ("bool",)
TOL = {"float16": (2e-3, 2e-3), "float32": (2e-5, 2e-6), "float64": (1e-10, 1e-12)}


# ---- input recipes --------------------------------------------------------------------------

class Rec:
    """An input made the same way in both libraries: values -> tensor -> view steps."""

    def __init__(self, values, dtype, steps=(), grad=False, clone=False):
        self.values, self.dtype, self.steps = values, dtype, list(steps)
        self.grad, self.clone = grad, clone

    def __repr__(self):
        s = f"{self.dtype}{list(self.values.shape)}"
        for st in self.steps:
            s += "." + st[0] + repr(tuple(st[1:])).replace(" ", "")
        return s + ("^g" if self.grad else "") + ("^c" if self.clone else "")


def build(L, rec, device):
    """(leaf, tensor after the view steps) in library L."""
    kw = {"device": device} if L is minigrad else {}
    leaf = L.tensor(rec.values, dtype=getattr(L, rec.dtype), requires_grad=rec.grad, **kw)
    t = leaf.clone() if rec.clone else leaf
    for st in rec.steps:
        op, args = st[0], st[1:]
        if op == "slice":
            dim, a, b, s = args
            t = t[(slice(None),) * dim + (slice(a, b, s),)]
        elif op in ("permute", "expand"):
            t = getattr(t, op)(*args[0])
        elif op == "as_strided":
            t = t.as_strided(*args)
        else:
            t = getattr(t, op)(*args)
    return leaf, t


def values(rng, shape, dtype, mode="grid"):
    n = int(np.prod(shape)) if shape else 1
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in INTS:
        if mode == "distinct":
            v = rng.permutation(n).reshape(shape)
            return (v if dtype == "uint8" else v - n // 2).astype(dtype) if n < 250 or dtype != "uint8" else \
                rng.integers(0, 250, shape).astype(dtype)
        lo = 0 if dtype == "uint8" or mode == "pos" else -6
        return rng.integers(lo + (mode == "pos"), 7, shape).astype(dtype)
    if mode == "distinct":
        v = (rng.permutation(n).reshape(shape) - n // 2) / 4.0
        if dtype == "float16" and n > 2000:
            v = rng.standard_normal(shape)
    elif mode == "pos":
        v = rng.integers(1, 17, shape) / 4.0
    elif mode == "normal":
        v = rng.standard_normal(shape)
    elif mode == "unit":  # inside (-1, 1)
        v = rng.uniform(-0.95, 0.95, shape)
    else:  # small multiples of 1/4: sums and products of a few are exact in every float dtype
        v = rng.integers(-12, 13, shape) / 4.0
    return np.asarray(v, dtype=dtype)


def _layout(rng, shape, allow_expand, allow_overlap):
    """(base shape, view steps) giving a tensor of `shape` with a random layout."""
    nd = len(shape)
    kinds = ["contig", "offset", "step"] + (["perm", "transpose"] if nd >= 2 else [])
    if 1 in shape:
        kinds.append("unsqueeze")
    if allow_expand and nd and any(n != 1 for n in shape):
        kinds.append("expand")
    if allow_overlap and 1 <= nd <= 2 and 0 not in shape:
        kinds.append("overlap")
    kind = kinds[rng.integers(len(kinds))]
    shape = list(shape)
    if kind == "perm" or kind == "transpose":
        if kind == "perm":
            q = [int(i) for i in rng.permutation(nd)]
        else:
            a, b = (int(i) for i in rng.choice(nd, 2, replace=False))
            q = list(range(nd))
            q[a], q[b] = b, a
        base = [0] * nd
        for i in range(nd):
            base[q[i]] = shape[i]
        return base, [("permute", tuple(q))] if kind == "perm" else [("transpose", a, b)]
    if kind == "offset" and nd:
        d = int(rng.integers(nd))
        base = shape.copy()
        base[d] += 2
        return base, [("slice", d, 1, 1 + shape[d], None)]
    if kind == "step" and nd:
        d = int(rng.integers(nd))
        s, a = int(rng.integers(2, 4)), int(rng.integers(0, 2))
        n = shape[d]
        base = shape.copy()
        base[d] = a + (n - 1) * s + 1 if n else a
        return base, [("slice", d, a, a + n * s, s)]
    if kind == "unsqueeze":
        d = shape.index(1)
        return shape[:d] + shape[d + 1:], [("unsqueeze", d)]
    if kind == "expand":
        base = [1 if (n != 1 and rng.random() < 0.6) else n for n in shape]
        lead = int(rng.integers(0, 2)) if nd else 0
        return base[lead:], [("expand", tuple(shape))]
    if kind == "overlap":  # as_strided with strides that make elements share memory
        strides = [1] * nd if nd == 1 or rng.random() < 0.5 else [max(shape[1] - 1, 1), 1]
        if nd == 1:
            strides = [int(rng.integers(0, 2))]
        size = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
        return [size], [("as_strided", tuple(shape), tuple(strides), 1)]
    return shape, []


def rec(rng, shape, dtype, mode="grid", grad=None, expand=True, overlap=True, depth=None, clone=False):
    """A recipe for an input of `shape`: one or two layout steps over a base tensor."""
    shape = tuple(shape)
    if mode == "distinct":  # an expanded or overlapping view repeats values: ties again
        expand = overlap = False
    steps = []
    cur = shape
    for _ in range(int(rng.integers(0, 3)) if depth is None else depth):
        base, st = _layout(rng, cur, expand, overlap)
        steps = st + steps
        cur = tuple(base)
        overlap = False  # an as_strided step reads a 1-d base: keep it the first step
        if st and st[0][0] == "as_strided":
            break
    if grad is None:
        grad = dtype in FLOATS and rng.random() < 0.7
    return Rec(values(rng, cur, dtype, mode), dtype, steps, grad=grad and dtype in FLOATS, clone=clone)


def shape_of(rng, ndim=None, lo=0, big=False):
    nd = int(rng.choice([0, 1, 2, 2, 3, 3, 4])) if ndim is None else ndim
    sizes = [1, 2, 3, 3, 4, 5, 0] if lo == 0 else [n for n in (1, 2, 3, 3, 4, 5) if n >= lo]
    shp = [int(rng.choice(sizes)) for _ in range(nd)]
    if big and nd and rng.random() < 0.3:  # block boundaries of the CUDA kernels
        d = int(rng.integers(nd))
        shp = [1] * nd
        shp[d] = int(rng.choice([255, 256, 257, 1023, 1025] + ([70000] if nd == 1 else [])))
    return tuple(shp)


def bshape(rng, shape):
    """A shape that broadcasts with `shape` (trailing dims kept, set to 1, or dropped)."""
    out = [n if rng.random() < 0.6 else 1 for n in shape]
    return tuple(out[int(rng.integers(0, len(out) + 1)):]) if rng.random() < 0.3 else tuple(out)


def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


# ---- the op catalogue: each draws (inputs, fn(L, *inputs), options) ----------------------------

OPS = {}


def op(name, weight=1):
    def deco(fn):
        OPS[name] = (fn, weight)
        return fn
    return deco


UNARY_F = {  # name: (input mode, exact on grid values)
    "neg": ("grid", True), "abs": ("grid", True), "exp": ("normal", False), "log": ("pos", False),
    "sqrt": ("pos", False), "sin": ("normal", False), "tanh": ("normal", False),
    "sigmoid": ("normal", False), "relu": ("grid", True), "floor": ("normal", True),
    "ceil": ("normal", True), "round": ("normal", True), "trunc": ("normal", True), "sign": ("grid", True),
    "reciprocal": ("pos", False), "square": ("grid", True), "rsqrt": ("pos", False),
    "expm1": ("normal", False), "log1p": ("pos", False), "erf": ("normal", False), "frac": ("normal", True),
    "atan": ("normal", False), "cos": ("normal", False), "log2": ("pos", False), "exp2": ("normal", False),
    "asin": ("unit", False), "sinh": ("normal", False), "logit": ("unit", False)}


@op("unary", 6)
def _unary(rng, big):
    name = pick(rng, sorted(UNARY_F))
    mode, exact = UNARY_F[name]
    dt = pick(rng, FLOATS + (("int64", "int32", "bool") if exact else ("int64",)))
    if name == "logit":
        mode = "unit" if dt in FLOATS else "grid"
    x = rec(rng, shape_of(rng, big=big), dt, "pos" if mode == "pos" and dt in INTS else mode)
    return [x], (lambda L, a: getattr(L, name)(a)), {"exact": exact}


@op("unary_int")
def _unary_int(rng, big):
    name = pick(rng, ["bitwise_not", "logical_not", "neg", "abs", "sign", "square"])
    dt = pick(rng, ("int64", "int32", "uint8", "bool"))
    return [rec(rng, shape_of(rng, big=big), dt)], (lambda L, a: getattr(L, name)(a)), {"exact": True}


BINARY = {"add": True, "sub": True, "mul": True, "div": False, "maximum": True, "minimum": True,
          "atan2": False, "remainder": True, "fmod": True, "pow": False, "eq": True, "ne": True,
          "lt": True, "le": True, "gt": True, "ge": True, "logical_and": True, "logical_or": True,
          "logical_xor": True, "floor_divide": True, "true_divide": False, "hypot": False,
          "copysign": True, "fmax": True, "fmin": True}


def _scalar(rng, kind=None):
    kind = kind or pick(rng, ["int", "float", "bool"])
    return {"int": int(rng.integers(-3, 4)), "float": float(rng.integers(-8, 9)) / 4.0 + 0.5,
            "bool": bool(rng.random() < 0.5)}[kind]


@op("binary", 8)
def _binary(rng, big):
    name = pick(rng, sorted(BINARY))
    s = shape_of(rng, big=big)
    da, db = pick(rng, ALL), pick(rng, ALL)
    if name in ("remainder", "fmod", "floor_divide", "div", "true_divide", "pow"):
        if da == "bool" and name in ("remainder", "fmod", "floor_divide"):
            da = "int64"
        mode_b = "pos"
        if db == "bool":
            db = "int64"
    else:
        mode_b = "grid"
    if name in ("atan2", "hypot", "copysign", "fmax", "fmin"):
        da, db = pick(rng, FLOATS + ("int64",)), pick(rng, FLOATS + ("int64",))
    if name == "pow" and db in INTS:
        mode_b = "grid"
        da = pick(rng, FLOATS)  # an int base with a negative int exponent is torch's error, tested apart
    a = rec(rng, s, da, "pos" if name == "pow" else "grid")
    r = rng.random()
    if r < 0.2:  # a Python scalar on one side
        b = _scalar(rng, "int" if db in INTS else ("float" if db in FLOATS else "bool"))
        if mode_b == "pos":
            b = abs(b) + 1
        if name == "pow" and isinstance(b, int):
            b = abs(b)
        if rng.random() < 0.5 and name not in ("pow",):
            return [a], (lambda L, x: getattr(L, name)(x, b)), {"exact": BINARY[name]}
        return [a], (lambda L, x: getattr(L, name)(x, b)), {"exact": BINARY[name]}
    b = rec(rng, bshape(rng, s) if r < 0.6 else s, db, mode_b)
    if rng.random() < 0.3:  # swap the broadcast side
        a, b = b, a
        if mode_b == "pos":  # keep the divisor away from zero
            b.values = np.abs(b.values) + (np.asarray(1 if b.dtype in INTS else 0.25, b.values.dtype))
    kw = {}
    if name in ("add", "sub") and rng.random() < 0.25:
        kw["alpha"] = 2 if rng.random() < 0.5 else 0.5
    return [a, b], (lambda L, x, y: getattr(L, name)(x, y, **kw)), {"exact": BINARY[name]}


OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "<", ">=", "==", "&", "|", "^"]


@op("operator", 4)
def _operator(rng, big):
    sym = pick(rng, OPERATORS)
    s = shape_of(rng, big=big)
    dt = pick(rng, ALL if sym in ("&", "|", "^") else ALL)
    if sym in ("&", "|", "^"):
        dt = pick(rng, ("int64", "int32", "uint8", "bool"))
    a = rec(rng, s, dt, "pos" if sym == "**" else "grid")
    bk = pick(rng, ["int", "float", "bool"]) if sym not in ("&", "|", "^") else pick(rng, ["int", "bool"])
    b = _scalar(rng, bk)
    if sym in ("/", "//", "%"):
        b = abs(b) + 1
    if sym == "**":
        b = abs(b) if not isinstance(b, bool) else b
    rev = rng.random() < 0.4 and sym not in ("**",)
    if rev and sym in ("/", "//", "%"):
        a = rec(rng, s, dt if dt != "bool" else "int64", "pos")
    code = f"b {sym} x" if rev else f"x {sym} b"
    fn = eval(f"lambda L, x: {code}", {"b": b})
    return [a], fn, {"exact": sym not in ("/", "**"), "desc": code.replace("b", repr(b))}


@op("ternary", 4)
def _ternary(rng, big):
    kind = pick(rng, ["where", "where_s", "clamp", "clamp_t", "lerp", "lerp_t", "addcmul", "addcdiv"])
    s = shape_of(rng, big=big)
    f = pick(rng, FLOATS)
    if kind == "where":
        c = rec(rng, bshape(rng, s), "bool")
        a, b = rec(rng, s, pick(rng, ALL)), rec(rng, bshape(rng, s), pick(rng, ALL))
        return [c, a, b], (lambda L, c, a, b: L.where(c, a, b)), {"exact": True}
    if kind == "where_s":
        c, a = rec(rng, s, "bool"), rec(rng, bshape(rng, s), pick(rng, ALL))
        v = _scalar(rng)
        return [c, a], (lambda L, c, a: L.where(c, a, v)), {"exact": True}
    if kind == "clamp":
        dt = pick(rng, ALL[:-1])
        lo, hi = pick(rng, [None, -1, -0.5]), pick(rng, [None, 1, 2.5])
        if lo is None and hi is None:
            lo = 0
        return [rec(rng, s, dt)], (lambda L, a: L.clamp(a, lo, hi)), {"exact": True}
    if kind == "clamp_t":
        a, lo, hi = rec(rng, s, f), rec(rng, bshape(rng, s), f), rec(rng, bshape(rng, s), f)
        return [a, lo, hi], (lambda L, a, lo, hi: L.clamp(a, min=lo, max=hi)), {"exact": True}
    if kind == "lerp":
        w = float(pick(rng, [0.25, 0.5, 0.75]))
        return [rec(rng, s, f), rec(rng, bshape(rng, s), f)], (lambda L, a, b: L.lerp(a, b, w)), {"exact": False}
    if kind == "lerp_t":
        return ([rec(rng, s, f), rec(rng, bshape(rng, s), f), rec(rng, bshape(rng, s), f)],
                (lambda L, a, b, w: L.lerp(a, b, w)), {"exact": False})
    v = float(pick(rng, [1, 0.5, -2]))
    ins = [rec(rng, s, f), rec(rng, bshape(rng, s), f), rec(rng, bshape(rng, s), f, "pos" if kind == "addcdiv" else "grid")]
    return ins, (lambda L, a, b, c: getattr(L, kind)(a, b, c, value=v)), {"exact": kind == "addcmul"}


REDUCE = ["sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "std", "var", "norm",
          "logsumexp", "any", "all", "count_nonzero", "nansum", "median", "aminmax"]


@op("reduce", 6)
def _reduce(rng, big):
    name = pick(rng, REDUCE)
    s = shape_of(rng, big=big)
    dt = pick(rng, ALL)
    if name in ("mean", "std", "var", "norm", "logsumexp"):
        dt = pick(rng, FLOATS)
    distinct = name in ("max", "min", "argmax", "argmin", "median", "aminmax")
    # (a float16 product of many grid values overflows: its gradient's infinities and NaNs are
    # the algorithm's; values inside (-1, 1) keep it finite)
    x = rec(rng, s, dt, "distinct" if distinct else "unit" if name == "prod" and dt == "float16" else "grid")
    nd = len(s)
    kw = {}
    use_dim = nd and rng.random() < 0.7
    if use_dim:
        if name in ("max", "min", "argmax", "argmin", "median") or rng.random() < 0.6:
            kw["dim"] = int(rng.integers(-nd, nd))
        else:
            kw["dim"] = tuple(int(d) for d in rng.choice(nd, int(rng.integers(1, nd + 1)), replace=False))
        if name != "count_nonzero" and rng.random() < 0.5:
            kw["keepdim"] = True
    want = None
    if name in ("sum", "prod", "mean") and rng.random() < 0.3:
        want = pick(rng, ["float64", "float32"] if name == "mean" else ["int64", "float64", "float32"])
    if name in ("prod", "median", "argmax", "argmin") and isinstance(kw.get("dim"), tuple):
        kw["dim"] = kw["dim"][0]
    if name == "aminmax" and isinstance(kw.get("dim"), tuple):
        kw["dim"] = kw["dim"][0]

    def fn(L, a):
        k = dict(kw)
        if want:
            k["dtype"] = getattr(L, want)
        return getattr(L, name)(a, **k)
    exact = name in ("amax", "amin", "max", "min", "argmax", "argmin", "any", "all", "count_nonzero",
                     "median", "aminmax") or (name in ("sum", "nansum", "prod") and dt not in FLOATS)
    if name in ("sum", "nansum", "mean") and dt in ("float32", "float64"):
        exact = True  # quarters: exact partial sums in any order
    if dt == "float16" and name in ("sum", "nansum", "mean", "prod"):
        exact = False
    # (amax/amin share the gradient among tied elements, mean among all: g / count, summed back
    # over an expanded input in torch's order, rounds)
    return [x], fn, {"exact": exact, "grad_exact": name not in ("amax", "amin", "mean")}


@op("cumulative", 3)
def _cumulative(rng, big):
    name = pick(rng, ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"])
    s = shape_of(rng, big=big, lo=1) or (3,)
    dt = pick(rng, FLOATS if name == "logcumsumexp" else ALL)
    x = rec(rng, s, dt, "distinct" if name in ("cummax", "cummin") else "grid")
    d = int(rng.integers(-len(s), len(s))) if s else 0
    kw = {}
    want = None
    if name in ("cumsum", "cumprod") and rng.random() < 0.3:
        want = pick(rng, ["float64", "int64"])

    def fn(L, a):
        k = {"dtype": getattr(L, want)} if want else {}
        return getattr(L, name)(a, d, **k)
    return [x], fn, {"exact": name in ("cummax", "cummin") or (name == "cumsum" and dt != "float16")}


@op("matmul", 4)
def _matmul(rng, big):
    kind = pick(rng, ["matmul", "mm", "bmm", "mv", "dot", "addmm", "baddbmm", "outer", "einsum"])
    f = pick(rng, ("float32", "float64"))
    n, k, m = (int(rng.integers(0 if rng.random() < 0.1 else 1, 5)) for _ in range(3))
    if kind == "matmul":
        ra, rb = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        batch = [int(rng.choice([1, 2, 3])) for _ in range(max(ra, rb) - 2)]
        sa = tuple(bshape(rng, tuple(batch))[-max(ra - 2, 0):] if ra > 2 else ()) + ((n, k) if ra >= 2 else (k,))
        sb = tuple(bshape(rng, tuple(batch))[-max(rb - 2, 0):] if rb > 2 else ()) + ((k, m) if rb >= 2 else (k,))
        sa = sa[-ra:] if len(sa) > ra else sa
        sb = sb[-rb:] if len(sb) > rb else sb
        ins = [rec(rng, sa, f), rec(rng, sb, f)]
        fn = lambda L, a, b: L.matmul(a, b)  # noqa: E731
    elif kind in ("mm", "outer"):
        ins = [rec(rng, (n, k) if kind == "mm" else (n,), f), rec(rng, (k, m) if kind == "mm" else (m,), f)]
        fn = lambda L, a, b: getattr(L, kind)(a, b)  # noqa: E731
    elif kind == "bmm":
        bb = int(rng.integers(1, 4))
        ins = [rec(rng, (bb, n, k), f), rec(rng, (bb, k, m), f)]
        fn = lambda L, a, b: L.bmm(a, b)  # noqa: E731
    elif kind == "mv":
        ins = [rec(rng, (n, k), f), rec(rng, (k,), f)]
        fn = lambda L, a, b: L.mv(a, b)  # noqa: E731
    elif kind == "dot":
        ins = [rec(rng, (k,), f), rec(rng, (k,), f)]
        fn = lambda L, a, b: L.dot(a, b)  # noqa: E731
    elif kind == "addmm":
        ins = [rec(rng, bshape(rng, (n, m)), f), rec(rng, (n, k), f), rec(rng, (k, m), f)]
        be, al = pick(rng, [1, 0.5, 0]), pick(rng, [1, 2])
        fn = lambda L, c, a, b: L.addmm(c, a, b, beta=be, alpha=al)  # noqa: E731
    elif kind == "baddbmm":
        bb = int(rng.integers(1, 4))
        ins = [rec(rng, bshape(rng, (bb, n, m)), f), rec(rng, (bb, n, k), f), rec(rng, (bb, k, m), f)]
        fn = lambda L, c, a, b: L.baddbmm(c, a, b)  # noqa: E731
    else:
        bb = int(rng.integers(1, 4))
        ins = [rec(rng, (bb, n, k), f), rec(rng, (bb, k, m), f)]
        fn = lambda L, a, b: L.einsum("bij,bjk->bik", a, b)  # noqa: E731
    return ins, fn, {"exact": True}  # quarter-valued products of a few terms are exact


def Rview(r):
    """The shape a recipe's view steps give (by building it in NumPy-free torch)."""
    return tuple(build(torch, r, "cpu")[1].shape)


@op("softmax", 2)
def _softmax(rng, big):
    name = pick(rng, ["softmax", "log_softmax"])
    s = shape_of(rng, lo=1, big=big) or (4,)
    x = rec(rng, s, pick(rng, FLOATS), "normal")
    d = int(rng.integers(-len(s), len(s)))
    want = pick(rng, [None, None, "float64"])

    def fn(L, a):
        k = {"dtype": getattr(L, want)} if want else {}
        return getattr(L.nn.functional, name)(a, dim=d, **k)
    return [x], fn, {"exact": False}


def _index_tensor(rng, n, shape, dtype="int64", neg=True):
    lo = -n if (neg and n) else 0
    v = rng.integers(lo, max(n, 1), shape) if n else np.zeros(shape, np.int64)
    return v.astype(dtype)


@op("getitem", 6)
def _getitem(rng, big):
    s = shape_of(rng, lo=1, big=big)
    s = s if s else (3,)
    x = rec(rng, s, pick(rng, ALL))
    idx, extra = [], []
    d = 0
    while d < len(s) and rng.random() < 0.8:
        k = pick(rng, ["int", "slice", "none", "ellipsis", "long", "list", "bool", "slice"])
        n = s[d]
        if k == "int":
            idx.append(int(rng.integers(-n, n)))
        elif k == "slice":
            a = int(rng.integers(-n - 1, n + 1))
            b = pick(rng, [None, int(rng.integers(-n - 1, n + 2))])
            idx.append(slice(pick(rng, [None, a]), b, pick(rng, [None, 1, 2, 3])))
        elif k == "none":
            idx.append(None)
            continue
        elif k == "ellipsis":
            if Ellipsis not in idx:
                idx.append(Ellipsis)
                d = len(s) - sum(1 for i in idx if i not in (None, Ellipsis)) if False else d
            continue
        elif k == "long":
            idx.append(("T", len(extra)))
            extra.append(Rec(_index_tensor(rng, n, shape_of(rng, ndim=int(rng.integers(0, 3)), lo=1)), "int64",
                             grad=False))
        elif k == "list":
            idx.append([int(i) for i in _index_tensor(rng, n, (int(rng.integers(1, 4)),))])
        elif k == "bool":
            idx.append(("T", len(extra)))
            extra.append(Rec(rng.random((n,)) < 0.5, "bool"))
        d += 1
    if len(idx) == 1 and rng.random() < 0.5:
        spec = idx[0]
        as_tuple = False
    else:
        spec, as_tuple = tuple(idx), True

    def fn(L, a, *ts):
        def sub(i):
            return ts[i[1]] if isinstance(i, tuple) and i and i[0] == "T" else i
        key = tuple(sub(i) for i in spec) if as_tuple else sub(spec)
        return a[key]
    return [x] + extra, fn, {"exact": True, "desc": f"x[{spec!r}]"}


@op("setitem", 4)
def _setitem(rng, big):
    s = shape_of(rng, lo=1, big=big) or (3,)
    dt = pick(rng, ALL)
    x = rec(rng, s, dt, clone=True, expand=False, overlap=False)
    d = int(rng.integers(len(s)))
    k = pick(rng, ["int", "slice", "long", "bool", "scalar_mask"])
    n = s[d]
    pre = (slice(None),) * d
    extra = []
    if k == "int":
        key, vshape = pre + (int(rng.integers(-n, n)),), s[:d] + s[d + 1:]
    elif k == "slice":
        key = pre + (slice(int(rng.integers(0, n)), None, pick(rng, [1, 2])),)
        vshape = Rview(Rec(np.zeros(s), "float32", [("slice", d, key[-1].start, None, key[-1].step)]))
    elif k == "long":
        # distinct indices: repeated ones write in an order torch leaves undefined
        ii = rng.permutation(n)[:int(rng.integers(1, n + 1))]
        extra.append(Rec(ii.astype(np.int64), "int64"))
        key, vshape = pre + (("T", 0),), s[:d] + (len(ii),) + s[d + 1:]
    else:
        m = rng.random(s) < 0.5
        extra.append(Rec(m, "bool"))
        key, vshape = (("T", 0),), ()
    use_t = rng.random() < 0.6 and k != "scalar_mask"
    if use_t:  # (grad-requiring values only into float tensors, as for masked_fill)
        extra.append(rec(rng, bshape(rng, tuple(vshape)), pick(rng, ALL), grad=None if dt in FLOATS else False))
        if dt == "uint8":
            extra[-1].values = np.abs(extra[-1].values)
    v = _scalar(rng, "int" if dt in INTS else None)

    def fn(L, a, *ts):
        kk = tuple(ts[0] if isinstance(i, tuple) and i and i[0] == "T" else i for i in key)
        a[kk] = ts[-1] if use_t else v
        return a
    return [x] + extra, fn, {"exact": True, "desc": f"x[{key!r}] = {'t' if use_t else v!r}"}


@op("index_fns", 6)
def _index_fns(rng, big):
    kind = pick(rng, ["index_select", "gather", "scatter_add", "scatter", "masked_fill", "masked_fill_t",
                      "index_put", "index_add", "take", "masked_select", "take_along_dim"])
    s = shape_of(rng, lo=1, big=big) or (3,)
    nd = len(s)
    d = int(rng.integers(-nd, nd))
    dt = pick(rng, ALL)
    x = rec(rng, s, dt)
    n = s[d]
    if kind == "index_select":
        i = rec(rng, (int(rng.integers(0, 5)),), "int64", grad=False)
        i.values = _index_tensor(rng, n, i.values.shape, neg=False)
        return [x, i], (lambda L, a, i: L.index_select(a, d, i)), {"exact": True}
    if kind in ("gather", "take_along_dim"):
        ishape = tuple(int(rng.integers(0, m + 1)) if j != d % nd else int(rng.integers(0, 4)) for j, m in enumerate(s))
        i = Rec(_index_tensor(rng, n, ishape, neg=False), "int64")
        if kind == "take_along_dim":
            return [x, i], (lambda L, a, i: L.take_along_dim(a, i, dim=d)), {"exact": True}
        return [x, i], (lambda L, a, i: L.gather(a, d, i)), {"exact": True}
    if kind in ("scatter_add", "scatter"):
        ishape = tuple(int(rng.integers(0, m + 1)) for m in s)
        if kind == "scatter":
            # unique targets per slice: duplicate targets are undefined in torch (last writer wins, unspecified)
            iv = np.argsort(rng.random(ishape[:d % nd] + (n,) + ishape[d % nd + 1:]), axis=d % nd)
            iv = np.take(iv, np.arange(ishape[d % nd]), axis=d % nd)
        else:
            iv = _index_tensor(rng, n, ishape, neg=False)
        i = Rec(iv.astype(np.int64), "int64")
        src = rec(rng, ishape, dt)
        return [x, i, src], (lambda L, a, i, b: getattr(L, kind)(a, d, i, b)), {"exact": dt != "float16"}
    if kind in ("masked_fill", "masked_fill_t"):
        m = rec(rng, bshape(rng, s), "bool")
        if kind == "masked_fill":
            v = _scalar(rng, "int" if dt in INTS else None)
            return [x, m], (lambda L, a, m: L.masked_fill(a, m, v)), {"exact": True}
        # (into an integer tensor torch refuses a value that requires grad, "Autograd not support
        # dtype", and range-checks a value of another dtype: -1.0 into uint8)
        v = rec(rng, (), pick(rng, ALL))
        return [x, m, v], (lambda L, a, m, v: a.masked_fill(m, v)), {"exact": True}
    if kind in ("index_put", "index_add"):
        acc = rng.random() < 0.6
        k = int(rng.integers(1, 4))
        if kind == "index_put":
            iv = _index_tensor(rng, s[0], (k,)) if acc else rng.permutation(s[0])[:k]
            i = Rec(iv.astype(np.int64), "int64")
            vals = rec(rng, bshape(rng, (len(iv),) + s[1:]), dt)
            return ([x, i, vals], (lambda L, a, i, v: L.index_put(a, (i,), v, accumulate=acc)),
                    {"exact": dt != "float16", "desc": f"index_put accumulate={acc}"})
        iv = _index_tensor(rng, n, (k,), neg=False)
        i = Rec(iv.astype(np.int64), "int64")
        vals = rec(rng, s[:d % nd] + (k,) + s[d % nd + 1:], dt)
        al = pick(rng, [1, 2])
        return [x, i, vals], (lambda L, a, i, v: L.index_add(a, d, i, v, alpha=al)), {"exact": dt != "float16"}
    if kind == "take":
        N = int(np.prod(s))
        i = Rec(_index_tensor(rng, N, shape_of(rng, ndim=int(rng.integers(0, 3)), lo=1)), "int64")
        return [x, i], (lambda L, a, i: L.take(a, i)), {"exact": True}
    m = rec(rng, bshape(rng, s), "bool")
    return [x, m], (lambda L, a, m: L.masked_select(a, m)), {"exact": True}


@op("join", 3)
def _join(rng, big):
    kind = pick(rng, ["cat", "stack", "split", "chunk", "unbind", "split_list", "hstack", "tensor_split"])
    s = shape_of(rng, lo=1, big=big) or (3,)
    nd = len(s)
    d = int(rng.integers(-nd, nd))
    if kind in ("cat", "stack", "hstack"):
        k = int(rng.integers(1, 4))
        ins = []
        for _ in range(k):
            sh = list(s)
            if kind == "cat":
                sh[d] = int(rng.integers(0, 4))
            ins.append(rec(rng, tuple(sh), pick(rng, ALL)))
        if kind == "stack":
            d = int(rng.integers(-nd - 1, nd + 1))
        if kind == "hstack":
            return ins, (lambda L, *xs: L.hstack(xs)), {"exact": True}
        return ins, (lambda L, *xs: getattr(L, kind)(xs, d)), {"exact": True}
    x = rec(rng, s, pick(rng, ALL))
    if kind == "split":
        sz = int(rng.integers(1, 4))
        return [x], (lambda L, a: L.split(a, sz, d)), {"exact": True}
    if kind == "split_list":
        n = s[d]
        cut = sorted(int(c) for c in rng.integers(0, n + 1, 2))
        sizes = [cut[0], cut[1] - cut[0], n - cut[1]]
        return [x], (lambda L, a: a.split(sizes, dim=d)), {"exact": True}
    if kind == "tensor_split":
        k = int(rng.integers(1, 4))
        return [x], (lambda L, a: L.tensor_split(a, k, dim=d)), {"exact": True}
    if kind == "chunk":
        k = int(rng.integers(1, 5))
        return [x], (lambda L, a: L.chunk(a, k, d)), {"exact": True}
    return [x], (lambda L, a: L.unbind(a, d)), {"exact": True}


@op("shape", 6)
def _shape(rng, big):
    kind = pick(rng, ["reshape", "view", "flatten", "permute", "transpose", "expand", "repeat", "tile", "flip",
                      "roll", "squeeze", "unsqueeze", "narrow", "movedim", "t", "contiguous", "diagonal",
                      "unfold", "mT", "view_as_flat", "clone", "ravel"])
    s = shape_of(rng, big=big)
    nd = len(s)
    x = rec(rng, s, pick(rng, ALL))
    if kind in ("reshape", "view", "view_as_flat"):
        N = int(np.prod(s))
        cands = [(N,), (-1,), (1, N), (N, 1), tuple(reversed(s))]
        if N and N % 2 == 0:
            cands += [(2, -1), (-1, 2, 1)]
        tgt = pick(rng, cands)
        if kind == "view_as_flat":
            return [x], (lambda L, a: a.view(-1)), {"exact": True}
        return [x], (lambda L, a: getattr(a, kind)(tgt)), {"exact": True}
    if kind in ("flatten", "ravel", "contiguous", "clone", "t", "mT"):
        if kind == "flatten" and nd:
            a0 = int(rng.integers(-nd, nd))
            a1 = int(rng.integers(a0 % nd, nd))
            return [x], (lambda L, a: L.flatten(a, a0, a1)), {"exact": True}
        if kind == "mT":
            return [x], (lambda L, a: a.mT), {"exact": True}
        return [x], (lambda L, a: getattr(a, kind)()), {"exact": True}
    if not nd:
        return [x], (lambda L, a: a.unsqueeze(0)), {"exact": True}
    d0, d1 = int(rng.integers(-nd, nd)), int(rng.integers(-nd, nd))
    if kind == "permute":
        p = tuple(int(i) for i in rng.permutation(nd))
        return [x], (lambda L, a: a.permute(*p)), {"exact": True}
    if kind == "transpose":
        return [x], (lambda L, a: L.transpose(a, d0, d1)), {"exact": True}
    if kind == "expand":
        tgt = tuple(-1 if (n != 1 or rng.random() < 0.3) else int(rng.integers(0, 4)) for n in s)
        tgt = (int(rng.integers(1, 3)),) * int(rng.integers(0, 2)) + tgt
        return [x], (lambda L, a: a.expand(*tgt)), {"exact": True}
    if kind in ("repeat", "tile"):
        reps = tuple(int(rng.integers(0 if rng.random() < 0.1 else 1, 3)) for _ in range(nd + int(rng.integers(0, 2))))
        if kind == "tile":
            reps = reps[:max(1, nd - 1)] if rng.random() < 0.3 else reps
            return [x], (lambda L, a: L.tile(a, reps)), {"exact": True}
        return [x], (lambda L, a: a.repeat(*reps)), {"exact": True}
    if kind == "flip":
        dims = tuple(int(d) for d in rng.choice(nd, int(rng.integers(1, nd + 1)), replace=False))
        return [x], (lambda L, a: L.flip(a, dims)), {"exact": True}
    if kind == "roll":
        sh = int(rng.integers(-4, 5))
        if rng.random() < 0.3:
            return [x], (lambda L, a: L.roll(a, sh)), {"exact": True}
        return [x], (lambda L, a: L.roll(a, (sh, 1), (d0, d1)) if d0 % nd != d1 % nd else L.roll(a, sh, d0)), \
            {"exact": True}
    if kind == "squeeze":
        if rng.random() < 0.7:
            return [x], (lambda L, a: a.squeeze(d0)), {"exact": True}
        return [x], (lambda L, a: a.squeeze()), {"exact": True}
    if kind == "unsqueeze":
        d = int(rng.integers(-nd - 1, nd + 1))
        return [x], (lambda L, a: a.unsqueeze(d)), {"exact": True}
    if kind == "narrow":
        n = s[d0]
        st = int(rng.integers(0, n + 1))
        ln = int(rng.integers(0, n - st + 1))
        return [x], (lambda L, a: L.narrow(a, d0, st, ln)), {"exact": True}
    if kind == "movedim":
        return [x], (lambda L, a: L.movedim(a, d0, d1)), {"exact": True}
    if kind == "diagonal":
        if nd < 2:
            return [x], (lambda L, a: L.diag(a)), {"exact": True}
        off = int(rng.integers(-2, 3))
        if d0 % nd == d1 % nd:
            d1 = (d0 + 1) % nd
        return [x], (lambda L, a: L.diagonal(a, off, d0, d1)), {"exact": True}
    size, step = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    return [x], (lambda L, a: a.unfold(d0, size, step)), {"exact": True}


@op("sort", 3)
def _sort(rng, big):
    kind = pick(rng, ["sort", "argsort", "topk", "unique", "kthvalue", "msort", "unique_consecutive"])
    s = shape_of(rng, lo=1, big=big) or (4,)
    nd = len(s)
    dt = pick(rng, ALL[:-1])
    # distinct values: torch leaves the order of ties (and the index returned for them) unspecified
    x = rec(rng, s, dt, "grid" if kind.startswith("unique") else "distinct")
    if dt == "uint8" and x.values.size >= 250 and not kind.startswith("unique"):  # (its base's size)
        x = rec(rng, s, "int64", "distinct")
    d = int(rng.integers(-nd, nd))
    desc = bool(rng.random() < 0.5)
    if kind == "sort":
        return [x], (lambda L, a: L.sort(a, dim=d, descending=desc)), {"exact": True}
    if kind == "argsort":
        return [x], (lambda L, a: L.argsort(a, dim=d, descending=desc)), {"exact": True}
    if kind == "msort":
        return [x], (lambda L, a: L.msort(a)), {"exact": True}
    if kind == "topk":
        k = int(rng.integers(0, s[d] + 1))
        return [x], (lambda L, a: L.topk(a, k, dim=d, largest=desc)), {"exact": True}
    if kind == "kthvalue":
        k = int(rng.integers(1, s[d] + 1))
        kd = bool(rng.random() < 0.5)
        return [x], (lambda L, a: L.kthvalue(a, k, d, keepdim=kd)), {"exact": True}
    if kind == "unique_consecutive":
        return [x], (lambda L, a: L.unique_consecutive(a, return_counts=True)), {"exact": True}
    ri, rc = bool(rng.random() < 0.5), bool(rng.random() < 0.5)
    if rng.random() < 0.4:
        return [x], (lambda L, a: L.unique(a, sorted=True, return_inverse=ri, return_counts=rc, dim=d)), {"exact": True}
    return [x], (lambda L, a: L.unique(a, sorted=True, return_inverse=ri, return_counts=rc)), {"exact": True}


INPLACE = ["add_", "sub_", "mul_", "div_", "clamp_", "copy_", "zero_", "fill_", "masked_fill_", "relu_",
           "sigmoid_", "neg_", "abs_", "pow_", "addcmul_", "lerp_", "index_add_", "scatter_add_", "exp_",
           "floor_", "mul_s", "add_s", "t_"]


@op("inplace", 6)
def _inplace(rng, big):
    name = pick(rng, INPLACE)
    s = shape_of(rng, big=big)
    dt = pick(rng, FLOATS + ("int64", "int32"))
    if name in ("div_", "sigmoid_", "exp_", "pow_", "lerp_", "addcmul_"):
        dt = pick(rng, FLOATS)
    # the written tensor: a view (no expand, no overlap: torch refuses or leaves such writes undefined)
    # of a clone when it requires grad (writing to a view of a leaf that requires grad is torch's error,
    # tested for on its own below)
    x = rec(rng, s, dt, clone=rng.random() < 0.85, expand=False, overlap=False, depth=int(rng.integers(1, 3)))
    nd = len(s)
    # (the written tensor may not require grad while the other operand does: the other views of
    # the same base, made before the write, then come to require grad, as the base does)
    og = None
    other = rec(rng, bshape(rng, s), pick(rng, (dt,) + ALL[:-1]) if name in ("add_", "sub_", "mul_", "copy_")
                else dt, "pos" if name == "div_" else "grid", grad=og)
    view_steps = []
    if nd and rng.random() < 0.6:  # write through a further view of the input
        view_steps.append(pick(rng, [("select", 0, 0), ("transpose", 0, -1), ("stepslice", 0), ("unsqueeze", 0)]))
    args, ins = (), [x]
    if name in ("add_", "sub_", "mul_", "div_", "copy_", "lerp_"):
        ins.append(other)
    elif name == "addcmul_":
        ins += [other, rec(rng, bshape(rng, s), dt, grad=og)]
    elif name == "masked_fill_":
        ins.append(rec(rng, bshape(rng, s), "bool"))
    elif name in ("index_add_", "scatter_add_"):
        if not nd:
            name = "add_s"
        else:
            k = int(rng.integers(1, 4))
            iv = _index_tensor(rng, s[0], (k,) + (s[1:] if name == "scatter_add_" else ()), neg=False)
            ins += [Rec(iv, "int64"), rec(rng, (k,) + s[1:], dt, grad=og)]
            view_steps = []

    def fn(L, a, *rest):
        v = a
        for st in view_steps:
            if st[0] == "stepslice":
                v = v[::2]
            elif v.dim() or st[0] == "unsqueeze":
                v = getattr(v, st[0])(*st[1:])
        if v.dim() == 0 and view_steps and view_steps[0][0] == "transpose":
            pass
        r = _apply_inplace(L, name, v, rest)
        return a, v, r
    return ins, fn, {"exact": name not in ("div_", "sigmoid_", "exp_", "lerp_", "pow_"), "inplace": True,
                     "desc": f"{name} via {view_steps}"}


def _apply_inplace(L, name, v, rest):
    if name in ("add_", "sub_", "mul_", "div_", "copy_"):
        o = rest[0]
        if o.dim() > v.dim():  # broadcast the other operand only where it fits the written view
            o = o.reshape(-1)[:1].reshape(()) if o.numel() else o
        return getattr(v, name)(o)
    if name == "lerp_":
        o = rest[0]
        if o.dim() > v.dim():
            o = o.reshape(-1)[:1].reshape(()) if o.numel() else o
        return v.lerp_(o, 0.5)
    if name == "addcmul_":
        b, c = rest
        if b.dim() > v.dim() or c.dim() > v.dim():
            b, c = b.sum(), c.sum()
        return v.addcmul_(b, c, value=0.5)
    if name == "masked_fill_":
        m = rest[0]
        if m.dim() > v.dim():
            m = m.reshape(-1)[:1].reshape(()) if m.numel() else m
        return v.masked_fill_(m, 2)
    if name == "index_add_":
        return v.index_add_(0, rest[0], rest[1])
    if name == "scatter_add_":
        return v.scatter_add_(0, rest[0], rest[1])
    if name == "clamp_":
        return v.clamp_(-1, 1)
    if name == "fill_":
        return v.fill_(3)
    if name == "pow_":
        return v.pow_(2)
    if name == "mul_s":
        return v.mul_(2)
    if name == "add_s":
        return v.add_(1)
    if name == "t_":
        return v.t_() if v.dim() <= 2 else v.transpose_(0, 1)
    return getattr(v, name)()


@op("nn", 5)
def _nn(rng, big):
    F = "nn.functional"
    kind = pick(rng, ["conv1d", "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "layer_norm",
                      "batch_norm", "group_norm", "normalize", "max_pool1d", "linear", "embedding"])
    f = pick(rng, ("float32", "float64"))
    N, C, H, W = (int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(2, 6)), int(rng.integers(2, 6)))
    # the image is a permuted view: drawn as (N, H, W, C) and permuted to (N, C, H, W), or another layout
    # (no expanded or overlapping inputs: constant groups make a norm's gradient rounding noise)
    x2 = rec(rng, (N, C, H, W), f, "normal", expand=False, overlap=False)
    # (not for the 1x1 adaptive pool: torch then answers a channels_last as_strided view, memory
    # formats being other work)
    if rng.random() < 0.6 and kind != "adaptive_avg_pool2d":
        x2.values = np.ascontiguousarray(x2.values.transpose(0, 2, 3, 1)) if not x2.steps else x2.values
        if not x2.steps:
            x2.steps = [("permute", (0, 3, 1, 2))]
    if kind == "conv2d":
        O, k = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        w = rec(rng, (O, C, k, k), f, "normal")
        b = rec(rng, (O,), f, "normal")
        st, pd = int(rng.integers(1, 3)), int(rng.integers(0, 2))
        return [x2, w, b], (lambda L, x, w, b: L.nn.functional.conv2d(x, w, b, stride=st, padding=pd)), {"exact": False}
    if kind == "conv1d":
        x = rec(rng, (N, C, W), f, "normal")
        w = rec(rng, (2, C, 2), f, "normal")
        return [x, w], (lambda L, x, w: L.nn.functional.conv1d(x, w, padding=1)), {"exact": False}
    if kind == "max_pool2d":
        x2 = rec(rng, (N, C, H, W), f, "distinct") if rng.random() < 0.5 else x2
        k = int(rng.integers(1, 3))
        st = int(rng.integers(1, 3))
        return [x2], (lambda L, x: L.nn.functional.max_pool2d(x, k, stride=st)), {"exact": True}
    if kind == "max_pool1d":
        x = rec(rng, (N, C, W), f, "distinct")
        return [x], (lambda L, x: L.nn.functional.max_pool1d(x, 2)), {"exact": True}
    if kind == "avg_pool2d":
        return [x2], (lambda L, x: L.nn.functional.avg_pool2d(x, 2, ceil_mode=True)), {"exact": False}
    if kind == "adaptive_avg_pool2d":
        o = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        return [x2], (lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, o)), {"exact": False}
    if kind == "layer_norm":
        x = rec(rng, (N, H, W), f, "normal", expand=False, overlap=False)
        w, b = rec(rng, (W,), f, "normal"), rec(rng, (W,), f, "normal")
        return [x, w, b], (lambda L, x, w, b: L.nn.functional.layer_norm(x, (W,), w, b)), {"exact": False}
    if kind == "batch_norm":
        w, b = rec(rng, (C,), f, "normal"), rec(rng, (C,), f, "normal")
        x2 = rec(rng, (N + 1, C, H, W), f, "normal", expand=False, overlap=False)
        return [x2, w, b], (lambda L, x, w, b: L.nn.functional.batch_norm(x, None, None, w, b, training=True)), \
            {"exact": False}
    if kind == "group_norm":
        return [x2], (lambda L, x: L.nn.functional.group_norm(x, 1)), {"exact": False}
    if kind == "normalize":
        d = int(rng.integers(-4, 4))
        return [x2], (lambda L, x: L.nn.functional.normalize(x, dim=d)), {"exact": False}
    if kind == "linear":
        x = rec(rng, (N, H, W), f)
        w, b = rec(rng, (C, W), f), rec(rng, (C,), f)
        return [x, w, b], (lambda L, x, w, b: L.nn.functional.linear(x, w, b)), {"exact": True}
    wt = rec(rng, (6, W), f)
    i = Rec(rng.integers(0, 6, (N, H)), "int64", steps=[("transpose", 0, 1)] if rng.random() < 0.5 else [])
    if i.steps:
        i.values = np.ascontiguousarray(i.values.T)
    return [i, wt], (lambda L, i, w: L.nn.functional.embedding(i, w)), {"exact": True}


@op("loss", 3)
def _loss(rng, big):
    kind = pick(rng, ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss",
                      "binary_cross_entropy_with_logits", "kl_div", "cross_entropy_prob"])
    f = pick(rng, ("float32", "float64"))
    red = pick(rng, ["mean", "sum", "none"])
    N, C = int(rng.integers(1, 5)), int(rng.integers(2, 5))
    if kind in ("cross_entropy", "nll_loss"):
        x = rec(rng, (N, C), f, "normal")
        t = Rec(rng.integers(0, C, (N,)), "int64")
        return [x, t], (lambda L, x, t: getattr(L.nn.functional, kind)(x, t, reduction=red)), {"exact": False}
    if kind == "cross_entropy_prob":
        x, p = rec(rng, (N, C), f, "normal"), rec(rng, (N, C), f, "pos")
        return [x, p], (lambda L, x, p: L.nn.functional.cross_entropy(x, p, reduction=red)), {"exact": False}
    s = shape_of(rng, lo=1) or (3,)
    x, y = rec(rng, s, f, "normal"), rec(rng, s, f, "unit" if kind == "binary_cross_entropy_with_logits" else "normal")
    if kind == "binary_cross_entropy_with_logits":
        y.values = np.abs(y.values)
    if kind == "kl_div":
        return [x, y], (lambda L, x, y: L.nn.functional.kl_div(x, y, reduction=red, log_target=True)), {"exact": False}
    return [x, y], (lambda L, x, y: getattr(L.nn.functional, kind)(x, y, reduction=red)), {"exact": False}


@op("nn2", 3)
def _nn2(rng, big):
    """More of nn.functional: resampling, padding, patches, distances, encodings."""
    kind = pick(rng, ["interpolate", "pad", "one_hot", "cosine_similarity", "pairwise_distance", "unfold",
                      "fold", "pixel_shuffle", "pixel_unshuffle", "grid_sample", "normalize_p"])
    f = pick(rng, ("float32", "float64"))
    N, C, H, W = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.integers(1, 5)))
    F = "nn.functional"  # noqa: F841
    if kind == "interpolate":
        mode = pick(rng, ["nearest", "bilinear", "bicubic", "nearest-exact", "linear", "area"])
        nd = 1 if mode == "linear" else 2
        x = rec(rng, (N, C, W) if nd == 1 else (N, C, H, W), f, "normal")
        kw = {"mode": mode}
        if rng.random() < 0.5:
            kw["size"] = tuple(int(rng.integers(1, 7)) for _ in range(nd))
        else:
            kw["scale_factor"] = float(pick(rng, [0.5, 2.0, 1.5, 3.0]))
        if mode in ("bilinear", "bicubic", "linear") and rng.random() < 0.5:
            kw["align_corners"] = bool(rng.random() < 0.5)
        return [x], (lambda L, x: L.nn.functional.interpolate(x, **kw)), {"exact": mode.startswith("nearest"),
                                                                          "desc": f"interpolate {kw}"}
    if kind == "pad":
        mode = pick(rng, ["constant", "reflect", "replicate", "circular"])
        x = rec(rng, (N, C, H, W), f, "normal")
        p = tuple(int(rng.integers(0, 2 if mode in ("reflect", "circular") else 3)) for _ in range(4))
        if mode == "constant" and rng.random() < 0.3:
            p = (p[0], -1 if W > 1 else 0) + p[2:]  # a negative pad crops
        kw = {"mode": mode} if mode != "constant" else {"value": float(pick(rng, [0.0, 1.5]))}
        return [x], (lambda L, x: L.nn.functional.pad(x, p, **kw)), {"exact": True, "desc": f"pad {p} {kw}"}
    if kind == "one_hot":
        n = int(rng.integers(1, 5))
        i = Rec(rng.integers(0, n, shape_of(rng, lo=1)), "int64")
        nc = pick(rng, [-1, n, n + 2])
        return [i], (lambda L, i: L.nn.functional.one_hot(i, nc)), {"exact": True}
    if kind in ("cosine_similarity", "pairwise_distance"):
        s = (N, C, W)
        a, b = rec(rng, s, f, "normal"), rec(rng, bshape(rng, s), f, "normal")
        if kind == "cosine_similarity":
            d = int(rng.integers(-3, 3))
            return [a, b], (lambda L, a, b: L.nn.functional.cosine_similarity(a, b, dim=d)), {"exact": False}
        pp, kd = float(pick(rng, [1.0, 2.0, 3.0])), bool(rng.random() < 0.5)
        return [a, b], (lambda L, a, b: L.nn.functional.pairwise_distance(a, b, p=pp, keepdim=kd)), {"exact": False}
    if kind == "normalize_p":
        x = rec(rng, (N, C, W), f, "normal", expand=False, overlap=False)
        pp, d = float(pick(rng, [1.0, 2.0, 3.0])), int(rng.integers(-3, 3))
        return [x], (lambda L, x: L.nn.functional.normalize(x, p=pp, dim=d)), {"exact": False}
    if kind == "unfold":
        x = rec(rng, (N, C, H + 1, W + 1), f)
        k, st, pd, dl = int(rng.integers(1, 3)), int(rng.integers(1, 3)), int(rng.integers(0, 2)), int(rng.integers(1, 3))
        return [x], (lambda L, x: L.nn.functional.unfold(x, k, dilation=dl, padding=pd, stride=st)), {"exact": True}
    if kind == "fold":
        k, oh, ow = int(rng.integers(1, 3)), int(rng.integers(2, 5)), int(rng.integers(2, 5))
        blocks = (oh - k + 1) * (ow - k + 1)
        x = rec(rng, (N, C * k * k, blocks), f)
        return [x], (lambda L, x: L.nn.functional.fold(x, (oh, ow), k)), {"exact": True}
    if kind == "pixel_shuffle":
        r = int(rng.integers(1, 3))
        x = rec(rng, (N, C * r * r, H, W), pick(rng, ALL))
        return [x], (lambda L, x: L.nn.functional.pixel_shuffle(x, r)), {"exact": True}
    if kind == "pixel_unshuffle":
        r = int(rng.integers(1, 3))
        x = rec(rng, (N, C, H * r, W * r), pick(rng, ALL))
        return [x], (lambda L, x: L.nn.functional.pixel_unshuffle(x, r)), {"exact": True}
    x = rec(rng, (N, C, H, W), f, "normal")
    g = rec(rng, (N, int(rng.integers(1, 4)), int(rng.integers(1, 4)), 2), f, "unit")
    mode, pm = pick(rng, ["bilinear", "nearest"]), pick(rng, ["zeros", "border", "reflection"])
    ac = bool(rng.random() < 0.5)
    return [x, g], (lambda L, x, g: L.nn.functional.grid_sample(x, g, mode=mode, padding_mode=pm, align_corners=ac)), \
        {"exact": False, "desc": f"grid_sample {mode} {pm} {ac}"}


@op("linalg", 2)
def _linalg(rng, big):
    kind = pick(rng, ["solve", "inv", "det", "slogdet", "vector_norm", "matrix_norm", "norm", "qr_r", "svdvals",
                      "cholesky", "eigvalsh", "pinv", "matrix_rank", "lstsq"])
    f = pick(rng, ("float32", "float64"))
    n, b = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    # well-conditioned matrices: a random one plus n + 1 on the diagonal (wc, in the op)
    a = rec(rng, (b, n, n), f, "normal")
    opts = {"exact": False}

    def wc(L, m):
        return m + (n + 1.0) * L.eye(n, dtype=m.dtype, device=m.device)

    def spd(L, m):  # a symmetric positive definite matrix made from m
        return m @ m.mT + L.eye(n, dtype=m.dtype, device=m.device)

    if kind == "solve":
        rhs = rec(rng, (b, n, int(rng.integers(1, 3))), f, "normal")
        return [a, rhs], (lambda L, a, r: L.linalg.solve(wc(L, a), r)), opts
    if kind in ("vector_norm", "matrix_norm", "norm"):
        x = rec(rng, (b, n, n), f, "normal", expand=False, overlap=False)
        if kind == "vector_norm":
            o, d = pick(rng, [1, 2, 3, float("inf"), -float("inf"), 0]), pick(rng, [None, -1, (0, 2)])
            return [x], (lambda L, x: L.linalg.vector_norm(x, o, dim=d)), {"exact": False, "desc": f"vector_norm {o} {d}"}
        if kind == "matrix_norm":
            o = pick(rng, ["fro", 1, -1, float("inf"), -float("inf")])
            return [x], (lambda L, x: L.linalg.matrix_norm(x, o)), {"exact": False, "desc": f"matrix_norm {o}"}
        o = pick(rng, [None, "fro", 2, 1])
        return [x], (lambda L, x: L.norm(x, o) if o != 2 else L.norm(x, 2, dim=-1)), {"exact": False}
    if kind == "qr_r":  # R's diagonal signs are LAPACK's: compare |R|
        return [a], (lambda L, a: L.linalg.qr(wc(L, a)).R.abs()), {"exact": False, "no_grad": True}
    if kind == "svdvals":
        return [a], (lambda L, a: L.linalg.svdvals(wc(L, a))), opts
    if kind == "cholesky":
        return [a], (lambda L, a: L.linalg.cholesky(spd(L, a))), opts
    if kind == "eigvalsh":
        return [a], (lambda L, a: L.linalg.eigvalsh(spd(L, a))), opts
    if kind == "pinv":
        return [a], (lambda L, a: L.linalg.pinv(wc(L, a))), opts
    if kind == "matrix_rank":
        return [a], (lambda L, a: L.linalg.matrix_rank(wc(L, a))), {"exact": True}
    if kind == "lstsq":
        rhs = rec(rng, (b, n, 2), f, "normal")
        return [a, rhs], (lambda L, a, r: L.linalg.lstsq(wc(L, a), r).solution), opts
    if kind == "slogdet":
        return [a], (lambda L, a: L.linalg.slogdet(wc(L, a))), opts
    return [a], (lambda L, a: getattr(L.linalg, kind)(wc(L, a))), opts


SPECIAL = {  # name: input mode
    "erf": "normal", "erfc": "normal", "erfinv": "unit", "lgamma": "pos", "digamma": "pos", "i0": "normal",
    "special.expit": "normal", "special.erfcx": "normal", "special.log_ndtr": "normal", "special.ndtr": "normal",
    "special.ndtri": "unit", "special.i0e": "normal", "special.i1": "normal", "special.i1e": "normal",
    "special.sinc": "normal", "special.entr": "pos", "special.log1p": "pos", "special.logit": "unit",
    "special.xlogy": "pos", "special.xlog1py": "pos", "special.zeta": "pos", "special.gammaln": "pos",
    "mvlgamma": "pos", "special.polygamma": "pos", "special.multigammaln": "pos", "special.bessel_j0": "normal",
    "special.bessel_j1": "normal"}


@op("special", 2)
def _special(rng, big):
    name = pick(rng, sorted(SPECIAL))
    mode = SPECIAL[name]
    dt = pick(rng, ("float32", "float64", "float64", "int64" if mode != "unit" else "float32"))
    if name == "special.ndtri" or name == "special.logit" or name == "erfinv":
        mode = "unit"
    x = rec(rng, shape_of(rng, big=big), dt, "pos" if mode == "pos" else mode)
    if name in ("mvlgamma", "special.multigammaln"):
        x.values = np.abs(x.values).astype(x.values.dtype) + np.asarray(2, x.values.dtype)
        return [x], (lambda L, a: L.special.multigammaln(a, 2)), {"exact": False}
    if name == "special.polygamma":
        k = int(rng.integers(0, 3))
        return [x], (lambda L, a: L.special.polygamma(k, a)), {"exact": False, "desc": f"polygamma {k}"}
    if name in ("special.xlogy", "special.xlog1py", "special.zeta"):
        if name == "special.zeta" and dt == "int64":
            # (torch's gradient in q for an integer x goes through a float32 zeta, whose last bit
            # minigrad's float32 kernel does not always match)
            x = rec(rng, tuple(Rview(x)), "float64", "pos")
        y = rec(rng, bshape(rng, tuple(Rview(x))), "float64" if dt == "int64" else dt, "pos")
        if name == "special.zeta":
            x.values = np.abs(x.values).astype(x.values.dtype) + np.asarray(1, x.values.dtype)
        fn_name = name.split(".")[1]
        return [x, y], (lambda L, a, b: getattr(L.special, fn_name)(a, b)), {"exact": False}
    path = name.split(".")

    def fn(L, a):
        mod = L
        for p in path[:-1]:
            mod = getattr(mod, p)
        return getattr(mod, path[-1])(a)
    return [x], fn, {"exact": False, "desc": name}


@op("distributions", 2)
def _distributions(rng, big):
    kind = pick(rng, ["Normal", "Laplace", "Cauchy", "Exponential", "Bernoulli", "Categorical", "Gamma", "Beta",
                      "Poisson", "Uniform", "LogNormal", "Binomial"])
    f = pick(rng, ("float32", "float64"))
    s = shape_of(rng, lo=1) or (3,)
    loc, scale = rec(rng, s, f, "normal"), rec(rng, bshape(rng, s), f, "pos")
    if kind in ("Normal", "Laplace", "Cauchy", "LogNormal"):
        v = rec(rng, s, f, "pos" if kind == "LogNormal" else "normal", grad=False)
        return [loc, scale, v], (lambda L, a, b, v: getattr(L.distributions, kind)(a, b).log_prob(v)), {"exact": False}
    if kind == "Uniform":
        lo = rec(rng, s, f, "normal")
        v = Rec(np.zeros(s, f), f)
        return [lo, scale, v], (lambda L, lo, w, v: L.distributions.Uniform(lo, lo + w + 1).log_prob(lo + (w + 1) * 0.5 + v)), \
            {"exact": False}
    if kind in ("Exponential", "Poisson"):
        v = Rec(rng.integers(0, 5, s).astype(f), f)
        return [scale, v], (lambda L, r, v: getattr(L.distributions, kind)(r).log_prob(v)), {"exact": False}
    if kind in ("Gamma", "Beta"):
        c = rec(rng, bshape(rng, s), f, "pos")
        v = Rec(rng.uniform(0.1, 0.9, s).astype(f), f)
        return [scale, c, v], (lambda L, a, b, v: getattr(L.distributions, kind)(a, b).log_prob(v)), {"exact": False}
    if kind in ("Bernoulli", "Binomial"):
        p = rec(rng, s, f, "unit")
        p.values = (np.abs(p.values) * 0.9 + 0.05).astype(f)
        v = Rec(rng.integers(0, 2, s).astype(f), f)
        if kind == "Binomial":
            return [p, v], (lambda L, p, v: L.distributions.Binomial(3, probs=p).log_prob(v)), {"exact": False}
        if rng.random() < 0.5:
            return [p, v], (lambda L, p, v: L.distributions.Bernoulli(logits=p).log_prob(v)), {"exact": False}
        return [p, v], (lambda L, p, v: L.distributions.Bernoulli(probs=p).log_prob(v)), {"exact": False}
    logits = rec(rng, s, f, "normal")
    v = Rec(rng.integers(0, s[-1], s[:-1]), "int64")
    return [logits, v], (lambda L, lg, v: L.distributions.Categorical(logits=lg).log_prob(v)), {"exact": False}


# ---- running and comparing a case ----------------------------------------------------------------

def draw(device, index):
    """Case `index` of this device's sequence: (op name, inputs, fn, options)."""
    rng = np.random.default_rng([SEED, index, device == "cuda"])
    names = sorted(OPS)
    weights = np.array([OPS[n][1] for n in names], float)
    name = names[int(rng.choice(len(names), p=weights / weights.sum()))]
    ins, fn, opts = OPS[name][0](rng, device == "cuda")
    if name in ("matmul", "reduce", "cumulative", "nn", "loss", "softmax", "nn2", "linalg", "special",
                "distributions"):
        opts.setdefault("signed_zero", False)
    opts["family"] = name
    if "desc" not in opts:  # the op's own name, read off the drawing function's locals
        cells = zip(fn.__code__.co_freevars, fn.__closure__ or ())
        fv = {k: c.cell_contents for k, c in cells if k in ("name", "kind", "sym") and c.cell_contents}
        opts["desc"] = str(fv.get("name") or fv.get("kind") or fv.get("sym") or "")
    return name, ins, fn, opts, rng


def _named(text):
    return re.sub(r"\btorch\b", "minigrad", text).split(" (Triggered internally")[0]


def _tensors(r):
    if isinstance(r, (tuple, list)):
        out = []
        for x in r:
            out += _tensors(x)
        return out
    return [r]


def run(L, device, ins, fn, rng_seed):
    """Everything observable about the case in library L, as plain data."""
    out = {}
    leaves, args = [], []
    try:
        for r in ins:
            if isinstance(r, Rec):
                lf, t = build(L, r, device)
                leaves.append(lf if r.grad else None)
                args.append(t)
            else:
                args.append(r)
    except Exception as e:  # noqa: BLE001
        return {"build_error": (type(e).__name__, _named(str(e)))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = fn(L, *args)
        except Exception as e:  # noqa: BLE001
            out["error"] = (type(e).__name__, _named(str(e)))
            return out
    ts = _tensors(res)
    out["results"] = []
    for t in ts:
        if not isinstance(t, (minigrad.Tensor, torch.Tensor)):
            out["results"].append(("py", type(t).__name__, t))
            continue
        is_view = t._is_view() if isinstance(t, torch.Tensor) else None
        d = {"dtype": str(t.dtype).split(".")[-1], "shape": tuple(t.shape),
             "value": t.detach().cpu().numpy().copy(), "grad_fn": None if t.grad_fn is None else type(t.grad_fn).__name__,
             "stride": t.stride(), "offset": t.storage_offset(), "is_view": is_view, "rg": t.requires_grad}
        try:
            d["version"] = t._version
        except Exception:  # noqa: BLE001
            d["version"] = None
        out["results"].append(d)
    grads = [t for t in ts if isinstance(t, (minigrad.Tensor, torch.Tensor)) and t.requires_grad
             and str(t.dtype).split(".")[-1] in FLOATS]
    if grads and any(lf is not None for lf in leaves):
        crng = np.random.default_rng(rng_seed)
        loss = None
        for t in grads:
            g = crng.integers(-4, 5, tuple(t.shape)) / 4.0
            kw = {"device": device} if L is minigrad else {}
            g = L.tensor(g, dtype=t.dtype, **kw)
            term = (t * g).sum()
            loss = term if loss is None else loss + term
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                loss.backward()
            out["grads"] = [None if lf is None or lf.grad is None else lf.grad.cpu().numpy().copy() for lf in leaves]
        except Exception as e:  # noqa: BLE001
            out["grads"] = (type(e).__name__, _named(str(e)))
    return out


def _same(a, b, dtype, exact, signed_zero=False, loose=1.0):
    if a.shape != b.shape:
        return False
    if a.dtype.kind != "f":
        return np.array_equal(a, b)
    if exact:
        na, nb = np.isnan(a), np.isnan(b)
        return np.array_equal(na, nb) and np.array_equal(a[~na], b[~nb]) and (
            not signed_zero or np.array_equal(np.signbit(a[~na]), np.signbit(b[~nb])))
    rt, at = TOL[dtype if dtype in TOL else "float32"]
    finite = np.abs(b[np.isfinite(b)])
    scale = max(1.0, float(finite.max()) if finite.size else 1.0)
    return np.allclose(a, b, rtol=rt * loose, atol=at * scale * 10 * loose, equal_nan=True)


def _excused_node(mine, theirs, opts):
    """Node names left unmatched, on purpose:
    - a view, made of a base that already required grad, read after an in-place write through
      another view of that base: torch rebuilds its grad_fn when it is read (AsStridedBackward0);
      minigrad keeps grad_fn a plain attribute and rebuilds it when the view is next used in an op
      (the gradients, compared, are the same). (Views of a base that did not require grad get
      theirs from the write itself, ops/view_inplace.adopt_views.)
    - the matmul family's outer node where torch folds batch dims into one mm (UnsafeViewBackward0)
      or swaps the operands (TransposeBackward0): torch's internal dispatch choice, not semantics."""
    if opts.get("inplace") and theirs == "AsStridedBackward0" and mine and mine.endswith("Backward0"):
        return True
    if opts.get("family") == "nn" and theirs == "AsStridedBackward1":  # a channels_last result: other work
        return True
    return opts.get("family") == "matmul" and theirs in ("UnsafeViewBackward0", "TransposeBackward0",
                                                         "CloneBackward0")


def compare(m, t, opts, device):
    """A list of differences between minigrad's outcome m and torch's t."""
    exact = opts.get("exact", False) and device == "cpu" or opts.get("exact_cuda", False)
    if device == "cuda" and opts.get("exact"):
        exact = True  # data movement and small-integer-valued arithmetic are exact on the GPU too
    diffs = []
    if device == "cuda":  # torch's messages name its CPU kernels; minigrad's name the device it ran on
        m = dict(m)
        for key in ("error", "grads"):
            if isinstance(m.get(key), tuple):
                m[key] = (m[key][0], m[key][1].replace('_cuda"', '_cpu"'))
        if t.get("error") == ("RuntimeError", "ZeroDivisionError"):
            return []  # integer division by zero: torch's CPU raises, its GPU answers; device-defined
    for key in ("build_error", "error"):
        if m.get(key) != t.get(key):
            diffs.append(f"{key}: minigrad {m.get(key)} torch {t.get(key)}")
    if diffs or "results" not in t:
        return diffs
    if len(m["results"]) != len(t["results"]):
        return [f"result count {len(m['results'])} vs {len(t['results'])}"]
    for i, (a, b) in enumerate(zip(m["results"], t["results"])):
        if isinstance(b, tuple) or isinstance(a, tuple):
            if a != b:
                diffs.append(f"out{i}: {a} vs {b}")
            continue
        for k in ("dtype", "shape", "grad_fn", "rg"):
            if k == "grad_fn" and _excused_node(a[k], b[k], opts):
                continue
            if a[k] != b[k]:
                diffs.append(f"out{i} {k}: minigrad {a[k]} torch {b[k]}")
        # a view's strides and offset, where they describe memory: not those of a view with no
        # elements (torch's come from its view arithmetic and address nothing; minigrad reports the
        # contiguous ones), nor the stride of a size-1 dim (never used to address an element)
        # (nor the nn family's, whose views are torch's channels_last results: other work)
        # (nor a matmul's, a view only where torch's dispatch happens to return one)
        if b["is_view"] and 0 not in b["shape"] and opts.get("family") not in ("nn", "matmul") and (
                [s for s, n in zip(a["stride"], a["shape"]) if n != 1], a["offset"]) != (
                [s for s, n in zip(b["stride"], b["shape"]) if n != 1], b["offset"]):
            diffs.append(f"out{i} view stride/offset: minigrad {a['stride']}/{a['offset']} "
                         f"torch {b['stride']}/{b['offset']}")
        if opts.get("inplace") and a["version"] != b["version"]:
            diffs.append(f"out{i} _version: minigrad {a['version']} torch {b['version']}")
        # the sign of a zero is checked for elementwise ops and data movement; a sum's (BLAS, a
        # reduction's order) is the algorithm's choice
        if a["shape"] == b["shape"] and not _same(a["value"], b["value"], b["dtype"], exact,
                                                  opts.get("signed_zero", True)):
            diffs.append(f"out{i} values differ (max abs diff "
                         f"{np.nanmax(np.abs(a['value'].astype(float) - b['value'].astype(float))) if a['value'].size and a['value'].dtype.kind in 'fiub' and a['value'].dtype == b['value'].dtype else '?'})")
    mg, tg = m.get("grads"), t.get("grads")
    if isinstance(mg, tuple) or isinstance(tg, tuple):
        if mg != tg:
            diffs.append(f"backward: minigrad {mg} torch {tg}")
    elif mg is not None or tg is not None:
        if mg is None or tg is None or len(mg) != len(tg):
            diffs.append(f"grads: minigrad {mg is not None} torch {tg is not None}")
        else:
            for i, (a, b) in enumerate(zip(mg, tg)):
                if (a is None) != (b is None):
                    diffs.append(f"grad of input {i}: minigrad {'none' if a is None else 'set'}, "
                                 f"torch {'none' if b is None else 'set'}")
                # (a norm over two or three close values is ill-conditioned: its gradients get 10x room)
                elif a is not None and not _same(a, b, str(b.dtype), exact and opts.get("grad_exact", True),
                                                 loose=10.0 if opts.get("family") in ("nn", "nn2") else 1.0):
                    diffs.append(f"grad of input {i} differs")
    return diffs


def check_case(device, index):
    """(reproducer line, differences) of one case."""
    name, ins, fn, opts, rng = draw(device, index)
    seed = int(rng.integers(1 << 30))
    t = run(torch, "cpu", ins, fn, seed)
    m = run(minigrad, device, ins, fn, seed)
    diffs = compare(m, t, opts, device)
    line = (f"[{device} #{index}] {name} {opts.get('desc', '')} inputs={ins!r} | replay: cd tests && "
            f"python -c \"import test_fuzz_layouts as f; f.replay('{device}', {index})\"")
    return line, diffs


def replay(device, index):
    line, diffs = check_case(device, index)
    print(line)
    for d in diffs:
        print("   ", d)
    return diffs


@pytest.mark.parametrize("device", DEVICES)
def test_fuzz_layouts(device):
    failures = []
    for i in range(N_CASES[device]):
        line, diffs = check_case(device, i)
        if diffs:
            failures.append(line + "\n    " + "\n    ".join(diffs))
    assert not failures, f"{len(failures)} cases differ from torch:\n" + "\n".join(failures[:40])


# ---- regressions: one per bug the fuzzer found (each once differed from torch) -----------------

def both(fn):
    """fn(L) for minigrad and torch, as plain data (values, dtype names, node names, errors)."""
    def plain(L):
        try:
            r = fn(L)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, _named(str(e))
        out = []
        for t in _tensors(r):
            if isinstance(t, (minigrad.Tensor, torch.Tensor)):
                out.append((str(t.dtype).split(".")[-1], repr(t.detach().tolist()),
                            None if t.grad_fn is None else type(t.grad_fn).__name__))
            else:
                out.append(t)
        return out
    mine, theirs = plain(minigrad), plain(torch)
    assert mine == theirs
    return mine


def test_inplace_on_an_empty_strided_view_is_no_overlap():
    # NumPy gives arrays with no elements zero strides: minigrad took them for overlapping memory
    both(lambda L: L.zeros(2, 0, 11, dtype=L.int32)[:, :, 1::3][::2].relu_())
    both(lambda L: L.zeros(7, 3, 0, 1, dtype=L.float64)[::3].clamp_(-1, 1))


def test_clamp_with_tensor_bounds():
    def grads(L):
        a = L.tensor([0., 1., 2., 3., 5., 0.], requires_grad=True)
        lo = L.tensor([1., 1., 3., 4., 0., 1.], requires_grad=True)
        hi = L.tensor([2., 1., 1., 2., 5., 1.], requires_grad=True)
        r = L.clamp(a, lo, hi)
        r.backward(L.arange(1., 7.))
        return r, a.grad, lo.grad, hi.grad
    assert both(grads)[0][2] == "ClampBackward0"
    both(lambda L: (L.tensor([1, 5]).clamp(max=L.tensor(3)), L.clamp(L.tensor([1, 5]), L.tensor([2.5]))))
    both(lambda L: L.clamp(L.tensor([1, 5]), L.tensor([2]), 3.5))  # torch has no mixed overload


def test_not_implemented_node_type_name():
    r = both(lambda L: L.floor_divide(L.ones(2, requires_grad=True), 2.0))
    assert r[0][2] == "NotImplemented"
    x = minigrad.floor_divide(minigrad.ones(2, requires_grad=True), 2.0)
    assert x.grad_fn.name() == "torch::autograd::NotImplemented" and "grad_fn=<NotImplemented>" in repr(x)


def test_unique_backward_is_not_implemented_error():
    for kw in ({}, {"dim": 0}):
        r = both(lambda L: L.unique(L.tensor([2., 1., 2.], requires_grad=True), **kw).sum().backward())
        assert r[0] == "NotImplementedError"
    both(lambda L: L.unique_consecutive(L.tensor([2., 2., 1.], requires_grad=True)).sum().backward())


def test_any_all_of_uint8_answer_uint8_and_median_of_bool_raises():
    both(lambda L: (L.tensor([[0, 3], [0, 0]], dtype=L.uint8).any(), L.tensor([[0, 3]], dtype=L.uint8).all(1)))
    assert both(lambda L: L.median(L.tensor([True, False])))[0] == "NotImplementedError"
    both(lambda L: L.median(L.tensor([True, False]), 0))


def test_index_add_of_bools_with_alpha():
    both(lambda L: L.index_add(L.tensor([[False, True], [False, False]]), 0, L.tensor([0, 0]),
                               L.tensor([[True, False], [True, False]]), alpha=2))


def test_scatter_with_an_empty_index():
    def run_(L):
        src = L.ones(1, 3, 2, 0, requires_grad=True)
        a = L.zeros(2, 3, 2, 3, requires_grad=True)
        r = L.scatter_add(a, 1, L.zeros(1, 3, 2, 0, dtype=L.int64), src)
        r.sum().backward()
        s2 = L.ones(2, 0, 1, 1, requires_grad=True)
        r2 = L.scatter(L.zeros(2, 3, 2, 5), 1, L.zeros(2, 0, 1, 1, dtype=L.int64), s2)
        r2.sum().backward()
        return r, a.grad, list(src.grad.shape), r2, list(s2.grad.shape)
    both(run_)


def test_inplace_on_a_view_checks_the_result_dtype():
    both(lambda L: L.tensor([[2]]).t().mul_(L.tensor([[1.5]], dtype=L.float64, requires_grad=True)))
    both(lambda L: L.zeros(4, 0, dtype=L.int32).unsqueeze(0).add_(L.ones(1, 1, dtype=L.float16,
                                                                           requires_grad=True)))


def test_advanced_index_errors_in_torch_words():
    both(lambda L: L.zeros(5, 4, 3, 3)[L.tensor([True] * 5), ..., L.tensor([True] * 4)])
    both(lambda L: L.zeros(4, 3, 3, 3)[-4, L.tensor([True, False, True]), L.zeros(2, 4, dtype=L.int64)])
    both(lambda L: L.zeros(4, 4, 2)[1, [0, -1], L.zeros(1, 4, dtype=L.int64)])


def test_index_put_requires_matching_dtypes():
    def put(value, index):
        def f(L):
            x = L.zeros(3)
            x[index(L)] = value(L)
            return x
        return f
    both(put(lambda L: L.tensor([1, 2]), lambda L: L.tensor([0, 1])))
    both(put(lambda L: L.tensor(2, dtype=L.float64), lambda L: (L.tensor([0, 1]),)))
    both(put(lambda L: L.tensor(2, dtype=L.float64), lambda L: L.tensor([True, False, True])))  # masked fill
    both(put(lambda L: L.tensor([1, 2]), lambda L: slice(0, 2)))  # basic: a copy converts


def test_logit_gradient_outside_the_unit_interval_is_nan():
    def f(L):
        for dt in (L.float16, L.float32):
            x = L.tensor([-0.5, 0.25, 0.5, 1.5], dtype=dt, requires_grad=True)
            L.logit(x).sum().backward()
            yield x.grad
    both(lambda L: list(f(L)))


def test_inplace_fill_node_names_and_nansum_of_0d():
    def f(L):
        x = L.ones(3, requires_grad=True).clone()
        y = L.ones(3, requires_grad=True).clone()
        z = L.tensor(1.5, dtype=L.float16, requires_grad=True)
        L.nansum(z).backward()
        return x.fill_(2), y.fill_(L.tensor(2.)), z.grad
    assert [r[2] for r in both(f)[:2]] == ["FillBackward2", "FillBackward3"]


def test_linear_node_follows_input_layout():
    def f(L):
        w, b = L.ones(3, 4, requires_grad=True), L.ones(3, requires_grad=True)
        x = L.ones(2, 5, 4, requires_grad=True)
        return (L.nn.functional.linear(x, w, b), L.nn.functional.linear(x.transpose(0, 1), w, b),
                L.nn.functional.linear(x, w, L.ones(6, requires_grad=True)[::2]))
    assert [r[2] for r in both(f)] == ["ViewBackward0", "AddBackward0", "AddBackward0"]


def test_an_ellipsis_spanning_no_dims_does_not_part_advanced_indices():
    both(lambda L: L.zeros(3, 5, 1, dtype=L.int32)[None, [1, 2], ..., [4], None, None, L.tensor(0)].shape)
    both(lambda L: L.zeros(3, 5)[[1, 2], ..., [0]].shape)


def test_atan2_gradient_at_the_origin_is_zero():
    def f(L):
        a = L.tensor([0., 0., 1.], requires_grad=True)
        b = L.tensor([0., 2., 0.], requires_grad=True)
        L.atan2(a, b).sum().backward()
        return a.grad, b.grad
    both(f)
