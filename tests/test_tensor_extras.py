"""More of torch's tensor API (minigrad/ops/tensor_extras.py): each program is written once
against the PyTorch API and run under minigrad (on every device) and torch; the outcomes
(values, dtypes, node names, gradients, or the exception's type and message) must agree."""
import math

import pytest

import minigrad
from test_api_sweep import outcome, warned
from test_nn_functional import _OnDevice

torch = pytest.importorskip("torch")


def _close(a, b, rtol):
    """a == b, floats within rtol (relative) of each other, NaNs equal."""
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and type(a) is type(b):
        return len(a) == len(b) and all(_close(x, y, rtol) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
            return a == b or (math.isnan(a) and math.isnan(b))
        return abs(a - b) <= rtol * max(abs(a), abs(b), 1e-30) + 1e-12
    return a == b


def _on_cpu(outcome):
    """An error naming its device's kernel ("histogram_cuda") as torch names the CPU's."""
    if isinstance(outcome, tuple) and len(outcome) == 2 and isinstance(outcome[1], str):
        return outcome[0], outcome[1].replace('_cuda"', '_cpu"')
    return outcome


def same(program, device, rtol=1e-6):
    _LEAVES.clear()
    got = _on_cpu(outcome(program, _OnDevice(device), device))
    _LEAVES.clear()
    want = outcome(program, torch)
    assert _close(got, want, rtol), (got, want)
    return got


def grads(*ts):
    return tuple(t.grad for t in ts)


_LEAVES = {}


def _x(L, shape=(2, 3), dtype=None, grad=True):
    """A leaf of shape: within one program the same tensor each time, so _backward_all's
    gradients are those of the leaf the outputs were computed from."""
    key = (L.__name__ if hasattr(L, "__name__") else "minigrad", tuple(shape), str(dtype), grad)
    if key not in _LEAVES:
        n = math.prod(shape)
        _LEAVES[key] = (L.arange(n, dtype=dtype or L.float64) * 0.7 - 1.3).reshape(shape).requires_grad_(grad)
    return _LEAVES[key]


# ---- aliases and predicates ---------------------------------------------------------------------------

ALIASES = {
    "multiply": lambda L, d: L.multiply(_x(L), 2.5),
    "subtract": lambda L, d: L.subtract(_x(L), L.tensor([1.0, 2.0, 3.0], dtype=L.float64), alpha=2),
    "negative": lambda L, d: L.negative(_x(L)),
    "absolute": lambda L, d: _x(L).absolute(),
    "positive": lambda L, d: L.positive(_x(L)),
    "positive-bool": lambda L, d: L.positive(L.tensor([True])),
    "sgn": lambda L, d: L.sgn(L.tensor([-2.0, 0.0, 3.0])),
    "ravel": lambda L, d: L.ravel(_x(L).t()),
    "swapaxes": lambda L, d: L.swapaxes(_x(L), 0, 1),
    "greater": lambda L, d: (L.greater(_x(L), 0), L.greater_equal(_x(L), 0.1), L.less(_x(L), 0),
                             L.less_equal(_x(L), 0.1), L.not_equal(_x(L), 0.1)),
    "signbit": lambda L, d: L.signbit(L.tensor([-0.0, 0.0, float("nan"), -float("nan"), -1.0, 2.0])),
    "signbit-int": lambda L, d: L.tensor([-1, 0, 2]).signbit(),
    "is_nonzero": lambda L, d: (L.is_nonzero(L.tensor([1.5])), L.tensor([[0]]).is_nonzero()),
    "is_nonzero-many": lambda L, d: L.is_nonzero(L.tensor([1.0, 2.0])),
    "is_nonzero-empty": lambda L, d: L.is_nonzero(L.tensor([])),
    "is_same_size": lambda L, d: (L.is_same_size(_x(L), _x(L)), _x(L).is_same_size(_x(L).t())),
    "is_signed": lambda L, d: (L.tensor([1]).is_signed(), L.tensor([True]).is_signed(), L.is_signed(_x(L))),
    "concatenate": lambda L, d: L.concatenate([_x(L), _x(L)], 1),
}


@pytest.mark.parametrize("name", ALIASES)
def test_aliases_and_predicates(name, device):
    same(ALIASES[name], device)


def _inplace_compare(L, d):
    x = L.tensor([1.0, 2.0, 3.0])
    y = L.tensor([1, 5, 3])
    return x.clone().eq_(2.0), x.clone().ge_(L.tensor([3.0, 1.0, 3.0])), y.clone().lt_(4), y.clone().greater_(1)


def test_inplace_comparisons_keep_the_dtype(device):
    same(_inplace_compare, device)


# ---- shapes ------------------------------------------------------------------------------------------

def _backward_all(outs, *leaves):
    total = sum((o.to(leaves[0].dtype) * (k + 1)).sum() for k, o in enumerate(outs))
    total.backward()
    return outs, grads(*leaves)


SHAPES = {
    "broadcast_to": lambda L, d: _backward_all((L.broadcast_to(_x(L), (2, 2, 3)),), _x(L)),
    "broadcast_to-bad": lambda L, d: L.broadcast_to(_x(L), (3, 3)),
    "broadcast_shapes": lambda L, d: (L.broadcast_shapes((2, 1), (3,)), L.broadcast_shapes(2, (3, 1)),
                                      L.broadcast_shapes()),
    "broadcast_shapes-bad": lambda L, d: L.broadcast_shapes((2, 2), (3,)),
    "broadcast_shapes-negative": lambda L, d: L.broadcast_shapes((2, -1)),
    "broadcast_tensors": lambda L, d: L.broadcast_tensors(L.ones(2, 1), L.zeros(3)),
    "broadcast_tensors-bad": lambda L, d: L.broadcast_tensors(L.ones(2, 2), L.ones(3)),
    "atleast": lambda L, d: (L.atleast_1d(L.tensor(1.0)), L.atleast_2d(L.tensor([1.0, 2.0])),
                             L.atleast_3d(L.tensor(1.0)), L.atleast_3d(L.tensor([1.0, 2.0])), L.atleast_3d(_x(L)),
                             L.atleast_2d(_x(L), L.tensor(2.0)), L.atleast_1d([L.tensor(3.0)])),
    "hstack": lambda L, d: (L.hstack([_x(L), _x(L)]), L.hstack([L.tensor([1.0]), L.tensor([2.0, 3.0])])),
    "vstack": lambda L, d: (L.vstack([L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0])]), L.row_stack([_x(L), _x(L)])),
    "dstack": lambda L, d: L.dstack([_x(L), _x(L)]),
    "column_stack": lambda L, d: L.column_stack([L.tensor([1.0, 2.0]), L.ones(2, 2), L.tensor([[5.0], [6.0]])]),
    "column_stack-bad": lambda L, d: L.column_stack([L.tensor([1.0, 2.0]), L.ones(3, 3)]),
    "hstack-empty": lambda L, d: L.hstack([]),
    "hstack-tensor": lambda L, d: L.hstack(L.ones(2)),
    "tensor_split-sections": lambda L, d: (L.tensor_split(L.arange(7), 3), L.tensor_split(_x(L), 2, dim=1)),
    "tensor_split-indices": lambda L, d: (L.tensor_split(L.arange(5), [3, 1]), L.tensor_split(L.arange(5), [-2, 10]),
                                          _x(L).tensor_split((1,), 1)),
    # (torch takes the indices or sections as a tensor on the CPU only)
    "tensor_split-tensor": lambda L, d: (L.tensor_split(L.arange(5), L.tensor([1, 3], device="cpu")),
                                         L.tensor_split(L.arange(5), L.tensor(2, device="cpu"))),
    "tensor_split-grad": lambda L, d: _backward_all(L.tensor_split(_x(L, (7,)), 3), _x(L, (7,))),
    "tensor_split-zero": lambda L, d: L.tensor_split(L.arange(5), 0),
    "tensor_split-0d": lambda L, d: L.tensor_split(L.tensor(1), 2),
    "tensor_split-float-tensor": lambda L, d: L.tensor_split(L.arange(5), L.tensor([1.0], device="cpu")),
    "tensor_split-2d-tensor": lambda L, d: L.tensor_split(L.arange(5), L.tensor([[1]], device="cpu")),
    "hsplit": lambda L, d: (L.hsplit(_x(L), 3), L.hsplit(L.arange(4), 2), L.vsplit(_x(L), [1]),
                            L.dsplit(_x(L, (1, 2, 4)), 2)),
    "hsplit-indivisible": lambda L, d: L.hsplit(_x(L), 2),
    "dsplit-2d": lambda L, d: L.dsplit(_x(L), [1]),
    "hsplit-0d": lambda L, d: L.hsplit(L.tensor(1.0), [1]),
    "unflatten": lambda L, d: (L.unflatten(_x(L, (2, 6)), -1, (2, -1)), _x(L).unflatten(1, (3, 1))),
    "unflatten-bad": lambda L, d: _x(L).unflatten(1, (2, 2)),
    "unflatten-empty": lambda L, d: _x(L).unflatten(1, ()),
    "select": lambda L, d: _backward_all((L.select(_x(L), 1, -1), _x(L).select(0, 1)), _x(L)),
    "select-bad": lambda L, d: L.select(_x(L), 1, 3),
}


