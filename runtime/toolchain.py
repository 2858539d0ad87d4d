"""Where the pinned LLVM/MLIR wheels put their tools and runtime libraries."""

from __future__ import annotations

import pathlib
from functools import lru_cache

from mlc.target import llvm_bin

__all__ = ["OPENMP_LIB", "llvm_bin", "mlir_opt", "mlir_root", "openmp_lib", "runtime_lib"]


@lru_cache(maxsize=1)
def mlir_root() -> pathlib.Path:
    import mlir

    return pathlib.Path(list(mlir.__path__)[0])


def mlir_opt() -> pathlib.Path:
    return mlir_root() / "bin" / "mlir-opt"


OPENMP_LIB = "iomp5"
"""The OpenMP runtime parallel loops call (`__kmpc_*`): libiomp5 from the intel-openmp wheel."""


USER_LIBS: dict[str, pathlib.Path] = {}
"""Libraries of library kernels (`mlc.libraries` of the modules built in this process)."""


def runtime_lib(name: str) -> pathlib.Path:
    """A runtime library by short name: an MLIR one (`mlir_async_runtime`), OpenMP's, or a
    user's library that a module built in this process calls (`USER_LIBS`)."""
    if name in USER_LIBS:
        return USER_LIBS[name]
    if name == OPENMP_LIB:
        return openmp_lib()
    return mlir_root() / "lib" / f"lib{name}.so"


def openmp_lib() -> pathlib.Path:
    """libiomp5.so, which the intel-openmp wheel installs into `<prefix>/lib` (a data file)."""
    import sys
    import sysconfig

    dirs = [pathlib.Path(sysconfig.get_path("data")) / "lib", pathlib.Path(sys.prefix) / "lib"]
    for d in dirs:
        if (d / "libiomp5.so").is_file():
            return d / "libiomp5.so"
    return dirs[0] / "libiomp5.so"
