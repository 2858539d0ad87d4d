"""Time every fused kernel of a model on its own, classify it: where does the time go?

    python bench/profile_kernels.py squeezenet [--top 15] [--threads 1]
    python bench/profile_kernels.py vit_s16_like --json build/runs/vit_s16_like.json
    python bench/profile_kernels.py path/to/model.onnx
    python bench/profile_kernels.py resnet18 --batch 8     # the dynamic export at batch 8
    python bench/profile_kernels.py --summarize build/runs/*.json [--top 3]   # markdown table

The model is a light-zoo name, a modern/holdout name (`bench/modern_models.py`) or an .onnx
path. Each kernel (after mlc-default's graph passes: the kernels the model runs, weights packed) is
compiled as a one-call model with random
inputs (zeros for integer ones: they are indices) and timed with GraphModule.benchmark; the
table lists the slowest kernels with their share of the summed time, how often the model calls
them, a category and the rate they reach:

- GEMM-shaped kernels (matmul, batch_matmul, dense, with their epilogue): GFLOP/s, next to
  numpy's matmul and an onnxruntime MatMul of the same shape, timed in a subprocess whose BLAS
  and onnxruntime have as many threads as the kernel (OPENBLAS_NUM_THREADS), and the shape as
  batch x [M x K] x [K x N];
- convolutions (dense, grouped, depthwise): GFLOP/s;
- everything else: GB/s over the bytes of its arguments and results, and ns per output element.

Categories: conv, dw-conv, grouped-conv, gemm, batched-gemm, norm (layer_norm, softmax),
transcendental (erf, tanh, exp, sigmoid... without a GEMM/conv), elementwise, reduce/pool,
layout (transpose, reshape, gather, concat, layout_transform...). A kernel whose anchor has an
epilogue with transcendental math is marked `+erf`, `+sigmoid`, ...
The sum over kernels is compared with the whole model's time (`--no-whole` skips it).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
from dataclasses import asdict, dataclass

import numpy as np
from mlir import ir
from mlir.dialects import func

import mlc
from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph import KERNEL_ATTR
from mlc.passes.mlc_default import MlcDefaultPipeline

GEMM_OPS = {"matmul", "batch_matmul", "dense"}


def graph_stage(threads: int = 1, vector_bits: int | None = None) -> str:
    """mlc-default's graph passes (layouts, packed weights, fusion): the kernels the model runs,
    for the host's vector width or the one given (tests pin it: kernels differ with the width)."""
    pipeline = MlcDefaultPipeline(threads=threads, vector_bits=vector_bits)
    return f"builtin.module({pipeline.stages()[0]})"


TRANSCENDENTAL_OPS = {
    "sigmoid",
    "tanh",
    "erf",
    "exp",
    "log",
    "softplus",
    "gelu",
    "elu",
    "selu",
    "pow",
    "sin",
    "cos",
    "mish",
    "celu",
}
NORM_OPS = {"layer_norm", "softmax", "log_softmax", "batch_norm", "lrn", "instance_norm"}
POOL_OPS = {
    "max_pool2d",
    "avg_pool2d",
    "global_avg_pool2d",
    "global_max_pool2d",
    "max_pool_nd",
    "avg_pool_nd",
    "lp_pool_nd",
    "argmax",
    "argmin",
}
LAYOUT_OPS = {
    "layout_transform",
    "transpose",
    "reshape",
    "gather",
    "slice",
    "squeeze",
    "unsqueeze",
    "flatten",
    "expand",
    "tile",
    "pad",
    "concat",
    "cast",
}


@dataclass
class KernelInfo:
    """What a kernel computes: category, a short description, work and traffic."""

    category: str
    detail: str
    flops: float
    bytes: int
    elements: int
    gemm: tuple[int, int, int, int] | None = None
    """(batch, M, K, N) of a GEMM-shaped kernel."""


def _shape(value: ir.Value) -> tuple[int, ...]:
    return tuple(ir.RankedTensorType(value.type).shape)


