"""The op methods of Tensor (operators, math, reductions, shape, indexing, in-place ops).

Each is a thin call into minigrad/ops, where the op is written once for every backend.
"""
from .autograd.function import apply_unary
from .ops import elementwise as ew, reduce as red, linalg, shape as sh, index as ix, join, nn_ops
from .ops.elementwise import binary, rbinary, compare
from .ops.inplace import inplace, inplace_arith
from .tensor import Tensor, _make


def _dims_arg(dims):
    """f(2, 3) and f((2, 3)) both pass the sizes (2, 3)."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    return tuple(d.__index__() if hasattr(d, "__index__") else d for d in dims)


# ---- arithmetic operators ---------------------------------------------------------
Tensor.__add__ = Tensor.__radd__ = ew.binary_method(ew.Add)  # commutative: no scalar tensor
Tensor.__sub__ = ew.binary_method(ew.Sub)
Tensor.__rsub__ = lambda self, other: ew.rsub(self, other)
Tensor.__mul__ = Tensor.__rmul__ = ew.binary_method(ew.Mul)
Tensor.__truediv__ = ew.binary_method(ew.Div, True)
Tensor.__rtruediv__ = lambda self, other: rbinary(ew.Div, self, other, True)
Tensor.__pow__ = ew.binary_method(ew.Pow)
Tensor.__rpow__ = lambda self, other: rbinary(ew.Pow, self, other)
Tensor.__matmul__ = lambda self, other: _matmul_method(self, other)
Tensor.__rmatmul__ = lambda self, other: NotImplemented
Tensor.__neg__ = ew.unary_method(ew.Neg)
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = lambda self: apply_unary(ew.Abs, self)
Tensor.__invert__ = lambda self: _invert(self)
Tensor.__and__ = lambda self, other: _logical(self, other, "mul")
Tensor.__or__ = lambda self, other: _logical(self, other, "maximum")

Tensor.add = lambda self, other, alpha=1: ew.binary_alpha(ew.Add, self, other, alpha, "add")
Tensor.sub = lambda self, other, alpha=1: ew.binary_alpha(ew.Sub, self, other, alpha, "sub")
Tensor.mul = Tensor.__mul__
Tensor.div = Tensor.__truediv__
Tensor.pow = lambda self, exponent: self.__pow__(exponent)
Tensor.matmul = lambda self, other: linalg.matmul(self, other)
Tensor.mm = lambda self, other: linalg.mm(self, other)
Tensor.bmm = lambda self, other: linalg.bmm(self, other)
Tensor.neg = Tensor.__neg__
Tensor.abs = Tensor.__abs__
Tensor.maximum = lambda self, other: ew.binary(ew.Maximum, self, _tensor_arg(other, "maximum"))
Tensor.minimum = lambda self, other: ew.binary(ew.Minimum, self, _tensor_arg(other, "minimum"))


def _tensor_arg(x, name):
    if not isinstance(x, Tensor):
        from ._typename import typename
        raise TypeError(f"{name}(): argument 'other' must be Tensor, not {typename(type(x))}")
    return x


def _matmul_method(a, b):
    """a @ b for a Tensor a. A NumPy array b counts as a tensor of its dtype, the two promoted (as
    torch does for `tensor @ ndarray`); anything else is left to b's __rmatmul__."""
    if isinstance(b, Tensor):
        return linalg.matmul(a, b)
    if not hasattr(b, "__array_interface__"):
        return NotImplemented
    from .creation import tensor
    from .dtypes import promote_types
    b = tensor(b)
    rd = promote_types(a.dtype, b.dtype)
    return linalg.matmul(a.to(rd), b.to(rd))


def _invert(t):
    if t._data.dtype.kind != "b":
        raise TypeError("~ (bitwise not) is only supported for bool tensors in minigrad")
    return t == False  # noqa: E712  (elementwise, not identity)


def _logical(a, b, prim):
    if not isinstance(b, Tensor) or a._data.dtype.kind != "b" or b._data.dtype.kind != "b":
        raise TypeError("& and | are only supported between bool tensors in minigrad")
    a_, b_ = ew._operands(a, b)
    return _make(getattr(a._device.backend, prim)(a_._data, b_._data), a._device)


# ---- comparisons --------------------------------------------------------------------
for _name, _prim in (("lt", "lt"), ("le", "le"), ("gt", "gt"), ("ge", "ge"), ("eq", "eq"), ("ne", "ne")):
    def _cmp(self, other, _prim=_prim):
        return compare(_prim, self, other)
    setattr(Tensor, f"__{_name}__", _cmp)
    setattr(Tensor, _name, _cmp)
Tensor.__hash__ = lambda self: id(self)


