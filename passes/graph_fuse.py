"""graph-fuse: partition the graph into fusion groups and outline each as one kernel."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from mlir import ir

from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph import KERNEL_ATTR, FusionKind, op_kind
from mlc.dialects.walk import defining_op, top_level_funcs

from .base import ModulePass, PassContext
from .mlc_dce import erase_dead
from .outline import Outliner


@dataclass
class Group:
    root: FusionKind
    ops: list[ir.Operation] = field(default_factory=list)

    @property
    def output(self) -> ir.Value:
        return self.ops[-1].results[0]


@dataclass(frozen=True)
class GraphFusePass(ModulePass):
    """Group ops into kernels: compute/reduce ops with their epilogues; elementwise chains."""

    name: ClassVar[str] = "graph-fuse"

    max_group_size: int = 32
    """Most ops in one group; 1 puts every op in its own kernel (fusion off)."""
    dedup: bool = True
    """Emit structurally identical kernels once and call the shared one."""

    def __post_init__(self) -> None:
        if self.max_group_size < 1:
            raise ValueError(f"max-group-size must be >= 1, got {self.max_group_size}")

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        erase_dead(module)  # dead ops would become kernels that run for nothing
        outliner = Outliner(module, dedup=self.dedup)
        for fn in top_level_funcs(module):
            if KERNEL_ATTR in fn.attributes or not fn.regions[0].blocks:
                continue
            for group in self.partition(fn):
                outliner.outline(group.ops, group.output)

    def partition(self, fn: ir.Operation) -> list[Group]:
        group_of: dict[ir.Operation, Group] = {}
        groups: list[Group] = []
        for op in [o.operation for o in fn.regions[0].blocks[0].operations]:
            kind = op_kind(op)
            if kind == "opaque":
                continue
            target = self._target(op, kind, group_of)
            if target is None:
                target = Group(kind)
                groups.append(target)
            target.ops.append(op)
            group_of[op] = target
        return groups

    def _target(
        self, op: ir.Operation, kind: FusionKind, group_of: dict[ir.Operation, Group]
    ) -> Group | None:
        if kind not in ("elemwise", "injective") or self.max_group_size == 1:
            return None
        for v in op.operands:
            owner = defining_op(v)
            group = group_of.get(owner) if owner is not None else None
            if group is None or group.output != v or len(list(v.uses)) != 1:
                continue
            if len(group.ops) >= self.max_group_size:
                continue
            if group.root in ("elemwise", "injective"):
                return group
            # After a conv/matmul/pool/reduction only same-shape elementwise ops, which the
            # lowering applies to the kernel's output tile (in place when the type is kept; an
            # int8 requantization of an i32 accumulator changes it).
            out, operand = tensor_t(op.results[0].type), tensor_t(v.type)
            if kind == "elemwise" and out is not None and operand is not None:
                if out.shape == operand.shape:
                    return group
        return None
