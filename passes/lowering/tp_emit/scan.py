"""Anchor of the scans `cumsum` and `cumprod`: log2(n) doubling steps (Hillis-Steele).

A tp block has no iteration order, so a running sum along the axis (each element reading its
predecessor's result) cannot be a block. Instead step s combines every element with the one
2^s positions before it (after it, for `reverse`) in the previous step's buffer, reading the
identity (0 or 1) outside the axis: after ceil(log2(n)) steps each element combines its whole
prefix. Every step is one elementwise block (vectorized like any other), ping-ponging between
a scratch buffer and the output so that the last step writes the output. An exclusive scan
shifts the first step's reads by one. Half-precision values are combined in f32 and rounded
once at the end. Work is n log2(n) instead of n: the price of blocks without order.

An axis whose length is known only at run time has no step count to unroll: `_runtime_scan`
runs an `scf.for` along it instead, one block per position over the other dims (viewed as
[outer, n, inner]) combining the previous position's result with the input (work n).
"""

from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, scf

from mlc.dialects import tp
from mlc.dialects.graph import TensorT
from mlc.symbolic import Dim

from ..emit_util import combine, index_const
from ..runtime_extents import UnsupportedSymbolic
from .expr import Elementwise, Expr, Leaf, block_over, read
from .kernel import KernelBuilder, anchor
from .reduce import is_half, rounded, widen
from .scalar import const


@anchor("cumsum", "cumprod")
def scan(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    a = kb.attrs(op)
    x_t = kb.type_of(op.operands[0])
    axis = int(a["axis"]) % len(x_t.shape)  # type: ignore[call-overload]
    exclusive, reverse = bool(a["exclusive"]), bool(a["reverse"])
    kind, identity = ("add", 0) if op.name == "graph.cumsum" else ("mul", 1)
    n = x_t.shape[axis]
    half = is_half(ir.Type.parse(x_t.dtype))
    if isinstance(n, Dim):
        if half:  # graph-widen-half computes half scans in f32 before this
            raise UnsupportedSymbolic("a half-precision scan along an axis of run-time length")
        _runtime_scan(kb, op, out, axis, kind, identity, exclusive, reverse)
        return None
    acc = TensorT(x_t.shape, "f32" if half else x_t.dtype)
    distances = [1 << s for s in range(max(n - 1, 0).bit_length())]  # 1, 2, 4, ... < n
    if not distances:  # one element along the axis: itself, or the identity when exclusive
        x = kb.expr(op.operands[0])
        return Elementwise(
            x_t.shape, x_t.dtype, [x], lambda v: _identity_or(v[0], identity, exclusive), [_same]
        )
    # Destinations, last step first: the output (or an f32 temporary for halves), then a
    # scratch buffer, alternating.
    last = kb.temp(acc) if half else out
    scratch = kb.temp(acc)
    dests = [last if (len(distances) - 1 - s) % 2 == 0 else scratch for s in range(len(distances))]
    src = kb.buffer(op.operands[0])
    sign = 1 if reverse else -1
    for s, (d, dest) in enumerate(zip(distances, dests)):
        first = s == 0
        offset = 1 if first and exclusive else 0  # an exclusive scan reads one further
        name = kb.name(f"{op.name.removeprefix('graph.')}_step")
        blk, axes, idx = block_over(dest, name, acc.shape)

        def at(shift: int, idx: list[ir.AffineExpr] = idx) -> list[ir.AffineExpr]:
            moved = list(idx)
            moved[axis] = idx[axis] + sign * shift if shift else idx[axis]
            return moved

        with ir.InsertionPoint(blk.body):
            near = read(src, axes, at(offset), pad=identity if offset else None)
            far = read(src, axes, at(offset + d), pad=identity)
            if first and half:
                near, far = widen(near), widen(far)
            tp.yield_(combine(kind, near, far))
        src = dest
    if half:
        kb.store(rounded(Leaf(acc.shape, acc.dtype, last), x_t.dtype), out, "scan_round")
    return None


def _same(idx: list[ir.AffineExpr]) -> list[ir.AffineExpr]:
    return idx


def _identity_or(v: ir.Value, identity: int, exclusive: bool) -> ir.Value:
    return const(v, identity) if exclusive else v


def _runtime_scan(
    kb: KernelBuilder,
    op: ir.Operation,
    out: ir.Value,
    axis: int,
    kind: str,
    identity: int,
    exclusive: bool,
    reverse: bool,
) -> None:
    """out[.., p, ..] = out[.., q, ..] (op) x[.., r, ..] for each position p in scan order, q the
    previous one, r = q for an exclusive scan, else p; the first position takes x (or the
    identity when exclusive)."""
    shape = kb.type_of(op.operands[0]).shape
    n = shape[axis]
    view = [math.prod(shape[:axis]), n, math.prod(shape[axis + 1 :])]
    src = kb.reshaped(kb.buffer(op.operands[0]), shape, view)
    dst = kb.reshaped(out, shape, view)
    last = kb.index_value(n - 1) if reverse else None  # type: ignore[arg-type]
    box = [view[0], 1, view[2]]

    def at(buf: ir.Value, pos: ir.Value) -> ir.Value:
        return kb.subview(buf, [0, pos, 0], box)

    def step(pos: ir.Value, prev: ir.Value | None, name: str) -> None:
        # the views before the block: its body holds only reads and arithmetic
        x_at = at(src, pos if prev is None or not exclusive else prev)
        acc_at = at(dst, prev) if prev is not None else None
        blk, axes, idx = block_over(at(dst, pos), kb.name(name), box)
        with ir.InsertionPoint(blk.body):
            x = read(x_at, axes, idx)
            if acc_at is None:  # the first position
                tp.yield_(const(x, identity) if exclusive else x)
            else:
                tp.yield_(combine(kind, read(acc_at, axes, idx), x))

    first = last if last is not None else index_const(0)
    step(first, None, f"{op.name.removeprefix('graph.')}_first")
    loop = scf.ForOp(index_const(1), kb.index_value(n), index_const(1))  # type: ignore[arg-type]
    with ir.InsertionPoint(loop.body):
        t = loop.induction_variable
        if last is not None:  # reverse: p = n - 1 - t, previous p + 1
            pos = arith.SubIOp(last, t).result
            prev = arith.AddIOp(pos, index_const(1)).result
        else:
            pos, prev = t, arith.SubIOp(t, index_const(1)).result
        step(pos, prev, f"{op.name.removeprefix('graph.')}_run")
        scf.YieldOp([])
