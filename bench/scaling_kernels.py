"""Every fused kernel of a model at 1 and at N threads, in one process: which kernels scale?

    python bench/scaling_kernels.py resnet50 [--threads 2] [--top 20] [--rounds 5]
    python bench/scaling_kernels.py efficientnet_b0 --check-only

Each kernel (the same split as `profile_kernels.py`) is compiled twice, with `threads=1` and
`threads=N`, fed the same random inputs, and the outputs are compared (a kernel whose parallel
version differs is a bug: `MISMATCH`). The two builds are timed in alternating rounds (each
round: `--number` calls of one, then of the other) so machine noise hits both alike; the table
lists the median (or `--stat min`: the fastest) per call, the speedup (1-thread / N-thread) and
each kernel's share of the N-thread total, slowest first. The last line is the summed speedup.

Before and after, a probe times a relu over 2^17 floats at 1 and N threads: on a machine where
other processes crowd the cores, the scheduler may put both threads on one core for seconds,
and every parallel region then costs ~60 us instead of ~1 us; the probe shows which it was.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np
from mlir import ir

import mlc
from mlc.dialects.attrs import tensor_t
from mlc.runtime import GraphModule

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import profile_kernels  # noqa: E402  (a sibling script, not a package)


def _module_for(single: ir.Module, threads: int) -> GraphModule:
    return GraphModule(mlc.build(single, {}, threads=threads).jit())


def _inputs(single: ir.Module) -> list[np.ndarray]:
    from mlc.contract import NUMPY_DTYPES

    main = next(
        o
        for o in single.body.operations
        if ir.StringAttr(o.operation.attributes["sym_name"]).value == "main"
    )
    rng = np.random.default_rng(0)
    values = []
    for a in main.regions[0].blocks[0].arguments:
        t = tensor_t(a.type)
        assert t is not None
        dtype = np.dtype(NUMPY_DTYPES[t.dtype])
        value = rng.standard_normal(t.shape) if dtype.kind == "f" else np.zeros(t.shape)
        values.append(value.astype(dtype))
    return values


def _outputs(gm: GraphModule, inputs: list[np.ndarray]) -> list[np.ndarray]:
    for i, value in enumerate(inputs):
        gm.set_input(i, value)
    gm.run()
    return [np.array(gm.get_output(i)) for i in range(gm.get_num_outputs())]


def _max_rel(got: list[np.ndarray], want: list[np.ndarray]) -> float:
    error = 0.0
    for g, w in zip(got, want, strict=True):
        w64 = w.astype(np.float64)
        scale = max(float(np.abs(w64).max(initial=0.0)), 1e-30)
        error = max(error, float(np.abs(g.astype(np.float64) - w64).max(initial=0.0)) / scale)
    return error


def probe(threads: int) -> str:
    """1-thread and N-thread time of a relu over 2^17 floats (one parallel region)."""
    from onnx import TensorProto, helper

    shape = [128, 1024]
    value = helper.make_tensor_value_info
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "probe",
        [value("x", TensorProto.FLOAT, shape)],
        [value("y", TensorProto.FLOAT, shape)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    times = []
    for t in (1, threads):
        module, params = mlc.from_onnx(model)
        gm = GraphModule(mlc.build(module, params, threads=t).jit())
        gm.set_input(0, np.random.default_rng(0).standard_normal(shape).astype(np.float32))
        times.append(1e6 * min(gm.benchmark(number=20, repeat=10).samples))
    return f"probe (relu, 2^17 floats): 1 thread {times[0]:.1f} us, {threads}: {times[1]:.1f} us"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="a light/modern/holdout model name or an .onnx path")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--number", type=int, default=3)
    parser.add_argument("--check-only", action="store_true", help="compare outputs, no timing")
    parser.add_argument(
        "--stat",
        choices=("median", "min"),
        default="median",
        help="per-call statistic (min: what an idle machine gives, when others load it)",
    )
    args = parser.parse_args()
    model, _, shapes = profile_kernels.load(args.model)
    module, params = mlc.from_onnx(model, shape_dict=shapes)
    mlc.PassManager.parse(profile_kernels.graph_stage(args.threads)).run(module, params=params)
    print(probe(args.threads), flush=True)
    rows = []
    for name, single, calls, info in profile_kernels.kernel_modules(module):
        inputs = _inputs(single)
        one, many = _module_for(single, 1), _module_for(single, args.threads)
        error = _max_rel(_outputs(many, inputs), _outputs(one, inputs))
        if error > 1e-5:
            print(f"MISMATCH {name}: {info.detail}: max rel. error {error:.1e}", flush=True)
        if args.check_only:
            continue
        samples: tuple[list[float], list[float]] = ([], [])
        for _ in range(args.rounds):
            for gm, out in ((one, samples[0]), (many, samples[1])):
                out += gm.benchmark(number=args.number, repeat=1).samples
        stat = np.median if args.stat == "median" else np.min
        t1, tn = float(stat(samples[0])) * calls, float(stat(samples[1])) * calls
        rows.append((name, calls, info, t1, tn))
    if args.check_only:
        return 0
    rows.sort(key=lambda r: -r[4])
    total1, totaln = sum(r[3] for r in rows), sum(r[4] for r in rows)
    print(f"{'1t ms':>8} {'Nt ms':>8} {'speedup':>7} {'share':>6} {'calls':>5}  kernel / detail")
    for name, calls, info, t1, tn in rows[: args.top]:
        print(
            f"{t1 * 1e3:8.3f} {tn * 1e3:8.3f} {t1 / tn:7.2f} {100 * tn / totaln:5.1f}% {calls:5d}"
            f"  {name}: {info.category} {info.detail}"
        )
    speedup = total1 / totaln
    print(f"{total1 * 1e3:8.3f} {totaln * 1e3:8.3f} {speedup:7.2f} total, {len(rows)} kernels")
    print(probe(args.threads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
