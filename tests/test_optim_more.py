"""The optimizers Adamax, NAdam, RAdam, Adadelta and the schedulers beyond StepLR/MultiStepLR/
CosineAnnealingLR/LambdaLR, against torch.optim: the same steps on the same values in both
libraries, compared parameter by parameter, state by state, lr by lr (torch on the CPU as the
reference; minigrad on every device).
"""
import copy
import math
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.optim as optim
from minigrad.optim import lr_scheduler
from test_optim import STEPS, TOL, _a, _assert_same_state, _config_id, _loss, _np, _setup, _torch, run_both

CONFIGS = [
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.05, betas=(0.5, 0.9), eps=1e-3)),
    ("Adamax", dict(lr=0.05, weight_decay=0.1)),
    ("Adamax", dict(lr=0.05, maximize=True)),
    ("Adamax", dict(lr=0.05, weight_decay=0.2, maximize=True, betas=(0.8, 0.99))),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.05, betas=(0.5, 0.9), eps=1e-3)),
    ("NAdam", dict(lr=0.05, momentum_decay=0.05)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("NAdam", dict(lr=0.05, maximize=True)),
    ("NAdam", dict(lr=0.05, weight_decay=0.2, decoupled_weight_decay=True, maximize=True, momentum_decay=0.01)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.05)),
    ("RAdam", dict(lr=0.05, betas=(0.8, 0.7), eps=1e-3)),  # rho_t > 5 from step 2 on: the rectified branch
    ("RAdam", dict(lr=0.05, betas=(0.9, 0.9), weight_decay=0.1)),
    ("RAdam", dict(lr=0.05, betas=(0.9, 0.9), weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.05, betas=(0.9, 0.8), maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4)),
    ("Adadelta", dict(lr=0.5, weight_decay=0.1)),
    ("Adadelta", dict(lr=0.5, maximize=True)),
    ("Adadelta", dict(lr=0.5, rho=0.95, weight_decay=0.1, maximize=True)),
    ("SGD", dict(lr=0.01, momentum=0.9, maximize=True)),
    ("Adam", dict(lr=0.05, maximize=True, weight_decay=0.1)),
]


def _train_sometimes(opt, params, consts, steps=STEPS):
    """The loss of test_optim, plus the third parameter in every third step only: its grad is None
    (set_to_none) in the other steps, so its state must not move then."""
    for i in range(steps):
        opt.zero_grad()
        loss = _loss(params, consts)
        if i % 3 == 1:
            loss = loss + (params[2] * params[2]).sum() * 0.5 + params[2].sum()
        loss.backward()
        opt.step()


def _run(lib, name, kwargs, dtype="float64", device="cpu", steps=STEPS):
    params, consts = _setup(lib, dtype, device)
    opt = getattr(lib.optim, name)(params, **kwargs)
    _train_sometimes(opt, params, consts, steps)
    return params, opt


# ---- the updates ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
def test_update_matches_torch(device, config, dtype):
    name, kwargs = config
    params, opt, tparams, topt = run_both(_run, name, kwargs, dtype, device, _assert_same_state)
    for key, value in opt.state[params[0]].items():
        if key not in ("step", "mu_product"):
            assert value.dtype.name == dtype and value.device.type == device, key
    if "step" in topt.state[tparams[2]]:  # it took a step only where it had a gradient
        assert float(opt.state[params[2]]["step"]) == len(range(1, STEPS, 3))


def test_third_parameter_only_moves_when_it_has_a_grad():
    params, consts = _setup(minigrad)
    opt = optim.NAdam(params, lr=0.1)
    for i in range(4):
        before = params[2].tolist()
        _train_sometimes(opt, params, consts, 1)  # its loss term only where i % 3 == 1: never here
        assert params[2].grad is None and params[2].tolist() == before and params[2] not in opt.state
    opt.zero_grad()
    (_loss(params, consts) + params[2].sum()).backward()
    opt.step()
    assert params[2].tolist() != before and float(opt.state[params[2]]["step"]) == 1


