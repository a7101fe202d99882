"""LinearCrossEntropyOptions: the chunking settings of F.linear_cross_entropy, as torch.nn.

torch reads them to run a chunked kernel that never materializes the (N, C) logits. minigrad has
one implementation (the reference one: linear, then cross_entropy), so the options are validated
with torch's messages and kept, and the unsupported configurations warn as torch's do, but the
result is computed the same way with or without them.
"""
import dataclasses

from ... import dtypes as _dtypes

__all__ = ["LinearCrossEntropyOptions"]

_ACC_POLICIES = ("accurate", "balanced", "compact", "auto")


def _valid_chunking(method):
    if method is None or method in ("auto", "aspect_ratio"):
        return True
    if not isinstance(method, str):
        return False
    # "aspect_ratio:<k>" with k a positive integer written in decimal digits
    head, sep, k = method.partition(":")
    return head == "aspect_ratio" and sep == ":" and k.isdigit() and k.isascii() and int(k) > 0


@dataclasses.dataclass(frozen=True)
class LinearCrossEntropyOptions:
    """Configuration of the chunked linear_cross_entropy (torch's names, defaults and checks).

    allow_retain_graph: allow a second backward through the chunked op.
    batch_chunk_size: rows of the batch per chunk (a positive int), or None to derive it.
    chunking_method: None, "auto", "aspect_ratio" or "aspect_ratio:<k>" (k a positive int).
    acc_policy: "accurate" | "balanced" | "compact" | "auto": how gradients are accumulated.
    acc_dtype: the accumulation dtype (a floating dtype) or None to pick one.

    minigrad computes linear_cross_entropy in one piece whatever these say (see the module doc).
    """
    allow_retain_graph: bool = False
    batch_chunk_size: "int | None" = None
    chunking_method: "str | None" = "auto"
    acc_policy: str = "auto"
    acc_dtype: "object | None" = None

    def __post_init__(self):
        # torch's order of checks
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if not _valid_chunking(self.chunking_method):
            raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if size is not None and not (isinstance(size, int) and size > 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        allowed = (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64)
        if self.acc_dtype is not None and self.acc_dtype not in allowed:
            names = ", ".join(repr(d) for d in allowed)
            raise ValueError(f"acc_dtype must be one of {{None, {names}}}, got {self.acc_dtype!r}. "
                             "Pass acc_dtype=None to let the op pick automatically.")
