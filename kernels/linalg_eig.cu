// Orthogonal factorizations of batches of small and medium matrices: symmetric eigen (eigh),
// singular values (svd) and QR (qr), f32 and f64. These are teaching-size kernels: ONE THREAD
// BLOCK PER MATRIX (a grid-stride loop over the batch), the working matrices in global memory,
// Jacobi (eigh, svd) and Householder (qr) methods. They are correct for any size, but a large
// matrix gets one SM: for big factorizations a blocked multi-kernel algorithm (cuSOLVER's) is the
// fast way.
//
// Every block size is a multiple of 32 (whole warps: the reductions shuffle with a full mask),
// at most 1024 threads. Sizes are 64-bit; the backend never launches with an empty batch or an
// empty matrix.
//
// eigh_<T>(a, work, w, v, batch, n, upper): a (batch, n, n) symmetric matrices, read from the
//   upper triangle when `upper`, else the lower. Cyclic two-sided Jacobi with the round-robin
//   (tournament) ordering: each of the n' - 1 rounds of a sweep (n' = n rounded up to even)
//   rotates n' / 2 disjoint pairs (p, q) at once: all rotation angles from the current matrix,
//   then the rows, then the columns and the eigenvector matrix, the 2x2 blocks themselves set
//   exactly diagonal. Sweeps until the off-diagonal Frobenius norm is at most eps * ||A||_F (at
//   most MAX_SWEEPS). Out: w (batch, n) eigenvalues ascending (ties by position), v (batch, n,
//   n) their eigenvectors as columns, each column's largest |entry| (the first of equals)
//   positive; work (batch, n, n) scratch that ends as diag(w).
// svd_<T>(g, s, ut, vt, batch, m, n, ucols): g (batch, n, m): the TRANSPOSE of A (m, n), m >= n
//   (the backend transposes a wide A), so that each column of A is a contiguous row of g.
//   One-sided (Hestenes) Jacobi: a warp per pair of columns (p, q) of a round, rotating them
//   orthogonal whenever |g_p . g_q| > sqrt(m) eps ||g_p|| ||g_q||, accumulating V; sweeps until
//   a sweep rotates nothing. Singular values: the column norms, sorted descending; U's columns:
//   g_j / s_j, those with s_j <= m eps s_max and the ucols - n extra ones of full_matrices
//   completed one by one with the first e_k (of residual^2 >= (m - c) / (2m) against the c
//   columns so far) orthogonalized against them. Each v_j then flipped so that its largest |entry|
//   is positive, with u_j unless u_j was completed. Out: s (batch, n), ut (batch, ucols, m) = U^T, vt (batch, n,
//   n) = Vh; g ends as diag(s) U^T (rows s_i u_i).
// qr_<T>(at, tau, qt, r, batch, m, n, qcols, rrows): at (batch, n, m): A^T (each column of A
//   contiguous). LAPACK's geqrf: for j < k = min(m, n), the reflector H_j = I - tau v v^T with
//   v_j = 1, beta = -sign(alpha) ||(alpha, x)|| (tau = 0 where x = 0), a warp per trailing
//   column applying it. Out: at ends as geqrf's compact form (R on and above the diagonal, the
//   v's below, transposed as numpy's qr(mode='raw')), tau (batch, k), r (batch, rrows, n) = R
//   (rrows = k or m, zeros below the diagonal), and unless qcols == 0, qt (batch, qcols, m) =
//   Q^T, orgqr's backward accumulation of the reflectors into the first qcols columns of I.

#define MAX_SWEEPS 60

template <class T> struct Eps;
template <> struct Eps<float> { static __device__ float v() { return 1.1920928955078125e-07f; } };
template <> struct Eps<double> { static __device__ double v() { return 2.220446049250313e-16; } };

