"""The dtypes minigrad supports, and torch's type-promotion rules for them."""
import numpy as np


class dtype:
    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize", "_category", "_legacy")

    def __init__(self, name, np_dtype, category, legacy):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self._category = category  # 0 bool, 1 integer, 2 floating: promotion goes up
        self.is_floating_point = category == 2
        self.is_signed = self.np.kind in "fi"  # as torch's: bool and uint8 are unsigned
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


class _SmallDtype(dtype):
    """float16 and the 8/16-bit integers: stored as such, computed in float32 / int32 by the
    backends' wrappers (backends/small_dtypes.py), which go in the first time a program asks for
    one of these dtypes' NumPy dtype, so that programs without them pay nothing."""
    __slots__ = ("_np",)

    def __init__(self, name, np_dtype, category, legacy):
        self._np = np.dtype(np_dtype)
        self.name, self.itemsize, self._category, self._legacy = name, self._np.itemsize, category, legacy
        self.is_floating_point = category == 2
        self.is_signed = self._np.kind in "fi" or self.is_floating_point  # bfloat16's storage is uint16

    @property
    def np(self):
        _activate_small()
        return self._np


def _activate_small():
    from .backends import small_dtypes
    small_dtypes.activate()


float16 = _SmallDtype("float16", np.float16, 2, "HalfTensor")
int16 = _SmallDtype("int16", np.int16, 1, "ShortTensor")
int8 = _SmallDtype("int8", np.int8, 1, "CharTensor")
uint8 = _SmallDtype("uint8", np.uint8, 1, "ByteTensor")
# NumPy has no bfloat16: its arrays hold the 16 bits (the top half of a float32) as uint16, which
# is why minigrad has no uint16 dtype of its own; the wrappers compute it in float32 as well
bfloat16 = _SmallDtype("bfloat16", np.uint16, 2, "BFloat16Tensor")

ALL = (float32, float64, int64, int32, bool_, float16, int16, int8, uint8, bfloat16)
_BY_NP = {(d._np if d.__class__ is _SmallDtype else d.np): d for d in ALL}
_DEFAULT_FLOAT = float32


_CPP_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "bool": "bool",
              "float16": "c10::Half", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
              "bfloat16": "c10::BFloat16"}


def cpp_name(d):
    """The C++ type name torch's kernels print for dtype d ('long int' for int64)."""
    return _CPP_NAMES[d.name]


_C_INT_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t"}


def check_fits(value, d, c_name=True):
    """torch's c10::overflows check of a Python number stored into integer dtype d: floats must
    lie in d's range; ints too, except that unsigned types take negatives down to -max, which
    wrap (uint8: -1 -> 255). Raises torch's RuntimeError, naming the C type (full, fill_) or the
    dtype (torch.tensor)."""
    if d._category != 1 or isinstance(value, bool):
        return
    info = np.iinfo(d.np)
    if isinstance(value, float):
        bad = not (info.min <= value <= info.max)  # nan and the infinities too
    elif d.is_signed:
        bad = not info.min <= value <= info.max
    else:
        bad = value > info.max or -value > info.max
    if bad:
        name = _C_INT_NAMES[d.name] if c_name else d.name
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")


def floating(a):
    """Whether array a holds floating point numbers: a float dtype, or uint16 (bfloat16's bits)."""
    d = a.dtype
    return d.kind == "f" or d.char == "H"


def get_default_dtype():
    return _DEFAULT_FLOAT


def set_default_dtype(d):
    global _DEFAULT_FLOAT
    if d not in (float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _DEFAULT_FLOAT = d


def from_numpy_dtype(npd):
    try:
        d = _BY_NP[npd]
        if d.__class__ is _SmallDtype:  # an array of a small dtype enters: the backends must handle it
            _activate_small()
        return d
    except KeyError:
        raise TypeError(
            f"minigrad does not support the NumPy dtype {np.dtype(npd)}; supported: "
            "float32, float64, float16, int64, int32, int16, int8, uint8, bool (and uint16, which holds bfloat16)") from None


def to_dtype(d):
    """Accept a minigrad dtype, a NumPy dtype or a Python type and return a minigrad dtype."""
    if isinstance(d, dtype):
        if d.__class__ is _SmallDtype:  # before the caller looks up the backend primitive it will call
            _activate_small()
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
    if a.itemsize == b.itemsize and a is not b:  # the smallest type that holds both ranges, as torch:
        return int16 if a._category == 1 else float32  # uint8 with int8; float16 with bfloat16
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


# ---- torch.finfo, torch.iinfo, torch.can_cast ------------------------------------------------

_NO_TYPE = object()  # finfo() without an argument: the default dtype


def _dtype_arg(fn, value, name="type", position=1):
    """value if it is a dtype, else torch's argument error for fn."""
    if not isinstance(value, dtype):
        from ._arg_errors import type_name
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be minigrad.dtype, "
                        f"not {type_name(value)}")
    return value


