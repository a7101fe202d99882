"""Every row of the op table, on every device: forward against NumPy float64,
backward by gradcheck / gradgradcheck and by a random cotangent against finite
differences of the NumPy reference, and everything against PyTorch when present."""
import zlib

import numpy as np
import pytest

import minigrad

try:
    from .op_table import OPS, make_inputs, reference_inputs
except ImportError:  # tests/ is not a package: pytest put it on sys.path
    from op_table import OPS, make_inputs, reference_inputs

FLOAT_DTYPES = ("float32", "float64")


def _params(ops, with_dtypes=False):
    if with_dtypes:
        return [pytest.param(op, dt, id=f"{op.id}-{dt}") for op in ops for dt in op.dtypes]
    return [pytest.param(op, id=op.id) for op in ops]


def _rng(op, salt):
    return np.random.default_rng(zlib.crc32(f"{op.id}/{salt}".encode()))


def _tensors(lib, arrays, device, requires_grad):
    return [lib.tensor(a, device=device, requires_grad=requires_grad and a.dtype.kind == "f")
            for a in arrays]


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _is_float(lib, t):
    return t.dtype in (lib.float32, lib.float64)


def _numpy(t):
    return t.detach().cpu().numpy()


def _dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def _assert_close(got, want, op, what, rtol=None, atol=None):
    want = np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    if rtol is None:
        rtol, atol = (op.rtol, op.atol) if got.dtype == np.float32 else (1e-9, 1e-10)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                               atol=atol, err_msg=what)


def _differentiable(lib, op):
    """The op as gradcheck wants it: float outputs only (indices carry no gradient)."""
    def f(*xs):
        outs = [o for o in _outputs(op.fn(lib, *xs)) if _is_float(lib, o)]
        return outs[0] if len(outs) == 1 else tuple(outs)
    return f


def _ref_vjp(op, arrays, cotangents, eps=1e-6):
    """Central differences of <cotangent, reference(x)>: the reference's own VJP."""
    def pairing(arrs):
        outs = [np.asarray(o) for o in _outputs(op.ref(*arrs)) if np.asarray(o).dtype.kind == "f"]
        return sum(float(np.sum(c * o)) for c, o in zip(cotangents, outs))

    grads = []
    for i, a in enumerate(arrays):
        if a.dtype.kind != "f":
            grads.append(None)
            continue
        g = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            shifted = list(arrays)
            shifted[i] = a.copy()
            shifted[i][j] = a[j] + eps
            up = pairing(shifted)
            shifted[i][j] = a[j] - eps
            g[j] = (up - pairing(shifted)) / (2 * eps)
        grads.append(g)
    return grads


def _float64_inputs(op):
    arrays = make_inputs(op, "float64", _rng(op, "float64"))
    return [a.astype(np.float64) if a.dtype.kind == "f" else a for a in arrays]


@pytest.mark.parametrize("op,dtype", _params(OPS, with_dtypes=True))
def test_forward_matches_numpy(op, dtype, device):
    arrays = make_inputs(op, dtype, _rng(op, dtype))
    got = _outputs(op.fn(minigrad, *_tensors(minigrad, arrays, device, False)))
    want = _outputs(op.ref(*reference_inputs(arrays)))
    assert len(got) == len(want), f"{len(got)} outputs, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g = _numpy(g)
        # bool stays bool, integers stay integers, floats stay floats
        assert g.dtype.kind == np.asarray(w).dtype.kind, f"output {k}: dtype {g.dtype}"
        _assert_close(g, w, op, f"output {k}")


GRAD_OPS = [op for op in OPS if op.grad]


@pytest.mark.parametrize("op", _params(GRAD_OPS))
def test_gradcheck(op, device):
    inputs = _tensors(minigrad, _float64_inputs(op), device, True)
    assert minigrad.autograd.gradcheck(_differentiable(minigrad, op), tuple(inputs))


