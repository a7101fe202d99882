// minigrad elementwise kernels: unary and binary math, rounding, comparisons, logic, where,
// clip, fill, and the activation backward helpers.
//
// ABI (every entry point is extern "C"; T is the C type of the suffix: f32 float, f64 double,
// i64 long long, i32 int, b8 bool; element counts and strides are long long):
//   unary      <op>_<sfx>(const T* x, T* y, n)
//              <op>_strided_<sfx>(const T* x, T* y, n, const long long* meta, int ndim)
//   binary     <op>_<sfx>(const T* a, const T* b, R* out, n)
//              <op>_scalar_<sfx>(const T* a, T s, R* out, n)          out = a op s
//              <op>_rscalar_<sfx>(const T* a, T s, R* out, n)         out = s op a
//              <op>_strided_<sfx>(const T* a, const T* b, R* out, n, meta, ndim)
//              R is T for arithmetic and bool for comparisons (eq ne lt le gt ge)
//   logic      and_b8 or_b8 (binary, contiguous), not_b8 (unary), and_strided_b8 or_strided_b8
//   where      where_strided_<sfx>(const bool* c, const T* a, const T* b, T* out, n, meta, ndim)
//   clip       clip_<sfx>(const T* x, T* y, n, T lo, T hi, int has_lo, int has_hi)
//   fill       fill_<sfx>(T* y, T value, n)
//   axpy       axpy_<sfx>(const T* x, T alpha, T* y, n)      y += alpha * x in place (f32, f64);
//              alpha * x is rounded before the add (never one fused multiply-add), so the bits
//              are those of the two separate ops
//   axpy list  axpy_list_<sfx>(T alpha, int count, const T* x0, T* y0, n0, ..., x7, y7, n7)
//              y_k += alpha * x_k for k < count (at most AXPY_LIST_MAX = 8 slots; the others
//              are ignored), each with axpy's arithmetic: the optimizers' update of several
//              parameters in one launch (torch's _foreach_add_). The 3 * count arrays must not
//              overlap one another (each block walks every slot, so slots run concurrently).
//   adam list  adam_list_<sfx>(T lerp_weight, T beta2, T one_minus_beta2, T weight_decay, T decay,
//                             T eps, int flags, int count,
//                             T* p0, const T* g0, T* m0, T* v0, T* vmax0, n0, T neg_step0, T bc2_0,
//                             ..., (the same for slots 1 to 7))
//              torch.optim.Adam/AdamW's update of up to ADAM_LIST_MAX = 8 parameters per
//              launch (torch's fused Adam), each element with the bits of the NumPy backend's
//              foreach_adam, one rounded operation after another (never a fused multiply-add):
//                p = p * decay                        (AdamW's decoupled decay; 1 otherwise)
//                d = g, or -g with ADAM_MAXIMIZE;  d = d + p * weight_decay with ADAM_L2
//                m = m + (d - m) * lerp_weight, or d - (d - m) * lerp_weight with ADAM_LERP_END
//                v = v * beta2;  v = v + (d * one_minus_beta2) * d
//                vmax = max(vmax, v) with ADAM_AMSGRAD, and then vmax stands for v below
//                p = p + (m * neg_step) / (sqrt(v) / bc2 + eps)
//              neg_step = -lr / (1 - beta1^t) and bc2 = sqrt(1 - beta2^t) are per slot (each
//              parameter has its own step count t). vmax is null without ADAM_AMSGRAD. As in
//              axpy_list, unused slots are ignored, and the arrays written (p, m, v, vmax of
//              every used slot) must overlap neither one another nor any slot's g.
//   sgd list   sgd_list_<sfx>(T lr, T momentum, T one_minus_dampening, T weight_decay, int flags,
//                            int count, T* p0, const T* g0, T* buf0, n0, int first0, ..., (slots
//                            1 to 7))
//              torch.optim.SGD's update with momentum or weight decay, of up to SGD_LIST_MAX = 8
//              parameters per launch, with the bits of the NumPy backend's foreach_sgd:
//                d = g, or -g with SGD_MAXIMIZE;  d = d + p * weight_decay with SGD_L2
//                with SGD_MOMENTUM: buf = d on the slot's first step, else
//                  buf = buf * momentum + d (d * one_minus_dampening with SGD_DAMPENING);
//                  d = d + buf * momentum with SGD_NESTEROV, else buf
//                p = p - d * lr
//              buf is null without SGD_MOMENTUM, and not read on a first step. The arrays written
//              (p, buf) must overlap neither one another nor any slot's g, as in adam_list.
//   rmsprop    rmsprop_list_<sfx>(T lr, T alpha, T one_minus_alpha, T lerp_weight, T eps,
//   list                         T weight_decay, T momentum, int flags, int count,
//                                T* p0, const T* g0, T* square_avg0, T* grad_avg0, T* buf0, n0,
//                                ..., (slots 1 to 7))
//              torch.optim.RMSprop's update, up to 8 parameters per launch, with the bits of the
//              NumPy backend's foreach_rmsprop:
//                d = g, or -g with RMSPROP_MAXIMIZE;  d = d + p * weight_decay with RMSPROP_L2
//                square_avg = square_avg * alpha + (d * one_minus_alpha) * d
//                with RMSPROP_CENTERED: grad_avg = lerp as Adam's m (RMSPROP_LERP_END), and
//                  avg = sqrt(square_avg - grad_avg * grad_avg); else avg = sqrt(square_avg)
//                avg = avg + eps
//                with RMSPROP_MOMENTUM: buf = buf * momentum + d / avg;  p = p - buf * lr
//                else p = p + (d * -lr) / avg
//              grad_avg is null without RMSPROP_CENTERED, buf without RMSPROP_MOMENTUM.
//   adagrad    adagrad_list_<sfx>(T eps, T weight_decay, int flags, int count,
//   list                         T* p0, const T* g0, T* sum0, n0, T neg_clr0, ..., (slots 1 to 7))
//              torch.optim.Adagrad's update, with the bits of the NumPy backend's foreach_adagrad:
//                d = g, or -g with ADAGRAD_MAXIMIZE;  d = d + p * weight_decay with ADAGRAD_L2
//                sum = sum + d * d;  p = p + (d * neg_clr) / (sqrt(sum) + eps)
//              neg_clr = -lr / (1 + (t - 1) * lr_decay) per slot (t: the parameter's step).
//              In both, as in adam_list, the arrays written must overlap neither one another
//              nor any slot's g.
//   backward   relu_backward_<sfx>, sigmoid_backward_<sfx>, tanh_backward_<sfx>
//              (const T* g, const T* out, T* dx, n)
//
// Strided forms: meta = [shape[0..ndim), strides of operand 0, strides of operand 1, ...] in
// elements (0 on broadcast dims), ndim <= MAX_NDIM; the output is contiguous of `shape`.
//
// In place: out (or y) may be the same memory as the first input when that input is contiguous
// and of the output's shape. Every element is read and then written by the same thread, and no
// pointer is __restrict__, so that is safe.
//
// Launch: any grid and block size is correct (every loop is grid-stride). Suggested: 256
// threads per block, grid = min(ceil(n / 256), 32 * multiprocessors).
//
// Compiles with NVRTC, `--std=c++17` with or without `-default-device`, and no headers.

#define MAX_NDIM 8
// 16-byte vectors per input that a thread loads before it stores any, on the contiguous path:
// cheap ops are pure memory traffic and want several loads in flight; costly math already has
// W independent evaluations per vector and would only multiply its inlined code.
#define UNROLL_CHEAP 4
#define UNROLL_MATH 1

typedef long long i64;

// ---- 16-byte packs ----------------------------------------------------------------------------
// A pack is W elements seen both as one vector register (one 16-byte load or store) and as an
// array. Outputs narrower than inputs (bool from float) are packed into 2, 4 or 8 bytes.

template <class T> struct Vec16;
template <> struct Vec16<float> { typedef float4 type; };
template <> struct Vec16<double> { typedef double2 type; };
template <> struct Vec16<long long> { typedef longlong2 type; };
template <> struct Vec16<int> { typedef int4 type; };
template <> struct Vec16<bool> { typedef uint4 type; };

template <int BYTES> struct RawBytes;
template <> struct RawBytes<2> { typedef unsigned short type; };
template <> struct RawBytes<4> { typedef unsigned int type; };
template <> struct RawBytes<8> { typedef uint2 type; };

template <class T, int BYTES> struct StorageOf { typedef typename RawBytes<BYTES>::type type; };
template <class T> struct StorageOf<T, 16> { typedef typename Vec16<T>::type type; };

template <class T, int W> union Pack {
    typedef typename StorageOf<T, W * (int)sizeof(T)>::type Raw;
    Raw raw;
    T e[W];
};

__device__ __forceinline__ bool is_aligned(const void* p, unsigned long long bytes) {
    return ((unsigned long long)p & (bytes - 1)) == 0;
}

// ---- math -------------------------------------------------------------------------------------
// Overloads pick the single- or double-precision builtin, so float never silently goes double.

#define MATH_FN(name, f32fn, f64fn)                                            \
    __device__ __forceinline__ float name(float x) { return f32fn(x); }        \
    __device__ __forceinline__ double name(double x) { return f64fn(x); }

MATH_FN(m_exp, expf, exp)
MATH_FN(m_log, logf, log)
MATH_FN(m_log1p, log1pf, log1p)
MATH_FN(m_expm1, expm1f, expm1)
MATH_FN(m_erf, erff, erf)
MATH_FN(m_tan, tanf, tan)
MATH_FN(m_asin, asinf, asin)
MATH_FN(m_acos, acosf, acos)
MATH_FN(m_atan, atanf, atan)
MATH_FN(m_sinh, sinhf, sinh)
MATH_FN(m_cosh, coshf, cosh)
MATH_FN(m_asinh, asinhf, asinh)
MATH_FN(m_acosh, acoshf, acosh)
MATH_FN(m_atanh, atanhf, atanh)
MATH_FN(m_log2, log2f, log2)
MATH_FN(m_log10, log10f, log10)
MATH_FN(m_exp2, exp2f, exp2)
MATH_FN(m_sqrt, sqrtf, sqrt)
MATH_FN(m_sin, sinf, sin)
MATH_FN(m_cos, cosf, cos)
MATH_FN(m_tanh, tanhf, tanh)
MATH_FN(m_fabs, fabsf, fabs)
MATH_FN(m_floor, floorf, floor)
MATH_FN(m_ceil, ceilf, ceil)
MATH_FN(m_trunc, truncf, trunc)
MATH_FN(m_rint, rintf, rint)   // round half to even, as torch.round

template <class T> struct UnsignedOf;
template <> struct UnsignedOf<int> { typedef unsigned int type; };
template <> struct UnsignedOf<long long> { typedef unsigned long long type; };

// Integer power by repeated squaring in unsigned arithmetic, so overflow wraps as it does in
// torch instead of being undefined. Negative exponents are rejected before launch for scalars;
// for tensor exponents this gives torch's truncated results (1, +-1, else 0).
template <class T> __device__ __forceinline__ T ipow(T base, T e) {
    if (e < 0) return base == 1 ? T(1) : base == -1 ? ((e & 1) ? T(-1) : T(1)) : T(0);
    typedef typename UnsignedOf<T>::type U;
    U r = 1, b = (U)base, k = (U)e;
    while (k) {
        if (k & 1) r *= b;
        b *= b;
        k >>= 1;
    }
    return (T)r;
}

// x**2 is by far the most common power (losses, norms): computing it as x*x makes it exact,
// like NumPy and torch do, and pow(x, 2) agrees with x*x on every special value.
__device__ __forceinline__ float m_pow(float a, float b) { return b == 2.0f ? a * a : powf(a, b); }
__device__ __forceinline__ double m_pow(double a, double b) { return b == 2.0 ? a * a : pow(a, b); }
__device__ __forceinline__ int m_pow(int a, int b) { return ipow(a, b); }
__device__ __forceinline__ long long m_pow(long long a, long long b) { return ipow(a, b); }

__device__ __forceinline__ float m_abs(float x) { return m_fabs(x); }
__device__ __forceinline__ double m_abs(double x) { return m_fabs(x); }
__device__ __forceinline__ int m_abs(int x) { return x < 0 ? -x : x; }
__device__ __forceinline__ long long m_abs(long long x) { return x < 0 ? -x : x; }

// ---- division with rounding: torch.floor_divide, remainder, fmod, div(rounding_mode='trunc') --
// Floats follow torch's formulas (c10::div_floor_floating, remainder_kernel), built on fmod,
// which is exact, so every result is the correctly rounded one and a zero divisor gives IEEE's
// inf/nan. Integers: a zero divisor gives 0 (torch's CPU kernels raise ZeroDivisionError, which
// the CUDA backend does not check for: that would cost a device-to-host sync; torch's CUDA
// kernels leave the value undefined), and a divisor of -1 is taken apart from the C division,
// where INT_MIN / -1 would be undefined: the quotient wraps to INT_MIN, the remainder is 0.

