"""torch.prod / Tensor.prod: values, dtypes and argument errors as torch 2.13's, and torch's
gradient, which a zero in a slice changes (the product of the others at a lone zero, 0 where a
slice has two zeros), on every device; each expectation is also checked against torch when it
is importable."""
import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:
    torch = None


def outcome(fn, lib):
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, str(e).replace("torch", "minigrad")
    return str(r.dtype).split(".")[-1], r.tolist()


M = [[1.0, 2.0], [3.0, 4.0]]
CASES = {
    "all": (lambda L: L.tensor(M).prod(), ("float32", 24.0)),
    "dim": (lambda L: L.tensor(M).prod(1), ("float32", [2.0, 12.0])),
    "keepdim": (lambda L: L.tensor(M).prod(0, True), ("float32", [[3.0, 8.0]])),
    "keywords": (lambda L: L.prod(L.tensor(M), dim=-1, keepdim=True), ("float32", [[2.0], [12.0]])),
    "int64": (lambda L: L.prod(L.tensor([1, 2, 3])), ("int64", 6)),
    "int32-to-int64": (lambda L: L.tensor([1, 2], dtype=L.int32).prod(0), ("int64", 2)),
    "bool": (lambda L: L.tensor([True, False]).prod(), ("int64", 0)),
    "dtype": (lambda L: L.tensor([1, 2]).prod(0, dtype=L.float64), ("float64", 2.0)),
    "empty": (lambda L: L.tensor([]).prod(), ("float32", 1.0)),
    "empty-dim": (lambda L: L.zeros(0, 3).prod(0), ("float32", [1.0, 1.0, 1.0])),
    "0-d": (lambda L: L.tensor(3.0).prod(0), ("float32", 3.0)),
    "wraps": (lambda L: L.tensor([2 ** 40, 2 ** 40]).prod(), ("int64", 0)),
    "dim-out-of-range": (lambda L: L.tensor([[1.0, 2.0]]).prod(2),
                         ("IndexError", "Dimension out of range (expected to be in range of [-2, 1], but got 2)")),
    "not-a-tensor": (lambda L: L.prod([1, 2]),
                     ("TypeError", "prod(): argument 'input' (position 1) must be Tensor, not list")),
}
OVERLOADS = ("but expected one of:\n * (*, minigrad.dtype dtype = None)\n"
             " * (int dim, bool keepdim = False, *, minigrad.dtype dtype = None)\n")
for name, call, got in (("tuple-dim", lambda L: L.tensor(M).prod((0, 1)), "(tuple)"),
                        ("dim-None", lambda L: L.tensor(M).prod(dim=None), "(dim=NoneType, )"),
                        ("float-dim", lambda L: L.tensor(M).prod(1.5), "(float)"),
                        ("bool-dim", lambda L: L.tensor(M).prod(True), "(bool)"),
                        ("keepdim-alone", lambda L: L.tensor(M).prod(keepdim=True), "(keepdim=bool, )")):
    CASES[name] = (call, ("TypeError", f"prod() received an invalid combination of arguments - got {got}, "
                                       + OVERLOADS))


@pytest.mark.parametrize("name", list(CASES))
def test_values_dtypes_and_errors(name):
    fn, expect = CASES[name]
    assert outcome(fn, minigrad) == expect
    if torch is not None:
        assert outcome(fn, torch) == expect


def _grads(lib, x, dim, device=None):
    t = lib.tensor(x, requires_grad=True, **({} if device is None else {"device": device}))
    out = t.prod() if dim is None else t.prod(dim)
    weights = lib.tensor(np.arange(1.0, 1.0 + np.size(out.detach().cpu().numpy())).reshape(out.shape),
                         **({} if device is None else {"device": device}))
    (out * weights).sum().backward()
    return out.grad_fn.name(), t.grad.cpu().numpy()


# slices without zeros, with one zero, with two: torch's three cases in one input
ZEROS = np.array([[1.5, -2.0, 0.5, 3.0], [0.0, 2.0, -1.5, 4.0], [0.0, 1.0, 0.0, 2.5]])


@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("x", [ZEROS, ZEROS[1], ZEROS[2], ZEROS[0]], ids=["mixed", "one-zero", "two-zeros", "none"])
def test_gradient_around_zeros(device, x, dim):
    if dim is not None and abs(dim) >= x.ndim:
        pytest.skip("one dim")
    name, grad = _grads(minigrad, x, dim, device)
    assert name == ("ProdBackward0" if dim is None else "ProdBackward1")
    # by hand: the product of the other elements of the slice, times the slice's weight
    moved = np.moveaxis(x, -1 if dim is None else dim, -1).reshape(-1, x.shape[-1 if dim is None else dim]) \
        if dim is not None else x.reshape(1, -1)
    n = moved.shape[1]
    others = np.array([[np.prod(np.delete(row, i)) for i in range(n)] for row in moved])
    others *= np.arange(1.0, 1.0 + len(moved))[:, None]
    if dim is None:
        want = others.reshape(x.shape)
    else:
        shape = list(np.moveaxis(x, dim, -1).shape)
        want = np.moveaxis(others.reshape(shape), -1, dim)
    np.testing.assert_allclose(grad, want, rtol=1e-12, atol=0)
    if torch is not None:
        tname, tgrad = _grads(torch, x, dim)
        assert tname == name
        np.testing.assert_allclose(grad, tgrad, rtol=1e-12, atol=0)


def test_gradient_without_zeros_is_torchs_g_times_out_over_x_bit_for_bit():
    x = np.random.default_rng(5).uniform(0.5, 1.5, (6, 7)).astype(np.float32)
    t = minigrad.tensor(x, requires_grad=True)
    out = t.prod(1)
    out.backward(minigrad.ones(6) * 0.75)
    want = np.float32(0.75) * (out.detach().numpy()[:, None] / x)
    assert t.grad.numpy().tobytes() == want.tobytes()


@pytest.mark.parametrize("dim", [None, 1])
def test_gradcheck_and_gradgradcheck_with_zeros(device, dim):
    x = minigrad.tensor([[0.5, -1.2, 0.0, 2.0], [1.1, 0.7, -0.4, 1.3]], dtype=minigrad.float64, device=device,
                        requires_grad=True)

    def fn(t):
        return t.prod() if dim is None else t.prod(dim)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
