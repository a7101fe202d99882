"""The CUDA backend: minigrad's primitives (backends/__init__.py) on CuPy arrays, computed by
minigrad's own kernels in kernels/*.cu.

CuPy provides the memory, and its built-ins are used only for random numbers, dtype casts,
copies (contiguous copies, concatenation, device transfers) and gather/scatter indexing; every
elementwise op, reduction, softmax and matmul is one of our kernels. Python scalars reach the
kernels as NumPy scalars of the exact C type of the parameter.
"""
import contextlib
import math

import numpy as np

try:
    import cupy as cp
    import cupyx
except ImportError as e:  # minigrad.cuda reports this as "CUDA is not available"
    raise ImportError("the CUDA backend needs CuPy: pip install \"minigrad[cuda]\"") from e

from .kernel_loader import KernelCache
from .numpy_backend import _check_bias, linspace as _host_linspace

name = "cuda"
ndarray = cp.ndarray

from .cuda_kernel_table import (ADAGRAD_LIST_MAX, ADAM_LIST_MAX, AXPY_LIST_MAX, BLOCK, BOOL_BINARY, CTYPE as _CTYPE,
                                GEMM_TILES, GRID_YZ_MAX, MAX_DIMS, RMSPROP_LIST_MAX, SFX as _SFX, SGD_LIST_MAX,
                                SORT_THREADS, SORT_TILE,
                                col_launch, row_launch)
from .cuda_kernel_table import CONV_SFX
from .cuda_kernel_table import BIT_BINARY, BOOL_BIT_BINARY, SPECIAL_BINARY, SPECIAL_UNARY
from .cuda_kernel_table import LINALG_THREADS
from .cuda_kernel_table import linalg_eig_threads
from .cuda_kernel_table import scan_col_launch, scan_launch


_backends = {}

# the optimizer list kernels' flags (kernels/elementwise.cu), and their null pointer
_ADAM_MAXIMIZE, _ADAM_L2, _ADAM_AMSGRAD, _ADAM_LERP_END = 1, 2, 4, 8
_SGD_MAXIMIZE, _SGD_L2, _SGD_MOMENTUM, _SGD_NESTEROV, _SGD_DAMPENING = 1, 2, 4, 8, 16
_RMSPROP_MAXIMIZE, _RMSPROP_L2, _RMSPROP_CENTERED, _RMSPROP_MOMENTUM, _RMSPROP_LERP_END = 1, 2, 4, 8, 16
_ADAGRAD_MAXIMIZE, _ADAGRAD_L2 = 1, 2
_NULL = np.uint64(0)


def for_device(index):
    """The backend object bound to GPU `index` (one per device, made on first use)."""
    be = _backends.get(index)
    if be is None:
        be = _backends[index] = CudaBackend(index)
    return be


@contextlib.contextmanager
def record_launches(index):
    """Inside the block, the names of the kernels launched on GPU `index`, in order: a
    diagnostic for benchmarks (launches per training step), not part of the backend contract."""
    be = for_device(index)
    launch, names = be._launch, []

    def recording(filename, kname, *args, **kwargs):
        names.append(kname)
        return launch(filename, kname, *args, **kwargs)
    be._launch = recording
    try:
        yield names
    finally:
        del be._launch   # the class's method again


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _viewable(shape, strides, newshape):
    """Whether memory laid out as (shape, strides) can be seen as newshape without a copy:
    each run of old dims that merges into new dims must be contiguous with itself (NumPy's rule)."""
    old = [(s, st) for s, st in zip(shape, strides) if s != 1]
    new = [s for s in newshape if s != 1]
    i = j = 0
    while i < len(old) and j < len(new):
        p_old, p_new = old[i][0], new[j]
        i2, j2 = i + 1, j + 1
        while p_old != p_new:
            if p_old < p_new:
                p_old *= old[i2][0]
                i2 += 1
            else:
                p_new *= new[j2]
                j2 += 1
        if any(old[k][1] != old[k + 1][1] * old[k + 1][0] for k in range(i, i2 - 1)):
            return False
        i, j = i2, j2
    return True


def _extent(a):
    """[first byte, one past the last byte] that array a can touch."""
    lo = hi = a.data.ptr
    for n, st in zip(a.shape, a.strides):
        if n > 1:
            if st < 0:
                lo += st * (n - 1)
            else:
                hi += st * (n - 1)
    return lo, hi + a.itemsize


def _overlaps(a, b):
    if a.size == 0 or b.size == 0:
        return False
    (alo, ahi), (blo, bhi) = _extent(a), _extent(b)
    return alo < bhi and blo < ahi


