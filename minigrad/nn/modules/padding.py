"""Padding modules: each stores its padding (a tuple, left/right of the last dim first) and calls
nn.functional.pad."""
from .. import functional as F
from .module import Module


def _ntuple(padding, n):
    if isinstance(padding, (tuple, list)):
        return tuple(padding)
    return (padding,) * n


class _PadNd(Module):
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, self._n)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _n = 2


class ConstantPad2d(_ConstantPadNd):
    _n = 4


class ConstantPad3d(_ConstantPadNd):
    _n = 6


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    _n, _mode = 2, "reflect"


class ReflectionPad2d(_PadNd):
    _n, _mode = 4, "reflect"


class ReflectionPad3d(_PadNd):
    _n, _mode = 6, "reflect"


class ReplicationPad1d(_PadNd):
    _n, _mode = 2, "replicate"


class ReplicationPad2d(_PadNd):
    _n, _mode = 4, "replicate"


class ReplicationPad3d(_PadNd):
    _n, _mode = 6, "replicate"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        nd = input.dim()
        lo = self._n // 2 + 1
        if nd not in (lo, lo + 1):
            raise ValueError(f"expected {lo}D or {lo + 1}D input (got {nd}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    _n = 2


class CircularPad2d(_CircularPadNd):
    _n = 4


class CircularPad3d(_CircularPadNd):
    _n = 6
