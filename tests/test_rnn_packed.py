"""nn.utils.rnn (PackedSequence, pack/pad helpers) and RNN/LSTM/GRU on packed input, against
torch: values, batch sizes and permutations, dtypes, gradients and grad_fn names, torch's errors,
on every device."""
import numpy as np
import pytest

import minigrad
import minigrad.nn as mnn
from minigrad.nn.utils import rnn as mrnn
from minigrad.nn.utils.rnn import pack_padded_sequence as m_pack_padded_sequence

torch = pytest.importorskip("torch")
trnn = torch.nn.utils.rnn

TOL = {"float64": dict(rtol=1e-10, atol=1e-10), "float32": dict(rtol=1e-5, atol=1e-5)}


def _np(t):
    return t.detach().cpu().numpy()


def _pair(arr, device, requires_grad=False):
    """The same array as a minigrad tensor on device and a torch tensor."""
    rg = requires_grad and arr.dtype.kind == "f"
    return (minigrad.tensor(arr, device=device, requires_grad=rg), torch.tensor(arr, requires_grad=rg))


def _array(rng, shape, dtype):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype == "int64":
        return rng.integers(-9, 9, shape).astype(np.int64)
    return rng.standard_normal(shape).astype(dtype)


def _lengths(rng, T, B, sorted_):
    lens = rng.integers(1, T + 1, B)
    lens[rng.integers(B)] = T
    return sorted(lens.tolist(), reverse=True) if sorted_ else lens.tolist()


def _same_packed(pm, pt, device):
    assert isinstance(pm, mrnn.PackedSequence) and isinstance(pm, tuple)
    assert pm._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    np.testing.assert_array_equal(_np(pm.data), _np(pt.data))
    assert pm.data.dtype == getattr(minigrad, str(pt.data.dtype).split(".")[1]) and pm.data.device.type == device
    assert pm.batch_sizes.device.type == "cpu" and pm.batch_sizes.dtype == minigrad.int64
    np.testing.assert_array_equal(_np(pm.batch_sizes), _np(pt.batch_sizes))
    for a, b in ((pm.sorted_indices, pt.sorted_indices), (pm.unsorted_indices, pt.unsorted_indices)):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype == minigrad.int64 and a.device.type == device
            np.testing.assert_array_equal(_np(a), _np(b))


