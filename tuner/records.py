"""Tuning records: measured schedules of tp blocks, as versioned JSON lines (AutoTVM's log).

One record per line, appended as soon as the candidate is measured (schema 2):

    {"schema": 2, "workload": "3f2a...", "kernel": "fused_conv2d_relu_4", "block": "conv2d_1",
     "config": {"tile_ow": [4], "unroll_ic": 8, ...}, "schedule": "{tile = {...}, ...}",
     "cost_ms": 0.41, "costs_ms": [0.41, 0.42, 0.40], "error": "",
     "default": false, "remeasured": false, "target": {"triple": "x86_64-unknown-linux-gnu",
     "cpu": "znver3", "features": ["avx", "avx2", "fma", ...]}, "threads": 2, "pipeline": "9c1e...",
     "mlc_version": "0.1.0", "tuner": "xgb", "seed": 0, "timestamp": 1764590000.0}

Fields: `workload` is a hash of the kernel's tp program with every schedule cleared and its name
dropped, so a record applies to every structurally identical kernel in any model; `block` names
the tuned block inside it; `config` holds the knob values (`mlc.tuner.space`) and `schedule` the
MLIR text of the block's schedule attribute they produce (what the compiler applies);
`costs_ms` are the timed samples (one per repeat) and `reference_ms`, when the candidate was
timed in pairs, the default schedule's sample taken right after each; `cost_ms` is then the
default's latency times the median ratio of the two (`mlc.tuner.runner.MeasureResult.cost`),
else the fastest sample; null for an error record, whose
`error` says what went wrong (`build: ...`, `run: crashed ...`, `run: timed out ...`,
`wrong output: ...`); `default` marks the measurement of the default schedule (the baseline),
`remeasured` a second measurement of a schedule already in the log (the best few of a task are
timed again at its end, and the last such measurement stands for its schedule);
`sizes`, for a kernel with run-time sizes, the values of its symbols it was timed at (absent
for static kernels; `mlc tune` times a dynamic model's kernels at one set of sizes, and the
record applies to the kernel at every size); `target` is the CPU the code was generated and
timed on (`mlc.target.host_target`), `threads` the thread count of the kernel, `pipeline` a
hash of the passes that lowered it (`tp-to-loops` to LLVM), `tuner` and `seed` what proposed
it, `timestamp` when it was measured (seconds).

The kernels themselves live apart from the records, in a workload table next to them
(`records.workloads.jsonl`: one `{"workload": key, "kernel": name, "ir": text}` per workload),
so that records of other models can warm-start a cost model (transfer learning).

Records outlive code versions and get shared: plain JSON with an explicit schema, never pickle.
This module stays light (no cost model, no runtime): the `tp-apply-records` pass reads it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import pathlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypeVar

from mlir import ir

from mlc.contract import TargetInfo
from mlc.dialects.tp import KERNEL_ATTR
from mlc.dialects.walk import walk
from mlc.errors import MlcError

SCHEMA = 2
K = TypeVar("K")


class RecordError(MlcError):
    """A tuning-record file that cannot be used; the message names the line."""


@dataclass(frozen=True)
class Record:
    """One measured candidate (see the module docstring for the meaning of each field)."""

    workload: str
    block: str
    schedule: str
    cost_ms: float | None
    kernel: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    costs_ms: tuple[float, ...] = ()
    reference_ms: tuple[float, ...] = ()
    error: str = ""
    default: bool = False
    remeasured: bool = False
    target: dict[str, Any] = field(default_factory=dict)
    threads: int = 1
    pipeline: str = ""
    mlc_version: str = ""
    tuner: str = ""
    seed: int = 0
    timestamp: float = 0.0
    schema: int = SCHEMA
    sizes: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.error and self.cost_ms is not None

    def to_json(self) -> str:
        data = asdict(self)
        data["costs_ms"] = list(self.costs_ms)
        data["reference_ms"] = list(self.reference_ms)
        if not self.reference_ms:
            del data["reference_ms"]  # readable by mlc versions before paired timing
        if not self.sizes:
            del data["sizes"]
        return json.dumps(data, sort_keys=True)


_FIELDS = {f.name for f in fields(Record)}
_REQUIRED = {"workload", "block", "schedule", "cost_ms"}
_TYPES: dict[str, tuple[type, ...]] = {
    "workload": (str,),
    "block": (str,),
    "schedule": (str,),
    "cost_ms": (int, float, type(None)),
    "kernel": (str,),
    "config": (dict,),
    "costs_ms": (list,),
    "reference_ms": (list,),
    "error": (str,),
    "default": (bool,),
    "remeasured": (bool,),
    "target": (dict,),
    "threads": (int,),
    "pipeline": (str,),
    "mlc_version": (str,),
    "tuner": (str,),
    "seed": (int,),
    "timestamp": (int, float),
    "schema": (int,),
    "sizes": (dict,),
}


def target_dict(target: TargetInfo) -> dict[str, Any]:
    """A TargetInfo as the `target` field of a record."""
    return {"triple": target.triple, "cpu": target.cpu, "features": sorted(target.features)}


def same_target(recorded: Mapping[str, Any], target: TargetInfo) -> bool:
    """Whether a record's target is `target`: same architecture, CPU and ISA extensions."""
    return (
        str(recorded.get("triple", "")).split("-")[0] == target.triple.split("-")[0]
        and recorded.get("cpu") == target.cpu
        and sorted(recorded.get("features", [])) == sorted(target.features)
    )


