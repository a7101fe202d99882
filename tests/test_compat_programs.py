"""Whole training programs of the kind tutorials and courses write, run under minigrad and torch.

Each program is written once against the PyTorch API, as a function of the library and its
`nn`, `optim` and `utils.data` modules. It prints what such a program prints (losses with
f"{loss.item():.4f}", accuracies, `print(model)`, `scheduler.get_last_lr()`, error messages) and
returns values to compare. The models start from the same weights in both libraries (copied
from NumPy arrays), and the data comes in the same order: where a program shuffles, only what
does not depend on the order is compared, since the two libraries draw different permutations.

`run_both` runs a program under minigrad and, when it can be imported, under torch: the printed
text must be the same (with "minigrad" read as "torch") and the returned values equal to float
rounding. The checks that follow each run hold without torch too: the loss goes down, values
worked out by hand, the same run twice gives the same numbers.
"""
import contextlib
import copy
import importlib
import io
import math
import os
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import minigrad
from test_compat import same  # nested results equal: tensors, dicts, sequences, floats, text

RNG = np.random.default_rng(0)
X = RNG.normal(size=(64, 4)).astype(np.float32)
Y = ((X[:, 0] + X[:, 1] > 0).astype(np.int64) + (X[:, 2] > 1).astype(np.int64))  # 3 classes


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _run(program, lib, args):
    data = importlib.import_module(lib.__name__ + ".utils.data")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = program(lib, lib.nn, lib.optim, data, *args)
    return out.getvalue().replace("minigrad", "torch"), result


def run_both(program, *args):
    """(printed text, result) of program under minigrad, and under torch or None."""
    mine = _run(program, minigrad, args)
    torch = _torch()
    return mine, None if torch is None else _run(program, torch, args)


def check_both(program, *args, rtol=1e-5, atol=1e-6):
    """Run program under both libraries, assert equal prints and results; minigrad's (text, result)."""
    mine, theirs = run_both(program, *args)
    if theirs is not None:
        assert mine[0] == theirs[0]
        same(mine[1], theirs[1], rtol, atol)
    return mine


