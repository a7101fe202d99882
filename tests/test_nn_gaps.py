"""FractionalMaxPool2d/3d (F.fractional_max_pool2d/3d and their _with_indices forms) and
nn.AdaptiveLogSoftmaxWithLoss against PyTorch: values, indices and gradients with the same
`_random_samples`, errors, reprs and state dicts."""
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.nn as nn
import minigrad.nn.functional as F
from test_nn_functional import _OnDevice, _np

torch = pytest.importorskip("torch")


def same_error(call, device):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as want:
            call(torch, torch.nn.functional)
        with pytest.raises(Exception) as got:
            call(_OnDevice(device), F)
    assert type(got.value).__name__ == type(want.value).__name__, str(got.value)
    assert str(got.value) == str(want.value).replace("torch.", "minigrad.")


# ---- fractional max pooling ---------------------------------------------------------------------------

_POOL_CASES = [
    (2, (2, 3, 8, 9), 3, 4, "plain"), (2, (2, 3, 8, 9), (2, 3), (6, 5), "plain"), (2, (3, 11, 10), 2, (7, 8), "nan"),
    (2, (2, 2, 8, 9), 2, (5, 5), "ties"), (2, (2, 3, 8, 9), 2, 1, "plain"), (2, (1, 2, 5, 5), 5, 1, "inf"),
    (2, (2, 2, 6, 6), 2, 5, "plain"),
    (3, (2, 2, 6, 7, 8), 2, (3, 4, 5), "plain"), (3, (2, 6, 7, 8), (1, 2, 3), (3, 4, 5), "nan"),
    (3, (1, 2, 9, 9, 9), 2, 4, "ties"),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("dims,shape,kernel,out,kind", _POOL_CASES, ids=[f"{c[0]}d-{c[4]}-{i}"
                                                                           for i, c in enumerate(_POOL_CASES)])
def test_fractional_max_pool_matches_torch(device, dims, shape, kernel, out, kind, dtype):
    if device == "cuda" and (dtype == np.float32 or np.prod(shape) > 500):
        pytest.skip("small float64 cases only on the emulated device")
    r = np.random.default_rng(len(shape) * 100 + np.prod(shape))
    x = r.standard_normal(shape)
    if kind == "ties":
        x = np.round(x)
    elif kind == "nan":
        x.reshape(-1)[r.integers(0, x.size, 6)] = np.nan
    elif kind == "inf":
        x[...] = -np.inf
        x.reshape(-1)[3] = np.nan if dtype == np.float64 else -np.inf
    nb = shape[0] if len(shape) == dims + 2 else 1
    s = r.uniform(0, 1, (nb, shape[-dims - 1], dims))
    tdt = torch.float64 if dtype == np.float64 else torch.float32
    mdt = minigrad.float64 if dtype == np.float64 else minigrad.float32
    tx = torch.tensor(x, dtype=tdt, requires_grad=True)
    mx = minigrad.tensor(x, dtype=mdt, device=device, requires_grad=True)
    tf = getattr(torch.nn.functional, f"fractional_max_pool{dims}d")
    mf = getattr(F, f"fractional_max_pool{dims}d")
    to, ti = tf(tx, kernel, output_size=out, return_indices=True, _random_samples=torch.tensor(s, dtype=tdt))
    mo, mi = mf(mx, kernel, output_size=out, return_indices=True,
                _random_samples=minigrad.tensor(s, dtype=mdt, device=device))
    assert mo.grad_fn.name() == to.grad_fn.name() == f"FractionalMaxPool{dims}DBackward0"
    assert mi.dtype == minigrad.int64 and mi.grad_fn is None and not mi.requires_grad
    assert mo.dtype == mdt and tuple(mo.shape) == tuple(to.shape)
    np.testing.assert_array_equal(_np(mi), ti.numpy())
    np.testing.assert_array_equal(_np(mo), to.detach().numpy())
    cot = r.standard_normal(tuple(to.shape))
    to.backward(torch.tensor(cot, dtype=tdt))
    mo.backward(minigrad.tensor(cot, dtype=mdt, device=device))
    np.testing.assert_allclose(_np(mx.grad), tx.grad.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dims", [2, 3])
def test_fractional_max_pool_ratio_and_random_samples(device, dims):
    """Without _random_samples the windows come from minigrad's generator: the output is the
    maximum of some window of size kernel, the shape follows output_ratio, and the module's fixed
    samples make two calls agree."""
    shape = (2, 3, 10, 11) if dims == 2 else (1, 2, 6, 7, 8)
    x = minigrad.randn(*shape, device=device)
    cls = nn.FractionalMaxPool2d if dims == 2 else nn.FractionalMaxPool3d
    pool = cls(2, output_ratio=0.5, return_indices=True)
    out, idx = pool(x)
    want = tuple(int(n * 0.5) for n in shape[2:])
    assert tuple(out.shape) == shape[:2] + want
    flat = _np(x).reshape(shape[0], shape[1], -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, _np(idx).reshape(shape[0], shape[1], -1), 2),
                                  _np(out).reshape(shape[0], shape[1], -1))
    samples = minigrad.rand(shape[0], shape[1], dims, device=device)
    fixed = cls(2, output_size=3, _random_samples=samples)
    np.testing.assert_array_equal(_np(fixed(x)), _np(fixed(x)))
    assert list(fixed.state_dict()) == ["_random_samples"] and list(pool.state_dict()) == []
    assert repr(fixed) == repr(getattr(torch.nn, cls.__name__)(2, output_size=3))


def test_fractional_max_pool_double_backward():
    """The backward is differentiable: d/dv of sum(grad(out, x, v)) is the count of each window's pick."""
    r = np.random.default_rng(0)
    x, s, v = r.standard_normal((1, 2, 6, 6)), r.uniform(size=(1, 2, 2)), r.standard_normal((1, 2, 3, 3))
    res = []
    for lib, f in ((minigrad, F.fractional_max_pool2d), (torch, torch.nn.functional.fractional_max_pool2d)):
        tx, tv = lib.tensor(x, requires_grad=True), lib.tensor(v, requires_grad=True)
        out = f(tx, 2, output_size=3, _random_samples=lib.tensor(s))
        (g,) = lib.autograd.grad(out, tx, tv, create_graph=True)
        (gv,) = lib.autograd.grad((g * lib.tensor(x)).sum(), tv)
        res.append((g.detach().numpy(), gv.numpy()))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])


