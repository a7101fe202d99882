"""scatter_reduce / index_reduce (minigrad/ops/scatter_reduce.py, the backends' index_reduce,
kernels/scatter.cu): each program runs under minigrad (on every device) and torch; values,
dtypes, node names, gradients, warnings and errors must agree."""
import warnings

import pytest

import minigrad
from test_tensor_extras import same

torch = pytest.importorskip("torch")

REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _leaf(L, d, values, dtype=None):
    return L.tensor(values, dtype=dtype or L.float64, device=d).requires_grad_()


def _scatter(reduce, include_self, dtype="float64"):
    def program(L, d):
        dt = getattr(L, dtype)
        floating = dtype.startswith("float")
        base = [[1.0, -2.0, 0.0, 4.0], [3.0, 3.0, -1.0, 0.5]]
        src_v = [[5.0, 3.0, -1.0, 7.0, 0.0], [0.5, -2.0, 3.0, 3.0, 2.0]]
        if floating:
            x, src = _leaf(L, d, base, dt), _leaf(L, d, src_v, dt)
        else:
            x = L.tensor(base, device=d).to(dt)
            src = L.tensor(src_v, device=d).to(dt)
        index = L.tensor([[0, 1, 0, 1, 2], [3, 3, 0, 1, 3]], device=d)
        out = x.scatter_reduce(1, index, src, reduce, include_self=include_self)
        if not floating:
            return out
        (out * L.arange(1.0, 9.0, dtype=dt, device=d).reshape(2, 4)).sum().backward()
        return out, x.grad, src.grad
    return program


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_values_and_gradients(reduce, include_self, device):
    same(_scatter(reduce, include_self), device, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "int64", "int32"])
@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_dtypes(reduce, dtype, device):
    same(_scatter(reduce, True, dtype), device, rtol=1e-6)
    same(_scatter(reduce, False, dtype), device, rtol=1e-6)


def _bools(reduce, include_self):
    def program(L, d):
        x = L.tensor([True, False, False, True], device=d)
        src = L.tensor([False, True, False, False, True], device=d)
        return x.scatter_reduce(0, L.tensor([0, 1, 1, 2, 2], device=d), src, reduce, include_self=include_self)
    return program


def _cpu_kernel_name(program):
    """program, with an error naming its device's kernel read as naming torch's CPU kernel."""
    def run(L, d):
        try:
            return program(L, d)
        except NotImplementedError as e:
            raise NotImplementedError(str(e).replace("_cuda_", "_cpu_")) from None
    return run


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
def test_bools(reduce, include_self, device):
    same(_cpu_kernel_name(_bools(reduce, include_self)), device)


def _ties_and_zeros(L, d):
    """amax with ties (the gradient shared among them), prod with one and with two zeros in a
    slot, a NaN, negative dim, and an index smaller than src (its leading block; torch's own
    backward fails there, so only the forward is compared)."""
    out = []
    x = _leaf(L, d, [1.0, 5.0, 2.0])
    s = _leaf(L, d, [[5.0, 1.0, 5.0], [0.0, 0.0, 9.0]])
    y = x.scatter_reduce(-1, L.tensor([1, 0, 1], device=d), s[0], "amax")
    z = x.scatter_reduce(0, L.tensor([0, 0, 2], device=d), s[1], "prod")
    w = x.scatter_reduce(0, L.tensor([2, 2, 0], device=d), s[0], "amin", include_self=False)
    v = x.detach().scatter_reduce(0, L.tensor([2, 2], device=d), s[1].detach(), "sum")  # src's leading block
    (y.sum() + (z * L.tensor([1.0, 2.0, 3.0], dtype=L.float64, device=d)).sum() + w.sum()).backward()
    out += [y, z, w, v, x.grad, s.grad]
    n = L.tensor([1.0, float("nan"), 2.0], dtype=L.float64, device=d)
    out += [n.scatter_reduce(0, L.tensor([0, 0, 2], device=d), L.tensor([3.0, 4.0, float("nan")],
                                                                      dtype=L.float64, device=d), r)
            for r in ("amax", "amin", "prod")]
    return out


def test_ties_zeros_nan_and_leading_block(device):
    same(_ties_and_zeros, device, rtol=1e-12)


