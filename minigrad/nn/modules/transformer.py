"""nn.Transformer and its parts: TransformerEncoder / TransformerDecoder (stacks of deep-copied
layers with an optional final norm) and TransformerEncoderLayer / TransformerDecoderLayer
(attention and feed-forward sub-blocks, each wrapped in a residual connection and LayerNorm).

Module names, parameters, state_dict keys, defaults, warnings and the is_causal detection follow
torch. torch also has inference fast paths (a fused encoder-layer kernel, nested tensors); they
produce the composed path's values with one exception, which is reproduced here: the
nested-tensor encoder returns zeros at the padded positions of src (see
TransformerEncoder._nested_tensor_padding)."""
import copy
import warnings

from ... import creation
from ...autograd.grad_mode import is_grad_enabled
from .. import functional as F
from ..init import xavier_uniform_
from .activation import GELU, ReLU
from .attention import MultiheadAttention
from .container import ModuleList
from .linear import Linear
from .misc import Dropout
from .module import Module
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]


# ---- helpers -----------------------------------------------------------------------------------------

def _causal_mask(size, device=None, dtype=None):
    """(size, size) additive mask: -inf strictly above the diagonal (the future), 0 elsewhere."""
    return creation.full((size, size), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)


def _sequence_length(x, batch_first):
    """Length of the sequence dim of an (L, E), (L, N, E) or batch-first (N, L, E) input."""
    shape = tuple(x.shape)
    if len(shape) == 2:
        return shape[0]
    return shape[1] if batch_first else shape[0]


def _replicate(layer, count):
    """count independent deep copies of layer (the template itself is not used)."""
    return ModuleList([copy.deepcopy(layer) for _ in range(count)])


def _activation_by_name(name):
    functions = {"relu": F.relu, "gelu": F.gelu}
    if name not in functions:
        raise RuntimeError(f"activation should be relu/gelu, not {name}")
    return functions[name]


def _fast_path_activation_code(activation):
    """What torch's fused encoder layer records about the activation: 1 relu, 2 gelu, 0 other."""
    if activation is F.relu or isinstance(activation, ReLU):
        return 1
    if activation is F.gelu or isinstance(activation, GELU):
        return 2
    return 0


def _mask_is_causal(mask, is_causal=None, size=None):
    """An explicit is_causal hint wins; without one, a mask counts as causal exactly when it equals
    the (size, size) causal mask in shape and every value."""
    if is_causal is not None or mask is None:
        return is_causal is True
    reference = _causal_mask(mask.shape[-2] if size is None else size, device=mask.device, dtype=mask.dtype)
    if tuple(mask.shape) != tuple(reference.shape):
        return False
    return bool((mask == reference).all())


def _residual(x, block, norm, norm_first):
    """One sub-layer with its skip connection: pre-LN x + block(norm(x)), or post-LN
    norm(x + block(x))."""
    if norm_first:
        return x + block(norm(x))
    return norm(x + block(x))


def _feed_forward(layer, x, out_dropout):
    """linear1 -> activation -> dropout -> linear2 -> out_dropout."""
    hidden = layer.dropout(layer.activation(layer.linear1(x)))
    return out_dropout(layer.linear2(hidden))


def _attention(attn, out_dropout, query, source, mask, padding_mask, is_causal):
    """attn's output (weights not computed), through out_dropout."""
    result, _ = attn(query, source, source, attn_mask=mask, key_padding_mask=padding_mask, need_weights=False,
                     is_causal=is_causal)
    return out_dropout(result)


def _canonical_src_masks(src, mask, mask_name, padding_mask):
    """Both masks as float additive masks of src's dtype (warning when their kinds are mixed)."""
    padding_mask = F._canonical_mask(padding_mask, "src_key_padding_mask", F._none_or_dtype(mask), mask_name,
                                     src.dtype)
    mask = F._canonical_mask(mask, mask_name, None, "", src.dtype, check_other=False)
    return mask, padding_mask


# why torch would not use nested tensors for a given encoder layer: the first failing condition
_NESTED_TENSOR_CONDITIONS = (
    (lambda el: isinstance(el, TransformerEncoderLayer), "{} was not TransformerEncoderLayer"),
    (lambda el: not el.norm_first, "{}.norm_first was True"),
    (lambda el: el.self_attn.batch_first,
     "{}.self_attn.batch_first was not True(use batch_first for better inference performance)"),
    (lambda el: el.self_attn._qkv_same_embed_dim, "{}.self_attn._qkv_same_embed_dim was not True"),
    (lambda el: el.self_attn.in_proj_bias is not None, "{}.self_attn was passed bias=False"),
    (lambda el: el.activation_relu_or_gelu, "{}.activation_relu_or_gelu was not True"),
    (lambda el: el.norm1.eps == el.norm2.eps, "{0}.norm1.eps was not equal to {0}.norm2.eps"),
    (lambda el: el.self_attn.num_heads % 2 != 1, "{}.self_attn.num_heads is odd"),
)


def _nested_tensor_blocker(encoder_layer):
    for holds, reason in _NESTED_TENSOR_CONDITIONS:
        if not holds(encoder_layer):
            return reason.format("encoder_layer")
    return ""


# ---- the full model ----------------------------------------------------------------------------------

