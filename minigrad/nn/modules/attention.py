"""nn.MultiheadAttention, and NonDynamicallyQuantizableLinear (the class of its out_proj).

The module owns the parameters (names, shapes, init and state_dict layout as torch's) and the
batch_first / mask bookkeeping; the attention itself is F.multi_head_attention_forward in
minigrad/ops/attention.py. torch also has a fused inference path (_native_multi_head_attention),
but it computes the same values as the composed one, so minigrad has only the latter."""
from ... import creation
from .. import functional as F
from ..init import constant_, xavier_normal_, xavier_uniform_
from ..parameter import Parameter
from .linear import Linear
from .module import Module


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under another name: torch uses it for MultiheadAttention.out_proj."""


def _seq_first(query, key, value):
    """Swap dims 0 and 1 of query, key and value, transposing each distinct tensor once: the
    projection shares its work between arguments that are the same object (self-attention),
    so that sameness has to survive the transpose."""
    done = {}

    def swap(t):
        if id(t) not in done:
            done[id(t)] = t.transpose(1, 0)
        return done[id(t)]

    return swap(query), swap(key), swap(value)


class MultiheadAttention(Module):
    """Multi-head attention: softmax(Q K^T / sqrt(head_dim) + mask) V per head, with the Q, K, V
    projections packed in in_proj_weight (3 * embed_dim, embed_dim), or q/k/v_proj_weight when
    kdim or vdim differ from embed_dim."""
    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if min(embed_dim, num_heads) <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()

        def fresh(*shape):  # uninitialized; _reset_parameters fills it
            return Parameter(creation.empty(shape, device=device, dtype=dtype))

        self.embed_dim = embed_dim
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = (self.kdim, self.vdim) == (embed_dim, embed_dim)
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        # either one stacked projection or three separate ones; the unused names stay registered
        # as None so that state_dict and attribute access look the same as torch's
        separate_names = ("q_proj_weight", "k_proj_weight", "v_proj_weight")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = fresh(3 * embed_dim, embed_dim)
            for name in separate_names:
                self.register_parameter(name, None)
        else:
            for name, in_width in zip(separate_names, (embed_dim, self.kdim, self.vdim)):
                setattr(self, name, fresh(embed_dim, in_width))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = fresh(3 * embed_dim)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k = fresh(1, 1, embed_dim)
            self.bias_v = fresh(1, 1, embed_dim)
        else:
            self.bias_k = None
            self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _input_projections(self):
        if self._qkv_same_embed_dim:
            return [self.in_proj_weight]
        return [self.q_proj_weight, self.k_proj_weight, self.v_proj_weight]

    def _reset_parameters(self):
        # draws, in order: the input projection(s) Xavier-uniform, then bias_k and bias_v
        # Xavier-normal; the projection biases start at zero (out_proj's weight keeps Linear's init)
        for weight in self._input_projections():
            xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            for b in (self.in_proj_bias, self.out_proj.bias):
                constant_(b, 0.0)
        for extra in (self.bias_k, self.bias_v):
            if extra is not None:
                xavier_normal_(extra)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        """(attn_output, attn_output_weights): weights averaged over heads unless
        average_attn_weights=False, None when need_weights=False."""
        swap_batch = self.batch_first and query.dim() == 3
        key_padding_mask = F._canonical_mask(key_padding_mask, "key_padding_mask", F._none_or_dtype(attn_mask),
                                             "attn_mask", query.dtype)
        attn_mask = F._canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if swap_batch:  # the functional form wants (L, N, E)
            query, key, value = _seq_first(query, key, value)
        separate = not self._qkv_same_embed_dim
        q_w, k_w, v_w = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight) if separate else (None,) * 3
        output, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=separate, q_proj_weight=q_w, k_proj_weight=k_w,
            v_proj_weight=v_w, average_attn_weights=average_attn_weights, is_causal=is_causal)
        return (output.transpose(1, 0) if swap_batch else output), weights

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """(merged_mask, mask_type) as torch's fast path takes them: 1 for a key padding mask alone,
        2 when an attn_mask (expanded to (N, num_heads, L, L)) is there; (None, None) without masks."""
        if attn_mask is None:
            return (None, None) if key_padding_mask is None else (key_padding_mask, 1)
        n, length, _ = query.shape
        if attn_mask.dim() == 3:
            merged = attn_mask.view(n, -1, length, length)
        else:
            merged = attn_mask.view(1, 1, length, length).expand(n, self.num_heads, -1, -1)
        if key_padding_mask is not None:
            padding = key_padding_mask.view(n, 1, 1, length).expand(-1, self.num_heads, -1, -1)
            merged = merged + padding
        return merged, 2
