"""Measure every point of one kernel's knob space into a record file (test data for the
tuners: tests/tuner/test_tuners.py replays it to compare search strategies).

    python -m tools.record_tuning_log squeezenet fused_conv2d_relu_1 \\
        tests/tuner/data/squeezenet_conv1.jsonl

The kernel is taken from a light-zoo model compiled for one thread; the records and the
workload table (`*.workloads.jsonl`) are written beside each other.
"""

from __future__ import annotations

import argparse
import sys

import mlc
from mlc.frontend.onnx.zoo import load_light_model
from mlc.tuner.measure import MeasureOptions
from mlc.tuner.runner import LocalRunner
from mlc.tuner.task import extract_tasks
from mlc.tuner.tune import TuneOptions, tune


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="a light zoo model name")
    parser.add_argument("kernel", help="the kernel to measure (mlc tune prints the names)")
    parser.add_argument("output", help="record file to write")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    module, params = mlc.from_onnx(load_light_model(args.model, seed=0))
    tasks = [t for t in extract_tasks(module, params, threads=args.threads)]
    task = next((t for t in tasks if t.kernel == args.kernel), None)
    if task is None:
        print(f"no kernel {args.kernel}: {', '.join(t.kernel for t in tasks)}", file=sys.stderr)
        return 1
    options = MeasureOptions(parallel=2)
    with LocalRunner(options) as runner:
        (task,) = runner.measure_defaults([task])
        tune([task], runner, args.output, TuneOptions(tuner="gridsearch", trials=len(task.space)))
    print(f"{len(task.space)} points of {task.kernel} measured into {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
