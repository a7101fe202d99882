"""More losses, distances and padding against PyTorch: values in float32 and float64, gradients
(and gradcheck in float64), every reduction, broadcasting, errors, grad_fn names, module reprs;
on every device (the emulated CUDA one included)."""
import math
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.nn as mnn
import minigrad.nn.functional as MF
from minigrad.autograd import gradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 5))
Y = RNG.standard_normal((4, 5))
P = np.abs(RNG.standard_normal((4, 5))) + 0.1
LAB = np.array([1.0, -1.0, 1.0, -1.0])
MT = np.array([[3, 0, -1, 1, 1], [1, 2, 3, 4, 0], [-1, 2, 3, 0, 0], [2, 2, -1, 0, 0]])
REDS = ["mean", "sum", "none"]


def _mg(a, device, dtype, grad):
    t = minigrad.tensor(a, device=device)
    if t.dtype.is_floating_point:
        t = t.to(dtype)
    return t.requires_grad_() if grad else t


def _th(a, dtype, grad):
    t = torch.tensor(a)
    if t.is_floating_point():
        t = t.to(dtype)
    return t.requires_grad_() if grad else t


def check(ft, fm, arrays, grads, device, dtype="float64", node=True):
    """ft on torch tensors against fm on minigrad tensors: value, dtype, shape, grad_fn name and
    the gradients of the inputs flagged in grads."""
    tdt, mdt = getattr(torch, dtype), getattr(minigrad, dtype)
    T = [_th(a, tdt, g) for a, g in zip(arrays, grads)]
    M = [_mg(a, device, mdt, g) for a, g in zip(arrays, grads)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rt, rm = ft(*T), fm(*M)
    assert tuple(rm.shape) == tuple(rt.shape)
    assert str(rm.dtype).split(".")[-1] == str(rt.dtype).split(".")[-1]
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.array(rm.tolist()).reshape(rt.shape), rt.detach().numpy(), **tol)
    if not rt.requires_grad:
        return
    if node:
        assert rm.grad_fn.name() == type(rt.grad_fn).__name__
    go = RNG.standard_normal(tuple(rt.shape))
    rt.backward(torch.tensor(go, dtype=tdt))
    rm.backward(minigrad.tensor(go, device=device).to(mdt))
    for t, m in zip(T, M):
        if t.requires_grad:
            if t.grad is None:  # a p=0 norm: no gradient at all
                assert m.grad is None or not np.any(np.array(m.grad.tolist()))
                continue
            np.testing.assert_allclose(np.array(m.grad.tolist()), t.grad.numpy(), **tol)


