"""minigrad.nn.utils parametrize / parametrizations / weight_norm / spectral_norm / prune /
fusion / stateless / grad-norm helpers against torch.nn.utils: values, gradients, reprs,
state_dict keys, errors and warnings, on every device (the `device` fixture of conftest.py).

Every scenario is written once as a function of the library (`lib` is torch or minigrad with
its factories on the device under test) and run on both; weights come from one NumPy source.
"""
import copy
import functools
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.nn.utils.parametrize as mg_parametrize
import minigrad.nn.utils.prune as mg_prune
from minigrad.nn.utils.prune import _torch_topk_indices

torch = pytest.importorskip("torch")
import torch.nn.utils.parametrize  # noqa: E402
import torch.nn.utils.prune  # noqa: E402,F401


class _OnDevice:
    """minigrad with its factories defaulting to one device (as tests/test_nn_functional.py)."""
    _FACTORIES = ("tensor", "ones", "zeros", "rand", "randn", "full", "arange", "empty")

    def __init__(self, device):
        self._device = device

    def __getattr__(self, name):
        f = getattr(minigrad, name)
        return functools.partial(f, device=self._device) if name in self._FACTORIES else f


def _np(t):
    return t.detach().cpu().numpy()


def _libs(device):
    return torch, _OnDevice(device)


def _load(tm, mm, device):
    """Copy torch module tm's parameters and buffers into minigrad module mm (same names)."""
    for name, p in tm.named_parameters():
        mm.get_parameter(name).data = minigrad.tensor(p.detach().numpy(), device=device)
    for name, b in tm.named_buffers():
        mm.get_buffer(name).copy_(minigrad.tensor(b.detach().numpy(), device=device))