template <class T> __device__ __forceinline__ T warp_sum(T v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// the sum of every thread's v, the same in every thread (the warps' partials added in order);
// every thread of the block must call it
template <class T> __device__ T block_sum(T v, T* buf) {
    v = warp_sum(v);
    const int nw = (int)(blockDim.x >> 5);
    __syncthreads();   // buf may still be read by the previous call
    if ((threadIdx.x & 31) == 0) buf[threadIdx.x >> 5] = v;
    __syncthreads();
    T r = T(0);
    for (int i = 0; i < nw; ++i) r += buf[i];
    return r;
}

// the smallest of every thread's v, the same in every thread
__device__ long long block_min(long long v, long long* buf) {
    for (int o = 16; o > 0; o >>= 1) {
        const long long u = __shfl_xor_sync(0xffffffffu, v, o);
        v = u < v ? u : v;
    }
    const int nw = (int)(blockDim.x >> 5);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) buf[threadIdx.x >> 5] = v;
    __syncthreads();
    long long r = buf[0];
    for (int i = 1; i < nw; ++i) r = buf[i] < r ? buf[i] : r;
    return r;
}

// round r of the circle-method tournament on np (even) players: its pair k as (p < q)
__device__ __forceinline__ void tournament_pair(long long np, long long r, long long k, long long& p, long long& q) {
    long long a, b;
    if (k == 0) {
        a = np - 1;
        b = r;
    } else {
        a = (r + k) % (np - 1);
        b = (r - k + (np - 1)) % (np - 1);
    }
    p = a < b ? a : b;
    q = a < b ? b : a;
}

// the Jacobi rotation (c, s) = (cos, sin) that zeroes the off-diagonal of [[app, apq], [apq, aqq]]
// (Golub & Van Loan's sym.schur2): t = sign(tau) / (|tau| + sqrt(1 + tau^2)), tau = (aqq - app) / 2apq
template <class T> __device__ __forceinline__ void jacobi_rotation(T app, T aqq, T apq, T& c, T& s) {
    if (apq == T(0)) {
        c = T(1);
        s = T(0);
        return;
    }
    const T tau = (aqq - app) / (T(2) * apq);
    const T t = (tau >= T(0) ? T(1) : T(-1)) / (fabs(tau) + hypot(T(1), tau));
    c = T(1) / sqrt(T(1) + t * t);
    s = t * c;
}

// whether (x_i, i) sorts before (x_j, j): ascending (descending when DESC) by value, NaN last
// (first when DESC), ties by position
template <bool DESC, class T> __device__ __forceinline__ bool sorts_before(T xi, long long i, T xj, long long j) {
    const bool ni = xi != xi, nj = xj != xj;
    if (ni || nj) return (ni && nj) ? i < j : (DESC ? ni : nj);
    if (xi == xj) return i < j;
    return DESC ? xi > xj : xi < xj;
}

// the rank of x[j] in the sort order, counted over i = from, from + step, ... (a lane's share)
template <bool DESC, class T>
__device__ long long rank_of(const T* x, long long n, long long j, long long from, long long step) {
    long long r = 0;
    const T xj = x[j];
    for (long long i = from; i < n; i += step) r += sorts_before<DESC>(x[i], i, xj, j) ? 1 : 0;
    return r;
}

// ---- eigh ----------------------------------------------------------------------------------------------

