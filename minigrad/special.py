"""torch.special: the special functions of ops/special.py (their own kernels) and, under torch's
special_* names, the functions minigrad already has elsewhere (erf, expit = sigmoid, logit, ...)."""
from . import functional as _F
from .ops import special as _special
from .ops.math_more import xlogy as _xlogy, FUNCTIONS as _MATH_MORE
from .ops.tensor_extras import logit as _logit
from .tensor import Tensor as _Tensor

_OWN = _special.special_functions()
(gammaln, digamma, psi, polygamma, multigammaln, erfc, erfcx, erfinv, i0, i0e, i1, i1e, ndtr, ndtri, log_ndtr, entr,
 xlog1py, zeta, gammainc, gammaincc) = (_OWN[n] for n in (
    "gammaln", "digamma", "psi", "polygamma", "multigammaln", "erfc", "erfcx", "erfinv", "i0", "i0e", "i1", "i1e",
    "ndtr", "ndtri", "log_ndtr", "entr", "xlog1py", "zeta", "gammainc", "gammaincc"))

# Bessel and Airy functions, orthogonal polynomials (ops/special.py's BESSEL and POLYNOMIALS)
_MORE = _special.more_special_functions()
globals().update(_MORE)


def _tensor(x, name):
    if not isinstance(x, _Tensor):
        from ._typename import typename
        raise TypeError(f"special_{name}(): argument 'input' (position 1) must be Tensor, not {typename(type(x))}")
    return x


def erf(input):
    return _tensor(input, "erf").erf()


def expit(input):
    return _tensor(input, "expit").sigmoid()


def exp2(input):
    return _MATH_MORE["exp2"](_tensor(input, "exp2"))


def expm1(input):
    return _tensor(input, "expm1").expm1()


def log1p(input):
    return _tensor(input, "log1p").log1p()


def sinc(input):
    return _MATH_MORE["sinc"](_tensor(input, "sinc"))


def logit(input, eps=None):
    return _logit(_tensor(input, "logit"), eps)


def round(input, *, decimals=0):
    return _tensor(input, "round").round(decimals=decimals)


def xlogy(input, other):
    return _xlogy(input, other)


def softmax(input, dim, *, dtype=None):
    return _F.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    return _F.log_softmax(input, dim, dtype=dtype)


def logsumexp(input, dim, keepdim=False):
    return _F.logsumexp(input, dim, keepdim)


__all__ = ["digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc",
           "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy",
           "zeta"] + sorted(_MORE)
