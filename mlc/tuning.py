"""`mlc tune` as a library call (tvmc's `tune_model`): tune a model's kernels, then measure the
whole model with its default schedules and with the tuned ones, in this process.

    report = tune_model("resnet50.onnx", "r.jsonl", TuneModelOptions(threads=2,
                        tune=TuneOptions(time_budget=20)))
    report.model_default_ms, report.model_tuned_ms

Afterwards `mlc compile model.onnx --tuning-records r.jsonl --threads 2` applies the records.

A model with symbolic dims (`input_ids [batch, seq]`) keeps them, as `mlc compile` does: its
kernels are the ones the one-for-every-size package runs, searched and timed at representative
sizes (`sizes`: a value per symbol, by default `DEFAULT_SIZE` within the symbol's bounds), and
the records apply to that package at every size. Its graph-level knobs are not tuned.

With a time budget every phase is charged to it (`mlc.tuner.budget`): the import, the graph-level
knobs (whole-model builds, until GRAPH_SHARE of it is spent), the extraction, the default
schedules' builds and timings (until DEFAULTS_SHARE; tasks not timed by then keep their
defaults) and the search; the whole-model comparison that follows is reported apart.
"""

from __future__ import annotations

import pathlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from mlir import ir

from mlc import progress as mlc_progress
from mlc.compiler import BuildOptions, build, check_target
from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph.verify import symbol_bounds
from mlc.errors import MlcError
from mlc.graph_tuning import GraphTuneReport, tune_graph
from mlc.symbolic import evaluate, free_symbols
from mlc.symbolic import parse as parse_dim
from mlc.tuner.budget import (
    BUILD_PER_EXTRACTION,
    DEFAULTS_SHARE,
    GRAPH_SHARE,
    Budget,
    Clock,
    monotonic,
)
from mlc.tuner.measure import MeasureOptions
from mlc.tuner.runner import LocalRunner, Runner
from mlc.tuner.task import Task, extract_tasks
from mlc.tuner.tune import Progress, SkippedTask, TuneOptions, TuneReport, tune

DEFAULT_SIZE = 64
"""A symbolic dim's representative size when none is given (tp-default-schedule's sample size
of run-time extents), clamped to the dim's bounds."""

SETTLE_S = 0.3
"""Pause between the two builds' turns (OpenMP workers spin for 200 ms after a run)."""


@dataclass(frozen=True)
class TuneModelOptions:
    target: str = "llvm -mcpu=native"
    threads: int = 1
    shape_dict: Mapping[str, list[int]] | None = None
    measure: MeasureOptions = field(default_factory=MeasureOptions)
    tune: TuneOptions = field(default_factory=TuneOptions)
    compare_rounds: int = 4
    """Alternating rounds of the whole-model comparison (0: skip it)."""
    runner: Literal["local", "ray"] = "local"
    """Where candidates are built and timed: worker processes here, or Ray tasks."""
    ray_address: str | None = None
    """The Ray cluster (`ray.init`'s address); None starts a local Ray instance."""
    graph_knobs: bool = True
    """Tune the layout block and the Winograd choice on the whole model first
    (`mlc.graph_tuning`); the kernel tasks are then those of the fastest point."""
    sizes: Mapping[str, int] | None = None
    """Representative values of the model's symbolic dims, to tune its kernels at (others:
    DEFAULT_SIZE within their bounds)."""


@dataclass
class ModelTuneReport:
    tasks: list[Task]
    tuning: TuneReport
    extract_seconds: float = 0.0
    """Seconds from the start to the first search (import, graph knobs, extraction, defaults)."""
    model_default_ms: float | None = None
    model_tuned_ms: float | None = None
    budget: Budget | None = None
    """What each phase spent (`Budget.phases`)."""
    graph: GraphTuneReport | None = None
    sizes: dict[str, int] = field(default_factory=dict)
    """The symbolic dims' values the kernels were tuned at (empty for a static model)."""
    compare_seconds: float = 0.0
    """The whole-model comparison after the tuning (not part of the time budget)."""


