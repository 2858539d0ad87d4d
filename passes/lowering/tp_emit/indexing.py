"""Anchors for the element and N-d gathers and scatters: single passes with computed indices.

* gather_elements / gather_nd: one block over the output; the index tensor is read at the
  output position (gather_nd: its k entries, at constant positions of its last dim), each
  index wrapped and clamped into its dim (`axis_position`), then the data element is a
  `tp.load`.
* scatter_elements / scatter_nd: a copy of the data into the output, then one *scatter block*
  over the updates, which writes (or combines, for a reduction) each update at the position it
  computes. Scatter blocks run in order on one thread, so a repeated position keeps the last
  update, or combines all of them, as the reference does.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from mlc.dialects import tp

from .expr import Expr, Index, affine_value, block_over, to_storage
from .kernel import KernelBuilder, anchor
from .tensor_ops import axis_position


def _axis(kb: KernelBuilder, op: ir.Operation, rank: int) -> int:
    axis = int(kb.attrs(op)["axis"])  # type: ignore[call-overload]
    return axis + rank if axis < 0 else axis


def _element_position(
    indices: Expr, axes: Sequence[str], idx: Index, axis: int, dim: int
) -> list[ir.Value]:
    """The position `idx` with its `axis` entry read from the index tensor at `idx`."""
    return [
        axis_position(indices.emit(axes, idx), dim) if d == axis else affine_value(axes, e)
        for d, e in enumerate(idx)
    ]


def _tuple_position(
    indices: Expr, axes: Sequence[str], lead: Index, dims: Sequence[int]
) -> list[ir.Value]:
    """The positions an index tuple addresses: entry j of the index tensor's last dim at `lead`
    (the index tensor's other dims), one per data dim of `dims`."""
    return [
        axis_position(indices.emit(axes, [*lead, ir.AffineConstantExpr.get(j)]), d)
        for j, d in enumerate(dims)
    ]


@anchor("gather_elements")
def gather_elements(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    data_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    axis = _axis(kb, op, data_t.rank)
    data, indices = kb.buffer(op.operands[0]), kb.expr(op.operands[1])
    blk, axes, idx = block_over(out, kb.name("gather_elements"), y_t.shape)
    with ir.InsertionPoint(blk.body):
        position = _element_position(indices, axes, idx, axis, data_t.shape[axis])
        tp.yield_(tp.load(data, position))
    return None


@anchor("gather_nd")
def gather_nd(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    data_t, idx_t, y_t = (kb.type_of(v) for v in (op.operands[0], op.operands[1], op.results[0]))
    batch = int(kb.attrs(op)["batch_dims"])  # type: ignore[call-overload]
    k, outer = idx_t.shape[-1], idx_t.rank - 1
    data, indices = kb.buffer(op.operands[0]), kb.expr(op.operands[1])
    blk, axes, idx = block_over(out, kb.name("gather_nd"), y_t.shape)
    with ir.InsertionPoint(blk.body):
        position = (
            [affine_value(axes, e) for e in idx[:batch]]
            + _tuple_position(indices, axes, idx[:outer], data_t.shape[batch : batch + k])
            + [affine_value(axes, e) for e in idx[outer:]]
        )
        tp.yield_(tp.load(data, position))
    return None


def _combiner(reduction: str, dtype: str) -> str:
    if reduction in ("max", "min") and dtype.startswith("ui"):
        return reduction + "ui"
    return reduction


def _scatter_block(
    kb: KernelBuilder, op: ir.Operation, out: ir.Value, name: str
) -> tuple[tp.BlockHandle, list[str], Index] | None:
    """Copy the data into `out`, then open the scatter block over the updates (None when there
    are no updates: the copy is the result)."""
    kb.store(kb.expr(op.operands[0]), out, f"{name}_copy")
    upd_t = kb.type_of(op.operands[2])
    if upd_t.size == 0:
        return None
    reduction = str(kb.attrs(op)["reduction"])
    axes = [f"u{d}" for d in range(upd_t.rank)] or ["u0"]
    blk = tp.block(
        out,
        name=kb.name(name),
        axes=axes,
        kinds="S" * len(axes),
        extents=list(upd_t.shape) or [1],
        out_map="()",
        combiner=_combiner(reduction, upd_t.dtype),
    )
    return blk, axes, [ir.AffineDimExpr.get(d) for d in range(upd_t.rank)]


@anchor("scatter_elements")
def scatter_elements(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    data_t = kb.type_of(op.operands[0])
    axis = _axis(kb, op, data_t.rank)
    indices, updates = kb.expr(op.operands[1]), kb.expr(op.operands[2])
    opened = _scatter_block(kb, op, out, "scatter_elements")
    if opened is None:
        return None
    blk, axes, idx = opened
    with ir.InsertionPoint(blk.body):
        value = to_storage(updates.emit(axes, idx), out)
        position = _element_position(indices, axes, idx, axis, data_t.shape[axis])
        tp.yield_(value, at=position)
    return None


@anchor("scatter_nd")
def scatter_nd(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    data_t, idx_t = kb.type_of(op.operands[0]), kb.type_of(op.operands[1])
    k, outer = idx_t.shape[-1], idx_t.rank - 1
    indices, updates = kb.expr(op.operands[1]), kb.expr(op.operands[2])
    opened = _scatter_block(kb, op, out, "scatter_nd")
    if opened is None:
        return None
    blk, axes, idx = opened
    with ir.InsertionPoint(blk.body):
        value = to_storage(updates.emit(axes, idx), out)
        position = _tuple_position(indices, axes, idx[:outer], data_t.shape[:k]) + [
            affine_value(axes, e) for e in idx[outer:]
        ]
        tp.yield_(value, at=position)
    return None
