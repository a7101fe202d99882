"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp and hvp, built on autograd.grad.

Every product here is one or two reverse-mode passes:

- vjp  v^T J      one backward pass of the outputs with v as their gradient;
- jvp  J v        the "double backward" trick: u^T J is linear in a dummy cotangent u, and
                  differentiating it with respect to u, with v as the cotangent, gives J v;
- vhp  v^T H      backward through the (differentiable) gradient of a scalar function;
- hvp  H v        the same trick as jvp, applied to the gradient;
- jacobian        one backward pass per output element (vectorize=True and
                  strategy="forward-mode" are accepted and give the same rows: minigrad has no
                  vmap or forward-mode AD, so they are computed one by one in reverse mode);
- hessian         the jacobian of the (differentiable) jacobian.

The inputs are re-rooted first (detached copies, or views when create_graph=True so that the
result stays connected to the caller's graph); results are detached unless create_graph=True.
Output structures (a Tensor for a Tensor, a tuple for a tuple, nested tuples for jacobian and
hessian), strict-mode checks and error messages are torch's.
"""
import minigrad as _mg

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_V_FOR_SCALAR_OUTPUT = "the user-provided function returns a single Tensor with a single element"
_V_FOR_SCALAR_INPUT = "the input to the user-provided function is a single Tensor with a single element"

# strict mode: a tensor of the chain that does not require grad (keyed by what it is)
_NO_GRAD_MESSAGES = {
    "outputs": ("Output {i} of the user-provided function does not require gradients. The outputs must be "
                "computed in a differentiable manner from the input when running in strict mode."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the user-provided "
                    "function. This is not allowed in strict mode."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided function with "
                 "respect to input {i} is independent of the input. This is not allowed in strict mode. You "
                 "should ensure that your function is twice differentiable and that the jacobian depends on the "
                 "inputs (this would be violated by a linear function for example)."),
    "hessian": ("The hessian of the user-provided function with respect to input {i} is independent of the "
                "input. This is not allowed in strict mode. You should ensure that your function is thrice "
                "differentiable and that the hessian depends on the inputs."),
}

# strict mode: a gradient that came back None (unused), keyed by the pass that produced it
_UNUSED_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode.",
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                   "using the double backward trick to compute forward mode gradients. This is not allowed in "
                   "strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. This is not allowed "
                    "in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry {i} in the "
                          "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                          "backward trick to replace forward mode AD."),
}

_CONSTANT_RESULT = ("The {what} of the user-provided function is independent of input {i}. This is not allowed "
                    "in strict mode when create_graph=True.")


# ---- argument handling -------------------------------------------------------------------------------

def _tensor_tuple(value, arg_name, fn_name):
    """(was it a tuple, the value as a tuple of Tensors); a non-Tensor entry is torch's TypeError."""
    was_tuple = isinstance(value, tuple)
    items = value if was_tuple else (value,)
    for pos, item in enumerate(items):
        if isinstance(item, _mg.Tensor):
            continue
        where = f"the value at index {pos}" if was_tuple else f"the given {arg_name}"
        raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                        f"{where} has type {type(item)}.")
    return was_tuple, items


def _unwrap(result, was_tuple):
    """Give back a single Tensor where the caller passed (or the function returned) one."""
    return result if was_tuple else result[0]


def _unwrap_nested(result, outer_was_tuple, inner_was_tuple):
    """The same for jacobian/hessian's tuple (per output) of tuples (per input)."""
    if not inner_was_tuple:
        result = tuple(row[0] for row in result)
    return _unwrap(result, outer_was_tuple)


def _reroot(tensors, create_graph, need_grad):
    """Fresh leaves to differentiate with respect to.

    With create_graph=True a tensor that already requires grad is passed through a view instead,
    so the products computed from it remain differentiable with respect to the caller's tensor.
    """
    fresh = []
    for t in tensors:
        if create_graph and t.requires_grad:
            fresh.append(t.view_as(t))
        else:
            fresh.append(t.detach().requires_grad_(need_grad))
    return tuple(fresh)


def _release(tensors, create_graph):
    """Detach the results unless the caller asked for a graph (recursing into tuples of tuples)."""
    if not isinstance(tensors[0], _mg.Tensor):
        return tuple(_release(inner, create_graph) for inner in tensors)
    if create_graph:
        return tensors
    return tuple(t.detach() for t in tensors)


def _prepared_v(v, fn_name, refs, refs_were_tuple, create_graph, none_needs):
    """Check v against the tensors it multiplies (their count and sizes) and re-root it.

    v may be omitted only when refs is one single-element tensor (then it is implicitly 1)."""
    if v is None:
        if len(refs) != 1 or refs[0].nelement() != 1:
            raise RuntimeError(f"The vector v can only be None if {none_needs}.")
        return None
    v = _reroot(_tensor_tuple(v, "v", fn_name)[1], create_graph, need_grad=False)
    if len(v) != len(refs):
        if refs_were_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(refs)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for k, (vk, ref) in enumerate(zip(v, refs)):
        if vk.size() != ref.size():
            entry = f"Entry {k} in " if refs_were_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {ref.size()} but got {vk.size()}.")
    return v


