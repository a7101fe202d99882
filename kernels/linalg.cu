// Dense factorizations and triangular solves for torch.linalg (lu_factor, lu_solve, solve,
// inv, det, cholesky, solve_triangular, ...). Every array is a contiguous batch of row-major
// matrices; the backend copies the input first where a kernel works in place.
//
// These are ONE-BLOCK-PER-MATRIX kernels: each block of LINALG_THREADS threads owns one matrix
// of the batch (blocks stride over the batch, so any grid G >= 1 covers it) and does its O(n^3)
// work alone, column step by column step, with __syncthreads() between the steps and the
// matrix kept in global memory (shared memory only holds the pivot search's reduction). That
// is right for the small and medium matrices of a teaching engine and for big batches of them;
// for one big matrix a blocked right-looking LU/Cholesky whose trailing updates run on the
// GEMM kernels (matmul.cu) would be the way to use the whole GPU.
//
// Launch: block = (LINALG_THREADS, 1, 1), grid = (G, 1, 1), any G >= 1; static shared memory
// only. Do not launch when batch == 0 or a matrix has no elements (the backend handles those).
//
//   lu_factor_{f32,f64}(T* a, int* piv, int* info, long long batch, long long m, long long n)
//       a: (batch, m, n), replaced by its LU factorization with partial pivoting (getrf): the
//       unit lower L below the diagonal, U on and above it. piv: (batch, min(m, n)), 1-based
//       row interchanges as LAPACK's; info: (batch,), 0, or the 1-based index of the first zero
//       pivot (the factorization goes on past it, that column left unscaled). The pivot of
//       column k is the largest |a[i][k]|, i >= k, ties to the lowest i (LAPACK's idamax);
//       a NaN is never preferred (a column of NaNs pivots on its diagonal).
//   lu_solve_{f32,f64}(const T* lu, const int* piv, T* b, long long batch, long long n,
//                      long long k, int adjoint)
//       b: (batch, n, k), replaced by the solution X of A X = B (adjoint: A^T X = B), A = P L U
//       given by lu_factor's (batch, n, n) lu and (batch, n) piv (getrs). Pivots outside
//       [1, n] are clamped (the caller checks them as torch does).
//   trsm_{f32,f64}(const T* a, T* b, long long batch, long long n, long long k, int lower,
//                  int trans, int unit)
//       b: (batch, n, k), replaced by the solution of M X = B, M = a (trans: a^T), a triangular
//       (batch, n, n) matrix: M lower (lower = 1) or upper; unit: M's diagonal taken as ones
//       (not read). Only M's triangle is read.
//   cholesky_{f32,f64}(T* a, int* info, long long batch, long long n)
//       a: (batch, n, n) replaced by the lower Cholesky factor L of the symmetric matrix given by
//       its lower triangle (potrf, uplo = L); the strict upper triangle is set to zero. info:
//       0, or the order of the first leading minor that is not positive-definite (the
//       factorization stops there: the columns before it are L's, the trailing part is as the
//       updates so far left it).
//
// Substitution is column-oriented (axpy form): at step j every thread updates its share of the
// not-yet-final rows by M[i][j] * x_j, x_j = b[j] / M[j][j], which keeps the whole block busy
// even for a single right-hand side; the division of each row by its diagonal is a final pass.
// The order of the arithmetic is fixed by (n, k), never by timing.

#define LINALG_THREADS 256

// ---- shared pieces ------------------------------------------------------------------------

// the elements of M = a or a^T
template <class T> __device__ __forceinline__ T mat_at(const T* a, long long n, long long i, long long j, bool trans) {
    return trans ? a[j * n + i] : a[i * n + j];
}

