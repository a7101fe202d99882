"""Autocast's per-thread state and the cast step the affected ops go through (torch.autocast).

Ops that autocast affects start with one check, `if AUTOCAST_ON[0] and (r := dispatch(...))`:
AUTOCAST_ON[0] counts the (thread, device type) pairs that have autocast enabled anywhere in the
process, so with autocast off the whole cost is a list lookup. Only when it is nonzero does
dispatch() read this thread's state and, when the op has a policy for its inputs' device type,
cast the inputs (recorded in the graph as ToCopyBackward0, as torch's casts are) and run the op
again with autocast suspended, so that the op's own inner calls are not cast a second time (as
torch's autocast kernels redispatch below the autocast key). dispatch() returns None when
autocast leaves the op alone: the op then goes on as usual.

This module imports nothing from minigrad at import time: the ops import it while minigrad is
still being set up.
"""
import threading
import weakref

AUTOCAST_ON = [0]
_count_lock = threading.Lock()

# torch's default lower-precision dtype per device type (torch.get_autocast_dtype), by name:
# the dtype objects are looked up when first needed (bfloat16 may not exist in this build)
DEFAULT_DTYPES = {"cpu": "bfloat16", "cuda": "float16", "xpu": "float16", "ipu": "float16", "mps": "float16",
                  "mtia": "float16", "privateuseone": "float16", "maia": "bfloat16", "xla": "bfloat16",
                  "hpu": "bfloat16"}


class _ThreadState(threading.local):
    def __init__(self):
        self.enabled = {}      # device type -> bool (absent: False)
        self.dtypes = {}       # device type -> dtype set with set_autocast_dtype
        self.cache_enabled = True
        self.nesting = 0
        self.suspended = False  # inside an op that autocast already cast the inputs of
        self.cache = {}         # id(fp32 leaf) -> (weakref to it, its lower-precision copy)


STATE = _ThreadState()


def set_enabled(device_type, flag):
    st = STATE
    was = st.enabled.get(device_type, False)
    if was != flag:
        st.enabled[device_type] = flag
        with _count_lock:
            AUTOCAST_ON[0] += 1 if flag else -1


def get_dtype(device_type):
    d = STATE.dtypes.get(device_type)
    if d is None:
        from . import dtypes
        d = getattr(dtypes, DEFAULT_DTYPES[device_type], None)
        if d is None:  # bfloat16 not in this build: torch's default cannot be represented
            raise RuntimeError(f"autocast's default dtype for {device_type!r} is torch.bfloat16, which this "
                               "minigrad does not have; pass dtype=minigrad.float16")
    return d


# ---- the cast step --------------------------------------------------------------------------

BCE_BANNED = ("torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
              "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
              "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
              "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
              "safe to autocast.")

_TENSOR = []  # [minigrad.Tensor, float32, float64], filled on first use


def _classes():
    if not _TENSOR:
        from .tensor import Tensor
        from .dtypes import float32, float64
        _TENSOR.extend((Tensor, float32, float64))
    return _TENSOR


def _first_device_type(values, Tensor):
    for v in values:
        if isinstance(v, Tensor):
            return v._device.type
        if v.__class__ in (list, tuple):
            found = _first_device_type(v, Tensor)
            if found is not None:
                return found
    return None


def _eligible(v, device_type, Tensor, f64):
    """torch's rule: a floating tensor on the autocast device that is not float64."""
    if not isinstance(v, Tensor) or v._device.type != device_type:
        return False
    d = v.dtype
    return d.is_floating_point and d is not f64


def _cast(v, device_type, to, st, classes):
    Tensor, f32, f64 = classes
    if v.__class__ in (list, tuple):
        return v.__class__(_cast(x, device_type, to, st, classes) for x in v)
    if not _eligible(v, device_type, Tensor, f64) or v.dtype is to:
        return v
    # torch caches the lower-precision copies of fp32 leaves that require grad (the weights) for
    # the rest of the outermost autocast region
    cacheable = (st.cache_enabled and to is get_dtype(device_type) and v.dtype is f32 and v._requires_grad
                 and v.grad_fn is None and v._base is None)
    if cacheable:
        hit = st.cache.get(id(v))
        if hit is not None and hit[0]() is v:
            return hit[1]
    out = v.to(to)
    if cacheable:
        st.cache[id(v)] = (weakref.ref(v), out)
    return out


def _widest(values, device_type, start, classes):
    """The promote policy's target: the autocast dtype unless some eligible input is float32
    (float64 inputs are ignored, as torch's prioritize does)."""
    Tensor, f32, f64 = classes
    to = start
    for v in values:
        if v.__class__ in (list, tuple):
            to = _widest(v, device_type, to, classes)
        elif _eligible(v, device_type, Tensor, f64):
            d = v.dtype
            if to is f32 or d is f32:
                to = f32
            elif d is not to:
                raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return to


def dispatch(op, fn, *args, **kwargs):
    """Run op (fn with these arguments) under this thread's autocast policy, or return None when
    autocast does not apply to it here."""
    st = STATE
    if st.suspended or not st.enabled or kwargs.get("out") is not None:  # out=: not eligible, as torch's
        return None
    classes = _classes()
    device_type = _first_device_type(args, classes[0])
    if device_type is None or not st.enabled.get(device_type, False):
        return None
    from .amp.policy import policy_of, LOWER, FP32, FP32_OPT_DTYPE, BANNED
    policy = policy_of(device_type, op)
    if policy is None:
        return None
    if policy is BANNED:
        raise RuntimeError(BCE_BANNED)
    if policy is LOWER:
        to = get_dtype(device_type)
    elif policy is FP32:
        to = classes[1]
    elif policy is FP32_OPT_DTYPE:
        # no input is cast: an eligible first input runs the op with dtype=float32, which the op
        # applies as it computes (one node in the graph, as torch's); an explicit dtype= is kept
        to = None
        if kwargs.get("dtype") is None and _eligible(args[0], device_type, classes[0], classes[2]):
            kwargs = dict(kwargs, dtype=classes[1])
    else:  # PROMOTE
        to = _widest(args, device_type, get_dtype(device_type), classes)
    if to is not None:
        args = tuple(_cast(a, device_type, to, st, classes) for a in args)
        if kwargs:
            kwargs = {k: _cast(v, device_type, to, st, classes) for k, v in kwargs.items()}
    st.suspended = True
    try:
        return fn(*args, **kwargs)
    finally:
        st.suspended = False


def suspended():
    """A context in which no op autocasts (custom_fwd's cast_inputs, the cells' inner steps)."""
    return _Suspend()


class _Suspend:
    def __enter__(self):
        self.prev, STATE.suspended = STATE.suspended, True

    def __exit__(self, *exc):
        STATE.suspended = self.prev
