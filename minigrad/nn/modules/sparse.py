"""nn.Embedding and nn.EmbeddingBag: lookup tables of num_embeddings rows of embedding_dim values."""
from ...autograd.grad_mode import no_grad
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module


def _padding_index(padding_idx, num_embeddings, name):
    """padding_idx in [0, num_embeddings) (a negative one counted from the end), or torch's
    AssertionError (Embedding's says "Padding_idx", EmbeddingBag's "padding_idx")."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError(f"{name} must be within num_embeddings")
    return padding_idx + num_embeddings if padding_idx < 0 else padding_idx


def _no_sparse():
    return NotImplementedError("Embedding(sparse=True) needs sparse gradients, which minigrad does not "
                               "have; use sparse=False")


def _install_table(module, given, device, dtype, trainable):
    """Set module.weight: the given tensor (whose memory the Parameter shares) after checking its
    shape, or a fresh (num_embeddings, embedding_dim) table drawn by reset_parameters."""
    rows, cols = module.num_embeddings, module.embedding_dim
    if given is not None:
        if list(given.shape) != [rows, cols]:
            raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
        module.weight = Parameter(given, requires_grad=trainable)
        return
    from ...creation import empty
    module.weight = Parameter(empty((rows, cols), device=device, dtype=dtype), requires_grad=trainable)
    module.reset_parameters()


def _describe(sizes, options):
    """`rows, cols` then `, name=text` for each (name, text) option given."""
    return ", ".join([sizes, *(f"{name}={text}" for name, text in options)])


def _check_pretrained(embeddings):
    if embeddings.dim() != 2:
        raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
    return embeddings.shape


class Embedding(Module):
    """weight[input] for integer indices of any shape; weight starts as N(0, 1) with the
    padding_idx row zeroed, and that row never gets a gradient."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None,
                 dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _padding_index(padding_idx, num_embeddings, "Padding_idx")
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if sparse:
            raise _no_sparse()
        _install_table(self, _weight, device, dtype, not _freeze)
        self.sparse = sparse

    def reset_parameters(self):
        # standard normal rows; the padding row is zero so that it contributes nothing
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is None:
            return
        with no_grad():
            self.weight[self.padding_idx].zero_()

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        # (name, value, differs from the default): only the differing ones are shown, in torch's order
        options = [("padding_idx", self.padding_idx, self.padding_idx is not None),
                   ("max_norm", self.max_norm, self.max_norm is not None),
                   ("norm_type", self.norm_type, self.norm_type != 2),
                   ("scale_grad_by_freq", self.scale_grad_by_freq, self.scale_grad_by_freq is not False),
                   ("sparse", True, self.sparse is not False)]
        shown = [(name, value) for name, value, differs in options if differs]
        return _describe(f"{self.num_embeddings}, {self.embedding_dim}", shown)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        """An Embedding whose weight is `embeddings` (its memory, shared), frozen by default; the
        padding row is kept as given."""
        rows, cols = _check_pretrained(embeddings)
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class EmbeddingBag(Module):
    """The sums, means or maxima of bags of embedding rows (F.embedding_bag); weight starts as
    N(0, 1) with the padding_idx row zeroed."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _padding_index(padding_idx, num_embeddings, "padding_idx")
        if sparse:
            raise _no_sparse()
        _install_table(self, _weight, device, dtype, True)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    reset_parameters = Embedding.reset_parameters
    _fill_padding_idx_with_zero = Embedding._fill_padding_idx_with_zero

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset,
                               self.padding_idx)

    def extra_repr(self):
        # values shown with repr(); mode always, the other options only when not the default
        options = [("max_norm", self.max_norm, self.max_norm is not None),
                   ("norm_type", self.norm_type, self.norm_type != 2),
                   ("scale_grad_by_freq", self.scale_grad_by_freq, self.scale_grad_by_freq is not False),
                   ("mode", self.mode, True),
                   ("padding_idx", self.padding_idx, self.padding_idx is not None)]
        shown = [(name, repr(value)) for name, value, differs in options if differs]
        return _describe(f"{self.num_embeddings}, {self.embedding_dim}", shown)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        """An EmbeddingBag over `embeddings` (memory shared), frozen by default."""
        rows, cols = _check_pretrained(embeddings)
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse, embeddings,
                  include_last_offset, padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
