"""Progress of a tuning run on a terminal: one tqdm bar per task (trials, best GFLOP/s,
errors) while it runs, and one summary line per task when it ends.

tqdm is optional (mlc[tune]); without it, or when the stream is not a terminal, only the
summary lines are written.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO

from .runner import MeasureResult
from .task import Task
from .tune import Progress, TaskReport
from .tuners import Tuner


class TerminalProgress(Progress):
    def __init__(self, stream: TextIO | None = None, bars: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.bars = self.stream.isatty() if bars is None else bars
        self._bar: Any = None
        self._task: Task | None = None
        self._prefix = ""

    def start(self, task: Task, index: int, count: int, trials: int) -> None:
        self._task = task
        self._prefix = f"[Task {index + 1:2d}/{count:2d}] {task.kernel}"
        if self.bars:
            try:
                from tqdm import tqdm
            except ImportError:
                self.bars = False
                return
            self._bar = tqdm(
                total=trials or None,
                desc=self._prefix,
                file=self.stream,
                leave=False,
                dynamic_ncols=True,
                unit="trial",
            )

    def update(self, tuner: Tuner, done: Sequence[tuple[int, MeasureResult]]) -> None:
        if self._bar is None or self._task is None:
            return
        self._bar.update(len(done))
        best = tuner.best_cost * 1e3
        self._bar.set_postfix_str(
            f"best {self._task.gflops(best):.1f} GFLOP/s ({best:.3f} ms), errors {tuner.errors}"
        )

    def finish(self, report: TaskReport) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        speed = f"{report.speedup:.2f}x" if report.speedup else "-"
        best = f"{report.best_ms:.3f} ms" if report.best_ms is not None else "-"
        self.stream.write(
            f"{self._prefix}: {report.trials} trials ({report.errors} errors, {report.resumed} "
            f"resumed) in {report.seconds:.0f} s, best {best}, {speed}, {report.status}\n"
        )
        self.stream.flush()
