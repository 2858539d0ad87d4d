"""`tune`: search every task's knob space, appending each measurement to a record file.

    report = tune(tasks, runner, "r.jsonl", TuneOptions(tuner="xgb", time_budget=20))

* **Records** are appended (and flushed to disk) as each candidate is measured, errors included,
  the default schedule's measurement first; the kernels go to the workload table beside them.
* **Resume**: records already in the file for a task (same target, threads and pipeline) are
  not measured again; they count towards `trials` and the tuner learns from them. A run killed
  mid-way loses at most the candidate being timed.
* **Time budget** (minutes, the whole run, `budget.Budget`: the caller's import, extraction and
  default timings are charged to it too): the tasks to tune are planned first
  (`budget.plan_tasks`: tasks under 0.5 % of the model's latency, and those whose share of the
  time left would not hold a useful search, are skipped and reported in `TuneReport.skipped`);
  each then gets the remaining time in proportion to its share among the tasks not yet tuned,
  so what a task leaves unused (early stopping, its space exhausted) goes to the ones after it.
* **Transfer learning** (xgb): the cost model of each task also trains on the records of the
  tasks tuned before it in this run, of earlier runs in the same file, and of `prior_records`
  (other models), so later tasks find good points in fewer trials.
"""

from __future__ import annotations

import logging
import math
import pathlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mlc.errors import MlcError
from mlc.target import host_target
from mlc.version import __version__

from .budget import Budget, Clock, monotonic, plan_tasks
from .history import ExamplePool, matching, measured_points
from .records import (
    Record,
    RecordError,
    append_records,
    append_workload,
    drop_incomplete_line,
    read_records,
    read_workloads,
    target_dict,
    workload_table_path,
)
from .runner import Candidate, MeasureResult, Runner
from .task import Task
from .tuners import TUNERS, Tuner, TunerKind, create_tuner

_log = logging.getLogger(__name__)
MIN_TASK_SECONDS = 4.0
"""A task whose share of the time budget is smaller is skipped (its default stays)."""
MIN_BATCH = 2
"""Fewest candidates worth starting a task for (besides the final check of its best)."""


@dataclass(frozen=True)
class TuneOptions:
    """How `tune` searches (tvmc tune's flags)."""

    tuner: TunerKind = "xgb"
    trials: int = 1000
    """Most candidates measured per task (resumed records included)."""
    early_stopping: int | None = None
    """Stop a task after this many trials without a better candidate."""
    time_budget: float | None = None
    """Minutes for the whole run, split by the tasks' shares of the model's latency."""
    batch_size: int = 8
    """Candidates per batch (built in parallel, then timed one by one)."""
    seed: int = 0
    prior_records: tuple[str, ...] = ()
    """Record files of other runs (other models) to warm-start the xgb cost model."""

    def __post_init__(self) -> None:
        if self.tuner not in TUNERS:
            raise MlcError(f"unknown tuner '{self.tuner}'; expected one of {', '.join(TUNERS)}")
        if self.trials < 0 or self.batch_size < 1:
            raise MlcError("trials must be >= 0 and batch size >= 1")
        if self.early_stopping is not None and self.early_stopping < 1:
            raise MlcError(f"early stopping must be >= 1, got {self.early_stopping}")
        if self.time_budget is not None and self.time_budget <= 0:
            raise MlcError(f"the time budget must be > 0 minutes, got {self.time_budget}")


@dataclass
class TaskReport:
    """The outcome of one task."""

    task: Task
    default_ms: float | None = None
    """The default schedule's latency (the fastest of its measurements)."""
    best_ms: float | None = None
    best_schedule: str = ""
    trials: int = 0
    """Candidates measured in this run (the default excluded)."""
    resumed: int = 0
    """Candidates measured by an earlier run (found in the record file)."""
    errors: int = 0
    seconds: float = 0.0
    stopped: str = ""
    """Why the search ended: trials, early stopping, space exhausted, time budget, ..."""

    @property
    def speedup(self) -> float | None:
        if self.best_ms is None or self.default_ms is None:
            return None
        return self.default_ms / self.best_ms

    @property
    def default_drift(self) -> float:
        """The default's latency at the end over its latency when the task was extracted."""
        if not self.default_ms or not self.task.default_ms:
            return 1.0
        return self.default_ms / self.task.default_ms

    @property
    def unsteady(self) -> bool:
        """The machine was disturbed while the task was timed: its speedup is not evidence."""
        return not 1 / UNSTEADY_DRIFT <= self.default_drift <= UNSTEADY_DRIFT

    @property
    def status(self) -> str:
        """Why the search ended, and whether its timings are to be trusted (tables, progress)."""
        if self.unsteady:
            return f"{self.stopped}; unsteady: default re-timed at {self.default_drift:.2f}x"
        return self.stopped


