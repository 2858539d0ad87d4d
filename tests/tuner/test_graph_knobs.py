"""Graph-level knobs (layout block, Winograd): measured as whole models within their deadline,
recorded as JSON lines, and applied by `mlc compile --tuning-records`, whose output still
matches onnxruntime."""

from __future__ import annotations

import pathlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from helpers.onnx_testing import run_ort
from helpers.tuner_models import save, winograd_net
from mlc.driver import _main
from mlc.frontend import from_onnx
from mlc.graph_tuning import tune_graph
from mlc.runtime import GraphModule, load_module
from mlc.target import host_target
from mlc.tuner.graph_knobs import GRAPH_BLOCK, GraphConfig, graph_choice, graph_key, graph_space
from mlc.tuner.records import load_records

FASTEST = GraphConfig(16, 0)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _timer(costs: dict[GraphConfig, float], order: list[GraphConfig]) -> Any:
    def timer(models: Sequence[Any]) -> list[list[float]]:
        return [[costs[c]] * 4 for c in order[: len(models)]]

    return timer


def test_points_are_built_only_while_they_fit_the_deadline(tmp_path: pathlib.Path) -> None:
    """Each build takes 5 s of a 12 s deadline: mlc-default's point and one more are built and
    timed; the others are reported untried; the records say what was measured."""
    module, params = from_onnx(save(winograd_net(), tmp_path, "w"))
    clock = Clock()
    space = graph_space(host_target())
    built: list[GraphConfig] = []

    def build(config: GraphConfig) -> GraphConfig:
        clock.now += 5.0
        built.append(config)
        return config

    costs = {c: 1.0 + i for i, c in enumerate(space)}
    costs[space[1]] = 0.5
    records = tmp_path / "r.jsonl"
    report = tune_graph(
        module,
        params,
        records,
        deadline=clock.now + 12.0,
        clock=clock,
        build=build,
        run=lambda model: [np.zeros(3, np.float32)],
        timer=_timer(costs, space),
    )
    assert built == space[:2] and report.untried == space[2:]
    assert report.best == space[1] and report.speedup == pytest.approx(2.0)
    lines = load_records(records)
    assert [r.block for r in lines] == [GRAPH_BLOCK] * 2 and lines[0].default
    assert {r.workload for r in lines} == {graph_key(module)}
    assert "4 not tried (time budget)" in report.summary()

    # two builds expected to take 7 s each cannot finish in 12 s: nothing is built
    clock.now, built[:] = 100.0, []
    other = tmp_path / "other.jsonl"
    kwargs = dict(deadline=clock.now + 12.0, clock=clock, build=build, first_build_s=7.0)
    report = tune_graph(module, params, other, **kwargs)  # type: ignore[arg-type]
    assert built == [] and report.untried == space and report.best == space[0]
    assert not other.exists() and "no time to build the whole model twice" in report.summary()


def test_a_point_whose_output_differs_is_an_error_record(tmp_path: pathlib.Path) -> None:
    module, params = from_onnx(save(winograd_net(), tmp_path, "w"))
    space = graph_space(host_target())
    outputs = {c: np.ones(4, np.float32) for c in space}
    outputs[space[2]] = np.full(4, 1.5, np.float32)
    report = tune_graph(
        module,
        params,
        tmp_path / "r.jsonl",
        build=lambda c: c,
        run=lambda c: [outputs[c]],
        timer=_timer({c: 1.0 for c in space}, [c for c in space if c != space[2]]),
    )
    assert list(report.errors) == [space[2]] and "wrong output 0" in report.errors[space[2]]
    bad = [r for r in load_records(tmp_path / "r.jsonl") if not r.ok]
    assert len(bad) == 1 and bad[0].config == space[2].config()


def test_graph_knobs_round_trip_through_mlc_compile(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Real builds and runs of every point (outputs checked against mlc-default's), timings
    made to favour NCHW16c without Winograd; `mlc compile --tuning-records` then builds with
    that point, and its output matches onnxruntime. Another thread count ignores the record."""
    model = save(winograd_net(), tmp_path, "w")
    module, params = from_onnx(model)
    space = graph_space(host_target())
    assert FASTEST in space
    records = tmp_path / "r.jsonl"
    costs = {c: 2.0 for c in space}
    costs[FASTEST] = 1.0
    report = tune_graph(module, params, records, timer=_timer(costs, space))
    assert report.errors == {} and report.best == FASTEST
    choice = graph_choice(load_records(records), graph_key(module), host_target(), 1)
    assert choice is not None and choice[0] == FASTEST
    again = tune_graph(module, params, records)  # resumed: nothing measured again
    assert again.resumed and again.best == FASTEST

    x = np.random.default_rng(0).standard_normal((1, 32, 14, 14)).astype(np.float32)
    (want,) = run_ort(winograd_net(), {"x": x})
    # mlc-default names the options that differ from its defaults: none for threads=2
    for threads, knobs in (("1", ("layout-block=16", "winograd=0")), ("2", ())):
        package = tmp_path / f"t{threads}.tar"
        argv = ["compile", str(model), "-o", str(package), "--threads", threads]
        assert _main([*argv, "--tuning-records", str(records)]) == 0
        capsys.readouterr()
        lib = load_module(package)
        pipeline = lib.manifest.pipeline or ""
        assert all(k in pipeline for k in knobs), pipeline
        assert knobs or ("layout-block" not in pipeline and "winograd" not in pipeline), pipeline
        gm = GraphModule(lib)
        gm.run(x=x)
        np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-3, atol=1e-3)
