"""graph-verify: check the shape and dtype rules of every graph op."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from mlc.dialects.graph.verify import verify_graph
from mlc.errors import DiagnosticError

from .base import ModulePass, PassContext


@dataclass(frozen=True)
class GraphVerifyPass(ModulePass):
    """Check shapes, dtypes and attributes of every graph op, reporting each violation at its op."""

    name: ClassVar[str] = "graph-verify"
    symbolic_dims: ClassVar[bool] = True
    checks_only: ClassVar[bool] = True

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        errors = verify_graph(module)
        if errors:
            raise DiagnosticError.many([(e.message, e.location) for e in errors])