@dataclass(frozen=True)
class SkippedTask:
    """A task left with its default schedule without a search, and why."""

    task: Task
    reason: str
    """'negligible' (under budget.NEGLIGIBLE_SHARE), 'no time' (its share of the budget would
    not hold a search), 'not timed' (the budget ran out before its default was timed)."""
    share: float | None = None
    """Its share of the model's (timed) latency; None when its default was not timed."""


@dataclass
class TuneReport:
    records: str
    tasks: list[TaskReport] = field(default_factory=list)
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    """Lines of the record file that could not be read (they were left alone)."""
    skipped: list[SkippedTask] = field(default_factory=list)
    """Tasks not searched (kept their defaults), with why; see `skipped_summary`."""

    def skipped_share(self) -> float:
        """The share of the model's timed latency in tasks skipped after being timed."""
        return sum(s.share or 0.0 for s in self.skipped)

    def skipped_summary(self) -> str:
        """One line: how many tasks were not searched, why, and their share of the model."""
        if not self.skipped:
            return ""
        counts: dict[str, int] = {}
        for s in self.skipped:
            counts[s.reason] = counts.get(s.reason, 0) + 1
        why = ", ".join(f"{n} {reason}" for reason, n in counts.items())
        return (
            f"{len(self.skipped)} task(s) kept their default schedules untuned ({why}): "
            f"{100 * self.skipped_share():.1f} % of the timed model latency"
        )


class Progress:
    """Hooks for a progress display (the CLI's tqdm bars); the default shows nothing."""

    def start(self, task: Task, index: int, count: int, trials: int) -> None: ...

    def update(self, tuner: Tuner, done: Sequence[tuple[int, MeasureResult]]) -> None: ...

    def finish(self, report: TaskReport) -> None: ...


def tune(
    tasks: Sequence[Task],
    runner: Runner,
    records: str | pathlib.Path,
    options: TuneOptions | None = None,
    *,
    progress: Progress | None = None,
    started: float | None = None,
    budget: Budget | None = None,
    candidate_seconds: float = 0.0,
) -> TuneReport:
    """Tune `tasks` (from `extract_tasks`, defaults measured), appending to `records`. The time
    budget counts from `started` (time.monotonic(); now by default), or is `budget` (its clock
    drives every deadline): a caller that extracted the tasks first passes when it began, so
    that the extraction is part of the budget. `candidate_seconds`: what one candidate is
    expected to take (build + timing) before any was measured, e.g. from the defaults' timing."""
    options = options or TuneOptions()
    progress = progress or Progress()
    if budget is None:
        seconds = options.time_budget * 60 if options.time_budget else None
        budget = Budget(seconds) if started is None else Budget(seconds, start=started)
    clock = budget.clock
    start = budget.start
    path = pathlib.Path(records)
    report = TuneReport(str(path))
    target = host_target()
    old: list[Record] = []
    if drop_incomplete_line(path):
        report.problems.append(f"{path}: removed an incomplete last line (a run killed mid-write)")
    if path.exists():
        log = read_records(path)
        old, report.problems = log.records, report.problems + log.problems
    table_path = workload_table_path(path)
    table = read_workloads(table_path)
    by_workload = {t.workload: t for t in tasks}
    pool = ExamplePool(tasks[0].threads if tasks else 1, target)
    if options.tuner == "xgb":
        pool.add_records(old, by_workload, table)
        for prior in options.prior_records:
            _add_prior(pool, prior, by_workload, report)
    session = _Session(runner, path, old, pool, options, progress, candidate_seconds, clock)
    timed = [t for t in tasks if t.default_ms is not None]
    all_shares = [t.weight * (t.default_ms or 0.0) for t in timed]
    deadline_all = budget.deadline
    if deadline_all is None:
        plan = plan_tasks(math.inf, all_shares, min_seconds=0.0, negligible=0.0)
    else:
        least = max(MIN_TASK_SECONDS, (CONFIRMING + MIN_BATCH) * candidate_seconds)
        plan = plan_tasks(budget.left(), all_shares, min_seconds=least)
    for reason, indices in (("negligible", plan.negligible), ("no time", plan.no_time)):
        report.skipped += [
            SkippedTask(timed[i], reason, plan.share([i], all_shares)) for i in indices
        ]
    tunable = [timed[i] for i in sorted(plan.tuned)]  # in the given order (largest first)
    shares = [t.weight * (t.default_ms or 0.0) for t in tunable]
    for i, task in enumerate(tunable):
        if task.workload not in table:
            append_workload(table_path, task.workload, task.kernel, task.ir)
            table[task.workload] = (task.kernel, task.ir)
        deadline = None
        if deadline_all is not None:
            deadline = clock() + allot(deadline_all - clock(), shares[i:])
        report.tasks.append(session.tune_task(task, i, len(tunable), deadline))
    report.seconds = clock() - start
    return report


