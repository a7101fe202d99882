"""The ops composed from backend primitives (minigrad/ops/composed.py) against PyTorch: values
(bitwise where torch rounds the same way), dtypes, shapes, grad_fn names, gradients, and error
messages, on every device (the emulated CUDA run takes the cuda cases)."""
import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")


def _lib_tensor(lib, a, device, grad):
    if not isinstance(a, np.ndarray):
        return a
    kw = {"device": device} if lib is minigrad else {}
    return lib.tensor(a, requires_grad=grad and a.dtype.kind == "f", **kw)


def _outs(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _np(t):
    return t.detach().cpu().numpy()


def _node(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__ if not hasattr(t.grad_fn, "name") \
        else t.grad_fn.name()


def check(fn, *inputs, device="cpu", grad=True, exact=False, rtol=1e-6, atol=1e-7, grad_rtol=1e-6):
    """fn(lib, *tensors) on minigrad and torch: the same outputs (dtype, shape, values, node name)
    and, when grad, the same gradients of every float input for a random cotangent."""
    mg_in = [_lib_tensor(minigrad, a, device, grad) for a in inputs]
    th_in = [_lib_tensor(torch, a, "cpu", grad) for a in inputs]
    mg, th = _outs(fn(minigrad, *mg_in)), _outs(fn(torch, *th_in))
    assert len(mg) == len(th)
    for k, (m, t) in enumerate(zip(mg, th)):
        assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (k, m.dtype, t.dtype)
        assert tuple(m.shape) == tuple(t.shape), (k, tuple(m.shape), tuple(t.shape))
        if exact or t.dtype in (torch.bool, torch.int64, torch.int32):
            np.testing.assert_array_equal(_np(m), _np(t), err_msg=f"output {k}")
        else:
            np.testing.assert_allclose(_np(m), _np(t), rtol=rtol, atol=atol, err_msg=f"output {k}")
        assert m.requires_grad == t.requires_grad, k
        if t.grad_fn is not None:
            assert m.grad_fn.name() == type(t.grad_fn).__name__, (k, m.grad_fn.name(), type(t.grad_fn).__name__)
    if not grad:
        return mg
    pairs = [(m, t) for m, t in zip(mg, th) if t.requires_grad]
    leaves = [(m, t) for m, t in zip(mg_in, th_in) if isinstance(t, torch.Tensor) and t.requires_grad]
    if not pairs or not leaves:
        return mg
    rng = np.random.default_rng(0)
    cots = [rng.standard_normal(tuple(t.shape)).astype(_np(t).dtype) for _, t in pairs]
    mg_g = minigrad.autograd.grad([m for m, _ in pairs], [m for m, _ in leaves],
                                  [minigrad.tensor(c, device=device) for c in cots], allow_unused=True)
    th_g = torch.autograd.grad([t for _, t in pairs], [t for _, t in leaves], [torch.tensor(c) for c in cots],
                               allow_unused=True)
    for k, (m, t, (_, leaf)) in enumerate(zip(mg_g, th_g, leaves)):
        t = torch.zeros_like(leaf) if t is None else t
        m = np.zeros(tuple(leaf.shape)) if m is None else _np(m)
        np.testing.assert_allclose(m, _np(t), rtol=grad_rtol, atol=1e-6, err_msg=f"grad {k}")
    return mg


def raises_like(fn, *inputs, device="cpu", match_torch=True):
    """fn raises the same exception type and message on minigrad as on torch."""
    with pytest.raises(Exception) as th:
        fn(torch, *[_lib_tensor(torch, a, "cpu", False) for a in inputs])
    with pytest.raises(type(th.value)) as mg:
        fn(minigrad, *[_lib_tensor(minigrad, a, device, False) for a in inputs])
    want = str(th.value).split("\n")[0].replace("torch.", "minigrad.")
    assert str(mg.value).split("\n")[0] == want


def f32(*shape, seed=0, lo=-2.0, hi=2.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(np.float32)


def f64(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, shape)


SPECIAL = np.array([0., -0., 1.5, -2., INF, -INF, NAN, 3e38, 1e-45], np.float32)


# ---- isnan, isinf, isfinite, isposinf, isneginf, nan_to_num ------------------------------------------

@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "isposinf", "isneginf"])
@pytest.mark.parametrize("data", [SPECIAL, SPECIAL.astype(np.float64).reshape(3, 3),
                                  np.array([1, -2, 0], np.int64), np.array([True, False]),
                                  np.array(NAN, np.float32), np.zeros((0, 2), np.float32)],
                         ids=["f32", "f64", "i64", "bool", "0d", "empty"])
def test_float_tests(name, data, device):
    out = check(lambda t, x: getattr(t, name)(x), data, device=device)[0]
    assert out.dtype is minigrad.bool and not out.requires_grad
    check(lambda t, x: getattr(x, name)(), data, device=device)


def test_float_tests_refuse_non_tensors():
    raises_like(lambda t: t.isnan([1.0]))


@pytest.mark.parametrize("kwargs", [{}, {"nan": 1.5, "posinf": 7.0, "neginf": -8.0}, {"nan": None},
                                    {"posinf": 1e300}])
def test_nan_to_num(kwargs, device):
    check(lambda t, x: t.nan_to_num(x, **kwargs), SPECIAL, device=device, exact=True)
    check(lambda t, x: x.nan_to_num(**kwargs), SPECIAL.astype(np.float64), device=device, exact=True)


def test_nan_to_num_gradient_is_zero_where_not_finite(device):
    mg = check(lambda t, x: t.nan_to_num(x, 0.5, 1.0, 2.0), SPECIAL, device=device, exact=True)
    assert mg[0].grad_fn.name() == "NanToNumBackward0"
    x = minigrad.tensor(SPECIAL.astype(np.float64), requires_grad=True, device=device)
    (minigrad.nan_to_num(x) * 2).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), np.where(np.isfinite(SPECIAL), 2.0, 0.0))


