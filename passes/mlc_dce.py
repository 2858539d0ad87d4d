"""mlc-dce: remove dead graph and tp ops, which upstream DCE keeps (IRDL ops have no traits)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from mlc.dialects.walk import walk

from .base import ModulePass, PassContext

# Ops without side effects: safe to erase when no result is used. tp.block writes memory.
_PURE_PREFIXES = ("graph.",)
_PURE_TP = ("tp.read", "tp.read_padded", "tp.load", "tp.index")


def is_pure(op: ir.Operation) -> bool:
    return op.name.startswith(_PURE_PREFIXES) or op.name in _PURE_TP


@dataclass(frozen=True)
class MlcDcePass(ModulePass):
    """Erase graph ops and tp reads whose results are unused, until nothing changes."""

    name: ClassVar[str] = "mlc-dce"
    symbolic_dims: ClassVar[bool] = True

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        erase_dead(module)


def erase_dead(root: ir.Operation) -> None:
    """Erase pure mlc ops without uses under `root`, transitively."""
    changed = True
    while changed:
        changed = False
        # Post-order over a snapshot: users are erased before their producers.
        for op in reversed(list(walk(root))):
            if is_pure(op) and all(len(list(r.uses)) == 0 for r in op.results):
                op.erase()
                changed = True
