"""Pooling modules (1-d to 3-d max, average, adaptive and power-average pools) and nn.Unfold /
nn.Fold (minigrad/ops/conv.py)."""
from ...ops import conv as _conv
from .module import Module


class _MaxPoolNd(Module):
    """Maximum over each (dilated) window; stride defaults to the window size, so the windows
    tile the input. The sizes are kept as given (int or tuple) and show so in the repr."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return _conv.max_pool(self._nd, input, self.kernel_size, self.stride, self.padding, self.dilation,
                              self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, dilation={dilation}, "
                "ceil_mode={ceil_mode}").format(**self.__dict__)


class MaxPool1d(_MaxPoolNd):
    _nd = 1


class MaxPool2d(_MaxPoolNd):
    _nd = 2


class MaxPool3d(_MaxPoolNd):
    _nd = 3


class AvgPool1d(Module):
    """Mean over each window of a (N, C, L) or (C, L) input; unlike the 2-d and 3-d pools it
    stores its sizes as 1-tuples, as torch's does."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        def one_tuple(value, what):
            return _conv._ntuple(value, 1, "AvgPool1d", what)
        self.kernel_size = one_tuple(kernel_size, "kernel_size")
        self.stride = one_tuple(kernel_size if stride is None else stride, "stride")
        self.padding = one_tuple(padding, "padding")
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return _conv.avg_pool(1, input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    """Mean over each window; divisor_override replaces the window size as the divisor."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.ceil_mode, self.count_include_pad = padding, ceil_mode, count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return _conv.avg_pool(2, input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool3d(AvgPool2d):
    """AvgPool2d's options over three spatial dimensions."""

    def forward(self, input):
        return _conv.avg_pool(3, input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)


class _AdaptiveAvgPoolNd(Module):
    """Mean pooling whose windows are chosen to produce output_size (None entries keep the
    input's size)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return _conv.adaptive_avg_pool(self._nd, input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    _nd = 1


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    _nd = 2


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    _nd = 3


class Unfold(Module):
    """im2col: every sliding block of a batched image as a column (N, C * prod(kernel), L)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return _conv.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return "kernel_size={kernel_size}, dilation={dilation}, padding={padding}, stride={stride}".format(
            **self.__dict__)


class Fold(Module):
    """col2im, Unfold's adjoint: sums the columns back into an image of output_size."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return _conv.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return ("output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, padding={padding}, "
                "stride={stride}").format(**self.__dict__)


class _AdaptiveMaxPoolNd(Module):
    """Max pooling whose windows are chosen to produce output_size."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return _conv.adaptive_max_pool(self._nd, input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    _nd = 1


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    _nd = 2


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    _nd = 3


class _LPPoolNd(Module):
    """Power-average pooling: F.lp_pool{1,2,3}d (torch's composition of an average pool)."""

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input):
        return _conv.lp_pool(self._nd, input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return "norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, ceil_mode={ceil_mode}".format(
            **self.__dict__)


class LPPool1d(_LPPoolNd):
    _nd = 1


class LPPool2d(_LPPoolNd):
    _nd = 2


class LPPool3d(_LPPoolNd):
    _nd = 3


class _MaxUnpoolNd(Module):
    """The partial inverse of a max pool: F.max_unpool{1,2,3}d with the pool's indices."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        dims = self._nd
        self.kernel_size = _conv._nt(kernel_size, dims)
        self.stride = _conv._nt(kernel_size if stride is None else stride, dims)
        self.padding = _conv._nt(padding, dims)

    def forward(self, input, indices, output_size=None):
        unpool = {1: _conv.max_unpool1d, 2: _conv.max_unpool2d, 3: _conv.max_unpool3d}[self._nd]
        return unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _nd = 1


class MaxUnpool2d(_MaxUnpoolNd):
    _nd = 2


class MaxUnpool3d(_MaxUnpoolNd):
    _nd = 3


# ---- fractional max pooling (minigrad/ops/fractional_pool.py) ----------------------------------------

def _nonpositive_kernel(kernel_size):
    """Whether an int or sequence kernel_size has a size below 1 (other types pass through, to
    fail where they are used)."""
    if isinstance(kernel_size, int):
        return kernel_size <= 0
    if isinstance(kernel_size, (tuple, list)):
        return any(not k > 0 for k in kernel_size)
    return False


class _FractionalMaxPoolNd(Module):
    """torch's FractionalMaxPool2d/3d: exactly one of output_size / output_ratio; a given
    `_random_samples` is a buffer and fixes the windows."""

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        dims = self._nd

        def per_dim(value):  # one value for every spatial dimension, or one given per dimension
            return tuple(value) if isinstance(value, (list, tuple)) else (value,) * dims

        if dims == 3 and _nonpositive_kernel(kernel_size):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = per_dim(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = None if output_size is None else per_dim(output_size)
        self.output_ratio = None if output_ratio is None else per_dim(output_ratio)
        # the target is given one way or the other, never both
        targets_given = (output_size is not None) + (output_ratio is not None)
        if targets_given == 0:
            raise ValueError(f"{type(self).__name__} requires specifying either an output size, or a pooling ratio")
        if targets_given == 2:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio[:dims]):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        from ...ops import fractional_pool as _fp
        fn = _fp.fractional_max_pool2d if self._nd == 2 else _fp.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                  _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    _nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _nd = 3
