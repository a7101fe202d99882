"""torch.utils.checkpoint: activation checkpointing, checkpoint and checkpoint_sequential.

use_reentrant=True (torch's CheckpointFunction): the forward runs under no_grad, so nothing of
the function's graph is kept; the backward re-runs it with grad enabled, from the saved inputs
and (preserve_rng_state) the RNG state the forward started from, and backpropagates through it
with autograd.backward: the inputs' gradients go on, tensors the function uses from outside
(module parameters) get theirs accumulated into .grad, as in torch (which is also why that
variant does not work with autograd.grad for those tensors).

use_reentrant=False: the forward runs with grad enabled under saved-tensor hooks that drop every
tensor its ops save for backward (as torch's does), so those activations are freed as the forward
goes; the edges by which its graph leaves the function (to the inputs, to parameters and other
outside tensors) are then found, and the outputs are re-attached to one checkpoint node with
those edges, and the rest of the function's inner graph is freed when the function returns. The
backward re-runs the function and hands the gradients on along the same edges, so autograd.grad,
kwargs, inputs without requires_grad and parameters all work as in torch.
"""
import warnings

from ..autograd.function import Function, AccumulateGrad, next_seq
from ..autograd.graph import saved_tensors_hooks
from ..random import fork_rng, get_rng_state, set_rng_state

__all__ = ["checkpoint", "checkpoint_sequential"]


def _mg():
    import minigrad
    return minigrad


def noop_context_fn():
    import contextlib
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    mg = _mg()
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, mg.Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    mg = _mg()
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, mg.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def _cuda_devices(tensors):
    return sorted({t.device.index or 0 for t in tensors if t.device.type == "cuda"})


