"""Isolated measurement: candidates that segfault, abort, hang or compute the wrong output are
error records and the tuning goes on; builds that fail are error records too."""

from __future__ import annotations

import pathlib
import statistics
import subprocess
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from helpers.onnx_testing import import_model
from helpers.tuner_models import dense_net
from mlc.contract import Manifest
from mlc.runtime import embedded
from mlc.runtime.linker import c_compiler
from mlc.tuner.measure import MeasureOptions, before_sample, compare, warm_inputs
from mlc.tuner.records import load_records
from mlc.tuner.runner import Candidate, LocalRunner, MeasureResult
from mlc.tuner.task import Task, extract_tasks
from mlc.tuner.tune import TuneOptions, tune

BODIES = {
    "segfault": "*(volatile int *)0 = 1;",
    "abort": "abort();",
    "hang": 'for (;;) { __asm__ volatile(""); }',
    "nothing": "",  # leaves the output as it is: a wrong output
}


def fake_library(kind: str, manifest: Manifest, out: pathlib.Path) -> None:
    """A shared library with the harness's entry whose body misbehaves as `kind` says, sealed
    with the candidate's manifest as mlc seals its libraries (so loading it passes the checks
    and the fault happens when the entry runs)."""
    n = len(manifest.inputs) + len(manifest.outputs) + 2
    params = ", ".join(f"void *a{i}" for i in range(n))
    record = embedded.MAGIC + bytes(32) + manifest.to_json().encode()
    data = ", ".join(str(b) for b in record)
    source = out.with_suffix(".c")
    source.write_text(
        f"#include <stdlib.h>\n"
        f"const unsigned char {embedded.record_symbol(manifest.entry)}[] = {{{data}}};\n"
        f"void _mlir_ciface_{manifest.entry}({params}) {{ {BODIES[kind]} }}\n"
    )
    subprocess.run(
        [c_compiler(), "-shared", "-fPIC", "-O0", "-o", str(out), str(source)], check=True
    )
    embedded.seal(out)


