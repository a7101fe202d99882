"""Indexing: tensor[index] (views for basic indexing, copies for advanced) and tensor[index] = v."""
import re as _re
from numbers import Number

from ..autograd.function import apply_first
from ..autograd.grad_mode import _grad_enabled
from ..tensor import Tensor, _make, stored_grad_fn
from .broadcast import broadcast_shape, sum_to
from .elementwise import Builtin, device_error
from .shape import view_of


def _translate_index_error(e, index=None, ndim=0):
    """NumPy's out-of-bounds message in torch's words. NumPy names the axis of the indexed array;
    torch, for an integer, its place in `index` (None and ... counted), and for a tensor index,
    its place among the tensor indices."""
    text = str(e)
    m = _re.search(r"for axis (\d+) ", text)
    if m is None or index is None:
        return IndexError(text.replace("axis", "dimension"))
    axis, items = int(m.group(1)), index if isinstance(index, tuple) else (index,)
    total = sum(_width(i) for i in items)
    pos = tensors = 0
    dim = axis
    for place, item in enumerate(items):
        if item is Ellipsis:
            pos = max(pos, ndim - (total - pos))
            continue
        w = _width(item)
        if pos + w > axis:
            dim = place if isinstance(item, int) else tensors
            break
        if not (item is None or isinstance(item, (bool, int, slice))):
            tensors += w
        pos += w
    return IndexError(text[:m.start()] + f"for dimension {dim} " + text[m.end():])


def index_bounds(t):
    """(smallest, largest) value of the integer tensor t, which must not be empty: one transfer
    for both, so one wait for the GPU's queued work. On a GPU the answer is kept on t while its
    data and version stay the same, so a loop that reuses one index or target tensor (a batch
    kept on the device) waits once, not every step. PyTorch checks on the device instead, where
    a bad index stops the process with an asynchronous device-side assert."""
    data = t._data
    kept = t.__dict__.get("_bounds_kept")
    if kept is not None and kept[0] is data and kept[1] == t._version:
        return kept[2]
    be = t._device.backend
    both = be.concatenate([be.reshape(be.amin(data), (1,)), be.reshape(be.amax(data), (1,))], 0)
    bounds = tuple(be.to_numpy(both).tolist())
    if t._device.type == "cuda":  # CPU arrays can change behind the version counter (numpy())
        t._bounds_kept = (data, t._version, bounds)
    return bounds


_SEQUENCE_AS_TUPLE = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
                      "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
                      "tensor index, x[minigrad.tensor(seq)], which will result either in an error or a different result")


def _is_sequence(obj):
    """CPython's PySequence_Check, for the objects an index holds."""
    cls = type(obj)
    return hasattr(cls, "__getitem__") and hasattr(cls, "__len__") and not issubclass(cls, dict)


def as_tuple_index(index):
    """torch's (NumPy's old) rule for a list index: one of fewer than 32 items that holds a
    sequence, a tensor, a slice, None or an Ellipsis is a tuple of indices (x[[0, [1]]] is
    x[0, [1]]), with a deprecation warning; any other list is one integer or bool index."""
    if index.__class__ is list and len(index) < 32:
        for obj in index:
            if obj is None or obj is Ellipsis or isinstance(obj, slice) or _is_sequence(obj):
                import warnings
                warnings.warn(_SEQUENCE_AS_TUPLE, UserWarning, stacklevel=4)
                return tuple(index)
    return index


