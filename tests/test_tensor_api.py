"""The Tensor API surface pinned to PyTorch's: creation, dtypes, attributes, indexing, views,
in-place ops and devices. Expected values are literals (checked once against torch 2.13)."""
import numpy as np
import pytest

import minigrad


def arr(t):
    return t.detach().cpu().numpy()


# --- creation ---------------------------------------------------------------------------------

def test_tensor_infers_dtype():
    assert minigrad.tensor([1, 2]).dtype == minigrad.int64
    assert minigrad.tensor([1.0, 2]).dtype == minigrad.float32
    assert minigrad.tensor([True, False]).dtype == minigrad.bool
    assert minigrad.tensor(3).dtype == minigrad.int64
    assert minigrad.tensor([]).dtype == minigrad.float32
    # numpy arrays keep their dtype
    assert minigrad.tensor(np.array([1.0, 2.0])).dtype == minigrad.float64
    assert minigrad.tensor(np.array([1, 2], dtype=np.int32)).dtype == minigrad.int32


def test_tensor_with_dtype_device_requires_grad(device):
    t = minigrad.tensor([[1, 2, 3]], dtype=minigrad.float64, device=device, requires_grad=True)
    assert tuple(t.shape) == (1, 3)
    assert t.dtype == minigrad.float64
    assert t.device.type == device
    assert t.requires_grad and t.is_leaf and t.grad is None
    assert t.tolist() == [[1.0, 2.0, 3.0]]


def test_tensor_copies_its_input():
    a = np.zeros(3, dtype=np.float32)
    t = minigrad.tensor(a)
    a[0] = 1
    assert t.tolist() == [0.0, 0.0, 0.0]


def test_dtype_aliases():
    assert minigrad.float is minigrad.float32
    assert minigrad.double is minigrad.float64
    assert minigrad.long is minigrad.int64
    assert minigrad.int is minigrad.int32


def test_dtype_repr_names_the_package():
    assert repr(minigrad.float64) == "minigrad.float64"
    assert str(minigrad.int64) == "minigrad.int64"


@pytest.mark.parametrize("make", [
    lambda *s: minigrad.zeros(*s), lambda *s: minigrad.ones(*s), lambda *s: minigrad.empty(*s),
    lambda *s: minigrad.rand(*s), lambda *s: minigrad.randn(*s),
])
def test_shapes_as_ints_or_tuple(make):
    assert tuple(make(2, 3).shape) == (2, 3)
    assert tuple(make((2, 3)).shape) == (2, 3)
    assert tuple(make([2, 3]).shape) == (2, 3)
    t = make(())
    assert tuple(t.shape) == () and t.dim() == 0 and t.numel() == 1
    assert make(2).dtype == minigrad.float32


def test_zeros_ones_full():
    assert minigrad.zeros(2, 2).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert minigrad.ones(3, dtype=minigrad.int64).tolist() == [1, 1, 1]
    f = minigrad.full((2,), 7)
    assert f.dtype == minigrad.int64 and f.tolist() == [7, 7]
    assert minigrad.full((2,), 7.0).dtype == minigrad.float32
    assert minigrad.full((2,), True).dtype == minigrad.bool
    assert minigrad.full((2, 1), 1.5, dtype=minigrad.float64).tolist() == [[1.5], [1.5]]
    assert minigrad.zeros(2, requires_grad=True).requires_grad


def test_arange():
    a = minigrad.arange(5)
    assert a.dtype == minigrad.int64 and a.tolist() == [0, 1, 2, 3, 4]
    assert minigrad.arange(1, 4).tolist() == [1, 2, 3]
    assert minigrad.arange(5.0).dtype == minigrad.float32
    assert minigrad.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    b = minigrad.arange(3, dtype=minigrad.float32)
    assert b.dtype == minigrad.float32 and b.tolist() == [0.0, 1.0, 2.0]
    assert minigrad.arange(10, 0, -3).tolist() == [10, 7, 4, 1]


def test_linspace_and_eye():
    l = minigrad.linspace(0, 1, 5)
    assert l.dtype == minigrad.float32 and l.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert minigrad.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert minigrad.eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert minigrad.eye(2).dtype == minigrad.float32


