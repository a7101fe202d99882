"""Joining and splitting: cat, stack, split, chunk."""
from .._arg_errors import ArgTypeError, _is_index, dim_type_error, type_name
from ..dtypes import promote_types
from ..tensor import Tensor, _as_index, _index_dims, _make, _wrap_dim
from .elementwise import Builtin, device_error
from .index import split_piece
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies


class Cat(Builtin):
    _node_name = "CatBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        # a legacy empty tensor of shape (0,) beside tensors of more dims adds nothing (None size)
        ndim = max(t._data.ndim for t in tensors)
        ctx.dim = dim
        ctx.sizes = [t._data.shape[dim] if t._data.ndim == ndim else None for t in tensors]
        first = tensors[0]
        arrays = [t._data for t in tensors if t._data.ndim == ndim]
        return _make(first._device.backend.concatenate(arrays, dim), first._device)

    @staticmethod
    def backward(ctx, g):
        grads, start = [None], 0
        for n, size in zip(ctx.needs_input_grad[1:], ctx.sizes):
            if size is None:
                grads.append(g.new_zeros(0) if n else None)
            elif n:
                index = (slice(None),) * ctx.dim + (slice(start, start + size),)
                grads.append(g[index])
                start += size
            else:
                grads.append(None)
                start += size
        return tuple(grads)


def cat(tensors, dim=0):
    if _AUTOCAST_ON[0] and (r := _autocast("cat", cat, tensors, dim)) is not None:
        return r
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError("cat() received an invalid combination of arguments - expected a tuple or list "
                        f"of Tensors, got {type(tensors).__name__}")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type_name(t)}")
    _check_dim_type(dim, "cat")
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    ref = tensors[0]
    # torch skips legacy empty 1-d tensors of shape (0,) when joining
    keep = [t for t in tensors if not (t._data.ndim == 1 and t._data.shape[0] == 0)] or [ref]
    ref = keep[0]
    d = _wrap_dim(dim, ref._data.ndim, "cat")
    for i, t in enumerate(keep):
        if t._device is not ref._device:
            raise device_error(ref, t)
        if t._data.ndim != ref._data.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref._data.ndim} and "
                               f"{t._data.ndim}")
        for k, (x, y) in enumerate(zip(ref._data.shape, t._data.shape)):
            if k != d and x != y:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{x} but got size {y} for tensor number {i} in the list.")
    if len(keep) < len(tensors):  # the skipped empty tensors take part in the dtype and get a gradient
        for t in tensors:
            if t._device is not ref._device:
                raise device_error(ref, t)
        keep = tensors
    return Cat.apply(d, *_promoted(keep))


def _promoted(tensors):
    """The tensors cast to the dtype they promote to together."""
    dtype = tensors[0].dtype
    for t in tensors:
        dtype = promote_types(dtype, t.dtype)
    return [t if t.dtype is dtype else t.to(dtype) for t in tensors]


class Stack(Cat):
    _node_name = "StackBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        ctx.dim = dim
        first = tensors[0]
        be, shape = first._device.backend, first._data.shape
        grown = shape[:dim] + (1,) + shape[dim:]
        return _make(be.concatenate([be.reshape(t._data, grown) for t in tensors], dim), first._device)

    @staticmethod
    def backward(ctx, g):
        lead = (slice(None),) * ctx.dim
        return (None,) + tuple(g[lead + (i,)] if n else None for i, n in enumerate(ctx.needs_input_grad[1:]))


def _check_dim_type(dim, op):
    """torch's parser refuses a dim that is no integer before the op looks at anything else."""
    if dim.__class__ is not int and (dim.__class__ is bool or not _is_index(dim)):
        raise dim_type_error(op, dim)


def stack(tensors, dim=0):
    if _AUTOCAST_ON[0] and (r := _autocast("stack", stack, tensors, dim)) is not None:
        return r
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type_name(t)}")
    _check_dim_type(dim, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 "
                               f"and {list(t._data.shape)} at entry {i}")
    d = _wrap_dim(dim, len(shape) + 1, "stack")
    for t in tensors:
        if t._device is not tensors[0]._device:
            raise device_error(tensors[0], t)
    return Stack.apply(d, *_promoted(tensors))


def split(a, split_size_or_sections, dim=0):
    """Tensor.split: an int split size, or a list of sizes (torch's split_with_sizes)."""
    if isinstance(split_size_or_sections, Tensor):  # as torch's Tensor.split: the number it holds
        split_size_or_sections = int(split_size_or_sections)
    if split_size_or_sections.__class__ is bool or not isinstance(split_size_or_sections, (int, tuple, list)):
        raise ArgTypeError("split(): split_size must be int or a tuple of ints")  # torch's parser words it
    if not isinstance(split_size_or_sections, int):
        split_size_or_sections = _index_dims(split_size_or_sections) if split_size_or_sections else []
    if a._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, a._data.ndim)
    n = a._data.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0 and n != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        sizes = [min(step, n - s) for s in range(0, n, step)] if n else [0]
    else:
        sizes = list(split_size_or_sections)
        if any(size < 0 for size in sizes):
            raise RuntimeError("split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={sizes}")
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's "
                               f"size at dimension {d}), but got split_sizes={sizes}")
    out, start, with_sizes = [], 0, not isinstance(split_size_or_sections, int)
    for size in sizes:
        out.append(split_piece(a, d, start, start + size, with_sizes))
        start += size
    return tuple(out)


def chunk(a, chunks, dim=0):
    if chunks.__class__ is not int:
        try:
            chunks = _as_index(chunks)
        except TypeError:
            raise ArgTypeError(f"chunk(): argument 'chunks' must be int, not {type_name(chunks)}") from None
    _check_dim_type(dim, "chunk")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    if a._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, a._data.ndim, "chunk")
    n = a._data.shape[d]
    if n == 0:  # torch: `chunks` empty pieces
        return tuple(a[(slice(None),) * d + (slice(0, 0),)] for _ in range(chunks))
    step = max(-(-n // chunks), 1)
    return split(a, step, d)
