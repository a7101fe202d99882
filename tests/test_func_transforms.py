"""torch.autograd.functional, torch.func (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap),
torch.utils.checkpoint and the RNG state functions: each program is written once against the
PyTorch API and run under minigrad (on every device) and torch; values, dtypes, output structures
(tensor vs tuple vs nested tuple/dict), requires_grad, gradients and errors must agree."""
import math
import warnings

import pytest

import minigrad
from test_api_sweep import _named
from test_nn_functional import _OnDevice

torch = pytest.importorskip("torch")
import torch.utils.checkpoint  # noqa: E402,F401
import torch.autograd.functional  # noqa: E402,F401


def _plain(r):
    if hasattr(r, "grad_fn") and hasattr(r, "tolist"):
        return ("T", str(r.dtype).split(".")[-1], tuple(r.shape), r.tolist(), bool(r.requires_grad))
    if isinstance(r, dict):
        return {k: _plain(v) for k, v in r.items()}
    if isinstance(r, (tuple, list)):
        return type(r)(_plain(x) for x in r) if type(r) in (tuple, list) else tuple(_plain(x) for x in r)
    if isinstance(r, str):
        return _named(r)
    return r


def _outcome(fn, lib, device="cpu"):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = _plain(fn(lib, device))
        return r, [_named(str(w.message)) for w in caught
                   if issubclass(w.category, UserWarning) and "jit" not in str(w.message)]
    except Exception as e:  # noqa: BLE001  (the exception is the outcome compared)
        return type(e).__name__, _named(str(e))


