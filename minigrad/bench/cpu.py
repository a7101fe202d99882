"""minigrad against PyTorch on the CPU: op chain, linear regression, MLP 784-256-10.

The first three workloads write the model with tensor ops and a hand-written SGD update;
the `nn_` ones are the seed programs' loops as written, with nn.Module, nn.Linear, the loss
module and optim.SGD; `nn_mlp_adam` is the same MLP loop with optim.Adam, a row without a
target (no issue sets one) that times the fused optimizer update against torch's.

Each workload is written once against a library module ``lib`` (``minigrad`` or ``torch``,
whose APIs match), from the same NumPy-generated initial values. Before timing, both
libraries run a few steps and their losses, parameters and gradients are compared, so the
table cannot silently compare two different computations.
"""
import math
import os
import statistics
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from . import THREAD_VARS, command_line, machine_lines, measure_steps, numpy_blas_threads, steps_for

SEED = 0
LR = 0.01  # the seeds' SGD learning rate
ADAM_LR = 1e-3  # torch.optim.Adam's default
CHECK_STEPS = 5
AGREE_TOL = 1e-4  # float32, values of order 1: only a different computation exceeds this


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    target: Optional[float]  # the ceiling for the minigrad/PyTorch time ratio; None: no target
    make_data: Callable  # rng -> dict of NumPy arrays, the same for both libraries
    build: Callable  # (lib, data, device) -> (step, params); step() trains once, returns the loss


def op_chain_data(rng):
    return {k: rng.standard_normal(3).astype(np.float32) for k in "abc"}


def op_chain(lib, data, device="cpu"):
    a, b, c = (lib.tensor(data[k], device=device, requires_grad=True) for k in "abc")

    def step():
        a.grad = b.grad = c.grad = None
        out = ((a * b + c).relu() ** 2).sum()
        out.backward()
        return out
    return step, [a, b, c]


def linear_init(rng, fan_out, fan_in):
    """nn.Linear's default: weight and bias uniform in +-1/sqrt(fan_in)."""
    bound = 1 / math.sqrt(fan_in)
    weight = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
    return weight, rng.uniform(-bound, bound, fan_out).astype(np.float32)


def sgd(lib, params, lr):
    with lib.no_grad():
        for p in params:
            p -= lr * p.grad


def linreg_data(rng):
    w, b = linear_init(rng, 1, 1)
    return {"x": np.array([[1.0], [2.0], [3.0]], np.float32),
            "y": np.array([[2.0], [4.0], [6.0]], np.float32), "w": w, "b": b}


def linreg(lib, data, device="cpu", lr=LR):
    x, y = (lib.tensor(data[k], device=device) for k in "xy")
    params = [lib.tensor(data[k], device=device, requires_grad=True) for k in "wb"]
    w, b = params

    def step():
        w.grad = b.grad = None
        out = x @ w.t() + b
        loss = ((out - y) ** 2).mean()
        loss.backward()
        sgd(lib, params, lr)
        return loss
    return step, params


def mlp_data(rng, batch=64):
    w1, b1 = linear_init(rng, 256, 784)
    w2, b2 = linear_init(rng, 10, 256)
    return {"x": rng.standard_normal((batch, 784)).astype(np.float32),
            "y": rng.integers(0, 10, batch).astype(np.int64),
            "w1": w1, "b1": b1, "w2": w2, "b2": b2}


def mlp(lib, data, device="cpu", lr=LR):
    x, y = (lib.tensor(data[k], device=device) for k in "xy")
    rows = lib.arange(len(data["y"]), device=device)
    params = [lib.tensor(data[k], device=device, requires_grad=True) for k in ("w1", "b1", "w2", "b2")]
    w1, b1, w2, b2 = params

    def step():
        for p in params:
            p.grad = None
        h = (x @ w1.t() + b1).relu()
        logits = h @ w2.t() + b2
        loss = -lib.log_softmax(logits, dim=1)[rows, y].mean()  # cross-entropy
        loss.backward()
        sgd(lib, params, lr)
        return loss
    return step, params


def _nn(lib):
    """lib.nn and lib.optim, imported (minigrad's are subpackages loaded on demand)."""
    import importlib
    return (importlib.import_module(lib.__name__ + ".nn"), importlib.import_module(lib.__name__ + ".optim"))


def _load(lib, param, array, device):
    with lib.no_grad():
        param.copy_(lib.tensor(array, device=device))


def _seed_loop(lib, model, criterion, optimizer, data, device):
    """The seeds' training step, as written there, over data["x"], data["y"]."""
    x, y = (lib.tensor(data[k]).to(device) for k in "xy")

    def step():
        optimizer.zero_grad()
        outputs = model(x)
        loss = criterion(outputs, y)
        loss.backward()
        optimizer.step()
        return loss
    return step, list(model.parameters())


