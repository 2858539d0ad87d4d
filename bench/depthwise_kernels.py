"""Depthwise conv kernels alone (1 thread): GFLOP/s per shape, at the working tree or at two
commits alternating (each in its own process, on the commit's sources as compare_commits.py
lays them out).

    python bench/depthwise_kernels.py                       # the working tree
    python bench/depthwise_kernels.py --commits 20ea47e HEAD --rounds 2

Each conv (bias + ReLU6, between two 1x1 convs so that it runs blocked as in a model:
`sweep_depthwise.depthwise_model`, 3x3 or 5x5) goes through mlc-default's graph passes; its
depthwise kernel is timed by profile_kernels.profile (median of its calls). Shapes: MobileNet /
EfficientNet ones and ShuffleNet's 58 and 116 channels, which no 8- or 16-channel block divides.
With --commits the table has the best of the rounds per commit.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
SHAPES = [
    (96, 56, 1, 3), (144, 56, 2, 3), (32, 112, 1, 3), (384, 14, 1, 3), (960, 7, 1, 3),
    (240, 28, 1, 5), (672, 14, 2, 5), (58, 28, 1, 3), (116, 14, 1, 3), (116, 28, 2, 3),
]  # fmt: skip
"""(channels, input size, stride, kernel)."""


def measure() -> dict[str, float]:
    """GFLOP/s of each shape's depthwise kernel with the importable mlc."""
    sys.path.insert(0, str(HERE))
    import onnx
    from profile_kernels import graph_stage, profile
    from sweep_depthwise import depthwise_model

    import mlc

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for c, size, s, k in SHAPES:
            path = pathlib.Path(tmp) / "dw.onnx"
            depthwise_model(c, size, s, path, kernel=k)
            module, params = mlc.from_onnx(onnx.load(path))
            mlc.PassManager.parse(graph_stage(1)).run(module, params=params)
            (row,) = [r for r in profile(module, 1) if r.info.category == "dw-conv"]
            o = (size - 1) // s + 1
            out[f"{c}x{size}x{size} s{s} {k}x{k}"] = 2 * c * o * o * k * k / row.seconds / 1e9
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commits", nargs=2, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json-out", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json_out or not args.commits:
        rates = measure()
        if args.json_out:
            print(json.dumps(rates))
        else:
            for name, rate in rates.items():
                print(f"{name:22s} {rate:7.1f} GFLOP/s")
        return 0
    from compare_commits import package_tree

    best: dict[str, dict[str, float]] = {c: {} for c in args.commits}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {}
        for i, commit in enumerate(args.commits):
            (pathlib.Path(tmp) / str(i)).mkdir()
            trees[commit] = package_tree(commit, pathlib.Path(tmp) / str(i))
        for _ in range(args.rounds):
            for commit, tree in trees.items():
                env = dict(os.environ, PYTHONPATH=str(tree), OMP_NUM_THREADS="1")
                cmd = [sys.executable, __file__, "--json-out"]
                done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
                for name, rate in json.loads(done.stdout.splitlines()[-1]).items():
                    best[commit][name] = max(best[commit].get(name, 0.0), rate)
    before, after = args.commits
    print(f"| depthwise conv | {before} GFLOP/s | {after} GFLOP/s |\n|---|---|---|")
    for name in best[before]:
        print(f"| {name} | {best[before][name]:.1f} | {best[after][name]:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
