"""torch's sampling functions: bernoulli, multinomial, normal, poisson, and the in-place fills
random_, exponential_, geometric_, cauchy_, log_normal_.

Every draw is made from the backend's uniform / normal / integer / Poisson primitives (or, with
generator=, from that minigrad.Generator on the host) and transformed with elementwise math, so
nothing here needs a kernel of its own. As in torch, samples are not differentiable: a sample
of tensor parameters is recorded (BernoulliBackward0, NormalBackward3, ...) and gives those
parameters zero gradients; the in-place fills give the overwritten tensor a zero gradient.
"""
import math
from numbers import Number

from .._arg_errors import _format_invalid_args, type_name
from ..autograd.grad_mode import no_grad
from ..dtypes import cpp_name, float64, int64
from ..tensor import Tensor, _make
from .broadcast import broadcast_shape
from .elementwise import Builtin, Overwrite, device_error
from .inplace import inplace

_GEN = "minigrad.Generator generator = None"


# ---- draws ----------------------------------------------------------------------------------------

def _check_generator(generator, name):
    from ..creation import Generator
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"{name}(): argument 'generator' must be minigrad.Generator, not {type_name(generator)}")


def _uniform(dev, shape, dtype, generator):
    """Uniform [0, 1) draws of shape and dtype on dev, from generator (on the host) or dev's own."""
    be = dev.backend
    if generator is not None:
        return be.asarray(generator._draw("uniform", shape, dtype))
    return be.rand(shape, dtype)


def _normal(dev, shape, dtype, generator):
    be = dev.backend
    if generator is not None:
        return be.asarray(generator._draw("normal", shape, dtype))
    return be.randn(shape, dtype)


def _integers(dev, low, high, shape, dtype, generator):
    be = dev.backend
    if generator is not None:
        return be.asarray(generator._draw("integers", shape, dtype, low, high))
    return be.randint(low, high, shape, dtype)


def _open_uniform(dev, shape, dtype, generator):
    """Uniform (0, 1] draws: 1 - u, so a logarithm of one is finite."""
    be = dev.backend
    return be.sub(1.0, _uniform(dev, shape, dtype, generator))


class _Sample(Builtin):
    """values (an array drawn on device) as the sample of the tensor parameters params: each
    parameter that requires grad gets a zero gradient, as derivatives.yaml gives torch's."""

    @staticmethod
    def forward(ctx, values, device, *params):
        ctx.shapes = tuple(p._data.shape if isinstance(p, Tensor) else None for p in params)
        return _make(values, device)

    @staticmethod
    def backward(ctx, g):
        from ..creation import zeros
        grads = [zeros(s, dtype=g.dtype, device=g.device) if need else None
                 for s, need in zip(ctx.shapes, ctx.needs_input_grad[2:])]
        return (None, None, *grads)


class BernoulliSample(_Sample):
    _node_name = "BernoulliBackward0"


class NormalTensorFloat(_Sample):
    _node_name = "NormalBackward1"


class NormalFloatTensor(_Sample):
    _node_name = "NormalBackward2"


class NormalTensorTensor(_Sample):
    _node_name = "NormalBackward3"


class PoissonSample(_Sample):
    _node_name = "PoissonBackward0"


class BernoulliScalar(Builtin):
    """bernoulli(input, p): torch records it without a derivative."""
    _node_name = "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, values, device, input):
        return _make(values, device)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::bernoulli is not implemented")


# ---- bernoulli, multinomial, normal, poisson ---------------------------------------------------------

def _input(x, name, arg="input", position=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, not {type_name(x)}")
    return x


def _all(cond):
    """Whether every element of the bool tensor cond is True (a host read of one value)."""
    return bool(cond.all().item())


_P_IN_RANGE = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
               "improved?  If so, please report an enhancement request to PyTorch.)")


