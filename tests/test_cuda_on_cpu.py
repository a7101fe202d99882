"""minigrad's CUDA C kernels, executed: kernels/*.cu compiled for the CPU with tests/cuda_on_cpu.h
and launched with CUDA's grid, block and barrier semantics (tests/cuda_on_cpu.py).

- every kernel the CUDA backend can launch is in the compiled code, with the C parameters that
  tests/cuda_emulation.py's ABI table gives it;
- the GEMM, row-reduction, softmax/cross-entropy and elementwise kernels against NumPy, at the
  shapes that exercise their edges (partial tiles, K = 0, batches with broadcast strides, odd
  leading dimensions and misaligned pointers that force the scalar paths, one block striding
  over many rows), with results bit-identical whichever order a block's threads run in between
  barriers (a race would make them differ);
- the runner itself catches what it claims to: a missing barrier, a barrier or a shuffle that
  not every thread reaches, a read past an argument's end, a trap.

The whole cuda-parametrized suite also runs through these compiled kernels:
test_cuda_emulated.py's driver turns them on when this machine can build them.
"""
import numpy as np
import pytest

import cuda_on_cpu
from cuda_on_cpu import ASCENDING, DESCENDING, SHUFFLED, KernelFault

pytestmark = pytest.mark.skipif(not cuda_on_cpu.available(),
                                reason="needs x86-64 Linux and a C++17 compiler (g++ or $CXX)")

SCHEDULES = (ASCENDING, DESCENDING, SHUFFLED)
F32, F64, I64, I32 = np.float32, np.float64, np.int64, np.int32


def _upload(mod, host, offset=0):
    """host's bytes in runner memory, `offset` elements into the buffer (0: 16-byte aligned);
    returns (buffer, pointer to element 0 of host)."""
    host = np.ascontiguousarray(host)
    buf = mod.alloc((host.size + offset) * host.itemsize)
    if host.size:
        buf.array(host.dtype)[offset:offset + host.size] = host.reshape(-1)
    return buf, buf.ptr + offset * host.itemsize


def _run(mod, name, grid, block, args, outputs, schedules=SCHEDULES):
    """Launches once per schedule on fresh copies of the inputs; checks the outputs agree bit
    for bit across schedules and returns them. args: host arrays (uploaded, with an optional
    element offset as (array, offset)) and NumPy scalars. outputs: the indices of args whose
    arrays come back."""
    results = []
    for sched in schedules:
        bufs, cargs = [], []
        try:
            for a in args:
                if isinstance(a, tuple) or isinstance(a, np.ndarray):
                    host, off = a if isinstance(a, tuple) else (a, 0)
                    buf, ptr = _upload(mod, host, off)
                    bufs.append((buf, host, off))
                    cargs.append(ptr)
                else:
                    bufs.append(None)
                    cargs.append(a)
            mod.launch(name, grid, block, cargs, schedule=sched, seed=12345)
            res = []
            for i in outputs:
                buf, host, off = bufs[i]
                res.append(buf.array(host.dtype)[off:off + host.size].reshape(host.shape).copy())
            results.append(res)
        finally:
            for b in bufs:
                if b is not None:
                    b[0].free()
    for other in results[1:]:
        for a, b in zip(results[0], other):
            assert a.tobytes() == b.tobytes(), f"{name}: the result depends on the thread order (a race)"
    return results[0]


# ---- every launchable kernel, with the ABI the emulation assumes ----------------------------------

def test_every_backend_kernel_is_compiled_with_the_abi_the_emulation_checks():
    import cuda_emulation
    from minigrad.backends.cuda_kernel_table import kernel_names
    for filename, names in kernel_names().items():
        mod = cuda_on_cpu.load_kernel_file(filename)
        missing = names - set(mod.kernels)
        assert not missing, f"{filename} lacks {sorted(missing)}"
        for name in names:
            params = cuda_emulation.KERNELS[name][1]
            sig = mod.signature(name)
            want = [p[2:] if p.startswith("P:") else p for p in params]
            got = [c[1:] if c[0] in "PC" else c for c in sig]
            assert want == got and all(p.startswith("P:") == (c[0] in "PC") for p, c in zip(params, sig)), \
                f"{name}: the emulation's table says {params}, the C kernel takes {sig}"


# ---- GEMM ------------------------------------------------------------------------------------------

TILES = {("gemm", "f32"): 128, ("gemm_small", "f32"): 32, ("gemm", "f64"): 64, ("gemm_small", "f64"): 32}