def test_nan_to_num_of_integers_and_bools_copies(device):
    check(lambda t, x: t.nan_to_num(x, nan=3.5), np.array([1, 2], np.int64), device=device)
    check(lambda t, x: t.nan_to_num(x), np.array([True, False]), device=device)


def test_nan_to_num_in_place(device):
    def fn(t, x):
        y = x * 1
        y.nan_to_num_(posinf=5.0)
        return y
    check(fn, SPECIAL, device=device, exact=True)
    raises_like(lambda t: t.tensor([NAN], requires_grad=True).nan_to_num_())


# ---- logsumexp ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim,keepdim", [(1, False), (0, True), (-1, False), ((0, 2), False), ([0, 1, 2], True)])
def test_logsumexp(dim, keepdim, device):
    x = f32(2, 3, 4) * 20  # large enough that a naive exp would overflow in places
    check(lambda t, a: t.logsumexp(a, dim, keepdim), x, device=device, rtol=2e-6)
    check(lambda t, a: a.logsumexp(dim=dim, keepdim=keepdim), x.astype(np.float64), device=device, rtol=1e-12)


def test_logsumexp_is_stable_and_handles_infinities(device):
    big = np.array([[1000., 1000.], [-1000., -1000.], [-INF, -INF], [INF, 1.], [NAN, 1.], [-INF, 0.]], np.float32)
    check(lambda t, a: t.logsumexp(a, 1), big, device=device, grad=False)


def test_logsumexp_dtypes_and_shapes(device):
    check(lambda t, a: t.logsumexp(a, 0), np.array([1, 2, 3], np.int64), device=device)
    check(lambda t, a: t.logsumexp(a, 0), np.array([True, False]), device=device)
    check(lambda t, a: t.logsumexp(a, 0), np.array(2.5, np.float32), device=device)
    check(lambda t, a: t.logsumexp(a, 0), np.zeros((0, 3), np.float32), device=device)
    check(lambda t, a: t.logsumexp(a, 1, True), np.zeros((0, 3), np.float32), device=device)


def test_logsumexp_errors():
    raises_like(lambda t, a: t.logsumexp(a, 2), f32(2, 3))
    with pytest.raises(TypeError, match='logsumexp\\(\\) missing 1 required positional arguments: "dim"'):
        minigrad.logsumexp(minigrad.ones(3))


def test_logsumexp_gradients():
    x = minigrad.tensor(f64(3, 4), requires_grad=True)
    assert gradcheck(lambda a: a.logsumexp(1), (x,))
    assert gradgradcheck(lambda a: a.logsumexp((0, 1), keepdim=True), (x,))


# ---- tril, triu, diag, trace -------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("k", [0, 1, -1, 5, -5])
def test_tril_triu(name, k, device):
    check(lambda t, a: getattr(t, name)(a, k), f32(3, 4), device=device, exact=True)
    check(lambda t, a: getattr(a, name)(diagonal=k), f32(2, 4, 3), device=device, exact=True)


@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_triu_dtypes_errors_and_in_place(name, device):
    check(lambda t, a: getattr(t, name)(a), np.arange(6).reshape(2, 3), device=device)
    check(lambda t, a: getattr(t, name)(a, -1), np.ones((3, 3), bool), device=device)
    raises_like(lambda t, a: getattr(t, name)(a), f32(3))

    def fn(t, a):
        y = a * 2
        getattr(y, name + "_")(1)
        return y
    check(fn, f32(3, 3), device=device, exact=True)
    raises_like(lambda t, a: getattr(t.ones(2, 2, requires_grad=True), name + "_")())
    x = minigrad.tensor(f64(3, 4), requires_grad=True)
    assert gradgradcheck(lambda a: getattr(a, name)(1), (x,))


@pytest.mark.parametrize("k", [0, 1, -2])
def test_diag_of_a_vector(k, device):
    mg = check(lambda t, v: t.diag(v, k), f32(3), device=device, exact=True)
    assert mg[0].grad_fn.name() == "DiagEmbedBackward0"
    check(lambda t, v: v.diag(k), np.array([1, 2], np.int64), device=device)
    check(lambda t, v: t.diag(v), np.array([True, False]), device=device)


@pytest.mark.parametrize("k", [0, 1, -1, 3, -7])
def test_diag_of_a_matrix(k, device):
    mg = check(lambda t, m: t.diag(m, k), f32(3, 4), device=device, exact=True)
    assert mg[0].grad_fn.name() == "DiagonalBackward0_copy"
    check(lambda t, m: m.diag(diagonal=k), np.arange(12).reshape(4, 3), device=device)


def test_diag_errors_and_gradients():
    raises_like(lambda t, a: t.diag(a), f32(2, 2, 2))
    raises_like(lambda t, a: t.diag(a), np.array(1.0, np.float32))
    for shape in ((3,), (3, 4)):
        x = minigrad.tensor(f64(*shape), requires_grad=True)
        assert gradgradcheck(lambda a: minigrad.diag(a, 1), (x,))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2), (0, 3)])
