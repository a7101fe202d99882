"""Autograd semantics pinned to PyTorch's: the engine, grad modes, hooks and custom Functions.

Expected values are worked out by hand so these tests do not need torch installed; every
expectation was also checked against torch 2.13.
"""
import gc
import sys
import threading
import warnings
import weakref

import numpy as np
import pytest

import minigrad
from minigrad.autograd import Function


def close(t, expected, atol=1e-4):
    return np.allclose(t.detach().cpu().numpy(), np.asarray(expected, dtype=np.float64), atol=atol)


# --- seed 003: x+2 -> **2 -> +3 -> mean -------------------------------------------------------

def seed_graph(device="cpu"):
    x = minigrad.arange(1, 4, dtype=minigrad.float32, requires_grad=True, device=device)
    a = x + 2
    b = a ** 2
    c = b + 3
    y = c.mean()
    return x, y


def test_seed_003_forward_repr():
    x, y = seed_graph()
    assert "X " + repr(x) == "X tensor([1., 2., 3.], requires_grad=True)"
    assert repr(y) == "tensor(19.6667, grad_fn=<MeanBackward0>)"
    # mean of (x+2)**2 + 3 over x = 1, 2, 3: (9 + 16 + 25) / 3 + 3
    assert y.item() == pytest.approx(50 / 3 + 3, rel=1e-6)


def test_seed_003_backward(device):
    x, y = seed_graph(device)
    y.backward()
    # d/dx mean((x+2)**2 + 3) = 2 (x+2) / 3
    assert close(x.grad, [2 * 3 / 3, 2 * 4 / 3, 2 * 5 / 3], atol=1e-6)
    assert repr(x.grad.cpu()) == "tensor([2.0000, 2.6667, 3.3333])"
    assert x.grad.dtype == minigrad.float32
    assert x.grad.grad_fn is None and not x.grad.requires_grad


def test_seed_003_graph_structure():
    x, y = seed_graph()
    assert type(y.grad_fn).__name__ == "MeanBackward0"
    assert repr(y.grad_fn).startswith("<MeanBackward0 object at ")
    names = []
    fn = y.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        for entry in fn.next_functions:
            assert isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], int)
        # python scalars contribute a (None, 0) entry in torch: follow the tensor edge
        nxt = [f for f, _ in fn.next_functions if f is not None]
        assert len(nxt) <= 1
        fn = nxt[0] if nxt else None
    assert names == ["MeanBackward0", "AddBackward0", "PowBackward0", "AddBackward0", "AccumulateGrad"]


def test_accumulate_grad_node_points_at_leaf():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    (fn, _), = [e for e in (x * 2).grad_fn.next_functions if e[0] is not None]
    assert type(fn).__name__ == "AccumulateGrad"
    assert fn.variable is x
    assert x.grad_fn is None


def test_same_leaf_twice_shares_one_accumulate_node():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    (f0, _), (f1, _) = (x * x).grad_fn.next_functions
    assert f0 is f1


# --- backward() arguments ---------------------------------------------------------------------

def test_backward_with_gradient_for_non_scalar(device):
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True, device=device)
    y = x * x
    y.backward(gradient=minigrad.tensor([1.0, 0.0, 2.0], device=device))
    assert close(x.grad, [2.0, 0.0, 12.0])
    x.grad = None
    (x * x).backward(minigrad.tensor([1.0, 1.0, 1.0], device=device))  # positional too
    assert close(x.grad, [2.0, 4.0, 6.0])


def test_retain_graph_allows_second_backward_and_accumulates(device):
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True, device=device)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    assert close(x.grad, [2.0, 4.0, 6.0])
    y.backward()
    assert close(x.grad, [4.0, 8.0, 12.0])


def test_gradients_accumulate_across_graphs():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    (x * x).sum().backward()
    assert close(x.grad, [3 + 2, 3 + 4])
    x.grad = None
    (x * 3).sum().backward()
    assert close(x.grad, [3.0, 3.0])