template <class T>
__device__ void eigh_one(const T* __restrict__ a, T* __restrict__ work, T* __restrict__ w, T* __restrict__ v,
                         long long n, int upper, T* buf) {
    const long long tid = threadIdx.x, nt = blockDim.x, nn = n * n;
    T part = T(0);
    for (long long i = tid; i < nn; i += nt) {
        const long long r = i / n, c = i - r * n;
        const bool from_upper = upper ? r <= c : r >= c;   // the triangle that is read
        const T x = from_upper ? a[i] : a[c * n + r];
        work[i] = x;
        v[i] = r == c ? T(1) : T(0);
        part += x * x;
    }
    const T norm2 = block_sum(part, buf);
    const T tol2 = Eps<T>::v() * Eps<T>::v() * norm2;
    const long long np = n + (n & 1), pairs = np / 2;
    for (int sweep = 0; sweep < MAX_SWEEPS; ++sweep) {
        part = T(0);
        for (long long i = tid; i < nn; i += nt) {
            const long long r = i / n, c = i - r * n;
            if (r != c) part += work[i] * work[i];
        }
        const T off2 = block_sum(part, buf);
        if (!(off2 > tol2)) break;   // converged (or NaN: nothing to gain)
        for (long long round = 0; round < np - 1; ++round) {
            // the angles, c in w[p] and s in w[q] (w is free until the end)
            for (long long k = tid; k < pairs; k += nt) {
                long long p, q;
                tournament_pair(np, round, k, p, q);
                if (q >= n) continue;
                T c, s;
                jacobi_rotation(work[p * n + p], work[q * n + q], work[p * n + q], c, s);
                w[p] = c;
                w[q] = s;
            }
            __syncthreads();
            // rows p and q, outside the pair's own 2x2 block
            for (long long i = tid; i < pairs * n; i += nt) {
                const long long k = i / n, col = i - k * n;
                long long p, q;
                tournament_pair(np, round, k, p, q);
                if (q >= n || col == p || col == q) continue;
                const T c = w[p], s = w[q], x = work[p * n + col], y = work[q * n + col];
                work[p * n + col] = c * x - s * y;
                work[q * n + col] = s * x + c * y;
            }
            __syncthreads();
            // columns p and q (the 2x2 block set exactly), and V's columns p and q
            for (long long i = tid; i < pairs * n; i += nt) {
                const long long k = i / n, row = i - k * n;
                long long p, q;
                tournament_pair(np, round, k, p, q);
                if (q >= n) continue;
                const T c = w[p], s = w[q];
                if (row == p) {
                    const T apq = work[p * n + q];
                    const T t = s / c;
                    work[p * n + p] -= t * apq;
                    work[q * n + q] += t * apq;
                    work[p * n + q] = T(0);
                    work[q * n + p] = T(0);
                } else if (row != q) {
                    const T x = work[row * n + p], y = work[row * n + q];
                    work[row * n + p] = c * x - s * y;
                    work[row * n + q] = s * x + c * y;
                }
                const T x = v[row * n + p], y = v[row * n + q];
                v[row * n + p] = c * x - s * y;
                v[row * n + q] = s * x + c * y;
            }
            __syncthreads();
        }
    }
    // sort: eigenvalues (unsorted) into w; each column j of V to column rank(j) of work
    for (long long i = tid; i < n; i += nt) w[i] = work[i * n + i];
    __syncthreads();
    for (long long j = tid; j < n; j += nt) {
        const long long r = rank_of<false>(w, n, j, 0, 1);
        for (long long row = 0; row < n; ++row) work[row * n + r] = v[row * n + j];
    }
    __syncthreads();
    // back into V, each column's sign fixed (its largest |entry| positive)
    for (long long j = tid; j < n; j += nt) {
        long long at = 0;
        T best = T(-1);
        for (long long row = 0; row < n; ++row) {
            const T x = fabs(work[row * n + j]);
            if (x > best) {
                best = x;
                at = row;
            }
        }
        const T sign = work[at * n + j] < T(0) ? T(-1) : T(1);
        for (long long row = 0; row < n; ++row) v[row * n + j] = sign * work[row * n + j];
    }
    __syncthreads();
    for (long long j = tid; j < n; j += nt) work[rank_of<false>(w, n, j, 0, 1)] = w[j];   // work's row 0
    __syncthreads();
    for (long long i = tid; i < n; i += nt) w[i] = work[i];
    __syncthreads();
    for (long long i = tid; i < nn; i += nt) {
        const long long r = i / n, c = i - r * n;
        work[i] = r == c ? w[r] : T(0);
    }
    __syncthreads();   // the next matrix of this block reuses buf
}

// ---- svd -----------------------------------------------------------------------------------------------

