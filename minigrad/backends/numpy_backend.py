"""The CPU backend: minigrad's primitives on NumPy arrays (see backends/__init__.py)."""
import math
import warnings

import numpy as np

# PyTorch computes inf and nan silently (log(0), 0/0, float32 overflow); NumPy warns about each.
# A warning is attributed to the frame that called the ufunc, so this silences NumPy's floating
# point warnings in minigrad's own code only, not in the user's. A filter set after this one
# (warnings.simplefilter("error"), pytest's -W error) takes precedence and brings them back.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"minigrad\.")

name = "numpy"
ndarray = np.ndarray

_rng = np.random.default_rng()


def seed(s):
    global _rng
    _rng = np.random.default_rng(s)


def _pcg_state(rng):
    """40 bytes: the 128-bit state and increment of the PCG64 generator rng, and its cached 32 bits."""
    st = rng.bit_generator.state
    s = st["state"]
    return (int(s["state"]).to_bytes(16, "little") + int(s["inc"]).to_bytes(16, "little")
            + int(st["has_uint32"]).to_bytes(4, "little") + int(st["uinteger"]).to_bytes(4, "little"))


def _set_pcg_state(rng, b):
    rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": int.from_bytes(b[0:16], "little"), "inc": int.from_bytes(b[16:32], "little")},
        "has_uint32": int.from_bytes(b[32:36], "little"), "uinteger": int.from_bytes(b[36:40], "little")}


def rng_state():
    return _pcg_state(_rng)


def set_rng_state(state):
    if not isinstance(state, (bytes, bytearray)) or len(state) != 40:
        raise ValueError("set_rng_state expects the 40 bytes rng_state() returned")
    _set_pcg_state(_rng, bytes(state))


def asarray(data, dtype=None):
    # copy: the tensor owns its memory unless from_numpy asked for sharing
    return np.array(data, dtype=dtype)


def to_numpy(a):
    return a


def empty(shape, dtype):
    return np.empty(shape, dtype)


def zeros(shape, dtype):
    return np.zeros(shape, dtype)


def ones(shape, dtype):
    if not shape:
        return np.array(1, dtype)  # 4x faster than np.ones for the 0-d seed of every backward()
    return np.ones(shape, dtype)


def full(shape, value, dtype):
    out = np.empty(shape, dtype)
    out[...] = value  # 3x faster than np.full on small arrays
    return out


def arange(start, end, step, dtype):
    return np.arange(start, end, step, dtype=dtype)