def test_trace(shape, device):
    check(lambda t, a: t.trace(a), f32(*shape), device=device, rtol=1e-6)
    check(lambda t, a: a.trace(), np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape), device=device)


def test_trace_errors_and_gradients():
    raises_like(lambda t, a: t.trace(a), f32(3))
    raises_like(lambda t, a: t.trace(a), f32(2, 2, 2))
    raises_like(lambda t, a: t.trace(a), np.ones((2, 2), bool))
    x = minigrad.tensor(f64(3, 4), requires_grad=True)
    assert gradgradcheck(lambda a: minigrad.trace(a * a), (x,))


# ---- flip, narrow, unbind, movedim --------------------------------------------------------------------

@pytest.mark.parametrize("dims", [(0,), (1,), (0, 1), (-1, 0), ()])
def test_flip(dims, device):
    check(lambda t, a: t.flip(a, dims), f32(3, 4), device=device, exact=True)
    check(lambda t, a: a.flip(list(dims)), f32(2, 3, 4), device=device, exact=True)


def test_flip_forms_dtypes_and_errors(device):
    check(lambda t, a: a.flip(0, 1), np.arange(6).reshape(2, 3), device=device)
    check(lambda t, a: a.flip(dims=[2]), np.ones((2, 1, 3), bool), device=device)
    check(lambda t, a: a.flip(0), np.array(2.0, np.float32), device=device)
    check(lambda t, a: a.flip(-1), np.zeros((2, 0), np.float32), device=device)
    raises_like(lambda t, a: a.flip([0, -2]), f32(3, 4))
    raises_like(lambda t, a: a.flip(2), f32(3, 4))
    x = minigrad.tensor(f64(3, 4), requires_grad=True)
    assert gradgradcheck(lambda a: a.flip(0, 1) * a, (x,))


@pytest.mark.parametrize("args", [(1, 1, 2), (1, -2, 2), (0, 0, 3), (0, 3, 0), (-1, 0, 4)])
def test_narrow(args, device):
    check(lambda t, a: a.narrow(*args), f32(3, 4), device=device, exact=True)
    check(lambda t, a: t.narrow(a, *args), f32(3, 4, 4), device=device, exact=True)


def test_narrow_is_a_view(device):
    x = minigrad.zeros(3, 4, device=device)
    x.narrow(1, 1, 2).fill_(1.0)
    np.testing.assert_array_equal(_np(x), [[0, 1, 1, 0]] * 3)
    check(lambda t, a: a.narrow(dim=0, start=t.tensor(1), length=1), f32(3, 4), device=device)


@pytest.mark.parametrize("args", [(1, 5, 1), (1, -5, 1), (1, 3, 2), (1, 0, -1), (2, 0, 1)])
def test_narrow_errors(args):
    raises_like(lambda t, a: a.narrow(*args), f32(3, 4))
    raises_like(lambda t, a: a.narrow(0, 0, 1), np.array(1.0, np.float32))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unbind(dim, device):
    mg = check(lambda t, a: a.unbind(dim), f32(2, 3, 4), device=device, exact=True)
    assert all(o.grad_fn.name() == "UnbindBackward0" for o in mg)
    check(lambda t, a: t.unbind(a, dim)[1] * 2, f32(3, 3, 3), device=device, exact=True)  # unused outputs


def test_unbind_views_and_errors(device):
    x = minigrad.zeros(2, 3, device=device)
    rows = x.unbind()
    rows[1].fill_(2.0)
    assert _np(x)[1].tolist() == [2.0, 2.0, 2.0]
    assert minigrad.ones(0, 3).unbind() == ()
    raises_like(lambda t, a: a.unbind(), np.array(1.0, np.float32))
    raises_like(lambda t, a: a.unbind(2), f32(3, 4))
    x = minigrad.tensor(f64(3, 4), requires_grad=True)
    assert gradgradcheck(lambda a: a.unbind(1)[0] * a.unbind(1)[2], (x,))


@pytest.mark.parametrize("src,dst", [(0, -1), (-1, 0), ((0, 1), (2, 0)), ([2], [1]), (1, 1)])
def test_movedim(src, dst, device):
    check(lambda t, a: t.movedim(a, src, dst), f32(2, 3, 4), device=device, exact=True)
    check(lambda t, a: a.moveaxis(src, dst), f32(2, 3, 4), device=device, exact=True)
    check(lambda t, a: t.moveaxis(a, source=src, destination=dst), np.arange(24).reshape(2, 3, 4), device=device)


@pytest.mark.parametrize("src,dst", [((0, 1), (2,)), ((0, 0), (1, 2)), ((0, 1), (2, 2)), (3, 0)])
def test_movedim_errors(src, dst):
    raises_like(lambda t, a: t.movedim(a, src, dst), f32(2, 3, 4))


# ---- index_select, masked_select, outer -------------------------------------------------------------------

@pytest.mark.parametrize("dim,index", [(0, [2, 0, 2]), (1, [3]), (-1, []), (1, np.array(1)), (0, [1, 1, 1, 1])])
def test_index_select(dim, index, device):
    idx = np.asarray(index, np.int64)
    check(lambda t, a, i: a.index_select(dim, i), f32(3, 4), idx, device=device, exact=True)
    check(lambda t, a, i: t.index_select(a, dim, i.int()), np.arange(12).reshape(3, 4), idx, device=device)


