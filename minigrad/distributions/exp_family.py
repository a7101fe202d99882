"""ExponentialFamily: densities of the form p(x; eta) = exp(<t(x), eta> - F(eta) + k(x)).

A family supplies its natural parameters eta, its log-normalizer F and the expected carrier measure
E[k(x)]. Because grad F(eta) = E[t(x)], the entropy needs nothing else:

    H = -E[log p] = F(eta) - <eta, grad F(eta)> - E[k(x)],

and the KL divergence between two members is the Bregman divergence of F (see kl.py)."""
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    @property
    def _natural_params(self):
        """eta, as a tuple of tensors of the batch shape (plus any event dims)."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """F(eta), the log of the normalizing integral, of the batch shape."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """E[k(x)] under the distribution."""
        raise NotImplementedError

    def entropy(self):
        """The entropy from F alone: grad F comes from autograd, with create_graph=True so the result
        stays differentiable in eta. (eta is detached from the distribution's own parameters first,
        as torch does, so no gradient reaches them.)"""
        from .. import autograd
        carrier = self._mean_carrier_measure
        eta = [p.detach().requires_grad_() for p in self._natural_params]
        F = self._log_normalizer(*eta)
        mean_stats = autograd.grad(F.sum(), eta, create_graph=True)  # E[t(x)] = grad F
        flat = tuple(self._batch_shape) + (-1,)
        inner = sum((e * m).reshape(flat).sum(-1) for e, m in zip(eta, mean_stats))
        return F - inner - carrier
