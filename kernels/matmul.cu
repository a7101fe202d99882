// Tiled GEMM for minigrad's CUDA backend: C = op(A) @ op(B), float32 and float64.
//
// Entry points (16, all `extern "C"`, ta/tb in {n, t}, sfx in {f32, f64}):
//   gemm_<ta><tb>_<sfx>        big tiles, for matrices that fill the GPU
//   gemm_small_<ta><tb>_<sfx>  small tiles + K split inside the block, for small M*N
// Signature (all variants):
//   (const T* A, const T* B, T* C, const T* bias, int M, int N, int K,
//    long long lda, long long ldb, long long ldc,
//    long long strideA, long long strideB, long long strideC)
//   op(A) is MxK, op(B) is KxN, C is MxN, all row-major, strides in elements:
//   'n': A[m*lda + k], B[k*ldb + n];  't': A[k*lda + m], B[n*ldb + k];  C[m*ldc + n].
//   Batch b = blockIdx.z reads A + b*strideA, B + b*strideB, writes C + b*strideC;
//   strideA/strideB may be 0 (broadcast). C is overwritten (no beta); K == 0 writes zeros.
//   bias: null, or N contiguous elements added to every row of C after the sum is rounded
//   (C[m][n] = (A@B)[m][n] + bias[n], two roundings, as a product followed by a bias add), the
//   epilogue of nn.Linear (torch's addmm). It must not overlap C.
//   Each operand needs unit stride along one axis (that is what 'n'/'t' encode; the
//   launcher copies anything else). C must not overlap A or B.
//
// Launch conventions (mirror these in the Python launcher):
//   family            blockDim  BM x BN x BK  per thread  K split  static smem
//   gemm_*_f32        256       128x128x16    8x8         1        33792 B
//   gemm_small_*_f32  256        32x 32x32    4x4         4        18432 B
//   gemm_*_f64        256        64x 64x8     4x4         1        16896 B
//   gemm_small_*_f64  256        32x 32x16    4x4         4        32768 B
//   grid = (ceil(N/BN), ceil(M/BM), batch); no dynamic shared memory.
//   The #defines below hold these numbers (MG_GEMM_<F32|F64>[_SMALL]_{THREADS,BM,BN,BK}).
//   Do not launch when M*N*batch == 0 (a zero grid is a launch error); K == 0 is fine.
//   CUDA caps gridDim.y and gridDim.z at 65535: for batch > 65535 or M > 65535*BM the
//   launcher splits the work into several launches, offsetting the pointers: for batches
//   A += b0*strideA, B += b0*strideB, C += b0*strideC; for rows C += m0*ldc and
//   A += m0*lda ('n') or A += m0 ('t').
//   Path choice: with S = the device's multiprocessor count (132 on an H100 SXM) and
//   BM, BN the big family's tile of that dtype, use gemm_small_* when
//     ceil(M/BM) * ceil(N/BN) * batch < S
//   (the big grid would leave SMs idle), else gemm_*. A rule to re-tune on a GPU.
//   16-byte loads and stores are chosen inside the kernel per operand: they are used when
//   the operand's batch base pointer is 16-byte aligned and its leading dimension is a
//   multiple of 4 (f32) / 2 (f64); otherwise, and on edge tiles, scalar accesses are used.
//   So there are no separate aligned variants for the launcher to pick.
//
// Design: each block computes a BM x BN tile of C. Both operand tiles are staged in shared
// memory k-major (As[k][m], Bs[k][n]) so every thread reads its row and column fragments
// as 16-byte vectors; a thread's TM rows are TM/V groups of V adjacent rows spaced
// BM/TM*V apart (V = elements per 16 bytes), which keeps a warp's fragment reads
// conflict-free. Shared tiles are double buffered: the next K-tile is fetched into
// registers before computing the current one and stored into the other buffer after, so
// one barrier per K-tile suffices. The small family splits each K-tile among KS groups of
// threads and adds the KS partial tiles through shared memory at the end, so a small
// output still keeps 256 threads busy per block.

#define MG_GEMM_F32_THREADS 256
#define MG_GEMM_F32_BM 128
#define MG_GEMM_F32_BN 128
#define MG_GEMM_F32_BK 16
#define MG_GEMM_F32_SMALL_THREADS 256
#define MG_GEMM_F32_SMALL_BM 32
#define MG_GEMM_F32_SMALL_BN 32
#define MG_GEMM_F32_SMALL_BK 32
#define MG_GEMM_F64_THREADS 256
#define MG_GEMM_F64_BM 64
#define MG_GEMM_F64_BN 64
#define MG_GEMM_F64_BK 8
#define MG_GEMM_F64_SMALL_THREADS 256
#define MG_GEMM_F64_SMALL_BM 32
#define MG_GEMM_F64_SMALL_BN 32
#define MG_GEMM_F64_SMALL_BK 16

