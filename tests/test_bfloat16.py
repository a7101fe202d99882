"""bfloat16 (minigrad.bfloat16): stored as its 16 bits in uint16 arrays, computed in float32 by
the small dtypes' wrappers (backends/small_dtypes.py) and rounded once per primitive, to nearest
even as torch rounds. Each program runs under minigrad (on every device) and torch; values,
dtypes, node names, gradients and errors must agree, bit for bit where torch rounds once."""
import io
import itertools
import subprocess
import sys

import numpy as np
import pytest

import minigrad
from test_tensor_extras import same

torch = pytest.importorskip("torch")

BF16_EPS = 2.0 ** -7  # bfloat16's relative precision
ALL = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")


def _bits_of_torch(values_f32):
    """torch's bfloat16 bits of a float32 NumPy array."""
    return torch.from_numpy(values_f32).bfloat16().view(torch.int16).numpy().view(np.uint16)


def _edge_values():
    f32 = np.finfo(np.float32)
    return np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, f32.max, -f32.max, 3.3895313e38, 3.3961e38,
                     f32.tiny, f32.tiny / 3, -f32.tiny / 7, 1e-45, -1e-45, 2.0 ** -133, 1 + 2.0 ** -8,
                     1 + 3 * 2.0 ** -8, 1 + 2.0 ** -8 + 2.0 ** -20, 255.5, 65504.0, 1e38, 0.1, 1 / 3],
                    dtype=np.float32)


def _random_values(n=50000):
    rng = np.random.default_rng(7)
    scaled = rng.standard_normal(n).astype(np.float32) * np.float32(2.0) ** rng.integers(-140, 128, n).astype(
        np.float32)
    raw = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)  # NaNs included
    return np.concatenate([scaled, raw, _edge_values()])


# ---- rounding: float32 / float64 -> bfloat16 -> float32 ---------------------------------------------

def test_rounding_matches_torch_bit_for_bit(device):
    with np.errstate(all="ignore"):
        values = _random_values()
    want_bits = _bits_of_torch(values)
    want = torch.from_numpy(values).bfloat16().float().numpy()
    x = minigrad.from_numpy(values).to(device)
    got = x.bfloat16().float().cpu().numpy()
    nan = np.isnan(values)
    assert np.array_equal(got.view(np.uint32)[~nan], want.view(np.uint32)[~nan])
    assert np.isnan(got[nan]).all() and nan.sum() > 100
    # widening is exact: every bit pattern but NaNs comes back as torch's float32
    patterns = np.arange(2 ** 16, dtype=np.uint32)
    as_f32 = (patterns << 16).view(np.float32)
    finite = ~np.isnan(as_f32)
    back = minigrad.from_numpy(as_f32[finite]).to(device).bfloat16()
    assert np.array_equal(back.float().cpu().numpy().view(np.uint32), (patterns[finite] << 16))
    assert np.array_equal(_bits_of_torch(as_f32[finite]), patterns[finite].astype(np.uint16))
    assert want_bits.dtype == np.uint16


def test_float64_rounds_through_float32_as_torch(device):
    # 1 + 2**-8 + 2**-30: float32 drops the 2**-30, leaving a tie that goes to even (1.0); one
    # rounding from float64 would give 1 + 2**-7. torch rounds twice, and so does minigrad.
    def program(L, d):
        v = [1 + 2.0 ** -8 + 2.0 ** -30, -(1 + 2.0 ** -8 + 2.0 ** -30), 3.0e38 * 1.13, 1e-300, 0.1]
        x = L.tensor(v, dtype=L.float64, device=d)
        return x.bfloat16(), L.tensor(v, dtype=L.bfloat16, device=d), x.to(L.bfloat16).double(), \
            L.tensor(v[0], dtype=L.bfloat16, device=d), L.full((2,), v[0], dtype=L.bfloat16, device=d)
    same(program, device, rtol=0)


def test_special_values(device):
    def program(L, d):
        x = L.tensor([float("nan"), float("inf"), -float("inf"), 3.4e38, -3.4e38, 1e-40, -0.0], device=d)
        b = x.bfloat16()
        # (not the sign of NaN: torch's vectorized CPU cast gives 0xffff, its scalar one 0x7fc0)
        return b, b.isnan(), b.isinf(), b[1:].signbit(), b * 2, b.float(), b.to(L.float16), b.half().bfloat16()
    same(program, device, rtol=0)


