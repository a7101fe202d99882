"""In-place shape changes: unsqueeze_, squeeze_, transpose_ (swapdims_, swapaxes_), t_, as_strided_,
and resize_ / resize_as_.

The first five change only how a tensor looks at its memory. Each is the out-of-place view op
run on a stand-in for the tensor's current self (same memory, graph position and view chain),
whose result the tensor then becomes: its array, and, when autograd records it, its grad_fn
(torch's in-place overloads: UnsqueezeBackward1, SqueezeBackward3/4/5, TransposeBackward1,
TBackward1, AsStridedBackward1). A view stays a view of its base, one step further along its
chain, so in-place ops on it still reach the base's graph.
"""
from ..autograd.function import apply_first
from ..autograd.grad_mode import _grad_enabled, _inference_enabled
from ..tensor import Tensor, _NoGradView, _make, _wrap_dim, stored_grad_fn
from . import shape as sh
from . import strided


class UnsqueezeInplace(sh.Unsqueeze):
    _node_name = "UnsqueezeBackward1"


class SqueezeInplace(sh.Squeeze):
    _node_name = "SqueezeBackward3"  # squeeze_()


class SqueezeDimInplace(sh.Squeeze):
    _node_name = "SqueezeBackward4"  # squeeze_(dim)


class SqueezeDimsInplace(sh.Squeeze):
    _node_name = "SqueezeBackward5"  # squeeze_((dim, ...))


class TransposeInplace(sh.Permute):
    _node_name = "TransposeBackward1"

    @staticmethod
    def backward(ctx, g):
        return apply_first(sh.Transpose, g, ctx.axes), None


class TInplace(sh.Permute):
    _node_name = "TBackward1"

    @staticmethod
    def backward(ctx, g):
        return apply_first(sh.T, g, ctx.axes), None


class AsStridedInplace(strided.AsStrided):
    _node_name = "AsStridedBackward1"


_STATE = ("_vc", "_base", "_view_replay", "_view_mark", "_no_grad_view", "_inference_mode_view",
          "_requires_grad", "_output_nr", "_inference")


def _stand_in(t):
    """A new tensor object that is t as it is now: its memory, version counter, view chain and
    place in the graph (never a leaf's: a recorded op on a leaf is refused before)."""
    if t._vc is None:
        t._vc = [0, 0]
    s = _make(t._data, t._device)
    if t.__class__ is _NoGradView:
        s.__class__ = _NoGradView
    for name in _STATE:
        setattr(s, name, getattr(t, name))
    s.grad_fn = stored_grad_fn(t)
    return s


def _inplace_view(t, make):
    """t becomes make(t), a view op of t, in place; returns t."""
    from .inplace import _INFERENCE_INPLACE
    if t._inference and not _inference_enabled():
        raise RuntimeError(_INFERENCE_INPLACE)
    tracked = _grad_enabled() and t._requires_grad
    if tracked:
        from .view_inplace import VIEW_OF_LEAF, _of_no_grad_view, _of_no_grad_view_error, no_grad_view_modified_error
        if t._no_grad_view is not None:
            raise no_grad_view_modified_error(t)
        if stored_grad_fn(t) is None:  # a leaf (or a view made a leaf by requires_grad_)
            raise RuntimeError(VIEW_OF_LEAF if t._base is not None else
                               "a leaf Variable that requires grad is being used in an in-place operation.")
        if t._base is not None:
            if _of_no_grad_view(t) is not None:
                raise _of_no_grad_view_error(t, "is being modified inplace")
            if t._base._requires_grad and t._base.grad_fn is None:
                raise RuntimeError(VIEW_OF_LEAF)
    old = _stand_in(t)
    out = make(old)
    t._data = out._data
    if t._base is not None:  # still a view of its base, made one step further
        t._view_replay = out._view_replay
    if tracked:
        t.grad_fn, t._output_nr = out.grad_fn, out._output_nr
        t._view_mark = t._vc[1]
    t._bump_version()
    return t


