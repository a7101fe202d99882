"""Rprop, ASGD, Adafactor, Muon, LBFGS, swa_utils and the Optimizer hooks, against torch.optim: the
same steps on the same values in both libraries, compared parameter by parameter and state by
state (torch on the CPU as the reference; minigrad on every device)."""
import copy
import inspect
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.optim as optim
from test_optim import STEPS, TOL, _a, _config_id, _loss, _np, _setup, _tensor, _torch, run_both
from test_optim_more import _run, _train_sometimes

CONFIGS = [
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5))),
    ("Rprop", dict(lr=0.05, step_sizes=(1e-3, 0.2))),
    ("Rprop", dict(lr=0.1, maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.02, lambd=0.01, alpha=0.5, t0=5)),  # averaging from step 6 on
    ("ASGD", dict(lr=0.02, t0=3, weight_decay=0.1)),
    ("ASGD", dict(lr=0.02, t0=0, maximize=True, weight_decay=0.05)),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, d=2.0)),
    ("Adafactor", dict(lr=0.05, eps=(1e-4, 1e-2))),
    ("Adafactor", dict(lr=0.05, weight_decay=0.1)),
    ("Adafactor", dict(lr=0.05, maximize=True, weight_decay=0.2, eps=(None, 0.1))),
]


def _assert_same_state(opt, topt, tol):
    """Same state names, values and param_groups as torch's state_dict; "step" counters of
    torch's dtype, on the CPU except ASGD's (torch keeps that one on the parameter's device)."""
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
                assert mine.dtype.name == str(value.dtype).split(".")[1]
                if not isinstance(opt, optim.ASGD):
                    assert mine.device.type == "cpu"


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
def test_update_matches_torch(device, config, dtype):
    name, kwargs = config
    params, opt, tparams, topt = run_both(_run, name, kwargs, dtype, device, _assert_same_state)
    sd, tsd = opt.state_dict(), topt.state_dict()
    for i, entry in tsd["state"].items():
        assert list(sd["state"][i]) == list(entry)  # the same insertion order
        for key, value in entry.items():
            mine = sd["state"][i][key]
            assert mine.shape == tuple(value.shape) and mine.dtype.name == str(value.dtype).split(".")[1], key
            assert mine.device.type == ("cpu" if value.device.type == "cpu" and key == "step"
                                        and name != "ASGD" else device), key
    assert float(opt.state[params[2]]["step"]) == len(range(1, STEPS, 3))


@pytest.mark.parametrize("name", ["Rprop", "ASGD", "Adafactor"])
def test_tensor_lr_defaults_and_repr_as_torch(name):
    torch = _torch()
    mine = getattr(optim, name)(_setup(minigrad)[0])
    theirs = getattr(torch.optim, name)(_setup(torch)[0])
    assert mine.defaults == theirs.defaults
    assert repr(mine) == repr(theirs)
    results = []
    for lib in (minigrad, torch):
        params, consts = _setup(lib)
        opt = getattr(lib.optim, name)(params, lr=lib.tensor(0.05))
        _train_sometimes(opt, params, consts, 8)
        results.append([_np(p) for p in params])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, **TOL["float64"])


