"""Sorting: torch.sort, argsort, msort, topk and kthvalue, and their Tensor methods, on the one
backend primitive `sort(a, axis, descending)` (stable; NaN after every number).

Every sort here is stable, stable=False included: equal elements keep their order, in both
directions, so results are deterministic and equal torch's stable=True results (torch's
stable=False may order ties otherwise; topk's and kthvalue's choice among ties, which torch
leaves unspecified, is the stable sort's too). topk's sorted=False still returns sorted values.

The gradient of the values goes back to the input positions named by the indices (scattered
into zeros); the indices are int64 and not differentiable.
"""
import operator

from .._arg_errors import Parser
from ..autograd.function import apply_first
from ..dtypes import int64
from ..tensor import Tensor, _make, _wrap_dim
from .elementwise import Builtin
from .index import IndexAdd
from .reduce import _return_type

return_types_sort = _return_type("sort")
return_types_topk = _return_type("topk")
return_types_kthvalue = _return_type("kthvalue")

# the overloads as torch's bindings declare them (the parser writes torch's TypeErrors from these)
_SPECS = {
    "sort": ("Tensor input, *, bool? stable, int dim=-1, bool descending=False, Tensor[] out=None",
             "Tensor input, int dim=-1, bool descending=False, *, Tensor[] out=None"),
    "argsort": ("Tensor input, *, bool stable, int dim=-1, bool descending=False, Tensor out=None",
                "Tensor input, int dim=-1, bool descending=False"),
    "topk": ("Tensor input, int k, int dim=-1, bool largest=True, bool sorted=True, *, Tensor[] out=None",),
    "kthvalue": ("Tensor input, int k, int dim=-1, bool keepdim=False, *, Tensor[] out=None",),
    "msort": ("Tensor input, *, Tensor out=None",),
}
_DEFAULTS = {"dim": -1, "descending": False, "stable": None, "largest": True, "sorted": True, "keepdim": False}
_parsers = {}


def _bind(name, method, args, kwargs):
    """(which overload took the arguments, {parameter: value}) as torch's parser binds them, or
    torch's TypeError."""
    parser = _parsers.get((name, method))
    if parser is None:
        parser = _parsers[(name, method)] = Parser(name, *_SPECS[name], method=method)
    for k, sig in enumerate(parser.signatures):
        bound = []
        if sig.parse(args, kwargs, False, bound):
            values = dict(_DEFAULTS)
            for param, obj in bound:
                values[param.name] = operator.index(obj) if param.kind == "int" else obj
            if values.get("out") is not None:
                raise TypeError(f"{name}(): out= is not supported by minigrad")
            return k, values
    raise parser.error(args, kwargs) or TypeError(f"{name}(): invalid arguments")


def _grid(be, indices, dim):
    """The advanced index reaching a[..., indices[..., j, ...], ...] along dim: the indices at
    dim, a ramp broadcast along every other dim."""
    shape, nd = indices.shape, indices.ndim
    index = []
    for k in range(nd):
        if k == dim:
            index.append(indices)
        else:
            along = [1] * nd
            along[k] = shape[k]
            index.append(be.reshape(be.arange(0, shape[k], 1, int64.np), tuple(along)))
    return tuple(index)


class Sort(Builtin):
    """sort(dim, descending) -> (values, indices); the gradient goes back where each value came
    from. Also topk's and kthvalue's: they keep the first k (or the k-th) along dim."""
    _node_name = "SortBackward0"

    @classmethod
    def forward(cls, ctx, a, dim, descending, take=None, keepdim=True):
        be = a._device.backend
        values, indices = be.sort(a._data, dim, descending)
        if take is not None:  # topk: slice(0, k); kthvalue: k - 1
            where = (slice(None),) * dim + (take,)
            values, indices = be.ascontiguous(be.getitem(values, where)), be.ascontiguous(be.getitem(indices, where))
            if keepdim and not isinstance(take, slice):
                kept = a._data.shape[:dim] + (1,) + a._data.shape[dim + 1:]
                values, indices = be.reshape(values, kept), be.reshape(indices, kept)
        values, indices = _make(values, a._device), _make(indices, a._device)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.shape, ctx.dim = a._data.shape, dim
        return values, indices

    @staticmethod
    def _index(ctx, be, indices):
        if indices.ndim != len(ctx.shape):  # kthvalue without keepdim
            indices = be.reshape(indices, indices.shape[:ctx.dim] + (1,) + indices.shape[ctx.dim:])
        return _grid(be, indices, ctx.dim), indices.shape

    @classmethod
    def backward(cls, ctx, g, _g_indices):
        """zeros(shape) with g added at the indices, in Tensor ops (differentiable again: the
        adjoint of a gather)."""
        indices, = ctx.saved_tensors
        if not ctx.shape:
            return g.reshape(()), None, None, None, None
        index, shape = cls._index(ctx, g._device.backend, indices._data)
        if g._data.shape != shape:
            g = g.reshape(shape)
        return IndexAdd.apply(g, ctx.shape, index), None, None, None, None

    @classmethod
    def backward_raw(cls, ctx, be, g, _g_indices=None):
        indices, = ctx.saved_arrays()
        if not ctx.shape:
            return be.reshape(g, ()), None, None, None, None
        index, shape = cls._index(ctx, be, indices)
        return be.index_add(ctx.shape, index, be.reshape(g, shape), g.dtype), None, None, None, None


