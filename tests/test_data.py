"""minigrad.utils.data: datasets, samplers, collation and the DataLoader, against torch.utils.data."""
import collections
import warnings

import numpy as np
import pytest

import minigrad
from minigrad.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset,
                                 RandomSampler, SequentialSampler, Subset, SubsetRandomSampler,
                                 TensorDataset, default_collate, default_convert, get_worker_info,
                                 random_split)


def _torch():
    return pytest.importorskip("torch")


def plain(x):
    """A batch as plain Python, comparable between minigrad and torch: tensors become
    ("tensor", dtype name, shape, values); containers keep their type's name."""
    if isinstance(x, minigrad.Tensor):
        return ("tensor", x.dtype.name, tuple(x.shape), x.tolist())
    if type(x).__module__.startswith("torch") and hasattr(x, "dtype"):
        return ("tensor", str(x.dtype).split(".")[1], tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return (type(x).__name__, {k: plain(v) for k, v in x.items()})
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [plain(v) for v in x])
    return x


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i * i

    def __len__(self):
        return self.n


def _tensor_data(device="cpu", n=10):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    y = rng.integers(0, 5, n)
    return (TensorDataset(minigrad.tensor(x, device=device), minigrad.tensor(y, device=device)), x, y)


# ---- datasets -----------------------------------------------------------------------------------

def test_tensor_dataset():
    ds, x, y = _tensor_data()
    assert len(ds) == 10
    a, b = ds[3]
    np.testing.assert_array_equal(a.numpy(), x[3])
    assert b.item() == y[3] and b.dtype == minigrad.int64
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(minigrad.zeros(3), minigrad.zeros(4))


def test_tensor_dataset_of_a_0d_tensor_raises_torch_error():
    for tensors in [(minigrad.tensor(1.0),), (minigrad.zeros(2), minigrad.tensor(1.0))]:
        with pytest.raises(IndexError) as got:
            TensorDataset(*tensors)
        assert str(got.value) == "Dimension specified as 0 but tensor has no dimensions"


def test_dataset_base_and_concat_against_torch():
    torch = _torch()
    tdata = torch.utils.data
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__"):
        Dataset()[0]
    both = Squares(3) + Squares(4)
    tboth = tdata.ConcatDataset([[i * i for i in range(3)], [i * i for i in range(4)]])
    assert isinstance(both, ConcatDataset) and both.cumulative_sizes == tboth.cumulative_sizes
    assert len(both) == len(tboth) == 7
    assert [both[i] for i in range(-7, 7)] == [tboth[i] for i in range(-7, 7)]
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        both[-8]
    with pytest.raises(IndexError):
        both[7]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])


@pytest.mark.parametrize("index", [7, 8, 100])
def test_concat_dataset_index_past_the_end_raises_as_torch(index):
    # torch lets the list of datasets raise
    with pytest.raises(IndexError) as got:
        (Squares(3) + Squares(4))[index]
    assert str(got.value) == "list index out of range"


def test_iterable_dataset_without_iter_cannot_be_instantiated():
    # torch's IterableDataset is a typing.Iterable: __iter__ is abstract
    with pytest.raises(TypeError) as got:  # Python's words, which vary with its version
        IterableDataset()
    assert str(got.value).startswith("Can't instantiate abstract class IterableDataset") and "__iter__" in str(got.value)

    class NoIter(IterableDataset):
        pass
    with pytest.raises(TypeError, match="abstract class NoIter"):
        NoIter()
    assert list(Stream(3)) == [0, 1, 2] and isinstance(Stream(3), Dataset)


def test_subset():
    sub = Subset(Squares(10), [7, 2, 5])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [49, 4, 25]
    assert sub.__getitems__([2, 0]) == [25, 49]
    nested = Subset(sub, [2, 1])
    assert [nested[0], nested[1]] == [25, 4]


@pytest.mark.parametrize("n,lengths", [(10, [0.33, 0.33, 0.34]), (11, [0.1, 0.9]), (7, [0.5, 0.5]),
                                       (10, [3, 7]), (100, [0.8, 0.1, 0.1]), (5, [1.0])])
