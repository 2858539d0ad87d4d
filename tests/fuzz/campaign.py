"""Run fuzz targets: `python -m fuzz.campaign --seconds 600` (make fuzz) or `run_campaign` (the
pytest smoke run, with a fixed number of executions per target).

Each mutant is fed to the CLI in a worker process (`fuzz.worker`). A finding is what a user
must never see on bad input: the worker killed by a signal or exiting (a native crash, an
abort in MLIR), an exit status 70 or >= 128, an "internal error", a Python traceback, or no
answer within `TIMEOUT` seconds. Findings are written with their input under `--out`, one
line each in findings.jsonl; duplicates (same target and message) are counted once.

The i-th mutant of a target depends only on (seed, target, i): a finding is replayed with
`--seed S --targets T --replay I`.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from .targets import ROOT, SUFFIX, TARGETS, Target

TIMEOUT = 60.0
"""Seconds one execution may take (a busy, shared machine included)."""
RESTART_EVERY = 150
"""Executions before a worker is replaced (loaded libraries and MLIR contexts pile up)."""


class FuzzWorker:
    def __init__(self, log: pathlib.Path) -> None:
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None
        self.served = 0

    def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=f"{ROOT / 'tests'}{os.pathsep}{ROOT}")
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "fuzz.worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                env=env,
            )
        if self._line(120.0) is None:
            raise RuntimeError(f"the fuzz worker did not start; see {self.log}")
        self.served = 0

    def _line(self, timeout: float) -> bytes | None:
        assert self.proc is not None and self.proc.stdout is not None
        deadline, line = time.monotonic() + timeout, b""
        while not line.endswith(b"\n"):
            ready, _, _ = select.select(
                [self.proc.stdout], [], [], max(0, deadline - time.monotonic())
            )
            if not ready:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            line += chunk
        return line

    def run(self, tool: str, argv: list[str], cwd: pathlib.Path) -> dict[str, object]:
        if self.proc is None or self.proc.poll() is not None or self.served >= RESTART_EVERY:
            self.stop()
            self.start()
        assert self.proc is not None and self.proc.stdin is not None
        self.served += 1
        log_start = self.log.stat().st_size
        request = {"tool": tool, "argv": argv, "cwd": str(cwd)}
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()
        line = self._line(TIMEOUT)
        if line is not None:
            return json.loads(line)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
            return {"code": None, "finding": f"no answer within {TIMEOUT:g} s"}
        code = self.proc.wait()
        how = signal.Signals(-code).name if code < 0 else f"exit {code}"
        tail = self.log.read_bytes()[log_start:].decode(errors="replace").strip().splitlines()
        return {"code": None, "finding": f"worker died ({how})", "stderr": "\n".join(tail[-5:])}

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def classify(reply: dict[str, object]) -> str | None:
    """What is wrong with an execution's outcome; None if it is a clean success or error."""
    if "finding" in reply:
        return str(reply["finding"])
    code, err = reply["code"], str(reply.get("stderr", ""))
    if "Traceback" in err:
        return "traceback: " + _last_line(err)
    if "internal error" in err:
        return next(ln for ln in err.splitlines() if "internal error" in ln).strip()
    if not isinstance(code, int) or code == 70 or code >= 128 or code < 0:
        return f"exit status {code}: " + _last_line(err)
    return None


