"""tp-profile: time every kernel call of the model entry inside the real run.

Each `func.call` of a tp kernel in the entry is bracketed by two reads of CLOCK_MONOTONIC
(`clock_gettime`, a vDSO call of about 20 ns), and the difference is added to that call's slot of
a module-private counter array; the last slot counts runs. `@<entry>_profile(out)` (with a C
interface, like the entry) copies the counters out and zeroes them. The manifest gains a
`profile` list, one item per call in call order: the kernel, the ONNX node names of the call's
location (graph-fuse joins the locations of the ops it fuses), the graph ops of the kernel, its
anchor op (for grouping) and its arithmetic operations per call. A call rather than a kernel gets
a slot: identical kernels are shared, and each call runs different nodes.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, func, memref

from mlc.contract import MANIFEST_ATTR, PROFILE_KEY, profile_symbol
from mlc.dialects import tp
from mlc.dialects.tp import BlockView
from mlc.errors import DiagnosticError

from .base import ModulePass, PassContext

COUNTERS = "__mlc_profile_ns"
CLOCK = "__mlc_profile_clock"
CLOCK_MONOTONIC = 1  # Linux

_HELPERS = """
llvm.func @clock_gettime(i32, !llvm.ptr) -> i32
func.func private @{clock}() -> i64 attributes {{llvm.linkage = #llvm.linkage<internal>}} {{
  %clk = llvm.mlir.constant({clk} : i32) : i32
  %one = llvm.mlir.constant(1 : i32) : i32
  %ts = llvm.alloca %one x !llvm.array<2 x i64> : (i32) -> !llvm.ptr
  %rc = llvm.call @clock_gettime(%clk, %ts) : (i32, !llvm.ptr) -> i32
  %s = llvm.load %ts : !llvm.ptr -> i64
  %p = llvm.getelementptr %ts[1] : (!llvm.ptr) -> !llvm.ptr, i64
  %ns = llvm.load %p : !llvm.ptr -> i64
  %giga = arith.constant 1000000000 : i64
  %a = arith.muli %s, %giga : i64
  %t = arith.addi %a, %ns : i64
  return %t : i64
}}
memref.global "private" @{counters} : memref<{n}xi64> = dense<0>
func.func @{read}(%out: memref<{n}xi64>) attributes {{llvm.emit_c_interface}} {{
  %g = memref.get_global @{counters} : memref<{n}xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant {n} : index
  %zero = arith.constant 0 : i64
  scf.for %i = %c0 to %cn step %c1 {{
    %v = memref.load %g[%i] : memref<{n}xi64>
    memref.store %v, %out[%i] : memref<{n}xi64>
    memref.store %zero, %g[%i] : memref<{n}xi64>
  }}
  return
}}
"""


def block_flops(view: BlockView) -> int:
    """Iterations x (arithmetic ops of the body + the combiner); 0 when an extent is known at
    run time only (the manifest holds numbers; a profile then reports no rate)."""
    if not all(isinstance(e, int) for e in view.extents):
        return 0
    ops = sum(
        1
        for op in view.body.operations
        if op.operation.name.split(".")[0] in ("arith", "math")
        and op.operation.name not in ("arith.constant", "arith.index_cast")
    )
    return math.prod(view.extents) * (ops + (view.combiner != "none"))


def node_names(loc: ir.Location) -> list[str]:
    """The names in a (possibly fused) location: the ONNX node names the frontend gave."""
    if loc.is_a_name():
        return [loc.name_str]
    if loc.is_a_fused():
        return [name for inner in loc.locations for name in node_names(inner)]
    if loc.is_a_callsite():
        return node_names(loc.callee)
    return []


def graph_ops(kernel: str) -> list[str]:
    """The graph ops in a kernel's name (`fused_conv2d_relu_2` -> conv2d, relu), split on the
    graph dialect's op names (`mlc.passes.outline.kernel_name` joins them with '_')."""
    from mlc.dialects.graph.spec import OPS

    known = {name.replace(".", "_") for name in OPS} | {"copy", "etc"}
    words = re.sub(r"_\d+$", "", kernel.removeprefix("fused_")).split("_")
    out: list[str] = []
    i = 0
    while i < len(words):
        for j in range(len(words), i, -1):  # the longest op name first (layout_transform)
            if "_".join(words[i:j]) in known:
                out.append("_".join(words[i:j]))
                i = j
                break
        else:
            out.append(words[i])
            i += 1
    return [w for w in out if w != "etc"]


