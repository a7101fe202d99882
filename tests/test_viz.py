"""minigrad.viz.make_dot: the structure of the drawn graph (nodes, edges, labels, clusters),
checked on the DOT source; and, where Graphviz's `dot` program is installed, a rendered SVG."""
import math
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from collections import Counter

import numpy as np
import pytest

graphviz = pytest.importorskip("graphviz", reason="minigrad.viz needs the graphviz Python package")

import minigrad
from minigrad import viz
from minigrad.autograd import Function

HAVE_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAVE_DOT, reason="Graphviz's `dot` program is not installed "
                               "(apt install graphviz)")


# ---- reading the DOT source back --------------------------------------------------------------

_QUOTED = r'"((?:[^"\\]|\\.)*)"'
_NODE = re.compile(r"^\s*(\w+) \[label=(?:" + _QUOTED + r"|(\w+))(.*)\]$")
_EDGE = re.compile(r"^\s*(\w+) -> (\w+)(?: \[(.*)\])?$")
_GRAPH_LABEL = re.compile(r"\blabel=(?:" + _QUOTED + r"|(\w+))")


class Drawn:
    """The nodes, edges and clusters of a make_dot graph, parsed from its DOT source."""

    def __init__(self, dot):
        self.nodes = {}      # name -> {"lines": [...], "attrs": str, "clusters": (label, ...)}
        self.edges = []      # (tail, head, attrs or "")
        self.clusters = []   # (label, ...) paths of the clusters, outermost first
        self.caption = None
        stack = []
        for line in dot.source.splitlines():
            s = line.strip()
            if s.startswith("subgraph "):
                stack.append(None)
            elif s == "}":
                if stack:
                    stack.pop()
            elif s.startswith("graph ["):
                m = _GRAPH_LABEL.search(s)
                label = (m.group(1) if m.group(1) is not None else m.group(2)) if m else None
                if stack:
                    stack[-1] = label
                    self.clusters.append(tuple(stack))
                else:
                    self.caption = label
            elif (m := _EDGE.match(line)):
                self.edges.append((m.group(1), m.group(2), m.group(3) or ""))
            elif (m := _NODE.match(line)):
                label = m.group(2) if m.group(2) is not None else m.group(3)
                self.nodes[m.group(1)] = {"lines": label.split("\\n"), "attrs": m.group(4),
                                          "clusters": tuple(stack)}

    def named(self, first_line):
        return [n for n, d in self.nodes.items() if d["lines"][0] == first_line]

    def one(self, first_line):
        found = self.named(first_line)
        assert len(found) == 1, (first_line, found)
        return found[0]

    def color(self, name):
        m = re.search(r"fillcolor=(\w+)", self.nodes[name]["attrs"])
        return m.group(1) if m else None

    def kind(self, name):
        """op name, or "leaf" / "output" / "saved" by colour."""
        return {viz.LEAF_COLOR: "leaf", viz.OUTPUT_COLOR: "output",
                viz.SAVED_COLOR: "saved"}.get(self.color(name), self.nodes[name]["lines"][0])

    def flow_edges(self):
        """Edges of the data flow (not the dashed ones to saved tensors), by node kind."""
        return Counter((self.kind(t), self.kind(h)) for t, h, a in self.edges if "dir=none" not in a)

    def saved_of(self, op):
        return [h for t, h, a in self.edges if t == op and "dir=none" in a]


def seed_graph(device="cpu"):
    """Seed 003: y = mean((x + 2) ** 2 + 3)."""
    x = minigrad.arange(1, 4, dtype=minigrad.float32, requires_grad=True, device=device)
    y = (((x + 2) ** 2) + 3).mean()
    return x, y


# ---- structure --------------------------------------------------------------------------------

def test_seed_003_graph_nodes_and_edges():
    x, y = seed_graph()
    dot = viz.make_dot(y, params={"x": x})
    assert isinstance(dot, graphviz.Digraph)
    g = Drawn(dot)
    assert sorted(d["lines"][0] for d in g.nodes.values()) == sorted(
        ["x", "AddBackward0", "PowBackward0", "AddBackward0", "MeanBackward0", "output"])
    # the chain x -> +2 -> **2 -> +3 -> mean -> output, and nothing else
    name = {n: d["lines"][0] for n, d in g.nodes.items()}
    succ = {t: h for t, h, _ in g.edges}
    assert len(succ) == len(g.edges) == 5
    chain, n = [], g.one("x")
    while n is not None:
        chain.append(name[n])
        n = succ.get(n)
    assert chain == ["x", "AddBackward0", "PowBackward0", "AddBackward0", "MeanBackward0", "output"]
    assert g.nodes[g.one("x")]["lines"][1:] == ["(3) float32 cpu"]
    assert g.nodes[g.one("output")]["lines"][1:] == ["() float32 cpu"]
    assert g.color(g.one("x")) == viz.LEAF_COLOR == "lightblue"
    assert g.color(g.one("output")) == viz.OUTPUT_COLOR


