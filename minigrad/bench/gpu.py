"""minigrad's CUDA kernels against cuBLAS and a device copy, and minigrad against PyTorch, on a GPU.

    python -m minigrad.bench gpu [--quick] [--repeat N]

1. SGEMM: the backend's own gemm kernels against cupy.matmul (cuBLAS, TF32 off) at 1024, 4096
   and 8192, with the error against a float64 product; DGEMM at 1024 and 4096 for information.
2. Elementwise add, mul and relu on 256 MiB float32 tensors: effective bandwidth against a
   device-to-device copy of the same size.
3. Seed 003's comparison: a 1000x1000 float32 matmul on the CPU and on the GPU.
4. With a CUDA build of torch: the MLP 784-256-10 training step, minigrad against PyTorch, as
   tensor ops with a hand-written update and as seed 000's loop (nn.Linear, CrossEntropyLoss,
   optim.SGD).
5. For information, where seed 000's MLP step spends its time on the host: the time to queue
   steps against the time until the GPU has finished them (for PyTorch too when it is there),
   minigrad's kernel launches per step, and minigrad's functions that take the most host time
   (cProfile).

All GPU times come from CUDA events, after warm-up, as the median of --repeat samples. In
parts 1 and 2 each sample is queued behind a spin kernel so the events see the GPU's time
only, not Python's launch overhead; parts 3 and 4 time what a user sees, overhead included.
Exit code 1 when a result is wrong or a row fails; a missed speed target alone is not a failure.
Without a CUDA GPU it prints one line saying so and exits 0.
"""
import os
import re
import statistics
import sys
import time

import numpy as np

from . import THREAD_VARS, command_line, cpu, machine_lines, numpy_blas_threads

TF32_ENV = "CUPY_TF32"  # CuPy uses TF32 for float32 matmul only when this is 1
NO_GPU = ("minigrad GPU benchmark: skipped, it needs a CUDA GPU "
          "(minigrad.cuda.is_available() is False on this machine)")

SGEMM_SIZES, SGEMM_SIZES_QUICK = (1024, 4096, 8192), (512, 1024)
SGEMM_TARGET = {1024: 0.75, 4096: 0.90, 8192: 0.90}  # ours / cuBLAS throughput, at least
DGEMM_SIZES, DGEMM_SIZES_QUICK = (1024, 4096), (512,)
SGEMM_TOL = 1e-5   # max |ours - ref| / max |ref|, ref the float64 product of the same inputs
DGEMM_TOL = 1e-12  # float64 against cuBLAS's float64: only a wrong result exceeds this
EW_MIB, EW_MIB_QUICK = 256, 16
EW_TARGET = 0.95   # ours / copy bandwidth, at least
SEED003_N = 1000
MLP_TARGET = 1.0   # minigrad / PyTorch time per step, at most
MIB = 1 << 20

HOST_STEPS, HOST_STEPS_QUICK = 50, 5   # steps per host-side sample: 50 x 14 launches stay below the launch queue
PROFILE_TOP = 15   # rows of the host profile

MAX_CALLS = 100  # calls queued per sample, far below the driver's launch queue (it would block the host)

SPIN_SOURCE = r"""
extern "C" __global__ void minigrad_bench_spin(long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while ((long long)(t - t0) < ns);
}
"""


# ---- timing ---------------------------------------------------------------------------------------
def event_sample(fn, Event, calls, before=None):
    """(GPU ms per call, host ms spent queueing) for `calls` back-to-back calls of fn between two
    CUDA events on the current stream; `before` runs first, outside the timed span."""
    start, end = Event(enable_timing=True), Event(enable_timing=True)
    if before is not None:
        before()
    t0 = time.perf_counter()
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    host_ms = (time.perf_counter() - t0) * 1e3
    end.synchronize()
    return start.elapsed_time(end) / calls, host_ms


def hidden_sample(fn, Event, calls, spin, wait_ms):
    """event_sample queued behind spin(wait_ms), a kernel that keeps the GPU busy while the host
    queues the calls, so the events time the GPU alone. A sample whose queueing outlasted the
    spin (the GPU may have waited for Python) is taken again with a longer spin.
    Returns (GPU ms per call, the spin length that worked, to start from next time)."""
    for _ in range(8):
        ms, host_ms = event_sample(fn, Event, calls, lambda: spin(wait_ms))
        if host_ms < 0.8 * wait_ms:  # margin for the spin starting before its launch returned
            return ms, wait_ms
        wait_ms = 2 * host_ms
    raise RuntimeError(f"the host could not queue {calls} calls ahead of the GPU")


