"""nn.Module, the layers, containers, nn.init and DataParallel (against torch where it exists)."""
from collections import OrderedDict
import copy
import math
import threading
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.nn as nn
import minigrad.nn.functional as F


def _torch():
    return pytest.importorskip("torch")


class Net(nn.Module):
    """Seed 000's NeuralNetwork, smaller."""

    def __init__(self, d_in=6, d_hidden=5, d_out=3):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        return self.fc2(minigrad.relu(self.fc1(x)))


def _copy_into_torch(m, tm):
    torch = _torch()
    with torch.no_grad():
        for (n, p), (tn, tp) in zip(m.named_parameters(), tm.named_parameters()):
            assert n == tn
            tp.copy_(torch.tensor(p.detach().numpy()))


# ---- registration and traversal ---------------------------------------------------------------
def test_registration_order_and_names_match_torch():
    torch = _torch()

    class TNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(6, 5)
            self.block = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(5, 4))
            self.register_buffer("running", torch.zeros(4))
            self.register_buffer("tmp", torch.zeros(1), persistent=False)
            self.fc2 = torch.nn.Linear(4, 3)

    class MNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(6, 5)
            self.block = nn.Sequential(nn.ReLU(), nn.Linear(5, 4))
            self.register_buffer("running", minigrad.zeros(4))
            self.register_buffer("tmp", minigrad.zeros(1), persistent=False)
            self.fc2 = nn.Linear(4, 3)

    t, m = TNet(), MNet()
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in m.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in m.named_children()] == [n for n, _ in t.named_children()]
    assert list(m.state_dict()) == list(t.state_dict())
    assert len(list(m.parameters())) == 6 and len(list(m.children())) == 3
    assert all(isinstance(p, nn.Parameter) and p.requires_grad and p.is_leaf for p in m.parameters())
    assert len(list(m.modules())) == len(list(t.modules()))


def test_shared_parameters_and_modules_are_listed_once():
    lin = nn.Linear(3, 3)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.named_modules())) == 3
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4


def test_getattr_setattr_delattr_and_errors_match_torch():
    torch = _torch()
    m, t = nn.Linear(2, 3), torch.nn.Linear(2, 3)
    with pytest.raises(AttributeError) as e:
        m.nope
    with pytest.raises(AttributeError) as te:
        t.nope
    assert str(e.value) == str(te.value)
    with pytest.raises(TypeError) as e:
        m.weight = minigrad.zeros(3, 2)
    with pytest.raises(TypeError) as te:
        t.weight = torch.zeros(3, 2)
    assert str(e.value) == str(te.value).replace("torch.FloatTensor", "minigrad.FloatTensor")

    class Early(nn.Module):
        def __init__(self):
            self.p = nn.Parameter(minigrad.zeros(1))

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()
    m.extra = nn.Linear(1, 1)
    assert "extra" in dict(m.named_children())
    del m.extra
    assert "extra" not in dict(m.named_children())
    m.bias = None
    assert [n for n, _ in m.named_parameters()] == ["weight"]
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        m.register_buffer("weight", minigrad.zeros(1))
    with pytest.raises(TypeError, match="is not a Module subclass"):
        m.add_module("x", 3)


def test_parameter_repr_and_identity():
    torch = _torch()
    p = nn.Parameter(minigrad.tensor([1.0, 2.0]))
    tp = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    assert repr(p) == repr(tp) and str(p) == str(tp)
    q = nn.Parameter(minigrad.tensor([1.0]), requires_grad=False)
    assert not q.requires_grad
    y = p * 2
    assert type(y) is minigrad.Tensor and y.grad_fn is not None
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        nn.Parameter(minigrad.tensor([1, 2]))
    base = minigrad.zeros(2)
    shared = nn.Parameter(base)
    base.add_(1)
    assert shared.tolist() == [1.0, 1.0]
    c = copy.deepcopy(p)
    assert isinstance(c, nn.Parameter) and c.tolist() == p.tolist() and c._data is not p._data


def test_reprs_match_torch():
    torch = _torch()
    tnn = torch.nn
    pairs = [
        (nn.Sequential(nn.Linear(10, 5), nn.ReLU(), nn.Linear(5, 2)),
         tnn.Sequential(tnn.Linear(10, 5), tnn.ReLU(), tnn.Linear(5, 2))),
        (nn.Sequential(nn.Linear(10, 5), nn.ReLU(), nn.Linear(5, 1)),
         tnn.Sequential(tnn.Linear(10, 5), tnn.ReLU(), tnn.Linear(5, 1))),
        (nn.Linear(3, 4, bias=False), tnn.Linear(3, 4, bias=False)),
        (nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU(), nn.Tanh()]),
         tnn.ModuleList([tnn.Linear(2, 2) for _ in range(3)] + [tnn.ReLU(), tnn.Tanh()])),
        (nn.Sequential(OrderedDict(fc=nn.Linear(1, 1), act=nn.LeakyReLU(0.2), drop=nn.Dropout(0.1),
                                   flat=nn.Flatten(), sm=nn.Softmax(dim=1), lsm=nn.LogSoftmax(1),
                                   sig=nn.Sigmoid(), idn=nn.Identity(), inner=nn.Sequential(nn.ReLU(True)))),
         tnn.Sequential(OrderedDict(fc=tnn.Linear(1, 1), act=tnn.LeakyReLU(0.2), drop=tnn.Dropout(0.1),
                                    flat=tnn.Flatten(), sm=tnn.Softmax(dim=1), lsm=tnn.LogSoftmax(1),
                                    sig=tnn.Sigmoid(), idn=tnn.Identity(),
                                    inner=tnn.Sequential(tnn.ReLU(True))))),
        (nn.CrossEntropyLoss(), tnn.CrossEntropyLoss()),
        (nn.MSELoss(), tnn.MSELoss()),
        (nn.ModuleList(), tnn.ModuleList()),
    ]
    for m, t in pairs:
        assert repr(m) == repr(t)
    assert repr(Net()).startswith("Net(\n  (fc1): Linear(in_features=6, out_features=5, bias=True)")


def test_parameter_and_buffer_name_errors_match_torch():
    torch = _torch()

    def run(lib):
        out = []

        class Bare(lib.nn.Module):
            def __init__(self):  # no super().__init__()
                pass
        for kind, value in (("parameter", lambda: lib.nn.Parameter(lib.zeros(1))), ("buffer", lambda: lib.zeros(1))):
            register = "register_" + kind
            m = lib.nn.Linear(1, 1)
            for name in (3, "a.b", "", "weight" if kind == "buffer" else "training"):
                try:
                    getattr(m, register)(name, value())
                except (TypeError, KeyError) as e:
                    out.append((kind, type(e).__name__, str(e)))
            try:
                getattr(Bare(), register)("x", value())
            except AttributeError as e:
                out.append((kind, type(e).__name__, str(e)))
            getattr(m, register)("fine", None)
            out.append((kind, "fine" in dict(getattr(m, "_" + kind + "s"))))
        return out
    mine = run(minigrad)
    assert len(mine) == 12
    assert mine == run(torch)


# ---- containers -------------------------------------------------------------------------------
def test_sequential_indexing_slicing_len_append():
    seq = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    assert len(seq) == 3 and isinstance(seq[0], nn.Linear) and seq[-1] is seq[2]
    head = seq[:2]
    assert isinstance(head, nn.Sequential) and len(head) == 2 and head[0] is seq[0]
    x = minigrad.randn(5, 4)
    assert np.allclose(seq(x).numpy(force=True), seq[2](seq[1](seq[0](x))).numpy(force=True))
    seq.append(nn.Tanh())
    assert len(seq) == 4 and list(seq._modules) == ["0", "1", "2", "3"]
    del seq[1]
    assert list(seq._modules) == ["0", "1", "2"] and isinstance(seq[1], nn.Linear)
    seq.insert(1, nn.ReLU())
    assert isinstance(seq[1], nn.ReLU) and len(seq) == 4
    with pytest.raises(IndexError, match="index 7 is out of range"):
        seq[7]
    named = nn.Sequential(OrderedDict(a=nn.Linear(2, 2), b=nn.ReLU()))
    assert named.a is named[0]


