"""What earlier measurements give a tuning run: the points of a task already measured (resume),
and training examples for the cost model from other tasks' records (transfer learning).

Examples need the kernel a record was measured on: records of this run's tasks use the task,
others the workload table written beside the records (`records.workloads.jsonl`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping, Sequence

from mlir import ir

from mlc.contract import TargetInfo
from mlc.dialects.context import make_context
from mlc.dialects.tp import BlockView, Schedule
from mlc.dialects.walk import walk

from .facts import BlockFacts
from .features import features
from .records import Record, same_target, settle
from .task import Task
from .tuners.xgb import Example

_log = logging.getLogger(__name__)


def matching(records: Iterable[Record], task: Task, target: TargetInfo) -> list[Record]:
    """Records of `task` measured as this run measures it: same target, threads, pipeline."""
    return [
        r
        for r in records
        if r.workload == task.workload
        and r.block == task.block
        and r.threads == task.threads
        and r.pipeline == task.pipeline
        and same_target(r.target, target)
    ]


def measured_points(records: Sequence[Record], task: Task) -> list[tuple[int, float]]:
    """(point, seconds per call) of records of this task whose config is a point of its space
    and whose schedule is that point's (a changed template makes old configs mean something
    else: those are not resumed). A point's last remeasured record stands for it, as in
    `records.best_records`."""

    def point_of(r: Record) -> int | None:
        index = task.space.index_of(r.config)
        return None if index is None or task.schedule_text(index) != r.schedule else index

    return [
        (index, r.cost_ms / 1e3 if r.ok else math.inf)  # type: ignore[operator]
        for index, r in settle(records, point_of).items()
    ]


class ExamplePool:
    """Training examples (features, seconds, group) of many tasks; group = one workload+block."""

    def __init__(self, threads: int, target: TargetInfo) -> None:
        self.threads = threads
        self.target = target
        self.examples: list[Example] = []
        self._groups: dict[tuple[str, str], int] = {}
        self._facts: dict[tuple[str, str], BlockFacts | None] = {}

    def group(self, workload: str, block: str) -> int:
        return self._groups.setdefault((workload, block), len(self._groups))

    def add(self, facts: BlockFacts, record: Record, schedule: Schedule) -> None:
        cost = record.cost_ms / 1e3 if record.ok else math.inf  # type: ignore[operator]
        row = features(facts, schedule, record.config)
        self.examples.append((row, cost, self.group(record.workload, record.block)))

    def add_records(
        self,
        records: Iterable[Record],
        tasks: Mapping[str, Task],
        table: Mapping[str, tuple[str, str]],
    ) -> int:
        """Examples from records of this target and thread count whose kernel is known (a
        task of this run or the workload table); returns how many were added."""
        added = 0
        ctx = make_context()
        for r in records:
            if r.threads != self.threads or not same_target(r.target, self.target):
                continue
            facts = self._facts_for(r, tasks, table, ctx)
            if facts is None:
                continue
            try:
                with ctx:
                    schedule = Schedule.from_attr(ir.Attribute.parse(r.schedule))
                if schedule.check(facts.axes, facts.kinds, facts.extents):
                    continue
                self.add(facts, r, schedule)
                added += 1
            except (ValueError, TypeError, ir.MLIRError):
                continue  # a record of another mlc version: not worth stopping for
        return added

    def _facts_for(
        self,
        r: Record,
        tasks: Mapping[str, Task],
        table: Mapping[str, tuple[str, str]],
        ctx: ir.Context,
    ) -> BlockFacts | None:
        key = (r.workload, r.block)
        if key not in self._facts:
            task = tasks.get(r.workload)
            if task is not None and task.block == r.block:
                self._facts[key] = task.facts
            elif r.workload in table:
                self._facts[key] = self._parse(table[r.workload][1], r.block, ctx)
            else:
                self._facts[key] = None
        return self._facts[key]

    def _parse(self, text: str, block: str, ctx: ir.Context) -> BlockFacts | None:
        try:
            module = ir.Module.parse(text, ctx)
        except ir.MLIRError:
            _log.warning("a workload table entry does not parse; its records are not used")
            return None
        for op in walk(module.operation):
            if op.name == "tp.block" and BlockView(op).name == block:
                view = BlockView(op)
                return BlockFacts.of(view, view.schedule, self.threads, self.target)
        return None

    def others(self, workload: str, block: str) -> list[Example]:
        """Examples of every group but this task's."""
        own = self._groups.get((workload, block))
        return [e for e in self.examples if e[2] != own]