def linspace(start, end, steps, dtype):
    """torch's formula: start + step * i for the first half, end - step * (steps - 1 - i) for the
    rest (both ends exact), the step in the dtype's precision (double for integers) and each
    value rounded once, as torch's fused multiply-add gives it (computed here in long double)."""
    dtype = np.dtype(dtype)
    if steps < 2:
        return np.full(steps, start).astype(dtype)
    step_t = dtype.type if dtype.kind == "f" else np.float64
    lo, hi = step_t(dtype.type(start)), step_t(dtype.type(end))
    step = np.longdouble((hi - lo) / step_t(steps - 1))
    i = np.arange(steps, dtype=np.longdouble)
    out = np.where(i < steps // 2, np.longdouble(lo) + step * i, np.longdouble(hi) - step * (steps - 1 - i))
    return out.astype(dtype)


def eye(n, m, dtype):
    return np.eye(n, m, dtype=dtype)


def _draw(rng, kind, shape, dtype, low=0, high=None):
    """Draws from the NumPy Generator rng: "uniform" in [0, 1) (in dtype, so a float32 draw never
    rounds up to 1), "normal", or "integers" in [low, high). rand, randn and randint draw from the
    global generator; a minigrad.Generator passed as generator= draws from its own."""
    if np.dtype(dtype) == np.float16 and kind != "integers":  # drawn in float32; uniform on half's grid
        r = _draw(rng, kind, shape, np.float32)
        return (np.floor(r * 2048) / 2048 if kind == "uniform" else r).astype(np.float16)
    if np.dtype(dtype) == np.uint16:  # bfloat16's bits: drawn in float32, uniform on its 2**-8 grid
        r = _draw(rng, kind, shape, np.float32, low, high)
        return f32_to_bf16(np.floor(r * 256) / 256 if kind == "uniform" else r)
    if kind == "uniform":
        return rng.random(shape, dtype=dtype)
    if kind == "normal":
        return rng.standard_normal(shape, dtype=dtype)
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(low, high, shape, dtype=dtype)
    return rng.integers(low, high, shape).astype(dtype)  # torch allows float dtypes here


def rand(shape, dtype):
    return _draw(_rng, "uniform", shape, dtype)


def randn(shape, dtype):
    return _draw(_rng, "normal", shape, dtype)


def randint(low, high, shape, dtype):
    return _draw(_rng, "integers", shape, dtype, low, high)


def _poisson(rng, lam):
    """Poisson counts of the rates lam from the NumPy Generator rng, in lam's dtype (the global
    generator's in poisson, a minigrad.Generator's when one is passed as generator=)."""
    return np.asarray(rng.poisson(lam)).astype(lam.dtype, copy=False)


def poisson(lam):
    return _poisson(_rng, lam)


def astype(a, dtype):
    return a.astype(dtype)


def copy(a):
    return a.copy()




def _returns_array(ufunc):
    """NumPy ufuncs return scalars for 0-d inputs; the contract promises arrays. (One wrapper
    per arity: a fixed signature skips packing an argument tuple on every call.)"""
    if ufunc.nin == 1:
        def call(a):
            r = ufunc(a)
            return r if r.__class__ is ndarray else np.asarray(r)
    else:
        def call(a, b):
            r = ufunc(a, b)
            return r if r.__class__ is ndarray else np.asarray(r)
    call.__name__ = ufunc.__name__
    return call


neg = _returns_array(np.negative)
abs = _returns_array(np.abs)
exp = _returns_array(np.exp)
log = _returns_array(np.log)
log1p = _returns_array(np.log1p)
expm1 = _returns_array(np.expm1)
_erf_object = np.frompyfunc(math.erf, 1, 1)


def erf(a):
    """The error function of a float array. NumPy has none, so each element goes through the C
    library's erf (math.erf: within an ulp in float64, then rounded once to float32), at about
    60 ns an element, some 70 times the cost of NumPy's tanh."""
    return np.asarray(_erf_object(a), dtype=a.dtype)


sqrt = _returns_array(np.sqrt)
sin = _returns_array(np.sin)
cos = _returns_array(np.cos)
tanh = _returns_array(np.tanh)


floor = _returns_array(np.floor)
ceil = _returns_array(np.ceil)
trunc = _returns_array(np.trunc)
round = _returns_array(np.rint)  # half to even, as torch.round

tan = _returns_array(np.tan)
asin = _returns_array(np.arcsin)
acos = _returns_array(np.arccos)
atan = _returns_array(np.arctan)
sinh = _returns_array(np.sinh)
cosh = _returns_array(np.cosh)
asinh = _returns_array(np.arcsinh)
acosh = _returns_array(np.arccosh)
atanh = _returns_array(np.arctanh)
log2 = _returns_array(np.log2)
log10 = _returns_array(np.log10)
exp2 = _returns_array(np.exp2)


def rsqrt(a):
    """1 / sqrt(a), torch's CPU formula (rsqrt(-0.0) is -inf)."""
    return np.asarray(np.divide(1, np.sqrt(a)), dtype=a.dtype)


atan2 = _returns_array(np.arctan2)
hypot = _returns_array(np.hypot)
copysign = _returns_array(np.copysign)


def _log_add_exp(exp, scale):
    """torch's logaddexp formula (NumPy's differs in the last bit): equal infinities give
    themselves, else max + log1p(exp(-|a - b|)) * scale, with std::max's NaN rule."""
    def op(a, b):
        dt = np.result_type(a, b)  # a Python number is weak
        a, b = np.asarray(a, dt), np.asarray(b, dt)
        with np.errstate(all="ignore"):
            m = np.where(a < b, b, a)
            share = np.log1p(exp(-np.abs(a - b)))
            r = m + (share * dt.type(scale) if scale != 1 else share)
            return np.asarray(np.where(np.isinf(a) & (a == b), a, r), dtype=dt)
    return op


logaddexp = _log_add_exp(np.exp, 1)
logaddexp2 = _log_add_exp(np.exp2, 1.4426950408889634)


def xlogy(a, b):
    """a * log(b), 0 where a == 0, NaN where b is NaN (torch.xlogy)."""
    dt = np.result_type(a, b)
    a, b = np.asarray(a, dt), np.asarray(b, dt)
    with np.errstate(all="ignore"):
        r = np.where(a == 0, np.zeros((), dt), a * np.log(b))
        return np.asarray(np.where(b != b, b, r), dtype=dt)


# torch.special and the integer bit math: vectorised in numpy_special.py
from .numpy_special import (lgamma, digamma, polygamma, erfc, erfinv, i0, i0e, i1, i1e, ndtri, log_ndtr,  # noqa: E402,F401
                            erfcx, entr, zeta, igamma, igammac, xlog1py, nextafter, frexp, bitwise_and, bitwise_or,
                            bitwise_xor, bitwise_not, bitwise_left_shift, bitwise_right_shift, gcd, lcm)
from .numpy_special import (bessel_j0, bessel_j1, bessel_y0, bessel_y1, modified_bessel_i0,  # noqa: E402,F401
                            modified_bessel_i1, modified_bessel_k0, modified_bessel_k1, scaled_modified_bessel_k0,
                            scaled_modified_bessel_k1, spherical_bessel_j0, airy_ai, chebyshev_polynomial_t,
                            chebyshev_polynomial_u, chebyshev_polynomial_v, chebyshev_polynomial_w,
                            shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u,
                            shifted_chebyshev_polynomial_v, shifted_chebyshev_polynomial_w, hermite_polynomial_h,
                            hermite_polynomial_he, laguerre_polynomial_l, legendre_polynomial_p)


def sign(a):
    r = np.sign(a)
    if a.dtype.kind == "f":
        r = np.where(np.isnan(a), 0, r) + 0  # torch: sign(nan) = 0, sign(-0.) = 0.
    return np.asarray(r, dtype=a.dtype)


def sigmoid(a):
    # split by sign so exp never overflows
    out = np.empty_like(a)
    pos = a >= 0
    np.divide(1, 1 + np.exp(-a, where=pos, out=np.zeros_like(a)), where=pos, out=out)
    e = np.exp(a, where=~pos, out=np.zeros_like(a))
    np.divide(e, 1 + e, where=~pos, out=out)
    return out


def relu(a):
    return np.maximum(a, 0, dtype=a.dtype) if a.ndim else np.asarray(np.maximum(a, 0))


add = _returns_array(np.add)
sub = _returns_array(np.subtract)
mul = _returns_array(np.multiply)
maximum = _returns_array(np.maximum)
minimum = _returns_array(np.minimum)
eq = _returns_array(np.equal)
ne = _returns_array(np.not_equal)
lt = _returns_array(np.less)
le = _returns_array(np.less_equal)
gt = _returns_array(np.greater)
ge = _returns_array(np.greater_equal)
_true_divide = np.true_divide


def div(a, b):
    if a.__class__ is ndarray and not a.shape and (b.__class__ is float or b.__class__ is int):
        # a 0-d array (a mean, a loss) by a Python number: NumPy's scalar arithmetic rounds the
        # same and is 3x faster than the ufunc machinery on a 0-d array
        return np.asarray(a[()] / b)
    r = _true_divide(a, b)
    return r if r.__class__ is ndarray else np.asarray(r)


def _zero_divisor_check(r, b):
    """torch's CPU kernels refuse an integer division by zero, wherever there is work to do."""
    if r.dtype.kind in "iub" and r.size and not np.all(b):
        raise RuntimeError("ZeroDivisionError")
    return r if r.__class__ is ndarray else np.asarray(r)


def floor_divide(a, b):
    """a / b rounded toward -inf (torch.floor_divide): NumPy's floor_divide, whose float formula
    is torch's (c10::div_floor_floating: a zero divisor gives inf or nan); integers wrap
    (INT_MIN // -1 is INT_MIN) and refuse a zero divisor with torch's RuntimeError."""
    with np.errstate(all="ignore"):
        return _zero_divisor_check(np.floor_divide(a, b), b)


def trunc_divide(a, b):
    """a / b rounded toward zero (torch.div(a, b, rounding_mode='trunc')): trunc(a / b) for
    floats; for integers the exact quotient of a - fmod(a, b), which wraps as floor_divide."""
    with np.errstate(all="ignore"):
        if np.result_type(a, b).kind == "f":
            return np.asarray(np.trunc(np.true_divide(a, b)))
        return _zero_divisor_check(np.floor_divide(np.subtract(a, np.fmod(a, b)), b), b)


def remainder(a, b):
    """a - b * floor(a / b), of b's sign (torch.remainder). Floats as torch: fmod, plus b where
    the signs differ (a zero result keeps a's sign, where NumPy's remainder takes b's)."""
    with np.errstate(all="ignore"):
        mod = np.fmod(a, b)
        if mod.dtype.kind != "f":
            return _zero_divisor_check(np.remainder(a, b), b)
        fix = (mod != 0) & ((np.less(b, 0)) != (mod < 0))
        return np.asarray(np.where(fix, mod + b, mod).astype(mod.dtype, copy=False))


def fmod(a, b):
    """C's fmod, of a's sign (torch.fmod); integers refuse a zero divisor as floor_divide."""
    with np.errstate(all="ignore"):
        return _zero_divisor_check(np.fmod(a, b), b)


_power = _returns_array(np.power)


def _int_kind(x):
    return x.dtype.kind in "iu" if hasattr(x, "dtype") else x.__class__ is int


def pow(a, b):
    """a ** b; for integers, a negative exponent gives what torch (and the CUDA kernel) gives:
    1 for a base of 1, +-1 for -1, else 0 (NumPy refuses it)."""
    if _int_kind(a) and _int_kind(b):
        e = np.asarray(b)
        if (e < 0).any():
            r = np.power(a, np.where(e < 0, 0, e))
            one = np.ones((), r.dtype)
            neg = np.where(a == 1, one, np.where(a == -1, np.where(e & 1, -one, one), 0 * one))
            return np.asarray(np.where(e < 0, neg, r).astype(r.dtype, copy=False))
    return _power(a, b)


def iadd(dst, src):
    np.add(dst, src, out=dst)


_INPLACE = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}


