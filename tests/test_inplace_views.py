"""In-place ops on views of tensors in a recorded graph route gradients like torch's CopySlices."""
import numpy as np
import pytest

import minigrad


def _x(device):
    return minigrad.tensor([1., 2., 3., 4.], device=device, requires_grad=True)


def test_inplace_on_slice_updates_base_graph(device):
    x = _x(device)
    y = x * 1
    y[:2].mul_(3)
    assert y.tolist() == [3., 6., 3., 4.]
    y.sum().backward()
    assert x.grad.tolist() == [3., 3., 1., 1.]


def test_sibling_view_made_before_is_regenerated(device):
    x = _x(device)
    y = (x * 1).reshape(2, 2)      # a view of the product
    y.t()[0].mul_(10)              # another view of the same product, changed in place
    (y * y).sum().backward()       # y must see the multiplication in its gradient
    assert x.grad.tolist() == [200., 4., 600., 8.]


def test_inplace_on_view_of_untracked_base_with_tracked_operand(device):
    w = minigrad.tensor(2., device=device, requires_grad=True)
    h = minigrad.zeros(2, 3, device=device)
    h[0].add_(w)
    assert h.requires_grad and h.grad_fn.name() == "CopySlices"
    (h * minigrad.arange(6., device=device).reshape(2, 3)).sum().backward()
    assert w.grad.item() == 0. + 1. + 2.


def test_inplace_on_view_of_leaf_requiring_grad_raises(device):
    x = _x(device)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[:2].mul_(2)


def test_second_order_through_inplace_view(device):
    x = _x(device)
    y = x * 1
    y[1:3].mul_(y[1:3].detach() * 0 + x[1:3])   # y[1:3] = x[1:3]**2 through an in-place op
    g, = minigrad.autograd.grad(y.sum(), x, create_graph=True)
    assert g.tolist() == [1., 4., 6., 1.]
    g2, = minigrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g2.tolist(), [0., 2., 2., 0.])


@pytest.mark.parametrize("write", [lambda e: e.add_(1), lambda e: e.mul_(2.0),
                                   lambda e: e.__setitem__(0, 1.0), lambda e: e.zero_()])
def test_writing_into_an_expanded_view_raises(device, write):
    e = minigrad.zeros(3, device=device).expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        write(e)
