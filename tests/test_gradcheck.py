"""gradcheck / gradgradcheck: right gradients pass, wrong ones fail with a useful message."""
import re
import warnings

import numpy as np
import pytest

import minigrad
from minigrad.autograd import Function, GradcheckError, gradcheck, gradgradcheck

F64 = minigrad.float64

# "input I element K (index (..)), output O element L (index (..)): analytical A, numerical N"
FIRST_MISMATCH = re.compile(
    r"input (\d+) element (\d+) \(index \(([^)]*)\)\), output (\d+) element (\d+) "
    r"\(index \(([^)]*)\)\): analytical (\S+), numerical (\S+) ")


def leaf(data, device, requires_grad=True):
    return minigrad.tensor(np.asarray(data, dtype=np.float64), dtype=F64, device=device,
                           requires_grad=requires_grad)


def rand_leaf(shape, device, low=-1.0, high=1.0, seed=0):
    data = np.random.default_rng(seed).uniform(low, high, size=shape)
    return leaf(data, device)


def values(t):
    return t.detach().cpu().numpy().copy()


# --- custom Functions with deliberately wrong derivatives -------------------------------

class SquareOffByOneAt10(Function):
    """x**2 whose backward adds 1 to the gradient of element [1, 0] only."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        bump = minigrad.zeros_like(x)
        bump[1, 0] = 1.0
        return grad * 2 * x + bump * grad


class MulWrongSecond(Function):
    """a * b with the gradient for b computed as grad * a * 2."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a * 2


class SquarePlusOne(Function):
    """x**2 whose backward returns grad * 2x + 1: not even zero for a zero output gradient."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x + 1


class SquareNoisyBackward(Function):
    """x**2 whose backward adds noise far below atol: right values, not reproducible."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        noise = minigrad.rand(tuple(x.shape), dtype=x.dtype, device=x.device) * 1e-8
        return (2 * x + noise) * grad


class CubeDetachedFactor(Function):
    """x**3 with a right first derivative 3*x*x*grad, built so that one factor of x is
    detached: differentiating the backward gives 3*x*grad instead of 6*x*grad."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 3 * x.detach() * x * grad


class SquareGradWrong(Function):
    """(x, g) -> 2*x*g, whose own backward is wrong for x (3*g instead of 2*g)."""

    @staticmethod
    def forward(ctx, x, g):
        ctx.save_for_backward(x, g)
        return 2 * x * g

    @staticmethod
    def backward(ctx, grad):
        x, g = ctx.saved_tensors
        return grad * 3 * g, grad * 2 * x


class SquareWithWrongSecondOrder(Function):
    """x**2 whose backward is the custom SquareGradWrong: right first derivative."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return SquareGradWrong.apply(x, grad)


# --- right gradients pass -------------------------------------------------------------

def test_polynomial(device):
    x = rand_leaf((5,), device, seed=1)
    assert gradcheck(lambda t: t ** 3 - 2 * t ** 2 + 3 * t - 1, (x,))


def test_exp_sin_combination(device):
    x = rand_leaf((2, 3), device, seed=2)
    assert gradcheck(lambda t: (t.sin() * t.exp()).cos() + minigrad.exp(-t * t), x)


def test_matmul_two_inputs(device):
    a, b = rand_leaf((2, 3), device, seed=3), rand_leaf((3, 4), device, seed=4)
    assert gradcheck(lambda p, q: p @ q, (a, b))


def test_multiple_outputs(device):
    a, b = rand_leaf((3,), device, seed=5), rand_leaf((3,), device, seed=6)
    assert gradcheck(lambda p, q: (p * q, (p - q).sum(), p.exp()), (a, b))


def test_broadcasting(device):
    a, b = rand_leaf((3, 1), device, seed=7), rand_leaf((4,), device, seed=8)
    assert gradcheck(lambda p, q: p * q + q, (a, b))