class CudaBackend:
    """The primitives on one GPU. Attribute access is the contract: be.add(a, b), be.sum(...)."""
    name = "cuda"
    ndarray = cp.ndarray

    def __init__(self, index):
        self.index = index
        self.device = cp.cuda.Device(index)
        self.kernels = KernelCache(cp, index)
        self._meta_cache = {}
        self._gemm_plans = {}
        self._rng = cp.random.RandomState()
        with self.device:
            self.sm_count = self.device.attributes["MultiProcessorCount"]
        from . import PRIMITIVES
        from .small_dtypes import install
        install(self, PRIMITIVES)  # float16 and 8/16-bit integers compute in float32 / int32

    # ---- launching ----------------------------------------------------------------------
    def _launch(self, filename, kname, grid, block, args, shared_mem=0):
        fn = self.kernels.get(filename, kname)
        with self.device:
            fn(grid, block, args, shared_mem=shared_mem)

    def _grid(self, n):
        return (max(1, min(math.ceil(n / BLOCK), self.sm_count * 32)),)

    def _meta(self, shape, *strides):
        """Shape and per-operand element strides, as a cached device array of int64."""
        key = (tuple(shape),) + tuple(tuple(s) for s in strides)
        meta = self._meta_cache.get(key)
        if meta is None:
            if len(shape) > MAX_DIMS:
                raise RuntimeError(f"minigrad's CUDA kernels handle at most {MAX_DIMS} dimensions, got {len(shape)}")
            host = np.array(list(shape) + [x for s in strides for x in s], dtype=np.int64)
            with self.device:
                meta = cp.asarray(host)
            if len(self._meta_cache) > 4096:
                self._meta_cache.clear()
            self._meta_cache[key] = meta
        return meta

    @staticmethod
    def _strides_for(a, shape):
        """a's element strides once broadcast to shape (0 on broadcast dims)."""
        lead = len(shape) - a.ndim
        out = [0] * lead
        for size, st, target in zip(a.shape, a.strides, shape[lead:]):
            out.append(0 if size == 1 and target != 1 else st // a.itemsize)
        return out

    # ---- creation and transfer ------------------------------------------------------------
    def seed(self, s):
        with self.device:
            self._rng = cp.random.RandomState(s)

    # CuPy's generator cannot report where it is in its stream: the state is taken by reseeding
    # the generator with a seed drawn from it (deterministic, given the state before), and is that
    # seed with offset 0, 16 bytes as torch's Philox state; restoring it restarts there.
    def rng_state(self):
        with self.device:
            s = int(self._rng.randint(0, 1 << 62, (), dtype=np.int64))
        self.seed(s)
        return s.to_bytes(8, "little") + bytes(8)

    def set_rng_state(self, state):
        if not isinstance(state, (bytes, bytearray)) or len(state) != 16:
            raise ValueError("set_rng_state expects the 16 bytes rng_state() returned")
        self.seed(int.from_bytes(bytes(state[:8]), "little"))

    def asarray(self, data, dtype=None):
        with self.device:
            if isinstance(data, cp.ndarray):
                return data.astype(dtype) if dtype is not None else data.copy()
            return cp.asarray(np.array(data, dtype=dtype))

    def to_numpy(self, a):
        return cp.asnumpy(a)

    def empty(self, shape, dtype):
        with self.device:
            return cp.empty(shape, dtype)

    def full(self, shape, value, dtype):
        out = self.empty(shape, dtype)
        if isinstance(value, cp.ndarray):
            self.copyto(out, value)
            return out
        sfx = _SFX[np.dtype(dtype)]
        n = out.size
        if n:
            self._launch("elementwise.cu", f"fill_{sfx}", self._grid(n), (BLOCK,),
                         (out, _CTYPE[sfx](value), np.int64(n)))
        return out

    def zeros(self, shape, dtype):
        return self.full(shape, 0, dtype)

    def ones(self, shape, dtype):
        return self.full(shape, 1, dtype)

    # small, host-built ramps: made with NumPy and copied over (a copy, not a computation)
    def arange(self, start, end, step, dtype):
        return self.asarray(np.arange(start, end, step, dtype=dtype))

    def linspace(self, start, end, steps, dtype):
        return self.asarray(_host_linspace(start, end, steps, dtype))  # torch's formula, on the host

    def eye(self, n, m, dtype):
        return self.asarray(np.eye(n, m, dtype=dtype))

    def rand(self, shape, dtype):
        with self.device:
            return self._rng.random_sample(shape, dtype=dtype)

    def randn(self, shape, dtype):
        with self.device:
            return self._rng.standard_normal(shape, dtype=dtype)

    def randint(self, low, high, shape, dtype):
        dtype = np.dtype(dtype)
        with self.device:
            r = self._rng.randint(low, high, shape, dtype=np.int64)
        if dtype == np.uint16:  # bfloat16's bits
            return self.f32_to_bf16(r.astype(np.float32))
        return r if dtype == np.int64 else r.astype(dtype)

    def poisson(self, lam):
        with self.device:
            return self._rng.poisson(lam, lam.shape, dtype=np.int64).astype(lam.dtype)

    def astype(self, a, dtype):
        with self.device:
            return a.astype(dtype)

    def copy(self, a):
        with self.device:
            return a.copy()

    # ---- elementwise ----------------------------------------------------------------------------
    def _laid_out_result(self, shape, dtype, *operands):
        """(out, order) for an elementwise result over operands (arrays, or None for a scalar) in
        the layout torch gives it: out new, and order None (row-major) or the dims, slowest first,
        along which out's memory runs (so out.transpose(order) is C-contiguous)."""
        from ..memory_formats import result_strides, allocate_strided, _dense_order
        want = None
        if math.prod(shape):
            want = result_strides(shape, [((), ()) if x is None else (x.shape, self.strides(x)) for x in operands])
        if want is None:
            return self.empty(shape, dtype), None
        return allocate_strided(self, shape, dtype, want), _dense_order(shape, want)

    @staticmethod
    def _permuted(x, ndim, order):
        """x broadcast-aligned to ndim dims (leading 1s) and transposed to order."""
        if x.ndim < ndim:
            x = x.reshape((1,) * (ndim - x.ndim) + x.shape)
        return x.transpose(order)

    def _unary(self, op, a):
        sfx = _SFX[a.dtype]
        n = a.size
        if a.flags.c_contiguous or not n:
            out = self.empty(a.shape, a.dtype)
            if n:
                self._launch("elementwise.cu", f"{op}_{sfx}", self._grid(n), (BLOCK,), (a, out, np.int64(n)))
            return out
        # strided: out takes torch's layout; the kernel walks out's memory in order
        out, order = self._laid_out_result(a.shape, a.dtype, a)
        src, dst = (a, out) if order is None else (a.transpose(order), out.transpose(order))
        meta = self._meta(src.shape, self._strides_for(src, src.shape))
        self._launch("elementwise.cu", f"{op}_strided_{sfx}", self._grid(n), (BLOCK,),
                     (src, dst, np.int64(n), meta, np.int32(a.ndim)))
        return out

    def neg(self, a):
        return self._unary("neg", a)

    def abs(self, a):
        return self._unary("abs", a)

    def exp(self, a):
        return self._unary("exp", a)

    def log(self, a):
        return self._unary("log", a)

    def log1p(self, a):
        return self._unary("log1p", a)

    def expm1(self, a):
        return self._unary("expm1", a)

    def erf(self, a):
        return self._unary("erf", a)

    def sqrt(self, a):
        return self._unary("sqrt", a)

    def sin(self, a):
        return self._unary("sin", a)

    def cos(self, a):
        return self._unary("cos", a)

    def tanh(self, a):
        return self._unary("tanh", a)

    def sigmoid(self, a):
        return self._unary("sigmoid", a)

    def relu(self, a):
        return self._unary("relu", a)

    def sign(self, a):
        return self._unary("sign", a)

    def floor(self, a):
        return self._unary("floor", a)

    def ceil(self, a):
        return self._unary("ceil", a)

    def trunc(self, a):
        return self._unary("trunc", a)

    def round(self, a):
        return self._unary("round", a)

    # the rest of torch's float math: elementwise.cu's MATH_MORE_KERNELS
    def tan(self, a):
        return self._unary("tan", a)

    def asin(self, a):
        return self._unary("asin", a)

    def acos(self, a):
        return self._unary("acos", a)

    def atan(self, a):
        return self._unary("atan", a)

    def sinh(self, a):
        return self._unary("sinh", a)

    def cosh(self, a):
        return self._unary("cosh", a)

    def asinh(self, a):
        return self._unary("asinh", a)

    def acosh(self, a):
        return self._unary("acosh", a)

    def atanh(self, a):
        return self._unary("atanh", a)

    def log2(self, a):
        return self._unary("log2", a)

    def log10(self, a):
        return self._unary("log10", a)

    def exp2(self, a):
        return self._unary("exp2", a)

    def rsqrt(self, a):
        return self._unary("rsqrt", a)

    def atan2(self, a, b):
        return self._binary("atan2", a, b)

    def hypot(self, a, b):
        return self._binary("hypot", a, b)

    def logaddexp(self, a, b):
        return self._binary("logaddexp", a, b)

    def logaddexp2(self, a, b):
        return self._binary("logaddexp2", a, b)

    def copysign(self, a, b):
        return self._binary("copysign", a, b)

    def xlogy(self, a, b):
        return self._binary("xlogy", a, b)

    # torch.special and the integer bit math: elementwise.cu's SPECIAL_KERNELS and BIT_KERNELS (the
    # plain unary and binary ones are set on the class below, from cuda_kernel_table's lists)
    def polygamma(self, a, n):
        return self._binary("polygamma", a, float(n))   # polygamma_scalar_<sfx>: n as a T

    def frexp(self, a):
        a = self.ascontiguous(a)
        mantissa, exponent = self.empty(a.shape, a.dtype), self.empty(a.shape, np.int32)
        if a.size:
            self._launch("elementwise.cu", f"frexp_{_SFX[a.dtype]}", self._grid(a.size), (BLOCK,),
                         (a, mantissa, exponent, np.int64(a.size)))
        return mantissa, exponent

    def _backward_helper(self, op, g, out):
        g, out = self.ascontiguous(g), self.ascontiguous(out)
        dx = self.empty(g.shape, g.dtype)
        if g.size:
            self._launch("elementwise.cu", f"{op}_backward_{_SFX[g.dtype]}", self._grid(g.size), (BLOCK,),
                         (g, out, dx, np.int64(g.size)))
        return dx

    def relu_backward(self, g, out):
        return self._backward_helper("relu", g, out)

    def sigmoid_backward(self, g, out):
        return self._backward_helper("sigmoid", g, out)

    def tanh_backward(self, g, out):
        return self._backward_helper("tanh", g, out)

    def _binary(self, op, a, b, out=None, compare=False):
        """a op b for arrays and Python scalars, NumPy's result dtype, broadcasting; into out
        (which may be a itself) when given."""
        a_arr, b_arr = isinstance(a, cp.ndarray), isinstance(b, cp.ndarray)
        if a_arr and b_arr:
            dt = np.result_type(a.dtype, b.dtype)
            a = a if a.dtype == dt else self.astype(a, dt)
            b = b if b.dtype == dt else self.astype(b, dt)
        elif a_arr:
            dt = np.result_type(a.dtype, b)  # a Python scalar is weak, as in NumPy 2
            a = a if a.dtype == dt else self.astype(a, dt)
        else:
            dt = np.result_type(b.dtype, a)
            b = b if b.dtype == dt else self.astype(b, dt)
        dt = np.dtype(dt)
        if (compare and dt == np.bool_ and op not in ("eq", "ne")) or (op == "div" and dt.kind in "biu"):
            # no bool ordering or integer division kernels: compare bools as int32, and divide
            # integers in float64 (NumPy's true division)
            wide = np.int32 if compare else np.float64
            a = self.astype(a, wide) if a_arr else a
            b = self.astype(b, wide) if b_arr else b
            dt = np.dtype(wide)
        sfx = _SFX[np.dtype(dt)]
        if sfx == "b8" and not compare and op not in BOOL_BIT_BINARY:   # bitwise_*_b8 have every form
            if op not in BOOL_BINARY:
                raise TypeError(f"numpy boolean {op} is not supported; cast the bool tensor first")
            op = BOOL_BINARY[op]
            # bool kernels take arrays only: a Python scalar becomes a 0-d array
            if not a_arr:
                a, a_arr = self.full((), bool(a), np.bool_), True
            if not b_arr:
                b, b_arr = self.full((), bool(b), np.bool_), True
        shape = a.shape if not b_arr else b.shape if not a_arr else np.broadcast_shapes(a.shape, b.shape)
        res_dtype = np.bool_ if compare else dt
        order = None
        if out is None:
            if (a_arr and not a.flags.c_contiguous) or (b_arr and not b.flags.c_contiguous):
                # out takes torch's layout; the kernels walk out's memory in order
                out, order = self._laid_out_result(shape, res_dtype, a if a_arr else None, b if b_arr else None)
            else:
                out = self.empty(shape, res_dtype)
        n = out.size
        if not n:
            return out
        grid = self._grid(n)
        dst = out
        if order is not None:
            nd = len(shape)
            dst = out.transpose(order)
            shape = dst.shape
            a = self._permuted(a, nd, order) if a_arr else a
            b = self._permuted(b, nd, order) if b_arr else b
        if a_arr and b_arr:
            if a.shape == b.shape == shape and a.flags.c_contiguous and b.flags.c_contiguous:
                self._launch("elementwise.cu", f"{op}_{sfx}", grid, (BLOCK,), (a, b, dst, np.int64(n)))
            else:
                meta = self._meta(shape, self._strides_for(a, shape), self._strides_for(b, shape))
                self._launch("elementwise.cu", f"{op}_strided_{sfx}", grid, (BLOCK,),
                             (a, b, dst, np.int64(n), meta, np.int32(len(shape))))
            return out
        arr, scalar, form = (a, b, "scalar") if a_arr else (b, a, "rscalar")
        if not arr.flags.c_contiguous:
            arr = self.ascontiguous(arr)
        self._launch("elementwise.cu", f"{op}_{form}_{sfx}", grid, (BLOCK,),
                     (arr, _CTYPE[sfx](scalar), dst, np.int64(n)))
        return out

    def add(self, a, b):
        return self._binary("add", a, b)

    def sub(self, a, b):
        return self._binary("sub", a, b)

    def mul(self, a, b):
        return self._binary("mul", a, b)

    def div(self, a, b):
        return self._binary("div", a, b)

    def pow(self, a, b):
        return self._binary("pow", a, b)

    # division with rounding: an integer zero divisor gives 0 in the kernels (no host sync to
    # raise torch's CPU error), and INT_MIN / -1 wraps (elementwise.cu's DIVISION_FN)
    def floor_divide(self, a, b):
        return self._binary("floor_divide", a, b)

    def trunc_divide(self, a, b):
        return self._binary("trunc_divide", a, b)

    def remainder(self, a, b):
        return self._binary("remainder", a, b)

    def fmod(self, a, b):
        return self._binary("fmod", a, b)

    def maximum(self, a, b):
        return self._binary("maximum", a, b)

    def minimum(self, a, b):
        return self._binary("minimum", a, b)

    def eq(self, a, b):
        return self._binary("eq", a, b, compare=True)

    def ne(self, a, b):
        return self._binary("ne", a, b, compare=True)

    def lt(self, a, b):
        return self._binary("lt", a, b, compare=True)

    def le(self, a, b):
        return self._binary("le", a, b, compare=True)

    def gt(self, a, b):
        return self._binary("gt", a, b, compare=True)

    def ge(self, a, b):
        return self._binary("ge", a, b, compare=True)

    def axpy(self, dst, src, alpha):
        """dst += alpha * src in dst's memory: one launch when both are contiguous floats of one
        shape and dtype (the optimizers' updates), with the bits of a multiply then an add."""
        sfx = _SFX.get(dst.dtype)
        if (sfx in ("f32", "f64") and src.dtype == dst.dtype and src.shape == dst.shape
                and dst.flags.c_contiguous and src.flags.c_contiguous and not _overlaps(src, dst)):
            if dst.size:
                self._launch("elementwise.cu", f"axpy_{sfx}", self._grid(dst.size), (BLOCK,),
                             (src, _CTYPE[sfx](alpha), dst, np.int64(dst.size)))
            return
        self.binary_inplace("add", dst, self.mul(src, alpha))

    def foreach_axpy(self, dsts, srcs, alpha):
        """axpy(dst, src, alpha) for each pair in order (torch's _foreach_add_(dsts, srcs,
        alpha=alpha)): runs of up to AXPY_LIST_MAX pairs go in one axpy_list launch, with axpy's
        bits. The kernel updates a run's pairs concurrently, so a pair joins a run only when its
        memory cannot meet another pair's: its dst is the only dst on its allocation, and its src
        is on none of the dsts' allocations (arrays on different allocations never overlap; the
        allocation is the array a view was taken from). It must also be contiguous floats of
        one shape and dtype. Any other pair is one axpy, after the run before it."""
        owners = {}  # id of each dst's allocation -> how many dsts are on it
        for d in dsts:
            k = id(d if d.base is None else d.base)
            owners[k] = owners.get(k, 0) + 1
        run, sfx = [], None
        for d, s in zip(dsts, srcs):
            t = _SFX.get(d.dtype)
            if (t in ("f32", "f64") and s.dtype == d.dtype and s.shape == d.shape
                    and owners[id(d if d.base is None else d.base)] == 1
                    and id(s if s.base is None else s.base) not in owners
                    and d.flags.c_contiguous and s.flags.c_contiguous):
                if not d.size:
                    continue
                if t != sfx or len(run) == AXPY_LIST_MAX:
                    self._axpy_list(sfx, run, alpha)
                    run, sfx = [], t
                run.append((d, s))
            else:
                self._axpy_list(sfx, run, alpha)
                run = []
                self.axpy(d, s, alpha)
        self._axpy_list(sfx, run, alpha)

    def _axpy_list(self, sfx, pairs, alpha):
        if not pairs:
            return
        if len(pairs) == 1:
            self.axpy(pairs[0][0], pairs[0][1], alpha)
            return
        null = np.uint64(0)
        args = [_CTYPE[sfx](alpha), np.int32(len(pairs))]
        for d, s in pairs:
            args += (s, d, np.int64(d.size))
        args += (null, null, np.int64(0)) * (AXPY_LIST_MAX - len(pairs))
        self._launch("elementwise.cu", f"axpy_list_{sfx}", self._grid(max(d.size for d, _ in pairs)),
                     (BLOCK,), tuple(args))

    def foreach_adam(self, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, *, lr, beta1, beta2,
                     eps, weight_decay, decoupled, maximize):
        """The NumPy backend's foreach_adam, with its bits: up to ADAM_LIST_MAX parameters per
        adam_list launch (torch's fused Adam); see _foreach_update for which ones share one."""
        ams = max_exp_avg_sqs is not None
        w = 1 - beta1
        flags = ((_ADAM_MAXIMIZE if maximize else 0) | (_ADAM_L2 if weight_decay != 0 and not decoupled else 0)
                 | (_ADAM_AMSGRAD if ams else 0) | (0 if abs(w) < 0.5 else _ADAM_LERP_END))
        hyper = (w if abs(w) < 0.5 else 1 - w, beta2, 1 - beta2, weight_decay,
                 1 - lr * weight_decay if weight_decay != 0 and decoupled else 1.0, eps)
        slots = [((p, grads[i], exp_avgs[i], exp_avg_sqs[i], max_exp_avg_sqs[i] if ams else None),
                  (-(lr / (1 - beta1 ** steps[i])), (1 - beta2 ** steps[i]) ** 0.5)) for i, p in enumerate(params)]

        def launch(sfx, run):
            c = _CTYPE[sfx]
            args = [c(x) for x in hyper] + [np.int32(flags), np.int32(len(run))]
            for (p, g, m, v, vm), (neg_step, bc2) in run:
                args += (p, g, m, v, _NULL if vm is None else vm, np.int64(p.size), c(neg_step), c(bc2))
            args += ((_NULL,) * 5 + (np.int64(0), c(0), c(0))) * (ADAM_LIST_MAX - len(run))
            self._launch("elementwise.cu", f"adam_list_{sfx}", self._grid(max(s[0][0].size for s in run)),
                         (BLOCK,), tuple(args))
        self._foreach_update(slots, ADAM_LIST_MAX, launch)

    def foreach_sgd(self, params, grads, momentum_buffers, firsts, *, lr, momentum, dampening, weight_decay,
                    nesterov, maximize):
        """The NumPy backend's foreach_sgd, with its bits: up to SGD_LIST_MAX parameters per
        sgd_list launch; see _foreach_update for which ones share one."""
        flags = ((_SGD_MAXIMIZE if maximize else 0) | (_SGD_L2 if weight_decay else 0)
                 | (_SGD_MOMENTUM if momentum else 0) | (_SGD_NESTEROV if momentum and nesterov else 0)
                 | (_SGD_DAMPENING if momentum and dampening != 0 else 0))
        hyper = (lr, momentum, 1 - dampening, weight_decay)
        slots = [((p, grads[i], momentum_buffers[i] if momentum else None), bool(momentum and firsts[i]))
                 for i, p in enumerate(params)]

        def launch(sfx, run):
            c = _CTYPE[sfx]
            args = [c(x) for x in hyper] + [np.int32(flags), np.int32(len(run))]
            for (p, g, buf), first in run:
                args += (p, g, _NULL if buf is None else buf, np.int64(p.size), np.int32(first))
            args += (_NULL, _NULL, _NULL, np.int64(0), np.int32(0)) * (SGD_LIST_MAX - len(run))
            self._launch("elementwise.cu", f"sgd_list_{sfx}", self._grid(max(s[0][0].size for s in run)),
                         (BLOCK,), tuple(args))
        self._foreach_update(slots, SGD_LIST_MAX, launch)

    def foreach_rmsprop(self, params, grads, square_avgs, grad_avgs, momentum_buffers, *, lr, alpha, eps,
                        weight_decay, momentum, centered, maximize):
        """The NumPy backend's foreach_rmsprop, with its bits: up to RMSPROP_LIST_MAX parameters
        per rmsprop_list launch; see _foreach_update for which ones share one."""
        w = 1 - alpha
        flags = ((_RMSPROP_MAXIMIZE if maximize else 0) | (_RMSPROP_L2 if weight_decay != 0 else 0)
                 | (_RMSPROP_CENTERED if centered else 0) | (_RMSPROP_MOMENTUM if momentum > 0 else 0)
                 | (0 if abs(w) < 0.5 else _RMSPROP_LERP_END))
        hyper = (lr, alpha, 1 - alpha, w if abs(w) < 0.5 else 1 - w, eps, weight_decay, momentum)
        slots = [((p, grads[i], square_avgs[i], grad_avgs[i] if centered else None,
                   momentum_buffers[i] if momentum > 0 else None), ()) for i, p in enumerate(params)]

        def launch(sfx, run):
            c = _CTYPE[sfx]
            args = [c(x) for x in hyper] + [np.int32(flags), np.int32(len(run))]
            for arrays, _ in run:
                args += tuple(_NULL if a is None else a for a in arrays) + (np.int64(arrays[0].size),)
            args += ((_NULL,) * 5 + (np.int64(0),)) * (RMSPROP_LIST_MAX - len(run))
            self._launch("elementwise.cu", f"rmsprop_list_{sfx}", self._grid(max(s[0][0].size for s in run)),
                         (BLOCK,), tuple(args))
        self._foreach_update(slots, RMSPROP_LIST_MAX, launch)

    def foreach_adagrad(self, params, grads, state_sums, steps, *, lr, lr_decay, eps, weight_decay, maximize):
        """The NumPy backend's foreach_adagrad, with its bits: up to ADAGRAD_LIST_MAX parameters
        per adagrad_list launch; see _foreach_update for which ones share one."""
        flags = (_ADAGRAD_MAXIMIZE if maximize else 0) | (_ADAGRAD_L2 if weight_decay != 0 else 0)
        slots = [((p, grads[i], state_sums[i]), -(lr / (1 + (steps[i] - 1) * lr_decay)))
                 for i, p in enumerate(params)]

        def launch(sfx, run):
            c = _CTYPE[sfx]
            args = [c(eps), c(weight_decay), np.int32(flags), np.int32(len(run))]
            for (p, g, ss), neg_clr in run:
                args += (p, g, ss, np.int64(p.size), c(neg_clr))
            args += (_NULL, _NULL, _NULL, np.int64(0), c(0)) * (ADAGRAD_LIST_MAX - len(run))
            self._launch("elementwise.cu", f"adagrad_list_{sfx}", self._grid(max(s[0][0].size for s in run)),
                         (BLOCK,), tuple(args))
        self._foreach_update(slots, ADAGRAD_LIST_MAX, launch)

    def _foreach_update(self, slots, most, launch):
        """An optimizer's update of several parameters: slots are ((p, g, *state), scalars), the
        state arrays (None when unused) and p written in place, g read. launch(sfx, run) makes
        one list-kernel launch over up to `most` slots, which it updates concurrently, so a
        parameter joins a run only when its memory cannot meet another's (as in foreach_axpy):
        each array written is the only one written on its allocation, the gradient is on none
        of them, and all are contiguous floats of one shape and dtype. Any other parameter gets
        a launch of its own, in order, on contiguous copies where needed."""
        owners = {}  # id of each written array's allocation -> how many written arrays are on it
        for arrays, _ in slots:
            for a in arrays[:1] + arrays[2:]:
                if a is not None:
                    k = id(a if a.base is None else a.base)
                    owners[k] = owners.get(k, 0) + 1
        run, sfx = [], None
        for slot in slots:
            arrays = slot[0]
            p, g = arrays[0], arrays[1]
            written = [a for a in arrays[:1] + arrays[2:] if a is not None]
            dt = _SFX.get(p.dtype)
            if (dt in ("f32", "f64") and g.dtype == p.dtype and g.shape == p.shape and g.flags.c_contiguous
                    and id(g if g.base is None else g.base) not in owners
                    and all(a.dtype == p.dtype and a.shape == p.shape and a.flags.c_contiguous
                            and owners[id(a if a.base is None else a.base)] == 1 for a in written)):
                if not p.size:
                    continue
                if dt != sfx or len(run) == most:
                    if run:
                        launch(sfx, run)
                    run, sfx = [], dt
                run.append(slot)
            else:
                if run:
                    launch(sfx, run)
                run = []
                self._update_alone(slot, launch)
        if run:
            launch(sfx, run)

    def _update_alone(self, slot, launch):
        """One parameter whose arrays may be strided, of another dtype or shape, or overlapping:
        each array that is not contiguous of the parameter's dtype and shape, or meets another
        array of the slot, is replaced by a contiguous copy, and the copies written are copied
        back after the launch."""
        arrays, scalars = slot
        p = arrays[0]
        if not p.size:
            return
        dt = p.dtype
        if _SFX.get(dt) not in ("f32", "f64"):
            raise TypeError(f"the optimizer's update needs floating-point parameters, got {dt}")
        used = [a for a in arrays if a is not None]
        work = list(arrays)
        for j, a in enumerate(arrays):
            if a is not None and (a.dtype != dt or a.shape != p.shape or not a.flags.c_contiguous
                                  or any(b is not a and _overlaps(a, b) for b in used)):
                work[j] = self.empty(p.shape, dt)
                self.copyto(work[j], a)
        launch(_SFX[dt], [(tuple(work), scalars)])
        for j, a in enumerate(arrays):
            if j != 1 and a is not None and work[j] is not a:   # never the gradient
                self.copyto(a, work[j])

    def vdot(self, a, b):
        """The sum of a * b over every element, as a 0-d array: one dot_rows launch for float
        arrays (the products are never stored), with the bits of mul then sum; two for long
        ones, split as sum's row reduction splits them."""
        dt = np.result_type(a.dtype, b.dtype)
        if dt.kind != "f" or a.shape != b.shape:
            return self.sum(self.mul(a, b))
        a, b = self._as_contiguous(a, dt), self._as_contiguous(b, dt)
        n, sfx = a.size, _SFX[dt]
        if n == 0:
            return self.zeros((), dt)
        out = self.empty((), dt)
        rows, cols = 1, n
        if n >= 1 << 16 and self.sm_count > 1:   # as _reduce splits one long row: (k, n / k) first
            k = next((k for k in (1024, 512, 256, 128, 64, 32) if n % k == 0), 1)
            rows, cols = k, n // k
        partial = out if rows == 1 else self.empty((rows,), dt)
        grid, block = row_launch(rows, cols)
        self._launch("reduce.cu", f"dot_rows_{sfx}", grid, block, (a, b, partial, np.int64(rows), np.int64(cols)))
        if rows == 1:
            return out
        return self._reduce_rows("sum", partial.reshape(1, rows), None).reshape(())

    def binary_inplace(self, name, dst, src):
        """dst = dst (op) src in dst's memory (src broadcast to dst, cast to dst's dtype)."""
        if isinstance(src, cp.ndarray):
            if np.broadcast_shapes(dst.shape, src.shape) != dst.shape:
                raise ValueError(f"non-broadcastable output operand with shape {dst.shape} doesn't match "
                                 f"the broadcast shape {np.broadcast_shapes(dst.shape, src.shape)}")
            if src.dtype != dst.dtype:
                src = self.astype(src, dst.dtype)
            elif _overlaps(src, dst) and (src.data.ptr, src.strides, src.shape) != \
                    (dst.data.ptr, dst.strides, dst.shape):
                src = self.copy(src)  # x.add_(x.t()): read a copy, not memory being written
        elif not isinstance(src, cp.ndarray):
            src = dst.dtype.type(src).item()  # keep the result in dst's dtype
        if dst.flags.c_contiguous:
            self._binary(name, dst, src, out=dst)
        else:
            self.copyto(dst, self._binary(name, dst, src))

    def iadd(self, dst, src):
        self.binary_inplace("add", dst, src)

    def where(self, cond, a, b):
        if not isinstance(cond, cp.ndarray):
            cond = self.full((), bool(cond), np.bool_)
        dt = np.result_type(a.dtype, b.dtype)
        a = a if a.dtype == dt else self.astype(a, dt)
        b = b if b.dtype == dt else self.astype(b, dt)
        shape = np.broadcast_shapes(cond.shape, a.shape, b.shape)
        if cond.flags.c_contiguous and a.flags.c_contiguous and b.flags.c_contiguous:
            out, order = self.empty(shape, dt), None
        else:
            out, order = self._laid_out_result(shape, dt, cond, a, b)
        n = out.size
        if n:
            dst = out
            if order is not None:
                nd = len(shape)
                dst, cond, a, b = (out.transpose(order), self._permuted(cond, nd, order),
                                   self._permuted(a, nd, order), self._permuted(b, nd, order))
                shape = dst.shape
            meta = self._meta(shape, self._strides_for(cond, shape), self._strides_for(a, shape),
                              self._strides_for(b, shape))
            self._launch("elementwise.cu", f"where_strided_{_SFX[np.dtype(dt)]}", self._grid(n), (BLOCK,),
                         (cond, a, b, dst, np.int64(n), meta, np.int32(len(shape))))
        return out

    def clip(self, a, lo, hi):
        sfx = _SFX[a.dtype]
        ct = _CTYPE[sfx]
        if a.flags.c_contiguous:
            out = dst = self.empty(a.shape, a.dtype)
        else:  # out takes torch's layout; the kernel walks out's memory in order
            out, order = self._laid_out_result(a.shape, a.dtype, a)
            dst = out
            if order is not None:
                a, dst = a.transpose(order), out.transpose(order)
            a = self.ascontiguous(a)
        if a.size:
            self._launch("elementwise.cu", f"clip_{sfx}", self._grid(a.size), (BLOCK,),
                         (a, dst, np.int64(a.size), ct(0 if lo is None else lo), ct(0 if hi is None else hi),
                          np.int32(lo is not None), np.int32(hi is not None)))
        return out

    # ---- reductions -------------------------------------------------------------------------------
    def _rows(self, a, axes):
        """a with the reduced axes moved last and made contiguous, as (rows, cols), plus the kept shape."""
        axes = tuple(range(a.ndim)) if axes is None else tuple(ax % a.ndim for ax in axes) if a.ndim else ()
        kept = [ax for ax in range(a.ndim) if ax not in axes]
        perm = kept + list(axes)
        x = a.transpose(perm) if perm != list(range(a.ndim)) else a
        x = self.ascontiguous(x)
        rows = _prod(a.shape[ax] for ax in kept)
        cols = _prod(a.shape[ax] for ax in axes)
        return x.reshape(rows, cols), [a.shape[ax] for ax in kept], axes

    def _cols(self, a, axes):
        """(outer, red, inner) when a is C-contiguous and its reduced axes are one run of dims
        with others after them (a sum over the batch dims, as for a bias gradient): the column
        kernels reduce it in place, without the transposed copy the row kernels need. None
        when the row kernels do better: nothing after the run, or a few very long columns."""
        if not axes or not a.flags.c_contiguous:
            return None
        j, k = min(axes), max(axes) + 1
        if k - j != len(axes) or k == a.ndim:
            return None
        outer, red, inner = _prod(a.shape[:j]), _prod(a.shape[j:k]), _prod(a.shape[k:])
        if inner == 1:
            return None
        grid, block = col_launch(outer, inner)
        if red > 64 * block[1] and grid[0] < self.sm_count // 2:
            return None  # each thread would walk a long column: transposing and splitting rows is faster
        return outer, red, inner

    def _reduce(self, kind, a, axis, keepdims, out_dtype=None):
        """kind: sum, prod, mean, max, min, argmax or argmin over axis (a tuple, or None for all)."""
        axes = tuple(range(a.ndim)) if axis is None else tuple(ax % a.ndim for ax in axis) if a.ndim else ()
        if keepdims:
            shape = tuple(1 if ax in axes else s for ax, s in enumerate(a.shape))
        else:
            shape = tuple(s for ax, s in enumerate(a.shape) if ax not in axes)
        plan = self._cols(a, axes) if kind in ("sum", "prod", "mean", "max", "min") else None
        if plan is not None:
            outer, red, inner = plan
            if red == 0 and kind in ("max", "min"):
                raise RuntimeError(f"{kind}(): cannot reduce over an empty dimension")
            out = self.empty((outer * inner,), out_dtype or a.dtype)
            if outer * inner:
                sfx = _SFX[a.dtype]
                args = (a, out, np.int64(outer), np.int64(red), np.int64(inner))
                if kind == "mean":
                    args += (_CTYPE[sfx](red),)
                grid, block = col_launch(outer, inner)
                self._launch("reduce.cu", f"{kind}_cols_{sfx}", grid, block, args)
            return out.reshape(shape)
        x, _, _ = self._rows(a, axes)
        rows, cols = x.shape
        count = cols
        if kind in ("sum", "prod", "mean", "max", "min") and rows < self.sm_count and cols >= 1 << 16:
            # a few long rows: one block per row would leave the GPU idle, so reduce
            # (rows * k, cols / k) first, then the k partial results of each row
            k = next((k for k in (1024, 512, 256, 128, 64, 32) if cols % k == 0), 1)
            if k > 1:
                first = "sum" if kind == "mean" else kind
                x = self._reduce_rows(first, x.reshape(rows * k, cols // k), None).reshape(rows, k)
                cols = k
        if cols == 0 and kind not in ("sum", "prod", "mean"):
            raise RuntimeError(f"{kind}(): cannot reduce over an empty dimension")
        return self._reduce_rows(kind, x, out_dtype, count).reshape(shape)

    def _reduce_rows(self, kind, x, out_dtype, count=None):
        """One launch: each row of the contiguous (rows, cols) x reduced to one value; a mean
        divides by count (the length of the original rows)."""
        rows, cols = x.shape
        out = self.empty((rows,), out_dtype or x.dtype)
        if rows:
            grid, block = row_launch(rows, cols)
            sfx = _SFX[x.dtype]
            args = (x, out, np.int64(rows), np.int64(cols))
            if kind == "mean":
                args += (_CTYPE[sfx](cols if count is None else count),)
            self._launch("reduce.cu", f"{kind}_rows_{sfx}", grid, block, args)
        return out

    def mean(self, a, axis=None, keepdims=False):
        """The sum over axis divided by the count, in one launch (nan where the count is 0)."""
        return self._reduce("mean", a, axis, keepdims)

    def sum(self, a, axis=None, keepdims=False, dtype=None):
        if dtype is not None and a.dtype != dtype:
            a = self.astype(a, dtype)
        if a.dtype.kind in "biu" and a.dtype != np.int64:
            a = self.astype(a, np.int64)  # integer sums accumulate in int64, as in NumPy and torch
        out = self._reduce("sum", a, axis, keepdims)  # an empty row sums to 0 in the kernel
        return out if dtype is None or out.dtype == dtype else self.astype(out, dtype)

    def prod(self, a, axis=None, keepdims=False):
        """The product over axis; integers and bools multiply in int64, wrapping as torch's."""
        if a.dtype.kind in "biu" and a.dtype != np.int64:
            a = self.astype(a, np.int64)
        return self._reduce("prod", a, axis, keepdims)  # an empty row's product is 1

    def _scan(self, kind, a, axis, reverse=False):
        """cumsum or cumprod (one output), or cummax or cummin (values and int64 indices) along
        axis (scan.cu). A contiguous (outer, n, inner) view of the input: the last axis (inner ==
        1) is scanned by rows; a middle one in place by the column kernel, one thread per column,
        when there are enough columns (or they are short), else moved last (a transposed copy)
        and scanned by rows, the result moved back as a view."""
        arg = kind in ("cummax", "cummin")
        if arg and a.dtype == np.bool_:
            values, indices = self._scan(kind, self.astype(a, np.int32), axis)
            return self.astype(values, np.bool_), indices
        if not arg and a.dtype.kind in "biu" and a.dtype != np.int64:
            a = self.astype(a, np.int64)
        if a.ndim == 0:
            r = self._scan(kind, a.reshape(1), 0, reverse)
            return tuple(x.reshape(()) for x in r) if arg else r.reshape(())
        axis %= a.ndim
        a = self.ascontiguous(a)
        outs = (self.empty(a.shape, a.dtype),) + ((self.empty(a.shape, np.int64),) if arg else ())
        result = outs if arg else outs[0]
        if a.size == 0:
            return result
        n, outer, inner = a.shape[axis], _prod(a.shape[:axis]), _prod(a.shape[axis + 1:])
        name = f"{kind}_{{}}_{_SFX[a.dtype]}"
        tail = () if arg else (np.int32(bool(reverse)),)
        if inner > 1 and (outer * inner >= 4096 or n <= 64):
            grid, block = scan_col_launch(outer, inner)
            self._launch("scan.cu", name.format("cols"), grid, block,
                         (a, *outs, np.int64(outer), np.int64(n), np.int64(inner), *tail))
            return result
        if inner > 1:
            perm = [ax for ax in range(a.ndim) if ax != axis] + [axis]
            inverse = [0] * a.ndim
            for i, p in enumerate(perm):
                inverse[p] = i
            r = self._scan(kind, self.ascontiguous(a.transpose(perm)), -1, reverse)
            return tuple(x.transpose(inverse) for x in r) if arg else r.transpose(inverse)
        grid, block = scan_launch(outer, n, outer < 2 * self.sm_count and n > 1024)
        self._launch("scan.cu", name.format("rows"), grid, block, (a, *outs, np.int64(outer), np.int64(n), *tail))
        return result

    def cumsum(self, a, axis, reverse=False):
        return self._scan("cumsum", a, axis, reverse)

    def cumprod(self, a, axis, reverse=False):
        return self._scan("cumprod", a, axis, reverse)

    def cummax(self, a, axis):
        return self._scan("cummax", a, axis)

    def cummin(self, a, axis):
        return self._scan("cummin", a, axis)

    def _extreme(self, kind, a, axis, keepdims):
        if a.dtype == np.bool_:
            return self.astype(self._reduce(kind, self.astype(a, np.int32), axis, keepdims), np.bool_)
        return self._reduce(kind, a, axis, keepdims)

    def amax(self, a, axis=None, keepdims=False):
        return self._extreme("max", a, axis, keepdims)

    def amin(self, a, axis=None, keepdims=False):
        return self._extreme("min", a, axis, keepdims)

    def _arg(self, kind, a, axis, keepdims):
        if a.dtype == np.bool_:
            a = self.astype(a, np.int32)
        if axis is None:
            out = self._reduce(kind, a.reshape(-1), (0,), False, out_dtype=np.int64)
            return out.reshape((1,) * a.ndim) if keepdims else out
        return self._reduce(kind, a, (axis,), keepdims, out_dtype=np.int64)

    def argmax(self, a, axis=None, keepdims=False):
        return self._arg("argmax", a, axis, keepdims)

    def argmin(self, a, axis=None, keepdims=False):
        return self._arg("argmin", a, axis, keepdims)

    def sort(self, a, axis, descending):
        """(values, int64 indices) of a sorted along axis (moved last and made contiguous): each
        tile of SORT_TILE elements of a row sorted in shared memory (a whole row when it fits),
        then log2(cols / tile) merge passes over global memory. Stable, NaN last (first when
        descending), as the NumPy backend."""
        if a.ndim == 0:
            return self.copy(a), self.zeros((), np.int64)
        axis %= a.ndim
        perm = [ax for ax in range(a.ndim) if ax != axis] + [axis]
        x = self.ascontiguous(a.transpose(perm) if axis != a.ndim - 1 else a)
        cols = a.shape[axis]
        rows = a.size // cols if cols else 0
        vals, idx = self.empty(x.shape, x.dtype), self.empty(x.shape, np.int64)
        if rows and cols:
            sfx, direction = _SFX[x.dtype], "desc" if descending else "asc"
            tile = SORT_TILE[sfx]
            width = min(cols, tile)
            threads = min(max((1 << (width - 1).bit_length()) // 2, 32), SORT_THREADS)  # a comparator each
            tiles = rows * -(-cols // tile)
            self._launch("sort.cu", f"sort_{direction}_tiles_{sfx}", (min(tiles, 2 ** 31 - 1),), (threads,),
                         (x, vals, idx, np.int64(rows), np.int64(cols)))
            if cols > tile:
                other = (self.empty(x.shape, x.dtype), self.empty(x.shape, np.int64))
                grid = self._grid(rows * cols)
                while width < cols:
                    self._launch("sort.cu", f"sort_{direction}_merge_{sfx}", grid, (BLOCK,),
                                 (vals, idx, *other, np.int64(rows), np.int64(cols), np.int64(width)))
                    (vals, idx), other = other, (vals, idx)
                    width *= 2
        if axis == a.ndim - 1:
            return vals, idx
        inverse = [0] * a.ndim
        for i, p in enumerate(perm):
            inverse[p] = i
        return vals.transpose(inverse), idx.transpose(inverse)

    def _softmax(self, kind, axis, *arrays):
        """A softmax-family row kernel over `axis` of same-shaped arrays (moved last, made
        contiguous, and moved back in the result)."""
        a = arrays[0]
        if a.ndim == 0:
            return self._softmax(kind, 0, *(x.reshape(1) for x in arrays)).reshape(())
        axis %= a.ndim
        perm = [ax for ax in range(a.ndim) if ax != axis] + [axis]
        xs = [self.ascontiguous(x.transpose(perm)) for x in arrays]
        cols = a.shape[axis]
        rows = a.size // cols if cols else 0
        out = self.empty(xs[0].shape, xs[0].dtype)
        if rows and cols:
            grid, block = row_launch(rows, cols)
            self._launch("softmax.cu", f"{kind}_rows_{_SFX[a.dtype]}", grid, block,
                         (*xs, out, np.int64(rows), np.int64(cols)))
        inverse = [0] * a.ndim
        for i, p in enumerate(perm):
            inverse[p] = i
        return out.transpose(inverse)

    def softmax(self, a, axis):
        return self._softmax("softmax", axis, a)

    def log_softmax(self, a, axis):
        return self._softmax("log_softmax", axis, a)

    def softmax_backward(self, g, y, axis):
        return self._softmax("softmax_backward", axis, g, y)

    def log_softmax_backward(self, g, y, axis):
        return self._softmax("log_softmax_backward", axis, g, y)

    def cross_entropy(self, x, target):
        """(loss per row, stats (2, rows): the row maxima m and the sums of exp(x - m))."""
        x, target = self.ascontiguous(x), self._as_contiguous(target, np.int64)
        rows, cols = x.shape
        loss, stats = self.empty((rows,), x.dtype), self.empty((2, rows), x.dtype)
        if rows:
            grid, block = row_launch(rows, cols)
            self._launch("softmax.cu", f"cross_entropy_fwd_{_SFX[x.dtype]}", grid, block,
                         (x, target, loss, stats, np.int64(rows), np.int64(cols)))
        return loss, stats

    def cross_entropy_backward(self, x, target, stats, gscale, divisor=1):
        """gscale: a one-element array on this device, the kernel reads it there (no host sync),
        and divides it by divisor (a mean's count) itself."""
        x, target = self.ascontiguous(x), self._as_contiguous(target, np.int64)
        rows, cols = x.shape
        dx = self.empty(x.shape, x.dtype)
        if rows:
            grid, block = row_launch(rows, cols)
            self._launch("softmax.cu", f"cross_entropy_bwd_{_SFX[x.dtype]}", grid, block,
                         (x, target, self.ascontiguous(stats), self._as_contiguous(gscale, x.dtype),
                          _CTYPE[_SFX[x.dtype]](divisor), dx, np.int64(rows), np.int64(cols)))
        return dx

    def _norm_affine(self, p, n, dtype, value):
        """A layer norm's weight or bias as a contiguous (n,) array (value's fill when None)."""
        return self.full((n,), value, dtype) if p is None else self._as_contiguous(p, dtype)

    def layer_norm(self, x, weight, bias, eps):
        """(y, mean, rstd) over the last axis of x (M, N): one norm.cu launch."""
        x = self.ascontiguous(x)
        rows, cols = x.shape
        sfx = _SFX[x.dtype]
        y, mean, rstd = self.empty(x.shape, x.dtype), self.empty((rows,), x.dtype), self.empty((rows,), x.dtype)
        if rows:
            grid, block = row_launch(rows, cols)
            self._launch("norm.cu", f"layer_norm_fwd_{sfx}", grid, block,
                         (x, self._norm_affine(weight, cols, x.dtype, 1), self._norm_affine(bias, cols, x.dtype, 0),
                          y, mean, rstd, np.int64(rows), np.int64(cols), _CTYPE[sfx](eps)))
        return y, mean, rstd

    def layer_norm_backward(self, g, x, mean, rstd, weight):
        x = self.ascontiguous(x)
        rows, cols = x.shape
        sfx = _SFX[x.dtype]
        dx = self.empty(x.shape, x.dtype)
        if rows:
            grid, block = row_launch(rows, cols)
            self._launch("norm.cu", f"layer_norm_bwd_{sfx}", grid, block,
                         (self._as_contiguous(g, x.dtype), x, self._as_contiguous(mean, x.dtype),
                          self._as_contiguous(rstd, x.dtype), self._norm_affine(weight, cols, x.dtype, 1),
                          dx, np.int64(rows), np.int64(cols)))
        return dx

    def _as_contiguous(self, a, dtype):
        """a as a C-contiguous array of dtype, copied only where it is not one already."""
        return self.ascontiguous(a if a.dtype == dtype else self.astype(a, dtype))

    # ---- matmul ---------------------------------------------------------------------------------
    @staticmethod
    def _layout(x):
        """('n' or 't', leading dim) reading x's last two dims (r, c) where they are, or None
        when neither has unit stride with the other spanning it (then x needs a copy)."""
        r, c = x.shape[-2:]
        item = x.itemsize
        sr, sc = x.strides[-2] // item, x.strides[-1] // item
        if (sc == 1 or c == 1) and (sr >= max(c, 1) or r == 1):
            return "n", max(sr if r > 1 else c, 1)
        if (sr == 1 or r == 1) and (sc >= max(r, 1) or c == 1):
            return "t", max(sc if c > 1 else r, 1)
        return None

    def _operand(self, x, batch):
        """x (..., r, c) as (array, batch stride, 'n'|'t', leading dim), with its batch dims
        broadcast to `batch` and flattened to one stride; copies only when the layout demands."""
        r, c = x.shape[-2:]
        if x.ndim == 2 and not batch:
            xb, bstride = x, 0
        else:
            xb = cp.broadcast_to(x, tuple(batch) + (r, c)) if x.ndim - 2 != len(batch) or x.shape[:-2] != tuple(batch) else x
            item = x.itemsize
            bdims = [(s, st // item) for s, st in zip(xb.shape[:-2], xb.strides[:-2]) if s != 1]
            if not bdims or all(st == 0 for _, st in bdims):
                bstride = 0
            elif all(bdims[k][1] == bdims[k + 1][1] * bdims[k + 1][0] for k in range(len(bdims) - 1)):
                bstride = bdims[-1][1]
            else:
                xb = self.ascontiguous(xb)
                bstride = r * c
        layout = self._layout(xb)
        if layout is not None:
            return xb, bstride, layout[0], layout[1]
        xb = self.ascontiguous(xb)
        return xb, (r * c if bstride else 0), "n", max(c, 1)

    # ---- dense factorizations (kernels/linalg.cu: one block per matrix of the batch) ------------
    def _linalg(self, kname, a, *args):
        grid = (max(1, min(_prod(a.shape[:-2]), self.sm_count * 32, 2 ** 31 - 1)),)
        self._launch("linalg.cu", f"{kname}_{_SFX[a.dtype]}", grid, (LINALG_THREADS, 1, 1), args)

    def lu_factor(self, a):
        """(lu, int32 pivots, int32 info) of a float (..., m, n): getrf's, see kernels/linalg.cu."""
        m, n = a.shape[-2:]
        lu = self.copy(a)
        piv = self.zeros(a.shape[:-2] + (min(m, n),), np.int32)
        info = self.zeros(a.shape[:-2], np.int32)
        batch = _prod(a.shape[:-2])
        if batch and m and n:
            self._linalg("lu_factor", lu, lu, piv, info, np.int64(batch), np.int64(m), np.int64(n))
        return lu, piv, info

    def lu_solve(self, lu, piv, b, adjoint):
        """X with A X = B (adjoint: A^T X = B), A = P L U given by lu_factor; b (..., n, k) with
        lu's batch shape."""
        n, k = b.shape[-2:]
        x = self.copy(b)
        batch = _prod(b.shape[:-2])
        if batch and n and k:
            self._linalg("lu_solve", x, self.ascontiguous(lu), self.ascontiguous(piv), x, np.int64(batch),
                         np.int64(n), np.int64(k), np.int32(bool(adjoint)))
        return x

    def triangular_solve(self, a, b, lower, trans, unit):
        """X with M X = B, M = a (trans: a^T) lower or upper triangular, unit diagonal or not."""
        n, k = b.shape[-2:]
        x = self.copy(b)
        batch = _prod(b.shape[:-2])
        if batch and n and k:
            self._linalg("trsm", x, self.ascontiguous(a), x, np.int64(batch), np.int64(n), np.int64(k),
                         np.int32(bool(lower)), np.int32(bool(trans)), np.int32(bool(unit)))
        return x

    def cholesky(self, a):
        """(L, int32 info): the lower Cholesky factor of a's lower triangle (potrf's info)."""
        n = a.shape[-1]
        x = self.copy(a)
        info = self.zeros(a.shape[:-2], np.int32)
        batch = _prod(a.shape[:-2])
        if batch and n:
            self._linalg("cholesky", x, x, info, np.int64(batch), np.int64(n))
        return x, info

    # ---- orthogonal factorizations (kernels/linalg_eig.cu: Jacobi / Householder, one block per matrix) --
    def _linalg_eig(self, kname, a, n, args):
        batch = _prod(a.shape[:-2])
        grid = (max(1, min(batch, self.sm_count * 32, 2 ** 31 - 1)),)
        self._launch("linalg_eig.cu", f"{kname}_{_SFX[a.dtype]}", grid, (linalg_eig_threads(n), 1, 1),
                     args)

    def _stack_t(self, a):
        """The matrices of a (..., m, n) transposed, as a fresh contiguous (batch, n, m) array (the
        kernels work in it in place)."""
        m, n = a.shape[-2:]
        t = self.transpose(a, tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2))
        x = self.ascontiguous(t)
        return (self.copy(x) if x is t or x is a else x).reshape((-1, n, m))

    def eigh(self, a, upper):
        """(eigenvalues ascending, eigenvectors) by the eigh kernel (cyclic Jacobi)."""
        n, batch = a.shape[-1], a.shape[:-2]
        w, v = self.empty(batch + (n,), a.dtype), self.empty(a.shape, a.dtype)
        nb = _prod(batch)
        if nb and n:
            x = self.ascontiguous(a)
            work = self.empty(a.shape, a.dtype)
            self._linalg_eig("eigh", a, n, (x, work, w, v, np.int64(nb), np.int64(n), np.int32(bool(upper))))
        return w, v

    def svd(self, a, full_matrices, compute_uv):
        """(U, S, Vh) by the svd kernel (one-sided Jacobi) on A^T, or on A for a wide A (whose
        SVD's U and V trade places)."""
        m, n = a.shape[-2:]
        batch = a.shape[:-2]
        nb = _prod(batch)
        wide = m < n
        if wide:  # A^T = V S U^T: the kernel's m >= n case
            a = self.transpose(a, tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2))
            m, n = n, m
        ucols = m if full_matrices else n
        s = self.empty(batch + (n,), a.dtype)
        ut, vt = self.empty(batch + (ucols, m), a.dtype), self.empty(batch + (n, n), a.dtype)
        if nb and n:
            g = self._stack_t(a)
            self._linalg_eig("svd", a, n, (g, s, ut, vt, np.int64(nb), np.int64(m), np.int64(n), np.int64(ucols)))
        elif nb:  # m x 0: U is the identity
            ut = self.ascontiguous(self.broadcast_to(self.eye(ucols, m, a.dtype), batch + (ucols, m)))
        if not compute_uv:
            return None, s, None
        swap = tuple(range(len(batch))) + (len(batch) + 1, len(batch))
        if wide:  # U = the kernel's V, Vh = the kernel's U^T
            return self.ascontiguous(self.transpose(vt, swap)), s, ut
        return self.ascontiguous(self.transpose(ut, swap)), s, vt

    def qr(self, a, mode):
        """(Q or None, R) by the qr kernel (Householder, LAPACK's geqrf + orgqr)."""
        m, n = a.shape[-2:]
        batch, k = a.shape[:-2], min(m, n)
        nb = _prod(batch)
        qcols = 0 if mode == "r" else m if mode == "complete" else k
        rrows = m if mode == "complete" else k
        r = self.empty(batch + (rrows, n), a.dtype)
        qt = self.empty(batch + (qcols, m), a.dtype)
        if nb and m and n:
            at = self._stack_t(a)
            tau = self.empty(batch + (k,), a.dtype)
            self._linalg_eig("qr", a, n, (at, tau, qt if qcols else r, r, np.int64(nb), np.int64(m), np.int64(n),
                                          np.int64(qcols), np.int64(rrows)))
        elif nb:  # an empty matrix: Q the identity's columns, R zeros
            r = self.zeros(batch + (rrows, n), a.dtype)
            qt = self.ascontiguous(self.broadcast_to(self.eye(qcols, m, a.dtype), batch + (qcols, m)))
        if mode == "r":
            return None, r
        return self.ascontiguous(self.transpose(qt, tuple(range(len(batch))) + (len(batch) + 1, len(batch)))), r

    def matmul(self, a, b, bias=None):
        if bias is not None:
            _check_bias(a, b, bias)
        if a.dtype != b.dtype:
            dt = np.result_type(a.dtype, b.dtype)
            a, b = self.astype(a, dt), self.astype(b, dt)
        if a.dtype.kind != "f":
            names = {"i": "Long" if a.dtype.itemsize == 8 else "Int", "b": "Bool"}
            raise RuntimeError(f"\"addmm_cuda\" not implemented for '{names.get(a.dtype.kind, a.dtype.name)}'")
        if a.ndim == 2 and b.ndim == 2:  # the common case (every nn.Linear), without the batch logic
            M, K = a.shape
            N = b.shape[1]
            C = self.empty((M, N), a.dtype)
            batch, nb = (), 1
            A, B = a, b
        else:
            a1, b1 = a.ndim == 1, b.ndim == 1
            A = a.reshape(1, -1) if a1 else a
            B = b.reshape(-1, 1) if b1 else b
            M, K = A.shape[-2:]
            N = B.shape[-1]
            batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
            nb = _prod(batch)
            C = self.empty(tuple(batch) + (M, N), a.dtype)
        if C.size:
            if K == 0 and bias is None:
                self.copyto(C, self.zeros((), a.dtype))
            else:  # the kernel adds the bias in its epilogue (and writes it alone when K == 0)
                self._gemm(_SFX[a.dtype], self._operand(A, batch), self._operand(B, batch), C, nb, M, N, K,
                           None if bias is None else self.ascontiguous(bias))
        if a.ndim == 1:
            C = C.reshape(C.shape[:-2] + (N,))
        if b.ndim == 1:
            C = C.reshape(C.shape[:-1])
        return C

    def _gemm(self, sfx, opA, opB, C, nb, M, N, K, bias=None):
        """C (nb, M, N), contiguous, = op(A) @ op(B) (+ bias), with the operands as _operand gives them."""
        Ab, sA, ta, lda = opA
        Bb, sB, tb, ldb = opB
        key = (sfx, ta, tb, nb, M, N, K, lda, ldb, sA, sB, self.sm_count)
        plan = self._gemm_plans.get(key)
        if plan is None:
            plan = self._gemm_plan(key)
        biasp = np.uint64(0 if bias is None else bias.data.ptr)  # per column: the same for every launch
        item = C.itemsize
        a0, b0, c0 = Ab.data.ptr, Bb.data.ptr, C.data.ptr
        for kname, grid, threads, a_off, b_off, c_off, tail in plan:
            self._launch("matmul.cu", kname, grid, (threads,),
                         (np.uint64(a0 + a_off * item), np.uint64(b0 + b_off * item), np.uint64(c0 + c_off * item),
                          biasp) + tail)

    def _gemm_plan(self, key):
        """The launches of one GEMM shape and layout, kept per backend: (kernel, grid, threads,
        element offsets of A, B and C, the scalar arguments after the pointers) for each."""
        sfx, ta, tb, nb, M, N, K, lda, ldb, sA, sB, sm_count = key
        big, small = GEMM_TILES[sfx]
        use_big = math.ceil(M / big["bm"]) * math.ceil(N / big["bn"]) * nb >= sm_count
        cfg, kname = (big, f"gemm_{ta}{tb}_{sfx}") if use_big else (small, f"gemm_small_{ta}{tb}_{sfx}")
        plan = []
        # gridDim.y and .z stop at 65535: split rows and batches into several launches
        rows_per_launch = GRID_YZ_MAX * cfg["bm"]
        for b0 in range(0, nb, GRID_YZ_MAX):
            nbs = min(GRID_YZ_MAX, nb - b0)
            for m0 in range(0, M, rows_per_launch):
                ms = min(rows_per_launch, M - m0)
                grid = (math.ceil(N / cfg["bn"]), math.ceil(ms / cfg["bm"]), nbs)
                tail = (np.int32(ms), np.int32(N), np.int32(K), np.int64(lda), np.int64(ldb), np.int64(N),
                        np.int64(sA), np.int64(sB), np.int64(M * N))
                plan.append((kname, grid, cfg["threads"], b0 * sA + m0 * (lda if ta == "n" else 1), b0 * sB,
                             b0 * M * N + m0 * N, tail))
        if len(self._gemm_plans) > 4096:
            self._gemm_plans.clear()
        self._gemm_plans[key] = plan = tuple(plan)
        return plan

    # ---- layout -------------------------------------------------------------------------------
    def reshape(self, a, shape):
        with self.device:
            return a.reshape(shape)

    def view(self, a, shape):
        """A reshape that never copies: raises ValueError when the strides don't allow it."""
        shape = tuple(shape)
        if not (a.flags.c_contiguous or a.size == 0 or _viewable(a.shape, a.strides, shape)):
            raise ValueError("Unable to avoid creating a copy while reshaping.")
        return a.reshape(shape)

    def transpose(self, a, axes):
        return a.transpose(axes)

    def broadcast_to(self, a, shape):
        return cp.broadcast_to(a, shape)

    def _check_bounds(self, a, index, bounds=None):
        """Bounds-check integer indices as NumPy does (CuPy does not check index arrays). bounds,
        where given, holds (smallest, largest) for the index items whose bounds are known already
        (kept per tensor by the caller); others cost one device sync per index array."""
        items = index if isinstance(index, tuple) else (index,)

        def width(item):  # how many of a's dims an index item consumes
            if isinstance(item, cp.ndarray) and item.dtype == np.bool_:
                return item.ndim
            return 0 if item is None or item is Ellipsis else 1

        dim = 0
        for k, item in enumerate(items):
            if item is Ellipsis:
                dim += a.ndim - sum(width(i) for i in items)
                continue
            if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
                lo = hi = int(item)
            elif isinstance(item, cp.ndarray) and item.dtype != np.bool_ and item.size:
                if bounds is not None and bounds[k] is not None:
                    lo, hi = bounds[k]
                else:
                    both = self.concatenate([self.amin(item).reshape(1), self.amax(item).reshape(1)], 0)
                    lo, hi = (int(v) for v in self.to_numpy(both))  # one device sync per index array
            else:
                dim += width(item)
                continue
            size = a.shape[dim] if dim < a.ndim else 0
            bad = hi if hi >= size else lo if lo < -size else None
            if bad is not None:
                raise IndexError(f"index {bad} is out of bounds for axis {dim} with size {size}")
            dim += 1

    def getitem(self, a, index, bounds=None):
        self._check_bounds(a, index, bounds)
        with self.device:
            return a[index]

    def setitem(self, a, index, value, bounds=None):
        self._check_bounds(a, index, bounds)
        with self.device:
            a[index] = value

    def index_add(self, shape, index, values, dtype):
        out = self.zeros(shape, dtype)
        with self.device:
            if out.dtype == np.int64:
                # CuPy's scatter_add has no int64: add as uint64, the same bits modulo 2**64
                wide = out.astype(np.uint64)
                cupyx.scatter_add(wide, index, values.astype(np.uint64))
                return wide.astype(np.int64)
            cupyx.scatter_add(out, index, values)
        return out

    def index_reduce(self, out, index, values, op):
        # the flat positions of the advanced index in out (contiguous), by our elementwise
        # kernels; bools reduce as int32 (prod and amin are and, amax is or)
        if out.size == 0 or values.size == 0:
            return
        shape = tuple(max(sizes) for sizes in zip(*(i.shape for i in index)))
        pos = None
        step = 1
        for k in range(out.ndim - 1, -1, -1):
            term = self.mul(self.astype(index[k], np.int64), step) if step != 1 else self.astype(index[k], np.int64)
            pos = term if pos is None else self.add(pos, term)
            step *= out.shape[k]
        pos = self.ascontiguous(self.broadcast_to(pos, shape))
        vals = self.ascontiguous(self.broadcast_to(values, shape))
        target = out if out.dtype != np.bool_ else self.astype(out, np.int32)
        if vals.dtype != target.dtype:
            vals = self.astype(vals, target.dtype)
        n = pos.size
        self._launch("scatter.cu", f"scatter_{op}_{_SFX[target.dtype]}", self._grid(n), (BLOCK,),
                     (target, pos, vals, np.int64(n)))
        if target is not out:
            self.copyto(out, target)

    def concatenate(self, arrays, axis):
        with self.device:
            return cp.concatenate(arrays, axis=axis)

    def split(self, a, sections, axis):
        return cp.split(a, sections, axis=axis)

    def copyto(self, dst, src):
        with self.device:
            cp.copyto(dst, src, casting="unsafe")

    def is_contiguous(self, a):
        return a.flags.c_contiguous

    def data_ptr(self, a):
        return a.data.ptr

    def strides(self, a):
        return tuple(s // a.itemsize for s in a.strides)

    def as_strided(self, a, shape, strides, offset=0):
        # from a flat view of the whole allocation (the root array), so the start may lie before a's
        root = a
        while root.base is not None:
            root = root.base
        isz = a.itemsize
        start = (a.data.ptr - root.data.ptr) // isz + int(offset)
        with self.device:
            flat = cp.lib.stride_tricks.as_strided(root, (root.size,), (isz,))[start:]
            return cp.lib.stride_tricks.as_strided(flat, tuple(int(n) for n in shape),
                                                   tuple(int(st) * isz for st in strides))

    def ascontiguous(self, a):
        if a.flags.c_contiguous:
            return a
        with self.device:
            return a.copy(order="C")

    # bfloat16 arrays are uint16 bit patterns (kernels/elementwise.cu's bf16_to_f32, f32_to_bf16)
    def _convert(self, kname, a, dtype):
        a = self.ascontiguous(a)
        out = self.empty(a.shape, dtype)
        n = a.size
        if n:
            self._launch("elementwise.cu", kname, self._grid(n), (BLOCK,), (a, out, np.int64(n)))
        return out

    def bf16_to_f32(self, a):
        return self._convert("bf16_to_f32", a, np.float32)

    def f32_to_bf16(self, a):
        return self._convert("f32_to_bf16", a, np.uint16)

    # ---- convolution's data movement (kernels/conv.cu) ----------------------------------
    @staticmethod
    def _conv_geometry(c, spatial, k, dil, pads, stride, out):
        """conv.cu's (c, h, w, kh, kw, dh, dw, ph, pw, sh, sw, oh, ow): 1-d as height 1; 3-d:
        (c, d, h, w, kd, kh, kw, ...) for vol2col / col2vol."""
        lead = max(2 - len(spatial), 0)
        g = [(1,) * lead + tuple(v) for v in (spatial, k, dil)] + [(0,) * lead + tuple(pads)]
        g += [(1,) * lead + tuple(v) for v in (stride, out)]
        return tuple(np.int64(v) for v in (c,) + tuple(x for pair in g for x in pair))

    def _conv_launch(self, kname, src, dst, n, geometry):
        if dst.size:
            self._launch("conv.cu", kname, self._grid(dst.size), (BLOCK,), (src, dst, np.int64(n)) + geometry)
        return dst

    def im2col(self, x, k, dil, pads, stride, out):
        if _SFX[x.dtype] not in CONV_SFX:  # bools and int32 move through int64 (exact)
            return self.astype(self.im2col(self.astype(x, np.int64), k, dil, pads, stride, out), x.dtype)
        n, c = x.shape[:2]
        cols = self.empty((n, c * math.prod(k), math.prod(out)), x.dtype)
        geometry = self._conv_geometry(c, x.shape[2:], k, dil, pads, stride, out)
        kname = "vol2col" if len(out) == 3 else "im2col"
        return self._conv_launch(f"{kname}_{_SFX[x.dtype]}", self.ascontiguous(x), cols, n, geometry)

    def col2im(self, cols, spatial, k, dil, pads, stride, out):
        if _SFX[cols.dtype] not in CONV_SFX:  # int32 wraps back; a bool sum is True where any is
            res = self.col2im(self.astype(cols, np.int64), spatial, k, dil, pads, stride, out)
            return self.astype(res, cols.dtype) if cols.dtype != np.bool_ else self.ne(res, 0)
        n, c = cols.shape[0], cols.shape[1] // max(math.prod(k), 1)
        res = self.empty((n, c) + tuple(spatial), cols.dtype)
        geometry = self._conv_geometry(c, spatial, k, dil, pads, stride, out)
        kname = "col2vol" if len(out) == 3 else "col2im"
        return self._conv_launch(f"{kname}_{_SFX[cols.dtype]}", self.ascontiguous(cols), res, n, geometry)


def _special_method(op, unary):
    if unary:
        return lambda self, a: self._unary(op, a)
    return lambda self, a, b: self._binary(op, a, b)


for _op in SPECIAL_UNARY + ("bitwise_not",) + SPECIAL_BINARY + BIT_BINARY:
    setattr(CudaBackend, _op, _special_method(_op, _op in SPECIAL_UNARY or _op == "bitwise_not"))
