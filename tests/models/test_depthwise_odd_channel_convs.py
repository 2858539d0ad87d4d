"""Depthwise convs (3x3 and 5x5, stride 1 and 2) and convs whose channel counts no layout
block divides (3, 12, 24, 40, 58, 72, 88), each with a bias + activation epilogue, compiled by
mlc-default with 8- and 16-channel blocks against onnxruntime (rtol 1e-4, atol 1e-4). The graph
stage shows how they run: every conv blocked (channels padded up to the block where none
divides them), depthwise ones as a single fused kernel."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from mlir import ir

import mlc
from mlc.dialects.walk import walk
from mlc.testing import run_compiled

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from helpers.onnx_testing import run_ort  # noqa: E402

pytestmark = pytest.mark.slow

SIZE = 14


def conv_model(cin: int, cout: int, kernel: int, stride: int, group: int, act: str) -> Any:
    """Conv(+bias) then an activation (Relu, or Clip 0..6 as MobileNets' ReLU6)."""
    rng = np.random.default_rng(cin * 1000 + cout + kernel + stride)
    w = (rng.standard_normal((cout, cin // group, kernel, kernel)) * 0.3).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32)
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
    pad = kernel // 2
    nodes = [
        helper.make_node(
            "Conv",
            ["x", "w", "b"],
            ["c"],
            group=group,
            kernel_shape=[kernel, kernel],
            pads=[pad] * 4,
            strides=[stride, stride],
        ),  # fmt: skip
    ]
    if act == "relu6":
        bounds = {"lo": 0.0, "hi": 6.0}
        inits += [numpy_helper.from_array(np.array(v, np.float32), n) for n, v in bounds.items()]
        nodes.append(helper.make_node("Clip", ["c", "lo", "hi"], ["y"]))
    else:
        nodes.append(helper.make_node("Relu", ["c"], ["y"]))
    graph = helper.make_graph(
        nodes,
        "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, SIZE, SIZE])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _check(model: Any, block: int) -> ir.Module:
    """Compile with `block`-channel layouts, compare with onnxruntime; the graph stage."""
    cin = model.graph.input[0].type.tensor_type.shape.dim[1].dim_value
    x = np.random.default_rng(3).standard_normal((1, cin, SIZE, SIZE)).astype(np.float32)
    (want,) = run_ort(model, {"x": x})
    bits = 32 * block
    module, params = mlc.from_onnx(model)
    staged = ir.Module.parse(str(module), module.context)
    table = dict(params)
    mlc.PassManager.parse(
        f"builtin.module(mlc-default{{layout-block={block} vector-bits={bits}}})"
    ).run(module, params=table)
    (got,) = run_compiled(module, table, [x])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    stage = mlc.PassManager.parse(
        "builtin.module(graph-verify,graph-simplify,graph-fold-constants,"
        f"graph-alter-layout{{block={block}}},graph-simplify,graph-fold-constants,mlc-cse,"
        "mlc-dce,graph-fuse)"
    )
    stage.run(staged, params=dict(params))
    return staged


def _convs(module: ir.Module) -> list[ir.Operation]:
    return [op for op in walk(module.operation) if op.name == "graph.conv2d"]


@pytest.mark.parametrize("channels", [32, 40, 58])
@pytest.mark.parametrize("kernel, stride", [(3, 1), (3, 2), (5, 1), (5, 2)])
def test_depthwise_conv_runs_blocked(channels: int, kernel: int, stride: int) -> None:
    """32 and 40 channels divide an 8-channel block, 58 none (padded to 64)."""
    model = conv_model(channels, channels, kernel, stride, channels, "relu6")
    staged = _check(model, 8)
    (conv,) = _convs(staged)
    assert str(conv.attributes["out_layout"]) == '"NCHW8c"'
    padded = -(-channels // 8) * 8
    assert ir.IntegerAttr(conv.attributes["group"]).value == padded


@pytest.mark.parametrize(
    "cin, cout, kernel, stride",
    [(3, 12, 3, 2), (12, 12, 3, 1), (24, 40, 3, 1), (40, 72, 5, 2), (58, 58, 3, 1), (72, 88, 1, 1)],
)
def test_odd_channel_conv_runs_blocked(cin: int, cout: int, kernel: int, stride: int) -> None:
    """With 16-channel blocks: 24, 40, 72 and 88 take 8-channel blocks, 3 input channels one
    block of 3, 12 and 58 channels are padded up to 16 (64); no conv but the flattened
    pointwise one stays NCHW."""
    staged = _check(conv_model(cin, cout, kernel, stride, 1, "relu"), 16)
    (conv,) = _convs(staged)
    layout = str(conv.attributes["out_layout"])
    if layout == '"NCHW"':  # only a pointwise conv on its flattened pixels (a GEMM)
        assert kernel == 1 and ir.RankedTensorType(conv.operands[0].type).shape[2] == 1
    else:
        assert layout in ('"NCHW16c"', '"NCHW8c"'), layout


def se_model(channels: int, squeezed: int) -> Any:
    """A squeeze-excite block as RegNet-Y writes it: mean over H, W; 1x1 conv to `squeezed`
    channels (which no block divides), ReLU, 1x1 conv back, Sigmoid, times the input."""
    rng = np.random.default_rng(squeezed)
    inits = [
        numpy_helper.from_array(a.astype(np.float32), name)
        for name, a in (
            ("w1", rng.standard_normal((squeezed, channels, 1, 1)) * 0.1),
            ("b1", rng.standard_normal(squeezed)),
            ("w2", rng.standard_normal((channels, squeezed, 1, 1)) * 0.3),
            ("b2", rng.standard_normal(channels)),
        )
    ]
    nodes = [
        helper.make_node("GlobalAveragePool", ["x"], ["m"]),
        helper.make_node("Conv", ["m", "w1", "b1"], ["s"]),
        helper.make_node("Relu", ["s"], ["r"]),
        helper.make_node("Conv", ["r", "w2", "b2"], ["e"]),
        helper.make_node("Sigmoid", ["e"], ["g"]),
        helper.make_node("Mul", ["x", "g"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "se",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, SIZE, SIZE])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_squeeze_excite_convs_to_odd_channels_run_blocked() -> None:
    """208 -> 26 -> 208 channels on one pixel (RegNet-Y 400MF): both 1x1 convs are padded
    (26 -> 32 output channels, then 32 input channels) and run NCHW8c."""
    staged = _check(se_model(208, 26), 8)
    layouts = [str(op.attributes["out_layout"]) for op in _convs(staged)]
    assert layouts == ['"NCHW8c"', '"NCHW8c"'], layouts
