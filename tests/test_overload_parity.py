"""Calls where minigrad answered differently from torch, found by the parity sweeps and fixed:
Tensor.to's three overloads, bool matrix products, torch.mv, add/sub's alpha in a bool result
(and the in-place forms' checks), int-list arguments (expand, reshape, repeat, tile), and list
indices that torch reads as a tuple of indices. Expectations are written out and checked for
minigrad, and for torch too when it is importable (test_api_sweep's helpers)."""
import numpy as np
import pytest

import minigrad
from test_api_sweep import check, outcome, torch, warned

# ---- Tensor.to / Module.to: three overloads, torch's TypeError for anything else ----------------

_TO_OPTIONS = (
    " * (minigrad.device device = None, minigrad.dtype dtype = None, bool non_blocking = False, bool copy = False, "
    "*, minigrad.memory_format memory_format = None)\n"
    " * (minigrad.dtype dtype, bool non_blocking = False, bool copy = False, *, minigrad.memory_format memory_format"
    " = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, minigrad.memory_format memory_format = None)\n")


def _to_error(got):
    return "TypeError", f"to() received an invalid combination of arguments - got {got}, but expected one of:\n"


@pytest.mark.parametrize("call, expect", [
    (lambda L, x: x.to(L.float32, L.float64), _to_error("(minigrad.dtype, minigrad.dtype)")),
    (lambda L, x: x.to("cpu", "cpu"), _to_error("(str, str)")),
    (lambda L, x: x.to(L.float64, dtype=L.float32), _to_error("(minigrad.dtype, dtype=minigrad.dtype)")),
    (lambda L, x: x.to(x, device="cpu"), _to_error("(Tensor, device=str)")),
    (lambda L, x: x.to(foo=1), _to_error("(foo=int, )")),
    (lambda L, x: x.to(L.float64, False, True, copy=True), _to_error("(minigrad.dtype, bool, bool, copy=bool)")),
], ids=["two-dtypes", "two-devices", "dtype-twice", "tensor-and-device", "unknown-keyword", "copy-twice"])
def test_to_refuses_what_no_overload_takes(call, expect):
    x = minigrad.ones(2)
    kind, head = outcome(lambda L, d: call(L, x), minigrad)
    assert (kind, head[:len(expect[1])]) == expect
    assert head[len(expect[1]):].startswith(_TO_OPTIONS[:60])
    if torch is not None:
        tx = torch.ones(2)
        kind, message = outcome(lambda L, d: call(L, tx), torch)
        assert (kind, message[:len(expect[1])]) == expect


def _to_forms(L, device):
    x = L.ones(2, device=device)
    same = x.to(L.float32, False, False)
    copied = x.to(L.float32, False, True)  # copy by position: a new tensor even with nothing to convert
    by_tensor = x.to(L.zeros(1, dtype=L.float64), False, True)
    full = x.to(device, L.float64, False, True)
    keywords = x.to(dtype=L.float64, copy=True, non_blocking=True)
    return (same is x, copied is x, copied.dtype == x.dtype, str(by_tensor.dtype), str(full.dtype),
            str(keywords.dtype), x.to(None).device == x.device)


def test_to_takes_copy_and_non_blocking_by_position(device):
    check(_to_forms, (True, False, True, "minigrad.float64", "minigrad.float64", "minigrad.float64", True), device)


def test_module_to_refuses_copy_and_takes_the_same_overloads():
    def run(L, d):
        m = L.nn.Linear(2, 2)
        m.to("cpu", L.float64, True)
        return str(m.weight.dtype), outcome(lambda L, d: m.to(L.float64, False, True), L)
    check(run, ("minigrad.float64", ("RuntimeError", ".to() does not accept copy argument")))
    kind, message = outcome(lambda L, d: L.nn.Linear(2, 2).to(L.float32, L.float64), minigrad)
    assert kind == "TypeError" and message.startswith(_to_error("(minigrad.dtype, minigrad.dtype)")[1])


# ---- bool matrix products: torch's CPU kernels have none -----------------------------------------

def _b(L, *shape):
    return L.ones(*shape, dtype=L.bool)


