"""Attention, composed from recorded Tensor ops: scaled_dot_product_attention and
multi_head_attention_forward (with torch's private helpers _canonical_mask, _none_or_dtype and
_mha_shape_check, which the nn modules call as torch's do).

Both follow torch's reference paths op for op (aten's _scaled_dot_product_attention_math and
torch.nn.functional.multi_head_attention_forward): q and k each scaled by sqrt(scale) before the
matmul, a boolean mask turned into 0 / -inf, a "safe" softmax in SDPA (a row with every score -inf
gives zeros, not NaN) and a plain softmax in the need_weights path of MHA. Gradients come from the
ops they are made of (matmul, softmax, masked_fill, linear...), and everything runs on the
backends' existing primitives: no kernel of its own.
"""
import math
import warnings
from numbers import Number

from .._arg_errors import type_name
from ..dtypes import bool_, cpp_name, float32
from ..tensor import Tensor, _make
from .join import cat
from .nn_ops import linear
from .padding import pad

_NEG_INF = float("-inf")


# ---- helpers ---------------------------------------------------------------------------------------

def _dropout(x, p, error=RuntimeError):
    """torch.dropout(x, p, train=True): zero with probability p, scale the rest by 1 / (1 - p).
    aten's check prints p as C++ does (RuntimeError, '2'), F.dropout's as Python (ValueError, '2.0')."""
    if not 0.0 <= p <= 1.0:
        shown = f"{p:g}" if error is RuntimeError else f"{p}"
        raise error(f"dropout probability has to be between 0 and 1, but got {shown}")
    if p == 0.0 or x.numel() == 0:
        return x
    be = x._device.backend
    d = x._data
    if p == 1.0:
        noise = be.zeros((), d.dtype)
    else:
        noise = be.div(be.astype(be.lt(be.rand(d.shape, d.dtype), 1.0 - p), d.dtype), 1.0 - p)
    return x * _make(noise, x._device)


def _zeros(shape, like, dtype=None):
    be = like._device.backend
    return _make(be.zeros(tuple(shape), like._data.dtype if dtype is None else dtype.np), like._device)


def _broadcast_shape(a, b):
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and x != 1 and y != 1:
            return None
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


def _repeat_heads(t, n):
    """t.repeat_interleave(n, dim=-3), as a view and a reshape."""
    if n == 1:
        return t
    shape = tuple(t.shape)
    wide = t.unsqueeze(-3).expand(*shape[:-3], shape[-3], n, shape[-2], shape[-1])
    return wide.reshape(*shape[:-3], shape[-3] * n, shape[-2], shape[-1])


# ---- scaled_dot_product_attention ------------------------------------------------------------------

def _sdpa_checks(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    fn = "scaled_dot_product_attention"
    for pos, (name, t) in enumerate((("query", query), ("key", key), ("value", value)), 1):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not {type_name(t)}")
    if attn_mask is not None and not isinstance(attn_mask, Tensor):
        raise TypeError(f"{fn}(): argument 'attn_mask' must be Tensor, not {type_name(attn_mask)}")
    if not isinstance(dropout_p, Number) or isinstance(dropout_p, (bool, complex)):
        raise TypeError(f"{fn}(): argument 'dropout_p' must be float, not {type_name(dropout_p)}")
    for name, flag in (("is_causal", is_causal), ("enable_gqa", enable_gqa)):
        if flag.__class__ is not bool:
            raise TypeError(f"{fn}(): argument '{name}' must be bool, not {type_name(flag)}")
    if scale is not None and not (isinstance(scale, Number) and not isinstance(scale, (bool, complex))) and not (
            isinstance(scale, Tensor) and scale.dim() == 0):
        raise TypeError(f"{fn}(): argument 'scale' must be float, not {type_name(scale)}")
    # aten's validate_sdpa_input
    if not (query.dtype == key.dtype and query.dtype == value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{cpp_name(query.dtype)} key.dtype: {cpp_name(key.dtype)} and value.dtype: "
                           f"{cpp_name(value.dtype)} instead.")
    if not (query.device == key.device and query.device == value.device):
        raise RuntimeError(f"Expected query, key, and value to have the same device type, but got query.device: "
                           f"{query.device} key.device: {key.device} and value.device: {value.device} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None and attn_mask.dtype not in (bool_, float32, query.dtype):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {cpp_name(attn_mask.dtype)} and  query.dtype: "
                           f"{cpp_name(query.dtype)} instead.")
    if attn_mask is not None and attn_mask.device != query.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{query.device} and {attn_mask.device}!")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if not query.is_floating_point():
        raise RuntimeError(f"expected scalar type Float but found {query.dtype._legacy[:-6]}")


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *,
                                 scale=None, enable_gqa=False):
    """softmax(q k^T * scale + bias) v over the last two dims (batch dims broadcast): a boolean
    attn_mask keeps the True positions, a float one is added; is_causal masks the upper triangle
    (top-left aligned); scale defaults to 1 / sqrt(E); dropout_p is always applied."""
    _sdpa_checks(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    L, S, E = query.shape[-2], key.shape[-2], query.shape[-1]
    if scale is None:
        scale = 1.0 / math.sqrt(E) if E else math.inf
    scale = float(scale)
    factor = math.sqrt(abs(scale))
    if enable_gqa:
        hq, hk, hv = query.size(-3), key.size(-3), value.size(-3)  # torch's IndexError below 3 dims
        if hk == 0 or hv == 0 or hq % hk or hq % hv:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
        key, value = _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hv)
    q = query * (-factor if scale < 0 else factor)
    scores = q.matmul(key.transpose(-2, -1) * factor)
    if is_causal:
        keep = _make(query._device.backend.ones((L, S), bool_.np), query._device).tril()
        attn_mask = keep
    if attn_mask is not None:
        if attn_mask.dtype == bool_:
            attn_mask = _zeros(attn_mask.shape, query).masked_fill(attn_mask.logical_not(), _NEG_INF)
        full = _broadcast_shape(tuple(scores.shape), tuple(attn_mask.shape))
        if full is not None and full != tuple(scores.shape):
            # aten adds the mask in place: it may not grow the scores
            raise RuntimeError(f"output with shape {list(scores.shape)} doesn't match the broadcast shape "
                               f"{list(full)}")
        scores = scores + attn_mask
    # aten's _safe_softmax: a row whose scores are all -inf attends to nothing (zeros, zero gradient)
    dead = scores.detach().eq(_NEG_INF).all(-1, keepdim=True)
    attn = scores.masked_fill(dead, 0.0).softmax(-1).masked_fill(dead, 0.0)
    if dropout_p > 0.0:
        attn = _dropout(attn, float(dropout_p))
    return attn.matmul(value)


