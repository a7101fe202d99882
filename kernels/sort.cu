// Sorting along the last axis of a contiguous (rows, cols) array, giving the sorted values and
// their int64 positions in the row (torch.sort, argsort, topk, kthvalue, msort).
//
// The order is total: keys compare with NaN after every number (first when descending), and
// equal keys (two NaNs, or 0.0 and -0.0 too) by their original position, ascending in both
// directions. So every sort is stable and its result is one array, whatever the launch shape.
//
// sort_<dir>_tiles_<T>: one block per tile of TILE<T> elements (a whole row when cols <= TILE),
//   a bitonic sort in shared memory of the tile padded to a power of two; padding sorts after
//   every element (it is recognised by its position, so no sentinel key is needed).
// sort_<dir>_merge_<T>: one pass over global memory merging neighbouring sorted runs of `width`
//   elements into runs of 2 * width; each element finds its place by a binary search of the
//   other run (its rank there), so threads never cooperate and nothing races. The backend runs
//   log2(cols / TILE) passes, ping-ponging between two buffers.

template <class T> struct SortTile { static constexpr int n = sizeof(T) == 8 ? 2048 : 4096; };

// whether (a, ia) comes before (b, ib): NaNs last (first when DESC), ties by position
template <bool DESC, class T>
__device__ __forceinline__ bool sort_before(T a, long long ia, T b, long long ib) {
    const bool an = a != a, bn = b != b;   // false for integers and bools
    if (an || bn) {
        if (an && bn) return ia < ib;
        return DESC ? an : bn;
    }
    if (a == b) return ia < ib;
    return DESC ? b < a : a < b;
}

template <bool DESC, class T>
__device__ __forceinline__ void sort_tiles(const T* __restrict__ x, T* __restrict__ vals,
                                           long long* __restrict__ idx, long long rows, long long cols) {
    constexpr int TILE = SortTile<T>::n;
    __shared__ T key[TILE];
    __shared__ int pos[TILE];   // the element's position in its tile; >= len: padding
    const long long per_row = (cols + TILE - 1) / TILE;
    const long long tiles = rows * per_row;
    for (long long s = blockIdx.x; s < tiles; s += gridDim.x) {
        const long long row = s / per_row, start = (s - row * per_row) * TILE;
        const int len = (int)(cols - start < TILE ? cols - start : TILE);
        int p = 1;
        while (p < len) p <<= 1;
        const long long base = row * cols + start;
        for (int i = threadIdx.x; i < p; i += blockDim.x) {
            key[i] = i < len ? x[base + i] : T(0);
            pos[i] = i;
        }
        __syncthreads();
        for (int k = 2; k <= p; k <<= 1) {
            for (int j = k >> 1; j > 0; j >>= 1) {
                for (int t = threadIdx.x; t < p / 2; t += blockDim.x) {
                    const int i = ((t & ~(j - 1)) << 1) | (t & (j - 1)), l = i + j;
                    const int pi = pos[i], pl = pos[l];
                    const T ki = key[i], kl = key[l];
                    // does l's element belong before i's? padding goes after everything
                    const bool l_first = (pi >= len || pl >= len) ? pl < pi : sort_before<DESC>(kl, pl, ki, pi);
                    if (((i & k) == 0) == l_first) {   // out of order in an ascending or a descending pair
                        key[i] = kl; key[l] = ki;
                        pos[i] = pl; pos[l] = pi;
                    }
                }
                __syncthreads();
            }
        }
        for (int i = threadIdx.x; i < len; i += blockDim.x) {
            vals[base + i] = key[i];
            idx[base + i] = start + pos[i];
        }
        __syncthreads();   // the next tile reuses the shared arrays
    }
}

template <bool DESC, class T>
__device__ __forceinline__ void sort_merge(const T* __restrict__ kin, const long long* __restrict__ iin,
                                           T* __restrict__ kout, long long* __restrict__ iout,
                                           long long rows, long long cols, long long width) {
    const long long n = rows * cols;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < n;
         e += (long long)gridDim.x * blockDim.x) {
        const long long row = e / cols, p = e - row * cols, off = row * cols;
        const long long lo0 = p / (2 * width) * (2 * width);
        const long long mid = lo0 + width < cols ? lo0 + width : cols;
        const long long end = lo0 + 2 * width < cols ? lo0 + 2 * width : cols;
        const T k = kin[off + p];
        const long long id = iin[off + p];
        // the other run, and how many of its elements come before this one
        long long lo = p < mid ? mid : lo0, hi = p < mid ? end : mid;
        const long long first = lo;
        while (lo < hi) {
            const long long m = lo + ((hi - lo) >> 1);
            if (sort_before<DESC>(kin[off + m], iin[off + m], k, id)) lo = m + 1; else hi = m;
        }
        const long long dst = p < mid ? p + (lo - first) : (p - mid) + lo;
        kout[off + dst] = k;
        iout[off + dst] = id;
    }
}

#define DEF_SORT(DIR, DESC, T, sfx)                                                                        \
    extern "C" __global__ void sort_##DIR##_tiles_##sfx(const T* __restrict__ x, T* __restrict__ vals,      \
                                                       long long* __restrict__ idx, long long rows,        \
                                                       long long cols) {                                   \
        sort_tiles<DESC, T>(x, vals, idx, rows, cols);                                                     \
    }                                                                                                      \
    extern "C" __global__ void sort_##DIR##_merge_##sfx(const T* __restrict__ kin,                        \
                                                       const long long* __restrict__ iin,                  \
                                                       T* __restrict__ kout, long long* __restrict__ iout, \
                                                       long long rows, long long cols, long long width) {  \
        sort_merge<DESC, T>(kin, iin, kout, iout, rows, cols, width);                                      \
    }
#define DEF_SORT_BOTH(T, sfx) DEF_SORT(asc, false, T, sfx) DEF_SORT(desc, true, T, sfx)

DEF_SORT_BOTH(float, f32)
DEF_SORT_BOTH(double, f64)
DEF_SORT_BOTH(long long, i64)
DEF_SORT_BOTH(int, i32)
DEF_SORT_BOTH(bool, b8)