def test_random_creation():
    r = minigrad.rand(1000)
    assert r.dtype == minigrad.float32 and 0 <= r.min().item() and r.max().item() < 1
    n = minigrad.randn(10000, dtype=minigrad.float64)
    assert n.dtype == minigrad.float64 and abs(n.mean().item()) < 0.1 and abs(n.std().item() - 1) < 0.1
    i = minigrad.randint(0, 5, (200,))
    assert i.dtype == minigrad.int64 and tuple(i.shape) == (200,)
    assert set(i.tolist()) <= {0, 1, 2, 3, 4} and len(set(i.tolist())) > 1
    j = minigrad.randint(3, (2, 2))  # high only
    assert tuple(j.shape) == (2, 2) and set(j.flatten().tolist()) <= {0, 1, 2}


def test_manual_seed_reproducible():
    minigrad.manual_seed(0)
    a, b, c = minigrad.rand(3), minigrad.randn(3), minigrad.randint(0, 100, (3,))
    minigrad.manual_seed(0)
    assert minigrad.rand(3).tolist() == a.tolist()
    assert minigrad.randn(3).tolist() == b.tolist()
    assert minigrad.randint(0, 100, (3,)).tolist() == c.tolist()
    minigrad.manual_seed(1)
    assert minigrad.rand(3).tolist() != a.tolist()


@pytest.mark.parametrize("draw", [lambda g, d: minigrad.rand(4, 3, generator=g, device=d),
                                  lambda g, d: minigrad.randn(5, dtype=minigrad.float64, generator=g, device=d),
                                  lambda g, d: minigrad.randint(-3, 9, (6,), generator=g, device=d),
                                  lambda g, d: minigrad.empty(4, device=d).uniform_(-2, 2, generator=g),
                                  lambda g, d: minigrad.empty(4, device=d).normal_(1, 3, generator=g)],
                         ids=["rand", "randn", "randint", "uniform_", "normal_"])
def test_a_generator_passed_is_the_one_drawn_from(device, draw):
    """generator= gives the same draws for the same seed, whatever the global seed did in between,
    and other draws for another seed."""
    minigrad.manual_seed(0)
    a = draw(minigrad.Generator().manual_seed(7), device)
    minigrad.manual_seed(123)
    minigrad.rand(10, device=device)
    b = draw(minigrad.Generator().manual_seed(7), device)
    c = draw(minigrad.Generator().manual_seed(8), device)
    assert a.device == b.device and a.tolist() == b.tolist() and a.tolist() != c.tolist()


def test_like_constructors():
    i32 = minigrad.ones(2, 3, dtype=minigrad.int32)
    z = minigrad.zeros_like(i32)
    assert z.dtype == minigrad.int32 and z.tolist() == [[0, 0, 0]] * 2
    f = minigrad.ones(2)
    assert minigrad.ones_like(f, dtype=minigrad.float64).dtype == minigrad.float64
    assert minigrad.full_like(f, 3).tolist() == [3.0, 3.0]
    assert tuple(minigrad.rand_like(f).shape) == (2,)
    assert minigrad.randn_like(minigrad.ones(2, dtype=minigrad.float64)).dtype == minigrad.float64
    assert minigrad.empty_like(i32).dtype == minigrad.int32
    # *_like never inherits requires_grad
    assert not minigrad.zeros_like(minigrad.ones(2, requires_grad=True)).requires_grad


def test_from_numpy_shares_memory_both_ways():
    a = np.zeros(3, dtype=np.float32)
    t = minigrad.from_numpy(a)
    assert t.dtype == minigrad.float32
    a[0] = 1
    t[1] = 2
    assert t.tolist() == [1.0, 2.0, 0.0]
    assert a.tolist() == [1.0, 2.0, 0.0]
    assert minigrad.from_numpy(np.arange(3)).dtype == minigrad.int64
    assert minigrad.from_numpy(np.ones(2)).dtype == minigrad.float64


def test_numpy_shares_memory():
    t = minigrad.ones(3)
    n = t.numpy()
    n[0] = 7
    assert t.tolist() == [7.0, 1.0, 1.0]


