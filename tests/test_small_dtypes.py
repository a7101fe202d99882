"""The small dtypes uint8, int8, int16 and float16 (minigrad/dtypes.py, backends/small_dtypes.py):
each program runs under minigrad (on every device) and torch; values, dtypes, node names,
gradients, warnings and errors must agree. float16 arithmetic is torch's: computed in float32
and rounded once to half, so elementwise results agree bit for bit."""
import io
import itertools

import numpy as np
import pytest

import minigrad
from test_api_sweep import warned
from test_tensor_extras import same

torch = pytest.importorskip("torch")

SMALL = ("uint8", "int8", "int16", "float16")
ALL = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
HALF_EPS = 2.0 ** -10  # float16's relative precision


def _t(L, values, dtype, d="cpu"):
    return L.tensor(values, dtype=getattr(L, dtype))


# ---- the dtypes themselves ------------------------------------------------------------------------

def test_dtype_attributes():
    for name in ALL:
        m, t = getattr(minigrad, name), getattr(torch, name)
        assert (m.is_floating_point, m.is_signed, m.itemsize) == (t.is_floating_point, t.is_signed, t.itemsize)
        assert repr(m) == repr(t).replace("torch.", "minigrad.")
    assert minigrad.half is minigrad.float16 and minigrad.short is minigrad.int16
    assert minigrad.bfloat16.itemsize == 2   # (tests/test_bfloat16.py: stored as uint16 bits)
    for attr in ("char", "byte"):
        assert hasattr(minigrad, attr) == hasattr(torch, attr)


def test_legacy_type_names_and_conversions(device):
    def program(L, d):
        x = L.tensor([1.7, -2.2, 300.0, 1e5])
        outs = [x.byte(), x.char(), x.short(), x.half(), x.to(L.uint8), x.type(L.int8)]
        return [(o.type().replace("cuda.", ""), o) for o in outs]
    same(program, device, rtol=0)


@pytest.mark.parametrize("dtype", SMALL)
def test_is_signed_and_info(dtype):
    m, t = getattr(minigrad, dtype), getattr(torch, dtype)
    assert minigrad.tensor([1], dtype=m).is_signed() == torch.tensor([1], dtype=t).is_signed()
    assert minigrad.is_signed(minigrad.tensor([1], dtype=m)) == torch.is_signed(torch.tensor([1], dtype=t))
    if hasattr(minigrad, "finfo"):
        info, tinfo = (minigrad.finfo(m), torch.finfo(t)) if m.is_floating_point else (minigrad.iinfo(m),
                                                                                         torch.iinfo(t))
        assert (info.bits, info.min, info.max) == (tinfo.bits, tinfo.min, tinfo.max)
        assert repr(info) == repr(tinfo)


# ---- promotion --------------------------------------------------------------------------------------

def test_promote_types_all_pairs():
    for a, b in itertools.product(ALL, ALL):
        got = minigrad.promote_types(getattr(minigrad, a), getattr(minigrad, b))
        assert got.name == str(torch.promote_types(getattr(torch, a), getattr(torch, b))).split(".")[1], (a, b)


_OPERANDS = {
    "bool": [True, False], "uint8": [200, 7], "int8": [-100, 7], "int16": [-30000, 7], "int32": [5, -7],
    "int64": [5, -7], "float16": [1.5, -2.25], "float32": [1.5, -2.25], "float64": [1.5, -2.25]}


def _operand(L, kind, dim):
    """A tensor (1-d or 0-d) of dtype `kind`, or a Python scalar for kind 'int'/'float'/'bool!'."""
    if kind == "pyint":
        return 3
    if kind == "pyfloat":
        return 0.5
    if kind == "pybool":
        return True
    v = _OPERANDS[kind]
    return L.tensor(v if dim else v[1], dtype=getattr(L, kind))


_KINDS = ALL + ("pyint", "pyfloat", "pybool")


