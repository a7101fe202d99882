"""The backend contract (minigrad.backends.PRIMITIVES), checked on every available backend.

One table, TABLE, holds the cases of every primitive: results come back through the backend's
`to_numpy` and are compared with a NumPy float64 reference (or a hand-written expectation),
with their dtype and shape; results must be the backend's arrays, never NumPy scalars, even
for 0-d inputs. In-place primitives must change their target, view-producing ones must alias
their input, and the random ones are checked for shape, dtype, range and reproducibility.
A primitive added to PRIMITIVES without a case here fails test_every_primitive_has_cases.
"""
import importlib
import math
import pkgutil
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import minigrad
import minigrad.ops
from minigrad.backends import PRIMITIVES, numpy_backend


def _cuda_available():
    try:
        return minigrad.cuda.is_available()
    except Exception:  # a broken probe must not take the CPU runs down with it
        return False


BACKENDS = [
    pytest.param("numpy", id="numpy"),
    pytest.param("cuda", id="cuda", marks=pytest.mark.skipif(
        not _cuda_available(), reason="no CUDA GPU available (minigrad.cuda.is_available() is False)")),
]


@pytest.fixture(params=BACKENDS)
def be(request):
    if request.param == "numpy":
        return numpy_backend
    from minigrad.backends import cuda_backend  # imported only when a GPU is there
    return cuda_backend.for_device(0)


F32, F64, I64, I32, BOOL = np.float32, np.float64, np.int64, np.int32, np.bool_
TOL = {np.dtype(F32): (1e-5, 1e-6), np.dtype(F64): (1e-10, 1e-12)}
_SHORT = {"float32": "f32", "float64": "f64", "int64": "i64", "int32": "i32", "bool": "b",
          "uint16": "bf16bits"}

rng = np.random.default_rng(20240611)


def u(*shape, dtype=F32, lo=-2.0, hi=2.0):
    return np.array(rng.uniform(lo, hi, shape), dtype=dtype)


def ints(*shape, lo=-5, hi=6, dtype=I64):
    return np.array(rng.integers(lo, hi, shape), dtype=dtype)


def mask(*shape):
    m = rng.random(shape) < 0.5
    if m.size > 1:  # both values present, or the case tests little
        m.flat[0], m.flat[-1] = True, False
    return m


def arr(values, dtype):
    return np.array(values, dtype=dtype)


class Transposed:
    """An input with the logical values of `array`, held transposed in the backend's memory
    (so the primitive sees a non-contiguous array)."""

    def __init__(self, array):
        self.array = array


# ---- moving case arguments to a backend and to the reference ----------------------------

def to_backend(be, x):
    if isinstance(x, Transposed):
        axes = tuple(reversed(range(x.array.ndim)))
        return be.transpose(be.asarray(np.ascontiguousarray(x.array.transpose(axes))), axes)
    if isinstance(x, np.ndarray):
        return be.asarray(x)
    if isinstance(x, (tuple, list)):
        return type(x)(to_backend(be, i) for i in x)
    return x


def to_ref(x):
    """float arrays in float64; everything else as it is."""
    if isinstance(x, Transposed):
        x = x.array
    if isinstance(x, np.ndarray):
        return x.astype(F64) if x.dtype.kind == "f" else x.copy()
    if isinstance(x, (tuple, list)):
        return type(x)(to_ref(i) for i in x)
    return x


def first_dtype(args):
    for a in args:
        if isinstance(a, Transposed):
            return a.array.dtype
        if isinstance(a, np.ndarray):
            return a.dtype
        if isinstance(a, list) and a:
            return first_dtype(a)
    raise AssertionError("a case without array arguments must name its result dtype")


def describe(x):
    if isinstance(x, Transposed):
        return describe(x.array) + ".T"
    if isinstance(x, np.ndarray):
        return _SHORT[x.dtype.name] + "[" + ",".join(map(str, x.shape)) + "]"
    if isinstance(x, list):
        return "[" + ",".join(describe(i) for i in x) + "]"
    if isinstance(x, tuple):
        return "(" + ",".join(describe(i) for i in x) + ("," if len(x) == 1 else "") + ")"
    if isinstance(x, slice):
        return ":".join("" if v is None else str(v) for v in (x.start, x.stop, x.step))
    if x is Ellipsis:
        return "..."
    if isinstance(x, type):
        return _SHORT.get(np.dtype(x).name, x.__name__)
    return repr(x)


def array_type(be):
    return type(be.zeros((1,), F32))