# --- dtype promotion --------------------------------------------------------------------------

F32, F64 = minigrad.float32, minigrad.float64
I32, I64, B = minigrad.int32, minigrad.int64, minigrad.bool


@pytest.mark.parametrize("fn,expected", [
    (lambda: minigrad.ones(2) * 2.5, F32),
    (lambda: 2.5 * minigrad.ones(2, dtype=F64), F64),
    (lambda: minigrad.ones(2, dtype=I64) * 2.5, F32),
    (lambda: minigrad.ones(2, dtype=I32) * 2.5, F32),
    (lambda: minigrad.ones(2, dtype=I64) * 2, I64),
    (lambda: minigrad.ones(2, dtype=I32) + 1, I32),
    (lambda: minigrad.ones(2, dtype=I64) / minigrad.ones(2, dtype=I64), F32),
    (lambda: minigrad.ones(2, dtype=I32) / 2, F32),
    (lambda: 2 / minigrad.ones(2, dtype=I64), F32),
    (lambda: minigrad.ones(2, dtype=I32) + minigrad.ones(2, dtype=I64), I64),
    (lambda: minigrad.ones(2) + minigrad.ones(2, dtype=F64), F64),
    (lambda: minigrad.ones(2, dtype=B) + minigrad.ones(2, dtype=I64), I64),
    (lambda: minigrad.ones(2, dtype=B) + 1, I64),
    (lambda: minigrad.ones(2, dtype=B) + 1.5, F32),
    (lambda: minigrad.ones(2, dtype=B) * minigrad.ones(2, dtype=B), B),
    (lambda: minigrad.ones(2, dtype=I64) ** 2, I64),
    (lambda: minigrad.ones(2, dtype=I64) ** 2.0, F32),
    (lambda: minigrad.ones(2, dtype=I64) > 1, B),
    (lambda: minigrad.ones(2) == minigrad.ones(2), B),
    # a 0-d tensor only promotes when it is of a higher category (int < float)
    (lambda: minigrad.ones(2) + minigrad.tensor(1.0, dtype=F64), F32),
    (lambda: minigrad.ones(2, dtype=I32) + minigrad.tensor(1), I32),
    (lambda: minigrad.ones(2, dtype=I64) + minigrad.tensor(1.0), F32),
    (lambda: minigrad.ones(2, dtype=I32) + minigrad.tensor(1.0, dtype=F64), F64),
    (lambda: minigrad.tensor(1.0) + minigrad.tensor(1.0, dtype=F64), F64),
])
def test_promotion(fn, expected):
    assert fn().dtype == expected


def test_dtype_conversions():
    x = minigrad.tensor([1.7, -1.7])
    assert x.float().dtype == F32
    assert x.double().dtype == F64
    assert x.long().dtype == I64 and x.long().tolist() == [1, -1]  # truncation toward zero
    assert x.int().dtype == I32
    assert x.bool().tolist() == [True, True]
    assert minigrad.tensor([0.0, 2.0]).bool().tolist() == [False, True]
    assert x.to(F64).dtype == F64
    assert x.to(F32) is x  # no-op conversion returns self, as torch
    assert x.to(dtype=I64).tolist() == [1, -1]


def test_dtype_conversion_is_differentiable():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.double()
    assert y.requires_grad
    (y * y).sum().backward()
    assert x.grad.dtype == F32 and x.grad.tolist() == [2.0, 4.0]


# --- attributes -------------------------------------------------------------------------------

def test_shape_size_dim():
    x = minigrad.zeros(2, 3)
    assert x.shape == (2, 3) and x.size() == (2, 3)
    assert x.size(1) == 3 and x.size(-1) == 3 and x.shape[0] == 2
    assert x.dim() == 2 and x.ndim == 2 and x.numel() == 6
    assert len(x) == 2
    s = minigrad.tensor(5.0)
    assert s.shape == () and s.dim() == 0 and s.numel() == 1


