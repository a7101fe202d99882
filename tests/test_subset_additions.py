"""Pieces of torch's common subset checked against torch 2.13 (skipped where torch is missing):
inference_mode and inference tensors, the activation and loss modules ELU, GELU, Softplus,
Softsign and HuberLoss, WeightedRandomSampler, Tensor.data_ptr, and the 0, -inf and negative
vector norms (with clip_grad_norm_ over them).
"""
import math
import threading
from collections import Counter

import numpy as np
import pytest

import minigrad
import minigrad.nn as nn
from minigrad.autograd import gradcheck, gradgradcheck
from minigrad.utils.data import DataLoader, TensorDataset, WeightedRandomSampler
from test_compat import run_both, same


def raised(fn):
    """(exception type name, message) of what fn() raises, or None when it returns."""
    try:
        fn()
    except Exception as e:
        return type(e).__name__, str(e)
    return None


INFERENCE_SAVED = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in "
                   "inference mode in computation tracked by autograd. To work around this, you can make a "
                   "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
                   "`torch.inference_mode()`.")
INFERENCE_INPLACE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
                     "clone to get a normal tensor before doing inplace update.See "
                     "https://github.com/pytorch/rfcs/pull/17 for more details.")


# ---- inference_mode -------------------------------------------------------------------------------

def _inference_state_program(torch):
    w = torch.ones(3, requires_grad=True)
    normal = torch.ones(3)
    with torch.inference_mode():
        state = [torch.is_inference_mode_enabled(), torch.is_grad_enabled()]
        made = [torch.ones(2), torch.tensor([1.0]), torch.arange(3), torch.from_numpy(np.ones(2)), w * 2,
                w.sum(), normal.double(), torch.ones(3, requires_grad=True)]
        views_of_normal = [normal[:2], normal.view(3, 1), normal.detach(), normal.data, w.t()]
        a = torch.ones(3)
        views_of_inference = [a[1:], a.view(1, 3), a.detach(), a.data, a.float(), a.contiguous()]
        nograd = (w * 2).requires_grad, (w * 2).grad_fn
        with torch.inference_mode(False):  # leaves inference mode with grad mode on
            inner = [torch.is_inference_mode_enabled(), torch.is_grad_enabled(), torch.ones(1).is_inference(),
                     (w * 2).grad_fn is not None]
        with torch.enable_grad():  # grad mode on, and still nothing recorded
            enabled = [torch.is_grad_enabled(), (w * 2).grad_fn, (w * 2).requires_grad]
        torch.set_grad_enabled(True)
        set_enabled = [torch.is_grad_enabled(), (w * 2).grad_fn]
    after = [torch.is_inference_mode_enabled(), torch.is_grad_enabled()]
    outside = [(a * 2).is_inference(), a.clone().is_inference(), a.double().is_inference(), w.is_inference(),
               (w + a).grad_fn is not None, (a + 1).requires_grad]
    with torch.no_grad():
        with torch.inference_mode():
            in_no_grad = torch.is_grad_enabled()
        after_no_grad = torch.is_grad_enabled()
        with torch.inference_mode(False):
            false_in_no_grad = torch.is_grad_enabled()
    return (state + [t.is_inference() for t in made] + [made[-1].requires_grad]
            + [t.is_inference() for t in views_of_normal] + [views_of_normal[0].requires_grad]
            + [t.is_inference() for t in views_of_inference] + list(nograd) + inner + enabled + set_enabled
            + after + outside + [in_no_grad, after_no_grad, false_in_no_grad])


def test_inference_mode_state_and_which_tensors_are_inference_tensors():
    mine, theirs = run_both(_inference_state_program)
    same(mine, theirs)
    assert mine[:2] == [True, False] and mine[-3:] == [False, False, True]
    assert mine[2:10] == [True] * 8  # everything made inside, requires_grad=True included