def check_array(be, got, expected, dtype):
    assert isinstance(got, array_type(be)), f"returned a {type(got).__name__}, not the backend's array"
    host = be.to_numpy(got)
    assert isinstance(host, np.ndarray), f"to_numpy gave a {type(host).__name__}"
    expected = np.asarray(expected)
    assert host.dtype == np.dtype(dtype), f"dtype {host.dtype}, expected {np.dtype(dtype)}"
    assert host.shape == expected.shape, f"shape {host.shape}, expected {expected.shape}"
    if host.dtype.kind == "f":
        rtol, atol = TOL[host.dtype]
        np.testing.assert_allclose(host.astype(F64), expected.astype(F64), rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(host, expected)


def _reference(ref, expect, args):
    if expect is not None:
        return expect
    with np.errstate(all="ignore"):  # log(0), x/0: the reference is allowed to hit them
        return ref(*to_ref(args))


# ---- case builders: each gives (label, check(be, primitive)) -----------------------------

def out(*args, ref=None, expect=None, dtype=None, label=None):
    """The primitive's result on args equals ref(*args in float64), or `expect`."""
    def check(be, f):
        with np.errstate(all="ignore"):  # log(0) and x/0 are cases, not accidents
            got = f(*to_backend(be, args))
        check_array(be, got, _reference(ref, expect, args), dtype or first_dtype(args))
    return label or describe(args), check


def raises(exc, *args, label=None, match=None):
    def check(be, f):
        with pytest.raises(exc, match=match):
            f(*to_backend(be, args))
    return "raises-" + (label or describe(args)), check


def by_backend(numpy, cuda):
    """Cases whose contract differs by backend as torch's devices do: (label, check) for each."""
    def check(be, f):
        (numpy if be.name == "numpy" else cuda)[1](be, f)
    return numpy[0], check


def mutates(*args, target, ref=None, expect=None, label=None):
    """An in-place primitive: afterwards args[target] holds ref(*args) (same dtype and shape)."""
    def check(be, f):
        bargs = to_backend(be, args)
        f(*bargs)
        check_array(be, bargs[target], _reference(ref, expect, args), first_dtype([args[target]]))
    return label or describe(args), check


def aliases(base, *rest, write=(Ellipsis,), where=Ellipsis, label=None):
    """f(base, *rest) is a view: writing 99 at `write` through it changes base at `where`."""
    def check(be, f):
        b = be.asarray(base)
        v = f(b, *to_backend(be, rest))
        be.setitem(v, write, be.full((), 99, base.dtype))
        expected = base.astype(F64)
        expected[where] = 99
        check_array(be, b, expected, base.dtype)
    return "aliases-" + (label or describe((base,) + rest)), check


def custom(label):
    def wrap(fn):
        return label, fn
    return wrap


# ---- rows shared by families of primitives ----------------------------------------------

def erf_ref(a):
    return np.array([math.erf(v) for v in a.astype(F64).ravel()], F64).reshape(a.shape)


def unary_rows(ref, lo=-3.0, hi=3.0, with_ints=False, special=()):
    rows = [out(u(2, 3, lo=lo, hi=hi), ref=ref),
            out(u(4, dtype=F64, lo=lo, hi=hi), ref=ref),
            out(u(dtype=F32, lo=lo, hi=hi), ref=ref),  # 0-d
            out(u(dtype=F64, lo=lo, hi=hi), ref=ref),
            out(u(0, 3, lo=lo, hi=hi), ref=ref)]
    if with_ints:
        rows.append(out(ints(2, 3), ref=ref))
    return rows + [out(arr(values, dt), expect=want, label=f"{_SHORT[np.dtype(dt).name]}{values}")
                   for values, dt, want in special]


def arith_rows(ref, with_ints=True, pos_second=False):
    lo = 0.5 if pos_second else -2.0
    rows = [out(u(2, 3), u(2, 3, lo=lo), ref=ref),
            out(u(3, 1, dtype=F64), u(1, 4, dtype=F64, lo=lo), ref=ref),
            out(u(2, 3), u(3, lo=lo), ref=ref),
            out(u(), u(lo=lo), ref=ref),  # 0-d with 0-d stays an array
            out(u(dtype=F64), u(2, 2, dtype=F64, lo=lo), ref=ref),
            out(u(2, 3), 1.5, ref=ref),  # a Python float keeps float32
            out(u(3, dtype=F64), 2, ref=ref),
            out(u(), 3.0, ref=ref),
            out(1, u(2, 3, lo=lo), ref=ref),  # scalar first, as tanh's backward does
            out(2.5, u(dtype=F64, lo=lo), ref=ref),
            raises(ValueError, u(2, 3), u(4))]
    if with_ints:
        rows += [out(ints(2, 3), ints(2, 3, lo=1), ref=ref),
                 out(ints(2, 3), 3, ref=ref)]
    return rows


def compare_rows(ref):
    ties = lambda *s: np.array(rng.integers(0, 3, s), dtype=F32)  # noqa: E731  equal elements on purpose
    nan = arr([np.nan, 1.0, np.nan], F64)
    return [out(ties(2, 3), ties(2, 3), ref=ref, dtype=BOOL),
            out(u(3, 1, dtype=F64), u(1, 4, dtype=F64), ref=ref, dtype=BOOL),
            out(ties(2, 3), 1.0, ref=ref, dtype=BOOL),
            out(ties(), ties(), ref=ref, dtype=BOOL),
            out(ints(2, 3, lo=-1, hi=2), 0, ref=ref, dtype=BOOL),
            out(ints(4, lo=-1, hi=2), ints(4, lo=-1, hi=2), ref=ref, dtype=BOOL),
            out(mask(2, 3), mask(2, 3), ref=ref, dtype=BOOL),
            out(nan, arr([np.nan, 1.0, 0.0], F64), ref=ref, dtype=BOOL),
            raises(ValueError, u(2, 3), u(2))]


def reduce_rows(ref, with_dtype=False):
    rows = [out(u(2, 3, 4), None, False, ref=ref),
            out(u(2, 3, 4, dtype=F64), (1,), False, ref=ref),
            out(u(2, 3, 4), (0, 2), True, ref=ref),
            out(u(3, 4), (0, 1), False, ref=ref),
            out(ints(3, 4), (0,), False, ref=ref),
            out(u(), (), False, ref=ref),  # 0-d in, 0-d array out
            out(u(dtype=F64), None, True, ref=ref),
            out(arr([[1.0, np.nan], [2.0, 3.0]], F64), (1,), False, ref=ref),
            # over leading or middle dims of a contiguous array (the CUDA column kernels), a
            # NaN in one column, and a few very long columns (which the row kernels take)
            out(u(8, 256), (0,), False, ref=ref, label="leading-axis"),
            out(u(5, 7, 3), (0, 1), True, ref=ref),
            out(u(2, 9, 40), (1,), False, ref=ref),
            out(ints(70, 3), (0,), False, ref=ref),
            out(arr([[1.0, 2.0], [np.nan, 0.0], [3.0, -1.0]], F32), (0,), False, ref=ref, label="nan-column"),
            out(u(40000, 2), (0,), False, ref=ref, label="long-columns")]
    if with_dtype:
        rows += [out(mask(3, 4), (1,), False, I64, ref=ref, dtype=I64),
                 out(mask(3, 4), None, False, I64, ref=ref, dtype=I64),
                 out(u(3, 4), (0,), True, F64, ref=ref, dtype=F64),
                 out(u(0, 3), (0,), False, ref=ref)]
    return rows


def prod_ref(a, axis, keep):
    return np.prod(a, axis=axis, keepdims=keep, dtype=np.int64 if a.dtype.kind in "biu" else None)


def _well(*shape, dtype=F64):
    """Well-conditioned square matrices: a strong diagonal (either sign) over noise."""
    n = shape[-1]
    signs = rng.choice([-1.0, 1.0], shape[:-2] + (1, n))
    return (rng.uniform(-1, 1, shape) + 2 * n ** 0.5 * np.eye(n) * signs).astype(dtype)


def factors(*args, expect, label=None):
    """A primitive with one or several results: each equals the host array in `expect` (same
    dtype and shape), floats within 1e-4 (float32) / 1e-10 (float64) of the largest value."""
    def check(be, f):
        got = f(*to_backend(be, args))
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(expect)
        for g, e in zip(got, expect):
            assert isinstance(g, array_type(be))
            host = be.to_numpy(g)
            assert host.dtype == e.dtype and host.shape == e.shape, (host.dtype, e.dtype, host.shape, e.shape)
            if host.dtype.kind == "f":
                tol = 1e-4 if host.dtype == F32 else 1e-10
                scale = max(1.0, float(np.abs(e).max())) if e.size else 1.0
                np.testing.assert_allclose(host, e, rtol=tol, atol=tol * scale)
            else:
                np.testing.assert_array_equal(host, e)
    return label or describe(args[0]), check


def _lu_ref(a):
    """LAPACK's getrf by hand in float64 (partial pivoting, first largest pivot): the reference."""
    m, n = a.shape[-2:]
    k = min(m, n)
    lus, pivs, infos = [], [], []
    for x in a.reshape(int(np.prod(a.shape[:-2])), m, n).astype(F64):
        x, piv, info = x.copy(), [], 0
        for j in range(k):
            p = j + int(np.argmax(np.abs(x[j:, j])))
            piv.append(p + 1)
            if x[p, j] == 0:
                info = info or j + 1
                continue
            x[[j, p]] = x[[p, j]]
            x[j + 1:, j] /= x[j, j]
            x[j + 1:, j + 1:] -= np.outer(x[j + 1:, j], x[j, j + 1:])
        lus.append(x)
        pivs.append(piv)
        infos.append(info)
    return (np.array(lus, a.dtype).reshape(a.shape), np.array(pivs, I32).reshape(a.shape[:-2] + (k,)),
            np.array(infos, I32).reshape(a.shape[:-2]))


def lu_factor_cases():
    cases = [factors(a, expect=_lu_ref(a)) for a in
             (_well(4, 4), _well(3, 5, 5, dtype=F32), _well(2, 3, 40, 40), rng.uniform(-1, 1, (2, 3, 6)),
              rng.uniform(-1, 1, (6, 3)).astype(F32), u(0, 3, 3, dtype=F64), u(2, 0, 3, dtype=F64))]
    singular = arr([[[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]], [[0.0, 1.0], [1.0, 0.0]]], F64)
    cases.append(factors(singular, expect=(arr([[[2.0, 4.0], [0.5, 0.0]], [[0.0, 0.0], [0.0, 0.0]],
                                                [[1.0, 0.0], [0.0, 1.0]]], F64),
                                           arr([[2, 2], [1, 2], [2, 2]], I32), arr([2, 1, 0], I32)),
                         label="singular-info"))
    return cases


def lu_solve_cases():
    cases = []
    for a, k in ((_well(4, 4), 3), (_well(2, 5, 5, dtype=F32), 1), (_well(3, 33, 33), 2), (_well(2, 3, 3), 0)):
        lu, piv, _ = _lu_ref(a)
        b = rng.uniform(-1, 1, a.shape[:-1] + (k,)).astype(a.dtype)
        for adjoint in (False, True):
            x = np.linalg.solve(np.swapaxes(a, -1, -2) if adjoint else a, b.astype(F64))
            cases.append(factors(lu, piv, b, adjoint, expect=(x.astype(a.dtype),),
                                 label=f"{describe(a)}-k{k}-adjoint{int(adjoint)}"))
    return cases


def triangular_solve_cases():
    cases = []
    for a, k in ((_well(4, 4), 2), (_well(2, 6, 6, dtype=F32), 1), (_well(40, 40), 3)):
        b = rng.uniform(-1, 1, a.shape[:-1] + (k,)).astype(a.dtype)
        for lower in (True, False):
            for trans in (False, True):
                for unit in (False, True):
                    m = np.swapaxes(a, -1, -2) if trans else a
                    m = np.tril(m) if lower else np.triu(m)
                    if unit:
                        m = m - np.eye(m.shape[-1]) * m + np.eye(m.shape[-1])
                    x = np.linalg.solve(m.astype(F64), b.astype(F64))
                    cases.append(factors(a, b, lower, trans, unit, expect=(x.astype(a.dtype),),
                                         label=f"{describe(a)}-{lower:d}{trans:d}{unit:d}"))
    return cases


def cholesky_cases():
    cases = []
    for shape, dtype in (((4, 4), F64), ((3, 5, 5), F32), ((2, 37, 37), F64), ((0, 2, 2), F64)):
        x = rng.uniform(-1, 1, shape)
        s = x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])
        junk = np.triu(rng.uniform(-9, 9, shape), 1)  # the upper triangle is never read
        cases.append(factors((s + junk).astype(dtype), expect=(np.linalg.cholesky(s).astype(dtype),
                                                              np.zeros(shape[:-2], I32))))
    bad = arr([[[1.0, 0.0], [0.0, 1.0]], [[-1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]], F64)
    cases.append(factors(bad, expect=(arr([[[1.0, 0.0], [0.0, 1.0]], [[-1.0, 0.0], [0.0, 1.0]],
                                           [[1.0, 0.0], [2.0, -3.0]]], F64), arr([0, 1, 2], I32)),
                         label="not-positive-definite-info"))
    return cases


def prod_rows():
    near1 = lambda *s, dtype=F32, w=0.5: u(*s, dtype=dtype, lo=1 - w, hi=1 + w)  # noqa: E731  no under/overflow
    return [out(near1(2, 3, 4), None, False, ref=prod_ref),
            out(near1(2, 3, 4, dtype=F64), (1,), False, ref=prod_ref),
            out(near1(2, 3, 4), (2,), True, ref=prod_ref),
            out(ints(3, 4, lo=-3, hi=4), (0,), False, ref=prod_ref),
            out(ints(3, 4, lo=-3, hi=4, dtype=I32), (1,), False, ref=prod_ref, dtype=I64),
            out(mask(3, 4), (1,), False, ref=prod_ref, dtype=I64),
            out(u(), (), False, ref=prod_ref),
            out(arr([[1.0, np.nan], [2.0, 0.0]], F64), (1,), False, ref=prod_ref),
            out(near1(8, 256, w=0.01), (0,), False, ref=prod_ref, label="leading-axis"),
            out(near1(5, 7, 3), (1,), True, ref=prod_ref),
            out(near1(20000, 2, dtype=F64, w=1e-4), (0,), False, ref=prod_ref, label="long-columns"),
            out(near1(2, 70000, dtype=F64, w=1e-4), (1,), False, ref=prod_ref, label="long-rows"),
            out(u(0, 3), (0,), False, ref=prod_ref, label="empty-is-one"),
            out(arr([2 ** 40, 2 ** 40, 3], I64), None, False, expect=np.int64(0), label="wraps-as-torch")]


def scan_rows(kind):
    """cumsum / cumprod (a, axis, reverse): the row kernel (last axis, rows shorter and longer
    than a block), the column kernel (a middle axis, in place) and the transposed path, 0-d,
    empty, integer wrapping, NaN, a non-contiguous input."""
    fn = np.cumsum if kind == "cumsum" else np.cumprod

    def ref(a, axis, reverse=False):
        work = np.int64 if a.dtype.kind in "biu" else a.dtype
        if a.ndim == 0:
            return a.astype(work)
        return np.flip(fn(np.flip(a, axis), axis, dtype=work), axis) if reverse else fn(a, axis, dtype=work)

    def x(*shape, dtype=F32, w=0.5):  # products near 1 neither overflow nor underflow
        return u(*shape, dtype=dtype) if kind == "cumsum" else u(*shape, dtype=dtype, lo=1 - w, hi=1 + w)

    def pos(*shape, dtype=F64):  # long scans: no cancellation, so rtol bounds the error of any order
        return u(*shape, dtype=dtype, lo=0.0, hi=1.0) if kind == "cumsum" else x(*shape, dtype=dtype, w=1e-4)
    wrap = (arr([2 ** 62, 2 ** 62, 4], I64), [2 ** 62, -2 ** 63, -2 ** 63 + 4]) if kind == "cumsum" else \
        (arr([2 ** 40, 2 ** 40, 3], I64), [2 ** 40, 0, 0])
    return [out(x(2, 3, 4), 2, ref=ref),
            out(x(2, 3, 4, dtype=F64), -1, True, ref=ref, label="last-reverse"),
            out(x(3, 4), 0, ref=ref),
            out(x(2, 10, 40), 1, ref=ref, label="column-kernel"),
            out(x(2, 10, 40, dtype=F64), 1, True, ref=ref, label="column-kernel-reverse"),
            out(pos(2, 70, 2050, dtype=F32), 1, ref=ref, label="many-columns"),
            out(x(3, 100, 5), 1, ref=ref, label="few-long-columns"),
            out(x(3, 100, 5), 1, True, ref=ref, label="few-long-columns-reverse"),
            out(pos(3, 5000), 1, ref=ref, label="long-rows"),
            out(pos(2, 5000, dtype=F32), -1, True, ref=ref, label="long-rows-reverse"),
            out(pos(1, 3000), 1, ref=ref, label="one-long-row"),
            out(x(37, 33), 1, ref=ref, label="rows-not-a-power-of-two"),
            out(ints(3, 4, lo=-3, hi=4), 1, ref=ref),
            out(ints(3, 4, lo=-3, hi=4, dtype=I32), 0, ref=ref, dtype=I64),
            out(mask(3, 4), 1, ref=ref, dtype=I64),
            out(u(), 0, ref=ref, label="0-d"),
            out(u(0, 3), 0, ref=ref, label="empty"),
            out(u(3, 0), 1, ref=ref, label="empty-rows"),
            out(Transposed(x(4, 3)), 1, ref=ref, label="transposed"),
            out(arr([1.0, np.nan, 2.0, 0.0], F64), 0, ref=ref, label="nan"),
            out(wrap[0], 0, expect=arr(wrap[1], I64), label="wraps-as-torch")]


def _remainder_ref(a, b):
    mod = np.fmod(a, b)
    return np.where((mod != 0) & ((np.asarray(b) < 0) != (mod < 0)), mod + b, mod)


def _trunc_divide_ref(a, b):
    if np.result_type(a, b).kind == "f":
        return np.trunc(np.true_divide(a, b))
    return np.floor_divide(a - np.fmod(a, b), b)


INF, NAN = np.inf, np.nan
DIVISION_SPECIAL_A = [1.0, -1.0, 0.0, NAN, INF, -INF, 5.0, -5.0, -4.0, 4.0]
DIVISION_SPECIAL_B = [0.0, 0.0, 0.0, 2.0, 2.0, 2.0, INF, INF, 2.0, -2.0]
INT_A, INT_B = [7, -7, 7, -7, -2 ** 63, -2 ** 63, 5], [2, 2, -2, -2, -1, 1, 7]
# torch's values on the cases above (INT64_MIN / -1 wraps; torch's CPU trunc division crashes on it)
DIVISION_EXPECT = {
    "floor_divide": ([INF, -INF, NAN, NAN, NAN, NAN, 0.0, -1.0, -2.0, -2.0], [3, -4, -4, 3, -2 ** 63, -2 ** 63, 0]),
    "trunc_divide": ([INF, -INF, NAN, NAN, INF, -INF, 0.0, -0.0, -2.0, -2.0], [3, -3, -3, 3, -2 ** 63, -2 ** 63, 0]),
    "remainder": ([NAN, NAN, NAN, NAN, NAN, NAN, 5.0, INF, -0.0, 0.0], [1, 1, -1, -1, 0, 0, 5]),
    "fmod": ([NAN, NAN, NAN, NAN, NAN, NAN, 5.0, -5.0, -0.0, 0.0], [1, -1, 1, -1, 0, 0, 5]),
}
DIVISION_REFS = {"floor_divide": np.floor_divide, "trunc_divide": _trunc_divide_ref, "remainder": _remainder_ref,
                 "fmod": np.fmod}


def _away(*shape, dtype=F32):
    """Divisors of both signs kept from 0, where a float32 and a float64 quotient could round to
    different integers."""
    return np.where(rng.random(shape) < 0.5, -1, 1).astype(dtype) * u(*shape, dtype=dtype, lo=0.7, hi=3.1)


def division_rows(name):
    """floor_divide, trunc_divide, remainder, fmod: mixed signs, every form a kernel has, torch's
    special values, and an integer zero divisor: torch's CPU error on NumPy, 0 on CUDA
    (elementwise.cu's DIVISION_FN)."""
    ref = DIVISION_REFS[name]
    fexp, iexp = DIVISION_EXPECT[name]
    quotient = "divide" in name
    zero_case = np.array(ref(np.array([5, -5, 3]), np.array([2, 1, 1])) * np.array([1, 0, 1]), I64)
    return [out(u(2, 3, lo=-9, hi=9), _away(2, 3), ref=ref),
            out(u(3, 1, dtype=F64, lo=-9, hi=9), _away(1, 4, dtype=F64), ref=ref),
            out(Transposed(u(3, 4, lo=-9, hi=9)), _away(4), ref=ref),
            out(u(lo=-9, hi=9), _away(), ref=ref),  # 0-d with 0-d stays an array
            out(u(2, 3, lo=-9, hi=9), -1.5, ref=ref),
            out(u(5, dtype=F64, lo=-9, hi=9), 2, ref=ref),
            out(7.5, _away(2, 3), ref=ref),  # the scalar first
            out(-3, _away(4, dtype=F64), ref=ref),
            out(u(0, 3), _away(3), ref=ref),
            out(u(1000, lo=-50, hi=50), _away(1000), ref=ref, label="long"),
            out(ints(3, 4, lo=-20, hi=21), np.where(ints(3, 4, lo=1, hi=6) % 2 == 0, -3, 4), ref=ref),
            out(ints(2, 3, lo=-20, hi=21, dtype=I32), ints(3, lo=1, hi=7, dtype=I32), ref=ref),
            out(ints(5, lo=-20, hi=21), -3, ref=ref),
            out(17, ints(2, 3, lo=1, hi=7, dtype=I32), ref=ref),
            out(Transposed(ints(3, 5, lo=-20, hi=21)), ints(5, lo=-6, hi=-1), ref=ref),
            out(arr(DIVISION_SPECIAL_A, F32), arr(DIVISION_SPECIAL_B, F32), expect=fexp, dtype=F32, label="special"),
            out(arr(DIVISION_SPECIAL_A, F64), arr(DIVISION_SPECIAL_B, F64), expect=fexp, dtype=F64,
                label="special"),
            out(arr(INT_A, I64), arr(INT_B, I64), expect=np.array(iexp, I64), dtype=I64, label="int-signs"),
            out(arr([-2 ** 31, 9], I32), -1, expect=np.array([-2 ** 31 if quotient else 0, -9 if quotient else 0], I32),
                dtype=I32, label="int32-min"),
            by_backend(raises(RuntimeError, ints(3, lo=1), arr([2, 0, 1], I64), match="ZeroDivisionError",
                              label="int-zero-divisor"),
                       out(arr([5, -5, 3], I64), arr([2, 0, 1], I64), expect=zero_case, dtype=I64,
                           label="int-zero-divisor")),
            by_backend(raises(RuntimeError, ints(3), 0, match="ZeroDivisionError", label="int-zero-scalar"),
                       out(ints(3, dtype=I32), 0, expect=np.zeros(3, I32), dtype=I32, label="int-zero-scalar")),
            out(ints(0), 0, expect=np.zeros(0, I64), dtype=I64, label="empty-zero-divisor"),
            raises(ValueError, u(2, 3), u(4))]


def cum_extreme_rows(kind):
    """cummax / cummin (a, axis) -> (values, int64 indices), against torch's rule written out
    sequentially: an element at least as large (as small) as the running extreme, or a NaN,
    takes over unless the running extreme is a NaN already."""
    takes_over = (lambda x, m: x >= m) if kind == "cummax" else (lambda x, m: x <= m)

    def ref(a, axis):
        if a.ndim == 0:
            return a.copy(), np.zeros((), I64)
        moved = np.moveaxis(a, axis, -1)
        x = moved.reshape(int(np.prod(moved.shape[:-1])), a.shape[axis])
        values, indices = np.empty_like(x), np.zeros(x.shape, I64)
        for r, row in enumerate(x):
            m, k = None, 0
            for j, v in enumerate(row):
                if m is None or v != v or (m == m and takes_over(v, m)):
                    m, k = v, j
                values[r, j], indices[r, j] = m, k
        shape = moved.shape
        return (np.moveaxis(values.reshape(shape), -1, axis), np.moveaxis(indices.reshape(shape), -1, axis))

    def case(x, axis, label=None):
        @custom(label or describe((x, axis)))
        def check(be, f):
            values, indices = f(to_backend(be, x), axis)
            want_v, want_i = ref(x.array if isinstance(x, Transposed) else x, axis)
            check_array(be, values, want_v, want_v.dtype)
            check_array(be, indices, want_i, I64)
            if want_v.dtype.kind == "f":  # the sign of a zero too: the value is the element at the index
                assert (np.signbit(be.to_numpy(values)) == np.signbit(want_v)).all()
        return check
    ties = arr([[1.0, 3.0, 3.0, 2.0, 0.0, -0.0, 3.0], [-1.0, -1.0, -2.0, -2.0, -0.0, 0.0, -3.0]], F32)
    nans = arr([1.0, np.nan, 5.0, np.nan, -1.0], F64)
    long_nans = ints(2, 3000, lo=-9, hi=9).astype(F64)
    long_nans[0, 1500], long_nans[1, [40, 2047]] = np.nan, np.nan  # inside a chunk, at its end
    return [case(ints(2, 3, 4, lo=-2, hi=3), 2), case(ints(2, 3, 4, lo=-2, hi=3, dtype=I32), 1),
            case(u(3, 4), 0), case(ties, 1, "ties-and-signed-zeros"), case(nans, 0, "nan-wins-and-stays"),
            case(mask(3, 4), 1), case(u(), 0, "0-d"), case(u(0, 3), 0, "empty"), case(u(3, 0), 1, "empty-rows"),
            case(ints(2, 10, 40, lo=-3, hi=4), 1, "column-kernel"),
            case(ints(2, 70, 2050, lo=-50, hi=50).astype(F64), 1, "many-columns"),
            case(ints(3, 100, 5, lo=-9, hi=9, dtype=I32), 1, "few-long-columns"),
            case(ints(3, 5000, lo=-1000, hi=1000).astype(F32), 1, "long-rows"),
            case(ints(1, 3000, lo=-100, hi=100), 1, "one-long-row"),
            case(long_nans, 1, "long-rows-with-nans"), case(long_nans.T.copy(), 0, "long-columns-with-nans"),
            case(ints(37, 33, lo=-4, hi=4).astype(F64), 1, "rows-not-a-power-of-two"),
            case(Transposed(ints(4, 3, lo=-2, hi=2)), 1, "transposed")]


def mean_ref(a, axis, keep):
    with warnings.catch_warnings():  # the mean of nothing is nan, which is a case here
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.mean(a, axis=axis, keepdims=keep)


def arg_rows(fn, ties, first):
    ref = lambda a, axis, keep: fn(a, axis=axis, keepdims=keep)  # noqa: E731
    return [out(u(3, 4), None, False, ref=ref, dtype=I64),
            out(u(3, 4, dtype=F64), 1, False, ref=ref, dtype=I64),
            out(u(3, 4), 0, True, ref=ref, dtype=I64),
            out(u(2, 3, 4), 2, False, ref=ref, dtype=I64),
            out(ints(5), 0, False, ref=ref, dtype=I64),
            out(u(), None, False, expect=np.array(0), dtype=I64),
            out(arr(ties, F32), 0, False, expect=np.array(first), dtype=I64, label="ties")]


def softmax_ref(log):
    def ref(a, axis):
        # logaddexp.reduce is stable without the max-shift the backends use
        out = a - np.logaddexp.reduce(a, axis=axis, keepdims=True)
        return out if log else np.exp(out)
    return ref


def softmax_rows(log):
    ref = softmax_ref(log)
    return [out(u(3, 4), 1, ref=ref),
            out(u(3, 4, dtype=F64), 0, ref=ref),
            out(u(5), 0, ref=ref),
            out(u(2, 3, 4), 1, ref=ref),
            out(u(2, 3, dtype=F64) + 1000.0, 1, ref=ref, label="large-f64"),  # naive exp overflows
            out(u(3, lo=-1, hi=1) * 1000.0, 0, ref=ref, label="spread-f32")]


def backward_rows(formula):
    return [out(u(3, 4), u(3, 4, lo=-0.5, hi=1.5), ref=formula),
            out(u(5, dtype=F64), u(5, dtype=F64, lo=0.05, hi=0.95), ref=formula),
            out(u(), u(), ref=formula),
            out(Transposed(u(3, 2)), u(3, 2), ref=formula, label="transposed-g")]


def softmax_backward_rows(log):
    def ref(g, y, axis):
        if log:
            return g - np.exp(y) * g.sum(axis=axis, keepdims=True)
        return y * (g - (g * y).sum(axis=axis, keepdims=True))

    def y_of(x, axis):
        return np.asarray(softmax_ref(log)(x.astype(F64), axis), x.dtype)
    x1, x2 = u(3, 4), u(2, 3, 4, dtype=F64)
    return [out(u(3, 4), y_of(x1, 1), 1, ref=ref),
            out(u(2, 3, 4, dtype=F64), y_of(x2, 1), 1, ref=ref),
            out(u(5), y_of(u(5), 0), 0, ref=ref)]


def cross_entropy_ref(x, target):
    """(loss rows, stats): stats (2, N) holds each row's max m and s = sum(exp(x - m))."""
    m = x.max(axis=1)
    s = np.exp(x - m[:, None]).sum(axis=1)
    return (m - x[np.arange(x.shape[0]), target]) + np.log(s), np.stack([m, s])


def cross_entropy_inputs():
    """(dtype, logits, target): small logits, and float32 logits near 1e4 where a float32
    logsumexp (ulp ~1e-3) would already miss the tolerance."""
    cases = [(dt, u(n, c, dtype=dt, lo=-4, hi=4), ints(n, lo=0, hi=c))
             for dt, (n, c) in ((F32, (5, 7)), (F64, (3, 10)), (F32, (1, 1)), (F32, (4, 300)))]
    for n, c in ((6, 10), (3, 300)):
        cases.append((F32, u(n, c, lo=-8, hi=8) + F32(1e4), ints(n, lo=0, hi=c)))
    cases.append((F32, u(4, 5, lo=-8, hi=8) - F32(1e4), ints(4, lo=0, hi=5)))
    return cases


def cross_entropy_grad_ref(x, target, stats, gscale):
    dx = np.exp(x - stats[0][:, None]) / stats[1][:, None]
    dx[np.arange(x.shape[0]), target] -= 1
    return dx * gscale


@custom("loss-and-stats")
def cross_entropy_case(be, f):
    for dt, x, target in cross_entropy_inputs():
        loss, stats = f(be.asarray(x), be.asarray(target))
        loss_ref, stats_ref = cross_entropy_ref(x.astype(F64), target)
        check_array(be, loss, loss_ref, dt)
        check_array(be, stats, stats_ref, dt)
        # the stats feed the backward: together exact to float32 rounding even at 1e4
        dx = be.cross_entropy_backward(be.asarray(x), be.asarray(target), stats, be.asarray(np.asarray(0.25, dt)))
        check_array(be, dx, cross_entropy_grad_ref(x.astype(F64), target, stats_ref, 0.25), dt)


def axpy_bits_case(dtype):
    @custom(f"bits-of-multiply-then-add-{np.dtype(dtype).name}")
    def check(be, f):
        # every backend gives the optimizers' p -= lr * g the bits of a rounded product then an
        # add, which a fused multiply-add would change in about a third of these elements
        d, s = u(4099, dtype=dtype), u(4099, dtype=dtype)
        dst = be.asarray(d)
        f(dst, be.asarray(s), -0.1)
        assert be.to_numpy(dst).tobytes() == (d + dtype(-0.1) * s).tobytes()
    return check


def axpy_one_element_bits_case(dtype):
    @custom(f"one-element-bits-{np.dtype(dtype).name}")
    def check(be, f):
        # one-element dsts (seed 000's Linear(1, 1)) may take a path of their own: the bits of a
        # rounded product then an add still, over magnitudes from subnormal to overflowing, and
        # infinities and NaNs; the dst a one-element view of a larger array (only it changes)
        # or a 0-d array, the src broadcast from fewer dims
        vals = np.concatenate([u(300, dtype=dtype) * np.logspace(-45, 38, 300).astype(dtype),
                               np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-45], dtype)])
        srcs = np.roll(vals, 7)
        for i, (d, s) in enumerate(zip(vals, srcs)):
            alpha = (-0.1, 3.0, 1e30, -7e-3)[i % 4]
            with np.errstate(all="ignore"):
                want = (np.array([d]) + np.array([s]) * np.array(alpha, dtype)).astype(dtype)
            shape = ((1, 1), (1,), ())[i % 3]
            dst = be.asarray(np.full(shape, d, dtype))
            with np.errstate(all="ignore"):  # overflows on purpose
                f(dst, be.asarray(np.full((1,) if shape else (), s, dtype)), alpha)
            assert be.to_numpy(dst).tobytes() == want.reshape(shape).tobytes(), (d, s, alpha)
        host = u(3, 4, dtype=dtype)
        base = be.asarray(host)
        f(be.getitem(base, (slice(1, 2), slice(2, 3))), be.asarray(np.full((1, 1), 2.0, dtype)), -0.5)
        host[1, 2] += dtype(-0.5) * dtype(2.0)
        assert be.to_numpy(base).tobytes() == host.tobytes()
    return check