__device__ __forceinline__ float m_fmod(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double m_fmod(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ float m_copysign(float a, float b) { return copysignf(a, b); }
__device__ __forceinline__ double m_copysign(double a, double b) { return copysign(a, b); }

// ---- two-argument math (torch.atan2, hypot, logaddexp, logaddexp2, xlogy), floats only --------
#define MATH_FN2(name, f32fn, f64fn)                                                      \
    __device__ __forceinline__ float name(float a, float b) { return f32fn(a, b); }      \
    __device__ __forceinline__ double name(double a, double b) { return f64fn(a, b); }

MATH_FN2(m_atan2, atan2f, atan2)
MATH_FN2(m_hypot, hypotf, hypot)

// +-inf only (inf - inf is NaN, and x == x rules NaN out): no header's isinf under NVRTC
template <class T> __device__ __forceinline__ bool m_isinf(T x) { return x - x != x - x && x == x; }
// torch's formulas: equal infinities give themselves (inf - inf would be NaN), else the larger
// plus log1p of the smaller's share; std::max's NaN rule (a NaN a wins; a NaN b makes |a - b| NaN)
template <class T> __device__ __forceinline__ T m_logaddexp(T a, T b) {
    if (m_isinf(a) && a == b) return a;
    const T m = a < b ? b : a;
    return m + m_log1p(m_exp(-m_abs(a - b)));
}
template <class T> __device__ __forceinline__ T m_logaddexp2(T a, T b) {
    if (m_isinf(a) && a == b) return a;
    const T m = a < b ? b : a;
    return m + m_log1p(m_exp2(-m_abs(a - b))) * T(1.4426950408889634);   // 1 / ln 2
}
// x * log(y), 0 where x == 0 unless y is NaN (torch's xlogy)
template <class T> __device__ __forceinline__ T m_xlogy(T x, T y) {
    if (y != y) return y;
    return x == T(0) ? T(0) : x * m_log(y);
}

template <class T> __device__ __forceinline__ T floordiv_float(T a, T b) {
    if (b == T(0)) return a / b;
    const T mod = m_fmod(a, b);
    T div = (a - mod) / b;  // a - mod is a multiple of b: the quotient, rounded once
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
    if (div == T(0)) return m_copysign(T(0), a / b);
    T fl = m_floor(div);
    if (div - fl > T(0.5)) fl += T(1);
    return fl;
}
template <class T> __device__ __forceinline__ T remainder_float(T a, T b) {
    T mod = m_fmod(a, b);
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) mod += b;
    return mod;
}
template <class T> __device__ __forceinline__ T neg_wrap(T a) {
    typedef typename UnsignedOf<T>::type U;
    return (T)(U(0) - (U)a);
}
// b != 0 and b != -1 past the guards, so / and % are defined; r and b of different signs make
// q <= 0 and r + b lie strictly between them, so neither fix-up overflows
template <class T> __device__ __forceinline__ T floordiv_int(T a, T b) {
    if (b == T(0)) return T(0);
    if (b == T(-1)) return neg_wrap(a);
    const T q = a / b, r = a % b;
    return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? q - T(1) : q;
}
template <class T> __device__ __forceinline__ T truncdiv_int(T a, T b) {
    if (b == T(0)) return T(0);
    return b == T(-1) ? neg_wrap(a) : a / b;
}
template <class T> __device__ __forceinline__ T remainder_int(T a, T b) {
    if (b == T(0) || b == T(-1)) return T(0);
    const T r = a % b;
    return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? r + b : r;
}
template <class T> __device__ __forceinline__ T fmod_int(T a, T b) {
    return (b == T(0) || b == T(-1)) ? T(0) : a % b;
}

#define DIVISION_FN(name, float_expr, int_fn)                                              \
    __device__ __forceinline__ float name(float a, float b) { return float_expr; }        \
    __device__ __forceinline__ double name(double a, double b) { return float_expr; }     \
    __device__ __forceinline__ int name(int a, int b) { return int_fn(a, b); }            \
    __device__ __forceinline__ long long name(long long a, long long b) { return int_fn(a, b); }

DIVISION_FN(m_floordiv, floordiv_float(a, b), floordiv_int)
DIVISION_FN(m_truncdiv, m_trunc(a / b), truncdiv_int)
DIVISION_FN(m_remainder, remainder_float(a, b), remainder_int)
DIVISION_FN(m_fmodop, m_fmod(a, b), fmod_int)

// exp of a non-positive argument only, so neither branch overflows and tiny results keep
// their precision.
template <class T> __device__ __forceinline__ T m_sigmoid(T x) {
    if (x >= T(0)) return T(1) / (T(1) + m_exp(-x));
    const T e = m_exp(x);
    return e / (T(1) + e);
}

// ---- ops --------------------------------------------------------------------------------------
// An op is a functor whose call operator is one expression of its operand(s) of type T, and
// whose unroll is the contiguous engine's unroll factor for it.

#define UNARY_OP(Name, U, expr)                                                \
    struct Name {                                                              \
        static constexpr int unroll = U;                                       \
        template <class T>                                                     \
        __device__ __forceinline__ auto operator()(T x) const { return (expr); } \
    };
#define BINARY_OP(Name, U, expr)                                               \
    struct Name {                                                              \
        static constexpr int unroll = U;                                       \
        template <class T>                                                     \
        __device__ __forceinline__ auto operator()(T a, T b) const { return (expr); } \
    };

UNARY_OP(Neg, UNROLL_CHEAP, -x)
UNARY_OP(Abs, UNROLL_CHEAP, m_abs(x))
UNARY_OP(Exp, UNROLL_MATH, m_exp(x))
UNARY_OP(Log, UNROLL_MATH, m_log(x))
UNARY_OP(Log1p, UNROLL_MATH, m_log1p(x))
UNARY_OP(Expm1, UNROLL_MATH, m_expm1(x))
UNARY_OP(Erf, UNROLL_MATH, m_erf(x))
UNARY_OP(Tan, UNROLL_MATH, m_tan(x))
UNARY_OP(Asin, UNROLL_MATH, m_asin(x))
UNARY_OP(Acos, UNROLL_MATH, m_acos(x))
UNARY_OP(Atan, UNROLL_MATH, m_atan(x))
UNARY_OP(Sinh, UNROLL_MATH, m_sinh(x))
UNARY_OP(Cosh, UNROLL_MATH, m_cosh(x))
UNARY_OP(Asinh, UNROLL_MATH, m_asinh(x))
UNARY_OP(Acosh, UNROLL_MATH, m_acosh(x))
UNARY_OP(Atanh, UNROLL_MATH, m_atanh(x))
UNARY_OP(Log2, UNROLL_MATH, m_log2(x))
UNARY_OP(Log10, UNROLL_MATH, m_log10(x))
UNARY_OP(Exp2, UNROLL_MATH, m_exp2(x))
UNARY_OP(Rsqrt, UNROLL_MATH, T(1) / m_sqrt(x))              // torch's CPU formula: rsqrt(-0) = -inf
UNARY_OP(Sqrt, UNROLL_MATH, m_sqrt(x))
UNARY_OP(Sin, UNROLL_MATH, m_sin(x))
UNARY_OP(Cos, UNROLL_MATH, m_cos(x))
UNARY_OP(Tanh, UNROLL_MATH, m_tanh(x))
UNARY_OP(Sigmoid, UNROLL_MATH, m_sigmoid(x))
UNARY_OP(Relu, UNROLL_CHEAP, x < T(0) ? T(0) : x)           // NaN and -0.0 pass through, as torch
UNARY_OP(Sign, UNROLL_CHEAP, T((T(0) < x) - (x < T(0))))    // 0 for +-0 and NaN, as torch
UNARY_OP(Floor, UNROLL_CHEAP, m_floor(x))
UNARY_OP(Ceil, UNROLL_CHEAP, m_ceil(x))
UNARY_OP(Trunc, UNROLL_CHEAP, m_trunc(x))
UNARY_OP(Round, UNROLL_CHEAP, m_rint(x))
UNARY_OP(Not, UNROLL_CHEAP, !x)

BINARY_OP(Add, UNROLL_CHEAP, a + b)
BINARY_OP(Sub, UNROLL_CHEAP, a - b)
BINARY_OP(Mul, UNROLL_CHEAP, a * b)
BINARY_OP(Div, UNROLL_CHEAP, a / b)
BINARY_OP(Pow, UNROLL_MATH, m_pow(a, b))
BINARY_OP(FloorDivide, UNROLL_MATH, m_floordiv(a, b))
BINARY_OP(TruncDivide, UNROLL_MATH, m_truncdiv(a, b))
BINARY_OP(Remainder, UNROLL_MATH, m_remainder(a, b))
BINARY_OP(Fmod, UNROLL_MATH, m_fmodop(a, b))
BINARY_OP(Atan2, UNROLL_MATH, m_atan2(a, b))
BINARY_OP(Hypot, UNROLL_MATH, m_hypot(a, b))
BINARY_OP(Logaddexp, UNROLL_MATH, m_logaddexp(a, b))
BINARY_OP(Logaddexp2, UNROLL_MATH, m_logaddexp2(a, b))
BINARY_OP(Copysign, UNROLL_CHEAP, m_copysign(a, b))
BINARY_OP(Xlogy, UNROLL_MATH, m_xlogy(a, b))
// NaN from either side wins, as torch. Ties return a (torch itself is not consistent about
// which zero max(-0.0, +0.0) gives). x != x is false for integers and folds away.
BINARY_OP(Maximum, UNROLL_CHEAP, b != b ? b : (a < b ? b : a))
BINARY_OP(Minimum, UNROLL_CHEAP, b != b ? b : (b < a ? b : a))
BINARY_OP(Eq, UNROLL_CHEAP, a == b)
BINARY_OP(Ne, UNROLL_CHEAP, a != b)
BINARY_OP(Lt, UNROLL_CHEAP, a < b)
BINARY_OP(Le, UNROLL_CHEAP, a <= b)
BINARY_OP(Gt, UNROLL_CHEAP, a > b)
BINARY_OP(Ge, UNROLL_CHEAP, a >= b)
BINARY_OP(And, UNROLL_CHEAP, a && b)
BINARY_OP(Or, UNROLL_CHEAP, a || b)

// Backward helpers: a is the incoming gradient, b the forward output. relu's mask is torch's
// threshold_backward (a NaN output lets the gradient through). 1 - b*b loses most digits as |b|
// nears 1 while (1 - b)(1 + b) does not, and agrees with torch's tanh_backward.
BINARY_OP(ReluBackward, UNROLL_CHEAP, b <= T(0) ? T(0) : a)
BINARY_OP(SigmoidBackward, UNROLL_CHEAP, a * (T(1) - b) * b)
BINARY_OP(TanhBackward, UNROLL_CHEAP, a * ((T(1) - b) * (T(1) + b)))

template <class Op, class T> struct BindScalar {   // x op s
    static constexpr int unroll = Op::unroll;
    T s;
    __device__ __forceinline__ auto operator()(T x) const { return Op()(x, s); }
};
template <class Op, class T> struct BindScalarLeft {   // s op x
    static constexpr int unroll = Op::unroll;
    T s;
    __device__ __forceinline__ auto operator()(T x) const { return Op()(s, x); }
};

// The optimizers' p += alpha * g. __fmul_rn is never contracted into a fused multiply-add, so
// the product is rounded on its own, as in a multiply kernel followed by an add kernel.
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
template <class T> struct Axpy {   // (y, x) -> y + alpha * x
    static constexpr int unroll = UNROLL_CHEAP;
    T alpha;
    __device__ __forceinline__ T operator()(T y, T x) const { return y + mul_rn(alpha, x); }
};

// torch.clamp: max with lo then min with hi, so a NaN bound gives NaN and lo > hi gives hi
template <class T> struct Clip {
    static constexpr int unroll = UNROLL_CHEAP;
    T lo, hi;
    int has_lo, has_hi;
    __device__ __forceinline__ T operator()(T x) const {
        if (has_lo) x = Maximum()(x, lo);
        if (has_hi) x = Minimum()(x, hi);
        return x;
    }
};

// ---- contiguous engines -----------------------------------------------------------------------
// Aligned pointers take 16-byte vectors, F::unroll of them loaded before any is stored so that
// each thread keeps several loads in flight; the last n % W elements (or everything, when a
// pointer is misaligned) go one at a time.

#define GRID_STRIDE_SETUP                                                      \
    const i64 stride = (i64)gridDim.x * blockDim.x;                            \
    const i64 first = (i64)blockIdx.x * blockDim.x + threadIdx.x;

template <class T, class R, class F>
__device__ __forceinline__ void map1(const T* x, R* y, i64 n, F f) {
    constexpr int W = 16 / sizeof(T), U = F::unroll;
    typedef Pack<T, W> PIn;
    typedef Pack<R, W> POut;
    GRID_STRIDE_SETUP
    i64 done = 0;
    if (is_aligned(x, sizeof(PIn)) && is_aligned(y, sizeof(POut))) {
        const i64 nv = n / W;
        const typename PIn::Raw* xv = reinterpret_cast<const typename PIn::Raw*>(x);
        typename POut::Raw* yv = reinterpret_cast<typename POut::Raw*>(y);
        for (i64 v = first; v < nv; v += U * stride) {
            PIn in[U];
#pragma unroll
            for (int u = 0; u < U; ++u)
                if (v + u * stride < nv) in[u].raw = xv[v + u * stride];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if (v + u * stride < nv) {
                    POut out;
#pragma unroll
                    for (int k = 0; k < W; ++k) out.e[k] = f(in[u].e[k]);
                    yv[v + u * stride] = out.raw;
                }
            }
        }
        done = nv * W;
    }
    for (i64 i = done + first; i < n; i += stride) y[i] = f(x[i]);
}

template <class T, class R, class F>
__device__ __forceinline__ void map2(const T* a, const T* b, R* y, i64 n, F f) {
    constexpr int W = 16 / sizeof(T), U = F::unroll;
    typedef Pack<T, W> PIn;
    typedef Pack<R, W> POut;
    GRID_STRIDE_SETUP
    i64 done = 0;
    if (is_aligned(a, sizeof(PIn)) && is_aligned(b, sizeof(PIn)) && is_aligned(y, sizeof(POut))) {
        const i64 nv = n / W;
        const typename PIn::Raw* av = reinterpret_cast<const typename PIn::Raw*>(a);
        const typename PIn::Raw* bv = reinterpret_cast<const typename PIn::Raw*>(b);
        typename POut::Raw* yv = reinterpret_cast<typename POut::Raw*>(y);
        for (i64 v = first; v < nv; v += U * stride) {
            PIn ina[U], inb[U];
#pragma unroll
            for (int u = 0; u < U; ++u)
                if (v + u * stride < nv) {
                    ina[u].raw = av[v + u * stride];
                    inb[u].raw = bv[v + u * stride];
                }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if (v + u * stride < nv) {
                    POut out;
#pragma unroll
                    for (int k = 0; k < W; ++k) out.e[k] = f(ina[u].e[k], inb[u].e[k]);
                    yv[v + u * stride] = out.raw;
                }
            }
        }
        done = nv * W;
    }
    for (i64 i = done + first; i < n; i += stride) y[i] = f(a[i], b[i]);
}

// Every block walks every slot with the grid-stride loop of map2; the slot loop is unrolled, so
// x[k], y[k], n[k] have constant indices and stay in registers.
template <class T, int SLOTS>
__device__ __forceinline__ void axpy_list(T alpha, int count, const T* const (&x)[SLOTS],
                                          T* const (&y)[SLOTS], const i64 (&n)[SLOTS]) {
#pragma unroll
    for (int k = 0; k < SLOTS; ++k)
        if (k < count) map2<T, T>(y[k], x[k], y[k], n[k], Axpy<T>{alpha});
}

// ---- Adam ------------------------------------------------------------------------------------
// Every operation is an explicitly rounded intrinsic, so no pair of them is contracted into a
// fused multiply-add and the bits are those of the NumPy backend's one ufunc after another.

#define ADAM_MAXIMIZE 1
#define ADAM_L2 2
#define ADAM_AMSGRAD 4
#define ADAM_LERP_END 8

