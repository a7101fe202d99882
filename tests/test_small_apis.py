"""Small torch APIs against PyTorch: F.linear_cross_entropy / nn.LinearCrossEntropyLoss /
nn.LinearCrossEntropyOptions, nn.grad's convolution gradients, nn.attention (SDPBackend,
sdpa_kernel), nn.SyncBatchNorm, DLPack exchange, and as_subclass, is_complex, get_device_module,
set_flush_denormal, new_empty_strided and dim_order. Values, gradients, warnings and error
types and messages are compared with torch's (torch's "torch." dtype prefix read as "minigrad.")."""
import warnings

import numpy as np
import pytest

import minigrad as mg
from conftest import DEVICES

torch = pytest.importorskip("torch")
TF = torch.nn.functional
MF = mg.nn.functional


def _np(t):
    return t.detach().cpu().numpy()


def _pair(a, device="cpu", grad=True):
    """The same array as a torch tensor and as a minigrad tensor on device (float ones require grad)."""
    f = a.dtype.kind == "f" and grad
    return torch.tensor(a, requires_grad=f), mg.tensor(a, device=device, requires_grad=f)


def _close(got, want, rtol=1e-10, atol=1e-10):
    if want is None:
        assert got is None
        return
    np.testing.assert_allclose(_np(got), want.detach().numpy(), rtol=rtol, atol=atol)


def _outcome(fn):
    """('ok', result, warnings) or (error type name, message, warnings), with torch's names as minigrad's."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", fn())
        except Exception as e:  # noqa: BLE001  (the error itself is what is compared)
            result = (type(e).__name__, str(e).replace("torch.", "minigrad."))
    return result + ([str(w.message).replace("torch.", "minigrad.") for w in caught],)


def _same_error(torch_fn, mg_fn):
    want, got = _outcome(torch_fn), _outcome(mg_fn)
    assert want[0] != "ok", want
    assert got[0] == want[0] and got[1] == want[1], (got, want)


# ---- F.linear_cross_entropy and nn.LinearCrossEntropyLoss ---------------------------------------------

# (name, batch (None: unbatched input), classes, out_features, target kind, keyword arguments)
LCE_CASES = [
    ("mean", 5, 4, (), "index", {}),
    ("sum", 5, 4, (), "index", {"reduction": "sum"}),
    ("none", 5, 4, (), "index", {"reduction": "none"}),
    ("ignored", 6, 4, (), "ignored", {}),
    ("ignore_index", 6, 4, (), "index", {"ignore_index": 2}),
    ("weight", 6, 4, (), "ignored", {"weight": True}),
    ("smoothing", 5, 4, (), "index", {"label_smoothing": 0.2, "weight": True}),
    ("bias", 5, 4, (), "index", {"bias": True}),
    ("unbatched", None, 4, (), "index", {"bias": True}),
    ("unbatched_prob", None, 4, (), "prob", {}),
    ("prob", 5, 4, (), "prob", {"label_smoothing": 0.1, "weight": True}),
    ("kdim", 3, 4, (2, 3), "index", {"bias": True, "reduction": "none"}),
    ("kdim_prob", 3, 4, (2,), "prob", {"weight": True}),
    ("byte", 5, 4, (), "byte", {"reduction": "sum"}),
]


def _lce_inputs(batch, classes, out_features, kind, kw, seed):
    rng = np.random.default_rng(seed)
    n_in = 3
    x = rng.standard_normal((n_in,) if batch is None else (batch, n_in))
    w = rng.standard_normal((classes,) + out_features + (n_in,))
    lead = () if batch is None else (batch,)
    if kind == "prob":
        t = rng.random(lead + (classes,) + out_features)
        t = t / t.sum(axis=len(lead), keepdims=True)
    else:
        t = rng.integers(0, classes, lead + out_features)
        if kind == "ignored":
            t.reshape(-1)[::3] = -100
        if kind == "byte":
            t = t.astype(np.uint8)
    extra = {}
    if kw.get("bias"):
        extra["linear_bias"] = rng.standard_normal((classes,) + out_features)
    if kw.get("weight"):
        extra["weight"] = rng.random(classes) + 0.5
    return x, w, t, extra


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", LCE_CASES, ids=[c[0] for c in LCE_CASES])
def test_linear_cross_entropy_values_and_gradients(case, device):
    name, batch, classes, out_features, kind, kw = case
    x, w, t, extra = _lce_inputs(batch, classes, out_features, kind, kw, seed=len(name))
    tx, mx = _pair(x, device)
    tw, mw = _pair(w, device)
    tt, mt = _pair(t, device, grad=False)
    targs, margs = {}, {}
    for key, a in extra.items():
        ta, ma = _pair(a, device, grad=key == "linear_bias")
        targs[key], margs[key] = ta, ma
    for key in ("reduction", "ignore_index", "label_smoothing"):
        if key in kw:
            targs[key] = margs[key] = kw[key]
    want = TF.linear_cross_entropy(tx, tw, tt, **targs)
    got = MF.linear_cross_entropy(mx, mw, mt, **margs)
    assert got.dtype == mg.float64 and tuple(got.shape) == tuple(want.shape)
    _close(got, want)
    cot = np.linspace(0.5, 1.5, max(want.numel(), 1)).reshape(tuple(want.shape))
    want.backward(torch.tensor(cot))
    got.backward(mg.tensor(cot, device=device))
    _close(mx.grad, tx.grad)
    _close(mw.grad, tw.grad)
    if "linear_bias" in targs:
        _close(margs["linear_bias"].grad, targs["linear_bias"].grad)


def test_linear_cross_entropy_second_derivative():
    """The reference path is made of differentiable ops: gradients of gradients match torch's."""
    x, w, t, _ = _lce_inputs(4, 3, (), "index", {}, seed=7)
    results = []
    for lib, mk in ((torch, torch.tensor), (mg, mg.tensor)):
        xs, ws = mk(x, requires_grad=True), mk(w, requires_grad=True)
        loss = lib.nn.functional.linear_cross_entropy(xs, ws, mk(t), label_smoothing=0.1)
        (gx,) = lib.autograd.grad(loss, xs, create_graph=True)
        (gw,) = lib.autograd.grad((gx * gx).sum(), ws)
        results.append(gw.detach().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-9, atol=1e-12)