def init_from_numpy(torch, model, seed=1, scale=0.5):
    """The same starting weights in both libraries."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for _, p in model.named_parameters():
            p.copy_(torch.from_numpy(rng.normal(scale=scale, size=tuple(p.shape)).astype(np.float32)))
    return model


def error(fn):
    """'<type>: <message>' of what fn raises."""
    try:
        fn()
    except Exception as e:  # the programs print errors as a tutorial's except clause would
        return f"{type(e).__name__}: {e}"
    return "no error"


# --- 1. a classifier: Sequential + CrossEntropyLoss + Adam + StepLR over a DataLoader --------------

def _classifier(torch, nn, optim, data, shuffle):
    model = init_from_numpy(torch, nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)))
    print(model)
    dataset = data.TensorDataset(torch.from_numpy(X), torch.from_numpy(Y))
    loader = data.DataLoader(dataset, batch_size=16, shuffle=shuffle,
                             generator=torch.Generator().manual_seed(0) if shuffle else None)
    print(len(loader), len(loader.dataset))
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    history, seen = [], []
    for epoch in range(5):
        model.train()
        running, order = 0.0, []
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            running += loss.item() * xb.size(0)
            order += xb[:, 0].tolist()
        scheduler.step()
        model.eval()
        with torch.no_grad():
            out = model(torch.from_numpy(X))
            acc = (out.argmax(1) == torch.from_numpy(Y)).float().mean()
            full = criterion(out, torch.from_numpy(Y)).item()
        history.append((running / len(dataset), full, acc.item()))
        seen.append(order)
        if not shuffle:
            print(f"epoch {epoch}: loss {running / len(dataset):.4f} acc {acc.item():.4f} "
                  f"lr {scheduler.get_last_lr()}")
    print(scheduler.state_dict())
    return history, seen


def test_classifier_with_adam_and_steplr_over_a_dataloader():
    text, (history, _) = check_both(_classifier, False)
    assert text.splitlines()[:5] == [
        "Sequential(",
        "  (0): Linear(in_features=4, out_features=16, bias=True)",
        "  (1): ReLU()",
        "  (2): Linear(in_features=16, out_features=3, bias=True)",
        ")"]
    assert "4 64" in text and "lr [0.0025]" in text
    fulls = [h[1] for h in history]
    assert fulls == sorted(fulls, reverse=True) and history[-1][2] > history[0][2]


def test_classifier_with_a_shuffling_dataloader_and_a_generator():
    """The orders differ between the libraries; every epoch still visits each sample once, the
    generator makes a run repeatable, and the epochs differ from one another."""
    (_, (history, seen)), theirs = run_both(_classifier, True)
    column = sorted(X[:, 0].tolist())
    for order in seen:
        assert sorted(order) == pytest.approx(column)
    assert len({tuple(o) for o in seen}) == len(seen)
    _, (history2, seen2) = _run(_classifier, minigrad, (True,))
    assert seen2 == seen and history2 == history
    assert history[-1][1] < history[0][1]
    if theirs is not None:  # a different order, a similar fit
        assert theirs[1][0][-1][1] == pytest.approx(history[-1][1], rel=0.2)


# --- 2. a regression: MSELoss + SGD(momentum, nesterov, weight_decay) + CosineAnnealingLR ---------

def _regression(torch, nn, optim, data):
    model = init_from_numpy(torch, nn.Linear(4, 1))
    x = torch.from_numpy(X)
    y = x.sum(1, keepdim=True) * 0.5 + 1
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3)
    scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10, eta_min=1e-3)
    criterion = nn.MSELoss()
    losses, lrs = [], []
    for epoch in range(12):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        lrs.append(scheduler.get_last_lr()[0])
        print(f"epoch {epoch} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.6f}")
    print(list(optimizer.state[model.weight]), optimizer.state_dict()["param_groups"][0]["nesterov"])
    return losses, lrs, model.weight, model.bias, optimizer.state_dict()["state"][0]["momentum_buffer"]


def test_regression_with_nesterov_sgd_and_cosine_annealing():
    _, (losses, lrs, w, b, _) = check_both(_regression)
    closed = [1e-3 + (0.1 - 1e-3) * (1 + math.cos(math.pi * t / 10)) / 2 for t in range(1, 13)]
    assert lrs == pytest.approx(closed, rel=1e-12)
    assert losses[-1] < 0.05 * losses[0]
    np.testing.assert_allclose(w.detach().numpy(), 0.5, atol=0.2)


# --- 3. ModuleList, Dropout and train()/eval() -------------------------------------------------

def _dropout_net(torch, nn, optim, data):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(4, 8), nn.Linear(8, 8), nn.Linear(8, 2)])
            self.drop = nn.Dropout(0.3)
            self.act = nn.ReLU()

        def forward(self, x):
            for layer in self.layers[:-1]:
                x = self.drop(self.act(layer(x)))
            return self.layers[-1](x)

    model = init_from_numpy(torch, Net())
    print(model)
    print(model.training, [m.training for m in model.modules()])
    model.eval()
    print(model.training, [m.training for m in model.modules()])
    x = torch.from_numpy(X[:5])
    evaluated = model(x)
    model.train()
    trained = model.drop(torch.ones(1000))
    print(model.drop.training, len(model.layers), model.layers[0])
    print([name for name, _ in model.named_modules()])
    print(sum(p.numel() for p in model.parameters() if p.requires_grad))
    model.layers.append(nn.Linear(2, 2))
    print(len(model.layers), model.layers[-2:])
    # the mask is random: compare what it keeps and how much, not where
    return evaluated, sorted({round(v, 5) for v in trained.tolist()}), trained


def test_modulelist_dropout_and_switching_modes():
    (text, (evaluated, kept_values, trained)), theirs = run_both(_dropout_net)
    if theirs is not None:
        assert text == theirs[0]
        same([evaluated, kept_values], list(theirs[1][:2]))
    assert "True [True, True, True, True, True, True, True]" in text
    assert "False [False, False, False, False, False, False, False]" in text
    assert "['', 'layers', 'layers.0', 'layers.1', 'layers.2', 'drop', 'act']" in text
    assert "\n130\n" in text and "(drop): Dropout(p=0.3, inplace=False)" in text
    # eval mode: no dropout, so the output is the plain MLP's, computed here with NumPy
    rng = np.random.default_rng(1)
    shapes = [(8, 4), (8,), (8, 8), (8,), (2, 8), (2,)]
    w = [rng.normal(scale=0.5, size=s).astype(np.float32) for s in shapes]
    h = X[:5]
    for i in (0, 2):
        h = np.maximum(h @ w[i].T + w[i + 1], 0)
    np.testing.assert_allclose(evaluated.detach().numpy(), h @ w[4].T + w[5], rtol=1e-5, atol=1e-6)
    assert kept_values == [0.0, round(1 / 0.7, 5)]  # train mode: zeros, the rest scaled by 1 / (1 - p)
    assert 0.2 < (trained.numpy() == 0).mean() < 0.4


# --- 4. a custom Module with buffers; state_dict through save/load; strict=False --------------------

def _buffers_checkpoint(torch, nn, optim, data, tmp_path):
    class RunningNorm(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.lin = nn.Linear(n, n)
            self.register_buffer("running_mean", torch.zeros(n))
            self.register_buffer("count", torch.tensor(0))
            self.register_buffer("scratch", torch.ones(2), persistent=False)

        def forward(self, x):
            if self.training:
                with torch.no_grad():
                    self.running_mean.mul_(0.9).add_(0.1 * x.mean(0))
                    self.count += 1
            return self.lin(x - self.running_mean)

    model = init_from_numpy(torch, RunningNorm(4))
    model(torch.from_numpy(X))
    model(torch.from_numpy(X[:10]))
    sd = model.state_dict()
    print(list(sd.keys()), [tuple(v.shape) for v in sd.values()], sd["count"])
    path = os.path.join(str(tmp_path), f"{torch.__name__}_model.pt")
    torch.save(sd, path)
    loaded = torch.load(path)
    print(type(loaded).__name__, list(loaded))
    fresh = RunningNorm(4)
    print(fresh.load_state_dict(loaded))
    print(fresh.running_mean, fresh.count, fresh.scratch)
    loaded["extra.weight"] = torch.ones(1)
    del loaded["lin.bias"]
    result = fresh.load_state_dict(loaded, strict=False)
    print(result)
    print(result.missing_keys, result.unexpected_keys)
    print(error(lambda: fresh.load_state_dict(loaded)))
    wrong = dict(model.state_dict())
    wrong["lin.weight"] = torch.zeros(3, 4)
    print(error(lambda: fresh.load_state_dict(wrong)))
    fresh.eval()
    return fresh(torch.from_numpy(X[:3])), model.eval()(torch.from_numpy(X[:3]))


def test_buffers_state_dict_save_load_and_strict_false(tmp_path):
    text, (restored, original) = check_both(_buffers_checkpoint, tmp_path)
    assert "['running_mean', 'count', 'lin.weight', 'lin.bias'] [(4,), (), (4, 4), (4,)] tensor(2)" in text
    assert "<All keys matched successfully>" in text
    assert ("_IncompatibleKeys(missing_keys=['lin.bias'], unexpected_keys=['extra.weight'])" in text)
    assert ('RuntimeError: Error(s) in loading state_dict for RunningNorm:\n\tMissing key(s) in '
            'state_dict: "lin.bias". \n\tUnexpected key(s) in state_dict: "extra.weight". ') in text
    assert ("size mismatch for lin.weight: copying a param with shape torch.Size([3, 4]) from "
            "checkpoint, the shape in current model is torch.Size([4, 4]).") in text
    same(restored, original)  # the weights and running statistics came through the file


def _versioned_checkpoint(torch, nn, optim, data, tmp_path):
    """A module that reads its saved version when loading (as BatchNorm does), through a file."""
    class Scaled(nn.Module):
        _version = 2

        def __init__(self):
            super().__init__()
            self.register_buffer("scale", torch.ones(2))
            self.seen = None

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, *args):
            self.seen = local_metadata.get("version")
            super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)

    model = nn.Sequential(Scaled(), nn.Linear(2, 2))
    path = os.path.join(str(tmp_path), f"{torch.__name__}_versioned.pt")
    torch.save({"model": model.state_dict()}, path)
    loaded = torch.load(path)["model"]
    print(hasattr(loaded, "_metadata"), getattr(loaded, "_metadata", None))
    fresh = nn.Sequential(Scaled(), nn.Linear(2, 2))
    fresh.load_state_dict(loaded)
    print(fresh[0].seen, copy.deepcopy(loaded)._metadata == loaded._metadata)
    return fresh[0].seen


def test_a_saved_state_dict_keeps_its_metadata(tmp_path):
    """torch.save pickles a state_dict's `_metadata` (each module's version) with it, and
    load_state_dict hands the versions to _load_from_state_dict; minigrad.save lost them, so a
    module reading its version saw None after a round trip through a file."""
    text, seen = check_both(_versioned_checkpoint, tmp_path)
    assert seen == 2
    assert text.splitlines()[0] == ("True OrderedDict([('', {'version': 1}), ('0', {'version': 2}), "
                                    "('1', {'version': 1})])")


def test_saved_attributes_of_ordered_dicts_and_counters():
    """What save does with a container's attributes, beyond the state_dict case: they come back
    (shared objects still shared), a name load would refuse is refused when saving, and a file
    whose index damages them is reported as damaged."""
    import collections
    import json
    import zipfile
    counts = collections.Counter(a=2)
    counts.note = "seen"
    od = OrderedDict(x=minigrad.ones(2))
    od.owner = od["x"]
    buf = io.BytesIO()
    minigrad.save([counts, od], buf)
    buf.seek(0)
    c2, od2 = minigrad.load(buf)
    assert c2 == counts and c2.note == "seen" and od2.owner is od2["x"]
    setattr(od, "not a name", 1)
    with pytest.raises(TypeError, match="cannot save the attribute 'not a name' of a OrderedDict"):
        minigrad.save(od, io.BytesIO())
    buf = io.BytesIO()
    minigrad.save(OrderedDict(), buf)
    for attrs in ([["__class__", {"type": "none"}]], "x", [["ok"]]):
        src, out = zipfile.ZipFile(io.BytesIO(buf.getvalue())), io.BytesIO()
        with zipfile.ZipFile(out, "w") as dst:
            index = json.loads(src.read("minigrad_index.json"))
            index["root"]["attrs"] = attrs
            dst.writestr("minigrad_index.json", json.dumps(index))
        out.seek(0)
        with pytest.raises(RuntimeError, match="is not a file written by minigrad.save .*attr"):
            minigrad.load(out)


# --- 5. optimizer.state_dict() through a checkpoint, then training on -----------------------------

def _resume_adam(torch, nn, optim, data, tmp_path):
    x, y = torch.from_numpy(X), torch.from_numpy(X[:, :1] * 2.0)

    def build():
        model = init_from_numpy(torch, nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 1)))
        return model, optim.Adam(model.parameters(), lr=0.05, amsgrad=True, weight_decay=1e-4)

    def step(model, optimizer):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.item()

    model, optimizer = build()
    straight = [step(model, optimizer) for _ in range(6)]
    model, optimizer = build()
    first = [step(model, optimizer) for _ in range(3)]
    path = os.path.join(str(tmp_path), f"{torch.__name__}_ckpt.pt")
    torch.save({"epoch": 3, "model_state_dict": model.state_dict(),
                "optimizer_state_dict": optimizer.state_dict(), "loss": first[-1]}, path)
    checkpoint = torch.load(path, weights_only=True)
    print(sorted(checkpoint), checkpoint["epoch"])
    state = checkpoint["optimizer_state_dict"]
    print(state["state"][0]["step"], list(state["state"][0]), state["param_groups"][0]["params"])
    model, optimizer = build()
    model.load_state_dict(checkpoint["model_state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    resumed = first + [step(model, optimizer) for _ in range(3)]
    print(optimizer.state[model[0].weight]["step"], optimizer.param_groups[0]["amsgrad"])
    return straight, resumed, list(model.parameters())


def test_optimizer_state_dict_round_trip_then_training_on(tmp_path):
    text, (straight, resumed, _) = check_both(_resume_adam, tmp_path)
    assert resumed == straight  # bit for bit: the checkpoint holds all of Adam's state
    assert "tensor(3.) ['step', 'exp_avg', 'exp_avg_sq', 'max_exp_avg_sq'] [0, 1, 2, 3]" in text
    assert "tensor(6.) True" in text


# --- 6. parameter groups with their own lr, add_param_group, MultiStepLR ---------------------------

def _param_groups(torch, nn, optim, data):
    model = init_from_numpy(torch, nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3)))
    optimizer = optim.SGD([{"params": model[0].parameters()},
                           {"params": model[2].weight, "lr": 0.01}], lr=0.1, momentum=0.5)
    print(optimizer)
    optimizer.add_param_group({"params": [model[2].bias], "lr": 0.001, "momentum": 0.0})
    print([g["lr"] for g in optimizer.param_groups], [len(g["params"]) for g in optimizer.param_groups])
    scheduler = optim.lr_scheduler.MultiStepLR(optimizer, milestones=[2, 4], gamma=0.1)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    x, y = torch.from_numpy(X), torch.from_numpy(Y)
    for epoch in range(6):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        print(epoch, f"{loss.item():.4f}", scheduler.get_last_lr())
    print(optimizer.state_dict()["param_groups"][2])
    print(error(lambda: optimizer.add_param_group({"params": [model[2].bias]})))
    print(error(lambda: optim.SGD([], lr=0.1)))
    print(error(lambda: optim.Adam(model.parameters(), lr=-1)))
    print(error(lambda: optim.SGD(model.parameters(), lr=0.1, nesterov=True)))
    print(error(lambda: optim.SGD(model[0].weight, lr=0.1)))
    return list(model.parameters())


def test_parameter_groups_with_their_own_learning_rates():
    text, _ = check_both(_param_groups)
    lines = text.splitlines()
    assert lines[:2] == ["SGD (", "Parameter Group 0"] and "    lr: 0.01" in lines
    assert "[0.1, 0.01, 0.001] [2, 1, 1]" in text
    assert "5 " in text and "[0.0010000000000000002, 0.0001, 1e-05]" in text
    assert "ValueError: some parameters appear in more than one parameter group" in text
    assert "ValueError: optimizer got an empty parameter list" in text
    assert "ValueError: Invalid learning rate: -1" in text
    assert "ValueError: Nesterov momentum requires a momentum and zero dampening" in text
    assert ("TypeError: params argument given to the optimizer should be an iterable of Tensors or "
            "dicts, but got torch.FloatTensor") in text


# --- 7. gradient clipping, zero_grad(set_to_none=False) -------------------------------------------

def _clipping(torch, nn, optim, data):
    model = init_from_numpy(torch, nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3)))
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.from_numpy(X), torch.from_numpy(Y)
    norms = []
    for epoch in range(3):
        optimizer.zero_grad(set_to_none=False)
        loss = nn.CrossEntropyLoss()(model(x) * 10, y)
        loss.backward()
        total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        after = sum(p.grad.norm() ** 2 for p in model.parameters()) ** 0.5
        print(epoch, f"{total.item():.4f} {after.item():.4f}", type(total).__name__)
        norms.append((total.item(), after.item()))
        optimizer.step()
    optimizer.zero_grad(set_to_none=False)
    print([p.grad for p in model.parameters()][1], model[0].weight.grad.abs().sum())
    optimizer.zero_grad()
    print([p.grad for p in model.parameters()])
    print(nn.utils.clip_grad_norm_(model.parameters(), 1.0))  # no gradients: a zero norm
    p = nn.Parameter(torch.tensor([3.0, 4.0]))
    p.grad = torch.tensor([3.0, 4.0])
    clipped = []
    for max_norm in (5.0, 2.5, 1.0, 0.3):
        p.grad = torch.tensor([3.0, 4.0])
        print(nn.utils.clip_grad_norm_(p, max_norm))
        clipped.append(p.grad.tolist())
    p.grad = torch.tensor([3.0, -4.0])
    print(nn.utils.clip_grad_value_(p, clip_value=1.0), p.grad)
    return norms, clipped, list(model.parameters())


def test_gradient_clipping_and_zeroing_gradients_in_place():
    text, (norms, clipped, _) = check_both(_clipping)
    for total, after in norms:
        assert after == pytest.approx(min(total, 1.0), rel=1e-4)
    assert "tensor([0., 0., 0., 0., 0., 0.]) tensor(0.)" in text
    assert "[None, None, None, None]" in text and "tensor(0.)\n" in text
    assert "None tensor([ 1., -1.])" in text


def test_clip_grad_norm_scales_by_torch_reciprocal_times_max_norm():
    """torch computes the clip coefficient as max_norm / (total + 1e-6), a number over a tensor,
    which it evaluates as (total + 1e-6).reciprocal() * max_norm; a float32 division rounds
    differently, which left the clipped gradients one float32 step away from torch's."""
    (_, (_, clipped, _)), theirs = run_both(_clipping)
    if theirs is not None:
        assert clipped == theirs[1][1]  # bit for bit
    f32 = np.float32
    for max_norm, got in zip((5.0, 2.5, 1.0, 0.3), clipped):
        coef = min(f32(f32(1.0) / f32(f32(5.0) + f32(1e-6))) * f32(max_norm), f32(1.0))
        assert got == [float(f32(3.0) * coef), float(f32(4.0) * coef)]
    torch = _torch()
    if torch is not None:
        for max_norm in (5.0, 2.5, 1.0, 0.3, 0.7):
            g = np.array([1.5, -2.0, 0.25], dtype=np.float32)
            p, q = minigrad.nn.Parameter(minigrad.zeros(3)), torch.nn.Parameter(torch.zeros(3))
            p.grad, q.grad = minigrad.tensor(g), torch.tensor(g)
            minigrad.nn.utils.clip_grad_norm_([p], max_norm)
            torch.nn.utils.clip_grad_norm_([q], max_norm)
            np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())


