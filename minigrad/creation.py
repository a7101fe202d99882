"""Creating tensors: tensor, from_numpy, zeros/ones/full/empty, arange, linspace, eye, random."""
import numpy as np

from . import dtypes as _dt
from .devices import canonical, CPU
from .tensor import Tensor, _make, _normalize_shape


def _finish(data, device, requires_grad):
    t = _make(data, device)
    if requires_grad:
        t.requires_grad = True  # validates: only floating point tensors may require grad
    return t


def _kinds(data):
    """What decides data's dtype, element by element (see _leaf_kinds), for Python data."""
    kinds = set()
    if isinstance(data, (list, tuple)):
        _leaf_kinds(data, kinds)
    else:
        kinds.add(data.__class__)
    return kinds


def _leaf_kinds(seq, acc):
    """Adds to acc what decides the dtype of each element of the nested sequence seq: the type
    of a Python or NumPy scalar, the dtype of an array or tensor."""
    kinds = set(map(type, seq))
    if list in kinds or tuple in kinds or Tensor in kinds or np.ndarray in kinds:
        for x in seq:
            c = x.__class__
            if c is list or c is tuple:
                _leaf_kinds(x, acc)
            elif isinstance(x, (Tensor, np.ndarray)):
                acc.add(x.dtype)
            else:
                acc.add(c)
    else:
        acc |= kinds


def _kind_dtype(k):
    if k is float:
        return _dt.get_default_dtype()
    if k is int:
        return _dt.int64
    if k is bool:
        return _dt.bool_
    if isinstance(k, _dt.dtype):
        return k
    if isinstance(k, np.dtype) or (isinstance(k, type) and issubclass(k, np.generic)):
        return _dt.from_numpy_dtype(np.dtype(k))
    return None


def _infer_dtype(host, data, kinds):
    """torch.tensor's dtype inference: NumPy arrays and tensors keep their dtype; Python numbers
    give bool, int64 or the default float; NumPy scalars and tensors inside a sequence keep
    theirs; a sequence takes the promotion of its elements' dtypes (torch's infer_scalar_type,
    so [np.float64(1), 2] is float64 and [1.5, np.float64(2)] float64 too)."""
    if kinds is None:  # a NumPy array or a tensor
        return _dt.from_numpy_dtype(host.dtype)
    if kinds and not kinds <= {float, int, bool}:
        result = None
        for k in kinds:
            d = _kind_dtype(k)
            if d is None:
                break
            result = d if result is None else _dt.promote_types(result, d)
        else:
            return result
    kind = host.dtype.kind
    if kind == "b":
        return _dt.bool_
    if kind in "iu":
        return _dt.int64
    if kind == "f":
        return _dt.get_default_dtype()
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def _host_array(data):
    if isinstance(data, Tensor):
        return data.detach().cpu()._data
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        data = [_host_array(x) for x in data]
    try:
        arr = np.asarray(data)
    except ValueError:
        raise ValueError(_ragged_message(data)) from None
    if arr.dtype == object:
        raise TypeError(f"can't convert {type(data).__name__} of mixed or non-numeric elements to a tensor")
    return arr


def _ragged_message(data):
    """torch's message for a nested list whose rows differ in length, found breadth-first."""
    level, dim = [data], 0
    while level:
        lengths = [len(x) for x in level if isinstance(x, (list, tuple))]
        if lengths and (len(lengths) != len(level) or len(set(lengths)) > 1):
            want = lengths[0]
            got = next((len(x) if isinstance(x, (list, tuple)) else 0) for x in level
                       if not isinstance(x, (list, tuple)) or len(x) != want)
            return f"expected sequence of length {want} at dim {dim} (got {got})"
        level = [y for x in level if isinstance(x, (list, tuple)) for y in x]
        dim += 1
    return "expected a rectangular nested sequence of numbers"