@pytest.mark.parametrize("call", [
    lambda lib, F: lib.nn.FractionalMaxPool2d(3),
    lambda lib, F: lib.nn.FractionalMaxPool2d(3, 4, 0.5),
    lambda lib, F: lib.nn.FractionalMaxPool2d(3, output_ratio=1.5),
    lambda lib, F: lib.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 1.0)),
    lambda lib, F: lib.nn.FractionalMaxPool3d(2),
    lambda lib, F: lib.nn.FractionalMaxPool3d(0, output_ratio=0.5),
    lambda lib, F: lib.nn.FractionalMaxPool3d((1, 0, 1), output_ratio=0.5),
    lambda lib, F: lib.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 0.0)),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 3, 8, 9), 3),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 3, 8, 9), 3, output_size=7),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 3, 8, 9), 3, output_size=(6, 8)),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 3, 8, 9), (3, 3, 3), output_size=(6, 7)),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 3, 8, 9), 3, output_size=(6, 7, 1)),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 3, 8, 9), 3, output_ratio=(0.5, 0.5, 0.5)),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 3, 8, 9), 3, output_ratio=0.5),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 3, 8, 9), 3, output_size=-1),
    lambda lib, F: F.fractional_max_pool2d(lib.zeros(2, 3, 8, 9, dtype=lib.int64), 3, output_size=2),
    lambda lib, F: F.fractional_max_pool2d(lib.zeros(2, 3, 8, 9, dtype=lib.int64), 3, output_size=2,
                                           _random_samples=lib.zeros(2, 3, 2, dtype=lib.int64)),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 3, 8, 9), 3, output_size=2,
                                           _random_samples=lib.rand(2, 3, 2, dtype=lib.float64)),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 3, 8, 9), 3, output_size=2, _random_samples=lib.rand(2, 3)),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 3, 8, 9), 3, output_size=2,
                                           _random_samples=lib.rand(1, 3, 2)),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 3, 8, 9), 3, output_size=2,
                                           _random_samples=lib.rand(2, 2, 2)),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 3, 8, 9), 3, output_size=2,
                                           _random_samples=lib.rand(2, 3, 3)),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(8, 9), 3, output_size=2),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 0, 8, 9), 3, output_size=2),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(2, 3, 0, 9), 3, output_size=2),
    lambda lib, F: F.fractional_max_pool2d(lib.randn(1, 2, 3, 8, 9), 3, output_size=2),
    lambda lib, F: F.fractional_max_pool3d(lib.randn(2, 3, 6, 7, 8), 2, output_size=6),
    lambda lib, F: F.fractional_max_pool3d(lib.randn(2, 3, 6, 7, 8), 2, output_size=(4, 6, 7)),
    lambda lib, F: F.fractional_max_pool3d(lib.randn(2, 3, 6, 7, 8), 2, output_size=(4, 6, 6)),
    lambda lib, F: F.fractional_max_pool3d(lib.randn(2, 3, 6, 7, 8), 2, output_size=(5, 5, 6)),
    lambda lib, F: F.fractional_max_pool3d(lib.randn(2, 3, 6, 7, 8), (2, 2), output_size=3),
    lambda lib, F: F.fractional_max_pool3d(lib.randn(2, 3, 6, 7, 8), 2, output_size=(3, 3)),
    lambda lib, F: F.fractional_max_pool3d(lib.randn(7, 8), 2, output_size=2),
    lambda lib, F: F.fractional_max_pool3d(lib.randn(2, 0, 6, 7, 8), 2, output_size=2),
    lambda lib, F: F.fractional_max_pool3d(lib.randn(1, 2, 3, 6, 7, 8), 2, output_size=2),
    lambda lib, F: F.fractional_max_pool3d(lib.randn(2, 3, 6, 7, 8), 2, output_size=2,
                                           _random_samples=lib.rand(2, 3, 2)),
    lambda lib, F: F.fractional_max_pool3d(lib.zeros(2, 3, 6, 7, 8, dtype=lib.int64), 2, output_size=2,
                                           _random_samples=lib.zeros(2, 3, 3, dtype=lib.int64)),
    lambda lib, F: F.fractional_max_pool3d(lib.randn(2, 3, 6, 7, 8), 2, output_size=(2, 5, -1)),
])
def test_fractional_max_pool_errors_match_torch(device, call):
    same_error(call, device)


