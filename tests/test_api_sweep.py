"""A parity sweep of the tensor-level API: short programs of the kind PyTorch users write, over
creation, dtype promotion, reductions, shape ops, indexing, in-place ops, printing and autograd,
run under minigrad and torch. The cases kept here are those where minigrad answered differently
(every one fixed), each with the realistic program that found it.

A program is written once against the PyTorch API, as a function of the library and a device. Its
outcome is plain data: tensors as (dtype name, values, grad_fn name), shapes as tuples, exceptions
as (type name, message), torch's names for itself read as minigrad's. The expected outcome is
written out by hand and checked for minigrad, and for torch too when it is importable (on the
CPU, torch's only device here); float values are compared exactly, bit for bit.
"""
import re
import warnings

import numpy as np
import pytest

import minigrad

try:
    import torch
except ImportError:  # the hand-written expectations still run
    torch = None


def plain(r):
    """r as plain data that compares equal across the two libraries."""
    if hasattr(r, "grad_fn") and hasattr(r, "tolist"):
        node = r.grad_fn
        return (str(r.dtype).split(".")[-1], plain(r.tolist()), None if node is None else type(node).__name__)
    if isinstance(r, tuple) and type(r).__name__ in ("max", "min"):  # torch.return_types
        return (type(r).__name__,) + tuple(plain(x) for x in r)
    if isinstance(r, tuple):  # a Size too
        return tuple(plain(x) for x in r)
    if isinstance(r, list):
        return [plain(x) for x in r]
    if isinstance(r, str):
        return _named(r)
    if isinstance(r, float) and r != r:
        return "nan"
    return r


def outcome(fn, lib, device="cpu"):
    """fn(lib, device) as plain data, or what it raised as (type name, message)."""
    try:
        return plain(fn(lib, device))
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, _named(str(e))


def _named(text):
    """text with torch's name for itself read as minigrad's (not inside a word: 'pytorch' stays)."""
    return re.sub(r"\btorch\b", "minigrad", text)


def check(fn, expect, device="cpu"):
    assert outcome(fn, minigrad, device) == expect
    if torch is not None:
        assert outcome(fn, torch) == expect