def test_preset_grad_is_accumulated_into():
    x = minigrad.ones(2, requires_grad=True)
    x.grad = minigrad.tensor([5.0, 6.0])
    (x * 1).sum().backward()
    assert close(x.grad, [6.0, 7.0])


def test_create_graph_higher_derivatives(device):
    x = minigrad.tensor(2.0, requires_grad=True, device=device)
    y = x ** 3
    (g1,) = minigrad.autograd.grad(y, x, create_graph=True)
    assert g1.requires_grad and g1.grad_fn is not None
    assert g1.item() == pytest.approx(12.0)  # 3x^2
    (g2,) = minigrad.autograd.grad(g1, x, create_graph=True)
    assert g2.item() == pytest.approx(12.0)  # 6x
    (g3,) = minigrad.autograd.grad(g2, x)
    assert g3.item() == pytest.approx(6.0)
    assert x.grad is None


def test_backward_create_graph_makes_grad_differentiable():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns about the param <-> grad reference cycle
        (x ** 3).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    assert close(x.grad, [3.0, 12.0])
    (g2,) = minigrad.autograd.grad(x.grad.sum(), x)
    assert close(g2, [6.0, 12.0])


def test_second_derivative_of_a_product_chain():
    # f = sin(x) * x ; f'' = -sin(x) x + 2 cos(x)
    x = minigrad.tensor([0.5, 1.5], dtype=minigrad.float64, requires_grad=True)
    (g,) = minigrad.autograd.grad((x.sin() * x).sum(), x, create_graph=True)
    (gg,) = minigrad.autograd.grad(g.sum(), x)
    xs = np.array([0.5, 1.5])
    assert close(gg, -np.sin(xs) * xs + 2 * np.cos(xs), atol=1e-10)


# --- autograd.grad ----------------------------------------------------------------------------

def test_grad_with_grad_outputs_and_leaves_untouched():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    g = minigrad.autograd.grad(x ** 2, x, grad_outputs=minigrad.tensor([1.0, 3.0]))
    assert isinstance(g, tuple) and len(g) == 1
    assert close(g[0], [2.0, 12.0])
    assert x.grad is None


def test_grad_accepts_sequences():
    a = minigrad.tensor(2.0, requires_grad=True)
    b = minigrad.tensor(3.0, requires_grad=True)
    ga, gb = minigrad.autograd.grad([a * b], [a, b], grad_outputs=[minigrad.tensor(2.0)])
    assert ga.item() == pytest.approx(6.0) and gb.item() == pytest.approx(4.0)


def test_grad_allow_unused():
    a = minigrad.tensor([1.0], requires_grad=True)
    b = minigrad.tensor([1.0], requires_grad=True)
    ga, gb = minigrad.autograd.grad((a * 3).sum(), [a, b], allow_unused=True)
    assert close(ga, [3.0])
    assert gb is None


def test_grad_unused_input_raises_without_allow_unused():
    a = minigrad.tensor([1.0], requires_grad=True)
    b = minigrad.tensor([1.0], requires_grad=True)
    # torch < 2.x said "One of the differentiated Tensors", 2.13 names the index
    with pytest.raises(RuntimeError, match=r"appears to not have been used in the graph\. "
                                           r"Set allow_unused=True if this is the desired behavior\."):
        minigrad.autograd.grad((a * 3).sum(), [a, b])


def test_grad_wrt_non_leaf():
    x = minigrad.tensor([2.0], requires_grad=True)
    h = x * x
    out = (h * 3).sum()
    (gh,) = minigrad.autograd.grad(out, h)
    assert close(gh, [3.0])
    assert x.grad is None and h.grad_fn is not None


def test_grad_does_not_touch_existing_grad():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    x.grad = minigrad.tensor([7.0, 7.0])
    minigrad.autograd.grad((x * x).sum(), x)
    assert close(x.grad, [7.0, 7.0])