def _decorator_program(torch):
    w = torch.ones(2, requires_grad=True)

    @torch.inference_mode
    def bare(x):
        return x * 2, torch.is_inference_mode_enabled()

    @torch.inference_mode()
    def called(x):
        return x * 2, torch.is_grad_enabled()

    @torch.inference_mode(mode=False)
    def off(x):
        return x * 2, torch.is_inference_mode_enabled()

    out = []
    for f in (bare, called):
        y, flag = f(w)
        out += [flag, y.is_inference(), y.requires_grad, f.__name__]
    with torch.inference_mode():
        y, flag = off(w)
    out += [flag, y.is_inference(), y.grad_fn is not None, off.__name__, torch.is_inference_mode_enabled()]
    mode = torch.inference_mode(False)
    out += [mode.mode, mode.clone().mode, torch.inference_mode().mode]
    return out


def test_inference_mode_decorators():
    mine, theirs = run_both(_decorator_program)
    same(mine, theirs)
    assert mine[:4] == [True, True, False, "bare"]


def test_inference_mode_is_per_thread():
    seen = []

    def worker():
        seen.append((minigrad.is_inference_mode_enabled(), minigrad.is_grad_enabled(),
                     minigrad.ones(1).is_inference()))

    with minigrad.inference_mode():
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert minigrad.ones(1).is_inference()
    assert seen == [(False, True, False)]


def _saved_program(torch):
    F = torch.nn.functional
    w = torch.ones(3, requires_grad=True)
    m = torch.ones(2, 3, requires_grad=True)
    with torch.inference_mode():
        a = torch.full((3,), 2.0)
        labels = torch.tensor([0, 2])
        features = torch.ones(4, 3)
    y = w * 1
    lin = torch.nn.Linear(3, 2)
    attempts = [lambda: w * a, lambda: a @ w, lambda: w.exp() * a, lambda: F.mse_loss(w, a),
                lambda: lin(features), lambda: F.cross_entropy(m, labels), lambda: F.nll_loss(m, labels),
                lambda: y.mul_(a), lambda: w.pow(a),
                # nothing of a kept for backward: allowed
                lambda: w + a, lambda: torch.where(a > 1, w, a), lambda: w.sum() + a.sum(), lambda: y.add_(a),
                lambda: F.l1_loss(w, a), lambda: torch.cat([w, a])]
    results = [raised(f) for f in attempts]
    with torch.no_grad():  # nothing recorded, nothing saved
        results.append(raised(lambda: lin(features).sum() * a))
    # the workaround torch's message suggests
    loss = (w * a.clone()).sum()
    loss.backward()
    return results + [w.grad]


def test_inference_tensors_cannot_be_saved_for_backward():
    mine, theirs = run_both(_saved_program)
    same(mine, theirs)
    assert mine[0] == ("RuntimeError", INFERENCE_SAVED)
    assert all(r is None for r in mine[9:-1])


def _inplace_program(torch):
    w = torch.ones(3, requires_grad=True)
    with torch.inference_mode():
        a = torch.ones(4)
        a.add_(1)  # in place inside inference mode: allowed
        inside = [a.mul_(2).is_inference(), raised(lambda: a.__setitem__(0, 5.0))]
        w.mul_(2)  # a normal leaf that requires grad, changed in place with nothing recorded
        b = torch.ones(3, requires_grad=True)
    errors = [raised(f) for f in (lambda: a.add_(1), lambda: a.__setitem__(0, 1.0), lambda: a.zero_(),
                                  lambda: a.fill_(3.0), lambda: a.copy_(torch.ones(4)), lambda: a.clamp_(0, 1),
                                  lambda: a[1:].mul_(2), lambda: a._version, lambda: a.requires_grad_(),
                                  lambda: setattr(a, "requires_grad", True), lambda: torch.nn.Parameter(a))]
    with torch.no_grad():
        errors.append(raised(lambda: a.sub_(1)))
    fine = [raised(lambda: a.requires_grad_(False)), torch.nn.Parameter(a, requires_grad=False).is_inference(),
            raised(lambda: a.detach_()), raised(lambda: a[1:].detach_()), b.requires_grad, b.is_inference(),
            (b * 2).grad_fn is not None]
    normal = torch.zeros(4)
    normal.data = a  # a normal tensor given an inference tensor's data becomes one, and back
    became = normal.is_inference()
    normal.data = torch.zeros(4)
    return inside + errors + fine + [w, w._version, became, normal.is_inference(), a]