// Solves M X = B in place for one matrix: b is (n, k); see trsm above.
template <class T>
__device__ void block_trsm(const T* __restrict__ a, T* __restrict__ b, long long n, long long k, bool lower,
                           bool trans, bool unit) {
    const long long tid = threadIdx.x, nt = blockDim.x;
    for (long long s = 0; s < n; ++s) {
        const long long j = lower ? s : n - 1 - s;
        const long long first = lower ? j + 1 : 0, rows = lower ? n - 1 - j : j;
        const T d = unit ? T(1) : mat_at(a, n, j, j, trans);
        for (long long e = tid; e < rows * k; e += nt) {
            const long long i = first + e / k, c = e % k;
            const T x = unit ? b[j * k + c] : b[j * k + c] / d;
            b[i * k + c] -= mat_at(a, n, i, j, trans) * x;
        }
        __syncthreads();
    }
    if (!unit) {
        for (long long e = tid; e < n * k; e += nt) {
            const long long i = e / k;
            b[e] = b[e] / mat_at(a, n, i, i, trans);
        }
        __syncthreads();
    }
}

// the row interchanges of piv applied to b (n, k), forward (P^T B) or backward (P B); each
// thread owns columns of b, so the sequence of swaps needs no barrier
__device__ __forceinline__ long long pivot_row(const int* piv, long long i, long long n) {
    long long p = (long long)piv[i] - 1;
    return p < 0 ? 0 : (p >= n ? n - 1 : p);
}
template <class T>
__device__ void block_swaps(const int* __restrict__ piv, T* __restrict__ b, long long n, long long k, bool backward) {
    for (long long c = threadIdx.x; c < k; c += blockDim.x) {
        for (long long s = 0; s < n; ++s) {
            const long long i = backward ? n - 1 - s : s, p = pivot_row(piv, i, n);
            if (p != i) {
                const T t = b[i * k + c];
                b[i * k + c] = b[p * k + c];
                b[p * k + c] = t;
            }
        }
    }
    __syncthreads();
}

// ---- LU with partial pivoting -----------------------------------------------------------------

template <class T>
__device__ void block_lu(T* __restrict__ a, int* __restrict__ piv, int* __restrict__ info, long long m, long long n) {
    __shared__ double best_v[LINALG_THREADS];
    __shared__ long long best_i[LINALG_THREADS];
    const long long tid = threadIdx.x, nt = blockDim.x, kmax = m < n ? m : n;
    int first_zero = 0;
    for (long long k = 0; k < kmax; ++k) {
        // this thread's candidate: the first largest |a[i][k]| of its rows (NaN never wins)
        double v = -1.0;
        long long vi = m;
        for (long long i = k + tid; i < m; i += nt) {
            const double x = fabs((double)a[i * n + k]);
            if (x > v) { v = x; vi = i; }
        }
        best_v[tid] = v;
        best_i[tid] = vi;
        __syncthreads();
        for (long long s = nt / 2; s > 0; s >>= 1) {
            if (tid < s) {
                const double w = best_v[tid + s];
                const long long wi = best_i[tid + s];
                if (w > best_v[tid] || (w == best_v[tid] && wi < best_i[tid])) {
                    best_v[tid] = w;
                    best_i[tid] = wi;
                }
            }
            __syncthreads();
        }
        const long long p = best_i[0] < m ? best_i[0] : k;
        const T pv = a[p * n + k];
        __syncthreads();  // every thread has its pivot before rows move and best_* is reused
        if (tid == 0) {
            piv[k] = (int)(p + 1);
            if (pv == T(0) && first_zero == 0) first_zero = (int)(k + 1);
        }
        if (pv == T(0)) continue;  // a zero column below the diagonal: nothing to eliminate
        if (p != k) {
            for (long long j = tid; j < n; j += nt) {
                const T t = a[k * n + j];
                a[k * n + j] = a[p * n + j];
                a[p * n + j] = t;
            }
            __syncthreads();
        }
        for (long long i = k + 1 + tid; i < m; i += nt) a[i * n + k] = a[i * n + k] / pv;
        __syncthreads();
        const long long rows = m - k - 1, cols = n - k - 1;
        for (long long e = tid; e < rows * cols; e += nt) {
            const long long i = k + 1 + e / cols, j = k + 1 + e % cols;
            a[i * n + j] -= a[i * n + k] * a[k * n + j];
        }
        __syncthreads();
    }
    if (tid == 0) *info = first_zero;
}

// ---- Cholesky --------------------------------------------------------------------------------

