"""Pictures of the autograd graph, drawn with graphviz (torchviz's `make_dot`, for minigrad).

    dot = minigrad.viz.make_dot(loss, params=dict(model.named_parameters()), show_grads=True)
    dot.render("graph", format="svg")

An op is drawn as a box named like its grad_fn (`AddBackward0`); a leaf tensor as one light-blue
box (torchviz draws the leaf and, separately, its `AccumulateGrad` node); the outputs green and,
with `show_saved`, the tensors a node saved for backward orange. Edges run from inputs to
outputs, the way the forward pass went. The graph is walked without recursion, so a
10,000-node chain draws as quickly as a small one.

Building the graph needs only the `graphviz` Python package (`pip install graphviz`);
`.source` is plain DOT text. Rendering it (`render`, `view`, `pipe`) runs Graphviz's `dot`
program, which comes with the system package (`apt install graphviz`, `brew install graphviz`).
"""
import math
import shutil

from .autograd.function import AccumulateGrad
from .autograd.grad_mode import no_grad
from .tensor import Tensor

__all__ = ["make_dot", "GraphvizNotInstalled", "node_attrs", "grad_norm"]

RANKDIRS = ("TB", "LR", "BT", "RL")

# fill colours, as torchviz's
OP_COLOR = "lightgrey"
LEAF_COLOR = "lightblue"
OUTPUT_COLOR = "darkolivegreen1"
SAVED_COLOR = "orange"
CLUSTER_COLORS = ("#f5f5f5", "#ffffff")   # nested module clusters alternate
WARN_COLOR = "red"

# show_grads outlines a leaf in red when its gradient norm is outside this range (or is not
# finite): below it the gradient has all but vanished, above it it is exploding
GRAD_NORM_RANGE = (1e-6, 1e3)

# The ctx attributes of the built-in ops, under the names torch's nodes give them
# (PowBackward0._saved_exponent, MeanBackward1._saved_dim, ...); None hides an internal one.
_ATTR_NAMES = {
    "dims": "dim",
    "shape": "self_sym_sizes",
    "in_shape": "self_sym_sizes",
    "axes": "dims",
    "vshape": "values_sym_sizes",
    "src_shape": "src_sym_sizes",
    "in_dtype": "self_dtype",
    "src": "self_device",
    "smoothing": "label_smoothing",
    "shapes": None,         # operand shapes, kept to undo broadcasting
    "sizes": None,          # cat's input sizes along dim, kept to split the gradient
    "bias_shape": None,     # the same, for linear's bias
    "n": None,              # element counts that a mean divides by
    "total": None,
    "stats": None,          # cross-entropy's cached row max and sum of exponentials
    "fast": None,           # which of cross-entropy's code paths ran
    "logits": None,
    "b_transposed": None,   # a memory-layout hint for matmul's backward
}
# Op by op (by the forward class's name, subclasses included): where the meaning of an
# attribute depends on the op. A reduction over every element has no dims to show.
_WHOLE = {"dims": None, "keepdim": None}
_OP_ATTR_NAMES = {
    "Sum": _WHOLE, "SumDim": {}, "Mean": _WHOLE, "MeanDim": {}, "MaxAll": _WHOLE, "MinAll": _WHOLE,
    "Pow": {"scalar": "exponent"},
    "Mul": {"scalar": "other"},
    "Div": {"scalar": "other"},
    "LeakyRelu": {"slope": "negative_slope"},
    "SmoothL1Loss": {"param": "beta"},
    "HuberLoss": {"param": "delta"},
}
# the names of the tensors the built-in ops save, slot by slot, as torch names them
_SAVED_NAMES = {
    "Mul": ("self", "other"),
    "Div": ("other", "result"),
    "Pow": ("self", "exponent", "result"),
    "Maximum": ("self", "other"),
    "Abs": ("self",),
    "_SavesInput": ("self",),
    "_SavesOutput": ("result",),
    "Clamp": ("mask",),
    "Where": ("condition",),
    "Matmul": ("self", "mat2"),
    "Mv": ("self", "vec"),
    "Dot": ("self", "tensor"),
    "Linear": ("input", "weight"),
    "CrossEntropy": ("self", "target"),
    "SoftCrossEntropy": ("self", "target"),
    "MseLoss": ("self", "target"),
    "_PointwiseLoss": ("self", "target"),
    "BinaryCrossEntropy": ("self", "target"),
    "BinaryCrossEntropyWithLogits": ("self", "target"),
    "Amax": ("self", "result"),
    "MaxDim": ("indices",),
    "Var": ("self",),
    "Std": ("self", "result"),
    "LogSoftmax": ("result",),
    "Softmax": ("result",),
    "LeakyRelu": ("mask",),
    "Elu": ("self",),
    "EluInplace": ("result",),
    "Softplus": ("self",),
    "GeluTanh": ("self",),
}
_HIDDEN_ATTRS = frozenset(("needs_input_grad", "next_functions", "materialize_grads"))