def test_inference_tensors_cannot_change_in_place_outside_inference_mode():
    mine, theirs = run_both(_inplace_program)
    same(mine[:-1], theirs and theirs[:-1])
    assert mine[2] == ("RuntimeError", INFERENCE_INPLACE)
    # minigrad refuses before writing (torch writes, then raises): a keeps its value from inside
    np.testing.assert_array_equal(mine[-1].numpy(), [5.0, 4.0, 4.0, 4.0])


def _view_made_in_inference_mode_program(torch):
    w = torch.ones(4, requires_grad=True)
    base = w * 1
    with torch.inference_mode():
        v = base[:2]
        other = base[2:]
    out = [v.is_inference(), v.requires_grad, v.grad_fn, raised(lambda: v.mul_(2))]
    base2 = w * 1
    with torch.inference_mode():
        v2 = base2[:2]
    v3 = v2.view(2)  # made from it in normal mode
    out.append(raised(lambda: v3.mul_(2)))
    base.add_(1)  # the base changes: the views made in inference mode can no longer be used
    out += [raised(lambda: other.grad_fn), raised(lambda: other * 2), repr(other)]
    base3 = w * 1
    with torch.no_grad():
        u = base3[:2]
    out.append(raised(lambda: u.mul_(2)))  # the no_grad wording is unchanged
    return out


def test_views_made_in_inference_mode_name_it_in_their_errors():
    mine, theirs = run_both(_view_made_in_inference_mode_program)
    same(mine, theirs)
    assert mine[3][1].startswith("A view was created in inference mode and is being modified inplace in normal "
                                 "mode.") and "inside the inference_mode block" in mine[3][1]
    assert mine[4][1].startswith("Output 0 of View is a view of a view which was created in inference mode")
    assert mine[5][1].startswith("A view was created in inference mode and its base or another view of its base "
                                 "has been modified inplace in normal mode.")
    assert mine[-1][1].startswith("A view was created in no_grad mode and is being modified inplace with grad mode "
                                  "enabled.")


def _backward_in_inference_mode_program(torch):
    w = torch.ones(3, requires_grad=True)
    y = (w * w).sum()
    with torch.inference_mode():
        (grad,) = torch.autograd.grad(y, w, create_graph=True)  # made here: an inference tensor, no graph
        y.backward()
    return [grad, grad.is_inference(), grad.grad_fn, grad.requires_grad, w.grad, w.grad.is_inference()]


def test_backward_inside_inference_mode_records_nothing():
    mine, theirs = run_both(_backward_in_inference_mode_program)
    same(mine, theirs)
    assert mine[1] is True and mine[2] is None


def test_inference_mode_evaluation_loop():
    """The idiom: evaluate under inference_mode, then keep training the same model."""
    minigrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    opt = minigrad.optim.SGD(model.parameters(), lr=0.1)
    x, y = minigrad.randn(16, 4), minigrad.randint(0, 2, (16,))
    with minigrad.inference_mode():
        before = nn.functional.cross_entropy(model(x), y)
    assert before.is_inference() and before.grad_fn is None
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    assert not loss.is_inference() and loss.item() == pytest.approx(before.item())
    assert not any(p.is_inference() for p in model.parameters())


# ---- activation and loss modules --------------------------------------------------------------------

_MODULES = ["nn.GELU()", "nn.GELU('tanh')", "nn.GELU(approximate='tanh')", "nn.GELU('foo')", "nn.ELU()",
            "nn.ELU(0.5, True)", "nn.ELU(alpha=2)", "nn.ELU(1)", "nn.Softplus()", "nn.Softplus(2, 10)",
            "nn.Softplus(beta=0.5)", "nn.Softsign()", "nn.HuberLoss()", "nn.HuberLoss(delta=2.0, reduction='sum')",
            "nn.Sequential(nn.Linear(2, 3), nn.GELU('tanh'), nn.ELU(), nn.Softplus(beta=2), nn.Softsign())"]