def _round_trip(lib, name, kwargs, device, setup=_setup, train=_train_sometimes):
    """Half the steps, a deep copy of state_dict() loaded into a new optimizer on copies of the
    parameters, the other half (the schedule of which steps give params[2] a gradient kept)."""
    params, consts = setup(lib, device=device)
    opt = getattr(lib.optim, name)(params, **kwargs)
    train(opt, params, consts, STEPS // 2)
    saved = copy.deepcopy(opt.state_dict())
    resumed = [p.detach().clone().requires_grad_() for p in params]
    opt2 = getattr(lib.optim, name)(resumed, **kwargs)
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["params"][0] is resumed[0]
    for i in range(STEPS // 2, STEPS):
        opt2.zero_grad()
        loss = _loss(resumed, consts) if len(resumed) == 3 else _muon_loss(resumed, consts)
        if i % 3 == 1 and len(resumed) == 3:
            loss = loss + (resumed[2] * resumed[2]).sum() * 0.5 + resumed[2].sum()
        loss.backward()
        opt2.step()
    return resumed, opt2


@pytest.mark.parametrize("config", [c for c in CONFIGS if c[1]], ids=_config_id)
def test_state_dict_round_trip_continues_as_torch(device, config):
    """Loading casts every state entry but "step" to the parameter's dtype and device (torch's
    policy), so ASGD's eta and mu go on in float64 after the load, in both libraries."""
    torch = _torch()
    name, kwargs = config
    resumed, opt = _round_trip(minigrad, name, kwargs, device)
    tresumed, topt = _round_trip(torch, name, kwargs, "cpu")
    for p, tp in zip(resumed, tresumed):
        np.testing.assert_allclose(_np(p), _np(tp), **TOL["float64"])
    _assert_same_state(opt, topt, TOL["float64"])
    if name == "ASGD":
        assert opt.state[resumed[0]]["eta"].dtype.name == "float64"
    if name in ("Rprop", "Adafactor"):  # no state changes dtype: the same bits as a run without the break
        full, _ = _run(minigrad, name, kwargs, device=device)
        for a, b in zip(full, resumed):
            np.testing.assert_array_equal(_np(a), _np(b))


def test_asgd_state_is_tensors_on_the_parameters_device(device):
    params, consts = _setup(minigrad, device=device)
    opt = optim.ASGD(params, lr=0.1, t0=1)
    _train_sometimes(opt, params, consts, 3)
    state = opt.state[params[0]]
    assert list(state) == ["step", "eta", "mu", "ax"]
    for key in ("step", "eta", "mu"):
        assert isinstance(state[key], minigrad.Tensor) and state[key].shape == () and state[key].dtype.name == \
            "float32" and state[key].device.type == device, key


# ---- Muon ---------------------------------------------------------------------------

def _muon_setup(lib, dtype="float32", device="cpu", seed=0):
    rng = np.random.default_rng(seed)
    values = [rng.standard_normal((4, 6)), rng.standard_normal((7, 3)), rng.standard_normal((5, 5))]
    consts = [rng.standard_normal((6, 5)), rng.standard_normal((4, 5))]
    return ([_tensor(lib, v, dtype, device, True) for v in values],
            [_tensor(lib, c, dtype, device) for c in consts])


def _muon_loss(params, consts):
    w1, w2, w3 = params
    x, t = consts
    return ((w1 @ x - t) ** 2).sum() + (w2 @ w2.t()).tanh().sum() + (w3 * w3).sum() * 0.1


def _muon_train(opt, params, consts, steps=STEPS):
    for _ in range(steps):
        opt.zero_grad()
        _muon_loss(params, consts).backward()
        opt.step()


MUON_CONFIGS = [dict(), dict(lr=0.02), dict(lr=0.02, nesterov=False, momentum=0.9),
                dict(lr=0.02, weight_decay=0.0, adjust_lr_fn="match_rms_adamw"),
                dict(lr=0.01, ns_steps=3, ns_coefficients=(2.0, -1.5, 0.5), adjust_lr_fn="original"),
                dict(lr=0.02, momentum=0.0, eps=1e-3)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kwargs", MUON_CONFIGS, ids=str)
def test_muon_matches_torch(device, kwargs, dtype):
    """torch runs the Newton-Schulz iteration in bfloat16; minigrad emulates it (float32 rounded to
    bfloat16 after every op). A matrix product whose float32 sum rounds differently can move one
    entry by a unit in bfloat16's last place, so the tolerance is a few of those times lr."""
    torch = _torch()
    results = []
    for lib, dev in ((minigrad, device), (torch, "cpu")):
        params, consts = _muon_setup(lib, dtype, dev)
        opt = lib.optim.Muon(params, **kwargs)
        _muon_train(opt, params, consts)
        results.append((params, opt))
    (params, opt), (tparams, topt) = results
    lr = kwargs.get("lr", 1e-3)
    for p, tp in zip(params, tparams):
        np.testing.assert_allclose(_np(p), _np(tp), rtol=0, atol=STEPS * lr * 2 ** -6)
        assert p.dtype.name == dtype and p.device.type == device
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    for i, entry in tsd["state"].items():
        assert list(sd["state"][i]) == list(entry) == ["momentum_buffer"]
        np.testing.assert_allclose(_np(sd["state"][i]["momentum_buffer"]), entry["momentum_buffer"].double().numpy(),
                                   rtol=1e-2, atol=1e-2)


def test_muon_one_step_is_torchs_bits():
    """One step from zero momentum: the bfloat16 emulation gives torch's values exactly here."""
    torch = _torch()
    results = []
    for lib in (minigrad, torch):
        params, consts = _muon_setup(lib)
        opt = lib.optim.Muon(params, lr=0.05)
        _muon_train(opt, params, consts, 1)
        results.append([_np(p) for p in params])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_muon_newton_schulz_matches_torch():
    torch = _torch()
    from torch.optim._muon import _zeropower_via_newtonschulz as theirs
    from minigrad.optim.muon import _zeropower_via_newtonschulz as mine
    from minigrad.backends import numpy_backend as be
    rng = np.random.default_rng(5)
    for shape in [(3, 4), (8, 8), (16, 5), (32, 64), (1, 7)]:
        g = rng.standard_normal(shape).astype(np.float32)
        a = mine(be, g, (3.4445, -4.7750, 2.0315), 5, 1e-7)
        b = theirs(torch.tensor(g), (3.4445, -4.7750, 2.0315), 5, 1e-7).float().numpy()
        np.testing.assert_array_equal(a, b)


# ---- LBFGS --------------------------------------------------------------------------

def _rosenbrock_setup(lib, dtype, device):
    return [_tensor(lib, [-1.5, 2.0], dtype, device, True)], None


def _rosenbrock(params, consts):
    x = params[0]
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


def _lsq_setup(lib, dtype, device):
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((20, 5)), rng.standard_normal((20, 3))
    w, bias = rng.standard_normal((5, 3)) * 0.1, np.zeros(3)
    return ([_tensor(lib, w, dtype, device, True), _tensor(lib, bias, dtype, device, True)],
            [_tensor(lib, a, dtype, device), _tensor(lib, b, dtype, device)])


def _lsq(params, consts):
    w, bias = params
    a, b = consts
    return ((a @ w + bias - b) ** 2).mean() + 0.01 * (w * w).sum()


# (problem, options, step() calls in float64, in float32): Rosenbrock's valley amplifies the last-bit
# differences of the two libraries' arithmetic (torch fuses p + alpha * d into one FMA, for one),
# so its runs stop before they would drift apart: where the loss reaches float32's noise
LBFGS_CONFIGS = [
    ("rosenbrock", dict(), 2, 1),
    ("rosenbrock", dict(line_search_fn="strong_wolfe"), 6, 1),
    ("rosenbrock", dict(lr=0.2, max_iter=10), 6, 4),
    ("rosenbrock", dict(lr=0.5, max_iter=7, history_size=3), 6, 3),
    ("rosenbrock", dict(max_iter=10, history_size=4, line_search_fn="strong_wolfe"), 4, 1),
    ("lsq", dict(max_iter=8), 6, 1),
    ("lsq", dict(lr=0.8, history_size=2, max_iter=5), 6, 2),
    ("lsq", dict(line_search_fn="strong_wolfe", max_eval=12), 6, 2),
    ("lsq", dict(line_search_fn="strong_wolfe", tolerance_grad=1e-3, tolerance_change=1e-4), 6, 2),
]
_PROBLEMS = {"rosenbrock": (_rosenbrock_setup, _rosenbrock), "lsq": (_lsq_setup, _lsq)}


def _lbfgs_run(lib, problem, kwargs, dtype, device, calls=6):
    setup, fn = _PROBLEMS[problem]
    params, consts = setup(lib, dtype, device)
    opt = lib.optim.LBFGS(params, **kwargs)
    evals = []

    def closure():
        opt.zero_grad()
        loss = fn(params, consts)
        loss.backward()
        evals.append(float(loss.detach()))
        return loss

    history = []
    for _ in range(calls):
        loss = opt.step(closure)
        history.append((float(loss.detach()), [_np(p) for p in params]))
    return history, evals, params, opt


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("problem,kwargs,calls64,calls32", LBFGS_CONFIGS,
                         ids=[c[0] + "-" + str(c[1]) for c in LBFGS_CONFIGS])
def test_lbfgs_iterates_match_torch(device, problem, kwargs, calls64, calls32, dtype):
    torch = _torch()
    calls = calls64 if dtype == "float64" else calls32
    mine, evals, params, opt = _lbfgs_run(minigrad, problem, kwargs, dtype, device, calls)
    theirs, tevals, tparams, topt = _lbfgs_run(torch, problem, kwargs, dtype, "cpu", calls)
    tol = dict(rtol=1e-6, atol=1e-9) if dtype == "float64" else dict(rtol=2e-3, atol=2e-4)
    assert len(evals) == len(tevals)  # the same number of closure calls: the same branches taken
    np.testing.assert_allclose(evals, tevals, **tol)
    for (loss, ps), (tloss, tps) in zip(mine, theirs):
        np.testing.assert_allclose(loss, tloss, **tol)
        for p, tp in zip(ps, tps):
            np.testing.assert_allclose(p, tp, **tol)
    state, tstate = opt.state_dict()["state"][0], topt.state_dict()["state"][0]
    assert list(state) == list(tstate)
    assert (state["func_evals"], state["n_iter"]) == (tstate["func_evals"], tstate["n_iter"])
    assert len(state["old_dirs"]) == len(tstate["old_dirs"]) and len(state["ro"]) == len(tstate["ro"])
    for key in ("d", "prev_flat_grad"):
        assert state[key].device.type == device and state[key].dtype.name == dtype
        np.testing.assert_allclose(_np(state[key]), tstate[key].double().numpy(), **tol)
    for key in ("t", "H_diag"):  # a Python number or a 0-d tensor where torch's is one
        assert isinstance(state[key], minigrad.Tensor) == isinstance(tstate[key], torch.Tensor), key
        np.testing.assert_allclose(float(state[key]), float(tstate[key]), **tol)
    if problem == "rosenbrock" and dtype == "float64" and kwargs == {"line_search_fn": "strong_wolfe"}:
        np.testing.assert_allclose(_np(params[0]), [1.0, 1.0], atol=1e-4)  # it did converge


def test_lbfgs_state_dict_round_trip_as_torch():
    torch = _torch()
    kwargs = dict(line_search_fn="strong_wolfe", max_iter=4, history_size=3)
    got = []
    for lib in (minigrad, torch):
        _, _, params, opt = _lbfgs_run(lib, "lsq", kwargs, "float64", "cpu", calls=2)
        saved = copy.deepcopy(opt.state_dict())
        resumed = [p.detach().clone().requires_grad_() for p in params]
        opt2 = lib.optim.LBFGS(resumed, **kwargs)
        opt2.load_state_dict(saved)
        consts = _lsq_setup(lib, "float64", "cpu")[1]

        def closure():
            opt2.zero_grad()
            loss = _lsq(resumed, consts)
            loss.backward()
            return loss

        for _ in range(3):
            opt2.step(closure)
        got.append([_np(p) for p in resumed])
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


def test_lbfgs_already_optimal_returns_at_once():
    for lib in (minigrad, _torch()):
        p = lib.tensor([1.0, 1.0], requires_grad=True)
        opt = lib.optim.LBFGS([p])
        calls = []

        def closure():
            opt.zero_grad()
            loss = _rosenbrock([p], None)
            loss.backward()
            calls.append(1)
            return loss

        assert float(opt.step(closure)) == 0.0 and len(calls) == 1 and p.tolist() == [1.0, 1.0]
        assert opt.state[p] == {"func_evals": 1, "n_iter": 0}


# ---- errors ---------------------------------------------------------------------------

def _lbfgs_no_closure(lib):
    p = _a(lib)
    lib.optim.LBFGS([p]).step()


def _lbfgs_bad_line_search(lib):
    p = _a(lib)
    opt = lib.optim.LBFGS([p], line_search_fn="wolfe")

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    opt.step(closure)


def _muon_1d_grad(lib):
    p = _tensor(lib, [[1.0, 2.0]], "float32", "cpu", True)
    opt = lib.optim.Muon([p])
    p.grad = _tensor(lib, [1.0, 2.0], "float32", "cpu")
    opt.step()


ERROR_CASES = [
    lambda lib: lib.optim.Rprop([_a(lib)], lr=-0.1),
    lambda lib: lib.optim.Rprop([_a(lib)], etas=(1.0, 1.2)),
    lambda lib: lib.optim.Rprop([_a(lib)], etas=(0.5, 0.9)),
    lambda lib: lib.optim.Rprop([_a(lib)], etas=(0.0, 1.5)),
    lambda lib: lib.optim.Rprop([_a(lib)], lr=lib.tensor([0.1, 0.2])),
    lambda lib: lib.optim.ASGD([_a(lib)], lr=-0.1),
    lambda lib: lib.optim.ASGD([_a(lib)], weight_decay=-1),
    lambda lib: lib.optim.ASGD([_a(lib)], lr=lib.tensor([0.1, 0.2])),
    lambda lib: lib.optim.Adafactor([_a(lib)], lr=-0.1),
    lambda lib: lib.optim.Adafactor([_a(lib)], beta2_decay=0.5),
    lambda lib: lib.optim.Adafactor([_a(lib)], eps=(-1.0, 1e-3)),
    lambda lib: lib.optim.Adafactor([_a(lib)], eps=(None, -1e-3)),
    lambda lib: lib.optim.Adafactor([_a(lib)], d=0.5),
    lambda lib: lib.optim.Adafactor([_a(lib)], weight_decay=-0.5),
    lambda lib: lib.optim.Muon([_a(lib)]),
    lambda lib: lib.optim.Muon([_tensor(lib, [[1.0]], "float32", "cpu", True)], lr=-1.0),
    lambda lib: lib.optim.Muon([_tensor(lib, [[1.0]], "float32", "cpu", True)], momentum=-1.0),
    lambda lib: lib.optim.Muon([_tensor(lib, [[1.0]], "float32", "cpu", True)], weight_decay=-1.0),
    lambda lib: lib.optim.Muon([_tensor(lib, [[1.0]], "float32", "cpu", True)], adjust_lr_fn="x"),
    _muon_1d_grad,
    lambda lib: lib.optim.LBFGS([_a(lib)], lr=-1.0),
    lambda lib: lib.optim.LBFGS([{"params": [_a(lib)]}, {"params": [_a(lib)], "lr": 0.5}]),
    _lbfgs_no_closure,
    _lbfgs_bad_line_search,
    lambda lib: lib.optim.swa_utils.get_ema_multi_avg_fn(1.5),
    lambda lib: lib.optim.swa_utils.get_ema_avg_fn(-0.1),
    lambda lib: lib.optim.swa_utils.AveragedModel(lib.nn.Linear(2, 2), avg_fn=lambda *a: 0,
                                                  multi_avg_fn=lambda *a: 0),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([_a(lib)]), 0.1, anneal_strategy="exp"),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([_a(lib)]), 0.1, anneal_epochs=-1),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([_a(lib)]), 0.1, anneal_epochs=2.5),
    lambda lib: lib.optim.swa_utils.SWALR(lib.optim.SGD([_a(lib)]), [0.1, 0.2]),
    lambda lib: _bad_pre_hook(lib),
]


