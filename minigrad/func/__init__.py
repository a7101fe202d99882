"""torch.func: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call.

Built on the reverse-mode engine (autograd.grad with create_graph), not on functorch's levels:
- grad/vjp/jacrev differentiate with respect to fresh inputs (a view of an input that requires
  grad, so that outer autograd and outer transforms still reach it; a detached copy that requires
  grad otherwise): the caller's tensors are left as they are and no .grad is set. Under grad mode
  the inner gradients are computed with create_graph, so transforms nest (grad(grad(f)),
  jacrev(jacrev(f))); a result that only depends on the fresh inputs is handed back detached, as
  torch hands back plain tensors.
- jvp uses the double-vjp trick, and jacfwd computes the same Jacobian as jacrev (torch uses
  forward-mode AD; the values are the same).
- vmap calls the function once per batch element (slices taken with select) and stacks the
  results along out_dims: torch's results, output structure and gradients, not its vectorised
  speed. randomness='error' is detected by comparing RNG states after the call (for the CPU
  generators and the CUDA devices of the inputs; a draw on another device goes unnoticed). .item() and data-dependent Python control
  flow work inside it, where torch's vmap refuses them.
"""
import functools

from ._pytree import tree_flatten, tree_unflatten, broadcast_to_and_flatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call"]


def _mg():
    import minigrad
    return minigrad


# ---- helpers -----------------------------------------------------------------------------------------