def _module_repr_program(torch):
    nn = torch.nn
    reprs = [repr(eval(m)) for m in _MODULES]
    attrs = [(m.approximate,) for m in (nn.GELU(),)] + [(m.alpha, m.inplace) for m in (nn.ELU(),)]
    attrs += [(m.beta, m.threshold) for m in (nn.Softplus(),)] + [(m.reduction, m.delta) for m in (nn.HuberLoss(),)]
    errors = [raised(lambda: nn.HuberLoss(delta="1")), raised(lambda: nn.HuberLoss(delta=None)),
              raised(lambda: nn.GELU("foo")(torch.ones(2))),
              raised(lambda: nn.HuberLoss(reduction="avg")(torch.ones(2), torch.ones(2))),
              raised(lambda: nn.ELU()(torch.tensor([1, 2]))), raised(lambda: nn.Softplus()(torch.tensor([1, 2])))]
    return reprs + attrs + errors


def test_module_reprs_and_errors_match_torch():
    mine, theirs = run_both(_module_repr_program)
    same(mine, theirs)
    assert mine[:2] == ["GELU(approximate='none')", "GELU(approximate='tanh')"]
    assert mine[5] == "ELU(alpha=0.5, inplace=True)" and mine[9] == "Softplus(beta=2, threshold=10)"


def test_modules_are_exported_as_in_torch():
    for name in ("ELU", "GELU", "Softplus", "Softsign", "HuberLoss"):
        assert getattr(nn, name) is getattr(nn.modules, name) and name in nn.modules.__all__
        assert issubclass(getattr(nn, name), nn.Module)
    assert "softsign" in nn.functional.__all__


def _module_forward_program(torch, device):
    nn = torch.nn
    x = torch.tensor([[-30.0, -2.0, -0.5, 0.0], [0.5, 3.0, 19.0, 25.0]], dtype=torch.float64, device=device,
                     requires_grad=True)
    target = torch.tensor([[0.0, -1.0, 1.0, 0.2], [2.0, 0.0, 19.5, -5.0]], dtype=torch.float64, device=device)
    modules = [nn.GELU(), nn.GELU("tanh"), nn.ELU(), nn.ELU(0.3), nn.Softplus(), nn.Softplus(2, 5), nn.Softsign()]
    out = []
    for m in modules:
        y = m(x)
        (g,) = torch.autograd.grad((y * y).sum(), x)
        out += [y, g, y.grad_fn.name()]
    for m in (nn.HuberLoss(), nn.HuberLoss(delta=0.7), nn.HuberLoss("sum", 2.0), nn.HuberLoss("none", 0.5)):
        loss = m(x, target)
        (g,) = torch.autograd.grad(loss.sum(), x)
        out += [loss, g, loss.grad_fn.name()]
    z = x.detach().clone()
    y = nn.ELU(0.5, inplace=True)(z)
    return out + [y, y is z]


def test_module_forward_and_gradients_match_torch(device):
    mine, theirs = run_both(_module_forward_program, device)
    same(mine, theirs, rtol=1e-12, atol=1e-14)
    assert mine[-1] is True


def test_modules_gradcheck():
    minigrad.manual_seed(1)
    x = minigrad.randn(3, 4, dtype=minigrad.float64, requires_grad=True)
    t = minigrad.randn(3, 4, dtype=minigrad.float64)
    for m in (nn.GELU(), nn.GELU("tanh"), nn.ELU(0.7), nn.Softplus(1.5, 3.0), nn.Softsign()):
        assert gradcheck(m, (x,)) and gradgradcheck(m, (x,))
    assert gradcheck(lambda a: nn.HuberLoss(delta=0.5)(a, t), (x,))


