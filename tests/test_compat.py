"""Idioms of tutorial and course programs that must run unchanged under `import minigrad as torch`.

Each test is a small program written once against the PyTorch API and run with minigrad (and,
when it can be imported, with torch, whose results it must equal); the checks that need no torch
compare with NumPy or with values worked out by hand.
"""
import numpy as np
import pytest

import minigrad
import minigrad.functional as mf
from minigrad.autograd import gradcheck, gradgradcheck


def arr(t):
    return t.detach().cpu().numpy()


def run_both(program, *args):
    """program(torch, *args) under minigrad, and under torch (on the CPU) when importable:
    (mine, theirs)."""
    mine = program(minigrad, *args)
    try:
        import torch
    except ImportError:
        return mine, None
    return mine, program(torch, *("cpu" if a == "cuda" else a for a in args))


def same(mine, theirs, rtol=1e-5, atol=1e-6):
    """Equal nested results: tensors by value, shape and dtype name; floats to rounding."""
    if theirs is None:
        return
    if hasattr(mine, "detach"):
        assert tuple(mine.shape) == tuple(theirs.shape)
        assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        np.testing.assert_allclose(arr(mine), theirs.detach().numpy(), rtol=rtol, atol=atol)
    elif isinstance(mine, dict):
        assert list(mine) == list(theirs)
        for k in mine:
            same(mine[k], theirs[k], rtol, atol)
    elif isinstance(mine, (list, tuple)):
        assert len(mine) == len(theirs)
        for m, t in zip(mine, theirs):
            same(m, t, rtol, atol)
    elif isinstance(mine, float):
        assert mine == pytest.approx(theirs, rel=rtol, abs=atol)
    elif isinstance(mine, str):
        assert mine.replace("minigrad", "torch") == theirs
    else:
        assert mine == theirs


# --- torch.max(outputs, 1) --------------------------------------------------------------------

def _max_program(torch):
    outputs = torch.tensor([[0.1, 2.0, -1.0], [3.0, 0.5, 0.2]])
    labels = torch.tensor([1, 2])
    result = torch.max(outputs, 1)
    _, predicted = result
    correct = (predicted == labels).sum().item()
    return [repr(result), str(torch.min(outputs, dim=0)), repr(outputs.max(dim=1, keepdim=True)),
            predicted, correct, type(result).__name__, list(result._fields)
            if hasattr(result, "_fields") else ["values", "indices"]]


def test_max_with_dim_prints_as_torch_return_type():
    mine, theirs = run_both(_max_program)
    same(mine, theirs)
    assert mine[0] == ("minigrad.return_types.max(\nvalues=tensor([2., 3.]),\nindices=tensor([1, 0]))")
    assert mine[4] == 1 and mine[5] == "max" and mine[6] == ["values", "indices"]
    values, indices = minigrad.max(minigrad.tensor([[1.0, 5.0]]), 1)
    assert values.tolist() == [5.0] and indices.tolist() == [1]
    assert isinstance(minigrad.tensor([1.0]).max(0), tuple)


# --- indexing with range, NumPy arrays and empty lists ------------------------------------------

def _d2l_cross_entropy(torch, device):
    y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]], device=device, requires_grad=True)
    y = torch.tensor([0, 2], device=device)
    loss = -torch.log(y_hat[range(len(y_hat)), y])
    loss.sum().backward()
    return [loss, y_hat.grad]


def test_index_with_range_as_in_d2l_cross_entropy(device):
    mine, theirs = run_both(_d2l_cross_entropy, device)
    same(mine, theirs)
    loss, grad = mine
    np.testing.assert_allclose(arr(loss), -np.log([0.1, 0.5]), rtol=1e-6)
    np.testing.assert_allclose(arr(grad), [[-10, 0, 0], [0, 0, -2]], rtol=1e-6)


def _numpy_index_program(torch, device):
    x = torch.arange(12.0, device=device).view(3, 4)
    labels = np.array([0, 1, 0])
    picked = x[np.array([2, 0])]
    masked = x[labels == 0]
    empty = x[[]]
    col = x[:, np.int64(1)].clone()
    x[range(2), [3, 2]] = -1.0
    x[np.array([False, False, True])] = 0.0
    return [picked, masked, empty, col, x, x[range(0)]]


