"""Knob generators: the tuning knobs of a tp.block, derived from its axes, kinds, extents and
reads (`facts.BlockFacts`; never written per op). The templates that turn knob values into a
Schedule, and the constraints between knobs, are in `templates`.

Two templates cover the default schedules of `tp-default-schedule`:

* `nest` (everything but streamed matrix-vector products): outer spatial loops, then the reduce
  loops, then a register tile (unrolled spatial loops) around the vectorized loop:

      order = G1 + [r0.0] + G2 + [r0.1] + reduce loops + register tile + vector loop
      G1, G2 = C, R (reorder "CR") or R.0, C + R.1 (reorder "RC") or spatial, [] (declared)

  where C are the outer loops of the column axes (those only the vector reads depend on: a
  conv's output-channel blocks), R those of the row axes (the rest: pixels, matmul rows),
  `r0.0` exists when the first reduce axis is blocked (`tile_<r0>` > 0), `R.1` when a row axis
  has a cache tile (a 2-level `tile_<row>`), and the first `parallel` loops run on the threads.
* `stream` (the batch-1 dense layer whose matrix streams from memory): `k` outside the vector
  loops, the vector axis split into per-thread chunks.
* `row` (a reduction vectorized along its own contiguous reduce axis: softmax's and layer norm's
  row statistics): spatial loops, other reduce loops, then the reduce axis in vectors whose
  lanes are partial results; `tile_<r>` is their width (one to four registers).

A generator is one function: it returns knobs (name, legal values, the default schedule's value,
how a value edits the draft). To add a knob (say, packing an operand at some loop), write one
more generator that reads `BlockFacts`, and either set `Draft.fields` the template reads or
`Draft.extra` (fields of the finished Schedule); add a constraint if it couples with others.
Every point of a space passes `Schedule.check`, and the default schedule is one of them: when a
template cannot express a block's default, the block's space is that default alone.
"""

from __future__ import annotations

from collections.abc import Callable

from mlc.dialects.tp import Schedule

from .facts import BlockFacts, divisors
from .space import Draft, Knob, Value

BODY_MAX = 256
"""Most vector operations an unrolled reduction body (register tile x reduce unrolls) may have
(bigger bodies took seconds to compile and were never the fastest in the runs seen)."""
MAX_UNROLL_TRIP = 16
"""Reduce loops with at most this many iterations get an unroll knob."""
MAX_MIDS = 2
"""Cache-tile sizes offered per register size of a row axis."""
MAX_LANES = 64
"""Widest vectorized loop (`Schedule.check`'s limit)."""
"""Cache-tile sizes offered per register size of a row axis."""


def _tiles_of(default: Schedule, axis: str, extent: int) -> tuple[int, ...]:
    """A spatial axis's (mid, reg) or (reg,) split in the default schedule."""
    if default.unroll.get(axis, 1) >= extent and axis not in default.tile:
        return (extent,)
    sizes = default.tile.get(axis, ())
    if not sizes:
        return (1,)
    inner = f"{axis}.{len(sizes)}"
    if default.unroll.get(inner, 1) >= sizes[-1]:
        return sizes if len(sizes) <= 2 else (0,)  # (0,): not a template split
    return (sizes[0], 1) if len(sizes) == 1 else (0,)


def gen_vector_width(f: BlockFacts) -> list[Knob]:
    """`tile_<vec>`: lanes of the vectorized loop (several registers wide in reductions)."""
    if f.vec is None:
        return []
    extent = f.extent(f.vec)
    name = f.default.vectorize
    default = f.default.tile[f.vec][-1] if "." in name else extent
    base = min(8, f.native_lanes) if f.elem_bits >= 32 else f.native_lanes
    widths = {default}
    for m in (1, 2, 4, 8):
        w = base * m
        if w <= 64 and extent % w == 0 and (f.register_tiled or m <= 4):
            widths.add(w)
    return [Knob(f"tile_{f.vec}", tuple(sorted(widths)), default, _set("width"))]