GROUPS = [
    ("Adamax", dict(lr=0.05), [((0,), {}), ((1, 2), dict(lr=0.2, betas=(0.8, 0.9), weight_decay=0.1))]),
    ("NAdam", dict(lr=0.05), [((0,), dict(momentum_decay=0.1)), ((1, 2), dict(lr=0.2, maximize=True))]),
    ("RAdam", dict(lr=0.05), [((0,), dict(betas=(0.9, 0.8))), ((1, 2), dict(lr=0.2, weight_decay=0.1))]),
    ("Adadelta", dict(lr=0.5), [((0,), dict(rho=0.5)), ((1, 2), dict(lr=0.9, eps=1e-3))]),
]


@pytest.mark.parametrize("name,kwargs,groups", GROUPS, ids=[g[0] for g in GROUPS])
def test_param_groups_with_their_own_options(device, name, kwargs, groups):
    torch = _torch()
    results = []
    for lib, dev in ((minigrad, device), (torch, "cpu")):
        params, consts = _setup(lib, device=dev)
        opt = getattr(lib.optim, name)([{"params": [params[i] for i in idx], **o} for idx, o in groups], **kwargs)
        _train_sometimes(opt, params, consts)
        results.append((params, opt))
    (params, opt), (tparams, topt) = results
    for p, tp in zip(params, tparams):
        np.testing.assert_allclose(_np(p), _np(tp), **TOL["float64"])
    _assert_same_state(opt, topt, TOL["float64"])


@pytest.mark.parametrize("name", ["Adamax", "NAdam", "RAdam", "Adadelta"])
def test_tensor_lr_and_defaults_as_torch(name):
    torch = _torch()
    mine = getattr(optim, name)(_setup(minigrad)[0])
    theirs = getattr(torch.optim, name)(_setup(torch)[0])
    assert mine.defaults == theirs.defaults
    assert repr(mine) == repr(theirs)
    results = []
    for lib in (minigrad, torch):
        params, consts = _setup(lib)
        kwargs = dict(weight_decay=0.1, decoupled_weight_decay=True) if name in ("NAdam", "RAdam") else {}
        opt = getattr(lib.optim, name)(params, lr=lib.tensor(0.05), **kwargs)
        _train_sometimes(opt, params, consts, 8)
        results.append([_np(p) for p in params])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, **TOL["float64"])