def warned(fn):
    """(fn's result, [(category, message)] of the warnings it raised), without the '(Triggered
    internally at <torch's C++ source>)' that torch appends to some."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [(w.category.__name__, str(w.message).split(" (Triggered internally")[0]) for w in caught
                    if not issubclass(w.category, RuntimeWarning)]  # NumPy's, which `always` brings back


def node(t):
    return type(t.grad_fn).__name__


# ---- creation: torch.tensor of lists holding tensors, of data that is no number ----------------

def _losses_to_tensor(L, device):
    # a list of per-batch losses of shape (1,) becomes a 1-d tensor: torch takes each tensor in a
    # list for the number it holds
    losses = [L.tensor([0.5], device=device), L.tensor([0.25], device=device), L.tensor(1.5, device=device)]
    history = L.tensor(losses)
    counts = L.tensor([[L.tensor(1), 2], [3, L.tensor([4])]])
    return history, history.mean(), counts, L.tensor([L.tensor(1, dtype=L.int32), L.tensor(2, dtype=L.int32)])


def test_a_list_of_one_element_tensors_is_a_list_of_numbers(device):
    check(_losses_to_tensor, (("float32", [0.5, 0.25, 1.5], None), ("float32", 0.75, None),
                              ("int64", [[1, 2], [3, 4]], None), ("int32", [1, 2], None)), device)


@pytest.mark.parametrize("make, expect", [
    (lambda L, d: L.tensor([L.tensor([1., 2.]), L.tensor([3., 4.])]),
     ("ValueError", "only one element tensors can be converted to Python scalars")),
    (lambda L, d: L.tensor([L.tensor([1, 2]), L.tensor([3, 4])]),
     ("TypeError", "only integer tensors of a single element can be converted to an index")),
    (lambda L, d: L.tensor([L.tensor([True, False])]),
     ("TypeError", "only integer tensors of a single element can be converted to an index")),
    (lambda L, d: L.tensor("abc"), ("TypeError", "new(): invalid data type 'str'")),
    (lambda L, d: L.tensor([1, "a"]), ("TypeError", "new(): invalid data type 'str'")),
    (lambda L, d: L.tensor(["a", 1]), ("ValueError", "too many dimensions 'str'")),
    (lambda L, d: L.tensor(None), ("RuntimeError", "Could not infer dtype of NoneType")),
    (lambda L, d: L.tensor([1.5, None]), ("RuntimeError", "Could not infer dtype of NoneType")),
    (lambda L, d: L.tensor([[1, 2], [3, None]]), ("RuntimeError", "Could not infer dtype of NoneType")),
    (lambda L, d: L.tensor({1: 2}), ("RuntimeError", "Could not infer dtype of dict")),
], ids=["float-rows", "int-rows", "bool-row", "str", "str-later", "str-first", "None", "None-in-list",
        "None-nested", "dict"])
def test_tensor_refuses_what_is_no_number_as_torch(make, expect):
    check(make, expect)


def _copy_constructions(L, device):
    src = L.ones(2, requires_grad=True)
    _, by_tensor = warned(lambda: L.tensor(src))
    _, by_new = warned(lambda: src.new_tensor(src))
    _, by_as_tensor = warned(lambda: L.as_tensor(src))
    copy, by_clone = warned(lambda: src.detach().clone())
    return by_tensor, by_new, by_as_tensor, by_clone, copy.requires_grad


def test_copy_constructing_from_a_tensor_warns_as_torch():
    advice = ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
              "sourceTensor.detach().clone().requires_grad_(True), rather than {}(sourceTensor).")
    check(_copy_constructions, ([("UserWarning", advice.format("minigrad.tensor"))],
                                [("UserWarning", advice.format("tensor.new_tensor"))], [], [], False))


# ---- creation: sizes given as NumPy integers, 0-d tensors, or of the wrong type -----------------

def _sizes_from_data(L, device):
    labels = np.array([0, 2, 1, 2])
    n_classes = labels.max() + 1  # a NumPy integer
    counts = L.zeros(n_classes, dtype=L.int64, device=device)
    table = L.ones(len(labels), np.int32(2), device=device)
    steps = L.tensor(3)
    return counts.shape, table.shape, L.empty(steps, device=device).shape, L.rand(2, True, device=device).shape


def test_sizes_given_by_numpy_integers_and_tensors(device):
    check(_sizes_from_data, ((3,), (4, 2), (3,), (2, 1)), device)


@pytest.mark.parametrize("make, expect", [
    (lambda L: L.zeros(10 / 2), "zeros(): argument 'size' (position 1) must be tuple of ints, not float"),
    (lambda L: L.ones(2, 2.0), "ones(): argument 'size' failed to unpack the object at pos 2 with error "
                               "\"type must be tuple of ints,but got float\""),
    (lambda L: L.zeros([2.0]), "zeros(): argument 'size' (position 1) must be tuple of ints, but found element "
                               "of type float at pos 0"),
    (lambda L: L.rand(1.5), "rand(): argument 'size' (position 1) must be tuple of ints, not float"),
    (lambda L: L.empty(None), "empty(): argument 'size' (position 1) must be tuple of ints, not NoneType"),
    (lambda L: L.zeros(True), "zeros(): argument 'size' (position 1) must be tuple of ints, not bool"),
    (lambda L: L.randn(2, "3"), "randn(): argument 'size' failed to unpack the object at pos 2 with error "
                                "\"type must be tuple of ints,but got str\""),
], ids=["float", "float-second", "float-in-list", "rand", "None", "bool", "str"])
def test_a_size_of_the_wrong_type_gets_torch_message(make, expect):
    check(lambda L, d: make(L), ("TypeError", expect))


@pytest.mark.parametrize("make, expect", [
    (lambda L: L.randn(2, dtype=L.int64), ("NotImplementedError", "\"normal_kernel_cpu\" not implemented for 'Long'")),
    (lambda L: L.rand_like(L.tensor([1, 2])),
     ("NotImplementedError", "\"check_uniform_bounds\" not implemented for 'Long'")),
    (lambda L: L.linspace(0, 1, 3, dtype=L.bool), ("NotImplementedError", "\"linspace_cpu\" not implemented for 'Bool'")),
    (lambda L: L.set_default_dtype(L.int64), ("TypeError", "only floating-point types are supported as the default type")),
])
def test_factories_refuse_dtypes_as_torch(make, expect):
    check(lambda L, d: make(L), expect)


# ---- linspace: torch's formula, rounded once per value -------------------------------------------

@pytest.mark.parametrize("args, expect", [
    ((-5, 17, 11), ("float32", [-5.0, -2.799999952316284, -0.5999999046325684, 1.6000001430511475,
                                3.8000001907348633, 6.0, 8.199999809265137, 10.399999618530273,
                                12.600000381469727, 14.800000190734863, 17.0], None)),
    ((0, 1, 15), ("float32", [0.0, 0.0714285746216774, 0.1428571492433548, 0.2142857313156128,
                              0.2857142984867096, 0.3571428656578064, 0.4285714626312256, 0.4999999701976776,
                              0.5714285373687744, 0.6428571343421936, 0.7142857313156128, 0.7857142686843872,
                              0.8571428656578064, 0.9285714030265808, 1.0], None)),
    ((0.1, 0.9, 9), ("float32", [0.10000000149011612, 0.19999998807907104, 0.29999998211860657,
                                 0.3999999761581421, 0.5, 0.6000000238418579, 0.699999988079071,
                                 0.7999999523162842, 0.8999999761581421], None)),
    ((-5, 17, 11, "float64"), ("float64", [-5.0, -2.8, -0.5999999999999996, 1.6000000000000005,
                                           3.8000000000000007, 5.999999999999999, 8.2, 10.399999999999999,
                                           12.6, 14.8, 17.0], None)),
    ((-5, 17, 11, "int64"), ("int64", [-5, -2, 0, 1, 3, 5, 8, 10, 12, 14, 17], None)),
    ((2.5, 7.0, 1), ("float32", [2.5], None)),
    ((0, 1, 0), ("float32", [], None)),
])
def test_linspace_gives_torch_values_bit_for_bit(args, expect, device):
    def program(L, device):
        dtype = getattr(L, args[3]) if len(args) > 3 else None
        return L.linspace(*args[:3], dtype=dtype, device=device)
    check(program, expect, device)


def test_linspace_over_many_steps_equals_torch():
    if torch is None:
        pytest.skip("torch is not installed")
    for start, end, steps in [(-1, 1, 1000), (0.1, 7.3, 1000), (0, 6.283185307179586, 500), (5, -5, 10001)]:
        for name in ("float32", "float64"):
            mine = minigrad.linspace(start, end, steps, dtype=getattr(minigrad, name)).numpy()
            theirs = torch.linspace(start, end, steps, dtype=getattr(torch, name)).numpy()
            np.testing.assert_array_equal(mine, theirs)


# ---- arithmetic: function forms taking a number first, pow's nodes, bools ----------------------

def _number_first(L, device):
    x = L.tensor([1., 2.], device=device, requires_grad=True)
    labels = L.tensor([1, 2], device=device)
    return (L.mul(2, x), L.add(1, x), L.sub(1, x, alpha=2), L.div(2, x), L.add(2.5, labels), L.mul(True, labels),
            L.div(3, labels))


def test_add_sub_mul_div_take_a_number_as_input(device):
    check(_number_first, (("float32", [2.0, 4.0], "MulBackward0"), ("float32", [2.0, 3.0], "AddBackward0"),
                          ("float32", [-1.0, -3.0], "SubBackward0"), ("float32", [2.0, 1.0], "DivBackward0"),
                          ("float32", [3.5, 4.5], None), ("int64", [1, 2], None), ("float32", [3.0, 1.5], None)),
          device)


def _pow_nodes(L, device):
    x = L.tensor([1., 2.], device=device, requires_grad=True)
    e = L.tensor([3., 0.5], device=device)
    outs = [x ** 2, x ** e, x ** x, 2 ** x, L.pow(2, x), x.pow(e), x.square(), L.square(x), e ** x]
    grads = L.autograd.grad(sum(o.sum() for o in outs), x)
    return [node(o) for o in outs], grads, L.tensor([True, False], device=device).square()


def test_pow_records_torch_node_for_each_operand_kind(device):
    check(_pow_nodes, (["PowBackward0", "PowBackward1", "PowBackward1", "PowBackward2", "PowBackward2",
                        "PowBackward1", "PowBackward0", "PowBackward0", "PowBackward1"],
                       (("float32", [19.06842613220215, 24.851587295532227], None),),
                       ("int64", [1, 0], None)), device)


_MASK_SUB = ("RuntimeError", "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
             "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
_BOOLS_SUB = ("RuntimeError", "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
              "`^` or `logical_xor()` operator instead.")


@pytest.mark.parametrize("make, expect", [
    (lambda L, m: m - True, _BOOLS_SUB), (lambda L, m: True - m, _BOOLS_SUB), (lambda L, m: m - m, _BOOLS_SUB),
    (lambda L, m: m.sub(True, alpha=2), _BOOLS_SUB), (lambda L, m: L.rsub(m, True), _BOOLS_SUB),
    (lambda L, m: m - 1, _MASK_SUB), (lambda L, m: 1 - m, _MASK_SUB), (lambda L, m: m.long() - m, _MASK_SUB),
    (lambda L, m: m.long() - True, _MASK_SUB),
], ids=["mask-True", "True-mask", "mask-mask", "sub-alpha", "rsub", "mask-1", "1-mask", "long-mask", "long-True"])
def test_subtracting_bools_names_what_torch_names(make, expect):
    check(lambda L, d: make(L, L.tensor([True, False])), expect)


def _bool_unary(L, device):
    mask = L.tensor([True, False], device=device)
    return mask.sign(), L.sign(mask), mask.sqrt(), mask.sigmoid(), mask.float().mean()


def test_unary_ops_on_bool_tensors(device):
    check(_bool_unary, (("bool", [True, False], None), ("bool", [True, False], None), ("float32", [1.0, 0.0], None),
                        ("float32", [0.7310585975646973, 0.5], None), ("float32", 0.5, None)), device)
    check(lambda L, d: L.tensor([True]).abs(), ("NotImplementedError", "\"abs_cpu\" not implemented for 'Bool'"))


def _compare_with_numpy(L, device):
    predicted = L.tensor([0, 2, 1, 1])
    labels = np.array([0, 1, 1, 1])
    correct = predicted == labels
    halves = L.tensor([0.5, 0.25]) == np.array([0.5, 0.3])
    return correct, correct.sum().item(), halves, predicted != labels


def test_equality_with_a_numpy_array_is_elementwise():
    check(_compare_with_numpy, (("bool", [True, False, True, True], None), 3, ("bool", [True, False], None), True))
    check(lambda L, d: L.tensor([0.2]) > np.array([0.5]),
          ("TypeError", "'>' not supported between instances of 'Tensor' and 'numpy.ndarray'"))


@pytest.mark.parametrize("make, expect", [
    (lambda L, x: x.maximum(0), "maximum(): argument 'other' (position 1) must be Tensor, not int"),
    (lambda L, x: x.minimum(0.5), "minimum(): argument 'other' (position 1) must be Tensor, not float"),
    (lambda L, x: L.maximum(x, 0), "maximum(): argument 'other' (position 2) must be Tensor, not int"),
    (lambda L, x: L.minimum(x, [1.]), "minimum(): argument 'other' (position 2) must be Tensor, not list"),
])
def test_maximum_with_a_number_names_the_argument_position(make, expect):
    check(lambda L, d: make(L, L.tensor([1., -1.])), ("TypeError", expect))


@pytest.mark.parametrize("make, expect", [
    (lambda L: L.tensor([[1, 2]]) @ L.tensor([[3.], [4.]]), "expected m1 and m2 to have the same dtype, but got: "
                                                           "long int != float"),
    (lambda L: L.ones(2, 2, dtype=L.int32) @ L.ones(2, 2, dtype=L.float64),
     "expected m1 and m2 to have the same dtype, but got: int != double"),
    (lambda L: L.ones(2) @ L.ones(2, dtype=L.int64), "dot : expected both vectors to have same dtype, but found "
                                                    "Float and Long"),
    (lambda L: L.nn.functional.linear(L.ones(2, 2, dtype=L.int64), L.ones(2, 2)),
     "expected m1 and m2 to have the same dtype, but got: long int != float"),
])
def test_matmul_of_mixed_dtypes_names_them_as_torch(make, expect):
    check(lambda L, d: make(L), ("RuntimeError", expect))


# ---- reductions: var and std summed in double, their warning, argmax's errors ------------------

def _normalize_features(L, device):
    x = L.tensor([[1., 5., 2.], [4., 4., -1.], [0., 3., 7.], [2., 8., 6.]], device=device, requires_grad=True)
    z = (x - x.mean(0)) / x.std(0)
    spread = x.var(), x.std(), x.var(1, keepdim=True), x.std(correction=0), x.var(dim=(0, 1), correction=2)
    (z * L.arange(12., device=device).view(4, 3)).sum().backward(retain_graph=True)
    g_z = x.grad.clone()
    x.grad = None
    (spread[0] * 2 + spread[3]).backward()
    return spread, node(spread[0]), node(spread[1]), g_z, x.grad


def test_var_and_std_of_float32_are_summed_in_double_as_torch():
    # on the CPU, where torch's kernels' bits are the reference (a GPU's sums round otherwise)
    check(_normalize_features, (
        (("float32", 7.719696998596191, "VarBackward0"), ("float32", 2.7784342765808105, "StdBackward0"),
         ("float32", [[4.333333492279053], [8.333333015441895], [12.333333015441895], [9.333333015441895]],
          "VarBackward0"),
         ("float32", 2.6601483821868896, "StdBackward0"), ("float32", 8.491666793823242, "VarBackward0")),
        "VarBackward0", "StdBackward0",
        ("float32", [[-2.7102138996124268, -2.0830955505371094, -0.9203627109527588],
                     [-0.6524587869644165, -0.29758524894714355, 0.4849224090576172],
                     [0.7026479244232178, 1.4879252910614014, -0.28699469566345215],
                     [2.660024642944336, 0.8927550315856934, 0.722435474395752]], None),
        ("float32", [[-0.9544938206672668, 0.625357985496521, -0.5595308542251587],
                     [0.23039501905441284, 0.23039501905441284, -1.744419813156128],
                     [-1.3494566679000854, -0.16456793248653412, 1.4152839183807373],
                     [-0.5595308542251587, 1.8102467060089111, 1.0203208923339844]], None)))


def _single_sample_std(L, device):
    batch = L.tensor([[0.5, 1.5]], device=device)
    return warned(lambda: (batch.std(0), L.var(batch), batch.var(1, correction=2)))


def test_var_and_std_warn_when_the_degrees_of_freedom_are_not_positive(device):
    dof = "{}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor " \
          "(input numel divided by output numel)."
    check(_single_sample_std, ((("float32", ["nan", "nan"], None), ("float32", 0.5, None),
                                ("float32", [float("inf")], None)),
                               [("UserWarning", dof.format("std")), ("UserWarning", dof.format("var"))]), device)


def test_std_with_both_unbiased_and_correction_gets_torch_message():
    check(lambda L, d: L.ones(2, 3).std(0, unbiased=True, correction=1), (
        "TypeError", "std() received an invalid combination of arguments - got (int, correction=int, unbiased=bool), "
                     "but expected one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n"
                     "      didn't match because some of the keywords were incorrect: correction, unbiased\n"
                     " * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n"
                     " * (bool unbiased = True)\n"))


@pytest.mark.parametrize("make, expect", [
    (lambda L, d: L.tensor([], device=d).max(),
     ("RuntimeError", "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                      "dim with the 'dim' argument.")),
    (lambda L, d: L.tensor([], device=d).min(),
     ("RuntimeError", "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                      "dim with the 'dim' argument.")),
    (lambda L, d: L.tensor([], device=d).argmax(),
     ("IndexError", "argmax(): Expected reduction dim to be specified for input.numel() == 0.")),
    (lambda L, d: L.zeros(0, 3, device=d).argmin(0),
     ("IndexError", "argmin(): Expected reduction dim 0 to have non-zero size.")),
    (lambda L, d: L.zeros(0, 3, device=d).argmax(-1, keepdim=True), ("int64", [], None)),
    (lambda L, d: L.tensor([True, False], device=d).argmax(), ("RuntimeError", "argmax(): does not support bool input")),
    (lambda L, d: (L.tensor([0.2, 0.7], device=d) > 0.5).argmin(0),
     ("RuntimeError", "argmin(): does not support bool input")),
], ids=["max", "min", "argmax", "argmin-dim", "argmax-empty-result", "argmax-bool", "argmin-bool"])
def test_extremes_of_empty_and_bool_tensors(make, expect, device):
    check(make, expect, device)


# ---- shape ops: the nodes torch records, flatten's identity, Size ------------------------------

def _layout_nodes(L, device):
    x = L.arange(6., device=device).reshape(2, 3).requires_grad_()
    pieces = x.split([1, 2], 1) + x.split(2, 1) + x.chunk(2) + x.chunk(1)
    outs = [x.view(3, 2), x.t(), L.t(x), x.T, x.mT, L.stack([x, x], 1), L.stack((x[0], x[1])), x.flatten(0, 1)]
    flat_is_self = x.flatten(1, 1) is x, x.flatten(-1) is x, x[0].flatten() is not None
    total = sum((p * (i + 1)).sum() for i, p in enumerate(pieces + tuple(outs)))
    return [node(p) for p in pieces], [node(o) for o in outs], flat_is_self, L.autograd.grad(total, x)


def test_shape_ops_record_torch_nodes(device):
    check(_layout_nodes, (
        ["SplitWithSizesBackward0", "SplitWithSizesBackward0", "SplitBackward0", "SplitBackward0",
         "SplitBackward0", "SplitBackward0", "SplitBackward0"],
        ["ViewBackward0", "TBackward0", "TBackward0", "PermuteBackward0", "TransposeBackward0", "StackBackward0",
         "StackBackward0", "ViewBackward0"],
        (True, True, True),
        (("float32", [[121.0, 122.0, 123.0], [122.0, 123.0, 124.0]], None),)), device)


def _stack_mixed(L, device):
    a = L.tensor([1, 2], device=device)
    b = L.tensor([0.5, 1.5], device=device, requires_grad=True)
    s = L.stack([a, b, a], dim=-1)
    s.backward(L.tensor([[1., 2., 3.], [4., 5., 6.]], device=device))
    return s, b.grad, L.stack([L.tensor([], device=device), L.tensor([], device=device)]).shape


def test_stack_promotes_and_routes_gradients(device):
    check(_stack_mixed, (("float32", [[1.0, 0.5, 1.0], [2.0, 1.5, 2.0]], "StackBackward0"),
                         ("float32", [2.0, 5.0], None), (2, 0)), device)


@pytest.mark.parametrize("make, expect", [
    (lambda L: L.zeros(0, 3).view(-1, 0), "cannot reshape tensor of 0 elements into shape [-1, 0] because the "
                                          "unspecified dimension size -1 can be any value and is ambiguous"),
    (lambda L: L.zeros(0).reshape(0, -1), "cannot reshape tensor of 0 elements into shape [0, -1] because the "
                                          "unspecified dimension size -1 can be any value and is ambiguous"),
    (lambda L: L.ones(3).mT, "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."),
])
def test_shape_errors(make, expect):
    check(lambda L, d: make(L), ("RuntimeError", expect))


def _size_arithmetic(L, device):
    images = L.zeros(8, 3, 4, 5)
    batch, *rest = images.shape
    flat = images.shape[1:].numel()
    new_shape = images.shape[:1] + (flat,)
    return (images.shape[1:], repr(images.shape[-2:]), new_shape, repr((2,) + images.shape[2:]),
            repr(images.shape[:2] * 2), batch, rest, images.view(new_shape).shape)


def test_slices_and_sums_of_a_size_are_sizes():
    check(_size_arithmetic, ((3, 4, 5), "minigrad.Size([4, 5])", (8, 60), "minigrad.Size([2, 4, 5])",
                             "minigrad.Size([8, 3, 8, 3])", 8, [3, 4, 5], (8, 60)))


# ---- indexing: writing into a leaf, `in` -------------------------------------------------------

_VIEW_OF_LEAF = ("RuntimeError", "a view of a leaf Variable that requires grad is being used in an in-place "
                 "operation.")
_LEAF = ("RuntimeError", "a leaf Variable that requires grad is being used in an in-place operation.")


@pytest.mark.parametrize("index, expect", [
    (0, _VIEW_OF_LEAF), (slice(1, None), _VIEW_OF_LEAF), ((0, [1]), _VIEW_OF_LEAF), ((slice(None), None), _VIEW_OF_LEAF),
    ([0], _LEAF), (slice(None), _LEAF), (Ellipsis, _LEAF), ((slice(None), slice(0, 9)), _LEAF),
], ids=["int", "slice", "int-and-list", "None", "list", "all", "ellipsis", "whole-slices"])
def test_assigning_into_a_leaf_names_the_view_torch_writes_to(index, expect):
    def program(L, device):
        w = L.zeros(2, 3, requires_grad=True)
        w[index] = 1.0
    check(program, expect)


def _membership(L, device):
    labels = L.tensor([[0, 3], [1, 3]], device=device)
    probs = L.tensor([0.25, 0.5], device=device)
    return 3 in labels, 2 in labels, 0.5 in probs, L.tensor(1, device=device) in labels, True in (labels > 2)


def test_in_tests_the_elements(device):
    check(_membership, (True, False, True, True, True), device)
    check(lambda L, d: "a" in L.ones(2), ("RuntimeError", "Tensor.__contains__ only supports Tensor or scalar, "
                                                         "but you passed in a <class 'str'>."))


# ---- autograd: the messages of requires_grad, grad and autograd.grad ---------------------------

@pytest.mark.parametrize("make, expect", [
    (lambda L: L.tensor([1, 2], requires_grad=True), "Only Tensors of floating point and complex dtype can require "
                                                     "gradients"),
    (lambda L: L.arange(3).requires_grad_(), "only Tensors of floating point dtype can require gradients"),
    (lambda L: setattr(L.arange(3), "requires_grad", True), "only Tensors of floating point and complex dtype can "
                                                            "require gradients"),
    (lambda L: setattr(L.ones(2, requires_grad=True), "grad", L.ones(2, dtype=L.float64)),
     "attempting to assign a gradient with dtype 'double' to a tensor with grad_dtype 'Float'. The gradient must "
     "match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
     "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the "
     "dtypes of a tensor and its gradient may break downstream systems that assume they match."),
    (lambda L: L.autograd.grad((L.ones(2) * 2).sum(), L.ones(2)), "element 0 of tensors does not require grad and "
                                                                   "does not have a grad_fn"),
    (lambda L: L.autograd.grad((L.ones(2, requires_grad=True) * 2).sum(), L.ones(2)),
     "One of the differentiated Tensors does not require grad"),
], ids=["factory", "requires_grad_", "setter", "grad-dtype", "grad-of-constant", "grad-wrt-constant"])
def test_autograd_messages(make, expect):
    check(lambda L, d: make(L), ("RuntimeError", expect))


def _non_leaf_grad(L, device):
    x = L.tensor([1., 2.], requires_grad=True)
    hidden = x * 2
    hidden.sum().backward()
    return warned(lambda: hidden.grad)


def test_reading_the_grad_of_a_non_leaf_warns_with_torch_text():
    check(_non_leaf_grad, (None, [("UserWarning", "The .grad attribute of a Tensor that is not a leaf Tensor is "
                                  "being accessed. Its .grad attribute won't be populated during "
                                  "autograd.backward(). If you indeed want the .grad field to be populated for a "
                                  "non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the "
                                  "non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
                                  "github.com/pytorch/pytorch/pull/30531 for more information.")]))


# ---- whole programs, printed as such programs print their tensors -----------------------------

def _preprocess(L, device):
    # one-hot labels, per-feature standardization, outliers zeroed, a train/validation split
    raw = L.tensor([[1, 200, 3], [4, 180, 6], [7, 260, 9], [10, 240, 12]], device=device)
    labels = L.tensor([2, 0, 1, 2], device=device)
    onehot = L.eye(3, device=device)[labels]
    x = raw / raw.amax(0, keepdim=True)  # int / int: float32
    mu, sd = x.mean(0), x.std(0, unbiased=False)
    z = (x - mu) / sd
    z[z.abs() > 1.2] = 0.0
    train, val = z.split([3, 1])
    grid = L.linspace(0, 1, 5, device=device)
    bins = (x[:, :1] > grid).sum(1)
    return [repr(t.cpu()) for t in (onehot, z, train.t(), val, bins, grid, L.stack([mu, sd]))] + [
        raw.sum((0, 1)).item(), repr(raw.cpu().max(1))]


def test_a_preprocessing_program_prints_as_torch(device):
    check(_preprocess, [
        "tensor([[0., 0., 1.],\n        [1., 0., 0.],\n        [0., 1., 0.],\n        [0., 0., 1.]])",
        "tensor([[ 0.0000, -0.6325,  0.0000],\n        [-0.4472,  0.0000, -0.4472],\n"
        "        [ 0.4472,  0.0000,  0.4472],\n        [ 0.0000,  0.6325,  0.0000]])",
        "tensor([[ 0.0000, -0.4472,  0.4472],\n        [-0.6325,  0.0000,  0.0000],\n"
        "        [ 0.0000, -0.4472,  0.4472]])",
        "tensor([[0.0000, 0.6325, 0.0000]])", "tensor([1, 2, 3, 4])", "tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])",
        "tensor([[0.5500, 0.8462, 0.6250],\n        [0.3354, 0.1216, 0.2795]])", 932,
        "minigrad.return_types.max(\nvalues=tensor([200, 180, 260, 240]),\nindices=tensor([1, 1, 1, 1]))"], device)


def _training_step(L, device):
    # a softmax classifier's step with a gradient penalty (double backward), updated by hand
    w = L.tensor([[0.5, -0.25], [1.0, 0.75]], requires_grad=True)
    b = L.zeros(2, requires_grad=True)
    x = L.tensor([[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0]])
    h = x @ w.t() + b
    h.retain_grad()
    p = h.softmax(-1)
    loss = -(p[range(3), L.tensor([0, 1, 1])].log()).mean()
    grads = L.autograd.grad(loss, [w, b], retain_graph=True, create_graph=True)
    penalty = sum(g.pow(2).sum() for g in grads)
    (loss + penalty).backward()
    with L.no_grad():
        w -= 0.1 * w.grad
        b.sub_(b.grad, alpha=0.1)
    return [repr(t) for t in (loss, h.grad, w, b, grads[0], penalty)] + [w._version, b._version]


def test_a_training_step_with_a_gradient_penalty_prints_as_torch():
    check(_training_step, [
        "tensor(1.1069, grad_fn=<NegBackward0>)",
        "tensor([[-0.7629,  0.7629],\n        [ 0.3688, -0.3688],\n        [-0.0636,  0.0636]])",
        "tensor([[ 0.5657, -0.1453],\n        [ 0.9343,  0.6453]], requires_grad=True)",
        "tensor([ 0.0332, -0.0332], requires_grad=True)",
        "tensor([[-0.4747, -0.4853],\n        [ 0.4747,  0.4853]], grad_fn=<TBackward0>)",
        "tensor(0.9533, grad_fn=<AddBackward0>)", 1, 1])