# ---- packing and padding ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("tail", [(), (3,), (2, 2)])
def test_pack_pad_roundtrip(device, dtype, batch_first, enforce_sorted, tail):
    rng = np.random.default_rng(len(tail) * 7 + batch_first * 3 + enforce_sorted)
    T, B = 5, 4
    lens = _lengths(rng, T, B, enforce_sorted)
    x = _array(rng, ((B, T) if batch_first else (T, B)) + tail, dtype)
    xm, xt = _pair(x, device)
    for lm, lt in ((lens, lens), (minigrad.tensor(lens), torch.tensor(lens)),
                   (minigrad.tensor(lens, dtype=minigrad.int32), torch.tensor(lens, dtype=torch.int32))):
        pm = mrnn.pack_padded_sequence(xm, lm, batch_first=batch_first, enforce_sorted=enforce_sorted)
        pt = trnn.pack_padded_sequence(xt, lt, batch_first=batch_first, enforce_sorted=enforce_sorted)
        _same_packed(pm, pt, device)
    for kw in (dict(), dict(batch_first=batch_first), dict(batch_first=batch_first, total_length=T + 2),
               dict(padding_value=-3.0), dict(padding_value=True)):
        om, olm = mrnn.pad_packed_sequence(pm, **kw)
        ot, olt = trnn.pad_packed_sequence(pt, **kw)
        assert tuple(om.shape) == tuple(ot.shape) and om.device.type == device
        assert om.dtype == pm.data.dtype
        np.testing.assert_array_equal(_np(om), _np(ot))
        assert olm.dtype == minigrad.int64 and olm.device.type == "cpu"
        np.testing.assert_array_equal(_np(olm), _np(olt))
    assert [_np(s).tolist() for s in mrnn.unpack_sequence(pm)] == [s.numpy().tolist() for s in
                                                                    trnn.unpack_sequence(pt)]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_pad_gradients(device, batch_first, enforce_sorted):
    rng = np.random.default_rng(3)
    T, B = 6, 5
    lens = _lengths(rng, T, B, enforce_sorted)
    xm, xt = _pair(rng.standard_normal(((B, T) if batch_first else (T, B)) + (3,)), device, True)
    pm = mrnn.pack_padded_sequence(xm, lens, batch_first, enforce_sorted)
    pt = trnn.pack_padded_sequence(xt, lens, batch_first, enforce_sorted)
    assert type(pm.data.grad_fn).__name__ == type(pt.data.grad_fn).__name__ == "PackPaddedSequenceBackward0"
    inner = type(pt.data.grad_fn.next_functions[0][0]).__name__
    assert type(pm.data.grad_fn.next_functions[0][0]).__name__ == inner
    om, _ = mrnn.pad_packed_sequence(pm, batch_first=not batch_first, padding_value=2.0, total_length=T + 1)
    ot, _ = trnn.pad_packed_sequence(pt, batch_first=not batch_first, padding_value=2.0, total_length=T + 1)
    assert type(om.grad_fn).__name__ == type(ot.grad_fn).__name__
    g = rng.standard_normal(tuple(ot.shape))
    (om * minigrad.tensor(g, device=device)).sum().backward()
    (ot * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(_np(xm.grad), xt.grad.numpy(), **TOL["float64"])
    assert xm.grad.device.type == device


def test_pack_gradcheck(device):
    x = minigrad.randn(4, 3, 2, dtype=minigrad.float64, device=device, requires_grad=True)

    def f(x):
        p = mrnn.pack_padded_sequence(x, [1, 4, 2], enforce_sorted=False)
        return mrnn.pad_packed_sequence(p, batch_first=True, padding_value=1.5)[0] * 2
    assert minigrad.autograd.gradcheck(f, (x,))
    assert minigrad.autograd.gradgradcheck(f, (x,))


def test_lengths_past_input(device):
    """A length past the input's steps is no error in torch: batch_sizes counts the steps up to
    the longest length, data holds the rows that exist."""
    x = np.arange(24.0).reshape(4, 3, 2)
    xm, xt = _pair(x, device)
    for lens in ([5, 2, 1], [6, 4, 4]):
        _same_packed(mrnn.pack_padded_sequence(xm, lens), trnn.pack_padded_sequence(xt, lens), device)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence(device, batch_first, padding_side):
    rng = np.random.default_rng(5)
    arrs = [rng.standard_normal((n, 2, 3)) for n in (3, 5, 1, 5)]
    ms = [minigrad.tensor(a, device=device, requires_grad=True) for a in arrs]
    ts = [torch.tensor(a, requires_grad=True) for a in arrs]
    om = mrnn.pad_sequence(ms, batch_first, -1.0, padding_side)
    ot = trnn.pad_sequence(ts, batch_first, -1.0, padding_side)
    np.testing.assert_array_equal(_np(om), _np(ot))
    assert type(om.grad_fn).__name__ == type(ot.grad_fn).__name__ == "CopySlices"
    g = rng.standard_normal(tuple(ot.shape))
    (om * minigrad.tensor(g, device=device)).sum().backward()
    (ot * torch.tensor(g)).sum().backward()
    for a, b in zip(ms, ts):
        np.testing.assert_array_equal(_np(a.grad), b.grad.numpy())
    # keywords, a tensor of sequences, the first sequence's dtype (others cast), broadcast trailing dims
    cases = [lambda L: L.nn.utils.rnn.pad_sequence(sequences=[L.arange(3), L.arange(1)], padding_value=2.5,
                                                   batch_first=batch_first, padding_side=padding_side),
             lambda L: L.nn.utils.rnn.pad_sequence(L.ones(3, 2)),
             lambda L: L.nn.utils.rnn.pad_sequence((L.arange(3), L.ones(2) * 1.5, L.arange(0))),
             lambda L: L.nn.utils.rnn.pad_sequence([L.ones(2, dtype=L.bool), L.zeros(3)], padding_value=True),
             lambda L: L.nn.utils.rnn.pad_sequence([L.ones(2, 3), L.ones(3, 1) * 2]),
             lambda L: L.nn.utils.rnn.pad_sequence([L.ones(2, 3), L.tensor([1.0, 2, 3])], batch_first=True)]
    for case in cases:
        rm, rt = case(minigrad), case(torch)
        assert rm.dtype == getattr(minigrad, str(rt.dtype).split(".")[1])
        np.testing.assert_array_equal(_np(rm), _np(rt))


def test_pack_sequence_unpack_unpad(device):
    rng = np.random.default_rng(9)
    arrs = [rng.standard_normal((n, 2)) for n in (2, 4, 1, 3)]
    ms = [minigrad.tensor(a, device=device, requires_grad=True) for a in arrs]
    ts = [torch.tensor(a, requires_grad=True) for a in arrs]
    pm, pt = mrnn.pack_sequence(ms, enforce_sorted=False), trnn.pack_sequence(ts, enforce_sorted=False)
    _same_packed(pm, pt, device)
    outs_m, outs_t = mrnn.unpack_sequence(pm), trnn.unpack_sequence(pt)
    assert [type(o.grad_fn).__name__ for o in outs_m] == [type(o.grad_fn).__name__ for o in outs_t]
    for a, b, arr in zip(outs_m, outs_t, arrs):
        np.testing.assert_array_equal(_np(a), _np(b))
        np.testing.assert_array_equal(_np(a), arr)
    sum((o * (i + 1)).sum() for i, o in enumerate(outs_m)).backward()
    sum((o * (i + 1)).sum() for i, o in enumerate(outs_t)).backward()
    for a, b in zip(ms, ts):
        np.testing.assert_array_equal(_np(a.grad), b.grad.numpy())
    srt = sorted(arrs, key=len, reverse=True)
    _same_packed(mrnn.pack_sequence([minigrad.tensor(a, device=device) for a in srt]),
                 trnn.pack_sequence([torch.tensor(a) for a in srt]), device)
    # unpad_sequence, both layouts
    padded = rng.standard_normal((4, 3, 2))
    for bf in (False, True):
        lens = [4, 1, 3] if not bf else [3, 3, 2, 1]
        um = mrnn.unpad_sequence(minigrad.tensor(padded, device=device), minigrad.tensor(lens), batch_first=bf)
        ut = trnn.unpad_sequence(torch.tensor(padded), torch.tensor(lens), batch_first=bf)
        assert [tuple(a.shape) for a in um] == [tuple(b.shape) for b in ut]
        for a, b in zip(um, ut):
            np.testing.assert_array_equal(_np(a), _np(b))


def test_packed_sequence_class(device):
    x = np.arange(12.0).reshape(4, 3)
    pm = mrnn.pack_padded_sequence(minigrad.tensor(x, dtype=minigrad.float32, device=device), [4, 1, 3],
                                   enforce_sorted=False)
    pt = trnn.pack_padded_sequence(torch.tensor(x, dtype=torch.float32), [4, 1, 3], enforce_sorted=False)
    data, batch_sizes, sorted_indices, unsorted_indices = pm
    assert data is pm.data and batch_sizes is pm[1] and len(pm) == 4
    assert pm.is_cuda == (device == "cuda") and pm.is_pinned() is False
    assert pm.to(minigrad.float32) is pm and pm.float() is pm and pm.to(device) is pm
    for name in ("double", "long", "int"):
        cm, ct = getattr(pm, name)(), getattr(pt, name)()
        assert cm.data.dtype == getattr(minigrad, str(ct.data.dtype).split(".")[1])
        assert cm.batch_sizes is pm.batch_sizes and cm.data.device.type == device
        _same_packed(cm, ct, device)
    on_cpu = pm.cpu()
    assert on_cpu.data.device.type == on_cpu.sorted_indices.device.type == on_cpu.unsorted_indices.device.type
    assert on_cpu.data.device.type == "cpu" and not on_cpu.is_cuda
    _same_packed(on_cpu, pt, "cpu")
    back = on_cpu.to(device, dtype=minigrad.float64)
    assert back.data.dtype == minigrad.float64 and back.sorted_indices.device.type == device
    if device == "cuda":
        assert on_cpu.cuda().is_cuda and on_cpu.cuda().unsorted_indices.is_cuda
    # the two constructor forms, invert_permutation
    bs = minigrad.tensor([2, 1])
    assert mrnn.PackedSequence(minigrad.ones(3), bs).unsorted_indices is None
    ps = mrnn.PackedSequence((minigrad.ones(3), bs), sorted_indices=minigrad.tensor([1, 0]))
    assert ps.batch_sizes is bs and ps.unsorted_indices.tolist() == [1, 0]
    perm = [3, 0, 4, 1, 2]
    assert mrnn.invert_permutation(minigrad.tensor(perm, device=device)).tolist() == \
        trnn.invert_permutation(torch.tensor(perm)).tolist()
    assert mrnn.invert_permutation(None) is None
    r = repr(mrnn.pack_sequence([minigrad.tensor([1, 2, 3]), minigrad.tensor([4, 5]), minigrad.tensor([6])]))
    assert r == repr(trnn.pack_sequence([torch.tensor([1, 2, 3]), torch.tensor([4, 5]), torch.tensor([6])]))


def test_imports():
    import minigrad.nn.utils.rnn as rnn_module
    assert rnn_module is mnn.utils.rnn and m_pack_padded_sequence is mnn.utils.rnn.pack_padded_sequence
    assert minigrad.nn.utils.rnn.pad_sequence is mrnn.pad_sequence
    assert set(mrnn.__all__) == set(trnn.__all__)
    for name in ("clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"):
        assert callable(getattr(mnn.utils, name))


# ---- torch's errors -----------------------------------------------------------------------------

def _seqs(L, *lens):
    return [L.randn(n, 2) for n in lens]


ERRORS = {
    "unsorted": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.randn(4, 3, 2), [1, 4, 2]),
    "zero length": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.randn(4, 3, 2), [4, 2, 0]),
    "zero length unsorted": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.randn(4, 3, 2), [0, 2, 4],
                                                                          enforce_sorted=False),
    "negative length": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.randn(4, 3, 2), [4, 2, -1]),
    "too few lengths": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.randn(4, 3, 2), [4, 2]),
    "too many lengths": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.randn(4, 3, 2), [4, 2, 1, 1]),
    "batch_first lengths": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.randn(3, 2), [3, 1], batch_first=True),
    "2-d lengths": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.randn(4, 3, 2), L.tensor([[4, 2, 1]])),
    "0-d lengths": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.randn(4, 3, 2), L.tensor(4)),
    "int lengths": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.randn(4, 3, 2), 4),
    "1-d input": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.randn(4), [4]),
    "1-d input batch_first": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.randn(4), [4], batch_first=True),
    "empty input": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.randn(0, 3), [4, 2, 1]),
    "list input": lambda L: L.nn.utils.rnn.pack_padded_sequence([1, 2], [2]),
    "batch_first int": lambda L: L.nn.utils.rnn.pack_padded_sequence(L.randn(3, 2), [3, 1], batch_first=1),
    "total_length short": lambda L: L.nn.utils.rnn.pad_packed_sequence(L.nn.utils.rnn.pack_sequence(_seqs(L, 3, 1)),
                                                                       total_length=2),
    "total_length float": lambda L: L.nn.utils.rnn.pad_packed_sequence(L.nn.utils.rnn.pack_sequence(_seqs(L, 3, 1)),
                                                                       total_length=5.5),
    "padding_value str": lambda L: L.nn.utils.rnn.pad_packed_sequence(L.nn.utils.rnn.pack_sequence(_seqs(L, 3)),
                                                                      padding_value="a"),
    "pad_packed batch_first int": lambda L: L.nn.utils.rnn.pad_packed_sequence(
        L.nn.utils.rnn.pack_sequence(_seqs(L, 3)), batch_first=1),
    "pad_packed of a tensor": lambda L: L.nn.utils.rnn.pad_packed_sequence(L.randn(3)),
    "float batch_sizes": lambda L: L.nn.utils.rnn.pad_packed_sequence(
        L.nn.utils.rnn.PackedSequence(L.randn(3), L.tensor([2, 1.]))),
    "PackedSequence(data)": lambda L: L.nn.utils.rnn.PackedSequence(L.randn(3)),
    "pad_sequence []": lambda L: L.nn.utils.rnn.pad_sequence([]),
    "pad_sequence int": lambda L: L.nn.utils.rnn.pad_sequence(5),
    "pad_sequence element": lambda L: L.nn.utils.rnn.pad_sequence([L.randn(3), 3]),
    "pad_sequence shapes": lambda L: L.nn.utils.rnn.pad_sequence([L.randn(2, 3), L.randn(3, 2)]),
    "pad_sequence 0-d first": lambda L: L.nn.utils.rnn.pad_sequence([L.tensor(1.), L.randn(3)]),
    "pad_sequence 0-d later": lambda L: L.nn.utils.rnn.pad_sequence([L.randn(3), L.tensor(1.)]),
    "pad_sequence side": lambda L: L.nn.utils.rnn.pad_sequence([L.randn(3)], padding_side="top"),
    "pad_sequence side int": lambda L: L.nn.utils.rnn.pad_sequence([L.randn(3)], padding_side=1),
    "pad_sequence value None": lambda L: L.nn.utils.rnn.pad_sequence([L.randn(3)], padding_value=None),
    "pad_sequence batch_first None": lambda L: L.nn.utils.rnn.pad_sequence([L.randn(3)], batch_first=None),
    "pack_sequence []": lambda L: L.nn.utils.rnn.pack_sequence([]),
    "pack_sequence unsorted": lambda L: L.nn.utils.rnn.pack_sequence(_seqs(L, 1, 3)),
    "unpad list lengths": lambda L: L.nn.utils.rnn.unpad_sequence(L.randn(3, 2), [3, 1]),
    "unpad too many": lambda L: L.nn.utils.rnn.unpad_sequence(L.randn(3, 2), L.tensor([3, 1, 1])),
    "unpad too few": lambda L: L.nn.utils.rnn.unpad_sequence(L.randn(3, 2), L.tensor([3]), batch_first=True),
    "GRU hx batch": lambda L: L.nn.GRU(2, 5)(L.nn.utils.rnn.pack_sequence(_seqs(L, 3, 1)), L.zeros(1, 3, 5)),
    "GRU hx size": lambda L: L.nn.GRU(2, 5)(L.nn.utils.rnn.pack_sequence(_seqs(L, 3, 1)), L.zeros(1, 2, 4)),
    "GRU hx 2-d": lambda L: L.nn.GRU(2, 5)(L.nn.utils.rnn.pack_sequence(_seqs(L, 3, 1)), L.zeros(2, 5)),
    "GRU dtype": lambda L: L.nn.GRU(2, 5)(L.nn.utils.rnn.pack_sequence(_seqs(L, 3, 1)).double()),
    "GRU hx permuted": lambda L: L.nn.GRU(2, 5)(L.nn.utils.rnn.pack_sequence(_seqs(L, 1, 3, 2), enforce_sorted=False),
                                                L.zeros(1, 2, 5)),
    "RNN 3-d data": lambda L: L.nn.RNN(2, 5)(L.nn.utils.rnn.pack_sequence([L.randn(3, 2, 2), L.randn(1, 2, 2)])),
    "RNN input size": lambda L: L.nn.RNN(3, 5)(L.nn.utils.rnn.pack_sequence(_seqs(L, 3, 1))),
    "LSTM dtype": lambda L: L.nn.LSTM(2, 5)(L.nn.utils.rnn.pack_sequence(_seqs(L, 3, 1)).double()),
    "LSTM input size": lambda L: L.nn.LSTM(3, 5)(L.nn.utils.rnn.pack_sequence(_seqs(L, 3, 1))),
    "LSTM hx batch": lambda L: L.nn.LSTM(2, 5)(L.nn.utils.rnn.pack_sequence(_seqs(L, 3, 1)),
                                               (L.zeros(1, 3, 5), L.zeros(1, 3, 5))),
    "LSTM hx size": lambda L: L.nn.LSTM(2, 5)(L.nn.utils.rnn.pack_sequence(_seqs(L, 3, 1)),
                                              (L.zeros(1, 2, 4), L.zeros(1, 2, 5))),
    "LSTM hx 2-d": lambda L: L.nn.LSTM(2, 5)(L.nn.utils.rnn.pack_sequence(_seqs(L, 3, 1)),
                                             (L.zeros(2, 5), L.zeros(2, 5))),
}


