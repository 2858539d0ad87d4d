"""The fuzz worker: `python -m fuzz.worker` runs one CLI invocation per JSON line on stdin, in
process (a new process per input would spend its time importing MLIR), and answers one JSON
line: {"code": exit status, "stderr": what the CLI printed}. A native crash kills the worker;
the campaign sees its pipe close, records the finding and starts a new worker.

Its memory is capped (`MEMORY_LIMIT`): a mutant that makes mlc allocate without bound must end
in a clear error, not take the shared machine down.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import resource
import sys
import traceback

MEMORY_LIMIT = 4 << 30
"""Bytes of address space (RLIMIT_AS) a worker may map."""


class _CurrentStderr(io.TextIOBase):
    """Log records go to whatever sys.stderr is at the time (the captured one per request)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)


def run(tool: str, argv: list[str]) -> dict[str, object]:
    from mlc import driver, opt

    main = driver._main if tool == "mlc" else opt._main
    err, out = io.StringIO(), io.StringIO()
    code: object
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException:  # noqa: BLE001 - escaping the CLI's own handler is the finding
            err.write("uncaught exception (Traceback):\n" + traceback.format_exc())
            code = -1
    return {"code": code, "stderr": err.getvalue()[-4000:]}


def main() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # native output must not corrupt the protocol
    logging.basicConfig(stream=_CurrentStderr(), level=logging.WARNING)
    import mlc.driver  # noqa: F401 - imports done before "ready": timeouts start then
    import mlc.opt  # noqa: F401

    replies.write('{"ready": true}\n')
    replies.flush()
    for line in sys.stdin:
        request = json.loads(line)
        os.chdir(request["cwd"])
        replies.write(json.dumps(run(request["tool"], request["argv"])) + "\n")
        replies.flush()


if __name__ == "__main__":
    main()
