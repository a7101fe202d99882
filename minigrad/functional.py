"""The torch.* function forms of the Tensor ops (minigrad.exp(x), minigrad.cat([...]), ...)."""
from . import dtypes as _dt
from .ops import elementwise as _ew, join as _join, linalg as _linalg, nn_ops as _nn_ops
from .ops.reduce import numpy_names as _np
from .tensor import Tensor


def _t(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    return x


def add(input, other, *, alpha=1):
    return _t(input, "add").add(other, alpha=alpha)


def sub(input, other, *, alpha=1):
    return _t(input, "sub").sub(other, alpha=alpha)


def rsub(input, other, *, alpha=1):
    return _ew.rsub_alpha(_t(input, "rsub"), other, alpha)


def mul(input, other):
    return _t(input, "mul") * other


def div(input, other):
    return _t(input, "div") / other


def pow(input, exponent):
    if not isinstance(input, Tensor):
        return exponent.__rpow__(input)
    return input ** exponent


def _unary(name):
    def fn(input):
        return getattr(_t(input, name), name)()
    fn.__name__ = name
    return fn


neg, abs, exp, log, sqrt = _unary("neg"), _unary("abs"), _unary("exp"), _unary("log"), _unary("sqrt")
sin, cos, tanh, sigmoid = _unary("sin"), _unary("cos"), _unary("tanh"), _unary("sigmoid")


def relu(input):
    return _nn_ops.relu(_t(input, "relu"))  # torch's bool check, and a connected double backward
square = _unary("square")
floor, ceil, trunc, fix, frac = _unary("floor"), _unary("ceil"), _unary("trunc"), _unary("fix"), _unary("frac")
sign = _unary("sign")


def round(input, *, decimals=0):
    return _t(input, "round").round(decimals=decimals)


def clamp(input, min=None, max=None):
    return _ew.clamp(_t(input, "clamp"), min, max)


clip = clamp


def maximum(input, other):
    return _t(input, "maximum").maximum(other)


def minimum(input, other):
    return _t(input, "minimum").minimum(other)


def where(condition, input=None, other=None):
    if input is None and other is None:  # where(condition) is nonzero(condition, as_tuple=True)
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() received an invalid combination of arguments - got (Tensor, Tensor), but "
                        "expected one of:\n * (Tensor condition)\n * (Tensor condition, Tensor input, "
                        "Tensor other, *, Tensor out = None)")
    return _ew.where(condition, input, other)


def nonzero(input, *, as_tuple=False):
    return _t(input, "nonzero").nonzero(as_tuple=as_tuple)


def masked_fill(input, mask, value):
    return _t(input, "masked_fill").masked_fill(mask, value)


def _cmp(name):
    def fn(input, other):
        return getattr(_t(input, name), name)(other)
    fn.__name__ = name
    return fn


lt, le, gt, ge, eq, ne = _cmp("lt"), _cmp("le"), _cmp("gt"), _cmp("ge"), _cmp("eq"), _cmp("ne")


# the reductions also take NumPy's spellings axis= and keepdims=, as torch's do
def sum(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    return _t(input, "sum").sum(dim, keepdim, dtype=dtype, axis=axis, keepdims=keepdims)


def mean(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    return _t(input, "mean").mean(dim, keepdim, dtype=dtype, axis=axis, keepdims=keepdims)


def max(input, dim=None, keepdim=False, *, other=None, axis=None, keepdims=None):
    from .ops.reduce import max as _max
    dim, keepdim = _np("max", dim, keepdim, axis, keepdims)
    return _max(_t(input, "max"), dim, keepdim, other=other)


def min(input, dim=None, keepdim=False, *, other=None, axis=None, keepdims=None):
    from .ops.reduce import min as _min
    dim, keepdim = _np("min", dim, keepdim, axis, keepdims)
    return _min(_t(input, "min"), dim, keepdim, other=other)


def amax(input, dim=(), keepdim=False, *, axis=None, keepdims=None):
    return _t(input, "amax").amax(dim, keepdim, axis=axis, keepdims=keepdims)


def amin(input, dim=(), keepdim=False, *, axis=None, keepdims=None):
    return _t(input, "amin").amin(dim, keepdim, axis=axis, keepdims=keepdims)


def argmax(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    return _t(input, "argmax").argmax(dim, keepdim, axis=axis, keepdims=keepdims)


def argmin(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    return _t(input, "argmin").argmin(dim, keepdim, axis=axis, keepdims=keepdims)


def any(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    return _t(input, "any").any(dim, keepdim, axis=axis, keepdims=keepdims)


def all(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    return _t(input, "all").all(dim, keepdim, axis=axis, keepdims=keepdims)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, axis=None, keepdims=None):
    return _t(input, "var").var(dim, unbiased, keepdim, correction=correction, axis=axis, keepdims=keepdims)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, axis=None, keepdims=None):
    return _t(input, "std").std(dim, unbiased, keepdim, correction=correction, axis=axis, keepdims=keepdims)


def softmax(input, dim=None, dtype=None, *, axis=None):
    return _t(input, "softmax").softmax(dim, dtype, axis=axis)


def log_softmax(input, dim=None, dtype=None, *, axis=None):
    return _t(input, "log_softmax").log_softmax(dim, dtype, axis=axis)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    return _t(input, "norm").norm(p, dim, keepdim, dtype)


def equal(input, other):
    return _t(input, "equal").equal(other)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _t(input, "isclose").isclose(other, rtol, atol, equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _t(input, "allclose").allclose(other, rtol, atol, equal_nan)


def matmul(input, other):
    return _linalg.matmul(_t(input, "matmul"), other)


def mm(input, mat2):
    return _linalg.mm(_t(input, "mm"), mat2)


def dot(input, tensor):
    return _linalg.dot(_t(input, "dot"), tensor)


def bmm(input, mat2):
    return _linalg.bmm(_t(input, "bmm"), mat2)


def reshape(input, shape):
    return _t(input, "reshape").reshape(shape)


def flatten(input, start_dim=0, end_dim=-1):
    return _t(input, "flatten").flatten(start_dim, end_dim)


def squeeze(input, dim=None):
    return _t(input, "squeeze").squeeze(dim)


def unsqueeze(input, dim):
    return _t(input, "unsqueeze").unsqueeze(dim)


def transpose(input, dim0, dim1):
    return _t(input, "transpose").transpose(dim0, dim1)


def t(input):
    return _t(input, "t").t()


def permute(input, dims):
    return _t(input, "permute").permute(dims)


def clone(input):
    return _t(input, "clone").clone()


def cat(tensors, dim=0, *, axis=None):
    if axis is not None:
        dim, _ = _np("cat", None if dim == 0 else dim, False, axis, None)
    return _join.cat(tensors, dim)


concat = cat


def stack(tensors, dim=0, *, axis=None):
    if axis is not None:
        dim, _ = _np("stack", None if dim == 0 else dim, False, axis, None)
    return _join.stack(tensors, dim)


def split(tensor, split_size_or_sections, dim=0):
    return _join.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    return _join.chunk(input, chunks, dim)


def numel(input):
    return _t(input, "numel").numel()


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    return _t(input, "is_floating_point").is_floating_point()


def result_type(tensor1, tensor2):
    return _dt.result_type(tensor1, tensor2)


def promote_types(type1, type2):
    return _dt.promote_types(type1, type2)