template <class T> __device__ __forceinline__ T linalg_sqrt(T x);
template <> __device__ __forceinline__ float linalg_sqrt(float x) { return sqrtf(x); }
template <> __device__ __forceinline__ double linalg_sqrt(double x) { return sqrt(x); }

template <class T>
__device__ void block_cholesky(T* __restrict__ a, int* __restrict__ info, long long n) {
    const long long tid = threadIdx.x, nt = blockDim.x;
    int failed = 0;
    for (long long k = 0; k < n; ++k) {
        const T d = a[k * n + k];
        __syncthreads();  // every thread has read the diagonal before it is overwritten
        if (!(d > T(0))) {  // not positive (or NaN): this leading minor is not positive-definite
            failed = (int)(k + 1);
            break;
        }
        const T s = linalg_sqrt(d);
        if (tid == 0) a[k * n + k] = s;
        for (long long i = k + 1 + tid; i < n; i += nt) a[i * n + k] = a[i * n + k] / s;
        __syncthreads();
        // the trailing lower triangle (j <= i), walked as its bounding square, j fastest
        const long long r = n - k - 1;
        for (long long e = tid; e < r * r; e += nt) {
            const long long i = k + 1 + e / r, j = k + 1 + e % r;
            if (j <= i) a[i * n + j] -= a[i * n + k] * a[j * n + k];
        }
        __syncthreads();
    }
    for (long long e = tid; e < n * n; e += nt) {
        if (e % n > e / n) a[e] = T(0);
    }
    if (tid == 0) *info = failed;
    __syncthreads();
}

// ---- entry points ----------------------------------------------------------------------------

#define DEF_LINALG(T, sfx)                                                                                \
    extern "C" __global__ void lu_factor_##sfx(T* __restrict__ a, int* __restrict__ piv,                 \
                                               int* __restrict__ info, long long batch, long long m,     \
                                               long long n) {                                            \
        const long long kmax = m < n ? m : n;                                                            \
        for (long long b = blockIdx.x; b < batch; b += gridDim.x)                                        \
            block_lu<T>(a + b * m * n, piv + b * kmax, info + b, m, n);                                  \
    }                                                                                                    \
    extern "C" __global__ void lu_solve_##sfx(const T* __restrict__ lu, const int* __restrict__ piv,     \
                                              T* __restrict__ x, long long batch, long long n,           \
                                              long long k, int adjoint) {                                \
        for (long long b = blockIdx.x; b < batch; b += gridDim.x) {                                      \
            const T* a = lu + b * n * n;                                                                 \
            const int* p = piv + b * n;                                                                  \
            T* xb = x + b * n * k;                                                                       \
            if (!adjoint) {  /* P L U X = B: X = U^-1 L^-1 P^T B */                                      \
                block_swaps<T>(p, xb, n, k, false);                                                      \
                block_trsm<T>(a, xb, n, k, true, false, true);                                           \
                block_trsm<T>(a, xb, n, k, false, false, false);                                         \
            } else {         /* U^T L^T P^T X = B: X = P L^-T U^-T B */                                  \
                block_trsm<T>(a, xb, n, k, true, true, false);                                           \
                block_trsm<T>(a, xb, n, k, false, true, true);                                           \
                block_swaps<T>(p, xb, n, k, true);                                                       \
            }                                                                                            \
        }                                                                                                \
    }                                                                                                    \
    extern "C" __global__ void trsm_##sfx(const T* __restrict__ a, T* __restrict__ x, long long batch,    \
                                          long long n, long long k, int lower, int trans, int unit) {    \
        for (long long b = blockIdx.x; b < batch; b += gridDim.x)                                        \
            block_trsm<T>(a + b * n * n, x + b * n * k, n, k, lower != 0, trans != 0, unit != 0);        \
    }                                                                                                    \
    extern "C" __global__ void cholesky_##sfx(T* __restrict__ a, int* __restrict__ info, long long batch, \
                                              long long n) {                                             \
        for (long long b = blockIdx.x; b < batch; b += gridDim.x)                                        \
            block_cholesky<T>(a + b * n * n, info + b, n);                                               \
    }

DEF_LINALG(float, f32)
DEF_LINALG(double, f64)
