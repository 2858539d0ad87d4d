"""tp-verify: check tp blocks, their index maps and their schedules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from mlc.dialects.tp.verify import verify_tp
from mlc.errors import DiagnosticError

from .base import ModulePass, PassContext


@dataclass(frozen=True)
class TpVerifyPass(ModulePass):
    """Check tp blocks: axes, index maps in range, combiner/init and schedule knobs."""

    name: ClassVar[str] = "tp-verify"
    symbolic_dims: ClassVar[bool] = True
    checks_only: ClassVar[bool] = True

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        errors = verify_tp(module)
        if errors:
            raise DiagnosticError.many([(e.message, e.location) for e in errors])
