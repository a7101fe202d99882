"""L-BFGS: quasi-Newton steps built from the last few (step, gradient change) pairs, with an
optional line search for a step length satisfying the strong Wolfe conditions.

Notation used below: s_k = x_{k+1} - x_k (a step), y_k = g_{k+1} - g_k (the gradient's change),
rho_k = 1 / (y_k . s_k). The inverse Hessian is approximated implicitly from the stored pairs
(Nocedal & Wright, Numerical Optimization, algorithm 7.4, the "two-loop recursion"), starting
from the scaled identity gamma I with gamma = (s . y) / (y . y) of the newest pair.

The state keeps torch's names and layout (it is the whole optimizer's, stored under the first
parameter): func_evals, n_iter, d (direction), t (step length), old_dirs (the y_k), old_stps (the
s_k), ro (the rho_k), H_diag (gamma), prev_flat_grad, prev_loss and al (the two-loop's scratch
coefficients). Vectors are Tensors on the parameters' device; the scalars the algorithm branches
on stay 0-d Tensors or Python numbers exactly where torch's do, so that float32/float64 rounding,
and therefore every decision of the search, follows torch's.
"""
from ..autograd.grad_mode import enable_grad, no_grad
from ..ops.join import cat as _cat
from .optimizer import Optimizer, _check_scalar_tensor, _scalar

# the line search's own defaults (the optimizer's tolerance_change is not passed down to it)
_ARMIJO_C1 = 1e-4
_CURVATURE_C2 = 0.9
_SEARCH_INTERVAL_TOL = 1e-9
# a (s, y) pair is remembered only if its curvature y . s is clearly positive
_MIN_CURVATURE = 1e-10


# ---- the line search ---------------------------------------------------------------------------------

def _cubic_minimizer(ta, fa, slope_a, tb, fb, slope_b, bounds=None):
    """Minimize the cubic matching the values and slopes at two step lengths, clamped to bounds
    (by default the interval between them); with no real minimizer, the middle of the bounds."""
    if bounds is None:
        bounds = (ta, tb) if ta <= tb else (tb, ta)
    lower, upper = bounds
    theta = slope_a + slope_b - 3 * (fa - fb) / (ta - tb)
    disc = theta ** 2 - slope_a * slope_b
    if not disc >= 0:
        return (lower + upper) / 2.0
    root = disc.sqrt()
    # the stationary point with positive curvature (Nocedal & Wright eq. 3.59), measured back from
    # the right-hand end of the interval
    if ta <= tb:
        t = tb - (tb - ta) * ((slope_b + root - theta) / (slope_b - slope_a + 2 * root))
    else:
        t = ta - (ta - tb) * ((slope_a + root - theta) / (slope_a - slope_b + 2 * root))
    if lower > t:
        t = lower
    if upper < t:
        t = upper
    return t


class _Trial:
    """A step length the line search evaluated: the loss and gradient there, and the slope g . d."""
    __slots__ = ("t", "f", "g", "slope")

    def __init__(self, t, f, g, slope):
        self.t, self.f, self.g, self.slope = t, f, g, slope


