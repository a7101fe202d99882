"""The backward engine: iterative, ordered by the nodes' sequence numbers.

Every node gets a sequence number when it is recorded, after the nodes it points to
(function.next_seq), so a node's gradient comes only from nodes with larger numbers. The
engine keeps the nodes that have received a gradient in a heap and always runs the one
with the largest number: by then every node that could add to its gradient has run, and
no dependency count over the whole graph is needed first. Leaves (AccumulateGrad nodes)
feed nothing, so their gradients are summed on the side and accumulated at the end. No
recursion anywhere, so a 100,000-node chain works.

Without create_graph nothing records a graph, so gradients travel as raw backend arrays and
ops that define `backward_raw` skip the Tensor layer (the common, hot case). With
create_graph they travel as Tensors through each op's Tensor-level `backward`.

Gradients waiting for a node are kept as the gradient itself for one-output nodes and as
{output_nr: gradient} for nodes with several outputs (`_out_meta` set).
"""
from heapq import heappush, heappop

from .function import AccumulateGrad, accumulator
from .grad_mode import _grad_enabled, _set_grad_enabled, grad_mode_value
from .function import _anomaly
import itertools

# The backward running (nested ones stack through run_backward's locals): (task id, outputs,
# captured nodes, needed nodes), read by graph.register_multi_grad_hook; noted only once such a
# hook was registered (_task[1]).
_task = [None, False]
_next_task = itertools.count(1).__next__

_make = None  # minigrad.tensor._make, bound by minigrad.tensor (which imports this package)


def _post_order(roots):
    """Every node reachable from roots, each after all the nodes it points to."""
    order, seen = [], set(roots)
    for root in roots:
        stack = [(root, iter(root.next_functions))]
        while stack:
            node, it = stack[-1]
            for nxt, _ in it:
                if nxt is not None and nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, iter(nxt.next_functions)))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


def _node_of(t):
    return (t.grad_fn, t._output_nr) if t.grad_fn is not None else (accumulator(t), 0)