@pytest.mark.parametrize("name", SHAPES)
def test_shape_functions(name, device):
    same(SHAPES[name], device)


def test_broadcast_grads_reach_the_leaves(device):
    def program(L, d):
        x, y = _x(L, (2, 1)), _x(L, (3,))
        a, b = L.broadcast_tensors(x, y)
        (a * b).sum().backward()
        return a, b, x.grad, y.grad
    same(program, device)


def test_tensor_split_takes_its_indices_tensor_on_the_cpu_only(device):
    x = minigrad.arange(5, device=device)
    if device == "cpu":
        assert [p.tolist() for p in x.tensor_split(minigrad.tensor([2]))] == [[0, 1], [2, 3, 4]]
        return
    with pytest.raises(RuntimeError, match="^tensor_split expected tensor_indices_or_sections to be on cpu, but "
                                           "it's on cuda:0$"):
        x.tensor_split(minigrad.tensor([2], device=device))


def test_tensor_split_backward(device):
    def program(L, d):
        x = _x(L, (7,))
        parts = L.tensor_split(x, [2, 5])
        sum((p * (k + 1)).sum() for k, p in enumerate(parts)).backward()
        return parts, x.grad
    same(program, device)


# ---- building -----------------------------------------------------------------------------------------

BUILD = {
    "argwhere": lambda L, d: (L.argwhere(L.tensor([[0, 1], [2, 0]])), L.tensor([0.0, 3.0]).argwhere()),
    "block_diag": lambda L, d: L.block_diag(_x(L), L.tensor([[7.0]], dtype=L.float64), L.tensor(5.0, dtype=L.float64),
                                            L.tensor([1.0, 2.0], dtype=L.float64)),
    "block_diag-mixed": lambda L, d: L.block_diag(L.tensor([[1]]), L.tensor([[1.5]], dtype=L.float64),
                                                  L.tensor([True])),
    "block_diag-empty": lambda L, d: (L.block_diag(), L.block_diag(L.ones(2, 0), L.ones(0, 3), L.tensor([[2.0]]))),
    "block_diag-3d": lambda L, d: L.block_diag(_x(L), L.ones(1, 1, 1)),
    "diag_embed": lambda L, d: (L.diag_embed(_x(L)), L.diag_embed(_x(L), offset=1, dim1=0, dim2=2),
                                _x(L).diag_embed(-1)),
    "diag_embed-same": lambda L, d: L.diag_embed(_x(L), 0, 1, 1),
    "diag_embed-0d": lambda L, d: L.diag_embed(L.tensor(1.0)),
    "diagflat": lambda L, d: (L.diagflat(_x(L), 1), L.diagflat(L.tensor(1.0)), _x(L).diagflat(-2)),
    "combinations": lambda L, d: (L.combinations(L.tensor([1, 2, 3]), 2, with_replacement=True),
                                  L.combinations(L.tensor([1, 2, 3])), L.combinations(L.tensor([1, 2, 3]), 0),
                                  L.combinations(L.tensor([1, 2, 3]), 4)),
    "combinations-2d": lambda L, d: L.combinations(_x(L)),
    "combinations-negative": lambda L, d: L.combinations(L.tensor([1, 2]), -1),
    "tri_indices": lambda L, d: (L.tril_indices(3, 4, 1), L.triu_indices(3, 4, -1), L.tril_indices(0, 3),
                                 L.triu_indices(4, 2, 5), L.tril_indices(3, 3, dtype=L.int32)),
    "tri_indices-float": lambda L, d: L.tril_indices(3, 3, dtype=L.float32),
    "tri_indices-negative": lambda L, d: L.tril_indices(-1, 3),
    "unravel_index": lambda L, d: (L.unravel_index(L.tensor([4, 1, 6, -7]), (2, 3)), L.unravel_index(L.tensor(7), 3),
                                   L.unravel_index(L.tensor([[5]]), (2, 1, 3))),
    "unravel_index-float": lambda L, d: L.unravel_index(L.tensor([1.0]), (2, 3)),
    "unravel_index-negative-shape": lambda L, d: L.unravel_index(L.tensor([1]), (2, -3)),
    "vander": lambda L, d: (L.vander(L.tensor([1, 2, 3]), 4), L.vander(L.tensor([1.0, 2.0, 3.0]), increasing=True),
                            L.vander(L.tensor([True, False]), 3), L.vander(L.tensor([1.0, 2.0]), 0),
                            L.vander(L.tensor([1.0, 2.0]), 1)),
    "logspace": lambda L, d: (L.logspace(0, 2, 3), L.logspace(0, 3, 4, base=2, dtype=L.int64),
                              L.logspace(-1, 1, 3, dtype=L.int64), L.logspace(0, 1, 0), L.logspace(0, 1, 5),
                              L.logspace(1, 2, 4, dtype=L.float64)),
}


