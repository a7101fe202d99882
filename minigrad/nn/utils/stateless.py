"""functional_call: run a module as if some of its parameters and buffers were other tensors,
as torch.func.functional_call (torch.nn.utils.stateless's older form takes a single dict and
warns; this one takes a dict or a sequence of dicts, silently).

The method is a temporary swap: each given tensor is written into the registry entry (or plain
attribute) its dotted name addresses, the forward runs, and whatever was there before is
written back, also when the forward raises. Gradients therefore reach the given tensors, and
the module comes out as it went in. A tensor the forward itself replaced during the call (a
buffer updated by assignment) is handed back through the caller's dict."""
import contextlib
from collections.abc import Sequence

from ...tensor import Tensor
from ..modules.module import Module

__all__ = ["functional_call"]

# stands for "the module had nothing under this name": swapping it in deletes the name
_ABSENT = object()


def _describe_keys(keys):
    return ", ".join(repr(k) for k in keys)


def _exchange(module, leaf, value):
    """Put value at module.<leaf> (remove it for _ABSENT) and return what was there (_ABSENT
    if nothing). Registered parameters and buffers are replaced inside their registry, so
    any tensor may stand in for a Parameter."""
    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if value is not _ABSENT and value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    if "." in leaf:
        raise KeyError('tensor name can\'t contain "."')
    if leaf == "":
        raise KeyError('tensor name can\'t be empty string ""')
    for registry in (module._parameters, module._buffers):
        if leaf in registry:
            previous = registry[leaf]
            if value is _ABSENT:
                del registry[leaf]
            else:
                registry[leaf] = value
            return previous
    # an unregistered attribute, or none at all (then it exists only during the call)
    previous = getattr(module, leaf, _ABSENT)
    if previous is not _ABSENT and previous is not None and not isinstance(previous, Tensor):
        raise TypeError(f"attribute `{leaf}`: {previous} is not an instance of torch.Tensor")
    if value is not _ABSENT:
        setattr(module, leaf, value)
    elif hasattr(module, leaf):
        delattr(module, leaf)
    return previous


class _Swapper:
    """Swaps tensors addressed by dotted names ("0.weight") in one module tree, remembering the
    submodules it has resolved."""

    def __init__(self, root):
        self.root = root
        self._resolved = {"": root}

    def owner(self, path):
        """The submodule at dotted path ("" is the root)."""
        if path in self._resolved:
            return self._resolved[path]
        parent_path, _, child = path.rpartition(".")
        parent = self.owner(parent_path)
        try:
            found = getattr(parent, child)
        except AttributeError as err:
            raise AttributeError(f"{parent._get_name()} has no attribute `{child}`") from err
        if not isinstance(found, Module):
            raise TypeError(f"submodule `{path}`: {found} is not an instance of torch.nn.Module")
        self._resolved[path] = found
        return found

    def exchange_all(self, mapping):
        """Swap every (name, tensor) of mapping in; returns {name: what it displaced}. If one
        swap fails, those already made are undone before the error propagates."""
        displaced = {}
        try:
            for name, value in mapping.items():
                path, _, leaf = name.rpartition(".")
                displaced[name] = _exchange(self.owner(path), leaf, value)
        except Exception:
            self.exchange_all(displaced)
            raise
        return displaced

    def key_mismatch(self, names):
        """(sorted names the module has but `names` lacks, sorted names it does not have)."""
        known = {n for n, _ in self.root.named_parameters(remove_duplicate=False)}
        known.update(n for n, _ in self.root.named_buffers(remove_duplicate=False))
        names = set(names)
        return sorted(known - names), sorted(names - known)


def _spread_over_ties(module, given):
    """given, extended so that a value given for one name of a tensor the module holds under
    several names (tied weights) is used for all of those names."""
    names_of = {}  # id(tensor) -> every name it has in the module
    everything = dict(module.named_parameters(remove_duplicate=False))
    everything.update(module.named_buffers(remove_duplicate=False))
    for name, tensor in everything.items():
        names_of.setdefault(id(tensor), set()).add(name)
    group_of = {name: group for group in names_of.values() if len(group) > 1 for name in group}
    tied_given = {name for name in given if name in group_of}
    for name in tied_given:
        group = group_of[name]
        values = {id(given[other]) for other in group if other in given}
        if len(group & tied_given) > 1 and len(values) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(group)}, "
                             "which are tied. Consider using tie_weights=False")
    spread = dict(given)
    for name in tied_given:
        spread.update(dict.fromkeys(group_of[name], given[name]))
    return spread


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    """Within the block, module uses the tensors of parameters_and_buffers (dotted names)."""
    wanted = _spread_over_ties(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    swapper = _Swapper(module)
    if strict:
        missing, unexpected = swapper.key_mismatch(wanted)
        problems = []
        if unexpected:
            problems.append(f"Unexpected key(s): {_describe_keys(unexpected)}.")
        if missing:
            problems.append(f"Missing key(s): {_describe_keys(missing)}.")
        if problems:
            raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t"
                               + "\n\t".join(problems))
    originals = {}
    try:
        originals = swapper.exchange_all(wanted)
        yield
    finally:
        used = swapper.exchange_all(originals)
        for name in parameters_and_buffers:
            if name in used:
                parameters_and_buffers[name] = used[name]


def _merged(parameter_and_buffer_dicts):
    """One name -> tensor dict from a dict (itself) or a sequence of dicts sharing no name."""
    if isinstance(parameter_and_buffer_dicts, dict):
        return parameter_and_buffer_dicts
    if not isinstance(parameter_and_buffer_dicts, Sequence):
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
                         f"but got {type(parameter_and_buffer_dicts)}")
    if any(not isinstance(d, dict) for d in parameter_and_buffer_dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    seen = {}
    for d in parameter_and_buffer_dicts:
        for name in d:
            seen[name] = seen.get(name, 0) + 1
    clashes = [name for name, count in seen.items() if count > 1]
    if clashes:
        raise ValueError(f"{clashes} appeared in multiple dictionaries; behavior of functional "
                         "call is ambiguous")
    return {name: value for d in parameter_and_buffer_dicts for name, value in d.items()}


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """module(*args, **kwargs) computed with the tensors of parameter_and_buffer_dicts (a dict
    of dotted names, or a sequence of such dicts with no name twice) in place of the module's
    own; the module is left unchanged. tie_weights: a value given for one of several names of
    the same tensor serves for all of them. strict: the names must be exactly the module's."""
    replacements = _merged(parameter_and_buffer_dicts)
    from ..parallel import DataParallel
    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, replacements, tie_weights=tie_weights, strict=strict):
        return module(*args, **(kwargs or {}))
