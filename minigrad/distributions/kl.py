"""kl_divergence(p, q) and register_kl: KL(p || q) looked up by the pair of distribution types,
the most specific registered match winning (as torch.distributions.kl)."""
import math
import warnings
from functools import total_ordering

from .continuous import Normal, Uniform
from .discrete import Bernoulli, Categorical
from .distribution import Distribution
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis, _batch_trace_xxt

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY = {}  # (type_p, type_q) -> fn(p, q)
_KL_MEMOIZE = {}


def register_kl(type_p, type_q):
    """Decorator registering fn(p, q) as KL(p || q) for p of type_p and q of type_q (or subclasses)."""
    if not isinstance(type_p, type) and issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) and issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # the lookup order may have changed
        return fun
    return decorator


@total_ordering
class _Match:
    __slots__ = ["types"]

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    """The most specific registered match, assuming single inheritance."""
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun, right_fun = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=2)
    return left_fun


def kl_divergence(p, q):
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
                                  f"{q.__class__.__name__}")
    return fun(p, q)


def _where(cond, value, x):
    import minigrad
    return minigrad.where(cond, minigrad.full_like(x, value), x)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    import minigrad
    softplus = minigrad.nn.functional.softplus
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = _where((p.probs == 0).expand_as(t1), 0.0, _where((q.probs == 0).expand_as(t1), math.inf, t1))
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = _where((p.probs == 1).expand_as(t2), 0.0, _where((q.probs == 1).expand_as(t2), math.inf, t2))
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = _where((q.probs == 0).expand_as(t), math.inf, t)
    t = _where((p.probs == 0).expand_as(t), 0.0, t)
    return t.sum(-1)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _where((q.low > p.low) | (q.high < p.high), math.inf, result)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    import minigrad
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         "computed")
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = (Lq.diagonal(dim1=-2, dim2=-1).log().sum(-1) - Lp.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    combined = tuple(minigrad.broadcast_shapes(tuple(Lq.shape[:-2]), tuple(Lp.shape[:-2])))
    n = p.event_shape[0]
    q_scale_tril = Lq.expand(combined + (n, n))
    p_scale_tril = Lp.expand(combined + (n, n))
    term2 = _batch_trace_xxt(minigrad.linalg.solve_triangular(q_scale_tril, p_scale_tril, upper=False))
    term3 = _batch_mahalanobis(Lq, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)
