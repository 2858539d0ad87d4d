"""Compile LLVM-dialect units to object files, in this process or as a worker process.

    python codegen_worker.py JOB.json
    python codegen_worker.py -          # started early: reads the job's path from stdin

JOB.json: {"libs": [...], "opt_level": 3, "units": [[mlir file, object file, lookup,
[externals]], ...]}. Every process of a job (the parent and its workers) walks the same list and
compiles the units it claims first (a claim is creating `<object>.claim`), so the work balances
itself. The worker prints `ok N` or `error N <message>` per unit it claimed. It imports only the
MLIR bindings (no numpy, no mlc), so it starts in a fraction of a second.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from collections.abc import Sequence

_STAND_IN = ctypes.create_string_buffer(64)
"""The address given to symbols other units define: the engine links the unit in memory before
it can dump the object, and the object keeps relocations to the names, not this address."""


def compile_unit(
    context: object, text: str, obj: str, lookup: str, externals: Sequence[str], opt_level: int
) -> None:
    """Write the position-independent object of one unit (the ExecutionEngine's pipeline at
    `opt_level`, host CPU: what `CompiledLibrary.jit` and `export_object` generate)."""
    from mlir import ir
    from mlir.execution_engine import ExecutionEngine

    module = ir.Module.parse(text, context)
    engine = ExecutionEngine(module, opt_level=opt_level, enable_pic=True)
    for name in externals:
        engine.raw_register_runtime(name, ctypes.c_void_p(ctypes.addressof(_STAND_IN)))
    # looking a function up compiles the whole unit; dump_to_object_file then writes it
    if not engine.raw_lookup(lookup):
        raise RuntimeError(f"the unit defines no function {lookup}")
    engine.dump_to_object_file(obj)
    if not os.path.isfile(obj) or os.path.getsize(obj) == 0:
        raise RuntimeError(f"no object was written to {obj}")


def claim(obj: str) -> bool:
    """True for the one process that creates `<obj>.claim` first."""
    try:
        os.close(os.open(obj + ".claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


def main(argv: Sequence[str]) -> int:
    path = sys.stdin.readline().strip() if argv[1] == "-" else argv[1]
    if not path:
        return 0  # no work after all (every unit was in the cache)
    with open(path) as f:
        job = json.load(f)
    for lib in job["libs"]:  # declared functions must resolve while the engine links
        ctypes.CDLL(lib, mode=os.RTLD_GLOBAL)
    from mlir import ir

    context = ir.Context()
    for i, (source, obj, lookup, externals) in enumerate(job["units"]):
        if not claim(obj):
            continue
        try:
            with open(source) as f:
                compile_unit(context, f.read(), obj, lookup, externals, job["opt_level"])
            print(f"ok {i}", flush=True)
        except Exception as e:  # noqa: BLE001 - reported to the parent, which raises
            message = f"{type(e).__name__}: {e}".replace("\n", " ")
            print(f"error {i} {message}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
