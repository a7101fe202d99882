"""minigrad.optim against torch.optim: updates, state, checkpoints, schedulers and errors.

The update tests run the same 20 steps on the same starting values and the same loss in both
libraries and compare the parameters and the optimizer state; they run on every device (torch
on the CPU as the reference).
"""
import copy
import importlib
import math
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.optim as optim
from minigrad.optim import lr_scheduler

STEPS = 20
TOL = {"float64": dict(rtol=1e-10, atol=1e-12), "float32": dict(rtol=1e-5, atol=1e-5)}

# (optimizer, options): every option of every optimizer, alone and combined
CONFIGS = [
    ("SGD", dict(lr=0.01)),
    ("SGD", dict(lr=0.01, momentum=0.9)),
    ("SGD", dict(lr=0.01, momentum=0.9, dampening=0.5)),
    ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.01, weight_decay=0.1)),
    ("SGD", dict(lr=0.01, maximize=True)),
    ("SGD", dict(lr=0.01, momentum=0.5, dampening=0.1, weight_decay=0.1, maximize=True)),
    ("SGD", dict(lr=0.01, momentum=0.8, nesterov=True, weight_decay=0.2, maximize=True)),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, betas=(0.5, 0.9), eps=1e-3)),
    ("Adam", dict(lr=0.05, weight_decay=0.1)),
    ("Adam", dict(lr=0.05, amsgrad=True)),
    ("Adam", dict(lr=0.05, maximize=True)),
    ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, weight_decay=0.3, amsgrad=True)),
    ("AdamW", dict(lr=0.05, weight_decay=0.3, maximize=True, betas=(0.8, 0.99))),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, eps=1e-4)),
    ("RMSprop", dict(lr=0.01, momentum=0.9)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05)),
    ("Adagrad", dict(lr=0.1, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, initial_accumulator_value=0.5, eps=1e-3)),
    ("Adagrad", dict(lr=0.1, maximize=True, lr_decay=0.01, weight_decay=0.05)),
]


def _config_id(config):
    name, kw = config
    return name + "-" + "-".join(f"{k}={v}" for k, v in kw.items())


def _torch():
    return pytest.importorskip("torch")


def _tensor(lib, x, dtype, device, requires_grad=False):
    if lib is minigrad:
        return minigrad.tensor(x, dtype=getattr(minigrad, dtype), device=device, requires_grad=requires_grad)
    return lib.tensor(x, dtype=getattr(lib, dtype), requires_grad=requires_grad)


def _np(t):
    return t.detach().cpu().numpy().astype(np.float64)


def _setup(lib, dtype="float64", device="cpu", seed=0):
    """Three parameters (the last gets no gradient) and the constants of the loss."""
    rng = np.random.default_rng(seed)
    values = [rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal(2)]
    consts = [rng.uniform(0.5, 1.5, (3, 4)), rng.uniform(2, 4, (3, 4))]
    params = [_tensor(lib, v, dtype, device, True) for v in values]
    return params, [_tensor(lib, c, dtype, device) for c in consts]


def _loss(params, consts):
    """A fixed smooth function of the first two parameters, far from its minimum."""
    p1, p2, _ = params
    c, t = consts
    return ((p1 * c - t) ** 2).sum() + (p1.sum(0) * p2).tanh().sum() + 0.5 * ((p2 - 3) ** 2).sum()


def _train(opt, params, consts, steps=STEPS):
    for _ in range(steps):
        opt.zero_grad()
        _loss(params, consts).backward()
        opt.step()


def _run(lib, name, kwargs, dtype="float64", device="cpu", groups=None, steps=STEPS):
    params, consts = _setup(lib, dtype, device)
    arg = params if groups is None else [{"params": [params[i] for i in idx], **opts} for idx, opts in groups]
    opt = getattr(lib.optim, name)(arg, **kwargs)
    _train(opt, params, consts, steps)
    return params, opt


def _assert_same_state(opt, topt, tol):
    """Same state names, values and param_groups as torch's state_dict."""
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    assert sorted(sd["state"]) == sorted(tsd["state"])
    for i, entry in tsd["state"].items():
        assert sorted(sd["state"][i]) == sorted(entry)
        for key, value in entry.items():
            mine = sd["state"][i][key]
            assert isinstance(mine, minigrad.Tensor)
            np.testing.assert_allclose(_np(mine), value.double().numpy(), **tol, err_msg=key)
            if key == "step":
                assert mine.dtype.name == str(value.dtype).split(".")[1] and mine.device.type == "cpu"