def test_index_select_0d_input(device):
    check(lambda t, a, i: a.index_select(0, i), np.array(5.0, np.float32), np.array([0]), device=device)
    check(lambda t, a, i: a.index_select(-1, i), np.array(5.0, np.float32), np.array(0), device=device)
    raises_like(lambda t, a, i: a.index_select(0, i), np.array(5.0, np.float32), np.array([0, 0]), device=device)


@pytest.mark.parametrize("index", [np.array([1.0]), np.array([[1]]), np.array([4]), np.array([-1])])
def test_index_select_errors(index, device):
    raises_like(lambda t, a, i: a.index_select(1, i), f32(3, 4), index, device=device)


def test_index_select_refuses_a_list():
    raises_like(lambda t, a: a.index_select(0, [0]), f32(3, 4))
    raises_like(lambda t, a: a.index_select(2, t.tensor([0])), f32(3, 4))


@pytest.mark.parametrize("xs,ms", [((3, 4), (3, 4)), ((4,), (3, 1)), ((3, 4), (4,)), ((), ())])
def test_masked_select(xs, ms, device):
    mask = np.random.default_rng(1).random(ms) < 0.5
    mg = check(lambda t, a, m: a.masked_select(m), f32(*xs), np.asarray(mask), device=device, exact=True)
    assert mg[0].grad_fn.name() == "MaskedSelectBackward0"
    check(lambda t, a, m: t.masked_select(a, m), np.arange(12).reshape(3, 4), np.ones((3, 4), bool), device=device)


def test_masked_select_errors():
    raises_like(lambda t, a, m: a.masked_select(m), f32(3, 4), np.ones((3, 4), np.int64))
    raises_like(lambda t, a, m: a.masked_select(m), f32(3, 4), np.ones(3, bool))
    x = minigrad.tensor(f64(3, 4), requires_grad=True)
    m = minigrad.tensor(np.random.default_rng(2).random(4) < 0.5)
    assert gradgradcheck(lambda a: a.masked_select(m) ** 2, (x,))


def test_outer(device):
    check(lambda t, a, b: t.outer(a, b), f32(3), f32(2, seed=1), device=device, exact=True)
    check(lambda t, a, b: a.ger(b), f32(3), f32(4, seed=1), device=device, exact=True)
    check(lambda t, a, b: t.outer(a, b), np.array([1, 2]), np.array([1.5, 2.0]), device=device)
    raises_like(lambda t, a, b: t.outer(a, b), f32(2, 2), f32(2))
    raises_like(lambda t, a, b: t.outer(a, b), f32(2), f32(2, 2))
    raises_like(lambda t, a, b: t.outer(a, b), np.array(1.0, np.float32), f32(2))


# ---- gather, scatter, scatter_add, take_along_dim ---------------------------------------------------------

GATHER_CASES = [(1, [[0, 0], [1, 0], [3, 2]]), (0, [[2, 1, 0, 0]]), (-1, [[3], [3], [0]]),
                (0, [[0, 1], [2, 0]]), (1, np.zeros((0, 2), np.int64)), (1, np.zeros((2, 7), np.int64))]


@pytest.mark.parametrize("dim,index", GATHER_CASES)
def test_gather(dim, index, device):
    idx = np.asarray(index, np.int64)
    mg = check(lambda t, a, i: a.gather(dim, i), f32(3, 4), idx, device=device, exact=True)
    if idx.size:
        assert mg[0].grad_fn.name() == "GatherBackward0"
    check(lambda t, a, i: t.gather(a, dim, i.int()), np.arange(12).reshape(3, 4), idx, device=device)
    check(lambda t, a, i: t.gather(a, dim=dim, index=i, sparse_grad=False), np.ones((3, 4), bool), idx,
          device=device)


def test_gather_0d(device):
    check(lambda t, a, i: a.gather(0, i), np.array(3.0, np.float32), np.array(0), device=device)
    check(lambda t, a, i: a.gather(0, i), np.array(3.0, np.float32), np.array([0, 0]), device=device)
    check(lambda t, a, i: a.gather(0, i), f32(3), np.array(1), device=device)


@pytest.mark.parametrize("index", [np.array([[5]]), np.array([[-1]]), np.zeros((4, 1), np.int64),
                                   np.zeros(2, np.int64), np.zeros((1, 1))])
def test_gather_errors(index, device):
    raises_like(lambda t, a, i: a.gather(1, i), f32(3, 4), index, device=device)
    raises_like(lambda t, a: a.gather(2, t.tensor([[1]])), f32(3, 4))


def test_gather_gradients():
    x = minigrad.tensor(f64(3, 4), requires_grad=True)
    idx = minigrad.tensor([[0, 0, 3], [1, 1, 1]])
    assert gradcheck(lambda a: a.gather(1, idx), (x,))
    assert gradgradcheck(lambda a: a.gather(0, idx.clamp(max=2)) ** 2, (x,))


SCATTER_INDEX = np.array([[0, 1], [2, 3], [1, 0]])  # no repeats within a row: torch's result is defined


@pytest.mark.parametrize("index,dim", [(SCATTER_INDEX, 1), (SCATTER_INDEX[:2, :1], 1), (np.array([[2, 0, 1, 1]]), 0),
                                       (np.zeros((0, 1), np.int64), 1)])
