"""Progress of long commands on stderr: a line per stage. A leaf module.

Library code marks its stages and steps; nothing is printed unless a CLI reports (`reporting`):

    with progress.stage("importing model.onnx"):
        ...
    with progress.stage("running 28 passes"):
        for i, name in enumerate(names, 1):
            with progress.step(i, len(names), name):
                ...

Verbosity (the CLIs' `-q` / default / `-v` / `-vv`):
  QUIET    nothing;
  NORMAL   on a terminal only: a line per stage, its steps updating it in place, then the time;
  VERBOSE  on any stream (logs, pipes): a line when a stage starts and one when it ends, and a
           line per step with its time;
  DEBUG    as VERBOSE (the CLIs also turn on debug logging).
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TextIO

QUIET, NORMAL, VERBOSE, DEBUG = 0, 1, 2, 3


@dataclass
class _Reporter:
    stream: TextIO | None = None
    level: int = QUIET
    prefix: str = ""
    tty: bool = False
    stages: list[str] = field(default_factory=list)
    open_line: bool = False

    @property
    def enabled(self) -> bool:
        return self.stream is not None and (
            self.level >= VERBOSE or (self.level == NORMAL and self.tty)
        )

    @property
    def in_place(self) -> bool:
        return self.tty and self.level == NORMAL

    def show(self, text: str) -> None:
        """Replace the open line (terminal, NORMAL)."""
        self._write(f"\r\x1b[K{self.prefix}{text}")
        self.open_line = True

    def line(self, text: str) -> None:
        self.end_line()
        self._write(f"{self.prefix}{text}\n")

    def end_line(self) -> None:
        if self.open_line:
            self.open_line = False
            self._write("\n")

    def _write(self, text: str) -> None:
        """Progress is a courtesy: a closed or broken stream turns it off, never fails a run."""
        if self.stream is None:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.stream = None


_reporter = _Reporter()


@contextlib.contextmanager
def reporting(verbosity: int, prefix: str = "", stream: TextIO | None = None) -> Iterator[None]:
    """Inside: report to `stream` (default stderr) at `verbosity`, `prefix` starting every
    line. The previous reporter (by default: none) is restored on exit."""
    global _reporter
    stream = stream if stream is not None else sys.stderr
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    saved, _reporter = _reporter, _Reporter(stream, verbosity, prefix, tty)
    try:
        yield
    finally:
        _reporter.end_line()
        _reporter = saved


def verbosity() -> int:
    return _reporter.level


def end_line() -> None:
    """Finish a line left open on the terminal, before other text goes to stderr."""
    _reporter.end_line()


@contextlib.contextmanager
def suppressed() -> Iterator[None]:
    """No progress inside (e.g. the many small builds of a tuning run)."""
    global _reporter
    saved, _reporter = _reporter, _Reporter()
    try:
        yield
    finally:
        _reporter = saved


@contextlib.contextmanager
def stage(title: str) -> Iterator[None]:
    """A stage of a command: shown when it starts, with its time when it ends. A stage inside
    another one is shown as a step of it."""
    r = _reporter
    if not r.enabled:
        yield
        return
    if r.stages:
        with step(0, 0, title):
            yield
        return
    start = time.perf_counter()
    if r.in_place:
        r.show(f"{title} ...")
    else:
        r.line(f"{title} ...")
    r.stages.append(title)
    try:
        yield
    except BaseException:
        _finish(r, f"{title} failed")
        raise
    finally:
        r.stages.pop()
    _finish(r, f"{title} done in {time.perf_counter() - start:.1f} s")


def _finish(r: _Reporter, text: str) -> None:
    if r.in_place:
        r.show(text)
        r.end_line()
    else:
        r.line(text)


@contextlib.contextmanager
def step(index: int, total: int, name: str) -> Iterator[None]:
    """Step `index` of `total` (0, 0: unnumbered) of the current stage."""
    r = _reporter
    if not r.enabled or not r.stages:
        yield
        return
    count = f"[{index}/{total}] " if total else ""
    if r.in_place:
        r.show(f"{r.stages[0]} {count}{name} ...")
        yield
        return
    start = time.perf_counter()
    try:
        yield
    except BaseException:
        r.line(f"  {count}{name} failed")
        raise
    r.line(f"  {count}{name} {time.perf_counter() - start:.2f} s")


__all__ = [
    "DEBUG",
    "NORMAL",
    "QUIET",
    "VERBOSE",
    "end_line",
    "reporting",
    "stage",
    "step",
    "suppressed",
    "verbosity",
]
