"""mlc vs onnxruntime on one recurrent layer (LSTM, GRU or RNN), measured in one process.

    python bench/bench_rnn.py                                # LSTM, seq 100, hidden 256, batch 1
    python bench/bench_rnn.py --cell GRU --seq 200 --hidden 128 --threads 1 2

The model is one ONNX node with random weights (input size = hidden size). Both peers stay
loaded and are timed in alternating rounds (one untimed call, then `--number` timed calls per
peer and round); the figures are medians over all timed calls, the ratio is onnxruntime / mlc
(> 1: mlc faster). Compile time (import + build + JIT) is reported too: the time loop is one
loop in the generated code, so it does not grow with the sequence length.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from peers import SETTLE_S, ort_session

import mlc
from mlc.runtime import GraphModule
from mlc.runtime.benchmark import time_function

GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


def recurrent_model(
    cell: str, seq: int, hidden: int, batch: int, direction: str
) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    dirs = 2 if direction == "bidirectional" else 1
    g = GATES[cell]
    scale = 1 / np.sqrt(hidden)
    inits = {
        "W": rng.uniform(-scale, scale, (dirs, g * hidden, hidden)),
        "R": rng.uniform(-scale, scale, (dirs, g * hidden, hidden)),
        "B": rng.uniform(-scale, scale, (dirs, 2 * g * hidden)),
    }
    outputs = ["Y", "Y_h"]
    node = helper.make_node(
        cell, ["X", "W", "R", "B"], outputs, hidden_size=hidden, direction=direction
    )
    graph = helper.make_graph(
        [node],
        "recurrent",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [seq, batch, hidden])],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
        [numpy_helper.from_array(a.astype(np.float32), n) for n, a in inits.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)


def bench(args: argparse.Namespace, threads: int) -> None:
    model = recurrent_model(args.cell, args.seq, args.hidden, args.batch, args.direction)
    start = time.perf_counter()
    gm = GraphModule(mlc.build(*mlc.from_onnx(model), threads=threads).jit())
    compile_s = time.perf_counter() - start
    x = np.random.default_rng(1).standard_normal((args.seq, args.batch, args.hidden))
    x = x.astype(np.float32)
    gm.set_input("X", x)
    session = ort_session(model, threads)
    mlc_samples: list[float] = []
    ort_samples: list[float] = []
    for _ in range(args.rounds):
        mlc_samples += time_function(gm.run, repeat=args.number).samples
        time.sleep(SETTLE_S)
        ort_samples += time_function(
            lambda: session.run(None, {"X": x}), repeat=args.number
        ).samples
        time.sleep(SETTLE_S)
    gm.run()
    want = session.run(None, {"X": x})
    error = max(float(np.abs(gm.get_output(k) - w).max()) for k, w in enumerate(want))
    mlc_ms, ort_ms = 1e3 * float(np.median(mlc_samples)), 1e3 * float(np.median(ort_samples))
    print(
        f"{args.cell} {args.direction} seq={args.seq} hidden={args.hidden} batch={args.batch} "
        f"threads={threads}: mlc {mlc_ms:.3f} ms, onnxruntime {ort_ms:.3f} ms, "
        f"ratio {ort_ms / mlc_ms:.2f}, compile {compile_s:.1f} s, max abs error {error:.1e}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cell", choices=sorted(GATES), default="LSTM")
    parser.add_argument("--direction", default="forward")
    parser.add_argument("--seq", type=int, default=100)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--number", type=int, default=10, help="timed calls per peer and round")
    args = parser.parse_args()
    for threads in args.threads:
        bench(args, threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