def test_linear_cross_entropy_options_are_validated_and_keep_the_result():
    x, w, t, _ = _lce_inputs(6, 4, (), "index", {}, seed=3)
    tx, mx = _pair(x)
    tw, mw = _pair(w)
    tt, mt = _pair(t, grad=False)
    for kw in ({}, {"label_smoothing": 0.1}, {"reduction": "sum"}):
        want = _outcome(lambda: TF.linear_cross_entropy(
            tx, tw, tt, options=torch.nn.LinearCrossEntropyOptions(batch_chunk_size=2), **kw))
        got = _outcome(lambda: MF.linear_cross_entropy(
            mx, mw, mt, options=mg.nn.LinearCrossEntropyOptions(batch_chunk_size=2), **kw))
        assert got[0] == want[0] == "ok"
        np.testing.assert_allclose(_np(got[1]), want[1].detach().numpy(), rtol=1e-12)
        assert got[2] == want[2]  # the same fallback warning (or none)
    # the probabilities target and a K-dimensional weight fall back with the warning that says why
    p = np.full((6, 4), 0.25)
    for args in (lambda L, P: (P(x), P(w), P(p)),
                 lambda L, P: (P(x), P(np.ones((4, 2, 3))), P(np.zeros((6, 2), dtype=np.int64)))):
        want = _outcome(lambda: TF.linear_cross_entropy(
            *args(torch, torch.tensor), options=torch.nn.LinearCrossEntropyOptions()))
        got = _outcome(lambda: MF.linear_cross_entropy(
            *args(mg, mg.tensor), options=mg.nn.LinearCrossEntropyOptions()))
        assert got[0] == want[0] == "ok" and got[2] == want[2] and len(got[2]) == 1, (got, want)


LCE_ERRORS = [
    ("input_3d", lambda L: (L.ones(2, 2, 3), L.ones(4, 3), L.zeros(2, dtype=L.int64)), {}),
    ("weight_1d", lambda L: (L.ones(2, 3), L.ones(3), L.zeros(2, dtype=L.int64)), {}),
    ("in_features", lambda L: (L.ones(2, 3), L.ones(4, 5), L.zeros(2, dtype=L.int64)), {}),
    ("kdim_unbatched", lambda L: (L.ones(3), L.ones(4, 2, 3), L.zeros(2, dtype=L.int64)), {}),
    ("bias_shape", lambda L: (L.ones(2, 3), L.ones(4, 2, 3), L.zeros(2, 2, dtype=L.int64)),
     {"linear_bias": lambda L: L.ones(8)}),
    ("target_float", lambda L: (L.ones(2, 3), L.ones(4, 3), L.zeros(2)), {}),
    ("target_int32", lambda L: (L.ones(2, 3), L.ones(4, 3), L.zeros(2, dtype=L.int32)), {}),
    ("prob_ignore_index", lambda L: (L.ones(2, 3), L.ones(4, 3), L.zeros(2, 4)), {"ignore_index": -100}),
    ("prob_long", lambda L: (L.ones(2, 3), L.ones(4, 3), L.zeros(2, 4, dtype=L.int64)), {}),
    ("reduction", lambda L: (L.ones(2, 3), L.ones(4, 3), L.zeros(2, dtype=L.int64)), {"reduction": "avg"}),
    ("smoothing", lambda L: (L.ones(2, 3), L.ones(4, 3), L.zeros(2, dtype=L.int64)), {"label_smoothing": 1.5}),
    ("out_of_range", lambda L: (L.ones(2, 3), L.ones(4, 3), L.tensor([0, 4])), {}),
    ("batch", lambda L: (L.ones(2, 3), L.ones(4, 3), L.zeros(3, dtype=L.int64)), {}),
    ("kdim_target", lambda L: (L.ones(2, 3), L.ones(4, 2, 3), L.zeros(2, 5, dtype=L.int64)), {}),
    ("class_weight", lambda L: (L.ones(2, 3), L.ones(4, 3), L.zeros(2, dtype=L.int64)),
     {"weight": lambda L: L.ones(3)}),
    ("dtypes", lambda L: (L.ones(2, 3, dtype=L.float64), L.ones(4, 3), L.zeros(2, dtype=L.int64)), {}),
]


@pytest.mark.parametrize("make,kw", [c[1:] for c in LCE_ERRORS], ids=[c[0] for c in LCE_ERRORS])
def test_linear_cross_entropy_errors(make, kw):
    def run(L):
        args = {k: (v(L) if callable(v) else v) for k, v in kw.items()}
        return L.nn.functional.linear_cross_entropy(*make(L), **args)
    _same_error(lambda: run(torch), lambda: run(mg))


def test_linear_cross_entropy_keyword_only():
    x = np.ones((2, 3))
    _same_error(lambda: TF.linear_cross_entropy(torch.tensor(x), torch.tensor(x), torch.zeros(2), None),
                lambda: MF.linear_cross_entropy(mg.tensor(x), mg.tensor(x), mg.zeros(2), None))


OPTION_CASES = [{}, {"acc_policy": "bad"}, {"acc_policy": None}, {"chunking_method": "bad"},
                {"chunking_method": None}, {"chunking_method": "aspect_ratio"}, {"chunking_method": "aspect_ratio:3"},
                {"chunking_method": "aspect_ratio:0"}, {"chunking_method": "aspect_ratio:+2"},
                {"batch_chunk_size": 0}, {"batch_chunk_size": 2.0}, {"batch_chunk_size": 4},
                {"acc_dtype": "int64"}, {"acc_dtype": "bfloat16"},
                {"acc_policy": "compact", "allow_retain_graph": True},
                {"batch_chunk_size": 0, "chunking_method": "bad"}, {"batch_chunk_size": 0, "acc_dtype": "int64"}]


