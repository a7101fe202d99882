"""In-place ops on views of tensors in a recorded graph (torch's CopySlices).

`y[:2].mul_(3)` changes y's memory, so y's graph must learn of it: y's grad_fn becomes a
CopySlices node (y with the region replaced by the result), and the view's grad_fn becomes a
ViewGather from that node. Gradients reach the region through the same view replayed on a
gradient array: the chain of view primitives recorded on the view (`_view_replay`).
"""
from ..tensor import _make, stored_grad_fn
from .elementwise import Builtin


def replay(view, arr):
    """The array that `view` is of its base, made the same way from arr (shaped like the base)."""
    steps = []
    t = view
    while t._base is not None:
        parent, step = t._view_replay
        if step is not None:
            steps.append(step)
        t = parent
    be = view._device.backend
    for name, arg in reversed(steps):
        if name == "view":
            try:
                arr = be.view(arr, arg)
            except ValueError:
                raise RuntimeError("minigrad cannot route gradients through this in-place op on a view: "
                                   "the view's reshape is not a view of the gradient's layout") from None
        elif name == "as_strided":  # arg: (shape, strides, offset), or a function of the array giving them
            arr = be.as_strided(arr, *(arg(be, arr) if callable(arg) else arg))
        else:
            arr = getattr(be, name)(arr, arg)
    return arr


class ViewGather(Builtin):
    """The region of x (shaped like view's base) that view covers."""
    _node_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, x, view):
        ctx.view, ctx.shape = view, x._data.shape
        return _make(replay(view, x._data), x._device)

    @staticmethod
    def backward(ctx, g):
        return ViewScatter.apply(g, ctx.view, ctx.shape), None


class ViewScatter(Builtin):
    """zeros shaped like view's base with g written into view's region."""
    _node_name = "AsStridedScatterBackward0"

    @staticmethod
    def forward(ctx, g, view, shape):
        ctx.view = view
        be = g._device.backend
        out = be.zeros(shape, g._data.dtype)
        be.copyto(replay(view, out), g._data)
        return _make(out, g._device)

    @staticmethod
    def backward(ctx, gg):
        return ViewGather.apply(gg, ctx.view), None, None


class RegionZero(Builtin):
    """A copy of x with view's region set to zero (its own adjoint)."""
    _node_name = "RegionZeroBackward0"

    @staticmethod
    def forward(ctx, x, view):
        ctx.view = view
        be = x._device.backend
        out = be.copy(x._data)
        be.copyto(replay(view, out), be.zeros((), out.dtype))
        return _make(out, x._device)

    @staticmethod
    def backward(ctx, g):
        return RegionZero.apply(g, ctx.view), None


class CopySlices(Builtin):
    """base with view's region replaced by r; writes r into the base's memory."""
    _node_name = "CopySlices"

    @staticmethod
    def forward(ctx, base, r, view):
        ctx.view = view
        be = base._device.backend
        be.copyto(replay(view, base._data), r._data)
        return _make(base._data, base._device)

    @staticmethod
    def backward(ctx, g):
        nb, nr = ctx.needs_input_grad[:2]
        return (RegionZero.apply(g, ctx.view) if nb else None,
                ViewGather.apply(g, ctx.view) if nr else None, None)


def _base_alias(base):
    """A tensor standing for base's current value and graph position."""
    alias = base._alias()
    alias._base, alias._view_replay = None, None
    alias.grad_fn, alias._output_nr, alias._requires_grad = base.grad_fn, base._output_nr, base._requires_grad
    return alias


_MODIFIED = "is being modified inplace"
_REBASED = "its base or another view of its base has been modified inplace"


def _no_grad_view_message(what, view):
    """The end of torch's errors about view, a view made in no_grad mode (or in inference mode)."""
    mode, later, block = (("inference mode", "in normal mode", "inference_mode") if view._inference_mode_view
                          else ("no_grad mode", "with grad mode enabled", "no_grad"))
    return (f"{mode} and {what} {later}. Given that this use case is ambiguous and error-prone, it is "
            "forbidden. You can clarify your code by moving both the view and the inplace either both "
            f"inside the {block} block (if you don't want the inplace to be tracked) or both outside (if "
            "you want the inplace to be tracked).")


def no_grad_view_modified_error(view):
    """torch's error for modifying in place, in grad mode, a view made in no_grad mode."""
    return RuntimeError("A view was created in " + _no_grad_view_message(_MODIFIED, view))


def _of_no_grad_view(view):
    """The view made in no_grad mode that view was made from (in grad mode), or None."""
    p = view._view_replay[0]
    while p._base is not None:
        if p._no_grad_view is not None:
            return p
        p = p._view_replay[0]
    return None