def test_device_attribute():
    x = minigrad.zeros(2)
    assert repr(x.device) == "device(type='cpu')"
    assert str(x.device) == "cpu"
    assert x.device == minigrad.device("cpu")
    assert x.device.type == "cpu"
    t = minigrad.tensor([1.0], device=minigrad.device("cpu"))
    assert str(t.device) == "cpu"


def test_requires_grad_settable_on_leaves_only():
    x = minigrad.ones(2)
    x.requires_grad = True
    assert x.requires_grad
    x.requires_grad = False
    assert not x.requires_grad
    x.requires_grad = True
    y = x * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables."):
        y.requires_grad = False


def test_grad_settable_and_none():
    x = minigrad.ones(2, requires_grad=True)
    assert x.grad is None
    x.grad = minigrad.tensor([3.0, 4.0])
    assert x.grad.tolist() == [3.0, 4.0]
    x.grad = None
    assert x.grad is None


def test_grad_fn_and_is_leaf():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert x.grad_fn is None and x.is_leaf
    m = x.mean()
    assert repr(m.grad_fn).startswith("<MeanBackward0 object at ")
    assert not m.is_leaf
    assert minigrad.ones(2).is_leaf and (minigrad.ones(2) * 2).is_leaf
    assert x.detach().is_leaf


def test_data_is_detached_alias():
    x = minigrad.ones(2, requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.is_leaf
    d[0] = 5
    assert x.tolist() == [5.0, 1.0]
    x.data = minigrad.zeros(2)
    assert x.tolist() == [0.0, 0.0] and x.requires_grad


def test_T_item_tolist():
    y = minigrad.arange(6.0).reshape(2, 3)
    assert y.T.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert y.t().tolist() == y.T.tolist()
    assert minigrad.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert minigrad.tensor(2.5).item() == 2.5
    assert type(minigrad.tensor(3).item()) is int
    assert type(minigrad.tensor(3.0).item()) is float
    assert minigrad.tensor(True).item() is True
    assert type(minigrad.tensor(3.0).tolist()) is float
    assert minigrad.tensor([4.0]).item() == 4.0
    assert int(minigrad.tensor(3.7)) == 3 and float(minigrad.tensor([2.5])) == 2.5


def test_numpy_refuses_requires_grad():
    x = minigrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad\. "
                                           r"Use tensor\.detach\(\)\.numpy\(\) instead\."):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0, 1.0]