# --- grad modes -------------------------------------------------------------------------------

def test_grad_mode_context_managers_nest():
    x = minigrad.ones(2, requires_grad=True)
    assert minigrad.is_grad_enabled()
    with minigrad.no_grad():
        assert not minigrad.is_grad_enabled()
        y = x * 2
        with minigrad.enable_grad():
            assert minigrad.is_grad_enabled()
            z = x * 2
        assert not minigrad.is_grad_enabled()
    assert minigrad.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad and z.grad_fn is not None
    with minigrad.set_grad_enabled(False):
        assert not minigrad.is_grad_enabled()
        with minigrad.set_grad_enabled(True):
            assert (x * 2).requires_grad
    assert minigrad.is_grad_enabled()


def test_grad_mode_restored_after_exception():
    with pytest.raises(ValueError):
        with minigrad.no_grad():
            raise ValueError
    assert minigrad.is_grad_enabled()


def test_set_grad_enabled_as_function():
    try:
        minigrad.set_grad_enabled(False)
        assert not minigrad.is_grad_enabled()
        assert not (minigrad.ones(1, requires_grad=True) * 2).requires_grad
    finally:
        minigrad.set_grad_enabled(True)
    assert minigrad.is_grad_enabled()


def test_grad_mode_is_per_thread():
    # as in torch: a no_grad() in one thread (an evaluation, say) leaves another thread recording
    x = minigrad.ones(3, requires_grad=True)
    inside, release = threading.Event(), threading.Event()
    seen = {}

    def evaluate():
        with minigrad.no_grad():
            seen["evaluating"] = (x * 2).requires_grad
            inside.set()
            release.wait(10)
        seen["after"] = minigrad.is_grad_enabled()

    t = threading.Thread(target=evaluate)
    t.start()
    assert inside.wait(10)
    try:
        assert minigrad.is_grad_enabled()
        y = (x * 3).sum()
        assert y.requires_grad
        y.backward()
        assert x.grad.tolist() == [3.0, 3.0, 3.0]
    finally:
        release.set()
        t.join()
    assert seen == {"evaluating": False, "after": True}
    if getattr(sys.flags, "thread_inherit_context", 0):
        return  # Python 3.14+ can start threads in a copy of the caller's context (and mode)
    # a new thread starts with grad mode on, even when started inside no_grad()
    with minigrad.no_grad():
        t = threading.Thread(target=lambda: seen.update(new=minigrad.is_grad_enabled()))
        t.start()
        t.join()
        assert not minigrad.is_grad_enabled()
    assert seen["new"] is True and minigrad.is_grad_enabled()


def test_grad_modes_as_decorators():
    @minigrad.no_grad()
    def f(t):
        return t * 2

    @minigrad.no_grad
    def g(t):
        return t * 2

    @minigrad.set_grad_enabled(False)
    def h(t):
        return t * 2

    @minigrad.enable_grad()
    def k(t):
        return t * 2

    x = minigrad.ones(1, requires_grad=True)
    assert not f(x).requires_grad
    assert not g(x).requires_grad
    assert not h(x).requires_grad
    assert minigrad.is_grad_enabled()
    with minigrad.no_grad():
        assert k(x).requires_grad
    assert f.__name__ == "f"


def test_leaf_keeps_requires_grad_under_no_grad_and_inplace_is_allowed():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with minigrad.no_grad():
        x.add_(1)
        x *= 2
        x[0] = 0
    assert x.requires_grad and x.is_leaf
    assert close(x, [0.0, 6.0, 8.0])


# --- detach, requires_grad_, retain_grad, hooks -----------------------------------------------

def test_detach_shares_memory_and_drops_grad():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    with minigrad.no_grad():
        d[0] = 5.0
    assert x[0].item() == 5.0
    y = x * 2
    assert not y.detach().requires_grad