def run_backward(outputs, grads, retain_graph, create_graph, inputs=None, allow_unused=False):
    """Backpropagate grads (Tensors) from outputs. With inputs (autograd.grad), return the
    inputs' gradients instead of accumulating into leaves' .grad."""
    raw = not create_graph
    buffers = {}  # function node -> its waiting gradient(s)
    leaves = {}   # AccumulateGrad node -> its waiting gradient, run after all function nodes
    heap = []
    for t, g in zip(outputs, grads):
        node, nr = _node_of(t)
        if node is not None:  # None: a view made in no_grad mode, whose gradient goes nowhere
            _add_to(buffers, leaves, heap, node, nr, g._data if raw else g, t._device, raw)

    capture = needed = None
    if inputs is not None:
        capture = {}
        for i, t in enumerate(inputs):
            node, nr = _node_of(t)
            capture.setdefault(node, []).append((i, nr))
        needed = set()  # run only the nodes from which some input can be reached
        for node in _post_order([n for _, n in heap]):
            if node in capture or any(n in needed for n, _ in node.next_functions if n is not None):
                needed.add(node)
        results = [None] * len(inputs)

    anomaly = _anomaly[0]
    track = _task[1]
    if track:  # a multi-grad hook exists: note which backward runs (graph.register_multi_grad_hook)
        prev_task = _task[0]
        _task[0] = (_next_task(), outputs, capture, needed)
    prev = _grad_enabled()
    _set_grad_enabled(grad_mode_value(create_graph))  # inference mode records nothing, even here
    try:
        while heap:
            node = heappop(heap)[1]
            buf = buffers.pop(node)
            single = node._out_meta is None
            slow = node._hooked or anomaly
            if slow:  # tensor hooks, retain_grad, node pre-hooks: then the node's run below
                if single:
                    buf = {0: buf}
                _run_tensor_hooks(node, buf, raw)
                if single:
                    buf = buf.get(0)
                    if buf is None:  # a pre-hook replaced the only gradient by None
                        continue
            if capture is not None:
                for i, nr in capture.get(node, ()):
                    g = buf if single else buf.get(nr)
                    results[i] = _make(g, node._device) if raw and g is not None else g
                if node not in needed:
                    continue
            cls = node._forward_cls
            if slow:
                grads_in = _run_slow(node, buf, single, raw, retain_graph, anomaly)
            elif raw and single and cls._has_raw:
                # the hot path: one output, raw arrays, an op with a raw backward
                grads_in = cls.backward_raw(node, node._device.backend, buf)
                if grads_in is NotImplemented:
                    grads_in = _call(node, {0: buf}, raw, retain_graph)
                elif grads_in.__class__ is not tuple:
                    grads_in = (grads_in,)
                if not retain_graph:
                    node._saved = None
            else:
                grads_in = _call(node, {0: buf} if single else buf, raw, retain_graph)
            for (nxt, nr), g in zip(node.next_functions, grads_in):
                if g is None or nxt is None:
                    continue
                if nxt.__class__ is AccumulateGrad:
                    old = leaves.get(nxt)
                    leaves[nxt] = g if old is None else (node._device.backend.add(old, g) if raw else old + g)
                elif nxt._out_meta is None:
                    old = buffers.get(nxt)
                    if old is None:
                        buffers[nxt] = g
                        heappush(heap, (-nxt._seq, nxt))
                    else:
                        buffers[nxt] = node._device.backend.add(old, g) if raw else old + g
                else:
                    _add_to(buffers, leaves, heap, nxt, nr, g, node._device, raw)
        if capture is not None:
            for node, g in leaves.items():
                caps = capture.get(node)
                if caps:
                    g = _make(g, node._device) if raw else g
                    var = node._variable()
                    if var is not None and var._hooks:  # as torch, a leaf's hooks see its captured gradient
                        g = _run_leaf_hooks(var, g)
                    for i, nr in caps:
                        results[i] = g
        else:
            _accumulate_leaves(leaves, grads, raw, create_graph)
    finally:
        _set_grad_enabled(prev)
        if track:
            _task[0] = prev_task

    if capture is not None:
        if not allow_unused and any(r is None for r in results):
            i = next(i for i, r in enumerate(results) if r is None)
            raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used "
                               "in the graph. Set allow_unused=True if this is the desired behavior.")
        return tuple(results)
    return None


def _accumulate_leaves(leaves, grads, raw, create_graph):
    """Add each leaf's gradient into its .grad, keeping no two .grads on one memory."""
    # ids of memory owners already stored as some leaf's .grad, or given by the caller
    handed_out = set()
    for g in grads:
        d = g._data
        handed_out.add(id(d.base if d.base is not None else d))
    for node, g in leaves.items():
        var = node._variable()
        if var is None:
            continue
        if node._hooked:
            _accumulate_hooked(node, var, g, raw, handed_out, create_graph)
            continue
        if raw and var._grad is None and not var._hooks:
            # the hot case: a fresh raw gradient for a leaf without .grad or hooks
            owner = g.base
            if owner is None:
                owner = g
            # torch's layout contract (.grad steps as var does) holds for a gradient of var's
            # strides, and for a 1-d one owning its memory; any other goes by _accumulate
            lay = node._layout
            if lay is None or lay[0] is not var._data:
                lay = node._layout = (var._data, var._data.strides)
            if id(owner) not in handed_out and (owner is g or not _aliases_itself(g)) and (
                    (owner is g and g.ndim < 2) or g.strides == lay[1]):
                handed_out.add(id(owner))
                var._grad = _make(g, var._device)
                continue
        accumulate(var, _make(g, var._device) if raw else g, handed_out, create_graph)


def _add_to(buffers, leaves, heap, node, nr, g, device, raw):
    """Add gradient g for output nr of node, queueing a function node when it is its first
    gradient (run_backward's loop inlines the one-output cases, the hot path)."""
    if node.__class__ is AccumulateGrad:
        buffers = leaves
    buf = buffers.get(node)
    if buf is None:
        buffers[node] = g if node._out_meta is None else {nr: g}
        if buffers is not leaves:
            heappush(heap, (-node._seq, node))
    elif node._out_meta is None:
        buffers[node] = device.backend.add(buf, g) if raw else buf + g
    elif nr in buf:
        buf[nr] = device.backend.add(buf[nr], g) if raw else buf[nr] + g
    else:
        buf[nr] = g


