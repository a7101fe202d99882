"""Attention as a composition of recorded Tensor ops: scaled_dot_product_attention and
multi_head_attention_forward, plus the small mask helpers the nn modules share with them
(_canonical_mask, _none_or_dtype, _mha_shape_check).

Nothing here has a kernel or a backward of its own: scores, masks, softmax and projections are
matmul / softmax / masked_fill / linear nodes, so autograd and every backend come for free.

Numerics worth knowing (they are what make results agree with torch's reference math path):
  * SDPA splits the scale between the operands, q * sqrt(s) and k * sqrt(s), before the matmul;
  * a boolean mask becomes an additive one (0 where kept, -inf where dropped);
  * SDPA's softmax is "safe": a query whose every score is -inf gets an all-zero row (and zero
    gradient) instead of NaN; the need_weights path of multi-head attention uses the plain one.
"""
import itertools
import math
import warnings
from numbers import Number

from .._arg_errors import type_name
from ..backends.cuda import _sdp_viable
from ..dtypes import bool_, cpp_name, float32
from ..tensor import Tensor, _make
from .join import cat
from .nn_ops import linear
from .padding import pad
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

_NEG_INF = float("-inf")


# ---- small building blocks -------------------------------------------------------------------------

def _dropout(x, p, error=RuntimeError):
    """Inverted dropout that is always on: keep each element with probability 1 - p, scaled by
    1 / (1 - p). The range error mimics the caller being imitated: aten's check (RuntimeError,
    p printed C++-style as '2') or F.dropout's (ValueError, p printed by Python as '2.0')."""
    if not 0.0 <= p <= 1.0:
        raise error(f"dropout probability has to be between 0 and 1, but got {p:g}" if error is RuntimeError
                    else f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0.0 or x.numel() == 0:
        return x
    backend, raw = x._device.backend, x._data
    if p == 1.0:
        scale = backend.zeros((), raw.dtype)
    else:
        survive = 1.0 - p
        kept = backend.astype(backend.lt(backend.rand(raw.shape, raw.dtype), survive), raw.dtype)
        scale = backend.div(kept, survive)
    return x * _make(scale, x._device)


def _zeros(shape, like, dtype=None):
    """A zero tensor on like's device, of like's dtype unless dtype says otherwise."""
    raw_dtype = like._data.dtype if dtype is None else dtype.np
    return _make(like._device.backend.zeros(tuple(shape), raw_dtype), like._device)


def _broadcast_shape(a, b):
    """The broadcast of shapes a and b, or None when they do not broadcast."""
    result = []
    for x, y in itertools.zip_longest(reversed(a), reversed(b), fillvalue=1):
        if 1 not in (x, y) and x != y:
            return None
        result.append(x if y == 1 else y)
    return tuple(reversed(result))


def _repeat_heads(t, n):
    """Grouped-query attention: each of t's heads (dim -3) repeated n times in place, as
    repeat_interleave would, built from an expanded view and one reshape."""
    if n == 1:
        return t
    *batch, heads, rows, cols = tuple(t.shape)
    wide = t.unsqueeze(-3).expand(*batch, heads, n, rows, cols)
    return wide.reshape(*batch, heads * n, rows, cols)


def _size(t):
    return "minigrad.Size(" + str(list(t.shape)) + ")"


# ---- scaled_dot_product_attention ------------------------------------------------------------------

def _is_real_number(x):
    return isinstance(x, Number) and not isinstance(x, (bool, complex))


def _check_sdpa_arguments(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """The Python-binding type errors first, then aten's validation of the tensors themselves."""
    fn = "scaled_dot_product_attention"
    for position, (name, t) in enumerate(zip(("query", "key", "value"), (query, key, value)), start=1):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not {type_name(t)}")
    if attn_mask is not None and not isinstance(attn_mask, Tensor):
        raise TypeError(f"{fn}(): argument 'attn_mask' must be Tensor, not {type_name(attn_mask)}")
    if not _is_real_number(dropout_p):
        raise TypeError(f"{fn}(): argument 'dropout_p' must be float, not {type_name(dropout_p)}")
    for name, flag in (("is_causal", is_causal), ("enable_gqa", enable_gqa)):
        if flag.__class__ is not bool:
            raise TypeError(f"{fn}(): argument '{name}' must be bool, not {type_name(flag)}")
    scale_ok = scale is None or _is_real_number(scale) or (isinstance(scale, Tensor) and scale.dim() == 0)
    if not scale_ok:
        raise TypeError(f"{fn}(): argument 'scale' must be float, not {type_name(scale)}")

    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{cpp_name(query.dtype)} key.dtype: {cpp_name(key.dtype)} and value.dtype: "
                           f"{cpp_name(value.dtype)} instead.")
    if not (query.device == key.device == value.device):
        raise RuntimeError(f"Expected query, key, and value to have the same device type, but got query.device: "
                           f"{query.device} key.device: {key.device} and value.device: {value.device} instead.")
    if min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None:
        if attn_mask.dtype not in (bool_, float32, query.dtype):
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                               f"attn_mask.dtype: {cpp_name(attn_mask.dtype)} and  query.dtype: "
                               f"{cpp_name(query.dtype)} instead.")
        if attn_mask.device != query.device:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{query.device} and {attn_mask.device}!")
        if is_causal:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
    if not query.is_floating_point():
        raise RuntimeError(f"expected scalar type Float but found {query.dtype._legacy[:-6]}")