def _bad_pre_hook(lib):
    opt = lib.optim.SGD([_a(lib)], lr=0.1)
    opt.register_step_pre_hook(lambda o, args, kwargs: 3)
    opt.step()


def _message(e):
    # a pre-hook's error names the step function: "<function SGD.step at 0x...>"
    s = str(e).replace("minigrad", "torch")
    return s.split(" at 0x")[0] if "must return None" in s else s


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_match_torch(case):
    torch = _torch()
    outcomes = []
    for lib in (minigrad, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as e:
                ERROR_CASES[case](lib)
        outcomes.append((type(e.value), _message(e.value)))
    assert outcomes[0] == outcomes[1]


# ---- signatures, defaults, names ---------------------------------------------------------------

ALL_OPTIMIZERS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "Rprop",
                  "ASGD", "LBFGS", "Adafactor", "Muon"]


@pytest.mark.parametrize("name", ALL_OPTIMIZERS)
def test_signature_as_torch(name):
    """The same keywords (maximize, foreach, differentiable, capturable, fused where torch has
    them), defaults and kinds (keyword-only or not) as torch's constructor."""
    torch = _torch()
    mine = inspect.signature(getattr(optim, name)).parameters
    theirs = inspect.signature(getattr(torch.optim, name)).parameters
    assert [(k, v.kind, v.default) for k, v in mine.items()] == [(k, v.kind, v.default) for k, v in theirs.items()]