def _call(func, inputs, fn_name, strict):
    """func(*inputs), with its result(s) as a tuple of Tensors (strict: each must require grad)."""
    was_tuple, outputs = _tensor_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    _require_grad(outputs, "outputs", strict)
    return was_tuple, outputs


def _check_scalar_output(outputs, was_tuple, fn_name):
    if was_tuple or not isinstance(outputs[0], _mg.Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")


# ---- strict mode -------------------------------------------------------------------------------------

def _require_grad(tensors, kind, strict):
    """In strict mode every tensor of this stage must exist and require grad."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(_UNUSED_MESSAGES["back"].format(i=i))
        if not t.requires_grad:
            raise RuntimeError(_NO_GRAD_MESSAGES[kind].format(i=i))


def _zeros_for_unused(grads, refs, strict, create_graph, stage):
    """Replace the gradients autograd reported as unused (None) by zeros shaped like refs; in
    strict mode an unused gradient, or one that is constant while create_graph=True, is an error."""
    filled = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(_UNUSED_MESSAGES[stage].format(i=i))
            g = _mg.zeros_like(ref)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(_CONSTANT_RESULT.format(what=what, i=i))
        filled.append(g)
    return tuple(filled)


# ---- the backward pass -------------------------------------------------------------------------------

def _backward(outputs, wrt, cotangents=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that are part of a graph (others contribute nothing):
    one gradient per tensor of wrt, None where it is unused."""
    if cotangents is None:
        cotangents = (None,) * len(outputs)
    live = [(out, cot) for out, cot in zip(outputs, cotangents) if out is not None and out.requires_grad]
    if not live:
        return (None,) * len(wrt)
    live_outputs = tuple(out for out, _ in live)
    live_cotangents = tuple(cot for _, cot in live)
    return _mg.autograd.grad(live_outputs, wrt, live_cotangents, retain_graph=retain_graph,
                             create_graph=create_graph, allow_unused=True)


def _final_pass_mode(create_graph):
    """The last pass records a graph if the caller wants one, else follows the ambient grad mode."""
    return _mg.set_grad_enabled(create_graph or _mg.is_grad_enabled())


# ---- public functions --------------------------------------------------------------------------------

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product at inputs."""
    with _mg.enable_grad():
        inputs_were_tuple, inputs = _tensor_tuple(inputs, "inputs", "vjp")
        inputs = _reroot(inputs, create_graph, need_grad=True)
        outputs_were_tuple, outputs = _call(func, inputs, "vjp", strict)
        v = _prepared_v(v, "vjp", outputs, outputs_were_tuple, create_graph, _V_FOR_SCALAR_OUTPUT)

    with _final_pass_mode(create_graph):
        grads = _backward(outputs, inputs, v, create_graph=create_graph)
        product = _zeros_for_unused(grads, inputs, strict, create_graph, "back")
    return (_unwrap(_release(outputs, create_graph), outputs_were_tuple),
            _unwrap(_release(product, create_graph), inputs_were_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product at inputs, by the double-backward trick."""
    with _mg.enable_grad():
        inputs_were_tuple, inputs = _tensor_tuple(inputs, "inputs", "jvp")
        inputs = _reroot(inputs, create_graph, need_grad=True)
        v = _prepared_v(v, "jvp", inputs, inputs_were_tuple, create_graph, _V_FOR_SCALAR_INPUT)
        outputs_were_tuple, outputs = _call(func, inputs, "jvp", strict)
        # u -> u^T J, as a differentiable function of a dummy cotangent u (its value is irrelevant)
        dummies = tuple(_mg.zeros_like(out, requires_grad=True) for out in outputs)
        u_t_jac = _backward(outputs, inputs, dummies, create_graph=True)
        _require_grad(u_t_jac, "grad_inputs", strict)

    with _final_pass_mode(create_graph):
        # backward of u^T J with cotangent v: d(u^T J v)/du = J v
        grads = _backward(u_t_jac, dummies, v, create_graph=create_graph)
        product = _zeros_for_unused(grads, outputs, strict, create_graph, "back_trick")
    return (_unwrap(_release(outputs, create_graph), outputs_were_tuple),
            _unwrap(_release(product, create_graph), outputs_were_tuple))


_STRATEGIES = ("forward-mode", "reverse-mode")


def _check_forward_mode(create_graph, strict, vectorize):
    if create_graph:
        raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                  "`strategy=\"forward-mode\"` are not supported together (yet). Please either set "
                                  "`create_graph=False` or `strategy=\"reverse-mode\"`.")
    if strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` are "
                           "not supported together (yet). Please either set `strict=False` or "
                           "`strategy=\"reverse-mode\"`.")
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                  "only implemented for `vectorize=True`.")


