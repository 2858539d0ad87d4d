"""Runners measure candidates of a task: the `Runner` interface, and `LocalRunner`, which builds
in a pool of worker processes and times in one more, on this machine.

    with LocalRunner(MeasureOptions(parallel=2)) as runner:
        results = runner.measure(task, [Candidate.of(task, i) for i in indices])

Builds run in parallel (`MeasureOptions.parallel` workers); candidates are then timed one at a
time in the run worker, while no build runs, so that timings never overlap on the cores. Every
candidate's output is compared with the default schedule's (the task's reference, computed
once by the run worker): a wrong output, a crash (segfault, abort) or a run past the timeout is
an error result, and the worker is restarted for the next candidate. A distributed runner
(Ray) implements the same interface.
"""

from __future__ import annotations

import abc
import dataclasses
import os
import pathlib
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mlc.contract import TargetInfo

from .budget import monotonic
from .measure import MeasureOptions
from .pool import Worker, WorkerPool
from .task import Task

TIMING_BLOCKTIME = "200"
"""OpenMP workers of the timing process spin for 200 ms after a parallel region (libiomp5's
default; a KMP_BLOCKTIME of the user's wins), as a deployed model's workers spin from one kernel
to the next. A cold-weights sample flushes the caches for milliseconds before its one call:
with 1 ms the workers slept by then, each call paid their wake-up, and on this 2-vCPU VM that
made ResNet-50's 2-thread defaults sum to 49 ms instead of 23 (the model runs in ~20 ms; the
1.5 ms convs read 2-3x slower, Winograd transforms 4-8x), so the tuner favoured serial
schedules: its 3x3 max pool kept a serial one at 0.046 ms where the parallel default runs in
0.037 ms once deployed. The cost: after a candidate's last sample its workers spin up to 200 ms
while the next builds start."""


def timing_env() -> dict[str, str]:
    """The environment the timing worker adds to this process's."""
    return {"KMP_BLOCKTIME": os.environ.get("KMP_BLOCKTIME", TIMING_BLOCKTIME)}


DEFAULTS_PER_WORKER = 4
"""Default schedules built per build worker between two checks of the deadline."""
UNSTEADY_REFERENCE = 1.5
"""Paired samples of the default schedule whose quartiles are further apart than this were not
taken under the same conditions as the candidate's. ResNet-50's 1x1 conv 64 -> 256 (2 threads):
next to a serial candidate the default's samples ran 0.7-10.7 ms (alone 0.62), the median ratio
made the candidate 0.37 ms; its own samples said 2.0-4.5. A host that is slower for a while
slows both alike, and the default's samples stay together: in that 20-minute run their
quartiles were within 1.25x in 88 % of the records and within 1.5x in 94 %."""


@dataclass(frozen=True)
class Candidate:
    """A point of a task's space to measure (index -1: a schedule from elsewhere)."""

    index: int
    schedule: str
    config: dict[str, Any]

    @classmethod
    def of(cls, task: Task, index: int) -> Candidate:
        return cls(index, task.schedule_text(index), task.space.get(index))


@dataclass(frozen=True)
class MeasureResult:
    """Seconds per call, one per timed sample; or the error that stopped the candidate."""

    costs: tuple[float, ...] = ()
    error: str = ""
    build_s: float = 0.0
    run_s: float = 0.0
    timestamp: float = 0.0
    reference_costs: tuple[float, ...] = ()
    """The default schedule's samples, each taken right after the candidate's of the same
    index (empty when not timed in pairs)."""
    baseline: float = 0.0
    """The default schedule's latency (seconds) that paired costs are scaled to."""
    target: TargetInfo | None = None
    """The CPU that built and timed it when not this host's (a node of a Ray cluster)."""

    @property
    def ok(self) -> bool:
        return not self.error and bool(self.costs)

    @property
    def cost(self) -> float:
        """Seconds per call (infinity for an error). Timed in pairs: the baseline times the
        median ratio of the candidate's samples to the default's, so every candidate of a task
        is compared with the default at the same moments, whatever the machine was doing.
        Otherwise the fastest sample (other processes only ever add time). When the default's
        own samples disagree (their quartiles more than UNSTEADY_REFERENCE apart), the pairs
        did not see the same conditions and the cost is at least the fastest sample."""
        if not self.ok:
            return float("inf")
        if self.baseline > 0 and len(self.reference_costs) == len(self.costs):
            ratios = [c / r for c, r in zip(self.costs, self.reference_costs) if r > 0]
            if ratios:
                paired = self.baseline * statistics.median(ratios)
                return max(paired, min(self.costs)) if self.unsteady_reference else paired
        return min(self.costs)

    @property
    def unsteady_reference(self) -> bool:
        if len(self.reference_costs) < 2:
            return False
        q1, _, q3 = statistics.quantiles(self.reference_costs, n=4, method="inclusive")
        return q1 <= 0 or q3 / q1 > UNSTEADY_REFERENCE