def _same_values(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(_np(a), b.detach().numpy(), rtol=rtol, atol=atol)


def _same_error(call, device, match_type=True):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as want:
            call(torch)
        with pytest.raises(Exception) as got:
            call(_OnDevice(device))
    if match_type:
        assert type(got.value).__name__ == type(want.value).__name__, str(got.value)
    assert str(got.value).replace("minigrad.", "torch.") == str(want.value), str(got.value)


def _sym_cls(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)
    return Symmetric


def _scale_cls(lib):
    class Scale(lib.nn.Module):
        def forward(self, X):
            return 2.0 * X

        def right_inverse(self, X):
            return X / 2.0
    return Scale


def _split_cls(lib):
    class Split(lib.nn.Module):  # right_inverse returns two tensors: original0, original1
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X * 0.25, X * 0.75
    return Split


def _linear_pair(device, n_in=4, n_out=4, seed=0):
    torch.manual_seed(seed)
    tm = torch.nn.Linear(n_in, n_out).double()
    mm = minigrad.nn.Linear(n_in, n_out).double().to(device)
    _load(tm, mm, device)
    return tm, mm


# ---- parametrize ---------------------------------------------------------------------------------

def test_register_parametrization_repr_keys_values_grads(device):
    tm, mm = _linear_pair(device)
    for lib, m in ((torch, tm), (minigrad, mm)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _sym_cls(lib)())
    assert repr(mm) == repr(tm)
    assert type(mm).__name__ == "ParametrizedLinear"
    assert mg_parametrize.type_before_parametrizations(mm) is minigrad.nn.Linear
    assert list(mm.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in mm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert mg_parametrize.is_parametrized(mm) and mg_parametrize.is_parametrized(mm, "weight")
    assert not mg_parametrize.is_parametrized(mm, "bias")
    _same_values(mm.weight, tm.weight)
    x = np.random.default_rng(1).standard_normal((3, 4))
    (tm(torch.tensor(x)) ** 2).sum().backward()
    (mm(minigrad.tensor(x, device=device)) ** 2).sum().backward()
    _same_values(mm.parametrizations.weight.original.grad, tm.parametrizations.weight.original.grad)
    _same_values(mm.bias.grad, tm.bias.grad)


def test_assignment_uses_right_inverse_and_chaining(device):
    tm, mm = _linear_pair(device)
    for lib, m in ((torch, tm), (minigrad, mm)):
        P = lib.nn.utils.parametrize
        P.register_parametrization(m, "weight", _scale_cls(lib)())
        original = m.parametrizations.weight.original
        P.register_parametrization(m, "weight", _sym_cls(lib)())  # chained after Scale
        assert m.parametrizations.weight.original is original
    assert repr(mm).replace("minigrad", "torch") == repr(tm)
    _same_values(mm.weight, tm.weight)
    new = np.arange(16.0).reshape(4, 4)
    with pytest.raises(RuntimeError) as want:
        tm.weight = torch.tensor(new)  # Symmetric has no right_inverse
    with pytest.raises(RuntimeError) as got:
        mm.weight = minigrad.tensor(new, device=device)
    assert str(got.value) == str(want.value)
    tm2, mm2 = _linear_pair(device)
    for lib, m in ((torch, tm2), (minigrad, mm2)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _scale_cls(lib)())
    orig_id = id(mm2.parametrizations.weight.original)
    tm2.weight = torch.tensor(new)
    mm2.weight = minigrad.tensor(new, device=device)
    assert id(mm2.parametrizations.weight.original) == orig_id  # set in place, as torch's set_
    _same_values(mm2.parametrizations.weight.original, tm2.parametrizations.weight.original)
    _same_values(mm2.weight, tm2.weight)


def test_tuple_right_inverse_and_remove(device):
    tm, mm = _linear_pair(device)
    for lib, m in ((torch, tm), (minigrad, mm)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _split_cls(lib)())
    assert list(mm.state_dict()) == list(tm.state_dict())
    _same_values(mm.parametrizations.weight.original0, tm.parametrizations.weight.original0)
    _same_values(mm.weight, tm.weight)
    _same_error(lambda lib: lib.nn.utils.parametrize.remove_parametrizations(
        tm if lib is torch else mm, "weight", leave_parametrized=False), device)
    for lib, m in ((torch, tm), (minigrad, mm)):
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight")
    assert type(mm) is minigrad.nn.Linear and not hasattr(mm, "parametrizations")
    assert isinstance(mm.weight, minigrad.nn.Parameter)
    assert list(mm.state_dict()) == list(tm.state_dict())
    _same_values(mm.weight, tm.weight)


@pytest.mark.parametrize("leave", [True, False])
def test_remove_keeps_the_parameter_object(device, leave):
    tm, mm = _linear_pair(device)
    for lib, m in ((torch, tm), (minigrad, mm)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _scale_cls(lib)())
    original = mm.parametrizations.weight.original
    for lib, m in ((torch, tm), (minigrad, mm)):
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight", leave_parametrized=leave)
    assert mm.weight is original
    _same_values(mm.weight, tm.weight)
    assert repr(mm) == repr(tm)


def test_cached_computes_once(device):
    calls = []

    class Counting(minigrad.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 1.0

    m = minigrad.nn.Linear(3, 3).to(device)
    mg_parametrize.register_parametrization(m, "weight", Counting())
    calls.clear()
    with mg_parametrize.cached():
        a, b = m.weight, m.weight
    assert a is b and len(calls) == 1
    m.weight, m.weight
    assert len(calls) == 3


def test_parametrize_errors(device):
    P = "nn.utils.parametrize"

    def reg(name, par_cls, unsafe=False):
        def call(lib):
            mod = lib.nn.Linear(3, 3)
            functools.reduce(getattr, P.split("."), lib).register_parametrization(
                mod, name, par_cls(lib)(), unsafe=unsafe)
        return call

    def shape_changer(lib):
        class First(lib.nn.Module):
            def forward(self, X):
                return X[0]
        return First

    def dtype_changer(lib):
        class ToDouble(lib.nn.Module):
            def forward(self, X):
                return X.double()
        return ToDouble

    # the message prints the module, whose repr is the same in both libraries
    _same_error(reg("nope", _sym_cls), device)
    _same_error(reg("weight", shape_changer), device)
    _same_error(reg("weight", dtype_changer), device)
    _same_error(lambda lib: lib.nn.utils.parametrize.remove_parametrizations(lib.nn.Linear(2, 2), "weight"),
                device)

    def assign_parameter(lib):
        mod = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", _scale_cls(lib)())
        mod.weight = lib.nn.Parameter(lib.zeros(3, 3))
    _same_error(assign_parameter, device)

    def pickle_it(lib):
        import pickle
        mod = lib.nn.Linear(3, 3)
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", _scale_cls(lib)())
        pickle.dumps(mod)
    _same_error(pickle_it, device)


def test_unsafe_allows_shape_change_and_deepcopy(device):
    class First(minigrad.nn.Module):
        def forward(self, X):
            return X[0]

    m = minigrad.nn.Linear(3, 2).to(device)
    mg_parametrize.register_parametrization(m, "weight", First(), unsafe=True)
    assert tuple(m.weight.shape) == (3,)
    c = copy.deepcopy(m)
    assert type(c).__name__ == "ParametrizedLinear" and type(c) is type(m)
    assert c.parametrizations.weight.original is not m.parametrizations.weight.original
    np.testing.assert_array_equal(_np(c.weight), _np(m.weight))


def test_transfer_parametrizations_and_params(device):
    src = minigrad.nn.Linear(3, 3).to(device)
    mg_parametrize.register_parametrization(src, "weight", _sym_cls(minigrad)())
    dst = minigrad.nn.Linear(3, 3).to(device)
    mg_parametrize.transfer_parametrizations_and_params(src, dst)
    assert type(dst).__name__ == "ParametrizedLinear"
    assert dst.parametrizations.weight.original is src.parametrizations.weight.original
    np.testing.assert_array_equal(_np(dst.weight), _np(src.weight))


def _adam_step(m, lib, x):
    opt = lib.optim.Adam(m.parameters(), lr=0.1)
    opt.zero_grad()
    (m(x) ** 2).mean().backward()
    opt.step()


def test_optimizer_step_on_parametrized_model(device):
    tm, mm = _linear_pair(device)
    for lib, m in ((torch, tm), (minigrad, mm)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _sym_cls(lib)())
    x = np.random.default_rng(2).standard_normal((5, 4))
    _adam_step(tm, torch, torch.tensor(x))
    _adam_step(mm, minigrad, minigrad.tensor(x, device=device))
    _same_values(mm.parametrizations.weight.original, tm.parametrizations.weight.original, 1e-10, 1e-12)
    _same_values(mm.weight, tm.weight, 1e-10, 1e-12)
    _same_values(mm.bias, tm.bias, 1e-10, 1e-12)


# ---- weight norm ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_parametrization(device, dim):
    torch.manual_seed(0)
    tm = torch.nn.Conv1d(2, 3, 3).double()
    mm = minigrad.nn.Conv1d(2, 3, 3).double().to(device)
    _load(tm, mm, device)
    torch.nn.utils.parametrizations.weight_norm(tm, dim=dim)
    minigrad.nn.utils.parametrizations.weight_norm(mm, dim=dim)
    assert repr(mm) == repr(tm)
    assert list(mm.state_dict()) == list(tm.state_dict())
    for i in (0, 1):
        _same_values(getattr(mm.parametrizations.weight, f"original{i}"),
                     getattr(tm.parametrizations.weight, f"original{i}"), 1e-12, 1e-12)
    assert mm.weight.grad_fn.name() == tm.weight.grad_fn.name()
    x = np.random.default_rng(3).standard_normal((2, 2, 5))
    (tm(torch.tensor(x)) ** 2).sum().backward()
    (mm(minigrad.tensor(x, device=device)) ** 2).sum().backward()
    for i in (0, 1):
        _same_values(getattr(mm.parametrizations.weight, f"original{i}").grad,
                     getattr(tm.parametrizations.weight, f"original{i}").grad, 1e-10, 1e-12)


def test_weight_norm_gradcheck(device):
    from minigrad.nn.utils.weight_norm import _weight_norm
    rng = np.random.default_rng(4)
    v = minigrad.tensor(rng.standard_normal((3, 4)), device=device, requires_grad=True)
    g = minigrad.tensor(rng.standard_normal((3, 1)), device=device, requires_grad=True)
    assert minigrad.autograd.gradcheck(lambda v, g: _weight_norm(v, g, 0), (v, g))
    g1 = minigrad.tensor(rng.standard_normal((1, 4)), device=device, requires_grad=True)
    assert minigrad.autograd.gradcheck(lambda v, g: _weight_norm(v, g, 1), (v, g1))


def test_weight_norm_loads_old_checkpoint(device):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2))
    sd = {k: minigrad.tensor(v.detach().numpy(), device=device) for k, v in old.state_dict().items()}
    m = minigrad.nn.utils.parametrizations.weight_norm(minigrad.nn.Linear(3, 2).to(device))
    m.load_state_dict(sd)
    _same_values(m.weight, old.weight)


def test_old_weight_norm(device):
    torch.manual_seed(0)
    tm = torch.nn.Linear(4, 3).double()
    mm = minigrad.nn.Linear(4, 3).double().to(device)
    _load(tm, mm, device)
    msgs = []
    for lib, m in ((torch, tm), (minigrad, mm)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.utils.weight_norm(m)
        msgs.append([(w.category.__name__, str(w.message)) for w in caught])
    assert msgs[0] and msgs[1] == msgs[0]
    assert list(mm.state_dict()) == list(tm.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert repr(mm) == repr(tm)
    x = np.random.default_rng(5).standard_normal((2, 4))
    (tm(torch.tensor(x)) ** 2).sum().backward()
    (mm(minigrad.tensor(x, device=device)) ** 2).sum().backward()
    _same_values(mm.weight_g.grad, tm.weight_g.grad, 1e-10, 1e-12)
    _same_values(mm.weight_v.grad, tm.weight_v.grad, 1e-10, 1e-12)
    _same_error(lambda lib: lib.nn.utils.weight_norm(tm if lib is torch else mm), device)
    for lib, m in ((torch, tm), (minigrad, mm)):
        lib.nn.utils.remove_weight_norm(m)
    assert list(mm.state_dict()) == list(tm.state_dict())
    _same_values(mm.weight, tm.weight, 1e-10, 1e-12)
    _same_error(lambda lib: lib.nn.utils.remove_weight_norm(tm if lib is torch else mm), device)


# ---- spectral norm -------------------------------------------------------------------------------

def test_spectral_norm_parametrization_sigma_is_one(device):
    minigrad.manual_seed(0)
    m = minigrad.nn.utils.parametrizations.spectral_norm(minigrad.nn.Linear(7, 5).to(device))
    assert type(m).__name__ == "ParametrizedLinear"
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original",
                                    "parametrizations.weight.0._u", "parametrizations.weight.0._v"]
    for _ in range(10):
        m(minigrad.randn(2, 7, device=device))
    top = np.linalg.svd(_np(m.weight), compute_uv=False)[0]
    assert abs(top - 1.0) < 1e-3
    m.eval()
    u = _np(m.parametrizations.weight[0]._u).copy()
    m(minigrad.randn(2, 7, device=device))
    np.testing.assert_array_equal(_np(m.parametrizations.weight[0]._u), u)  # no iteration in eval


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("kind", ["linear", "conv_transpose"])
def test_spectral_norm_matches_torch_with_its_vectors(device, train, kind):
    torch.manual_seed(0)
    if kind == "linear":
        tm, mm = torch.nn.Linear(5, 4).double(), minigrad.nn.Linear(5, 4).double().to(device)
        x = np.random.default_rng(6).standard_normal((3, 5))
    else:
        tm = torch.nn.ConvTranspose1d(3, 2, 3).double()
        mm = minigrad.nn.ConvTranspose1d(3, 2, 3).double().to(device)
        x = np.random.default_rng(6).standard_normal((2, 3, 4))
    _load(tm, mm, device)
    torch.nn.utils.parametrizations.spectral_norm(tm)
    minigrad.nn.utils.parametrizations.spectral_norm(mm)
    assert repr(mm) == repr(tm) and list(mm.state_dict()) == list(tm.state_dict())
    _load(tm, mm, device)  # torch's u and v (and the same original) into minigrad
    tm.train(train), mm.train(train)
    yt = tm(torch.tensor(x))
    ym = mm(minigrad.tensor(x, device=device))
    _same_values(ym, yt, 1e-10, 1e-12)
    (yt ** 2).sum().backward()
    (ym ** 2).sum().backward()
    _same_values(mm.parametrizations.weight.original.grad, tm.parametrizations.weight.original.grad,
                 1e-9, 1e-12)
    _same_values(mm.parametrizations.weight[0]._u, tm.parametrizations.weight[0]._u, 1e-10, 1e-12)


def test_spectral_norm_errors(device):
    _same_error(lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), "nope"), device)
    _same_error(lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2),
                                                                        n_power_iterations=0), device)
    _same_error(lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), dim=2), device)
    _same_error(lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0), device)


