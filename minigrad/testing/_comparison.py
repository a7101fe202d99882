"""torch.testing.assert_close: compare tensors, numbers, booleans and None, possibly nested in
sequences and mappings, with torch's default tolerances and its failure messages.

The inputs are first walked into leaf pairs (a length or key mismatch, or a pair no comparison
handles, fails at once); then each pair is compared in order and the first failure raised."""
import cmath
import collections.abc
import numbers

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor

# (rtol, atol) by dtype name; any dtype not named compares for equality
_TOLERANCES = {"float16": (0.001, 1e-5), "bfloat16": (0.016, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7)}
_NUMBER_DTYPES = {int: _dt.int64, float: _dt.float64, complex: None}


class _Failure(Exception):
    """A failed check: the error type, its message and where in the inputs (keys/indices)."""

    def __init__(self, kind, text, where=()):
        super().__init__(text)
        self.kind, self.text, self.where = kind, text, where

    def error(self, msg):
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.text
        if self.where:
            text += "\n\nThe failure occurred for item " + "".join(str([k]) for k in self.where)
        return self.kind(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    """This kind of pair does not take these inputs: try the next kind."""


def _tolerances(dts, rtol, atol, where):
    if (rtol is None) != (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                   f"{'rtol' if rtol is None else 'atol'}.", where)
    if rtol is not None:
        return rtol, atol
    pairs = [_TOLERANCES.get(d.name, (0.0, 0.0)) if d is not None else (1e-7, 1e-7) for d in dts]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _diff_line(kind, diff, index, tol, equality):
    line = f"{kind.title()} difference: {diff}" if index is None else f"Greatest {kind} difference: {diff} at index {index}"
    return line if equality else line + f" (up to {tol} allowed)"


def _mismatch_text(default_name, name, extra, abs_diff, abs_at, rel_diff, rel_at, rtol, atol):
    """The failure message: a headline, the extra lines, then the absolute and relative differences."""
    equality = rtol == 0 and atol == 0
    if name is None:
        name = default_name
    elif callable(name):
        name = name(default_name)
    lines = [f"{name} are not {'equal' if equality else 'close'}!", "", extra.strip(),
             _diff_line("absolute", abs_diff, abs_at, atol, equality),
             _diff_line("relative", rel_diff, rel_at, rtol, equality)]
    return "\n".join(lines).strip()


def _scalar_text(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_text("Scalars", None, f"Expected {expected} but got {actual}.", abs_diff, None, rel_diff, None,
                          rtol, atol)


def _unravel(flat, shape):
    out = []
    for n in reversed(shape):
        flat, r = divmod(flat, n)
        out.append(r)
    return tuple(reversed(out))


def _tensor_text(actual, expected, close, rtol, atol):
    """The message for tensors with some elements not close: how many, and where the absolute and
    relative differences among those are greatest (computed as torch does, in the tensors' dtype;
    integers and booleans in int64)."""
    import minigrad
    total = close.numel()
    bad = total - int(close.sum().item())
    extra = f"Mismatched elements: {bad} / {total} ({bad / total:.1%})"
    a, e, ok = actual.reshape(-1), expected.reshape(-1), close.reshape(-1)
    if not a.dtype.is_floating_point:
        a, e = a.to(minigrad.int64), e.to(minigrad.int64)
    with np.errstate(all="ignore"):  # 0 / 0 where elements match: masked out below
        abs_diff = (a - e).abs().masked_fill(ok, 0)
        rel_diff = (abs_diff / e.abs()).masked_fill(ok, 0)
    abs_max, abs_at = abs_diff.max(0)
    rel_max, rel_at = rel_diff.max(0)
    shape = tuple(actual.shape)
    return _mismatch_text("Tensor-likes", None, extra, abs_max.item(), _unravel(int(abs_at), shape),
                          rel_max.item(), _unravel(int(rel_at), shape), rtol, atol)


class _NonePair:
    def __init__(self, actual, expected, where, options):
        if actual is not None and expected is not None:
            raise _Unsupported
        self.actual, self.expected, self.where = actual, expected, where

    def compare(self):
        if self.actual is not None or self.expected is not None:
            raise _Failure(AssertionError, f"None mismatch: {self.actual} is not {self.expected}", self.where)


class _BoolPair:
    def __init__(self, actual, expected, where, options):
        if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
            raise _Unsupported
        self.actual, self.expected, self.where = bool(actual), bool(expected), where

    def compare(self):
        if self.actual is not self.expected:
            raise _Failure(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}", self.where)


class _NumberPair:
    def __init__(self, actual, expected, where, options):
        if not all(isinstance(x, (int, float, complex, np.number)) and not isinstance(x, (bool, np.bool_))
                   for x in (actual, expected)):
            raise _Unsupported
        self.actual, self.expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        self.where = where
        self.rtol, self.atol = _tolerances([_NUMBER_DTYPES[_number_kind(x)] for x in (self.actual, self.expected)],
                                           options["rtol"], options["atol"], where)
        self.equal_nan, self.check_dtype = options["equal_nan"], options["check_dtype"]

    def compare(self):
        a, e = self.actual, self.expected
        if self.check_dtype and type(a) is not type(e):
            raise _Failure(AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.", self.where)
        if a == e or (self.equal_nan and cmath.isnan(a) and cmath.isnan(e)):
            return
        diff = abs(a - e)
        if cmath.isfinite(diff) and diff <= self.atol + self.rtol * abs(e):
            return
        raise _Failure(AssertionError, _scalar_text(a, e, self.rtol, self.atol), self.where)


def _number_kind(x):
    for kind in (bool, int, float, complex):
        if isinstance(x, kind):
            return int if kind is bool else kind
    raise _Failure(TypeError, f"Unknown number type {type(x)}.")


class _TensorPair:
    def __init__(self, actual, expected, where, options):
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            raise _Unsupported
        if not options["allow_subclasses"] and type(actual) is not type(expected):
            raise _Unsupported
        self.actual, self.expected = (self._as_tensor(x) for x in (actual, expected))
        self.where = where
        self.rtol, self.atol = _tolerances([self.actual.dtype, self.expected.dtype], options["rtol"],
                                           options["atol"], where)
        self.options = options

    @staticmethod
    def _as_tensor(x):
        if isinstance(x, Tensor):
            return x
        import minigrad
        try:
            return minigrad.as_tensor(x)
        except Exception:
            raise _Unsupported from None

    def _mismatch(self, attribute, a, e):
        raise _Failure(AssertionError, f"The values for attribute '{attribute}' do not match: {a} != {e}.",
                       self.where)

    def compare(self):
        import minigrad
        a, e, opts = self.actual.detach(), self.expected.detach(), self.options
        if a.shape != e.shape:
            self._mismatch("shape", a.shape, e.shape)
        if opts["check_stride"] and a.stride() != e.stride():
            self._mismatch("stride()", a.stride(), e.stride())
        if opts["check_device"] and a.device != e.device:
            self._mismatch("device", a.device, e.device)
        if opts["check_dtype"] and a.dtype is not e.dtype:
            self._mismatch("dtype", a.dtype, e.dtype)
        if a.device != e.device:
            a, e = a.cpu(), e.cpu()
        if a.dtype is not e.dtype:
            common = _dt.promote_types(a.dtype, e.dtype)
            a, e = a.to(common), e.to(common)
        close = minigrad.isclose(a, e, rtol=self.rtol, atol=self.atol, equal_nan=opts["equal_nan"])
        if bool(close.all()):
            return
        if a.dim() == 0:
            text = _scalar_text(a.item(), e.item(), self.rtol, self.atol)
        else:
            text = _tensor_text(a, e, close, self.rtol, self.atol)
        raise _Failure(AssertionError, text, self.where)


_PAIRS = (_NonePair, _BoolPair, _NumberPair, _TensorPair)


def _leaf_pairs(actual, expected, where, options):
    """The leaf pairs of two possibly nested inputs, walked as torch walks them."""
    def is_seq(x):
        return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)
    if is_seq(actual) and is_seq(expected):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                           where)
        out = []
        for i in range(len(actual)):
            out += _leaf_pairs(actual[i], expected[i], where + (i,), options)
        return out
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        have, want = set(actual.keys()), set(expected.keys())
        if have != want:
            raise _Failure(AssertionError, "The keys of the mappings do not match:\n"
                                           f"Missing keys in the actual mapping: {sorted(want - have)}\n"
                                           f"Additional keys in the actual mapping: {sorted(have - want)}", where)
        try:
            keys = sorted(have)
        except Exception:
            keys = have
        out = []
        for k in keys:
            out += _leaf_pairs(actual[k], expected[k], where + (k,), options)
        return out
    for kind in _PAIRS:
        try:
            return [kind(actual, expected, where, options)]
        except _Unsupported:
            continue
    raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                              f"{type(expected)}.", where)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Asserts that actual and expected are close: tensors (and NumPy arrays) elementwise within
    atol + rtol * |expected| after matching shape (and, by default, device and dtype); Python
    numbers likewise; booleans and None equal; sequences and mappings of these item by item.
    Without rtol/atol, each dtype's defaults (float32: 1.3e-6 and 1e-5; float64: 1e-7 and 1e-7;
    float16: 1e-3 and 1e-5; others: exact). msg: a string replacing the message, or a callable
    given the message and returning the one to raise."""
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    try:  # a failure while pairing the inputs up keeps its own message: msg is for the comparisons
        pairs = _leaf_pairs(actual, expected, (), options)
    except _Failure as failure:
        raise failure.error(None) from None
    try:
        for pair in pairs:
            pair.compare()
    except _Failure as failure:
        raise failure.error(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """torch.testing.assert_allclose (deprecated since torch 1.12): assert_close with dtype checks
    off, NaNs equal by default, and its own default tolerances (float16: 1e-3 and 1e-3; float32:
    1e-4 and 1e-5; float64: 1e-5 and 1e-8)."""
    import warnings
    import minigrad
    warnings.warn("`minigrad.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `minigrad.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = minigrad.tensor(actual)
    if not isinstance(expected, Tensor):
        expected = minigrad.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        own = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}
        pairs = [own.get(t.dtype.name, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
