"""Run conformance cases in worker processes, so that no case can take the caller down.

Some MLIR misuse aborts the process and a generated kernel can segfault, so every case runs in
a worker subprocess (`python -m tools.conformance.pool CASES_DIR`). The parent
hands out one case at a time (its name on the worker's stdin) and reads one JSON result line
back; cases live in ONNX's on-disk layout under CASES_DIR (`cases.write_case`).

A worker that dies (signal or exit status) while a case is in flight, or that gives no result
within `timeout` seconds (it is then killed), yields an `error` result for that case naming
the signal, status or timeout and the tail of the worker's stderr; a fresh worker takes over
the remaining cases. Workers are also replaced after `cases_per_worker` cases, which bounds
what one process accumulates (JIT engines, MLIR contexts).

Protocol: the worker keeps a private duplicate of fd 1 for result lines and points fd 1 at
stderr, so nothing else printed (by Python or by native code) can corrupt the stream.
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from .runner import CaseResult

WORKER_MODULE = "tools.conformance.pool"
REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]  # where `-m tools...` resolves
STDERR_TAIL = 1500
EXIT_GRACE = 10.0  # seconds a worker that closed its output gets to exit before it is killed


@dataclass(frozen=True)
class PoolOptions:
    """How `run_in_workers` runs cases."""

    jobs: int = 2
    """Worker processes running at the same time."""
    timeout: float = 120.0
    """Seconds one case may take (import to comparison) before its worker is killed."""
    cases_per_worker: int = 200
    """A worker is replaced after this many cases."""
    worker_argv: tuple[str, ...] = (sys.executable, "-m", WORKER_MODULE)
    """The worker command; the cases directory is appended."""


@dataclass(eq=False)  # identity: workers are compared with `in` and removed by `remove`
class _Worker:
    proc: subprocess.Popen[bytes]
    stderr_path: pathlib.Path
    buffer: bytes = b""
    case: str | None = None
    started: float = 0.0
    stderr_offset: int = 0
    done: int = 0
    results: list[dict[str, object]] = field(default_factory=list)


def run_in_workers(
    cases_dir: pathlib.Path,
    names: Iterable[str],
    op_types: dict[str, tuple[str, bool]],
    options: PoolOptions | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
) -> list[CaseResult]:
    """Run the named cases (directories under `cases_dir`); results in completion order.

    `op_types` maps a case name to (op type, expanded) for results the worker could not give.
    """
    options = options or PoolOptions()
    pending = collections.deque(names)
    results: list[CaseResult] = []
    workers: list[_Worker] = []
    selector = selectors.DefaultSelector()
    logs = tempfile.TemporaryDirectory(prefix="mlc-conformance-")

    def finish(result: CaseResult) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result)

    def start_worker() -> None:
        stderr_path = pathlib.Path(logs.name) / f"worker-{len(results)}-{time.monotonic_ns()}.log"
        with open(stderr_path, "wb") as err:
            proc = subprocess.Popen(
                [*options.worker_argv, str(cases_dir)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                start_new_session=True,
                cwd=REPO_ROOT,
            )
        worker = _Worker(proc, stderr_path)
        workers.append(worker)
        assert proc.stdout is not None
        selector.register(proc.stdout, selectors.EVENT_READ, worker)
        dispatch(worker)

    def dispatch(worker: _Worker) -> None:
        if not pending or worker.done >= options.cases_per_worker:
            retire(worker)
            return
        worker.case = pending.popleft()
        worker.started = time.monotonic()
        worker.stderr_offset = worker.stderr_path.stat().st_size
        assert worker.proc.stdin is not None
        try:
            worker.proc.stdin.write(worker.case.encode() + b"\n")
            worker.proc.stdin.flush()
        except BrokenPipeError:
            pass  # the worker is gone; its EOF is handled as a crash of this case

    def retire(worker: _Worker) -> None:
        """Close the worker's stdin (it exits) and forget it."""
        assert worker.proc.stdin is not None and worker.proc.stdout is not None
        selector.unregister(worker.proc.stdout)
        workers.remove(worker)
        try:
            worker.proc.stdin.close()
        except BrokenPipeError:
            pass
        worker.proc.stdout.close()
        try:
            worker.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.proc.kill()
            worker.proc.wait()

    def lost(worker: _Worker, why: str) -> None:
        """The in-flight case killed (or hung) the worker: record it, replace the worker."""
        case = worker.case
        assert case is not None
        worker.case = None
        if why:  # a timeout: the worker is alive
            worker.proc.kill()
        try:
            code = worker.proc.wait(timeout=EXIT_GRACE)  # it closed stdout: it is exiting
        except subprocess.TimeoutExpired:
            worker.proc.kill()
            code = worker.proc.wait()
        tail = _stderr_tail(worker.stderr_path, worker.stderr_offset)
        message = f"{why or _describe_exit(code)}" + (f"; stderr: {tail}" if tail else "")
        op_type, expanded = op_types.get(case, ("?", False))
        finish(
            CaseResult(
                case,
                op_type,
                expanded,
                "error",
                "worker",
                message,
                None,
                time.monotonic() - worker.started,
            )
        )
        retire(worker)

    try:
        while pending and len(workers) < options.jobs:
            start_worker()
        while workers:
            now = time.monotonic()
            deadline = min(w.started + options.timeout for w in workers)
            events = selector.select(timeout=max(0.0, deadline - now))
            for key, _ in events:
                worker = key.data
                if worker not in workers:
                    continue  # replaced while handling an earlier event of this round
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    lost(worker, "")
                    continue
                worker.buffer += chunk
                while b"\n" in worker.buffer and worker.case is not None:
                    line, worker.buffer = worker.buffer.split(b"\n", 1)
                    result = CaseResult.from_json(json.loads(line))
                    assert result.name == worker.case, (result.name, worker.case)
                    worker.case = None
                    worker.done += 1
                    finish(result)
                    dispatch(worker)
            now = time.monotonic()
            for worker in [
                w for w in workers if w.case is not None and now - w.started > options.timeout
            ]:
                lost(worker, f"timeout: no result after {options.timeout:g} s (worker killed)")
            while pending and len(workers) < options.jobs:
                start_worker()
    finally:
        for worker in workers:
            if worker.proc.poll() is None:
                worker.proc.kill()
            worker.proc.wait()
        selector.close()
        logs.cleanup()
    return results


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"worker crashed: killed by {name}"
    return f"worker exited with status {code} before giving a result"


def _stderr_tail(path: pathlib.Path, offset: int) -> str:
    """The last lines the worker wrote to stderr while running the case."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            text = f.read().decode(errors="replace")
    except OSError:
        return ""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines)[-STDERR_TAIL:]


# -- the worker ------------------------------------------------------------------------------------
def worker_main(argv: Sequence[str]) -> int:
    """Read case names from stdin, run each from `argv[0]/<name>`, write one JSON line each."""
    from .cases import read_case
    from .runner import run_conformance_case

    if len(argv) != 1:
        print(f"usage: python -m {WORKER_MODULE} CASES_DIR", file=sys.stderr)
        return 2
    root = pathlib.Path(argv[0])
    results = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything else printed to stdout goes to stderr
    sys.stdout = sys.stderr
    for line in sys.stdin:
        name = line.strip()
        if not name:
            continue
        print(f"== {name}", file=sys.stderr, flush=True)
        result = run_conformance_case(read_case(root / name))
        results.write(json.dumps(result.to_json()) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