def test_defaults_as_torch():
    torch = _torch()
    for name in ("LBFGS", "Muon"):
        made = []
        for lib in (minigrad, torch):
            setup = _muon_setup if name == "Muon" else _setup
            made.append(getattr(lib.optim, name)(setup(lib)[0][:1]))
        assert made[0].defaults == made[1].defaults
        assert repr(made[0]) == repr(made[1])


def test_names_as_torch():
    torch = _torch()
    assert sorted(optim.swa_utils.__all__) == sorted(torch.optim.swa_utils.__all__)
    # SparseAdam needs sparse gradients, which minigrad does not have
    missing = set(torch.optim.__all__) - set(optim.__all__)
    assert missing <= {"SparseAdam", "swap_in_optimizer_params_and_state"}
    for name in ("Rprop", "ASGD", "LBFGS", "Adafactor", "Muon"):
        assert getattr(optim, name).__name__ == name


# ---- hooks ---------------------------------------------------------------------------------

def _optimizer_module(lib):
    import importlib
    return importlib.import_module(lib.__name__ + ".optim.optimizer")


def _hook_log(lib):
    """Every hook kind registered on an SGD, as torch calls them: the calls, in order."""
    log = []
    params, consts = _setup(lib)
    opt = lib.optim.SGD(params, lr=0.1)
    handles = [
        _optimizer_module(lib).register_optimizer_step_pre_hook(lambda o, a, k: log.append("global pre")),
        _optimizer_module(lib).register_optimizer_step_post_hook(lambda o, a, k: log.append("global post")),
    ]
    opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", len(a), sorted(k))))
    opt.register_step_post_hook(lambda o, a, k: log.append(("post", len(a), sorted(k))))

    def closure():
        log.append("closure")
        return _loss(params, consts)

    def new_args(o, a, k):  # replace the closure: step(closure) runs the hook's one
        log.append("swap")
        return (a[0],), {"closure": closure}

    opt.register_step_pre_hook(new_args)
    opt.register_state_dict_pre_hook(lambda o: log.append("sd pre 2"))
    opt.register_state_dict_pre_hook(lambda o: log.append("sd pre 1"), prepend=True)

    def sd_post(o, sd):
        log.append("sd post")
        sd = dict(sd)
        sd["extra"] = 1
        return sd

    opt.register_state_dict_post_hook(sd_post)
    opt.register_load_state_dict_pre_hook(lambda o, sd: log.append(("load pre", sorted(sd))) or
                                          {k: v for k, v in sd.items() if k != "extra"})
    opt.register_load_state_dict_post_hook(lambda o: log.append("load post"))
    _loss(params, consts).backward()
    log.append(float(opt.step(lambda: None)))
    try:
        sd = opt.state_dict()
        log.append(sorted(sd))
        opt.load_state_dict(sd)
    finally:
        for h in handles:
            h.remove()
    handle = opt.register_step_post_hook(lambda o, a, k: log.append("removed?"))
    handle.remove()
    opt.step()
    return log, [_np(p) for p in params]