template <typename T> struct MgVec;
template <> struct MgVec<float> {
    typedef float4 type;
    static constexpr int n = 4;
    static __device__ __forceinline__ void unpack(const float4 v, float* r) { r[0] = v.x; r[1] = v.y; r[2] = v.z; r[3] = v.w; }
    static __device__ __forceinline__ float4 pack(const float* r) { return make_float4(r[0], r[1], r[2], r[3]); }
};
template <> struct MgVec<double> {
    typedef double2 type;
    static constexpr int n = 2;
    static __device__ __forceinline__ void unpack(const double2 v, double* r) { r[0] = v.x; r[1] = v.y; }
    static __device__ __forceinline__ double2 pack(const double* r) { return make_double2(r[0], r[1]); }
};

__device__ __forceinline__ bool mg_aligned16(const void* p) {
    return ((unsigned long long)p & 15ull) == 0;
}

// Writes v[0..V) to p[0..min(V, rem)): one 16-byte store when allowed, else scalars.
template <typename T>
__device__ __forceinline__ void mg_store_row(T* p, const T* v, int rem, bool vec) {
    constexpr int V = MgVec<T>::n;
    if (vec && rem >= V) {
        *reinterpret_cast<typename MgVec<T>::type*>(p) = MgVec<T>::pack(v);
    } else {
#pragma unroll
        for (int j = 0; j < V; ++j)
            if (j < rem) p[j] = v[j];
    }
}

// Moves one operand's OUTER x BK tile (OUTER = BM for A, BN for B) from global memory to a
// k-major shared tile S[BK][OUTER + V]. In memory the tile is a set of "lines" strided by
// ld; KCONTIG says the contiguous direction is k (A 'n', B 't'), else it is OUTER (A 't',
// B 'n'). Each thread moves L vectors of V contiguous elements per tile, holding them in
// registers between load() and store() so the fetch overlaps the compute on the other buffer.
template <typename T, int OUTER, int BK, int NT, bool KCONTIG>
struct MgTileLoader {
    typedef typename MgVec<T>::type VT;
    static constexpr int V = MgVec<T>::n;
    static constexpr int CV = (KCONTIG ? BK : OUTER) / V;  // vectors per line
    static constexpr int LS = NT / CV;                     // lines per pass of the block
    static constexpr int L = OUTER * BK / V / NT;          // vectors per thread
    static constexpr int SLD = OUTER + V;                  // padded shared row: shifts banks, keeps 16 B alignment
    static_assert(NT % CV == 0 && (OUTER * BK / V) % NT == 0 && L >= 1, "tile does not split evenly among threads");

    const T* q;          // this thread's first element in the current K-tile
    long long ld, step;
    int line0, pos;      // tile coordinates of that element: line, offset along the contiguous axis
    int line_rem;        // lines left in the matrix from line0 (<= 0: out of range)
    int pos_rem;         // elements left along the contiguous axis from pos
    bool vec;
    T r[L][V];

    __device__ __forceinline__ MgTileLoader(const T* base, long long ld_, int outer0, int outer_n, int K, int tid) {
        line0 = tid / CV;
        pos = (tid % CV) * V;
        ld = ld_;
        if constexpr (KCONTIG) {
            q = base + (long long)(outer0 + line0) * ld + pos;
            step = BK;
            line_rem = outer_n - outer0 - line0;
            pos_rem = K - pos;
        } else {
            q = base + (long long)line0 * ld + outer0 + pos;
            step = (long long)BK * ld;
            line_rem = K - line0;
            pos_rem = outer_n - outer0 - pos;
        }
        vec = (ld % V == 0) && mg_aligned16(base);
    }

    __device__ __forceinline__ void load() {
#pragma unroll
        for (int l = 0; l < L; ++l) {
            const T* p = q + (long long)(l * LS) * ld;
            const bool line_ok = line_rem - l * LS > 0;
            if (vec && line_ok && pos_rem >= V) {
                MgVec<T>::unpack(*reinterpret_cast<const VT*>(p), r[l]);
            } else {
#pragma unroll
                for (int j = 0; j < V; ++j) {
                    r[l][j] = T(0);
                    if (line_ok && j < pos_rem) r[l][j] = p[j];
                }
            }
        }
    }

    __device__ __forceinline__ void next() {
        q += step;
        if constexpr (KCONTIG) pos_rem -= BK;
        else line_rem -= BK;
    }