def _foreach_check(be, f, pairs, alpha, views=()):
    """Runs f (foreach_axpy) over pairs of host arrays and checks every dst against the same
    updates made one at a time in NumPy, in order and bit for bit. pairs: (dst index, src)
    where the dsts are a list of host arrays (an index may repeat) and a src is a host array,
    ("flat", array): the array as a reshaped view of a flat one (as gradients often are), or
    ("dst", j): the dst array j itself; views: (dst index, base index, index) entries that make
    that dst a view of another dst."""
    dsts, plan = pairs
    host = [d.copy() for d in dsts]
    dev = [be.asarray(d) for d in dsts]
    for i, base, sl in views:
        dev[i] = be.getitem(dev[base], sl)
        host[i] = host[base][sl]
    srcs, ref_srcs = [], []
    for _, s in plan:
        if isinstance(s, tuple) and s[0] == "flat":
            srcs.append(be.reshape(be.asarray(s[1].reshape(-1)), s[1].shape))
            ref_srcs.append(s[1])
        elif isinstance(s, tuple):
            srcs.append(dev[s[1]])
            ref_srcs.append(s)
        else:
            srcs.append(be.asarray(s))
            ref_srcs.append(s)
    f([dev[i] for i, _ in plan], srcs, alpha)
    for (i, _), s in zip(plan, ref_srcs):  # the reference: one pair after another
        s = host[s[1]].copy() if isinstance(s, tuple) else s
        np.add(host[i], np.multiply(s, alpha, dtype=host[i].dtype), out=host[i], casting="unsafe")
    for j, d in enumerate(dev):
        got = be.to_numpy(d)
        assert got.dtype == host[j].dtype and got.shape == host[j].shape, j
        assert got.tobytes() == np.ascontiguousarray(host[j]).tobytes(), f"dst {j} differs"


@custom("eleven-pairs-bits-of-axpy")
def foreach_axpy_many(be, f):
    # more pairs than one CUDA launch takes (8), float32 and float64 runs, an empty and a 0-d
    # dst, and pairs the CUDA backend updates one at a time: a transposed dst, a broadcast src
    shapes = [(3, 4), (10,), (784, 256), (5,), (0, 3), (), (7, 9), (4099,), (1,), (2, 3), (300,)]
    dsts = [u(*s, dtype=F64 if k in (3, 4, 5) else F32) for k, s in enumerate(shapes)]
    plan = [(k, u(*d.shape, dtype=d.dtype)) for k, d in enumerate(dsts)]
    plan[9] = (9, u(3))                     # broadcast src
    plan[2] = (2, ("flat", plan[2][1]))     # views of other memory, as gradients often are
    plan[7] = (7, ("flat", plan[7][1]))
    _foreach_check(be, f, (dsts, plan), -0.1)
    dsts = [u(3, 4), u(6), u(4, 3)]
    plan = [(0, u(3, 4)), (1, u(6)), (2, u(4, 3))]
    # the middle dst a transposed view of a new array: the backend sees a non-contiguous dst
    t = be.transpose(be.asarray(np.ascontiguousarray(dsts[2].T)), (1, 0))
    ds = [be.asarray(dsts[0]), be.asarray(dsts[1]), t]
    f(ds, [be.asarray(s) for _, s in plan], 0.5)
    for d, h, (_, s) in zip(ds, dsts, plan):
        assert be.to_numpy(d).tobytes() == (h + F32(0.5) * s).tobytes()


@custom("aliasing-pairs-in-order")
def foreach_axpy_aliasing(be, f):
    a, b, c = u(5), u(5), u(5)
    # a dst twice: both updates land, one after the other
    _foreach_check(be, f, ([a, b], [(0, u(5)), (1, u(5)), (0, u(5))]), 0.25)
    # a src that is an earlier or a later dst: it is read as the sequence of updates leaves it
    _foreach_check(be, f, ([a, b, c], [(0, ("dst", 1)), (1, u(5)), (2, ("dst", 1))]), -2.0)
    # a dst that is a view of another dst in the list; two dsts that are rows of one array
    _foreach_check(be, f, ([u(4, 6), u(6)], [(0, u(4, 6)), (1, u(6))]), 0.5, views=[(1, 0, (2,))])
    _foreach_check(be, f, ([u(4, 6), u(6), u(6), u(3)], [(1, u(6)), (2, u(6)), (3, u(3))]), 0.5,
                   views=[(1, 0, (1,)), (2, 0, (3,))])
    f([], [], 1.0)  # nothing to do


def _adam_bits_ref(p, g, m, v, vm, t, lr, beta1, beta2, eps, weight_decay, decoupled, maximize):
    """foreach_adam's documented formula on host arrays, in place: one rounded NumPy operation
    after another, in the order the contract gives (the bits every backend must have)."""
    dt = p.dtype.type
    if weight_decay != 0 and decoupled:
        p[...] = p * dt(1 - lr * weight_decay)
    d = -g if maximize else g
    if weight_decay != 0 and not decoupled:
        d = d + p * dt(weight_decay)
    w = 1 - beta1
    m[...] = m + (d - m) * dt(w) if abs(w) < 0.5 else d - (d - m) * dt(1 - w)
    v[...] = v * dt(beta2) + (d * dt(1 - beta2)) * d
    if vm is not None:
        vm[...] = np.maximum(vm, v)
        v = vm
    p[...] = p + (m * dt(-(lr / (1 - beta1 ** t)))) / (np.sqrt(v) / dt((1 - beta2 ** t) ** 0.5) + dt(eps))


def _adam_math_ref(p, g, m, v, vm, t, lr, beta1, beta2, eps, weight_decay, decoupled, maximize):
    """The same update as torch.optim.Adam's docs write it, in float64: the semantic check."""
    p, g, m, v = (x.astype(F64) for x in (p, g, m, v))
    if decoupled:
        p = p * (1 - lr * weight_decay)
    g = -g if maximize else g
    if not decoupled:
        g = g + weight_decay * p
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    vmax = None if vm is None else np.maximum(vm.astype(F64), v)
    vhat = (v if vm is None else vmax) / (1 - beta2 ** t)
    p = p - lr * (m / (1 - beta1 ** t)) / (np.sqrt(vhat) + eps)
    return p, m, v, vmax


ADAM_OPTIONS = [dict(lr=1e-2, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0, decoupled=False, maximize=False),
                dict(lr=3e-3, beta1=0.3, beta2=0.9, eps=1e-6, weight_decay=0.1, decoupled=False, maximize=True),
                dict(lr=5e-2, beta1=0.9, beta2=0.99, eps=1e-8, weight_decay=0.01, decoupled=True, maximize=False)]


def adam_case(options, amsgrad):
    @custom("formula-bits-" + "-".join(f"{k}{v}" for k, v in options.items()) + ("-amsgrad" if amsgrad else ""))
    def check(be, f):
        # more parameters than one CUDA launch takes (8), float32 and float64 runs, an empty and
        # a 0-d one, odd sizes (16-byte vectors and a scalar tail), gradients that are views
        # of other memory, and each parameter at its own step count
        shapes = [(3, 4), (10,), (784, 256), (5,), (0, 3), (), (7, 9), (4099,), (1,), (2, 3), (301,)]
        dts = [F64 if k in (3, 4, 5) else F32 for k in range(len(shapes))]
        host = [[u(*s, dtype=dt), u(*s, dtype=dt), u(*s, dtype=dt, lo=-0.1, hi=0.1), u(*s, dtype=dt, lo=0, hi=0.01),
                 u(*s, dtype=dt, lo=0, hi=0.02) if amsgrad else None] for s, dt in zip(shapes, dts)]
        host[1][1][3] = 0.0                  # a zero gradient and a zero second moment
        host[1][3][3] = 0.0
        steps = [float(1 + k % 4) for k in range(len(shapes))]
        dev = [[None if a is None else be.asarray(a) for a in arrays] for arrays in host]
        for k in (2, 7):                     # gradients as reshaped views of flat arrays
            dev[k][1] = be.reshape(be.asarray(host[k][1].reshape(-1)), host[k][1].shape)
        cols = list(zip(*dev))
        f(list(cols[0]), list(cols[1]), list(cols[2]), list(cols[3]), list(cols[4]) if amsgrad else None, steps,
          **options)
        for k, (arrays, t) in enumerate(zip(host, steps)):
            math = _adam_math_ref(*arrays, t, **options)
            _adam_bits_ref(*arrays, t, **options)
            for j, (got, want) in enumerate(zip(dev[k][:1] + dev[k][2:], arrays[:1] + arrays[2:])):
                if want is None:
                    continue
                got = be.to_numpy(got)
                assert got.dtype == want.dtype and got.shape == want.shape
                assert got.tobytes() == want.tobytes(), f"parameter {k}, array {j} differs from the formula's bits"
            for got, want in zip(arrays[:1] + arrays[2:], math):
                if want is not None:
                    np.testing.assert_allclose(got, want, rtol=2e-5 if got.dtype == F32 else 1e-12, atol=1e-7)
    return check


@custom("strided-cast-and-aliasing-in-order")
def foreach_adam_unusual(be, f):
    # a transposed parameter, a broadcast gradient, and a gradient that is another parameter
    # (read as the earlier update left it)
    opts = dict(lr=0.1, beta1=0.9, beta2=0.99, eps=1e-8, weight_decay=0.01, decoupled=False, maximize=False)
    a, b, c = u(4, 3), u(3, 4), u(5)
    ga, gc = u(4, 3), u(1)
    ma, va = u(4, 3, lo=-0.1, hi=0.1), u(4, 3, lo=0, hi=0.01)
    mb, vb, mc, vc = u(3, 4), u(3, 4, lo=0, hi=0.01), u(5), u(5, lo=0, hi=0.01)
    pa = be.transpose(be.asarray(np.ascontiguousarray(a.T)), (1, 0))
    dev = [pa, be.asarray(b), be.asarray(c)]
    dm = [be.asarray(ma), be.asarray(mb), be.asarray(mc)]
    dv = [be.asarray(va), be.asarray(vb), be.asarray(vc)]
    # b's gradient is a itself (transposed): b's update reads a after a's update
    f(dev, [be.asarray(ga), be.transpose(pa, (1, 0)), be.broadcast_to(be.asarray(gc), (5,))], dm, dv, None,
      [1.0, 2.0, 3.0], **opts)
    _adam_bits_ref(a, ga, ma, va, None, 1.0, **opts)
    _adam_bits_ref(b, np.ascontiguousarray(a.T), mb, vb, None, 2.0, **opts)
    _adam_bits_ref(c, np.broadcast_to(gc, (5,)), mc, vc, None, 3.0, **opts)
    for got, want in ((dev[0], a), (dm[0], ma), (dv[0], va), (dev[1], b),
                      (dm[1], mb), (dv[1], vb), (dev[2], c), (dm[2], mc), (dv[2], vc)):
        got = be.to_numpy(got)
        assert got.dtype == want.dtype and got.tobytes() == np.ascontiguousarray(want).tobytes()
    f([], [], [], [], None, [], **opts)   # nothing to do


def _sgd_bits_ref(p, g, buf, first, lr, momentum, dampening, weight_decay, nesterov, maximize):
    """foreach_sgd's documented formula on host arrays, in place, one rounded operation after
    another in the contract's order."""
    dt = p.dtype.type
    d = -g if maximize else g
    if weight_decay:
        d = d + p * dt(weight_decay)
    if momentum:
        if first:
            buf[...] = d
        else:
            buf[...] = buf * dt(momentum) + (d if dampening == 0 else d * dt(1 - dampening))
        d = d + buf * dt(momentum) if nesterov else buf
    p[...] = p - d * dt(lr)


SGD_OPTIONS = [dict(lr=0.1, momentum=0.9, dampening=0, weight_decay=0, nesterov=False, maximize=False),
               dict(lr=0.05, momentum=0.9, dampening=0, weight_decay=0.01, nesterov=True, maximize=True),
               dict(lr=0.1, momentum=0.5, dampening=0.3, weight_decay=0, nesterov=False, maximize=False),
               dict(lr=0.1, momentum=0, dampening=0, weight_decay=0.1, nesterov=False, maximize=True)]


def sgd_case(options):
    @custom("formula-bits-" + "-".join(f"{k}{v}" for k, v in options.items()))
    def check(be, f):
        # more parameters than one CUDA launch takes, float32 and float64 runs, an empty and a
        # 0-d one, gradients that are views of other memory; some parameters take their first
        # step (the buffer is set, never read: it starts as NaN here), the others a later one
        shapes = [(3, 4), (10,), (784, 256), (5,), (0, 3), (), (7, 9), (4099,), (1,), (2, 3), (301,)]
        dts = [F64 if k in (3, 4, 5) else F32 for k in range(len(shapes))]
        firsts = [k % 3 == 0 for k in range(len(shapes))]
        host = [[u(*s, dtype=dt), u(*s, dtype=dt), np.full(s, np.nan, dt) if first else u(*s, dtype=dt)]
                for s, dt, first in zip(shapes, dts, firsts)]
        dev = [[be.asarray(a) for a in arrays] for arrays in host]
        for k in (2, 7):
            dev[k][1] = be.reshape(be.asarray(host[k][1].reshape(-1)), host[k][1].shape)
        cols = list(zip(*dev))
        f(list(cols[0]), list(cols[1]), list(cols[2]) if options["momentum"] else None, firsts, **options)
        for k, (arrays, first) in enumerate(zip(host, firsts)):
            p0 = arrays[0].astype(F64)
            _sgd_bits_ref(*arrays, first, **options)
            for j in (0, 2) if options["momentum"] else (0,):
                got = be.to_numpy(dev[k][j])
                assert got.dtype == arrays[j].dtype and got.tobytes() == arrays[j].tobytes(), \
                    f"parameter {k}, array {j} differs from the formula's bits"
            if not options["momentum"]:   # the buffers were not passed: untouched
                assert be.to_numpy(dev[k][2]).tobytes() == arrays[2].tobytes()
            # the semantic check, in float64: p moved by -lr times the update direction
            g = arrays[1].astype(F64) * (-1 if options["maximize"] else 1) + options["weight_decay"] * p0
            if options["momentum"]:
                g = g + options["momentum"] * arrays[2] if options["nesterov"] else arrays[2].astype(F64)
            np.testing.assert_allclose(arrays[0], p0 - options["lr"] * g, rtol=1e-5, atol=1e-6)
    return check


@custom("strided-broadcast-and-aliasing-in-order")
def foreach_sgd_unusual(be, f):
    # a transposed parameter, a broadcast gradient, and a gradient that is another parameter
    # (read as the earlier update left it)
    opts = dict(lr=0.1, momentum=0.9, dampening=0, weight_decay=0.01, nesterov=False, maximize=False)
    a, b, c = u(4, 3), u(3, 4), u(5)
    ga, gc = u(4, 3), u(1)
    ba, bb, bc = u(4, 3), u(3, 4), u(5)
    pa = be.transpose(be.asarray(np.ascontiguousarray(a.T)), (1, 0))
    dev, bufs = [pa, be.asarray(b), be.asarray(c)], [be.asarray(ba), be.asarray(bb), be.asarray(bc)]
    f(dev, [be.asarray(ga), be.transpose(pa, (1, 0)), be.broadcast_to(be.asarray(gc), (5,))], bufs,
      [False, True, False], **opts)
    _sgd_bits_ref(a, ga, ba, False, **opts)
    _sgd_bits_ref(b, np.ascontiguousarray(a.T), bb, True, **opts)
    _sgd_bits_ref(c, np.broadcast_to(gc, (5,)), bc, False, **opts)
    for got, want in zip(dev + bufs, (a, b, c, ba, bb, bc)):
        got = be.to_numpy(got)
        assert got.dtype == want.dtype and got.tobytes() == np.ascontiguousarray(want).tobytes()
    f([], [], [], [], **opts)   # nothing to do


def _lerp_bits(a, end, w):
    dt = a.dtype.type
    a[...] = a + (end - a) * dt(w) if abs(w) < 0.5 else end - (end - a) * dt(1 - w)


def _rmsprop_bits_ref(p, g, sq, ga, buf, lr, alpha, eps, weight_decay, momentum, centered, maximize):
    """foreach_rmsprop's documented formula on host arrays, in place, in the contract's order."""
    dt = p.dtype.type
    d = -g if maximize else g
    if weight_decay != 0:
        d = d + p * dt(weight_decay)
    sq[...] = sq * dt(alpha) + (d * dt(1 - alpha)) * d
    if centered:
        _lerp_bits(ga, d, 1 - alpha)
        avg = np.sqrt(sq - ga * ga) + dt(eps)
    else:
        avg = np.sqrt(sq) + dt(eps)
    if momentum > 0:
        buf[...] = buf * dt(momentum) + d / avg
        p[...] = p - buf * dt(lr)
    else:
        p[...] = p + (d * dt(-lr)) / avg


def _rmsprop_math_ref(p, g, sq, ga, buf, lr, alpha, eps, weight_decay, momentum, centered, maximize):
    """torch.optim.RMSprop's documented update in float64: (p, square_avg, grad_avg, buf)."""
    p, g, sq = (x.astype(F64) for x in (p, g, sq))
    g = (-g if maximize else g) + weight_decay * p
    sq = alpha * sq + (1 - alpha) * g * g
    ga = None if ga is None else alpha * ga.astype(F64) + (1 - alpha) * g
    avg = np.sqrt(sq - ga * ga if centered else sq) + eps
    buf = None if buf is None else momentum * buf.astype(F64) + g / avg
    return p - lr * (buf if momentum > 0 else g / avg), sq, ga, buf


def _adagrad_bits_ref(p, g, ss, t, lr, lr_decay, eps, weight_decay, maximize):
    dt = p.dtype.type
    d = -g if maximize else g
    if weight_decay != 0:
        d = d + p * dt(weight_decay)
    ss[...] = ss + d * d
    p[...] = p + (d * dt(-(lr / (1 + (t - 1) * lr_decay)))) / (np.sqrt(ss) + dt(eps))


