"""tp-chunk-rows: run a kernel's row-by-row blocks over chunks of rows that keep their
intermediates in L2.

Row fusion (tp-to-loops) runs consecutive blocks that share their outer rows one row at a time.
An attention kernel's blocks share only the heads at first: its Q·Kᵀ sweeps all query rows
before the softmax starts, so one head's scores (4 MiB at 1024 tokens) go through L3 or memory
three times. This pass tiles the next dim all the blocks index the same way (the query rows) by
a chunk size chosen so a chunk's intermediates fit in `chunk-bytes`, and puts that chunk loop
right after the shared rows in every block: row fusion then runs Q·Kᵀ, the softmax and ·V chunk
by chunk, and the scores never leave L2. Blocks keep their own schedules inside a chunk (a
register tile that does not divide the chunk shrinks to a divisor of it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import ClassVar

from mlir import ir

from mlc.dialects import tp
from mlc.dialects.tp import BlockView, Schedule

from .base import ModulePass, PassContext
from .lowering.row_fusion import Unit, row_loops, shared_rows
from .schedule_reads import elem_bytes, reads_buffer


@dataclass(frozen=True)
class TpChunkRowsPass(ModulePass):
    """Chunk the rows a kernel's blocks share when their intermediates outgrow L2."""

    name: ClassVar[str] = "tp-chunk-rows"
    symbolic_dims: ClassVar[bool] = True

    min_bytes: int = 512 << 10
    """Chunk only when an intermediate holds more than this per shared row (per head)."""
    chunk_bytes: int = 256 << 10
    """The intermediates of one chunk: at most this many bytes (a quarter of Zen 4/5's L2)."""

    def __post_init__(self) -> None:
        if self.min_bytes < 0 or self.chunk_bytes < 1:
            raise ValueError(
                f"min-bytes must be >= 0 and chunk-bytes >= 1, got {self.min_bytes} "
                f"and {self.chunk_bytes}"
            )

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        for func in tp.kernels(module):
            ops = [o.operation for o in func.regions[0].blocks[0].operations]
            for run in _runs([BlockView(o) for o in ops if o.name == "tp.block"]):
                if not any(v.symbolic for v in run):  # rows of run-time size stay whole
                    self._chunk(run)

    def _chunk(self, run: list[BlockView]) -> None:
        units = [Unit(v) for v in run]
        depth = shared_rows(units)
        prefix = row_loops(units[0])[:depth]
        if any(lp.stride != 1 or lp.level != 0 for lp in prefix):
            return  # already chunked
        per_row = math.prod(lp.trip for lp in prefix)
        sizes = _intermediate_bytes(run)
        if not sizes or max(sizes) // per_row <= self.min_bytes:
            return
        axes = [_axis_at(v, depth) for v in run]
        if any(a is None for a in axes):
            return
        extents = {v.extents[v.axes.index(a)] for v, a in zip(run, axes)}
        if len(extents) != 1:
            return
        extent = extents.pop()
        row_bytes = sum(sizes) // (per_row * extent)
        most = min(extent // 2, self.chunk_bytes // max(row_bytes, 1))
        tiles = [v.schedule.tile.get(a, ()) for v, a in zip(run, axes)]
        if most < 1 or any(len(t) > 1 for t in tiles):
            return
        # Chunks as wide as the largest register tile are candidates too while they stay
        # within twice `chunk-bytes` (in L2): a 1x1 conv at 56x56 and batch 8 (200 KiB per
        # output-channel block) was chunked by one block, half its register tile.
        whole = max((t[0] for t in tiles if t), default=1)
        if whole > extent // 2 or whole * row_bytes > 2 * self.chunk_bytes:
            whole = most
        rows = _chunk_rows(most, [t[0] for t in tiles if t], whole)
        old = [v.schedule for v in run]
        new = [_chunked(v, a, depth, rows) for v, a in zip(run, axes)]
        if any(s is None for s in new):
            return
        for view, schedule in zip(run, new):
            view.set_schedule(schedule)
        if shared_rows([Unit(v) for v in run]) <= depth:  # the chunks are not row-local
            for view, schedule in zip(run, old):
                view.set_schedule(schedule)


def _runs(views: list[BlockView]) -> list[list[BlockView]]:
    """Maximal sequences of two or more adjacent blocks that share rows."""
    runs: list[list[BlockView]] = []
    current: list[BlockView] = []
    for view in views:
        if current and shared_rows([Unit(v) for v in current + [view]]):
            current.append(view)
            continue
        if len(current) > 1:
            runs.append(current)
        current = [view]
    if len(current) > 1:
        runs.append(current)
    return runs


def _intermediate_bytes(run: list[BlockView]) -> list[int]:
    """Sizes of the buffers a block of `run` writes and a later one reads (each buffer once: a
    softmax normalizes its exponentials in place)."""
    sizes: dict[ir.Value, int] = {}
    for i, view in enumerate(run):
        if view.out not in sizes and any(reads_buffer(v, view.out) for v in run[i + 1 :]):
            shape = ir.MemRefType(view.out.type).shape
            sizes[view.out] = math.prod(shape) * elem_bytes(view)
    return list(sizes.values())


def _axis_at(view: BlockView, dim: int) -> str | None:
    """The spatial, not vectorized axis that indexes output dim `dim`, if any."""
    results = view.out_map.results
    if dim >= len(results):
        return None
    expr = results[dim].maybe_downcast()
    if not isinstance(expr, ir.AffineDimExpr):
        return None
    axis = view.axes[expr.position]
    schedule = view.schedule
    if view.kinds[expr.position] != "S" or schedule.vectorize.split(".")[0] == axis:
        return None
    return axis


def _chunk_rows(most: int, tiles: list[int], whole: int = 0) -> int:
    """Rows per chunk, at most `most` (or `whole`, a register tile allowed past it) and at
    least half of `most`: the count that keeps the most of the blocks' register tiles (as a
    fraction of each), the larger on a tie."""

    def kept(rows: int) -> float:
        return sum(_divisor_at_most(rows, t) / t for t in tiles)

    return max(range(max(1, most // 2), max(most, whole) + 1), key=lambda r: (kept(r), r))


def _divisor_at_most(n: int, limit: int) -> int:
    return max(d for d in range(1, min(n, limit) + 1) if n % d == 0)


def _chunked(view: BlockView, axis: str, depth: int, rows: int) -> Schedule | None:
    """`view`'s schedule with `axis` in chunks of `rows` right after its first `depth` loops;
    None when that does not fit the block."""
    schedule = view.schedule
    loops = schedule.loops(view.axes, view.kinds, view.extents)
    sizes = schedule.tile.get(axis, ())
    names: dict[str, str | None]  # old loop name -> new one (None: dropped)
    tile: tuple[int, ...] = (rows,)
    unroll = dict(schedule.unroll)
    if not sizes:
        names = {axis: f"{axis}.1"}
    else:
        inner = _divisor_at_most(rows, sizes[0])
        if f"{axis}.1" in unroll:  # the register tile covers the (possibly smaller) tile
            unroll[f"{axis}.1"] = min(unroll[f"{axis}.1"], inner)
        if inner < rows:
            tile = (rows, inner)
            names = {f"{axis}.0": f"{axis}.1", f"{axis}.1": f"{axis}.2"}
        else:  # the tile is the whole chunk: its loop over tiles goes
            names = {f"{axis}.0": None, f"{axis}.1": f"{axis}.1"}
    renamed = [names.get(lp.name, lp.name) for lp in loops]
    order = [n for n in renamed[:depth] + [f"{axis}.0"] + renamed[depth:] if n is not None]
    new_unroll = {names.get(k, k): v for k, v in unroll.items()}
    parallel = tuple(renamed[:depth]) + (f"{axis}.0",) if schedule.parallel else ()
    result = replace(
        schedule,
        tile={**schedule.tile, axis: tile},
        order=tuple(order),
        unroll={k: v for k, v in new_unroll.items() if k is not None},
        vectorize=names.get(schedule.vectorize, schedule.vectorize) or "",
        parallel=tuple(n for n in parallel if n is not None),
    )
    if result.check(view.axes, view.kinds, view.extents):
        return None
    return result