def test_gelu_module_default_is_the_exact_form():
    x = minigrad.tensor([-1.5, 0.25, 2.0], requires_grad=True)
    y = nn.GELU()(x)
    assert y.grad_fn.name() == "GeluBackward0"
    np.testing.assert_allclose(y.detach().numpy(), [-0.10021086, 0.14967658, 1.9544997], rtol=1e-6)  # torch 2.13
    assert not np.allclose(y.detach().numpy(), nn.GELU("tanh")(x).detach().numpy(), rtol=1e-6, atol=0)


# ---- WeightedRandomSampler -------------------------------------------------------------------------

def _sampler_errors_program(torch):
    W = torch.utils.data.WeightedRandomSampler
    inf, nan = math.inf, math.nan
    at_construction = [raised(lambda: W([1.0, 2.0], n)) for n in (0, -1, 2.0, True, None)]
    at_construction += [raised(lambda: W([1.0, 2.0], 2, replacement=r)) for r in (1, None, "yes")]
    at_construction += [raised(lambda: W([[1.0, 2.0], [3.0, 4.0]], 2)), raised(lambda: W(3.0, 2)),
                        raised(lambda: W(["a"], 2))]
    at_iteration = []
    for replacement in (True, False):
        for n in (1, 2):
            for w in ([1.0, -1.0], [1.0, inf], [1.0, nan], [0.0, 0.0], [], [-1.0, inf], [nan, -1.0], [inf, nan]):
                at_iteration.append(raised(lambda: list(W(w, n, replacement=replacement))))
    at_iteration += [raised(lambda: list(W([1.0, 1.0], 3, replacement=False))),
                     raised(lambda: list(W([-1.0, 1.0], 3, replacement=False))),
                     raised(lambda: list(W([1.0, 2.0], 2, generator=3))),
                     raised(lambda: list(W(torch.ones(2 ** 24 + 1), 1)))]
    sampler = W((1, 2), 5)  # checked when iterated, as torch's are
    attrs = [sampler.weights, sampler.num_samples, sampler.replacement, sampler.generator, len(sampler),
             W(torch.tensor([1, 2]), 1).weights, W(np.array([0.5, 2.0], dtype=np.float32), 1).weights,
             W([True, False], 1).weights, isinstance(sampler, torch.utils.data.Sampler),
             list(W([0.0, 3.0, 0.0], 4)), sorted(W([1.0, 0.0, 1.0], 3, replacement=False)),
             list(W([2.0], 3))]
    return at_construction + at_iteration + attrs


def test_weighted_random_sampler_checks_and_attributes_match_torch():
    mine, theirs = run_both(_sampler_errors_program)
    same(mine, theirs)
    assert mine[0] == ("ValueError", "num_samples should be a positive integer value, but got num_samples=0")
    assert mine[-3:] == [[1, 1, 1, 1], [0, 1, 2], [0, 0, 0]]


def test_weighted_random_sampler_distribution_with_replacement():
    weights = [0.5, 0.0, 2.0, 1.5]
    n = 40000
    counts = Counter(WeightedRandomSampler(weights, n, generator=minigrad.Generator().manual_seed(3)))
    assert counts[1] == 0 and set(counts) == {0, 2, 3}
    for i, w in enumerate(weights):
        p = w / sum(weights)
        assert abs(counts[i] - n * p) <= 5 * math.sqrt(n * p * (1 - p)) + 1e-9  # 5 standard deviations


def test_weighted_random_sampler_without_replacement():
    weights = [1.0, 2.0, 3.0, 4.0, 0.0]
    gen = minigrad.Generator().manual_seed(5)
    sampler = WeightedRandomSampler(weights, 5, replacement=False, generator=gen)
    passes = [list(sampler) for _ in range(8000)]
    for draw in passes:  # each index once, the zero weight last
        assert sorted(draw) == [0, 1, 2, 3, 4] and draw[-1] == 4
    first = Counter(d[0] for d in passes)
    for i, w in enumerate(weights[:4]):  # the first draw is proportional to the weights
        p = w / 10
        assert abs(first[i] - 8000 * p) <= 5 * math.sqrt(8000 * p * (1 - p))
    # the second draw is proportional to the weights left: P(second = 0 | first = 3) = 1 / 6
    after_3 = [d[1] for d in passes if d[0] == 3]
    assert abs(after_3.count(0) / len(after_3) - 1 / 6) < 0.05


