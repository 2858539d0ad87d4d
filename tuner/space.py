"""Knob spaces (AutoTVM's ConfigSpace): named knobs, each a list of legal values, and the
constraints between them; a point of the space is one value per knob, and a `Draft` turns it
into a `Schedule`.

    space = ConfigSpace.for_block(view, threads=2)
    len(space)                      # number of legal points
    config = space.get(17)          # {"tile_ow": (4,), "tile_ocb": (2,), "unroll_ic": 8, ...}
    space.schedule(config)          # the tp Schedule it stands for
    space.default_index             # the default schedule's point (tuning starts from it)

Knobs come from generator functions (`mlc.tuner.knobs`): each looks at the block (axes, kinds,
extents, reads, the default schedule) and returns knobs with their legal values, the default
schedule's value, and how a value edits a `Draft`. Constraints are vectorized predicates over
the value indices of the whole product, so that the legal points are enumerated once, in numpy.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from mlc.dialects.tp import Schedule

Value = Any  # an int, a str or a tuple of ints: JSON-serializable (tuples as lists)
MAX_POINTS = 4_000_000
"""Products larger than this are a bug in a generator (too many values per knob)."""


@dataclass(frozen=True)
class Knob:
    """One tuning knob: its AutoTVM-style name, legal values, and the default schedule's value."""

    name: str
    values: tuple[Value, ...]
    default: Value
    apply: Callable[[Draft, Value], None] = field(compare=False, repr=False)
    numeric: Callable[[Value], float] = field(compare=False, repr=False, default=None)  # type: ignore[assignment]
    """The value as one number (a cost-model feature); defaults to log2 of the product."""

    def feature(self, value: Value) -> float:
        if self.numeric is not None:
            return float(self.numeric(value))
        return value_feature(value)


def value_feature(value: Value) -> float:
    """A knob value as one number, the same from a Knob or from a record's config: log2 of a
    size (of the product of a split), -1 for 0 (off), a stable code for a name."""
    if isinstance(value, str):
        return (zlib.crc32(value.encode()) % 1000) / 1000.0
    size = math.prod(value) if isinstance(value, (tuple, list)) else value
    return math.log2(size) if size > 0 else -1.0


class Columns:
    """The candidate points seen by a constraint: `cols.map("tile_ow", lambda v: v[-1])` is
    that function of the knob's value at every point, as a numpy array."""

    def __init__(self, knobs: Sequence[Knob], grid: np.ndarray) -> None:
        self._knobs = {k.name: (j, k) for j, k in enumerate(knobs)}
        self._grid = grid
        self.size = len(grid)

    def __contains__(self, name: str) -> bool:
        return name in self._knobs

    def map(self, name: str, fn: Callable[[Value], float], missing: float = 0.0) -> np.ndarray:
        """fn(value of knob `name`) per point; `missing` everywhere if the knob does not exist."""
        if name not in self._knobs:
            return np.full(self.size, missing, dtype=np.float64)
        j, knob = self._knobs[name]
        table = np.array([float(fn(v)) for v in knob.values], dtype=np.float64)
        return table[self._grid[:, j]]


@dataclass(frozen=True)
class Constraint:
    """A predicate over the candidate points: `test(cols)` returns a boolean mask of the legal
    ones (`Columns.map` gives the values of the knobs it names as numpy arrays). It is applied
    as soon as every one of its knobs that the space has is enumerated."""

    why: str
    knobs: tuple[str, ...]
    test: Callable[[Columns], np.ndarray]


@dataclass
class Draft:
    """A schedule being assembled from knob values; a template's `finish` turns it into one."""

    values: dict[str, Value] = field(default_factory=dict)
    """The point's knob values, by name."""
    fields: dict[str, Any] = field(default_factory=dict)
    """What knobs set for the template to read (vector width, tile sizes, ...)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Schedule fields a new knob sets directly (dataclasses.replace on the finished one)."""


Template = Callable[[Draft], Schedule]


