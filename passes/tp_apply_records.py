"""tp-apply-records: set tp block schedules from the best tuning record of their workload."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from mlc.dialects.tp import BlockView, Schedule
from mlc.dialects.walk import walk
from mlc.errors import DiagnosticError

# The one import from the tuner layer (docs/design.md): the record format, a light leaf module.
from mlc.tuner.records import RecordError, best_records, load_records, workloads

from .base import ModulePass, PassContext


@dataclass(frozen=True)
class TpApplyRecordsPass(ModulePass):
    """Schedule tp blocks from tuning records (the fastest record per kernel workload and block)."""

    name: ClassVar[str] = "tp-apply-records"

    file: str = ""
    """Tuning records, JSON lines (mlc.tuner.records); empty applies nothing."""

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        if not self.file:
            return
        try:
            best = best_records(load_records(self.file))
        except RecordError as e:  # a message naming the file and line
            raise DiagnosticError(f"tp-apply-records: {e}", module.location) from None
        for key, _, kernel in list(workloads(module)):
            for op in [o for o in walk(kernel) if o.name == "tp.block"]:
                view = BlockView(op)
                record = best.get((key, view.name))
                if record is not None:
                    view.set_schedule(_checked(view, record.schedule, key, op.location))


def _checked(view: BlockView, text: str, key: str, loc: ir.Location) -> Schedule:
    where = f"tp-apply-records: the record for block '{view.name}' of workload {key}"
    try:
        schedule = Schedule.from_attr(ir.Attribute.parse(text))
    except (ValueError, TypeError) as e:
        raise DiagnosticError(f"{where} has a malformed schedule: {e}", loc) from None
    problems = schedule.check(view.axes, view.kinds, view.extents)
    if problems:
        raise DiagnosticError(f"{where} does not fit the block: {'; '.join(problems)}", loc)
    return schedule
