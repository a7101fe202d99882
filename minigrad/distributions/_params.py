"""Parameter helpers of the distributions (torch.distributions.utils): broadcasting numbers and
tensors together, probabilities to logits and back, dtype limits."""
from numbers import Number

from ..tensor import Tensor

# torch.finfo(dtype).eps / .tiny / .min for the float dtypes minigrad has
_EPS = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16}
_TINY = {"float32": 1.1754943508222875e-38, "float64": 2.2250738585072014e-308}
_MIN = {"float32": -3.4028234663852886e38, "float64": -1.7976931348623157e308}


def eps(dtype):
    return _EPS[dtype.name]


def tiny(dtype):
    return _TINY[dtype.name]


def lowest(dtype):
    return _MIN[dtype.name]


def broadcast_all(*values):
    """values broadcast together, numbers becoming tensors of the first tensor's dtype and device
    (of the default dtype when all are numbers)."""
    import minigrad
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, minigrad.Tensor or objects implementing "
                         "__torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        options = dict(dtype=minigrad.get_default_dtype())
        for v in values:
            if isinstance(v, Tensor):
                options = dict(dtype=v.dtype, device=v.device)
                break
        values = [v if isinstance(v, Tensor) else minigrad.tensor(v, **options) for v in values]
    shape = tuple(minigrad.broadcast_shapes(*(tuple(v.shape) for v in values)))
    # as torch's broadcast_tensors: a tensor of the broadcast shape already is returned itself
    return tuple(v if tuple(v.shape) == shape else v.expand(shape) for v in values)


def standard_normal(shape, dtype, device):
    import minigrad
    return minigrad.randn(shape, dtype=dtype, device=device)


def clamp_probs(probs):
    e = eps(probs.dtype)
    return probs.clamp(min=e, max=1 - e)


def probs_to_logits(probs, is_binary=False):
    ps = clamp_probs(probs)
    if is_binary:
        return ps.log() - (-ps).log1p()
    return ps.log()


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return logits.sigmoid()
    return logits.softmax(dim=-1)


def sum_rightmost(value, dim):
    """value summed over its last dim dims."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)