def measure(fns, repeat, sample_ms=0.0, spin=None, warmup=3):
    """{name: median GPU ms per call} for fns = {name: (fn, Event class)}.

    Each sample is as many back-to-back calls as take about sample_ms (one when 0, at most
    MAX_CALLS); the samples of different names alternate, so a change in clocks or load
    hits all alike. With `spin`, samples are hidden_sample()s (GPU time only)."""
    waits = dict.fromkeys(fns, 1.0)

    def sample(name, calls):
        fn, Event = fns[name]
        if spin is None:
            return event_sample(fn, Event, calls)[0]
        ms, waits[name] = hidden_sample(fn, Event, calls, spin, waits[name])
        return ms

    calls = {}
    for name, (fn, _) in fns.items():
        for _ in range(warmup):
            fn()
        calls[name] = 1
        if sample_ms > 0:
            calls[name] = min(MAX_CALLS, max(1, round(sample_ms / max(sample(name, 1), 1e-4))))
    samples = {name: [] for name in fns}
    for _ in range(repeat):
        for name in fns:
            samples[name].append(sample(name, calls[name]))
    return {name: statistics.median(s) for name, s in samples.items()}


def host_median_ms(fn, repeat, warmup=2):
    """Median wall-clock ms of one call, for synchronous (CPU) work."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def make_spin(cp):
    kernel = cp.RawKernel(SPIN_SOURCE, "minigrad_bench_spin")

    def spin(ms):
        kernel((1,), (1,), (np.int64(ms * 1e6),))
    return spin


# ---- units and checks ------------------------------------------------------------------------------
def tflops(flops, ms):
    return flops / (ms * 1e-3) / 1e12


def gb_per_s(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


def rel_err(x, ref):
    """max |x - ref| / max |ref|, in ref's precision (NumPy or CuPy arrays)."""
    return float(abs(x.astype(ref.dtype) - ref).max() / abs(ref).max())


def cuda_version(v):
    """CUDA's integer version (13000) as text (13.0)."""
    return f"{v // 1000}.{v % 1000 // 10}"


def verdict(ok):
    return "PASS" if ok else "MISS"


# ---- setup ------------------------------------------------------------------------------------------
def restart_with(env):
    """Start this command again with env added: CuPy reads its settings from the environment,
    and something imported it before this subcommand could set them."""
    args = sys.orig_argv[1:] if hasattr(sys, "orig_argv") else ["-m", "minigrad.bench", *sys.argv[1:]]
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, *args], dict(os.environ, **env))


def nvidia_driver():
    try:
        with open("/proc/driver/nvidia/version") as f:
            m = re.search(r"Kernel Module\s+(\S+)", f.read())
        return m.group(1) if m else None
    except OSError:
        return None


def cublas_f32_mode(cp):
    """The compute type CuPy gives cuBLAS for float32 (private API: '?' where it moved)."""
    try:
        from cupy._core import _routines_linalg as linalg
        return linalg.compute_type_to_str(linalg.get_compute_type(np.float32))
    except Exception:
        return "?"


def machine_table(cp, minigrad, index, torch):
    props = minigrad.cuda.get_device_properties(index)
    rt = cp.cuda.runtime
    driver = nvidia_driver()
    rows = [("GPU", f"{props.name}, sm_{props.major}{props.minor}, {props.multi_processor_count} SMs, "
                    f"{props.total_memory / 2**30:.1f} GiB, cuda:{index} of {minigrad.cuda.device_count()}"),
            ("driver", (f"NVIDIA {driver}, " if driver else "") + f"CUDA {cuda_version(rt.driverGetVersion())}"),
            ("runtime", f"CUDA {cuda_version(rt.runtimeGetVersion())} (CuPy's), CuPy {cp.__version__}"),
            ("TF32", f"off: {TF32_ENV}={os.environ.get(TF32_ENV)} set before CuPy was imported; CuPy's "
                     f"float32 cuBLAS compute type {cublas_f32_mode(cp)}"
                     + ("; torch.backends.cuda.matmul.allow_tf32=False" if torch else ""))]
    for line in machine_lines(torch):
        key, _, value = line.partition(": ")
        rows.append((key, value))
    print("| item | value |\n|---|---|")
    for key, value in rows:
        print(f"| {key} | {value} |")