def _adagrad_math_ref(p, g, ss, t, lr, lr_decay, eps, weight_decay, maximize):
    p, g, ss = (x.astype(F64) for x in (p, g, ss))
    g = (-g if maximize else g) + weight_decay * p
    ss = ss + g * g
    return p - lr / (1 + (t - 1) * lr_decay) * g / (np.sqrt(ss) + eps), ss


OPT_SHAPES = [(3, 4), (10,), (784, 256), (5,), (0, 3), (), (7, 9), (4099,), (1,), (2, 3), (301,)]


def _opt_host(states, seed_lo=-0.1, seed_hi=0.1):
    """Per parameter of OPT_SHAPES (float64 for 3 of them, float32 otherwise): [p, g, *states],
    each state a (lo, hi) uniform range or None (unused)."""
    host = []
    for k, s in enumerate(OPT_SHAPES):
        dt = F64 if k in (3, 4, 5) else F32
        host.append([u(*s, dtype=dt), u(*s, dtype=dt)] + [None if r is None else u(*s, dtype=dt, lo=r[0], hi=r[1])
                                                          for r in states])
    return host


def _opt_dev(be, host):
    dev = [[None if a is None else be.asarray(a) for a in arrays] for arrays in host]
    for k in (2, 7):   # gradients as reshaped views of flat arrays
        dev[k][1] = be.reshape(be.asarray(host[k][1].reshape(-1)), host[k][1].shape)
    return dev


def _opt_check(be, dev, host, math, k):
    for j, (got, want) in enumerate(zip(dev, host)):
        if j == 1 or want is None:
            continue
        got = be.to_numpy(got)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes(), f"parameter {k}, array {j} differs from the formula's bits"
    for got, want in zip(host[:1] + host[2:], math):
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=2e-5 if got.dtype == F32 else 1e-12, atol=1e-6)


RMSPROP_OPTIONS = [dict(lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False, maximize=False),
                   dict(lr=1e-2, alpha=0.9, eps=1e-6, weight_decay=0.1, momentum=0.9, centered=True, maximize=True),
                   dict(lr=1e-3, alpha=0.3, eps=1e-8, weight_decay=0, momentum=0, centered=True, maximize=False),
                   dict(lr=1e-3, alpha=0.99, eps=1e-8, weight_decay=0.01, momentum=0.5, centered=False, maximize=False)]


def rmsprop_case(options):
    @custom("formula-bits-" + "-".join(f"{k}{v}" for k, v in options.items()))
    def check(be, f):
        centered, mom = options["centered"], options["momentum"] > 0
        # grad_avg stays below sqrt(square_avg), so the centered square root is of a positive
        host = _opt_host([(0.5, 1.0), (-0.1, 0.1) if centered else None, (-1, 1) if mom else None])
        dev = _opt_dev(be, host)
        cols = list(zip(*dev))
        f(list(cols[0]), list(cols[1]), list(cols[2]), list(cols[3]) if centered else None,
          list(cols[4]) if mom else None, **options)
        for k, arrays in enumerate(host):
            math = _rmsprop_math_ref(*arrays, **options)
            _rmsprop_bits_ref(*arrays, **options)
            _opt_check(be, dev[k], arrays, math, k)
    return check


ADAGRAD_OPTIONS = [dict(lr=1e-2, lr_decay=0, eps=1e-10, weight_decay=0, maximize=False),
                   dict(lr=1e-1, lr_decay=0.01, eps=1e-8, weight_decay=0.1, maximize=True)]


def adagrad_case(options):
    @custom("formula-bits-" + "-".join(f"{k}{v}" for k, v in options.items()))
    def check(be, f):
        host = _opt_host([(0, 0.5)])
        host[1][2][3] = 0.0                 # a zero sum
        steps = [float(1 + k % 4) for k in range(len(host))]
        dev = _opt_dev(be, host)
        cols = list(zip(*dev))
        f(list(cols[0]), list(cols[1]), list(cols[2]), steps, **options)
        for k, (arrays, t) in enumerate(zip(host, steps)):
            math = _adagrad_math_ref(*arrays, t, **options)
            _adagrad_bits_ref(*arrays, t, **options)
            _opt_check(be, dev[k], arrays, math, k)
    return check


@custom("strided-broadcast-and-aliasing-in-order")
def foreach_rmsprop_adagrad_unusual(be, f):
    # run by foreach_rmsprop's and foreach_adagrad's rows: a transposed parameter, a broadcast
    # gradient, and a gradient that is another parameter (read as the earlier update left it)
    rms = f.__name__ == "foreach_rmsprop"
    opts = (dict(lr=0.01, alpha=0.9, eps=1e-8, weight_decay=0.01, momentum=0.5, centered=True, maximize=False) if rms
            else dict(lr=0.1, lr_decay=0.01, eps=1e-10, weight_decay=0.01, maximize=False))
    a, b, c = u(4, 3), u(3, 4), u(5)
    ga, gc = u(4, 3), u(1)
    states = [[u(*x.shape, lo=0.5, hi=1.0)] + ([u(*x.shape, lo=-0.1, hi=0.1), u(*x.shape)] if rms else [])
              for x in (a, b, c)]
    pa = be.transpose(be.asarray(np.ascontiguousarray(a.T)), (1, 0))
    dev = [pa, be.asarray(b), be.asarray(c)]
    dstates = [[be.asarray(x) for x in st] for st in states]
    grads = [be.asarray(ga), be.transpose(pa, (1, 0)), be.broadcast_to(be.asarray(gc), (5,))]
    cols = [list(col) for col in zip(*dstates)]
    if rms:
        f(dev, grads, cols[0], cols[1], cols[2], **opts)
    else:
        f(dev, grads, cols[0], [1.0, 2.0, 3.0], **opts)
    for x, g, st, t in ((a, ga, states[0], 1.0), (b, None, states[1], 2.0), (c, np.broadcast_to(gc, (5,)), states[2], 3.0)):
        g = np.ascontiguousarray(a.T) if g is None else g   # a, as its update left it
        if rms:
            _rmsprop_bits_ref(x, g, *st, **opts)
        else:
            _adagrad_bits_ref(x, g, st[0], t, **opts)
    for got, want in zip(dev + sum(dstates, []), [a, b, c] + sum(states, [])):
        got = be.to_numpy(got)
        assert got.dtype == want.dtype and got.tobytes() == np.ascontiguousarray(want).tobytes()


def matmul_bias_bits_case(dtype):
    @custom(f"bias-bits-of-product-then-add-{np.dtype(dtype).name}")
    def check(be, f):
        # the bias is added after the product is rounded, so every backend gives the bits of a
        # product followed by an add, fused or not; the bias here is a strided view (every
        # other element), which the backend reads where it is or copies
        a, b, c = u(33, 70, dtype=dtype), u(70, 41, dtype=dtype), u(82, dtype=dtype)
        ba, bb = be.asarray(a), be.transpose(be.asarray(np.ascontiguousarray(b.T)), (1, 0))
        bias = be.getitem(be.asarray(c), slice(None, None, 2))
        assert not be.is_contiguous(bias)
        got = be.to_numpy(f(ba, bb, bias))
        assert got.dtype == dtype
        assert got.tobytes() == (be.to_numpy(f(ba, bb)) + c[::2]).tobytes()
        np.testing.assert_allclose(got, a.astype(F64) @ b + c[::2], rtol=1e-5 if dtype == F32 else 1e-12,
                                   atol=1e-5 if dtype == F32 else 1e-12)
    return check


def layer_norm_ref(x, w, b, eps):
    """(y, mean, rstd) in float64: the biased variance over the last axis."""
    mean = x.mean(axis=1)
    rstd = 1 / np.sqrt(((x - mean[:, None]) ** 2).mean(axis=1) + eps)
    y = (x - mean[:, None]) * rstd[:, None]
    return y * (1 if w is None else w) + (0 if b is None else b), mean, rstd


def layer_norm_inputs():
    """(x, weight, bias): affine or not, a row longer than a block (5000), one column, a
    transposed (non-contiguous) x, values far from 0 (a one-pass variance would cancel)."""
    cases = []
    for dt, (m, n) in ((F32, (4, 7)), (F64, (3, 10)), (F32, (2, 5000)), (F64, (3, 1)), (F32, (300, 33))):
        cases.append((u(m, n, dtype=dt), u(n, dtype=dt), u(n, dtype=dt)))
    cases.append((u(5, 9, dtype=F64), None, None))
    cases.append((u(6, 4, dtype=F32), u(4, dtype=F32), None))
    cases.append((Transposed(u(6, 8, dtype=F64)), u(8, dtype=F64), u(8, dtype=F64)))
    cases.append((u(4, 64, dtype=F64, lo=9999.0, hi=10001.0), None, None))
    return cases


def _array_of(x):
    return x.array if isinstance(x, Transposed) else x


@custom("y-mean-rstd")
def layer_norm_case(be, f):
    for x, w, b in layer_norm_inputs():
        eps = 1e-5
        y, mean, rstd = f(*to_backend(be, (x, w, b)), eps)
        ref = layer_norm_ref(*(None if a is None else to_ref(_array_of(a)) for a in (x, w, b)), eps)
        dt = _array_of(x).dtype
        big = float(np.abs(to_ref(_array_of(x))).max())
        for k, (got, want) in enumerate(zip((y, mean, rstd), ref)):
            if k == 0 and big > 100:
                # far from 0, x - mean carries the input's rounding (of the reference too), which
                # scales y's error by rstd: a bound of a few units in the last place of x
                assert be.to_numpy(got).dtype == np.dtype(dt)
                slack = 8 * np.finfo(dt).eps * big * float(ref[2].max())
                np.testing.assert_allclose(be.to_numpy(got).astype(F64), want, rtol=0, atol=slack)
            else:
                check_array(be, got, want, dt)
    y, mean, rstd = f(be.asarray(np.zeros((0, 5), F32)), None, None, 1e-5)  # no rows: no launch
    check_array(be, y, np.zeros((0, 5)), F32)
    check_array(be, mean, np.zeros(0), F32)


def layer_norm_grad_ref(g, x, mean, rstd, w):
    xhat = (x - mean[:, None]) * rstd[:, None]
    gw = g * (1 if w is None else w)
    n = x.shape[1]
    return rstd[:, None] * (gw - gw.sum(1, keepdims=True) / n - xhat * (gw * xhat).sum(1, keepdims=True) / n)


def layer_norm_backward_rows():
    cases = []
    for x, w, _ in layer_norm_inputs():
        xa = _array_of(x)
        _, mean, rstd = layer_norm_ref(xa.astype(F64), None, None, 1e-5)
        g = u(*xa.shape, dtype=xa.dtype)
        cases.append(out(g, x, mean.astype(xa.dtype), rstd.astype(xa.dtype), w, ref=layer_norm_grad_ref,
                         dtype=xa.dtype, label=f"{describe((xa,))}-{'w' if w is not None else 'no-w'}"))
    return cases


def cross_entropy_backward_rows():
    cases = []
    for dt, x, target in cross_entropy_inputs():
        stats = np.asarray(cross_entropy_ref(x.astype(F64), target)[1], dt)
        cases.append(out(x, target, stats, np.asarray(0.25, dt), ref=cross_entropy_grad_ref))
        # a 'mean' loss's count, divided into the upstream gradient by the primitive
        cases.append(out(x, target, stats, np.asarray(0.25, dt), len(target),
                         ref=lambda x, t, s, g, n: cross_entropy_grad_ref(x, t, s, g / n),
                         label=f"divisor-{describe((x, target))}"))
    return cases


def setitem_ref(a, index, value):
    a = a.copy()
    a[index] = value
    return a


def getitem_ref(a, index):
    return a[index]


def clip_ref(a, lo, hi):
    if lo is not None:
        a = np.maximum(a, lo)
    return a if hi is None else np.minimum(a, hi)


def sigmoid_ref(a):
    return 0.5 * (1.0 + np.tanh(0.5 * a))  # never overflows, and is not how the backend does it


# ---- random primitives --------------------------------------------------------------------

def sample(be, f, *args):
    got = f(*args)
    assert isinstance(got, array_type(be)), f"returned a {type(got).__name__}, not the backend's array"
    return be.to_numpy(got)


def rand_case(shape, dtype):
    @custom(describe((shape, dtype)))
    def check(be, f):
        be.seed(0)
        x = sample(be, f, shape, dtype)
        assert x.dtype == np.dtype(dtype) and x.shape == shape
        assert ((x >= 0) & (x < 1)).all()
        if x.size >= 1000:
            assert abs(x.mean() - 0.5) < 0.05 and abs(x.std() - 12 ** -0.5) < 0.03
    return check


def randn_case(shape, dtype):
    @custom(describe((shape, dtype)))
    def check(be, f):
        be.seed(0)
        x = sample(be, f, shape, dtype)
        assert x.dtype == np.dtype(dtype) and x.shape == shape
        assert np.isfinite(x).all()
        if x.size >= 1000:
            assert abs(x.mean()) < 0.1 and abs(x.std() - 1) < 0.1
    return check


def randint_case(low, high, shape, dtype):
    @custom(describe((low, high, shape, dtype)))
    def check(be, f):
        be.seed(0)
        x = sample(be, f, low, high, shape, dtype)
        assert x.dtype == np.dtype(dtype) and x.shape == shape
        values = x.astype(F64)
        assert ((values >= low) & (values < high) & (values == np.round(values))).all()
        if x.size >= 1000:  # every value in a small range turns up
            assert set(np.unique(values)) == set(range(low, high))
    return check


def poisson_case(shape, dtype):
    @custom(describe((shape, dtype)))
    def check(be, f):
        rates = np.resize(np.array([0.0, 0.5, 3.0, 40.0, 1e4], dtype), shape)  # small and large rates
        be.seed(0)
        x = sample(be, f, be.asarray(rates))
        assert x.dtype == np.dtype(dtype) and x.shape == shape
        assert ((x >= 0) & (x == np.round(x))).all() and (x[rates == 0] == 0).all()
        if x.size >= 5000:  # each rate's sample mean within 5 standard errors
            for r in np.unique(rates)[1:]:
                got = x[rates == r].astype(F64)
                assert abs(got.mean() - r) < 5 * np.sqrt(r / got.size), (r, got.mean())
        be.seed(7)
        first = sample(be, f, be.asarray(rates)).copy()
        be.seed(7)
        np.testing.assert_array_equal(sample(be, f, be.asarray(rates)), first)
    return check


def seed_case(prim, *args):
    @custom(prim)
    def check(be, seed):
        draw = lambda: be.to_numpy(getattr(be, prim)(*args)).copy()  # noqa: E731
        seed(1234)
        first = draw()
        seed(1234)
        np.testing.assert_array_equal(draw(), first)
        seed(4321)
        assert not np.array_equal(draw(), first), "a different seed gave the same numbers"
    return check


def rng_state_case(prim, *args):
    """rng_state, then draws; after set_rng_state(that state) the same draws come again."""
    @custom(prim)
    def check(be, f):
        draw = lambda: be.to_numpy(getattr(be, prim)(*args)).copy()  # noqa: E731
        be.seed(99)
        be.rand((7,), F32)  # somewhere inside the stream, not at a seed
        state = be.rng_state()
        assert isinstance(state, bytes)
        first = draw()
        be.randn((3,), F64)
        be.set_rng_state(state)
        np.testing.assert_array_equal(draw(), first)
        be.set_rng_state(state)  # a state can be restored again
        np.testing.assert_array_equal(draw(), first)
        assert not np.array_equal(draw(), first), "the stream did not move on after the restored draws"
    return check


@custom("raises-not-a-state")
def set_rng_state_rejects(be, f):
    for bad in (b"", b"x" * 3, "text", None):
        with pytest.raises(ValueError):
            f(bad)


_RNG_STATE_CASES = [rng_state_case("rand", (50,), F32), rng_state_case("randn", (4, 5), F64),
                    rng_state_case("randint", 0, 1000, (50,), I64)]


# ---- bfloat16's bits (uint16) to and from float32 -------------------------------------------

def _bf16_expected(x):
    """float32 x rounded to bfloat16 bits, to nearest even, with Python's exact integers."""
    out = []
    for u in x.astype(F32).ravel().view(np.uint32).tolist():
        if (u & 0x7FFFFFFF) > 0x7F800000:
            out.append(0x7FC0)
            continue
        keep, rest = u >> 16, u & 0xFFFF
        out.append(keep + (rest > 0x8000 or (rest == 0x8000 and keep & 1)))
    return np.array(out, np.uint16).reshape(x.shape)


_BF16_EDGES = arr([0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 3.4e38, -3.39e38, 3.3895e38, 1e-40, -1e-45,
                   1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 1 + 2.0 ** -8 + 2.0 ** -20, 0.1], F32)
_BF16_RANDOM = (np.random.default_rng(5).standard_normal(1001) * 1e3).astype(F32)  # not a multiple of 4
_BF16_BITS = arr([0x3F80, 0xC020, 0x7F80, 0xFF80, 0x0001, 0x8000, 0x7FC0, 0x7F7F, 0x0000], np.uint16)
_BF16_VALUES = [1.0, -2.5, np.inf, -np.inf, 2.0 ** -133, -0.0, np.nan, (2 - 2.0 ** -7) * 2.0 ** 127, 0.0]
_BF16_CASES = {
    "bf16_to_f32": [out(_BF16_BITS, expect=arr(_BF16_VALUES, F32), dtype=F32),
                    out(_bf16_expected(_BF16_RANDOM), expect=(_bf16_expected(_BF16_RANDOM).astype(np.uint32) << 16)
                        .view(F32), dtype=F32, label="1001-elements"),
                    out(Transposed(_BF16_BITS[:8].reshape(2, 4)), expect=arr(_BF16_VALUES[:8], F32).reshape(2, 4),
                        dtype=F32, label="transposed"),
                    out(arr([], np.uint16), expect=np.zeros(0, F32), dtype=F32),
                    out(arr(0x4049, np.uint16), expect=np.array(3.140625, F32), dtype=F32, label="0-d")],
    "f32_to_bf16": [out(_BF16_EDGES, expect=_bf16_expected(_BF16_EDGES), dtype=np.uint16),
                    out(_BF16_RANDOM, expect=_bf16_expected(_BF16_RANDOM), dtype=np.uint16, label="1001-elements"),
                    out(Transposed(_BF16_EDGES[:12].reshape(3, 4)), expect=_bf16_expected(_BF16_EDGES[:12].reshape(3, 4)),
                        dtype=np.uint16, label="transposed"),
                    out(arr([], F32), expect=np.zeros(0, np.uint16), dtype=np.uint16),
                    out(arr(3.14159, F32), expect=np.array(0x4049, np.uint16), dtype=np.uint16, label="0-d")],
}


# ---- custom checks -----------------------------------------------------------------------

def empty_case(shape, dtype):
    @custom(describe((shape, dtype)))
    def check(be, f):
        x = sample(be, f, shape, dtype)  # values are unspecified
        assert x.dtype == np.dtype(dtype) and x.shape == shape
    return check


