"""torch.autograd.graph: the graph's Node class, saved-tensor hooks and multi-tensor gradient hooks.

Saved-tensor hooks: inside `saved_tensors_hooks(pack, unpack)` every tensor a recorded op saves
for backward through ctx.save_for_backward (built-in ops and custom Functions alike) is passed
to pack as it is saved, and what pack returned is kept instead of the tensor; the backward gets
unpack(packed) each time it reads the saved tensor. The innermost context wins, as in torch; as
in torch, a tensor saved through hooks is not checked against in-place changes. The contexts
are process-wide here (torch's are per thread).
"""
import contextlib

from . import function as _function
from . import engine as _engine
from .function import Node

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "register_multi_grad_hook", "increment_version"]


class saved_tensors_hooks:
    """Context manager: pack_hook(tensor) -> anything, unpack_hook(packed) -> Tensor, for every
    tensor saved for backward inside it."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        msg = _function._hooks_disabled[0]
        if msg is not None:
            raise RuntimeError(msg)
        _function._saved_hooks.append((self.pack_hook, self.unpack_hook))
        _function._update_record_extra()

    def __exit__(self, *args):
        _function._saved_hooks.pop()
        _function._update_record_extra()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors live on the CPU between the forward and the backward, and go back to their
    device when the backward reads them (minigrad has no pinned memory: pin_memory only changes
    nothing)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            return (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Inside it, entering saved_tensors_hooks (or being inside one) raises RuntimeError(error_message)."""
    prev = _function._hooks_disabled[0]
    if _function._saved_hooks:
        raise RuntimeError(error_message)
    try:
        _function._hooks_disabled[0] = error_message
        yield
    finally:
        _function._hooks_disabled[0] = prev


class _MultiHandle:
    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()

    def __getstate__(self):
        return self.handles

    def __setstate__(self, state):
        self.handles = state


def _current_graph_task_id():
    task = _engine._task[0]
    return -1 if task is None else task[0]


def _node_for(t):
    return t.grad_fn if t.grad_fn is not None else _function.accumulator(t)


def _will_engine_execute_node(node):
    """Whether the running backward reaches node (for autograd.grad: needs or captures it)."""
    task = _engine._task[0]
    if task is None:
        raise RuntimeError("_will_engine_execute_node should only be called during the backward pass")
    _, outputs, capture, needed = task
    if capture is not None:
        return node in capture or node in needed
    roots = [_engine._node_of(t)[0] for t in outputs]
    return node in set(_engine._post_order([r for r in roots if r is not None]))


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """mode "all": fn(grads) once per backward, after the gradients of all of tensors that the
    backward computes (None for the others); mode "any": fn(grad) with the first of them."""
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    _engine._task[1] = True  # from now on the engine notes which backward is running
    if mode == "all":
        count, buffer = {}, {}
        nb_calls = None
        grad_fns = [_node_for(t) for t in tensors]
        len_tensors = len(tensors)

        def get_inner_hook(idx):
            def inner_hook(grad):
                nonlocal nb_calls
                task = _current_graph_task_id()
                assert task != -1, "expected this hook to be called inside a backward call"
                count[task] = count.get(task, 0)
                buffer[task] = buffer.get(task, [None] * len_tensors)
                curr_count, count[task] = count[task], count[task] + 1
                if curr_count == 0:
                    nb_calls = sum(map(_will_engine_execute_node, grad_fns))
                buffer[task][idx] = grad
                if curr_count == nb_calls - 1:
                    fn(buffer[task])
                    del count[task]
                    del buffer[task]
            return inner_hook

        handles = tuple(t.register_hook(get_inner_hook(i)) for i, t in enumerate(tensors) if t.requires_grad)
    else:
        ran_hook = {}

        def wrapped_fn(grad):
            task = _current_graph_task_id()
            assert task != -1, "expected this hook to be called inside a backward call"
            prev, ran_hook[task] = ran_hook.get(task, False), True
            if prev:
                return
            fn(grad)

        handles = tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)


def increment_version(tensor):
    """Bump the version counter of tensor (or of each tensor of an iterable), as an in-place
    change minigrad cannot see would."""
    from ..tensor import Tensor
    if isinstance(tensor, Tensor):
        tensor = (tensor,)
    for t in tensor:
        if not t._inference:
            t._bump_version()
