"""The search strategies on a recorded measurement log (tests/tuner/data: every point of the
space of squeezenet's first conv, one thread, measured by tools/record_tuning_log.py):
replayed, so the comparison is deterministic. xgb reaches one of the three fastest points in
fewer trials than random search; every tuner proposes each point once; the time budget is
split by latency share."""

from __future__ import annotations

import dataclasses
import math
import pathlib
import time
from collections.abc import Sequence

import numpy as np
import pytest
from mlir import ir

import mlc
from mlc.contract import TargetInfo
from mlc.dialects.tp import BlockView, Schedule
from mlc.dialects.walk import walk
from mlc.target import host_target
from mlc.tuner.facts import BlockFacts
from mlc.tuner.features import LENGTH
from mlc.tuner.history import ExamplePool
from mlc.tuner.records import (
    Record,
    best_records,
    load_records,
    read_workloads,
    target_dict,
    workload_table_path,
)
from mlc.tuner.runner import Candidate, MeasureResult, OnResult, Runner
from mlc.tuner.space import ConfigSpace, Constraint, Draft, Knob
from mlc.tuner.task import Task
from mlc.tuner.tune import TuneOptions, allot, tune
from mlc.tuner.tuners import TUNERS, create_tuner
from mlc.tuner.tuners.xgb import XGBTuner

LOG = pathlib.Path(__file__).parent / "data" / "squeezenet_conv1.jsonl"
TOP = 3  # "reaching the best": reaching a point as fast as the third fastest of the log


def _key(config: dict[str, object]) -> tuple[tuple[str, object], ...]:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in config.items()))


def replay_task() -> tuple[Task, dict[int, float]]:
    """A task whose space is exactly the recorded points (so the test does not depend on how
    knob spaces evolve), and the recorded seconds per call of each point."""
    records = [r for r in load_records(LOG) if r.ok]
    costs: dict[tuple, float] = {}
    schedules: dict[tuple, str] = {}
    for r in records:
        k = _key(r.config)
        costs[k] = min(costs.get(k, math.inf), r.cost_ms / 1e3)  # type: ignore[operator]
        schedules[k] = r.schedule
    default = next(r for r in records if r.default)
    names = sorted(default.config)
    values = {n: sorted({dict(k)[n] for k in costs}, key=repr) for n in names}
    ctx = mlc.Context()
    with ctx:
        parsed = {k: Schedule.from_attr(ir.Attribute.parse(s)) for k, s in schedules.items()}

    def template(draft: Draft) -> Schedule:
        return parsed[_key(draft.values)]

    def recorded(cols) -> np.ndarray:  # type: ignore[no-untyped-def]
        rows = np.stack([cols.map(n, values[n].index) for n in names], axis=1).astype(int)
        known = {tuple(values[n].index(dict(k)[n]) for n in names) for k in costs}
        return np.array([tuple(r) in known for r in rows.tolist()])

    knobs = [
        Knob(n, tuple(values[n]), _key(default.config)[i][1], _noop) for i, n in enumerate(names)
    ]
    space = ConfigSpace(knobs, [Constraint("recorded", tuple(names), recorded)], template)
    facts = _facts(default, ctx)
    task = Task(default.workload, default.kernel, default.block, "", 1, space, facts)
    by_index = {i: costs[_key(space.get(i))] for i in range(len(space))}
    return task, by_index


def _noop(draft: Draft, value: object) -> None:
    pass


def _facts(record: Record, ctx: ir.Context) -> BlockFacts:
    _, text = read_workloads(workload_table_path(LOG))[record.workload]
    module = ir.Module.parse(text, ctx)
    target = TargetInfo(
        record.target["triple"], record.target["cpu"], tuple(record.target["features"])
    )
    view = next(
        BlockView(op) for op in walk(module.operation)
        if op.name == "tp.block" and BlockView(op).name == record.block
    )  # fmt: skip
    facts = BlockFacts.of(view, view.schedule, 1, target)
    facts.__dict__["_module"] = module  # keep the IR the facts came from alive
    return facts


class ReplayRunner(Runner):
    def __init__(self, costs: dict[int, float]) -> None:
        self.costs = costs

    def measure(
        self,
        task: Task,
        candidates: Sequence[Candidate],
        *,
        on_result: OnResult | None = None,
        deadline: float | None = None,
    ) -> list[MeasureResult | None]:
        return [MeasureResult(costs=(self.costs[c.index],)) for c in candidates]


@pytest.fixture(scope="module")
def replay() -> tuple[Task, dict[int, float]]:
    return replay_task()