def _last_line(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def signature(target: str, finding: str) -> str:
    """Findings that differ only in numbers, names in quotes or paths are one finding."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"|\d+|/\S+", "_", finding)
    return f"{target}: {text[:160]}"


@dataclass
class TargetStats:
    executions: int = 0
    seconds: float = 0.0
    findings: dict[str, int] = field(default_factory=dict)
    clean_exits: dict[int, int] = field(default_factory=dict)


def run_target(
    target: Target,
    seed: int,
    out: pathlib.Path,
    *,
    executions: int | None = None,
    seconds: float | None = None,
    first: int = 0,
) -> TargetStats:
    stats = TargetStats()
    work = out / "work" / target.name
    cwd = work / "cwd"
    cwd.mkdir(parents=True, exist_ok=True)
    target.prepare(work)
    worker = FuzzWorker(out / f"{target.name}.worker.log")
    start = time.monotonic()
    i = first
    try:
        while (executions is None or stats.executions < executions) and (
            seconds is None or time.monotonic() - start < seconds
        ):
            rng = random.Random(f"{seed}:{target.name}:{i}")
            tool, argv, data = target.mutant(rng, cwd)
            reply = worker.run(tool, argv, cwd)
            stats.executions += 1
            problem = classify(reply)
            if problem is None:
                code = int(reply["code"])  # type: ignore[arg-type]
                stats.clean_exits[code] = stats.clean_exits.get(code, 0) + 1
            else:
                key = signature(target.name, problem)
                if key not in stats.findings:
                    _save(out, target.name, seed, i, tool, argv, data, problem, reply)
                stats.findings[key] = stats.findings.get(key, 0) + 1
            i += 1
    finally:
        worker.stop()
    stats.seconds = time.monotonic() - start
    return stats


def _save(out, target, seed, i, tool, argv, data, problem, reply) -> None:  # type: ignore[no-untyped-def]
    name = f"{target}-{seed}-{i}{SUFFIX[target]}"
    (out / "findings").mkdir(exist_ok=True)
    (out / "findings" / name).write_bytes(data)
    entry = {"target": target, "seed": seed, "iteration": i, "tool": tool, "argv": argv,
             "finding": problem, "input": name}  # fmt: skip
    entry["stderr"] = str(reply.get("stderr", ""))[-2000:]
    with open(out / "findings.jsonl", "a") as f:
        f.write(json.dumps(entry) + "\n")


def run_campaign(
    names: list[str],
    seed: int,
    out: pathlib.Path,
    *,
    executions: int | None = None,
    seconds: float | None = None,
) -> dict[str, TargetStats]:
    """Run the targets one after the other; the figures so far are in out/report.md after each."""
    results: dict[str, TargetStats] = {}
    for name in names:
        target = TARGETS[name](name, SUFFIX[name])
        results[name] = run_target(target, seed, out, executions=executions, seconds=seconds)
        (out / "report.md").write_text(report(results) + "\n")
    return results


def report(results: dict[str, TargetStats]) -> str:
    rows = ["| target | executions | exec/s | unique findings | clean exit statuses |",
            "|---|---:|---:|---:|---|"]  # fmt: skip
    for name, s in results.items():
        codes = ", ".join(f"{c}: {n}" for c, n in sorted(s.clean_exits.items()))
        rate = s.executions / s.seconds if s.seconds else 0.0
        rows.append(f"| {name} | {s.executions} | {rate:.1f} | {len(s.findings)} | {codes} |")
    for s in results.values():
        for key, n in s.findings.items():
            rows.append(f"- {key} (x{n})")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m fuzz.campaign", description=__doc__)
    p.add_argument("--seconds", type=float, default=60.0, help="total, split over the targets")
    p.add_argument("--executions", type=int, help="per target, instead of --seconds")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--targets", default=",".join(TARGETS), help="comma-separated")
    p.add_argument("--out", type=pathlib.Path, help="work and findings folder (default: temp)")
    p.add_argument("--replay", type=int, help="run only the mutant of this iteration")
    args = p.parse_args(argv)
    names = args.targets.split(",")
    out = args.out or pathlib.Path(tempfile.mkdtemp(prefix="mlc-fuzz-"))
    out.mkdir(parents=True, exist_ok=True)
    if args.replay is not None:
        (name,) = names
        stats = run_target(TARGETS[name](name, SUFFIX[name]), args.seed, out, executions=1,
                           first=args.replay)  # fmt: skip
        results = {name: stats}
    elif args.executions:
        results = run_campaign(names, args.seed, out, executions=args.executions)
    else:
        results = run_campaign(names, args.seed, out, seconds=args.seconds / len(names))
    print(report(results))
    print(f"findings and inputs: {out}")
    return 1 if any(s.findings for s in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
