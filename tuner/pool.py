"""Worker processes (`mlc.tuner.worker`) seen from the tuner: send a request, get the reply, or
an error saying the candidate crashed the worker or ran past its timeout. A dead or killed
worker is restarted on the next request.

    pool = WorkerPool(2, log_dir)
    replies = pool.map([request, ...], timeout=60)   # in parallel, one request per worker
"""

from __future__ import annotations

import json
import os
import pathlib
import queue
import select
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

STARTUP_TIMEOUT = 120.0
"""Seconds a worker may take to import mlc and say it is ready."""


class Worker:
    """One worker process; `request` never raises for what a candidate does to it."""

    def __init__(self, log: pathlib.Path, env: dict[str, str] | None = None) -> None:
        self.log_path = log
        self.env = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
        self.proc: subprocess.Popen[bytes] | None = None
        self.restarts = 0

    def _start(self) -> subprocess.Popen[bytes] | str:
        """The running worker, started if needed; an error text if it did not come up."""
        if self.proc is not None and self.proc.poll() is None:
            return self.proc
        if self.proc is not None:
            self.restarts += 1
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child owns it from here
        log_start = log.tell()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mlc.tuner.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            env=self.env,
        )
        log.close()
        # Start-up (imports) is not the candidate's time: a busy machine took over 3 s.
        line = self._read_line(self.proc, time.monotonic() + STARTUP_TIMEOUT)
        if line is None:
            self.kill()
            return f"the worker did not start within {STARTUP_TIMEOUT:g} s"
        if not line:
            return "the worker failed to start: " + self._died(self.proc, log_start)
        return self.proc

    def _read_line(self, proc: subprocess.Popen[bytes], deadline: float) -> bytes | None:
        """One line from the worker; b"" if it died first, None at the deadline."""
        assert proc.stdout is not None
        line = b""
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([proc.stdout], [], [], max(left, 0))
            if not ready:
                return None
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                return b""
            line += chunk
        return line

    def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        proc = self._start()
        if isinstance(proc, str):
            return {"error": proc}
        assert proc.stdin is not None
        log_start = self.log_path.stat().st_size if self.log_path.exists() else 0
        try:
            proc.stdin.write((json.dumps(message) + "\n").encode())
            proc.stdin.flush()
        except BrokenPipeError:
            return {"error": self._died(proc, log_start)}
        line = self._read_line(proc, time.monotonic() + timeout)
        if line is None:
            self.kill()
            return {"error": f"timed out after {timeout:g} s (the worker was killed)"}
        if not line:
            return {"error": self._died(proc, log_start)}
        return json.loads(line)

    def _died(self, proc: subprocess.Popen[bytes], log_start: int) -> str:
        code = proc.wait()
        if code < 0:
            try:
                how = f"crashed with {signal.Signals(-code).name}"
            except ValueError:
                how = f"crashed with signal {-code}"
        else:
            how = f"exited with status {code}"
        tail = self._log_tail(log_start)
        return how + (f" ({tail})" if tail else "")

    def _log_tail(self, start: int) -> str:
        try:
            with open(self.log_path, "rb") as f:
                f.seek(start)
                text = f.read().decode(errors="replace")
        except OSError:
            return ""
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        return " | ".join(lines[-3:])[-400:]

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc = None


class WorkerPool:
    """`size` workers serving requests in parallel (threads wait on the processes)."""

    def __init__(self, size: int, log_dir: pathlib.Path, name: str = "worker") -> None:
        self.workers = [Worker(log_dir / f"{name}{i}.log") for i in range(size)]
        self._idle: queue.Queue[Worker] = queue.Queue()
        for w in self.workers:
            self._idle.put(w)
        self._threads = ThreadPoolExecutor(max_workers=size)

    def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        worker = self._idle.get()
        try:
            return worker.request(message, timeout)
        finally:
            self._idle.put(worker)

    def map(self, messages: Sequence[dict[str, Any]], timeout: float) -> list[dict[str, Any]]:
        return list(self._threads.map(lambda m: self.request(m, timeout), messages))

    def close(self) -> None:
        self._threads.shutdown(wait=True)
        for w in self.workers:
            w.close()
