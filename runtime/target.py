"""The check a package makes before it is loaded, and the record of its source model.

The ExecutionEngine (and therefore `dump_to_object_file`) generates code for the host CPU, so
a package built on an AVX-512 machine can die with SIGILL on an AVX2 one. The package records
the host target (`mlc.target.host_target`: the CPU name LLVM detected, the triple, the
SIMD-relevant ISA extensions); `check_host(target)` refuses a package whose recorded extensions
this host lacks.
"""

from __future__ import annotations

import hashlib
import pathlib

from mlc.contract import SourceModel, TargetInfo
from mlc.errors import MlcError
from mlc.target import host_arch, host_features, host_target

__all__ = ["TargetMismatchError", "check_host", "file_sha256", "host_target", "source_model"]


class TargetMismatchError(MlcError):
    """A package compiled for ISA extensions this host does not have."""


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
