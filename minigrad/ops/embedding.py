"""embedding and one_hot, behind minigrad.nn.functional: a row gather of the weight (one node,
EmbeddingBackward0, whose gradient scatters the rows back with index_add) and a comparison of
the indices with the class numbers. Both run on every backend through the primitives."""
from ..autograd.function import _record, NO_CTX, Function
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


def one_hot(input, num_classes=-1):
    """torch.nn.functional.one_hot: int64, shape (*input.shape, num_classes)."""
    _tensor(input, "one_hot", "input", 1)
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
    x = input._data
    if x.dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    be = input._device.backend
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
    return _make(be.astype(hot, "int64"), input._device)


# ---- embedding_bag -----------------------------------------------------------------------------------

class _EmbeddingBag(Function):
    """The sums, means or maxima of bags of embedding rows: one node, EmbeddingBagBackward0. The
    gradient adds g (scaled by the sample weight, or by 1 / the bag's count for mean) into each
    bagged row's weight row, or for max into the row that gave each maximum."""
    _node_name = "EmbeddingBagBackward0"

    @staticmethod
    def forward(ctx, weight, psw, idx, seg, bags, lengths, mode, padding_idx, scale_grad_by_freq):
        from ..creation import zeros, full
        n, d = weight.shape
        keep = idx != padding_idx if padding_idx is not None else None
        rows = weight[idx]
        if psw is not None:
            rows = rows * psw.unsqueeze(1)
        if keep is not None:
            rows = where(keep.unsqueeze(1), rows, 0)
        ctx.saved = (weight, psw, idx, seg, keep)
        ctx.mode, ctx.scale, ctx.n = mode, scale_grad_by_freq, n
        if mode == "max":
            longest = max(lengths) if lengths else 0
            if not longest or not idx.numel():
                ctx.argmax = None
                return zeros(bags, d, dtype=weight.dtype, device=weight.device)
            starts = _starts(lengths, idx.device)
            pos = creation_arange(idx.numel(), idx.device) - starts[seg]
            padded = full((bags, longest, d), float("-inf"), dtype=weight.dtype, device=weight.device)
            if keep is not None:
                rows = where(keep.unsqueeze(1), rows, float("-inf"))
            padded[seg, pos] = rows
            vals, arg = padded.max(1)
            empty = vals == float("-inf")
            ctx.argmax = where(empty, -1, idx[(starts.unsqueeze(1) + arg).clamp(max=idx.numel() - 1)])
            return where(empty, 0, vals)
        out = zeros(bags, d, dtype=weight.dtype, device=weight.device).index_add(0, seg, rows)
        if mode == "mean":
            ones = keep.to(weight.dtype) if keep is not None else idx.new_ones(idx.shape).to(weight.dtype)
            counts = zeros(bags, dtype=weight.dtype, device=weight.device).index_add(0, seg, ones)
            ctx.counts = counts
            out = out / counts.clamp(min=1).unsqueeze(1)
        return out

    @staticmethod
    def backward(ctx, g):
        from ..creation import zeros
        weight, psw, idx, seg, keep = ctx.saved
        n, d = weight.shape
        gw = gpsw = None
        if ctx.mode == "max":
            if ctx.argmax is not None and ctx.needs_input_grad[0]:
                hit = ctx.argmax >= 0
                cols = creation_arange(d, g.device).unsqueeze(0).expand(tuple(ctx.argmax.shape))
                flat = (ctx.argmax.clamp(min=0) * d + cols).reshape(-1)
                gw = zeros(n * d, dtype=g.dtype, device=g.device).index_add(
                    0, flat, where(hit, g, 0).reshape(-1)).reshape(n, d)
            elif ctx.needs_input_grad[0]:
                gw = zeros(n, d, dtype=g.dtype, device=g.device)
            return gw, None, None, None, None, None, None, None, None
        per_row = g[seg]
        if ctx.mode == "mean":
            per_row = per_row / ctx.counts.clamp(min=1)[seg].unsqueeze(1)
        if keep is not None:
            per_row = where(keep.unsqueeze(1), per_row, 0)
        if ctx.needs_input_grad[1]:
            gpsw = (per_row * weight[idx]).sum(1)
        if ctx.needs_input_grad[0]:
            scaled = per_row * psw.unsqueeze(1) if psw is not None else per_row
            if ctx.scale:
                freq = zeros(n, dtype=g.dtype, device=g.device).index_add(0, idx, idx.new_ones(idx.shape).to(g.dtype))
                scaled = scaled / freq[idx].unsqueeze(1)
            gw = zeros(n, d, dtype=g.dtype, device=g.device).index_add(0, idx, scaled)
        return gw, gpsw, None, None, None, None, None, None, None