# ---- the dtype ------------------------------------------------------------------------------------

def test_dtype_attributes_and_finfo():
    m, t = minigrad.bfloat16, torch.bfloat16
    assert (m.is_floating_point, m.is_signed, m.itemsize) == (t.is_floating_point, t.is_signed, t.itemsize)
    assert repr(m) == "minigrad.bfloat16" and str(t) == "torch.bfloat16"
    info, tinfo = minigrad.finfo(m), torch.finfo(t)
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(info, field) == getattr(tinfo, field), field
    assert repr(info) == repr(tinfo)
    assert info != minigrad.finfo(minigrad.float16) and info == minigrad.finfo(minigrad.bfloat16)
    x = minigrad.ones(3, dtype=m)
    assert x.element_size() == 2 and x.is_floating_point() and x.is_signed()
    assert minigrad.is_floating_point(x) and x.type() == "torch.BFloat16Tensor"


def test_promote_types_result_type_can_cast_all_pairs():
    for a, b in itertools.product(ALL, ALL):
        ma, mb, ta, tb = getattr(minigrad, a), getattr(minigrad, b), getattr(torch, a), getattr(torch, b)
        assert str(minigrad.promote_types(ma, mb)).split(".")[1] == str(torch.promote_types(ta, tb)).split(".")[1]
        assert minigrad.can_cast(ma, mb) == torch.can_cast(ta, tb), (a, b)


_OPERANDS = {"bool": [True, False], "uint8": [200, 7], "int8": [-100, 7], "int16": [-300, 7], "int32": [5, -7],
             "int64": [5, -7], "float16": [1.5, -2.25], "bfloat16": [1.5, -2.25], "float32": [1.5, -2.25],
             "float64": [1.5, -2.25]}


def _operand(L, kind, dim):
    if kind == "pyint":
        return 3
    if kind == "pyfloat":
        return 0.3
    v = _OPERANDS[kind]
    return L.tensor(v if dim else v[1], dtype=getattr(L, kind))


@pytest.mark.parametrize("dims", [(1, 1), (1, 0), (0, 1), (0, 0)])
def test_result_type_and_add_with_every_dtype(dims):
    kinds = ALL[1:] + ("pyint", "pyfloat")
    for a, b in itertools.product(kinds, kinds):
        if "bfloat16" not in (a, b):
            continue
        outcomes = []
        for L in (minigrad, torch):
            x, y = _operand(L, a, dims[0]), _operand(L, b, dims[1])
            s = x + y if isinstance(x, L.Tensor) else y + x
            outcomes.append((str(L.result_type(x, y)).split(".")[1], str(s.dtype).split(".")[1], s.tolist()))
        assert outcomes[0] == outcomes[1], (a, b, dims)


# ---- creation, conversion, printing ----------------------------------------------------------------

def test_creation(device):
    def program(L, d):
        bf = L.bfloat16
        return [L.zeros(2, dtype=bf, device=d), L.ones(2, 3, dtype=bf, device=d), L.full((2,), 0.1, dtype=bf, device=d),
                L.arange(5, dtype=bf, device=d), L.arange(0, 1, 0.1, dtype=bf, device=d),
                L.linspace(0, 1, 5, dtype=bf, device=d), L.eye(2, dtype=bf, device=d),
                L.tensor([[1.1, 2.2]], dtype=bf, device=d), L.tensor(3.3, dtype=bf, device=d),
                L.tensor([1, 2, 300], dtype=bf, device=d), L.tensor([True, False], dtype=bf, device=d),
                L.zeros_like(L.ones(2, device=d), dtype=bf), L.ones_like(L.ones(2, dtype=bf, device=d)),
                L.full_like(L.ones(2, dtype=bf, device=d), 7.77), str(L.empty(3, dtype=bf, device=d).dtype),
                L.empty_like(L.ones(2, dtype=bf, device=d)).shape, str(L.rand(3, dtype=bf, device=d).dtype),
                str(L.randn(3, dtype=bf, device=d).dtype), str(L.randint(0, 5, (3,), dtype=bf, device=d).dtype),
                str(L.rand_like(L.ones(2, dtype=bf, device=d)).dtype),
                str(L.randn_like(L.ones(2, dtype=bf, device=d)).dtype), L.randperm(5, dtype=bf, device=d).sort().values]
    same(program, device, rtol=0)