def describe_target(recorded: Mapping[str, Any]) -> str:
    return f"{recorded.get('cpu', '?')} ({recorded.get('triple', '?')})"


def workload_key(kernel: ir.Operation) -> str:
    """A stable hash of a tp kernel's computation (schedules and name excluded)."""
    clone = kernel.clone(ip=False)
    try:
        empty = ir.DictAttr.get({}, context=kernel.context)
        for op in walk(clone):
            if op.name == "tp.block":
                op.attributes["schedule"] = empty
        name = ir.StringAttr(clone.attributes["sym_name"]).value
        text = str(clone).replace(f"@{name}(", "@kernel(", 1)
    finally:
        clone.erase()
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def workloads(module: ir.Operation) -> Iterator[tuple[str, str, ir.Operation]]:
    """(workload key, kernel name, kernel op) for every tp kernel of `module`."""
    for op in module.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "func.func" and KERNEL_ATTR in op.attributes:
            yield workload_key(op), ir.StringAttr(op.attributes["sym_name"]).value, op


# -- reading -------------------------------------------------------------------------------------
def parse_record(line: str, where: str) -> Record:
    """One line of a record file; RecordError naming `where` (file:line) if it is not one."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as e:
        raise RecordError(f"{where}: not a JSON object: {e.msg}") from None
    if not isinstance(data, dict):
        raise RecordError(f"{where}: a record must be a JSON object")
    if data.get("schema") != SCHEMA:
        raise RecordError(
            f"{where}: schema {data.get('schema')!r} is not {SCHEMA}; re-tune (mlc tune) to "
            "record the target and thread count"
        )
    unknown = set(data) - _FIELDS
    if unknown:
        raise RecordError(
            f"{where}: unknown field(s) {sorted(unknown)}; expected {sorted(_FIELDS)}"
        )
    missing = _REQUIRED - set(data)
    if missing:
        raise RecordError(f"{where}: missing field(s) {sorted(missing)}")
    for key, value in data.items():
        kinds = _TYPES[key]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise RecordError(f"{where}: field '{key}' has the wrong type ({type(value).__name__})")
    cost = data["cost_ms"]
    if cost is not None and not (math.isfinite(cost) and cost > 0):
        raise RecordError(f"{where}: cost_ms must be a positive number or null, got {cost}")
    data["costs_ms"] = tuple(float(c) for c in data.get("costs_ms", ()))
    data["reference_ms"] = tuple(float(c) for c in data.get("reference_ms", ()))
    return Record(**data)


@dataclass(frozen=True)
class RecordLog:
    """The records of one file, the line each came from, and what was wrong with the others."""

    path: str
    records: list[Record]
    lines: list[int]
    problems: list[str]

    def where(self, index: int) -> str:
        """`file:line` of records[index]."""
        return f"{self.path}:{self.lines[index]}"


def read_records(path: str | pathlib.Path) -> RecordLog:
    """Every record of a file, and a message for every line that is not one (each naming
    file:line). A last line without its newline is what a run killed while writing leaves."""
    try:
        text = pathlib.Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"cannot read tuning records '{path}': {e}") from None
    log = RecordLog(str(path), [], [], [])
    lines = text.split("\n")
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            log.records.append(parse_record(line, f"{path}:{i}"))
            log.lines.append(i)
        except RecordError as e:
            truncated = i == len(lines) and not text.endswith("\n")
            log.problems.append(f"{e} (an incomplete last line)" if truncated else str(e))
    return log


def load_records(path: str | pathlib.Path) -> list[Record]:
    """Every record of a file; RecordError on the first line that is not one."""
    log = read_records(path)
    if log.problems:
        raise RecordError(log.problems[0])
    return log.records


def settle(records: Iterable[Record], key: Callable[[Record], K | None]) -> dict[K, Record]:
    """The record that stands for each key (a schedule): its slowest remeasured one if any (a
    confirmation replaces the search's measurement, which as the fastest of many noisy ones is
    biased low; `mlc tune` confirms each point twice and a real gain shows in both), else its
    fastest (errors last). Records whose key is None are skipped."""
    settled: dict[K, Record] = {}
    confirmed: set[K] = set()
    for r in records:
        k = key(r)
        if k is None:
            continue
        if r.remeasured:
            if k not in confirmed or _faster(settled[k], r):
                settled[k] = r
            confirmed.add(k)
        elif k not in confirmed and (k not in settled or _faster(r, settled[k])):
            settled[k] = r
    return settled


def best_records(
    records: Iterable[Record], *, target: TargetInfo | None = None, threads: int | None = None
) -> dict[tuple[str, str], Record]:
    """The fastest successful record per (workload, block), of `target` and `threads` if given,
    among the records that stand for their schedules (`settle`): among the confirmed ones
    (`remeasured`) when there are any, as `mlc tune` confirms the default and the search's best
    points; a schedule only the search measured is one lucky sample, not evidence."""

    def schedule_of(r: Record) -> tuple[str, str, str] | None:
        if (threads is not None and r.threads != threads) or (
            target is not None and not same_target(r.target, target)
        ):
            return None
        return (r.workload, r.block, r.schedule)

    best: dict[tuple[str, str], Record] = {}
    for (workload, block, _), r in settle(records, schedule_of).items():
        held = best.get((workload, block))
        rank = (not r.remeasured, r.cost_ms)  # confirmed first, then the fastest
        if r.ok and (held is None or rank < (not held.remeasured, held.cost_ms)):
            best[workload, block] = r
    return best


def _faster(a: Record, b: Record) -> bool:
    return a.ok and (not b.ok or a.cost_ms < b.cost_ms)  # type: ignore[operator]


# -- writing -------------------------------------------------------------------------------------
def drop_incomplete_line(path: str | pathlib.Path) -> bool:
    """Cut an unterminated last line (a run killed while writing it) so that records appended
    next start on a line of their own; True if there was one."""
    p = pathlib.Path(path)
    if not p.is_file():
        return False
    data = p.read_bytes()
    if not data or data.endswith(b"\n"):
        return False
    with open(p, "r+b") as f:
        f.truncate(data.rfind(b"\n") + 1)
    return True


def append_records(path: str | pathlib.Path, records: Iterable[Record]) -> None:
    """Append whole lines and force them to disk (`append_lines`)."""
    append_lines(path, "".join(r.to_json() + "\n" for r in records).encode())


def append_lines(path: str | pathlib.Path, data: bytes) -> None:
    """Append `data` (whole lines) all or nothing: under an exclusive lock, so that two runs
    appending to one file never interleave, and cut back to where it started if a write fails
    (disk full, the file size limit), so that a record is never left half-written; forced to
    disk, so a run killed later loses none of it."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # released by close
        start = os.fstat(fd).st_size
        try:
            written = 0
            while written < len(data):  # a short write (a signal) continues where it stopped
                written += os.write(fd, data[written:])
            os.fsync(fd)
        except BaseException as e:
            os.ftruncate(fd, start)
            if isinstance(e, OSError):
                raise RecordError(
                    f"cannot append to '{path}': {e.strerror or e}; the records written so "
                    "far are intact: make room and run the same command again to resume"
                ) from None
            raise
    finally:
        os.close(fd)


# -- the workload table --------------------------------------------------------------------------
def workload_table_path(records_path: str | pathlib.Path) -> pathlib.Path:
    """`r.jsonl` -> `r.workloads.jsonl` (the kernels the records were measured on)."""
    p = pathlib.Path(records_path)
    stem = p.name[: -len(p.suffix)] if p.suffix else p.name
    return p.with_name(f"{stem}.workloads.jsonl")


def read_workloads(path: str | pathlib.Path) -> dict[str, tuple[str, str]]:
    """workload key -> (kernel name, kernel IR text); {} when the table does not exist."""
    p = pathlib.Path(path)
    if not p.is_file():
        return {}
    table: dict[str, tuple[str, str]] = {}
    for line in p.read_text().splitlines():
        try:
            data = json.loads(line)
            table[str(data["workload"])] = (str(data["kernel"]), str(data["ir"]))
        except (json.JSONDecodeError, KeyError, TypeError):
            continue  # an incomplete last line: the records stay usable without it
    return table


def append_workload(path: str | pathlib.Path, key: str, kernel: str, text: str) -> None:
    line = json.dumps({"workload": key, "kernel": kernel, "ir": text}) + "\n"
    append_lines(path, line.encode())
