"""Shape ops. Those that are views share memory and the version counter with their input."""
from weakref import ref as _weakref

from ..tensor import _NoGradView, _make, _index_dims, _wrap_dim, _wrap_dims
from .broadcast import sum_to, sum_to_array
from ..autograd.function import apply_first
from .elementwise import Builtin


def view_of(a, arr, replay):
    """Wrap arr, a view of a's memory, as a view tensor of a.

    replay is (primitive name, argument): how to make the same view of another array, which
    in-place ops on views use to route gradients (ops/view_inplace.py).
    """
    t = _make(arr, a._device)
    if t._inference is not a._inference:  # a view is an inference tensor as its base is, in any mode
        t._inference = a._inference
    vc = a._vc
    if vc is None:
        vc = a._vc = [0, 0]
    t._vc = vc
    t._base = a._base if a._base is not None else a
    t._view_mark = vc[1]
    t._view_replay = (a, replay)
    if a.__class__ is _NoGradView:  # a view of a view made in no_grad mode is one of its kind
        t.__class__ = _NoGradView
    elif not a._requires_grad:
        remember_view(vc, t)
    return t


def remember_view(vc, t):
    """Keep view t, weakly, after the version counter of memory that does not require grad: an
    in-place op that makes the memory require grad later must make its earlier views require grad
    too (torch reads a view's requires_grad and grad_fn off its base; minigrad keeps both plain
    attributes, so that op updates them, ops/view_inplace.py adopt_views). Dead entries are
    dropped every 64 views."""
    vc.append(_weakref(t))
    if not len(vc) & 63:
        vc[2:] = [r for r in vc[2:] if r() is not None]