template <class T>
__device__ void svd_one(T* __restrict__ g, T* __restrict__ s, T* __restrict__ ut, T* __restrict__ vt, long long m,
                        long long n, long long ucols, T* buf, long long* ibuf, int* flags) {
    const long long tid = threadIdx.x, nt = blockDim.x;
    const int lane = (int)(threadIdx.x & 31), warp = (int)(threadIdx.x >> 5), nw = (int)(blockDim.x >> 5);
    for (long long i = tid; i < n * n; i += nt) vt[i] = (i / n == i % n) ? T(1) : T(0);
    __syncthreads();   // a warp's pairs' rows of V were set by other warps
    const long long np = n + (n & 1), pairs = np / 2;
    const T tol = sqrt(T(m)) * Eps<T>::v();
    for (int sweep = 0; sweep < MAX_SWEEPS; ++sweep) {
        int rotated = 0;
        for (long long round = 0; round < np - 1; ++round) {
            for (long long k = warp; k < pairs; k += nw) {
                long long p, q;
                tournament_pair(np, round, k, p, q);
                if (q >= n) continue;
                T* gp = g + p * m;
                T* gq = g + q * m;
                T alpha = T(0), beta = T(0), gamma = T(0);
                for (long long i = lane; i < m; i += 32) {
                    const T x = gp[i], y = gq[i];
                    alpha += x * x;
                    beta += y * y;
                    gamma += x * y;
                }
                alpha = warp_sum(alpha);
                beta = warp_sum(beta);
                gamma = warp_sum(gamma);
                if (!(fabs(gamma) > tol * sqrt(alpha) * sqrt(beta))) continue;   // orthogonal enough (or NaN)
                rotated = 1;
                const T zeta = (beta - alpha) / (T(2) * gamma);
                const T t = (zeta >= T(0) ? T(1) : T(-1)) / (fabs(zeta) + hypot(T(1), zeta));
                const T c = T(1) / sqrt(T(1) + t * t), sn = t * c;
                for (long long i = lane; i < m; i += 32) {
                    const T x = gp[i], y = gq[i];
                    gp[i] = c * x - sn * y;
                    gq[i] = sn * x + c * y;
                }
                T* vp = vt + p * n;
                T* vq = vt + q * n;
                for (long long i = lane; i < n; i += 32) {
                    const T x = vp[i], y = vq[i];
                    vp[i] = c * x - sn * y;
                    vq[i] = sn * x + c * y;
                }
            }
            __syncthreads();
        }
        if (lane == 0) flags[warp] = rotated;
        __syncthreads();
        int any = 0;
        for (int i = 0; i < nw; ++i) any |= flags[i];
        __syncthreads();   // everyone has read flags before the next sweep writes them
        if (!any) break;
    }
    // the column norms, unsorted, into s
    for (long long j = warp; j < n; j += nw) {
        T acc = T(0);
        for (long long i = lane; i < m; i += 32) acc += g[j * m + i] * g[j * m + i];
        acc = warp_sum(acc);
        if (lane == 0) s[j] = sqrt(acc);
    }
    __syncthreads();
    T smax = T(0);
    for (long long j = 0; j < n; ++j) smax = s[j] > smax ? s[j] : smax;
    const T zero = T(m) * Eps<T>::v() * smax;   // singular values at most this get a completed u
    // U^T's row rank(j): g_j / s_j, or zeros to be completed
    for (long long j = warp; j < n; j += nw) {
        const long long r = warp_sum(rank_of<true>(s, n, j, lane, 32));
        const T sj = s[j];
        const bool keep = sj > zero;
        for (long long i = lane; i < m; i += 32) ut[r * m + i] = keep ? g[j * m + i] / sj : T(0);
    }
    __syncthreads();
    // Vh's rows sorted through g (rows of length m >= n), then back
    for (long long j = warp; j < n; j += nw) {
        const long long r = warp_sum(rank_of<true>(s, n, j, lane, 32));
        for (long long i = lane; i < n; i += 32) g[r * m + i] = vt[j * n + i];
    }
    __syncthreads();
    for (long long e = tid; e < n * n; e += nt) {
        const long long r = e / n;
        vt[e] = g[r * m + (e - r * n)];
    }
    __syncthreads();
    for (long long j = warp; j < n; j += nw) {
        const long long r = warp_sum(rank_of<true>(s, n, j, lane, 32));
        if (lane == 0) g[r * m] = s[j];
    }
    __syncthreads();
    for (long long j = tid; j < n; j += nt) s[j] = g[j * m];
    __syncthreads();
    // completion: the columns from the first (near) zero singular value on, and those past n
    long long first = n;
    for (long long j = n - 1; j >= 0 && !(s[j] > zero); --j) first = j;
    for (long long c = first; c < ucols; ++c) {
        // the first e_k far enough from the span of the c columns so far
        const T need = T(m - c) / T(2 * m);
        long long pick = m;
        for (long long k = tid; k < m && pick == m; k += nt) {
            T acc = T(0);
            for (long long j = 0; j < c; ++j) acc += ut[j * m + k] * ut[j * m + k];
            if (T(1) - acc >= need) pick = k;
        }
        pick = block_min(pick, ibuf);
        if (pick == m) pick = 0;   // only when NaNs reached U
        T part = T(0);
        for (long long i = tid; i < m; i += nt) {
            T x = i == pick ? T(1) : T(0);
            for (long long j = 0; j < c; ++j) x -= ut[j * m + pick] * ut[j * m + i];
            ut[c * m + i] = x;
            part += x * x;
        }
        const T inv = T(1) / sqrt(block_sum(part, buf));
        for (long long i = tid; i < m; i += nt) ut[c * m + i] *= inv;
        __syncthreads();
    }
    // signs: v_j's largest |entry| positive, u_j = A v_j / s_j flipped along
    for (long long j = warp; j < n; j += nw) {
        T best = T(-1), value = T(0);   // the largest |entry| (the first of equals), and the entry
        long long at = n;
        for (long long i = lane; i < n; i += 32) {
            const T x = vt[j * n + i];
            if (fabs(x) > best) {
                best = fabs(x);
                value = x;
                at = i;
            }
        }
        for (int o = 16; o > 0; o >>= 1) {
            const T b2 = __shfl_xor_sync(0xffffffffu, best, o), v2 = __shfl_xor_sync(0xffffffffu, value, o);
            const long long a2 = __shfl_xor_sync(0xffffffffu, at, o);
            if (b2 > best || (b2 == best && a2 < at)) {
                best = b2;
                value = v2;
                at = a2;
            }
        }
        if (value < T(0)) {   // known to every lane: no lane reads the row while another negates it
            for (long long i = lane; i < n; i += 32) vt[j * n + i] = -vt[j * n + i];
            if (j < first)   // a completed u_j is no image of v_j: its sign is the completion's
                for (long long i = lane; i < m; i += 32) ut[j * m + i] = -ut[j * m + i];
        }
    }
    __syncthreads();
    for (long long e = tid; e < n * m; e += nt) g[e] = s[e / m] * ut[e];
    __syncthreads();
}