def binary_inplace(name, dst, src):
    """dst = dst (op) src in dst's memory; src an array broadcastable to dst, or a scalar."""
    _INPLACE[name](dst, src, dst)  # out= given positionally: the keyword costs a dict


def axpy(dst, src, alpha):
    """dst += alpha * src in dst's memory (src broadcastable to dst, alpha a Python number): one
    call for the optimizers' `p -= lr * g`, which is axpy(p, g, -lr) bit for bit."""
    if dst.size == 1 and dst.dtype.kind == "f":
        # one element (a scalar parameter, seed 000's Linear(1, 1)): NumPy's scalar arithmetic
        # rounds each operation the same and costs a quarter of two ufunc calls, whose
        # in-place form is slowest on one-element arrays
        dst.flat[0] = dst.flat[0] + src.flat[0] * alpha
        return
    _INPLACE["add"](dst, np.multiply(src, alpha), dst)


def foreach_axpy(dsts, srcs, alpha):
    """axpy(dst, src, alpha) for each pair, in order (torch's _foreach_add_(dsts, srcs,
    alpha=alpha)); the CUDA backend updates several pairs per launch."""
    for dst, src in zip(dsts, srcs):
        axpy(dst, src, alpha)


def foreach_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, *, lr, beta1, beta2, eps,
                 weight_decay, decoupled, maximize):
    """torch.optim.Adam's (and AdamW's) update of each parameter in params, in place, with its
    gradient, its state arrays and its step count t (after this step's increment): steps[i]
    (torch's _fused_adam_). max_exp_avg_sqs is None, or with amsgrad the running maxima. Python
    number hyperparameters, one ufunc after another (the CUDA kernel has the same bits):

        p *= 1 - lr * weight_decay                           (decoupled, AdamW)
        d = g (-g if maximize), + p * weight_decay           (not decoupled, Adam's L2)
        m = lerp(m, d, 1 - beta1);  v = v * beta2 + (d * (1 - beta2)) * d
        p += (m * -(lr / (1 - beta1 ** t))) / (sqrt(v) / sqrt(1 - beta2 ** t) + eps)
    where v is max(vmax, v), kept in vmax, with amsgrad. lerp is torch's: a + (b - a) * w for
    |w| < 0.5, else b - (b - a) * (1 - w), exact at both ends. A parameter's state arrays have its
    dtype and shape (torch's load_state_dict casts them so); its gradient broadcasts to it."""
    w = 1 - beta1
    l2 = weight_decay != 0 and not decoupled
    decay = 1 - lr * weight_decay if weight_decay != 0 and decoupled else None
    for i, p in enumerate(params):
        g, m, v = grads[i], exp_avgs[i], exp_avg_sqs[i]
        t = steps[i]
        if decay is not None:
            np.multiply(p, decay, p)
        d = np.negative(g) if maximize else g
        if l2:
            d = np.add(d, np.multiply(p, weight_decay))
        _lerp(m, d, w)
        np.multiply(v, beta2, v)
        np.add(v, np.multiply(np.multiply(d, 1 - beta2), d), v)
        if max_exp_avg_sqs is not None:
            v = np.maximum(max_exp_avg_sqs[i], v, out=max_exp_avg_sqs[i])
        denom = np.add(np.true_divide(np.sqrt(v), (1 - beta2 ** t) ** 0.5), eps)
        np.add(p, np.true_divide(np.multiply(m, -(lr / (1 - beta1 ** t))), denom), p)