def _check_int_range(data, kinds):
    """torch's error for Python integers outside int64 in data without floats (NumPy would make
    them uint64 or objects, or wrap them)."""
    if int in kinds and float not in kinds:
        flat = [data] if data.__class__ is int else data
        stack = [flat]
        while stack:
            for x in stack.pop():
                c = x.__class__
                if c is int and not -(1 << 63) <= x < (1 << 63):
                    raise ValueError("Overflow when unpacking long long")
                if c is list or c is tuple:
                    stack.append(x)


_NUMPY_BOOLS = (np.bool_, np.dtype(np.bool_))


def _check_numpy_bools(kinds):
    """torch's error for NumPy bools (scalars, or the elements of a bool array inside a list) in
    data becoming an integer tensor, kinds being what decides data's dtype (_kinds): torch
    converts them one by one, through __index__, which NumPy's bool does not have (Python's
    bool, and a bool array as a whole, convert fine)."""
    if _NUMPY_BOOLS[0] in kinds or _NUMPY_BOOLS[1] in kinds:
        from ._typename import tp_name
        raise TypeError(f"'{tp_name(np.True_)}' object cannot be interpreted as an integer")


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    kinds = None
    if not isinstance(data, (np.ndarray, Tensor)):
        kinds = _kinds(data)
        try:
            host = _host_array(data)
        except (TypeError, OverflowError):
            _check_int_range(data, kinds)
            raise
        if host.dtype.kind in "uf":
            _check_int_range(data, kinds)
    else:
        host = _host_array(data)
    dtype = _infer_dtype(host, data, kinds) if dtype is None else _dt.to_dtype(dtype)
    if kinds is not None and dtype._category == 1:  # an integer dtype
        _check_numpy_bools(kinds)
    dev = canonical(device)
    return _finish(dev.backend.asarray(host.astype(dtype.np, copy=False)), dev, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Like tensor(), but without a copy where none is needed: a tensor already of that dtype and
    device is returned as is, and a NumPy array of that dtype on the CPU shares its memory."""
    if isinstance(data, Tensor):
        return data if dtype is None and device is None else data.to(device=device, dtype=dtype)
    if (isinstance(data, np.ndarray) and canonical(device) is CPU
            and (dtype is None or _dt.to_dtype(dtype).np == data.dtype)):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array):
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dt.from_numpy_dtype(array.dtype)
    return _make(array, CPU)  # shares memory both ways, as torch does


def _factory(args, dtype, device, default):
    shape = _normalize_shape(args)
    d = _dt.to_dtype(dtype) if dtype is not None else default
    return shape, d, canonical(device)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    shape, d, dev = _factory(size, dtype, device, _dt.get_default_dtype())
    return _finish(dev.backend.zeros(shape, d.np), dev, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    shape, d, dev = _factory(size, dtype, device, _dt.get_default_dtype())
    return _finish(dev.backend.ones(shape, d.np), dev, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False):
    shape, d, dev = _factory(size, dtype, device, _dt.get_default_dtype())
    return _finish(dev.backend.empty(shape, d.np), dev, requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    shape, d, dev = _factory((size,), dtype, device, _dt.scalar_dtype(fill_value))
    return _finish(dev.backend.full(shape, fill_value, d.np), dev, requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (vals[1] - vals[0]) * vals[2] < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dtype = _dt.get_default_dtype() if any(isinstance(v, float) for v in vals) else _dt.int64
    d = _dt.to_dtype(dtype)
    dev = canonical(device)
    return _finish(dev.backend.arange(*vals, d.np), dev, requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    dev = canonical(device)
    return _finish(dev.backend.linspace(start, end, steps, d.np), dev, requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    d = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    dev = canonical(device)
    return _finish(dev.backend.eye(n, n if m is None else m, d.np), dev, requires_grad)


def _float_dtype(dtype, name):
    d = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if not d.is_floating_point:
        raise RuntimeError(f"\"{name}\" not implemented for '{d._legacy[:-6]}'")
    return d


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None):
    shape, _, dev = _factory(size, None, device, None)
    d = _float_dtype(dtype, "check_uniform_bounds")
    return _finish(dev.backend.rand(shape, d.np), dev, requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None):
    shape, _, dev = _factory(size, None, device, None)
    d = _float_dtype(dtype, "normal_kernel_cpu")
    return _finish(dev.backend.randn(shape, d.np), dev, requires_grad)


def randint(low, high=None, size=None, dtype=None, device=None, requires_grad=False, generator=None):
    if size is None:
        if high is None:
            raise TypeError("randint() missing required argument 'size'")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    shape, d, dev = _factory((size,), dtype, device, _dt.int64)
    return _finish(dev.backend.randint(low, high, shape, d.np), dev, requires_grad)


def _like(fn, t, dtype, device, requires_grad, *extra):
    return fn(*extra, dtype=dtype if dtype is not None else t.dtype,
              device=device if device is not None else t._device, requires_grad=requires_grad)


def zeros_like(input, dtype=None, device=None, requires_grad=False):
    return _like(lambda **k: zeros(input._data.shape, **k), input, dtype, device, requires_grad)


def ones_like(input, dtype=None, device=None, requires_grad=False):
    return _like(lambda **k: ones(input._data.shape, **k), input, dtype, device, requires_grad)


def empty_like(input, dtype=None, device=None, requires_grad=False):
    return _like(lambda **k: empty(input._data.shape, **k), input, dtype, device, requires_grad)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False):
    return _like(lambda **k: full(input._data.shape, fill_value, **k), input, dtype, device, requires_grad)


def rand_like(input, dtype=None, device=None, requires_grad=False):
    return _like(lambda **k: rand(input._data.shape, **k), input, dtype, device, requires_grad)


def randn_like(input, dtype=None, device=None, requires_grad=False):
    return _like(lambda **k: randn(input._data.shape, **k), input, dtype, device, requires_grad)


def randint_like(input, low=0, high=None, dtype=None, device=None, requires_grad=False):
    if high is None:
        low, high = 0, low
    return _like(lambda **k: randint(low, high, input._data.shape, **k), input, dtype, device, requires_grad)


class Generator:
    """torch.Generator for host-side randomness (shuffling, random_split, initializers):
    `Generator().manual_seed(42)` gives a reproducible stream independent of the global seed."""

    def __init__(self, device="cpu"):
        import numpy as np
        self.device = canonical(device)
        self._seed = int(np.random.SeedSequence().entropy % (2 ** 63))
        self._rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed):
        import numpy as np
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed)
        return self

    def seed(self):
        import random
        return self.manual_seed(random.randrange(2 ** 63)).initial_seed()

    def initial_seed(self):
        return self._seed

    def randperm(self, n):
        """A NumPy int64 permutation of range(n) drawn from this generator."""
        return self._rng.permutation(n)


def _global_generator():
    """The Generator that manual_seed reseeds, used when no generator is passed."""
    return _DEFAULT_GENERATOR


def manual_seed(seed):
    from . import cuda
    seed = int(seed)
    CPU.backend.seed(seed)
    _DEFAULT_GENERATOR.manual_seed(seed)
    if cuda.is_available():
        cuda.manual_seed_all(seed)
    return _DEFAULT_GENERATOR


def seed():
    import random
    s = random.randrange(2 ** 63)
    manual_seed(s)
    return s


_DEFAULT_GENERATOR = Generator()
default_generator = _DEFAULT_GENERATOR


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0..n-1 (int64 by default), from generator or the global seed."""
    gen = generator if generator is not None else _DEFAULT_GENERATOR
    d = _dt.to_dtype(dtype) if dtype is not None else _dt.int64
    dev = canonical(device)
    return _finish(dev.backend.asarray(gen.randperm(int(n)).astype(d.np)), dev, requires_grad)