@pytest.mark.parametrize("kw", OPTION_CASES, ids=[str(c) for c in OPTION_CASES])
def test_linear_cross_entropy_options_checks_and_repr(kw):
    def make(L):
        args = dict(kw)
        if isinstance(args.get("acc_dtype"), str):
            args["acc_dtype"] = getattr(L, args["acc_dtype"])
        return repr(L.nn.LinearCrossEntropyOptions(**args)).replace("torch.", "minigrad.")
    assert _outcome(lambda: make(mg)) == _outcome(lambda: make(torch))


def test_linear_cross_entropy_options_frozen_and_equal():
    o = mg.nn.LinearCrossEntropyOptions(batch_chunk_size=3)
    assert o == mg.nn.LinearCrossEntropyOptions(batch_chunk_size=3) and hash(o) == hash(
        mg.nn.LinearCrossEntropyOptions(batch_chunk_size=3))
    with pytest.raises(AttributeError, match="cannot assign to field 'acc_policy'"):
        o.acc_policy = "compact"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("out_features,bias,kw", [((), False, {}), ((2, 3), True, {"reduction": "sum"}),
                                                  ((), True, {"ignore_index": 1, "label_smoothing": 0.1})])
def test_linear_cross_entropy_loss_module(out_features, bias, kw, device):
    tl = torch.nn.LinearCrossEntropyLoss(3, 4, out_features=out_features, bias=bias, dtype=torch.float64, **kw)
    ml = mg.nn.LinearCrossEntropyLoss(3, 4, out_features=out_features, bias=bias, dtype=mg.float64, **kw)
    assert repr(ml) == repr(tl).replace("torch.", "minigrad.")
    assert list(ml.state_dict()) == list(tl.state_dict())
    ml.load_state_dict({k: mg.tensor(v.numpy()) for k, v in tl.state_dict().items()})
    ml.to(device)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((5, 3))
    t = rng.integers(0, 4, (5,) + out_features)
    tx, mx = _pair(x, device)
    want = tl(tx, torch.tensor(t))
    got = ml(mx, mg.tensor(t, device=device))
    _close(got, want)
    want.backward()
    got.backward()
    _close(mx.grad, tx.grad)
    for (name, tp), (_, mp) in zip(tl.named_parameters(), ml.named_parameters()):
        _close(mp.grad, tp.grad)


def test_linear_cross_entropy_loss_module_class_weight_buffer():
    w = np.array([1.0, 2.0, 0.5], dtype=np.float32)
    tl = torch.nn.LinearCrossEntropyLoss(2, 3, weight=torch.tensor(w))
    ml = mg.nn.LinearCrossEntropyLoss(2, 3, weight=mg.tensor(w))
    assert list(ml.state_dict()) == list(tl.state_dict()) == ["weight", "linear.weight"]
    assert ml.ignore_index is None and ml.num_classes == 3 and ml.out_features == ()
    ml.load_state_dict({k: mg.tensor(v.numpy()) for k, v in tl.state_dict().items()})
    _close(ml(mg.ones(2), mg.tensor(1)), tl(torch.ones(2), torch.tensor(1)), rtol=1e-6)  # unbatched
    _same_error(lambda: torch.nn.LinearCrossEntropyLoss(2, 3, out_features=(2,))(torch.ones(2), torch.zeros(2).long()),
                lambda: mg.nn.LinearCrossEntropyLoss(2, 3, out_features=(2,))(mg.ones(2), mg.zeros(2).long()))


@pytest.mark.parametrize("device", DEVICES)
def test_cross_entropy_takes_byte_class_indices(device):
    """torch accepts uint8 class indices in cross_entropy and nll_loss; minigrad used to reject them."""
    x = np.random.default_rng(1).standard_normal((5, 4))
    t = np.array([0, 3, 1, 2, 3], dtype=np.uint8)
    for fn, kw in (("cross_entropy", {}), ("cross_entropy", {"label_smoothing": 0.1}), ("nll_loss", {})):
        tx, mx = _pair(x, device)
        want = getattr(TF, fn)(tx, torch.tensor(t), **kw)
        got = getattr(MF, fn)(mx, mg.tensor(t, device=device), **kw)
        _close(got, want)
        want.backward()
        got.backward()
        _close(mx.grad, tx.grad)


# ---- nn.grad -------------------------------------------------------------------------------------------