def _prepare(x, keep):
    """The tensor a transform differentiates with respect to, standing for input x."""
    mg = _mg()
    if not isinstance(x, mg.Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if not x.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if keep and x.requires_grad:
        return x.view_as(x)
    return x.detach().requires_grad_()


def _escapes(t, fresh):
    """Whether t's graph reaches a leaf other than the transform's fresh inputs."""
    from ..autograd.function import AccumulateGrad
    fn = t.grad_fn
    if fn is None:
        return t.requires_grad and not any(t is f for f in fresh)
    seen, stack = {fn}, [fn]
    while stack:
        node = stack.pop()
        if isinstance(node, AccumulateGrad):
            var = node.variable
            if var is not None and not any(var is f for f in fresh):
                return True
            continue
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def _finish(t, fresh, keep):
    mg = _mg()
    if not isinstance(t, mg.Tensor) or not t.requires_grad:
        return t
    if keep and _escapes(t, fresh):
        return t
    return t.detach()


def _unwrap_aux(aux, fresh, keep):
    mg = _mg()
    leaves, spec = tree_flatten(aux)
    for x in leaves:
        if not isinstance(x, mg.Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
    return tree_unflatten([_finish(x, fresh, keep) for x in leaves], spec)


def _grads(outputs, inputs, cotangents, create_graph):
    """autograd.grad over the outputs that require grad; zeros for inputs nothing reaches."""
    mg = _mg()
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    res = [None] * len(inputs)
    if pairs:
        res = mg.autograd.grad([o for o, _ in pairs], inputs, [c for _, c in pairs], retain_graph=True,
                               create_graph=create_graph, allow_unused=True)
    return [g if g is not None else mg.zeros_like(x) for g, x in zip(res, inputs)]


def _validate_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _slice_argnums(args, argnums):
    """(the differentiated arguments, argnums made non-negative), with torch's checks."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        argnums = _validate_argnum(argnums, len(args))
        return args[argnums], argnums
    argnums = tuple(_validate_argnum(a, len(args)) for a in argnums)
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(args[i] for i in argnums), argnums


def _replace_args(args, new, argnums):
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))


def _split_aux(out, has_aux, api):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return out


class _Traced:
    """One call of func on fresh inputs: what vjp, grad and jacrev need afterwards."""

    def __init__(self, func, args, kwargs, argnums, has_aux, api):
        mg = _mg()
        self.keep = mg.is_grad_enabled()
        with mg.enable_grad():
            if argnums is None:
                diff, self.argnums = args, None
            else:
                diff, self.argnums = _slice_argnums(args, argnums)
            flat, self.in_spec = tree_flatten(diff)
            self.fresh = [_prepare(x, self.keep) for x in flat]
            new = tree_unflatten(self.fresh, self.in_spec)
            call_args = new if argnums is None else _replace_args(args, new, self.argnums)
            out = func(*call_args, **kwargs)
        self.out, aux = _split_aux(out, has_aux, api)
        self.aux = _unwrap_aux(aux, self.fresh, self.keep) if has_aux else None

    def result(self):
        return tree_unflatten([_finish(t, self.fresh, self.keep) for t in tree_flatten(self.out)[0]],
                              tree_flatten(self.out)[1])


# ---- grad, grad_and_value ------------------------------------------------------------------------------

def grad_and_value(func, argnums=0, has_aux=False):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        mg = _mg()
        api = "grad_and_value(f)(*args)"
        tr = _Traced(func, args, kwargs, argnums, has_aux, api)
        out = tr.out
        if not isinstance(out, mg.Tensor):
            raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got {type(out)}")
        if out.dim() != 0:
            raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with "
                               f"{out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
        with mg.enable_grad():
            gs = _grads([out], tr.fresh, [None], tr.keep)
        gs = tree_unflatten([_finish(g, tr.fresh, tr.keep) for g in gs], tr.in_spec)
        value = _finish(out, tr.fresh, tr.keep)
        return (gs, (value, tr.aux)) if has_aux else (gs, value)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


# ---- vjp, jvp -------------------------------------------------------------------------------------------

def _check_outputs(flat_out, api, what="f(*primals)"):
    mg = _mg()
    if len(flat_out) == 0 or (len(flat_out) == 1 and flat_out[0] is None):
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = "
                           f"{flat_out})")
    for o in flat_out:
        if not isinstance(o, mg.Tensor):
            raise RuntimeError(f"{api}: expected {what} to return only tensors, got unsupported type {type(o)}")


def vjp(func, *primals, has_aux=False):
    api = "vjp(f, *primals)"
    tr = _Traced(func, primals, {}, None, has_aux, api)
    flat_out, out_spec = tree_flatten(tr.out)
    _check_outputs(flat_out, api)
    for o in flat_out:
        if not o.dtype.is_floating_point:
            raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or complex Tensors, "
                               f"got Tensor with dtype {o.dtype}")

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        mg = _mg()
        if create_graph is None:
            create_graph = mg.is_grad_enabled()
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {cot_spec.pprint()}, primal output: "
                               f"{out_spec.pprint()}")
        with mg.enable_grad():
            gs = _grads(flat_out, tr.fresh, flat_cot, create_graph and tr.keep)
        return tree_unflatten([_finish(g, tr.fresh, tr.keep) for g in gs], tr.in_spec)

    return (tr.result(), vjp_fn, tr.aux) if has_aux else (tr.result(), vjp_fn)


def _check_list_of_tensors(flat, api, name):
    mg = _mg()
    if len(flat) == 0:
        raise RuntimeError(f"{api}: Expected {name} to contain at least one Tensor.")
    for x in flat:
        if not isinstance(x, mg.Tensor):
            raise RuntimeError(f"{api}: Expected {name} to only contain Tensors, got {type(x)}")


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    mg = _mg()
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python structure. For "
                           f"example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
                           f"with structure {p_spec} and tangents with structure {t_spec}")
    _check_list_of_tensors(flat_p, api, "primals")
    _check_list_of_tensors(flat_t, api, "tangents")
    for p, t in zip(flat_p, flat_t):
        if not p.dtype.is_floating_point:
            raise ValueError(f"Expected primal to be floating point or complex, but got: {p.dtype}")
        if p.shape != t.shape:
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the "
                               f"original Tensor, this is not supported. Tensor is of size {list(p.shape)} while "
                               f"the given forward gradient is of size {list(t.shape)}.")
    tr = _Traced(func, primals, {}, None, has_aux, api)
    flat_out, out_spec = tree_flatten(tr.out)
    _check_outputs(flat_out, api)
    with mg.enable_grad():
        # the double-vjp trick: u -> J^T u is linear in u, and its vjp with the tangent is J t
        us = [mg.zeros_like(o, requires_grad=True) if o.dtype.is_floating_point and o.requires_grad else None
              for o in flat_out]
        diff = [(o, u) for o, u in zip(flat_out, us) if u is not None]
        jvps = [None] * len(flat_out)
        if diff:
            back = _grads([o for o, _ in diff], tr.fresh, [u for _, u in diff], True)
            pairs = [(b, t) for b, t in zip(back, flat_t) if b.requires_grad]
            if pairs:
                res = mg.autograd.grad([b for b, _ in pairs], [u for _, u in diff], [t for _, t in pairs],
                                       retain_graph=True, create_graph=tr.keep, allow_unused=True)
                it = iter(res)
                jvps = [next(it) if u is not None else None for u in us]
    jvps = [_finish(j, tr.fresh, tr.keep) if j is not None else mg.zeros_like(o) for j, o in zip(jvps, flat_out)]
    out = (tr.result(), tree_unflatten(jvps, out_spec))
    return out + (tr.aux,) if has_aux else out


# ---- jacrev, jacfwd, hessian ---------------------------------------------------------------------------

def _jacobian(func, args, kwargs, argnums, has_aux, forward):
    mg = _mg()
    if forward:
        diff, _ = _slice_argnums(args, argnums)
        for p in tree_flatten(diff)[0]:
            if isinstance(p, mg.Tensor) and not p.dtype.is_floating_point:
                raise ValueError(f"Expected primal to be floating point or complex, but got: {p.dtype}")
    api = "jvp(f, primals, tangents)" if forward else "vjp(f, *primals)"
    tr = _Traced(func, args, kwargs, argnums, has_aux, api)
    flat_out, out_spec = tree_flatten(tr.out)
    _check_outputs(flat_out, api, "f(*args)" if forward else "f(*primals)")
    per_output = []
    with mg.enable_grad():
        for o in flat_out:
            n = o.numel()
            cols = []
            if o.requires_grad and n:
                flat_o = o.reshape(-1)
                rows = [_grads([flat_o[j]], tr.fresh, [None], tr.keep) for j in range(n)]
                for i, p in enumerate(tr.fresh):
                    cols.append(mg.stack([r[i] for r in rows]).reshape(tuple(o.shape) + tuple(p.shape)))
            else:
                cols = [mg.zeros(tuple(o.shape) + tuple(p.shape), dtype=p.dtype, device=p.device)
                        for p in tr.fresh]
            cols = [_finish(c, tr.fresh, tr.keep) for c in cols]
            per_output.append(tree_unflatten(cols, tr.in_spec))
    jac = tree_unflatten(per_output, out_spec)
    return (jac, tr.aux) if has_aux else jac


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _jacobian(func, args, kwargs, argnums, has_aux, False)
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. "
                           f"Got {randomness}")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _jacobian(func, args, kwargs, argnums, has_aux, True)
    return wrapper


def hessian(func, argnums=0):
    return jacfwd(jacrev(func, argnums), argnums)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    from ..nn.utils.stateless import functional_call as _call
    return _call(module, parameter_and_buffer_dicts, args, kwargs, tie_weights=tie_weights, strict=strict)


# ---- vmap ------------------------------------------------------------------------------------------------

def _get_name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_get_name(func.func)}, ...)"
    return repr(func)


class _RngWatch:
    """The RNG streams a vmapped call could draw from: the CPU ones and those of the CUDA devices its
    tensors are on, saved (for randomness='same') and checked for draws (randomness='error').
    Reading a CUDA state reseeds that device's generator (minigrad/cuda.py), so a draw there shows as
    a state read after the call that differs from the one read right after restoring the state."""

    def __init__(self, tensors):
        from ..random import get_rng_state
        mg = _mg()
        self.devices = sorted({t.device.index or 0 for t in tensors if t.device.type == "cuda"})
        self.cpu = get_rng_state()
        self.cuda = [mg.cuda.get_rng_state(d) for d in self.devices]

    def restore(self):
        from ..random import set_rng_state
        mg = _mg()
        set_rng_state(self.cpu)
        for d, s in zip(self.devices, self.cuda):
            mg.cuda.set_rng_state(s, d)

    def drew(self):
        from ..random import get_rng_state
        mg = _mg()
        if not mg.equal(self.cpu, get_rng_state()):
            return True
        for d, s in zip(self.devices, self.cuda):
            after = mg.cuda.get_rng_state(d)
            mg.cuda.set_rng_state(s, d)
            untouched = mg.cuda.get_rng_state(d)
            mg.cuda.set_rng_state(after, d)
            if not mg.equal(after, untouched):
                return True
        return False


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. "
                           f"Got {randomness}")
    if chunk_size is not None and chunk_size < 1:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, args, kwargs)
    return wrapped


_VMAP_DEPTH = [0]  # vmaps running (in this thread or another: the count is only a hint for the check)


def _vmap_call(func, in_dims, out_dims, randomness, args, kwargs):
    mg = _mg()
    name = _get_name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                         f"trying to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, args_spec = tree_flatten(args)
    flat_dims = broadcast_to_and_flatten(in_dims, args_spec)
    if flat_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs "
                         f"has structure {args_spec}.")
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims)):
        if not (d is None or isinstance(d, int)):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
                             f"in_dim must be either an integer dimension or None.")
        if isinstance(d, int) and not isinstance(arg, mg.Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
                             f"the input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, "
                             f"please use None as the respective in_dim")
        if d is not None and not -arg.dim() <= d < arg.dim():
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, "
                             f"but that input is a Tensor of dimensionality {arg.dim()} so expected in_dim to "
                             f"satisfy -{arg.dim()} <= in_dim < {arg.dim()}.")
        if d is not None and d < 0:
            flat_dims[i] = d + arg.dim()
    sizes = [arg.shape[d] for arg, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    batch = sizes[0]

    def sample(b):
        leaves = [a if d is None else (a.select(d, b) if b is not None
                                       else a.new_zeros(a.shape[:d] + a.shape[d + 1:]))
                  for a, d in zip(flat_args, flat_dims)]
        return func(*tree_unflatten(leaves, args_spec), **kwargs)

    # an inner vmap leaves the check to the outermost one (its reads of a CUDA state would count
    # as draws there)
    watch = None
    if randomness == "same" or randomness == "error" and not _VMAP_DEPTH[0]:
        watch = _RngWatch([a for a in flat_args if isinstance(a, mg.Tensor)])
    results = []
    _VMAP_DEPTH[0] += 1
    try:
        for b in (range(batch) if batch else [None]):
            if randomness == "same" and b:
                watch.restore()
            results.append(sample(b))
    finally:
        _VMAP_DEPTH[0] -= 1
    if randomness == "error" and watch is not None and watch.drew():
        raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use the "
                           "'same' or 'different' randomness flags on vmap or perform the randomness operation "
                           "out of vmap")
    return _stack_outputs(name, results, out_dims, batch)


def _stack_outputs(name, results, out_dims, batch):
    mg = _mg()
    flat0, out_spec = tree_flatten(results[0])

    def incompatible():
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                         f"structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but outputs "
                         f"has structure {out_spec}.")
    for d in tree_flatten(out_dims)[0]:
        if not (d is None or isinstance(d, int)):
            raise ValueError(f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python "
                             "collection of ints representing where in the outputs the vmapped dimension should "
                             "appear.")
    if isinstance(results[0], mg.Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            flat_dims = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            flat_dims = list(out_dims)
        else:
            incompatible()
    else:
        flat_dims = broadcast_to_and_flatten(out_dims, out_spec)
        if flat_dims is None:
            incompatible()
    columns = [tree_flatten(r)[0] for r in results]
    outs = []
    for k, d in enumerate(flat_dims):
        vals = [c[k] for c in columns]
        if d is None:
            first = vals[0]
            if isinstance(first, mg.Tensor) and (any(
                    not isinstance(v, mg.Tensor) or v.shape != first.shape or not mg.equal(v, first)
                    for v in vals[1:])):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            outs.append(first)
            continue
        for v in vals:
            if not isinstance(v, mg.Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(v)}. "
                                 "Did you mean to set out_dims= to None for output?")
        if batch == 0:
            v = vals[0].unsqueeze(d)
            outs.append(v.narrow(d if d >= 0 else d + v.dim(), 0, 0))
        else:
            outs.append(mg.stack(vals, dim=d))
    return tree_unflatten(outs, out_spec)
