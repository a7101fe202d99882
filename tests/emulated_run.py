"""`python tests/emulated_run.py SCRIPT [ARGS...]` runs SCRIPT as __main__ with the emulated CuPy
of tests/cuda_emulation.py installed, so that a program's `cuda` path runs on a machine without
a GPU (through the compiled kernels when MINIGRAD_EMULATED_CUDA_KERNELS=compiled)."""
import runpy
import sys

import cuda_emulation

cuda_emulation.install()
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
