"""Samplers: which dataset indices a DataLoader visits, in what order, and how they are batched."""
from typing import Generic, TypeVar

from ... import creation

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
