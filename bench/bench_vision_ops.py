"""mlc vs onnxruntime latency of single vision nodes (1 thread, one run).

    python bench/bench_vision_ops.py                          # every case
    python bench/bench_vision_ops.py conv_transpose resize    # cases whose name contains a word

Each case is one ONNX node on random inputs (weights, scales and K are initializers, as in
an exported model). Both peers stay loaded and are timed in alternating rounds; the figure is
the median of all timed calls and the ratio is onnxruntime / mlc (> 1: mlc faster).
onnxruntime runs with ORT_ENABLE_ALL on one thread.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from peers import run_single_ops

RNG = np.random.default_rng(0)
Feeds = dict[str, np.ndarray]
Case = tuple[onnx.ModelProto, Feeds]


def _model(node: onnx.NodeProto, feeds: Feeds, consts: Feeds, opset: int) -> onnx.ModelProto:
    types = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64}
    graph = helper.make_graph(
        [node],
        "bench",
        [helper.make_tensor_value_info(k, types[v.dtype], v.shape) for k, v in feeds.items()],
        [helper.make_empty_tensor_value_info(o) for o in node.output],
        [numpy_helper.from_array(v, k) for k, v in consts.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _rand(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def conv_transpose_k4s2() -> Case:
    """A decoder's 2x upsampling: 256 -> 128 channels, 32x32 -> 64x64."""
    x, w, b = _rand(1, 256, 32, 32), _rand(256, 128, 4, 4, scale=0.05), _rand(128)
    node = helper.make_node(
        "ConvTranspose", ["x", "w", "b"], ["y"], strides=[2, 2], pads=[1, 1, 1, 1]
    )
    return _model(node, {"x": x}, {"w": w, "b": b}, 17), {"x": x}


def conv_transpose_k3s2_19() -> Case:
    """An SSD-style 19x19 -> 38x38 (kernel 3, output_padding 1)."""
    x, w = _rand(1, 128, 19, 19), _rand(128, 64, 3, 3, scale=0.05)
    node = helper.make_node(
        "ConvTranspose",
        ["x", "w"],
        ["y"],
        strides=[2, 2],
        pads=[1, 1, 1, 1],
        output_padding=[1, 1],
    )
    return _model(node, {"x": x}, {"w": w}, 17), {"x": x}


def _resize(mode: str) -> Callable[[], Case]:
    def case() -> Case:
        x = _rand(1, 256, 40, 40)
        consts = {"roi": np.zeros(0, np.float32), "scales": np.array([1, 1, 2, 2], np.float32)}
        node = helper.make_node("Resize", ["x", "roi", "scales"], ["y"], mode=mode)
        return _model(node, {"x": x}, consts, 19), {"x": x}

    case.__name__ = f"resize_{mode}_2x"
    return case


def _topk(n: int, k: int) -> Callable[[], Case]:
    def case() -> Case:
        x = _rand(1, n)
        node = helper.make_node("TopK", ["x", "k"], ["values", "indices"])
        return _model(node, {"x": x}, {"k": np.array([k], np.int64)}, 11), {"x": x}

    case.__name__ = f"topk_{n}_{k}"
    return case


def grid_sample_bilinear() -> Case:
    x, grid = _rand(1, 64, 64, 64), RNG.uniform(-1, 1, (1, 64, 64, 2)).astype(np.float32)
    node = helper.make_node("GridSample", ["x", "grid"], ["y"], mode="linear")
    return _model(node, {"x": x, "grid": grid}, {}, 20), {"x": x, "grid": grid}


def roi_align() -> Case:
    x = _rand(1, 256, 50, 50)
    corners = np.sort(RNG.uniform(0, 400, (100, 2, 2)), axis=1)  # [x1, y1], [x2, y2]
    rois = corners.reshape(100, 4).astype(np.float32)
    batch = np.zeros(100, np.int64)
    node = helper.make_node(
        "RoiAlign",
        ["x", "rois", "batch"],
        ["y"],
        output_height=7,
        output_width=7,
        sampling_ratio=2,
        spatial_scale=0.125,
    )
    feeds = {"x": x, "rois": rois, "batch": batch}
    return _model(node, feeds, {}, 16), feeds


def conv3d() -> Case:
    x, w = _rand(1, 32, 16, 32, 32), _rand(32, 32, 3, 3, 3, scale=0.05)
    node = helper.make_node("Conv", ["x", "w"], ["y"], pads=[1] * 6)
    return _model(node, {"x": x}, {"w": w}, 17), {"x": x}


CASES: dict[str, Callable[[], Case]] = {
    f.__name__: f
    for f in (
        conv_transpose_k4s2,
        conv_transpose_k3s2_19,
        _resize("nearest"),
        _resize("linear"),
        _resize("cubic"),
        _topk(8732, 200),
        _topk(1000, 5),
        grid_sample_bilinear,
        roi_align,
        conv3d,
    )
}


def main(argv: list[str]) -> int:
    return run_single_ops(CASES, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
