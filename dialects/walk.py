"""IR traversal helpers shared by passes (pre-order, safe to collect then mutate)."""

from __future__ import annotations

from collections.abc import Iterator

from mlir import ir


def walk(op: ir.Operation) -> Iterator[ir.Operation]:
    """Every op nested under `op` (not `op` itself), pre-order."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield child.operation
                yield from walk(child.operation)


def ops_named(op: ir.Operation, prefix: str) -> list[ir.Operation]:
    """All nested ops whose name starts with `prefix` (e.g. "graph."), collected up front."""
    return [o for o in walk(op) if o.name.startswith(prefix)]


def top_level_funcs(module: ir.Operation) -> list[ir.Operation]:
    return [
        o.operation
        for o in module.regions[0].blocks[0].operations
        if o.operation.name == "func.func"
    ]


def defining_op(value: ir.Value) -> ir.Operation | None:
    """The op that defines `value`, or None for a block argument."""
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation
