"""Memory formats (channels_last strides, is_contiguous's rules, clone/to/*_like/empty with
memory_format, ops on channels_last inputs on every device), the eager minigrad.jit, the *_copy
functions and the other top-level additions, each against torch 2.13 when it is importable."""
import warnings

import numpy as np
import pytest

import minigrad
from minigrad.autograd import gradcheck

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


def outcome(fn, lib):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(lib)
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, str(e).replace("torch", "minigrad")
    if isinstance(r, (tuple, list)) and r and hasattr(r[0], "stride"):
        return [(tuple(t.shape), t.stride()) for t in r]
    if hasattr(r, "stride"):
        return tuple(r.shape), r.stride(), str(r.dtype).split(".")[-1]
    return r


def same(fn):
    got = outcome(fn, minigrad)
    if torch is not None:
        assert got == outcome(fn, torch)
    return got


# ---- layouts: strides, is_contiguous, errors -------------------------------------------------------------

CL = lambda L: L.channels_last  # noqa: E731
CL3 = lambda L: L.channels_last_3d  # noqa: E731
LAYOUT_CASES = {
    "cl-strides": lambda L: L.randn(2, 3, 4, 5).contiguous(memory_format=CL(L)),
    "cl-is-cl": lambda L: L.randn(2, 3, 4, 5).contiguous(memory_format=CL(L)).is_contiguous(memory_format=CL(L)),
    "cl-not-contiguous": lambda L: L.randn(2, 3, 4, 5).contiguous(memory_format=CL(L)).is_contiguous(),
    "cl3d-strides": lambda L: L.randn(2, 3, 4, 5, 6).contiguous(memory_format=CL3(L)),
    "one-channel-ambiguous": lambda L: L.randn(2, 1, 4, 5).is_contiguous(memory_format=CL(L)),
    "one-channel-kept": lambda L: L.randn(2, 1, 4, 5).contiguous(memory_format=CL(L)),
    "1x1-spatial": lambda L: L.randn(2, 3, 1, 1).is_contiguous(memory_format=CL(L)),
    "zero-h": lambda L: L.randn(2, 3, 0, 5).contiguous(memory_format=CL(L)).shape,
    "preserve-is-contiguous": lambda L: L.randn(2, 3, 4, 5).transpose(0, 2).is_contiguous(
        memory_format=L.preserve_format),
    "2d-not-cl": lambda L: L.randn(2, 3).is_contiguous(memory_format=CL(L)),
    "rank-error": lambda L: L.randn(2, 3).contiguous(memory_format=CL(L)),
    "rank3d-error": lambda L: L.randn(2, 3, 4).contiguous(memory_format=CL3(L)),
    "preserve-contiguous-error": lambda L: L.randn(2, 3, 4, 5).transpose(0, 2).contiguous(
        memory_format=L.preserve_format),
    "bad-type": lambda L: L.randn(2, 3, 4, 5).contiguous(memory_format=1),
    "bad-type-is-contiguous": lambda L: L.randn(2).is_contiguous(memory_format=1),
    "bad-type-clone": lambda L: L.randn(2).clone(memory_format=1),
    "to-bad-type": lambda L: L.randn(2).to(memory_format=1),
    "clone-preserves-cl": lambda L: L.randn(2, 3, 4, 5).contiguous(memory_format=CL(L)).clone(),
    "clone-to-contiguous": lambda L: L.randn(2, 3, 4, 5).contiguous(memory_format=CL(L)).clone(
        memory_format=L.contiguous_format),
    "clone-cl": lambda L: L.randn(2, 3, 4, 5).clone(memory_format=CL(L)),
    "clone-keeps-dense-permutation": lambda L: L.randn(2, 3, 4, 5).transpose(0, 2).clone(),
    "clone-of-slice": lambda L: L.randn(2, 3, 4, 5)[:, :, ::2].clone(),
    "clone-of-cl-slice": lambda L: L.randn(2, 3, 4, 5).contiguous(memory_format=CL(L))[:, :, ::2].clone(),
    "to-dtype-keeps-cl": lambda L: L.randn(2, 3, 4, 5).contiguous(memory_format=CL(L)).to(L.float64),
    "to-cl": lambda L: L.randn(2, 3, 4, 5).to(memory_format=CL(L)),
    "to-dtype-and-cl": lambda L: L.randn(2, 3, 4, 5).to(L.float64, memory_format=CL(L)),
    "to-cl3d-rank-error": lambda L: L.randn(2, 3, 4, 5).to(memory_format=CL3(L)),
    "empty-cl": lambda L: L.empty(2, 3, 4, 5, memory_format=CL(L)),
    "empty-cl-rank": lambda L: L.empty(2, 3, 4, memory_format=CL(L)),
    "empty-preserve": lambda L: L.empty(2, 3, 4, 5, memory_format=L.preserve_format),
    "empty_like-cl": lambda L: L.empty_like(L.randn(2, 3, 4, 5).contiguous(memory_format=CL(L))),
    "zeros_like-cl": lambda L: L.zeros_like(L.randn(2, 3, 4, 5).contiguous(memory_format=CL(L))),
    "ones_like-permuted": lambda L: L.ones_like(L.randn(2, 3, 4, 5).transpose(0, 2)),
    "full_like-slice": lambda L: L.full_like(L.randn(2, 3, 4, 5)[:, :, ::2], 2.0),
    "rand_like-cl-slice": lambda L: L.rand_like(L.randn(2, 3, 4, 5).contiguous(memory_format=CL(L))[:, :, ::2]),
    "randn_like-explicit": lambda L: L.randn_like(L.randn(2, 3, 4, 5), memory_format=CL(L)),
    "randint_like-cl": lambda L: L.randint_like(L.randn(2, 3, 4, 5).contiguous(memory_format=CL(L)), 3),
    "like-contiguous-of-cl": lambda L: L.zeros_like(L.randn(2, 3, 4, 5).contiguous(memory_format=CL(L)),
                                                    memory_format=L.contiguous_format),
    "empty_strided": lambda L: L.empty_strided((2, 3), (1, 2)),
    "empty_strided-dims": lambda L: L.empty_strided((2, 3), (1,)),
    "empty_strided-negative": lambda L: L.empty_strided((2, 3), (1, -2)),
    "empty_permuted": lambda L: L.empty_permuted((2, 3, 4), (2, 0, 1)),
    "empty_permuted-length": lambda L: L.empty_permuted((2, 3, 4), (2, 0)),
    "empty_permuted-duplicate": lambda L: L.empty_permuted((2, 3, 4), (2, 0, 0)),
    "empty_permuted-range": lambda L: L.empty_permuted((2, 3, 4), (2, 0, 5)),
    "repr": lambda L: [repr(f).split(".")[1] for f in (L.contiguous_format, CL(L), CL3(L), L.preserve_format)],
    "type": lambda L: type(L.channels_last).__name__,
}