def test_detach_in_place():
    x = minigrad.ones(3, requires_grad=True)
    z = x * 2
    r = z.detach_()
    assert r is z
    assert not z.requires_grad and z.grad_fn is None and z.is_leaf


def test_requires_grad_in_place():
    x = minigrad.ones(3)
    assert not x.requires_grad
    assert x.requires_grad_() is x
    assert x.requires_grad
    x.requires_grad_(False)
    assert not x.requires_grad


def test_integer_and_bool_results_never_require_grad():
    x = minigrad.tensor([1.0, -2.0, 3.0], requires_grad=True)
    assert not (x > 0).requires_grad
    assert not x.argmax().requires_grad
    assert not x.long().requires_grad
    assert not x.max(dim=0)[1].requires_grad
    i = minigrad.arange(3)
    assert not i.requires_grad and not (i * 2).requires_grad


def test_retain_grad_populates_non_leaf():
    x = minigrad.ones(3, requires_grad=True)
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward()
    assert close(y.grad, [4.0, 4.0, 4.0])
    assert close(x.grad, [8.0, 8.0, 8.0])


def test_non_leaf_grad_is_none_and_warns():
    x = minigrad.ones(3, requires_grad=True)
    y = x * 2
    (y * y).sum().backward()
    with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a leaf Tensor "
                                         "is being accessed"):
        g = y.grad
    assert g is None


def test_hook_on_leaf_modifies_grad_and_is_removable():
    x = minigrad.ones(3, requires_grad=True)
    handle = x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    assert close(x.grad, [20.0] * 3)
    handle.remove()
    x.grad = None
    (x * 2).sum().backward()
    assert close(x.grad, [2.0] * 3)


def test_hook_on_non_leaf_changes_upstream_grad():
    x = minigrad.ones(3, requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.detach().clone()))  # None keeps the grad
    y.register_hook(lambda g: g + 1)
    (y * 3).sum().backward()
    assert len(seen) == 1 and close(seen[0], [3.0] * 3)
    assert close(x.grad, [(3 + 1) * 2] * 3)


def test_hook_on_tensor_not_requiring_grad_raises():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        minigrad.ones(2).register_hook(lambda g: g)


# --- in-place ops inside the graph ------------------------------------------------------------

def test_inplace_on_non_leaf_is_differentiated():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = x * 2
    w += x
    w *= 3
    w.sum().backward()
    assert close(x.grad, [9.0, 9.0, 9.0])


def test_setitem_on_non_leaf_is_differentiated():
    x = minigrad.ones(3, requires_grad=True)
    y = x * 1
    y[0] = y[1] * 5
    y.sum().backward()
    # y0 is overwritten (no grad from it), y1 also flows into y0 with factor 5
    assert close(x.grad, [0.0, 6.0, 1.0])


def test_inplace_on_tensor_not_saved_is_fine():
    x = minigrad.ones(3, requires_grad=True)
    a = x * 1
    y = (a + a).sum()  # add saves nothing
    a.mul_(2)
    y.backward()
    assert close(x.grad, [2.0] * 3)


@pytest.mark.parametrize("modify", [
    lambda a: a.mul_(2),
    lambda a: a.add_(1),
    lambda a: a.__setitem__(0, 2.0),
    lambda a: a.__setitem__(slice(0, 1), 2.0),
])
def test_inplace_change_of_saved_tensor_raises_at_backward(modify):
    x = minigrad.ones(3, requires_grad=True)
    a = x * 1
    y = (a * a).sum()
    modify(a)  # the error comes at backward, not here
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation "
                                           "has been modified by an inplace operation"):
        y.backward()


def test_inplace_change_through_a_view_is_detected():
    x = minigrad.ones(3, requires_grad=True)
    a = x * 1
    y = (a * a).sum()
    with minigrad.no_grad():  # unrecorded, but a view shares its base's version counter
        a[:1].mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_inplace_change_of_saved_output_raises():
    x = minigrad.ones(3, requires_grad=True)
    y = x.exp()  # exp saves its result
    z = y.sum()
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_version_counter():
    x = minigrad.zeros(3)
    v = x._version
    x.add_(1)
    assert x._version > v
    v = x._version
    x[0] = 2.0
    assert x._version > v
    v = x._version
    x += 1
    assert x._version > v
    view = x[1:]
    v = x._version
    view.zero_()
    assert x._version > v and view._version == x._version


