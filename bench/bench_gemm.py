"""GEMM-shaped kernels: mlc vs onnxruntime vs numpy (OpenBLAS, one thread), one process.

    OPENBLAS_NUM_THREADS=1 python bench/bench_gemm.py               # every shape, 1 thread
    python bench/bench_gemm.py dense_vit --threads 2 --rounds 5
    python bench/bench_gemm.py dense_bert --pipeline "p16=mlc-default{weight-panel=16}"

Shapes: a ViT-S MLP dense layer with constant weights, the attention products Q.K^T and P.V
(6 heads, 197 tokens, head dim 64) of two activations, a BERT-base dense layer (seq 128), and a
square 512 matmul. Each peer runs `--number` timed calls per round after one untimed call, the
rounds alternate, and the figure is the median; GFLOP/s = 2*M*N*K*batch / time. The ratio is
onnxruntime time / mlc time (> 1: mlc faster). Each `--pipeline LABEL=SPEC` (a
`builtin.module(...)` or `mlc-default{...}` string naming its own threads) adds an mlc peer
built with that pipeline, printed as `LABEL ms (ort/LABEL)` after the table's columns.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads OpenBLAS

import numpy as np  # noqa: E402
from peers import SETTLE_S

import mlc  # noqa: E402
from mlc.runtime import GraphModule  # noqa: E402
from mlc.runtime.benchmark import time_function  # noqa: E402

# name: (batch dims, M, K, N, B is a constant, B transposed)
SHAPES = {
    "dense_vit": ((), 197, 384, 1536, True, False),
    "dense_bert": ((), 128, 768, 3072, True, False),
    "dense_bert_out": ((), 128, 3072, 768, True, False),
    "dense_gpt2": ((), 64, 768, 3072, True, False),
    "dense_vit_b": ((), 197, 768, 3072, True, False),
    "dense_vit_b_out": ((), 197, 3072, 768, True, False),
    "dense_mixer": ((), 196, 512, 2048, True, False),
    "dense_mixer_out": ((), 196, 2048, 512, True, False),
    "qk_t": ((6,), 197, 64, 197, False, True),
    "pv": ((6,), 197, 197, 64, False, False),
    "qk_t_500": ((6,), 500, 64, 500, False, True),
    "pv_500": ((6,), 500, 500, 64, False, False),
    "square512": ((), 512, 512, 512, False, False),
}


def model(batch: tuple[int, ...], m: int, k: int, n: int, const_b: bool, trans_b: bool):  # type: ignore[no-untyped-def]
    from onnx import TensorProto, helper, numpy_helper

    a_shape, b_shape = [*batch, m, k], [*batch, n, k] if trans_b else [*batch, k, n]
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    inputs = [helper.make_tensor_value_info("a", TensorProto.FLOAT, a_shape)]
    if const_b:
        w = rng.standard_normal(b_shape).astype(np.float32) * 0.05
        inits.append(numpy_helper.from_array(w, "b"))
    else:
        inputs.append(helper.make_tensor_value_info("b", TensorProto.FLOAT, b_shape))
    b = "b"
    if trans_b:
        perm = [*range(len(batch)), len(batch) + 1, len(batch)]
        nodes.append(helper.make_node("Transpose", ["b"], ["bt"], perm=perm))
        b = "bt"
    nodes.append(helper.make_node("MatMul", ["a", b], ["y"]))
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [*batch, m, n])
    graph = helper.make_graph(nodes, "gemm", inputs, [out], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _mlc_module(proto, threads: int, pipeline: str, feeds: dict) -> GraphModule:  # type: ignore[no-untyped-def,type-arg]
    module, params = mlc.from_onnx(proto)
    options = {"pipeline": pipeline} if pipeline else {"threads": threads}
    gm = GraphModule(mlc.build(module, params, **options).jit())
    for key, value in feeds.items():
        gm.set_input(key, value)
    return gm


def bench(
    name: str, threads: int, rounds: int, number: int, pipelines: dict[str, str] | None = None
) -> dict[str, float]:
    import onnxruntime as ort
    from onnx import numpy_helper

    batch, m, k, n, const_b, trans_b = SHAPES[name]
    proto = model(batch, m, k, n, const_b, trans_b)
    rng = np.random.default_rng(1)
    feeds = {i.name: rng.standard_normal(i.shape).astype(np.float32) for i in _inputs(proto)}
    mlc_peers = {"mlc": ""} | dict(pipelines or {})
    modules = {label: _mlc_module(proto, threads, text, feeds) for label, text in mlc_peers.items()}
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    sess = ort.InferenceSession(proto.SerializeToString(), opts)
    b_np = numpy_helper.to_array(proto.graph.initializer[0]) if const_b else feeds["b"]
    b_np = np.swapaxes(b_np, -1, -2) if trans_b else b_np
    a_np = feeds["a"]
    want = a_np @ b_np
    err = 0.0
    for gm in modules.values():
        gm.run()
        err = max(err, float(np.max(np.abs(gm.get_output(0) - want)) / np.max(np.abs(want))))
    peers = {label: gm.run for label, gm in modules.items()} | {
        "onnxruntime": lambda: sess.run(None, feeds),
        "numpy": lambda: np.matmul(a_np, b_np),
    }
    samples: dict[str, list[float]] = {p: [] for p in peers}
    for _ in range(rounds):
        for peer, fn in peers.items():
            time.sleep(SETTLE_S)
            samples[peer] += time_function(fn, number=1, repeat=number, warmup=1).samples
    flops = 2.0 * m * n * k * int(np.prod(batch or (1,)))
    out = {f"{p}_ms": float(np.median(s)) * 1e3 for p, s in samples.items()}
    out.update({f"{p}_gflops": flops / float(np.median(s)) / 1e9 for p, s in samples.items()})
    for label in mlc_peers:
        out[f"{label}_ratio"] = out["onnxruntime_ms"] / out[f"{label}_ms"]
    out["ratio"] = out["mlc_ratio"]
    out["rel_err"] = err
    return out


def _inputs(proto):  # type: ignore[no-untyped-def]
    class Input:
        def __init__(self, value) -> None:  # type: ignore[no-untyped-def]
            self.name = value.name
            self.shape = [d.dim_value for d in value.type.tensor_type.shape.dim]

    return [Input(i) for i in proto.graph.input]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shapes", nargs="*", default=list(SHAPES))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--number", type=int, default=10)
    parser.add_argument("--pipeline", action="append", default=[], metavar="LABEL=SPEC")
    args = parser.parse_args()
    pipelines = {}
    for item in args.pipeline:
        label, sep, spec = item.partition("=")
        if not sep or not label or label in ("mlc", "onnxruntime", "numpy"):
            parser.error(f"--pipeline wants LABEL=SPEC with a new label, got {item!r}")
        pipelines[label] = spec if spec.startswith("builtin.module(") else f"builtin.module({spec})"
    print("| kernel | threads | mlc ms | GF/s | ort ms | GF/s | numpy ms | GF/s | ort/mlc | err |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in args.shapes:
        r = bench(name, args.threads, args.rounds, args.number, pipelines)
        extra = "".join(f" {p} {r[f'{p}_ms']:.3f} ({r[f'{p}_ratio']:.2f})" for p in pipelines)
        print(
            f"| {name} | {args.threads} | {r['mlc_ms']:.3f} | {r['mlc_gflops']:.0f} | "
            f"{r['onnxruntime_ms']:.3f} | {r['onnxruntime_gflops']:.0f} | {r['numpy_ms']:.3f} | "
            f"{r['numpy_gflops']:.0f} | {r['ratio']:.2f} | {r['rel_err']:.1e} |{extra}",
            flush=True,
        )


if __name__ == "__main__":
    main()
