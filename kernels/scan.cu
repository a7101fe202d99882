// Inclusive scans along one axis: torch.cumsum / torch.cumprod (with reverse = 1, the scan from
// the end of the axis that their gradients need), and torch.cummax / torch.cummin.
//
// float accumulates in double and each output is rounded to float once, as torch's CPU kernel
// does (at::acc_type<float, false> is double); double and long long accumulate in their own
// type, long long wrapping on overflow as torch's (the arithmetic is done unsigned).
//
// Row scans over the LAST axis of a contiguous (rows, cols) matrix:
//   {cumsum,cumprod}_rows_{f32,f64,i64}(const T* x, T* out, long long rows, long long cols,
//                                       int reverse)
//   block = (TPR, RPB, 1): TPR threads scan one row, RPB rows per block; TPR a power of two
//           in [1, 1024], TPR * RPB a multiple of 32 and <= 1024 (row_launch's convention).
//   grid  = (G, 1, 1), any G >= 1: blocks stride over groups of RPB rows.
//   A row is scanned in chunks of TPR elements, one per thread (coalesced loads and stores):
//   a shuffle scan inside each warp, then (TPR > 32) a scan of the warps' totals in static
//   shared memory, then the running total of the row's earlier chunks is folded in.
//   Do not launch when rows == 0; cols == 0 writes nothing.
//
// Column scans over the MIDDLE axis of a contiguous (outer, n, inner) array:
//   {cumsum,cumprod}_cols_{f32,f64,i64}(const T* x, T* out, long long outer, long long n,
//                                       long long inner, int reverse)
//   out[(o * n + r) * inner + i] = op over r' <= r (r' >= r with reverse) of x[(o * n + r') * inner + i]
//   block = (B, 1, 1), B a multiple of 32; grid = (G, 1, 1), any G >= 1: each thread owns one
//   (o, i) column and walks down it in order, neighbouring threads on neighbouring i, so every
//   step of a warp reads and writes consecutive addresses. Do not launch when outer * inner == 0.
//
// cummax / cummin: the running extreme and the index along the axis where it was found:
//   {cummax,cummin}_rows_{f32,f64,i64,i32}(const T* x, T* values, long long* indices,
//                                          long long rows, long long cols)
//   {cummax,cummin}_cols_{f32,f64,i64,i32}(const T* x, T* values, long long* indices,
//                                          long long outer, long long n, long long inner)
//   with the launch conventions above. As torch's CPU kernel: an element at least as large
//   (cummax; as small, cummin) as the running extreme takes over, so ties give the LAST index;
//   a NaN takes over and stays (each later NaN takes over in its turn). That rule is the max of
//   the key (is NaN, value, index), so it combines in any grouping, as a parallel scan needs.
//
// The result depends only on the launch shape, never on timing.

#define SCAN_FULL_MASK 0xffffffffu

template <class T> struct ScanAcc { typedef T type; };
template <> struct ScanAcc<float> { typedef double type; };

struct ScanSum {
    template <class A> static __device__ A ident() { return A(0); }
    template <class A> __device__ A operator()(A a, A b) const { return a + b; }
    __device__ long long operator()(long long a, long long b) const {
        return (long long)((unsigned long long)a + (unsigned long long)b);
    }
};
struct ScanProd {
    template <class A> static __device__ A ident() { return A(1); }
    template <class A> __device__ A operator()(A a, A b) const { return a * b; }
    __device__ long long operator()(long long a, long long b) const {
        return (long long)((unsigned long long)a * (unsigned long long)b);
    }
};

template <class A> __device__ __forceinline__ A scan_shfl(A v, int lane) {
    return __shfl_sync(SCAN_FULL_MASK, v, lane);
}
// an extreme so far and its index; i < 0: no element yet (the identity)
template <class T> struct ArgState { T v; long long i; };
template <class T> __device__ __forceinline__ ArgState<T> scan_shfl(ArgState<T> s, int lane) {
    ArgState<T> r = {__shfl_sync(SCAN_FULL_MASK, s.v, lane), __shfl_sync(SCAN_FULL_MASK, s.i, lane)};
    return r;
}

// A scan policy: the state S, its identity, the state of one element (at: its offset, j: its
// index along the axis), the combination of an earlier state a with a later one b, and the
// store of a state as the outputs.
template <class T, class Op> struct Accumulate {
    typedef typename ScanAcc<T>::type S;
    static __device__ S ident() { return Op::template ident<S>(); }
    static __device__ S load(const T* x, long long at, long long) { return S(x[at]); }
    static __device__ S combine(S a, S b) { return Op()(a, b); }
    static __device__ void store(T* out, long long*, long long at, S s) { out[at] = T(s); }
};
template <class T, bool Max> struct Extreme {
    typedef ArgState<T> S;
    static __device__ S ident() { S s; s.v = T(0); s.i = -1; return s; }
    static __device__ S load(const T* x, long long at, long long j) { S s; s.v = x[at]; s.i = j; return s; }
    static __device__ S combine(S a, S b) {
        if (a.i < 0) return b;
        if (b.i < 0) return a;
        const bool later = b.v != b.v || (a.v == a.v && (Max ? b.v >= a.v : b.v <= a.v));
        return later ? b : a;
    }
    static __device__ void store(T* out, long long* idx, long long at, S s) { out[at] = s.v; idx[at] = s.i; }
};

