"""Which kernels of a model cost LLVM the most? Each kernel compiled alone, timed.

    python bench/codegen_kernels.py MODEL.onnx [MODEL.onnx ...] [--top 8] [--threads 2]

Builds the model (`mlc.build`), splits its LLVM-dialect module into one unit per kernel
(`codegen_split.split_units`, equal kernels once) and compiles each unit in this process
with the JIT's pipeline (`codegen_worker.compile_unit`: opt level 3, host CPU), timing the
thread's CPU time. Prints the total and the `--top` kernels with their share and text size:
a kernel far above its size's share (shufflenet_v2's global pool: 6 s of 9) is a blow-up in
some LLVM pass, to be reproduced with `opt -time-passes` on its unit (`--dump DIR`).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time

import onnx

import mlc
from mlc.frontend import from_onnx
from mlc.runtime import codegen_split
from mlc.runtime.codegen_worker import compile_unit
from mlc.runtime.library import _resolve_externals


def kernel_times(path: pathlib.Path, threads: int, dump: pathlib.Path | None) -> list[tuple]:
    lib = mlc.build(*from_onnx(onnx.load(str(path))), threads=threads)
    _resolve_externals(lib.module, lib.manifest.runtime_libs)  # loads OpenMP & co. globally
    codegen_split.GROUP_CHARS = 0  # one kernel per unit
    units = codegen_split.split_units(lib.module, key="codegen_kernels")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, unit in enumerate(units):
            start = time.thread_time()
            obj = str(pathlib.Path(tmp) / f"u{i}.o")
            compile_unit(lib.module.context, unit.text, obj, unit.lookup, unit.externals, 3)
            rows.append((time.thread_time() - start, len(unit.text), unit.label))
            if dump is not None:
                (dump / f"{path.stem}.{unit.label.split()[0]}.mlir").write_text(unit.text)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="+", type=pathlib.Path)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--dump", type=pathlib.Path, help="write every unit here")
    args = parser.parse_args()
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
    for path in args.models:
        rows = sorted(kernel_times(path, args.threads, args.dump), reverse=True)
        total = sum(r[0] for r in rows)
        chars = sum(r[1] for r in rows)
        print(f"{path.name}: {len(rows)} units, {total:.2f} s CPU, {chars / 1e6:.1f} M chars")
        for seconds, size, label in rows[: args.top]:
            print(
                f"  {seconds:6.2f} s {100 * seconds / total:5.1f} %  "
                f"{size / 1e3:7.0f} k chars ({100 * size / chars:4.1f} %)  {label}"
            )
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
