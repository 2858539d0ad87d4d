"""mlc vs onnxruntime latency on the light model zoo, 1 and 2 threads, measured in one run.

    python bench/bench_models.py                       # all nine models, 1 and 2 threads
    python bench/bench_models.py resnet50 vgg19 --threads 1 --rounds 5 --write bench/RESULTS.md
    python bench/bench_models.py resnet50 --threads 2 --tuning-records r.jsonl   # + tuned mlc

Both peers stay loaded in this process and are timed in alternating rounds (each round: one
untimed call, then `--number` timed calls per peer), so machine noise hits both alike; the
reported figure is the median over all timed calls, and the ratio onnxruntime / mlc (> 1 means
mlc is faster). With `--tuning-records`, mlc is built twice, with its default schedules and
with the records (`mlc tune`), and the three peers take turns. onnxruntime runs with
ORT_ENABLE_ALL and intra_op_num_threads = threads.
Between the peers' turns the process sleeps SETTLE_S: both peers' worker threads keep spinning
after a run (onnxruntime's pool; mlc's OpenMP threads, KMP_BLOCKTIME = 200 ms) and would
otherwise take CPU from the other peer's calls (measured: 1-thread mlc used 20 % more CPU time
than wall time right after onnxruntime's turn).
"""

from __future__ import annotations

import argparse
import datetime
import platform
import shlex
import sys
import time

import numpy as np

import mlc
from mlc.frontend.onnx.zoo import light_model_names, load_light_model
from mlc.runtime import GraphModule
from mlc.runtime.benchmark import time_function

SETTLE_S = 0.3


def _ort_session(model: object, threads: int):  # type: ignore[no-untyped-def]
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(model.SerializeToString(), options)  # type: ignore[attr-defined]


def bench_model(
    name: str, threads: int, rounds: int, number: int, records: str | None = None
) -> dict[str, object]:
    model = load_light_model(name, seed=0)
    start = time.perf_counter()
    module, params = mlc.from_onnx(model)
    gm = GraphModule(mlc.build(module, params, threads=threads).jit())
    compile_s = time.perf_counter() - start
    peers = {"mlc": gm}
    coverage = ""
    if records:
        diagnostics: list = []
        lib = mlc.build(
            module, params, threads=threads, tuning_records=records, diagnostics=diagnostics
        )
        peers["tuned"] = GraphModule(lib.jit())
        coverage = next(
            (d.message.split(": ", 1)[1] for d in diagnostics if "applied tuned" in d.message), ""
        )
    ((input_name, info),) = gm.get_input_info().items()
    x = np.random.default_rng(0).standard_normal(info.shape).astype(np.float32)
    for peer in peers.values():
        peer.set_input(input_name, x)
    session = _ort_session(model, threads)
    feed = {session.get_inputs()[0].name: x}
    samples: dict[str, list[float]] = {k: [] for k in [*peers, "ort"]}
    for _ in range(rounds):
        for key, peer in peers.items():
            samples[key] += time_function(peer.run, number=1, repeat=number, warmup=1).samples
            time.sleep(SETTLE_S)
        samples["ort"] += time_function(
            lambda: session.run(None, feed), number=1, repeat=number, warmup=1
        ).samples
        time.sleep(SETTLE_S)
    want = session.run(None, feed)[0]
    errors = []
    for peer in peers.values():
        peer.run()
        got = peer.get_output(0)
        errors.append(float(np.abs(got - want).max() / max(float(np.abs(want).max()), 1e-30)))
    ms = {k: 1e3 * float(np.median(v)) for k, v in samples.items()}
    row: dict[str, object] = {
        "model": name,
        "threads": threads,
        "mlc_ms": ms["mlc"],
        "ort_ms": ms["ort"],
        "ratio": ms["ort"] / ms["mlc"],
        "compile_s": compile_s,
        "rel_error": max(errors),
        "samples": len(samples["mlc"]),
    }
    if records:
        row.update(
            tuned_ms=ms["tuned"],
            tuned_ratio=ms["ort"] / ms["tuned"],
            speedup=ms["mlc"] / ms["tuned"],
            coverage=coverage,
        )
    return row


def markdown(rows: list[dict[str, object]], command: str) -> str:
    tuned = any("tuned_ms" in r for r in rows)
    lines = [
        f"Command: `{command}`  ",
        f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; machine: "
        f"{platform.processor() or platform.machine()}, {platform.python_version()}; "
        f"onnxruntime {_ort_version()}.  ",
        "Ratio = onnxruntime latency / mlc latency in the same run (> 1: mlc faster). "
        "Median of all timed calls.",
        "",
    ]
    if tuned:
        lines += [
            "| model | threads | mlc (ms) | mlc tuned (ms) | onnxruntime (ms) | ratio | "
            "ratio tuned | tuned / untuned | max rel. error | records applied |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            lines.append(
                f"| {r['model']} | {r['threads']} | {r['mlc_ms']:.1f} | {r['tuned_ms']:.1f} | "
                f"{r['ort_ms']:.1f} | {r['ratio']:.2f} | {r['tuned_ratio']:.2f} | "
                f"{r['speedup']:.2f}x | {r['rel_error']:.1e} | {r['coverage']} |"
            )
        return "\n".join(lines) + "\n"
    lines += [
        "| model | threads | mlc (ms) | onnxruntime (ms) | ratio | compile (s) | max rel. error |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['model']} | {r['threads']} | {r['mlc_ms']:.1f} | {r['ort_ms']:.1f} | "
            f"{r['ratio']:.2f} | {r['compile_s']:.1f} | {r['rel_error']:.1e} |"
        )
    return "\n".join(lines) + "\n"


def _ort_version() -> str:
    import onnxruntime as ort

    return str(ort.__version__)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", default=light_model_names())
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--number", type=int, default=5, help="timed calls per peer per round")
    parser.add_argument("--write", help="write the markdown table to this file (appends a section)")
    parser.add_argument(
        "--tuning-records", help="also time mlc built with these records (from mlc tune)"
    )
    args = parser.parse_args()
    command = "python bench/bench_models.py " + shlex.join(sys.argv[1:])
    rows = []
    for name in args.models:
        for threads in args.threads:
            row = bench_model(name, threads, args.rounds, args.number, args.tuning_records)
            rows.append(row)
            tuned = (
                f"tuned {row['tuned_ms']:8.1f} ms (ratio {row['tuned_ratio']:.2f})  "
                if "tuned_ms" in row
                else ""
            )
            print(
                f"{name:14s} threads={threads} mlc {row['mlc_ms']:8.1f} ms  {tuned}"
                f"ort {row['ort_ms']:8.1f} ms  "
                f"ratio {row['ratio']:.2f}  (compile {row['compile_s']:.1f} s)",
                flush=True,
            )
    text = markdown(rows, command)
    print(text)
    if args.write:
        with open(args.write, "a") as f:
            f.write("\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
