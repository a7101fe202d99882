"""minigrad.utils.benchmark: Timer and Measurement, as torch.utils.benchmark, for timing a
statement (say CPU against GPU matmul) the way PyTorch programs do.

The default timer waits for the GPU (minigrad.cuda.synchronize) before reading the clock when
a GPU is available, so queued kernels are counted. Only Python statements are timed (no C++,
no Callgrind), and Measurement's repr follows torch's layout: title, description, setup, the
median (with the interquartile range from four measurements on) and torch's IQR warnings.
"""
import dataclasses
import enum
import timeit

import numpy as np

__all__ = ["Timer", "Measurement", "TaskSpec", "Language"]


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


def timer():
    """time.perf_counter after waiting for the GPU's queued work, when there is a GPU."""
    from .. import cuda
    if cuda.is_available():
        cuda.synchronize()
    return timeit.default_timer()


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """What was timed: the statement, its setup and the labels a Measurement prints."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: "str | None" = None
    sub_label: "str | None" = None
    description: "str | None" = None
    env: "str | None" = None
    num_threads: int = 1

    @property
    def title(self):
        """The label, or the statement when there is none; then ": sub_label"."""
        if self.label is not None:
            head = self.label
        elif "\n" in self.stmt:
            head = "stmt:\n" + "\n".join(f"  {line}" for line in self.stmt.splitlines())
        else:
            head = self.stmt
        return head if self.sub_label is None else f"{head}: {self.sub_label}"


def _quantile(sorted_values, q):
    return float(np.quantile(sorted_values, q))


def _unit(seconds):
    for scale, name in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if seconds >= scale:
            return scale, name
    return 1.0, "s"


# torch's thresholds on the interquartile range relative to the median
_IQR_WARN = 0.1
_IQR_SEVERE = 0.25


class Measurement:
    """The times of `number_per_run` runs, one per block (raw_times, in seconds); `times` are
    per run. mean, median and iqr summarize them."""

    def __init__(self, number_per_run, raw_times, task_spec, metadata=None):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata

    def __getattr__(self, name):  # stmt, setup, label, title, ... read through to the task spec
        spec = self.__dict__.get("task_spec")
        if spec is not None and (name in TaskSpec.__dataclass_fields__ or name == "title"):
            return getattr(spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def mean(self):
        return float(np.mean(sorted(self.times)))  # summed smallest first, as torch's

    @property
    def median(self):
        return _quantile(sorted(self.times), 0.5)

    @property
    def iqr(self):
        ordered = sorted(self.times)
        return _quantile(ordered, 0.75) - _quantile(ordered, 0.25)

    def _relative_iqr(self):
        return self.iqr / self.median if self.median else 0.0

    @property
    def has_warnings(self):
        return self._relative_iqr() > _IQR_WARN

    def meets_confidence(self, threshold=_IQR_WARN):
        return self._relative_iqr() < threshold

    def __repr__(self):
        spec, lines = self.task_spec, [super().__repr__()]
        lines.append(spec.title)
        if spec.label is None and "\n" in spec.stmt:
            lines.append("")
        if spec.description is not None:
            lines.append(spec.description)
        if spec.setup != "pass":
            setup = spec.setup.splitlines()
            lines += [f"setup: {setup[0]}"] if len(setup) == 1 else ["setup:"] + [f"  {s}" for s in setup] + [""]
        scale, unit = _unit(self.median)
        n = len(self.times)
        threads = f"{spec.num_threads} thread{'s' if spec.num_threads != 1 else ''}"
        if n == 1:
            lines += [f"  {self.median / scale:.2f} {unit}", f"  1 measurement, {self.number_per_run} runs , {threads}"]
        else:
            lines.append(f"  Median: {self.median / scale:.2f} {unit}")
            if n >= 4:
                ordered = sorted(self.times)
                lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({_quantile(ordered, 0.25) / scale:.2f} to "
                             f"{_quantile(ordered, 0.75) / scale:.2f})")
            lines.append(f"  {n} measurements, {self.number_per_run} runs per measurement, {threads}")
        if self.has_warnings:
            rel = self._relative_iqr()
            why = ("This suggests significant environmental influence." if rel >= _IQR_SEVERE
                   else "This could indicate system fluctuation.")
            lines += [f"  WARNING: Interquartile range is {rel * 100:.1f}% of the median measurement.",
                      f"           {why}"]
        return "\n".join(lines)


class Timer:
    """Times `stmt` (Python source) after running `setup` once, in a namespace seeded with
    `globals` (a copy: the statement's assignments do not leak out)."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None, label=None,
                 sub_label=None, description=None, env=None, num_threads=1, language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError("minigrad's Timer times Python statements only (no C++)")
        self._spec = TaskSpec(stmt, setup, global_setup, label, sub_label, description, env, num_threads)
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=dict(globals or {}))

    def _block(self, number):
        return self._timer.timeit(number)

    def timeit(self, number=1000000):
        """One measurement of `number` runs (after one warm-up run)."""
        self._block(max(number // 100, 2))
        return Measurement(number, [self._block(number)], self._spec)

    def _runs_per_block(self, min_block_time=0.01):
        """Enough runs (a power of ten) that one block takes at least min_block_time."""
        number = 1
        while True:
            if self._block(number) >= min_block_time or number >= 10 ** 9:
                return number
            number *= 10

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of a fixed number of runs until min_run_time has been spent."""
        number = self._runs_per_block()
        times, total = [], 0.0
        while total < min_run_time:
            t = self._block(number)
            if callback is not None:
                callback(number, t)
            times.append(t)
            total += t
        return Measurement(number, times, self._spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """Blocks until the interquartile range falls under `threshold` of the median (with at
        least min_run_time spent and 4 blocks), or max_run_time runs out."""
        number = self._runs_per_block()
        times, total = [], 0.0
        while True:
            t = self._block(number)
            if callback is not None:
                callback(number, t)
            times.append(t)
            total += t
            m = Measurement(number, times, self._spec)
            if len(times) > 3 and total >= min_run_time and m.meets_confidence(threshold) or total >= max_run_time:
                return m