# ---- the updates ---------------------------------------------------------------------

def run_both(run, name, kwargs, dtype, device, assert_state):
    """run(lib, name, kwargs, dtype[, device]) under minigrad (on device) and torch: the parameters
    must agree within TOL and stay leaves of that dtype and device, and the optimizers' states
    must pass assert_state(opt, topt, tol). Returns (params, opt, tparams, topt)."""
    torch = _torch()
    params, opt = run(minigrad, name, kwargs, dtype, device)
    tparams, topt = run(torch, name, kwargs, dtype)
    for p, tp in zip(params, tparams):
        np.testing.assert_allclose(_np(p), _np(tp), **TOL[dtype])
        assert p.dtype.name == dtype and p.device.type == device and p.is_leaf and p.requires_grad
    assert_state(opt, topt, TOL[dtype])
    return params, opt, tparams, topt


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
def test_update_matches_torch(device, config, dtype):
    name, kwargs = config
    run_both(_run, name, kwargs, dtype, device, _assert_same_state)


def test_parameters_without_grad_are_skipped():
    params, opt = _run(minigrad, "Adam", dict(lr=0.1))
    start, _ = _setup(minigrad)
    assert params[2].grad is None
    assert params[2].tolist() == start[2].tolist()
    assert params[2] not in opt.state and params[0] in opt.state
    assert not np.allclose(_np(params[0]), _np(start[0]))


GROUPS = [
    ("SGD", dict(lr=0.01, momentum=0.9), [((0,), {}), ((1, 2), dict(lr=0.01, momentum=0.5, nesterov=True))]),
    ("Adam", dict(lr=0.05), [((0,), dict(amsgrad=True)), ((1, 2), dict(lr=0.2, betas=(0.8, 0.9)))]),
    ("RMSprop", dict(lr=0.01), [((0,), dict(centered=True)), ((1, 2), dict(lr=0.05, momentum=0.3))]),
    ("Adagrad", dict(lr=0.1), [((0,), {}), ((1, 2), dict(lr=0.3, lr_decay=0.1))]),
]


@pytest.mark.parametrize("name,kwargs,groups", GROUPS, ids=[g[0] for g in GROUPS])
def test_param_groups_with_their_own_options(device, name, kwargs, groups):
    torch = _torch()
    params, opt = _run(minigrad, name, kwargs, device=device, groups=groups)
    tparams, topt = _run(torch, name, kwargs, groups=groups)
    for p, tp in zip(params, tparams):
        np.testing.assert_allclose(_np(p), _np(tp), **TOL["float64"])
    _assert_same_state(opt, topt, TOL["float64"])
    assert [g["lr"] for g in opt.param_groups] == [g["lr"] for g in topt.param_groups]


def test_lr_changed_between_steps_is_used():
    torch = _torch()
    results = []
    for lib in (minigrad, torch):
        params, consts = _setup(lib)
        opt = lib.optim.SGD(params, lr=0.1)
        for step in range(5):
            opt.param_groups[0]["lr"] = 0.1 / (step + 1)
            opt.zero_grad()
            _loss(params, consts).backward()
            opt.step()
        results.append([_np(p) for p in params])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, **TOL["float64"])


def test_generator_of_parameters_and_add_param_group():
    params, consts = _setup(minigrad)
    opt = optim.SGD((p for p in params[:2]), lr=0.01)
    group = opt.param_groups[0]["params"]
    assert isinstance(group, list) and len(group) == 2 and all(a is b for a, b in zip(group, params))
    opt.add_param_group({"params": params[2], "lr": 0.5})
    assert opt.param_groups[1]["params"][0] is params[2] and opt.param_groups[1]["lr"] == 0.5
    assert opt.param_groups[1]["momentum"] == 0  # filled in from the defaults
    before = _np(params[0])
    _loss(params, consts).backward()
    opt.step()
    np.testing.assert_allclose(_np(params[0]), before - 0.01 * _np(params[0].grad), rtol=1e-12)


