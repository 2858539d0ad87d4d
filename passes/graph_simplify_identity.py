"""graph-simplify patterns that remove data movement doing nothing, and merge what composes.

`remove-identities`: reshape/expand/squeeze/unsqueeze/flatten to the same type, identity
transposes, casts to the same type, full slices, zero pads, unit tiles, same-layout transforms,
`x + 0`, `x - 0`, `x * 1`, `x / 1` with literal 0/1 (no broadcasting of x).
`merge-data-movement`: chains of reshape-like ops become one reshape (or nothing), transpose
of transpose one transpose (or nothing), layout_transform of layout_transform one (or nothing).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from mlir import ir
from mlir.rewrite import PatternRewriter

from mlc.dialects.graph import builders as gb

from .graph_simplify_common import attr, erase_if_dead, literal, producer, type_of

RESHAPE_LIKE = ("graph.reshape", "graph.squeeze", "graph.unsqueeze", "graph.flatten")


def _ints(op: ir.Operation, name: str) -> tuple[int, ...]:
    return tuple(int(v) for v in attr(op, name))  # type: ignore[union-attr]


def _slice_is_full(op: ir.Operation) -> bool:
    """Same shape, and every sliced axis goes forward (or has one element): x[0:dim:1]."""
    dims = type_of(op.operands[0]).shape
    rank = len(dims)
    return all(
        step > 0 or dims[a % rank] == 1 for a, step in zip(_ints(op, "axes"), _ints(op, "steps"))
    )


# Op name -> "does nothing, given that the result type equals the operand type".
_NO_OP_WHEN_SAME_TYPE: dict[str, Callable[[ir.Operation], bool]] = {
    "graph.reshape": lambda op: True,
    "graph.expand": lambda op: True,
    "graph.squeeze": lambda op: True,
    "graph.unsqueeze": lambda op: True,
    "graph.flatten": lambda op: True,
    "graph.cast": lambda op: True,
    "graph.transpose": lambda op: _ints(op, "perm") == tuple(range(type_of(op.operands[0]).rank)),
    "graph.slice": _slice_is_full,
    "graph.pad": lambda op: not any(_ints(op, "pads")),
    "graph.tile": lambda op: all(r == 1 for r in _ints(op, "repeats")),
    "graph.layout_transform": lambda op: attr(op, "src_layout") == attr(op, "dst_layout"),
}
IDENTITY_ROOTS = tuple(_NO_OP_WHEN_SAME_TYPE)


def _forward(rewriter: PatternRewriter, op: ir.Operation, value: ir.Value) -> bool:
    """Replace `op` by `value`, then erase producers left unused."""
    producers = [producer(v) for v in op.operands]
    rewriter.replace_op(op, [value])
    for p in producers:
        erase_if_dead(rewriter, p)
    return True


def remove_identity(op: ir.Operation, rewriter: PatternRewriter) -> bool:
    """A data-movement op whose result is its operand."""
    x = op.operands[0]
    if x.type != op.results[0].type or not _NO_OP_WHEN_SAME_TYPE[op.name](op):
        return False
    return _forward(rewriter, op, x)


# Op name -> (neutral literal value, which operand positions may hold it).
_NEUTRAL = {
    "graph.add": (0, (0, 1)),
    "graph.sub": (0, (1,)),
    "graph.mul": (1, (0, 1)),
    "graph.div": (1, (1,)),
}
NEUTRAL_ROOTS = tuple(_NEUTRAL)


def remove_neutral_operand(op: ir.Operation, rewriter: PatternRewriter) -> bool:
    """`x + 0`, `0 + x`, `x - 0`, `x * 1`, `1 * x`, `x / 1` with a literal that does not
    broadcast x to a larger shape."""
    neutral, positions = _NEUTRAL[op.name]
    for pos in positions:
        other = op.operands[1 - pos]
        value = literal(op.operands[pos])
        if value is not None and other.type == op.results[0].type and np.all(value == neutral):
            return _forward(rewriter, op, other)
    return False


def merge_reshapes(op: ir.Operation, rewriter: PatternRewriter) -> bool:
    """reshape-like(reshape-like(x)) -> reshape(x), or x when the shapes match."""
    inner = producer(op.operands[0])
    if inner is None or inner.name not in RESHAPE_LIKE:
        return False
    x = inner.operands[0]
    if x.type == op.results[0].type:
        return _forward(rewriter, op, x)
    with rewriter.ip, op.location:
        merged = gb.reshape(x, shape=type_of(op.results[0]).shape)
    return _forward(rewriter, op, merged)


def merge_transposes(op: ir.Operation, rewriter: PatternRewriter) -> bool:
    """transpose(transpose(x, p), q) -> transpose(x, p[q]), or x when that is the identity."""
    inner = producer(op.operands[0])
    if inner is None or inner.name != "graph.transpose":
        return False
    first, second = _ints(inner, "perm"), _ints(op, "perm")
    perm = tuple(first[i] for i in second)
    x = inner.operands[0]
    if perm == tuple(range(len(perm))):
        return _forward(rewriter, op, x)
    with rewriter.ip, op.location:
        merged = gb.transpose(x, perm=perm)
    return _forward(rewriter, op, merged)


def merge_layout_transforms(op: ir.Operation, rewriter: PatternRewriter) -> bool:
    """layout_transform(layout_transform(x, A -> B), B -> C) -> layout_transform(x, A -> C)."""
    inner = producer(op.operands[0])
    if inner is None or inner.name != "graph.layout_transform":
        return False
    x = inner.operands[0]
    src, dst = attr(inner, "src_layout"), attr(op, "dst_layout")
    if src == dst:
        return _forward(rewriter, op, x)
    with rewriter.ip, op.location:
        merged = gb.layout_transform(x, src_layout=src, dst_layout=dst)
    return _forward(rewriter, op, merged)
