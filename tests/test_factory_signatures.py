"""The factory functions take the arguments torch's do, by position or keyword, and refuse the
rest with torch's TypeError: size= (zeros(size=(2, 3))), randint(high=, size=), arange(end=),
layout=minigrad.strided, pin_memory=, out=None, and the *_like and Tensor.new_* forms; also
median/mode/aminmax's non-integer dim. Other ops take their arguments by torch's keyword names
(sum(input=x), x.mm(mat2=m), pow(self=2, exponent=t), x.view(size=...)). Each call runs in both libraries: the result's shape and
dtype, or the exception's type and whole message (torch's names read as minigrad's), must match."""
import pytest

import minigrad

torch = pytest.importorskip("torch")

CALLS = []
for _f in ("zeros", "ones", "empty", "rand", "randn"):
    CALLS += [f"L.{_f}(size=(2, 3))", f"L.{_f}(size=[])", f"L.{_f}(size=L.Size([2]))", f"L.{_f}(2, 3, layout=L.strided)",
              f"L.{_f}(2, layout=None, pin_memory=None, requires_grad=None, dtype=None, device=None)",
              f"L.{_f}(2, out=None)", f"L.{_f}((2, 3), dtype=L.float64)", f"L.{_f}([2, 3])", f"L.{_f}(L.tensor([3]))",
              f"L.{_f}()", f"L.{_f}(dtype=L.float64)", f"L.{_f}(2, size=(2,))", f"L.{_f}(size=3)", f"L.{_f}(2.0)",
              f"L.{_f}(-1)", f"L.{_f}(2, -1)", f"L.{_f}((2,), 3)", f"L.{_f}(L.tensor([3, 2]))", f"L.{_f}(L.tensor(3.))",
              f"L.{_f}(2, layout=1)", f"L.{_f}(2, pin_memory=1)", f"L.{_f}(2, out=1)"]
    if _f in ("zeros", "ones", "empty"):  # (rand's and randn's overloads: torch words an unknown keyword otherwise)
        CALLS.append(f"L.{_f}(2, bogus=1)")
CALLS += [
    "L.rand(2, generator=1)", "L.randn(size=(2,), generator=None)",
    "L.full(size=(2,), fill_value=3)", "L.full((2,), 3, layout=L.strided)", "L.full((2,), 3.5, pin_memory=False)",
    "L.full(2, 3)", "L.full((2,))", "L.full(fill_value=3)", "L.full((2,), 3, size=(2,))", "L.full((-1,), 2)",
    "L.randint(5, size=(2,))", "L.randint(1, 5, (2,), layout=L.strided)", "L.randint(low=1, high=5, size=(2,))",
    "L.randint(high=5, size=(2,))", "L.randint(5, (2,), pin_memory=False)", "L.randint(1, 5, size=(2,))",
    "L.randint(3)", "L.randint(1, 2, 3, 4)", "L.randint(5, 2)", "L.randint(low=1, size=(2,))", "L.randint(3, (-1,))",
    "L.arange(5, layout=L.strided)", "L.arange(start=1, end=5)", "L.arange(end=5)", "L.arange(5, pin_memory=False)",
    "L.arange(1, 7, step=2)", "L.arange()", "L.arange(1, 5, 2, end=3)", "L.arange(end=5, step=2)",
    "L.arange(None)", "L.arange(1, None)", "L.arange('a')", "L.arange(end=None)", "L.arange(0, 1, 0.25)",
    "L.linspace(0, 1, 5, layout=L.strided)", "L.linspace(start=0, end=1, steps=5)", "L.logspace(0, 1, steps=5)",
    "L.eye(3, layout=L.strided)", "L.eye(n=3, m=2)", "L.eye(3, pin_memory=False)", "L.eye(3, layout=2)",
    "L.zeros_like(L.ones(2), layout=L.strided)", "L.randn_like(L.ones(2), layout=L.strided)",
    "L.full_like(L.ones(2), 3, layout=L.strided)", "L.empty_like(L.ones(2), pin_memory=False)",
    "L.zeros_like(input=L.ones(2))", "L.ones_like(L.ones(2), layout=2)",
    "L.randperm(5, layout=L.strided)", "L.randperm(n=5)", "L.empty_strided((2,), (1,), layout=L.strided)",
    "L.ones(2).new_zeros(3, layout=L.strided)", "L.ones(2).new_ones(size=(3,))", "L.ones(2).new_empty((3,), pin_memory=False)",
    "L.ones(2).new_full((3,), 2, layout=L.strided)", "L.ones(2).new_full(size=(2,), fill_value=3)",
    "L.ones(2).new_tensor([1], pin_memory=False)",
    "L.ones(3, 4).median((0, 1))", "L.median(L.ones(3, 4), (0, 1))", "L.ones(3, 4).median(1.5)",
    "L.ones(3, 4).median(dim='a')", "L.ones(3, 4).nanmedian(dim=(1,))", "L.ones(3, 4).mode((0, 1))",
    "L.mode(L.ones(3, 4), (0, 1))", "L.aminmax(L.ones(3, 4), dim=(0, 1))", "L.ones(3, 4).aminmax(dim=1.5)",
    "L.ones(3, 4).median(1)", "L.mode(L.ones(3, 4), 0, True)", "L.ones(3, 4).aminmax(dim=0)",
]