def test_unused_input_has_zero_gradient(device):
    a, b = rand_leaf((3,), device, seed=9), rand_leaf((2,), device, seed=10)
    assert gradcheck(lambda p, q: p * 2, (a, b))


def test_non_tensor_and_no_grad_inputs_pass_through(device):
    x = rand_leaf((3,), device, seed=11)
    c = leaf([1.0, 2.0, 3.0], device, requires_grad=False)
    assert gradcheck(lambda s, t, k: s * t * k + t, (2.5, x, c))


def test_zero_dim_input(device):
    x = leaf(0.7, device)
    assert gradcheck(lambda t: t.sin() * t, x)


def test_non_contiguous_input(device):
    x = rand_leaf((3, 4), device, seed=12).t().detach().requires_grad_(True)
    before = values(x)
    assert gradcheck(lambda t: (t * t).sum(1), x)
    np.testing.assert_array_equal(values(x), before)


def test_custom_function_with_right_backward(device):
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x

    assert gradcheck(Square.apply, rand_leaf((2, 3), device, seed=13))


def test_inputs_restored_after_check(device):
    x = rand_leaf((2, 3), device, seed=14)
    before = values(x)
    assert gradcheck(lambda t: t.exp(), x)
    gradcheck(SquareOffByOneAt10.apply, x, raise_exception=False)
    np.testing.assert_array_equal(values(x), before)
    assert x.grad is None  # the check uses autograd.grad, never .backward()


# --- wrong gradients fail -------------------------------------------------------------

def test_wrong_backward_raises_with_element_and_values(device):
    x = rand_leaf((2, 3), device, seed=15)
    with pytest.raises(GradcheckError) as info:
        gradcheck(SquareOffByOneAt10.apply, x)
    msg = str(info.value)
    assert msg.startswith("Jacobian mismatch for output 0 with respect to input 0,\n")
    assert "numerical:" in msg and "analytical:" in msg
    found = FIRST_MISMATCH.search(msg)
    assert found, msg
    i, k, kidx, o, col, colidx, ana, num = found.groups()
    assert (i, k, kidx, o, col, colidx) == ("0", "3", "1, 0", "0", "3", "1, 0")
    x10 = values(x)[1, 0]
    assert float(ana) == pytest.approx(2 * x10 + 1, abs=1e-9)
    assert float(num) == pytest.approx(2 * x10, abs=1e-6)


def test_gradcheck_error_is_runtime_error(device):
    x = rand_leaf((2, 3), device, seed=16)
    with pytest.raises(RuntimeError):
        gradcheck(SquareOffByOneAt10.apply, x)


def test_wrong_backward_returns_false_without_raising(device):
    x = rand_leaf((2, 3), device, seed=17)
    assert gradcheck(SquareOffByOneAt10.apply, x, raise_exception=False) is False


def test_failure_names_the_input_position(device):
    # a non-tensor first argument keeps its position: b is input 2
    a, b = rand_leaf((3,), device, seed=18), rand_leaf((3,), device, seed=19)
    with pytest.raises(GradcheckError, match="with respect to input 2,") as info:
        gradcheck(lambda s, p, q: MulWrongSecond.apply(p, q) * s, (1.5, a, b))
    i, k, _, _, col, _, ana, num = FIRST_MISMATCH.search(str(info.value)).groups()
    assert (i, k, col) == ("2", "0", "0")
    a0 = values(a)[0]
    assert float(ana) == pytest.approx(1.5 * 2 * a0, abs=1e-9)
    assert float(num) == pytest.approx(1.5 * a0, abs=1e-6)


def test_detached_output_fails(device):
    x = rand_leaf((3,), device, seed=20)
    with pytest.raises(GradcheckError, match="analytical 0.0"):
        gradcheck(lambda t: t.detach() * 2, x)


def test_zero_output_gradient_check(device):
    x = rand_leaf((3,), device, seed=21)
    with pytest.raises(GradcheckError, match="when the output gradient is all zeros"):
        gradcheck(SquarePlusOne.apply, x)
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradcheck(SquarePlusOne.apply, x, check_undefined_grad=False)


