"""Schedules of `tp.block`s: knobs keyed by axis (and loop) name, TVM-style.

A block's axes become loops. `tile = {oc = [32, 8]}` splits axis `oc` into loops `oc.0` (steps of
32), `oc.1` (steps of 8) and `oc.2` (unit steps); an untiled axis keeps its name as its one loop.
`order` lists every loop outermost first (default: each tiling level in turn, axes in declared
order within a level). `unroll = {"kw" = 3}` unrolls a loop by a factor (>= trip count: fully),
`vectorize = "oc.2"` turns the innermost loop into vector code, and `parallel = ["n", "oc.0"]`
runs an outermost prefix of spatial loops on the worker threads; with run-time extents,
`parallel_from = N` runs them on threads only when the block's iterations (the product of its
extents) reach N at run time, and in order below that.

As an attribute:
    {tile = {oc = array<i64: 32, 8>}, order = ["n", "oc.0", ...], unroll = {"kw" = 3 : i64},
     vectorize = "oc.2", parallel = ["n"]}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mlir import ir

from mlc.symbolic import Dim

KEYS = ("tile", "order", "unroll", "vectorize", "parallel", "parallel_from")
MAX_VECTOR_LANES = 64


@dataclass(frozen=True)
class Loop:
    """One loop of a scheduled block: `axis` advances by `stride` per iteration, `trip` times."""

    name: str
    axis: str
    level: int
    trip: int | Dim  # a Dim: the loop runs to a bound known at run time
    stride: int
    kind: str  # "S" or "R"
    exact: bool  # True when the tiles divide the axis: no bound clamping needed


_PARSED: dict[str, Schedule] = {}
"""Schedules parsed from their attribute's text (`Schedule.from_attr`)."""
_PARSED_LIMIT = 1 << 14


