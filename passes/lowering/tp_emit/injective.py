"""Inline lowering of injective graph ops: re-indexing expressions (`Remap`), no copies."""

from __future__ import annotations

from mlir import ir

from mlc.dialects.graph.spec import layout_block
from mlc.symbolic import Dim, UndecidableError, minimum, parse

from ..runtime_extents import UnsupportedSymbolic
from .expr import Expr, Index, Leaf, PadLeaf, Remap, broadcast_index, reshape_index
from .kernel import KernelBuilder, inline


@inline("reshape", "flatten", "squeeze", "unsqueeze")
def _reshape(kb: KernelBuilder, op: ir.Operation) -> Expr:
    child = kb.expr(op.operands[0])
    out = kb.type_of(op.results[0])
    try:
        return Remap(out.shape, out.dtype, child, reshape_index(child.shape, out.shape))
    except (UnsupportedSymbolic, UndecidableError):
        # merging or splitting run-time sizes: index maps cannot divide by them, but the
        # buffer (row-major, contiguous) can be viewed in the new shape
        view = kb.reshaped(kb.buffer(op.operands[0]), child.shape, out.shape)
        return Leaf(out.shape, out.dtype, view)


@inline("transpose")
def _transpose(kb: KernelBuilder, op: ir.Operation) -> Expr:
    child = kb.expr(op.operands[0])
    out = kb.type_of(op.results[0])
    perm = kb.attrs(op)["perm"]

    def fn(idx: Index) -> Index:
        src: list[ir.AffineExpr] = [ir.AffineConstantExpr.get(0)] * len(idx)
        for i, p in enumerate(perm):  # type: ignore[union-attr]
            src[p] = idx[i]
        return src

    return Remap(out.shape, out.dtype, child, fn)


@inline("slice")
def _slice(kb: KernelBuilder, op: ir.Operation) -> Expr:
    child = kb.expr(op.operands[0])
    out = kb.type_of(op.results[0])
    a = kb.attrs(op)
    rank = len(child.shape)
    start = [0] * rank
    step = [1] * rank
    runtime = False
    for s, e, axis, st in zip(a["starts"], a["ends"], a["axes"], a["steps"]):  # type: ignore[call-overload]
        axis = axis + rank if axis < 0 else axis
        s, e = (parse(x) if isinstance(x, str) else x for x in (s, e))
        if isinstance(s, Dim) and st == 1:  # a run-time start (a past length): clamped
            start[axis], runtime = minimum(s, child.shape[axis]), True
        else:
            start[axis] = _slice_start(s, e, st, child.shape[axis])
        step[axis] = st
    if runtime:
        if any(st != 1 for st in step):
            raise UnsupportedSymbolic("a strided slice with a start known at run time")
        view = kb.subview(kb.buffer(op.operands[0]), start, out.shape)
        return Leaf(out.shape, out.dtype, view)

    def fn(idx: Index) -> Index:
        return [e * st + s if (st != 1 or s) else e for e, s, st in zip(idx, start, step)]

    return Remap(out.shape, out.dtype, child, fn)


def _slice_start(s: int | Dim, e: int | Dim, step: int, size: int | Dim) -> int:
    """The first index a Slice reads (ONNX clamping); an index map needs it static."""
    if isinstance(size, int) and isinstance(s, int) and isinstance(e, int):
        return range(*slice(s, e, step).indices(size)).start
    if isinstance(s, int) and step > 0 and s >= 0:
        start = minimum(s, size)
        if isinstance(start, int):
            return start
    raise UnsupportedSymbolic(f"a slice starting at {s} of an axis of size {size}")


@inline("expand")
def _expand(kb: KernelBuilder, op: ir.Operation) -> Expr:
    child = kb.expr(op.operands[0])
    out = kb.type_of(op.results[0])
    return Remap(out.shape, out.dtype, child, broadcast_index(child.shape, out.shape))


@inline("tile")
def _tile(kb: KernelBuilder, op: ir.Operation) -> Expr:
    child = kb.expr(op.operands[0])
    out = kb.type_of(op.results[0])

    def fn(idx: Index) -> Index:
        return [e % d if d != o else e for e, d, o in zip(idx, child.shape, out.shape)]

    return Remap(out.shape, out.dtype, child, fn)


@inline("layout_transform")
def _layout_transform(kb: KernelBuilder, op: ir.Operation) -> Expr:
    child = kb.expr(op.operands[0])
    out = kb.type_of(op.results[0])
    a = kb.attrs(op)
    src_b = layout_block(str(a["src_layout"]), "NCHW")
    dst_b = layout_block(str(a["dst_layout"]), "NCHW")

    def fn(idx: Index) -> Index:
        n, h, w = idx[0], idx[2], idx[3]
        channel = idx[1] * dst_b + idx[4] if dst_b else idx[1]
        if not src_b:
            return [n, channel, h, w]
        return [n, ir.AffineExpr.get_floor_div(channel, src_b), h, w, channel % src_b]

    return Remap(out.shape, out.dtype, child, fn)


@inline("pad")
def _pad(kb: KernelBuilder, op: ir.Operation) -> Expr:
    a = kb.attrs(op)
    out = kb.type_of(op.results[0])
    if a["mode"] != "constant":
        return kb.anchor_value(op)  # reflect / edge padding reads computed indices
    pads = a["pads"]
    rank = len(out.shape)
    buf = kb.buffer(op.operands[0])  # padding a buffer read is a tp.read_padded
    return PadLeaf(out.shape, out.dtype, buf, tuple(pads[:rank]), float(a["value"]))  # type: ignore[index, arg-type]
