// Convolution's data movement: im2col (an input's sliding windows as GEMM columns) and its
// adjoint col2im, for (N, C, H, W) arrays; a 1-d convolution is the H = 1, kh = 1 case.
//
// ABI (extern "C"; T the C type of the suffix: f32 float, f64 double, i64 long long; every
// size below is long long):
//   im2col_<sfx>(const T* x, T* cols, n, c, h, w, kh, kw, dh, dw, ph, pw, sh, sw, oh, ow)
//       x: contiguous (n, c, h, w); cols: contiguous (n, c * kh * kw, oh * ow), written whole:
//       cols[b, (ci * kh + i) * kw + j, p * ow + q] = x[b, ci, p * sh - ph + i * dh, q * sw - pw + j * dw],
//       0 where that position falls outside x (the zero padding, never materialized)
//   col2im_<sfx>(const T* cols, T* x, n, c, h, w, kh, kw, dh, dw, ph, pw, sh, sw, oh, ow)
//       the adjoint: x (written whole) gets, at each element, the sum of the columns' entries
//       that im2col reads from it; one thread gathers one element's terms in the order
//       (i, j) ascending, so the result is deterministic (no atomics) and equals a sum that
//       starts at 0 and adds the kernel offsets in that order
// Launch: 1-d grid and block, any sizes (grid-stride loops over the outputs; 64-bit indices);
// nothing to do, and no need to launch, when the output is empty. cols and x must not overlap.

typedef long long i64;

#define CONV_LOOP(idx, total) \
    for (i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x; idx < (total); idx += (i64)gridDim.x * blockDim.x)

// One thread per column entry: consecutive threads write consecutive window positions q
// (coalesced stores) and read x with step sw along a row.
template <class T>
__device__ __forceinline__ void im2col(const T* __restrict__ x, T* __restrict__ cols, i64 n, i64 c, i64 h, i64 w,
                                       i64 kh, i64 kw, i64 dh, i64 dw, i64 ph, i64 pw, i64 sh, i64 sw,
                                       i64 oh, i64 ow) {
    const i64 total = n * c * kh * kw * oh * ow;
    CONV_LOOP(idx, total) {
        i64 r = idx;
        const i64 q = r % ow; r /= ow;
        const i64 p = r % oh; r /= oh;
        const i64 j = r % kw; r /= kw;
        const i64 i = r % kh; r /= kh;   // r is now b * c + ci
        const i64 y = p * sh - ph + i * dh, xx = q * sw - pw + j * dw;
        cols[idx] = (y >= 0 && y < h && xx >= 0 && xx < w) ? x[(r * h + y) * w + xx] : T(0);
    }
}

// One thread per input element: the kernel offsets i with (y + ph - i * dh) a multiple of sh
// in [0, oh * sh) hit window row p = (y + ph - i * dh) / sh; likewise along the width.
template <class T>
__device__ __forceinline__ void col2im(const T* __restrict__ cols, T* __restrict__ x, i64 n, i64 c, i64 h, i64 w,
                                       i64 kh, i64 kw, i64 dh, i64 dw, i64 ph, i64 pw, i64 sh, i64 sw,
                                       i64 oh, i64 ow) {
    const i64 total = n * c * h * w;
    const i64 L = oh * ow;
    CONV_LOOP(idx, total) {
        i64 r = idx;
        const i64 xx = r % w; r /= w;
        const i64 y = r % h; r /= h;     // r is now b * c + ci
        const T* base = cols + r * kh * kw * L;
        T acc = T(0);
        for (i64 i = 0; i < kh; ++i) {
            const i64 ty = y + ph - i * dh;
            if (ty < 0) break;           // ty only falls as i grows
            if (ty % sh) continue;
            const i64 p = ty / sh;
            if (p >= oh) continue;
            for (i64 j = 0; j < kw; ++j) {
                const i64 tx = xx + pw - j * dw;
                if (tx < 0) break;
                if (tx % sw) continue;
                const i64 q = tx / sw;
                if (q >= ow) continue;
                acc += base[(i * kw + j) * L + p * ow + q];
            }
        }
        x[idx] = acc;
    }
}

#define CONV_KERNELS(sfx, T)                                                                             \
    extern "C" __global__ void im2col_##sfx(const T* __restrict__ x, T* __restrict__ cols, i64 n, i64 c,  \
                                            i64 h, i64 w, i64 kh, i64 kw, i64 dh, i64 dw, i64 ph, i64 pw, \
                                            i64 sh, i64 sw, i64 oh, i64 ow) {                             \
        im2col<T>(x, cols, n, c, h, w, kh, kw, dh, dw, ph, pw, sh, sw, oh, ow);                           \
    }                                                                                                     \
    extern "C" __global__ void col2im_##sfx(const T* __restrict__ cols, T* __restrict__ x, i64 n, i64 c,  \
                                            i64 h, i64 w, i64 kh, i64 kw, i64 dh, i64 dw, i64 ph, i64 pw, \
                                            i64 sh, i64 sw, i64 oh, i64 ow) {                             \
        col2im<T>(cols, x, n, c, h, w, kh, kw, dh, dw, ph, pw, sh, sw, oh, ow);                           \
    }

CONV_KERNELS(f32, float)
CONV_KERNELS(f64, double)
CONV_KERNELS(i64, long long)