def _torch_structure(outputs, torch):
    """Counters of the edges (as Drawn.flow_edges) and of the op nodes of torch's own graph,
    with each AccumulateGrad folded into its leaf, and the number of leaves."""
    edges, ops, leaves = Counter(), Counter(), set()
    seen, stack = set(), []

    def kind(fn):
        return "leaf" if hasattr(fn, "variable") else fn.name()

    for o in outputs:
        edges[(kind(o.grad_fn), "output")] += 1
        stack.append(o.grad_fn)
    while stack:
        fn = stack.pop()
        if hasattr(fn, "variable"):
            leaves.add(fn)
        if fn in seen or hasattr(fn, "variable"):
            continue
        seen.add(fn)
        ops[fn.name()] += 1
        for nxt, _ in fn.next_functions:
            if nxt is not None:
                edges[(kind(nxt), fn.name())] += 1
                stack.append(nxt)
    return edges, ops, len(leaves)


GRAPHS = {
    "seed003": lambda t, x, w: (((x + 2) ** 2) + 3).mean(),
    "shared": lambda t, x, w: (x * w + w.sin()).sum(1),
    "unary": lambda t, x, w: (x.tanh() * x.exp() - (x / w).sigmoid()).mean(0).relu(),
    "matmul": lambda t, x, w: t.softmax(x @ w.transpose(0, 1), dim=1).sum(),
    "tuple": lambda t, x, w: ((x * w).sum(), (x * w).exp()),
}


@pytest.mark.parametrize("build", GRAPHS.values(), ids=GRAPHS.keys())
def test_nodes_and_edges_match_torch(build):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    xs, ws = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    x, w = minigrad.tensor(xs, requires_grad=True), minigrad.tensor(ws, requires_grad=True)
    ours = build(minigrad, x, w)
    theirs = build(torch, torch.tensor(xs, requires_grad=True), torch.tensor(ws, requires_grad=True))
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    g = Drawn(viz.make_dot(ours))
    expected, expected_ops, n_leaves = _torch_structure(theirs, torch)
    assert g.flow_edges() == expected
    # every op node is drawn once: the same op boxes as torch's graph has nodes
    assert Counter(g.kind(n) for n in g.nodes if g.kind(n) not in ("leaf", "output")) == expected_ops
    assert len([n for n in g.nodes if g.kind(n) == "leaf"]) == n_leaves


def test_tuple_of_outputs_shares_the_graph_and_marks_each_output():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    a, b = h.sum(), h.exp()
    g = Drawn(viz.make_dot((a, b)))
    assert len(g.named("MulBackward0")) == 1          # the shared part is drawn once
    outs = [n for n in g.nodes if g.color(n) == viz.OUTPUT_COLOR]
    assert sorted(g.nodes[n]["lines"][:2] for n in outs) == [["output 0", "() float32 cpu"],
                                                             ["output 1", "(2) float32 cpu"]]
    heads = {g.nodes[t]["lines"][0]: g.nodes[hd]["lines"][0] for t, hd, _ in g.edges if hd in outs}
    assert heads == {"SumBackward0": "output 0", "ExpBackward0": "output 1"}
    # a list works the same, and the same output twice is drawn once
    assert Drawn(viz.make_dot([a, b, a])).nodes.keys() == g.nodes.keys()


def test_an_output_that_is_a_leaf():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    g = Drawn(viz.make_dot((y, x), params={"y": y}))
    assert g.nodes[g.one("output 0")]["lines"] == ["output 0", "y", "(2) float32 cpu"]
    leaf = g.one("output 1")
    assert g.color(leaf) == viz.OUTPUT_COLOR
    assert [(t, g.nodes[h]["lines"][0]) for t, h, _ in g.edges if t == leaf] == [(leaf, "MulBackward0")]
    g = Drawn(viz.make_dot(minigrad.ones(2)))   # no graph at all
    assert [d["lines"] for d in g.nodes.values()] == [["output", "(2) float32 cpu"]]