def test_old_spectral_norm(device):
    torch.manual_seed(0)
    tm = torch.nn.Linear(5, 4).double()
    mm = minigrad.nn.Linear(5, 4).double().to(device)
    _load(tm, mm, device)
    torch.nn.utils.spectral_norm(tm)
    minigrad.nn.utils.spectral_norm(mm)
    assert list(mm.state_dict()) == list(tm.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert mm.state_dict()._metadata[""] == tm.state_dict()._metadata[""]
    for name in ("weight_u", "weight_v"):
        getattr(mm, name).copy_(minigrad.tensor(getattr(tm, name).numpy(), device=device))
    x = np.random.default_rng(7).standard_normal((3, 5))
    for _ in range(2):
        yt, ym = tm(torch.tensor(x)), mm(minigrad.tensor(x, device=device))
        _same_values(ym, yt, 1e-10, 1e-12)
    (yt ** 2).sum().backward()
    (ym ** 2).sum().backward()
    _same_values(mm.weight_orig.grad, tm.weight_orig.grad, 1e-9, 1e-12)
    _same_error(lambda lib: lib.nn.utils.spectral_norm(tm if lib is torch else mm), device)
    sd = {k: minigrad.tensor(v.numpy(), device=device) for k, v in tm.state_dict().items()}
    mm.load_state_dict(sd)
    for lib, m in ((torch, tm), (minigrad, mm)):
        lib.nn.utils.remove_spectral_norm(m)
    assert list(mm.state_dict()) == list(tm.state_dict()) == ["bias", "weight"]
    _same_values(mm.weight, tm.weight, 1e-10, 1e-12)


# ---- prune ---------------------------------------------------------------------------------------

def test_torch_topk_tie_selection():
    rng = np.random.default_rng(0)
    for n in list(range(1, 40)) + [64, 65, 130, 257, 1000]:
        for _ in range(6):
            vals = rng.integers(0, 3, n).astype(np.float32)
            for k in {1, max(1, n // 64), n // 3 + 1, n}:
                for largest in (False, True):
                    want = np.sort(torch.topk(torch.from_numpy(vals), k, largest=largest).indices.numpy())
                    np.testing.assert_array_equal(_torch_topk_indices(vals.astype(np.float64), k, largest), want)


def _conv_pair(device, seed=0, integer=False):
    torch.manual_seed(seed)
    tm = torch.nn.Conv2d(3, 4, 2).double()
    if integer:  # many ties in |w| and in the channel norms
        with torch.no_grad():
            tm.weight.copy_(torch.randint(-2, 3, tm.weight.shape))
    mm = minigrad.nn.Conv2d(3, 4, 2).double().to(device)
    _load(tm, mm, device)
    return tm, mm


def _same_pruned(tm, mm, name="weight"):
    assert [n for n, _ in mm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert [n for n, _ in mm.named_buffers()] == [n for n, _ in tm.named_buffers()]
    _same_values(getattr(mm, name + "_mask"), getattr(tm, name + "_mask"), 0, 0)
    _same_values(getattr(mm, name), getattr(tm, name), 0, 0)


@pytest.mark.parametrize("integer", [False, True])
def test_l1_and_ln_structured_iterative(device, integer):
    tm, mm = _conv_pair(device, integer=integer)
    for lib, m in ((torch, tm), (minigrad, mm)):
        lib.nn.utils.prune.l1_unstructured(m, "weight", amount=0.3)
    _same_pruned(tm, mm)
    for lib, m in ((torch, tm), (minigrad, mm)):
        lib.nn.utils.prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
    _same_pruned(tm, mm)
    for lib, m in ((torch, tm), (minigrad, mm)):
        lib.nn.utils.prune.l1_unstructured(m, "weight", amount=5)
    _same_pruned(tm, mm)
    hook = [h for h in mm._forward_pre_hooks.values()][0]
    assert type(hook).__name__ == "PruningContainer" and len(hook) == 3
    assert [type(h).__name__ for h in hook] == ["L1Unstructured", "LnStructured", "L1Unstructured"]
    assert mg_prune.is_pruned(mm)
    x = np.random.default_rng(8).standard_normal((2, 3, 4, 4))
    _same_values(mm(minigrad.tensor(x, device=device)), tm(torch.tensor(x)), 1e-10, 1e-12)
    for lib, m in ((torch, tm), (minigrad, mm)):
        lib.nn.utils.prune.remove(m, "weight")
    assert not mg_prune.is_pruned(mm)
    assert list(mm.state_dict()) == list(tm.state_dict())
    _same_values(mm.weight, tm.weight, 0, 0)


def test_importance_scores_and_ln_structured_ties(device):
    tm, mm = _conv_pair(device)
    scores = np.random.default_rng(9).integers(0, 2, (4, 3, 2, 2)).astype(np.float64)
    torch.nn.utils.prune.ln_structured(tm, "weight", amount=0.5, n=1, dim=1,
                                       importance_scores=torch.tensor(scores))
    minigrad.nn.utils.prune.ln_structured(mm, "weight", amount=0.5, n=1, dim=1,
                                          importance_scores=minigrad.tensor(scores, device=device))
    _same_pruned(tm, mm)
    torch.nn.utils.prune.l1_unstructured(tm, "bias", amount=2, importance_scores=torch.ones(4))
    minigrad.nn.utils.prune.l1_unstructured(mm, "bias", amount=2,
                                            importance_scores=minigrad.ones(4, device=device))
    _same_pruned(tm, mm, "bias")


def test_global_and_custom_from_mask(device):
    tm, mm = _conv_pair(device)
    tl, ml = _linear_pair(device)
    for lib, (a, b) in ((torch, (tm, tl)), (minigrad, (mm, ml))):
        lib.nn.utils.prune.global_unstructured([(a, "weight"), (b, "weight"), (b, "bias")],
                                               pruning_method=lib.nn.utils.prune.L1Unstructured, amount=20)
    _same_pruned(tm, mm)
    _same_pruned(tl, ml)
    _same_pruned(tl, ml, "bias")
    mask = np.random.default_rng(10).integers(0, 2, (4,))
    torch.nn.utils.prune.custom_from_mask(tm, "bias", torch.tensor(mask))
    minigrad.nn.utils.prune.custom_from_mask(mm, "bias", minigrad.tensor(mask, device=device))
    _same_pruned(tm, mm, "bias")
    torch.nn.utils.prune.identity(tm, "weight")
    minigrad.nn.utils.prune.identity(mm, "weight")
    _same_pruned(tm, mm)


def test_random_methods_prune_the_requested_amount(device):
    m = minigrad.nn.Conv2d(3, 6, 2).to(device)
    mg_prune.random_unstructured(m, "weight", amount=0.25)
    assert int((m.weight_mask == 0).sum().item()) == round(0.25 * m.weight.numel())
    mg_prune.random_structured(m, "weight", amount=2, dim=0)
    mask = _np(m.weight_mask)
    zero_channels = int((mask.reshape(6, -1).sum(1) == 0).sum())
    assert zero_channels >= 2
    np.testing.assert_array_equal(_np(m.weight), _np(m.weight_orig) * mask)
    assert "weight" not in dict(m.named_parameters())


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.utils.prune.l1_unstructured(lib.nn.Linear(3, 2), "weight", amount=1.5),
    lambda lib: lib.nn.utils.prune.l1_unstructured(lib.nn.Linear(3, 2), "weight", amount=-1),
    lambda lib: lib.nn.utils.prune.l1_unstructured(lib.nn.Linear(3, 2), "weight", amount=7),
    lambda lib: lib.nn.utils.prune.l1_unstructured(lib.nn.Linear(3, 2), "weight", amount="a"),
    lambda lib: lib.nn.utils.prune.ln_structured(lib.nn.Linear(3, 2), "bias", amount=1, n=2, dim=0),
    lambda lib: lib.nn.utils.prune.ln_structured(lib.nn.Linear(3, 2), "weight", amount=1, n=2, dim=2),
    lambda lib: lib.nn.utils.prune.remove(lib.nn.Linear(3, 2), "weight"),
    lambda lib: lib.nn.utils.prune.global_unstructured([(lib.nn.Linear(3, 2), "weight")],
                                                       pruning_method=lib.nn.utils.prune.LnStructured,
                                                       amount=1, n=2),
], ids=["float>1", "negative", "int>size", "type", "structured-1d", "bad-dim", "remove-unpruned", "global-structured"])
def test_prune_errors(device, call):
    _same_error(call, device)


def test_failed_prune_leaves_module_unchanged(device):
    m = minigrad.nn.Linear(3, 2).to(device)
    with pytest.raises(ValueError):
        mg_prune.l1_unstructured(m, "weight", amount=10)
    assert "weight" in m._parameters and "weight_orig" not in m._parameters and not mg_prune.is_pruned(m)


def test_optimizer_step_on_pruned_model(device):
    tm, mm = _linear_pair(device)
    for lib, m in ((torch, tm), (minigrad, mm)):
        lib.nn.utils.prune.l1_unstructured(m, "weight", amount=0.5)
    x = np.random.default_rng(11).standard_normal((5, 4))
    for lib, m, xx in ((torch, tm, torch.tensor(x)), (minigrad, mm, minigrad.tensor(x, device=device))):
        opt = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        for _ in range(2):
            opt.zero_grad()
            (m(xx) ** 2).mean().backward()
            opt.step()
    _same_values(mm.weight_orig, tm.weight_orig, 1e-10, 1e-12)
    _same_values(mm.weight_orig.grad, tm.weight_orig.grad, 1e-10, 1e-12)
    _same_values(mm(minigrad.tensor(x, device=device)), tm(torch.tensor(x)), 1e-10, 1e-12)


# ---- fusion --------------------------------------------------------------------------------------

def _trained_bn(lib, bn, shape, seed):
    x = np.random.default_rng(seed).standard_normal(shape) * 3 + 1
    bn.train()
    bn(lib.tensor(x))
    with (torch.no_grad() if lib is torch else minigrad.no_grad()):
        bn.weight.mul_(1.5)
        bn.bias.add_(0.2)
    return bn.eval()


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval(device, transpose):
    lib = _OnDevice(device)
    minigrad.manual_seed(0)
    conv = (minigrad.nn.ConvTranspose2d(3, 4, 2) if transpose else minigrad.nn.Conv2d(3, 4, 2)).double()
    conv = conv.to(device).eval()
    bn = _trained_bn(lib, minigrad.nn.BatchNorm2d(4).double().to(device), (5, 4, 3, 3), 12)
    fused = minigrad.nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    assert type(fused) is type(conv) and fused is not conv
    x = minigrad.tensor(np.random.default_rng(13).standard_normal((2, 3, 5, 5)), device=device)
    np.testing.assert_allclose(_np(fused(x)), _np(bn(conv(x))), rtol=1e-10, atol=1e-12)
    assert isinstance(fused.weight, minigrad.nn.Parameter) and fused.weight.requires_grad
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        minigrad.nn.utils.fuse_conv_bn_eval(conv.train(), bn)


def test_fuse_linear_bn_and_weights_match_torch(device):
    lib = _OnDevice(device)
    lin = minigrad.nn.Linear(3, 4, bias=False).double().to(device).eval()
    bn = _trained_bn(lib, minigrad.nn.BatchNorm1d(4).double().to(device), (6, 4), 14)
    fused = minigrad.nn.utils.fuse_linear_bn_eval(lin, bn)
    x = minigrad.tensor(np.random.default_rng(15).standard_normal((2, 3)), device=device)
    np.testing.assert_allclose(_np(fused(x)), _np(bn(lin(x))), rtol=1e-10, atol=1e-12)
    rng = np.random.default_rng(16)
    args = [rng.standard_normal(s) for s in ((4, 3, 2), (4,), (4,), (4,), (4,), (4,))]
    args[3] = np.abs(args[3])
    want = torch.nn.utils.fuse_conv_bn_weights(*(torch.tensor(a) for a in args[:4]), 1e-5,
                                               *(torch.tensor(a) for a in args[4:]))
    got = minigrad.nn.utils.fuse_conv_bn_weights(*(lib.tensor(a) for a in args[:4]), 1e-5,
                                                 *(lib.tensor(a) for a in args[4:]))
    for g, w in zip(got, want):
        _same_values(g, w, 1e-12, 1e-12)
    want = torch.nn.utils.fuse_linear_bn_weights(torch.tensor(args[0][..., 0]), None,
                                                 *(torch.tensor(a) for a in args[2:4]), 1e-5,
                                                 *(torch.tensor(a) for a in args[4:]))
    got = minigrad.nn.utils.fuse_linear_bn_weights(lib.tensor(args[0][..., 0]), None,
                                                   *(lib.tensor(a) for a in args[2:4]), 1e-5,
                                                   *(lib.tensor(a) for a in args[4:]))
    for g, w in zip(got, want):
        _same_values(g, w, 1e-12, 1e-12)
        assert g.requires_grad == w.requires_grad


# ---- functional_call -----------------------------------------------------------------------------

def _mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 2))