def normalize_index(a, index):
    """Turn a user's index into one the backend understands; True when it is basic (a view); and
    the bounds of its integer index tensors where the device needs them checked (a GPU's), kept
    per tensor by index_bounds, else None."""
    if not isinstance(index, tuple):
        index = (index,)
    be = a._device.backend
    out, basic, bounds = [], True, None
    for item in index:
        if isinstance(item, Tensor):
            if item._device is not a._device:
                raise RuntimeError(f"indices should be either on cpu or on the same device as the indexed "
                                   f"tensor ({a._device})")
            kind = "f" if item._data.dtype.char == "H" else item._data.dtype.kind  # (H: bfloat16)
            if kind == "f" or item._data.dtype.name in ("int8", "int16"):
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if kind == "u":  # a byte tensor is a mask, as torch still reads it
                import warnings
                warnings.warn(f"indexing with dtype {item.dtype} is now deprecated, please use a dtype "
                              "minigrad.bool instead.", UserWarning, stacklevel=4)
                item, kind = item.bool(), "b"
            if item._data.ndim == 0 and kind in "iu":
                out.append(int(item.item()))
                continue
            out.append(item._data)
            basic = False
            if kind in "iu" and item._data.size and a._device.type == "cuda":
                bounds = bounds or {}
                bounds[len(out) - 1] = index_bounds(item)
        elif isinstance(item, (list, tuple, range)):
            out.append(_sequence_index(be, item))
            basic = False
        elif item is None or item is Ellipsis or isinstance(item, (int, slice)):
            if isinstance(item, bool):
                out.append(item)
                basic = False
            else:
                if isinstance(item, slice) and item.step is not None and item.step <= 0:
                    # torch's words: Python's own for a zero step, torch's for a negative one
                    raise ValueError("slice step cannot be zero" if item.step == 0
                                     else "step must be greater than zero")
                out.append(item)
        elif getattr(item, "ndim", 0):  # a NumPy array
            out.append(_sequence_index(be, item))
            basic = False
        elif hasattr(item, "__index__"):
            out.append(item.__index__())
        else:
            raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                             f"Variables are valid indices (got {type(item).__name__})")
    _check_index(a._data.shape, out, be)
    if not basic:
        # an Ellipsis that spans no dims does not part advanced indices for torch (it does for NumPy,
        # which would then move the indexed dims to the front)
        k = next((j for j, item in enumerate(out) if item is Ellipsis), None)
        if k is not None and sum(_width(item) for item in out) == len(a._data.shape):
            del out[k]
            if bounds is not None:  # (kept by position in out)
                bounds = {(j - 1 if j > k else j): b for j, b in bounds.items()}
    if bounds is not None:
        bounds = tuple(bounds.get(k) for k in range(len(out)))
    return tuple(out), basic, bounds


def _sequence_index(be, item):
    """A list, tuple, range or NumPy array of ints or bools, as the int64 or bool index array an
    equal tensor would give."""
    if getattr(item, "dtype", None) == "uint8":  # a NumPy byte array is a mask, as a byte tensor is to torch
        import warnings
        warnings.warn("indexing with dtype minigrad.uint8 is now deprecated, please use a dtype minigrad.bool instead.",
                      UserWarning, stacklevel=5)
        item = item.astype(bool)
    arr = be.asarray(item)
    if arr.dtype.kind == "f" and arr.size:  # an empty list [] is an empty integer index
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return arr if arr.dtype.kind == "b" else be.astype(arr, "int64")


def _width(item):
    """The dims of the indexed tensor an index item consumes."""
    if item is None or isinstance(item, bool) or item is Ellipsis:
        return 0
    return item.ndim if not isinstance(item, (int, slice)) and item.dtype.kind == "b" else 1


def _check_index(shape, index, be):
    """torch's errors for indices that cannot apply to shape (NumPy's would name arrays)."""
    width = _width
    total = sum(width(item) for item in index)
    pos, arrays = 0, []
    for item in index:
        if item is Ellipsis:  # the items after it index the trailing dims
            pos = max(pos, len(shape) - (total - pos))
            continue
        if isinstance(item, int) and not isinstance(item, bool) and not shape:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        if not (item is None or isinstance(item, (bool, int, slice))):
            if item.dtype.kind == "b":
                for k, m in enumerate(item.shape):
                    if pos + k < len(shape) and m != shape[pos + k]:
                        _check_ints(shape, index)  # torch's first pass (integers) comes before masks
                        sliced, at = _basic_pass(shape, index, item)
                        raise IndexError(f"The shape of the mask {list(item.shape)} at index {k} does not match "
                                         f"the shape of the indexed tensor {sliced} at index {at + k}")
                arrays += [item] * item.ndim  # its nonzeros' positions, one list per dim
            else:
                arrays.append(item)
        pos += width(item)
    if total > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    if len(arrays) > 1:
        from ..dtypes import int64
        shapes = [[int(be.to_numpy(be.sum(a, tuple(range(a.ndim)), False, int64.np)))] if a.dtype.kind == "b"
                  else list(a.shape) for a in arrays]
        out = ()
        try:
            for sh in shapes:
                out = broadcast_shape(out, tuple(sh))
        except RuntimeError:  # torch's words, not NumPy's (which name arrays)
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                             + ", ".join(str(sh) for sh in shapes)) from None


def _check_ints(shape, index):
    """torch's error for the first integer of index out of its dim's range (the dim named by the
    integer's place in index)."""
    total = sum(_width(item) for item in index)
    pos = 0
    for place, item in enumerate(index):
        if item is Ellipsis:
            pos = max(pos, len(shape) - (total - pos))
            continue
        if item.__class__ is int and pos < len(shape) and not -shape[pos] <= item < shape[pos]:
            raise IndexError(f"index {item} is out of bounds for dimension {place} with size {shape[pos]}")
        pos += _width(item)


