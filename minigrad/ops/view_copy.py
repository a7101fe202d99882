"""torch's *_copy functions: each view op (permute, select, unfold, ...) followed by a copy into a
fresh row-major tensor that shares nothing with its input. One graph node per call, named as
torch names it (PermuteBackward0_copy); its backward is the view's own gradient, found by
running the view again on a stand-in for the input."""
from ..autograd.function import Function
from ..tensor import Tensor


def _view_vjp(fn, args, in_meta, grads):
    """The gradient the view fn(x, *args) sends to x for the output gradients grads (linear in
    them; differentiable itself when the engine asks for a graph)."""
    from .. import autograd, zeros
    from ..autograd.grad_mode import is_grad_enabled, enable_grad
    shape, dtype, device = in_meta
    create = is_grad_enabled()
    with enable_grad():
        x = zeros(shape, dtype=dtype, device=device, requires_grad=True)
        outs = fn(x, *args)
        outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
        pairs = [(o, g) for o, g in zip(outs, grads) if g is not None]
        if not pairs:
            return None
        got = autograd.grad([o for o, _ in pairs], [x], [g for _, g in pairs], create_graph=create,
                            allow_unused=True)[0]
    return got if got is not None else zeros(shape, dtype=dtype, device=device)


def _copy_function(node_name, fn):
    def forward(ctx, x, *args):
        ctx.args, ctx.meta = args, (tuple(x.shape), x.dtype, x._device)
        out = fn(x, *args)
        if isinstance(out, (tuple, list)):
            return tuple(o.clone(memory_format=_contiguous()) for o in out)
        return out.clone(memory_format=_contiguous())

    def backward(ctx, *grads):
        return (_view_vjp(fn, ctx.args, ctx.meta, grads),) + (None,) * len(ctx.args)

    return type(node_name.replace("_copy", "").replace("Backward", "Copy"), (Function,),
                {"_node_name": node_name, "forward": staticmethod(forward), "backward": staticmethod(backward)})


def _contiguous():
    from ..memory_formats import contiguous_format
    return contiguous_format


def _check_tensor(op, x):
    if not isinstance(x, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type_name(x)}")


def _make_copy(op, node_name, fn, check=None):
    """torch.<op>: the arguments checked by running the view once (so errors are the view's own
    messages), then one recorded node."""
    cls = _copy_function(node_name, fn)

    def copy_op(input, *args, **kwargs):
        _check_tensor(op, input)
        if kwargs:
            args = check(*args, **kwargs) if check is not None else args
        from ..autograd.grad_mode import no_grad
        with no_grad():
            fn(input, *args)  # raises the view's error for bad arguments before anything is recorded
        return cls.apply(input, *args)

    copy_op.__name__ = copy_op.__qualname__ = op
    copy_op.__doc__ = f"Performs the same operation as the view {op[:-5]}, but the result is a new tensor " \
                      "that owns its memory (row-major)."
    return copy_op


def _squeeze_copy(input, dim=None):
    _check_tensor("squeeze_copy", input)
    if dim is None:
        return _SQUEEZE0(input)
    return _SQUEEZE2(input, dim) if isinstance(dim, (tuple, list)) else _SQUEEZE1(input, dim)


def _view_copy(input, *size, dtype=None):
    _check_tensor("view_copy", input)
    from .. import dtypes
    target = size[0] if len(size) == 1 else size
    if dtype is not None or isinstance(target, dtypes.dtype):
        from ..autograd.grad_mode import no_grad
        with no_grad():  # torch records no node for the reinterpreting view
            return input.view(dtype if dtype is not None else target).clone(memory_format=_contiguous())
    return _VIEW(input, tuple(target) if isinstance(target, (tuple, list)) else tuple(size))


def _detach_copy(input):
    _check_tensor("detach_copy", input)
    return input.detach().clone(memory_format=_contiguous())


def _alias(x):
    return x.view(x.shape)


