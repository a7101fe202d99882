"""minigrad.nn.utils.parametrize: a parameter or buffer computed from other tensors, as
torch.nn.utils.parametrize.

register_parametrization(module, "weight", P) keeps the tensor that is trained (the
"original") in `module.parametrizations.weight.original` and makes `module.weight` a property
whose value is P(original), recomputed on every read (once per `cached()` block). Python
properties live on classes, so the module's class is swapped for a subclass of its own,
`Parametrized<Class>`, holding them; removing the last parametrization swaps it back.

Several parametrizations registered on one name form a chain, P2(P1(original)), kept in a
ParametrizationList. Writing `module.weight = value` runs the chain's right_inverse methods
backwards to find the original that produces value. A right_inverse may also split the tensor
into several originals (`original0`, `original1`, ...) that the first parametrization takes
as separate arguments."""
import collections.abc
import copyreg
from contextlib import contextmanager
from copy import deepcopy

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

# how many cached() blocks are open, and what they have computed: (id(module), name) -> tensor
_caching_depth = 0
_cached_values = {}


@contextmanager
def cached():
    """Within the block, each parametrized tensor is computed once, on first access, and reused
    (blocks nest; the values are dropped when the outermost one ends)."""
    global _caching_depth
    _caching_depth += 1
    try:
        yield
    finally:
        _caching_depth -= 1
        if _caching_depth == 0:
            _cached_values.clear()


def _register_tensor(module, name, tensor):
    """Register tensor under name as what it is: a Parameter, or else a buffer."""
    if isinstance(tensor, Parameter):
        module.register_parameter(name, tensor)
    else:
        module.register_buffer(name, tensor)


def _adopt(dest, src):
    """dest takes src's values, shape and device but stays the same object (torch's
    dest.set_(src)), so an optimizer holding dest keeps training the right tensor."""
    dest.data = src


def _type_name(obj):
    return type(obj).__name__


