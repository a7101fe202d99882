// Row reductions over the LAST axis of a contiguous (rows, cols) matrix: the
// backend permutes and copies first so the reduced axes are last and flattened.
//
// Launch convention (every kernel in this file; softmax.cu uses the same one):
//   block = (TPR, RPB, 1): TPR threads cooperate on one row, RPB rows per block.
//           TPR is a power of two in [1, 1024]; TPR * RPB is a multiple of 32
//           and <= 1024.
//   grid  = (G, 1, 1), any G >= 1: blocks stride over groups of RPB rows, so
//           G = min(ceil(rows / RPB), 2**31 - 1) gives one group per block and
//           a smaller G is still correct.
//   shared memory: static only (at most 32 slots of the reduction state);
//           launch with 0 bytes of dynamic shared memory.
//   Suggested: TPR = min(next_pow2(max(cols, 1)), 256), RPB = 256 // TPR
//           (so every block has 256 threads); TPR = 1024, RPB = 1 suits a few
//           very long rows. Do not launch when rows == 0.
// The result depends only on (TPR, cols), never on timing: each thread folds
// its strided elements in order, then a fixed shuffle/shared-memory tree
// combines the threads, and every thread sees the value of the row's thread 0.
//
// Kernels (out has `rows` elements):
//   sum_rows_{f32,f64,i64}(const T* x, T* out, long long rows, long long cols)
//       cols == 0 gives 0; i64 wraps on overflow like torch.
//   max_rows_, min_rows_{f32,f64,i64,i32}(same signature)
//       NaN wins; cols must be >= 1 (torch raises on empty rows: check first).
//   argmax_rows_, argmin_rows_{f32,f64,i64,i32}(const T* x, long long* out,
//       long long rows, long long cols)
//       index of the first NaN if any, else of the first extreme value;
//       cols == 0 writes -1 (the backend must raise before launching).
//   mean_rows_{f32,f64}(const T* x, T* out, long long rows, long long cols, T count)
//       the row's sum divided by count, rounded once each, as a sum then a division;
//       count is a parameter so that a split reduction's last pass divides by the
//       length of the original row.
//   dot_rows_{f32,f64}(const T* a, const T* b, T* out, long long rows, long long cols)
//       the sum of the products of row r of a and row r of b (both contiguous (rows,
//       cols)); each product is rounded before it is added (no fused multiply-add), so
//       the bits equal those of a mul launch followed by sum_rows with the same launch
//       shape. cols == 0 gives 0.
//
// Column reductions over the MIDDLE axis of a contiguous (outer, red, inner) array,
// so that a sum over the leading axes (a bias gradient) needs no transposed copy:
//   {sum,max,min}_cols_{sfx}(const T* x, T* out, long long outer, long long red,
//                            long long inner)       sfx as for the row kernels
//   mean_cols_{f32,f64}(same, T count)
//       out[o * inner + i] = reduce over r of x[(o * red + r) * inner + i].
//   block = (TX, TY, 1): TX threads on neighbouring columns (coalesced loads), TY
//           threads stride down each column; TY a power of two, TX * TY a multiple
//           of 32 and <= 1024. Suggested: TX = min(next_pow2(inner), 32), TY = 256 / TX.
//   grid  = (G, 1, 1), any G >= 1: blocks stride over the outer * ceil(inner / TX)
//           column tiles. Static shared memory only. Do not launch when outer * inner
//           == 0; red == 0 gives the identity (max/min must be refused before).
// As for rows, the result depends only on (TY, red): each thread folds its rows in
// order, then a fixed shared-memory tree over threadIdx.y combines them.

#include "row_reduce.cuh"

template <class T> struct Lim;
template <> struct Lim<float> {
    static __device__ float lo() { return __int_as_float(0xff800000); }
    static __device__ float hi() { return __int_as_float(0x7f800000); }
};
template <> struct Lim<double> {
    static __device__ double lo() { return __longlong_as_double(0xfff0000000000000ll); }
    static __device__ double hi() { return __longlong_as_double(0x7ff0000000000000ll); }
};
template <> struct Lim<long long> {
    static __device__ long long lo() { return -0x7fffffffffffffffll - 1; }
    static __device__ long long hi() { return 0x7fffffffffffffffll; }
};
template <> struct Lim<int> {
    static __device__ int lo() { return -0x7fffffff - 1; }
    static __device__ int hi() { return 0x7fffffff; }
};

// i < 0 marks a thread that saw no element, so no sentinel value is needed.
template <class T> struct ArgV { T v; long long i; };

