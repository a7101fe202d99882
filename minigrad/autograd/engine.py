"""The backward engine: iterative, dependency-counted traversal of the graph.

No recursion anywhere, so a 100,000-node chain works. Each node runs once all the
nodes that feed it a gradient have run; gradients for one output add up before that.
"""
from .function import AccumulateGrad, BackwardCFunction
from .grad_mode import _GradState


def _collect(roots):
    """Dependency counts (edges into each node) and a topological order, iteratively."""
    deps = {}
    order = []  # post-order: every node after all the nodes it points to
    seen = set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(root.next_functions))]
        while stack:
            node, it = stack[-1]
            for nxt, _ in it:
                if nxt is None:
                    continue
                deps[nxt] = deps.get(nxt, 0) + 1
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, iter(nxt.next_functions)))
                    break
            else:
                stack.pop()
                order.append(node)
    return deps, order


def run_backward(outputs, grads, retain_graph, create_graph, inputs=None, allow_unused=False):
    """Backpropagate grads from outputs. With inputs (autograd.grad), return their gradients
    instead of accumulating into leaves' .grad."""
    roots = {}
    for t, g in zip(outputs, grads):
        node = t.grad_fn if t.grad_fn is not None else _leaf_node(t)
        buf = roots.setdefault(node, {})
        nr = t._output_nr
        buf[nr] = g if nr not in buf else buf[nr] + g

    deps, order = _collect(roots)
    capture = None
    if inputs is not None:
        capture = {}
        for i, t in enumerate(inputs):
            node = t.grad_fn if t.grad_fn is not None else _leaf_node(t)
            capture.setdefault(node, []).append((i, t._output_nr if t.grad_fn is not None else 0))
        # prune: run only the nodes from which some input can be reached
        needed = set()
        for node in order:
            if node in capture or any(n in needed for n, _ in node.next_functions if n is not None):
                needed.add(node)
        results = [None] * len(inputs)

    buffers = roots
    ready = [n for n in roots if deps.get(n, 0) == 0]
    handed_out = set()  # ids of grad tensors already stored in some .grad (copy before reuse)
    prev, _GradState.enabled = _GradState.enabled, create_graph
    try:
        while ready:
            node = ready.pop()
            buf = buffers.pop(node, None) or {}
            if node._tensor_hooks:
                for nr, hook in list(node._tensor_hooks.values()):
                    if buf.get(nr) is not None:
                        new = hook(buf[nr])
                        if new is not None:
                            buf[nr] = new
            if node._retained:
                for nr, ref in node._retained.items():
                    t = ref()
                    if t is not None and buf.get(nr) is not None:
                        g = buf[nr]
                        t._grad = g.clone() if t._grad is None else t._grad + g
            if capture is not None:
                for i, nr in capture.get(node, ()):
                    results[i] = buf.get(nr)
                if node not in needed or type(node) is AccumulateGrad:
                    _release(node, deps, ready, retain_graph)
                    continue
            if type(node) is AccumulateGrad:
                if buf.get(0) is not None:
                    _accumulate(node.variable, buf[0], handed_out, create_graph)
                continue
            if not buf:
                _release(node, deps, ready, retain_graph)  # nothing flowed here: pass None on
                continue
            grads_in = _call(node, buf, retain_graph)
            for (nxt, nr), g in zip(node.next_functions, grads_in):
                if nxt is None:
                    continue
                if g is not None:
                    nb = buffers.get(nxt)
                    if nb is None:
                        buffers[nxt] = {nr: g}
                    elif nr in nb:
                        nb[nr] = nb[nr] + g
                    else:
                        nb[nr] = g
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    ready.append(nxt)
    finally:
        _GradState.enabled = prev

    if capture is not None:
        for i, t in enumerate(inputs):
            if results[i] is None and not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been used "
                                   "in the graph. Set allow_unused=True if this is the desired behavior.")
        return tuple(results)
    return None


def _leaf_node(t):
    from .function import accumulator
    return accumulator(t)


def _release(node, deps, ready, retain_graph):
    if not retain_graph and isinstance(node, BackwardCFunction):
        node._saved = None
    for nxt, _ in node.next_functions:
        if nxt is not None:
            d = deps[nxt] - 1
            deps[nxt] = d
            if d == 0:
                ready.append(nxt)


def _call(node, buf, retain_graph):
    n_out = len(node._out_meta) if node._out_meta is not None else 1
    grads = [buf.get(i) for i in range(n_out)]
    if node.materialize_grads and None in grads:
        from ..tensor import _zeros_meta
        grads = [g if g is not None else _zeros_meta(*node._out_meta[i]) for i, g in enumerate(grads)]
    cls = node._forward_cls
    result = cls.backward(node, *grads)
    if not retain_graph:
        node._saved = None
    if not isinstance(result, tuple):
        result = (result,)
    n_in = len(node.next_functions)
    if len(result) != n_in:
        if len(result) > n_in and all(r is None for r in result[n_in:]):
            result = result[:n_in]
        else:
            raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                               f"(expected {n_in}, got {len(result)})")
    if not cls._builtin:
        result = _check_custom_grads(node, result)
    return result


def _check_custom_grads(node, result):
    from ..tensor import Tensor
    checked = []
    for i, (g, meta) in enumerate(zip(result, node._input_meta)):
        if g is None or meta is None:
            checked.append(None)
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"function {node.name()} returned a gradient of type "
                            f"{type(g).__name__} at index {i}; expected a Tensor or None")
        shape, dtype = meta
        if g._data.shape != shape:
            if g.numel() != _numel(shape):
                raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - "
                                   f"got {list(g._data.shape)} but expected shape compatible with {list(shape)}")
            g = g.reshape(shape)
        if g._data.dtype != dtype:
            g = g.to(_dtype_of(dtype))
        checked.append(g)
    return tuple(checked)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _dtype_of(npd):
    from ..dtypes import from_numpy_dtype
    return from_numpy_dtype(npd)


def _accumulate(var, g, handed_out, create_graph):
    if var._hooks:
        for hook in list(var._hooks.values()):
            new = hook(g)
            if new is not None:
                g = new
    old = var._grad
    if old is None:
        if id(g) in handed_out or g._vc is not None or g._base is not None:
            g = g.clone()  # the same tensor reached another leaf already, or is a view
        elif not create_graph:
            g = g.detach()
        handed_out.add(id(g))
        var._grad = g
    elif create_graph or old.grad_fn is not None:
        var._grad = old + g
    else:
        old._device.backend.iadd(old._data, g._data)  # in place, as torch accumulates