@pytest.mark.parametrize("op", _params([op for op in GRAD_OPS if op.smooth]))
def test_gradgradcheck(op, device):
    inputs = _tensors(minigrad, _float64_inputs(op), device, True)
    assert minigrad.autograd.gradgradcheck(_differentiable(minigrad, op), tuple(inputs))


@pytest.mark.parametrize("op", _params(GRAD_OPS))
def test_backward_matches_reference(op, device):
    arrays = _float64_inputs(op)
    inputs = _tensors(minigrad, arrays, device, True)
    outs = [o for o in _outputs(op.fn(minigrad, *inputs)) if _is_float(minigrad, o)]
    rng = _rng(op, "cotangent")
    cotangents = [rng.standard_normal(tuple(o.shape)) for o in outs]
    cot_tensors = [minigrad.tensor(c, device=device) for c in cotangents]
    leaves = [x for x in inputs if x.requires_grad]
    if len(outs) == 1:
        outs[0].backward(cot_tensors[0])
        grads = [x.grad for x in leaves]
    else:
        grads = minigrad.autograd.grad(outs, leaves, grad_outputs=cot_tensors, allow_unused=True)
    want = [w for w in _ref_vjp(op, arrays, cotangents) if w is not None]
    assert len(grads) == len(want)
    for k, (g, w, x) in enumerate(zip(grads, want, leaves)):
        g = np.zeros(w.shape) if g is None else _numpy(g)
        assert g.dtype == np.float64, f"grad {k}: dtype {g.dtype}, expected float64"
        _assert_close(g, w, op, f"grad of input {k}", rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op,dtype", _params(OPS, with_dtypes=True))
def test_matches_torch(op, dtype, device):
    torch = pytest.importorskip("torch")
    arrays = make_inputs(op, dtype, _rng(op, dtype))
    grad = op.grad and dtype in FLOAT_DTYPES
    mg_in = _tensors(minigrad, arrays, device, grad)
    th_in = _tensors(torch, arrays, "cpu", grad)
    mg_out, th_out = _outputs(op.fn(minigrad, *mg_in)), _outputs(op.fn(torch, *th_in))
    assert len(mg_out) == len(th_out)
    for k, (m, t) in enumerate(zip(mg_out, th_out)):
        assert _dtype_name(m.dtype) == _dtype_name(t.dtype), f"output {k}: dtype {m.dtype}, torch {t.dtype}"
        assert tuple(m.shape) == tuple(t.shape), f"output {k}: shape {tuple(m.shape)}, torch {tuple(t.shape)}"
        _assert_close(_numpy(m), _numpy(t), op, f"output {k} vs torch")
    if not grad:
        return
    pairs = [(m, t) for m, t in zip(mg_out, th_out) if _is_float(torch, t)]
    rng = _rng(op, "cotangent")
    cots = [rng.standard_normal(tuple(t.shape)).astype(_numpy(t).dtype) for _, t in pairs]
    mg_leaves = [x for x in mg_in if x.requires_grad]
    th_leaves = [x for x in th_in if x.requires_grad]
    mg_grads = minigrad.autograd.grad([m for m, _ in pairs], mg_leaves,
                                      grad_outputs=[minigrad.tensor(c, device=device) for c in cots],
                                      allow_unused=True)
    th_grads = torch.autograd.grad([t for _, t in pairs], th_leaves,
                                   grad_outputs=[torch.tensor(c) for c in cots], allow_unused=True)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-9, atol=1e-10)
    for k, (m, t, x) in enumerate(zip(mg_grads, th_grads, th_leaves)):
        t = torch.zeros_like(x) if t is None else t
        if m is None:
            m_np = np.zeros(tuple(x.shape), _numpy(x).dtype)
        else:
            assert _dtype_name(m.dtype) == _dtype_name(t.dtype), f"grad {k}: dtype {m.dtype}"
            m_np = _numpy(m)
        _assert_close(m_np, _numpy(t), op, f"grad of input {k} vs torch", **tol)
