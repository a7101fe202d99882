"""minigrad.cuda's streams and events, out-of-memory errors, the rest of its everyday API, the
generic minigrad.Stream/Event and minigrad.accelerator.

Without a GPU the answers are compared with CPU torch's (where torch says "not compiled with
CUDA", minigrad gives its own no-GPU RuntimeError, as everywhere else). The CUDA tests run on a
GPU or on the emulated one (MINIGRAD_EMULATED_CUDA=1); the ones that need to see which stream a
launch used, or a device with little memory, need the emulation."""
import re
import sys
import warnings

import pytest

import minigrad

try:
    import torch
except ImportError:
    torch = None

HAS_GPU = minigrad.cuda.is_available()
no_gpu = pytest.mark.skipif(HAS_GPU, reason="checks the machine without a GPU")
gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA GPU available (minigrad.cuda.is_available() is False)")
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def _emulation():
    """The emulated CuPy's module (tests/cuda_emulation.py) when it is the one in use, else None."""
    cp = sys.modules.get("cupy")
    return sys.modules.get("cuda_emulation") if getattr(cp, "_emulated", False) else None


emulated = pytest.mark.skipif(_emulation() is None, reason="needs the emulated GPU (MINIGRAD_EMULATED_CUDA=1)")


def outcome(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = ("ok", fn())
        except Exception as e:  # noqa: BLE001 - the error is the result
            value = (type(e).__name__, str(e))
    return value, [(w.category.__name__, str(w.message)) for w in caught]


# ---- without a GPU: torch's answers -------------------------------------------------------------

ANSWERS = {  # the calls that answer without a GPU, as CPU torch does
    "memory_allocated()": lambda m: m.cuda.memory_allocated(),
    "max_memory_allocated()": lambda m: m.cuda.max_memory_allocated(),
    "memory_reserved()": lambda m: m.cuda.memory_reserved(),
    "max_memory_reserved()": lambda m: m.cuda.max_memory_reserved(),
    "memory_allocated(0)": lambda m: m.cuda.memory_allocated(0),
    "memory_cached()": lambda m: m.cuda.memory_cached(),
    "max_memory_cached()": lambda m: m.cuda.max_memory_cached(),
    "memory_stats()": lambda m: dict(m.cuda.memory_stats()),
    "memory_stats_as_nested_dict()": lambda m: m.cuda.memory_stats_as_nested_dict(),
    "get_arch_list()": lambda m: m.cuda.get_arch_list(),
    "get_gencode_flags()": lambda m: m.cuda.get_gencode_flags(),
    "is_tf32_supported()": lambda m: m.cuda.is_tf32_supported(),
    "set_stream(None)": lambda m: m.cuda.set_stream(None),
    "stream(None) block": lambda m: _enter_exit(m.cuda.stream(None)),
    "StreamContext(None) block": lambda m: _enter_exit(m.cuda.StreamContext(None)),
    "device_of(cpu tensor)": lambda m: (m.cuda.device_of(m.zeros(1)).idx, _enter_exit(m.cuda.device_of(m.zeros(1)))),
    "empty_cache()": lambda m: m.cuda.empty_cache(),
    "is_available()": lambda m: m.cuda.is_available(),
    "device_count()": lambda m: m.cuda.device_count(),
    "OutOfMemoryError": lambda m: (m.OutOfMemoryError is m.cuda.OutOfMemoryError, m.OutOfMemoryError.__name__,
                                   issubclass(m.OutOfMemoryError, RuntimeError)),
    # the generic stream and event, on the CPU
    "Stream()": lambda m: repr(m.Stream()),
    "Stream(device='cpu', priority=-1)": lambda m: repr(m.Stream(device="cpu", priority=-1)),
    "Stream() state": lambda m: (m.Stream().query(), m.Stream().synchronize(), m.Stream().device_index,
                                 m.Stream().stream_id, m.Stream().device_type, str(m.Stream().device)),
    "Stream() == Stream()": lambda m: (m.Stream() == m.Stream(), hash(m.Stream()) == hash(m.Stream())),
    "Stream(0)": lambda m: m.Stream(0),
    "Stream().record_event()": lambda m: m.Stream().record_event(),
    "Stream().wait_stream(Stream())": lambda m: m.Stream().wait_stream(m.Stream()),
    "Stream().wait_event(Event())": lambda m: m.Stream().wait_event(m.Event()),
    "with Stream()": lambda m: repr(_enter_exit(m.Stream())),
    "Event()": lambda m: repr(m.Event()),
    "Event(enable_timing=True)": lambda m: repr(m.Event(enable_timing=True)),
    "Event() state": lambda m: (m.Event().query(), m.Event().synchronize(), m.Event().wait(), str(m.Event().device)),
    "Event().record()": lambda m: m.Event().record(),
    "Event().elapsed_time(Event())": lambda m: m.Event().elapsed_time(m.Event()),
    "timed Event().elapsed_time(timed Event())": lambda m: m.Event(enable_timing=True).elapsed_time(
        m.Event(enable_timing=True)),
    # torch.accelerator
    "accelerator.is_available()": lambda m: m.accelerator.is_available(),
    "accelerator.device_count()": lambda m: m.accelerator.device_count(),
    "accelerator.current_accelerator()": lambda m: m.accelerator.current_accelerator(),
    "accelerator.current_accelerator(True)": lambda m: m.accelerator.current_accelerator(check_available=True),
    "accelerator.current_device_index()": lambda m: m.accelerator.current_device_index(),
    "accelerator.current_device_idx()": lambda m: m.accelerator.current_device_idx(),
    "accelerator.set_device_index(0)": lambda m: m.accelerator.set_device_index(0),
    "accelerator.set_device_idx(0)": lambda m: m.accelerator.set_device_idx(0),
    "accelerator.device_index(0) block": lambda m: _enter_exit(m.accelerator.device_index(0)),
    "accelerator.device_index(None) block": lambda m: _enter_exit(m.accelerator.device_index(None)),
    "accelerator.current_stream()": lambda m: m.accelerator.current_stream(),
    "accelerator.current_stream(0)": lambda m: m.accelerator.current_stream(0),
    "accelerator.synchronize()": lambda m: m.accelerator.synchronize(),
    "accelerator.synchronize('cpu')": lambda m: m.accelerator.synchronize("cpu"),
    "accelerator.set_stream(Stream())": lambda m: m.accelerator.set_stream(m.Stream()),
    "accelerator.empty_cache()": lambda m: m.accelerator.empty_cache(),
    "accelerator.memory_stats()": lambda m: m.accelerator.memory_stats(),
    "accelerator.memory_allocated()": lambda m: m.accelerator.memory_allocated(),
    "accelerator.max_memory_allocated()": lambda m: m.accelerator.max_memory_allocated(),
    "accelerator.memory_reserved()": lambda m: m.accelerator.memory_reserved(),
    "accelerator.max_memory_reserved()": lambda m: m.accelerator.max_memory_reserved(),
    "accelerator.reset_peak_memory_stats()": lambda m: m.accelerator.reset_peak_memory_stats(),
    "accelerator.reset_accumulated_memory_stats()": lambda m: m.accelerator.reset_accumulated_memory_stats(),
    "accelerator.get_memory_info()": lambda m: m.accelerator.get_memory_info(),
    "accelerator.memory.get_memory_info()": lambda m: m.accelerator.memory.get_memory_info(),
}


def _enter_exit(ctx):
    with ctx as got:
        return got


@no_gpu
@needs_torch
@pytest.mark.parametrize("name", list(ANSWERS))
def test_without_a_gpu_as_torch(name):
    assert outcome(lambda: ANSWERS[name](minigrad)) == outcome(lambda: ANSWERS[name](torch))


NEEDS_A_GPU = {  # torch's CPU build asserts "Torch not compiled with CUDA enabled" (or fails in its C++)
    "Stream()": lambda m: m.cuda.Stream(),
    "current_stream()": lambda m: m.cuda.current_stream(),
    "current_stream(0)": lambda m: m.cuda.current_stream(0),
    "default_stream()": lambda m: m.cuda.default_stream(),
    "ExternalStream(0)": lambda m: m.cuda.ExternalStream(0),
    "Event()": lambda m: m.cuda.Event(),
    "Event(enable_timing=True)": lambda m: m.cuda.Event(enable_timing=True),
    "mem_get_info()": lambda m: m.cuda.mem_get_info(),
    "reset_peak_memory_stats()": lambda m: m.cuda.reset_peak_memory_stats(),
    "reset_accumulated_memory_stats()": lambda m: m.cuda.reset_accumulated_memory_stats(),
    "reset_max_memory_cached()": lambda m: m.cuda.reset_max_memory_cached(),
    "set_per_process_memory_fraction(0.5)": lambda m: m.cuda.set_per_process_memory_fraction(0.5),
    "get_per_process_memory_fraction()": lambda m: m.cuda.get_per_process_memory_fraction(),
    "can_device_access_peer(0, 1)": lambda m: m.cuda.can_device_access_peer(0, 1),
    "ipc_collect()": lambda m: m.cuda.ipc_collect(),
    "synchronize()": lambda m: m.cuda.synchronize(),
    "synchronize(0)": lambda m: m.cuda.synchronize(0),
    "get_sync_debug_mode()": lambda m: m.cuda.get_sync_debug_mode(),
    "set_sync_debug_mode('warn')": lambda m: m.cuda.set_sync_debug_mode("warn"),
    "Stream('cuda')": lambda m: m.Stream("cuda"),
    "Event('cuda')": lambda m: m.Event("cuda"),
}


@no_gpu
@pytest.mark.parametrize("name", list(NEEDS_A_GPU))
def test_without_a_gpu_the_calls_that_need_one_raise(name):
    (kind, message), _ = outcome(lambda: NEEDS_A_GPU[name](minigrad))
    assert kind == "RuntimeError" and message.startswith("CUDA is not available"), (kind, message)
    if torch is not None:
        (tkind, _), _ = outcome(lambda: NEEDS_A_GPU[name](torch))
        assert tkind != "ok"   # torch refuses it too


@needs_torch
def test_record_stream_on_a_cpu_tensor_as_torch():
    (kind, message), _ = outcome(lambda: minigrad.zeros(2).record_stream(minigrad.Stream()))
    (tkind, tmessage), _ = outcome(lambda: torch.zeros(2).record_stream(torch.Stream()))
    assert kind == tkind == "NotImplementedError"
    first = "Could not run 'aten::record_stream' with arguments from the 'CPU' backend."
    assert message.startswith(first) and tmessage.startswith(first)


@needs_torch
def test_accelerator_names_as_torch():
    wanted = set(torch.accelerator.__all__) - {"Graph"}   # CUDA graphs: not in minigrad
    assert wanted <= set(dir(minigrad.accelerator))
    assert set(n for n in dir(torch.accelerator.memory) if not n.startswith("_") and callable(
        getattr(torch.accelerator.memory, n)) and n not in ("Any", "OrderedDict")) <= set(dir(minigrad.accelerator.memory))
    for name in ("Stream", "current_stream", "default_stream", "set_stream", "stream", "StreamContext",
                 "ExternalStream", "Event", "OutOfMemoryError", "mem_get_info", "memory_cached",
                 "max_memory_cached", "reset_accumulated_memory_stats", "memory_stats_as_nested_dict",
                 "set_per_process_memory_fraction", "get_per_process_memory_fraction", "get_arch_list",
                 "get_gencode_flags", "device_of", "is_tf32_supported", "can_device_access_peer",
                 "ipc_collect", "get_sync_debug_mode", "set_sync_debug_mode", "reset_max_memory_cached"):
        assert hasattr(torch.cuda, name) and hasattr(minigrad.cuda, name), name


def test_fraction_argument_errors_are_torchs():
    # checked before any device is touched in torch only after its lazy init; here with or
    # without a GPU the type and range errors come first when a GPU is present
    if not HAS_GPU:
        pytest.skip("needs a GPU: without one the no-GPU error comes first")
    with pytest.raises(TypeError, match=re.escape("Invalid type for fraction argument, must be `float`")):
        minigrad.cuda.set_per_process_memory_fraction(1)
    with pytest.raises(ValueError, match=re.escape("Invalid fraction value: 1.5. Allowed range: 0~1")):
        minigrad.cuda.set_per_process_memory_fraction(1.5)


# ---- on a GPU (or the emulated one) ---------------------------------------------------------------

@gpu
def test_current_and_default_stream():
    c = minigrad.cuda
    cur, default = c.current_stream(), c.default_stream()
    assert cur == default and hash(cur) == hash(default) and default.cuda_stream == 0
    assert repr(default) == "<torch.cuda.Stream device=cuda:0 cuda_stream=0x0>"
    assert default.device == minigrad.device("cuda", 0) and default.device_index == 0 and default.device_type == 1
    assert c.current_stream(0) == c.current_stream("cuda:0") == c.current_stream(minigrad.device("cuda")) == cur
    assert isinstance(cur, minigrad.Stream) and isinstance(cur, c.Stream)
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        c.current_stream("cpu")


@gpu
def test_new_stream():
    c = minigrad.cuda
    s = c.Stream()
    assert s != c.default_stream() and s == s and s.priority == 0
    assert re.fullmatch(r"<torch\.cuda\.Stream device=cuda:0 cuda_stream=0x[0-9a-f]+>", repr(s))
    assert s.cuda_stream != 0 and s.__cuda_stream__() == (0, s.cuda_stream)
    assert s.query() is True
    s.synchronize()
    assert c.Stream(priority=-1).priority == -1
    assert c.Stream(device=0).device_index == 0
    generic = minigrad.Stream("cuda")
    assert isinstance(generic, c.Stream) and generic.device == minigrad.device("cuda", 0)
    assert s != object() and len({s, s, c.default_stream()}) == 2


@gpu
def test_set_stream_and_stream_context_restore():
    c = minigrad.cuda
    s1, s2 = c.Stream(), c.Stream()
    with c.stream(s1):
        assert c.current_stream() == s1
        with c.stream(s2):
            assert c.current_stream() == s2
        with c.stream(None):
            assert c.current_stream() == s1
        assert c.current_stream() == s1
    assert c.current_stream() == c.default_stream()
    with s2:
        assert c.current_stream() == s2
    assert c.current_stream() == c.default_stream()
    c.set_stream(s1)
    try:
        assert c.current_stream() == s1
    finally:
        c.set_stream(c.default_stream())
    assert c.current_stream() == c.default_stream()
    with c.StreamContext(s1):
        assert c.current_stream() == s1
    assert c.current_stream() == c.default_stream()


@gpu
@emulated
def test_work_goes_to_the_current_stream():
    """Every kernel launch, allocation and copy inside `with stream(s)` is issued on s, and
    outside it on the default stream: a launch that ignored the current stream fails here."""
    streams = _emulation().STATS["streams"]
    c = minigrad.cuda
    x = minigrad.arange(12.0, device="cuda").reshape(3, 4)
    s = c.Stream()
    streams.clear()
    with c.stream(s):
        y = (x * 2 + 1).sum(1).softmax(0)
        z = minigrad.tensor([1.0, 2.0, 3.0], device="cuda") @ (x @ x.t())
        w = minigrad.ones(5, device="cuda").cumsum(0)
    used = list(streams)
    assert any(what.startswith("launch") for what, _ in used)
    assert {what.split()[0] for what, _ in used} >= {"launch", "alloc", "copy"}
    assert all(ptr == s.cuda_stream for _, ptr in used), [u for u in used if u[1] != s.cuda_stream]
    streams.clear()
    (x + 1).exp()
    assert streams and all(ptr == 0 for _, ptr in streams)
    assert y.cpu().shape == (3,) and z.shape == (3,) and w[-1].item() == 5.0
    assert abs(y.sum().item() - 1.0) < 1e-6


@gpu
def test_results_on_a_side_stream_are_right():
    c = minigrad.cuda
    x = minigrad.arange(6.0, device="cuda")
    s = c.Stream()
    s.wait_stream(c.current_stream())
    with c.stream(s):
        y = x * x
    c.current_stream().wait_stream(s)
    y.record_stream(c.current_stream())
    assert y.tolist() == [0.0, 1.0, 4.0, 9.0, 16.0, 25.0]


@gpu
def test_events():
    c = minigrad.cuda
    e = c.Event()
    assert repr(e) == "<torch.cuda.Event uninitialized>" and e.cuda_event == 0 and e.device is None
    assert e.query() is True
    e.synchronize()
    e.wait()   # never recorded: nothing to wait for
    s = c.Stream()
    e.record(s)
    assert e.cuda_event != 0 and e.device == minigrad.device("cuda", 0) and e.query() is True
    assert re.fullmatch(r"<torch\.cuda\.Event 0x[0-9a-f]+>", repr(e))
    e.wait(c.current_stream())
    c.current_stream().wait_event(e)
    e.synchronize()
    made = s.record_event()
    assert isinstance(made, c.Event) and isinstance(made, minigrad.Event)
    with pytest.raises(ValueError, match=re.escape("Both events must be created with argument 'enable_timing=True'.")):
        c.Event().elapsed_time(c.Event())
    start, end = c.Event(enable_timing=True), c.Event(enable_timing=True)
    with pytest.raises(ValueError, match=re.escape("Both events must be recorded before calculating elapsed time.")):
        start.elapsed_time(end)
    start.record()
    minigrad.ones(100, device="cuda").sum()
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0.0
    generic = minigrad.Event("cuda", enable_timing=True)
    assert isinstance(generic, c.Event) and generic.enable_timing


@gpu
@emulated
def test_waits_reach_the_stream():
    c = minigrad.cuda
    s1, s2 = c.Stream(), c.Stream()
    e = s1.record_event()
    s2.wait_event(e)
    assert s2._raw.waited[-1] is e._raw and e._raw.stream == s1.cuda_stream
    s1.wait_stream(s2)
    assert s1._raw.waited[-1].stream == s2.cuda_stream


@gpu
@emulated
def test_out_of_memory():
    emu, c = _emulation(), minigrad.cuda
    before = c.memory_stats()["num_ooms"]
    previous = emu.set_device_memory(64 << 20)
    try:
        with pytest.raises(minigrad.OutOfMemoryError) as info:
            minigrad.empty(1 << 30, device="cuda")    # 4 GiB of float32
        message = str(info.value)
        assert re.match(r"CUDA out of memory\. Tried to allocate 4\.00 GiB\. GPU 0 has a total capacity of "
                        r"64\.00 MiB of which [\d.]+ (MiB|KiB) is free\. Of the allocated memory [\d.]+ \w+ is "
                        r"allocated by minigrad, and [\d.]+ \w+ is reserved by minigrad but unallocated\.", message), message
        assert isinstance(info.value, RuntimeError) and info.value.__cause__ is None
        assert c.memory_stats()["num_ooms"] == before + 1
        with pytest.raises(RuntimeError, match="CUDA out of memory"):   # as programs catch it
            minigrad.ones(64 << 20, device="cuda")
        assert minigrad.ones(4, device="cuda").sum().item() == 4.0    # small ones still fit
        free, total = c.mem_get_info()
        assert total == 64 << 20 and 0 <= free <= total
    finally:
        emu.set_device_memory(previous)


@gpu
@emulated
def test_memory_fraction_limits_allocations():
    c = minigrad.cuda
    assert c.get_per_process_memory_fraction() == 1.0
    total = c.mem_get_info()[1]
    c.set_per_process_memory_fraction(0.25)
    try:
        assert c.get_per_process_memory_fraction() == 0.25
        with pytest.raises(minigrad.OutOfMemoryError, match=r"is free\. [\d.]+ GiB allowed; Of the allocated"):
            minigrad.empty(total // 4 // 4 + (1 << 20), device="cuda")   # a little over a quarter
    finally:
        c.set_per_process_memory_fraction(1.0)
        c._fraction.clear()
    test_fraction_argument_errors_are_torchs()


@gpu
def test_memory_api():
    c = minigrad.cuda
    free, total = c.mem_get_info()
    assert 0 < free <= total == c.get_device_properties(0).total_memory
    assert c.mem_get_info(0) == c.mem_get_info("cuda:0") or True   # free memory may move between calls
    c.reset_accumulated_memory_stats()
    x = minigrad.ones(1000, device="cuda")
    stats = c.memory_stats()
    assert stats["allocation.all.allocated"] >= 1 and stats["allocated_bytes.all.allocated"] >= x.nbytes
    nested = c.memory_stats_as_nested_dict()
    assert nested["allocated_bytes"]["all"]["current"] == stats["allocated_bytes.all.current"]
    assert nested["num_ooms"] == stats["num_ooms"]
    c.reset_accumulated_memory_stats()
    assert c.memory_stats()["allocation.all.allocated"] == 0 and c.memory_stats()["num_ooms"] == 0
    with pytest.warns(FutureWarning, match="`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`"):
        assert c.memory_cached() == c.memory_reserved()
    with pytest.warns(FutureWarning, match="renamed to `torch.cuda.max_memory_reserved`"):
        assert c.max_memory_cached() == c.max_memory_reserved()
    with pytest.warns(FutureWarning, match="which resets /all/ peak memory stats"):
        c.reset_max_memory_cached()
    assert c.max_memory_reserved() == c.memory_reserved()
    del x


@gpu
def test_device_queries():
    c = minigrad.cuda
    major, minor = c.get_device_capability()
    assert c.get_arch_list() == [f"sm_{major}{minor}"]
    assert c.get_gencode_flags() == f"-gencode compute=compute_{major}{minor},code=sm_{major}{minor}"
    assert c.is_tf32_supported() is (major >= 8)
    assert c.can_device_access_peer(0, 0) is False
    with pytest.raises(AssertionError, match="Invalid peer device id"):
        c.can_device_access_peer(0, c.device_count())
    with pytest.raises(AssertionError, match="Invalid device id"):
        c.can_device_access_peer(-1, 0)
    c.ipc_collect()
    x = minigrad.ones(2, device="cuda")
    with c.device_of(x) as got:
        assert got is None and c.current_device() == 0
    assert c.device_of(x).idx == 0 and c.device_of(minigrad.ones(2)).idx == -1
    c.synchronize()
    c.synchronize(0)
    c.synchronize("cuda:0")
    c.synchronize(minigrad.device("cuda"))
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        c.synchronize("cpu")


@gpu
def test_sync_debug_mode_is_stored():
    c = minigrad.cuda
    assert c.get_sync_debug_mode() == 0
    try:
        c.set_sync_debug_mode("warn")
        assert c.get_sync_debug_mode() == 1
        c.set_sync_debug_mode(2)
        assert c.get_sync_debug_mode() == 2
        with pytest.raises(RuntimeError, match="invalid value of debug_mode, expected one of `default`, `warn`, `error`"):
            c.set_sync_debug_mode("loud")
    finally:
        c.set_sync_debug_mode("default")
    assert c.get_sync_debug_mode() == 0


@gpu
def test_accelerator_on_a_gpu():
    a, c = minigrad.accelerator, minigrad.cuda
    assert a.is_available() and a.device_count() == c.device_count()
    assert a.current_accelerator() == minigrad.device("cuda") == a.current_accelerator(check_available=True)
    assert a.current_device_index() == c.current_device()
    with pytest.warns(FutureWarning, match="Use `current_device_index` instead."):
        assert a.current_device_idx() == 0
    a.set_device_index(0)
    with a.device_index(0):
        assert a.current_device_index() == 0
    s = c.Stream()
    a.set_stream(s)
    try:
        assert a.current_stream() == s == c.current_stream()
    finally:
        a.set_stream(c.default_stream())
    with pytest.raises(TypeError):
        a.set_stream(None)
    a.synchronize()
    a.synchronize("cuda:0")
    with pytest.raises(ValueError, match="cpu doesn't match the current accelerator cuda."):
        a.synchronize("cpu")
    assert a.memory_allocated() == c.memory_allocated() and a.memory_reserved() == c.memory_reserved()
    assert a.get_memory_info()[1] == c.mem_get_info()[1]
    assert a.memory.memory_stats().keys() == c.memory_stats().keys()
    a.reset_peak_memory_stats()
    assert a.max_memory_allocated() == c.memory_allocated()
    a.empty_cache()
    assert minigrad.float32 in a.get_device_capability()["supported_dtypes"]