@pytest.mark.parametrize("call, kernel", [
    (lambda L: _b(L, 3) @ _b(L, 3), "dot"),
    (lambda L: _b(L, 0) @ _b(L, 0), "dot"),
    (lambda L: _b(L, 2, 3) @ _b(L, 3), "addmv_impl_cpu"),
    (lambda L: _b(L, 3) @ _b(L, 3, 2), "addmm_impl_cpu_"),
    (lambda L: _b(L, 2, 2, 3) @ _b(L, 3, 2), "addmm_impl_cpu_"),
    (lambda L: _b(L, 2, 2, 3) @ _b(L, 3), "addmv_impl_cpu"),
    (lambda L: _b(L, 3) @ _b(L, 2, 3, 2), "bmm"),
    (lambda L: L.bmm(_b(L, 2, 2, 3), _b(L, 2, 3, 2)), "bmm"),
    (lambda L: L.mm(_b(L, 2, 3), _b(L, 3, 2)), "addmm_impl_cpu_"),
    (lambda L: L.mv(_b(L, 2, 3), _b(L, 3)), "addmv_impl_cpu"),
    (lambda L: L.nn.functional.linear(_b(L, 2, 3), _b(L, 2, 3)), "addmm_impl_cpu_"),
])
def test_bool_products_raise_as_torch(call, kernel):
    check(lambda L, d: call(L), ("NotImplementedError", f"\"{kernel}\" not implemented for 'Bool'"))


def test_bool_products_without_work_are_all_false():
    check(lambda L, d: (_b(L, 2, 0) @ _b(L, 0, 3), _b(L, 2, 3) @ _b(L, 3, 0), _b(L, 2, 2, 0) @ _b(L, 2, 0, 2)),
          (("bool", [[False] * 3] * 2, None), ("bool", [[], []], None), ("bool", [[[False] * 2] * 2] * 2, None)))


# ---- torch.mv / Tensor.mv -------------------------------------------------------------------------

def _mv(L, device):
    m = L.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True, device=device)
    v = L.tensor([1., 0., -1.], requires_grad=True, device=device)
    y = L.mv(m, v)
    y.sum().backward()
    return y, m.grad, v.grad, m.detach().mv(v.detach())


def test_mv_and_its_gradients(device):
    check(_mv, (("float32", [-2.0, -2.0], "MvBackward0"), ("float32", [[1.0, 0.0, -1.0]] * 2, None),
                ("float32", [5.0, 7.0, 9.0], None), ("float32", [-2.0, -2.0], None)), device)


@pytest.mark.parametrize("call, expect", [
    (lambda L: L.mv(L.ones(2, 3), L.ones(3, 1)), ("RuntimeError", "vector + matrix @ vector expected, got 1, 2, 2")),
    (lambda L: L.mv(L.ones(3), L.ones(3)), ("RuntimeError", "vector + matrix @ vector expected, got 1, 1, 1")),
    (lambda L: L.mv(L.ones(2, 3), L.ones(4)), ("RuntimeError", "size mismatch, got input (2), mat (2x3), vec (4)")),
    (lambda L: L.mv(L.ones(2, 3), L.ones(3, dtype=L.float64)),
     ("RuntimeError", "addmv input tensors must have the same dtype, but got Double, Float, and Double")),
    (lambda L: L.mv(L.ones(2, 3), 3), ("TypeError", "mv(): argument 'vec' (position 2) must be Tensor, not int")),
    (lambda L: L.ones(2, 3).mv(3), ("TypeError", "mv(): argument 'vec' (position 1) must be Tensor, not int")),
])
def test_mv_errors(call, expect):
    check(lambda L, d: call(L), expect)


# ---- add/sub with alpha: bool results, and the in-place forms' checks ------------------------------

def _alpha_cases(L, device):
    a = L.tensor([True, False, True, False], device=device)
    b = L.tensor([True, True, False, False], device=device)
    out = [L.add(a, b, alpha=2), L.add(a, b, alpha=0), L.add(a, True, alpha=-1), L.add(a, False, alpha=2),
           a.clone().add_(b, alpha=2), a.clone().add_(b, alpha=0)]
    i = L.tensor([1, 2], device=device)
    f = L.tensor([1., 2.], device=device)
    errors = [outcome(fn, L) for fn in (
        lambda L, d: a.clone().add_(i, alpha=2),     # shapes are checked first
        lambda L, d: a[:2].clone().add_(i, alpha=2),  # then the result's dtype
        lambda L, d: i.clone().add_(f, alpha=True),
        lambda L, d: i.clone().add_(i, alpha=1.5),
        lambda L, d: f.clone().sub_(a[:2], alpha=2),  # sub's bool operands before dtypes
        lambda L, d: f.clone().add_(i, alpha=True))]
    return out, errors, f.clone().add_(i, alpha=2), i.clone().sub_(i, alpha=3)


