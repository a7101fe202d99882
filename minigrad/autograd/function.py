"""Graph nodes and the Function API that every op, built-in or user-defined, goes through.

`Function.apply` runs `forward(ctx, *args)` and, when some input requires grad and grad mode
is on, makes `ctx` the outputs' `grad_fn`: ctx is an instance of a node class generated per
Function (`MulBackward0`, `MyFnBackward`), holding the saved tensors and the edges
(`next_functions`) to the inputs' nodes.
"""
import contextvars
import itertools
import weakref

_new = object.__new__

from .grad_mode import _grad_enabled, _set_grad_enabled, _inference_enabled


class Node:
    """Base of everything found in `grad_fn` and `next_functions`."""
    next_functions = ()
    _device = None         # where the node's gradients live (set when recorded)
    _tensor_hooks = None   # {handle id: (output_nr, fn)}: hooks of the tensors this node made
    _retained = None       # {output_nr: weakref to a tensor that called retain_grad()}
    _scope = None          # (module, parent scope) of the nn.Module forwards this node was made in
    _out_meta = None       # (shape, dtype, device) per output, for multi-output nodes
    _seq = 0               # sequence number: larger than those of the nodes it points to
    _hooked = False        # a tensor hook, retain_grad or node hook is set: the engine's slow path
    _pre_hooks = None      # {handle id: fn(grad_outputs)} (register_prehook)
    _post_hooks = None     # {handle id: fn(grad_inputs, grad_outputs)} (register_hook)
    _metadata = None

    def name(self):
        return getattr(self, "_full_name", None) or type(self).__name__

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) -> new grad_inputs or None, after the node has run."""
        if self._post_hooks is None:
            self._post_hooks = {}
        return _node_hook(self, self._post_hooks, fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) -> new grad_outputs or None, before the node runs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return _node_hook(self, self._pre_hooks, fn)

    @property
    def metadata(self):
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"


class HookHandle:
    """A hook registration; remove() unregisters it (also as a context manager), as torch's
    torch.utils.hooks.RemovableHandle."""
    _ids = itertools.count(1).__next__

    def __init__(self, hooks_dict=None):
        self.id = HookHandle._ids()
        self._dict = hooks_dict

    def remove(self):
        if self._dict is not None:
            self._dict.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _node_hook(node, hooks, fn):
    handle = HookHandle(hooks)
    hooks[handle.id] = fn
    node._hooked = True
    return handle


# The nn.Module forwards running in this thread, innermost first, as a linked chain
# (module, parent chain) or None; nodes record it so graphs can be grouped by module. It is
# held in a one-element list, the thread's "scope cell", found through a context variable:
# per thread like a threading.local at a third of the cost to read, and a module call updates
# the cell in place instead of paying for ContextVar.set and reset. A thread gets its cell on
# its first module call (scope_cell()); until then it reads _NO_CELL.
_SCOPE_CELL = contextvars.ContextVar("minigrad_module_scope")
_NO_CELL = (None,)
_cell_get = _SCOPE_CELL.get


def scope_cell():
    """This thread's scope cell, created on first use."""
    cell = _cell_get(None)
    if cell is None:
        cell = [None]
        _SCOPE_CELL.set(cell)
    return cell


def current_scope():
    """The chain of module forwards running in this thread, innermost first, or None."""
    return _cell_get(_NO_CELL)[0]

# Numbers for new nodes, given once a node's edges exist, so that every edge leads to a node
# with a smaller number: the engine runs nodes in decreasing order (thread-safe: count's
# __next__ is one C call).
next_seq = itertools.count(1).__next__


class AccumulateGrad(Node):
    """The node of a leaf tensor that requires grad: backward adds into `variable.grad`.

    The leaf holds its node and the node holds the leaf weakly, so neither keeps the other
    alive (a leaf nobody references has no .grad anyone could read).
    """

    _layout = None  # (the leaf's array, its strides), kept by the engine's layout check

    def __init__(self, variable):
        self._variable = weakref.ref(variable)
        self._device = variable._device
        self._seq = next_seq()

    @property
    def variable(self):
        return self._variable()