def test_len_and_iter():
    y = minigrad.tensor([[1, 2], [3, 4]])
    assert len(y) == 2
    rows = list(y)
    assert [r.tolist() for r in rows] == [[1, 2], [3, 4]]
    assert [repr(v) for v in minigrad.tensor([1.0, 2.0])] == ["tensor(1.)", "tensor(2.)"]
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(minigrad.tensor(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(minigrad.tensor(1.0))


def test_iteration_is_differentiable():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    a, b = x
    (a * b).backward()
    assert x.grad.tolist() == [2.0, 1.0]


def test_bool():
    assert bool(minigrad.tensor([0.0])) is False
    assert bool(minigrad.tensor(2.0)) is True
    assert bool(minigrad.tensor([[3.0]])) is True
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        bool(minigrad.ones(2))


def test_format_0d():
    assert f"{minigrad.tensor(3.14159):.2f}" == "3.14"
    assert f"{minigrad.tensor(3):d}" == "3"
    assert format(minigrad.tensor(2.5)) == "2.5"


@pytest.mark.parametrize("make,text", [
    (lambda: minigrad.tensor([1, 2, 3]), "tensor([1, 2, 3])"),
    (lambda: minigrad.tensor([1.5, 2, 3]), "tensor([1.5000, 2.0000, 3.0000])"),
    (lambda: minigrad.tensor(3.0), "tensor(3.)"),
    (lambda: minigrad.tensor([[1.0, 2], [3, 4]]), "tensor([[1., 2.],\n        [3., 4.]])"),
    (lambda: minigrad.tensor([True, False]), "tensor([ True, False])"),
    (lambda: minigrad.tensor([0.1, 100.0]), "tensor([  0.1000, 100.0000])"),
    (lambda: minigrad.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    (lambda: minigrad.tensor([1.23456789]), "tensor([1.2346])"),
    (lambda: minigrad.zeros(0), "tensor([])"),
    (lambda: minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True), "tensor([1., 2., 3.], requires_grad=True)"),
    (lambda: minigrad.tensor(2.0, requires_grad=True) * 2, "tensor(4., grad_fn=<MulBackward0>)"),
])
def test_repr(make, text):
    assert repr(make()) == text


@pytest.mark.parametrize("make,text", [
    (lambda: minigrad.tensor([1.0, 2.0], dtype=minigrad.float64), "tensor([1., 2.], dtype={})"),
    (lambda: minigrad.tensor([1, 2], dtype=minigrad.int32), "tensor([1, 2], dtype={})"),
    (lambda: minigrad.tensor([1.0], dtype=minigrad.float64, requires_grad=True),
     "tensor([1.], dtype={}, requires_grad=True)"),
])
def test_repr_with_dtype(make, text):
    t = make()
    # the dtype prints as the package's own name (minigrad.float64), pinned in test_dtype_repr_*
    assert repr(t) == text.format(repr(t.dtype))


# --- indexing ---------------------------------------------------------------------------------

def test_getitem():
    a = minigrad.arange(12).reshape(3, 4)
    assert a[1].tolist() == [4, 5, 6, 7]
    assert a[:, 1].tolist() == [1, 5, 9]
    assert a[::2, 1::2].tolist() == [[1, 3], [9, 11]]
    assert tuple(a[None].shape) == (1, 3, 4)
    assert tuple(a[:, None, :].shape) == (3, 1, 4)
    assert a[..., 1].tolist() == [1, 5, 9]
    assert tuple(a[1:, ...].shape) == (2, 4)
    assert a[[0, 2]].tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]
    assert a[minigrad.tensor([2, 0])].tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]]
    assert a[a > 5].tolist() == [6, 7, 8, 9, 10, 11]
    assert a[[0, 2], [1, 3]].tolist() == [1, 11]
    assert a[-1].tolist() == [8, 9, 10, 11]
    assert tuple(a[0:0].shape) == (0, 4)
    e = a[1, 2]
    assert e.dim() == 0 and e.item() == 6


def test_getitem_gradients():
    x = minigrad.arange(6.0, requires_grad=True)
    x.reshape(2, 3)[:, ::2].sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    x = minigrad.arange(4.0, requires_grad=True)
    x[[0, 0, 1]].sum().backward()  # repeated indices accumulate
    assert x.grad.tolist() == [2.0, 1.0, 0.0, 0.0]
    x = minigrad.tensor([1.0, -2.0, 3.0], requires_grad=True)
    (x[x > 0] * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 2.0]


def test_setitem():
    b = minigrad.zeros(3, 4)
    b[0] = 1
    b[:, 1] = 2
    b[b > 1.5] = 9
    b[2, 3] = minigrad.tensor(5.0)
    b[[1, 2], [0, 0]] = 7
    b[1, 1:3] = minigrad.tensor([3.0, 4.0])
    assert b.tolist() == [[1.0, 9.0, 1.0, 1.0], [7.0, 3.0, 4.0, 0.0], [7.0, 9.0, 0.0, 5.0]]
    c = minigrad.zeros(2, 3)
    c[:] = minigrad.tensor([1.0, 2.0, 3.0])  # broadcast on assignment
    assert c.tolist() == [[1.0, 2.0, 3.0]] * 2


# --- cat / stack / split / chunk --------------------------------------------------------------

