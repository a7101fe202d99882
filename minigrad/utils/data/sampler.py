"""Samplers: which dataset indices a DataLoader visits, in what order, and how they are batched.

The random samplers draw lazily: nothing is drawn when a pass begins, only when its first index
is asked for, and a pass with replacement draws its indices a chunk at a time. Which draws a
pass makes (and from which stream) is fixed, since seeded runs are compared with torch's."""
import itertools
from typing import Generic, TypeVar

import numpy as np

from ... import creation
from ...dtypes import float64

T_co = TypeVar("T_co", covariant=True)

_DRAW_CHUNK = 32  # sampling with replacement draws this many indices at a time


def check_generator(generator):
    """generator itself, after checking it is None or a minigrad.Generator (anything with a
    randperm method passes)."""
    if generator is None or callable(getattr(generator, "randperm", None)):
        return generator
    raise TypeError(f"generator must be a minigrad.Generator, not {type(generator).__name__}")


def _is_positive_int(value):
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _require_positive_int(name, value):
    if not _is_positive_int(value):
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


def _require_bool(name, value, error=ValueError):
    if not isinstance(value, bool):
        raise error(f"{name} should be a boolean value, but got {name}={value}")


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
        return iter(range(len(self)))

    def __len__(self):
        return len(self.data_source)


def _pass_seed():
    """One int64 draw from the global generator: the seed of a RandomSampler pass's own stream."""
    return int(creation.default_generator._rng.integers(2 ** 63))


def _indices_with_replacement(gen, population, count):
    """count independent uniform draws from range(population), generated chunk by chunk."""
    for start in range(0, count, _DRAW_CHUNK):
        yield from gen._rng.integers(0, population, min(_DRAW_CHUNK, count - start)).tolist()


def _indices_by_permutations(gen, population, count):
    """count indices as consecutive random permutations of range(population), the last one cut
    short. That last permutation is drawn even when nothing of it is used (count a multiple of
    population), as torch does, so the generator ends in the same state."""
    whole, rest = divmod(count, population)
    for _ in range(whole):
        yield from gen.randperm(population).tolist()
    yield from gen.randperm(population)[:rest].tolist()


class RandomSampler(Sampler[int]):
    """A random order of the indices: permutations without replacement, or independent draws with it.

    Each pass draws from `generator`; without one, each pass seeds a fresh generator from the
    global one, so `minigrad.manual_seed` makes the order reproducible.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        _require_bool("replacement", replacement, TypeError)
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = check_generator(generator)
        _require_positive_int("num_samples", self.num_samples)

    @property
    def num_samples(self):
        """How many indices a pass yields: num_samples as given, else the dataset's length (read
        each time, so a dataset that grows is followed)."""
        given = self._num_samples
        return len(self.data_source) if given is None else given

    def __iter__(self):
        population = len(self.data_source)
        # a pass without a generator of its own takes a single draw from the global stream,
        # however many indices it then yields
        gen = self.generator
        if gen is None:
            gen = creation.Generator().manual_seed(_pass_seed())
        sample = _indices_with_replacement if self.replacement else _indices_by_permutations
        yield from sample(gen, population, self.num_samples)

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order (a new one each pass)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = check_generator(generator)

    def __iter__(self):
        gen = creation.default_generator if self.generator is None else self.generator
        order = gen.randperm(len(self.indices)).tolist()
        yield from (self.indices[pos] for pos in order)

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """num_samples indices of weights (0 .. len(weights) - 1), each drawn with probability
    proportional to its weight: independent draws with replacement; without, each index at most
    once, as successive draws from the indices left. Each pass draws from `generator`, or else
    from the global generator (minigrad.manual_seed makes it reproducible)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        _require_positive_int("num_samples", num_samples)
        _require_bool("replacement", replacement)
        table = creation.as_tensor(weights, dtype=float64)
        if table.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(table.shape)}")
        self.weights = table
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator  # checked when a pass begins, as torch.multinomial checks it

    def __iter__(self):
        gen = self.generator
        if gen is None:
            gen = creation.default_generator
        elif not isinstance(gen, creation.Generator):
            raise TypeError(f"multinomial(): argument 'generator' must be minigrad.Generator, not "
                            f"{type(gen).__name__}")
        host_weights = self.weights.detach().cpu().numpy()
        yield from _multinomial(host_weights, self.num_samples, self.replacement, gen._rng).tolist()

    def __len__(self):
        return self.num_samples


def _check_multinomial_weights(w, replacement, n):
    """torch.multinomial's validation of a 1-d weight vector, with its messages: one global check
    (on the path that draws without replacement, or a single sample), or entry by entry."""
    if not replacement or n == 1:
        if w.shape[0] == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                               "has no identity.")
        if not (w.max() < np.inf and w.min() >= 0):  # a nan fails both comparisons
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        return
    invalid = np.flatnonzero(~(np.isfinite(w) & (w >= 0)))
    if invalid.size:
        what = "= infinity or NaN" if w[invalid[0]] >= 0 else "< 0"
        raise RuntimeError(f"invalid multinomial distribution (encountering probability entry {what})")


def _multinomial(w, n, replacement, rng):
    """torch.multinomial(w, n, replacement) for a 1-d float64 array of weights, with its checks
    and messages, drawing from the NumPy Generator rng."""
    categories = w.shape[0]
    if not replacement and n > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if categories > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    _check_multinomial_weights(w, replacement, n)
    total = w.sum()
    if not total > 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if replacement:
        # inverse-CDF sampling: the first index whose running weight passes a uniform draw
        # (never an index of weight 0, thanks to side='right')
        return np.searchsorted(np.cumsum(w), rng.random(n) * total, side="right")
    # without replacement: rank the indices by w / Exp(1) and keep the n largest, which has
    # the law of n successive weighted draws; zero weights rank last, in index order
    keys = w / rng.exponential(size=categories)
    return np.argsort(-keys, kind="stable")[:n]


class BatchSampler(Sampler[list]):
    """Groups another sampler's indices into lists of batch_size (the last one shorter unless drop_last)."""

    def __init__(self, sampler, batch_size, drop_last):
        _require_positive_int("batch_size", batch_size)
        _require_bool("drop_last", drop_last)
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        size = self.batch_size
        while True:
            batch = list(itertools.islice(indices, size))
            if len(batch) < size:
                # the sampler ran out: a partial batch is the last one, unless dropped
                if batch and not self.drop_last:
                    yield batch
                return
            yield batch

    def __len__(self):
        full, partial = divmod(len(self.sampler), self.batch_size)
        return full if self.drop_last or not partial else full + 1
