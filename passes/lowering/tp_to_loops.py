"""tp-to-loops: lower tp blocks to scf/vector loops over memrefs, honouring their schedules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from mlc.dialects.tp import BlockView
from mlc.dialects.tp.verify import verify_tp
from mlc.dialects.walk import walk
from mlc.errors import DiagnosticError

from ..base import ModulePass, PassContext
from .loop_nest import BlockLowering


@dataclass(frozen=True)
class TpToLoopsPass(ModulePass):
    """Lower every tp.block to scf loops, vector ops and memref accesses per its schedule."""

    name: ClassVar[str] = "tp-to-loops"

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        errors = verify_tp(module)
        if errors:
            raise DiagnosticError.many([(f"tp-to-loops: {e.message}", e.location) for e in errors])
        blocks = [op for op in walk(module) if op.name == "tp.block"]
        for op in blocks:
            with ir.InsertionPoint(op), op.location:
                BlockLowering(BlockView(op)).emit()
            op.erase()
