"""torch's TypeErrors for arguments of the wrong type (x.sum(1.5), x.sum(dim=True), torch.cat(ts, 1.5)).

torch checks the arguments of its ops with one parser (torch/csrc/utils/python_arg_parser.cpp),
whose messages depend on the op's overloads and on how each argument was given: by position
(`x.sum(1.5)`: "got (float)", "argument 'dim' (position 1)") or by keyword (`x.sum(dim=1.5)`:
"got (dim=float, )", "argument 'dim'"). Here is a port of the parts that write those messages
(FunctionSignature::parse, PythonArgParser::print_error and invalid_arguments.cpp's
format_invalid_args), driven by each op's signatures as torch's bindings declare them.

None of this runs on an op's common path: an op refuses a bad dim with ArgTypeError, and the
method or function the user called catches it and asks the op's Parser for torch's message,
giving the arguments as they were passed.
"""
import operator

from ._typename import tp_name


class ArgTypeError(TypeError):
    """An argument of the wrong type found inside an op; the entry point the user called turns it
    into torch's TypeError for the arguments it was given (Parser.error)."""


_MISSING = object()
NOT_GIVEN = object()  # the default of an argument that has none in torch (softmax's dim)

# how torch's messages name each parameter type
_TYPE_NAMES = {"Tensor": "Tensor", "int": "int", "bool": "bool", "int[]": "tuple of ints",
               "Tensor[]": "tuple of Tensors", "ScalarType": "minigrad.dtype", "Scalar": "Number",
               "str": "str", "Device": "minigrad.device", "Layout": "minigrad.layout",
               "Generator": "minigrad.Generator", "MemoryFormat": "minigrad.memory_format"}


def _is_tensor(x):
    from .tensor import Tensor
    return isinstance(x, Tensor)


def type_name(obj):
    """The name torch's messages give obj's type (CPython's tp_name of the torch object)."""
    from .dtypes import dtype
    from .devices import device
    if isinstance(obj, dtype):
        return "minigrad.dtype"
    if isinstance(obj, device):
        return "minigrad.device"
    if type(obj).__module__ == "minigrad.storage":  # torch names its storage classes in full
        return "minigrad.storage." + type(obj).__name__
    return "Tensor" if _is_tensor(obj) else tp_name(obj)


def _is_long(x):
    """torch's THPUtils_checkLong: an int that is no bool, or a NumPy integer; also a 0-d integer
    tensor that does not require grad, which torch takes for an int."""
    if isinstance(x, int):
        return not isinstance(x, bool)
    if _is_tensor(x):
        return x._data.ndim == 0 and x._data.dtype.kind in "iu" and not x.is_floating_point() and not x._requires_grad
    return type(x).__module__ == "numpy" and hasattr(x, "dtype") and x.dtype.kind in "iu" and not x.shape


def _is_index(x):
    """torch's is_int_or_symint: an integer (not a bool), anything with __index__ but a bool, or
    a one-element integer or bool tensor."""
    if _is_tensor(x):
        return x._data.size == 1 and x._data.dtype.kind in "biu" and not x.is_floating_point()
    if isinstance(x, bool) or (type(x).__module__ == "numpy" and type(x).__name__ == "bool"):
        return False
    try:
        operator.index(x)
    except TypeError:
        return False
    return True


def _int_list(obj, size, failed):
    """torch's is_int_or_symint_list: a tuple or list judged by its first element (failed[0] = 0
    when that is no integer), or a lone integer where the list has a size."""
    if isinstance(obj, (tuple, list)):
        if not obj or _is_index(obj[0]):
            return True
        failed[0] = 0
        return False
    return size > 0 and _is_index(obj)


