"""default_collate (a list of samples -> one batch) and default_convert (one sample, unbatched)."""
import collections.abc
import copy

import numpy as np

from ... import dtypes as _dt
from ...creation import _check_numpy_bools, tensor
from ...functional import stack
from ...tensor import Tensor
from ..._typename import tp_name as _tp_name

_ERR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_numpy(x):
    return type(x).__module__ == "numpy" and not isinstance(x, (np.str_, np.bytes_))


def _has_text(arr):
    return arr.dtype.kind in "OSUV"  # object, bytes, str, void: not numbers


def _numpy_scalars(batch):
    """torch.as_tensor(batch) for NumPy scalars (and Python numbers among them): each element has a
    dtype, a NumPy scalar its own and a Python bool, int or float bool, int64 or the default float,
    and the batch gets their promotion by torch's rules (int64 with float32 gives float32, where
    NumPy would give float64)."""
    dt = None
    for b in batch:
        # a NumPy scalar (tested first: np.float64 is a Python float too) or 0-d array: its dtype
        if isinstance(b, np.generic) or (isinstance(b, np.ndarray) and not b.ndim):
            d = _dt.from_numpy_dtype(b.dtype)
        elif isinstance(b, (int, float)):
            d = _dt.scalar_dtype(b)
        else:  # not numbers: let the conversion say what is wrong
            return tensor(np.asarray(batch))
        dt = d if dt is None else _dt.promote_types(dt, d)
    if dt._category == 1:  # an integer batch: torch.as_tensor(batch) refuses NumPy bools in it
        _check_numpy_bools(set(map(type, batch)))
    return tensor(np.asarray(batch, dtype=dt.np))


def default_collate(batch):
    """Merge a list of samples into a batch, recursing into their structure as torch does:
    tensors and NumPy arrays are stacked along a new first dim, Python ints (and bools) become an
    int64 (bool) tensor, floats a float64 tensor, strings stay a list, dicts collate per key,
    and tuples/lists are transposed (a tuple of fields gives a list of batched fields)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        try:
            return stack(batch, 0)
        except (AttributeError, TypeError):
            bad = next((i for i, b in enumerate(batch) if not isinstance(b, Tensor)), None)
            if bad is None:
                raise
            raise TypeError(f"expected Tensor as element {bad} in argument 0, but got "
                            f"{_tp_name(batch[bad])}") from None
    if _is_numpy(elem):
        if isinstance(elem, np.ndarray):
            if _has_text(elem):
                raise TypeError(_ERR.format(elem.dtype))
            return stack([tensor(b) for b in batch], 0)
        if elem.shape == ():
            return _numpy_scalars(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype=_dt.float64)
    if isinstance(elem, int):  # bool included: a batch of bools is a bool tensor
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        merged = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                out = copy.copy(elem)
                out.update(merged)
                return out
            return type(elem)(merged)
        except TypeError:  # a mapping type that cannot be built from a dict
            return merged
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple keeps its type
        return type(elem)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        n = len(elem)
        if any(len(b) != n for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(field) for field in zip(*batch)]
        if isinstance(elem, tuple):
            return fields
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                out = copy.copy(elem)
                out[:] = fields
                return out
            return type(elem)(fields)
        except TypeError:
            return fields
    raise TypeError(_ERR.format(type(elem)))


def default_convert(data):
    """What a DataLoader with batch_size=None applies to each sample: NumPy arrays become tensors
    (inside dicts, lists and tuples too); everything else is returned unchanged."""
    if isinstance(data, Tensor):
        return data
    if _is_numpy(data):
        if isinstance(data, np.ndarray) and _has_text(data):
            return data
        return tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(data[key]) for key in data}
        try:
            if isinstance(data, collections.abc.MutableMapping):
                out = copy.copy(data)
                out.update(converted)
                return out
            return type(data)(converted)
        except TypeError:
            return converted
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        converted = [default_convert(d) for d in data]
        try:
            if isinstance(data, collections.abc.MutableSequence):
                out = copy.copy(data)
                out[:] = converted
                return out
            return type(data)(converted)
        except TypeError:
            return converted
    return data
