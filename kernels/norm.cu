// Layer normalization over the LAST axis of a contiguous (rows, cols) matrix (the backend
// reshapes the normalized dims into cols and copies first).
//
// Launch convention: softmax.cu's (row_launch in minigrad/backends/cuda_kernel_table.py):
//   block = (TPR, RPB, 1), TPR a power of two <= 1024, TPR * RPB a multiple of 32, <= 1024;
//   grid = (G, 1, 1), any G >= 1 (blocks stride over groups of RPB rows); static shared
//   memory only. Do not launch when rows == 0; cols == 0 is allowed (mean and rstd NaN).
//
// Kernels, sfx in {f32, f64}; x, y, g, dx: rows*cols elements; w, b: cols; mean, rstd: rows.
//   layer_norm_fwd_(const T* x, const T* w, const T* b, T* y, T* mean, T* rstd,
//                   long long rows, long long cols, T eps)
//       mean = sum(x) / cols; var = sum((x - mean)^2) / cols (biased, two passes over the
//       row: no cancellation); rstd = 1 / sqrt(var + eps); y = (x - mean) * rstd * w + b
//   layer_norm_bwd_(const T* g, const T* x, const T* mean, const T* rstd, const T* w,
//                   T* dx, long long rows, long long cols)
//       xhat = (x - mean) * rstd, gw = g * w;
//       dx = rstd * (gw - sum(gw) / cols - xhat * sum(gw * xhat) / cols)
// The backend passes ones / zeros for an absent weight / bias. Accumulation is in T (float
// for f32, as torch's CUDA layer norm accumulates float in float). Results depend only on
// (TPR, cols): per-thread folds in order, then row_allreduce's fixed tree. Outputs may not
// alias inputs.

#include "row_reduce.cuh"

__device__ __forceinline__ float rsq(float v) { return 1.0f / sqrtf(v); }
__device__ __forceinline__ double rsq(double v) { return 1.0 / sqrt(v); }

// two sums reduced together (the backward's sum(gw) and sum(gw * xhat))
template <class T> struct Pair { T a, b; };

template <class T> __device__ __forceinline__ Pair<T> shfl_xor(Pair<T> v, int o) {
    Pair<T> r = {shfl_xor(v.a, o), shfl_xor(v.b, o)};
    return r;
}
template <class T> __device__ __forceinline__ Pair<T> shfl_from(Pair<T> v, int lane) {
    Pair<T> r = {shfl_from(v.a, lane), shfl_from(v.b, lane)};
    return r;
}

struct NormSum {
    template <class T> __device__ T operator()(T a, T b) const { return a + b; }
    template <class T> __device__ Pair<T> operator()(Pair<T> x, Pair<T> y) const {
        Pair<T> r = {x.a + y.a, x.b + y.b};
        return r;
    }
};

// Loops run on the row group, so every thread of a block reaches row_allreduce's barriers.
__device__ __forceinline__ long long norm_group_start() { return (long long)blockIdx.x * blockDim.y; }
__device__ __forceinline__ long long norm_group_step() { return (long long)gridDim.x * blockDim.y; }

template <class T>
__device__ __forceinline__ void layer_norm_fwd(const T* __restrict__ x, const T* __restrict__ w,
                                               const T* __restrict__ b, T* __restrict__ y,
                                               T* __restrict__ mean, T* __restrict__ rstd,
                                               long long rows, long long cols, T eps) {
    for (long long g = norm_group_start(); g < rows; g += norm_group_step()) {
        const long long r = g + threadIdx.y;
        const bool valid = r < rows;
        const T* p = x + r * cols;
        T s = T(0);
        if (valid)
            for (long long c = threadIdx.x; c < cols; c += blockDim.x) s += p[c];
        const T mu = row_allreduce(s, NormSum()) / T(cols);
        T q = T(0);
        if (valid)
            for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
                const T d = p[c] - mu;
                q += d * d;
            }
        const T rs = rsq(row_allreduce(q, NormSum()) / T(cols) + eps);
        if (!valid) continue;
        if (threadIdx.x == 0) {
            mean[r] = mu;
            rstd[r] = rs;
        }
        T* o = y + r * cols;
        for (long long c = threadIdx.x; c < cols; c += blockDim.x) o[c] = (p[c] - mu) * rs * w[c] + b[c];
    }
}

template <class T>
__device__ __forceinline__ void layer_norm_bwd(const T* __restrict__ gr, const T* __restrict__ x,
                                               const T* __restrict__ mean, const T* __restrict__ rstd,
                                               const T* __restrict__ w, T* __restrict__ dx,
                                               long long rows, long long cols) {
    for (long long g = norm_group_start(); g < rows; g += norm_group_step()) {
        const long long r = g + threadIdx.y;
        const bool valid = r < rows;
        const T* pg = gr + r * cols;
        const T* px = x + r * cols;
        const T mu = valid ? mean[r] : T(0), rs = valid ? rstd[r] : T(0);
        Pair<T> acc = {T(0), T(0)};
        if (valid)
            for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
                const T gw = pg[c] * w[c];
                acc.a += gw;
                acc.b += gw * ((px[c] - mu) * rs);
            }
        const Pair<T> tot = row_allreduce(acc, NormSum());
        if (!valid) continue;
        const T m1 = tot.a / T(cols), m2 = tot.b / T(cols);
        T* o = dx + r * cols;
        for (long long c = threadIdx.x; c < cols; c += blockDim.x)
            o[c] = rs * ((pg[c] * w[c] - m1) - ((px[c] - mu) * rs) * m2);
    }
}

#define DEF_LAYER_NORM(T, sfx)                                                                   \
    extern "C" __global__ void __launch_bounds__(1024)                                           \
    layer_norm_fwd_##sfx(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b, \
                         T* __restrict__ y, T* __restrict__ mean, T* __restrict__ rstd,         \
                         long long rows, long long cols, T eps) {                                \
        layer_norm_fwd<T>(x, w, b, y, mean, rstd, rows, cols, eps);                              \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(1024)                                           \
    layer_norm_bwd_##sfx(const T* __restrict__ g, const T* __restrict__ x,                       \
                         const T* __restrict__ mean, const T* __restrict__ rstd,                 \
                         const T* __restrict__ w, T* __restrict__ dx, long long rows,            \
                         long long cols) {                                                       \
        layer_norm_bwd<T>(g, x, mean, rstd, w, dx, rows, cols);                                  \
    }

DEF_LAYER_NORM(float, f32)
DEF_LAYER_NORM(double, f64)
