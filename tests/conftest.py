"""Shared fixtures: every device-aware test runs once per backend."""
import os

import pytest

if os.environ.get("MINIGRAD_EMULATED_CUDA") == "1":
    # CPU emulation of CuPy and of the kernel ABI, for tests/test_cuda_emulated.py: it checks
    # the CUDA backend's launcher, not the kernels and not a GPU
    import cuda_emulation
    cuda_emulation.install()


def _cuda_available():
    try:
        import minigrad
        return minigrad.cuda.is_available()
    except Exception:  # minigrad missing or broken: the cpu run will report it
        return False


CUDA_AVAILABLE = _cuda_available()

DEVICES = [
    pytest.param("cpu", id="cpu"),
    pytest.param("cuda", id="cuda", marks=pytest.mark.skipif(
        not CUDA_AVAILABLE, reason="no CUDA GPU available (minigrad.cuda.is_available() is False)")),
]


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param
