"""float16, bfloat16 and the 8/16-bit integers (uint8, int8, int16) on both backends.

Arrays of these dtypes are stored as such, but computed in a wider type, as PyTorch computes
them: half in float32 (its "opmath" type, for elementwise ops, reductions and matmul alike) and
the small integers in int32, whose results, cast back, wrap exactly as the small type's own
arithmetic would (uint8 200 + 100 = 44). The kernels (kernels/*.cu) and the NumPy code exist for
f32/f64/i64/i32/b8 only, so each compute primitive is wrapped: small operands are widened, the
primitive runs, and every result in the wide type is cast back (a result of another dtype, such
as argmax's int64 indices or a comparison's bools, is left as it is). In-place primitives write
the rounded result back into the small array. Layout primitives (views, indexing, copies,
concatenation) see the small arrays themselves.

bfloat16 has no NumPy dtype: its arrays are uint16 holding the bits (minigrad has no uint16
dtype, so uint16 always means bfloat16). It widens to float32 and narrows back through the
backends' bf16_to_f32 / f32_to_bf16 (bit operations on NumPy, our kernels on CUDA), which the
astype wrapper below calls; everything else treats it as float16 is treated.
"""
import numpy as np

WIDE = {np.dtype(np.float16): np.dtype(np.float32), np.dtype(np.uint8): np.dtype(np.int32),
        np.dtype(np.int8): np.dtype(np.int32), np.dtype(np.int16): np.dtype(np.int32),
        np.dtype(np.uint16): np.dtype(np.float32)}  # uint16: bfloat16's bits
_SMALL_SPELLINGS = {"float16": np.dtype(np.float16), "half": np.dtype(np.float16), "uint8": np.dtype(np.uint8),
                    "int8": np.dtype(np.int8), "int16": np.dtype(np.int16), "uint16": np.dtype(np.uint16)}
_SMALL_SPELLINGS.update({t: np.dtype(t) for t in (np.float16, np.uint8, np.int8, np.int16, np.uint16)})
_SMALL_SPELLINGS.update({d: d for d in WIDE})

# the primitives that see small arrays as they are (no arithmetic, or their own handling below)
NATIVE = frozenset((
    "asarray", "to_numpy", "empty", "copy", "seed", "reshape", "view", "transpose", "broadcast_to",
    "getitem", "concatenate", "split", "copyto", "is_contiguous", "data_ptr", "strides", "as_strided",
    "ascontiguous", "randint", "setitem", "bf16_to_f32", "f32_to_bf16"))
# (im2col/col2im are widened like arithmetic: col2im sums overlapping patches, which bfloat16's
# bits cannot be summed as, and the CUDA kernels exist for 4- and 8-byte types only)
# the in-place primitives: which positional arguments they write (each an array or a list of arrays)
INPLACE = {"iadd": (0,), "binary_inplace": (1,), "axpy": (0,), "foreach_axpy": (0,), "index_reduce": (0,),
           "foreach_adam": (0, 2, 3, 4), "foreach_sgd": (0, 2), "foreach_rmsprop": (0, 2, 3, 4),
           "foreach_adagrad": (0, 2)}


# binary ops whose Python-number operand torch first casts to the common dtype (half), then
# computes in float32; its CPU mul and div keep the number in float32 instead
ROUND_SCALARS = frozenset((
    "add", "sub", "pow", "fmod", "remainder", "floor_divide", "trunc_divide", "maximum", "minimum", "eq", "ne",
    "lt", "le", "gt", "ge", "atan2", "hypot", "logaddexp", "logaddexp2", "copysign", "xlogy", "where", "iadd",
    "zeta", "igamma", "igammac", "xlog1py", "nextafter"))
_F32, _F16, _BF16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.uint16)


def round_scalar(value, small):
    """The Python float `value` rounded to float16 or bfloat16 (small: its NumPy storage dtype),
    through float32 as torch converts a double (a Python number) to either."""
    if small == _F16:
        return float(np.float16(value))
    from .numpy_backend import bf16_to_f32, f32_to_bf16
    with np.errstate(over="ignore"):
        return float(bf16_to_f32(f32_to_bf16(np.array(value, np.float32))))


