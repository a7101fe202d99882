"""minigrad's CUDA C kernels, compiled for the CPU and launched there (tests/cuda_on_cpu.h).

`load(source_text)` compiles a CUDA source (a kernels/*.cu file as NVRTC gets it, or a test's
own snippet) with the host C++ compiler, with tests/cuda_on_cpu.h before it, and returns a
Module whose kernels run with CUDA's grid/block/thread model on the CPU: every block's threads
are fibers, __syncthreads() and the warp shuffles really wait for the other threads, shared
memory starts each block as garbage, and between barriers one warp runs as far ahead of the
others as it can, in an order the caller picks, so a race shows as a result that changes with
the order.

Builds are cached by a hash of the source, the header, the compiler and its flags (in
$MINIGRAD_CUDA_ON_CPU_CACHE, else $XDG_CACHE_HOME/minigrad/cuda_on_cpu, else
~/.cache/minigrad/cuda_on_cpu). x86-64 Linux with a C++17 compiler (g++ or $CXX) only:
`available()` says whether this machine qualifies.

Arguments: pointers are host addresses (ints), scalars are NumPy scalars of exactly the C type
(np.float32 for float, ...), as the CUDA backend passes them to CuPy. `alloc(nbytes)` gives
memory whose end touches a page the process may not access, so a kernel that reads or writes
past an argument's end faults (reported, not fatal), like cuda-memcheck would report it.
"""
import ctypes
import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
HEADER = HERE / "cuda_on_cpu.h"
FLAGS = ("-std=c++17", "-O1", "-fPIC", "-shared", "-fvisibility=hidden", "-fno-strict-aliasing",
         "-ffp-contract=off", "-fno-fast-math", "-U_FORTIFY_SOURCE", "-w")
# every load and store checks its pointer's alignment, as a GPU does (a misaligned vector access
# faults there), and every index into an array of known size (a __shared__ tile) its bounds: the
# header handles the checks' reports itself, so the build is compiled with these flags, then
# linked without them, and needs no sanitizer runtime library
CHECKS = ("-fsanitize=alignment,bounds", "-fno-sanitize-recover=alignment,bounds")

# schedules: the order in which a block's threads run between two barriers
ASCENDING, DESCENDING, SHUFFLED = 0, 1, 2

# C parameter codes (tests/cuda_on_cpu.h, Code<T>) -> ctypes
_CTYPES = {"f32": ctypes.c_float, "f64": ctypes.c_double, "i64": ctypes.c_longlong,
           "i32": ctypes.c_int, "b8": ctypes.c_bool, "u64": ctypes.c_ulonglong, "u16": ctypes.c_ushort}
_NP = {"f32": np.float32, "f64": np.float64, "i64": np.int64, "i32": np.int32, "b8": np.bool_,
       "u64": np.uint64, "u16": np.uint16}


class KernelFault(Exception):
    """A launch that would be wrong on a GPU: an invalid memory access, a trap, a barrier or
    a shuffle that not every thread reaches."""

    def __init__(self, message, address=None):
        super().__init__(message)
        self.address = address


def compiler():
    return os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")


def available():
    """Whether kernels can run here: x86-64 Linux (the fiber switch is x86-64 assembly) and a
    C++ compiler."""
    return (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")
            and compiler() is not None)


