"""omp-threads: the thread count of every parallel region read from one global, set at run time.

convert-scf-to-openmp gives each `omp.parallel` a constant `num_threads`. A deployed library
wants the count chosen when a model is created (the C API's `num_threads`), not when it was
compiled: this pass makes every region load it from `@<entry>_num_threads`, an i32 global
initialized to the compiled count, which the C runtime linked into the library sets before a
run. The schedules stay valid for any count: the chunks of `omp-schedule` are sizes of work,
not a division among a fixed number of threads. Run it after omp-schedule, which reads the
constant to size those chunks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from mlc.contract import ENTRY, MANIFEST_ATTR

from .base import ModulePass, PassContext

_SEGMENTS = "operandSegmentSizes"
NUM_THREADS_OPERAND = 3  # operand groups: allocate, allocator, if, num_threads, private, reduction


def num_threads_symbol(entry: str) -> str:
    return f"{entry}_num_threads"


@dataclass(frozen=True)
class OmpThreadsPass(ModulePass):
    """Make each omp.parallel take its thread count from a global set at run time."""

    name: ClassVar[str] = "omp-threads"
    symbolic_dims: ClassVar[bool] = True
    emits_mlc_dialects: ClassVar[bool] = False

    threads: int = 2
    """The global's initial value: the count the module was compiled for."""

    def __post_init__(self) -> None:
        if self.threads < 1:
            raise ValueError(f"threads must be >= 1, got {self.threads}")

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        regions: list[ir.Operation] = []

        def visit(op: ir.Operation) -> ir.WalkResult:
            if op.name == "omp.parallel":
                regions.append(op)
            return ir.WalkResult.ADVANCE

        module.walk(visit)
        symbol = num_threads_symbol(_entry(module))
        i32 = ir.IntegerType.get_signless(32)
        body = module.regions[0].blocks[0]
        existing = [o for o in body.operations if _sym_name(o.operation) == symbol]
        if not existing:
            with ir.InsertionPoint.at_block_begin(body), module.location:
                ir.Operation.create(
                    "llvm.mlir.global",
                    attributes={
                        "sym_name": ir.StringAttr.get(symbol),
                        "global_type": ir.TypeAttr.get(i32),
                        "linkage": ir.Attribute.parse("#llvm.linkage<external>"),
                        "value": ir.IntegerAttr.get(i32, self.threads),
                        "addr_space": ir.IntegerAttr.get(i32, 0),
                    },
                    regions=1,
                )
        ptr = ir.Type.parse("!llvm.ptr")
        for region in regions:
            segments = list(ir.DenseI32ArrayAttr(region.attributes[_SEGMENTS]))
            if len(segments) <= NUM_THREADS_OPERAND or segments[NUM_THREADS_OPERAND] != 1:
                continue
            index = sum(segments[:NUM_THREADS_OPERAND])
            if _loads_global(region.operands[index]):
                continue  # already done (the pass is idempotent)
            with ir.InsertionPoint(region), region.location:
                address = ir.Operation.create(
                    "llvm.mlir.addressof",
                    results=[ptr],
                    attributes={"global_name": ir.FlatSymbolRefAttr.get(symbol)},
                ).result
                count = ir.Operation.create("llvm.load", results=[i32], operands=[address]).result
            region.operands[index] = count


def _entry(module: ir.Operation) -> str:
    if MANIFEST_ATTR in module.attributes:
        return str(json.loads(ir.StringAttr(module.attributes[MANIFEST_ATTR]).value)["entry"])
    return ENTRY


def _sym_name(op: ir.Operation) -> str | None:
    return ir.StringAttr(op.attributes["sym_name"]).value if "sym_name" in op.attributes else None


def _loads_global(value: ir.Value) -> bool:
    owner = value.owner
    return not isinstance(owner, ir.Block) and owner.name == "llvm.load"
