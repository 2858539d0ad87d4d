"""Depthwise 3x3 convs: the default schedule against a grid of the tuner's space (1 thread).

    python bench/sweep_depthwise.py            # six MobileNet/EfficientNet-sized convs

Each conv (bias + ReLU6 after it, between two 1x1 convs so that it runs blocked as in a model)
is extracted as a tuning task; its default point and every point with one channel block per
tile, 16 lanes and `tile_oh` 1 or 2 are built and timed by the tuner's LocalRunner (fastest of
15 samples). Printed: the default's GFLOP/s and the six best points' `tile_oh`, `tile_ow` and
`unroll_kw`. It is how the depthwise register tile of tp-default-schedule was chosen.
"""

from __future__ import annotations

import pathlib
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from mlc.frontend import from_onnx
from mlc.tuner.measure import MeasureOptions
from mlc.tuner.runner import Candidate, LocalRunner
from mlc.tuner.task import extract_tasks

SHAPES = [(96, 56, 1), (144, 56, 2), (32, 112, 1), (384, 14, 1), (960, 7, 1), (240, 28, 1)]
"""(channels, input size, stride)."""


def depthwise_model(
    channels: int, size: int, stride: int, path: pathlib.Path, kernel: int = 3
) -> int:
    """Write the model (a `kernel` x `kernel` depthwise conv); return its FLOPs."""
    rng = np.random.default_rng(0)
    consts = {
        "w": rng.standard_normal((channels, 1, kernel, kernel)),
        "b": np.zeros(channels),
        "w1": rng.standard_normal((channels, channels, 1, 1)) * 0.1,
        "lo": np.array(0.0),
        "hi": np.array(6.0),
    }
    nodes = [
        helper.make_node("Conv", ["x0", "w1"], ["x"]),
        helper.make_node(
            "Conv",
            ["x", "w", "b"],
            ["y"],
            group=channels,
            kernel_shape=[kernel, kernel],
            pads=[kernel // 2] * 4,
            strides=[stride, stride],
        ),  # fmt: skip
        helper.make_node("Clip", ["y", "lo", "hi"], ["z"]),
        helper.make_node("Conv", ["z", "w1"], ["out"]),
    ]
    out = (size - 1) // stride + 1
    graph = helper.make_graph(
        nodes,
        "depthwise",
        [helper.make_tensor_value_info("x0", TensorProto.FLOAT, [1, channels, size, size])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, channels, out, out])],
        [numpy_helper.from_array(v.astype(np.float32), k) for k, v in consts.items()],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return 2 * channels * out * out * kernel * kernel


def _in_grid(config: dict[str, object], default: dict[str, object]) -> bool:
    """One channel block of 16 lanes per tile, 1 or 2 rows, no kh unroll, default parallelism."""
    return (
        config.get("tile_oh") in ((1,), (2,))
        and config.get("tile_ocb", (1,)) == (1,)
        and config.get("tile_oc") == 16
        and config.get("unroll_kh") == 1
        and config.get("parallel") == default.get("parallel")
    )


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp, LocalRunner(MeasureOptions(repeat=15)) as runner:
        for channels, size, stride in SHAPES:
            path = pathlib.Path(tmp) / f"dw_{channels}_{size}_{stride}.onnx"
            flops = depthwise_model(channels, size, stride, path)
            module, params = from_onnx(path)
            task = next(t for t in extract_tasks(module, params) if "clip" in t.kernel)
            space, default = task.space, task.space.get(task.default_index)
            grid = [i for i in range(len(space)) if _in_grid(space.get(i), default)]
            picks = list(dict.fromkeys([task.default_index, *grid]))
            results = runner.measure(task, [Candidate.of(task, i) for i in picks])
            timed = sorted((r.cost, i) for i, r in zip(picks, results) if r is not None and r.ok)
            mine = next(c for c, i in timed if i == task.default_index)
            print(
                f"{channels} ch {size}x{size} s{stride}: default {flops / mine / 1e9:6.1f} GFLOP/s"
            )
            for cost, i in timed[:6]:
                keys = ("tile_oh", "tile_ow", "unroll_kw")
                config = {k: v for k, v in space.get(i).items() if k in keys}
                print(f"    {flops / cost / 1e9:6.1f} GFLOP/s {config}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