// Inclusive scan over the first `width` lanes of each aligned group of the warp (width a power
// of two <= 32): lane k of a group ends with the combination of v_0, ..., v_k. Every lane of the
// warp calls it.
template <class P, class S>
__device__ __forceinline__ S warp_scan(S v, int lane, int width) {
    const int sub = lane & (width - 1);
    for (int o = 1; o < width; o <<= 1) {
        const S up = scan_shfl(v, lane >= o ? lane - o : lane);
        if (sub >= o) v = P::combine(up, v);
    }
    return v;
}

template <class P, class T>
__device__ __forceinline__ void scan_rows(const T* __restrict__ x, T* __restrict__ out, long long* __restrict__ idx,
                                          long long rows, long long cols, int reverse) {
    typedef typename P::S S;
    __shared__ S part[32];  // the warps' totals: nw slots per row of the block
    const int tpr = blockDim.x, rpb = blockDim.y;
    const int tid = threadIdx.x;
    const int lane = (threadIdx.y * tpr + tid) & 31;
    const int width = tpr < 32 ? tpr : 32;
    const int nw = tpr >> 5, w = tid >> 5;
    S* slot = part + threadIdx.y * nw;
    for (long long g = blockIdx.x; g * rpb < rows; g += gridDim.x) {  // the same trip count for the block
        const long long row = g * rpb + threadIdx.y;
        const bool live = row < rows;
        const long long base = row * cols;
        S carry = P::ident();
        for (long long c0 = 0; c0 < cols; c0 += tpr) {
            const long long j = c0 + tid;
            const long long at = base + (reverse ? cols - 1 - j : j);
            S v = (live && j < cols) ? P::load(x, at, j) : P::ident();
            v = warp_scan<P>(v, lane, width);
            S total;
            if (tpr > 32) {
                if ((tid & 31) == 31) slot[w] = v;
                __syncthreads();
                if (w == 0) {
                    S s = tid < nw ? slot[tid] : P::ident();
                    s = warp_scan<P>(s, lane, 32);
                    if (tid < nw) slot[tid] = s;
                }
                __syncthreads();
                if (w > 0) v = P::combine(slot[w - 1], v);
                total = slot[nw - 1];
                __syncthreads();  // the slots are written again by the next chunk
            } else {
                total = scan_shfl(v, (lane & ~(width - 1)) + width - 1);
            }
            v = P::combine(carry, v);
            if (live && j < cols) P::store(out, idx, at, v);
            carry = P::combine(carry, total);
        }
    }
}

template <class P, class T>
__device__ __forceinline__ void scan_cols(const T* __restrict__ x, T* __restrict__ out, long long* __restrict__ idx,
                                          long long outer, long long n, long long inner, int reverse) {
    typedef typename P::S S;
    const long long total = outer * inner;
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += step) {
        const long long o = t / inner, i = t - o * inner;
        const long long first = o * n * inner + i;
        S acc = P::ident();
        for (long long r = 0; r < n; ++r) {
            const long long at = first + (reverse ? n - 1 - r : r) * inner;
            acc = P::combine(acc, P::load(x, at, r));
            P::store(out, idx, at, acc);
        }
    }
}

#define DEF_SCAN(name, P, T, sfx)                                                                     \
    extern "C" __global__ void name##_rows_##sfx(const T* __restrict__ x, T* __restrict__ out,        \
                                                 long long rows, long long cols, int reverse) {       \
        scan_rows<P>(x, out, (long long*)0, rows, cols, reverse);                                     \
    }                                                                                                 \
    extern "C" __global__ void name##_cols_##sfx(const T* __restrict__ x, T* __restrict__ out,        \
                                                 long long outer, long long n, long long inner,       \
                                                 int reverse) {                                       \
        scan_cols<P>(x, out, (long long*)0, outer, n, inner, reverse);                                \
    }
#define DEF_ARG_SCAN(name, P, T, sfx)                                                                 \
    extern "C" __global__ void name##_rows_##sfx(const T* __restrict__ x, T* __restrict__ values,     \
                                                 long long* __restrict__ indices, long long rows,     \
                                                 long long cols) {                                    \
        scan_rows<P>(x, values, indices, rows, cols, 0);                                              \
    }                                                                                                 \
    extern "C" __global__ void name##_cols_##sfx(const T* __restrict__ x, T* __restrict__ values,     \
                                                 long long* __restrict__ indices, long long outer,    \
                                                 long long n, long long inner) {                      \
        scan_cols<P>(x, values, indices, outer, n, inner, 0);                                         \
    }
// (aliases: a macro argument cannot hold the comma of a template argument list)
template <class T> using SumScan = Accumulate<T, ScanSum>;
template <class T> using ProdScan = Accumulate<T, ScanProd>;
template <class T> using MaxScan = Extreme<T, true>;
template <class T> using MinScan = Extreme<T, false>;
#define DEF_SCANS(T, sfx)                   \
    DEF_SCAN(cumsum, SumScan<T>, T, sfx)    \
    DEF_SCAN(cumprod, ProdScan<T>, T, sfx)
#define DEF_ARG_SCANS(T, sfx)                  \
    DEF_ARG_SCAN(cummax, MaxScan<T>, T, sfx)   \
    DEF_ARG_SCAN(cummin, MinScan<T>, T, sfx)

DEF_SCANS(float, f32)
DEF_SCANS(double, f64)
DEF_SCANS(long long, i64)
DEF_ARG_SCANS(float, f32)
DEF_ARG_SCANS(double, f64)
DEF_ARG_SCANS(long long, i64)
DEF_ARG_SCANS(int, i32)
