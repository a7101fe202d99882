"""Hooks and graph tools: nn.Module backward hooks (full, pre, global, deprecated) and state-dict
hooks, Node hooks, Tensor.register_post_accumulate_grad_hook, torch.autograd.graph (saved-tensor
hooks, save_on_cpu, disable_saved_tensors_hooks, register_multi_grad_hook) and anomaly detection.
Each program runs under minigrad (on every device) and under torch: what it records (the call
order and arguments of the hooks, values, gradients, grad_fn names, errors and warnings) must
agree."""
import math
import warnings

import pytest

import minigrad

torch = pytest.importorskip("torch")


# ---- harness ------------------------------------------------------------------------------------

def _plain(x):
    """x with tensors as (dtype name, nested lists) and library names made neutral."""
    if isinstance(x, (minigrad.Tensor, torch.Tensor)):
        x = x.detach()
        return ("T", str(x.dtype).split(".")[-1], x.cpu().tolist())
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, str):
        return x.replace("minigrad", "torch").replace("torch.cuda.", "torch.")  # torch runs on the CPU here
    if isinstance(x, (minigrad.Size, torch.Size)):
        return list(x)
    return x


def _close(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return a == b


def _run(program, L, d):
    log = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            program(L, d, log)
        except Exception as e:  # the error is part of the outcome
            log.append(("raised", type(e).__name__, str(e)))
    ours = [(w.category.__name__, str(w.message).split("\n")[0]) for w in caught
            if "minigrad" in w.filename or "torch" in w.filename or "test_hooks" in w.filename]
    ours = [w for w in ours if not w[1].startswith("invalid value encountered")]
    return _plain(log), _plain(ours)


def same(program, device):
    got = _run(program, minigrad, device)
    want = _run(program, torch, "cpu")
    assert _close(got, want), (got, want)
    return got


def _leaf(L, d, values, dtype=None):
    return L.tensor(values, dtype=dtype or L.float64, device=d).requires_grad_()


def _g(gs):
    return [None if g is None else g for g in gs]


# ---- Module full backward hooks -----------------------------------------------------------------

def _two_in_two_out(L, d, log, k=3.0, use_second=True):
    class M(L.nn.Module):
        def forward(self, a, b, k=1.0):
            return a * b * k, a + b

    m = M()
    m.register_full_backward_hook(lambda mod, gi, go: log.append(("full", mod is m, _g(gi), _g(go))))

    def pre(mod, go):
        log.append(("pre", _g(go)))
        return tuple(g * 2 if g is not None else None for g in go)
    m.register_full_backward_pre_hook(pre)
    a = _leaf(L, d, [1.0, 2.0])
    b = L.tensor([3.0, 4.0], dtype=L.float64, device=d)
    o1, o2 = m(a, b, k=k)
    log.append((type(o1.grad_fn).__name__, type(o2.grad_fn).__name__, o1.grad_fn.next_functions[0][0].name()))
    loss = o1.sum() + o2.sum() if use_second else o1.sum()
    loss.backward()
    log.append(a.grad)


@pytest.mark.parametrize("use_second", [True, False])
def test_full_backward_hook_multiple_inputs_outputs(device, use_second):
    same(lambda L, d, log: _two_in_two_out(L, d, log, use_second=use_second), device)


def test_full_backward_hook_replaces_grad_input(device):
    def program(L, d, log):
        L.manual_seed(0)
        lin = L.nn.Linear(2, 3).double().to(d)
        with L.no_grad():
            lin.weight.copy_(L.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]], dtype=L.float64))
            lin.bias.zero_()
        x = _leaf(L, d, [[1.0, 2.0]])
        h = lin.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10,))
        lin(x).sum().backward()
        log.append(x.grad)
        h.remove()
        x.grad = None
        lin(x).sum().backward()
        log.append(x.grad)
    same(program, device)