@pytest.mark.parametrize("dims", [(1, 1), (1, 0), (0, 1), (0, 0)])
def test_result_type_and_add_over_all_pairs(dims):
    """result_type of tensors (dimensioned or 0-d) and Python scalars, and the values of a + b,
    over every pair of dtypes, as torch: wrapping integers, half computed in float32."""
    for a, b in itertools.product(_KINDS, _KINDS):
        if a.startswith("py") and b.startswith("py"):
            continue
        outcomes = []
        for L in (minigrad, torch):
            x, y = _operand(L, a, dims[0]), _operand(L, b, dims[1])
            r = L.result_type(x, y)
            if (a == "bool" or a == "pybool") and (b == "bool" or b == "pybool"):
                s = x | y
            else:
                s = x + y if isinstance(x, L.Tensor) else y + x
            outcomes.append((str(r).split(".")[1], str(s.dtype).split(".")[1], s.tolist()))
        assert outcomes[0] == outcomes[1], (a, b, dims)


@pytest.mark.parametrize("op", ["sub", "mul", "div", "floor_divide", "remainder", "eq", "lt", "maximum"])
def test_binary_ops_mixed_small_dtypes(op, device):
    def program(L, d):
        out = []
        for a, b in itertools.product(("uint8", "int8", "int16", "float16", "int64", "float32"), repeat=2):
            x = L.tensor([200, 7, 3] if a == "uint8" else [-100, 7, 3], dtype=getattr(L, a))
            y = L.tensor([3, 2, 5] if b in ("uint8",) else [-3, 2, 5], dtype=getattr(L, b))
            out.append(getattr(L, op)(x, y))
        return out
    same(program, device, rtol=0)


# ---- integer wraparound, division, reductions ------------------------------------------------------

def test_wraparound(device):
    def program(L, d):
        u = L.tensor([200, 255, 0], dtype=L.uint8)
        i8 = L.tensor([100, -128, 127], dtype=L.int8)
        i16 = L.tensor([30000, -32768, 1], dtype=L.int16)
        return (u + L.tensor([100, 1, 0], dtype=L.uint8), u + 300, u - 1, u * 3, -u, u + -1, i8 + i8, i8 * 3,
                i8 + 200, -i8, i16 * 2, i16 - 1, abs(i8), u ** 2, i8 ** 3, i16 // 7, i8 % 7, u // 3,
                ~u, ~i8, u & 15, i8 | 1, u << 1, u >> 1, i8 >> 1, L.tensor([300, -1, 65537]).to(L.uint8),
                L.tensor([1e5, -3.7, 300.0, 0.5]).to(L.uint8), L.tensor([1e5, -3.7, 300.0]).to(L.int8),
                L.tensor([1e5, -70000.5]).to(L.int16), L.tensor([1e5, 65519.0, 65520.0]).half(),
                L.full((2,), 300, dtype=L.uint8))
    same(program, device, rtol=0)


def test_division_and_comparisons(device):
    def program(L, d):
        u = L.tensor([200, 7, 3], dtype=L.uint8)
        i8 = L.tensor([-100, 7, 3], dtype=L.int8)
        h = L.tensor([1.5, -2.0, 3.25], dtype=L.half)
        return (u / 2, u / u, L.true_divide(i8, 3), L.div(i8, 2, rounding_mode="floor"),
                L.div(i8, 2, rounding_mode="trunc"), h / 3, h / u, u > 100, i8 < 0, h >= 1.5, u == 7,
                i8 != i8, u > 1.5, L.where(i8 > 0, i8, u), L.where(u > 5, h, 0.0), i8.masked_fill(i8 < 0, 5),
                h.masked_fill(h < 0, float("inf")), u.clamp(5, 100), i8.clamp(min=0), h.clamp(max=1.0),
                L.cat([u, i8]), L.cat([u, h]), L.cat([i8, L.tensor([1, 2])]), L.stack([u, u]))
    same(program, device, rtol=0)