class ParametrizationList(ModuleList):
    """The modules parametrizing one tensor, holding the original tensor as `original` (or
    `original0`, `original1`, ... when the first right_inverse returns a sequence)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape_before, dtype_before = original.shape, original.dtype
        # what to store: the tensor as seen through the inverses of the chain, where they exist
        with no_grad():
            stored = original
            for parametrization in reversed(self):
                if not hasattr(parametrization, "right_inverse"):
                    continue
                try:
                    stored = parametrization.right_inverse(stored)
                except NotImplementedError:
                    pass
        self.is_tensor = isinstance(stored, Tensor)
        if not self.is_tensor and not isinstance(stored, collections.abc.Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {_type_name(stored)}")
        self.ntensors = 1 if self.is_tensor else len(stored)
        if self.is_tensor:
            self._store_single(original, stored)
        else:
            self._store_parts(original, stored)
        if not unsafe:
            self._check_output_matches(shape_before, dtype_before)

    def _store_single(self, original, stored):
        """`original` keeps its identity (an optimizer may already hold it) and takes the
        inverted value, which must not change its dtype or device."""
        if stored.dtype != original.dtype:
            raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                             f"original.dtype: {original.dtype}\n"
                             f"right_inverse(original).dtype: {stored.dtype}")
        if stored.device != original.device:
            raise ValueError("When `right_inverse` outputs one tensor, it may not change the device.\n"
                             f"original.device: {original.device}\n"
                             f"right_inverse(original).device: {stored.device}")
        with no_grad():
            _adopt(original, stored)
        _register_tensor(self, "original", original)

    def _store_parts(self, original, parts):
        """Each part becomes original<i>: a Parameter if the tensor was one, requiring grad
        as it did."""
        wants_grad = original.requires_grad
        as_parameter = isinstance(original, Parameter)
        for i, part in enumerate(parts):
            if not isinstance(part, Tensor):
                raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                                 "(list, tuple...). "
                                 f"Got element {i} of the sequence with type {_type_name(part)}.")
            if as_parameter:
                part = Parameter(part, wants_grad)
            part.requires_grad_(wants_grad)
            _register_tensor(self, f"original{i}", part)

    def _check_output_matches(self, shape_before, dtype_before):
        """The chain must give back a tensor of the parametrized tensor's dtype and shape."""
        result = self()
        if not isinstance(result, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got {_type_name(result)}.")
        if result.dtype != dtype_before:
            raise ValueError("Registering a parametrization may not change the dtype of the tensor, "
                             "unless `unsafe` flag is enabled.\n"
                             f"unparametrized dtype: {dtype_before}\n"
                             f"parametrized dtype: {result.dtype}")
        if result.shape != shape_before:
            raise ValueError("Registering a parametrization may not change the shape of the tensor, "
                             "unless `unsafe` flag is enabled.\n"
                             f"unparametrized shape: {shape_before}\n"
                             f"parametrized shape: {result.shape}")

    def _originals(self):
        if self.is_tensor:
            return [self.original]
        return [getattr(self, f"original{i}") for i in range(self.ntensors)]

    def right_inverse(self, value):
        """Run the right_inverses in reverse registration order and store the result in
        `original` (or `original0`, `original1`, ...), in place."""
        with no_grad():
            for parametrization in reversed(self):
                if not hasattr(parametrization, "right_inverse"):
                    raise RuntimeError(f"parametrization {_type_name(parametrization)} does not implement "
                                       "right_inverse.")
                value = parametrization.right_inverse(value)
            if self.is_tensor:
                self._assign_single(value)
            else:
                self._assign_parts(value)

    def _assign_single(self, value):
        if not isinstance(value, Tensor):
            raise ValueError(f"`right_inverse` should return a tensor. Got {_type_name(value)}")
        expected = self.original.dtype
        if value.dtype != expected:
            raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                             f"while `original` has dtype {expected}")
        _adopt(self.original, value)

    def _assign_parts(self, parts):
        if not isinstance(parts, collections.abc.Sequence):
            raise ValueError("'right_inverse' must return a sequence of tensors. "
                             f"Got {_type_name(parts)}.")
        if len(parts) != self.ntensors:
            raise ValueError("'right_inverse' must return a sequence of tensors of length "
                             f"{self.ntensors}. Got a sequence of length {len(parts)}.")
        for i, (part, target) in enumerate(zip(parts, self._originals())):
            if not isinstance(part, Tensor):
                raise ValueError("'right_inverse' must return a sequence of tensors "
                                 f"or reference-type opaques. Got element {i} of type "
                                 f"{_type_name(part)}.")
            if part.dtype != target.dtype:
                raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {part.dtype} "
                                 f"while `original{i}` has dtype {target.dtype}")
            _adopt(target, part)

    def forward(self):
        # the first parametrization takes every original; the rest take one tensor each
        value = self[0](*self._originals())
        for later in list(self)[1:]:
            value = later(value)
        return value


def _deepcopy_parametrized(self, memo):
    """deepcopy for a Parametrized<Class> whose class has none of its own: pickling is refused
    (__getstate__ raises), so the instance dict (and any slots) are copied directly."""
    if id(self) in memo:
        return memo[id(self)]
    clone = self.__new__(type(self))
    memo[id(self)] = clone
    clone.__dict__ = deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(type(self)):
        if hasattr(self, slot):
            setattr(clone, slot, deepcopy(getattr(self, slot), memo))
    return clone


