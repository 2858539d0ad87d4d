"""Quantized int8 kernels: mlc vs onnxruntime on the same QDQ models, measured in one process.

    python bench/bench_quant.py                          # both kernels, 1 thread
    python bench/bench_quant.py --threads 1 2 --write bench/RESULTS.md

Each case is a float ONNX model of one layer, quantized here by onnxruntime's `quantize_static`
(QDQ format, per-channel int8 weights, uint8 activations, calibrated on random inputs): mlc
compiles it with graph-fuse-qdq (an integer kernel with the requantization fused), onnxruntime
runs it with ORT_ENABLE_ALL (its QDQ fusion turns it into QLinearConv / an int8 GEMM). The
float model is timed too, for the int8 speed-up of each peer. Rounds alternate between the
peers as in bench_models.py; figures are medians of all timed calls, ratio = onnxruntime / mlc.
`steps` is the largest difference of the int8 outputs in quantization steps (0: identical).
On x86 without VNNI onnxruntime's int8 kernels saturate pairs of uint8 x int8 products at
int16, which `steps` then shows (up to 15); `--reduce-range` quantizes the weights to 7 bits,
where they do not.
"""

from __future__ import annotations

import argparse
import datetime
import pathlib
import platform
import shlex
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np
from peers import SETTLE_S, ort_session, write_section

import mlc
from mlc.runtime import GraphModule
from mlc.runtime.benchmark import time_function

CASES: dict[str, Callable[[np.random.Generator], tuple[object, tuple[int, ...]]]] = {}


def case(name: str):  # type: ignore[no-untyped-def]
    def register(fn):  # type: ignore[no-untyped-def]
        CASES[name] = fn
        return fn

    return register


def _model(nodes: list, inputs: dict, output: str, inits: dict) -> object:  # type: ignore[type-arg]
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        nodes,
        "layer",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs.items()],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, None)],
        [numpy_helper.from_array(a, n) for n, a in inits.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@case("conv3x3_64x56x56")
def conv_layer(rng: np.random.Generator) -> tuple[object, tuple[int, ...]]:
    """ResNet-50's 3x3 conv of stage 1: 64 -> 64 channels, 56x56, pad 1, bias, relu."""
    from onnx import helper

    w = (rng.standard_normal((64, 64, 3, 3)) * 0.05).astype(np.float32)
    b = (rng.standard_normal(64) * 0.1).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    return _model(nodes, {"x": [1, 64, 56, 56]}, "y", {"w": w, "b": b}), (1, 64, 56, 56)


@case("matmul_128x768x768")
def matmul_layer(rng: np.random.Generator) -> tuple[object, tuple[int, ...]]:
    """A BERT-base projection: [128, 768] x [768, 768] + bias."""
    from onnx import helper

    w = (rng.standard_normal((768, 768)) * 0.03).astype(np.float32)
    b = (rng.standard_normal(768) * 0.1).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Add", ["m", "b"], ["y"]),
    ]
    return _model(nodes, {"x": [128, 768]}, "y", {"w": w, "b": b}), (128, 768)


def quantize(
    model: object, shape: tuple[int, ...], rng: np.random.Generator, reduce_range: bool = False
) -> object:
    """The model in QDQ format: per-channel int8 weights (7-bit with `reduce_range`), uint8
    activations."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches = iter(
                [{"x": rng.standard_normal(shape).astype(np.float32)} for _ in range(4)]
            )

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    with tempfile.TemporaryDirectory() as tmp:
        src, dst = pathlib.Path(tmp, "float.onnx"), pathlib.Path(tmp, "qdq.onnx")
        onnx.save(model, src)  # type: ignore[arg-type]
        quantize_static(
            str(src),
            str(dst),
            Reader(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            reduce_range=reduce_range,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
        )
        return onnx.load(dst)


def _output_step(model: object) -> float:
    """The scale of the model's last DequantizeLinear (one step of the int8 output)."""
    from onnx import numpy_helper

    graph = model.graph  # type: ignore[attr-defined]
    last = [n for n in graph.node if n.op_type == "DequantizeLinear"][-1]
    inits = {i.name: i for i in graph.initializer}
    return float(numpy_helper.to_array(inits[last.input[1]]))