def _strong_wolfe(evaluate, direction, t, f0, g0, slope0, budget):
    """A step length along `direction` with sufficient decrease (Armijo) and a small enough slope
    (strong curvature condition), by bracketing then zooming with cubic interpolation (Nocedal &
    Wright, algorithms 3.5 and 3.6). evaluate(t) gives (loss, flat gradient) at x + t d; at most
    `budget` evaluations follow the first. Returns (loss, gradient, t, evaluations)."""
    scale = direction.abs().max()  # turns an interval of t into a distance in parameter space

    def too_high(trial):
        return trial.f > (f0 + _ARMIJO_C1 * trial.t * slope0)

    def flat_enough(trial):
        return abs(trial.slope) <= -_CURVATURE_C2 * slope0

    def probe(step):
        f, g = evaluate(step)
        return _Trial(step, f, g, g.dot(direction))

    start = _Trial(0, f0, g0.clone(), slope0)
    previous, current = start, probe(t)
    evaluations = 1
    used = 0

    # 1. extrapolate until [previous, current] must contain an acceptable step
    ends = None
    while used < budget:
        if too_high(current) or (used > 1 and current.f >= previous.f):
            ends = [previous, current]
            break
        if flat_enough(current):
            return current.f, current.g, current.t, evaluations
        if current.slope >= 0:
            ends = [previous, current]
            break
        # extrapolate, at least a little past the current step and at most ten times it
        nearest = current.t + 0.01 * (current.t - previous.t)
        farthest = current.t * 10
        step = _cubic_minimizer(previous.t, previous.f, previous.slope, current.t, current.f, current.slope,
                                bounds=(nearest, farthest))
        previous, current = _Trial(current.t, current.f, current.g.clone(), current.slope), probe(step)
        evaluations += 1
        used += 1
    if used == budget:  # out of evaluations: the better of the start and the last point
        ends = [start, current]

    # 2. shrink the bracket; `best` indexes its end with the lower loss (the first one on ties)
    def lower_end():
        return 0 if ends[0].f <= ends[-1].f else 1

    best = lower_end()
    stalled = found = False
    while not found and used < budget:
        left, right = min(ends[0].t, ends[1].t), max(ends[0].t, ends[1].t)
        if abs(ends[1].t - ends[0].t) * scale < _SEARCH_INTERVAL_TOL:
            break
        step = _cubic_minimizer(ends[0].t, ends[0].f, ends[0].slope, ends[1].t, ends[1].f, ends[1].slope)
        # a step within a tenth of the interval of an end is accepted once; the next time in a row
        # (progress is too slow), or when it falls outside, it is moved a tenth inside the interval
        margin = 0.1 * (right - left)
        if min(right - step, step - left) < margin:
            if stalled or step >= right or step <= left:
                step = right - margin if abs(step - right) < abs(step - left) else left + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False

        trial = probe(step)
        evaluations += 1
        used += 1
        other = 1 - best
        if too_high(trial) or trial.f >= ends[best].f:
            ends[other] = _Trial(trial.t, trial.f, trial.g.clone(), trial.slope)
            best = lower_end()
            continue
        if flat_enough(trial):
            found = True
        elif trial.slope * (ends[other].t - ends[best].t) >= 0:
            ends[other] = ends[best]  # the minimum lies on the other side of the new point
        ends[best] = _Trial(trial.t, trial.f, trial.g.clone(), trial.slope)

    chosen = ends[best]
    return chosen.f, chosen.g, chosen.t, evaluations


# ---- the two-loop recursion ----------------------------------------------------------------------------

def _remember_pair(memory, s, y, history_size):
    """Add (s, y) to the history if its curvature is positive (dropping the oldest pair when
    full) and return gamma = s.y / y.y for the initial inverse Hessian; otherwise keep the old."""
    sy = y.dot(s)
    if not sy > _MIN_CURVATURE:
        return memory["H_diag"]
    y_hist, s_hist, rhos = memory["old_dirs"], memory["old_stps"], memory["ro"]
    if len(y_hist) == history_size:
        for history in (y_hist, s_hist, rhos):
            del history[0]
    y_hist.append(y)
    s_hist.append(s)
    rhos.append(1.0 / sy)
    return sy / y.dot(y)


def _inverse_hessian_times(minus_grad, y_hist, s_hist, rhos, gamma, alphas):
    """H (-g) for the implicit L-BFGS inverse Hessian H: newest-to-oldest projections, the scaled
    identity, then oldest-to-newest corrections. alphas (torch's `al`) receives the coefficients."""
    q = minus_grad
    for k in reversed(range(len(y_hist))):
        alphas[k] = s_hist[k].dot(q) * rhos[k]
        q.add_(y_hist[k], alpha=-alphas[k])
    r = q.mul(gamma)
    for k in range(len(y_hist)):
        beta = y_hist[k].dot(r) * rhos[k]
        r.add_(s_hist[k], alpha=alphas[k] - beta)
    return r


def _largest_entry(v):
    return v.abs().max()


