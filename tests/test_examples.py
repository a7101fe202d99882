"""The example programs run to the end and print what they should.

Each example runs as a subprocess of the current interpreter in a temporary directory, with
small flags where its default run is long; the checks read its printed output and files.
"""
import json
import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import minigrad

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
HAS_CUDA = minigrad.cuda.is_available()
SVG = "{http://www.w3.org/2000/svg}"


# Inside the emulated CUDA run (test_cuda_emulated.py's example driver) each example starts with
# the emulated CuPy installed too, so its `cuda` path runs: minigrad.cuda.is_available() is
# True there, as in this process.
EMULATED = os.environ.get("MINIGRAD_EMULATED_CUDA") == "1"


def run_example(name, *args, cwd):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.pop("MINIGRAD_EMULATED_CUDA_REPORT", None)  # the report is this process's
    start = [str(ROOT / "tests" / "emulated_run.py")] if EMULATED else []
    proc = subprocess.run([sys.executable, *start, str(EXAMPLES / name), *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, timeout=300)
    # decoded by hand: text mode would turn the progress bar's '\r' into '\n'
    proc.stdout, proc.stderr = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 0, f"{name} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def floats_after(label, text):
    return [float(m) for m in re.findall(re.escape(label) + r"\s*(-?[0-9.]+(?:e[-+]?\d+)?)", text)]


def test_linear_regression_learns_y_equals_2x(tmp_path):
    # lr 0.1 shrinks the slowest direction of this problem by 2.4% a step, so 500 steps converge
    out = run_example("linear_regression.py", "--epochs", 500, "--lr", 0.1, cwd=tmp_path).stdout
    epochs = re.findall(r"Epoch \[(\d+)/500\], Loss: ([0-9.]+)", out)
    assert [int(e) for e, _ in epochs] == list(range(1, 501, 50))
    assert float(epochs[-1][1]) < float(epochs[0][1])
    weight, bias = re.search(r"Learned weight: (-?[0-9.]+), bias: (-?[0-9.]+)", out).groups()
    assert abs(float(weight) - 2) < 0.01 and abs(float(bias)) < 0.02
    assert floats_after("Final loss:", out)[0] < 1e-4
    assert abs(floats_after("Prediction for x = 4:", out)[0] - 8) < 0.05


def test_linear_regression_default_run_is_the_tutorials(tmp_path):
    out = run_example("linear_regression.py", cwd=tmp_path).stdout
    assert re.findall(r"Epoch \[(\d+)/1000\]", out) == [str(e) for e in range(1, 1001, 100)]
    assert floats_after("Final loss:", out)[0] < 0.1


def test_mlp_data_parallel_cpu_replicas_match_the_plain_model(tmp_path):
    plain = run_example("mlp_data_parallel.py", "--epochs", 30, cwd=tmp_path).stdout
    if minigrad.cuda.device_count() <= 1:
        assert "Single device:" in plain
    replicas = run_example("mlp_data_parallel.py", "--epochs", 30, "--cpu-replicas", cwd=tmp_path).stdout
    if minigrad.cuda.device_count() <= 1:
        assert "DataParallel over cpu, cpu" in replicas
        # same seed, same weights, same batch: the two halves through two replicas give the
        # same losses as the whole batch through one model, up to float32 rounding
        a, b = floats_after("Loss:", plain), floats_after("Loss:", replicas)
        assert len(a) == len(b) == 10
        assert np.allclose(a, b, atol=2e-3)
    if minigrad.cuda.device_count() > 1:   # the tutorial's own multi-GPU path
        ids = ", ".join(str(i) for i in range(minigrad.cuda.device_count()))
        assert f"DataParallel over {ids}" in plain
    losses = floats_after("Loss:", replicas)
    assert losses[-1] < losses[0] - 0.1
    assert floats_after("Final loss:", replicas)[0] < losses[0]


def test_sequential_train_loader_learns_the_rule(tmp_path):
    out = run_example("sequential_train_loader.py", "--epochs", 8, cwd=tmp_path).stdout
    means = floats_after("mean loss:", out)
    assert len(means) == 8 and means[-1] < means[0]
    assert floats_after("Accuracy after training:", out)[0] >= 0.9


def test_lua_torch_mlp_updates_the_parameters(tmp_path):
    out = run_example("lua_torch_mlp.py", "--iterations", 200, cwd=tmp_path).stdout
    means = floats_after("mean loss of the last 20:", out)
    assert len(means) == 10 and all(math.isfinite(m) and m > 0 for m in means)
    assert floats_after("Total absolute change of the parameters:", out)[0] > 0


def test_device_basics(tmp_path):
    out = run_example("device_basics.py", cwd=tmp_path).stdout
    assert f"torch.cuda.is_available(): {HAS_CUDA}" in out
    assert "y = x ** 2 = tensor([1, 4, 9]" in out
    assert "net(x) = tensor([[" in out and "grad_fn=<AddmmBackward0>" in out
    if HAS_CUDA:
        assert "device='cuda:0'" in out and "raises RuntimeError" in out
    else:
        assert "skipped (no CUDA GPU)" in out and "cuda" not in out.split("net(x) =")[1]


def test_matmul_cpu_vs_gpu(tmp_path):
    out = run_example("matmul_cpu_vs_gpu.py", "--size", 300, "--repeat", 2, cwd=tmp_path).stdout
    assert floats_after("float32 matrices:", out)[0] > 0
    if HAS_CUDA:
        assert floats_after("Speed-up of the GPU over the CPU:", out)[0] > 0
        assert floats_after("Largest difference between the two results:", out)[0] < 1e-2
    else:
        assert "GPU: skipped" in out


def test_mnist_data_file():
    with np.load(EXAMPLES / "data" / "mnist_5k.npz", allow_pickle=False) as data:
        images, labels = data["images"], data["labels"]
    assert images.shape == (5000, 784) and images.dtype == np.uint8
    assert labels.shape == (5000,) and np.bincount(labels).tolist() == [500] * 10
    assert images.max() == 255 and (images > 0).mean() > 0.1   # digits, not blank


def test_mnist_mlp_default_run(tmp_path):
    proc = run_example("mnist_mlp.py", cwd=tmp_path)
    out, err = proc.stdout, proc.stderr
    accuracy = floats_after("Held-out accuracy:", out)[0]
    assert accuracy >= 0.90, out
    assert "4000 training and 1000 held-out images" in out
    assert f"Training on {'cuda' if HAS_CUDA else 'cpu'}" in out
    assert len(floats_after("mean loss:", out)) == 5

    # the progress bar: redrawn in place on stderr, every epoch to its last batch (4000 / 64)
    lines = [line for line in err.split("\n") if line.startswith("\r")]
    assert len(lines) == 5
    for epoch, line in enumerate(lines, start=1):
        redraws = line.split("\r")[1:]
        assert len(redraws) == 63 + 1   # after every batch, then the epoch's summary
        assert all(r.startswith(f"epoch {epoch}/5 |") and r.endswith("it/s") for r in redraws[:-1])
        assert redraws[0].startswith(f"epoch {epoch}/5 |{'-' * 30}| 1/63 loss ")
        assert redraws[-1].startswith(f"epoch {epoch}/5 |{'#' * 30}| 63/63 mean loss ")

    root = ET.parse(tmp_path / "mnist_loss.svg").getroot()
    assert root.tag == SVG + "svg"
    steps, means = root.findall(SVG + "polyline")
    assert len(steps.get("points").split()) == 5 * 63
    assert len(means.get("points").split()) == 5
    labels = [t.text for t in root.iter(SVG + "text")]
    assert "training step (batch)" in labels and "cross-entropy loss" in labels


def test_mnist_mlp_flags(tmp_path):
    proc = run_example("mnist_mlp.py", "--epochs", 1, "--no-progress", "--plot", "curve.svg",
                       "--save", "mlp.pt", cwd=tmp_path)
    assert proc.stderr == ""
    assert not (tmp_path / "mnist_loss.svg").exists()
    steps, means = ET.parse(tmp_path / "curve.svg").getroot().findall(SVG + "polyline")
    assert len(steps.get("points").split()) == 63 and len(means.get("points").split()) == 1
    assert floats_after("Held-out accuracy:", proc.stdout)[0] > 0.5
    state = minigrad.load(tmp_path / "mlp.pt")
    assert {k: tuple(v.shape) for k, v in state.items()} == {
        "fc1.weight": (256, 784), "fc1.bias": (256,), "fc2.weight": (10, 256), "fc2.bias": (10,)}


TORCH_RUNNER = r"""
import contextlib, io, json, runpy, sys
import torch, torch.nn, torch.optim, torch.utils.data
for name, module in [("minigrad", torch), ("minigrad.nn", torch.nn), ("minigrad.optim", torch.optim),
                     ("minigrad.utils", torch.utils), ("minigrad.utils.data", torch.utils.data)]:
    sys.modules[name] = module
outputs = {}
for path, *args in json.loads(sys.argv[1]):
    sys.argv = [path, *args]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(path, run_name="__main__")
    outputs[path] = out.getvalue()
print(json.dumps(outputs))
"""


def test_examples_are_pytorch_programs(tmp_path):
    # with minigrad's modules replaced by torch's, every example runs as it is under PyTorch
    pytest.importorskip("torch")
    runs = [["linear_regression.py", "--epochs", "500", "--lr", "0.1"],
            ["mlp_data_parallel.py", "--epochs", "10"],
            ["sequential_train_loader.py", "--epochs", "8"],
            ["lua_torch_mlp.py", "--iterations", "100"],
            ["device_basics.py"],
            ["matmul_cpu_vs_gpu.py", "--size", "100", "--repeat", "1"],
            ["mnist_mlp.py", "--epochs", "1", "--no-progress"]]
    runs = [[str(EXAMPLES / name), *args] for name, *args in runs]
    proc = subprocess.run([sys.executable, "-c", TORCH_RUNNER, json.dumps(runs)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    outputs = {Path(path).name: out for path, out in json.loads(proc.stdout).items()}
    assert len(outputs) == len(runs)
    weight = float(re.search(r"Learned weight: (-?[0-9.]+)", outputs["linear_regression.py"]).group(1))
    assert abs(weight - 2) < 0.01
    assert floats_after("Accuracy after training:", outputs["sequential_train_loader.py"])[0] >= 0.9
    assert floats_after("Held-out accuracy:", outputs["mnist_mlp.py"])[0] > 0.5
    assert (tmp_path / "mnist_loss.svg").exists()