def test_index_with_numpy_arrays_ranges_and_empty_lists(device):
    mine, theirs = run_both(_numpy_index_program, device)
    same(mine, theirs)
    picked, masked, empty, col, x, none = mine
    ref = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(arr(picked), ref[[2, 0]])
    np.testing.assert_array_equal(arr(masked), ref[[0, 2]])
    assert tuple(empty.shape) == (0, 4) and tuple(none.shape) == (0, 4)
    np.testing.assert_array_equal(arr(col), [1.0, 5.0, 9.0])
    ref[[0, 1], [3, 2]] = -1.0
    ref[2] = 0.0
    np.testing.assert_array_equal(arr(x), ref)
    with pytest.raises(IndexError, match="tensors used as indices must be long"):
        minigrad.ones(3)[np.array([0.5])]


def _int_and_advanced_index_program(torch, device):
    # torch applies the integers first (basic selections), so x[0, :, [1, 2]] keeps the indexed
    # dim in place: (3, 2); NumPy's rule would move it to the front: (2, 3)
    x = torch.arange(120.0, device=device).view(2, 3, 4, 5).requires_grad_()
    reads = [x[0, :, [1, 2]], x[1, :, torch.tensor([0, 3], device=device)], x[[1, 0], 2, :, [2, 3]],
             x[..., [0, 1], 2], x[0, None, [1, 2], 1], x[torch.tensor(1, device=device), :, [1, 2], 0],
             x[0, 1, torch.tensor([True, False, True, True], device=device)]]
    (reads[0] * torch.arange(30.0, device=device).view(3, 2, 5)).sum().backward()
    y = torch.zeros(2, 3, 4, device=device)
    y[0, :, [1, 2]] = torch.arange(6.0, device=device).reshape(3, 2)
    y[1, [0, 2], 3] = -1.0
    return reads + [x.grad, y]


def test_integer_and_advanced_index_in_torch_order(device):
    mine, theirs = run_both(_int_and_advanced_index_program, device)
    same(mine, theirs)
    assert tuple(mine[0].shape) == (3, 2, 5) and tuple(mine[2].shape) == (2, 4)
    ref = np.zeros((2, 3, 4))
    ref[0][:, [1, 2]] = np.arange(6.0).reshape(3, 2)
    ref[1][[0, 2], 3] = -1.0
    np.testing.assert_array_equal(arr(mine[-1]), ref)


# --- NumPy's axis= and keepdims= ----------------------------------------------------------------

def _axis_program(torch):
    X = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdims=True)
    return [X.sum(axis=0), X.sum(axis=[0, 1]), X.mean(axis=1, keepdim=True), X.argmax(axis=1),
            X.max(axis=0).values, X.min(axis=1, keepdims=True).indices, X.amax(axis=0), X.std(axis=0),
            X.var(axis=1, keepdims=True, unbiased=False), X.softmax(axis=1), X.log_softmax(axis=0),
            X_exp / partition, torch.sum(X, axis=1), torch.mean(X, axis=0, keepdims=True),
            torch.argmax(X, axis=0), torch.max(X, axis=1)[1], torch.softmax(X, axis=0),
            torch.cat((X, X), axis=1), torch.stack([X, X], axis=2)]


def test_binary_classifier_accuracy_with_round(device):
    # the binary-classification tutorials' accuracy: round(sigmoid(logits)) against 0/1 labels
    def program(torch, device):
        logits = torch.tensor([[-2.0], [0.1], [1.5], [-0.2], [0.0]], device=device, requires_grad=True)
        labels = torch.tensor([[0.0], [1.0], [0.0], [0.0], [1.0]], device=device)
        y_pred = torch.round(torch.sigmoid(logits))
        acc = (y_pred == labels).sum().float() / labels.shape[0]
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
        loss.backward()
        return y_pred.flatten().cpu(), acc.item(), logits.grad.flatten().cpu(), y_pred.requires_grad
    mine, theirs = run_both(program, device)
    assert mine[0].tolist() == [0.0, 1.0, 1.0, 0.0, 0.0] and mine[1] == pytest.approx(0.6)
    assert mine[3] is True  # rounding keeps the graph (its gradient is zero)
    same(mine, theirs)