def _close(a, b, rtol=1e-6):
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], rtol) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and type(a) is type(b):
        return len(a) == len(b) and all(_close(x, y, rtol) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= rtol * max(abs(a), abs(b)) + 1e-9
    return a == b


def same(program, device, rtol=1e-6):
    got = _outcome(program, _OnDevice(device), device)
    want = _outcome(program, torch)
    assert _close(got, want, rtol), (got, want)
    return got


def _x(L, shape=(2, 3), grad=False, lo=-1.3, step=0.7):
    n = math.prod(shape)
    return (L.arange(n, dtype=L.float64) * step + lo).reshape(shape).requires_grad_(grad)


# ---- torch.autograd.functional ---------------------------------------------------------------------------

def _f(a, b):
    return (a.sin() * b).sum(1)


def _g(a, b):
    return (a * b).exp().sum() + (b ** 3).sum()


AF = {
    "vjp": lambda L, d: L.autograd.functional.vjp(_f, (_x(L), _x(L, (3,))), L.ones(2, dtype=L.float64)),
    "vjp_single": lambda L, d: L.autograd.functional.vjp(lambda a: a.exp().sum(), _x(L)),
    "vjp_create_graph": lambda L, d: L.autograd.functional.vjp(
        lambda a: a.exp(), _x(L, grad=True), L.ones(2, 3, dtype=L.float64), create_graph=True),
    "vjp_independent": lambda L, d: L.autograd.functional.vjp(
        lambda a: L.ones(3, dtype=L.float64), _x(L, (3,)), L.ones(3, dtype=L.float64)),
    "vjp_strict": lambda L, d: L.autograd.functional.vjp(
        lambda a: L.ones(3, dtype=L.float64), _x(L, (3,)), L.ones(3, dtype=L.float64), strict=True),
    "vjp_strict_create": lambda L, d: L.autograd.functional.vjp(
        lambda a: a * 2, _x(L, (3,)), L.ones(3, dtype=L.float64), strict=True, create_graph=True),
    "vjp_no_v": lambda L, d: L.autograd.functional.vjp(lambda a: a * 2, _x(L, (3,))),
    "vjp_bad_v": lambda L, d: L.autograd.functional.vjp(lambda a: a * 2, _x(L, (3,)), L.ones(4, dtype=L.float64)),
    "vjp_v_tuple": lambda L, d: L.autograd.functional.vjp(lambda a: a * 2, _x(L, (3,)),
                                                          (L.ones(3, dtype=L.float64),) * 2),
    "vjp_float_input": lambda L, d: L.autograd.functional.vjp(lambda a: a * 2, 3.0),
    "vjp_list_output": lambda L, d: L.autograd.functional.vjp(lambda a: [a], _x(L, (3,)), L.ones(3)),
    "jvp": lambda L, d: L.autograd.functional.jvp(_f, (_x(L), _x(L, (3,))),
                                                  (L.ones(2, 3, dtype=L.float64), _x(L, (3,)))),
    "jvp_create_graph": lambda L, d: L.autograd.functional.jvp(
        lambda a: a.exp().sum(0), _x(L, grad=True), L.ones(2, 3, dtype=L.float64), create_graph=True),
    "jvp_strict": lambda L, d: L.autograd.functional.jvp(
        lambda a: a.detach() * 2, _x(L, (3,)), L.ones(3, dtype=L.float64), strict=True),
    "jvp_no_v": lambda L, d: L.autograd.functional.jvp(lambda a: a * 2, _x(L, (3,))),
    "jacobian": lambda L, d: L.autograd.functional.jacobian(_f, (_x(L), _x(L, (3,)))),
    "jacobian_single": lambda L, d: L.autograd.functional.jacobian(lambda a: a.exp(), _x(L)),
    "jacobian_tuple_out": lambda L, d: L.autograd.functional.jacobian(lambda a: (a.exp(), a.sum()), _x(L, (3,))),
    "jacobian_one_tuple": lambda L, d: L.autograd.functional.jacobian(lambda a: a * 2, (_x(L, (2,)),)),
    "jacobian_vectorize": lambda L, d: L.autograd.functional.jacobian(_f, (_x(L), _x(L, (3,))), vectorize=True),
    "jacobian_forward_vec": lambda L, d: L.autograd.functional.jacobian(
        lambda a: a.exp(), _x(L), vectorize=True, strategy="forward-mode"),
    "jacobian_forward_novec": lambda L, d: L.autograd.functional.jacobian(
        lambda a: a.exp(), _x(L), strategy="forward-mode"),
    "jacobian_bad_strategy": lambda L, d: L.autograd.functional.jacobian(lambda a: a, _x(L), strategy="x"),
    "jacobian_strict_vec": lambda L, d: L.autograd.functional.jacobian(lambda a: a * 2, _x(L), strict=True,
                                                                       vectorize=True),
    "jacobian_fwd_create": lambda L, d: L.autograd.functional.jacobian(
        lambda a: a * 2, _x(L), create_graph=True, strategy="forward-mode", vectorize=True),
    "jacobian_strict": lambda L, d: L.autograd.functional.jacobian(lambda a: a.detach(), _x(L), strict=True),
    "jacobian_independent": lambda L, d: L.autograd.functional.jacobian(
        lambda a, b: a * 2, (_x(L, (2,)), _x(L, (3,)))),
    "jacobian_create_graph": lambda L, d: L.autograd.functional.jacobian(
        lambda a: (a ** 3).sum(0), _x(L, grad=True), create_graph=True),
    "hessian": lambda L, d: L.autograd.functional.hessian(_g, (_x(L), _x(L, (3,)))),
    "hessian_single": lambda L, d: L.autograd.functional.hessian(lambda a: (a ** 3).sum(), _x(L, (3,))),
    "hessian_linear": lambda L, d: L.autograd.functional.hessian(lambda a: a.sum(), _x(L, (3,))),
    "hessian_strict": lambda L, d: L.autograd.functional.hessian(lambda a: a.sum(), _x(L, (3,)), strict=True),
    "hessian_not_scalar": lambda L, d: L.autograd.functional.hessian(lambda a: a * 2, _x(L, (3,))),
    "vhp": lambda L, d: L.autograd.functional.vhp(_g, (_x(L), _x(L, (3,))), (L.ones(2, 3, dtype=L.float64),
                                                                              _x(L, (3,)))),
    "hvp": lambda L, d: L.autograd.functional.hvp(_g, (_x(L), _x(L, (3,))), (L.ones(2, 3, dtype=L.float64),
                                                                              _x(L, (3,)))),
    "vhp_strict": lambda L, d: L.autograd.functional.vhp(lambda a: a.sum(), _x(L, (3,)), L.ones(3), strict=True),
    "hvp_scalar_no_v": lambda L, d: L.autograd.functional.hvp(lambda a: (a ** 3).sum(),
                                                              L.tensor(2.0, dtype=L.float64)),
    "vhp_no_v": lambda L, d: L.autograd.functional.vhp(lambda a: (a ** 2).sum(), _x(L, (3,))),
    "vhp_not_scalar": lambda L, d: L.autograd.functional.vhp(lambda a: a * 2, _x(L, (3,)), L.ones(3)),
}


@pytest.mark.parametrize("name", sorted(AF))
def test_autograd_functional(name, device):
    same(AF[name], device)


# ---- torch.func: grad, vjp, jvp, jacrev, jacfwd, hessian -----------------------------------------------------

def _loss(w, x, y):
    return ((x @ w - y) ** 2).mean()


def _grad_leaves_caller_alone(L, d):
    x = _x(L)
    g = L.func.grad(lambda a: (a ** 3).sum())(x)
    return g, x.requires_grad, x.grad


def _grad_of_param(L, d):
    w = _x(L, (3,), grad=True)
    g = L.func.grad(lambda a: (a.sin() * w).sum())(_x(L, (3,), lo=0.1))
    (g.sum()).backward()
    return g, w.grad


def _vjp_fn(L, d):
    out, fn = L.func.vjp(lambda a, b: (a * b, [b.exp()]), _x(L, (3,)), _x(L, (3,), lo=0.2))
    return out, fn((L.ones(3, dtype=L.float64), [_x(L, (3,))]))


def _vjp_aux(L, d):
    out, fn, aux = L.func.vjp(lambda a: (a * 2, {"s": a.sum()}), _x(L, (3,)), has_aux=True)
    return out, fn(L.ones(3, dtype=L.float64)), aux


def _per_sample(L, d):
    w = _x(L, (3, 2), step=0.1)
    xs, ys = _x(L, (5, 4, 3), step=0.05), _x(L, (5, 4, 2), step=0.03)
    return L.func.vmap(L.func.grad(_loss), in_dims=(None, 0, 0))(w, xs, ys)


def _vmap_grad_flow(L, d):
    x = _x(L, (4, 3), grad=True)
    w = _x(L, (3,), grad=True, lo=0.3)
    out = L.func.vmap(lambda r, v: (r * v).sin().sum(), in_dims=(0, None))(x, w)
    (out * L.arange(4, dtype=L.float64)).sum().backward()
    return out, x.grad, w.grad


def _vmap_randomness(L, d, mode):
    L.manual_seed(0)
    return L.func.vmap(lambda a: a + L.rand(3, dtype=L.float64) * 0, randomness=mode)(_x(L, (2, 3)))


FUNC = {
    "grad": lambda L, d: L.func.grad(lambda a: (a ** 3).sum())(_x(L)),
    "grad_argnums_tuple": lambda L, d: L.func.grad(_loss, argnums=(0, 2))(
        _x(L, (3, 2)), _x(L, (4, 3)), _x(L, (4, 2))),
    "grad_argnums_neg": lambda L, d: L.func.grad(_loss, argnums=-1)(_x(L, (3, 2)), _x(L, (4, 3)), _x(L, (4, 2))),
    "grad_dict": lambda L, d: L.func.grad(lambda p, x: (x @ p["w"] + p["b"]).tanh().sum())(
        {"w": _x(L, (3, 2)), "b": _x(L, (2,))}, _x(L, (4, 3))),
    "grad_aux": lambda L, d: L.func.grad(lambda a: ((a ** 2).sum(), {"m": a.mean()}), has_aux=True)(_x(L)),
    "grad_and_value": lambda L, d: L.func.grad_and_value(lambda a: (a ** 2).sum())(_x(L)),
    "grad_and_value_aux": lambda L, d: L.func.grad_and_value(lambda a: ((a ** 2).sum(), a * 3), has_aux=True)(
        _x(L)),
    "grad_grad": lambda L, d: L.func.grad(L.func.grad(lambda a: a.sin() * a ** 3))(L.tensor(0.7, dtype=L.float64)),
    "grad_grad_grad": lambda L, d: L.func.grad(L.func.grad(L.func.grad(lambda a: a.exp() * a ** 4)))(
        L.tensor(0.3, dtype=L.float64)),
    "grad_independent": lambda L, d: L.func.grad(lambda a: L.ones((), dtype=L.float64) * 2)(_x(L)),
    "grad_caller_alone": _grad_leaves_caller_alone,
    "grad_requires_grad_input": lambda L, d: L.func.grad(lambda a: (a ** 3).sum())(_x(L, grad=True)),
    "grad_of_param": _grad_of_param,
    "grad_nonscalar": lambda L, d: L.func.grad(lambda a: a)(_x(L)),
    "grad_nontensor_out": lambda L, d: L.func.grad(lambda a: 3.0)(_x(L)),
    "grad_aux_bad": lambda L, d: L.func.grad(lambda a: a.sum(), has_aux=True)(_x(L)),
    "grad_argnum_range": lambda L, d: L.func.grad(lambda a: a.sum(), argnums=1)(_x(L)),
    "grad_argnum_float": lambda L, d: L.func.grad(lambda a: a.sum(), argnums=1.0)(_x(L)),
    "grad_argnums_empty": lambda L, d: L.func.grad(lambda a: a.sum(), argnums=())(_x(L)),
    "grad_argnums_dup": lambda L, d: L.func.grad(lambda a, b: a.sum(), argnums=(0, 0))(_x(L), _x(L)),
    "grad_int_input": lambda L, d: L.func.grad(lambda a: a.sum())(L.ones(3, dtype=L.int64)),
    "grad_float_input": lambda L, d: L.func.grad(lambda a: a)(3.0),
    "vjp": _vjp_fn,
    "vjp_aux": _vjp_aux,
    "vjp_bad_cotangent": lambda L, d: L.func.vjp(lambda a: a * 2, _x(L))[1](L.ones(3, dtype=L.float64)),
    "vjp_bad_structure": lambda L, d: L.func.vjp(lambda a: a * 2, _x(L))[1]((_x(L), _x(L))),
    "vjp_nontensor_out": lambda L, d: L.func.vjp(lambda a: 3.0, _x(L)),
    "jvp": lambda L, d: L.func.jvp(lambda a, b: (a * b).exp(), (_x(L), _x(L, lo=0.2)), (L.ones(2, 3, dtype=L.float64),
                                                                                      _x(L))),
    "jvp_tuple_out_aux": lambda L, d: L.func.jvp(lambda a: ((a.sin(), a.sum()), a * 2), (_x(L, (3,)),),
                                                 (L.ones(3, dtype=L.float64),), has_aux=True),
    "jvp_not_tuple": lambda L, d: L.func.jvp(lambda a: a, _x(L), _x(L)),
    "jvp_structure": lambda L, d: L.func.jvp(lambda a: a, (_x(L),), (_x(L), _x(L))),
    "jvp_empty": lambda L, d: L.func.jvp(lambda: 1, (), ()),
    "jvp_int": lambda L, d: L.func.jvp(lambda a: a, (L.ones(3, dtype=L.int64),), (L.ones(3, dtype=L.int64),)),
    "jvp_bad_tangent": lambda L, d: L.func.jvp(lambda a: a * 2, (_x(L),), (L.ones(3, dtype=L.float64),)),
    "jvp_nontensor_out": lambda L, d: L.func.jvp(lambda a: 3, (_x(L),), (_x(L),)),
    "jacrev": lambda L, d: L.func.jacrev(lambda a, b: (a.sum() * b, {"s": a * 2}), argnums=(0, 1))(
        _x(L, (3,)), _x(L, (2,))),
    "jacfwd": lambda L, d: L.func.jacfwd(lambda a, b: (a.sum() * b, {"s": a * 2}), argnums=(0, 1))(
        _x(L, (3,)), _x(L, (2,))),
    "jacrev_dict": lambda L, d: L.func.jacrev(lambda p: p["a"].exp() * 2)({"a": _x(L, (3,))}),
    "jacfwd_single": lambda L, d: L.func.jacfwd(lambda a: a.sin())(_x(L)),
    "jacrev_scalar": lambda L, d: L.func.jacrev(lambda a: a.sum() ** 2)(L.tensor(2.0, dtype=L.float64)),
    "jacrev_aux": lambda L, d: L.func.jacrev(lambda a: (a * 2, {"k": a.sum()}), has_aux=True)(_x(L, (3,))),
    "jacrev_aux_bad": lambda L, d: L.func.jacrev(lambda a: (a, 3), has_aux=True)(_x(L, (3,))),
    "jacrev_jacrev": lambda L, d: L.func.jacrev(L.func.jacrev(lambda a: (a ** 3).sum() * a))(_x(L, (3,))),
    "jacrev_chunk0": lambda L, d: L.func.jacrev(lambda a: a, chunk_size=0)(_x(L)),
    "jacfwd_int": lambda L, d: L.func.jacfwd(lambda a: a)(L.ones(3, dtype=L.int64)),
    "jacrev_int": lambda L, d: L.func.jacrev(lambda a: a)(L.ones(3, dtype=L.int64)),
    "hessian": lambda L, d: L.func.hessian(lambda a, b: (a * a).sum() * b.exp().sum(), argnums=(0, 1))(
        _x(L, (3,)), _x(L, (2,))),
    "hessian_single": lambda L, d: L.func.hessian(lambda a: (a.sin() * a).sum())(_x(L)),
}


@pytest.mark.parametrize("name", sorted(FUNC))
def test_func(name, device):
    same(FUNC[name], device)


# ---- vmap ---------------------------------------------------------------------------------------------------

VMAP = {
    "basic": lambda L, d: L.vmap(lambda a: a.sin() * 2)(_x(L, (4, 3))),
    "in_dims_tuple": lambda L, d: L.func.vmap(lambda a, b: a @ b, in_dims=(0, None))(_x(L, (4, 2, 3)),
                                                                                    _x(L, (3, 2))),
    "in_dims_1_neg": lambda L, d: L.func.vmap(lambda a, b: a * b, in_dims=(1, -1))(_x(L, (2, 5)), _x(L, (3, 5))[0]),
    "in_dims_dict": lambda L, d: L.func.vmap(lambda p: p["a"] * 2 + p["b"], in_dims=({"a": 1, "b": None},))(
        {"a": _x(L, (3, 4)), "b": _x(L, (3,))}),
    "in_dims_nested": lambda L, d: L.func.vmap(lambda t: t[0] + t[1][0], in_dims=((0, (1,)),))(
        (_x(L, (4, 3)), [_x(L, (3, 4))])),
    "out_dims": lambda L, d: L.func.vmap(lambda a: (a * 2, a.sum()), out_dims=(1, 0))(_x(L, (4, 3))),
    "out_dims_neg": lambda L, d: L.func.vmap(lambda a: a.reshape(3, 1) * 2, out_dims=-1)(_x(L, (4, 3))),
    "out_dims_none": lambda L, d: L.func.vmap(lambda a: (a, L.ones(2, dtype=L.float64)), out_dims=(0, None))(
        _x(L, (4, 3))),
    "out_dict": lambda L, d: L.func.vmap(lambda a: {"s": a.sum(), "p": [a * 2]})(_x(L, (4, 3))),
    "kwargs": lambda L, d: L.func.vmap(lambda a, b=1: a * b)(_x(L, (3, 4)), b=_x(L, (4,))),
    "nested": lambda L, d: L.func.vmap(L.func.vmap(lambda a, b: (a * b).sum()), in_dims=(0, None))(
        _x(L, (2, 3, 4)), _x(L, (3, 4))),
    "nested_inner_dims": lambda L, d: L.vmap(L.vmap(lambda a: a.exp(), in_dims=1), in_dims=0)(_x(L, (2, 3, 4))),
    "int_dtype": lambda L, d: L.vmap(lambda a: a * 2)(L.arange(6).reshape(2, 3)),
    "chunk_size": lambda L, d: L.func.vmap(lambda a: a.cumsum(0), chunk_size=2)(_x(L, (5, 3))),
    "per_sample_grads": _per_sample,
    "grad_flow": _vmap_grad_flow,
    "jacrev_in_vmap": lambda L, d: L.vmap(L.func.jacrev(lambda a: a.sin() * a.sum()))(_x(L, (2, 3))),
    "random_error": lambda L, d: _vmap_randomness(L, d, "error"),
    "dropout_error": lambda L, d: L.vmap(lambda a: L.nn.functional.dropout(a, 0.5))(_x(L, (2, 3))),
    "random_different_shape": lambda L, d: tuple(_vmap_randomness(L, d, "different").shape),
    "random_same_shape": lambda L, d: tuple(_vmap_randomness(L, d, "same").shape),
    "bad_randomness": lambda L, d: L.vmap(lambda a: a, randomness="foo")(_x(L)),
    "mismatch": lambda L, d: L.vmap(lambda a, b: a + b)(L.ones(3), L.ones(4)),
    "mismatch_dims": lambda L, d: L.vmap(lambda a, b: a, in_dims=(0, 1))(L.ones(3, 2), L.ones(2, 4)),
    "in_dims_len": lambda L, d: L.vmap(lambda a, b: a + b, in_dims=(0,))(_x(L), _x(L)),
    "in_dims_dict_keys": lambda L, d: L.vmap(lambda p: p["a"], in_dims=({"b": 1},))({"a": _x(L)}),
    "in_dims_str": lambda L, d: L.vmap(lambda a: a, in_dims="a")(_x(L)),
    "in_dims_none": lambda L, d: L.vmap(lambda a: a, in_dims=None)(_x(L)),
    "in_dims_float": lambda L, d: L.vmap(lambda a: a, in_dims=(1.0,))(_x(L)),
    "in_dim_range": lambda L, d: L.vmap(lambda a: a, in_dims=2)(_x(L)),
    "in_dim_range_neg": lambda L, d: L.vmap(lambda a: a, in_dims=-3)(_x(L)),
    "scalar_input": lambda L, d: L.vmap(lambda a: a)(L.tensor(1.0)),
    "no_inputs": lambda L, d: L.vmap(lambda: 1)(),
    "all_none": lambda L, d: L.vmap(lambda a: a, in_dims=(None,))(_x(L)),
    "nontensor_in": lambda L, d: L.vmap(lambda a, b: a, in_dims=(0, 0))(_x(L), 3),
    "nontensor_out": lambda L, d: L.vmap(lambda a: 3)(_x(L)),
    "none_out": lambda L, d: L.vmap(lambda a: None)(_x(L)),
    "out_dim_range": lambda L, d: L.vmap(lambda a: a, out_dims=5)(_x(L)),
    "out_dims_len": lambda L, d: L.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(_x(L)),
    "out_dims_none_batched": lambda L, d: L.vmap(lambda a: a, out_dims=None)(_x(L)),
    "chunk0": lambda L, d: L.vmap(lambda a: a, chunk_size=0)(_x(L)),
    "empty_batch": lambda L, d: (L.vmap(lambda a: a * 2)(L.ones(0, 3)), L.vmap(lambda a: a.sum(0))(L.ones(0, 3))),
}


@pytest.mark.parametrize("name", sorted(VMAP))
def test_vmap(name, device):
    same(VMAP[name], device)


def test_functional_call(device):
    try:
        import minigrad.nn.utils.stateless  # noqa: F401
    except ImportError:
        pytest.skip("minigrad.nn.utils.stateless (functional_call) is not there yet")

    def program(L, d):
        L.manual_seed(0)
        m = L.nn.Linear(3, 2).double().to(d)
        params = {"weight": _x(L, (2, 3)), "bias": _x(L, (2,))}
        xs = _x(L, (4, 3), step=0.1)
        out = L.func.functional_call(m, params, (xs,))
        g = L.func.grad(lambda p, x: L.func.functional_call(m, p, (x,)).sum())(params, xs)
        return out, g
    same(program, device)


# ---- torch.utils.checkpoint ---------------------------------------------------------------------------------

def _ckpt(L, d, reentrant, kw=False, dropout=False, preserve=True):
    L.manual_seed(0)
    w1 = _x(L, (4, 3), grad=True, step=0.2)
    w2 = _x(L, (3, 4), grad=True, lo=-2.0, step=0.25)
    x = _x(L, (2, 4), grad=True, lo=0.0, step=0.1)

    def seg(a, scale=1.0):
        h = (a @ w1).tanh()
        if dropout:
            h = L.nn.functional.dropout(h, 0.5)
        return (h @ w2).sin() * scale, h.sum()
    kwargs = {"scale": 2.0} if kw else {}
    o, s = L.utils.checkpoint.checkpoint(seg, x, use_reentrant=reentrant, preserve_rng_state=preserve, **kwargs)
    loss = (o ** 2).sum() + s
    loss.backward()
    return loss, x.grad, w1.grad, w2.grad


def _ckpt_no_grad_input(L, d, reentrant):
    w = _x(L, (3,), grad=True)
    y = L.utils.checkpoint.checkpoint(lambda a: (a * w).exp().sum(), _x(L, (3,)), use_reentrant=reentrant)
    if y.requires_grad:
        y.backward()
    return y, w.grad


def _ckpt_autograd_grad(L, d):
    w = _x(L, (3,), grad=True)
    x = _x(L, (3,), grad=True, lo=0.5)
    y = L.utils.checkpoint.checkpoint(lambda a: (a * w).exp().sum(), x, use_reentrant=False)
    g = L.autograd.grad(y, (x, w), create_graph=True)
    return g, L.autograd.grad(g[0].sum(), x)


def _ckpt_sequential(L, d, reentrant):
    L.manual_seed(0)
    layers = [L.nn.Linear(4, 4).double().to(d) for _ in range(4)]
    with L.no_grad():
        for i, m in enumerate(layers):
            m.weight.copy_(_x(L, (4, 4), step=0.05 * (i + 1)))
            m.bias.copy_(_x(L, (4,), step=0.1))
    model = L.nn.Sequential(layers[0], L.nn.Tanh(), layers[1], L.nn.Tanh(), layers[2], layers[3])
    x = _x(L, (3, 4), grad=True, step=0.1)
    out = L.utils.checkpoint.checkpoint_sequential(model, 2, x, use_reentrant=reentrant)
    out.sum().backward()
    return out, x.grad, [m.weight.grad for m in layers]


CKPT = {
    "reentrant": lambda L, d: _ckpt(L, d, True),
    "non_reentrant": lambda L, d: _ckpt(L, d, False),
    "non_reentrant_kwargs": lambda L, d: _ckpt(L, d, False, kw=True),
    "reentrant_kwargs": lambda L, d: _ckpt(L, d, True, kw=True),
    "default_warns": lambda L, d: L.utils.checkpoint.checkpoint(lambda a: a * 2, _x(L, grad=True)),
    "reentrant_no_grad_input": lambda L, d: _ckpt_no_grad_input(L, d, True),
    "non_reentrant_no_grad_input": lambda L, d: _ckpt_no_grad_input(L, d, False),
    "non_reentrant_autograd_grad": _ckpt_autograd_grad,
    "context_fn_reentrant": lambda L, d: L.utils.checkpoint.checkpoint(
        lambda a: a, _x(L, grad=True), use_reentrant=True, debug=True),
    "determinism_check_bad": lambda L, d: L.utils.checkpoint.checkpoint(
        lambda a: a * 2, _x(L, grad=True), use_reentrant=False, determinism_check="x"),
    "sequential_reentrant": lambda L, d: _ckpt_sequential(L, d, True),
    "sequential_non_reentrant": lambda L, d: _ckpt_sequential(L, d, False),
    "sequential_default_warns": lambda L, d: L.utils.checkpoint.checkpoint_sequential(
        [lambda a: a * 2, lambda a: a + 1], 2, _x(L, grad=True)),
    "sequential_bad_kwarg": lambda L, d: L.utils.checkpoint.checkpoint_sequential(
        [lambda a: a * 2], 1, _x(L, grad=True), use_reentrant=False, foo=1),
}


@pytest.mark.parametrize("name", sorted(CKPT))
def test_checkpoint(name, device):
    same(CKPT[name], device)


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_dropout_mask_is_recomputed(reentrant, device):
    """With preserve_rng_state the recomputation draws the forward's dropout mask again, so the
    gradients are those of the un-checkpointed function with the same seed; without it they differ."""
    L = _OnDevice(device)

    def plain(L):
        L.manual_seed(0)
        if device == "cuda":  # as checkpoint does: reading a CUDA state reseeds (minigrad/cuda.py)
            minigrad.cuda.get_rng_state()
        w1 = _x(L, (4, 3), grad=True, step=0.2)
        x = _x(L, (2, 4), grad=True, lo=0.0, step=0.1)
        h = L.nn.functional.dropout((x @ w1).tanh(), 0.5)
        (h ** 2).sum().backward()
        return x.grad.tolist(), w1.grad.tolist()

    def ck(L, preserve):
        L.manual_seed(0)
        w1 = _x(L, (4, 3), grad=True, step=0.2)
        x = _x(L, (2, 4), grad=True, lo=0.0, step=0.1)
        h = L.utils.checkpoint.checkpoint(lambda a: L.nn.functional.dropout((a @ w1).tanh(), 0.5), x,
                                          use_reentrant=reentrant, preserve_rng_state=preserve)
        (h ** 2).sum().backward()
        return x.grad.tolist(), w1.grad.tolist()
    want = plain(L)
    assert _close(ck(L, True), want, 1e-9)
    assert not _close(ck(L, False), want, 1e-9)


def test_checkpoint_frees_the_inner_graph(device):
    """The checkpointed function's own nodes are not kept between forward and backward."""
    L = _OnDevice(device)
    for reentrant in (True, False):
        x = _x(L, (3,), grad=True)
        y = L.utils.checkpoint.checkpoint(lambda a: a.sin().exp().tanh(), x, use_reentrant=reentrant)
        node = y.grad_fn
        assert node.name() in ("CheckpointFunctionBackward",)
        assert [n for n, _ in node.next_functions if n is not None] == [x.grad_fn or _acc(x)]


def _acc(t):
    from minigrad.autograd.function import accumulator
    return accumulator(t)


# ---- RNG state ---------------------------------------------------------------------------------------------

def test_rng_state_round_trip(device):
    L = _OnDevice(device)
    L.manual_seed(5)
    get = minigrad.get_rng_state if device == "cpu" else minigrad.cuda.get_rng_state
    put = minigrad.set_rng_state if device == "cpu" else minigrad.cuda.set_rng_state
    state = get()
    a, b = L.rand(5), L.randn(3)
    c = L.nn.functional.dropout(L.ones(8), 0.5)
    put(state)
    assert L.rand(5).tolist() == a.tolist() and L.randn(3).tolist() == b.tolist()
    assert L.nn.functional.dropout(L.ones(8), 0.5).tolist() == c.tolist()
    assert state.dtype == minigrad.int64 and state.device.type == "cpu" and state.dim() == 1
    assert 0 <= state.min().item() and state.max().item() <= 255
    # the same state, read after the same seed
    L.manual_seed(5)
    assert get().tolist() == state.tolist()


def test_rng_state_all_and_fork(device):
    L = _OnDevice(device)
    devices = [0] if device == "cuda" else []
    L.manual_seed(1)
    with minigrad.random.fork_rng(devices=devices):
        pass
    before = L.rand(4).tolist()
    L.manual_seed(1)
    with minigrad.random.fork_rng(devices=devices):
        L.rand(10)
    assert L.rand(4).tolist() == before
    if device == "cuda":
        states = minigrad.cuda.get_rng_state_all()
        a = L.rand(3).tolist()
        minigrad.cuda.set_rng_state_all(states)
        assert L.rand(3).tolist() == a
        assert len(states) == minigrad.cuda.device_count() and tuple(states[0].shape) == (16,)


def test_cpu_rng_state_covers_randperm_and_generators():
    s = minigrad.get_rng_state()
    p = minigrad.randperm(10).tolist()
    minigrad.set_rng_state(s)
    assert minigrad.randperm(10).tolist() == p
    g = minigrad.Generator().manual_seed(3)
    st = g.get_state()
    x = minigrad.rand(4, generator=g).tolist()
    assert g.set_state(st) is g
    assert minigrad.rand(4, generator=g).tolist() == x
    assert minigrad.default_generator.get_state().tolist() == minigrad.get_rng_state().tolist()
    minigrad.manual_seed(123)
    assert minigrad.initial_seed() == 123 == minigrad.random.initial_seed()


def test_set_rng_state_errors():
    with pytest.raises(TypeError, match="expected a minigrad.LongTensor, but got list"):
        minigrad.set_rng_state([1, 2])
    with pytest.raises(TypeError, match="RNG state must be a minigrad.LongTensor"):
        minigrad.set_rng_state(minigrad.zeros(88))
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 88 but found the input RNG "
                                           "state size to be 10"):
        minigrad.set_rng_state(minigrad.zeros(10, dtype=minigrad.int64))
    # torch's errors, with its own type and size
    with pytest.raises(TypeError, match="expected a torch.ByteTensor, but got list"):
        torch.set_rng_state([1, 2])
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056 but found"):
        torch.set_rng_state(torch.zeros(10, dtype=torch.uint8))