def test_functional_call_values_grads_and_restore(device):
    from minigrad.nn.utils.stateless import functional_call
    torch.manual_seed(0)
    tm = _mlp(torch).double()
    mm = _mlp(minigrad).double().to(device)
    _load(tm, mm, device)
    rng = np.random.default_rng(17)
    new = {"0.weight": rng.standard_normal((4, 3)), "2.bias": rng.standard_normal(2),
           "1.running_mean": rng.standard_normal(4)}
    tp = {k: torch.tensor(v, requires_grad=k != "1.running_mean") for k, v in new.items()}
    mp = {k: minigrad.tensor(v, device=device, requires_grad=k != "1.running_mean") for k, v in new.items()}
    x = rng.standard_normal((5, 3))
    tm.eval(), mm.eval()
    before = {k: _np(v).copy() for k, v in mm.state_dict().items()}
    yt = torch.func.functional_call(tm, tp, (torch.tensor(x),))
    ym = functional_call(mm, mp, (minigrad.tensor(x, device=device),))
    _same_values(ym, yt, 1e-10, 1e-12)
    (yt ** 2).sum().backward()
    (ym ** 2).sum().backward()
    for k in ("0.weight", "2.bias"):
        _same_values(mp[k].grad, tp[k].grad, 1e-10, 1e-12)
    assert mm[0].weight.grad is None
    for k, v in mm.state_dict().items():
        np.testing.assert_array_equal(_np(v), before[k])
    assert isinstance(mm[0].weight, minigrad.nn.Parameter)
    # a tuple of dicts; kwargs; args not in a tuple
    y2 = functional_call(mm, ({"0.weight": mp["0.weight"]}, {"2.bias": mp["2.bias"]}),
                         minigrad.tensor(x, device=device))
    y3 = functional_call(mm, {"0.weight": mp["0.weight"], "2.bias": mp["2.bias"]}, (),
                         {"input": minigrad.tensor(x, device=device)})
    np.testing.assert_allclose(_np(y2), _np(y3))


