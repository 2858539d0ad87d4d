"""The Winograd transforms (`dialects/graph/winograd.py`) as tp blocks.

B^T d B and A^T M A are sparse: a row of B^T or A^T has two to five nonzero entries, mostly +-1,
so each element of a transform sums a few of its inputs (4 for m = 2, up to 16 for m = 4)
where a dense product would multiply all (m+2)^2. So each transformed element position gets a
block of its own, whose body is that sum with its coefficients as constants: (m+2)^2 blocks
for the input (one per xi, writing V[xi]), m^2 for the output (one per position in the tile,
writing every m-th row and column). The vector axis is the channel lane of NCHW<b>c.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from mlir import ir
from mlir.dialects import arith

from mlc.dialects import tp
from mlc.dialects.graph.spec import layout_block
from mlc.dialects.graph.winograd import TRANSFORMS, tile_grid

from .conv import padded_copy
from .expr import read
from .kernel import KernelBuilder, anchor

Terms = list[tuple[float, Callable[[list[ir.AffineExpr]], list[ir.AffineExpr]]]]


def _dims(n: int) -> list[ir.AffineExpr]:
    return [ir.AffineDimExpr.get(i) for i in range(n)]


def _sum(buffer: ir.Value, axes: list[str], terms: Terms, elem: ir.Type) -> ir.Value:
    """sum(coefficient * buffer[index]) with +-1 as additions and subtractions."""
    acc: ir.Value | None = None
    d = _dims(len(axes))
    for coef, index in terms:
        v = read(buffer, axes, index(d))
        if abs(coef) != 1.0:
            v = arith.MulFOp(v, arith.ConstantOp(elem, abs(coef)).result).result
        if acc is None:
            acc = v if coef > 0 else arith.NegFOp(v).result
        else:
            acc = (arith.AddFOp if coef > 0 else arith.SubFOp)(acc, v).result
    assert acc is not None
    return acc


def _pairs(left: np.ndarray, right: np.ndarray) -> list[tuple[float, int, int]]:
    """(left[i] * right[j], i, j) for the nonzero products."""
    return [
        (float(left[i] * right[j]), i, j)
        for i in np.flatnonzero(left)
        for j in np.flatnonzero(right)
    ]


@anchor("winograd_input")
def winograd_input(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> None:
    a = kb.attrs(op)
    m = int(a["tile"])  # type: ignore[call-overload]
    top, left = (int(p) for p in a["pads"])  # type: ignore[union-attr]
    th, tw = tile_grid(tuple(a["out_size"]), m)  # type: ignore[arg-type]
    x_t = kb.type_of(op.operands[0])
    block = layout_block(str(a["data_layout"]), "NCHW")
    x = padded_copy(kb, kb.buffer(op.operands[0]), x_t, top, left, m * th + 2, m * tw + 2)
    n, chans = x_t.shape[0], x_t.shape[1]
    elem = ir.MemRefType(out.type).element_type
    bt = TRANSFORMS[m][0]
    # tiles in the order V numbers them, the channel lane innermost (V's rows are contiguous)
    if block:
        axes, extents = ["n", "ty", "tx", "cb", "ci"], [n, th, tw, chans, block]
    else:
        axes, extents = ["n", "ty", "tx", "c"], [n, th, tw, chans]
    d = _dims(len(axes))
    tile = d[0] * (th * tw) + d[1] * tw + d[2]
    channel = d[3] * block + d[4] if block else d[3]
    for alpha in range(m + 2):
        for beta in range(m + 2):
            xi = ir.AffineConstantExpr.get(alpha * (m + 2) + beta)
            blk = tp.block(
                out,
                name=kb.name("winograd_in"),
                axes=axes,
                kinds="S" * len(axes),
                extents=extents,
                out_map=ir.AffineMap.get(len(axes), 0, [xi, tile, channel]),
            )

            def at(i: int, j: int) -> Callable[[list[ir.AffineExpr]], list[ir.AffineExpr]]:
                def index(e: list[ir.AffineExpr]) -> list[ir.AffineExpr]:
                    row, col = e[1] * m + i, e[2] * m + j
                    return [e[0], e[3], row, col, e[4]] if block else [e[0], e[3], row, col]

                return index

            terms = [(c, at(i, j)) for c, i, j in _pairs(bt[alpha], bt[beta])]
            with ir.InsertionPoint(blk.body):
                tp.yield_(_sum(x, axes, terms, elem))


@anchor("winograd_output")
def winograd_output(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> None:
    a = kb.attrs(op)
    m, n = int(a["tile"]), int(a["batch"])  # type: ignore[call-overload]
    oh, ow = (int(s) for s in a["out_size"])  # type: ignore[union-attr]
    th, tw = tile_grid((oh, ow), m)
    block = layout_block(str(a["out_layout"]), "NCHW")
    prods = kb.buffer(op.operands[0])
    bias = kb.buffer(op.operands[1]) if len(op.operands) > 1 else None
    k = kb.type_of(op.operands[0]).shape[2]
    elem = ir.MemRefType(out.type).element_type
    at = TRANSFORMS[m][2]
    if block:
        axes, lanes = ["n", "kb", "ty", "tx", "ki"], [k // block, block]
    else:
        axes, lanes = ["n", "k", "ty", "tx"], [k]
    d = _dims(len(axes))
    channel = d[1] * block + d[4] if block else d[1]
    tile = d[0] * (th * tw) + d[2] * tw + d[3]
    for i in range(m):
        for j in range(m):
            rows, cols = -(-(oh - i) // m), -(-(ow - j) // m)
            row, col = d[2] * m + i, d[3] * m + j
            out_idx = [d[0], d[1], row, col, d[4]] if block else [d[0], d[1], row, col]
            blk = tp.block(
                out,
                name=kb.name("winograd_out"),
                axes=axes,
                kinds="S" * len(axes),
                extents=[n, lanes[0], rows, cols, *lanes[1:]],
                out_map=ir.AffineMap.get(len(axes), 0, out_idx),
            )
            terms: Terms = [
                (
                    c,
                    lambda e, xi=alpha * (m + 2) + beta: [
                        ir.AffineConstantExpr.get(xi),
                        tile,
                        channel,
                    ],
                )
                for c, alpha, beta in _pairs(at[i], at[j])
            ]
            with ir.InsertionPoint(blk.body):
                y = _sum(prods, axes, terms, elem)
                if bias is not None:
                    y = arith.AddFOp(y, read(bias, axes, [channel])).result
                tp.yield_(y)
