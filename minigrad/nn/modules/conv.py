"""nn.Conv1d/2d/3d (im2col and one batched GEMM; padding_mode reflect / replicate / circular pad
with F.pad first) and nn.ConvTranspose1d/2d/3d (a GEMM, then col2im): minigrad/ops/conv.py."""
import math

from ... import creation
from ...ops import conv as _conv
from .. import init
from ..parameter import Parameter
from .module import Module

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}
_PADDING_STRINGS = {"same", "valid"}  # a set, printed in the set's order as torch's message


def _check_groups(in_channels, out_channels, groups):
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups != 0:
        raise ValueError("out_channels must be divisible by groups")


class _ConvNd(Module):
    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        nd, name = self._nd, type(self).__name__
        _check_groups(in_channels, out_channels, groups)
        kernel_size = _conv._ntuple(kernel_size, nd, name, "kernel_size")
        stride = _conv._ntuple(stride, nd, name, "stride")
        dilation = _conv._ntuple(dilation, nd, name, "dilation")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _conv._ntuple(padding, nd, name, "padding")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel_size
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.padding_mode, self.transposed, self.output_padding = padding_mode, False, (0,) * nd
        # F.pad's pads for the non-zeros padding modes (last dim first), as torch's
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * nd
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(nd - 1, -1, -1)):
                    total = d * (k - 1)
                    self._reversed_padding_repeated_twice[2 * i] = total // 2
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - total // 2
        else:
            self._reversed_padding_repeated_twice = tuple(p for p in reversed(padding) for _ in range(2))
        self._parameters_of((out_channels, in_channels // groups) + kernel_size, bias, device, dtype)

    def _parameters_of(self, weight_shape, bias, device, dtype):
        """The weight of weight_shape and a bias of out_channels (or None), initialized."""
        self.weight = Parameter(creation.empty(weight_shape, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(creation.empty(self.out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        if self.padding_mode != "zeros":
            from ...ops.padding import pad
            return _conv.conv(self._nd, pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                              self.weight, self.bias, self.stride, (0,) * self._nd, self.dilation, self.groups)
        return _conv.conv(self._nd, input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                          self.groups)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * self._nd:
            s += ", padding={padding}"
        if self.dilation != (1,) * self._nd:
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * self._nd:
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


class Conv1d(_ConvNd):
    """Applies a 1-d convolution over (N, C_in, L) (or unbatched (C_in, L)) inputs."""
    _nd = 1


class Conv2d(_ConvNd):
    """Applies a 2-d convolution over (N, C_in, H, W) (or unbatched (C_in, H, W)) inputs."""
    _nd = 2


class Conv3d(_ConvNd):
    """Applies a 3-d convolution over (N, C_in, D, H, W) (or unbatched (C_in, D, H, W)) inputs."""
    _nd = 3


class _ConvTransposeNd(_ConvNd):
    """The weight is (in_channels, out_channels / groups, *kernel_size), the convolution's adjoint."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        nd, name = self._nd, type(self).__name__
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        Module.__init__(self)
        _check_groups(in_channels, out_channels, groups)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _conv._ntuple(kernel_size, nd, name, "kernel_size")
        self.stride = _conv._ntuple(stride, nd, name, "stride")
        self.padding = _conv._ntuple(padding, nd, name, "padding")
        self.dilation = _conv._ntuple(dilation, nd, name, "dilation")
        self.output_padding = _conv._ntuple(output_padding, nd, name, "output_padding")
        self.groups, self.padding_mode, self.transposed = groups, padding_mode, True
        self._reversed_padding_repeated_twice = tuple(p for p in reversed(self.padding) for _ in range(2))
        self._parameters_of((in_channels, out_channels // groups) + self.kernel_size, bias, device, dtype)

    def _output_padding(self, input, output_size):
        """torch's output_padding for a requested output_size (its spatial sizes, or all dims)."""
        nd = self._nd
        if output_size is None:
            return self.output_padding
        non_spatial = 2 if input.dim() == nd + 2 else 1
        if len(output_size) == non_spatial + nd:
            output_size = output_size[non_spatial:]
        if len(output_size) != nd:
            raise ValueError(f"ConvTranspose{nd}D: for {input.dim()}D input, output_size must have {nd} or "
                             f"{non_spatial + nd} elements (got {len(output_size)})")
        mins = [(input.size(d + non_spatial) - 1) * self.stride[d] - 2 * self.padding[d]
                + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(nd)]
        maxs = [m + s - 1 for m, s in zip(mins, self.stride)]
        for size, lo, hi in zip(output_size, mins, maxs):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {mins} to "
                                 f"{maxs} (for an input of {input.size()[2:]})")
        return tuple(size - lo for size, lo in zip(output_size, mins))

    def forward(self, input, output_size=None):
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for {type(self).__name__}")
        output_padding = self._output_padding(input, output_size)
        return _conv.conv_transpose(self._nd, input, self.weight, self.bias, self.stride, self.padding,
                                    output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Applies a 1-d transposed convolution over (N, C_in, L) (or unbatched (C_in, L)) inputs."""
    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Applies a 2-d transposed convolution over (N, C_in, H, W) (or unbatched (C_in, H, W)) inputs."""
    _nd = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Applies a 3-d transposed convolution over (N, C_in, D, H, W) (or unbatched (C_in, D, H, W)) inputs."""
    _nd = 3
