"""Tuning records: measured schedules of tp blocks, as versioned JSON lines (AutoTVM's log).

One record per line:
    {"schema": 1, "mlc_version": "0.1.0", "target": "x86_64 znver3 avx2 fma",
     "workload": "3f2a...", "kernel": "fused_conv2d_relu_4", "block": "conv2d_1",
     "schedule": "{tile = {ow = array<i64: 4>}, ...}", "cost_ms": 0.41, "seed": 0}

The workload is a hash of the kernel's tp program with every schedule cleared and its name
dropped, so a record applies to every structurally identical kernel in any model. `schedule`
is the MLIR text of the block's schedule attribute. Records outlive code versions and get
shared: plain JSON with an explicit schema, never pickle.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field

from mlir import ir

from mlc.dialects.tp import KERNEL_ATTR
from mlc.dialects.walk import walk
from mlc.errors import MlcError

SCHEMA = 1
_FIELDS = {
    "schema",
    "mlc_version",
    "target",
    "workload",
    "kernel",
    "block",
    "schedule",
    "cost_ms",
    "seed",
}


class RecordError(MlcError):
    """A tuning-record file that cannot be used; the message names the line."""


@dataclass(frozen=True)
class Record:
    workload: str
    block: str
    schedule: str
    cost_ms: float
    kernel: str = ""
    target: str = ""
    mlc_version: str = ""
    seed: int = 0
    schema: int = field(default=SCHEMA)

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


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


def parse_record(line: str, where: str) -> Record:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as e:
        raise RecordError(f"{where}: not a JSON object: {e.msg}") from None
    if not isinstance(data, dict):
        raise RecordError(f"{where}: a record must be a JSON object")
    unknown = set(data) - _FIELDS
    if unknown:
        raise RecordError(
            f"{where}: unknown field(s) {sorted(unknown)}; expected {sorted(_FIELDS)}"
        )
    if data.get("schema") != SCHEMA:
        raise RecordError(
            f"{where}: schema {data.get('schema')!r} is not {SCHEMA}; re-tune or convert the log"
        )
    missing = {"workload", "block", "schedule", "cost_ms"} - set(data)
    if missing:
        raise RecordError(f"{where}: missing field(s) {sorted(missing)}")
    try:
        return Record(**data)
    except TypeError as e:
        raise RecordError(f"{where}: {e}") from None


def load_records(path: str | pathlib.Path) -> list[Record]:
    try:
        lines = pathlib.Path(path).read_text().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"cannot read tuning records '{path}': {e}") from None
    return [
        parse_record(line, f"{path}:{i}") for i, line in enumerate(lines, start=1) if line.strip()
    ]


def best_records(records: Iterable[Record]) -> dict[tuple[str, str], Record]:
    """The fastest record per (workload, block)."""
    best: dict[tuple[str, str], Record] = {}
    for r in records:
        key = (r.workload, r.block)
        if key not in best or r.cost_ms < best[key].cost_ms:
            best[key] = r
    return best


def append_records(path: str | pathlib.Path, records: Iterable[Record]) -> None:
    """Append whole lines: one O_APPEND write of all of them, so an interrupt (Ctrl-C between
    two writes) never leaves half a record, and concurrent writers never interleave lines."""
    data = "".join(r.to_json() + "\n" for r in records).encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        written = 0
        while written < len(data):  # a short write (signal, disk full) continues where it stopped
            written += os.write(fd, data[written:])
    finally:
        os.close(fd)