def _basic_pass(shape, index, mask):
    """(the shape after torch's first pass over index, which applies the integers, slices, None and
    ..., and the dim there where `mask` starts): torch's mask errors name that tensor."""
    total = sum(_width(item) for item in index)
    out, pos, at = [], 0, 0
    for item in index:
        if item is Ellipsis:
            end = max(pos, len(shape) - (total - pos))
            out += shape[pos:end]
            pos = end
        elif item is None or isinstance(item, bool):
            out.append(1)  # (a bool unsqueezes too)
        elif isinstance(item, int) or (not isinstance(item, slice) and item.ndim == 0 and item.dtype.kind != "b"):
            pos += 1  # an integer (a 0-d integer tensor too) selects: its dim goes
        elif isinstance(item, slice):
            out.append(len(range(*item.indices(shape[pos]))))
            pos += 1
        else:
            if item is mask:
                at = len(out)
            w = _width(item)
            out += shape[pos:pos + w]
            pos += w
    return out + list(shape[pos:]), at


class Index(Builtin):
    _node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, a, index, basic, bounds=None):
        ctx.shape, ctx.index = a._data.shape, index
        try:
            arr = a._device.backend.getitem(a._data, index, bounds)
        except IndexError as e:
            raise _translate_index_error(e, index, a._data.ndim) from None
        return view_of(a, arr, ("getitem", index)) if basic else _make(arr, a._device)

    @staticmethod
    def backward(ctx, g):
        return IndexAdd.apply(g, ctx.shape, ctx.index), None, None, None

    @staticmethod
    def backward_raw(ctx, be, g):
        return be.index_add(ctx.shape, ctx.index, g, g.dtype), None, None, None


class Slice(Index):
    _node_name = "SliceBackward0"


# torch applies a basic index one item at a time (select, slice, unsqueeze), so the node a user
# sees as grad_fn is the last of those; minigrad records one node, under that name
class _Select(Slice):
    _node_name = "SelectBackward0"


class _Unsqueeze(Slice):
    _node_name = "UnsqueezeBackward0"


class _Alias(Slice):
    _node_name = "AliasBackward0"


class _Split(Slice):
    _node_name = "SplitBackward0"


class _SplitWithSizes(Slice):
    _node_name = "SplitWithSizesBackward0"


def split_piece(a, dim, start, stop, with_sizes):
    """a[start:stop] along dim, a piece of split or chunk, recorded under the node torch's split
    (with_sizes: split_with_sizes) gives each piece."""
    idx, _, bounds = normalize_index(a, (slice(None),) * dim + (slice(start, stop),))
    return apply_first(_SplitWithSizes if with_sizes else _Split, a, idx, True, bounds)


def _basic_node(index, idx, shape):
    """The node class for a basic index idx (normalized from the user's index) of a tensor of
    shape: that of the last item torch applies. In a tuple, torch skips Ellipsis and a slice
    that spans its whole dim (start 0 or None, step 1 or None, stop None or at least the dim's
    size; x[-3:, 0] is applied); with nothing left the result is an alias (AliasBackward0). A
    lone slice is always applied: x[:] records SliceBackward0."""
    if not isinstance(index, tuple):
        item = idx[0]
        if isinstance(item, slice):
            return Slice
        return _Select if item.__class__ is int else _Unsqueeze if item is None else _Alias
    last, dim = _Alias, 0
    for item in idx:
        if item is None:
            last = _Unsqueeze
        elif item is Ellipsis:
            dim = len(shape) - sum(1 for i in idx if i is not None and i is not Ellipsis) + dim
        else:
            if item.__class__ is int:
                last = _Select
            elif not (item.start in (None, 0) and item.step in (None, 1)
                      and (item.stop is None or item.stop >= shape[dim])):
                last = Slice
            dim += 1
    return last


class IndexAdd(Builtin):
    """zeros(shape) with g added at index: the adjoint of indexing."""
    _node_name = "IndexAddBackward0"

    @staticmethod
    def forward(ctx, g, shape, index):
        ctx.index = index
        return _make(g._device.backend.index_add(shape, index, g._data, g._data.dtype), g._device)

    @staticmethod
    def backward(ctx, gg):
        return Index.apply(gg, ctx.index, False), None, None


