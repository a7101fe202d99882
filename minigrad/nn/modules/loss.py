"""Loss modules: each stores its options and calls the nn.functional loss of the same name."""
import warnings

from .. import functional as F
from ...ops.loss import mse_loss as _mse_loss
from .module import Module


def _reduction_from_legacy(size_average, reduce):
    """The reduction string the deprecated size_average / reduce flags stand for, announced with
    the deprecation warning. An unset flag counts as True; reduce=False means no reduction at
    all, whatever size_average says; otherwise size_average chooses between mean and sum."""
    if reduce is not None and not reduce:
        chosen = "none"
    elif size_average is None or size_average:
        chosen = "mean"
    else:
        chosen = "sum"
    # stacklevel 3: past this helper and _Loss.__init__, to the loss class being built
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{chosen}' instead.",
                  stacklevel=3)
    return chosen


class _Loss(Module):
    """Base of the loss modules: holds `reduction` ('none' | 'mean' | 'sum'), which the legacy
    flags override when either is given."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        legacy = not (size_average is None and reduce is None)
        self.reduction = _reduction_from_legacy(size_average, reduce) if legacy else reduction


class _WeightedLoss(_Loss):
    """A loss with an optional per-class rescaling `weight`, kept as a buffer so that it follows
    the module across .to() and into its state_dict."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error; the seed programs' criterion, so it calls the op directly."""

    def forward(self, input, target):
        return _mse_loss(input, target, self.reduction)  # F.mse_loss without its legacy arguments


class L1Loss(_Loss):
    """Mean (or sum) absolute error |input - target|."""

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below `beta`, absolute error (shifted by beta/2) above it."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error below `delta`, delta-scaled absolute error above it."""

    def __init__(self, reduction="mean", delta=1.0):
        # checked before Module.__init__, as torch's: a bad delta builds nothing
        if not isinstance(delta, (int, float)):
            raise TypeError(f"delta must be a float or int, got: {type(delta)}")
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class CrossEntropyLoss(_WeightedLoss):
    """log_softmax over the class dimension followed by the negative log-likelihood of the target
    (class indices or probabilities), with optional class weights and label smoothing."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of target class indices given log-probabilities."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities in [0, 1] (log clamped at -100)."""

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy computed from logits in a numerically stable form; `pos_weight`
    rescales the positive term per class. Both weights are buffers."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


# ---- more losses (minigrad/ops/loss_more.py) ------------------------------------------------------

class KLDivLoss(_Loss):
    """Kullback-Leibler divergence with `input` given as log-probabilities (and `target` too when
    log_target)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class CosineEmbeddingLoss(_Loss):
    """1 - cos(x1, x2) for target 1, max(0, cos(x1, x2) - margin) for target -1."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class MarginRankingLoss(_Loss):
    """max(0, -y * (x1 - x2) + margin): x1 should rank above x2 when y is 1."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """x for target 1, max(0, margin - x) for target -1."""

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """Two-class logistic loss log(1 + exp(-y * x))."""

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Per-class logistic loss averaged over the classes, for multi-hot targets."""

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-class multi-label hinge loss; target holds class indices ended by -1."""

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss (p = 1 or 2) against the target class' score."""

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        # one weight per class: anything but a vector is refused here rather than in forward
        weight_rank = None if weight is None else weight.dim()
        if weight_rank not in (None, 1):
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight_rank}D instead")
        self.p = p
        self.margin = margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """Negative log-likelihood of a Poisson target, from the rate or its log."""

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Negative log-likelihood of the target under a Gaussian with predicted mean and variance."""

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """max(d(a, p) - d(a, n) + margin, 0) with the p-norm distance."""

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """The triplet loss max(d(a, p) - d(a, n) + margin, 0) for a distance function d (by default
    nn.PairwiseDistance(), which then shows as a child module, as in torch)."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             "instead")
        # the default distance is a module, so it is registered as a child and shows in the repr
        from .distance import PairwiseDistance
        self.distance_function = PairwiseDistance() if distance_function is None else distance_function
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(anchor, positive, negative,
                                                   distance_function=self.distance_function, margin=self.margin,
                                                   swap=self.swap, reduction=self.reduction)


class CTCLoss(_Loss):
    """The connectionist temporal classification loss of F.ctc_loss."""
    __constants__ = ["blank", "reduction"]

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)


class LinearCrossEntropyLoss(_WeightedLoss):
    """A Linear layer to num_classes (times out_features) logits and the cross entropy of
    F.linear_cross_entropy in one module. The layer's parameters are stored flat, as torch's
    (`linear.weight` of shape (C * prod(out_features), in_features)), and reshaped in forward."""
    __constants__ = ["num_classes", "out_features", "reduction", "ignore_index", "label_smoothing"]

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None, dtype=None,
                 reduction="mean", weight=None, ignore_index=None, label_smoothing=0.0, options=None):
        super().__init__(weight, None, None, reduction)
        from .linear import Linear
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.options = options
        rows = num_classes
        for d in out_features:
            rows *= d
        self.linear = Linear(in_features, rows, bias=bias, device=device, dtype=dtype)

    def forward(self, input, target):
        lin = self.linear
        shape = (self.num_classes, *self.out_features)
        return F.linear_cross_entropy(input, lin.weight.reshape(*shape, lin.in_features), target,
                                      linear_bias=None if lin.bias is None else lin.bias.reshape(shape),
                                      weight=self.weight, reduction=self.reduction, ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")
