"""minigrad.cuda's memory counters, seeding helpers and predicates (on the emulated or a real
GPU; without one, the calls that need a GPU raise minigrad's no-GPU error)."""
import pytest

import minigrad


def _gpu(device):
    if device == "cpu":
        pytest.skip("needs a CUDA device")


def test_memory_stats_track_current_and_peak(device):
    _gpu(device)
    minigrad.cuda.empty_cache()
    minigrad.cuda.reset_peak_memory_stats()
    base = minigrad.cuda.memory_allocated()
    x = minigrad.ones(1 << 16, device=device)
    stats = minigrad.cuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == minigrad.cuda.memory_allocated() >= base + x.nbytes
    assert stats["reserved_bytes.all.current"] == minigrad.cuda.memory_reserved() >= stats["allocated_bytes.all.current"]
    peak = minigrad.cuda.max_memory_allocated()
    del x
    assert minigrad.cuda.max_memory_allocated() == peak  # the peak stays after the tensor goes
    assert minigrad.cuda.max_memory_reserved() >= minigrad.cuda.memory_reserved()
    with pytest.warns(FutureWarning, match="resets /all/ peak memory stats"):  # as torch's
        minigrad.cuda.reset_max_memory_allocated()
    assert minigrad.cuda.max_memory_allocated() == minigrad.cuda.memory_allocated()
    summary = minigrad.cuda.memory_summary()
    assert "Allocated memory" in summary and "MiB" in summary


def test_seeding_helpers(device):
    _gpu(device)
    minigrad.cuda.manual_seed(123)
    assert minigrad.cuda.initial_seed() == 123
    a = minigrad.rand(4, device=device)
    minigrad.cuda.manual_seed(123)
    assert minigrad.equal(a, minigrad.rand(4, device=device))
    minigrad.cuda.seed()
    s = minigrad.cuda.initial_seed()
    b = minigrad.rand(4, device=device)
    minigrad.cuda.manual_seed(s)
    assert minigrad.equal(b, minigrad.rand(4, device=device))  # seed() chose s, and initial_seed says so
    minigrad.cuda.seed_all()
    assert isinstance(minigrad.cuda.initial_seed(), int)
    minigrad.manual_seed(7)  # torch.manual_seed seeds every device too
    assert minigrad.cuda.initial_seed() == 7


def test_predicates(device):
    _gpu(device)
    minigrad.cuda.init()
    assert minigrad.cuda.is_initialized()
    assert minigrad.cuda.is_bf16_supported() is True  # bfloat16 is computed in float32 kernels on any GPU
    capable = minigrad.cuda.get_device_capability()[0] >= 8
    assert minigrad.cuda.is_bf16_supported(including_emulation=False) is capable


def test_without_a_gpu_the_calls_that_need_one_raise():
    if minigrad.cuda.is_available():
        pytest.skip("a GPU (or the emulated one) is present")
    for call in (minigrad.cuda.init, minigrad.cuda.initial_seed, minigrad.cuda.seed):
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            call()
    assert minigrad.cuda.is_initialized() is False
