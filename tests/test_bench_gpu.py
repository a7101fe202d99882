"""The GPU benchmark: its command line, its answer on a machine without a GPU, its timing
helpers (against a fake GPU clock, so they run anywhere), a --quick run on the emulated GPU of
tests/cuda_emulation.py (every section, table and check, and the exit status when a result is
wrong), and a --quick run where a real GPU is."""
import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import minigrad
from minigrad.bench import gpu
from minigrad.bench.__main__ import parse_args

ROOT = Path(__file__).resolve().parents[1]
HAS_GPU = minigrad.cuda.is_available()
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA GPU available (minigrad.cuda.is_available() is False)")


def bench(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "minigrad.bench", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


# ---- command line -------------------------------------------------------------------------------------
def test_cli_parses_gpu_options():
    args = parse_args(["gpu"])
    assert (args.command, args.quick, args.repeat) == ("gpu", False, None)
    args = parse_args(["gpu", "--quick", "--repeat", "3"])
    assert (args.command, args.quick, args.repeat) == ("gpu", True, 3)
    assert parse_args([]).command == "cpu"  # the default did not move


@pytest.mark.parametrize("bad", [["gpu", "--repeat", "0"], ["gpu", "--repeat", "x"], ["gpu", "--threads", "2"]])
def test_cli_rejects(bad):
    with pytest.raises(SystemExit):
        parse_args(bad)


def test_importing_the_benchmark_does_not_import_cupy():
    code = "import sys, minigrad.bench.__main__ as m; m.parse_args(['gpu']); print('cupy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


# ---- without a GPU ------------------------------------------------------------------------------------
@pytest.mark.skipif(HAS_GPU, reason="this machine has a GPU: the no-GPU answer cannot be seen here")
@pytest.mark.parametrize("args", [["gpu"], ["gpu", "--quick", "--repeat", "2"]])
def test_without_gpu_prints_one_line_and_exits_0(args):
    out = bench(*args)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [gpu.NO_GPU]
    assert "Traceback" not in out.stderr


def test_no_gpu_answer_in_process(monkeypatch, capsys):
    """The same answer wherever the test runs: the GPU check is what decides it."""
    monkeypatch.delenv(gpu.TF32_ENV, raising=False)  # restored afterwards, whatever run() sets
    monkeypatch.setattr(minigrad.cuda, "is_available", lambda: False)
    assert gpu.run(parse_args(["gpu"])) == 0
    assert capsys.readouterr().out == gpu.NO_GPU + "\n"


# ---- TF32 off ---------------------------------------------------------------------------------------------
def test_tf32_is_turned_off_before_cupy_is_imported(monkeypatch):
    seen = []
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    monkeypatch.setenv(gpu.TF32_ENV, "1")
    monkeypatch.setattr(minigrad.cuda, "is_available", lambda: seen.append(os.environ.get(gpu.TF32_ENV)) or False)
    gpu.run(parse_args(["gpu"]))
    assert seen == ["0"]


class Restarted(Exception):
    pass


def test_restarts_when_cupy_came_first_with_tf32_allowed(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", sys.modules.get("cupy") or object())
    monkeypatch.setenv(gpu.TF32_ENV, "1")
    monkeypatch.setattr(minigrad.cuda, "is_available", lambda: True)

    def restart_with(env):
        raise Restarted(env)
    monkeypatch.setattr(gpu, "restart_with", restart_with)
    with pytest.raises(Restarted) as info:
        gpu.run(parse_args(["gpu"]))
    assert info.value.args[0] == {gpu.TF32_ENV: "0"}


# ---- timing helpers, on a fake GPU clock ----------------------------------------------------------------
class FakeGPU:
    """A GPU clock in ms that only the work 'launched' on it advances; events read it."""

    def __init__(self):
        self.now = 0.0
        self.log = []

    def work(self, ms, name="fn"):
        self.now += ms
        self.log.append(name)

    @property
    def Event(self):
        gpu_ = self

        class Event:
            def __init__(self, enable_timing=False):
                assert enable_timing
                self.t = None

            def record(self, stream=None):
                self.t = gpu_.now
                gpu_.log.append("record")

            def synchronize(self):
                assert self.t is not None

            def elapsed_time(self, end):
                return end.t - self.t
        return Event


def test_event_sample_times_per_call_and_runs_before_outside_the_span():
    g = FakeGPU()
    ms, host_ms = gpu.event_sample(lambda: g.work(0.5), g.Event, 4, before=lambda: g.work(100, "spin"))
    assert ms == pytest.approx(0.5)
    assert host_ms >= 0
    assert g.log == ["spin", "record"] + ["fn"] * 4 + ["record"]


def test_measure_calibrates_calls_and_returns_per_call_ms():
    g = FakeGPU()
    ms = gpu.measure({"a": (lambda: g.work(0.25, "a"), g.Event), "b": (lambda: g.work(1.0, "b"), g.Event)},
                     repeat=3, sample_ms=2.0)
    assert ms == pytest.approx({"a": 0.25, "b": 1.0})
    timed = [name for name in g.log if name != "record"][-(3 * (8 + 2)):]
    assert timed == (["a"] * 8 + ["b"] * 2) * 3  # 2 ms samples, alternating between the names


def test_measure_caps_calls_per_sample():
    g = FakeGPU()
    gpu.measure({"tiny": (lambda: g.work(1e-6), g.Event)}, repeat=1, sample_ms=1000.0, warmup=0)
    assert g.log.count("fn") == 1 + gpu.MAX_CALLS  # the calibration call, then one capped sample


def test_measure_reports_the_median():
    g = FakeGPU()
    costs = iter([1.0] * 3 + [2.0, 1.0, 500.0, 3.0, 1.5])  # 3 warm-up calls, then 5 one-call samples
    ms = gpu.measure({"f": (lambda: g.work(next(costs)), g.Event)}, repeat=5)
    assert ms == {"f": 2.0}


def test_hidden_sample_retries_with_a_longer_spin_when_the_host_falls_behind():
    g = FakeGPU()
    waits = []

    def slow():  # 3 ms of host time per call, 0.1 ms of GPU time
        time.sleep(0.003)
        g.work(0.1)

    def spin(ms):
        waits.append(ms)
        g.work(ms, "spin")

    ms, wait = gpu.hidden_sample(slow, g.Event, 2, spin, 1.0)
    assert ms == pytest.approx(0.1)
    assert waits[0] == 1.0 and len(waits) >= 2 and waits[1] >= 12.0  # 2 calls: >= 6 ms queued, doubled
    assert wait == waits[-1]
    assert g.log[:2] == ["spin", "record"]


def test_measure_passes_the_spin_on():
    g = FakeGPU()
    spun = []
    ms = gpu.measure({"f": (lambda: g.work(0.5), g.Event)}, repeat=2, sample_ms=1.0,
                     spin=lambda ms: spun.append(ms))
    assert ms == {"f": pytest.approx(0.5)}
    assert len(spun) == 3 and all(w >= 1.0 for w in spun)  # calibration sample + 2 timed samples


# ---- units ---------------------------------------------------------------------------------------------------
def test_units():
    assert gpu.tflops(2 * 1024 ** 3, 1.0) == pytest.approx(2.147483648)  # 2n^3 flops in 1 ms
    assert gpu.gb_per_s(3 * 256 * gpu.MIB, 0.5) == pytest.approx(3 * 256 * 2 ** 20 / 0.5e-3 / 1e9)
    assert gpu.cuda_version(13000) == "13.0" and gpu.cuda_version(12080) == "12.8"


def test_rel_err_is_relative_to_the_largest_reference_value():
    ref = np.array([[4.0, -8.0], [2.0, 1.0]])
    x = (ref + np.array([[0.0, 0.0], [0.4, 0.0]])).astype(np.float32)
    assert gpu.rel_err(x, ref) == pytest.approx(0.4 / 8.0, rel=1e-6)
    assert gpu.rel_err(ref.astype(np.float32), ref) == 0.0
    assert np.isnan(gpu.rel_err(np.full((2, 2), np.nan), ref))


def test_targets_are_the_issues():
    assert gpu.SGEMM_TARGET == {1024: 0.75, 4096: 0.90, 8192: 0.90}
    assert (gpu.SGEMM_TOL, gpu.EW_TARGET, gpu.MLP_TARGET) == (1e-5, 0.95, 1.0)
    assert gpu.EW_MIB >= 256 and set(gpu.SGEMM_SIZES) == set(gpu.SGEMM_TARGET)


# ---- the spin kernel compiles (checked without a GPU) ---------------------------------------------------
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_spin_kernel_compiles(arch):
    nvrtc = pytest.importorskip("cuda.bindings.nvrtc",
                                reason="needs the test extra's cuda-bindings + nvidia-cuda-nvrtc")
    err, prog = nvrtc.nvrtcCreateProgram(gpu.SPIN_SOURCE.encode(), b"spin.cu", 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    opts = [b"--std=c++17", f"--gpu-architecture={arch}".encode()]
    result, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    _, size = nvrtc.nvrtcGetProgramLogSize(prog)
    # a fresh buffer for NVRTC to write into: b" " * 1 is CPython's shared b" ", and an empty log
    # (size 1, the NUL) turned every b" " in the process into b"\x00" (later pickles misread)
    log = bytes(size)
    nvrtc.nvrtcGetProgramLog(prog, log)
    nvrtc.nvrtcDestroyProgram(prog)
    assert result == nvrtc.nvrtcResult.NVRTC_SUCCESS, log.decode(errors="replace")


# ---- the whole benchmark on the emulated GPU -----------------------------------------------------------------
# tests/cuda_emulation.py stands in for CuPy and the GPU (NumPy models of the kernels, plus the
# CuPy built-ins the benchmark measures against), so the benchmark's own code runs from start to
# end without a GPU: its sections, tables, checks and exit status. The numbers mean nothing.
TESTS = ROOT / "tests"
BROKEN_BACKEND = """
import sys
import minigrad
from minigrad.backends import cuda_backend
from minigrad.bench import gpu
from minigrad.bench.__main__ import parse_args

class Broken:  # the backend with a GEMM off by 0.1% and an add off by one
    def __init__(self, be):
        self.be = be
    def __getattr__(self, name):
        return getattr(self.be, name)
    def matmul(self, a, b):
        return self.be.matmul(a, b) * 1.001
    def add(self, a, b):
        return self.be.add(a, b) + 1

for_device = cuda_backend.for_device
cuda_backend.for_device = lambda index: Broken(for_device(index))
sys.exit(gpu.run(parse_args(["gpu", "--quick", "--repeat", "1"])))
"""
MLP_WITH_MINIGRAD_AS_REFERENCE = """
import minigrad
from minigrad.bench import gpu
assert gpu.mlp_section(minigrad, minigrad, 2, 1.0)
assert gpu.host_section(minigrad, minigrad, 3, 2)
"""


def emulated(args, tmp_path, timeout=300):
    """Runs `python -m ...` args, or a script's text, on the emulated GPU with the benchmark's
    CuPy built-ins; NumPy models only (the compiled kernels would take minutes on the GEMMs)."""
    if isinstance(args, str):
        script = tmp_path / "driver.py"
        script.write_text(args)
        args = [str(script)]
    env = {k: v for k, v in os.environ.items()
           if k not in ("MINIGRAD_EMULATED_CUDA_KERNELS", "MINIGRAD_EMULATED_CUDA", gpu.TF32_ENV)}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    out = subprocess.run([sys.executable, str(TESTS / "emulated_run.py"), "--bench-builtins", *args], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=timeout)
    return out.returncode, out.stdout, out.stderr


def table_rows(text, heading):
    """The rows of the first table after the line starting with heading, as lists of cells."""
    lines = text[text.index(heading):].splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("|"))
    rows = []
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        rows.append([c.strip() for c in ln.strip("|").split("|")])
    return rows


def test_quick_run_on_the_emulated_gpu(tmp_path):
    rc, out, err = emulated(["-m", "minigrad.bench", "gpu", "--quick", "--repeat", "2"], tmp_path)
    assert rc == 0, out + err
    for marker in ("ERROR", "WRONG", "DISAGREE", "Traceback", "nan"):
        assert marker not in out + err
    # CuPy was imported before the benchmark ran (the emulation put it there), so it restarted
    # itself with TF32 off
    assert "off: CUPY_TF32=0 set before CuPy was imported" in out
    assert out.count("## GPU: minigrad's CUDA backend") == 1
    sgemm = table_rows(out, "### SGEMM")
    assert [r[0] for r in sgemm] == [str(n) for n in gpu.SGEMM_SIZES_QUICK]
    assert [r[7] for r in sgemm] == ["info", "PASS" if float(sgemm[1][5]) >= 0.75 else "MISS"]
    assert all(float(r[8]) <= gpu.SGEMM_TOL for r in sgemm)
    dgemm = table_rows(out, "### DGEMM")
    assert [r[0] for r in dgemm] == [str(n) for n in gpu.DGEMM_SIZES_QUICK]
    assert all(float(r[8]) <= gpu.DGEMM_TOL for r in dgemm)
    ew = table_rows(out, "### Elementwise")
    assert [r[0] for r in ew] == ["copy (cudaMemcpyAsync D2D)", "add", "mul", "relu"]
    assert [r[1] for r in ew] == ["32 MiB", "48 MiB", "48 MiB", "32 MiB"]  # 16 MiB tensors
    assert all(r[8] == "0.0e+00" for r in ew[1:])
    seed, = table_rows(out, "### Seed 003")
    assert seed[0] == "1000x1000 @ 1000x1000" and seed[3].endswith("x") and float(seed[4]) <= gpu.SGEMM_TOL
    assert "### MLP 784-256-10 training step" in out
    host, = table_rows(out, "### MLP 784-256-10 step (seed loop), host side")   # no CUDA torch here
    assert host[0] == "minigrad" and host[4] == "14"   # test_cuda_emulated lists the 14 launches
    assert 0 < float(host[1]) <= float(host[2]) and 0 < float(host[3]) <= 1   # queuing is part of finishing
    prof = table_rows(out, "minigrad's step under cProfile")
    assert len(prof) == gpu.PROFILE_TOP
    own = [float(r[2]) for r in prof]
    assert own == sorted(own, reverse=True) and all(float(r[1]) > 0 and float(r[3]) >= float(r[2]) for r in prof)
    packages = dict(kv.rsplit(" ", 1) for kv in out.split("own µs/step by package: ")[1].splitlines()[0].split(", "))
    assert float(packages["minigrad"]) > 0 and float(packages["built-ins"]) > 0


def test_profile_rows_group_own_time_by_package():
    assert gpu._package("~") == "built-ins"
    assert gpu._package("/x/site-packages/minigrad/backends/cuda_backend.py") == "minigrad"
    assert gpu._package("/x/site-packages/cupy/_core/core.pyx") == "cupy"
    assert gpu._package("/x/site-packages/cupy_backends/cuda/api/runtime.pyx") == "cupy"
    assert gpu._package("/x/lib/python3.12/heapq.py") == "other"
    rows, by_package = gpu.profile_rows(lambda: sorted([3, 1, 2]), 10, 10)
    assert any(name.endswith(":<lambda>") and per_call == 1.0 for name, per_call, _, _ in rows)
    assert by_package["built-ins"] > 0 and by_package["other"] > 0   # sorted; the lambda (this file)


def test_emulated_run_catches_wrong_results_and_exits_1(tmp_path):
    rc, out, err = emulated(BROKEN_BACKEND, tmp_path)
    assert rc == 1, out + err
    assert "Traceback" not in err
    assert all(r[8].endswith("WRONG") for r in table_rows(out, "### SGEMM"))
    assert all(r[8].endswith("WRONG") for r in table_rows(out, "### DGEMM"))
    ew = {r[0]: r[8] for r in table_rows(out, "### Elementwise")}
    assert ew["add"] == "1.0e+00 WRONG" and ew["mul"] == ew["relu"] == "0.0e+00"


def test_mlp_section_on_the_emulated_gpu(tmp_path):
    """Part 4 needs a CUDA build of torch; minigrad stands in for it here, so both columns time
    minigrad and must agree exactly."""
    rc, out, err = emulated(MLP_WITH_MINIGRAD_AS_REFERENCE, tmp_path)
    assert rc == 0, out + err
    rows = table_rows(out, "### MLP 784-256-10 training step")
    assert [r[0] for r in rows] == [gpu.cpu.BY_NAME[name].title for name in gpu.MLP_WORKLOADS]
    for name, r in zip(gpu.MLP_WORKLOADS, rows):
        assert float(r[1]) > 0 and float(r[2]) > 0 and r[6] == "0.0e+00"
        if name in gpu.UNTARGETED:  # the Adam row: timed and checked, without a target
            assert r[4:6] == ["-", "-"]
        else:
            assert r[4] == f"<= {gpu.MLP_TARGET}" and r[5] in ("PASS", "MISS")
    host = table_rows(out, "### MLP 784-256-10 step (seed loop), host side")
    assert [r[0] for r in host] == ["minigrad", "PyTorch"] and [r[4] for r in host] == ["14", "14"]


def test_mlp_section_reports_a_nan_as_disagreement(monkeypatch, capsys):
    """A NaN anywhere in the 5-step trajectory is a disagreement, even after finite values."""
    class Lib:
        def __init__(self, name):
            self.name = name
            self.cuda = self
            self.Event = None
    runs = {"minigrad": [np.array([1.0, 2.0]), np.array([np.nan])],
            "torch": [np.array([1.0, 2.0]), np.array([0.5])]}
    monkeypatch.setattr(gpu.cpu, "trajectory", lambda workload, lib, data, device: runs[lib.name])
    monkeypatch.setattr(gpu, "measure", lambda steps, repeat, sample_ms: {"minigrad": 1.0, "torch": 2.0})
    for name in gpu.MLP_WORKLOADS:
        fake = dataclasses.replace(gpu.cpu.BY_NAME[name], build=lambda lib, data, device: (None, []))
        monkeypatch.setitem(gpu.cpu.BY_NAME, name, fake)
    assert gpu.mlp_section(Lib("minigrad"), Lib("torch"), 1, 1.0) is False
    rows = table_rows(capsys.readouterr().out, "### MLP")
    assert [r[6] for r in rows] == ["nan DISAGREE"] * len(gpu.MLP_WORKLOADS)
    assert [r[3] for r in rows] == ["0.50"] * len(gpu.MLP_WORKLOADS)


# ---- on a GPU ----------------------------------------------------------------------------------------------------
@needs_gpu
def test_quick_run_on_gpu():
    out = bench("gpu", "--quick", "--repeat", "2", timeout=600)
    text = out.stdout
    assert out.returncode == 0, text + out.stderr
    for marker in ("ERROR", "WRONG", "DISAGREE", "Traceback"):
        assert marker not in text + out.stderr
    for section in ("### SGEMM", "### DGEMM", "### Elementwise", "### Seed 003", "| GPU |", "CUPY_TF32=0"):
        assert section in text
    assert "| 1024 |" in text and "| copy (cudaMemcpyAsync D2D) |" in text