def test_named_parameters_as_torch():
    torch = _torch()
    sds = []
    for lib in (minigrad, torch):
        params, consts = _setup(lib)
        opt = lib.optim.SGD([("w", params[0]), ("b", params[1])], lr=0.1, momentum=0.9)
        _train(opt, params, consts, 2)
        assert opt.param_groups[0]["param_names"] == ["w", "b"]
        sds.append(opt.state_dict())
    assert sds[0]["param_groups"] == sds[1]["param_groups"]


def test_closure_returns_loss_and_runs_with_grad():
    params, consts = _setup(minigrad)
    opt = optim.Adam(params, lr=0.1)
    calls = []

    def closure():
        opt.zero_grad()
        loss = _loss(params, consts)
        loss.backward()
        calls.append(loss.item())
        return loss

    with minigrad.no_grad():
        loss = opt.step(closure)
    assert isinstance(loss, minigrad.Tensor) and loss.item() == calls[0]
    assert opt.step() is None and len(calls) == 1


# ---- zero_grad --------------------------------------------------------------------------

def test_zero_grad_to_none_and_in_place(device):
    params, consts = _setup(minigrad, device=device)
    opt = optim.SGD(params, lr=0.1)
    _loss(params, consts).backward()
    grad = params[0].grad
    opt.zero_grad(set_to_none=False)
    assert params[0].grad is grad and grad.tolist() == np.zeros((3, 4)).tolist()
    assert params[1].grad.tolist() == [0.0] * 4 and params[2].grad is None
    _loss(params, consts).backward()  # accumulates onto the zeros
    fresh, fconsts = _setup(minigrad, device=device)
    _loss(fresh, fconsts).backward()
    np.testing.assert_allclose(_np(params[0].grad), _np(fresh[0].grad), rtol=1e-12)
    opt.zero_grad()
    assert all(p.grad is None for p in params)


def test_zero_grad_in_place_clears_nan_and_detaches_a_graph_grad():
    p = minigrad.tensor([1.0, 2.0], requires_grad=True)
    p.grad = minigrad.tensor([float("nan"), float("inf")])
    optim.SGD([p]).zero_grad(set_to_none=False)
    assert p.grad.tolist() == [0.0, 0.0]
    q = minigrad.tensor([1.0, 2.0], requires_grad=True)
    (q ** 3).sum().backward(create_graph=True)
    assert q.grad.grad_fn is not None
    optim.SGD([q]).zero_grad(set_to_none=False)
    assert q.grad.grad_fn is None and not q.grad.requires_grad and q.grad.tolist() == [0.0, 0.0]


# ---- version counter ----------------------------------------------------------------------

@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.1)), ("SGD", dict(lr=0.1, momentum=0.9)),
                                         ("Adam", dict(lr=0.1)), ("AdamW", dict(lr=0.1)),
                                         ("RMSprop", dict(lr=0.1)), ("Adagrad", dict(lr=0.1))])
def test_step_bumps_version_and_backward_detects_it(device, name, kwargs):
    torch = _torch()
    versions = []
    for lib, dev in ((minigrad, device), (torch, "cpu")):
        w = _tensor(lib, [1.0, -2.0, 3.0], "float32", dev, True)
        loss = (w * w).sum()
        loss.backward(retain_graph=True)
        opt = getattr(lib.optim, name)([w], **kwargs)
        opt.step()
        opt.step()
        versions.append(w._version)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()
    assert versions[0] == versions[1]


def test_step_inside_no_grad_and_outside_record_nothing():
    params, consts = _setup(minigrad)
    opt = optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=0.1)
    _loss(params, consts).backward()
    opt.step()
    assert all(p.is_leaf and p.grad_fn is None and p.requires_grad for p in params)
    assert opt.state[params[0]]["momentum_buffer"].grad_fn is None


# ---- state_dict ----------------------------------------------------------------------------

RESUMABLE = [c for c in CONFIGS if c[0] != "SGD" or c[1].get("momentum")]