def accumulator(t):
    """The AccumulateGrad node of leaf t, made once per leaf; None for a view made in no_grad
    mode, which requires grad (as its base does) but whose edges, as in torch, lead nowhere."""
    acc = t._grad_acc
    if acc is None:
        if t._no_grad_view is not None:
            return None
        acc = t._grad_acc = AccumulateGrad(t)
    return acc


_FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
          "after they have already been freed). Saved intermediate values of the graph are freed "
          "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
          "backward through the graph a second time or if you need to access saved tensors after "
          "calling backward.")


class BackwardCFunction(Node):
    """The ctx of a Function call, and the node that runs its backward."""
    _forward_cls = None
    _saved = ()            # packed saved tensors; None once freed
    _to_save = ()
    _non_differentiable = ()
    materialize_grads = True

    def save_for_backward(self, *tensors):
        self._to_save = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def mark_dirty(self, *tensors):
        pass  # in-place custom functions bump versions through the tensor API they use

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    def _checked_saved(self):
        """The packed saved entries, after checking none was freed or modified in place."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(_FREED)
        for entry in saved:
            if entry is not None:
                t, version, output_nr = entry
                vc = t._vc
                if vc is not None and vc[0] != version:
                    raise RuntimeError(_modified_message(t, version, self, output_nr))
        return saved

    @property
    def saved_tensors(self):
        out = []
        for entry in self._checked_saved():
            if entry is not None and entry[2] >= 0:
                # an output saved without its grad_fn (no reference cycle): reattach it here
                t, _, output_nr = entry
                alias = _new(Tensor)
                alias._data, alias._device, alias._vc = t._data, t._device, t._vc
                alias.grad_fn, alias._output_nr, alias._requires_grad = self, output_nr, True
                out.append(alias)
            elif entry is not None and entry[0].__class__ is HookedSaved:
                out.append(entry[0].unpacked())
            else:
                out.append(entry[0] if entry is not None else None)
        return tuple(out)

    def saved_arrays(self):
        """The saved tensors' backend arrays, for the raw backward formulas."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(_FREED)
        out = []
        for entry in saved:
            if entry is None:
                out.append(None)
                continue
            t = entry[0]
            vc = t._vc
            if vc is not None and vc[0] != entry[1]:
                self._checked_saved()  # raises the modified-in-place error
            out.append(t._data)
        return out

    def saved_array(self, i=0):
        """Saved tensor i's backend array (saved_arrays()[i] without building the list)."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(_FREED)
        t, version, _ = saved[i]
        vc = t._vc
        if vc is not None and vc[0] != version:
            self._checked_saved()  # raises the modified-in-place error
        return t._data

    def _pack(self, outputs):
        packed = []
        for t in self._to_save:
            if t is None:
                packed.append(None)
                continue
            for i, o in enumerate(outputs):
                if o is t:
                    packed.append(_output_entry(t, i))
                    break
            else:
                packed.append(_input_entry(t))
        self._saved = packed
        self._to_save = ()


def node_label(name):
    """A node as torch's error messages name it: without the "Backward" of its name, nor an
    overload number 0 (ExpBackward0 -> Exp, ClampBackward1 -> Clamp1, a custom function's
    MyFnBackward -> MyFn); a node torch writes in C++ (CopySlices, CopyBackwards) by its
    qualified name."""
    head, sep, tail = name.rpartition("Backward")
    if sep and head and (not tail or tail.isdigit()):
        return head if tail == "0" else head + tail
    return "minigrad::autograd::" + name


def _modified_message(t, version, node, output_nr):
    shape = list(t._data.shape)
    if output_nr >= 0:  # an output of node: torch names node, whatever t's grad_fn is now
        name, nr = node.name(), output_nr
    elif t._base is not None and t._vc[1] != t._view_mark and t._no_grad_view is None:
        # a view whose base changed in place: its grad_fn is now regenerated from the base's graph
        from ..ops.view_inplace import ViewGather
        name, nr = ViewGather._backward_cls.__name__, 0
    else:  # an input: torch names the node that made its current value (an in-place op's), if any
        name, nr = (t.grad_fn.name() if t.grad_fn is not None else None), t._output_nr
    where = f", which is output {nr} of {node_label(name)}," if name is not None else ""
    # torch's hint names anomaly detection, which minigrad does not have; this one names the node instead
    return ("one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: [minigrad.{t.dtype._legacy} {shape}]{where} is at version {t._version}; "
            f"expected version {version} instead. Hint: the tensor was saved for backward by "
            f"{node.name()}; compute the in-place operation on a clone() instead.")


class _NoCtx:
    """Stand-in ctx for built-in ops run without recording: saving is a no-op."""
    needs_input_grad = (False, False, False, False, False, False)

    def save_for_backward(self, *tensors):
        pass

    def mark_non_differentiable(self, *tensors):
        pass


NO_CTX = _NoCtx()


class Function:
    """Subclass with @staticmethod forward(ctx, ...) and backward(ctx, *grads); call .apply()."""
    _builtin = False   # built-in ops compute on raw arrays and skip the no_grad wrapper
    _node_name = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._has_raw = hasattr(cls, "backward_raw")
        name = cls.__dict__.get("_node_name") or cls.__name__ + "Backward"
        # torch's C++-named nodes (torch::autograd::NotImplemented) show the last part as their
        # Python type's name and the whole as name()
        cls._backward_cls = type(name.rpartition("::")[2], (BackwardCFunction,),
                                 {"_forward_cls": cls, "__module__": cls.__module__, "_full_name": name})

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Function objects are not instantiated: call the class's apply() "
                           "(e.g. MyFunction.apply(x)) instead")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    @classmethod
    def apply(cls, *args):
        if _grad_enabled():
            needs = tuple([isinstance(a, Tensor) and a._requires_grad for a in args])
            if True in needs:
                return _record(cls, args, needs)
        if cls._builtin:
            return cls.forward(NO_CTX, *args)
        ctx = cls._backward_cls()
        ctx.needs_input_grad = (False,) * len(args)
        prev = _grad_enabled()
        _set_grad_enabled(False)
        try:
            out = cls.forward(ctx, *args)
        finally:
            _set_grad_enabled(prev)
        return _fresh_outputs(out, args)


def apply_unary(cls, a):
    """Built-in cls.apply(a) for a Tensor a, without the general argument scan."""
    if a._requires_grad and _grad_enabled():
        return _record(cls, (a,), _NEEDS_1)
    return cls.forward(NO_CTX, a)


def apply_binary(cls, a, b):
    """Built-in cls.apply(a, b) for a Tensor a and a Tensor-or-Python-number b."""
    if _grad_enabled():
        nb = b._requires_grad if isinstance(b, Tensor) else False
        if a._requires_grad or nb:
            return _record(cls, (a, b), (a._requires_grad, nb))
    return cls.forward(NO_CTX, a, b)


def apply_first(cls, a, *params):
    """Built-in cls.apply(a, *params) where only a is a Tensor (shape ops, reductions, ...)."""
    if a._requires_grad:
        if _grad_enabled():
            return _record(cls, (a,) + params, (True,) + (False,) * len(params))
        out = cls.forward(NO_CTX, a, *params)
        if isinstance(out, Tensor) and out._base is not None:
            _mark_no_grad_view(out)
        return out
    return cls.forward(NO_CTX, a, *params)


def _mark_no_grad_view(view):
    """A view made in no_grad mode of a tensor that requires grad requires grad too, as in torch,
    but has no grad_fn and gives no gradient to anything; modifying it in place in grad mode, or
    using it in grad mode once it or its base was modified in place, is an error
    (ops/view_inplace.py). Its _view_mark of -1 makes every recorded op that uses it check."""
    view._requires_grad = True
    view._no_grad_view = view._vc[0]
    view._view_mark = -1
    if _inference_enabled():  # torch's errors about it then name inference mode
        view._inference_mode_view = True
    view.__class__ = NoGradView  # its grad_fn, read, checks the version (tensor.py)


_NEEDS_1 = (True,)


def _refresh_view(view):
    """A recorded in-place op changed view's base after view was made: view's grad_fn must now
    come from the base's new graph (torch regenerates it the same way)."""
    from ..ops.view_inplace import regenerate
    regenerate(view)


