"""Benchmarks: minigrad's per-step time against PyTorch's, measured side by side in one run.

    python -m minigrad.bench [cpu] [--threads N] [--repeat N] [--quick] [--profile]

Each subcommand is a module of this package with ``add_arguments(parser)`` and
``run(args) -> exit code``; ``__main__`` lists them. This module holds what they share:
timing and the machine description printed above every table.
"""
import os
import platform
import sys
import time

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def steps_for(step, target_s):
    """How many calls of ``step`` take about ``target_s``; the doubling runs double as warm-up."""
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            step()
        elapsed = time.perf_counter() - start
        if elapsed >= target_s / 10:
            return max(1, round(n * target_s / elapsed))
        n *= 2


def seconds_per_step(step, n):
    start = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - start) / n


def minor_faults():
    """This process's minor page faults so far (fresh memory touched for the first time), or
    None where the OS does not count them. Many per step mean freed memory went back to the OS
    and is being faulted in again, which can double a step's time."""
    try:
        import resource
    except ImportError:  # not on Windows
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def measure_steps(step, n):
    """(seconds per step, minor page faults per step or None) over n calls of step."""
    f0 = minor_faults()
    seconds = seconds_per_step(step, n)
    f1 = minor_faults()
    return seconds, (None if f0 is None else (f1 - f0) / n)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def numpy_blas():
    import numpy as np
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas['name']} {blas.get('version', '')}".strip()
    except Exception:  # older numpy has no dict mode; the BLAS name is only a nicety
        return "unknown BLAS"


def numpy_blas_threads():
    """Threads numpy's bundled OpenBLAS actually uses, or None where that cannot be asked."""
    import ctypes
    import glob
    import numpy as np
    for path in glob.glob(os.path.join(os.path.dirname(np.__file__) + ".libs", "*openblas*")):
        lib = ctypes.CDLL(path)
        for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                     "openblas_get_num_threads"):
            if hasattr(lib, name):
                return getattr(lib, name)()
    return None


def machine_lines(torch=None):
    import numpy as np
    import minigrad
    versions = [f"python {platform.python_version()}", f"numpy {np.__version__} ({numpy_blas()})",
                f"minigrad {getattr(minigrad, '__version__', '?')}"]
    if torch is not None:
        versions.append(f"torch {torch.__version__}")
    return [f"machine: {cpu_model()}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.machine()}",
            "versions: " + ", ".join(versions)]


def command_line():
    """The command as typed, so a pasted table says how to reproduce it."""
    args = sys.orig_argv[1:] if hasattr(sys, "orig_argv") else sys.argv
    return " ".join(["python", *args])
