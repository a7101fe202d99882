"""F.ctc_loss, nn.CTCLoss and torch.ctc_loss against PyTorch: values and gradients in float32 and
float64 for random cases (padded and concatenated targets, lengths as lists and as tensors, repeated
labels, empty targets, impossible alignments with and without zero_infinity, inputs that are not
log-softmax outputs, -inf log-probabilities), every reduction, the unbatched form, grad_fn names,
torch's errors and messages; on every device (the emulated CUDA one included)."""
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.nn as mnn
import minigrad.nn.functional as MF
from minigrad.autograd import gradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional

DT = ["float32", "float64"]
REDS = ["mean", "sum", "none"]


def _tol(dtype):
    return dict(rtol=2e-5, atol=2e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)


def _case(seed, T, N, C, smax, concat, impossible=False, softmax=True, blank=0):
    """Random log-probabilities (T, N, C), targets with repeated labels and junk padding, lengths."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, N, C)) * 2
    if softmax:
        x = x - np.log(np.exp(x).sum(2, keepdims=True))
    labels = [c for c in range(C) if c != blank]
    il = rng.integers(1, T + 1, N)
    il[0] = T
    tl = rng.integers(0, smax + 1, N)
    tl[-1] = smax
    if N > 1:
        tl[1] = 0  # an empty target
    tg = rng.choice(labels, (N, smax))
    tg[0, :2] = tg[0, 0]  # a repeated label: the path needs a blank between them
    if impossible:
        il[-1] = max(tl[-1] - 1, 0)
    if concat:
        tg = np.concatenate([tg[i, :tl[i]] for i in range(N)])
    else:
        tg = np.concatenate([tg, rng.integers(-7, 99, (N, 2))], 1)  # padding torch never reads
    return x, tg, [int(v) for v in il], [int(v) for v in tl]


def _run(x, tg, il, tl, device, dtype, lengths="list", go_seed=1, **kw):
    """The loss and the gradient of x in torch and in minigrad, compared; returns minigrad's loss."""
    tdt, mdt = getattr(torch, dtype), getattr(minigrad, dtype)
    xt = torch.tensor(x, dtype=tdt, requires_grad=True)
    xm = minigrad.tensor(x, device=device).to(mdt).requires_grad_()
    tgt, tgm = torch.tensor(tg), minigrad.tensor(tg, device=device)
    if lengths == "tensor":
        ilt, tlt = torch.tensor(il), torch.tensor(tl)
        ilm, tlm = minigrad.tensor(il, device=device), minigrad.tensor(tl, device=device)
    else:
        ilt = ilm = tuple(il) if lengths == "tuple" else list(il)
        tlt = tlm = tuple(tl) if lengths == "tuple" else list(tl)
    rt = TF.ctc_loss(xt, tgt, ilt, tlt, **kw)
    rm = MF.ctc_loss(xm, tgm, ilm, tlm, **kw)
    assert tuple(rm.shape) == tuple(rt.shape)
    assert rm.dtype == mdt and rt.dtype == tdt
    assert rm.grad_fn.name() == type(rt.grad_fn).__name__
    tol = _tol(dtype)
    np.testing.assert_allclose(np.array(rm.tolist()).reshape(rt.shape), rt.detach().numpy(), **tol)
    go = np.random.default_rng(go_seed).standard_normal(tuple(rt.shape))
    rt.backward(torch.tensor(go, dtype=tdt))
    rm.backward(minigrad.tensor(go, device=device).to(mdt))
    gm = np.array(xm.grad.tolist())
    np.testing.assert_array_equal(np.isnan(gm), np.isnan(xt.grad.numpy()))
    np.testing.assert_allclose(gm, xt.grad.numpy(), **tol)
    return rm


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize("concat", [False, True], ids=["padded", "concat"])
def test_ctc_loss_random(device, dtype, reduction, concat):
    for seed, (T, N, C, smax) in enumerate([(7, 3, 5, 3), (12, 4, 6, 5), (1, 2, 3, 1), (9, 1, 4, 4)]):
        x, tg, il, tl = _case(seed, T, N, C, smax, concat)
        _run(x, tg, il, tl, device, dtype, reduction=reduction)


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_impossible_alignments(device, dtype, reduction, zero_infinity):
    x, tg, il, tl = _case(3, 6, 3, 5, 4, False, impossible=True)
    rm = _run(x, tg, il, tl, device, dtype, reduction=reduction, zero_infinity=zero_infinity)
    if reduction == "none":
        assert (rm.tolist()[-1] == 0.0) if zero_infinity else rm.tolist()[-1] == float("inf")
    # repeated labels need a blank between them: aa in 2 frames is impossible, in 3 it is not
    x = np.log(np.full((3, 2, 3), 1 / 3))
    _run(x, np.array([[1, 1], [1, 1]]), [2, 3], [2, 2], device, dtype, reduction=reduction,
         zero_infinity=zero_infinity)