def _round_trip(lib, name, kwargs, device):
    """Half the steps, a deep copy of state_dict() loaded into a new optimizer on copies of the
    parameters, the other half."""
    params, consts = _setup(lib, device=device)
    opt = getattr(lib.optim, name)(params, **kwargs)
    _train_sometimes(opt, params, consts, STEPS // 2)
    saved = copy.deepcopy(opt.state_dict())
    resumed = [p.detach().clone().requires_grad_() for p in params]
    opt2 = getattr(lib.optim, name)(resumed, **kwargs)
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["params"][0] is resumed[0]
    for i in range(STEPS // 2, STEPS):  # the same schedule of which steps give resumed[2] a gradient
        opt2.zero_grad()
        loss = _loss(resumed, consts)
        if i % 3 == 1:
            loss = loss + (resumed[2] * resumed[2]).sum() * 0.5 + resumed[2].sum()
        loss.backward()
        opt2.step()
    return resumed, opt2


@pytest.mark.parametrize("config", CONFIGS[:-2], ids=_config_id)
def test_state_dict_round_trip_continues_as_torch(device, config):
    """Without a break for all but NAdam, to the bit; NAdam's mu_product takes the parameter's dtype
    on load_state_dict (torch's policy for every state entry but "step"), so the resumed steps
    round it differently: those are compared with torch's resumed run."""
    torch = _torch()
    name, kwargs = config
    resumed, opt = _round_trip(minigrad, name, kwargs, device)
    tresumed, topt = _round_trip(torch, name, kwargs, "cpu")
    for p, tp in zip(resumed, tresumed):
        np.testing.assert_allclose(_np(p), _np(tp), **TOL["float64"])
    _assert_same_state(opt, topt, TOL["float64"])
    if name != "NAdam":
        full, _ = _run(minigrad, name, kwargs, device=device)
        for a, b in zip(full, resumed):
            np.testing.assert_array_equal(_np(a), _np(b))
    else:
        mp = opt.state[resumed[0]]["mu_product"]
        assert mp.dtype.name == "float64" and mp.device.type == device


def test_state_dict_layout_matches_torch():
    torch = _torch()
    for name, keys in (("Adamax", ["step", "exp_avg", "exp_inf"]),
                       ("NAdam", ["step", "mu_product", "exp_avg", "exp_avg_sq"]),
                       ("RAdam", ["step", "exp_avg", "exp_avg_sq"]),
                       ("Adadelta", ["step", "square_avg", "acc_delta"])):
        sds = []
        for lib in (minigrad, torch):
            params, consts = _setup(lib)
            opt = getattr(lib.optim, name)([{"params": params[:1]}, {"params": params[1:], "lr": 0.5}], lr=0.1)
            _train_sometimes(opt, params, consts, 3)
            sds.append(opt.state_dict())
        assert sds[0]["param_groups"] == sds[1]["param_groups"]
        assert list(sds[0]["state"]) == list(sds[1]["state"]) == [0, 1, 2]
        assert list(sds[0]["state"][0]) == list(sds[1]["state"][0]) == keys
        for key in keys:
            mine, theirs = sds[0]["state"][0][key], sds[1]["state"][0][key]
            assert mine.shape == tuple(theirs.shape) and mine.dtype.name == str(theirs.dtype).split(".")[1]


def test_nadam_mu_product_is_the_step_counters_dtype():
    torch = _torch()
    for default in ("float32", "float64"):
        got = []
        for lib in (minigrad, torch):
            old = lib.get_default_dtype()
            lib.set_default_dtype(getattr(lib, default))
            try:
                params, consts = _setup(lib, "float32")
                opt = lib.optim.NAdam(params, lr=0.1)
                _train_sometimes(opt, params, consts, 4)
                mp = opt.state[params[0]]["mu_product"]
                got.append((str(mp.dtype).split(".")[-1], mp.device.type, float(mp)))
            finally:
                lib.set_default_dtype(old)
        assert got[0] == got[1]


def test_step_bumps_version_and_backward_detects_it(device):
    for name in ("Adamax", "NAdam", "RAdam", "Adadelta"):
        params, consts = _setup(minigrad, device=device)
        opt = getattr(optim, name)(params, lr=0.1)
        loss = (params[0] * params[0]).sum()
        (params[0] * 2).sum().backward()
        opt.step()
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()


ERROR_CASES = [
    lambda lib: lib.optim.Adamax([_a(lib)], lr=-0.1),
    lambda lib: lib.optim.Adamax([_a(lib)], eps=-1),
    lambda lib: lib.optim.Adamax([_a(lib)], betas=(1.0, 0.9)),
    lambda lib: lib.optim.Adamax([_a(lib)], betas=(0.9, 1.5)),
    lambda lib: lib.optim.Adamax([_a(lib)], weight_decay=-1),
    lambda lib: lib.optim.Adamax([_a(lib)], lr=lib.tensor([0.1, 0.2])),
    lambda lib: lib.optim.NAdam([_a(lib)], lr=-0.1),
    lambda lib: lib.optim.NAdam([_a(lib)], eps=-1),
    lambda lib: lib.optim.NAdam([_a(lib)], betas=(-0.1, 0.9)),
    lambda lib: lib.optim.NAdam([_a(lib)], betas=(0.9, 1.0)),
    lambda lib: lib.optim.NAdam([_a(lib)], weight_decay=-1),
    lambda lib: lib.optim.NAdam([_a(lib)], momentum_decay=-1),
    lambda lib: lib.optim.RAdam([_a(lib)], lr=-0.1),
    lambda lib: lib.optim.RAdam([_a(lib)], eps=-1),
    lambda lib: lib.optim.RAdam([_a(lib)], betas=(1.0, 0.9)),
    lambda lib: lib.optim.RAdam([_a(lib)], betas=(0.9, -1)),
    lambda lib: lib.optim.RAdam([_a(lib)], weight_decay=-1),
    lambda lib: lib.optim.Adadelta([_a(lib)], lr=-0.1),
    lambda lib: lib.optim.Adadelta([_a(lib)], rho=1.1),
    lambda lib: lib.optim.Adadelta([_a(lib)], rho=-0.1),
    lambda lib: lib.optim.Adadelta([_a(lib)], eps=-1),
    lambda lib: lib.optim.Adadelta([_a(lib)], weight_decay=-1),
    lambda lib: lib.optim.Adadelta([]),
    lambda lib: lib.optim.NAdam(_a(lib)),
    # schedulers
    lambda lib: lib.optim.lr_scheduler.ConstantLR(lib.optim.SGD([_a(lib)]), factor=1.5),
    lambda lib: lib.optim.lr_scheduler.LinearLR(lib.optim.SGD([_a(lib)]), start_factor=0),
    lambda lib: lib.optim.lr_scheduler.LinearLR(lib.optim.SGD([_a(lib)]), end_factor=1.5),
    lambda lib: lib.optim.lr_scheduler.MultiplicativeLR(lib.optim.SGD([_a(lib)]), 0.9),
    lambda lib: lib.optim.lr_scheduler.MultiplicativeLR(lib.optim.SGD([_a(lib)]), [lambda e: 1, lambda e: 2]),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(lib.optim.SGD([_a(lib)]), 0),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(lib.optim.SGD([_a(lib)]), 2.0),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(lib.optim.SGD([_a(lib)]), 2, T_mult=0),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(lib.optim.SGD([_a(lib)]), 2, eta_min="x"),
    lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(lib.optim.SGD([_a(lib)]), 2).step(-1),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(lib.optim.SGD([_a(lib)]), 0.1),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(lib.optim.SGD([_a(lib)]), 0.1, total_steps=0),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(lib.optim.SGD([_a(lib)]), 0.1, epochs=0, steps_per_epoch=3),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(lib.optim.SGD([_a(lib)]), 0.1, epochs=2, steps_per_epoch=1.5),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(lib.optim.SGD([_a(lib)]), 0.1, 10, pct_start=1.5),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(lib.optim.SGD([_a(lib)]), 0.1, 10, pct_start=1),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(lib.optim.SGD([_a(lib)]), 0.1, 10, anneal_strategy="exp"),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(lib.optim.SGD([_a(lib)]), [0.1, 0.2], 10),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(lib.optim.Adagrad([_a(lib)]), 0.1, 10),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(object(), 0.1, 10),
    lambda lib: _step_past_the_end(lib),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(lib.optim.SGD([_a(lib)]), 0.1, 1.0, mode="bad"),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(lib.optim.Adagrad([_a(lib)]), 0.1, 1.0),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(lib.optim.SGD([_a(lib)]), [0.1, 0.2], 1.0),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(lib.optim.SGD([_a(lib)]), factor=1.0),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(lib.optim.SGD([_a(lib)]), mode="mid"),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(lib.optim.SGD([_a(lib)]), threshold_mode="x"),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(lib.optim.SGD([_a(lib)]), min_lr=[0.1, 0.2]),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(object()),
    lambda lib: lib.optim.lr_scheduler.SequentialLR(lib.optim.SGD([_a(lib)]), [], []),
    lambda lib: _sequential(lib, milestones=[2, 4]),
    lambda lib: _sequential(lib, other_optimizer=True),
    lambda lib: _sequential(lib, plateau=True),
    lambda lib: lib.optim.lr_scheduler.ChainedScheduler([]),
    lambda lib: _chained(lib, other_optimizer=True),
    lambda lib: _chained(lib, plateau=True),
]


def _step_past_the_end(lib):
    opt = lib.optim.SGD([_a(lib)], lr=0.1)
    sched = lib.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=3)
    for _ in range(4):
        opt.step()
        sched.step()


def _sequential(lib, milestones=(3,), other_optimizer=False, plateau=False):
    s = lib.optim.lr_scheduler
    opt = lib.optim.SGD([_a(lib)], lr=0.1)
    other = lib.optim.SGD([_a(lib)], lr=0.1) if other_optimizer else opt
    second = s.ReduceLROnPlateau(opt) if plateau else s.ExponentialLR(other, 0.9)
    return s.SequentialLR(opt, [s.ConstantLR(opt), second], list(milestones))


def _chained(lib, other_optimizer=False, plateau=False):
    s = lib.optim.lr_scheduler
    opt = lib.optim.SGD([_a(lib)], lr=0.1)
    other = lib.optim.SGD([_a(lib)], lr=0.1) if other_optimizer else opt
    second = s.ReduceLROnPlateau(opt) if plateau else s.ExponentialLR(other, 0.9)
    return s.ChainedScheduler([s.ConstantLR(opt), second])


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_match_torch(case):
    torch = _torch()
    outcomes = []
    for lib in (minigrad, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as e:
                ERROR_CASES[case](lib)
        outcomes.append((type(e.value), str(e.value).replace("minigrad", "torch")))
    assert outcomes[0] == outcomes[1]


# ---- schedulers ----------------------------------------------------------------------

def _onecycle_adam(s, opt):
    return s.OneCycleLR(opt, max_lr=[0.5, 0.1], total_steps=50, three_phase=True, base_momentum=0.8)


SCHEDULERS = [
    ("ExponentialLR", "SGD", lambda s, opt: s.ExponentialLR(opt, gamma=0.93)),
    ("LinearLR", "SGD", lambda s, opt: s.LinearLR(opt, start_factor=0.25, end_factor=0.9, total_iters=17)),
    ("LinearLR-default", "SGD", lambda s, opt: s.LinearLR(opt)),
    ("ConstantLR", "SGD", lambda s, opt: s.ConstantLR(opt, factor=0.3, total_iters=11)),
    ("ConstantLR-default", "SGD", lambda s, opt: s.ConstantLR(opt)),
    ("MultiplicativeLR", "SGD", lambda s, opt: s.MultiplicativeLR(opt, lambda e: 0.95 if e % 2 else 0.9)),
    ("MultiplicativeLR-list", "SGD", lambda s, opt: s.MultiplicativeLR(opt, [lambda e: 0.97, lambda e: 1.01])),
    ("PolynomialLR", "SGD", lambda s, opt: s.PolynomialLR(opt, total_iters=30, power=2.0)),
    ("PolynomialLR-default", "SGD", lambda s, opt: s.PolynomialLR(opt)),
    ("CosineAnnealingWarmRestarts", "SGD", lambda s, opt: s.CosineAnnealingWarmRestarts(opt, T_0=7, eta_min=0.001)),
    ("CosineAnnealingWarmRestarts-mult", "SGD", lambda s, opt: s.CosineAnnealingWarmRestarts(opt, 3, T_mult=2)),
    ("OneCycleLR-cos", "SGD", lambda s, opt: s.OneCycleLR(opt, max_lr=0.5, total_steps=50)),
    ("OneCycleLR-linear", "SGD", lambda s, opt: s.OneCycleLR(opt, max_lr=[0.5, 0.2], epochs=5, steps_per_epoch=10,
                                                            anneal_strategy="linear", pct_start=0.25)),
    ("OneCycleLR-three_phase", "SGD", lambda s, opt: s.OneCycleLR(opt, max_lr=0.5, total_steps=51,
                                                                 three_phase=True, div_factor=10.0)),
    ("OneCycleLR-adam", "Adam", _onecycle_adam),
    ("OneCycleLR-no-momentum", "Adagrad", lambda s, opt: s.OneCycleLR(opt, 0.3, total_steps=60,
                                                                     cycle_momentum=False)),
    ("CyclicLR-triangular", "SGD", lambda s, opt: s.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=6)),
    ("CyclicLR-triangular2", "SGD", lambda s, opt: s.CyclicLR(opt, [0.01, 0.02], [0.1, 0.3], step_size_up=4,
                                                             step_size_down=7, mode="triangular2")),
    ("CyclicLR-exp_range", "SGD", lambda s, opt: s.CyclicLR(opt, 0.01, 0.1, step_size_up=5, mode="exp_range",
                                                           gamma=0.97, base_momentum=0.7, max_momentum=0.95)),
    ("CyclicLR-adam", "Adam", lambda s, opt: s.CyclicLR(opt, 0.001, 0.05, step_size_up=8)),
    ("CyclicLR-scale_fn", "SGD", lambda s, opt: s.CyclicLR(opt, 0.01, 0.1, 3, scale_fn=lambda x: 0.99 ** x,
                                                          scale_mode="iterations", cycle_momentum=False)),
    ("SequentialLR", "SGD", lambda s, opt: s.SequentialLR(opt, [s.LinearLR(opt, 0.1, total_iters=5),
                                                               s.ExponentialLR(opt, 0.9)], milestones=[5])),
    ("SequentialLR-three", "SGD", lambda s, opt: s.SequentialLR(
        opt, [s.ConstantLR(opt, 0.5, 4), s.CosineAnnealingLR(opt, T_max=10), s.StepLR(opt, 3, 0.5)], [6, 20])),
    ("ChainedScheduler", "SGD", lambda s, opt: s.ChainedScheduler([s.ConstantLR(opt, 0.1, 4),
                                                                  s.ExponentialLR(opt, 0.9)])),
    ("ChainedScheduler-optimizer", "SGD", lambda s, opt: s.ChainedScheduler(
        [s.LinearLR(opt, 0.5, total_iters=8), s.MultiStepLR(opt, [10, 20, 30], 0.5)], optimizer=opt)),
]

EPOCHS = 50


def _make_opt(lib, kind, device="cpu"):
    params, consts = _setup(lib, device=device)
    groups = [{"params": params[:1], "lr": 0.1}, {"params": params[1:], "lr": 0.02}]
    if kind == "SGD":
        opt = lib.optim.SGD(groups, momentum=0.9)
    elif kind == "Adam":
        opt = lib.optim.Adam(groups)
    else:
        opt = getattr(lib.optim, kind)(groups)
    return opt, params, consts


def _hyper(opt):
    return [[g["lr"], g.get("momentum"), g.get("betas")] for g in opt.param_groups]


def _lr_history(lib, kind, make, device="cpu", epochs=EPOCHS):
    opt, params, consts = _make_opt(lib, kind, device)
    sched = make(lib.optim.lr_scheduler, opt)
    history = [_hyper(opt), sched.get_last_lr()]
    for _ in range(epochs):
        opt.zero_grad()
        _loss(params, consts).backward()
        opt.step()
        sched.step()
        history.append([_hyper(opt), sched.get_last_lr(), getattr(sched, "last_epoch", None)])
    return history, [_np(p) for p in params], opt, sched


@pytest.mark.parametrize("name,kind,make", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_scheduler_lrs_match_torch(name, kind, make):
    torch = _torch()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the right call order: no warning in either library
        mine, params, opt, sched = _lr_history(minigrad, kind, make)
        theirs, tparams, topt, tsched = _lr_history(torch, kind, make)
    assert mine == theirs  # the same float arithmetic: equal, not just close
    for p, tp in zip(params, tparams):
        np.testing.assert_allclose(p, tp, **TOL["float64"])
    assert sorted(sched.state_dict()) == sorted(tsched.state_dict())
    assert sorted(opt.param_groups[0]) == sorted(topt.param_groups[0])
    for g, tg in zip(opt.param_groups, topt.param_groups):
        for key in ("initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum"):
            assert g.get(key) == tg.get(key), key


@pytest.mark.parametrize("name,kind,make", [s for s in SCHEDULERS if "CyclicLR" in s[0] or "OneCycle" in s[0]
                                            or "Sequential" in s[0]], ids=lambda v: v if isinstance(v, str) else "")
def test_scheduler_on_device(device, name, kind, make):
    mine = _lr_history(minigrad, kind, make, device)[0]
    ref = _lr_history(minigrad, kind, make, "cpu")[0]
    assert mine == ref


@pytest.mark.parametrize("name,kind,make", SCHEDULERS, ids=[s[0] for s in SCHEDULERS])
def test_scheduler_state_dict_resumes(name, kind, make):
    """Stop after 20 epochs, save the scheduler's and optimizer's state, rebuild both, load, go on."""
    full = _lr_history(minigrad, kind, make)[0]
    opt, params, consts = _make_opt(minigrad, kind)
    sched = make(lr_scheduler, opt)
    for _ in range(20):
        opt.step()
        sched.step()
    saved_sched, saved_opt = copy.deepcopy(sched.state_dict()), copy.deepcopy(opt.state_dict())
    opt2, _, _ = _make_opt(minigrad, kind)
    sched2 = make(lr_scheduler, opt2)
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved_sched)
    assert sched2.get_last_lr() == full[21][1]
    for epoch in range(21, EPOCHS + 1):
        opt2.step()
        sched2.step()
        assert _hyper(opt2) == full[epoch + 1][0] and sched2.get_last_lr() == full[epoch + 1][1], epoch


def test_scheduler_state_dict_keys_as_torch():
    torch = _torch()
    for name, kind, make in SCHEDULERS:
        dicts = []
        for lib in (minigrad, torch):
            opt = _make_opt(lib, kind)[0]
            sd = make(lib.optim.lr_scheduler, opt).state_dict()
            dicts.append(sd)
        assert sorted(dicts[0]) == sorted(dicts[1]), name
        if "_schedulers" in dicts[1]:
            assert [sorted(d) for d in dicts[0]["_schedulers"]] == [sorted(d) for d in dicts[1]["_schedulers"]]


CLOSED_FORM = [
    ("LinearLR", lambda s, opt: s.LinearLR(opt, start_factor=0.25, end_factor=0.9, total_iters=7)),
    ("ConstantLR", lambda s, opt: s.ConstantLR(opt, factor=0.3, total_iters=5)),
    ("PolynomialLR", lambda s, opt: s.PolynomialLR(opt, total_iters=9, power=1.5)),
    ("ExponentialLR", lambda s, opt: s.ExponentialLR(opt, 0.9)),
    ("CosineAnnealingWarmRestarts", lambda s, opt: s.CosineAnnealingWarmRestarts(opt, 4, T_mult=2, eta_min=0.01)),
    ("CosineAnnealingWarmRestarts-1", lambda s, opt: s.CosineAnnealingWarmRestarts(opt, 4)),
]


@pytest.mark.parametrize("name,make", CLOSED_FORM, ids=[c[0] for c in CLOSED_FORM])
def test_step_with_epoch_uses_closed_form_as_torch(name, make):
    torch = _torch()
    got = []
    for lib in (minigrad, torch):
        opt = _make_opt(lib, "SGD")[0]
        sched = make(lib.optim.lr_scheduler, opt)
        lrs = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for epoch in (3, 1, 8, 0.5, 12.25, 20, 2):
                opt.step()
                sched.step(epoch)
                lrs.append((sched.get_last_lr(), sched.last_epoch))
        got.append((lrs, sorted({str(x.message) for x in w})))
    assert got[0] == got[1]


PLATEAU = [
    dict(),
    dict(mode="max", factor=0.5, patience=2),
    dict(patience=1, threshold=0.05, threshold_mode="abs", cooldown=2),
    dict(mode="max", patience=0, threshold=0.01, threshold_mode="abs", min_lr=[0.01, 0.005]),
    dict(factor=0.5, patience=0, min_lr=0.004, eps=1e-3),
    dict(patience=3, threshold=0.1, cooldown=1),
]


@pytest.mark.parametrize("kwargs", PLATEAU, ids=[str(k) for k in PLATEAU])
def test_reduce_lr_on_plateau_as_torch(kwargs):
    torch = _torch()
    rng = np.random.default_rng(1)
    metrics = list(np.round(np.concatenate([np.linspace(5, 1, 10), 1 + rng.uniform(-0.2, 0.2, 30),
                                            np.linspace(1, 3, 10)]), 3))
    got = []
    for lib in (minigrad, torch):
        opt, params, consts = _make_opt(lib, "SGD")
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        history = []
        for i, m in enumerate(metrics):
            opt.step()
            sched.step(lib.tensor(m) if i % 5 == 0 else float(m))
            history.append((sched.get_last_lr(), [g["lr"] for g in opt.param_groups], sched.best,
                            sched.num_bad_epochs, sched.cooldown_counter, sched.last_epoch))
        got.append((history, sorted(sched.state_dict())))
    assert got[0] == got[1]
    assert got[0][0][-1][0] != got[0][0][0][0] or kwargs.get("mode") == "max"  # the lr did move


def test_reduce_lr_on_plateau_state_dict_resumes():
    opt = _make_opt(minigrad, "SGD")[0]
    sched = lr_scheduler.ReduceLROnPlateau(opt, mode="max", patience=1, cooldown=1)
    for m in (1, 2, 2, 2):
        sched.step(m)
    saved = copy.deepcopy(sched.state_dict())
    sched2 = lr_scheduler.ReduceLROnPlateau(_make_opt(minigrad, "SGD")[0])
    sched2.load_state_dict(saved)
    assert (sched2.mode, sched2.mode_worse, sched2.best, sched2.last_epoch) == ("max", -math.inf, 2, 4)
    assert sched2._is_better(3, 2) and not sched2._is_better(2, 2)


def test_reduce_lr_on_plateau_epoch_warns_as_torch():
    torch = _torch()
    got = []
    for lib in (minigrad, torch):
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(_make_opt(lib, "SGD")[0])
        with pytest.warns(UserWarning) as record:
            sched.step(1.0, epoch=5)
        got.append(([str(w.message) for w in record], sched.last_epoch))
    assert got[0] == got[1]


def test_cyclic_lr_custom_scale_fn_object_state_dict_as_torch():
    torch = _torch()

    class Scale:
        def __init__(self):
            self.k = 2.0

        def __call__(self, x):
            return 1 / (self.k ** x)

    sds = []
    for lib in (minigrad, torch):
        opt = _make_opt(lib, "SGD")[0]
        sched = lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, 3, scale_fn=Scale())
        sds.append(sched.state_dict())
    assert sds[0]["_scale_fn_custom"] == sds[1]["_scale_fn_custom"] == {"k": 2.0}
    assert "_scale_fn_ref" not in sds[0]
    sched.load_state_dict(dict(sds[1], _scale_fn_custom={"k": 3.0}))
    assert sched._scale_fn_custom.k == 3.0


