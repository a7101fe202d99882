"""Broadcasting: the shape of a result, and undoing it in backward (sum_to)."""


def broadcast_shape(a, b):
    """Broadcast two shapes, raising torch's message when they don't fit."""
    if a == b:
        return a
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, (x, y) in enumerate(zip(pa, pb)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            # torch counts the dimension from the right end's alignment
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) "
                               f"at non-singleton dimension {i - (n - max(len(a), len(b)))}")
    return tuple(out)


def sum_to(g, shape):
    """Sum gradient g down to shape: the adjoint of broadcasting to g's shape."""
    gshape = g._data.shape
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    dims = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                       if s == 1 and gshape[i + lead] != 1)
    if dims:
        g = g.sum(dims, keepdim=True)
    if lead or g._data.shape != shape:
        g = g.reshape(shape)
    return g


def sum_to_array(be, g, shape):
    """sum_to on a backend array (the raw backward path)."""
    gshape = g.shape
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    dims = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                       if s == 1 and gshape[i + lead] != 1)
    if dims:
        g = be.sum(g, dims, True)
    if g.shape != shape:
        g = be.reshape(g, shape)
    return g
