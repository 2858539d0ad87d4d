"""tp-defer-row-scale: scale a matrix product's output rows instead of the rows it reads.

A softmax ends by multiplying each row of exponentials by one factor (1 / the row's sum), and
attention then multiplies those rows by V: (e * r) . V = r * (e . V). Scaling the product's
output (queries x head size) instead of its input (queries x keys) drops a read and a write of
the whole score matrix, and the scale becomes the product's epilogue, applied to its register
tile. The rewrite applies to a scratch buffer that only the scaling block writes and only the
product reads afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith

from mlc.dialects import tp
from mlc.dialects.tp import BlockView
from mlc.dialects.tp.affine import dims_used, is_identity

from .base import ModulePass, PassContext
from .schedule_reads import reads_buffer


@dataclass(frozen=True)
class RowScale:
    """A block writing `out = rows * factor`: `rows` read where it writes, `factor` (at
    `factor_map`) independent of the last dim."""

    view: BlockView
    rows: ir.Value
    factor: ir.Value
    factor_map: ir.AffineMap


@dataclass(frozen=True)
class TpDeferRowScalePass(ModulePass):
    """Move a per-row scale (softmax's 1/sum) from a product's input rows to its output."""

    name: ClassVar[str] = "tp-defer-row-scale"
    symbolic_dims: ClassVar[bool] = True

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        for func in tp.kernels(module):
            ops = [o.operation for o in func.regions[0].blocks[0].operations]
            blocks = [BlockView(o) for o in ops if o.name == "tp.block"]
            for i, view in enumerate(blocks):
                scale = _row_scale(view)
                if scale is None or not _scratch(view.out):
                    continue
                product = _only_reader(blocks[i + 1 :], view.out)
                if product is None:
                    continue
                between = blocks[i + 1 : blocks.index(product) + 1]
                if any(b.out in (scale.rows, scale.factor) for b in between):
                    continue
                x_read = _row_operand(product, view.out)
                if x_read is not None:
                    _rewrite(scale, product, x_read)


def _row_scale(view: BlockView) -> RowScale | None:
    if view.combiner != "none" or set(view.kinds) != {"S"} or not is_identity(view.out_map):
        return None
    ops = [o.operation for o in view.body.operations]
    if [o.name for o in ops] != ["tp.read", "tp.read", "arith.mulf", "gpu.yield"]:
        return None
    reads, mul = ops[:2], ops[2]
    if set(mul.operands) != {r.result for r in reads} or ops[3].operands[0] != mul.result:
        return None
    last = len(view.axes) - 1
    for rows, factor in (reads, reads[::-1]):
        rows_map = ir.AffineMapAttr(rows.attributes["map"]).value
        factor_map = ir.AffineMapAttr(factor.attributes["map"]).value
        same_shape = (
            ir.MemRefType(rows.operands[0].type).shape == ir.MemRefType(view.out.type).shape
        )
        if (
            is_identity(rows_map)
            and same_shape
            and all(last not in dims_used(e) for e in factor_map.results)
        ):
            return RowScale(view, rows.operands[0], factor.operands[0], factor_map)
    return None


def _only_reader(later: list[BlockView], buffer: ir.Value) -> BlockView | None:
    """The one block of `later` that reads `buffer`, if no other touches it."""
    readers = [v for v in later if reads_buffer(v, buffer) or v.out == buffer]
    if len(readers) != 1 or readers[0].out == buffer:
        return None
    return readers[0]


def _row_operand(product: BlockView, buffer: ir.Value) -> ir.Operation | None:
    """`product`'s read of `buffer` when `product` sums (read of `buffer`) x (another read)
    over a reduce axis that indexes `buffer`'s last dim only, and writes a plain dim per
    spatial axis."""
    if product.combiner != "add":
        return None
    ops = [o.operation for o in product.body.operations]
    if [o.name for o in ops] != ["tp.read", "tp.read", "arith.mulf", "gpu.yield"]:
        return None
    if set(ops[2].operands) != {ops[0].result, ops[1].result}:
        return None
    mine = [o for o in ops[:2] if o.operands[0] == buffer]
    if len(mine) != 1 or ops[3].operands[0] != ops[2].result:
        return None
    results = ir.AffineMapAttr(mine[0].attributes["map"]).value.results
    reduce = {i for i, k in enumerate(product.kinds) if k == "R"}
    last = results[-1].maybe_downcast()
    if not isinstance(last, ir.AffineDimExpr) or last.position not in reduce:
        return None
    if any(dims_used(e) & reduce for e in results[:-1]):
        return None
    if any(dims_used(e) & reduce for e in product.out_map.results):
        return None
    return mine[0]


def _rewrite(scale: RowScale, product: BlockView, x_read: ir.Operation) -> None:
    """`product` reads the unscaled rows; a block after it multiplies its output by the
    factor, read where `x_read` read each row."""
    x_read.operands[0] = scale.rows
    spatial = [i for i, k in enumerate(product.kinds) if k == "S"]
    to_own = ir.AffineMap.get(
        len(product.axes),
        0,
        [
            ir.AffineDimExpr.get(spatial.index(i)) if i in spatial else ir.AffineConstantExpr.get(0)
            for i in range(len(product.axes))
        ],
    )
    x_map = ir.AffineMapAttr(x_read.attributes["map"]).value
    factor_map = ir.AffineMap.get(
        len(spatial), 0, [e.compose(x_map).compose(to_own) for e in scale.factor_map.results]
    )
    out_map = ir.AffineMap.get(
        len(spatial), 0, [e.compose(to_own) for e in product.out_map.results]
    )
    axes = [product.axes[i] for i in spatial]
    nxt = product.op.operation
    with product.op.location:
        handle = tp.block(
            product.out,
            name=f"{product.name}_row_scale",
            axes=axes,
            kinds="S" * len(axes),
            extents=[product.extents[i] for i in spatial],
            out_map=out_map,
            ip=ir.InsertionPoint.after(nxt),
        )
        with ir.InsertionPoint(handle.body):
            value = tp.read(product.out, axes, out_map)
            factor = tp.read(scale.factor, axes, factor_map)
            tp.yield_(arith.MulFOp(value, factor).result)
    scale.view.op.erase()


def _scratch(buffer: ir.Value) -> bool:
    """A kernel's scratch buffer (a view of its workspace), not an argument the caller sees."""
    owner = buffer.owner
    return not isinstance(owner, ir.Block) and owner.name == "memref.view"
