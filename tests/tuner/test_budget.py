"""The time budget of `mlc tune`: every phase is charged to it (graph knobs, default timings,
search), tasks of negligible share or without time for a search are skipped and reported. A
fake clock that only the fake runner and graph tuner move: deterministic, no real waiting."""

from __future__ import annotations

import json
import math
import pathlib
from collections.abc import Sequence
from typing import Any

import pytest

from helpers.tuner_models import conv_net, save
from mlc.commands.tune_cmd import report_dict, result_table
from mlc.graph_tuning import GraphTuneReport
from mlc.target import host_target
from mlc.tuner.budget import Budget, plan_tasks
from mlc.tuner.graph_knobs import default_config
from mlc.tuner.runner import Candidate, MeasureResult, OnResult, Runner
from mlc.tuner.task import Task
from mlc.tuner.tune import TuneOptions
from mlc.tuning import TuneModelOptions, tune_model


class Clock:
    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


def test_plan_takes_the_largest_shares_that_each_hold_a_search() -> None:
    shares = [0.6, 30.0, 3.0, 60.0, 6.4]  # 0.6 % is above the 0.5 % floor
    plan = plan_tasks(100.0, shares, min_seconds=10.0)
    # 60 -> 100 s; 30 -> 100 * 30/90 = 33 s; 6.4 -> 100 * 6.4/96.4 = 6.6 s < 10: stop there
    assert plan.tuned == (3, 1) and plan.no_time == (4, 2, 0) and plan.negligible == ()
    assert plan.share(plan.no_time, shares) == pytest.approx(0.1)
    plan = plan_tasks(100.0, [99.6, 0.4, 0.0], min_seconds=1.0)
    assert plan.tuned == (0,) and plan.negligible == (1, 2) and plan.no_time == ()
    everything = plan_tasks(math.inf, shares, min_seconds=10.0, negligible=0.0)
    assert everything.tuned == (3, 1, 4, 2, 0)


def test_budget_charges_phases_to_the_clock() -> None:
    clock = Clock()
    budget = Budget(100.0, clock=clock)
    with budget.phase("a"):
        clock.now += 30
    with budget.phase("a"):
        clock.now += 5
    assert budget.phases == {"a": 35.0} and budget.left() == 65.0
    assert budget.until(0.45) == 545.0 and budget.deadline == 600.0
    clock.now += 100
    assert budget.left() == 0.0
    assert Budget(None, clock=clock).left() == math.inf


class FakeRunner(Runner):
    """Each measured candidate (default or not) takes `seconds` of the fake clock; a task's
    default latency is its `latency_ms` by kernel name, candidates 10 % faster."""

    def __init__(self, clock: Clock, seconds: float, latency_ms: dict[str, float]) -> None:
        self.clock, self.seconds, self.latency_ms = clock, seconds, latency_ms

    def measure(
        self,
        task: Task,
        candidates: Sequence[Candidate],
        *,
        on_result: OnResult | None = None,
        deadline: float | None = None,
    ) -> list[MeasureResult | None]:
        out: list[MeasureResult | None] = []
        for cand in candidates:
            if deadline is not None and self.clock() > deadline:
                out.append(None)
                continue
            self.clock.now += self.seconds
            ms = self.latency_ms[task.kernel] * (1.0 if cand.index == task.default_index else 0.9)
            result = MeasureResult(costs=(ms / 1e3,), timestamp=self.clock.now)
            out.append(result)
            if on_result is not None:
                on_result(cand, result)
        return out


def _graph_phase(seconds: float, clock: Clock) -> Any:
    def fake(module: Any, params: Any, records: Any, **kwargs: Any) -> GraphTuneReport:
        deadline = kwargs["deadline"]
        assert deadline is not None and deadline - clock() <= 0.2 * 60 + 1e-9
        clock.now += seconds
        config = default_config(host_target())
        return GraphTuneReport("graph-test", config, config)

    return fake


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return save(conv_net(), tmp_path_factory.mktemp("budget"), "conv")