# --- 8. named_parameters, print(model), counting parameters ---------------------------------------

def _inspect(torch, nn, optim, data):
    model = nn.Sequential(OrderedDict([("fc1", nn.Linear(4, 6)), ("act", nn.LeakyReLU(0.2)),
                                       ("drop", nn.Dropout()), ("fc2", nn.Linear(6, 3, bias=False)),
                                       ("out", nn.LogSoftmax(dim=1))]))
    for name, param in model.named_parameters():
        print(name, param.shape, tuple(param.size()), param.requires_grad, param.dtype)
    print(model)
    print(model.fc1, model[0] is model.fc1, model[-1], model[1:3])
    print(model.state_dict().keys())
    print(f"Total params: {sum(p.numel() for p in model.parameters()):,}")

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = model
            self.heads = nn.ModuleList([nn.Linear(3, 1) for _ in range(3)])
            self.extra = nn.ModuleDict({"enc": nn.Linear(2, 3), "dec": nn.Linear(3, 2)})
            self.flat = nn.Flatten()

        def forward(self, x):
            return x

    net = Net()
    print(net)
    print([name for name, _ in net.named_children()], len(list(net.parameters())))
    print(nn.CrossEntropyLoss(label_smoothing=0.1), nn.BCEWithLogitsLoss(pos_weight=torch.ones(1)),
          nn.ReLU(inplace=True), nn.Softmax(dim=-1))
    return [name for name, _ in net.named_parameters()]