def infer_shape(shape, numel):
    shape = list(shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for i, s in enumerate(shape):
        if not isinstance(s, int):
            from .._arg_errors import type_name
            raise TypeError(f"shape must be a tuple of ints, but got an element of type {type_name(s)} at pos {i + 1}")
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {shape}")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if unknown:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {_fmt(shape)} because the "
                               "unspecified dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {numel}")
        shape[unknown[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{_fmt(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _fmt(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


class Reshape(Builtin):
    _node_name = "ViewBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a._data.shape
        be = a._device.backend
        try:
            return view_of(a, be.view(a._data, shape), ("view", shape))
        except ValueError:
            return _make(be.reshape(a._data, shape), a._device)  # torch's reshape copies here too

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.in_shape), None

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.reshape(g, ctx.in_shape), None


class View(Reshape):
    _node_name = "ViewBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a._data.shape
        try:
            return view_of(a, a._device.backend.view(a._data, shape), ("view", shape))
        except ValueError:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least "
                               "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                               "instead.") from None


class Unsqueeze(Reshape):
    _node_name = "UnsqueezeBackward0"


class Squeeze(Reshape):
    _node_name = "SqueezeBackward0"  # squeeze(): every dim of size 1


class SqueezeDim(Squeeze):
    _node_name = "SqueezeBackward1"  # squeeze(dim)


class SqueezeDims(Squeeze):
    _node_name = "SqueezeBackward2"  # squeeze((dim, ...))


class _ReshapeAlias(Reshape):
    _node_name = "ReshapeAliasBackward0"


class _UnsafeView(Reshape):
    """The reshape of a contiguous copy: a new tensor, no view (torch's _unsafe_view)."""
    _node_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a._data.shape
        return _make(a._device.backend.reshape(a._data, shape), a._device)


def reshape(a, shape):
    shape = infer_shape(shape, a._data.size)
    if a._requires_grad and not a._device.backend.is_contiguous(a._data):
        # torch's nodes: a view where the strides allow one (ReshapeAliasBackward0), else the
        # reshape of a contiguous copy (UnsafeViewBackward0 after CloneBackward0)
        try:
            a._device.backend.view(a._data, shape)
        except ValueError:
            return apply_first(_UnsafeView, a.contiguous(), shape)
        return apply_first(_ReshapeAlias, a, shape)
    return apply_first(Reshape, a, shape)


def view(a, shape):
    from ..dtypes import dtype as _dtype
    if len(shape) == 1 and isinstance(shape[0], _dtype):
        raise RuntimeError("view(dtype) is not supported by minigrad")
    return apply_first(View, a, infer_shape(shape, a._data.size))


def flatten(a, start_dim=0, end_dim=-1):
    shape = a._data.shape
    if not shape:  # a 0-d tensor's dims wrap as a 1-d one's (torch), each checked
        _wrap_dim(start_dim, 1), _wrap_dim(end_dim, 1)
        return reshape(a, (1,))
    s, e = _wrap_dim(start_dim, len(shape)), _wrap_dim(end_dim, len(shape))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return a  # as torch: nothing to flatten, the tensor itself
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return reshape(a, shape[:s] + (n,) + shape[e + 1:])


def unsqueeze(a, dim):
    shape = a._data.shape
    d = _wrap_dim(dim, len(shape) + 1, "unsqueeze")
    return apply_first(Unsqueeze, a, shape[:d] + (1,) + shape[d:])


def squeeze_plan(a, dim):
    """(the op class, the new shape) of a.squeeze(dim)."""
    shape = a._data.shape
    if dim is None:
        dims = {i for i, s in enumerate(shape) if s == 1}
    else:
        try:
            if isinstance(dim, (tuple, list)):
                wrapped = _wrap_dims(dim, len(shape)) if dim else ()
                dims = set(wrapped)
                if len(dims) != len(wrapped):
                    seen = set()
                    d = next(d for d in wrapped if d in seen or seen.add(d))
                    raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
            else:
                dims = {_wrap_dim(dim, len(shape))}
        except TypeError:
            from .._arg_errors import dim_type_error
            raise dim_type_error("squeeze", dim) from None
        dims = {d for d in dims if shape and shape[d] == 1}
    cls = Squeeze if dim is None else SqueezeDims if isinstance(dim, (tuple, list)) else SqueezeDim
    return cls, tuple(s for i, s in enumerate(shape) if i not in dims)


def squeeze(a, dim=None):
    cls, shape = squeeze_plan(a, dim)
    return apply_first(cls, a, shape)


class Permute(Builtin):
    _node_name = "PermuteBackward0"

    @staticmethod
    def forward(ctx, a, axes):
        ctx.axes = axes
        return view_of(a, a._device.backend.transpose(a._data, axes), ("transpose", axes))

    @staticmethod
    def backward(ctx, g):
        inverse = [0] * len(ctx.axes)
        for i, ax in enumerate(ctx.axes):
            inverse[ax] = i
        return g.permute(*inverse), None

    @staticmethod
    def backward_raw(ctx, be, g):
        inverse = [0] * len(ctx.axes)
        for i, ax in enumerate(ctx.axes):
            inverse[ax] = i
        return be.transpose(g, tuple(inverse)), None


class _Swap(Permute):
    """A permutation that is its own inverse: its gradient goes back through the same op, which
    records the same node with create_graph (as torch's transpose and t do)."""

    @classmethod
    def backward(cls, ctx, g):
        return apply_first(cls, g, ctx.axes), None


class Transpose(_Swap):
    _node_name = "TransposeBackward0"


class T(_Swap):
    _node_name = "TBackward0"


def permute(a, dims):
    n = a._data.ndim
    dims = _index_dims(dims) if dims else dims  # torch's parser judges the types first
    if len(dims) != n:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match "
                           f"the length of the desired ordering of dimensions i.e. input.dim() = {n} is "
                           f"not equal to len(dims) = {len(dims)}")
    axes = tuple([_wrap_dim(d, n) for d in dims])
    if len(set(axes)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return apply_first(Permute, a, axes)


def transpose_axes(a, dim0, dim1):
    n = a._data.ndim
    d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    axes = list(range(n))
    axes[d0], axes[d1] = axes[d1], axes[d0]
    return tuple(axes)


def transpose(a, dim0, dim1):
    return apply_first(Transpose, a, transpose_axes(a, dim0, dim1))


def t(a):
    n = a._data.ndim
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    return apply_first(T, a, tuple(range(n))[::-1])


_WARNED_0D = set()  # torch gives each of these warnings once per process


def _zero_d_warning(what, advice):
    if what not in _WARNED_0D:
        import warnings
        _WARNED_0D.add(what)
        warnings.warn(f"{what} is deprecated on 0-D tensors. {advice}", UserWarning, stacklevel=3)


def _matrix_transpose(a, name, advice, warn_name=None):
    """The last two dims swapped (mT, and for real tensors mH and adjoint()); a 0-d tensor
    itself, with torch's deprecation warning."""
    if a._data.ndim == 0:
        _zero_d_warning(warn_name or "Tensor." + name, advice)
        return a
    if a._data.ndim == 1:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(a, -2, -1)


def mT(a):
    return _matrix_transpose(a, "mT", "This function is the identity in these cases.")


def mH(a):
    """Tensor.mH: the conjugate of mT, which for minigrad's real dtypes is mT."""
    return _matrix_transpose(a, "mH", "Consider using x.conj().")


def adjoint(input):
    """torch.adjoint / Tensor.adjoint(): mH, a view."""
    return _matrix_transpose(input, "adjoint()", "Consider using x.conj().", "adjoint()")


def H(a):
    """Tensor.H: the conjugate transpose of a matrix, for real dtypes its transpose."""
    n = a._data.ndim
    if n == 0:
        _zero_d_warning("Tensor.H", "Consider using x.conj().")
        return a
    if n != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH" if n > 2 else ""))
    return transpose(a, 0, 1)


class Expand(Builtin):
    _node_name = "ExpandBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a._data.shape
        return view_of(a, a._device.backend.broadcast_to(a._data, shape), ("broadcast_to", shape))

    @staticmethod
    def backward(ctx, g):
        return sum_to(g, ctx.in_shape), None

    @staticmethod
    def backward_raw(ctx, be, g):
        return sum_to_array(be, g, ctx.in_shape), None


def expand(a, sizes):
    shape = a._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(f"expand({_type_string(a)}{{{list(shape)}}}, size={list(sizes)}): the "
                           f"number of sizes provided ({len(sizes)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    out = [0] * len(sizes)
    for i in range(len(sizes) - 1, -1, -1):  # from the last dim, as torch checks
        s = sizes[i]
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            out[i] = s
            continue
        cur = shape[i - lead]
        if s == -1:
            s = cur
        if cur != s and cur != 1:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) "
                               f"at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                               f"Tensor sizes: {list(shape)}")
        out[i] = s
    return apply_first(Expand, a, tuple(out))


def _type_string(a):
    """How torch's messages name a tensor's type: its legacy class (minigrad.FloatTensor,
    minigrad.cuda.LongTensor), or for bool and bfloat16, which have none, CPUBoolType."""
    legacy = a.dtype._legacy
    cuda = a._device.type == "cuda"
    if legacy in ("BoolTensor", "BFloat16Tensor"):
        return ("CUDA" if cuda else "CPU") + legacy[:-6] + "Type"
    return ("minigrad.cuda." if cuda else "minigrad.") + legacy


class Clone(Builtin):
    _node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, a, order=None):
        # order: the dims, slowest first, the copy's memory runs over (None: row-major)
        if order is None:
            return _make(a._device.backend.copy(a._data), a._device)
        from ..memory_formats import relaid
        return _make(relaid(a._device.backend, a._data, order), a._device)

    @staticmethod
    def backward(ctx, g):
        return g

    @staticmethod
    def backward_raw(ctx, be, g):
        return g


def contiguous(a, memory_format=None):
    if memory_format is None:
        if a._device.backend.is_contiguous(a._data):
            return a
        return Clone.apply(a)
    from .. import memory_formats as mf
    mf.check(memory_format, "contiguous")
    if memory_format is mf.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    mf.check_rank(memory_format, a._data.ndim)
    if mf.is_contiguous_as(a._data.shape, a.stride(), memory_format):
        return a
    return Clone.apply(a, mf.order_of(a, memory_format))


def clone(a, memory_format=None):
    """x.clone(memory_format=preserve_format): a dense input keeps its strides, others take the
    format their strides suggest (torch's rule); other formats lay the copy out in that format."""
    if memory_format is None:
        if a._device.backend.is_contiguous(a._data):
            return Clone.apply(a)
        from .. import memory_formats as mf
        memory_format = mf.preserve_format
    from .. import memory_formats as mf
    mf.check(memory_format, "clone")
    order = mf.order_of(a, memory_format)
    return Clone.apply(a, None if order == tuple(range(a._data.ndim)) else order)


def int_list(op, arg, args):
    """The ints of f(2, 3) or f((2, 3)) (a Tensor method's int[] argument given by position), or
    torch's TypeError naming op and its argument arg."""
    from .._arg_errors import _is_index, type_name
    if not args:
        raise TypeError(f'{op}() missing 1 required positional arguments: "{arg}"')
    seq = args
    if len(args) == 1:
        if isinstance(args[0], (tuple, list)):
            seq = args[0]
        elif not _is_index(args[0]):
            raise TypeError(f"{op}(): argument '{arg}' (position 1) must be tuple of ints, not {type_name(args[0])}")
    for i, s in enumerate(seq):
        if not (_is_index(s) or s.__class__ is bool):
            raise TypeError(f"{op}(): argument '{arg}' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {type_name(s)}\"")
    return tuple(int(s) for s in seq)


class Repeat(Builtin):
    """x.repeat(r0, r1, ...): x tiled r_i times along dim i (leading dims added as size 1)."""
    _node_name = "RepeatBackward0"

    @staticmethod
    def forward(ctx, a, repeats):
        be = a._device.backend
        shape = (1,) * (len(repeats) - a._data.ndim) + a._data.shape
        ctx.in_shape, ctx.pairs = a._data.shape, tuple(x for r, s in zip(repeats, shape) for x in (r, s))
        # (1, s0, 1, s1, ...) broadcast to (r0, s0, r1, s1, ...), then merged pairwise: a copy
        x = be.reshape(a._data, tuple(x for s in shape for x in (1, s)))
        x = be.ascontiguous(be.broadcast_to(x, ctx.pairs))
        return _make(be.reshape(x, tuple(r * s for r, s in zip(repeats, shape))), a._device)

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.pairs).sum(tuple(range(0, len(ctx.pairs), 2))).reshape(ctx.in_shape), None

    @staticmethod
    def backward_raw(ctx, be, g):
        summed = be.sum(be.reshape(g, ctx.pairs), tuple(range(0, len(ctx.pairs), 2)))
        return be.reshape(summed, ctx.in_shape), None


def repeat(a, repeats):
    if len(repeats) < a._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions "
                           "of tensor")
    shape = (1,) * (len(repeats) - a._data.ndim) + a._data.shape
    out = [r * s for r, s in zip(repeats, shape)]
    for n in out:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {out}")
    return apply_first(Repeat, a, repeats)


def tile(a, dims):
    """torch.tile: repeat, with dims padded by leading ones to the tensor's rank."""
    return repeat(a, (1,) * (a._data.ndim - len(dims)) + tuple(dims))
