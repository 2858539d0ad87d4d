"""`mlc run model.tar [--inputs x.npz] [--output out.npz] [--print-time] [--print-top N] ...`.

Flag names follow tvmc run. The sub-command turns the Namespace into `RunOptions`, calls
`mlc.runtime.run_module`, and prints the result as text or (`--json`) as one JSON object.
Exit codes: 0 success, 1 inconsistent flags (or a flag that would be ignored), 4 an mlc error or
a failed --verify, 5 onnxruntime missing.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import TYPE_CHECKING, Any, TextIO

from mlc import progress
from mlc.commands.common import (
    UsageError,
    non_negative_float,
    non_negative_int,
    parse_input_shapes,
    positive_int,
    sizes_only,
)

if TYPE_CHECKING:
    from mlc.runtime.runner import RunOptions, RunResult

EXIT_VERIFY_FAILED = 4


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "run",
        help="run a compiled module",
        description="Run a package written by `mlc compile` (or a .so it wrote, with its "
        "<name>.params.bin beside it) on given or generated inputs.",
    )
    p.add_argument("package", type=pathlib.Path, help="a package .tar, or a .so")
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
        default=None,
        help="how to make inputs missing from --inputs (default: random)",
    )
    p.add_argument("--seed", type=int, default=None, help="seed of --fill-mode random (default: 0)")
    p.add_argument(
        "--input-shapes",
        type=parse_input_shapes,
        default=None,
        help='shapes of the inputs to fill, for a module with symbolic dims, e.g. "x:[2,7]"',
    )
    p.add_argument("--print-time", action="store_true", help="time the module and print a summary")
    p.add_argument("--repeat", type=positive_int, default=None, help="timed samples (default: 1)")
    p.add_argument("--number", type=positive_int, default=None, help="runs per sample (default: 1)")
    p.add_argument(
        "--min-repeat-ms",
        type=non_negative_float,
        default=None,
        help="grow --number until one sample lasts this long (default: 0)",
    )
    p.add_argument(
        "--end-to-end",
        action="store_true",
        help="include copying inputs in and outputs out in the timing",
    )
    p.add_argument(
        "--print-top",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="print the N most probable classes of the first output (first batch item)",
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
        "--verify-atol",
        type=non_negative_float,
        default=None,
        help="absolute tolerance (default: 1e-4)",
    )
    p.add_argument(
        "--verify-rtol",
        type=non_negative_float,
        default=None,
        help="relative tolerance (default: 1e-3)",
    )
    p.add_argument(
        "--profile",
        action="store_true",
        help="time every kernel inside the run, mapped to the model's ONNX nodes (a package "
        "compiled with `mlc compile --profile`)",
    )
    p.add_argument(
        "--profile-runs",
        type=positive_int,
        default=None,
        help="runs the kernel times are averaged over (default: 10)",
    )
    p.add_argument(
        "--profile-top",
        type=non_negative_int,
        default=None,
        metavar="N",
        help="print the N slowest kernel calls (default: 25; 0: all)",
    )
    p.add_argument(
        "--plot",
        type=pathlib.Path,
        metavar="PNG",
        help="draw the profile (time per kernel, labelled by ONNX nodes) to this PNG",
    )
    p.add_argument("--json", action="store_true", help="print everything as one JSON object")
    p.add_argument(
        "--verify-only",
        action="store_true",
        help="check the library's seal, its manifest and the params digest without loading "
        "or running it (exit 0 if intact, 4 if not)",
    )
    p.set_defaults(drive=drive)


_NEEDS = (
    (("repeat", "number", "min_repeat_ms", "end_to_end"), "print_time", "--print-time"),
    (("verify_model", "verify_atol", "verify_rtol"), "verify", "--verify onnxruntime"),
    (("labels",), "print_top", "--print-top N"),
    (("profile_runs", "profile_top", "plot"), "profile", "--profile"),
)
"""Flags that only mean something together with another one: alone they are refused."""


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def check_flags(args: argparse.Namespace) -> None:
    """UsageError for a flag that would be ignored."""
    for dests, needed, how in _NEEDS:
        given = [_flag(d) for d in dests if getattr(args, d) not in (None, False)]
        if given and not getattr(args, needed):
            raise UsageError(f"{', '.join(given)} only apply with {how}; add it or drop them")
    if args.seed is not None and args.fill_mode not in (None, "random"):
        raise UsageError(f"--seed only applies to --fill-mode random, not {args.fill_mode}")


def options_from_args(args: argparse.Namespace) -> RunOptions:
    """The typed options (flags left out take the library's defaults)."""
    from mlc.runtime.runner import RunOptions

    given = {
        "fill_mode": args.fill_mode,
        "seed": args.seed,
        "repeat": args.repeat,
        "number": args.number,
        "min_repeat_ms": args.min_repeat_ms,
        "verify_atol": args.verify_atol,
        "verify_rtol": args.verify_rtol,
    }
    return RunOptions(
        package=args.package,
        inputs=args.inputs,
        output=args.output,
        benchmark=args.print_time,
        end_to_end=args.end_to_end,
        top=args.print_top,
        labels=args.labels,
        verify=args.verify,
        verify_model=args.verify_model,
        profile=(args.profile_runs or 10) if args.profile else 0,
        input_shapes=sizes_only(args.input_shapes, "mlc run --input-shapes") or None,
        **{k: v for k, v in given.items() if v is not None},
    )


def drive(args: argparse.Namespace) -> int:
    from mlc.runtime.runner import run_module

    if args.verify_only:
        return _verify_only(args)
    check_flags(args)
    if args.plot is not None:
        from mlc.files import check_output_file
        from mlc.plot import require_matplotlib

        require_matplotlib()  # before the run, not after it
        check_output_file(args.plot, "plot")
    try:
        options = options_from_args(args)
    except ValueError as e:
        raise UsageError(str(e)) from None
    result = run_module(options)
    if args.plot is not None and result.profile is not None:
        from mlc.plot import plot_profile

        plot_profile(result.profile, args.plot, title=f"mlc profile: {args.package.name}")
    if args.json:
        json.dump(result_to_json(result), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.verbosity >= progress.NORMAL:
        print_text(result, sys.stdout)
        if result.profile is not None:
            top = 25 if args.profile_top is None else args.profile_top
            sys.stdout.write(result.profile.table(top=top or None) + "\n")
    if result.verify is not None and not result.verify.ok:
        bad = ", ".join(o.name for o in result.verify.outputs if not o.ok)
        sys.stderr.write(
            f"mlc run: error: verification against {result.verify.backend} failed for "
            f"{bad} (atol={result.verify.atol}, rtol={result.verify.rtol})\n"
        )
        return EXIT_VERIFY_FAILED
    return 0


def _verify_only(args: argparse.Namespace) -> int:
    """`--verify-only`: no other flag applies; mlc errors (damage, mismatch) exit 4."""
    from mlc.runtime.package import verify_package

    run_flags = ("inputs", "output", "fill_mode", "seed", "print_time", "print_top", "verify")
    run_flags += ("input_shapes",)
    run_flags += tuple(d for dests, _, _ in _NEEDS for d in dests)
    others = [_flag(d) for d in run_flags if getattr(args, d) not in (None, False, 0)]
    if others:
        raise UsageError(f"--verify-only takes no other run flags; drop {', '.join(others)}")
    m = verify_package(args.package)
    if args.json:
        json.dump({"package": str(args.package), "ok": True, "entry": m.entry}, sys.stdout)
        sys.stdout.write("\n")
    elif args.verbosity >= progress.NORMAL:
        sys.stdout.write(
            f"{args.package}: intact (library seal, manifest and {len(m.params)} params "
            f"checked; entry {m.entry} {m.signature()})\n"
        )
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
        item = f", batch item 0 of {result.top.batch}" if result.top.batch > 1 else ""
        out.write(
            f"Top-{len(result.top.entries)} of output '{result.top.output}'{item} "
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
                "shape": list(result.inputs[s.name].shape),
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
    if result.profile is not None:
        doc["profile"] = result.profile.to_dict()
    if result.top is not None:
        doc["top"] = {
            "output": result.top.output,
            "softmax_applied": result.top.softmax_applied,
            "batch_item": 0,
            "batch": result.top.batch,
            "classes": [
                {"rank": e.rank, "index": e.index, "probability": e.probability, "label": e.label}
                for e in result.top.entries
            ],
        }
    return doc