def _nbytes(value: ir.Value) -> int:
    t = ir.RankedTensorType(value.type)
    width = t.element_type.width if hasattr(t.element_type, "width") else 32
    return int(np.prod(t.shape, dtype=np.int64)) * max(width // 8, 1)


def _op_kind(op: ir.Operation) -> str:
    name = op.name
    return name.split(".", 1)[1] if name.startswith(("graph.", "tensor.")) else name


def describe(kernel: func.FuncOp) -> KernelInfo:
    """Classify a kernel function by the graph ops it holds."""
    ops = [
        o.operation
        for o in kernel.regions[0].blocks[0].operations
        if o.operation.name != "func.return"
    ]
    kinds = [_op_kind(o) for o in ops]
    args = list(kernel.regions[0].blocks[0].arguments)
    last = ops[-1]
    traffic = sum(_nbytes(a) for a in args) + sum(_nbytes(r) for r in last.results)
    elements = int(np.prod(_shape(last.results[0]), dtype=np.int64))
    math = sorted({k for k in kinds if k in TRANSCENDENTAL_OPS})
    suffix = "".join(f" +{k}" for k in math)
    for op, kind in zip(ops, kinds, strict=True):
        if kind == "conv2d":
            return _describe_conv(op, suffix, traffic, elements)
        if kind == "conv_nd":
            return _describe_conv_nd(op, suffix, traffic, elements)
        if kind in GEMM_OPS:
            return _describe_gemm(op, kind, suffix, traffic, elements)
    detail = "+".join(dict.fromkeys(kinds))
    if any(k in NORM_OPS for k in kinds):
        category = "norm"
    elif any(k in POOL_OPS or k.startswith("reduce_") for k in kinds):
        category = "reduce/pool"
    elif math:
        category = "transcendental"
    elif all(k in LAYOUT_OPS for k in kinds):
        category = "layout"
    else:
        category = "elementwise"
    return KernelInfo(category, detail, 0.0, traffic, elements)


def _describe_conv(op: ir.Operation, suffix: str, traffic: int, elements: int) -> KernelInfo:
    out, weight = _shape(op.results[0]), _shape(op.operands[1])
    group = ir.IntegerAttr(op.attributes["group"]).value
    channels = elements // (out[0] * out[2] * out[3])
    macs_per_output = int(np.prod(weight)) // channels
    kh, kw = weight[2], weight[3]
    stride = list(ir.DenseI64ArrayAttr(op.attributes["strides"]))
    if group == 1:
        category = "conv"
    elif group == channels and macs_per_output == kh * kw:
        category = "dw-conv"
    else:
        category = "grouped-conv"
    layout = ir.StringAttr(op.attributes["out_layout"]).value
    detail = (
        f"conv {kh}x{kw}/s{stride[0]} {macs_per_output // (kh * kw) * group}->{channels}ch "
        f"g{group} {out[2]}x{out[3]} {layout}{suffix}"
    )
    return KernelInfo(category, detail, 2.0 * elements * macs_per_output, traffic, elements)


def _describe_conv_nd(op: ir.Operation, suffix: str, traffic: int, elements: int) -> KernelInfo:
    """An N-D (1-D, 3-D ...) convolution: plain NC<spatial> layout, one MAC per output element
    per weight element of its group."""
    out, weight = _shape(op.results[0]), _shape(op.operands[1])
    group = ir.IntegerAttr(op.attributes["group"]).value if "group" in op.attributes else 1
    macs_per_output = int(np.prod(weight[1:]))
    kernel = "x".join(map(str, weight[2:]))
    spatial = "x".join(map(str, out[2:]))
    category = "conv" if group == 1 else "grouped-conv"
    detail = f"conv_nd {kernel} {weight[1] * group}->{out[1]}ch g{group} {spatial}{suffix}"
    return KernelInfo(category, detail, 2.0 * elements * macs_per_output, traffic, elements)


def _describe_gemm(
    op: ir.Operation, kind: str, suffix: str, traffic: int, elements: int
) -> KernelInfo:
    lhs, rhs, out = _shape(op.operands[0]), _shape(op.operands[1]), _shape(op.results[0])
    if kind == "dense":
        trans_a = ir.IntegerAttr(op.attributes["transA"]).value if "transA" in op.attributes else 0
        k = lhs[0] if trans_a else lhs[1]
        batch, m, n = 1, out[0], out[1]
    elif _packed(lhs, rhs, out):  # graph-pack-weights' [.., N/p, M, p] = A x B[N/p, K, p]
        k, m, n = lhs[-1], out[-2], rhs[0] * rhs[2]
        batch = int(np.prod(out[:-3]))
    else:
        k = lhs[-1]
        batched = len(rhs) > 2 and int(np.prod(rhs[:-2])) > 1
        batch = int(np.prod(out[:-2])) if batched else 1
        m = int(np.prod(out[:-1])) // batch
        n = out[-1]
    category = "batched-gemm" if batch > 1 else "gemm"
    detail = f"{kind} {batch}x[{m}x{k}]x[{k}x{n}]{suffix}"
    return KernelInfo(
        category, detail, 2.0 * batch * m * n * k, traffic, elements, (batch, m, k, n)
    )


def _packed(lhs: tuple[int, ...], rhs: tuple[int, ...], out: tuple[int, ...]) -> bool:
    """Whether a matmul multiplies by weights stored in column panels [N/p, K, p]: A [M, K],
    [1, M, K] or [.., 1, M, K] broadcast against the panels (an attention product's batch of
    heads is a batch of A too)."""
    return (
        len(rhs) == 3
        and len(out) >= 3
        and lhs[-1] == rhs[1]
        and (out[-3], out[-1]) == (rhs[0], rhs[2])
        and lhs[-3:-2] in ((), (1,))
    )


def kernel_modules(module: ir.Module) -> list[tuple[str, ir.Module, int, KernelInfo]]:
    """One module per distinct kernel: @main(args) -> call kernel; its call count and info."""
    out = []
    body = module.body
    calls: dict[str, int] = {}
    for op in body.operations:
        if op.operation.name == "func.func" and KERNEL_ATTR not in op.operation.attributes:
            for inner in op.regions[0].blocks[0].operations:
                if inner.operation.name == "func.call":
                    callee = ir.FlatSymbolRefAttr(inner.operation.attributes["callee"]).value
                    calls[callee] = calls.get(callee, 0) + 1
    for op in body.operations:
        if op.operation.name != "func.func" or KERNEL_ATTR not in op.operation.attributes:
            continue
        name = ir.StringAttr(op.operation.attributes["sym_name"]).value
        info = describe(op)
        with module.context, ir.Location.unknown():
            single = ir.Module.create()
            ftype = ir.FunctionType(ir.TypeAttr(op.operation.attributes["function_type"]).value)
            with ir.InsertionPoint(single.body):
                kernel = op.operation.clone()
                main = func.FuncOp("main", (list(ftype.inputs), list(ftype.results)))
                entry = main.add_entry_block()
                with ir.InsertionPoint(entry):
                    call = func.CallOp(
                        list(ftype.results), ir.FlatSymbolRefAttr.get(name), list(entry.arguments)
                    )
                    func.ReturnOp(list(call.results))
            del kernel
        out.append((name, single, calls.get(name, 0), info))
    return out


@dataclass
class Row:
    kernel: str
    calls: int
    seconds: float
    """Per model run: median time of one call x calls."""
    info: KernelInfo
    numpy_seconds: float | None = None
    """numpy matmul of the same (batch, M, K, N), one call."""
    ort_seconds: float | None = None
    """onnxruntime MatMul of the same shape (B a constant), one call."""

    @property
    def gflops(self) -> float:
        return self.info.flops * self.calls / self.seconds / 1e9

    @property
    def gbytes(self) -> float:
        return self.info.bytes * self.calls / self.seconds / 1e9


def profile(module: ir.Module, threads: int) -> list[Row]:
    from mlc.contract import NUMPY_DTYPES
    from mlc.runtime import GraphModule

    rows = []
    for name, single, count, info in kernel_modules(module):
        main = next(
            o
            for o in single.body.operations
            if ir.StringAttr(o.operation.attributes["sym_name"]).value == "main"
        )
        args = [tensor_t(a.type) for a in main.regions[0].blocks[0].arguments]
        lib = mlc.build(single, {}, threads=threads)
        gm = GraphModule(lib.jit())
        rng = np.random.default_rng(0)
        for i, t in enumerate(args):
            assert t is not None
            dtype = np.dtype(NUMPY_DTYPES[t.dtype])
            value = rng.standard_normal(t.shape) if dtype.kind == "f" else np.zeros(t.shape)
            gm.set_input(i, value.astype(dtype))
        result = gm.benchmark(number=3, repeat=3)
        rows.append(Row(name, count, result.median * count, info))
    return sorted(rows, key=lambda r: r.seconds, reverse=True)


PEER_SCRIPT = """
import json, sys, time
import numpy as np
import onnx, onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
threads = int(sys.argv[1])


def ort_matmul(a, b):
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["c"])], "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, list(a.shape))],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(model.SerializeToString(), options)
    return lambda: session.run(None, {"a": a})


def median_seconds(fn):
    fn()
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(3):
            fn()
        samples.append((time.perf_counter() - start) / 3)
    return float(np.median(samples))


out = []
for batch, m, k, n in json.load(sys.stdin):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((batch, m, k) if batch > 1 else (m, k)).astype(np.float32)
    b = rng.standard_normal((batch, k, n) if batch > 1 else (k, n)).astype(np.float32)
    out.append([median_seconds(lambda: np.matmul(a, b)), median_seconds(ort_matmul(a, b))])
print(json.dumps(out))
"""


def peer_gemm_seconds(
    shapes: list[tuple[int, int, int, int]], threads: int
) -> list[tuple[float, float]]:
    """(numpy.matmul, onnxruntime MatMul) time per shape, in a subprocess whose BLAS and
    onnxruntime use `threads` threads (numpy's OpenBLAS may use AVX2 kernels where
    onnxruntime's MLAS uses AVX-512 ones)."""
    env = dict(
        os.environ,
        OPENBLAS_NUM_THREADS=str(threads),
        OMP_NUM_THREADS=str(threads),
        MKL_NUM_THREADS=str(threads),
    )
    done = subprocess.run(
        [sys.executable, "-c", PEER_SCRIPT, str(threads)],
        input=json.dumps(shapes),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return [(float(a), float(b)) for a, b in json.loads(done.stdout)]


def whole_model_seconds(model_arg: str, threads: int, batch: int = 1) -> float:
    from mlc.runtime import GraphModule

    model, feed, shapes = load(model_arg, batch)
    module, params = mlc.from_onnx(model, shape_dict=shapes)
    gm = GraphModule(mlc.build(module, params, threads=threads).jit())
    for name, value in feed.items():
        gm.set_input(name, value)
    return gm.benchmark(number=3, repeat=3).median


def load(model_arg: str, batch: int = 1):  # type: ignore[no-untyped-def]
    """(ModelProto, input feed, shape_dict for from_onnx) of an .onnx path (batch 1 only), a
    light-zoo or a modern/holdout model name (`bench_models.model_at_batch`)."""
    import onnx

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import bench_models
    import modern_models

    if model_arg.endswith(".onnx"):
        if batch != 1:
            raise SystemExit(f"--batch {batch} takes a model name, not the file {model_arg}")
        model = onnx.load(model_arg)
        return model, modern_models.input_feed(model), None
    return bench_models.model_at_batch(model_arg, batch)


def category_totals(rows: list[Row]) -> list[tuple[str, float, int]]:
    totals: dict[str, list[float]] = {}
    for r in rows:
        entry = totals.setdefault(r.info.category, [0.0, 0])
        entry[0] += r.seconds
        entry[1] += r.calls
    return sorted(((c, s, int(n)) for c, (s, n) in totals.items()), key=lambda t: -t[1])


def rate(r: Row) -> str:
    if r.info.flops:
        text = f"{r.gflops:6.1f} GF/s"
        if r.numpy_seconds and r.ort_seconds:
            text += (
                f" (np {r.info.flops / r.numpy_seconds / 1e9:3.0f},"
                f" ort {r.info.flops / r.ort_seconds / 1e9:3.0f})"
            )
        return text
    ns = r.seconds / r.calls / max(r.info.elements, 1) * 1e9
    return f"{r.gbytes:6.1f} GB/s {ns:6.2f} ns/el"


def summarize(paths: list[str], top: int) -> str:
    """Markdown: the `top` kernels of each profiled model (from --json files) and its categories."""
    lines = ["| model | kernel share | category | rate | kernel (calls) |", "|---|---|---|---|---|"]
    for path in paths:
        data = json.loads(pathlib.Path(path).read_text())
        total = data["kernel_total_s"]
        for r in data["rows"][:top]:
            info = r["info"]
            if r["gflops"] is not None:
                rate_text = f"{r['gflops']:.1f} GFLOP/s"
                if r.get("ort_gflops"):
                    rate_text += f" (numpy {r['numpy_gflops']:.0f}, ort {r['ort_gflops']:.0f})"
            else:
                per_call = r["seconds"] / r["calls"]
                rate_text = (
                    f"{info['bytes'] / per_call / 1e9:.1f} GB/s, "
                    f"{per_call / max(info['elements'], 1) * 1e9:.2f} ns/el"
                )
            lines.append(
                f"| {data['model']} | {100 * r['seconds'] / total:.1f}% | "
                f"{info['category']} | {rate_text} | {info['detail']} ({r['calls']}) |"
            )
    return "\n".join(lines) + "\n\n" + _category_table(paths)


def _category_table(paths: list[str]) -> str:
    datas = [json.loads(pathlib.Path(p).read_text()) for p in paths]
    shares = []
    for data in datas:
        by: dict[str, float] = {}
        for r in data["rows"]:
            by[r["info"]["category"]] = by.get(r["info"]["category"], 0.0) + r["seconds"]
        shares.append({c: 100 * s / data["kernel_total_s"] for c, s in by.items()})
    categories = sorted(
        {c for s in shares for c in s}, key=lambda c: -sum(s.get(c, 0) for s in shares)
    )
    lines = [
        "| model | kernels (ms) | whole (ms) | " + " | ".join(categories) + " |",
        "|---|---|---|" + "---|" * len(categories),
    ]
    for data, share in zip(datas, shares, strict=True):
        whole = f"{1e3 * data['whole_model_s']:.1f}" if data["whole_model_s"] else ""
        cells = " | ".join(f"{share[c]:.0f}%" if c in share else "" for c in categories)
        kernels = f"{1e3 * data['kernel_total_s']:.1f}"
        lines.append(f"| {data['model']} | {kernels} | {whole} | {cells} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    if "--summarize" in sys.argv:
        parser = argparse.ArgumentParser(description="Top kernels of profiled models (markdown).")
        parser.add_argument("--summarize", nargs="+", required=True, metavar="JSON")
        parser.add_argument("--top", type=int, default=3)
        args = parser.parse_args()
        print(summarize(args.summarize, args.top), end="")
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="a light/modern/holdout model name or an .onnx path")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--no-whole", action="store_true", help="skip the whole-model timing")
    parser.add_argument("--json", help="write all rows and totals to this JSON file")
    parser.add_argument("--batch", type=int, default=1, help="> 1: the dynamic export")
    args = parser.parse_args()
    model, _, shapes = load(args.model, args.batch)
    module, params = mlc.from_onnx(model, shape_dict=shapes)
    mlc.PassManager.parse(graph_stage(args.threads)).run(module, params=params)
    rows = profile(module, args.threads)
    gemms = [r for r in rows if r.info.gemm]
    peers = peer_gemm_seconds([r.info.gemm for r in gemms], args.threads)  # type: ignore[misc]
    for r, (numpy_s, ort_s) in zip(gemms, peers, strict=True):
        r.numpy_seconds, r.ort_seconds = numpy_s, ort_s
    total = sum(r.seconds for r in rows)
    print(f"{'ms':>8} {'share':>6} {'calls':>5}  {'category':14s} {'rate':36s} kernel / detail")
    for r in rows[: args.top]:
        print(
            f"{r.seconds * 1e3:8.2f} {100 * r.seconds / total:5.1f}% {r.calls:5d}  "
            f"{r.info.category:14s} {rate(r):36s} {r.kernel}: {r.info.detail}"
        )
    print(f"{total * 1e3:8.2f} total over {len(rows)} kernels")
    print("\nby category:")
    for category, seconds, calls in category_totals(rows):
        print(f"{seconds * 1e3:8.2f} {100 * seconds / total:5.1f}% {calls:5d}  {category}")
    whole = None if args.no_whole else whole_model_seconds(args.model, args.threads, args.batch)
    if whole is not None:
        print(f"\nwhole model: {whole * 1e3:.2f} ms (kernels alone: {total * 1e3:.2f} ms)")
    if args.json:
        payload = {
            "model": args.model,
            "threads": args.threads,
            "kernel_total_s": total,
            "whole_model_s": whole,
            "rows": [
                dict(
                    asdict(r),
                    gflops=r.gflops if r.info.flops else None,
                    numpy_gflops=(
                        r.info.flops / r.numpy_seconds / 1e9 if r.numpy_seconds else None
                    ),
                    ort_gflops=(r.info.flops / r.ort_seconds / 1e9 if r.ort_seconds else None),
                )
                for r in rows
            ],
        }
        pathlib.Path(args.json).write_text(json.dumps(payload, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