class _Param:
    __slots__ = ("kind", "size", "name", "optional", "default", "allow_none", "keyword_only")

    def __init__(self, decl, keyword_only):
        decl, eq, default = decl.partition("=")
        kind, self.name = decl.rsplit(" ", 1)
        self.allow_none = kind.endswith("?") or default == "None"
        kind = kind.rstrip("?")
        self.size = 0
        if kind.startswith("int["):  # int[] or int[N]: N > 0 also takes a lone int
            self.size, kind = int(kind[4:-1] or 0), "int[]"
        self.kind, self.optional, self.default, self.keyword_only = kind, bool(eq), default, keyword_only

    def type_name(self):
        return _TYPE_NAMES[self.kind]

    def check(self, obj, failed):
        kind = self.kind
        if kind == "Tensor":
            return _is_tensor(obj)
        if kind == "int":
            return _is_long(obj)
        if kind == "bool":
            return isinstance(obj, bool)  # not a NumPy bool
        if kind == "int[]":
            return _int_list(obj, self.size, failed)
        if kind == "Tensor[]":
            if not isinstance(obj, (tuple, list)):
                return False
            for i, t in enumerate(obj):
                if not _is_tensor(t):  # torch raises this at once, whichever overload it tries
                    raise TypeError(f"expected Tensor as element {i} in argument {failed[1]}, but got "
                                    f"{type_name(t)}")
            return True
        if kind == "ScalarType":
            from .dtypes import dtype
            return isinstance(obj, dtype)
        if kind == "Scalar":
            return isinstance(obj, (int, float, complex)) or (_is_tensor(obj) and obj._data.ndim == 0) or (
                type(obj).__module__ == "numpy" and hasattr(obj, "dtype") and not obj.shape)
        if kind == "str":
            return isinstance(obj, str)
        if kind == "Device":
            from .devices import device
            return isinstance(obj, (device, str)) or _is_long(obj)
        if kind == "Layout":
            from .memory_formats import layout
            return isinstance(obj, layout)
        if kind == "MemoryFormat":
            from .memory_formats import memory_format
            return isinstance(obj, memory_format)
        if kind == "Generator":
            from .creation import Generator
            return isinstance(obj, Generator)
        raise AssertionError(kind)

    def __str__(self):  # as torch prints it in the list of overloads
        return f"{self.type_name()} {self.name}" + (f" = {self.default}" if self.optional else "")


class Signature:
    """One overload, written as torch's bindings declare it: "Tensor input, int[1]? dim, bool
    keepdim=False, *, ScalarType? dtype=None" (int[1]: a tuple of ints that also takes one int)."""

    def __init__(self, name, spec):
        self.name, self.params = name, []
        keyword_only = False
        for decl in spec.split(", ") if spec else ():
            if decl == "*":
                keyword_only = True
            else:
                self.params.append(_Param(decl, keyword_only))
        self.max_args = len(self.params)
        self.min_args = sum(not p.optional for p in self.params)
        self.max_pos_args = sum(not p.keyword_only for p in self.params)

    def method(self):
        """The Tensor method's form of a function's overload: no input, no out."""
        m = Signature(self.name, "")
        m.params = [p for p in self.params[1:] if p.name != "out"]
        m.max_args = len(m.params)
        m.min_args = sum(not p.optional for p in m.params)
        m.max_pos_args = sum(not p.keyword_only for p in m.params)
        return m

    def __str__(self):
        out, star = [], False
        for p in self.params:
            if p.keyword_only and not star:
                out.append("*")
                star = True
            out.append(str(p))
        return "(" + ", ".join(out) + ")"

    def _extra_args(self, nargs):
        if self.min_args != self.max_pos_args:
            return TypeError(f"{self.name}() takes from {self.min_args} to {self.max_pos_args} positional "
                             f"arguments but {nargs} were given")
        n = self.max_pos_args
        return TypeError(f"{self.name}() takes {n} positional argument{'' if n == 1 else 's'} but {nargs} "
                         f"{'was' if nargs == 1 else 'were'} given")

    def parse(self, args, kwargs, raise_, bound=None):
        """Whether torch's parser takes (args, kwargs) for this overload; with raise_, its
        TypeError is raised instead of answering False. bound: a list to append each (param,
        value) to."""
        nargs, remaining, pos = len(args), len(kwargs), 0
        varargs = self.max_pos_args == 1 and self.params[0].kind == "int[]"  # permute(1, 0)
        if nargs > self.max_pos_args and not varargs:
            if raise_:
                raise self._extra_args(nargs)
            return False
        for i, p in enumerate(self.params):
            obj, is_kwd = _MISSING, False
            if pos < nargs:
                if p.keyword_only:
                    if raise_:
                        raise self._extra_args(nargs)
                    return False
                obj = args[pos]
            elif kwargs:
                obj, is_kwd = kwargs.get(p.name, _MISSING), True
            failed = [-1, i]
            eligible = varargs and pos == 0 and not is_kwd
            if (obj is _MISSING and p.optional) or (obj is None and p.allow_none):
                pass
            elif obj is _MISSING:
                if raise_:
                    missing = [f'"{q.name}"' for q in self.params[i:] if not q.optional]
                    raise TypeError(f"{self.name}() missing {len(missing)} required positional argument"
                                    f"{'s' if len(missing) == 1 else ''}: {', '.join(missing)}")
                return False
            elif p.check(obj, failed):
                if bound is not None:
                    bound.append((p, obj))
            elif eligible and _int_list(args, p.size, [-1]):
                pos = nargs  # all the positional arguments are this one: permute(1, 0)
                if bound is not None:
                    bound.append((p, args))
                continue
            elif raise_:
                if is_kwd:
                    raise TypeError(f"{self.name}(): argument '{p.name}' must be {p.type_name()}, not "
                                    f"{type_name(obj)}")
                if eligible and nargs > 1:
                    raise self._extra_args(nargs)
                if failed[0] != -1:
                    seq = obj if isinstance(obj, (tuple, list)) else args
                    raise TypeError(f"{self.name}(): argument '{p.name}' (position {pos + 1}) must be "
                                    f"{p.type_name()}, but found element of type {type_name(seq[failed[0]])} "
                                    f"at pos {failed[0]}")
                raise TypeError(f"{self.name}(): argument '{p.name}' (position {pos + 1}) must be "
                                f"{p.type_name()}, not {type_name(obj)}")
            else:
                return False
            if not is_kwd:
                pos += 1
            elif obj is not _MISSING:
                remaining -= 1
        if pos < nargs:  # permute((1, 0), 0): the list came whole, the 0 is one too many
            if raise_:
                raise self._extra_args(nargs)
            return False
        if remaining > 0:
            if raise_:
                names = [p.name for p in self.params]
                for key in kwargs:
                    if key not in names:
                        raise TypeError(f"{self.name}() got an unexpected keyword argument '{key}'")
                    if names.index(key) < nargs:
                        raise TypeError(f"{self.name}() got multiple values for argument '{key}'")
                raise TypeError("invalid keyword arguments")
            return False
        return True


