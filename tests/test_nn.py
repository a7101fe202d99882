"""nn.Module, the layers, containers, nn.init and DataParallel (against torch where it exists)."""
from collections import OrderedDict
import copy
import math
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
    from minigrad.autograd.function import MODULE_SCOPE
    assert MODULE_SCOPE.current is None


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