def test_nondeterministic_backward(device):
    x = rand_leaf((3,), device, seed=22)
    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        gradcheck(SquareNoisyBackward.apply, x)
    assert gradcheck(SquareNoisyBackward.apply, x, nondet_tol=1e-6)


def test_no_input_requires_grad():
    x = minigrad.tensor([1.0, 2.0], dtype=F64)
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda t: t * 2, x)


def test_single_precision_input_warns(device):
    x = minigrad.tensor([0.5, 1.5], device=device, requires_grad=True)
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double"):
        gradcheck(lambda t: t * t, x, eps=1e-3, atol=1e-2, rtol=1e-2, raise_exception=False)


def test_double_precision_input_does_not_warn(device):
    x = rand_leaf((2,), device, seed=23)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gradcheck(lambda t: t * t, x)


# --- fast mode ------------------------------------------------------------------------

def test_fast_mode_passes_right_gradients(device):
    minigrad.manual_seed(0)
    a, b = rand_leaf((2, 3), device, seed=24), rand_leaf((3, 2), device, seed=25)
    assert gradcheck(lambda p, q: ((p @ q).tanh(), p.exp().sum()), (a, b), fast_mode=True)


def test_fast_mode_fails_wrong_gradients(device):
    minigrad.manual_seed(0)
    x = rand_leaf((2, 3), device, seed=26)
    with pytest.raises(GradcheckError, match="in fast mode") as info:
        gradcheck(SquareOffByOneAt10.apply, x, fast_mode=True)
    # the full Jacobians are then computed to name the element
    i, k, kidx, *_ = FIRST_MISMATCH.search(str(info.value)).groups()
    assert (i, k, kidx) == ("0", "3", "1, 0")
    assert gradcheck(SquareOffByOneAt10.apply, x, fast_mode=True,
                     raise_exception=False) is False


# --- second derivatives ---------------------------------------------------------------

def test_gradgradcheck_smooth_ops(device):
    a, b = rand_leaf((2, 3), device, seed=27), rand_leaf((3,), device, seed=28)
    assert gradgradcheck(lambda t: t ** 3, a)
    assert gradgradcheck(lambda p, q: (p.sin() * q.exp(), (p * p).sum()), (a, b))
    assert gradgradcheck(lambda p, q: (p @ q).tanh(), (a, b))


def test_gradgradcheck_options(device):
    minigrad.manual_seed(0)
    x = rand_leaf((2, 2), device, seed=29)
    go = rand_leaf((2, 2), device, seed=30)
    assert gradgradcheck(lambda t: t.exp() * t, x, go)
    assert gradgradcheck(lambda t: t.exp() * t, x, gen_non_contig_grad_outputs=True)
    assert gradgradcheck(lambda t: t.exp() * t, x, fast_mode=True)


def test_gradgradcheck_fails_on_detached_factor(device):
    x = rand_leaf((3,), device, seed=31)
    assert gradcheck(CubeDetachedFactor.apply, x)  # first derivative is right
    with pytest.raises(GradcheckError, match="with respect to input 0,") as info:
        gradgradcheck(CubeDetachedFactor.apply, x)
    # d/dx of the backward 3*x*x*g comes out as 3*x*g rather than 6*x*g
    _, k, _, _, col, _, ana, num = FIRST_MISMATCH.search(str(info.value)).groups()
    assert k == col == "0"
    assert float(ana) == pytest.approx(float(num) / 2, rel=1e-4)


def test_gradgradcheck_fails_on_wrong_backward_of_backward(device):
    x = rand_leaf((3,), device, seed=32)
    assert gradcheck(SquareWithWrongSecondOrder.apply, x)
    assert gradgradcheck(SquareWithWrongSecondOrder.apply, x, raise_exception=False) is False
    minigrad.manual_seed(0)
    assert gradgradcheck(SquareWithWrongSecondOrder.apply, x, fast_mode=True,
                         raise_exception=False) is False