def foreach_sgd(params, grads, momentum_buffers, firsts, *, lr, momentum, dampening, weight_decay, nesterov,
                maximize):
    """torch.optim.SGD's update with momentum or weight decay, of each parameter in params in
    place (the plain update is foreach_axpy). momentum_buffers (None when momentum is 0) are
    the parameters' buffers, of their dtype and shape; firsts[i] says parameter i takes its first
    step, whose buffer is not read, only set. One ufunc after another:

        d = g (-g if maximize), + p * weight_decay
        buf = d on the first step, else buf * momentum + d * (1 - dampening) (d when dampening
        is 0);  d = d + buf * momentum if nesterov else buf       (when momentum is not 0)
        p -= d * lr"""
    for i, p in enumerate(params):
        g = grads[i]
        d = np.negative(g) if maximize else g
        if weight_decay:
            d = np.add(d, np.multiply(p, weight_decay))
        if momentum:
            b = momentum_buffers[i]
            if firsts[i]:
                copyto(b, d)
            else:
                np.multiply(b, momentum, b)
                np.add(b, d if dampening == 0 else np.multiply(d, 1 - dampening), b)
            d = np.add(d, np.multiply(b, momentum)) if nesterov else b
        np.subtract(p, np.multiply(d, lr), p)


def _lerp(a, end, w):
    """a = lerp(a, end, w) in a's memory, torch's formula: a + (end - a) * w for |w| < 0.5, else
    end - (end - a) * (1 - w), exact at both ends."""
    if abs(w) < 0.5:
        np.add(a, np.multiply(np.subtract(end, a), w), a)
    else:
        np.subtract(end, np.multiply(np.subtract(end, a), 1 - w), a)


def foreach_rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffers, *, lr, alpha, eps, weight_decay,
                    momentum, centered, maximize):
    """torch.optim.RMSprop's update of each parameter in place; grad_avgs is None unless
    centered, momentum_buffers None unless momentum > 0. One ufunc after another:

        d = g (-g if maximize), + p * weight_decay
        square_avg = square_avg * alpha + (d * (1 - alpha)) * d
        avg = sqrt(square_avg - grad_avg * grad_avg) after grad_avg = lerp(grad_avg, d, 1 - alpha)
              when centered, else sqrt(square_avg);  avg = avg + eps
        buf = buf * momentum + d / avg; p -= buf * lr     (momentum > 0)
        p += (d * -lr) / avg                              (otherwise)"""
    for i, p in enumerate(params):
        g, sq = grads[i], square_avgs[i]
        d = np.negative(g) if maximize else g
        if weight_decay != 0:
            d = np.add(d, np.multiply(p, weight_decay))
        np.multiply(sq, alpha, sq)
        np.add(sq, np.multiply(np.multiply(d, 1 - alpha), d), sq)
        if centered:
            ga = grad_avgs[i]
            _lerp(ga, d, 1 - alpha)
            avg = np.sqrt(np.subtract(sq, np.multiply(ga, ga)))
        else:
            avg = np.sqrt(sq)
        avg = np.add(avg, eps)
        if momentum > 0:
            b = momentum_buffers[i]
            np.multiply(b, momentum, b)
            np.add(b, np.true_divide(d, avg), b)
            np.subtract(p, np.multiply(b, lr), p)
        else:
            np.add(p, np.true_divide(np.multiply(d, -lr), avg), p)


def foreach_adagrad(params, grads, state_sums, steps, *, lr, lr_decay, eps, weight_decay, maximize):
    """torch.optim.Adagrad's update of each parameter in place, steps[i] its step count t after
    this step's increment. One ufunc after another:

        d = g (-g if maximize), + p * weight_decay;  sum = sum + d * d
        p += (d * -(lr / (1 + (t - 1) * lr_decay))) / (sqrt(sum) + eps)"""
    for i, p in enumerate(params):
        g, ss = grads[i], state_sums[i]
        d = np.negative(g) if maximize else g
        if weight_decay != 0:
            d = np.add(d, np.multiply(p, weight_decay))
        np.add(ss, np.multiply(d, d), ss)
        std = np.add(np.sqrt(ss), eps)
        np.add(p, np.true_divide(np.multiply(d, -(lr / (1 + (steps[i] - 1) * lr_decay))), std), p)


# np.vdot sums with BLAS in a few SIMD lanes: one call instead of a product and a pairwise sum,
# and as accurate as the pairwise sum while the vectors are short
_VDOT_BLAS_MAX = 1024
_vdot = np.vdot


def vdot(a, b):
    """The sum of a * b over every element of two float arrays of one shape, as a 0-d array."""
    if a.size <= _VDOT_BLAS_MAX:
        return np.asarray(_vdot(a, b))
    return np.asarray(_add_reduce(np.multiply(a, b), None))


def where(cond, a, b):
    return np.asarray(np.where(cond, a, b))


def clip(a, lo, hi):
    return np.asarray(np.clip(a, lo, hi))


# the ufuncs' reduce methods skip np.sum's and ndarray.sum's Python-level dispatch, which
# dominates on small arrays
_add_reduce, _max_reduce, _min_reduce = np.add.reduce, np.maximum.reduce, np.minimum.reduce


def sum(a, axis=None, keepdims=False, dtype=None):
    r = _add_reduce(a, axis, dtype, None, keepdims)
    return r if r.__class__ is ndarray else np.asarray(r)


def prod(a, axis=None, keepdims=False):
    """The product over axis; integers and bools multiply in int64 (wrapping), as torch's."""
    r = np.multiply.reduce(a, axis, np.int64 if a.dtype.kind in "biu" else None, None, keepdims)
    return r if r.__class__ is ndarray else np.asarray(r)


def _scan(ufunc, a, axis, reverse):
    """An inclusive scan along axis in order, as torch's CPU kernel: integers and bools in int64
    (wrapping), float32 accumulated in float64 and each output rounded once."""
    if a.ndim == 0:
        return _scan(ufunc, a.reshape(1), 0, reverse).reshape(())
    work = np.int64 if a.dtype.kind in "biu" else np.float64 if a.dtype == np.float32 else a.dtype
    if reverse:
        a = np.flip(a, axis)
    with np.errstate(all="ignore"):  # inf - inf is nan and integers wrap, as in torch, silently
        r = ufunc.accumulate(a, axis, work)
    if reverse:
        r = np.flip(r, axis)
    return r.astype(np.float32) if a.dtype == np.float32 else np.ascontiguousarray(r)


