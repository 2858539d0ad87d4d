"""Write small ONNX models of the vision ops for the frontend lit tests (same usage and model
helpers as onnx_make_model.py: `onnx_make_vision_model.py <case> <out.onnx> ...`)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np
import onnx
from onnx_make_model import F32, I64, model, n, w

CASES: dict[str, Callable[[], onnx.ModelProto]] = {}


def case(fn: Callable[[], onnx.ModelProto]) -> Callable[[], onnx.ModelProto]:
    CASES[fn.__name__] = fn
    return fn


@case
def conv_transpose() -> onnx.ModelProto:
    return model(
        [n("ConvTranspose", ["x", "w", "b"], ["y"], strides=[2, 2], pads=[1, 1, 1, 1])],
        {"x": (F32, [1, 4, 5, 5])},
        ["y"],
        {"w": w(4, 2, 3, 3), "b": w(2)},
        opset=17,
    )


@case
def resize() -> onnx.ModelProto:
    roi = np.array([], np.float32)
    return model(
        [
            n(
                "Resize",
                ["x", "roi", "twice"],
                ["near"],
                mode="nearest",
                coordinate_transformation_mode="asymmetric",
                nearest_mode="floor",
            ),
            n("Resize", ["near", "roi", "", "sizes"], ["y"], mode="linear"),
        ],
        {"x": (F32, [1, 2, 3, 4])},
        ["y"],
        {"roi": roi, "twice": np.array([1, 1, 2, 2], np.float32), "sizes": np.array([1, 2, 5, 8])},
        opset=19,
    )


@case
def topk() -> onnx.ModelProto:
    return model(
        [n("TopK", ["x", "k"], ["values", "indices"], axis=1, largest=0)],
        {"x": (F32, [2, 10])},
        ["values", "indices"],
        {"k": np.array([3], np.int64)},
        opset=11,
    )


@case
def rearrange() -> onnx.ModelProto:
    return model(
        [
            n("DepthToSpace", ["x"], ["d2s"], blocksize=2, mode="CRD"),
            n("SpaceToDepth", ["d2s"], ["s2d"], blocksize=2),
            n("CenterCropPad", ["s2d", "shape"], ["y"], axes=[2, 3]),
        ],
        {"x": (F32, [1, 8, 3, 3])},
        ["y"],
        {"shape": np.array([2, 5], np.int64)},
        opset=18,
    )


@case
def sampling() -> onnx.ModelProto:
    return model(
        [
            n("GridSample", ["x", "grid"], ["g"], mode="bicubic", padding_mode="border"),
            n(
                "RoiAlign",
                ["g", "rois", "batch"],
                ["y"],
                output_height=2,
                output_width=2,
                sampling_ratio=2,
                mode="max",
            ),
        ],
        {
            "x": (F32, [1, 2, 6, 6]),
            "grid": (F32, [1, 4, 4, 2]),
            "rois": (F32, [3, 4]),
            "batch": (I64, [3]),
        },
        ["y"],
        opset=16,
    )


@case
def pools3d() -> onnx.ModelProto:
    return model(
        [
            n("MaxPool", ["x"], ["max"], kernel_shape=[2, 2, 2], strides=[2, 2, 2]),
            n("LpPool", ["max"], ["lp"], kernel_shape=[2, 1, 2], p=3),
            n("Conv", ["lp", "w"], ["y"], pads=[1, 0, 1, 1, 0, 1]),
        ],
        {"x": (F32, [1, 2, 6, 6, 6])},
        ["y"],
        {"w": w(4, 2, 3, 1, 3)},
        opset=18,
    )


def main(argv: list[str]) -> int:
    if argv == ["--list"]:
        print("\n".join(CASES))
        return 0
    if not argv or len(argv) % 2:
        sys.stderr.write("usage: onnx_make_vision_model.py <case> <out.onnx> ... | --list\n")
        return 2
    for name, path in zip(argv[::2], argv[1::2]):
        onnx.save(CASES[name](), path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
