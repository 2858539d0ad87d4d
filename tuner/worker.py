"""A measurement worker process: `python -m mlc.tuner.worker` reads one JSON request per line on
stdin and answers each with one JSON line on the protocol pipe (its original stdout).

It first writes `{"ready": true}` once its imports are done. Requests: `{"op": "build", ...}`
(`measure.build_candidate`) and `{"op": "run", ...}` (`measure.run_candidate`). A request that
fails answers `{"error": "..."}`. A candidate that crashes the process (a segfault in generated
code, an abort in MLIR) or never returns is handled by the parent (`mlc.tuner.pool`), which sees
the pipe close or the timeout expire. Everything else the process or its libraries print goes
to stderr, which the parent keeps in a log file (the last lines are quoted in crash records).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from mlc.errors import MlcError

from .measure import RunState, build_candidate, error_text, run_candidate


def serve(requests: Any, replies: Any) -> None:
    state = RunState()
    for line in requests:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            if request["op"] == "build":
                reply = build_candidate(request)
            elif request["op"] == "run":
                reply = run_candidate(request, state)
            else:
                reply = {"error": f"unknown request '{request['op']}'"}
        except MlcError as e:
            reply = {"error": error_text(e)}
        except Exception as e:  # noqa: BLE001 - a bug in one candidate must not end the worker
            reply = {"error": f"internal error: {error_text(e)}"}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


def main() -> None:
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # stray output of libraries must not corrupt the protocol
    sys.stdout = sys.stderr
    replies.write(json.dumps({"ready": True}) + "\n")  # imports done: timeouts start now
    replies.flush()
    serve(sys.stdin, replies)


if __name__ == "__main__":
    main()
