"""minigrad.nn.utils.prune: pruning by masks, as torch.nn.utils.prune.

Pruning a tensor `name` of a module keeps its full values as the parameter `<name>_orig`, a
0/1 buffer `<name>_mask`, and makes `<name>` a plain attribute equal to their product,
refreshed by a forward pre-hook (the pruning method object itself). Gradients therefore reach
`<name>_orig` only where the mask is 1. Pruning the same tensor again chains the methods in a
PruningContainer: the new method only looks at what is still unpruned (the surviving entries,
or the surviving channels for a structured method) and can only add zeros to the mask.

The magnitude methods keep the same entries as torch's even when magnitudes tie at the
threshold: torch picks them with topk, whose CPU kernel runs libstdc++'s selection algorithms,
so _torch_topk_indices replays those algorithms step by step whenever a tie makes the choice
depend on them."""
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

import numpy as np

from ... import creation

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


# ---- replaying torch's topk selection ------------------------------------------------------------

class _StdSelection:
    """The selection algorithms of libstdc++ (std::partial_sort's heap selection and
    std::nth_element's introselect) on a Python list, with `before` as the strict ordering.
    Which of several equal items end up in front depends on every comparison and move these
    algorithms make, so each is reproduced exactly, move for move."""

    def __init__(self, items, before):
        self.items = items
        self.before = before

    def _fill_hole(self, base, hole, size, item):
        """Place item into a heap of `size` at items[base:] that has a hole at `hole`: the
        hole sinks to a leaf, always towards the child that comes later in the order (the
        right one on ties), then item rises from there to its place below `hole`."""
        a, before = self.items, self.before
        top = hole
        while 2 * hole + 2 < size:  # both children present
            child = 2 * hole + 2
            if before(a[base + child], a[base + child - 1]):
                child -= 1
            a[base + hole] = a[base + child]
            hole = child
        if 2 * hole + 1 == size - 1:  # a lone left child at the bottom
            a[base + hole] = a[base + size - 1]
            hole = size - 1
        while hole > top:
            parent = (hole - 1) // 2
            if not before(a[base + parent], item):
                break
            a[base + hole] = a[base + parent]
            hole = parent
        a[base + hole] = item

    def heap_select(self, base, middle, end):
        """Leave in items[base:middle] the (middle - base) items that come first in the order
        among items[base:end], as a max-heap."""
        a = self.items
        size = middle - base
        for root in range((size - 2) // 2, -1, -1):  # build the heap bottom-up
            self._fill_hole(base, root, size, a[base + root])
        for i in range(middle, end):
            if self.before(a[i], a[base]):  # beats the worst item kept: swap it in
                incoming = a[i]
                a[i] = a[base]
                self._fill_hole(base, 0, size, incoming)

    def _pivot_to_front(self, lo, hi):
        """Swap the median of items lo + 1, the middle one and hi - 1 into position lo."""
        a, before = self.items, self.before
        x, y, z = lo + 1, lo + (hi - lo) // 2, hi - 1
        if before(a[x], a[y]):
            if before(a[y], a[z]):
                median = y
            else:
                median = z if before(a[x], a[z]) else x
        elif before(a[x], a[z]):
            median = x
        else:
            median = z if before(a[y], a[z]) else y
        a[lo], a[median] = a[median], a[lo]

    def _split(self, lo, hi):
        """Hoare partition of items[lo + 1:hi] around the pivot at lo; returns where the
        second part starts."""
        a, before = self.items, self.before
        pivot = a[lo]
        left, right = lo + 1, hi
        while True:
            while before(a[left], pivot):
                left += 1
            right -= 1
            while before(pivot, a[right]):
                right -= 1
            if left >= right:
                return left
            a[left], a[right] = a[right], a[left]
            left += 1

    def _insertion_sort(self, lo, hi):
        a, before = self.items, self.before
        for i in range(lo + 1, hi):
            item = a[i]
            if before(item, a[lo]):  # a new first item: shift the whole run right
                a[lo + 1:i + 1] = a[lo:i]
                a[lo] = item
                continue
            j = i
            while before(item, a[j - 1]):
                a[j] = a[j - 1]
                j -= 1
            a[j] = item

    def nth_element(self, nth):
        """Reorder so that items[nth] is what a sort would put there, with nothing after it
        in front of it and nothing before it behind it (quickselect, falling back to heap
        selection after 2 log2(n) rounds)."""
        lo, hi = 0, len(self.items)
        if nth == hi:
            return
        rounds_left = 2 * ((hi - lo).bit_length() - 1)
        while hi - lo > 3:
            if rounds_left == 0:
                self.heap_select(lo, nth + 1, hi)
                a = self.items
                a[lo], a[nth] = a[nth], a[lo]
                return
            rounds_left -= 1
            self._pivot_to_front(lo, hi)
            cut = self._split(lo, hi)
            if cut <= nth:
                lo = cut
            else:
                hi = cut
        self._insertion_sort(lo, hi)


def _topk_order(largest):
    """torch's topk comparison on (value, index) pairs: NaN counts as larger than any number."""
    if largest:
        return lambda p, q: (p[0] != p[0] and q[0] == q[0]) or p[0] > q[0]
    return lambda p, q: (p[0] == p[0] and q[0] != q[0]) or p[0] < q[0]


def _torch_topk_indices(values, k, largest):
    """The set of indices torch's CPU topk(values, k, largest) returns for a 1-d float array
    (NaN counts as the largest), as a sorted int64 array."""
    n = values.shape[0]
    if k == 0:
        return np.zeros(0, np.int64)
    if not np.isnan(values).any():
        ranked = np.argsort(-values if largest else values, kind="stable")
        if k == n or values[ranked[k - 1]] != values[ranked[k]]:
            return np.sort(ranked[:k])  # no tie straddles the cut: any selection agrees
    # torch sorts k * 64 <= n with partial_sort, otherwise selects with nth_element
    selection = _StdSelection(list(zip(values.tolist(), range(n))), _topk_order(largest))
    if 64 * k <= n:
        selection.heap_select(0, k, n)
    else:
        selection.nth_element(k - 1)
    return np.sort(np.array([index for _, index in selection.items[:k]], np.int64))


def _topk_mask_indices(t, k, largest):
    """Indices (a minigrad int64 tensor on t's device) of the k entries torch's topk picks."""
    host = np.asarray(t.detach().cpu().numpy(), dtype=np.float64).reshape(-1)
    return creation.tensor(_torch_topk_indices(host, k, largest), device=t.device)


# ---- argument checks -----------------------------------------------------------------------------

def _check_amount(amount):
    """amount: a count (int >= 0) or a fraction in [0, 1]."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if isinstance(amount, numbers.Integral):
        out_of_range = amount < 0
    else:
        out_of_range = float(amount) > 1.0 or float(amount) < 0.0
    if out_of_range:
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _how_many(amount, size):
    """How many of `size` items `amount` prunes (a fraction rounds to the nearest count)."""
    return amount if isinstance(amount, numbers.Integral) else round(amount * size)


def _check_count(count, size):
    if isinstance(count, numbers.Integral) and count > size:
        raise ValueError(f"amount={count} should be smaller than the number of parameters to prune={size}")


def _check_structured(t, dim):
    """Channels need at least two dims, and dim must be one of them."""
    if len(t.shape) <= 1:
        raise ValueError("Structured pruning can only be applied to "
                         "multidimensional tensors. Found tensor of shape "
                         f"{t.shape} with {len(t.shape)} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _at_channels(ndim, dim, channels):
    """An index that takes `channels` (a bool mask or indices) along dim and all of every
    other dim."""
    index = [slice(None)] * ndim
    index[dim] = channels
    return tuple(index)


def _channel_mask(t, dim, channels, previous):
    """A mask like t: 1 in the given channels along dim, 0 elsewhere, and also 0 wherever
    the previous mask is."""
    mask = creation.zeros_like(t)
    mask[_at_channels(t.dim(), dim, channels)] = 1
    return mask * previous.to(dtype=mask.dtype)


# ---- the pruning methods -------------------------------------------------------------------------

class BasePruningMethod(ABC):
    """A pruning technique: compute_mask(t, default_mask) says which entries of t to keep; the
    instance is also the forward pre-hook that applies the mask."""
    _tensor_name = None

    def __call__(self, module, inputs):
        # refreshed before every forward: <name>_orig may have been updated since
        name = self._tensor_name
        setattr(module, name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for t, given the mask already applied (default_mask)."""

    def apply_mask(self, module):
        """module's <name>_orig with its <name>_mask applied."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        kept = getattr(module, self._tensor_name + "_orig")
        return getattr(module, self._tensor_name + "_mask").to(dtype=kept.dtype) * kept

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune module.<name> with cls(*args, **kwargs) (ranking entries by importance_scores
        if given, by the current values otherwise), chained after any earlier pruning of it.
        Returns the hook now installed: the new method, or the container holding it."""
        earlier = _detach_pruning_hook(module, name)
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if earlier is not None:
            method = _chain(earlier, method)
        current = getattr(module, name)
        if importance_scores is None:
            importance_scores = current
        elif importance_scores.shape != current.shape:
            raise AssertionError(f"importance_scores should have the same shape as parameter "
                                 f"{name} of {module}, got {importance_scores.shape} vs {current.shape}")
        first_pruning = not isinstance(method, PruningContainer)
        if first_pruning:
            # the full values move to <name>_orig, the one trainable copy from now on
            module.register_parameter(name + "_orig", current)
            del module._parameters[name]
            old_mask = creation.ones_like(current)
        else:
            old_mask = getattr(module, name + "_mask").detach().clone()
        try:
            module.register_buffer(name + "_mask", method.compute_mask(importance_scores, default_mask=old_mask))
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first_pruning:  # leave the module as it was found
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """t with this method's mask applied (t is not a module's tensor here)."""
        if importance_scores is None:
            importance_scores = t
        elif importance_scores.shape != t.shape:
            raise AssertionError(f"importance_scores should have the same shape as tensor t, "
                                 f"got {importance_scores.shape} vs {t.shape}")
        if default_mask is None:
            default_mask = creation.ones_like(t)
        keep = self.compute_mask(importance_scores, default_mask=default_mask)
        return t * keep

    def remove(self, module):
        """Make the pruning permanent: `name` becomes a parameter holding orig * mask (the
        `_orig` Parameter object itself, so optimizers keep tracking it)."""
        name = self._tensor_name
        if name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        pruned = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        survivor = module._parameters.pop(name + "_orig")
        survivor.data = pruned.data
        del module._buffers[name + "_mask"]
        setattr(module, name, survivor)


def _prunes(hook, name):
    """Whether a forward pre-hook is the pruning of the tensor `name`."""
    return isinstance(hook, BasePruningMethod) and hook._tensor_name == name


def _detach_pruning_hook(module, name):
    """Remove from module's forward pre-hooks the pruning hook of `name` and return it (None
    if there is none)."""
    hooks = module._forward_pre_hooks
    keys = [key for key, hook in hooks.items() if _prunes(hook, name)]
    if len(keys) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the "
                             f"same tensor {name} of module {module}. Use a PruningContainer.")
    return hooks.pop(keys[0]) if keys else None