class SortStable(Sort):
    _node_name = "SortBackward1"  # the stable= overload's node


class Topk(Sort):
    _node_name = "TopkBackward0"


class Kthvalue(Sort):
    _node_name = "KthvalueBackward0"


def _sort(a, dim, descending, stable_overload=False):
    d = _wrap_dim(dim, a._data.ndim, "sort")
    return return_types_sort(*apply_first(SortStable if stable_overload else Sort, a, d, descending, None, True))


def _no_bool(a, message):
    if a._data.dtype.kind == "b":
        raise message(a._device.type)


def _topk(a, k, dim, largest):
    d = _wrap_dim(dim, a._data.ndim, "topk")
    if not 0 <= k <= (a._data.shape[d] if a._data.ndim else 1):
        raise RuntimeError("selected index k out of range")
    _no_bool(a, lambda device: RuntimeError("topk does not support bool dtypes on CPU") if device == "cpu"
             else NotImplementedError("\"topk_out_cuda\" not implemented for 'Bool'"))
    if not a._data.ndim:  # a 0-d tensor's top k (0 or 1) is itself, as in torch
        return return_types_topk(*apply_first(Topk, a, 0, largest, None, True))
    return return_types_topk(*apply_first(Topk, a, d, largest, slice(0, k), True))


def _kthvalue(a, k, dim, keepdim):
    d = _wrap_dim(dim, a._data.ndim, "kthvalue")
    size = a._data.shape[d] if a._data.ndim else 1
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    _no_bool(a, lambda device: NotImplementedError(f"\"kthvalue_{device}\" not implemented for 'Bool'"))
    if not a._data.ndim:
        return return_types_kthvalue(*apply_first(Kthvalue, a, 0, False, None, True))
    return return_types_kthvalue(*apply_first(Kthvalue, a, d, False, k - 1, keepdim))


def _argsort(a, dim, descending):
    d = _wrap_dim(dim, a._data.ndim, "argsort")
    return _make(a._device.backend.sort(a._data, d, descending)[1], a._device)


# ---- the torch-style entry points: Tensor methods and torch.* functions --------------------------

def _entry(name, method):
    def call(*args, **kwargs):
        if method:
            self, args = args[0], args[1:]
        k, v = _bind(name, method, args, kwargs)
        a = self if method else v["input"]
        if name == "sort":
            return _sort(a, v["dim"], v["descending"], k == 0)
        if name == "argsort":
            return _argsort(a, v["dim"], v["descending"])
        if name == "topk":
            return _topk(a, v["k"], v["dim"], v["largest"])
        return _kthvalue(a, v["k"], v["dim"], v["keepdim"])
    call.__name__ = call.__qualname__ = name
    return call


def msort(input, *args, out=None):
    if args:
        raise TypeError(f"msort() takes 1 positional argument but {len(args) + 1} were given")
    if not isinstance(input, Tensor):
        raise Parser("msort", *_SPECS["msort"]).error((input,), {})
    if out is not None:
        raise TypeError("msort(): out= is not supported by minigrad")
    return _sort(input, 0, False).values


def _msort_method(self, *args):
    if args:
        raise TypeError(f"TensorBase.msort() takes no arguments ({len(args)} given)")
    return _sort(self, 0, False).values


_NAMES = ("sort", "argsort", "topk", "kthvalue")
FUNCTIONS = dict({name: _entry(name, False) for name in _NAMES}, msort=msort)
METHODS = dict({name: _entry(name, True) for name in _NAMES}, msort=_msort_method)


def install(cls):
    """Put the methods on Tensor (called once by minigrad/tensor_methods.py)."""
    _msort_method.__name__ = _msort_method.__qualname__ = "msort"
    for name, fn in METHODS.items():
        setattr(cls, name, fn)