def trials_to_near_best(kind: str, seed: int, task: Task, costs: dict[int, float]) -> int:
    target = sorted(costs.values())[TOP - 1]
    tuner = create_tuner(kind, task, seed=seed)
    tuner.load_history([(task.space.default_index, costs[task.space.default_index])])
    runner = ReplayRunner(costs)
    while tuner.best_cost > target and tuner.has_next():
        tuner.tune(runner, n_trial=8, batch_size=8)
    return tuner.trials


def test_the_log_is_a_whole_space(replay: tuple[Task, dict[int, float]]) -> None:
    task, costs = replay
    assert len(task.space) == len(costs) >= 250
    ordered = sorted(costs.values())
    assert ordered[-1] > 2 * ordered[0]  # schedules matter: the slowest takes twice as long


def test_xgb_reaches_the_best_in_fewer_trials_than_random(
    replay: tuple[Task, dict[int, float]],
) -> None:
    pytest.importorskip("xgboost")
    task, costs = replay
    seeds = range(8)
    xgb = [trials_to_near_best("xgb", s, task, costs) for s in seeds]
    rand = [trials_to_near_best("random", s, task, costs) for s in seeds]
    print(f"trials to reach a top-{TOP} point: xgb {xgb}, random {rand}")
    assert np.mean(xgb) < 0.6 * np.mean(rand), (xgb, rand)
    assert xgb == [trials_to_near_best("xgb", s, task, costs) for s in seeds]  # deterministic


@pytest.mark.parametrize("kind", TUNERS)
def test_every_tuner_proposes_each_point_once(
    kind: str, replay: tuple[Task, dict[int, float]]
) -> None:
    if kind == "xgb":
        pytest.importorskip("xgboost")
    task, costs = replay
    tuner = create_tuner(kind, task, seed=1)
    runner = ReplayRunner(costs)
    seen: list[int] = []
    for _ in range(6):
        batch = tuner.next_batch(8)
        assert len(batch) == 8 and not set(batch) & set(seen) and len(set(batch)) == 8
        seen += batch
        tuner.update(batch, runner.measure(task, [Candidate(i, "", {}) for i in batch]))  # type: ignore[arg-type]
    assert tuner.trials == 48 and tuner.best_cost == min(costs[i] for i in seen)


def test_time_budget_follows_latency_shares() -> None:
    # 60 s over shares 3:1: the first task gets 45 s; if it used only 15 s, the second gets
    # all that is left (the unused time moves on), not its original 15 s
    assert allot(60.0, [3.0, 1.0]) == 45.0
    assert allot(45.0, [1.0]) == 45.0
    assert allot(-1.0, [1.0]) == 0.0 and allot(10.0, [0.0]) == 0.0


