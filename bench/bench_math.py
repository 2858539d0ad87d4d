"""Per-element cost of transcendental activations: mlc with and without mlc-math-approx, onnxruntime
and numpy, one thread, in one process.

    python bench/bench_math.py                      # 1024 x 1024 f32, prints a markdown table
    python bench/bench_math.py --rounds 5 --write bench/RESULTS.md

Each case is a small ONNX model (Exp, Tanh, Erf, GELU as its Div/Erf/Add/Mul chain and as the
opset-20 Gelu node, SiLU as Sigmoid + Mul, Softmax over the last axis). mlc compiles it with
`mlc-default` (approx-math on) and `mlc-default{approx-math=false}` (libm); onnxruntime runs the
same model (ORT_ENABLE_ALL, 1 intra-op thread); numpy evaluates the formula where it has the
function (no erf). Peers are timed in alternating rounds; the figure is the median over rounds
of the mean time per call, divided by the element count.
"""

from __future__ import annotations

import argparse
import datetime
import math
import platform
import shlex
import statistics
import sys
from collections.abc import Callable

import numpy as np
import onnx
from onnx import helper

import mlc
from mlc.runtime import GraphModule
from mlc.runtime.benchmark import time_function

SQRT_HALF = np.float32(1 / math.sqrt(2))


def _model(
    nodes: list[onnx.NodeProto],
    shape: list[int],
    opset: int,
    consts: dict[str, float] | None = None,
) -> onnx.ModelProto:
    inits = [
        helper.make_tensor(k, onnx.TensorProto.FLOAT, [], [v]) for k, v in (consts or {}).items()
    ]
    graph = helper.make_graph(
        nodes,
        "m",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def _node(op: str, ins: list[str], out: str, **attrs: object) -> onnx.NodeProto:
    return helper.make_node(op, ins, [out], **attrs)


def cases(
    shape: list[int],
) -> dict[str, tuple[onnx.ModelProto, Callable[[np.ndarray], np.ndarray] | None]]:
    gelu_chain = [
        _node("Mul", ["x", "c"], "t"),
        _node("Erf", ["t"], "e"),
        _node("Add", ["e", "one"], "p"),
        _node("Mul", ["x", "p"], "q"),
        _node("Mul", ["q", "half"], "y"),
    ]
    return {
        "exp": (_model([_node("Exp", ["x"], "y")], shape, 13), np.exp),
        "tanh": (_model([_node("Tanh", ["x"], "y")], shape, 13), np.tanh),
        "erf": (_model([_node("Erf", ["x"], "y")], shape, 13), None),
        "gelu (Mul/Erf chain)": (
            _model(gelu_chain, shape, 13, {"c": float(SQRT_HALF), "one": 1.0, "half": 0.5}),
            None,
        ),
        "gelu (Gelu-20 node)": (_model([_node("Gelu", ["x"], "y")], shape, 20), None),
        "silu": (
            _model([_node("Sigmoid", ["x"], "s"), _node("Mul", ["x", "s"], "y")], shape, 13),
            lambda x: x / (1 + np.exp(-x)),
        ),
        "softmax (last axis)": (
            _model([_node("Softmax", ["x"], "y", axis=-1)], shape, 13),
            lambda x: (e := np.exp(x - x.max(-1, keepdims=True))) / e.sum(-1, keepdims=True),
        ),
    }


def _mlc(model: onnx.ModelProto, approx: bool, x: np.ndarray) -> Callable[[], None]:
    module, params = mlc.from_onnx(model)
    pipeline = "builtin.module(mlc-default{threads=1%s})" % ("" if approx else " approx-math=false")
    gm = GraphModule(mlc.build(module, params, pipeline=pipeline).jit())
    gm.set_input("x", x)
    return gm.run


def _ort(model: onnx.ModelProto, x: np.ndarray) -> Callable[[], object]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    sess = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return lambda: sess.run(None, {"x": x})


def measure(
    shape: list[int], rounds: int, number: int
) -> list[tuple[str, dict[str, float | None]]]:
    x = np.random.default_rng(0).normal(0, 2, shape).astype(np.float32)
    n = x.size
    rows = []
    for name, (model, numpy_fn) in cases(shape).items():
        peers: dict[str, Callable[[], object] | None] = {
            "mlc approx": _mlc(model, True, x),
            "mlc libm": _mlc(model, False, x),
            "onnxruntime": _ort(model, x),
            "numpy": (lambda f=numpy_fn: f(x)) if numpy_fn else None,
        }
        samples: dict[str, list[float]] = {k: [] for k, fn in peers.items() if fn}
        for _ in range(rounds):
            for k, times in samples.items():
                fn = peers[k]
                assert fn is not None
                times.append(time_function(fn, number=number, warmup=1).mean)
        rows.append(
            (
                name,
                {
                    k: (statistics.median(samples[k]) / n * 1e9 if k in samples else None)
                    for k in peers
                },
            )
        )
        print(
            name,
            {k: (f"{v:.2f}" if v is not None else "-") for k, v in rows[-1][1].items()},
            flush=True,
        )
    return rows


def table(rows: list[tuple[str, dict[str, float | None]]]) -> str:
    peers = list(rows[0][1])
    lines = [
        "| ns / element | " + " | ".join(peers) + " | libm / approx | ort / approx |",
        "|---" * (len(peers) + 3) + "|",
    ]
    for name, v in rows:
        cells = [f"{v[p]:.2f}" if v[p] is not None else "-" for p in peers]
        approx = v["mlc approx"] or math.nan
        lines.append(
            f"| {name} | "
            + " | ".join(cells)
            + f" | {(v['mlc libm'] or math.nan) / approx:.1f}x"
            + f" | {(v['onnxruntime'] or math.nan) / approx:.1f}x |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1024)
    parser.add_argument("--cols", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--number", type=int, default=5, help="timed calls per peer and round")
    parser.add_argument("--write", help="append a dated section to this markdown file")
    args = parser.parse_args()
    rows = measure([args.rows, args.cols], args.rounds, args.number)
    text = table(rows)
    print(text)
    if args.write:
        cmd = "python bench/bench_math.py " + shlex.join(sys.argv[1:])
        with open(args.write, "a") as f:
            f.write(
                f"\n## Transcendental math per element, {datetime.date.today()} "
                f"({platform.processor() or platform.machine()}, 1 thread)\n\n"
                f"`{cmd}`: {args.rows} x {args.cols} f32, median of {args.rounds} rounds."
                f"\n\n{text}\n"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