@pytest.mark.parametrize("name", BUILD)
def test_building_functions(name, device):
    same(BUILD[name], device)


def test_block_diag_and_diag_embed_backward(device):
    def program(L, d):
        a, b, c = _x(L), _x(L, (2,)), _x(L, (1, 1))
        out = L.block_diag(a, b, c)
        emb = L.diag_embed(a, 1)
        ((out * L.arange(out.numel(), dtype=L.float64).reshape(out.shape)).sum() + (emb * 3).sum()).backward()
        return out, emb, a.grad, b.grad, c.grad
    same(program, device)


def test_vander_and_combinations_backward(device):
    def program(L, d):
        x = _x(L, (3,))
        c = L.combinations(x, 2, with_replacement=True)
        (c * L.tensor([1.0, 2.0], dtype=L.float64)).sum().backward()
        return c, x.grad
    same(program, device)


# ---- indexing -----------------------------------------------------------------------------------------

INDEXING = {
    "take": lambda L, d: _backward_all((L.take(_x(L), L.tensor([[0, 5], [-1, 0]])),), _x(L)),
    "take-0d": lambda L, d: L.take(L.tensor(5.0), L.tensor([0, 0])),
    "take-out-of-range": lambda L, d: L.take(_x(L), L.tensor([6])),
    "take-negative": lambda L, d: L.take(_x(L), L.tensor([-7])),
    "take-float-index": lambda L, d: L.take(_x(L), L.tensor([1.0])),
    "repeat_interleave": lambda L, d: (L.repeat_interleave(_x(L), 2), _x(L).repeat_interleave(2, dim=1),
                                       L.repeat_interleave(_x(L), L.tensor([1, 2]), dim=0),
                                       L.repeat_interleave(_x(L), L.tensor([2])),
                                       L.repeat_interleave(_x(L), L.tensor(2)),
                                       L.repeat_interleave(L.tensor([1, 0, 2])), L.repeat_interleave(L.tensor(3.0), 2)),
    "repeat_interleave-grad": lambda L, d: _backward_all((L.repeat_interleave(_x(L), L.tensor([1, 0, 3]), dim=1),),
                                                         _x(L)),
    "repeat_interleave-mismatch": lambda L, d: L.repeat_interleave(_x(L), L.tensor([1, 2]), dim=1),
    "repeat_interleave-negative": lambda L, d: L.repeat_interleave(_x(L), L.tensor([1, -2]), dim=0),
    "repeat_interleave-negative-int": lambda L, d: L.repeat_interleave(_x(L), -1),
    "repeat_interleave-2d": lambda L, d: L.repeat_interleave(_x(L), L.tensor([[1, 2]]), dim=0),
    "repeat_interleave-output_size": lambda L, d: L.repeat_interleave(_x(L), 2, dim=0, output_size=3),
    "repeat_interleave-float-repeats": lambda L, d: L.repeat_interleave(L.tensor([1.0, 2.0])),
}