__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float div_rn(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double div_rn(double a, double b) { return __ddiv_rn(a, b); }
__device__ __forceinline__ float sqrt_rn(float a) { return __fsqrt_rn(a); }
__device__ __forceinline__ double sqrt_rn(double a) { return __dsqrt_rn(a); }

template <class T> struct AdamHyper {
    T lerp_weight, beta2, one_minus_beta2, weight_decay, decay, eps;
    int flags;
};

template <class T>
__device__ __forceinline__ void adam_element(const AdamHyper<T>& h, T neg_step, T bc2, T& p, T g,
                                             T& m, T& v, T& vmax) {
    p = mul_rn(p, h.decay);
    T d = (h.flags & ADAM_MAXIMIZE) ? -g : g;
    if (h.flags & ADAM_L2) d = add_rn(d, mul_rn(p, h.weight_decay));
    const T step = mul_rn(sub_rn(d, m), h.lerp_weight);
    m = (h.flags & ADAM_LERP_END) ? sub_rn(d, step) : add_rn(m, step);
    v = add_rn(mul_rn(v, h.beta2), mul_rn(mul_rn(d, h.one_minus_beta2), d));
    T second = v;
    if (h.flags & ADAM_AMSGRAD) second = vmax = Maximum()(vmax, v);
    const T denom = add_rn(div_rn(sqrt_rn(second), bc2), h.eps);
    p = add_rn(p, div_rn(mul_rn(m, neg_step), denom));
}

// One slot of an optimizer's update, grid-stride: the K arrays whose bit is set in `used` are
// updated in place (the others may be null) from one read-only gradient, f(e, g) taking each element's K
// values by reference. 16-byte vectors when every array used is aligned for them (a thread
// loads all its operands before it computes), then the rest one element at a time.
template <class T, int K, class F>
__device__ __forceinline__ void update_slot(T* const (&x)[K], int used, const T* g, i64 n, F f) {
    constexpr int W = 16 / sizeof(T);
    typedef Pack<T, W> P;
    typedef typename P::Raw Raw;
    GRID_STRIDE_SETUP
    bool aligned = is_aligned(g, 16);
#pragma unroll
    for (int k = 0; k < K; ++k)
        if (used >> k & 1) aligned = aligned && is_aligned(x[k], 16);
    i64 done = 0;
    if (aligned) {
        const i64 nv = n / W;
        for (i64 i = first; i < nv; i += stride) {
            P v[K], gv;
            gv.raw = reinterpret_cast<const Raw*>(g)[i];
#pragma unroll
            for (int k = 0; k < K; ++k)
                if (used >> k & 1) v[k].raw = reinterpret_cast<const Raw*>(x[k])[i];
#pragma unroll
            for (int w = 0; w < W; ++w) {
                T e[K];
#pragma unroll
                for (int k = 0; k < K; ++k) e[k] = (used >> k & 1) ? v[k].e[w] : T(0);
                f(e, gv.e[w]);
#pragma unroll
                for (int k = 0; k < K; ++k) v[k].e[w] = e[k];
            }
#pragma unroll
            for (int k = 0; k < K; ++k)
                if (used >> k & 1) reinterpret_cast<Raw*>(x[k])[i] = v[k].raw;
        }
        done = nv * W;
    }
    for (i64 i = done + first; i < n; i += stride) {
        T e[K];
#pragma unroll
        for (int k = 0; k < K; ++k) e[k] = (used >> k & 1) ? x[k][i] : T(0);
        f(e, g[i]);
#pragma unroll
        for (int k = 0; k < K; ++k)
            if (used >> k & 1) x[k][i] = e[k];
    }
}

template <class T>
__device__ __forceinline__ void adam_slot(const AdamHyper<T>& h, T* p, const T* g, T* m, T* v,
                                          T* vmax, i64 n, T neg_step, T bc2) {
    T* const x[4] = {p, m, v, vmax};
    update_slot(x, (h.flags & ADAM_AMSGRAD) ? 15 : 7, g, n, [&](T (&e)[4], T ge) {
        adam_element(h, neg_step, bc2, e[0], ge, e[1], e[2], e[3]);
    });
}

// ---- SGD with momentum or weight decay ----------------------------------------------------------

#define SGD_MAXIMIZE 1
#define SGD_L2 2
#define SGD_MOMENTUM 4
#define SGD_NESTEROV 8
#define SGD_DAMPENING 16

template <class T> struct SgdHyper {
    T lr, momentum, one_minus_dampening, weight_decay;
    int flags;
};

template <class T>
__device__ __forceinline__ void sgd_element(const SgdHyper<T>& h, int first, T& p, T g, T& buf) {
    T d = (h.flags & SGD_MAXIMIZE) ? -g : g;
    if (h.flags & SGD_L2) d = add_rn(d, mul_rn(p, h.weight_decay));
    if (h.flags & SGD_MOMENTUM) {
        if (first)
            buf = d;
        else
            buf = add_rn(mul_rn(buf, h.momentum),
                         (h.flags & SGD_DAMPENING) ? mul_rn(d, h.one_minus_dampening) : d);
        d = (h.flags & SGD_NESTEROV) ? add_rn(d, mul_rn(buf, h.momentum)) : buf;
    }
    p = sub_rn(p, mul_rn(d, h.lr));
}

template <class T>
__device__ __forceinline__ void sgd_slot(const SgdHyper<T>& h, T* p, const T* g, T* buf, i64 n,
                                         int first) {
    T* const x[2] = {p, buf};
    update_slot(x, (h.flags & SGD_MOMENTUM) ? 3 : 1, g, n,
                [&](T (&e)[2], T ge) { sgd_element(h, first, e[0], ge, e[1]); });
}

template <class T, int SLOTS>
__device__ __forceinline__ void sgd_list(const SgdHyper<T>& h, int count, T* const (&p)[SLOTS],
                                         const T* const (&g)[SLOTS], T* const (&buf)[SLOTS],
                                         const i64 (&n)[SLOTS], const int (&first)[SLOTS]) {
#pragma unroll
    for (int k = 0; k < SLOTS; ++k)
        if (k < count) sgd_slot(h, p[k], g[k], buf[k], n[k], first[k]);
}

// ---- RMSprop and Adagrad -----------------------------------------------------------------------

#define RMSPROP_MAXIMIZE 1
#define RMSPROP_L2 2
#define RMSPROP_CENTERED 4
#define RMSPROP_MOMENTUM 8
#define RMSPROP_LERP_END 16

template <class T> struct RmspropHyper {
    T lr, alpha, one_minus_alpha, lerp_weight, eps, weight_decay, momentum;
    int flags;
};

template <class T>
__device__ __forceinline__ void rmsprop_element(const RmspropHyper<T>& h, T& p, T g, T& sq, T& gavg,
                                                T& buf) {
    T d = (h.flags & RMSPROP_MAXIMIZE) ? -g : g;
    if (h.flags & RMSPROP_L2) d = add_rn(d, mul_rn(p, h.weight_decay));
    sq = add_rn(mul_rn(sq, h.alpha), mul_rn(mul_rn(d, h.one_minus_alpha), d));
    T avg;
    if (h.flags & RMSPROP_CENTERED) {
        const T step = mul_rn(sub_rn(d, gavg), h.lerp_weight);
        gavg = (h.flags & RMSPROP_LERP_END) ? sub_rn(d, step) : add_rn(gavg, step);
        avg = sqrt_rn(sub_rn(sq, mul_rn(gavg, gavg)));
    } else {
        avg = sqrt_rn(sq);
    }
    avg = add_rn(avg, h.eps);
    if (h.flags & RMSPROP_MOMENTUM) {
        buf = add_rn(mul_rn(buf, h.momentum), div_rn(d, avg));
        p = sub_rn(p, mul_rn(buf, h.lr));
    } else {
        p = add_rn(p, div_rn(mul_rn(d, -h.lr), avg));
    }
}

template <class T>
__device__ __forceinline__ void rmsprop_slot(const RmspropHyper<T>& h, T* p, const T* g, T* sq,
                                             T* gavg, T* buf, i64 n) {
    T* const x[4] = {p, sq, gavg, buf};
    const int used = 3 | ((h.flags & RMSPROP_CENTERED) ? 4 : 0) | ((h.flags & RMSPROP_MOMENTUM) ? 8 : 0);
    update_slot(x, used, g, n,
                [&](T (&e)[4], T ge) { rmsprop_element(h, e[0], ge, e[1], e[2], e[3]); });
}

#define ADAGRAD_MAXIMIZE 1
#define ADAGRAD_L2 2

template <class T> struct AdagradHyper {
    T eps, weight_decay;
    int flags;
};

template <class T>
__device__ __forceinline__ void adagrad_element(const AdagradHyper<T>& h, T neg_clr, T& p, T g,
                                                T& sum) {
    T d = (h.flags & ADAGRAD_MAXIMIZE) ? -g : g;
    if (h.flags & ADAGRAD_L2) d = add_rn(d, mul_rn(p, h.weight_decay));
    sum = add_rn(sum, mul_rn(d, d));
    p = add_rn(p, div_rn(mul_rn(d, neg_clr), add_rn(sqrt_rn(sum), h.eps)));
}

template <class T>
__device__ __forceinline__ void adagrad_slot(const AdagradHyper<T>& h, T* p, const T* g, T* sum,
                                             i64 n, T neg_clr) {
    T* const x[2] = {p, sum};
    update_slot(x, 3, g, n, [&](T (&e)[2], T ge) { adagrad_element(h, neg_clr, e[0], ge, e[1]); });
}

template <class T, int SLOTS>
__device__ __forceinline__ void rmsprop_list(const RmspropHyper<T>& h, int count,
                                             T* const (&p)[SLOTS], const T* const (&g)[SLOTS],
                                             T* const (&sq)[SLOTS], T* const (&gavg)[SLOTS],
                                             T* const (&buf)[SLOTS], const i64 (&n)[SLOTS]) {
#pragma unroll
    for (int k = 0; k < SLOTS; ++k)
        if (k < count) rmsprop_slot(h, p[k], g[k], sq[k], gavg[k], buf[k], n[k]);
}

template <class T, int SLOTS>
__device__ __forceinline__ void adagrad_list(const AdagradHyper<T>& h, int count,
                                             T* const (&p)[SLOTS], const T* const (&g)[SLOTS],
                                             T* const (&sum)[SLOTS], const i64 (&n)[SLOTS],
                                             const T (&neg_clr)[SLOTS]) {
#pragma unroll
    for (int k = 0; k < SLOTS; ++k)
        if (k < count) adagrad_slot(h, p[k], g[k], sum[k], n[k], neg_clr[k]);
}

// As axpy_list: every block walks every slot, the unrolled slot loop keeps indices constant.
template <class T, int SLOTS>
__device__ __forceinline__ void adam_list(const AdamHyper<T>& h, int count, T* const (&p)[SLOTS],
                                          const T* const (&g)[SLOTS], T* const (&m)[SLOTS],
                                          T* const (&v)[SLOTS], T* const (&vmax)[SLOTS],
                                          const i64 (&n)[SLOTS], const T (&neg_step)[SLOTS],
                                          const T (&bc2)[SLOTS]) {
#pragma unroll
    for (int k = 0; k < SLOTS; ++k)
        if (k < count) adam_slot(h, p[k], g[k], m[k], v[k], vmax[k], n[k], neg_step[k], bc2[k]);
}

template <class T>
__device__ __forceinline__ void fill(T* y, T value, i64 n) {
    constexpr int W = 16 / sizeof(T);
    typedef Pack<T, W> P;
    GRID_STRIDE_SETUP
    i64 done = 0;
    if (is_aligned(y, sizeof(P))) {
        const i64 nv = n / W;
        P p;
#pragma unroll
        for (int k = 0; k < W; ++k) p.e[k] = value;
        typename P::Raw* yv = reinterpret_cast<typename P::Raw*>(y);
        for (i64 v = first; v < nv; v += stride) yv[v] = p.raw;
        done = nv * W;
    }
    for (i64 i = done + first; i < n; i += stride) y[i] = value;
}

// ---- strided engine ---------------------------------------------------------------------------
// Each output index is decoded into coordinates (last dim fastest) and turned into one element
// offset per operand. The division chain is 32-bit when the indices fit, which is much cheaper
// than 64-bit division; the 64-bit chain is only for tensors of 2^32 elements or more, so it is
// kept out of line: inlined into every kernel it would double their compile time.

template <int K> struct Offsets { i64 o[K]; };

template <int K, class I>
__device__ __forceinline__ Offsets<K> offsets(I idx, const i64* s, int ndim) {
    Offsets<K> off;
#pragma unroll
    for (int k = 0; k < K; ++k) off.o[k] = 0;
    for (int d = ndim - 1; d > 0; --d) {
        const I extent = (I)s[d];
        const I q = idx / extent;
        const i64 c = (i64)(idx - q * extent);
        idx = q;
#pragma unroll
        for (int k = 0; k < K; ++k) off.o[k] += c * s[(k + 1) * ndim + d];
    }
    if (ndim > 0) {  // what is left of the index is the outermost coordinate
#pragma unroll
        for (int k = 0; k < K; ++k) off.o[k] += (i64)idx * s[(k + 1) * ndim];
    }
    return off;
}

template <int K>
__device__ __noinline__ Offsets<K> offsets_wide(unsigned long long idx, const i64* s, int ndim) {
    return offsets<K, unsigned long long>(idx, s, ndim);
}

// Calls body(i, off) for every output index i, off.o holding the K operand offsets.
template <int K, class Body>
__device__ __forceinline__ void for_each_strided(i64 n, const i64* meta, int ndim, Body body) {
    __shared__ i64 s[MAX_NDIM * (K + 1)];
    if (ndim > MAX_NDIM) __trap();  // the launcher collapses or rejects deeper shapes
    for (int j = threadIdx.x; j < ndim * (K + 1); j += blockDim.x) s[j] = meta[j];
    __syncthreads();
    GRID_STRIDE_SETUP
    if (n <= 0xFFFFFFFFLL) {
        for (i64 i = first; i < n; i += stride)
            body(i, offsets<K, unsigned int>((unsigned int)i, s, ndim));
    } else {
        for (i64 i = first; i < n; i += stride)
            body(i, offsets_wide<K>((unsigned long long)i, s, ndim));
    }
}

template <class T, class R, class F>
__device__ __forceinline__ void strided1(const T* x, R* y, i64 n, const i64* meta, int ndim, F f) {
    for_each_strided<1>(n, meta, ndim,
                        [&](i64 i, const Offsets<1>& off) { y[i] = f(x[off.o[0]]); });
}

template <class T, class R, class F>
__device__ __forceinline__ void strided2(const T* a, const T* b, R* y, i64 n, const i64* meta,
                                         int ndim, F f) {
    for_each_strided<2>(n, meta, ndim,
                        [&](i64 i, const Offsets<2>& off) { y[i] = f(a[off.o[0]], b[off.o[1]]); });
}

template <class T>
__device__ __forceinline__ void where_strided(const bool* c, const T* a, const T* b, T* y, i64 n,
                                              const i64* meta, int ndim) {
    for_each_strided<3>(n, meta, ndim, [&](i64 i, const Offsets<3>& off) {
        y[i] = c[off.o[0]] ? a[off.o[1]] : b[off.o[2]];
    });
}

// ---- entry points: one macro per form ---------------------------------------------------------
// Form macros take the full kernel name (so and_b8 / or_b8 / not_b8, whose op names are C++
// alternative tokens, need no token pasting); the *_ALL macros paste <op>_<form>_<sfx>.

#define UNARY_CONTIG(name, T, R, F)                                            \
    extern "C" __global__ void name(const T* x, R* y, i64 n) { map1(x, y, n, F()); }
#define UNARY_STRIDED(name, T, R, F)                                           \
    extern "C" __global__ void name(const T* x, R* y, i64 n, const i64* meta, int ndim) { \
        strided1(x, y, n, meta, ndim, F());                                    \
    }
#define BINARY_CONTIG(name, T, R, F)                                           \
    extern "C" __global__ void name(const T* a, const T* b, R* out, i64 n) {   \
        map2(a, b, out, n, F());                                               \
    }
#define BINARY_SCALAR(name, T, R, F)                                           \
    extern "C" __global__ void name(const T* a, T s, R* out, i64 n) {          \
        map1(a, out, n, BindScalar<F, T>{s});                                  \
    }
#define BINARY_RSCALAR(name, T, R, F)                                          \
    extern "C" __global__ void name(const T* a, T s, R* out, i64 n) {          \
        map1(a, out, n, BindScalarLeft<F, T>{s});                              \
    }
#define BINARY_STRIDED(name, T, R, F)                                          \
    extern "C" __global__ void name(const T* a, const T* b, R* out, i64 n, const i64* meta, \
                                    int ndim) {                                \
        strided2(a, b, out, n, meta, ndim, F());                               \
    }
#define WHERE_STRIDED(name, T)                                                 \
    extern "C" __global__ void name(const bool* c, const T* a, const T* b, T* out, i64 n, \
                                    const i64* meta, int ndim) {               \
        where_strided(c, a, b, out, n, meta, ndim);                            \
    }
#define CLIP(name, T)                                                          \
    extern "C" __global__ void name(const T* x, T* y, i64 n, T lo, T hi, int has_lo,      \
                                    int has_hi) {                              \
        map1(x, y, n, Clip<T>{lo, hi, has_lo, has_hi});                        \
    }
#define FILL(name, T)                                                          \
    extern "C" __global__ void name(T* y, T value, i64 n) { fill(y, value, n); }
#define AXPY(name, T)                                                          \
    extern "C" __global__ void name(const T* x, T alpha, T* y, i64 n) {        \
        map2<T, T>(y, x, y, n, Axpy<T>{alpha});                                \
    }

#define AXPY_LIST_MAX 8
#define AXPY_SLOT(T, k) const T* x##k, T* y##k, i64 n##k
#define AXPY_LIST(name, T)                                                     \
    extern "C" __global__ void name(T alpha, int count, AXPY_SLOT(T, 0), AXPY_SLOT(T, 1), \
                                    AXPY_SLOT(T, 2), AXPY_SLOT(T, 3), AXPY_SLOT(T, 4),   \
                                    AXPY_SLOT(T, 5), AXPY_SLOT(T, 6), AXPY_SLOT(T, 7)) { \
        const T* x[AXPY_LIST_MAX] = {x0, x1, x2, x3, x4, x5, x6, x7};          \
        T* y[AXPY_LIST_MAX] = {y0, y1, y2, y3, y4, y5, y6, y7};                \
        const i64 n[AXPY_LIST_MAX] = {n0, n1, n2, n3, n4, n5, n6, n7};         \
        axpy_list(alpha, count, x, y, n);                                      \
    }

#define ADAM_LIST_MAX 8
#define ADAM_SLOT(T, k) T* p##k, const T* g##k, T* m##k, T* v##k, T* w##k, i64 n##k, T s##k, T b##k
#define ADAM_LIST(name, T)                                                     \
    extern "C" __global__ void name(T lerp_weight, T beta2, T one_minus_beta2, T weight_decay, \
                                    T decay, T eps, int flags, int count,      \
                                    ADAM_SLOT(T, 0), ADAM_SLOT(T, 1), ADAM_SLOT(T, 2),   \
                                    ADAM_SLOT(T, 3), ADAM_SLOT(T, 4), ADAM_SLOT(T, 5),   \
                                    ADAM_SLOT(T, 6), ADAM_SLOT(T, 7)) {        \
        const AdamHyper<T> h = {lerp_weight, beta2, one_minus_beta2, weight_decay, decay, eps, \
                                flags};                                        \
        T* p[ADAM_LIST_MAX] = {p0, p1, p2, p3, p4, p5, p6, p7};                \
        const T* g[ADAM_LIST_MAX] = {g0, g1, g2, g3, g4, g5, g6, g7};          \
        T* m[ADAM_LIST_MAX] = {m0, m1, m2, m3, m4, m5, m6, m7};                \
        T* v[ADAM_LIST_MAX] = {v0, v1, v2, v3, v4, v5, v6, v7};                \
        T* w[ADAM_LIST_MAX] = {w0, w1, w2, w3, w4, w5, w6, w7};                \
        const i64 n[ADAM_LIST_MAX] = {n0, n1, n2, n3, n4, n5, n6, n7};         \
        const T s[ADAM_LIST_MAX] = {s0, s1, s2, s3, s4, s5, s6, s7};           \
        const T b[ADAM_LIST_MAX] = {b0, b1, b2, b3, b4, b5, b6, b7};           \
        adam_list(h, count, p, g, m, v, w, n, s, b);                           \
    }

#define SGD_LIST_MAX 8
#define SGD_SLOT(T, k) T* p##k, const T* g##k, T* b##k, i64 n##k, int f##k
#define SGD_LIST(name, T)                                                      \
    extern "C" __global__ void name(T lr, T momentum, T one_minus_dampening, T weight_decay,   \
                                    int flags, int count, SGD_SLOT(T, 0), SGD_SLOT(T, 1), \
                                    SGD_SLOT(T, 2), SGD_SLOT(T, 3), SGD_SLOT(T, 4),       \
                                    SGD_SLOT(T, 5), SGD_SLOT(T, 6), SGD_SLOT(T, 7)) {     \
        const SgdHyper<T> h = {lr, momentum, one_minus_dampening, weight_decay, flags};   \
        T* p[SGD_LIST_MAX] = {p0, p1, p2, p3, p4, p5, p6, p7};                 \
        const T* g[SGD_LIST_MAX] = {g0, g1, g2, g3, g4, g5, g6, g7};           \
        T* b[SGD_LIST_MAX] = {b0, b1, b2, b3, b4, b5, b6, b7};                 \
        const i64 n[SGD_LIST_MAX] = {n0, n1, n2, n3, n4, n5, n6, n7};          \
        const int f[SGD_LIST_MAX] = {f0, f1, f2, f3, f4, f5, f6, f7};          \
        sgd_list(h, count, p, g, b, n, f);                                     \
    }

#define RMSPROP_LIST_MAX 8
#define RMSPROP_SLOT(T, k) T* p##k, const T* g##k, T* s##k, T* a##k, T* b##k, i64 n##k
#define RMSPROP_LIST(name, T)                                                  \
    extern "C" __global__ void name(T lr, T alpha, T one_minus_alpha, T lerp_weight, T eps,    \
                                    T weight_decay, T momentum, int flags, int count,         \
                                    RMSPROP_SLOT(T, 0), RMSPROP_SLOT(T, 1), RMSPROP_SLOT(T, 2), \
                                    RMSPROP_SLOT(T, 3), RMSPROP_SLOT(T, 4), RMSPROP_SLOT(T, 5), \
                                    RMSPROP_SLOT(T, 6), RMSPROP_SLOT(T, 7)) {  \
        const RmspropHyper<T> h = {lr, alpha, one_minus_alpha, lerp_weight, eps, weight_decay, \
                                   momentum, flags};                           \
        T* p[RMSPROP_LIST_MAX] = {p0, p1, p2, p3, p4, p5, p6, p7};             \
        const T* g[RMSPROP_LIST_MAX] = {g0, g1, g2, g3, g4, g5, g6, g7};       \
        T* s[RMSPROP_LIST_MAX] = {s0, s1, s2, s3, s4, s5, s6, s7};             \
        T* a[RMSPROP_LIST_MAX] = {a0, a1, a2, a3, a4, a5, a6, a7};             \
        T* b[RMSPROP_LIST_MAX] = {b0, b1, b2, b3, b4, b5, b6, b7};             \
        const i64 n[RMSPROP_LIST_MAX] = {n0, n1, n2, n3, n4, n5, n6, n7};      \
        rmsprop_list(h, count, p, g, s, a, b, n);                              \
    }

#define ADAGRAD_LIST_MAX 8
#define ADAGRAD_SLOT(T, k) T* p##k, const T* g##k, T* s##k, i64 n##k, T c##k
#define ADAGRAD_LIST(name, T)                                                  \
    extern "C" __global__ void name(T eps, T weight_decay, int flags, int count,              \
                                    ADAGRAD_SLOT(T, 0), ADAGRAD_SLOT(T, 1), ADAGRAD_SLOT(T, 2), \
                                    ADAGRAD_SLOT(T, 3), ADAGRAD_SLOT(T, 4), ADAGRAD_SLOT(T, 5), \
                                    ADAGRAD_SLOT(T, 6), ADAGRAD_SLOT(T, 7)) {  \
        const AdagradHyper<T> h = {eps, weight_decay, flags};                  \
        T* p[ADAGRAD_LIST_MAX] = {p0, p1, p2, p3, p4, p5, p6, p7};             \
        const T* g[ADAGRAD_LIST_MAX] = {g0, g1, g2, g3, g4, g5, g6, g7};       \
        T* s[ADAGRAD_LIST_MAX] = {s0, s1, s2, s3, s4, s5, s6, s7};             \
        const i64 n[ADAGRAD_LIST_MAX] = {n0, n1, n2, n3, n4, n5, n6, n7};      \
        const T c[ADAGRAD_LIST_MAX] = {c0, c1, c2, c3, c4, c5, c6, c7};        \
        adagrad_list(h, count, p, g, s, n, c);                                 \
    }

#define UNARY_ALL(op, F, sfx, T)                                               \
    UNARY_CONTIG(op##_##sfx, T, T, F)                                          \
    UNARY_STRIDED(op##_strided_##sfx, T, T, F)
#define BINARY_ALL_R(op, F, sfx, T, R)                                         \
    BINARY_CONTIG(op##_##sfx, T, R, F)                                         \
    BINARY_SCALAR(op##_scalar_##sfx, T, R, F)                                  \
    BINARY_RSCALAR(op##_rscalar_##sfx, T, R, F)                                \
    BINARY_STRIDED(op##_strided_##sfx, T, R, F)
#define BINARY_ALL(op, F, sfx, T) BINARY_ALL_R(op, F, sfx, T, T)
#define COMPARE_ALL(op, F, sfx, T) BINARY_ALL_R(op, F, sfx, T, bool)

// ---- instantiation ----------------------------------------------------------------------------

#define FLOAT_KERNELS(sfx, T)                                                  \
    UNARY_ALL(neg, Neg, sfx, T)                                                \
    UNARY_ALL(abs, Abs, sfx, T)                                                \
    UNARY_ALL(exp, Exp, sfx, T)                                                \
    UNARY_ALL(log, Log, sfx, T)                                                \
    UNARY_ALL(log1p, Log1p, sfx, T)                                            \
    UNARY_ALL(expm1, Expm1, sfx, T)                                            \
    UNARY_ALL(erf, Erf, sfx, T)                                                \
    UNARY_ALL(sqrt, Sqrt, sfx, T)                                              \
    UNARY_ALL(sin, Sin, sfx, T)                                                \
    UNARY_ALL(cos, Cos, sfx, T)                                                \
    UNARY_ALL(tanh, Tanh, sfx, T)                                              \
    UNARY_ALL(sigmoid, Sigmoid, sfx, T)                                        \
    UNARY_ALL(relu, Relu, sfx, T)                                              \
    UNARY_ALL(sign, Sign, sfx, T)                                              \
    UNARY_ALL(floor, Floor, sfx, T)                                            \
    UNARY_ALL(ceil, Ceil, sfx, T)                                              \
    UNARY_ALL(trunc, Trunc, sfx, T)                                            \
    UNARY_ALL(round, Round, sfx, T)                                            \
    BINARY_ALL(add, Add, sfx, T)                                               \
    BINARY_ALL(sub, Sub, sfx, T)                                               \
    BINARY_ALL(mul, Mul, sfx, T)                                               \
    BINARY_ALL(div, Div, sfx, T)                                               \
    BINARY_ALL(pow, Pow, sfx, T)                                               \
    BINARY_ALL(maximum, Maximum, sfx, T)                                       \
    BINARY_ALL(minimum, Minimum, sfx, T)                                       \
    BINARY_CONTIG(relu_backward_##sfx, T, T, ReluBackward)                     \
    BINARY_CONTIG(sigmoid_backward_##sfx, T, T, SigmoidBackward)               \
    BINARY_CONTIG(tanh_backward_##sfx, T, T, TanhBackward)                     \
    AXPY(axpy_##sfx, T)                                                        \
    AXPY_LIST(axpy_list_##sfx, T)                                              \
    ADAM_LIST(adam_list_##sfx, T)                                              \
    SGD_LIST(sgd_list_##sfx, T)                                                \
    RMSPROP_LIST(rmsprop_list_##sfx, T)                                        \
    ADAGRAD_LIST(adagrad_list_##sfx, T)

#define INT_KERNELS(sfx, T)                                                    \
    UNARY_ALL(neg, Neg, sfx, T)                                                \
    UNARY_ALL(abs, Abs, sfx, T)                                                \
    UNARY_ALL(relu, Relu, sfx, T)                                              \
    UNARY_ALL(sign, Sign, sfx, T)                                              \
    BINARY_ALL(add, Add, sfx, T)                                               \
    BINARY_ALL(sub, Sub, sfx, T)                                               \
    BINARY_ALL(mul, Mul, sfx, T)                                               \
    BINARY_ALL(maximum, Maximum, sfx, T)                                       \
    BINARY_ALL(minimum, Minimum, sfx, T)                                       \
    BINARY_ALL(pow, Pow, sfx, T)

// every numeric dtype; bool's share of these is instantiated at the end
#define NUMERIC_KERNELS(sfx, T)                                                \
    COMPARE_ALL(eq, Eq, sfx, T)                                                \
    COMPARE_ALL(ne, Ne, sfx, T)                                                \
    COMPARE_ALL(lt, Lt, sfx, T)                                                \
    COMPARE_ALL(le, Le, sfx, T)                                                \
    COMPARE_ALL(gt, Gt, sfx, T)                                                \
    COMPARE_ALL(ge, Ge, sfx, T)                                                \
    WHERE_STRIDED(where_strided_##sfx, T)                                      \
    CLIP(clip_##sfx, T)                                                        \
    FILL(fill_##sfx, T)

// torch.floor_divide, div(rounding_mode='trunc'), remainder, fmod: every numeric dtype
#define DIVISION_KERNELS(sfx, T)                                               \
    BINARY_ALL(floor_divide, FloorDivide, sfx, T)                              \
    BINARY_ALL(trunc_divide, TruncDivide, sfx, T)                              \
    BINARY_ALL(remainder, Remainder, sfx, T)                                   \
    BINARY_ALL(fmod, Fmod, sfx, T)

FLOAT_KERNELS(f32, float)
FLOAT_KERNELS(f64, double)
INT_KERNELS(i64, long long)
INT_KERNELS(i32, int)
NUMERIC_KERNELS(f32, float)
NUMERIC_KERNELS(f64, double)
NUMERIC_KERNELS(i64, long long)
NUMERIC_KERNELS(i32, int)
// the rest of torch's float math (trigonometric, hyperbolic, base-2/10, two-argument): f32, f64
#define MATH_MORE_KERNELS(sfx, T)                                              \
    UNARY_ALL(tan, Tan, sfx, T)                                                \
    UNARY_ALL(asin, Asin, sfx, T)                                              \
    UNARY_ALL(acos, Acos, sfx, T)                                              \
    UNARY_ALL(atan, Atan, sfx, T)                                              \
    UNARY_ALL(sinh, Sinh, sfx, T)                                              \
    UNARY_ALL(cosh, Cosh, sfx, T)                                              \
    UNARY_ALL(asinh, Asinh, sfx, T)                                            \
    UNARY_ALL(acosh, Acosh, sfx, T)                                            \
    UNARY_ALL(atanh, Atanh, sfx, T)                                            \
    UNARY_ALL(log2, Log2, sfx, T)                                              \
    UNARY_ALL(log10, Log10, sfx, T)                                            \
    UNARY_ALL(exp2, Exp2, sfx, T)                                              \
    UNARY_ALL(rsqrt, Rsqrt, sfx, T)                                            \
    BINARY_ALL(atan2, Atan2, sfx, T)                                           \
    BINARY_ALL(hypot, Hypot, sfx, T)                                           \
    BINARY_ALL(logaddexp, Logaddexp, sfx, T)                                   \
    BINARY_ALL(logaddexp2, Logaddexp2, sfx, T)                                 \
    BINARY_ALL(copysign, Copysign, sfx, T)                                     \
    BINARY_ALL(xlogy, Xlogy, sfx, T)

MATH_MORE_KERNELS(f32, float)
MATH_MORE_KERNELS(f64, double)
DIVISION_KERNELS(f32, float)
DIVISION_KERNELS(f64, double)
DIVISION_KERNELS(i64, long long)
DIVISION_KERNELS(i32, int)

COMPARE_ALL(eq, Eq, b8, bool)
COMPARE_ALL(ne, Ne, b8, bool)
BINARY_CONTIG(and_b8, bool, bool, And)
BINARY_CONTIG(or_b8, bool, bool, Or)
UNARY_CONTIG(not_b8, bool, bool, Not)
BINARY_STRIDED(and_strided_b8, bool, bool, And)
BINARY_STRIDED(or_strided_b8, bool, bool, Or)
WHERE_STRIDED(where_strided_b8, bool)
FILL(fill_b8, bool)

// ---- special functions and integer bit math: SPECIAL_KERNELS ----------------------------------
// torch.special, lgamma, digamma, polygamma, erfc, erfinv, i0, igamma, nextafter, frexp (f32,
// f64) and bitwise_and/or/xor/not, shifts, gcd, lcm (i32, i64; and/or/xor/not also b8), with the
// algorithms of torch's CPU kernels (aten/src/ATen/native/Math.h): Cephes's digamma, zeta, i0/i1
// Chebyshev series and ndtri, SciPy's igam/igamc (without its asymptotic series for a ~ x large,
// where the series and continued fraction below are as accurate). The NumPy backend's
// numpy_special.py is their twin. Forms, beyond the unary and binary ones of the header:
//   polygamma  polygamma_scalar_<sfx>(const T* x, T n, T* y, count)   n: an integral value >= 0
//   frexp      frexp_<sfx>(const T* x, T* mantissa, int* exponent, count), contiguous arrays

// Coefficient tables live in constant memory on the GPU (every thread of a warp reads the same
// entry at once: one broadcast) and as plain statics in a host build.
#ifdef __CUDA_ARCH__
#define SPECIAL_TABLE __constant__ const double
#else
#define SPECIAL_TABLE static const double
#endif

MATH_FN(m_lgamma, lgammaf, lgamma)
MATH_FN(m_erfc, erfcf, erfc)
MATH_FN2(m_nextafter, nextafterf, nextafter)
MATH_FN2(m_powr, powf, pow)
__device__ __forceinline__ float m_frexp(float x, int* e) { return frexpf(x, e); }
__device__ __forceinline__ double m_frexp(double x, int* e) { return frexp(x, e); }

template <class T> struct SpecialLimits;
template <> struct SpecialLimits<float> {
    static __device__ float machep() { return 5.9604644775390625E-8f; }
    static __device__ float big() { return 16777216.f; }
    static __device__ float maxlog() { return 88.72283905206835f; }
    static __device__ float inf() { return __int_as_float(0x7f800000); }
    static __device__ float nan() { return __int_as_float(0x7fc00000); }
};
template <> struct SpecialLimits<double> {
    static __device__ double machep() { return 1.11022302462515654042E-16; }
    static __device__ double big() { return 4.503599627370496e15; }
    static __device__ double maxlog() { return 7.09782712893383996843E2; }
    static __device__ double inf() { return __longlong_as_double(0x7ff0000000000000ll); }
    static __device__ double nan() { return __longlong_as_double(0x7ff8000000000000ll); }
};
#define SP_PI 3.14159265358979323846

// sum c[k] x^(len-1-k) (Horner, highest power first) and Cephes's Chebyshev sum
template <class T> __device__ __forceinline__ T polevl(T x, const double* c, int len) {
    T r = T(0);
    for (int i = 0; i < len; ++i) r = r * x + T(c[i]);
    return r;
}
template <class T> __device__ __forceinline__ T chbevl(T x, const double* c, int len) {
    T b0 = T(c[0]), b1 = T(0), b2 = T(0);
    for (int i = 1; i < len; ++i) {
        b2 = b1;
        b1 = b0;
        b0 = x * b1 - b2 + T(c[i]);
    }
    return T(0.5) * (b0 - b2);
}

SPECIAL_TABLE psi_asym[7] = {8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
                             -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
                             8.33333333333333333333E-2};

// psi(x): -+inf at -+0, NaN at the negative integers, the reflection below 0; for x > 0
// recurrences up to 10, then the asymptotic series
template <class T> __device__ T digamma_pos(T x) {
    T result = T(0);
    while (x < T(10)) {
        result -= T(1) / x;
        x += T(1);
    }
    if (x == T(10)) return result + T(2.25175258906672110764);
    T y = T(0);
    if (x < T(1.0e17)) {
        const T z = T(1) / (x * x);
        y = z * polevl(z, psi_asym, 7);
    }
    return result + m_log(x) - T(0.5) / x - y;
}
template <class T> __device__ T m_digamma(T x) {
    typedef SpecialLimits<T> L;
    if (x == T(0)) return m_copysign(L::inf(), -x);
    if (x >= T(0) || x != x) return digamma_pos(x);
    if (x == m_trunc(x)) return L::nan();
    return digamma_pos(T(1) - x) - T(SP_PI) / m_tan(T(SP_PI) * (x - m_trunc(x)));
}

template <class T> __device__ T m_trigamma(T x) {
    T sign = T(1), result = T(0);
    if (x < T(0.5)) {
        sign = T(-1);
        const T s = m_sin(T(SP_PI) * x);
        result -= T(SP_PI * SP_PI) / (s * s);
        x = T(1) - x;
    }
    for (int i = 0; i < 6; ++i) {
        result += T(1) / (x * x);
        x += T(1);
    }
    const T ixx = T(1) / (x * x);
    result += (T(1) + T(1) / (T(2) * x) + ixx * (T(1. / 6) - ixx * (T(1. / 30) - ixx * T(1. / 42)))) / x;
    return sign * result;
}

SPECIAL_TABLE zeta_a[12] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
                            7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
                            -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18};

// Hurwitz zeta(x, q) = sum_k (k + q)^-x: a direct sum until the terms are negligible or q + k > 9,
// then the Euler-Maclaurin tail (float inputs are summed in double, as torch's CPU kernel does)
template <class T> __device__ T m_zeta(T x, T q) {
    typedef SpecialLimits<T> L;
    if (x == T(1)) return L::inf();
    if (x < T(1)) return L::nan();
    if (q <= T(0)) {
        if (q == m_floor(q)) return L::inf();
        if (x != m_floor(x)) return L::nan();
    }
    if (x != x || q != q) return L::nan();
    T s = m_powr(q, -x), a = q, b = T(0);
    int i = 0;
    while (i < 9 || a <= T(9)) {
        i += 1;
        a += T(1);
        b = m_powr(a, -x);
        s += b;
        if (-L::machep() * s < b && b < L::machep() * s) return s;
    }
    const T w = a;
    s += b * w / (x - T(1));
    s -= T(0.5) * b;
    T fa = T(1), k = T(0);
    for (int j = 0; j < 12; ++j) {
        fa *= x + k;
        b /= w;
        const T t = fa * b / T(zeta_a[j]);
        s = s + t;
        if (m_fabs(t / s) < L::machep()) return s;
        k += T(1);
        fa *= x + k;
        b /= w;
        k += T(1);
    }
    return s;
}

template <class T> __device__ T m_polygamma(T x, int n) {
    if (n == 0) return m_digamma(x);
    if (n == 1) return m_trigamma(x);
    return ((n % 2) ? T(1) : T(-1)) * m_exp(m_lgamma(T(n) + T(1))) * T(m_zeta(double(n + 1), double(x)));
}

// torch's calc_erfinv: a rational first guess, then two Newton steps on erf
template <class T> __device__ T m_erfinv(T y) {
    typedef SpecialLimits<T> L;
    const T ay = m_fabs(y);
    if (ay > T(1)) return L::nan();
    if (ay == T(1)) return m_copysign(L::inf(), y);
    if (y != y) return y;
    T x;
    if (ay <= T(0.7)) {
        const T z = y * y;
        const T num = ((T(-0.140543331) * z + T(0.914624893)) * z + T(-1.645349621)) * z + T(0.886226899);
        const T dem = (((T(0.012229801) * z + T(-0.329097515)) * z + T(1.442710462)) * z + T(-2.118377725)) * z + T(1);
        x = y * num / dem;
    } else {
        const T z = m_sqrt(-m_log((T(1) - ay) / T(2)));
        const T num = ((T(1.641345311) * z + T(3.429567803)) * z + T(-1.624906493)) * z + T(-1.970840454);
        const T dem = (T(1.637067800) * z + T(3.543889200)) * z + T(1);
        x = m_copysign(num, y) / dem;
    }
    const T two_over_sqrt_pi = T(2) * T(0.564189583547756286948);
    x = x - (m_erf(x) - y) / (two_over_sqrt_pi * m_exp(-x * x));
    x = x - (m_erf(x) - y) / (two_over_sqrt_pi * m_exp(-x * x));
    return x;
}

SPECIAL_TABLE i0e_a[30] = {
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
    1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
    1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
    1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1};
SPECIAL_TABLE i0e_b[25] = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
    3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
    2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1};
SPECIAL_TABLE i1e_a[29] = {
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
    -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
    4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
    -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
    -1.76416518357834055153E-1, 2.52587186443633654823E-1};
SPECIAL_TABLE i1e_b[25] = {
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
    3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
    -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1};

// exp(-|x|) I_0(x) and exp(-|x|) I_1(x): Cephes's series on [0, 8] and on the inverted (8, inf);
// float keeps torch's shorter tails of the I_1 series (the leading terms are below its precision)
template <class T> __device__ T m_i0e(T x) {
    const T ax = m_fabs(x);
    if (ax <= T(8)) return chbevl(ax / T(2) - T(2), i0e_a, 30);
    return chbevl(T(32) / ax - T(2), i0e_b, 25) / m_sqrt(ax);
}
template <class T> __device__ T m_i1e(T x) {
    const bool f = sizeof(T) == 4;
    const T ax = m_fabs(x);
    const T out = ax <= T(8) ? chbevl(ax / T(2) - T(2), i1e_a + (f ? 12 : 0), f ? 17 : 29) * ax
                             : chbevl(T(32) / ax - T(2), i1e_b + (f ? 18 : 0), f ? 7 : 25) / m_sqrt(ax);
    return x < T(0) ? -out : out;
}

SPECIAL_TABLE ndtri_p0[5] = {-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
                             1.39312609387279679503E1, -1.23916583867381258016E0};
SPECIAL_TABLE ndtri_q0[9] = {1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
                             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
                             1.59056225126211695515E1, -1.18331621121330003142E0};
SPECIAL_TABLE ndtri_p1[9] = {4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
                             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
                             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4};
SPECIAL_TABLE ndtri_q1[9] = {1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
                             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
                             -3.80806407691578277194E-2, -9.33259480895457427372E-4};
SPECIAL_TABLE ndtri_p2[9] = {3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
                             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
                             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9};
SPECIAL_TABLE ndtri_q2[9] = {1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
                             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
                             2.89247864745380683936E-6, 6.79019408009981274425E-9};

// the inverse of the standard normal CDF (Cephes's ndtri)
template <class T> __device__ T m_ndtri(T y0) {
    typedef SpecialLimits<T> L;
    if (y0 == T(0)) return -L::inf();
    if (y0 == T(1)) return L::inf();
    if (!(y0 > T(0) && y0 < T(1))) return L::nan();
    const T exp_m2 = T(0.13533528323661269189);
    bool negate = true;
    T y = y0;
    if (y > T(1) - exp_m2) {
        y = T(1) - y;
        negate = false;
    }
    if (y > exp_m2) {
        y = y - T(0.5);
        const T y2 = y * y;
        return (y + y * (y2 * polevl(y2, ndtri_p0, 5) / polevl(y2, ndtri_q0, 9))) * T(2.50662827463100050242);
    }
    const T x = m_sqrt(T(-2) * m_log(y));
    const T x0 = x - m_log(x) / x, z = T(1) / x;
    const T x1 = x < T(8) ? z * polevl(z, ndtri_p1, 9) / polevl(z, ndtri_q1, 9)
                          : z * polevl(z, ndtri_p2, 9) / polevl(z, ndtri_q2, 9);
    return negate ? x1 - x0 : x0 - x1;
}

// exp(x^2) erfc(x) in double (float rounds once at the end): the product while erfc has not
// underflowed, with x^2 split exactly into hi + lo so that exp keeps its digits; the asymptotic
// series beyond 25; 2 exp(x^2) - erfcx(-x) below 0
__device__ double erfcx_d(double x) {
    typedef SpecialLimits<double> L;
    if (x != x) return x;
    const double ax = m_fabs(x);
    if (ax == L::inf()) return x > 0 ? 0.0 : L::inf();
    const double hi = m_rint(ax * 4096.0) / 4096.0, lo = ax - hi;
    const double e2 = ax < 27.0 ? m_exp(hi * hi) * m_exp(2.0 * hi * lo + lo * lo) : L::inf();
    double pos;
    if (ax < 25.0) {
        pos = e2 * m_erfc(ax);
    } else {
        const double inv = 1.0 / (ax * ax);
        double series = 1.0, term = 1.0;
        for (int k = 1; k < 12; ++k) {
            term = term * -(2 * k - 1) * inv / 2.0;
            series += term;
        }
        pos = series / (ax * 1.7724538509055160273);
    }
    return x < 0 ? 2.0 * e2 - pos : pos;
}

// log of the standard normal CDF: log1p(-erfc(x / sqrt 2) / 2) above -1, else
// log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 (torch's formula), in double
__device__ double log_ndtr_d(double x) {
    const double t = x * 0.70710678118654752440;
    if (x < -1.0) return m_log(erfcx_d(-t) / 2.0) - x * x / 2.0;
    return m_log1p(-m_erfc(t) / 2.0);
}

// -x log x: 0 at 0, -inf below 0 (torch.special.entr)
template <class T> __device__ __forceinline__ T m_entr(T x) {
    if (x != x) return x;
    if (x > T(0)) return -x * m_log(x);
    return x == T(0) ? T(0) : -SpecialLimits<T>::inf();
}
// x * log1p(y), 0 where x == 0 unless y is NaN (torch.special.xlog1py)
template <class T> __device__ __forceinline__ T m_xlog1py(T x, T y) {
    if (y != y) return y;
    return x == T(0) ? T(0) : x * m_log1p(y);
}

// ---- the regularized incomplete gamma functions (SciPy's igam/igamc, as torch) --------------
SPECIAL_TABLE lanczos_num[13] = {
    0.006061842346248906525783753964555936883222, 0.5098416655656676188125178644804694509993,
    19.51992788247617482847860966235652136208, 449.9445569063168119446858607650988409623,
    6955.999602515376140356310115515198987526, 75999.29304014542649875303443598909137092,
    601859.6171681098786670226533699352302507, 3481712.15498064590882071018964774556468,
    14605578.08768506808414169982791359218571, 43338889.32467613834773723740590533316085,
    86363131.28813859145546927288977868422342, 103794043.1163445451906271053616070238554,
    56906521.91347156388090791033559122686859};
SPECIAL_TABLE lanczos_den[13] = {1., 66., 1925., 32670., 357423., 2637558., 13339535., 45995730.,
                                 105258076., 150917976., 120543840., 39916800., 0.};

// Boost's Lanczos sum scaled by exp(-g): num[0] and den[0] go with the highest power, and
// |x| > 1 is evaluated in 1/x
template <class T> __device__ T lanczos_sum_expg_scaled(T x) {
    T num, den;
    if (m_fabs(x) > T(1)) {
        const T y = T(1) / x;
        num = T(lanczos_num[12]);
        den = T(lanczos_den[12]);
        for (int i = 11; i >= 0; --i) {
            num = num * y + T(lanczos_num[i]);
            den = den * y + T(lanczos_den[i]);
        }
    } else {
        num = polevl(x, lanczos_num, 13);
        den = polevl(x, lanczos_den, 13);
    }
    return num / den;
}

// x^a exp(-x) / Gamma(a)
template <class T> __device__ T igam_fac(T a, T x) {
    const T g = T(6.024680040776729583740234375);
    if (m_fabs(a - x) > T(0.4) * m_fabs(a)) {
        const T ax = a * m_log(x) - x - m_lgamma(a);
        return ax < -SpecialLimits<T>::maxlog() ? T(0) : m_exp(ax);
    }
    const T fac = a + g - T(0.5);
    T res = m_sqrt(fac / T(2.718281828459045)) / lanczos_sum_expg_scaled(a);
    if (a < T(200) && x < T(200)) {
        res *= m_exp(a - x) * m_powr(x / fac, a);
    } else {
        const T numfac = (x - a - g + T(0.5)) / fac;
        res *= m_exp(a * (m_log1p(numfac) - numfac) + x * (T(0.5) - g) / fac);
    }
    return res;
}

template <class T> __device__ T igam_series(T a, T x) {
    const T ax = igam_fac(a, x);
    if (ax == T(0)) return T(0);
    T r = a, c = T(1), ans = T(1);
    for (int i = 0; i < 2000; ++i) {
        r += T(1);
        c *= x / r;
        ans += c;
        if (c <= SpecialLimits<T>::machep() * ans) break;
    }
    return ans * ax / a;
}

template <class T> __device__ T igamc_series(T a, T x) {
    T fac = T(1), sum = T(0);
    for (int n = 1; n < 2000; ++n) {
        fac *= -x / T(n);
        const T term = fac / (a + T(n));
        sum += term;
        if (m_fabs(term) <= SpecialLimits<T>::machep() * m_fabs(sum)) break;
    }
    const T logx = m_log(x);
    return -m_expm1(a * logx - m_lgamma(T(1) + a)) - m_exp(a * logx - m_lgamma(a)) * sum;
}

template <class T> __device__ T igamc_fraction(T a, T x) {
    typedef SpecialLimits<T> L;
    const T ax = igam_fac(a, x);
    if (ax == T(0)) return T(0);
    T y = T(1) - a, z = x + y + T(1), c = T(0);
    T pkm2 = T(1), qkm2 = x, pkm1 = x + T(1), qkm1 = z * x;
    T ans = pkm1 / qkm1;
    for (int i = 0; i < 2000; ++i) {
        c += T(1);
        y += T(1);
        z += T(2);
        const T yc = y * c;
        const T pk = pkm1 * z - pkm2 * yc, qk = qkm1 * z - qkm2 * yc;
        T t = T(1);
        if (qk != T(0)) {
            const T r = pk / qk;
            t = m_fabs((ans - r) / r);
            ans = r;
        }
        pkm2 = pkm1;
        pkm1 = pk;
        qkm2 = qkm1;
        qkm1 = qk;
        if (m_fabs(pk) > L::big()) {
            const T inv = T(1) / L::big();
            pkm2 *= inv;
            pkm1 *= inv;
            qkm2 *= inv;
            qkm1 *= inv;
        }
        if (t <= L::machep()) break;
    }
    return ans * ax;
}

// igammac for a > 0 and 0 < x < inf
template <class T> __device__ T igammac_core(T a, T x) {
    if (x > T(1.1)) return x < a ? T(1) - igam_series(a, x) : igamc_fraction(a, x);
    const bool lower = x <= T(0.5) ? -T(0.4) / m_log(x) < a : x * T(1.1) < a;
    return lower ? T(1) - igam_series(a, x) : igamc_series(a, x);
}

// the regularized lower (LOWER) or upper incomplete gamma function, SciPy's boundary values
template <class T, bool LOWER> __device__ T m_igamma(T a, T x) {
    typedef SpecialLimits<T> L;
    const T one = LOWER ? T(1) : T(0), zero = LOWER ? T(0) : T(1);
    if (x < T(0) || a < T(0) || x != x || a != a) return L::nan();
    if (a == T(0)) return x > T(0) ? one : L::nan();
    if (x == T(0)) return zero;
    if (a == L::inf()) return x == L::inf() ? L::nan() : zero;
    if (x == L::inf()) return one;
    if (LOWER) return (x > T(1) && x > a) ? T(1) - igammac_core(a, x) : igam_series(a, x);
    return igammac_core(a, x);
}

// ---- integer bit math ----------------------------------------------------------------------
// Shifts by a count outside [0, bits) give 0 (-1 for a negative number shifted right), as
// torch's kernels; left shifts wrap (done unsigned, where C's signed shift would be undefined).
template <class T> __device__ __forceinline__ bool shift_in_range(T b) {
    return b >= T(0) && b < T(sizeof(T) * 8);
}
template <class T> __device__ __forceinline__ T m_shl(T a, T b) {
    typedef typename UnsignedOf<T>::type U;
    return shift_in_range(b) ? (T)((U)a << (U)b) : T(0);
}
template <class T> __device__ __forceinline__ T m_shr(T a, T b) {
    return shift_in_range(b) ? T(a >> b) : (a < T(0) ? T(-1) : T(0));
}
template <class T> __device__ __forceinline__ T abs_wrap(T a) { return a < T(0) ? neg_wrap(a) : a; }
// Euclid on |a|, |b| (|INT_MIN| wraps to itself, as in torch, so gcd(INT_MIN, 0) = INT_MIN)
template <class T> __device__ T m_gcd(T a, T b) {
    a = abs_wrap(a);
    b = abs_wrap(b);
    while (a != T(0)) {
        const T c = a;
        a = b % a;
        b = c;
    }
    return b;
}
template <class T> __device__ T m_lcm(T a, T b) {
    typedef typename UnsignedOf<T>::type U;
    const T g = m_gcd(a, b);
    return g == T(0) ? T(0) : abs_wrap((T)((U)(a / g) * (U)b));
}

UNARY_OP(Lgamma, UNROLL_MATH, m_lgamma(x))
UNARY_OP(Digamma, UNROLL_MATH, m_digamma(x))
UNARY_OP(Erfc, UNROLL_MATH, m_erfc(x))
UNARY_OP(Erfinv, UNROLL_MATH, m_erfinv(x))
UNARY_OP(I0, UNROLL_MATH, m_exp(m_fabs(x)) * m_i0e(x))
UNARY_OP(I0e, UNROLL_MATH, m_i0e(x))
UNARY_OP(I1, UNROLL_MATH, m_exp(m_fabs(x)) * m_i1e(x))
UNARY_OP(I1e, UNROLL_MATH, m_i1e(x))
UNARY_OP(Ndtri, UNROLL_MATH, m_ndtri(x))
UNARY_OP(LogNdtr, UNROLL_MATH, T(log_ndtr_d(double(x))))
UNARY_OP(Erfcx, UNROLL_MATH, T(erfcx_d(double(x))))
UNARY_OP(Entr, UNROLL_MATH, m_entr(x))
UNARY_OP(BitNot, UNROLL_CHEAP, T(~x))
BINARY_OP(Polygamma, UNROLL_MATH, m_polygamma(a, int(b)))
BINARY_OP(Zeta, UNROLL_MATH, T(m_zeta(double(a), double(b))))   // in double, as torch's CPU kernel
BINARY_OP(Igamma, UNROLL_MATH, (m_igamma<T, true>(a, b)))
BINARY_OP(Igammac, UNROLL_MATH, (m_igamma<T, false>(a, b)))
BINARY_OP(Xlog1py, UNROLL_MATH, m_xlog1py(a, b))
BINARY_OP(Nextafter, UNROLL_CHEAP, m_nextafter(a, b))
BINARY_OP(BitAnd, UNROLL_CHEAP, T(a & b))
BINARY_OP(BitOr, UNROLL_CHEAP, T(a | b))
BINARY_OP(BitXor, UNROLL_CHEAP, T(a ^ b))
BINARY_OP(Shl, UNROLL_CHEAP, m_shl(a, b))
BINARY_OP(Shr, UNROLL_CHEAP, m_shr(a, b))
BINARY_OP(Gcd, UNROLL_MATH, m_gcd(a, b))
BINARY_OP(Lcm, UNROLL_MATH, m_lcm(a, b))
// bools: ~x is !x, and &, |, ^ are logic
UNARY_OP(BoolNot, UNROLL_CHEAP, !x)
BINARY_OP(BoolXor, UNROLL_CHEAP, a != b)

template <class T> __device__ __forceinline__ void frexp_map(const T* x, T* m, int* e, i64 n) {
    GRID_STRIDE_SETUP
    for (i64 i = first; i < n; i += stride) {
        int k = 0;
        m[i] = m_frexp(x[i], &k);
        e[i] = k;
    }
}
#define FREXP(name, T)                                                         \
    extern "C" __global__ void name(const T* x, T* m, int* e, i64 n) { frexp_map(x, m, e, n); }

#define SPECIAL_KERNELS(sfx, T)                                                \
    UNARY_ALL(lgamma, Lgamma, sfx, T)                                          \
    UNARY_ALL(digamma, Digamma, sfx, T)                                        \
    UNARY_ALL(erfc, Erfc, sfx, T)                                              \
    UNARY_ALL(erfinv, Erfinv, sfx, T)                                          \
    UNARY_ALL(i0, I0, sfx, T)                                                  \
    UNARY_ALL(i0e, I0e, sfx, T)                                                \
    UNARY_ALL(i1, I1, sfx, T)                                                  \
    UNARY_ALL(i1e, I1e, sfx, T)                                                \
    UNARY_ALL(ndtri, Ndtri, sfx, T)                                            \
    UNARY_ALL(log_ndtr, LogNdtr, sfx, T)                                       \
    UNARY_ALL(erfcx, Erfcx, sfx, T)                                            \
    UNARY_ALL(entr, Entr, sfx, T)                                              \
    BINARY_SCALAR(polygamma_scalar_##sfx, T, T, Polygamma)                     \
    BINARY_ALL(zeta, Zeta, sfx, T)                                             \
    BINARY_ALL(igamma, Igamma, sfx, T)                                         \
    BINARY_ALL(igammac, Igammac, sfx, T)                                       \
    BINARY_ALL(xlog1py, Xlog1py, sfx, T)                                       \
    BINARY_ALL(nextafter, Nextafter, sfx, T)                                   \
    FREXP(frexp_##sfx, T)
#define BIT_KERNELS(sfx, T)                                                    \
    UNARY_ALL(bitwise_not, BitNot, sfx, T)                                     \
    BINARY_ALL(bitwise_and, BitAnd, sfx, T)                                    \
    BINARY_ALL(bitwise_or, BitOr, sfx, T)                                      \
    BINARY_ALL(bitwise_xor, BitXor, sfx, T)                                    \
    BINARY_ALL(bitwise_left_shift, Shl, sfx, T)                                \
    BINARY_ALL(bitwise_right_shift, Shr, sfx, T)                               \
    BINARY_ALL(gcd, Gcd, sfx, T)                                               \
    BINARY_ALL(lcm, Lcm, sfx, T)

SPECIAL_KERNELS(f32, float)
SPECIAL_KERNELS(f64, double)
BIT_KERNELS(i64, long long)
BIT_KERNELS(i32, int)
UNARY_ALL(bitwise_not, BoolNot, b8, bool)
BINARY_ALL(bitwise_and, And, b8, bool)
BINARY_ALL(bitwise_or, Or, b8, bool)
BINARY_ALL(bitwise_xor, BoolXor, b8, bool)

// ---- Bessel J/Y (orders 0, 1), I/K (orders 0, 1), Airy Ai, spherical j0; the orthogonal
// polynomials: SPECIAL_MORE_KERNELS ------------------------------------------------------------
// torch.special's bessel_j0 ... airy_ai (unary) and chebyshev_polynomial_t ... legendre_polynomial_p
// (binary: x, n of one float dtype, n truncated to an integer). Cephes's rational approximations,
// evaluated in T as torch's kernels evaluate them: Horner sums of the tables as listed (without the
// unit leading term of Cephes's p1evl denominators, which torch leaves out too). numpy_special.py's
// bessel_j0 ... legendre_polynomial_p are their twins.
SPECIAL_TABLE j0_pp[7] = {
    0.0007969367292973471, 0.08283523921074408, 1.239533716464143, 5.447250030587687,
    8.74716500199817, 5.303240382353949, 1.0};
SPECIAL_TABLE j0_pq[7] = {
    0.0009244088105588637, 0.08562884743544745, 1.2535274390105895, 5.470977403304171,
    8.761908832370695, 5.306052882353947, 1.0};
SPECIAL_TABLE j0_qp[8] = {
    -0.011366383889846916, -1.2825271867050931, -19.553954425773597, -93.20601521237683,
    -177.68116798048806, -147.07750515495118, -51.41053267665993, -6.050143506007285};
SPECIAL_TABLE j0_qq[7] = {
    64.3178256118178, 856.4300259769806, 3882.4018360540163, 7240.467741956525,
    5930.727011873169, 2062.0933166032783, 242.0057402402914};
SPECIAL_TABLE j0_rp[4] = {
    -4794432209.782018, 1956174919465.5657, -249248344360967.72, 9708622510473064.0};
SPECIAL_TABLE j0_rq[8] = {
    499.563147152651, 173785.4016763747, 48440965.83399621, 11185553704.535683,
    2112775201154.892, 310518229857422.56, 3.1812195594320496e+16, 1.7108629408104315e+18};
SPECIAL_TABLE y0_yp[8] = {
    15592.436785523574, -14663929.59039716, 5435264770.518765, -982136065717.9115,
    87590639439536.7, -3466283033847297.0, 4.4273326857256984e+16, -1.8495080043698668e+16};
SPECIAL_TABLE y0_yq[7] = {
    1041.2835366425984, 626107.330137135, 268919633.39381415, 86400248710.3935,
    20297961275010.555, 3171577528429750.5, 2.5059625617265306e+17};
SPECIAL_TABLE j1_pp[7] = {
    0.0007621256162081731, 0.07313970569409176, 1.1271960812968493, 5.112079511468076,
    8.424045901417724, 5.214515986823615, 1.0};
SPECIAL_TABLE j1_pq[7] = {
    0.0005713231280725487, 0.06884559087544954, 1.105142326340617, 5.073863861286015,
    8.399855543276042, 5.209828486823619, 1.0};
SPECIAL_TABLE j1_qp[8] = {
    0.05108625947501766, 4.982138729512334, 75.82382841325453, 366.7796093601508,
    710.8563049989261, 597.4896124006136, 211.68875710057213, 25.207020585802372};
SPECIAL_TABLE j1_qq[7] = {
    74.23732770356752, 1056.4488603826283, 4986.410583376536, 9562.318924047562,
    7997.041604473507, 2826.1927851763908, 336.0936078106983};
SPECIAL_TABLE j1_rp[4] = {
    -899971225.7055594, 452228297998.19403, -72749424522181.83, 3682957328638529.0};
SPECIAL_TABLE j1_rq[8] = {
    620.8364781180543, 256987.25675774884, 83514679.14319493, 22151159547.97925,
    4749141220799.914, 784369607876235.9, 8.952223361846274e+16, 5.322786203326801e+18};
SPECIAL_TABLE y1_yp[6] = {
    1263204747.9017804, -647355876379.1603, 114509511541823.73, -8127702555013251.0,
    2.024394757135949e+17, -7.788771962659501e+17};
SPECIAL_TABLE y1_yq[8] = {
    594.3015923461282, 235564.09294306856, 73481194.44597217, 18760131610.870617,
    3882312774962.3857, 620557727146953.8, 6.871410873553005e+16, 3.9727060811656064e+18};
SPECIAL_TABLE k0_a[10] = {
    1.374465435613523e-16, 4.25981614279661e-14, 1.0349695257633842e-11, 1.904516377220209e-09,
    2.5347910790261494e-07, 2.286212103119452e-05, 0.001264615411446926, 0.0359799365153615,
    0.3442898999246285, -0.5353273932339028};
SPECIAL_TABLE k0_b[25] = {
    5.300433772686263e-18, -1.6475804301524212e-17, 5.2103915050390274e-17, -1.678231096805412e-16,
    5.512055978524319e-16, -1.848593377343779e-15, 6.3400764774050706e-15, -2.2275133269916698e-14,
    8.032890775363575e-14, -2.9800969231727303e-13, 1.140340588208475e-12, -4.514597883373944e-12,
    1.8559491149547177e-11, -7.957489244477107e-11, 3.577397281400301e-10, -1.69753450938906e-09,
    8.574034017414225e-09, -4.660489897687948e-08, 2.766813639445015e-07, -1.8317555227191195e-06,
    1.39498137188765e-05, -0.00012849549581627802, 0.0015698838857300533, -0.0314481013119645,
    2.4403030820659555};
SPECIAL_TABLE k1_a[11] = {
    -7.023863479386288e-18, -2.427449850519366e-15, -6.666901694199329e-13, -1.4114883926335278e-10,
    -2.213387630734726e-08, -2.4334061415659684e-06, -0.0001730288957513052, -0.006975723859639864,
    -0.12261118082265715, -0.3531559607765449, 1.5253002273389478};
SPECIAL_TABLE k1_b[25] = {
    -5.756744483665017e-18, 1.7940508731475592e-17, -5.689462558442859e-17, 1.838093544366639e-16,
    -6.057047248373319e-16, 2.038703165624334e-15, -7.019837090418314e-15, 2.4771544244813043e-14,
    -8.976705182324994e-14, 3.3484196660784293e-13, -1.2891739609510289e-12, 5.13963967348173e-12,
    -2.1299678384275683e-11, 9.218315187605006e-11, -4.1903547593418965e-10, 2.015049755197033e-09,
    -1.0345762465678097e-08, 5.7410841254500495e-08, -3.5019606030878126e-07, 2.406484947837217e-06,
    -1.936197974166083e-05, 0.00019521551847135162, -0.002857816859622779, 0.10392373657681724,
    2.7206261904844427};
SPECIAL_TABLE ai_an[8] = {
    0.346538101525629, 12.007595273964581, 76.27960536152345, 168.08922493463058,
    159.75639135016442, 70.53609068404442, 14.026469116338967, 1.0};
SPECIAL_TABLE ai_ad[8] = {
    0.5675945326387702, 14.75625625848472, 84.51389701414746, 177.31808814540045,
    164.2346928715297, 71.47784008255756, 14.095913560783403, 1.0};
SPECIAL_TABLE ai_afn[9] = {
    -0.1316963234183318, -0.6264565444319123, -0.6931580360369335, -0.2797799815451191,
    -0.04919001326095003, -0.004062659235948854, -0.0001592764962392621, -2.776491081552329e-06,
    -1.6778769848911465e-08};
SPECIAL_TABLE ai_afd[9] = {
    13.356042070655324, 32.682503279522464, 26.736704094149957, 9.187074029072596,
    1.4752914677166642, 0.11568717379518804, 0.004402916416152112, 7.547203482874142e-05,
    4.5185009297058035e-07};
SPECIAL_TABLE ai_agn[11] = {
    0.01973399320916857, 0.39110302961568827, 1.0657989759959559, 0.9391692298166502,
    0.35146565610554764, 0.06338889196289255, 0.005858041130483885, 0.000282851600836737,
    6.98793669997261e-06, 8.117892395543892e-08, 3.415517847659236e-10};
SPECIAL_TABLE ai_agd[10] = {
    9.30892908077442, 19.835292871831214, 15.564662893286462, 5.476860694229755,
    0.9542936116189619, 0.08645808263523921, 0.004126565238242226, 0.00010125908511650914,
    1.1716673321441352e-06, 4.9183457006293e-09};
#define SP_SQRT_2_OVER_PI 0.797884560802865355879892119868763737
#define SP_TWO_OVER_PI 0.636619772367581343075535053490057448
#define SP_INV_SQRT_PI 5.64189583547756286948e-01

// x > 5: sqrt(2 / (pi x)) (P cos(x - shift) - 5/x Q sin(x - shift)), or P sin + 5/x Q cos for
// the second kind; P and Q are ratios of the tables in w (25 / x^2)
template <class T, bool SECOND>
__device__ T bessel_far(T x, T w, const double* pp, const double* pq, const double* qp, const double* qq, T shift) {
    const T p = polevl(w, pp, 7) / polevl(w, pq, 7);
    const T q = T(5) / x * (polevl(w, qp, 8) / polevl(w, qq, 7));
    const T c = m_cos(x - shift), s = m_sin(x - shift);
    const T r = SECOND ? p * s + q * c : p * c - q * s;
    return r * T(SP_SQRT_2_OVER_PI) / m_sqrt(x);
}
template <class T> __device__ T m_bessel_j0(T x) {
    const T ax = m_fabs(x), z = ax * ax;
    if (ax > T(5)) return bessel_far<T, false>(ax, T(25) / z, j0_pp, j0_pq, j0_qp, j0_qq, T(SP_PI / 4));
    if (ax < T(1e-5)) return T(1) - z / T(4);
    return (z - T(5.78318596294678452118)) * (z - T(30.4712623436620863991)) * polevl(z, j0_rp, 4) /
           polevl(z, j0_rq, 8);
}
template <class T> __device__ T m_bessel_j1(T x) {
    const T ax = m_fabs(x);
    if (ax > T(5)) {
        const T r = bessel_far<T, false>(ax, T(5) / ax * (T(5) / ax), j1_pp, j1_pq, j1_qp, j1_qq, T(3 * SP_PI / 4));
        return x < T(0) ? -r : r;
    }
    const T z = x * x;
    return polevl(z, j1_rp, 4) / polevl(z, j1_rq, 8) * x * (z - T(14.6819706421238932572)) *
           (z - T(49.2184563216946036703));
}
template <class T> __device__ T m_bessel_y0(T x) {
    if (x > T(5) || x != x) return bessel_far<T, true>(x, T(25) / (x * x), j0_pp, j0_pq, j0_qp, j0_qq, T(SP_PI / 4));
    if (x == T(0)) return -SpecialLimits<T>::inf();
    if (x < T(0)) return SpecialLimits<T>::nan();
    const T z = x * x;
    return polevl(z, y0_yp, 8) / polevl(z, y0_yq, 7) + T(SP_TWO_OVER_PI) * m_log(x) * m_bessel_j0(x);
}
template <class T> __device__ T m_bessel_y1(T x) {
    if (x > T(5) || x != x)
        return bessel_far<T, true>(x, T(5) / x * (T(5) / x), j1_pp, j1_pq, j1_qp, j1_qq, T(3 * SP_PI / 4));
    if (x == T(0)) return -SpecialLimits<T>::inf();
    if (x < T(0)) return SpecialLimits<T>::nan();
    const T z = x * x;
    return x * (polevl(z, y1_yp, 6) / polevl(z, y1_yq, 8)) +
           T(SP_TWO_OVER_PI) * (m_bessel_j1(x) * m_log(x) - T(1) / x);
}
// I_0, I_1 unscaled: exp(|x|) times the Chebyshev series of i0e/i1e (the full tables in float too)
template <class T> __device__ T m_mod_i0(T x) {
    const T ax = m_fabs(x), e = m_exp(ax);
    if (ax <= T(8)) return e * chbevl(ax / T(2) - T(2), i0e_a, 30);
    return e * chbevl(T(32) / ax - T(2), i0e_b, 25) / m_sqrt(ax);
}
template <class T> __device__ T m_mod_i1(T x) {
    const T ax = m_fabs(x), e = m_exp(ax);
    const T r = ax <= T(8) ? chbevl(ax / T(2) - T(2), i1e_a, 29) * ax * e
                           : e * chbevl(T(32) / ax - T(2), i1e_b, 25) / m_sqrt(ax);
    return x < T(0) ? -r : r;
}
// K_0, K_1 (SCALED: times exp(x)): +inf at 0, NaN below; series in x^2 - 2 on (0, 2], 8/x - 2 beyond
template <class T, int ORDER, bool SCALED> __device__ T m_mod_k(T x) {
    if (x == T(0)) return SpecialLimits<T>::inf();
    if (x < T(0)) return SpecialLimits<T>::nan();
    if (x <= T(2)) {
        const T c = chbevl(x * x - T(2), ORDER ? k1_a : k0_a, ORDER ? 11 : 10);
        const T lg = m_log(T(0.5) * x);
        const T r = ORDER ? lg * m_mod_i1(x) + c / x : c - lg * m_mod_i0(x);
        return SCALED ? r * m_exp(x) : r;
    }
    const T c = chbevl(T(8) / x - T(2), ORDER ? k1_b : k0_b, 25);
    return SCALED ? c / m_sqrt(x) : m_exp(-x) * c / m_sqrt(x);
}
// sin(x) / x: its Maclaurin series below |x| = 1/2, 0 at +-inf
SPECIAL_TABLE sinc_series[7] = {1 / 6227020800.0, -1 / 39916800.0, 1 / 362880.0, -1 / 5040.0, 1 / 120.0,
                                -1 / 6.0, 1.0};
template <class T> __device__ T m_spherical_j0(T x) {
    if (m_isinf(x)) return T(0);
    if (m_fabs(x) < T(0.5)) return polevl(x * x, sinc_series, 7);
    return m_sin(x) / x;
}
// Ai: the oscillating asymptotic form below -2.09, the decaying one from 2.09 (0 past 103.892),
// between them c1 f(x) - c2 g(x) from the Maclaurin series f, g in x^3, summed until a term of f
// is below the dtype's epsilon relative to f
template <class T> __device__ T m_airy_ai(T x) {
    if (m_isinf(x)) return SpecialLimits<T>::nan();
    if (x > T(103.892)) return T(0);
    if (x < T(-2.09)) {
        const T zeta = T(-2) * x * m_sqrt(-x) / T(3), z = T(1) / zeta, zz = z * z;
        const T t = zeta + T(0.25) * T(SP_PI);
        return T(SP_INV_SQRT_PI) / m_sqrt(m_sqrt(-x)) *
               (m_sin(t) * (T(1) + zz * polevl(zz, ai_afn, 9) / polevl(zz, ai_afd, 9)) -
                m_cos(t) * (z * polevl(zz, ai_agn, 11) / polevl(zz, ai_agd, 10)));
    }
    if (x >= T(2.09)) {
        const T zeta = T(2) * x * m_sqrt(x) / T(3), w = T(1) / zeta;
        return T(SP_INV_SQRT_PI) * (polevl(w, ai_an, 8) / polevl(w, ai_ad, 8)) /
               (T(2) * m_sqrt(m_sqrt(x)) * m_exp(zeta));
    }
    const T eps = sizeof(T) == 4 ? T(1.1920928955078125e-07) : T(2.220446049250313e-16);
    const T z = x * x * x;
    T f = T(1), g = x, m = T(1), n = x, k = T(1), t = T(1);
    while (t > eps) {
        m = m * z / (k + T(1)) / (k + T(2));
        n = n * z / (k + T(2)) / (k + T(3));
        f += m;
        g += n;
        k += T(3);
        t = m_fabs(m / f);
    }
    return T(0.355028053887817239260) * f - T(0.258819403792806798405) * g;
}

// n as torch's kernels cast it to an integer (NaN, +-inf and |n| >= 2^63 become negative: the x86
// conversion's value), so that both backends give the same degree
template <class T> __device__ __forceinline__ long long poly_degree(T n) {
    return (n == n && m_fabs(n) < T(9.2233720368547758e18)) ? (long long)n : -1LL;
}
// runs (p, q) <- (q, step(k, p, q)) for k = 1 .. steps, stopping early once q is NaN; returns q
template <class T, class Step> __device__ __forceinline__ T recur(long long steps, T p, T q, Step step) {
    for (long long k = 1; k <= steps && q == q; ++k) {
        const T r = step(k, p, q);
        p = q;
        q = r;
    }
    return q;
}
// Chebyshev T, U, V, W of y (x, or 2x - 1 for the shifted ones, SHIFTED) : the ends y = +-1 in
// closed form, the trigonometric form for n above LIMIT inside (-1, 1), else the recurrence
template <class T, char KIND, bool SHIFTED> __device__ T m_chebyshev(T x, T nf) {
    const long long n = poly_degree(nf);
    if (n < 0) return T(0);
    const T y = SHIFTED ? x + x - T(1) : x;
    const bool top = SHIFTED ? x == T(1) : (m_fabs(x) == T(1) && x > T(0));
    const bool bottom = SHIFTED ? x == T(0) : (m_fabs(x) == T(1) && x < T(0));
    const T odd = (n % 2 == 0) ? T(1) : T(-1);
    const T n1 = T(n + 1), two_n1 = T(n + n + 1);
    if (top) return KIND == 't' || KIND == 'v' ? T(1) : KIND == 'u' ? n1 : two_n1;
    if (bottom) return KIND == 't' || KIND == 'w' ? odd : KIND == 'u' ? odd * n1 : odd * two_n1;
    const long long limit = KIND == 't' ? 6 : SHIFTED ? (KIND == 'w' ? 4 : 6) : 8;
    if (n > limit && m_fabs(y) < T(1)) {
        const T theta = m_acos(y);
        if (KIND == 't') return m_cos(T(n) * theta);
        if (KIND == 'u') {
            const T s = m_sin(theta);
            return s != T(0) ? m_sin(n1 * theta) / s : n1 * m_cos(n1 * theta) / y;
        }
        if (KIND == 'v')
            return m_sin(theta / T(2)) != T(1) ? m_cos((T(n) + T(0.5)) * theta) / m_cos(theta / T(2)) : odd * two_n1;
        if (m_cos(theta / T(2)) != T(1)) return m_sin((T(n) + T(0.5)) * theta) / m_sin(theta / T(2));
        return (!SHIFTED && y > T(0)) ? two_n1 : odd;
    }
    const T first = KIND == 't' ? y : KIND == 'u' ? y + y : KIND == 'v' ? y + y - T(1) : y + y + T(1);
    if (n == 0) return T(1);
    if (n == 1) return first;
    return recur(n - 1, T(1), first, [y](long long, T p, T q) { return (y + y) * q - p; });
}
// Hermite H (physicists') and He (probabilists'): NaN above degree 128 (float) / 512 (double)
template <class T, bool PHYS> __device__ T m_hermite(T x, T nf) {
    const long long n = poly_degree(nf);
    if (n < 0) return T(0);
    const T first = PHYS ? x + x : x;
    if (n == 0) return T(1);
    if (n == 1) return first;
    if (n > (sizeof(T) == 4 ? 128 : 512)) return SpecialLimits<T>::nan();
    return recur(n - 1, T(1), first, [x](long long k, T p, T q) {
        return PHYS ? (x + x) * q - T(k + k) * p : x * q - T(k) * p;
    });
}
template <class T> __device__ T m_laguerre(T x, T nf) {
    const long long n = poly_degree(nf);
    if (n < 0) return T(0);
    if (m_fabs(x) == T(0) || n == 0) return T(1);
    if (n == 1) return T(1) - x;
    return recur(n - 1, T(1), T(1) - x, [x](long long k, T p, T q) {
        return ((T(k + k) + (T(1) - x)) * q - T(k) * p) / T(k + 1);
    });
}
template <class T> __device__ T m_legendre(T x, T nf) {
    const long long n = poly_degree(nf);
    if (n < 0) return T(0);
    if (m_fabs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
    if (n == 0) return T(1);
    if (n == 1) return x;
    return recur(n - 1, T(1), x, [x](long long k, T p, T q) {
        return (T(k + k + 1) * x * q - T(k) * p) / T(k + 1);
    });
}

UNARY_OP(BesselJ0, UNROLL_MATH, m_bessel_j0(x))
UNARY_OP(BesselJ1, UNROLL_MATH, m_bessel_j1(x))
UNARY_OP(BesselY0, UNROLL_MATH, m_bessel_y0(x))
UNARY_OP(BesselY1, UNROLL_MATH, m_bessel_y1(x))
UNARY_OP(ModBesselI0, UNROLL_MATH, m_mod_i0(x))
UNARY_OP(ModBesselI1, UNROLL_MATH, m_mod_i1(x))
UNARY_OP(ModBesselK0, UNROLL_MATH, (m_mod_k<T, 0, false>(x)))
UNARY_OP(ModBesselK1, UNROLL_MATH, (m_mod_k<T, 1, false>(x)))
UNARY_OP(ScaledModBesselK0, UNROLL_MATH, (m_mod_k<T, 0, true>(x)))
UNARY_OP(ScaledModBesselK1, UNROLL_MATH, (m_mod_k<T, 1, true>(x)))
UNARY_OP(SphericalBesselJ0, UNROLL_MATH, m_spherical_j0(x))
UNARY_OP(AiryAi, UNROLL_MATH, m_airy_ai(x))
BINARY_OP(ChebyshevT, UNROLL_MATH, (m_chebyshev<T, 't', false>(a, b)))
BINARY_OP(ChebyshevU, UNROLL_MATH, (m_chebyshev<T, 'u', false>(a, b)))
BINARY_OP(ChebyshevV, UNROLL_MATH, (m_chebyshev<T, 'v', false>(a, b)))
BINARY_OP(ChebyshevW, UNROLL_MATH, (m_chebyshev<T, 'w', false>(a, b)))
BINARY_OP(ShiftedChebyshevT, UNROLL_MATH, (m_chebyshev<T, 't', true>(a, b)))
BINARY_OP(ShiftedChebyshevU, UNROLL_MATH, (m_chebyshev<T, 'u', true>(a, b)))
BINARY_OP(ShiftedChebyshevV, UNROLL_MATH, (m_chebyshev<T, 'v', true>(a, b)))
BINARY_OP(ShiftedChebyshevW, UNROLL_MATH, (m_chebyshev<T, 'w', true>(a, b)))
BINARY_OP(HermiteH, UNROLL_MATH, (m_hermite<T, true>(a, b)))
BINARY_OP(HermiteHe, UNROLL_MATH, (m_hermite<T, false>(a, b)))
BINARY_OP(LaguerreL, UNROLL_MATH, m_laguerre(a, b))
BINARY_OP(LegendreP, UNROLL_MATH, m_legendre(a, b))

#define SPECIAL_MORE_KERNELS(sfx, T)                                           \
    UNARY_ALL(bessel_j0, BesselJ0, sfx, T)                                     \
    UNARY_ALL(bessel_j1, BesselJ1, sfx, T)                                     \
    UNARY_ALL(bessel_y0, BesselY0, sfx, T)                                     \
    UNARY_ALL(bessel_y1, BesselY1, sfx, T)                                     \
    UNARY_ALL(modified_bessel_i0, ModBesselI0, sfx, T)                         \
    UNARY_ALL(modified_bessel_i1, ModBesselI1, sfx, T)                         \
    UNARY_ALL(modified_bessel_k0, ModBesselK0, sfx, T)                         \
    UNARY_ALL(modified_bessel_k1, ModBesselK1, sfx, T)                         \
    UNARY_ALL(scaled_modified_bessel_k0, ScaledModBesselK0, sfx, T)            \
    UNARY_ALL(scaled_modified_bessel_k1, ScaledModBesselK1, sfx, T)            \
    UNARY_ALL(spherical_bessel_j0, SphericalBesselJ0, sfx, T)                  \
    UNARY_ALL(airy_ai, AiryAi, sfx, T)                                         \
    BINARY_ALL(chebyshev_polynomial_t, ChebyshevT, sfx, T)                     \
    BINARY_ALL(chebyshev_polynomial_u, ChebyshevU, sfx, T)                     \
    BINARY_ALL(chebyshev_polynomial_v, ChebyshevV, sfx, T)                     \
    BINARY_ALL(chebyshev_polynomial_w, ChebyshevW, sfx, T)                     \
    BINARY_ALL(shifted_chebyshev_polynomial_t, ShiftedChebyshevT, sfx, T)      \
    BINARY_ALL(shifted_chebyshev_polynomial_u, ShiftedChebyshevU, sfx, T)      \
    BINARY_ALL(shifted_chebyshev_polynomial_v, ShiftedChebyshevV, sfx, T)      \
    BINARY_ALL(shifted_chebyshev_polynomial_w, ShiftedChebyshevW, sfx, T)      \
    BINARY_ALL(hermite_polynomial_h, HermiteH, sfx, T)                         \
    BINARY_ALL(hermite_polynomial_he, HermiteHe, sfx, T)                       \
    BINARY_ALL(laguerre_polynomial_l, LaguerreL, sfx, T)                       \
    BINARY_ALL(legendre_polynomial_p, LegendreP, sfx, T)

SPECIAL_MORE_KERNELS(f32, float)
SPECIAL_MORE_KERNELS(f64, double)

// ---- bfloat16 <-> float32 ---------------------------------------------------------------------
//   bf16_to_f32(const unsigned short* x, float* y, n)    f32_to_bf16(const float* x, unsigned short* y, n)
// A bfloat16 array is its 16 bits (unsigned short): a float32's sign, exponent and top 7 fraction
// bits. Widening appends 16 zero bits, exactly; narrowing rounds to nearest, ties to even, as
// torch does: a carry out of the fraction bumps the exponent (past the largest finite value, to
// inf), and every NaN becomes the quiet NaN 0x7fc0. Contiguous operands only.

typedef unsigned short bf16_bits;

struct WidenBf16 {
    __device__ __forceinline__ float operator()(bf16_bits h) const {
        return __int_as_float((int)((unsigned int)h << 16));
    }
};

struct NarrowToBf16 {
    __device__ __forceinline__ bf16_bits operator()(float f) const {
        const unsigned int u = (unsigned int)__float_as_int(f);
        if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (bf16_bits)0x7FC0;
        return (bf16_bits)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
    }
};

// four elements as one load or store: 8 bytes of bfloat16, 16 of float32
template <class T> struct Quad;
template <> struct Quad<float> { typedef float4 type; };
template <> struct Quad<bf16_bits> { typedef uint2 type; };

template <class T> union QuadPack {
    typename Quad<T>::type raw;
    T e[4];
};

template <class T, class R, class F>
__device__ __forceinline__ void convert(const T* x, R* y, i64 n, F f) {
    GRID_STRIDE_SETUP
    i64 done = 0;
    if (is_aligned(x, sizeof(QuadPack<T>)) && is_aligned(y, sizeof(QuadPack<R>))) {
        const i64 nq = n / 4;
        const typename Quad<T>::type* xq = reinterpret_cast<const typename Quad<T>::type*>(x);
        typename Quad<R>::type* yq = reinterpret_cast<typename Quad<R>::type*>(y);
        for (i64 q = first; q < nq; q += stride) {
            QuadPack<T> in;
            QuadPack<R> out;
            in.raw = xq[q];
#pragma unroll
            for (int k = 0; k < 4; ++k) out.e[k] = f(in.e[k]);
            yq[q] = out.raw;
        }
        done = nq * 4;
    }
    for (i64 i = done + first; i < n; i += stride) y[i] = f(x[i]);
}

#define CONVERT(name, T, R, F)                                                 \
    extern "C" __global__ void name(const T* x, R* y, i64 n) { convert(x, y, n, F()); }

CONVERT(bf16_to_f32, bf16_bits, float, WidenBf16)
CONVERT(f32_to_bf16, float, bf16_bits, NarrowToBf16)
