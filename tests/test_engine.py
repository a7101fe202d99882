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