class ConfigSpace:
    """The legal points of a product of knobs, in a fixed order (indices are stable for a given
    block and mlc version)."""

    def __init__(
        self,
        knobs: Sequence[Knob],
        constraints: Sequence[Constraint],
        template: Template,
        *,
        note: str = "",
    ) -> None:
        self.knobs = tuple(knobs)
        self.names = tuple(k.name for k in self.knobs)
        self.template = template
        self.note = note
        """Why the space is what it is (e.g. the default schedule had no template)."""
        default = tuple(k.values.index(k.default) for k in self.knobs)
        self.points = _enumerate(self.knobs, constraints, default)
        self._index = {tuple(row): i for i, row in enumerate(self.points.tolist())}
        self.default_index = self._index[default]

    # -- points ------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.points)

    def __iter__(self) -> Iterator[dict[str, Value]]:
        return (self.get(i) for i in range(len(self)))

    def get(self, index: int) -> dict[str, Value]:
        row = self.points[index]
        return {k.name: k.values[int(v)] for k, v in zip(self.knobs, row)}

    def index_of(self, config: Mapping[str, Value]) -> int | None:
        """The index of a config (values as read back from JSON: lists for tuples), or None."""
        try:
            row = tuple(
                k.values.index(_tuplify(config[k.name])) for k in self.knobs if k.name in config
            )
        except ValueError:
            return None
        if len(row) != len(self.knobs):
            return None
        return self._index.get(row)

    def neighbors(self, index: int) -> list[int]:
        """Legal points that differ from `index` in exactly one knob."""
        row = list(self.points[index])
        out = []
        for j, knob in enumerate(self.knobs):
            for v in range(len(knob.values)):
                if v != row[j]:
                    cand = tuple(row[:j] + [v] + row[j + 1 :])
                    if cand in self._index:
                        out.append(self._index[cand])
        return out

    def lookup(self, row: Sequence[int]) -> int | None:
        return self._index.get(tuple(int(v) for v in row))

    # -- schedules ---------------------------------------------------------------------------
    def schedule(self, config: Mapping[str, Value] | int) -> Schedule:
        if isinstance(config, int):
            config = self.get(config)
        draft = Draft(values=dict(config))
        for knob in self.knobs:
            knob.apply(draft, config[knob.name])
        schedule = self.template(draft)
        return replace(schedule, **draft.extra) if draft.extra else schedule

    def features(self, index: int) -> list[float]:
        """Each knob's value as a number (the knob part of a cost model's features)."""
        config = self.get(index)
        return [k.feature(config[k.name]) for k in self.knobs]

    def describe(self) -> str:
        parts = [f"{k.name}[{len(k.values)}]" for k in self.knobs]
        return f"{len(self)} points: " + (" x ".join(parts) if parts else "the default only")


def _tuplify(value: Value) -> Value:
    return tuple(value) if isinstance(value, list) else value


def _enumerate(
    knobs: Sequence[Knob], constraints: Sequence[Constraint], default: tuple[int, ...]
) -> np.ndarray:
    """Every legal point as a row of value indices (int16), in lexicographic order. Knobs are
    added one at a time and each constraint prunes as soon as its knobs are all there, so the
    full product is never materialized. The default point is always kept (tuning must be able
    to end where it started, whatever a constraint says)."""
    names = [k.name for k in knobs]
    ready = [max((names.index(n) for n in c.knobs if n in names), default=-1) for c in constraints]
    grid = np.zeros((1, 0), dtype=np.int16)
    for j, knob in enumerate(knobs):
        n = len(knob.values)
        grid = np.hstack(
            [np.repeat(grid, n, axis=0), np.tile(np.arange(n, dtype=np.int16), len(grid))[:, None]]
        )
        cols = Columns(knobs[: j + 1], grid)
        keep = np.ones(len(grid), dtype=bool)
        for c, at in zip(constraints, ready):
            if at == j:
                keep &= np.asarray(c.test(cols), dtype=bool)
        keep |= np.all(grid == np.array(default[: j + 1], dtype=np.int16), axis=1)
        grid = grid[keep]
        assert len(grid) <= MAX_POINTS, f"{len(grid)} points after knob {knob.name}: too many"
    return grid
