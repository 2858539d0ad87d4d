"""Anchors for data movement with computed or piecewise indices: gather, pad (reflect, edge)
and upstream `tensor.concat`.

* gather: one block over the output; the index tensor is read at the output position, wrapped
  when negative and clamped into the axis (out-of-range indices are undefined in ONNX; clamping
  keeps the access inside the buffer), then the data element is a `tp.load`.
* pad with mode reflect / edge: one block over the output whose source position is computed per
  padded dim (reflection about the first and last element, or replication of them). Constant
  padding is an inline `tp.read_padded` (injective.py) and never reaches this anchor.
* tensor.concat: one block per input writing its slice of the output (an `out_map` offset).
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith

from mlc.dialects import tp
from mlc.errors import DiagnosticError
from mlc.symbolic import Dim

from .expr import Expr, affine_value, block_over, to_storage
from .kernel import KernelBuilder, anchor


def _index(value: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), value).result


def _select_lt(a: ir.Value, b: ir.Value, then: ir.Value, otherwise: ir.Value) -> ir.Value:
    lt = arith.CmpIOp(arith.CmpIPredicate.slt, a, b).result
    return arith.SelectOp(lt, then, otherwise).result


def axis_position(raw: ir.Value, dim: int | ir.Value) -> ir.Value:
    """An index read from an index tensor as a position along a dim of `dim` elements (an
    `index` value computed outside the block when known at run time only): negative values
    count from the end, then clamp into [0, dim - 1] (out-of-range indices are undefined in
    ONNX; clamping keeps the access inside the buffer)."""
    i = arith.IndexCastOp(ir.IndexType.get(), raw).result
    size = (lambda: dim) if isinstance(dim, ir.Value) else (lambda: _index(dim))
    i = _select_lt(i, _index(0), arith.AddIOp(i, size()).result, i)
    low = arith.MaxSIOp(i, _index(0)).result
    last = arith.SubIOp(dim, _index(1)).result if isinstance(dim, ir.Value) else _index(dim - 1)
    return arith.MinSIOp(low, last).result


@anchor("gather")
def gather(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    data_t, idx_t, y_t = (kb.type_of(v) for v in (op.operands[0], op.operands[1], op.results[0]))
    axis = int(kb.attrs(op)["axis"])  # type: ignore[call-overload]
    axis = axis + data_t.rank if axis < 0 else axis
    dim = data_t.shape[axis]
    size = kb.index_value(dim) if isinstance(dim, Dim) else dim
    data = kb.buffer(op.operands[0])
    indices = kb.expr(op.operands[1])
    blk, axes, idx = block_over(out, kb.name("gather"), y_t.shape)
    with ir.InsertionPoint(blk.body):
        i = axis_position(indices.emit(axes, idx[axis : axis + idx_t.rank]), size)
        position = (
            [affine_value(axes, e) for e in idx[:axis]]
            + [i]
            + [affine_value(axes, e) for e in idx[axis + idx_t.rank :]]
        )
        tp.yield_(tp.load(data, position))
    return None


def _reflect(p: ir.Value, n: int, pad: int) -> ir.Value:
    """Position p in [-pad, n + pad) reflected into [0, n) about 0 and n - 1 (numpy 'reflect')."""
    if n == 1:
        return _index(0)
    if pad <= n - 1:  # one reflection: |p|, then n - 1 - |(n - 1) - p| on the far side
        mirrored = arith.MaxSIOp(p, arith.SubIOp(_index(0), p).result).result
        far = arith.SubIOp(_index(n - 1), mirrored).result
        return arith.SubIOp(
            _index(n - 1), arith.MaxSIOp(far, arith.SubIOp(_index(0), far).result).result
        ).result
    period = 2 * (n - 1)  # wider pads reflect repeatedly: the pattern is periodic
    q = arith.RemSIOp(p, _index(period)).result
    q = _select_lt(q, _index(0), arith.AddIOp(q, _index(period)).result, q)
    return _select_lt(q, _index(n), q, arith.SubIOp(_index(period), q).result)


def _source(
    axes: Sequence[str],
    o: ir.AffineExpr,
    begin: int,
    end: int,
    size: int,
    mode: str,
    op: ir.Operation,
) -> ir.Value:
    """Input position of output position `o` along one dim (negative pads crop first)."""
    lo = max(-begin, 0)
    n = size - lo - max(-end, 0)  # the part of the dim that is kept
    if begin <= 0 and end <= 0:
        return affine_value(axes, o + lo if lo else o)
    if n <= 0:
        raise DiagnosticError(
            f"graph-to-tp: '{op.name}' in {mode} mode pads a dimension with no "
            "elements left after cropping; nothing to replicate",
            op.location,
        )
    p = affine_value(axes, o - max(begin, 0) if begin > 0 else o)
    if mode == "reflect":
        within = _reflect(p, n, max(begin, end))
    else:  # edge: clamp only the sides that are padded
        within = arith.MaxSIOp(p, _index(0)).result if begin > 0 else p
        within = arith.MinSIOp(within, _index(n - 1)).result if end > 0 else within
    return arith.AddIOp(within, _index(lo)).result if lo else within


@anchor("pad")
def pad(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    a = kb.attrs(op)
    mode = str(a["mode"])
    if mode not in ("reflect", "edge"):
        raise DiagnosticError(
            f"graph-to-tp: '{op.name}' mode '{mode}' has no anchor; constant "
            "padding is lowered inline, other modes are not supported",
            op.location,
        )
    x_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    pads = [int(p) for p in a["pads"]]  # type: ignore[union-attr]
    rank = x_t.rank
    x = kb.buffer(op.operands[0])
    blk, axes, idx = block_over(out, kb.name(f"pad_{mode}"), y_t.shape)
    with ir.InsertionPoint(blk.body):
        position = [
            _source(axes, idx[d], pads[d], pads[rank + d], x_t.shape[d], mode, op)
            for d in range(rank)
        ]
        tp.yield_(tp.load(x, position))
    return None


@anchor("tensor.concat")
def concat(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    dim = int(kb.attrs(op)["dim"])  # type: ignore[call-overload]
    position: int | Dim = 0  # where the next input starts along `dim`
    for v in op.operands:
        t = kb.type_of(v)
        if t.shape[dim] == 0:
            continue
        value = kb.expr(v)
        axes = [f"i{d}" for d in range(t.rank)]
        target, shift = out, position
        if isinstance(position, Dim):  # at a run-time offset: the block writes that part
            offsets = [position if d == dim else 0 for d in range(t.rank)]
            target, shift = kb.subview(out, offsets, t.shape), 0
        blk = concat_part(kb, target, t.shape, dim, shift)
        with ir.InsertionPoint(blk.body):
            tp.yield_(
                to_storage(value.emit(axes, [ir.AffineDimExpr.get(d) for d in range(t.rank)]), out)
            )
        position = position + t.shape[dim]
    return None


def concat_part(
    kb: KernelBuilder, target: ir.Value, shape: Sequence[int | Dim], dim: int, shift: int | Dim
) -> tp.BlockHandle:
    """The block that writes one input of a concat (`shape`, axes i0, i1, ...) into `target`,
    `shift` along `dim` from its start."""
    rank = len(shape)
    terms = [f"i{d} + {shift}" if d == dim and shift else f"i{d}" for d in range(rank)]
    return tp.block(
        target,
        name=kb.name("concat"),
        axes=[f"i{d}" for d in range(rank)],
        kinds="S" * rank,
        extents=list(shape),
        out_map="(" + ", ".join(terms) + ")",
    )