def test_named_parameters_and_printing_a_model():
    text, names = check_both(_inspect)
    assert "fc1.weight torch.Size([6, 4]) (6, 4) True torch.float32" in text
    assert "(0-2): 3 x Linear(in_features=3, out_features=1, bias=True)" in text
    assert "(act): LeakyReLU(negative_slope=0.2)" in text and "Total params: 48" in text
    assert "odict_keys(['fc1.weight', 'fc1.bias', 'fc2.weight'])" in text
    assert names[:3] == ["body.fc1.weight", "body.fc1.bias", "body.fc2.weight"] and len(names) == 13


# --- 9. datasets: random_split, Subset, TensorDataset, collate_fn, drop_last ------------------------

def _data_pipeline(torch, nn, optim, data):
    x, y = torch.arange(20.0).reshape(10, 2), torch.arange(10)
    dataset = data.TensorDataset(x, y)
    print(dataset[3], len(dataset), dataset[2:4])
    train, val = data.random_split(dataset, [7, 3], generator=torch.Generator().manual_seed(42))
    print(type(train).__name__, len(train), len(val), sorted(train.indices + val.indices) == list(range(10)))
    parts = data.random_split(dataset, [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(0))
    print([len(s) for s in parts])
    evens = data.Subset(dataset, [0, 2, 4, 6, 8])
    print(len(evens), evens[1], evens[-1])

    def collate(batch):
        xs, ys = zip(*batch)
        return torch.stack(xs), torch.tensor(ys), len(batch)

    loader = data.DataLoader(evens, batch_size=2, collate_fn=collate)
    print(len(loader), list(loader))
    loader = data.DataLoader(dataset, batch_size=3, drop_last=True)
    print(len(loader), [yb.tolist() for _, yb in loader])
    loader = data.DataLoader(dataset, batch_size=4, num_workers=2)
    print(len(loader), [yb.tolist() for _, yb in loader], loader.num_workers, loader.prefetch_factor)
    for i, (xb, yb) in enumerate(data.DataLoader(dataset, batch_size=4), start=1):
        print(i, xb.dtype, yb.dtype, xb.size(0))
    shuffled = data.DataLoader(train, batch_size=3, shuffle=True, drop_last=False)
    print(len(shuffled), sorted(i for _, yb in shuffled for i in yb.tolist()) == sorted(train.indices))
    print(error(lambda: data.random_split(dataset, [5, 4])))
    print(error(lambda: data.TensorDataset(torch.zeros(3), torch.zeros(4))))
    print(error(lambda: data.DataLoader(dataset, batch_size=0)))
    print(error(lambda: data.DataLoader(dataset, shuffle=True, sampler=data.SequentialSampler(dataset))))
    print(error(lambda: data.DataLoader(dataset, prefetch_factor=2)))
    return len(train), len(val)


def test_random_split_subset_collate_fn_and_drop_last():
    text, sizes = check_both(_data_pipeline)
    assert sizes == (7, 3)
    assert "[5, 3, 2]" in text
    assert "3 [[0, 1, 2], [3, 4, 5], [6, 7, 8]]" in text
    assert "3 [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]] 2 2" in text
    assert ("(tensor([[0., 1.],\n        [4., 5.]]), tensor([0, 2]), 2)") in text
    assert "ValueError: Sum of input lengths does not equal the length of the input dataset!" in text


def test_dataloader_prefetch_factor_defaults_to_two_with_workers():
    """torch sets prefetch_factor to 2 when num_workers > 0 leaves it None; minigrad kept None."""
    from minigrad.utils.data import DataLoader, TensorDataset
    ds = TensorDataset(minigrad.arange(4.0))
    assert DataLoader(ds).prefetch_factor is None
    assert DataLoader(ds, num_workers=2).prefetch_factor == 2
    assert DataLoader(ds, num_workers=2, prefetch_factor=5).prefetch_factor == 5


# --- 10. nn.init and model.apply ----------------------------------------------------------------

def _init(torch, nn, optim, data):
    w = torch.empty(3, 5)
    nn.init.constant_(w, 0.3)
    print(w)
    nn.init.eye_(w)
    print(w)
    d = torch.empty(2, 2, 3)
    nn.init.dirac_(d)
    print(d)
    print(nn.init.calculate_gain("relu"), nn.init.calculate_gain("leaky_relu", 0.2),
          nn.init.calculate_gain("tanh"), nn.init.calculate_gain("selu"), nn.init.calculate_gain("sigmoid"))

    def init_weights(m):
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("relu"))
            m.bias.data.fill_(0.01)

    net = nn.Sequential(nn.Linear(40, 60), nn.ReLU(), nn.Linear(60, 20))
    print(net.apply(init_weights) is net, net[2].bias.data[:3])
    bound = math.sqrt(2.0) * math.sqrt(6.0 / (40 + 60))
    print(bool(net[0].weight.abs().max() <= bound), net[0].weight.requires_grad, net[0].weight.grad_fn)

    def dcgan_init(m):
        if m.__class__.__name__.find("Linear") != -1:
            nn.init.normal_(m.weight.data, 0.0, 0.02)
            nn.init.constant_(m.bias.data, 0)

    net.apply(dcgan_init)
    print(net[2].bias.detach()[:3], round(net[0].weight.std().item(), 2))
    print(error(lambda: nn.init.xavier_uniform_(torch.empty(3))))
    print(error(lambda: nn.init.calculate_gain("foo")))
    print(error(lambda: nn.init.uniform_(torch.empty(2), 1.0, 0.0)))
    q = torch.empty(4, 4)
    nn.init.orthogonal_(q)
    return q @ q.T


