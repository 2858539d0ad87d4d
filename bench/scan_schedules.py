"""Which tp blocks of a model run without vectors? (issue #31 item 2: no scalar fallback on
any conv of a real model.) Runs mlc-default's graph and schedule stages only (no LLVM), so a
whole suite takes a minute or two.

    python bench/scan_schedules.py                      # the light zoo and the bench models
    python bench/scan_schedules.py model.onnx --min-iterations 1000

Prints, per model, the blocks whose schedule has no vectorized loop and at least
`--min-iterations` iterations (kernel, block, extents); a last line counts them.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import sys

import onnx

from mlc.dialects.tp import BlockView
from mlc.dialects.walk import walk
from mlc.frontend import from_onnx
from mlc.passes.mlc_default import MlcDefaultPipeline
from mlc.passes.pass_manager import PassManager

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import modern_models  # noqa: E402


def default_models() -> list[pathlib.Path]:
    light = pathlib.Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
    built = [modern_models.model_path(name) for name in modern_models.MODELS]
    return sorted(light.glob("*.onnx")) + [p for p in built if p.exists()]


def scalar_blocks(path: pathlib.Path, threads: int, least: int) -> list[tuple[str, str, list]]:
    module, params = from_onnx(onnx.load(str(path)))
    graph, schedule, _ = MlcDefaultPipeline(threads=threads).stages()
    PassManager.parse(f"builtin.module({graph},{schedule})").run(module, params=dict(params))
    found = []
    for kernel in walk(module.operation):
        if kernel.name != "func.func" or "tp.kernel" not in kernel.attributes:
            continue
        name = str(kernel.attributes["sym_name"]).strip('"')
        for op in walk(kernel):
            if op.name != "tp.block":
                continue
            view = BlockView(op)
            if not view.schedule.vectorize and math.prod(max(e, 1) for e in view.extents) >= least:
                found.append((name, view.name, view.extents))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", type=pathlib.Path)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--min-iterations", type=int, default=10_000)
    args = parser.parse_args()
    total = 0
    for path in args.models or default_models():
        found = scalar_blocks(path, args.threads, args.min_iterations)
        total += len(found)
        print(f"{path.name}: {len(found)} block(s) without vectors", flush=True)
        for kernel, block, extents in found:
            print(f"    {kernel} / {block} {extents}")
    print(f"{total} block(s) of >= {args.min_iterations} iterations without vectors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