def bernoulli(input, *args, generator=None, **kwargs):
    """torch.bernoulli(input, *, generator=None) and torch.bernoulli(input, p, *, generator=None)."""
    _input(input, "bernoulli")
    if "p" in kwargs:
        args = args + (kwargs.pop("p"),)
    from ..creation import Generator
    if kwargs or len(args) > 1 or (args and not isinstance(args[0], (Number, Tensor))) \
            or (args and isinstance(args[0], Tensor) and args[0]._data.size != 1) \
            or (generator is not None and not isinstance(generator, Generator)):
        if generator is not None:
            kwargs = dict(kwargs, generator=generator)
        raise TypeError(_format_invalid_args((input,) + args, kwargs, "bernoulli()", [
            f"(Tensor input, *, {_GEN}, Tensor out = None)", f"(Tensor input, float p, *, {_GEN})"]))
    dev, be = input._device, input._device.backend
    shape, dtype = input._data.shape, input._data.dtype
    if args:  # a probability p for every element
        p = args[0].item() if isinstance(args[0], Tensor) else args[0]
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
        values = be.astype(be.lt(_uniform(dev, shape, "float64", generator), float(p)), dtype)
        return BernoulliScalar.apply(values, dev, input)
    if dtype.kind != "f":
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{input.dtype._legacy[:-6]}'")
    with no_grad():
        probs = input.detach()
        if not _all((probs >= 0) & (probs <= 1)):  # nan fails too
            raise RuntimeError(_P_IN_RANGE)
    values = be.astype(be.lt(_uniform(dev, shape, dtype, generator), input._data), dtype)
    return BernoulliSample.apply(values, dev, input)


def _multinomial_check_rows(w):
    """torch's row-by-row checks of the with-replacement path, for a 2-d host list of weights:
    the first bad entry of the first bad row, else that row's sum."""
    for row in w:
        for v in row:
            if not v >= 0:  # nan too
                raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
            if not math.isfinite(v):
                raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity "
                                   "or NaN)")
        if not sum(row) > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def multinomial(input, num_samples, replacement=False, *, generator=None):
    _input(input, "multinomial")
    if not hasattr(num_samples, "__index__") or isinstance(num_samples, Tensor):
        raise TypeError(f"multinomial(): argument 'num_samples' (position 2) must be int, not "
                        f"{type_name(num_samples)}")
    if not isinstance(replacement, bool):
        raise TypeError(f"multinomial(): argument 'replacement' (position 3) must be bool, not "
                        f"{type_name(replacement)}")
    _check_generator(generator, "multinomial")
    n = int(num_samples)
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{input.dtype._legacy[:-6]}")
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    k = input.shape[-1]
    if not replacement and n > k:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if k > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    dev = input._device
    from ..creation import empty
    shape = (n,) if input.dim() == 1 else (input.shape[0], n)
    if shape[0] * (shape[-1] if len(shape) == 2 else 1) == 0:
        return empty(shape, dtype=int64, device=dev)
    with no_grad():
        w = input.detach().to(float64)
        rows = w.reshape(1, k) if w.dim() == 1 else w
        if not replacement or n == 1:  # torch checks all the weights at once here
            if k == 0:
                raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                                   "has no identity.")
            if not _all((w < math.inf) & (w >= 0)):
                raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
            if not _all(rows.sum(-1) != 0):
                raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
            # torch's algorithm: the n largest w / Exp(1) keys are successive draws without
            # replacement; zero weights come last, in index order (a stable sort)
            q = -_make(dev.backend.log(_open_uniform(dev, tuple(w.shape), "float64", generator)), dev)
            keys = (w / q).where(w > 0, 0.0)
            return keys.sort(dim=-1, descending=True, stable=True)[1][..., :n].contiguous()
        if k == 0 or not (_all((w >= 0) & (w < math.inf)) and _all(rows.sum(-1) > 0)):
            _multinomial_check_rows(rows.tolist() if k else [[]])
        # with replacement: the first category whose cumulative weight exceeds a uniform draw
        from .search import searchsorted
        cdf = w.cumsum(-1)
        u = _make(_uniform(dev, shape, "float64", generator), dev) * cdf[..., -1:]
        return searchsorted(cdf, u, right=True).clamp_(max=k - 1)


