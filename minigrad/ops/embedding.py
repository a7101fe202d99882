"""embedding and one_hot, behind minigrad.nn.functional: a row gather of the weight (one node,
EmbeddingBackward0, whose gradient scatters the rows back with index_add) and a comparison of
the indices with the class numbers. Both run on every backend through the primitives."""
from ..autograd.function import _record, NO_CTX
from ..autograd.grad_mode import _grad_enabled, no_grad
from ..tensor import Tensor, _make
from .elementwise import Builtin, device_error, where
from .index import IndexAdd


def _tensor(x, fn, arg, pos):
    if not isinstance(x, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not {type_name(x)}")
    return x


def _range(be, idx):
    """(min, max) of a non-empty integer array, with one transfer to the host."""
    both = be.concatenate([be.reshape(be.amin(idx), (1,)), be.reshape(be.amax(idx), (1,))], 0)
    lo, hi = (int(v) for v in be.to_numpy(both))
    return lo, hi


class Embedding(Builtin):
    """weight[indices] for indices of any shape: (*indices.shape, embedding_dim). The gradient
    adds each row of g into the row its index names (repeated indices accumulate); the
    padding_idx row gets none, and scale_grad_by_freq divides by each index's count."""
    _node_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx, w, idx, padding_idx, scale_grad_by_freq):
        be = w._device.backend
        flat = be.reshape(idx._data, (-1,))
        rows = be.getitem(w._data, (flat,), ((0, w._data.shape[0] - 1),))
        out = be.reshape(rows, idx._data.shape + (w._data.shape[1],))
        if ctx.needs_input_grad[0]:
            ctx.flat, ctx.shape = flat, w._data.shape
            ctx.padding_idx, ctx.scale = padding_idx, scale_grad_by_freq
        return _make(out, w._device)

    @staticmethod
    def backward(ctx, g):
        be = g._device.backend
        flat, (n, d) = ctx.flat, ctx.shape
        g2 = g.reshape(-1, d)
        if ctx.padding_idx is not None:
            keep = _make(be.reshape(be.ne(flat, ctx.padding_idx), (-1, 1)), g._device)
            g2 = where(keep, g2, 0)
        if ctx.scale:
            ones = be.full(flat.shape, 1, "int64")
            counts = be.index_add((n,), (flat,), ones, "int64")
            freq = be.astype(be.reshape(be.getitem(counts, (flat,)), (-1, 1)), g._data.dtype)
            g2 = g2 / _make(freq, g._device)
        return IndexAdd.apply(g2, (n, d), (flat,)), None, None, None


def _renorm_(weight, idx, max_norm, norm_type):
    """torch's embedding_renorm_: rows named in idx whose norm exceeds max_norm are scaled, in
    place and outside autograd, by max_norm / (norm + 1e-7)."""
    with no_grad():
        flat = idx.reshape(-1)
        rows = weight[flat]
        if norm_type == float("inf"):
            norms = rows.abs().amax(1, keepdim=True)
        else:
            norms = (rows.abs() ** norm_type).sum(1, keepdim=True) ** (1.0 / norm_type)
        scale = where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).to(weight.dtype)
        weight[flat] = rows * scale


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """torch.nn.functional.embedding."""
    _tensor(input, "embedding", "indices", 2)
    _tensor(weight, "embedding", "weight", 1)
    if padding_idx is not None:
        n = weight._data.shape[0] if weight._data.ndim else 0
        if padding_idx > 0:
            if padding_idx >= n:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -n:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = n + padding_idx
    if sparse:
        raise NotImplementedError("embedding(): sparse=True needs sparse gradients, which minigrad does "
                                  "not have; use sparse=False")
    if weight._device is not input._device:
        raise device_error(weight, input)
    dt = input._data.dtype
    if dt.kind not in "iu" or dt.name not in ("int64", "int32"):
        name = "CPUBoolType" if dt.kind == "b" else f"torch.{input.dtype._legacy}"
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar "
                           f"types: Long, Int; but got {name} instead (while checking arguments for "
                           f"embedding)")
    if weight._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    be = weight._device.backend
    if input._data.size:
        lo, hi = _range(be, input._data)
        if lo < 0 or hi >= weight._data.shape[0]:
            raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_(weight, input, max_norm, norm_type)
    params = (input, padding_idx, bool(scale_grad_by_freq))
    if weight._requires_grad and _grad_enabled():
        return _record(Embedding, (weight,) + params, (True, False, False, False))
    return Embedding.forward(NO_CTX, weight, *params)


def one_hot(tensor, num_classes=-1):
    """torch.nn.functional.one_hot: int64, shape (*tensor.shape, num_classes)."""
    _tensor(tensor, "one_hot", "input", 1)
    if num_classes.__class__ is not int:
        import operator
        try:
            if isinstance(num_classes, bool) or isinstance(num_classes, float):
                raise TypeError
            num_classes = operator.index(num_classes)
        except TypeError:
            from .._arg_errors import type_name
            raise TypeError(f"one_hot(): argument 'num_classes' must be int, not {type_name(num_classes)}") \
                from None
    x = tensor._data
    if x.dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    be = tensor._device.backend
    if not x.size:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        if num_classes < 0:  # torch: an empty input with a negative count is refused as too small
            raise RuntimeError("Class values must be smaller than num_classes.")
    else:
        lo, hi = _range(be, x)
        if lo < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = hi + 1
        elif hi >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    classes = be.arange(0, num_classes, 1, "int64")
    hot = be.eq(be.reshape(x, x.shape + (1,)), classes)
    return _make(be.astype(hot, "int64"), tensor._device)
