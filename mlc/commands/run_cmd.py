"""`mlc run model.tar [--inputs x.npz] [--output out.npz] [--print-time] [--print-top N] ...`.

Flag names follow tvmc run. The sub-command turns the Namespace into `RunOptions`, calls
`mlc.runtime.run_module`, and prints the result as text or (`--json`) as one JSON object.
Exit codes: 0 success, 1 inconsistent flags, 4 an mlc error or a failed --verify, 5 onnxruntime
missing.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from mlc.runtime.runner import RunOptions, RunResult

EXIT_USAGE, EXIT_VERIFY_FAILED = 1, 4


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "run",
        help="run a compiled module",
        description="Run a package written by `mlc compile` (or "
        "CompiledLibrary.export_library) on given or generated inputs.",
    )
    p.add_argument(
        "package", type=pathlib.Path, help="a package .tar (or a .so next to its manifest.json)"
    )
    p.add_argument(
        "-i", "--inputs", type=pathlib.Path, help="an .npz of input arrays keyed by input name"
    )
    p.add_argument(
        "-o",
        "--output",
        "--outputs",
        dest="output",
        type=pathlib.Path,
        help="write the outputs to this .npz (keyed by output name)",
    )
    p.add_argument(
        "--fill-mode",
        choices=["zeros", "ones", "random"],
        default="random",
        help="how to make inputs missing from --inputs (default: random)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of --fill-mode random (default: 0)")
    p.add_argument("--print-time", action="store_true", help="time the module and print a summary")
    p.add_argument(
        "--repeat", type=int, default=1, help="timed samples with --print-time (default: 1)"
    )
    p.add_argument("--number", type=int, default=1, help="runs per sample (default: 1)")
    p.add_argument(
        "--min-repeat-ms",
        type=float,
        default=0.0,
        help="grow --number until one sample lasts this long (default: 0)",
    )
    p.add_argument(
        "--end-to-end",
        action="store_true",
        help="include copying inputs in and outputs out in the timing",
    )
    p.add_argument(
        "--print-top",
        type=int,
        default=0,
        metavar="N",
        help="print the N most probable classes of the first output",
    )
    p.add_argument(
        "--labels", type=pathlib.Path, help="class names, one per line (with --print-top)"
    )
    p.add_argument(
        "--verify",
        choices=["onnxruntime"],
        help="compare the outputs against the source model run by this engine",
    )
    p.add_argument(
        "--verify-model",
        type=pathlib.Path,
        help="the reference model (default: the source path recorded in the package)",
    )
    p.add_argument(
        "--verify-atol", type=float, default=1e-4, help="absolute tolerance (default: 1e-4)"
    )
    p.add_argument(
        "--verify-rtol", type=float, default=1e-3, help="relative tolerance (default: 1e-3)"
    )
    p.add_argument("--json", action="store_true", help="print everything as one JSON object")
    p.set_defaults(drive=drive)


def options_from_args(args: argparse.Namespace) -> RunOptions:
    """The typed options; ValueError for inconsistent flags (e.g. --labels without --print-top)."""
    from mlc.runtime.runner import RunOptions

    return RunOptions(
        package=args.package,
        inputs=args.inputs,
        output=args.output,
        fill_mode=args.fill_mode,
        seed=args.seed,
        benchmark=args.print_time,
        repeat=args.repeat,
        number=args.number,
        min_repeat_ms=args.min_repeat_ms,
        end_to_end=args.end_to_end,
        top=args.print_top,
        labels=args.labels,
        verify=args.verify,
        verify_model=args.verify_model,
        verify_atol=args.verify_atol,
        verify_rtol=args.verify_rtol,
    )


def drive(args: argparse.Namespace) -> int:
    from mlc.runtime.runner import run_module

    try:
        options = options_from_args(args)
    except ValueError as e:
        sys.stderr.write(f"mlc run: error: {e}\n")
        return EXIT_USAGE
    result = run_module(options)
    if args.json:
        json.dump(result_to_json(result), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_text(result, sys.stdout)
    if result.verify is not None and not result.verify.ok:
        bad = ", ".join(o.name for o in result.verify.outputs if not o.ok)
        sys.stderr.write(
            f"mlc run: error: verification against {result.verify.backend} failed for "
            f"{bad} (atol={result.verify.atol}, rtol={result.verify.rtol})\n"
        )
        return EXIT_VERIFY_FAILED
    return 0


def _describe(a: Any) -> str:
    return f"{a.dtype}[{','.join(str(d) for d in a.shape)}]"


def _stats(a: Any) -> dict[str, float]:
    if a.size == 0:
        return {}
    x = a.astype("float64")
    return {"min": float(x.min()), "max": float(x.max()), "mean": float(x.mean())}


def print_text(result: RunResult, out: TextIO) -> None:
    filled = [n for n, src in result.input_sources.items() if src != "file"]
    if filled:
        sys.stderr.write(
            f"mlc run: inputs not given, filled with {result.input_sources[filled[0]]} "
            f"values: {', '.join(filled)}\n"
        )
    out.write("Outputs:\n")
    for name, value in result.outputs.items():
        stats = " ".join(f"{k}={v:.6g}" for k, v in _stats(value).items())
        out.write(f"  {name}: {_describe(value)} {stats}\n")
    if result.written is not None:
        out.write(f"Outputs written to {result.written}\n")
    if result.timing is not None:
        out.write(f"{result.timing}\n")
    if result.top is not None:
        how = "softmax of the output" if result.top.softmax_applied else "the output as given"
        out.write(
            f"Top-{len(result.top.entries)} of output '{result.top.output}' "
            f"(probabilities: {how}):\n"
        )
        for e in result.top.entries:
            label = f"  {e.label}" if e.label is not None else ""
            out.write(f"  #{e.rank}  class {e.index}  probability={e.probability:.6f}{label}\n")
    if result.verify is not None:
        v = result.verify
        out.write(f"Verification against {v.backend} ({v.model}), atol={v.atol} rtol={v.rtol}:\n")
        for o in v.outputs:
            out.write(
                f"  {o.name}: max abs error {o.max_abs:.3e}  max rel error {o.max_rel:.3e}  "
                f"{'ok' if o.ok else 'MISMATCH'}\n"
            )


def result_to_json(result: RunResult) -> dict[str, Any]:
    m = result.manifest
    doc: dict[str, Any] = {
        "inputs": {
            s.name: {
                "shape": list(s.shape),
                "dtype": s.dtype,
                "source": result.input_sources[s.name],
            }
            for s in m.inputs
        },
        "outputs": {
            name: {"shape": list(v.shape), "dtype": str(v.dtype), **_stats(v)}
            for name, v in result.outputs.items()
        },
        "output_file": None if result.written is None else str(result.written),
        "time": None if result.timing is None else result.timing.to_dict(),
        "top": None,
        "verify": None if result.verify is None else result.verify.to_dict(),
    }
    if result.top is not None:
        doc["top"] = {
            "output": result.top.output,
            "softmax_applied": result.top.softmax_applied,
            "classes": [
                {"rank": e.rank, "index": e.index, "probability": e.probability, "label": e.label}
                for e in result.top.entries
            ],
        }
    return doc