def test_hooks_as_torch():
    torch = _torch()
    mine, params = _hook_log(minigrad)
    theirs, tparams = _hook_log(torch)
    assert mine == theirs
    assert "removed?" not in mine and mine.count("global pre") == 1
    for a, b in zip(params, tparams):
        np.testing.assert_allclose(a, b, **TOL["float64"])


def test_zero_grad_set_to_none_as_torch():
    torch = _torch()
    got = []
    for lib in (minigrad, torch):
        params, consts = _setup(lib)
        opt = lib.optim.Rprop(params)
        _loss(params, consts).backward()
        opt.zero_grad(set_to_none=False)
        zeros = [None if p.grad is None else _np(p.grad).tolist() for p in params]
        opt.zero_grad()
        got.append((zeros, [p.grad for p in params]))
    assert got[0] == got[1]


# ---- swa_utils -----------------------------------------------------------------------------

def _net(lib, seed=0):
    rng = np.random.default_rng(seed)
    net = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.BatchNorm1d(5), lib.nn.ReLU(), lib.nn.Linear(5, 2))
    with lib.no_grad():
        for p in net.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)), dtype=p.dtype))
    return net


SWA_CASES = [
    ("swa", lambda su: {}),
    ("swa-buffers", lambda su: dict(use_buffers=True)),
    ("ema-multi", lambda su: dict(multi_avg_fn=su.get_ema_multi_avg_fn(0.9))),
    ("ema-avg-fn", lambda su: dict(avg_fn=su.get_ema_avg_fn(0.8), use_buffers=True)),
    ("swa-avg-fn", lambda su: dict(avg_fn=su.get_swa_avg_fn())),
    ("swa-multi", lambda su: dict(multi_avg_fn=su.get_swa_multi_avg_fn())),
]


