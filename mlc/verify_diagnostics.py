"""`--verify-diagnostics`: match produced diagnostics against `expected-*` annotations.

    // expected-error @+1 {{'graph.relu' op result #0 has type}}
    %0 = "graph.relu"(%a) : (tensor<2xf32>) -> tensor<3xf32>

Annotations: `expected-error|warning|note|remark`, optional `@+N`, `@-N`, `@above`, `@below`
(default: the annotation's own line), and the expected text in `{{...}}` (a substring of the
message). Every annotation must be matched by a diagnostic of that severity on that line, and
every error, warning or remark must be expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mlc.passes.diagnostics import Diag

_ANNOTATION = re.compile(
    r"expected-(error|warning|note|remark)\s*(?:@(above|below|[+-]\d+))?\s*\{\{(.*?)\}\}"
)


@dataclass
class Expected:
    severity: str
    line: int
    col: int
    text: str
    annotation_line: int
    matched: bool = False


def parse_expectations(text: str, first_line: int = 1) -> list[Expected]:
    out: list[Expected] = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        lineno = first_line + i
        for m in _ANNOTATION.finditer(line):
            severity, offset, msg = m.group(1), m.group(2), m.group(3)
            if offset is None:
                target = lineno
            elif offset in ("above", "below"):
                target = _next_code_line(lines, i, -1 if offset == "above" else 1) + first_line
            else:
                target = lineno + int(offset)
            out.append(Expected(severity, target, m.start() + 1, msg, lineno))
    return out


def _next_code_line(lines: list[str], i: int, step: int) -> int:
    j = i + step
    while 0 <= j < len(lines) and "expected-" in lines[j] and lines[j].lstrip().startswith("//"):
        j += step
    return j


def check(diags: list[Diag], expected: list[Expected], filename: str) -> list[str]:
    """Messages for every mismatch; empty when the diagnostics are exactly as annotated."""
    problems: list[str] = []
    for d in diags:
        hit = next(
            (
                e
                for e in expected
                if not e.matched
                and e.severity == d.severity
                and e.line == d.line
                and e.text in d.message
            ),
            None,
        )
        if hit is not None:
            hit.matched = True
        elif d.severity != "note":
            problems.append(f"{d.where(filename)}: error: unexpected {d.severity}: {d.message}")
    for e in expected:
        if not e.matched:
            problems.append(
                f"{filename}:{e.annotation_line}:{e.col}: error: expected {e.severity} "
                f'"{e.text}" was not produced'
            )
    return problems
