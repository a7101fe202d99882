"""The dtypes minigrad supports, and torch's type-promotion rules for them."""
import numpy as np


class dtype:
    __slots__ = ("name", "np", "is_floating_point", "itemsize", "_category", "_legacy")

    def __init__(self, name, np_dtype, category, legacy):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self._category = category  # 0 bool, 1 integer, 2 floating: promotion goes up
        self.is_floating_point = category == 2
        self._legacy = legacy  # torch's legacy type name, used in error messages

    def __repr__(self):
        return "minigrad." + self.name

    def __reduce__(self):
        return self.name


float32 = dtype("float32", np.float32, 2, "FloatTensor")
float64 = dtype("float64", np.float64, 2, "DoubleTensor")
int64 = dtype("int64", np.int64, 1, "LongTensor")
int32 = dtype("int32", np.int32, 1, "IntTensor")
bool_ = dtype("bool", np.bool_, 0, "BoolTensor")

ALL = (float32, float64, int64, int32, bool_)
_BY_NP = {d.np: d for d in ALL}
_DEFAULT_FLOAT = float32


_CPP_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "bool": "bool"}


def cpp_name(d):
    """The C++ type name torch's kernels print for dtype d ('long int' for int64)."""
    return _CPP_NAMES[d.name]


def get_default_dtype():
    return _DEFAULT_FLOAT


def set_default_dtype(d):
    global _DEFAULT_FLOAT
    if d not in (float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _DEFAULT_FLOAT = d


def from_numpy_dtype(npd):
    try:
        return _BY_NP[npd]
    except KeyError:
        raise TypeError(
            f"minigrad does not support the NumPy dtype {np.dtype(npd)}; supported: "
            "float32, float64, int64, int32, bool") from None


def to_dtype(d):
    """Accept a minigrad dtype, a NumPy dtype or a Python type and return a minigrad dtype."""
    if isinstance(d, dtype):
        return d
    if d is float:  # as torch: Python's float is a double whatever the default dtype
        return float64
    if d is int:
        return int64
    if d is bool:
        return bool_
    try:
        return from_numpy_dtype(np.dtype(d))
    except TypeError:
        raise TypeError(f"expected a minigrad dtype (e.g. minigrad.float32), got {d!r}") from None


def promote_types(a, b):
    if a is b:
        return a
    if a._category != b._category:
        return a if a._category > b._category else b
    return a if a.itemsize >= b.itemsize else b


def scalar_dtype(x):
    """The dtype torch gives a Python scalar taking part in an op ('wrapped number')."""
    if isinstance(x, bool):
        return bool_
    if isinstance(x, int):
        return int64
    return _DEFAULT_FLOAT


def result_type(a, b):
    """torch.result_type for two operands, each a Tensor or a Python scalar.

    Dimensioned tensors decide within a category; 0-d tensors and Python scalars only
    matter when they belong to a higher category (bool < integer < floating).
    """
    from .tensor import Tensor
    levels = [None, None, None]  # dimensioned tensors, 0-d tensors, scalars
    for x in (a, b):
        if isinstance(x, Tensor):
            d, lvl = x.dtype, (0 if x._data.ndim else 1)
        else:
            d, lvl = scalar_dtype(x), 2
        levels[lvl] = d if levels[lvl] is None else promote_types(levels[lvl], d)
    result = None
    for d in levels:
        if d is None:
            continue
        if result is None or d._category > result._category:
            result = d
    return result
