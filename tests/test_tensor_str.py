"""minigrad._tensor_str against PyTorch's own repr, character for character.

The module is loaded by file path so these tests do not depend on the rest of minigrad.
"""
import importlib.util
import math
import pathlib

import numpy as np
import pytest

_PATH = pathlib.Path(__file__).resolve().parents[1] / "minigrad" / "_tensor_str.py"
_spec = importlib.util.spec_from_file_location("_tensor_str_under_test", _PATH)
ts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ts)


@pytest.fixture
def torch(monkeypatch):
    # torch spells its dtypes "torch.int64"; comparing like for like keeps line wrapping identical
    monkeypatch.setattr(ts, "DTYPE_PREFIX", "torch.")
    return pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _reset_printoptions():
    yield
    ts.set_printoptions(profile="default")
    try:
        import torch as _torch
    except ImportError:
        return
    _torch.set_printoptions(profile="default")


# ---------------------------------------------------------------- without torch

def test_seed_examples():
    mean = np.array([3.0, 7.0, 49.0], np.float32).mean()
    assert ts.tensor_repr(np.asarray(mean), ["grad_fn=<MeanBackward0>"]) == \
        "tensor(19.6667, grad_fn=<MeanBackward0>)"
    assert ts.tensor_repr(np.array([1.0, 2.0, 3.0], np.float32), ["requires_grad=True"]) == \
        "tensor([1., 2., 3.], requires_grad=True)"
    assert ts.tensor_repr(np.array([True, False]), []) == "tensor([ True, False])"


def test_literal_layouts():
    assert ts.tensor_repr(np.array(5, np.int64), []) == "tensor(5)"
    assert ts.tensor_repr(np.array([1e-5, 1.0], np.float32), []) == "tensor([1.0000e-05, 1.0000e+00])"
    assert ts.tensor_repr(np.array([[1.5, -2.0], [0.25, 3.0]], np.float64),
                          ["dtype=minigrad.float64"]) == \
        "tensor([[ 1.5000, -2.0000],\n        [ 0.2500,  3.0000]], dtype=minigrad.float64)"
    assert ts.tensor_repr(np.array([np.nan, -np.inf, 2.0], np.float32), []) == "tensor([nan, -inf, 2.])"
    assert ts.tensor_repr(np.arange(8, dtype=np.int64).reshape(2, 2, 2), []) == \
        "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])"


def test_literal_empty_and_suffix_order():
    assert ts.tensor_repr(np.zeros(0, np.float32), []) == "tensor([])"
    assert ts.tensor_repr(np.zeros(0, np.int64), []) == "tensor([], dtype=minigrad.int64)"
    assert ts.tensor_repr(np.zeros((0, 3), np.float32), ["requires_grad=True"]) == \
        "tensor([], size=(0, 3), requires_grad=True)"
    # size goes after the device and before the dtype, where torch puts it
    assert ts.tensor_repr(np.zeros((2, 0), np.float64), ["device='cuda:0'", "dtype=minigrad.float64"]) == \
        "tensor([], device='cuda:0', size=(2, 0), dtype=minigrad.float64)"
    # a dtype the caller already gave is not repeated
    assert ts.tensor_repr(np.zeros(0, np.int64), ["dtype=minigrad.int64"]) == "tensor([], dtype=minigrad.int64)"


def test_literal_printoptions():
    assert ts.get_printoptions() == dict(precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None)
    ts.set_printoptions(precision=2, sci_mode=True)
    assert ts.tensor_repr(np.array([1.0, 2.5], np.float32), []) == "tensor([1.00e+00, 2.50e+00])"
    ts.set_printoptions(precision=2)  # a call without sci_mode switches it back to automatic
    assert ts.get_printoptions()["sci_mode"] is None
    ts.set_printoptions(profile="full")
    assert ts.get_printoptions()["threshold"] == math.inf
    ts.set_printoptions(profile="default", threshold=4, edgeitems=1)
    assert ts.tensor_repr(np.arange(5, dtype=np.int64), []) == "tensor([0,  ..., 4])"