def _index_ops(L, d):
    x = _x(L)
    s = L.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=L.float64, requires_grad=True)
    v = L.tensor(2.5, dtype=L.float64, requires_grad=True)
    i = L.tensor([2, 0])
    outs = (L.index_add(x, 1, i, s, alpha=2), x.index_add(1, L.tensor([0, 0]), s), L.index_copy(x, 1, i, s),
            L.index_fill(x, 1, i, -1.0), x.index_fill(1, L.tensor([1]), v), L.index_add(x, 1, i.int(), s))
    return _backward_all(outs, x, s, v)


INDEXING["index_ops"] = _index_ops
INDEXING.update({
    "index_fill-negative": lambda L, d: (L.index_fill(_x(L), 1, L.tensor([-1]), L.tensor(2.0, dtype=L.float64)),
                                         _x(L).index_fill(0, L.tensor([-2]), 5)),
    "index_add-ints": lambda L, d: (L.index_add(L.tensor([1, 2]), 0, L.tensor([0, 0]), L.tensor([1, 3]), alpha=2),
                                    L.index_fill(L.tensor([1, 2]), 0, L.tensor([0]), 1.5),
                                    L.index_copy(L.tensor([1, 2]), 0, L.tensor([0, 0]), L.tensor([1, 3]))),
    "index_add-0d": lambda L, d: (L.index_add(L.tensor(1.0), 0, L.tensor([0]), L.tensor(2.0)),
                                  L.index_add(L.tensor(1.0), 0, L.tensor(0), L.tensor(2.0))),
    "index_add-count": lambda L, d: L.index_add(_x(L), 1, L.tensor([0, 0]), L.ones(2, 3, dtype=L.float64)),
    "index_add-float-index": lambda L, d: L.index_add(_x(L), 1, L.tensor([0.0, 1.0]), L.ones(2, 2, dtype=L.float64)),
    "index_add-2d-index": lambda L, d: L.index_add(_x(L), 1, L.tensor([[0, 0]]), L.ones(2, 2, dtype=L.float64)),
    "index_add-out-of-bounds": lambda L, d: L.index_add(_x(L), 1, L.tensor([3, 0]), L.ones(2, 2, dtype=L.float64)),
    "index_add-negative": lambda L, d: L.index_add(_x(L), 1, L.tensor([-1]), L.ones(2, 1, dtype=L.float64)),
    "index_add-dtype": lambda L, d: L.index_add(_x(L), 1, L.tensor([2, 0]), L.ones(2, 2)),
    "index_add-shape": lambda L, d: L.index_add(_x(L), 1, L.tensor([2, 0]), L.ones(3, 2, dtype=L.float64)),
    "index_add-source-dims": lambda L, d: L.index_add(_x(L), 1, L.tensor([2, 0]), L.ones(2, dtype=L.float64)),
    "index_add-dim": lambda L, d: L.index_add(_x(L), 2, L.tensor([2, 0]), L.ones(2, 2, dtype=L.float64)),
    "index_copy-count": lambda L, d: L.index_copy(_x(L), 1, L.tensor([2, 0]), L.ones(2, 3, dtype=L.float64)),
    "index_copy-out-of-bounds": lambda L, d: L.index_copy(_x(L), 1, L.tensor([3, 0]), L.ones(2, 2, dtype=L.float64)),
    "index_copy-negative": lambda L, d: L.index_copy(_x(L), 1, L.tensor([-1]), L.ones(2, 1, dtype=L.float64)),
    "index_copy-float-index": lambda L, d: L.index_copy(_x(L), 1, L.tensor([0.0]), L.ones(2, 1, dtype=L.float64)),
    "index_copy-dtype": lambda L, d: L.index_copy(_x(L), 1, L.tensor([2, 0]), L.ones(2, 2)),
    "index_fill-out-of-bounds": lambda L, d: L.index_fill(_x(L), 1, L.tensor([3]), 1),
    "index_fill-float-index": lambda L, d: L.index_fill(_x(L), 1, L.tensor([0.0]), 1),
    "index_fill-1d-value": lambda L, d: L.index_fill(_x(L), 1, L.tensor([0]), L.tensor([2.0])),
})


