"""The seeded fuzz run of `make test`: a fixed number of mutants per target (the same ones on
every run), none of which may crash mlc, end in an internal error or a traceback. `make fuzz`
runs the same targets for as long as asked (FUZZ_SECONDS)."""

from __future__ import annotations

import pathlib

import pytest

from fuzz.campaign import report, run_target
from fuzz.targets import SUFFIX, TARGETS

pytest.importorskip("onnx")
EXECUTIONS = 25
"""Per target: about 1 minute in all on a quiet 2-core machine."""


@pytest.mark.fuzz
@pytest.mark.parametrize("name", sorted(TARGETS))
def test_seeded_fuzz_run_finds_nothing(name: str, tmp_path: pathlib.Path) -> None:
    stats = run_target(TARGETS[name](name, SUFFIX[name]), 0, tmp_path, executions=EXECUTIONS)
    assert stats.executions == EXECUTIONS
    assert not stats.findings, report({name: stats}) + f"\ninputs: {tmp_path / 'findings'}"
    assert sum(stats.clean_exits.values()) == EXECUTIONS
