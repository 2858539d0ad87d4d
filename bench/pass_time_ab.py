"""CPU time of the passes alone (`from_onnx` + `mlc.build`, no code generation) at two or more
commits, one process per compile, alternating rounds; prints min / median per commit.

    python bench/pass_time_ab.py main HEAD --models resnet.onnx densenet.onnx --rounds 4

Steadier than `compile_time.py` for changes to Python passes: more rounds of the cheaper phase.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from compare_commits import package_tree  # noqa: E402

CHILD = """
import json, resource, sys
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
import mlc
assert mlc.__file__.startswith(sys.argv[2]), f"imported {mlc.__file__}, not the commit's tree"
from mlc.frontend import from_onnx
from mlc.runtime import CompiledLibrary  # noqa: F401 (imported before the clock starts)
module, params = from_onnx(sys.argv[1])
start = cpu()
mlc.build(module, params, threads=int(sys.argv[3]))
print("RESULT " + json.dumps(cpu() - start))
"""


def measure(tree: pathlib.Path, model: str, threads: int) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed mlc has bytecode caches
    cmd = [sys.executable, "-c", CHILD, model, str(tree), str(threads)]
    out = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True, check=False)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return float(json.loads(line.removeprefix("RESULT ")))
    tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
    raise SystemExit(f"{model}: the build failed: {tail}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("commits", nargs="+")
    parser.add_argument("--models", nargs="+", required=True, help=".onnx files")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {}
        for i, commit in enumerate(args.commits):
            (pathlib.Path(tmp) / str(i)).mkdir()
            trees[commit] = package_tree(commit, pathlib.Path(tmp) / str(i))
        print("| model | " + " | ".join(f"{c} passes, CPU s min / median" for c in trees) + " |")
        print("|---|" + "---|" * len(trees))
        for model in args.models:
            got: dict[str, list[float]] = {c: [] for c in trees}
            for _ in range(args.rounds):
                for commit, tree in trees.items():
                    got[commit].append(measure(tree, model, args.threads))
            cells = " | ".join(f"{min(v):.2f} / {statistics.median(v):.2f}" for v in got.values())
            print(f"| {pathlib.Path(model).stem} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
