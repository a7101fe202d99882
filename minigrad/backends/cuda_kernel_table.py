"""Which kernels the CUDA backend launches, by source file and dtype, and their launch
constants. Free of CuPy, so that the compile check can read it on machines without a GPU."""
import numpy as np

SFX = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.int64): "i64",
       np.dtype(np.int32): "i32", np.dtype(np.bool_): "b8"}
CTYPE = {"f32": np.float32, "f64": np.float64, "i64": np.int64, "i32": np.int32, "b8": np.bool_}

UNARY_OPS = {"f32": ("neg", "abs", "exp", "log", "log1p", "expm1", "erf", "sqrt", "sin", "cos", "tanh",
                     "sigmoid", "relu", "sign", "floor", "ceil", "trunc", "round"),
             "i64": ("neg", "abs", "relu", "sign")}
# elementwise.cu's MATH_MORE_KERNELS: the rest of torch's float math, f32 and f64
MATH_MORE_UNARY = ("tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "log2", "log10",
                   "exp2", "rsqrt")
MATH_MORE_BINARY = ("atan2", "hypot", "logaddexp", "logaddexp2", "copysign", "xlogy")
UNARY_OPS["f32"] += MATH_MORE_UNARY
UNARY_OPS["f64"], UNARY_OPS["i32"] = UNARY_OPS["f32"], UNARY_OPS["i64"]
BINARY_OPS = {"f32": ("add", "sub", "mul", "div", "pow", "maximum", "minimum"),
              "i64": ("add", "sub", "mul", "maximum", "minimum", "pow")}
# division with rounding (elementwise.cu's DIVISION_KERNELS), of every numeric dtype
DIVISION_OPS = ("floor_divide", "trunc_divide", "remainder", "fmod")
BINARY_OPS = {sfx: ops + DIVISION_OPS for sfx, ops in BINARY_OPS.items()}
BINARY_OPS["f32"] += MATH_MORE_BINARY
BINARY_OPS["f64"], BINARY_OPS["i32"] = BINARY_OPS["f32"], BINARY_OPS["i64"]
COMPARE_OPS = {"f32": ("eq", "ne", "lt", "le", "gt", "ge"), "b8": ("eq", "ne")}
COMPARE_OPS["f64"] = COMPARE_OPS["i64"] = COMPARE_OPS["i32"] = COMPARE_OPS["f32"]
# elementwise.cu's SPECIAL_KERNELS (f32, f64: all forms, plus polygamma_scalar_<sfx> and
# frexp_<sfx>) and BIT_KERNELS (i64, i32: all forms; b8: the logic ones)
SPECIAL_UNARY = ("lgamma", "digamma", "erfc", "erfinv", "i0", "i0e", "i1", "i1e", "ndtri", "log_ndtr", "erfcx",
                 "entr")
SPECIAL_BINARY = ("zeta", "igamma", "igammac", "xlog1py", "nextafter")
# elementwise.cu's SPECIAL_MORE_KERNELS (f32, f64, all forms): Bessel/Airy functions (unary) and
# the orthogonal polynomials (x, n binary)
SPECIAL_UNARY += ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
                  "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
                  "spherical_bessel_j0", "airy_ai")
SPECIAL_BINARY += ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                   "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
                   "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
                   "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")
BIT_BINARY = ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm")
BOOL_BIT_BINARY = ("bitwise_and", "bitwise_or", "bitwise_xor")
# bool arithmetic is logic, as in NumPy
BOOL_BINARY = {"add": "or", "mul": "and", "maximum": "or", "minimum": "and"}