_FREED_NOTE = ("saved tensors were freed by backward(); "
               "call backward(retain_graph=True) to keep them for show_saved")


class GraphvizNotInstalled(RuntimeError):
    """Raised by render()/view()/pipe() when Graphviz's `dot` program is missing. The instance
    raised is also a `graphviz.ExecutableNotFound`, for code that catches that."""

    def __init__(self, message):
        RuntimeError.__init__(self, message)


_graph_cls = None
_not_found_cls = None
_nohtml = None


def _graphviz():
    try:
        import graphviz
    except ImportError:
        raise ImportError("minigrad.viz needs the graphviz Python package: pip install graphviz "
                          '(or pip install "minigrad[viz]")') from None
    return graphviz


def _missing_dot(program):
    return _not_found_cls(
        f"Graphviz's `{program}` program was not found on PATH, and rendering a graph needs it "
        "(its .source does not). Install the Graphviz system package: `apt install graphviz` "
        "(Debian/Ubuntu), `brew install graphviz` (macOS), `conda install graphviz`, or see "
        "https://graphviz.org/download/")


def _wrap_missing_dot(name):
    def method(self, *args, **kwargs):
        graphviz = _graphviz()
        if name in ("render", "view") and shutil.which(self.engine) is None:
            raise _missing_dot(self.engine)  # before graphviz writes the source file
        try:
            return getattr(graphviz.Digraph, name)(self, *args, **kwargs)
        except graphviz.ExecutableNotFound as e:
            if isinstance(e, GraphvizNotInstalled):
                raise
            raise _missing_dot(self.engine) from None
    method.__name__ = name
    method.__doc__ = getattr(_graphviz().Digraph, name).__doc__
    return method


def _digraph_class():
    """graphviz.Digraph, with an error that says what to install when `dot` is missing."""
    global _graph_cls, _not_found_cls, _nohtml
    if _graph_cls is None:
        graphviz = _graphviz()
        _nohtml = graphviz.nohtml
        _not_found_cls = type("GraphvizNotInstalled", (GraphvizNotInstalled, graphviz.ExecutableNotFound),
                              {"__module__": __name__})
        _graph_cls = type("Digraph", (graphviz.Digraph,), {
            "__module__": __name__,
            "__doc__": "A graphviz.Digraph from minigrad.viz.make_dot.",
            **{name: _wrap_missing_dot(name) for name in ("render", "view", "pipe", "unflatten")}})
    return _graph_cls


# ---- labels ---------------------------------------------------------------------------------

def _esc(line):
    """One label line as DOT text: backslashes kept literal (lines are joined with \\n)."""
    return line.replace("\\", "\\\\")


def _label(lines):
    return _nohtml("\\n".join(_esc(s) for s in lines))


def _size(shape):
    return "(" + ", ".join(str(s) for s in shape) + ")"


def _describe(t):
    """shape, dtype and device of a tensor, on one line: "(256, 784) float32 cpu"."""
    return f"{_size(t._data.shape)} {t.dtype.name} {t.device}"


def _fmt(v, depth=0):
    """An attribute value, readably: slices as a:b, tensors by shape, tuples item by item."""
    if isinstance(v, Tensor):
        return f"[tensor {_size(v._data.shape)}]"
    if isinstance(v, slice):
        parts = ["" if p is None else str(p) for p in (v.start, v.stop, v.step)]
        return ":".join(parts[:2] if v.step is None else parts)
    if v is Ellipsis:
        return "..."
    if isinstance(v, (tuple, list)) and depth < 3:
        items = [_fmt(x, depth + 1) for x in v]
        if isinstance(v, list):
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _is_array(v):
    """A backend array (numpy, cupy) with elements: internal state, not an argument."""
    return (not isinstance(v, Tensor) and hasattr(v, "dtype")
            and isinstance(getattr(v, "ndim", None), int) and v.ndim > 0)