def test_reductions(device):
    def program(L, d):
        out = []
        for dt in SMALL:
            x = L.tensor([[100, 50, 120], [7, 99, 3]], dtype=getattr(L, dt))
            out += [x.sum(), x.sum(0), x.prod(1), x.cumsum(1), x.max(), x.min(1), x.argmax(), x.amax(0),
                    x.sort(1), x.topk(2), x.cummax(1), x.unique(), x.count_nonzero(), x.sum(dtype=L.float32)]
            if dt == "float16":
                out += [x.mean(), x.mean(0), x.var(), x.std(1), x.norm(), x.logsumexp(1), x.softmax(1),
                        x.log_softmax(0), x.cumprod(1)]
        return out
    same(program, device, rtol=1e-3)


def test_half_sum_accumulates_in_float32(device):
    # 4096 ones and 0.25s: a half accumulator would stop at 2048 and lose every 0.25
    def program(L, d):
        x = L.ones(4096, dtype=L.half) * 0.25 + L.ones(4096, dtype=L.half)
        return x.sum(), x.mean(), L.ones(3000, dtype=L.half).sum(), x.reshape(64, 64) @ x.reshape(64, 64)
    same(program, device, rtol=0)


# ---- float16 math and autograd ----------------------------------------------------------------------

_UNARY = ("exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "neg", "abs", "reciprocal",
          "log1p", "expm1", "erf", "floor", "round", "sign", "atan", "square")  # not rsqrt: torch's is approximate


def test_half_unary_math_matches_torch_bit_for_bit(device):
    def program(L, d):
        x = L.tensor([0.1, 0.5, 1.7, 2.3, 3.14159, 7.5, 0.01], dtype=L.half)
        # Python numbers: cast to half first by add, sub, pow, fmod (torch's TensorIterator), kept in
        # float32 by mul and div (its CPU scalar paths)
        return [getattr(L, op)(x) for op in _UNARY] + [x * 1.1 + 0.3, x ** 2.3, x / 0.3, x - 0.3, 0.3 - x,
                                                        L.fmod(x, 0.3), L.remainder(x, 0.3), x.clone().add_(0.3),
                                                        x.clone().mul_(1.1), L.atan2(x, x + 1), x < 0.33325]
    same(program, device, rtol=0)


def _grad_program(L, d):
    x = L.tensor([[0.5, -1.25, 2.0], [1.5, 0.75, -0.1]], dtype=L.half).requires_grad_()
    w = L.tensor([[0.3, -0.2], [0.1, 0.4], [-0.5, 0.25]], dtype=L.float16).requires_grad_()
    y = (x @ w).tanh() * x.sum(1, keepdim=True).sigmoid() + x[:, :2].exp()
    loss = y.pow(2).mean() + x.softmax(1).max()
    loss.backward()
    return loss, y, x.grad, w.grad


def test_half_gradients(device):
    got = same(_grad_program, device, rtol=4 * HALF_EPS)
    assert got[2][0] == "float16" and got[3][0] == "float16"


def test_half_training_step_with_module_half(device):
    def program(L, d):
        L.manual_seed(0)
        model = L.nn.Sequential(L.nn.Linear(4, 3), L.nn.ReLU(), L.nn.Linear(3, 2))
        with L.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(L.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (i + 1))
        model = model.half().to(d)
        opt = L.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x = L.linspace(-1, 1, 20).reshape(5, 4).half().to(d)
        target = L.tensor([0, 1, 1, 0, 1]).to(d)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = L.nn.functional.cross_entropy(model(x), target)
            loss.backward()
            opt.step()
            losses.append(loss)
        return losses, [p.dtype for p in model.parameters()], [p.grad for p in model.parameters()]

    def run(L, d):
        losses, dtypes, grads = program(L, d)
        return [v.item() for v in losses], [str(t).split(".")[1] for t in dtypes], [g.tolist() for g in grads]
    got_l, got_d, got_g = run(minigrad, device)
    want_l, want_d, want_g = run(torch, "cpu")
    assert got_d == want_d == ["float16"] * 4
    np.testing.assert_allclose(got_l, want_l, rtol=8 * HALF_EPS)
    for a, b in zip(got_g, want_g):
        np.testing.assert_allclose(np.array(a), np.array(b), rtol=0.02, atol=2e-3)