# --- broadcasting ------------------------------------------------------------------------------

def test_grads_sum_back_to_broadcast_shapes(device):
    a = minigrad.ones(2, 3, requires_grad=True, device=device)
    b = minigrad.ones(3, requires_grad=True, device=device)
    c = minigrad.ones(2, 1, requires_grad=True, device=device)
    s = minigrad.tensor(2.0, requires_grad=True, device=device)
    (a * b * c * s).sum().backward()
    assert tuple(a.grad.shape) == (2, 3) and close(a.grad, np.full((2, 3), 2.0))
    assert tuple(b.grad.shape) == (3,) and close(b.grad, [4.0] * 3)
    assert tuple(c.grad.shape) == (2, 1) and close(c.grad, [[6.0], [6.0]])
    assert tuple(s.grad.shape) == () and s.grad.item() == pytest.approx(6.0)


# --- custom Function --------------------------------------------------------------------------

class ScaleBy(Function):
    """out = a * k with k a Python number; records what backward was told."""
    log = []

    @staticmethod
    def forward(ctx, a, k):
        ctx.save_for_backward(a)
        ctx.k = k
        return a * k

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        ScaleBy.log.append((ctx.needs_input_grad, tuple(a.shape)))
        return grad * ctx.k, None


def test_custom_function_basics():
    ScaleBy.log.clear()
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    out = ScaleBy.apply(a, 3.0)
    assert close(out, [3.0, 6.0])
    assert out.requires_grad and not out.is_leaf
    assert type(out.grad_fn).__name__ == "ScaleByBackward"
    assert repr(out.grad_fn).startswith("<")
    out.sum().backward()
    assert close(a.grad, [3.0, 3.0])
    assert ScaleBy.log == [((True, False), (2,))]


def test_custom_function_needs_input_grad_mixed():
    class Mul3(Function):
        log = []

        @staticmethod
        def forward(ctx, a, b, k):
            ctx.save_for_backward(a, b)
            return a * b * k

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            Mul3.log.append(ctx.needs_input_grad)
            ga = grad * b * 2 if ctx.needs_input_grad[0] else None
            gb = grad * a * 2 if ctx.needs_input_grad[1] else None
            return ga, gb, None

    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    b = minigrad.tensor([3.0, 4.0])
    Mul3.apply(a, b, 2.0).sum().backward()
    assert Mul3.log == [(True, False, False)]
    assert close(a.grad, [6.0, 8.0])
    assert b.grad is None


def test_custom_function_without_grad_inputs_builds_no_node():
    b = minigrad.ones(2)
    out = ScaleBy.apply(b, 2.0)
    assert not out.requires_grad and out.grad_fn is None
    with minigrad.no_grad():
        out = ScaleBy.apply(minigrad.ones(2, requires_grad=True), 2.0)
    assert not out.requires_grad and out.grad_fn is None


