"""An interactive schedule of a tp function, TensorIR-style: every step edits a block's schedule
attribute (the knobs the tuner sets) and is checked at once.

    sch = Schedule(mm_relu)
    i, j, k = sch.get_loops("Y")
    j0, j1 = sch.split(j, [None, 8])
    sch.reorder(j0, k, j1)
    sch.vectorize(j1)
    print(sch.show())

Loops are handles (`LoopRV`) that stay valid while other steps rename loops (splitting axis `j`
again renumbers `j.0`, `j.1`...); a loop that was split is gone, and using it is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count

from mlc.dialects import tp
from mlc.dialects.tp import BlockView
from mlc.errors import MlcError

from .function import PrimFunc

_IDS = count()


class ScheduleError(MlcError):
    """An illegal schedule step; the message names the block and loop."""


@dataclass(eq=False)
class LoopRV:
    """A loop of one block, as returned by `get_loops` and `split`."""

    block: str
    axis: str
    uid: int = field(default_factory=lambda: next(_IDS))
    sch: Schedule | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        name = self.sch._state(self.block).name_of(self) if self.sch else self.axis
        return f"LoopRV({self.block}:{name})"


@dataclass
class _BlockState:
    axes: list[str]
    kinds: str
    extents: list[int]
    levels: dict[str, list[LoopRV]]
    strides: dict[str, list[int]]
    order: list[LoopRV]
    unroll: dict[LoopRV, int] = field(default_factory=dict)
    vectorize: LoopRV | None = None
    parallel: list[LoopRV] = field(default_factory=list)

    def alive(self, rv: LoopRV) -> bool:
        return rv in self.levels.get(rv.axis, [])

    def name_of(self, rv: LoopRV) -> str:
        if not self.alive(rv):
            return f"{rv.axis} (split)"
        lv = self.levels[rv.axis]
        return rv.axis if len(lv) == 1 else f"{rv.axis}.{lv.index(rv)}"

    def trip(self, rv: LoopRV) -> int:
        level = self.levels[rv.axis].index(rv)
        strides = self.strides[rv.axis]
        bound = self.extents[self.axes.index(rv.axis)] if level == 0 else strides[level - 1]
        return -(-bound // strides[level])

    def to_schedule(self) -> tp.Schedule:
        return tp.Schedule(
            tile={a: tuple(s[:-1]) for a, s in self.strides.items() if len(s) > 1},
            order=tuple(self.name_of(rv) for rv in self.order),
            unroll={self.name_of(rv): f for rv, f in self.unroll.items()},
            vectorize=self.name_of(self.vectorize) if self.vectorize else "",
            parallel=tuple(self.name_of(rv) for rv in self.parallel),
        )


class Schedule:
    """Schedule a copy of `func`; `sch.func` is the scheduled PrimFunc (run it with T.build)."""

    def __init__(self, func: PrimFunc) -> None:
        self.func = func.copy()
        self._trace: list[str] = []
        self._states: dict[str, _BlockState] = {}
        for op in self._block_ops():
            view = BlockView(op)
            loops = view.schedule.loops(view.axes, view.kinds, view.extents)
            state = _BlockState(view.axes, view.kinds, view.extents, {}, {}, [])
            by_name = {}
            for axis in view.axes:
                mine = [lp for lp in loops if lp.axis == axis]
                mine.sort(key=lambda lp: lp.level)
                rvs = [LoopRV(view.name, axis, sch=self) for _ in mine]
                state.levels[axis] = rvs
                state.strides[axis] = [lp.stride for lp in mine]
                by_name.update({lp.name: rv for lp, rv in zip(mine, rvs)})
            s = view.schedule
            state.order = [by_name[lp.name] for lp in loops]
            state.unroll = {by_name[n]: f for n, f in s.unroll.items()}
            state.vectorize = by_name[s.vectorize] if s.vectorize else None
            state.parallel = [by_name[n] for n in s.parallel]
            self._states[view.name] = state

    # -- lookups ----------------------------------------------------------------------------
    def _block_ops(self) -> list:
        """Every tp.block of the function, also those inside serial loops."""
        found = []

        def visit(block: object) -> None:
            for op in block.operations:  # type: ignore[attr-defined]
                op = op.operation
                if op.name == "tp.block":
                    found.append(op)
                    continue
                for region in op.regions:
                    for inner in region.blocks:
                        visit(inner)

        visit(self.func.func.regions[0].blocks[0])
        return found

    def _state(self, block: str) -> _BlockState:
        if block not in self._states:
            raise ScheduleError(
                f"no block '{block}' in @{self.func.name} (blocks: {', '.join(self._states)})"
            )
        return self._states[block]

    def _live(self, rv: LoopRV, step: str) -> _BlockState:
        if not isinstance(rv, LoopRV) or rv.sch is not self:
            raise ScheduleError(f"{step}: {rv!r} is not a loop of this schedule (get_loops)")
        state = self._state(rv.block)
        if not state.alive(rv):
            raise ScheduleError(
                f"{step}: loop '{rv.axis}' of block '{rv.block}' was split by "
                "an earlier step; use the loops split returned"
            )
        return state

    def get_loops(self, block: str) -> list[LoopRV]:
        """The loops of `block`, outermost first."""
        loops = list(self._state(block).order)
        self._trace.append(f"{self._names(loops)} = sch.get_loops({block!r})")
        return loops

    # -- steps ------------------------------------------------------------------------------
    def _apply(self, block: str, new: _BlockState, step: str) -> None:
        """Check the block's new schedule, then write it (nothing changes on an error)."""
        sched = new.to_schedule()
        problems = sched.check(new.axes, new.kinds, new.extents)
        if problems:
            raise ScheduleError(f"{step} on block '{block}': " + "; ".join(problems))
        for op in self._block_ops():
            if BlockView(op).name == block:
                with self.func.context:
                    BlockView(op).set_schedule(sched)
        self._states[block] = new
        self._trace.append(step)

    def _copy(self, state: _BlockState) -> _BlockState:
        return _BlockState(
            state.axes, state.kinds, state.extents,
            {a: list(v) for a, v in state.levels.items()},
            {a: list(v) for a, v in state.strides.items()},
            list(state.order), dict(state.unroll), state.vectorize, list(state.parallel),
        )  # fmt: skip

    def split(self, loop: LoopRV, factors: list[int | None]) -> list[LoopRV]:
        """Split `loop` into len(factors) loops (one factor may be None: inferred), in place."""
        state = self._live(loop, "split")
        name = state.name_of(loop)
        step = f"sch.split({self._names([loop])}, {factors})"
        trip = state.trip(loop)
        if len(factors) < 2 or sum(f is None for f in factors) > 1:
            raise ScheduleError(f"{step}: give two or more factors, at most one of them None")
        if any(f is not None and (not isinstance(f, int) or f < 1) for f in factors):
            raise ScheduleError(f"{step}: factors are positive integers (or one None)")
        known = 1
        for f in factors:
            known *= f or 1
        level = state.levels[loop.axis].index(loop)
        if None in factors:
            at = factors.index(None)
            factors = list(factors)
            factors[at] = -(-trip // known) if at == 0 else trip // known
        inner = 1
        for f in factors[1:]:
            inner *= f  # type: ignore[operator]
        total = inner * factors[0]  # type: ignore[operator]
        if level > 0 and total != trip:
            raise ScheduleError(
                f"{step}: the factors of loop '{name}' must multiply to its "
                f"trip count {trip}, got {factors}"
            )
        if level == 0 and factors[0] != -(-trip // inner):
            raise ScheduleError(
                f"{step}: loop '{name}' runs {trip} times; with inner factors "
                f"{factors[1:]} the outer factor is {-(-trip // inner)}, "
                f"got {factors[0]}"
            )
        if loop in state.unroll or loop is state.vectorize or loop in state.parallel:
            raise ScheduleError(
                f"{step}: loop '{name}' is already unrolled, vectorized or parallel: split it first"
            )
        new = self._copy(state)
        stride = state.strides[loop.axis][level]
        strides, acc = [], stride
        for f in reversed(factors[1:]):
            strides.append(acc)
            acc *= f  # type: ignore[operator]
        strides.append(acc)
        strides.reverse()  # outermost first: stride * f2 * ... * fm, ..., stride
        pieces = [LoopRV(loop.block, loop.axis, sch=self) for _ in factors]
        new.levels[loop.axis][level : level + 1] = pieces
        new.strides[loop.axis][level : level + 1] = strides[:-1] + [stride]
        at = new.order.index(loop)
        new.order[at : at + 1] = pieces
        self._apply(loop.block, new, step)
        self._trace[-1] = f"{self._names(pieces)} = {step}"
        return pieces

    def reorder(self, *loops: LoopRV) -> None:
        """Put `loops` in this order, in the positions they occupy together."""
        for lp in loops:
            self._live(lp, "reorder")
        if not loops or len({lp.block for lp in loops}) != 1:
            raise ScheduleError("reorder: the loops must belong to one block")
        block = loops[0].block
        state = self._state(block)
        step = f"sch.reorder({self._names(list(loops))})"
        if len(set(loops)) != len(loops):
            raise ScheduleError(f"{step}: a loop is listed twice")
        slots = sorted(state.order.index(lp) for lp in loops)
        new = self._copy(state)
        for slot, lp in zip(slots, loops):
            new.order[slot] = lp
        for axis, rvs in new.levels.items():
            pos = [new.order.index(rv) for rv in rvs]
            if pos != sorted(pos):
                names = [state.name_of(rv) for rv in rvs]
                raise ScheduleError(
                    f"{step}: the loops of axis '{axis}' must stay outermost "
                    f"first ({', '.join(names)})"
                )
        self._apply(block, new, step)

    def vectorize(self, loop: LoopRV) -> None:
        """Run the (innermost) `loop` as vector lanes."""
        state = self._live(loop, "vectorize")
        new = self._copy(state)
        new.vectorize = loop
        self._apply(loop.block, new, f"sch.vectorize({self._names([loop])})")

    def parallel(self, loop: LoopRV) -> None:
        """Run `loop` on the worker threads (the parallel loops are an outermost prefix)."""
        state = self._live(loop, "parallel")
        new = self._copy(state)
        new.parallel = [*state.parallel, loop]
        self._apply(loop.block, new, f"sch.parallel({self._names([loop])})")

    def unroll(self, loop: LoopRV, factor: int | None = None) -> None:
        """Unroll `loop` by `factor` (None: fully)."""
        state = self._live(loop, "unroll")
        new = self._copy(state)
        new.unroll[loop] = state.trip(loop) if factor is None else factor
        step = f"sch.unroll({self._names([loop])}" + ("" if factor is None else f", {factor}")
        self._apply(loop.block, new, step + ")")

    # -- display ----------------------------------------------------------------------------
    def _names(self, loops: list[LoopRV]) -> str:
        """Loop names as a trace's Python variables: `j.0` -> `j0`."""
        return ", ".join(self._state(lp.block).name_of(lp).replace(".", "") for lp in loops)

    def show(self) -> str:
        """The loop nest of every block (outermost first) with its knobs."""
        lines = []
        for block, state in self._states.items():
            lines.append(f"block {block!r}:")
            for depth, rv in enumerate(state.order):
                name = state.name_of(rv)
                notes = ["reduce" if state.kinds[state.axes.index(rv.axis)] == "R" else ""]
                if rv in state.parallel:
                    notes.append("parallel")
                if rv is state.vectorize:
                    notes.append("vectorized")
                if rv in state.unroll:
                    notes.append(f"unroll {state.unroll[rv]}")
                note = ", ".join(n for n in notes if n)
                lines.append(
                    f"{'  ' * (depth + 1)}for {name} in range({state.trip(rv)}):"
                    + (f"  # {note}" if note else "")
                )
        return "\n".join(lines)

    def trace(self) -> str:
        """The steps taken so far, one per line."""
        return "\n".join(self._trace)