def test_random_split_lengths_as_torch(n, lengths):
    torch = _torch()
    want = [len(s) for s in torch.utils.data.random_split(range(n), lengths)]
    parts = random_split(range(n), lengths, generator=minigrad.Generator().manual_seed(0))
    assert [len(p) for p in parts] == want
    seen = [p[i] for p in parts for i in range(len(p))]
    assert sorted(seen) == list(range(n))  # a partition of the dataset


@pytest.mark.parametrize("n,lengths", [(0, [0.5, 0.5]), (1, [0, 1]), (3, [1]), (0, [1.0]), (10, [0.5, 0.5000000001]),
                                       (10, [1e-12, 1.0]), (0, [0, 0]), (1, [1.0, 0.0])])
def test_random_split_fractions_or_lengths_as_torch(n, lengths):
    # torch reads lengths as fractions when they sum to 1 and not above it, whatever the dataset's size
    torch = _torch()

    def run(split, lib):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            try:
                out = [len(s) for s in split(lib.utils.data.TensorDataset(lib.arange(n)), lengths)]
            except ValueError as e:
                out = ("ValueError", str(e))
        return out, [(w.category, str(w.message), w.filename) for w in record]

    assert run(random_split, minigrad) == run(torch.utils.data.random_split, torch)


def test_random_split_errors_and_seeding():
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(range(10), [3, 3])
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(range(10), [0.5, 0.6])
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        random_split(range(10), [0.5, 1.5, -1.0])
    with pytest.warns(UserWarning, match="Length of split at index 2 is 0"):
        random_split(range(3), [0.5, 0.5, 0.0])
    with pytest.raises(TypeError, match="generator must be a minigrad.Generator"):
        random_split(range(4), [2, 2], generator=0)

    def split(**kw):
        return [list(p.indices) for p in random_split(range(50), [20, 30], **kw)]
    assert split(generator=minigrad.Generator().manual_seed(1)) == split(generator=minigrad.Generator().manual_seed(1))
    assert split(generator=minigrad.Generator().manual_seed(1)) != split(generator=minigrad.Generator().manual_seed(2))
    minigrad.manual_seed(3)
    first = split()
    assert split() != first  # the global stream moves on
    minigrad.manual_seed(3)
    assert split() == first


# ---- samplers -----------------------------------------------------------------------------------

def test_sequential_and_batch_sampler_as_torch():
    torch = _torch()
    tdata = torch.utils.data
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3] and len(SequentialSampler(range(4))) == 4
    for n, bs, drop in [(10, 3, False), (10, 3, True), (9, 3, True), (2, 5, False), (2, 5, True)]:
        ours, theirs = BatchSampler(range(n), bs, drop), tdata.BatchSampler(range(n), bs, drop)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


@pytest.mark.parametrize("make,exc", [
    (lambda d: d.BatchSampler(range(3), 0, False), ValueError),
    (lambda d: d.BatchSampler(range(3), 2, 1), ValueError),
    (lambda d: d.RandomSampler(range(3), replacement=1), TypeError),
    (lambda d: d.RandomSampler(range(3), num_samples=0), ValueError),
])
def test_sampler_errors_as_torch(make, exc):
    torch = _torch()
    with pytest.raises(exc) as want:
        make(torch.utils.data)
    with pytest.raises(exc) as got:
        make(minigrad.utils.data)
    assert str(got.value) == str(want.value)


def test_random_sampler():
    g = minigrad.Generator().manual_seed(0)
    s = RandomSampler(range(6), generator=g)
    first, second = list(s), list(s)
    assert sorted(first) == sorted(second) == list(range(6)) and first != second  # the generator advances
    assert list(RandomSampler(range(6), generator=minigrad.Generator().manual_seed(0))) == first
    # more samples than items without replacement: whole permutations, then part of one
    long = list(RandomSampler(range(3), num_samples=7, generator=g))
    assert len(long) == 7 and sorted(long[:3]) == sorted(long[3:6]) == [0, 1, 2] and long[6] in (0, 1, 2)
    drawn = list(RandomSampler(range(4), replacement=True, num_samples=100, generator=g))
    assert len(drawn) == 100 and set(drawn) == {0, 1, 2, 3}
    minigrad.manual_seed(5)
    a = list(RandomSampler(range(20)))
    minigrad.manual_seed(5)
    assert list(RandomSampler(range(20))) == a
    picked = list(SubsetRandomSampler([10, 20, 30], generator=g))
    assert sorted(picked) == [10, 20, 30]


