"""Several mlc pass pipelines and onnxruntime on one model, in one process, alternating rounds.

    python bench/compare_pipelines.py resnet18 distilbert --pipeline avx512=vector-bits=512,...
    python bench/compare_pipelines.py model.onnx --cpu-time \
        --pipeline "three=mlc-default{widen-half=false}"
    python bench/compare_pipelines.py resnet50 --threads 2 \
        --pipeline "dynamic=mlc-default{threads=2 omp-schedule=dynamic}"

Models are bench names or .onnx paths. Each `--pipeline LABEL=SPEC` is a full pass-pipeline
string (`builtin.module(...)`), an `mlc-default{...}` with options, or
`vector-bits=B,max-accumulators=A,layout-block=L`, which fills the mlc-default stages with those
knobs (`default` is always measured: mlc-default). Every peer's outputs are checked against
onnxruntime (max relative error) before timing; the timing method is bench_models.py's, with
`--cpu-time` the process's CPU time per call (steadier on a loaded host; one thread only, as
it adds up the threads). The ratio in parentheses is onnxruntime's latency over the pipeline's,
the median of the rounds' ratios (`peers.paired_ratio`). `--threads N` runs onnxruntime and the
default pipeline on N threads; the other pipelines name their own (`mlc-default{threads=N}`).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

import mlc
from mlc.runtime import GraphModule

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench_models  # noqa: E402  (sibling scripts, not a package)
import modern_models  # noqa: E402
from peers import alternate, max_rel_error, median_ms, ort_session, paired_ratio  # noqa: E402

KNOB_PIPELINE = (
    "builtin.module(graph-verify,graph-simplify,graph-fold-constants,"
    "graph-alter-layout{{block={layout_block}}},graph-simplify,graph-fold-constants,mlc-cse,"
    "mlc-dce,graph-fuse{{max-group-size=32}},graph-to-tp,"
    "tp-default-schedule{{threads=1 vector-bits={vector_bits} "
    "max-accumulators={max_accumulators}}},"
    "tp-verify,tp-to-loops{{threads=1}},func.func(canonicalize,cse),lower-to-llvm{{threads=1}})"
)


def pipeline_text(spec: str) -> str:
    if spec.startswith("builtin.module("):
        return spec
    if spec.startswith("mlc-default"):
        return f"builtin.module({spec})"
    knobs = {"vector_bits": 256, "max_accumulators": 14, "layout_block": 8}
    for item in spec.split(","):
        key, _, value = item.partition("=")
        knobs[key.strip().replace("-", "_")] = int(value)
    return KNOB_PIPELINE.format(**knobs)


def load(name: str):  # type: ignore[no-untyped-def]
    """A bench model by name, or an .onnx file (external data beside it)."""
    if name.endswith(".onnx"):
        import onnx

        return onnx.load(name)
    return bench_models.load_model(name)


def compare(
    name: str, pipelines: dict[str, str], rounds: int, number: int, cpu_time: bool, threads: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Median ms per peer, and each pipeline's paired ratio onnxruntime / pipeline."""
    model = load(name)
    feed = modern_models.input_feed(model)
    session = ort_session(model, threads)
    want = session.run(None, feed)
    peers = {"ort": lambda: session.run(None, feed)}
    for label, text in pipelines.items():
        module, params = mlc.from_onnx(model)
        options: dict[str, object] = {"pipeline": text} if text else {"threads": threads}
        gm = GraphModule(mlc.build(module, params, **options).jit())
        for input_name, value in feed.items():
            gm.set_input(input_name, value)
        gm.run()
        got = [gm.get_output(i) for i in range(gm.get_num_outputs())]
        print(f"{name} {label}: max rel. error {max_rel_error(got, want):.1e}")
        peers[label] = gm.run
    timer = time.process_time if cpu_time else time.perf_counter
    samples = alternate(peers, rounds, number, timer=timer)
    ratios = {p: paired_ratio(samples["ort"], samples[p], number) for p in pipelines}
    return {label: median_ms(s) for label, s in samples.items()}, ratios


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="+")
    parser.add_argument("--pipeline", action="append", default=[], metavar="LABEL=SPEC")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--number", type=int, default=5)
    parser.add_argument("--cpu-time", action="store_true", help="time CPU, not wall-clock")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="onnxruntime's and the default pipeline's threads (give the others theirs)",
    )
    args = parser.parse_args()
    if args.cpu_time and args.threads > 1:
        parser.error("--cpu-time adds up the threads' CPU time: use it with --threads 1")
    pipelines = {"default": ""}
    for item in args.pipeline:
        label, _, spec = item.partition("=")
        pipelines[label] = pipeline_text(spec)
    headers = " | ".join(f"{p} (ms, ratio)" for p in pipelines)
    print(f"| model | onnxruntime (ms) | {headers} |")
    print("|---|---|" + "---|" * len(pipelines))
    for name in args.models:
        ms, ratio = compare(name, pipelines, args.rounds, args.number, args.cpu_time, args.threads)
        cells = " | ".join(f"{ms[p]:.1f} ({ratio[p]:.2f})" for p in pipelines)
        print(f"| {name} | {ms['ort']:.1f} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
