"""In-place ops: compute out of place, write the result into the tensor's memory, bump its version.

When autograd records the op, the tensor takes the new node as its grad_fn (the old value keeps
its own place in the graph through an alias), and every node that saved the tensor before sees
the version change and refuses to run backward with the modified value.
"""
from ..autograd.grad_mode import _grad_enabled, _inference_enabled
from ..tensor import Tensor, _NoGradView, stored_grad_fn


def _tracked(t, other):
    return _grad_enabled() and (t._requires_grad or (isinstance(other, Tensor) and other._requires_grad))


_INFERENCE_INPLACE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
                      "clone to get a normal tensor before doing inplace update.See "
                      "https://github.com/pytorch/rfcs/pull/17 for more details.")  # torch's words, spaces too


def check_writable(t):
    """torch refuses to write into an inference tensor outside inference mode, and into a tensor
    whose elements share memory (an expanded view)."""
    if t._inference and not _inference_enabled():
        raise RuntimeError(_INFERENCE_INPLACE)
    a = t._data
    # (NumPy gives an array with no elements zero strides: nothing is written, nothing overlaps)
    if t._base is not None and a.size and any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape)):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers "
                           "to a single memory location. Please clone() the tensor before performing "
                           "the operation.")


def inplace(t, compute, other=None, keeps_input=False, operands=None):
    """keeps_input: compute saves its input for backward (log_, abs_), so a recorded op gets a
    copy of the old value, which the write would otherwise change under it. operands: the op's
    tensor operands in order, when more than `other`, for torch's broadcast error."""
    check_writable(t)
    # (a view made in no_grad mode, or from one, is a _NoGradView: its grad_fn, read, may raise)
    if _grad_enabled() and t._requires_grad and (t.__class__ is _NoGradView or t.grad_fn is None):
        if t._no_grad_view is not None:
            from .view_inplace import no_grad_view_modified_error
            raise no_grad_view_modified_error(t)
        if stored_grad_fn(t) is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    tracked = _tracked(t, other)
    if tracked:
        if t._base is not None:
            if t._custom_view is not None and t.grad_fn is not None:
                from ..autograd.function import custom_view_error
                raise custom_view_error(t)
            from .view_inplace import inplace_on_view
            return inplace_on_view(t, _on_copy(compute) if keeps_input else compute, other, operands)
        old = t._alias()
        old._base = old._view_replay = None
        if keeps_input or (isinstance(other, Tensor) and other._requires_grad):
            # the op may save the old value for other's gradient (mul_): keep a copy of it
            old._data, old._vc = t._device.backend.copy(t._data), None
        old.grad_fn, old._output_nr, old._requires_grad = t.grad_fn, t._output_nr, t._requires_grad
        result = _computed(compute, old, t, operands)
    else:
        result = _computed(compute, t, t, operands)
    if result._data.shape != t._data.shape:  # (torch checks the shape before the dtype)
        raise RuntimeError(f"output with shape {list(t._data.shape)} doesn't match the broadcast shape "
                           f"{list(result._data.shape)}")
    if result._data.dtype != t._data.dtype:
        if result.dtype._category > t.dtype._category:
            raise RuntimeError(f"result type {result.dtype._legacy[:-6]} can't be cast to the desired output "
                               f"type {t.dtype._legacy[:-6]}")
    if result._data is not t._data:
        t._device.backend.copyto(t._data, result._data)
    t._bump_version()
    if tracked:
        adopt = result._requires_grad and not t._requires_grad
        t.grad_fn, t._output_nr, t._requires_grad = result.grad_fn, result._output_nr, result._requires_grad
        t._vc[1] += 1  # views made before this op no longer describe the graph
        if adopt and len(t._vc) > 2:  # its earlier views now require grad too (view_inplace.adopt_views)
            from .view_inplace import adopt_views
            adopt_views(t)
    return t


def _computed(compute, x, t, operands=None):
    """compute(x), with a broadcast error as torch words it for an op writing t (broadcast.py)."""
    try:
        return compute(x)
    except RuntimeError as e:
        if not hasattr(e, "shapes"):
            raise
        from .broadcast import inplace_broadcast_error
        raise inplace_broadcast_error(e, t._data.shape, operands) from None


def _on_copy(compute):
    """compute run on a copy of its (fresh) input tensor's memory."""
    def run(region):
        region._data, region._vc = region._device.backend.copy(region._data), None
        return compute(region)
    return run


def inplace_arith(t, name, cls, other, floating=False):
    """add_/sub_/mul_/div_: straight into t's memory when nothing is recorded and t already has
    the result's dtype and shape; otherwise the general path above."""
    from .elementwise import binary
    check_writable(t)
    if not _tracked(t, other):
        if isinstance(other, Tensor):
            ok = (other._device is t._device and other._data.dtype is t._data.dtype
                  and len(other._data.shape) <= len(t._data.shape))
            src = other._data
        else:
            ok = (other.__class__ is float or other.__class__ is int) and t._data.dtype.kind == "f"
            src = other
        if ok and (not floating or t._data.dtype.kind == "f"):
            try:
                t._device.backend.binary_inplace(name, t._data, src)
            except (ValueError, TypeError):
                pass  # broadcasting would change t's shape, NumPy refuses bools: the general path reports it
            else:
                t._bump_version()
                return t
    return inplace(t, lambda x: _check(binary(cls, x, other, floating), name, other), other)


def _check(result, name, other):
    if result is NotImplemented:
        from .._arg_errors import type_name
        raise TypeError(f"{name}_(): argument 'other' (position 1) must be Tensor, not {type_name(other)}")
    return result