# (stride, padding, dilation, groups)
CONV_SETTINGS = [(1, 0, 1, 1), (2, 1, 1, 2), (1, 2, 2, 1), (3, 0, 2, 2), (1, 1, 1, 4)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("setting", CONV_SETTINGS, ids=[str(s) for s in CONV_SETTINGS])
def test_nn_grad_matches_torch(nd, setting, device):
    stride, padding, dilation, groups = setting
    rng = np.random.default_rng(nd * 10 + groups)
    size = {1: 9, 2: 7, 3: 5}[nd]
    x = rng.standard_normal((2, 4) + (size,) * nd)
    w = rng.standard_normal((8, 4 // groups) + (3,) * nd)
    out = getattr(TF, f"conv{nd}d")(torch.tensor(x), torch.tensor(w), None, stride, padding, dilation, groups)
    go = rng.standard_normal(tuple(out.shape))
    tgi = getattr(torch.nn.grad, f"conv{nd}d_input")(x.shape, torch.tensor(w), torch.tensor(go), stride, padding,
                                                    dilation, groups)
    mgi = getattr(mg.nn.grad, f"conv{nd}d_input")(x.shape, mg.tensor(w, device=device), mg.tensor(go, device=device),
                                                 stride, padding, dilation, groups)
    _close(mgi, tgi)
    tgw = getattr(torch.nn.grad, f"conv{nd}d_weight")(torch.tensor(x), w.shape, torch.tensor(go), stride, padding,
                                                     dilation, groups)
    mgw = getattr(MF.grad, f"conv{nd}d_weight")(mg.tensor(x, device=device), w.shape, mg.tensor(go, device=device),
                                               stride=stride, padding=padding, dilation=dilation, groups=groups)
    _close(mgw, tgw)
    assert not mgi.requires_grad and not mgw.requires_grad


def test_nn_grad_input_size_may_exceed_the_output_reach():
    """A stride that leaves input rows unread: input_size says which shape, those rows get 0."""
    rng = np.random.default_rng(2)
    w, go = rng.standard_normal((2, 3, 3, 3)), rng.standard_normal((1, 2, 3, 3))
    for size in ((1, 3, 7, 7), (1, 3, 8, 8)):
        _close(mg.nn.grad.conv2d_input(size, mg.tensor(w), mg.tensor(go), stride=2),
               torch.nn.grad.conv2d_input(size, torch.tensor(w), torch.tensor(go), stride=2))


def test_nn_grad_is_differentiable():
    rng = np.random.default_rng(4)
    x, w, go = rng.standard_normal((2, 4, 6, 6)), rng.standard_normal((6, 2, 3, 3)), rng.standard_normal((2, 6, 4, 4))
    grads = []
    for lib in (torch, mg):
        tw, tgo, tx = (lib.tensor(a, requires_grad=True) for a in (w, go, x))
        gi = lib.nn.grad.conv2d_input(x.shape, tw, tgo, groups=2)
        gw = lib.nn.grad.conv2d_weight(tx, w.shape, tgo, groups=2)
        ((gi ** 2).sum() + (gw ** 3).sum()).backward()
        grads.append([t.grad.numpy() for t in (tw, tgo, tx)])
    for got, want in zip(grads[1], grads[0]):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
    with mg.no_grad():
        assert not mg.nn.grad.conv2d_input(x.shape, mg.tensor(w, requires_grad=True), mg.tensor(go),
                                           groups=2).requires_grad


def test_nn_grad_errors():
    w, go = np.ones((6, 2, 3, 3)), np.ones((6, 5, 5))
    _same_error(lambda: torch.nn.grad.conv2d_input((4, 7, 7), torch.tensor(w), torch.tensor(go), groups=2),
                lambda: mg.nn.grad.conv2d_input((4, 7, 7), mg.tensor(w), mg.tensor(go), groups=2))
    _same_error(lambda: torch.nn.grad.conv2d_weight(torch.ones(4, 7, 7), w.shape, torch.tensor(go), groups=2),
                lambda: mg.nn.grad.conv2d_weight(mg.ones(4, 7, 7), w.shape, mg.tensor(go), groups=2))
    _same_error(lambda: torch.nn.grad.conv2d_input((1, 4, 7, 7), torch.tensor(w), torch.ones(1, 6, 5, 5), groups=4),
                lambda: mg.nn.grad.conv2d_input((1, 4, 7, 7), mg.tensor(w), mg.ones(1, 6, 5, 5), groups=4))
    _same_error(lambda: torch.nn.grad.conv2d_input((1, 4, 7, 7), torch.tensor(w), torch.ones(1, 6, 5, 5), stride=0),
                lambda: mg.nn.grad.conv2d_input((1, 4, 7, 7), mg.tensor(w), mg.ones(1, 6, 5, 5), stride=0))
    for bad in ((1, 6, 4, 4), (2, 6, 5, 5), (1, 5, 5, 5)):  # a grad_output of another shape than the conv's output
        with pytest.raises(RuntimeError):
            torch.nn.grad.conv2d_input((1, 4, 7, 7), torch.tensor(w), torch.ones(bad), groups=2)
        with pytest.raises(RuntimeError, match="grad_output of shape"):
            mg.nn.grad.conv2d_input((1, 4, 7, 7), mg.tensor(w), mg.ones(bad), groups=2)


# ---- nn.attention --------------------------------------------------------------------------------------

def _sdp_flags(L):
    c = L.backends.cuda
    return (c.flash_sdp_enabled(), c.mem_efficient_sdp_enabled(), c.math_sdp_enabled(), c.cudnn_sdp_enabled())


def test_sdp_backend_enum():
    TB, MB = torch.nn.attention.SDPBackend, mg.nn.attention.SDPBackend
    assert [(k, int(v)) for k, v in MB.__members__.items()] == [(k, int(v)) for k, v in TB.__members__.items()]
    for name in TB.__members__:
        assert repr(getattr(MB, name)) == repr(getattr(TB, name)) and str(getattr(MB, name)) == str(getattr(TB, name))
        assert getattr(MB, name).name == name and (getattr(MB, name) == int(getattr(MB, name))) is False
    assert mg.nn.attention.WARN_FOR_UNFUSED_KERNELS is torch.nn.attention.WARN_FOR_UNFUSED_KERNELS


SDPA_CHOICES = [("MATH",), ("FLASH_ATTENTION",), ("EFFICIENT_ATTENTION",), ("CUDNN_ATTENTION",), ("ERROR",),
                ("OVERRIDEABLE",), [], ["MATH", "FLASH_ATTENTION"], ["CUDNN_ATTENTION", "EFFICIENT_ATTENTION"],
                ["MATH", 1], "math", 0, None, ("MATH", "FLASH_ATTENTION")]


def _backends(L, choice):
    B = L.nn.attention.SDPBackend
    if isinstance(choice, tuple):
        return getattr(B, choice[0]) if len(choice) == 1 else tuple(getattr(B, c) for c in choice)
    if isinstance(choice, list):
        return [getattr(B, c) if isinstance(c, str) else c for c in choice]
    return choice


@pytest.mark.parametrize("choice", SDPA_CHOICES, ids=[repr(c) for c in SDPA_CHOICES])
def test_sdpa_kernel_flags_checks_and_effect(choice):
    q = np.random.default_rng(0).standard_normal((1, 2, 4, 8))

    def run(L):
        with L.nn.attention.sdpa_kernel(_backends(L, choice)) as entered:
            flags = _sdp_flags(L)
            out = L.nn.functional.scaled_dot_product_attention(L.tensor(q), L.tensor(q), L.tensor(q) * 2)
        return entered, flags, out.numpy(), _sdp_flags(L)

    want, got = _outcome(lambda: run(torch)), _outcome(lambda: run(mg))
    assert got[0] == want[0] and got[2] == want[2]
    if want[0] == "ok":  # the same switches inside, all back on after, the same attention
        assert got[1][:2] == want[1][:2] and got[1][3] == want[1][3] == (True,) * 4
        np.testing.assert_allclose(got[1][2], want[1][2], rtol=1e-12)
    else:  # a bad argument, or no backend the CPU has ("No viable backend")
        assert got[1] == want[1]
    assert _sdp_flags(mg) == (True,) * 4


def test_sdpa_kernel_set_priority_and_decorator():
    B = mg.nn.attention.SDPBackend

    @mg.nn.attention.sdpa_kernel([B.MATH], set_priority=True)
    def inside():
        return _sdp_flags(mg)
    assert inside() == (False, False, True, False)
    assert _sdp_flags(mg) == (True,) * 4


def test_enable_sdp_switches():
    for name in ("enable_math_sdp", "enable_flash_sdp"):
        _same_error(lambda: getattr(torch.backends.cuda, "enable_math_sdp")(1),
                    lambda: getattr(mg.backends.cuda, "enable_math_sdp")(1))
        try:
            getattr(mg.backends.cuda, name)(False)
            assert _sdp_flags(mg).count(False) == 1
        finally:
            getattr(mg.backends.cuda, name)(True)
    with pytest.raises(RuntimeError, match="expects a bool"):
        mg.backends.cuda.enable_cudnn_sdp(None)


@pytest.mark.parametrize("device", DEVICES)
def test_sdpa_without_a_viable_backend(device):
    q = mg.ones(1, 2, 3, 4, device=device)
    with mg.nn.attention.sdpa_kernel([]):
        with pytest.raises(RuntimeError, match="No viable backend for scaled_dot_product_attention"):
            MF.scaled_dot_product_attention(q, q, q)
    with mg.nn.attention.sdpa_kernel(mg.nn.attention.SDPBackend.FLASH_ATTENTION):
        assert tuple(MF.scaled_dot_product_attention(q, q, q).shape) == (1, 2, 3, 4)


# ---- nn.SyncBatchNorm ----------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape,kw", [((4, 3), {}), ((4, 3, 5), {"momentum": None}), ((2, 3, 2, 2), {"affine": False}),
                                      ((2, 3, 2, 1, 2), {"track_running_stats": False}), ((4, 3), {"bias": False})])
def test_sync_batchnorm_train_and_eval(shape, kw, device):
    tb = torch.nn.SyncBatchNorm(3, dtype=torch.float64, **kw)
    mb = mg.nn.SyncBatchNorm(3, dtype=mg.float64, **kw).to(device)
    assert repr(mb) == repr(tb)
    rng = np.random.default_rng(len(shape))
    if tb.weight is not None:
        w = rng.random(3) + 0.5
        with torch.no_grad():
            tb.weight.copy_(torch.tensor(w))
        with mg.no_grad():
            mb.weight.copy_(mg.tensor(w, device=device))
    for step, training in enumerate((True, True, False)):
        tb.train(training)
        mb.train(training)
        x = rng.standard_normal(shape) * (step + 1)
        tx, mx = _pair(x, device)
        want, got = tb(tx), mb(mx)
        _close(got, want)
        want.backward(torch.tensor(x))
        got.backward(mg.tensor(x, device=device))
        _close(mx.grad, tx.grad)
        for name, tbuf in tb.named_buffers():
            _close(dict(mb.named_buffers())[name], tbuf)
        for name, tp in tb.named_parameters():
            _close(dict(mb.named_parameters())[name].grad, tp.grad)


@pytest.mark.parametrize("training", [True, False])
def test_sync_batchnorm_errors(training):
    for n, shape in ((3, (3,)), (0, (2, 0, 3)), (3, (1, 3)), (3, (4, 2, 5))):
        tb, mb = torch.nn.SyncBatchNorm(n).train(training), mg.nn.SyncBatchNorm(n).train(training)
        if shape == (1, 3) and not training:
            continue  # evaluation normalizes a single sample
        _same_error(lambda: tb(torch.zeros(shape)), lambda: mb(mg.zeros(shape)))


def test_convert_sync_batchnorm():
    def build(L):
        nn = L.nn
        net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3, momentum=None),
                            nn.Sequential(nn.BatchNorm2d(3, affine=False)),
                            nn.BatchNorm3d(3, track_running_stats=False),
                            nn.InstanceNorm1d(3), nn.BatchNorm1d(3, bias=False))
        with L.no_grad():
            net[1].running_mean.add_(1)
        net.eval()
        return net
    tnet, mnet = build(torch), build(mg)
    weight, mean = mnet[1].weight, mnet[1].running_mean
    tout = torch.nn.SyncBatchNorm.convert_sync_batchnorm(tnet, process_group="pg")
    mout = mg.nn.SyncBatchNorm.convert_sync_batchnorm(mnet, process_group="pg")
    assert mout is mnet and tout is tnet
    assert repr(mout) == repr(tout)
    assert [type(m).__name__ for m in mout.modules()] == [type(m).__name__ for m in tout.modules()]
    assert mout[1].weight is weight and mout[1].running_mean is mean and not mout[1].training
    assert mout[1].process_group == "pg" and mout[1].momentum is None
    assert int(mout[1].num_batches_tracked) == int(tout[1].num_batches_tracked)
    lone = mg.nn.BatchNorm2d(4)
    converted = mg.nn.SyncBatchNorm.convert_sync_batchnorm(lone)
    assert type(converted) is mg.nn.SyncBatchNorm and converted is not lone and converted.bias is lone.bias
    assert mg.nn.SyncBatchNorm.convert_sync_batchnorm(mg.nn.Linear(2, 2)).__class__ is mg.nn.Linear