# ---- unary math ---------------------------------------------------------------------
Tensor.exp = lambda self: ew.unary_float(ew.Exp, self)
Tensor.log = lambda self: ew.unary_float(ew.Log, self)
Tensor.sqrt = lambda self: ew.unary_float(ew.Sqrt, self)
Tensor.sin = lambda self: ew.unary_float(ew.Sin, self)
Tensor.cos = lambda self: ew.unary_float(ew.Cos, self)
Tensor.tanh = lambda self: ew.unary_float(ew.Tanh, self)
Tensor.sigmoid = lambda self: ew.unary_float(ew.Sigmoid, self)
Tensor.relu = ew.unary_method(nn_ops.Relu)  # torch's bool check; a connected create_graph backward
Tensor.sign = lambda self: ew.Sign.apply(self)
Tensor.floor = ew.unary_method(ew.Floor)
Tensor.ceil = ew.unary_method(ew.Ceil)
Tensor.trunc = ew.unary_method(ew.Trunc)
Tensor.fix = Tensor.trunc
Tensor.round = lambda self, *, decimals=0: ew.round_op(self, decimals)
Tensor.frac = ew.unary_method(ew.Frac)
Tensor.square = lambda self: self * self
Tensor.clamp = lambda self, min=None, max=None: ew.clamp(self, min, max)
Tensor.where = lambda self, condition, other: ew.where(condition, self, other)
Tensor.clip = Tensor.clamp


# ---- reductions -----------------------------------------------------------------------
# each also takes NumPy's spellings axis= and keepdims=, as torch's do (x.sum(axis=0))
_np = red.numpy_names