def creation_arange(n, device):
    from ..creation import arange
    return arange(n, device=device)


def _starts(lengths, device):
    from ..creation import tensor
    starts, s = [], 0
    for k in lengths:
        starts.append(s)
        s += k
    return tensor(starts, device=device)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """torch.nn.functional.embedding_bag: the sum, mean or max of the embedding rows of each bag,
    the bags given by a 2-d input (one per row) or a 1-d input cut at `offsets`."""
    import warnings
    _tensor(input, "embedding_bag", "input", 1)
    _tensor(weight, "embedding_bag", "weight", 2)
    if weight.dtype.name == "int64" and input.dtype.is_floating_point:
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type "
                             f"{_class_name(offsets)}")
        lengths = [input.shape[1]] * input.shape[0]
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        offs = None
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        offs = offsets
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if sparse:
        raise NotImplementedError("embedding_bag(): sparse=True needs sparse gradients, which minigrad does not "
                                  "have; use sparse=False")
    if max_norm is not None:
        _renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  "on GitHub.")
    for t, what in ((input, "indices"), (offs, "offsets")):
        if t is not None and t.dtype.name not in ("int64", "int32"):
            raise RuntimeError(f"Expected tensor for argument #1 '{what}' to have one of the following scalar "
                               f"types: Long, Int; but got minigrad.{t.dtype._legacy} instead (while checking "
                               "arguments for embedding_bag)")
    if weight._device is not input._device:
        raise device_error(weight, input)
    total = input.numel()
    if offs is not None:
        cuts = offs.tolist()
        if cuts and cuts[0] != 0:
            raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                               f"from position 0. However, got {cuts[0]}\n[ minigrad.LongTensor{{}} ]")
        if cuts and cuts[-1] > total:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {total} but got offsets[-1] of "
                               f"{cuts[-1]}")
        if any(b < a for a, b in zip(cuts, cuts[1:])):
            raise RuntimeError("offsets must be non-decreasing")
        # with include_last_offset torch's last bag still runs to the end of the input
        ends = cuts[1:-1] + [total] if include_last_offset else cuts[1:] + [total]
        lengths = [b - a for a, b in zip(cuts, ends)]
    n = weight.shape[0]
    if total:
        lo, hi = _range(weight._device.backend, input._data)
        if lo < 0 or hi >= n:
            pos, bad = next((k, v) for k, v in enumerate(input.tolist()) if not 0 <= v < n)
            if weight.dtype.name == "float32" and mode != "max":   # the message of torch's fast CPU path
                raise RuntimeError(f"Index {pos} of input takes value {bad} which is not in the valid range "
                                   f"[0, {n})")
            raise RuntimeError(f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {bad}")
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise AssertionError("padding_idx must be within the number of embeddings")
        padding_idx %= n
    from .tensor_extras import repeat_interleave
    bags = len(lengths)
    seg = repeat_interleave(creation_arange(bags, input.device), _lengths_tensor(lengths, input.device), 0) \
        if bags else input.new_zeros((0,))
    return _EmbeddingBag.apply(weight, per_sample_weights, input.to(int64_dtype()), seg, bags, lengths, mode,
                               padding_idx, bool(scale_grad_by_freq))


def _class_name(obj):
    return "<class 'minigrad.Tensor'>" if isinstance(obj, Tensor) else str(type(obj))


def _lengths_tensor(lengths, device):
    from ..creation import tensor
    return tensor(lengths, device="cpu").to(device) if lengths else tensor([], device=device)


def int64_dtype():
    from ..dtypes import int64
    return int64