@pytest.mark.parametrize("name", INDEXING)
def test_indexing_functions(name, device):
    same(INDEXING[name], device)


def test_inplace_index_ops_write_into_self(device):
    def program(L, d):
        x = L.zeros(2, 3, dtype=L.float64)
        s = L.ones(2, 2, dtype=L.float64, requires_grad=True)
        y = x.clone()
        r1 = y.index_add_(1, L.tensor([0, 2]), s, alpha=3)
        z = x.clone().index_copy_(1, L.tensor([1, 0]), s * 2).index_fill_(0, L.tensor([1]), 7.0)
        (y * L.arange(6, dtype=L.float64).reshape(2, 3)).sum().backward()
        return r1 is y, y, z, s.grad
    same(program, device)


def test_inplace_index_add_on_a_leaf_refuses_as_torch(device):
    same(lambda L, d: L.zeros(2, 3, requires_grad=True).index_add_(0, L.tensor([0]), L.ones(1, 3)), device)


# ---- math ---------------------------------------------------------------------------------------------

def _addc(L, d):
    x, a, b = _x(L), _x(L, (2, 1)), (_x(L, (3,)) + 5).detach().requires_grad_()
    outs = (L.addcmul(x, a, b, value=2), L.addcdiv(x, a, b, value=-0.5), x.addcmul(a, b), x.addcdiv(a, b))
    return _backward_all(outs, x, a, b)