def test_modulelist_and_moduledict():
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])
    ml.append(nn.Linear(2, 1))
    ml += [nn.ReLU()]
    assert len(ml) == 4 and len(list(ml.parameters())) == 6
    assert isinstance(ml[1:3], nn.ModuleList) and len(ml[1:3]) == 2

    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])
            self.heads = nn.ModuleDict({"a": nn.Linear(3, 1), "b": nn.Linear(3, 2)})

    h = Holder()
    assert [n for n, _ in h.named_parameters()][:2] == ["layers.0.weight", "layers.0.bias"]
    assert "heads.b.bias" in dict(h.named_parameters())
    assert list(h.heads.keys()) == ["a", "b"] and "a" in h.heads
    with pytest.raises(NotImplementedError):
        ml(minigrad.zeros(1))


# ---- Linear -----------------------------------------------------------------------------------
def test_linear_init_follows_torch_bounds():
    minigrad.manual_seed(0)
    lin = nn.Linear(400, 300)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    bound = 1 / math.sqrt(400)
    assert w.shape == (300, 400) and b.shape == (300,) and w.dtype == np.float32
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    # uniform(-bound, bound) has std bound / sqrt(3); 120000 samples pin it to ~0.3%
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound
    assert abs(w.mean()) < 0.01 * bound
    minigrad.manual_seed(0)
    assert np.array_equal(nn.Linear(400, 300).weight.detach().numpy(), w)


def test_linear_forward_backward_match_torch():
    torch = _torch()
    m, t = nn.Linear(6, 4), torch.nn.Linear(6, 4)
    _copy_into_torch(m, t)
    x = np.random.default_rng(0).standard_normal((5, 6)).astype(np.float32)
    out, tout = m(minigrad.tensor(x)), t(torch.tensor(x))
    assert out.grad_fn is not None
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-6)
    out.pow(2).sum().backward()
    tout.pow(2).sum().backward()
    np.testing.assert_allclose(m.weight.grad.numpy(), t.weight.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(m.bias.grad.numpy(), t.bias.grad.numpy(), rtol=1e-4, atol=1e-5)
    nb = nn.Linear(6, 4, bias=False)
    assert nb.bias is None and nb(minigrad.tensor(x)).shape == (5, 4)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(5x6 and 5x4\)"):
        nn.Linear(5, 4)(minigrad.tensor(x))


# ---- state_dict -------------------------------------------------------------------------------
def test_state_dict_round_trip_and_detached():
    a, b = Net(), Net()
    sd = a.state_dict()
    assert list(sd) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert all(not v.requires_grad and v.grad_fn is None for v in sd.values())
    assert a.state_dict(keep_vars=True)["fc1.weight"] is a.fc1.weight
    w_before = b.fc1.weight
    res = b.load_state_dict(sd)
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert b.fc1.weight is w_before  # copied into, not replaced
    for k in sd:
        assert b.state_dict()[k].tolist() == sd[k].tolist()
    sd["fc1.weight"].zero_()  # state_dict shares memory with the parameters, as torch's
    assert a.fc1.weight.abs().sum().item() == 0


def test_load_state_dict_errors_match_torch():
    torch = _torch()
    m, t = nn.Linear(3, 2), torch.nn.Linear(3, 2)
    bad = OrderedDict(weight=minigrad.zeros(2, 4), extra=minigrad.zeros(1))
    tbad = OrderedDict(weight=torch.zeros(2, 4), extra=torch.zeros(1))
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict(bad)
    with pytest.raises(RuntimeError) as te:
        t.load_state_dict(tbad)
    assert str(e.value) == str(te.value).replace("torch.Size", "minigrad.Size")
    res = m.load_state_dict(OrderedDict(weight=minigrad.ones(2, 3), extra=minigrad.zeros(1)), strict=False)
    tres = t.load_state_dict(OrderedDict(weight=torch.ones(2, 3), extra=torch.zeros(1)), strict=False)
    assert res.missing_keys == tres.missing_keys == ["bias"]
    assert res.unexpected_keys == tres.unexpected_keys == ["extra"]
    assert m.weight.tolist() == [[1.0] * 3] * 2


# ---- modes, devices, dtypes, grads -------------------------------------------------------------
def test_train_eval_zero_grad_requires_grad_apply():
    m = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5), nn.Sequential(nn.Dropout()))
    assert m.training and all(x.training for x in m.modules())
    assert m.eval() is m and not any(x.training for x in m.modules())
    m.train()
    assert all(x.training for x in m.modules())
    m(minigrad.randn(2, 3)).sum().backward()
    g = m[0].weight.grad
    m.zero_grad(set_to_none=False)
    assert m[0].weight.grad is g and g.abs().sum().item() == 0
    m.zero_grad()
    assert m[0].weight.grad is None
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "Dropout", "Dropout", "Sequential", "Sequential"]

    def init_weights(mod):
        if isinstance(mod, nn.Linear):
            nn.init.constant_(mod.weight, 0.5)
    m.apply(init_weights)
    assert m[0].weight.tolist() == [[0.5] * 3] * 3


def test_dropout_module_train_and_eval():
    minigrad.manual_seed(0)
    d = nn.Dropout(0.25)
    x = minigrad.ones(20000)
    y = d(x).numpy()
    assert set(np.unique(y).tolist()) <= {0.0, float(np.float32(1 / 0.75))}
    assert abs((y == 0).mean() - 0.25) < 0.02
    d.eval()
    assert d(x) is x or np.array_equal(d(x).numpy(), x.numpy())
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)


def test_to_dtype_keeps_parameter_objects_and_grads():
    m = Net()
    w = m.fc1.weight
    m(minigrad.randn(2, 6)).sum().backward()
    assert m.double() is m
    assert m.fc1.weight is w and w.dtype is minigrad.float64 and isinstance(w, nn.Parameter)
    assert w.grad.dtype is minigrad.float64
    assert m(minigrad.randn(2, 6, dtype=minigrad.float64)).dtype is minigrad.float64
    m.to(minigrad.float32)
    assert w.dtype is minigrad.float32
    m.float()
    assert m.to("cpu") is m and w.device == minigrad.device("cpu")
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point"):
        m.to(minigrad.int64)


def test_module_to_device(device):
    m = Net().to(device)
    want = minigrad.randn(1).to(device).device  # "cuda" means cuda:0
    assert all(p.device == want for p in m.parameters())
    x = minigrad.randn(4, 6).to(device)
    out = m(x)
    assert out.device == want
    out.sum().backward()
    assert m.fc1.weight.grad.device == want
    if device.startswith("cuda"):
        assert m.cpu().fc1.weight.device.type == "cpu"


def test_forward_hooks_and_pre_hooks():
    torch_like_calls = []
    m = nn.Linear(2, 2)
    h1 = m.register_forward_pre_hook(lambda mod, inp: torch_like_calls.append(("pre", len(inp))))
    h2 = m.register_forward_hook(lambda mod, inp, out: out * 0)
    out = m(minigrad.ones(1, 2))
    assert torch_like_calls == [("pre", 1)] and out.abs().sum().item() == 0
    h2.remove()
    assert m(minigrad.ones(1, 2)).abs().sum().item() > 0
    h1.remove()
    m.register_forward_pre_hook(lambda mod, inp: (inp[0] * 0,))
    assert np.allclose(m(minigrad.ones(1, 2)).detach().numpy(), m.bias.detach().numpy())
    k = nn.Identity()
    k.register_forward_hook(lambda mod, args, kwargs, out: ("kw", kwargs), with_kwargs=True)
    assert k(minigrad.ones(1)) == ("kw", {})


