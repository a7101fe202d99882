// Softmax, log-softmax and fused cross-entropy over the LAST axis of a
// contiguous (rows, cols) matrix (the backend permutes and copies first).
//
// Launch convention (every kernel in this file; the same as reduce.cu):
//   block = (TPR, RPB, 1): TPR threads cooperate on one row, RPB rows per block.
//           TPR is a power of two in [1, 1024]; TPR * RPB is a multiple of 32
//           and <= 1024.
//   grid  = (G, 1, 1), any G >= 1: blocks stride over groups of RPB rows, so
//           G = min(ceil(rows / RPB), 2**31 - 1) gives one group per block and
//           a smaller G is still correct.
//   shared memory: static only (at most 32 slots of the reduction state);
//           launch with 0 bytes of dynamic shared memory.
//   Suggested: TPR = min(next_pow2(max(cols, 1)), 256), RPB = 256 // TPR.
//           Do not launch when rows == 0.
// Results depend only on (TPR, cols), never on timing: per-thread folds in
// order, then a fixed shuffle/shared-memory tree; every thread of a row uses
// the row statistics of its thread 0.
//
// Kernels, sfx in {f32, f64}, all T* of rows*cols elements unless said:
//   softmax_rows_(const T* x, T* y, long long rows, long long cols)
//   log_softmax_rows_(const T* x, T* y, long long rows, long long cols)
//   softmax_backward_rows_(const T* g, const T* y, T* dx, long long rows, long long cols)
//       dx = y * (g - sum(g * y))          (y: the forward's output)
//   log_softmax_backward_rows_(const T* g, const T* y, T* dx, long long rows, long long cols)
//       dx = g - exp(y) * sum(g)           (y: the forward's output)
//   cross_entropy_fwd_(const T* x, const long long* target, T* loss_rows,
//       T* stats, long long rows, long long cols)
//       stats (2 * rows elements) = the row maxima m, then s = sum(exp(x - m)) per row;
//       loss_rows[r] = (m[r] - x[r, target[r]]) + log(s[r]) (rows elements; the backend
//       averages them). A target outside [0, cols) gives a NaN loss: the backend
//       validates targets first.
//   cross_entropy_bwd_(const T* x, const long long* target, const T* stats,
//       const T* gscale, T divisor, T* dx, long long rows, long long cols)
//       dx[r, c] = exp(x[r, c] - m[r]) * (g / s[r]) - (c == target[r] ? g : 0),
//       g = *gscale / divisor (*gscale: one element in device memory, the loss's upstream
//       gradient, so that the host never waits for the GPU to read it; divisor: the count
//       a 'mean' loss divides by, 1 otherwise, so the division needs no launch of its own)
//   The logsumexp m + log(s) is never formed: rounded to float32 at logits near 1e4 it
//   would be off by up to ~5e-4, and the loss and gradient with it.
// dx may not alias g, y or x. Numerics follow torch's max-subtracted formula:
// a row holding NaN or +inf, or only -inf, comes out all NaN.

#include "row_reduce.cuh"

__device__ __forceinline__ float ex(float v) { return expf(v); }
__device__ __forceinline__ double ex(double v) { return exp(v); }
__device__ __forceinline__ float lg(float v) { return logf(v); }
__device__ __forceinline__ double lg(double v) { return log(v); }

template <class T> struct Lim;
template <> struct Lim<float> {
    static __device__ float neg_inf() { return __int_as_float(0xff800000); }
    static __device__ float nan() { return __int_as_float(0x7fc00000); }
};
template <> struct Lim<double> {
    static __device__ double neg_inf() { return __longlong_as_double(0xfff0000000000000ll); }
    static __device__ double nan() { return __longlong_as_double(0x7ff8000000000000ll); }
};

// Online softmax state: s = sum of exp(x - m) over the elements seen, m their
// max. Starts at (-inf, 0).
template <class T> struct MS { T m, s; };

