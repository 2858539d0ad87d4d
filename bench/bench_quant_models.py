"""Whole quantized models: mlc vs onnxruntime int8, measured in one process.

    python bench/bench_quant_models.py         # resnet50 (static), bert_sdpa (dynamic), 1 thread
    python bench/bench_quant_models.py squeezenet distilbert --threads 1 2 --write bench/RESULTS.md
    python bench/bench_quant_models.py resnet50 --format qdq qoperator --cpu-time

Vision models (light zoo or bench models) are quantized by onnxruntime's `quantize_static` (QDQ,
per-channel int8 weights, uint8 activations, calibrated on four random batches; `--format
qoperator`: its QOperator format instead, QLinearConv and onnxruntime's com.microsoft QLinear*
ops); transformer
models (an `input_ids` input) by `quantize_dynamic` (int8 weights, DynamicQuantizeLinear +
MatMulInteger), as a user would. On x86 without VNNI onnxruntime's uint8 x int8 kernels saturate
pairs of products at int16 (vpmaddubsw), so there the weights are quantized with `reduce_range`
(7 bits), as its quantizer advises for such hosts (`--full-range` turns that off): then both
peers compute exact integer products. Rounds alternate as in bench_models.py; ratio =
onnxruntime / mlc (the median of the rounds' ratios). `steps` (static models): the largest
output difference from onnxruntime int8, in steps of the last DequantizeLinear; `rel` (dynamic
models): the largest difference relative to the largest output magnitude.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import pathlib
import platform
import shlex
import sys
import tempfile
import time

import numpy as np
from bench_models import load_model
from peers import alternate, ort_session, paired_ratio, write_section

import mlc
from mlc.runtime import GraphModule
from mlc.target import host_arch, host_int8_dot_bits

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import modern_models  # noqa: E402  (a sibling script, not a package)


def _is_transformer(model: object) -> bool:
    return any(i.name == "input_ids" for i in model.graph.input)  # type: ignore[attr-defined]


def quantized(
    name: str, reduce_range: bool, fmt: str = "qdq"
) -> tuple[object, dict[str, np.ndarray], str]:
    """(int8 model, feed, "static" | "dynamic"); `fmt` is the static quantizer's format: "qdq"
    (QuantizeLinear/DequantizeLinear around float ops) or "qoperator" (QLinearConv and
    onnxruntime's com.microsoft QLinear* contrib ops)."""
    import onnx
    import onnx.version_converter
    from onnxruntime import quantization as q

    model = load_model(name)
    # The light zoo's IR 3 lists no initializer among the inputs, which IR 3 requires: the
    # quantizer's opset conversion then fails ("Input ... is undefined").
    model.ir_version = max(model.ir_version, 8)  # type: ignore[attr-defined]
    if model.opset_import[0].version < 13:  # type: ignore[attr-defined]
        # per-channel scales need opset 13; the quantizer itself only goes to 11
        model = onnx.version_converter.convert_version(model, 13)
    weights = {i.name for i in model.graph.initializer}  # type: ignore[attr-defined]
    inputs = [i for i in model.graph.input if i.name not in weights]  # type: ignore[attr-defined]
    del model.graph.input[:]  # type: ignore[attr-defined]
    model.graph.input.extend(inputs)  # type: ignore[attr-defined]
    if fmt == "qoperator":
        _constants_to_initializers(model)
    feed = modern_models.input_feed(model)
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = pathlib.Path(tmp, "float.onnx"), pathlib.Path(tmp, "int8.onnx")
        onnx.save(model, src)
        if _is_transformer(model):
            q.quantize_dynamic(src, dst, weight_type=q.QuantType.QInt8, reduce_range=reduce_range)
            kind = "dynamic"
        else:
            batches = iter([modern_models.input_feed(model, seed) for seed in range(1, 5)])

            class Reader(q.CalibrationDataReader):
                def get_next(self) -> dict[str, np.ndarray] | None:
                    return next(batches, None)

            q.quantize_static(
                src,
                dst,
                Reader(),
                quant_format=q.QuantFormat.QDQ if fmt == "qdq" else q.QuantFormat.QOperator,
                per_channel=True,
                reduce_range=reduce_range,
                activation_type=q.QuantType.QUInt8,
                weight_type=q.QuantType.QInt8,
            )
            kind = "static"
        return onnx.load(dst), feed, kind


def _constants_to_initializers(model: object) -> None:
    """Constant nodes and Identity nodes of initializers as initializers: QOperator's bias
    quantization reads a conv's bias as an initializer (torch exports share equal biases
    through Identity nodes)."""
    from onnx import helper

    graph = model.graph  # type: ignore[attr-defined]
    inits = {i.name: i for i in graph.initializer}
    kept = []
    for node in graph.node:
        value = [a for a in node.attribute if a.name == "value"]
        tensor = None
        if node.op_type == "Constant" and not node.domain and value:
            tensor = helper.get_attribute_value(value[0])
        elif node.op_type == "Identity" and not node.domain and node.input[0] in inits:
            tensor = type(inits[node.input[0]])()
            tensor.CopyFrom(inits[node.input[0]])
        if tensor is not None:
            tensor.name = node.output[0]
            graph.initializer.append(tensor)
            inits[tensor.name] = tensor
        else:
            kept.append(node)
    del graph.node[:]
    graph.node.extend(kept)


def _output_step(model: object) -> float:
    from onnx import numpy_helper

    graph = model.graph  # type: ignore[attr-defined]
    last = [n for n in graph.node if n.op_type == "DequantizeLinear"][-1]
    inits = {i.name: i for i in graph.initializer}
    return float(numpy_helper.to_array(inits[last.input[1]]).max())


def bench(  # type: ignore[type-arg]
    name: str,
    threads: int,
    rounds: int,
    number: int,
    reduce_range: bool,
    cpu_time: bool,
    pipeline: str = "",
    fmt: str = "qdq",
) -> dict:
    model, feed, kind = quantized(name, reduce_range, fmt)
    if kind == "static":
        kind = f"static {'QDQ' if fmt == 'qdq' else 'QOperator'}"
    start = time.perf_counter()
    module, params = mlc.from_onnx(model)
    options = {"pipeline": pipeline} if pipeline else {"threads": threads}
    gm = GraphModule(mlc.build(module, params, **options).jit())  # type: ignore[arg-type]
    compile_s = time.perf_counter() - start
    for key, value in feed.items():
        gm.set_input(key, value)
    session = ort_session(model, threads)
    timer = time.process_time if cpu_time else time.perf_counter
    peers = {"mlc": gm.run, "ort": lambda: session.run(None, feed)}
    samples = alternate(peers, rounds, number, timer=timer)
    want = session.run(None, feed)[0]
    gm.run()
    got = gm.get_output(0)
    diff = float(np.abs(got.astype(np.float64) - want).max())
    error = (
        f"{diff / _output_step(model):.2f} steps"
        if kind.startswith("static")
        else f"rel {diff / max(float(np.abs(want).max()), 1e-30):.1e}"
    )
    return {
        "model": name,
        "kind": kind,
        "threads": threads,
        "mlc_ms": 1e3 * min(samples["mlc"]),
        "ort_ms": 1e3 * min(samples["ort"]),
        "ratio": paired_ratio(samples["ort"], samples["mlc"], number),
        "error": error,
        "compile_s": compile_s,
    }


def markdown(rows: list[dict], command: str, reduce_range: bool, cpu_time: bool) -> str:  # type: ignore[type-arg]
    import onnxruntime as ort

    lines = [
        f"Command: `{command}`  ",
        f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; machine: "
        f"{platform.processor() or platform.machine()}, VNNI bits {host_int8_dot_bits()}; "
        f"onnxruntime {ort.__version__}; reduce_range {reduce_range}.  ",
        f"{'CPU' if cpu_time else 'wall'} ms: minimum over all timed calls; ratio = "
        "onnxruntime / mlc (median of the rounds' ratios, > 1: mlc faster); "
        "error: mlc vs onnxruntime int8.",
        "",
        "| model | quantization | threads | mlc (ms) | onnxruntime (ms) | ratio | error | "
        "mlc compile (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['model']} | {r['kind']} | {r['threads']} | {r['mlc_ms']:.2f} | "
            f"{r['ort_ms']:.2f} | {r['ratio']:.2f} | {r['error']} | {r['compile_s']:.1f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", default=["resnet50", "bert_sdpa"])
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--number", type=int, default=5, help="timed calls per peer per round")
    parser.add_argument(
        "--full-range", action="store_true", help="8-bit weights even where onnxruntime saturates"
    )
    parser.add_argument(
        "--cpu-time", action="store_true", help="time CPU time (steadier on a loaded host)"
    )
    parser.add_argument("--pipeline", default="", help="replaces mlc-default (one thread count)")
    parser.add_argument(
        "--format",
        nargs="+",
        choices=["qdq", "qoperator"],
        default=["qdq"],
        help="quantize_static's formats (vision models): QDQ and/or QOperator (QLinearConv and "
        "onnxruntime's com.microsoft QLinear* ops)",
    )
    parser.add_argument("--write", help="append the markdown table to this file")
    args = parser.parse_args()
    reduce_range = not args.full_range and host_arch() == "x86_64" and not host_int8_dot_bits()
    command = "python bench/bench_quant_models.py " + shlex.join(sys.argv[1:])
    rows = []
    for name, threads, fmt in itertools.product(args.models, args.threads, args.format):
        if fmt != args.format[0] and _is_transformer(load_model(name)):
            continue  # the format is quantize_static's: one row for a dynamic model
        row = bench(
            name, threads, args.rounds, args.number, reduce_range, args.cpu_time, args.pipeline, fmt
        )
        rows.append(row)
        print(
            f"{name:16s} {row['kind']:16s} threads={threads} mlc {row['mlc_ms']:8.2f} ms  "
            f"ort {row['ort_ms']:8.2f} ms  ratio {row['ratio']:.2f}  {row['error']}  "
            f"compile {row['compile_s']:.1f} s",
            flush=True,
        )
    text = markdown(rows, command, reduce_range, args.cpu_time)
    print(text)
    write_section(text, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