def _refuse_pickling(self):
    raise RuntimeError("Serialization of parametrized modules is only "
                       "supported through state_dict(). See:\n"
                       "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                       "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _give_own_class(module):
    """Swap the module's class for a fresh subclass `Parametrized<Name>` that can carry the
    parametrized properties without touching the original class."""
    base = type(module)
    members = {"__getstate__": _refuse_pickling}
    if not hasattr(base, "__deepcopy__"):
        members["__deepcopy__"] = _deepcopy_parametrized
    module.__class__ = type(f"Parametrized{base.__name__}", (base,), members)


def _add_property(module, tensor_name):
    """A property `tensor_name` on the module's own class: reading evaluates the chain (or
    reuses the value of the open cached() block), writing goes through its right_inverse."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def read(self):
        chain = self.parametrizations[tensor_name]
        if not _caching_depth:
            return chain()
        key = (id(self), tensor_name)
        if key not in _cached_values:
            _cached_values[key] = chain()
        return _cached_values[key]

    def write(self, value):
        chain = self.parametrizations[tensor_name]
        chain.right_inverse(value)

    setattr(type(module), tensor_name, property(read, write))


def _check_appended(module, tensor_name, parametrization):
    """Checks before chaining parametrization after the existing ones on tensor_name: it must
    keep the current value's dtype and shape, and so must its right_inverse if it has one."""
    current = getattr(module, tensor_name)
    result = parametrization(current)
    if not isinstance(result, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {_type_name(result)}.")
    if result.dtype != current.dtype:
        raise ValueError("Registering a parametrization may not change the dtype of the tensor, "
                         "unless the `unsafe` flag is enabled.\n"
                         f"module.{tensor_name}.dtype: {current.dtype}\n"
                         f"parametrization(module.{tensor_name}).dtype: {result.dtype}")
    if result.shape != current.shape:
        raise ValueError("Registering a parametrization may not change the shape of the tensor, "
                         "unless the `unsafe` flag is enabled.\n"
                         f"module.{tensor_name}.shape: {current.shape}\n"
                         f"parametrization(module.{tensor_name}).shape: {result.shape}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        back = parametrization.right_inverse(result)
    except NotImplementedError:
        return
    if not isinstance(back, Tensor):
        raise ValueError("parametrization.right_inverse must return a tensor. "
                         f"Got: {_type_name(back)}")
    if back.dtype != current.dtype:
        raise ValueError("The tensor returned by parametrization.right_inverse must have "
                         f"the same dtype as module.{tensor_name}, unless the `unsafe` flag "
                         "is enabled.\n"
                         f"module.{tensor_name}.dtype: {current.dtype}\n"
                         f"returned dtype: {back.dtype}")
    if back.shape != current.shape:
        raise ValueError("The tensor returned by parametrization.right_inverse must have "
                         f"the same shape as module.{tensor_name}, unless the `unsafe` flag "
                         "is enabled.\n"
                         f"module.{tensor_name}.shape: {current.shape}\n"
                         f"returned shape: {back.shape}")


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make `module.<tensor_name>` read as parametrization(original); a second registration on
    the same name chains after the first. Returns the module."""
    parametrization.train(mode=module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_appended(module, tensor_name, parametrization)
        chain = module.parametrizations[tensor_name]
        chain.append(parametrization)
        chain.unsafe = chain.unsafe or unsafe
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    # the list is built (and checked) before the module is changed at all
    chain = ParametrizationList([parametrization], getattr(module, tensor_name), unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        _give_own_class(module)
        module.parametrizations = ModuleDict()
    _add_property(module, tensor_name)
    module.parametrizations[tensor_name] = chain
    return module


def is_parametrized(module, tensor_name=None):
    """Whether the module has any parametrization (or one on tensor_name)."""
    chains = getattr(module, "parametrizations", None)
    if not isinstance(chains, ModuleDict):
        return False
    return len(chains) > 0 if tensor_name is None else tensor_name in chains


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo register_parametrization on tensor_name: the tensor becomes a plain parameter (or
    buffer) again, holding the parametrized value (leave_parametrized) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        # the original object itself comes back, so optimizers holding it need no update
        restored = chain.original
        if leave_parametrized:
            with no_grad():
                _adopt(restored, getattr(module, tensor_name))
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        restored = Parameter(value) if value.requires_grad else value
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register_tensor(module, tensor_name, restored)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]  # the class it had before
    return module


def type_before_parametrizations(module):
    """The module's class before parametrizations swapped it."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Register from_module's parametrizations (of tensor_name, or all) on to_module too, with
    the same original tensors. Returns to_module."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        source = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        # share the trained tensors themselves, not copies
        if hasattr(source, "original"):
            target.original = source.original
            continue
        i = 0
        while hasattr(source, f"original{i}"):
            setattr(target, f"original{i}", getattr(source, f"original{i}"))
            i += 1
    return to_module