def test_full_backward_hook_no_input_requires_grad(device):
    def program(L, d, log):
        lin = L.nn.Linear(2, 1).double().to(d)
        lin.register_full_backward_hook(lambda mod, gi, go: log.append(("full", gi, [g.shape for g in go])))
        lin(L.ones(1, 2, dtype=L.float64, device=d)).sum().backward()
        log.append(lin.weight.grad is not None)
    same(program, device)


def test_full_backward_hook_errors(device):
    def program(L, d, log):
        x = _leaf(L, d, [[1.0, 2.0]])
        lin = L.nn.Linear(2, 1).double().to(d)
        lin.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
        try:
            lin(x).sum().backward()
        except RuntimeError as e:
            log.append(str(e))
        lin2 = L.nn.Linear(2, 1).double().to(d)
        lin2.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
        try:
            lin2(x).sum().backward()
        except RuntimeError as e:
            log.append(str(e))
        lin3 = L.nn.Linear(2, 2).double().to(d)
        lin3.register_backward_hook(lambda *a: None)
        try:
            lin3.register_full_backward_hook(lambda *a: None)
        except RuntimeError as e:
            log.append(str(e))
        lin4 = L.nn.Linear(2, 2).double().to(d)
        lin4.register_full_backward_hook(lambda *a: None)
        y = lin4(x)
        y.add_(1)  # torch forbids modifying the output of a hooked module in place
    same(program, device)


def test_full_backward_hook_order_prepend_and_sequential(device):
    def program(L, d, log):
        L.manual_seed(0)
        seq = L.nn.Sequential(L.nn.Linear(2, 3), L.nn.ReLU(), L.nn.Linear(3, 1)).double().to(d)
        for i, mod in enumerate(seq):
            mod.register_full_backward_hook(
                lambda mod, gi, go, i=i: log.append((i, [None if g is None else list(g.shape) for g in gi],
                                                     [list(g.shape) for g in go])))
        seq[0].register_full_backward_hook(lambda *a: log.append("first"), prepend=True)
        seq[0].register_full_backward_pre_hook(lambda *a: log.append("pre-b"))
        seq[0].register_full_backward_pre_hook(lambda *a: log.append("pre-a"), prepend=True)
        seq(_leaf(L, d, [[1.0, 2.0]])).sum().backward()
    same(program, device)


def test_deprecated_backward_hook(device):
    def program(L, d, log):
        lin = L.nn.Linear(2, 2).double().to(d)
        lin.register_backward_hook(lambda mod, gi, go: log.append(("old", len(gi), [list(g.shape) for g in go])))
        lin(_leaf(L, d, [[1.0, 2.0]])).sum().backward()

        class Two(L.nn.Module):
            def forward(self, a):
                return a * 2, a * 3
        two = Two()
        two.register_backward_hook(lambda mod, gi, go: log.append(("two", len(gi), len(go))))
        p, q = two(_leaf(L, d, [1.0]))
        (p + q).sum().backward()
    same(program, device)


def test_global_module_hooks(device):
    def program(L, d, log):
        M = L.nn.modules.module
        handles = [M.register_module_full_backward_hook(lambda mod, gi, go: log.append("global")),
                   M.register_module_forward_hook(lambda mod, i, o: log.append("gfwd")),
                   M.register_module_forward_pre_hook(lambda mod, i: log.append("gpre")),
                   M.register_module_full_backward_pre_hook(lambda mod, go: log.append("gbpre"))]
        try:
            lin = L.nn.Linear(2, 2).double().to(d)
            lin.register_full_backward_hook(lambda mod, gi, go: log.append("local"))
            lin.register_full_backward_pre_hook(lambda mod, go: log.append("lbpre"))
            lin.register_forward_hook(lambda mod, i, o: log.append("lfwd"))
            x = _leaf(L, d, [[1.0, 2.0]])
            lin(x).sum().backward()
            try:
                M.register_module_backward_hook(lambda *a: None)
            except RuntimeError as e:
                log.append(str(e))
        finally:
            for h in handles:
                h.remove()
        log.append("removed")
        lin(x).sum().backward()
        plain = L.nn.Linear(2, 2).double().to(d)
        plain(x)
    same(program, device)


