"""Gradient checks: reverse-mode Jacobians against central finite differences.

Only the public tensor API is used (detach, clone, indexing, copy_, autograd.grad,
.cpu().numpy()), so the checks run unchanged on every device. Inputs are perturbed in
place, on their own device, and always restored; differences are taken in float64.
"""
import warnings

import numpy as np


class GradcheckError(RuntimeError):
    """A gradient disagrees with its finite-difference estimate."""


def _minigrad():
    # imported late: minigrad/__init__ imports this module while it is still initialising
    import minigrad
    return minigrad


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _is_float_tensor(mg, x):
    floats = [getattr(mg, name) for name in ("float16", "bfloat16", "float32", "float64")
              if hasattr(mg, name)]
    return isinstance(x, mg.Tensor) and any(x.dtype == d for d in floats)


def _to_numpy(t):
    # always a float64 copy: t may share memory with an input that is about to be perturbed
    return np.array(t.detach().cpu().numpy(), dtype=np.float64)


def _set_element(t, idx, value):
    if t.dim() == 0:
        t.fill_(value)
    else:
        t[idx] = value


def _index(flat, shape):
    return tuple(int(j) for j in np.unravel_index(flat, shape))


def _unit_random(mg, n):
    # drawn from minigrad's generator, so manual_seed makes fast mode reproducible
    v = _to_numpy(mg.rand(n, dtype=mg.float64)) * 2 - 1
    return v / max(np.linalg.norm(v), 1e-12)


class _Problem:
    """What gradcheck differentiates: which inputs and outputs take part, and their shapes."""

    def __init__(self, mg, func, inputs):
        self.mg, self.func, self.inputs = mg, func, inputs
        self.in_pos = [i for i, x in enumerate(inputs)
                       if isinstance(x, mg.Tensor) and x.requires_grad]
        self.in_shapes = {i: tuple(inputs[i].shape) for i in self.in_pos}
        outs = self.outputs()
        # integer and bool outputs are not differentiable; float outputs without a graph
        # are, with a zero analytical Jacobian, which the numerical one must confirm
        self.out_pos = [o for o, t in enumerate(outs) if _is_float_tensor(mg, t)]
        self.out_shapes = {o: tuple(outs[o].shape) for o in self.out_pos}

    def outputs(self):
        return _as_tuple(self.func(*self.inputs))

    def output_values(self):
        outs = self.outputs()
        return {o: _to_numpy(outs[o]).reshape(-1) for o in self.out_pos}

    def vjp(self, outs, o, seed):
        """Gradients of sum(outs[o] * seed) w.r.t. each checked input, as flat float64 arrays."""
        diff_inputs = [self.inputs[i] for i in self.in_pos]
        grads = self.mg.autograd.grad([outs[o]], diff_inputs, grad_outputs=[seed],
                                      retain_graph=True, allow_unused=True)
        result = {}
        for i, g in zip(self.in_pos, grads):
            if g is None:  # input unused by this output
                result[i] = np.zeros(int(np.prod(self.in_shapes[i], dtype=np.int64)))
                continue
            if tuple(g.shape) != self.in_shapes[i]:
                raise GradcheckError(
                    f"Gradient has incorrect shape for output {o} with respect to input {i}: "
                    f"got {tuple(g.shape)}, expected {self.in_shapes[i]}")
            result[i] = _to_numpy(g).reshape(-1)
        return result

    def perturbed(self, set_value, restore):
        """Output values after set_value() changed an input in place; restore() undoes it."""
        with self.mg.no_grad():
            set_value()
        try:
            return self.output_values()
        finally:
            with self.mg.no_grad():
                restore()


def _analytical(p, outs):
    """J[i, o] of shape (numel input i, numel output o), one backward pass per output element."""
    jac = {(i, o): np.zeros((int(np.prod(p.in_shapes[i], dtype=np.int64)),
                             int(np.prod(p.out_shapes[o], dtype=np.int64))))
           for i in p.in_pos for o in p.out_pos}
    for o in p.out_pos:
        out = outs[o]
        if not out.requires_grad:
            continue
        for col in range(out.numel()):
            seed = p.mg.zeros_like(out)
            with p.mg.no_grad():
                _set_element(seed, _index(col, p.out_shapes[o]), 1.0)
            for i, g in p.vjp(outs, o, seed).items():
                jac[i, o][:, col] = g
    return jac