@needs_torch
@pytest.mark.parametrize("name", LAYOUT_CASES)
def test_layout_matches_torch(name):
    same(LAYOUT_CASES[name])


def test_channels_last_is_nhwc_memory():
    x = minigrad.arange(24.0).reshape(1, 2, 3, 4)
    y = x.contiguous(memory_format=minigrad.channels_last)
    assert y.stride() == (24, 1, 8, 2)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    # walking the memory in order visits the channels of one pixel first
    flat = minigrad.as_strided(y, (24,), (1,), 0)
    np.testing.assert_array_equal(flat.numpy(), x.numpy().transpose(0, 2, 3, 1).reshape(-1))


def test_contiguous_returns_self_and_grad_fns():
    x = minigrad.randn(2, 3, 4, 5, requires_grad=True)
    assert x.contiguous(memory_format=minigrad.contiguous_format) is x
    y = x.contiguous(memory_format=minigrad.channels_last)
    assert y.grad_fn.name() == "CloneBackward0"
    assert y.contiguous(memory_format=minigrad.channels_last) is y
    assert x.to(memory_format=minigrad.channels_last).grad_fn.name() == "ToCopyBackward0"
    assert y.to(memory_format=minigrad.channels_last) is y
    assert x.clone(memory_format=minigrad.channels_last).grad_fn.name() == "CloneBackward0"
    w = minigrad.randn(2, 3, 4, 5)
    (y * w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), w.numpy())


def test_memory_format_pickles_to_itself():
    import pickle
    for f in (minigrad.channels_last, minigrad.contiguous_format, minigrad.preserve_format):
        assert pickle.loads(pickle.dumps(f)) is f


# ---- ops on channels_last inputs: the values of the row-major computation, on every device --------------

