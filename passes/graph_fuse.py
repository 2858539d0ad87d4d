"""graph-fuse: partition the graph into fusion groups and outline each as one kernel.

A group of reshapes alone (a [1, H, W, C] activation flattened to [H * W, C] rows) is left in
the function: graph-to-tp makes its result a view of its operand's buffer, not a copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from mlc.dialects.graph import KERNEL_ATTR
from mlc.dialects.walk import top_level_funcs

from .base import ModulePass, PassContext
from .graph_fuse_partition import Group, Partitioner
from .graph_simplify_identity import RESHAPE_LIKE
from .mlc_dce import erase_dead
from .outline import Outliner, is_kernel_view


@dataclass(frozen=True)
class GraphFusePass(ModulePass):
    """Group ops into kernels: compute/reduce ops with their epilogues; elementwise sub-graphs."""

    name: ClassVar[str] = "graph-fuse"
    symbolic_dims: ClassVar[bool] = True

    max_group_size: int = 32
    """Most ops in one group; 1 puts every op in its own kernel (fusion off)."""
    dedup: bool = True
    """Emit structurally identical kernels once and call the shared one."""
    diamonds: bool = True
    """Merge a group into the groups that use its output when the union keeps one result
    (x * sigmoid(x), GELU after a matmul: values with several uses inside a kernel); false:
    only chains through values with a single use fuse."""
    attention: bool = True
    """Run a matmul, the last-axis softmax of its result and the matmul of that softmax by
    another operand (attention's Q·Kᵀ, softmax, ·V) as one kernel, head by head..."""
    attention_min_bytes: int = 512 << 10
    """...when one head's scores take at least this many bytes. Measured (CPU time, 12 heads of
    64): head by head was 7-11 % faster from 384 tokens on (a head's scores fill half of L2), but
    10-16 % slower at 197-256 tokens than three kernels, and the same at 128."""

    views: bool = True
    """Leave a group made only of reshapes out of the kernels when it reshapes another kernel's
    result: graph-to-tp gives it that result's buffer (a view, no copy)."""

    def __post_init__(self) -> None:
        if self.max_group_size < 1:
            raise ValueError(f"max-group-size must be >= 1, got {self.max_group_size}")
        if self.attention_min_bytes < 0:
            raise ValueError(f"attention-min-bytes must be >= 0, got {self.attention_min_bytes}")

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        erase_dead(module)  # dead ops would become kernels that run for nothing
        outliner = Outliner(module, dedup=self.dedup)
        for fn in top_level_funcs(module):
            if KERNEL_ATTR in fn.attributes or not fn.regions[0].blocks:
                continue
            for group in self.partition(fn):
                # groups come in block order: a producer's kernel is outlined already
                views = all(op.name in RESHAPE_LIKE for op in group.ops)
                if not (self.views and views and is_kernel_view(group.ops[0])):
                    outliner.outline(group.ops, group.output)

    def partition(self, fn: ir.Operation) -> list[Group]:
        """The fusion groups of `fn`'s ops (opaque ops, e.g. constants, in none)."""
        ops = [o.operation for o in fn.regions[0].blocks[0].operations]
        return Partitioner(
            self.max_group_size,
            self.diamonds,
            self.attention_min_bytes if self.attention else None,
        ).run(ops)
