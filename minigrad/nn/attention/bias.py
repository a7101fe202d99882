"""minigrad.nn.attention.bias: causal masks for scaled_dot_product_attention as objects that
know their sizes (torch.nn.attention.bias).

causal_upper_left(L, S) keeps key j for query i when j <= i (is_causal=True's mask);
causal_lower_right(L, S) aligns the diagonal with the last key instead, j <= i + S - L, as when
the queries are the last L positions of a sequence of S. Pass one as attn_mask: attention
materializes it as a boolean mask on the query's device.
"""
import enum
import warnings

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(enum.IntEnum):
    UPPER_LEFT = 1
    LOWER_RIGHT = 2


class CausalBias:
    """A causal attention mask of seq_len_q queries by seq_len_kv keys (see the module doc)."""

    def __init__(self, variant, seq_len_q, seq_len_kv):
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if variant == CausalVariant.LOWER_RIGHT and seq_len_q > seq_len_kv:
            warnings.warn("Lower right causal bias will produce NaNs in the output when seq_len_q > seq_len_kv!",
                          stacklevel=4)  # the caller of causal_lower_right

    def _materialize(self, device=None):
        """The boolean (seq_len_q, seq_len_kv) mask, True where a query may attend."""
        from ... import creation
        ones = creation.ones((self.seq_len_q, self.seq_len_kv), dtype=_bool(), device=device)
        shift = self.seq_len_kv - self.seq_len_q if self.variant == CausalVariant.LOWER_RIGHT else 0
        return ones.tril(shift)

    @property
    def shape(self):
        from ...tensor import Size
        return Size((self.seq_len_q, self.seq_len_kv))

    def __repr__(self):
        return repr(self._materialize())

    __str__ = __repr__


def _bool():
    from ...dtypes import bool_
    return bool_


def _make(name, variant, size):
    if len(size) != 2:
        raise AssertionError(f"{name} only supports 2D tensors")
    return CausalBias(variant, size[0], size[1])


def causal_upper_left(*size):
    """The mask of is_causal=True for (seq_len_q, seq_len_kv): query i sees keys 0..i."""
    return _make("causal_upper_left", CausalVariant.UPPER_LEFT, size)


def causal_lower_right(*size):
    """The causal mask aligned to the bottom-right corner: query i sees keys 0..i + kv - q."""
    return _make("causal_lower_right", CausalVariant.LOWER_RIGHT, size)
