"""mlc-cse: merge identical graph ops and tp reads, which upstream CSE leaves alone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from .base import ModulePass, PassContext
from .mlc_dce import is_pure


def _key(op: ir.Operation) -> tuple[object, ...]:
    attrs = tuple(sorted((name, str(op.attributes[name])) for name in op.attributes))
    # ir.Value hashes and compares by the underlying SSA value.
    return (op.name, tuple(op.operands), attrs, tuple(str(r.type) for r in op.results))


@dataclass(frozen=True)
class MlcCsePass(ModulePass):
    """Replace each graph op or tp read by an identical earlier one in the same block."""

    name: ClassVar[str] = "mlc-cse"
    symbolic_dims: ClassVar[bool] = True

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        self._blocks(module)

    def _blocks(self, op: ir.Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                seen: dict[tuple[object, ...], ir.Operation] = {}
                for child in list(block.operations):
                    child_op = child.operation
                    if is_pure(child_op) and not child_op.regions:
                        key = _key(child_op)
                        first = seen.get(key)
                        if first is not None:
                            for old, new in zip(child_op.results, first.results):
                                old.replace_all_uses_with(new)
                            child_op.erase()
                            continue
                        seen[key] = child_op
                    self._blocks(child_op)