# ---- DLPack --------------------------------------------------------------------------------------------

def test_dlpack_numpy_shares_memory_both_ways():
    t = mg.arange(6.0).reshape(2, 3)
    a = np.from_dlpack(t)
    a[0, 1] = 40.0
    assert t[0, 1].item() == 40.0
    t[1, 2] = -5.0
    assert a[1, 2] == -5.0
    tt = t.t()
    assert np.from_dlpack(tt).strides == (4, 12) and np.array_equal(np.from_dlpack(tt), _np(tt))
    n = np.arange(12.0).reshape(3, 4)[:, ::2]
    m = mg.from_dlpack(n)
    assert m.stride() == (4, 2) and m.dtype == mg.float64
    m[2, 1] = 99.0
    assert n[2, 1] == 99.0
    for dtype in (np.int64, np.int32, np.uint8, np.bool_, np.float16):
        v = np.arange(4).astype(dtype)
        assert mg.from_dlpack(v).tolist() == v.tolist() and np.from_dlpack(mg.tensor(v)).dtype == v.dtype
    assert mg.from_dlpack(np.array(2.5)).shape == () and np.from_dlpack(mg.tensor(3.0)).shape == ()


def test_dlpack_with_torch_both_ways():
    t = torch.arange(5.0)
    m = mg.from_dlpack(t)
    m[0] = 7.0
    assert t[0].item() == 7.0
    m2 = mg.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(t))  # a legacy capsule
    m2[1] = 8.0
    assert t[1].item() == 8.0
    src = mg.arange(6.0).reshape(2, 3).t()
    back = torch.from_dlpack(src)
    assert back.stride() == src.stride() and back.tolist() == src.tolist()
    back[0, 0] = -1.0
    assert src[0, 0].item() == -1.0
    cap = mg.utils.dlpack.to_dlpack(src)
    assert "dltensor" in repr(cap)
    t3 = torch.from_dlpack(cap)
    t3[1, 1] = 50.0
    assert src[1, 1].item() == 50.0
    versioned = src.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(versioned)
    assert mg.from_dlpack(versioned).tolist() == src.tolist()