# ---- multi_head_attention_forward ------------------------------------------------------------------

def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A boolean mask becomes a float mask of target_type: -inf where True, 0 elsewhere."""
    if mask is not None:
        is_float = mask.is_floating_point()
        if mask.dtype != bool_ and not is_float:
            raise AssertionError(f"only bool and floating types of {mask_name} are supported")
        if check_other and other_type is not None and mask.dtype != other_type:
            warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type "
                          "for both instead.", stacklevel=2)
        if not is_float:
            mask = _zeros(mask.shape, mask, target_type).masked_fill(mask, _NEG_INF)
    return mask


def _size(t):
    return "minigrad.Size(" + str(list(t.shape)) + ")"


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the inputs are batched (3-d query) or not (2-d), with torch's AssertionErrors."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                                 f"but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                         f"{_size(attn_mask)}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                         "tensor")


def _in_projection_packed(q, k, v, w, b=None):
    E = q.shape[-1]
    if k is v:
        if q is k:  # self-attention: one projection
            return linear(q, w, b).chunk(3, -1)
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        return (linear(q, w_q, b_q),) + tuple(linear(k, w_kv, b_kv).chunk(2, -1))
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    Eq, Ek, Ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for what, w, want in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)), ("value", w_v, (Eq, Ev))):
        if tuple(w.shape) != want:
            raise AssertionError(f"expecting {what} weights shape of {want}, but got {_size(w)}")
    for what, bb in (("query", b_q), ("key", b_k), ("value", b_v)):
        if bb is not None and tuple(bb.shape) != (Eq,):
            raise AssertionError(f"expecting {what} bias shape of {(Eq,)}, but got {_size(bb)}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """torch.nn.functional.multi_head_attention_forward: inputs (L, N, E) or unbatched (L, E);
    returns (attn_output, attn_output_weights or None)."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask),
                                       "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # SDPA's own causal mask replaces it
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims minigrad.Size({list(key.shape[:2])}) do not match "
                                 f"value's minigrad.Size({list(value.shape[:2])})")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {_size(key)} does not match value shape {_size(value)}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {_size(attn_mask)}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {_size(attn_mask)}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # heads into the batch dim, batch first: (N * H, L, head_dim)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    for name, static in (("k", static_k), ("v", static_v)):
        if static is not None:
            if static.shape[0] != bsz * num_heads:
                raise AssertionError(f"expecting static_{name}.size(0) of {bsz * num_heads}, but got "
                                     f"{static.shape[0]}")
            if static.shape[2] != head_dim:
                raise AssertionError(f"expecting static_{name}.size(2) of {head_dim}, but got {static.shape[2]}")
    k = static_k if static_k is not None else k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = static_v if static_v is not None else v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)

    if add_zero_attn:
        k = cat([k, _zeros((bsz * num_heads, 1, head_dim), k)], dim=1)
        v = cat([v, _zeros((bsz * num_heads, 1, head_dim), v)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        weights = q_scaled.bmm(k.transpose(-2, -1))
        if attn_mask is not None:  # torch.baddbmm(attn_mask, q_scaled, k^T)
            weights = attn_mask + weights
        weights = weights.softmax(-1)
        if dropout_p > 0.0:
            weights = _dropout(weights, float(dropout_p), ValueError)
        out = weights.bmm(v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.shape[1])
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.shape[1])
    if not is_batched:
        out = out.squeeze(1)
    return out, None