def _small_of(x):
    """The small NumPy dtype that x is (an array) or names (a dtype argument), else None."""
    d = getattr(x, "dtype", None)
    if d is not None:
        return d if d in WIDE else None
    if x.__class__ is str or x.__class__ is type or isinstance(x, np.dtype):
        return _SMALL_SPELLINGS.get(x)
    return None


def _needs(args, kwargs):
    for a in args:
        if a.__class__ is list or a.__class__ is tuple:
            if any(_small_of(x) is not None for x in a):
                return True
        elif _small_of(a) is not None:
            return True
    return any(_small_of(v) is not None for v in kwargs.values()) if kwargs else False


def wrap(be, name, fn):
    """fn (primitive `name` of backend be) computing its small operands in their wide types."""
    if name == "setitem":
        return _setitem(fn)
    if name == "asarray":
        return _asarray(be, fn)
    if name in NATIVE:
        return fn
    if name == "astype":
        return _astype(be, fn)
    if name in ("rand", "randn"):
        return _draw(be, name, fn)
    slots = INPLACE.get(name, ())

    array_type = be.ndarray

    def call(*args, **kwargs):
        # the fast test (every call of every compute primitive pays it): arrays of 4 bytes or
        # more, and Python numbers, need nothing
        for a in args:
            c = a.__class__
            if c is array_type:
                if a.itemsize < 4 and a.dtype in WIDE:
                    break
            elif c is not float and c is not int and _needs((a,), {}):
                break
        else:
            if not kwargs or not _needs((), kwargs):
                return fn(*args, **kwargs)
        return widened(args, kwargs)

    def widened(args, kwargs):
        back = {}     # wide dtype -> the small dtype its results return to
        seen = set()  # wide dtypes some operand had already: those results stay wide

        def widen(x):
            small = _small_of(x)
            if small is None:
                d = getattr(x, "dtype", None)
                if d is not None and getattr(x, "ndim", None) is not None:
                    seen.add(d)
                elif isinstance(x, np.dtype) or (x.__class__ is type and issubclass(x, np.generic)):
                    seen.add(np.dtype(x))  # a wide dtype asked for (sum(..., dtype=float32))
                return x
            wide = WIDE[small]
            back.setdefault(wide, small)
            if x.__class__ is str or x.__class__ is type or isinstance(x, np.dtype):
                return wide  # a dtype argument
            return be.astype(x, wide)  # an array, or a NumPy scalar

        def widen_arg(x):
            if x.__class__ is list or x.__class__ is tuple:
                return x.__class__(widen(v) for v in x)
            return widen(x)

        wargs = [widen_arg(a) for a in args]
        wkw = {k: widen_arg(v) for k, v in kwargs.items()}
        for w in seen:
            back.pop(w, None)
        small = back.get(_F32)
        if small is not None and (name in ROUND_SCALARS or (name == "binary_inplace"
                                                            and args[0] not in ("mul", "div"))):
            wargs = [round_scalar(a, small) if a.__class__ is float else a for a in wargs]
        result = fn(*wargs, **wkw)
        for k in slots:   # write in-place results back into the small arrays
            if k < len(args):
                pairs = zip(args[k], wargs[k]) if args[k].__class__ in (list, tuple) else ((args[k], wargs[k]),)
                for orig, wide in pairs:
                    if wide is not orig and orig is not None:
                        be.copyto(orig, _narrow(be, wide, orig.dtype))
        return _restore(be, result, back)
    call.__name__ = name
    call.__doc__ = fn.__doc__
    return call


def _narrow(be, a, small):
    """a (a wide array) in the small dtype: floats rounded to half; int32 wraps to the small int."""
    return be.astype(a, small)


def _restore(be, result, back):
    if not back or result is None:
        return result
    if result.__class__ is tuple or result.__class__ is list:
        return result.__class__(_restore(be, r, back) for r in result)
    d = getattr(result, "dtype", None)
    if d is not None and d in back:
        return _narrow(be, result, back[d])
    return result


def _asarray(be, fn):
    """Values asked for as bfloat16 (dtype uint16) become its bits, rounded from float32; what is
    already a uint16 array is bits already."""
    def asarray(data, dtype=None):
        if dtype is not None and getattr(data, "dtype", None) != _BF16 and np.dtype(dtype) == _BF16:
            with np.errstate(over="ignore"):
                return be.f32_to_bf16(fn(data, _F32))
        return fn(data, dtype)
    return asarray