def _sum(self, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    if axis is not None or keepdims is not None:
        dim, keepdim = _np("sum", dim, keepdim, axis, keepdims)
    return red.sum(self, dim, keepdim, dtype=dtype)


def _mean(self, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    if axis is not None or keepdims is not None:
        dim, keepdim = _np("mean", dim, keepdim, axis, keepdims)
    return red.mean(self, dim, keepdim, dtype=dtype)


def _reduction(name, default_dim=None):
    fn = getattr(red, name)

    def method(self, dim=default_dim, keepdim=False, *, axis=None, keepdims=None):
        if axis is not None or keepdims is not None:
            dim, keepdim = _np(name, dim, keepdim, axis, keepdims)
        return fn(self, dim, keepdim)
    method.__name__ = name
    return method


def _var_std(name):
    fn = getattr(red, name)

    def method(self, dim=None, unbiased=None, keepdim=False, *, correction=None, axis=None, keepdims=None):
        if axis is not None or keepdims is not None:
            dim, keepdim = _np(name, dim, keepdim, axis, keepdims)
        return fn(self, dim, unbiased, keepdim, correction=correction)
    method.__name__ = name
    return method


def _softmax_method(name):
    fn = getattr(red, name)

    def method(self, dim=None, dtype=None, *, axis=None):
        if axis is not None:
            dim, _ = _np(name, dim, False, axis, None)
        return fn(self, dim, dtype)
    method.__name__ = name
    return method


Tensor.sum = _sum
Tensor.mean = _mean
Tensor.max = _reduction("max")
Tensor.min = _reduction("min")
Tensor.amax = _reduction("amax", ())
Tensor.amin = _reduction("amin", ())
Tensor.argmax = _reduction("argmax")
Tensor.argmin = _reduction("argmin")
Tensor.any = _reduction("any")
Tensor.all = _reduction("all")
Tensor.var = _var_std("var")
Tensor.std = _var_std("std")
Tensor.softmax = _softmax_method("softmax")
Tensor.log_softmax = _softmax_method("log_softmax")
Tensor.norm = lambda self, p="fro", dim=None, keepdim=False, dtype=None: red.norm(self, p, dim, keepdim, dtype)
Tensor.nonzero = lambda self, *, as_tuple=False: ix.nonzero(self, as_tuple)
Tensor.dot = lambda self, other: linalg.dot(self, other)


def _equal(self, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"equal(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return self._data.shape == other._data.shape and bool((self == other).all())


def _isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if not isinstance(other, Tensor):
        raise TypeError(f"isclose(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    if self._data.dtype != other._data.dtype:
        raise RuntimeError(f"{self.dtype._legacy[:-6]} did not match {other.dtype._legacy[:-6]}")
    close = self == other  # also equal infinities, whose difference is nan
    if self._data.dtype.kind == "f":
        a, b = ew.where(close, 0.0, self), ew.where(close, 0.0, other)  # no inf - inf computed
        close = close | ((a - b).abs() <= atol + rtol * b.abs())
        if equal_nan:
            close = close | ((self != self) & (other != other))
    return close


Tensor.equal = _equal
Tensor.isclose = _isclose
Tensor.allclose = lambda self, other, rtol=1e-05, atol=1e-08, equal_nan=False: \
    bool(_isclose(self, other, rtol, atol, equal_nan).all())


# ---- shape ----------------------------------------------------------------------------
Tensor.reshape = lambda self, *shape: sh.reshape(self, _dims_arg(shape))
Tensor.view = lambda self, *shape: sh.view(self, _dims_arg(shape))
Tensor.flatten = lambda self, start_dim=0, end_dim=-1: sh.flatten(self, start_dim, end_dim)
Tensor.squeeze = lambda self, dim=None: sh.squeeze(self, dim)
Tensor.unsqueeze = lambda self, dim: sh.unsqueeze(self, dim)
Tensor.transpose = lambda self, dim0, dim1: sh.transpose(self, dim0, dim1)
Tensor.swapaxes = Tensor.swapdims = Tensor.transpose
Tensor.t = lambda self: sh.t(self)
Tensor.T = property(lambda self: sh.permute(self, tuple(range(self._data.ndim))[::-1]))
Tensor.mT = property(lambda self: sh.transpose(self, -2, -1))
Tensor.permute = lambda self, *dims: sh.permute(self, tuple(_dims_arg(dims)))
Tensor.expand = lambda self, *sizes: sh.expand(self, tuple(_dims_arg(sizes)))
Tensor.expand_as = lambda self, other: sh.expand(self, other._data.shape)
Tensor.reshape_as = lambda self, other: sh.reshape(self, other._data.shape)
Tensor.view_as = lambda self, other: sh.view(self, other._data.shape)
Tensor.contiguous = lambda self: sh.contiguous(self)
Tensor.is_contiguous = lambda self: self._device.backend.is_contiguous(self._data)
Tensor.clone = lambda self: sh.Clone.apply(self)
Tensor.split = lambda self, split_size, dim=0: join.split(self, split_size, dim)
Tensor.chunk = lambda self, chunks, dim=0: join.chunk(self, chunks, dim)
Tensor.__getitem__ = lambda self, index: ix.getitem(self, index)


def _setitem(self, index, value):
    ix.setitem(self, index, value)


Tensor.__setitem__ = _setitem


# ---- in-place ------------------------------------------------------------------------------
def _add_(self, other, alpha=1):
    return inplace_arith(self, "add", ew.Add, other if alpha == 1 else other * alpha)


def _sub_(self, other, alpha=1):
    return inplace_arith(self, "sub", ew.Sub, other if alpha == 1 else other * alpha)


Tensor.add_ = _add_
Tensor.sub_ = _sub_
Tensor.mul_ = lambda self, other: inplace_arith(self, "mul", ew.Mul, other)
Tensor.div_ = lambda self, other: inplace_arith(self, "div", ew.Div, other, True)
Tensor.clamp_ = lambda self, min=None, max=None: inplace(self, lambda t: ew.clamp(t, min, max))
Tensor.masked_fill = lambda self, mask, value: ew.masked_fill(self, mask, value)
Tensor.masked_fill_ = lambda self, mask, value: inplace(self, lambda t: ew.masked_fill(t, mask, value),
                                                        value if isinstance(value, Tensor) else None)
Tensor.clip_ = Tensor.clamp_
Tensor.__iadd__ = _add_
Tensor.__isub__ = _sub_
Tensor.__imul__ = Tensor.mul_
Tensor.__itruediv__ = Tensor.div_


def _zero_(self):
    return _fill(self, 0, ew.Zero)


def _fill_(self, value):
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions.")
    return _fill(self, value, ew.Fill)


def _fill(self, value, cls):
    if not isinstance(value, Tensor):
        value = _make(self._device.backend.full((), value, self._data.dtype), self._device)
    src = value.to(self._device)
    return inplace(self, lambda t: cls.apply(t, src), src)


def _copy_(self, src, non_blocking=False):
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
    from .ops.broadcast import broadcast_shape
    shape = broadcast_shape(self._data.shape, src._data.shape)
    if shape != self._data.shape:
        raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                           f"{list(shape)}")
    moved = src.to(self._device)
    return inplace(self, lambda t: ew.Overwrite.apply(t, moved), moved)


Tensor.zero_ = _zero_
Tensor.fill_ = _fill_
Tensor.copy_ = _copy_


def _type_as(self, other):
    return self.to(other.dtype)


Tensor.type_as = _type_as


def _new_factory(name):
    def new(self, *args, dtype=None, device=None, requires_grad=False):
        from . import creation
        return getattr(creation, name)(*args, dtype=dtype or self.dtype, device=device or self._device,
                                       requires_grad=requires_grad)
    new.__name__ = "new_" + name
    return new


Tensor.new_zeros = _new_factory("zeros")
Tensor.new_ones = _new_factory("ones")
Tensor.new_full = _new_factory("full")
Tensor.new_empty = _new_factory("empty")
Tensor.new_tensor = _new_factory("tensor")
