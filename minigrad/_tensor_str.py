"""Tensor printing that matches PyTorch's repr character for character.

A leaf module (numpy + stdlib only): Tensor.__repr__ hands over its data as a NumPy array
plus the suffixes it decided on (device, dtype, grad_fn, requires_grad), and gets back text.
"""
import math

import numpy as np

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}

_opts = dict(_PROFILES["default"], sci_mode=None)

# how a dtype's name is spelled in the `dtype=` suffix this module adds itself
DTYPE_PREFIX = "minigrad."


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Same semantics as torch.set_printoptions (an unknown profile is ignored, as in torch)."""
    if profile in _PROFILES:
        _opts.update(_PROFILES[profile])
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            _opts[key] = value
    # torch assigns sci_mode unconditionally: any call without it goes back to automatic
    _opts["sci_mode"] = sci_mode


def get_printoptions():
    return dict(_opts)


class _Formatter:
    """Picks one style and one width for every element, from the (summarized) values."""

    def __init__(self, values):
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = values.reshape(-1)
        if not self.floating:
            if flat.size:
                if flat.dtype == np.bool_:
                    self.width = 5 if not flat.all() else 4
                else:
                    self.width = max(len(str(flat.max().item())), len(str(flat.min().item())))
            return
        # Only nonzero finite values decide the style; nan, inf and zeros just get padded.
        chosen = flat[np.isfinite(flat) & (flat != 0)]
        if chosen.size == 0:
            return  # torch returns here before honouring a forced sci_mode
        magnitudes = np.abs(chosen).astype(np.float64)
        lo, hi = magnitudes.min(), magnitudes.max()
        with np.errstate(over="ignore"):
            spread = hi / lo > 1000.0 or hi > 1.0e8
        self.int_mode = bool(np.all(np.ceil(chosen) == chosen))
        self.sci_mode = bool(spread or (not self.int_mode and lo < 1.0e-4))
        if _opts["sci_mode"] is not None:
            self.sci_mode = _opts["sci_mode"]
        precision = _opts["precision"]
        items = chosen.tolist()
        if self.sci_mode:
            self.width = max(len(f"{v:.{precision}e}") for v in items)
        elif self.int_mode:
            self.width = max(len(f"{v:.0f}") + 1 for v in items)  # +1 for the trailing "."
        else:
            self.width = max(len(f"{v:.{precision}f}") for v in items)

    def format(self, value):
        if not self.floating:
            text = f"{value}"
        elif self.sci_mode:
            text = f"{value:{self.width}.{_opts['precision']}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."  # marks a floating tensor even when every value is whole
        else:
            text = f"{value:.{_opts['precision']}f}"
        return text.rjust(self.width)


def _summarized(a, edge):
    """The elements that will actually be printed, so hidden ones do not widen columns."""
    if a.ndim == 0:
        return a
    if a.ndim >= 2 and not edge:
        return a[(slice(0, 0),) * a.ndim]
    index = []
    for n in a.shape:
        index.append(np.r_[0:edge, n - edge:n] if n > 2 * edge else np.arange(n))
    return a[np.ix_(*index)]


def _vector_str(a, indent, summarize, fmt):
    edge = _opts["edgeitems"]
    per_line = max(1, int(math.floor((_opts["linewidth"] - indent) / (fmt.width + 2))))
    if summarize and not edge:
        items = ["..."]
    elif summarize and a.shape[0] > 2 * edge:
        items = ([fmt.format(v) for v in a[:edge].tolist()] + [" ..."]
                 + [fmt.format(v) for v in a[-edge:].tolist()])
    else:
        items = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(a, indent, summarize, fmt):
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, fmt)
    edge = _opts["edgeitems"]
    n = a.shape[0]
    if summarize and n > 2 * edge:
        rows = ([_nested_str(a[i], indent + 1, summarize, fmt) for i in range(edge)] + ["..."]
                + [_nested_str(a[i], indent + 1, summarize, fmt) for i in range(n - edge, n)])
    else:
        rows = [_nested_str(a[i], indent + 1, summarize, fmt) for i in range(n)]
    # one blank line per dimension below the innermost rows separates blocks
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _add_suffixes(text, suffixes, indent):
    parts = [text]
    # torch's own arithmetic (its +1 overcounts by 2 on a single line); kept for identical wrapping
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > _opts["linewidth"]:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(array, suffixes, prefix="tensor("):
    """repr of a tensor holding `array`; `suffixes` come from the caller in torch's order.

    Adds the suffixes only the data can decide: `size=` for empty tensors that are not
    1-d (and for every tensor when edgeitems is 0), and, for empty int64/bool tensors,
    the `dtype=` that torch shows because no element hints at the type.
    """
    a = np.asarray(array)
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    suffixes = list(suffixes)
    indent = len(prefix)
    own = []
    if a.size == 0:
        if a.ndim != 1:
            own.append(f"size={tuple(a.shape)}")
        if a.dtype in (np.int64, np.bool_) and not any(s.startswith("dtype=") for s in suffixes):
            own.append(f"dtype={DTYPE_PREFIX}{'bool' if a.dtype == np.bool_ else 'int64'}")
        body = "[]"
    else:
        if not _opts["edgeitems"]:
            own.append(f"size={tuple(a.shape)}")
        summarize = a.size > _opts["threshold"]
        fmt = _Formatter(_summarized(a, _opts["edgeitems"]) if summarize else a)
        body = _nested_str(a, indent, summarize, fmt)
    # torch places these right after the device and before dtype/grad_fn/requires_grad
    at = 0
    while at < len(suffixes) and suffixes[at].startswith("device="):
        at += 1
    suffixes[at:at] = own
    return _add_suffixes(prefix + body, suffixes, indent)


def format_scalar(array0d, format_spec):
    """Tensor.__format__ on a 0-d tensor: torch formats the Python number from .item()."""
    a = np.asarray(array0d)
    if a.ndim != 0:
        raise ValueError("format_scalar expects a 0-d array")
    return format(a.item(), format_spec)