# ---- state dict hooks ---------------------------------------------------------------------------

def test_state_dict_hooks(device):
    def program(L, d, log):
        lin = L.nn.Linear(2, 2).to(d)
        lin.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre", prefix, keep_vars)))
        lin.register_state_dict_post_hook(lambda mod, sd, prefix, md: log.append(("post", list(sd), prefix)))
        outer = L.nn.Sequential(lin)
        sd = outer.state_dict()
        log.append(list(sd))
        bad = L.nn.Linear(2, 2)
        bad.register_state_dict_post_hook(lambda *a: 5)
        try:
            bad.state_dict()
        except RuntimeError as e:
            log.append(str(e))

        def f(*a):
            return None
        bad.register_state_dict_post_hook(f)
        try:
            bad._register_state_dict_hook(f)
        except RuntimeError as e:
            log.append(str(e))
        priv = L.nn.Linear(2, 2)
        priv._register_state_dict_hook(lambda mod, sd, prefix, md: {"replaced": 1})
        log.append(priv.state_dict())
        lin.register_load_state_dict_post_hook(lambda mod, ik: log.append(("loadpost", list(ik.missing_keys),
                                                                           list(ik.unexpected_keys))))
        outer.load_state_dict(sd)
        lin.register_load_state_dict_post_hook(lambda mod, ik: ik.missing_keys.clear())
        log.append(str(outer.load_state_dict({"0.weight": sd["0.weight"]})))
        lin.register_load_state_dict_post_hook(lambda mod, ik: 1)
        outer.load_state_dict(sd)
    same(program, device)


# ---- Node hooks, post-accumulate-grad hooks ----------------------------------------------------

def test_node_hooks(device):
    def program(L, d, log):
        x, y = _leaf(L, d, [1.0, 2.0, 3.0]), L.tensor([2.0, -1.0, 0.5], dtype=L.float64, device=d)
        z = x * y
        log.append((z.grad_fn.name(), isinstance(z.grad_fn, L.autograd.graph.Node), z.grad_fn.metadata))
        z.grad_fn.register_prehook(lambda go: log.append(("pre", go)))
        h = z.grad_fn.register_hook(lambda gi, go: log.append(("post", gi, go)))
        z.grad_fn.register_hook(lambda gi, go: (gi[0] * 2, None))
        z.sum().backward(retain_graph=True)
        log.append(x.grad)
        h.remove()
        x.grad = None
        z.sum().backward()
        log.append(x.grad)
        acc = (x * 2).grad_fn.next_functions[0][0]
        acc.register_prehook(lambda go: log.append(("accpre", go)))
        acc.register_hook(lambda gi, go: log.append(("accpost", gi, go)))
        (x * 2).sum().backward()
    same(program, device)


@pytest.mark.parametrize("case", ["count", "count-pre", "not-tuple", "size", "dtype", "type"])
def test_node_hook_errors(device, case):
    def program(L, d, log):
        x, y = _leaf(L, d, [1.0, 2.0, 3.0], L.float32), L.tensor([2.0, -1.0, 0.5], device=d)
        z = x * y
        fn = z.grad_fn
        if case == "count":
            fn.register_hook(lambda gi, go: (gi[0], gi[0], gi[0]))
        elif case == "count-pre":
            fn.register_prehook(lambda go: (go[0], go[0]))
        elif case == "not-tuple":
            fn.register_prehook(lambda go: go[0])
        elif case == "size":
            fn.register_hook(lambda gi, go: (L.ones(2, device=d), None))
        elif case == "dtype":
            fn.register_hook(lambda gi, go: (L.ones(3, dtype=L.float64, device=d), None))
        else:
            fn.register_hook(lambda gi, go: ("a", None))
        z.sum().backward()
    same(program, device)


