"""Result layouts as torch gives them: elementwise ops follow their operands' layout (torch's
TensorIterator rule, mixed layouts and broadcasting included), conv/norm/pool/interpolate/pad/dropout
keep a channels_last input's format, softmax and logsigmoid are row-major, and x.grad takes the
leaf's layout (torch's AccumulateGrad contract). Strides, values and gradients against torch 2.13,
on every device (the CUDA backend under the emulator too)."""
import random
import warnings

import numpy as np
import pytest

import minigrad

try:
    import torch
except ImportError:
    torch = None

pytestmark = pytest.mark.skipif(torch is None, reason="torch not installed")

S = (2, 3, 4, 5)


def arr(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def make(L, device, a, cl=None, grad=False):
    t = L.tensor(a) if L is torch else L.tensor(a, device=device)
    if cl == 4:
        t = t.contiguous(memory_format=L.channels_last)
    elif cl == 5:
        t = t.contiguous(memory_format=L.channels_last_3d)
    if grad:
        t.requires_grad_(True)
    return t


def F(L):
    return L.nn.functional


def _cases():
    c = {}
    for op in ["relu", "exp", "neg", "abs", "sigmoid", "tanh", "sqrt", "floor", "clone", "float", "double"]:
        c["unary-" + op] = (lambda op: lambda L, d: getattr(make(L, d, arr(S), 4), op)())(op)
    c["to-f64"] = lambda L, d: make(L, d, arr(S), 4).to(L.float64)
    c["type_as"] = lambda L, d: make(L, d, arr(S), 4).type_as(make(L, d, arr(S).astype(np.float64)))
    for fn in ["zeros_like", "ones_like", "empty_like", "rand_like"]:
        c[fn] = (lambda fn: lambda L, d: getattr(L, fn)(make(L, d, arr(S), 4)))(fn)
    c["cl+cl"] = lambda L, d: make(L, d, arr(S), 4) + make(L, d, arr(S, 1), 4)
    c["cl+c"] = lambda L, d: make(L, d, arr(S), 4) + make(L, d, arr(S, 1))
    c["c+cl"] = lambda L, d: make(L, d, arr(S)) + make(L, d, arr(S, 1), 4)
    c["cl*2"] = lambda L, d: make(L, d, arr(S), 4) * 2
    c["2-cl"] = lambda L, d: 2 - make(L, d, arr(S), 4)
    c["cl+bias"] = lambda L, d: make(L, d, arr(S), 4) + make(L, d, arr((1, 3, 1, 1), 1))
    c["bias+cl"] = lambda L, d: make(L, d, arr((1, 3, 1, 1), 1)) + make(L, d, arr(S), 4)
    c["cl+row"] = lambda L, d: make(L, d, arr(S), 4) + make(L, d, arr((5,), 1))
    c["cl*nc11"] = lambda L, d: make(L, d, arr(S), 4) * make(L, d, arr((2, 3, 1, 1), 1))
    c["cl>0"] = lambda L, d: make(L, d, arr(S), 4) > 0
    c["cl+int"] = lambda L, d: make(L, d, arr(S), 4) + make(L, d, np.ones(S, np.int64))
    c["cl==c"] = lambda L, d: make(L, d, arr(S), 4) == make(L, d, arr(S))
    c["one-channel"] = lambda L, d: make(L, d, arr((2, 1, 4, 5)), 4) + make(L, d, arr(S, 1), 4)
    c["1x1"] = lambda L, d: make(L, d, arr((2, 3, 1, 1)), 4) + make(L, d, arr((2, 3, 1, 1), 1), 4)
    c["cl3d+c"] = lambda L, d: make(L, d, arr((2, 3, 4, 5, 6)), 5) - make(L, d, arr((2, 3, 4, 5, 6), 1))
    c["where"] = lambda L, d: L.where(make(L, d, arr(S), 4) > 0, make(L, d, arr(S), 4), make(L, d, arr(S, 1)))
    c["clamp"] = lambda L, d: make(L, d, arr(S), 4).clamp(-0.5, 0.5)
    c["lerp"] = lambda L, d: L.lerp(make(L, d, arr(S), 4), make(L, d, arr(S, 1), 4), 0.3)
    c["addcmul"] = lambda L, d: L.addcmul(make(L, d, arr(S), 4), make(L, d, arr(S, 1)), make(L, d, arr(S, 2), 4))
    c["permuted"] = lambda L, d: make(L, d, arr((2, 3, 4))).permute(2, 0, 1).exp()
    c["sliced"] = lambda L, d: make(L, d, arr((2, 3, 4, 6)), 4)[..., ::2] * 2

    def inplace(L, d):
        x = make(L, d, arr(S), 4)
        x.add_(make(L, d, arr(S, 1)))
        x.mul_(2)
        return x.relu_()
    c["inplace"] = inplace
    c["conv2d-cl-input"] = lambda L, d: F(L).conv2d(make(L, d, arr(S), 4), make(L, d, arr((6, 3, 3, 3), 1)),
                                                    make(L, d, arr((6,), 2)), padding=1)
    c["conv2d-cl-weight"] = lambda L, d: F(L).conv2d(make(L, d, arr(S)), make(L, d, arr((6, 3, 3, 3), 1), 4))
    c["conv2d-groups"] = lambda L, d: F(L).conv2d(make(L, d, arr((2, 4, 5, 5)), 4), make(L, d, arr((4, 2, 3, 3), 1)),
                                                  groups=2)
    c["conv1d"] = lambda L, d: F(L).conv1d(make(L, d, arr((2, 3, 5))), make(L, d, arr((4, 3, 3), 1)))
    c["conv3d"] = lambda L, d: F(L).conv3d(make(L, d, arr((2, 3, 4, 5, 6)), 5), make(L, d, arr((4, 3, 2, 2, 2), 1)))
    c["conv_transpose2d"] = lambda L, d: F(L).conv_transpose2d(make(L, d, arr(S), 4), make(L, d, arr((3, 4, 3, 3), 1)))
    c["batch_norm"] = lambda L, d: F(L).batch_norm(make(L, d, arr(S), 4), make(L, d, np.zeros(3, np.float32)),
                                                   make(L, d, np.ones(3, np.float32)), training=True)
    c["instance_norm"] = lambda L, d: F(L).instance_norm(make(L, d, arr(S), 4))
    c["group_norm"] = lambda L, d: F(L).group_norm(make(L, d, arr((2, 4, 4, 5)), 4), 2)
    c["layer_norm"] = lambda L, d: F(L).layer_norm(make(L, d, arr(S), 4), (5,))
    c["max_pool2d"] = lambda L, d: F(L).max_pool2d(make(L, d, arr(S), 4), 2, return_indices=True)
    c["avg_pool2d"] = lambda L, d: F(L).avg_pool2d(make(L, d, arr(S), 4), 2)
    c["adaptive_avg_pool2d"] = lambda L, d: F(L).adaptive_avg_pool2d(make(L, d, arr(S), 4), (2, 3))
    c["adaptive_avg_pool2d-1"] = lambda L, d: F(L).adaptive_avg_pool2d(make(L, d, arr(S), 4), 1)
    c["adaptive_max_pool2d"] = lambda L, d: F(L).adaptive_max_pool2d(make(L, d, arr(S), 4), (2, 3))
    c["max_pool3d"] = lambda L, d: F(L).max_pool3d(make(L, d, arr((2, 3, 4, 4, 4)), 5), 2)
    c["avg_pool3d"] = lambda L, d: F(L).avg_pool3d(make(L, d, arr((2, 3, 4, 4, 4)), 5), 2)
    c["interpolate-nearest"] = lambda L, d: F(L).interpolate(make(L, d, arr(S), 4), scale_factor=2)
    c["interpolate-bilinear"] = lambda L, d: F(L).interpolate(make(L, d, arr(S), 4), size=(6, 7), mode="bilinear")
    c["interpolate-trilinear"] = lambda L, d: F(L).interpolate(make(L, d, arr((2, 3, 4, 4, 4)), 5), size=(5, 5, 5),
                                                               mode="trilinear")
    c["pad-constant"] = lambda L, d: F(L).pad(make(L, d, arr(S), 4), (1, 1, 2, 2))
    c["pad-reflect"] = lambda L, d: F(L).pad(make(L, d, arr(S), 4), (1, 1, 2, 2), mode="reflect")
    c["pad-replicate"] = lambda L, d: F(L).pad(make(L, d, arr(S), 4), (1, 1, 2, 2), mode="replicate")
    c["dropout-eval"] = lambda L, d: F(L).dropout(make(L, d, arr(S), 4), 0.5, training=False)
    for act in ["relu", "gelu", "silu", "elu", "leaky_relu", "hardswish", "hardtanh", "softplus", "mish",
                "logsigmoid", "softsign"]:
        c["act-" + act] = (lambda act: lambda L, d: getattr(F(L), act)(make(L, d, arr(S), 4)))(act)
    c["softmax-dim1"] = lambda L, d: F(L).softmax(make(L, d, arr(S), 4), dim=1)
    c["log_softmax-dim1"] = lambda L, d: F(L).log_softmax(make(L, d, arr(S), 4), dim=1)
    c["prelu"] = lambda L, d: F(L).prelu(make(L, d, arr(S), 4), make(L, d, np.full(3, 0.25, np.float32)))
    return c


CASES = _cases()


def layouts(r):
    if isinstance(r, (tuple, list)):
        return [layouts(x) for x in r]
    L = minigrad if isinstance(r, minigrad.Tensor) else torch
    cl = r.is_contiguous(memory_format=L.channels_last) if r.dim() == 4 else None
    return tuple(r.shape), r.stride(), r.is_contiguous(), cl


def values(r):
    if isinstance(r, (tuple, list)):
        return [values(x) for x in r]
    return r.detach().cpu().double().numpy() if r.dtype is not minigrad.bool and r.dtype is not torch.bool else \
        r.cpu().numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_result_layout(name, device):
    fn = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = fn(minigrad, device), fn(torch, None)
    assert layouts(got) == layouts(want)
    if name in ("empty_like", "rand_like"):  # no values to compare
        return
    for g, w in zip(*(x if isinstance(x, list) else [x] for x in (values(got), values(want)))):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_dropout_keeps_layout(device):
    x = minigrad.randn(*S, device=device).contiguous(memory_format=minigrad.channels_last)
    y = F(minigrad).dropout(x, 0.5)
    assert y.stride() == torch.randn(*S).contiguous(memory_format=torch.channels_last).stride()
    kept = y.cpu().numpy() != 0
    np.testing.assert_allclose(y.cpu().numpy()[kept], 2 * x.cpu().numpy()[kept], rtol=1e-6)


GRAD_CASES = {
    "relu": lambda L, d, x: x.relu(),
    "mul-self": lambda L, d, x: x * x,
    "add-bias": lambda L, d, x: x + make(L, d, arr((1, 3, 1, 1), 1)),
    "mul-contiguous": lambda L, d, x: x * make(L, d, arr(S, 3)),
    "clone": lambda L, d, x: x.clone(),
    "to-double": lambda L, d, x: x.double(),
    "conv2d": lambda L, d, x: F(L).conv2d(x, make(L, d, arr((6, 3, 3, 3), 1)), padding=1),
    "conv_transpose2d": lambda L, d, x: F(L).conv_transpose2d(x, make(L, d, arr((3, 4, 3, 3), 1))),
    "batch_norm": lambda L, d, x: F(L).batch_norm(x, None, None, training=True),
    "group_norm": lambda L, d, x: F(L).group_norm(x, 3),
    "instance_norm": lambda L, d, x: F(L).instance_norm(x),
    "layer_norm": lambda L, d, x: F(L).layer_norm(x, (5,)),
    "max_pool2d": lambda L, d, x: F(L).max_pool2d(x, 2),
    "avg_pool2d": lambda L, d, x: F(L).avg_pool2d(x, 2),
    "adaptive_avg_pool2d": lambda L, d, x: F(L).adaptive_avg_pool2d(x, (2, 3)),
    "adaptive_max_pool2d": lambda L, d, x: F(L).adaptive_max_pool2d(x, (2, 3)),
    "interpolate-bilinear": lambda L, d, x: F(L).interpolate(x, size=(6, 7), mode="bilinear"),
    "pad-reflect": lambda L, d, x: F(L).pad(x, (1, 1, 2, 2), mode="reflect"),
    "gelu": lambda L, d, x: F(L).gelu(x),
    "softmax-dim1": lambda L, d, x: F(L).softmax(x, 1),
    "transposed-leaf-exp": None,  # below: a non-channels_last dense leaf keeps its own strides
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_layout(name, device):
    def run(L, d):
        if name == "transposed-leaf-exp":
            x = make(L, d, arr((5, 4))).t().detach().requires_grad_(True)
            y = x.exp()
        else:
            x = make(L, d, arr(S), 4, grad=True)
            y = GRAD_CASES[name](L, d, x)
        y.backward(make(L, d, arr(tuple(y.shape), 7)))
        return y, x.grad
    (y, g), (ty, tg) = run(minigrad, device), run(torch, None)
    assert (layouts(y), layouts(g)) == (layouts(ty), layouts(tg))
    np.testing.assert_allclose(g.cpu().numpy(), tg.numpy(), rtol=1e-4, atol=1e-5)


def test_grad_sum_backward_and_accumulation(device):
    for L, d in ((minigrad, device), (torch, None)):
        x = make(L, d, arr(S), 4, grad=True)
        (x * 2).sum().backward()  # an expanded gradient: copied into x's layout
        first = x.grad.stride()
        (x * 3).sum().backward()  # accumulated in place: the layout stays
        if L is torch:
            assert (first, x.grad.stride()) == want
        else:
            want = (first, x.grad.stride())
            vals = x.grad.cpu().numpy()
    np.testing.assert_allclose(vals, x.grad.numpy())


def _random_operand(L, device, rng, shape, data):
    """data (of the broadcast shape's size at most) as an operand of shape, in a random layout:
    broadcast, permuted, channels_last or sliced."""
    nd = len(shape)
    lead = rng.randint(0, nd) if rng.random() < 0.3 else 0
    s = [1 if rng.random() < 0.2 else n for n in shape[lead:]]
    sliced = [rng.random() < 0.15 for _ in s]
    big = [n * 2 if sl else n for n, sl in zip(s, sliced)]
    kind, perm = rng.random(), list(range(len(s)))
    if kind < 0.5:
        rng.shuffle(perm)
    base = data[:int(np.prod([big[p] for p in perm]))].reshape([big[p] for p in perm])
    t = make(L, device, base).permute(*[perm.index(i) for i in range(len(s))]) if len(s) else make(L, device, base)
    if kind >= 0.5 and len(s) == 4 and kind < 0.8:
        t = t.contiguous(memory_format=L.channels_last)
    return t[tuple(slice(None, None, 2) if sl else slice(None) for sl in sliced)]


@pytest.mark.parametrize("seed", range(4))
def test_elementwise_layout_fuzz(seed, device):
    """Random shapes and layouts of one to three operands (unary, binary, where) against torch."""
    rng = random.Random(seed)
    data = np.random.default_rng(seed).standard_normal(4096).astype(np.float32)
    checked = 0
    for _ in range(60):
        shape = tuple(rng.choice([1, 2, 3, 4]) for _ in range(rng.randint(2, 5)))
        n = rng.randint(1, 3)
        state = rng.getstate()
        outs = []
        for L, d in ((torch, None), (minigrad, device)):
            rng.setstate(state)
            ops = [_random_operand(L, d, rng, shape, data) for _ in range(n)]
            try:
                if n == 1:
                    r = ops[0].sin()
                elif n == 2:
                    r = ops[0] * ops[1]
                else:
                    r = L.where(ops[0] > 0, ops[1], ops[2])
            except RuntimeError:
                r = None
            outs.append(r)
        t, m = outs
        if t is None or t.numel() == 0:
            continue
        checked += 1
        # the steps of dims of size 1 are left free (README: torch's are not always reproduced)
        assert [st for st, k in zip(m.stride(), t.shape) if k != 1] == \
            [st for st, k in zip(t.stride(), t.shape) if k != 1], (shape, [o.stride() for o in ops])
        if 1 not in t.shape:
            assert m.stride() == t.stride()
        np.testing.assert_allclose(m.cpu().numpy(), t.numpy(), rtol=1e-6)
    assert checked > 20