def cache_dir():
    env = os.environ.get("MINIGRAD_CUDA_ON_CPU_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "minigrad" / "cuda_on_cpu"


_KERNEL_DECL = re.compile(r'extern\s+"C"\s+void\s+(\w+)\s*\(')


def kernel_names(source):
    """The extern "C" kernels a source defines, found by preprocessing it with the header (the
    kernel files generate most names with macros)."""
    cxx = compiler()
    text = f'#include "{HEADER}"\n{source}'
    proc = subprocess.run([cxx, "-std=c++17", "-E", "-P", "-x", "c++", "-"], input=text,
                          capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"preprocessing failed:\n{proc.stderr[-4000:]}")
    names = _KERNEL_DECL.findall(proc.stdout)
    return list(dict.fromkeys(names))


def _compiler_id(cxx):
    out = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else cxx


def build(source, label="kernels"):
    """The path of the shared library for source, compiled now unless cached."""
    cxx = compiler()
    if cxx is None:
        raise RuntimeError("no C++ compiler (set CXX or install g++)")
    key = hashlib.sha256("\0".join([source, HEADER.read_text(), " ".join(FLAGS + CHECKS), _compiler_id(cxx)])
                         .encode()).hexdigest()[:20]
    out_dir = cache_dir()
    so = out_dir / f"{re.sub(r'[^A-Za-z0-9_]', '_', label)}-{key}.so"
    if so.exists():
        return so
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError:  # an unwritable home: build in the temporary directory instead
        out_dir = Path(tempfile.gettempdir()) / f"minigrad-cuda-on-cpu-{os.getuid()}"
        out_dir.mkdir(parents=True, exist_ok=True)
        so = out_dir / so.name
        if so.exists():
            return so
    names = kernel_names(source)
    table = "".join(f"MGEMU_KERNEL({n})\n" for n in names)
    unit = (f'#include "{HEADER}"\n#line 1 "{label}"\n{source}\n'
            f'#define MGEMU_RUNTIME\n#include "{HEADER}"\n'
            f"static const mgemu::Entry mgemu_table[] = {{\n{table}}};\nMGEMU_EXPORTS\n")
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        cpp, obj, lib = Path(tmp) / "unit.cpp", Path(tmp) / "unit.o", Path(tmp) / "unit.so"
        cpp.write_text(unit)
        for cmd in ([cxx, *FLAGS, *CHECKS, "-c", str(cpp), "-o", str(obj)],
                    [cxx, *FLAGS, str(obj), "-o", str(lib)]):
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode:
                raise RuntimeError(f"compiling {label} for the CPU failed:\n{proc.stderr[-6000:]}")
        os.replace(lib, so)  # atomic: a concurrent build of the same key writes the same bytes
    return so


class Module:
    """The kernels of one compiled source."""

    def __init__(self, path):
        # PyDLL keeps the GIL during calls: the runtime's scheduler is process-global, so two
        # Python threads must not launch at once
        lib = self._lib = ctypes.PyDLL(str(path))
        lib.mgemu_count.restype = ctypes.c_int
        lib.mgemu_name.restype = ctypes.c_char_p
        lib.mgemu_name.argtypes = [ctypes.c_int]
        lib.mgemu_signature.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        lib.mgemu_launch.restype = ctypes.c_int
        lib.mgemu_launch.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint),
                                     ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_ulonglong,
                                     ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_ulonglong)]
        lib.mgemu_alloc.restype = ctypes.c_void_p
        lib.mgemu_alloc.argtypes = [ctypes.c_ulonglong, ctypes.POINTER(ctypes.c_ulonglong),
                                    ctypes.POINTER(ctypes.c_ulonglong)]
        lib.mgemu_free.argtypes = [ctypes.c_ulonglong, ctypes.c_ulonglong]
        self.kernels = {}
        buf = ctypes.create_string_buffer(512)
        for i in range(lib.mgemu_count()):
            lib.mgemu_signature(i, buf, 512)
            sig = buf.value.decode()
            self.kernels[lib.mgemu_name(i).decode()] = (i, tuple(sig.split(",")) if sig else ())
        self._err = ctypes.create_string_buffer(1024)

    def signature(self, name):
        """The kernel's parameter codes: f32 f64 i64 i32 b8 u64, or P<code> / C<code> for a
        pointer (C: to const)."""
        return self.kernels[name][1]

    def launch(self, name, grid, block, args, schedule=SHUFFLED, seed=0):
        """Runs kernel name over grid x block; raises KernelFault if it faults."""
        index, sig = self.kernels[name]
        if len(args) != len(sig):
            raise TypeError(f"{name} takes {len(sig)} arguments, got {len(args)}")
        keep = []
        for code, value in zip(sig, args):
            if code[0] in "PC":
                keep.append(ctypes.c_void_p(int(value)))
            else:
                if type(value) is not _NP[code]:
                    raise TypeError(f"{name}: a {type(value).__name__} for a {code} parameter")
                keep.append(_CTYPES[code](value.item()))
        argv = (ctypes.c_void_p * max(len(keep), 1))(*[ctypes.addressof(k) for k in keep])
        g = (ctypes.c_uint * 3)(*_dim3(grid))
        b = (ctypes.c_uint * 3)(*_dim3(block))
        addr = ctypes.c_ulonglong(0)
        rc = self._lib.mgemu_launch(index, g, b, argv, schedule, seed, self._err, len(self._err),
                                    ctypes.byref(addr))
        if rc:
            raise KernelFault(f"{name}: {self._err.value.decode()}", addr.value if rc == 2 else None)

    def alloc(self, nbytes):
        return Buffer(self._lib, nbytes)


def _dim3(v):
    v = (v,) if isinstance(v, (int, np.integer)) else tuple(v)
    return tuple(int(x) for x in v) + (1,) * (3 - len(v))


class Buffer:
    """nbytes of host memory ending right before an inaccessible page (see the module doc)."""

    def __init__(self, lib, nbytes):
        self._lib = lib
        self.nbytes = int(nbytes)
        base, length = ctypes.c_ulonglong(), ctypes.c_ulonglong()
        ptr = lib.mgemu_alloc(self.nbytes, ctypes.byref(base), ctypes.byref(length))
        if not ptr:
            raise MemoryError(f"could not map {nbytes} bytes")
        self.ptr, self._base, self._len = ptr, base.value, length.value

    def array(self, dtype=np.uint8):
        """The memory as a NumPy array of dtype (a view, valid until free())."""
        dtype = np.dtype(dtype)
        if not self.nbytes:
            return np.empty(0, dtype)
        raw = (ctypes.c_char * self.nbytes).from_address(self.ptr)
        return np.frombuffer(raw, np.uint8)[: self.nbytes // dtype.itemsize * dtype.itemsize].view(dtype)

    def contains(self, address, slack=0):
        return self.ptr - slack <= address < self.ptr + self.nbytes + slack

    def free(self):
        if self._base:
            self._lib.mgemu_free(self._base, self._len)
            self._base = 0

    def __enter__(self):  # `with module.alloc(n) as buf:` frees it on the way out
        return self

    def __exit__(self, *exc):
        self.free()
        return False


_modules = {}


def load(source, label="kernels"):
    """The compiled Module for source (compiled once per process and cached on disk)."""
    mod = _modules.get(source)
    if mod is None:
        mod = _modules[source] = Module(build(source, label))
    return mod


_by_file = {}


def load_kernel_file(filename):
    """The Module of one of kernels/*.cu, from the exact text the CUDA backend gives NVRTC."""
    mod = _by_file.get(filename)
    if mod is None:
        from minigrad.backends.kernel_loader import source
        mod = _by_file[filename] = load(source(filename), filename)
    return mod
