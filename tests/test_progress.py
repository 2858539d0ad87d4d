"""mlc.progress: what a stage and its steps print at each verbosity, on a terminal or not."""

from __future__ import annotations

import io
import re

import pytest

from mlc import progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run_stages() -> None:
    with progress.stage("running 2 passes"):
        for i, name in enumerate(("a", "b"), start=1):
            with progress.step(i, 2, name):
                pass
    with progress.stage("linking"):
        with progress.stage("nested"):
            pass


def test_terminal_lines_are_updated_in_place() -> None:
    out = _Terminal()
    with progress.reporting(progress.NORMAL, "mlc x: ", out):
        _run_stages()
    text = out.getvalue()
    assert "\r\x1b[Kmlc x: running 2 passes [2/2] b ..." in text
    final = [line.split("\r\x1b[K")[-1] for line in text.split("\n") if line]
    assert [line.rsplit(" in ", 1)[0] for line in final] == [
        "mlc x: running 2 passes done",
        "mlc x: linking done",
    ]


def test_verbose_lines_anywhere_and_nothing_otherwise() -> None:
    out = io.StringIO()
    with progress.reporting(progress.VERBOSE, "p: ", out):
        _run_stages()
    lines = [re.sub(r" [0-9.]+ s$", "", line) for line in out.getvalue().splitlines()]
    assert lines == [
        "p: running 2 passes ...",
        "p:   [1/2] a",
        "p:   [2/2] b",
        "p: running 2 passes done in",
        "p: linking ...",
        "p:   nested",
        "p: linking done in",
    ]
    for level, stream in ((progress.NORMAL, io.StringIO()), (progress.QUIET, _Terminal())):
        with progress.reporting(level, "p: ", stream):
            _run_stages()
        assert stream.getvalue() == ""
    _run_stages()  # not reporting: a no-op


def test_a_failed_stage_ends_its_line_and_a_closed_stream_is_harmless() -> None:
    out = _Terminal()
    with pytest.raises(RuntimeError), progress.reporting(progress.NORMAL, "", out):
        with progress.stage("linking"):
            raise RuntimeError("ld failed")
    assert out.getvalue().endswith("\r\x1b[Klinking failed\n")
    closed = _Terminal()
    closed.close()
    with progress.reporting(progress.NORMAL, "", closed):
        _run_stages()
    assert progress.verbosity() == progress.QUIET  # restored after `reporting`