def error_row(title, e, ncols):
    """A table row saying what broke, so one failure does not hide the other rows."""
    print(f"| {title} | ERROR {type(e).__name__}: {e} |" + " |" * (ncols - 2))


# ---- 1. GEMM ----------------------------------------------------------------------------------------
def gemm_section(cp, be, Event, spin, rs, sizes, dtype, repeat, sample_ms):
    """One table row per size; returns False when a result was wrong or a row failed."""
    f32 = dtype == np.float32
    label, tol = ("SGEMM, float32", SGEMM_TOL) if f32 else ("DGEMM, float64", DGEMM_TOL)
    ref_text = "the float64 product (cupy.matmul)" if f32 else "cuBLAS's float64 product"
    print(f"\n### {label}, n x n @ n x n: minigrad's gemm kernels vs cupy.matmul (cuBLAS)\n")
    print("| n | minigrad ms | minigrad TFLOP/s | cuBLAS ms | cuBLAS TFLOP/s | ratio | target | result "
          "| rel err minigrad | rel err cuBLAS | err <= |\n|---:|---:|---:|---:|---:|---:|---:|:---:|---:|---:|---:|")
    ok = True
    for n in sizes:
        try:
            a = rs.standard_normal((n, n), dtype=dtype)
            b = rs.standard_normal((n, n), dtype=dtype)
            ref = cp.matmul(a.astype(np.float64), b.astype(np.float64))
            err_ours, err_blas = rel_err(be.matmul(a, b), ref), rel_err(cp.matmul(a, b), ref)
            del ref
            ms = measure({"ours": (lambda: be.matmul(a, b), Event),
                          "cublas": (lambda: cp.matmul(a, b), Event)}, repeat, sample_ms, spin)
        except Exception as e:
            ok = False
            error_row(n, e, 11)
            continue
        finally:
            a = b = None
            cp.get_default_memory_pool().free_all_blocks()
        flops = 2 * n ** 3
        ratio = ms["cublas"] / ms["ours"]  # throughput ours / cuBLAS
        target = SGEMM_TARGET.get(n) if f32 else None
        result = verdict(ratio >= target) if target else "info"
        good = err_ours <= tol  # `<=` is False for NaN
        ok &= good
        print(f"| {n} | {ms['ours']:.4f} | {tflops(flops, ms['ours']):.1f} | {ms['cublas']:.4f} "
              f"| {tflops(flops, ms['cublas']):.1f} | {ratio:.2f} | {f'>= {target}' if target else '-'} "
              f"| {result} | {err_ours:.1e}{'' if good else ' WRONG'} | {err_blas:.1e} | {tol:.0e} |")
    print(f"\nratio = minigrad TFLOP/s / cuBLAS TFLOP/s (higher is better); rel err = max |C - ref| / max |ref| "
          f"against {ref_text} of the same standard-normal inputs")
    return ok