def test_dlpack_errors():
    t = mg.ones(2, requires_grad=True)
    _same_error(lambda: torch.ones(2, requires_grad=True).__dlpack__(), lambda: t.__dlpack__())
    _same_error(lambda: np.from_dlpack(torch.ones(2, requires_grad=True)), lambda: np.from_dlpack(t))
    assert "dltensor" in repr(mg.utils.dlpack.to_dlpack(t))  # to_dlpack exports it (as torch's)
    _same_error(lambda: torch.utils.dlpack.to_dlpack(np.ones(2)), lambda: mg.utils.dlpack.to_dlpack(np.ones(2)))
    _same_error(lambda: torch.from_dlpack([1, 2]), lambda: mg.from_dlpack([1, 2]))
    _same_error(lambda: torch.ones(2).__dlpack__(stream=5), lambda: mg.ones(2).__dlpack__(stream=5))
    cap = mg.utils.dlpack.to_dlpack(mg.ones(2))
    mg.from_dlpack(cap)
    tcap = torch.utils.dlpack.to_dlpack(torch.ones(2))
    torch.from_dlpack(tcap)
    _same_error(lambda: torch.from_dlpack(tcap), lambda: mg.from_dlpack(cap))
    with pytest.raises(BufferError, match="bfloat16"):
        mg.ones(2, dtype=mg.bfloat16).__dlpack__()


def test_dlpack_device_copy_and_from_dlpack_alias():
    assert mg.utils.dlpack.from_dlpack is mg.from_dlpack
    assert mg.ones(1).__dlpack_device__() == torch.ones(1).__dlpack_device__() == (1, 0)
    assert type(mg.ones(1).__dlpack_device__()[0]).__name__ == "DLDeviceType"
    a = np.arange(3.0)
    c = mg.from_dlpack(a, copy=True)
    c[0] = 5.0
    assert a[0] == 0.0
    assert mg.from_dlpack(a, device="cpu").device == mg.device("cpu")


@pytest.mark.parametrize("device", [d for d in DEVICES if getattr(d, "id", d) == "cuda"])
def test_dlpack_device_of_cuda_tensors(device):
    """A CUDA tensor names its GPU; the exchange itself goes through CuPy's DLPack (needs a real GPU)."""
    t = mg.ones(2, device=device)
    kind, index = t.__dlpack_device__()
    assert (int(kind), index) == (2, t.device.index)
    moved = mg.from_dlpack(np.arange(3.0), device=device)
    assert moved.device.type == "cuda" and moved.tolist() == [0.0, 1.0, 2.0]


def test_new_empty_strided():
    for lib in (torch, mg):
        x = lib.ones(2, dtype=lib.float64, requires_grad=True)
        y = x.new_empty_strided((2, 3), (1, 2))
        assert y.stride() == (1, 2) and y.dtype == lib.float64 and not y.requires_grad
        z = x.new_empty_strided([2, 3], [3, 1], dtype=lib.int32, requires_grad=False)
        assert z.dtype == lib.int32 and z.stride() == (3, 1)
        assert x.new_empty_strided((2,), (1,), requires_grad=True).requires_grad
    _same_error(lambda: torch.ones(1).new_empty_strided((2, 3), (1,)),
                lambda: mg.ones(1).new_empty_strided((2, 3), (1,)))
    _same_error(lambda: torch.ones(1).new_empty_strided(2, 1), lambda: mg.ones(1).new_empty_strided(2, 1))
    _same_error(lambda: torch.ones(1).new_empty_strided((2, -3), (1, 2)),
                lambda: mg.ones(1).new_empty_strided((2, -3), (1, 2)))