def test_scatter(index, dim, device):
    src = f32(3, 4, seed=3)
    mg = check(lambda t, a, i, s: a.scatter(dim, i, s) if i.shape == s.shape else a.scatter(dim, i, s.detach()),
               f32(3, 4), index, src, device=device, exact=True)
    if index.size:
        assert mg[0].grad_fn.name() == "ScatterBackward0"
    check(lambda t, a, i: t.scatter(a, dim, i, 2.5), f32(3, 4), index, device=device, exact=True)
    check(lambda t, a, i: a.scatter(dim, i, value=7), np.arange(12).reshape(3, 4), index, device=device)
    check(lambda t, a, i, s: t.scatter(a, dim, i.int(), s), np.arange(12).reshape(3, 4), index,
          np.arange(12).reshape(3, 4) * 10, device=device)


def test_scatter_gradients(device):
    idx = np.array([[0, 1], [2, 3], [1, 0]])
    check(lambda t, a, s: a.scatter(1, t.tensor(idx, device=a.device), s), f32(3, 4), f32(3, 2, seed=1), device=device)
    x = minigrad.tensor(f64(3, 4), requires_grad=True)
    s = minigrad.tensor(f64(3, 2), requires_grad=True)
    i = minigrad.tensor(idx)
    assert gradgradcheck(lambda a, b: a.scatter(1, i, b) ** 2, (x, s))
    assert gradgradcheck(lambda a: a.scatter(1, i, 0.5) ** 2, (x,))


def test_scatter_src_larger_than_index_gets_a_padded_gradient():
    """torch's engine refuses the index-shaped gradient here ("returned an invalid gradient");
    minigrad pads it with zeros to src's shape."""
    x = minigrad.zeros(3, 4, requires_grad=True)
    src = minigrad.tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4), requires_grad=True)
    x.scatter(1, minigrad.tensor([[0], [2]]), src).sum().backward()
    np.testing.assert_array_equal(_np(src.grad), [[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]])
    np.testing.assert_array_equal(_np(x.grad), [[0, 1, 1, 1], [1, 1, 0, 1], [1, 1, 1, 1]])


@pytest.mark.parametrize("index", [np.zeros((3, 4)), np.zeros(3, np.int64), np.zeros((4, 1), np.int64),
                                   np.array([[4]]), np.array([[-1]])])
def test_scatter_errors(index, device):
    raises_like(lambda t, a, i, s: a.scatter(1, i, s), f32(3, 4), index, f32(3, 4), device=device)


def test_scatter_errors_on_src():
    raises_like(lambda t, a, i, s: a.scatter(1, i, s), f32(3, 4), np.zeros((3, 4), np.int64), f32(2, 4))
    raises_like(lambda t, a, i, s: a.scatter(1, i, s), f32(3, 4), np.zeros((3, 4), np.int64), f64(3, 4))
    raises_like(lambda t, a, i: a.scatter_add(1, i, 1.0), f32(3, 4), np.zeros((3, 4), np.int64))


def test_scatter_add(device):
    idx = np.array([[0, 0, 3], [1, 1, 1], [2, 0, 2]])  # repeats accumulate
    mg = check(lambda t, a, s: a.scatter_add(1, t.tensor(idx, device=a.device), s), f32(3, 4), f32(3, 3, seed=1),
               device=device)
    assert mg[0].grad_fn.name() == "ScatterAddBackward0"
    check(lambda t, a, s: t.scatter_add(a, 0, t.tensor([[0, 2, 1, 0], [2, 2, 2, 0]], device=a.device), s), f32(3, 4),
          f32(2, 4, seed=1), device=device)
    for dtype in (np.int64, np.int32):
        check(lambda t, a, s: a.scatter_add(1, t.tensor(idx, device=a.device), s),
              np.arange(12, dtype=dtype).reshape(3, 4), np.arange(9, dtype=dtype).reshape(3, 3) * 7, device=device)
    check(lambda t, a, s: a.scatter_add(1, t.tensor(idx, device=a.device), s), np.zeros((3, 4), bool),
          np.array([[True, False, False]] * 3), device=device)
    x = minigrad.tensor(f64(3, 4), requires_grad=True)
    s = minigrad.tensor(f64(3, 3), requires_grad=True)
    assert gradgradcheck(lambda a, b: a.scatter_add(1, minigrad.tensor(idx), b) ** 2, (x, s))


def test_scatter_in_place(device):
    idx = np.array([[0, 1], [2, 3]])

    def fn(t, a, s):
        y = a * 1
        y.scatter_(1, t.tensor(idx, device=a.device), s)
        y.scatter_add_(0, t.tensor(idx % 3, device=a.device), s)
        y.scatter_(1, t.tensor(idx, device=a.device), value=-1.0)
        return y
    check(fn, f32(3, 4), f32(2, 2, seed=1), device=device, exact=True)
    raises_like(lambda t: t.zeros(2, 2, requires_grad=True).scatter_(1, t.tensor([[0]]), 1.0))
    x = minigrad.zeros(2, 2, dtype=minigrad.int64, device=device)
    x.scatter_(1, minigrad.tensor([[0, 0]], device=device), 2.5)
    assert _np(x).tolist() == [[2, 0], [0, 0]]


@pytest.mark.parametrize("dim,index", [(1, [[0], [1], [2]]), (1, [[0, 1]]), (None, [0, 11]), (None, [[0, 11]]),
                                       (1, [[-1]]), (0, [[2, 1, 0, 0]])])
def test_take_along_dim(dim, index, device):
    mg = check(lambda t, a, i: t.take_along_dim(a, i, dim), f32(3, 4), np.array(index), device=device,
               exact=True)
    assert mg[0].grad_fn.name() == "GatherBackward0"
    check(lambda t, a, i: a.take_along_dim(i, dim=dim), np.arange(12).reshape(3, 4), np.array(index), device=device)


