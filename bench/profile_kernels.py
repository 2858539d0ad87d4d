"""Time every fused kernel of a model on its own: where does the time go?

    python bench/profile_kernels.py squeezenet [--top 15] [--threads 1]
    python bench/profile_kernels.py path/to/model.onnx

Each kernel (after graph-simplify/fold/fuse) is compiled as a one-call model with random
inputs and timed with GraphModule.benchmark; the table lists the slowest kernels with their
share of the summed time and how often the model calls them.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np
from mlir import ir
from mlir.dialects import func

import mlc
from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph import KERNEL_ATTR

GRAPH_STAGE = (
    "builtin.module(graph-simplify,graph-fold-constants,graph-alter-layout,graph-simplify,"
    "graph-fold-constants,mlc-cse,mlc-dce,graph-fuse)"
)


def kernel_modules(module: ir.Module) -> list[tuple[str, ir.Module, int]]:
    """One module per distinct kernel: @main(args) -> call kernel; with its call count."""
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
        out.append((name, single, calls.get(name, 0)))
    return out


def profile(module: ir.Module, threads: int) -> list[tuple[float, str, int]]:
    from mlc.contract import NUMPY_DTYPES
    from mlc.runtime import GraphModule

    rows = []
    for name, single, count in kernel_modules(module):
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
            gm.set_input(i, rng.standard_normal(t.shape).astype(NUMPY_DTYPES[t.dtype]))
        result = gm.benchmark(number=3, repeat=3)
        rows.append((result.median * count, name, count))
    return sorted(rows, reverse=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="a light zoo name (e.g. resnet50) or an .onnx path")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    if args.model.endswith(".onnx"):
        module, params = mlc.from_onnx(pathlib.Path(args.model))
    else:
        from mlc.frontend.onnx.zoo import load_light_model

        module, params = mlc.from_onnx(load_light_model(args.model))
    mlc.PassManager.parse(GRAPH_STAGE).run(module, params=params)
    rows = profile(module, args.threads)
    total = sum(r[0] for r in rows)
    print(f"{'ms':>8} {'share':>6} {'calls':>5}  kernel")
    for seconds, name, count in rows[: args.top]:
        print(f"{seconds * 1e3:8.2f} {100 * seconds / total:5.1f}% {count:5d}  {name}")
    print(f"{total * 1e3:8.2f} total over {len(rows)} kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
