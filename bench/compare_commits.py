"""mlc at two commits against onnxruntime, each commit in its own process, alternating.

    python bench/compare_commits.py 83e6408 HEAD resnet18 /tmp/attention.onnx --cpu-time

A commit's code is `git archive`d into a temporary package tree laid out as the installed `mlc`
(pyproject's package-dir: `dialects/` as `mlc.dialects`, `passes/` as `mlc.passes`, ...) and put
first on PYTHONPATH: with the editable install, a bare checkout would import its `mlc` but the
working tree's `mlc.passes`. Each round runs `compare_pipelines.py` (the default pipeline, one
thread) once per commit; the table gives every round's onnxruntime / mlc ratio, since the two
processes' onnxruntime timings differ too. Compilation is never compared across commits'
processes, only ratios. `--threads N` runs both peers on N threads (wall-clock: CPU time
counts every thread's spinning).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tarfile
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SUBPACKAGES = ("dialects", "passes", "frontend", "tuner", "runtime")


def package_tree(commit: str, dest: pathlib.Path) -> pathlib.Path:
    """`commit`'s sources as an importable `mlc` package under `dest`; returns `dest`."""
    archive = dest / "src.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", commit], stdout=out, check=True)
    src = dest / "src"
    with tarfile.open(archive) as tar:
        tar.extractall(src, filter="data")
    pkg = dest / "pkg"
    pkg.mkdir()
    (src / "mlc").rename(pkg / "mlc")
    for name in SUBPACKAGES:
        if (src / name).is_dir():
            (src / name).rename(pkg / "mlc" / name)
    return pkg


def ratio(pkg: pathlib.Path, model: str, cpu_time: bool, rounds: int, threads: int = 1) -> str:
    """One compare_pipelines.py run with `pkg` first on the path: its table row's last cell."""
    env = dict(os.environ, PYTHONPATH=str(pkg), OMP_NUM_THREADS="1")
    cmd = [sys.executable, str(ROOT / "bench" / "compare_pipelines.py"), model, "--rounds"]
    cmd += [str(rounds), "--threads", str(threads)] + (["--cpu-time"] if cpu_time else [])
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    rows = [line for line in out.stdout.splitlines() if line.startswith(f"| {model} |")]
    if not rows:
        return f"failed: {(out.stderr.strip().splitlines() or ['no output'])[-1]}"
    return rows[-1].split("|")[-2].strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("models", nargs="+", help="bench model names or .onnx paths")
    parser.add_argument("--repeat", type=int, default=2, help="alternations per model")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cpu-time", action="store_true", help="time CPU, not wall-clock")
    parser.add_argument("--threads", type=int, default=1, help="threads of both peers")
    args = parser.parse_args()
    if args.cpu_time and args.threads > 1:
        parser.error("--cpu-time times one thread: it would count the spinning of the others")
    with tempfile.TemporaryDirectory() as tmp:
        trees = {}
        for label, commit in (("before", args.before), ("after", args.after)):
            (pathlib.Path(tmp) / label).mkdir()
            trees[label] = package_tree(commit, pathlib.Path(tmp) / label)
        print(f"| model | {args.before}: mlc ms (ratio) | {args.after}: mlc ms (ratio) |")
        print("|---|---|---|")
        for model in args.models:
            cells: dict[str, list[str]] = {"before": [], "after": []}
            for _ in range(args.repeat):
                for label, tree in trees.items():
                    cells[label].append(
                        ratio(tree, model, args.cpu_time, args.rounds, args.threads)
                    )
            print(f"| {model} | {', '.join(cells['before'])} | {', '.join(cells['after'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