@custom("copies-numpy-input")
def asarray_copies(be, f):
    src = u(2, 3)
    want = src.astype(F64)
    a = f(src)
    src[...] = 7  # the tensor owns its memory: from_numpy, not asarray, shares
    check_array(be, a, want, F32)


def to_numpy_case(x):
    @custom(describe(x))
    def check(be, f):
        host = f(to_backend(be, x))
        assert isinstance(host, np.ndarray), f"to_numpy gave a {type(host).__name__}"
        want = to_ref(x)
        assert host.dtype == first_dtype([x]) and host.shape == want.shape
        np.testing.assert_array_equal(host.astype(want.dtype), want)
    return check


@custom("does-not-alias")
def copy_does_not_alias(be, f):
    a = be.asarray(arr([[1, 2], [3, 4]], F32))
    c = f(a)
    be.setitem(c, (Ellipsis,), be.full((), 99, F32))
    check_array(be, a, [[1, 2], [3, 4]], F32)


def sort_ref(x, axis, descending):
    """Sorted values and indices along axis by Python's sorted: NaN after every number (first
    when descending), ties by position in both directions."""
    x = np.asarray(x)
    if x.ndim == 0:
        return x.copy(), np.zeros((), I64)
    moved = np.moveaxis(x, axis, -1)
    lanes = moved.reshape(-1, moved.shape[-1]) if moved.size else np.zeros((0, moved.shape[-1]), x.dtype)
    sign = -1 if descending else 1
    idx = np.array([sorted(range(len(lane)), key=lambda i, lane=lane: (
        bool(lane[i] != lane[i]) != descending, 0 if lane[i] != lane[i] else sign * lane[i].item(), i))
        for lane in lanes], I64).reshape(moved.shape)
    idx = np.moveaxis(idx, -1, axis)
    return np.take_along_axis(x, idx, axis), idx


def sort_case(x, axis, descending, label=None):
    @custom(label or describe((x, axis, descending)))
    def check(be, f):
        vals, idx = f(to_backend(be, x), axis, descending)
        host = x.array if isinstance(x, Transposed) else x
        want_vals, want_idx = sort_ref(host, axis, descending)
        check_array(be, idx, want_idx, I64)
        assert be.to_numpy(vals).dtype == host.dtype
        np.testing.assert_array_equal(be.to_numpy(vals), want_vals)  # exact, NaN where NaN
    return check


def sort_rows():
    ties = lambda *s, dtype=F32: np.array(rng.integers(-2, 3, s), dtype=dtype)  # noqa: E731  equal keys on purpose
    special = arr([np.nan, 1.0, -np.inf, -0.0, np.nan, 0.0, np.inf, 1.0], F64)
    return [sort_case(u(3, 5), -1, False), sort_case(u(3, 5, dtype=F64), 0, True),
            sort_case(ties(4, 9), 1, False), sort_case(ties(4, 9), 1, True),
            sort_case(ints(3, 7, lo=-2, hi=3), 1, True), sort_case(ints(2, 5, lo=-2, hi=3, dtype=I32), 0, False),
            sort_case(mask(3, 6), 1, True), sort_case(mask(3, 6), 1, False),
            sort_case(special, 0, False, label="nan-inf-zeros"),
            sort_case(special, 0, True, label="nan-inf-zeros-desc"),
            sort_case(ties(2, 5, 3), 1, True, label="middle-axis"),
            sort_case(Transposed(ties(4, 5)), 1, False), sort_case(u(), 0, False),
            sort_case(u(0, 3), 0, False), sort_case(u(3, 0), 1, True), sort_case(u(1), 0, True),
            sort_case(ties(2, 5000), 1, False, label="long-rows-merge"),
            sort_case(ties(1, 4500, dtype=F64), -1, True, label="long-rows-merge-desc"),
            sort_case(ints(1, 9000, lo=-3, hi=4), 1, True, label="long-rows-merge-i64")]


def split_case(x, sections, axis, pieces):
    @custom(describe((x, sections, axis)))
    def check(be, f):
        got = f(be.asarray(x), sections, axis)
        assert len(got) == len(pieces)
        for g, index in zip(got, pieces):
            check_array(be, g, x.astype(F64)[index], x.dtype)
    return check


def contiguity_case(x, expected):
    @custom(describe(x))
    def check(be, f):
        assert bool(f(to_backend(be, x))) is expected
    return check


def data_ptr_case(dtype):
    """An int address: a view starting at the same element has the array's, one starting k
    elements later the array's plus k * itemsize, and a copy another."""
    @custom(np.dtype(dtype).name)
    def check(be, f):
        a = be.asarray(np.arange(12).astype(dtype).reshape(3, 4))
        ptr = f(a)
        assert isinstance(ptr, int) and ptr != 0
        assert f(be.transpose(a, (1, 0))) == ptr == f(be.getitem(a, (slice(None), slice(0, 2))))
        assert f(be.getitem(a, (1,))) == ptr + 4 * a.itemsize
        assert f(be.getitem(a, (slice(None), slice(3, None)))) == ptr + 3 * a.itemsize
        assert f(be.copy(a)) != ptr
    return check


def strides_case(dtype):
    """Element strides of an array and of its views: a transpose swaps them, a step multiplies
    one, a broadcast dim has 0."""
    @custom(np.dtype(dtype).name)
    def check(be, f):
        a = be.asarray(np.arange(24).astype(dtype).reshape(2, 3, 4))
        assert f(a) == (12, 4, 1)
        assert f(be.transpose(a, (2, 0, 1))) == (1, 12, 4)
        assert f(be.getitem(a, (slice(None), slice(None), slice(None, None, 2)))) == (12, 4, 2)
        assert f(be.getitem(a, (1,))) == (4, 1)
        assert f(be.broadcast_to(be.getitem(a, (0, 0)), (5, 4))) == (0, 1)
        assert all(isinstance(s, int) for s in f(a))
    return check


def _conv_positions(spatial, k, dil, pads, stride, out):
    """(kernel offset, window position, input position or None) of every window element."""
    import itertools
    for offs in itertools.product(*(range(n) for n in k)):
        for pos in itertools.product(*(range(n) for n in out)):
            at = tuple(p * s - lo + i * d for p, s, lo, i, d in zip(pos, stride, pads, offs, dil))
            yield offs, pos, (at if all(0 <= a < n for a, n in zip(at, spatial)) else None)


def im2col_ref(x, k, dil, pads, stride, out):
    n, c = x.shape[:2]
    res = np.zeros((n, c) + tuple(k) + tuple(out), x.dtype)
    for offs, pos, at in _conv_positions(x.shape[2:], k, dil, pads, stride, out):
        if at is not None:
            res[(slice(None), slice(None)) + offs + pos] = x[(slice(None), slice(None)) + at]
    return res.reshape(n, c * int(np.prod(k)), int(np.prod(out)))


def col2im_ref(cols, spatial, k, dil, pads, stride, out):
    n, c = cols.shape[0], cols.shape[1] // int(np.prod(k))
    res = np.zeros((n, c) + tuple(spatial), cols.dtype)
    cv = cols.reshape((n, c) + tuple(k) + tuple(out))
    for offs, pos, at in _conv_positions(spatial, k, dil, pads, stride, out):
        if at is not None:
            res[(slice(None), slice(None)) + at] += cv[(slice(None), slice(None)) + offs + pos]
    return res


def _conv_out(spatial, k, dil, pads, stride, extra=0):
    return tuple((n + 2 * lo - d * (kk - 1) - 1) // s + 1 + extra
                 for n, kk, d, lo, s in zip(spatial, k, dil, pads, stride))


def conv_cases(kind):
    """im2col / col2im: 2-d and 1-d, dilation, padding, strides, windows past the end (the zeros
    after the input), kernels larger than the stride (overlaps) and gaps (stride > kernel)."""
    geos = [((5, 6), (2, 3), (1, 2), (1, 0), (2, 1), 0), ((9,), (3,), (2,), (2,), (3,), 0),
            ((4, 4), (1, 1), (1, 1), (0, 0), (1, 1), 0), ((7, 5), (3, 2), (1, 1), (1, 1), (1, 2), 1),
            ((6, 7), (2, 2), (1, 1), (0, 1), (3, 4), 0), ((3, 4), (3, 3), (2, 1), (2, 1), (1, 1), 0)]
    cases = []
    for j, (sp, k, dil, pads, stride, extra) in enumerate(geos):
        o = _conv_out(sp, k, dil, pads, stride, extra)
        dt = (F32, F64, I64, I32, BOOL, F64)[j]
        nk, L = int(np.prod(k)), int(np.prod(o))
        if kind == "im2col":
            x = mask(2, 3, *sp) if dt is BOOL else ints(2, 3, *sp, dtype=dt) if dt in (I64, I32) else \
                u(2, 3, *sp, dtype=dt)
            cases.append(out(Transposed(x) if j == 3 else x, k, dil, pads, stride, o, ref=im2col_ref))
        else:
            cl = mask(2, 3 * nk, L) if dt is BOOL else ints(2, 3 * nk, L, dtype=dt) if dt in (I64, I32) else \
                u(2, 3 * nk, L, dtype=dt)
            cases.append(out(cl, sp, k, dil, pads, stride, o, ref=col2im_ref))
    # 3-d (conv.cu's vol2col / col2vol): overlaps, gaps, dilation, padding, windows past the end
    geos3 = [((4, 5, 6), (2, 3, 2), (1, 1, 2), (1, 0, 1), (1, 2, 3), 0, F32),
             ((5, 3, 4), (3, 1, 2), (2, 1, 1), (2, 0, 0), (2, 1, 1), 1, F64),
             ((3, 4, 3), (2, 2, 2), (1, 1, 1), (0, 1, 1), (3, 1, 2), 0, I64)]
    for sp, k, dil, pads, stride, extra, dt in geos3:
        o = _conv_out(sp, k, dil, pads, stride, extra)
        if kind == "im2col":
            x = ints(2, 3, *sp, dtype=dt) if dt is I64 else u(2, 3, *sp, dtype=dt)
            cases.append(out(x, k, dil, pads, stride, o, ref=im2col_ref, label="3d"))
        else:
            nk, L = int(np.prod(k)), int(np.prod(o))
            cl = ints(2, 3 * nk, L, dtype=dt) if dt is I64 else u(2, 3 * nk, L, dtype=dt)
            cases.append(out(cl, sp, k, dil, pads, stride, o, ref=col2im_ref, label="3d"))
    if kind == "im2col":
        cases.append(out(u(0, 2, 4, 4), (2, 2), (1, 1), (0, 0), (1, 1), (3, 3), ref=im2col_ref, label="empty"))
        cases.append(out(arr(np.arange(6.0).reshape(1, 1, 2, 3), F64), (2, 2), (1, 1), (0, 0), (1, 1), (1, 2),
                         expect=[[[0, 1], [1, 2], [3, 4], [4, 5]]], dtype=F64, label="windows-as-columns"))
    else:
        cases.append(out(u(0, 8, 9), (4, 4), (2, 2), (1, 1), (0, 0), (1, 1), (3, 3), ref=col2im_ref, label="empty"))
        cases.append(out(arr([[[1.0, 2.0], [10.0, 20.0]]], F64), (3,), (2,), (1,), (0,), (1,), (2,),
                         expect=[[[1.0, 12.0, 20.0]]], dtype=F64, label="overlaps-add"))
    return cases


def as_strided_case(dtype):
    """A view of the memory with the given element strides and offset (from the array's first
    element, maybe before it): overlapping windows, a step, a 0 stride, a view's offset, a write."""
    @custom(np.dtype(dtype).name)
    def check(be, f):
        host = np.arange(12).astype(dtype)
        a = be.asarray(host)
        got = f(a, (4, 3), (2, 1), 1)  # overlapping windows
        check_array(be, got, np.lib.stride_tricks.as_strided(host[1:], (4, 3), (2 * host.itemsize,
                                                                                  host.itemsize)).astype(F64), dtype)
        assert be.data_ptr(got) == be.data_ptr(a) + host.itemsize
        check_array(be, f(a, (2, 3), (1, 4), 0), host.reshape(3, 4).T[:2].astype(F64), dtype)
        check_array(be, f(a, (3, 2), (0, 5), 2), np.tile(host[[2, 7]], (3, 1)).astype(F64), dtype)
        view = be.getitem(be.reshape(a, (3, 4)), (slice(1, 3), slice(1, 3)))  # starts at element 5
        check_array(be, f(view, (3,), (2,), -5), host[0:6:2].astype(F64), dtype)
        check_array(be, f(view, (2, 2), (4, 1), 0), host.reshape(3, 4)[1:, 1:3].astype(F64), dtype)
        assert f(a, (0, 3), (1, 1), 0).shape == (0, 3)
        w = f(a, (2,), (3,), 3)
        be.copyto(w, be.zeros((), a.dtype))  # a view: the write reaches a
        expect = host.astype(F64)
        expect[[3, 6]] = 0
        check_array(be, a, expect, dtype)
    return check


def ascontiguous_case(x):
    @custom(describe(x))
    def check(be, f):
        got = f(to_backend(be, x))
        check_array(be, got, to_ref(x), first_dtype([x]))
        assert be.is_contiguous(got)
    return check


@custom("into-a-view")
def copyto_through_view(be, f):
    base = be.zeros((3, 4), F32)
    f(be.getitem(base, (slice(None), slice(1, 3))), be.asarray(arr([[1, 2], [3, 4], [5, 6]], F32)))
    check_array(be, base, [[0, 1, 2, 0], [0, 3, 4, 0], [0, 5, 6, 0]], F32)


# ---- the table: every primitive, several inputs each ------------------------------------

x23 = u(2, 3)
x234 = u(2, 3, 4, dtype=F64)
x34 = u(3, 4)
INPLACE_REF = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}

def orthofactor(kind, a, *params, label=None):
    """eigh / svd / qr on a (a host array, or Transposed): what does not depend on the free signs
    of eigen / singular vectors (values, reconstructions, orthonormality), and for qr LAPACK's
    signs exactly as NumPy's (both backends follow geqrf + orgqr). The input is left unchanged."""
    def check(be, f):
        arg = to_backend(be, a)
        got = f(arg, *params)
        assert np.array_equal(be.to_numpy(arg), a.array if isinstance(a, Transposed) else a)
        host = [None if g is None else be.to_numpy(g) for g in got]
        x = (a.array if isinstance(a, Transposed) else a).astype(np.float64)
        dt = (a.array if isinstance(a, Transposed) else a).dtype
        tol = (1e-4 if dt == F32 else 1e-10) * max(1.0, float(np.abs(x).max()) if x.size else 1.0)
        eye = lambda q: np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2)  # noqa: E731
        assert all(h is None or h.dtype == dt for h in host)
        if kind == "eigh":
            w, v = host
            tri = np.triu(x) if params[0] else np.tril(x)
            S = tri + np.swapaxes(tri, -1, -2) - x * eye(x)
            np.testing.assert_allclose(w, np.linalg.eigvalsh(S) if S.size else w, atol=tol)
            np.testing.assert_allclose(v @ (w[..., None] * np.swapaxes(v, -1, -2)), S, atol=tol * 10)
            np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, eye(v), atol=tol * 10)
        elif kind == "svd":
            U, S, Vh = host
            k = min(x.shape[-2:])
            ref = np.linalg.svd(x, compute_uv=False) if x.size else np.zeros(x.shape[:-2] + (k,))
            np.testing.assert_allclose(S, ref, atol=tol)
            if params[1]:
                np.testing.assert_allclose((U[..., :k] * S[..., None, :]) @ Vh[..., :k, :], x, atol=tol * 10)
                for q in (U, np.swapaxes(Vh, -1, -2)):
                    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, eye(q), atol=tol * 10)
            else:
                assert U is None and Vh is None
        else:
            Q, R = host
            from minigrad.backends import numpy_backend
            q, r = numpy_backend.qr(x, params[0])
            np.testing.assert_allclose(R, r, atol=tol * 10)
            assert (Q is None) == (q is None)
            if Q is not None:
                np.testing.assert_allclose(Q, q, atol=tol * 10)
    return label or f"{kind}-{describe((a,) + params)}", check


def _sym(*shape, dtype=F64):
    x = rng.standard_normal(shape)
    return (x + np.swapaxes(x, -1, -2)).astype(dtype)


# ---- torch.special and the integer bit math (numpy_special.py, elementwise.cu's SPECIAL_KERNELS
# and BIT_KERNELS). References: Python's math where it has the function, else mpmath at 30 digits
# (test_special.py compares both backends with torch itself, special values included).

def _mp(fn):
    """fn(*float args) in mpmath, elementwise, as float64 (None when mpmath is not installed)."""
    try:
        import mpmath
    except ImportError:
        return None

    def ref(*args):
        with mpmath.workdps(30):
            return np.vectorize(lambda *v: float(fn(mpmath, *v)), otypes=[np.float64])(*args)
    return ref


def _special_rows(ref, lo, hi, special=()):
    rows = unary_rows(ref, lo=lo, hi=hi, special=special) if ref else []
    return rows + [out(Transposed(u(3, 2, lo=lo, hi=hi)), ref=ref)] if ref else rows


def _frexp_case():
    def check(be, f):
        m, e = f(*to_backend(be, (arr([0.0, 3.0, -0.375, 1e-30, np.inf], F64),)))
        check_array(be, m, [0.0, 0.75, -0.75, np.frexp(1e-30)[0], np.inf], F64)
        check_array(be, e, [0, 2, -1, np.frexp(1e-30)[1], 0], np.int32)
        m, e = f(*to_backend(be, (Transposed(arr([[1.0, 5.0, 0.1], [7.0, -2.0, 64.0]], F32)),)))
        want = np.frexp(arr([[1.0, 5.0, 0.1], [7.0, -2.0, 64.0]], F32))
        check_array(be, m, want[0], F32)
        check_array(be, e, want[1], np.int32)
    return "frexp-values-and-strided", check


def _bit_rows(ref, shifts=False):
    hi = 70 if shifts else 50
    rows = [out(ints(2, 3, lo=-50, hi=50), ints(2, 3, lo=-3 if shifts else -50, hi=hi), ref=ref),
            out(ints(3, 1, lo=-50, hi=50, dtype=np.int32), ints(1, 4, lo=0, hi=20, dtype=np.int32), ref=ref),
            out(ints(2, 3, lo=-50, hi=50), 3, ref=ref),
            out(5, ints(2, 3, lo=0, hi=10), ref=ref),
            out(Transposed(ints(2, 3, lo=-50, hi=50)), ints(2, 3, lo=0, hi=9), ref=ref),
            out(ints(0, 3), ints(0, 3), ref=ref)]
    return rows


