"""Engine details not covered by the op table: pruning in autograd.grad, raw and graph modes."""
import numpy as np

import minigrad


def test_grad_does_not_free_branches_it_did_not_run(device):
    x = minigrad.tensor([1., 2.], device=device, requires_grad=True)
    w = minigrad.tensor([3., 4.], device=device, requires_grad=True)
    a, b = x.exp(), w.sin()            # both save tensors for backward
    loss = a.sum() + b.sum()
    gx, = minigrad.autograd.grad(loss, x)
    np.testing.assert_allclose(gx.tolist(), np.exp([1., 2.]), rtol=1e-6)
    gw, = minigrad.autograd.grad(b.sum(), w)   # w's branch never ran: its buffers are intact
    np.testing.assert_allclose(gw.tolist(), np.cos([3., 4.]), rtol=1e-6)
    assert x.grad is None and w.grad is None


def test_raw_and_graph_modes_give_the_same_gradients(device):
    rng = np.random.default_rng(0)
    data = rng.standard_normal((4, 5))
    outs = []
    for create_graph in (False, True):
        x = minigrad.tensor(data, device=device, requires_grad=True)
        y = (x.t() @ x).relu().log_softmax(1)[:, 1:3].sum() / x.var()
        g, = minigrad.autograd.grad(y, x, create_graph=create_graph)
        assert (g.grad_fn is not None) == create_graph
        outs.append(g.tolist())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12)


def test_leaf_grads_never_share_memory(device):
    a = minigrad.ones(3, device=device, requires_grad=True)
    b = minigrad.ones(3, device=device, requires_grad=True)
    (a + b).sum().backward()           # Add hands the same gradient to both inputs
    a.grad.zero_()
    assert b.grad.tolist() == [1., 1., 1.]
    c = minigrad.ones(2, 3, device=device, requires_grad=True)
    c.sum().backward()                 # a broadcast gradient is materialized, so writable
    c.grad.add_(1)
    assert c.grad.tolist() == [[2., 2., 2.], [2., 2., 2.]]


def test_a_node_runs_once_after_its_long_and_short_paths(device):
    # h feeds the loss directly and through a long branch recorded later: its node must wait
    # for both and run once with the sum (nodes run in decreasing sequence number)
    x = minigrad.tensor([0.5, -1.0, 2.0], device=device, requires_grad=True)
    h = x * 2
    calls = []
    h.register_hook(lambda g: calls.append(g.tolist()))
    unrelated = (minigrad.ones(2, requires_grad=True) * 3).sum()  # numbers from another graph
    long = h.exp().sin().cos() * 3
    y = (h + long).sum()
    y.backward()
    hv = 2 * np.array([0.5, -1.0, 2.0])
    gh = 1 + 3 * -np.sin(np.sin(np.exp(hv))) * np.cos(np.exp(hv)) * np.exp(hv)
    assert len(calls) == 1
    np.testing.assert_allclose(calls[0], gh, rtol=1e-5)
    np.testing.assert_allclose(x.grad.tolist(), 2 * gh, rtol=1e-5)
    unrelated.backward()


def test_multi_output_node_gets_all_its_outputs_gradients_at_once(device):
    x = minigrad.arange(6., device=device).requires_grad_()
    a, b, c = x.chunk(3)
    late = (c * 10).sum()              # recorded after a and b's consumers
    y = a.sum() + (b * b).sum() + late
    y.backward()
    assert x.grad.tolist() == [1., 1., 4., 6., 10., 10.]


def test_in_place_rebase_keeps_edges_pointing_to_older_nodes(device):
    x = minigrad.tensor([1., 2., 3.], device=device, requires_grad=True)
    y = x * 1
    z = y + 1                          # uses y before the in-place op below
    y2 = x.exp()
    y.add_(y2)                         # y's node is now newer than z's
    loss = z.sum() + (y * 2).sum()
    loss.backward()
    xv = np.array([1., 2., 3.])
    np.testing.assert_allclose(x.grad.tolist(), 3 + 2 * np.exp(xv), rtol=1e-6)


def test_root_gradients_take_their_outputs_dtype(device):
    # torch's engine casts the gradient handed to backward() or autograd.grad to the output's
    # dtype, so .grad keeps its tensor's dtype
    x = minigrad.tensor([1., 2.], device=device, requires_grad=True)
    (x * 2).backward(minigrad.ones(2, dtype=minigrad.float64, device=device))
    assert x.grad.dtype == minigrad.float32 and x.grad.tolist() == [2.0, 2.0]
    d = minigrad.tensor([1., 2.], dtype=minigrad.float64, device=device, requires_grad=True)
    (d * 3).backward(minigrad.ones(2, device=device))
    assert d.grad.dtype == minigrad.float64 and d.grad.tolist() == [3.0, 3.0]
    g, = minigrad.autograd.grad(x * 2, x, minigrad.ones(2, dtype=minigrad.float64, device=device))
    assert g.dtype == minigrad.float32


def test_hooks_may_not_change_a_gradients_type_or_size(device):
    import pytest
    cases = [(lambda g: g.double(), RuntimeError,
              r"hook '<lambda>' has changed the type of value \(was minigrad\.(cuda\.)?FloatTensor got "
              r"minigrad\.(cuda\.)?DoubleTensor\)"),
             (lambda g: g[:1], RuntimeError, "hook '<lambda>' has changed the size of value"),
             (lambda g: 3, TypeError, "expected Variable, but hook returned 'int'")]
    for hook, exc, message in cases:
        for leaf in (True, False):
            x = minigrad.tensor([1., 2.], device=device, requires_grad=True)
            y = x if leaf else x * 1
            y.register_hook(hook)
            with pytest.raises(exc, match=message):
                (y * 2).sum().backward()


def test_unused_input_error_names_its_index(device):
    import pytest
    x = minigrad.tensor([1., 2.], device=device, requires_grad=True)
    y = minigrad.tensor([3.], device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 1 appears to not have been used "
                                           "in the graph. Set allow_unused=True"):
        minigrad.autograd.grad((x * 2).sum(), [x, y])