def test_parameter_names_from_params():
    w = minigrad.randn(3, 2, requires_grad=True)
    b = minigrad.zeros(2, requires_grad=True)
    x = minigrad.randn(4, 3)
    y = (x @ w + b).relu().sum()
    for params in ({"fc.weight": w, "fc.bias": b}, [("fc.weight", w), ("fc.bias", b)]):
        g = Drawn(viz.make_dot(y, params=params))
        leaves = {g.nodes[n]["lines"][0]: g.nodes[n]["lines"][1] for n in g.nodes if g.color(n) == viz.LEAF_COLOR}
        assert leaves == {"fc.weight": "(3, 2) float32 cpu", "fc.bias": "(2) float32 cpu"}
    unnamed = Drawn(viz.make_dot(y))
    assert sorted(d["lines"] for n, d in unnamed.nodes.items() if unnamed.color(n) == viz.LEAF_COLOR) == [
        ["(2) float32 cpu"], ["(3, 2) float32 cpu"]]
    with pytest.raises(TypeError, match=r"params\['w'\] must be a Tensor"):
        viz.make_dot(y, params={"w": 3})
    with pytest.raises(TypeError, match="params must be a dict"):
        viz.make_dot(y, params=[w])


def test_leaf_label_has_shape_dtype_and_device(device):
    x = minigrad.ones(2, 3, dtype=minigrad.float64, device=device, requires_grad=True)
    g = Drawn(viz.make_dot((x * 2).sum()))
    (leaf,) = [n for n in g.nodes if g.color(n) == viz.LEAF_COLOR]
    assert g.nodes[leaf]["lines"] == [f"(2, 3) float64 {x.device}"]


def test_output_must_be_tensors():
    with pytest.raises(TypeError, match="expected a Tensor or a tuple of Tensors as output, got list"):
        viz.make_dot([[minigrad.ones(1)]])
    with pytest.raises(TypeError, match="got float"):
        viz.make_dot(1.0)
    with pytest.raises(ValueError, match="non-empty"):
        viz.make_dot(())


def test_rankdir():
    x, y = seed_graph()
    assert "rankdir=TB" in viz.make_dot(y).source
    for r in ("LR", "BT", "RL"):
        assert f"rankdir={r}" in viz.make_dot(y, rankdir=r).source
    with pytest.raises(ValueError, match="rankdir must be one of 'TB', 'LR', 'BT', 'RL', got 'XY'"):
        viz.make_dot(y, rankdir="XY")


# ---- attributes -------------------------------------------------------------------------------

ATTR_CASES = {
    "pow": lambda t, x: x ** 3,
    "mean_dim": lambda t, x: x.mean(1, keepdim=True),
    "sum_dim": lambda t, x: x.sum((0, 1)),   # torch shows a negative dim as 2**64 - 1
    "mean": lambda t, x: x.mean(),
    "permute": lambda t, x: x.permute(1, 0),
    "softmax": lambda t, x: x.softmax(1),
    "var": lambda t, x: x.var(1, correction=0),
    "cat": lambda t, x: t.cat([x, x], 1),
    "reshape": lambda t, x: x.reshape(6),
}


@pytest.mark.parametrize("op", ATTR_CASES.values(), ids=ATTR_CASES.keys())
def test_show_attrs_names_and_values_match_torch(op):
    torch = pytest.importorskip("torch")
    data = np.arange(6.0).reshape(2, 3)
    ours = op(minigrad, minigrad.tensor(data, requires_grad=True)).grad_fn
    theirs = op(torch, torch.tensor(data, requires_grad=True)).grad_fn
    assert ours.name() == theirs.name()
    attrs = viz.node_attrs(ours)
    torch_attrs = {a[len("_saved_"):]: getattr(theirs, a) for a in dir(theirs)
                   if a.startswith("_saved_") and not torch.is_tensor(getattr(theirs, a))
                   and getattr(theirs, a) is not None}
    assert attrs, "no attribute shown"
    for k, v in attrs.items():   # every attribute we show, torch shows with the same value
        assert k in torch_attrs, (k, sorted(torch_attrs))
        expected = torch_attrs[k]
        assert (tuple(v) if isinstance(v, (tuple, list)) else v) == (
            tuple(expected) if isinstance(expected, (tuple, list)) else expected), k
    label = Drawn(viz.make_dot(op(minigrad, minigrad.tensor(data, requires_grad=True)), show_attrs=True))
    lines = label.nodes[label.one(ours.name())]["lines"]
    assert set(attrs) == {ln.split(":")[0].strip() for ln in lines[2:]}