def test_functional_call_restores_after_error(device):
    from minigrad.nn.utils.stateless import functional_call
    m = minigrad.nn.Linear(3, 2).to(device)
    w = m.weight
    with pytest.raises(Exception):
        functional_call(m, {"weight": minigrad.zeros(2, 3, device=device)}, (minigrad.zeros(4, 5, device=device),))
    assert m.weight is w and m._parameters["weight"] is w


def test_functional_call_tied_weights(device):
    from minigrad.nn.utils.stateless import functional_call

    def tied(lib):
        m = lib.nn.Sequential(lib.nn.Linear(3, 3, bias=False), lib.nn.Linear(3, 3, bias=False))
        m[1].weight = m[0].weight
        return m
    mm = tied(minigrad).to(device)
    x = minigrad.ones(1, 3, device=device)
    w = minigrad.eye(3, device=device) * 2
    y = functional_call(mm, {"0.weight": w}, (x,))
    np.testing.assert_allclose(_np(y), 4 * np.ones((1, 3)))
    y = functional_call(mm, {"0.weight": w}, (x,), tie_weights=False)
    np.testing.assert_allclose(_np(y), 2 * _np(mm[1](x)))
    _same_error(lambda lib: (torch.func.functional_call if lib is torch else functional_call)(
        tied(lib), {"0.weight": lib.ones(3, 3), "1.weight": lib.zeros(3, 3)}, (lib.ones(1, 3),)), device)


