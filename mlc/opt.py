"""mlc-opt: run pass pipelines over `.mlir` files, following mlir-opt's conventions.

    mlc-opt in.mlir --pass-pipeline='builtin.module(graph-verify,func.func(canonicalize,cse))'
    mlc-opt in.mlir -p 'builtin.module(mlc-dce)'        # -p, or -pass-pipeline= (one dash)
    mlc-opt in.mlir --graph-verify --canonicalize --cse  # pass flags, run in this order
    mlc-opt in.mlir --canonicalize=max-iterations=2      # a pass flag with options

Exit status 0 on success, 1 on any error (diagnostics as `file:line:col: error: ...` on stderr).
User errors never print a Python traceback; set MLC_DEBUG=1 to see one for internal errors.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import traceback
from dataclasses import dataclass, field

from mlc.errors import MlcError, PassFailedError
from mlc.files import check_output_file, terminate_as_interrupt, write_text_atomic

_SPLIT = re.compile(r"^// -----.*$", re.M)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(1)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="mlc-opt", description="Run mlc and upstream MLIR passes over an .mlir file.")
    p.add_argument("input", nargs="?", default="-", help="input .mlir file ('-' for stdin)")
    p.add_argument("-o", dest="output", default="-", help="output file ('-' for stdout)")
    p.add_argument(
        "-p",
        "--pass-pipeline",
        default="",
        metavar="PIPELINE",
        help="textual pipeline, e.g. 'builtin.module(graph-verify,func.func(cse))'; or give "
        "passes as flags instead: --graph-verify --cse --canonicalize=max-iterations=2 (any "
        "mlc or upstream pass or pipeline, see --list-passes)",
    )
    p.add_argument(
        "--split-input-file",
        action="store_true",
        help="process each '// -----' separated chunk independently",
    )
    p.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="check diagnostics against // expected-error @+1 {{...}} annotations",
    )
    p.add_argument(
        "--verify-each",
        default="true",
        choices=["true", "false", "1", "0"],
        help="verify the IR (MLIR + mlc dialect rules) after parsing and after each pass",
    )
    p.add_argument(
        "--mlir-print-ir-after-all", action="store_true", help="print the IR after each pass"
    )
    p.add_argument(
        "--mlir-print-ir-before-all", action="store_true", help="print the IR before each pass"
    )
    p.add_argument("--mlir-timing", action="store_true", help="report per-pass wall time")
    p.add_argument("--mlir-print-op-generic", action="store_true", help="print ops in generic form")
    p.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    p.add_argument(
        "--params", metavar="NPZ", help="parameter values (.npz) for passes that fold constants"
    )
    p.add_argument(
        "--params-out", metavar="NPZ", help="write the parameters after the pipeline (.npz)"
    )
    p.add_argument(
        "--allow-unregistered-dialect",
        action="store_true",
        help="accept ops of dialects that are not loaded",
    )
    p.add_argument(
        "--list-passes",
        action="store_true",
        help="list mlc passes (summary, options) and named pipelines, then exit",
    )
    p.add_argument(
        "--print-tp-script",
        action="store_true",
        help="print the tp kernels (after the passes) as tp script, mlc.tp's Python DSL",
    )
    p.add_argument("--version", action="store_true", help="print mlc and MLIR versions")
    return p


@dataclass
class _ChunkResult:
    output: str | None
    diags: list = field(default_factory=list)  # type: ignore[type-arg]


def _process_chunk(
    text: str,
    args: argparse.Namespace,
    pipeline: object | None,
    params: dict[str, object] | None = None,
) -> _ChunkResult:
    from mlir import ir

    from mlc.dialects.context import make_context
    from mlc.passes.diagnostics import Diag, diags_of_error
    from mlc.passes.pass_manager import PassManager, verify_mlc_dialects

    ctx = make_context(allow_unregistered=args.allow_unregistered_dialect)
    collected: list[Diag] = []

    def handler(d: ir.Diagnostic) -> bool:
        collected.extend(Diag.from_mlir(d))
        return True

    ctx.attach_diagnostic_handler(handler)
    verify = args.verify_each in ("true", "1")
    try:
        module = ir.Module.parse(text, ctx)
    except ir.MLIRError as e:  # malformed input
        return _ChunkResult(None, collected + diags_of_error(e))
    if verify:
        errors = [
            Diag.at("error", m, loc)
            for err in verify_mlc_dialects(module.operation)
            for m, loc in err.items()
        ]
        if errors:
            return _ChunkResult(None, collected + errors)
    if pipeline is not None:
        assert isinstance(pipeline, PassManager)
        pipeline.verify_each = verify
        try:
            pipeline.run(module, params=params, filename=args.input)
        except PassFailedError as e:
            if pipeline.internal_error and os.environ.get("MLC_DEBUG"):
                sys.stderr.write(pipeline.internal_error)
            return _ChunkResult(None, collected + pipeline.diagnostics + e.diags)
        collected += pipeline.diagnostics
    if args.print_tp_script:
        return _tp_script(module, collected)
    out = module.operation.get_asm(
        print_generic_op_form=args.mlir_print_op_generic,
        enable_debug_info=args.mlir_print_debuginfo,
    )
    return _ChunkResult(out, collected)


def _tp_script(module: object, collected: list) -> _ChunkResult:  # type: ignore[type-arg]
    """--print-tp-script: every tp kernel as tp script, or an error naming the kernel."""
    from mlc.dialects import tp
    from mlc.frontend.tp_script import PrintError, to_script
    from mlc.passes.diagnostics import Diag

    kernels = tp.kernels(module)  # type: ignore[arg-type]
    if not kernels:
        message = (
            "--print-tp-script: the module has no tp kernels (func.func with tp.kernel); "
            "lower a graph module first, e.g. "
            "--pass-pipeline='builtin.module(graph-fuse,graph-to-tp)'"
        )
        return _ChunkResult(
            None, collected + [Diag.at("error", message, module.operation.location)]
        )  # type: ignore[attr-defined]
    scripts = []
    for fn in kernels:
        try:
            scripts.append(to_script(fn).split("\n", 3)[3])
        except PrintError as e:
            return _ChunkResult(
                None, collected + [Diag.at("error", f"--print-tp-script: {e}", fn.location)]
            )
    return _ChunkResult("from mlc import tp as T\n\n\n" + "\n\n".join(scripts), collected)


def _chunks(text: str, split: bool) -> list[str]:
    """Chunks padded with newlines so that line numbers match the whole file."""
    if not split:
        return [text]
    out, start = [], 0
    for m in _SPLIT.finditer(text):
        out.append(text[start : m.start()])
        start = m.end()
    out.append(text[start:])
    padded, line = [], 0
    for chunk in out:
        padded.append("\n" * line + chunk)
        line += chunk.count("\n")
    return padded


def _run(args: argparse.Namespace) -> int:
    from mlc.passes.pass_manager import PassManager
    from mlc.verify_diagnostics import check, parse_expectations

    if args.output != "-":
        check_output_file(args.output, "output (-o)")
    if args.params_out:
        check_output_file(args.params_out, "--params-out")
    if not args.pass_pipeline:
        for flag in ("mlir_timing", "mlir_print_ir_after_all", "mlir_print_ir_before_all"):
            if getattr(args, flag):
                sys.stderr.write(
                    f"mlc-opt: warning: --{flag.replace('_', '-')} has no effect without "
                    "passes (--pass-pipeline or pass flags)\n"
                )
    pipeline = None
    if args.pass_pipeline:
        pipeline = PassManager.parse(args.pass_pipeline)
        if args.mlir_print_ir_after_all or args.mlir_print_ir_before_all:
            pipeline.enable_ir_printing(
                after_all=args.mlir_print_ir_after_all,
                before_all=args.mlir_print_ir_before_all,
                generic=args.mlir_print_op_generic,
            )
        if args.mlir_timing:
            pipeline.enable_timing()
    text = _read_input(args.input)
    params = _load_params(args.params) if args.params else ({} if args.params_out else None)
    failed = False
    outputs: list[str] = []
    for chunk in _chunks(text, args.split_input_file):
        result = _process_chunk(chunk, args, pipeline, params)
        if args.verify_diagnostics:
            problems = check(result.diags, parse_expectations(chunk), args.input)
            for line in problems:
                sys.stderr.write(line + "\n")
            failed |= bool(problems)
        else:
            for d in result.diags:
                sys.stderr.write(d.format(args.input) + "\n")
            failed |= result.output is None or any(d.severity == "error" for d in result.diags)
        if result.output is not None:
            outputs.append(result.output)
    _write_output(args.output, "// -----\n".join(outputs))
    if args.params_out and not failed:
        _save_params(args.params_out, params or {})
    return 1 if failed else 0


def _load_params(path: str) -> dict[str, object]:
    from mlc.npz import read_npz

    return dict(read_npz(path, "--params"))


def _save_params(path: str, params: dict[str, object]) -> None:
    from mlc.npz import write_npz

    try:
        write_npz(path, params)  # type: ignore[arg-type]
    except OSError as e:
        raise MlcError(f"cannot write parameters '{path}': {e}") from None


def _read_input(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise MlcError(f"cannot read input file '{path}': {e}") from None


def _write_output(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        write_text_atomic(path, text)
    except OSError as e:
        raise MlcError(f"cannot write output file '{path}': {e}") from None


def _is_pass_name(name: str) -> bool:
    from mlc.passes import registry

    return bool(
        name in registry.all_passes()
        or name in registry.ALL_PIPELINES
        or name in registry.upstream_pass_names()
    )


def split_pass_flags(argv: list[str], parser: argparse.ArgumentParser) -> tuple[list[str], str]:
    """mlir-opt habits: any long flag with one dash (`-pass-pipeline=...`), and a pass or
    pipeline given as a flag (`--cse`, `--canonicalize=max-iterations=2`). Returns the other
    arguments (long flags with two dashes) and the pipeline the pass flags make ('' if none)."""
    flags = {o for a in parser._actions for o in a.option_strings if o.startswith("--")}
    rest: list[str] = []
    passes: list[str] = []
    for i, arg in enumerate(argv):
        if arg == "--":
            rest += argv[i:]
            break
        name, eq, value = arg.lstrip("-").partition("=")
        dashes = len(arg) - len(arg.lstrip("-"))
        if dashes == 1 and len(name) > 1 and (f"--{name}" in flags or _is_pass_name(name)):
            arg, dashes = "-" + arg, 2
        if dashes == 2 and f"--{name}" not in flags and _is_pass_name(name):
            passes.append(f"{name}{{{value}}}" if eq and value else name)
            continue
        rest.append(arg)
    return rest, f"builtin.module({','.join(passes)})" if passes else ""


def _main(argv: list[str]) -> int:
    parser = build_parser()
    argv, flag_pipeline = split_pass_flags(argv, parser)
    args = parser.parse_args(argv)
    if flag_pipeline and args.pass_pipeline:
        parser.error(
            "--pass-pipeline cannot be combined with pass flags (--cse ...); use one of them"
        )
    args.pass_pipeline = args.pass_pipeline or flag_pipeline
    try:
        if args.list_passes:
            from mlc.pass_listing import list_passes

            sys.stdout.write(list_passes())
            return 0
        if args.version:
            from mlc.version import version_text

            sys.stdout.write(version_text() + "\n")
            return 0
        with terminate_as_interrupt():
            return _run(args)
    except MlcError as e:
        sys.stderr.write(f"mlc-opt: {e}\n" if not str(e).startswith("pass pipeline") else f"{e}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("mlc-opt: interrupted (outputs not written)\n")
        return 130
    except Exception as e:  # noqa: BLE001 - an internal error must not end in a bare traceback
        if os.environ.get("MLC_DEBUG"):
            traceback.print_exc()
        sys.stderr.write(
            f"mlc-opt: internal error: {type(e).__name__}: {e}\n"
            "  (this is a bug in mlc; rerun with MLC_DEBUG=1 for the traceback)\n"
        )
        return 1


def main() -> None:
    sys.exit(_main(sys.argv[1:]))


if __name__ == "__main__":
    main()
