"""The `mlc` driver: `mlc import | compile | run`, following tvmc's conventions.

Every sub-command is registered in the explicit COMMANDS list; each is a thin `drive(args)`
over a typed library call. Exit codes: 0 success, 1 bad usage, 4 an mlc error (message on
stderr), 5 a missing optional package (with the pip command), 70 an internal error.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import traceback

from mlc.commands import compile_cmd, import_cmd, run_cmd, tune_cmd
from mlc.errors import MissingDependencyError, MlcError

COMMANDS = (import_cmd, compile_cmd, run_cmd, tune_cmd)

EXIT_USAGE, EXIT_ERROR, EXIT_MISSING_DEP, EXIT_INTERNAL = 1, 4, 5, 70


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="mlc", description="mlc: compile ONNX models to native CPU code.")
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def _main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.drive(args))
    except MissingDependencyError as e:
        sys.stderr.write(f"mlc {args.command}: error: {e}\n")
        return EXIT_MISSING_DEP
    except MlcError as e:
        sys.stderr.write(f"mlc {args.command}: error: {e}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `mlc run ... | head`: the reader left; not an error of ours
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keep the interpreter's flush quiet
        except OSError:
            pass
        return 0
    except Exception as e:  # noqa: BLE001 - internal errors end in a message, not a traceback
        if os.environ.get("MLC_DEBUG"):
            traceback.print_exc()
        sys.stderr.write(
            f"mlc {args.command}: internal error: {type(e).__name__}: {e}\n"
            "  (this is a bug in mlc; rerun with MLC_DEBUG=1 for the traceback)\n"
        )
        return EXIT_INTERNAL


def main() -> None:
    sys.exit(_main(sys.argv[1:]))


if __name__ == "__main__":
    main()