@pytest.mark.parametrize("case", ["strict-missing", "strict-unexpected", "repeated", "not-dict", "bad-element"])
def test_functional_call_errors(device, case):
    from minigrad.nn.utils.stateless import functional_call

    def call(lib):
        fc = torch.func.functional_call if lib is torch else functional_call
        m = lib.nn.Linear(3, 2)
        x = lib.ones(1, 3)
        if case == "strict-missing":
            return fc(m, {"weight": lib.ones(2, 3)}, (x,), strict=True)
        if case == "strict-unexpected":
            return fc(m, {"weight": lib.ones(2, 3), "bias": lib.ones(2), "extra": lib.ones(1)}, (x,),
                      strict=True)
        if case == "repeated":
            return fc(m, ({"weight": lib.ones(2, 3)}, {"weight": lib.ones(2, 3)}), (x,))
        if case == "not-dict":
            return fc(m, 3, (x,))
        return fc(m, ({"weight": lib.ones(2, 3)}, 3), (x,))
    _same_error(call, device)


# ---- grad norms ----------------------------------------------------------------------------------

@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf"), 3.5])
def test_get_total_norm_and_clip(device, norm_type):
    rng = np.random.default_rng(18)
    arrays = [rng.standard_normal(s) for s in ((3, 4), (5,), ())]
    results = []
    for lib in _libs(device):
        ps = [lib.tensor(a, requires_grad=True) for a in arrays]
        for p, a in zip(ps, arrays):
            p.grad = lib.tensor(a * 3)
        total = lib.nn.utils.get_total_norm([p.grad for p in ps], norm_type)
        lib.nn.utils.clip_grads_with_norm_(ps, 1.0, total)
        ps2 = [lib.tensor(a, requires_grad=True) for a in arrays]
        for p, a in zip(ps2, arrays):
            p.grad = lib.tensor(a * 3)
        total2 = lib.nn.utils.clip_grad_norm_(ps2, 1.0, norm_type)
        results.append((total, [p.grad for p in ps], total2, [p.grad for p in ps2]))
    (tt, tg, tt2, tg2), (mt, mg, mt2, mg2) = results
    _same_values(mt, tt, 1e-12, 1e-12)
    _same_values(mt2, tt2, 1e-12, 1e-12)
    for a, b in zip(mg + mg2, tg + tg2):
        _same_values(a, b, 1e-12, 1e-12)


def test_grad_norm_edge_cases(device):
    lib = _OnDevice(device)
    assert float(minigrad.nn.utils.get_total_norm([])) == 0.0
    for l_ in (torch, lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            l_.nn.utils.clip_grad_norm_((p for p in []), 1.0)
        assert [str(w.message) for w in caught] == \
            ["`parameters` is an empty generator, no gradient clipping will occur."]

    def nonfinite(lib):
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        p.grad = lib.tensor([float("inf"), 1.0])
        lib.nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    _same_error(nonfinite, device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = lib.tensor([3.0, 4.0], requires_grad=True)
        p.grad = lib.tensor([3.0, 4.0])
        total = minigrad.nn.utils.clip_grad_norm(p, 1.0)
    assert float(total) == 5.0 and caught and caught[0].category is FutureWarning
    np.testing.assert_allclose(_np(p.grad), [0.6, 0.8], rtol=1e-5)