// ---- qr ------------------------------------------------------------------------------------------------

template <class T>
__device__ void qr_one(T* __restrict__ at, T* __restrict__ tau, T* __restrict__ qt, T* __restrict__ r, long long m,
                       long long n, long long qcols, long long rrows, T* buf) {
    const long long tid = threadIdx.x, nt = blockDim.x;
    const int lane = (int)(threadIdx.x & 31), warp = (int)(threadIdx.x >> 5), nw = (int)(blockDim.x >> 5);
    const long long k = m < n ? m : n;
    for (long long j = 0; j < k; ++j) {
        T* col = at + j * m;
        // dlarfg on (alpha, x) = column j from row j down
        T part = T(0);
        for (long long i = j + 1 + tid; i < m; i += nt) part += col[i] * col[i];
        const T xnorm2 = block_sum(part, buf);
        const T alpha = col[j];
        T tj = T(0), scale = T(1), beta = alpha;
        if (xnorm2 > T(0) || xnorm2 != xnorm2) {
            beta = -copysign(hypot(alpha, sqrt(xnorm2)), alpha);
            tj = (beta - alpha) / beta;
            scale = T(1) / (alpha - beta);
        }
        __syncthreads();   // everyone has read alpha
        if (tid == 0) {
            col[j] = beta;
            tau[j] = tj;
        }
        if (tj != T(0)) {
            for (long long i = j + 1 + tid; i < m; i += nt) col[i] *= scale;
        }
        __syncthreads();
        // H_j on each trailing column c: c -= tau (v . c) v, v = (1, col[j+1:])
        if (tj != T(0)) {
            for (long long c = j + 1 + warp; c < n; c += nw) {
                T* y = at + c * m;
                const T yj = y[j];   // read by every lane before the shuffles, written by lane 0 after
                T dot = T(0);
                for (long long i = j + 1 + lane; i < m; i += 32) dot += col[i] * y[i];
                dot = warp_sum(dot) + yj;
                const T f = tj * dot;
                if (lane == 0) y[j] -= f;
                for (long long i = j + 1 + lane; i < m; i += 32) y[i] -= f * col[i];
            }
        }
        __syncthreads();
    }
    for (long long e = tid; e < rrows * n; e += nt) {
        const long long i = e / n, c = e - i * n;
        r[e] = (i <= c && i < m) ? at[c * m + i] : T(0);
    }
    if (qcols == 0) return;
    for (long long e = tid; e < qcols * m; e += nt) qt[e] = (e / m == e % m) ? T(1) : T(0);
    __syncthreads();
    for (long long j = k - 1; j >= 0; --j) {
        const T tj = tau[j];
        const T* v = at + j * m;
        if (tj != T(0)) {
            for (long long c = j + warp; c < qcols; c += nw) {
                T* y = qt + c * m;
                const T yj = y[j];
                T dot = T(0);
                for (long long i = j + 1 + lane; i < m; i += 32) dot += v[i] * y[i];
                dot = warp_sum(dot) + yj;
                const T f = tj * dot;
                if (lane == 0) y[j] -= f;
                for (long long i = j + 1 + lane; i < m; i += 32) y[i] -= f * v[i];
            }
        }
        __syncthreads();
    }
}

