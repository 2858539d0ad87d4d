"""Whole-model speedup from 1 to N threads, mlc next to onnxruntime, in one process.

    python bench/scaling_models.py resnet50 --rounds 10
    python bench/scaling_models.py resnet50 efficientnet_b0 --threads 2 --write bench/RESULTS.md
    python bench/scaling_models.py resnet18 --batch 8

Four peers stay loaded (mlc and onnxruntime, each at 1 and at N threads) and are timed in
alternating rounds (`peers.alternate`), so a drift of the host's speed hits all four alike;
`bench_models.py` times 1 and N threads minutes apart, which on a shared VM moves the speedup by
more than the difference being looked for. The speedup (1-thread time / N-thread time) is given
on the minimum, the first quartile and the median of the calls: the minimum shows what the code
can do, the median what a noisy host let it do.
"""

from __future__ import annotations

import argparse
import pathlib
import shlex
import sys

import numpy as np
from peers import alternate, ort_session, write_section

import mlc
from mlc.runtime import GraphModule

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench_models  # noqa: E402  (a sibling script, not a package)

STATS = ("min", "q1", "median")


def stats_ms(samples: list[float]) -> tuple[float, float, float]:
    ms = 1e3 * np.asarray(samples)
    return float(ms.min()), float(np.percentile(ms, 25)), float(np.median(ms))


def scaling_row(model: str, peer: str, one: list[float], many: list[float]) -> str:
    """A markdown row: 1-thread and N-thread min/q1/median (ms) and their ratios."""
    a, b = stats_ms(one), stats_ms(many)
    cells = [
        "/".join(f"{x:.1f}" for x in a),
        "/".join(f"{x:.1f}" for x in b),
        "/".join(f"{x / y:.2f}" for x, y in zip(a, b, strict=True)),
    ]
    return f"| {model} | {peer} | " + " | ".join(cells) + " |"


def bench_scaling(name: str, threads: int, rounds: int, number: int, batch: int = 1) -> list[str]:
    model, feed, shapes = bench_models.model_at_batch(name, batch)
    calls = {}
    for t in (1, threads):
        module, params = mlc.from_onnx(model, shape_dict=shapes)
        gm = GraphModule(mlc.build(module, params, threads=t).jit())
        for input_name, value in feed.items():
            gm.set_input(input_name, value)
        calls[f"mlc{t}"] = gm.run
        session = ort_session(model, t)
        calls[f"ort{t}"] = lambda session=session: session.run(None, feed)
    samples = alternate(calls, rounds, number)
    name += f" (batch {batch})" if batch != 1 else ""
    return [
        scaling_row(name, peer, samples[f"{key}1"], samples[f"{key}{threads}"])
        for key, peer in (("mlc", "mlc"), ("ort", "onnxruntime"))
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="+", help="model names from any bench suite")
    parser.add_argument("--threads", type=int, default=2, help="N, compared with 1 thread")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--number", type=int, default=3, help="timed calls per peer per round")
    parser.add_argument("--write", help="append the markdown table to this file")
    parser.add_argument("--batch", type=int, default=1, help="> 1: the dynamic export")
    args = parser.parse_args()
    n = args.threads
    lines = [
        f"Command: `python bench/scaling_models.py {shlex.join(sys.argv[1:])}`",
        "",
        f"| model | peer | 1 thread (ms, {'/'.join(STATS)}) | {n} threads | speedup |",
        "|---|---|---|---|---|",
    ]
    for name in args.models:
        rows = bench_scaling(name, n, args.rounds, args.number, args.batch)
        print("\n".join(rows), flush=True)
        lines += rows
    text = "\n".join(lines) + "\n"
    print(text)
    write_section(text, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