def _ops(F):
    w = minigrad.randn(4, 3, 3, 3, dtype=minigrad.float64)
    c = minigrad.randn(2, 3, 4, 5, dtype=minigrad.float64)
    return {
        "relu": lambda t: t.relu(), "add": lambda t: t + 1, "mul-self": lambda t: t * t, "exp": lambda t: t.exp(),
        "add-rowmajor": lambda t: t + c.to(t.device), "sub-rowmajor-left": lambda t: c.to(t.device) - t,
        "sum1": lambda t: t.sum(1), "mean23": lambda t: t.mean((2, 3)), "softmax1": lambda t: t.softmax(1),
        "conv2d": lambda t: F.conv2d(t, w.to(t.device), padding=1),
        "batch_norm": lambda t: F.batch_norm(t, None, None, training=True),
        "max_pool2d": lambda t: F.max_pool2d(t, 2), "avg_pool2d": lambda t: F.avg_pool2d(t, 2),
        "adaptive_avg_pool2d": lambda t: F.adaptive_avg_pool2d(t, 1),
        "interpolate": lambda t: F.interpolate(t, scale_factor=2), "pad": lambda t: F.pad(t, (1, 1)),
        "layer_norm": lambda t: F.layer_norm(t, (5,)), "group_norm": lambda t: F.group_norm(t, 1),
        "flatten": lambda t: t.flatten(1), "reshape": lambda t: t.reshape(2, -1), "view-after-contig":
        lambda t: t.contiguous().view(2, -1), "permute": lambda t: t.permute(0, 2, 3, 1) * 1,
        "matmul": lambda t: t @ t.transpose(-1, -2), "cumsum": lambda t: t.cumsum(1), "sort": lambda t: t.sort(1)[0],
        "index": lambda t: t[:, 1:, ::2] * 2, "where": lambda t: minigrad.where(t > 0, t, t * 0),
        "cat": lambda t: minigrad.cat([t, t], 1), "max1": lambda t: t.max(1)[0], "clone": lambda t: t.clone(),
        "to64": lambda t: t.to(minigrad.float32), "linear": lambda t: F.linear(t, minigrad.ones(3, 5, dtype=t.dtype,
                                                                                             device=t.device)),
    }


@pytest.mark.parametrize("op", list(_ops(minigrad.nn.functional)))
def test_ops_on_channels_last_inputs(device, op):
    F = minigrad.nn.functional
    fn = _ops(F)[op]
    base = minigrad.randn(2, 3, 4, 5, dtype=minigrad.float64, device=device)
    cl = base.contiguous(memory_format=minigrad.channels_last)
    assert cl.stride() == (60, 1, 15, 3)
    want, got = fn(base), fn(cl)
    np.testing.assert_allclose(got.cpu().numpy(), want.cpu().numpy(), rtol=1e-10, atol=1e-12)
    # the gradient through a channels_last input is the row-major one
    a = base.detach().requires_grad_()
    b = cl.detach().requires_grad_()
    g = minigrad.randn(*want.shape, dtype=want.dtype, device=device) if want.dtype.is_floating_point else None
    if g is not None:
        (fn(a) * g).sum().backward()
        (fn(b) * g).sum().backward()
        np.testing.assert_allclose(b.grad.cpu().numpy(), a.grad.cpu().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["relu", "add", "mul-self", "exp", "clone", "to64"])
def test_elementwise_keeps_channels_last_on_cpu(name):
    t = minigrad.randn(2, 3, 4, 5, dtype=minigrad.float64).contiguous(memory_format=minigrad.channels_last)
    assert _ops(minigrad.nn.functional)[name](t).is_contiguous(memory_format=minigrad.channels_last)


def test_memory_format_on_device(device):
    x = minigrad.randn(2, 3, 4, 5, device=device)
    y = x.contiguous(memory_format=minigrad.channels_last)
    assert y.stride() == (60, 1, 15, 3) and y.device == x.device
    np.testing.assert_array_equal(y.cpu().numpy(), x.cpu().numpy())
    z = minigrad.empty(2, 3, 4, 5, 6, memory_format=minigrad.channels_last_3d, device=device)
    assert z.stride() == (360, 1, 90, 18, 3)
    e = minigrad.empty_strided((3, 4), (1, 3), device=device)
    assert e.stride() == (1, 3)
    assert minigrad.zeros_like(y).stride() == (60, 1, 15, 3)
    assert minigrad.zeros_like(y).device == y.device


def test_module_to_memory_format():
    m = minigrad.nn.Sequential(minigrad.nn.Conv2d(3, 4, 3), minigrad.nn.Linear(2, 2))
    assert m.to(memory_format=minigrad.channels_last) is m
    assert m[0].weight.stride() == (27, 1, 9, 3)
    assert isinstance(m[0].weight, minigrad.nn.Parameter)
    assert m[1].weight.stride() == (2, 1)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        minigrad.nn.Conv3d(3, 4, 3).to(memory_format=minigrad.channels_last)
    with pytest.raises(TypeError, match="to\\(\\) received an invalid combination of arguments"):
        minigrad.nn.Conv2d(3, 4, 3).to(memory_format=3)
    m3 = minigrad.nn.Conv3d(3, 4, 3).to(memory_format=minigrad.channels_last_3d)
    assert m3.weight.stride() == (81, 1, 27, 9, 3)


