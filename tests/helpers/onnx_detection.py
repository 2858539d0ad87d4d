"""An SSD/FPN-like detection head built with onnx.helper: strided convs, a top-down pathway
(Resize upsampling, channel concatenation, ConvTranspose), class and box heads, and TopK over
the scores with a Gather of the selected boxes."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

from helpers.onnx_models import GraphBuilder

ANCHORS, CLASSES = 2, 3


def _conv(g: GraphBuilder, x: str, cin: int, cout: int, k: int, stride: int = 1) -> str:
    w, b = g.weight(cout, cin, k, k), g.const(g.rng.normal(0, 0.1, cout))
    pads = [k // 2] * 4
    return g.op("Conv", x, w, b, kernel_shape=[k, k], strides=[stride] * 2, pads=pads)


def _resize(g: GraphBuilder, x: str, scale: float, mode: str) -> str:
    roi, scales = g.const([], np.float32), g.const([1, 1, scale, scale], np.float32)
    return g.op("Resize", x, roi, scales, mode=mode, coordinate_transformation_mode="half_pixel")


def detection_head(k: int = 20, size: int = 48, opset: int = 13) -> onnx.ModelProto:
    """image [1, 3, size, size] -> (top-k scores [1, k], their indices [1, k], boxes [1, k, 4])."""
    g = GraphBuilder(seed=7)
    c1 = g.op("Relu", _conv(g, "image", 3, 16, 3, stride=2))  # size / 2
    c2 = g.op("Relu", _conv(g, c1, 16, 32, 3, stride=2))  # size / 4
    c3 = g.op("Relu", _conv(g, c2, 32, 48, 3, stride=2))  # size / 8
    # top-down: nearest 2x of the coarsest map next to the middle one
    p2 = g.op("Concat", _resize(g, c3, 2.0, "nearest"), c2, axis=1)  # 80 channels
    w_up = g.weight(80, 24, 4, 4, scale=0.05)
    up = g.op("ConvTranspose", p2, w_up, strides=[2, 2], pads=[1, 1, 1, 1])  # size / 2
    up = g.op("Relu", up)
    # the coarsest map again, bilinear 4x, beside the transposed-conv output and c1
    p1 = g.op("Concat", up, _resize(g, c3, 4.0, "linear"), c1, axis=1)  # 24 + 48 + 16 = 88
    cells = (size // 2) ** 2
    scores = g.op("Sigmoid", _conv(g, p1, 88, ANCHORS * CLASSES, 3))
    flat = g.op("Reshape", scores, g.const([1, -1], np.int64))  # [1, cells * A * C]
    g.count += 1
    name = f"/TopK_{g.count}"
    values, indices = f"topk_{g.count}_0", f"topk_{g.count}_1"
    g.nodes.append(
        helper.make_node("TopK", [flat, g.const([k], np.int64)], [values, indices], name=name)
    )
    boxes = _conv(g, p1, 88, ANCHORS * 4, 3)  # [1, A * 4, h, w]
    boxes = g.op("Reshape", boxes, g.const([1, ANCHORS, 4, cells], np.int64))
    boxes = g.op("Transpose", boxes, perm=[0, 3, 1, 2])  # [1, cells, A, 4]
    boxes = g.op("Reshape", boxes, g.const([1, cells * ANCHORS, 4], np.int64))
    # score index -> its box: cell and anchor of (anchor * classes + class) * cells + cell
    cell = g.op("Mod", indices, g.const(cells, np.int64))
    anchor = g.op("Div", indices, g.const(cells * CLASSES, np.int64))
    box_index = g.op("Add", g.op("Mul", cell, g.const(ANCHORS, np.int64)), anchor)
    picked = g.op("Gather", boxes, g.op("Squeeze", box_index, g.const([0], np.int64)), axis=1)
    graph = helper.make_graph(
        g.nodes,
        "detection_head",
        [helper.make_tensor_value_info("image", onnx.TensorProto.FLOAT, [1, 3, size, size])],
        [
            helper.make_tensor_value_info(values, onnx.TensorProto.FLOAT, None),
            helper.make_tensor_value_info(indices, onnx.TensorProto.INT64, None),
            helper.make_tensor_value_info(picked, onnx.TensorProto.FLOAT, None),
        ],
        [numpy_helper.from_array(v, n) for n, v in g.consts.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