def gen_register_tiles(f: BlockFacts) -> list[Knob]:
    """`tile_<axis>` of every other spatial axis of a vectorized reduction: the register-tile
    size (unrolled), and for the outermost row axis a cache tile around it as well."""
    if not f.register_tiled:
        return []
    limit = f.registers - 2
    cache_row = next((a for a in f.rows if f.extent(a) >= 4), None)
    knobs = []
    for axis in f.rows + f.columns:
        extent = f.extent(axis)
        if extent < 2:
            continue
        regs = [r for r in divisors(extent) if r <= limit]
        values: list[tuple[int, ...]] = [(r,) for r in regs]
        if axis == cache_row:
            for r in regs:
                mids = [m for m in divisors(extent) if r < m <= extent // 2 and m % r == 0]
                picks = mids[:: max(1, -(-len(mids) // MAX_MIDS))][:MAX_MIDS]
                values += [(m, r) for m in picks]
        default = _tiles_of(f.default, axis, extent)
        if default not in values:
            values.append(default)
        knobs.append(Knob(f"tile_{axis}", tuple(values), default, _set_in("tiles", axis)))
    return knobs


def gen_reduce_slice(f: BlockFacts) -> list[Knob]:
    """`tile_<r0>`: block the first reduce axis (0: off), sweeping the spatial loops of G2 once
    per slice so that one slice of the vector operand's panel stays in cache."""
    if not f.register_tiled:
        return []
    r0 = f.reduce[0]
    extent = f.extent(r0)
    default = f.default.tile.get(r0, (0,))[0]
    if extent < 4 and not default:
        return []
    values = sorted({0, default} | {d for d in divisors(extent) if 2 <= d <= extent // 2})
    return [Knob(f"tile_{r0}", tuple(values), default, _set("slice"))]


def gen_reduce_unroll(f: BlockFacts) -> list[Knob]:
    """`unroll_<r>` of each short reduce loop, factor 1 (a real loop) included."""
    knobs = []
    for axis in f.reduce:
        extent = f.extent(axis)
        default = f.default.unroll.get(axis, 1)
        if not 2 <= extent <= MAX_UNROLL_TRIP and default == 1:
            continue
        values = tuple(sorted({1, default} | set(divisors(extent)[1:])))
        knobs.append(Knob(f"unroll_{axis}", values, default, _set_in("unroll", axis)))
    return knobs


def gen_reorder(f: BlockFacts) -> list[Knob]:
    """`reorder`: column blocks outside row blocks (the vector operand's panel stays in cache
    while every row uses it) or rows outside columns (a band of input rows stays in cache)."""
    if not f.register_tiled:
        return []
    rows = [a for a in f.rows if f.extent(a) > 1]
    if not rows:
        return []
    default = _reorder_of(f)
    values = ("CR", "RC") if default in ("CR", "RC") else (default,)
    return [Knob("reorder", values, default, _set("reorder"))]


def gen_parallel(f: BlockFacts) -> list[Knob]:
    """`parallel`: how many outer loops run on the threads (0: none)."""
    if not f.spatial:
        return []
    default = len(f.default.parallel)
    if f.threads < 2:  # tp-to-loops ignores parallel loops: nothing to tune
        return [Knob("parallel", (default,), default, _set("parallel"))]
    most = len(f.spatial) + 1  # a cache-tiled row axis has two outer loops
    values = tuple(range(0, max(most, default) + 1))
    return [Knob("parallel", values, default, _set("parallel"))]


NEST_GENERATORS: tuple[Callable[[BlockFacts], list[Knob]], ...] = (
    gen_vector_width,
    gen_register_tiles,
    gen_reduce_slice,
    gen_reduce_unroll,
    gen_reorder,
    gen_parallel,
)


def _reorder_of(f: BlockFacts) -> str:
    """Which group of outer loops the default puts first ("CR" when there is nothing to swap)."""
    if not f.register_tiled:
        return ""
    loops = f.default.loops(f.axes, f.kinds, f.extents)
    first_r = next((i for i, lp in enumerate(loops) if lp.kind == "R"), len(loops))
    outer = [lp for lp in loops[:first_r] if lp.trip > 1]
    cols = [i for i, lp in enumerate(outer) if lp.axis in f.columns or lp.axis == f.vec]
    rows = [i for i, lp in enumerate(outer) if lp.axis in f.rows and lp.axis not in f.leading_rows]
    if not cols or not rows:
        return "CR"
    return "CR" if min(cols) < min(rows) else "RC"


def _set(key: str) -> Callable[[Draft, Value], None]:
    def apply(draft: Draft, value: Value) -> None:
        draft.fields[key] = value

    return apply


def _set_in(key: str, axis: str) -> Callable[[Draft, Value], None]:
    def apply(draft: Draft, value: Value) -> None:
        draft.fields.setdefault(key, {})[axis] = value

    return apply


def gen_stream_split(f: BlockFacts) -> list[Knob]:
    """`tile_<vec>` of a streamed matrix-vector product: (lanes per chunk, vector width); one
    chunk per thread slice, `k` outside."""
    if f.vec is None or len(f.reduce) != 1:
        return []
    extent = f.extent(f.vec)
    sizes = f.default.tile.get(f.vec, ())
    default = (extent, sizes[0]) if len(sizes) == 1 else tuple(sizes)
    values = {default}
    for m in (1, 2, 4):
        width = min(8, f.native_lanes) * m
        if extent % width:
            continue
        for chunks in (1, 2, 3, 4, 6, 8):
            if (extent // width) % chunks == 0:
                values.add((extent // chunks, width))
    return [Knob(f"tile_{f.vec}", tuple(sorted(values)), default, _set("split"))]


def gen_row_lanes(f: BlockFacts) -> list[Knob]:
    """`tile_<r>` of a row reduction: lanes of partial results along the reduce axis `r` (one,
    two or four registers: more independent chains of adds, a longer tail)."""
    if f.vec is None or f.vec not in f.reduce:
        return []
    extent = f.extent(f.vec)
    default = f.default.tile[f.vec][0] if f.vec in f.default.tile else extent
    widths = {default} | {
        f.native_lanes * m for m in (1, 2, 4) if f.native_lanes * m <= min(extent, MAX_LANES)
    }
    return [Knob(f"tile_{f.vec}", tuple(sorted(widths)), default, _set("width"))]


ROW_GENERATORS: tuple[Callable[[BlockFacts], list[Knob]], ...] = (gen_row_lanes, gen_parallel)