def test_convert_conv_weight_memory_format():
    m = minigrad.nn.Sequential(minigrad.nn.Conv2d(3, 4, 3), minigrad.nn.Sequential(minigrad.nn.ConvTranspose2d(4, 2, 3)),
                               minigrad.nn.Conv3d(2, 2, 1))
    before = m[0].weight.detach().clone()
    p = m[0].weight
    assert minigrad.nn.utils.convert_conv2d_weight_memory_format(m, minigrad.channels_last) is m
    assert m[0].weight is p and p.is_contiguous(memory_format=minigrad.channels_last)
    np.testing.assert_array_equal(p.detach().numpy(), before.numpy())
    assert m[1][0].weight.is_contiguous(memory_format=minigrad.channels_last)
    assert m[2].weight.is_contiguous()
    minigrad.nn.utils.convert_conv3d_weight_memory_format(m, minigrad.channels_last_3d)
    assert m[2].weight.is_contiguous(memory_format=minigrad.channels_last_3d)
    x = minigrad.randn(1, 3, 6, 6)
    m[0](x).sum().backward()  # a channels_last weight trains as any other
    assert m[0].weight.grad.shape == m[0].weight.shape


# ---- jit ----------------------------------------------------------------------------------------------------

def test_jit_script_and_trace_run_eagerly():
    jit = minigrad.jit

    def f(x):
        if x.sum() > 0:  # data-dependent control flow survives: the Python runs on each call
            return x * 2
        return x - 1
    assert jit.script(f) is f
    tf = jit.trace(f, (minigrad.ones(2),))
    assert tf(-minigrad.ones(2)).tolist() == [-2.0, -2.0]
    m = minigrad.nn.Linear(2, 2)
    assert jit.script(m) is m and jit.trace(m, minigrad.ones(1, 2)) is m
    assert jit.trace_module(m, {"forward": minigrad.ones(1, 2)}) is m
    assert not jit.is_scripting() and not jit.is_tracing()
    assert jit.annotate(int, 3) == 3 and jit.Attribute(4, int) == 4
    import typing
    assert jit.Final is typing.Final

    class M(minigrad.nn.Module):
        @jit.ignore
        def a(self):
            return 1

        @jit.ignore(drop=True)
        def b(self):
            return 2

        @jit.unused
        def c(self):
            return 3

        @jit.export
        def d(self):
            return 4
    mm = M()
    assert (mm.a(), mm.b(), mm.c(), mm.d()) == (1, 2, 3, 4)
    assert not isinstance(jit.script(mm), jit.ScriptModule)
    assert not isinstance(f, jit.ScriptFunction)


def test_jit_fork_wait_freeze():
    jit = minigrad.jit
    fut = jit.fork(lambda a, b=1: a + b, minigrad.ones(2), b=2)
    assert fut.done() and jit.wait(fut).tolist() == [3.0, 3.0]
    assert minigrad.wait(minigrad.fork(lambda: 5)) == 5
    assert fut.then(lambda f: f.value() * 2).wait().tolist() == [6.0, 6.0]
    m = minigrad.nn.Sequential(minigrad.nn.Linear(2, 2), minigrad.nn.Dropout())
    with pytest.raises(RuntimeError, match="only implemented for modules in eval mode"):
        jit.freeze(m)
    assert jit.freeze(m.eval()) is m
    m.train()
    assert jit.optimize_for_inference(m) is m and not m.training
    with pytest.raises(RuntimeError, match="expects a ScriptModule"):
        jit.freeze(lambda x: x)
    for fn in (lambda: jit.save(m, "x.pt"), lambda: jit.load("x.pt")):
        with pytest.raises(NotImplementedError, match="minigrad.save|minigrad.load"):
            fn()


# ---- *_copy ops ---------------------------------------------------------------------------------------------

