"""The CUDA kernels, checked without a GPU: every source compiles with NVRTC for sm_80 and
sm_90, every kernel the CUDA backend can launch exists in the compiled code, the matmul
kernels spill no registers, and every kernel's registers fit the largest block the backend
launches it with (ptxas's report, through NVRTC)."""
import math
import re
from concurrent.futures import ThreadPoolExecutor

import pytest

nvrtc = pytest.importorskip("cuda.bindings.nvrtc", reason="needs the test extra's cuda-bindings + nvidia-cuda-nvrtc")

from minigrad.backends.kernel_loader import KERNEL_FILES, NVRTC_OPTIONS, source  # noqa: E402

ARCHS = ("sm_80", "sm_90")


def _compile(filename, arch):
    """NVRTC-compile one source to a cubin for arch; returns (ok, log, ptx)."""
    err, prog = nvrtc.nvrtcCreateProgram(source(filename).encode(), filename.encode(), 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS, err
    opts = [o.encode() for o in NVRTC_OPTIONS] + [f"--gpu-architecture={arch}".encode(), b"--ptxas-options=-v"]
    result, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    _, size = nvrtc.nvrtcGetProgramLogSize(prog)
    # fresh buffers for NVRTC to write into: b" " * 1 is CPython's shared b" ", which a 1-byte
    # result (an empty log's NUL) would overwrite for the whole process
    log = bytes(size)
    nvrtc.nvrtcGetProgramLog(prog, log)
    ptx = ""
    if result == nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, size = nvrtc.nvrtcGetPTXSize(prog)
        buf = bytes(size)
        nvrtc.nvrtcGetPTX(prog, buf)
        ptx = buf.decode(errors="replace")
    nvrtc.nvrtcDestroyProgram(prog)
    return result == nvrtc.nvrtcResult.NVRTC_SUCCESS, log.decode(errors="replace"), ptx


@pytest.fixture(scope="module")
def compiled():
    jobs = [(f, a) for f in KERNEL_FILES for a in ARCHS]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda job: _compile(*job), jobs))
    return dict(zip(jobs, results))


def _launched():
    from minigrad.backends.cuda_kernel_table import kernel_names
    return kernel_names()


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("filename", KERNEL_FILES)
def test_compiles(compiled, filename, arch):
    ok, log, _ = compiled[(filename, arch)]
    assert ok, f"{filename} failed to compile for {arch}:\n{log}"
    assert "warning" not in log.lower(), f"{filename} compiles with warnings for {arch}:\n{log}"


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("filename", KERNEL_FILES)
def test_every_launched_kernel_exists(compiled, filename, arch):
    _, _, ptx = compiled[(filename, arch)]
    entries = set(re.findall(r"\.entry\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(", ptx))
    missing = sorted(_launched()[filename] - entries)
    assert not missing, f"{filename} ({arch}) lacks kernels the backend launches: {missing}"


def _spills(log):
    """{kernel: (spill store bytes, spill load bytes)} from ptxas's verbose report."""
    out, current = {}, None
    for line in log.splitlines():
        m = re.search(r"Function properties for (\w+)", line)
        if m:
            current = m.group(1)
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and current:
            out[current] = (int(m.group(1)), int(m.group(2)))
    return out


@pytest.mark.parametrize("arch", ARCHS)
def test_matmul_kernels_do_not_spill(compiled, arch):
    _, log, _ = compiled[("matmul.cu", arch)]
    spills = _spills(log)
    gemms = {k: v for k, v in spills.items() if k.startswith("gemm_")}
    assert gemms, f"no ptxas report for the gemm kernels:\n{log[:2000]}"
    spilling = {k: v for k, v in gemms.items() if v != (0, 0)}
    assert not spilling, f"register spills (store, load bytes) on {arch}: {spilling}"


def _registers(log):
    """{kernel: registers per thread} from ptxas's verbose report."""
    out, current = {}, None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            current = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            out[current] = int(m.group(1))
    return out


def _largest_blocks():
    """{source file: the most threads per block the backend launches that file's kernels with},
    from the launch helpers and constants it uses (cuda_kernel_table)."""
    from minigrad.backends import cuda_kernel_table as t

    def threads(block):
        return math.prod(block)

    widths = [1 << k for k in range(21)]
    rows = max(threads(t.row_launch(1, c)[1]) for c in widths)
    cols = max(threads(t.col_launch(1, c)[1]) for c in widths)
    scans = max(rows, threads(t.scan_launch(1, 1 << 20, True)[1]), threads(t.scan_col_launch(1, 1)[1]))
    return {"elementwise.cu": t.BLOCK, "conv.cu": t.BLOCK, "scatter.cu": t.BLOCK,
            "reduce.cu": max(rows, cols), "softmax.cu": rows, "norm.cu": rows, "scan.cu": scans,
            "sort.cu": max(t.SORT_THREADS, t.BLOCK),
            "matmul.cu": max(cfg["threads"] for tiles in t.GEMM_TILES.values() for cfg in tiles),
            "linalg.cu": t.LINALG_THREADS,
            "linalg_eig.cu": max(t.linalg_eig_threads(n) for n in range(1, 4097))}