def test_post_accumulate_grad_hook(device):
    def program(L, d, log):
        w = _leaf(L, d, [1.0, 2.0])
        h = w.register_post_accumulate_grad_hook(lambda t: log.append(("post", t is w, t.grad)))
        w.register_hook(lambda g: log.append(("pre", g)))
        (w * 3).sum().backward()
        (w * 3).sum().backward()
        log.append(L.autograd.grad((w * 3).sum(), w))
        h.remove()
        (w * 3).sum().backward()
        log.append(w.grad)
        for make in (lambda: w * 3, lambda: L.ones(2, device=d)):
            try:
                make().register_post_accumulate_grad_hook(lambda t: None)
            except RuntimeError as e:
                log.append(str(e))
        v = _leaf(L, d, [1.0])
        v.register_post_accumulate_grad_hook(lambda t: 5)
        (v * 2).sum().backward()
    same(program, device)


# ---- saved tensor hooks -------------------------------------------------------------------------

def test_saved_tensors_hooks(device):
    def program(L, d, log):
        G = L.autograd.graph
        x, y = _leaf(L, d, [1.0, 2.0, 0.5]), _leaf(L, d, [3.0, -1.0, 2.0])
        calls = []

        def pack(t):
            calls.append(("pack", L.is_grad_enabled()))
            return ("boxed", t * 1)

        def unpack(p):
            calls.append("unpack")
            return p[1]
        with G.saved_tensors_hooks(pack, unpack):
            z = x * y
            e = z.exp()
            with L.no_grad():
                x * y  # nothing recorded, nothing saved
        log.append(sorted(map(str, calls)))
        calls.clear()
        e.sum().backward()
        log.append(calls)
        log.append((x.grad, y.grad))
    same(program, device)