template <class T> __device__ __forceinline__ ArgV<T> shfl_xor(ArgV<T> a, int o) {
    ArgV<T> r = {shfl_xor(a.v, o), shfl_xor(a.i, o)};
    return r;
}
template <class T> __device__ __forceinline__ ArgV<T> shfl_from(ArgV<T> a, int lane) {
    ArgV<T> r = {shfl_from(a.v, lane), shfl_from(a.i, lane)};
    return r;
}


struct OpSum {
    template <class T> static __device__ T ident() { return T(0); }
    template <class T> __device__ T operator()(T a, T b) const { return a + b; }
    // signed overflow is undefined in C++; torch wraps, so add as unsigned
    __device__ long long operator()(long long a, long long b) const {
        return (long long)((unsigned long long)a + (unsigned long long)b);
    }
};
struct OpProd {
    template <class T> static __device__ T ident() { return T(1); }
    template <class T> __device__ T operator()(T a, T b) const { return a * b; }
    // as OpSum: wrap on overflow, as torch does, by multiplying as unsigned
    __device__ long long operator()(long long a, long long b) const {
        return (long long)((unsigned long long)a * (unsigned long long)b);
    }
};
struct OpMax {
    template <class T> static __device__ T ident() { return Lim<T>::lo(); }
    template <class T> __device__ T operator()(T a, T b) const {
        return (a > b || a != a) ? a : b;
    }
};
struct OpMin {
    template <class T> static __device__ T ident() { return Lim<T>::hi(); }
    template <class T> __device__ T operator()(T a, T b) const {
        return (a < b || a != a) ? a : b;
    }
};
// GT selects argmax (true) or argmin (false); symmetric in its arguments so
// the shuffle tree's pairing order cannot change the answer.
template <bool GT> struct OpArg {
    template <class T> __device__ ArgV<T> operator()(ArgV<T> a, ArgV<T> b) const {
        if (a.i < 0) return b;
        if (b.i < 0) return a;
        const bool an = a.v != a.v, bn = b.v != b.v;
        if (an != bn) return an ? a : b;
        if (!an && a.v != b.v) return ((a.v > b.v) == GT) ? a : b;
        return a.i < b.i ? a : b;
    }
};

// First row group of this block and the stride between groups. Loops run on
// the group, not the row, so the bound is uniform over the block and every
// thread reaches row_allreduce's barriers even past the last row.
__device__ __forceinline__ long long group_start() { return (long long)blockIdx.x * blockDim.y; }
__device__ __forceinline__ long long group_step() { return (long long)gridDim.x * blockDim.y; }

// What a reduction writes: its value, or (for a mean) that value divided by a count.
struct Keep {
    template <class T> __device__ T operator()(T v) const { return v; }
};
template <class T> struct DivideBy {
    T count;
    __device__ T operator()(T v) const { return v / count; }
};

// What a row reduction folds: the elements of x, or the products of a and b's elements, each
// product rounded on its own (__fmul_rn is never contracted into a fused multiply-add with the
// sum), so a dot product has the bits of a mul launch followed by a sum.
template <class T> struct Elems {
    const T* __restrict__ x;
    __device__ T operator()(long long i) const { return x[i]; }
};
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
template <class T> struct Products {
    const T* __restrict__ a;
    const T* __restrict__ b;
    __device__ T operator()(long long i) const { return mul_rn(a[i], b[i]); }
};

template <class T, class Op, class Fin = Keep, class Load = Elems<T>>
__device__ __forceinline__ void reduce_rows(Load load, T* __restrict__ out, long long rows, long long cols,
                                            Fin fin = Fin()) {
    Op op;
    for (long long g = group_start(); g < rows; g += group_step()) {
        const long long r = g + threadIdx.y;
        const bool valid = r < rows;
        T acc = Op::template ident<T>();
        if (valid) {
            const long long base = r * cols;
#pragma unroll 4
            for (long long c = threadIdx.x; c < cols; c += blockDim.x) acc = op(acc, load(base + c));
        }
        acc = row_allreduce(acc, op);
        if (valid && threadIdx.x == 0) out[r] = fin(acc);
    }
}

template <class T, class Op, class Fin = Keep>
__device__ __forceinline__ void reduce_cols(const T* __restrict__ x, T* __restrict__ out,
                                            long long outer, long long red, long long inner,
                                            Fin fin = Fin()) {
    __shared__ T part[1024];
    Op op;
    const int tx = threadIdx.x, ty = threadIdx.y, TX = blockDim.x, TY = blockDim.y;
    const long long tiles_per_row = (inner + TX - 1) / TX;
    const long long tiles = outer * tiles_per_row;
    // the loop bound is uniform over the block, so every thread reaches every barrier
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const long long o = t / tiles_per_row;
        const long long i = (t - o * tiles_per_row) * TX + tx;
        T acc = Op::template ident<T>();
        if (i < inner) {
            const T* p = x + o * red * inner + i;
#pragma unroll 4
            for (long long r = ty; r < red; r += TY) acc = op(acc, p[r * inner]);
        }
        part[ty * TX + tx] = acc;
        __syncthreads();
        for (int h = TY >> 1; h > 0; h >>= 1) {
            if (ty < h) part[ty * TX + tx] = op(part[ty * TX + tx], part[(ty + h) * TX + tx]);
            __syncthreads();
        }
        if (ty == 0 && i < inner) out[o * inner + i] = fin(part[tx]);
        __syncthreads();  // part is reused by the block's next tile
    }
}

