"""biject_to and transform_to (the API of torch.distributions.constraint_registry).

Both map a constraint to a Transform from the unconstrained reals onto the constrained set, so a
constrained parameter can be optimized as an unconstrained one:

    raw = zeros(n, requires_grad=True);  scale = transform_to(constraints.positive)(raw)

`biject_to(c)` promises a bijection, whose log|det J| is usable in densities (Hamiltonian Monte
Carlo, variational inference). `transform_to(c)` only promises to land in c, which allows maps that
are many-to-one or change dimension (softmax onto the simplex, X X^T onto the SPD matrices).
Lookup is by the constraint's class, so a factory receives the instance and reads its bounds.
"""
from numbers import Number

from . import constraints, transforms

__all__ = ['ConstraintRegistry', 'biject_to', 'transform_to']


class ConstraintRegistry:
    """A table from Constraint subclasses to factories `factory(constraint) -> Transform`."""

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        """Register factory for a Constraint subclass (an instance stands for its class). Without a
        factory this returns a decorator: @biject_to.register(constraints.positive)."""
        if factory is None:
            return lambda f: self.register(constraint, f)
        key = type(constraint) if isinstance(constraint, constraints.Constraint) else constraint
        if not (isinstance(key, type) and issubclass(key, constraints.Constraint)):
            raise TypeError(f'Expected constraint to be either a Constraint subclass or instance, but got {key}')
        self._registry[key] = factory
        return factory

    def __call__(self, constraint):
        factory = self._registry.get(type(constraint))
        if factory is None:
            raise NotImplementedError(f'Cannot transform {type(constraint).__name__} constraints')
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


# ---- factories --------------------------------------------------------------------------------------

def _fixed(transform_class):
    """A factory for a transform without parameters, whatever the constraint's own parameters."""
    return lambda c: transform_class()


def _identity(c):
    return transforms.identity_transform


def _exp_shifted(bound, direction):
    """x -> bound + direction * exp(x): onto (bound, inf) for direction +1, (-inf, bound) for -1."""
    return transforms.ComposeTransform([transforms.ExpTransform(), transforms.AffineTransform(bound, direction)])


def _above(c):
    return _exp_shifted(c.lower_bound, 1)


def _below(c):
    return _exp_shifted(c.upper_bound, -1)


def _squash(c):
    """x -> lower + (upper - lower) * sigmoid(x); the plain sigmoid when the interval is [0, 1]."""
    lo, hi = c.lower_bound, c.upper_bound
    if isinstance(lo, Number) and isinstance(hi, Number) and (lo, hi) == (0, 1):
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(), transforms.AffineTransform(lo, hi - lo)])


def _combinators(registry):
    """Factories for independent / cat / stack that look their pieces up in the same registry."""
    def independent(c):
        return transforms.IndependentTransform(registry(c.base_constraint), c.reinterpreted_batch_ndims)

    def cat(c):
        return transforms.CatTransform([registry(part) for part in c.cseq], c.dim, c.lengths)

    def stack(c):
        return transforms.StackTransform([registry(part) for part in c.cseq], c.dim)
    return {constraints.independent: independent, constraints.cat: cat, constraints.stack: stack}


# positive / nonnegative are instances of the greater_than classes, so they get exp shifted by 0.
_SHARED = {  # bijections, so valid for both registries
    constraints.real: _identity,
    constraints.greater_than: _above,
    constraints.greater_than_eq: _above,
    constraints.less_than: _below,
    constraints.interval: _squash,
    constraints.half_open_interval: _squash,
}
_BIJECTIONS_ONLY = {constraints.simplex: _fixed(transforms.StickBreakingTransform)}
_ONTO_ONLY = {  # maps that discard part of their input (not injective): for transform_to only
    constraints.simplex: _fixed(transforms.SoftmaxTransform),
    constraints.lower_cholesky: _fixed(transforms.LowerCholeskyTransform),
    constraints.positive_definite: _fixed(transforms.PositiveDefiniteTransform),
    constraints.positive_semidefinite: _fixed(transforms.PositiveDefiniteTransform),
}

for _registry, _own in ((biject_to, _BIJECTIONS_ONLY), (transform_to, _ONTO_ONLY)):
    for _table in (_SHARED, _own, _combinators(_registry)):
        for _constraint, _factory in _table.items():
            _registry.register(_constraint, _factory)
del _registry, _own, _table, _constraint, _factory