def _run_slow(node, buf, single, raw, retain_graph, anomaly):
    """A node with node hooks, or any node under anomaly detection: run it (the same steps as
    run_backward's loop, which keeps its own inline copy because it is the hot path), then its
    post-hooks, then check its gradients for NaN."""
    cls = node._forward_cls
    try:
        if raw and single and cls._has_raw:
            grads_in = cls.backward_raw(node, node._device.backend, buf)
            if grads_in is NotImplemented:
                grads_in = _call(node, {0: buf}, raw, retain_graph)
            elif grads_in.__class__ is not tuple:
                grads_in = (grads_in,)
            if not retain_graph:
                node._saved = None
        else:
            grads_in = _call(node, {0: buf} if single else buf, raw, retain_graph)
        if node._post_hooks:
            grads_in = _run_post_hooks(node, grads_in, {0: buf} if single else buf, raw)
    except Exception:
        if anomaly:
            _warn_anomaly(node)
        raise
    if anomaly and _anomaly[1]:
        for i, g in enumerate(grads_in):
            if g is not None and _has_nan(g, node._device, raw):
                _warn_anomaly(node)
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    return grads_in


def _has_nan(g, device, raw):
    t = _make(g, device) if raw else g
    if t._data.dtype.kind not in "fc" and t._data.dtype.char != "H":  # (H: bfloat16)
        return False
    prev = _grad_enabled()
    _set_grad_enabled(False)
    try:
        return bool(t.isnan().any().item())
    finally:
        _set_grad_enabled(prev)


def _warn_anomaly(node):
    import warnings
    tb = (node._metadata or {}).get("traceback_")
    if tb is None:
        msg = (f"Error detected in {node.name()}. No forward pass information available. Enable detect "
               "anomaly during forward pass for more information.")
    else:
        msg = f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n" + "".join(tb)
    warnings.warn(msg, stacklevel=2)


def _as_tensors(grads, device, raw):
    return tuple(_make(g, device) if raw and g is not None else g for g in grads)