def _swa_run(lib, make, device="cpu"):
    su = lib.optim.swa_utils
    net = _net(lib)
    if lib is minigrad:
        net = net.to(device)
    swa = su.AveragedModel(net, **make(su))
    opt = lib.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    sched = su.SWALR(opt, swa_lr=0.01, anneal_epochs=3)
    rng = np.random.default_rng(1)
    lrs = []
    for _ in range(6):
        x = _tensor(lib, rng.standard_normal((8, 4)), "float32", device if lib is minigrad else "cpu")
        opt.zero_grad()
        (net(x) ** 2).mean().backward()
        opt.step()
        swa.update_parameters(net)
        sched.step()
        lrs.append(sched.get_last_lr())
    loader = [(_tensor(lib, rng.standard_normal((8, 4)), "float32", "cpu"), 0) for _ in range(3)]
    su.update_bn(loader, swa, device=device if lib is minigrad else None)
    return swa, lrs, sched


@pytest.mark.parametrize("name,make", SWA_CASES, ids=[c[0] for c in SWA_CASES])
def test_averaged_model_as_torch(device, name, make):
    torch = _torch()
    if device == "cuda" and name == "swa-buffers":
        # torch's CUDA path averages every (device, dtype) group with the foreach kernels, and
        # foreach addcdiv refuses BatchNorm's int64 num_batches_tracked
        with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
            _swa_run(minigrad, make, device)
        return
    swa, lrs, sched = _swa_run(minigrad, make, device)
    tswa, tlrs, tsched = _swa_run(torch, make)
    assert lrs == tlrs
    sd, tsd = swa.state_dict(), tswa.state_dict()
    assert list(sd) == list(tsd)
    assert list(sd)[0] == "n_averaged" and int(sd["n_averaged"]) == 6 and sd["n_averaged"].dtype.name == "int64"
    assert sd["n_averaged"].device.type == "cpu"  # AveragedModel's device argument (None), as torch
    for key, value in tsd.items():
        assert sd[key].device.type == ("cpu" if key == "n_averaged" else device), key
        np.testing.assert_allclose(_np(sd[key]), value.double().numpy(), rtol=1e-5, atol=1e-6, err_msg=key)
    assert sorted(sched.state_dict()) == sorted(tsched.state_dict())
    assert swa.training == tswa.training and swa.module[1].momentum == 0.1


