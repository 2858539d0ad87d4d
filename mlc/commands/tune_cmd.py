"""`mlc tune MODEL -o records.jsonl [--threads N] [--tuner xgb] [--trials N] [--time-budget M] ...`.

Flag names follow tvmc tune. Prints the task table first (ordered by share of the model's
latency), a progress bar per task (stderr), then a table per task and the whole model's latency
with its default and with its tuned schedules, measured in this process; `--json` prints the
same as one JSON object instead. Records are appended as they are measured: run the same
command again to resume.

A model with symbolic dims stays symbolic (as `mlc compile` without `--input-shapes` builds it):
its kernels are tuned at representative sizes, `--sizes "batch=1,seq=128"` (default 64 within
each dim's bounds), and the records apply to the one package for every size.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mlc import progress
from mlc.commands.common import (
    UsageError,
    blaming_input_shapes,
    non_negative_float,
    parse_input_shapes,
    positive_float,
    positive_int,
)
from mlc.files import check_input_file, check_output_file

if TYPE_CHECKING:
    from mlc.tuner.task import Task
    from mlc.tuning import ModelTuneReport

TUNERS = ("xgb", "ga", "random", "gridsearch")


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "tune",
        help="auto-tune a model's kernel schedules",
        description="Tune the schedules of an ONNX model's kernels on this machine and append "
        "the measurements to a record file (JSON lines) for mlc compile --tuning-records.",
    )
    p.add_argument("model", type=pathlib.Path, help="an .onnx model")
    p.add_argument(
        "-o", "--output", type=pathlib.Path, required=True, help="tuning records (JSON lines)"
    )
    p.add_argument("--target", default="llvm -mcpu=native", help="the host CPU (as mlc compile)")
    p.add_argument(
        "--input-shapes",
        type=parse_input_shapes,
        default=None,
        help='override input shapes, e.g. "data:[1,3,224,224]" (fixed: a static build, as '
        'mlc compile --input-shapes), or bounds "ids:[1..8,1..512]"',
    )
    p.add_argument(
        "--sizes",
        type=parse_sizes,
        default=None,
        help='a model with symbolic dims: the sizes to tune its kernels at, e.g. "batch=1,seq=128" '
        "(default: 64 within each dim's bounds)",
    )
    p.add_argument("--threads", type=positive_int, default=1, help="threads the model will run on")
    p.add_argument("--tuner", choices=TUNERS, default="xgb", help="search (default xgb)")
    p.add_argument(
        "--trials", type=positive_int, default=1000, help="most trials per task (default 1000)"
    )
    p.add_argument(
        "--early-stopping",
        type=positive_int,
        help="stop a task after this many trials without a better one",
    )
    p.add_argument(
        "--time-budget",
        type=positive_float,
        metavar="MINUTES",
        help="the run's time from import to the last task, every phase included (graph "
        "knobs, extraction, default timings; the default-vs-tuned model comparison follows), "
        "the search split by each task's share of the model's latency; tasks whose share "
        "is negligible or would not hold a search are skipped and reported",
    )
    p.add_argument(
        "--number",
        type=positive_int,
        default=1,
        help="calls per timed sample (default 1; 1 with cold weights)",
    )
    p.add_argument(
        "--repeat",
        type=positive_int,
        default=10,
        help="timed samples; the fastest counts (default 10)",
    )
    p.add_argument(
        "--min-repeat-ms",
        type=non_negative_float,
        default=2.0,
        help="grow --number until a sample lasts this long (default 2; not with cold weights)",
    )
    p.add_argument(
        "--timeout",
        type=positive_float,
        default=10.0,
        help="seconds a candidate may run before it is killed (default 10)",
    )
    p.add_argument("--parallel", type=positive_int, default=2, help="build processes (default 2)")
    p.add_argument(
        "--enable-cpu-cache-flush",
        action="store_true",
        help="flush the caches before every timed sample",
    )
    p.add_argument(
        "--cold-weights",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="time single calls with the weights cold and the activations warm, as in the "
        "model (default; --no-cold-weights: --number calls per sample, caches warm)",
    )
    p.add_argument(
        "--prior-records",
        type=pathlib.Path,
        action="append",
        default=[],
        metavar="FILE",
        help="records of other runs to warm-start the cost model (repeatable)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the search (default 0)")
    p.add_argument(
        "--runner",
        choices=["local", "ray"],
        default="local",
        help="build and time candidates in worker processes here (default), or as Ray tasks "
        "on a Ray cluster's nodes (mlc[distributed])",
    )
    p.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="the Ray cluster for --runner ray (e.g. ray://head:10001; default: start a local "
        "Ray instance)",
    )
    p.add_argument(
        "--graph-knobs",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="first time the whole model with each layout block and Winograd choice and tune "
        "the kernels of the fastest; mlc compile --tuning-records builds with it (default on)",
    )
    p.add_argument(
        "--plot",
        type=pathlib.Path,
        metavar="PNG",
        help="draw best-so-far GFLOP/s per task against trials and wall time to this PNG",
    )
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.set_defaults(drive=drive)


def parse_sizes(text: str) -> dict[str, int]:
    """`--sizes "batch=1,seq=128"`: a positive size per symbolic dim name."""
    sizes: dict[str, int] = {}
    for item in text.split(","):
        name, eq, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or not name.isidentifier() or not value.isdigit() or int(value) < 1:
            raise argparse.ArgumentTypeError(
                f"expected name=size pairs with sizes >= 1, e.g. batch=1,seq=128; got '{item}'"
            )
        if name in sizes:
            raise argparse.ArgumentTypeError(f"'{name}' is given twice")
        sizes[name] = int(value)
    return sizes


def drive(args: argparse.Namespace) -> int:
    from mlc.tuner.measure import MeasureOptions
    from mlc.tuner.progress import TerminalProgress
    from mlc.tuner.tune import TuneOptions
    from mlc.tuning import TuneModelOptions, tune_model

    check_input_file(args.model, "model")
    check_output_file(args.output, "output (-o)")
    for prior in args.prior_records:
        check_input_file(prior, "--prior-records")
    if args.ray_address is not None and args.runner != "ray":
        raise UsageError("--ray-address only applies with --runner ray")
    if args.runner == "ray":
        from mlc.tuner.ray_runner import import_ray

        import_ray()  # missing: exit 5 before the model is imported
    if args.plot is not None:
        from mlc.plot import require_matplotlib

        require_matplotlib()  # before the tuning, not after it
        check_output_file(args.plot, "plot (--plot)")
    options = TuneModelOptions(
        target=args.target,
        threads=args.threads,
        shape_dict=args.input_shapes,
        sizes=args.sizes,
        measure=MeasureOptions(
            number=args.number,
            repeat=args.repeat,
            min_repeat_ms=args.min_repeat_ms,
            timeout=args.timeout,
            parallel=args.parallel,
            flush_cache=args.enable_cpu_cache_flush,
            cold_weights=args.cold_weights,
        ),
        runner=args.runner,
        ray_address=args.ray_address,
        graph_knobs=args.graph_knobs,
        tune=TuneOptions(
            tuner=args.tuner,
            trials=args.trials,
            early_stopping=args.early_stopping,
            time_budget=args.time_budget,
            seed=args.seed,
            prior_records=tuple(str(p) for p in args.prior_records),
        ),
    )
    out = sys.stdout
    quiet = args.verbosity < progress.NORMAL
    with blaming_input_shapes():
        report = tune_model(
            args.model,
            args.output,
            options,
            on_tasks=None if args.json or quiet else lambda ts: out.write(task_table(ts) + "\n"),
            progress=None if quiet else TerminalProgress(sys.stderr),
        )
    for problem in report.tuning.problems:
        sys.stderr.write(f"mlc tune: warning: {problem}; the line was left alone\n")
    if args.plot is not None:
        from mlc.plot import plot_tuning, tuning_curves
        from mlc.tuner.records import read_records

        tasks = [r.task for r in report.tuning.tasks]
        curves = tuning_curves(read_records(args.output).records, tasks)
        plot_tuning(curves, args.plot, title=f"mlc tune: {args.model.name}")
    if args.json:
        out.write(json.dumps(report_dict(report, args.output), indent=2) + "\n")
    else:
        out.write(result_table(report, args.output) + "\n")
    return 0


def task_table(tasks: Sequence[Task]) -> str:
    total = sum(t.weight * (t.default_ms or 0.0) for t in tasks) or 1.0
    lines = [
        f"{len(tasks)} tasks (kernel workloads), by share of the model's latency:",
        f"{'#':>3} {'kernel':34s} {'calls':>5} {'MFLOP':>9} {'default ms':>10} {'share':>6} "
        f"{'space':>7}",
    ]
    for i, t in enumerate(tasks, start=1):
        ms = f"{t.default_ms:10.3f}" if t.default_ms is not None else f"{'failed':>10}"
        share = 100 * t.weight * (t.default_ms or 0.0) / total
        lines.append(
            f"{i:3d} {t.kernel[:34]:34s} {t.weight:5d} {t.flops / 1e6:9.1f} {ms} "
            f"{share:5.1f}% {len(t.space):7d}"
        )
    return "\n".join(lines)


def result_table(report: ModelTuneReport, records: pathlib.Path) -> str:
    lines = [
        "",
        f"{'#':>3} {'kernel':34s} {'default ms':>10} {'best ms':>9} {'speedup':>7} {'trials':>6} "
        f"{'errors':>6}  stopped",
    ]
    for i, r in enumerate(report.tuning.tasks, start=1):
        best = f"{r.best_ms:9.3f}" if r.best_ms is not None else f"{'-':>9}"
        default = f"{r.default_ms:10.3f}" if r.default_ms is not None else f"{'-':>10}"
        speed = f"{r.speedup:6.2f}x" if r.speedup else f"{'-':>7}"
        lines.append(
            f"{i:3d} {r.task.kernel[:34]:34s} {default} {best} {speed} {r.trials:6d} "
            f"{r.errors:6d}  {r.status}"
        )
    if report.tuning.skipped:
        lines.append(report.tuning.skipped_summary())
    if report.graph is not None:
        lines.append(report.graph.summary())
    if report.sizes:
        at = ", ".join(f"{k}={v}" for k, v in report.sizes.items())
        lines.append(
            f"symbolic dims tuned at {at} (--sizes); the records apply to the package for every "
            "size (graph-level knobs are not tuned for symbolic dims)"
        )
    minutes = report.tuning.seconds / 60
    phases = report.budget.phases if report.budget is not None else {}
    spent = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in phases.items())
    lines.append(f"tuning took {minutes:.1f} min ({spent}); records: {records}")
    default, tuned = report.model_default_ms, report.model_tuned_ms
    if default is not None and tuned is not None:
        lines.append(
            f"whole model: default {default:.2f} ms, tuned {tuned:.2f} ms "
            f"({default / tuned:.2f}x; timed in pairs, measured in this process)"
        )
    return "\n".join(lines)


def report_dict(report: ModelTuneReport, records: pathlib.Path) -> dict[str, Any]:
    return {
        "records": str(records),
        "extract_seconds": report.extract_seconds,
        "tuning_seconds": report.tuning.seconds,
        "phase_seconds": dict(report.budget.phases) if report.budget is not None else {},
        "compare_seconds": report.compare_seconds,
        "sizes": dict(report.sizes),
        "graph_knobs": None
        if report.graph is None
        else {
            "best": report.graph.best.config(),
            "costs_ms": [{**c.config(), "cost_ms": ms} for c, ms in report.graph.costs_ms.items()],
            "untried": len(report.graph.untried),
            "errors": len(report.graph.errors),
        },
        "skipped": [
            {"kernel": s.task.kernel, "reason": s.reason, "share": s.share}
            for s in report.tuning.skipped
        ],
        "skipped_share": report.tuning.skipped_share(),
        "model_default_ms": report.model_default_ms,
        "model_tuned_ms": report.model_tuned_ms,
        "tasks": [
            {
                "kernel": r.task.kernel,
                "workload": r.task.workload,
                "block": r.task.block,
                "calls": r.task.weight,
                "nodes": list(r.task.nodes),
                "flops": r.task.flops,
                "space": len(r.task.space),
                "default_ms": r.default_ms,
                "best_ms": r.best_ms,
                "best_schedule": r.best_schedule,
                "speedup": r.speedup,
                "trials": r.trials,
                "resumed": r.resumed,
                "errors": r.errors,
                "seconds": r.seconds,
                "stopped": r.stopped,
                "unsteady": r.unsteady,
                "default_drift": r.default_drift,
            }
            for r in report.tuning.tasks
        ],
    }