@pytest.mark.parametrize("dims", [2, 3])
def test_fractional_max_pool_empty_outputs(dims):
    shape = (0, 3, 8, 9) if dims == 2 else (0, 2, 6, 7, 8)
    f = getattr(F, f"fractional_max_pool{dims}d")
    tf = getattr(torch.nn.functional, f"fractional_max_pool{dims}d")
    assert tuple(f(minigrad.randn(*shape), 2, output_size=2).shape) == tuple(tf(torch.randn(*shape), 2,
                                                                                  output_size=2).shape)
    shape = (2,) + shape[1:]
    out = f(minigrad.randn(*shape, requires_grad=True), 2, output_size=0)
    assert tuple(out.shape) == tuple(tf(torch.randn(*shape), 2, output_size=0).shape)
    out.sum().backward()


def test_fractional_with_indices_forms():
    x = minigrad.randn(1, 2, 7, 7)
    s = minigrad.rand(1, 2, 2)
    out, idx = F.fractional_max_pool2d_with_indices(x, 2, 3, _random_samples=s)
    np.testing.assert_array_equal(out.numpy(), F.fractional_max_pool2d(x, 2, 3, _random_samples=s).numpy())
    y = minigrad.randn(1, 1, 5, 5, 5)
    s3 = minigrad.rand(1, 1, 3)
    out3, idx3 = F.fractional_max_pool3d_with_indices(y, 2, 2, _random_samples=s3)
    assert idx3.dtype == minigrad.int64 and tuple(out3.shape) == (1, 1, 2, 2, 2)


# ---- AdaptiveLogSoftmaxWithLoss -----------------------------------------------------------------------

def _pair(device, head_bias=False, dtype=np.float32, **kw):
    kwargs = dict(in_features=8, n_classes=10, cutoffs=[3, 6], div_value=2.0, head_bias=head_bias, **kw)
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(**kwargs).to(torch.float64 if dtype == np.float64 else torch.float32)
    mm = nn.AdaptiveLogSoftmaxWithLoss(**kwargs, device=device,
                                       dtype=minigrad.float64 if dtype == np.float64 else minigrad.float32)
    mm.load_state_dict({k: minigrad.tensor(v.detach().numpy(), device=device) for k, v in tm.state_dict().items()})
    return tm, mm


