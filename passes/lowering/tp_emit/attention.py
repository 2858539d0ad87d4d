"""An attention kernel as one pass over the keys: the softmax runs online inside ·V.

graph-fuse's attention step makes one kernel of Q·Kᵀ (with its scale and mask), the last-axis
softmax and ·V. Lowered anchor by anchor, each chunk of query rows writes its scores, reads them
for the row maxima, writes the exponentials over them, reads those for the sums and again in ·V.
Here the kernel is one parallel loop over (batch dims, chunks of query rows) and, inside, a
serial loop over tiles of keys that keeps a running row maximum m, a running row sum l and an
accumulator O (rows x head size), all private to the iteration:

    S = Q·K_tileᵀ, then its scale and mask, applied on the product's register tile
    m' = max(m, rowmax(S));  a = exp(m - m');  P = exp(S - m')  (over S, in place)
    l = a * l + rowsum(P);   O = a * O + P·V_tile
    out = O / l              (once, after the last tile)

A tile of scores (`ROWS` x `KEYS` floats) lives in L1 from its product to ·V; no score matrix
is written. Rows that are masked out so far (m' = -inf) take exp(S - 0) = 0 and a = 1 instead of
NaN. Only the plain pattern is taken (f32; the scores' epilogue adds, subtracts, multiplies or
divides by kernel arguments that broadcast to them); anything else lowers anchor by anchor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref, scf
from mlir.dialects import math as m

from mlc.dialects import tp
from mlc.dialects.graph import TensorT

from ...math_approx.exp_log import NONPOSITIVE_ATTR
from ..emit_util import apply, index_const
from .expr import Leaf, read
from .kernel import KERNEL_FORMS, KernelBuilder

WORKERS = 16
"""Parallel iterations: each owns a slot of scratch (a thread's L1-sized working set), so a few
per thread balance the load without scratch for every chunk."""
ROWS = 64
"""Query rows per parallel iteration (the register tiles' multiple; a tail chunk takes the rest)."""
KEYS = 128
"""Keys per tile: a tile of scores is 16 KiB, in L1 with the K and V tiles it streams past."""
EPILOGUE_OPS = {"graph.add": arith.AddFOp, "graph.sub": arith.SubFOp}
EPILOGUE_OPS |= {"graph.mul": arith.MulFOp, "graph.div": arith.DivFOp}
NEG_INF = float("-inf")


@dataclass(frozen=True)
class Step:
    """One op of the scores' epilogue: `op`(scores, other) or `op`(other, scores)."""

    op: str
    other: ir.Value  # a kernel argument's buffer, broadcast to the scores
    scores_first: bool


@dataclass(frozen=True)
class Attention:
    """The matched kernel: softmax(epilogue(q @ kt)) @ v with its scores' epilogue ops."""

    q: ir.Value
    kt: ir.Value
    v: ir.Value
    epilogue: list[Step]
    scores: tuple[int, ...]  # the scores' shape: batch dims, queries, keys
    product: ir.Operation  # the last matmul, whose value the kernel writes


def match(kb: KernelBuilder, ops: Sequence[ir.Operation]) -> Attention | None:
    """The kernel's leading ops as attention, when they are matmul, epilogue, softmax, matmul
    over f32 kernel arguments (any ops after them read the last matmul only)."""
    ends = [i for i, op in enumerate(ops) if op.name == "graph.matmul"]
    if len(ends) < 2 or ends[0] != 0 or ends[1] < 2:
        return None
    ops = ops[: ends[1] + 1]
    first, softmax, last = ops[0], ops[-2], ops[-1]
    args = set(kb.entry.arguments[: len(list(kb.graph_fn.regions[0].blocks[0].arguments))])
    if softmax.name != "graph.softmax" or last.operands[0] != softmax.results[0]:
        return None
    shape = kb.type_of(first.results[0]).shape
    rank = len(shape)
    axis = int(kb.attrs(softmax)["axis"])  # type: ignore[call-overload]
    if rank < 2 or axis not in (-1, rank - 1) or 0 in shape:
        return None
    values = [kb.values.get(v) for v in (*first.operands, last.operands[1])]
    if any(v is None or getattr(v, "buffer", None) not in args for v in values):
        return None
    types = [kb.type_of(v) for o in ops for v in (*o.operands, *o.results)]
    if any(t.dtype != "f32" for t in types):
        return None
    q, kt, v = (kb.type_of(x).shape for x in (*first.operands, last.operands[1]))
    if any(len(x) != rank or x[:-2] != shape[:-2] for x in (q, kt, v)):
        return None
    current = first.results[0]
    steps = []
    for op in ops[1:-2]:
        if op.name not in EPILOGUE_OPS or current not in list(op.operands):
            return None
        other = [x for x in op.operands if x != current]
        if len(other) != 1 or kb.type_of(op.results[0]).shape != shape:
            return None
        leaf = kb.values.get(other[0])
        if getattr(leaf, "buffer", None) not in args or len(kb.type_of(other[0]).shape) > rank:
            return None
        steps.append(Step(op.name, leaf.buffer, op.operands[0] == current))  # type: ignore[union-attr]
        current = op.results[0]
    if softmax.operands[0] != current or not _single_uses(ops[:-1]):
        return None
    bufs = [kb.values[x].buffer for x in (*first.operands, last.operands[1])]  # type: ignore[attr-defined]
    return Attention(bufs[0], bufs[1], bufs[2], steps, tuple(shape), last)


def online_attention(kb: KernelBuilder, ops: Sequence[ir.Operation]) -> bool:
    """The kernel form: attention's ops as one pass over the keys (see the module)."""
    att = match(kb, ops)
    if att is None:
        return 0
    result = att.product.results[0]
    t = kb.type_of(result)
    out = kb.output if result == kb.result else kb.temp(t)
    emit(kb, att, out)
    kb.values[result] = Leaf(t.shape, t.dtype, out)
    kb.owned[result] = out
    return list(ops).index(att.product) + 1


KERNEL_FORMS.append(online_attention)


def _single_uses(ops: Sequence[ir.Operation]) -> bool:
    return all(len(list(op.results[0].uses)) == 1 for op in ops)


def emit(kb: KernelBuilder, att: Attention, out: ir.Value) -> None:
    """The kernel's body: `WORKERS` parallel iterations, each running its share of the
    (batch dims, query chunks) with its own slot of scratch (see the module)."""
    *batch, queries, keys = att.scores
    head = ir.MemRefType(att.v.type).shape[-1]
    rows = min(ROWS, queries)
    chunks = -(-queries // rows)
    trips = [*batch, chunks]
    total = math.prod(trips)
    workers = min(WORKERS, total)
    tile_keys = min(KEYS, keys)
    shapes = [(rows, tile_keys), (rows, head), (rows, head)] + [(rows, 1)] * 5
    temps = [kb.temp(TensorT((workers, *shape), "f32")) for shape in shapes]
    par = scf.ParallelOp([], [index_const(0)], [index_const(workers)], [index_const(1)], [])
    body = par.regions[0].blocks.append(ir.IndexType.get())
    with ir.InsertionPoint(body):
        worker = body.arguments[0]
        w = ir.AffineDimExpr.get(0)
        lo = apply(ir.AffineExpr.get_floor_div(w * total, workers), [worker])
        hi = apply(ir.AffineExpr.get_floor_div(w * total + total, workers), [worker])
        slots = [_slot(t, worker) for t in temps]
        loop = scf.ForOp(lo, hi, index_const(1))
        with ir.InsertionPoint(loop.body):
            ivs = _delinearize(loop.induction_variable, trips)
            q_off = arith.MulIOp(ivs[-1], index_const(rows)).result
            tile = _Tile(kb, att, ivs[:-1], head, tile_keys, slots, out)
            tail = queries % rows
            if not tail:
                tile.chunk(q_off, rows)
            else:
                # two ifs, no else: tp-to-loops looks for a block's neighbours in its parent's
                # first region
                for pred, count in ((arith.CmpIPredicate.eq, tail), (arith.CmpIPredicate.ne, rows)):
                    last = arith.CmpIOp(pred, ivs[-1], index_const(chunks - 1)).result
                    branch = scf.IfOp(last)
                    with ir.InsertionPoint(branch.then_block):
                        tile.chunk(q_off, count)
                        scf.YieldOp([])
            scf.YieldOp([])
        scf.ReduceOp([], 0)


def _slot(buf: ir.Value, worker: ir.Value) -> ir.Value:
    """buf[worker] of a [workers, rows, cols] scratch buffer, as a [rows, cols] view."""
    mtype = ir.MemRefType(buf.type)
    _, r, c = mtype.shape
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    layout = ir.StridedLayoutAttr.get(dyn, [c, 1])
    result = ir.MemRefType.get([r, c], mtype.element_type, layout)
    return memref.SubViewOp(result, buf, [worker], [], [], [dyn, 0, 0], [1, r, c], [1, 1, 1]).result


def _delinearize(linear: ir.Value, trips: Sequence[int]) -> list[ir.Value]:
    """linear -> one index per trip count, the last fastest."""
    d = ir.AffineDimExpr.get(0)
    out, stride = [], math.prod(trips)
    for n, trip in enumerate(trips):
        stride //= trip
        e = ir.AffineExpr.get_floor_div(d, stride) if stride > 1 else d
        out.append(apply(ir.AffineExpr.get_mod(e, trip) if n else e, [linear]))
    return out


def _view(
    buf: ir.Value,
    scores_rank: int,
    offsets: dict[int, ir.Value | int],
    sizes: dict[int, int],
    matrix: bool = False,
) -> tuple[ir.Value, list[int]]:
    """A view of `buf` (right-aligned to the scores' dims) at one batch element: dims of size 1
    read at 0, batch dims at `offsets`, the last two (queries/keys or their stand-ins) at
    `offsets` with `sizes` when `buf` has them (always for a `matrix`: Q, Kᵀ, V, the output).
    Returns the view and the score dims it keeps; an operand of one element is `buf` itself,
    keeping none."""
    mtype = ir.MemRefType(buf.type)
    shape = list(mtype.shape)
    lead = scores_rank - len(shape)
    strides = [math.prod(shape[i + 1 :]) for i in range(len(shape))]
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    static_off, dyn_off, static_size, kept = [], [], [], []
    for p, n in enumerate(shape):
        s = lead + p
        whole = s >= scores_rank - 2 and (matrix or n != 1)
        off: ir.Value | int = offsets[s] if whole or n != 1 else 0
        size = sizes.get(s, n) if whole else 1
        if isinstance(off, int):
            static_off.append(off)
        else:
            static_off.append(dyn)
            dyn_off.append(off)
        static_size.append(size)
        if whole:
            kept.append(s)
    if not dyn_off and not kept:
        return buf, []
    if dyn_off:
        offset = dyn
    else:
        offset = sum(o * st for o, st in zip(static_off, strides))
    layout = ir.StridedLayoutAttr.get(offset, [strides[s - lead] for s in kept])
    result = ir.MemRefType.get([static_size[s - lead] for s in kept], mtype.element_type, layout)
    view = memref.SubViewOp(
        result, buf, dyn_off, [], [], static_off, static_size, [1] * len(shape)
    ).result
    return view, kept


class _Tile:
    """Emits one chunk of query rows: its private state, the loop over key tiles, the result."""

    def __init__(
        self,
        kb: KernelBuilder,
        att: Attention,
        batch: list[ir.Value],
        head: int,
        keys: int,
        slots: list[ir.Value],
        out: ir.Value,
    ) -> None:
        self.out = out
        self.kb, self.att, self.batch, self.head = kb, att, batch, head
        self.rank = len(att.scores)
        self.keys = keys
        # the statistics take one column per row, as the softmax's: the row reductions then run
        # along the contiguous keys, not gathered across rows
        self.s, self.o, self.acc, self.m, self.mt, self.l, self.lt, self.a = slots

    # -- views --------------------------------------------------------------------------------
    def _at(
        self,
        buf: ir.Value,
        row_off: ir.Value | int,
        col_off: ir.Value | int,
        rows: int,
        cols: int,
        matrix: bool = True,
    ) -> tuple[ir.Value, list[int]]:
        r = self.rank
        offsets: dict[int, ir.Value | int] = dict(enumerate(self.batch))
        offsets |= {r - 2: row_off, r - 1: col_off}
        return _view(buf, r, offsets, {r - 2: rows, r - 1: cols}, matrix)

    # -- blocks -------------------------------------------------------------------------------
    def _block(
        self,
        out: ir.Value,
        name: str,
        axes: list[str],
        kinds: str,
        extents: list[int],
        out_map: str,
        combiner: str = "none",
        init: float | None = None,
    ):  # type: ignore[no-untyped-def]
        return tp.block(
            out,
            name=self.kb.name(f"attention_{name}"),
            axes=axes,
            kinds=kinds,
            extents=extents,
            out_map=out_map,
            combiner=combiner,
            init=init,
        )

    def _rows(self, out: ir.Value, name: str, rows: int, fn) -> None:  # type: ignore[no-untyped-def]
        """out[i] = fn(reader) over the chunk's rows; reader(buf) reads buf[i]."""
        blk = self._block(out, name, ["i"], "S", [rows], "(i, 0)")
        with ir.InsertionPoint(blk.body):
            tp.yield_(fn(lambda b: read(b, ["i"], [ir.AffineDimExpr.get(0), _zero()])))

    def _fill(self, out: ir.Value, name: str, value: float, rows: int) -> None:
        shape = ir.MemRefType(out.type).shape
        axes = ["i", "c"]
        blk = self._block(out, name, axes, "SS", [rows, shape[1]], "(i, c)")
        with ir.InsertionPoint(blk.body):
            tp.yield_(arith.ConstantOp(ir.F32Type.get(), value).result)

    def chunk(self, q_off: ir.Value, rows: int) -> None:
        keys = self.att.scores[-1]
        self._fill(self.m, "max_init", NEG_INF, rows)
        self._fill(self.l, "sum_init", 0.0, rows)
        self._fill(self.acc, "acc_init", 0.0, rows)
        full = keys // self.keys
        if full:
            loop = scf.ForOp(index_const(0), index_const(full), index_const(1))
            with ir.InsertionPoint(loop.body):
                k_off = arith.MulIOp(loop.induction_variable, index_const(self.keys)).result
                self._key_tile(q_off, k_off, rows, self.keys)
                scf.YieldOp([])
        if keys % self.keys:
            self._key_tile(q_off, full * self.keys, rows, keys % self.keys)
        self._finish(q_off, rows)

    def _key_tile(self, q_off: ir.Value, k_off: ir.Value | int, rows: int, keys: int) -> None:
        i, j, k = (ir.AffineDimExpr.get(n) for n in range(3))
        head_in = ir.MemRefType(self.att.q.type).shape[-1]
        q, _ = self._at(self.att.q, q_off, 0, rows, head_in)
        kt, _ = self._at(self.att.kt, 0, k_off, head_in, keys)
        v, _ = self._at(self.att.v, k_off, 0, keys, self.head)
        axes = ["i", "j", "k"]
        blk = self._block(
            self.s, "scores", axes, "SSR", [rows, keys, head_in], "(i, j)", "add", 0.0
        )
        with ir.InsertionPoint(blk.body):
            tp.yield_(arith.MulFOp(read(q, axes, [i, k]), read(kt, axes, [k, j])).result)
        self._epilogue(q_off, k_off, rows, keys)
        ij = ["i", "j"]
        blk = self._block(self.mt, "tile_max", ij, "SR", [rows, keys], "(i, 0)", "fastmax", NEG_INF)
        with ir.InsertionPoint(blk.body):
            tp.yield_(read(self.s, ij, [i, j]))
        self._rows(
            self.mt, "max", rows, lambda at: arith.MaximumFOp(at(self.m), at(self.mt)).result
        )
        self._rows(self.a, "rescale", rows, lambda at: _rescale(at(self.m), at(self.mt)))
        self._rows(self.m, "max_next", rows, lambda at: at(self.mt))
        blk = self._block(self.s, "exp", ij, "SS", [rows, keys], "(i, j)")
        with ir.InsertionPoint(blk.body):
            tp.yield_(_exp_below(read(self.s, ij, [i, j]), read(self.m, ij, [i, _zero()])))
        blk = self._block(self.lt, "tile_sum", ij, "SR", [rows, keys], "(i, 0)", "add", 0.0)
        with ir.InsertionPoint(blk.body):
            tp.yield_(read(self.s, ij, [i, j]))
        self._rows(self.l, "sum", rows, lambda at: _fma(at(self.l), at(self.a), at(self.lt)))
        axes = ["i", "c", "j"]
        blk = self._block(
            self.o, "values", axes, "SSR", [rows, self.head, keys], "(i, c)", "add", 0.0
        )
        with ir.InsertionPoint(blk.body):
            tp.yield_(arith.MulFOp(read(self.s, axes, [i, k]), read(v, axes, [k, j])).result)
        ic = ["i", "c"]
        blk = self._block(self.acc, "accumulate", ic, "SS", [rows, self.head], "(i, c)")
        with ir.InsertionPoint(blk.body):
            tp.yield_(
                _fma(
                    read(self.acc, ic, [i, j]),
                    read(self.a, ic, [i, _zero()]),
                    read(self.o, ic, [i, j]),
                )
            )

    def _epilogue(self, q_off: ir.Value, k_off: ir.Value | int, rows: int, keys: int) -> None:
        """The scores' scale and mask, as the graph ops say, over the tile in place."""
        ij = ["i", "j"]
        operands = []
        for step in self.att.epilogue:
            view, kept = self._at(step.other, q_off, k_off, rows, keys, matrix=False)
            if view == step.other:  # one element
                idx = [_zero()] * ir.MemRefType(view.type).rank
            else:
                idx = [ir.AffineDimExpr.get(s - (self.rank - 2)) for s in kept]
            operands.append((view, idx))
        blk = self._block(self.s, "scale_mask", ij, "SS", [rows, keys], "(i, j)")
        with ir.InsertionPoint(blk.body):
            value = read(self.s, ij, [ir.AffineDimExpr.get(0), ir.AffineDimExpr.get(1)])
            for step, (view, idx) in zip(self.att.epilogue, operands):
                other = read(view, ij, idx)
                a, b = (value, other) if step.scores_first else (other, value)
                value = EPILOGUE_OPS[step.op](a, b).result
            tp.yield_(value)

    def _finish(self, q_off: ir.Value, rows: int) -> None:
        self._rows(
            self.l, "reciprocal", rows, lambda at: arith.DivFOp(_f32(1.0), at(self.l)).result
        )
        out, _ = self._at(self.out, q_off, 0, rows, self.head)
        ic = ["i", "c"]
        i, c = ir.AffineDimExpr.get(0), ir.AffineDimExpr.get(1)
        blk = self._block(out, "normalize", ic, "SS", [rows, self.head], "(i, c)")
        with ir.InsertionPoint(blk.body):
            tp.yield_(
                arith.MulFOp(read(self.acc, ic, [i, c]), read(self.l, ic, [i, _zero()])).result
            )


def _f32(value: float) -> ir.Value:
    return arith.ConstantOp(ir.F32Type.get(), value).result


def _fma(x: ir.Value, a: ir.Value, y: ir.Value) -> ir.Value:
    return arith.AddFOp(arith.MulFOp(x, a).result, y).result


def _is_neg_inf(x: ir.Value) -> ir.Value:
    return arith.CmpFOp(arith.CmpFPredicate.OEQ, x, _f32(NEG_INF)).result


def _rescale(old: ir.Value, new: ir.Value) -> ir.Value:
    """exp(m - m'), 1 while the row has no unmasked key yet (m = m' = -inf)."""
    return arith.SelectOp(_is_neg_inf(new), _f32(1.0), _exp_below(old, new)).result


def _exp_below(x: ir.Value, mx: ir.Value) -> ir.Value:
    """exp(x - m) for x <= m (marked for mlc-math-approx); with m = -inf, exp(x - 0) of x = -inf."""
    safe = arith.SelectOp(_is_neg_inf(mx), _f32(0.0), mx).result
    op = m.ExpOp(arith.SubFOp(x, safe).result)
    op.operation.attributes[NONPOSITIVE_ATTR] = ir.UnitAttr.get()
    return op.result


def _zero() -> ir.AffineExpr:
    return ir.AffineConstantExpr.get(0)