def test_weighted_random_sampler_generators_and_dataloader():
    weights = minigrad.tensor([0.1, 0.9, 0.4, 0.7, 3.0, 0.6])

    def draws(seed, **kw):
        return list(WeightedRandomSampler(weights, 20, generator=minigrad.Generator().manual_seed(seed), **kw))

    assert draws(0) == draws(0) and draws(0) != draws(1)
    shuffled = list(WeightedRandomSampler(weights, 6, False, minigrad.Generator().manual_seed(0)))
    assert sorted(shuffled) == list(range(6))
    assert shuffled == list(WeightedRandomSampler(weights, 6, False, minigrad.Generator().manual_seed(0)))
    minigrad.manual_seed(7)
    a = list(WeightedRandomSampler(weights, 20))
    minigrad.manual_seed(7)
    assert list(WeightedRandomSampler(weights, 20)) == a
    sampler = WeightedRandomSampler(weights, 20, generator=minigrad.Generator().manual_seed(0))
    assert list(sampler) != list(sampler)  # each pass draws anew
    ds = TensorDataset(minigrad.arange(6))
    loader = DataLoader(ds, batch_size=4, sampler=WeightedRandomSampler(weights, 10))
    batches = [b for (b,) in loader]
    assert [len(b) for b in batches] == [4, 4, 2] and all(0 <= int(v) < 6 for b in batches for v in b)


# ---- Tensor.data_ptr -------------------------------------------------------------------------------

def _data_ptr_program(torch, device):
    x = torch.arange(12, dtype=torch.float32, device=device).reshape(3, 4)
    p = x.data_ptr()
    y = x.double()
    offsets = [x[1:].data_ptr() - p, x[:, 2].data_ptr() - p, x[2, 3].data_ptr() - p, x.t().data_ptr() - p,
               x.view(12).data_ptr() - p, x.detach().data_ptr() - p, x[1].view(2, 2).data_ptr() - p,
               y[1:].data_ptr() - y.data_ptr(), x.expand(2, 3, 4).data_ptr() - p, x.add_(1).data_ptr() - p]
    return offsets + [isinstance(p, int), p != 0, x.clone().data_ptr() != p, torch.zeros(0, device=device).data_ptr(),
                      x[3:].data_ptr(), torch.zeros(0, 3, device=device).data_ptr()]


def test_data_ptr_offsets_match_torch(device):
    mine, theirs = run_both(_data_ptr_program, device)
    same(mine, theirs)
    assert mine[:3] == [16, 8, 44] and mine[-3:] == [0, 0, 0]


def test_data_ptr_is_the_arrays_address():
    a = np.arange(6.0)
    t = minigrad.from_numpy(a)
    assert t.data_ptr() == a.ctypes.data == a.__array_interface__["data"][0]
    assert t[2:].data_ptr() == a[2:].ctypes.data


# ---- norms: p = 0, -inf and negative p; clip_grad_norm_ over them -----------------------------------

_P = [0, 0.0, -math.inf, math.inf, -1, -2.5, 0.5, 1.5, 3]