# ---- collation ----------------------------------------------------------------------------------

Point = collections.namedtuple("Point", "x y")


def _collate_cases(lib, np_):
    return [
        [1, 2, 3],
        [1.5, 2.0],
        [True, False],
        [1, 2.5],                      # the first element decides: int -> a float tensor of the default dtype
        [np_.float32(1.5), np_.float32(2)],
        [np_.array([1, 2], dtype=np_.int32), np_.array([3, 4], dtype=np_.int32)],
        [np_.arange(6.0).reshape(2, 3)] * 2,
        ["a", "b"],
        [(1, "a", 2.0), (2, "b", 3.0)],
        [[1, 2], [3, 4]],
        [{"x": 1, "y": [1.0, 2.0]}, {"x": 2, "y": [3.0, 4.0]}],
        [collections.OrderedDict(a=1), collections.OrderedDict(a=2)],
        [Point(1, 2.0), Point(3, 4.0)],
        [lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])],
        [lib.tensor(5), lib.tensor(6)],
    ]


def test_default_collate_as_torch():
    torch = _torch()
    ours, theirs = _collate_cases(minigrad, np), _collate_cases(torch, np)
    for batch, tbatch in zip(ours, theirs):
        got, want = plain(default_collate(batch)), plain(torch.utils.data.default_collate(tbatch))
        assert got == want, batch


def test_default_convert_as_torch():
    torch = _torch()
    cases = [(np.zeros(2), 1, "a"), {"k": np.ones((2, 2), dtype=np.float32)}, [np.int64(3), 2.5], 7, "s"]
    for case in cases:
        assert plain(default_convert(case)) == plain(torch.utils.data.default_convert(case)), case


@pytest.mark.parametrize("batch,exc", [
    ([[1, 2], [3]], RuntimeError),
    ([object(), object()], TypeError),
    ([np.array(["a"]), np.array(["b"])], TypeError),
])
def test_default_collate_errors_as_torch(batch, exc):
    torch = _torch()
    with pytest.raises(exc) as want:
        torch.utils.data.default_collate(batch)
    with pytest.raises(exc) as got:
        default_collate(batch)
    assert str(got.value) == str(want.value)


NUMPY_SCALAR_MIXES = [
    [np.int64(1), np.int64(2)], [np.float32(1), np.float32(2)], [np.float64(1), np.float64(2.5)],
    [np.int32(1), np.int32(2)], [np.bool_(True), np.bool_(False)],
    [np.int64(1), np.float32(2.5)], [np.float32(2.5), np.int64(1)], [np.int64(1), np.float64(2.5)],
    [np.float32(1), np.float64(2.5)], [np.float64(1), np.float32(2.5)], [np.int32(1), np.int64(2)],
    [np.int32(1), np.float32(2)], [np.bool_(True), np.float32(2)],
    [np.int64(1), 2.5], [np.int64(1), 2], [np.float32(1), 2.5], [np.float32(1), 2], [np.float64(1), 2],
    [np.int32(1), 2], [np.int32(1), True], [np.float64(1), True],
]


@pytest.mark.parametrize("batch", NUMPY_SCALAR_MIXES, ids=lambda b: ",".join(type(x).__name__ for x in b))
def test_default_collate_numpy_scalars_as_torch(batch):
    # torch.as_tensor promotes the elements' dtypes by torch's rules (int64 + float32 -> float32)
    torch = _torch()
    assert plain(default_collate(batch)) == plain(torch.utils.data.default_collate(batch))


@pytest.mark.parametrize("batch", [[np.bool_(True), np.int64(3)], [np.int64(3), np.bool_(True)],
                                   [np.bool_(True), 3], [np.int32(1), np.bool_(False)],
                                   [np.bool_(True), np.array(3)]], ids=lambda b: ",".join(type(x).__name__ for x in b))