def test_requires_grad_only_for_floating(device):
    def program(L, d):
        return L.tensor([1.0], dtype=L.half, requires_grad=True), L.tensor([1], dtype=L.uint8).requires_grad_()
    same(program, device)


# ---- creation, NumPy, printing, indexing ------------------------------------------------------------

def test_creation(device):
    def program(L, d):
        out = [L.zeros(2, dtype=L.half), L.ones(2, 3, dtype=L.uint8), L.arange(5, dtype=L.int8),
               L.arange(0, 1, 0.125, dtype=L.half), L.full((2,), 7, dtype=L.int16), L.eye(2, dtype=L.uint8),
               L.linspace(0, 1, 5, dtype=L.half), L.tensor([[1, 2]], dtype=L.int8), L.tensor(3, dtype=L.uint8),
               L.zeros_like(L.tensor([1], dtype=L.int16)), L.empty(3, dtype=L.half).shape,
               L.rand(3, dtype=L.half).dtype, L.randn(3, dtype=L.float16).dtype,
               L.randint(0, 5, (3,), dtype=L.uint8).dtype, L.rand(3, dtype=L.int8)]
        return out
    same(program, device, rtol=0)


def test_rand_half_stays_below_one(device):
    x = minigrad.rand(100000, dtype=minigrad.half, device=device)
    assert x.dtype is minigrad.float16 and 0 <= x.min().item() and x.max().item() < 1
    g = minigrad.Generator().manual_seed(3)
    assert minigrad.rand(1000, dtype=minigrad.half, generator=g).max().item() < 1


@pytest.mark.parametrize("dtype", SMALL)
def test_from_numpy_shares_memory_and_numpy(dtype):
    a = np.array([1, 2, 3], dtype=dtype)
    t = minigrad.from_numpy(a)
    assert t.dtype is getattr(minigrad, dtype)
    a[0] = 9
    assert t.tolist() == torch.from_numpy(a).tolist() and t[0].item() == 9
    assert t.numpy().dtype == np.dtype(dtype) and np.shares_memory(t.numpy(), a)
    assert minigrad.tensor(a).dtype is t.dtype and minigrad.as_tensor(a).numpy() is not None


def test_tolist_and_item():
    for dt in SMALL:
        m = minigrad.tensor([0.1, 2, 100], dtype=getattr(minigrad, dt)) if dt == "float16" else \
            minigrad.tensor([1, 2, 100], dtype=getattr(minigrad, dt))
        t = torch.tensor(m.numpy())
        assert m.tolist() == t.tolist() and m[0].item() == t[0].item()
        assert type(m[0].item()) is type(t[0].item())


_REPRS = [
    ("tensor([1, 2], dtype=L.uint8)", None), ("tensor([1, -2], dtype=L.int8)", None),
    ("tensor([[1, 2], [3, 4]], dtype=L.int16)", None), ("tensor(3, dtype=L.uint8)", None),
    ("tensor([1.5, 2.25, 3.1], dtype=L.half)", None), ("tensor(2.5, dtype=L.half)", None),
    ("tensor([1.0, 2.0], dtype=L.half)", None), ("tensor([1e-3, 1e4], dtype=L.half)", None),
    ("tensor([], dtype=L.uint8)", None), ("zeros(0, 2, dtype=L.half)", None),
    ("tensor([1.0, 2.0], dtype=L.half, requires_grad=True)", None),
    ("tensor([65504.0, 1e-8, 0.1], dtype=L.half)", None),
]


@pytest.mark.parametrize("expr", [e for e, _ in _REPRS])
def test_printing(expr):
    got = repr(eval("L." + expr, {"L": minigrad})).replace("minigrad.", "torch.")
    want = repr(eval("L." + expr, {"L": torch}))
    assert got == want