def cumsum(a, axis, reverse=False):
    return _scan(np.add, a, axis, reverse)


def cumprod(a, axis, reverse=False):
    return _scan(np.multiply, a, axis, reverse)


def _cum_extreme(a, axis, running, takes_over):
    """(values, indices) of torch's cummax/cummin: element i takes over where it is NaN, or where
    the running extreme before it is no NaN and takes_over(x_i, it) (>= or <=: ties give the last
    index); the index is the last take-over so far, the value the element there."""
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    if a.size == 0:
        return a.copy(), np.zeros(a.shape, np.int64)
    x = np.moveaxis(a, axis, -1)
    with np.errstate(invalid="ignore"):
        before = running.accumulate(x, -1)
        before = np.concatenate([x[..., :1], before[..., :-1]], -1)
        took = takes_over(x, before)
        if a.dtype.kind == "f":
            took = np.isnan(x) | (took & ~np.isnan(before))
    pos = np.arange(x.shape[-1], dtype=np.int64)
    idx = np.maximum.accumulate(np.where(took, pos, 0), -1)
    values = np.take_along_axis(x, idx, -1)
    return np.ascontiguousarray(np.moveaxis(values, -1, axis)), np.ascontiguousarray(np.moveaxis(idx, -1, axis))


def cummax(a, axis):
    return _cum_extreme(a, axis, np.maximum, np.greater_equal)


def cummin(a, axis):
    return _cum_extreme(a, axis, np.minimum, np.less_equal)


def mean(a, axis=None, keepdims=False):
    """sum(a) / count over axis, rounded as the two ops are (a float array; nan for count 0)."""
    s = _add_reduce(a, axis, None, None, keepdims)
    n = a.size
    if axis is not None:
        n = 1
        for ax in axis:
            n *= a.shape[ax]
    if not n:
        return np.full(np.shape(s), np.nan, a.dtype)
    if s.__class__ is not ndarray:  # a NumPy scalar: its division rounds the same, and is cheaper
        return np.asarray(s / n)
    return _true_divide(s, n)


def amax(a, axis=None, keepdims=False):
    r = _max_reduce(a, axis, None, None, keepdims)
    return r if r.__class__ is ndarray else np.asarray(r)


def amin(a, axis=None, keepdims=False):
    r = _min_reduce(a, axis, None, None, keepdims)
    return r if r.__class__ is ndarray else np.asarray(r)


def argmax(a, axis=None, keepdims=False):
    return np.asarray(np.argmax(a, axis=axis, keepdims=keepdims))


def argmin(a, axis=None, keepdims=False):
    return np.asarray(np.argmin(a, axis=axis, keepdims=keepdims))


def sort(a, axis, descending):
    """(values, int64 indices) of a sorted along axis: stable, NaN after every number (first when
    descending), equal keys in their original order in both directions, as torch's stable sort."""
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    if descending:  # a stable ascending sort of the reversed axis, read backwards
        idx = np.argsort(np.flip(a, axis), axis=axis, kind="stable")
        idx = (a.shape[axis] - 1) - np.flip(idx, axis)
    else:
        idx = np.argsort(a, axis=axis, kind="stable")
    idx = idx.astype(np.int64, copy=False)
    return np.take_along_axis(a, idx, axis), idx