def _alias_of(o, t):
    """o is the new object _fresh_outputs gave for input t, returned as is by a custom forward."""
    replay = o._view_replay
    return replay is not None and replay[0] is t and replay[1] is None


def _fresh_outputs(out, args):
    """A custom forward may return an input as is: give the caller a new tensor object."""
    if isinstance(out, tuple):
        return tuple(_fresh_outputs(o, args) for o in out)
    if isinstance(out, Tensor) and any(out is a for a in args):
        return out._alias()
    return out


def _record(cls, args, needs):
    ctx = cls._backward_cls()
    ctx.needs_input_grad = needs
    builtin = cls._builtin
    if builtin:
        out = cls.forward(ctx, *args)  # built-in forwards compute on arrays: nothing to record
    else:
        prev = _grad_enabled()
        _set_grad_enabled(False)
        try:
            out = _fresh_outputs(cls.forward(ctx, *args), args)
        finally:
            _set_grad_enabled(prev)
        for o in (out if out.__class__ is tuple else (out,)):
            if isinstance(o, Tensor) and o._no_grad_view is not None:
                # a view of an input, made in the forward's no_grad mode: an output of this
                # node, which becomes its grad_fn, not a view the user made in no_grad mode
                o._no_grad_view, o._view_mark = None, o._vc[1]
                o.__class__ = Tensor
    edges = []
    for a, n in zip(args, needs):
        if n:
            if a._base is not None and a._vc[1] != a._view_mark:
                _refresh_view(a)
            fn = a.grad_fn
            if fn is None:
                fn = a._grad_acc
                edges.append((fn if fn is not None else accumulator(a), 0))
            else:
                edges.append((fn, a._output_nr))
        else:
            edges.append(_NO_EDGE)
    ctx.next_functions = tuple(edges)
    ctx._seq = next_seq()
    scope = _cell_get(_NO_CELL)[0]
    if scope is not None:
        ctx._scope = scope
    if not builtin:
        ctx._input_meta = [(a._data.shape, a._data.dtype) if n else None for a, n in zip(args, needs)]
    if out.__class__ is not tuple:
        ctx._device = out._device
        if out._data.dtype.kind == "f" or out._data.dtype.char == "H":  # (H: bfloat16)
            out.grad_fn = ctx
            out._requires_grad = True
            if not builtin and out._base is not None:
                out._custom_view = (cls.__name__, 0)  # torch forbids modifying it in place
        to_save = ctx._to_save
        if to_save:
            # the one-output case of _pack, inlined (every recorded op that saves goes here)
            packed = []
            for t in to_save:
                if t is None:
                    packed.append(None)
                elif t is out:
                    packed.append(_output_entry(t, 0))
                else:  # _input_entry, inlined
                    if t._inference:
                        raise RuntimeError(_INFERENCE_SAVED)
                    vc = t._vc
                    packed.append((t, vc[0] if vc is not None else 0, -1))
            ctx._saved = packed
            ctx._to_save = ()
        if _record_extra:
            _after_record(ctx, (out,))
        return out
    ctx._device = next(o._device for o in out if isinstance(o, Tensor))
    ctx._out_meta = [(o._data.shape, o._data.dtype, o._device) if isinstance(o, Tensor) else None
                     for o in out]
    nondiff = ctx._non_differentiable
    for i, o in enumerate(out):
        if (isinstance(o, Tensor) and (o._data.dtype.kind == "f" or o._data.dtype.char == "H")
                and not any(o is t or _alias_of(o, t) for t in nondiff)):
            o.grad_fn, o._output_nr, o._requires_grad = ctx, i, True
            if not builtin and o._base is not None:
                o._custom_view = (cls.__name__, i)  # torch forbids modifying it in place
    if ctx._to_save:
        ctx._pack(out)
    if _record_extra:
        _after_record(ctx, out)
    return out