def _jacobian_block(out_index, out, inputs, create_graph, strict):
    """d out / d input for each input, as Tensors of shape out.shape + input.shape: one backward
    pass per element of out gives one row of every block."""
    rows = [[] for _ in inputs]
    flat = out.reshape(-1)
    for e in range(out.nelement()):
        grads = _backward((flat[e],), inputs, retain_graph=True, create_graph=create_graph)
        for k, (g, inp) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {out_index} of the user-provided function is independent of "
                                       f"input {k}. This is not allowed in strict mode.")
                g = _mg.zeros_like(inp)
            elif strict and create_graph and not g.requires_grad:
                # (torch's message names the output's index here)
                raise RuntimeError(_CONSTANT_RESULT.format(what="jacobian", i=out_index))
            rows[k].append(g)
    return tuple(_mg.stack(block, dim=0).view(out.size() + inp.size()) for block, inp in zip(rows, inputs))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of func at inputs: a Tensor, or tuples indexed [output][input] (by what func
    takes and returns), each block shaped output.shape + input.shape."""
    if strategy not in _STRATEGIES:
        raise AssertionError("Expected strategy to be either \"forward-mode\" or \"reverse-mode\". Hint: If your "
                             "function has more outputs than inputs, \"forward-mode\" tends to be more performant. "
                             "Otherwise, prefer to use \"reverse-mode\".")
    if strategy == "forward-mode":
        _check_forward_mode(create_graph, strict, vectorize)

    with _mg.enable_grad():
        inputs_were_tuple, inputs = _tensor_tuple(inputs, "inputs", "jacobian")
        inputs = _reroot(inputs, create_graph, need_grad=True)
        outputs_were_tuple, outputs = _call(func, inputs, "jacobian", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        blocks = tuple(_jacobian_block(i, out, inputs, create_graph, strict) for i, out in enumerate(outputs))
        blocks = _release(blocks, create_graph)
        return _unwrap_nested(blocks, outputs_were_tuple, inputs_were_tuple)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: the jacobian of its gradient, a Tensor or tuples indexed
    [input][input] with blocks shaped input_i.shape + input_j.shape."""
    inputs_were_tuple, inputs = _tensor_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError("Expected strategy to be either \"forward-mode\" or \"reverse-mode\".")

    def scalar_func(*args):
        result = func(*args)
        was_tuple, as_tuple = _tensor_tuple(result, "outputs of the user-provided function", "hessian")
        _require_grad(as_tuple, "outputs", strict)
        _check_scalar_output(as_tuple, was_tuple, "hessian")
        return result.squeeze()

    def gradient(*args):
        # the inner jacobian keeps its graph, so that the outer one can differentiate it
        if outer_jacobian_strategy == "forward-mode":
            args = tuple(a.requires_grad_(True) for a in args)
        grad = jacobian(scalar_func, args, create_graph=True)
        _require_grad(grad, "jacobian", strict)
        return grad

    blocks = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                      strategy=outer_jacobian_strategy)
    return _unwrap_nested(blocks, inputs_were_tuple, inputs_were_tuple)


def _differentiable_gradient(func, inputs, v, fn_name, create_graph, strict):
    """The common first half of vhp and hvp: re-rooted inputs, checked v, the scalar output and its
    gradient with a graph (so that it can be differentiated again)."""
    inputs_were_tuple, inputs = _tensor_tuple(inputs, "inputs", fn_name)
    inputs = _reroot(inputs, create_graph, need_grad=True)
    v = _prepared_v(v, fn_name, inputs, inputs_were_tuple, create_graph, _V_FOR_SCALAR_INPUT)
    outputs_were_tuple, outputs = _call(func, inputs, fn_name, strict)
    _check_scalar_output(outputs, outputs_were_tuple, fn_name)
    grad = _backward(outputs, inputs, create_graph=True)
    _require_grad(grad, "jacobian", strict)
    return inputs_were_tuple, inputs, v, outputs_were_tuple, outputs, grad


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar func: backward through its gradient with v as cotangent."""
    with _mg.enable_grad():
        inputs_were_tuple, inputs, v, outputs_were_tuple, outputs, grad = _differentiable_gradient(
            func, inputs, v, "vhp", create_graph, strict)

    with _final_pass_mode(create_graph):
        second = _backward(grad, inputs, v, create_graph=create_graph)
        product = _zeros_for_unused(second, inputs, strict, create_graph, "double_back")
    return (_unwrap(_release(outputs, create_graph), outputs_were_tuple),
            _unwrap(_release(product, create_graph), inputs_were_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar func, by the double-backward trick on its gradient."""
    with _mg.enable_grad():
        inputs_were_tuple, inputs, v, outputs_were_tuple, outputs, grad = _differentiable_gradient(
            func, inputs, v, "hvp", create_graph, strict)
        # u -> u^T H as a differentiable function of a dummy u shaped like the inputs
        dummies = tuple(_mg.zeros_like(inp, requires_grad=True) for inp in inputs)
        u_t_hess = _backward(grad, inputs, dummies, create_graph=True)
        _require_grad(grad, "hessian", strict)  # (torch checks the gradient again here)

    with _final_pass_mode(create_graph):
        grads = _backward(u_t_hess, dummies, v, create_graph=create_graph)
        product = _zeros_for_unused(grads, inputs, strict, create_graph, "double_back_trick")
    return (_unwrap(_release(outputs, create_graph), outputs_were_tuple),
            _unwrap(_release(product, create_graph), inputs_were_tuple))