_NORMAL_OPTIONS = [f"(Tensor mean, Tensor std, *, {_GEN}, Tensor out = None)",
                   f"(Tensor mean, float std = 1, *, {_GEN}, Tensor out = None)",
                   f"(float mean, Tensor std, *, {_GEN}, Tensor out = None)",
                   f"(float mean, float std, tuple of ints size, *, {_GEN}, Tensor out = None, "
                   "minigrad.dtype dtype = None, minigrad.layout layout = None, minigrad.device device = None, "
                   "bool pin_memory = False, bool requires_grad = False)"]
_NOT_GIVEN = object()


def _is_number(x):
    return isinstance(x, Number) and not isinstance(x, (bool, complex))


def normal(mean, std=_NOT_GIVEN, size=_NOT_GIVEN, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    """torch.normal's four overloads: (Tensor mean, Tensor std), (Tensor mean, float std=1),
    (float mean, Tensor std), (float mean, float std, size, *, dtype, device, requires_grad)."""
    factory = {k: v for k, v in (("dtype", dtype), ("layout", layout), ("device", device)) if v is not None}
    factory.update({k: v for k, v in (("pin_memory", pin_memory), ("requires_grad", requires_grad)) if v})
    args = tuple(a for a in (mean, std, size) if a is not _NOT_GIVEN)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    ok = (size is _NOT_GIVEN and not factory and out is None
          and ((mt and (st or std is _NOT_GIVEN or _is_number(std))) or (_is_number(mean) and st)))
    if not ok and _is_number(mean) and _is_number(std) and size is not _NOT_GIVEN and out is None:
        ok = True
    if not ok:
        kwargs = {k: v for k, v in (("generator", generator), ("out", out)) if v is not None}
        raise TypeError(_format_invalid_args(args, dict(kwargs, **factory), "normal()", _NORMAL_OPTIONS))
    _check_generator(generator, "normal")
    if not mt and not st:  # normal(mean, std, size, ...)
        from ..creation import _factory, _finish, _float_dtype
        shp, _, dev = _factory((size,), None, device, None, "normal")
        d = _float_dtype(dtype, "normal_kernel_cpu")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        be = dev.backend
        values = be.add(be.mul(_normal(dev, shp, d.np, generator), float(std)), float(mean))
        return _finish(values, dev, requires_grad)
    if std is _NOT_GIVEN:
        std = 1.0
    if mt and st:
        if mean._device is not std._device:
            raise device_error(mean, std)
        shape = broadcast_shape(mean._data.shape, std._data.shape)
        ref, cls = mean, NormalTensorTensor
    else:
        shape = (mean if mt else std)._data.shape
        ref, cls = (mean, NormalTensorFloat) if mt else (std, NormalFloatTensor)
    if st:
        with no_grad():
            if not _all(std.detach() >= 0):
                raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    for t in (mean, std):
        if isinstance(t, Tensor) and not t.dtype.is_floating_point:
            raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{t.dtype._legacy[:-6]}'")
    dev, be = ref._device, ref._device.backend
    dt = ref._data.dtype
    m = be.astype(mean._data, dt) if mt else float(mean)
    s = be.astype(std._data, dt) if st else float(std)
    values = be.add(be.mul(_normal(dev, shape, dt, generator), s), m)
    if values.shape != shape:  # a 0-d operand and a Python number leave a 0-d result
        values = be.broadcast_to(values, shape)
    params = (mean, std) if cls is NormalTensorTensor else (ref,)
    return cls.apply(be.astype(values, dt), dev, *params)


def poisson(input, generator=None):
    _input(input, "poisson")
    _check_generator(generator, "poisson")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{input.dtype._legacy[:-6]}'")
    dev, be = input._device, input._device.backend
    with no_grad():
        rates = input.detach()
        if not _all(rates >= 0):  # nan fails too
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        infinite = rates == math.inf
        has_inf = bool(infinite.any().item())
        if has_inf:
            rates = rates.masked_fill(infinite, 0.0)
    lam = rates._data
    values = be.asarray(generator._poisson(be.to_numpy(lam))) if generator is not None else be.poisson(lam)
    if has_inf:  # torch's CPU kernel casts an infinite count to int64's minimum
        values = be.where(infinite._data, be.astype(be.full((), -2.0 ** 63, "float64"), values.dtype), values)
    return PoissonSample.apply(values, dev, input)


# ---- in-place fills ---------------------------------------------------------------------------------

class RandomFromTo(Overwrite):
    _node_name = "RandomBackward0"


class RandomTo(Overwrite):
    _node_name = "RandomBackward1"


class RandomFull(Overwrite):
    _node_name = "RandomBackward2"


class Exponential(Overwrite):
    _node_name = "ExponentialBackward0"


class Geometric(Overwrite):
    _node_name = "GeometricBackward0"


class Cauchy(Overwrite):
    _node_name = "CauchyBackward0"


class LogNormal(Overwrite):
    _node_name = "LogNormalBackward0"


def _fill(t, cls, values):
    src = _make(values, t._device)
    return inplace(t, lambda x: cls.apply(x, src))


_FLOAT_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def _max_value(t):
    """The largest value random_ draws for t's dtype by default: 2^digits for floats (every integer
    below it is exact), the dtype's maximum for integers, 1 for bools."""
    name = t.dtype.name
    if name in _FLOAT_DIGITS:
        return 2 ** _FLOAT_DIGITS[name]
    if name == "bool":
        return 1
    bits = t._data.dtype.itemsize * 8
    return (1 << bits) - 1 if t._data.dtype.kind == "u" else (1 << (bits - 1)) - 1


def _min_value(t):
    if t.dtype.name in _FLOAT_DIGITS:
        return -(2 ** _FLOAT_DIGITS[t.dtype.name])
    if t._data.dtype.kind in "ub":
        return 0
    return -(1 << (t._data.dtype.itemsize * 8 - 1))


def _check_bound(t, value, what):
    import warnings
    lo, hi = _min_value(t), _max_value(t)
    if lo <= value <= hi:
        return
    if t.dtype.name in _FLOAT_DIGITS:  # torch warns: floats hold every integer only within this range
        e = _FLOAT_DIGITS[t.dtype.name]
        warnings.warn(f"{what} is out of bounds [-(2^{e}), 2^{e}]. Due to precision limitations "
                      f"{cpp_name(t.dtype).replace('c10::Half', 'half')} can support discrete uniform distribution "
                      "only within this range. This warning will become an error in version 1.7 release, please "
                      "fix the code in advance", UserWarning, stacklevel=3)
        return
    raise RuntimeError(f"{what} is out of bounds for {cpp_name(t.dtype)}")


def _int_arg(x):
    if hasattr(x, "__index__") and not isinstance(x, Tensor):
        v = int(x)
        if not -(1 << 63) <= v < (1 << 63):
            raise ValueError("Overflow when unpacking long long")
        return v
    return None


_RANDOM_OPTIONS = [f"(*, {_GEN})", f"(int from, int to, *, {_GEN})", f"(int to, *, {_GEN})"]


def random_(t, *args, generator=None, **kwargs):
    """Tensor.random_(from, to) / random_(to) / random_(): integers drawn uniformly from [from, to),
    [0, to), or [0, the dtype's largest value] (2^mantissa digits for floats)."""
    if len(args) == 1 and kwargs:  # random_(0, to=5): the first is from
        given = {"from": args[0]}
    else:
        given = dict(zip(("from", "to"), args)) if len(args) == 2 else ({"to": args[0]} if args else {})
    bad = len(args) > 2 or any(k not in ("from", "to") or k in given for k in kwargs)
    given.update(kwargs)
    ints = {k: (v if v is None and k == "to" else _int_arg(v)) for k, v in given.items()}
    if bad or any(v is None and given[k] is not None for k, v in ints.items()) or set(given) == {"from"}:
        raise TypeError(_format_invalid_args(args, kwargs, "random_()", _RANDOM_OPTIONS))
    _check_generator(generator, "random_")
    if "from" in ints:
        low, high, cls = ints["from"], ints.get("to"), RandomFromTo
        if high is None:
            high = _max_value(t) + 1
            _check_bound(t, low, "from")
        else:
            if low >= high:
                raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
            _check_bound(t, low, "from")
            _check_bound(t, high - 1, "to - 1")
    elif "to" in ints:
        low, high, cls = 0, ints["to"], RandomTo
        if high <= 0:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from=0 >= to={high}")
        _check_bound(t, high - 1, "to - 1")
    else:
        low, high, cls = 0, _max_value(t) + 1, RandomFull
    values = _integers(t._device, low, high, t._data.shape, t._data.dtype, generator)
    return _fill(t, cls, values)


def _continuous(t, name, legacy=True):
    if not t.dtype.is_floating_point:
        kind = t.dtype._legacy[:-6] if legacy else cpp_name(t.dtype)
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {kind}")


def exponential_(t, lambd=1.0, *, generator=None):
    _check_generator(generator, "exponential_")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    _continuous(t, "Exponential")
    dev, be = t._device, t._device.backend
    e = be.neg(be.log(_open_uniform(dev, t._data.shape, t._data.dtype, generator)))  # Exp(1), >= 0
    return _fill(t, Exponential, be.div(e, float(lambd)))


def geometric_(t, p=_NOT_GIVEN, *, generator=None):
    if p is _NOT_GIVEN:
        raise TypeError('geometric_() missing 1 required positional arguments: "p"')
    _check_generator(generator, "geometric_")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if t.dtype.name == "bool":
        raise NotImplementedError("\"geometric_cpu\" not implemented for 'Bool'")
    dev, be = t._device, t._device.backend
    u = _open_uniform(dev, t._data.shape, "float64", generator)
    k = be.maximum(be.ceil(be.div(be.log(u), math.log1p(-p))), 1.0)  # trials until the first success
    return _fill(t, Geometric, be.astype(k, t._data.dtype))


def cauchy_(t, median=0.0, sigma=1.0, *, generator=None):
    _check_generator(generator, "cauchy_")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    _continuous(t, "Cauchy", legacy=False)
    dev, be = t._device, t._device.backend
    u = _uniform(dev, t._data.shape, t._data.dtype, generator)
    x = be.tan(be.mul(be.sub(u, 0.5), math.pi))
    return _fill(t, Cauchy, be.add(be.mul(x, float(sigma)), float(median)))


def log_normal_(t, mean=1.0, std=2.0, *, generator=None):
    _check_generator(generator, "log_normal_")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if not t.dtype.is_floating_point:
        raise NotImplementedError(f"\"log_normal_cpu\" not implemented for '{t.dtype._legacy[:-6]}'")
    dev, be = t._device, t._device.backend
    z = _normal(dev, t._data.shape, t._data.dtype, generator)
    return _fill(t, LogNormal, be.exp(be.add(be.mul(z, float(std)), float(mean))))


# ---- the Tensor methods and torch.* functions --------------------------------------------------------

def _bernoulli_method(self, *args, generator=None, **kwargs):
    return bernoulli(self, *args, generator=generator, **kwargs)


METHODS = {
    "bernoulli": _bernoulli_method,
    "multinomial": lambda self, num_samples, replacement=False, *, generator=None: multinomial(
        self, num_samples, replacement, generator=generator),
    "random_": random_, "exponential_": exponential_, "geometric_": geometric_, "cauchy_": cauchy_,
    "log_normal_": log_normal_,
}

FUNCTIONS = {"bernoulli": bernoulli, "multinomial": multinomial, "normal": normal, "poisson": poisson}


def install(cls):
    """Put the methods on Tensor (called once by minigrad/tensor_methods.py)."""
    for name, fn in METHODS.items():
        setattr(cls, name, fn)