def _numerical(p, eps):
    """Same layout as _analytical: row k is the central difference for input element k."""
    jac = {}
    for i in p.in_pos:
        x = p.inputs[i].detach()  # an alias: writing into it perturbs the input itself
        orig = _to_numpy(x)
        rows = {o: [] for o in p.out_pos}
        for k in range(orig.size):
            idx, v = _index(k, orig.shape), float(orig.flat[k])
            plus = p.perturbed(lambda: _set_element(x, idx, v + eps),
                               lambda: _set_element(x, idx, v))
            minus = p.perturbed(lambda: _set_element(x, idx, v - eps),
                                lambda: _set_element(x, idx, v))
            for o in p.out_pos:
                rows[o].append((plus[o] - minus[o]) / (2 * eps))
        for o in p.out_pos:
            n_out = int(np.prod(p.out_shapes[o], dtype=np.int64))
            jac[i, o] = np.array(rows[o]).reshape(orig.size, n_out)
    return jac


def _close(a, n, atol, rtol):
    return np.abs(a - n) <= atol + rtol * np.abs(n)  # NaN anywhere counts as a mismatch


def _fmt(jac):
    return np.array2string(jac, precision=4, separator=", ", suppress_small=True,
                           floatmode="fixed")


def _mismatch_message(p, i, o, num, ana, atol, rtol):
    bad = ~_close(ana, num, atol, rtol)
    k, col = (int(j) for j in np.argwhere(bad)[0])
    return (
        f"Jacobian mismatch for output {o} with respect to input {i},\n"
        f"{int(bad.sum())} of {bad.size} entries differ; first: input {i} element {k} "
        f"(index {_index(k, p.in_shapes[i])}), output {o} element {col} "
        f"(index {_index(col, p.out_shapes[o])}): analytical {float(ana[k, col])!r}, "
        f"numerical {float(num[k, col])!r} (atol={atol}, rtol={rtol})\n"
        f"(rows: elements of input {i}, columns: elements of output {o})\n"
        f"numerical:{_fmt(num)}\nanalytical:{_fmt(ana)}\n")


def _not_reentrant(nondet_tol):
    return GradcheckError(
        "Backward is not reentrant, i.e., running backward with same input and grad_output "
        "multiple times gives different values, although analytical gradient matches "
        f"numerical gradient. The tolerance for nondeterminism was {nondet_tol}.")


def _check_zero_grad_outputs(p, outs):
    # stands in for torch's undefined-grad check: a backward that ignores (or adds to) its
    # incoming gradient gives something nonzero when every output gradient is zero
    for o in p.out_pos:
        if not outs[o].requires_grad:
            continue
        for i, g in p.vjp(outs, o, p.mg.zeros_like(outs[o])).items():
            if g.size and not np.all(g == 0):
                raise GradcheckError(
                    f"Backward for output {o} with respect to input {i} is nonzero "
                    f"(max |grad| = {float(np.max(np.abs(g)))!r}) when the output gradient is all "
                    "zeros; a backward must be linear in its output gradient")


def _slow_check(p, atol, rtol, eps, nondet_tol, check_undefined_grad):
    outs = p.outputs()
    ana, ana_again = _analytical(p, outs), _analytical(p, outs)
    if check_undefined_grad:
        _check_zero_grad_outputs(p, outs)
    del outs  # the perturbation below bumps input versions; this graph must not be reused
    num = _numerical(p, eps)
    for (i, o), n in num.items():
        if not np.all(_close(ana[i, o], n, atol, rtol)):
            raise GradcheckError(_mismatch_message(p, i, o, n, ana[i, o], atol, rtol))
    for key, a in ana.items():
        if a.size and np.max(np.abs(a - ana_again[key])) > nondet_tol:
            raise _not_reentrant(nondet_tol)


