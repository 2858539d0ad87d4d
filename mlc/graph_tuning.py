"""Tune a model's graph-level knobs (layout block, Winograd; `mlc.tuner.graph_knobs`): each point
is the whole model built with them (so the layout transforms between kernels count), checked
against mlc-default's output, and timed beside the others in this process, sample by sample.

    report = tune_graph(module, params, "r.jsonl", threads=2, deadline=budget.until(0.2))
    report.best    # what `mlc tune` extracts its kernel tasks with

Every point measured is appended to the record file; `mlc compile --tuning-records` builds with
the fastest (`BuildOptions.graph_config`). A file already holding this model's graph records
(same target and threads) is not measured again. Under a deadline, a point is only built when
its build (as long as the builds so far) and the timing of every point built still fit.
"""

from __future__ import annotations

import pathlib
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from mlir import ir

from mlc.contract import TargetInfo
from mlc.errors import MlcError
from mlc.target import host_target
from mlc.tuner.budget import monotonic
from mlc.tuner.graph_knobs import (
    GRAPH_BLOCK,
    GraphConfig,
    default_config,
    graph_choice,
    graph_key,
    graph_space,
)
from mlc.tuner.records import Record, append_records, read_records, target_dict
from mlc.version import __version__

ROUNDS = 3
REPEAT = 5
"""Timed samples of each point per round (each after one untimed call: `lead_in`)."""
RTOL = 2e-3
"""Outputs of a point may differ from mlc-default's by this much (relative to the output's
largest magnitude): Winograd tiles reorder the sums."""

Build = Callable[[GraphConfig], Any]
"""Builds the model with a point's knobs, inputs set; returns what `Run` and `Time` take."""
Run = Callable[[Any], list[np.ndarray]]
"""Runs a built model once; its outputs."""
Time = Callable[[Sequence[Any]], list[list[float]]]
"""Times built models sample by sample in turn; seconds per call, one list per model."""


@dataclass
class GraphTuneReport:
    key: str
    default: GraphConfig
    best: GraphConfig
    costs_ms: dict[GraphConfig, float] = field(default_factory=dict)
    errors: dict[GraphConfig, str] = field(default_factory=dict)
    untried: list[GraphConfig] = field(default_factory=list)
    """Points left out: the deadline came first."""
    resumed: bool = False
    """The record file held this model's graph records already (nothing was measured)."""
    seconds: float = 0.0

    @property
    def speedup(self) -> float | None:
        d, b = self.costs_ms.get(self.default), self.costs_ms.get(self.best)
        return d / b if d and b else None

    def summary(self) -> str:
        if not self.costs_ms and not self.resumed:
            why = "no time to build the whole model twice"
            return f"graph knobs: {self.best.text()} (mlc-default's; {why})"
        if self.resumed:
            return f"graph knobs: {self.best.text()} (from the records already in the file)"
        gain = f", {self.speedup:.2f}x the default" if self.speedup else ""
        left = f"; {len(self.untried)} not tried (time budget)" if self.untried else ""
        errors = f"; {len(self.errors)} failed" if self.errors else ""
        return (
            f"graph knobs: {self.best.text()} ({len(self.costs_ms)} points timed as the whole "
            f"model{gain}{errors}{left}, {self.seconds:.0f} s)"
        )