def test_adaptive_structure_repr_and_state_dict(device):
    tm, mm = _pair(device, head_bias=True)
    assert repr(mm) == repr(tm)
    assert list(mm.state_dict()) == list(tm.state_dict())
    for k, v in mm.state_dict().items():
        assert tuple(v.shape) == tuple(tm.state_dict()[k].shape)
    assert (mm.shortlist_size, mm.n_clusters, mm.head_size, mm.cutoffs) == (3, 2, 5, [3, 6, 10])
    out = mm(minigrad.randn(2, 8, device=device), minigrad.tensor([0, 9], device=device))
    assert type(out).__name__ == "_ASMoutput" and out._fields == ("output", "loss")


@pytest.mark.parametrize("head_bias", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
def test_adaptive_forward_backward_matches_torch(device, head_bias, dtype):
    tm, mm = _pair(device, head_bias, dtype)
    r = np.random.default_rng(5)
    x = r.standard_normal((7, 8)).astype(dtype)
    target = np.array([0, 4, 9, 2, 7, 5, 3])
    tx, mx = torch.tensor(x, requires_grad=True), minigrad.tensor(x, device=device, requires_grad=True)
    to, mo = tm(tx, torch.tensor(target)), mm(mx, minigrad.tensor(target, device=device))
    tol = dict(rtol=1e-10, atol=1e-12) if dtype == np.float64 else dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(mo.output), to.output.detach().numpy(), **tol)
    np.testing.assert_allclose(_np(mo.loss), to.loss.detach().numpy(), **tol)
    to.loss.backward()
    mo.loss.backward()
    np.testing.assert_allclose(_np(mx.grad), tx.grad.numpy(), **tol)
    for (name, p), (_, q) in zip(mm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(_np(p.grad), q.grad.numpy(), err_msg=name, **tol)
    np.testing.assert_allclose(_np(mm.log_prob(mx)), tm.log_prob(tx).detach().numpy(), **tol)
    np.testing.assert_array_equal(_np(mm.predict(mx)), tm.predict(tx).numpy())


def test_adaptive_unbatched_single_and_predict_paths(device):
    tm, mm = _pair(device, dtype=np.float64)
    r = np.random.default_rng(6)
    x = r.standard_normal(8)
    to, mo = tm(torch.tensor(x), torch.tensor(7)), mm(minigrad.tensor(x, device=device), minigrad.tensor(7, device=device))
    assert tuple(mo.output.shape) == tuple(to.output.shape) == ()
    np.testing.assert_allclose(_np(mo.output), to.output.detach().numpy(), rtol=1e-12)
    to, mo = tm(torch.tensor(x[None]), torch.tensor([1])), mm(minigrad.tensor(x[None], device=device),
                                                             minigrad.tensor([1], device=device))
    np.testing.assert_allclose(_np(mo.output), to.output.detach().numpy(), rtol=1e-12)
    # predict: rows in the shortlist only, in the tail only, and mixed
    for scale in (0.1, 3.0, 30.0):
        xs = r.standard_normal((12, 8)) * scale
        np.testing.assert_array_equal(_np(mm.predict(minigrad.tensor(xs, device=device))),
                                      tm.predict(torch.tensor(xs)).numpy())


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 2]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [0, 2]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 10]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 2]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2, 2.5]),
    lambda lib: _m(lib)(lib.randn(4, 8), lib.tensor([0, 1, 10, 2])),
    lambda lib: _m(lib)(lib.randn(4, 8), lib.tensor([0, 1, -1, 2])),
    lambda lib: _m(lib)(lib.randn(4, 8), lib.tensor([0, 1, 2])),
    lambda lib: _m(lib)(lib.randn(4, 8, 1), lib.tensor([0, 1, 2, 1])),
    lambda lib: _m(lib)(lib.randn(4, 8), lib.tensor(1)),
    lambda lib: _m(lib)(lib.randn(4, 8), lib.tensor([[1]])),
])
def test_adaptive_errors_match_torch(call):
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(Exception) as got:
        call(minigrad)
    assert type(got.value).__name__ == type(want.value).__name__
    assert str(got.value) == str(want.value).replace("torch.", "minigrad.")


def _m(lib):
    return lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0)