class Parser:
    """The overloads of one op (function forms; method=True for the Tensor method's)."""

    def __init__(self, name, *specs, method=False):
        self.name = name
        self.signatures = [Signature(name, s) for s in specs]
        if method:
            self.signatures = [s.method() for s in self.signatures]

    def error(self, args, kwargs=None):
        """torch's TypeError for a call with these arguments (positional args, then kwargs as
        given), or None where torch's parser would take them."""
        kwargs = kwargs or {}
        try:
            self._parse(tuple(args), kwargs)
        except TypeError as e:
            return TypeError(str(e))
        return None

    def _parse(self, args, kwargs):
        sigs, bound = self.signatures, []
        if len(sigs) == 1:
            sigs[0].parse(args, kwargs, True, bound)
            return self._unpack(bound)
        for s in sigs:
            if s.parse(args, kwargs, False, bound):
                return self._unpack(bound)
            bound.clear()
        n = len(args) + len(kwargs)
        plausible = [s for s in sigs if s.min_args <= n <= s.max_args]
        if len(plausible) == 1:
            plausible[0].parse(args, kwargs, True)
        raise TypeError(_format_invalid_args(args, kwargs, self.name + "()", [str(s) for s in sigs]))

    def _unpack(self, bound):
        """Once an overload took the arguments, torch unpacks a tuple of ints judged by its first
        element: another element that is no integer (a bool is one) fails then."""
        for p, obj in bound:
            if p.kind == "int[]" and isinstance(obj, (tuple, list)):
                for i, x in enumerate(obj):
                    if not (_is_index(x) or isinstance(x, bool)):
                        raise TypeError(f"{self.name}(): argument '{p.name}' failed to unpack the object at pos "
                                        f"{i + 1} with error \"type must be tuple of ints,but got {type_name(x)}\"")


# ---- invalid_arguments.cpp: the "received an invalid combination of arguments" message ---------
# It parses the printed overloads again, loosely: "(int dim, bool keepdim = False)" has the
# arguments "int dim" and "bool keepdim = False", the latter named "False" and of type
# "bool keepdim =", which no argument matches; "()" has one argument, named "".