def _single_zero_prod(L, d):
    x = _leaf(L, d, [2.0, 3.0])
    s = _leaf(L, d, [0.0, 4.0, 5.0])
    out = x.scatter_reduce(0, L.tensor([0, 0, 1], device=d), s, "prod", include_self=False)
    out.sum().backward()
    return out, x.grad, s.grad


def test_prod_gradient_at_a_single_zero(device):
    same(_single_zero_prod, device, rtol=1e-12)


def _inplace(L, d):
    x = L.tensor([1.0, 2.0, 3.0], device=d)
    r = x.scatter_reduce_(0, L.tensor([0, 0, 1], device=d), L.tensor([4.0, -1.0, 6.0], device=d), "amin")
    b = _leaf(L, d, [1.0, 2.0, 3.0])
    c = b * 1
    c.scatter_reduce_(0, L.tensor([2, 2], device=d), _leaf(L, d, [2.0, 5.0]), "prod", include_self=False)
    c.sum().backward()
    return r is x, x, c, b.grad


def test_scatter_reduce_inplace(device):
    same(_inplace, device)


ERRORS = {
    "reduce-name": lambda L, d: L.ones(3, device=d).scatter_reduce(0, L.tensor([0], device=d), L.ones(1, device=d),
                                                                   "foo"),
    "reduce-type": lambda L, d: L.ones(3, device=d).scatter_reduce(0, L.tensor([0], device=d), L.ones(1, device=d), 3),
    "index-dtype": lambda L, d: L.ones(3, device=d).scatter_reduce(0, L.tensor([0.0], device=d), L.ones(1, device=d),
                                                                   "sum"),
    "src-dtype": lambda L, d: L.ones(3, device=d).scatter_reduce(0, L.tensor([0], device=d),
                                                                 L.ones(1, dtype=L.float64, device=d), "sum"),
    "out-of-range": lambda L, d: L.ones(3, device=d).scatter_reduce(0, L.tensor([3], device=d), L.ones(1, device=d),
                                                                    "amax"),
    "dim": lambda L, d: L.ones(3, device=d).scatter_reduce(1, L.tensor([0], device=d), L.ones(1, device=d), "sum"),
    "ndim": lambda L, d: L.ones(3, device=d).scatter_reduce(0, L.tensor([[0]], device=d), L.ones(1, 1, device=d),
                                                            "sum"),
    "bool-mean": lambda L, d: L.tensor([True], device=d).scatter_reduce(0, L.tensor([0], device=d),
                                                                        L.tensor([True], device=d), "mean"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_scatter_reduce_errors(name, device):
    same(_cpu_kernel_name(ERRORS[name]), device)


def _index_reduce(reduce, include_self, dim):
    def program(L, d):
        x = _leaf(L, d, [[1.0, 2.0, 0.0], [3.0, 4.0, -1.0], [5.0, 6.0, 2.0]])
        if dim == 0:
            src = _leaf(L, d, [[2.0, 0.0, 1.0], [3.0, 3.0, 0.5], [4.0, -1.0, 2.0], [7.0, 6.0, 2.0]])
            index = L.tensor([0, 2, 0, 0], device=d)
        else:
            src = _leaf(L, d, [[2.0, 9.0], [3.0, 3.0], [0.0, -1.0]])
            index = L.tensor([1, 1], device=d)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = x.index_reduce(dim, index, src, reduce, include_self=include_self)
        (out * L.arange(1.0, 10.0, dtype=L.float64, device=d).reshape(3, 3)).sum().backward()
        return out, x.grad, src.grad
    return program


@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES[1:])
def test_index_reduce(reduce, include_self, dim, device):
    same(_index_reduce(reduce, include_self, dim), device, rtol=1e-12)


def _index_reduce_ints(L, d):
    x = L.tensor([1, -2, 3], device=d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ([x.index_reduce(0, L.tensor([1, 1, 0], device=d), L.tensor([-3, 2, 7], device=d), r)
                 for r in REDUCES[1:]],
                x.clone().index_reduce_(0, L.tensor([2], device=d), L.tensor([10], device=d), "amax"),
                L.index_reduce(L.tensor(2.0, device=d), 0, L.tensor(0, device=d), L.tensor(3.0, device=d), "prod"))


def test_index_reduce_ints_inplace_and_0d(device):
    same(_index_reduce_ints, device)


def _index_error(call):
    def program(L, d):
        a = L.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device=d)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call(L, d, a)
    return program


INDEX_ERRORS = {
    "sum": lambda L, d, a: a.index_reduce(0, L.tensor([0], device=d), L.ones(1, 2, device=d), "sum"),
    "vector": lambda L, d, a: a.index_reduce(0, L.tensor([[0]], device=d), L.ones(1, 2, device=d), "prod"),
    "slice-shape": lambda L, d, a: a.index_reduce(0, L.tensor([0], device=d), L.ones(1, 3, device=d), "prod"),
    "ndim": lambda L, d, a: a.index_reduce(0, L.tensor([0], device=d), L.ones(1, 2, 1, device=d), "prod"),
    "count": lambda L, d, a: a.index_reduce(0, L.tensor([0, 0], device=d), L.ones(1, 2, device=d), "prod"),
    "range": lambda L, d, a: a.index_reduce(0, L.tensor([-1], device=d), L.ones(1, 2, device=d), "prod"),
    "index-dtype": lambda L, d, a: a.index_reduce(0, L.tensor([0.0], device=d), L.ones(1, 2, device=d), "prod"),
    "dtype": lambda L, d, a: a.index_reduce(0, L.tensor([0], device=d), L.ones(1, 2, dtype=L.float64, device=d),
                                            "prod"),
    "reduce-type": lambda L, d, a: a.index_reduce(0, L.tensor([0], device=d), L.ones(1, 2, device=d), 5),
}


@pytest.mark.parametrize("name", INDEX_ERRORS)
def test_index_reduce_errors(name, device):
    same(_index_error(INDEX_ERRORS[name]), device)


def test_index_reduce_warns_once_per_process():
    from minigrad.ops import scatter_reduce as sr
    sr._warned.clear()
    a = minigrad.ones(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a.index_reduce(0, minigrad.tensor([0]), minigrad.ones(1), "prod")
        a.index_reduce(0, minigrad.tensor([0]), minigrad.ones(1), "prod")
    assert [str(w.message) for w in caught] == ["index_reduce() is in beta and the API may change at any time."]


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "prod"])
def test_gradcheck_twice(reduce, device):
    """The gradients are tensor ops, so they differentiate again (no ties or zeros here)."""
    gen = minigrad.Generator().manual_seed(3)
    x = (minigrad.rand(3, 4, generator=gen, dtype=minigrad.float64) + 0.5).to(device).requires_grad_()
    src = (minigrad.rand(3, 5, generator=gen, dtype=minigrad.float64) + 0.5).to(device).requires_grad_()
    index = minigrad.tensor([[0, 1, 0, 3, 2], [3, 3, 0, 1, 3], [2, 1, 0, 0, 1]], device=device)

    def f(x, src):
        return x.scatter_reduce(1, index, src, reduce, include_self=reduce != "mean")
    # a float product on CUDA combines repeats in the hardware's order (atomics), so its last
    # bits may change between runs, as torch's: gradcheck's reentrancy check gets that slack
    tol = 1e-12 if reduce == "prod" and device != "cpu" else 0.0
    assert minigrad.autograd.gradcheck(f, (x, src), nondet_tol=tol)
    assert minigrad.autograd.gradgradcheck(f, (x, src), nondet_tol=tol)


def test_large_many_repeats_against_numpy(device):
    """Many values onto few positions: the kernel's compare-and-swap loops lose no update."""
    import numpy as np
    rng = np.random.default_rng(0)
    base = rng.uniform(0.5, 1.5, 50)
    src = rng.uniform(0.9, 1.1, 3000)
    index = rng.integers(0, 50, 3000)
    for reduce, at in (("prod", np.multiply), ("amax", np.maximum), ("amin", np.minimum)):
        want = base.copy()
        at.at(want, index, src)
        got = minigrad.tensor(base, device=device).scatter_reduce(
            0, minigrad.tensor(index, device=device), minigrad.tensor(src, device=device), reduce)
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)
