"""Anomaly detection (torch.autograd.detect_anomaly / set_detect_anomaly).

While it is on, every recorded node keeps the traceback of the forward call that made it (in
its metadata, under "traceback_", as torch's), and the engine runs each node through its slow
path: an error raised by a node's backward is preceded by a warning naming that forward call,
and with check_nan a node whose backward returns NaN raises torch's RuntimeError. Off, it
costs nothing: the engine and Function recording test one flag.
"""
import warnings

from . import function as _function

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


def is_anomaly_enabled():
    return _function._anomaly[0]


def is_anomaly_check_nan_enabled():
    return _function._anomaly[1]


def _set(mode, check_nan):
    _function._anomaly[0] = bool(mode)
    _function._anomaly[1] = bool(check_nan)
    _function._update_record_extra()


class detect_anomaly:
    """Context manager (or decorator) that enables anomaly detection for the autograd engine
    (see the module docstring); warns, as torch does, that it slows everything down."""

    def __init__(self, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should "
                      "only be enabled for debugging.", stacklevel=2)

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return func(*args, **kwargs)
        return wrapper

    def __enter__(self):
        _set(True, self.check_nan)

    def __exit__(self, *args):
        _set(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turn anomaly detection on or off: as a function call, or as a context manager that
    restores the previous setting on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        _set(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        _set(self.prev, self.prev_check_nan)
