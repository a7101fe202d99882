"""torch.nn's deprecated modules kept for old programs: NLLLoss2d (NLLLoss under its old name),
Container (a Module taking its children as keywords), CrossMapLRN2d (Lua Torch's cross-channel
response normalization, with that implementation's window)."""
import warnings

from .loss import NLLLoss
from .module import Module


class NLLLoss2d(NLLLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in replacement and see "
                      "https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.", FutureWarning,
                      stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class Container(Module):
    def __init__(self, **kwargs):
        super().__init__()
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. "
                      "Subclass that instead.", FutureWarning, stacklevel=2)
        for name, child in kwargs.items():
            self.add_module(name, child)


def _cross_map_scale(sq, size):
    """Lua Torch's running channel sums of the squares: channel 0 sums the first pre channels
    (pre = (size - 1) // 2 + 1); each next channel adds the square pre - 1 ahead and, once past
    channel pre, drops the one pre behind. Channel 0's square is never dropped: that
    implementation's window, kept as torch keeps it."""
    from ... import arange, minimum, cat
    C = sq.shape[1]
    pre = int((size - 1) / 2 + 1)
    cs = sq.cumsum(1)
    c = arange(C, device=sq.device)
    ahead = cs.index_select(1, minimum(c + pre - 1, arange(C, device=sq.device) * 0 + (C - 1)))
    past = c - pre  # channels 1..c-pre are dropped by channel c
    gone = (past >= 1).nonzero().flatten()
    if gone.numel() == 0:
        return ahead
    dropped = cs.index_select(1, past.index_select(0, gone)) - cs[:, :1]
    keep = ahead[:, :C - gone.numel()]
    return cat([keep, ahead[:, C - gone.numel():] - dropped], 1)


class CrossMapLRN2d(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        scale = _cross_map_scale(input * input, self.size) * (self.alpha / self.size) + self.k
        return scale.pow(-self.beta) * input

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