COPY_CASES = {
    "alias_copy": lambda L, x: L.alias_copy(x),
    "as_strided_copy": lambda L, x: L.as_strided_copy(x, (2, 2), (1, 2)),
    "diagonal_copy": lambda L, x: L.diagonal_copy(x),
    "diagonal_copy-kw": lambda L, x: L.diagonal_copy(x, offset=1, dim1=1, dim2=2),
    "expand_copy": lambda L, x: L.expand_copy(x[:, :1], (2, 3, 4)),
    "permute_copy": lambda L, x: L.permute_copy(x, (2, 0, 1)),
    "select_copy": lambda L, x: L.select_copy(x, 1, 0),
    "slice_copy": lambda L, x: L.slice_copy(x, 1, 0, 2),
    "slice_copy-step": lambda L, x: L.slice_copy(x, -1, 1, None, 2),
    "split_copy": lambda L, x: L.split_copy(x, 2, 1),
    "split_with_sizes_copy": lambda L, x: L.split_with_sizes_copy(x, [1, 2], 1),
    "squeeze_copy": lambda L, x: L.squeeze_copy(x[:1]),
    "squeeze_copy-dim": lambda L, x: L.squeeze_copy(x[:1], 0),
    "squeeze_copy-dims": lambda L, x: L.squeeze_copy(x[:1], (0, 1)),
    "t_copy": lambda L, x: L.t_copy(x[0]),
    "transpose_copy": lambda L, x: L.transpose_copy(x, 0, 1),
    "unbind_copy": lambda L, x: L.unbind_copy(x, 1),
    "unfold_copy": lambda L, x: L.unfold_copy(x, 2, 2, 1),
    "unsqueeze_copy": lambda L, x: L.unsqueeze_copy(x, 0),
    "view_copy": lambda L, x: L.view_copy(x, (6, 4)),
    "detach_copy": lambda L, x: L.detach_copy(x),
    "permute_copy-bad-dims": lambda L, x: L.permute_copy(x, (0, 1)),
    "select_copy-out-of-range": lambda L, x: L.select_copy(x, 1, 7),
    "transpose_copy-dim": lambda L, x: L.transpose_copy(x, 0, 5),
}
_X = np.random.default_rng(0).standard_normal((2, 3, 4))


def _copy_result(lib, name, device="cpu"):
    x = lib.tensor(_X, device=device).requires_grad_()
    try:
        out = COPY_CASES[name](lib, x)
    except Exception as e:  # noqa: BLE001
        return (type(e).__name__, str(e).replace("torch", "minigrad")), None
    outs = out if isinstance(out, (tuple, list)) else [out]
    meta = [(tuple(o.shape), o.is_contiguous(), o.grad_fn.name() if o.grad_fn is not None and name != "detach_copy"
             else None, o._base is None if lib is minigrad else o._base is None) for o in outs]
    if name == "detach_copy":
        return meta, [o.detach().cpu().numpy() for o in outs]
    sum(((o * (i + 1.5)) ** 2).sum() for i, o in enumerate(outs)).backward()
    return meta, [o.detach().cpu().numpy() for o in outs] + [x.grad.cpu().numpy()]


@pytest.mark.parametrize("name", COPY_CASES)
def test_copy_ops(device, name):
    meta, vals = _copy_result(minigrad, name, device)
    if torch is not None:
        tmeta, tvals = _copy_result(torch, name)
        assert meta == tmeta
        for a, b in zip(vals or [], tvals or []):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_copy_ops_share_no_memory():
    x = minigrad.randn(2, 3, 4)
    y = minigrad.permute_copy(x, (2, 0, 1))
    y.zero_()
    assert x.abs().sum().item() > 0
    assert gradcheck(lambda t: minigrad.unfold_copy(t, 2, 2, 1), (minigrad.randn(2, 3, 4, dtype=minigrad.float64,
                                                                                  requires_grad=True),))


# ---- other top-level functions -------------------------------------------------------------------------------