def _latencies(model: pathlib.Path) -> dict[str, float]:
    """Shares 90 %, 9 %, 0.6 %, 0.4 % for the conv net's four kernels, largest FLOPs first."""
    from mlc.frontend import from_onnx
    from mlc.tuner.task import extract_tasks

    module, params = from_onnx(model)
    names = [t.kernel for t in extract_tasks(module, params, threads=1)]
    return dict(zip(names, (0.90, 0.09, 0.006, 0.004)))


def test_tune_holds_its_budget_and_reports_what_it_skipped(
    model: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    """A 1-minute budget: the graph knobs take 10 s, each candidate 1 s. The defaults end at
    14 s; the 0.4 % task is negligible, and of the 46 s left a 9 % task would get 4 s, less
    than a search needs (10 candidates' time): only the 90 % task is searched, and the run
    ends within the budget (never past it by 10 %)."""
    clock = Clock()
    runner = FakeRunner(clock, 1.0, _latencies(model))
    start = clock.now
    report = tune_model(
        model,
        tmp_path / "r.jsonl",
        TuneModelOptions(tune=TuneOptions(tuner="random", time_budget=1.0), compare_rounds=0),
        runner=runner,
        clock=clock,
        tune_graph_knobs=_graph_phase(10.0, clock),
    )
    spent = clock.now - start
    assert 54.0 <= spent <= 66.0, spent
    assert report.budget is not None
    phases = report.budget.phases
    assert phases["graph knobs"] == 10.0 and phases["defaults"] == 4.0, phases
    assert sum(phases.values()) == pytest.approx(spent)
    (tuned,) = report.tuning.tasks
    assert tuned.trials > 0 and runner.latency_ms[tuned.task.kernel] == 0.90
    reasons = sorted((s.reason, round(s.share or 0, 3)) for s in report.tuning.skipped)
    assert reasons == [("negligible", 0.004), ("no time", 0.006), ("no time", 0.09)]
    summary = report.tuning.skipped_summary()
    assert "3 task(s) kept their default schedules untuned" in summary
    assert "1 negligible, 2 no time" in summary and "10.0 % of the timed model latency" in summary
    table = result_table(report, tmp_path / "r.jsonl")
    assert summary in table and "graph knobs: layout-block=" in table
    assert "(import " in table and "defaults 4 s, search " in table
    data = json.loads(json.dumps(report_dict(report, tmp_path / "r.jsonl")))
    assert data["skipped_share"] == pytest.approx(0.1) and len(data["skipped"]) == 3
    assert data["phase_seconds"]["graph knobs"] == 10.0


@pytest.mark.parametrize("graph_s, timed", [(20.0, 2), (30.0, 0)])
def test_defaults_stop_at_their_share_of_the_budget(
    model: pathlib.Path, tmp_path: pathlib.Path, graph_s: float, timed: int
) -> None:
    """Each default takes 5 s of a 60 s budget. After 20 s of graph knobs two defaults are timed
    by 45 % of the budget (27 s); after 30 s none. The other tasks are reported as not timed,
    and the run ends on time."""
    clock = Clock()
    runner = FakeRunner(clock, 5.0, _latencies(model))
    start = clock.now
    report = tune_model(
        model,
        tmp_path / "r.jsonl",
        TuneModelOptions(tune=TuneOptions(tuner="random", time_budget=1.0), compare_rounds=0),
        runner=runner,
        clock=clock,
        tune_graph_knobs=_graph_phase(graph_s, clock),
    )
    assert clock.now - start <= 66.0
    assert len(report.tasks) == timed
    untimed = [s for s in report.tuning.skipped if s.reason == "not timed"]
    assert len(untimed) == 4 - timed and all(s.share is None for s in untimed)
    assert f"{4 - timed} not timed" in report.tuning.skipped_summary()
