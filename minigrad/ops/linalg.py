"""Matrix products: matmul (1-d, 2-d, batched, broadcast batched), dot, mm, bmm."""
from ..dtypes import cpp_name
from ..tensor import Tensor, _make
from .broadcast import broadcast_shape, sum_to
from ..autograd.function import apply_binary
from .elementwise import Builtin, device_error
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies


class Matmul(Builtin):
    _node_name = "MmBackward0"

    @staticmethod
    def forward(ctx, a, b):
        if any(ctx.needs_input_grad):
            ctx.save_for_backward(a if ctx.needs_input_grad[1] else None,
                                  b if ctx.needs_input_grad[0] else None)
            ctx.shapes = (a._data.shape, b._data.shape)
            if ctx.needs_input_grad[1] and b._data.ndim == 2:
                be = b._device.backend
                ctx.b_transposed = (not be.is_contiguous(b._data)
                                    and be.is_contiguous(be.transpose(b._data, (1, 0))))
        return _make(a._device.backend.matmul(a._data, b._data), a._device)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        sa, sb = ctx.shapes
        na, nb = ctx.needs_input_grad
        if len(sa) == 1 and len(sb) == 1:  # dot product: g is 0-d
            return (g * b if na else None), (g * a if nb else None)
        # lift 1-d operands to matrices, as matmul itself does, then undo it
        if len(sa) == 1:
            g = g.unsqueeze(-2)
            a = a.unsqueeze(0) if a is not None else None
        if len(sb) == 1:
            g = g.unsqueeze(-1)
            b = b.unsqueeze(-1) if b is not None else None
        ga = gb = None
        if na:
            ga = g @ b.transpose(-1, -2)
            ga = sum_to(ga, sa if len(sa) > 1 else (1,) + sa).reshape(sa)
        if nb:
            gb = a.transpose(-1, -2) @ g
            gb = sum_to(gb, sb if len(sb) > 1 else sb + (1,)).reshape(sb)
        return ga, gb

    @staticmethod
    def backward_raw(ctx, be, g):
        a, b = ctx.saved_arrays()
        sa, sb = ctx.shapes
        if len(sa) != 2 or len(sb) != 2:
            return NotImplemented  # 1-d and batched products take the Tensor path
        na, nb = ctx.needs_input_grad
        ga = gb = None
        if na:
            ga = be.matmul(g, be.transpose(b, (1, 0)))
        if nb:
            if ctx.b_transposed:
                # b is a transposed weight (x @ W.t()): produce the gradient in W's layout, so
                # that the transpose's backward hands W a contiguous gradient
                gb = be.transpose(be.matmul(be.transpose(g, (1, 0)), a), (1, 0))
            else:
                gb = be.matmul(be.transpose(a, (1, 0)), g)
        return ga, gb


class Dot(Matmul):
    _node_name = "DotBackward0"


class Mv(Matmul):
    _node_name = "MvBackward0"


class Bmm(Matmul):
    _node_name = "BmmBackward0"


class VecMat(Matmul):
    """vector @ matrix: torch lifts the vector to a row, multiplies, and squeezes the row away in
    place, so its result's node is that squeeze_'s."""
    _node_name = "SqueezeBackward4"


def _check(a, b, name):
    if not isinstance(b, Tensor):
        raise TypeError(f"{name}(): argument 'other' must be Tensor, not {type(b).__name__}")
    if a._device is not b._device:
        raise device_error(a, b)
    if a._data.dtype != b._data.dtype:
        if a._data.ndim == 1 and b._data.ndim == 1:
            raise _dot_dtype_error(a, b)
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cpp_name(a.dtype)} != "
                           f"{cpp_name(b.dtype)}")
    if a._data.ndim == 0 or b._data.ndim == 0:
        raise RuntimeError(f"both arguments to {name} need to be at least 1D, but they are "
                           f"{a._data.ndim}D and {b._data.ndim}D")


def _sizes(shape):
    return "x".join(str(s) for s in shape)


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def _batch2_error(sa, sb):
    """torch's error when a batched product's inner sizes differ (sb has batch dims): the batch
    is the broadcast of both batch shapes, a 1-d a counting as one row."""
    batch = _prod(broadcast_shape(sa[:-2], sb[:-2]))
    return RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {sa[-1]}] "
                        f"but got: [{batch}, {sb[-2]}].")


def bool_product(sa, sb, kernel):
    """torch's CPU kernels have no bool product: the one that would run names itself in the error,
    which a dot product always raises, and the others only when they have work to do (a product
    with no elements, or of an empty inner dimension, is all False without one). sa, sb: the
    operands' shapes, as matmul takes them."""
    k = sa[-1]
    out = _prod(broadcast_shape(sa[:-2], sb[:-2])) * (sa[-2] if len(sa) > 1 else 1) * (sb[-1] if len(sb) > 1 else 1)
    if kernel == "dot" or (k and out):
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def matmul(a, b):
    if _AUTOCAST_ON[0] and (r := _autocast("matmul", matmul, a, b)) is not None:
        return r
    return _matmul(a, b)


