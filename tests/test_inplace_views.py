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


# ---- views made in no_grad mode of a tensor that requires grad (torch's CreationMeta::NO_GRAD_MODE)

NO_GRAD_ADVICE = (" with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. "
                  "You can clarify your code by moving both the view and the inplace either both inside the no_grad "
                  "block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to "
                  "be tracked).")
MODIFIED_IN_PLACE = "A view was created in no_grad mode and is being modified inplace" + NO_GRAD_ADVICE
BASE_MODIFIED = ("A view was created in no_grad mode and its base or another view of its base has been modified "
                 "inplace" + NO_GRAD_ADVICE)

NO_GRAD_MADE = {
    "getitem": lambda x: x[0], "view": lambda x: x.view(4), "reshape": lambda x: x.reshape(4),
    "t": lambda x: x.t(), "T": lambda x: x.T, "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.permute(1, 0), "expand": lambda x: x.expand(2, 2, 2), "flatten": lambda x: x.flatten(),
    "unsqueeze": lambda x: x.unsqueeze(0), "squeeze": lambda x: x.squeeze(), "split": lambda x: x.split(1)[0],
    "chunk": lambda x: x.chunk(2)[0], "view_as": lambda x: x.view_as(x),
    # not views: they do not require grad
    "detach": lambda x: x.detach(), "advanced index": lambda x: x[[0, 1]], "reshape copy": lambda x: x.t().reshape(4),
    "clone": lambda x: x.clone(),
}
NOT_VIEWS = ("detach", "advanced index", "reshape copy", "clone")


@pytest.mark.parametrize("how", NO_GRAD_MADE)
def test_a_view_made_in_no_grad_mode_requires_grad_as_in_torch(how, device):
    x = minigrad.ones(2, 2, device=device, requires_grad=True)
    with minigrad.no_grad():
        v = NO_GRAD_MADE[how](x)
    assert (v.requires_grad, v.is_leaf, v.grad_fn) == (how not in NOT_VIEWS, True, None)
    if how not in NOT_VIEWS:
        with minigrad.no_grad():
            assert v[..., :1].requires_grad  # and so does a view of it


@pytest.mark.parametrize("how", [h for h in NO_GRAD_MADE if h not in NOT_VIEWS + ("expand",)])
@pytest.mark.parametrize("leaf", [True, False])
def test_modifying_a_no_grad_view_in_place_in_grad_mode_raises(how, leaf, device):
    x0 = minigrad.ones(2, 2, device=device, requires_grad=True)
    x = x0 if leaf else x0 * 1
    with minigrad.no_grad():
        v = NO_GRAD_MADE[how](x)
    for write in (lambda: v.mul_(2), lambda: v.zero_(), lambda: v.add_(minigrad.ones(1, device=device)),
                  lambda: v.mul_(minigrad.ones(1, device=device, requires_grad=True))):
        with pytest.raises(RuntimeError) as e:
            write()
        assert str(e.value) == MODIFIED_IN_PLACE
    assert x.tolist() == [[1., 1.], [1., 1.]]
    fn = x.grad_fn
    with minigrad.no_grad():  # inside no_grad it is allowed, and not recorded
        v.mul_(2)
    assert x.grad_fn is fn and x.sum().item() > 4


def test_no_grad_view_gives_no_gradient(device):
    x0 = minigrad.ones(2, 2, device=device, requires_grad=True)
    x = x0 * 1
    with minigrad.no_grad():
        v = x[0]
    y = v * 2
    assert y.requires_grad and y.grad_fn.name() == "MulBackward0" and y.grad_fn.next_functions[0] == (None, 0)
    y.sum().backward()
    assert x0.grad is None and v.grad is None
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 0 appears to not have been used"):
        minigrad.autograd.grad((v * 2).sum(), v)
    w = v[0:1]  # a view of it made in grad mode: recorded, still giving nothing to x
    assert w.requires_grad and w.grad_fn.name() == "SliceBackward0"
    (w * 3).sum().backward()
    assert x0.grad is None


@pytest.mark.parametrize("modify", [lambda x, v: x.mul_(2), lambda x, v: x[1].add_(1)])
def test_no_grad_view_used_after_its_base_changed_in_place_raises(modify, device):
    x = minigrad.ones(2, 2, device=device, requires_grad=True) * 1
    with minigrad.no_grad():
        v = x.view(4)
    modify(x, v)
    with pytest.raises(RuntimeError) as e:
        v * 2
    assert str(e.value) == BASE_MODIFIED
    with minigrad.no_grad():
        assert not (v * 2).requires_grad  # in no_grad mode it may still be read


def test_no_grad_view_changed_in_no_grad_mode_then_used_raises(device):
    x = minigrad.ones(2, 2, device=device, requires_grad=True) * 1
    with minigrad.no_grad():
        v = x.view(4)
        v.mul_(2)
    with pytest.raises(RuntimeError) as e:
        v.sum()
    assert str(e.value) == BASE_MODIFIED


def test_view_of_a_no_grad_view_names_its_node(device):
    x = minigrad.ones(2, 2, device=device, requires_grad=True) * 1
    with minigrad.no_grad():
        v = x.view(4)
    w = v[0:2]
    with pytest.raises(RuntimeError) as e:
        w.mul_(2)
    assert str(e.value) == ("Output 0 of Slice is a view of a view which was created in no_grad mode and is being "
                            "modified inplace" + NO_GRAD_ADVICE)
    x.mul_(2)
    with pytest.raises(RuntimeError) as e:
        w * 2
    assert str(e.value) == ("Output 0 of Slice is a view of a view which was created in no_grad mode and its base or "
                            "another view of its base has been modified inplace" + NO_GRAD_ADVICE)