@dataclass(frozen=True)
class Schedule:
    tile: dict[str, tuple[int, ...]] = field(default_factory=dict)
    order: tuple[str, ...] = ()
    unroll: dict[str, int] = field(default_factory=dict)
    vectorize: str = ""
    parallel: tuple[str, ...] = ()
    parallel_from: int = 0
    """Run the parallel loops on threads only from this many block iterations on (0: always)."""

    # -- loops ------------------------------------------------------------------------------
    def loops(self, axes: Sequence[str], kinds: str, extents: Sequence[int | Dim]) -> list[Loop]:
        """The loop nest, outermost first. Assumes `check` found no errors."""
        by_name: dict[str, Loop] = {}
        levels: list[list[str]] = []
        for axis, kind, extent in zip(axes, kinds, extents):
            sizes = self.tile.get(axis, ())
            strides = list(sizes) + [1]
            exact = all(extent % s == 0 for s in sizes)
            names = [axis] if not sizes else [f"{axis}.{i}" for i in range(len(strides))]
            bound = extent
            for lvl, (name, stride) in enumerate(zip(names, strides)):
                trip = -(-bound // stride)
                by_name[name] = Loop(name, axis, lvl, trip, stride, kind, exact)
                bound = stride
                while len(levels) <= lvl:
                    levels.append([])
                levels[lvl].append(name)
        order = self.order or tuple(n for level in levels for n in level)
        return [by_name[n] for n in order]

    def check(self, axes: Sequence[str], kinds: str, extents: Sequence[int | Dim]) -> list[str]:
        """Every way this schedule does not fit the block, as messages naming the knob."""
        errors = self._check_tile(axes, extents)
        if errors:
            return errors
        names = [lp.name for lp in self.__class__(tile=self.tile).loops(axes, kinds, extents)]
        if self.order and sorted(self.order) != sorted(names):
            return [f"order {list(self.order)} must list every loop exactly once: {names}"]
        loops = self.loops(axes, kinds, extents)
        return (
            self._check_unroll(loops) + self._check_vectorize(loops) + self._check_parallel(loops)
        )

    def _check_tile(self, axes: Sequence[str], extents: Sequence[int | Dim]) -> list[str]:
        errors = []
        extent_of = dict(zip(axes, extents))
        for axis, sizes in self.tile.items():
            if axis not in extent_of:
                errors.append(f"tile names unknown axis '{axis}' (axes: {', '.join(axes)})")
                continue
            bounds = [extent_of[axis], *sizes]
            if any(
                s < 1 or (not isinstance(prev, Dim) and s > prev) or (i > 0 and prev % s)
                for i, (prev, s) in enumerate(zip(bounds, sizes))
            ):
                errors.append(
                    f"tile sizes {list(sizes)} of axis '{axis}' (extent "
                    f"{extent_of[axis]}) must be decreasing, positive, each "
                    "dividing the previous one"
                )
        return errors

    def _check_unroll(self, loops: Sequence[Loop]) -> list[str]:
        names = [lp.name for lp in loops]
        errors = []
        for name, factor in self.unroll.items():
            if name not in names:
                errors.append(f"unroll names unknown loop '{name}' (loops: {', '.join(names)})")
            elif isinstance(loops[names.index(name)].trip, Dim):
                errors.append(f"loop '{name}' runs to a bound known at run time: no unroll")
            elif factor < 1:
                errors.append(f"unroll factor of '{name}' must be >= 1, got {factor}")
        return errors

    def _check_vectorize(self, loops: Sequence[Loop]) -> list[str]:
        if not self.vectorize:
            return []
        names = [lp.name for lp in loops]
        if self.vectorize not in names:
            return [f"vectorize names unknown loop '{self.vectorize}' (loops: {', '.join(names)})"]
        lp = loops[names.index(self.vectorize)]
        if isinstance(lp.trip, Dim):
            return [
                f"vectorized loop '{lp.name}' runs to a bound known at run time: tile its axis "
                "by the vector width"
            ]
        if lp is not loops[-1]:
            return [f"vectorized loop '{lp.name}' must be the innermost loop"]
        if lp.kind == "R":
            # Lanes hold partial results combined once at the end: every spatial loop after the
            # first reduce loop must be in registers (unrolled), so no partial result is stored.
            first = next(i for i, x in enumerate(loops) if x.kind == "R")
            stored = [
                x.name
                for x in loops[first:]
                if x.kind == "S"
                and (isinstance(x.trip, Dim) or self.unroll.get(x.name, 1) < x.trip)
            ]
            if stored:
                return [
                    f"vectorized reduce loop '{lp.name}' needs the spatial loops after the first "
                    f"reduce loop unrolled, not {stored}"
                ]
        if lp.trip > MAX_VECTOR_LANES:
            return [
                f"vectorized loop '{lp.name}' needs at most {MAX_VECTOR_LANES} lanes (trip "
                f"{lp.trip}): tile its axis"
            ]
        if not lp.exact and len(self.tile.get(lp.axis, ())) != 1:
            return [
                f"vectorized loop '{lp.name}': a tile that does not divide its axis needs the "
                "axis tiled once (its last tile runs on narrower vectors)"
            ]
        outer = next(x for x in loops if x.axis == lp.axis and x.level == 0)
        if (
            not lp.exact
            and not isinstance(outer.trip, Dim)
            and self.unroll.get(outer.name, 1) >= outer.trip
        ):
            return [
                f"vectorized loop '{lp.name}': the loop over its tiles ('{outer.name}') cannot "
                "be unrolled when the last tile is partial"
            ]
        return []

    def _check_parallel(self, loops: Sequence[Loop]) -> list[str]:
        names = [lp.name for lp in loops]
        errors = []
        for i, name in enumerate(self.parallel):
            if name not in names:
                errors.append(f"parallel names unknown loop '{name}' (loops: {', '.join(names)})")
            elif loops[names.index(name)].kind != "S":
                errors.append(f"parallel loop '{name}' must be a spatial loop")
            elif names.index(name) != i:
                errors.append(
                    f"parallel loops {list(self.parallel)} must be the outermost loops in order"
                )
        if self.parallel_from < 0 or (self.parallel_from and not self.parallel):
            errors.append(
                f"parallel_from must be >= 0 and needs parallel loops, got {self.parallel_from}"
            )
        return errors

    def fit_runtime_extents(self, axes: Sequence[str], extents: Sequence[int | Dim]) -> Schedule:
        """This schedule (chosen for sample sizes of a block's run-time extents) without what
        needs them static: unrolling a loop whose trip is only known at run time, and vectors
        on such an axis unless it is tiled once by the vector width (the elements past the
        last full vector then run one at a time). Tiles stay: their
        last partial tile is guarded at run time."""
        runtime = {a for a, e in zip(axes, extents) if isinstance(e, Dim)}
        if not runtime:
            return self
        loops = {lp.name: lp for lp in self.loops(axes, "S" * len(axes), extents)}
        unroll = {
            k: v
            for k, v in self.unroll.items()
            if k in loops and not isinstance(loops[k].trip, Dim)
        }
        vectorize = self.vectorize
        if vectorize and loops[vectorize].axis in runtime:
            lp = loops[vectorize]
            if isinstance(lp.trip, Dim) or len(self.tile.get(lp.axis, ())) != 1:
                vectorize = ""
        return Schedule(self.tile, self.order, unroll, vectorize, self.parallel, self.parallel_from)

    # -- attribute form ---------------------------------------------------------------------
    def to_attr(self) -> ir.DictAttr:
        i64 = ir.IntegerType.get_signless(64)
        entries: dict[str, ir.Attribute] = {}
        if self.tile:
            entries["tile"] = ir.DictAttr.get(
                {k: ir.DenseI64ArrayAttr.get(list(v)) for k, v in self.tile.items()}
            )
        if self.order:
            entries["order"] = ir.ArrayAttr.get([ir.StringAttr.get(n) for n in self.order])
        if self.unroll:
            entries["unroll"] = ir.DictAttr.get(
                {k: ir.IntegerAttr.get(i64, v) for k, v in self.unroll.items()}
            )
        if self.vectorize:
            entries["vectorize"] = ir.StringAttr.get(self.vectorize)
        if self.parallel:
            entries["parallel"] = ir.ArrayAttr.get([ir.StringAttr.get(n) for n in self.parallel])
        if self.parallel_from:
            entries["parallel_from"] = ir.IntegerAttr.get(i64, self.parallel_from)
        return ir.DictAttr.get(entries)

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> Schedule:
        """Parse a schedule dictionary; raises ValueError naming the malformed knob."""
        # lowering and the checks ask for a block's schedule dozens of times (8k parses for
        # ResNet-50); a Schedule is immutable, so equal texts share one
        text = str(attr)
        known = _PARSED.get(text)
        if known is None:
            known = cls._parse(attr)
            if len(_PARSED) >= _PARSED_LIMIT:
                _PARSED.clear()
            _PARSED[text] = known
        return known

    @classmethod
    def _parse(cls, attr: ir.Attribute) -> Schedule:
        d = ir.DictAttr(attr)
        unknown = [na.name for na in d if na.name not in KEYS]
        if unknown:
            raise ValueError(f"unknown schedule key(s) {unknown}; expected {list(KEYS)}")
        try:
            tile = (
                {na.name: tuple(ir.DenseI64ArrayAttr(na.attr)) for na in ir.DictAttr(d["tile"])}
                if "tile" in d
                else {}
            )
            order = (
                tuple(ir.StringAttr(a).value for a in ir.ArrayAttr(d["order"]))
                if "order" in d
                else ()
            )
            unroll = (
                {na.name: ir.IntegerAttr(na.attr).value for na in ir.DictAttr(d["unroll"])}
                if "unroll" in d
                else {}
            )
            vectorize = ir.StringAttr(d["vectorize"]).value if "vectorize" in d else ""
            parallel = (
                tuple(ir.StringAttr(a).value for a in ir.ArrayAttr(d["parallel"]))
                if "parallel" in d
                else ()
            )
            parallel_from = ir.IntegerAttr(d["parallel_from"]).value if "parallel_from" in d else 0
        except (ValueError, TypeError) as e:
            raise ValueError(
                "malformed schedule: expected tile = {axis = array<i64: ...>}, "
                'order = ["loop", ...], unroll = {loop = N}, vectorize = "loop", '
                'parallel = ["loop", ...], parallel_from = N'
            ) from e
        return cls(tile, order, unroll, vectorize, parallel, parallel_from)