@pytest.mark.parametrize("lengths", ["list", "tuple", "tensor"])
@pytest.mark.parametrize("concat", [False, True], ids=["padded", "concat"])
def test_ctc_loss_lengths_forms(device, lengths, concat):
    x, tg, il, tl = _case(5, 8, 3, 6, 4, concat)
    _run(x, tg, il, tl, device, "float64", lengths=lengths)


@pytest.mark.parametrize("dtype", DT)
def test_ctc_loss_not_log_softmax(device, dtype):
    """torch's gradient is exp(lp) - occupancy, the gradient through the log_softmax the input
    is assumed to come from; minigrad gives the same for inputs that are no log-softmax."""
    x, tg, il, tl = _case(7, 10, 3, 5, 4, False, softmax=False)
    _run(x, tg, il, tl, device, dtype, reduction="sum")
    _run(x, tg, il, tl, device, dtype, reduction="none", blank=4)


def test_ctc_loss_edge_values(device):
    x, tg, il, tl = _case(11, 6, 3, 5, 3, False)
    x[1, 0, 2] = -np.inf          # a label with probability 0: torch's gradient is NaN there
    x[2, 1, :] = -np.inf
    _run(x, tg, il, tl, device, "float64", reduction="none")
    _run(x, tg, il, tl, device, "float64", reduction="mean", zero_infinity=True)
    # blank elsewhere than 0, targets holding the blank's value, zero-length inputs
    x, tg, il, tl = _case(12, 7, 4, 5, 3, False, blank=2)
    tg[0, 1] = 2
    il[2] = 0
    for red in REDS:
        _run(x, tg, il, tl, device, "float64", reduction=red, blank=2)
    _run(x, tg, [0] * 4, tl, device, "float64", reduction="none", blank=2)   # no frames at all
    # targets of other dtypes are cast to int64, as torch does
    x, tg, il, tl = _case(13, 6, 2, 4, 2, False)
    for dt in (np.float32, np.int32, np.bool_):
        _run(x, tg.clip(0, 3).astype(dt), il, tl, device, "float64", reduction="none")


@pytest.mark.parametrize("dtype", DT)
def test_ctc_loss_larger(device, dtype):
    x, tg, il, tl = _case(21, 40, 5, 12, 15, False)
    _run(x, tg, il, tl, device, dtype, reduction="mean")


@pytest.mark.parametrize("reduction", REDS)
def test_ctc_loss_unbatched(device, reduction):
    x, tg, il, tl = _case(4, 7, 1, 5, 3, True)
    for lengths in ("list", "tensor"):
        _run(x[:, 0], tg, il, tl, device, "float64", lengths=lengths, reduction=reduction)
    _run(x[:, 0], tg[None], il, tl, device, "float64", reduction=reduction)   # 2-d targets (1, S)
    # 0-d length tensors
    xt = torch.tensor(x[:, 0], requires_grad=True)
    xm = minigrad.tensor(x[:, 0], device=device).requires_grad_()
    rt = TF.ctc_loss(xt, torch.tensor(tg), torch.tensor(il[0]), torch.tensor(tl[0]), reduction=reduction)
    rm = MF.ctc_loss(xm, minigrad.tensor(tg, device=device), minigrad.tensor(il[0]), minigrad.tensor(tl[0]),
                     reduction=reduction)
    np.testing.assert_allclose(rm.item(), rt.item(), rtol=1e-12)
    assert rm.grad_fn.name() == type(rt.grad_fn).__name__