def node_attrs(fn):
    """The non-tensor arguments an op's node keeps: {torch's name: value}, e.g.
    {"exponent": 2} for `x ** 2`, {"dim": (1,), "keepdim": True} for `x.sum(1, keepdim=True)`.

    They are the node's public attributes (what forward stored on ctx) other than tensors,
    arrays and autograd's own bookkeeping, renamed as torch names them where the name differs.
    """
    d = getattr(fn, "__dict__", None)
    if not d:
        return {}
    builtin = _op_class(fn) is not None
    op_names = _op_entry(_OP_ATTR_NAMES, fn) or {}
    out = {}
    for key, value in d.items():
        if key.startswith("_") or key in _HIDDEN_ATTRS or value is None or _is_array(value):
            continue
        if builtin:
            key = op_names[key] if key in op_names else _ATTR_NAMES.get(key, key)
            if key is None:
                continue
        out[key] = value
    return out


def _op_class(fn):
    """The forward class of a built-in op's node (None for a user's Function)."""
    cls = getattr(fn, "_forward_cls", None)
    if cls is not None and cls._builtin and cls.__module__.startswith("minigrad."):
        return cls
    return None


def _op_entry(table, fn):
    """table's entry for a built-in op's forward class or the nearest base class listed."""
    cls = _op_class(fn)
    if cls is not None:
        for c in cls.__mro__:
            entry = table.get(c.__name__)
            if entry is not None:
                return entry
    return None


def _op_label(fn, show_attrs, max_attr_chars):
    name = fn.name()
    if not show_attrs:
        return [name]
    attrs = node_attrs(fn)
    if not attrs:
        return [name]
    values = {k: _fmt(v) for k, v in attrs.items()}
    max_attr_chars = max(max_attr_chars, 3)
    w1 = max(len(k) for k in values)
    w2 = min(max(len(v) for v in values.values()), max_attr_chars)
    lines = [name, "-" * max(w1 + w2 + 2, len(name))]
    for k, v in values.items():
        if len(v) > w2:
            v = v[:w2 - 3] + "..."
        lines.append(f"{k:<{w1}}: {v:>{w2}}")
    return lines


def grad_norm(t):
    """The 2-norm of t.grad as a Python float (computed in float64), or None without a grad."""
    g = t.grad
    if g is None:
        return None
    with no_grad():
        g = g.detach().double()
        return math.sqrt((g * g).sum().item())


def _grad_line(t):
    """(label line, whether the gradient looks vanishing or exploding)."""
    n = grad_norm(t)
    if n is None:
        return "grad: None", False
    lo, hi = GRAD_NORM_RANGE
    if not math.isfinite(n):
        return f"grad norm: {n} (not finite)", True
    if n < lo:
        return f"grad norm: {n:.3g} (vanishing)", True
    if n > hi:
        return f"grad norm: {n:.3g} (exploding)", True
    return f"grad norm: {n:.3g}", False


# ---- modules --------------------------------------------------------------------------------

class _Clusters:
    """The nn.Module calls that nodes were made in, as nested clusters.

    A node's `_scope` is the chain (module, parent chain) of the module forwards that were
    running when it was recorded; each chain object is one call. A call becomes a cluster
    labelled with the module's path from the outermost module (`named_modules()` names:
    "fc1", "layers.0"), nested as the calls were. The outermost module is no cluster (the
    whole picture is it) unless there are several calls of outermost modules (a model and
    its loss module, or one model called twice): then each is one, labelled by its class.
    """

    def __init__(self):
        self.keys = {}        # id(chain) -> cluster index
        self.chains = []      # cluster index -> chain
        self.parents = []     # cluster index -> parent cluster index or None
        self.roots = {}       # id(root module) -> root module
        self.root_calls = 0   # chains of one module alone: calls of an outermost module
        self._paths = None
        self._owners = None
        self._calls = None

    def of(self, scope):
        """The cluster index of the call chain `scope` (None: top level)."""
        if scope is None:
            return None
        k = self.keys.get(id(scope))
        if k is not None:
            return k
        # register the chain and its ancestors, outermost first
        pending = []
        s = scope
        while s is not None and id(s) not in self.keys:
            pending.append(s)
            s = s[1]
        parent = self.keys[id(s)] if s is not None else None
        for s in reversed(pending):
            if s[1] is None:
                self.roots[id(s[0])] = s[0]
                self.root_calls += 1
            self.keys[id(s)] = len(self.chains)
            self.chains.append(s)
            self.parents.append(parent)
            parent = len(self.chains) - 1
        return self.keys[id(scope)]

    def _index(self):
        """Module paths, parameter owners and calls per module: once the graph is walked."""
        if self._paths is None:
            self._paths, self._owners, self._calls = {}, {}, {}
            for root in self.roots.values():
                for path, m in root.named_modules():
                    self._paths.setdefault(id(m), path)
                    for p in m.parameters(recurse=False):
                        self._owners.setdefault(id(p), m)
            for k, s in enumerate(self.chains):
                self._calls.setdefault(id(s[0]), []).append(k)

    def owner_cluster(self, t):
        """The cluster of the one call of the module that owns parameter t, if there is one."""
        self._index()
        m = self._owners.get(id(t))
        calls = self._calls.get(id(m), ()) if m is not None else ()
        return self.visible(calls[0]) if len(calls) == 1 else None

    def place(self, where):
        """The drawn cluster for a node's raw placement: a call index or ("param", tensor)."""
        if where is None:
            return None
        if where.__class__ is tuple:
            return self.owner_cluster(where[1])
        return self.visible(where)

    def visible(self, k):
        """k, or its nearest ancestor that is drawn (k itself when k is drawn)."""
        while k is not None and not self.drawn(k):
            k = self.parents[k]
        return k

    def drawn(self, k):
        return self.chains[k][1] is not None or self.root_calls > 1

    def label(self, k):
        self._index()
        m = self.chains[k][0]
        path = self._paths.get(id(m))
        kind = type(m).__name__
        return kind if not path else f"{path} ({kind})"