def _matmul(a, b):
    """matmul without autocast's check (mm, bmm, mv and dot have their own)."""
    _check(a, b, "matmul")
    sa, sb = a._data.shape, b._data.shape
    is_bool = a._data.dtype.kind == "b"
    if len(sa) == 1 and len(sb) == 1:
        if sa[0] != sb[0]:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] "
                               "to have the same number of elements, but got "
                               f"{sa[0]} and {sb[0]} elements respectively")
        if is_bool:
            bool_product(sa, sb, "dot")
        return apply_binary(Dot, a, b)
    if len(sa) <= 2 and len(sb) <= 2:
        if len(sb) == 1:
            if sa[1] != sb[0]:
                raise RuntimeError(f"size mismatch, got input ({sa[0]}), mat ({_sizes(sa)}), vec ({sb[0]})")
            if is_bool:
                bool_product(sa, sb, "addmv_impl_cpu")
            return apply_binary(Mv, a, b)
        ra = sa if len(sa) == 2 else (1,) + sa
        if ra[1] != sb[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_sizes(ra)} and {_sizes(sb)})")
        if is_bool:
            bool_product(sa, sb, "addmm_impl_cpu_")
        return apply_binary(VecMat if len(sa) == 1 else Matmul, a, b)
    # batched: batch dims broadcast (torch's broadcast message), then inner sizes must agree
    broadcast_shape(sa[:-2], sb[:-2] if len(sb) > 1 else ())
    k_b = sb[0] if len(sb) == 1 else sb[-2]
    if sa[-1] != k_b:
        if len(sb) == 1:
            raise RuntimeError(f"size mismatch, got input ({_prod(sa[:-1])}), mat ({_prod(sa[:-1])}x{sa[-1]}), "
                               f"vec ({sb[0]})")
        if len(sb) == 2:  # torch folds a's batch into its rows: one 2-d product
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_prod(sa[:-1])}x{sa[-1]} and "
                               f"{_sizes(sb)})")
        raise _batch2_error(sa, sb)
    if is_bool:  # torch folds a's batch into rows when b is 1-d or 2-d
        bool_product(sa, sb, "addmv_impl_cpu" if len(sb) == 1 else "addmm_impl_cpu_" if len(sb) == 2 else "bmm")
    return apply_binary(Bmm, a, b)


def dot(a, b):
    if _AUTOCAST_ON[0] and (r := _autocast("dot", dot, a, b)) is not None:
        return r
    if not isinstance(b, Tensor):
        raise TypeError(f"dot(): argument 'tensor' (position 1) must be Tensor, not {type(b).__name__}")
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors")
    if a._data.dtype != b._data.dtype:
        raise _dot_dtype_error(a, b)
    return _matmul(a, b)


def _dot_dtype_error(a, b):
    return RuntimeError(f"dot : expected both vectors to have same dtype, but found {a.dtype._legacy[:-6]} "
                        f"and {b.dtype._legacy[:-6]}")


def mv(a, vec):
    if _AUTOCAST_ON[0] and (r := _autocast("mv", mv, a, vec)) is not None:
        return r
    if not isinstance(vec, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"mv(): argument 'vec' (position 1) must be Tensor, not {type_name(vec)}")
    if a._device is not vec._device:
        raise device_error(a, vec)
    if a._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a._data.ndim}, {vec._data.ndim}")
    if a._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a._data.shape[0]}), mat ({_sizes(a._data.shape)}), "
                           f"vec ({vec._data.shape[0]})")
    if a._data.dtype != vec._data.dtype:  # torch's addmv: its result (of vec's dtype), mat, vec
        v, m = vec.dtype._legacy[:-6], a.dtype._legacy[:-6]
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {v}, {m}, and {v}")
    return _matmul(a, vec)


def mm(a, b):
    if _AUTOCAST_ON[0] and (r := _autocast("mm", mm, a, b)) is not None:
        return r
    _check(a, b, "mm")
    if a._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return _matmul(a, b)


def bmm(a, b):
    if _AUTOCAST_ON[0] and (r := _autocast("bmm", bmm, a, b)) is not None:
        return r
    _check(a, b, "bmm")
    if a._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    sa, sb = a._data.shape, b._data.shape
    if sa[0] != sb[0] or sa[2] != sb[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{sa[0]}, {sa[2]}] "
                           f"but got: [{sb[0]}, {sb[1]}].")
    return _matmul(a, b)