def test_rand_stays_below_one_and_randint_holds_integers(device):
    x = minigrad.rand(100000, dtype=minigrad.bfloat16, device=device)
    assert x.dtype is minigrad.bfloat16 and 0 <= x.min().item() and x.max().item() < 1
    r = minigrad.randint(0, 200, (1000,), dtype=minigrad.bfloat16, device=device).float()
    assert (r == r.round()).all().item() and 0 <= r.min().item() and r.max().item() < 200
    g = minigrad.Generator().manual_seed(3)
    assert minigrad.rand(1000, dtype=minigrad.bfloat16, generator=g).max().item() < 1


def test_conversions(device):
    def program(L, d):
        x = L.tensor([1.7, -2.2, 300.0, 1e5, 0.1], device=d)
        b = x.bfloat16()
        return [b, x.to(L.bfloat16), x.type(L.bfloat16), b.float(), b.double(), b.half(), b.long(), b.int(),
                b.to(L.uint8), b.to(L.int8), b.short(), b.bool(), b.type(L.float32), b.to(d, L.float64),
                L.tensor([1, 2, 2 ** 40 + 1], device=d).bfloat16(), L.tensor([True, False], device=d).bfloat16(),
                L.tensor([1.5, 65504.0], dtype=L.half, device=d).bfloat16(), b.to(L.bfloat16) is b]
    same(program, device, rtol=0)


def test_item_tolist_and_numpy_error():
    for L in (minigrad, torch):
        x = L.tensor([0.1, 2.0, 300.7], dtype=L.bfloat16)
        assert x.tolist() == [0.10009765625, 2.0, 300.0] and x[0].item() == 0.10009765625
        assert type(x[1].item()) is float and float(x[1]) == 2.0 and int(x[2]) == 300
        assert f"{x[0]:.3f}" == "0.100"
        for call in (x.numpy, lambda: np.asarray(x), lambda: x.numpy(force=True)):
            with pytest.raises(TypeError, match="^Got unsupported ScalarType BFloat16$"):
                call()
        y = L.ones(2, dtype=L.bfloat16, requires_grad=True)
        with pytest.raises(RuntimeError, match="Can't call numpy"):
            y.numpy()


_REPRS = ["tensor([1.5, 2.25, 3.1], dtype=L.bfloat16)", "tensor(2.5, dtype=L.bfloat16)",
          "tensor([1.0, 2.0], dtype=L.bfloat16)", "tensor([1e-3, 1e4, 65504.0, 1e-8, 0.1, 3e38], dtype=L.bfloat16)",
          "zeros(0, 2, dtype=L.bfloat16)", "tensor([], dtype=L.bfloat16)",
          "tensor([1.0, 2.0], dtype=L.bfloat16, requires_grad=True)", "arange(12, dtype=L.bfloat16).reshape(3, 4) / 7",
          "tensor([float('nan'), float('inf'), -1.0], dtype=L.bfloat16)", "tensor([1, 2, 3]).bfloat16().sum()"]


@pytest.mark.parametrize("expr", _REPRS)
def test_printing(expr):
    got = repr(eval("L." + expr, {"L": minigrad})).replace("minigrad.", "torch.")
    want = repr(eval("L." + expr, {"L": torch}))
    assert got == want


def test_save_load_and_pickle_round_trip(tmp_path):
    state = {"w": minigrad.tensor([0.1, -2.5, 3e38], dtype=minigrad.bfloat16),
             "p": minigrad.nn.Parameter(minigrad.tensor([0.1, 0.2], dtype=minigrad.bfloat16)),
             "dtype": minigrad.bfloat16}
    buf = io.BytesIO()
    minigrad.save(state, buf)
    buf.seek(0)
    back = minigrad.load(buf)
    assert back["dtype"] is minigrad.bfloat16 and back["p"].requires_grad
    for k in ("w", "p"):
        assert back[k].dtype is minigrad.bfloat16 and back[k].tolist() == state[k].tolist()
    import pickle
    again = pickle.loads(pickle.dumps(state["w"]))
    assert again.dtype is minigrad.bfloat16 and again.tolist() == state["w"].tolist()