def test_ctc_loss_graph(device):
    """torch's nodes: CtcLossBackward0 under Where (zero_infinity), Div and Mean, Sum, Squeeze."""
    x, tg, il, tl = _case(2, 5, 2, 4, 2, False)

    def chain(r):
        out, node = [], r.grad_fn
        while node is not None and type(node).__name__ != "AccumulateGrad":
            out.append(type(node).__name__ if not hasattr(node, "_forward_cls") else node.name())
            nxt = [n for n, _ in node.next_functions if n is not None]
            node = nxt[0] if nxt else None
        return out

    for red in REDS:
        for zi in (False, True):
            rt = TF.ctc_loss(torch.tensor(x, requires_grad=True), torch.tensor(tg), il, tl, reduction=red,
                             zero_infinity=zi)
            rm = MF.ctc_loss(minigrad.tensor(x, device=device, requires_grad=True), minigrad.tensor(tg, device=device),
                             il, tl, reduction=red, zero_infinity=zi)
            assert chain(rm) == chain(rt)
    rm = MF.ctc_loss(minigrad.tensor(x[:, 0], device=device, requires_grad=True), minigrad.tensor(tg[0, :2]), [5],
                     [2], reduction="none")
    rt = TF.ctc_loss(torch.tensor(x[:, 0], requires_grad=True), torch.tensor(tg[0, :2]), [5], [2], reduction="none")
    assert chain(rm) == chain(rt) == ["SqueezeBackward1", "CtcLossBackward0", "UnsqueezeBackward0"]
    assert MF.ctc_loss(minigrad.tensor(x, device=device), minigrad.tensor(tg), il, tl).grad_fn is None


def test_ctc_loss_log_softmax_gradcheck(device):
    """Through log_softmax torch's gradient is the true one: gradcheck the composition."""
    x, tg, il, tl = _case(9, 5, 2, 4, 2, False, softmax=False)
    tgm = minigrad.tensor(tg, device=device)

    def f(z):
        return MF.ctc_loss(z.log_softmax(2), tgm, il, tl, reduction="sum")

    assert gradcheck(f, (minigrad.tensor(x, device=device).requires_grad_(),))