def test_swalr_lrs_and_state_dict_as_torch():
    torch = _torch()
    got = []
    for lib in (minigrad, torch):
        params, consts = _setup(lib)
        opt = lib.optim.SGD([{"params": params[:1]}, {"params": params[1:], "lr": 0.3}], lr=0.1)
        histories = []
        for kwargs in (dict(swa_lr=[0.05, 0.01], anneal_epochs=4, anneal_strategy="linear"),
                       dict(swa_lr=0.02, anneal_epochs=0), dict(swa_lr=0.02)):
            for g, lr in zip(opt.param_groups, (0.1, 0.3)):
                g["lr"] = lr
            sched = lib.optim.swa_utils.SWALR(opt, **kwargs)
            h = [sched.get_last_lr()]
            for _ in range(12):
                opt.step()
                sched.step()
                h.append(sched.get_last_lr())
            histories.append(h)
        sd = sched.state_dict()
        sched2 = lib.optim.swa_utils.SWALR(opt, 0.5)
        sched2.load_state_dict(sd)
        got.append((histories, sorted(sd), sched2.anneal_func(0.5), [g["swa_lr"] for g in opt.param_groups]))
    assert got[0] == got[1]


def test_update_bn_as_torch():
    torch = _torch()
    got = []
    for lib in (minigrad, torch):
        net = _net(lib)
        net.eval()
        net[1].momentum = 0.3
        rng = np.random.default_rng(2)
        loader = [_tensor(lib, rng.standard_normal((6, 4)), "float32", "cpu") for _ in range(4)]
        lib.optim.swa_utils.update_bn(loader, net)
        got.append((_np(net[1].running_mean), _np(net[1].running_var), int(net[1].num_batches_tracked),
                    net.training, net[1].momentum))
        lib.optim.swa_utils.update_bn(loader, lib.nn.Linear(2, 2))  # no BatchNorm: nothing to do
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-5, atol=1e-6)
    assert got[0][2:] == got[1][2:]