def test_init_functions_and_model_apply():
    text, qqt = check_both(_init, atol=1e-5)
    np.testing.assert_allclose(qqt.numpy(), np.eye(4), atol=1e-5)
    assert "1.4142135623730951 1.3867504905630728 1.6666666666666667 0.75 1" in text
    assert "True tensor([0.0100, 0.0100, 0.0100])\nTrue True None" in text
    assert "tensor([0., 0., 0.]) 0.02" in text
    assert "ValueError: Fan in and fan out can not be computed for tensor with fewer than 2 dimensions" in text


# --- 11. freezing a layer with requires_grad_(False) ---------------------------------------------

def _freeze(torch, nn, optim, data):
    model = init_from_numpy(torch, nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3)))
    model[0].requires_grad_(False)
    print([p.requires_grad for p in model.parameters()])
    optimizer = optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)
    print(len(optimizer.param_groups[0]["params"]))
    before = [p.detach().clone() for p in model.parameters()]
    x, y = torch.from_numpy(X), torch.from_numpy(Y)
    for _ in range(3):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    changed = [not torch.equal(a, b) for a, b in zip(before, model.parameters())]
    print(changed, [p.grad is None for p in model.parameters()])
    print(sum(p.numel() for p in model.parameters() if p.requires_grad))
    for name, p in model.named_parameters():
        if name.startswith("2"):
            p.requires_grad = False
    out = model(x)
    print(out.requires_grad, out.grad_fn)
    print(error(lambda: out.sum().backward()))
    model.requires_grad_()
    model.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    print(model[0].weight.grad.shape)
    return changed, list(model.parameters())


def test_freezing_a_layer_updates_only_the_others():
    text, (changed, _) = check_both(_freeze)
    assert changed == [False, False, True, True]
    assert "[True, True, False, False]" in text and "\n21\n" in text
    assert "False None\nRuntimeError: element 0 of tensors does not require grad and does not have a grad_fn" in text


# --- 12. losses: BCEWithLogits(pos_weight), NLLLoss(log_softmax), CrossEntropy options -------------