def test_show_attrs_label_layout():
    x, y = seed_graph()
    g = Drawn(viz.make_dot(y, show_attrs=True))
    assert g.nodes[g.one("PowBackward0")]["lines"] == ["PowBackward0", "-" * 12, "exponent: 2"]
    assert g.nodes[g.one("MeanBackward0")]["lines"][2:] == ["self_sym_sizes: (3,)"]
    # off by default
    assert Drawn(viz.make_dot(y)).nodes[g.one("PowBackward0")]["lines"] == ["PowBackward0"]


def test_show_attrs_of_a_custom_function_and_long_values():
    class Scale(Function):
        @staticmethod
        def forward(ctx, x, alpha, note):
            ctx.alpha, ctx.note, ctx.cache = alpha, note, np.ones(3)  # the array is internal
            ctx.save_for_backward(x)
            return x * alpha

        @staticmethod
        def backward(ctx, g):
            return g * ctx.alpha, None, None

    x = minigrad.ones(3, requires_grad=True)
    y = Scale.apply(x, 0.5, "n" * 80)
    assert viz.node_attrs(y.grad_fn) == {"alpha": 0.5, "note": "n" * 80}
    g = Drawn(viz.make_dot(y, show_attrs=True, max_attr_chars=10))
    assert g.nodes[g.one("ScaleBackward")]["lines"] == [
        "ScaleBackward", "-" * 17, "alpha:        0.5", "note : nnnnnnn..."]


# ---- saved tensors ----------------------------------------------------------------------------

def test_show_saved_before_backward():
    x, y = seed_graph()
    g = Drawn(viz.make_dot(y, show_saved=True))
    pow_node = g.one("PowBackward0")
    (saved,) = g.saved_of(pow_node)
    assert g.nodes[saved]["lines"] == ["self", "(3) float32 cpu"]
    assert g.color(saved) == viz.SAVED_COLOR == "orange"
    assert [n for n in g.nodes if g.color(n) == viz.SAVED_COLOR] == [saved]  # nothing else saves
    assert g.caption is None
    assert not Drawn(viz.make_dot(y)).saved_of(pow_node)   # off by default


@pytest.mark.parametrize("op", [
    lambda t, x, w: x * w, lambda t, x, w: x.sin(), lambda t, x, w: x.exp(), lambda t, x, w: x.relu(),
    lambda t, x, w: x @ w.transpose(0, 1), lambda t, x, w: t.maximum(x, w), lambda t, x, w: x.amax(0),
    lambda t, x, w: x.softmax(1), lambda t, x, w: x ** 2], ids=[
    "mul", "sin", "exp", "relu", "mm", "maximum", "amax", "softmax", "pow"])
def test_saved_tensor_names_match_torch(op):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    xs, ws = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    out = op(minigrad, minigrad.tensor(xs, requires_grad=True), minigrad.tensor(ws, requires_grad=True))
    ref = op(torch, torch.tensor(xs, requires_grad=True), torch.tensor(ws, requires_grad=True)).grad_fn
    g = Drawn(viz.make_dot(out, show_saved=True))
    shown = {g.nodes[s]["lines"][0]: g.nodes[s]["lines"][1] for s in g.saved_of(g.one(ref.name()))}
    expected = {a[len("_saved_"):]: "(%s) float64 cpu" % ", ".join(map(str, getattr(ref, a).shape))
                for a in dir(ref) if a.startswith("_saved_") and torch.is_tensor(getattr(ref, a))}
    assert shown == expected


def test_show_saved_after_backward_says_they_were_freed():
    x, y = seed_graph()
    y.backward()
    g = Drawn(viz.make_dot(y, show_saved=True))
    assert not [n for n in g.nodes if g.color(n) == viz.SAVED_COLOR]
    assert "freed by backward()" in g.caption and "retain_graph=True" in g.caption
    assert Drawn(viz.make_dot(y)).caption is None     # only show_saved mentions it

    x, y = seed_graph()
    y.backward(retain_graph=True)
    g = Drawn(viz.make_dot(y, show_saved=True))
    assert len(g.saved_of(g.one("PowBackward0"))) == 1 and g.caption is None


