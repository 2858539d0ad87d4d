"""`make demo`: the main job on a bundled default.

Runs the bundled graph-dialect example through a mixed pipeline of mlc and upstream passes
with mlc-opt, and prints the result and the per-pass timing.
"""

from __future__ import annotations

import sys
from importlib import resources

from mlc.opt import _main as mlc_opt

PIPELINE = "builtin.module(graph-verify,mlc-cse,mlc-dce,func.func(canonicalize,cse))"


def main() -> int:
    example = resources.files("mlc").joinpath("examples", "conv_relu.mlir")
    print(f"$ mlc-opt {example.name} --pass-pipeline='{PIPELINE}' --mlir-timing", flush=True)
    return mlc_opt([str(example), f"--pass-pipeline={PIPELINE}", "--mlir-timing"])


if __name__ == "__main__":
    sys.exit(main())