def test_default_collate_numpy_bools_in_an_integer_batch_raise_as_torch(batch):
    # torch.as_tensor converts each element to the batch's integer dtype, and NumPy's bool has no __index__
    with pytest.raises(TypeError) as got:
        default_collate(batch)
    assert str(got.value) == f"'{np.bool_.__module__}.{np.bool_.__name__}' object cannot be interpreted as an integer"
    with pytest.raises(TypeError) as got:
        minigrad.tensor(batch[:2])
    assert "object cannot be interpreted as an integer" in str(got.value)


@pytest.mark.parametrize("batch, dtype, values", [
    ([np.float32(1), np.float32(2)], minigrad.float32, [1.0, 2.0]),
    ([np.bool_(True), np.float32(2)], minigrad.float32, [1.0, 2.0]),
    ([np.bool_(True), np.bool_(False)], minigrad.bool, [True, False]),
    ([np.bool_(True), 2.5], minigrad.float32, [1.0, 2.5]),
    ([np.float64(1), np.array(2.)], minigrad.float64, [1.0, 2.0]),
])
def test_default_collate_numpy_scalars_keep_their_dtype(batch, dtype, values):
    got = default_collate(batch)
    assert got.dtype == dtype and got.tolist() == values


class _NotATensor:
    pass


@pytest.mark.parametrize("bad", [1, 2.5, None, [1.0], np.ones(1), np.float32(1), "a", _NotATensor()],
                         ids=lambda b: type(b).__name__)
def test_default_collate_tensor_then_other_as_torch(bad):
    torch = _torch()
    with pytest.raises(TypeError) as want:
        torch.utils.data.default_collate([torch.ones(1), torch.ones(1), bad])
    with pytest.raises(TypeError) as got:
        default_collate([minigrad.ones(1), minigrad.ones(1), bad])
    assert str(got.value) == str(want.value)


def test_collate_stacks_mismatched_tensors_with_torch_error():
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at "
                                           r"entry 0 and \[3\] at entry 1"):
        default_collate([minigrad.zeros(2), minigrad.zeros(3)])


# ---- DataLoader ---------------------------------------------------------------------------------

class Records(Dataset):
    """Samples of mixed types, as a user's __getitem__ returns them."""

    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"id": i, "name": f"s{i}", "feat": np.full(2, i, dtype=np.float32), "w": 0.5 * i}


@pytest.mark.parametrize("kw", [dict(batch_size=2), dict(batch_size=2, drop_last=True), dict(batch_size=None),
                                dict(batch_size=5), dict(batch_size=1)])
def test_loader_batches_as_torch(kw):
    torch = _torch()
    x = np.arange(14, dtype=np.float32).reshape(7, 2)
    y = np.arange(7)
    ours = DataLoader(TensorDataset(minigrad.tensor(x), minigrad.tensor(y)), **kw)
    theirs = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.tensor(x), torch.tensor(y)), **kw)
    assert len(ours) == len(theirs)
    assert [plain(b) for b in ours] == [plain(b) for b in theirs]
    assert [plain(b) for b in DataLoader(Records(), **kw)] == \
        [plain(b) for b in torch.utils.data.DataLoader(Records(), **kw)]


@pytest.mark.parametrize("n,bs,drop", [(10, 3, False), (10, 3, True), (9, 3, False), (1, 4, True), (0, 2, False)])
def test_loader_len_as_torch(n, bs, drop):
    torch = _torch()
    assert len(DataLoader(range(n), batch_size=bs, drop_last=drop)) == \
        len(torch.utils.data.DataLoader(range(n), batch_size=bs, drop_last=drop))