def _split_ints(idx, bounds):
    """torch applies an advanced index's integers first, as basic selections, and NumPy treats
    them as advanced indices, which moves the result's dims when they separate two advanced
    entries (x[0, :, [1, 2]] is (3, 2) in torch, (2, 3) in NumPy). For an advanced idx with
    integers: (the integers as a basic index, the rest of idx, the rest's bounds); else None."""
    if not any(item.__class__ is int for item in idx):
        return None
    pre, rest, rest_bounds = [], [], []
    for k, item in enumerate(idx):
        if item.__class__ is int:
            pre.append(item)
            continue
        if item is Ellipsis:
            pre.append(Ellipsis)
        elif item is not None and not isinstance(item, (slice, bool)):
            pre.extend([slice(None)] * (item.ndim if item.dtype.kind == "b" else 1))
        elif isinstance(item, slice):
            pre.append(slice(None))
        rest.append(item)
        rest_bounds.append(None if bounds is None else bounds[k])
    return tuple(pre), tuple(rest), None if bounds is None else tuple(rest_bounds)


def getitem(a, index):
    if index.__class__ is list:
        index = as_tuple_index(index)
    idx, basic, bounds = normalize_index(a, index)
    if not basic:
        split = _split_ints(idx, bounds)
        if split is not None:
            pre, rest, bounds = split
            return apply_first(Index, apply_first(Slice, a, pre, True, None), rest, False, bounds)
    return apply_first(_basic_node(index, idx, a._data.shape) if basic else Index, a, idx, basic, bounds)


class _ValueShapeError(Exception):
    """A setitem value whose shape does not fit the indexed region: setitem words torch's message,
    which names the value's dtype from before setitem cast it to the tensor's."""

    def __init__(self, region, vshape, index):
        super().__init__(region, vshape, index)
        self.region, self.vshape, self.index = region, vshape, index

    def message(self, legacy):
        region, vshape = list(self.region), list(self.vshape)
        if any(not (item is None or item is Ellipsis or item.__class__ in (int, slice)) for item in self.index):
            # advanced indexing: torch's index_put_
            return (f"shape mismatch: value tensor of shape {vshape} cannot be broadcast to indexing result "
                    f"of shape {region}")
        # basic indexing: torch copies into the view, expanding the value without its leading 1s
        vshape = _without_leading_ones(vshape)
        if len(vshape) > len(region):
            return (f"expand(minigrad.{legacy}{{{vshape}}}, size={region}): the number of sizes provided "
                    f"({len(region)}) must be greater or equal to the number of dimensions in the tensor "
                    f"({len(vshape)})")
        lead = len(region) - len(vshape)
        for i in range(len(region) - 1, lead - 1, -1):  # from the last dim, as torch's expand
            cur = vshape[i - lead]
            if cur != region[i] and cur != 1:
                return (f"The expanded size of the tensor ({region[i]}) must match the existing size ({cur}) "
                        f"at non-singleton dimension {i}.  Target sizes: {region}.  Tensor sizes: {vshape}")
        return None


def _without_leading_ones(shape):
    shape = list(shape)
    while shape and shape[0] == 1:
        del shape[0]
    return shape


class IndexPut(Builtin):
    """out = a with out[index] = value (value broadcast): the differentiable form of setitem."""
    _node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, a, value, index, bounds=None):
        ctx.index, ctx.vshape = index, value._data.shape
        be = a._device.backend
        out = be.copy(a._data)
        try:
            be.setitem(out, index, value._data, bounds)
        except IndexError as e:
            raise _translate_index_error(e, index, out.ndim) from None
        except ValueError:
            error = _ValueShapeError(be.getitem(out, index).shape, value._data.shape, index)
            if error.message("") is not None:
                raise error from None
            # a value with extra leading 1s for a basic index: torch drops them (NumPy does too,
            # except for a 0-d region)
            be.setitem(out, index, be.reshape(value._data, tuple(_without_leading_ones(value._data.shape))),
                       bounds)
        return _make(out, a._device)

    @staticmethod
    def backward(ctx, g):
        na, nv = ctx.needs_input_grad[:2]
        ga = gv = None
        if na:
            ga = IndexPut.apply(g, _zero_like(g), ctx.index)
        if nv:
            gv = Index.apply(g, ctx.index, False)
            extra = len(ctx.vshape) - gv._data.ndim  # the value's leading 1s beyond the region's dims
            gv = sum_to(gv, ctx.vshape[extra:] if extra > 0 else ctx.vshape)
            if extra > 0:
                gv = gv.reshape(ctx.vshape)
        return ga, gv, None, None


class SlicePut(IndexPut):
    """IndexPut for a basic index: torch writes into the view, so the node is its CopySlices."""
    _node_name = "CopySlices"


class _WholeCopy(SlicePut):
    """a[...] = value where the index spans every element of a: torch copies into a itself."""
    _node_name = "CopyBackwards"