def tune_graph(
    module: ir.Module,
    params: Mapping[str, np.ndarray],
    records: str | pathlib.Path,
    *,
    threads: int = 1,
    target: TargetInfo | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] = monotonic,
    build: Build | None = None,
    run: Run | None = None,
    timer: Time | None = None,
    first_build_s: float = 0.0,
) -> GraphTuneReport:
    """Measure the graph-level points of `module` (see the module docstring); `build`, `run`
    and `timer` replace the in-process compile, run and timing (tests). `first_build_s`: what
    one build is expected to take before any was made; when two (mlc-default's point and one
    more) cannot finish by `deadline`, nothing is measured and every point is untried."""
    target = target or host_target()
    start = clock()
    key = graph_key(module)
    default = default_config(target)
    path = pathlib.Path(records)
    if path.exists():
        held = graph_choice(read_records(path).records, key, target, threads)
        if held is not None:
            return GraphTuneReport(key, default, held[0], resumed=True)
    report = GraphTuneReport(key, default, default)
    if deadline is not None and clock() + 2 * first_build_s > deadline:
        report.untried = graph_space(target)
        return report
    build = build or _jit_builder(module, params, threads, target)
    run = run or _run
    timer = timer or _time
    built: list[tuple[GraphConfig, Any]] = []
    reference: list[np.ndarray] = []
    build_s: list[float] = []
    latency = 0.0
    for config in graph_space(target):
        if deadline is not None and built:
            timing = ROUNDS * REPEAT * 2 * (len(built) + 1) * latency
            if clock() + statistics.mean(build_s) + timing > deadline:
                report.untried.append(config)
                continue
        began = clock()
        try:
            model = build(config)
        except MlcError as e:
            if config == default:
                raise
            report.errors[config] = f"build: {e}"
            continue
        build_s.append(clock() - began)
        began = clock()
        outputs = run(model)
        if config == default:
            latency, reference = clock() - began, outputs
        else:
            problem = _mismatch(outputs, reference)
            if problem:
                report.errors[config] = problem
                continue
        built.append((config, model))
    samples = timer([m for _, m in built])
    base = samples[0]
    for (config, _), mine in zip(built, samples):
        ratios = [m / b for m, b in zip(mine, base) if b > 0]
        report.costs_ms[config] = 1e3 * statistics.median(base) * statistics.median(ratios)
    report.best = min(report.costs_ms, key=report.costs_ms.__getitem__)
    _write(path, report, [(c, s) for (c, _), s in zip(built, samples)], target, threads)
    report.seconds = clock() - start
    return report


def _write(
    path: pathlib.Path,
    report: GraphTuneReport,
    timed: list[tuple[GraphConfig, list[float]]],
    target: TargetInfo,
    threads: int,
) -> None:
    base = dict(
        workload=report.key,
        block=GRAPH_BLOCK,
        kernel="(graph)",
        target=target_dict(target),
        threads=threads,
        mlc_version=__version__,
        tuner="graph",
        timestamp=time.time(),
    )
    lines = [
        Record(
            schedule=c.text(),
            cost_ms=report.costs_ms[c],
            config=c.config(),
            costs_ms=tuple(1e3 * s for s in samples),
            default=c == report.default,
            **base,  # type: ignore[arg-type]
        )
        for c, samples in timed
    ]
    lines += [
        Record(schedule=c.text(), cost_ms=None, config=c.config(), error=e, **base)  # type: ignore[arg-type]
        for c, e in report.errors.items()
    ]
    append_records(path, lines)


def _mismatch(outputs: list[np.ndarray], reference: list[np.ndarray]) -> str:
    for i, (got, want) in enumerate(zip(outputs, reference)):
        scale = float(np.max(np.abs(want))) if want.size else 0.0
        if got.dtype.kind == "f" and want.dtype.kind == "f":
            error = float(np.max(np.abs(got - want))) if want.size else 0.0
            if error > RTOL * max(scale, 1e-6):
                return f"wrong output {i}: off mlc-default's by {error:.3g} (max {scale:.3g})"
        elif not np.array_equal(got, want):
            return f"wrong output {i}: differs from mlc-default's"
    return ""


def _jit_builder(
    module: ir.Module, params: Mapping[str, np.ndarray], threads: int, target: TargetInfo
) -> Build:
    from mlc.compiler import BuildOptions, build
    from mlc.passes.mlc_default import MlcDefaultPipeline
    from mlc.runtime import GraphModule

    def make(config: GraphConfig) -> Any:
        pipeline = MlcDefaultPipeline.for_target(
            target, threads=threads, layout_block=config.layout_block, winograd=config.winograd
        )
        options = BuildOptions(pipeline=f"builtin.module({pipeline})")
        gm = GraphModule(build(module, params, options=options, diagnostics=[]).jit())
        rng = np.random.default_rng(0)
        for spec in gm.manifest.inputs:
            kind = np.dtype(spec.dtype).kind
            value = rng.standard_normal(spec.shape) if kind == "f" else np.zeros(spec.shape)
            gm.set_input(spec.name, value.astype(spec.dtype))
        return gm

    return make


def _run(gm: Any) -> list[np.ndarray]:
    gm.run()
    return [np.array(gm.get_output(i)) for i in range(gm.get_num_outputs())]


def _time(models: Sequence[Any]) -> list[list[float]]:
    samples: list[list[float]] = [[] for _ in models]
    for _ in range(ROUNDS):
        results = models[0].benchmark_interleaved(
            list(models[1:]), number=1, repeat=REPEAT, lead_in=1
        )
        for mine, result in zip(samples, results):
            mine += result.samples
        time.sleep(0.3)  # OpenMP workers spin after a run (as `mlc.tuning.SETTLE_S`)
    return samples


__all__ = ["GraphTuneReport", "tune_graph"]