# Set while anomaly detection is on or a saved-tensors-hooks context is active (autograd/graph.py,
# autograd/anomaly_mode.py): _record then calls _after_record, so neither costs anything otherwise.
_record_extra = False
_anomaly = [False, True]   # [detect anomaly, check nan]
_saved_hooks = []          # (pack_hook, unpack_hook) stack of saved_tensors_hooks, innermost last
_hooks_disabled = [None]   # the error message of disable_saved_tensors_hooks, while it is active


def _update_record_extra():
    global _record_extra
    _record_extra = bool(_anomaly[0] or _saved_hooks)


def _after_record(ctx, outputs):
    if _anomaly[0]:
        import traceback
        import os
        pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
        # the forward call as the user made it: the frames up to the first one inside minigrad
        keep = []
        for frame in traceback.extract_stack():
            if frame.filename.startswith(pkg):
                break
            keep.append(frame)
        ctx.metadata["traceback_"] = traceback.format_list(keep)
    if _saved_hooks and ctx._saved:
        pack, unpack = _saved_hooks[-1]
        packed = []
        for entry in ctx._saved:
            if entry is None:
                packed.append(None)
                continue
            t, version, nr = entry
            if nr >= 0:
                t = outputs[nr]
            vc = t._vc
            before = vc[0] if vc is not None else 0
            prev = _grad_enabled()
            _set_grad_enabled(False)  # as torch, pack hooks run in no_grad mode
            try:
                value = pack(t)
            finally:
                _set_grad_enabled(prev)
            vc = t._vc
            if (vc[0] if vc is not None else 0) != before:
                raise RuntimeError("A saved tensor pack hook is modifying its input in place. Tensors provided "
                                   "as input to pack hook cannot be modified by in-place operations as this can "
                                   "lead to unexpected side-effects. Please open an issue if you need to perform "
                                   "in-place operations on the input to a pack hook.")
            packed.append((HookedSaved(value, unpack, t._device), version, nr))
        ctx._saved = packed


