"""nn.LayerNorm, nn.BatchNorm1d/2d/3d, nn.GroupNorm, nn.InstanceNorm1d/2d/3d and nn.LocalResponseNorm,
with torch's arguments, init, buffers, state_dict keys, repr and errors."""
import warnings

from ... import creation
from ...dtypes import int64
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module


def _affine_parameters(module, enabled, shape, bias, dtype, device):
    """The affine weight (and bias, unless bias=False) of a normalization layer, or both
    registered as None; their values come from _reset_affine."""
    if enabled:
        module.weight = Parameter(creation.empty(shape, dtype=dtype, device=device))
        if bias:
            module.bias = Parameter(creation.empty(shape, dtype=dtype, device=device))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module):
    """Start the affine transform as the identity: weight ones, bias zeros (where present)."""
    scale, shift = module.weight, module.bias
    if scale is None:
        return
    init.ones_(scale)
    if shift is not None:
        init.zeros_(shift)


def _running_stats(module, track, num_features, dtype, device):
    """Register the running statistics as buffers (they follow .to() and go into the
    state_dict): mean zeros, variance ones, a 0-d int64 batch counter; all None when the layer
    does not track them, so that the state_dict keys still say what the layer is."""
    if track:
        module.register_buffer("running_mean", creation.zeros(num_features, dtype=dtype, device=device))
        module.register_buffer("running_var", creation.ones(num_features, dtype=dtype, device=device))
        module.register_buffer("num_batches_tracked", creation.tensor(0, dtype=int64, device=device))
        return
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        module.register_buffer(name, None)


def _shape_tuple(shape):
    """normalized_shape given as one int or as a sequence of ints, as a tuple."""
    return (shape,) if isinstance(shape, int) else tuple(shape)


