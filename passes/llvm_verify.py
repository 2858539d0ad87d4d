"""llvm-verify: check that lowering left nothing but the LLVM dialect (the last step of
lower-to-llvm); otherwise name each op kind that was not lowered and what lowers it.

Upstream conversion passes leave ops they do not know untouched, so without this check
`lower-to-llvm` on a graph- or tp-dialect module "succeeded" and printed its input unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from mlc.errors import DiagnosticError

from .base import ModulePass, PassContext

KEPT_DIALECTS = ("llvm", "omp")
"""Dialects code generation translates: LLVM, and OpenMP (its ops become libiomp5 calls)."""

_HINTS = {
    "graph": "the module is still in the graph dialect: compile it with mlc-default, or run "
    "graph-fuse, graph-to-tp, tp-default-schedule and tp-to-loops first",
    "tp": "the module still holds tensor programs: run tp-to-loops first",
    "tensor": "lower-to-llvm takes loops over memrefs, not tensors: run graph-to-tp and "
    "tp-to-loops (or bufferize) first",
}
_DEFAULT_HINT = (
    "lower-to-llvm lowers loops over memrefs (scf, vector, memref, arith, math, func); lower "
    "this op to those dialects first"
)
MAX_REPORTED = 5


@dataclass(frozen=True)
class LlvmVerifyPass(ModulePass):
    """Check that the module is entirely in the LLVM dialect (plus OpenMP ops); name what is not."""

    name: ClassVar[str] = "llvm-verify"
    symbolic_dims: ClassVar[bool] = True
    emits_mlc_dialects: ClassVar[bool] = False
    checks_only: ClassVar[bool] = True

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        first: dict[str, ir.Location] = {}
        counts: dict[str, int] = {}

        def visit(op: ir.Operation) -> ir.WalkResult:
            if op != module and op.name.split(".", 1)[0] not in KEPT_DIALECTS:
                first.setdefault(op.name, op.location)
                counts[op.name] = counts.get(op.name, 0) + 1
            return ir.WalkResult.ADVANCE

        module.walk(visit)
        if not first:
            return
        # graph or tp ops left mean the input was not lowered that far: the other leftovers
        # (functions on tensors, their terminators) follow from that and would only be noise
        ours = {n: loc for n, loc in first.items() if n.split(".", 1)[0] in ("graph", "tp")}
        first = ours or first
        errors = []
        for name, loc in list(first.items())[:MAX_REPORTED]:
            dialect = name.split(".", 1)[0]
            hint = _HINTS.get(dialect, _DEFAULT_HINT)
            if dialect not in _HINTS and _has_tensors(name, module):
                hint = _HINTS["tensor"]
            errors.append(
                (
                    f"'{name}' was not lowered to the LLVM dialect ({counts[name]} op(s)); {hint}",
                    loc,
                )
            )
        if len(first) > MAX_REPORTED:
            errors.append((f"and {len(first) - MAX_REPORTED} more kinds of ops", None))
        raise DiagnosticError.many(errors)


def _has_tensors(name: str, module: ir.Operation) -> bool:
    """Whether the first `name` op has tensor-typed operands, results or arguments."""
    found = False

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal found
        if op.name != name:
            return ir.WalkResult.ADVANCE
        types = [v.type for v in op.operands] + [r.type for r in op.results]
        for region in op.regions:
            for block in region.blocks:
                types += [a.type for a in block.arguments]
        found = any(isinstance(t, ir.RankedTensorType) for t in types)
        return ir.WalkResult.INTERRUPT

    module.walk(visit)
    return found
