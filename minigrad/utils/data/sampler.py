"""Samplers: which dataset indices a DataLoader visits, in what order, and how they are batched."""
from typing import Generic, TypeVar

import numpy as np

from ... import creation
from ...dtypes import float64

T_co = TypeVar("T_co", covariant=True)

_DRAW_CHUNK = 32  # sampling with replacement draws this many indices at a time, lazily


def check_generator(generator):
    if generator is not None and not callable(getattr(generator, "randperm", None)):
        raise TypeError(f"generator must be a minigrad.Generator, not {type(generator).__name__}")
    return generator


class Sampler(Generic[T_co]):
    """Base class: a sampler is an iterable of indices (or of lists of indices, for batch samplers)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A random order of the indices: permutations without replacement, or independent draws with it.

    Each pass draws from `generator`; without one, each pass seeds a fresh generator from the
    global one, so `minigrad.manual_seed` makes the order reproducible.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = check_generator(generator)
        if not isinstance(self.num_samples, int) or isinstance(self.num_samples, bool) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        gen = self.generator
        if gen is None:
            # one draw from the global stream per pass, however far the pass goes
            gen = creation.Generator().manual_seed(_draw_seed())
        if self.replacement:
            left = self.num_samples
            while left > 0:
                k = min(left, _DRAW_CHUNK)
                yield from gen._rng.integers(0, n, k).tolist()
                left -= k
        else:
            for _ in range(self.num_samples // n):
                yield from gen.randperm(n).tolist()
            yield from gen.randperm(n)[:self.num_samples % n].tolist()

    def __len__(self):
        return self.num_samples


def _draw_seed():
    return int(creation.default_generator._rng.integers(2 ** 63))


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order (a new one each pass)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = check_generator(generator)

    def __iter__(self):
        gen = self.generator if self.generator is not None else creation.default_generator
        for i in gen.randperm(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """num_samples indices of weights (0 .. len(weights) - 1), each drawn with probability
    proportional to its weight: independent draws with replacement; without, each index at most
    once, as successive draws from the indices left. Each pass draws from `generator`, or else
    from the global generator (minigrad.manual_seed makes it reproducible)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = creation.as_tensor(weights, dtype=float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             f"weights have shape {tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        # as torch's, the checks of torch.multinomial come with the first index of a pass
        gen = self.generator
        if gen is None:
            gen = creation.default_generator
        elif not isinstance(gen, creation.Generator):
            raise TypeError(f"multinomial(): argument 'generator' must be minigrad.Generator, not "
                            f"{type(gen).__name__}")
        w = self.weights.detach().cpu().numpy()
        yield from _multinomial(w, self.num_samples, self.replacement, gen._rng).tolist()

    def __len__(self):
        return self.num_samples


def _multinomial(w, n, replacement, rng):
    """torch.multinomial(w, n, replacement) for a 1-d float64 array of weights, with its checks
    and messages, drawing from the NumPy Generator rng."""
    k = w.shape[0]
    if not replacement and n > k:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if k > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    if not replacement or n == 1:  # torch checks all the weights at once on this path
        if not k:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                               "has no identity.")
        if not (w.max() < np.inf and w.min() >= 0):  # a nan fails both
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    else:  # and on this one, weight by weight
        bad = np.flatnonzero(~((w >= 0) & np.isfinite(w)))
        if bad.size:
            what = "= infinity or NaN" if w[bad[0]] >= 0 else "< 0"
            raise RuntimeError(f"invalid multinomial distribution (encountering probability entry {what})")
    total = w.sum()
    if not total > 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if replacement:  # the first index whose cumulative weight exceeds a uniform draw (never a 0 weight)
        return np.searchsorted(np.cumsum(w), rng.random(n) * total, side="right")
    # torch's algorithm: the n largest w / Exp(1) keys, which are successive weighted draws
    # without replacement; zero weights come last, in index order
    keys = w / rng.exponential(size=k)
    return np.argsort(-keys, kind="stable")[:n]


class BatchSampler(Sampler[list]):
    """Groups another sampler's indices into lists of batch_size (the last one shorter unless drop_last)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
