"""Run every ONNX backend node test case through mlc; regenerate the conformance docs and lists.

    .venv/bin/python -m tools.conformance                # all cases, 2 workers; writes:
        docs/conformance_results.json                    #   every case: status and message
        docs/supported_ops.md                            #   per-op pass rates (generated)
        tests/frontend/onnx/conformance_passing.txt      #   the pytest regression list
        tests/frontend/onnx/conformance_known_failures.txt
    .venv/bin/python -m tools.conformance --filter '^test_(relu|conv)'   # a subset; prints only
    .venv/bin/python -m tools.conformance --from-results   # rewrite the doc and lists from the
                                                           # committed results (no run)

Each case runs in a worker process (`tools.conformance.pool`), so a crash or a
hang is a result, not the end of the run. The script prints how the run differs from the
committed lists; review that (and `git diff`) before committing.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shlex
import sys
import tempfile
import time
from dataclasses import replace

from tools.conformance import report
from tools.conformance.cases import element_types, generate_cases, write_case
from tools.conformance.doc import supported_ops_markdown
from tools.conformance.pool import PoolOptions, run_in_workers
from tools.conformance.runner import STATUSES, CaseResult

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "conformance_results.json"
DOC = ROOT / "docs" / "supported_ops.md"
LISTS = ROOT / "tests" / "frontend" / "onnx"
PASSING = LISTS / "conformance_passing.txt"
KNOWN = LISTS / "conformance_known_failures.txt"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=PoolOptions.timeout,
        help="seconds per case before its worker is killed (default %(default)s)",
    )
    parser.add_argument(
        "--filter", metavar="REGEX", help="run only the cases whose name matches; writes no files"
    )
    parser.add_argument("--verbose", action="store_true", help="print every case's result")
    parser.add_argument(
        "--from-results",
        action="store_true",
        help=f"run nothing: rewrite the doc and lists from {RESULTS.relative_to(ROOT)}",
    )
    args = parser.parse_args(argv)
    if args.from_results and args.filter:
        parser.error("--from-results and --filter exclude each other")
    if args.jobs < 1:
        parser.error("--jobs must be >= 1")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.from_results:
        info, results = report.read_results(RESULTS)
        write_outputs(results, info)
        return 0
    start = time.perf_counter()
    cases = generate_cases()
    names = sorted(cases)
    if args.filter:
        pattern = re.compile(args.filter)
        names = [n for n in names if pattern.search(n)]
    print(f"{len(names)} of {len(cases)} cases, {args.jobs} workers", file=sys.stderr)
    done: list[CaseResult] = []

    def progress(result: CaseResult) -> None:
        done.append(result)
        if args.verbose or result.status == "error":
            print(
                f"  {result.name}: {result.status} ({result.duration:.2f} s) "
                f"{report.auto_reason(result) if result.status != 'passed' else ''}",
                file=sys.stderr,
            )
        if len(done) % 200 == 0:
            print(
                f"  {len(done)}/{len(names)} ({time.perf_counter() - start:.0f} s)", file=sys.stderr
            )

    with tempfile.TemporaryDirectory(prefix="mlc-onnx-cases-") as tmp:
        for name in names:
            write_case(cases[name], pathlib.Path(tmp))
        op_types = {n: (c.op_type, c.expanded) for n, c in cases.items()}
        options = PoolOptions(jobs=args.jobs, timeout=args.timeout)
        results = run_in_workers(pathlib.Path(tmp), names, op_types, options, progress)
    results = [replace(r, element_types=element_types(cases[r.name].model)) for r in results]
    wall = time.perf_counter() - start
    counts = {s: sum(r.status == s for r in results) for s in STATUSES}
    print(
        f"{len(results)} cases in {wall:.0f} s: "
        + ", ".join(f"{v} {k}" for k, v in counts.items()),
        file=sys.stderr,
    )
    if args.filter:
        for r in sorted(results, key=lambda r: r.name):
            print(f"{r.name} {r.status}: {report.auto_reason(r) if r.status != 'passed' else ''}")
        return 0
    tolerances = sorted({(cases[n].rtol, cases[n].atol) for n in names})
    write_outputs(results, report_info(args, argv, tolerances))
    return 0


def report_info(
    args: argparse.Namespace, argv: list[str], tolerances: list[tuple[float, float]]
) -> report.RunInfo:
    import onnx

    import mlc
    from mlc.frontend.onnx.converters.registry import registered_ops
    from mlc.frontend.onnx.dtypes import supported_type_names

    command = " ".join([".venv/bin/python", "-m", "tools.conformance", *map(shlex.quote, argv)])
    return report.RunInfo(
        command=command,
        onnx_version=onnx.__version__,
        onnx_opset=onnx.defs.onnx_opset_version(),
        mlc_version=mlc.__version__,
        jobs=args.jobs,
        cpus=os.cpu_count() or 1,
        declared_ops={
            (f"{d}.{op}" if d else op): list(versions) for d, op, versions in registered_ops()
        },
        tolerances=tolerances,
        supported_types=list(supported_type_names()),
    )


def write_outputs(results: list[CaseResult], info: report.RunInfo) -> None:
    passing = report.read_passing(PASSING.read_text()) if PASSING.is_file() else {}
    known = report.parse_known_failures(KNOWN.read_text()) if KNOWN.is_file() else {}
    for title, entries in report.changes(results, passing, known).items():
        if entries:
            print(f"{title} ({len(entries)}):", file=sys.stderr)
            for entry in entries:
                print(f"  {entry}", file=sys.stderr)
    RESULTS.write_text(report.results_json(results, info))
    DOC.write_text(supported_ops_markdown(results, info))
    PASSING.write_text(report.passing_text(results))
    KNOWN.write_text(report.known_failures_text(results, known))
    for path in (RESULTS, DOC, PASSING, KNOWN):
        print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
