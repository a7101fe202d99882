"""Lazy modules: LazyModuleMixin and nn.LazyLinear, LazyConv1d/2d/3d, LazyConvTranspose1d/2d/3d,
LazyBatchNorm1d/2d/3d, LazyInstanceNorm1d/2d/3d.

A lazy module is built as its eager class over a size of 0 (so its constructor allocates nothing
worth initializing and draws nothing from the random stream), with UninitializedParameter /
UninitializedBuffer placeholders in the slots whose shape depends on the input. Two hooks keep
it lazy:

- a forward pre-hook reads the missing size (in_features, in_channels, num_features) off the
  first input, gives every placeholder its shape, runs the eager class's reset_parameters, then
  unhooks itself and switches the instance's class to cls_to_become (LazyLinear -> Linear);
- a load_state_dict pre-hook gives a placeholder the shape of the tensor being loaded into it,
  so a lazy module can be restored from a checkpoint without a forward call.
"""
from ...autograd.grad_mode import no_grad
from ... import creation
from ...dtypes import int64
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .normalization import _BatchNorm, _InstanceNorm, BatchNorm1d, BatchNorm2d, BatchNorm3d, \
    InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Put before a Module class whose parameter shapes come from the first input. Subclasses
    implement initialize_parameters(*args, **kwargs), which receives the first call's arguments;
    cls_to_become is the class the instance turns into afterwards (None: it keeps its class)."""
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # the attribute names are public knowledge: code checks hasattr(m, "_initialize_hook")
        # to tell whether a module is still waiting for its first call
        self._load_hook = self._register_load_state_dict_pre_hook(self._shape_from_checkpoint)
        self._initialize_hook = self.register_forward_pre_hook(self._complete_on_first_call, with_kwargs=True)

    def _own_slots(self):
        """(name, tensor or None) for this module's parameters, then its buffers."""
        return [*self._parameters.items(), *self._buffers.items()]

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # as Module's, except that a placeholder has no data to detach: it is saved as it is,
        # which is what lets a lazy model's state_dict be loaded into another lazy model
        transient = self._non_persistent_buffers_set
        saved = [(n, p) for n, p in self._parameters.items() if p is not None]
        saved += [(n, b) for n, b in self._buffers.items() if b is not None and n not in transient]
        for name, tensor in saved:
            destination[prefix + name] = tensor if keep_vars or is_lazy(tensor) else tensor.detach()

    def _shape_from_checkpoint(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                               error_msgs):
        """load_state_dict pre-hook: a placeholder about to receive a real tensor takes that
        tensor's shape first; load_state_dict's own copy then fills in the values."""
        for name, slot in self._own_slots():
            key = prefix + name
            if not is_lazy(slot) or key not in state_dict:
                continue
            incoming = state_dict[key]
            if not is_lazy(incoming):
                with no_grad():
                    slot.materialize(incoming.shape)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether one of this module's own parameters or buffers (children not included) is
        still a placeholder."""
        return any(is_lazy(t) for _, t in self._own_slots())

    def _materialize_slots(self, shapes):
        """Give each named slot that holds a tensor the shape in `shapes`, then draw the initial
        values with the eager class's reset_parameters (the only place randomness is used)."""
        for name, shape in shapes.items():
            slot = getattr(self, name)
            if slot is not None:
                slot.materialize(shape)
        self.reset_parameters()

    def _complete_on_first_call(self, module, args, kwargs=None):
        """The forward pre-hook (module is self): size everything from the call's arguments,
        check nothing was left out, drop both hooks and become the eager class."""
        self.initialize_parameters(*args, **(kwargs or {}))
        if self.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        for hook_attr in ("_initialize_hook", "_load_hook"):
            getattr(self, hook_attr).remove()
            delattr(self, hook_attr)
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. "
                           "Run a dummy forward pass to correctly initialize the modules")


class LazyLinear(LazyModuleMixin, Linear):
    """nn.Linear whose in_features is the first input's last dimension."""
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        # a bias-free 0x0 Linear first: nothing is allocated or drawn just to be thrown away
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        # Linear.__init__ calls this on the empty layer; only a sized layer gets initial values
        if self.in_features != 0 and not self.has_uninitialized_params():
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                width = self.in_features = input.shape[-1]
                self._materialize_slots({"weight": (self.out_features, width), "bias": (self.out_features,)})
        if self.in_features == 0:
            # sized by load_state_dict rather than by an input: the input has to fit the weight
            width, loaded = input.shape[-1], self.weight.shape[-1]
            if width != loaded:
                raise AssertionError(f"The in_features inferred from input: {width} is not equal to "
                                     f"in_features from self.weight: {loaded}")
            self.in_features = width