@pytest.mark.parametrize("index,dim", [(np.array([[0]], np.int32), 1), (np.array([0]), 1), (np.array([[1]]), 2),
                                       (np.zeros((2, 1), np.int64), 1), (np.array([-13]), None)])
def test_take_along_dim_errors(index, dim):
    raises_like(lambda t, a, i: t.take_along_dim(a, i, dim), f32(3, 4), index)


# ---- lerp, clamp_min, clamp_max -----------------------------------------------------------------------

@pytest.mark.parametrize("weight", [0.3, 0.5, 0.75, -1.5, 2])
def test_lerp_scalar_weight(weight, device):
    mg = check(lambda t, a, b: t.lerp(a, b, weight), f32(3, 4), f32(4, seed=1), device=device, rtol=1e-6)
    assert mg[0].grad_fn.name() == "LerpBackward0"
    check(lambda t, a, b: a.lerp(b, weight), f64(3, 4), f64(3, 4, seed=1), device=device, rtol=1e-14)


def test_lerp_tensor_weight(device):
    w = np.array([[0.1], [0.5], [0.9]], np.float32)
    mg = check(lambda t, a, b, w: t.lerp(a, b, w), f32(4), f32(3, 4, seed=1), w, device=device, rtol=1e-6)
    assert mg[0].grad_fn.name() == "LerpBackward1"
    check(lambda t, a, b, w: a.lerp(b, w), f32(3, 4), f32(3, 4, seed=1), np.array(0.25, np.float64),
          device=device, rtol=1e-6)
    x, y = (minigrad.tensor(f64(3, 4, seed=s), requires_grad=True) for s in (0, 1))
    w = minigrad.tensor(np.random.default_rng(2).uniform(-1, 2, (3, 1)), requires_grad=True)
    assert gradgradcheck(lambda a, b, c: a.lerp(b, c) ** 2, (x, y, w))


def test_lerp_errors_and_in_place(device):
    raises_like(lambda t, a, b: t.lerp(a, b, 0.5), np.array([1, 2]), np.array([3, 4]))
    raises_like(lambda t, a, b, w: t.lerp(a, b, w), np.array([1, 2]), np.array([3, 4]), np.array([1, 1]))
    raises_like(lambda t, a, b: t.lerp(a, b, 0.5), f32(2), f64(2))
    raises_like(lambda t, a, b: t.lerp(a, b, 0.5), f32(2), np.array(1))
    raises_like(lambda t, a, b, w: t.lerp(a, b, w), f32(2), f32(2), f64(2))
    raises_like(lambda t, a, b: t.lerp(a, b, 0.5), f32(3, 4), f32(3))
    raises_like(lambda t, a, b: a.lerp_(b, 0.5), f32(4), f32(3, 4))

    def fn(t, a, b):
        y = a * 1
        y.lerp_(b, 0.6)
        return y
    check(fn, f32(3, 4), f32(3, 4, seed=1), device=device, rtol=1e-6)
    raises_like(lambda t: t.ones(2, requires_grad=True).lerp_(t.zeros(2), 0.5))


@pytest.mark.parametrize("name,bound", [("clamp_min", 0.25), ("clamp_max", -0.5), ("clamp_min", 1), ("clamp_max", 0)])
def test_clamp_min_max(name, bound, device):
    x = f32(3, 4)
    mg = check(lambda t, a: getattr(t, name)(a, bound), x, device=device, exact=True)
    assert mg[0].grad_fn.name() == {"clamp_min": "ClampMinBackward0", "clamp_max": "ClampMaxBackward0"}[name]
    check(lambda t, a: getattr(a, name)(bound), np.arange(-3, 3), device=device)
    check(lambda t, a: getattr(a, name)(1.5), np.arange(-3, 3), device=device)
    check(lambda t, a: getattr(t, name)(a, 0), np.array([True, False]), device=device)

    def fn(t, a):
        y = a * 1
        getattr(y, name + "_")(bound)
        return y
    check(fn, x, device=device, exact=True)
    raises_like(lambda t, a: getattr(t, name)(a, None), x)


# ---- logical ops, count_nonzero ---------------------------------------------------------------------------

LOGICAL_INPUTS = [(np.array([0., 1., 2., NAN], np.float32), np.array([1, 0, 3, 1])),
                  (np.array([0, 1]), np.array([[0], [2]])),
                  (np.array([True, False, True]), np.array([0.5, 0.0, -0.0])),
                  (np.array(0.0), np.array([[True, False]]))]


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("a,b", LOGICAL_INPUTS)
def test_logical_binary(name, a, b, device):
    mg = check(lambda t, x, y: getattr(t, name)(x, y), a, b, device=device)
    assert mg[0].dtype is minigrad.bool and not mg[0].requires_grad
    check(lambda t, x, y: getattr(x, name)(y), a, b, device=device)


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_binary_errors_and_in_place(name, device):
    raises_like(lambda t, x: getattr(t, name)(x, 1), f32(3))
    raises_like(lambda t, x: getattr(x, name)(True), f32(3))
    raises_like(lambda t, x, y: getattr(t, name)(x, y), f32(3, 4), f32(3))
    check(lambda t, x, y: getattr(x * 2, name + "_")(y), np.array([1., 0., 2., 0.], np.float32),
          np.array([1, 1, 0, 0]), device=device)  # the values change, the graph does not
    check(lambda t, x, y: getattr(x, name + "_")(y), np.array([1., 0., 2., 0.], np.float32),
          np.array([1, 1, 0, 0]), device=device)  # a leaf that requires grad too


