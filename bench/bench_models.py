"""mlc vs onnxruntime latency and outputs, 1 and 2 threads, measured in one run.

    python bench/bench_models.py                       # the light suite, 1 and 2 threads
    python bench/bench_models.py --suite modern --rounds 3 --number 5
    python bench/bench_models.py --suite holdout --write bench/RESULTS.md
    python bench/bench_models.py resnet50 vit_b_16 --threads 1 --rounds 5
    python bench/bench_models.py --suite modern --pipeline 'builtin.module(...{threads}...)'
    python bench/bench_models.py resnet50 --threads 2 --tuning-records r.jsonl   # + tuned mlc
    python bench/bench_models.py --suite modern --batch 8 --threads 1 --cpu-time

Suites: `light` (the nine models shipped with the onnx wheel, `mlc.frontend.onnx.zoo`), `modern`
and `holdout` (exported from torch with seeded weights by `bench/modern_models.py`, built on first
use; they need `pip install -e '.[bench]'`). Model names from any suite may be given directly.

Both peers stay loaded in this process and are timed in alternating rounds (each round: one
untimed call, then `--number` timed calls per peer), so machine noise hits both alike; the
reported figure is the median over all timed calls, and the ratio onnxruntime / mlc (> 1 means
mlc is faster) is the median over rounds of each round's ratio (`peers.paired_ratio`: the peers
of one round run a second apart, so drifts of the host's speed cancel). onnxruntime runs with
ORT_ENABLE_ALL and intra_op_num_threads = threads. Between the peers' turns the process sleeps
`peers.SETTLE_S`: both peers' worker threads keep spinning after a run (onnxruntime's pool;
mlc's OpenMP threads, KMP_BLOCKTIME = 200 ms) and would otherwise take CPU from the other peer's
calls (measured: 1-thread mlc used 20 % more CPU time than wall time right after onnxruntime's
turn).

`--batch N` (N > 1) runs a modern or holdout model's dynamic export (`NAME-dyn`, exported on
first use) at batch N: onnxruntime as is, mlc compiled with the inputs fixed to batch N
(`model_at_batch`). `--cpu-time` times the process's CPU time instead of wall-clock time.

Every output is compared with onnxruntime's (max |mlc - ort| / max |ort| over all outputs; the bar
is 1e-3). A model that fails to import, compile or run is reported with its error on one line,
and the run goes on with the next model.
"""

from __future__ import annotations

import argparse
import datetime
import pathlib
import platform
import shlex
import sys
import time
from collections.abc import Callable

import numpy as np
from peers import alternate, max_rel_error, ort_session, paired_ratio, write_section

import mlc
from mlc.frontend.onnx.zoo import light_model_names, load_light_model
from mlc.runtime import GraphModule

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import modern_models  # noqa: E402  (a sibling script, not a package)

SUITES = ("light", "modern", "holdout")
ERROR_BAR = 1e-3


def suite_models(suite: str) -> list[str]:
    return light_model_names() if suite == "light" else modern_models.suite_names(suite)


def load_model(name: str):  # type: ignore[no-untyped-def]
    """The ONNX ModelProto of a light-zoo or modern/holdout model (exported on first use)."""
    import onnx

    if name in modern_models.MODELS:
        modern_models.ensure_built([name])
        return onnx.load(str(modern_models.model_path(name)))
    return load_light_model(name, seed=0)


def model_at_batch(name: str, batch: int = 1):  # type: ignore[no-untyped-def]
    """(ONNX model, input feed, shape_dict for mlc.from_onnx) of `name` at `batch`.

    Batch 1: the static export, as imported. Batch N: the dynamic export (`NAME-dyn`, built on
    first use), which onnxruntime runs as is and mlc compiles with its inputs fixed to the
    feed's shapes (static specialization, as `mlc compile --input-shapes` does).
    """
    if batch == 1:
        model = load_model(name)
        return model, modern_models.input_feed(model), None
    if name not in modern_models.MODELS:
        raise ValueError(
            f"batch {batch} needs a dynamic export; only modern and holdout models have one "
            f"({name} runs at batch 1 only)"
        )
    import onnx

    modern_models.ensure_built([name], dynamic=True)
    model = onnx.load(str(modern_models.model_path(name, dynamic=True)))
    feed = modern_models.input_feed(model, batch=batch)
    return model, feed, {k: list(v.shape) for k, v in feed.items()}