# what sm_80 and sm_90 give a block: 64K registers, allocated per warp in units of 256
REGISTERS_PER_BLOCK, REGISTER_UNIT = 65536, 256


def _block_registers(registers, threads):
    per_warp = -(-registers * 32 // REGISTER_UNIT) * REGISTER_UNIT
    return -(-threads // 32) * per_warp


def test_block_register_arithmetic():
    assert _block_registers(64, 1024) == REGISTERS_PER_BLOCK          # the most that fits 1024 threads
    assert _block_registers(65, 1024) > REGISTERS_PER_BLOCK           # rounds up to 72 a thread
    assert _block_registers(255, 256) == REGISTERS_PER_BLOCK         # the per-thread maximum, at 256
    assert _block_registers(128, 512) == REGISTERS_PER_BLOCK


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("filename", KERNEL_FILES)
def test_registers_fit_the_largest_block_launched(compiled, filename, arch):
    """A kernel whose registers per thread times the threads of its block exceed the block's
    register file compiles, then fails every launch on the GPU ("too many resources requested
    for launch"). Check each kernel against the largest block the backend gives its file."""
    _, log, _ = compiled[(filename, arch)]
    registers = _registers(log)
    assert set(registers) >= _launched()[filename], f"no ptxas register report for some kernels of {filename}"
    threads = _largest_blocks()[filename]
    too_many = {k: r for k, r in registers.items() if _block_registers(r, threads) > REGISTERS_PER_BLOCK}
    assert not too_many, (f"{filename} ({arch}): registers per thread that do not fit a block of {threads} "
                          f"threads: {too_many}")


def test_kernel_names_in_backend_match_the_sources():
    """The backend's launch table and the sources agree on which files hold which kernels."""
    launched = _launched()
    assert set(launched) == set(KERNEL_FILES)
    assert all(launched[f] for f in KERNEL_FILES)


def _entry_body(ptx, name):
    """The PTX text of one kernel entry, from its .entry line to the next entry."""
    m = re.search(r"\.entry\s+" + name + r"\s*\(", ptx)
    assert m, f"no entry {name} in the PTX"
    nxt = re.search(r"\.entry\s+", ptx[m.end():])
    return ptx[m.start(): m.end() + nxt.start() if nxt else len(ptx)]


@pytest.mark.parametrize("kernel", ["axpy", "axpy_list", "adam_list", "sgd_list", "rmsprop_list", "adagrad_list",
                                    "dot_rows"])
@pytest.mark.parametrize("sfx", ["f32", "f64"])
def test_optimizer_kernels_round_every_product_before_the_add(compiled, sfx, kernel):
    """The optimizers' updates (p += alpha * g, one parameter per launch or a list of them, and
    the lists of Adam, SGD with momentum, RMSprop and Adagrad) and the dot product (vdot) give
    the bits of separate multiplies and adds on every backend: no fused multiply-add, which
    NVRTC would otherwise contract a + b * c into."""
    _, _, ptx = compiled[("reduce.cu" if kernel == "dot_rows" else "elementwise.cu", "sm_90")]
    body = _entry_body(ptx, f"{kernel}_{sfx}")
    assert re.search(rf"\bmul\.rn\.{sfx}\b", body) and re.search(rf"\badd\.(rn\.)?{sfx}\b", body), body[:3000]
    assert not re.search(r"\bfma\.", body), f"{kernel}_{sfx} fuses the multiply into the add"
    # the control: the same source written as a plain y + alpha * x is contracted
    src = ('extern "C" __global__ void plain(const float* x, float a, float* y, long long n) {'
           ' long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) y[i] = y[i] + a * x[i]; }')
    err, prog = nvrtc.nvrtcCreateProgram(src.encode(), b"plain.cu", 0, [], [])
    opts = [o.encode() for o in NVRTC_OPTIONS] + [b"--gpu-architecture=sm_90"]
    assert nvrtc.nvrtcCompileProgram(prog, len(opts), opts)[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
    _, size = nvrtc.nvrtcGetPTXSize(prog)
    buf = bytes(size)
    nvrtc.nvrtcGetPTX(prog, buf)
    nvrtc.nvrtcDestroyProgram(prog)
    assert re.search(r"\bfma\.rn\.f32\b", buf.decode()), "the control was not contracted: the check proves nothing"
