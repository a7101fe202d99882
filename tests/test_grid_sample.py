"""F.grid_sample and F.affine_grid against PyTorch: values and gradients (input and grid) for every
mode, padding mode and align_corners, float32 and float64, grids with points outside [-1, 1] and
exactly on the borders; node names, errors and warnings."""
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.nn.functional as F
from test_nn_functional import _OnDevice, _np, same_warning

torch = pytest.importorskip("torch")


def same_error(call, device):
    """call(lib, F) raises the same exception type and message on both libraries (torch.Size and
    torch's dtypes spelled minigrad.Size, minigrad.int64)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as want:
            call(torch, torch.nn.functional)
        with pytest.raises(Exception) as got:
            call(_OnDevice(device), F)
    assert type(got.value).__name__ == type(want.value).__name__, str(got.value)
    assert str(got.value) == str(want.value).replace("torch.", "minigrad.")


def _grid(r, shape, n_special):
    g = r.uniform(-1.7, 1.7, shape)
    flat = g.reshape(-1)
    special = [-1.0, 1.0, 0.0, -1.0, 1.0, 1.0, -1.0, 3.25, -2.5, 0.5, -0.5, 1.0 - 1.0 / n_special, 2.0, -3.0]
    k = min(len(special), flat.size)
    flat[:k] = special[:k]
    return g


def _run(device, dims, mode, padding, align, dtype, small=False):
    r = np.random.default_rng(hash((dims, mode, padding, align, str(dtype))) % 2 ** 32)
    if dims == 2:
        sp, osp = ((3, 4), (2, 3)) if small else ((4, 5), (6, 7))
    else:
        sp, osp = ((2, 3, 2), (2, 2, 1)) if small else ((3, 4, 5), (2, 3, 4))
    N, C = 2, 2
    x = r.standard_normal((N, C) + sp)
    g = _grid(r, (N,) + osp + (dims,), sp[-1])
    tdt = torch.float64 if dtype == np.float64 else torch.float32
    mdt = minigrad.float64 if dtype == np.float64 else minigrad.float32
    tx, tg = (torch.tensor(a, dtype=tdt, requires_grad=True) for a in (x, g))
    mx, mg = (minigrad.tensor(a, dtype=mdt, device=device, requires_grad=True) for a in (x, g))
    to = torch.nn.functional.grid_sample(tx, tg, mode, padding, align)
    mo = F.grid_sample(mx, mg, mode, padding, align)
    assert mo.grad_fn.name() == to.grad_fn.name() == f"GridSampler{dims}DBackward0"
    assert mo.dtype == mdt and tuple(mo.shape) == tuple(to.shape)
    tol = dict(rtol=1e-10, atol=1e-12) if dtype == np.float64 else dict(rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(_np(mo), to.detach().numpy(), **tol)
    cot = r.standard_normal(tuple(to.shape))
    to.backward(torch.tensor(cot, dtype=tdt))
    mo.backward(minigrad.tensor(cot, dtype=mdt, device=device))
    np.testing.assert_allclose(_np(mx.grad), tx.grad.numpy(), **tol)
    np.testing.assert_allclose(_np(mg.grad), tg.grad.numpy(), **tol)
    if mode == "nearest":
        assert not np.any(_np(mg.grad))


_CASES2 = [(m, p, a) for m in ("bilinear", "nearest", "bicubic") for p in ("zeros", "border", "reflection")
           for a in (False, True)]
_CASES3 = [(m, p, a) for m in ("bilinear", "nearest") for p in ("zeros", "border", "reflection")
           for a in (False, True)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("mode,padding,align", _CASES2, ids=[f"{m}-{p}-{a}" for m, p, a in _CASES2])
def test_grid_sample_2d_matches_torch(device, mode, padding, align, dtype):
    if device == "cuda" and dtype == np.float32:
        pytest.skip("one dtype on the emulated device keeps the run short")
    _run(device, 2, mode, padding, align, dtype, small=device == "cuda")


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("mode,padding,align", _CASES3, ids=[f"{m}-{p}-{a}" for m, p, a in _CASES3])
def test_grid_sample_3d_matches_torch(device, mode, padding, align, dtype):
    if device == "cuda" and dtype == np.float32:
        pytest.skip("one dtype on the emulated device keeps the run short")
    _run(device, 3, mode, padding, align, dtype, small=device == "cuda")


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_grid_sample_many_random_grids(mode):
    """Many grids, wide coordinate ranges, both dtypes, all paddings: value and gradients."""
    r = np.random.default_rng(7)
    for trial in range(6):
        x = r.standard_normal((1, 2, 5, 6))
        g = r.uniform(-3, 3, (1, 9, 8, 2)) * r.choice([0.3, 1.0, 2.0])
        g.reshape(-1)[: 6] = r.choice([-1.0, 1.0, 0.0], 6)
        for padding in ("zeros", "border", "reflection"):
            for align in (False, True):
                tx, tg = (torch.tensor(a, requires_grad=True) for a in (x, g))
                mx, mg = (minigrad.tensor(a, requires_grad=True) for a in (x, g))
                to = torch.nn.functional.grid_sample(tx, tg, mode, padding, align)
                mo = F.grid_sample(mx, mg, mode, padding, align)
                to.sum().backward()
                mo.sum().backward()
                np.testing.assert_allclose(mo.detach().numpy(), to.detach().numpy(), rtol=1e-10, atol=1e-12)
                np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
                np.testing.assert_allclose(mg.grad.numpy(), tg.grad.numpy(), rtol=1e-10, atol=1e-11)


def test_grid_sample_gradients_where_asked(device):
    r = np.random.default_rng(3)
    x, g = r.standard_normal((1, 2, 3, 4)), r.uniform(-1.2, 1.2, (1, 2, 3, 2))
    for need_x, need_g in ((True, False), (False, True)):
        mx = minigrad.tensor(x, device=device, requires_grad=need_x)
        mg = minigrad.tensor(g, device=device, requires_grad=need_g)
        tx, tg = torch.tensor(x, requires_grad=need_x), torch.tensor(g, requires_grad=need_g)
        mo = F.grid_sample(mx, mg, align_corners=True)
        to = torch.nn.functional.grid_sample(tx, tg, align_corners=True)
        mo.sum().backward()
        to.sum().backward()
        for m, t in ((mx, tx), (mg, tg)):
            assert (m.grad is None) == (t.grad is None)
            if t.grad is not None:
                np.testing.assert_allclose(_np(m.grad), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_grid_sample_no_grad_and_empty(device):
    r = np.random.default_rng(4)
    x = minigrad.tensor(r.standard_normal((2, 3, 4, 5)), device=device)
    g = minigrad.tensor(r.uniform(-1, 1, (2, 6, 7, 2)), device=device)
    out = F.grid_sample(x, g, align_corners=False)
    assert out.grad_fn is None and tuple(out.shape) == (2, 3, 6, 7)
    assert tuple(F.grid_sample(x[:, :0], g, align_corners=False).shape) == (2, 0, 6, 7)
    assert tuple(F.grid_sample(x[:0], g[:0], mode="bicubic", align_corners=False).shape) == (0, 3, 6, 7)
    assert tuple(F.grid_sample(x, g[:, :0], mode="nearest", align_corners=True).shape) == (2, 3, 0, 7)


def test_grid_sample_nan_and_huge_coordinates():
    x = np.arange(12.0).reshape(1, 1, 3, 4)
    g = np.array([[[[1e30, 0.0], [-1e30, 0.5], [0.2, 1e20]]]])
    for padding in ("zeros", "border", "reflection"):
        to = torch.nn.functional.grid_sample(torch.tensor(x), torch.tensor(g), "bilinear", padding, False)
        mo = F.grid_sample(minigrad.tensor(x), minigrad.tensor(g), "bilinear", padding, False)
        np.testing.assert_allclose(mo.numpy(), to.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda lib, F: F.grid_sample(lib.randn(2, 3, 4, 5), lib.rand(2, 6, 7, 2), mode="foo", align_corners=False),
    lambda lib, F: F.grid_sample(lib.randn(2, 3, 4, 5), lib.rand(2, 6, 7, 2), padding_mode="wrap",
                                 align_corners=False),
    lambda lib, F: F.grid_sample(lib.randn(2, 3, 4, 5), lib.rand(2, 6, 7, 2, dtype=lib.float64),
                                 align_corners=False),
    lambda lib, F: F.grid_sample(lib.randn(2, 3, 4, 5), lib.rand(1, 6, 7, 2), align_corners=False),
    lambda lib, F: F.grid_sample(lib.randn(2, 3, 4, 5), lib.rand(2, 6, 7, 1), align_corners=False),
    lambda lib, F: F.grid_sample(lib.randn(2, 3, 4, 5), lib.rand(2, 6, 7, 1, 2), align_corners=False),
    lambda lib, F: F.grid_sample(lib.randn(3, 4, 5), lib.rand(3, 6, 1), align_corners=False),
    lambda lib, F: F.grid_sample(lib.randn(3, 4, 5), lib.rand(2, 6, 7, 2), align_corners=False),
    lambda lib, F: F.grid_sample(lib.randn(2, 3, 0, 5), lib.rand(2, 6, 7, 2), align_corners=False),
    lambda lib, F: F.grid_sample(lib.zeros(2, 3, 4, 5, dtype=lib.int64), lib.rand(2, 6, 7, 2),
                                 align_corners=False),
    lambda lib, F: F.grid_sample(lib.zeros(2, 3, 2, 4, 5, dtype=lib.int64), lib.rand(2, 6, 7, 1, 3),
                                 align_corners=False),
    lambda lib, F: F.grid_sample(lib.randn(2, 3, 4, 5), lib.zeros(2, 6, 7, 2, dtype=lib.int64),
                                 align_corners=False),
    lambda lib, F: F.grid_sample(lib.randn(2, 3, 2, 4, 5), lib.rand(2, 6, 7, 1, 3), mode="bicubic",
                                 align_corners=False),
    lambda lib, F: F.grid_sample(lib.randn(2, 3, 4, 5), [1.0], align_corners=False),
    lambda lib, F: F.grid_sample([1.0], lib.randn(2, 3, 4, 5), align_corners=False),
    lambda lib, F: F.grid_sample(lib.randn(2, 3, 4, 5), lib.rand(2, 6, 7, 2), align_corners=1),
    lambda lib, F: F.affine_grid(lib.randn(2, 2, 3), (3, 3, 4, 5), align_corners=False),
    lambda lib, F: F.affine_grid(lib.randn(2, 3, 4), (3, 3, 4, 5, 6), align_corners=False),
    lambda lib, F: F.affine_grid(lib.randn(2, 2, 3), (2, 3, 0, 5), align_corners=True),
    lambda lib, F: F.affine_grid(lib.randn(2, 2, 3), (2, 3, 5), align_corners=False),
    lambda lib, F: F.affine_grid(lib.randn(2, 2, 3), [2, 3, 4, 5, 6], align_corners=False),
    lambda lib, F: F.affine_grid(lib.randn(2, 3, 4), (2, 3, 4, 5), align_corners=False),
    lambda lib, F: F.affine_grid(lib.zeros(2, 2, 3, dtype=lib.int64), (2, 3, 4, 5), align_corners=False),
    lambda lib, F: F.affine_grid(lib.randn(2, 2, 3), (2, 3, 4, 5), align_corners=1),
    lambda lib, F: F.affine_grid(lib.randn(0, 2, 3), (0, 3, 4, 5), align_corners=False),
])
def test_grid_errors_match_torch(device, call):
    same_error(call, device)


@pytest.mark.parametrize("call", [
    lambda lib, F: F.grid_sample(lib.randn(1, 1, 2, 2), lib.rand(1, 2, 2, 2)),
    lambda lib, F: F.affine_grid(lib.randn(1, 2, 3), (1, 1, 2, 2)),
    lambda lib, F: F.affine_grid(lib.randn(1, 2, 3), (1, 1, 1, 3), align_corners=True),
])
def test_grid_warnings_match_torch(device, call):
    same_warning(call, device)


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 1, 6), (1, 2, 3, 1), (2, 3, 4, 5, 6), (1, 1, 1, 3, 2),
                                  (2, 1, 3, 1, 1)])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
def test_affine_grid_matches_torch(device, size, align, dtype):
    r = np.random.default_rng(len(size) * 10 + align)
    theta = r.standard_normal((size[0], len(size) - 2, len(size) - 1))
    tdt = torch.float64 if dtype == np.float64 else torch.float32
    mdt = minigrad.float64 if dtype == np.float64 else minigrad.float32
    tt = torch.tensor(theta, dtype=tdt, requires_grad=True)
    mt = minigrad.tensor(theta, dtype=mdt, device=device, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        to = torch.nn.functional.affine_grid(tt, size, align_corners=align)
        mo = F.affine_grid(mt, size, align_corners=align)
    assert mo.grad_fn.name() == to.grad_fn.name() == "AffineGridGeneratorBackward0"
    assert mo.dtype == mdt and tuple(mo.shape) == tuple(to.shape)
    tol = dict(rtol=1e-12, atol=1e-14) if dtype == np.float64 else dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(mo), to.detach().numpy(), **tol)
    cot = r.standard_normal(tuple(to.shape))
    to.backward(torch.tensor(cot, dtype=tdt))
    mo.backward(minigrad.tensor(cot, dtype=mdt, device=device))
    np.testing.assert_allclose(_np(mt.grad), tt.grad.numpy(), **tol)


def test_affine_grid_then_grid_sample_chain(device):
    """The usual spatial-transformer chain: gradients reach theta through both nodes."""
    r = np.random.default_rng(11)
    x, theta = r.standard_normal((2, 2, 4, 4)), r.standard_normal((2, 2, 3)) * 0.5
    tt = torch.tensor(theta, requires_grad=True)
    mt = minigrad.tensor(theta, device=device, requires_grad=True)
    to = torch.nn.functional.grid_sample(torch.tensor(x), torch.nn.functional.affine_grid(tt, (2, 2, 3, 3), False),
                                         align_corners=False, padding_mode="border")
    mo = F.grid_sample(minigrad.tensor(x, device=device), F.affine_grid(mt, (2, 2, 3, 3), False),
                       align_corners=False, padding_mode="border")
    (to ** 2).sum().backward()
    (mo ** 2).sum().backward()
    np.testing.assert_allclose(_np(mo), to.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(mt.grad), tt.grad.numpy(), rtol=1e-9, atol=1e-11)
