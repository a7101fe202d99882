"""nn.Flatten and nn.Dropout."""
from .. import functional as F
from .module import Module


class Flatten(Module):
    """Flattens dims start_dim..end_dim (by default all but the batch dim)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class _DropoutNd(Module):
    """What every dropout module holds: p (checked) and inplace."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeroes each element with probability p in training mode (scaling the rest by 1/(1-p));
    the identity in eval mode."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Unflatten(Module):
    """Expands dim `dim` of the input into the shape `unflattened_size` (a tuple, list or Size
    of ints, one of them -1 at most), as torch's Tensor.unflatten (a view, ViewBackward0)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, input):
        if isinstance(input, (tuple, list)):
            for idx, elem in enumerate(input):
                if not isinstance(elem, int):
                    raise TypeError("unflattened_size must be tuple of ints, "
                                    f"but found element of type {type(elem).__name__} at pos {idx}")
            return
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(input).__name__}")

    def forward(self, input):
        from ...tensor import _wrap_dim
        shape = tuple(input.shape)
        dim = _wrap_dim(self.dim, len(shape), "unflatten")
        sizes = list(self.unflattened_size)
        if not sizes:
            raise RuntimeError("unflatten: sizes must be non-empty")
        n = shape[dim] if shape else 1
        if sizes.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        known = 1
        for s in sizes:
            if s != -1:
                known *= s
        if -1 in sizes:
            if known == 0 or n % known:
                raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim "
                                   f"{dim} ({n}) in the input tensor")
            sizes[sizes.index(-1)] = n // known
        elif known != n:
            raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} "
                               f"({n}) in the input tensor")
        return input.view(shape[:dim] + tuple(sizes) + shape[dim + 1:])

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
