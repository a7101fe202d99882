"""minigrad.version: what torch.version reports, for minigrad's build.

`cuda` is the CUDA runtime version of the CuPy that minigrad's CUDA backend runs on ("13.0"),
or None where CuPy cannot be loaded; it is looked up on first use, so reading the other
attributes (or importing minigrad) never loads CuPy. minigrad has no ROCm, HIP or XPU backend.
"""
__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]  # noqa: F822  (cuda: lazy)

__version__ = "0.1.0"
debug = False
git_version = "Unknown"  # minigrad records no commit in its build
hip = None
rocm = None
xpu = None


def _cuda_runtime():
    try:
        import cupy
        v = int(cupy.cuda.runtime.runtimeGetVersion())
    except Exception:  # no CuPy, or no CUDA runtime library for it: no CUDA build to report
        return None
    return f"{v // 1000}.{v % 1000 // 10}"


def __getattr__(name):
    if name == "cuda":
        globals()["cuda"] = value = _cuda_runtime()
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
