"""The host CPU as code generation sees it, and the check a package makes before it is loaded.

The ExecutionEngine (and therefore `dump_to_object_file`) generates code for the host CPU, so
a package built on an AVX-512 machine can die with SIGILL on an AVX2 one. The package records
the CPU name LLVM detected (`llc --version`: "Host CPU: znver3"), the target triple, and the
SIMD-relevant ISA extensions of `/proc/cpuinfo`; `check_host(target)` refuses a package whose
recorded extensions this host lacks.
"""

from __future__ import annotations

import hashlib
import pathlib
import platform
import re
import subprocess
from functools import lru_cache

from mlc.contract import SourceModel, TargetInfo
from mlc.errors import MlcError
from mlc.target import host_arch, host_features


class TargetMismatchError(MlcError):
    """A package compiled for ISA extensions this host does not have."""


@lru_cache(maxsize=1)
def host_target() -> TargetInfo:
    """The host as LLVM sees it: triple and CPU from `llc --version`, features from cpuinfo."""
    triple, cpu = _llc_host()
    return TargetInfo(triple=triple, cpu=cpu, features=tuple(sorted(host_features())))


def check_host(target: TargetInfo | None) -> None:
    """Raise TargetMismatchError if code built for `target` may not run on this host."""
    if target is None:
        return
    arch = target.triple.split("-")[0]
    if arch != host_arch():
        raise TargetMismatchError(
            f"this package was compiled for {target.triple}; this host is {host_arch()}"
        )
    missing = sorted(set(target.features) - host_features())
    if missing:
        raise TargetMismatchError(
            f"this package was compiled for {target.cpu} ({target.triple}) and uses "
            f"{', '.join(missing)}, which this host ({host_target().cpu}) lacks; recompile it "
            "on this host"
        )


def _llc_host() -> tuple[str, str]:
    from mlc.runtime.toolchain import llvm_bin

    fallback = (f"{platform.machine()}-unknown-{platform.system().lower()}", "unknown")
    try:
        out = subprocess.run(
            [str(llvm_bin() / "llc"), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError, ImportError):
        return fallback
    triple = re.search(r"Default target:\s*(\S+)", out)
    cpu = re.search(r"Host CPU:\s*(\S+)", out)
    return (triple.group(1) if triple else fallback[0], cpu.group(1) if cpu else fallback[1])


def file_sha256(path: str | pathlib.Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def source_model(path: str | pathlib.Path) -> SourceModel:
    """Record a model file (absolute path + sha256) for later `--verify` runs."""
    p = pathlib.Path(path).resolve()
    return SourceModel(path=str(p), sha256=file_sha256(p))