def _checked_hook_grads(hook, old, new):
    """torch's checks on what a node hook returned in place of a tuple of gradients."""
    from ..tensor import Tensor
    if not isinstance(new, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
    if len(new) != len(old):
        name = getattr(hook, "__name__", type(hook).__name__)
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values (got {len(new)}, "
                           f"but expected {len(old)})")
    for o, n in zip(old, new):
        if n is not None:
            if not isinstance(n, Tensor):
                raise TypeError(f"expected Variable, but hook returned '{type(n).__name__}'")
            if o is not None:
                _check_hook_result(hook, o, n)
    return new


def _run_pre_hooks(node, buf, raw):
    """Node pre-hooks (register_prehook): each sees and may replace the tuple of the node's
    output gradients; buf ({output_nr: gradient}) is updated in place."""
    n = 1 if node._out_meta is None else len(node._out_meta)
    grads = _as_tensors([buf.get(i) for i in range(n)], node._device, raw)
    for hook in list(node._pre_hooks.values()):
        new = hook(grads)
        if new is not None:
            grads = _checked_hook_grads(hook, grads, new)
    buf.clear()
    for i, g in enumerate(grads):
        if g is not None:
            buf[i] = g._data if raw else g


def _run_post_hooks(node, grads_in, buf, raw):
    """Node post-hooks (register_hook): hook(grad_inputs, grad_outputs), where grad_inputs has
    one entry per input of the forward (None for those that need no gradient)."""
    dev = node._device
    nexts = node.next_functions
    grads_in = list(grads_in)[:len(nexts)] + [None] * (len(nexts) - len(grads_in))
    cls = getattr(node, "_forward_cls", None)
    builtin = cls is None or cls._builtin
    gin = tuple(None if g is None or (builtin and nxt is None) else (_make(g, dev) if raw else g)
                for (nxt, _), g in zip(nexts, grads_in))
    n = 1 if node._out_meta is None else len(node._out_meta)
    gout = _as_tensors([buf.get(i) for i in range(n)], dev, raw)
    for hook in list(node._post_hooks.values()):
        new = hook(gin, gout)
        if new is not None:
            gin = _checked_hook_grads(hook, gin, new)
    return [g._data if raw and g is not None else g for g in gin]


def _accumulate_hooked(node, var, g, raw, handed_out, create_graph):
    """A leaf whose AccumulateGrad node has hooks (node hooks, or the leaf's post-accumulate-grad
    hooks): tensor hooks, node pre-hooks, accumulation, post-accumulate hooks, node post-hooks."""
    g = _make(g, var._device) if raw else g
    if var._hooks:
        g = _run_leaf_hooks(var, g, handed_out)
    if node._pre_hooks:
        buf = {0: g}
        _run_pre_hooks(node, buf, False)
        g = buf.get(0)
        if g is None:
            return
    accumulate(var, g, handed_out, create_graph, hooks=False)
    if node._post_hooks:
        _run_post_hooks(node, (), {0: g}, False)


def _run_leaf_hooks(var, g, handed_out=None):
    for hook in list(var._hooks.values()):
        new = hook(g)
        if new is not None:
            _check_hook_result(hook, g, new)
            g = new
    if handed_out is not None:
        # a hook may have kept the gradient it saw: .grad gets a copy, as torch's (which steals
        # a gradient's memory only when nothing else refers to it)
        d = g._data
        handed_out.add(id(d.base if d.base is not None else d))
    return g


def _run_post_accumulate_hooks(var):
    for hook in list(var._post_acc_hooks.values()):
        res = hook(var)
        if res is not None:
            raise TypeError(f"expected Variable, but hook returned '{type(res).__name__}'")


def _run_tensor_hooks(node, buf, raw):
    dev = node._device
    if node._tensor_hooks:
        for nr, hook in list(node._tensor_hooks.values()):
            g = buf.get(nr)
            if g is not None:
                old = _make(g, dev) if raw else g
                new = hook(old)
                if new is not None:
                    _check_hook_result(hook, old, new)
                    buf[nr] = new._data if raw else new
    if node._retained:
        for nr, ref in node._retained.items():
            t, g = ref(), buf.get(nr)
            if t is not None and g is not None:
                g = _make(dev.backend.copy(g), dev) if raw else g.clone()
                t._grad = g if t._grad is None else t._grad + g
    if node._pre_hooks:
        _run_pre_hooks(node, buf, raw)


def _call(node, buf, raw, retain_graph):
    meta = node._out_meta
    if meta is None:
        grads = [buf.get(0)]
    else:
        grads = [buf.get(i) for i in range(len(meta))]
        if node.materialize_grads and any(g is None for g in grads):
            grads = [g if g is not None else _zeros(meta[i], raw) for i, g in enumerate(grads)]
    cls = node._forward_cls
    dev = node._device
    result = NotImplemented
    if raw and cls._has_raw and meta is not None:
        result = cls.backward_raw(node, dev.backend, *grads)
    if result is NotImplemented:
        if raw:
            grads = [_make(g, dev) if g is not None else None for g in grads]
        result = cls.backward(node, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        result = _check_grads(node, result)
        if raw:
            result = [g._data if g is not None else None for g in result]
    elif not isinstance(result, tuple):
        result = (result,)
    if not retain_graph:
        node._saved = None
    return result


def _zeros(meta, raw):
    from ..tensor import _zeros_meta
    t = _zeros_meta(*meta)
    return t._data if raw else t


def _check_grads(node, result):
    n_in = len(node.next_functions)
    if len(result) != n_in:
        if len(result) > n_in and all(r is None for r in result[n_in:]):
            result = result[:n_in]
        else:
            raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                               f"(expected {n_in}, got {len(result)})")
    if node._forward_cls._builtin:
        return result
    from ..tensor import Tensor
    from ..dtypes import from_numpy_dtype
    checked = []
    for i, (g, meta) in enumerate(zip(result, node._input_meta)):
        if g is None or meta is None:
            # a gradient for an input that needs none goes nowhere; node post-hooks see it, as torch's
            checked.append(g if isinstance(g, Tensor) else None)
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"function {node.name()} returned a gradient of type "
                            f"{type(g).__name__} at index {i}; expected a Tensor or None")
        shape, dtype = meta
        if g._data.shape != shape:
            if g._data.size != _numel(shape):
                raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - "
                                   f"got {list(g._data.shape)} but expected shape compatible with {list(shape)}")
            g = g.reshape(shape)
        if g._data.dtype != dtype:
            g = g.to(from_numpy_dtype(dtype))
        checked.append(g)
    return tuple(checked)