def test_ema_and_swa_functions_as_torch():
    torch = _torch()
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(5), rng.standard_normal(5)
    got = []
    for lib in (minigrad, torch):
        su = lib.optim.swa_utils
        x, y = lib.tensor(a), lib.tensor(b)
        n = lib.tensor(3)
        r1 = su.get_ema_avg_fn(0.7)(x, y, n)
        r2 = su.get_swa_avg_fn()(x, y, n)
        xs = [x.clone(), lib.tensor(a[:2])]
        su.get_ema_multi_avg_fn(0.6)(xs, [y, lib.tensor(b[:2])], n)
        zs = [x.clone()]
        su.get_swa_multi_avg_fn()(zs, [y], n)
        ws = [x.clone()]
        su.get_swa_multi_avg_fn()(ws, [y], 4)
        ints = [lib.tensor([10, 20])]
        su.get_ema_multi_avg_fn(0.5)(ints, [lib.tensor([0, 4])], n)
        got.append([_np(t) for t in (r1, r2, xs[0], xs[1], zs[0], ws[0], ints[0])] + [str(ints[0].dtype)[-5:]])
    for m, t in zip(got[0][:-1], got[1][:-1]):
        np.testing.assert_allclose(m, t, rtol=1e-12, atol=1e-12)
    assert got[0][-1] == got[1][-1]