def test_get_lr_outside_step_warns():
    opt = _make_opt(minigrad, "SGD")[0]
    for sched in (lr_scheduler.LinearLR(opt), lr_scheduler.OneCycleLR(opt, 0.5, 10)):
        with pytest.warns(UserWarning, match="get_last_lr"):
            sched.get_lr()


def test_all_names_as_torch():
    torch = _torch()
    assert sorted(lr_scheduler.__all__) == sorted(torch.optim.lr_scheduler.__all__)
    for name in ("Adamax", "NAdam", "RAdam", "Adadelta"):
        assert getattr(optim, name).__name__ == name


@pytest.mark.parametrize("name,kwargs", [("Adamax", dict(lr=0.05, weight_decay=0.1)),
                                         ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
                                         ("RAdam", dict(lr=0.05, betas=(0.9, 0.8))),
                                         ("Adadelta", dict(lr=0.5, weight_decay=0.1))])
def test_large_parameter_updated_in_blocks_as_torch(name, kwargs):
    """A parameter of more than one CPU block (optimizer._BLOCK elements) and not a multiple of it."""
    torch = _torch()
    rng = np.random.default_rng(3)
    start, target = rng.standard_normal((3, 20001)), rng.standard_normal((3, 20001))
    results = []
    for lib in (minigrad, torch):
        w = lib.tensor(start, dtype=lib.float32, requires_grad=True)
        t = lib.tensor(target, dtype=lib.float32)
        opt = getattr(lib.optim, name)([w], **kwargs)
        for _ in range(6):
            opt.zero_grad()
            ((w - t) ** 2 * w.tanh()).sum().backward()
            opt.step()
        results.append(_np(w))
    np.testing.assert_allclose(results[0], results[1], **TOL["float32"])