class LBFGS(Optimizer):
    """torch.optim.LBFGS, with the same arguments, defaults, state and iterates. One parameter
    group only; step(closure) needs the closure, which re-evaluates the loss and its gradients
    (it may be called several times per step)."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        _check_scalar_tensor(lr, "lr")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval, "tolerance_grad": tolerance_grad,
                    "tolerance_change": tolerance_change, "history_size": history_size,
                    "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # -- the parameters seen as one flat vector --

    def _flat_grad(self):
        """All gradients concatenated (zeros for a parameter without one)."""
        pieces = [p.new_zeros(p.numel()) if p.grad is None else p.grad.reshape(-1) for p in self._params]
        return _cat(pieces, 0)

    def _move(self, t, direction):
        """x += t * direction, the flat direction split back into the parameters' shapes."""
        start = 0
        for p in self._params:
            stop = start + p.numel()
            p.add_(direction[start:stop].view_as(p), alpha=t)
            start = stop

    def _evaluate_at(self, closure, origin, t, direction):
        """The loss and flat gradient at origin + t * direction; the parameters are put back."""
        self._move(t, direction)
        loss = float(closure())
        grad = self._flat_grad()
        for p, saved in zip(self._params, origin, strict=True):
            p.copy_(saved)
        return loss, grad

    # -- the optimization --

    def step(self, closure):
        """Perform one optimization step (up to max_iter iterations); returns the closure's first loss."""
        with no_grad():
            return self._run(enable_grad()(closure))

    def _run(self, closure):
        if len(self.param_groups) != 1:  # (a group added after construction)
            raise AssertionError(f"Expected exactly one param_group, but got {len(self.param_groups)}")
        group = self.param_groups[0]
        lr = _scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        first_loss = closure()
        loss = float(first_loss)
        state["func_evals"] += 1
        evals_this_step = 1
        grad = self._flat_grad()
        if _largest_entry(grad) <= tolerance_grad:  # already at a stationary point
            return first_loss

        # carried over from the previous call (all None on the first one)
        d, t = state.get("d"), state.get("t")
        prev_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        work = {key: state.get(key) for key in ("old_dirs", "old_stps", "ro", "H_diag")}

        for iteration in range(1, max_iter + 1):
            state["n_iter"] += 1
            first_ever = state["n_iter"] == 1

            if first_ever:  # steepest descent, with an empty history
                d = grad.neg()
                work.update(old_dirs=[], old_stps=[], ro=[], H_diag=1)
            else:
                work["H_diag"] = _remember_pair(work, d.mul(t), grad.sub(prev_grad), history_size)
                if "al" not in state:
                    state["al"] = [None] * history_size
                d = _inverse_hessian_times(grad.neg(), work["old_dirs"], work["old_stps"], work["ro"],
                                           work["H_diag"], state["al"])

            if prev_grad is None:
                prev_grad = grad.clone()
            else:
                prev_grad.copy_(grad)
            prev_loss = loss

            # the first step ever is scaled down by the gradient's l1 norm (min(1, 1/|g|_1) * lr)
            if first_ever:
                inv_l1 = 1.0 / grad.abs().sum()
                t = (inv_l1 if inv_l1 < 1.0 else 1.0) * lr
            else:
                t = lr

            slope = grad.dot(d)
            if slope > -tolerance_change:  # not a descent direction any more
                break

            if line_search_fn is None:
                # a fixed step; the gradient there is needed only if another iteration follows
                self._move(t, d)
                new_evals = 0
                converged = False
                if iteration != max_iter:
                    loss = float(closure())
                    grad = self._flat_grad()
                    converged = _largest_entry(grad) <= tolerance_grad
                    new_evals = 1
            else:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                origin = [p.clone() for p in self._params]

                def evaluate(step, origin=origin, direction=d):
                    return self._evaluate_at(closure, origin, step, direction)

                loss, grad, t, new_evals = _strong_wolfe(evaluate, d, t, loss, grad, slope,
                                                         max_eval - evals_this_step)
                self._move(t, d)
                converged = _largest_entry(grad) <= tolerance_grad

            evals_this_step += new_evals
            state["func_evals"] += new_evals

            if iteration == max_iter or evals_this_step >= max_eval or converged:
                break
            if _largest_entry(d.mul(t)) <= tolerance_change:  # the step no longer moves x
                break
            if abs(loss - prev_loss) < tolerance_change:  # nor the loss
                break

        state["d"] = d
        state["t"] = t
        for key in ("old_dirs", "old_stps", "ro", "H_diag"):
            state[key] = work[key]
        state["prev_flat_grad"] = prev_grad
        state["prev_loss"] = prev_loss
        return first_loss