class Clock:
    """time.monotonic for a test: only the runner moves it (deterministic, no real waiting)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class SlowRunner(ReplayRunner):
    """Every candidate takes `seconds` of the clock (as a build plus a timing would)."""

    def __init__(self, costs: dict[int, float], seconds: float, clock: Clock) -> None:
        super().__init__(costs)
        self.seconds, self.clock = seconds, clock

    def measure(self, task, candidates, *, on_result=None, deadline=None):  # type: ignore[no-untyped-def]
        self.clock.now += self.seconds * len(candidates)
        return super().measure(task, candidates)


def test_many_tasks_end_within_the_time_budget(
    replay: tuple[Task, dict[int, float]], tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """40 tasks, 0.1 s per candidate, a 6 s budget, 1 s of it spent extracting before `tune`:
    the run ends on time. Before batches were cut to the deadline and the final check of a
    task's best points was reserved, a task with a few seconds left ran a whole batch and its
    check past them (7.1 s when this ran on the real clock against the old code)."""
    task, costs = replay
    clock = Clock()
    monkeypatch.setattr(time, "monotonic", clock)
    tasks = [
        dataclasses.replace(task, workload=f"{task.workload}-{i}", default_ms=1.0)
        for i in range(40)
    ]
    started = clock.now
    clock.now += 1.0
    options = TuneOptions(tuner="random", time_budget=0.1)
    report = tune(
        tasks, SlowRunner(costs, 0.1, clock), tmp_path / "r.jsonl", options, started=started
    )
    assert 5.5 <= clock.now - started <= 6.0, clock.now - started
    tuned = [t for t in report.tasks if t.trials]
    assert 0 < len(tuned) < len(tasks) and all(t.stopped for t in report.tasks)


def test_records_of_another_run_warm_start_the_cost_model(
    replay: tuple[Task, dict[int, float]],
) -> None:
    """Transfer learning: records read back with their workload table become training examples
    (features from the kernel's IR), and a tuner given them proposes from the model at once."""
    pytest.importorskip("xgboost")
    task, costs = replay
    records = load_records(LOG)
    pool = ExamplePool(1, _target(records[0]))
    added = pool.add_records(records, {}, read_workloads(workload_table_path(LOG)))
    assert added == len(records) and len({e[2] for e in pool.examples}) == 1
    assert all(len(e[0]) == LENGTH for e in pool.examples)
    target = sorted(costs.values())[TOP - 1]
    cold, warm = [], []
    for seed in range(4):
        for history, out in (([], cold), (pool.examples, warm)):
            tuner = XGBTuner(task, seed=seed, history=history)
            tuner.load_history([(task.space.default_index, costs[task.space.default_index])])
            assert tuner.model.trained == bool(history)
            while tuner.best_cost > target:
                tuner.tune(ReplayRunner(costs), n_trial=8, batch_size=8)
            out.append(tuner.trials)
    assert max(warm) <= 8 and np.mean(warm) < np.mean(cold), (warm, cold)


def _target(record: Record) -> TargetInfo:
    t = record.target
    return TargetInfo(t["triple"], t["cpu"], tuple(t["features"]))


class LuckyRunner(ReplayRunner):
    """Each `lucky` point measures 1 ns the first time (a measurement that hit a quiet moment,
    or a disturbed reference) and 1 s after that."""

    def __init__(self, costs: dict[int, float], lucky: Sequence[int]) -> None:
        super().__init__(costs)
        self.first = set(lucky)
        self.lucky = set(lucky)

    def measure(self, task, candidates, *, on_result=None, deadline=None):  # type: ignore[no-untyped-def]
        out = []
        for c in candidates:
            cost = self.costs[c.index]
            if c.index in self.lucky:
                cost = 1e-9 if c.index in self.first else 1.0
                self.first.discard(c.index)
            result = MeasureResult(costs=(cost,))
            out.append(result)
            if on_result is not None:
                on_result(c, result)
        return out


def test_confirmation_replaces_a_lucky_measurement(
    replay: tuple[Task, dict[int, float]], tmp_path: pathlib.Path
) -> None:
    """Four points measure fast once and slow after: the final check times the best three
    again (twice), then the fourth (now ahead), then the real best; the tuner and the records settle
    on the real best, never on a point whose only fast measurement was the first."""
    task, costs = replay
    task = dataclasses.replace(task, default_ms=costs[task.default_index] * 1e3)
    order = [i for i in range(len(task.space)) if i != task.default_index]
    lucky = order[:4]
    real = min((i for i in order[:24] if i not in lucky), key=costs.get)
    path = tmp_path / "r.jsonl"
    report = tune(
        [task], LuckyRunner(costs, lucky), path, TuneOptions(tuner="gridsearch", trials=24)
    )
    (result,) = report.tasks
    assert result.best_ms == pytest.approx(min(costs[real], costs[task.default_index]) * 1e3)
    records = load_records(path)
    again = [task.space.index_of(r.config) for r in records if r.remeasured]
    then = [real] if costs[real] < costs[task.default_index] else []  # else the default wins
    first = [*lucky[:3], task.default_index]  # each confirmation times its points twice
    assert again == [*first, *first, lucky[3], lucky[3], *then, *then]
    (best,) = best_records(records).values()
    assert task.space.index_of(best.config) in (real, task.default_index)
    assert best.cost_ms == pytest.approx(result.best_ms)


def test_more_lucky_points_than_confirmations_do_not_win(
    replay: tuple[Task, dict[int, float]], tmp_path: pathlib.Path
) -> None:
    """Six points measure fast once: the final check confirms five (three, then two more one
    by one) and the sixth stays a single lucky sample; neither the tuner nor the records pick
    it (before: the last unconfirmed point won, and the task table claimed its speedup)."""
    task, costs = replay
    task = dataclasses.replace(task, default_ms=costs[task.default_index] * 1e3)
    order = [i for i in range(len(task.space)) if i != task.default_index]
    lucky = order[:6]
    path = tmp_path / "r.jsonl"
    report = tune(
        [task], LuckyRunner(costs, lucky), path, TuneOptions(tuner="gridsearch", trials=12)
    )
    (result,) = report.tasks
    records = load_records(path)
    confirmed = {task.space.index_of(r.config) for r in records if r.remeasured}
    assert lucky[5] not in confirmed and set(lucky[:5]) <= confirmed
    assert result.best_ms is not None and result.best_ms > 1e-3  # not the 1 ns sample
    (best,) = best_records(records).values()
    assert best.remeasured and best.cost_ms == pytest.approx(result.best_ms)


class TwiceLuckyRunner(LuckyRunner):
    """The `lucky` points measure 1 ns twice (the search and the first confirmation), 1 s after."""

    def __init__(self, costs: dict[int, float], lucky: Sequence[int]) -> None:
        super().__init__(costs, lucky)
        self.seen: dict[int, int] = {}

    def measure(self, task, candidates, *, on_result=None, deadline=None):  # type: ignore[no-untyped-def]
        for c in candidates:
            self.seen[c.index] = self.seen.get(c.index, 0) + 1
            if self.seen[c.index] == 2 and c.index in self.lucky:
                self.first.add(c.index)  # lucky once more
        return super().measure(task, candidates, on_result=on_result, deadline=deadline)


def test_a_point_lucky_in_one_confirmation_is_not_best(
    replay: tuple[Task, dict[int, float]], tmp_path: pathlib.Path
) -> None:
    """Confirmations time each point twice and the slower stands: a point lucky in the search
    and in one confirmation (a burst that slowed the default's samples) does not win."""
    task, costs = replay
    task = dataclasses.replace(task, default_ms=costs[task.default_index] * 1e3)
    order = [i for i in range(len(task.space)) if i != task.default_index]
    path = tmp_path / "r.jsonl"
    report = tune(
        [task], TwiceLuckyRunner(costs, order[:1]), path, TuneOptions(tuner="gridsearch", trials=8)
    )
    (result,) = report.tasks
    assert result.best_ms is not None and result.best_ms > 1e-3
    (best,) = best_records(load_records(path)).values()
    assert task.space.index_of(best.config) != order[0]


class DisturbedRunner(ReplayRunner):
    """The default measures 2x slower after its first measurement (the extraction's)."""

    def __init__(self, costs: dict[int, float], default: int) -> None:
        super().__init__(costs)
        self.default, self.times = default, 0

    def measure(self, task, candidates, *, on_result=None, deadline=None):  # type: ignore[no-untyped-def]
        out = []
        for c in candidates:
            cost = self.costs[c.index]
            if c.index == self.default:
                self.times += 1
                cost *= 2.0 if self.times > 1 else 1.0
            out.append(MeasureResult(costs=(cost,)))
            if on_result is not None:
                on_result(c, out[-1])
        return out


def test_a_task_whose_default_drifted_is_marked_unsteady(
    replay: tuple[Task, dict[int, float]], tmp_path: pathlib.Path
) -> None:
    task, costs = replay
    runner = DisturbedRunner(costs, task.default_index)
    (task,) = runner.measure_defaults([task])
    report = tune([task], runner, tmp_path / "r.jsonl", TuneOptions(tuner="random", trials=6))
    (result,) = report.tasks
    assert result.unsteady and result.default_drift == pytest.approx(2.0)
    assert result.status == f"{result.stopped}; unsteady: default re-timed at 2.00x"
    calm = tune(
        [task], ReplayRunner(costs), tmp_path / "s.jsonl", TuneOptions(tuner="random", trials=6)
    )
    assert not calm.tasks[0].unsteady and calm.tasks[0].status == calm.tasks[0].stopped


def test_remeasured_records_stand_for_their_schedule() -> None:
    here = target_dict(host_target())
    records = [
        Record("w", "b", "{a}", 0.1, target=here),  # the search's lucky measurement of a
        Record("w", "b", "{b}", 0.5, target=here, remeasured=True),
        Record("w", "b", "{a}", 0.9, target=here, remeasured=True),
        Record("w", "b", "{a}", 0.05, target=here),  # a resumed run measured a again: ignored
        Record("w", "b", "{c}", 0.3, target=here),
        Record("w", "b", "{c}", None, target=here, remeasured=True, error="run: crashed"),
    ]
    assert best_records(records)[("w", "b")].schedule == "{b}"
    # a schedule confirmed twice stands at its slower confirmation
    once = [*records, Record("w", "b", "{d}", 0.2, target=here, remeasured=True)]
    assert best_records(once)[("w", "b")].schedule == "{d}"
    twice = [*records, Record("w", "b", "{d}", 0.7, target=here, remeasured=True), once[-1]]
    assert best_records(twice)[("w", "b")].schedule == "{b}"


def test_a_schedule_only_the_search_measured_never_beats_a_confirmed_one() -> None:
    """Confirmed records (the default and the search's best, timed again) decide; a search
    measurement wins only where nothing of the block was confirmed (records of old runs)."""
    here = target_dict(host_target())
    records = [
        Record("w", "b", "{default}", 1.0, target=here, default=True),
        Record("w", "b", "{lucky}", 0.6, target=here),
        Record("w", "b", "{x}", 0.8, target=here),
        Record("w", "b", "{x}", 0.95, target=here, remeasured=True),
        Record("w", "b", "{default}", 1.0, target=here, default=True, remeasured=True),
        Record("v", "b", "{only}", 0.7, target=here),
        Record("v", "b", "{slower}", 0.9, target=here),
    ]
    best = best_records(records)
    assert best[("w", "b")].schedule == "{x}" and best[("w", "b")].cost_ms == 0.95
    assert best[("v", "b")].schedule == "{only}"