def _option(text):
    args = []
    for arg in text[1:-1].split(", "):
        cut = arg.rfind(" ")
        kind, name = (arg, arg) if cut < 0 else (arg[:cut], arg[cut + 1:])
        args.append((name, kind))
    return args


def _matches(kind, obj):
    name = type_name(obj)
    if kind == "float":
        return name in ("float", "int", "long")
    if kind == "int":
        return name in ("int", "long")
    return name == kind


def _arg_desc(args, kwargs):
    out = "(" + "".join(f"{type_name(a)}, " for a in args) + "".join(f"{k}={type_name(v)}, " for k, v in kwargs.items())
    return (out[:-2] if args else out) + ")"


def _formatted_arg_desc(option, args, kwargs):
    out = "("
    for i in range(len(args) + len(kwargs)):
        is_kwarg = i >= len(args)
        if is_kwarg:  # torch looks a keyword up by the name of the option's i-th argument
            arg = kwargs.get(option[i][0]) if i < len(option) else None
            arg = arg if arg is not None else list(kwargs.values())[i - len(args)]
        else:
            arg = args[i]
        ok = i < len(option) and _matches(option[i][1], arg)
        name = option[i][0] if i < len(option) else list(kwargs)[i - len(args)]
        text = type_name(arg)
        if isinstance(arg, (tuple, list)):
            inner = ", ".join(type_name(x) for x in arg)
            text += " of " + (f"({inner}{',' if len(arg) == 1 else ''})" if isinstance(arg, tuple) else f"[{inner}]")
        out += ("" if ok else "!") + (f"{name}=" if is_kwarg else "") + text + ("" if ok else "!") + ", "
    return (out[:-2] if args else out) + ")"


def _unmatched_kwargs(option, kwargs):
    names = [name for name, _ in option[max(len(option) - len(kwargs), 0):]]
    return [k for k in kwargs if k not in names]


def _format_invalid_args(args, kwargs, name, options):
    # torch holds the keywords in a std::unordered_map, which (libstdc++, few keys) lists them
    # last given first
    kwargs = dict(reversed(list(kwargs.items())))
    msg = name + " received an invalid combination of arguments - "
    if len(options) == 1:
        option = _option(options[0])
        unmatched = _unmatched_kwargs(option, kwargs) if kwargs else []
        if unmatched:
            return msg + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        got = (_formatted_arg_desc(option, args, kwargs) if len(args) + len(kwargs) == len(option)
               else _arg_desc(args, kwargs))
        return msg + f"got {got}, but expected {options[0]}"
    msg += f"got {_arg_desc(args, kwargs)}, but expected one of:\n"
    for text in options:
        option = _option(text)
        msg += f" * {text}\n"
        if len(args) + len(kwargs) == len(option):
            unmatched = _unmatched_kwargs(option, kwargs) if kwargs else []
            if unmatched:
                msg += "      didn't match because some of the keywords were incorrect: " + ", ".join(unmatched) + "\n"
            else:
                msg += ("      didn't match because some of the arguments have invalid types: "
                        + _formatted_arg_desc(option, args, kwargs) + "\n")
    return msg