class _RNG:
    """The RNG state a checkpointed forward starts from, restored for the recomputation."""

    def __init__(self, preserve, tensors):
        self.preserve = preserve
        if preserve:
            mg = _mg()
            self.devices = _cuda_devices(tensors)
            self.cpu = get_rng_state()
            self.cuda = [mg.cuda.get_rng_state(d) for d in self.devices]

    def recompute(self, fn):
        if not self.preserve:
            return fn()
        mg = _mg()
        with fork_rng(devices=self.devices, enabled=True):
            set_rng_state(self.cpu)
            for d, s in zip(self.devices, self.cuda):
                mg.cuda.set_rng_state(s, d)
            return fn()


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        mg = _mg()
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng = _RNG(preserve_rng_state, [a for a in args if isinstance(a, mg.Tensor)])
        ctx.inputs, ctx.tensor_indices, tensor_inputs = [], [], []
        for i, arg in enumerate(args):
            if isinstance(arg, mg.Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with mg.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *args):
        mg = _mg()
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        with mg.enable_grad():
            outputs = ctx.rng.recompute(lambda: ctx.run_function(*detached))
        if isinstance(outputs, mg.Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, args) if isinstance(o, mg.Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        mg.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = tuple(inp.grad if isinstance(inp, mg.Tensor) else None for inp in detached)
        return (None, None) + grads


class _Checkpoint(Function):
    """The node the outputs of a non-reentrant checkpoint hang from (built by _NonReentrant)."""
    _builtin = True  # the gradients it returns are already shaped as the edges' tensors
    _node_name = "CheckpointFunctionBackward"

    @staticmethod
    def backward(ctx, *grads):
        return ctx.recompute_grads(grads)


class _NonReentrant:
    def __init__(self, function, preserve, args, kwargs):
        self.function, self.args, self.kwargs = function, args, kwargs
        mg = _mg()
        tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, mg.Tensor)]
        self.rng = _RNG(preserve, tensors)

    def _leaves(self, connected=False):
        """Detached copies of the tensor arguments (requiring grad as the originals); for a
        double backward (connected), views of those that require grad, which keep their graph."""
        mg = _mg()

        def detach(a):
            if not isinstance(a, mg.Tensor):
                return a
            if connected and a.requires_grad:
                with mg.enable_grad():
                    return a.view_as(a)
            return a.detach().requires_grad_(a.requires_grad)
        return tuple(detach(a) for a in self.args), {k: detach(v) for k, v in self.kwargs.items()}

    def run(self):
        mg = _mg()
        args, kwargs = self._leaves()
        start = next_seq()
        # as torch's, the tensors the function's ops save for backward are dropped as they are saved
        # (the backward recomputes them): its activations are freed during the forward already
        with mg.enable_grad(), saved_tensors_hooks(_drop_saved, _dropped_saved):
            out = self.function(*args, **kwargs)
        flat = list(out) if isinstance(out, tuple) else [out]
        mine = {id(t): i for i, t in enumerate(list(args) + list(kwargs.values())) if isinstance(t, mg.Tensor)}
        originals = list(self.args) + list(self.kwargs.values())
        # the edges by which the function's graph leaves it: to nodes recorded before it started, to
        # leaves outside it; and the tensors the recomputation's gradients are captured at
        edges, targets, seen = [], [], set()
        stack = [t.grad_fn for t in flat if isinstance(t, mg.Tensor) and t.grad_fn is not None]
        visited = set(stack)
        while stack:
            node = stack.pop()
            for nxt, nr in node.next_functions:
                if nxt is None:
                    continue
                if isinstance(nxt, AccumulateGrad):
                    var = nxt.variable
                    if var is None or (nxt, nr) in seen:
                        continue
                    seen.add((nxt, nr))
                    if id(var) in mine:  # a copy of an argument: the edge is the original's
                        orig = originals[mine[id(var)]]
                        edges.append(_edge_of(orig))
                        targets.append(("arg", mine[id(var)], orig))
                    else:
                        edges.append((nxt, 0))
                        targets.append(("leaf", var, var))
                elif nxt._seq < start:
                    if (nxt, nr) not in seen:
                        seen.add((nxt, nr))
                        edges.append((nxt, nr))
                        targets.append(("node", (nxt, nr), None))
                elif nxt not in visited:
                    visited.add(nxt)
                    stack.append(nxt)
        self.targets = targets
        # the outputs, detached from the inner graph (which goes now) and hung from one node
        detached = [t.detach() if isinstance(t, mg.Tensor) else t for t in flat]
        if edges:
            node = _Checkpoint._backward_cls()
            node.next_functions = tuple(edges)
            node._seq = next_seq()
            node.recompute_grads = self.backward
            node.materialize_grads = False
            node._device = next(t._device for t in detached if isinstance(t, mg.Tensor))
            node._out_meta = [(t._data.shape, t._data.dtype, t._device) if isinstance(t, mg.Tensor) else None
                              for t in detached]
            for i, (t, o) in enumerate(zip(detached, flat)):
                if isinstance(t, mg.Tensor) and o.requires_grad:
                    t.grad_fn, t._output_nr, t._requires_grad = node, i, True
        return tuple(detached) if isinstance(out, tuple) else detached[0]

    def backward(self, grads):
        mg = _mg()
        from ..autograd import engine
        create_graph = mg.is_grad_enabled()
        args, kwargs = self._leaves(create_graph)
        with mg.enable_grad():
            out = self.rng.recompute(lambda: self.function(*args, **kwargs))
        flat = list(out) if isinstance(out, tuple) else [out]
        copies = list(args) + list(kwargs.values())
        capture = []
        for kind, key, _ in self.targets:
            if kind == "arg":
                capture.append(copies[key])
            elif kind == "leaf":
                capture.append(key)
            else:
                capture.append(_stand_in(*key))
        pairs = [(o, g) for o, g in zip(flat, grads)
                 if isinstance(o, mg.Tensor) and o.requires_grad and g is not None]
        if not pairs:
            return tuple(None for _ in capture)
        roots = [o for o, _ in pairs]
        seeds = [g for _, g in pairs]
        return engine.run_backward(roots, seeds, create_graph, create_graph, capture, True)


def _drop_saved(t):
    return None


def _dropped_saved(packed):
    raise RuntimeError("minigrad.utils.checkpoint: a tensor saved for backward inside a non-reentrant "
                       "checkpoint was read before the checkpoint's backward recomputed it")


def _edge_of(t):
    from ..autograd.function import accumulator
    return (t.grad_fn, t._output_nr) if t.grad_fn is not None else (accumulator(t), 0)


def _stand_in(node, nr):
    """A tensor object the engine can capture the gradient of output nr of node at."""
    mg = _mg()
    t = object.__new__(mg.Tensor)
    t.grad_fn, t._output_nr, t._requires_grad = node, nr, True
    return t


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be "
            "passed explicitly. Starting in PyTorch 2.9, calling checkpoint "
            "without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    forward_ctx, _ = context_fn()
    with forward_ctx:
        return _NonReentrant(function, preserve, args, kwargs).run()


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    mg = _mg()
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
            "parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default "
            "behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, mg.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