MATH = {
    "addc": _addc,
    "addc-ints": lambda L, d: (L.addcmul(L.tensor([1]), L.tensor([1]), L.tensor([2]), value=3),
                               L.addcmul(L.ones(2, dtype=L.int64), L.ones(2), L.ones(2), value=2),
                               L.addcdiv(L.tensor([1]), L.tensor([1.0]), L.tensor([2]), value=3)),
    "addc-mixed": lambda L, d: L.addcmul(L.ones(2), L.ones(2), L.ones(2, dtype=L.float64)),
    "addc-int-float-value": lambda L, d: L.addcmul(L.tensor([1]), L.tensor([1]), L.tensor([2]), value=0.5),
    "addcdiv-ints": lambda L, d: L.addcdiv(L.tensor([1]), L.tensor([1]), L.tensor([2])),
    "addcmul-shape": lambda L, d: L.addcmul(L.ones(2), L.ones(2, 1), L.ones(3)),
    "addcmul_-inplace": lambda L, d: L.ones(2, 1).addcmul_(L.ones(2, 1), L.tensor([1.0, 2.0, 3.0])),
    "addcmul_-shape": lambda L, d: L.ones(2).addcmul_(L.ones(2, 1), L.ones(2)),
    "inner": lambda L, d: _backward_all((L.inner(_x(L), _x(L)), L.inner(_x(L), L.ones(4, 3, dtype=L.float64)),
                                         L.inner(L.tensor(2.0, dtype=L.float64), _x(L)),
                                         L.inner(_x(L, (3,)), _x(L, (3,)))), _x(L)),
    "inner-bad": lambda L, d: L.inner(_x(L), L.ones(2)),
    "addr": lambda L, d: (L.addr(L.zeros(2, 3), L.ones(2), L.ones(3), beta=0, alpha=2),
                          L.addr(L.tensor([[float("nan")]]), L.ones(1), L.ones(1), beta=0),
                          L.addr(L.ones(3), L.tensor([1.0, 2.0]), L.ones(3), beta=0.5)),
    "addr-grad": lambda L, d: _backward_all((L.addr(_x(L), _x(L, (2,)), _x(L, (3,)), beta=2, alpha=-1),
                                             _x(L).addr(_x(L, (2,)), _x(L, (3,)))), _x(L), _x(L, (2,))),
    "addr-2d-vec": lambda L, d: L.addr(L.zeros(2, 3), L.ones(2, 1), L.ones(3)),
    "addr-int-alpha": lambda L, d: L.addr(L.zeros(2, 3, dtype=L.int64), L.ones(2, dtype=L.int64),
                                          L.ones(3, dtype=L.int64), alpha=0.5),
    "addr-shape": lambda L, d: L.addr(L.zeros(3), L.ones(2), L.ones(2)),
    # (a batch's product is recorded as BmmBackward0, torch's as UnsafeViewBackward0)
    "matrix_power": lambda L, d: (L.matrix_power(_x(L, (3, 3)), 3), L.linalg.matrix_power(_x(L, (2, 3, 3)), 2).detach(),
                                  L.matrix_power(_x(L, (2, 2)), 1), L.matrix_power(_x(L, (2, 2)), 0),
                                  L.matrix_power(L.ones(2, 2, dtype=L.int64), 5) if d == "cpu" else
                                  L.tensor([[16, 16], [16, 16]])),  # (torch has no integer matmul on CUDA)
    "matrix_power-grad": lambda L, d: _backward_all((L.matrix_power(_x(L, (3, 3)), 5),), _x(L, (3, 3))),
    "matrix_power-nonsquare": lambda L, d: L.matrix_power(L.ones(2, 3), 2),
    "matrix_power-1d": lambda L, d: L.matrix_power(L.ones(3), 2),
    "multi_dot": lambda L, d: (L.linalg.multi_dot([L.ones(2), L.ones(2, 3), L.ones(3)]),
                               L.linalg.multi_dot([_x(L), _x(L, (3, 4)), _x(L, (4, 2))])),
    "multi_dot-orders": lambda L, d: tuple(L.linalg.multi_dot([_x(L, s) for s in shapes]) for shapes in (
        [(2, 2), (2, 2), (2, 2)], [(5, 1), (1, 5), (5, 2)], [(1, 5), (5, 1), (1, 6)], [(3, 4), (4, 2), (2, 5), (5, 1)],
        [(2,), (2, 3), (3, 4), (4, 2), (2,)])),
    "multi_dot-mismatch": lambda L, d: L.linalg.multi_dot([L.ones(2, 3), L.ones(2, 2)]),
    "multi_dot-one": lambda L, d: L.linalg.multi_dot([L.ones(2)]),
    "multi_dot-3d": lambda L, d: L.linalg.multi_dot([L.ones(2, 2), L.ones(2, 2, 2), L.ones(2, 2)]),
    "cov": lambda L, d: (L.cov(_x(L)), L.cov(L.tensor([1.0, 2.0, 4.0])), L.cov(L.tensor([[1, 2, 4]])),
                         L.cov(_x(L), correction=0, fweights=L.tensor([1, 2, 3]),
                               aweights=L.tensor([1.0, 1.0, 2.0], dtype=L.float64)),
                         L.cov(L.tensor([[1, 2, 4]]), aweights=L.tensor([1.0, 2.0, 3.0], dtype=L.float64)),
                         _x(L).cov(correction=2, fweights=L.tensor([1, 2, 3]))),
    "cov-grad": lambda L, d: _backward_all((L.cov(_x(L, (3, 4)), aweights=L.tensor([1.0, 2.0, 1.0, 3.0],
                                                                                    dtype=L.float64)),), _x(L, (3, 4))),
    "cov-3d": lambda L, d: L.cov(L.ones(2, 2, 2)),
    "cov-float-fweights": lambda L, d: L.cov(_x(L), fweights=L.tensor([1.0, 2.0, 3.0])),
    "cov-int-aweights": lambda L, d: L.cov(_x(L), aweights=L.tensor([1, 2, 3])),
    "cov-2d-fweights": lambda L, d: L.cov(_x(L), fweights=L.tensor([[1, 2, 3]])),
    "cov-fweights-count": lambda L, d: L.cov(_x(L), fweights=L.tensor([1, 2])),
    "cov-negative-fweights": lambda L, d: L.cov(_x(L), fweights=L.tensor([1, -2, 1])),
    "cov-zero-weights": lambda L, d: L.cov(_x(L), fweights=L.tensor([0, 0, 0])),
    "corrcoef": lambda L, d: (L.corrcoef(L.tensor([[1.0, 2.0, 4.0], [1.0, 1.0, 1.0], [3.0, 1.0, 0.0]])),
                              L.corrcoef(L.tensor([1.0, 2.0, 4.0]))),
    "corrcoef-grad": lambda L, d: _backward_all((L.corrcoef(_x(L, (2, 4)) ** 2),), _x(L, (2, 4))),
    "histc": lambda L, d: (L.histc(L.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3),
                           L.histc(L.tensor([1.0, 1.0, 1.0]), bins=3), L.histc(L.tensor([]), bins=3),
                           L.histc(L.tensor([0.0, 1, 2, 3, 4, 10]), bins=3, min=1, max=4),
                           L.histc(L.tensor([1.0, 2.0], requires_grad=True), bins=3),
                           L.tensor([0.1, 0.2, 0.3, 0.7, 0.9, 1.0], dtype=L.float64).histc(10, 0, 1)),
    "histc-int": lambda L, d: L.histc(L.tensor([1, 2, 1]), 3),
    "histc-zero-bins": lambda L, d: L.histc(L.tensor([1.0]), bins=0),
    "histc-reversed": lambda L, d: L.histc(L.tensor([1.0]), bins=3, min=3, max=1),
    "histc-inf": lambda L, d: L.histc(L.tensor([1.0, float("inf")]), bins=3),
    "fmax": lambda L, d: (L.fmax(L.tensor([1.0, float("nan"), 2.0]), L.tensor([float("nan"), 0.0, 3.0])),
                          L.fmin(L.tensor([1.0, float("nan"), 2.0]), L.tensor([float("nan"), 0.0, 3.0])),
                          L.fmax(L.tensor([1, 5]), L.tensor([2.0, 3.0])), L.fmin(L.tensor([True]), L.tensor([False]))),
    "fmax-grad": lambda L, d: _backward_all((L.fmax(_x(L), _x(L, (3,)) * 0.5),
                                             _x(L).fmin(L.tensor(0.2, dtype=L.float64))),
                                            _x(L), _x(L, (3,))),
    "float_power": lambda L, d: (L.float_power(L.tensor([2.0]), L.tensor([0.5])), L.float_power(2, L.tensor([3])),
                                 L.float_power(L.tensor([2]), 2), L.tensor([2.0], dtype=L.float64).float_power_(2)),
    "float_power-grad": lambda L, d: _backward_all((L.float_power(_x(L) + 2, 2.5),), _x(L)),
    "float_power_-float32": lambda L, d: L.tensor([2.0]).float_power_(2),
    "logit": lambda L, d: (L.logit(L.tensor([0.0, 0.5, 1.0]), eps=1e-6), L.logit(L.tensor([0.0, 0.5, 1.0])),
                           L.logit(L.tensor([1, 0]))),
    "logit-grad": lambda L, d: _backward_all((L.logit(L.tensor([0.05, 0.2, 0.95], dtype=L.float64,
                                                               requires_grad=True), 0.1),),
                                             L.tensor([0.0], dtype=L.float64, requires_grad=True)),
}