def one_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {' | '.join(lines)}"


def bench_model(
    name: str,
    threads: int,
    rounds: int,
    number: int,
    pipeline: str = "",
    records: str = "",
    batch: int = 1,
    timer: Callable[[], float] = time.perf_counter,
) -> dict[str, object]:
    """One model at one thread count; a failure is returned as a row with its stage and error.

    `pipeline`, when given, replaces mlc-default; `{threads}` in it becomes the thread count.
    `records` (from mlc tune) adds a third peer: mlc built with them. `batch`: see
    `model_at_batch`. `timer=time.process_time` times CPU time (the process's, all threads).
    """
    row: dict[str, object] = {"model": name, "threads": threads, "batch": batch}
    stage = "load"
    try:
        model, feed, shapes = model_at_batch(name, batch)
        stage = "import"
        start = time.perf_counter()
        module, params = mlc.from_onnx(model, shape_dict=shapes)
        stage = "compile"
        options: dict[str, object] = (
            {"pipeline": pipeline.replace("{threads}", str(threads))}
            if pipeline
            else {"threads": threads}
        )
        gm = GraphModule(mlc.build(module, params, **options).jit())
        row["compile_s"] = time.perf_counter() - start
        peers = {"mlc": gm}
        if records:
            stage = "compile with records"
            diagnostics: list = []
            lib = mlc.build(
                module, params, threads=threads, tuning_records=records, diagnostics=diagnostics
            )
            peers["tuned"] = GraphModule(lib.jit())
            row["coverage"] = next(
                (d.message.split(": ", 1)[1] for d in diagnostics if "applied tuned" in d.message),
                "",
            )
        stage = "run"
        for peer in peers.values():
            for input_name, value in feed.items():
                peer.set_input(input_name, value)
        session = ort_session(model, threads)
        calls = {key: peer.run for key, peer in peers.items()}
        samples = alternate(
            {**calls, "ort": lambda: session.run(None, feed)}, rounds, number, timer=timer
        )
        want = session.run(None, feed)
        errors = []
        for peer in peers.values():
            peer.run()
            got = [peer.get_output(i) for i in range(peer.get_num_outputs())]
            errors.append(max_rel_error(got, want))
        row["rel_error"] = max(errors)
    except Exception as error:  # noqa: BLE001  (report and go on with the next model)
        row.update(status=f"{stage} failed", error=one_line(error))
        return row
    ms = {k: 1e3 * float(np.median(v)) for k, v in samples.items()}
    row.update(
        status="ok",
        mlc_ms=ms["mlc"],
        ort_ms=ms["ort"],
        ratio=paired_ratio(samples["ort"], samples["mlc"], number),
        samples=len(samples["mlc"]),
    )
    if records:
        row.update(
            tuned_ms=ms["tuned"],
            tuned_ratio=paired_ratio(samples["ort"], samples["tuned"], number),
            speedup=paired_ratio(samples["mlc"], samples["tuned"], number),
        )
    return row


def label(row: dict[str, object]) -> str:
    """The model cell: its name, and its batch when that is not 1."""
    batch = int(row.get("batch", 1))  # type: ignore[call-overload]
    return str(row["model"]) + (f" (batch {batch})" if batch != 1 else "")


