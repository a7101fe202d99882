"""DataLoader: iterate over a dataset in batches, with torch's arguments and rules.

Everything is loaded in the main process, with the results torch's worker processes give:

- A map-style dataset loads the same batches whatever num_workers is (as torch's does, for a
  dataset whose __getitem__ gives the same sample for the same index): `num_workers > 0` is
  accepted and loads as `num_workers=0` does; worker_init_fn is not called and
  get_worker_info() is None, as in torch's main process.
- An IterableDataset, where torch's result depends on the workers (each iterates its own copy
  of the dataset), has its workers emulated in turn: each has a shallow copy of the dataset
  (WorkerInfo.dataset, which worker_init_fn may edit, e.g. to shard the stream), its own seed
  (base seed + worker id; minigrad's CPU generators, Python's `random` and NumPy's global
  generator are seeded with it and swapped in while that worker runs, so the main process's
  streams do not move), get_worker_info() describes it while it runs, and each batches its own
  stream (drop_last per worker); the workers take turns, one batch each, a worker whose stream
  ends dropping out, as torch's in-order loader returns them. Unlike processes, the workers
  share the main process's other objects: what worker_init_fn or the dataset's __iter__ changes
  outside the dataset copy stays changed.
"""
import copy
import itertools
import operator
import random as _py_random
from dataclasses import dataclass

import numpy as np

from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset, Subset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """What get_worker_info() returns inside a worker (torch's fields)."""
    id: int
    num_workers: int
    seed: int
    dataset: Dataset
    rng: object = None
    worker_method: str = "multiprocessing"


_worker_info = None


def get_worker_info():
    """The WorkerInfo of the DataLoader worker running, None in the main process."""
    return _worker_info


def _rng_states():
    from ... import random as mg_random
    return mg_random.get_rng_state(), _py_random.getstate(), np.random.get_state()


def _set_rng_states(states):
    from ... import random as mg_random
    mg_random.set_rng_state(states[0])
    _py_random.setstate(states[1])
    np.random.set_state(states[2])


class _Worker:
    """One emulated worker: `with worker:` swaps in its RNG streams and its WorkerInfo."""

    def __init__(self, wid, num_workers, seed, dataset, init_fn):
        self.info = WorkerInfo(id=wid, num_workers=num_workers, seed=seed, dataset=dataset)
        self._states = None
        with self:  # as torch's worker loop: seed, then worker_init_fn
            from ...creation import default_generator
            from ...devices import CPU
            CPU.backend.seed(seed)  # minigrad's CPU streams (manual_seed's, without the GPUs')
            default_generator.manual_seed(seed)
            _py_random.seed(seed)
            np.random.seed(np.random.SeedSequence([seed % (1 << 64), wid]).generate_state(4))
            if init_fn is not None:
                init_fn(wid)

    def __enter__(self):
        global _worker_info
        self._outer = (_rng_states(), _worker_info)
        if self._states is not None:
            _set_rng_states(self._states)
        _worker_info = self.info

    def __exit__(self, *exc):
        global _worker_info
        self._states = _rng_states()
        _set_rng_states(self._outer[0])
        _worker_info = self._outer[1]
        return False


def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers):
    """Validate the multiprocessing options (in torch's order, with its messages) and return the
    prefetch_factor in effect: torch's default of 2 once there are workers."""
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                         "multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if prefetch_factor is not None:
        if num_workers == 0:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let "
                             "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and not num_workers:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if prefetch_factor is None and num_workers > 0:
        return 2  # nothing is prefetched here, but the attribute reads as torch's
    return prefetch_factor


def _choose_sampling(dataset, batch_size, shuffle, sampler, batch_sampler, drop_last, generator):
    """Check how the batches are to be formed and fill in the defaults: returns (sampler,
    batch_sampler, batch_size, drop_last). An IterableDataset orders its own samples, so it
    takes no sampler of any kind (only batch_size / drop_last)."""
    iterable = isinstance(dataset, IterableDataset)
    if iterable:
        for name, value in (("shuffle", shuffle), ("sampler", sampler), ("batch_sampler", batch_sampler)):
            if value not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} option, "
                                 f"but got {name}={value}")
    elif shuffle and sampler is not None:
        raise ValueError("sampler option is mutually exclusive with shuffle")

    if batch_sampler is None:
        if batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive "
                             "with drop_last")
    else:
        # a batch_sampler decides the batches by itself: nothing else may say anything about them
        if batch_size != 1 or shuffle or sampler is not None or drop_last:
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                             "sampler, and drop_last")
        batch_size, drop_last = None, False

    if iterable:
        if batch_size is not None:
            BatchSampler(range(0), batch_size, drop_last)  # only for its checks of the two options
        return sampler, batch_sampler, batch_size, drop_last
    if sampler is None:
        sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
    if batch_sampler is None and batch_size is not None:
        batch_sampler = BatchSampler(sampler, batch_size, drop_last)
    return sampler, batch_sampler, batch_size, drop_last