def test_format_scalar_literal():
    assert ts.format_scalar(np.array(1.5, np.float32), "") == "1.5"
    assert ts.format_scalar(np.array(1.5, np.float32), ".2f") == "1.50"
    assert ts.format_scalar(np.array(7, np.int64), ">4") == "   7"
    with pytest.raises(ValueError):
        ts.format_scalar(np.zeros(2), "")


# ---------------------------------------------------------------- against torch

_rng = np.random.default_rng(0)


def _float_cases():
    r = _rng
    nan, inf = np.nan, np.inf
    return {
        "0d": np.array(19.666666),
        "0d_int_valued": np.array(5.0),
        "0d_zero": np.array(0.0),
        "0d_negzero": np.array(-0.0),
        "0d_huge": np.array(1e10),
        "0d_tiny": np.array(1e-5),
        "0d_nan": np.array(nan),
        "0d_neginf": np.array(-inf),
        "empty": np.zeros(0),
        "empty_0x3": np.zeros((0, 3)),
        "empty_2x0": np.zeros((2, 0)),
        "empty_0x2x3": np.zeros((0, 2, 3)),
        "ints": np.array([1.0, 2.0, 3.0]),
        "mixed": np.array([1.5, -2.25, 3.0]),
        "negatives": np.array([-1.0, -20.5, -300.125]),
        "ratio_sci": np.array([0.1, 100000.0]),
        "ratio_edge": np.array([1.0, 1000.0]),
        "ratio_over": np.array([1.0, 1001.0]),
        "tiny_sci": np.array([1e-5, 1.0]),
        "tiny_alone": np.array([0.00012, 0.00011]),
        "big_int_sci": np.array([123456789.0]),
        "big_int_edge": np.array([100000000.0, 99999999.0]),
        "big_nonint": np.array([1.5e9, 2.25]),
        "nan_one": np.array([nan, 1.0]),
        "infs": np.array([inf, -inf, 1.5]),
        "nonfinite_only": np.array([nan, inf, -inf]),
        "nan_sci": np.array([nan, 1e-7, 3.0]),
        "negzero": np.array([-0.0, 0.0, 1.0]),
        "negzero_frac": np.array([-0.0, 0.5]),
        "zeros": np.zeros(5),
        "wrap_1d": np.arange(100.0),
        "wrap_frac": r.standard_normal(50) * 1000,
        "wrap_tiny": r.standard_normal(30) * 1e-6,
        "summarize_1d": np.arange(2000.0),
        "summarize_1001": r.standard_normal(1001),
        "summarize_hidden_big": np.concatenate([np.ones(3), np.full(1000, 1e12), np.ones(3)]),
        "2d": r.standard_normal((3, 4)),
        "2d_ints": np.arange(12.0).reshape(3, 4),
        "2d_wrap": r.standard_normal((2, 40)),
        "2d_summarize": r.standard_normal((40, 40)),
        "2d_tall": r.standard_normal((400, 3)),
        "2d_wide": r.standard_normal((3, 500)) * 100,
        "3d": r.standard_normal((2, 3, 4)),
        "3d_ints": np.arange(24.0).reshape(2, 3, 4) - 10,
        "3d_summarize": r.standard_normal((20, 10, 10)),
        "4d": r.standard_normal((2, 2, 2, 3)),
        "4d_summarize": r.standard_normal((5, 5, 5, 10)) * 1e5,
    }


def _int_cases():
    r = _rng
    return {
        "0d": np.array(5),
        "0d_neg": np.array(-7),
        "empty": np.zeros(0),
        "empty_0x3": np.zeros((0, 3)),
        "1d": np.array([1, 2, 3]),
        "1d_mixed": np.array([-100, 5, 1000000]),
        "1d_wrap": r.integers(-1000, 1000, 60),
        "summarize_1d": np.arange(2000),
        "2d": r.integers(-50, 50, (4, 5)),
        "2d_summarize": r.integers(0, 10**6, (50, 50)),
        "3d": np.arange(24).reshape(2, 3, 4),
        "4d": r.integers(-3, 3, (2, 3, 2, 2)),
    }