def anchor(views: list[BlockView], ops: list[str]) -> str:
    """The op a kernel is about: its reduction block's op (conv2d, matmul, reduce_mean), else its
    first graph op."""
    for v in views:
        if "R" in v.kinds:
            return re.sub(r"_\d+$", "", v.name)
    return ops[0] if ops else "copy"


@dataclass(frozen=True)
class TpProfilePass(ModulePass):
    """Time each kernel call of the model entry (counters read with @<entry>_profile)."""

    name: ClassVar[str] = "tp-profile"
    symbolic_dims: ClassVar[bool] = True

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        attrs = module.attributes
        if MANIFEST_ATTR not in attrs:
            raise DiagnosticError(
                "tp-profile: the module has no mlc.manifest (run it after graph-to-tp)",
                module.location,
            )
        manifest = json.loads(ir.StringAttr(attrs[MANIFEST_ATTR]).value)
        if PROFILE_KEY in manifest:
            return  # already instrumented
        entry = manifest["entry"]
        kernels = {ir.StringAttr(f.attributes["sym_name"]).value: f for f in tp.kernels(module)}
        funcs = [
            op.operation
            for op in module.regions[0].blocks[0].operations
            if op.operation.name == "func.func"
            and ir.StringAttr(op.operation.attributes["sym_name"]).value == entry
        ]
        if not funcs:
            raise DiagnosticError(f"tp-profile: no func.func @{entry} (the entry)", module.location)
        body = funcs[0].regions[0].blocks[0]
        calls = [
            op.operation
            for op in body.operations
            if op.operation.name == "func.call"
            and ir.FlatSymbolRefAttr(op.operation.attributes["callee"]).value in kernels
        ]
        slots = len(calls) + 1  # the last one counts runs
        helpers = _HELPERS.format(
            clock=CLOCK, clk=CLOCK_MONOTONIC, counters=COUNTERS, n=slots, read=profile_symbol(entry)
        )
        parsed = ir.Module.parse(helpers, module.context)
        for op in list(parsed.body.operations):
            op.operation.move_before(funcs[0])
        table = []
        i64 = ir.IntegerType.get_signless(64)
        counters_type = ir.MemRefType.get([slots], i64)
        order = [op.operation for op in body.operations]
        for slot, call in enumerate(calls):
            kernel = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
            views = [BlockView(op) for op in _blocks(kernels[kernel])]
            ops = graph_ops(kernel)
            table.append(
                {
                    "kernel": kernel,
                    "nodes": node_names(call.location),
                    "ops": ops,
                    "anchor": anchor(views, ops),
                    "flops": sum(block_flops(v) for v in views),
                }
            )
            with call.location:
                with ir.InsertionPoint(call):
                    start = func.CallOp([i64], ir.FlatSymbolRefAttr.get(CLOCK), []).result
                with ir.InsertionPoint(order[order.index(call) + 1]):  # the entry ends in return
                    end = func.CallOp([i64], ir.FlatSymbolRefAttr.get(CLOCK), []).result
                    _accumulate(counters_type, slot, arith.SubIOp(end, start).result)
        terminator = list(body.operations)[-1]
        with funcs[0].location, ir.InsertionPoint(terminator):
            _accumulate(counters_type, slots - 1, arith.ConstantOp(i64, 1).result)
        manifest[PROFILE_KEY] = table
        attrs[MANIFEST_ATTR] = ir.StringAttr.get(json.dumps(manifest, sort_keys=True))


def _blocks(kernel: ir.Operation) -> list[ir.Operation]:
    out: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "tp.block":
            out.append(op)
        return ir.WalkResult.ADVANCE

    kernel.walk(visit)
    return out


def _accumulate(counters_type: ir.MemRefType, slot: int, amount: ir.Value) -> None:
    counters = memref.GetGlobalOp(counters_type, COUNTERS).result
    index = arith.ConstantOp(ir.IndexType.get(), slot).result
    old = memref.LoadOp(counters, [index]).result
    memref.StoreOp(arith.AddIOp(old, amount).result, counters, [index])