class DataLoader:
    """Iterates over `dataset` in batches collated by collate_fn (see the module docstring for
    what num_workers means here)."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="", in_order=True):
        prefetch_factor = _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers)
        sampler, batch_sampler, batch_size, drop_last = _choose_sampling(
            dataset, batch_size, shuffle, sampler, batch_sampler, drop_last, generator)

        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.generator = generator
        self.pin_memory = pin_memory  # nothing to pin: tensors move to a GPU with .to()
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        # batches are stacked by default_collate; single samples (no batching) only converted
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if self._auto_collation else default_convert)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (isinstance(self.dataset, IterableDataset)
                                                  and self.batch_size is not None)

    def __len__(self):
        if not isinstance(self.dataset, IterableDataset):
            return len(self.sampler if self.batch_sampler is None else self.batch_sampler)
        # an iterable dataset's length (where it has one) counted in batches
        samples, size = len(self.dataset), self.batch_size
        if size is None:
            return samples
        full, partial = divmod(samples, size)
        return full + (1 if partial and not self.drop_last else 0)

    def __iter__(self):
        if isinstance(self.dataset, IterableDataset):
            if self.num_workers > 0:  # each worker iterates its own copy: emulated (module docstring)
                return self._iter_worker_streams(self._workers())
            return self._iter_stream(self.dataset)
        # a map-style dataset: what workers would fetch is what the main process fetches
        if self.batch_sampler is None:
            return (self.collate_fn(self.dataset[i]) for i in self.sampler)
        fast = self._tensor_source()
        return (self._fetch(self.dataset, fast, indices) for indices in self.batch_sampler)

    def _workers(self):
        """The emulated workers of a new iterator (those of the first one with persistent_workers)."""
        kept = self.__dict__.get("_persistent")
        if kept is not None:
            return kept
        from ...creation import randint
        # torch's base seed: one int64 draw from the loader's generator (or the global one)
        base = int(randint(0, 1 << 63, (), generator=self.generator, device="cpu").item())
        workers = [_Worker(w, self.num_workers, base + w, copy.copy(self.dataset), self.worker_init_fn)
                   for w in range(self.num_workers)]
        if self.persistent_workers:
            self.__dict__["_persistent"] = workers
        return workers

    def _iter_worker_streams(self, workers):
        """Each worker iterates its copy of the dataset; the workers take turns, one batch each,
        a worker whose stream ends dropping out (torch's in-order multi-worker loader)."""
        streams = [self._iter_stream(w.info.dataset) for w in workers]
        active = list(range(len(workers)))
        while active:
            for w in list(active):
                with workers[w]:
                    try:
                        out = next(streams[w])
                    except StopIteration:
                        active.remove(w)
                        continue
                yield out

    def _fetch(self, dataset, fast, indices):
        if fast is not None:
            batch = _index_tensors(fast, indices)
            if batch is not None:
                return batch
        fetch_many = getattr(dataset, "__getitems__", None)
        samples = fetch_many(indices) if callable(fetch_many) else [dataset[i] for i in indices]
        return self.collate_fn(samples)

    def _tensor_source(self):
        """(tensors, index maps) when a batch can be cut from a TensorDataset's tensors directly.

        default_collate over a TensorDataset's samples stacks tensor[i] for each i; indexing each
        tensor once with all the batch's indices gives the same batch with one op per tensor.
        Only exact TensorDataset and Subset types qualify: a subclass may change __getitem__.
        """
        if self.collate_fn is not default_collate:
            return None
        ds, maps = self.dataset, []
        while type(ds) is Subset:
            maps.append(ds.indices)
            ds = ds.dataset
        if type(ds) is not TensorDataset:
            return None
        return ds.tensors, maps

    def _iter_stream(self, dataset):
        it = iter(dataset)
        if self.batch_size is None:
            for sample in it:
                yield self.collate_fn(sample)
            return
        while True:
            samples = list(itertools.islice(it, self.batch_size))
            if not samples or (self.drop_last and len(samples) < self.batch_size):
                return
            yield self.collate_fn(samples)


def _index_tensors(source, indices):
    """The batch default_collate would build, as [t[indices] for t in tensors]; None when the
    indices are not plain integers (the general path then decides what they mean). The indices may
    be any sequence of integers a batch_sampler yields: a list, a NumPy array, a tensor."""
    tensors, maps = source
    if not isinstance(indices, list) and callable(getattr(indices, "tolist", None)):
        indices = indices.tolist()  # a NumPy array or a tensor of indices: Python ints (or bools)
    try:
        if len(indices) == 0 or any(isinstance(i, bool) for i in indices):  # len: an array has no truth value
            return None
        idx = [operator.index(i) for i in indices]
        for m in maps:  # the outermost Subset's indices first
            idx = [operator.index(m[i]) for i in idx]
    except TypeError:
        return None
    return [t[idx] for t in tensors]