def test_logical_not(device):
    for a in (np.array([0., 1., -2., NAN], np.float32), np.array([0, 3]), np.array([True, False]), np.array(0.0)):
        out = check(lambda t, x: t.logical_not(x), a, device=device)[0]
        assert out.dtype is minigrad.bool
        check(lambda t, x: (x * 1).logical_not_(), a, device=device)


@pytest.mark.parametrize("dim", [None, 0, 1, -1, (0, 1), ()])
def test_count_nonzero(dim, device):
    a = np.array([[0., 1., NAN], [2., 0., 0.]], np.float32)
    check(lambda t, x: t.count_nonzero(x, dim) if dim is not None else t.count_nonzero(x), a, device=device)
    check(lambda t, x: x.count_nonzero(dim=dim), np.array([[0, 1], [2, 2]]), device=device)
    check(lambda t, x: x.count_nonzero(), np.array([True, False, True]), device=device)


def test_count_nonzero_errors():
    raises_like(lambda t, x: x.count_nonzero((0, 0)), f32(2, 2))
    raises_like(lambda t, x: x.count_nonzero(2), f32(2, 2))
    check(lambda t, x: x.count_nonzero(0), np.array(3.0, np.float32))


# ---- var_mean, std_mean -------------------------------------------------------------------------------------

MOMENT_CALLS = [((), {}), ((1,), {"keepdim": True}), ((1, False), {}), ((False,), {}),
                ((), {"dim": 0, "correction": 0}),
                (((0, 1),), {}), ((-1, True, True), {}), ((), {"dim": [0, 2], "correction": 2})]


@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
@pytest.mark.parametrize("args,kwargs", MOMENT_CALLS)
def test_var_std_mean(name, args, kwargs, device):
    x = f32(3, 4, 2)
    mg = check(lambda t, a: getattr(t, name)(a, *args, **kwargs), x, device=device, rtol=2e-6, grad_rtol=1e-5)
    assert isinstance(mg, list) and len(mg) == 2
    want = {"var_mean": "VarMeanBackward0", "std_mean": "StdMeanBackward0"}[name]
    assert mg[0].grad_fn.name() == mg[1].grad_fn.name() == want
    check(lambda t, a: getattr(t, name)(a, *args, **kwargs)[0], x.astype(np.float64), device=device, rtol=1e-12)
    check(lambda t, a: getattr(t, name)(a, *args, **kwargs)[1], x.astype(np.float64), device=device, rtol=1e-12)


@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
def test_var_std_mean_errors_and_gradients(name):
    raises_like(lambda t, a: getattr(t, name)(a), np.array([1, 2]))
    raises_like(lambda t, a: getattr(t, name)(a, 3), f32(2, 3))
    raises_like(lambda t, a: getattr(t, name)(a, (0, 0)), f32(2, 3))
    assert type(minigrad.var_mean(minigrad.ones(2))) is tuple
    assert not hasattr(minigrad.ones(2), name)  # torch has no Tensor method of this name
    x = minigrad.tensor(f64(3, 4), requires_grad=True)
    assert gradgradcheck(lambda a: getattr(minigrad, name)(a, 1), (x,))


# ---- in-place unary methods ----------------------------------------------------------------------------------

INPLACE_UNARY = ["exp_", "log_", "sqrt_", "abs_", "neg_", "sigmoid_", "tanh_", "relu_", "floor_", "ceil_",
                 "round_", "trunc_"]


@pytest.mark.parametrize("name", INPLACE_UNARY)
def test_inplace_unary(name, device):
    x = f32(3, 4, lo=0.1, hi=3.0) * np.where(np.arange(12).reshape(3, 4) % 3 == 0, -1, 1).astype(np.float32)
    if name in ("log_", "sqrt_"):
        x = np.abs(x)

    def fn(t, a):
        y = a * 1
        out = getattr(y, name)()
        assert out is y
        return y
    check(fn, x, device=device, rtol=1e-6)  # the node's name too
    y = minigrad.tensor(x, device=device) * 1
    v = y._version
    getattr(y, name)()
    assert y._version == v + 1


@pytest.mark.parametrize("name", INPLACE_UNARY)
def test_inplace_unary_on_integers_bools_and_leaves(name):
    raises_like(lambda t: getattr(t.tensor([1.0], requires_grad=True), name)())
    for data in ([1, -2], [True, False]):
        try:
            want = getattr(torch.tensor(data), name)()
        except Exception:
            raises_like(lambda t: getattr(t.tensor(data), name)())
        else:
            got = getattr(minigrad.tensor(data), name)()
            assert got.tolist() == want.tolist() and str(got.dtype)[9:] == str(want.dtype)[6:]


@pytest.mark.parametrize("name", ["exp_", "abs_", "log_", "sigmoid_", "floor_", "relu_"])
def test_inplace_unary_on_views(name, device):
    def fn(t, a):
        y = a * 1
        getattr(y[1], name)()  # into the base's graph (CopySlices)
        return y
    check(fn, f32(3, 4, lo=0.5, hi=2.0), device=device, rtol=1e-6)
    if name in ("abs_", "log_", "floor_"):  # a second write is fine where the first saved no output
        check(lambda t, a: getattr(fn(t, a)[:, 2], name)(), f32(3, 4, lo=0.5, hi=2.0), device=device, rtol=1e-6)


