"""torch.einsum: values against NumPy's einsum, gradients against finite differences (and both
against torch when it is importable), the equation's forms (implicit output, ellipsis,
repeated subscripts, sublists, spaces), and torch's errors."""
import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck

try:
    import torch
except ImportError:
    torch = None

CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ij,jk->", [(2, 3), (3, 4)]),
    ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("iij->ij", [(3, 3, 2)]), ("iji->ij", [(3, 2, 3)]),
    ("jii->ij", [(2, 3, 3)]), ("iii->i", [(2, 2, 2)]), ("ijij->ij", [(2, 3, 2, 3)]), ("i,ii->i", [(3,), (3, 3)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]), ("i...->...", [(2, 3)]), ("...i->i", [(2, 3)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]), ("i,j->ij", [(3,), (4,)]), ("ij,ij->ij", [(3, 1), (1, 4)]),
    ("Ab,bC->AC", [(2, 3), (3, 4)]), (" i j -> j i", [(2, 3)]), ("i,i->", [(3,), (3,)]), ("i,i->i", [(3,), (3,)]),
    ("ij->", [(2, 3)]), ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]), ("ijk,ikl->ijl", [(2, 3, 4), (2, 4, 5)]),
    ("i,i,i->", [(3,), (3,), (3,)]), ("ij,kl->ijkl", [(2, 3), (4, 5)]), ("...,...->...", [(2, 3), (3,)]),
    ("i...j,j...->i...", [(2, 4, 3), (3, 4)]), ("ab,ab,ab->a", [(2, 3), (1, 3), (2, 1)]),
    ("ijk,jk->i", [(2, 1, 4), (3, 4)]), (",->", [(), ()]), ("i,->i", [(3,), ()]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("ij->j", [(0, 3)]), ("ij,jk->ik", [(2, 0), (0, 3)]),
]


def _ids(cases):
    return [f"{eq.replace(' ', '_')}:{'x'.join(map(str, shapes[0]))}" for eq, shapes in cases]