def test_cat_and_stack():
    assert minigrad.cat([minigrad.ones(1, 2), minigrad.zeros(2, 2)]).tolist() == [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
    assert tuple(minigrad.cat([minigrad.ones(2, 1), minigrad.zeros(2, 2)], dim=1).shape) == (2, 3)
    assert tuple(minigrad.cat((minigrad.ones(2, 1), minigrad.zeros(2, 2)), -1).shape) == (2, 3)
    assert minigrad.stack([minigrad.ones(2), minigrad.zeros(2)]).tolist() == [[1.0, 1.0], [0.0, 0.0]]
    assert minigrad.stack([minigrad.ones(2), minigrad.zeros(2)], dim=1).tolist() == [[1.0, 0.0], [1.0, 0.0]]
    assert tuple(minigrad.stack([minigrad.ones(2), minigrad.zeros(2)], dim=-1).shape) == (2, 2)


def test_cat_promotes_and_backprops():
    assert minigrad.cat([minigrad.ones(1, dtype=minigrad.int64), minigrad.ones(1)]).dtype == minigrad.float32
    a = minigrad.ones(2, requires_grad=True)
    b = minigrad.ones(3, requires_grad=True)
    (minigrad.cat([a, b]) * minigrad.arange(5.0)).sum().backward()
    assert a.grad.tolist() == [0.0, 1.0] and b.grad.tolist() == [2.0, 3.0, 4.0]
    (minigrad.stack([a, a]) * minigrad.tensor([[1.0], [2.0]])).sum().backward()
    assert a.grad.tolist() == [3.0, 4.0]


def test_split_and_chunk():
    lists = lambda ts: [t.tolist() for t in ts]
    r = minigrad.arange(5)
    assert isinstance(r.split(2), tuple)
    assert lists(r.split(2)) == [[0, 1], [2, 3], [4]]
    assert lists(r.split([1, 4])) == [[0], [1, 2, 3, 4]]
    assert lists(minigrad.split(r, 3)) == [[0, 1, 2], [3, 4]]
    assert lists(r.chunk(2)) == [[0, 1, 2], [3, 4]]
    assert lists(minigrad.arange(6).chunk(4)) == [[0, 1], [2, 3], [4, 5]]  # torch may return fewer
    assert lists(minigrad.chunk(minigrad.arange(6), 3)) == [[0, 1], [2, 3], [4, 5]]
    cols = minigrad.arange(6).reshape(2, 3).split(1, dim=1)
    assert lists(cols) == [[[0], [3]], [[1], [4]], [[2], [5]]]


def test_split_backprops():
    x = minigrad.arange(4.0, requires_grad=True)
    a, b = x.split(2)
    (a * 2 + b * 3).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 3.0, 3.0]


# --- in-place ops -----------------------------------------------------------------------------

def test_inplace_ops_keep_identity_and_bump_version():
    x = minigrad.tensor([1.0, 2.0, 3.0])
    ident = id(x)
    steps = [
        (lambda t: t.add_(1), [2.0, 3.0, 4.0]),
        (lambda t: t.sub_(0.5), [1.5, 2.5, 3.5]),
        (lambda t: t.mul_(2), [3.0, 5.0, 7.0]),
        (lambda t: t.div_(0.5), [6.0, 10.0, 14.0]),
        (lambda t: t.clamp_(min=7, max=12), [7.0, 10.0, 12.0]),
        (lambda t: t.copy_(minigrad.tensor([1, 2, 3])), [1.0, 2.0, 3.0]),
        (lambda t: t.fill_(2), [2.0, 2.0, 2.0]),
        (lambda t: t.zero_(), [0.0, 0.0, 0.0]),
        (lambda t: t.add_(minigrad.tensor([1.0, 2.0, 3.0])), [1.0, 2.0, 3.0]),
        (lambda t: t.mul_(minigrad.tensor(2.0)), [2.0, 4.0, 6.0]),
    ]
    for op, expected in steps:
        v = x._version
        assert op(x) is x  # in-place methods return self
        assert x.tolist() == expected
        assert x._version == v + 1
    assert x.dtype == minigrad.float32  # copy_ from int64 casts into x
    for op, expected in [("+=", [3.0, 5.0, 7.0]), ("-=", [2.0, 4.0, 6.0]), ("*=", [4.0, 8.0, 12.0])]:
        v = x._version
        if op == "+=":
            x += 1
        elif op == "-=":
            x -= 1
        else:
            x *= 2
        assert id(x) == ident and x.tolist() == expected and x._version == v + 1


def test_inplace_int_tensor_stays_int():
    y = minigrad.tensor([5])
    y.add_(1)
    y *= 2
    assert y.dtype == minigrad.int64 and y.tolist() == [12]