def test_inplace_unary_names(device):
    for name, node in (("exp_", "ExpBackward0"), ("log_", "LogBackward0"), ("relu_", "ReluBackward0"),
                       ("round_", "RoundBackward0"), ("clamp_min_", "ClampMinBackward0")):
        y = minigrad.ones(2, requires_grad=True) * 1
        getattr(y, name)(*((0.0,) if name == "clamp_min_" else ()))
        assert y.grad_fn.name() == node
    check(lambda t, a: (a * 1).round_(decimals=1), f32(4), device=device)


def test_inplace_log_keeps_the_old_value_for_backward(device):
    """torch's log_ and abs_ differentiate at the value before the write."""
    def fn(t, a):
        y = a * 2
        y.log_()
        z = a * 1
        z.abs_()
        return y + z
    check(fn, f32(5, lo=0.2, hi=3.0), device=device, rtol=1e-6)

    def modified(t, a):  # a saved value changed afterwards is still caught
        y = a * 1
        z = y.exp()  # saves its result, y is its input
        y.exp_()
        w = z.sigmoid()
        w.mul_(2)
        return w.sum()
    for lib in (torch, minigrad):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            modified(lib, lib.ones(2, requires_grad=True)).backward()


# ---- in-place random fills ---------------------------------------------------------------------------------

def test_uniform_normal_bernoulli_values(device):
    minigrad.manual_seed(0)
    x = minigrad.empty(20000, device=device).uniform_(2, 3)
    v = _np(x)
    assert v.min() >= 2 and v.max() < 3 and abs(v.mean() - 2.5) < 0.01
    x = minigrad.empty(20000, dtype=minigrad.float64, device=device).normal_(1.0, 2.0)
    v = _np(x)
    assert x.dtype is minigrad.float64 and abs(v.mean() - 1) < 0.05 and abs(v.std() - 2) < 0.05
    assert _np(minigrad.zeros(3, device=device).normal_(2, 0.0)).tolist() == [2.0] * 3
    for dtype in (minigrad.float32, minigrad.int64, minigrad.bool):
        b = minigrad.zeros(20000, dtype=dtype, device=device).bernoulli_(0.25)
        assert b.dtype is dtype and set(np.unique(_np(b)).tolist()) <= {0, 1}
        assert abs(_np(b).astype(float).mean() - 0.25) < 0.02
    p = minigrad.tensor([0.0, 1.0, 1.0, 0.0], device=device)
    assert _np(minigrad.ones(4, device=device).bernoulli_(p)).tolist() == [0, 1, 1, 0]
    assert _np(minigrad.empty(3, device=device).uniform_(**{"from": 5, "to": 5})).tolist() == [5.0] * 3


def test_random_fills_are_reproducible(device):
    def draw():
        minigrad.manual_seed(7)
        return [_np(minigrad.empty(5, device=device).uniform_()), _np(minigrad.empty(5, device=device).normal_()),
                _np(minigrad.empty(5, device=device).bernoulli_())]
    for a, b in zip(draw(), draw()):
        np.testing.assert_array_equal(a, b)
    g1, g2 = minigrad.Generator().manual_seed(3), minigrad.Generator().manual_seed(3)
    np.testing.assert_array_equal(_np(minigrad.empty(4).normal_(generator=g1)),
                                  _np(minigrad.empty(4).normal_(generator=g2)))


def test_random_fill_errors_and_graph():
    raises_like(lambda t: t.zeros(3).uniform_(3, 2))
    raises_like(lambda t: t.zeros(3, dtype=t.long).uniform_())
    raises_like(lambda t: t.zeros(3).normal_(2, -1.0))
    raises_like(lambda t: t.zeros(3, dtype=t.long).normal_())
    raises_like(lambda t: t.zeros(3).bernoulli_(1.5))
    for call in (lambda y: y.uniform_(), lambda y: y.normal_(), lambda y: y.bernoulli_(0.5)):
        raises_like(lambda t: call(t.ones(3, requires_grad=True)))
    for call, node in ((lambda y: y.uniform_(), "UniformBackward0"), (lambda y: y.normal_(), "NormalBackward0"),
                       (lambda y: y.bernoulli_(0.5), "BernoulliBackward2"),
                       (lambda y: y.bernoulli_(minigrad.rand(3)), "BernoulliBackward1")):
        x = minigrad.ones(3, requires_grad=True)
        y = x * 1
        call(y)
        assert y.grad_fn.name() == node
        y.sum().backward()
        assert _np(x.grad).tolist() == [0.0] * 3
    w = minigrad.ones(3, requires_grad=True)
    with minigrad.no_grad():
        w.uniform_(-1, 1)  # an initializer's way
    assert w.requires_grad and w.grad_fn is None and _np(w).max() < 1



@pytest.mark.parametrize("call", [lambda L, t: L.var_mean(t, 0, True, unbiased=False),
                                  lambda L, t: L.std_mean(t, 0, dim=1),
                                  lambda L, t: L.var_mean(t, 0, True, False, True),
                                  lambda L, t: L.std_mean(t, 0, False, True, keepdim=True)])
def test_moments_refuse_an_argument_given_twice_as_torch(call):
    for lib in (minigrad, torch):
        with pytest.raises(TypeError, match="received an invalid combination of arguments"):
            call(lib, lib.ones(2, 3))