def test_saved_tensors_hooks_custom_function_and_nesting(device):
    def program(L, d, log):
        G = L.autograd.graph

        class F(L.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return a * b

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                return g * b, g * a
        x, y = _leaf(L, d, [1.0, 2.0]), _leaf(L, d, [3.0, 4.0])
        with G.saved_tensors_hooks(lambda t: log.append("outer") or t, lambda t: t):
            with G.saved_tensors_hooks(lambda t: log.append("p") or t, lambda t: log.append("u") or t):
                r = F.apply(x, y)
        r.sum().backward()
        log.append((x.grad, y.grad))
        # identity hooks: no version check, as torch (the in-place change is not seen)
        with G.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
            a = x * 1
            b = a * y
        a.add_(1)
        b.sum().backward()
        log.append(y.grad)
        with G.saved_tensors_hooks(lambda t: t, lambda t: 5):
            b = x * y
        b.sum().backward()
    same(program, device)


def test_saved_tensors_hooks_errors(device):
    def program(L, d, log):
        G = L.autograd.graph
        x, y = _leaf(L, d, [1.0, 2.0]), _leaf(L, d, [3.0, 4.0])
        with G.disable_saved_tensors_hooks("no hooks here"):
            try:
                with G.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
            except RuntimeError as e:
                log.append(str(e))
            log.append((x * y).sum().item())
        with G.saved_tensors_hooks(lambda t: t, lambda t: t):
            try:
                with G.disable_saved_tensors_hooks("inside"):
                    pass
            except RuntimeError as e:
                log.append(str(e))

        def bad(t):
            t.add_(1)
            return t
        with G.saved_tensors_hooks(bad, lambda t: t):
            x.detach().requires_grad_() * y
    same(program, device)


def test_save_on_cpu(device):
    def program(L, d, log):
        x, y = _leaf(L, d, [1.0, 2.0]), _leaf(L, d, [3.0, 4.0])
        with L.autograd.graph.save_on_cpu(pin_memory=False):
            z = (x * y).exp().sum()
        z.backward()
        log.append((x.grad, y.grad, str(x.grad.device).split(":")[0] == d))
    same(program, device)


def test_checkpoint_drops_saved_tensors(device):
    """Inside a non-reentrant checkpoint the ops' saved tensors go to the checkpoint's own hooks
    (innermost), never to the caller's: torch's caller hooks see only the one input it saves."""
    def program(L, d, log):
        x = _leaf(L, d, [1.0, 2.0, 3.0])
        counted = []
        with L.autograd.graph.saved_tensors_hooks(lambda t: counted.append(list(t.shape)) or t, lambda t: t):
            out = L.utils.checkpoint.checkpoint(lambda a: (a * 2).exp().sin().sum(), x, use_reentrant=False)
            log.append(counted in ([], [[3]]))
            log.append((x * 1).exp().sum().item())  # after it, the caller's hooks see saves again
            log.append(len(counted) > 0)
        out.backward()
        log.append(x.grad)
    same(program, device)


# ---- multi grad hooks, increment_version --------------------------------------------------------

def test_register_multi_grad_hook(device):
    def program(L, d, log):
        G = L.autograd.graph
        a, b, c = _leaf(L, d, [1.0, 2.0]), _leaf(L, d, [3.0, 4.0]), _leaf(L, d, [5.0, 6.0])
        h = G.register_multi_grad_hook((a, b, c), lambda gs: log.append(("all", list(gs))))
        (a * 2 + b * 3).sum().backward()
        (c * 4).sum().backward()
        h.remove()
        (a * 2).sum().backward()
        G.register_multi_grad_hook((a, b), lambda g: log.append(("any", g)), mode="any")
        (a * 2 + b * 3).sum().backward()
        try:
            G.register_multi_grad_hook((a,), lambda g: None, mode="x")
        except ValueError as e:
            log.append(str(e))
        v = L.ones(2, device=d)
        G.increment_version(v)
        G.increment_version([v, v])
        log.append(v._version)
    same(program, device)


# ---- anomaly detection --------------------------------------------------------------------------

def test_detect_anomaly_flags(device):
    def program(L, d, log):
        log.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
        with L.autograd.detect_anomaly():
            log.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
        with L.autograd.detect_anomaly(check_nan=False):
            log.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
        log.append(L.is_anomaly_enabled())
        with L.autograd.set_detect_anomaly(True, check_nan=False):
            log.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
        log.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
        L.autograd.set_detect_anomaly(True)
        log.append(L.is_anomaly_enabled())
        L.autograd.set_detect_anomaly(False)
        log.append(L.is_anomaly_enabled())
    same(program, device)


@pytest.mark.parametrize("case", ["nan-custom", "raise", "no-nan-check", "clean"])
def test_detect_anomaly_backward(device, case):
    def program(L, d, log):
        x = _leaf(L, d, [0.5, 1.0])

        class F(L.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a.clone()

            @staticmethod
            def backward(ctx, g):
                if case == "raise":
                    raise ValueError("boom")
                return g * float("nan")
        with L.autograd.detect_anomaly(check_nan=case != "no-nan-check"):
            if case == "clean":
                (x * x).exp().sum().backward()
            else:
                out = F.apply(x)
                out.sum().backward()
            log.append(x.grad)
    got = same(program, device)
    if case in ("nan-custom", "raise"):
        assert any(w[1].startswith("Error detected in FBackward. Traceback of forward call") for w in got[1])


def test_detect_anomaly_traceback_names_forward_line():
    x = minigrad.tensor([0.5, 1.0], requires_grad=True)

    class F(minigrad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.clone()

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with minigrad.autograd.detect_anomaly():
            y = F.apply(x)  # the forward call the warning names
            with pytest.raises(RuntimeError, match=r"Function 'FBackward' returned nan values in its 0th output\."):
                y.sum().backward()
    msgs = [str(w.message) for w in caught if "Error detected" in str(w.message)]
    assert len(msgs) == 1 and "y = F.apply(x)  # the forward call the warning names" in msgs[0]
    assert not minigrad.is_anomaly_enabled()
