"""torch.special's Bessel and Airy functions and orthogonal polynomials (minigrad/ops/special.py's
BESSEL and POLYNOMIALS; kernels in elementwise.cu's SPECIAL_MORE_KERNELS): values on dense grids with
large arguments and special values, result dtypes and promotion, broadcasting, the absence of
gradients, and errors, compared with torch's on every device."""
import numpy as np
import pytest

import minigrad
from test_math_more import INF, NAN, same_as_torch

try:
    import torch
except ImportError:
    torch = None

BESSEL = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
          "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
          "spherical_bessel_j0", "airy_ai"]
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
               "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-6, -1e-6, 1e-30, 2.0, 2.09, -2.09, 5.0, -5.0, 8.0, -8.0, 100.0,
           -100.0, 103.9, 700.0, -700.0, 1e5, -1e5, 1e10, INF, -INF, NAN]
# float32 agrees to a few ulp but where values cancel (near the zeros of J, Y, Ai): atol covers those
TOL = {"float32": 2e-5, "float64": 1e-11}


def _grid(dtype):
    x = np.concatenate([np.linspace(-40, 40, 641), np.geomspace(1e-3, 2e3, 60), -np.geomspace(1e-3, 2e3, 60),
                        SPECIAL])
    return x.astype(dtype)


def _sp(L, name):
    return getattr(L.special, name)


@pytest.mark.parametrize("name", BESSEL)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bessel_values(device, name, dtype):
    x = _grid(dtype)
    same_as_torch(lambda L, kw: _sp(L, name)(L.tensor(x, **kw)), device, TOL[dtype])
    # non-contiguous, 0-d and empty inputs
    x2 = x[:600].reshape(20, 30)
    same_as_torch(lambda L, kw: _sp(L, name)(L.tensor(x2, **kw).t()), device, TOL[dtype])
    same_as_torch(lambda L, kw: _sp(L, name)(L.tensor(x[5], **kw)), device, TOL[dtype])
    same_as_torch(lambda L, kw: _sp(L, name)(L.tensor(x[:0].reshape(0, 3), **kw)), device, TOL[dtype])


@pytest.mark.parametrize("name", BESSEL)
def test_bessel_integer_and_bool_inputs(device, name):
    for values, dtype in (([0, 1, -3, 7, 40], "int64"), ([2, -1], "int32"), ([True, False], "bool")):
        same_as_torch(lambda L, kw: _sp(L, name)(L.tensor(values, dtype=getattr(L, dtype), **kw)), device,
                      TOL["float32"])


@pytest.mark.parametrize("name", BESSEL)
def test_bessel_keyword_and_errors(device, name):
    arg = "x" if name in ("scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
                          "airy_ai") else "input"
    same_as_torch(lambda L, kw: _sp(L, name)(**{arg: L.tensor([0.5, 3.0], **kw)}), device)
    same_as_torch(lambda L, kw: _sp(L, name)(1.5), device)
    same_as_torch(lambda L, kw: _sp(L, name)([1.5]), device)
    same_as_torch(lambda L, kw: _sp(L, name)(L.tensor([1.5], dtype=L.float16, **kw)), device)


@pytest.mark.parametrize("name", BESSEL)
def test_bessel_no_gradient(device, name):
    """torch defines no derivative: the result never requires grad, backward refuses it."""
    def run(L, kw):
        x = L.tensor([0.5, 3.0], requires_grad=True, **kw)
        y = _sp(L, name)(x)
        assert not y.requires_grad and y.grad_fn is None
        y.sum().backward()
    same_as_torch(run, device)


# ---- the orthogonal polynomials ------------------------------------------------------------------

XS = [-3.0, -2.0, -1.5, -1.0, -0.999, -0.75, -0.5, -0.3, -1e-3, 0.0, 1e-3, 0.25, 0.3, 0.5, 0.8, 0.999, 1.0,
      1.5, 2.0, 3.0, 10.0, INF, -INF]
DEGREES = {"float64": [-5, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 20, 33, 64, 100, 127, 129, 200, 513, 2.5, 7.9,
                       -0.5, NAN, INF, -INF, 1e30],
           # float32 cancels in the recurrences of higher degrees: an ulp there is more than rtol
           "float32": [-5, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 2.5, 7.9, -0.5, NAN, INF, -INF, 1e30]}
POLY_TOL = {"float32": 1e-4, "float64": 1e-10}


