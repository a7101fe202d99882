"""minigrad's CUDA C sources (kernels/*.cu, shipped as the package minigrad.kernels) and their
compiled modules, loaded once per device with cupy.RawModule and cached.

Kept free of CuPy at import time: the compile-check test uses the same file list and options
with NVRTC directly, on machines without a GPU.
"""
import re
from importlib import resources

KERNEL_FILES = ("elementwise.cu", "reduce.cu", "softmax.cu", "matmul.cu", "sort.cu", "scan.cu", "norm.cu",
                "conv.cu", "linalg.cu", "linalg_eig.cu", "scatter.cu")

# the options every module is compiled with, by CuPy on a GPU and by the NVRTC check without one
NVRTC_OPTIONS = ("--std=c++17",)


_INCLUDE = re.compile(r'^#include "([\w.]+)"$', re.MULTILINE)


def source(filename):
    """A kernel file's text with its local `#include "x.cuh"` lines replaced by those files, so
    NVRTC gets one self-contained source wherever the package is installed."""
    text = resources.files("minigrad.kernels").joinpath(filename).read_text()
    return _INCLUDE.sub(lambda m: source(m.group(1)), text)


class KernelCache:
    """The kernels of one device: each file compiled on first use, each function looked up once."""

    def __init__(self, cupy, device_index):
        self._cupy = cupy
        self._device_index = device_index
        self._modules = {}
        self._functions = {}

    def get(self, filename, name):
        fn = self._functions.get(name)
        if fn is None:
            module = self._modules.get(filename)
            if module is None:
                with self._cupy.cuda.Device(self._device_index):
                    module = self._cupy.RawModule(code=source(filename), options=NVRTC_OPTIONS)
                self._modules[filename] = module
            fn = self._functions[name] = module.get_function(name)
        return fn