def _gemm(family, ta, tb, dtype, M, N, K, batch=1, lda_pad=0, ldb_pad=0, ldc_pad=0, offset=0,
          broadcast_b=False, bias=False, rng=None):
    """Runs one gemm kernel against float64 NumPy; with bias, also checks the epilogue gives the
    bits of the same kernel's product followed by a separate add."""
    rng = rng or np.random.default_rng(0)
    sfx = "f32" if dtype == F32 else "f64"
    mod = cuda_on_cpu.load_kernel_file("matmul.cu")
    a_rows, a_cols = (M, K) if ta == "n" else (K, M)
    b_rows, b_cols = (K, N) if tb == "n" else (N, K)
    lda, ldb, ldc = a_cols + lda_pad, b_cols + ldb_pad, N + ldc_pad
    A = rng.uniform(-1, 1, (batch, a_rows, lda)).astype(dtype)
    B = rng.uniform(-1, 1, (1 if broadcast_b else batch, b_rows, ldb)).astype(dtype)
    C = np.full((batch, M, ldc), np.nan, dtype)
    tile = TILES[(family, sfx)]
    grid = (-(-N // tile), -(-M // tile), batch)
    args = [(A, offset), (B, offset), (C, offset), np.uint64(0), I32(M), I32(N), I32(K), I64(lda), I64(ldb),
            I64(ldc), I64(a_rows * lda), I64(0 if broadcast_b else b_rows * ldb), I64(M * ldc)]
    name = f"{family}_{ta}{tb}_{sfx}"
    out, = _run(mod, name, grid, (256,), args, outputs=[2])
    opA = A[:, :, :a_cols] if ta == "n" else A[:, :, :a_cols].transpose(0, 2, 1)
    opB = B[:, :, :b_cols] if tb == "n" else B[:, :, :b_cols].transpose(0, 2, 1)
    ref = np.matmul(opA.astype(F64), opB.astype(F64))
    tol = 1e-5 if dtype == F32 else 1e-13
    np.testing.assert_allclose(out[:, :, :N], ref, rtol=tol, atol=tol * max(K, 1) ** 0.5)
    assert np.isnan(out[:, :, N:]).all(), "the kernel wrote past N into the padding of C's rows"
    if bias:
        b = rng.uniform(-1, 1, N).astype(dtype)
        args[3] = (b, offset)   # misaligned with the operands when they are
        with_bias, = _run(mod, name, grid, (256,), args, outputs=[2])
        want = out[:, :, :N] + b
        assert with_bias[:, :, :N].tobytes() == want.tobytes(), "the bias is not a separate add after the product"
        assert np.isnan(with_bias[:, :, N:]).all(), "the bias was added past N"


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
@pytest.mark.parametrize("family", ["gemm", "gemm_small"])
@pytest.mark.parametrize("trans", ["nn", "nt", "tn", "tt"])
def test_gemm_edge_tiles(family, trans, dtype):
    ta, tb = trans
    _gemm(family, ta, tb, dtype, 37, 45, 29)       # every tile is an edge tile, K not a tile multiple
    _gemm(family, ta, tb, dtype, 130, 66, 40)      # several tiles along M, a partial one along N


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
@pytest.mark.parametrize("family", ["gemm", "gemm_small"])
def test_gemm_scalar_paths_batches_and_k0(family, dtype):
    # odd leading dimensions and pointers one element off 16 bytes take the scalar loads/stores
    _gemm(family, "n", "t", dtype, 19, 23, 31, lda_pad=1, ldb_pad=3, ldc_pad=1)
    _gemm(family, "t", "n", dtype, 16, 24, 32, offset=1)
    # a batch of 3 against one broadcast B (stride 0), and C rows with padding
    _gemm(family, "n", "n", dtype, 9, 10, 11, batch=3, broadcast_b=True, ldc_pad=2)
    # K = 0 writes zeros
    _gemm(family, "n", "n", dtype, 5, 6, 0)


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
@pytest.mark.parametrize("family", ["gemm", "gemm_small"])
@pytest.mark.parametrize("trans", ["nn", "nt", "tn", "tt"])
def test_gemm_bias_epilogue(family, trans, dtype):
    ta, tb = trans
    _gemm(family, ta, tb, dtype, 37, 45, 29, bias=True)                  # edge tiles on both axes
    _gemm(family, ta, tb, dtype, 19, 23, 31, lda_pad=1, ldb_pad=3, ldc_pad=1, offset=1, bias=True)  # scalar paths
    _gemm(family, ta, tb, dtype, 9, 10, 11, batch=3, broadcast_b=True, bias=True)  # one bias for every batch
    _gemm(family, ta, tb, dtype, 5, 6, 0, bias=True)                     # K = 0: the bias alone


def test_gemm_the_mlp_layer_shape():
    # 64x784 @ 784x256, the seed MLP's first layer, and its weight gradient's transposed form
    _gemm("gemm_small", "n", "t", F32, 64, 256, 784, bias=True)
    _gemm("gemm", "t", "n", F32, 256, 784, 64)


# ---- row kernels -----------------------------------------------------------------------------------

ROWS_COLS = [(1, 1), (3, 5), (7, 33), (4, 300), (2, 1025), (70, 3)]


def _row_launches(rows, cols):
    from minigrad.backends.cuda_kernel_table import row_launch
    grid, block = row_launch(rows, cols)
    # the backend's choice, the same rows striding through a single block, and one 1024-thread row
    return [(grid, block), ((1,), block), ((rows,), (1024, 1, 1))]


@pytest.mark.parametrize("rows,cols", ROWS_COLS)
@pytest.mark.parametrize("dtype", [F32, F64, I64, I32], ids=["f32", "f64", "i64", "i32"])
def test_reductions_over_rows(rows, cols, dtype):
    rng = np.random.default_rng(rows * 1000 + cols)
    mod = cuda_on_cpu.load_kernel_file("reduce.cu")
    sfx = {F32: "f32", F64: "f64", I64: "i64", I32: "i32"}[dtype]
    if np.dtype(dtype).kind == "f":
        x = rng.uniform(-10, 10, (rows, cols)).astype(dtype)
        if cols > 2:
            x[0, cols // 2] = np.nan          # NaN wins max/min, and its index argmax/argmin
            x[-1, 1] = x[-1, cols - 1] = 50   # a tie: the first index
    else:
        x = rng.integers(-50, 50, (rows, cols)).astype(dtype)
    for grid, block in _row_launches(rows, cols):
        kinds = ("max", "min", "argmax", "argmin") + (("sum",) if sfx != "i32" else ())
        for kind in kinds:
            out = np.zeros(rows, I64 if kind.startswith("arg") else dtype)
            got, = _run(mod, f"{kind}_rows_{sfx}", grid, block, [x, out, I64(rows), I64(cols)], outputs=[1])
            if kind == "sum":
                np.testing.assert_allclose(got, x.astype(F64).sum(axis=1), rtol=1e-5 if dtype == F32 else 1e-12)
            else:
                ref = {"max": np.max, "min": np.min, "argmax": np.argmax, "argmin": np.argmin}[kind](x, axis=1)
                np.testing.assert_array_equal(got, ref, err_msg=f"{kind} {grid} {block}")


@pytest.mark.parametrize("outer,red,inner", [(1, 1, 2), (1, 64, 256), (3, 5, 7), (2, 100, 33), (2, 0, 3)])
@pytest.mark.parametrize("dtype", [F32, F64, I64, I32], ids=["f32", "f64", "i64", "i32"])
def test_reductions_over_columns(outer, red, inner, dtype):
    from minigrad.backends.cuda_kernel_table import col_launch
    rng = np.random.default_rng(outer * 10000 + red * 100 + inner)
    mod = cuda_on_cpu.load_kernel_file("reduce.cu")
    sfx = {F32: "f32", F64: "f64", I64: "i64", I32: "i32"}[dtype]
    if np.dtype(dtype).kind == "f":
        x = rng.uniform(-10, 10, (outer, red, inner)).astype(dtype)
        if red > 2:
            x[0, red // 2, inner // 2] = np.nan   # NaN wins max/min in its column, and poisons the sum
    else:
        x = rng.integers(-50, 50, (outer, red, inner)).astype(dtype)
    kinds = (("sum",) if sfx != "i32" else ()) + (("mean",) if sfx in ("f32", "f64") else ())
    kinds += ("max", "min") if red else ()
    grid, block = col_launch(outer, inner)
    # the backend's choice, one block striding over every tile, 1024 threads, and narrow tiles
    for grid, block in [(grid, block), ((1,), block), ((2,), (32, 32, 1)), ((3,), (1, 32, 1)), ((1,), (8, 4, 1))]:
        for kind in kinds:
            args = [x, np.zeros((outer, inner), dtype), I64(outer), I64(red), I64(inner)]
            if kind == "mean":
                args.append(dtype(red))
            got, = _run(mod, f"{kind}_cols_{sfx}", grid, block, args, outputs=[1])
            where = f"{kind} {grid} {block}"
            with np.errstate(all="ignore"):
                if kind in ("sum", "mean"):
                    ref = x.astype(F64).sum(axis=1) / (red if kind == "mean" else 1)
                    if dtype in (I64, I32):
                        np.testing.assert_array_equal(got, ref, err_msg=where)
                    else:
                        np.testing.assert_allclose(got, ref, rtol=1e-5 if dtype == F32 else 1e-12, atol=1e-5,
                                                   err_msg=where)
                else:
                    np.testing.assert_array_equal(got, getattr(np, kind)(x, axis=1), err_msg=where)


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_mean_over_rows_divides_by_its_count(dtype):
    rng = np.random.default_rng(3)
    mod = cuda_on_cpu.load_kernel_file("reduce.cu")
    sfx = "f32" if dtype == F32 else "f64"
    x = rng.uniform(-10, 10, (5, 33)).astype(dtype)
    for grid, block in _row_launches(5, 33):
        got, = _run(mod, f"mean_rows_{sfx}", grid, block, [x, np.zeros(5, dtype), I64(5), I64(33), dtype(33)], [1])
        np.testing.assert_allclose(got, x.astype(F64).mean(axis=1), rtol=1e-6 if dtype == F32 else 1e-13)
        # the count is the caller's: a split reduction's last pass divides by the original length
        got, = _run(mod, f"mean_rows_{sfx}", grid, block, [x, np.zeros(5, dtype), I64(5), I64(33), dtype(66)], [1])
        np.testing.assert_allclose(got, x.astype(F64).sum(axis=1) / 66, rtol=1e-6 if dtype == F32 else 1e-13)
    empty, = _run(mod, f"mean_rows_{sfx}", (1,), (1, 32, 1), [np.zeros((2, 0), dtype), np.zeros(2, dtype), I64(2),
                                                              I64(0), dtype(0)], [1])
    assert np.isnan(empty).all()


@pytest.mark.parametrize("rows,cols", ROWS_COLS + [(2, 0)])
@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_dot_over_rows_has_the_bits_of_mul_then_sum(rows, cols, dtype):
    """dot_rows (vdot on the GPU) rounds each product before adding it: under every launch shape
    its bits are those of the products stored (as a mul launch stores them) and then summed by
    sum_rows with the same launch shape, though the values are of the size where a fused
    multiply-add would change the last bits."""
    rng = np.random.default_rng(rows * 1000 + cols + 7)
    mod = cuda_on_cpu.load_kernel_file("reduce.cu")
    sfx = "f32" if dtype == F32 else "f64"
    a = rng.uniform(-10, 10, (rows, cols)).astype(dtype)
    b = (a + rng.uniform(-1, 1, (rows, cols)) * 1e-3).astype(dtype)   # a near-square: many inexact products
    products = a * b
    for grid, block in _row_launches(rows, cols):
        got, = _run(mod, f"dot_rows_{sfx}", grid, block, [a, b, np.zeros(rows, dtype), I64(rows), I64(cols)], [2])
        want, = _run(mod, f"sum_rows_{sfx}", grid, block, [products, np.zeros(rows, dtype), I64(rows), I64(cols)], [1])
        assert got.tobytes() == want.tobytes(), f"{grid} {block}"
        np.testing.assert_allclose(got, (a.astype(F64) * b).sum(axis=1), rtol=1e-5 if dtype == F32 else 1e-12)


def _softmax64(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("rows,cols", ROWS_COLS)
@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_softmax_and_cross_entropy(rows, cols, dtype):
    rng = np.random.default_rng(cols)
    mod = cuda_on_cpu.load_kernel_file("softmax.cu")
    sfx = "f32" if dtype == F32 else "f64"
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == F32 else dict(rtol=1e-12, atol=1e-14)
    x = rng.uniform(-5, 5, (rows, cols)).astype(dtype)
    g = rng.uniform(-1, 1, (rows, cols)).astype(dtype)
    target = rng.integers(0, cols, rows).astype(I64)
    x64, g64 = x.astype(F64), g.astype(F64)
    p = _softmax64(x64)
    logp = np.log(p)
    n = I64(rows), I64(cols)
    for grid, block in _row_launches(rows, cols):
        y, = _run(mod, f"softmax_rows_{sfx}", grid, block, [x, np.empty_like(x), *n], outputs=[1])
        np.testing.assert_allclose(y, p, **tol)
        ly, = _run(mod, f"log_softmax_rows_{sfx}", grid, block, [x, np.empty_like(x), *n], outputs=[1])
        np.testing.assert_allclose(ly, logp, **tol)
        dx, = _run(mod, f"softmax_backward_rows_{sfx}", grid, block, [g, p.astype(dtype), np.empty_like(x), *n],
                   outputs=[2])
        np.testing.assert_allclose(dx, p * (g64 - (g64 * p).sum(axis=1, keepdims=True)), **tol)
        dx, = _run(mod, f"log_softmax_backward_rows_{sfx}", grid, block,
                   [g, logp.astype(dtype), np.empty_like(x), *n], outputs=[2])
        np.testing.assert_allclose(dx, g64 - p * g64.sum(axis=1, keepdims=True), **tol)
        loss, stats = _run(mod, f"cross_entropy_fwd_{sfx}", grid, block,
                           [x, target, np.empty(rows, dtype), np.empty(2 * rows, dtype), *n], outputs=[2, 3])
        np.testing.assert_allclose(loss, -logp[np.arange(rows), target], **tol)
        gscale = np.array([0.5], dtype)  # read from device memory
        dx, = _run(mod, f"cross_entropy_bwd_{sfx}", grid, block,
                   [x, target, stats, gscale, dtype(1), np.empty_like(x), *n], outputs=[5])
        onehot = np.eye(cols)[target]
        np.testing.assert_allclose(dx, 0.5 * (p - onehot), **tol)
        # a mean's count divides the upstream gradient inside the kernel
        dx, = _run(mod, f"cross_entropy_bwd_{sfx}", grid, block,
                   [x, target, stats, gscale, dtype(rows), np.empty_like(x), *n], outputs=[5])
        np.testing.assert_allclose(dx, 0.5 / rows * (p - onehot), **tol)


# ---- elementwise -----------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 5, 1000, 4099])
@pytest.mark.parametrize("offset", [0, 1], ids=["aligned", "misaligned"])
def test_elementwise_contiguous_scalar_and_backward_forms(n, offset):
    rng = np.random.default_rng(n)
    mod = cuda_on_cpu.load_kernel_file("elementwise.cu")
    a = rng.uniform(-3, 3, n).astype(F32)
    b = rng.uniform(0.5, 3, n).astype(F32)
    grid, block = (min(-(-n // 256), 4),), (256,)   # fewer blocks than elements: the grid strides
    N = I64(n)
    out, = _run(mod, "add_f32", grid, block, [(a, offset), (b, offset), (np.empty_like(a), offset), N], [2])
    np.testing.assert_array_equal(out, a + b)
    out, = _run(mod, "div_f32", grid, block, [(a, offset), (b, 0), (np.empty_like(a), offset), N], [2])
    np.testing.assert_array_equal(out, a / b)
    out, = _run(mod, "sub_rscalar_f32", grid, block, [(a, offset), F32(2.5), (np.empty_like(a), 0), N], [2])
    np.testing.assert_array_equal(out, F32(2.5) - a)
    out, = _run(mod, "gt_scalar_f32", grid, block, [(a, offset), F32(0.0), np.empty(n, np.bool_), N], [2])
    np.testing.assert_array_equal(out, a > 0)
    out, = _run(mod, "exp_f32", grid, block, [(a, offset), (np.empty_like(a), offset), N], [1])
    np.testing.assert_allclose(out, np.exp(a.astype(F64)), rtol=1e-6)
    out, = _run(mod, "relu_backward_f32", grid, block, [b, (a, offset), (np.empty_like(a), offset), N], [2])
    np.testing.assert_array_equal(out, np.where(a <= 0, F32(0), b))
    out, = _run(mod, "clip_f32", grid, block, [(a, offset), np.empty_like(a), N, F32(-1), F32(1), I32(1), I32(1)], [1])
    np.testing.assert_array_equal(out, np.clip(a, -1, 1))
    out, = _run(mod, "fill_i64", grid, block, [(np.zeros(n, I64), offset), I64(-7), N], [0])
    assert (out == -7).all()
    # in place: the output is the first input's memory
    buf, ptr = _upload(mod, a, offset)
    with buf:
        mod.launch("mul_scalar_f32", grid, block, [ptr, F32(3.0), ptr, N])
        np.testing.assert_array_equal(buf.array(F32)[offset:offset + n], a * F32(3))


@pytest.mark.parametrize("n", [1, 5, 1000, 4099])
@pytest.mark.parametrize("offset", [0, 1], ids=["aligned", "misaligned"])
@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_axpy_in_place(n, offset, dtype):
    rng = np.random.default_rng(n)
    mod = cuda_on_cpu.load_kernel_file("elementwise.cu")
    sfx = "f32" if dtype == F32 else "f64"
    x = rng.uniform(-3, 3, n).astype(dtype)
    y = rng.uniform(-3, 3, n).astype(dtype)
    alpha = dtype(-0.1)
    grid, block = (min(-(-n // 256), 4),), (256,)
    out, = _run(mod, f"axpy_{sfx}", grid, block, [(x, offset), alpha, (y, offset), I64(n)], [2])
    np.testing.assert_array_equal(out, y + alpha * x)   # the bits of NumPy's multiply then add


@pytest.mark.parametrize("count", [2, 5, 8])
@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_axpy_list_is_axpy_per_slot(count, dtype):
    # the optimizers' foreach update: each used slot gets exactly axpy's bits, at any size and
    # alignment, with a grid far smaller than the work (every block walks every slot)
    rng = np.random.default_rng(count)
    mod = cuda_on_cpu.load_kernel_file("elementwise.cu")
    sfx = "f32" if dtype == F32 else "f64"
    alpha = dtype(-0.1)
    sizes = [1, 5, 1000, 4099, 7, 0, 300, 33][:count]
    args, pairs = [alpha, I32(count)], []
    for k, n in enumerate(sizes):
        x = rng.uniform(-3, 3, n).astype(dtype)
        y = rng.uniform(-3, 3, n).astype(dtype)
        args += [(x, k % 2), (y, k % 2), I64(n)]   # odd slots misaligned for 16-byte vectors
        pairs.append((x, y))
    args += [np.uint64(0), np.uint64(0), I64(0)] * (8 - count)   # unused slots: null
    outs = _run(mod, f"axpy_list_{sfx}", (3,), (256,), args, [3 + 3 * k for k in range(count)])
    for out, (x, y) in zip(outs, pairs):
        assert out.tobytes() == (y + alpha * x).tobytes()   # NumPy's multiply then add


ADAM_FLAG_SETS = [  # (ADAM_* flags, the NumPy backend's options): every flag, alone and together
    (0, dict(beta1=0.9, weight_decay=0, decoupled=False, maximize=False)),
    (1 | 2 | 4, dict(beta1=0.9, weight_decay=0.1, decoupled=False, maximize=True)),
    (8, dict(beta1=0.3, weight_decay=0.01, decoupled=True, maximize=False)),
    (2 | 4 | 8, dict(beta1=0.0, weight_decay=0.5, decoupled=False, maximize=False))]


@pytest.mark.parametrize("flags, options", ADAM_FLAG_SETS)
@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_adam_list_has_the_numpy_backends_bits(flags, options, dtype):
    # torch's fused Adam: every used slot gets exactly the NumPy backend's foreach_adam bits, at
    # any size and alignment, with each slot at its own step count and a grid far smaller than
    # the work; a zero gradient and second moment make 0 / (0 + eps) terms
    from minigrad.backends import numpy_backend
    rng = np.random.default_rng(flags)
    mod = cuda_on_cpu.load_kernel_file("elementwise.cu")
    sfx = "f32" if dtype == F32 else "f64"
    lr, beta2, eps = 0.01, 0.99, 1e-8
    ams = bool(flags & 4)
    sizes = [1, 5, 1000, 4099, 7, 0, 300]
    steps = [float(1 + k % 3) for k in range(len(sizes))]
    beta1, wd, dec = options["beta1"], options["weight_decay"], options["decoupled"]
    w = 1 - beta1
    c = dtype
    args = [c(w if abs(w) < 0.5 else 1 - w), c(beta2), c(1 - beta2), c(wd), c(1 - lr * wd if dec else 1.0), c(eps),
            I32(flags), I32(len(sizes))]
    host, outputs = [], []
    for k, (n, t) in enumerate(zip(sizes, steps)):
        arrays = [rng.uniform(-3, 3, n), rng.uniform(-3, 3, n), rng.uniform(-0.1, 0.1, n), rng.uniform(0, 0.01, n),
                  rng.uniform(0, 0.02, n)]
        arrays = [a.astype(dtype) for a in arrays]
        if n > 3:
            arrays[1][2] = arrays[3][2] = 0
        host.append(arrays)
        base = len(args)
        args += [(a, k % 2) for a in (arrays if ams else arrays[:4])]   # odd slots misaligned for vectors
        if not ams:
            args.append(np.uint64(0))
        args += [I64(n), c(-(lr / (1 - beta1 ** t))), c((1 - beta2 ** t) ** 0.5)]
        outputs += [base, base + 2, base + 3] + ([base + 4] if ams else [])
    args += [np.uint64(0)] * 5 + [I64(0), c(0), c(0)]   # the unused eighth slot
    outs = _run(mod, f"adam_list_{sfx}", (3,), (256,), args, outputs)
    cols = [list(col) for col in zip(*host)]
    numpy_backend.foreach_adam(cols[0], cols[1], cols[2], cols[3], cols[4] if ams else None, steps, lr=lr,
                               beta1=beta1, beta2=beta2, eps=eps, weight_decay=wd, decoupled=dec,
                               maximize=options["maximize"])
    want = [a for arrays in host for a in ([arrays[0], arrays[2], arrays[3]] + ([arrays[4]] if ams else []))]
    for j, (got, ref) in enumerate(zip(outs, want)):
        assert got.tobytes() == ref.tobytes(), f"output {j} differs from the NumPy backend's bits"


SGD_FLAG_SETS = [  # (SGD_* flags, the NumPy backend's options)
    (4, dict(momentum=0.9, dampening=0, weight_decay=0, nesterov=False, maximize=False)),
    (1 | 2 | 4 | 8, dict(momentum=0.9, dampening=0, weight_decay=0.01, nesterov=True, maximize=True)),
    (4 | 16, dict(momentum=0.5, dampening=0.3, weight_decay=0, nesterov=False, maximize=False)),
    (2, dict(momentum=0, dampening=0, weight_decay=0.1, nesterov=False, maximize=False))]


@pytest.mark.parametrize("flags, options", SGD_FLAG_SETS)
@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_sgd_list_has_the_numpy_backends_bits(flags, options, dtype):
    # SGD with momentum or weight decay: every used slot gets exactly the NumPy backend's
    # foreach_sgd bits, at any size and alignment, some slots on their first step (their
    # buffer starts as NaN and must not be read)
    from minigrad.backends import numpy_backend
    rng = np.random.default_rng(flags)
    mod = cuda_on_cpu.load_kernel_file("elementwise.cu")
    sfx = "f32" if dtype == F32 else "f64"
    lr, mom = 0.1, bool(flags & 4)
    sizes = [1, 5, 1000, 4099, 7, 0, 300]
    firsts = [mom and k % 3 == 0 for k in range(len(sizes))]
    c = dtype
    args = [c(lr), c(options["momentum"]), c(1 - options["dampening"]), c(options["weight_decay"]), I32(flags),
            I32(len(sizes))]
    host, outputs = [], []
    for k, (n, first) in enumerate(zip(sizes, firsts)):
        arrays = [rng.uniform(-3, 3, n).astype(dtype), rng.uniform(-3, 3, n).astype(dtype),
                  np.full(n, np.nan, dtype) if first else rng.uniform(-1, 1, n).astype(dtype)]
        host.append(arrays)
        base = len(args)
        args += [(a, k % 2) for a in (arrays if mom else arrays[:2])]   # odd slots misaligned for vectors
        if not mom:
            args.append(np.uint64(0))
        args += [I64(n), I32(first)]
        outputs += [base, base + 2] if mom else [base]
    args += [np.uint64(0)] * 3 + [I64(0), I32(0)]   # the unused eighth slot
    outs = _run(mod, f"sgd_list_{sfx}", (3,), (256,), args, outputs)
    cols = [list(col) for col in zip(*host)]
    numpy_backend.foreach_sgd(cols[0], cols[1], cols[2] if mom else None, firsts, lr=lr, **options)
    want = [a for arrays in host for a in (arrays[::2] if mom else arrays[:1])]
    for j, (got, ref) in enumerate(zip(outs, want)):
        assert got.tobytes() == ref.tobytes(), f"output {j} differs from the NumPy backend's bits"


RMSPROP_FLAG_SETS = [  # (RMSPROP_* flags, the NumPy backend's options)
    (0, dict(alpha=0.99, weight_decay=0, momentum=0, centered=False, maximize=False)),
    (1 | 2 | 4 | 8, dict(alpha=0.9, weight_decay=0.1, momentum=0.9, centered=True, maximize=True)),
    (4 | 16, dict(alpha=0.3, weight_decay=0, momentum=0, centered=True, maximize=False)),
    (8, dict(alpha=0.99, weight_decay=0, momentum=0.5, centered=False, maximize=False))]


def _list_launch_args(sizes, arrays_of, written, used, tail_of, rng_seed, dtype):
    """Slot arguments of an optimizer list kernel: per size, the arrays arrays_of(rng, n) (None:
    a null pointer) uploaded with odd slots misaligned for vectors, then tail_of(k, n); returns
    (args, host arrays, indices of the written arrays' outputs)."""
    rng = np.random.default_rng(rng_seed)
    args, host, outputs = [], [], []
    for k, n in enumerate(sizes):
        arrays = arrays_of(rng, n)
        host.append(arrays)
        for j, a in enumerate(arrays):
            if a is None:
                args.append(np.uint64(0))
            else:
                if j in written:
                    outputs.append(len(args))
                args.append((a, k % 2))
        args += tail_of(k, n)
    return args, host, outputs


@pytest.mark.parametrize("flags, options", RMSPROP_FLAG_SETS)
@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_rmsprop_list_has_the_numpy_backends_bits(flags, options, dtype):
    from minigrad.backends import numpy_backend
    mod = cuda_on_cpu.load_kernel_file("elementwise.cu")
    sfx = "f32" if dtype == F32 else "f64"
    lr, eps, alpha = 0.01, 1e-8, options["alpha"]
    centered, mom = options["centered"], options["momentum"] > 0
    sizes = [1, 5, 1000, 4099, 7, 0, 300]
    w = 1 - alpha
    c = dtype

    def arrays_of(rng, n):
        return [rng.uniform(-3, 3, n).astype(dtype), rng.uniform(-3, 3, n).astype(dtype),
                rng.uniform(0.5, 1, n).astype(dtype), rng.uniform(-0.1, 0.1, n).astype(dtype) if centered else None,
                rng.uniform(-1, 1, n).astype(dtype) if mom else None]
    slots, host, outputs = _list_launch_args(sizes, arrays_of, (0, 2, 3, 4), None, lambda k, n: [I64(n)], flags, dtype)
    args = [c(lr), c(alpha), c(1 - alpha), c(w if abs(w) < 0.5 else 1 - w), c(eps), c(options["weight_decay"]),
            c(options["momentum"]), I32(flags), I32(len(sizes))]
    outputs = [o + len(args) for o in outputs]
    args += slots + [np.uint64(0)] * 5 + [I64(0)]
    outs = _run(mod, f"rmsprop_list_{sfx}", (3,), (256,), args, outputs)
    cols = [list(col) for col in zip(*host)]
    numpy_backend.foreach_rmsprop(cols[0], cols[1], cols[2], cols[3] if centered else None, cols[4] if mom else None,
                                  lr=lr, eps=eps, **options)
    want = [a for arrays in host for j, a in enumerate(arrays) if j != 1 and a is not None]
    for j, (got, ref) in enumerate(zip(outs, want)):
        assert got.tobytes() == ref.tobytes(), f"output {j} differs from the NumPy backend's bits"


@pytest.mark.parametrize("flags", [0, 1 | 2])
@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_adagrad_list_has_the_numpy_backends_bits(flags, dtype):
    from minigrad.backends import numpy_backend
    mod = cuda_on_cpu.load_kernel_file("elementwise.cu")
    sfx = "f32" if dtype == F32 else "f64"
    lr, lr_decay, eps, wd = 0.1, 0.01 * flags, 1e-10, 0.1 * (flags > 0)
    sizes = [1, 5, 1000, 4099, 7, 0, 300]
    steps = [float(1 + k % 3) for k in range(len(sizes))]

    def arrays_of(rng, n):
        return [rng.uniform(-3, 3, n).astype(dtype), rng.uniform(-3, 3, n).astype(dtype),
                rng.uniform(0, 0.5, n).astype(dtype)]
    slots, host, outputs = _list_launch_args(
        sizes, arrays_of, (0, 2), None, lambda k, n: [I64(n), dtype(-(lr / (1 + (steps[k] - 1) * lr_decay)))], flags,
        dtype)
    args = [dtype(eps), dtype(wd), I32(flags), I32(len(sizes))]
    outputs = [o + len(args) for o in outputs]
    args += slots + [np.uint64(0)] * 3 + [I64(0), dtype(0)]
    outs = _run(mod, f"adagrad_list_{sfx}", (3,), (256,), args, outputs)
    cols = [list(col) for col in zip(*host)]
    numpy_backend.foreach_adagrad(cols[0], cols[1], cols[2], steps, lr=lr, lr_decay=lr_decay, eps=eps,
                                  weight_decay=wd, maximize=bool(flags & 1))
    want = [a for arrays in host for a in (arrays[0], arrays[2])]
    for j, (got, ref) in enumerate(zip(outs, want)):
        assert got.tobytes() == ref.tobytes(), f"output {j} differs from the NumPy backend's bits"


def _meta(shape, *stride_sets):
    return np.array(list(shape) + [s for strides in stride_sets for s in strides], I64)


def test_elementwise_strided_broadcast_and_where():
    rng = np.random.default_rng(1)
    mod = cuda_on_cpu.load_kernel_file("elementwise.cu")
    shape = (3, 4, 5)
    n = I64(60)
    a = rng.uniform(0.5, 2, (3, 1, 5)).astype(F64)       # broadcast along dim 1
    bt = rng.uniform(-2, 2, (5, 4, 3)).astype(F64)       # stored transposed
    b = bt.transpose(2, 1, 0)
    meta = _meta(shape, (5, 0, 1), (1, 3, 12))
    out, = _run(mod, "pow_strided_f64", (1,), (256,), [a, bt, np.empty(shape, F64), n, meta, I32(3)], [2])
    np.testing.assert_allclose(out, np.broadcast_to(a, shape) ** b, rtol=1e-14)
    c = rng.random((1, 4, 1)) < 0.5
    meta3 = _meta(shape, (0, 1, 0), (5, 0, 1), (1, 3, 12))
    out, = _run(mod, "where_strided_f64", (2,), (32,), [c, a, bt, np.empty(shape, F64), n, meta3, I32(3)], [3])
    np.testing.assert_array_equal(out, np.where(c, a, b))
    x = rng.integers(-9, 9, (4, 3)).astype(I32)
    out, = _run(mod, "abs_strided_i32", (1,), (64,), [x, np.empty((3, 4), I32), I64(12), _meta((3, 4), (1, 3)), I32(2)],
                [1])
    np.testing.assert_array_equal(out, np.abs(x.T))


# ---- the runner catches broken kernels -------------------------------------------------------------

BROKEN = r"""
extern "C" __global__ void reverse_racy(const float* x, float* y) {
    __shared__ float s[64];
    s[threadIdx.x] = x[threadIdx.x];
    y[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];   // no barrier between the write and the read
}
extern "C" __global__ void reverse_synced(const float* x, float* y) {
    __shared__ float s[64];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    y[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
extern "C" __global__ void barrier_in_a_branch(float* y) {
    if (threadIdx.x < 16) __syncthreads();
    y[threadIdx.x] = 1.0f;
}
extern "C" __global__ void read_one_past(const float* x, float* y, long long n) {
    y[0] = x[n];
}
extern "C" __global__ void trap_in_thread_3(float* y) {
    if (threadIdx.x == 3) __trap();
    y[threadIdx.x] = 1.0f;
}
extern "C" __global__ void shuffle_after_a_lane_left(float* y) {
    if (threadIdx.x == 5) return;
    y[threadIdx.x] = __shfl_xor_sync(0xffffffffu, 1.0f, 1);
}
extern "C" __global__ void warp_butterfly_sum(const double* x, double* y) {
    double v = x[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    y[threadIdx.x] = v + __shfl_sync(0xffffffffu, (double)threadIdx.x, 7);
}
extern "C" __global__ void vector_copy(const float* x, float* y) {
    reinterpret_cast<float4*>(y)[threadIdx.x] = reinterpret_cast<const float4*>(x)[threadIdx.x];
}
extern "C" __global__ void shared_shift(const float* x, float* y, int shift) {
    __shared__ float s[32];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    y[threadIdx.x] = s[(int)threadIdx.x + shift];
}
extern "C" __global__ void global_ids(long long* y) {
    const long long block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * (long long)blockIdx.z);
    const long long t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * (long long)threadIdx.z);
    y[block * blockDim.x * blockDim.y * blockDim.z + t] = block * 1000 + t;
}
"""


@pytest.fixture(scope="module")
def broken():
    return cuda_on_cpu.load(BROKEN, "broken_kernels.cu")


def test_a_missing_barrier_shows_as_an_order_dependent_result(broken):
    x = np.arange(64, dtype=F32)
    out, = _run(broken, "reverse_synced", (1,), (64,), [x, np.empty_like(x)], [1])
    np.testing.assert_array_equal(out, x[::-1])
    with pytest.raises(AssertionError, match="depends on the thread order"):
        _run(broken, "reverse_racy", (1,), (64,), [x, np.empty_like(x)], [1])


def test_a_barrier_not_every_thread_reaches_is_a_fault(broken):
    with broken.alloc(32 * 4) as y, \
            pytest.raises(KernelFault, match=r"__syncthreads\(\) reached by 16 of 32 threads"):
        broken.launch("barrier_in_a_branch", (1,), (32,), [y.ptr])


def test_a_shuffle_with_an_exited_lane_is_a_fault(broken):
    with broken.alloc(32 * 4) as y, \
            pytest.raises(KernelFault, match="shuffle with a full mask while 1 have exited"):
        broken.launch("shuffle_after_a_lane_left", (1,), (32,), [y.ptr])


def test_reading_past_an_arguments_end_is_a_fault_with_its_address(broken):
    with broken.alloc(10 * 4) as x, broken.alloc(4) as y:
        broken.launch("read_one_past", (1,), (1,), [x.ptr, y.ptr, I64(9)])   # the last element: fine
        with pytest.raises(KernelFault, match="invalid memory access") as info:
            broken.launch("read_one_past", (1,), (1,), [x.ptr, y.ptr, I64(12)])
        assert info.value.address == x.ptr + 48
        # the process survives and the next launch works
        broken.launch("read_one_past", (1,), (1,), [x.ptr, y.ptr, I64(0)])


def test_a_misaligned_vector_access_is_a_fault_with_its_address(broken):
    """A GPU faults on a 16-byte vector load from an address that is not a multiple of 16 (an
    offset view's); the runner does too, where an x86 CPU would just load it."""
    with broken.alloc(12 * 4) as x, broken.alloc(8 * 4) as y:
        broken.launch("vector_copy", (1,), (2,), [x.ptr, y.ptr])         # aligned: fine
        with pytest.raises(KernelFault, match=rf"misaligned address {x.ptr + 4:#x} for type "
                                              r"'const (struct )?float4', which requires 16 byte alignment"):
            broken.launch("vector_copy", (1,), (2,), [x.ptr + 4, y.ptr])
        with pytest.raises(KernelFault, match=rf"misaligned address {y.ptr + 8:#x} .*float4'"):
            broken.launch("vector_copy", (1,), (2,), [x.ptr, y.ptr + 8])
        broken.launch("vector_copy", (1,), (2,), [x.ptr + 16, y.ptr])    # the process goes on


def test_an_index_outside_a_shared_array_is_a_fault(broken):
    """On a GPU a shared-memory index past the tile reads another variable or faults (compute-
    sanitizer: invalid __shared__ read); the runner reports it with the index."""
    x = np.arange(40, dtype=F32)
    out, = _run(broken, "shared_shift", (1,), (32,), [x, np.empty(32, F32), I32(0)], [1])
    np.testing.assert_array_equal(out, x[:32])
    with broken.alloc(40 * 4) as xa, broken.alloc(40 * 4) as ya:
        for block, shift, index in ((32, -1, -1), (32, 1, 32), (33, 0, 32)):
            with pytest.raises(KernelFault, match=rf"index {index} out of bounds for type 'float ?\[32\]'"):
                broken.launch("shared_shift", (1,), (block,), [xa.ptr, ya.ptr, I32(shift)])


def test_a_trap_is_a_fault_naming_the_thread(broken):
    with broken.alloc(8 * 4) as y, \
            pytest.raises(KernelFault, match=r"__trap\(\) called \(thread \(3, 0, 0\) of block \(0, 0, 0\)\)"):
        broken.launch("trap_in_thread_3", (2,), (4,), [y.ptr])


def test_shuffles_exchange_values_within_each_warp(broken):
    x = np.arange(64, dtype=F64) ** 2
    out, = _run(broken, "warp_butterfly_sum", (1,), (64,), [x, np.empty_like(x)], [1])
    sums = np.repeat([x[:32].sum(), x[32:].sum()], 32)
    lane7 = np.repeat([7, 39], 32)   # __shfl_sync reads lane 7 of the caller's own warp
    np.testing.assert_array_equal(out, sums + lane7)


def test_grid_and_block_indices_cover_every_thread_once(broken):
    grid, block = (3, 2, 2), (4, 2, 3)
    out, = _run(broken, "global_ids", grid, block, [np.full(12 * 24, -1, I64)], [0])
    ids = np.arange(12 * 24)
    np.testing.assert_array_equal(out, ids // 24 * 1000 + ids % 24)


def test_a_wrongly_typed_scalar_is_refused(broken):
    with pytest.raises(TypeError, match="a float for a i64 parameter"):
        broken.launch("read_one_past", (1,), (1,), [0, 0, 9.0])