def test_alpha_in_a_bool_result_is_a_bool_and_in_place_checks(device):
    t, f = True, False
    bool_sub = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert "
                "a mask, use the `~` or `logical_not()` operator instead.")
    check(_alpha_cases, ([("bool", [t, t, t, f], None), ("bool", [t, f, t, f], None), ("bool", [t, t, t, t], None),
                          ("bool", [t, f, t, f], None), ("bool", [t, t, t, f], None), ("bool", [t, f, t, f], None)],
                         [("RuntimeError", "The size of tensor a (4) must match the size of tensor b (2) at "
                                           "non-singleton dimension 0"),
                          ("RuntimeError", "result type Long can't be cast to the desired output type Bool"),
                          ("RuntimeError", "result type Float can't be cast to the desired output type Long"),
                          ("RuntimeError", "For integral input tensors, argument alpha must not be a floating point "
                                           "number."),
                          ("RuntimeError", bool_sub),
                          ("RuntimeError", "Boolean alpha only supported for Boolean results.")],
                         ("float32", [3.0, 6.0], None), ("int64", [-2, -4], None)), device)


# ---- int-list arguments: expand, reshape, repeat, tile -------------------------------------------

def _unpack(op, arg, pos, kind):
    return "TypeError", f"{op}(): argument '{arg}' failed to unpack the object at pos {pos} with error " \
                        f"\"type must be tuple of ints,but got {kind}\""


@pytest.mark.parametrize("call, expect", [
    (lambda x: x[:, :1].expand("a"), ("TypeError", "expand(): argument 'size' (position 1) must be tuple of ints, not str")),
    (lambda x: x[:, :1].expand(2, "a"), _unpack("expand", "size", 2, "str")),
    (lambda x: x[:, :1].expand((2, 2.5)), _unpack("expand", "size", 2, "float")),
    (lambda x: x[:, :1].expand(None), ("TypeError", "expand(): argument 'size' (position 1) must be tuple of ints, "
                                                    "not NoneType")),
    (lambda x: x.reshape("a"), ("TypeError", "reshape(): argument 'shape' (position 1) must be tuple of ints, not str")),
    (lambda x: x.reshape(3, "a"), _unpack("reshape", "shape", 2, "str")),
    (lambda x: x.reshape(2.5), ("TypeError", "reshape(): argument 'shape' (position 1) must be tuple of ints, not "
                                             "float")),
    (lambda x: x.repeat(2.5), ("TypeError", "repeat(): argument 'repeats' (position 1) must be tuple of ints, not "
                                            "float")),
    (lambda x: x.repeat(2, "a"), _unpack("repeat", "repeats", 2, "str")),
    (lambda x: x.tile((1, "a")), _unpack("tile", "dims", 2, "str")),
    (lambda x: x.repeat(2), ("RuntimeError", "Number of dimensions of repeat dims can not be smaller than number of "
                                             "dimensions of tensor")),
    (lambda x: x.repeat(2, -1), ("RuntimeError", "Trying to create tensor with negative dimension -3: [4, -3]")),
])
def test_int_list_arguments_are_checked_as_torch(call, expect):
    check(lambda L, d: call(L.arange(6.).reshape(2, 3)), expect)


def _repeat(L, device):
    x = L.tensor([[0., 1., 2.], [3., 4., 5.]], requires_grad=True, device=device)
    y = x.repeat(2, 1, 2)
    (y * L.arange(24., device=device).reshape(2, 2, 6)).sum().backward()
    grad, x.grad = x.grad, None
    z = L.tile(x, (2,))
    (z * z).sum().backward()
    return (y, grad, z, x.grad, x.detach().repeat([1, 2]), x.detach().tile(2, 1, 1).shape,
            x.detach().repeat(2, 0, 1).shape, L.ones(()).repeat(()).shape, x.detach().expand(size=(2, 2, 3)).shape,
            x.detach().reshape(shape=(3, 2)).shape)


def test_repeat_and_tile_with_their_gradients(device):
    row0, row1 = [0.0, 1.0, 2.0] * 2, [3.0, 4.0, 5.0] * 2
    check(_repeat, (("float32", [[row0, row1], [row0, row1]], "RepeatBackward0"),
                    ("float32", [[30.0, 34.0, 38.0], [54.0, 58.0, 62.0]], None),
                    ("float32", [[0.0, 1.0, 2.0, 0.0, 1.0, 2.0], [3.0, 4.0, 5.0, 3.0, 4.0, 5.0]], "RepeatBackward0"),
                    ("float32", [[0.0, 4.0, 8.0], [12.0, 16.0, 20.0]], None),
                    ("float32", [row0, row1], None), (2, 2, 3), (2, 0, 3), (), (2, 2, 3), (3, 2)), device)


# ---- list indices: a list holding a sequence, slice, None or Ellipsis is a tuple of indices -------

_AS_TUPLE = ("UserWarning", "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
             "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted "
             "as tensor index, x[minigrad.tensor(seq)], which will result either in an error or a different result")