def test_uint8_mask_indexing(device):
    def program(L, d):
        x = L.arange(10.0).reshape(2, 5)
        m = L.tensor([1, 0, 1, 0, 1], dtype=L.uint8)
        got, caught = warned(lambda: (x[:, m], x[L.tensor([[1, 0, 0, 0, 1], [0, 1, 0, 0, 0]], dtype=L.uint8)]))
        bad = []
        for dt in (L.int8, L.int16, L.half):
            try:
                x[L.tensor([1, 0], dtype=dt)]
            except IndexError as e:
                bad.append(str(e))
        return got, [c for c in caught], bad
    same(program, device)


# ---- serialization, modules ---------------------------------------------------------------------------

def test_save_load_round_trip(tmp_path):
    state = {name: minigrad.tensor([1, 2, 100], dtype=getattr(minigrad, name)) for name in SMALL}
    state["half_param"] = minigrad.nn.Parameter(minigrad.tensor([0.1, 0.2], dtype=minigrad.half))
    state["dtype"] = minigrad.int8
    buf = io.BytesIO()
    minigrad.save(state, buf)
    buf.seek(0)
    back = minigrad.load(buf)
    for k, v in state.items():
        if k == "dtype":
            assert back[k] is minigrad.int8
            continue
        assert back[k].dtype is v.dtype and back[k].tolist() == v.tolist()
    assert back["half_param"].requires_grad


def test_module_half_and_to(device):
    def program(L, d):
        m = L.nn.Sequential(L.nn.Linear(2, 2), L.nn.BatchNorm1d(2))
        m.half()
        kinds = [str(t.dtype) for t in m.state_dict().values()]
        m.to(L.float32)
        return kinds, [str(t.dtype) for t in m.state_dict().values()], str(L.nn.Linear(2, 1).to(L.float16).weight.dtype)
    same(program, device)


def test_errors_name_legacy_types(device):
    def program(L, d):
        out = []
        for call in (lambda: L.tensor([1, 2], dtype=L.uint8).mean(),
                     lambda: L.randn(2, dtype=L.int16),
                     lambda: L.tensor([1], dtype=L.int8).requires_grad_(),
                     lambda: L.tensor([1.0]).index_select(0, L.tensor([0], dtype=L.int16)),
                     lambda: L.tensor([1.0])[L.tensor([0.0], dtype=L.half)],
                     lambda: L.tensor([1.0, 2.0], dtype=L.half).cumsum_(0, dtype=L.float32),
                     lambda: L.full((2,), 300, dtype=L.uint8), lambda: L.full((2,), -1, dtype=L.uint8),
                     lambda: L.tensor([-129], dtype=L.int8), lambda: L.tensor([-255, 255], dtype=L.uint8)):
            try:
                out.append(call())
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e).replace("torch", "minigrad")))
        return out
    same(program, device)


def test_the_wrappers_go_in_only_when_a_small_dtype_is_used():
    """Programs that never use float16 or the 8/16-bit integers run the backends' own functions;
    each way a small dtype can enter switches the wrappers on (checked in fresh processes)."""
    import subprocess
    import sys
    prelude = ("import numpy as np, minigrad as torch, io\n"
               "from minigrad.backends import small_dtypes as s\n"
               "x = torch.ones(3, requires_grad=True); (x * 2).sum().backward(); torch.zeros(2).to(torch.int64)\n"
               "assert not s.active()\n")
    entries = ["torch.zeros(2, dtype=torch.uint8)", "torch.from_numpy(np.zeros(2, np.float16))",
               "torch.tensor(np.zeros(2, np.int8))", "torch.as_tensor(np.zeros(2, np.int16))",
               "torch.ones(2).half()", "torch.ones(2).to(torch.uint8)",
               "torch.tensor([1, 2], dtype=torch.int8)"]
    import os
    import tempfile
    path = os.path.join(tempfile.mkdtemp(), "u8.pt")
    import minigrad
    minigrad.save({"x": minigrad.tensor([1, 2], dtype=minigrad.uint8)}, path)
    entries.append(f"torch.load({path!r})")
    for entry in entries:
        code = prelude + entry + "\nassert s.active(), 'not switched on'\n"
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert r.returncode == 0, (entry, r.stderr[-2000:])