BLOCK = 256                 # threads per block of the elementwise kernels
ROW_THREADS = 256           # threads per block of the row kernels (reduce.cu, softmax.cu)
MAX_DIMS = 8
AXPY_LIST_MAX = 8           # slots of axpy_list_<sfx> (AXPY_LIST_MAX in elementwise.cu)
ADAM_LIST_MAX = 8           # slots of adam_list_<sfx> (ADAM_LIST_MAX in elementwise.cu)
SGD_LIST_MAX = 8            # slots of sgd_list_<sfx> (SGD_LIST_MAX in elementwise.cu)
RMSPROP_LIST_MAX = 8        # slots of rmsprop_list_<sfx> (RMSPROP_LIST_MAX in elementwise.cu)
ADAGRAD_LIST_MAX = 8        # slots of adagrad_list_<sfx> (ADAGRAD_LIST_MAX in elementwise.cu)
CONV_SFX = ("f32", "f64", "i64")  # conv.cu's im2col/col2im, vol2col/col2vol (other dtypes go through i64)
GRID_YZ_MAX = 65535         # CUDA's cap on gridDim.y and gridDim.z
# elements per shared-memory tile of kernels/sort.cu (SortTile<T>), by key size; longer rows
# are sorted tile by tile, then merged in global memory
SORT_TILE = {"f32": 4096, "i32": 4096, "b8": 4096, "f64": 2048, "i64": 2048}
SORT_THREADS = 512          # most threads per block of the sort kernels
LINALG_THREADS = 256        # threads per block of kernels/linalg.cu (one block per matrix)


