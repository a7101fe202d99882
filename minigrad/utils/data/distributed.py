"""torch.utils.data.DistributedSampler: each of num_replicas processes (ranks) reads its own
share of a dataset. minigrad has no torch.distributed, so num_replicas and rank must be given;
the partitioning is torch's: every rank gets num_samples indices, rank r taking positions r,
r + num_replicas, ... of the (shuffled, padded or cut) index list."""
import math

from ...creation import Generator
from .sampler import Sampler


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:  # torch asks torch.distributed, which minigrad lacks
            raise RuntimeError("Requires distributed package to be available")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas:
            # the tail that cannot be shared evenly is left out
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle, self.seed = shuffle, seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:  # the same order on every rank: seeded by seed and epoch alone
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            order = _perm(g, n)
        else:
            order = list(range(n))
        if not self.drop_last:
            short = self.total_size - len(order)
            if short > 0 and order:  # repeat the list from its start to fill every rank's share
                order += (order * math.ceil(short / len(order)))[:short]
        else:
            order = order[:self.total_size]
        if len(order) != self.total_size:
            raise AssertionError(f"Number of indices ({len(order)}) does not match total_size ({self.total_size})")
        mine = order[self.rank:self.total_size:self.num_replicas]
        if len(mine) != self.num_samples:
            raise AssertionError(f"Number of subsampled indices ({len(mine)}) does not match num_samples "
                                 f"({self.num_samples})")
        return iter(mine)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """The epoch whose shuffled order the next iteration uses (call it before each epoch)."""
        self.epoch = epoch


def _perm(g, n):
    from ... import randperm
    return randperm(n, generator=g).tolist()
