"""Broadcasting: the shape of a result, and undoing it in backward (sum_to)."""


def broadcast_shape(a, b):
    """Broadcast two shapes, raising torch's message when they don't fit."""
    if a == b:
        return a
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = [0] * n
    for i in range(n - 1, -1, -1):  # from the last dim, as torch checks (and names the first misfit)
        x, y = pa[i], pb[i]
        if x == y or y == 1:
            out[i] = x
        elif x == 1:
            out[i] = y
        else:
            e = RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) "
                             f"at non-singleton dimension {i}")
            e.shapes = (tuple(a), tuple(b))  # for an in-place op's message (inplace_broadcast_error)
            raise e
    return tuple(out)


def inplace_broadcast_error(e, shape, operands=None):
    """The error e (two shapes that do not broadcast) as torch words it for an in-place op writing
    a tensor of `shape`: torch broadcasts the written tensor with the operands in turn (those
    given, else the two of e), so its message names the written tensor's side first."""
    acc = tuple(shape)
    try:
        for s in (getattr(e, "shapes", ()) if operands is None else [tuple(o.shape) for o in operands]):
            acc = broadcast_shape(acc, s)
    except RuntimeError as better:
        return better
    return e


def _summed_dims(gshape, shape):
    """The dims of gshape that broadcasting to it from shape created or stretched."""
    lead = len(gshape) - len(shape)
    return tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                       if s == 1 and gshape[i + lead] != 1)


def sum_to(g, shape):
    """Sum gradient g down to shape: the adjoint of broadcasting to g's shape."""
    if g._data.shape == shape:
        return g
    dims = _summed_dims(g._data.shape, shape)
    if dims:
        g = g.sum(dims, keepdim=True)
    return g if g._data.shape == shape else g.reshape(shape)


def sum_to_array(be, g, shape):
    """sum_to on a backend array (the raw backward path)."""
    if g.shape == shape:
        return g
    dims = _summed_dims(g.shape, shape)
    if dims:
        g = be.sum(g, dims, True)
    return g if g.shape == shape else be.reshape(g, shape)