def tune_model(
    model: str | pathlib.Path,
    records: str | pathlib.Path,
    options: TuneModelOptions | None = None,
    *,
    on_tasks: Callable[[Sequence[Task]], None] | None = None,
    progress: Progress | None = None,
    runner: Runner | None = None,
    clock: Clock = monotonic,
    tune_graph_knobs: Callable[..., GraphTuneReport] = tune_graph,
) -> ModelTuneReport:
    """Extract the tasks of an ONNX model, tune them into `records`, compare the whole model.
    `runner` (instead of one made from the options), `clock` (what the budget reads) and
    `tune_graph_knobs` are for tests."""
    from mlc.frontend import from_onnx

    options = options or TuneModelOptions()
    check_target(options.target)
    if options.threads < 1:
        raise MlcError(f"threads must be >= 1, got {options.threads}")
    minutes = options.tune.time_budget
    budget = Budget(None if minutes is None else minutes * 60, clock=clock)
    with budget.phase("import"), mlc_progress.stage(f"importing {model}"):
        module, params = from_onnx(
            pathlib.Path(model), shape_dict=options.shape_dict, symbolic_dims=True
        )
    sizes = representative_sizes(module, options.sizes or {})
    with budget.phase("extraction"), mlc_progress.stage("extracting tasks"):
        with mlc_progress.suppressed():
            found = extract_tasks(module, params, threads=options.threads, sizes=sizes)
    graph = None
    if options.graph_knobs and not sizes:
        with budget.phase("graph knobs"), mlc_progress.stage("timing graph-level knobs"):
            with mlc_progress.suppressed():
                graph = tune_graph_knobs(
                    module,
                    params,
                    records,
                    threads=options.threads,
                    deadline=budget.span(GRAPH_SHARE),
                    clock=clock,
                    first_build_s=BUILD_PER_EXTRACTION * budget.phases["extraction"],
                )
        if graph.best != graph.default:  # other kernels: extract them again
            with budget.phase("extraction"), mlc_progress.stage("extracting tasks again"):
                with mlc_progress.suppressed():
                    found = extract_tasks(
                        module, params, threads=options.threads, graph_config=graph.best
                    )
    with runner or make_runner(options) as active:
        with budget.phase("defaults"), mlc_progress.stage("timing the default schedules"):
            with mlc_progress.suppressed():
                timed = active.measure_defaults(
                    found, deadline=budget.until(DEFAULTS_SHARE), clock=clock
                )
        per_default = budget.phases["defaults"] / len(timed) if timed else 0.0
        untimed = found[len(timed) :]
        tasks = sorted(timed, key=lambda t: -(t.weight * (t.default_ms or 0.0)))
        extract_seconds = budget.elapsed()
        if on_tasks is not None:
            on_tasks(tasks)
        with budget.phase("search"):
            report = tune(
                tasks,
                active,
                records,
                options.tune,
                progress=progress,
                budget=budget,
                candidate_seconds=per_default,
            )
    report.skipped += [SkippedTask(t, "not timed") for t in untimed]
    report.seconds = budget.elapsed()
    out = ModelTuneReport(tasks, report, extract_seconds, budget=budget, graph=graph, sizes=sizes)
    if options.compare_rounds > 0 and pathlib.Path(records).exists():
        began = clock()
        with mlc_progress.stage("timing the whole model, default vs tuned"):
            with mlc_progress.suppressed():
                out.model_default_ms, out.model_tuned_ms = compare_whole_model(
                    module,
                    params,
                    options.threads,
                    str(records),
                    options.compare_rounds,
                    sizes=sizes,
                )
        out.compare_seconds = clock() - began
    return out


def representative_sizes(module: ir.Module, given: Mapping[str, int]) -> dict[str, int]:
    """A value for every symbolic dim of the model's inputs: `given`'s, else DEFAULT_SIZE
    within the dim's bounds. MlcError for a name that is no symbol of the model or a value
    outside its bounds."""
    main = next(
        op.operation
        for op in module.body.operations
        if ir.StringAttr(op.operation.attributes["sym_name"]).value == "main"
    )
    names: set[str] = set()
    for arg in main.regions[0].blocks[0].arguments:
        for d in tensor_t(arg.type).shape:
            names |= free_symbols(d)
    unknown = sorted(set(given) - names)
    if unknown:
        have = ", ".join(sorted(names)) or "none: its input shapes are static"
        raise MlcError(
            f"--sizes names {', '.join(repr(u) for u in unknown)}, which the model has no "
            f"symbolic dim of (its symbolic dims: {have})"
        )
    bounds = symbol_bounds(module.operation)
    sizes = {}
    for name in sorted(names):
        lo, hi = bounds.get(name, (1, None))
        value = given.get(name, min(max(DEFAULT_SIZE, lo), DEFAULT_SIZE if hi is None else hi))
        if value < lo or (hi is not None and value > hi):
            raise MlcError(
                f"--sizes {name}={value} is outside the bounds of '{name}' "
                f"({lo}..{'' if hi is None else hi})"
            )
        sizes[name] = value
    return sizes


def make_runner(options: TuneModelOptions) -> Runner:
    if options.runner == "ray":
        from mlc.tuner.ray_runner import RayRunner

        with mlc_progress.stage(f"connecting to Ray ({options.ray_address or 'local instance'})"):
            return RayRunner(options.measure, options.ray_address)
    if options.ray_address is not None:
        raise MlcError("a Ray address only applies to the Ray runner (--runner ray)")
    return LocalRunner(options.measure)


def compare_whole_model(
    module: ir.Module,
    params: Mapping[str, np.ndarray],
    threads: int,
    records: str,
    rounds: int,
    number: int = 5,
    sizes: Mapping[str, int] | None = None,
) -> tuple[float, float]:
    """The model's latency (ms) built without the records, and with them: timed in this
    process sample by sample (default, tuned, default, ...; `benchmark_interleaved`), the tuned
    figure is the default's median over the median ratio of the pairs. Medians of the two
    builds timed in turns differed by 1.09x for identical code on a shared VM. A model with
    symbolic dims runs at `sizes`."""
    from mlc.runtime import GraphModule

    plain = GraphModule(build(module, params, options=BuildOptions(threads=threads)).jit())
    tuned = GraphModule(
        build(
            module,
            params,
            options=BuildOptions(threads=threads, tuning_records=records),
            diagnostics=[],
        ).jit()
    )
    rng = np.random.default_rng(0)
    for spec in plain.manifest.inputs:
        shape = tuple(evaluate(parse_dim(str(d)), sizes or {}) for d in spec.shape)
        value = _random_input(rng, shape, spec.dtype)
        plain.set_input(spec.name, value)
        tuned.set_input(spec.name, value)
    default: list[float] = []
    ratios: list[float] = []
    for _ in range(rounds):
        a, b = plain.benchmark_interleaved([tuned], number=1, repeat=number, lead_in=1)
        default += a.samples
        ratios += [d / t for d, t in zip(a.samples, b.samples)]
        time.sleep(SETTLE_S)
    median = float(np.median(default))
    return 1e3 * median, 1e3 * median / float(np.median(ratios))


def _random_input(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return np.zeros(shape, dtype=dtype)


__all__ = ["ModelTuneReport", "TuneModelOptions", "compare_whole_model", "tune_model"]