def _losses(torch, nn, optim, data):
    F = nn.functional
    rng = np.random.default_rng(5)
    logits = torch.tensor(rng.normal(size=(6, 3)).astype(np.float32), requires_grad=True)
    target = torch.tensor([0, 2, 1, -100, 2, 0])
    results = []
    for criterion in (nn.CrossEntropyLoss(), nn.CrossEntropyLoss(label_smoothing=0.2),
                      nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5]), label_smoothing=0.1),
                      nn.CrossEntropyLoss(reduction="none"), nn.CrossEntropyLoss(ignore_index=2, reduction="sum")):
        t = target.clone()
        if criterion.ignore_index == 2:
            t[3] = 1
        loss = criterion(logits, t)
        logits.grad = None
        loss.sum().backward()
        print(criterion, loss)
        results.append((loss, logits.grad))
    log_probs = F.log_softmax(logits, dim=1)
    print(nn.NLLLoss()(log_probs, torch.tensor([0, 2, 1, 1, 2, 0])))
    print(nn.NLLLoss(weight=torch.tensor([1.0, 0.0, 2.0]))(log_probs, torch.tensor([0, 2, 1, 1, 2, 0])))
    z = torch.tensor(rng.normal(size=(5, 2)).astype(np.float32), requires_grad=True)
    labels = torch.tensor(rng.integers(0, 2, size=(5, 2)).astype(np.float32))
    for criterion in (nn.BCEWithLogitsLoss(), nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0, 0.5])),
                      nn.BCEWithLogitsLoss(weight=torch.tensor([1.0, 2.0]), reduction="sum")):
        loss = criterion(z, labels)
        z.grad = None
        loss.backward()
        print(loss)
        results.append((loss, z.grad))
    print(nn.BCELoss()(torch.sigmoid(z), labels), nn.SmoothL1Loss()(z * 3, labels),
          nn.L1Loss()(z, labels), nn.MSELoss(reduction="sum")(z, labels))
    print(error(lambda: nn.CrossEntropyLoss()(logits, torch.tensor([0, 1]))))
    print(error(lambda: nn.CrossEntropyLoss()(logits, torch.tensor([0, 1, 5, 0, 0, 0]))))
    print(error(lambda: nn.MSELoss(reduction="avg")(z, labels)))
    print(error(lambda: nn.BCELoss()(z, labels)))
    return results


def test_classification_losses_with_their_options():
    text, results = check_both(_losses)
    assert "Expected input batch_size (6) to match target batch_size (2)." in text
    assert "IndexError: Target 5 is out of bounds." in text
    assert "ValueError: avg is not a valid value for reduction" in text
    # by hand: the ignored sample (index 3) adds nothing, and the mean is over the other five
    rng = np.random.default_rng(5)
    x = rng.normal(size=(6, 3))
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    t = [0, 2, 1, None, 2, 0]
    expected = -np.mean([logp[i, c] for i, c in enumerate(t) if c is not None])
    assert results[0][0].item() == pytest.approx(expected, rel=1e-5)
    assert np.all(results[0][1].numpy()[3] == 0)
    z = rng.normal(size=(5, 2))
    y = rng.integers(0, 2, size=(5, 2))
    pw = np.array([3.0, 0.5])
    bce = -(pw * y * np.log(1 / (1 + np.exp(-z))) + (1 - y) * np.log(1 - 1 / (1 + np.exp(-z))))
    assert results[6][0].item() == pytest.approx(bce.mean(), rel=1e-5)


# --- 13. LambdaLR / MultiStepLR / ExponentialLR, and resuming them from a checkpoint ----------------