def custom_view_error(t):
    """torch's error for an in-place op on a view that a custom Function returned."""
    name, nr = t._custom_view
    return RuntimeError(f"Output {nr} of {name} is a view and is being modified inplace. This view was created "
                        "inside a custom Function (or because an input was returned as-is) and the autograd logic "
                        "to handle view+inplace would override the custom backward associated with the custom "
                        "Function, leading to incorrect gradients. This behavior is forbidden. You can fix this "
                        "by cloning the output of the custom Function.")


class HookedSaved:
    """A saved tensor as a pack hook packed it: unpacked by its unpack hook at each use. Its _vc
    is None: as torch, no version check on a tensor saved through hooks."""
    __slots__ = ("_packed", "_unpack", "_device")
    _vc = None

    def __init__(self, packed, unpack, device):
        self._packed, self._unpack, self._device = packed, unpack, device

    def unpacked(self):
        t = self._unpack(self._packed)
        if not isinstance(t, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                            f"type {type(t).__name__}")
        return t

    @property
    def _data(self):
        return self.unpacked()._data


_INFERENCE_SAVED = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in "
                    "inference mode in computation tracked by autograd. To work around this, you can make a "
                    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
                    "`torch.inference_mode()`.")


def check_savable(t):
    """torch's error for an inference tensor that a recorded op keeps for its backward. save_for_backward
    checks what it saves; an op that keeps an input's array instead calls this where torch saves it."""
    if t._inference:
        raise RuntimeError(_INFERENCE_SAVED)


def _input_entry(t):
    """The saved entry for a tensor that is not an output of the node: the tensor and its version."""
    check_savable(t)
    vc = t._vc
    return (t, vc[0] if vc is not None else 0, -1)


def _output_entry(t, i):
    """The saved entry for output i of the node itself: its memory and version counter, not
    the tensor (the tensor holds the node as grad_fn: that would be a reference cycle)."""
    vc = t._vc
    alias = _new(Tensor)
    alias._data, alias._device = t._data, t._device
    if vc is None:
        vc = t._vc = [0, 0]
    alias._vc = vc
    return (alias, vc[0], i)


_NO_EDGE = (None, 0)


Tensor = None  # bound by minigrad.tensor once the class exists (it imports this module)
NoGradView = None  # and its class of views made in no_grad mode
