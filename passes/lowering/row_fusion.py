"""Consecutive tp blocks that work row by row run under one loop over their rows.

A softmax is three blocks (the row maxima, the row sums of exp(x - max), the normalization), a
layer norm five; each sweeps the whole tensor, so every block reads rows that an earlier block
pushed out of the caches. When the blocks share their outer loops (the rows: untiled spatial
loops that index the first dims of every output) and each reads what an earlier one wrote only
at its own row, the loops over the rows are emitted once and every block runs inside them, one
row after the other: a row stays in L1 from the first block to the last. Inside, consecutive
blocks that share more rows fuse again: an attention kernel's products share the heads, its
softmax blocks the query rows of a head.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from mlir import ir
from mlir.dialects import arith, scf

from mlc.dialects.tp import BlockView, Loop
from mlc.dialects.walk import walk
from mlc.symbolic import Dim

from .body import Point
from .emit_util import apply
from .loop_nest import BlockLowering


@dataclass(frozen=True)
class Unit:
    """A block and the epilogue block fused into it (if any)."""

    block: BlockView
    epilogue: BlockView | None = None

    def writes(self) -> set[ir.Value]:
        return {self.block.out} | ({self.epilogue.out} if self.epilogue is not None else set())

    def bodies(self) -> list[BlockView]:
        return [self.block] + ([self.epilogue] if self.epilogue is not None else [])


def row_loops(unit: Unit) -> list[Loop]:
    """The unit's leading loops that are rows: spatial loops over its out_map's first dims in
    order (the loops of dim k before those of dim k + 1), not vectorized. A tiled dim's levels
    count from the outermost on: `tp-chunk-rows` puts an attention's query rows in chunks
    (`s2.0`) that every block of the kernel shares, and the rows inside a chunk (`s2.1`) that
    its softmax blocks share."""
    view = unit.block
    loops = view.schedule.loops(view.axes, view.kinds, view.extents)
    results = view.out_map.results
    # No level of the vectorized axis: its last tile may be partial, which the block's own
    # loop over the tiles peels into narrower vectors.
    vec_axis = next((lp.axis for lp in loops if lp.name == view.schedule.vectorize), None)
    rows: list[Loop] = []
    dim = level = 0
    for lp in loops:
        if lp.kind != "S" or lp.axis == vec_axis or lp.level != level:
            break
        if dim >= len(results) or not _is_dim(results[dim], view.axes, lp.axis):
            break
        rows.append(lp)
        dim, level = (dim + 1, 0) if lp.stride == 1 else (dim, level + 1)
    return rows


def _dims(loops: Sequence[Loop]) -> list[int]:
    """The output dim each of the row `loops` runs over."""
    dims, dim = [], 0
    for lp in loops:
        dims.append(dim)
        dim += lp.stride == 1
    return dims


def shared_rows(units: Sequence[Unit]) -> int:
    """How many leading row loops all `units` share (same trips, every read of an earlier unit's
    output at the reader's own row); 0 when they cannot run row by row."""
    if view_is_scatter(units):
        return 0
    rows = [row_loops(u) for u in units]
    shared = min(len(r) for r in rows)
    for k in range(shared):
        if len({(r[k].trip, r[k].stride, r[k].level) for r in rows}) != 1:
            shared = k
            break
    written: set[ir.Value] = set()
    for unit, loops in zip(units, rows):
        for view in unit.bodies():
            shared = min(shared, _row_local(view, loops, written))
        written |= unit.writes()
    # Rows that are all one row (a batch of 1) fuse nothing, and the blocks would lose their
    # own parallel loops: a depthwise conv after its padded copy ran on one thread.
    trips = math.prod(lp.trip for lp in rows[0][:shared])
    if isinstance(trips, int) and trips < 2:  # (a count known at run time: assumed many)
        return 0
    return shared


def view_is_scatter(units: Sequence[Unit]) -> bool:
    return any(u.block.scatter for u in units)


def _row_local(view: BlockView, loops: Sequence[Loop], written: set[ir.Value]) -> int:
    """How many of the row `loops` every access of `view` to a buffer in `written` indexes at
    the same row (its first dims are exactly the row axes)."""
    depth = len(loops)
    for op in walk(view.op):
        if op.name == "tp.load" and op.operands[0] in written:
            return 0  # a computed position: any row
        if op.name in ("tp.read", "tp.read_padded") and op.operands[0] in written:
            results = ir.AffineMapAttr(op.attributes["map"]).value.results
            same = 0
            for dim, lp in zip(_dims(loops), loops):
                if same >= depth or dim >= len(results) or not _is_row(view, results[dim], lp.axis):
                    break
                same += 1
            depth = min(depth, same)
    return depth


def _is_row(view: BlockView, expr: ir.AffineExpr, axis: str) -> bool:
    """`expr` indexes the row of `axis` (an axis of one row is read at index 0)."""
    e = expr.maybe_downcast()
    if isinstance(e, ir.AffineConstantExpr):
        return e.value == 0 and view.extents[view.axes.index(axis)] == 1
    return _is_dim(e, view.axes, axis)


def _is_dim(expr: ir.AffineExpr, axes: Sequence[str], axis: str) -> bool:
    e = expr.maybe_downcast()
    return isinstance(e, ir.AffineDimExpr) and axes[e.position] == axis


def emit_rows(
    units: Sequence[Unit], depth: int, threads: int, vnni_bits: int, madd_bits: int = 0
) -> None:
    """The first `depth` row loops once (parallel as far as some unit's schedule says), the last
    of them in tiles of rows; inside a tile every unit runs over its rows in turn. Tiles, not
    single rows: a row's blocks depend on each other (max, then the sum of exp(x - max), then
    the quotient), and a short row's chain of reductions is latency bound; consecutive rows of
    one block overlap (softmax rows of 197 ran 1.4x slower one row at a time)."""
    lowerings = [BlockLowering(u.block, u.epilogue, threads, vnni_bits, madd_bits) for u in units]
    first = lowerings[0]
    prefix = first.loops[:depth]
    last = prefix[-1]
    # Parallel as far as any unit's schedule says: a padded copy too small to split (serial)
    # must not keep the depthwise conv fused after it on one thread.
    parallel = max(
        min(depth, sum(1 for lp in lw.loops[:depth] if lp.name in lw.schedule.parallel))
        for lw in lowerings
    )
    rows = _tile_rows(units, depth, last)
    static = all(isinstance(lp.trip, int) for lp in prefix)
    if threads > 1 and parallel == depth and last.level == 0 and last.stride == 1 and static:
        rows = _balanced_rows(prefix, rows, threads)
    outer = _tiled(prefix, rows)
    axes = [lp.axis for lp in prefix]
    first.around_parallel(
        parallel,
        lambda bound, point: first.nest(
            outer[len(bound) :], point, lambda p: _tile(units, lowerings, depth, axes, p, rows)
        ),
        outer,
    )


def _tiled(prefix: Sequence[Loop], rows: int) -> list[Loop]:
    """The row loops with the last one over tiles of `rows` of its steps."""
    last = prefix[-1]
    tiles = (last.trip + rows - 1) // rows
    return list(prefix[:-1]) + [
        replace(last, name=f"{last.name}.tiles", trip=tiles, stride=rows * last.stride)
    ]


def _tile_rows(units: Sequence[Unit], depth: int, last: Loop) -> int:
    """Rows per tile of the row loop `last`: one chunk of a chunked dim; inside a chunk, a
    divisor of its rows (a partial tile would run rows of the next chunk, which may be another
    thread's)."""
    if last.stride > 1:
        return 1
    rows = max(1, TILE_BYTES // max(_row_bytes(units, depth), 1))
    if isinstance(last.trip, Dim):  # a run-time count: the last tile is guarded
        return rows
    rows = min(last.trip, rows)
    if last.level > 0:
        rows = max(d for d in range(1, rows + 1) if last.trip % d == 0)
    return rows


def _tile(
    units: Sequence[Unit],
    lowerings: Sequence[BlockLowering],
    depth: int,
    axes: Sequence[str],
    point: Point,
    rows: int,
) -> None:
    """One tile: `point` binds the row `axes` (the last to the tile's first row). Every unit
    runs over the tile's rows in turn; consecutive units that share more rows run together,
    one of those rows at a time (nested fusion: an attention kernel's softmax blocks, row by
    row, inside the loop over heads that the matrix products share)."""
    extent = lowerings[0].loops[depth - 1].trip
    start = 0
    while start < len(units):
        stop = start + 1
        while stop < len(units) and shared_rows(units[start : stop + 1]) > depth:
            stop += 1
        lead = lowerings[start]
        own = [lp.axis for lp in lead.loops[:depth]]
        terms = {a: ir.AffineConstantExpr.get(0) for a in lead.axes}
        for mine, theirs in zip(own, axes):
            terms[mine] = point.terms[theirs]
        row = replace(lead.loops[depth - 1], name=f"{own[-1]}.row", trip=rows, stride=1)
        group, group_lowerings = units[start:stop], lowerings[start:stop]
        deeper = shared_rows(group) if len(group) > 1 else 0

        def body(p: Point, lw: BlockLowering = lead, g=group, gl=group_lowerings, d=deeper) -> None:
            if not d:
                lw.emit_from(depth, p)
                return
            inner = lw.loops[depth:d]
            inner_rows = _tile_rows(g, d, inner[-1])
            inner_axes = [lp.axis for lp in lw.loops[:d]]
            lw.nest(
                _tiled(inner, inner_rows), p, lambda q: _tile(g, gl, d, inner_axes, q, inner_rows)
            )

        # A group of one runs over the tile's rows itself; a group, over them together.
        lead.nest(
            [row],
            Point(point.dims, terms),
            lambda p, b=body, a=own[-1], lw=lead: _in_range(p, a, extent, rows, b, lw.bound),
        )
        start = stop


def _balanced_rows(prefix: Sequence[Loop], rows: int, threads: int) -> int:
    """Rows per tile when the tiles are shared out to threads: at most `rows`, and few enough
    that every thread gets as many tiles (32 channels of a global pooling fit one 16 KiB tile,
    which left one of two threads idle)."""
    others = 1
    for lp in prefix[:-1]:
        others *= lp.trip
    trip = prefix[-1].trip
    tiles = -(-trip // rows)
    while tiles < trip and (others * tiles) % threads:
        tiles += 1
    return -(-trip // tiles)


TILE_BYTES = 16 << 10
"""Rows per tile: as many as keep every unit's rows within this many bytes (L1 holds them)."""


RUNTIME_ROW = 64
"""Elements a dim of a row whose size is known at run time only is taken to have."""


def _row_bytes(units: Sequence[Unit], depth: int) -> int:
    """Bytes of one row of every unit's output (what the tile's blocks touch, roughly)."""
    dims = sum(lp.stride == 1 for lp in row_loops(units[0])[:depth])
    total = 0
    for unit in units:
        mtype = ir.MemRefType(unit.block.out.type)
        elems = 1
        for d in mtype.shape[dims:]:
            elems *= RUNTIME_ROW if ir.ShapedType.is_dynamic_size(d) else d
        total += elems * max(getattr(mtype.element_type, "width", 32) // 8, 1)
    return total


def _in_range(
    point: Point,
    axis: str,
    extent: int | Dim,
    rows: int,
    body: Callable[[Point], None],
    bound: Callable[[int | Dim], ir.Value],
) -> list[ir.Value]:
    """`body(point)`, skipping the rows past the end of a partial last tile (`bound`: an
    extent as an index value)."""
    if isinstance(extent, int) and extent % rows == 0:
        body(point)
        return []
    at = apply(point.terms[axis], point.dims)
    inside = arith.CmpIOp(arith.CmpIPredicate.slt, at, bound(extent)).result
    branch = scf.IfOp(inside)
    with ir.InsertionPoint(branch.then_block):
        body(point)
        scf.YieldOp([])
    return []