def test_saved_output_and_custom_function_slots():
    class Twice(Function):
        @staticmethod
        def forward(ctx, x, w):
            out = x * w
            ctx.save_for_backward(w, None, out)
            return out

        @staticmethod
        def backward(ctx, g):
            w, _, _ = ctx.saved_tensors
            return g * w, None

    w = minigrad.ones(2, 2, requires_grad=True)
    y = Twice.apply(minigrad.ones(2, 2, requires_grad=True), w)
    g = Drawn(viz.make_dot(y, params={"w": w}, show_saved=True))
    shown = sorted(g.nodes[s]["lines"] for s in g.saved_of(g.one("TwiceBackward")))
    assert shown == [["result", "(2, 2) float32 cpu"], ["saved_tensors[0]: w", "(2, 2) float32 cpu"]]


# ---- gradients --------------------------------------------------------------------------------

def _grad_line(g, name):
    return [ln for ln in g.nodes[g.one(name)]["lines"] if ln.startswith("grad")]


def test_show_grads_are_the_gradient_norms(device):
    rng = np.random.default_rng(2)
    w = minigrad.tensor(rng.standard_normal((4, 3)), dtype=minigrad.float32, device=device, requires_grad=True)
    b = minigrad.tensor(rng.standard_normal(3), dtype=minigrad.float32, device=device, requires_grad=True)
    x = minigrad.tensor(rng.standard_normal((5, 4)), dtype=minigrad.float32, device=device)
    loss = ((x @ w + b).tanh() ** 2).mean()
    params = {"w": w, "b": b}
    assert _grad_line(Drawn(viz.make_dot(loss, params=params, show_grads=True)), "w") == ["grad: None"]
    loss.backward()
    g = Drawn(viz.make_dot(loss, params=params, show_grads=True))
    for name, t in params.items():
        (line,) = _grad_line(g, name)
        shown = float(line.split(":")[1])
        expected = np.linalg.norm(t.grad.cpu().numpy().astype(np.float64))
        assert shown == pytest.approx(expected, rel=1e-2)
        assert viz.grad_norm(t) == pytest.approx(expected, rel=1e-6)
        assert "color=red" not in g.nodes[g.one(name)]["attrs"]
    assert not _grad_line(Drawn(viz.make_dot(loss, params=params)), "w")   # off by default


def test_show_grads_flags_vanishing_and_exploding_gradients():
    a = minigrad.ones(3, requires_grad=True)
    b = minigrad.ones(3, requires_grad=True)
    c = minigrad.ones(3, requires_grad=True)
    (a * 1e-9 + b * 1e6 + c).sum().backward()
    g = Drawn(viz.make_dot(a * 1e-9 + b * 1e6 + c, params=dict(a=a, b=b, c=c), show_grads=True))
    assert _grad_line(g, "a") == [f"grad norm: {math.sqrt(3) * 1e-9:.3g} (vanishing)"]
    assert _grad_line(g, "b") == [f"grad norm: {math.sqrt(3) * 1e6:.3g} (exploding)"]
    assert _grad_line(g, "c") == [f"grad norm: {math.sqrt(3):.3g}"]
    assert "color=red" in g.nodes[g.one("a")]["attrs"] and "color=red" in g.nodes[g.one("b")]["attrs"]
    assert "color=red" not in g.nodes[g.one("c")]["attrs"]
    d = minigrad.ones(2, requires_grad=True)
    (d * float("inf")).sum().backward()
    g = Drawn(viz.make_dot(d * 2, params={"d": d}, show_grads=True))
    assert _grad_line(g, "d") == ["grad norm: inf (not finite)"]


# ---- big graphs -------------------------------------------------------------------------------

def test_a_10000_node_graph_builds_without_recursion():
    x = minigrad.ones(2, requires_grad=True)
    y = x
    for i in range(5000):
        y = y * 1.0001 if i % 2 else y + 1
    y = y.sum()
    for _ in range(4999):
        y = y.sin()
    dot = viz.make_dot(y, show_attrs=True, show_saved=True, group_modules=True)
    g = Drawn(dot)
    ops = [n for n in g.nodes if g.kind(n) not in ("leaf", "output", "saved")]
    assert len(ops) == 10000
    assert len([n for n in g.nodes if g.kind(n) == "saved"]) == 4999     # every sin saved its input
    assert len([e for e in g.edges if "dir=none" not in e[2]]) == 10001  # leaf -> ... -> output