# ---- the graph ------------------------------------------------------------------------------

def make_dot(output, params=None, show_attrs=False, show_saved=False, show_grads=False,
             rankdir="TB", group_modules=False, max_attr_chars=50):
    """A `graphviz.Digraph` of the autograd graph that produced `output` (a tensor, or a tuple
    or list of tensors), drawn from the inputs (top) to the outputs (bottom).

    - params: names for tensors, `{name: tensor}` (e.g. `dict(model.named_parameters())`) or
      (name, tensor) pairs; named leaves show their name above shape, dtype and device.
    - show_attrs: each op's non-tensor arguments, under torch's names (exponent, dim, keepdim).
    - show_saved: the tensors each op saved for backward (orange). backward() frees them
      unless called with retain_graph=True; the picture then says so.
    - show_grads: each leaf's gradient norm (after backward()); red when it is outside
      GRAD_NORM_RANGE or not finite.
    - rankdir: "TB" (top to bottom), "LR", "BT" or "RL".
    - group_modules: ops made inside an nn.Module's forward are drawn inside a box named by
      the module's path ("fc1", "layers.0"), nested as the calls were; parameters in the box
      of the module that owns them.
    - max_attr_chars: longer attribute values are cut short with "...".

    `.source` needs only the graphviz Python package; `render()` / `view()` also need the
    Graphviz system package (its `dot` program).
    """
    if rankdir not in RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(map(repr, RANKDIRS))}, got {rankdir!r}")
    outputs = _outputs(output)
    param_map = _param_map(params)
    cls = _digraph_class()

    ids = {}          # id(node or tensor) -> DOT node name
    keep = []         # what ids refers to, alive until the graph is drawn
    nodes = []        # (name, label lines, attrs, cluster index)
    edges = []        # (tail, head, attrs)
    clusters = _Clusters() if group_modules else None
    freed = False
    stack = []

    def new_id(obj):
        name = f"n{len(ids)}"
        ids[id(obj)] = name
        keep.append(obj)
        return name

    def leaf(t, color=LEAF_COLOR, first=None):
        """The DOT name of leaf tensor t, drawing it the first time."""
        name = ids.get(id(t))
        if name is not None:
            return name
        name = new_id(t)
        lines = [first] if first else []
        pname = param_map.get(id(t))
        if pname:
            lines.append(pname)
        lines.append(_describe(t))
        attrs = {"fillcolor": color}
        if show_grads and t._requires_grad:
            line, warn = _grad_line(t)
            lines.append(line)
            if warn:
                attrs.update(color=WARN_COLOR, penwidth="2")
        # a parameter goes in the box of its module, found once the whole graph is known
        nodes.append((name, lines, attrs, ("param", t) if pname is not None else None))
        return name

    def fn_id(fn):
        """The DOT name of node fn (the leaf's, for an AccumulateGrad), queuing new op nodes."""
        if fn.__class__ is AccumulateGrad:
            t = fn.variable
            if t is not None:
                return leaf(t)
        name = ids.get(id(fn))
        if name is None:
            name = new_id(fn)
            if fn.__class__ is AccumulateGrad:  # its leaf tensor is gone (nothing referenced it)
                nodes.append((name, ["AccumulateGrad", "(leaf tensor freed)"],
                              {"fillcolor": LEAF_COLOR}, None))
            else:
                stack.append(fn)
        return name

    multi = len(outputs) > 1
    for i, t in enumerate(outputs):  # outputs that are leaves first: they are drawn as outputs
        if t.grad_fn is None:
            leaf(t, OUTPUT_COLOR, f"output {i}" if multi else "output")
    for i, t in enumerate(outputs):
        if t.grad_fn is None:
            continue
        lines = [f"output {i}" if multi else "output"]
        if id(t) in param_map:
            lines.append(param_map[id(t)])
        name = new_id(t)
        nodes.append((name, lines + [_describe(t)], {"fillcolor": OUTPUT_COLOR}, None))
        edges.append((fn_id(t.grad_fn), name, None))

    while stack:
        fn = stack.pop()
        name = ids[id(fn)]
        where = clusters.of(fn._scope) if clusters is not None else None
        nodes.append((name, _op_label(fn, show_attrs, max_attr_chars), None, where))
        for nxt, _ in fn.next_functions:
            if nxt is not None:
                edges.append((fn_id(nxt), name, None))
        if show_saved:
            saved = getattr(fn, "_saved", ())
            if saved is None:
                freed = True
            elif saved:
                _draw_saved(fn, saved, name, where, param_map, nodes, edges)

    dot = cls(node_attr=dict(style="filled", shape="box", fontsize="10", height="0.2",
                             fontname="monospace", fillcolor=OP_COLOR),
              graph_attr=dict(rankdir=rankdir, ordering="in"))
    if freed:
        dot.graph_attr.update(label=_label([_FREED_NOTE]), labelloc="b", fontsize="10",
                              fontname="monospace")
    _emit(dot, cls, nodes, edges, clusters)
    return dot