def unsqueeze_(t, dim):
    shape = t._data.shape
    d = _wrap_dim(dim, len(shape) + 1, "unsqueeze")
    return _inplace_view(t, lambda a: apply_first(UnsqueezeInplace, a, shape[:d] + (1,) + shape[d:]))


_SQUEEZE_INPLACE = {sh.Squeeze: SqueezeInplace, sh.SqueezeDim: SqueezeDimInplace, sh.SqueezeDims: SqueezeDimsInplace}


def squeeze_(t, dim=None):
    cls, shape = sh.squeeze_plan(t, dim)
    return _inplace_view(t, lambda a: apply_first(_SQUEEZE_INPLACE[cls], a, shape))


def transpose_(t, dim0, dim1):
    axes = sh.transpose_axes(t, dim0, dim1)
    return _inplace_view(t, lambda a: apply_first(TransposeInplace, a, axes))


def t_(t):
    n = t._data.ndim
    if n > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {n}D")
    return _inplace_view(t, lambda a: apply_first(TInplace, a, tuple(range(n))[::-1]))


def as_strided_(t, size, stride, storage_offset=None):
    args = strided.as_strided_args(t, size, stride, storage_offset, "as_strided_")
    return _inplace_view(t, lambda a: apply_first(AsStridedInplace, a, *args))


# ---- resize_ ---------------------------------------------------------------------------------

def _sizes(name, size):
    from .._arg_errors import _is_long, type_name
    if len(size) == 1 and not _is_long(size[0]):
        if not isinstance(size[0], (tuple, list)) or not all(_is_long(s) for s in size[0]):
            raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not {type_name(size[0])}")
        size = tuple(size[0])
    for i, s in enumerate(size):
        if not _is_long(s):
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {type_name(s)}\"")
    size = tuple(int(s) for s in size)
    if any(s < 0 for s in size):
        raise RuntimeError("numel: integer multiplication overflow")  # torch's words for a negative size
    return size


def resize_(t, *size, memory_format=None):
    """Tensor.resize_(*sizes): t takes the new shape, contiguous, over its memory from its first
    element. Memory the tensor can reach (its storage, also what an earlier resize_ shrank it
    from) is reused as torch reuses its storage; past that the tensor gets new memory holding
    its old elements first and zeros after (torch leaves those uninitialized)."""
    size = _sizes("resize_", size)
    if t._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    from .inplace import check_writable
    check_writable(t)
    if memory_format is not None:
        raise RuntimeError("minigrad's resize_ lays tensors out contiguously only: pass no memory_format")
    if size == t._data.shape:
        return t
    numel = 1
    for s in size:
        numel *= s
    be = t._device.backend
    strides, step = [], 1
    for s in reversed(size):
        strides.append(step)
        step *= s
    strides = tuple(reversed(strides))
    if not t._data.size:
        have, memory = 0, None
    else:
        have, memory = strided._storage_size(t) - strided._offset(t), t._data
    held = getattr(t, "_resize_memory", None)
    if held is not None and held[1] > have and be.data_ptr(held[0]) == be.data_ptr(t._data):
        memory, have = held
    if numel <= have:
        t._data = be.as_strided(memory, size, strides, 0)
    else:
        new = be.zeros((numel,), t._data.dtype)
        if have:
            be.copyto(be.getitem(new, (slice(0, have),)), be.as_strided(memory, (have,), (1,), 0))
        t._data = be.reshape(new, size)
        memory, have = new, numel
        if t._base is not None:  # new memory: no longer a view of anything (torch's storage moves instead)
            t._base = t._view_replay = None
            t._vc = [t._vc[0], 0]
    if memory is not None and have > numel:  # what a later resize_ may grow back into
        t._resize_memory = (memory, have)
    t._bump_version()
    return t


def resize_as_(t, other, memory_format=None):
    if not isinstance(other, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"resize_as_(): argument 'the_template' (position 1) must be Tensor, not {type_name(other)}")
    return resize_(t, tuple(other._data.shape), memory_format=memory_format)
