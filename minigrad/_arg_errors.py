"""torch's TypeError messages for a dim argument that is not an integer (x.sum(dim=1.5)).

torch's argument parser writes them per op, and differently for an argument given by position
(`x.sum(1.5)`: "got (float)", "argument 'dim' (position 1)") and by keyword (`x.sum(dim=1.5)`).
minigrad's ops cannot tell the two apart, so these are the keyword forms of the Tensor methods.
Built only when the error is raised: the ops' common path checks nothing more than it did.
"""
from ._typename import tp_name

# how each op's parser takes dim: a tuple of ints (_TUPLE), several overloads (_OVERLOADS: the text
# after "expected one of:" in torch's message, {t} standing for the given type's name), or else one
# int (argmax, argmin, softmax, log_softmax, unsqueeze, size, cat, stack, chunk)
_TUPLE = ("amax", "amin")
_SUM_MEAN = (" * (*, minigrad.dtype dtype = None)\n"
             " * (tuple of ints dim, bool keepdim = False, *, minigrad.dtype dtype = None)\n")
_MAX_MIN = (" * ()\n      didn't match because some of the keywords were incorrect: dim\n"
            " * (Tensor other)\n      didn't match because some of the keywords were incorrect: dim\n"
            " * (int dim, bool keepdim = False)\n")
_VAR_STD = (" * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n"
            " * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n"
            " * (bool unbiased = True)\n      didn't match because some of the keywords were incorrect: dim\n")
_ANY_ALL = (" * ()\n      didn't match because some of the keywords were incorrect: dim\n"
            " * (tuple of ints dim = None, bool keepdim = False)\n"
            " * (int dim, bool keepdim = False)\n")
_SQUEEZE = (" * ()\n      didn't match because some of the keywords were incorrect: dim\n"
            " * (int dim)\n      didn't match because some of the arguments have invalid types: (!dim={t}!, )\n"
            " * (tuple of ints dim)\n      didn't match because some of the arguments have invalid types: "
            "(!dim={t}!, )\n")
_OVERLOADS = {"sum": _SUM_MEAN, "mean": _SUM_MEAN, "max": _MAX_MIN, "min": _MAX_MIN, "var": _VAR_STD,
              "std": _VAR_STD, "any": _ANY_ALL, "all": _ANY_ALL, "squeeze": _SQUEEZE}
# the ops whose overloads take a tuple of ints, which torch unpacks element by element
_TAKE_TUPLES = _TUPLE + ("sum", "mean", "var", "std", "any", "all", "squeeze")


def _name(x):
    from .tensor import Tensor
    return "Tensor" if isinstance(x, Tensor) else tp_name(x)


def _bad_position(seq):
    """The position of the first element of seq that is not an integer."""
    import operator
    for i, x in enumerate(seq):
        try:
            operator.index(x)
        except TypeError:
            return i
    return None


def dim_type_error(op, dim):
    """The TypeError for op called with dim=dim, a non-integer or a sequence holding one (op None:
    an op without a message of its own here)."""
    if op in _TAKE_TUPLES and isinstance(dim, (tuple, list)):
        pos = _bad_position(dim)
        if pos:  # torch's parser judges a sequence by its first element, then unpacks the rest
            return TypeError(f"{op}(): argument 'dim' failed to unpack the object at pos {pos + 1} with error "
                             f"\"type must be tuple of ints,but got {_name(dim[pos])}\"")
    t = _name(dim)
    if op in _OVERLOADS:
        return TypeError(f"{op}() received an invalid combination of arguments - got (dim={t}, ), but expected "
                         "one of:\n" + _OVERLOADS[op].format(t=t))
    if op in _TUPLE:
        return TypeError(f"{op}(): argument 'dim' must be tuple of ints, not {t}")
    return TypeError(f"{op + '(): ' if op else ''}argument 'dim' must be int, not {t}")