def test_uint16_numpy_arrays_are_bfloat16_bits():
    """minigrad has no uint16 dtype: a uint16 array is read as bfloat16 bit patterns."""
    bits = np.array([0x3F80, 0xC020, 0x7F80], dtype=np.uint16)
    t = minigrad.from_numpy(bits)
    assert t.dtype is minigrad.bfloat16 and t.tolist() == [1.0, -2.5, float("inf")]
    assert minigrad.tensor(bits).tolist() == t.tolist()


# ---- arithmetic ----------------------------------------------------------------------------------------

_UNARY = ("exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "neg", "abs", "reciprocal", "log1p",
          "expm1", "erf", "floor", "ceil", "round", "trunc", "sign", "atan", "square", "frac")


def test_elementwise_matches_torch_bit_for_bit(device):
    def program(L, d):
        x = L.tensor([0.1, 0.5, 1.7, 2.3, 3.14159, 7.5, 0.01, 100.3, -4.4], dtype=L.bfloat16, device=d)
        y = L.tensor([1.3, -0.7, 2.0, 0.3, 5.5, -1.25, 3.0, 7.1, 0.9], dtype=L.bfloat16, device=d)
        ax = x.abs()
        return ([getattr(L, op)(ax if op in ("log", "sqrt", "log1p") else x) for op in _UNARY]
                + [x + y, x - y, x * y, x / y, L.maximum(x, y), L.minimum(x, y), L.atan2(x, y), ax ** y,
                   x * 1.1 + 0.3, ax ** 2.3, x / 0.3, x - 0.3, 0.3 - x, 2 * x, L.fmod(x, 0.3), L.remainder(x, 0.3),
                   x.clone().add_(0.3), x.clone().mul_(1.1), x.clone().div_(0.7), x < 1.003, x == 0.1, x > y,
                   x.clamp(-1.0, 2.0), L.where(x > 1, x, 0.3), x.masked_fill(x < 0, float("inf")), x * 1.003,
                   x + 1.003, x.pow(2), x.floor_divide(y)])
    same(program, device, rtol=0)


def test_composite_ops_within_a_unit(device):
    """Ops minigrad builds from several primitives round after each (torch's kernels round once)."""
    def program(L, d):
        x = L.tensor([0.1, 0.5, 1.7, 2.3, 3.14159, 7.5, 0.01, 100.3, -4.4], dtype=L.bfloat16, device=d)
        y = L.tensor([1.3, -0.7, 2.0, 0.3, 5.5, -1.25, 3.0, 7.1, 0.9], dtype=L.bfloat16, device=d)
        return L.lerp(x, y, 0.3), L.linspace(0, 1, 7, dtype=L.bfloat16, device=d), L.addcmul(x, x, y, value=0.5)
    same(program, device, rtol=2 * BF16_EPS)


def test_mixed_dtypes(device):
    def program(L, d):
        b = L.tensor([1.5, -2.25, 3.1], dtype=L.bfloat16, device=d)
        out = []
        for other in ("float16", "float32", "float64", "int64", "uint8", "bool"):
            o = L.tensor([1, 0, 1], dtype=getattr(L, other), device=d)
            out += [b + o, o * b, L.where(o > 0, b, o), L.cat([b, o])]
        return out + [b + L.tensor(2.5, dtype=L.float16, device=d), b * L.tensor(2.5, device=d), b + 7, b > 2]
    same(program, device, rtol=0)


def test_reductions(device):
    def program(L, d):
        x = L.tensor([[1.1, 50.3, 120.7], [7.25, 99.9, 3.3]], dtype=L.bfloat16, device=d)
        return [x.sum(), x.sum(0), x.prod(1), x.mean(), x.mean(0), x.amax(0), x.max(), x.min(1), x.argmax(),
                x.cumsum(1), x.sort(1), x.topk(2), x.var(), x.std(1), x.norm(), x.logsumexp(1),
                x.sum(dtype=L.float32), x.softmax(1), x.log_softmax(0), x.cumprod(1), x.unique()]
    same(program, device, rtol=BF16_EPS)