def _setitem(fn):
    """a[index] = a Python number converted as torch converts it: into a small integer through
    int64, wrapping (NumPy refuses a number out of the dtype's range); into bfloat16 as its bits."""
    def setitem(a, index, value, *rest, **kwargs):
        if a.dtype in WIDE and not hasattr(value, "dtype") and isinstance(value, (int, float)):
            if a.dtype == _BF16:
                from .numpy_backend import f32_to_bf16
                with np.errstate(over="ignore"):
                    value = f32_to_bf16(np.array(value, np.float32))[()]
            elif a.dtype.kind in "iu":
                value = np.array(value).astype(np.int64).astype(a.dtype)[()]
            else:
                value = np.float16(value)
        return fn(a, index, value, *rest, **kwargs)
    setitem.__doc__ = fn.__doc__
    return setitem


def _astype(be, fn):
    """Casts into a small integer dtype from a float go through int64 (torch's CPU conversion:
    300.0 -> uint8 44, -3.7 -> 253), where a direct cast would saturate or be undefined.
    bfloat16 (uint16 bits) goes through float32 both ways: widened exactly, then cast; cast to
    float32 (float64 rounds twice, as torch's), then rounded to bfloat16."""
    def astype(a, dtype):
        small = _small_of(dtype)
        if a.dtype == _BF16 or small == _BF16:
            if a.dtype == small:
                return fn(a, dtype)
            if a.dtype == _BF16:
                wide = be.bf16_to_f32(a)
                return wide if np.dtype(dtype) == _F32 else astype(wide, dtype)
            with np.errstate(over="ignore", invalid="ignore"):
                return be.f32_to_bf16(a if a.dtype == _F32 else fn(a, _F32))
        if small is None:
            return fn(a, dtype)
        with np.errstate(over="ignore", invalid="ignore"):  # as torch: overflow gives inf, wraps
            if small.kind in "iu" and a.dtype.kind == "f":
                return fn(fn(a, np.int64), small)
            return fn(a, dtype)
    astype.__doc__ = fn.__doc__
    return astype


_GRID = {_F16: 2048.0, _BF16: 256.0}  # 2 ** significant bits


def _draw(be, name, fn):
    """rand / randn in half or bfloat16: drawn in float32; uniform draws on the 2**-11 (2**-8)
    grid of [0, 1) that the dtype holds exactly (torch's), so that none rounds up to 1."""
    def draw(shape, dtype):
        small = _small_of(dtype)
        if small not in _GRID:
            return fn(shape, dtype)
        r = fn(shape, np.float32)
        if name == "rand":
            r = be.floor(be.mul(r, _GRID[small]))
            r = be.mul(r, 1.0 / _GRID[small])
        return be.astype(r, small)
    return draw


_BACKENDS = []     # (backend, primitive names) registered by install()
_ACTIVE = [False]  # whether the wrappers are in place


def install(be, names):
    """Register backend be (a module's namespace dict or a backend instance) for wrapping. The
    wrappers go in only once a small dtype is first used (activate()): until then every
    primitive is the backend's own function, and programs that never touch float16 or the
    8/16-bit integers pay nothing for them."""
    _BACKENDS.append((be, tuple(names)))
    if _ACTIVE[0]:
        _wrap_all(be, names)


def activate():
    """Put the wrappers on every registered backend (and on those registered later). Called by
    minigrad.dtypes when a small dtype's NumPy dtype is first asked for, and wherever an array of
    one enters from outside (from_numpy, loading)."""
    if _ACTIVE[0]:
        return
    _ACTIVE[0] = True
    for be, names in _BACKENDS:
        _wrap_all(be, names)


def active():
    return _ACTIVE[0]


def _wrap_all(be, names):
    """Wrap each primitive of `names` on be."""
    if isinstance(be, dict):
        import types
        ns = types.SimpleNamespace(**be)   # the functions as attributes, for the wrappers' casts
        for n in names:
            if n in be:
                be[n] = wrap(ns, n, be[n])
        for n in names:
            setattr(ns, n, be[n])
        return
    for n in names:
        setattr(be, n, wrap(be, n, getattr(be, n)))
