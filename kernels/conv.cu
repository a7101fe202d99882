// Convolution's data movement: im2col (an input's sliding windows as GEMM columns) and its
// adjoint col2im, for (N, C, H, W) arrays (a 1-d convolution is the H = 1, kh = 1 case), and
// vol2col / col2vol, the same for (N, C, D, H, W) arrays. Both pairs come from one template
// over the spatial rank (im2col is vol2col with D = kd = 1, folded at compile time).
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
//   vol2col_<sfx>(const T* x, T* cols, n, c, d, h, w, kd, kh, kw, dd, dh, dw, pd, ph, pw, sd, sh, sw,
//                 od, oh, ow)
//       x: contiguous (n, c, d, h, w); cols: contiguous (n, c * kd * kh * kw, od * oh * ow):
//       cols[b, ((ci * kd + a) * kh + i) * kw + j, (r * oh + p) * ow + q] =
//           x[b, ci, r * sd - pd + a * dd, p * sh - ph + i * dh, q * sw - pw + j * dw], 0 outside x
//   col2vol_<sfx>(const T* cols, T* x, <vol2col's sizes>)
//       vol2col's adjoint, the terms added in the order (a, i, j) ascending
// Launch: 1-d grid and block, any sizes (grid-stride loops over the outputs; 64-bit indices);
// nothing to do, and no need to launch, when the output is empty. cols and x must not overlap.

typedef long long i64;

#define CONV_LOOP(idx, total) \
    for (i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x; idx < (total); idx += (i64)gridDim.x * blockDim.x)

// The geometry of one spatial dim: size n, kernel k, dilation dl, padding p, stride s, windows o.
struct ConvDim {
    i64 n, k, dl, p, s, o;
};

// One thread per column entry: consecutive threads write consecutive window positions q
// (coalesced stores) and read x with step sw along a row. VOL false: the depth dim is the
// constant 1 (2-d), so the compiler drops its index arithmetic.
template <class T, bool VOL>
__device__ __forceinline__ void im2col_nd(const T* __restrict__ x, T* __restrict__ cols, i64 n, i64 c,
                                          ConvDim D, const ConvDim H, const ConvDim W) {
    if (!VOL) D = ConvDim{1, 1, 1, 0, 1, 1};
    const i64 total = n * c * D.k * H.k * W.k * D.o * H.o * W.o;
    CONV_LOOP(idx, total) {
        i64 r = idx;
        const i64 q = r % W.o; r /= W.o;
        const i64 p = r % H.o; r /= H.o;
        i64 rz = 0;
        if (VOL) { rz = r % D.o; r /= D.o; }
        const i64 j = r % W.k; r /= W.k;
        const i64 i = r % H.k; r /= H.k;
        i64 a = 0;
        if (VOL) { a = r % D.k; r /= D.k; }   // r is now b * c + ci
        const i64 z = VOL ? rz * D.s - D.p + a * D.dl : 0;
        const i64 y = p * H.s - H.p + i * H.dl, xx = q * W.s - W.p + j * W.dl;
        const bool inside = (!VOL || (z >= 0 && z < D.n)) && y >= 0 && y < H.n && xx >= 0 && xx < W.n;
        cols[idx] = inside ? x[((r * D.n + z) * H.n + y) * W.n + xx] : T(0);
    }
}

// One thread per input element: the kernel offsets i with (y + ph - i * dh) a multiple of sh
// in [0, oh * sh) hit window row p = (y + ph - i * dh) / sh; likewise along the width (and depth).
template <class T, bool VOL>
__device__ __forceinline__ void col2im_nd(const T* __restrict__ cols, T* __restrict__ x, i64 n, i64 c,
                                          ConvDim D, const ConvDim H, const ConvDim W) {
    if (!VOL) D = ConvDim{1, 1, 1, 0, 1, 1};
    const i64 total = n * c * D.n * H.n * W.n;
    const i64 L = D.o * H.o * W.o;
    CONV_LOOP(idx, total) {
        i64 r = idx;
        const i64 xx = r % W.n; r /= W.n;
        const i64 y = r % H.n; r /= H.n;
        i64 z = 0;
        if (VOL) { z = r % D.n; r /= D.n; }   // r is now b * c + ci
        const T* base = cols + r * D.k * H.k * W.k * L;
        T acc = T(0);
        for (i64 a = 0; a < D.k; ++a) {
            i64 rz = 0;
            if (VOL) {
                const i64 tz = z + D.p - a * D.dl;
                if (tz < 0) break;           // tz only falls as a grows
                if (tz % D.s) continue;
                rz = tz / D.s;
                if (rz >= D.o) continue;
            }
            for (i64 i = 0; i < H.k; ++i) {
                const i64 ty = y + H.p - i * H.dl;
                if (ty < 0) break;
                if (ty % H.s) continue;
                const i64 p = ty / H.s;
                if (p >= H.o) continue;
                for (i64 j = 0; j < W.k; ++j) {
                    const i64 tx = xx + W.p - j * W.dl;
                    if (tx < 0) break;
                    if (tx % W.s) continue;
                    const i64 q = tx / W.s;
                    if (q >= W.o) continue;
                    acc += base[((a * H.k + i) * W.k + j) * L + (rz * H.o + p) * W.o + q];
                }
            }
        }
        x[idx] = acc;
    }
}

#define CONV_DIM(t) ConvDim{t, k##t, d##t, p##t, s##t, o##t}
#define CONV_ARGS_2D i64 h, i64 w, i64 kh, i64 kw, i64 dh, i64 dw, i64 ph, i64 pw, i64 sh, i64 sw, i64 oh, i64 ow
#define CONV_ARGS_3D                                                                                    \
    i64 d, i64 h, i64 w, i64 kd, i64 kh, i64 kw, i64 dd, i64 dh, i64 dw, i64 pd, i64 ph, i64 pw, i64 sd, \
        i64 sh, i64 sw, i64 od, i64 oh, i64 ow
#define CONV_DIMS_2D ConvDim{1, 1, 1, 0, 1, 1}, CONV_DIM(h), CONV_DIM(w)
#define CONV_DIMS_3D CONV_DIM(d), CONV_DIM(h), CONV_DIM(w)

// name(src, dst, n, c, <sizes>) for one rank: im2col/col2im (2-d) or vol2col/col2vol (3-d).
#define CONV_PAIR(fwd, bwd, sfx, T, VOL, ARGS, DIMS)                                                     \
    extern "C" __global__ void fwd##_##sfx(const T* __restrict__ x, T* __restrict__ cols, i64 n, i64 c, \
                                           ARGS) {                                                      \
        im2col_nd<T, VOL>(x, cols, n, c, DIMS);                                                         \
    }                                                                                                   \
    extern "C" __global__ void bwd##_##sfx(const T* __restrict__ cols, T* __restrict__ x, i64 n, i64 c, \
                                           ARGS) {                                                      \
        col2im_nd<T, VOL>(cols, x, n, c, DIMS);                                                         \
    }

#define CONV_KERNELS(sfx, T)                                                  \
    CONV_PAIR(im2col, col2im, sfx, T, false, CONV_ARGS_2D, CONV_DIMS_2D)      \
    CONV_PAIR(vol2col, col2vol, sfx, T, true, CONV_ARGS_3D, CONV_DIMS_3D)

CONV_KERNELS(f32, float)
CONV_KERNELS(f64, double)
CONV_KERNELS(i64, long long)
