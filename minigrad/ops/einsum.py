"""torch.einsum, composed from ops that record their own nodes (a diagonal gather, sum, permute,
reshape, expand, mul and batched matmul), so it is differentiable and runs on every backend.

The plan is torch's: each operand's repeated subscripts are turned into a diagonal, subscripts
that only one operand has and the output lacks are summed out at once, then the operands are
contracted left to right, each pair as one batched matrix product over the subscripts they
share (batch: also needed later; contracted: not), and the result is permuted to the output's
order. Ellipsis dims broadcast as in torch.
"""
import string

from ..tensor import Tensor
from .._autocast import AUTOCAST_ON as _AUTOCAST_ON, dispatch as _autocast  # torch.autocast's op policies

_LETTERS = string.ascii_uppercase + string.ascii_lowercase


def _error(msg):
    return RuntimeError("einsum(): " + msg)


def _sublist_equation(args):
    """einsum(op0, sublist0, op1, sublist1, ..., [sublist_out]): the equation string."""
    def letters(sub):
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 52:
                out.append(_LETTERS[s])
            else:
                raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
        return "".join(out)
    ops, subs = list(args[0::2]), [letters(s) for s in args[1::2]]
    out = None
    if len(args) % 2 == 1:
        out = letters(ops.pop())
    eq = ",".join(subs) + ("->" + out if out is not None else "")
    return eq, ops


