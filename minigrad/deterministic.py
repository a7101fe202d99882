"""torch.use_deterministic_algorithms and the deterministic debug mode.

The setting is stored and reported as torch's is. minigrad does not consult it: no op raises
or warns for being nondeterministic when it is on.
"""

_state = {"mode": 0}  # torch's debug mode: 0 off, 1 warn only, 2 error


def use_deterministic_algorithms(mode, *, warn_only=False):
    if mode.__class__ is not bool:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    if warn_only.__class__ is not bool:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _state["mode"] = (1 if warn_only else 2) if mode else 0


def are_deterministic_algorithms_enabled():
    return _state["mode"] > 0


def is_deterministic_algorithms_warn_only_enabled():
    return _state["mode"] == 1


def set_deterministic_debug_mode(debug_mode):
    if isinstance(debug_mode, str):
        names = ("default", "warn", "error")
        if debug_mode not in names:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = names.index(debug_mode)
    elif isinstance(debug_mode, int):
        if debug_mode not in (0, 1, 2):
            raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    else:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    _state["mode"] = debug_mode


def get_deterministic_debug_mode():
    return _state["mode"]