def test_missing_forward_and_scope_is_recorded():
    with pytest.raises(NotImplementedError, match=r'Module \[Module\] is missing the required "forward" function'):
        nn.Module()(1)
    m = Net()
    out = m(minigrad.randn(2, 6))
    scope = out.grad_fn._scope
    assert scope[0] is m.fc2 and scope[1][0] is m and scope[1][1] is None
    from minigrad.autograd.function import current_scope
    assert current_scope() is None

    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")
    with pytest.raises(ValueError, match="boom"):
        m.fc1.register_forward_hook(lambda *a: Boom()(1))
        m(minigrad.randn(2, 6))
    assert current_scope() is None, "a forward that raised left its module in the scope"

    # each thread has its own scope: a module called in another thread, from inside a forward here
    seen = {}

    class Outer(nn.Module):
        def forward(self, x):
            def other():
                seen["other"] = nn.Linear(6, 2)(x).grad_fn._scope
            t = threading.Thread(target=other)
            t.start()
            t.join()
            seen["here"] = current_scope()
            return x
    outer = Outer()
    outer(minigrad.randn(2, 6))
    assert seen["other"][1] is None and isinstance(seen["other"][0], nn.Linear)
    assert seen["here"] == (outer, None) and current_scope() is None


# ---- nn.init ----------------------------------------------------------------------------------
def test_init_functions():
    torch = _torch()
    w = minigrad.empty(300, 200)
    nn.init.xavier_uniform_(w)
    a = math.sqrt(6 / 500)
    assert np.abs(w.numpy()).max() <= a and abs(w.numpy().std() - a / math.sqrt(3)) < 0.02 * a
    nn.init.kaiming_uniform_(w, nonlinearity="relu")
    b = math.sqrt(6 / 200)
    assert np.abs(w.numpy()).max() <= b and abs(w.numpy().std() - b / math.sqrt(3)) < 0.02 * b
    nn.init.normal_(w, 3.0, 0.5)
    assert abs(w.numpy().mean() - 3) < 0.01 and abs(w.numpy().std() - 0.5) < 0.01
    nn.init.kaiming_normal_(w, mode="fan_out")
    assert abs(w.numpy().std() - math.sqrt(2 / (1 + 0.01 ** 2)) / math.sqrt(300)) < 0.003
    nn.init.xavier_normal_(w, gain=2.0)
    assert abs(w.numpy().std() - 2 * math.sqrt(2 / 500)) < 0.003
    nn.init.trunc_normal_(w, std=1.0, a=-0.5, b=0.5)
    assert np.abs(w.numpy()).max() <= 0.5
    nn.init.uniform_(w, -2, -1)
    assert w.numpy().min() >= -2 and w.numpy().max() <= -1
    for fn, val in ((nn.init.zeros_, 0.0), (nn.init.ones_, 1.0)):
        assert fn(w) is w and set(np.unique(w.numpy()).tolist()) == {val}
    nn.init.eye_(w)
    assert np.array_equal(w.numpy(), np.eye(300, 200, dtype=np.float32))
    for nl, p in (("relu", None), ("tanh", None), ("leaky_relu", 0.2), ("linear", None), ("sigmoid", None)):
        assert nn.init.calculate_gain(nl, p) == pytest.approx(torch.nn.init.calculate_gain(nl, p))
    g1 = nn.init.uniform_(minigrad.empty(5), generator=minigrad.Generator().manual_seed(7)).tolist()
    g2 = nn.init.uniform_(minigrad.empty(5), generator=minigrad.Generator().manual_seed(7)).tolist()
    assert g1 == g2
    p = nn.Parameter(minigrad.zeros(3, 3))
    nn.init.ones_(p)  # in place on a leaf that requires grad, without recording
    assert p.is_leaf and p.grad_fn is None
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        nn.init.xavier_uniform_(minigrad.empty(3))


# ---- DataParallel -----------------------------------------------------------------------------
def _dp_pair():
    minigrad.manual_seed(0)
    m = Net(8, 6, 3)
    twin = Net(8, 6, 3)
    twin.load_state_dict(m.state_dict())
    return m, twin


def test_data_parallel_replicas_match_unwrapped_module(device):
    m, twin = _dp_pair()
    m.to(device)
    twin.to(device)
    dp = nn.DataParallel(m, device_ids=[device, device])
    x = minigrad.randn(10, 8).to(device)
    target = minigrad.randint(0, 3, (10,)).to(device)
    out = dp(x)
    ref = twin(x)
    assert out.device == ref.device
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().cpu().numpy(), rtol=1e-6, atol=1e-6)
    F.cross_entropy(out, target).backward()
    F.cross_entropy(ref, target).backward()
    for (n, p), (_, q) in zip(m.named_parameters(), twin.named_parameters()):
        assert p.grad is not None, n
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.cpu().numpy(), rtol=1e-5, atol=1e-6)
    assert list(dp.state_dict()) == ["module." + k for k in m.state_dict()]
    assert list(dp.parameters()) == list(m.parameters())
    # the replicas ran in other threads and left no parameters behind on the original
    assert all(isinstance(p, nn.Parameter) for p in m.parameters())


def test_data_parallel_over_two_cuda_devices():
    # seed 000's multi-GPU path: nn.DataParallel(model) with every GPU. Runs where there are two
    # (test_cuda_emulated.py runs it on two emulated GPUs, with the compiled kernels).
    if minigrad.cuda.device_count() < 2:
        pytest.skip("needs two CUDA devices")
    m, twin = _dp_pair()
    m.to("cuda")
    twin.to("cuda")
    dp = nn.DataParallel(m)
    assert dp.device_ids == list(range(minigrad.cuda.device_count())) and dp.output_device == 0
    x = minigrad.randn(10, 8).to("cuda")
    target = minigrad.randint(0, 3, (10,)).to("cuda")
    out, ref = dp(x), twin(x)
    assert out.device == minigrad.device("cuda:0")
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().cpu().numpy(), rtol=1e-6, atol=1e-6)
    F.cross_entropy(out, target).backward()
    F.cross_entropy(ref, target).backward()
    for (n, p), (_, q) in zip(m.named_parameters(), twin.named_parameters()):
        assert p.device == minigrad.device("cuda:0"), n
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.cpu().numpy(), rtol=1e-5, atol=1e-6)
    # gathered onto another output device
    assert nn.DataParallel(m, output_device=1)(x).device == minigrad.device("cuda:1")
    # the module must live on device_ids[0], as torch says
    with pytest.raises(RuntimeError, match=r"module must have its parameters and buffers on device cuda:1 "
                                           r"\(device_ids\[0\]\) but found one of them on device: cuda:0"):
        nn.DataParallel(m, device_ids=[1, 0])(x)


