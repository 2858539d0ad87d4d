"""tp-to-loops: lower tp blocks to scf/vector loops over memrefs, honouring their schedules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from mlc.dialects.tp import BlockView
from mlc.dialects.tp.verify import verify_tp
from mlc.dialects.walk import walk
from mlc.errors import DiagnosticError
from mlc.symbolic import Dim

from ..base import ModulePass, PassContext
from .emit_util import clear_apply_cache
from .loop_nest import BlockLowering, fusable_epilogue
from .row_fusion import Unit, emit_rows, shared_rows


@dataclass(frozen=True)
class TpToLoopsPass(ModulePass):
    """Lower every tp.block to scf loops, vector ops and memref accesses per its schedule."""

    name: ClassVar[str] = "tp-to-loops"
    symbolic_dims: ClassVar[bool] = True

    fuse_epilogues: bool = True
    """Apply an elementwise block that follows a register-tiled reduction (bias, relu, residual
    add) to the tile before it is stored, instead of in a second pass over the output."""
    threads: int = 0
    """Split each block's parallel loops into this many static chunks, one scf.parallel
    iteration per worker thread (1: no scf.parallel at all; 0: one iteration per trip, left to
    the threading runtime to shard)."""

    fuse_rows: bool = True
    """Run consecutive blocks that work row by row (a softmax's max, sum and normalization) under
    one loop over their shared rows, instead of one sweep of the tensor per block."""
    vnni_bits: int = 0
    """Widest vpdpbusd (x86 VNNI int8 dot product) for tp.dot4: 256 (AVX-VNNI, or AVX512-VNNI
    with VL: 128/256-bit forms), 512 (AVX512-VNNI); 0: tp.dot4 is expanded into shifts,
    multiplies and adds."""
    madd_bits: int = 0
    """Without VNNI, tp.dot4 of 8 (16) lanes as two vpmaddwd: 256 (AVX2), 512 (AVX512BW); 0:
    expanded into shifts, multiplies and adds."""
    vbmi: bool = False
    """Look up 8-bit tables (graph.lookup) in 16-lane vectors with AVX512-VBMI's vpermi2b on
    the table's four 64-byte quarters instead of a vpgatherdd (on Zen 5 the gather made a 1x1
    conv's SiLU epilogue cost more than the conv)."""

    def __post_init__(self) -> None:
        if self.threads < 0:
            raise ValueError(f"threads must be >= 0, got {self.threads}")
        if self.vnni_bits not in (0, 256, 512):
            raise ValueError(f"vnni-bits must be 0, 256 or 512, got {self.vnni_bits}")
        if self.madd_bits not in (0, 256, 512):
            raise ValueError(f"madd-bits must be 0, 256 or 512, got {self.madd_bits}")

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        errors = verify_tp(module)
        if errors:
            raise DiagnosticError.many([(f"tp-to-loops: {e.message}", e.location) for e in errors])
        blocks = [op for op in walk(module) if op.name == "tp.block"]
        try:
            self._lower(blocks)
        finally:
            clear_apply_cache()
        for op in blocks:
            op.erase()

    def _lower(self, blocks: list[ir.Operation]) -> None:
        for run in self._runs(self._units(blocks)):
            # Scratch views between fused blocks go above them all: the loops are emitted there.
            for body in [b for u in run for b in u.bodies()][1:]:
                for op in _setup_before(body.op):
                    op.move_before(run[0].block.op)
            with ir.InsertionPoint(run[0].block.op), run[0].block.op.location:
                depth = shared_rows(run) if len(run) > 1 else 0
                if depth:
                    emit_rows(run, depth, self.threads, self.vnni_bits, self.madd_bits, self.vbmi)
                    continue
                for unit in run:
                    BlockLowering(
                        unit.block,
                        unit.epilogue,
                        self.threads,
                        self.vnni_bits,
                        self.madd_bits,
                        self.vbmi,
                    ).emit()

    def _units(self, blocks: list[ir.Operation]) -> list[Unit]:
        """Each block with the elementwise block after it that runs on its register tile."""
        units: list[Unit] = []
        fused: set[ir.Operation] = set()
        for op, nxt in zip(blocks, blocks[1:] + [None]):
            if op in fused:
                continue
            view = BlockView(op)
            epilogue = None
            if (
                self.fuse_epilogues
                and nxt is not None
                and nxt.parent == op.parent
                and _next_op(op) == nxt
                and fusable_epilogue(view, BlockView(nxt))
            ):
                epilogue = BlockView(nxt)
                fused.add(nxt)
            units.append(Unit(view, epilogue))
        return units

    def _balanced(self, run: list[Unit]) -> bool:
        """Whether `run` can share row loops that still split evenly over the threads: three
        attention heads on two threads would leave one idle for a third of the kernel, where
        each block alone splits its own loops evenly."""
        depth = shared_rows(run)
        if not depth:
            return False
        rows = _row_trips(run[0], depth)
        if isinstance(rows, Dim):  # known at run time: assumed many
            return True
        return self.threads < 2 or rows % self.threads == 0 or rows >= 8 * self.threads

    def _runs(self, units: list[Unit]) -> list[list[Unit]]:
        """Maximal sequences of adjacent units that can run row by row (one unit otherwise)."""
        runs: list[list[Unit]] = []
        for unit in units:
            last = runs[-1][-1] if runs else None
            if (
                self.fuse_rows
                and last is not None
                and _next_op((last.epilogue or last.block).op) == unit.block.op
                and self._balanced(runs[-1] + [unit])
            ):
                runs[-1].append(unit)
            else:
                runs.append([unit])
        return runs


SETUP_OPS = ("arith.constant", "memref.view")
"""Ops a kernel emits between its blocks to address scratch buffers: pure, so a run of fused
blocks may hoist them."""


def _row_trips(unit: Unit, depth: int) -> int | Dim:
    trips: int | Dim = 1
    for lp in unit.block.schedule.loops(unit.block.axes, unit.block.kinds, unit.block.extents)[
        :depth
    ]:
        trips *= lp.trip
    return trips


def _next_op(op: ir.Operation) -> ir.Operation | None:
    """The op after `op` in its block, past scratch setup ops (None at the end)."""
    ops = [o.operation for o in op.parent.regions[0].blocks[0].operations] if op.parent else []
    for i, a in enumerate(ops):
        if a == op:
            return next((b for b in ops[i + 1 :] if b.name not in SETUP_OPS), None)
    return None


def _setup_before(op: ir.Operation) -> list[ir.Operation]:
    """The scratch setup ops right before `op`."""
    ops = [o.operation for o in op.parent.regions[0].blocks[0].operations]
    i = ops.index(op)
    start = i
    while start > 0 and ops[start - 1].name in SETUP_OPS:
        start -= 1
    return ops[start:i]
