"""minigrad.nn.grad: the gradients of a convolution with respect to its input or its weight, as
torch.nn.grad (also reachable as nn.functional.grad).

A convolution is linear in its input and in its weight, so each gradient is the backward of one
convolution run on a zero placeholder of the requested shape: the conv ops' own backward (groups,
stride, padding, dilation and the CUDA kernels included) does the work, and the result is
differentiable in the given tensors (weight or input, and grad_output) like torch's.
"""
from ..autograd import grad as _autograd_grad
from ..autograd.grad_mode import _grad_enabled, enable_grad
from ..tensor import Tensor

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _conv(nd):
    from . import functional as F
    return (F.conv1d, F.conv2d, F.conv3d)[nd - 1]


def _check_batched(nd, input_size, weight_size):
    """torch's convolution_backward takes only batched inputs."""
    if len(input_size) != nd + 2:
        raise RuntimeError(f"Expected {nd + 2}-dimensional input for {nd + 2}-dimensional weight "
                           f"{list(weight_size)}, but got {len(input_size)}-dimensional input of size "
                           f"{list(input_size)} instead")


def _backward(nd, x, w, grad_output, wrt, stride, padding, dilation, groups):
    # a graph for double backward only where a given tensor needs one
    given = grad_output, (w if wrt is x else x)
    create = _grad_enabled() and any(t.requires_grad for t in given)
    with enable_grad():  # the placeholder's graph is needed even under no_grad
        out = _conv(nd)(x, w, None, stride, padding, dilation, groups)
        if tuple(out.shape) != tuple(grad_output.shape):
            raise RuntimeError(f"conv{nd}d: grad_output of shape {list(grad_output.shape)} does not match the "
                               f"convolution's output shape {list(out.shape)}")
        (g,) = _autograd_grad(out, wrt, grad_output, create_graph=create)
    return g if create else g.detach()


def _tensor(x, fn, name, pos):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _input_grad(nd, input_size, weight, grad_output, stride, padding, dilation, groups):
    fn = f"conv{nd}d_input"
    _tensor(weight, fn, "weight", 2)
    _tensor(grad_output, fn, "grad_output", 3)
    input_size = tuple(int(s) for s in input_size)
    _check_batched(nd, input_size, weight.shape)
    from .. import creation
    x = creation.zeros(input_size, dtype=weight.dtype, device=weight.device, requires_grad=True)
    return _backward(nd, x, weight, grad_output, x, stride, padding, dilation, groups)


def _weight_grad(nd, input, weight_size, grad_output, stride, padding, dilation, groups):
    fn = f"conv{nd}d_weight"
    _tensor(input, fn, "input", 1)
    _tensor(grad_output, fn, "grad_output", 3)
    weight_size = tuple(int(s) for s in weight_size)
    _check_batched(nd, tuple(input.shape), weight_size)
    from .. import creation
    w = creation.zeros(weight_size, dtype=input.dtype, device=input.device, requires_grad=True)
    return _backward(nd, input, w, grad_output, w, stride, padding, dilation, groups)


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv1d with respect to an input of shape input_size."""
    return _input_grad(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv1d with respect to a weight of shape weight_size."""
    return _weight_grad(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv2d with respect to an input of shape input_size."""
    return _input_grad(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv2d with respect to a weight of shape weight_size."""
    return _weight_grad(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv3d with respect to an input of shape input_size."""
    return _input_grad(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv3d with respect to a weight of shape weight_size."""
    return _weight_grad(3, input, weight_size, grad_output, stride, padding, dilation, groups)