_SQUEEZE0 = _make_copy("squeeze_copy", "SqueezeBackward0_copy", lambda x: x.squeeze())
_SQUEEZE1 = _make_copy("squeeze_copy", "SqueezeBackward1_copy", lambda x, d: x.squeeze(d))
_SQUEEZE2 = _make_copy("squeeze_copy", "SqueezeBackward2_copy", lambda x, d: x.squeeze(tuple(d)))
_VIEW = _make_copy("view_copy", "ViewBackward0_copy", lambda x, s: x.view(s))


def _kw(names, defaults=()):
    """A checker binding keyword arguments to positions in names (with trailing defaults)."""
    def bind(*args, **kwargs):
        vals = list(args) + [None] * (len(names) - len(args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"got an unexpected keyword argument '{k}'")
            vals[names.index(k)] = v
        for i, d in enumerate(defaults, len(names) - len(defaults)):
            if vals[i] is None:
                vals[i] = d
        return tuple(vals)
    return bind


def _strided(x, size, stride, offset=None):
    return x.as_strided(size, stride, offset)


FUNCTIONS = {
    "alias_copy": _make_copy("alias_copy", "AliasBackward0_copy", _alias),
    "as_strided_copy": _make_copy("as_strided_copy", "AsStridedBackward0_copy", _strided,
                                  _kw(("size", "stride", "storage_offset"), (None,))),
    "detach_copy": _detach_copy,
    "diagonal_copy": _make_copy("diagonal_copy", "DiagonalBackward0_copy",
                                lambda x, o=0, a=0, b=1: x.diagonal(o, a, b),
                                _kw(("offset", "dim1", "dim2"), (0, 0, 1))),
    "expand_copy": _make_copy("expand_copy", "ExpandBackward0_copy", lambda x, s, implicit=False: x.expand(s),
                              _kw(("size", "implicit"), (False,))),
    "permute_copy": _make_copy("permute_copy", "PermuteBackward0_copy", lambda x, dims: x.permute(dims),
                               _kw(("dims",))),
    "select_copy": _make_copy("select_copy", "SelectBackward0_copy", lambda x, d, i: x.select(d, i),
                              _kw(("dim", "index"))),
    "slice_copy": _make_copy("slice_copy", "SliceBackward0_copy",
                             lambda x, d=0, s=None, e=None, st=1: x[(slice(None),) * (d % max(x.dim(), 1)) +
                                                                    (slice(s, e, st),)],
                             _kw(("dim", "start", "end", "step"), (0, None, None, 1))),
    "split_copy": _make_copy("split_copy", "SplitBackward0_copy", lambda x, s, d=0: x.split(s, d),
                             _kw(("split_size", "dim"), (0,))),
    "split_with_sizes_copy": _make_copy("split_with_sizes_copy", "SplitWithSizesBackward0_copy",
                                        lambda x, s, d=0: x.split(list(s), d), _kw(("split_sizes", "dim"), (0,))),
    "squeeze_copy": _squeeze_copy,
    "t_copy": _make_copy("t_copy", "TBackward0_copy", lambda x: x.t()),
    "transpose_copy": _make_copy("transpose_copy", "TransposeBackward0_copy", lambda x, a, b: x.transpose(a, b),
                                 _kw(("dim0", "dim1"))),
    "unbind_copy": _make_copy("unbind_copy", "UnbindBackward0_copy", lambda x, d=0: x.unbind(d),
                              _kw(("dim",), (0,))),
    "unfold_copy": _make_copy("unfold_copy", "UnfoldBackward0_copy", lambda x, d, s, st: x.unfold(d, s, st),
                              _kw(("dimension", "size", "step"))),
    "unsqueeze_copy": _make_copy("unsqueeze_copy", "UnsqueezeBackward0_copy", lambda x, d: x.unsqueeze(d),
                                 _kw(("dim",))),
    "view_copy": _view_copy,
}
