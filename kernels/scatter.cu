// Scatter-reductions: torch.scatter_reduce / index_reduce's prod, amax and amin.
//
//   scatter_{prod,amax,amin}_{f32,f64,i64,i32}(T* out, const long long* pos, const T* vals,
//                                                long long n)
//   for every i < n: out[pos[i]] = op(out[pos[i]], vals[i]), repeated positions combining all
//   their values. out is a contiguous array, pos holds flat positions into it (in range: the
//   caller checks), vals is contiguous.
//   block = (B, 1, 1), grid = (G, 1, 1), any B, G >= 1: threads stride over i.
//
// Each update is a compare-and-swap loop on the element's bits (32 or 64 of them), so any op
// works at any width and repeats never lose an update. As torch's: amax / amin propagate NaN
// (a NaN, once there, stays); integers multiply modulo 2^64 (2^32 for int), done unsigned so
// overflow is defined. The order in which repeated positions combine is the hardware's, so a
// float product may differ in its last bits from one run to the next (torch's CUDA kernel
// has the same property); max and min are exact in any order.

template <typename T> struct ScatterBits;
template <> struct ScatterBits<float> {
    typedef unsigned int U;
    __device__ static U to(float v) { return (U)__float_as_int(v); }
    __device__ static float from(U u) { return __int_as_float((int)u); }
};
template <> struct ScatterBits<double> {
    typedef unsigned long long U;
    __device__ static U to(double v) { return (U)__double_as_longlong(v); }
    __device__ static double from(U u) { return __longlong_as_double((long long)u); }
};
template <> struct ScatterBits<long long> {
    typedef unsigned long long U;
    __device__ static U to(long long v) { return (U)v; }
    __device__ static long long from(U u) { return (long long)u; }
};
template <> struct ScatterBits<int> {
    typedef unsigned int U;
    __device__ static U to(int v) { return (U)v; }
    __device__ static int from(U u) { return (int)u; }
};

template <typename T> __device__ __forceinline__ T scatter_mul(T a, T b) { return a * b; }
template <> __device__ __forceinline__ long long scatter_mul<long long>(long long a, long long b) {
    return (long long)((unsigned long long)a * (unsigned long long)b);
}
template <> __device__ __forceinline__ int scatter_mul<int>(int a, int b) {
    return (int)((unsigned int)a * (unsigned int)b);
}

struct ScatterProd {
    template <typename T> __device__ static T apply(T a, T b) { return scatter_mul(a, b); }
};
struct ScatterAmax {  // NaN wins (v != v only for a float NaN)
    template <typename T> __device__ static T apply(T a, T b) {
        if (a != a) return a;
        if (b != b) return b;
        return b > a ? b : a;
    }
};
struct ScatterAmin {
    template <typename T> __device__ static T apply(T a, T b) {
        if (a != a) return a;
        if (b != b) return b;
        return b < a ? b : a;
    }
};

template <typename Op, typename T>
__device__ __forceinline__ void scatter_combine(T* addr, T v) {
    typedef ScatterBits<T> B;
    typedef typename B::U U;
    U* word = reinterpret_cast<U*>(addr);
    U old = *word, seen;
    do {
        seen = old;
        U next = B::to(Op::apply(B::from(seen), v));
        if (next == seen) return;  // nothing to change (a NaN already there, a max not exceeded)
        old = atomicCAS(word, seen, next);
    } while (old != seen);
}

template <typename Op, typename T>
__device__ __forceinline__ void scatter_body(T* out, const long long* pos, const T* vals, long long n) {
    long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        scatter_combine<Op, T>(out + pos[i], vals[i]);
}

#define SCATTER_KERNEL(op, Op, sfx, T)                                                                   \
    extern "C" __global__ void scatter_##op##_##sfx(T* out, const long long* __restrict__ pos,          \
                                                      const T* __restrict__ vals, long long n) {          \
        scatter_body<Op, T>(out, pos, vals, n);                                                           \
    }

#define SCATTER_KERNELS(sfx, T)                 \
    SCATTER_KERNEL(prod, ScatterProd, sfx, T)   \
    SCATTER_KERNEL(amax, ScatterAmax, sfx, T)   \
    SCATTER_KERNEL(amin, ScatterAmin, sfx, T)

SCATTER_KERNELS(f32, float)
SCATTER_KERNELS(f64, double)
SCATTER_KERNELS(i64, long long)
SCATTER_KERNELS(i32, int)