def _additive_mask(mask, like):
    """A boolean keep-mask turned into 0 / -inf in like's dtype; a float mask as it is."""
    if mask.dtype != bool_:
        return mask
    return _zeros(mask.shape, like).masked_fill(mask.logical_not(), _NEG_INF)


def _safe_softmax(scores):
    """Softmax over the last dim, except that a row with no finite score (fully masked) comes
    out as zeros rather than NaN; the zeroing is constant, so those rows get no gradient."""
    hopeless = scores.detach().eq(_NEG_INF).all(-1, keepdim=True)
    return scores.masked_fill(hopeless, 0.0).softmax(-1).masked_fill(hopeless, 0.0)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *,
                                 scale=None, enable_gqa=False):
    """softmax(q k^T * scale + bias) v over the last two dims (batch dims broadcast): a boolean
    attn_mask keeps the True positions, a float one is added; is_causal masks the upper triangle
    (top-left aligned); scale defaults to 1 / sqrt(E); dropout_p is always applied."""
    if _AUTOCAST_ON[0] and (r := _autocast(
            "scaled_dot_product_attention", scaled_dot_product_attention, query, key, value, attn_mask, dropout_p,
            is_causal, scale=scale, enable_gqa=enable_gqa)) is not None:
        return r
    if attn_mask is not None and not isinstance(attn_mask, Tensor) and hasattr(attn_mask, "_materialize"):
        # an nn.attention.bias.CausalBias: the mask it stands for, on the query's device
        if is_causal is True:
            raise ValueError("CausalBias should not be used with causal=True")
        if isinstance(query, Tensor):
            attn_mask = attn_mask._materialize(query.device)
    _check_sdpa_arguments(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    if not _sdp_viable(query._device.type):  # nn.attention.sdpa_kernel / enable_*_sdp turned them all off
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due "
                           "to turning off both the math kernel and the fused kernels.")
    n_queries, n_keys, width = query.shape[-2], key.shape[-2], query.shape[-1]
    if scale is None:
        scale = 1.0 / math.sqrt(width) if width else math.inf
    scale = float(scale)

    if enable_gqa:
        # query.size(-3) and friends raise torch's IndexError for inputs with fewer than 3 dims
        q_heads, k_heads, v_heads = query.size(-3), key.size(-3), value.size(-3)
        if k_heads == 0 or v_heads == 0 or q_heads % k_heads or q_heads % v_heads:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
        key = _repeat_heads(key, q_heads // k_heads)
        value = _repeat_heads(value, q_heads // v_heads)

    # half of the scale on each side keeps q k^T's magnitude tame; the sign goes with q
    root = math.sqrt(abs(scale))
    scores = (query * (-root if scale < 0 else root)).matmul(key.transpose(-2, -1) * root)

    if is_causal:
        ones = query._device.backend.ones((n_queries, n_keys), bool_.np)
        attn_mask = _make(ones, query._device).tril()
    if attn_mask is not None:
        bias = _additive_mask(attn_mask, query)
        grown = _broadcast_shape(tuple(scores.shape), tuple(bias.shape))
        if grown is not None and grown != tuple(scores.shape):
            # aten adds the mask into the scores in place, so the mask may not enlarge them
            raise RuntimeError(f"output with shape {list(scores.shape)} doesn't match the broadcast shape "
                               f"{list(grown)}")
        scores = scores + bias

    weights = _safe_softmax(scores)
    if dropout_p > 0.0:
        weights = _dropout(weights, float(dropout_p))
    return weights.matmul(value)


# ---- helpers shared with nn.MultiheadAttention and the Transformer layers -------------------------

def _none_or_dtype(input):
    """The dtype of a mask, or None for no mask."""
    if isinstance(input, Tensor):
        return input.dtype
    if input is not None:
        raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")
    return None


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """Masks come in two flavours; everything downstream wants the additive float one. A boolean
    mask (True = do not attend) becomes -inf / 0 in target_type, a float mask passes through.
    Mixing a bool and a float mask across the two mask arguments is deprecated (a warning)."""
    if mask is None:
        return None
    floating = mask.is_floating_point()
    if not floating and mask.dtype != bool_:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type "
                      "for both instead.", stacklevel=2)
    if floating:
        return mask
    return _zeros(mask.shape, mask, target_type).masked_fill(mask, _NEG_INF)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """True for a batched (3-d) query, False for an unbatched (2-d) one; key, value and the masks
    must have the matching ranks (AssertionError otherwise, with torch's wording)."""
    rank = query.dim()
    if rank not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {rank}-D query "
                             "tensor")
    batched = rank == 3
    who = "For batched (3-D) `query`" if batched else "For unbatched (2-D) `query`"
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(f"{who}, expected `key` and `value` to be {rank}-D but found "
                             f"{key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != rank - 1:
        raise AssertionError(f"{who}, expected `key_padding_mask` to be `None` or {rank - 1}-D but "
                             f"found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"{who}, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        if not batched and attn_mask.dim() == 3:
            per_head = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != per_head:
                raise AssertionError(f"Expected `attn_mask` shape to be {per_head} but got {_size(attn_mask)}")
    return batched


# ---- multi_head_attention_forward, stage by stage ---------------------------------------------------

def _project_packed(query, key, value, weight, bias):
    """Q, K, V from the stacked (3E, E) in_proj weight. Inputs that are one and the same tensor
    share a GEMM: self-attention projects once and splits in three, and a shared key/value
    source projects once with the bottom two thirds of the weight."""
    width = query.shape[-1]
    if key is value and query is key:
        return linear(query, weight, bias).chunk(3, -1)
    if key is value:
        rows = [width, 2 * width]
        w_q, w_kv = weight.split(rows)
        b_q, b_kv = (None, None) if bias is None else bias.split(rows)
        return (linear(query, w_q, b_q),) + tuple(linear(key, w_kv, b_kv).chunk(2, -1))
    weights = weight.chunk(3)
    biases = (None, None, None) if bias is None else bias.chunk(3)
    return tuple(linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def _project_separate(query, key, value, weights, biases):
    """Q, K, V from three separate weights (kdim / vdim differing from embed_dim); each weight
    must be (E, that input's width), each bias (E,)."""
    width = query.shape[-1]
    roles = ("query", "key", "value")
    inputs = (query, key, value)
    for role, x, w in zip(roles, inputs, weights):
        want = (width, x.shape[-1])
        if tuple(w.shape) != want:
            raise AssertionError(f"expecting {role} weights shape of {want}, but got {_size(w)}")
    for role, b in zip(roles, biases):
        if b is not None and tuple(b.shape) != (width,):
            raise AssertionError(f"expecting {role} bias shape of {(width,)}, but got {_size(b)}")
    return tuple(linear(x, w, b) for x, w, b in zip(inputs, weights, biases))


def _project_inputs(query, key, value, packed_weight, packed_bias, separate, q_w, k_w, v_w):
    if not separate:
        if packed_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        return _project_packed(query, key, value, packed_weight, packed_bias)
    for letter, w in zip("qkv", (q_w, k_w, v_w)):
        if w is None:
            raise AssertionError(f"use_separate_proj_weight is True but {letter}_proj_weight is None")
    biases = (None, None, None) if packed_bias is None else packed_bias.chunk(3)
    return _project_separate(query, key, value, (q_w, k_w, v_w), biases)


def _attn_mask_as_3d(attn_mask, n_queries, n_keys, n_slices):
    """attn_mask as (1 or batch*heads, L, S), after checking its shape."""
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (n_queries, n_keys):
            raise RuntimeError(f"The shape of the 2D attn_mask is {_size(attn_mask)}, but should be "
                               f"{(n_queries, n_keys)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (n_slices, n_queries, n_keys):
            raise RuntimeError(f"The shape of the 3D attn_mask is {_size(attn_mask)}, but should be "
                               f"{(n_slices, n_queries, n_keys)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _pad_key_axis(mask):
    """One more (unmasked) key column, for a key appended to every sequence."""
    return None if mask is None else pad(mask, (0, 1))


def _per_head(t, slices, head_dim):
    """(S, N, E) -> (N * heads, S, head_dim): heads folded into the batch, batch leading."""
    return t.reshape(t.shape[0], slices, head_dim).transpose(0, 1)


def _check_static(name, static, slices, head_dim):
    if static.shape[0] != slices:
        raise AssertionError(f"expecting static_{name}.size(0) of {slices}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting static_{name}.size(2) of {head_dim}, but got {static.shape[2]}")


def _attend_returning_weights(q, k, v, mask, dropout_p, batch, heads, average):
    """Explicit scores -> softmax -> (dropout) -> weighted values, keeping the weights to return,
    as (batch, heads, L, S) or their mean over heads."""
    head_dim = q.shape[-1]
    scores = (q * math.sqrt(1.0 / head_dim)).bmm(k.transpose(-2, -1))
    if mask is not None:
        scores = mask + scores
    weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = _dropout(weights, float(dropout_p), ValueError)
    context = weights.bmm(v)
    weights = weights.view(batch, heads, weights.shape[1], weights.shape[2])
    return context.transpose(0, 1), (weights.mean(dim=1) if average else weights)


def _attend_fused(q, k, v, mask, dropout_p, is_causal, batch, heads):
    """The same attention through scaled_dot_product_attention, weights not kept; returns the
    context as (L, N, heads, head_dim)."""
    n_queries, head_dim = q.shape[1], q.shape[2]
    n_keys = k.shape[1]
    if mask is not None:
        # one mask for all (batch, head) pairs broadcasts; otherwise split the folded batch
        mask = mask.unsqueeze(0) if mask.dim() == 3 and mask.shape[0] == 1 else \
            mask.view(batch, heads, -1, n_keys)
    q = q.reshape(batch, heads, n_queries, head_dim)
    k = k.reshape(batch, heads, n_keys, head_dim)
    v = v.reshape(batch, heads, n_keys, head_dim)
    return scaled_dot_product_attention(q, k, v, mask, dropout_p, is_causal).permute(2, 0, 1, 3)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """torch.nn.functional.multi_head_attention_forward: inputs (L, N, E) or unbatched (L, E);
    returns (attn_output, attn_output_weights or None)."""
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:  # a batch of one, removed again at the end
        query, key, value = (t.unsqueeze(1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    n_queries, batch, width = query.shape
    n_keys = key.shape[0]

    # masks: both made additive; with only a causal hint and no weights asked for, SDPA builds
    # the causal mask itself, and a padding mask merged in makes the result no longer causal
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask),
                                       "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False

    if width != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {width}")
    head_dim, leftover = divmod(width, num_heads)
    if leftover:
        raise AssertionError(f"embed_dim {width} not divisible by num_heads {num_heads}")
    if not use_separate_proj_weight and tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {_size(key)} does not match value shape {_size(value)}")
    if use_separate_proj_weight and tuple(key.shape[:2]) != tuple(value.shape[:2]):
        raise AssertionError(f"key's sequence and batch dims minigrad.Size({list(key.shape[:2])}) do not match "
                             f"value's minigrad.Size({list(value.shape[:2])})")

    q, k, v = _project_inputs(query, key, value, in_proj_weight, in_proj_bias, use_separate_proj_weight,
                              q_proj_weight, k_proj_weight, v_proj_weight)
    slices = batch * num_heads
    if attn_mask is not None:
        attn_mask = _attn_mask_as_3d(attn_mask, n_queries, n_keys, slices)

    # learned bias_k / bias_v: one extra key and value appended to every sequence
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k is set but bias_v is None" if bias_v is None else
                             "bias_v is set but bias_k is None")
    if bias_k is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, batch, 1)])
        v = cat([v, bias_v.repeat(1, batch, 1)])
        attn_mask, key_padding_mask = _pad_key_axis(attn_mask), _pad_key_axis(key_padding_mask)

    q = _per_head(q, slices, head_dim)
    for name, static in (("k", static_k), ("v", static_v)):
        if static is not None:
            _check_static(name, static, slices, head_dim)
    k = _per_head(k, slices, head_dim) if static_k is None else static_k
    v = _per_head(v, slices, head_dim) if static_v is None else static_v

    if add_zero_attn:  # an all-zero key/value pair every query may attend to
        k = cat([k, _zeros((slices, 1, head_dim), k)], dim=1)
        v = cat([v, _zeros((slices, 1, head_dim), v)], dim=1)
        attn_mask, key_padding_mask = _pad_key_axis(attn_mask), _pad_key_axis(key_padding_mask)
    n_keys = k.shape[1]

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != batch:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {batch}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != n_keys:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {n_keys}, but got "
                                 f"{key_padding_mask.shape[1]}")
        # the same padding row for every head of a sample, then added to (or standing for) attn_mask
        padding = key_padding_mask.view(batch, 1, 1, n_keys).expand(-1, num_heads, -1, -1)
        padding = padding.reshape(slices, 1, n_keys)
        attn_mask = padding if attn_mask is None else attn_mask + padding

    p = dropout_p if training else 0.0
    if need_weights:
        context, weights = _attend_returning_weights(q, k, v, attn_mask, p, batch, num_heads,
                                                     average_attn_weights)
    else:
        context, weights = _attend_fused(q, k, v, attn_mask, p, is_causal, batch, num_heads), None

    out = linear(context.reshape(n_queries * batch, width), out_proj_weight, out_proj_bias)
    out = out.view(n_queries, batch, out.shape[1])
    if not batched:
        out = out.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return out, weights
