"""functional_call: run a module with other tensors in place of its parameters and buffers, as
torch.func.functional_call (torch.nn.utils.stateless's, which torch deprecates in its favour
and which takes one dict; this one also takes a sequence of dicts and gives no warning).

The tensors are swapped into the modules' registries for the call and the originals put back
afterwards, also when the forward raises; gradients flow to the given tensors."""
import contextlib
from collections.abc import Sequence

from ...tensor import Tensor
from ..modules.module import Module

__all__ = ["functional_call"]

_MISSING = object()


def _swap_tensor(module, name, tensor, allow_missing=False):
    """Put tensor (or, for _MISSING, nothing) at module.<name>; returns what was there."""
    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if tensor is not _MISSING and not isinstance(tensor, Tensor) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    for store in (module._parameters, module._buffers):
        if name in store:
            orig_tensor = store[name]
            if tensor is not _MISSING:
                store[name] = tensor  # any tensor, not only a Parameter, as torch's
            else:
                del store[name]
            return orig_tensor
    if hasattr(module, name):
        orig_tensor = getattr(module, name)
    else:
        if not allow_missing:
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        orig_tensor = _MISSING
    if orig_tensor is not _MISSING and not isinstance(orig_tensor, Tensor) and orig_tensor is not None:
        raise TypeError(f"attribute `{name}`: {orig_tensor} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return orig_tensor


class _NamedMemberAccessor:
    """Tensors of a module tree addressed by dotted names (torch's NamedMemberAccessor)."""

    def __init__(self, module):
        self.module = module
        self.memo = {}

    def get_submodule(self, name):
        if not name:
            return self.module
        if name in self.memo:
            return self.memo[name]
        prefix, dot, attr = name.rpartition(".")
        module = self.get_submodule(prefix) if dot else self.module
        try:
            submodule = getattr(module, attr)
        except AttributeError as ex:
            raise AttributeError(f"{module._get_name()} has no attribute `{attr}`") from ex
        if not isinstance(submodule, Module):
            raise TypeError(f"submodule `{name}`: {submodule} is not an instance of torch.nn.Module")
        self.memo[name] = submodule
        return submodule

    def swap_tensor(self, name, value, allow_missing=False):
        prefix, _, attr = name.rpartition(".")
        return _swap_tensor(self.get_submodule(prefix), attr, value, allow_missing=allow_missing)

    def swap_tensors_dict(self, named_tensors, allow_missing=False):
        orig_named_tensors = {}
        missing_keys = []
        try:
            for name, tensor in named_tensors.items():
                orig_tensor = self.swap_tensor(name, tensor, allow_missing=True)
                if orig_tensor is _MISSING:
                    missing_keys.append(name)
                orig_named_tensors[name] = orig_tensor
        except Exception:
            for name, orig_tensor in orig_named_tensors.items():
                self.swap_tensor(name, orig_tensor, allow_missing=True)
            raise
        if missing_keys and not allow_missing:
            for name, orig_tensor in orig_named_tensors.items():
                self.swap_tensor(name, orig_tensor, allow_missing=True)
            raise RuntimeError(f"Missing key(s): {', '.join(map(repr, missing_keys))}.")
        return orig_named_tensors, missing_keys

    def check_keys(self, keys):
        keys = set(keys)
        valid_keys = {name for name, _ in self.module.named_parameters(remove_duplicate=False)}
        valid_keys |= {name for name, _ in self.module.named_buffers(remove_duplicate=False)}
        return sorted(valid_keys - keys), sorted(keys - valid_keys)


def _untie_named_tensors_map(module, parameters_and_buffers):
    """parameters_and_buffers with every name tied to a given one (the same tensor in the
    module) given the same value; several different values for tied names is an error."""
    all_named_tensors = {}
    all_named_tensors.update(module.named_parameters(remove_duplicate=False))
    all_named_tensors.update(module.named_buffers(remove_duplicate=False))
    tensor_to_tied_names_map = {}
    for name, tensor in all_named_tensors.items():
        tensor_to_tied_names_map.setdefault(id(tensor), set()).add(name)
    tied_names_map = {}
    for tied_names in tensor_to_tied_names_map.values():
        if len(tied_names) > 1:
            for tied_name in tied_names:
                tied_names_map[tied_name] = tied_names
    given_names = set(parameters_and_buffers.keys())
    given_names_for_tied_tensors = {name for name in given_names if name in tied_names_map}
    for given_name in given_names_for_tied_tensors:
        tied_names = tied_names_map[given_name]
        if len(tied_names.intersection(given_names_for_tied_tensors)) > 1 and \
                len({id(parameters_and_buffers[n]) for n in tied_names if n in parameters_and_buffers}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied_names)}, "
                             "which are tied. Consider using tie_weights=False")
    untied = parameters_and_buffers.copy()
    for given_name in given_names_for_tied_tensors:
        for tied_name in tied_names_map[given_name]:
            untied[tied_name] = parameters_and_buffers[given_name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    if tie_weights:
        untied = _untie_named_tensors_map(module, parameters_and_buffers)
    else:
        untied = parameters_and_buffers
    accessor = _NamedMemberAccessor(module)
    if strict:
        missing_keys, unexpected_keys = accessor.check_keys(untied)
        error_msgs = []
        if len(unexpected_keys) > 0:
            error_msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected_keys))}.")
        if len(missing_keys) > 0:
            error_msgs.append(f"Missing key(s): {', '.join(map(repr, missing_keys))}.")
        if len(error_msgs) > 0:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(error_msgs)))
    orig_parameters_and_buffers = {}
    try:
        orig_parameters_and_buffers, _ = accessor.swap_tensors_dict(untied, allow_missing=True)
        yield
    finally:
        new_parameters_and_buffers, _ = accessor.swap_tensors_dict(orig_parameters_and_buffers,
                                                                   allow_missing=True)
        # a tensor the forward replaced (a buffer updated by assignment) goes back to the caller's dict
        parameters_and_buffers.update({k: new_parameters_and_buffers[k] for k in parameters_and_buffers
                                       if k in new_parameters_and_buffers})


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True,
                     strict=False):
    from ..parallel import DataParallel
    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """module(*args, **kwargs) computed with the tensors of parameter_and_buffer_dicts (a dict
    of dotted names, or a sequence of such dicts with no name twice) in place of the module's
    own; the module is left unchanged. tie_weights: a value given for one of several names of
    the same tensor serves for all of them. strict: the names must be exactly the module's."""
    if isinstance(parameter_and_buffer_dicts, dict):
        parameters_and_buffers = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        all_keys_counter = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                all_keys_counter[k] = all_keys_counter.get(k, 0) + 1
        repeated_keys = [key for key, n in all_keys_counter.items() if n > 1]
        if len(repeated_keys) > 0:
            raise ValueError(f"{repeated_keys} appeared in multiple dictionaries; behavior of functional "
                             "call is ambiguous")
        parameters_and_buffers = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
                         f"but got {type(parameter_and_buffer_dicts)}")
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                            strict=strict)