def _parse(equation, shapes):
    """(per operand: its labels, one per dim; ellipsis dims are labelled by int positions from
    the right), the output's labels, and each label's size."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(shapes):
        raise _error("fewer operands were provided than specified in the equation")
    if len(terms) < len(shapes):
        raise _error("more operands were provided than specified in the equation")
    pos = 0
    labels, ell_ndim = [], 0
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        subs, i, has_ell = [], 0, False
        while i < len(term):
            c = term[i]
            if c == ".":
                if has_ell:
                    raise _error(f"found '.' for operand {k} for which an ellipsis was already found")
                if term[i:i + 3] != "...":
                    raise _error(f"found '.' for operand {k} that is not part of any ellipsis")
                has_ell, i = True, i + 3
                subs.append(Ellipsis)
                continue
            if c not in _LETTERS:
                raise _error(f"invalid subscript given at index {pos + i} in the equation string, subscripts "
                             "must be in [a-zA-Z]")
            subs.append(c)
            i += 1
        pos += len(term) + 1
        named = len(subs) - has_ell
        if (named != len(shape)) if not has_ell else (named > len(shape)):
            if has_ell:
                raise _error(f"the number of subscripts in the equation ({named}) is more than the number of "
                             f"dimensions ({len(shape)}) for operand {k}")
            raise _error(f"the number of subscripts in the equation ({named}) does not match the number of "
                         f"dimensions ({len(shape)}) for operand {k} and no ellipsis was given")
        if has_ell:
            n_ell = len(shape) - named
            at = subs.index(Ellipsis)
            subs[at:at + 1] = [-(n_ell - j) for j in range(n_ell)]  # -n_ell .. -1, aligned right
            ell_ndim = max(ell_ndim, n_ell)
        labels.append(subs)
    # sizes: named subscripts must agree (or be 1, broadcast); ellipsis dims broadcast
    sizes = {}
    for k, (subs, shape) in enumerate(zip(labels, shapes)):
        seen = {}
        for lab, n in zip(subs, shape):
            if lab in seen and seen[lab] != n:
                raise _error(f"subscript {lab} is repeated for operand {k} but the sizes don't match, "
                             f"{n} != {seen[lab]}")
            seen[lab] = n
            old = sizes.get(lab)
            if old is None or old == 1:
                sizes[lab] = n
            elif n != 1 and n != old:
                if isinstance(lab, int):
                    raise _error(f"dimension {ell_ndim + lab} covered by ellipsis in operand {k}has size {n} "
                                 f"which does not broadcast with previously seen ellipsis with size {old} for "
                                 "the respective dimension")
                raise _error(f"subscript {lab} has size {n} for operand {k} which does not broadcast with "
                             f"previously seen size {old}")
    ell = [-(ell_ndim - j) for j in range(ell_ndim)]
    if arrow:
        out, i, has_ell = [], 0, False
        while i < len(rhs):
            c = rhs[i]
            if c == ".":
                if has_ell:
                    raise _error("found '.' for output but an ellipsis (...) was already found")
                if rhs[i:i + 3] != "...":
                    raise _error("found '.' for output that is not part of any ellipsis (...)")
                has_ell, i = True, i + 3
                out.extend(ell)
                continue
            if c not in _LETTERS:
                raise _error(f"invalid subscript given at index {len(lhs) + 2 + i} in the equation string, "
                             "subscripts must be in [a-zA-Z]")
            if c in out:
                raise _error(f"output subscript {c} appears more than once in the output")
            if c not in sizes:
                raise _error(f"output subscript {c} does not appear in the equation for any input operand")
            out.append(c)
            i += 1
    else:  # implicit output: the ellipsis dims, then the subscripts seen once, in alphabetical order
        counts = {}
        for subs in labels:
            for lab in subs:
                if not isinstance(lab, int):
                    counts[lab] = counts.get(lab, 0) + 1
        out = ell + sorted((lab for lab, c in counts.items() if c == 1), key=_LETTERS.index)
    return labels, out, sizes


def _diagonal(t, subs):
    """t with each repeated subscript taken once (the diagonal), and its labels."""
    while True:
        dup = next((lab for i, lab in enumerate(subs) if lab in subs[:i]), None)
        if dup is None:
            return t, subs
        i, j = subs.index(dup), len(subs) - 1 - subs[::-1].index(dup)
        n = t.shape[i]
        from ..creation import arange
        ramp = arange(n, device=t.device)
        index = [slice(None)] * t.dim()
        index[i], index[j] = ramp, ramp
        t = t[tuple(index)]
        # the two dims become one: in i's place when they are adjacent, else in front (torch's
        # rule for advanced indices separated by a slice)
        rest = [lab for k, lab in enumerate(subs) if k not in (i, j)]
        subs = subs[:i] + [dup] + subs[j + 1:] if j == i + 1 else [dup] + rest


def _sum_labels(t, subs, drop):
    axes = tuple(k for k, lab in enumerate(subs) if lab in drop)
    if axes:
        t = t.sum(axes)
        subs = [lab for lab in subs if lab not in drop]
    return t, subs


def _permute(t, subs, order):
    perm = [subs.index(lab) for lab in order]
    return (t.permute(perm) if perm != list(range(len(perm))) else t), list(order)


def _contract(a, sa, b, sb, keep, sizes):
    """a and b contracted over their shared subscripts that keep lacks (a batched matmul)."""
    if a._data.dtype.kind == "b":  # torch contracts in bmm, which has no bool kernel
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    shared = [lab for lab in sa if lab in sb]
    batch = [lab for lab in shared if lab in keep]
    summed = [lab for lab in shared if lab not in keep]
    only_a = [lab for lab in sa if lab not in sb]
    only_b = [lab for lab in sb if lab not in sa]
    a, sa = _permute(a, sa, batch + only_a + summed)
    b, sb = _permute(b, sb, batch + summed + only_b)
    # batch dims broadcast (a size-1 ellipsis or subscript dim against a larger one)
    nb = [sizes[lab] for lab in batch]
    if list(a.shape[:len(batch)]) != nb:
        a = a.expand(*nb, *a.shape[len(batch):])
    if list(b.shape[:len(batch)]) != nb:
        b = b.expand(*nb, *b.shape[len(batch):])
    ma = [a.shape[len(batch) + k] for k in range(len(only_a))]
    kb = [b.shape[len(batch) + k] for k in range(len(summed))]
    ka = [a.shape[len(batch) + len(only_a) + k] for k in range(len(summed))]
    if ka != kb:  # a contracted dim of size 1 against a larger one: sum it out of the larger first
        for k, lab in enumerate(summed):
            if ka[k] != kb[k]:
                if ka[k] == 1:
                    b = b.sum(len(batch) + k, keepdim=True)
                else:
                    a = a.sum(len(batch) + len(only_a) + k, keepdim=True)
        kb = [b.shape[len(batch) + k] for k in range(len(summed))]
    nb_b = [b.shape[len(batch) + len(summed) + k] for k in range(len(only_b))]
    m, k_, n = _prod(ma), _prod(kb), _prod(nb_b)
    out = a.reshape(*nb, m, k_) @ b.reshape(*nb, k_, n) if nb else a.reshape(m, k_) @ b.reshape(k_, n)
    return out.reshape(*nb, *ma, *nb_b), batch + only_a + only_b


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def einsum(*args):
    if _AUTOCAST_ON[0] and (r := _autocast("einsum", einsum, *args)) is not None:
        return r
    if args and isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    elif len(args) >= 2 and isinstance(args[0], Tensor):
        equation, operands = _sublist_equation(args)
    else:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if not operands:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    for k, t in enumerate(operands):
        if not isinstance(t, Tensor):
            from .._arg_errors import type_name
            raise TypeError(f"expected Tensor as element {k} in argument 1, but got {type_name(t)}")
    dtype, device = operands[0].dtype, operands[0]._device
    for t in operands[1:]:
        if t._device is not device:
            from .elementwise import device_error
            raise device_error(operands[0], t)
    labels, out, sizes = _parse(equation, [tuple(t.shape) for t in operands])
    for t in operands[1:]:
        if t.dtype is not dtype:
            raise RuntimeError(f"expected scalar type {dtype._legacy[:-6]} but found {t.dtype._legacy[:-6]}")
    # per operand: diagonals, then sum the subscripts no one else (nor the output) has
    terms = []
    for k, (t, subs) in enumerate(zip(operands, labels)):
        t, subs = _diagonal(t, list(subs))
        others = set(out)
        for j, s in enumerate(labels):
            if j != k:
                others.update(s)
        t, subs = _sum_labels(t, subs, {lab for lab in subs if lab not in others})
        terms.append((t, subs))
    t, subs = terms[0]
    for k in range(1, len(terms)):
        b, sb = terms[k]
        keep = set(out)
        for _, s in terms[k + 1:]:
            keep.update(s)
        t, subs = _contract(t, subs, b, sb, keep, sizes)
    t, subs = _sum_labels(t, subs, {lab for lab in subs if lab not in out})
    t, subs = _permute(t, subs, [lab for lab in out])
    want = [sizes[lab] for lab in out]
    if list(t.shape) != want:
        t = t.expand(*want)
    return t