def _list_indices(L, device):
    x = L.arange(6., device=device).reshape(3, 2)
    outs = [warned(lambda: x[[0, [1]]]), warned(lambda: x[[[0, 1], [1, 0]]]), warned(lambda: x[[0, None]]),
            warned(lambda: x[[0, slice(None)]]), warned(lambda: x[[L.tensor(1, device=device)]]),
            warned(lambda: x[[0, 1]]), warned(lambda: x[np.array([[0, 1], [1, 0]])])]
    y = x.clone()
    _, caught = warned(lambda: y.__setitem__([0, [1]], 7.0))
    return [(r, [m[0] for m in w]) for r, w in outs], outs[0][1], y, caught


def test_lists_holding_sequences_index_as_tuples(device):
    f = "float32"
    w = ["UserWarning"]
    check(_list_indices, ([((f, [1.0], None), w), ((f, [1.0, 2.0], None), w), ((f, [[0.0, 1.0]], None), w),
                           ((f, [0.0, 1.0], None), w), ((f, [2.0, 3.0], None), w),
                           ((f, [[0.0, 1.0], [2.0, 3.0]], None), []),
                           ((f, [[[0.0, 1.0], [2.0, 3.0]], [[2.0, 3.0], [0.0, 1.0]]], None), [])],
                          [_AS_TUPLE], (f, [[0.0, 7.0], [2.0, 3.0], [4.0, 5.0]], None), [_AS_TUPLE]), device)


def _byte_masks(L, device):
    x = L.arange(6., device=device).reshape(3, 2)
    return warned(lambda: x[np.array([1, 0, 1], dtype=np.uint8)]), x[np.array([1, 0, 1], dtype=np.int32)]


def test_numpy_byte_arrays_are_masks(device):
    check(_byte_masks, (((("float32", [[0.0, 1.0], [4.0, 5.0]], None)),
                         [("UserWarning", "indexing with dtype minigrad.uint8 is now deprecated, please use a dtype "
                                          "minigrad.bool instead.")]),
                        ("float32", [[2.0, 3.0], [0.0, 1.0], [2.0, 3.0]], None)), device)


# ---- Tensor.stride() and storage_offset() -------------------------------------------------------

def _strides(L, device):
    x = L.arange(12.0, device=device).reshape(3, 4)
    views = [x, x.t(), x[None], x[:, None], x.unsqueeze(2), x.t()[0:1], x[1], x[:, ::2], x[1:, 2:],
             x.expand(1, 3, 4), L.ones(3, 1, device=device).expand(3, 4), L.ones(1, 1, device=device).expand(1, 4),
             x.permute(1, 0)[None], L.ones(0, 3, device=device), L.ones(3, 0, device=device), L.tensor(1.0, device=device),
             x.t().reshape(12), x.narrow(1, 1, 2)]
    return [(v.stride(), v.storage_offset()) for v in views], x.stride(-1), x.t().stride(0)


def test_stride_and_storage_offset_as_torch(device):
    check(_strides, ([((4, 1), 0), ((1, 4), 0), ((12, 4, 1), 0), ((4, 4, 1), 0), ((4, 1, 1), 0), ((1, 4), 0),
                      ((1,), 4), ((4, 2), 0), ((4, 1), 6), ((12, 4, 1), 0), ((1, 0), 0), ((1, 0), 0), ((4, 1, 4), 0),
                      ((3, 1), 0), ((1, 1), 0), ((), 0), ((1,), 0), ((4, 1), 1)], 1, 1), device)


@pytest.mark.parametrize("call, expect", [
    (lambda L: L.tensor(1.0).stride(0), ("IndexError", "Dimension specified as 0 but tensor has no dimensions")),
    (lambda L: L.ones(2, 3).stride(2), ("IndexError", "Dimension out of range (expected to be in range of [-2, 1], "
                                                      "but got 2)")),
    (lambda L: L.ones(2, 3).stride("a"), ("TypeError", "stride(): argument 'dim' (position 1) must be int, not str")),
])
def test_stride_errors(call, expect):
    check(lambda L, d: call(L), expect)


# ---- squeeze's three overloads record three nodes ------------------------------------------------

def test_squeeze_nodes_as_torch(device):
    def nodes(L, d):
        x = L.ones(2, 1, 3, requires_grad=True, device=d)
        z = L.tensor(1.0, requires_grad=True, device=d)
        return [type(t.grad_fn).__name__ for t in (x.squeeze(), x.squeeze(1), x.squeeze((1,)), L.squeeze(x, 1),
                                                   x.squeeze(0), z.squeeze(0), z.squeeze(), x.squeeze([0, 1]))]
    check(nodes, ["SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2", "SqueezeBackward1",
                  "SqueezeBackward1", "SqueezeBackward1", "SqueezeBackward0", "SqueezeBackward2"], device)