# ---- as_subclass, is_complex, get_device_module, set_flush_denormal, dim_order --------------------------

def test_as_subclass():
    results = []
    for lib in (torch, mg):
        class Sub(lib.Tensor):
            pass
        x = lib.ones(2, 3, requires_grad=True)
        y = (x * 2).as_subclass(Sub)
        assert type(y) is Sub and y.requires_grad and y.grad_fn is not None
        (y * y).sum().backward()
        leaf = lib.ones(2).as_subclass(Sub)
        leaf[0] = 5.0
        results.append((x.grad.tolist(), leaf.tolist(), type(x.as_subclass(lib.Tensor)) is lib.Tensor))
    assert results[0] == results[1]
    s = mg.ones(3)
    view = s.as_subclass(type("Sub2", (mg.Tensor,), {}))
    view[1] = 4.0
    assert s[1].item() == 4.0

    for bad in (int, list):
        _same_error(lambda: torch.ones(1).as_subclass(bad), lambda: mg.ones(1).as_subclass(bad))
    subs = [type("Sub", (lib.Tensor,), {}) for lib in (torch, mg)]  # an instance instead of the class
    _same_error(lambda: torch.ones(1).as_subclass(subs[0]()), lambda: mg.ones(1).as_subclass(subs[1]()))


def test_is_complex():
    for dtype in ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"):
        t = mg.ones(2, dtype=getattr(mg, dtype))
        assert mg.is_complex(t) is False and t.is_complex() is False
    _same_error(lambda: torch.is_complex(1.0), lambda: mg.is_complex(1.0))


def test_get_device_module():
    assert mg.get_device_module("cpu") is mg.cpu and mg.get_device_module(mg.device("cpu")) is mg.cpu
    assert mg.get_device_module("cuda") is mg.cuda and mg.get_device_module("cuda:1") is mg.cuda
    assert mg.get_device_module(mg.device("cuda")) is mg.cuda
    assert mg.get_device_module() is (mg.cuda if mg.cuda.is_available() else mg.cpu)
    _same_error(lambda: torch.get_device_module(0), lambda: mg.get_device_module(0))
    with pytest.raises(RuntimeError, match="device type at start of device string: foo"):
        mg.get_device_module("foo")


def test_set_flush_denormal():
    assert mg.set_flush_denormal(True) is False and mg.set_flush_denormal(False) is False
    tiny = np.array([1e-323])
    assert mg.tensor(tiny).item() == tiny[0]  # subnormals are kept (flushing is unsupported)
    _same_error(lambda: torch.set_flush_denormal(1), lambda: mg.set_flush_denormal(1))


def _dim_order_cases(L):
    E = L.empty
    return [E(2, 3, 5, 7), E(2, 3, 5, 7).transpose(1, 2), E(2, 3, 4, 5).permute(2, 0, 3, 1),
            E(2, 3, 5, 7).to(memory_format=L.channels_last), E(2, 3, 4, 5, 6).to(memory_format=L.channels_last_3d),
            E(3, 4).t(), E(4, 6)[:, ::2], L.tensor(1.0), E(3)]


def test_dim_order():
    for tt, mt in zip(_dim_order_cases(torch), _dim_order_cases(mg)):
        assert mt.dim_order() == tt.dim_order()
        assert mt.dim_order(ambiguity_check=True) == tt.dim_order(ambiguity_check=True)
        assert (mt.dim_order(ambiguity_check=[mg.contiguous_format, mg.channels_last])
                == tt.dim_order(ambiguity_check=[torch.contiguous_format, torch.channels_last]))
    # the documented cases: a size-1 dim makes the order ambiguous, a list of formats can settle it
    assert mg.empty(1, 2, 3, 4).dim_order() == (0, 1, 2, 3)
    for check in (True, [mg.channels_last], [mg.contiguous_format, mg.contiguous_format], []):
        tcheck = check if check is True else [getattr(torch, str(f).rsplit(".", 1)[-1]) for f in check]
        _same_error(lambda: torch.empty(1, 2, 3, 4).dim_order(ambiguity_check=tcheck),
                    lambda: mg.empty(1, 2, 3, 4).dim_order(ambiguity_check=check))
    assert mg.empty(1, 2, 3, 4).dim_order(ambiguity_check=[mg.contiguous_format, mg.channels_last]) == (0, 1, 2, 3)
    for bad in ("ILLEGAL", (mg.contiguous_format,), [1]):
        tbad = bad if not isinstance(bad, tuple) else (torch.contiguous_format,)
        _same_error(lambda: torch.empty(2, 3).dim_order(ambiguity_check=tbad),
                    lambda: mg.empty(2, 3).dim_order(ambiguity_check=bad))
    _same_error(lambda: torch.empty(2, 3).dim_order(True), lambda: mg.empty(2, 3).dim_order(True))


# ---- torch.version and the names torch 1.9 removed ------------------------------------------------------

def test_version_module():
    assert mg.version.__version__ == mg.__version__
    assert set(mg.version.__all__) == set(torch.version.__all__)
    assert mg.version.debug is False and mg.version.hip is None and mg.version.rocm is None and mg.version.xpu is None
    cuda = mg.version.cuda  # the CUDA runtime CuPy was built for, "major.minor", or None without CuPy
    assert cuda is None or (cuda.count(".") == 1 and all(part.isdigit() for part in cuda.split(".")))


REMOVED = [("solve", 2), ("eig", 1), ("symeig", 1), ("lstsq", 2)]