class _LazyConvXdMixin(LazyModuleMixin):
    """Shared by the lazy (transposed) convolutions: in_channels is the input's channel
    dimension, dim 1 of a batched input and dim 0 of an unbatched one."""

    def _install_placeholders(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if self.in_channels != 0 and not self.has_uninitialized_params():
            super().reset_parameters()

    def _channels_of(self, input):
        spatial_and_channel = self._nd + 1
        ndim = input.dim()
        if ndim == spatial_and_channel + 1:
            return input.shape[1]
        if ndim == spatial_and_channel:
            return input.shape[0]
        raise RuntimeError(f"Expected {spatial_and_channel}D (unbatched) or {spatial_and_channel + 1}D (batched) "
                           f"input to {type(self).__name__}, but got input of size: {input.shape}")

    def initialize_parameters(self, input, *args, **kwargs):
        if not self.has_uninitialized_params():
            return
        self.in_channels = channels = self._channels_of(input)
        if channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        # a transposed convolution stores its weight with the input channels first
        if self.transposed:
            outer, per_group = channels, self.out_channels // self.groups
        else:
            outer, per_group = self.out_channels, channels // self.groups
        with no_grad():
            self._materialize_slots({"weight": (outer, per_group, *self.kernel_size),
                                     "bias": (self.out_channels,)})


def _lazy_conv_class(name, eager, init):
    doc = f"nn.{eager.__name__} with in_channels inferred from the first input."
    return type(name, (_LazyConvXdMixin, eager), {"__init__": init, "cls_to_become": eager, "__doc__": doc,
                                                    "__module__": __name__, "__qualname__": name})


def _lazy_conv(name, eager):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        # the eager constructor over 0 channels and without bias allocates nothing to replace
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                                 device=device, dtype=dtype)
        self._install_placeholders(out_channels, bias, device, dtype)
    return _lazy_conv_class(name, eager, __init__)


def _lazy_conv_transpose(name, eager):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        # positional order of the transposed constructors: ..., output_padding, groups, bias, dilation
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False,
                                 dilation, padding_mode, device=device, dtype=dtype)
        self._install_placeholders(out_channels, bias, device, dtype)
    return _lazy_conv_class(name, eager, __init__)


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d)
LazyConv2d = _lazy_conv("LazyConv2d", Conv2d)
LazyConv3d = _lazy_conv("LazyConv3d", Conv3d)
LazyConvTranspose1d = _lazy_conv_transpose("LazyConvTranspose1d", ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv_transpose("LazyConvTranspose2d", ConvTranspose2d)
LazyConvTranspose3d = _lazy_conv_transpose("LazyConvTranspose3d", ConvTranspose3d)


class _LazyNormBase(LazyModuleMixin, _BatchNorm):
    """Shared by the lazy batch and instance norms: num_features is the input's dim 1. affine
    and track_running_stats default to True for the instance norms as well, since the lazy
    classes all take this one constructor."""

    def __init__(self, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None,
                 *, bias=True):
        # the eager norm over 0 features with nothing learnable or tracked registers None slots,
        # which the placeholders below then fill in registration order
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = creation.tensor(0, dtype=int64, device=device)

    def reset_parameters(self):
        if self.num_features != 0 and not self.has_uninitialized_params():
            super().reset_parameters()

    def initialize_parameters(self, input):
        if not self.has_uninitialized_params():
            return
        # dim 1 even for an unbatched input, as torch's lazy norms do
        self.num_features = features = input.shape[1]
        with no_grad():
            self._materialize_slots({slot: (features,) for slot in ("weight", "bias", "running_mean", "running_var")})


def _lazy_norm(name, base, eager):
    return type(name, (_LazyNormBase, base), {"cls_to_become": eager, "__module__": __name__,
                                              "__qualname__": name, "_check_input_dim": eager._check_input_dim,
                                              "__doc__": f"nn.{eager.__name__} with num_features inferred from "
                                                         "the first input's dim 1."})


LazyBatchNorm1d = _lazy_norm("LazyBatchNorm1d", _BatchNorm, BatchNorm1d)
LazyBatchNorm2d = _lazy_norm("LazyBatchNorm2d", _BatchNorm, BatchNorm2d)
LazyBatchNorm3d = _lazy_norm("LazyBatchNorm3d", _BatchNorm, BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm("LazyInstanceNorm1d", _InstanceNorm, InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm("LazyInstanceNorm2d", _InstanceNorm, InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm("LazyInstanceNorm3d", _InstanceNorm, InstanceNorm3d)
for _cls in (LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d):
    _cls._no_batch_dim = _cls.cls_to_become._no_batch_dim