@pytest.mark.parametrize("name", POLYNOMIALS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_polynomial_values(device, name, dtype):
    x = np.array(XS + list(np.linspace(-1.2, 1.2, 25)), dtype=dtype).reshape(-1, 1)
    n = np.array(DEGREES[dtype], dtype=dtype).reshape(1, -1)
    same_as_torch(lambda L, kw: _sp(L, name)(L.tensor(x, **kw), L.tensor(n, **kw)), device, POLY_TOL[dtype])
    # n a Python number, x a non-contiguous tensor; x a Python number, n a tensor; empty
    xt = np.linspace(-1.1, 1.1, 12, dtype=dtype).reshape(3, 4)
    for deg in (0, 1, 3, 11, -2, 2.9):
        same_as_torch(lambda L, kw: _sp(L, name)(L.tensor(xt, **kw).t(), deg), device, POLY_TOL[dtype])
    same_as_torch(lambda L, kw: _sp(L, name)(0.3, L.tensor(n[0], **kw)), device, POLY_TOL[dtype])
    same_as_torch(lambda L, kw: _sp(L, name)(L.tensor(x[:0, 0], **kw), L.tensor(n[0, :1], **kw)), device)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_large_degree(device, name):
    """torch's trigonometric forms for large n inside (-1, 1), NaN/overflow outside, Hermite's limit."""
    x = np.array([-0.9, -0.2, 0.1, 0.35, 0.7, 0.95, 1.0, -1.0, 0.0, 1.5, -2.0], dtype="float64").reshape(-1, 1)
    n = np.array([1000.0, 1001.0, 5000.0], dtype="float64").reshape(1, -1)
    same_as_torch(lambda L, kw: _sp(L, name)(L.tensor(x, **kw), L.tensor(n, **kw)), device, 1e-9)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_nan_x(device, name):
    """NaN x gives NaN for n >= 1 (torch's loops return an unset value for some; NaN is the value
    its own Chebyshev T and Hermite H give), 1 for n = 0, 0 for n < 0."""
    for dtype in ("float32", "float64"):
        x = minigrad.tensor([NAN] * 5, dtype=getattr(minigrad, dtype), device=device)
        n = minigrad.tensor([-1.0, 0.0, 1.0, 2.0, 9.0], dtype=getattr(minigrad, dtype), device=device)
        got = _sp(minigrad, name)(x, n).cpu().numpy()
        assert got[0] == 0 and got[1] == 1 and np.isnan(got[2:]).all()


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_promotion(device, name):
    cases = [
        lambda L, kw: _sp(L, name)(L.tensor([1, 2], **kw), 3),
        lambda L, kw: _sp(L, name)(L.tensor([1, 2], **kw), L.tensor([3], **kw)),
        lambda L, kw: _sp(L, name)(L.tensor([0.5], **kw), L.tensor([3], **kw)),
        lambda L, kw: _sp(L, name)(L.tensor([0.5], dtype=L.float64, **kw), 3),
        lambda L, kw: _sp(L, name)(L.tensor([0.5], **kw), L.tensor([3.0], dtype=L.float64, **kw)),
        lambda L, kw: _sp(L, name)(0.5, L.tensor([2, 3], **kw)),
        lambda L, kw: _sp(L, name)(2, L.tensor([2, 3], **kw)),
        lambda L, kw: _sp(L, name)(L.tensor([True], **kw), True),
        lambda L, kw: _sp(L, name)(L.tensor([0.5], **kw), 2.7),
        lambda L, kw: _sp(L, name)(L.tensor(0.5, dtype=L.float64, **kw), L.tensor([2.0], **kw)),
        lambda L, kw: _sp(L, name)(L.tensor([[0.5], [-0.25]], **kw), L.tensor([1, 2, 3], dtype=L.int32, **kw)),
        lambda L, kw: _sp(L, name)(x=L.tensor([0.5], **kw), n=2),
        lambda L, kw: _sp(L, name)(L.tensor([0.5], **kw), n=L.tensor([4], **kw)),
    ]
    for case in cases:
        same_as_torch(case, device, 1e-6)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_errors(device, name):
    cases = [
        lambda L, kw: _sp(L, name)(0.5, 3),
        lambda L, kw: _sp(L, name)(L.tensor([0.5], **kw), "a"),
        lambda L, kw: _sp(L, name)(input=L.tensor([0.5], **kw), n=2),
        lambda L, kw: _sp(L, name)(L.tensor([0.5], **kw)),
        lambda L, kw: _sp(L, name)(L.tensor([0.5], **kw), 2, 3),
        lambda L, kw: _sp(L, name)(L.ones(2, **kw), L.ones(3, **kw)),
        lambda L, kw: _sp(L, name)(L.tensor([1.0], dtype=L.float16, **kw), 2),
    ]
    for case in cases:
        same_as_torch(case, device)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_no_gradient(device, name):
    def run(L, kw):
        x = L.tensor([0.5, 0.2], requires_grad=True, **kw)
        n = L.tensor([3.0, 4.0], requires_grad=True, **kw)
        y = _sp(L, name)(x, n)
        assert not y.requires_grad and y.grad_fn is None
        y.sum().backward()
    same_as_torch(run, device)


def test_namespace():
    for name in BESSEL + POLYNOMIALS:
        assert name in minigrad.special.__all__
        assert not hasattr(minigrad.Tensor, name) and not hasattr(minigrad, name)
        assert getattr(minigrad.special, name).__name__ == name