class _WholeFill(SlicePut):
    _node_name = "FillBackward3"  # (a 0-d value: torch's fill_ with a tensor)


def _whole(idx, shape):
    """Whether basic index idx (normalized) is Ellipsis and slices that each span their whole dim."""
    dim = 0
    for item in idx:
        if item is Ellipsis:
            dim = len(shape) - sum(1 for i in idx if i is not Ellipsis) + dim
        elif item.__class__ is not slice or not (item.start in (None, 0) and item.step in (None, 1) and (
                item.stop is None or item.stop >= shape[dim])):
            return False
        else:
            dim += 1
    return True


def _zero_like(g):
    return _make(g._device.backend.zeros((), g._data.dtype), g._device)


def setitem(a, index, value):
    """a[index] = value, in place; recorded in the graph like any in-place op."""
    from .inplace import inplace
    src = value
    if not isinstance(value, Tensor):
        if value.__class__ is not float and value.__class__ is not int and not isinstance(value, Number):
            from .._typename import tp_name  # torch takes numbers and tensors only (not lists, arrays, None)
            raise TypeError(f"can't assign a {tp_name(value)} to a {_legacy_name(a)}")
        be = a._device.backend
        value = _make(be.full((), value, a._data.dtype), a._device)
    if index.__class__ is list:
        index = as_tuple_index(index)
    idx, basic, bounds = normalize_index(a, index)
    if value._data.dtype != a._data.dtype:
        # index_put_ converts no value (copy_, for a basic index, converts any); torch turns a 0-d
        # value under bool masks only into a masked fill, which converts it
        if not basic and (value._data.ndim or any(getattr(i, "dtype", None) is not None and i.dtype.kind != "b"
                                                  for i in idx)):
            raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                               f"{a.dtype._legacy[:-6]} for the destination and {value.dtype._legacy[:-6]} "
                               "for the source.")
        if not basic and a._data.dtype.kind in "iu":  # a masked fill takes the value as a number: torch's range check
            from ..dtypes import check_fits
            check_fits(value.item(), a.dtype)
        value = value.to(a.dtype)
    if value._device is not a._device:
        # torch copies a basic index's value into the view (copy_, which crosses devices);
        # index_put_ moves only a 0-d value
        if not basic and value._data.ndim:
            raise device_error(a, value)
        value = value.to(a.device)
    split = None if basic else _split_ints(idx, bounds)
    if a._requires_grad and (basic or split is not None) and a._base is None and _grad_enabled() and (
            stored_grad_fn(a) is None and a._no_grad_view is None) and (split is not None or _basic_node(
                index if isinstance(index, tuple) else (index,), idx, a._data.shape) is not _Alias):
        from .view_inplace import VIEW_OF_LEAF  # torch writes into a view of the leaf (x[:] is x itself)
        raise RuntimeError(VIEW_OF_LEAF)
    if split is not None:  # torch's order: the integers select a view, the rest indexes into it
        pre, idx, bounds = split
        a = apply_first(Slice, a, pre, True, None)
    put = SlicePut if basic else IndexPut
    if basic and a._base is None and _whole(idx, a._data.shape):
        put = _WholeFill if value._data.ndim == 0 else _WholeCopy  # torch writes into a itself
    try:
        return inplace(a, lambda t: put.apply(t, value, idx, bounds), value)
    except _ValueShapeError as e:
        raise RuntimeError(e.message(src.dtype._legacy)) from None


def _legacy_name(t):
    return ("minigrad.cuda." if t._device.type == "cuda" else "minigrad.") + t.dtype._legacy


def nonzero(a, as_tuple=False):
    """The indices of a's nonzero elements: an (n, ndim) int64 tensor, or one 1-d tensor per dim."""
    be = a._device.backend
    shape = a._data.shape
    mask = be.ne(a._data, 0)
    if not shape:  # a 0-d tensor counts as one element, with no dims to index
        mask, shape = be.reshape(mask, (1,)), (1,)
        if not as_tuple:
            n = be.to_numpy(mask).sum()
            return _make(be.zeros((int(n), 0), "int64"), a._device)
    cols = []
    for d, n in enumerate(shape):
        along = [1] * len(shape)
        along[d] = n
        positions = be.broadcast_to(be.reshape(be.arange(0, n, 1, "int64"), tuple(along)), shape)
        cols.append(be.getitem(positions, (mask,)))
    if as_tuple:
        return tuple(_make(c, a._device) for c in cols)
    return _make(be.concatenate([be.reshape(c, (-1, 1)) for c in cols], 1), a._device)