def _one_type(fn, args, kwargs, optional):
    """The dtype argument of finfo(type) / iinfo(type), with torch's errors for the rest."""
    if len(args) > 1:
        if not optional:
            raise TypeError(f"{fn}() takes 1 positional argument but {len(args)} were given")
        from ._arg_errors import type_name
        got = ", ".join(type_name(a) for a in args)
        raise TypeError(f"{fn}() received an invalid combination of arguments - got ({got}), "
                        "but expected one of:\n * (minigrad.dtype type)\n * ()\n")
    if not args and "type" not in kwargs:
        if optional and not kwargs:
            return _DEFAULT_FLOAT
        raise TypeError(f'{fn}() missing 1 required positional arguments: "type"')
    extra = [k for k in kwargs if k != "type" or args]
    if extra:
        raise TypeError(f"{fn}() got an unexpected keyword argument '{extra[0]}'")
    return _dtype_arg(fn, args[0] if args else kwargs["type"])


class _TypeInfo:
    """What finfo and iinfo share: read-only attributes, equality by dtype, torch's repr."""
    __slots__ = ("_dtype", "bits", "min", "max")
    _shown = ("min", "max")

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'minigrad.{type(self).__name__}' objects is not writable")

    def _set(self, **values):
        for k, v in values.items():
            object.__setattr__(self, k, v)

    @property
    def dtype(self):
        return self._dtype.name  # a string, as torch's ('float32')

    def __eq__(self, other):
        if type(other) is not type(self):
            return False
        return self._dtype is other._dtype

    def __ne__(self, other):
        return not self == other

    __hash__ = None  # as torch's: unhashable

    def __repr__(self):
        fields = ", ".join(f"{k}={getattr(self, k):g}" for k in self._shown)
        return f"{type(self).__name__}({fields}, dtype={self.dtype})"

    __str__ = __repr__


class finfo(_TypeInfo):
    """torch.finfo(type=default dtype): the numerical properties of a floating point dtype."""
    __slots__ = ("eps", "tiny", "smallest_normal", "resolution")
    _shown = ("resolution", "min", "max", "eps", "smallest_normal", "tiny")

    def __init__(self, *args, **kwargs):
        d = _one_type("finfo", args, kwargs, optional=True)
        if not d.is_floating_point:
            raise TypeError("minigrad.finfo() requires a floating point input type. Use minigrad.iinfo to "
                            "handle 'minigrad.finfo'")
        if d is bfloat16:  # 8 significant bits and float32's exponent range
            bits, eps, top, tiny, precision = 16, 2.0 ** -7, (2.0 - 2.0 ** -7) * 2.0 ** 127, 2.0 ** -126, 2
        else:
            info = np.finfo(d.np)
            bits, eps, top, tiny, precision = info.bits, info.eps, info.max, info.smallest_normal, info.precision
        self._set(_dtype=d, bits=int(bits), eps=float(eps), max=float(top), min=-float(top), tiny=float(tiny),
                  smallest_normal=float(tiny), resolution=float(10.0 ** -precision))


class iinfo(_TypeInfo):
    """torch.iinfo(type): the range of an integer dtype."""
    __slots__ = ()

    def __init__(self, *args, **kwargs):
        d = _one_type("iinfo", args, kwargs, optional=False)
        if d is bool_:
            raise TypeError("minigrad.bool is not supported by minigrad.iinfo")
        if d._category != 1:
            raise TypeError("minigrad.iinfo() requires an integer input type. Use minigrad.finfo to handle "
                            "'minigrad.iinfo'")
        info = np.iinfo(d.np)
        self._set(_dtype=d, bits=int(info.bits), max=int(info.max), min=int(info.min))


finfo.__module__ = iinfo.__module__ = "minigrad"


def can_cast(*args, **kwargs):
    """torch.can_cast(from_, to): whether torch's casting rules allow from_ -> to in an op's output
    (no floating point to integer, no number to bool)."""
    names = ("from_", "to")
    if len(args) > 2:
        raise TypeError(f"can_cast() takes 2 positional arguments but {len(args)} were given")
    bound = dict(zip(names, args))
    bound.update((k, v) for k, v in kwargs.items() if k in names and k not in bound)
    for position, name in enumerate(names, 1):
        if name in bound:
            _dtype_arg("can_cast", bound[name], name, position)
    missing = [n for n in names if n not in bound]
    if missing:  # torch's parser words it so: "1 ... arguments", "2 ... argument"
        raise TypeError(f"can_cast() missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) == 1 else ''}: " + ", ".join(f'"{n}"' for n in missing))
    extra = [k for k in kwargs if k not in names or names.index(k) < len(args)]
    if extra:
        raise TypeError(f"can_cast() got an unexpected keyword argument '{extra[0]}'")
    return bound["from_"]._category <= bound["to"]._category