def _check_hook_result(hook, old, new):
    """torch's checks on what a tensor hook returned in place of the gradient."""
    from ..tensor import Tensor
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    name = getattr(hook, "__name__", type(hook).__name__)
    if new._data.dtype != old._data.dtype or new._device is not old._device:
        from .._typename import typename
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {typename(old)} got "
                           f"{typename(new)})")
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def accumulate(var, g, handed_out, create_graph, hooks=True):
    """Add gradient g (a Tensor) into leaf var's .grad, after the leaf's hooks (unless the
    caller ran them), then run its post-accumulate-grad hooks."""
    if hooks and var._hooks:
        g = _run_leaf_hooks(var, g, handed_out)
    _accumulate(var, g, handed_out, create_graph)
    if var._post_acc_hooks:
        _run_post_accumulate_hooks(var)


def _accumulate(var, g, handed_out, create_graph):
    old = var._grad
    if old is None:
        data = g._data
        laid = _obeying_layout(g, var)
        if laid is not g:  # a fresh copy in var's layout: nothing else holds it
            var._grad = laid
            handed_out.add(id(laid._data))
            return
        if not create_graph:
            # keep the gradient's memory unless another leaf (or the caller) holds it too, or
            # it is a broadcast view whose elements alias each other
            owner = data.base
            if owner is None:
                owner = data
            if id(owner) in handed_out or (owner is not data and _aliases_itself(data)):
                g = _copy(g)
                owner = g._data
            elif g.grad_fn is not None or g._requires_grad or g._vc is not None:
                g = _make_plain(g)
            handed_out.add(id(owner))
        elif g._base is not None:  # as torch's: a gradient kept for double backward is no view
            g = g.clone() if g._requires_grad else _copy(g)
        var._grad = g
    elif create_graph or old.grad_fn is not None:
        var._grad = old + g
    else:
        old._device.backend.iadd(old._data, g._data)  # in place, as torch accumulates


def _obeying_layout(g, var):
    """g, or a copy of it in the layout torch's AccumulateGrad gives a new .grad: a dense leaf's
    own strides (dims of size 1 may step anyhow, but not by 0), else row-major."""
    data = g._data
    if not data.size:
        return g
    be = g._device.backend
    have, mine = be.strides(data), be.strides(var._data)
    if have == mine and be.is_contiguous(data):
        return g
    from .. import memory_formats as mf
    shape = data.shape
    want = var.stride()
    order = mf._dense_order(shape, want)
    if order is not None:
        if all((h == m) if n != 1 else h != 0 for h, m, n in zip(have, mine, shape)):
            return g
    elif be.is_contiguous(data):
        return g
    if g._requires_grad:  # a gradient kept for double backward: the copy joins its graph
        from ..ops.shape import Clone
        return Clone.apply(g, order)
    return _make(mf.with_strides(be, data, want if order is not None else None), g._device)


def _aliases_itself(a):
    """A broadcast view: some elements share memory, so it cannot be accumulated into."""
    return any(st == 0 and n > 1 for st, n in zip(a.strides, a.shape))


def _make_plain(g):
    return _make(g._data, g._device)


def _copy(g):
    return _make(g._device.backend.copy(g._data), g._device)