@pytest.mark.parametrize("kw", [
    dict(sampler=[0, 1], shuffle=True),
    dict(batch_sampler=[[0]], batch_size=2),
    dict(batch_sampler=[[0]], drop_last=True),
    dict(batch_size=None, drop_last=True),
    dict(num_workers=-1),
    dict(timeout=-1),
    dict(prefetch_factor=2),
    dict(persistent_workers=True),
    dict(batch_size=0),
])
def test_loader_argument_errors_as_torch(kw):
    torch = _torch()
    with pytest.raises(ValueError) as want:
        torch.utils.data.DataLoader(range(3), **kw)
    with pytest.raises(ValueError) as got:
        DataLoader(range(3), **kw)
    assert str(got.value) == str(want.value)


def test_loader_sampler_and_batch_sampler():
    assert [b.tolist() for b in DataLoader(Squares(6), sampler=[5, 0, 3], batch_size=2)] == [[25, 0], [9]]
    loader = DataLoader(Squares(6), batch_sampler=[[1, 2], [4]])
    assert [b.tolist() for b in loader] == [[1, 4], [16]] and len(loader) == 2
    assert [b for b in DataLoader(Squares(3), batch_size=None)] == [0, 1, 4]
    assert [b for b in DataLoader(Squares(4), batch_size=2, collate_fn=sum)] == [1, 13]


@pytest.mark.parametrize("kind", ["numpy", "numpy_int32", "tensor", "tuple", "numpy_bool", "numpy_2d", "empty"])
@pytest.mark.parametrize("dataset", ["tensors", "subset", "subset_of_subset", "custom"])
def test_batch_sampler_of_arrays_and_tensors_as_torch(kind, dataset):
    torch = _torch()

    def batches(lib):
        data = lib.utils.data
        ds = data.TensorDataset(lib.arange(6), lib.arange(6) * 10)
        if dataset.startswith("subset"):
            ds = data.Subset(ds, np.array([5, 4, 3, 2, 1, 0]))
        if dataset == "subset_of_subset":
            ds = data.Subset(ds, lib.tensor([1, 0, 2, 3, 4, 5]))
        if dataset == "custom":
            ds = Squares(6)
        sampler = {"numpy": [np.array([0, 1]), np.array([2, 5])], "numpy_int32": [np.array([4, 1], dtype=np.int32)],
                   "tensor": [lib.tensor([3, 1]), lib.tensor([0])], "tuple": [(1, 2)],
                   "numpy_bool": [np.array([True, False])], "numpy_2d": [np.array([[0, 1]])],
                   "empty": [np.array([], dtype=np.int64)]}[kind]
        try:
            return [plain(b) for b in data.DataLoader(ds, batch_sampler=sampler)]
        except Exception as e:
            return type(e).__name__

    assert batches(minigrad) == batches(torch)
    if kind in ("numpy", "numpy_int32", "tensor", "tuple"):
        assert isinstance(batches(minigrad), list)


def _epoch(loader):
    return [x.tolist() for x, _ in loader]


def test_shuffle_reproducible_with_generator():
    ds, _, _ = _tensor_data(n=12)
    a = DataLoader(ds, batch_size=5, shuffle=True, generator=minigrad.Generator().manual_seed(7))
    b = DataLoader(ds, batch_size=5, shuffle=True, generator=minigrad.Generator().manual_seed(7))
    a1, a2 = _epoch(a), _epoch(a)
    assert a1 == _epoch(b) and a2 == _epoch(b)
    assert a1 != a2  # each epoch a new order
    rows = sorted(r for batch in a1 for r in batch)
    assert rows == sorted(ds.tensors[0].tolist())  # each epoch visits every sample once
    c = DataLoader(ds, batch_size=5, shuffle=True, generator=minigrad.Generator().manual_seed(8))
    assert _epoch(c) != a1


def test_shuffle_follows_global_seed():
    ds, _, _ = _tensor_data(n=12)
    loader = DataLoader(ds, batch_size=4, shuffle=True)
    minigrad.manual_seed(11)
    first = _epoch(loader)
    assert _epoch(loader) != first
    minigrad.manual_seed(11)
    assert _epoch(loader) == first


