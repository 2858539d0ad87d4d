"""What a conformance run writes: the results JSON and the two lists (`docs/supported_ops.md`
is `doc.py`'s).

* `docs/conformance_results.json`: the run (`RunInfo`) and every case's `CaseResult`.
* `tests/frontend/onnx/conformance_passing.txt`: one passing case per line (the regression
  tests of `tests/frontend/onnx/test_onnx_conformance.py`); `<case> constant:<a>,<b>` for a
  case that passes only with those graph inputs constant (`conformance.run_conformance_case`).
* `tests/frontend/onnx/conformance_known_failures.txt`: `<case> <status>: <reason>` for every
  other case. Regenerating keeps a reviewed reason as long as the case keeps its status.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .runner import STATUSES, CaseResult, Status

RESULTS_SCHEMA = 3  # 2: supported_types, element_types; 3: no dates or durations (no churn)
REASON_LIMIT = 200


@dataclass(frozen=True)
class RunInfo:
    """How the results were produced (the header of the doc and of the JSON file)."""

    command: str
    onnx_version: str
    onnx_opset: int
    mlc_version: str
    jobs: int
    cpus: int
    declared_ops: dict[str, list[int]]
    """Ops with a converter at the time of the run -> their ONNX versions (the registry)."""
    tolerances: list[tuple[float, float]]
    """The distinct (rtol, atol) of the cases run."""
    supported_types: list[str]
    """The element types mlc supported at the time of the run (`dtypes.supported_type_names`)."""


# -- results JSON ----------------------------------------------------------------------------------
def results_json(results: Iterable[CaseResult], info: RunInfo) -> str:
    ordered = sorted(results, key=lambda r: r.name)
    data = {"schema": RESULTS_SCHEMA, "run": info.__dict__, "cases": [r.to_json() for r in ordered]}
    return json.dumps(data, indent=1, allow_nan=False) + "\n"


def read_results(path: pathlib.Path) -> tuple[RunInfo, list[CaseResult]]:
    data = json.loads(path.read_text())
    if data.get("schema") != RESULTS_SCHEMA:
        raise ValueError(
            f"{path}: results schema {data.get('schema')!r}, expected {RESULTS_SCHEMA}"
        )
    run = dict(data["run"])
    run["tolerances"] = [tuple(t) for t in run["tolerances"]]
    return RunInfo(**run), [CaseResult.from_json(c) for c in data["cases"]]


# -- the test lists --------------------------------------------------------------------------------
PASSING_HEADER = (
    "# ONNX node cases mlc passes: each one is a regression test\n"
    "# (tests/frontend/onnx/test_onnx_conformance.py). Written by `python -m tools.conformance`;\n"
    "# review the diff before committing.\n"
)
KNOWN_FAILURES_HEADER = (
    "# ONNX node cases mlc does not pass, one per line: <case> <status>: <reason>.\n"
    "# Written by `python -m tools.conformance`, which keeps a reviewed reason while the case\n"
    "# keeps its status; review new entries before committing. A case in neither list fails the\n"
    "# tests.\n"
)


def passing_text(results: Iterable[CaseResult]) -> str:
    lines = []
    for r in sorted(results, key=lambda r: r.name):
        if r.status == "passed":
            lines.append(f"{r.name}\n")
        elif r.passes:
            assert r.variant is not None
            lines.append(f"{r.name} constant:{','.join(r.variant.constant_inputs)}\n")
    return PASSING_HEADER + "".join(lines)


def read_passing(text: str) -> dict[str, tuple[str, ...]]:
    """Case name -> the graph inputs to make constant (empty: the case as is)."""
    out: dict[str, tuple[str, ...]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        name, _, rest = line.strip().partition(" ")
        constant: tuple[str, ...] = ()
        if rest:
            if not rest.startswith("constant:") or not rest.removeprefix("constant:"):
                raise ValueError(
                    f"line {number}: expected '<case>' or '<case> constant:<input>,...', "
                    f"got {line!r}"
                )
            constant = tuple(rest.removeprefix("constant:").split(","))
        if name in out:
            raise ValueError(f"line {number}: {name} is listed twice")
        out[name] = constant
    return out


@dataclass(frozen=True)
class KnownFailure:
    name: str
    status: Status
    reason: str


def parse_known_failures(text: str) -> dict[str, KnownFailure]:
    """`<case> <status>: <reason>` lines (comments and blank lines skipped)."""
    out: dict[str, KnownFailure] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        name, _, rest = line.strip().partition(" ")
        status, sep, reason = rest.partition(":")
        if not sep or status not in STATUSES or status == "passed" or not reason.strip():
            raise ValueError(
                f"line {number}: expected '<case> <failed|unsupported|error>: "
                f"<reason>', got {line!r}"
            )
        if name in out:
            raise ValueError(f"line {number}: {name} is listed twice")
        out[name] = KnownFailure(name, status, reason.strip())  # type: ignore[arg-type]
    return out


def auto_reason(result: CaseResult) -> str:
    """A one-line reason from a result's message (`UnsupportedOpError` lists span lines)."""
    lines = [line.strip() for line in result.message.strip().splitlines() if line.strip()]
    if lines and lines[0].startswith("the model uses ") and len(lines) > 1:
        lines = lines[1:]  # "the model uses N unsupported operator(s) ...": the op lines follow
    if result.variant is not None:  # the as-is message only asks for constant inputs
        v = result.variant
        then = f": {auto_reason(v)}" if v.status != "passed" else ""
        return f"needs constant {','.join(v.constant_inputs)}; with it, {v.status}{then}"
    text = "; ".join(line.split("; nodes: ")[0] for line in lines[:3]) or result.status
    return text if len(text) <= REASON_LIMIT else text[: REASON_LIMIT - 3] + "..."


def known_failures_text(results: Iterable[CaseResult], previous: Mapping[str, KnownFailure]) -> str:
    lines = []
    for r in sorted(results, key=lambda r: r.name):
        if r.passes:
            continue
        old = previous.get(r.name)
        reason = old.reason if old is not None and old.status == r.status else auto_reason(r)
        lines.append(f"{r.name} {r.status}: {reason}\n")
    return KNOWN_FAILURES_HEADER + "".join(lines)


def changes(
    results: Iterable[CaseResult], passing: Iterable[str], known: Mapping[str, KnownFailure]
) -> dict[str, list[str]]:
    """How a run differs from the committed lists (for the script's report)."""
    was_passing = set(passing)
    out: dict[str, list[str]] = {
        "newly passing": [],
        "newly failing": [],
        "status changed": [],
        "new cases": [],
    }
    for r in results:
        if r.passes and r.name in known:
            out["newly passing"].append(r.name)
        elif not r.passes and r.name in was_passing:
            out["newly failing"].append(f"{r.name} ({r.status})")
        elif not r.passes and r.name in known and known[r.name].status != r.status:
            out["status changed"].append(f"{r.name} ({known[r.name].status} -> {r.status})")
        elif r.name not in was_passing and r.name not in known:
            out["new cases"].append(f"{r.name} ({r.status})")
    return {k: sorted(v) for k, v in out.items()}