@pytest.mark.parametrize("name,nargs", REMOVED, ids=[r[0] for r in REMOVED])
def test_removed_linalg_functions_say_what_replaces_them(name, nargs):
    for lib in (torch, mg):
        a = lib.eye(2)
        for call in (lambda: getattr(lib, name)(*[a] * nargs), lambda: getattr(a, name)(*[a] * (nargs - 1))):
            with pytest.raises(RuntimeError, match="^This function was deprecated since version 1.9 and is now "
                                                   "removed.") as info:
                call()
            assert "linalg." in str(info.value)


def test_reinforce_and_volatile():
    for lib in (torch, mg):
        with pytest.raises(RuntimeError, match="^reinforce\\(\\) was removed.\nUse .*distributions instead"):
            lib.ones(2).reinforce(1.0)
    for lib in (torch, mg):
        t = lib.ones(2)
        got = _outcome(lambda: t.volatile)
        assert got == ("ok", False, ["volatile was removed (Variable.volatile is always False)"])
        got = _outcome(lambda: setattr(t, "volatile", True))
        assert got[0] == "ok" and got[2][0].startswith("volatile was removed and now has no effect. Use `with ")
        assert not t.requires_grad


# ---- utils.benchmark -----------------------------------------------------------------------------------

def _measurement_cases(lib):
    import importlib
    B = importlib.import_module(lib.__name__ + ".utils.benchmark")

    def spec(**kw):
        d = dict(stmt="x@x", setup="pass", global_setup="", label=None, sub_label=None, description=None, env=None,
                 num_threads=1)
        d.update(kw)
        return B.TaskSpec(**d)
    cases = [(spec(), [1e-3]), (spec(label="L", sub_label="S"), [1e-3]), (spec(description="D"), [2.5]),
             (spec(label="L", env="E", description="D"), [1e-3]), (spec(stmt="a\nb"), [1e-3]),
             (spec(setup="x=1"), [1e-3]), (spec(setup="x=1\ny=2"), [1e-3, 2e-3]), (spec(num_threads=2), [1e-3]),
             (spec(), [1e-3, 1.1e-3, 1.2e-3, 1.3e-3]), (spec(), [1.0, 3.0]), (spec(), [1.0, 2.0, 2.0, 2.0, 4.1]),
             (spec(), [0.999e-3]), (spec(), [0.9999e-6]), (spec(), [1.0, 1.1, 0.9]), (spec(), [0.8, 1.0, 1.2])]
    out = []
    for s, raw in cases:
        for n in (1, 100):
            m = B.Measurement(n, raw, s)
            out.append((repr(m).split("\n", 1)[1], m.mean, m.median, m.iqr, m.has_warnings, m.meets_confidence(),
                        m.times, m.title, m.stmt, m.setup, m.num_threads, m.description, m.label))
    return out


def test_benchmark_measurement_matches_torch():
    for got, want in zip(_measurement_cases(mg), _measurement_cases(torch)):
        assert got == want


def test_benchmark_timer():
    import minigrad.utils.benchmark as MB
    import torch.utils.benchmark as TB
    g = {"x": 1}
    for B, lib in ((TB, torch), (MB, mg)):
        t = B.Timer("z = x + 1", setup="w = 2", globals=g, label="add", sub_label="int", description="python")
        m = t.timeit(50)
        assert m.number_per_run == 50 and len(m.raw_times) == 1 and m.raw_times[0] > 0
        assert repr(m).split("\n")[1:4] == ["add: int", "python", "setup: w = 2"]
        assert "z" not in g  # the statement runs in a copy of globals
        blocked = B.Timer("x * 2", globals={"x": lib.ones(4)}).blocked_autorange(min_run_time=0.02)
        assert sum(blocked.raw_times) >= 0.02 and blocked.number_per_run >= 1
        adaptive = B.Timer("pass").adaptive_autorange(max_run_time=0.5)
        assert len(adaptive.times) >= 4 or sum(adaptive.raw_times) >= 0.5
    with pytest.raises(ValueError, match="Currently only a `str` stmt is supported."):
        MB.Timer(stmt=lambda: 1)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["causal_upper_left", "causal_lower_right"])
def test_attention_causal_bias(name, device):
    from torch.nn.attention import bias as TBias
    rng = np.random.default_rng(11)
    for q_len, kv_len in ((3, 5), (4, 4), (5, 3)):
        want_w = _outcome(lambda: getattr(TBias, name)(q_len, kv_len))
        got_w = _outcome(lambda: getattr(mg.nn.attention.bias, name)(q_len, kv_len))
        assert got_w[2] == want_w[2]  # lower-right with more queries than keys warns, as torch
        tb, mb = want_w[1], got_w[1]
        assert mb._materialize(device).tolist() == tb._materialize().tolist()
        assert (mb.variant, mb.seq_len_q, mb.seq_len_kv) == (int(tb.variant), q_len, kv_len)
        assert repr(mb) == repr(tb)
        q, k = rng.standard_normal((1, 2, q_len, 4)), rng.standard_normal((1, 2, kv_len, 4))
        tq, mq = _pair(q, device)
        tk, mk = _pair(k, device)
        want = TF.scaled_dot_product_attention(tq, tk, tk * 2, attn_mask=tb)
        got = MF.scaled_dot_product_attention(mq, mk, mk * 2, attn_mask=mb)
        _close(got, want)
        want.sum().backward()
        got.sum().backward()
        _close(mq.grad, tq.grad)
        _close(mk.grad, tk.grad)
    _same_error(lambda: TF.scaled_dot_product_attention(tq, tk, tk, attn_mask=tb, is_causal=True),
                lambda: MF.scaled_dot_product_attention(mq, mk, mk, attn_mask=mb, is_causal=True))
    _same_error(lambda: getattr(TBias, name)(1, 2, 3), lambda: getattr(mg.nn.attention.bias, name)(1, 2, 3))