template <class T> __device__ __forceinline__ MS<T> shfl_xor(MS<T> a, int o) {
    MS<T> r = {shfl_xor(a.m, o), shfl_xor(a.s, o)};
    return r;
}
template <class T> __device__ __forceinline__ MS<T> shfl_from(MS<T> a, int lane) {
    MS<T> r = {shfl_from(a.m, lane), shfl_from(a.s, lane)};
    return r;
}


struct OpSum {
    template <class T> __device__ T operator()(T a, T b) const { return a + b; }
};

// Rescaling only when the max moves keeps exp(inf - inf) from inventing NaNs
// that torch's two-pass formula would not produce.
template <class T> __device__ __forceinline__ T rescale(T s, T from, T to) {
    return from == to ? s : s * ex(from - to);
}
struct OpMS {
    template <class T> __device__ MS<T> operator()(MS<T> a, MS<T> b) const {
        const T m = a.m > b.m ? a.m : b.m;
        MS<T> r = {m, rescale(a.s, a.m, m) + rescale(b.s, b.m, m)};
        return r;
    }
};

template <class T> __device__ __forceinline__ void ms_push(MS<T>& st, T v) {
    if (v > st.m) {
        st.s = rescale(st.s, st.m, v);
        st.m = v;
    }
    // -inf adds exp(-inf) = 0 unless the max is -inf too, and then every
    // output of the row is NaN whatever s is; NaN falls through and poisons s.
    if (v != Lim<T>::neg_inf()) st.s += ex(v - st.m);
}

// First row group of this block and the stride between groups. Loops run on
// the group, not the row, so the bound is uniform over the block and every
// thread reaches row_allreduce's barriers even past the last row.
__device__ __forceinline__ long long group_start() { return (long long)blockIdx.x * blockDim.y; }
__device__ __forceinline__ long long group_step() { return (long long)gridDim.x * blockDim.y; }

template <class T>
__device__ __forceinline__ MS<T> row_stats(const T* __restrict__ p, long long cols, bool valid) {
    MS<T> st = {Lim<T>::neg_inf(), T(0)};
    if (valid)
        for (long long c = threadIdx.x; c < cols; c += blockDim.x) ms_push(st, p[c]);
    return row_allreduce(st, OpMS());
}

template <class T, bool LOG>
__device__ __forceinline__ void softmax_rows(const T* __restrict__ x, T* __restrict__ y,
                                             long long rows, long long cols) {
    for (long long g = group_start(); g < rows; g += group_step()) {
        const long long r = g + threadIdx.y;
        const bool valid = r < rows;
        const T* p = x + r * cols;
        const MS<T> st = row_stats(p, cols, valid);
        if (!valid) continue;
        T* q = y + r * cols;
        if (LOG) {
            const T ls = lg(st.s);
            for (long long c = threadIdx.x; c < cols; c += blockDim.x) q[c] = (p[c] - st.m) - ls;
        } else {
            for (long long c = threadIdx.x; c < cols; c += blockDim.x) q[c] = ex(p[c] - st.m) / st.s;
        }
    }
}

// LOG: dx = g - exp(y) * sum(g); else dx = y * (g - sum(g * y)).
template <class T, bool LOG>
__device__ __forceinline__ void softmax_backward_rows(const T* __restrict__ gr, const T* __restrict__ y,
                                                      T* __restrict__ dx, long long rows,
                                                      long long cols) {
    for (long long g = group_start(); g < rows; g += group_step()) {
        const long long r = g + threadIdx.y;
        const bool valid = r < rows;
        const T* pg = gr + r * cols;
        const T* py = y + r * cols;
        T acc = T(0);
        if (valid) {
#pragma unroll 4
            for (long long c = threadIdx.x; c < cols; c += blockDim.x)
                acc += LOG ? pg[c] : pg[c] * py[c];
        }
        const T dot = row_allreduce(acc, OpSum());
        if (!valid) continue;
        T* q = dx + r * cols;
        for (long long c = threadIdx.x; c < cols; c += blockDim.x)
            q[c] = LOG ? pg[c] - ex(py[c]) * dot : py[c] * (pg[c] - dot);
    }
}