def markdown(rows: list[dict[str, object]], command: str, cpu_time: bool = False) -> str:
    lines = [
        f"Command: `{command}`  ",
        f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; machine: "
        f"{platform.processor() or platform.machine()}, {platform.python_version()}; "
        f"onnxruntime {_ort_version()}.  ",
        "Ratio = onnxruntime latency / mlc latency in the same run (> 1: mlc faster): the "
        "median over rounds of each round's ratio. Latencies: median of all timed calls"
        + (" (CPU time of the process)." if cpu_time else "."),
    ]
    if any(int(r.get("batch", 1)) != 1 for r in rows):  # type: ignore[call-overload]
        lines[-1] += "  "
        lines.append(
            "Batch N: one call on N items (throughput = N / latency; the ratio is the same "
            "for both); both peers run the dynamic export, mlc compiled for batch N."
        )
    lines.append("")
    tuned = any("tuned_ms" in r for r in rows)
    if tuned:
        lines += [
            "| model | threads | mlc (ms) | mlc tuned (ms) | onnxruntime (ms) | ratio | "
            "ratio tuned | tuned / untuned | max rel. error | records applied |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
    else:
        lines += [
            "| model | threads | mlc (ms) | onnxruntime (ms) | ratio | compile (s) | "
            "max rel. error |",
            "|---|---|---|---|---|---|---|",
        ]
    failures = []
    for r in rows:
        if r["status"] != "ok":
            lines.append(f"| {label(r)} | {r['threads']} | {r['status']} | | | | |")
            failure = f"- {label(r)}, {r['status']}: `{r['error']}`"
            if failure not in failures:
                failures.append(failure)
            continue
        flag = "" if float(r["rel_error"]) <= ERROR_BAR else " (over 1e-3)"  # type: ignore[arg-type]
        if tuned:
            lines.append(
                f"| {label(r)} | {r['threads']} | {r['mlc_ms']:.1f} | {r['tuned_ms']:.1f} | "
                f"{r['ort_ms']:.1f} | {r['ratio']:.2f} | {r['tuned_ratio']:.2f} | "
                f"{r['speedup']:.2f}x | {r['rel_error']:.1e}{flag} | {r['coverage']} |"
            )
            continue
        lines.append(
            f"| {label(r)} | {r['threads']} | {r['mlc_ms']:.1f} | {r['ort_ms']:.1f} | "
            f"{r['ratio']:.2f} | {r['compile_s']:.1f} | {r['rel_error']:.1e}{flag} |"
        )
    if failures:
        lines += ["", "Failures:", ""] + failures
    return "\n".join(lines) + "\n"


def _ort_version() -> str:
    import onnxruntime as ort

    return str(ort.__version__)


def _print_row(r: dict[str, object]) -> None:
    if r["status"] != "ok":
        print(f"{label(r):22s} threads={r['threads']} {r['status']}: {r['error']}", flush=True)
        return
    tuned = (
        f"tuned {r['tuned_ms']:8.1f} ms (ratio {r['tuned_ratio']:.2f})  " if "tuned_ms" in r else ""
    )
    print(
        f"{label(r):22s} threads={r['threads']} mlc {r['mlc_ms']:8.1f} ms  {tuned}"
        f"ort {r['ort_ms']:8.1f} ms  ratio {r['ratio']:.2f}  "
        f"(compile {r['compile_s']:.1f} s, max rel. error {r['rel_error']:.1e})",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", help="model names from any suite")
    parser.add_argument(
        "--suite",
        choices=SUITES,
        action="append",
        help="add a suite's models (repeatable; default: light)",
    )
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--number", type=int, default=5, help="timed calls per peer per round")
    parser.add_argument("--write", help="write the markdown table to this file (appends a section)")
    parser.add_argument(
        "--pipeline",
        default="",
        help="an mlc pass pipeline instead of mlc-default; {threads} is replaced "
        "by the thread count",
    )
    parser.add_argument(
        "--tuning-records", default="", help="also time mlc built with these records (mlc tune)"
    )
    parser.add_argument(
        "--batch",
        type=int,
        nargs="+",
        default=[1],
        help="batch sizes (> 1: the dynamic export, mlc compiled for that batch; modern and "
        "holdout models only)",
    )
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time the process's CPU time, not wall-clock time (steadier on a shared host)",
    )
    args = parser.parse_args()
    known = set(light_model_names()) | set(modern_models.MODELS)
    unknown = [n for n in args.models if n not in known]
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    names = list(args.models)
    for suite in args.suite or ([] if names else ["light"]):
        names += [n for n in suite_models(suite) if n not in names]
    command = "python bench/bench_models.py " + shlex.join(sys.argv[1:])
    rows = []
    timer = time.process_time if args.cpu_time else time.perf_counter
    for name in names:
        for batch in args.batch:
            for threads in args.threads:
                rows.append(
                    bench_model(
                        name,
                        threads,
                        args.rounds,
                        args.number,
                        args.pipeline,
                        args.tuning_records,
                        batch,
                        timer,
                    )
                )
                _print_row(rows[-1])
    text = markdown(rows, command, args.cpu_time)
    print(text)
    write_section(text, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
