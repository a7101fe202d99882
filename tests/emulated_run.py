"""Runs a program with the emulated CuPy of tests/cuda_emulation.py installed, so that its `cuda`
path runs on a machine without a GPU (through the compiled kernels when
MINIGRAD_EMULATED_CUDA_KERNELS=compiled):

    python tests/emulated_run.py [--bench-builtins] SCRIPT [ARGS...]
    python tests/emulated_run.py [--bench-builtins] -m MODULE [ARGS...]
    python tests/emulated_run.py [--bench-builtins] - [ARGS...]      (the program on stdin)

--bench-builtins adds the CuPy built-ins that `python -m minigrad.bench gpu` uses for its
references (cupy.matmul, array arithmetic, a device copy, its spin kernel); minigrad's backend
must not use them, so the emulation refuses them otherwise."""
import runpy
import sys

import cuda_emulation

args = sys.argv[1:]
bench_builtins = args[:1] == ["--bench-builtins"]
if bench_builtins:
    args = args[1:]
if not args or args == ["-m"]:
    sys.exit(__doc__)
cuda_emulation.install(bench_builtins=bench_builtins)
if args[0] == "-m":
    sys.argv = args[1:]
    runpy.run_module(args[1], run_name="__main__", alter_sys=True)
elif args[0] == "-":
    sys.argv = args
    exec(compile(sys.stdin.read(), "<stdin>", "exec"), {"__name__": "__main__"})
else:
    sys.argv = args
    runpy.run_path(args[0], run_name="__main__")