@pytest.mark.parametrize("name", MATH)
def test_math_functions(name, device):
    same(MATH[name], device)


def test_logit_gradient_is_zero_outside_eps(device):
    def program(L, d):
        x = L.tensor([0.05, 0.2, 0.95], dtype=L.float64, requires_grad=True)
        L.logit(x, 0.1).sum().backward()
        y = x.detach().clone().requires_grad_()
        L.logit(y).sum().backward()
        return x.grad, y.grad
    same(program, device)


def test_chain_matmul_warns_once_as_torch(device):
    def run(L):
        return [warned(lambda: L.chain_matmul(L.ones(2, 3), L.ones(3, 2), L.ones(2, 2)).tolist()) for _ in range(2)]
    got, want = run(_OnDevice(device)), run(torch)
    assert [r for r, _ in got] == [r for r, _ in want]
    assert [[(c, m.replace("torch.", "minigrad.")) for c, m in w] for _, w in want] == [w for _, w in got]
    assert not got[1][1]   # torch's TORCH_WARN_ONCE: never a second time


def test_cov_warns_when_degrees_of_freedom_run_out(device):
    def run(L):
        return warned(lambda: L.cov(L.tensor([[1.0, 2.0, 4.0]]), correction=4).item())
    assert run(_OnDevice(device)) == run(torch)


def test_gradcheck_of_composed_nodes():
    x = minigrad.randn(3, 4, dtype=minigrad.float64, requires_grad=True)
    s = minigrad.randn(3, 2, dtype=minigrad.float64, requires_grad=True)
    i = minigrad.tensor([3, 1])
    for f, args in ((lambda a, b: minigrad.index_add(a, 1, i, b, alpha=0.5), (x, s)),
                    (lambda a, b: minigrad.index_copy(a, 1, i, b), (x, s)),
                    (lambda a: minigrad.cov(a), (x,)), (lambda a: minigrad.corrcoef(a), (x,)),
                    (lambda a, b: minigrad.block_diag(a, b), (x, s)),
                    (lambda a: minigrad.take(a, minigrad.tensor([0, 11, 0])), (x,)),
                    (lambda a: minigrad.logit(a.sigmoid(), 1e-3), (x,)),
                    (lambda a, b: minigrad.addcdiv(a, b.sum(1, keepdim=True), a.exp()), (x, s)),
                    (lambda a: minigrad.matrix_power(a[:, :3], 4), (x,)),
                    (lambda a: minigrad.vander(a[0], 5), (x,))):
        assert minigrad.autograd.gradcheck(f, args)


# ---- in-place forms, index_put, put, masked_scatter, fill_diagonal_ ------------------------------------

