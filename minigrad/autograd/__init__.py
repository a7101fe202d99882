"""minigrad.autograd: backward, grad, Function, grad modes and gradient checks."""
from .function import Function, Node, AccumulateGrad
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,
                        is_inference_mode_enabled)
from . import engine as _engine


def _as_tuple(x):
    if x is None:
        return None
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _make_grads(outputs, grads):
    out = []
    for i, t in enumerate(outputs):
        g = grads[i] if grads is not None else None
        if g is None:
            if not t._requires_grad:
                raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
            if t._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = _engine._make(t._device.backend.ones(t._data.shape, t._data.dtype), t._device)
        else:
            from ..tensor import Tensor
            if not isinstance(g, Tensor):
                raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
            if g._data.shape != t._data.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                                   f"output[{i}] has a shape of {t.shape}.")
            if g._device is not t._device:
                raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two "
                                   f"devices, {g._device} and {t._device}!")
            if not t._requires_grad:
                raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
            if g._data.dtype != t._data.dtype:  # torch's engine casts a root gradient to its output's dtype
                g = g.to(t.dtype)
        out.append(g)
    return out


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    tensors = _as_tuple(tensors)
    grads = _make_grads(tensors, _as_tuple(grad_tensors))
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _check_inputs(_as_tuple(inputs), "backward")
        results = _engine.run_backward(tensors, grads, retain_graph, create_graph, inputs, True)
        for t, g in zip(inputs, results):
            if g is not None:
                _engine.accumulate(t, g, set(), create_graph)
        return
    _engine.run_backward(tensors, grads, retain_graph, create_graph)


def _check_inputs(inputs, name):
    """torch's errors for the `inputs` of backward() and grad(): none, or not tensors."""
    from ..tensor import Tensor
    if not inputs:
        raise RuntimeError(f"`inputs` argument to `{name}()` cannot be empty.")
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
        if name == "backward" and not t._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    return inputs


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    outputs = _as_tuple(outputs)
    from ..tensor import Tensor
    for t in outputs or ():
        if not isinstance(t, Tensor):
            raise AssertionError("Expected output to be a minigrad.Tensor")  # torch's assert
    inputs = _check_inputs(_as_tuple(inputs), "grad")
    grads = _make_grads(outputs, _as_tuple(grad_outputs))  # torch checks the outputs first
    for i, t in enumerate(inputs):
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    result = _engine.run_backward(outputs, grads, retain_graph, create_graph, inputs, allow_unused)
    if materialize_grads:
        from ..creation import zeros_like
        result = tuple(g if g is not None else zeros_like(t) for g, t in zip(result, inputs))
    return result


from .gradcheck import gradcheck, gradgradcheck, GradcheckError  # noqa: E402,F401
from . import graph  # noqa: E402,F401  (torch.autograd.graph: saved-tensor and multi-grad hooks)
from . import anomaly_mode  # noqa: E402,F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: E402,F401
from . import functional  # noqa: E402,F401  (torch.autograd.functional)
from .variable import Variable  # noqa: E402,F401  (torch.autograd.Variable; the module stays importable)


def variable(*args, **kwargs):
    """torch.autograd.variable (a function shadowing the module's name, as in torch): an error."""
    raise RuntimeError("minigrad.autograd.variable(...) is deprecated, use minigrad.tensor(...) instead")
