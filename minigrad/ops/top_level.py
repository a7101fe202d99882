"""torch's top-level spellings that minigrad lacked: swapdims, as_strided_, get_device,
is_inference, nonzero_static, binomial, fork/wait (run at once: minigrad.jit)."""
from ..tensor import Tensor


def _tensor(op, x, arg="input", pos=1):
    if not isinstance(x, Tensor):
        from .._arg_errors import type_name
        raise TypeError(f"{op}(): argument '{arg}' (position {pos}) must be Tensor, not {type_name(x)}")
    return x


def swapdims(input, dim0, dim1):
    return _tensor("swapdims", input).transpose(dim0, dim1)


def as_strided_(input, size, stride, storage_offset=None):
    return _tensor("as_strided_", input).as_strided_(size, stride, storage_offset)


def get_device(input):
    return _tensor("get_device", input).get_device()


def is_inference(input):
    return _tensor("is_inference", input).is_inference()


def nonzero_static(input, *, size, fill_value=-1):
    """The first size rows of nonzero(input), padded with fill_value rows when there are fewer."""
    from .. import full, cat
    from .._arg_errors import _is_long
    _tensor("nonzero_static", input)
    if not _is_long(size) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    nz = input.nonzero()
    n, nd = nz.shape[0], input.dim()
    if n >= size:
        return nz[:size].clone()
    pad = full((size - n, nd), fill_value, dtype=nz.dtype, device=input.device)
    return cat([nz.reshape(n, nd), pad])


_CHUNK = 256  # Bernoulli trials drawn per round


def binomial(count, prob, generator=None):
    """Draws of Binomial(count, prob) (elementwise, broadcast): the number of count trials with
    uniforms below prob, drawn in rounds of _CHUNK trials. A count below 1 gives 0, prob >= 1
    gives count, as torch; no gradient flows (torch's node raises on backward)."""
    from .. import rand, zeros, arange, broadcast_tensors, no_grad
    _tensor("binomial", count, "count", 1)
    _tensor("binomial", prob, "prob", 2)
    if not count.dtype.is_floating_point:
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: {count.dtype._legacy[:-6]}")
    if prob.dtype is not count.dtype:
        raise RuntimeError(f"Found dtype {prob.dtype._legacy[:-6]} but expected {count.dtype._legacy[:-6]}")
    with no_grad():
        c, p = broadcast_tensors(count.detach(), prob.detach())
        n = c.floor().clamp_min(0)
        out = zeros(c.shape, dtype=c.dtype, device=c.device)
        top = int(n.max().item()) if n.numel() else 0
        for start in range(0, top, _CHUNK):
            k = min(_CHUNK, top - start)
            u = rand(*c.shape, k, dtype=c.dtype, device=c.device, generator=generator)
            live = (arange(start, start + k, device=c.device, dtype=c.dtype) < n.unsqueeze(-1))
            out += ((u < p.unsqueeze(-1)) & live).sum(-1).to(c.dtype)
    return out


def fork(func, *args, **kwargs):
    from ..jit import fork as _fork
    return _fork(func, *args, **kwargs)


def wait(future):
    return future.wait()


FUNCTIONS = {"swapdims": swapdims, "as_strided_": as_strided_, "get_device": get_device,
             "is_inference": is_inference, "nonzero_static": nonzero_static, "binomial": binomial,
             "fork": fork, "wait": wait}


def attach_methods(cls):
    """The Tensor methods torch has for these (and prelu/hardshrink, spelled as in F)."""
    from ..nn import functional as F
    from . import legacy_linalg as ll
    cls.nonzero_static = lambda self, *, size, fill_value=-1: nonzero_static(self, size=size, fill_value=fill_value)
    cls.prelu = lambda self, weight: F.prelu(self, weight)
    cls.hardshrink = lambda self, lambd=0.5: F.hardshrink(self, lambd)
    if not hasattr(cls, "lu"):
        cls.lu = lambda self, pivot=True, get_infos=False: ll.lu(self, pivot, get_infos)
    if not hasattr(cls, "lu_solve"):
        cls.lu_solve = lambda self, LU_data, LU_pivots: ll.lu_solve(self, LU_data, LU_pivots)
    if not hasattr(cls, "cholesky"):
        cls.cholesky = lambda self, upper=False: ll.cholesky(self, upper)
