"""Pooling modules (1-d to 3-d max, average, adaptive and power-average pools) and nn.Unfold /
nn.Fold (minigrad/ops/conv.py)."""
from ...ops import conv as _conv
from .module import Module


class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
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
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _conv._ntuple(kernel_size, 1, "AvgPool1d", "kernel_size")
        self.stride = _conv._ntuple(stride if stride is not None else kernel_size, 1, "AvgPool1d", "stride")
        self.padding = _conv._ntuple(padding, 1, "AvgPool1d", "padding")
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return _conv.avg_pool(1, input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode, self.count_include_pad = padding, ceil_mode, count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return _conv.avg_pool(2, input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool3d(AvgPool2d):
    def forward(self, input):
        return _conv.avg_pool(3, input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)


class _AdaptiveAvgPoolNd(Module):
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
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return _conv.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return "kernel_size={kernel_size}, dilation={dilation}, padding={padding}, stride={stride}".format(
            **self.__dict__)


class Fold(Module):
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
        nt = _conv._nt
        self.kernel_size = nt(kernel_size, self._nd)
        self.stride = nt(stride if stride is not None else kernel_size, self._nd)
        self.padding = nt(padding, self._nd)

    def forward(self, input, indices, output_size=None):
        fn = (_conv.max_unpool1d, _conv.max_unpool2d, _conv.max_unpool3d)[self._nd - 1]
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _nd = 1


class MaxUnpool2d(_MaxUnpoolNd):
    _nd = 2


class MaxUnpool3d(_MaxUnpoolNd):
    _nd = 3


# ---- fractional max pooling (minigrad/ops/fractional_pool.py) ----------------------------------------

class _FractionalMaxPoolNd(Module):
    """torch's FractionalMaxPool2d/3d: exactly one of output_size / output_ratio; a given
    `_random_samples` is a buffer and fixes the windows."""

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        nd, name = self._nd, type(self).__name__

        def tup(v):
            return tuple(v) if isinstance(v, (list, tuple)) else (v,) * nd

        if nd == 3 and ((isinstance(kernel_size, int) and kernel_size <= 0) or
                        (isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size))):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = tup(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = tup(output_size) if output_size is not None else None
        self.output_ratio = tup(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio[:nd]):
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