def linalg_eig_threads(n):
    """Threads per block of kernels/linalg_eig.cu (one block per matrix, n its smaller dim): a
    warp per pair of columns (n / 2 pairs a Jacobi round), whole warps, at most 256."""
    return 32 * min(8, max(1, (n + 1) // 2))


# tile shapes of kernels/matmul.cu (its header documents them): (big, small) per dtype suffix
GEMM_TILES = {"f32": (dict(threads=256, bm=128, bn=128), dict(threads=256, bm=32, bn=32)),
              "f64": (dict(threads=256, bm=64, bn=64), dict(threads=256, bm=32, bn=32))}


def row_launch(rows, cols):
    """(grid, block) for the row kernels: TPR threads share a row, RPB rows per block."""
    tpr = 1
    while tpr < min(max(cols, 1), ROW_THREADS):
        tpr *= 2
    rpb = ROW_THREADS // tpr
    return (max(1, min(-(-rows // rpb), 2 ** 31 - 1)),), (tpr, rpb, 1)


def col_launch(outer, inner):
    """(grid, block) for the column kernels: TX threads on neighbouring columns, TY down each."""
    tx = 1
    while tx < min(max(inner, 1), 32):
        tx *= 2
    tiles = outer * -(-inner // tx)
    return (max(1, min(tiles, 2 ** 31 - 1)),), (tx, ROW_THREADS // tx, 1)


def scan_launch(rows, cols, wide):
    """(grid, block) for scan.cu's row kernels: row_launch's shape, but TPR = 1024 threads on
    each of a few long rows (wide), which one block then scans in chunks of 1024."""
    if not wide:
        return row_launch(rows, cols)
    return (max(1, min(rows, 2 ** 31 - 1)),), (1024, 1, 1)


def scan_col_launch(outer, inner):
    """(grid, block) for scan.cu's column kernels: one thread per (outer, inner) column."""
    return (max(1, min(-(-(outer * inner) // BLOCK), 2 ** 31 - 1)),), (BLOCK, 1, 1)


def kernel_names():
    """Every kernel name the CUDA backend can launch, by source file (the compile check uses it)."""
    names = {"elementwise.cu": set(), "reduce.cu": set(), "softmax.cu": set(), "matmul.cu": set(),
             "sort.cu": set(), "scan.cu": set(), "norm.cu": set(), "conv.cu": set(), "linalg.cu": set(),
             "linalg_eig.cu": set(), "scatter.cu": set()}
    names["elementwise.cu"].update({"bf16_to_f32", "f32_to_bf16"})  # bfloat16's bits to and from float32
    for sfx in ("f32", "f64", "i64", "i32"):
        names["scatter.cu"].update(f"scatter_{op}_{sfx}" for op in ("prod", "amax", "amin"))
    for sfx in ("f32", "f64"):
        names["linalg_eig.cu"].update({f"eigh_{sfx}", f"svd_{sfx}", f"qr_{sfx}"})
    for sfx in ("f32", "f64"):
        names["linalg.cu"].update({f"lu_factor_{sfx}", f"lu_solve_{sfx}", f"trsm_{sfx}", f"cholesky_{sfx}"})
    for sfx in CONV_SFX:
        names["conv.cu"].update({f"im2col_{sfx}", f"col2im_{sfx}", f"vol2col_{sfx}", f"col2vol_{sfx}"})
    for sfx in ("f32", "f64", "i64", "i32"):
        for op in ("cumsum", "cumprod", "cummax", "cummin") if sfx != "i32" else ("cummax", "cummin"):
            names["scan.cu"].update({f"{op}_rows_{sfx}", f"{op}_cols_{sfx}"})
    for sfx in SORT_TILE:
        for direction in ("asc", "desc"):
            names["sort.cu"].update({f"sort_{direction}_tiles_{sfx}", f"sort_{direction}_merge_{sfx}"})
    ew = names["elementwise.cu"]
    for sfx, ops in UNARY_OPS.items():
        for op in ops:
            ew.update({f"{op}_{sfx}", f"{op}_strided_{sfx}"})
    for sfx, ops in BINARY_OPS.items():
        for op in ops:
            ew.update({f"{op}_{sfx}", f"{op}_scalar_{sfx}", f"{op}_rscalar_{sfx}", f"{op}_strided_{sfx}"})
    for sfx, ops in COMPARE_OPS.items():
        for op in ops:
            ew.update({f"{op}_{sfx}", f"{op}_scalar_{sfx}", f"{op}_rscalar_{sfx}", f"{op}_strided_{sfx}"})
    ew.update({"and_b8", "or_b8", "and_strided_b8", "or_strided_b8"})
    for sfx in CTYPE:
        ew.update({f"where_strided_{sfx}", f"fill_{sfx}"})
    for sfx in ("f32", "f64", "i64", "i32"):
        ew.add(f"clip_{sfx}")
    special = [(sfx, SPECIAL_UNARY, SPECIAL_BINARY) for sfx in ("f32", "f64")]
    special += [(sfx, ("bitwise_not",), BIT_BINARY) for sfx in ("i64", "i32")] + [("b8", ("bitwise_not",), BOOL_BIT_BINARY)]
    for sfx, unary, binary in special:
        ew.update(name for op in unary for name in (f"{op}_{sfx}", f"{op}_strided_{sfx}"))
        ew.update(f"{op}_{form}{sfx}" for op in binary for form in ("", "scalar_", "rscalar_", "strided_"))
    ew.update({"polygamma_scalar_f32", "polygamma_scalar_f64", "frexp_f32", "frexp_f64"})
    for sfx in ("f32", "f64", "i64"):
        names["reduce.cu"].update({f"sum_rows_{sfx}", f"sum_cols_{sfx}", f"prod_rows_{sfx}", f"prod_cols_{sfx}"})
    for sfx in ("f32", "f64", "i64", "i32"):
        names["reduce.cu"].update({f"max_rows_{sfx}", f"min_rows_{sfx}", f"argmax_rows_{sfx}",
                                   f"argmin_rows_{sfx}", f"max_cols_{sfx}", f"min_cols_{sfx}"})
    for sfx in ("f32", "f64"):
        names["reduce.cu"].update({f"mean_rows_{sfx}", f"mean_cols_{sfx}", f"dot_rows_{sfx}"})
    for sfx in ("f32", "f64"):
        ew.update({f"relu_backward_{sfx}", f"sigmoid_backward_{sfx}", f"tanh_backward_{sfx}", f"axpy_{sfx}",
                   f"axpy_list_{sfx}", f"adam_list_{sfx}", f"sgd_list_{sfx}", f"rmsprop_list_{sfx}",
                   f"adagrad_list_{sfx}"})
        names["softmax.cu"].update({f"softmax_rows_{sfx}", f"log_softmax_rows_{sfx}",
                                    f"softmax_backward_rows_{sfx}", f"log_softmax_backward_rows_{sfx}",
                                    f"cross_entropy_fwd_{sfx}", f"cross_entropy_bwd_{sfx}"})
        names["norm.cu"].update({f"layer_norm_fwd_{sfx}", f"layer_norm_bwd_{sfx}"})
        for ta in "nt":
            for tb in "nt":
                names["matmul.cu"].update({f"gemm_{ta}{tb}_{sfx}", f"gemm_small_{ta}{tb}_{sfx}"})
    return names