class LayerNorm(Module):
    """Normalizes over the trailing normalized_shape dims: (x - mean) / sqrt(var + eps) * weight
    + bias, the biased variance; weight starts at ones and bias at zeros."""

    def __init__(self, normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, elementwise_affine, self.normalized_shape, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class _BatchNorm(Module):
    """Per-channel normalization over dim 1 with learnable affine parameters and running
    statistics (buffers running_mean, running_var, num_batches_tracked), as torch's _BatchNorm."""
    _version = 2

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _affine_parameters(self, affine, num_features, bias, dtype, device)
        _running_stats(self, track_running_stats, num_features, dtype, device)
        self.reset_parameters()

    def reset_running_stats(self):
        """Forget the batches seen: mean 0, variance 1, counter 0 (in place, so that an
        optimizer or another holder of the buffers sees the reset)."""
        if not self.track_running_stats:
            return
        self.running_mean.zero_()
        self.running_var.fill_(1)
        self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _reset_affine(self)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        saved_version = local_metadata.get("version")
        old_format = saved_version is None or saved_version < 2
        counter_key = prefix + "num_batches_tracked"
        if old_format and self.track_running_stats and counter_key not in state_dict:
            # checkpoints from before version 2 have no batch counter: keep (or start) ours
            # rather than report it missing
            counter = self.num_batches_tracked
            state_dict[counter_key] = counter if counter is not None else creation.tensor(0, dtype=int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def _averaging_factor(self):
        """The weight this batch gets in the running averages. A training step with tracked
        statistics counts the batch first; with momentum None the average is cumulative, each
        batch weighted 1 / (batches seen)."""
        counting = self.training and self.track_running_stats and self.num_batches_tracked is not None
        if counting:
            self.num_batches_tracked.add_(1)
        if self.momentum is not None:
            return self.momentum
        return 1.0 / float(self.num_batches_tracked) if counting else 0.0

    def forward(self, input):
        self._check_input_dim(input)
        factor = self._averaging_factor()
        if self.training:
            # normalize by the batch's statistics; fold them into the running ones if tracked
            use_batch_stats = True
            tracked = self.track_running_stats
            mean, var = (self.running_mean, self.running_var) if tracked else (None, None)
        else:
            # evaluation uses the running statistics, or the batch's when there are none
            mean, var = self.running_mean, self.running_var
            use_batch_stats = mean is None and var is None
        return F.batch_norm(input, mean, var, self.weight, self.bias, use_batch_stats, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


def _rank_check(*ranks):
    """A _check_input_dim method accepting inputs of the given numbers of dimensions."""
    expected = " or ".join(f"{r}D" for r in ranks)

    def _check_input_dim(self, input):
        if input.dim() not in ranks:
            raise ValueError(f"expected {expected} input (got {input.dim()}D input)")
    return _check_input_dim


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) inputs."""
    _check_input_dim = _rank_check(2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) inputs."""
    _check_input_dim = _rank_check(4)


class BatchNorm3d(_BatchNorm):
    """Batch normalization of (N, C, D, H, W) inputs."""
    _check_input_dim = _rank_check(5)


class GroupNorm(Module):
    """Normalizes each sample's groups of num_channels / num_groups channels (with all their
    positions); per-channel affine weight (ones) and bias (zeros)."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, affine, num_channels, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class _InstanceNorm(_BatchNorm):
    """Per-sample, per-channel normalization over the spatial dims (F.instance_norm); affine and
    running statistics off by default. Shares _BatchNorm's parameters, buffers and repr (torch's
    common _NormBase)."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False,
                 device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input):
        self._check_input_dim(input)
        # the channel dimension counted from the end works for batched and unbatched input alike
        channel_dim = input.dim() - self._no_batch_dim
        channels = input.size(channel_dim)
        if channels != self.num_features:
            # num_features only matters when it sizes the affine parameters
            if self.affine:
                raise ValueError(f"expected input's size at dim={channel_dim} to match num_features "
                                 f"({self.num_features}), but got: {channels}.")
            warnings.warn(f"input's size at dim={channel_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        unbatched = channel_dim == 0
        batch = input.unsqueeze(0) if unbatched else input
        use_instance_stats = self.training or not self.track_running_stats
        factor = 0.0 if self.momentum is None else self.momentum
        out = F.instance_norm(batch, self.running_mean, self.running_var, self.weight, self.bias,
                              use_instance_stats, factor, self.eps)
        return out.squeeze(0) if unbatched else out

    def _check_input_dim(self, input):
        spatial_and_channel = self._no_batch_dim
        if not spatial_and_channel <= input.dim() <= spatial_and_channel + 1:
            raise ValueError(f"expected {spatial_and_channel}D or {spatial_and_channel + 1}D input "
                             f"(got {input.dim()}D input)")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) or (C, L) inputs."""
    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) or (C, H, W) inputs."""
    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W) or (C, D, H, W) inputs."""
    _no_batch_dim = 4


class LocalResponseNorm(Module):
    """F.local_response_norm over channel windows of `size`."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class RMSNorm(Module):
    """x / sqrt(mean(x^2 over the trailing normalized_shape dims) + eps) * weight; eps None is the
    input dtype's machine epsilon; weight starts at ones."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        # a scale only: RMS normalization does not center, so it has no bias
        scale = Parameter(creation.empty(self.normalized_shape, dtype=dtype, device=device)) \
            if elementwise_affine else None
        self.register_parameter("weight", scale)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class SyncBatchNorm(_BatchNorm):
    """Batch normalization of (N, C, +) inputs whose statistics torch averages over the processes
    of a group while training. minigrad runs in one process with no process group, which is
    where torch too uses the local batch's statistics: the layer then computes what the
    BatchNorm of the same rank would. `process_group` is kept and otherwise unused."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """`module` with every BatchNorm*d in it (itself included) replaced by a SyncBatchNorm that
        holds the same parameters and running statistics; other modules are kept and recursed into."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                      process_group, bias=module.bias is not None)
            if module.affine:  # the very Parameters, so that an optimizer built on them still updates them
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