MISC_CASES = {
    "swapdims": lambda L: L.swapdims(L.ones(2, 3, 4), 0, 2),
    "as_strided_": lambda L: L.as_strided_(L.zeros(6), (2, 2), (1, 2)),
    "get_device": lambda L: L.get_device(L.ones(2)),
    "is_inference": lambda L: (L.is_inference(L.ones(2)), L.ones(2).is_inference()),
    "nonzero_static-cut": lambda L: L.nonzero_static(L.tensor([0, 1, 2, 0, 3]), size=2).tolist(),
    "nonzero_static-pad": lambda L: L.nonzero_static(L.tensor([0, 1, 2, 0, 3]), size=5, fill_value=-7).tolist(),
    "nonzero_static-2d": lambda L: L.nonzero_static(L.tensor([[0, 1], [2, 0]]), size=3).tolist(),
    "nonzero_static-0d": lambda L: L.nonzero_static(L.tensor(3.0), size=2),
    "nonzero_static-negative": lambda L: L.nonzero_static(L.tensor([1]), size=-1),
    "nonzero_static-method": lambda L: L.tensor([0.0, 1.0]).nonzero_static(size=2).tolist(),
    "prelu-method": lambda L: L.tensor([-2.0, 3.0]).prelu(L.tensor([0.25])).tolist(),
    "hardshrink-method": lambda L: L.tensor([-2.0, 0.3, 3.0]).hardshrink().tolist(),
    "hardshrink-lambd": lambda L: L.tensor([-2.0, 0.3, 3.0]).hardshrink(2.5).tolist(),
    "binomial-int": lambda L: L.binomial(L.tensor([10, 5]), L.tensor([0.5, 0.2])),
    "binomial-dtypes": lambda L: L.binomial(L.tensor([10.0]), L.tensor([0.5], dtype=L.float64)),
    "binomial-prob-float": lambda L: L.binomial(L.tensor([10.0]), 0.5),
    "binomial-edges": lambda L: L.binomial(L.tensor([10.0, -3.0, 0.0, 4.0]), L.tensor([1.0, 0.5, 0.5, 0.0])).tolist(),
    "binomial-dtype": lambda L: L.binomial(L.tensor([3.0], dtype=L.float64), L.tensor([0.5], dtype=L.float64)).dtype
    is L.float64,
    "matrix_rank": lambda L: L.matrix_rank(L.eye(2)),
    "nuclear_norm": lambda L: round(L.nuclear_norm(L.tensor([[3.0, 0.0], [4.0, 5.0]])).item(), 4),
    "nuclear_norm-batch": lambda L: L.nuclear_norm(L.ones(2, 3, 3)).tolist(),
    "nuclear_norm-dim": lambda L: L.nuclear_norm(L.ones(2, 3, 3), dim=(1, 2), keepdim=True).tolist(),
    "nuclear_norm-1d": lambda L: L.nuclear_norm(L.ones(3)),
    "frobenius_norm": lambda L: [round(v, 4) for v in L.frobenius_norm(L.ones(2, 3, 3), dim=(1, 2)).tolist()],
    "frobenius_norm-int-dim": lambda L: L.frobenius_norm(L.ones(2, 3), dim=1).tolist(),
    "frobenius_norm-3": lambda L: L.frobenius_norm(L.ones(3, 3), (0, 1, 2)),
    "norm_except_dim": lambda L: L.norm_except_dim(L.ones(2, 3, 3)).tolist(),
    "norm_except_dim-1": lambda L: [[[round(v, 4)] for v in r[0]] for r in
                                    L.norm_except_dim(L.ones(2, 3, 3), 2, 1).tolist()],
    "norm_except_dim-whole": lambda L: round(L.norm_except_dim(L.ones(2, 3, 3), 2, -1).item(), 4),
    "norm_except_dim-p1": lambda L: L.norm_except_dim(L.ones(2, 3), 1, 0).tolist(),
    "lu": lambda L: [t.tolist() for t in L.lu(L.tensor([[1.0, 2.0], [3.0, 4.0]]))],
    "lu-infos": lambda L: [t.tolist() for t in L.lu(L.tensor([[1.0, 2.0], [2.0, 4.0]]), get_infos=True)],
    "lu-singular": lambda L: [t.tolist() for t in L.lu(L.tensor([[1.0, 2.0], [2.0, 4.0]]))],
    "lu-nopivot": lambda L: L.lu(L.eye(2), pivot=False),
    "lu_solve-pivot-dtype": lambda L: L.lu_solve(L.ones(3, 1), L.eye(3), L.tensor([1, 2, 3])),
    "cholesky-upper": lambda L: [[round(v, 4) for v in r] for r in
                                 L.cholesky(L.tensor([[4.0, 2.0], [2.0, 3.0]]), upper=True).tolist()],
}


@needs_torch
@pytest.mark.parametrize("name", MISC_CASES)
def test_misc_matches_torch(name):
    same(MISC_CASES[name])


def test_legacy_linalg_values_grads_and_warnings(device):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 3))
    spd = a @ a.T + 3 * np.eye(3)
    b = rng.standard_normal((3, 2))
    for lib in ([minigrad, torch] if torch is not None else [minigrad]):
        dev = device if lib is minigrad else "cpu"
        A = lib.tensor(spd, device=dev).requires_grad_()
        L = lib.cholesky(A)
        LU, piv = lib.lu(A)
        X = lib.lu_solve(lib.tensor(b, device=dev), LU, piv)
        (L.sum() + X.sum() + lib.nuclear_norm(A) + lib.frobenius_norm(A, (0, 1))).backward()
        names = (L.grad_fn.name(), LU.grad_fn.name(), X.grad_fn.name())
        vals = [t.detach().cpu().numpy() for t in (L, LU, X, A.grad)]
        if lib is minigrad:
            mine = (names, vals)
    if torch is not None:
        assert mine[0] == names
        for p, q in zip(mine[1], vals):
            np.testing.assert_allclose(p, q, rtol=1e-9, atol=1e-9)


