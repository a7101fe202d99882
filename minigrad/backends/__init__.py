"""Array backends. Each backend is a module exposing exactly the primitives listed here,
with the same names and semantics, on its own array type (NumPy or CuPy arrays).

Ops in minigrad/ops are written once against this list and never import numpy or cupy.
Arrays are never 0-d NumPy scalars: every primitive returns an ndarray.
"""

PRIMITIVES = (
    # creation and transfer
    "asarray", "to_numpy", "empty", "zeros", "ones", "full", "arange", "linspace", "eye",
    "rand", "randn", "randint", "seed", "astype", "copy",
    # bfloat16 arrays are uint16 bit patterns: bf16_to_f32(a) widens them to float32 exactly;
    # f32_to_bf16(a) rounds a float32 array to them (to nearest even; overflow to inf; NaN 0x7fc0)
    "bf16_to_f32", "f32_to_bf16",
    # rng_state() -> bytes: a snapshot of the generator rand/randn/randint/poisson draw from;
    # set_rng_state(state) restores one, so the draws that followed it come again (CUDA: taking
    # a snapshot reseeds the generator, reproducibly, as CuPy cannot report its position)
    "rng_state", "set_rng_state",
    # poisson(lam): Poisson counts drawn with the backend's generator for a float array of finite
    # rates >= 0, in lam's dtype and shape
    "poisson",
    # elementwise, unary
    "neg", "abs", "exp", "log", "log1p", "expm1", "erf", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "sign",
    # the rest of torch's float math, of float arrays (rsqrt: 1 / sqrt)
    "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "log2", "log10", "exp2", "rsqrt",
    # rounding to integral values, of float arrays (round: half to even)
    "floor", "ceil", "trunc", "round",
    # elementwise, binary (second operand an array or a Python scalar); axpy(dst, src, alpha):
    # dst += alpha * src in place; foreach_axpy(dsts, srcs, alpha): the same for lists of pairs;
    # foreach_adam, foreach_sgd, foreach_rmsprop, foreach_adagrad: the optimizers' updates of
    # lists of parameters in place
    "add", "iadd", "binary_inplace", "axpy", "foreach_axpy", "foreach_adam", "foreach_sgd", "foreach_rmsprop",
    "foreach_adagrad", "sub", "mul", "div", "pow", "maximum", "minimum",
    # division rounded toward -inf or toward zero, and the remainders of each (of b's sign, of
    # a's); integers wrap (INT_MIN // -1), and a zero integer divisor raises torch's CPU
    # RuntimeError on NumPy and gives 0 on CUDA
    "floor_divide", "trunc_divide", "remainder", "fmod",
    # two-argument float math (operands of one float dtype; a Python number on either side):
    # torch's formulas for logaddexp/logaddexp2 (equal infinities give themselves) and xlogy
    # (0 where x == 0, NaN where y is NaN)
    "atan2", "hypot", "logaddexp", "logaddexp2", "copysign", "xlogy",
    # special functions of float arrays (numpy_special.py, elementwise.cu's SPECIAL_KERNELS), torch's
    # CPU algorithms and special values: polygamma(a, n) for an int n >= 0; zeta, igamma, igammac,
    # xlog1py, nextafter take two operands as the binary math above; frexp(a) -> (mantissa of a's
    # dtype, int32 exponent)
    "lgamma", "digamma", "polygamma", "erfc", "erfinv", "i0", "i0e", "i1", "i1e", "ndtri", "log_ndtr", "erfcx",
    "entr", "zeta", "igamma", "igammac", "xlog1py", "nextafter", "frexp",
    # more of torch.special (numpy_special.py, elementwise.cu's SPECIAL_MORE_KERNELS), computed in
    # the array's float dtype as torch's kernels: Bessel J/Y/I/K of orders 0 and 1, K scaled by
    # exp(x), spherical j0, Airy Ai (unary); the orthogonal polynomials p(x, n) of x and a degree n
    # (two operands as the binary math above; n truncated to an integer, NaN/inf/negative give 0)
    "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
    "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
    "spherical_bessel_j0", "airy_ai", "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
    "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
    # integer bit math (int32/int64 operands of one dtype or a Python int; and/or/xor/not also bool):
    # shifts by a count outside [0, bits) give 0 (-1 for negatives shifted right); gcd/lcm >= 0
    # except |INT_MIN|, which wraps
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
    "gcd", "lcm",
    "eq", "ne", "lt", "le", "gt", "ge", "where", "clip",
    # fused backward formulas (g: the incoming gradient, out/y: the forward's output)
    "relu_backward", "sigmoid_backward", "tanh_backward",
    # reductions over axes (a tuple of ints, or None for all); vdot: sum(a * b) over all elements;
    # mean: of a float array, the sum divided by the count (nan where the count is 0)
    "sum", "prod", "mean", "vdot", "amax", "amin", "argmax", "argmin",
    # sort(a, axis, descending): (values, int64 indices) along axis, stable (ties keep their
    # order in both directions), NaN after every number (first when descending)
    "sort",
    # inclusive scans along one int axis (reverse: from the axis's end), torch's result dtypes:
    # integers and bools accumulate in int64, float32 in float64 rounded once per output;
    # cummax/cummin: (values in a's dtype, int64 indices), ties to the last index, NaN wins
    "cumsum", "cumprod", "cummax", "cummin",
    # softmax family over one axis; cross-entropy over the last axis of (N, C) logits
    "softmax", "log_softmax", "softmax_backward", "log_softmax_backward",
    "cross_entropy", "cross_entropy_backward",
    # layer normalization over the last axis of a 2-d float x (M, N), weight and bias (N,) or
    # None: layer_norm -> (y, mean (M,), rstd (M,)), biased variance, rstd = 1/sqrt(var + eps);
    # layer_norm_backward(g, x, mean, rstd, weight) -> the gradient of x
    "layer_norm", "layer_norm_backward",
    # linear algebra; matmul(a, b, bias=None): a bias of b's last dim is added to every row of
    # the rounded product (nn.Linear's addmm, one GEMM launch on CUDA)
    "matmul",
    # dense factorizations of float (..., m, n) batches (kernels/linalg.cu), int32 pivots/info:
    # lu_factor(a) -> (lu, 1-based pivots (..., min(m, n)), info: first zero pivot or 0), getrf's
    # partial pivoting; lu_solve(lu, pivots, b, adjoint) -> X of A X = B (A^T X = B), b (..., n, k)
    # with lu's batch shape; triangular_solve(a, b, lower, trans, unit) -> X of M X = B, M = a or
    # a^T; cholesky(a) -> (lower L of a's lower triangle, info: first non-positive-definite minor)
    "lu_factor", "lu_solve", "triangular_solve", "cholesky",
    # factorizations of float (..., m, n) stacks, batched over the leading dims (linalg_eig.py):
    # eigh(a, upper) -> (eigenvalues ascending, eigenvectors) of symmetric matrices read from one
    # triangle; svd(a, full_matrices, compute_uv) -> (U or None, S descending, Vh or None);
    # qr(a, mode) -> (Q or None for mode 'r', R), LAPACK's Householder signs. Vector signs
    # (eigh, svd) may differ between backends
    "eigh", "svd", "qr",
    # layout: views where the array type allows, copies otherwise; data_ptr(a): the address
    # of a's first element (a view's is its base's plus the view's offset); strides(a): the
    # step between neighbours along each dim, in elements (0 along a broadcast dim);
    # as_strided(a, shape, strides, offset): a view of a's memory with those element strides,
    # starting offset elements (maybe negative) from a's first element; the caller keeps it in bounds
    # index_reduce(out, index, values, op): out[index] = op(out[index], values) in place for a
    # contiguous out and op in prod/amax/amin, repeated indices combining every value (amax and
    # amin propagate NaN; bools: prod and amin are and, amax is or)
    "reshape", "view", "transpose", "broadcast_to", "getitem", "setitem", "index_add", "index_reduce",
    "concatenate", "split", "copyto", "is_contiguous", "ascontiguous", "data_ptr", "strides",
    "as_strided",
    # convolution's data movement, (N, C, *spatial) with one to three spatial dims, k/dil/stride/out
    # per spatial dim, pads the zeros before each (those after follow from out):
    # im2col(x, k, dil, pads, stride, out) -> contiguous columns (N, C * prod(k), prod(out));
    # col2im(cols, spatial, k, dil, pads, stride, out) -> its adjoint (N, C, *spatial), each
    # element the sum of the entries read from it, added in row-major kernel-offset order
    "im2col", "col2im",
)