def _int_ref(fn):
    return lambda a, b: fn(np.asarray(a).astype(np.int64), np.asarray(b).astype(np.int64))


def _shift_ref(left):
    def ref(a, b):
        a, b = np.broadcast_arrays(np.asarray(a).astype(np.int64), np.asarray(b).astype(np.int64))
        out = [(int(x) << int(s) if left else int(x) >> int(s)) if 0 <= s < 64 else (-1 if (x < 0 and not left) else 0)
               for x, s in zip(a.ravel(), b.ravel())]
        return np.array([((v + 2 ** 63) % 2 ** 64) - 2 ** 63 for v in out], dtype=np.int64).reshape(a.shape)
    return ref


def _gcd_ref(a, b):
    return np.gcd(np.asarray(a).astype(np.int64), np.asarray(b).astype(np.int64))


def _lcm_ref(a, b):
    return np.lcm(np.asarray(a).astype(np.int64), np.asarray(b).astype(np.int64))


SPECIAL_TABLE = {
    "lgamma": _special_rows(np.vectorize(math.lgamma, otypes=[np.float64]), 0.1, 20,
                            special=[([0.0, -1.0, np.inf, -2.5], F64, [np.inf, np.inf, np.inf, math.lgamma(-2.5)])]),
    "digamma": _special_rows(_mp(lambda m, x: m.digamma(x)), -4.5, 20,
                             special=[([0.0, -0.0, -1.0, np.nan], F64, [-np.inf, np.inf, np.nan, np.nan])]),
    "polygamma": ([out(u(2, 3, lo=0.2, hi=9), n, ref=_mp(lambda m, x, n=n: m.polygamma(n, x))) for n in (1, 2, 5)]
                  + [out(u(4, dtype=F64, lo=0.2, hi=9), 0, ref=_mp(lambda m, x, n: m.digamma(x))),
                     out(u(0, 3), 3, ref=_mp(lambda m, x, n: m.polygamma(3, x)))]) if _mp(None) else [],
    "erfc": _special_rows(np.vectorize(math.erfc, otypes=[np.float64]), -6, 6),
    "erfinv": _special_rows(_mp(lambda m, x: m.erfinv(x)), -0.99, 0.99,
                            special=[([1.0, -1.0, 2.0, 0.0], F64, [np.inf, -np.inf, np.nan, 0.0])]),
    "i0": _special_rows(_mp(lambda m, x: m.besseli(0, x)), -20, 20),
    "i0e": _special_rows(_mp(lambda m, x: m.besseli(0, x) * m.exp(-abs(x))), -40, 40),
    "i1": _special_rows(_mp(lambda m, x: m.besseli(1, x)), -20, 20),
    "i1e": _special_rows(_mp(lambda m, x: m.besseli(1, x) * m.exp(-abs(x))), -40, 40),
    "ndtri": _special_rows(_mp(lambda m, p: m.sqrt(2) * m.erfinv(2 * m.mpf(p) - 1)), 0.001, 0.999,
                           special=[([0.0, 1.0, 1.5], F64, [-np.inf, np.inf, np.nan])]),
    "log_ndtr": _special_rows(_mp(lambda m, x: m.log(m.ncdf(x))), -30, 5),
    "erfcx": _special_rows(_mp(lambda m, x: m.exp(m.mpf(x) ** 2) * m.erfc(x)), -3, 40),
    "entr": _special_rows(lambda x: -x * np.log(x), 0.01, 5,
                          special=[([0.0, -1.0, np.nan], F64, [0.0, -np.inf, np.nan])]),
    "zeta": ([out(u(2, 3, lo=1.5, hi=8), u(2, 3, lo=0.2, hi=9), ref=_mp(lambda m, x, q: m.zeta(x, q))),
              out(u(3, dtype=F64, lo=1.5, hi=8), 2.5, ref=_mp(lambda m, x, q: m.zeta(x, q))),
              out(3.0, u(2, 2, dtype=F64, lo=0.2, hi=9), ref=_mp(lambda m, x, q: m.zeta(x, q))),
              out(arr([1.0, 0.5, 2.0], F64), arr([1.0, 1.0, -2.0], F64), expect=[np.inf, np.nan, np.inf],
                  dtype=F64, label="poles")]) if _mp(None) else [],
    "igamma": ([out(u(2, 3, lo=0.1, hi=30), u(2, 3, lo=0.1, hi=30),
                    ref=_mp(lambda m, a, x: m.gammainc(a, 0, x, regularized=True))),
                out(u(3, 1, dtype=F64, lo=0.1, hi=9), u(1, 4, dtype=F64, lo=0.1, hi=9),
                    ref=_mp(lambda m, a, x: m.gammainc(a, 0, x, regularized=True))),
                out(arr([0.0, 1.0, np.inf, 1.0], F64), arr([1.0, 0.0, 1.0, np.inf], F64), expect=[1.0, 0.0, 0.0, 1.0],
                    dtype=F64, label="bounds")]) if _mp(None) else [],
    "igammac": ([out(u(2, 3, lo=0.1, hi=30), u(2, 3, lo=0.1, hi=30),
                     ref=_mp(lambda m, a, x: m.gammainc(a, x, m.inf, regularized=True))),
                 out(u(4, dtype=F64, lo=0.1, hi=9), 2.0,
                     ref=_mp(lambda m, a, x: m.gammainc(a, x, m.inf, regularized=True))),
                 out(arr([0.0, 1.0, -1.0], F64), arr([1.0, 0.0, 1.0], F64), expect=[0.0, 1.0, np.nan],
                     dtype=F64, label="bounds")]) if _mp(None) else [],
    "xlog1py": arith_rows(lambda a, b: a * np.log1p(b), with_ints=False, pos_second=True)
    + [out(arr([0.0, 0.0, 2.0], F64), arr([-1.0, np.nan, -1.0], F64), expect=[0.0, np.nan, -np.inf], dtype=F64,
           label="zeros-and-nan")],
    "nextafter": [out(arr([0.0, 1.0, 1.0, -np.inf], F64), arr([1.0, 2.0, 0.0, 0.0], F64),
                      expect=np.nextafter(arr([0.0, 1.0, 1.0, -np.inf], F64), arr([1.0, 2.0, 0.0, 0.0], F64)),
                      dtype=F64, label="f64"),
                  out(arr([1.0, 0.0], F32), 2.0, expect=np.nextafter(arr([1.0, 0.0], F32), np.float32(2)), dtype=F32,
                      label="f32-scalar")],
    "frexp": [_frexp_case()],
    "bitwise_and": _bit_rows(_int_ref(np.bitwise_and)) + [out(mask(2, 3), mask(2, 3), ref=np.logical_and,
                                                               dtype=np.bool_)],
    "bitwise_or": _bit_rows(_int_ref(np.bitwise_or)) + [out(mask(2, 3), True, ref=np.logical_or, dtype=np.bool_)],
    "bitwise_xor": _bit_rows(_int_ref(np.bitwise_xor)) + [out(Transposed(mask(2, 3)), mask(2, 3),
                                                               ref=np.logical_xor, dtype=np.bool_)],
    "bitwise_not": [out(ints(2, 3, lo=-50, hi=50), ref=lambda a: ~np.asarray(a).astype(np.int64)),
                    out(ints(4, dtype=np.int32), ref=lambda a: ~np.asarray(a).astype(np.int64)),
                    out(Transposed(mask(3, 2)), ref=np.logical_not, dtype=np.bool_)],
    "bitwise_left_shift": _bit_rows(_shift_ref(True), shifts=True),
    "bitwise_right_shift": _bit_rows(_shift_ref(False), shifts=True),
    "gcd": _bit_rows(_gcd_ref),
    "lcm": _bit_rows(_lcm_ref),
}


# ---- more of torch.special: Bessel/Airy functions and the orthogonal polynomials (numpy_special.py,
# elementwise.cu's SPECIAL_MORE_KERNELS). torch's J/Y (and Ai below -2.09) approximations are good to
# about 1e-7 absolute only, so those are checked in float32; test_special_more.py compares with torch.

def _bessel_rows(ref, lo, hi, f64=True, special=()):
    if ref is None:
        return []
    rows = [out(u(2, 3, lo=lo, hi=hi), ref=ref), out(Transposed(u(3, 2, lo=lo, hi=hi)), ref=ref),
            out(u(lo=lo, hi=hi), ref=ref), out(u(0, 3, lo=lo, hi=hi), ref=ref)]
    if f64:
        rows.append(out(u(5, dtype=F64, lo=lo, hi=hi), ref=ref))
    return rows + [out(arr(values, dt), expect=want, label=f"{_SHORT[np.dtype(dt).name]}{values}")
                   for values, dt, want in special]


def _poly_ref(fn):
    """fn(mpmath, n, x) at integer degrees n (given as floats), elementwise."""
    return _mp(lambda m, x, n: fn(m, int(n), x)) if _mp(None) else None


def _poly_rows(fn, lo=-1.0, hi=1.0, special=()):
    ref = _poly_ref(fn)
    if ref is None:
        return []
    degrees = arr([[0.0, 1.0, 2.0, 3.0, 5.0, 9.0]], F64)
    return [out(u(4, 1, dtype=F64, lo=lo, hi=hi), degrees, ref=ref),
            out(u(2, 3, lo=lo, hi=hi), arr([[2.0, 4.0, 7.0]], F32), ref=ref),
            out(Transposed(u(3, 2, dtype=F64, lo=lo, hi=hi)), 4.0, ref=ref),
            out(0.3, arr([0.0, 3.0, 10.0], F64), ref=ref),
            out(u(0, 3, lo=lo, hi=hi), u(0, 3), ref=ref)] + [
        out(arr(x, dt), arr(n, dt), expect=want, label=f"{_SHORT[np.dtype(dt).name]}{x}-{n}")
        for x, n, dt, want in special]


def _cheb_v(m, n, x):   # V_n = U_n - U_(n-1), W_n = U_n + U_(n-1)
    return m.chebyu(n, x) - (m.chebyu(n - 1, x) if n else 0)


def _cheb_w(m, n, x):
    return m.chebyu(n, x) + (m.chebyu(n - 1, x) if n else 0)


def _hermite_e(m, n, x):   # He_n(x) = 2^(-n/2) H_n(x / sqrt 2)
    return m.hermite(n, x / m.sqrt(2)) * m.mpf(2) ** (-m.mpf(n) / 2)


def _shifted(fn):
    return lambda m, n, x: fn(m, n, 2 * m.mpf(x) - 1)


_NEG_N = [([0.5, 0.5, 0.5], [-1.0, np.nan, np.inf], F64, [0.0, 0.0, 0.0])]
SPECIAL_MORE_TABLE = {
    "bessel_j0": _bessel_rows(_mp(lambda m, x: m.besselj(0, x)), -30, 30, False,
                              [([0.0, -np.inf, np.nan], F64, [1.0, np.nan, np.nan])]),
    "bessel_j1": _bessel_rows(_mp(lambda m, x: m.besselj(1, x)), -30, 30, False,
                              [([0.0, np.inf, np.nan], F32, [0.0, np.nan, np.nan])]),
    "bessel_y0": _bessel_rows(_mp(lambda m, x: m.bessely(0, x)), 0.1, 30, False,
                              [([0.0, -1.0, np.nan], F64, [-np.inf, np.nan, np.nan])]),
    "bessel_y1": _bessel_rows(_mp(lambda m, x: m.bessely(1, x)), 0.1, 30, False,
                              [([0.0, -1.0, np.nan], F32, [-np.inf, np.nan, np.nan])]),
    "modified_bessel_i0": _bessel_rows(_mp(lambda m, x: m.besseli(0, x)), -30, 30,
                                       special=[([0.0, np.inf, np.nan], F64, [1.0, np.nan, np.nan])]),
    "modified_bessel_i1": _bessel_rows(_mp(lambda m, x: m.besseli(1, x)), -30, 30,
                                       special=[([0.0, -np.inf, np.nan], F32, [0.0, np.nan, np.nan])]),
    "modified_bessel_k0": _bessel_rows(_mp(lambda m, x: m.besselk(0, x)), 0.05, 30,
                                       special=[([0.0, -1.0, np.inf], F64, [np.inf, np.nan, 0.0])]),
    "modified_bessel_k1": _bessel_rows(_mp(lambda m, x: m.besselk(1, x)), 0.05, 30,
                                       special=[([0.0, -1.0, np.inf], F32, [np.inf, np.nan, 0.0])]),
    "scaled_modified_bessel_k0": _bessel_rows(_mp(lambda m, x: m.besselk(0, x) * m.exp(x)), 0.05, 30,
                                              special=[([0.0, -1.0, np.inf], F64, [np.inf, np.nan, 0.0])]),
    "scaled_modified_bessel_k1": _bessel_rows(_mp(lambda m, x: m.besselk(1, x) * m.exp(x)), 0.05, 30,
                                              special=[([0.0, -1.0, np.inf], F32, [np.inf, np.nan, 0.0])]),
    "spherical_bessel_j0": _bessel_rows(_mp(lambda m, x: m.sinc(x)), -30, 30,
                                        special=[([0.0, np.inf, -np.inf, np.nan], F64, [1.0, 0.0, 0.0, np.nan])]),
    "airy_ai": _bessel_rows(_mp(lambda m, x: m.airyai(x)), -2, 8,
                            special=[([np.inf, -np.inf, 200.0, np.nan], F64, [np.nan, np.nan, 0.0, np.nan])]),
    "chebyshev_polynomial_t": _poly_rows(lambda m, n, x: m.chebyt(n, x), special=_NEG_N),
    "chebyshev_polynomial_u": _poly_rows(lambda m, n, x: m.chebyu(n, x), special=_NEG_N),
    "chebyshev_polynomial_v": _poly_rows(_cheb_v, special=_NEG_N),
    "chebyshev_polynomial_w": _poly_rows(_cheb_w, special=_NEG_N),
    "shifted_chebyshev_polynomial_t": _poly_rows(_shifted(lambda m, n, x: m.chebyt(n, x)), 0, 1),
    "shifted_chebyshev_polynomial_u": _poly_rows(_shifted(lambda m, n, x: m.chebyu(n, x)), 0, 1),
    "shifted_chebyshev_polynomial_v": _poly_rows(_shifted(_cheb_v), 0, 1),
    "shifted_chebyshev_polynomial_w": _poly_rows(_shifted(_cheb_w), 0, 1),
    "hermite_polynomial_h": _poly_rows(lambda m, n, x: m.hermite(n, x), -3, 3,
                                       special=[([0.5], [600.0], F64, [np.nan])]),
    "hermite_polynomial_he": _poly_rows(_hermite_e, -3, 3, special=[([0.5], [200.0], F32, [np.nan])]),
    "laguerre_polynomial_l": _poly_rows(lambda m, n, x: m.laguerre(n, 0, x), -2, 5, special=_NEG_N),
    "legendre_polynomial_p": _poly_rows(lambda m, n, x: m.legendre(n, x), special=_NEG_N),
}


