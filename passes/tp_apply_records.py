"""tp-apply-records: set tp block schedules from the best tuning record of their workload.

Only records measured on this host's target (CPU and ISA extensions, `mlc.target`) with the
thread count the kernels will run on apply; among those, the fastest per (kernel workload,
block). Nothing in a record file aborts the compile: a line that is not a record, or a record
whose schedule does not fit its block, is a warning naming it, and the block keeps its default
schedule. A remark reports the coverage: how many kernels got tuned schedules, and the measured
latency of those kernels relative to their default schedules.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from mlc.contract import TargetInfo
from mlc.dialects.tp import BlockView, Schedule
from mlc.dialects.walk import walk
from mlc.errors import DiagnosticError
from mlc.target import host_target

# The one import from the tuner layer (docs/design.md): the record format, a light leaf module.
from mlc.tuner.records import (
    Record,
    RecordError,
    best_records,
    describe_target,
    read_records,
    same_target,
    workloads,
)

from .base import ModulePass, PassContext


@dataclass(frozen=True)
class TpApplyRecordsPass(ModulePass):
    """Schedule tp blocks from tuning records (the fastest of this target and thread count)."""

    name: ClassVar[str] = "tp-apply-records"
    symbolic_dims: ClassVar[bool] = True

    file: str = ""
    """Tuning records, JSON lines (mlc.tuner.records); empty applies nothing."""
    threads: int = 1
    """Threads the kernels will run on: only records measured with this many apply."""

    def __post_init__(self) -> None:
        if self.threads < 1:
            raise ValueError(f"threads must be >= 1, got {self.threads}")

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        if not self.file:
            return
        try:
            log = read_records(self.file)
        except RecordError as e:
            raise DiagnosticError(f"tp-apply-records: {e}", module.location) from None
        records = log.records
        if log.problems and not records:
            raise DiagnosticError(
                f"tp-apply-records: '{self.file}' holds no tuning records: {log.problems[0]}",
                module.location,
            )
        for problem in log.problems:
            ctx.warn(f"tp-apply-records: {problem}; the line is ignored", module.location)
        target = host_target()
        best = best_records(records, target=target, threads=self.threads)
        self._note_foreign(records, target, bool(best), ctx, module.location)
        defaults = {
            (r.workload, r.block): r
            for r in records
            if r.default and r.ok and r.threads == self.threads and same_target(r.target, target)
        }
        index = {id(r): i for i, r in enumerate(records)}
        calls = _call_counts(module)
        kernels = list(workloads(module))
        tuned_ms = default_ms = 0.0
        applied = 0
        for key, name, kernel in kernels:
            hit = False
            for op in [o for o in walk(kernel) if o.name == "tp.block"]:
                view = BlockView(op)
                record = best.get((key, view.name))
                if record is None:
                    continue
                schedule = _fitting(
                    view, record, name, log.where(index[id(record)]), op.location, ctx
                )
                if schedule is None:
                    continue
                view.set_schedule(schedule)
                hit = True
                base = defaults.get((key, view.name))
                if base is not None:
                    weight = calls.get(name, 1)
                    tuned_ms += weight * record.cost_ms  # type: ignore[operator]
                    default_ms += weight * base.cost_ms  # type: ignore[operator]
            applied += hit
        share = (
            f" (at {100 * tuned_ms / default_ms:.0f} % of their default latency)"
            if default_ms
            else ""
        )
        ctx.remark(
            f"tp-apply-records: applied tuned schedules to {applied} of {len(kernels)} kernels"
            + share,
            module.location,
        )

    def _note_foreign(
        self,
        records: list[Record],
        target: TargetInfo,
        any_applies: bool,
        ctx: PassContext,
        loc: ir.Location,
    ) -> None:
        foreign = [
            r
            for r in records
            if r.ok and (r.threads != self.threads or not same_target(r.target, target))
        ]
        if not foreign:
            return
        kinds = sorted({f"{describe_target(r.target)}, {r.threads} thread(s)" for r in foreign})
        message = (
            f"tp-apply-records: {len(foreign)} record(s) of {self.file} were measured for another "
            f"target or thread count ({'; '.join(kinds[:3])}) and are ignored; this compile "
            f"is for {target.cpu} ({target.triple}), "
            f"{self.threads} thread(s)"
        )
        if any_applies:
            ctx.remark(message, loc)
        else:
            ctx.warn(message, loc)


def _fitting(
    view: BlockView, record: Record, kernel: str, where: str, loc: ir.Location, ctx: PassContext
) -> Schedule | None:
    """The record's schedule, or None (and a warning) when it does not fit the block."""
    what = (
        f"tp-apply-records: the best record for block '{view.name}' of kernel {kernel} "
        f"(workload {record.workload}, {where})"
    )
    try:
        schedule = Schedule.from_attr(ir.Attribute.parse(record.schedule))
    except (ValueError, TypeError, ir.MLIRError) as e:
        ctx.warn(f"{what} has a malformed schedule ({e}); the block keeps its default", loc)
        return None
    # a block with run-time extents: tuned at some sizes, it keeps what holds at every size
    schedule = schedule.fit_runtime_extents(view.axes, view.extents)
    problems = schedule.check(view.axes, view.kinds, view.extents)
    if problems:
        ctx.warn(
            f"{what} does not fit the block: {'; '.join(problems)}; the block keeps its "
            "default schedule",
            loc,
        )
        return None
    return schedule


def _call_counts(module: ir.Operation) -> Counter[str]:
    """How often the module's functions call each kernel (its weight in the model's latency)."""
    counts: Counter[str] = Counter()
    for op in walk(module):
        if op.name == "func.call":
            counts[ir.FlatSymbolRefAttr(op.attributes["callee"]).value] += 1
    return counts