def allot(seconds_left: float, shares: Sequence[float]) -> float:
    """Seconds for the first of `shares` (the tasks not tuned yet): the time left in proportion
    to its share of theirs. Time a task leaves unused is thereby spread over the later ones."""
    rest = sum(shares)
    return max(seconds_left, 0.0) * shares[0] / rest if rest > 0 else 0.0


def _add_prior(pool: ExamplePool, prior: str, tasks: dict[str, Task], report: TuneReport) -> None:
    try:
        log = read_records(prior)
    except RecordError as e:
        raise MlcError(f"prior records: {e}") from None
    report.problems += log.problems
    added = pool.add_records(log.records, tasks, read_workloads(workload_table_path(prior)))
    _log.info("%d records of %s warm-start the cost model", added, prior)


@dataclass
class _Session:
    """What every task of one `tune` call shares."""

    runner: Runner
    path: pathlib.Path
    old: list[Record]
    pool: ExamplePool
    options: TuneOptions
    progress: Progress
    per_candidate: float = 0.0
    """Seconds a candidate took (build + timing) in the tasks tuned so far: batches are cut to
    what fits before a task's deadline, the final check of its best points (`CONFIRMING`
    candidates) is reserved out of it, and a task whose share cannot hold both is not started."""
    clock: Clock = monotonic

    def tune_task(self, task: Task, index: int, count: int, deadline: float | None) -> TaskReport:
        start = self.clock()
        options = self.options
        report = TaskReport(task)
        mine = matching(self.old, task, host_target())
        write = self.writer(task, remeasured=False)
        if not any(r.default for r in mine):
            assert task.default_ms is not None
            write(
                Candidate.of(task, task.default_index),
                MeasureResult(costs=(task.default_ms / 1e3,), timestamp=time.time()),
            )
        history = measured_points(mine, task)
        report.resumed = len({i for i, _ in history if i != task.default_index})
        extra: dict[str, object] = {}
        if options.tuner == "xgb":
            extra["history"] = self.pool.others(task.workload, task.block)
        tuner = create_tuner(options.tuner, task, seed=options.seed, **extra)
        tuner.load_history([(task.default_index, (task.default_ms or math.inf) / 1e3)] + history)
        n_trial = max(0, options.trials - report.resumed)
        self.progress.start(task, index, count, n_trial)
        left = math.inf if deadline is None else deadline - self.clock()
        if left < max(MIN_TASK_SECONDS, (CONFIRMING + MIN_BATCH) * self.per_candidate):
            report.stopped = "no time left"
        elif len(task.space) <= 1:
            report.stopped = "nothing to tune"
        else:
            tuner.tune(
                self.runner,
                n_trial=n_trial,
                batch_size=options.batch_size,
                early_stopping=options.early_stopping,
                deadline=deadline,
                on_result=write,
                callbacks=[self.progress.update],
                candidate_seconds=self.per_candidate,
                reserve=CONFIRMING,
                clock=self.clock,
            )
            report.stopped = _why(tuner, options, n_trial, deadline, self.clock)
            if tuner.trials:
                write = self.writer(task, remeasured=True)
                _confirm(task, tuner, self.runner, write, deadline, self.clock)
                measured = tuner.trials + CONFIRMING
                spent = (self.clock() - start) / measured
                self.per_candidate = (
                    spent if not self.per_candidate else (0.7 * self.per_candidate + 0.3 * spent)
                )
        report.default_ms = tuner.costs[task.default_index] * 1e3
        report.trials = tuner.trials
        report.errors = tuner.errors
        if tuner.best_index is not None and math.isfinite(tuner.best_cost):
            report.best_ms = tuner.best_cost * 1e3
            report.best_schedule = task.schedule_text(tuner.best_index)
        report.seconds = self.clock() - start
        self.progress.finish(report)
        return report

    def writer(self, task: Task, *, remeasured: bool) -> Callable[[Candidate, MeasureResult], None]:
        """Appends the record of each measured candidate (and feeds the example pool)."""
        target = target_dict(host_target())
        options = self.options

        def write(cand: Candidate, result: MeasureResult) -> None:
            record = Record(
                workload=task.workload,
                block=task.block,
                schedule=cand.schedule,
                cost_ms=result.cost * 1e3 if result.ok else None,
                kernel=task.kernel,
                config=dict(cand.config),
                costs_ms=tuple(c * 1e3 for c in result.costs),
                reference_ms=tuple(c * 1e3 for c in result.reference_costs),
                error=result.error,
                default=cand.index == task.default_index,
                remeasured=remeasured,
                target=target if result.target is None else target_dict(result.target),
                threads=task.threads,
                pipeline=task.pipeline,
                mlc_version=__version__,
                tuner=options.tuner,
                sizes=dict(task.sizes),
                seed=options.seed,
                timestamp=result.timestamp or time.time(),
            )
            append_records(self.path, [record])
            if options.tuner == "xgb":
                self.pool.add(task.facts, record, task.space.schedule(cand.index))

        return write