def _chain(earlier, method):
    """A container running earlier's method(s), then method."""
    if not isinstance(earlier, PruningContainer):
        earlier = PruningContainer(earlier)
    earlier.add_pruning_method(method)
    return earlier


class PruningContainer(BasePruningMethod):
    """The pruning methods applied in turn to one tensor; its mask is the last one's, computed
    on what the earlier ones left."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if method is not None:
            if not isinstance(method, BasePruningMethod):
                raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
            if method._tensor_name != self._tensor_name:
                raise ValueError("Can only add pruning methods acting on "
                                 f"the parameter named '{self._tensor_name}' to PruningContainer {self}."
                                 f" Found '{method._tensor_name}'")
        self._pruning_methods = self._pruning_methods + (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    @staticmethod
    def _still_unpruned(method, t, mask):
        """The part of t the newest method may prune: the entries still 1 in mask
        (unstructured), the channels along method.dim not yet all 0 (structured), or all
        of it (global)."""
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            return mask == 1
        if kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of PRUNING_TYPE "
                                     '"structured" need to have the attribute `dim` defined.')
            ndim = t.dim()
            dim = method.dim + ndim if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {ndim}")
            alive = mask.sum(dim=[d for d in range(ndim) if d != dim]) != 0
            return _at_channels(ndim, dim, alive)
        if kind == "global":
            return (slice(None),) * len(t.shape)
        raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")

    def compute_mask(self, t, default_mask):
        newest = self._pruning_methods[-1]
        region = self._still_unpruned(newest, t, default_mask)
        combined = default_mask.to(dtype=t.dtype)
        # the newest method sees only the region, as if it were the whole tensor
        local = newest.compute_mask(t[region], default_mask=default_mask[region])
        combined[region] = local.to(dtype=combined.dtype)
        return combined


class Identity(BasePruningMethod):
    """Prunes nothing (a mask of ones)."""
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class _UnstructuredByRank(BasePruningMethod):
    """Prunes the `amount` entries ranked first by _ranked_first (still unpruned entries only
    when chained)."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _how_many(self.amount, t.nelement())
        _check_count(count, t.nelement())
        mask = default_mask.clone()
        if count:
            flat = mask.view(-1)
            flat[self._ranked_first(t, count)] = 0
        return mask