def test_inplace_broadcasts_other_operand():
    x = minigrad.zeros(2, 3)
    x.add_(minigrad.tensor([1.0, 2.0, 3.0]))
    assert x.tolist() == [[1.0, 2.0, 3.0]] * 2
    assert minigrad.ones(3).add_(minigrad.ones(3), alpha=2).tolist() == [3.0, 3.0, 3.0]


# --- views share memory -----------------------------------------------------------------------

def test_views_share_memory_with_base():
    base = minigrad.arange(6.0)
    base.view(2, 3)[0, 0] = 100
    assert base.tolist() == [100.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    base.reshape(3, 2).mul_(2)  # reshape of a contiguous tensor is a view
    assert base.tolist() == [200.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    base.view(2, 3).t()[0, 1] = -1
    assert base.tolist() == [200.0, 2.0, 4.0, -1.0, 8.0, 10.0]
    base[1::2].fill_(0)
    assert base.tolist() == [200.0, 0.0, 4.0, 0.0, 8.0, 0.0]
    z = minigrad.zeros(2, 3)
    z.transpose(0, 1)[2].fill_(1)
    assert z.tolist() == [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]
    u = minigrad.zeros(3)
    u.unsqueeze(0).squeeze(0)[1] = 3
    assert u.tolist() == [0.0, 3.0, 0.0]
    w = minigrad.zeros(2, 2)
    w.flatten()[3] = 1  # flatten of contiguous is a view
    assert w.tolist() == [[0.0, 0.0], [0.0, 1.0]]


def test_clone_and_contiguous():
    base = minigrad.zeros(3)
    c = base.clone()
    c[0] = 1
    assert base.tolist() == [0.0, 0.0, 0.0]
    t = minigrad.arange(6.0).reshape(2, 3).t()
    assert t.contiguous().tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert t.contiguous().view(6).tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]


def test_view_grad_flows_to_base_of_inplace():
    x = minigrad.ones(4, requires_grad=True)
    y = x * 1
    y[:2].mul_(3)
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 1.0, 1.0]


# --- devices ----------------------------------------------------------------------------------

def test_device_objects():
    assert minigrad.device("cpu").type == "cpu"
    assert minigrad.device("cpu").index is None
    d = minigrad.device("cuda:1")
    assert d.type == "cuda" and d.index == 1
    assert str(d) == "cuda:1" and repr(d) == "device(type='cuda', index=1)"
    assert str(minigrad.device("cuda")) == "cuda" and minigrad.device("cuda").index is None
    assert minigrad.device("cuda", 1) == d
    assert minigrad.device("cpu") == minigrad.device("cpu") and minigrad.device("cpu") != d


def test_to_and_cpu_on_cpu_tensor():
    x = minigrad.ones(2)
    assert x.to("cpu") is x
    assert x.to(minigrad.device("cpu")) is x
    assert x.cpu() is x
    y = x.to("cpu", minigrad.float64)
    assert y.dtype == minigrad.float64 and y.device.type == "cpu"


def test_to_device_roundtrip(device):
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.to(device)
    assert y.device.type == device
    back = (y * 2).cpu()
    assert back.device.type == "cpu" and back.tolist() == [2.0, 4.0]
    back.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


needs_no_gpu = pytest.mark.skipif(minigrad.cuda.is_available(), reason="a CUDA GPU is present")


@needs_no_gpu
def test_cuda_unavailable_is_not_an_error():
    assert minigrad.cuda.is_available() is False
    assert minigrad.cuda.device_count() == 0


@needs_no_gpu
@pytest.mark.parametrize("move", [lambda t: t.cuda(), lambda t: t.cuda(0)], ids=["cuda()", "cuda(0)"])
def test_cuda_without_gpu_explains_how_to_install(move):
    with pytest.raises(RuntimeError) as info:
        move(minigrad.ones(2))
    message = str(info.value)
    assert "CUDA" in message and "not available" in message and "install" in message


@needs_no_gpu
def test_to_cuda_without_gpu_raises():
    with pytest.raises(RuntimeError, match="CUDA"):
        minigrad.ones(2).to("cuda")