@pytest.mark.parametrize("config", RESUMABLE, ids=_config_id)
def test_state_dict_round_trip_continues_exactly(device, config):
    name, kwargs = config
    full, _ = _run(minigrad, name, kwargs, device=device)

    params, consts = _setup(minigrad, device=device)
    opt = getattr(optim, name)(params, **kwargs)
    _train(opt, params, consts, STEPS // 2)
    saved = copy.deepcopy(opt.state_dict())
    values = [p.detach().clone() for p in params]

    resumed = [v.requires_grad_() for v in values]
    opt2 = getattr(optim, name)(resumed, **kwargs)
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["params"][0] is resumed[0]
    _train(opt2, resumed, consts, STEPS - STEPS // 2)
    for a, b in zip(full, resumed):
        np.testing.assert_array_equal(_np(a), _np(b))


def test_state_dict_layout_matches_torch():
    torch = _torch()
    sds = []
    for lib in (minigrad, torch):
        params, consts = _setup(lib)
        opt = lib.optim.Adam([{"params": params[:1]}, {"params": params[1:], "lr": 0.5}], lr=0.1)
        _train(opt, params, consts, 3)
        sds.append(opt.state_dict())
    assert sds[0]["param_groups"] == sds[1]["param_groups"]
    assert sds[1]["param_groups"][1]["params"] == [1, 2]
    assert list(sds[0]["state"]) == list(sds[1]["state"]) == [0, 1]
    assert list(sds[0]["state"][0]) == list(sds[1]["state"][0]) == ["step", "exp_avg", "exp_avg_sq"]


def test_load_state_dict_casts_state_like_torch(device):
    """Floating state takes the parameter's dtype and device; step keeps its own."""
    torch = _torch()
    results = []
    for lib, dev in ((minigrad, device), (torch, "cpu")):
        params, consts = _setup(lib, "float64")
        opt = lib.optim.Adam(params, lr=0.1)
        _train(opt, params, consts, 2)
        sd = opt.state_dict()
        p32, _ = _setup(lib, "float32", dev)
        opt32 = lib.optim.Adam(p32, lr=0.1)
        opt32.load_state_dict(sd)
        st = opt32.state[p32[0]]
        results.append((str(st["exp_avg"].dtype).split(".")[1], str(st["step"].dtype).split(".")[1],
                        st["exp_avg"].device.type))
        assert opt32.param_groups[0]["params"] is not sd["param_groups"][0]["params"]
    assert results[0][:2] == results[1][:2] == ("float32", "float32")
    assert results[0][2] == device


def test_load_state_dict_errors_as_torch():
    torch = _torch()
    msgs = []
    for lib in (minigrad, torch):
        params, _ = _setup(lib)
        opt = lib.optim.SGD(params, lr=0.1)
        for bad in ({"state": {}, "param_groups": []},
                    {"state": {}, "param_groups": [{"params": [0, 1]}]}):
            with pytest.raises(ValueError) as e:
                opt.load_state_dict(bad)
            msgs.append(str(e.value))
    assert msgs[:2] == msgs[2:]
    assert msgs[0] == "loaded state dict has a different number of parameter groups"


def test_repr_matches_torch():
    torch = _torch()
    for name, kwargs in (("SGD", dict(lr=0.1, momentum=0.9)), ("AdamW", {}), ("RMSprop", {}), ("Adagrad", {})):
        mine = getattr(optim, name)(_setup(minigrad)[0], **kwargs)
        theirs = getattr(torch.optim, name)(_setup(torch)[0], **kwargs)
        assert repr(mine) == repr(theirs)


# ---- errors -----------------------------------------------------------------------------

def _a(lib):
    return _tensor(lib, [1.0, 2.0], "float32", "cpu", True)


ERROR_CASES = [
    lambda lib: lib.optim.SGD([], lr=0.1),
    lambda lib: lib.optim.SGD(_a(lib), lr=0.1),
    lambda lib: lib.optim.SGD([_a(lib) * 2], lr=0.1),
    lambda lib: lib.optim.SGD([1.0], lr=0.1),
    lambda lib: lib.optim.SGD([{"params": {_a(lib)}}], lr=0.1),
    lambda lib: lib.optim.SGD([("w", _a(lib)), _a(lib)], lr=0.1),
    lambda lib: lib.optim.SGD([{"params": [("w", _a(lib))]}, {"params": [_a(lib)]}], lr=0.1),
    lambda lib: lib.optim.SGD([_a(lib)], lr=-1),
    lambda lib: lib.optim.SGD([_a(lib)], lr=0.1, momentum=-0.5),
    lambda lib: lib.optim.SGD([_a(lib)], lr=0.1, weight_decay=-1),
    lambda lib: lib.optim.SGD([_a(lib)], lr=0.1, nesterov=True),
    lambda lib: lib.optim.SGD([_a(lib)], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
    lambda lib: lib.optim.Adam([_a(lib)], lr=-0.1),
    lambda lib: lib.optim.Adam([_a(lib)], eps=-1e-8),
    lambda lib: lib.optim.Adam([_a(lib)], betas=(1.0, 0.9)),
    lambda lib: lib.optim.Adam([_a(lib)], betas=(0.9, -0.1)),
    lambda lib: lib.optim.Adam([_a(lib)], betas=(0, 0.9)),
    lambda lib: lib.optim.AdamW([_a(lib)], weight_decay=-1),
    lambda lib: lib.optim.RMSprop([_a(lib)], alpha=-1),
    lambda lib: lib.optim.RMSprop([_a(lib)], momentum=-1),
    lambda lib: lib.optim.RMSprop([_a(lib)], eps=-1),
    lambda lib: lib.optim.Adagrad([_a(lib)], lr_decay=-1),
    lambda lib: lib.optim.Adagrad([_a(lib)], initial_accumulator_value=-1),
    lambda lib: lib.optim.Adagrad([_a(lib)], eps=-1),
    lambda lib: lib.optim.SGD([_a(lib)]).add_param_group([_a(lib)]),
    lambda lib: lib.optim.lr_scheduler.StepLR(object(), 3),
    lambda lib: lib.optim.lr_scheduler.LambdaLR(lib.optim.SGD([_a(lib)]), [lambda e: 1, lambda e: 2]),
    lambda lib: lib.optim.lr_scheduler.StepLR(lib.optim.SGD([_a(lib)]), 3, last_epoch=4),
]


def _shared_param_groups(lib):
    a = _a(lib)
    return lib.optim.SGD([{"params": [a]}, {"params": [a]}], lr=0.1)


def _required_lr(lib):
    required = importlib.import_module(lib.__name__ + ".optim.optimizer").required
    assert repr(required) == "<required parameter>"

    class Custom(lib.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, dict(lr=required))
    return Custom([_a(lib)])


@pytest.mark.parametrize("case", ERROR_CASES + [_shared_param_groups, _required_lr])
def test_errors_match_torch(case):
    torch = _torch()
    outcomes = []
    for lib in (minigrad, torch):
        with pytest.raises(Exception) as e:
            case(lib)
        outcomes.append((type(e.value), str(e.value)))
    assert outcomes[0] == outcomes[1]


def test_duplicate_parameters_warn_as_torch():
    torch = _torch()
    messages = []
    for lib in (minigrad, torch):
        a = _a(lib)
        with pytest.warns(UserWarning) as record:
            lib.optim.SGD([a, a], lr=0.1)
        messages.append([str(w.message) for w in record])
    assert messages[0] == messages[1] and "duplicate parameters" in messages[0][0]


def test_unsupported_options_say_so():
    with pytest.raises(NotImplementedError, match="differentiable"):
        optim.Adam([_a(minigrad)], differentiable=True)


# ---- learning-rate schedulers ---------------------------------------------------------------

SCHEDULERS = [
    ("StepLR", lambda s, opt: s.StepLR(opt, step_size=7, gamma=0.5)),
    ("MultiStepLR", lambda s, opt: s.MultiStepLR(opt, milestones=[5, 12, 12, 20], gamma=0.3)),
    ("CosineAnnealingLR", lambda s, opt: s.CosineAnnealingLR(opt, T_max=10)),
    ("CosineAnnealingLR-eta_min", lambda s, opt: s.CosineAnnealingLR(opt, T_max=7, eta_min=0.001)),
    ("LambdaLR", lambda s, opt: s.LambdaLR(opt, lambda epoch: 0.95 ** epoch)),
    ("LambdaLR-list", lambda s, opt: s.LambdaLR(opt, [lambda e: 1 / (e + 1), lambda e: math.cos(e / 10)])),
    ("ExponentialLR", lambda s, opt: s.ExponentialLR(opt, gamma=0.9)),
    ("chained", lambda s, opt: (s.StepLR(opt, 4, 0.5), s.CosineAnnealingLR(opt, T_max=9, eta_min=0.01))),
]


def _lr_history(lib, make, epochs=30):
    params, consts = _setup(lib)
    opt = lib.optim.SGD([{"params": params[:1], "lr": 0.1}, {"params": params[1:], "lr": 0.02}], momentum=0.9)
    scheds = make(lib.optim.lr_scheduler, opt)
    scheds = scheds if isinstance(scheds, tuple) else (scheds,)
    history = [[g["lr"] for g in opt.param_groups]]
    for _ in range(epochs):
        opt.zero_grad()
        _loss(params, consts).backward()
        opt.step()
        for s in scheds:
            s.step()
        history.append([[g["lr"] for g in opt.param_groups]] + [s.get_last_lr() for s in scheds])
    return history, [_np(p) for p in params], opt, scheds


@pytest.mark.parametrize("name,make", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_scheduler_lrs_match_torch(name, make):
    torch = _torch()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the right call order: no warning in either library
        mine, params, opt, scheds = _lr_history(minigrad, make)
        theirs, tparams, topt, tscheds = _lr_history(torch, make)
    assert mine == theirs  # the same float arithmetic: equal, not just close
    for p, tp in zip(params, tparams):
        np.testing.assert_allclose(p, tp, **TOL["float64"])
    for s, ts in zip(scheds, tscheds):
        assert s.last_epoch == ts.last_epoch == 30 and s.base_lrs == ts.base_lrs == [0.1, 0.02]
        assert sorted(s.state_dict()) == sorted(ts.state_dict())
    assert [g["initial_lr"] for g in opt.param_groups] == [g["initial_lr"] for g in topt.param_groups]


def test_scheduler_state_dict_resumes():
    params, _ = _setup(minigrad)
    opt = optim.SGD(params, lr=0.1)
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=8, eta_min=0.01)
    for _ in range(5):
        opt.step()
        sched.step()
    saved_sched, saved_opt = sched.state_dict(), copy.deepcopy(opt.state_dict())
    expected = []
    for _ in range(6):
        opt.step()
        sched.step()
        expected.append(sched.get_last_lr())

    opt2 = optim.SGD(_setup(minigrad)[0], lr=0.1)
    sched2 = lr_scheduler.CosineAnnealingLR(opt2, T_max=8, eta_min=0.01)
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved_sched)
    got = []
    for _ in range(6):
        opt2.step()
        sched2.step()
        got.append(sched2.get_last_lr())
    assert got == expected and "optimizer" not in saved_sched


def test_lambda_lr_state_dict_as_torch():
    torch = _torch()
    sds = [lib.optim.lr_scheduler.LambdaLR(lib.optim.SGD([_a(lib)], lr=0.1), lambda e: 0.5 ** e).state_dict()
           for lib in (minigrad, torch)]
    assert sds[0] == sds[1] and sds[0]["lr_lambdas"] == [None]


def _lrs_after_add_param_group(lib, make, steps=12):
    """The lrs (or the error) of a scheduler made before optimizer.add_param_group, step by step."""
    opt = lib.optim.SGD([_a(lib)], lr=0.1)
    sched = make(lib.optim.lr_scheduler, opt)
    opt.add_param_group({"params": [_a(lib)], "lr": 1.0})
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for _ in range(steps):
                opt.step()
                sched.step()
                out.append([g["lr"] for g in opt.param_groups])
        except Exception as e:  # torch's strict zips raise ValueError
            out.append((type(e), str(e)))
    return out


@pytest.mark.parametrize("name,make", SCHEDULERS[:-1], ids=[s[0] for s in SCHEDULERS[:-1]])
def test_scheduler_after_add_param_group_as_torch(name, make):
    torch = _torch()
    if name == "LambdaLR-list":  # needs one function per group at construction
        make = lambda s, opt: s.LambdaLR(opt, [lambda e: 1 / (e + 1)])  # noqa: E731
    mine = _lrs_after_add_param_group(minigrad, make)
    theirs = _lrs_after_add_param_group(torch, make)
    assert mine == theirs
    if name.startswith(("CosineAnnealingLR", "LambdaLR")):
        assert mine[-1][0] is ValueError and mine[-1][1].startswith("zip() argument 2 is")


def test_scheduler_warnings_as_torch():
    torch = _torch()
    messages = []
    for lib in (minigrad, torch):
        opt = lib.optim.SGD([_a(lib)], lr=0.1)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        with pytest.warns(UserWarning) as record:
            sched.step()  # before any optimizer.step()
            sched.get_lr()
        messages.append([str(w.message) for w in record])
    assert messages[0] == messages[1] and len(messages[0]) == 2


def test_lr_scheduler_base_class_and_alias():
    class Halving(lr_scheduler._LRScheduler):
        def get_lr(self):
            return [base * 0.5 ** self.last_epoch for base in self.base_lrs]

    opt = optim.SGD([_a(minigrad)], lr=0.8)
    sched = Halving(opt)
    assert issubclass(lr_scheduler._LRScheduler, lr_scheduler.LRScheduler)
    assert sched.get_last_lr() == [0.8] and opt.param_groups[0]["initial_lr"] == 0.8
    opt.step()
    sched.step()
    assert sched.get_last_lr() == [0.4] and opt.param_groups[0]["lr"] == 0.4 and sched.last_epoch == 1


# ---- large parameters: updated in blocks on the CPU --------------------------------------------

BLOCK_CONFIGS = [
    ("SGD", dict(lr=0.01)),
    ("SGD", dict(lr=0.01, momentum=0.8, nesterov=True, weight_decay=0.2, maximize=True)),
    ("SGD", dict(lr=0.01, momentum=0.9, dampening=0.5)),
    ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1, maximize=True)),
    ("AdamW", dict(lr=0.05, weight_decay=0.3)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, maximize=True)),
]