def gc(fm, arrays, grads, device):
    M = [_mg(a, device, minigrad.float64, g) for a, g in zip(arrays, grads)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(fm, tuple(M))


DT = ["float32", "float64"]


# ---- losses -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("reduction", REDS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(device, dtype, reduction, log_target):
    def f(F):
        def g(a, b):
            tgt = b if log_target else b.softmax(1)
            return F.kl_div(a, tgt, reduction=reduction, log_target=log_target)
        return g
    check(f(TF), f(MF), [X, Y], [True, True], device, dtype)
    check(lambda a, b: torch.nn.KLDivLoss(reduction=reduction, log_target=log_target)(a, b.softmax(1) if not log_target else b),
          lambda a, b: mnn.KLDivLoss(reduction=reduction, log_target=log_target)(a, b.softmax(1) if not log_target else b),
          [X, Y], [True, False], device, dtype)


def test_kl_div_warning_gradcheck_zero_target(device):
    x = _mg(X, device, minigrad.float64, True)
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        MF.kl_div(x, x.softmax(1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MF.kl_div(x, x.softmax(1), reduction="batchmean")
    t = np.where(P > 0.8, 0.0, P)  # xlogy(0, 0) is 0
    check(lambda a, b: TF.kl_div(a, b, reduction="sum"), lambda a, b: MF.kl_div(a, b, reduction="sum"),
          [X, t], [True, False], device)
    gc(lambda a, b: MF.kl_div(a, b, reduction="batchmean"), [X, P], [True, True], device)
    gc(lambda a, b: MF.kl_div(a, b, reduction="none", log_target=True), [X, Y], [True, True], device)
    # a 0-d batchmean is the sum
    check(lambda a, b: TF.kl_div(a, b, reduction="batchmean"), lambda a, b: MF.kl_div(a, b, reduction="batchmean"),
          [X[0, 0], P[0, 0]], [True, True], device)


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("reduction", REDS)
def test_embedding_and_ranking_losses(device, dtype, reduction):
    check(lambda a, b, c: TF.cosine_embedding_loss(a, b, c, margin=0.2, reduction=reduction),
          lambda a, b, c: MF.cosine_embedding_loss(a, b, c, margin=0.2, reduction=reduction),
          [X, Y, LAB], [True, True, False], device, dtype)
    check(lambda a, b, c: TF.cosine_embedding_loss(a, b, c, reduction=reduction),
          lambda a, b, c: MF.cosine_embedding_loss(a, b, c, reduction=reduction),
          [X[0], Y[0], np.array(-1.0)], [True, True, False], device, dtype)
    check(lambda a, b, c: TF.margin_ranking_loss(a, b, c, margin=0.1, reduction=reduction),
          lambda a, b, c: MF.margin_ranking_loss(a, b, c, margin=0.1, reduction=reduction),
          [X[:, 0], Y[:, 0], LAB], [True, True, True], device, dtype)
    check(lambda a, c: TF.hinge_embedding_loss(a, c, margin=0.5, reduction=reduction),
          lambda a, c: MF.hinge_embedding_loss(a, c, margin=0.5, reduction=reduction),
          [X, np.sign(Y)], [True, False], device, dtype)
    check(lambda a, c: TF.soft_margin_loss(a, c, reduction=reduction),
          lambda a, c: MF.soft_margin_loss(a, c, reduction=reduction),
          [X, np.sign(Y)], [True, False], device, dtype)
    check(lambda a, c, w: TF.multilabel_soft_margin_loss(a, c, weight=w, reduction=reduction),
          lambda a, c, w: MF.multilabel_soft_margin_loss(a, c, weight=w, reduction=reduction),
          [X, (Y > 0) * 1.0, P[0]], [True, True, False], device, dtype)


def test_embedding_losses_gradcheck(device):
    gc(lambda a, b: MF.cosine_embedding_loss(a, b, minigrad.tensor(LAB, device=device), margin=-0.5),
       [X, Y], [True, True], device)
    gc(lambda a, b: MF.margin_ranking_loss(a, b, minigrad.tensor(LAB, device=device), reduction="sum"),
       [X[:, 0], Y[:, 0]], [True, True], device)
    gc(lambda a: MF.hinge_embedding_loss(a, minigrad.tensor(np.sign(Y), device=device)), [X], [True], device)
    gc(lambda a: MF.soft_margin_loss(a, minigrad.tensor(np.sign(Y), device=device), reduction="none"),
       [X], [True], device)
    gc(lambda a, c: MF.multilabel_soft_margin_loss(a, c), [X, P], [True, True], device)


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin(device, dtype, reduction, p):
    t = np.array([0, 4, 2, 2])
    check(lambda a, c, w: TF.multi_margin_loss(a, c, p=p, margin=0.7, weight=w, reduction=reduction),
          lambda a, c, w: MF.multi_margin_loss(a, c, p=p, margin=0.7, weight=w, reduction=reduction),
          [X, t, P[0]], [True, False, False], device, dtype)
    check(lambda a, c: TF.multi_margin_loss(a, c, p=p, reduction=reduction),
          lambda a, c: MF.multi_margin_loss(a, c, p=p, reduction=reduction),
          [X[0], np.array([3])], [True, False], device, dtype)
    check(lambda a, c: torch.nn.MultiMarginLoss(p=p, reduction=reduction)(a, c),
          lambda a, c: mnn.MultiMarginLoss(p=p, reduction=reduction)(a, c),
          [X[0], np.array(1)], [True, False], device, dtype)
    w = minigrad.tensor(P[0], device=device)
    gc(lambda a: MF.multi_margin_loss(a, minigrad.tensor(t, device=device), p=p, weight=w, reduction=reduction),
       [X], [True], device)


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("reduction", REDS)
def test_multilabel_margin(device, dtype, reduction):
    check(lambda a, c: TF.multilabel_margin_loss(a, c, reduction=reduction),
          lambda a, c: MF.multilabel_margin_loss(a, c, reduction=reduction), [X, MT], [True, False], device, dtype)
    check(lambda a, c: TF.multilabel_margin_loss(a, c, reduction=reduction),
          lambda a, c: MF.multilabel_margin_loss(a, c, reduction=reduction),
          [X[1], MT[1]], [True, False], device, dtype)
    gc(lambda a: MF.multilabel_margin_loss(a, minigrad.tensor(MT, device=device), reduction=reduction),
       [X], [True], device)


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize("log_input", [True, False])
@pytest.mark.parametrize("full", [True, False])
def test_poisson_nll(device, dtype, reduction, log_input, full):
    a = X if log_input else P
    check(lambda i, t: TF.poisson_nll_loss(i, t, log_input=log_input, full=full, reduction=reduction),
          lambda i, t: MF.poisson_nll_loss(i, t, log_input=log_input, full=full, reduction=reduction),
          [a, P * 3], [True, True], device, dtype)
    check(lambda i, t: torch.nn.PoissonNLLLoss(log_input, full, eps=0.1, reduction=reduction)(i, t),
          lambda i, t: mnn.PoissonNLLLoss(log_input, full, eps=0.1, reduction=reduction)(i, t),
          [a, P * 3], [True, False], device, dtype)
    gc(lambda i, t: MF.poisson_nll_loss(i, t, log_input=log_input, full=full, reduction=reduction),
       [a, P * 3], [True, True], device)


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("vshape", ["same", "short", "one"])
def test_gaussian_nll(device, dtype, reduction, full, vshape):
    v = {"same": P, "short": P[:, 0], "one": P[:, :1]}[vshape]
    check(lambda i, t, s: TF.gaussian_nll_loss(i, t, s, full=full, eps=0.3, reduction=reduction),
          lambda i, t, s: MF.gaussian_nll_loss(i, t, s, full=full, eps=0.3, reduction=reduction),
          [X, Y, v], [True, True, True], device, dtype)
    check(lambda i, t: torch.nn.GaussianNLLLoss(full=full, reduction=reduction)(i, t, 0.5),
          lambda i, t: mnn.GaussianNLLLoss(full=full, reduction=reduction)(i, t, 0.5),
          [X, Y], [True, False], device, dtype)
    gc(lambda i, t, s: MF.gaussian_nll_loss(i, t, s, full=full, reduction=reduction), [X, Y, v], [True, True, True],
       device)


def test_gaussian_nll_errors(device):
    x, y = minigrad.tensor(X, device=device), minigrad.tensor(Y, device=device)
    with pytest.raises(ValueError, match="var is of incorrect size"):
        MF.gaussian_nll_loss(x, y, minigrad.ones(3, device=device))
    with pytest.raises(ValueError, match="var is of incorrect size"):
        MF.gaussian_nll_loss(x, y, minigrad.ones(2, 2, device=device))
    with pytest.raises(ValueError, match="var has negative entry/entries"):
        MF.gaussian_nll_loss(x, y, -minigrad.ones(4, 5, device=device))
    with pytest.raises(ValueError, match="var has negative entry/entries"):
        MF.gaussian_nll_loss(x, y, -1.0)
    with pytest.raises(ValueError, match="foo is not valid"):
        MF.gaussian_nll_loss(x, y, 1.0, reduction="foo")


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize("p,swap", [(2, False), (1, True), (3, False), (2, True)])
def test_triplet_margin(device, dtype, reduction, p, swap):
    check(lambda a, b, c: TF.triplet_margin_loss(a, b, c, margin=0.8, p=p, swap=swap, reduction=reduction),
          lambda a, b, c: MF.triplet_margin_loss(a, b, c, margin=0.8, p=p, swap=swap, reduction=reduction),
          [X, Y, P], [True, True, True], device, dtype)
    check(lambda a, b, c: torch.nn.TripletMarginLoss(p=p, swap=swap, reduction=reduction)(a, b, c),
          lambda a, b, c: mnn.TripletMarginLoss(p=p, swap=swap, reduction=reduction)(a, b, c),
          [X[0], Y[0], P[0]], [True, True, True], device, dtype)
    gc(lambda a, b, c: MF.triplet_margin_loss(a, b, c, p=p, swap=swap, reduction=reduction), [X, Y, P],
       [True, True, True], device)


def _err(ft, fm, arrays, device):
    T = [torch.tensor(a) for a in arrays]
    M = [minigrad.tensor(a, device=device) for a in arrays]
    with pytest.raises(Exception) as et:
        ft(*T)
    with pytest.raises(type(et.value)) as em:
        fm(*M)
    assert str(em.value) == str(et.value).replace("torch.Size", "minigrad.Size")


def test_loss_errors_match_torch(device):
    t = np.array([0, 4, 2, 2])
    _err(lambda a, c: TF.multi_margin_loss(a, c), lambda a, c: MF.multi_margin_loss(a, c), [X, t[:3]], device)
    _err(lambda a, c: TF.multi_margin_loss(a, c), lambda a, c: MF.multi_margin_loss(a, c), [X, t + 1], device)
    _err(lambda a, c: TF.multi_margin_loss(a, c, p=3), lambda a, c: MF.multi_margin_loss(a, c, p=3), [X, t], device)
    _err(lambda a, c, w: TF.multi_margin_loss(a, c, weight=w), lambda a, c, w: MF.multi_margin_loss(a, c, weight=w),
         [X, t, P[0, :3]], device)
    _err(lambda a, c: TF.multi_margin_loss(a, c), lambda a, c: MF.multi_margin_loss(a, c),
         [np.zeros((2, 0)), t[:2]], device)
    _err(lambda a, c: TF.multilabel_margin_loss(a, c), lambda a, c: MF.multilabel_margin_loss(a, c),
         [X, MT[:2]], device)
    _err(lambda a, b, c: TF.cosine_embedding_loss(a, b, c), lambda a, b, c: MF.cosine_embedding_loss(a, b, c),
         [X, Y, np.ones((4, 1))], device)
    _err(lambda a, b, c: TF.cosine_embedding_loss(a, b, c), lambda a, b, c: MF.cosine_embedding_loss(a, b, c),
         [X[0], Y[0], LAB], device)
    _err(lambda a, b, c: TF.cosine_embedding_loss(a, b, c), lambda a, b, c: MF.cosine_embedding_loss(a, b, c),
         [X, Y, np.array(1.0)], device)
    _err(lambda a, b, c: TF.triplet_margin_loss(a, b, c), lambda a, b, c: MF.triplet_margin_loss(a, b, c),
         [X, Y[0], P], device)
    _err(lambda a, b, c: TF.triplet_margin_loss(a, b, c, margin=0), lambda a, b, c: MF.triplet_margin_loss(a, b, c, margin=0),
         [X, Y, P], device)
    _err(lambda a, b, c: TF.margin_ranking_loss(a, b, c), lambda a, b, c: MF.margin_ranking_loss(a, b, c),
         [X, Y, LAB], device)
    for fn in ("kl_div", "soft_margin_loss", "hinge_embedding_loss", "poisson_nll_loss"):
        _err(lambda a, b: getattr(TF, fn)(a, b, reduction="foo"), lambda a, b: getattr(MF, fn)(a, b, reduction="foo"),
             [X, Y], device)
    _err(lambda a, b: TF.multilabel_soft_margin_loss(a, b, reduction="foo"),
         lambda a, b: MF.multilabel_soft_margin_loss(a, b, reduction="foo"), [X, Y], device)
    y = minigrad.tensor(Y, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'target'"):
        MF.soft_margin_loss(minigrad.tensor(X, device=device), y)


@pytest.mark.parametrize("name,args", [("soft_margin_loss", 2), ("hinge_embedding_loss", 2), ("kl_div", 2),
                                       ("margin_ranking_loss", 3), ("cosine_embedding_loss", 3),
                                       ("triplet_margin_loss", 3), ("multilabel_soft_margin_loss", 2)])
@pytest.mark.parametrize("size_average,reduce", [(False, None), (None, False), (True, True)])
def test_legacy_reduction(device, name, args, size_average, reduce):
    arrays = {2: [X, np.sign(Y)], 3: [X, Y, LAB if name != "triplet_margin_loss" else P]}[args]
    if name == "margin_ranking_loss":
        arrays = [X[:, 0], Y[:, 0], LAB]
    if name == "kl_div":
        arrays = [X, P]
    T = [torch.tensor(a) for a in arrays]
    M = [minigrad.tensor(a, device=device) for a in arrays]
    with pytest.warns(UserWarning) as wt:
        rt = getattr(TF, name)(*T, size_average=size_average, reduce=reduce)
    with pytest.warns(UserWarning) as wm:
        rm = getattr(MF, name)(*M, size_average=size_average, reduce=reduce)
    assert [str(w.message) for w in wm] == [str(w.message) for w in wt]
    np.testing.assert_allclose(np.array(rm.tolist()), rt.numpy(), rtol=1e-10)


def test_loss_module_reprs_and_attributes():
    pairs = [(torch.nn.KLDivLoss(log_target=True), mnn.KLDivLoss(log_target=True)),
             (torch.nn.CosineEmbeddingLoss(0.5), mnn.CosineEmbeddingLoss(0.5)),
             (torch.nn.MarginRankingLoss(), mnn.MarginRankingLoss()),
             (torch.nn.HingeEmbeddingLoss(2.0), mnn.HingeEmbeddingLoss(2.0)),
             (torch.nn.SoftMarginLoss(), mnn.SoftMarginLoss()),
             (torch.nn.MultiLabelSoftMarginLoss(), mnn.MultiLabelSoftMarginLoss()),
             (torch.nn.MultiLabelMarginLoss(reduction="sum"), mnn.MultiLabelMarginLoss(reduction="sum")),
             (torch.nn.MultiMarginLoss(p=2), mnn.MultiMarginLoss(p=2)),
             (torch.nn.PoissonNLLLoss(full=True), mnn.PoissonNLLLoss(full=True)),
             (torch.nn.GaussianNLLLoss(eps=0.1), mnn.GaussianNLLLoss(eps=0.1)),
             (torch.nn.TripletMarginLoss(swap=True), mnn.TripletMarginLoss(swap=True)),
             (torch.nn.CosineSimilarity(dim=0), mnn.CosineSimilarity(dim=0)),
             (torch.nn.PairwiseDistance(p=1.0), mnn.PairwiseDistance(p=1.0))]
    for t, m in pairs:
        assert repr(m) == repr(t)
        for k, v in vars(t).items():
            if not k.startswith("_") and k != "training":
                assert getattr(m, k) == v, (type(t).__name__, k)
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        mnn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match="expected margin to be greater than 0, got 0 instead"):
        mnn.TripletMarginLoss(margin=0)
    with pytest.warns(UserWarning, match="reduction='sum'"):
        assert mnn.SoftMarginLoss(size_average=False).reduction == "sum"


# ---- distances --------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DT)
def test_normalize_and_cosine_similarity(device, dtype):
    check(lambda a: TF.normalize(a), lambda a: MF.normalize(a), [X], [True], device, dtype)
    check(lambda a: TF.normalize(a, 1, 0), lambda a: MF.normalize(a, 1, 0), [X], [True], device, dtype)
    check(lambda a: TF.normalize(a, dim=-1, eps=10.0), lambda a: MF.normalize(a, dim=-1, eps=10.0),
          [X], [True], device, dtype)
    check(lambda a, b: TF.cosine_similarity(a, b), lambda a, b: MF.cosine_similarity(a, b), [X, Y], [True, True],
          device, dtype)
    check(lambda a, b: torch.cosine_similarity(a, b, dim=-1), lambda a, b: minigrad.cosine_similarity(a, b, dim=-1),
          [X, Y[0]], [True, True], device, dtype)
    check(lambda a, b: torch.nn.CosineSimilarity(0, eps=0.5)(a, b), lambda a, b: mnn.CosineSimilarity(0, eps=0.5)(a, b),
          [X * 0.1, Y], [True, True], device, dtype)
    gc(lambda a: MF.normalize(a, 3.0, 0), [X], [True], device)
    gc(lambda a, b: MF.cosine_similarity(a, b), [X, Y], [True, True], device)


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("p", [0, 1, 2, 3, 0.5, math.inf])
def test_pairwise_cdist_dist(device, dtype, p):
    check(lambda a, b: TF.pairwise_distance(a, b, p=p), lambda a, b: MF.pairwise_distance(a, b, p=p),
          [X, Y], [True, True], device, dtype)
    check(lambda a, b: torch.pairwise_distance(a, b, p, 1e-3, True),
          lambda a, b: minigrad.pairwise_distance(a, b, p, 1e-3, True), [X, Y[:1]], [True, True], device, dtype)
    check(lambda a, b: torch.nn.PairwiseDistance(p)(a, b), lambda a, b: mnn.PairwiseDistance(p)(a, b),
          [X[0], Y[0]], [True, True], device, dtype)
    x1, x2 = X.reshape(2, 2, 5), np.concatenate([Y[:3], X[:1]]).reshape(1, 4, 5)  # a zero distance in there
    check(lambda a, b: torch.cdist(a, b, p=p), lambda a, b: minigrad.cdist(a, b, p=p), [x1, x2], [True, True],
          device, dtype)
    check(lambda a, b: torch.cdist(a, b, p), lambda a, b: minigrad.cdist(a, b, p), [X, Y[:2]], [True, True],
          device, dtype)
    check(lambda a, b: torch.dist(a, b, p=p), lambda a, b: minigrad.dist(a, b, p=p), [X, Y[0]], [p != 0, p != 0],
          device, dtype)


@pytest.mark.parametrize("p", [1, 2, 3, math.inf])
def test_distances_gradcheck(device, p):
    gc(lambda a, b: MF.pairwise_distance(a, b, p), [X, Y], [True, True], device)
    gc(lambda a, b: minigrad.cdist(a, b, p), [X.reshape(2, 2, 5), Y.reshape(2, 2, 5)], [True, True], device)
    gc(lambda a, b: minigrad.dist(a, b, p), [X, Y], [True, True], device)


def test_distance_errors(device):
    _err(lambda a, b: torch.cdist(a, b), lambda a, b: minigrad.cdist(a, b), [X[0], Y], device)
    _err(lambda a, b: torch.cdist(a, b), lambda a, b: minigrad.cdist(a, b), [X, Y[:, :3]], device)
    _err(lambda a, b: torch.cdist(a, b, -1.0), lambda a, b: minigrad.cdist(a, b, -1.0), [X, Y], device)
    _err(lambda a, b: torch.cdist(a, b), lambda a, b: minigrad.cdist(a, b), [MT, MT], device)
    _err(lambda a, b: torch.cdist(a, b), lambda a, b: minigrad.cdist(a, b),
         [X.reshape(2, 2, 5), P.reshape(1, 4, 5)[:, :, :].repeat(3, 0)], device)


# ---- padding ----------------------------------------------------------------------------------------

X4 = RNG.standard_normal((2, 3, 4, 5))


@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("mode,pads", [("constant", (1, 2)), ("constant", (1, -2, -1, 2, 1, 0)),
                                       ("constant", (0, 0)), ("reflect", (2, 1, 3, 0)), ("reflect", (-1, 3, 1, 1)),
                                       ("replicate", (2, 1, 3, 0)), ("replicate", (-2, 4, 0, 1)),
                                       ("circular", (2, 1, 3, 0)), ("circular", (5, 5, 1, -1))])
def test_pad(device, dtype, mode, pads):
    check(lambda a: TF.pad(a, pads, mode=mode), lambda a: MF.pad(a, pads, mode=mode), [X4], [True], device, dtype)
    if mode != "constant":
        check(lambda a: TF.pad(a, pads[:2], mode=mode), lambda a: MF.pad(a, pads[:2], mode=mode),
              [X4[0]], [True], device, dtype)
        check(lambda a: TF.pad(a, pads[:2], mode=mode), lambda a: MF.pad(a, pads[:2], mode=mode),
              [X4[0, 0]], [True], device, dtype)
        gc(lambda a: MF.pad(a, pads, mode=mode), [X4[0]], [True], device)
        gc(lambda a: MF.pad(a, pads + (1, 1), mode=mode), [X4[:1]], [True], device)
    else:
        gc(lambda a: MF.pad(a, pads, value=2.0), [X4], [True], device)


def test_pad_values_and_dtypes(device):
    check(lambda a: TF.pad(a, (1, 1, 2, 2), value=3.5), lambda a: MF.pad(a, (1, 1, 2, 2), value=3.5),
          [X4], [True], device)
    check(lambda a: TF.pad(a, [2, 1], value=2.5), lambda a: MF.pad(a, [2, 1], value=2.5),
          [np.arange(6).reshape(2, 3)], [False], device)
    check(lambda a: TF.pad(a, (1, 1), value=1), lambda a: MF.pad(a, (1, 1), value=1),
          [np.array([True, False])], [False], device)
    check(lambda a: TF.pad(a, (1, 2), mode="reflect"), lambda a: MF.pad(a, (1, 2), mode="reflect"),
          [np.arange(12).reshape(1, 3, 4)], [False], device)
    check(lambda a: TF.pad(a, (1, 2), mode="replicate"), lambda a: MF.pad(a, (1, 2), mode="replicate"),
          [np.zeros((0, 3, 4))], [False], device)
    check(lambda a: TF.pad(a, (1, 1)), lambda a: MF.pad(a, (1, 1)), [np.zeros((3, 0))], [False], device)
    check(lambda a: TF.pad(a, (1, 1), mode="reflect", value=0.0),
          lambda a: MF.pad(a, (1, 1), mode="reflect", value=0.0), [X4[0]], [True], device)
    check(lambda a: TF.pad(a, (-1, -1, 1, 1)), lambda a: MF.pad(a, (-1, -1, 1, 1)), [X4], [True], device)


@pytest.mark.parametrize("args", [
    ((2, 3, 4), (1,), "constant"), ((2, 3, 4), (1,) * 8, "constant"), ((2, 3, 4), (-3, -2), "constant"),
    ((2, 3, 4), (4, 1), "reflect"), ((2, 3, 4), (1, 4), "reflect"), ((2, 3, 4), (1, 1, 3, 1), "reflect"),
    ((1, 2, 3, 4), (1, 1, 1, 1, 2, 1), "reflect"), ((2, 3, 4), (5, 1), "circular"), ((4,), (1, 1), "reflect"),
    ((2, 3, 4, 5), (1, 1), "replicate"), ((2, 3), (1, 1, 1, 1), "circular"), ((1, 0, 3), (1, 1), "reflect"),
    ((1, 2, 0), (1, 1), "replicate"), ((1, 2, 0), (1, 1), "circular"), ((2, 3, 4), (1, 1), "foo"),
    ((2, 3, 4), (-3, -2), "circular")])
def test_pad_errors(device, args):
    shape, pads, mode = args
    a = np.zeros(shape)
    _err(lambda t: TF.pad(t, pads, mode=mode), lambda t: MF.pad(t, pads, mode=mode), [a], device)


def test_pad_argument_errors(device):
    a = np.zeros((2, 3, 4))
    _err(lambda t: TF.pad(t, (1, 1), mode="reflect", value=1.0),
         lambda t: MF.pad(t, (1, 1), mode="reflect", value=1.0), [a], device)
    _err(lambda t: TF.pad(t, [1.5, 1]), lambda t: MF.pad(t, [1.5, 1]), [a], device)
    _err(lambda t: TF.pad(t, 3), lambda t: MF.pad(t, 3), [a], device)
    _err(lambda t: TF.pad(t, (1, 1), value="a"), lambda t: MF.pad(t, (1, 1), value="a"), [a], device)


@pytest.mark.parametrize("name,arg,shape", [
    ("ZeroPad1d", (2,), (2, 3, 4)), ("ZeroPad2d", ((1, 2, 3, 4),), (2, 3, 4)), ("ConstantPad1d", (2, 3.5), (3, 4)),
    ("ConstantPad2d", (2, 3), (1, 3, 4)), ("ReflectionPad1d", (2,), (2, 3, 4)),
    ("ReflectionPad2d", ((1, 0, 2, 3),), (1, 2, 4, 5)), ("ReplicationPad1d", (1,), (3, 4)),
    ("ReplicationPad2d", (1,), (2, 3, 4)), ("CircularPad1d", (1,), (2, 3, 4)), ("CircularPad2d", (2,), (2, 3, 4))])
def test_pad_modules(device, name, arg, shape):
    tm, mm = getattr(torch.nn, name)(*arg), getattr(mnn, name)(*arg)
    assert repr(mm) == repr(tm)
    assert mm.padding == tm.padding
    a = RNG.standard_normal(shape)
    check(tm, mm, [a], [True], device)


def test_pad_module_errors(device):
    _err(lambda t: torch.nn.CircularPad1d(2)(t), lambda t: mnn.CircularPad1d(2)(t), [np.zeros((3, 4, 5, 6))], device)
    _err(lambda t: torch.nn.CircularPad2d(2)(t), lambda t: mnn.CircularPad2d(2)(t), [np.zeros((3, 4))], device)
    _err(lambda t: torch.nn.ReflectionPad1d(2)(t), lambda t: mnn.ReflectionPad1d(2)(t),
         [np.zeros((2, 3, 4, 5))], device)


def test_pad_double_backward(device):
    x = minigrad.tensor(X4[0], device=device, requires_grad=True)
    tx = torch.tensor(X4[0], requires_grad=True)
    for mod, mode in ((minigrad, "reflect"), (minigrad, "replicate"), (minigrad, "constant")):
        y = (MF.pad(x, (2, 1, 1, 0), mode=mode) ** 2).sum()
        g, = minigrad.autograd.grad(y, x, create_graph=True)
        gg, = minigrad.autograd.grad((g ** 2).sum(), x)
        ty = (TF.pad(tx, (2, 1, 1, 0), mode=mode) ** 2).sum()
        tg, = torch.autograd.grad(ty, tx, create_graph=True)
        tgg, = torch.autograd.grad((tg ** 2).sum(), tx)
        np.testing.assert_allclose(np.array(gg.tolist()), tgg.numpy(), rtol=1e-10)