TABLE = {
    # creation and transfer
    "asarray": [
        out([[1, 2], [3, 4]], expect=[[1, 2], [3, 4]], dtype=I64, label="int-list"),
        out([0.5, -1.25], F32, expect=[0.5, -1.25], dtype=F32, label="float-list-as-f32"),
        out(2.5, expect=np.array(2.5), dtype=F64, label="python-float"),
        out([True, False], expect=[True, False], dtype=BOOL, label="bool-list"),
        out(x23, ref=lambda a: a),
        out(ints(3), ref=lambda a: a),
        out(u(dtype=F64), ref=lambda a: a),
        out(x234.transpose(2, 0, 1), ref=lambda a: a, label="non-contiguous-numpy"),
        asarray_copies,
    ],
    "to_numpy": [to_numpy_case(x) for x in
                 (u(), u(2, 3, dtype=F64), Transposed(u(3, 2)), ints(4), mask(2, 2), u(0, 2))],
    "empty": [empty_case(s, d) for s, d in (((2, 3), F32), ((), F64), ((0, 4), I64), ((3,), BOOL))],
    "zeros": [out(s, d, expect=np.zeros(s), dtype=d)
              for s, d in (((2, 3), F32), ((), F64), ((0, 4), I64), ((3,), BOOL))],
    "ones": [out(s, d, expect=np.ones(s), dtype=d)
             for s, d in (((2, 3), F32), ((), F64), ((4,), I64), ((3,), BOOL))],
    "full": [out((2, 3), 1.5, F32, expect=np.full((2, 3), 1.5), dtype=F32),
             out((), 7, I64, expect=np.array(7), dtype=I64),
             out((2,), True, BOOL, expect=[True, True], dtype=BOOL),
             out((3,), float("nan"), F64, expect=[np.nan] * 3, dtype=F64),
             out((2, 2), -2, F32, expect=np.full((2, 2), -2.0), dtype=F32)],
    "arange": [out(0, 5, 1, I64, expect=[0, 1, 2, 3, 4], dtype=I64),
               out(0.5, 2.0, 0.25, F32, expect=[0.5, 0.75, 1.0, 1.25, 1.5, 1.75], dtype=F32),
               out(5, 0, -2, I64, expect=[5, 3, 1], dtype=I64),
               out(0, 0, 1, F32, expect=np.zeros(0), dtype=F32),
               out(1, 2.5, 0.5, F64, expect=[1.0, 1.5, 2.0], dtype=F64)],
    "linspace": [out(0, 1, 5, F32, expect=[0, 0.25, 0.5, 0.75, 1], dtype=F32),
                 out(-1, 1, 1, F64, expect=[-1.0], dtype=F64),
                 out(0, 1, 0, F32, expect=np.zeros(0), dtype=F32),
                 out(2, 10, 5, F64, expect=[2, 4, 6, 8, 10], dtype=F64),
                 out(0, 10, 4, I64, expect=[0, 3, 6, 10], dtype=I64)],
    "eye": [out(3, 3, F32, expect=[[1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=F32),
            out(2, 4, I64, expect=[[1, 0, 0, 0], [0, 1, 0, 0]], dtype=I64),
            out(3, 1, BOOL, expect=[[True], [False], [False]], dtype=BOOL),
            out(0, 0, F64, expect=np.zeros((0, 0)), dtype=F64)],
    "rand": [rand_case(s, d) for s, d in (((2, 3), F32), ((), F64), ((0,), F32), ((100, 20), F32),
                                          ((5000,), F64))],
    "randn": [randn_case(s, d) for s, d in (((2, 3), F32), ((), F64), ((0, 2), F64), ((100, 50), F32),
                                            ((5000,), F64))],
    "randint": [randint_case(*a) for a in ((-3, 4, (1000,), I64), (0, 10, (50, 20), I32),
                                           (5, 6, (), I64), (0, 2, (1000,), BOOL),
                                           (0, 5, (1000,), F32), (0, 3, (0,), I64))],
    "seed": [seed_case("rand", (50,), F32), seed_case("randn", (4, 5), F64),
             seed_case("randint", 0, 1000, (50,), I64)],
    "rng_state": _RNG_STATE_CASES,
    "set_rng_state": _RNG_STATE_CASES + [set_rng_state_rejects],
    **_BF16_CASES,
    "poisson": [poisson_case(s, d) for s, d in (((2, 3), F32), ((), F64), ((0,), F32), ((5000,), F64),
                                                ((100, 60), F32))],
    "astype": [out(x23, F64, ref=lambda a, d: a, dtype=F64),
               out(x234, F32, ref=lambda a, d: a, dtype=F32),
               out(arr([-1.7, 0.2, 2.9, -0.5], F64), I64, expect=[-1, 0, 2, 0], dtype=I64, label="truncates"),
               out(arr([0, 3, -1], I64), BOOL, expect=[False, True, True], dtype=BOOL),
               out(arr([True, False], BOOL), F32, expect=[1.0, 0.0], dtype=F32),
               out(u(lo=1, hi=2), I64, expect=np.array(1), dtype=I64),
               out(arr([1, 2], I32), "int64", expect=[1, 2], dtype=I64, label="dtype-as-string"),
               out(Transposed(u(2, 3)), F64, ref=lambda a, d: a, dtype=F64)],
    "copy": [out(x23, ref=lambda a: a), out(u(dtype=F64), ref=lambda a: a),
             out(ints(2, 2), ref=lambda a: a), out(Transposed(u(3, 4)), ref=lambda a: a),
             copy_does_not_alias],

    # elementwise, unary
    "neg": unary_rows(np.negative, with_ints=True),
    "abs": unary_rows(np.abs, with_ints=True, special=[([-0.0, -1.5, 2.0], F32, [0.0, 1.5, 2.0])]),
    "exp": unary_rows(np.exp, special=[([-np.inf, 0.0, 1.0], F64, [0.0, 1.0, np.e])]),
    "log": unary_rows(np.log, lo=0.05, hi=5.0,
                      special=[([0.0, 1.0, np.e, -1.0], F64, [-np.inf, 0.0, 1.0, np.nan])]),
    "log1p": unary_rows(np.log1p, lo=-0.9, hi=5.0,
                        special=[([-1.0, 0.0, -0.0, 1e-10], F64, [-np.inf, 0.0, -0.0, 1e-10])]),
    "expm1": unary_rows(np.expm1, special=[([0.0, 1e-10, -np.inf, np.inf], F32, [0.0, 1e-10, -1.0, np.inf])]),
    "erf": unary_rows(erf_ref, special=[([0.0, -0.0, np.inf, -np.inf, 1.0], F64,
                                         [0.0, -0.0, 1.0, -1.0, 0.8427007929497149])]),
    "sqrt": unary_rows(np.sqrt, lo=0.0, hi=5.0, special=[([0.0, 4.0, 2.25], F32, [0.0, 2.0, 1.5])]),
    "sin": unary_rows(np.sin, lo=-6.0, hi=6.0),
    "cos": unary_rows(np.cos, lo=-6.0, hi=6.0),
    "tanh": unary_rows(np.tanh, special=[([-50.0, 0.0, 50.0], F32, [-1.0, 0.0, 1.0])]),
    "sigmoid": unary_rows(sigmoid_ref, lo=-8.0, hi=8.0)
    + [out(arr([-1000.0, -100.0, 0.0, 100.0, 1000.0], d), ref=sigmoid_ref) for d in (F32, F64)],
    "relu": unary_rows(lambda a: np.maximum(a, 0), with_ints=True),
    "sign": unary_rows(np.sign, with_ints=True, special=[([-2.0, 0.0, 3.0], F32, [-1.0, 0.0, 1.0])]),
    "floor": unary_rows(np.floor, special=[([-1.5, -0.0, 2.0, np.inf, np.nan], F32, [-2.0, -0.0, 2.0, np.inf, np.nan])]),
    "ceil": unary_rows(np.ceil, special=[([-1.5, -0.5, 2.0, -np.inf], F64, [-1.0, -0.0, 2.0, -np.inf])]),
    "trunc": unary_rows(np.trunc, special=[([-1.7, 1.7, -0.2], F32, [-1.0, 1.0, -0.0])]),
    "round": unary_rows(np.rint, special=[([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6], F32,
                                           [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 3.0])]),  # half to even
    # the rest of torch's float math (elementwise.cu's MATH_MORE_KERNELS)
    "tan": unary_rows(np.tan, lo=-1.4, hi=1.4, special=[([0.0, -0.0, np.inf], F32, [0.0, -0.0, np.nan])]),
    "asin": unary_rows(np.arcsin, lo=-0.99, hi=0.99,
                       special=[([1.0, -1.0, 2.0], F64, [np.pi / 2, -np.pi / 2, np.nan])]),
    "acos": unary_rows(np.arccos, lo=-0.99, hi=0.99, special=[([1.0, -1.0, -1.5], F32, [0.0, np.pi, np.nan])]),
    "atan": unary_rows(np.arctan, lo=-5.0, hi=5.0,
                       special=[([np.inf, -np.inf, -0.0], F64, [np.pi / 2, -np.pi / 2, -0.0])]),
    "sinh": unary_rows(np.sinh, special=[([-np.inf, 0.0, 1000.0], F32, [-np.inf, 0.0, np.inf])]),
    "cosh": unary_rows(np.cosh, special=[([-np.inf, 0.0, -1000.0], F64, [np.inf, 1.0, np.inf])]),
    "asinh": unary_rows(np.arcsinh, lo=-5.0, hi=5.0, special=[([-np.inf, -0.0, np.nan], F32, [-np.inf, -0.0, np.nan])]),
    "acosh": unary_rows(np.arccosh, lo=1.0, hi=6.0, special=[([1.0, np.inf, 0.5], F64, [0.0, np.inf, np.nan])]),
    "atanh": unary_rows(np.arctanh, lo=-0.99, hi=0.99, special=[([1.0, -1.0, 1.5], F32, [np.inf, -np.inf, np.nan])]),
    "log2": unary_rows(np.log2, lo=0.05, hi=5.0, special=[([0.0, 8.0, -1.0], F64, [-np.inf, 3.0, np.nan])]),
    "log10": unary_rows(np.log10, lo=0.05, hi=5.0, special=[([0.0, 1000.0, -1.0], F32, [-np.inf, 3.0, np.nan])]),
    "exp2": unary_rows(np.exp2, special=[([-np.inf, 10.0, 0.5], F64, [0.0, 1024.0, np.sqrt(2.0)])]),
    "rsqrt": unary_rows(lambda a: 1 / np.sqrt(a), lo=0.05, hi=5.0,
                        special=[([0.0, -0.0, 4.0, -1.0, np.inf], F32, [np.inf, -np.inf, 0.5, np.nan, 0.0])]),

    # elementwise, binary
    "add": arith_rows(np.add),
    "sub": arith_rows(np.subtract),
    "mul": arith_rows(np.multiply)
    + [out(u(2, 3), mask(2, 3), ref=np.multiply, label="f32*bool-stays-f32"),  # relu's backward
       out(u(2, 3, dtype=F64), 0.0, ref=np.multiply)],
    "div": arith_rows(np.divide, with_ints=False, pos_second=True)
    + [out(arr([1.0, -1.0, 0.0], F32), 0.0, expect=[np.inf, -np.inf, np.nan], dtype=F32, label="by-zero"),
       out(u(2, 3), 7, ref=np.divide)],
    "floor_divide": division_rows("floor_divide"),
    "trunc_divide": division_rows("trunc_divide"),
    "remainder": division_rows("remainder"),
    "fmod": division_rows("fmod"),
    "pow": [out(u(2, 3, lo=0.1), 2, ref=np.power),
            out(u(4, dtype=F64, lo=0.1), 0.5, ref=np.power),
            out(u(3, 1, dtype=F64, lo=0.1), u(1, 4, dtype=F64), ref=np.power),
            out(u(lo=0.1), u(), ref=np.power),
            out(u(2, 3, lo=0.1), 1.5, ref=np.power),
            out(u(3), 0, ref=np.power),
            out(arr([0.0, 2.0], F32), arr([0.0, 3.0], F32), expect=[1.0, 8.0], dtype=F32),
            out(ints(2, 3, lo=-3, hi=4), 2, ref=np.power),
            out(2.0, u(3, dtype=F64), ref=np.power),
            # negative integer exponents: torch's 1 for a base of 1, +-1 for -1, else 0
            out(arr([2, 3, 1, -1, -1, 0, -2], I64), arr([-1, 2, -5, -3, -2, 3, -1], I64),
                expect=[0, 9, 1, -1, 1, 0, 0], dtype=I64, label="negative-int-exponents"),
            out(arr([1, -1, 5], I32), arr([-2], I32), expect=[1, 1, 0], dtype=I32, label="negative-int32-exponent"),
            raises(ValueError, u(2, 3, lo=0.1), u(4))],
    "maximum": arith_rows(np.maximum)
    + [out(arr([np.nan, 1.0, 2.0], F64), arr([0.0, np.nan, 1.0], F64), expect=[np.nan, np.nan, 2.0],
           dtype=F64, label="nan-propagates")],
    "minimum": arith_rows(np.minimum)
    + [out(arr([np.nan, 1.0, 2.0], F64), arr([0.0, np.nan, 1.0], F64), expect=[np.nan, np.nan, 1.0],
           dtype=F64, label="nan-propagates")],
    "atan2": arith_rows(np.arctan2, with_ints=False)
    + [out(arr([0.0, -0.0, 1.0, -1.0], F64), arr([-0.0, -1.0, 0.0, np.inf], F64),
           expect=[np.pi, -np.pi, np.pi / 2, -0.0], dtype=F64, label="signed-zeros")],
    "hypot": arith_rows(np.hypot, with_ints=False)
    + [out(arr([np.inf, 3.0, np.nan], F32), arr([np.nan, 4.0, 1.0], F32), expect=[np.inf, 5.0, np.nan],
           dtype=F32, label="inf-beats-nan")],
    "logaddexp": arith_rows(np.logaddexp, with_ints=False)
    + [out(arr([np.inf, -np.inf, -np.inf, 1000.0, np.nan], F64), arr([np.inf, -np.inf, 1.0, 1000.0, 1.0], F64),
           expect=[np.inf, -np.inf, 1.0, 1000.0 + np.log(2.0), np.nan], dtype=F64, label="specials")],
    "logaddexp2": arith_rows(np.logaddexp2, with_ints=False)
    + [out(arr([-np.inf, 3.0, 1.0], F32), arr([-np.inf, 3.0, np.nan], F32), expect=[-np.inf, 4.0, np.nan],
           dtype=F32, label="specials")],
    "copysign": arith_rows(np.copysign, with_ints=False)
    + [out(arr([1.0, 2.0, -3.0], F32), arr([-0.0, np.nan, 0.0], F32), expect=[-1.0, 2.0, 3.0],
           dtype=F32, label="signed-zeros")],
    "xlogy": arith_rows(lambda a, b: a * np.log(b), with_ints=False, pos_second=True)
    + [out(arr([0.0, 0.0, 2.0, 0.0, 1.0], F64), arr([0.0, np.inf, 0.0, np.nan, -1.0], F64),
           expect=[0.0, 0.0, -np.inf, np.nan, np.nan], dtype=F64, label="zeros-and-nan")],
    **SPECIAL_TABLE,
    **SPECIAL_MORE_TABLE,
    "eq": compare_rows(np.equal),
    "ne": compare_rows(np.not_equal),
    "lt": compare_rows(np.less),
    "le": compare_rows(np.less_equal),
    "gt": compare_rows(np.greater),
    "ge": compare_rows(np.greater_equal),
    "where": [out(mask(2, 3), u(2, 3), u(2, 3), ref=np.where, dtype=F32),
              out(mask(3), u(2, 1, dtype=F64), u(dtype=F64), ref=np.where, dtype=F64),
              out(mask(), u(), u(), ref=np.where, dtype=F32),
              out(mask(2, 2), ints(2, 2), ints(2), ref=np.where, dtype=I64),
              out(mask(4), mask(4), mask(4), ref=np.where, dtype=BOOL),
              raises(ValueError, mask(2, 3), u(2, 3), u(4))],
    "clip": [out(u(2, 3), -1.0, 1.0, ref=clip_ref),
             out(u(4, dtype=F64), None, 0.5, ref=clip_ref),
             out(u(2, 3), 0, None, ref=clip_ref),
             out(ints(2, 3), -2, 3, ref=clip_ref),
             out(u(), -0.5, 0.5, ref=clip_ref),
             out(u(3, dtype=F64), 2.0, 1.0, expect=[1.0, 1.0, 1.0], dtype=F64, label="lo>hi-gives-hi")],

    # in place
    "iadd": [mutates(u(2, 3), u(2, 3), target=0, ref=np.add),
             mutates(u(2, 3, dtype=F64), u(3, dtype=F64), target=0, ref=np.add),
             mutates(u(), u(), target=0, ref=np.add),
             mutates(Transposed(u(3, 4)), u(3, 4), target=0, ref=np.add),
             mutates(ints(2, 2), ints(2, 2), target=0, ref=np.add)],
    "binary_inplace": [mutates(n, a, b, target=1, ref=lambda n, a, b: INPLACE_REF[n](a, b)) for n, a, b in (
        ("add", u(2, 3), u(2, 3)),
        ("sub", u(2, 3, dtype=F64), u(3, dtype=F64)),
        ("mul", u(2, 3), 2.5),
        ("div", u(2, 3), u(2, 1, lo=0.5)),
        ("div", u(3, dtype=F64), 4),
        ("mul", u(), u()),
        ("add", ints(2, 3), ints(3)),
        ("sub", Transposed(u(2, 3)), u(2, 3)))]
    + [raises(ValueError, "add", u(3), u(2, 3), label="would-grow-dst")],
    "axpy": [mutates(u(2, 3), u(2, 3), -0.5, target=0, ref=lambda d, s, a: d + a * s),
             mutates(u(4, dtype=F64), u(4, dtype=F64), 2.0, target=0, ref=lambda d, s, a: d + a * s),
             mutates(u(2, 3), u(3), 0.25, target=0, ref=lambda d, s, a: d + a * s, label="broadcast-src"),
             mutates(Transposed(u(3, 4)), u(3, 4), -1.0, target=0, ref=lambda d, s, a: d + a * s),
             mutates(u(), u(), 3.0, target=0, ref=lambda d, s, a: d + a * s),
             mutates(arr([1.0, 2.0], F32), arr([4.0, 8.0], F32), -0.25, target=0, expect=[0.0, 0.0],
                     label="exact"),
             raises(ValueError, u(3), u(2, 3), 1.0, label="would-grow-dst"),
             axpy_bits_case(F32), axpy_bits_case(F64),
             axpy_one_element_bits_case(F32), axpy_one_element_bits_case(F64)],
    "foreach_axpy": [foreach_axpy_many, foreach_axpy_aliasing],
    "foreach_adam": [adam_case(o, ams) for o in ADAM_OPTIONS for ams in (False, True)] + [foreach_adam_unusual],
    "foreach_sgd": [sgd_case(o) for o in SGD_OPTIONS] + [foreach_sgd_unusual],
    "foreach_rmsprop": [rmsprop_case(o) for o in RMSPROP_OPTIONS] + [foreach_rmsprop_adagrad_unusual],
    "foreach_adagrad": [adagrad_case(o) for o in ADAGRAD_OPTIONS] + [foreach_rmsprop_adagrad_unusual],
    "copyto": [mutates(u(2, 3), u(2, 3), target=0, ref=lambda d, s: s),
               mutates(u(2, 3), arr(5.0, F32), target=0, expect=np.full((2, 3), 5.0)),
               mutates(u(2, 3, dtype=F64), u(3, dtype=F64), target=0, ref=lambda d, s: np.broadcast_to(s, d.shape)),
               mutates(np.zeros(3, F32), arr([0.1, 1 / 3, -2.5], F64), target=0,
                       expect=[0.1, 1 / 3, -2.5], label="casts-f64-to-f32"),
               mutates(np.zeros(2, F32), arr([3, -4], I64), target=0, expect=[3.0, -4.0], label="casts-i64-to-f32"),
               mutates(Transposed(u(3, 2)), u(3, 2), target=0, ref=lambda d, s: s),
               copyto_through_view],
    "setitem": [mutates(x34.copy(), (1,), arr(7.0, F32), target=0, ref=setitem_ref),
                mutates(u(3, 4), (slice(None), 2), u(3), target=0, ref=setitem_ref),
                mutates(u(3, 4, dtype=F64), (arr([0, 2], I64),), u(2, 4, dtype=F64), target=0, ref=setitem_ref),
                mutates(u(3, 4), (arr([True, False, True], BOOL),), arr(0.0, F32), target=0, ref=setitem_ref),
                mutates(u(2, 3), (slice(None, None, 2), Ellipsis, None), u(1, 3, 1), target=0, ref=setitem_ref),
                mutates(u(), (), arr(3.0, F32), target=0, expect=np.array(3.0)),
                mutates(ints(4), (-1,), arr(9, I64), target=0, ref=setitem_ref),
                raises(ValueError, u(3, 4), (0,), u(5), label="value-does-not-broadcast"),
                raises(IndexError, u(3, 4), (3,), arr(0.0, F32), label="out-of-range")],

    # reductions
    "sum": reduce_rows(lambda a, axis, keep, dtype=None: np.sum(a, axis=axis, keepdims=keep), with_dtype=True),
    "prod": prod_rows(),
    "cumsum": scan_rows("cumsum"),
    "cumprod": scan_rows("cumprod"),
    "cummax": cum_extreme_rows("cummax"),
    "cummin": cum_extreme_rows("cummin"),
    "mean": [out(*args, ref=mean_ref, label=label)
             for label, args in (
                 (None, (u(2, 3, 4), None, False)),
                 (None, (u(2, 3, 4, dtype=F64), (1,), False)),
                 (None, (u(2, 3, 4), (0, 2), True)),
                 ("bias-grad-shape", (u(64, 256), (0,), False)),
                 (None, (u(5, 7, 3, dtype=F64), (0, 1), True)),
                 (None, (u(), (), False)),
                 (None, (u(), None, False)),
                 ("empty-columns", (u(0, 3), (0,), False)),
                 ("empty-rows", (u(3, 0, dtype=F64), (1,), False)),
                 ("long-columns", (u(40000, 2), (0,), False)),
                 ("split-rows", (u(2, 1 << 16), (1,), False)))]
    + [out(arr([[1.0, np.nan], [2.0, 3.0]], F32), (1,), False, expect=[np.nan, 2.5], dtype=F32, label="nan"),
       out(arr([3.0, 4.0, 5.0], F32), None, False, expect=np.array(4.0), dtype=F32, label="exact")],
    "vdot": [out(u(2, 3), u(2, 3), ref=lambda a, b: np.sum(a * b)),
             out(u(5, dtype=F64), u(5, dtype=F64), ref=lambda a, b: np.sum(a * b)),
             out(u(), u(), ref=lambda a, b: a * b),
             out(u(3000), u(3000), ref=lambda a, b: np.sum(a * b), label="long"),
             out(Transposed(u(3, 4)), u(3, 4), ref=lambda a, b: np.sum(a * b)),
             out(u(0, dtype=F64), u(0, dtype=F64), expect=np.array(0.0), dtype=F64, label="empty"),
             out(arr([1.0, np.nan], F32), arr([1.0, 1.0], F32), expect=np.array(np.nan), dtype=F32,
                 label="nan")],
    "amax": reduce_rows(lambda a, axis, keep: np.amax(a, axis=axis, keepdims=keep)),
    "amin": reduce_rows(lambda a, axis, keep: np.amin(a, axis=axis, keepdims=keep)),
    "argmax": arg_rows(np.argmax, [1.0, 3.0, 3.0, 0.0], 1),
    "argmin": arg_rows(np.argmin, [2.0, 0.0, 0.0, 5.0], 1),
    "sort": sort_rows(),
    "relu_backward": backward_rows(lambda g, o: g * (o > 0)),
    "sigmoid_backward": backward_rows(lambda g, o: g * o * (1 - o)),
    "tanh_backward": backward_rows(lambda g, o: g * (1 - o * o)),
    "softmax_backward": softmax_backward_rows(log=False),
    "log_softmax_backward": softmax_backward_rows(log=True),
    "cross_entropy": [cross_entropy_case],
    "cross_entropy_backward": cross_entropy_backward_rows(),
    "layer_norm": [layer_norm_case],
    "layer_norm_backward": layer_norm_backward_rows(),
    "softmax": softmax_rows(log=False),
    "log_softmax": softmax_rows(log=True),

    # dense factorizations (kernels/linalg.cu)
    "lu_factor": lu_factor_cases(),
    "lu_solve": lu_solve_cases(),
    "triangular_solve": triangular_solve_cases(),
    "cholesky": cholesky_cases(),
    # orthogonal factorizations (kernels/linalg_eig.cu)
    "eigh": [orthofactor("eigh", _sym(4, 4), False), orthofactor("eigh", u(2, 5, 5), True),
             orthofactor("eigh", u(3, 3, dtype=F64), False), orthofactor("eigh", _sym(1, 1), True),
             orthofactor("eigh", _sym(2, 3, 9, 9, dtype=F32), False), orthofactor("eigh", u(0, 0), False),
             orthofactor("eigh", u(0, 3, 3), True)],
    "svd": [orthofactor("svd", u(5, 3), True, True), orthofactor("svd", u(5, 3, dtype=F64), False, True),
            orthofactor("svd", u(3, 5), True, True), orthofactor("svd", u(2, 4, 4, dtype=F64), True, True),
            orthofactor("svd", u(2, 7, 2), False, False), orthofactor("svd", Transposed(u(4, 3, dtype=F64)), False, True),
            orthofactor("svd", u(0, 3), True, True), orthofactor("svd", u(3, 0), False, True),
            orthofactor("svd", u(1, 1), True, True)],
    "qr": [orthofactor("qr", u(5, 3, dtype=F64), mode) for mode in ("reduced", "complete", "r")]
          + [orthofactor("qr", u(3, 5, dtype=F64), "complete"), orthofactor("qr", u(2, 4, 4), "reduced"),
             orthofactor("qr", Transposed(u(3, 4, dtype=F64)), "reduced"), orthofactor("qr", u(0, 3), "complete"),
             orthofactor("qr", u(3, 0), "reduced")],
    # linear algebra
    "matmul": [out(u(2, 3), u(3, 4), ref=np.matmul),
               out(u(3, dtype=F64), u(3, dtype=F64), ref=np.matmul),  # dot: a 0-d array
               out(u(3), u(3, 2), ref=np.matmul),
               out(u(2, 3, dtype=F64), u(3, dtype=F64), ref=np.matmul),
               out(u(2, 3, 4), u(4, 5), ref=np.matmul),
               out(u(2, 1, 3, 4, dtype=F64), u(5, 4, 2, dtype=F64), ref=np.matmul),
               out(Transposed(u(3, 4)), Transposed(u(4, 2)), ref=np.matmul),
               # torch multiplies integer matrices on the CPU only; CUDA raises its error
               by_backend(out(ints(2, 3), ints(3, 2), ref=np.matmul),
                          raises(RuntimeError, ints(2, 3), ints(3, 2),
                                 match=re.escape("\"addmm_cuda\" not implemented for 'Long'"))),
               out(u(0, 3), u(3, 2), ref=np.matmul),
               # a bias per column, added after the product (nn.Linear's addmm)
               out(u(2, 3), u(3, 4), u(4), ref=lambda a, b, c: a @ b + c),
               out(u(5, 3, dtype=F64), Transposed(u(3, 4, dtype=F64)), u(4, dtype=F64),
                   ref=lambda a, b, c: a @ b + c),
               out(u(2, 3, 4), u(4, 5), u(5), ref=lambda a, b, c: a @ b + c),
               out(u(3), u(3, 2), u(2), ref=lambda a, b, c: a @ b + c),
               out(u(2, 0), u(0, 3), u(3), ref=lambda a, b, c: a @ b + c),   # K = 0: the bias alone
               out(u(0, 3), u(3, 2), u(2), ref=lambda a, b, c: a @ b + c),
               matmul_bias_bits_case(F32), matmul_bias_bits_case(F64),
               # one column and a one-element bias (a regression head, seed 000's Linear(1, 1))
               out(u(3, 1), u(1, 1), u(1), ref=lambda a, b, c: a @ b + c),
               out(u(1, 1, dtype=F64), u(1, 1, dtype=F64), u(1, dtype=F64), ref=lambda a, b, c: a @ b + c),
               out(u(2, 3, 5), u(5, 1), u(1), ref=lambda a, b, c: a @ b + c),
               raises(ValueError, u(2, 3), u(3, 4), u(3), match="one value per column"),
               raises(ValueError, u(2, 3), u(3, 4), u(4, dtype=F64), match="one value per column"),
               raises(ValueError, u(2, 3), u(3), u(1), match="one value per column")],

    # layout
    "reshape": [out(x23, (3, 2), ref=np.reshape),
                out(x234, (-1,), ref=np.reshape),
                out(u(), (1, 1), ref=np.reshape),
                out(u(1, dtype=F64), (), ref=np.reshape),
                out(Transposed(u(2, 3)), (6,), ref=np.reshape, label="non-contiguous-copies"),
                out(u(0, 3), (3, 0), ref=np.reshape),
                out(ints(2, 2), (4, 1), ref=np.reshape)],
    "view": [out(x23, (6,), ref=np.reshape),
             out(x234, (6, 4), ref=np.reshape),
             out(u(), (1,), ref=np.reshape),
             out(u(1, 1, dtype=F64), (), ref=np.reshape),
             out(mask(2, 2), (4,), ref=np.reshape),
             aliases(u(2, 3), (3, 2), write=(0,), where=(0, slice(0, 2))),
             aliases(u(), (1, 1)),
             raises(ValueError, Transposed(u(3, 2)), (6,), label="transposed-needs-a-copy")],
    "transpose": [out(x23, (1, 0), ref=np.transpose),
                  out(x234, (2, 0, 1), ref=np.transpose),
                  out(u(), (), ref=np.transpose),
                  out(ints(2, 3), (1, 0), ref=np.transpose),
                  aliases(u(2, 3), (1, 0), write=(0,), where=(slice(None), 0))],
    "broadcast_to": [out(u(3), (2, 3), ref=np.broadcast_to),
                     out(u(dtype=F64), (2, 2), ref=np.broadcast_to),
                     out(u(2, 1), (2, 3), ref=np.broadcast_to),
                     out(u(2, 3), (2, 3), ref=np.broadcast_to),
                     out(u(3), (4, 2, 3), ref=np.broadcast_to),
                     out(ints(1, 2), (3, 2), ref=np.broadcast_to),
                     out(mask(3), (2, 3), ref=np.broadcast_to)],
    "getitem": [out(x34, (1,), ref=getitem_ref),
                out(x34, (slice(None), slice(None, None, 2)), ref=getitem_ref),
                out(x34, (None, Ellipsis, 1), ref=getitem_ref),
                out(x34, (arr([2, 0, 2], I64),), ref=getitem_ref),
                out(x34, (arr([True, False, True], BOOL),), ref=getitem_ref),
                out(x34, (0, 1), ref=getitem_ref, label="all-ints-gives-0-d"),
                out(x34, (-1, slice(1, 3)), ref=getitem_ref),
                out(x234, (slice(None), arr([0, 2], I64), slice(1, None)), ref=getitem_ref),
                out(u(), (), ref=getitem_ref),
                out(u(), (None,), ref=getitem_ref),
                out(ints(5), (slice(1, 4),), ref=getitem_ref),
                aliases(u(3, 4), (1,), where=(1,)),
                aliases(u(3, 4), (slice(None), slice(1, 3)), where=(slice(None), slice(1, 3))),
                aliases(u(3, 4), (None, Ellipsis, 2), where=(Ellipsis, 2)),
                aliases(u(3, 4), (0, 1), where=(0, 1)),
                aliases(u(), (), where=()),
                raises(IndexError, u(3, 4), (3,))],
    "index_add": [out((4,), (arr([0, 0, 2], I64),), arr([1.0, 2.0, 3.0], F32), F32,
                      expect=[3.0, 0.0, 3.0, 0.0], dtype=F32, label="repeats-accumulate"),
                  out((2, 3), (arr([1, 1, 0], I64), arr([2, 2, 2], I64)), arr([1.0, 10.0, 100.0], F64), F64,
                      expect=[[0, 0, 100], [0, 0, 11]], dtype=F64, label="repeated-pairs"),
                  out((3,), (arr([0, 0, 2], I64),), arr([2 ** 62, 2 ** 62, -5], I64), I64,
                      expect=np.array([-2 ** 63, 0, -5], I64), dtype=I64, label="int64-wraps"),
                  out((3, 4), (slice(None), 1), u(3), F32,
                      ref=lambda s, i, v, d: setitem_ref(np.zeros(s), i, v), dtype=F32),
                  out((3, 4), (arr([True, False, True], BOOL),), u(2, 4, dtype=F64), F64,
                      ref=lambda s, i, v, d: setitem_ref(np.zeros(s), i, v), dtype=F64),
                  out((), (None,), arr([2.5], F32), F32, expect=np.array(2.5), dtype=F32),
                  out((2, 3), (Ellipsis, 0), u(2), F32,
                      ref=lambda s, i, v, d: setitem_ref(np.zeros(s), i, v), dtype=F32)],
    "index_reduce": [
        mutates(arr([1.0, 2.0, 3.0, 4.0], F32), (arr([0, 1, 0, 1, 2], I64),), arr([5.0, 2.0, -1.0, 7.0, 0.5], F32), "prod",
                target=0, expect=[-5.0, 28.0, 1.5, 4.0], label="prod-repeats"),
        mutates(arr([1.0, 2.0, 3.0, 4.0], F64), (arr([0, 1, 0, 1, 2], I64),), arr([5.0, np.nan, -1.0, 7.0, 0.5], F64),
                "amax", target=0, expect=[5.0, np.nan, 3.0, 4.0], label="amax-nan-wins"),
        mutates(arr([1.0, 2.0, 3.0, 4.0], F32), (arr([0, 1, 0, 1, 2], I64),), arr([5.0, np.nan, -1.0, 7.0, 0.5], F32),
                "amin", target=0, expect=[-1.0, np.nan, 0.5, 4.0], label="amin-nan-wins"),
        mutates(arr([[1, 2, 3], [4, 5, 6]], I64), (arr([[1, 1, 0]], I64), arr([[0, 1, 2]], I64)),
                arr([[-7, 9, 1]], I64), "amin", target=0, expect=[[1, 2, 1], [-7, 5, 6]], label="amin-2d"),
        mutates(arr([2 ** 62, 3], I64), (arr([0, 0, 1], I64),), arr([2, 2, -1], I64), "prod", target=0,
                expect=np.array([0, -3], I64), label="int64-wraps"),
        mutates(arr([7, -8, 9], I32), (arr([2, 2, 0, 1], I64),), arr([10, 11, -3, 5], I32), "amax", target=0,
                expect=np.array([7, 5, 11], I32), label="i32-amax"),
        mutates(arr([True, False, False], BOOL), (arr([0, 1, 1], I64),), arr([False, True, False], BOOL), "prod",
                target=0, expect=[False, False, False], label="bool-and"),
        mutates(arr([True, False, False], BOOL), (arr([0, 1, 2], I64),), arr([False, True, False], BOOL), "amax",
                target=0, expect=[True, True, False], label="bool-or"),
        mutates(u(3, 4, dtype=F64), (arr([[0], [2]], I64), arr([[1, 3]], I64)), u(2, 2, dtype=F64), "amax",
                target=0, ref=lambda o, i, v, op: np.maximum.at(r := o.copy(), i, v) or r, label="grid-index"),
        mutates(u(3), (arr([], I64),), arr([], F32), "prod", target=0, ref=lambda o, i, v, op: o, label="empty"),
        mutates(u(5000, dtype=F32), (arr(rng.integers(0, 7, 6000), I64),), u(6000, lo=0.9, hi=1.1), "prod", target=0,
                ref=lambda o, i, v, op: np.multiply.at(r := o.astype(F64), i, v.astype(F64)) or r, label="many-repeats")],
    "concatenate": [out([u(2, 3), u(1, 3)], 0, ref=lambda xs, ax: np.concatenate(xs, ax)),
                    out([ints(2, 1), ints(2, 2)], 1, ref=lambda xs, ax: np.concatenate(xs, ax)),
                    out([u(0, 3, dtype=F64), u(2, 3, dtype=F64), u(1, 3, dtype=F64)], 0,
                        ref=lambda xs, ax: np.concatenate(xs, ax)),
                    out([u(2, 2, 1), u(2, 2, 3)], 2, ref=lambda xs, ax: np.concatenate(xs, ax)),
                    out([u(3)], 0, ref=lambda xs, ax: xs[0]),
                    out([arr([1.0, 2.0], F32), arr([3.0], F32)], 0, expect=[1.0, 2.0, 3.0], dtype=F32)],
    "split": [split_case(u(5, 2), [1, 3], 0, [slice(0, 1), slice(1, 3), slice(3, 5)]),
              split_case(ints(2, 4), 2, 1, [(slice(None), slice(0, 2)), (slice(None), slice(2, 4))]),
              split_case(u(3, dtype=F64), [3], 0, [slice(0, 3), slice(3, 3)])],
    "is_contiguous": [contiguity_case(u(2, 3), True), contiguity_case(Transposed(u(2, 3)), False),
                      contiguity_case(u(), True), contiguity_case(ints(4), True)],
    "ascontiguous": [ascontiguous_case(Transposed(u(2, 3))), ascontiguous_case(u(3, 2)),
                     ascontiguous_case(u()), ascontiguous_case(Transposed(ints(3, 4)))],
    "data_ptr": [data_ptr_case(F32), data_ptr_case(F64), data_ptr_case(I64), data_ptr_case(BOOL)],
    "strides": [strides_case(F32), strides_case(F64), strides_case(I64), strides_case(BOOL)],
    "as_strided": [as_strided_case(F32), as_strided_case(F64), as_strided_case(I64), as_strided_case(BOOL)],
    "im2col": conv_cases("im2col"),
    "col2im": conv_cases("col2im"),
}


def _rows():
    for prim, rows in TABLE.items():
        seen = {}
        for label, check in rows:
            seen[label] = seen.get(label, 0) + 1
            tag = label if seen[label] == 1 else f"{label}#{seen[label]}"
            yield pytest.param(prim, check, id=f"{prim}:{tag}")


@pytest.mark.parametrize("prim, check", list(_rows()))
def test_primitive(be, prim, check):
    check(be, getattr(be, prim))


def test_every_primitive_has_cases():
    assert len(set(PRIMITIVES)) == len(PRIMITIVES), "PRIMITIVES lists a name twice"
    assert set(TABLE) == set(PRIMITIVES), (
        f"no conformance case for {sorted(set(PRIMITIVES) - set(TABLE))}; "
        f"cases for unlisted {sorted(set(TABLE) - set(PRIMITIVES))}")
    assert all(TABLE.values())


def test_backend_implements_every_primitive(be):
    missing = [n for n in PRIMITIVES if not callable(getattr(be, n, None))]
    assert not missing, f"{getattr(be, 'name', be)} lacks {missing}"


# ---- the list is the whole contract: everything minigrad calls on a backend is in it ------

SRC = Path(minigrad.__file__).parent
_ATTR = re.compile(r"\b(?:be|backend)\.([A-Za-z_]\w*)")
_GETATTR = re.compile(r"getattr\(\s*[\w.]*\b(?:be|backend)\s*,\s*[\"'](\w+)[\"']")


def _backend_names_in_source():
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        if (SRC / "backends") in path.parents:
            continue  # the backends implement the contract; everything else consumes it
        for n, line in enumerate(path.read_text().splitlines(), 1):
            for pattern in (_ATTR, _GETATTR):
                for name in pattern.findall(line):
                    found.setdefault(name, f"{path.relative_to(SRC.parent)}:{n}")
    return found


def test_backend_attributes_used_in_source_are_primitives():
    found = _backend_names_in_source()
    assert len(found) > 20, "the scan found almost nothing: has the backend's name in ops changed?"
    unlisted = {name: where for name, where in found.items() if name not in PRIMITIVES}
    assert not unlisted, f"backend attributes used but not in PRIMITIVES: {unlisted}"


def test_primitive_names_held_by_op_classes_are_primitives():
    """Ops that look a primitive up by name (getattr(be, cls._prim)) name real primitives."""
    held = {}
    for info in pkgutil.walk_packages(minigrad.ops.__path__, "minigrad.ops."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, type) and obj.__module__ == module.__name__:
                for attr in ("_prim", "_prims"):
                    value = vars(obj).get(attr)
                    for name in (value,) if isinstance(value, str) else value or ():
                        held[name] = f"{obj.__module__}.{obj.__qualname__}.{attr}"
    assert held, "no op class names a primitive: has the _prim convention changed?"
    unlisted = {name: where for name, where in held.items() if name not in PRIMITIVES}
    assert not unlisted, f"primitive names not in PRIMITIVES: {unlisted}"