def _norm_program(torch, device, p, dtype):
    x = torch.tensor([[0.0, -2.0, 3.0], [0.0, 0.0, 0.5]], dtype=getattr(torch, dtype), device=device,
                     requires_grad=True)
    outs = [x.norm(p), x.norm(p, dim=1), x.norm(p, dim=0, keepdim=True), torch.norm(x, p, dim=(0, 1))]
    results = []
    for o in outs:
        try:
            (g,) = torch.autograd.grad(o.sum(), x)
        except RuntimeError as e:  # p = 0: no gradient at all
            g = str(e)
        results += [o, g]
    return results + [outs[0].grad_fn.name(), str(outs[0].dtype)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", _P, ids=str)
def test_norm_values_and_gradients_match_torch(device, p, dtype):
    mine, theirs = run_both(_norm_program, device, p, dtype)
    same(mine, theirs, rtol=1e-6 if dtype == "float32" else 1e-12)


def test_zero_norm_counts_nonzeros_and_has_no_gradient():
    x = minigrad.tensor([[0.0, -2.0, float("nan")], [0.0, -0.0, float("inf")]], requires_grad=True)
    assert x.norm(0).item() == 3.0 and x.norm(0, dim=1).tolist() == [2.0, 1.0]
    x.norm(0).backward()
    assert x.grad is None  # torch's gradient is undefined: nothing reaches the leaf
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        minigrad.autograd.grad(x.norm(0), x)
    ((x.norm(0) + x.sum()) * 1).backward()
    assert x.grad.tolist() == [[1.0] * 3] * 2


def _norm_edge_program(torch):
    inf = math.inf
    cases = []
    for p in (-1.0, -2.5, -1, inf, -inf, 0, 2, 0.5):
        cases += [raised(lambda: torch.zeros(0).norm(p)), raised(lambda: torch.zeros(3, 0).norm(p, dim=1)),
                  raised(lambda: torch.zeros(3, 0).norm(p, dim=(-1, 0))), raised(lambda: torch.zeros(3, 0).norm(p, dim=()))]
        cases += [torch.zeros(0, 3).norm(p, dim=1), torch.zeros(3, 0).norm(p, dim=0)]
    nan_x = torch.tensor([math.nan, -1.0, 2.0, 1.0], dtype=torch.float64, requires_grad=True)
    cases += [torch.autograd.grad(nan_x.norm(q), nan_x)[0] for q in (inf, -inf)]
    cases += [torch.tensor([math.nan, 1.0]).norm(q) for q in (inf, -inf, 0, -1)]
    cases += [torch.tensor([1.0, 0.0]).norm(q) for q in (-0.0, math.nan, True, torch.tensor(0.0))]
    cases += [raised(lambda: torch.tensor([1, 0]).norm(0, dtype=torch.float64)),
              raised(lambda: torch.tensor([1.0, 0.0]).norm(2, dtype=torch.int64)),
              torch.tensor([1.0, 0.0]).norm(0, dtype=torch.float64)]
    return cases


def test_norm_edge_cases_match_torch():
    mine, theirs = run_both(_norm_edge_program)
    same(mine, theirs)
    assert mine[0] == ("RuntimeError", "linalg.vector_norm cannot compute the -1 norm on an empty tensor because "
                                       "the operation does not have an identity")


@pytest.mark.parametrize("p, dim", [(-math.inf, 1), (-1.5, None), (0.5, 0), (-3, 1)])
def test_norm_gradcheck_negative_and_fractional(p, dim):
    minigrad.manual_seed(2)
    x = minigrad.randn(3, 4, dtype=minigrad.float64, requires_grad=True)
    assert gradcheck(lambda t: t.norm(p, dim), (x,))
    if not math.isinf(p):
        assert gradgradcheck(lambda t: t.norm(p, dim), (x,))


def _clip_program(torch, norm_type):
    params = [torch.nn.Parameter(torch.tensor([0.0, 3.0, -4.0])),
              torch.nn.Parameter(torch.tensor([[0.0, 0.0], [0.5, 0.0]], dtype=torch.float64)),
              torch.nn.Parameter(torch.zeros(2))]
    for p in params:
        p.grad = p.detach().clone()
    total = torch.nn.utils.clip_grad_norm_(params, 1.0, norm_type=norm_type)
    return [total] + [p.grad for p in params]


@pytest.mark.parametrize("norm_type", [0, 0.0, "inf", -math.inf, math.inf, 2, -1])
def test_clip_grad_norm_of_zero_and_negative_orders_match_torch(norm_type):
    mine, theirs = run_both(_clip_program, norm_type)
    same(mine, theirs)
    if norm_type == 0:
        assert mine[0].item() == 2.0  # two of the three gradients have nonzero elements