template <class T, bool GT>
__device__ __forceinline__ void arg_rows(const T* __restrict__ x, long long* __restrict__ out,
                                         long long rows, long long cols) {
    OpArg<GT> op;
    for (long long g = group_start(); g < rows; g += group_step()) {
        const long long r = g + threadIdx.y;
        const bool valid = r < rows;
        ArgV<T> acc = {T(0), -1};
        if (valid) {
            const T* p = x + r * cols;
#pragma unroll 4
            for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
                ArgV<T> e = {p[c], c};
                acc = op(acc, e);
            }
        }
        acc = row_allreduce(acc, op);
        if (valid && threadIdx.x == 0) out[r] = acc.i;
    }
}

#define DEF_REDUCE(name, OP, T, sfx)                                                   \
    extern "C" __global__ void __launch_bounds__(1024)                                 \
    name##_rows_##sfx(const T* __restrict__ x, T* __restrict__ out, long long rows,    \
                      long long cols) {                                                \
        reduce_rows<T, OP>(Elems<T>{x}, out, rows, cols);                              \
    }
#define DEF_ARG(name, GT, T, sfx)                                                      \
    extern "C" __global__ void __launch_bounds__(1024)                                 \
    name##_rows_##sfx(const T* __restrict__ x, long long* __restrict__ out,            \
                      long long rows, long long cols) {                                \
        arg_rows<T, GT>(x, out, rows, cols);                                           \
    }
#define DEF_COLS(name, OP, T, sfx)                                                     \
    extern "C" __global__ void __launch_bounds__(1024)                                 \
    name##_cols_##sfx(const T* __restrict__ x, T* __restrict__ out, long long outer,   \
                      long long red, long long inner) {                                \
        reduce_cols<T, OP>(x, out, outer, red, inner);                                 \
    }
#define DEF_MEAN(T, sfx)                                                               \
    extern "C" __global__ void __launch_bounds__(1024)                                 \
    mean_rows_##sfx(const T* __restrict__ x, T* __restrict__ out, long long rows,      \
                    long long cols, T count) {                                         \
        reduce_rows<T, OpSum>(Elems<T>{x}, out, rows, cols, DivideBy<T>{count});       \
    }                                                                                  \
    extern "C" __global__ void __launch_bounds__(1024)                                 \
    mean_cols_##sfx(const T* __restrict__ x, T* __restrict__ out, long long outer,     \
                    long long red, long long inner, T count) {                         \
        reduce_cols<T, OpSum>(x, out, outer, red, inner, DivideBy<T>{count});          \
    }
#define DEF_DOT(T, sfx)                                                                \
    extern "C" __global__ void __launch_bounds__(1024)                                 \
    dot_rows_##sfx(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out, \
                   long long rows, long long cols) {                                   \
        reduce_rows<T, OpSum>(Products<T>{a, b}, out, rows, cols);                     \
    }
#define DEF_EXTREMES(T, sfx)        \
    DEF_REDUCE(max, OpMax, T, sfx)  \
    DEF_REDUCE(min, OpMin, T, sfx)  \
    DEF_COLS(max, OpMax, T, sfx)    \
    DEF_COLS(min, OpMin, T, sfx)    \
    DEF_ARG(argmax, true, T, sfx)   \
    DEF_ARG(argmin, false, T, sfx)
#define DEF_SUM(T, sfx)             \
    DEF_REDUCE(sum, OpSum, T, sfx)  \
    DEF_COLS(sum, OpSum, T, sfx)    \
    DEF_REDUCE(prod, OpProd, T, sfx) \
    DEF_COLS(prod, OpProd, T, sfx)

DEF_SUM(float, f32)
DEF_SUM(double, f64)
DEF_SUM(long long, i64)
DEF_MEAN(float, f32)
DEF_MEAN(double, f64)
DEF_DOT(float, f32)
DEF_DOT(double, f64)

DEF_EXTREMES(float, f32)
DEF_EXTREMES(double, f64)
DEF_EXTREMES(long long, i64)
DEF_EXTREMES(int, i32)
