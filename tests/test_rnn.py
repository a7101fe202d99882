"""nn.RNN / nn.LSTM / nn.GRU and their cells against torch: the same parameters (copied through
state_dict) must give the same outputs, final states and gradients of input, initial state and
every parameter, on every device; plus reprs, parameter names, init and torch's errors."""
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.nn as mnn

torch = pytest.importorskip("torch")

TOL = {"float64": dict(rtol=1e-10, atol=1e-10), "float32": dict(rtol=1e-5, atol=1e-5)}


def _models(name, args, kwargs, device, dtype):
    """The torch model and a minigrad one holding the same parameters."""
    tm = getattr(torch.nn, name)(*args, **kwargs)
    mm = getattr(mnn, name)(*args, **kwargs)
    if dtype == "float64":
        tm, mm = tm.double(), mm.double()
    assert list(mm.state_dict()) == list(tm.state_dict())
    res = mm.load_state_dict({k: minigrad.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    assert not res.missing_keys and not res.unexpected_keys
    return tm, mm.to(device)


def _leaves(rng, shapes, dtype, device):
    arrs = [rng.standard_normal(s).astype(dtype) for s in shapes]
    return ([minigrad.tensor(a, device=device, requires_grad=True) for a in arrs],
            [torch.tensor(a, requires_grad=True) for a in arrs])


def _flat(out):
    """The tensors of a (output, h) / (output, (h, c)) / h / (h, c) result, in order."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _check(tm, mm, x_shape, hx_shapes, device, dtype, seed=0):
    rng = np.random.default_rng(seed)
    (xm, *hm), (xt, *ht) = _leaves(rng, [x_shape] + list(hx_shapes), dtype, device)
    lstm_like = isinstance(tm, (torch.nn.LSTM, torch.nn.LSTMCell))
    if not hm:
        om, ot = mm(xm), tm(xt)
    elif lstm_like:
        om, ot = mm(xm, (hm[0], hm[1])), tm(xt, (ht[0], ht[1]))
    else:
        om, ot = mm(xm, hm[0]), tm(xt, ht[0])
    fm, ft = _flat(om), _flat(ot)
    assert len(fm) == len(ft)
    tol = TOL[dtype]
    for a, b in zip(fm, ft):
        assert tuple(a.shape) == tuple(b.shape)
        assert a.dtype == getattr(minigrad, dtype) and a.device.type == device
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(), **tol)
    # one backward through every result (output and final states) with random cotangents
    gs = [rng.standard_normal(tuple(b.shape)).astype(dtype) for b in ft]
    lm = sum((a * minigrad.tensor(g, device=device)).sum() for a, g in zip(fm, gs))
    lt = sum((b * torch.tensor(g)).sum() for b, g in zip(ft, gs))
    lm.backward()
    lt.backward()
    for a, b in zip([xm] + hm, [xt] + ht):
        np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), **tol)
    pm, pt = dict(mm.named_parameters()), dict(tm.named_parameters())
    assert list(pm) == list(pt)
    for k in pt:
        np.testing.assert_allclose(pm[k].grad.cpu().numpy(), pt[k].grad.numpy(), err_msg=k, **tol)
    return om, ot


# ---- layers --------------------------------------------------------------------------------------

T, B, IN, H = 3, 2, 4, 5

LAYERS = [
    ("RNN", {}),
    ("RNN", dict(nonlinearity="relu")),
    ("RNN", dict(num_layers=2, bidirectional=True, nonlinearity="relu")),
    ("RNN", dict(num_layers=3, bias=False)),
    ("LSTM", {}),
    ("LSTM", dict(num_layers=2)),
    ("LSTM", dict(num_layers=2, bidirectional=True, batch_first=True)),
    ("LSTM", dict(num_layers=3, bidirectional=True, bias=False)),
    ("LSTM", dict(num_layers=2, proj_size=3, bidirectional=True)),
    ("GRU", {}),
    ("GRU", dict(num_layers=2, batch_first=True)),
    ("GRU", dict(num_layers=3, bidirectional=True)),
    ("GRU", dict(bias=False, bidirectional=True)),
]


def _state_shapes(name, kw, batch):
    """Shapes of hx for a model made with kw (batch None: unbatched)."""
    d = 2 if kw.get("bidirectional") else 1
    lead = (kw.get("num_layers", 1) * d,) + (() if batch is None else (batch,))
    h = lead + (kw.get("proj_size") or H,)
    return [h, lead + (H,)] if name == "LSTM" else [h]


@pytest.mark.parametrize("name,kw", LAYERS, ids=[f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}"
                                                 for n, kw in LAYERS])
@pytest.mark.parametrize("with_hx", [False, True], ids=["no_hx", "hx"])
def test_layer_batched_float64(device, name, kw, with_hx):
    tm, mm = _models(name, (IN, H), kw, device, "float64")
    x_shape = (B, T, IN) if kw.get("batch_first") else (T, B, IN)
    _check(tm, mm, x_shape, _state_shapes(name, kw, B) if with_hx else [], device, "float64")


@pytest.mark.parametrize("name,kw", [("RNN", dict(num_layers=2)), ("LSTM", dict(bidirectional=True)),
                                     ("GRU", dict(num_layers=2, batch_first=True, bidirectional=True)),
                                     ("LSTM", dict(proj_size=2, batch_first=True))])
@pytest.mark.parametrize("with_hx", [False, True], ids=["no_hx", "hx"])
def test_layer_unbatched(device, name, kw, with_hx):
    tm, mm = _models(name, (IN, H), kw, device, "float64")
    _check(tm, mm, (T, IN), _state_shapes(name, kw, None) if with_hx else [], device, "float64")


@pytest.mark.parametrize("name,kw", [("RNN", dict(nonlinearity="relu", num_layers=2)),
                                     ("LSTM", dict(num_layers=2, bidirectional=True)),
                                     ("GRU", dict(batch_first=True, bidirectional=True))])
def test_layer_float32(device, name, kw):
    tm, mm = _models(name, (IN, H), kw, device, "float32")
    x_shape = (B, T, IN) if kw.get("batch_first") else (T, B, IN)
    om, _ = _check(tm, mm, x_shape, _state_shapes(name, kw, B), device, "float32")
    assert om[0].dtype == minigrad.float32


def test_layer_longer_sequence_and_batch_one():
    for name in ("RNN", "LSTM", "GRU"):
        tm, mm = _models(name, (3, 4), dict(num_layers=2, bidirectional=True), "cpu", "float64")
        _check(tm, mm, (9, 1, 3), [], "cpu", "float64", seed=1)


def test_empty_batch():
    for name in ("RNN", "LSTM", "GRU"):
        tm, mm = _models(name, (3, 4), dict(num_layers=2), "cpu", "float64")
        om, ot = mm(minigrad.zeros(2, 0, 3, dtype=minigrad.float64)), tm(torch.zeros(2, 0, 3, dtype=torch.float64))
        assert [tuple(t.shape) for t in _flat(om)] == [tuple(t.shape) for t in _flat(ot)]


def test_dropout_between_layers(device):
    # p=1 zeroes the second layer's whole input, deterministically, in training mode only
    for name in ("RNN", "LSTM", "GRU"):
        tm, mm = _models(name, (IN, H), dict(num_layers=2, dropout=1.0, bidirectional=True), device, "float64")
        _check(tm, mm, (T, B, IN), [], device, "float64")
        mm.eval()
        tm.eval()
        _check(tm, mm, (T, B, IN), [], device, "float64")
    # p=0.5: training mode draws masks (the output differs from eval mode), eval mode is exact
    tm, mm = _models("LSTM", (IN, H), dict(num_layers=3, dropout=0.5), device, "float64")
    x = minigrad.randn(T, B, IN, dtype=minigrad.float64, device=device)
    out_train = mm(x)[0]
    out_eval = mm.eval()(x)[0]
    ref = tm.eval()(torch.tensor(x.cpu().numpy()))[0]
    np.testing.assert_allclose(out_eval.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-10)
    assert not np.allclose(out_train.detach().cpu().numpy(), out_eval.detach().cpu().numpy())


def test_outputs_compose_from_cells():
    """A one-layer LSTM's output is its cell applied step by step with the same weights."""
    lstm = mnn.LSTM(3, 4).double()
    cell = mnn.LSTMCell(3, 4).double()
    cell.load_state_dict({k[:-3]: v for k, v in lstm.state_dict().items()})
    x = minigrad.randn(5, 2, 3, dtype=minigrad.float64)
    out, (h, c) = lstm(x)
    hc = None
    for t in range(5):
        hc = cell(x[t], hc)
        np.testing.assert_allclose(out[t].detach().numpy(), hc[0].detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h[0].detach().numpy(), hc[0].detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c[0].detach().numpy(), hc[1].detach().numpy(), rtol=1e-12, atol=1e-12)


# ---- cells ---------------------------------------------------------------------------------------

CELLS = [("RNNCell", {}), ("RNNCell", dict(nonlinearity="relu")), ("RNNCell", dict(bias=False)),
         ("LSTMCell", {}), ("LSTMCell", dict(bias=False)), ("GRUCell", {}), ("GRUCell", dict(bias=False))]


@pytest.mark.parametrize("name,kw", CELLS, ids=[f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}"
                                               for n, kw in CELLS])
@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize("with_hx", [False, True], ids=["no_hx", "hx"])
def test_cell(device, name, kw, batched, with_hx):
    tm, mm = _models(name, (IN, H), kw, device, "float64")
    lead = (B,) if batched else ()
    hx = ([lead + (H,)] * (2 if name == "LSTMCell" else 1)) if with_hx else []
    _check(tm, mm, lead + (IN,), hx, device, "float64")


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cell_float32(device, name):
    tm, mm = _models(name, (IN, H), {}, device, "float32")
    _check(tm, mm, (B, IN), [(B, H)] * (2 if name == "LSTMCell" else 1), device, "float32")


# ---- parameters, init, repr ----------------------------------------------------------------------

@pytest.mark.parametrize("name,kw", LAYERS + CELLS)
def test_parameters_match_torch(name, kw):
    tm, mm = getattr(torch.nn, name)(IN, H, **kw), getattr(mnn, name)(IN, H, **kw)
    assert repr(mm) == repr(tm)
    tsd, msd = tm.state_dict(), mm.state_dict()
    assert list(msd) == list(tsd)
    assert [tuple(v.shape) for v in msd.values()] == [tuple(v.shape) for v in tsd.values()]
    assert all(v.dtype == minigrad.float32 for v in msd.values())
    bound = 1 / np.sqrt(H)
    for k, v in msd.items():  # torch's init: uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size))
        assert np.all(np.abs(v.numpy()) <= bound), k
    pooled = np.concatenate([v.numpy().ravel() for v in msd.values()])  # >= 55 values
    assert 0.6 < pooled.std() / (bound / np.sqrt(3)) < 1.4
    assert abs(pooled.mean()) < 5 * bound / np.sqrt(3 * pooled.size)
    for attr in ("input_size", "hidden_size", "bias"):
        assert getattr(mm, attr) == getattr(tm, attr)
    if hasattr(tm, "all_weights"):
        assert [[tuple(w.shape) for w in ws] for ws in mm.all_weights] == \
            [[tuple(w.shape) for w in ws] for ws in tm.all_weights]
        assert all(w is getattr(mm, n) for ws, ns in zip(mm.all_weights, mm._all_weights) for w, n in zip(ws, ns))
        for attr in ("num_layers", "batch_first", "dropout", "bidirectional", "proj_size", "mode"):
            assert getattr(mm, attr) == getattr(tm, attr)
        assert mm.flatten_parameters() is None


def test_reprs():
    cases = [("LSTM", (10, 20), dict(num_layers=2, batch_first=True)),
             ("RNN", (3, 4), dict(nonlinearity="relu", bias=False, dropout=0.5, num_layers=2, bidirectional=True)),
             ("RNN", (3, 4, 2, "relu"), {}), ("GRU", (3, 4, 1, False, True, 0.25), {}),
             ("LSTM", (6, 4), dict(proj_size=2)),
             ("RNNCell", (3, 4, False, "relu"), {}), ("LSTMCell", (3, 4), {}), ("GRUCell", (3, 4), dict(bias=False))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, args, kw in cases:
            assert repr(getattr(mnn, name)(*args, **kw)) == repr(getattr(torch.nn, name)(*args, **kw))
    assert repr(mnn.Sequential(mnn.LSTM(3, 4))) == repr(torch.nn.Sequential(torch.nn.LSTM(3, 4)))


def test_dtype_device_and_train_step(device):
    m = mnn.GRU(3, 4, num_layers=2, dtype=minigrad.float64, device=device)
    assert all(p.dtype == minigrad.float64 and p.device.type == device for p in m.parameters())
    params = list(m.parameters())
    m.to(device).float()
    assert all(a is b for a, b in zip(params, m.parameters()))  # .to() keeps the Parameter objects
    assert all(w.dtype == minigrad.float32 for ws in m.all_weights for w in ws)
    opt = minigrad.optim.SGD(m.parameters(), lr=0.1)
    x = minigrad.randn(4, 2, 3, device=device)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = (m(x)[0] ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]


def test_dropout_warning():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1, but got "
                                         "dropout=0.5 and num_layers=1"):
        mnn.LSTM(3, 4, dropout=0.5)


# ---- errors --------------------------------------------------------------------------------------

def outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, str(e).replace("torch.", "minigrad.")
    return None


def _t(lib, *shape, dtype=None):
    return lib.zeros(*shape, dtype=dtype) if dtype is not None else lib.zeros(*shape)


ERRORS = [
    lambda L: L.nn.LSTM(10, 20, 2)(_t(L, 5, 3, 5)),
    lambda L: L.nn.LSTM(10, 20, 2, batch_first=True)(_t(L, 3, 5, 5)),
    lambda L: L.nn.LSTM(10, 20, 2)(_t(L, 5, 3, 10, dtype=L.float64)),
    lambda L: L.nn.RNN(10, 20)(_t(L, 2, 3, 10, dtype=L.int64)),
    lambda L: L.nn.LSTM(10, 20, 2)(_t(L, 5, 3, 10), (_t(L, 2, 3, 20),)),
    lambda L: L.nn.LSTM(10, 20, 2)(_t(L, 5, 3, 10), _t(L, 2, 3, 20)),
    lambda L: L.nn.LSTM(10, 20, 2)(_t(L, 5, 3, 10), (_t(L, 2, 2, 20), _t(L, 2, 3, 20))),
    lambda L: L.nn.LSTM(10, 20, 2)(_t(L, 5, 3, 10), (_t(L, 2, 3, 20), _t(L, 1, 3, 20))),
    lambda L: L.nn.LSTM(10, 20, 2)(_t(L, 5, 3, 10), (_t(L, 2, 20), _t(L, 2, 3, 20))),
    lambda L: L.nn.LSTM(10, 20, 2)(_t(L, 5, 10), (_t(L, 2, 3, 20), _t(L, 2, 3, 20))),
    lambda L: L.nn.LSTM(10, 20, 2, proj_size=5)(_t(L, 5, 3, 10), (_t(L, 2, 3, 20), _t(L, 2, 3, 20))),
    lambda L: L.nn.LSTM(10, 20)(_t(L, 3, 5, 3, 10)),
    lambda L: L.nn.GRU(10, 20)(_t(L, 10)),
    lambda L: L.nn.RNN(10, 20)(_t(L, 10)),
    lambda L: L.nn.LSTM(10, 20)(_t(L, 0, 3, 10)),
    lambda L: L.nn.GRU(10, 20, batch_first=True)(_t(L, 3, 0, 10)),
    lambda L: L.nn.RNN(10, 20)(_t(L, 2, 3, 10), _t(L, 2, 3, 20)),
    lambda L: L.nn.RNN(10, 20, bidirectional=True)(_t(L, 2, 3, 10), _t(L, 1, 3, 20)),
    lambda L: L.nn.GRU(10, 20)(_t(L, 2, 3, 10), _t(L, 3, 20)),
    lambda L: L.nn.GRU(10, 20)(_t(L, 2, 10), _t(L, 1, 3, 20)),
    lambda L: L.nn.GRU(10, 20)(_t(L, 2, 10), _t(L, 1, 21)),
    lambda L: L.nn.RNN(10, 20, nonlinearity="x"),
    lambda L: L.nn.GRU(10, 20, proj_size=2),
    lambda L: L.nn.RNN(10, 20, proj_size=2),
    lambda L: L.nn.LSTM(10, 20, proj_size=20),
    lambda L: L.nn.LSTM(10, 20, proj_size=-1),
    lambda L: L.nn.LSTM(10, 20, dropout=2),
    lambda L: L.nn.LSTM(10, 20, dropout=True),
    lambda L: L.nn.LSTM(10, 20, bias=1),
    lambda L: L.nn.LSTM(10, 20, batch_first=None),
    lambda L: L.nn.LSTM(10, 0),
    lambda L: L.nn.LSTM(0, 10),
    lambda L: L.nn.GRU(10.0, 20),
    lambda L: L.nn.GRU(10, 20.0),
    lambda L: L.nn.GRU(10, 20, num_layers=0),
    lambda L: L.nn.LSTMCell(10, 20)(_t(L, 3, 5)),
    lambda L: L.nn.LSTMCell(10, 20)(_t(L, 3, 10), (_t(L, 2, 20), _t(L, 3, 20))),
    lambda L: L.nn.LSTMCell(10, 20)(_t(L, 3, 10), (_t(L, 3, 7), _t(L, 3, 20))),
    lambda L: L.nn.LSTMCell(10, 20)(_t(L, 3, 10), (_t(L, 3, 20), _t(L, 3, 7))),
    lambda L: L.nn.LSTMCell(10, 20)(_t(L, 3, 10), (_t(L, 3, 20), _t(L, 2, 20))),
    lambda L: L.nn.LSTMCell(10, 20)(_t(L, 10), (_t(L, 3, 20), _t(L, 3, 20))),
    lambda L: L.nn.LSTMCell(10, 20)(_t(L, 3, 10), (_t(L, 20), _t(L, 20))),
    lambda L: L.nn.LSTMCell(10, 20)(_t(L, 3, 10), (_t(L, 1, 3, 20), _t(L, 3, 20))),
    lambda L: L.nn.GRUCell(10, 20)(_t(L, 3, 5)),
    lambda L: L.nn.GRUCell(10, 20)(_t(L, 3, 10), _t(L, 2, 20)),
    lambda L: L.nn.GRUCell(10, 20)(_t(L, 3, 10), _t(L, 3, 7)),
    lambda L: L.nn.GRUCell(10, 20)(_t(L, 3, 10), _t(L, 20)),
    lambda L: L.nn.GRUCell(10, 20)(_t(L, 10), _t(L, 2, 20)),
    lambda L: L.nn.GRUCell(10, 20)(_t(L, 2, 3, 10)),
    lambda L: L.nn.RNNCell(10, 20)(_t(L, 3, 10), _t(L, 1, 3, 20)),
    lambda L: L.nn.RNNCell(10, 20, nonlinearity="foo")(_t(L, 3, 10)),
    lambda L: L.nn.RNNCell(10, 20, nonlinearity="foo")(_t(L, 3, 5)),
    lambda L: L.nn.RNNCell(10, 20, nonlinearity="foo")(_t(L, 3, 3, 5)),
    lambda L: L.nn.RNNCell(10, 20)(_t(L, 10), _t(L, 21)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = outcome(lambda: ERRORS[i](minigrad)), outcome(lambda: ERRORS[i](torch))
    assert want is not None and got == want