def _fast_check(p, atol, rtol, eps, nondet_tol, check_undefined_grad):
    """Compares u^T J v for random unit u (per output) and v (per input): one backward
    pass per output and two forward passes per input instead of one per element."""
    mg = p.mg
    u = {o: _unit_random(mg, int(np.prod(s, dtype=np.int64))) for o, s in p.out_shapes.items()}
    v = {i: _unit_random(mg, int(np.prod(s, dtype=np.int64))) for i, s in p.in_shapes.items()}

    outs = p.outputs()
    ana = {(i, o): 0.0 for i in p.in_pos for o in p.out_pos}
    for o in p.out_pos:
        if not outs[o].requires_grad:
            continue
        seed = mg.tensor(u[o].reshape(p.out_shapes[o]), dtype=outs[o].dtype,
                         device=outs[o].device)
        first, second = p.vjp(outs, o, seed), p.vjp(outs, o, seed)
        for i in p.in_pos:
            ana[i, o] = float(first[i] @ v[i])
            if abs(ana[i, o] - float(second[i] @ v[i])) > nondet_tol:
                raise _not_reentrant(nondet_tol)
    if check_undefined_grad:
        _check_zero_grad_outputs(p, outs)
    del outs

    for i in p.in_pos:
        x = p.inputs[i].detach()
        saved = x.clone()
        orig = _to_numpy(x)

        def shifted(step):
            value = (orig.reshape(-1) + step * v[i]).reshape(orig.shape)
            return mg.tensor(value, dtype=x.dtype, device=x.device)

        plus = p.perturbed(lambda: x.copy_(shifted(eps)), lambda: x.copy_(saved))
        minus = p.perturbed(lambda: x.copy_(shifted(-eps)), lambda: x.copy_(saved))
        for o in p.out_pos:
            num = float(u[o] @ ((plus[o] - minus[o]) / (2 * eps)))
            if not _close(ana[i, o], num, atol, rtol):
                _report_fast_failure(p, i, o, ana[i, o], num, atol, rtol, eps)


def _report_fast_failure(p, i, o, ana, num, atol, rtol, eps):
    head = (f"Jacobian mismatch for output {o} with respect to input {i} in fast mode: "
            f"u^T J v for random unit vectors u, v is analytical {ana!r}, numerical {num!r} "
            f"(atol={atol}, rtol={rtol}).\n")
    # fast mode cannot tell which element is wrong: compute the full Jacobians to say
    full = _analytical(p, p.outputs())
    num_full = _numerical(p, eps)
    if not np.all(_close(full[i, o], num_full[i, o], atol, rtol)):
        raise GradcheckError(head + _mismatch_message(p, i, o, num_full[i, o], full[i, o],
                                                      atol, rtol))
    raise GradcheckError(head + "The full Jacobians agree within tolerance; the projected "
                         "error adds up over elements. Rerun with fast_mode=False to confirm.")


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, fast_mode=False):
    """Check the gradients of func at inputs against central finite differences.

    inputs is a Tensor or a tuple (non-tensors are passed through); every input with
    requires_grad=True is checked against every floating point output. Returns True, or
    raises GradcheckError (returns False when raise_exception=False) on a mismatch.
    """
    mg = _minigrad()
    p = _Problem(mg, func, _as_tuple(inputs))
    if not p.in_pos:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")
    for i in p.in_pos:
        if p.inputs[i].dtype != mg.float64:
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point. "
                "This check will likely fail if all the inputs are not of double precision "
                "floating point.", UserWarning, stacklevel=2)
    check = _fast_check if fast_mode else _slow_check
    try:
        check(p, atol, rtol, eps, nondet_tol, check_undefined_grad)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _random_like(mg, t, non_contiguous):
    shape = tuple(t.shape)
    if non_contiguous:  # every other element of a wider buffer
        g = (mg.rand(shape + (2,), dtype=t.dtype, device=t.device) * 2 - 1)[..., 0]
    else:
        g = mg.rand(shape, dtype=t.dtype, device=t.device) * 2 - 1
    return g.detach().requires_grad_(True)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, fast_mode=False):
    """Check second derivatives: gradcheck the map (inputs, grad_outputs) -> the first
    derivatives of func, computed with create_graph=True.

    grad_outputs default to random values in [-1, 1) with the outputs' dtype and device.
    """
    mg = _minigrad()
    inputs = _as_tuple(inputs)

    def differentiable(outs):
        return [t for t in _as_tuple(outs) if _is_float_tensor(mg, t) and t.requires_grad]

    if grad_outputs is None:
        grad_outputs = tuple(_random_like(mg, t, gen_non_contig_grad_outputs)
                             for t in differentiable(func(*inputs)))
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_derivatives(*args):
        ins, gos = args[:n_in], args[n_in:]
        diff_ins = [x for x in ins if isinstance(x, mg.Tensor) and x.requires_grad]
        grads = mg.autograd.grad(differentiable(func(*ins)), diff_ins, grad_outputs=list(gos),
                                 create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, fast_mode=fast_mode)
