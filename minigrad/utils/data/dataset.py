"""Datasets: the map-style Dataset protocol, TensorDataset, Subset, ConcatDataset, ChainDataset,
StackDataset and random_split."""
import bisect
import itertools
import math
import warnings
from typing import Generic, Iterable, TypeVar

from ...creation import randperm
from .sampler import check_generator

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses define `__getitem__(index)` and usually `__len__()`."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """A stream of samples: subclasses define `__iter__()`; the DataLoader batches what it yields.
    As in torch, __iter__ is abstract (typing.Iterable's), so a class without one cannot be
    instantiated."""

    def __add__(self, other):
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Several IterableDatasets one after the other (chained lazily, as torch's)."""

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class StackDataset(Dataset):
    """Sample i of several datasets of one length side by side: StackDataset(a, b)[i] is
    (a[i], b[i]); StackDataset(x=a, y=b)[i] is {"x": a[i], "y": b[i]}."""

    def __init__(self, *args, **kwargs):
        if args:
            if kwargs:
                raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                                 "input/output, but both types are given.")
            datasets = args
        elif kwargs:
            datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")
        parts = list(datasets.values()) if isinstance(datasets, dict) else list(datasets)
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = datasets

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        # a batch at once, through each dataset's own batch access where it has one
        named = isinstance(self.datasets, dict)
        columns = []
        for d in (self.datasets.values() if named else self.datasets):
            if callable(getattr(d, "__getitems__", None)):
                items = d.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, "
                                     f"got {len(items)}")
                columns.append(items)
            else:
                columns.append([d[i] for i in indices])
        if named:
            return [dict(zip(self.datasets, row)) for row in zip(*columns)]
        return [tuple(row) for row in zip(*columns)] if columns else [() for _ in indices]

    def __len__(self):
        return self._length


def _size0(t):
    """t.size(0), with torch's error for a 0-d tensor."""
    if t.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return t.size(0)


class TensorDataset(Dataset):
    """Sample i is `tuple(t[i] for t in tensors)`; every tensor has the same first dimension."""

    def __init__(self, *tensors):
        if any(_size0(t) != _size0(tensors[0]) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        # a batch at once, through the wrapped dataset's own batch access when it has one
        inner = [self.indices[i] for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(inner)
        return [self.dataset[i] for i in inner]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several datasets end to end: index i finds its dataset by bisecting the running lengths."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]  # past the end: the list's IndexError, as in torch


def _lengths_from_fractions(fractions, n):
    """Fractions summing to 1 as whole lengths: floor each, then hand the remainder out one by
    one from the first split on (torch's rule, so splits have the same sizes as in torch)."""
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                          stacklevel=3)
    return lengths


def random_split(dataset, lengths, generator=None):
    """Split `dataset` into non-overlapping Subsets of the given lengths (ints, or fractions that
    sum to 1), drawing the permutation from `generator` or, without one, the global seed."""
    n = len(dataset)
    # torch's test: fractions sum to 1 (and not above), so [0.5, 0.5] splits even an empty dataset
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, n)
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(n, generator=check_generator(generator)).tolist()
    ends = itertools.accumulate(lengths)
    return [Subset(dataset, indices[end - length:end]) for end, length in zip(ends, lengths)]
