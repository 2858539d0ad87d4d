"""The Winograd transforms (`dialects/graph/winograd.py`) as tp blocks, one pass per dimension.

B^T d B is B^T applied to the tile's columns, then to its rows; A^T M A likewise. A row of B^T
or A^T has 2 to 5 nonzero entries, so each pass sums a few inputs with constant coefficients:
one tp block per row of the matrix (a sum per block, no reduce axis), vectorized along the
channel lane of NCHW<b>c:

    input:  T[a]      = sum_i B^T[a, i] x[rows m*ty + i]         (m+2 blocks, every column)
            V[a, b]   = sum_j B^T[b, j] T[a][columns m*tx + j]   (m+2 blocks, a an axis)
    output: R[i, b]   = sum_a A^T[i, a] M[a, b]                  (m blocks, b an axis)
            Y[i, j]   = sum_b A^T[j, b] R[i, b] + bias           (m^2 blocks, every m-th pixel)

Summing the (m+2)^2 inputs of a position at once instead (one pass) read 19 inputs per value
of F(4x4)'s V and 20 per output, against 4-5 per pass: three times the tp reads, which made
a conv's IR, and its compile time, several times larger (2.7 s for one 64-channel conv).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith

from mlc.dialects import tp
from mlc.dialects.graph import TensorT
from mlc.dialects.graph.spec import layout_block
from mlc.dialects.graph.winograd import TRANSFORMS, tile_grid
from mlc.symbolic import floordiv

from .conv import padded_copy
from .expr import read
from .kernel import KernelBuilder, anchor

Index = list[ir.AffineExpr]


def _dims(n: int) -> Index:
    return [ir.AffineDimExpr.get(i) for i in range(n)]


def _const(v: int) -> ir.AffineExpr:
    return ir.AffineConstantExpr.get(v)


def _block(
    kb: KernelBuilder,
    out: ir.Value,
    name: str,
    axes: Sequence[str],
    extents: Sequence[int],
    out_index: Index,
    source: ir.Value,
    row: np.ndarray,
    index: Callable[[int], Index],
    bias: tuple[ir.Value, Index] | None = None,
) -> None:
    """One block writing sum_t row[t] * source[index(t)] (over row's nonzeros) at out_index;
    +-1 coefficients as additions and subtractions."""
    blk = tp.block(
        out,
        name=kb.name(name),
        axes=list(axes),
        kinds="S" * len(axes),
        extents=list(extents),
        out_map=ir.AffineMap.get(len(axes), 0, out_index),
    )
    elem = ir.MemRefType(out.type).element_type
    with ir.InsertionPoint(blk.body):
        acc: ir.Value | None = None
        for t in np.flatnonzero(row):
            coef = float(row[t])
            v = read(source, list(axes), index(int(t)))
            if abs(coef) != 1.0:
                v = arith.MulFOp(v, arith.ConstantOp(elem, abs(coef)).result).result
            if acc is None:
                acc = v if coef > 0 else arith.NegFOp(v).result
            else:
                acc = (arith.AddFOp if coef > 0 else arith.SubFOp)(acc, v).result
        assert acc is not None
        if bias is not None:
            acc = arith.AddFOp(acc, read(bias[0], list(axes), bias[1])).result
        tp.yield_(acc)


@anchor("winograd_input")
def winograd_input(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> None:
    a = kb.attrs(op)
    m = int(a["tile"])  # type: ignore[call-overload]
    top, left = (int(p) for p in a["pads"])  # type: ignore[union-attr]
    th, tw = tile_grid(tuple(a["out_size"]), m)  # type: ignore[arg-type]
    x_t = kb.type_of(op.operands[0])
    block = layout_block(str(a["data_layout"]), "NCHW")
    cols = m * tw + 2
    x = padded_copy(kb, kb.buffer(op.operands[0]), x_t, top, left, m * th + 2, cols)
    n, chans = x_t.shape[0], x_t.shape[1]
    lanes = [block] if block else []
    bt = TRANSFORMS[m][0]
    # T[a, n, ty, column, channel...]: the rows' pass over every column of the padded input
    rows_t = kb.temp(TensorT((m + 2, n, th, cols, chans, *lanes), x_t.dtype))
    axes = ["n", "ty", "col", "cb", "ci"] if block else ["n", "ty", "col", "c"]
    d = _dims(len(axes))
    for alpha in range(m + 2):
        _block(
            kb, rows_t, "winograd_rows", axes, [n, th, cols, chans, *lanes],
            [_const(alpha), *d],
            x, bt[alpha], lambda i: [d[0], d[3], d[1] * m + i, d[2], *d[4:]],
        )  # fmt: skip
    # V[a (m+2) + b, tile, channel]: the columns' pass, one block per b (the coefficients of
    # B^T's row b do not depend on a: an axis), tiles in the order V numbers them
    axes = ["a", "n", "ty", "tx", "cb", "ci"] if block else ["a", "n", "ty", "tx", "c"]
    d = _dims(len(axes))
    tile = d[1] * (th * tw) + d[2] * tw + d[3]
    channel = d[4] * block + d[5] if block else d[4]
    for beta in range(m + 2):
        _block(
            kb, out, "winograd_in", axes, [m + 2, n, th, tw, chans, *lanes],
            [d[0] * (m + 2) + beta, tile, channel],
            rows_t, bt[beta], lambda j: [d[0], d[1], d[2], d[3] * m + j, *d[4:]],
        )  # fmt: skip


@anchor("winograd_output")
def winograd_output(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> None:
    a = kb.attrs(op)
    m = int(a["tile"])  # type: ignore[call-overload]
    oh, ow = (int(s) for s in a["out_size"])  # type: ignore[union-attr]
    th, tw = tile_grid((oh, ow), m)
    block = layout_block(str(a["out_layout"]), "NCHW")
    m_t = kb.type_of(op.operands[0])
    n = int(a["batch"]) or floordiv(m_t.shape[1], th * tw)  # type: ignore[call-overload]
    prods = kb.buffer(op.operands[0])
    bias = kb.buffer(op.operands[1]) if len(op.operands) > 1 else None
    tiles, k = m_t.shape[1], m_t.shape[2]
    at = TRANSFORMS[m][2]
    # R[i, b, tile, k]: A^T over the products' first index, every b, tile and channel (one
    # block per i: the coefficients do not depend on b)
    b, p, c = _dims(3)
    rows_r = kb.temp(TensorT((m, m + 2, tiles, k), m_t.dtype))
    for i in range(m):
        _block(
            kb, rows_r, "winograd_rows", ["b", "p", "k"], [m + 2, tiles, k],
            [_const(i), b, p, c],
            prods, at[i], lambda alpha: [b + alpha * (m + 2), p, c],
        )  # fmt: skip
    # Y[.., m ty + i, m tx + j, ..] = sum_b A^T[j, b] R[i, b] (+ bias): position (i, j) of
    # every tile, as many tile rows and columns as reach into the output
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
            at_pixel = [d[0], d[1], d[2] * m + i, d[3] * m + j, *d[4:]]
            _block(
                kb, out, "winograd_out", axes, [n, lanes[0], rows, cols, *lanes[1:]], at_pixel,
                rows_r, at[j], lambda beta, i=i: [_const(i), _const(beta), tile, channel],
                None if bias is None else (bias, [channel]),
            )  # fmt: skip
