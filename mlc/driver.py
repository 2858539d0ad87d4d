"""The `mlc` driver: `mlc import | compile | run`, following tvmc's conventions.

Every sub-command is registered in the explicit COMMANDS list; each is a thin `drive(args)`
over a typed library call. What every command gets from here, without code of its own:
`-v`/`-vv`/`-q` (before or after the command name), `mlc --version`, progress lines on a
terminal (`mlc.progress`), SIGTERM handled like Ctrl-C (outputs are never half-written), and
errors as one message, never a traceback (as a JSON object on stdout too with `--json`).

Exit codes: 0 success, 1 bad usage, 4 an mlc error (message on stderr), 5 a missing optional
package (with the pip command), 70 an internal error (a bug in mlc), 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import traceback

from mlc import progress
from mlc.commands import compile_cmd, import_cmd, run_cmd, tune_cmd
from mlc.commands.common import UsageError
from mlc.errors import MissingDependencyError, MlcError
from mlc.files import terminate_as_interrupt
from mlc.version import version_text

COMMANDS = (import_cmd, compile_cmd, run_cmd, tune_cmd)

EXIT_USAGE, EXIT_ERROR, EXIT_MISSING_DEP, EXIT_INTERNAL, EXIT_INTERRUPTED = 1, 4, 5, 70, 130

_LOG_LEVELS = {
    progress.QUIET: logging.ERROR,
    progress.NORMAL: logging.WARNING,
    progress.VERBOSE: logging.INFO,
    progress.DEBUG: logging.DEBUG,
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_USAGE)


def _add_verbosity(parser: argparse.ArgumentParser, default: object) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=default,
        help="say more: every stage and pass with its time, also when stderr is not a "
        "terminal, and informational messages (-vv: debug messages, and the Python "
        "traceback of an internal error)",
    )
    group.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        default=default,
        help="print only errors (no progress, no summary)",
    )


class _CommandParser(_Parser):
    """The parser of every sub-command: the verbosity flags are accepted after the command
    name too (`mlc compile -v ...`), without overriding those given before it."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        _add_verbosity(self, argparse.SUPPRESS)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="mlc", description="mlc: compile ONNX models to native CPU code.")
    parser.add_argument("--version", action="version", version=version_text())
    _add_verbosity(parser, None)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    sub.required = True
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def _end_progress_line(record: logging.LogRecord) -> bool:
    """A message logged while a progress line is open on the terminal starts a line of its own."""
    progress.end_line()
    return True


def verbosity_of(args: argparse.Namespace) -> int:
    if args.quiet:
        return progress.QUIET
    return min(progress.NORMAL + (args.verbose or 0), progress.DEBUG)


def _main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    args.verbosity = verbosity_of(args)
    root = logging.getLogger()
    if not root.handlers:  # (tests capture logs with handlers of their own)
        logging.basicConfig(
            level=_LOG_LEVELS[args.verbosity], format="%(levelname)s %(name)s: %(message)s"
        )
        root.handlers[0].addFilter(_end_progress_line)
    try:
        with progress.reporting(args.verbosity, f"mlc {args.command}: "), terminate_as_interrupt():
            return int(args.drive(args))
    except UsageError as e:
        return _fail(args, str(e), EXIT_USAGE)
    except MissingDependencyError as e:
        return _fail(args, str(e), EXIT_MISSING_DEP)
    except MlcError as e:
        return _fail(args, str(e), EXIT_ERROR)
    except KeyboardInterrupt:
        return _fail(args, "interrupted (outputs not written)", EXIT_INTERRUPTED)
    except BrokenPipeError:  # `mlc run ... | head`: the reader left; not an error of ours
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keep the interpreter's flush quiet
        except OSError:
            pass
        return 0
    except MemoryError:  # the environment too: data larger than this machine's memory
        return _fail(args, "out of memory: the data does not fit in the memory available here",
                     EXIT_ERROR)  # fmt: skip
    except OSError as e:  # the environment (disk full, permissions), not a bug of mlc
        where = f" '{e.filename}'" if e.filename else ""
        return _fail(args, f"{e.strerror or e}{where}", EXIT_ERROR)
    except Exception as e:  # noqa: BLE001 - internal errors end in a message, not a traceback
        if os.environ.get("MLC_DEBUG") or args.verbosity >= progress.DEBUG:
            traceback.print_exc()
        return _fail(
            args,
            f"internal error: {type(e).__name__}: {e}\n"
            "  (this is a bug in mlc; rerun with -vv or MLC_DEBUG=1 for the traceback)",
            EXIT_INTERNAL,
            prefix="",
        )


def _fail(args: argparse.Namespace, message: str, code: int, prefix: str = "error: ") -> int:
    """Report an error on stderr (and as JSON on stdout with --json); return the exit code."""
    sys.stderr.write(f"mlc {args.command}: {prefix}{message}\n")
    if getattr(args, "json", False):
        json.dump({"error": {"message": message, "exit_code": code}}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return code


def main() -> None:
    sys.exit(_main(sys.argv[1:]))


if __name__ == "__main__":
    main()