    __device__ __forceinline__ void store(T* S) const {
#pragma unroll
        for (int l = 0; l < L; ++l) {
            const int line = line0 + l * LS;
            if constexpr (KCONTIG) {
#pragma unroll
                for (int j = 0; j < V; ++j) S[(pos + j) * SLD + line] = r[l][j];
            } else {
                *reinterpret_cast<VT*>(&S[line * SLD + pos]) = MgVec<T>::pack(r[l]);
            }
        }
    }
};

// Adds bias[n + j] to v[j] for the columns of a V-wide group that lie inside the matrix.
template <typename T>
__device__ __forceinline__ void mg_add_bias(T* v, const T* __restrict__ bias, int n, int rem) {
    constexpr int V = MgVec<T>::n;
#pragma unroll
    for (int j = 0; j < V; ++j)
        if (j < rem) v[j] += bias[n + j];
}

template <typename T, int BM, int BN, int BK, int TM, int TN, int KS, bool TA, bool TB>
__device__ __forceinline__ void mg_gemm(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C,
                                        const T* __restrict__ bias, int M, int N, int K,
                                        long long lda, long long ldb, long long ldc,
                                        long long strideA, long long strideB, long long strideC) {
    typedef typename MgVec<T>::type VT;
    constexpr int V = MgVec<T>::n;
    constexpr int TY = BM / TM, TX = BN / TN;  // threads of one K group along m and n
    constexpr int GT = TX * TY, NT = GT * KS;
    constexpr int KG = BK / KS;                // k steps of one group per K-tile
    constexpr int WX = TX < 8 ? TX : 8, WY = 32 / WX;  // a warp covers WY x WX threads of the grid
    constexpr int SA = BM + V, SB = BN + V;
    constexpr int BUF = BK * (SA + SB);
    constexpr int RED = KS > 1 ? KS * BM * BN : 0;
    static_assert(TM % V == 0 && TN % V == 0 && BK % KS == 0 && BK % V == 0, "bad tile shape");
    static_assert(GT % 32 == 0 && TX % WX == 0 && TY % WY == 0, "a K group must be whole warps");
    static_assert(KS == 1 || (BM * BN / V) % NT == 0, "reduction does not split evenly among threads");
    // Both buffers for the main loop; reused for the K-split reduction afterwards.
    __shared__ __align__(16) T smem[2 * BUF > RED ? 2 * BUF : RED];

    const int tid = threadIdx.x;
    const long long z = blockIdx.z;
    A += z * strideA;
    B += z * strideB;
    C += z * strideC;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    MgTileLoader<T, BM, BK, NT, !TA> la(A, lda, m0, M, K, tid);
    MgTileLoader<T, BN, BK, NT, TB> lb(B, ldb, n0, N, K, tid);

    const int g = tid / GT, t = tid % GT, warp = t / 32, lane = t % 32;
    const int tx = (warp % (TX / WX)) * WX + lane % WX;
    const int ty = (warp / (TX / WX)) * WY + lane / WX;

    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = T(0);

    const int ntiles = (K + BK - 1) / BK;
    if (ntiles > 0) {
        la.load();
        lb.load();
        la.store(smem);
        lb.store(smem + BK * SA);
        __syncthreads();
    }
    T* cur = smem;
    T* nxt = smem + BUF;
    for (int kt = 0; kt < ntiles; ++kt) {
        const T* As = cur;
        const T* Bs = cur + BK * SA;
        const bool more = kt + 1 < ntiles;
        if (more) {
            la.next();
            lb.next();
            la.load();
            lb.load();
        }
#pragma unroll
        for (int kk = 0; kk < KG; ++kk) {
            const int k = g * KG + kk;
            T a[TM], b[TN];
#pragma unroll
            for (int c = 0; c < TM / V; ++c)
                MgVec<T>::unpack(*reinterpret_cast<const VT*>(&As[k * SA + c * TY * V + ty * V]), &a[c * V]);
#pragma unroll
            for (int c = 0; c < TN / V; ++c)
                MgVec<T>::unpack(*reinterpret_cast<const VT*>(&Bs[k * SB + c * TX * V + tx * V]), &b[c * V]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        if (more) {
            // nxt was last read before the previous iteration's barrier.
            la.store(nxt);
            lb.store(nxt + BK * SA);
        }
        __syncthreads();
        T* done = cur;
        cur = nxt;
        nxt = done;
    }

    const bool cvec = (ldc % V == 0) && mg_aligned16(C);
    if constexpr (KS == 1) {
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int m = m0 + (i / V) * TY * V + ty * V + i % V;
            if (m >= M) continue;
            T* crow = C + (long long)m * ldc;
#pragma unroll
            for (int c = 0; c < TN / V; ++c) {
                const int n = n0 + c * TX * V + tx * V;
                if (bias) mg_add_bias<T>(&acc[i][c * V], bias, n, N - n);
                mg_store_row<T>(crow + n, &acc[i][c * V], N - n, cvec);
            }
        }
    } else {
        // The last loop iteration ended on a barrier, so smem is free for the partial tiles.
        T* red = smem;  // [KS][BM][BN]
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = (i / V) * TY * V + ty * V + i % V;
#pragma unroll
            for (int c = 0; c < TN / V; ++c)
                *reinterpret_cast<VT*>(&red[(g * BM + row) * BN + c * TX * V + tx * V]) = MgVec<T>::pack(&acc[i][c * V]);
        }
        __syncthreads();
        // Each thread sums whole V-wide rows in a fixed group order, so results are deterministic.
#pragma unroll
        for (int l = 0; l < BM * BN / V / NT; ++l) {
            const int idx = tid + l * NT;
            const int row = idx / (BN / V), col = (idx % (BN / V)) * V;
            T s[V];
            MgVec<T>::unpack(*reinterpret_cast<const VT*>(&red[row * BN + col]), s);
#pragma unroll
            for (int gg = 1; gg < KS; ++gg) {
                T p[V];
                MgVec<T>::unpack(*reinterpret_cast<const VT*>(&red[(gg * BM + row) * BN + col]), p);
#pragma unroll
                for (int j = 0; j < V; ++j) s[j] += p[j];
            }
            const int m = m0 + row, n = n0 + col;
            if (m < M) {
                if (bias) mg_add_bias<T>(s, bias, n, N - n);
                mg_store_row<T>(C + (long long)m * ldc + n, s, N - n, cvec);
            }
        }
    }
}