def _error(lib, fn):
    with pytest.raises(Exception) as info:
        fn(lib)
    return type(info.value).__name__, str(info.value).replace("minigrad", "torch")


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(name):
    assert _error(minigrad, ERRORS[name]) == _error(torch, ERRORS[name])


def test_lengths_on_device_error(device):
    x = minigrad.randn(4, 3, 2, device=device)
    lengths = minigrad.tensor([4, 2, 1], device=device)
    if device == "cpu":
        assert mrnn.pack_padded_sequence(x, lengths).batch_sizes.tolist() == [3, 2, 1, 1]
        return
    # torch's message for CUDA lengths (its CPU build cannot make one to compare)
    for enforce_sorted in (True, False):
        with pytest.raises(RuntimeError, match=r"^'lengths' argument should be a 1D CPU int64 tensor, but got 1D "
                                               r"cuda:0 Long tensor$"):
            mrnn.pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted)


# ---- RNN, LSTM, GRU on packed input --------------------------------------------------------------

T, B, IN, H = 5, 4, 3, 6


def _models(name, kwargs, device, dtype):
    tm = getattr(torch.nn, name)(IN, H, **kwargs)
    mm = getattr(mnn, name)(IN, H, **kwargs)
    if dtype == "float64":
        tm, mm = tm.double(), mm.double()
    mm.load_state_dict({k: minigrad.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, mm.to(device)


def _run_packed(name, kwargs, device, dtype, enforce_sorted, with_hx, seed):
    rng = np.random.default_rng(seed)
    tm, mm = _models(name, kwargs, device, dtype)
    bf = kwargs.get("batch_first", False)
    lens = _lengths(rng, T, B, enforce_sorted)
    xm, xt = _pair(_array(rng, (B, T, IN) if bf else (T, B, IN), dtype), device, True)
    pm = mrnn.pack_padded_sequence(xm, lens, batch_first=bf, enforce_sorted=enforce_sorted)
    pt = trnn.pack_padded_sequence(xt, lens, batch_first=bf, enforce_sorted=enforce_sorted)
    dirs = 2 if kwargs.get("bidirectional") else 1
    layers = kwargs.get("num_layers", 1)
    hm = ht = ()
    if with_hx:
        shapes = [(layers * dirs, B, kwargs.get("proj_size") or H)]
        if name == "LSTM":
            shapes.append((layers * dirs, B, H))
        pairs = [_pair(_array(rng, s, dtype), device, True) for s in shapes]
        hm, ht = [p[0] for p in pairs], [p[1] for p in pairs]
    om, fm = mm(pm, tuple(hm) if name == "LSTM" else hm[0]) if with_hx else mm(pm)
    ot, ft = tm(pt, tuple(ht) if name == "LSTM" else ht[0]) if with_hx else tm(pt)
    assert isinstance(om, mrnn.PackedSequence)
    assert om.batch_sizes is pm.batch_sizes and om.sorted_indices is pm.sorted_indices
    assert om.unsorted_indices is pm.unsorted_indices
    assert type(om.data.grad_fn).__name__ == type(ot.data.grad_fn).__name__
    fm, ft = (list(fm), list(ft)) if name == "LSTM" else ([fm], [ft])
    tol = TOL[dtype]
    for a, b in zip([om.data] + fm, [ot.data] + ft):
        assert tuple(a.shape) == tuple(b.shape) and a.device.type == device and a.dtype == getattr(minigrad, dtype)
        np.testing.assert_allclose(_np(a), _np(b), **tol)
    for a, b in zip(fm, ft):
        assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__
    # backward through the padded output and the final states
    pom, _ = mrnn.pad_packed_sequence(om, batch_first=bf)
    pot, _ = trnn.pad_packed_sequence(ot, batch_first=bf)
    gs = [rng.standard_normal(tuple(b.shape)).astype(dtype) for b in [pot] + ft]
    sum((a * minigrad.tensor(g, device=device)).sum() for a, g in zip([pom] + fm, gs)).backward()
    sum((a * torch.tensor(g)).sum() for a, g in zip([pot] + ft, gs)).backward()
    for a, b in zip([xm] + list(hm), [xt] + list(ht)):
        np.testing.assert_allclose(_np(a.grad), b.grad.numpy(), **tol)
    for (n1, p1), (n2, p2) in zip(mm.named_parameters(), tm.named_parameters()):
        assert n1 == n2
        np.testing.assert_allclose(_np(p1.grad), p2.grad.numpy(), err_msg=n1, **tol)


LAYER_CASES = [
    ("RNN", {}), ("RNN", dict(nonlinearity="relu", batch_first=True)),
    ("RNN", dict(num_layers=2, bidirectional=True)),
    ("GRU", {}), ("GRU", dict(num_layers=2, bidirectional=True, batch_first=True)), ("GRU", dict(bias=False)),
    ("LSTM", {}), ("LSTM", dict(num_layers=2, bidirectional=True)),
    ("LSTM", dict(proj_size=2, batch_first=True)), ("LSTM", dict(proj_size=3, num_layers=2, bidirectional=True)),
]


@pytest.mark.parametrize("name,kwargs", LAYER_CASES, ids=[f"{n}-{k}" for n, k in LAYER_CASES])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("with_hx", [False, True])
def test_layer_packed_float64(device, name, kwargs, enforce_sorted, with_hx):
    _run_packed(name, kwargs, device, "float64", enforce_sorted, with_hx, seed=len(kwargs) + 2 * with_hx)


@pytest.mark.parametrize("name", ["RNN", "GRU", "LSTM"])
def test_layer_packed_float32(device, name):
    _run_packed(name, dict(num_layers=2, bidirectional=True, batch_first=True), device, "float32", False, True, 1)


def test_packed_matches_per_sequence_runs(device):
    """Each sequence's packed output and final state are those of running it alone, unpadded."""
    rng = np.random.default_rng(2)
    mm = mnn.LSTM(IN, H, num_layers=2, bidirectional=True, dtype=minigrad.float64).to(device)
    seqs = [minigrad.tensor(rng.standard_normal((n, IN)), device=device) for n in (2, 5, 1, 4)]
    om, (h, c) = mm(mrnn.pack_sequence(seqs, enforce_sorted=False))
    for i, (seq, out) in enumerate(zip(seqs, mrnn.unpack_sequence(om))):
        o1, (h1, c1) = mm(seq)
        np.testing.assert_allclose(_np(out), _np(o1), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(_np(h[:, i]), _np(h1), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(_np(c[:, i]), _np(c1), rtol=1e-12, atol=1e-12)


def test_packed_dropout_between_layers(device):
    tm, mm = _models("GRU", dict(num_layers=2, dropout=1.0), device, "float64")
    x = np.random.default_rng(0).standard_normal((T, B, IN))
    lens = [5, 3, 3, 1]
    om, hm = mm(mrnn.pack_padded_sequence(minigrad.tensor(x, device=device), lens))
    ot, ht = tm(trnn.pack_padded_sequence(torch.tensor(x), lens))
    np.testing.assert_allclose(_np(om.data), _np(ot.data), **TOL["float64"])  # layer 2 sees zeros
    np.testing.assert_allclose(_np(hm), _np(ht), **TOL["float64"])