def test_sum_accumulates_in_float32(device):
    # 4096 ones and 0.25s: a bfloat16 accumulator would stop at 256 and lose every 0.25
    def program(L, d):
        x = L.ones(4096, dtype=L.bfloat16, device=d) * 0.25 + L.ones(4096, dtype=L.bfloat16, device=d)
        return x.sum(), x.mean(), L.ones(3000, dtype=L.bfloat16, device=d).sum()
    same(program, device, rtol=0)


def test_matmul_and_linear(device):
    # products and sums of these values are exact in float32: one rounding at the end, as torch
    def program(L, d):
        a = (L.arange(12, dtype=L.bfloat16, device=d).reshape(3, 4) - 5) * 0.125
        b = (L.arange(8, dtype=L.bfloat16, device=d).reshape(4, 2) + 1) * 1.5
        w = L.tensor([[0.5, -1.25, 2.0, 0.75]], dtype=L.bfloat16, device=d)
        return a @ b, L.mm(a, b), L.matmul(a[0], b), L.nn.functional.linear(a, w, L.tensor([0.1], dtype=L.bfloat16,
                                                                                               device=d)), a.t() @ a
    same(program, device, rtol=0)
    # general values: within a bfloat16 unit (torch's blocked float32 sums may round otherwise)

    def general(L, d):
        a = L.arange(16 * 33, dtype=L.float32).reshape(16, 33).sin().bfloat16().to(d)
        b = (L.arange(33 * 8, dtype=L.float32).reshape(33, 8) * 0.37).cos().bfloat16().to(d)
        return a @ b
    same(general, device, rtol=2 * BF16_EPS)


# ---- autograd, modules, optimizers -----------------------------------------------------------------

def _grad_program(L, d):
    x = L.tensor([[0.5, -1.25, 2.0], [1.5, 0.75, -0.1]], dtype=L.bfloat16, device=d).requires_grad_()
    w = L.tensor([[0.3, -0.2], [0.1, 0.4], [-0.5, 0.25]], dtype=L.bfloat16, device=d).requires_grad_()
    y = (x @ w).tanh() * x.sum(1, keepdim=True).sigmoid() + x[:, :2].exp()
    loss = y.pow(2).mean() + x.softmax(1).max()
    loss.backward()
    return loss, y, x.grad, w.grad


def test_gradients(device):
    got = same(_grad_program, device, rtol=4 * BF16_EPS)
    assert got[2][0] == "bfloat16" and got[3][0] == "bfloat16"


def test_losses(device):
    def program(L, d):
        F = L.nn.functional
        x = L.tensor([[0.5, -1.25, 2.0], [1.5, 0.75, -0.1]], dtype=L.bfloat16, device=d).requires_grad_()
        t = L.tensor([[0.1, 0.2, 0.3], [1.0, -1.0, 0.5]], dtype=L.bfloat16, device=d)
        losses = [F.mse_loss(x, t), F.l1_loss(x, t), F.smooth_l1_loss(x, t), F.cross_entropy(x, L.tensor([2, 0],
                  device=d)), F.binary_cross_entropy_with_logits(x, t.abs().clamp(max=1.0)), F.nll_loss(
                  F.log_softmax(x, 1), L.tensor([1, 2], device=d))]
        total = sum(losses)
        total.backward()
        return losses, x.grad
    same(program, device, rtol=4 * BF16_EPS)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "area", "nearest", "adaptive", "conv"])
def test_ops_with_float_constants(device, mode):
    """Ops that build arrays of float constants (interpolation weights, adaptive-pool windows)
    and col2im, which sums: constants asked for in bfloat16 are its bits, rounded from float32,
    never the numbers truncated to integers (these once came out all zeros)."""
    def program(L, d):
        F = L.nn.functional
        x = L.tensor(np.linspace(-2, 2, 18, dtype=np.float32).reshape(1, 2, 3, 3), dtype=L.bfloat16,
                     device=d).requires_grad_()
        if mode == "adaptive":
            y = F.adaptive_avg_pool2d(x, (2, 2))
        elif mode == "conv":
            w = L.tensor(np.linspace(-1, 1, 16, dtype=np.float32).reshape(2, 2, 2, 2), dtype=L.bfloat16, device=d)
            y = F.conv2d(x, w, padding=1)
        else:
            kw = {} if mode in ("area", "nearest") else dict(align_corners=False)
            y = F.interpolate(x, size=(2, 2) if mode == "area" else (5, 4), mode=mode, **kw)
        y.backward(L.ones_like(y))
        return y, x.grad
    got = same(program, device, rtol=4 * BF16_EPS)
    assert got[0][0] == "bfloat16" and any(v != 0 for v in np.ravel(got[0][1]))