# other ops by keyword, with torch's parameter names (input=, mat2=, exponent=, size=, ...)
KEYWORD_CALLS = [
    "L.sum(input=x, dim=0)", "L.mean(input=x, dim=1, keepdim=True, dtype=L.float64)", "L.prod(input=x, dim=1)",
    "L.max(input=x, dim=0)", "L.max(input=x, other=y)", "L.min(input=x)", "L.argmax(input=x)",
    "L.amax(input=x, dim=1, keepdim=True)", "L.amin(input=x, dim=0)", "L.argmin(input=x, dim=1)",
    "L.any(input=x > 0, dim=1)", "L.all(input=x > -1)", "L.var(input=x, dim=1)", "L.std(input=x)",
    "L.softmax(input=x, dim=1)", "L.log_softmax(input=x, dim=1)", "L.chunk(input=x, chunks=2, dim=1)",
    "L.transpose(input=x, dim0=0, dim1=1)", "L.unsqueeze(input=x, dim=1)", "L.flatten(input=x, start_dim=1)",
    "L.squeeze(input=x.unsqueeze(0), dim=0)", "L.diagonal(input=x, offset=1, dim1=0, dim2=1)",
    "L.as_strided(input=x, size=(2, 2), stride=(1, 2))", "L.adjoint(input=x)", "L.conj(input=x)",
    "L.resolve_neg(input=x)", "L.linalg.norm(input=x, ord=2, dim=1)", "L.pow(self=2, exponent=x)",
    "L.pow(input=x, exponent=2)", "L.pow(x, exponent=3)", "L.pow(2, x)", "L.pow(exponent=x)",
    "L.pow(x, self=2, exponent=x)", "L.pow(x, 2, 3)", "x.pow(exponent=3)", "x.mm(mat2=y.t())",
    "x.unsqueeze(0).bmm(mat2=y.t().unsqueeze(0))", "x[0].dot(tensor=y[0])", "x.view(size=(4, 3))",
    "x.view((4, 3), size=(12,))", "x.view(bogus=1)", "x.view(size=(6, 2), dtype=L.float32)",
    "F.one_hot(input=i, num_classes=4)", "L.cumsum(input=x, dim=1)", "L.sort(input=x, dim=1)",
    "L.topk(input=x, k=2)", "L.median(input=x, dim=0)", "L.permute(input=x, dims=(1, 0))",
]


def keyword_outcome(L, call):
    import numpy as np
    x = L.tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 7 - 0.5)
    y = L.tensor(np.ones((3, 4), np.float32) * 0.5)
    i = L.tensor(np.array([0, 2, 1]))
    try:
        r = eval(call, {"L": L, "x": x, "y": y, "i": i, "F": L.nn.functional})
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e).__name__, str(e).replace("torch.", "minigrad.")
    rs = r if isinstance(r, tuple) else (r,)
    return [(tuple(t.shape), str(t.dtype).split(".")[-1], np.asarray(t.detach().numpy(), float).round(5).tolist())
            for t in rs]


@pytest.mark.parametrize("call", KEYWORD_CALLS)
def test_keyword_call_as_torch(call):
    assert keyword_outcome(minigrad, call) == keyword_outcome(torch, call)


def outcome(L, call):
    try:
        r = eval(call, {"L": L})
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e).__name__, str(e).replace("torch.", "minigrad.")
    if isinstance(r, tuple):
        return "ok", [(tuple(t.shape), str(t.dtype).split(".")[-1]) for t in r]
    return "ok", tuple(r.shape), str(r.dtype).split(".")[-1], str(r.layout).split(".")[-1]


@pytest.mark.parametrize("call", CALLS)
def test_factory_call_as_torch(call):
    if "pin_memory=True" in call and minigrad.cuda.is_available():
        pytest.skip("torch's CPU build answers for a machine without a GPU")
    assert outcome(minigrad, call) == outcome(torch, call)


def test_layout_is_strided_and_pickles_by_name():
    import pickle
    assert minigrad.ones(2).layout is minigrad.strided and repr(minigrad.strided) == "minigrad.strided"
    assert isinstance(minigrad.strided, minigrad.layout)
    assert pickle.loads(pickle.dumps(minigrad.strided)) is minigrad.strided
    assert not minigrad.ones(2).is_sparse


@pytest.mark.skipif(minigrad.cuda.is_available(), reason="checks the machine without a GPU")
@pytest.mark.parametrize("call", ["L.zeros(2, pin_memory=True)", "L.ones(2).new_zeros(2, pin_memory=True)",
                                  "L.zeros_like(L.ones(2), pin_memory=True)", "L.arange(3, pin_memory=True)"])
def test_pin_memory_needs_an_accelerator(call):
    assert outcome(minigrad, call) == outcome(torch, call)


def test_pin_memory_pins_a_cpu_result_where_a_gpu_is(monkeypatch):
    monkeypatch.setattr(minigrad.cuda, "is_available", lambda: True)
    assert minigrad.zeros(2, pin_memory=True).is_pinned()
    assert minigrad.ones(2).new_empty(3, pin_memory=True).is_pinned()
    assert not minigrad.zeros(2).is_pinned()