# ---- 2. elementwise ---------------------------------------------------------------------------------
def elementwise_section(cp, be, Event, spin, rs, mib, repeat, sample_ms):
    n = mib * MIB // 4
    a = rs.standard_normal(n, dtype=np.float32)
    b = rs.standard_normal(n, dtype=np.float32)
    dst = cp.empty_like(a)
    nbytes = a.nbytes
    ops = {  # name: (minigrad call, CuPy's result to check it against, bytes read + written)
        "add": (lambda: be.add(a, b), lambda: a + b, 3 * nbytes),
        "mul": (lambda: be.mul(a, b), lambda: a * b, 3 * nbytes),
        "relu": (lambda: be.relu(a), lambda: cp.maximum(a, 0), 2 * nbytes),
    }
    print(f"\n### Elementwise, float32, {mib} MiB per tensor ({n:,} elements): effective bandwidth vs "
          f"a device-to-device copy\n")
    print("| op | bytes moved per call | ms | GB/s | copy GB/s | ratio | target | result | max abs diff vs CuPy |")
    print("|---|---:|---:|---:|---:|---:|---:|:---:|---:|")
    ok = True
    try:
        fns = {"copy": (lambda: dst.data.copy_from_device_async(a.data, nbytes), Event)}
        fns.update({name: (op[0], Event) for name, op in ops.items()})
        ms = measure(fns, repeat, sample_ms, spin)
    except Exception as e:
        error_row("all", e, 9)
        return False
    copy_gbs = gb_per_s(2 * nbytes, ms["copy"])
    print(f"| copy (cudaMemcpyAsync D2D) | {2 * nbytes // MIB} MiB | {ms['copy']:.4f} | {copy_gbs:.0f} "
          f"| {copy_gbs:.0f} | 1.00 | - | - | - |")
    for name, (ours, cupy_ref, moved) in ops.items():
        try:
            diff = float(abs(ours() - cupy_ref()).max())
        except Exception as e:
            ok = False
            error_row(name, e, 9)
            continue
        good = diff == 0.0  # one IEEE operation per element: bit-exact or wrong
        ok &= good
        gbs = gb_per_s(moved, ms[name])
        ratio = gbs / copy_gbs
        print(f"| {name} | {moved // MIB} MiB | {ms[name]:.4f} | {gbs:.0f} | {copy_gbs:.0f} | {ratio:.2f} "
              f"| >= {EW_TARGET} | {verdict(ratio >= EW_TARGET)} | {diff:.1e}{'' if good else ' WRONG'} |")
    print("\nGB/s = 10^9 bytes (read + written) per second; add/mul read 2 tensors and write 1, relu and "
          "the copy read 1 and write 1; ratio = op GB/s / copy GB/s")
    return ok


# ---- 3. seed 003 ------------------------------------------------------------------------------------
def seed003_section(minigrad, repeat):
    n = SEED003_N
    host = np.random.default_rng(3).standard_normal((n, n)).astype(np.float32)
    x_cpu = minigrad.tensor(host)
    x_gpu = x_cpu.to("cuda")
    env = " ".join(f"{var}={os.environ.get(var, 'unset')}" for var in THREAD_VARS[:3])
    blas = numpy_blas_threads()
    print(f"\n### Seed 003: {n}x{n} float32 matmul x @ x, CPU vs GPU (minigrad tensors)\n")
    print(f"CPU threads: the machine's default ({env}; numpy's BLAS uses {blas if blas is not None else '?'} "
          f"of {os.cpu_count()} logical CPUs). CPU: median wall time of one call; GPU: median of one call "
          "between two minigrad.cuda.Event records, Python dispatch included, as the seed times it.\n")
    print("| matmul | CPU ms | GPU ms | speed-up | rel diff CPU vs GPU |\n|---|---:|---:|---:|---:|")
    try:
        diff = rel_err(minigrad.matmul(x_gpu, x_gpu).cpu().numpy(), (x_cpu @ x_cpu).numpy().astype(np.float64))
        cpu_ms = host_median_ms(lambda: minigrad.matmul(x_cpu, x_cpu), repeat)
        gpu_ms = measure({"gpu": (lambda: minigrad.matmul(x_gpu, x_gpu), minigrad.cuda.Event)}, repeat)["gpu"]
    except Exception as e:
        error_row(f"{n}x{n}", e, 5)
        return False
    good = diff <= SGEMM_TOL
    print(f"| {n}x{n} @ {n}x{n} | {cpu_ms:.3f} | {gpu_ms:.3f} | {cpu_ms / gpu_ms:.1f}x "
          f"| {diff:.1e}{'' if good else ' DISAGREE'} |")
    return good


# ---- 4. MLP training step ---------------------------------------------------------------------------
# tensor ops + hand-written SGD; the seed loop with nn and optim.SGD (these two have issue 4's
# target); the seed loop with optim.Adam (informational: the fused Adam against torch's)
MLP_WORKLOADS = ("mlp", "nn_mlp", "nn_mlp_adam")
UNTARGETED = ("nn_mlp_adam",)