@pytest.mark.parametrize("opt", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_training_with_module_bfloat16(device, opt):
    def run(L, d):
        L.manual_seed(0)
        model = L.nn.Sequential(L.nn.Linear(4, 3), L.nn.ReLU(), L.nn.Linear(3, 2))
        with L.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(L.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (i + 1))
        model = model.bfloat16().to(d)
        kwargs = {"lr": 0.05, "momentum": 0.9} if opt in ("SGD", "RMSprop") else {"lr": 0.01}
        optimizer = getattr(L.optim, opt)(model.parameters(), **kwargs)
        x = L.linspace(-1, 1, 20).reshape(5, 4).bfloat16().to(d)
        target = L.tensor([0, 1, 1, 0, 1]).to(d)
        losses = []
        for _ in range(3):
            optimizer.zero_grad()
            loss = L.nn.functional.cross_entropy(model(x), target)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        params = list(model.parameters())
        return (losses, [str(p.dtype).split(".")[1] for p in params], [str(p.grad.dtype).split(".")[1] for p in params],
                [p.float().tolist() for p in params])
    got_l, got_d, got_gd, got_p = run(minigrad, device)
    want_l, want_d, want_gd, want_p = run(torch, "cpu")
    assert got_d == want_d == ["bfloat16"] * 4 and got_gd == want_gd
    np.testing.assert_allclose(got_l, want_l, rtol=8 * BF16_EPS)
    for a, b in zip(got_p, want_p):
        np.testing.assert_allclose(np.array(a), np.array(b), rtol=4 * BF16_EPS, atol=1e-2)


def test_module_bfloat16_keeps_integer_buffers(device):
    def program(L, d):
        m = L.nn.Sequential(L.nn.Linear(2, 2), L.nn.BatchNorm1d(2)).to(d)
        m.bfloat16()
        kinds = [str(t.dtype) for t in m.state_dict().values()]
        y = m(L.ones(3, 2, dtype=L.bfloat16, device=d))
        m.float()
        return kinds, [str(t.dtype) for t in m.state_dict().values()], str(y.dtype)
    same(program, device)


# ---- errors -------------------------------------------------------------------------------------

def test_errors_name_bfloat16(device):
    def program(L, d):
        out = []
        b = L.tensor([1.0, 2.0], dtype=L.bfloat16, device=d)
        for call in (lambda: L.tensor([1.0], device=d)[L.tensor([0.0], dtype=L.bfloat16, device=d)],
                     lambda: L.tensor([1.0], device=d).index_select(0, L.tensor([0], dtype=L.bfloat16, device=d)),
                     lambda: L.iinfo(L.bfloat16), lambda: b.cumsum_(0, dtype=L.float32),
                     lambda: b & b, lambda: b.reshape(1, 2).mm(L.ones(2, 1, device=d)),
                     lambda: L.ones(2, dtype=L.bfloat16, device=d).requires_grad_().numpy()):
            try:
                out.append(call())
            except Exception as e:  # noqa: BLE001
                # (a kernel named for its device: "bitwise_and_cuda" where torch's CPU says _cpu)
                out.append((type(e).__name__, str(e).replace("torch", "minigrad").replace('_cuda"', '_cpu"')))
        return out
    same(program, device)


def test_bfloat16_switches_the_wrappers_on():
    """bfloat16 enters through the same doors as the other small dtypes (fresh processes)."""
    prelude = ("import numpy as np, minigrad as torch\n"
               "from minigrad.backends import small_dtypes as s\n"
               "x = torch.ones(3, requires_grad=True); (x * 2).sum().backward()\n"
               "assert not s.active()\n")
    for entry in ("torch.zeros(2, dtype=torch.bfloat16)", "torch.ones(2).bfloat16()",
                  "torch.from_numpy(np.zeros(2, np.uint16))", "torch.tensor([1.5], dtype=torch.bfloat16)",
                  "torch.nn.Linear(2, 2).bfloat16()"):
        code = prelude + entry + "\nassert s.active(), 'not switched on'\n"
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert r.returncode == 0, (entry, r.stderr[-2000:])