def test_deprecation_warnings_once():
    from minigrad.ops import legacy_linalg
    legacy_linalg._WARNED.clear()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        minigrad.cholesky(minigrad.eye(2))
        minigrad.cholesky(minigrad.eye(2))
        minigrad.lu(minigrad.eye(2))
        minigrad.nuclear_norm(minigrad.eye(2))
        minigrad.frobenius_norm(minigrad.eye(2), (0, 1))
    msgs = [str(x.message) for x in w]
    assert len(msgs) == 4
    assert msgs[0].startswith("torch.cholesky is deprecated in favor of torch.linalg.cholesky")
    assert msgs[2].startswith("at::nuclear_norm is deprecated")


def test_binomial_moments(device):
    n = minigrad.tensor([0.0, 1.0, 7.0, 300.0], dtype=minigrad.float64, device=device).expand(20000, 4)
    p = minigrad.tensor([0.5, 0.3, 0.9, 0.25], dtype=minigrad.float64, device=device).expand(20000, 4)
    draws = minigrad.binomial(n.contiguous(), p.contiguous()).cpu().numpy()
    assert draws.shape == (20000, 4)
    assert np.all(draws == np.round(draws)) and np.all(draws >= 0) and np.all(draws <= n.cpu().numpy())
    mean, var = draws.mean(0), draws.var(0)
    nn_, pp = np.array([0, 1, 7, 300.0]), np.array([0.5, 0.3, 0.9, 0.25])
    assert np.all(np.abs(mean - nn_ * pp) <= 5 * np.sqrt(nn_ * pp * (1 - pp) / 20000) + 1e-12)  # 5 sigma
    np.testing.assert_allclose(var, nn_ * pp * (1 - pp), rtol=0.1, atol=1e-9)
    g = minigrad.Generator().manual_seed(3)
    a = minigrad.binomial(minigrad.full((5,), 10.0), minigrad.full((5,), 0.5), generator=g)
    g.manual_seed(3)
    assert minigrad.binomial(minigrad.full((5,), 10.0), minigrad.full((5,), 0.5), generator=g).tolist() == a.tolist()


def _decaying(rng, batch, m, n):
    """A full-rank matrix with singular values 2^-k (a well-conditioned low-rank problem)."""
    k = min(m, n)
    U = np.linalg.qr(rng.standard_normal((*batch, m, k)))[0]
    V = np.linalg.qr(rng.standard_normal((*batch, n, k)))[0]
    return (U * 0.5 ** np.arange(k)) @ np.swapaxes(V, -1, -2)


def _best_error(a, q):
    """The Frobenius error of the best rank-q approximation (Eckart-Young)."""
    s = np.linalg.svd(a, compute_uv=False)
    return np.sqrt((s[..., q:] ** 2).sum(-1))


@pytest.mark.parametrize("shape", [(40, 30), (25, 60), (3, 30, 20)])
def test_svd_pca_lowrank_reconstruct(device, shape):
    minigrad.manual_seed(0)
    rng = np.random.default_rng(2)
    *batch, m, n = shape
    a = _decaying(rng, batch, m, n)
    A = minigrad.tensor(a, device=device)
    U, S, V = minigrad.svd_lowrank(A, q=6)
    assert U.shape == (*batch, m, 6) and S.shape == (*batch, 6) and V.shape == (*batch, n, 6)
    rec = ((U * S.unsqueeze(-2)) @ V.transpose(-1, -2)).cpu().numpy()
    err = np.sqrt(((rec - a) ** 2).sum((-2, -1)))
    assert np.all(err <= 1.5 * _best_error(a, 6))  # near the best rank-6 error
    np.testing.assert_allclose(S.cpu().numpy()[..., :3], 0.5 ** np.arange(3) * np.ones((*batch, 1)), rtol=1e-6)
    np.testing.assert_allclose((U.transpose(-1, -2) @ U).cpu().numpy(), np.broadcast_to(np.eye(6), (*batch, 6, 6)),
                               atol=1e-10)
    Uc, Sc, Vc = minigrad.pca_lowrank(A, q=5)
    centered = a - a.mean(-2, keepdims=True)
    rec_c = ((Uc * Sc.unsqueeze(-2)) @ Vc.transpose(-1, -2)).cpu().numpy()
    assert np.all(np.sqrt(((rec_c - centered) ** 2).sum((-2, -1))) <= 3 * _best_error(centered, 5))
    if torch is not None:  # torch's factors reconstruct about as well (its sketch seeded too)
        torch.manual_seed(0)
        tU, tS, tV = torch.svd_lowrank(torch.tensor(a), q=6)
        trec = ((tU * tS.unsqueeze(-2)) @ tV.transpose(-1, -2)).numpy()
        terr = np.sqrt(((trec - a) ** 2).sum((-2, -1)))
        assert np.all(err <= 1.5 * terr + 1e-12) and np.all(terr <= 1.5 * _best_error(a, 6))