class FaultyRunner(LocalRunner):
    """Builds as usual, then swaps some candidates' libraries for misbehaving ones."""

    def __init__(self, faults: dict[int, str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.faults = faults

    def build(self, work: Sequence[tuple[Task, Candidate]]) -> list[dict[str, Any]]:
        built = super().build(work)
        for (_, cand), reply in zip(work, built):
            if cand.index in self.faults and "so" in reply:
                manifest = Manifest.from_json(reply["manifest"])
                fake_library(self.faults[cand.index], manifest, pathlib.Path(reply["so"]))
        return built


@pytest.fixture(scope="module")
def dense_task() -> Task:
    module, params = import_model(dense_net())
    (task,) = extract_tasks(module, params, threads=1)
    assert len(task.space) > 12
    return task


def test_crashing_hanging_and_wrong_candidates_are_error_records(
    dense_task: Task, tmp_path: pathlib.Path
) -> None:
    # gridsearch proposes the points in index order, skipping the default
    order = [i for i in range(len(dense_task.space)) if i != dense_task.default_index]
    faults = {order[1]: "segfault", order[2]: "hang", order[3]: "nothing", order[4]: "abort"}
    options = MeasureOptions(timeout=3.0, parallel=2, repeat=1, min_repeat_ms=0)
    records = tmp_path / "r.jsonl"
    with FaultyRunner(faults, options=options) as runner:
        (task,) = runner.measure_defaults([dense_task])
        report = tune([task], runner, records, TuneOptions(tuner="gridsearch", trials=8))
    log = [r for r in load_records(records) if not r.remeasured]
    assert log[0].default and log[0].ok
    outcome = {task.space.index_of(r.config): r for r in log[1:]}
    assert list(outcome) == order[:8]  # measured in order: the faults did not stop the search
    assert "run: crashed with SIGSEGV" in outcome[order[1]].error
    assert "run: timed out after 3 s" in outcome[order[2]].error
    assert outcome[order[3]].error.startswith("wrong output: max |difference|")
    assert "run: crashed with SIGABRT" in outcome[order[4]].error
    for i in (order[0], *order[5:8]):
        assert outcome[i].ok and outcome[i].cost_ms > 0, outcome[i]
    for r in log[1:]:
        assert (r.cost_ms is None) == bool(r.error)
    # timed against the default even after the run worker restarted (it reloads the default)
    assert all(len(outcome[i].reference_ms) == 1 for i in (order[0], *order[5:8]))
    (result,) = report.tasks
    assert result.trials == 8 and result.errors == 4
    assert result.best_ms is not None and result.best_ms > 0


def test_a_failed_build_is_an_error_result(dense_task: Task) -> None:
    bad = Candidate(-1, "{tile = {nope = array<i64: 2>}}", {})
    good = Candidate.of(dense_task, 0)
    with LocalRunner(MeasureOptions(repeat=1, min_repeat_ms=0, parallel=1)) as runner:
        results = runner.measure(dense_task, [bad, good])
    assert results[0] is not None and results[0].error.startswith("build: schedule does not fit")
    assert "tile names unknown axis 'nope'" in results[0].error
    assert results[1] is not None and results[1].ok


@pytest.mark.parametrize("paired", [True, False])
def test_candidates_are_timed_in_pairs_with_the_default(dense_task: Task, paired: bool) -> None:
    index = next(i for i in range(len(dense_task.space)) if i != dense_task.default_index)
    options = MeasureOptions(repeat=4, min_repeat_ms=0, parallel=1, paired=paired)
    with LocalRunner(options) as runner:
        (task,) = runner.measure_defaults([dense_task])
        (result,) = runner.measure(task, [Candidate.of(task, index)])
    assert result is not None and result.ok and len(result.costs) == 4
    assert task.default_ms is not None and task.default_ms > 0
    if paired:
        assert len(result.reference_costs) == 4
        assert result.baseline == pytest.approx(task.default_ms / 1e3)
        ratios = np.array(result.costs) / np.array(result.reference_costs)
        paired_cost = result.baseline * float(np.median(ratios))
        if result.unsteady_reference:  # a disturbed host: the fastest sample bounds the cost
            paired_cost = max(paired_cost, min(result.costs))
        assert result.cost == pytest.approx(paired_cost)
    else:
        assert result.reference_costs == () and result.cost == min(result.costs)


def test_paired_cost_is_the_baseline_times_the_median_ratio() -> None:
    paired = MeasureResult(costs=(2.0, 2.4, 3.3), reference_costs=(1.0, 1.2, 1.1), baseline=0.5)
    assert paired.cost == pytest.approx(0.5 * 2.0)  # ratios 2, 2, 3
    assert MeasureResult(costs=(2.0, 4.0), reference_costs=(1.0, 2.0)).cost == 2.0  # no baseline
    uneven = MeasureResult(costs=(2.0, 4.0), reference_costs=(1.0,), baseline=0.5)
    assert uneven.cost == 2.0
    assert MeasureResult(error="run: crashed").cost == float("inf")


def test_paired_cost_distrusts_an_unsteady_default() -> None:
    # Recorded on the 2-core VM (ms): next to this serial candidate the 2-thread default ran
    # 0.7-10.7 ms (0.62 alone), and the median ratio made a 2-4 ms candidate 0.37 ms.
    costs = (3.03, 2.97, 4.45, 2.42, 2.54, 2.00, 2.16, 2.68, 2.79, 2.68)
    reference = (5.63, 4.59, 1.11, 1.10, 1.09, 5.36, 5.14, 5.74, 0.70, 10.66)
    result = MeasureResult(costs=costs, reference_costs=reference, baseline=0.62)
    assert result.unsteady_reference
    assert result.cost == min(costs)
    # a host slower for a while: the default's samples are slow but together; the pairs stand
    drift = MeasureResult(
        costs=(1.9, 2.0, 2.1, 2.0), reference_costs=(1.4, 1.5, 1.5, 1.6), baseline=1.0
    )
    assert not drift.unsteady_reference
    assert drift.cost == pytest.approx(
        statistics.median([1.9 / 1.4, 2.0 / 1.5, 2.1 / 1.5, 2.0 / 1.6])
    )
    # unsteady: the larger of the two estimates stands (here the pairs')
    paired = MeasureResult(costs=(0.5, 1.0, 0.6), reference_costs=(0.5, 1.0, 3.0), baseline=1.0)
    assert paired.unsteady_reference and paired.cost == pytest.approx(1.0)
    assert MeasureResult(costs=(1.0,), reference_costs=(1.0,), baseline=1.0).cost == 1.0


def test_compare_outputs() -> None:
    want = np.array([1.0, -2.0, np.nan, np.inf], dtype=np.float32)
    assert compare(want.copy(), want, 1e-3) == ""
    close = want.copy()
    close[1] += 1e-4
    assert compare(close, want, 1e-3) == ""
    far = want.copy()
    far[0] = 1.5
    assert "max |difference| 0.5" in compare(far, want, 1e-3)
    nan = want.copy()
    nan[0] = np.nan
    assert "NaN or infinity" in compare(nan, want, 1e-3)
    assert "2 of 3 elements differ" in compare(np.array([1, 5, 6]), np.array([1, 2, 3]), 0.0)
    assert "instead of" in compare(want[:2], want, 1e-3)


def test_cold_weights_flushes_then_reads_the_activations_again(dense_task: Task) -> None:
    """In cold-weights mode a task knows its constants (the weights and bias of MatMul + Add:
    inputs 1 and 2), each sample is one call after a flush, and the flush is followed by a
    read of the other inputs and the output of every module timed."""
    assert dense_task.constants == (1, 2)
    assert warm_inputs(3, dense_task.constants) == [0]

    class Module:
        def __init__(self) -> None:
            self.reads: list[str] = []

        def get_input(self, i: int) -> None:
            self.reads.append(f"in{i}")

        def get_output(self, i: int) -> None:
            self.reads.append(f"out{i}")

    class State:
        flushes = 0

        def flush_caches(self) -> None:
            self.flushes += 1

    state, modules = State(), [Module(), Module()]
    before = before_sample(state, modules, {"flush": False, "warm": [0, 3]})  # type: ignore[arg-type]
    assert before is not None
    before()
    assert state.flushes == 1 and all(m.reads == ["in0", "in3", "out0"] for m in modules)
    assert before_sample(state, modules, {"flush": False}) is None  # type: ignore[arg-type]
    options = MeasureOptions(repeat=3, number=4, min_repeat_ms=5, parallel=1, cold_weights=True)
    index = next(i for i in range(len(dense_task.space)) if i != dense_task.default_index)
    with LocalRunner(options) as runner:
        (task,) = runner.measure_defaults([dense_task])
        (result,) = runner.measure(task, [Candidate.of(task, index)])
    assert result is not None and result.ok and len(result.costs) == 3
    assert len(result.reference_costs) == 3


def test_the_timing_workers_openmp_threads_spin_across_a_cache_flush(
    monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path
) -> None:
    """A cold-weights sample flushes the caches (milliseconds) before its call; workers that
    slept by then made every 2-thread kernel pay a wake-up a deployed model never pays."""
    monkeypatch.delenv("KMP_BLOCKTIME", raising=False)
    with LocalRunner(MeasureOptions(parallel=1), workdir=str(tmp_path)) as runner:
        assert int(runner.timer.env["KMP_BLOCKTIME"]) >= 200
    monkeypatch.setenv("KMP_BLOCKTIME", "7")
    with LocalRunner(MeasureOptions(parallel=1), workdir=str(tmp_path / "user")) as runner:
        assert runner.timer.env["KMP_BLOCKTIME"] == "7"