def _schedules(torch, nn, optim, data, tmp_path):
    x, y = torch.from_numpy(X), torch.from_numpy(Y)

    def build():
        model = init_from_numpy(torch, nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)))
        optimizer = optim.SGD([{"params": model[0].parameters()},
                               {"params": model[2].parameters(), "lr": 0.05}], lr=0.1, momentum=0.9)
        milestones = optim.lr_scheduler.MultiStepLR(optimizer, [2, 5], gamma=0.3)
        lambdas = optim.lr_scheduler.LambdaLR(optimizer, [lambda e: 1.0 / (e + 1), lambda e: 0.9 ** e])
        return model, optimizer, milestones, lambdas

    def epoch(model, optimizer, *schedulers):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        for s in schedulers:
            s.step()
        return loss.item()

    run = build()
    straight = [epoch(*run) for _ in range(7)]
    final_lrs = run[3].get_last_lr()
    run = build()
    for _ in range(3):
        epoch(*run)
    path = os.path.join(str(tmp_path), f"{torch.__name__}_sched.pt")
    model, optimizer, milestones, lambdas = run
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "milestones": milestones.state_dict(), "lambdas": lambdas.state_dict()}, path)
    checkpoint = torch.load(path)
    print(checkpoint["milestones"]["milestones"], checkpoint["lambdas"]["lr_lambdas"])
    model, optimizer, milestones, lambdas = run = build()
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    milestones.load_state_dict(checkpoint["milestones"])
    lambdas.load_state_dict(checkpoint["lambdas"])
    print([g["lr"] for g in optimizer.param_groups], milestones.get_last_lr(), lambdas.last_epoch)
    resumed = straight[:3] + [epoch(*run) for _ in range(4)]
    print(final_lrs, lambdas.get_last_lr())

    p = nn.Parameter(torch.ones(2))
    optimizer = optim.SGD([p], lr=0.1)
    exponential = optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
    warmup = optim.lr_scheduler.LambdaLR(optimizer, lambda e: min(1.0, (e + 1) / 3))
    lrs = []
    for _ in range(5):
        optimizer.step()
        warmup.step()  # sets initial_lr * lambda(epoch); ExponentialLR then scales what it finds
        exponential.step()
        lrs.append(optimizer.param_groups[0]["lr"])
    print(lrs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        optimizer = optim.SGD([p], lr=0.1)
        scheduler = optim.lr_scheduler.StepLR(optimizer, 2)
        scheduler.step()
        print([str(w.message)[:58] for w in caught])
    return straight, resumed, final_lrs, lrs


def test_lr_schedules_over_epochs_and_resumed_from_a_checkpoint(tmp_path):
    text, (straight, resumed, final_lrs, lrs) = check_both(_schedules, tmp_path)
    assert resumed == straight
    assert "Counter({2: 1, 5: 1}) [None, None]" in text
    # LambdaLR sets lr = initial_lr * lambda(epoch), whatever MultiStepLR did before it
    assert final_lrs == pytest.approx([0.1 / 8, 0.05 * 0.9 ** 7])
    assert "Detected call of `lr_scheduler.step()` before `optimizer." in text
    assert lrs == pytest.approx([0.1 * min(1.0, (e + 1) / 3) * 0.9 for e in range(1, 6)])


# --- 14. the PyTorch examples' MNIST loop, with its log lines -------------------------------------

def _examples_mnist(torch, nn, optim, data):
    F = nn.functional

    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.fc1 = nn.Linear(4, 16)
            self.fc2 = nn.Linear(16, 3)

        def forward(self, x):
            x = torch.flatten(x, 1)
            x = F.relu(self.fc1(x))
            x = F.dropout(x, p=0.2, training=self.training)
            return F.log_softmax(self.fc2(x), dim=1)

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = init_from_numpy(torch, Net()).to(device)
    images = torch.from_numpy(X.reshape(64, 1, 2, 2))
    train_set = data.TensorDataset(images[:48], torch.from_numpy(Y[:48]))
    test_set = data.TensorDataset(images[48:], torch.from_numpy(Y[48:]))
    train_loader = data.DataLoader(train_set, batch_size=16)
    test_loader = data.DataLoader(test_set, batch_size=8)
    optimizer = optim.AdamW(model.parameters(), lr=0.02)

    @torch.no_grad()
    def test():
        model.eval()
        test_loss, correct = 0, 0
        for inputs, target in test_loader:
            inputs, target = inputs.to(device), target.to(device)
            output = model(inputs)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
        test_loss /= len(test_loader.dataset)
        print("Test set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)".format(
            test_loss, correct, len(test_loader.dataset), 100. * correct / len(test_loader.dataset)))
        return test_loss

    losses = []
    for epoch in range(1, 4):
        for batch_idx, (inputs, target) in enumerate(train_loader):
            model.eval()  # the same forward in both libraries: dropout draws differ
            optimizer.zero_grad()
            loss = F.nll_loss(model(inputs), target)
            loss.backward()
            optimizer.step()
            if batch_idx % 2 == 0:
                print("Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.4f}".format(
                    epoch, batch_idx * len(inputs), len(train_loader.dataset),
                    100. * batch_idx / len(train_loader), loss.item()))
        losses.append(test())
    print(f"{loss:.3f}", "%.2e" % loss.item(), type(loss.item()).__name__)
    best = copy.deepcopy(model.state_dict())
    with torch.no_grad():
        model.fc1.weight.zero_()
    model.load_state_dict(best)
    return losses, model.fc1.weight


def test_the_pytorch_examples_mnist_loop():
    text, (losses, _) = check_both(_examples_mnist)
    assert "Train Epoch: 1 [0/48 (0%)]\tLoss: " in text and "Train Epoch: 3 [32/48 (67%)]" in text
    assert text.count("Test set: Average loss: ") == 3
    assert losses[-1] < losses[0]


# --- 15. a GAN's two optimizers, and an autoencoder with RMSprop ------------------------------------

def _gan(torch, nn, optim, data):
    G = init_from_numpy(torch, nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 4), nn.Tanh()), 2)
    D = init_from_numpy(torch, nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid()), 3)
    criterion = nn.BCELoss()
    opt_g = optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    opt_d = optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
    real, noise = torch.from_numpy(X[:16]), torch.from_numpy(X[16:32, :2])
    history = []
    for it in range(4):
        opt_d.zero_grad()
        fake = G(noise)
        loss_d = criterion(D(real), torch.ones(16, 1)) + criterion(D(fake.detach()), torch.zeros(16, 1))
        loss_d.backward()
        opt_d.step()
        opt_g.zero_grad()
        loss_g = criterion(D(fake), torch.ones(16, 1))
        loss_g.backward()
        opt_g.step()
        print(it, f"D {loss_d.item():.4f} G {loss_g.item():.4f}", G[0].weight.grad is None)
        history.append((loss_d.item(), loss_g.item()))

    class AutoEncoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(4, 2), nn.ReLU())
            self.decoder = nn.Linear(2, 4)

        def forward(self, x):
            code = self.encoder(x)
            return self.decoder(code), code

    ae = init_from_numpy(torch, AutoEncoder(), 4)
    optimizer = optim.RMSprop(ae.parameters(), lr=0.01, momentum=0.5, centered=True)
    recon = []
    for it in range(4):
        optimizer.zero_grad()
        out, code = ae(real)
        loss = nn.functional.mse_loss(out, real) + 1e-3 * code.abs().sum()
        loss.backward()
        optimizer.step()
        recon.append(loss.item())
    print([f"{v:.4f}" for v in recon], sorted(optimizer.state[ae.decoder.bias]))
    return history, recon, list(G.parameters()) + list(D.parameters())


def test_gan_with_two_optimizers_and_an_autoencoder():
    text, (history, recon, _) = check_both(_gan)
    assert recon == sorted(recon, reverse=True)
    assert "['grad_avg', 'momentum_buffer', 'square_avg', 'step']" in text
    assert "0 D " in text and " False" in text


# --- 16. fine-tuning: no-decay groups, warm-up via LambdaLR, gradient accumulation -------------------

def _finetune(torch, nn, optim, data):
    model = init_from_numpy(torch, nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3)))
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if name.endswith("bias") else decay).append(p)
    optimizer = optim.AdamW([{"params": decay, "weight_decay": 0.01},
                             {"params": no_decay, "weight_decay": 0.0}], lr=3e-2)
    total_steps, warmup = 8, 2

    def lr_lambda(step):
        if step < warmup:
            return float(step) / float(max(1, warmup))
        return max(0.0, float(total_steps - step) / float(max(1, total_steps - warmup)))

    scheduler = optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
    loader = data.DataLoader(data.TensorDataset(torch.from_numpy(X), torch.from_numpy(Y)), batch_size=8)
    accumulation = 2
    optimizer.zero_grad()
    losses = []
    for i, (xb, yb) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(xb), yb) / accumulation
        loss.backward()
        if (i + 1) % accumulation == 0:
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            losses.append(loss.item() * accumulation)
            print(i, f"{losses[-1]:.4f}", [round(v, 6) for v in scheduler.get_last_lr()])
    return losses, list(model.parameters())