def test_ctc_loss_double_backward_raises(device):
    x, tg, il, tl = _case(1, 5, 2, 4, 2, False)
    xm = minigrad.tensor(x, device=device).requires_grad_()
    loss = MF.ctc_loss(xm, minigrad.tensor(tg, device=device), il, tl)
    g, = minigrad.autograd.grad(loss, xm, create_graph=True)
    xt = torch.tensor(x, requires_grad=True)
    gt, = torch.autograd.grad(TF.ctc_loss(xt, torch.tensor(tg), il, tl), xt, create_graph=True)
    np.testing.assert_allclose(np.array(g.tolist()), gt.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert g.requires_grad
    with pytest.raises(RuntimeError, match=r"derivative for aten::_ctc_loss_backward is not implemented"):
        g.sum().backward()


@pytest.mark.parametrize("reduction", [0, 1, 2, 3, -1])
def test_torch_ctc_loss_integer_reduction(device, reduction):
    x, tg, il, tl = _case(6, 6, 3, 5, 3, True)
    rt = torch.ctc_loss(torch.tensor(x), torch.tensor(tg), il, tl, 0, reduction, False)
    rm = minigrad.ctc_loss(minigrad.tensor(x, device=device), minigrad.tensor(tg, device=device), il, tl, 0,
                           reduction, False)
    np.testing.assert_allclose(np.array(rm.tolist()), rt.numpy(), rtol=1e-12)
    rt = torch.ctc_loss(torch.tensor(x), torch.tensor(tg), torch.tensor(il), torch.tensor(tl), blank=0,
                        reduction=reduction, zero_infinity=True)
    rm = minigrad.ctc_loss(minigrad.tensor(x, device=device), minigrad.tensor(tg, device=device),
                           minigrad.tensor(il), minigrad.tensor(tl), blank=0, reduction=reduction, zero_infinity=True)
    np.testing.assert_allclose(np.array(rm.tolist()), rt.numpy(), rtol=1e-12)
    # torch's binding reads the default reduction (at::Reduction::Mean) as 0: none
    rm = minigrad.ctc_loss(minigrad.tensor(x, device=device), minigrad.tensor(tg, device=device), il, tl)
    rt = torch.ctc_loss(torch.tensor(x), torch.tensor(tg), il, tl)
    assert tuple(rm.shape) == tuple(rt.shape) == (3,)
    np.testing.assert_allclose(np.array(rm.tolist()), rt.numpy(), rtol=1e-12)


def test_ctc_loss_module(device):
    x, tg, il, tl = _case(8, 6, 3, 5, 3, False)
    for kw in ({}, {"blank": 4}, {"reduction": "sum", "zero_infinity": True}, {"reduction": "none"}):
        mt, mm = torch.nn.CTCLoss(**kw), mnn.CTCLoss(**kw)
        assert repr(mm) == repr(mt) == "CTCLoss()"
        assert (mm.blank, mm.reduction, mm.zero_infinity) == (mt.blank, mt.reduction, mt.zero_infinity)
        xt = torch.tensor(x, requires_grad=True)
        xm = minigrad.tensor(x, device=device).requires_grad_()
        rt = mt(xt, torch.tensor(tg), il, tl)
        rm = mm(xm, minigrad.tensor(tg, device=device), il, tl)
        np.testing.assert_allclose(np.array(rm.tolist()), rt.detach().numpy(), rtol=1e-10)
        rt.sum().backward()
        rm.sum().backward()
        np.testing.assert_allclose(np.array(xm.grad.tolist()), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert mnn.CTCLoss.__constants__ == torch.nn.CTCLoss.__constants__
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        rm = MF.ctc_loss(minigrad.tensor(x, device=device), minigrad.tensor(tg), il, tl, reduction="elementwise_mean")
    assert "elementwise_mean" in str(w[0].message)
    np.testing.assert_allclose(rm.item(), TF.ctc_loss(torch.tensor(x), torch.tensor(tg), il, tl).item(), rtol=1e-12)


# ---- errors ---------------------------------------------------------------------------------------

_X, _TG, _IL, _TL = _case(0, 6, 3, 5, 3, False)
_TG = _TG[:, :3]
_TL[1] = 2


def _err_cases():
    """(id, f(lib, F, x, tg)): each a call that torch refuses."""
    il, tl = _IL, _TL

    def t(lib, v, **kw):
        return lib.tensor(v, **kw)
    return [
        ("blank negative", lambda L, F, x, tg: F.ctc_loss(x, tg, il, tl, blank=-1)),
        ("blank too large", lambda L, F, x, tg: F.ctc_loss(x, tg, il, tl, blank=5)),
        ("input length > T", lambda L, F, x, tg: F.ctc_loss(x, tg, [7] + il[1:], tl)),
        ("input length < 0", lambda L, F, x, tg: F.ctc_loss(x, tg, [-1] + il[1:], tl)),
        ("target length < 0", lambda L, F, x, tg: F.ctc_loss(x, tg, il, [-1] + tl[1:])),
        ("target length < 0 concat", lambda L, F, x, tg: F.ctc_loss(x, tg.flatten()[:4], il, [-1] + tl[1:])),
        ("target length > S", lambda L, F, x, tg: F.ctc_loss(x, tg, il, [4] + tl[1:])),
        ("concat size", lambda L, F, x, tg: F.ctc_loss(x, tg.flatten(), il, tl)),
        ("targets rows", lambda L, F, x, tg: F.ctc_loss(x, tg[:2], il, tl)),
        ("targets 3-d", lambda L, F, x, tg: F.ctc_loss(x, tg.unsqueeze(0), il, tl)),
        ("targets 0-d", lambda L, F, x, tg: F.ctc_loss(x, tg[0, 0], il, tl)),
        ("input lengths size", lambda L, F, x, tg: F.ctc_loss(x, tg, il[:2], tl)),
        ("target lengths size", lambda L, F, x, tg: F.ctc_loss(x, tg, il, tl[:2])),
        ("both sizes", lambda L, F, x, tg: F.ctc_loss(x, tg, il[:1], tl[:1])),
        ("log_probs 4-d", lambda L, F, x, tg: F.ctc_loss(x.unsqueeze(0), tg, il, tl)),
        ("log_probs 1-d", lambda L, F, x, tg: F.ctc_loss(x[0, 0], tg, il, tl)),
        ("log_probs 0-d", lambda L, F, x, tg: F.ctc_loss(x[0, 0, 0], tg, il, tl)),
        ("log_probs 2-d batch", lambda L, F, x, tg: F.ctc_loss(x[0], tg, il, tl)),
        ("log_probs int64", lambda L, F, x, tg: F.ctc_loss(x.long(), tg, il, tl, blank=9)),
        ("log_probs bool", lambda L, F, x, tg: F.ctc_loss(x > 0, tg, il, tl)),
        ("log_probs empty", lambda L, F, x, tg: F.ctc_loss(x[:0], tg, il, tl, blank=9)),
        ("log_probs no labels", lambda L, F, x, tg: F.ctc_loss(x[:, :, :0], tg, il, tl)),
        ("float input lengths", lambda L, F, x, tg: F.ctc_loss(x.long(), tg, t(L, il).float(), t(L, tl))),
        ("float target lengths", lambda L, F, x, tg: F.ctc_loss(x, tg, t(L, il), t(L, tl).float())),
        ("bool input lengths", lambda L, F, x, tg: F.ctc_loss(x, tg, t(L, il) > 0, t(L, tl))),
        ("tensor lengths size", lambda L, F, x, tg: F.ctc_loss(x, tg, t(L, il[:2]), t(L, tl))),
        ("mixed lengths", lambda L, F, x, tg: F.ctc_loss(x, tg, t(L, il), tl)),
        ("mixed lengths 2", lambda L, F, x, tg: F.ctc_loss(x, tg, il, t(L, tl))),
        ("float lengths", lambda L, F, x, tg: F.ctc_loss(x, tg, [6.0, 5.0, 4.0], tl)),
        ("int lengths", lambda L, F, x, tg: F.ctc_loss(x, tg, 6, tl)),
        ("blank float", lambda L, F, x, tg: F.ctc_loss(x, tg, il, tl, blank=0.5)),
        ("zero_infinity int", lambda L, F, x, tg: F.ctc_loss(x, tg, il, tl, zero_infinity=1)),
        ("log_probs list", lambda L, F, x, tg: F.ctc_loss(x.tolist(), tg, il, tl)),
        ("targets list", lambda L, F, x, tg: F.ctc_loss(x, tg.tolist(), il, tl)),
        ("reduction bad", lambda L, F, x, tg: F.ctc_loss(x, tg, il, tl, reduction="bad")),
        ("reduction None", lambda L, F, x, tg: F.ctc_loss(x, tg, il, tl, reduction=None)),
        ("torch reduction str", lambda L, F, x, tg: L.ctc_loss(x, tg, il, tl, 0, "mean")),
        ("torch unknown keyword", lambda L, F, x, tg: L.ctc_loss(x, tg, il, tl, reduce=1)),
        ("torch missing", lambda L, F, x, tg: L.ctc_loss(x, tg, il)),
    ]


@pytest.mark.parametrize("case", _err_cases(), ids=lambda c: c[0])
def test_ctc_loss_errors(device, case):
    _, f = case
    outcome = []
    for lib, F, x, tg in ((torch, TF, torch.tensor(_X, dtype=torch.float32), torch.tensor(_TG)),
                          (minigrad, MF, minigrad.tensor(_X, device=device).float(),
                           minigrad.tensor(_TG, device=device))):
        with pytest.raises(Exception) as info:
            f(lib, F, x, tg)
        outcome.append((type(info.value).__name__, str(info.value).replace("ctc_loss_cuda", "ctc_loss_cpu")))
    assert outcome[1] == outcome[0]


def test_ctc_loss_targets_out_of_range(device):
    """torch reads out of bounds for a target label outside [0, C) (undefined); minigrad refuses it,
    and ignores the padding past each target length as torch does."""
    x = minigrad.tensor(_X, device=device)
    with pytest.raises(RuntimeError, match=r"targets must be in the label range \[0, 5\), but got a target of 7"):
        MF.ctc_loss(x, minigrad.tensor([[1, 7, 2]] * 3, device=device), _IL, _TL)
    with pytest.raises(RuntimeError, match=r"got a target of -1"):
        MF.ctc_loss(x, minigrad.tensor([1, -1, 2, 3, 4, 1, 2], device=device), _IL, [3, 2, 2])
    tg = np.array(_TG)
    tg[1, 2:] = 99
    _run(_X, tg, _IL, _TL, device, "float64", reduction="none")


@pytest.mark.parametrize("dtype", DT)
def test_ctc_loss_strided_input(device, dtype):
    """log_probs as a model gives them: log_softmax of (N, T, C) scores, transposed to (T, N, C)."""
    rng = np.random.default_rng(31)
    z = rng.standard_normal((3, 8, 6))
    tg, il, tl = rng.integers(1, 6, (3, 4)), [8, 7, 5], [4, 3, 2]
    tdt, mdt = getattr(torch, dtype), getattr(minigrad, dtype)
    zt = torch.tensor(z, dtype=tdt, requires_grad=True)
    zm = minigrad.tensor(z, device=device).to(mdt).requires_grad_()
    rt = TF.ctc_loss(zt.log_softmax(2).transpose(0, 1), torch.tensor(tg), torch.tensor(il), torch.tensor(tl))
    rm = MF.ctc_loss(zm.log_softmax(2).transpose(0, 1), minigrad.tensor(tg, device=device),
                     minigrad.tensor(il, device=device), minigrad.tensor(tl, device=device))
    np.testing.assert_allclose(rm.item(), rt.item(), **_tol(dtype))
    rt.backward()
    rm.backward()
    np.testing.assert_allclose(np.array(zm.grad.tolist()), zt.grad.numpy(), **_tol(dtype))
