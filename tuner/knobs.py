"""Knob generators: the tuning knobs of a tp.block, derived from its axes, kinds, extents and
reads (never written per op), and the templates that turn knob values into a Schedule.

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

A generator is one function: it returns knobs (name, legal values, the default schedule's value,
how a value edits the draft). To add a knob (say, packing an operand at some loop), write one
more generator that reads `BlockFacts`, and either set `Draft.fields` the template reads or
`Draft.extra` (fields of the finished Schedule); add a constraint if it couples with others.
Every point of a space passes `Schedule.check`, and the default schedule is one of them: when a
template cannot express a block's default, the block's space is that default alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
from mlir import ir

from mlc.contract import TargetInfo
from mlc.dialects.tp import BlockView, Schedule
from mlc.dialects.tp.affine import linear_coeff
from mlc.dialects.walk import walk

from .space import Columns, ConfigSpace, Constraint, Draft, Knob, Value

BODY_MAX = 256
"""Most vector operations an unrolled reduction body (register tile x reduce unrolls) may have
(bigger bodies took seconds to compile and were never the fastest in the runs seen)."""
MAX_UNROLL_TRIP = 16
"""Reduce loops with at most this many iterations get an unroll knob."""
MAX_MIDS = 2
"""Cache-tile sizes offered per register size of a row axis."""


def vector_registers(target: TargetInfo) -> tuple[int, int]:
    """(vector registers, bits per register) of a target: AVX-512 has 32 of 512 bits, AVX2 16
    of 256, NEON 32 of 128."""
    features = set(target.features)
    if "avx512f" in features:
        return 32, 512
    if features & {"neon", "asimd"}:
        return 32, 128
    return 16, 256


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


@dataclass(frozen=True)
class BlockFacts:
    """What knob generators may look at: the block's iteration domain, its affine reads (linear
    coefficient of each axis in each index), its default schedule and the target."""

    name: str
    axes: tuple[str, ...]
    kinds: str
    extents: tuple[int, ...]
    elem_bits: int
    reads: tuple[tuple[tuple[int | None, ...], ...], ...]
    writes: tuple[tuple[int | None, ...], ...]
    """Coefficients of each axis in each index of the output map."""
    default: Schedule
    threads: int
    registers: int
    register_bits: int

    @classmethod
    def of(cls, view: BlockView, default: Schedule, threads: int, target: TargetInfo) -> BlockFacts:
        reads = []
        for op in walk(view.op):
            if op.name in ("tp.read", "tp.read_padded"):
                amap = ir.AffineMapAttr(op.attributes["map"]).value
                reads.append(
                    tuple(
                        tuple(linear_coeff(e, i) for i in range(len(view.axes)))
                        for e in amap.results
                    )
                )
        writes = tuple(
            tuple(linear_coeff(e, i) for i in range(len(view.axes))) for e in view.out_map.results
        )
        elem = ir.MemRefType(view.out.type).element_type
        registers, bits = vector_registers(target)
        return cls(
            name=view.name,
            axes=tuple(view.axes),
            kinds=view.kinds,
            extents=tuple(view.extents),
            elem_bits=getattr(elem, "width", 32),
            reads=tuple(reads),
            writes=writes,
            default=default,
            threads=threads,
            registers=registers,
            register_bits=bits,
        )

    # -- derived ---------------------------------------------------------------------------
    def extent(self, axis: str) -> int:
        return self.extents[self.axes.index(axis)]

    @property
    def spatial(self) -> list[str]:
        return [a for a, k in zip(self.axes, self.kinds) if k == "S"]

    @property
    def reduce(self) -> list[str]:
        return [a for a, k in zip(self.axes, self.kinds) if k == "R"]

    @cached_property
    def vec(self) -> str | None:
        """The axis of the default schedule's vectorized loop."""
        name = self.default.vectorize
        return name.split(".")[0] if name else None

    @property
    def native_lanes(self) -> int:
        return max(1, self.register_bits // max(self.elem_bits, 8))

    def uses(self, read: tuple[tuple[int | None, ...], ...], axis: str) -> bool:
        i = self.axes.index(axis)
        return any(coeffs[i] != 0 for coeffs in read)

    @cached_property
    def vector_reads(self) -> list[tuple[tuple[int | None, ...], ...]]:
        return [r for r in self.reads if self.vec and self.uses(r, self.vec)]

    @cached_property
    def broadcast(self) -> bool:
        """Whether some read does not vary along the vector axis (a value broadcast to all
        lanes and reused by every vector of a register-tile row)."""
        return any(r not in self.vector_reads for r in self.reads)

    @cached_property
    def columns(self) -> list[str]:
        """Spatial axes besides the vector axis that only the vector reads depend on."""
        others = [r for r in self.reads if r not in self.vector_reads]
        return [
            a
            for a in self.spatial
            if a != self.vec
            and any(self.uses(r, a) for r in self.vector_reads)
            and not any(self.uses(r, a) for r in others)
        ]

    @property
    def rows(self) -> list[str]:
        return [a for a in self.spatial if a != self.vec and a not in self.columns]

    @property
    def register_tiled(self) -> bool:
        """A vectorized reduction: its spatial loops after the reduce loops live in registers."""
        return self.vec is not None and "R" in self.kinds

    def vectors(self, width: int) -> int:
        """Vector registers one row of `width` lanes takes."""
        return max(1, -(-width // self.native_lanes))


# -- the nest template ---------------------------------------------------------------------------
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
    rows = [i for i, lp in enumerate(outer) if lp.axis in f.rows]
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


def nest_template(f: BlockFacts) -> Callable[[Draft], Schedule]:
    def finish(draft: Draft) -> Schedule:
        d = draft.fields
        width = d.get("width", 0)
        tiles: dict[str, tuple[int, ...]] = d.get("tiles", {})
        tile: dict[str, tuple[int, ...]] = {}
        unroll: dict[str, int] = {}
        inner: list[str] = []
        mids: list[str] = []
        for axis in f.rows + f.columns:
            sizes = tiles.get(axis, (1,))
            reg, extent = sizes[-1], f.extent(axis)
            if reg == extent > 1:
                unroll[axis] = reg
                inner.append(axis)
                continue
            split = tuple(s for s in sizes if s > 1)
            if split:
                tile[axis] = split
            if len(sizes) == 2:
                mids.append(f"{axis}.1")
            if reg > 1:
                name = f"{axis}.{len(split)}"
                unroll[name] = reg
                inner.append(name)
        vectorize = ""
        if f.vec is not None and width:
            if width == f.extent(f.vec):
                vectorize = f.vec
            else:
                tile[f.vec] = (width,)
                vectorize = f"{f.vec}.1"
            inner.append(vectorize)
        outer = {}
        for a in f.spatial:
            if a == f.vec:
                if width and width != f.extent(a):
                    outer[a] = f"{a}.0"
            elif tiles.get(a, (1,))[-1] != f.extent(a) or f.extent(a) == 1:
                outer[a] = f"{a}.0" if a in tile else a
        reorder = d.get("reorder", "CR" if f.register_tiled else "")
        cols = [outer[a] for a in f.spatial if a in outer and (a in f.columns or a == f.vec)]
        rows = [outer[a] for a in f.spatial if a in outer and a not in f.columns and a != f.vec]
        if reorder == "CR":
            first, second = cols, rows + mids
        elif reorder == "RC":
            first, second = rows, cols + mids
        else:
            first, second = [outer[a] for a in f.spatial if a in outer] + mids, []
        reduce = list(f.reduce)
        for axis, factor in d.get("unroll", {}).items():
            if factor > 1:
                unroll[axis] = factor
        slice_ = d.get("slice", 0)
        if slice_ and reduce:
            r0 = reduce[0]
            tile[r0] = (slice_,)
            order = first + [f"{r0}.0"] + second + [f"{r0}.1"] + reduce[1:] + inner
        else:
            order = first + second + reduce + inner
        return Schedule(
            tile=tile,
            order=tuple(order),
            unroll=unroll,
            vectorize=vectorize,
            parallel=tuple(order[: d.get("parallel", 0)]),
        )

    return finish


def _has_outer(extent: int) -> Callable[[Value], bool]:
    """Whether a tile value leaves the axis an outer loop (not all of it in registers)."""
    return lambda v: v[-1] != extent


def nest_constraints(f: BlockFacts) -> list[Constraint]:
    """Register pressure, body size, and the couplings of the nest template's knobs."""
    vec_name = f"tile_{f.vec}" if f.vec else ""
    tiled = [a for a in f.rows + f.columns if f.extent(a) >= 2]

    def regs(cols: Columns) -> np.ndarray:
        vectors = cols.map(vec_name, f.vectors, missing=1.0)
        acc = vectors.copy()
        held = vectors.copy()
        for a in tiled:
            reg = cols.map(f"tile_{a}", lambda v: v[-1], missing=1.0)
            acc *= reg
            if a in f.columns:
                held *= reg
        if not f.broadcast:
            held = np.ones_like(held)
        return acc, held  # type: ignore[return-value]

    def registers(cols: Columns) -> np.ndarray:
        acc, held = regs(cols)
        return acc + held + 1 <= f.registers

    def body(cols: Columns) -> np.ndarray:
        acc, _ = regs(cols)
        size = acc.copy()
        for r in f.reduce:
            size *= cols.map(f"unroll_{r}", float, missing=1.0)
        return size <= BODY_MAX

    def mid_needs_rc(cols: Columns) -> np.ndarray:
        rc = cols.map("reorder", lambda v: v == "RC", missing=0.0) > 0
        ok = np.ones(cols.size, dtype=bool)
        for a in f.rows:
            ok &= (cols.map(f"tile_{a}", lambda v: len(v) == 2) == 0) | rc
        return ok

    def reorder_matters(cols: Columns) -> np.ndarray:
        """RC only when both groups have loops to swap (else it is CR's schedule again)."""
        rc = cols.map("reorder", lambda v: v == "RC", missing=0.0) > 0
        col_loops = cols.map(vec_name, lambda v: v != f.extent(f.vec), missing=0.0) if f.vec else 0
        row_loops = np.zeros(cols.size)
        for a in f.columns:
            col_loops = col_loops + cols.map(f"tile_{a}", _has_outer(f.extent(a)))
        for a in f.rows:
            if f.extent(a) > 1:
                row_loops += cols.map(f"tile_{a}", _has_outer(f.extent(a)))
        return ~rc | ((col_loops > 0) & (row_loops > 0))

    def slice_not_unrolled(cols: Columns) -> np.ndarray:
        if not f.reduce:
            return np.ones(cols.size, dtype=bool)
        r0 = f.reduce[0]
        sliced = cols.map(f"tile_{r0}", bool) > 0
        return ~sliced | (cols.map(f"unroll_{r0}", float, missing=1.0) == 1)

    def parallel_prefix(cols: Columns) -> np.ndarray:
        """The parallel loops must be the leading spatial loops."""
        depth = cols.map("parallel", float)
        counts = {"C": np.zeros(cols.size), "R": np.zeros(cols.size), "M": np.zeros(cols.size)}
        for a in f.spatial:
            extent = f.extent(a)
            if a == f.vec:
                has = cols.map(vec_name, lambda v, e=extent: v != e, missing=0.0)
            else:
                has = cols.map(f"tile_{a}", lambda v, e=extent: v[-1] != e or e == 1, missing=1.0)
                counts["M"] += cols.map(f"tile_{a}", lambda v: len(v) == 2)
            counts["C" if a in f.columns or a == f.vec else "R"] += has
        total = counts["C"] + counts["R"] + counts["M"]
        sliced = (
            cols.map(f"tile_{f.reduce[0]}", bool) > 0 if f.reduce else np.zeros(cols.size, bool)
        )
        rc = cols.map("reorder", lambda v: v == "RC", missing=0.0) > 0
        if not f.register_tiled:
            return depth <= total
        lead = np.where(sliced, np.where(rc, counts["R"], counts["C"]), total)
        return depth <= lead

    tile_knobs = tuple(f"tile_{a}" for a in tiled) + ((vec_name,) if vec_name else ())
    unroll_knobs = tuple(f"unroll_{r}" for r in f.reduce)
    slice_knobs = (f"tile_{f.reduce[0]}",) if f.reduce else ()
    every = tile_knobs + unroll_knobs + slice_knobs + ("reorder", "parallel")
    out = [Constraint("parallel loops lead the nest", every, parallel_prefix)]
    if f.register_tiled:
        out += [
            Constraint("accumulators + operands fit the registers", tile_knobs, registers),
            Constraint(
                f"unrolled body of at most {BODY_MAX} vector ops", tile_knobs + unroll_knobs, body
            ),
            Constraint(
                "a cache tile of rows needs rows outside columns (RC)",
                tile_knobs + ("reorder",),
                mid_needs_rc,
            ),
            Constraint("rows and columns to swap", tile_knobs + ("reorder",), reorder_matters),
            Constraint(
                "a blocked reduce axis is not unrolled",
                slice_knobs + unroll_knobs[:1],
                slice_not_unrolled,
            ),
        ]
    return out


# -- the stream template -------------------------------------------------------------------------
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


def stream_template(f: BlockFacts) -> Callable[[Draft], Schedule]:
    def finish(draft: Draft) -> Schedule:
        per_chunk, width = draft.fields["split"]
        vec, k = f.vec, f.reduce[0]
        others = [a for a in f.spatial if a != vec]
        extent = f.extent(vec)  # type: ignore[arg-type]
        if per_chunk >= extent:
            return Schedule(
                tile={vec: (width,)},  # type: ignore[dict-item]
                order=tuple(others + [k, f"{vec}.0", f"{vec}.1"]),
                vectorize=f"{vec}.1",
            )
        return Schedule(
            tile={vec: (per_chunk, width)},  # type: ignore[dict-item]
            order=tuple([f"{vec}.0"] + others + [k, f"{vec}.1", f"{vec}.2"]),
            vectorize=f"{vec}.2",
            parallel=(f"{vec}.0",) if f.threads > 1 else (),
        )

    return finish


TEMPLATES: tuple[
    tuple[
        str,
        Sequence[Callable[[BlockFacts], list[Knob]]],
        Callable[[BlockFacts], Callable[[Draft], Schedule]],
        Callable[[BlockFacts], list[Constraint]],
    ],
    ...,
] = (
    ("nest", NEST_GENERATORS, nest_template, nest_constraints),
    ("stream", (gen_stream_split,), stream_template, lambda f: []),
)


def block_space(f: BlockFacts) -> ConfigSpace:
    """The knob space of a block: the first template that reproduces its default schedule."""
    for name, generators, template, constraints in TEMPLATES:
        try:
            knobs = [k for gen in generators for k in gen(f)]
            space = ConfigSpace(knobs, constraints(f), template(f), note=name)
            if _canonical(space.schedule(space.default_index)) == _canonical(f.default):
                return space
        except (KeyError, IndexError, TypeError, ValueError, AssertionError):
            continue  # this template does not fit the block
    return fixed_space(f.default, "no template reproduces the default schedule")


def _canonical(schedule: Schedule) -> Schedule:
    """Without no-op knobs (unroll factor 1), which the default schedule sometimes spells out."""
    return replace(schedule, unroll={k: v for k, v in schedule.unroll.items() if v > 1})


def fixed_space(schedule: Schedule, note: str) -> ConfigSpace:
    return ConfigSpace([], [], lambda draft: schedule, note=note)


def _check_every(space: ConfigSpace, f: BlockFacts) -> list[str]:
    """Schedule.check of every point (tests call this; the template guarantees it)."""
    problems = []
    for i in range(len(space)):
        errors = space.schedule(i).check(f.axes, f.kinds, f.extents)
        if errors:
            problems.append(f"point {i} {space.get(i)}: {errors}")
    return problems


__all__ = ["BlockFacts", "block_space", "divisors", "fixed_space", "vector_registers"]