def _outputs(output):
    outs = tuple(output) if isinstance(output, (tuple, list)) else (output,)
    if not outs:
        raise ValueError("make_dot(): expected a tensor or a non-empty tuple of tensors")
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError("make_dot(): expected a Tensor or a tuple of Tensors as output, "
                            f"got {type(o).__name__}")
    seen, unique = set(), []
    for o in outs:
        if id(o) not in seen:
            seen.add(id(o))
            unique.append(o)
    return unique


def _param_map(params):
    if params is None:
        return {}
    items = params.items() if hasattr(params, "items") else params
    out = {}
    for item in items:
        try:
            name, t = item
        except (TypeError, ValueError):
            raise TypeError("make_dot(): params must be a dict {name: tensor} or (name, tensor) "
                            f"pairs, got an item {item!r}") from None
        if not isinstance(t, Tensor):
            raise TypeError(f"make_dot(): params[{name!r}] must be a Tensor, got {type(t).__name__}")
        out.setdefault(id(t), str(name))
    return out


def _draw_saved(fn, saved, name, where, param_map, nodes, edges):
    names = _op_entry(_SAVED_NAMES, fn) or ()
    multi_out = getattr(fn, "_out_meta", None) is not None
    for i, entry in enumerate(saved):
        if entry is None:
            continue
        t, _, output_nr = entry
        if i < len(names):
            slot = names[i]
        elif output_nr >= 0:
            slot = f"result{output_nr}" if multi_out else "result"
        else:
            slot = f"saved_tensors[{i}]"
        pname = param_map.get(id(t))
        sname = f"{name}s{i}"
        nodes.append((sname, [f"{slot}: {pname}" if pname else slot, _describe(t)],
                      {"fillcolor": SAVED_COLOR}, where))
        edges.append((name, sname, {"dir": "none", "style": "dashed"}))


def _emit(dot, cls, nodes, edges, clusters):
    if clusters is None or not clusters.chains:
        for name, lines, attrs, _ in nodes:
            dot.node(name, _label(lines), _attributes=attrs)
    else:
        drawn = [k for k in range(len(clusters.chains)) if clusters.drawn(k)]
        subs = {}
        depth = {}
        for k in drawn:
            parent = clusters.visible(clusters.parents[k])
            depth[k] = 0 if parent is None else depth[parent] + 1  # parents come first
            subs[k] = cls(name=f"cluster_{k}", graph_attr=dict(
                label=_label([clusters.label(k)]), labeljust="l", style="rounded,filled",
                color="gray50", fillcolor=CLUSTER_COLORS[depth[k] % 2],
                fontname="monospace", fontsize="10"))
        for name, lines, attrs, where in nodes:
            where = clusters.place(where)
            (dot if where is None else subs[where]).node(name, _label(lines), _attributes=attrs)
        # a cluster goes into its parent once its own sub-clusters are in it: deepest first
        for k in sorted(drawn, key=lambda k: (-depth[k], k)):
            parent = clusters.visible(clusters.parents[k])
            (dot if parent is None else subs[parent]).subgraph(subs[k])
    for tail, head, attrs in edges:
        dot.edge(tail, head, _attributes=attrs)