def test_num_workers_loads_in_main_process():
    ds, _, _ = _tensor_data()
    calls = []
    loader = DataLoader(ds, batch_size=4, num_workers=2, worker_init_fn=calls.append, prefetch_factor=2,
                        persistent_workers=True)
    assert [plain(b) for b in loader] == [plain(b) for b in DataLoader(ds, batch_size=4)]
    assert get_worker_info() is None and calls == []


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_iterable_dataset_as_torch():
    torch = _torch()

    class TStream(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(7))

        def __len__(self):
            return 7
    for kw in (dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None)):
        ours, theirs = DataLoader(Stream(7), **kw), torch.utils.data.DataLoader(TStream(), **kw)
        assert [plain(b) for b in ours] == [plain(b) for b in theirs] and len(ours) == len(theirs)
    with pytest.raises(ValueError) as want:
        torch.utils.data.DataLoader(TStream(), shuffle=True)
    with pytest.raises(ValueError) as got:
        DataLoader(Stream(7), shuffle=True)
    assert str(got.value) == str(want.value)


# ---- the TensorDataset fast path ----------------------------------------------------------------

def _general(batch):
    return default_collate(batch)  # not default_collate itself: the loader takes the per-sample path


def _same_batches(fast, slow):
    fast, slow = list(fast), list(slow)
    assert len(fast) == len(slow) > 0
    for f, s in zip(fast, slow):
        assert type(f) is type(s) is list and len(f) == len(s)
        for a, b in zip(f, s):
            assert a.dtype == b.dtype and a.shape == b.shape and a.device == b.device
            assert a.tolist() == b.tolist()


@pytest.mark.parametrize("case", ["plain", "drop_last", "shuffle", "subset", "nested_subset", "vectors", "bs1"])
def test_fast_path_matches_general_path(device, case):
    ds, _, _ = _tensor_data(device, n=11)
    kw = dict(batch_size=4)
    if case == "drop_last":
        kw["drop_last"] = True
    if case == "bs1":
        kw["batch_size"] = 1
    if case == "vectors":  # 1-d tensors: each sample is a 0-d tensor
        ds = TensorDataset(minigrad.arange(11, device=device), minigrad.arange(11.0, device=device),
                           minigrad.arange(11, device=device) > 5)
    if case in ("subset", "nested_subset"):
        ds = random_split(ds, [0.6, 0.4], generator=minigrad.Generator().manual_seed(0))[0]
        if case == "nested_subset":
            ds = Subset(ds, [4, 0, 2, 5])
    if case == "shuffle":
        fast = DataLoader(ds, shuffle=True, generator=minigrad.Generator().manual_seed(3), **kw)
        slow = DataLoader(ds, shuffle=True, generator=minigrad.Generator().manual_seed(3), collate_fn=_general, **kw)
    else:
        fast, slow = DataLoader(ds, **kw), DataLoader(ds, collate_fn=_general, **kw)
    _same_batches(fast, slow)


def test_fast_path_skips_per_sample_access(monkeypatch):
    ds, _, _ = _tensor_data()
    calls = []
    original = TensorDataset.__getitem__
    monkeypatch.setattr(TensorDataset, "__getitem__", lambda self, i: calls.append(i) or original(self, i))
    list(DataLoader(ds, batch_size=4))
    assert calls == []
    list(DataLoader(ds, batch_size=4, collate_fn=_general))
    assert sorted(calls) == list(range(10))


def test_fast_path_respects_subclass_getitem():
    class Shifted(TensorDataset):
        def __getitem__(self, i):
            return tuple(t[i] + 100 for t in self.tensors)
    ds = Shifted(minigrad.arange(6))
    assert [b[0].tolist() for b in DataLoader(ds, batch_size=4)] == [[100, 101, 102, 103], [104, 105]]


def test_fast_path_keeps_autograd():
    w = minigrad.ones(6, 2, requires_grad=True)
    fast, = next(iter(DataLoader(TensorDataset(w), batch_size=3)))
    slow, = next(iter(DataLoader(TensorDataset(w), batch_size=3, collate_fn=_general)))
    (fast.sum() * 2).backward()
    g_fast = w.grad.tolist()
    w.grad = None
    (slow.sum() * 2).backward()
    assert g_fast == w.grad.tolist() == [[2.0, 2.0]] * 3 + [[0.0, 0.0]] * 3
