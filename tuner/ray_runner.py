"""`RayRunner`: candidates built and timed as Ray tasks on the nodes of a Ray cluster (or of a
local Ray instance started for the run), with the records and resume of `LocalRunner`.

    with RayRunner(MeasureOptions(), address="ray://head:10001") as runner:   # None: local
        results = runner.measure(task, [Candidate.of(task, i) for i in indices])

Each candidate is one Ray task asking for `num_cpus` = the thread count it is tuned for, so Ray
never runs two timings on the same cores of a node. Inside, the node's own `LocalRunner` (one
per Ray worker process, kept between tasks) builds it, makes the task's reference output from
the default schedule the first time, and times it in its worker processes, so that a candidate
that crashes or hangs is an error record as on one machine. The result carries the node's CPU,
which goes into the record (`MeasureResult.target`).

A Ray worker or node lost mid-task is Ray's "system failure": Ray runs the task again elsewhere
(`LOST_RETRIES` times); only a task that returned is recorded, so nothing is recorded twice.
`ray` comes from the `distributed` extra and is imported when a RayRunner is made.
"""

from __future__ import annotations

import atexit
import dataclasses
import os
import pathlib
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

from mlc.errors import MissingDependencyError, MlcError
from mlc.target import host_target

from .budget import monotonic
from .measure import MeasureOptions
from .runner import Candidate, LocalRunner, MeasureResult, OnResult, Runner
from .task import Task

LOST_RETRIES = 3
"""Times a candidate is run again after the Ray worker or node running it was lost."""
POLL_SECONDS = 1.0


@dataclasses.dataclass(frozen=True)
class RemoteTask:
    """What a node needs of a `Task` to build and time its candidates (no knob space, which
    holds MLIR objects): the fields `LocalRunner` reads."""

    workload: str
    kernel: str
    block: str
    ir: str
    threads: int
    scratch: int
    default_ms: float | None
    constants: tuple[int, ...]
    sizes: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, task: Task) -> RemoteTask:
        return cls(
            task.workload,
            task.kernel,
            task.block,
            task.ir,
            task.threads,
            task.scratch,
            task.default_ms,
            task.constants,
            task.sizes,
        )


_NODE_RUNNERS: dict[MeasureOptions, LocalRunner] = {}
NODE_DIR_PREFIX = "mlc-ray-node-"


def _node_dir() -> pathlib.Path:
    """This Ray worker's working folder, `mlc-ray-node-<pid>` in the temporary folder."""
    sweep_node_dirs()
    return pathlib.Path(tempfile.gettempdir()) / f"{NODE_DIR_PREFIX}{os.getpid()}"


def sweep_node_dirs(wait: float = 0.0) -> None:
    """Remove the folders of Ray workers no longer alive (after up to `wait` seconds for them
    to exit): Ray ends its workers without running atexit handlers, so the next worker on the
    machine, or the runner that stopped a local Ray instance, cleans up after them."""
    tmp = pathlib.Path(tempfile.gettempdir())
    end = time.monotonic() + wait
    for old in tmp.glob(NODE_DIR_PREFIX + "*"):
        pid = old.name.removeprefix(NODE_DIR_PREFIX)
        if not pid.isdigit():
            continue
        while _alive(int(pid)) and time.monotonic() < end:
            time.sleep(0.1)
        if not _alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def measure_on_node(
    options: MeasureOptions, task: RemoteTask, cand: Candidate, default: Candidate
) -> MeasureResult:
    """Runs in a Ray worker: build and time one candidate with this process's LocalRunner."""
    runner = _NODE_RUNNERS.get(options)
    if runner is None:
        workdir = _node_dir() / str(len(_NODE_RUNNERS))
        runner = LocalRunner(dataclasses.replace(options, parallel=1), str(workdir))
        _NODE_RUNNERS[options] = runner
        atexit.register(runner.close)
        atexit.register(shutil.rmtree, workdir, True)
    result = runner.measure_alone(task, cand, default)  # type: ignore[arg-type]
    return dataclasses.replace(result, target=host_target())


LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray binds a node to the host's routable address unless this is 0 (as on a laptop); read
when ray is imported."""


def loopback_only() -> None:
    """Make a local Ray instance started in this process listen on 127.0.0.1 only (before ray
    is imported; an instance for this machine alone has no business on the network)."""
    if "ray" not in sys.modules:
        os.environ.setdefault(LOOPBACK_ENV, "0")


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise MissingDependencyError("ray", extra="distributed") from None
    return ray


class RayRunner(Runner):
    """Measures on a Ray cluster (`address`, as `ray.init` takes it) or, without one, on a
    local Ray instance started here and stopped by `close`. A Ray already initialized in this
    process is used as it is (and left running)."""

    def __init__(
        self,
        options: MeasureOptions | None = None,
        address: str | None = None,
        *,
        measure_fn: Callable[..., MeasureResult] = measure_on_node,
    ) -> None:
        self.options = options or MeasureOptions()
        if address is None:
            loopback_only()
        self.ray = ray = import_ray()
        self._started = False
        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no reports home from here
            try:
                ray.init(
                    address=address or "local",
                    include_dashboard=False,
                    log_to_driver=False,
                    configure_logging=False,
                )
            except (ConnectionError, RuntimeError, ValueError) as e:
                where = f"the Ray cluster at '{address}'" if address else "a local Ray instance"
                raise MlcError(f"cannot start or reach {where}: {e}") from None
            self._started = True
        self._remote = ray.remote(measure_fn)

    def _submit(self, task: Task, cand: Candidate) -> Any:
        default = Candidate.of(task, task.default_index)
        return self._remote.options(num_cpus=task.threads, max_retries=LOST_RETRIES).remote(
            self.options, RemoteTask.of(task), cand, default
        )

    def _result(self, ref: Any) -> MeasureResult:
        """The task's result, or an error result when Ray could not run it."""
        exceptions = self.ray.exceptions
        try:
            return self.ray.get(ref)
        except (exceptions.WorkerCrashedError, exceptions.NodeDiedError) as e:
            why = f"run: the Ray worker running it was lost {LOST_RETRIES + 1} times ({e})"
            return MeasureResult(error=why[:400], timestamp=time.time())
        except exceptions.RayError as e:
            return MeasureResult(error=f"internal error on a Ray node: {str(e)[:400]}")

    def measure(
        self,
        task: Task,
        candidates: Sequence[Candidate],
        *,
        on_result: OnResult | None = None,
        deadline: float | None = None,
    ) -> list[MeasureResult | None]:
        refs = [self._submit(task, c) for c in candidates]
        index = {ref: i for i, ref in enumerate(refs)}
        results: list[MeasureResult | None] = [None] * len(refs)
        pending = list(refs)
        while pending:
            if deadline is not None and time.monotonic() > deadline:
                for ref in pending:
                    self.ray.cancel(ref, force=False)
                break
            done, pending = self.ray.wait(pending, num_returns=1, timeout=POLL_SECONDS)
            for ref in done:
                i = index[ref]
                results[i] = self._result(ref)
                if on_result is not None:
                    on_result(candidates[i], results[i])  # type: ignore[arg-type]
        return results

    def measure_defaults(
        self,
        tasks: Sequence[Task],
        *,
        deadline: float | None = None,
        clock: Callable[[], float] = monotonic,
    ) -> list[Task]:
        """Every task's default schedule at once (one Ray task each), then timed again, the
        faster kept as in `LocalRunner.measure_defaults`. All are submitted at once: the
        deadline is not checked (the cluster's nodes time them side by side)."""
        best: list[float | None] = [None] * len(tasks)
        for _ in range(2):
            refs = [self._submit(t, Candidate.of(t, t.default_index)) for t in tasks]
            for i, ref in enumerate(refs):
                result = self._result(ref)
                if result.ok:
                    best[i] = result.cost if best[i] is None else min(best[i], result.cost)  # type: ignore[type-var]
        return [
            dataclasses.replace(t, default_ms=None if b is None else b * 1e3)
            for t, b in zip(tasks, best)
        ]

    def close(self) -> None:
        if self._started and self.ray.is_initialized():
            self.ray.shutdown()
            sweep_node_dirs(wait=5.0)
        self._started = False
