"""`mlc import model.onnx -o model.mlir [--params model.npz] [--input-shapes ...]`."""

from __future__ import annotations

import argparse

from mlc import progress
from mlc.commands.common import blaming_input_shapes, parse_input_shapes


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "import",
        help="import an ONNX model into the graph dialect",
        description="Import an ONNX model into mlc's graph dialect (.mlir) and "
        "write its parameters to an .npz file.",
    )
    p.add_argument("model", help="path to an .onnx file")
    p.add_argument("-o", "--output", required=True, help="where to write the .mlir module")
    p.add_argument(
        "--params",
        help="where to write the parameters (.npz); default: <output>.npz, where "
        "`mlc compile <output>` looks for them",
    )
    p.add_argument(
        "--input-shapes",
        type=parse_input_shapes,
        default=None,
        help='override input shapes, e.g. "data:[1,3,224,224] mask:[1,128]"',
    )
    p.add_argument(
        "--symbolic-dims",
        action="store_true",
        help="keep dynamic input dims (not fixed by --input-shapes) as named symbolic dims, "
        'e.g. tensor<?x128xi64, ["batch", 128]> (mlc compile does not take them yet)',
    )
    p.add_argument(
        "--print-debuginfo", action="store_true", help="write op locations (ONNX node names)"
    )
    p.set_defaults(drive=drive)


def drive(args: argparse.Namespace) -> int:
    from mlc.frontend import import_model_files

    with blaming_input_shapes(), progress.stage(f"importing {args.model}"):
        import_model_files(
            args.model,
            args.output,
            params_path=args.params,
            shape_dict=args.input_shapes,
            debuginfo=args.print_debuginfo,
            symbolic_dims=args.symbolic_dims,
        )
    return 0