def _bool_cases():
    r = _rng
    return {
        "0d_true": np.array(True),
        "0d_false": np.array(False),
        "1d": np.array([True, False]),
        "all_true": np.ones(4, bool),
        "empty": np.zeros(0, bool),
        "empty_2x0": np.zeros((2, 0), bool),
        "2d": r.integers(0, 2, (3, 5)).astype(bool),
        "wrap": r.integers(0, 2, 30).astype(bool),
        "summarize": r.integers(0, 2, (2000,)).astype(bool),
        "3d_summarize": r.integers(0, 2, (11, 10, 11)).astype(bool),
    }


def _all_cases():
    cases = []
    for dtype in (np.float32, np.float64):
        cases += [(f"{np.dtype(dtype).name}-{k}", v.astype(dtype)) for k, v in _float_cases().items()]
    for dtype in (np.int64, np.int32):
        cases += [(f"{np.dtype(dtype).name}-{k}", v.astype(dtype)) for k, v in _int_cases().items()]
    cases += [(f"bool-{k}", v) for k, v in _bool_cases().items()]
    return cases


CASES = _all_cases()
CASE_IDS = [name for name, _ in CASES]
CASE_ARRAYS = [a for _, a in CASES]


def _caller_suffixes(t):
    """The suffixes Tensor.__repr__ is expected to pass, in torch's order."""
    import torch
    suffixes = []
    if t.dtype not in (torch.get_default_dtype(), torch.int64, torch.bool):
        suffixes.append("dtype=" + str(t.dtype))
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return suffixes


def _check(torch, array, tensor=None):
    t = torch.from_numpy(array.copy()) if tensor is None else tensor
    expected = repr(t)
    got = ts.tensor_repr(t.detach().numpy(), _caller_suffixes(t))
    assert got == expected, f"\nexpected:\n{expected}\ngot:\n{got}"


@pytest.mark.parametrize("array", CASE_ARRAYS, ids=CASE_IDS)
def test_matches_torch_default_options(torch, array):
    _check(torch, array)


@pytest.mark.parametrize("array", CASE_ARRAYS, ids=CASE_IDS)
def test_matches_torch_requires_grad(torch, array):
    if array.dtype.kind != "f":
        pytest.skip("only floating tensors can require grad")
    _check(torch, array, torch.from_numpy(array.copy()).requires_grad_())


OPTIONS = [
    dict(precision=2),
    dict(precision=0),
    dict(precision=8),
    dict(threshold=5),
    dict(threshold=0),
    dict(edgeitems=1),
    dict(edgeitems=0),
    dict(edgeitems=6, threshold=20),
    dict(linewidth=40),
    dict(linewidth=10),
    dict(linewidth=200),
    dict(sci_mode=True),
    dict(sci_mode=False),
    dict(precision=3, sci_mode=True, linewidth=60),
    dict(profile="short"),
    dict(profile="full"),
    dict(profile="short", precision=6),
]

# a spread of shapes, dtypes and styles; every option runs on each
OPTION_CASES = [c for c in CASES if c[0].split("-", 1)[1] in {
    "0d", "0d_zero", "0d_nan", "0d_huge", "empty_0x3", "ints", "mixed", "ratio_sci", "tiny_sci",
    "big_int_sci", "nan_one", "negzero", "zeros", "wrap_1d", "wrap_frac", "summarize_1d",
    "summarize_hidden_big", "2d", "2d_wrap", "2d_summarize", "3d_ints", "3d_summarize", "4d",
    "1d", "1d_mixed", "2d_summarize", "summarize", "3d",
} and not c[0].startswith("int32")]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("array", [a for _, a in OPTION_CASES], ids=[n for n, _ in OPTION_CASES])
def test_matches_torch_with_printoptions(torch, array, options):
    torch.set_printoptions(**options)
    ts.set_printoptions(**options)
    _check(torch, array)