def _run_large(name, opts, rng_seed=0):
    """Three steps on a (300, 150) weight (45,000 elements: 2 blocks of 32,768, the second
    partial), a non-contiguous (transposed, blocked by rows) one and a bias; returns parameters
    and state as arrays."""
    rng = np.random.default_rng(rng_seed)
    params = [minigrad.tensor(rng.standard_normal((300, 150)).astype(np.float32), requires_grad=True),
              minigrad.tensor(rng.standard_normal((200, 250)).astype(np.float32)).t().detach().requires_grad_(),
              minigrad.tensor(rng.standard_normal(150).astype(np.float32), requires_grad=True)]
    opt = getattr(optim, name)(params, **opts)
    for _ in range(3):
        for p in params:
            p.grad = minigrad.tensor(rng.standard_normal(p.shape).astype(np.float32))
        opt.step()
    state = [np.array(v._data) for p in params for k, v in sorted(opt.state[p].items()) if k != "step"]
    return [np.array(p._data) for p in params] + state


@pytest.mark.parametrize("name,opts", BLOCK_CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BLOCK_CONFIGS)])
def test_large_parameters_update_in_blocks_bit_for_bit(name, opts, monkeypatch):
    from minigrad.optim import optimizer as opt_module
    assert 45_000 > opt_module._BLOCK and 50_000 > opt_module._BLOCK  # both weights are blocked
    assert not minigrad.tensor(np.zeros((200, 250), np.float32)).t()._data.flags.c_contiguous
    blocked = _run_large(name, opts)
    monkeypatch.setattr(opt_module, "_BLOCK", 10 ** 9)  # every parameter whole
    whole = _run_large(name, opts)
    assert len(blocked) == len(whole) >= 3
    for a, b in zip(blocked, whole):
        assert a.dtype == b.dtype and np.array_equal(a, b)


@pytest.mark.parametrize("name,opts", [("SGD", dict(lr=0.01)), ("SGD", dict(lr=0.01, momentum=0.9)),
                                       ("Adam", dict(lr=0.01)), ("RMSprop", dict(lr=0.01, centered=True)),
                                       ("Adagrad", dict(lr=0.1))])
def test_optimizer_step_makes_no_parameter_sized_temporaries(name, opts):
    # a parameter-sized temporary per step is what made glibc give memory back to the OS and
    # fault it in again on every step (2-3x slower training steps)
    import tracemalloc
    p = minigrad.zeros(1000, 1000, requires_grad=True)       # 4 MB
    p.grad = minigrad.ones(1000, 1000)
    opt = getattr(optim, name)([p], **opts)
    opt.step()                                               # creates the state
    tracemalloc.start()
    try:
        opt.step()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, f"{name} step allocated {peak} bytes at peak for a 4,000,000-byte parameter"
