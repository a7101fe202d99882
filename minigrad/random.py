"""torch.random: the state of the default generators, saved and restored.

minigrad has no uint8 dtype, so a state is an int64 CPU tensor holding one byte (0..255) per
element, where torch hands out a uint8 (ByteTensor) one; it is minigrad's own encoding, not
torch's 5056-byte Mersenne Twister state. The CPU state covers both of minigrad's CPU streams:
the backend's (rand, randn, dropout, ...) and the default Generator's (randperm, shuffling,
nn.init), and the initial seed. The CUDA state (minigrad.cuda.get_rng_state) is 16 bytes, seed
and offset as torch's Philox state is.
"""
import contextlib
import warnings

import numpy as np

from .creation import manual_seed, seed, default_generator  # noqa: F401  (torch.random's names)

__all__ = ["get_rng_state", "set_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"]


def _encode_pcg(rng):
    """40 bytes: a NumPy PCG64 generator's state (a Generator's own stream)."""
    from .backends.numpy_backend import _pcg_state
    return _pcg_state(rng)


def _decode_pcg(rng, b):
    from .backends.numpy_backend import _set_pcg_state
    _set_pcg_state(rng, b)


def _as_state_tensor(raw):
    from .creation import from_numpy
    return from_numpy(np.frombuffer(raw, dtype=np.uint8).astype(np.int64))


def _state_bytes(new_state, size, what):
    """The bytes of a state tensor, with torch's errors for anything else."""
    from .tensor import Tensor
    from .dtypes import int64
    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a minigrad.LongTensor, but got {type(new_state).__name__}")
    if new_state.dtype is not int64 or new_state.device.type != "cpu":
        raise TypeError("RNG state must be a minigrad.LongTensor")
    arr = new_state._data.reshape(-1)
    if arr.size != size:
        raise RuntimeError(f"Expected a {what} of size {size} but found the input RNG state size to be "
                           f"{arr.size}")
    if arr.size and (arr.min() < 0 or arr.max() > 255):
        raise RuntimeError("RNG state must hold byte values (0 to 255)")
    return arr.astype(np.uint8).tobytes()


_GEN_SIZE = 48          # one Generator: its PCG64 state and its initial seed
_CPU_SIZE = 40 + _GEN_SIZE  # the default CPU generator: the backend's stream too


def generator_state(gen):
    """Generator.get_state(): for the default generator, the backend's stream as well."""
    raw = _encode_pcg(gen._rng) + int(gen._seed).to_bytes(8, "little")
    if gen is default_generator:
        from .devices import CPU
        raw = CPU.backend.rng_state() + raw
    return _as_state_tensor(raw)


def set_generator_state(gen, new_state):
    if gen is default_generator:
        from .devices import CPU
        raw = _state_bytes(new_state, _CPU_SIZE, "CPUGeneratorImplState")
        CPU.backend.set_rng_state(raw[:40])
        raw = raw[40:]
    else:
        raw = _state_bytes(new_state, _GEN_SIZE, "CPUGeneratorImplState")
    _decode_pcg(gen._rng, raw[:40])
    gen._seed = int.from_bytes(raw[40:48], "little")
    return gen


def get_rng_state():
    """The default CPU generator's state (an int64 tensor of bytes; see the module docstring)."""
    return generator_state(default_generator)


def set_rng_state(new_state):
    set_generator_state(default_generator, new_state)


def initial_seed():
    """The seed the default CPU generator was last seeded with."""
    return default_generator.initial_seed()


_fork_rng_warned = [False]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    """Forks the RNG: on exit the CPU generator and those of `devices` (CUDA device indices; all
    of them when None) are restored to their state on entry, as torch.random.fork_rng does."""
    if not enabled:
        yield
        return
    from . import cuda
    if devices is None:
        num = cuda.device_count() if cuda.is_available() else 0
        if num > 1 and not _fork_rng_warned[0]:
            warnings.warn(f"CUDA reports that you have {num} available devices, and you have used "
                          f"{_caller} without explicitly specifying which devices are being used. "
                          f"For safety, we initialize *every* CUDA device by default, which can be quite "
                          f"slow if you have a lot of CUDAs. If you know that you are only making use of "
                          f"a few CUDA devices, set the environment variable CUDA_VISIBLE_DEVICES or the "
                          f"'{_devices_kw}' keyword argument of {_caller} with the set of devices you are "
                          f"actually using.")
            _fork_rng_warned[0] = True
        devices = list(range(num))
    else:
        devices = list(devices)
    cpu_state = get_rng_state()
    dev_states = [cuda.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for d, s in zip(devices, dev_states):
            cuda.set_rng_state(s, d)