def test_custom_function_multiple_outputs():
    class Two(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            # an output that was not used gets a zero grad, not None
            return g1 * 2 + g2 * 3

    a = minigrad.ones(2, requires_grad=True)
    u, v = Two.apply(a)
    assert u.grad_fn is v.grad_fn
    assert type(u.grad_fn).__name__ == "TwoBackward"
    (u.sum() + v.sum()).backward()
    assert close(a.grad, [5.0, 5.0])
    a.grad = None
    u, v = Two.apply(a)
    u.sum().backward()
    assert close(a.grad, [2.0, 2.0])


def test_custom_function_is_twice_differentiable_when_backward_uses_tensor_ops():
    class Cube(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 3 * a * a

    x = minigrad.tensor(2.0, requires_grad=True)
    (g,) = minigrad.autograd.grad(Cube.apply(x), x, create_graph=True)
    (gg,) = minigrad.autograd.grad(g, x)
    assert g.item() == pytest.approx(12.0) and gg.item() == pytest.approx(12.0)


def test_custom_function_wrong_number_of_grads():
    class Bad(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError, match=r"function BadBackward returned an incorrect number of gradients "
                                           r"\(expected 1, got 2\)"):
        Bad.apply(minigrad.ones(2, requires_grad=True)).sum().backward()


def test_saved_tensors_freed_after_backward():
    class Keep(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a

    out = Keep.apply(minigrad.ones(2, requires_grad=True))
    out.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.grad_fn.saved_tensors


# --- "gradients for inputs that do not require grad are never computed" -------------------------

class CountingIdentity(Function):
    calls = 0

    @staticmethod
    def forward(ctx, a):
        return a * 1

    @staticmethod
    def backward(ctx, g):
        CountingIdentity.calls += 1
        return g


def test_branch_without_requires_grad_is_never_visited():
    CountingIdentity.calls = 0
    x = minigrad.ones(2, requires_grad=True)
    y = CountingIdentity.apply(minigrad.ones(2))  # no input needs grad
    (x * y).sum().backward()
    assert CountingIdentity.calls == 0
    assert close(x.grad, [1.0, 1.0])


def test_autograd_grad_only_runs_what_the_inputs_need():
    CountingIdentity.calls = 0
    x = minigrad.ones(2, requires_grad=True)
    w = minigrad.ones(2, requires_grad=True)
    z = (x * CountingIdentity.apply(w)).sum()
    (gx,) = minigrad.autograd.grad(z, x)
    assert close(gx, [1.0, 1.0])
    assert CountingIdentity.calls == 0
    assert w.grad is None and x.grad is None


def test_builtin_op_with_non_requiring_operand_passes_correct_needs_input_grad():
    class Probe(Function):
        log = []

        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            Probe.log.append(ctx.needs_input_grad)
            return g, (g if ctx.needs_input_grad[1] else None)

    a = minigrad.ones(2, requires_grad=True)
    b = minigrad.ones(2)
    Probe.apply(b, a).sum().backward()
    Probe.apply(a, b).sum().backward()
    assert Probe.log == [(False, True), (True, False)]
    assert close(a.grad, [2.0, 2.0])


# --- engine properties ------------------------------------------------------------------------

def test_deep_chain_backward_is_iterative():
    limit = sys.getrecursionlimit()
    x = minigrad.tensor(2.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0 + 0.5
    y.backward()
    assert x.grad.item() == pytest.approx(1.0)
    assert sys.getrecursionlimit() == limit
    del y  # freeing the chain must not recurse either


def test_second_backward_without_retain_graph_raises():
    x = minigrad.ones(3, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=r"Trying to backward through the graph a second time.*"
                                           r"Specify retain_graph=True"):
        y.backward()


def test_unreferenced_graph_is_freed_without_gc():
    class Payload:
        pass

    class Hold(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.payload = Payload()
            Hold.ref = weakref.ref(ctx.payload)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    gc.disable()  # reference cycles in the graph would keep it alive until a collection
    try:
        x = minigrad.ones(3, requires_grad=True)
        y = x * 2
        y_ref = weakref.ref(y)
        z = Hold.apply(y * y).sum()
        del y
        assert Hold.ref() is not None  # the graph holds the node's state...
        del z
        assert Hold.ref() is None  # ...until nobody references the graph
        assert y_ref() is None
    finally:
        gc.enable()


class ExpSavingOutput(Function):
    @staticmethod
    def forward(ctx, a):
        out = a.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out


def test_custom_function_may_save_its_output():
    x = minigrad.tensor([0.0, 1.0], requires_grad=True)
    ExpSavingOutput.apply(x).sum().backward()
    assert close(x.grad, [1.0, np.e])


@pytest.mark.parametrize("op", [
    lambda t: t * t, lambda t: ExpSavingOutput.apply(t), lambda t: t.exp(), lambda t: t.sigmoid(), lambda t: t.tanh(), lambda t: t.sqrt(),
    lambda t: t.relu(), lambda t: t.softmax(0), lambda t: t.log_softmax(0),
], ids=["mul", "custom-function", "exp", "sigmoid", "tanh", "sqrt", "relu", "softmax", "log_softmax"])
def test_op_saving_its_output_makes_no_reference_cycle(op):
    # exp & co. save their result for backward; holding it strongly from the node would make
    # output -> grad_fn -> output a cycle that only the cyclic gc can free
    gc.disable()
    try:
        x = minigrad.ones(3, requires_grad=True)
        out = op(x * 2)
        ref = weakref.ref(out)
        del out
        assert ref() is None
    finally:
        gc.enable()


def test_saved_tensor_released_after_backward():
    class Keep(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a

    gc.disable()
    try:
        x = minigrad.ones(3, requires_grad=True)
        a = x * 1
        ref = weakref.ref(a)
        out = Keep.apply(a).sum()
        del a
        out.backward(retain_graph=True)
        assert ref() is not None  # retain_graph keeps saved tensors
        out.backward()
        assert ref() is None  # released although the graph root `out` is still alive
        assert out is not None
    finally:
        gc.enable()


@pytest.mark.parametrize("act", ["relu", "F.relu", "ReLU", "LeakyReLU", "leaky_relu"])
def test_second_derivative_through_piecewise_linear_activations_is_zero(act):
    # torch records relu's and leaky_relu's backward with the input as an input of zero
    # derivative: a create_graph gradient stays connected, and its own gradient is zeros
    F = minigrad.nn.functional
    fn = {"relu": minigrad.relu, "F.relu": F.relu, "ReLU": minigrad.nn.ReLU(),
          "LeakyReLU": minigrad.nn.LeakyReLU(0.1), "leaky_relu": lambda t: F.leaky_relu(t, 0.2)}[act]
    minigrad.manual_seed(0)
    net = minigrad.nn.Sequential(minigrad.nn.Linear(3, 4), minigrad.nn.Linear(4, 4))
    head = minigrad.nn.Linear(4, 1)
    x = minigrad.randn(2, 3, requires_grad=True)
    (g,) = minigrad.autograd.grad(head(fn(net(x))).sum(), x, create_graph=True)
    assert g.requires_grad
    (gg,) = minigrad.autograd.grad(g.sum(), x)
    assert gg.tolist() == [[0.0] * 3] * 2
    v = minigrad.tensor([-1.0, 2.0], requires_grad=True)
    (g,) = minigrad.autograd.grad(fn(v).sum(), v, create_graph=True)
    assert g.requires_grad
    np.testing.assert_allclose(g.tolist(), [{"LeakyReLU": 0.1, "leaky_relu": 0.2}.get(act, 0.0), 1.0])
    (g2,) = minigrad.autograd.grad(fn(v).pow(2).sum(), v, create_graph=True)
    (h,) = minigrad.autograd.grad(g2.sum(), v, create_graph=True)
    assert minigrad.autograd.grad(h.sum(), v)[0].tolist() == [0.0, 0.0]


def test_second_derivative_through_nll_loss_is_zero():
    F = minigrad.nn.functional
    x = minigrad.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -2.0]], requires_grad=True)
    for w in (None, minigrad.tensor([1.0, 2.0, 3.0])):
        (g,) = minigrad.autograd.grad(F.nll_loss(x, minigrad.tensor([0, 2]), weight=w), x, create_graph=True)
        assert g.requires_grad and g.grad_fn is not None
        assert minigrad.autograd.grad(g.sum(), x)[0].tolist() == [[0.0] * 3] * 2
