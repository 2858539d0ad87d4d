"""`mlc compile model.onnx -o model.tar [--target ...] [--input-shapes ...] [--pass-pipeline ...]`.

Flag names follow tvmc compile. The Namespace becomes `BuildOptions` and `compile_model` does
the work: import, the pass pipeline, code generation, export.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
from typing import TYPE_CHECKING

from mlc.commands.common import parse_input_shapes

if TYPE_CHECKING:
    from mlc.passes.diagnostics import Diag


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "compile",
        help="compile a model to native code",
        description="Compile an ONNX model (or a graph-dialect .mlir with --params) "
        "into a package (.tar), a shared library (.so) or an object (.o).",
    )
    p.add_argument("model", type=pathlib.Path, help="an .onnx model, or a graph-dialect .mlir")
    p.add_argument(
        "-o",
        "--output",
        type=pathlib.Path,
        default=pathlib.Path("module.tar"),
        help="output: .tar package (default module.tar), .so or .o",
    )
    p.add_argument(
        "--target", default="llvm -mcpu=native", help="code generation target (host CPU)"
    )
    p.add_argument(
        "--input-shapes",
        type=parse_input_shapes,
        default=None,
        help='override input shapes, e.g. "data:[1,3,224,224]"',
    )
    p.add_argument("--params", type=pathlib.Path, help="parameters (.npz) of a .mlir model")
    p.add_argument(
        "--threads", type=int, default=1, help="worker threads of the compiled code (default 1)"
    )
    p.add_argument(
        "--pass-pipeline",
        default=None,
        help="replace the default pipeline (builtin.module(mlc-default{threads=N}))",
    )
    p.add_argument(
        "--tuning-records", type=pathlib.Path, help="tuning records (JSON lines) to apply"
    )
    p.add_argument(
        "--save-temps",
        type=pathlib.Path,
        metavar="DIR",
        help="keep the input, the pipeline, the IR after each pass and a crash reproducer",
    )
    p.add_argument(
        "--print-ir-after-all", action="store_true", help="print the IR after every pass (stderr)"
    )
    p.set_defaults(drive=drive)


def drive(args: argparse.Namespace) -> int:
    from mlc.compiler import BuildOptions, compile_model

    options = BuildOptions(
        target=args.target,
        threads=args.threads,
        pipeline=args.pass_pipeline,
        tuning_records=str(args.tuning_records) if args.tuning_records else None,
        save_temps=str(args.save_temps) if args.save_temps else None,
        print_ir_after_all=args.print_ir_after_all,
    )
    start = time.perf_counter()
    diagnostics: list[Diag] = []
    lib = compile_model(
        args.model,
        args.output,
        options=options,
        shape_dict=args.input_shapes,
        params_path=args.params,
        diagnostics=diagnostics,
    )
    for d in diagnostics:
        if d.severity == "warning":
            sys.stderr.write(f"mlc compile: warning: {d.message}\n")
        else:  # tp-apply-records' coverage line
            sys.stdout.write(d.message.removeprefix("tp-apply-records: ") + "\n")
    m = lib.manifest
    sys.stdout.write(
        f"compiled {args.model} -> {args.output} in {time.perf_counter() - start:.1f} s "
        f"({len(m.inputs)} inputs, {len(m.outputs)} outputs, {len(m.params)} params, "
        f"workspace {m.workspace_size} bytes)\n"
    )
    return 0