@pytest.mark.parametrize("calls", [
    [dict(precision=2)],
    [dict(sci_mode=True), dict(precision=6)],
    [dict(profile="full"), dict(edgeitems=1)],
    [dict(profile="short", sci_mode=False)],
    [dict(threshold=10, linewidth=33), dict(profile="default")],
    [dict(profile="no-such-profile", linewidth=50)],
])
def test_printoptions_state_matches_torch(torch, calls):
    for kwargs in calls:
        torch.set_printoptions(**kwargs)
        ts.set_printoptions(**kwargs)
    assert ts.get_printoptions() == torch._tensor_str.get_printoptions()


def test_suffixes_wrap_like_torch(torch):
    # rows that end near the line width push the suffixes onto new lines
    for n in range(5, 14):
        base = np.linspace(-1, 1, n, dtype=np.float64)
        t = torch.from_numpy(base.copy()).requires_grad_()
        _check(torch, base, t)
        _check(torch, None, (t * 2).sum())
        _check(torch, None, t * 2)


@pytest.mark.parametrize("value, spec", [
    (np.array(1.5, np.float32), ""),
    (np.array(0.1, np.float32), ""),
    (np.array(0.1, np.float32), ".3f"),
    (np.array(2.0, np.float64), "e"),
    (np.array(-3.25, np.float64), ">12.1f"),
    (np.array(42, np.int64), ""),
    (np.array(42, np.int64), "05d"),
    (np.array(-7, np.int32), "x"),
    (np.array(True), ""),
])
def test_format_scalar_matches_torch(torch, value, spec):
    assert ts.format_scalar(value, spec) == format(torch.from_numpy(value.copy()), spec)


def _random_array(rng):
    ndim = int(rng.integers(0, 5))
    shape = tuple(int(n) for n in rng.integers(1, [40, 12, 6, 4][:ndim] if ndim else 1, size=ndim))
    kind = rng.choice(["float32", "float64", "int64", "int32", "bool"])
    if kind == "bool":
        return np.asarray(rng.integers(0, 2, shape).astype(bool))
    if kind.startswith("int"):
        return np.asarray((rng.integers(-10, 10, shape) * 10 ** int(rng.integers(0, 9))).astype(kind))
    a = rng.standard_normal(shape) * 10.0 ** float(rng.uniform(-9, 12))
    if rng.random() < 0.4:
        a = np.round(a)
    if a.ndim and rng.random() < 0.5:  # sprinkle zeros, -0.0, nan and inf
        flat = a.reshape(-1)
        spots = rng.integers(0, flat.size, int(rng.integers(1, 4)))
        flat[spots] = rng.choice([0.0, -0.0, np.nan, np.inf, -np.inf], spots.size)
    return np.asarray(a.astype(kind))


def _random_options(rng):
    options = {}
    if rng.random() < 0.5:
        options["precision"] = int(rng.integers(0, 9))
    if rng.random() < 0.5:
        options["threshold"] = int(rng.integers(0, 300))
    if rng.random() < 0.5:
        options["edgeitems"] = int(rng.integers(0, 5))
    if rng.random() < 0.5:
        options["linewidth"] = int(rng.integers(5, 150))
    if rng.random() < 0.5:
        options["sci_mode"] = bool(rng.random() < 0.5)
    return options


@pytest.mark.parametrize("seed", range(40))
def test_random_arrays_and_options_match_torch(torch, seed):
    rng = np.random.default_rng(1000 + seed)
    options = _random_options(rng)
    torch.set_printoptions(**options)
    ts.set_printoptions(**options)
    for _ in range(10):
        array = _random_array(rng)
        t = torch.from_numpy(array.copy())
        if array.dtype.kind == "f" and rng.random() < 0.3:
            t.requires_grad_()
        _check(torch, array, t)