# ---- the ops: their overloads as torch's bindings declare them (function forms; a Tensor
# method's are the same without input and out) ---------------------------------------------
_DIM_KEEPDIM = "Tensor input, int{} dim{}, bool keepdim=False, *, Tensor out=None"
_SPECS = {
    "sum": ("Tensor input, *, ScalarType? dtype=None",
            "Tensor input, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor out=None"),
    "prod": ("Tensor input, *, ScalarType? dtype=None",
             "Tensor input, int dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor out=None"),
    "mean": ("Tensor input, *, ScalarType? dtype=None, Tensor out=None",
             "Tensor input, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor out=None"),
    "max": ("Tensor input, *, Tensor out=None", "Tensor input, Tensor other, *, Tensor out=None",
            "Tensor input, int dim, bool keepdim=False, *, Tensor[] out=None"),
    "amax": (_DIM_KEEPDIM.format("[1]?", "=[]"),),
    "argmax": (_DIM_KEEPDIM.format("?", "=None"),),
    "any": ("Tensor input, *, Tensor out=None", _DIM_KEEPDIM.format("[]?", "=None"), _DIM_KEEPDIM.format("", "")),
    "var": ("Tensor input, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor out=None",
            "Tensor input, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, Tensor out=None",
            "Tensor input, bool unbiased=True"),
    "softmax": ("Tensor input, int dim, ScalarType? dtype=None, *, Tensor out=None",),
    "cumsum": ("Tensor input, int dim, *, ScalarType? dtype=None, Tensor out=None",),
    "cumsum_": ("Tensor input, int dim, *, ScalarType? dtype=None",),
    "cummax": ("Tensor input, int dim, *, Tensor[] out=None",),
    "squeeze": ("Tensor input", "Tensor input, int dim", "Tensor input, int[] dim"),
    "unsqueeze": ("Tensor input, int dim",),
    "transpose": ("Tensor input, int dim0, int dim1",),
    "swapaxes": ("Tensor input, int axis0, int axis1",),
    "flatten": ("Tensor input, int start_dim=0, int end_dim=-1",),
    "permute": ("Tensor input, int[] dims",),
    "chunk": ("Tensor input, int chunks, int dim=0",),
    "split": ("Tensor input, int split_size, int dim=0", "Tensor input, int[] split_size, int dim=0"),
    "split_with_sizes": ("Tensor input, int[] split_sizes, int dim=0",),
    "size": ("Tensor input, int? dim=None",),
    "cat": ("Tensor[] tensors, int dim=0, *, Tensor out=None",),
    "linalg_vector_norm": ("Tensor input, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
                           "ScalarType? dtype=None, Tensor out=None",),
    "device": ("Device device", "str type, int? index=-1"),
    "lt": ("Tensor input, Tensor other, *, Tensor out=None", "Tensor input, Scalar other, *, Tensor out=None"),
    "fill_": ("Tensor input, Tensor value", "Tensor input, Scalar value"),
    "pow": ("Tensor input, Tensor exponent, *, Tensor out=None", "Scalar self, Tensor exponent, *, Tensor out=None",
            "Tensor input, Scalar exponent, *, Tensor out=None"),
}
_SPECS.update({
    "floor_divide": ("Tensor input, Tensor other, *, Tensor out=None", "Tensor input, Scalar other"),
    "remainder": ("Tensor input, Tensor other, *, Tensor out=None", "Scalar self, Tensor other",
                  "Tensor input, Scalar other, *, Tensor out=None"),
    "fmod": ("Tensor input, Tensor other, *, Tensor out=None", "Tensor input, Scalar other, *, Tensor out=None"),
    "div": ("Tensor input, Tensor other, *, Tensor out=None",
            "Tensor input, Tensor other, *, str? rounding_mode, Tensor out=None",
            "Tensor input, Scalar other, *, str? rounding_mode"),
})
# creation.py: the factories' keyword arguments
_FACTORY_TAIL = ("Tensor out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                 "bool? pin_memory=False, bool? requires_grad=False")
_SPECS.update({
    "zeros": (f"int[] size, *, {_FACTORY_TAIL}",),
    "ones": (f"int[] size, *, {_FACTORY_TAIL}",),
    "empty": (f"int[] size, *, MemoryFormat? memory_format=None, {_FACTORY_TAIL}",),
    "rand": (f"int[] size, *, Generator? generator, {_FACTORY_TAIL}", f"int[] size, *, {_FACTORY_TAIL}"),
    "randn": (f"int[] size, *, Generator? generator, {_FACTORY_TAIL}", f"int[] size, *, {_FACTORY_TAIL}"),
    "full": (f"int[] size, Scalar fill_value, *, {_FACTORY_TAIL}",),
    "randint": (f"int high, int[] size, *, Generator? generator, {_FACTORY_TAIL}",
                f"int high, int[] size, *, {_FACTORY_TAIL}",
                f"int low, int high, int[] size, *, Generator? generator, {_FACTORY_TAIL}",
                f"int low, int high, int[] size, *, {_FACTORY_TAIL}"),
    "eye": (f"int n, *, {_FACTORY_TAIL}", f"int n, int m, *, {_FACTORY_TAIL}"),
    "view": ("Tensor input, ScalarType dtype", "Tensor input, int[] size"),
    "arange": (f"Scalar end, *, {_FACTORY_TAIL}",
               f"Scalar start, Scalar end, *, {_FACTORY_TAIL.replace('Tensor out=None, ', '')}",
               f"Scalar start, Scalar end, Scalar step=1, *, {_FACTORY_TAIL}"),
})
_SPECS.update({  # ops/math_more.py
    "median": ("Tensor input", "Tensor input, int dim, bool keepdim=False, *, Tensor[] out=None"),
    "nanmedian": ("Tensor input", "Tensor input, int dim, bool keepdim=False, *, Tensor[] out=None"),
    "mode": ("Tensor input, int dim=-1, bool keepdim=False, *, Tensor[] out=None",),
    "aminmax": ("Tensor input, *, int? dim=None, bool keepdim=False, Tensor[] out=None",),
    "copysign": _SPECS["fmod"], "copysign_": ("Tensor input, Tensor other", "Tensor input, Scalar other"),
    "xlogy": ("Tensor input, Tensor other, *, Tensor out=None", "Scalar self, Tensor other, *, Tensor out=None",
              "Tensor input, Scalar other, *, Tensor out=None"),
    "xlogy_": ("Tensor input, Tensor other", "Tensor input, Scalar other"),
})
_SPECS.update({  # ops/special.py
    _name: ("Tensor input, Tensor other, *, Tensor out=None", "Scalar self, Tensor other",
            "Tensor input, Scalar other, *, Tensor out=None")
    for _name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift")})
# a Tensor method whose overloads are not its function's without input (pow's Scalar self)
_METHOD_SPECS = {"pow": ("Tensor input, Tensor exponent", "Tensor input, Scalar exponent"),
                 "xlogy": ("Tensor input, Tensor other", "Tensor input, Scalar other"),
                 "remainder": ("Tensor input, Tensor other", "Tensor input, Scalar other"),
                 **{_name: ("Tensor input, Tensor other", "Tensor input, Scalar other")
                    for _name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                                  "bitwise_right_shift")}}
for _a, _b in (("min", "max"), ("amin", "amax"), ("argmin", "argmax"), ("all", "any"), ("std", "var"),
               ("log_softmax", "softmax"), ("swapdims", "transpose"), ("concat", "cat"), ("stack", "cat"),
               ("cumprod", "cumsum"), ("cumprod_", "cumsum_"), ("cummin", "cummax"),
               ("le", "lt"), ("gt", "lt"), ("ge", "lt"), ("eq", "lt"), ("ne", "lt"),
               ("unsqueeze_", "unsqueeze"), ("squeeze_", "squeeze"), ("transpose_", "transpose"),
               ("swapdims_", "transpose"), ("swapaxes_", "swapaxes")):
    _SPECS[_a] = _SPECS[_b]
_parsers = {}


def parser(op, method):
    """The Parser of op's function form, or of its Tensor method's (method=True)."""
    key = (op, method)
    p = _parsers.get(key)
    if p is None:
        p = _parsers[key] = Parser(op, *(_METHOD_SPECS.get(op, _SPECS[op]) if method else _SPECS[op]), method=method)
    return p


def call_error(op, method, args, kwargs=None, error=None):
    """The TypeError for op called (as a Tensor method, or as a function) with the positional
    arguments args and the keyword arguments kwargs. error: what the op raised, kept (as a plain
    TypeError) where torch's parser would take the arguments."""
    found = parser(op, method).error(args, kwargs)
    if found is None:
        found = TypeError(str(error) if error is not None else f"{op}(): invalid arguments")
    return found


def given(names, values, defaults, skip=0):
    """The keyword arguments names[skip:] = values[skip:], but those still at their defaults,
    which count as not given (the one call this cannot tell apart: a default given by keyword)."""
    return {n: v for n, v, d in zip(names[skip:], values[skip:], defaults[skip:]) if v is not d}


def binds(args, kwargs, names, required):
    """Whether Python would bind (args, kwargs) to the parameters names, of which the first
    `required` have no default, as torch's parser does: else it is torch's error to raise."""
    if len(args) > len(names):
        return False
    for k in kwargs:
        if k not in names or names.index(k) < len(args):
            return False
    return all(n in kwargs for n in names[len(args):required])


def dim_type_error(op, dim):
    """What an op raises for dim=dim, a non-integer or a sequence holding one (op None: an op
    without a parser here): torch's message for the keyword form x.op(dim=...), which the entry
    point the user called replaces with torch's message for its own arguments."""
    if op in _SPECS:
        found = parser(op, True).error((), {"dim": dim})
        if found is not None:
            return ArgTypeError(str(found))
    return ArgTypeError(f"{op + '(): ' if op else ''}argument 'dim' must be int, not {type_name(dim)}")