def test_pca_lowrank_errors():
    for lib in ([minigrad, torch] if torch is not None else [minigrad]):
        with pytest.raises(ValueError, match=r"q\(=9\) must be non-negative integer and not greater than"):
            lib.pca_lowrank(lib.ones(3, 4), q=9)


# ---- nn and data additions -----------------------------------------------------------------------------------

@needs_torch
def test_cross_map_lrn2d_and_legacy_modules():
    x = np.random.default_rng(3).standard_normal((2, 9, 3, 3))
    for size in (1, 2, 3, 5, 12):
        a = torch.nn.CrossMapLRN2d(size, 0.1, 0.75, 1.5)(torch.tensor(x)).numpy()
        b = minigrad.nn.CrossMapLRN2d(size, 0.1, 0.75, 1.5)(minigrad.tensor(x)).numpy()
        np.testing.assert_allclose(b, a, rtol=1e-12)
    assert repr(minigrad.nn.CrossMapLRN2d(3)) == repr(torch.nn.CrossMapLRN2d(3))
    with pytest.raises(ValueError, match="CrossMapLRN2d: Expected input to be 4D, got 3D instead."):
        minigrad.nn.CrossMapLRN2d(3)(minigrad.ones(2, 3, 4))
    with pytest.warns(FutureWarning, match="NLLLoss2d` has been deprecated"):
        loss = minigrad.nn.NLLLoss2d()
    assert isinstance(loss, minigrad.nn.NLLLoss)
    with pytest.warns(FutureWarning, match="nn.Container` is deprecated"):
        c = minigrad.nn.Container(a=minigrad.nn.Linear(2, 2))
    with pytest.warns(FutureWarning):
        tc = torch.nn.Container(a=torch.nn.Linear(2, 2))
    assert repr(c) == repr(tc).replace("torch", "minigrad")


def test_skip_init_and_convert_parameters():
    lin = minigrad.nn.utils.skip_init(minigrad.nn.Linear, 3, 4, bias=False)
    assert lin.weight.shape == (4, 3) and lin.bias is None
    with pytest.raises(RuntimeError, match="Expected a Module; got <class 'int'>"):
        minigrad.nn.utils.skip_init(int)
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        minigrad.nn.utils.skip_init(minigrad.nn.ReLU)
    from minigrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
    v = parameters_to_vector(lin.parameters())
    vector_to_parameters(v * 0, lin.parameters())
    assert lin.weight.abs().sum().item() == 0


@pytest.mark.parametrize("n, replicas, drop_last", [(10, 3, False), (10, 3, True), (9, 3, False), (2, 3, False),
                                                     (7, 4, True), (1, 4, False)])
def test_distributed_sampler_partition(n, replicas, drop_last):
    ds = list(range(n))
    mine = [list(minigrad.utils.data.DistributedSampler(ds, replicas, r, shuffle=False, drop_last=drop_last))
            for r in range(replicas)]
    if torch is not None:
        theirs = [list(torch.utils.data.DistributedSampler(ds, replicas, r, shuffle=False, drop_last=drop_last))
                  for r in range(replicas)]
        assert mine == theirs
    assert len({len(p) for p in mine}) == 1
    shuffled = [list(minigrad.utils.data.DistributedSampler(ds, replicas, r, seed=5, drop_last=drop_last))
                for r in range(replicas)]
    flat = sorted(i for p in shuffled for i in p)
    if drop_last:  # disjoint shares
        assert len(flat) == len(set(flat))
    else:  # every index, the first ones repeated as padding
        assert set(flat) == set(ds)
    s = minigrad.utils.data.DistributedSampler(ds, replicas, 0, seed=5)
    first = list(s)
    assert list(s) == first  # same epoch, same order
    s.set_epoch(3)
    assert len(list(s)) == len(s)


def test_distributed_sampler_errors():
    DS = minigrad.utils.data.DistributedSampler
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        DS(list(range(4)))
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
        DS(list(range(4)), 3, 3)
    if torch is not None:
        with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
            torch.utils.data.DistributedSampler(list(range(4)), 3, 3)