OnResult = Callable[[Candidate, MeasureResult], None]


class Runner(abc.ABC):
    """Measures candidates of a task; results in the order of the candidates (None for those
    not measured before the deadline)."""

    @abc.abstractmethod
    def measure(
        self,
        task: Task,
        candidates: Sequence[Candidate],
        *,
        on_result: OnResult | None = None,
        deadline: float | None = None,
    ) -> list[MeasureResult | None]: ...

    def measure_defaults(
        self,
        tasks: Sequence[Task],
        *,
        deadline: float | None = None,
        clock: Callable[[], float] = monotonic,
    ) -> list[Task]:
        """The tasks with `default_ms` measured (None where the default schedule failed). At
        `deadline` (a reading of `clock`) the rest are left out: the result is then the first
        tasks only (none when it has passed already), so pass them largest first."""
        out = []
        for task in tasks:
            if deadline is not None and clock() >= deadline:
                break
            (result,) = self.measure(task, [Candidate.of(task, task.default_index)])
            ms = result.cost * 1e3 if result is not None and result.ok else None
            out.append(dataclasses.replace(task, default_ms=ms))
        return out

    def close(self) -> None:  # noqa: B027 - optional for runners without resources
        pass

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalRunner(Runner):
    """Build workers + one run worker on this machine (AutoTVM's LocalBuilder + LocalRunner)."""

    def __init__(self, options: MeasureOptions | None = None, workdir: str | None = None) -> None:
        self.options = options or MeasureOptions()
        self._own_dir = workdir is None
        self.dir = pathlib.Path(workdir or tempfile.mkdtemp(prefix="mlc-tune-"))
        self.dir.mkdir(parents=True, exist_ok=True)
        self.builders = WorkerPool(self.options.parallel, self.dir, "build")
        self.timer = Worker(self.dir / "run.log", timing_env())
        self._references: dict[str, str] = {}  # workload -> "" (ready) or why it failed
        self._serial = 0

    # -- steps (separate so that a test or a subclass can intervene) --------------------------
    def build(self, work: Sequence[tuple[Task, Candidate]]) -> list[dict[str, Any]]:
        """Build (in parallel) replies: {"so", "manifest", "seconds"} or {"error"}."""
        requests = []
        for task, cand in work:
            self._serial += 1
            requests.append(
                {
                    "op": "build",
                    "kernel": task.ir,
                    "block": task.block,
                    "schedule": cand.schedule,
                    "scratch": task.scratch,
                    "sizes": dict(task.sizes),
                    "threads": task.threads,
                    "out": str(self.dir / f"c{self._serial}.so"),
                }
            )
        return self.builders.map(requests, self.options.build_timeout)

    def measure_defaults(
        self,
        tasks: Sequence[Task],
        *,
        deadline: float | None = None,
        clock: Callable[[], float] = monotonic,
    ) -> list[Task]:
        """The defaults in chunks of a few builds per worker, until `deadline` (a reading of
        `clock`): the result is the first tasks (none when it has passed already), so pass them
        largest first. A model of 191 kernels spent minutes here before any search began."""
        chunk = DEFAULTS_PER_WORKER * max(self.options.parallel, 1)
        out: list[Task] = []
        for begin in range(0, len(tasks), chunk):
            if deadline is not None and clock() >= deadline:
                break
            out += self._measure_defaults(tasks[begin : begin + chunk])
        return out

    def _measure_defaults(self, tasks: Sequence[Task]) -> list[Task]:
        """All default schedules built in one parallel batch, then timed in two passes (each
        keeps its faster: the time budget is split by these latencies, and a busy moment
        during one pass should not hand a task more than its share); each task's output is
        kept as its reference."""
        candidates = [Candidate.of(t, t.default_index) for t in tasks]
        builds = self.build(list(zip(tasks, candidates)))
        best: list[float | None] = []
        for task, cand, built in zip(tasks, candidates, builds):
            result = self._run_one(task, cand, built, is_reference=True)
            best.append(result.cost if result.ok else None)
        # A default that failed is built and run once more before its task is given up: its
        # worker may have been killed from outside (the OOM killer, a user), which the next
        # attempt, in a new worker, does not meet; a default that is really broken fails again.
        failed = [i for i, b in enumerate(best) if b is None]
        for i, built in zip(failed, self.build([(tasks[i], candidates[i]) for i in failed])):
            self._discard(builds[i])
            builds[i] = built
            result = self._run_one(tasks[i], candidates[i], built, is_reference=True)
            best[i] = result.cost if result.ok else None
        for i, (task, cand, built) in enumerate(zip(tasks, candidates, builds)):
            if best[i] is not None:
                again = self._run_one(task, cand, built, is_reference=False)
                best[i] = min(best[i], again.cost)  # type: ignore[type-var]
            self._discard(built)
        return [
            dataclasses.replace(t, default_ms=None if b is None else b * 1e3)
            for t, b in zip(tasks, best)
        ]

    def run(self, task: Task, built: dict[str, Any], mode: str) -> dict[str, Any]:
        o = self.options
        return self.timer.request(
            {
                "op": "run",
                "so": built["so"],
                "manifest": built["manifest"],
                "task": task.workload,
                "reference": str(self.dir / f"{task.workload}.npy"),
                "reference_so": str(self._reference_so(task)) if o.paired else "",
                "mode": mode,
                "rtol": o.rtol,
                "number": 1 if o.cold_weights else o.number,
                "repeat": o.repeat,
                "min_repeat_ms": 0.0 if o.cold_weights else o.min_repeat_ms,
                "warmup": o.warmup,
                "flush": o.flush_cache,
                "constants": list(task.constants) if o.cold_weights else None,
            },
            o.timeout,
        )

    # -- the interface ---------------------------------------------------------------------
    def measure(
        self,
        task: Task,
        candidates: Sequence[Candidate],
        *,
        on_result: OnResult | None = None,
        deadline: float | None = None,
    ) -> list[MeasureResult | None]:
        pending = list(candidates)
        default = next((c for c in pending if c.index == task.default_index), None)
        needs_reference = task.workload not in self._references
        if needs_reference and default is None:
            default = Candidate.of(task, task.default_index)
            pending.insert(0, default)  # builds with the others; timed, not reported
        builds = self.build([(task, c) for c in pending])
        results: dict[int, MeasureResult] = {}
        for i, (cand, built) in enumerate(zip(pending, builds)):
            is_reference = needs_reference and cand is default
            if deadline is not None and time.monotonic() > deadline and not is_reference:
                break
            result = self._run_one(task, cand, built, is_reference)
            self._discard(built)
            if cand not in candidates:
                continue
            results[i] = result
            if on_result is not None:
                on_result(cand, result)
        for built in builds:
            self._discard(built)
        offset = len(pending) - len(candidates)
        return [results.get(i + offset) for i in range(len(candidates))]

    def measure_alone(self, task: Task, cand: Candidate, default: Candidate) -> MeasureResult:
        """One candidate, its task's reference output made first from `default` (the task's
        default schedule) when this runner has none yet: what a runner on another machine
        (`RayRunner`'s nodes) is asked, given a task without its knob space."""
        if task.workload not in self._references:
            (built,) = self.build([(task, default)])
            self._run_one(task, default, built, is_reference=True)
            self._discard(built)
        (built,) = self.build([(task, cand)])
        try:
            return self._run_one(task, cand, built, is_reference=False)
        finally:
            self._discard(built)

    def _run_one(
        self, task: Task, cand: Candidate, built: dict[str, Any], is_reference: bool
    ) -> MeasureResult:
        stamp = time.time()
        if "error" in built:
            if is_reference:
                self._references[task.workload] = f"the default schedule failed: {built['error']}"
            return MeasureResult(error=f"build: {built['error']}", timestamp=stamp)
        problem = self._references.get(task.workload, "")
        if problem and not is_reference:
            return MeasureResult(error=problem, build_s=built["seconds"], timestamp=stamp)
        reply = self.run(task, built, "reference" if is_reference else "check")
        if is_reference:
            failed = "error" in reply
            self._references[task.workload] = (
                f"the default schedule failed: {reply['error']}" if failed else ""
            )
            if not failed:  # kept for timing candidates against (the worker may restart)
                shutil.copyfile(built["so"], self._reference_so(task))
        if "error" in reply:
            prefix = "" if reply["error"].startswith("wrong output") else "run: "
            return MeasureResult(
                error=prefix + reply["error"], build_s=built["seconds"], timestamp=stamp
            )
        return MeasureResult(
            costs=tuple(reply["costs"]),
            build_s=built["seconds"],
            run_s=reply["seconds"],
            timestamp=stamp,
            reference_costs=tuple(reply.get("reference_costs", ())),
            baseline=(task.default_ms or 0.0) / 1e3,
        )

    def _reference_so(self, task: Task) -> pathlib.Path:
        return self.dir / f"{task.workload}.so"

    @staticmethod
    def _discard(built: dict[str, Any]) -> None:
        if "so" in built:
            pathlib.Path(built["so"]).unlink(missing_ok=True)

    def close(self) -> None:
        self.builders.close()
        self.timer.close()
        if self._own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
