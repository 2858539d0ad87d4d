"""Tune the light-zoo models into one record file, then compare with bench_models.py.

    python bench/tune_zoo.py --minutes 1.5 -o build/zoo/records.jsonl
    python bench/bench_models.py --tuning-records build/zoo/records.jsonl

Each (model, thread count) gets `--minutes` of tuning (`mlc.tuning.tune_model`, xgb, no
whole-model comparison: bench_models.py does that). One file for all: records of the models
tuned first warm-start the cost model of the later ones (transfer learning), and
tp-apply-records picks the records of the thread count being compiled.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

from mlc.frontend.onnx.zoo import light_model_names, save_light_model
from mlc.tuner.tune import TuneOptions
from mlc.tuning import TuneModelOptions, tune_model


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", default=light_model_names())
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--minutes", type=float, default=1.5, help="tuning time per run")
    parser.add_argument("-o", "--output", type=pathlib.Path, required=True)
    parser.add_argument(
        "--compare", type=int, default=0, help="rounds of the default-vs-tuned model timing"
    )
    parser.add_argument("--no-graph-knobs", action="store_true", help="kernel schedules only")
    args = parser.parse_args()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    for name in args.models:
        model = save_light_model(name, args.output.parent / f"{name}.onnx", seed=0)
        for threads in args.threads:
            start = time.monotonic()
            options = TuneModelOptions(
                threads=threads,
                tune=TuneOptions(time_budget=args.minutes),
                compare_rounds=args.compare,
                graph_knobs=not args.no_graph_knobs,
            )
            report = tune_model(model, args.output, options)
            gains = [r.speedup for r in report.tuning.tasks if r.speedup]
            tuned = report.tuning.seconds
            print(
                f"{name:14s} threads={threads} {len(report.tasks)} tasks timed, "
                f"{len(report.tuning.tasks)} searched; budget {args.minutes:.1f} min, tuning "
                f"took {tuned / 60:.2f} min ({100 * tuned / (60 * args.minutes):.0f} %), "
                f"with the comparison {(time.monotonic() - start) / 60:.1f} min; best kernel "
                f"speedup {max(gains, default=1.0):.2f}x",
                flush=True,
            )
            phases = report.budget.phases if report.budget else {}
            print("  phases: " + ", ".join(f"{k} {v:.0f} s" for k, v in phases.items()))
            for line in (report.tuning.skipped_summary(), report.graph and report.graph.summary()):
                if line:
                    print("  " + line)
            if report.model_default_ms and report.model_tuned_ms:
                print(
                    f"  whole model: default {report.model_default_ms:.2f} ms, tuned "
                    f"{report.model_tuned_ms:.2f} ms "
                    f"({report.model_default_ms / report.model_tuned_ms:.2f}x)",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
