"""Code generation of a large module as separately compiled units: on every core, and cached.

    objects = generate_objects(module, runtime_libs, workdir)   # None: compile it whole

A module with at least MIN_KERNELS kernels is split into units (codegen_split.py). Units whose
object is in the cache are taken from it; the others are spread over `jobs` processes, largest
first: this one, and jobs - 1 workers running codegen_worker.py. The caller links the objects
(a shared library for the JIT, one relocatable object for export). On the 2-core hosts LLVM's
code generation was half of a ResNet-50 compile, all of it on one core.

The cache is a folder of objects named by the sha256 of the unit's text and of everything else
that decides its code: the MLIR/LLVM version, the host's triple, CPU and ISA flags, the
optimization level and this format's version. Both are opt-in: `MLC_CACHE_DIR=<folder>` turns
the cache on, `MLC_CODEGEN_JOBS=<n>` runs n processes. Without either, a module compiles whole
on one ExecutionEngine as before: on the shared 2-vCPU hosts of issue 31 two processes cost
~50 % more CPU for no wall-clock gain (bench/RESULTS.md), while a split compile in one process
costs ~10-20 % more than a whole one.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
from collections.abc import Sequence
from functools import lru_cache

from mlir import ir

from mlc.errors import ToolError
from mlc.runtime.codegen_split import Unit, split_units
from mlc.runtime.codegen_worker import claim, compile_unit

MIN_KERNELS = 4
"""Modules with fewer kernels compile whole (the tuner's candidates, small tests): there an
engine per unit and a link cost more than a second core saves."""

FORMAT = 1
"""Bump when what a unit's object depends on changes outside the unit's text and the key."""

ENV_JOBS = "MLC_CODEGEN_JOBS"
ENV_CACHE = "MLC_CACHE_DIR"


def codegen_jobs() -> int:
    """Processes that generate code: MLC_CODEGEN_JOBS (e.g. the cores, `nproc`), else 1."""
    value = os.environ.get(ENV_JOBS, "")
    if value:
        try:
            jobs = int(value)
        except ValueError:
            raise ToolError(f"{ENV_JOBS} must be a whole number, got '{value}'") from None
        if jobs < 1:
            raise ToolError(f"{ENV_JOBS} must be at least 1, got {jobs}")
        return jobs
    return 1  # off by default: on the shared 2-vCPU hosts it did not pay (bench/RESULTS.md)


def cache_root() -> pathlib.Path | None:
    """The object cache's folder (MLC_CACHE_DIR), or None: unset, empty or 'off'."""
    value = os.environ.get(ENV_CACHE, "")
    return None if value.strip().lower() in ("", "off", "0", "none") else pathlib.Path(value)


@lru_cache(maxsize=None)
def cache_key(opt_level: int) -> str:
    """Everything besides a unit's text that decides its object."""
    from mlc.runtime.target import host_target
    from mlc.version import mlir_version

    target = host_target()
    try:
        cpuinfo = pathlib.Path("/proc/cpuinfo").read_text()
        flags = next(
            (ln for ln in cpuinfo.splitlines() if ln.startswith(("flags", "Features"))), ""
        )
    except OSError:
        flags = ""
    return json.dumps([FORMAT, mlir_version(), target.triple, target.cpu, flags, opt_level, "pic"])


def kernel_count(module: ir.Module) -> int:
    """Defined functions of local linkage at the module's top level (the kernels)."""
    count = 0
    for op in module.body.operations:
        o = op.operation
        if o.name == "llvm.func" and len(o.regions[0].blocks) and "linkage" in o.attributes:
            if str(o.attributes["linkage"]) in (
                "#llvm.linkage<internal>",
                "#llvm.linkage<private>",
            ):
                count += 1
    return count


def generate_objects(
    module: ir.Module,
    runtime_libs: Sequence[pathlib.Path],
    workdir: pathlib.Path,
    opt_level: int,
    jobs: int | None = None,
) -> list[pathlib.Path] | None:
    """Objects that together hold the module's code (the entry's first), or None when the
    module is better compiled whole: too few kernels, or neither a second core nor a cache.
    `runtime_libs` must already be loaded in this process (RTLD_GLOBAL)."""
    jobs = codegen_jobs() if jobs is None else jobs
    cache = cache_root()
    if (jobs < 2 and cache is None) or kernel_count(module) < MIN_KERNELS:
        return None
    # the workers start (~0.3 s: Python and the bindings) while this process splits the module
    workers = [start_worker() for _ in range(jobs - 1)]
    try:
        return _generate(module, runtime_libs, workdir, opt_level, cache, workers)
    finally:
        for proc in workers:
            if proc.returncode is None:  # not given work: tell it there is none
                _give_job(proc, "")
                proc.communicate()


def _generate(
    module: ir.Module,
    runtime_libs: Sequence[pathlib.Path],
    workdir: pathlib.Path,
    opt_level: int,
    cache: pathlib.Path | None,
    workers: list[subprocess.Popen[str]],
) -> list[pathlib.Path] | None:
    units = split_units(module, cache_key(opt_level))
    if not units:
        return None
    paths: list[pathlib.Path] = []
    todo: list[tuple[Unit, pathlib.Path, pathlib.Path | None]] = []
    for i, unit in enumerate(units):
        cached = cache / "objects" / unit.digest[:2] / f"{unit.digest}.o" if cache else None
        if cached is not None and cached.is_file():
            paths.append(cached)
            continue
        out = workdir / f"unit{i}.o"
        paths.append(out)
        todo.append((unit, out, cached))
    if todo:
        pairs = [(u, out) for u, out, _ in todo]
        compile_units(pairs, runtime_libs, workdir, opt_level, len(workers) + 1, workers)
    for _, out, cached in todo:
        if cached is not None:
            _store(out, cached)
    return paths


def _store(obj: pathlib.Path, cached: pathlib.Path) -> None:
    """Copy into the cache under a temporary name, then rename: readers never see a part."""
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
        shutil.copyfile(obj, tmp)
        os.replace(tmp, cached)
    except OSError:
        pass  # a read-only or full cache only costs the next compile its hit


def compile_units(
    units: Sequence[tuple[Unit, pathlib.Path]],
    runtime_libs: Sequence[pathlib.Path],
    workdir: pathlib.Path,
    opt_level: int,
    jobs: int,
    workers: Sequence[subprocess.Popen[str]] | None = None,
) -> None:
    """Write each unit's object; ToolError naming the units that failed. This process and
    jobs - 1 workers (`workers`, started with `start_worker`, or new ones) walk the units
    largest first, each compiling those it claims first."""
    order = sorted(range(len(units)), key=lambda i: -len(units[i][0].text))
    entries = []
    for i in order:
        unit, out = units[i]
        source = workdir / f"{out.stem}.mlir"
        source.write_text(unit.text)
        entries.append([str(source), str(out), unit.lookup, list(unit.externals)])
    job = workdir / "codegen-job.json"
    libs = [str(p) for p in runtime_libs]
    job.write_text(json.dumps({"libs": libs, "opt_level": opt_level, "units": entries}))
    if workers is None:
        workers = [start_worker() for _ in range(min(jobs, len(units)) - 1)]
    for proc in workers:
        _give_job(proc, str(job))
    errors: dict[int, str] = {}
    done: set[int] = set()
    context = ir.Context()
    for n, i in enumerate(order):
        unit, out = units[i]
        if not claim(str(out)):
            continue
        done.add(n)
        try:
            compile_unit(context, unit.text, str(out), unit.lookup, unit.externals, opt_level)
        except Exception as e:  # noqa: BLE001 - MLIRError, RuntimeError: reported below
            errors[n] = f"{type(e).__name__}: {e}".replace("\n", " ")
    for proc in workers:
        stdout, stderr = proc.communicate()
        for line in stdout.splitlines():
            status, _, rest = line.partition(" ")
            index, _, message = rest.partition(" ")
            if status in ("ok", "error") and index.isdigit():
                done.add(int(index))
                if status == "error":
                    errors[int(index)] = message
        if proc.returncode != 0:
            tail = (stderr.strip().splitlines() or ["no output"])[-1]
            for n in range(len(order)):
                if n not in done and pathlib.Path(entries[n][1] + ".claim").exists():
                    errors[n] = (
                        f"the code generation worker stopped (exit {proc.returncode}): {tail}"
                    )
                    done.add(n)
    for n in range(len(order)):
        if n not in done:
            errors[n] = "no process compiled it"
    if errors:
        lines = [
            f"  {units[order[n]][0].label}: {message}" for n, message in sorted(errors.items())
        ]
        raise ToolError(
            f"code generation failed for {len(errors)} of {len(units)} units:\n"
            + "\n".join(lines[:10])
            + ("\n  ..." if len(lines) > 10 else "")
        )


def start_worker() -> subprocess.Popen[str]:
    """A worker process waiting for the path of its job on stdin."""
    script = pathlib.Path(__file__).with_name("codegen_worker.py")
    return subprocess.Popen(
        [sys.executable, str(script), "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _give_job(proc: subprocess.Popen[str], job: str) -> None:
    """Send the job's path (once; "" for none) and close stdin."""
    if proc.stdin is None:
        return
    try:
        proc.stdin.write(job + "\n")
        proc.stdin.close()
    except (BrokenPipeError, ValueError):
        pass  # the worker is gone; compile_units reports its units
    proc.stdin = None