def nn_linreg(lib, data, device="cpu", lr=LR):
    """Seed 000's linear regression loop, unchanged."""
    nn, optim = _nn(lib)

    class LinearRegression(nn.Module):
        def __init__(self):
            super(LinearRegression, self).__init__()
            self.linear = nn.Linear(1, 1)

        def forward(self, x):
            return self.linear(x)

    model = LinearRegression()
    _load(lib, model.linear.weight, data["w"], "cpu")
    _load(lib, model.linear.bias, data["b"], "cpu")
    model.to(device)
    return _seed_loop(lib, model, nn.MSELoss(), optim.SGD(model.parameters(), lr=lr), data, device)


def _seed_mlp(lib, data, device):
    """Seed 000's NeuralNetwork 784-256-10 (without DataParallel: one device), from data's values."""
    nn, _ = _nn(lib)

    class NeuralNetwork(nn.Module):
        def __init__(self):
            super(NeuralNetwork, self).__init__()
            self.fc1 = nn.Linear(784, 256)
            self.fc2 = nn.Linear(256, 10)

        def forward(self, x):
            x = lib.relu(self.fc1(x))
            x = self.fc2(x)
            return x

    model = NeuralNetwork()
    for name in ("fc1", "fc2"):
        layer = getattr(model, name)
        _load(lib, layer.weight, data["w" + name[-1]], "cpu")
        _load(lib, layer.bias, data["b" + name[-1]], "cpu")
    return model.to(device)


def nn_mlp(lib, data, device="cpu", lr=LR):
    """Seed 000's NeuralNetwork 784-256-10 loop, unchanged (without DataParallel: one device)."""
    nn, optim = _nn(lib)
    model = _seed_mlp(lib, data, device)
    return _seed_loop(lib, model, nn.CrossEntropyLoss(), optim.SGD(model.parameters(), lr=lr), data, device)


def nn_mlp_adam(lib, data, device="cpu", lr=ADAM_LR):
    """nn_mlp's loop with optim.Adam in place of optim.SGD."""
    nn, optim = _nn(lib)
    model = _seed_mlp(lib, data, device)
    return _seed_loop(lib, model, nn.CrossEntropyLoss(), optim.Adam(model.parameters(), lr=lr), data, device)


WORKLOADS = [
    Workload("opchain", "op chain ((a*b+c).relu()**2).sum(), 3 elements", 0.5, op_chain_data, op_chain),
    Workload("linreg", "linear regression 1-1, 3 samples, SGD", 0.33, linreg_data, linreg),
    Workload("mlp", "MLP 784-256-10, batch 64, cross-entropy, SGD", 0.8, mlp_data, mlp),
    Workload("nn_linreg", "seed loop: nn.Linear(1, 1), MSELoss, optim.SGD, 3 samples", 0.33,
             linreg_data, nn_linreg),
    Workload("nn_mlp", "seed loop: MLP 784-256-10 (nn.Linear), CrossEntropyLoss, optim.SGD, batch 64",
             0.8, mlp_data, nn_mlp),
    Workload("nn_mlp_adam", "seed loop: MLP 784-256-10 (nn.Linear), CrossEntropyLoss, optim.Adam, batch 64",
             None, mlp_data, nn_mlp_adam),
]
BY_NAME = {w.name: w for w in WORKLOADS}


def trajectory(workload, lib, data, steps=CHECK_STEPS, device="cpu"):
    """Losses of `steps` steps, then the final parameters and gradients, as float64 arrays."""
    step, params = workload.build(lib, data, device)
    losses = [step().item() for _ in range(steps)]
    arrays = [np.array(losses)]
    arrays += [p.detach().cpu().numpy() for p in params]
    arrays += [p.grad.cpu().numpy() for p in params]
    return [a.astype(np.float64) for a in arrays]


def max_abs_diff(workload, lib_a, lib_b, data):
    return array_diff(trajectory(workload, lib_a, data), trajectory(workload, lib_b, data))


def array_diff(want, got):
    """Max abs difference of two lists of arrays: infinite where the shapes differ (broadcasting
    must not hide that), NaN where either side has one (np.max keeps a NaN that Python's max
    drops when it comes after a finite value)."""
    if len(want) != len(got) or any(a.shape != b.shape for a, b in zip(want, got)):
        return float("inf")
    return float(np.max([np.max(np.abs(a - b)) for a, b in zip(want, got)]))


def time_workload(workload, libs, data, repeat, target_s):
    """(median seconds per step, median minor page faults per step or None) for each library.
    Repeats alternate between the libraries so that a change in machine load hits both alike;
    each repeat starts from the same values."""
    counts = {name: steps_for(workload.build(lib, data)[0], target_s) for name, lib in libs.items()}
    samples = {name: [] for name in libs}
    for _ in range(repeat):
        for name, lib in libs.items():
            step = workload.build(lib, data)[0]
            for _ in range(3):
                step()
            samples[name].append(measure_steps(step, counts[name]))
    out = {}
    for name, s in samples.items():
        faults = [f for _, f in s]
        out[name] = (statistics.median(t for t, _ in s),
                     None if None in faults else statistics.median(faults))
    return out


