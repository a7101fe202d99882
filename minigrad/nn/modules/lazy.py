"""Lazy modules, as torch's: LazyModuleMixin and nn.LazyLinear, LazyConv1d/2d/3d,
LazyConvTranspose1d/2d/3d, LazyBatchNorm1d/2d/3d, LazyInstanceNorm1d/2d/3d.

A lazy module holds UninitializedParameters (and UninitializedBuffers) until its first call,
whose forward pre-hook infers the missing size (in_features, in_channels, num_features) from the
input, materializes them, initializes them with the eager class's reset_parameters, removes
itself and turns the module into its cls_to_become (LazyLinear -> Linear) in place. Loading a
state_dict into a lazy module materializes its parameters to the loaded shapes first."""
import itertools

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
    """Mix in before a Module class whose parameters get their shapes from the first input:
    initialize_parameters(*args, **kwargs) materializes them; cls_to_become is the class the
    module then becomes (None: it stays)."""
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # uninitialized tensors go in as they are (they cannot be detached)
        for name, param in self._parameters.items():
            if param is not None:
                if not (is_lazy(param) or keep_vars):
                    param = param.detach()
                destination[prefix + name] = param
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                if not (is_lazy(buf) or keep_vars):
                    buf = buf.detach()
                destination[prefix + name] = buf

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs):
        """load_state_dict pre-hook: an uninitialized parameter or buffer whose entry in the
        state_dict is initialized is materialized to that entry's shape (load_state_dict then
        copies the values)."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                input_param = state_dict[key]
                if is_lazy(param) and not is_lazy(input_param):
                    with no_grad():
                        param.materialize(input_param.shape)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether a parameter or buffer of this module (not its children) is uninitialized."""
        for param in itertools.chain(self._parameters.values(), self._buffers.values()):
            if is_lazy(param):
                return True
        return False

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook: initialize from the first call's arguments, then unhook and
        become cls_to_become."""
        kwargs = kwargs if kwargs else {}
        module.initialize_parameters(*args, **kwargs)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. "
                           "Run a dummy forward pass to correctly initialize the modules")


class LazyLinear(LazyModuleMixin, Linear):
    """nn.Linear with in_features inferred from the first input's last dim."""
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        # bias False: no tensor made only to be replaced
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # materialized by load_state_dict: the input must fit the weight
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class _LazyConvXdMixin(LazyModuleMixin):
    """in_channels inferred from the input's channel dim (dim 1, or 0 unbatched)."""

    def _lazy_parameters(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                if self.transposed:
                    self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
                else:
                    self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()

    def _get_in_channels(self, input):
        num_dims_no_batch = self._nd + 1
        num_dims_batch = num_dims_no_batch + 1
        if input.dim() not in (num_dims_no_batch, num_dims_batch):
            raise RuntimeError(f"Expected {num_dims_no_batch}D (unbatched) or {num_dims_batch}D (batched) input "
                               f"to {self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == num_dims_batch else input.shape[0]


def _lazy_conv(name, base):
    """LazyConv{1,2,3}d(out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
    bias=True, padding_mode='zeros', device=None, dtype=None)."""
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        # in and out channels 0 and no bias: no tensors made only to be replaced
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                                 device=device, dtype=dtype)
        self._lazy_parameters(out_channels, bias, device, dtype)
    doc = f"nn.{base.__name__} with in_channels inferred from the first input."
    return type(name, (_LazyConvXdMixin, base), {"__init__": __init__, "cls_to_become": base, "__doc__": doc,
                                                   "__module__": __name__, "__qualname__": name})


def _lazy_conv_transpose(name, base):
    """LazyConvTranspose{1,2,3}d(out_channels, kernel_size, stride=1, padding=0, output_padding=0,
    groups=1, bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None)."""
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        # the eager class's order: ..., output_padding, groups, bias, dilation, padding_mode
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False,
                                 dilation, padding_mode, device=device, dtype=dtype)
        self._lazy_parameters(out_channels, bias, device, dtype)
    doc = f"nn.{base.__name__} with in_channels inferred from the first input."
    return type(name, (_LazyConvXdMixin, base), {"__init__": __init__, "cls_to_become": base, "__doc__": doc,
                                                   "__module__": __name__, "__qualname__": name})


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d)
LazyConv2d = _lazy_conv("LazyConv2d", Conv2d)
LazyConv3d = _lazy_conv("LazyConv3d", Conv3d)
LazyConvTranspose1d = _lazy_conv_transpose("LazyConvTranspose1d", ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv_transpose("LazyConvTranspose2d", ConvTranspose2d)
LazyConvTranspose3d = _lazy_conv_transpose("LazyConvTranspose3d", ConvTranspose3d)


class _LazyNormBase(LazyModuleMixin, _BatchNorm):
    """num_features inferred from the input's dim 1. affine and track_running_stats default to
    True for the instance norms too (torch's lazy classes share this constructor)."""

    def __init__(self, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None,
                 *, bias=True):
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = creation.tensor(0, dtype=int64, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]  # dim 1 also for an unbatched input, as torch
            with no_grad():
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    if self.bias is not None:
                        self.bias.materialize((self.num_features,))
                if self.track_running_stats:
                    self.running_mean.materialize((self.num_features,))
                    self.running_var.materialize((self.num_features,))
                self.reset_parameters()


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
