"""`.ci/gpu`, the checks a machine with a GPU runs: its arguments, its answer where there is no
GPU, and its stages on the emulated GPU of tests/cuda_emulation.py. There a `python` that starts
every program under tests/emulated_run.py stands in for the GPU machine's, and a stand-in
compute-sanitizer records its options and runs the program it was given."""
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import minigrad

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
SCRIPT = ROOT / ".ci" / "gpu"
HAS_GPU = minigrad.cuda.is_available()

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a bash script")


def executable(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def run(args, tmp_path, python=sys.executable, extra_path=None, **env_extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("MINIGRAD_EMULATED_CUDA", "MINIGRAD_EMULATED_CUDA_KERNELS", "PYTEST_ADDOPTS")}
    env.update(PYTHON=str(python), **env_extra)
    if extra_path:
        env["PATH"] = f"{extra_path}{os.pathsep}{env['PATH']}"
    return subprocess.run(["bash", str(SCRIPT), "--out", str(tmp_path / "logs"), *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)


def test_help_lists_the_stages(tmp_path):
    out = run(["--help"], tmp_path)
    assert out.returncode == 0
    for stage in ("env", "tests", "memcheck", "racecheck", "bench-quick", "bench"):
        assert f"\n  {stage} " in out.stdout


def test_unknown_argument_is_refused(tmp_path):
    out = run(["benchmark"], tmp_path)
    assert out.returncode == 2
    assert "unknown argument: benchmark" in out.stderr


@pytest.mark.skipif(HAS_GPU, reason="this machine has a GPU: the no-GPU answers cannot be seen here")
def test_without_a_gpu_env_and_tests_fail_and_say_why(tmp_path):
    out = run(["env", "tests"], tmp_path, PYTEST_ADDOPTS="-k 'cuda and relu'")
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert any(ln.startswith("== env: FAIL") and "no CUDA GPU for minigrad here" in ln for ln in lines), lines
    assert any(ln.startswith("== tests: FAIL") for ln in lines), lines  # the cuda cases were all skipped
    tests_log = (tmp_path / "logs" / "tests.log").read_text()
    assert "this run did not test the CUDA backend" in tests_log


def test_stages_on_the_emulated_gpu(tmp_path):
    python = executable(tmp_path / "python-emulated", f"#!/bin/sh\nexec '{sys.executable}' "
                        f"'{TESTS / 'emulated_run.py'}' --bench-builtins \"$@\"\n")
    tools = tmp_path / "bin"
    tools.mkdir()
    calls = tmp_path / "sanitizer-calls"
    executable(tools / "compute-sanitizer", f"""#!/bin/sh
echo "$* | caching off: ${{MINIGRAD_NO_CUDA_MEMORY_CACHING:-no}}" >> '{calls}'
while [ $# -gt 0 ]; do case "$1" in --*) shift 2 ;; *) break ;; esac; done
exec "$@"
""")
    out = run(["env", "tests", "memcheck", "racecheck", "bench-quick"], tmp_path, python=python,
              extra_path=tools, PYTHONPATH=str(TESTS), PYTEST_ADDOPTS="-k 'cuda and relu'",
              MINIGRAD_GPU_TEST_WORKERS="1")  # xdist's workers would start without the emulation
    text = out.stdout + out.stderr
    assert out.returncode == 0, text + "".join(p.read_text()[-3000:] for p in (tmp_path / "logs").glob("*.log"))
    lines = out.stdout.splitlines()
    for stage in ("env", "tests", "memcheck", "racecheck", "bench-quick"):
        assert any(ln.startswith(f"== {stage}: PASS") for ln in lines), lines
    logs = tmp_path / "logs"
    assert "cuda:0: Emulated GPU" in (logs / "env.log").read_text()
    assert " passed" in (logs / "tests.log").read_text()
    assert "### SGEMM" in (logs / "bench-quick.log").read_text()
    calls = calls.read_text().splitlines()
    assert [ln.split()[1] for ln in calls] == ["memcheck", "racecheck", "synccheck"]
    assert all("--error-exitcode 99" in ln for ln in calls)
    # memcheck runs with one allocation per array, so that it sees each array's end
    assert [ln.rsplit(": ", 1)[1] for ln in calls] == ["1", "no", "no"]


def test_a_failing_stage_fails_the_run_and_the_rest_still_run(tmp_path):
    """A sanitizer that reports errors (exit 99) fails its stage; the next stage still runs."""
    tools = tmp_path / "bin"
    tools.mkdir()
    executable(tools / "compute-sanitizer", "#!/bin/sh\necho '========= ERROR SUMMARY: 3 errors'\nexit 99\n")
    out = run(["memcheck", "env"], tmp_path, extra_path=tools)
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert any(ln.startswith("== memcheck: FAIL (exit 99)") and "ERROR SUMMARY: 3 errors" in ln for ln in lines), lines
    assert any(ln.startswith("== env: ") for ln in lines), lines
