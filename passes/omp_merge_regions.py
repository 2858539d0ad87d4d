"""omp-merge-regions: one OpenMP parallel region for consecutive regions of a function.

convert-scf-to-openmp turns every scf.parallel into its own `omp.parallel`, so a kernel of
several parallel blocks (a pad and its conv, the passes of a Winograd conv, the blocks of an
attention) forks and joins the threads once per block. This pass moves the body of each region
that follows another in the same block (only setup ops and serial loops between them) into the
first: the threads fork once per kernel. Work-sharing loops end with a barrier, so a block still
sees everything the one before it wrote; serial code between two regions runs in an
`omp.single` (one thread, then a barrier); pure setup ops between them (constants, views of the
scratch buffer) are hoisted above the first region. Run it after convert-scf-to-openmp (and
canonicalize), before omp-schedule and omp-threads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import openmp

from .base import ModulePass, PassContext

HOISTABLE_OPS = frozenset(
    {
        "affine.apply",
        "llvm.mlir.constant",
        "memref.cast",
        "memref.collapse_shape",
        "memref.expand_shape",
        "memref.reinterpret_cast",
        "memref.subview",
        "memref.view",
    }
)
"""Side-effect free ops (besides arith's) that may move above a parallel region."""

SERIAL_OPS = frozenset(
    {"scf.for", "scf.if", "memref.store", "memref.copy", "vector.store", "vector.transfer_write"}
)
"""Result-less ops between two regions that run on one thread inside the merged region."""


@dataclass(frozen=True)
class OmpMergeRegionsPass(ModulePass):
    """Merge consecutive omp.parallel regions of a block into one (serial code in omp.single)."""

    name: ClassVar[str] = "omp-merge-regions"
    symbolic_dims: ClassVar[bool] = True
    emits_mlc_dialects: ClassVar[bool] = False

    serial_between: bool = True
    """Also merge across serial loops between two regions (run by one thread in an omp.single
    with its closing barrier); false: only across setup ops (constants, views)."""
    nowait_last: bool = True
    """Give a region's last work-sharing loop `nowait`: the threads meet at the region's end
    anyway, so its own barrier is a second wait for nothing."""

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        blocks: list[ir.Block] = []

        def visit(op: ir.Operation) -> ir.WalkResult:
            if op.name == "omp.parallel":
                block = op.block
                if not any(b == block for b in blocks) and not _inside_parallel(op):
                    blocks.append(block)
            return ir.WalkResult.ADVANCE

        module.walk(visit)
        for block in blocks:
            for run in self._runs(block):
                _merge(run)
        if self.nowait_last:
            for block in blocks:
                for op in [o.operation for o in block.operations]:
                    if op.name == "omp.parallel" and _mergeable(op):
                        _skip_last_barrier(op)

    def _runs(self, block: ir.Block) -> list[list[ir.Operation]]:
        """Sequences `parallel, (setup | serial)*, parallel, ...` that can become one region."""
        runs: list[list[ir.Operation]] = []
        current: list[ir.Operation] = []
        for op in [o.operation for o in block.operations]:
            if op.name == "omp.parallel" and _mergeable(op):
                current.append(op)
                continue
            if current and (_hoistable(op) or (self.serial_between and _serial(op))):
                current.append(op)
                continue
            runs.append(current)
            current = []
        runs.append(current)
        out = []
        for run in runs:
            while run and run[-1].name != "omp.parallel":
                run.pop()  # what follows the last region stays outside
            if sum(op.name == "omp.parallel" for op in run) > 1:
                out.append(run)
        return out


def _merge(run: list[ir.Operation]) -> None:
    first = run[0]
    body = first.regions[0].blocks[0]
    end = _terminator(body)
    serial: list[ir.Operation] = []

    def flush() -> None:
        if not serial:
            return
        with ir.InsertionPoint(end), serial[0].location:
            single = openmp.SingleOp([], [], [], [])
            with ir.InsertionPoint(single.regions[0].blocks.append()):
                close = openmp.TerminatorOp()
        for op in serial:
            op.move_before(close)
        serial.clear()

    for op in run[1:]:
        if op.name == "omp.parallel":
            flush()
            if not _ends_in_barrier(body):
                with ir.InsertionPoint(end), op.location:
                    openmp.BarrierOp()
            src = op.regions[0].blocks[0]
            for inner_op in [o.operation for o in src.operations][:-1]:
                inner_op.move_before(end)
            op.erase()
        elif _hoistable(op):
            op.move_before(first)
        else:
            if not serial and not _ends_in_barrier(body):
                with ir.InsertionPoint(end), op.location:
                    openmp.BarrierOp()
            serial.append(op)
    flush()


def _skip_last_barrier(region: ir.Operation) -> None:
    ops = [o.operation for o in region.regions[0].blocks[0].operations]
    if len(ops) >= 2 and ops[-2].name == "omp.wsloop":
        ops[-2].attributes["nowait"] = ir.UnitAttr.get()


def _mergeable(op: ir.Operation) -> bool:
    """A region of one block whose clauses are only its thread count (no private or reduction
    variables, no `if`)."""
    region = op.regions[0]
    if len(region.blocks) != 1 or op.results:
        return False
    segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    return sum(segments) == segments[3] if len(segments) > 3 else sum(segments) == 0


def _hoistable(op: ir.Operation) -> bool:
    if len(op.regions) or not op.results:
        return False
    return op.name.startswith(("arith.", "index.")) or op.name in HOISTABLE_OPS


def _serial(op: ir.Operation) -> bool:
    if op.name not in SERIAL_OPS or op.results:
        return False
    found = []

    def visit(inner: ir.Operation) -> ir.WalkResult:
        if inner.name.startswith("omp.") or inner.name in ("func.call", "memref.alloca"):
            found.append(inner)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return not found


def _terminator(block: ir.Block) -> ir.Operation:
    ops = [o.operation for o in block.operations]
    return ops[-1]


def _ends_in_barrier(block: ir.Block) -> bool:
    """Whether the last op before the terminator ends in a barrier: a work-sharing loop or
    single without `nowait`, or a barrier."""
    ops = [o.operation for o in block.operations]
    if len(ops) < 2:
        return True  # nothing before: nothing to wait for
    last = ops[-2]
    if last.name == "omp.barrier":
        return True
    return last.name in ("omp.wsloop", "omp.single") and "nowait" not in last.attributes


def _inside_parallel(op: ir.Operation) -> bool:
    parent = op.parent
    while parent is not None:
        if parent.name == "omp.parallel":
            return True
        parent = parent.parent
    return False