def mlp_section(minigrad, torch, repeat, sample_ms):
    print("\n### MLP 784-256-10 training step: minigrad vs PyTorch eager, CUDA\n")
    if torch is None:
        print("skipped: torch with CUDA is not importable here")
        return True
    print("| workload | minigrad ms/step | PyTorch ms/step | ratio | target | result | max abs diff |")
    print("|---|---:|---:|---:|---:|:---:|---:|")
    all_good = True
    for name in MLP_WORKLOADS:
        workload = cpu.BY_NAME[name]
        data = workload.make_data(np.random.default_rng(cpu.SEED))
        try:
            diff = cpu.array_diff(cpu.trajectory(workload, torch, data, device="cuda"),
                                  cpu.trajectory(workload, minigrad, data, device="cuda"))
            steps = {lib_name: (workload.build(lib, data, "cuda")[0], lib.cuda.Event)
                     for lib_name, lib in (("minigrad", minigrad), ("torch", torch))}
            ms = measure(steps, repeat, sample_ms)
        except Exception as e:
            error_row(workload.title, e, 7)
            all_good = False
            continue
        good = diff <= cpu.AGREE_TOL
        all_good = all_good and good
        ratio = ms["minigrad"] / ms["torch"]
        target, result = ("-", "-") if name in UNTARGETED else (f"<= {MLP_TARGET}", verdict(ratio <= MLP_TARGET))
        print(f"| {workload.title} | {ms['minigrad']:.3f} | {ms['torch']:.3f} | {ratio:.2f} | {target} "
              f"| {result} | {diff:.1e}{'' if good else ' DISAGREE'} |")
    print(f"\nratio = minigrad time / PyTorch time per step (lower is better); each sample: back-to-back steps "
          f"between two CUDA events, then a synchronize; agreement: losses, parameters and gradients after "
          f"{cpu.CHECK_STEPS} steps on the GPU")
    return all_good


# ---- 5. the MLP step on the host -------------------------------------------------------------------
def count_launches(minigrad, fn):
    """How many kernels minigrad's CUDA backend launches while fn runs."""
    from ..backends import cuda_backend
    with cuda_backend.record_launches(minigrad.cuda.current_device()) as names:
        fn()
    return len(names)


def host_times(lib, step, steps, repeat):
    """Median (µs per step to queue `steps` steps, µs per step until the GPU has run them)."""
    queued, done = [], []
    for _ in range(repeat):
        lib.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        t1 = time.perf_counter()
        lib.cuda.synchronize()
        t2 = time.perf_counter()
        queued.append((t1 - t0) / steps * 1e6)
        done.append((t2 - t0) / steps * 1e6)
    return statistics.median(queued), statistics.median(done)


def _package(path):
    """Whose code a profiled function is: a package name, or built-ins for C functions."""
    if path == "~":
        return "built-ins"
    parts = path.replace("\\", "/").split("/")
    for pkg in ("minigrad", "cupy", "cupyx", "cupy_backends", "numpy", "torch"):
        if pkg in parts[:-1]:
            return "cupy" if pkg.startswith("cupy") else pkg
    return "other"


def profile_rows(fn, calls, top):
    """cProfile of `calls` calls of fn: the `top` functions by own time, as (name, calls per
    call of fn, own µs per call of fn, µs with callees per call of fn), and the own time per
    call of fn summed by package (_package)."""
    import cProfile
    import pstats
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    rows, by_package = [], {}
    for (path, _line, func), (_cc, nc, tt, ct, _callers) in pstats.Stats(prof).stats.items():
        name = func if path == "~" else f"{os.path.basename(path)}:{func}"
        rows.append((tt, name, nc / calls, tt / calls * 1e6, ct / calls * 1e6))
        pkg = _package(path)
        by_package[pkg] = by_package.get(pkg, 0.0) + tt / calls * 1e6
    return [r[1:] for r in sorted(rows, reverse=True)[:top]], by_package