class RandomUnstructured(_UnstructuredByRank):
    """Prunes `amount` entries (an int, or a fraction) chosen at random."""

    def _ranked_first(self, t, count):
        return creation.rand_like(t).view(-1).topk(k=count).indices

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(_UnstructuredByRank):
    """Prunes the `amount` entries of smallest absolute value."""

    def _ranked_first(self, t, count):
        return _topk_mask_indices(t.abs().reshape(-1), count, False)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes `amount` channels along dim, chosen at random."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        count = _how_many(self.amount, channels)
        _check_count(count, channels)
        if count == 0:
            return default_mask
        # a random score per channel; the `count` lowest are pruned
        scores = creation.rand(channels, device=t.device)
        threshold = scores.kthvalue(k=count).values
        return _channel_mask(t, self.dim, scores > threshold, default_mask)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the `amount` channels along dim of smallest L`n` norm."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        count = _how_many(self.amount, channels)
        _check_count(count, channels)
        # the norm of each channel, over all the other dims
        axis = self.dim % t.dim()
        norms = t.norm(p=self.n, dim=[d for d in range(t.dim()) if d != axis])
        survivors = _topk_mask_indices(norms, channels - count, True)
        if count == 0:
            return default_mask
        return _channel_mask(t, self.dim, survivors, default_mask)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given mask is 0."""
    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


# ---- the functions -------------------------------------------------------------------------------

def identity(module, name):
    """Prune nothing, but set up <name>_orig, <name>_mask (all ones) and the hook."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Zero `amount` random entries of module.<name>."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Zero the `amount` entries of module.<name> of smallest magnitude (or importance)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Zero `amount` random channels of module.<name> along dim."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Zero the `amount` channels of module.<name> along dim of smallest L`n` norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the (module, name) pairs together, as one flattened vector, with an unstructured
    method (so `amount` counts over all of them); each tensor then gets its share of the mask
    through custom_from_mask."""
    from . import parameters_to_vector
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    if importance_scores is None:
        importance_scores = {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    all_scores = parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name)) for module, name in parameters])
    all_masks = parameters_to_vector(
        [getattr(module, name + "_mask", creation.ones_like(getattr(module, name)))
         for module, name in parameters])
    method = pruning_method(**kwargs)
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for '
                        f"the `pruning_method`. Found method {pruning_method} of type {method.PRUNING_TYPE}")
    # a container, so that the method acts only on what earlier prunings left
    joint = PruningContainer()
    joint._tensor_name = method._tensor_name = "temp"
    joint.add_pruning_method(method)
    combined = joint.compute_mask(all_scores, all_masks)
    start = 0
    for module, name in parameters:
        tensor = getattr(module, name)
        stop = start + tensor.numel()
        custom_from_mask(module, name, mask=combined[start:stop].view_as(tensor))
        start = stop


def custom_from_mask(module, name, mask):
    """Zero module.<name> where mask is 0."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of module.<name> permanent and drop its hook, mask and _orig."""
    hooks = module._forward_pre_hooks
    for key in list(hooks):
        hook = hooks[key]
        if _prunes(hook, name):
            hook.remove(module)
            del hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module):
    """Whether the module or any submodule has a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for sub in module.modules() for hook in sub._forward_pre_hooks.values())
