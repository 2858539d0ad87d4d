"""`mlc compile model.onnx -o model.tar [--target ...] [--input-shapes ...] [--pass-pipeline ...]`.

Flag names follow tvmc compile. The Namespace becomes `BuildOptions` and `compile_model` does
the work: import, the pass pipeline, code generation, export.
"""

from __future__ import annotations

import argparse
import logging
import pathlib
import sys
import time
from typing import TYPE_CHECKING

from mlc import progress
from mlc.commands.common import blaming_input_shapes, parse_input_shapes, positive_int

_log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from mlc.passes.diagnostics import Diag


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "compile",
        help="compile a model to native code",
        description="Compile an ONNX model (or a graph-dialect .mlir with its parameters) "
        "into a package (.tar), or a shared library (.so) or object (.o) with "
        "<name>.manifest.json and <name>.params.bin beside it. A .so exports a C API "
        "declared in <name>.h, written beside it.",
    )
    p.add_argument("model", type=pathlib.Path, help="an .onnx model, or a graph-dialect .mlir")
    p.add_argument(
        "-o",
        "--output",
        type=pathlib.Path,
        default=pathlib.Path("module.tar"),
        help="output: .tar package (default module.tar), .so or .o, in an existing folder",
    )
    p.add_argument(
        "--target", default="llvm -mcpu=native", help="code generation target (host CPU)"
    )
    p.add_argument(
        "--input-shapes",
        type=parse_input_shapes,
        default=None,
        help='override input shapes of an ONNX model, e.g. "data:[1,3,224,224]" '
        "(names may contain ':', e.g. \"input:0:[1,224,224,3]\")",
    )
    p.add_argument(
        "--params",
        type=pathlib.Path,
        help="parameters (.npz) of a .mlir model (default: <model>.npz, as mlc import writes)",
    )
    p.add_argument(
        "--threads",
        type=positive_int,
        default=None,
        help="worker threads of the compiled code (default 1; configures the default pipeline)",
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
        "--entry-name",
        default=None,
        metavar="SYMBOL",
        help="the model's entry symbol (default: mlc_<model name>); distinct names let "
        "several models link into one program",
    )
    p.add_argument(
        "--profile",
        action="store_true",
        help="compile per-kernel timers in, for `mlc run --profile` (the default pipeline)",
    )
    p.add_argument(
        "--embed-params",
        action="store_true",
        help="put the parameters inside the .so (no <name>.params.bin; C API <entry>_create)",
    )
    p.add_argument(
        "--save-temps",
        type=pathlib.Path,
        metavar="DIR",
        help="keep the input, the pipeline, the IR after each pass and a crash reproducer "
        "(a new folder, or one an earlier --save-temps run wrote)",
    )
    p.add_argument(
        "--print-ir-after-all", action="store_true", help="print the IR after every pass (stderr)"
    )
    p.add_argument(
        "--tp-ops",
        type=pathlib.Path,
        action="append",
        default=[],
        metavar="FILE.py",
        help="a Python file run before the import; its mlc.tp.register_onnx_op / "
        "register_onnx_library_op calls implement ONNX ops by your kernels (repeatable)",
    )
    p.set_defaults(drive=drive)


def drive(args: argparse.Namespace) -> int:
    from mlc.compiler import BuildOptions, compile_model, output_files

    options = BuildOptions(
        target=args.target,
        threads=args.threads,
        pipeline=args.pass_pipeline,
        tuning_records=str(args.tuning_records) if args.tuning_records else None,
        save_temps=str(args.save_temps) if args.save_temps else None,
        print_ir_after_all=args.print_ir_after_all,
        entry_name=args.entry_name,
        profile=args.profile,
        embed_params=args.embed_params,
    )
    if args.tp_ops:
        from mlc.tp import run_ops_file

        for path in args.tp_ops:
            run_ops_file(path)
    start = time.perf_counter()
    diagnostics: list[Diag] = []
    with blaming_input_shapes():
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
        elif args.verbosity >= progress.NORMAL:  # tp-apply-records' coverage line
            sys.stdout.write(d.message.removeprefix("tp-apply-records: ") + "\n")
    m = lib.manifest
    if args.verbosity >= progress.NORMAL:
        sys.stdout.write(
            f"compiled {args.model} -> {args.output} in {time.perf_counter() - start:.1f} s "
            f"({len(m.inputs)} inputs, {len(m.outputs)} outputs, {len(m.params)} params, "
            f"workspace {m.workspace_size} bytes)\n"
        )
    for path in output_files(args.output, args.embed_params):
        _log.info("wrote %s (%d bytes)", path, path.stat().st_size)
    _log.info("entry symbol %s, signature %s", m.entry, m.signature())
    return 0