def host_section(minigrad, torch, steps, repeat):
    """Informational: no target. Returns False only when something failed."""
    print("\n### MLP 784-256-10 step (seed loop), host side\n")
    workload = cpu.BY_NAME["nn_mlp"]
    data = workload.make_data(np.random.default_rng(cpu.SEED))
    print("| library | queue µs/step | finished µs/step | queue / finished | kernel launches/step |")
    print("|---|---:|---:|---:|---:|")
    ok = True
    libs = [("minigrad", minigrad)] + ([("PyTorch", torch)] if torch is not None else [])
    for name, lib in libs:
        try:
            step = workload.build(lib, data, "cuda")[0]
            for _ in range(steps):
                step()
            queue_us, done_us = host_times(lib, step, steps, repeat)
            launches = count_launches(minigrad, step) if lib is minigrad else "-"
        except Exception as e:
            error_row(name, e, 5)
            ok = False
            continue
        print(f"| {name} | {queue_us:.1f} | {done_us:.1f} | {queue_us / done_us:.2f} | {launches} |")
    print(f"\nqueue: host time to issue {steps} back-to-back steps; finished: until the GPU has run them "
          "too. A queue / finished near 1 means the host is the bottleneck, not the GPU.")
    try:
        step = workload.build(minigrad, data, "cuda")[0]
        for _ in range(steps):
            step()
        rows, by_package = profile_rows(step, steps * repeat, PROFILE_TOP)
        minigrad.cuda.synchronize()
    except Exception as e:
        print(f"\nprofile: ERROR {type(e).__name__}: {e}")
        return False
    print(f"\nminigrad's step under cProfile, the {PROFILE_TOP} functions with the most own time "
          "(cProfile slows Python down: compare the rows with each other, not with the table above):\n")
    print("| function | calls/step | own µs/step | with callees µs/step |")
    print("|---|---:|---:|---:|")
    for name, ncalls, own, cum in rows:
        print(f"| {name} | {ncalls:.1f} | {own:.1f} | {cum:.1f} |")
    print("\nown µs/step by package: " + ", ".join(
        f"{pkg} {us:.1f}" for pkg, us in sorted(by_package.items(), key=lambda kv: -kv[1])))
    return ok


# ---- command ------------------------------------------------------------------------------------------
def add_arguments(parser):
    parser.add_argument("--repeat", type=cpu.positive_int, default=None,
                        help="timed samples per measurement, median reported (default 20, 5 with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke test: GEMM 512/1024, DGEMM 512, 16 MiB vectors, short samples")


def cuda_torch():
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    torch.backends.cuda.matmul.allow_tf32 = False  # the default; said explicitly since cuBLAS's is compared
    return torch


def run(args):
    if "cupy" not in sys.modules:
        os.environ[TF32_ENV] = "0"
    import minigrad
    if not minigrad.cuda.is_available():
        print(NO_GPU)
        return 0
    if os.environ.get(TF32_ENV) != "0":  # CuPy came in before this ran, with TF32 allowed
        restart_with({TF32_ENV: "0"})
    import cupy as cp
    from ..backends import cuda_backend

    Event = minigrad.cuda.Event
    quick = args.quick
    repeat = args.repeat or (5 if quick else 20)
    sample_ms = 1.0 if quick else 5.0
    index = minigrad.cuda.current_device()
    torch = cuda_torch()

    print(f"## GPU: minigrad's CUDA backend\n\ncommand: `{command_line()}`\n")
    machine_table(cp, minigrad, index, torch)
    print(f"\ntiming: CUDA events, after warm-up, median of {repeat} samples; GEMM and elementwise samples are "
          f"~{sample_ms:g} ms of back-to-back calls queued behind a spin kernel, so they time the GPU alone")

    with cp.cuda.Device(index):
        be = cuda_backend.for_device(index)
        spin = make_spin(cp)
        spin(0.01)  # compiles it
        rs = cp.random.RandomState(0)
        ok = gemm_section(cp, be, Event, spin, rs, SGEMM_SIZES_QUICK if quick else SGEMM_SIZES, np.float32,
                          repeat, sample_ms)
        ok &= gemm_section(cp, be, Event, spin, rs, DGEMM_SIZES_QUICK if quick else DGEMM_SIZES, np.float64,
                           repeat, sample_ms)
        ok &= elementwise_section(cp, be, Event, spin, rs, EW_MIB_QUICK if quick else EW_MIB, repeat, sample_ms)
        minigrad.cuda.empty_cache()
        ok &= seed003_section(minigrad, repeat)
        ok &= mlp_section(minigrad, torch, repeat, 10 * sample_ms)
        ok &= host_section(minigrad, torch, HOST_STEPS_QUICK if quick else HOST_STEPS, repeat)
    return 0 if ok else 1