def test_finetuning_with_no_decay_groups_warmup_and_accumulation():
    text, (losses, _) = check_both(_finetune)
    assert len(losses) == 4
    assert "1 " in text and "[0.015, 0.015]" in text and "[0.02, 0.02]" in text


# --- 17. errors a first program meets ---------------------------------------------------------------

def _errors(torch, nn, optim, data):
    model = init_from_numpy(torch, nn.Linear(3, 2))
    print(error(lambda: model(torch.ones(1, 4))))
    print(error(lambda: model(torch.ones(2, 3, dtype=torch.float64))))
    print(error(lambda: model(torch.ones(2, 3, dtype=torch.int64))))
    print(error(lambda: setattr(model, "weight", torch.zeros(2, 3))))
    print(error(lambda: getattr(model, "wieght")))
    print(error(lambda: nn.Sequential(nn.Linear(2, 2))[3]))
    print(error(lambda: nn.Module()(1)))

    class Forgot(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(2, 2)

    print(error(Forgot))
    print(error(lambda: nn.Dropout(1.5)))
    print(error(lambda: model.load_state_dict([1, 2])))
    print(error(lambda: optim.SGD(model.parameters(), lr=0.1).load_state_dict({"state": {}, "param_groups": []})))
    print(error(lambda: optim.lr_scheduler.StepLR(optim.SGD(model.parameters(), lr=0.1), 2, last_epoch=3)).split("\n")[0])
    print(error(lambda: data.DataLoader(data.TensorDataset(torch.ones(3)), batch_size=2, drop_last=1)))
    print(error(lambda: torch.load(os.path.join(os.sep, "no", "such", "file.pt"))))
    return model(torch.ones(3))


def test_error_messages_of_common_mistakes():
    text, _ = check_both(_errors)
    assert "RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x4 and 3x2)" in text
    assert "AttributeError: cannot assign module before Module.__init__() call" in text
    assert ("TypeError: cannot assign 'torch.FloatTensor' as parameter 'weight' "
            "(torch.nn.Parameter or None expected)") in text
    assert "AttributeError: 'Linear' object has no attribute 'wieght'" in text
    assert "KeyError: \"param 'initial_lr' is not specified in param_groups[0]" in text
    assert "FileNotFoundError: [Errno 2] No such file or directory" in text


# --- 18. a Parameter's views are plain tensors ---------------------------------------------------

def _parameter_views(torch, nn, optim, data):
    model = init_from_numpy(torch, nn.Linear(3, 2))
    row = model.weight[0]
    print(row.detach(), model.weight.t().requires_grad)
    print(type(row).__name__, type(model.weight.t()).__name__, type(model.bias.view(2, 1)).__name__,
          isinstance(model.weight.T, nn.Parameter), repr(model.bias[:1]).startswith("Parameter"))

    class Tied(nn.Module):
        def __init__(self, base):
            super().__init__()
            self.base = base
            self.first_row = base.weight[0]  # a plain attribute, as in torch: not a parameter

    print([name for name, _ in Tied(model).named_parameters()])
    return row


def test_views_of_a_parameter_are_plain_tensors():
    """In torch an op on a Parameter, a view included, gives a Tensor: `print(fc.weight[0])` shows
    no "Parameter containing:", and assigning such a view to a Module attribute registers
    nothing."""
    text, row = check_both(_parameter_views)
    assert not isinstance(row, minigrad.nn.Parameter)
    assert "Tensor Tensor Tensor False False" in text
    assert "['base.weight', 'base.bias']" in text


# --- signed zeros and node names -------------------------------------------------------------------

def _ignored_target_gradient(torch, nn, optim, data):
    logits = torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5], [0.2, 0.3, 0.1]], requires_grad=True)
    w = torch.tensor([1.0, 2.0, 0.5])
    for criterion in (nn.CrossEntropyLoss(), nn.CrossEntropyLoss(reduction="none"),
                      nn.CrossEntropyLoss(weight=w, reduction="sum"), nn.NLLLoss(), nn.NLLLoss(weight=w)):
        logits.grad = None
        criterion(logits, torch.tensor([2, -100, 0])).sum().backward()
        print(logits.grad, np.signbit(logits.grad.numpy()).astype(int).tolist())
    return logits.grad


def test_cross_entropy_gradient_of_an_ignored_target_is_positive_zero():
    """An ignored target's row of the gradient is +0, as torch's: p - onehot would be p - 1 at
    the class the ignored index was clamped to, and (p - 1) * 0 is -0.0, printed -0.0000."""
    text, grad = check_both(_ignored_target_gradient)
    assert "-0.0000" not in text
    assert not np.signbit(grad.numpy()[1]).any()


def _select_node(torch, nn, optim, data):
    w = init_from_numpy(torch, nn.Linear(3, 2)).weight
    x = w.reshape(2, 3, 1)
    views = [w[0], w[:, 1], w[1:], w[None], w[:], w[...], w[:, :], w[0:100, 1], w[-2:, 1], w[0, 1:], w[1:, 0],
             w[0, None], w[None, 0], w[..., 0], x[..., 1:, 0], x[0, ..., None], x[:, :, 0:1], w[0][1],
             w[torch.tensor(1)], w[np.int64(0)], w[[0]], w[0, [1]]]
    names = [v.grad_fn.name() for v in views]
    print(names)
    return names


def test_basic_indexing_records_the_node_of_the_last_step():
    """torch applies a basic index one item at a time, so grad_fn is the last step's node:
    SelectBackward0 for an integer, SliceBackward0 for a slice (skipped inside a tuple when it
    spans its whole dim), UnsqueezeBackward0 for None, AliasBackward0 when nothing is left."""
    _, names = check_both(_select_node)
    assert names == ["SelectBackward0", "SelectBackward0", "SliceBackward0", "UnsqueezeBackward0",
                     "SliceBackward0", "AliasBackward0", "AliasBackward0", "SelectBackward0", "SelectBackward0",
                     "SliceBackward0", "SelectBackward0", "UnsqueezeBackward0", "SelectBackward0",
                     "SelectBackward0", "SelectBackward0", "UnsqueezeBackward0", "AliasBackward0",
                     "SelectBackward0", "SelectBackward0", "SelectBackward0", "IndexBackward0", "IndexBackward0"]
