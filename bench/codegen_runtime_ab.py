"""Run time of one model JIT-compiled whole (one ExecutionEngine) vs as split units, bit-exact.

    python bench/codegen_runtime_ab.py model.onnx --threads 1 --rounds 16 --number 3

Both libraries come from one `mlc.build`; rounds alternate (ABBA). At 1 thread the time is the
calling thread's CPU time (`time.thread_time`), steadier than wall time on a shared host; with
more threads it is wall time. Prints a table row: median (min) ms of each, their ratios
(whole / split: > 1 means the split code is faster) and whether the outputs are bit-identical.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np


def main() -> int:
    import mlc
    from mlc.frontend import from_onnx
    from mlc.runtime import GraphModule

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--number", type=int, default=3)
    args = parser.parse_args()
    clock = time.thread_time if args.threads == 1 else time.perf_counter
    module, params = from_onnx(args.model)
    lib = mlc.build(module, params, threads=args.threads)
    gms = {}
    for mode, jobs in (("whole", "1"), ("split", "2")):
        os.environ["MLC_CODEGEN_JOBS"] = jobs
        os.environ["MLC_CACHE_DIR"] = "off"
        gm = GraphModule(lib.jit())
        rng = np.random.default_rng(0)
        for spec in lib.manifest.inputs:
            gm.set_input(spec.name, rng.standard_normal(spec.shape).astype(spec.dtype))
        gm.run()
        gms[mode] = gm
    n_out = len(lib.manifest.outputs)
    same = all(
        np.array_equal(gms["whole"].get_output(i), gms["split"].get_output(i)) for i in range(n_out)
    )
    times: dict[str, list[float]] = {k: [] for k in gms}
    for r in range(args.rounds):
        for mode in ("whole", "split") if r % 2 == 0 else ("split", "whole"):
            t = clock()
            for _ in range(args.number):
                gms[mode].run()
            times[mode].append((clock() - t) / args.number * 1e3)
    w, s = statistics.median(times["whole"]), statistics.median(times["split"])
    mw, ms = min(times["whole"]), min(times["split"])
    name = os.path.basename(args.model)
    print(
        f"| {name} | {args.threads} | {w:.2f} ({mw:.2f}) | {s:.2f} ({ms:.2f}) | "
        f"{w / s:.3f} | {mw / ms:.3f} | {same} |",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
