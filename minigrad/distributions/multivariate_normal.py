"""MultivariateNormal N(loc, S), given by S itself, by its inverse (the precision) or by a lower
triangular L with S = L L^T. Whichever is given, L (the Cholesky factor) is what the computations
use: x = loc + L eps samples it, and with n the event size

    log p(x) = -(n log 2pi + log det S + |L^-1 (x - loc)|^2) / 2,   log det S = 2 sum_i log L_ii,
    H        =  (n (1 + log 2pi) + log det S) / 2.

The linear-algebra helpers here work on batches of matrices that broadcast against batches of
vectors; kl.py and LowRankMultivariateNormal use them as well.
"""
import math

import minigrad as mg
from .. import Size
from . import constraints
from ._params import standard_normal
from .distribution import Distribution, _CentredAtLoc, _checks_value, _expand_into, lazy_property

__all__ = ["MultivariateNormal"]

_LOG_2PI = math.log(2 * math.pi)


def _batch_mv(matrices, vectors):
    """A v for every (A, v) of two broadcasting batches."""
    return (matrices @ vectors.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(tril, x):
    """|L^-1 x|^2 = x^T (L L^T)^-1 x for batches of lower-triangular L (..., n, n) and vectors x
    (..., n) whose batch shapes broadcast; one triangular solve, no inverse."""
    n = x.size(-1)
    batch = tuple(mg.broadcast_shapes(tuple(tril.shape[:-2]), tuple(x.shape[:-1])))
    y = mg.linalg.solve_triangular(tril.expand(batch + (n, n)), x.expand(batch + (n,)).unsqueeze(-1), upper=False)
    return y.squeeze(-1).pow(2).sum(-1)


def _batch_trace_xxt(m):
    """tr(M M^T): the sum of the squares of M's entries."""
    return m.pow(2).sum((-2, -1))


def _half_log_det(tril):
    """log det(L L^T) / 2 = sum_i log L_ii."""
    return tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def _gaussian_log_prob(n, log_det, mahalanobis):
    return -0.5 * (n * _LOG_2PI + log_det + mahalanobis)


def _gaussian_entropy(n, log_det, batch_shape):
    h = 0.5 * (n * (1.0 + _LOG_2PI) + log_det)
    return h.expand(batch_shape) if len(batch_shape) else h


def _scale_tril_of_precision(precision):
    """The lower Cholesky factor of P^-1 without inverting P. With J the reversal of rows, the
    Cholesky factor F of J P J gives P = U U^T for the upper-triangular U = J F J, hence
    P^-1 = (U^-T)(U^-T)^T, and U^-T (lower triangular) is the factor sought; U^T = J F^T J is F with
    both axes flipped, then transposed."""
    f = mg.linalg.cholesky(precision.flip((-2, -1)))
    u_t = f.flip((-2, -1)).transpose(-2, -1)
    eye = mg.eye(precision.shape[-1], dtype=precision.dtype, device=precision.device)
    return mg.linalg.solve_triangular(u_t, eye, upper=False)


_FACTORIZE = {
    "scale_tril": lambda m: m,
    "covariance_matrix": lambda m: mg.linalg.cholesky(m),
    "precision_matrix": _scale_tril_of_precision,
}


class MultivariateNormal(_CentredAtLoc, Distribution):
    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = {"scale_tril": scale_tril, "covariance_matrix": covariance_matrix,
                 "precision_matrix": precision_matrix}
        given = {k: v for k, v in given.items() if v is not None}
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        ((name, matrix),) = given.items()
        if matrix.dim() < 2:
            label = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{label} must be at least two-dimensional, with optional leading batch dimensions")
        batch = Size(mg.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1])))
        setattr(self, name, matrix.expand(batch + (-1, -1)))
        self.loc = loc.expand(batch + (-1,))
        super().__init__(batch, self.loc.shape[-1:], validate_args=validate_args)
        # the factor of the matrix as given (before broadcasting): batched work stays small
        self._unbroadcasted_scale_tril = _FACTORIZE[name](matrix)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        vec = batch_shape + self.event_shape
        matrices = {k: v.expand(vec + self.event_shape) for k, v in self.__dict__.items() if k in _FACTORIZE}
        return _expand_into(self, MultivariateNormal, _instance, batch_shape, loc=self.loc.expand(vec),
                            _unbroadcasted_scale_tril=self._unbroadcasted_scale_tril, **matrices)

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    # the two parameterizations not given, derived from L on demand
    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        tril = self._unbroadcasted_scale_tril
        return (tril @ tril.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        # S^-1 = L^-T L^-1
        tril = self._unbroadcasted_scale_tril
        tril_inv = mg.linalg.inv(tril)
        return (tril_inv.mT @ tril_inv).expand(self._matrix_shape())

    @property
    def variance(self):
        # diag(L L^T)_i = sum_j L_ij^2
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=Size()):
        eps = standard_normal(self._extended_shape(sample_shape), self.loc.dtype, self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    @_checks_value
    def log_prob(self, value):
        tril = self._unbroadcasted_scale_tril
        return _gaussian_log_prob(self._event_shape[0], 2 * _half_log_det(tril),
                                  _batch_mahalanobis(tril, value - self.loc))

    def entropy(self):
        return _gaussian_entropy(self._event_shape[0], 2 * _half_log_det(self._unbroadcasted_scale_tril),
                                 self._batch_shape)
