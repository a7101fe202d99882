"""The benchmark's workloads still compute what they claim (no timing here).

Each workload's first step is checked against a NumPy float64 derivation written out by
hand: the loss, every gradient, and the SGD update that follows.
"""
import numpy as np
import pytest

import minigrad
from minigrad.bench import cpu as bench
from minigrad.bench.__main__ import parse_args


def relu(z):
    return np.maximum(z, 0)


def ref_opchain(d):
    a, b, c = (d[k].astype(np.float64) for k in "abc")
    r = relu(a * b + c)
    return (r ** 2).sum(), [2 * r * b, 2 * r * a, 2 * r]


def ref_linreg(d):
    x, y, w, b = (d[k].astype(np.float64) for k in ("x", "y", "w", "b"))
    r = x @ w.T + b - y
    n = len(x)
    return (r ** 2).mean(), [2 * r.T @ x / n, 2 * r.sum(0) / n]


def ref_mlp(d):
    x, w1, b1, w2, b2 = (d[k].astype(np.float64) for k in ("x", "w1", "b1", "w2", "b2"))
    y, n = d["y"], len(d["y"])
    z = x @ w1.T + b1
    h = relu(z)
    logits = h @ w2.T + b2
    shifted = logits - logits.max(1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    loss = -log_probs[np.arange(n), y].mean()
    dlogits = np.exp(log_probs)
    dlogits[np.arange(n), y] -= 1
    dlogits /= n
    dz = (dlogits @ w2) * (z > 0)
    return loss, [dz.T @ x, dz.sum(0), dlogits.T @ h, dlogits.sum(0)]


def sgd_update(p, g):
    return p - bench.LR * g


def adam_first_update(p, g):
    """Adam's first step with torch's defaults: m_hat = g, v_hat = g^2 after bias correction."""
    return p - bench.ADAM_LR * g / (np.abs(g) + 1e-8)


REFERENCES = {"opchain": ref_opchain, "linreg": ref_linreg, "mlp": ref_mlp,
              "nn_linreg": ref_linreg, "nn_mlp": ref_mlp, "nn_mlp_adam": ref_mlp}
# the first step's update of each parameter from its gradient (the op chain has no update step)
UPDATES = {"opchain": None, "linreg": sgd_update, "mlp": sgd_update, "nn_linreg": sgd_update,
           "nn_mlp": sgd_update, "nn_mlp_adam": adam_first_update}
WORKLOADS = [pytest.param(w, id=w.name) for w in bench.WORKLOADS]


def to_numpy(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("workload", WORKLOADS)
def test_first_step_matches_numpy(workload, device):
    data = workload.make_data(np.random.default_rng(1))
    step, params = workload.build(minigrad, data, device)
    before = [to_numpy(p).copy() for p in params]
    loss = step()
    want_loss, want_grads = REFERENCES[workload.name](data)
    np.testing.assert_allclose(loss.item(), want_loss, rtol=1e-5)
    assert len(params) == len(want_grads)
    update = UPDATES[workload.name] or (lambda p, g: p)
    for p, p0, g in zip(params, before, want_grads):
        assert p.grad.shape == p.shape
        np.testing.assert_allclose(to_numpy(p.grad), g, rtol=1e-4, atol=1e-6)
        # the update from the gradient computed (checked just above): Adam's g / (|g| + eps) is
        # sensitive to a gradient's last bits where |g| is near eps
        np.testing.assert_allclose(to_numpy(p), update(p0, to_numpy(p.grad).astype(np.float64)), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("workload", WORKLOADS)
def test_later_steps_clear_grads_and_train(workload, device):
    data = workload.make_data(np.random.default_rng(2))
    step, params = workload.build(minigrad, data, device)
    losses = [step().item() for _ in range(4)]
    assert np.all(np.isfinite(losses))
    if UPDATES[workload.name]:
        assert losses[-1] < losses[0]
    else:
        # Gradients are reset each step, not accumulated: the fourth equals the first.
        _, want_grads = ref_opchain(data)
        for p, g in zip(params, want_grads):
            np.testing.assert_allclose(to_numpy(p.grad), g, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("workload", WORKLOADS)
def test_agrees_with_torch(workload):
    torch = pytest.importorskip("torch")
    data = workload.make_data(np.random.default_rng(bench.SEED))
    assert bench.max_abs_diff(workload, minigrad, torch, data) <= bench.AGREE_TOL


def test_cli_defaults_to_cpu():
    args = parse_args([])
    assert (args.command, args.threads, args.quick, args.profile) == ("cpu", 1, False, False)
    args = parse_args(["--quick", "--threads", "2", "--workload", "mlp"])
    assert (args.command, args.threads, args.quick, args.workload) == ("cpu", 2, True, ["mlp"])
    assert parse_args(["cpu", "--profile"]).profile


def test_cli_rejects_unknown_workload():
    with pytest.raises(SystemExit):
        parse_args(["--workload", "nope"])


def test_page_faults_per_step_are_counted():
    from minigrad.bench import measure_steps, minor_faults
    if minor_faults() is None:
        pytest.skip("this OS does not count page faults")
    # 64 MB is above glibc's largest mmap threshold: every call maps and touches fresh pages
    # (at least 32 faults even with 2 MB transparent huge pages)
    seconds, faults = measure_steps(lambda: np.ones(8_000_000), 3)
    assert seconds > 0 and faults >= 32
    _, quiet = measure_steps(lambda: None, 1000)
    assert quiet < 1


def test_array_diff_flags_shapes_and_nan():
    a = [np.zeros(3)]
    assert bench.array_diff(a, [np.zeros((1, 3))]) == float("inf")  # would broadcast to 0
    assert bench.array_diff(a + a, a) == float("inf")
    assert np.isnan(bench.array_diff(a + a, [np.zeros(3), np.array([0, np.nan, 0])]))
    # a NaN after a finite difference: Python's max(0.5, nan) would report 0.5
    assert np.isnan(bench.array_diff([np.zeros(1), np.zeros(1)], [np.array([0.5]), np.array([np.nan])]))
