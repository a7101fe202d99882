"""nn.AdaptiveLogSoftmaxWithLoss: the adaptive softmax of Grave et al., "Efficient softmax
approximation for GPUs" (2017).

The classes are split by `cutoffs` into a frequent shortlist and rarer clusters. A `head` Linear
scores the shortlist classes plus one "go to cluster c" entry per cluster; cluster c has its own
small `tail[c]` network, a projection to in_features // div_value**(c+1) features followed by a
Linear to the cluster's classes. log p(class) is then

    shortlist class y:     log_softmax(head(x))[y]
    class y in cluster c:  log_softmax(head(x))[shortlist + c] + log_softmax(tail[c](x))[y - low_c]

and only the rows whose target falls in a cluster pay for that cluster's tail. The module tree
(head, tail[c][0], tail[c][1]) has torch's names, so state dicts load either way."""
from collections import namedtuple

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

# forward()'s result: per-row target log-probabilities and their negated mean (torch's type name)
_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


def _valid_cutoffs(cutoffs, n_classes):
    """Whether cutoffs are distinct integers, increasing, within [1, n_classes - 1]."""
    for value in cutoffs:
        if int(value) != value or not 0 < value < n_classes:
            return False
    return all(a < b for a, b in zip(cutoffs, cutoffs[1:]))


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax over n_classes with the given cluster boundaries; forward(input, target)
    returns (output, loss), log_prob(input) every class's log-probability, predict(input) the
    most likely class."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None,
                 dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if not cutoffs:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if not _valid_cutoffs(cutoffs, n_classes):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        made_on = dict(device=device, dtype=dtype)
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]  # the last boundary closes the last cluster
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = cutoffs[0]
        self.n_clusters = len(cutoffs)
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **made_on)
        self.tail = ModuleList()
        for c, (low, high) in enumerate(self._cluster_bounds()):
            # rarer clusters get narrower projections
            width = int(in_features // (div_value ** (c + 1)))
            self.tail.append(Sequential(Linear(in_features, width, bias=False, **made_on),
                                        Linear(width, high - low, bias=False, **made_on)))

    def _cluster_bounds(self):
        """(first class, one past the last class) of each cluster, in order."""
        return list(zip(self.cutoffs[:-1], self.cutoffs[1:]))

    def reset_parameters(self):
        self.head.reset_parameters()
        for projection, classifier in self.tail:
            projection.reset_parameters()
            classifier.reset_parameters()

    @staticmethod
    def _check_shapes(input_, target_):
        """torch's checks on (input, target): a batch of rows with a 1-d target, or one row with a
        0-d target."""
        if target_.dim() == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input_.size()}")
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

    def forward(self, input_, target_):
        self._check_shapes(input_, target_)
        unbatched = target_.dim() == 0
        rows = input_.unsqueeze(0) if unbatched else input_
        target = target_.unsqueeze(0) if unbatched else target_
        if ((target < 0) | (target >= self.n_classes)).any():
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        # head_column: where each row reads its head log-probability (its class if in the
        # shortlist, its cluster's entry otherwise); in_cluster: the tail term, 0 for the shortlist
        head_column = target.clone()
        in_cluster = rows.new_zeros(target.size(0))
        for c, (low, high) in enumerate(self._cluster_bounds()):
            members = ((target >= low) & (target < high)).nonzero(as_tuple=True)[0]
            if members.numel() == 0:
                continue  # no row needs this cluster: its tail is not run
            head_column.index_fill_(0, members, self.shortlist_size + c)
            scores = F.log_softmax(self.tail[c](rows.index_select(0, members)), dim=1)
            offset_in_cluster = target.index_select(0, members) - low
            in_cluster.index_copy_(0, members, scores.gather(1, offset_in_cluster.unsqueeze(1)).squeeze(1))
        head_scores = F.log_softmax(self.head(rows), dim=1)
        output = in_cluster + head_scores.gather(1, head_column.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output.squeeze(0) if unbatched else output, loss)

    def _all_class_log_probs(self, rows, head_logits):
        """(rows, n_classes) log-probabilities: the shortlist's straight from the head, each
        cluster's as its head entry plus the cluster's own log_softmax."""
        head_scores = F.log_softmax(head_logits, dim=1)
        table = rows.new_empty((head_logits.size(0), self.n_classes))
        table[:, :self.shortlist_size] = head_scores[:, :self.shortlist_size]
        for c, (low, high) in enumerate(self._cluster_bounds()):
            entry = head_scores[:, self.shortlist_size + c].unsqueeze(1)
            table[:, low:high] = F.log_softmax(self.tail[c](rows), dim=1) + entry
        return table

    def log_prob(self, input):
        return self._all_class_log_probs(input, self.head(input))

    def predict(self, input):
        head_logits = self.head(input)
        best = head_logits.argmax(dim=1)
        # a row whose best head entry is a cluster needs the full distribution to decide
        undecided = best >= self.shortlist_size
        if not undecided.any():
            return best
        if undecided.all():
            return self._all_class_log_probs(input, head_logits).argmax(dim=1)
        best[undecided] = self._all_class_log_probs(input[undecided], head_logits[undecided]).argmax(dim=1)
        return best
