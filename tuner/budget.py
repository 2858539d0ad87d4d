"""The time budget of one `mlc tune` run: every phase is charged to it, and the search time is
planned across the tasks by their share of the model's latency.

    budget = Budget(120.0)                    # seconds; Budget(None): unlimited
    with budget.phase("extraction"):
        ...
    deadline = budget.until(DEFAULTS_SHARE)  # the defaults may run until 40 % of it is spent
    plan = plan_tasks(budget.left(), shares, min_seconds=4.0)

The clock is injectable (tests drive it by hand); every deadline is a reading of that clock.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

Clock = Callable[[], float]


def monotonic() -> float:
    """time.monotonic, looked up at each call (a test may replace it)."""
    return time.monotonic()


GRAPH_SHARE = 0.2
"""The graph-level knobs (layout block, Winograd) may be measured for this much of the
budget after the extraction: each point is a whole-model build and run."""
BUILD_PER_EXTRACTION = 4.0
"""A whole-model build and JIT takes about this many times the task extraction (SqueezeNet,
2 threads, on a loaded host: 20 s to extract, 73 s to build)."""
DEFAULTS_SHARE = 0.45
"""Default schedules are built and timed until this much of the budget is spent (the import,
graph knobs and extraction included); tasks not timed by then keep their defaults."""
NEGLIGIBLE_SHARE = 0.005
"""A task below this share of the model's latency is not tuned under a budget."""


@dataclass
class Budget:
    """Seconds for a whole run (None: unlimited) and what each phase spent of them."""

    seconds: float | None
    clock: Clock = monotonic
    start: float = math.nan
    phases: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if math.isnan(self.start):
            self.start = self.clock()

    @property
    def deadline(self) -> float | None:
        return None if self.seconds is None else self.start + self.seconds

    def elapsed(self) -> float:
        return self.clock() - self.start

    def left(self) -> float:
        """Seconds left (infinite without a budget; never negative)."""
        if self.seconds is None:
            return math.inf
        return max(self.seconds - self.elapsed(), 0.0)

    def until(self, share: float) -> float | None:
        """The deadline by which `share` of the budget is spent (None without a budget)."""
        return None if self.seconds is None else self.start + share * self.seconds

    def span(self, share: float) -> float | None:
        """The deadline `share` of the budget from now (None without a budget)."""
        return None if self.seconds is None else self.clock() + share * self.seconds

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Charge the time spent inside to `name` (phases of the same name add up)."""
        began = self.clock()
        try:
            yield
        finally:
            self.phases[name] = self.phases.get(name, 0.0) + self.clock() - began


@dataclass(frozen=True)
class TaskPlan:
    """Which tasks (indices into the shares) are tuned, and which are skipped and why."""

    tuned: tuple[int, ...]
    negligible: tuple[int, ...] = ()
    """Below NEGLIGIBLE_SHARE of the model's latency."""
    no_time: tuple[int, ...] = ()
    """Their share of the time left would be under the least a task needs."""
    total: float = 0.0

    def share(self, indices: Sequence[int], shares: Sequence[float]) -> float:
        """The fraction of the model's (timed) latency of `indices`."""
        return sum(shares[i] for i in indices) / self.total if self.total > 0 else 0.0


def plan_tasks(
    seconds: float,
    shares: Sequence[float],
    *,
    min_seconds: float,
    negligible: float = NEGLIGIBLE_SHARE,
) -> TaskPlan:
    """Tune the largest shares first, as many as each still gets `min_seconds` of `seconds`
    when the time is split in proportion to the shares; tasks below `negligible` of the total
    are skipped whatever the time. With `seconds` infinite, every task above `negligible` is
    tuned."""
    total = sum(shares)
    order = sorted(range(len(shares)), key=lambda i: -shares[i])
    small = tuple(i for i in order if shares[i] <= 0 or shares[i] / total < negligible)
    candidates = [i for i in order if i not in small]
    tuned: list[int] = []
    held = 0.0
    for i in candidates:
        # the smallest task taken so far gets the least: stop at the first that falls short
        if math.isfinite(seconds) and seconds * shares[i] / (held + shares[i]) < min_seconds:
            break
        tuned.append(i)
        held += shares[i]
    no_time = tuple(i for i in candidates if i not in tuned)
    return TaskPlan(tuple(tuned), small, no_time, total)
