"""omp-schedule: how OpenMP work-sharing loops hand their iterations to the threads.

convert-scf-to-openmp emits `omp.wsloop` without a schedule clause, i.e. static: each thread
gets an equal share of the iterations, fixed up front. On a shared host a thread that is
descheduled or slowed for a while then makes the other wait at the region's closing barrier
(on the 2-core VM, ResNet-50's two threads each spent 4 % of a run waiting for the other).
`dynamic` hands out chunks of iterations to whichever thread asks next, so a slowed thread
simply takes fewer; `guided` hands out shrinking chunks. A chunk is a `chunks-per-thread`-th of
one thread's share, so a loop of thousands of small iterations (an elementwise kernel's rows)
costs a few dozen atomic increments, not one per iteration. `steal` is OpenMP's
`nonmonotonic:dynamic`, which the OpenMP runtime runs as static with stealing: each thread
starts on its own contiguous share of the chunks (static's locality) and a thread that finishes
early takes chunks from the end of the other's share (dynamic's tolerance of a slowed thread).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Literal, get_args

from mlir import ir
from mlir.dialects import arith

from .base import ModulePass, PassContext

ScheduleKind = Literal["static", "dynamic", "guided", "steal"]
SCHEDULE_KINDS = get_args(ScheduleKind)
_SEGMENTS = "operandSegmentSizes"


@dataclass(frozen=True)
class OmpSchedulePass(ModulePass):
    """Set the schedule (static, dynamic, guided or steal) and chunk size of every omp.wsloop."""

    name: ClassVar[str] = "omp-schedule"
    symbolic_dims: ClassVar[bool] = True
    emits_mlc_dialects: ClassVar[bool] = False

    kind: ScheduleKind = "dynamic"
    """How iterations go to threads: `static` (equal shares fixed up front), `dynamic` (chunks
    to whichever thread is free), `guided` (shrinking chunks, at least one chunk size) or `steal`
    (each thread starts on its static share; a thread done early steals the other's chunks)."""
    chunks_per_thread: int = 8
    """For dynamic, guided and steal: split each thread's share of a loop with constant bounds into
    this many chunks (1 iteration per chunk when the loop is shorter)."""

    def __post_init__(self) -> None:
        if self.kind not in SCHEDULE_KINDS:
            raise ValueError(f"kind must be one of {', '.join(SCHEDULE_KINDS)}, got '{self.kind}'")
        if self.chunks_per_thread < 1:
            raise ValueError(f"chunks-per-thread must be >= 1, got {self.chunks_per_thread}")

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        loops: list[ir.Operation] = []

        def visit(op: ir.Operation) -> ir.WalkResult:
            if op.name == "omp.wsloop":
                loops.append(op)
            return ir.WalkResult.ADVANCE

        module.walk(visit)
        for loop in loops:
            self._schedule(loop)

    def _schedule(self, loop: ir.Operation) -> None:
        kind = ir.Attribute.parse(
            f"#omp<schedulekind {'dynamic' if self.kind == 'steal' else self.kind}>"
        )
        if self.kind == "steal":
            loop.attributes["schedule_mod"] = ir.Attribute.parse("#omp<sched_mod nonmonotonic>")
        segments = list(ir.DenseI32ArrayAttr(loop.attributes[_SEGMENTS]))
        trips = _trip_count(loop) if self.kind != "static" and not segments[-1] else None
        threads = _num_threads(loop) if trips is not None else None
        if trips is None or threads is None:  # static, a chunk given already, or unknown sizes
            loop.attributes["schedule_kind"] = kind
            return
        chunk = max(1, trips // (threads * self.chunks_per_thread))
        # the chunk is an operand: the op is rebuilt around the same loop nest
        with ir.InsertionPoint(loop), loop.location:
            size = arith.ConstantOp(ir.IntegerType.get_signless(32), chunk).result
            attrs = {name: loop.attributes[name] for name in loop.attributes}
            attrs["schedule_kind"] = kind
            attrs[_SEGMENTS] = ir.DenseI32ArrayAttr.get(segments[:-1] + [1])
            new = ir.Operation.create(
                "omp.wsloop", operands=list(loop.operands) + [size], attributes=attrs, regions=1
            )
        block = new.regions[0].blocks.append()
        for op in [o.operation for o in loop.regions[0].blocks[0].operations]:
            op.detach_from_parent()
            ir.InsertionPoint(block).insert(op)
        loop.erase()


def _constant(v: ir.Value) -> int | None:
    owner = v.owner
    if isinstance(owner, ir.Block) or "value" not in owner.attributes:
        return None
    attr = owner.attributes["value"]
    return ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else None


def _trip_count(loop: ir.Operation) -> int | None:
    """Iterations of the wsloop's (collapsed) loop nest when its bounds are constants."""
    nest = loop.regions[0].blocks[0].operations[0].operation
    if nest.name != "omp.loop_nest":
        return None
    bounds = [_constant(v) for v in nest.operands]
    known = [b for b in bounds if b is not None]
    if len(known) != len(bounds):
        return None
    n = len(known) // 3
    lows, highs, steps = known[:n], known[n : 2 * n], known[2 * n :]
    return math.prod(max(0, -(-(hi - lo) // st)) for lo, hi, st in zip(lows, highs, steps))


def _num_threads(loop: ir.Operation) -> int | None:
    """The constant num_threads of the omp.parallel around `loop` (operand group 3 of 6:
    allocate, allocator, if, num_threads, private, reduction)."""
    parent = loop.parent
    while parent is not None and parent.name != "omp.parallel":
        parent = parent.parent
    if parent is None or _SEGMENTS not in parent.attributes:
        return None
    segments = list(ir.DenseI32ArrayAttr(parent.attributes[_SEGMENTS]))
    if len(segments) < 4 or segments[3] != 1:
        return None
    return _constant(parent.operands[sum(segments[:3])])
