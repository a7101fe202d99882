"""LowRankMultivariateNormal: N(loc, S) with S = W W^T + D, W an n x m "cov_factor" (m usually much
smaller than n) and D = diag(cov_diag) > 0.

Nothing of size n x n is factorized. Everything goes through the m x m capacitance matrix
C = I + W^T D^-1 W and its Cholesky factor L_C:

    S^-1      = D^-1 - D^-1 W C^-1 W^T D^-1                  (Woodbury identity)
    log det S = log det C + log det D                         (matrix determinant lemma)
    x^T S^-1 x = x^T D^-1 x - |L_C^-1 W^T D^-1 x|^2

and a draw is loc + W e1 + D^1/2 e2 with e1 (m) and e2 (n) standard normal: its covariance is
W W^T + D.
"""
import minigrad as mg
from .. import Size
from . import constraints
from ._params import standard_normal
from .distribution import Distribution, _CentredAtLoc, _checks_value, _expand_into, lazy_property
from .multivariate_normal import _batch_mahalanobis, _batch_mv, _gaussian_entropy, _gaussian_log_prob

__all__ = ["LowRankMultivariateNormal"]


def _plus_identity(m):
    return m + mg.eye(m.shape[-1], dtype=m.dtype, device=m.device)


def _wt_dinv(w, d):
    """W^T D^-1, an m x n matrix: the columns of W^T divided by the diagonal."""
    return w.mT / d.unsqueeze(-2)


def _batch_capacitance_tril(w, d):
    """L_C, the Cholesky factor of C = I + W^T D^-1 W."""
    return mg.linalg.cholesky(_plus_identity(_wt_dinv(w, d) @ w))


def _batch_lowrank_logdet(w, d, capacitance_tril):
    """log det(W W^T + D) = log det C + sum log D."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + d.log().sum(-1)


def _batch_lowrank_mahalanobis(w, d, x, capacitance_tril):
    """x^T (W W^T + D)^-1 x = x^T D^-1 x - |L_C^-1 W^T D^-1 x|^2."""
    return (x.pow(2) / d).sum(-1) - _batch_mahalanobis(capacitance_tril, _batch_mv(_wt_dinv(w, d), x))


class LowRankMultivariateNormal(_CentredAtLoc, Distribution):
    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        n = loc.shape[-1]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2] != n:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {n} x m")
        if tuple(cov_diag.shape[-1:]) != (n,):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {loc.shape[-1:]}")
        # broadcast the batch dims of all three by viewing the vectors as n x 1 matrices
        try:
            loc_col, self.cov_factor, diag_col = mg.broadcast_tensors(loc.unsqueeze(-1), cov_factor,
                                                                      cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                             f"cov_diag {cov_diag.shape}") from e
        self.loc, self.cov_diag = loc_col[..., 0], diag_col[..., 0]
        # the computations use the parameters as given, before broadcasting
        self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag = cov_factor, cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], (n,), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        vec = batch_shape + self.event_shape
        shared = {k: getattr(self, k) for k in ("_unbroadcasted_cov_factor", "_unbroadcasted_cov_diag",
                                                "_capacitance_tril")}  # unbroadcast: nothing to expand
        return _expand_into(self, LowRankMultivariateNormal, _instance, batch_shape, loc=self.loc.expand(vec),
                            cov_diag=self.cov_diag.expand(vec),
                            cov_factor=self.cov_factor.expand(vec + self.cov_factor.shape[-1:]), **shared)

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def variance(self):
        # diag(W W^T + D)_i = sum_j W_ij^2 + D_i
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (w.pow(2).sum(-1) + d).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        # S = D^1/2 (I + K) D^1/2 with K = D^-1/2 W W^T D^-1/2, so chol(S) = D^1/2 chol(I + K): the
        # matrix factorized is better conditioned than S itself
        d_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        v = self._unbroadcasted_cov_factor / d_sqrt
        tril = d_sqrt * mg.linalg.cholesky(_plus_identity(v @ v.mT))
        return tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        w = self._unbroadcasted_cov_factor
        return (w @ w.mT + mg.diag_embed(self._unbroadcasted_cov_diag)).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        # Woodbury: S^-1 = D^-1 - A^T A with A = L_C^-1 W^T D^-1
        d = self._unbroadcasted_cov_diag
        a = mg.linalg.solve_triangular(self._capacitance_tril, _wt_dinv(self._unbroadcasted_cov_factor, d),
                                       upper=False)
        return (mg.diag_embed(d.reciprocal()) - a.mT @ a).expand(self._matrix_shape())

    def rsample(self, sample_shape=Size()):
        draw_shape = self._extended_shape(sample_shape)
        # noise for the low-rank part first, then for the diagonal part
        e_factor = standard_normal(draw_shape[:-1] + self.cov_factor.shape[-1:], self.loc.dtype, self.loc.device)
        e_diag = standard_normal(draw_shape, self.loc.dtype, self.loc.device)
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return self.loc + _batch_mv(w, e_factor) + d.sqrt() * e_diag

    def _log_det(self):
        return _batch_lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                     self._capacitance_tril)

    @_checks_value
    def log_prob(self, value):
        maha = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                          value - self.loc, self._capacitance_tril)
        return _gaussian_log_prob(self._event_shape[0], self._log_det(), maha)

    def entropy(self):
        return _gaussian_entropy(self._event_shape[0], self._log_det(), self._batch_shape)