CONFIRM = 3
"""The best points of a task are timed once more, next to the default, when its search ends."""
UNSTEADY_DRIFT = 1.3
"""A task whose default confirmed this many times slower (or faster) than at extraction was
timed on a disturbed machine: its row says so, as its speedup is not evidence (on Zen 4 a
0.49 ms default confirmed at 0.93 ms and the table claimed 1.89x)."""
CONFIRM_PASSES = 2
"""Each confirmation times its points this many times, in turn, and keeps the slowest: on Zen 4
one paired measurement of a ResNet-50 conv against its default read 1.01, 1.07 and 1.32x in
three tries, and the tuned model ran no faster than the default."""
CONFIRMING = (CONFIRM + 1) * CONFIRM_PASSES
"""Candidates the final check measures (the time reserved for it)."""
RECONFIRM = 2
"""Further single confirmations when a point only the search measured is faster than the
confirmed ones (it does not win unconfirmed)."""


def _confirm(
    task: Task,
    tuner: Tuner,
    runner: Runner,
    write: Callable[[Candidate, MeasureResult], None],
    deadline: float | None = None,
    clock: Clock = monotonic,
) -> None:
    """Time the best few points and the default again, side by side; the new measurement
    replaces the search's (`Tuner.remeasured`: the search's fastest is biased low), as it does
    for `tp-apply-records` (`records.best_records`), and the best is the fastest confirmed
    point. When the points confirmed fall behind one that was not, that one is confirmed in
    turn, at most RECONFIRM times, and not past `deadline` (the first check is the time the
    search reserved; further ones only fit in what it left over). Each point is timed
    CONFIRM_PASSES times and its slowest measurement stands (`records.settle` does the same
    with the records)."""
    ranked = sorted((i for i in tuner.costs if math.isfinite(tuner.costs[i])), key=tuner.costs.get)
    picks = [i for i in ranked if i != task.default_index][:CONFIRM] + [task.default_index]
    if len(picks) < 2:
        return
    for attempt in range(RECONFIRM + 1):
        if attempt and deadline is not None and clock() >= deadline:
            return
        results: list[MeasureResult | None] = [None] * len(picks)
        for _ in range(CONFIRM_PASSES):
            got = runner.measure(task, [Candidate.of(task, i) for i in picks], on_result=write)
            results = [_slower(a, b) for a, b in zip(results, got)]
        done = [(i, r) for i, r in zip(picks, results) if r is not None]
        tuner.remeasured([i for i, _ in done], [r for _, r in done])
        following = tuner.fastest_unconfirmed()
        if following is None or len(done) < len(picks):
            return
        picks = [following]


def _slower(a: MeasureResult | None, b: MeasureResult | None) -> MeasureResult | None:
    """The slower of two measurements of a point (an error is slowest; None: not measured)."""
    if a is None or b is None:
        return a if b is None else b
    return a if a.cost >= b.cost else b


def _why(
    tuner: Tuner, options: TuneOptions, n_trial: int, deadline: float | None, clock: Clock
) -> str:
    if tuner.converged:
        return "space exhausted"
    if options.early_stopping is not None and tuner.since_best() >= options.early_stopping:
        return "early stopping"
    if tuner.trials >= n_trial:
        return "trials"
    if deadline is not None and clock() >= deadline:
        return "time budget"
    return "no new candidates"
