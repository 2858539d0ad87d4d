"""Templates: how knob values become a Schedule (`nest`, `stream`, `row`; see `knobs`), the
constraints between the nest template's knobs, and `block_space`, which picks the template
that reproduces a block's default schedule."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from mlc.dialects.tp import Schedule

from .facts import BlockFacts
from .knobs import BODY_MAX, NEST_GENERATORS, ROW_GENERATORS, gen_stream_split
from .space import Columns, ConfigSpace, Constraint, Draft, Knob, Value


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
            lead = [r for r in rows if r.split(".")[0] in f.leading_rows]
            first, second = lead + cols, [r for r in rows if r not in lead] + mids
        elif reorder == "RC":
            first, second = rows, cols + mids
        else:
            first, second = [outer[a] for a in f.spatial if a in outer] + mids, []
            if f.last_row is not None and f.last_row in first:
                first = [n for n in first if n != f.last_row] + [f.last_row]
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


def row_template(f: BlockFacts) -> Callable[[Draft], Schedule]:
    def finish(draft: Draft) -> Schedule:
        r = f.vec
        assert r is not None and r in f.reduce
        width = draft.fields["width"]
        tiled = width < f.extent(r)
        inner = [f"{r}.0", f"{r}.1"] if tiled else [r]
        order = f.spatial + [a for a in f.reduce if a != r] + inner
        return Schedule(
            tile={r: (width,)} if tiled else {},
            order=tuple(order),
            vectorize=inner[-1],
            parallel=tuple(order[: draft.fields.get("parallel", 0)]),
        )

    return finish


def row_constraints(f: BlockFacts) -> list[Constraint]:
    spatial = len(f.spatial)
    return [
        Constraint(
            "parallel loops are spatial",
            ("parallel",),
            lambda cols: cols.map("parallel", float) <= spatial,
        )
    ]


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
    ("row", ROW_GENERATORS, row_template, row_constraints),
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
