"""The floor benchmark's NumPy steps and bare engine compute what minigrad's workloads do.

Its ratios only mean something if the numpy and bare steps train the same model the same way,
so they are checked against minigrad step by step, the bare engine's gradients against finite
differences (and PyTorch), and the agreement check against steps broken on purpose.
"""
import subprocess
import sys
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
import pytest

import minigrad
from minigrad.bench import floor
from minigrad.bench.__main__ import parse_args
from minigrad.bench.cpu import AGREE_TOL, CHECK_STEPS, trajectory

NAMES = list(floor.FLOORS)
REPO = Path(__file__).resolve().parent.parent


def minigrad_state(params):
    return [p.detach().numpy() for p in params] + [p.grad.numpy() for p in params]


def assert_states_close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("engine", ["numpy", "bare"])
def test_first_step_matches_minigrad(name, engine):
    f = floor.FLOORS[name]
    data = f.workload.make_data(np.random.default_rng(1))
    original = {k: v.copy() for k, v in data.items()}
    step, params = f.workload.build(minigrad, data)
    want_loss = step().item()
    want = minigrad_state(params)

    step, state = getattr(f, engine)(data)
    np.testing.assert_allclose(step().item(), want_loss, rtol=1e-5)
    assert_states_close(state(), want)
    for a in state():
        assert a.dtype == np.float32
    for k, v in data.items():  # the builders copy: every repeat starts from the same values
        np.testing.assert_array_equal(v, original[k])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("engine", ["numpy", "bare"])
def test_five_steps_match_minigrad(name, engine):
    f = floor.FLOORS[name]
    data = f.workload.make_data(np.random.default_rng(2))
    want = trajectory(f.workload, minigrad, data)
    got = floor.floor_trajectory(getattr(f, engine), data)
    assert len(got[0]) == CHECK_STEPS
    assert_states_close(got, want)
    if name != "opchain":
        assert got[0][-1] < got[0][0]  # it trains
    assert floor.disagreement(f, data)[engine] <= AGREE_TOL


# --- the bare engine's gradients, on a small graph using every op, repeated index and reuse

def small_case(rng, dtype):
    return {"x": rng.standard_normal((4, 3)).astype(dtype), "w": rng.standard_normal((5, 3)).astype(dtype),
            "b": rng.standard_normal(5).astype(dtype), "c": rng.standard_normal((1, 5)).astype(dtype),
            "t": rng.standard_normal((4, 5)).astype(dtype)}


ROWS, COLS = np.array([0, 0, 1, 3]), np.array([2, 2, 0, 4])  # (0, 2) twice: its gradient adds up


def small_loss(x, w, b, c, t, lib=None):
    """Every op of the bare engine, both sides of - needing a gradient (c broadcast), and z used
    three times, so that its gradient accumulates."""
    z = (x @ w.t() + b).relu() * c - t
    log_softmax = z.log_softmax() if lib is None else lib.log_softmax(z, dim=1)
    return -log_softmax[ROWS, COLS].mean() + (z * z).sum() + ((t - z - c) ** 2).mean()


def bare_grads(case):
    x, t = floor.Tensor(case["x"]), floor.Tensor(case["t"])
    params = [floor.Tensor(case[k].copy(), True) for k in "wbc"]
    loss = small_loss(x, *params, t)
    loss.backward()
    return loss.item(), [p.grad for p in params]


def test_bare_grads_match_finite_differences():
    case = small_case(np.random.default_rng(3), np.float64)
    _, grads = bare_grads(case)

    def loss_at(values):
        t = {k: floor.Tensor(v) for k, v in values.items()}
        return small_loss(t["x"], t["w"], t["b"], t["c"], t["t"]).item()

    eps = 1e-6
    for k, g in zip("wbc", grads):
        assert g.shape == case[k].shape
        numeric = np.zeros_like(case[k])
        for i in np.ndindex(case[k].shape):
            plus, minus = dict(case), dict(case)
            plus[k], minus[k] = case[k].copy(), case[k].copy()
            plus[k][i] += eps
            minus[k][i] -= eps
            numeric[i] = (loss_at(plus) - loss_at(minus)) / (2 * eps)
        np.testing.assert_allclose(g, numeric, rtol=1e-5, atol=1e-7)