def test_reductions_take_numpy_axis_and_keepdims():
    mine, theirs = run_both(_axis_program)
    same(mine, theirs)
    ref = np.array([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    np.testing.assert_allclose(arr(mine[0]), ref.sum(axis=0))
    np.testing.assert_allclose(arr(mine[2]), ref.mean(axis=1, keepdims=True))
    np.testing.assert_array_equal(arr(mine[3]), [1, 2])
    np.testing.assert_allclose(arr(mine[11]), np.exp(ref) / np.exp(ref).sum(1, keepdims=True), rtol=1e-6)
    assert tuple(mine[17].shape) == (2, 6) and tuple(mine[18].shape) == (2, 3, 2)


def test_dim_and_axis_together_are_an_error_as_in_torch():
    x = minigrad.ones(2, 3)
    with pytest.raises(TypeError, match="sum\\(\\) got an unexpected keyword argument 'axis'"):
        x.sum(0, axis=1)
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'keepdims'"):
        x.mean(0, keepdim=True, keepdims=True)
    with pytest.raises(TypeError, match="cat\\(\\) got an unexpected keyword argument 'axis'"):
        minigrad.cat([x, x], dim=1, axis=1)


# --- as_tensor shares a NumPy array's memory --------------------------------------------------

def test_as_tensor_shares_memory_with_a_numpy_array_like_torch():
    def program(torch):
        a = np.array([1.0, 2.0], dtype=np.float32)
        shared = torch.as_tensor(a)
        copied = torch.as_tensor(a, dtype=torch.float64)
        a[0] = 10.0
        w = torch.ones(2, requires_grad=True)
        return [shared, copied, torch.as_tensor(w) is w, torch.as_tensor(w, dtype=torch.float64).requires_grad]

    mine, theirs = run_both(program)
    same(mine, theirs)
    assert arr(mine[0]).tolist() == [10.0, 2.0] and arr(mine[1]).tolist() == [1.0, 2.0]
    assert mine[2] is True and mine[3] is True


# --- torch.where(condition), nonzero ------------------------------------------------------------

def _nonzero_program(torch, device):
    t = torch.tensor([[0.0, 2.0, 0.0], [4.0, 0.0, 6.0]], device=device)
    rows, cols = torch.where(t > 0)
    return [rows, cols, t.nonzero(), (t > 0).nonzero(as_tuple=True)[1], torch.where(t > 1, t, 0.0),
            torch.tensor(True).nonzero(), torch.tensor(False).nonzero(), torch.where(torch.tensor(3))[0],
            torch.zeros(0, 2).nonzero()]


def test_where_with_only_a_condition_gives_the_nonzero_indices(device):
    mine, theirs = run_both(_nonzero_program, device)
    same(mine, theirs)
    assert mine[0].tolist() == [0, 1, 1] and mine[1].tolist() == [1, 0, 2]
    assert mine[2].tolist() == [[0, 1], [1, 0], [1, 2]] and mine[2].dtype == minigrad.int64
    assert tuple(mine[5].shape) == (1, 0) and tuple(mine[6].shape) == (0, 0)
    assert mine[7].tolist() == [0] and tuple(mine[8].shape) == (0, 2)
    with pytest.raises(TypeError, match="where\\(\\) received an invalid combination of arguments"):
        minigrad.where(minigrad.tensor([True]), minigrad.ones(1))


# --- all / any / equal / allclose ---------------------------------------------------------------

def _all_any_program(torch, device):
    x = torch.tensor([[1.0, -2.0, 3.0], [0.0, 5.0, -6.0]], device=device)
    mask = x < 0
    return [x.all(), (x > -10).all(), mask.any(), mask.any(dim=1), (x != 0).all(0, keepdim=True),
            torch.tensor([], device=device).all(), torch.tensor([], device=device).any(),
            torch.tensor([1, 0], device=device).any(), x.equal(x.clone()), x.equal(x[:1]),
            x.equal(x.double()), x.allclose(x + 1e-9), x.allclose(x + 1e-3),
            x.isclose(x + torch.tensor([[0.0, 1.0, 0.0]], device=device)),
            torch.tensor([float("inf"), float("nan")]).allclose(torch.tensor([float("inf"), float("nan")])),
            torch.tensor([float("nan")]).allclose(torch.tensor([float("nan")]), equal_nan=True)]


def test_all_any_equal_allclose(device):
    mine, theirs = run_both(_all_any_program, device)
    same(mine, theirs)
    assert [bool(v) for v in mine[:3]] == [False, True, True]
    assert mine[3].tolist() == [True, True] and mine[3].dtype == minigrad.bool
    assert mine[4].tolist() == [[False, True, True]]
    assert bool(mine[5]) is True and bool(mine[6]) is False and bool(mine[7]) is True
    assert mine[8:13] == [True, False, True, True, False]
    assert mine[13].tolist() == [[True, False, True], [True, False, True]]
    assert mine[14:] == [False, True]
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        minigrad.ones(2).allclose(minigrad.ones(2).double())


def test_function_forms_of_the_new_ops():
    x = minigrad.tensor([[3.0, -4.0], [0.0, 1.0]])
    assert mf.equal(x, x.clone()) and not mf.equal(x, x * 2)
    assert mf.allclose(x, x + 1e-9) and mf.isclose(x, x).all()
    assert bool(mf.all(x != 9)) and mf.any(x, dim=1).tolist() == [True, True]
    assert mf.norm(x, dim=1).tolist() == [5.0, 1.0]
    assert mf.nonzero(x).tolist() == [[0, 0], [0, 1], [1, 1]]
    assert mf.masked_fill(x, x < 0, 0.0).tolist() == [[3.0, 0.0], [0.0, 1.0]]
    assert mf.dot(minigrad.tensor([1, 2]), minigrad.tensor([3, 4])).item() == 11
    with pytest.raises(TypeError, match="equal\\(\\): argument 'other' \\(position 2\\) must be Tensor, not list"):
        mf.equal(x, [1, 2])


# --- norm: clipping gradients by hand ---------------------------------------------------------

def _clip_program(torch):
    w1 = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    w2 = torch.tensor([1.5, -0.5], requires_grad=True)
    x = torch.tensor([[1.0, 2.0], [3.0, -1.0]])
    loss = ((x @ w1) @ w2).pow(2).sum()
    loss.backward()
    params = [w1, w2]
    total_norm = torch.stack([p.grad.detach().norm(2) for p in params]).norm(2)
    by_hand = sum(p.grad.data.norm(2).item() ** 2 for p in params) ** 0.5
    clip_coef = 1.0 / (total_norm + 1e-6)
    if clip_coef < 1:
        for p in params:
            p.grad.detach().mul_(clip_coef)
    return [total_norm, by_hand, w1.grad, w2.grad, sum(p.grad.norm().item() ** 2 for p in params) ** 0.5]


def test_gradient_clipping_by_hand_with_norm():
    mine, theirs = run_both(_clip_program)
    same(mine, theirs, rtol=1e-5)
    assert mine[0].item() == pytest.approx(mine[1], rel=1e-6)
    assert mine[4] == pytest.approx(1.0, rel=1e-5)


def _norm_program(torch, device):
    x = torch.tensor([[3.0, -4.0, 0.0], [0.0, 0.0, 0.0]], device=device, requires_grad=True)
    outs = [x.norm(), x.norm(dim=1), x.norm(p=1), x.norm(p=float("inf"), dim=1, keepdim=True),
            x.norm(3, dim=0), x.norm(p="fro", dim=(0, 1))]
    grads = []
    for o in outs:
        (g,) = torch.autograd.grad(o.sum(), x)
        grads.append(g)
    return [o.detach() for o in outs] + grads + [outs[1].grad_fn.name()]


def test_norm_values_and_gradients_including_a_zero_row(device):
    mine, theirs = run_both(_norm_program, device)
    same(mine, theirs)
    assert arr(mine[1]).tolist() == [5.0, 0.0] and mine[2].item() == 7.0
    # d|x|/dx = x/|x|, and 0 for a zero vector (not nan)
    np.testing.assert_allclose(arr(mine[7]), [[0.6, -0.8, 0.0], [0.0, 0.0, 0.0]], rtol=1e-6)
    assert mine[-1] == "LinalgVectorNormBackward0"
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        minigrad.tensor([1, 2]).norm()


@pytest.mark.parametrize("p, dim", [(2, None), (2, 1), (1, 0), (3, 1), (float("inf"), 1)])
def test_norm_gradcheck(p, dim):
    minigrad.manual_seed(0)
    x = minigrad.randn(3, 4, dtype=minigrad.float64, requires_grad=True)
    assert gradcheck(lambda t: t.norm(p, dim), (x,))
    if p != float("inf"):
        assert gradgradcheck(lambda t: t.norm(p, dim), (x,))


# --- masked_fill, dot -------------------------------------------------------------------------

def _masked_fill_program(torch, device):
    scores = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device, requires_grad=True)
    mask = torch.tensor([[False, True], [False, False]], device=device)
    att = scores.masked_fill(mask, -1e9).softmax(dim=-1)
    att.sum().backward()
    v = torch.tensor(3.0, device=device, requires_grad=True)
    t = torch.ones(2, 2, device=device, requires_grad=True)
    filled = t.masked_fill(torch.tensor([True, False], device=device), v)
    filled.sum().backward()
    ints = torch.tensor([1, 2], device=device).masked_fill(torch.tensor([True, False], device=device), 2.7)
    buf = torch.zeros(3, device=device)
    buf.masked_fill_(torch.tensor([True, False, True], device=device), 5.0)
    return [att, scores.grad, filled, t.grad, v.grad, ints, buf, filled.grad_fn.name(),
            scores.masked_fill(mask, 0.0).grad_fn.name()]


def test_masked_fill(device):
    mine, theirs = run_both(_masked_fill_program, device)
    same(mine, theirs)
    assert arr(mine[0])[0].tolist() == [1.0, 0.0]
    assert arr(mine[2]).tolist() == [[3.0, 1.0], [3.0, 1.0]] and arr(mine[3]).tolist() == [[0.0, 1.0], [0.0, 1.0]]
    assert mine[4].item() == 2.0 and mine[5].tolist() == [2, 2] and mine[5].dtype == minigrad.int64
    assert arr(mine[6]).tolist() == [5.0, 0.0, 5.0]
    assert mine[7:] == ["MaskedFillBackward1", "MaskedFillBackward0"]
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks"):
        minigrad.ones(2).masked_fill(minigrad.tensor([1, 0]), 0.0)
    with pytest.raises(RuntimeError, match="only supports a 0-dimensional value tensor"):
        minigrad.ones(2).masked_fill(minigrad.tensor([True, False]), minigrad.ones(2))


def test_dot():
    def program(torch):
        x = torch.arange(4.0, requires_grad=True)
        y = 2 * torch.dot(x, x) if hasattr(torch, "dot") else 2 * x.dot(x)
        y.backward()
        return [y, x.grad, x.dot(torch.ones(4)), y.grad_fn.next_functions[0][0].name()
                if hasattr(y.grad_fn, "next_functions") else "DotBackward0"]

    mine, theirs = run_both(program)
    same(mine[:3], theirs[:3] if theirs else None)
    assert mine[0].item() == 28.0 and arr(mine[1]).tolist() == [0.0, 4.0, 8.0, 12.0]
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 1D tensors"):
        minigrad.ones(2, 2).dot(minigrad.ones(2))
    with pytest.raises(RuntimeError, match="expected both vectors to have same dtype, but found Float and Double"):
        minigrad.ones(2).dot(minigrad.ones(2).double())


# --- a whole program: d2l's softmax regression from scratch ------------------------------------

def _softmax_regression(torch):
    rng = np.random.default_rng(3)
    X = torch.tensor(rng.normal(size=(60, 4)).astype(np.float32))
    y = torch.tensor(rng.integers(0, 3, 60))
    W = torch.tensor(rng.normal(0, 0.01, (4, 3)).astype(np.float32), requires_grad=True)
    b = torch.zeros(3, requires_grad=True)

    def net(X):
        X_exp = torch.exp(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)
        return X_exp / X_exp.sum(1, keepdims=True)

    def cross_entropy(y_hat, y):
        return -torch.log(y_hat[range(len(y_hat)), y])

    def accuracy(y_hat, y):
        cmp = y_hat.argmax(axis=1).type(y.dtype) == y
        return float(cmp.type(y.dtype).sum())

    history = []
    for epoch in range(5):
        for i in range(0, 60, 20):
            loss = cross_entropy(net(X[i:i + 20]), y[i:i + 20])
            loss.sum().backward()
            with torch.no_grad():
                for param in [W, b]:
                    param -= 0.1 * param.grad / 20
                    param.grad.zero_()
        with torch.no_grad():
            history.append((float(cross_entropy(net(X), y).mean()), accuracy(net(X), y) / len(y)))
    return history


def test_d2l_softmax_regression_from_scratch():
    mine, theirs = run_both(_softmax_regression)
    same(mine, theirs, rtol=1e-5)
    losses = [loss for loss, _ in mine]
    assert losses[-1] < losses[0] and np.log(3) == pytest.approx(losses[0], abs=0.1)


# --- aliases ----------------------------------------------------------------------------------

def test_method_aliases_ndimension_swapaxes_swapdims():
    def program(torch):
        x = torch.arange(6.0).view(2, 3)
        return [x.ndimension(), x.swapaxes(0, 1), x.swapdims(1, 0).contiguous().view(-1)]

    mine, theirs = run_both(program)
    same(mine, theirs)
    assert mine[0] == 2 and arr(mine[1]).tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
