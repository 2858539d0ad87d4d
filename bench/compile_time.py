"""Compile time of mlc at one or more commits, each compile in its own process, alternating.

    python bench/compile_time.py 20ea47e HEAD --models resnet50 densenet121 --repeat 2

A model is a light-zoo name (seeded weights, written to a temporary .onnx once) or an .onnx
path. Each process imports mlc from the commit's package tree (compare_commits.py's
`package_tree`), then times `from_onnx`, `mlc.build` (the passes) and `.jit()` (LLVM code
generation) with `--threads` worker threads, in CPU time (user + system of the process and of
the code generation workers it waited for, `getrusage`) and wall-clock time; the process's own
imports are left out. Code generation's object cache is off (`MLC_CACHE_DIR=off`: every
compile is cold) unless `--warm`, which compiles each model once into a cache of its own first.
Python writes bytecode caches (PYTHONDONTWRITEBYTECODE is dropped), as an installed mlc has
them: otherwise every process compiles the modules `mlc.build` imports (~1 s). The table gives
the minimum over the repeats of each phase and of the total, CPU and wall: on a shared host CPU
time is the steadier figure, since wall-clock time includes waiting for a core.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from compare_commits import package_tree  # noqa: E402

PHASES = ("import", "passes", "codegen", "total")

CHILD = """
import json, resource, sys, time
def now():
    r = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime, time.perf_counter()
import mlc
assert mlc.__file__.startswith(sys.argv[3]), f"imported {mlc.__file__}, not the commit's tree"
from mlc.frontend import from_onnx
from mlc.runtime import CompiledLibrary  # noqa: F401 (imported before the clock starts)
path, threads = sys.argv[1], int(sys.argv[2])
marks = [now()]
module, params = from_onnx(path)
marks.append(now())
lib = mlc.build(module, params, threads=threads)
marks.append(now())
lib.jit()
marks.append(now())
out = {}
for name, a, b in zip(("import", "passes", "codegen"), marks, marks[1:]):
    out[name] = [b[0] - a[0], b[1] - a[1]]
out["total"] = [marks[-1][0] - marks[0][0], marks[-1][1] - marks[0][1]]
print("RESULT " + json.dumps(out))
"""


def model_file(name: str, folder: pathlib.Path) -> pathlib.Path:
    """An .onnx path as given, or the light-zoo model `name` written with seed 0."""
    if name.endswith(".onnx"):
        return pathlib.Path(name)
    import onnx

    from mlc.frontend.onnx.zoo import load_light_model

    path = folder / f"{name}.onnx"
    onnx.save(load_light_model(name), str(path))
    return path


def measure(
    tree: pathlib.Path, model: pathlib.Path, threads: int, cache: str = "off"
) -> dict[str, list[float]]:
    env = dict(os.environ, PYTHONPATH=str(tree), MLC_CACHE_DIR=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [sys.executable, "-c", CHILD, str(model), str(threads), str(tree)]
    # run in the tree: `python -c` puts the current folder first on sys.path, and the repository
    # root holds an `mlc/` folder, which would be imported instead of the commit's tree
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False, cwd=tree)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line.removeprefix("RESULT "))
    tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
    raise SystemExit(f"{model.name}: the compile failed: {tail}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("commits", nargs="+", help="commits to compare (e.g. main HEAD)")
    parser.add_argument("--models", nargs="+", required=True, help="light-zoo names or .onnx")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2, help="alternations per model")
    parser.add_argument(
        "--warm", action="store_true", help="time compiles whose objects are in the cache"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        trees = {}
        for i, commit in enumerate(args.commits):
            (folder / str(i)).mkdir()
            trees[commit] = package_tree(commit, folder / str(i))
        head = " | ".join(f"{c}: CPU s (wall s)" for c in args.commits)
        print(f"| model | phase | {head} |")
        print("|---|---|" + "---|" * len(args.commits))
        for name in args.models:
            model = model_file(name, folder)
            best: dict[str, dict[str, list[float]]] = {c: {} for c in args.commits}
            caches = {c: "off" for c in args.commits}
            if args.warm:
                for i, (commit, tree) in enumerate(trees.items()):
                    caches[commit] = str(folder / f"cache-{i}-{model.stem}")
                    measure(tree, model, args.threads, caches[commit])
            for _ in range(args.repeat):
                for commit, tree in trees.items():
                    got = measure(tree, model, args.threads, caches[commit])
                    for phase in PHASES:
                        seen = best[commit].get(phase, [float("inf")] * 2)
                        best[commit][phase] = [min(a, b) for a, b in zip(seen, got[phase])]
            for phase in PHASES:
                cells = " | ".join(
                    f"{best[c][phase][0]:.1f} ({best[c][phase][1]:.1f})" for c in args.commits
                )
                print(f"| {name} | {phase} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
