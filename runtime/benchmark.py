"""The timing loop shared by `GraphModule.benchmark`, `mlc run --print-time` and the tuner.

`time_function(fn, number=N, repeat=R, min_repeat_ms=M, warmup=W)` does, in order:

1. **Warm-up.** `fn()` is called `W` times, untimed (first-touch page faults, thread-pool start,
   instruction cache).
2. **Calibration** (only when `M > 0`). A batch of `N` calls is timed; while it lasted less than
   `M` ms, `N` grows — to the count the measured time per call predicts will fill `M` ms (plus
   10 %), at least doubling and at most x1000 per step — and a batch is timed again. These
   batches are not recorded. The final `N` is reported as `BenchmarkResult.number`.
3. **Samples.** `R` times: `N` back-to-back calls are timed with one pair of `timer()` readings;
   the sample is that duration / `N`, in seconds. `before_each()`, when given, runs untimed
   before each sample (the tuner flushes the CPU caches there, AutoTVM's
   `enable_cpu_cache_flush`).

`fn` is therefore called `W + (calibration calls) + N * R` times. The statistics (mean, median,
std, min, max, p90, p99) are over the `R` samples; std is the population standard deviation.
No timing is ever compared against a threshold in tests: a fake `timer` makes the loop
deterministic there.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

MAX_GROWTH = 1000


@dataclass(frozen=True)
class BenchmarkResult:
    """All samples of one measurement (seconds per call), and their statistics."""

    samples: tuple[float, ...]
    number: int
    """Calls per sample (after min_repeat_ms calibration)."""
    warmup: int

    @property
    def repeat(self) -> int:
        return len(self.samples)

    @property
    def mean(self) -> float:
        return float(np.mean(self.samples))

    @property
    def median(self) -> float:
        return float(np.median(self.samples))

    @property
    def std(self) -> float:
        return float(np.std(self.samples))

    @property
    def min(self) -> float:
        return float(np.min(self.samples))

    @property
    def max(self) -> float:
        return float(np.max(self.samples))

    @property
    def p90(self) -> float:
        return float(np.percentile(self.samples, 90))

    @property
    def p99(self) -> float:
        return float(np.percentile(self.samples, 99))

    STATS = ("mean", "median", "max", "min", "std", "p90", "p99")
    """Columns of the summary table, in order."""

    def stats_ms(self) -> dict[str, float]:
        return {name: getattr(self, name) * 1e3 for name in self.STATS}

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: statistics in ms, samples in ms, number, repeat, warmup."""
        return {
            "unit": "ms",
            **self.stats_ms(),
            "samples": [s * 1e3 for s in self.samples],
            "number": self.number,
            "repeat": self.repeat,
            "warmup": self.warmup,
        }

    def __str__(self) -> str:
        width = 12
        head = "".join(f"{name + ' (ms)':>{width}}" for name in self.STATS)
        row = "".join(f"{value:>{width}.4f}" for value in self.stats_ms().values())
        return (
            f"Execution time summary:\n{head}\n{row}\n"
            f"({self.repeat} samples of {self.number} runs each, {self.warmup} untimed warm-up)"
        )


def time_function(
    fn: Callable[[], object],
    *,
    number: int = 1,
    repeat: int = 1,
    min_repeat_ms: float = 0.0,
    warmup: int = 1,
    timer: Callable[[], float] = time.perf_counter,
    before_each: Callable[[], object] | None = None,
) -> BenchmarkResult:
    """Time `fn` with the loop described in the module docstring."""
    (result,) = time_interleaved(
        [fn],
        number=number,
        repeat=repeat,
        min_repeat_ms=min_repeat_ms,
        warmup=warmup,
        timer=timer,
        before_each=before_each,
    )
    return result


def time_interleaved(
    fns: Sequence[Callable[[], object]],
    *,
    number: int = 1,
    repeat: int = 1,
    min_repeat_ms: float = 0.0,
    warmup: int = 1,
    timer: Callable[[], float] = time.perf_counter,
    before_each: Callable[[], object] | None = None,
    lead_in: int = 0,
) -> list[BenchmarkResult]:
    """The loop of `time_function` over several functions at once: each is warmed up, `number`
    is calibrated on the first, and sample k of every function is taken before sample k + 1 of
    any (a, b, a, b, ...). Sample k of each then saw the same moment of a busy machine, so
    their ratio is steadier than the ratio of two separate measurements (the tuner times a
    candidate against its task's default schedule this way). `lead_in` untimed calls of a
    function precede each of its samples (before `before_each`): a function is then not timed
    waking the threads the one before left asleep. On the 2-vCPU VM a 1.5 ms 2-thread kernel
    timed right after a 3.5 ms serial one took 5-6 ms (waking an idle vCPU)."""
    if number < 1 or repeat < 1:
        raise ValueError(f"number and repeat must be >= 1, got number={number}, repeat={repeat}")
    if warmup < 0 or min_repeat_ms < 0 or lead_in < 0:
        raise ValueError(
            f"warmup, min_repeat_ms and lead_in must be >= 0, got warmup={warmup}, "
            f"min_repeat_ms={min_repeat_ms}, lead_in={lead_in}"
        )
    if not fns:
        raise ValueError("time_interleaved needs at least one function")
    for fn in fns:
        for _ in range(warmup):
            fn()
    if min_repeat_ms > 0:
        number = _calibrate(fns[0], number, min_repeat_ms / 1e3, timer)
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, out in zip(fns, samples):
            for _ in range(lead_in):
                fn()
            if before_each is not None:
                before_each()
            out.append(_batch(fn, number, timer) / number)
    return [BenchmarkResult(samples=tuple(s), number=number, warmup=warmup) for s in samples]


def _batch(fn: Callable[[], object], number: int, timer: Callable[[], float]) -> float:
    start = timer()
    for _ in range(number):
        fn()
    return timer() - start


def _calibrate(
    fn: Callable[[], object], number: int, min_seconds: float, timer: Callable[[], float]
) -> int:
    while True:
        elapsed = _batch(fn, number, timer)
        if elapsed >= min_seconds:
            return number
        if elapsed <= 0:
            grown = number * MAX_GROWTH
        else:
            grown = math.ceil(number * min_seconds / elapsed * 1.1)
        number = min(max(grown, 2 * number), number * MAX_GROWTH)