# ---- rendering --------------------------------------------------------------------------------

def test_missing_dot_program_says_what_to_install(monkeypatch, tmp_path):
    x, y = seed_graph()
    dot = viz.make_dot(y)
    monkeypatch.setenv("PATH", str(tmp_path))   # no dot on this PATH
    assert "MeanBackward0" in dot.source         # the source needs no binary
    for call in (lambda: dot.render(tmp_path / "g", format="svg"), lambda: dot.pipe(format="svg"),
                 lambda: dot.view(tmp_path / "v")):
        with pytest.raises(viz.GraphvizNotInstalled) as info:
            call()
        assert isinstance(info.value, graphviz.ExecutableNotFound)
        msg = str(info.value)
        assert "apt install graphviz" in msg and "brew install graphviz" in msg and ".source" in msg
    assert not list(tmp_path.iterdir())          # render failed before writing the source file


def test_missing_graphviz_python_package_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)   # import graphviz fails
    with pytest.raises(ImportError, match=r"needs the graphviz Python package: pip install graphviz"):
        viz._graphviz()


@needs_dot
def test_rendered_svg_parses_and_has_every_node(tmp_path):
    x, y = seed_graph()
    w = minigrad.tensor([0.5, -1.0, 2.0], requires_grad=True)
    out = ((x * w).tanh() + y).sum()
    dot = viz.make_dot(out, params={"x": x, "w": w}, show_attrs=True, show_saved=True)
    path = dot.render(tmp_path / "graph", format="svg")
    root = ET.parse(path).getroot()
    svg = "{http://www.w3.org/2000/svg}"
    drawn = {}
    for group in root.iter(svg + "g"):
        if group.get("class") == "node":
            texts = [" ".join((t.text or "").replace("\xa0", " ").split()) for t in group.iter(svg + "text")]
            drawn[group.find(svg + "title").text] = texts
    g = Drawn(dot)
    assert drawn.keys() == g.nodes.keys()
    for name, d in g.nodes.items():
        assert drawn[name] == [" ".join(ln.split()) for ln in d["lines"]], name
    edges = [e.find(svg + "title").text for e in root.iter(svg + "g") if e.get("class") == "edge"]
    assert sorted(edges) == sorted(f"{t}->{h}" for t, h, _ in g.edges)


@needs_dot
def test_png_render(tmp_path):
    x, y = seed_graph()
    path = viz.make_dot(y).render(tmp_path / "graph", format="png", cleanup=True)
    assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"



# ---- modules ----------------------------------------------------------------------------------

import minigrad.nn as nn  # noqa: E402


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.layers = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
        self.blocks = nn.ModuleList([nn.Linear(8, 8), nn.Linear(8, 8)])
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        h = self.fc1(x).relu()           # relu is made by Net's own forward
        h = self.layers(h)
        for block in self.blocks:        # a ModuleList is not called: its items are
            h = block(h)
        return self.head(h)


def _cluster_of(g, first_line):
    return [g.nodes[n]["clusters"] for n in g.named(first_line)]


def test_group_modules_draws_a_cluster_per_module_call():
    minigrad.manual_seed(0)
    net = Net()
    out = net(minigrad.randn(3, 4)).sum()
    g = Drawn(viz.make_dot(out, params=dict(net.named_parameters()), group_modules=True))
    assert sorted(g.clusters) == sorted([
        ("fc1 (Linear)",), ("layers (Sequential)",), ("layers (Sequential)", "layers.0 (Linear)"),
        ("layers (Sequential)", "layers.1 (Tanh)"), ("blocks.0 (Linear)",), ("blocks.1 (Linear)",),
        ("head (Linear)",)])
    # each op in the box of the module whose forward made it; Net itself is the whole picture
    assert _cluster_of(g, "TanhBackward0") == [("layers (Sequential)", "layers.1 (Tanh)")]
    assert _cluster_of(g, "ReluBackward0") == [()]
    assert _cluster_of(g, "SumBackward0") == [()] and _cluster_of(g, "output") == [()]
    linear_ops = Counter(c for n, d in g.nodes.items() if g.kind(n) not in ("leaf", "output")
                         for c in [d["clusters"]] if d["lines"][0] != "ReluBackward0"
                         and d["lines"][0] not in ("TanhBackward0", "SumBackward0"))
    assert linear_ops == Counter({c: 1 for c in g.clusters if c[-1].endswith("(Linear)")})
    # parameters sit in the box of the module that owns them
    for name, _ in net.named_parameters():
        module = name.rsplit(".", 1)[0]
        (where,) = _cluster_of(g, name)
        assert where[-1] == f"{module} (Linear)", name
    # the same graph without group_modules has the same nodes and edges and no clusters
    flat = Drawn(viz.make_dot(out, params=dict(net.named_parameters())))
    assert not flat.clusters and all(d["clusters"] == () for d in flat.nodes.values())
    assert flat.flow_edges() == g.flow_edges()