def log_softmax(a, axis):
    shifted = a - np.amax(a, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def softmax(a, axis):
    e = np.exp(a - np.amax(a, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


_ZERO = {}  # dtype -> 0-d zero of that dtype: comparing with it skips converting a Python 0


def _zero(dtype):
    z = _ZERO.get(dtype)
    if z is None:
        z = _ZERO[dtype] = np.zeros((), dtype)
    return z


def relu_backward(g, out):
    r = g * (out > _zero(out.dtype))  # bool * float keeps g's float dtype
    return r if r.__class__ is ndarray else np.asarray(r)


def sigmoid_backward(g, out):
    return np.asarray(g * out * (1 - out))


def tanh_backward(g, out):
    return np.asarray(g * (1 - out * out))


def softmax_backward(g, y, axis):
    return y * (g - np.sum(g * y, axis=axis, keepdims=True))


def log_softmax_backward(g, y, axis):
    return g - np.exp(y) * np.sum(g, axis=axis, keepdims=True)


def cross_entropy(x, target):
    """(loss per row, stats) of logits x (N, C) and class indices target (N,).

    stats (2, N) holds each row's max m and s = sum(exp(x - m)); loss = (m - x[t]) + log(s),
    as torch's log_softmax computes it. The logsumexp m + log(s) is never formed: rounded to
    float32 at logits near 1e4 it would be off by up to ~5e-4, and the loss and gradient with it."""
    n = x.shape[0]
    stats = np.empty((2, n), x.dtype)
    m, s = stats[0], stats[1]
    np.maximum.reduce(x, axis=1, out=m)
    e = x - m[:, None]
    np.exp(e, out=e)
    np.add.reduce(e, axis=1, out=s)
    loss = m - x[np.arange(n), target]
    loss += np.log(s)
    return loss, stats


def layer_norm(x, weight, bias, eps):
    """(y, mean, rstd) of layer normalization over the last axis of x (M, N): the biased
    variance of the centred row (two passes), rstd = 1 / sqrt(var + eps), y = xhat * w + b."""
    dt = x.dtype
    n = x.shape[1]
    mean = np.add.reduce(x, axis=1) / dt.type(n) if n else np.full(x.shape[0], np.nan, dt)
    xc = x - mean[:, None]
    var = np.add.reduce(xc * xc, axis=1) / dt.type(n) if n else mean.copy()
    rstd = dt.type(1) / np.sqrt(var + dt.type(eps))
    y = xc * rstd[:, None]
    if weight is not None:
        y *= weight
    if bias is not None:
        y += bias
    return np.asarray(y, dt), np.asarray(mean, dt), np.asarray(rstd, dt)


def layer_norm_backward(g, x, mean, rstd, weight):
    """The gradient of layer_norm's x: rstd * (gw - mean(gw) - xhat * mean(gw * xhat)) per row,
    gw = g * weight, xhat = (x - mean) * rstd."""
    dt = x.dtype
    n = dt.type(max(x.shape[1], 1))
    xhat = (x - mean[:, None]) * rstd[:, None]
    gw = g * weight if weight is not None else g
    m1 = np.add.reduce(gw, axis=1, keepdims=True) / n
    m2 = np.add.reduce(gw * xhat, axis=1, keepdims=True) / n
    return np.asarray(rstd[:, None] * ((gw - m1) - xhat * m2), dt)


def cross_entropy_backward(x, target, stats, gscale, divisor=1):
    """g * (softmax(x) - onehot(target)) with g = gscale / divisor: the gradient of g * sum of
    the row losses, from cross_entropy's stats: exp(x - m) * (g / s), minus g at the target.
    gscale is a 0-d array of x's dtype (the loss's upstream gradient, which on a GPU stays in
    device memory); divisor a Python number (the count a 'mean' divides by), rounded to x's
    dtype before the division, as the GPU kernel takes it."""
    gscale = gscale.astype(x.dtype, copy=False)
    if divisor != 1:
        gscale = gscale / x.dtype.type(divisor)
    dx = x - stats[0][:, None]
    np.exp(dx, out=dx)
    dx *= (gscale / stats[1])[:, None]
    dx[np.arange(x.shape[0]), target] -= gscale
    return dx


_matmul = np.matmul
_add = np.add


# ---- dense factorizations (kernels/linalg.cu's algorithms, vectorized over the batch, with the
# same order of arithmetic, so that both backends and the kernels' emulation agree) ----

def lu_factor(a):
    """LU with partial pivoting of a float (..., m, n): (lu, 1-based int32 pivots (..., min(m, n)),
    int32 info (...,): the first zero pivot, 1-based, or 0), as LAPACK's getrf. The pivot is the
    first largest |a[i, k]|, i >= k (a NaN is never preferred); a zero pivot leaves its column
    unscaled and the factorization goes on."""
    shape = a.shape
    m, n = shape[-2:]
    kmax = min(m, n)
    lu = np.array(a, order="C").reshape((math.prod(shape[:-2]), m, n))
    b = lu.shape[0]
    piv = np.zeros((b, kmax), np.int32)
    info = np.zeros(b, np.int32)
    rows = np.arange(b)
    with np.errstate(all="ignore"):
        for k in range(kmax):
            col = np.abs(lu[:, k:, k])
            col[np.isnan(col)] = -1.0
            p = k + np.argmax(col, axis=1) if m > k else np.full(b, k)
            p = np.where(col.max(axis=1, initial=-1.0) < 0, k, p)
            pv = lu[rows, p, k]
            piv[:, k] = p + 1
            zero = pv == 0
            info[(info == 0) & zero] = k + 1
            go = ~zero
            if not go.any():
                continue
            sel = rows[go & (p != k)]
            if sel.size:
                rk = lu[sel, k, :].copy()
                lu[sel, k, :] = lu[sel, p[sel], :]
                lu[sel, p[sel], :] = rk
            g = rows[go]
            lu[g, k + 1:, k] = lu[g, k + 1:, k] / pv[g][:, None]
            lu[g, k + 1:, k + 1:] -= lu[g, k + 1:, k][:, :, None] * lu[g, k, k + 1:][:, None, :]
    return lu.reshape(shape), piv.reshape(shape[:-2] + (kmax,)), info.reshape(shape[:-2])


def _trsm(a, x, lower, trans, unit):
    """Solves M X = B in place over a batch (a: (b, n, n), x: (b, n, k)), M = a or a^T, lower or
    upper triangular, unit diagonal or not: column-oriented, as kernels/linalg.cu's block_trsm."""
    n = a.shape[-1]
    m = np.swapaxes(a, -1, -2) if trans else a
    with np.errstate(all="ignore"):
        for s in range(n):
            j = s if lower else n - 1 - s
            xj = x[:, j, :] if unit else x[:, j, :] / m[:, j, j][:, None]
            rows = slice(j + 1, n) if lower else slice(0, j)
            x[:, rows, :] -= m[:, rows, j][:, :, None] * xj[:, None, :]
        if not unit:
            x /= np.diagonal(m, 0, -2, -1)[:, :, None]
    return x


def _batch3(x, n, k):
    return np.array(x, order="C").reshape((math.prod(x.shape[:-2]), n, k))


def lu_solve(lu, piv, b, adjoint):
    """The solution X of A X = B (adjoint: A^T X = B), A = P L U from lu_factor's square lu
    (..., n, n) and pivots (..., n); b (..., n, k) with lu's batch shape."""
    n, k = b.shape[-2:]
    x = _batch3(b, n, k)
    a = _batch3(lu, n, n)
    p = np.clip(np.asarray(piv, np.int64).reshape((x.shape[0], n)) - 1, 0, max(n - 1, 0))
    if adjoint:  # U^T L^T P^T X = B
        _trsm(a, x, True, True, False)
        _trsm(a, x, False, True, True)
    rows = np.arange(x.shape[0])
    for i in range(n - 1, -1, -1) if adjoint else range(n):  # the row interchanges, as getrs's laswp
        pi = p[:, i]
        xi = x[:, i, :].copy()
        x[:, i, :] = x[rows, pi, :]
        x[rows, pi, :] = xi
    if not adjoint:  # P L U X = B
        _trsm(a, x, True, False, True)
        _trsm(a, x, False, False, False)
    return x.reshape(b.shape)


def triangular_solve(a, b, lower, trans, unit):
    """The solution X of M X = B, M = a (trans: a^T) triangular (lower or upper; unit: ones on
    the diagonal, not read); a (..., n, n), b (..., n, k) with a's batch shape."""
    n, k = b.shape[-2:]
    return _trsm(_batch3(a, n, n), _batch3(b, n, k), lower, trans, unit).reshape(b.shape)


def cholesky(a):
    """(L, int32 info (...,)): the lower Cholesky factor of the symmetric matrices given by the
    lower triangles of a (..., n, n), upper triangle zero; info: the order of the first leading
    minor that is not positive-definite (that matrix's factorization stops there), or 0."""
    n = a.shape[-1]
    x = _batch3(a, n, n)
    info = np.zeros(x.shape[0], np.int32)
    live = np.ones(x.shape[0], bool)
    tril = np.tril(np.ones((n, n), bool))
    with np.errstate(all="ignore"):
        for k in range(n):
            d = x[:, k, k]
            bad = live & ~(d > 0)
            info[bad] = k + 1
            live &= ~bad
            g = np.flatnonzero(live)
            if not g.size:
                break
            s = np.sqrt(x[g, k, k])
            x[g, k, k] = s
            x[g, k + 1:, k] = x[g, k + 1:, k] / s[:, None]
            c = x[g, k + 1:, k]
            t = x[g, k + 1:, k + 1:]
            x[g, k + 1:, k + 1:] = np.where(tril[k + 1:, k + 1:], t - c[:, :, None] * c[:, None, :], t)
    x[:, ~tril] = 0
    return x.reshape(a.shape), info.reshape(a.shape[:-2])


def matmul(a, b, bias=None):
    if a.ndim == 2 and b.ndim == 2:
        r = a.dot(b)  # the same BLAS call without the matmul gufunc's overhead (2x on small inputs)
    else:
        r = _matmul(a, b)
        if r.__class__ is not ndarray:
            r = np.asarray(r)  # 1-d @ 1-d gives a NumPy scalar
    if bias is not None:
        if bias.dtype != r.dtype or bias.shape != r.shape[-1:] or b.ndim < 2:
            _check_bias(a, b, bias)
        # into the product's fresh memory: rounded product, then the add; a one-element bias
        # as a 0-d array, which NumPy adds without its broadcasting machinery (3x faster)
        _add(r, bias if bias.shape[0] != 1 else bias.reshape(()), r)
    return r


def _check_bias(a, b, bias):
    """matmul's bias: one value per column of the product (b's last dim), of the product's dtype."""
    dt = bias.dtype
    if b.ndim < 2 or bias.shape != b.shape[-1:] or (
            (dt != a.dtype or dt != b.dtype) and dt != np.result_type(a.dtype, b.dtype)):
        raise ValueError(f"matmul: a bias of shape {tuple(bias.shape)} and dtype {bias.dtype} for a "
                         f"{tuple(a.shape)} @ {tuple(b.shape)} product (it takes one value per column, "
                         "of the product's dtype)")


def _nan_on_failure(fn, a, outs):
    """fn(a) (LAPACK through numpy.linalg); where LAPACK does not converge (NaN or inf in a), the
    results `outs` (shapes) filled with NaN instead of NumPy's LinAlgError."""
    try:
        return fn(a)
    except np.linalg.LinAlgError:
        return tuple(np.full(s, np.nan, a.dtype) for s in outs)


def eigh(a, upper):
    """(eigenvalues ascending (..., n), eigenvectors (..., n, n)) of the symmetric matrices in a
    (..., n, n), read from the upper triangle when `upper`, else the lower (LAPACK's syevd)."""
    n = a.shape[-1]
    if a.size == 0:
        return np.empty(a.shape[:-1], a.dtype), np.empty(a.shape, a.dtype)
    w, v = _nan_on_failure(lambda x: np.linalg.eigh(x, "U" if upper else "L"), a, (a.shape[:-1], a.shape))
    return np.ascontiguousarray(w, a.dtype), np.ascontiguousarray(v, a.dtype).reshape(a.shape[:-2] + (n, n))


def svd(a, full_matrices, compute_uv):
    """(U, S, Vh) of the matrices in a (..., m, n), singular values descending; U (..., m, m or
    k) and Vh (..., n or k, n) for k = min(m, n), both None unless compute_uv (LAPACK's gesdd)."""
    m, n = a.shape[-2:]
    k, batch = min(m, n), a.shape[:-2]
    if a.size == 0:
        s = np.zeros(batch + (k,), a.dtype)
        if not compute_uv:
            return None, s, None
        eye_u = np.broadcast_to(np.eye(m, m if full_matrices else k, dtype=a.dtype), batch + (m, m if full_matrices else k))
        eye_v = np.broadcast_to(np.eye(n if full_matrices else k, n, dtype=a.dtype), batch + (n if full_matrices else k, n))
        return np.ascontiguousarray(eye_u), s, np.ascontiguousarray(eye_v)
    if not compute_uv:
        s, = _nan_on_failure(lambda x: (np.linalg.svd(x, compute_uv=False),), a, (batch + (k,),))
        return None, np.ascontiguousarray(s, a.dtype), None
    uc, vr = (m, n) if full_matrices else (k, k)
    u, s, vh = _nan_on_failure(lambda x: np.linalg.svd(x, full_matrices=full_matrices), a,
                               (batch + (m, uc), batch + (k,), batch + (vr, n)))
    return tuple(np.ascontiguousarray(x, a.dtype) for x in (u, s, vh))


def qr(a, mode):
    """(Q, R) of the matrices in a (..., m, n), with LAPACK's signs (geqrf + orgqr): mode
    'reduced' (Q (..., m, k), R (..., k, n)), 'complete' (Q (..., m, m), R (..., m, n)), or 'r'
    (Q None, R as reduced)."""
    m, n = a.shape[-2:]
    k, batch = min(m, n), a.shape[:-2]
    qc, rr = (m, m) if mode == "complete" else (k, k)
    if a.size == 0:
        q = np.ascontiguousarray(np.broadcast_to(np.eye(m, qc, dtype=a.dtype), batch + (m, qc)))
        return (None if mode == "r" else q), np.zeros(batch + (rr, n), a.dtype)
    if mode == "r":
        return None, np.ascontiguousarray(np.linalg.qr(a, "r"), a.dtype)
    q, r = np.linalg.qr(a, mode)
    return np.ascontiguousarray(q, a.dtype), np.ascontiguousarray(r, a.dtype)


def reshape(a, shape):
    return a.reshape(shape)


def view(a, shape):
    """A reshape that never copies: raises ValueError when the strides don't allow it."""
    return a.reshape(shape, copy=False)


def transpose(a, axes):
    return a.transpose(axes)


def broadcast_to(a, shape):
    return np.broadcast_to(a, shape)


def getitem(a, index, bounds=None):
    """a[index]; NumPy checks the bounds itself, so those known (see the CUDA backend) go unused."""
    r = a[index]
    if r.__class__ is not ndarray:
        r = a[index + (Ellipsis,)]  # a 0-d view rather than a NumPy scalar (a copy)
    return r


def setitem(a, index, value, bounds=None):
    a[index] = value


def index_add(shape, index, values, dtype):
    """zeros(shape) with values added at index (repeated indices accumulate)."""
    out = np.zeros(shape, dtype)
    np.add.at(out, index, values)
    return out


_AT = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def index_reduce(out, index, values, op):
    """out[index] = op(out[index], values) in place, repeated indices combining every value."""
    _AT[op].at(out, index, values)


def concatenate(arrays, axis):
    return np.concatenate(arrays, axis=axis)


def split(a, sections, axis):
    return np.split(a, sections, axis=axis)


def copyto(dst, src):
    np.copyto(dst, src, casting="unsafe")


def is_contiguous(a):
    return a.flags.c_contiguous


def data_ptr(a):
    return a.ctypes.data


def strides(a):
    return tuple(s // a.itemsize for s in a.strides)


class _Strided:
    """An __array_interface__ over a's memory (what np.lib.stride_tricks.as_strided builds, with
    a start that may lie before a's first element); base keeps a alive."""

    def __init__(self, a, shape, strides, offset):
        isz = a.itemsize
        self.base = a
        self.__array_interface__ = {
            "version": 3, "typestr": a.dtype.str, "shape": tuple(int(n) for n in shape),
            "strides": tuple(int(st) * isz for st in strides),
            "data": (a.ctypes.data + int(offset) * isz, not a.flags.writeable)}


def as_strided(a, shape, strides, offset=0):
    return np.asarray(_Strided(a, shape, strides, offset))


def _conv_hits(n, k, d, lo, s, o):
    """Per kernel offset along one dim: (first window, count, first input position) of the
    windows whose element at that offset lies inside the n input positions."""
    hits = []
    for i in range(k):
        start = i * d - lo                       # the input position of window 0's element i
        first = max(0, -(-(-start) // s))        # the first window with position >= 0
        last = min(o - 1, (n - 1 - start) // s) if n else -1
        hits.append((first, max(last - first + 1, 0), first * s + start))
    return hits


def _conv_slices(spatial, k, dil, pads, stride, out):
    """For each kernel offset (row-major): (its index tuple, the windows' slices, the input's slices)."""
    import itertools
    per_dim = [_conv_hits(n, kk, d, lo, s, o) for n, kk, d, lo, s, o in zip(spatial, k, dil, pads, stride, out)]
    for offs in itertools.product(*(range(kk) for kk in k)):
        hit = [per_dim[a][i] for a, i in enumerate(offs)]
        if all(cnt for _, cnt, _ in hit):
            yield (offs, tuple(slice(f, f + cnt) for f, cnt, _ in hit),
                   tuple(slice(y, y + (cnt - 1) * s + 1, s) for (_, cnt, y), s in zip(hit, stride)))


def im2col(x, k, dil, pads, stride, out):
    """The columns (N, C * prod(k), prod(out)) of x (N, C, *spatial), one to three spatial dims:
    column (c, offset), row p holds x at window p's element offset (window p starts at
    p * stride - pads), 0 where that lies outside x."""
    n, c = x.shape[:2]
    cols = np.zeros((n, c) + tuple(k) + tuple(out), x.dtype)
    for offs, win, src in _conv_slices(x.shape[2:], k, dil, pads, stride, out):
        cols[(slice(None), slice(None)) + offs + win] = x[(slice(None), slice(None)) + src]
    return cols.reshape(n, c * math.prod(k), math.prod(out))


def col2im(cols, spatial, k, dil, pads, stride, out):
    """im2col's adjoint: (N, C, *spatial) holding, at each element, the sum of the column entries
    that im2col reads from it, added in row-major kernel-offset order (CUDA's col2im's order)."""
    n, c = cols.shape[0], cols.shape[1] // max(math.prod(k), 1)
    res = np.zeros((n, c) + tuple(spatial), cols.dtype)
    cv = cols.reshape((n, c) + tuple(k) + tuple(out))
    for offs, win, src in _conv_slices(spatial, k, dil, pads, stride, out):
        res[(slice(None), slice(None)) + src] += cv[(slice(None), slice(None)) + offs + win]
    return res


def ascontiguous(a):
    return a if a.flags.c_contiguous else a.copy(order="C")


# bfloat16 is stored as its 16 bits (uint16): the top half of the float32 with the same sign,
# exponent and first 7 fraction bits
def bf16_to_f32(a):
    wide = a.astype(np.uint32)
    wide <<= 16  # in place, so that a 0-d array stays an array
    return wide.view(np.float32)


def f32_to_bf16(a):
    """float32 array a rounded to bfloat16 bits, to nearest with ties to even (as torch): a carry
    out of the fraction bumps the exponent, so what rounds past the largest finite value is inf,
    and every NaN becomes the quiet NaN 0x7fc0."""
    bits = np.ascontiguousarray(a, dtype=np.float32).reshape(-1).view(np.uint32)
    odd = (bits >> 16) & 1
    out = ((bits + (odd + 0x7FFF)) >> 16).astype(np.uint16)
    out[np.isnan(bits.view(np.float32))] = 0x7FC0
    return out.reshape(np.shape(a))


# float16 and the 8/16-bit integers compute in float32 / int32 (see small_dtypes.py)
from . import PRIMITIVES as _PRIMITIVES  # noqa: E402
from .small_dtypes import install as _install_small_dtypes  # noqa: E402
_install_small_dtypes(globals(), _PRIMITIVES)