def _of_no_grad_view_error(view, what):
    from ..autograd.function import node_label
    fn = stored_grad_fn(view)  # reading view.grad_fn may raise (tensor._NoGradView)
    return RuntimeError(f"Output {view._output_nr} of {node_label(fn.name())} is a view of a view "
                        "which was created in " + _no_grad_view_message(what, _of_no_grad_view(view)))


def no_grad_view_error(view, fn):
    """torch's error for reading the grad_fn of a view made in no_grad mode (fn None), or made from
    one in grad mode, once it or its base was modified in place."""
    if fn is None:
        return RuntimeError("A view was created in " + _no_grad_view_message(_REBASED, view))
    return _of_no_grad_view_error(view, _REBASED)


def check_layout(view):
    """Refuse, rather than route wrongly, a view whose base has since changed its own layout in
    place (t_, unsqueeze_, ...): replaying the view's chain on the base must give its memory."""
    be = view._device.backend
    arr = replay(view, view._base._data)
    a = view._data
    if arr.shape != a.shape or (a.size and (be.data_ptr(arr) != be.data_ptr(a) or be.strides(arr) != be.strides(a))):
        raise RuntimeError("minigrad cannot record an in-place op on this view: its base changed its shape or "
                           "layout in place (unsqueeze_, t_, transpose_, ...) after the view was made. Make the "
                           "view again from the base.")


def regenerate(view):
    base = view._base
    if view._no_grad_view is not None:
        # torch cannot give it a grad_fn from its base's graph: an error once either was modified
        if view._vc[0] != view._no_grad_view:
            raise RuntimeError("A view was created in " + _no_grad_view_message(_REBASED, view))
        return
    if _of_no_grad_view(view) is not None:
        raise _of_no_grad_view_error(view, _REBASED)
    check_layout(view)
    view._view_mark = view._vc[1]
    if base._requires_grad:
        fresh = ViewGather.apply(_base_alias(base), view)
        view.grad_fn, view._output_nr, view._requires_grad = fresh.grad_fn, 0, True


def adopt_views(base, written=None):
    """base has just come to require grad through an in-place op (on itself or on its view
    `written`): the views of it made before, while it did not (shape.remember_view), now require
    grad with a grad_fn regenerated from its new graph, as torch gives them."""
    vc = base._vc
    for r in vc[2:]:
        v = r()
        if v is None or v is written or v._requires_grad or v._base is not base:
            continue
        try:
            regenerate(v)
        except RuntimeError:  # its base changed layout in place since: left as it was (check_layout)
            pass


VIEW_OF_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation."


def inplace_on_view(t, compute, other, operands=None):
    """Run compute (an out-of-place op) on view t and write the result back into the base's graph."""
    base = t._base
    if _of_no_grad_view(t) is not None:
        raise _of_no_grad_view_error(t, _MODIFIED)
    if base._requires_grad and base.grad_fn is None:
        raise RuntimeError(VIEW_OF_LEAF)
    if t._vc[1] != t._view_mark:
        regenerate(t)
    else:
        check_layout(t)
    base_old = _base_alias(base)
    region = ViewGather.apply(base_old, t) if base._requires_grad else t._alias()
    if other is not None and getattr(other, "_requires_grad", False):
        region._data = t._device.backend.copy(region._data)  # the op may save the old value
        region._vc = None
    from .inplace import _computed
    result = _computed(compute, region, t, operands)
    if result._data.shape != t._data.shape:
        raise RuntimeError(f"output with shape {list(t._data.shape)} doesn't match the broadcast shape "
                           f"{list(result._data.shape)}")
    if result._data.dtype != t._data.dtype:
        if result.dtype._category > t.dtype._category:  # as the path for a tensor that is no view
            raise RuntimeError(f"result type {result.dtype._legacy[:-6]} can't be cast to the desired output "
                               f"type {t.dtype._legacy[:-6]}")
        result = result.to(t.dtype)
    new_base = CopySlices.apply(base_old, result, t)
    adopt = new_base._requires_grad and not base._requires_grad
    base.grad_fn, base._output_nr, base._requires_grad = new_base.grad_fn, 0, new_base._requires_grad
    t._bump_version()
    t._vc[1] += 1
    new_view = ViewGather.apply(new_base, t)
    t.grad_fn, t._output_nr, t._requires_grad = new_view.grad_fn, 0, new_view._requires_grad
    t._view_mark = t._vc[1]
    if adopt and len(t._vc) > 2:
        adopt_views(base, t)
    return t
