"""Containers: nn.Sequential, nn.ModuleList, nn.ModuleDict, nn.ParameterList, nn.ParameterDict.

The module containers keep their children in Module._modules (so named_modules, state_dict and
.to() see them without extra code); the list-like ones key them "0".."n-1" and re-key after
every removal or insertion, so a state_dict key always names the child's current position."""
from collections import OrderedDict
from collections.abc import Iterable, Mapping
import operator

from ..._typename import typename as _typename
from ...tensor import Tensor
from ..parameter import Parameter
from .module import Module, _addindent


def _position(idx, size):
    """An integer index into a container of `size` entries as a position 0..size-1; IndexError
    outside [-size, size), TypeError for what is not an integer."""
    pos = operator.index(idx)
    if pos < -size or pos >= size:
        raise IndexError(f"index {pos} is out of range")
    return pos + size if pos < 0 else pos


def _rekey(registry, children=None):
    """Store `children` (default: the registry's current values) under keys "0", "1", ..."""
    ordered = list(registry.values()) if children is None else children
    registry.clear()
    registry.update((str(n), child) for n, child in enumerate(ordered))


def _as_parameter(value):
    """What a parameter container stores for `value`: a plain Tensor is wrapped as a Parameter,
    anything else (a Parameter, None, an arbitrary object) is kept as it is."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _check_pair(owner, n, entry):
    """An update() sequence entry has to be a (key, value) pair."""
    if not isinstance(entry, Iterable):
        raise TypeError(f"{owner} update sequence element #{n} should be Iterable; is{type(entry).__name__}")
    if len(entry) != 2:
        raise ValueError(f"{owner} update sequence element #{n} has length {len(entry)}; 2 is required")


class Sequential(Module):
    """Runs its modules in order; `Sequential(m0, m1, ...)` or `Sequential(OrderedDict(...))`."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            named = args[0].items()
        else:
            named = ((str(n), m) for n, m in enumerate(args))
        for name, child in named:
            self.add_module(name, child)

    def forward(self, input):
        for stage in self._modules.values():
            input = stage(input)
        return input

    def _key_at(self, idx):
        return list(self._modules)[_position(idx, len(self._modules))]

    def __getitem__(self, idx):
        if isinstance(idx, slice):  # a new Sequential keeping the original keys
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key_at(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx):
        doomed = list(self._modules)[idx] if isinstance(idx, slice) else [self._key_at(idx)]
        for key in doomed:
            del self._modules[key]
        _rekey(self._modules)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    @staticmethod
    def _require_sequential(other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")

    def __add__(self, other):
        self._require_sequential(other)
        return Sequential(*self, *other)

    def __iadd__(self, other):
        self._require_sequential(other)
        for child in other:
            self.add_module(str(len(self._modules)), child)
        return self

    def _check_factor(self, other):
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")

    def __mul__(self, other):
        """`seq * n`: a Sequential of the same module objects (not copies), n times over."""
        self._check_factor(other)
        return Sequential(*(list(self) * other))

    def __rmul__(self, other):
        return self.__mul__(other)

    def __imul__(self, other):
        self._check_factor(other)
        for child in list(self) * (other - 1):
            self.add_module(str(len(self._modules)), child)
        return self

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def extend(self, sequential):
        for child in sequential:
            self.append(child)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        size = len(self._modules)
        if index < -size or index > size:
            raise IndexError(f"Index out of range: {index}")
        children = list(self._modules.values())
        children.insert(index + size if index < 0 else index, module)
        _rekey(self._modules, children)
        return self

    def pop(self, key):
        removed = self[key]
        del self[key]
        return removed


class ModuleList(Module):
    """A list of modules whose parameters the parent registers; it has no forward."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _key_at(self, idx):
        return str(_position(idx, len(self._modules)))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[self._key_at(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            doomed = [str(n) for n in range(len(self._modules))[idx]]
        else:
            doomed = [self._key_at(idx)]
        for key in doomed:
            del self._modules[key]
        _rekey(self._modules)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        joined = ModuleList()
        for child in [*self, *other]:
            joined.append(child)
        return joined

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def extend(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " +
                            type(modules).__name__)
        start = len(self)
        for n, child in enumerate(modules):
            self.add_module(str(start + n), child)
        return self

    def insert(self, index, module):
        """As list.insert, negative indices included (torch's raises KeyError for those). The
        children are re-added in their new order; add_module validates the inserted one."""
        children = list(self._modules.values())
        children.insert(operator.index(index), module)
        for pos, child in enumerate(children):
            self.add_module(str(pos), child)

    def pop(self, key):
        removed = self[key]
        del self[key]
        return removed

    def __repr__(self):
        """Runs of equal modules print once, as torch 2's `(0-2): 3 x Linear(...)`."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        lines, start = [], 0
        for end in range(1, len(reprs) + 1):
            if end < len(reprs) and reprs[end] == reprs[start]:
                continue
            body = _addindent(reprs[start], 2)
            if end - start == 1:
                lines.append(f"({start}): {body}")
            else:
                lines.append(f"({start}-{end - 1}): {end - start} x {body}")
            start = end
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class ModuleDict(Module):
    """A dict of modules (insertion-ordered) whose parameters the parent registers."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key):
        removed = self[key]
        del self[key]
        return removed

    def clear(self):
        self._modules.clear()

    def update(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, "
                            "but got " + type(modules).__name__)
        if isinstance(modules, (OrderedDict, ModuleDict, Mapping)):
            for key, child in modules.items():
                self[key] = child
            return
        # a sequence of pairs, each checked as it comes: the pairs before a bad one stay added
        for n, entry in enumerate(modules):
            _check_pair("ModuleDict", n, entry)
            self[entry[0]] = entry[1]


def _param_line(key, p, typename=False):
    """torch's one-line description of a ParameterList entry (p's dtype) or a ParameterDict entry
    (p's type name, minigrad.FloatTensor)."""
    if isinstance(p, Tensor):
        size = "x".join(str(n) for n in p.size())
        dev = f" ({p.device})" if p.device.type == "cuda" else ""
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"  ({key}): {kind} containing: [{_typename(p) if typename else p.dtype} of size {size}{dev}]"
    return f"  ({key}): Object of type: {type(p).__name__}"


class ParameterList(Module):
    """A list whose Tensors are registered as parameters "0", "1", ... (a plain Tensor put in
    becomes a Parameter); other objects are kept as plain attributes, as torch's. The length is
    kept in _size because entries live as attributes, not in one registry."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            part = self.__class__()
            for pos in range(*idx.indices(len(self))):
                part.append(self[pos])
            return part
        return getattr(self, str(_position(idx, len(self))))

    def __setitem__(self, idx, param):
        return setattr(self, str(_position(idx, len(self))), _as_parameter(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[pos] for pos in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        # the "0", "1", ... attributes are reached by indexing, not listed
        return [name for name in super().__dir__() if not name.isdigit()]

    def append(self, value):
        slot = len(self)
        self._size += 1  # grow first: __setitem__ only writes into existing positions
        self[slot] = value
        return self

    def extend(self, values):
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " +
                            type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_param_line(k, p) for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of string keys whose Tensors are registered as parameters under their
    keys (a plain Tensor put in becomes a Parameter), as torch's. The values live as attributes
    named by their keys; _keys (a dict used as an ordered set) remembers the order."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _attr_name(key):
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string "
                            f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                            "non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._attr_name(key))

    def __setitem__(self, key, value):
        # the key is recorded before it is validated, as torch's (a rejected key still counts)
        self._keys[key] = None
        setattr(self, self._attr_name(key), _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._attr_name(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def copy(self):
        return ParameterDict(OrderedDict(self.items()))

    def __contains__(self, key):
        return key in self._keys

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for key in list(self._keys):
            del self[key]

    def pop(self, key):
        removed = self[key]
        del self[key]
        return removed

    def popitem(self):
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        newest = next(reversed(self._keys))
        return newest, self.pop(newest)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        return ParameterDict([(key, default) for key in keys])

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((key, self[key]) for key in self._keys)

    def values(self):
        return (self[key] for key in self._keys)

    def update(self, parameters):
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, "
                            "but got " + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = list(parameters.items())
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())  # a plain dict's keys go in sorted, as torch's
        else:
            for n, entry in enumerate(parameters):
                _check_pair("ParameterDict", n, entry)
                self[entry[0]] = entry[1]
            return
        for key, value in pairs:
            self[key] = value

    def extra_repr(self):
        return "\n".join(_param_line(k, p, True) for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other):
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other):
        self.update(other)
        return self