// One exported kernel per (family, transposes, dtype); CFG = BM, BN, BK, TM, TN, KS, MINBLOCKS.
// __launch_bounds__ minimum blocks per SM caps registers at 65536 / (THREADS * MINBLOCKS).
#define MG_GEMM_KERNEL(NAME, T, THREADS, BM, BN, BK, TM, TN, KS, MINB, TA, TB)                             \
    extern "C" __global__ void __launch_bounds__(THREADS, MINB)                                            \
    NAME(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, const T* __restrict__ bias,   \
         int M, int N, int K, long long lda, long long ldb, long long ldc, long long strideA,               \
         long long strideB, long long strideC) {                                                           \
        static_assert((BM / TM) * (BN / TN) * KS == THREADS, "blockDim does not match the tile");         \
        mg_gemm<T, BM, BN, BK, TM, TN, KS, TA, TB>(A, B, C, bias, M, N, K, lda, ldb, ldc, strideA,        \
                                                   strideB, strideC);                                      \
    }

#define MG_GEMM_FAMILY(PREFIX, SFX, T, THREADS, CFG)               \
    MG_GEMM_KERNEL(PREFIX##_nn_##SFX, T, THREADS, CFG, false, false) \
    MG_GEMM_KERNEL(PREFIX##_nt_##SFX, T, THREADS, CFG, false, true)  \
    MG_GEMM_KERNEL(PREFIX##_tn_##SFX, T, THREADS, CFG, true, false)  \
    MG_GEMM_KERNEL(PREFIX##_tt_##SFX, T, THREADS, CFG, true, true)

// Caps: f32 big 128 regs (2 blocks/SM), f32 small 85 (3 blocks/SM), f64 128; each checked
// spill-free with ptxas for sm_80 and sm_90 (a tighter f64 cap spills).
#define MG_GEMM_F32_CFG MG_GEMM_F32_BM, MG_GEMM_F32_BN, MG_GEMM_F32_BK, 8, 8, 1, 2
#define MG_GEMM_F32_SMALL_CFG MG_GEMM_F32_SMALL_BM, MG_GEMM_F32_SMALL_BN, MG_GEMM_F32_SMALL_BK, 4, 4, 4, 3
#define MG_GEMM_F64_CFG MG_GEMM_F64_BM, MG_GEMM_F64_BN, MG_GEMM_F64_BK, 4, 4, 1, 2
#define MG_GEMM_F64_SMALL_CFG MG_GEMM_F64_SMALL_BM, MG_GEMM_F64_SMALL_BN, MG_GEMM_F64_SMALL_BK, 4, 4, 4, 2

MG_GEMM_FAMILY(gemm, f32, float, MG_GEMM_F32_THREADS, MG_GEMM_F32_CFG)
MG_GEMM_FAMILY(gemm_small, f32, float, MG_GEMM_F32_SMALL_THREADS, MG_GEMM_F32_SMALL_CFG)
MG_GEMM_FAMILY(gemm, f64, double, MG_GEMM_F64_THREADS, MG_GEMM_F64_CFG)
MG_GEMM_FAMILY(gemm_small, f64, double, MG_GEMM_F64_SMALL_THREADS, MG_GEMM_F64_SMALL_CFG)