def test_group_modules_with_a_shared_module_and_several_models():
    minigrad.manual_seed(0)
    lin = nn.Linear(3, 3)
    x = minigrad.randn(2, 3)
    out = lin(lin(x)).sum()                  # one module, two calls: two boxes
    g = Drawn(viz.make_dot(out, params=dict(lin.named_parameters()), group_modules=True))
    assert g.clusters == [("Linear",), ("Linear",)]
    assert _cluster_of(g, "weight") == [()]     # used by both calls: outside both
    assert sorted(_cluster_of(g, "AddmmBackward0")) == [("Linear",), ("Linear",)]

    model, criterion = Net(), nn.MSELoss()   # two outermost modules: each is a box
    loss = criterion(model(minigrad.randn(3, 4)), minigrad.zeros(3, 2))
    g = Drawn(viz.make_dot(loss, params=dict(model.named_parameters()), group_modules=True))
    assert ("Net", "fc1 (Linear)") in g.clusters and ("MSELoss",) in g.clusters
    assert _cluster_of(g, "MseLossBackward0") == [("MSELoss",)]
    assert _cluster_of(g, "fc1.weight") == [("Net", "fc1 (Linear)")]


def test_group_modules_with_saved_tensors_and_no_modules():
    minigrad.manual_seed(0)
    layer = nn.Sequential(nn.Linear(3, 3), nn.Tanh())
    out = layer(minigrad.randn(2, 3)).sum()
    g = Drawn(viz.make_dot(out, group_modules=True, show_saved=True))
    (tanh,) = g.named("TanhBackward0")
    (saved,) = g.saved_of(tanh)
    assert g.nodes[saved]["clusters"] == g.nodes[tanh]["clusters"] == ("1 (Tanh)",)
    x, y = seed_graph()                      # no module anywhere: no clusters
    g = Drawn(viz.make_dot(y, group_modules=True))
    assert not g.clusters and len(g.nodes) == 6


@needs_dot
def test_rendered_svg_with_module_clusters(tmp_path):
    minigrad.manual_seed(0)
    net = Net()
    out = net(minigrad.randn(3, 4)).sum()
    out.backward()
    dot = viz.make_dot(out, params=dict(net.named_parameters()), group_modules=True, show_grads=True)
    root = ET.fromstring(dot.pipe(format="svg"))
    svg = "{http://www.w3.org/2000/svg}"
    titles = Counter(gr.get("class") for gr in root.iter(svg + "g"))
    assert titles["cluster"] == len(Drawn(dot).clusters) == 7
    assert titles["node"] == len(Drawn(dot).nodes)


# ---- the examples -----------------------------------------------------------------------------

def _run_example(name, out_dir):
    import os
    import subprocess
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, str(root / "examples" / name), str(out_dir)],
                          cwd=out_dir, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("name, first_nodes", [
    ("dynamic_graph.py", {"x", "AddBackward0", "PowBackward0", "MeanBackward0", "output", "self"}),
    ("mlp_graph.py", {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "AddmmBackward0",
                      "ReluBackward0", "NllLossBackward0", "output"})])
def test_examples_draw_their_graphs(tmp_path, name, first_nodes):
    out = _run_example(name, tmp_path)
    stem = name[:-3]
    if not HAVE_DOT:
        assert "apt install graphviz" in out and (tmp_path / f"{stem}.gv").exists()
        return
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{stem}.png", f"{stem}.svg"]
    assert (tmp_path / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"
    root = ET.parse(tmp_path / f"{stem}.svg").getroot()
    svg = "{http://www.w3.org/2000/svg}"
    firsts = {next(gr.iter(svg + "text")).text for gr in root.iter(svg + "g") if gr.get("class") == "node"}
    assert firsts == first_nodes