def _arrays(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


@pytest.mark.parametrize("eq, shapes", CASES, ids=_ids(CASES))
def test_values_match_numpy(eq, shapes, device):
    arrays = _arrays(shapes)
    out = minigrad.einsum(eq, *[minigrad.tensor(a, device=device) for a in arrays])
    try:
        expect = np.einsum(eq.replace(" ", ""), *arrays)
    except ValueError:  # NumPy wants '...' in the output where the inputs have one; torch sums those dims
        expect = np.einsum(eq.replace(" ", "").replace("->", "->..."), *arrays).sum(tuple(range(len(shapes[0]) - 1)))
    assert out.dtype == minigrad.float64 and tuple(out.shape) == expect.shape
    np.testing.assert_allclose(out.cpu().numpy(), expect, rtol=1e-12, atol=1e-12)
    if torch is not None:
        t = torch.einsum(eq, *[torch.tensor(a) for a in arrays])
        np.testing.assert_allclose(out.cpu().numpy(), t.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("eq, shapes", [c for c in CASES if 0 not in sum(c[1], ())],
                         ids=_ids([c for c in CASES if 0 not in sum(c[1], ())]))
def test_gradients(eq, shapes, device):
    inputs = tuple(minigrad.tensor(a, device=device, requires_grad=True) for a in _arrays(shapes, 1))
    assert gradcheck(lambda *ts: minigrad.einsum(eq, *ts), inputs)
    if torch is not None:  # the same gradients as torch's for one cotangent
        out = minigrad.einsum(eq, *inputs)
        w = np.cos(np.arange(out.numel())).reshape(tuple(out.shape))
        (out * minigrad.tensor(w, device=device)).sum().backward()
        tin = [torch.tensor(a, requires_grad=True) for a in _arrays(shapes, 1)]
        (torch.einsum(eq, *tin) * torch.tensor(w)).sum().backward()
        for m, t in zip(inputs, tin):
            np.testing.assert_allclose(m.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_forms_float32_and_integers(device):
    a = minigrad.arange(6.0, device=device).reshape(2, 3)
    b = minigrad.arange(12.0, device=device).reshape(3, 4)
    ab = (a @ b).tolist()
    assert minigrad.einsum(a, [0, 1], b, [1, 2], [0, 2]).tolist() == ab  # sublists
    assert minigrad.einsum(a, [0, 1], b, [1, 2]).tolist() == ab          # implicit output
    assert minigrad.einsum(a, [Ellipsis, 1], [Ellipsis]).tolist() == [3.0, 12.0]
    assert minigrad.einsum("ij,jk->ik", [a, b]).tolist() == ab            # a list of operands
    assert minigrad.einsum("ij,jk->ik", (a, b)).tolist() == ab
    if device != "cpu":  # as torch's, the CUDA products have no integer kernels
        return
    assert minigrad.einsum("ij,jk->ik", a.long(), b.long()).tolist() == [[int(v) for v in r] for r in ab]
    assert minigrad.einsum("ij,jk->ik", a.long(), b.long()).dtype == minigrad.int64
    assert minigrad.einsum("ij->", a.long()).item() == 15


@pytest.mark.parametrize("call, kind, message", [
    (lambda L, a: L.einsum("ij,jk->ik", a), RuntimeError, "einsum(): fewer operands were provided than specified "
                                                         "in the equation"),
    (lambda L, a: L.einsum("ij->ik", a), RuntimeError, "einsum(): output subscript k does not appear in the "
                                                       "equation for any input operand"),
    (lambda L, a: L.einsum("ij->ii", a), RuntimeError, "einsum(): output subscript i appears more than once in the "
                                                       "output"),
    (lambda L, a: L.einsum("i1,jk->ik", a, a), RuntimeError, "einsum(): invalid subscript given at index 1 in the "
                                                             "equation string, subscripts must be in [a-zA-Z]"),
    (lambda L, a: L.einsum("ijk->i", a), RuntimeError, "einsum(): the number of subscripts in the equation (3) does "
                                                       "not match the number of dimensions (2) for operand 0 and no "
                                                       "ellipsis was given"),
    (lambda L, a: L.einsum("ij,jk->ik", a, a, a), RuntimeError, "einsum(): more operands were provided than "
                                                                "specified in the equation"),
    (lambda L, a: L.einsum("ii->i", a), RuntimeError, "einsum(): subscript i is repeated for operand 0 but the sizes "
                                                      "don't match, 3 != 2"),
    (lambda L, a: L.einsum("ij,jk->ik", a, a), RuntimeError, "einsum(): subscript j has size 2 for operand 1 which "
                                                             "does not broadcast with previously seen size 3"),
    (lambda L, a: L.einsum("ij->j..", a), RuntimeError, "einsum(): found '.' for output that is not part of any "
                                                        "ellipsis (...)"),
    (lambda L, a: L.einsum("...i...->i", a), RuntimeError, "einsum(): found '.' for operand 0 for which an ellipsis "
                                                           "was already found"),
    (lambda L, a: L.einsum("i,i->", L.ones(3), L.ones(3, dtype=L.float64)), RuntimeError,
     "expected scalar type Float but found Double"),
    (lambda L, a: L.einsum("ij,jk->ik", a, 3), TypeError, "expected Tensor as element 1 in argument 1, but got int"),
    (lambda L, a: L.einsum(5), ValueError, "einsum(): must specify the equation string and at least one operand, or "
                                           "at least one operand and its subscripts list"),
    (lambda L, a: L.einsum(a, [0, 60]), ValueError, "einsum(): subscript in subscript list is not within the valid "
                                                    "range [0, 52)"),
    (lambda L, a: L.einsum("ij,jk->ik", a.bool(), a.bool().t()), NotImplementedError,
     "\"bmm\" not implemented for 'Bool'"),
])
def test_errors_as_torch(call, kind, message):
    libs = [minigrad] + ([torch] if torch is not None else [])
    for L in libs:
        with pytest.raises(kind) as e:
            call(L, L.ones(2, 3))
        assert str(e.value).replace("torch.", "minigrad.") == message