template <class T>
__device__ __forceinline__ void cross_entropy_fwd(const T* __restrict__ x,
                                                  const long long* __restrict__ target,
                                                  T* __restrict__ loss_rows, T* __restrict__ stats,
                                                  long long rows, long long cols) {
    for (long long g = group_start(); g < rows; g += group_step()) {
        const long long r = g + threadIdx.y;
        const bool valid = r < rows;
        const T* p = x + r * cols;
        const MS<T> st = row_stats(p, cols, valid);
        if (!valid || threadIdx.x != 0) continue;
        const long long t = target[r];
        stats[r] = st.m;
        stats[rows + r] = st.s;
        loss_rows[r] = (t >= 0 && t < cols) ? (st.m - p[t]) + lg(st.s) : Lim<T>::nan();
    }
}

// Elementwise, but laid out like the others so one launch rule serves all.
template <class T>
__device__ __forceinline__ void cross_entropy_bwd(const T* __restrict__ x,
                                                  const long long* __restrict__ target,
                                                  const T* __restrict__ stats,
                                                  const T* __restrict__ gscale_p, T divisor,
                                                  T* __restrict__ dx, long long rows,
                                                  long long cols) {
    const T gscale = *gscale_p / divisor;
    for (long long g = group_start(); g < rows; g += group_step()) {
        const long long r = g + threadIdx.y;
        if (r >= rows) continue;
        const T* p = x + r * cols;
        T* q = dx + r * cols;
        const T m = stats[r], w = gscale / stats[rows + r];
        const long long t = target[r];
        for (long long c = threadIdx.x; c < cols; c += blockDim.x)
            q[c] = ex(p[c] - m) * w - (c == t ? gscale : T(0));
    }
}

#define DEF_SOFTMAX(T, sfx)                                                                  \
    extern "C" __global__ void __launch_bounds__(1024)                                       \
    softmax_rows_##sfx(const T* __restrict__ x, T* __restrict__ y, long long rows,           \
                       long long cols) {                                                     \
        softmax_rows<T, false>(x, y, rows, cols);                                            \
    }                                                                                        \
    extern "C" __global__ void __launch_bounds__(1024)                                       \
    log_softmax_rows_##sfx(const T* __restrict__ x, T* __restrict__ y, long long rows,       \
                           long long cols) {                                                 \
        softmax_rows<T, true>(x, y, rows, cols);                                             \
    }                                                                                        \
    extern "C" __global__ void __launch_bounds__(1024)                                       \
    softmax_backward_rows_##sfx(const T* __restrict__ g, const T* __restrict__ y,            \
                                T* __restrict__ dx, long long rows, long long cols) {        \
        softmax_backward_rows<T, false>(g, y, dx, rows, cols);                               \
    }                                                                                        \
    extern "C" __global__ void __launch_bounds__(1024)                                       \
    log_softmax_backward_rows_##sfx(const T* __restrict__ g, const T* __restrict__ y,        \
                                    T* __restrict__ dx, long long rows, long long cols) {    \
        softmax_backward_rows<T, true>(g, y, dx, rows, cols);                                \
    }                                                                                        \
    extern "C" __global__ void __launch_bounds__(1024)                                       \
    cross_entropy_fwd_##sfx(const T* __restrict__ x, const long long* __restrict__ target,   \
                            T* __restrict__ loss_rows, T* __restrict__ stats,                \
                            long long rows, long long cols) {                                \
        cross_entropy_fwd<T>(x, target, loss_rows, stats, rows, cols);                       \
    }                                                                                        \
    extern "C" __global__ void __launch_bounds__(1024)                                       \
    cross_entropy_bwd_##sfx(const T* __restrict__ x, const long long* __restrict__ target,   \
                            const T* __restrict__ stats, const T* __restrict__ gscale,       \
                            T divisor, T* __restrict__ dx, long long rows, long long cols) { \
        cross_entropy_bwd<T>(x, target, stats, gscale, divisor, dx, rows, cols);             \
    }

DEF_SOFTMAX(float, f32)
DEF_SOFTMAX(double, f64)
