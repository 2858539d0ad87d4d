"""Cost-model features of a candidate: its knob values and the loop nest they produce.

The loop-nest part has a fixed length whatever the block, so that measurements of one kernel
inform the model of another (transfer learning): for each of the innermost LOOP_SLOTS loops
(innermost first) its trip count, kind, unroll factor, whether it is vectorized or parallel,
and the bytes its body touches (every read and the output, from the affine index maps); then
whole-nest figures: iterations, vector lanes, register-tile accumulators, unrolled body size,
parallel trips and their balance over the threads, loop count. Knob values go to slots chosen
by their names (AutoTVM's knob features; the same knob name means the same thing in every
conv, so they transfer too). Sizes are log2(1 + x).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping

from mlc.dialects.tp import Schedule

from .facts import BlockFacts
from .space import ConfigSpace, Value, value_feature

LOOP_SLOTS = 8
PER_LOOP = 6
GLOBAL = 9
KNOB_SLOTS = 16
"""Knobs per feature vector; each takes two numbers (a split's inner and outer size)."""
LENGTH = LOOP_SLOTS * PER_LOOP + GLOBAL + 2 * KNOB_SLOTS


def _lg(x: float) -> float:
    return math.log2(1.0 + max(x, 0.0))


def nest_features(f: BlockFacts, schedule: Schedule) -> list[float]:
    loops = schedule.loops(f.axes, f.kinds, f.extents)
    extent = dict(zip(f.axes, f.extents))
    accesses = list(f.reads) + [f.writes]
    elem = max(f.elem_bits // 8, 1)
    parallel = set(schedule.parallel)
    vec = schedule.vectorize
    per_loop: list[list[float]] = []
    span = dict.fromkeys(f.axes, 1)  # each axis's range inside the current loop
    for lp in reversed(loops):
        span[lp.axis] = min(lp.trip * lp.stride, extent[lp.axis])
        touched = 0.0
        for access in accesses:
            elems = 1.0
            for coeffs in access:
                elems *= 1 + sum(
                    (abs(c) if c is not None else 1) * (span[a] - 1) for a, c in zip(f.axes, coeffs)
                )
            touched += elems * elem
        factor = schedule.unroll.get(lp.name, 1)
        per_loop.append(
            [
                _lg(lp.trip),
                1.0 if lp.kind == "R" else 0.0,
                _lg(min(factor, lp.trip)),
                1.0 if lp.name == vec else 0.0,
                1.0 if lp.name in parallel else 0.0,
                _lg(touched),
            ]
        )
    slots = per_loop[:LOOP_SLOTS] + [[0.0] * PER_LOOP] * (LOOP_SLOTS - len(per_loop))
    lanes = next((lp.trip for lp in loops if lp.name == vec), 1)
    first_r = next((i for i, lp in enumerate(loops) if lp.kind == "R"), len(loops))
    unrolled = [lp for lp in loops[first_r:] if lp.kind == "S" and lp.name != vec]
    register = all(schedule.unroll.get(lp.name, 1) >= lp.trip for lp in unrolled)
    acc = math.prod(lp.trip for lp in unrolled) * max(1, -(-lanes // f.native_lanes))
    body = acc * math.prod(
        min(schedule.unroll.get(lp.name, 1), lp.trip) for lp in loops if lp.kind == "R"
    )
    par_trips = math.prod(lp.trip for lp in loops if lp.name in parallel)
    balance = (par_trips % f.threads) / par_trips if parallel and f.threads > 1 else 0.0
    innermost = next(
        (lp.trip for lp in reversed(loops) if schedule.unroll.get(lp.name, 1) < lp.trip), 1
    )
    whole = [
        _lg(math.prod(f.extents)),
        _lg(lanes),
        _lg(acc),
        1.0 if register and first_r < len(loops) else 0.0,
        _lg(body),
        _lg(par_trips if parallel else 0),
        balance,
        float(len(loops)),
        _lg(innermost),
    ]
    return [v for slot in slots for v in slot] + whole


def knob_features(config: Mapping[str, Value]) -> list[float]:
    """Knob values in slots chosen by a hash of the knob's name (the next free slot on a
    collision), two numbers each: the value (log2 of a split's innermost size) and, for a
    two-level split, log2 of its outer size (NaN: no such knob)."""
    out = [math.nan] * (2 * KNOB_SLOTS)
    taken: set[int] = set()
    for name, value in sorted(config.items()):
        slot = zlib.crc32(name.encode()) % KNOB_SLOTS
        while slot in taken and len(taken) < KNOB_SLOTS:
            slot = (slot + 1) % KNOB_SLOTS
        taken.add(slot)
        if isinstance(value, (tuple, list)):
            out[2 * slot] = value_feature(value[-1])
            out[2 * slot + 1] = value_feature(value[0]) if len(value) > 1 else 0.0
        else:
            out[2 * slot] = value_feature(value)
    return out


def features(f: BlockFacts, schedule: Schedule, config: Mapping[str, Value]) -> list[float]:
    """The whole feature vector of one candidate (LENGTH numbers)."""
    return nest_features(f, schedule) + knob_features(config)


class FeatureCache:
    """Features of the points of one task's space, computed once per point."""

    def __init__(self, facts: BlockFacts, space: ConfigSpace) -> None:
        self.facts = facts
        self.space = space
        self._rows: dict[int, list[float]] = {}

    def __call__(self, index: int) -> list[float]:
        row = self._rows.get(index)
        if row is None:
            row = features(self.facts, self.space.schedule(index), self.space.get(index))
            self._rows[index] = row
        return row