#define LINALG_EIG_KERNELS(T, sfx)                                                                              \
    extern "C" __global__ void eigh_##sfx(const T* __restrict__ a, T* __restrict__ work, T* __restrict__ w,    \
                                          T* __restrict__ v, long long batch, long long n, int upper) {        \
        __shared__ T buf[32];                                                                                  \
        for (long long b = blockIdx.x; b < batch; b += gridDim.x)                                              \
            eigh_one<T>(a + b * n * n, work + b * n * n, w + b * n, v + b * n * n, n, upper, buf);             \
    }                                                                                                          \
    extern "C" __global__ void svd_##sfx(T* __restrict__ g, T* __restrict__ s, T* __restrict__ ut,             \
                                         T* __restrict__ vt, long long batch, long long m, long long n,        \
                                         long long ucols) {                                                    \
        __shared__ T buf[32];                                                                                  \
        __shared__ long long ibuf[32];                                                                         \
        __shared__ int flags[32];                                                                              \
        for (long long b = blockIdx.x; b < batch; b += gridDim.x)                                              \
            svd_one<T>(g + b * n * m, s + b * n, ut + b * ucols * m, vt + b * n * n, m, n, ucols, buf, ibuf,   \
                       flags);                                                                                 \
    }                                                                                                          \
    extern "C" __global__ void qr_##sfx(T* __restrict__ at, T* __restrict__ tau, T* __restrict__ qt,           \
                                        T* __restrict__ r, long long batch, long long m, long long n,          \
                                        long long qcols, long long rrows) {                                    \
        __shared__ T buf[32];                                                                                  \
        const long long k = m < n ? m : n;                                                                     \
        for (long long b = blockIdx.x; b < batch; b += gridDim.x) {                                            \
            qr_one<T>(at + b * n * m, tau + b * k, qt + b * qcols * m, r + b * rrows * n, m, n, qcols, rrows,  \
                      buf);                                                                                    \
            __syncthreads();                                                                                   \
        }                                                                                                      \
    }

LINALG_EIG_KERNELS(float, f32)
LINALG_EIG_KERNELS(double, f64)