class Transformer(Module):
    """Encoder-decoder Transformer ("Attention Is All You Need"): its parameters with more than one
    dim are re-initialized by xavier_uniform_, as torch's."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                      norm_first, bias)

        def final_norm():
            return LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype)

        if custom_encoder is None:
            template = TransformerEncoderLayer(*layer_args, device=device, dtype=dtype)
            self.encoder = TransformerEncoder(template, num_encoder_layers, final_norm())
        else:
            self.encoder = custom_encoder
        if custom_decoder is None:
            template = TransformerDecoderLayer(*layer_args, device=device, dtype=dtype)
            self.decoder = TransformerDecoder(template, num_decoder_layers, final_norm())
        else:
            self.decoder = custom_decoder
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batch_axis = 0 if self.batch_first else 1
        if src.shape[batch_axis] != tgt.shape[batch_axis] and src.dim() == 3:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if {src.shape[-1], tgt.shape[-1]} != {self.d_model}:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """A (sz, sz) float mask with -inf above the diagonal and 0 elsewhere."""
        return _causal_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self):
        # matrices only: biases and LayerNorm affine parameters keep their own init
        for param in self.parameters():
            if param.dim() > 1:
                xavier_uniform_(param)


# ---- stacks ------------------------------------------------------------------------------------------

class TransformerEncoder(Module):
    """A stack of num_layers deep copies of encoder_layer, then norm (if given)."""
    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = _replicate(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        blocker = _nested_tensor_blocker(encoder_layer)
        if enable_nested_tensor and blocker:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {blocker}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def _nested_tensor_padding(self, src, mask, src_key_padding_mask):
        """The padded positions (True) of src when torch would take its nested-tensor path, else
        None. That path computes only the real tokens and pads the result back with zeros."""
        head = self.layers[0]
        eligible = (getattr(self, "use_nested_tensor", False) and not head.training and src.dim() == 3
                    and src_key_padding_mask is not None and mask is None)
        if not eligible:
            return None
        real = src_key_padding_mask.logical_not()
        # mask_check: the padding must be at the end of each sequence (no real token after a pad)
        if getattr(self, "mask_check", True) and bool((real[:, 1:] & real[:, :-1].logical_not()).any()):
            return None
        attn = head.self_attn
        tensors = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias,
                   head.norm1.weight, head.norm1.bias, head.norm2.weight, head.norm2.bias,
                   head.linear1.weight, head.linear1.bias, head.linear2.weight, head.linear2.bias)
        if is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors):
            return None  # the fast path is inference-only
        return real.logical_not()

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        mask, src_key_padding_mask = _canonical_src_masks(src, mask, "mask", src_key_padding_mask)
        padded = self._nested_tensor_padding(src, mask, src_key_padding_mask)
        batch_first = self.layers[0].self_attn.batch_first
        is_causal = _mask_is_causal(mask, is_causal, _sequence_length(src, batch_first))
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if padded is not None:
            # real tokens already match (padded keys were masked out); padded ones become zeros
            where = padded if batch_first else padded.t()
            x = x.masked_fill(where.unsqueeze(-1), 0.0)
        return x if self.norm is None else self.norm(x)


class TransformerDecoder(Module):
    """A stack of num_layers deep copies of decoder_layer, then norm (if given)."""
    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _replicate(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        length = _sequence_length(tgt, self.layers[0].self_attn.batch_first)
        causal = _mask_is_causal(tgt_mask, tgt_is_causal, length)
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=causal,
                      memory_is_causal=memory_is_causal)
        return x if self.norm is None else self.norm(x)


# ---- layers ------------------------------------------------------------------------------------------

class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward block (linear1, activation, dropout, linear2), each with a
    residual connection and LayerNorm: after (norm_first=False, post-LN) or before (pre-LN)."""
    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        where = {"device": device, "dtype": dtype}
        # construction order = registration order = the order of the init draws
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **where)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **where)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **where)
        self.norm_first = norm_first
        self.norm1, self.norm2 = (LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **where) for _ in range(2))
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)
        fn = _activation_by_name(activation) if isinstance(activation, str) else activation
        self.activation_relu_or_gelu = _fast_path_activation_code(fn)
        self.activation = fn

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        src_mask, src_key_padding_mask = _canonical_src_masks(src, src_mask, "src_mask", src_key_padding_mask)
        x = _residual(src, lambda h: self._sa_block(h, src_mask, src_key_padding_mask, is_causal=is_causal),
                      self.norm1, self.norm_first)
        return _residual(x, self._ff_block, self.norm2, self.norm_first)

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        return _attention(self.self_attn, self.dropout1, x, x, attn_mask, key_padding_mask, is_causal)

    def _ff_block(self, x):
        return _feed_forward(self, x, self.dropout2)


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's memory and a feed-forward block, each with a
    residual connection and LayerNorm (after, or before when norm_first)."""
    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        where = {"device": device, "dtype": dtype}

        def attention():
            return MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias, **where)

        self.self_attn = attention()
        self.multihead_attn = attention()
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **where)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **where)
        self.norm_first = norm_first
        self.norm1, self.norm2, self.norm3 = (LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **where)
                                              for _ in range(3))
        self.dropout1, self.dropout2, self.dropout3 = (Dropout(dropout) for _ in range(3))
        self.activation = _activation_by_name(activation) if isinstance(activation, str) else activation

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = _residual(tgt, lambda h: self._sa_block(h, tgt_mask, tgt_key_padding_mask, tgt_is_causal),
                      self.norm1, self.norm_first)
        x = _residual(x, lambda h: self._mha_block(h, memory, memory_mask, memory_key_padding_mask,
                                                   memory_is_causal),
                      self.norm2, self.norm_first)
        return _residual(x, self._ff_block, self.norm3, self.norm_first)

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        return _attention(self.self_attn, self.dropout1, x, x, attn_mask, key_padding_mask, is_causal)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        return _attention(self.multihead_attn, self.dropout2, x, mem, attn_mask, key_padding_mask, is_causal)

    def _ff_block(self, x):
        return _feed_forward(self, x, self.dropout3)