def bench_pair(
    model: object, x: np.ndarray, threads: int, rounds: int, number: int, cpu_time: bool = False
) -> tuple[float, float, np.ndarray, np.ndarray]:
    """(mlc ms, onnxruntime ms, mlc output, onnxruntime output); `cpu_time`: the process's CPU
    time per call (steadier on a loaded host, one thread)."""
    timer = time.process_time if cpu_time else time.perf_counter
    module, params = mlc.from_onnx(model)
    gm = GraphModule(mlc.build(module, params, threads=threads).jit())
    gm.set_input("x", x)
    session = ort_session(model, threads)
    feed = {"x": x}
    mlc_samples: list[float] = []
    ort_samples: list[float] = []
    for _ in range(rounds):
        mlc_samples += time_function(gm.run, number=1, repeat=number, warmup=1, timer=timer).samples
        time.sleep(SETTLE_S)
        ort_samples += time_function(
            lambda: session.run(None, feed), number=1, repeat=number, warmup=1, timer=timer
        ).samples
        time.sleep(SETTLE_S)
    gm.run()
    mlc_ms, ort_ms = 1e3 * float(np.median(mlc_samples)), 1e3 * float(np.median(ort_samples))
    return mlc_ms, ort_ms, gm.get_output(0), session.run(None, feed)[0]


def bench_case(
    name: str,
    threads: int,
    rounds: int,
    number: int,
    cpu_time: bool = False,
    reduce_range: bool = False,
) -> dict[str, object]:
    rng = np.random.default_rng(0)
    model, shape = CASES[name](rng)
    qdq = quantize(model, shape, rng, reduce_range)
    x = rng.standard_normal(shape).astype(np.float32)
    q_mlc, q_ort, got, want = bench_pair(qdq, x, threads, rounds, number, cpu_time)
    f_mlc, f_ort, _, _ = bench_pair(model, x, threads, rounds, number, cpu_time)
    steps = float(np.abs(got - want).max()) / _output_step(qdq)
    return {
        "case": name,
        "threads": threads,
        "int8_mlc_ms": q_mlc,
        "int8_ort_ms": q_ort,
        "ratio": q_ort / q_mlc,
        "f32_mlc_ms": f_mlc,
        "f32_ort_ms": f_ort,
        "steps": round(steps, 3),
    }


def markdown(rows: list[dict[str, object]], command: str) -> str:
    import onnxruntime as ort

    lines = [
        f"Command: `{command}`  ",
        f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; machine: "
        f"{platform.processor() or platform.machine()}, {platform.python_version()}; "
        f"onnxruntime {ort.__version__}.  ",
        "int8 ratio = onnxruntime latency / mlc latency on the QDQ model (> 1: mlc faster); "
        "f32 columns: the float model on both, for each peer's int8 speed-up. "
        "`steps`: largest output difference in int8 quantization steps.",
        "",
        "| case | threads | int8 mlc (ms) | int8 onnxruntime (ms) | int8 ratio | "
        "f32 mlc (ms) | f32 onnxruntime (ms) | steps |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['case']} | {r['threads']} | {r['int8_mlc_ms']:.3f} | {r['int8_ort_ms']:.3f} | "
            f"{r['ratio']:.2f} | {r['f32_mlc_ms']:.3f} | {r['f32_ort_ms']:.3f} | {r['steps']} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cases", nargs="*", default=list(CASES))
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--number", type=int, default=10, help="timed calls per peer per round")
    parser.add_argument(
        "--reduce-range",
        action="store_true",
        help="7-bit weights: onnxruntime's AVX2 kernels (vpmaddubsw) saturate 8-bit ones",
    )
    parser.add_argument("--cpu-time", action="store_true", help="time CPU time (1 thread)")
    parser.add_argument("--write", help="append the markdown table to this file")
    args = parser.parse_args()
    command = "python bench/bench_quant.py " + shlex.join(sys.argv[1:])
    rows = []
    for name in args.cases:
        for threads in args.threads:
            row = bench_case(
                name, threads, args.rounds, args.number, args.cpu_time, args.reduce_range
            )
            rows.append(row)
            print(
                f"{name:20s} threads={threads} int8: mlc {row['int8_mlc_ms']:7.3f} ms  "
                f"ort {row['int8_ort_ms']:7.3f} ms  ratio {row['ratio']:.2f}   "
                f"f32: mlc {row['f32_mlc_ms']:7.3f} ms  ort {row['f32_ort_ms']:7.3f} ms  "
                f"steps {row['steps']}",
                flush=True,
            )
    text = markdown(rows, command)
    print(text)
    write_section(text, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