def test_bare_grads_match_torch():
    torch = pytest.importorskip("torch")
    case = small_case(np.random.default_rng(4), np.float32)
    loss, grads = bare_grads(case)
    x, t = torch.tensor(case["x"]), torch.tensor(case["t"])
    params = [torch.tensor(case[k], requires_grad=True) for k in "wbc"]
    want = small_loss(x, *params, t, lib=torch)
    want.backward()
    np.testing.assert_allclose(loss, want.item(), rtol=1e-5)
    for g, p in zip(grads, params):
        np.testing.assert_allclose(g, p.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_bare_engine_skips_constants_and_keeps_only_leaf_grads():
    x = floor.Tensor(np.ones((2, 3), np.float32))
    w = floor.Tensor(np.ones((4, 3), np.float32), True)
    h = x @ w.t()
    h.sum().backward()
    assert x.grad is None and h.grad is None
    assert w.grad.flags.c_contiguous  # computed in w's layout, not as a transposed view
    np.testing.assert_array_equal(w.grad, np.full((4, 3), 2, np.float32))


# --- the agreement check cannot silently pass

def broken(monkeypatch, name, **changes):
    monkeypatch.setitem(floor.FLOORS, name, replace(floor.FLOORS[name], **changes))


def test_numpy_step_without_update_disagrees(monkeypatch, capsys):
    broken(monkeypatch, "linreg", numpy=partial(floor.np_linreg, lr=0.0))
    f = floor.FLOORS["linreg"]
    diffs = floor.disagreement(f, f.workload.make_data(np.random.default_rng(0)))
    assert diffs["numpy"] > AGREE_TOL and diffs["bare"] <= AGREE_TOL
    assert floor.run(parse_args(["floor", "--quick", "--repeat", "1", "--workload", "linreg"])) == 1
    assert "DISAGREE" in capsys.readouterr().out


def test_bare_sgd_without_update_disagrees(monkeypatch):
    monkeypatch.setattr(floor, "bare_sgd", lambda params, lr: None)
    f = floor.FLOORS["mlp"]
    assert floor.disagreement(f, f.workload.make_data(np.random.default_rng(0)))["bare"] > AGREE_TOL


def test_wrong_gradient_alone_disagrees(monkeypatch):
    """The op chain has no update, so only its gradients can catch a wrong backward."""
    def halved_grads(data):
        step, state = floor.np_op_chain(data)
        return step, lambda: state()[:3] + [g / 2 for g in state()[3:]]
    broken(monkeypatch, "opchain", numpy=halved_grads)
    f = floor.FLOORS["opchain"]
    assert floor.disagreement(f, f.workload.make_data(np.random.default_rng(0)))["numpy"] > AGREE_TOL


def test_verdict_names_where_the_target_lies():
    ratios = {"numpy": 0.2, "bare": 0.6}
    assert "below the numpy floor" in floor.verdict("w", 0.1, ratios)
    assert "below the bare" in floor.verdict("w", 0.4, ratios)
    assert "above both" in floor.verdict("w", 0.8, ratios)


def test_cli():
    args = parse_args(["floor"])
    assert (args.command, args.threads, args.repeat, args.quick, args.workload) == ("floor", 1, None, False, None)
    result = subprocess.run([sys.executable, "-m", "minigrad.bench", "floor", "--quick", "--repeat", "1"],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ")]
    for name in NAMES:
        title = floor.FLOORS[name].workload.title
        assert sum(line.startswith(f"| {title} |") for line in rows) == 1, result.stdout
    assert "DISAGREE" not in result.stdout and "ERROR" not in result.stdout