def test_data_parallel_trains_like_unwrapped_with_sgd():
    m, twin = _dp_pair()
    dp = nn.DataParallel(m, device_ids=["cpu", "cpu", "cpu"])
    x, y = minigrad.randn(9, 8), minigrad.randint(0, 3, (9,))
    for model in (dp, twin):
        params = list(model.parameters())
        for _ in range(5):
            for p in params:
                p.grad = None
            F.cross_entropy(model(x), y).backward()
            with minigrad.no_grad():
                for p in params:
                    p -= 0.1 * p.grad
    for p, q in zip(m.parameters(), twin.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_data_parallel_small_batch_kwargs_and_containers():
    m, twin = _dp_pair()

    class Two(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x, scale=1.0, extra=None):
            out = self.inner(x) * scale
            return {"out": out, "pair": (out, extra["v"] * 2)}

    dp = nn.DataParallel(Two(m), device_ids=["cpu", "cpu", "cpu"])
    x = minigrad.randn(2, 8)  # fewer rows than devices: only two replicas run
    res = dp(x, scale=2.0, extra={"v": minigrad.ones(2, 1)})
    np.testing.assert_allclose(res["out"].detach().numpy(), (twin(x) * 2).detach().numpy(), rtol=1e-6)
    assert res["pair"][1].tolist() == [[2.0], [2.0]]


def test_data_parallel_without_devices_calls_module_and_checks_devices():
    m, twin = _dp_pair()
    x = minigrad.randn(4, 8)
    if not minigrad.cuda.is_available():
        dp = nn.DataParallel(m)
        assert dp.device_ids == []
        np.testing.assert_allclose(dp(x).detach().numpy(), twin(x).detach().numpy())
    one = nn.DataParallel(m, device_ids=["cpu"])
    np.testing.assert_allclose(one(x).detach().numpy(), twin(x).detach().numpy())
    assert "module" in repr(one) and repr(one).startswith("DataParallel(\n  (module): Net(")

    class Elsewhere:  # a device the parameters are not on
        type, index = "cuda", 0

        def __str__(self):
            return "cuda:0"

    dp = nn.DataParallel(m, device_ids=["cpu", "cpu"])
    dp.src_device_obj = Elsewhere()
    with pytest.raises(RuntimeError, match=r"module must have its parameters and buffers on device cuda:0 "
                                           r"\(device_ids\[0\]\) but found one of them on device: cpu"):
        dp(x)


def test_data_parallel_replica_error_names_replica_and_scalar_outputs_warn():
    class Fails(nn.Module):
        def forward(self, x):
            raise ValueError("bad input")

    dp = nn.DataParallel(Fails(), device_ids=["cpu", "cpu"])
    with pytest.raises(ValueError, match="Caught ValueError in replica 0 on device cpu"):
        dp(minigrad.randn(4, 2))

    class Scalar(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(minigrad.ones(2))

        def forward(self, x):
            return (x * self.w).sum()

    dp = nn.DataParallel(Scalar(), device_ids=["cpu", "cpu"])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = dp(minigrad.ones(4, 2))
    assert out.shape == (2,) and out.tolist() == [4.0, 4.0]
    assert any("scalars" in str(x.message) for x in w)


def test_registered_names_are_plain_attributes_kept_in_sync():
    m = Net()
    assert m.__dict__["fc1"] is m._modules["fc1"] and m.fc1.__dict__["weight"] is m.fc1.weight
    new = nn.Parameter(minigrad.zeros(5))
    m.fc1._parameters["bias"] = new          # a direct write, as some torch utilities do
    assert m.fc1.bias is new
    del m._modules["fc2"]
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'fc2'"):
        m.fc2
    m.fc1._parameters.pop("bias")
    assert not hasattr(m.fc1, "bias") and [n for n, _ in m.named_parameters()] == ["fc1.weight"]
    m.register_buffer("stat", minigrad.ones(2))
    m.stat = minigrad.zeros(2)               # assigning a tensor to a buffer name replaces the buffer
    assert m._buffers["stat"] is m.stat and m.stat.tolist() == [0.0, 0.0]
    m.plain = 3                              # a plain attribute, not registered anywhere
    m.plain = nn.Linear(1, 1)                # becomes a submodule
    assert "plain" in m._modules and m.plain is m._modules["plain"]
    c = copy.deepcopy(m)
    assert c.fc1.weight is c.fc1._parameters["weight"] and c.fc1.weight is not m.fc1.weight
    c.fc1.weight.data.fill_(7.0)
    assert m.fc1.weight.abs().sum().item() != 7.0 * m.fc1.weight.numel()


# ---- registration edge cases against torch -------------------------------------------------------
def _names(m):
    return ([n for n, _ in m.named_modules()], [n for n, _ in m.named_parameters()],
            [n for n, _ in m.named_buffers()], list(m.state_dict()))


def test_reassigned_parameters_and_submodules_keep_their_place():
    torch = _torch()
    pairs = []
    for lib in (minigrad, torch):
        net = lib.nn.Sequential(OrderedDict(fc1=lib.nn.Linear(4, 3), act=lib.nn.ReLU(),
                                            fc2=lib.nn.Linear(3, 2)))
        net.fc1 = lib.nn.Linear(4, 3, bias=False)          # fine-tuning: swap a layer in place
        net.fc2.weight = lib.nn.Parameter(lib.zeros(2, 3))  # a new tensor for an existing param
        net.act = None
        net.act = lib.nn.Tanh()
        net.fc2.register_buffer("stat", lib.zeros(1))
        net.fc2.stat = lib.ones(1)                          # a plain tensor replaces the buffer
        net.fc2.extra = 1.5
        net.fc2.extra = lib.nn.Parameter(lib.ones(1))       # a plain attribute becomes a parameter
        net.fc2.bias = None                                 # None keeps the name registered
        pairs.append(net)
    m, t = pairs
    assert _names(m) == _names(t)
    assert list(m.fc2._parameters) == list(t.fc2._parameters) == ["weight", "bias", "extra"]
    assert m.fc2.bias is None and t.fc2.bias is None
    assert repr(m) == repr(t)
    assert m.fc2.stat.tolist() == [1.0] and m.fc2._buffers["stat"] is m.fc2.stat


def test_registration_errors_match_torch():
    torch = _torch()

    def err(fn):
        with pytest.raises(Exception) as e:
            fn()
        return type(e.value), str(e.value).replace("torch.", "minigrad.")

    def both(action):
        res = []
        for lib in (minigrad, torch):
            m = lib.nn.Linear(2, 2)
            m.register_buffer("buf", lib.zeros(1))
            m.plain = 1
            res.append(err(lambda: action(lib, m)))
        assert res[0] == res[1], res
    both(lambda lib, m: m.add_module("a.b", lib.nn.ReLU()))
    both(lambda lib, m: m.add_module("x", np.zeros(1)))
    both(lambda lib, m: m.add_module("plain", lib.nn.ReLU()))
    both(lambda lib, m: m.add_module(3, lib.nn.ReLU()))
    both(lambda lib, m: m.register_parameter("forward", None))       # a method name
    both(lambda lib, m: m.register_buffer("register_buffer", None))
    both(lambda lib, m: m.register_buffer("plain", lib.zeros(1)))
    both(lambda lib, m: m.register_buffer("x", [1.0]))
    both(lambda lib, m: setattr(m, "buf", 3))
    both(lambda lib, m: setattr(m, "buf", np.zeros(1)))
    both(lambda lib, m: setattr(m, "weight", lib.zeros(2, 2)))
    both(lambda lib, m: lib.nn.Module(a=3))
    both(lambda lib, m: lib.nn.Module(3))
    both(lambda lib, m: lib.nn.ModuleDict({"keys": lib.nn.ReLU()}))

    def non_leaf(lib, m):
        p = lib.nn.Parameter(lib.ones(2), requires_grad=False)
        p.mul_(lib.ones(2, requires_grad=True))  # an in-place op gives the Parameter a grad_fn
        m.register_parameter("w", p)
    both(non_leaf)


def test_buffer_assignment_registers_a_buffer():
    torch = _torch()
    out = []
    for lib in (minigrad, torch):
        m = lib.nn.Module()
        m.stats = lib.nn.Buffer(lib.ones(2))
        m.scratch = lib.nn.Buffer(lib.zeros(1), persistent=False)
        m.plain = lib.zeros(1)  # a plain tensor stays a plain attribute
        b = lib.nn.Buffer(lib.ones(2, requires_grad=True))
        out.append((list(m.state_dict()), [n for n, _ in m.named_buffers()],
                    isinstance(m.stats, lib.nn.Buffer), isinstance(lib.ones(1), lib.nn.Buffer),
                    isinstance(m.stats, lib.Tensor), b.requires_grad, b.is_leaf))
    assert out[0] == out[1] == (["stats"], ["stats", "scratch"], True, False, True, True, True)


def test_traversal_prefixes_recurse_and_nested_container_order_match_torch():
    torch = _torch()
    res = []
    for lib in (minigrad, torch):
        nn_ = lib.nn
        inner = nn_.Sequential(nn_.Linear(1, 1), nn_.Sequential(nn_.ReLU(), nn_.Linear(1, 1)))
        outer = nn_.Sequential(OrderedDict(a=inner, b=nn_.ModuleList([nn_.Tanh(), inner]),
                                           c=nn_.ModuleDict({"z": nn_.ReLU(), "y": nn_.Linear(1, 2)})))
        outer.a[0].register_buffer("bb", lib.ones(1))
        memo = set()
        res.append(([n for n, _ in outer.named_modules()],
                    [n for n, _ in outer.named_modules(remove_duplicate=False)],
                    [n for n, _ in outer.named_modules(prefix="root")],
                    [type(m).__name__ for m in outer.modules()],
                    [n for n, _ in outer.named_parameters(prefix="p")],
                    [n for n, _ in outer.a[0].named_parameters(prefix="x", recurse=False)],
                    [n for n, _ in outer.named_parameters(recurse=False)],
                    [n for n, _ in outer.named_parameters(remove_duplicate=False)],
                    [n for n, _ in outer.named_buffers(prefix="q")],
                    [n for n, _ in outer.b.named_modules(memo=memo)], len(memo)))
    assert res[0] == res[1]


def test_get_and_set_submodule_parameter_buffer_match_torch():
    torch = _torch()

    def run(lib):
        out = []
        net = lib.nn.Sequential(lib.nn.Linear(1, 1), lib.nn.Sequential(lib.nn.ReLU()))
        net[0].register_buffer("bb", lib.ones(1))
        for call in (lambda: net.get_parameter("0.weight").shape, lambda: net.get_parameter("0.nope"),
                     lambda: net.get_parameter("0.bb"), lambda: net.get_parameter("1"),
                     lambda: net.get_buffer("0.bb").tolist(), lambda: net.get_buffer("0.weight"),
                     lambda: net.get_buffer("0.zz"), lambda: net.get_submodule("1.0"),
                     lambda: net.get_submodule("0.weight"), lambda: net.get_submodule("5"),
                     lambda: net.set_submodule("1.0", lib.nn.Tanh()), lambda: net.set_submodule("1.5", lib.nn.Tanh()),
                     lambda: net.set_submodule("1.6", lib.nn.Tanh(), strict=True),
                     lambda: net.set_submodule("0.weight", lib.nn.Tanh()),
                     lambda: net.set_submodule("", lib.nn.Tanh()), lambda: net.set_submodule("0", 3)):
            try:
                out.append(repr(call()))
            except Exception as e:
                out.append(f"{type(e).__name__}: {e}")
        out.append(repr(net))
        return [o.replace("torch.", "minigrad.") for o in out]
    assert run(minigrad) == run(torch)


# ---- state_dict / load_state_dict -----------------------------------------------------------------
def test_load_state_dict_matches_torch():
    torch = _torch()

    def run(lib):
        out = []
        lin = lib.nn.Linear(2, 2)
        shared = lib.nn.Sequential(lin, lib.nn.ReLU(), lin)  # one module under two names
        sd = shared.state_dict()
        out.append((list(sd), repr(shared.load_state_dict(sd)), str(shared.load_state_dict(sd))))

        class Scalar(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.s = lib.nn.Parameter(lib.tensor(0.0))
                self.register_buffer("nb", lib.zeros(1), persistent=False)
                self.register_parameter("gone", None)
                self.sub = lib.nn.Linear(1, 1)

        m = Scalar()
        # an old checkpoint's shape-(1,) value loads into a 0-d parameter
        out.append(repr(m.load_state_dict({"s": lib.tensor([3.0]), "sub.weight": lib.ones(1, 1),
                                           "sub.bias": lib.ones(1)})))
        out.append(m.s.tolist())
        r = m.load_state_dict({"s": lib.ones(()), "nb": lib.ones(1), "gone": lib.ones(1), "sub": lib.ones(1),
                               "sub.extra": lib.ones(1), "other.x": lib.ones(1)}, strict=False)
        out.append((repr(r), r.missing_keys, r.unexpected_keys, list(r)))
        for bad in ({"s": lib.ones(2, 2), "sub.weight": 3, "sub.bias": lib.ones(1), "zz": lib.ones(1)},
                    {"s": lib.ones(())}):
            try:
                m.load_state_dict(bad)
            except RuntimeError as e:
                out.append(str(e))
        frozen = lib.nn.Linear(2, 2).requires_grad_(False)
        new_w = lib.full((2, 2), 2.0)
        frozen.load_state_dict({"weight": new_w, "bias": lib.zeros(2)}, assign=True)
        out.append((type(frozen.weight).__name__, frozen.weight.requires_grad, frozen.weight.tolist()))
        try:
            lib.nn.Linear(1, 1).load_state_dict([("weight", lib.ones(1, 1))])
        except TypeError as e:
            out.append(str(e))
        return [str(o).replace("torch.", "minigrad.") for o in out]
    assert run(minigrad) == run(torch)


def test_state_dict_positional_args_warn_and_extra_state_round_trips():
    torch = _torch()

    def run(lib):
        class Counter(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(1, 1)
                self.steps = 0

            def get_extra_state(self):
                return {"steps": self.steps}

            def set_extra_state(self, state):
                self.steps = state["steps"]

        outer = lib.nn.Sequential(Counter())
        outer[0].steps = 7
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            dest = OrderedDict()
            outer.state_dict(dest, "pre.")
        sd = outer.state_dict()
        fresh = lib.nn.Sequential(Counter())
        fresh.load_state_dict(sd)
        try:
            lib.nn.Sequential(Counter()).load_state_dict({k: v for k, v in sd.items() if "extra" not in k})
            missing = None
        except RuntimeError as e:
            missing = str(e)
        try:
            lib.nn.Sequential(lib.nn.Linear(1, 1)).load_state_dict(sd)
            unexpected = None
        except RuntimeError as e:
            unexpected = str(e)
        return (list(dest), [(x.category.__name__, str(x.message)) for x in w], list(sd), sd["0._extra_state"],
                fresh[0].steps, missing, unexpected)
    assert run(minigrad) == run(torch)


# ---- modes and hooks -----------------------------------------------------------------------------
def test_train_and_eval_call_each_childs_train():
    torch = _torch()
    res = []
    for lib in (minigrad, torch):
        calls = []

        class Frozen(lib.nn.Module):  # keeps its dropout in eval mode whatever the parent says
            def __init__(self):
                super().__init__()
                self.drop = lib.nn.Dropout()

            def train(self, mode=True):
                calls.append(mode)
                super().train(mode)
                self.drop.train(False)
                return self

        m = lib.nn.Sequential(lib.nn.Linear(1, 1), lib.nn.Sequential(Frozen()))
        m.eval()
        m.train()
        try:
            m.train(1)
        except ValueError as e:
            calls.append(str(e))
        res.append((calls, [x.training for x in m.modules()]))
    assert res[0] == res[1] == ([False, True, "training mode is expected to be boolean"],
                                [True, True, True, True, False])


def test_forward_hooks_order_kwargs_always_call_and_removal_match_torch():
    torch = _torch()

    def run(lib):
        calls = []

        class K(lib.nn.Module):
            def forward(self, x, y=1):
                calls.append(("forward", y))
                if y == "boom":
                    raise ValueError("forward failed")
                return x * y

        k = K()
        k.register_forward_pre_hook(lambda m, a: calls.append("pre1"))
        h2 = k.register_forward_pre_hook(lambda m, a: calls.append("pre2"), prepend=True)
        k.register_forward_pre_hook(lambda m, a, kw: (a, dict(kw, y=kw.get("y", 1) * 10))
                                    if kw.get("y") != "boom" else None, with_kwargs=True)
        k.register_forward_hook(lambda m, a, o: calls.append(("post1", len(a))))
        h4 = k.register_forward_hook(lambda m, a, kw, o: o + 1, with_kwargs=True, prepend=True)
        k.register_forward_hook(lambda m, a, o: calls.append("always"), always_call=True)
        out = k(lib.ones(1), y=2)
        calls.append(out.tolist())
        try:
            k(lib.ones(1), y="boom")
        except ValueError as e:
            calls.append(str(e))
        h2.remove()
        h4.remove()
        h4.remove()  # a second remove is a no-op
        calls.append(k(lib.ones(1), y=3).tolist())
        calls.append((len(k._forward_pre_hooks), len(k._forward_hooks), len(k._forward_hooks_with_kwargs),
                      len(k._forward_pre_hooks_with_kwargs), len(k._forward_hooks_always_called),
                      all(callable(h) for h in k._forward_hooks.values())))
        bad = lib.nn.Identity()
        bad.register_forward_pre_hook(lambda m, a, kw: a, with_kwargs=True)
        try:
            bad(lib.ones(1))
        except RuntimeError as e:
            calls.append(str(e))
        return calls
    assert run(minigrad) == run(torch)


# ---- containers ----------------------------------------------------------------------------------
def _outcome(fn):
    try:
        out = fn()
    except Exception as e:
        return f"{type(e).__name__}: {e}".replace("torch.", "minigrad.").replace("torch", "minigrad")
    if isinstance(out, (minigrad.nn.Module,)) or type(out).__module__.startswith("torch"):
        return repr(out)
    return out


def test_sequential_operations_match_torch():
    torch = _torch()

    def run(lib):
        nn_ = lib.nn

        def fresh():
            return nn_.Sequential(nn_.Linear(1, 2), nn_.ReLU(), nn_.Linear(2, 3), nn_.Tanh())
        s = fresh()
        out = [repr(s[-1]), repr(s[-4]), _outcome(lambda: s[-5]), _outcome(lambda: s[4]),
               _outcome(lambda: s["0"]), repr(s[1:3]), repr(s[::-1]), list(s[::-1]._modules),
               repr(s[5:]), len(s), [type(m).__name__ for m in s]]
        out.append(repr(s + nn_.Sequential(nn_.Sigmoid())))
        out.append(_outcome(lambda: s + nn_.ModuleList([nn_.ReLU()])))
        t = fresh()
        t += nn_.Sequential(nn_.Sigmoid())
        out += [repr(t), _outcome(lambda: t.__iadd__([nn_.ReLU()]))]
        out += [repr(s * 2), repr(2 * s), _outcome(lambda: s * 0), _outcome(lambda: s * 1.5),
                _outcome(lambda: s.__rmul__(-1))]
        u = fresh()
        u *= 2
        out.append(list(u._modules))
        v = fresh()
        v[0] = nn_.Identity()
        v[-1] = nn_.Sigmoid()
        out += [repr(v), _outcome(lambda: v.__setitem__(10, nn_.Identity())),
                _outcome(lambda: v.__setitem__(1, 3))]
        del v[0]
        del v[-1]
        out.append(list(v._modules))
        w = fresh()
        del w[::2]
        out += [repr(w), repr(w.append(nn_.ReLU())), _outcome(lambda: w.append(5)),
                repr(w.extend([nn_.Tanh()])), repr(w.insert(0, nn_.Sigmoid())), repr(w.insert(-1, nn_.Identity())),
                repr(w.insert(len(w), nn_.ReLU())), _outcome(lambda: w.insert(100, nn_.ReLU())),
                _outcome(lambda: w.insert(0, 3)), repr(w.pop(0)), repr(w.pop(-1)), repr(w.pop(slice(0, 2))),
                list(w._modules), _outcome(lambda: w.pop(100))]
        named = nn_.Sequential(OrderedDict(a=nn_.ReLU(), b=nn_.Tanh(), c=nn_.Sigmoid()))
        out += [list(named[1:]._modules), repr(named[-1])]
        del named[0]
        out.append(list(named._modules))
        x = lib.ones(2, 1)
        out.append(fresh()(x).shape == fresh()(x).shape)
        return out
    assert run(minigrad) == run(torch)


def test_modulelist_and_moduledict_operations_match_torch():
    torch = _torch()

    def run(lib):
        nn_ = lib.nn
        ml = nn_.ModuleList([nn_.ReLU(), nn_.Tanh(), nn_.Sigmoid(), nn_.Identity()])
        out = [repr(ml.pop(-1)), _outcome(lambda: ml[3]), _outcome(lambda: ml[-4]), repr(ml[::-1])]
        del ml[0]
        out.append(list(ml._modules))
        ml.insert(1, nn_.Identity())
        ml.insert(len(ml), nn_.ReLU())
        out += [repr(ml), repr(ml + [nn_.ReLU()]), repr(ml + nn_.Sequential(nn_.ReLU())),
                _outcome(lambda: ml.__setitem__(0, 3)), _outcome(lambda: ml.__setitem__(9, nn_.ReLU())),
                _outcome(lambda: ml.extend(3)), _outcome(lambda: ml.extend(nn_.ReLU())),
                _outcome(lambda: ml.extend({"a": nn_.ReLU()})), _outcome(lambda: nn_.ModuleList(3)),
                _outcome(lambda: ml.append(3))]
        ml[-1] = nn_.Tanh()
        ml.extend(x for x in [nn_.Linear(1, 1)])
        out += [repr(ml), _outcome(lambda: ml(lib.ones(1))), [n for n, _ in ml.named_parameters()]]
        md = nn_.ModuleDict({"b": nn_.ReLU(), "a": nn_.Tanh()})
        md["c"] = nn_.Sigmoid()
        out += [list(md), _outcome(lambda: md["zz"]), _outcome(lambda: md.__setitem__("x.y", nn_.ReLU())),
                _outcome(lambda: md.__setitem__("d", 3)), repr(md.pop("a")), _outcome(lambda: md.pop("a"))]
        for arg in (3, [3], [("a", nn_.ReLU(), 1)], [("a",)]):
            out.append(_outcome(lambda: md.update(arg)))
        md.update([("q", nn_.ReLU())])
        md.update(nn_.ModuleDict({"w": nn_.Linear(1, 1)}))
        md.update(OrderedDict(z=nn_.ReLU()))
        out += [list(md.keys()), repr(md), "a" in md, len(md), _outcome(lambda: nn_.ModuleDict(3)),
                [n for n, _ in md.named_parameters()]]
        del md["b"]
        md.clear()
        out.append(len(md))
        return out
    assert run(minigrad) == run(torch)


# ---- layers, losses, init ------------------------------------------------------------------------
def test_more_reprs_match_torch():
    torch = _torch()

    def run(lib):
        nn_ = lib.nn

        class Multi(nn_.Module):
            def __init__(self):
                super().__init__()
                self.a = nn_.Linear(1, 1)
                self.add_module("none", None)

            def extra_repr(self):
                return "x=1\ny=2"

        class One(nn_.Module):
            def extra_repr(self):
                return "x=1"

        mods = [nn_.Identity(3, a=5), nn_.LeakyReLU(1), nn_.LeakyReLU(0.2, True), nn_.Dropout(1),
                nn_.Dropout(0, True), nn_.Softmax(), nn_.LogSoftmax(0), nn_.Flatten(0, 2), Multi(), One(),
                nn_.ModuleDict({"a": nn_.Sequential(nn_.Linear(1, 1)), "b": nn_.ModuleList()}),
                nn_.Sequential(nn_.Sequential(), nn_.ModuleList([nn_.ReLU(), nn_.ReLU()])),
                nn_.ModuleList([nn_.Linear(2, 2), nn_.Linear(2, 2), nn_.ReLU(), nn_.Linear(2, 2)]),
                nn_.Linear(3, 4, dtype=lib.float64), nn_.SmoothL1Loss(beta=0.5), nn_.NLLLoss(), nn_.BCELoss(),
                nn_.BCEWithLogitsLoss(pos_weight=lib.ones(2)), nn_.L1Loss(reduction="sum")]
        return [repr(m) for m in mods]
    assert run(minigrad) == run(torch)


def test_legacy_loss_reduction_arguments_warn_as_torch():
    torch = _torch()

    def run(lib):
        out = []
        for kwargs in ({"size_average": False}, {"reduce": False}, {"size_average": True, "reduce": True},
                       {"reduce": True}):
            for cls in (lib.nn.MSELoss, lib.nn.CrossEntropyLoss, lib.nn.BCEWithLogitsLoss):
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    loss = cls(**kwargs)
                out.append((loss.reduction, [str(x.message) for x in w]))
        return out
    assert run(minigrad) == run(torch)


def test_init_errors_match_torch():
    torch = _torch()

    def run(lib):
        init = lib.nn.init
        calls = [lambda: init.kaiming_uniform_(lib.empty(3, 4), mode="bad"),
                 lambda: init.kaiming_normal_(lib.empty(3, 4), mode="Fan_Avg"),
                 lambda: init.uniform_(lib.empty(3), 2, 1), lambda: init.uniform_(lib.empty(3), 3.14159265, 1),
                 lambda: init.normal_(lib.empty(3), 0, -1), lambda: init.normal_(lib.empty(3), 0, -1e-9),
                 lambda: init.xavier_uniform_(lib.empty(3, 4), gain=-1.0),
                 lambda: init.trunc_normal_(lib.empty(3), a=1, b=-1),
                 lambda: init.orthogonal_(lib.empty(3)), lambda: init.sparse_(lib.empty(3), 0.5),
                 lambda: init.dirac_(lib.empty(2, 2)), lambda: init.dirac_(lib.empty(3, 2, 3), groups=2)]
        for dt in (lib.int64, lib.int32, lib.bool):
            calls += [lambda dt=dt: init.uniform_(lib.empty(2, dtype=dt)),
                      lambda dt=dt: init.normal_(lib.empty(2, dtype=dt)),
                      lambda dt=dt: init.trunc_normal_(lib.empty(2, dtype=dt))]
        out = [_outcome(c) for c in calls]
        out.append(init.uniform_(lib.empty(3), 1, 1).tolist())  # from == to is allowed
        out.append(init.dirac_(lib.empty(4, 2, 3, 3), groups=2).tolist())  # deterministic
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for name in ("uniform", "normal", "constant", "eye", "xavier_uniform", "xavier_normal",
                         "kaiming_uniform", "kaiming_normal", "orthogonal"):
                args = (lib.empty(3, 3), 0.5) if name == "constant" else (lib.empty(3, 3),)
                assert getattr(init, name)(*args).shape == (3, 3)
            init.trunc_normal_(lib.empty(4), mean=0, std=1, a=5, b=6)
        out.append([(x.category.__name__, str(x.message)) for x in w])
        return out
    assert run(minigrad) == run(torch)


def test_trunc_normal_orthogonal_and_sparse_distributions():
    minigrad.manual_seed(0)
    # far in the tail (a = 50 std): a rejection sampler on normal draws would never finish
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        t = nn.init.trunc_normal_(minigrad.empty(200), a=50.0, b=60.0)
    assert t.numpy().min() >= 50 and t.numpy().max() <= 60
    # mean of a standard normal truncated to [a, b]: (pdf(a) - pdf(b)) / (cdf(b) - cdf(a))
    for a, b in ((-0.5, 0.5), (2.0, 3.0), (-4.0, -1.0)):
        x = nn.init.trunc_normal_(minigrad.empty(40000, dtype=minigrad.float64), a=a, b=b).numpy()
        pdf = lambda v: math.exp(-v * v / 2) / math.sqrt(2 * math.pi)  # noqa: E731
        cdf = lambda v: 0.5 * (1 + math.erf(v / math.sqrt(2)))  # noqa: E731
        want = (pdf(a) - pdf(b)) / (cdf(b) - cdf(a))
        assert x.min() >= a and x.max() <= b
        assert abs(x.mean() - want) < 0.01, (a, b, x.mean(), want)
    g1 = nn.init.trunc_normal_(minigrad.empty(6), generator=minigrad.Generator().manual_seed(3)).tolist()
    g2 = nn.init.trunc_normal_(minigrad.empty(6), generator=minigrad.Generator().manual_seed(3)).tolist()
    assert g1 == g2
    for shape in ((3, 5), (5, 3), (4, 2, 3)):
        w = nn.init.orthogonal_(minigrad.empty(*shape), gain=2.0).numpy().reshape(shape[0], -1)
        small = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
        np.testing.assert_allclose(small, 4.0 * np.eye(min(w.shape)), atol=1e-5)
    s = nn.init.sparse_(minigrad.empty(10, 6), sparsity=0.25, std=0.5).numpy()
    assert ((s == 0).sum(axis=0) == math.ceil(0.25 * 10)).all()
    p = nn.Parameter(minigrad.empty(4, 4))
    for fn in (nn.init.orthogonal_, nn.init.trunc_normal_, lambda t: nn.init.sparse_(t, 0.5)):
        assert fn(p) is p and p.is_leaf and p.grad_fn is None


# ---- devices, dtypes, copies ---------------------------------------------------------------------
def test_to_converts_grads_and_float_buffers_and_keeps_the_optimizer():
    torch = _torch()

    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        m.register_buffer("count", lib.zeros(1, dtype=lib.int64))
        m.register_buffer("scale", lib.ones(1))
        with lib.no_grad():
            m.weight.copy_(lib.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
            m.bias.copy_(lib.tensor([0.05, -0.05]))
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        x = lib.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
        m(x).pow(2).sum().backward()
        w = m.weight
        assert m.double() is m and m.weight is w and opt.param_groups[0]["params"][0] is w
        out = [str(w.dtype), str(w.grad.dtype), str(m.count.dtype), str(m.scale.dtype)]
        for _ in range(3):
            opt.step()
            opt.zero_grad()
            m(x.double()).pow(2).sum().backward()
        out.append(np.round(m.weight.detach().numpy(), 10).tolist())
        m.float()
        out += [str(m.weight.dtype), str(m.weight.grad.dtype), str(m.count.dtype)]
        m.to(lib.float64)
        out.append(str(m.scale.dtype))
        try:
            m.to(lib.int32)
        except TypeError as e:
            out.append(str(e))
        return [str(o).replace("torch.", "minigrad.") for o in out]
    assert run(minigrad) == run(torch)


def test_deepcopy_and_pickle_keep_ties_flags_and_registries():
    import pickle
    torch = _torch()

    def run(lib):
        m = _Tied(lib)
        m.fc(lib.ones(2)).sum().backward()
        m.tied.bias.requires_grad_(False)
        m.eval()
        out = []
        for c in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
            out.append((c.fc is c.shared, c.tied.weight is c.fc.weight, c.fc.weight is not m.fc.weight,
                        c.fc.weight.tolist() == m.fc.weight.tolist(), type(c.fc.weight).__name__,
                        c.fc.weight.requires_grad, c.tied.bias.requires_grad, c.fc.weight.grad is None,
                        sorted(c._non_persistent_buffers_set), c.training, c.fc.training,
                        list(c.state_dict()), [n for n, _ in c.named_parameters()]))
            c.fc.weight.data.fill_(5.0)
            assert m.fc.weight.abs().max().item() < 5.0
        return out
    assert run(minigrad) == run(torch)


class _Tied:
    """A module (of minigrad's or torch's nn) with a shared submodule, a tied weight and buffers;
    built by a module-level factory so that pickle finds the classes."""

    def __new__(cls, lib):
        return (_TiedMini if lib is minigrad else _tied_torch_class())()


class _TiedMini(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.register_buffer("rm", minigrad.zeros(2))
        self.register_buffer("scratch", minigrad.zeros(2), persistent=False)
        self.register_parameter("none", None)
        self.shared = self.fc
        self.tied = nn.Linear(2, 2)
        self.tied.weight = self.fc.weight


def _tied_torch_class():
    torch = _torch()
    global _TiedTorch
    if "_TiedTorch" not in globals():
        class _TiedTorch(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(2, 2)
                self.register_buffer("rm", torch.zeros(2))
                self.register_buffer("scratch", torch.zeros(2), persistent=False)
                self.register_parameter("none", None)
                self.shared = self.fc
                self.tied = torch.nn.Linear(2, 2)
                self.tied.weight = self.fc.weight
        globals()["_TiedTorch"] = _TiedTorch
    return globals()["_TiedTorch"]


# ---- DataParallel --------------------------------------------------------------------------------
def test_data_parallel_wraps_a_module_that_is_still_elsewhere(monkeypatch):
    """Seed 000 wraps the model first and moves it after: `nn.DataParallel(model)` then
    `model.to(device)`. As torch's, the devices are checked in forward, not when wrapping."""
    from minigrad.nn import parallel

    class Elsewhere:
        type, index = "cuda", 0

        def __str__(self):
            return "cuda:0"

    fake = Elsewhere()
    real = parallel._as_device
    monkeypatch.setattr(parallel, "_as_device", lambda d: fake if d in ("fake", 0) or d is fake else real(d))
    m, _ = _dp_pair()
    dp = nn.DataParallel(m, device_ids=["fake", "cpu"])  # the parameters are on the CPU
    assert dp.device_ids[0] == 0 and dp.output_device == 0 and dp.src_device_obj is fake
    with pytest.raises(RuntimeError, match=r"module must have its parameters and buffers on device cuda:0 "
                                           r"\(device_ids\[0\]\) but found one of them on device: cpu"):
        dp(minigrad.randn(4, 8))


def test_data_parallel_default_devices_then_to_device(device):
    m, twin = _dp_pair()
    dp = nn.DataParallel(m)  # seed 000: wrapped while the model is on the CPU
    if minigrad.cuda.is_available():
        n = minigrad.cuda.device_count()
        assert dp.device_ids == list(range(n)) and dp.output_device == 0
        if n == 1:  # one device: torch moves the module there at once
            assert all(p.device == minigrad.device("cuda:0") for p in m.parameters())
    else:
        assert dp.device_ids == []
    dp.to(device)
    x = minigrad.randn(6, 8).to(device)
    if device == "cpu" and minigrad.cuda.device_count() > 1:
        # as in torch: with several GPUs the module must be on device_ids[0] to run
        with pytest.raises(RuntimeError, match=r"module must have its parameters and buffers on device "
                                               r"cuda:0 \(device_ids\[0\]\) but found one of them on device: cpu"):
            dp(x)
        return
    out = dp(x)
    np.testing.assert_allclose(out.detach().cpu().numpy(), twin(x.cpu()).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_data_parallel_buffers_updated_in_forward_change_once():
    class Counts(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("seen", minigrad.zeros(1))
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            self.seen += x.shape[0]  # replica 0 updates the module's buffer; the others their copies
            return self.lin(x)

    m = Counts()
    dp = nn.DataParallel(m, device_ids=["cpu", "cpu", "cpu"])
    dp(minigrad.randn(7, 2))  # chunks of 3, 3 and 1 rows
    assert m.seen.tolist() == [3.0]
    assert dp.device_ids == [minigrad.device("cpu")] * 3


def test_data_parallel_trains_like_unwrapped_model_with_optim_sgd():
    """Seed 000's loop (CrossEntropyLoss, optim.SGD with momentum) through DataParallel with a
    batch that three replicas cannot split evenly, against the unwrapped model in torch."""
    torch = _torch()
    minigrad.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 6), nn.ReLU(), nn.Dropout(0.5), nn.Linear(6, 3))
    t = torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.ReLU(), torch.nn.Dropout(0.5), torch.nn.Linear(6, 3))
    _copy_into_torch(m, t)
    dp = nn.DataParallel(m, device_ids=["cpu", "cpu", "cpu"])
    dp.to("cpu")
    dp.eval()  # dropout off in the replicas: eval reaches the wrapped module
    t.eval()
    assert not m.training and not m[2].training
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((11, 8)).astype(np.float32), rng.integers(0, 3, 11)
    opt = minigrad.optim.SGD(dp.parameters(), lr=0.1, momentum=0.9)
    topt = torch.optim.SGD(t.parameters(), lr=0.1, momentum=0.9)
    crit, tcrit = nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()
    for _ in range(5):
        opt.zero_grad()
        loss = crit(dp(minigrad.tensor(x)), minigrad.tensor(y))
        loss.backward()
        opt.step()
        topt.zero_grad()
        tloss = tcrit(t(torch.tensor(x)), torch.tensor(y))
        tloss.backward()
        topt.step()
        assert loss.item() == pytest.approx(tloss.item(), rel=1e-5, abs=1e-6)
    for p, q in zip(m.parameters(), t.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert dp.module is m and list(dp.state_dict()) == ["module." + k for k in t.state_dict()]
    plain = nn.Sequential(nn.Linear(8, 6), nn.ReLU(), nn.Dropout(0.5), nn.Linear(6, 3))
    plain.load_state_dict({k[len("module."):]: v for k, v in dp.state_dict().items()})
    dp.train()
    assert m.training and m[2].training


def test_linear_device_and_dtype_arguments_match_torch():
    torch = _torch()
    res = []
    for lib in (minigrad, torch):
        lin = lib.nn.Linear(3, 4, device="cpu", dtype=lib.float64)
        nob = lib.nn.Linear(3, 4, False, dtype=lib.float64)
        out = [str(lin.weight.dtype), str(lin.bias.dtype), str(lin.weight.device), nob.bias,
               str(lin(lib.ones(2, 3, dtype=lib.float64)).dtype), tuple(lin(lib.ones(5, 2, 3, dtype=lib.float64)).shape)]
        for bad in (lambda: lib.nn.Linear(3, 4, dtype=lib.int64), lambda: lib.nn.Linear(-1, 4)):
            out.append(_outcome(bad))
        res.append([str(o).replace("torch.", "minigrad.") for o in out])
    assert res[0] == res[1]


def test_data_parallel_gathers_namedtuples_and_runs_without_inputs():
    from collections import namedtuple
    Pair = namedtuple("Pair", "value extra")

    class Net2(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 2)

        def forward(self, x=None):
            if x is None:
                return self.lin.weight.sum(0)
            y = self.lin(x)
            return Pair(y, None), [y * 2]

    m = Net2()
    dp = nn.DataParallel(m, device_ids=["cpu", "cpu", "cpu"])
    x = minigrad.randn(5, 3)  # chunks of 2, 2 and 1 rows
    (pair, (doubled,)) = dp(x)
    assert type(pair) is Pair and pair.extra is None
    np.testing.assert_allclose(pair.value.detach().numpy(), m(x)[0].value.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(doubled.detach().numpy(), 2 * pair.value.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(dp().detach().numpy(), m().detach().numpy())  # no inputs: one replica
    with pytest.raises(ValueError, match="DataParallel: device_ids is empty"):
        nn.DataParallel(m, device_ids=[])


def test_state_dict_metadata_holds_each_modules_version():
    net = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))
    sd = net.state_dict()
    assert sd._metadata == OrderedDict([("", {"version": 1}), ("0", {"version": 1}), ("1", {"version": 1}),
                                        ("1.0", {"version": 1}), ("1.1", {"version": 1})])
    assert nn.Linear(1, 1).state_dict(prefix="m.")._metadata == OrderedDict([("m", {"version": 1})])
    other = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))
    assert str(other.load_state_dict(sd)) == "<All keys matched successfully>"
    plain = OrderedDict(sd)  # without _metadata
    assert not hasattr(plain, "_metadata")
    assert str(other.load_state_dict(plain)) == "<All keys matched successfully>"
    assert not hasattr(net.state_dict(destination={}), "_metadata")


def test_nested_repr_leaves_blank_lines_unindented():
    class Leaf(nn.Module):
        def extra_repr(self):
            return "a\n"
    assert repr(nn.Sequential(Leaf())) == "Sequential(\n  (0): Leaf(\n    a\n\n  )\n)"


def test_trunc_normal_of_a_0d_tensor():
    for kw in ({}, {"a": 3.0, "b": 4.0}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = nn.init.trunc_normal_(minigrad.empty(()), **kw)
        assert t.shape == () and kw.get("a", -2.0) <= t.item() <= kw.get("b", 2.0)
    assert nn.init.normal_(minigrad.empty(())).shape == ()