def _inplace_math(L, d):
    x = _x(L) * 0.3 + 1.0
    outs = tuple(getattr(x.clone(), m)(*a) for m, a in (
        ("sin_", ()), ("cos_", ()), ("erf_", ()), ("log1p_", ()), ("expm1_", ()), ("fix_", ()), ("frac_", ()),
        ("reciprocal_", ()), ("sign_", ()), ("pow_", (2,)), ("pow_", (L.tensor([1.0, 2.0, 0.5], dtype=L.float64),))))
    return _backward_all(outs, x)


PUTS = {
    "inplace-math": _inplace_math,
    "inplace-math-int": lambda L, d: L.tensor([1, 2]).sin_(),
    "pow_-int": lambda L, d: L.tensor([1, 2]).pow_(0.5),
    "inplace-products": lambda L, d: (L.ones(3).addmv_(L.ones(3, 2), L.ones(2)),
                                      L.ones(2, 2).addbmm_(L.ones(3, 2, 4), L.ones(3, 4, 2)),
                                      L.ones(3, 2, 2).baddbmm_(L.ones(3, 2, 4), L.ones(3, 4, 2), alpha=0.5)),
    "fill_diagonal_": lambda L, d: (L.zeros(3, 4).fill_diagonal_(5), L.zeros(7, 3).fill_diagonal_(5, wrap=True),
                                    L.zeros(7, 3).fill_diagonal_(5), L.zeros(2, 2, 2).fill_diagonal_(5),
                                    L.zeros(3, 7).fill_diagonal_(2, True)),
    "fill_diagonal_-grad": lambda L, d: _backward_all((_x(L, (3, 3)).clone().fill_diagonal_(5),), _x(L, (3, 3))),
    "fill_diagonal_-uneven": lambda L, d: L.zeros(2, 3, 2).fill_diagonal_(5),
    "fill_diagonal_-1d": lambda L, d: L.zeros(3).fill_diagonal_(5),
    "index_put": lambda L, d: _backward_all((
        _x(L, (3, 4)).index_put((L.tensor([0, 2]), L.tensor([1, 1])), L.tensor(9.0, dtype=L.float64)),
        L.index_put(_x(L, (3, 4)), (L.tensor([2]),), L.tensor([1.0, 2.0, 3.0, 4.0], dtype=L.float64)),
        _x(L, (3, 4)).index_put((L.tensor([True, False, True]),), L.tensor(1.0, dtype=L.float64)),
        _x(L, (3, 4)).index_put((L.tensor([0, 0, -1]), L.tensor([1, 1, 3])),
                                L.tensor([1.0, 2.0, 3.0], dtype=L.float64), accumulate=True),
        _x(L, (3, 4)).index_put((L.tensor([0, 0]),), L.tensor([1.0, 2.0, 3.0, 4.0], dtype=L.float64), True),
        _x(L, (3, 4)).index_put((L.tensor([True, True, False]),), L.tensor(2.0, dtype=L.float64), True)),
        _x(L, (3, 4))),
    "index_put_": lambda L, d: (L.zeros(3, 4).index_put_((L.tensor([0, 0]), L.tensor([1, 1])), L.tensor([1.0, 2.0]),
                                                         accumulate=True),
                                L.zeros(3, 4).index_put_((L.tensor([1]),), L.tensor(7.0))),
    "put": lambda L, d: _backward_all((_x(L, (3, 4)).put(L.tensor([0, 11, -1]), L.tensor([-1.0, -2, -3],
                                                                                          dtype=L.float64)),
                                       _x(L, (3, 4)).put(L.tensor([0, 0]), L.tensor([-1.0, -2], dtype=L.float64),
                                                         accumulate=True)), _x(L, (3, 4))),
    "put_": lambda L, d: L.zeros(3, 4).put_(L.tensor([[0, 5]]), L.tensor([[1.0, 2.0]])),
    "put-out-of-range": lambda L, d: L.zeros(3, 4).put_(L.tensor([12]), L.tensor([-1.0])),
    "put-count": lambda L, d: L.zeros(3, 4).put_(L.tensor([1, 2]), L.tensor([-1.0])),
    "masked_scatter": lambda L, d: _backward_all((
        _x(L, (3, 4)).masked_scatter(L.tensor([True, False, True, False]), _x(L, (12,)) * 2),
        L.masked_scatter(_x(L, (3, 4)), L.tensor([[True], [False], [True]]), _x(L, (12,)) * 3)), _x(L, (3, 4))),
    "masked_scatter_": lambda L, d: L.zeros(2, 3).masked_scatter_(L.tensor([[True, False, True], [False, True, False]]),
                                                                  L.arange(10.0)),
    "masked_scatter-short": lambda L, d: L.zeros(3, 4).masked_scatter(L.tensor([True, False, True, False]),
                                                                      L.arange(5.0)),
}


@pytest.mark.parametrize("name", PUTS)
def test_puts_and_inplace_forms(name, device):
    same(PUTS[name], device)