def profile(workloads, lib, steps):
    import cProfile
    import pstats
    for workload in workloads:
        step = workload.build(lib, workload.make_data(np.random.default_rng(SEED)))[0]
        for _ in range(10):
            step()
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(steps):
            step()
        profiler.disable()
        print(f"\n### cProfile: minigrad {workload.title}, {steps} steps, top 25 by tottime")
        pstats.Stats(profiler).strip_dirs().sort_stats("tottime").print_stats(25)


def positive_int(text):
    n = int(text)
    if n < 1:
        raise ValueError(text)
    return n


def add_timing_arguments(parser, names, default_help="default all"):
    """--threads, --repeat, --quick and --workload (one of names): the options of every CPU timing command."""
    parser.add_argument("--threads", type=positive_int, default=1,
                        help="threads for NumPy and PyTorch (BLAS/OpenMP env vars, torch.set_num_threads); default 1")
    parser.add_argument("--repeat", type=positive_int, default=None,
                        help="timed repeats per engine and workload, median reported (default 7, 3 with --quick)")
    parser.add_argument("--quick", action="store_true", help="short runs, a few seconds in all (smoke test)")
    parser.add_argument("--workload", action="append", choices=list(names),
                        help=f"run only this workload (repeatable); {default_help}")


def add_arguments(parser):
    add_timing_arguments(parser, BY_NAME, "default all, opchain+linreg with --profile")
    parser.add_argument("--profile", action="store_true",
                        help="instead of timing, cProfile minigrad's loops and print the top 25 functions by tottime")


def thread_report(torch):
    env = " ".join(f"{var}={os.environ.get(var, 'unset')}" for var in THREAD_VARS[:3])
    blas = numpy_blas_threads()
    used = [f"numpy BLAS {blas if blas is not None else '?'}"]
    if torch:
        used.append(f"torch {torch.get_num_threads()}")
    return f"{env}; in use: " + ", ".join(used)


def _fmt_us(seconds):
    return "-" if seconds is None else f"{seconds * 1e6:.1f}"


def _fmt_target(workload):
    return "-" if workload.target is None else f"<= {workload.target}"


def _fmt_faults(times):
    """minigrad's and PyTorch's minor page faults per step, as "m / t"."""
    return " / ".join("-" if t is None or t[1] is None else f"{t[1]:.1f}"
                      for t in (times.get("minigrad"), times.get("torch")) if t is not None)


def run(args):
    import minigrad
    try:
        import torch
        torch.set_num_threads(args.threads)
    except ImportError:
        torch = None

    quick = args.quick
    repeat = args.repeat or (3 if quick else 7)
    target_s = 0.02 if quick else 0.2
    names = args.workload or (["opchain", "linreg"] if args.profile else list(BY_NAME))
    workloads = [BY_NAME[n] for n in names]

    print(f"## minigrad vs PyTorch, CPU\n\ncommand: `{command_line()}`")
    for line in machine_lines(torch):
        print(line)
    print(f"threads: {thread_report(torch)}")

    if args.profile:
        profile(workloads, minigrad, 300 if quick else 3000)
        return 0

    print(f"timing: median of {repeat} repeats of ~{target_s * 1e3:.0f} ms per library, "
          f"after warm-up; agreement: max abs diff of losses, parameters and gradients "
          f"after {CHECK_STEPS} steps\n")
    if torch is None:
        print("note: torch is not installed, so only minigrad's times are shown and nothing is compared\n")
    libs = {"minigrad": minigrad, **({"torch": torch} if torch else {})}

    print("| workload | minigrad µs/step | PyTorch µs/step | ratio | target | result | max abs diff "
          "| page faults/step (minigrad / PyTorch) |")
    print("|---|---:|---:|---:|---:|:---:|---:|---:|")
    failed = False
    for workload in workloads:
        data = workload.make_data(np.random.default_rng(SEED))
        diff, ratio, result = "-", "-", "-"
        try:
            if torch:
                d = max_abs_diff(workload, minigrad, torch, data)
                diff = f"{d:.1e}"
                if not d <= AGREE_TOL:  # `not <=` also catches NaN
                    failed = True
                    diff += " DISAGREE"
            times = time_workload(workload, libs, data, repeat, target_s)
        except Exception as e:  # keep the other rows: one broken op should not hide them all
            failed = True
            print(f"| {workload.title} | ERROR {type(e).__name__}: {e} | | | {_fmt_target(workload)} | ERROR | {diff} | |")
            continue
        if torch:
            r = times["minigrad"][0] / times["torch"][0]
            ratio = f"{r:.2f}"
            if workload.target is not None:
                result = "PASS" if r <= workload.target else "MISS"
        print(f"| {workload.title} | {_fmt_us(times['minigrad'][0])} | {_fmt_us(times['torch'][0] if torch else None)} "
              f"| {ratio} | {_fmt_target(workload)} | {result} | {diff} | {_fmt_faults(times)} |")
    print("\nratio = minigrad time / PyTorch time per step (lower is better for minigrad); page faults: "
          "minor faults per step, near 0 once warm (many mean freed memory is being faulted back in)")
    return 1 if failed else 0
