"""Convolution nets with symbolic batch, height and width (issue 28): each compiled once and run
at several image sizes (1, primes, odd and even) against onnxruntime. The convs here are the
ones whose static schedules decide on sizes: a padded strided stem (its padded copy spans
max(rows, reach)), a 3x3 stride-1 conv Winograd takes when static, a depthwise 5x5 window
(padded copy or bounds-checked reads, by width), a wide pointwise conv (alter-layout flattens
it by pixel count) and trim-padding-taps' atrous conv."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import mlc
from helpers.onnx_models import GraphBuilder
from helpers.onnx_testing import make_model
from mlc.runtime import GraphModule

ort = pytest.importorskip("onnxruntime")

SIZES = [(1, 9, 9), (2, 17, 31), (1, 40, 23)]


def _dynamic(model: onnx.ModelProto, dims: dict[int, str]) -> onnx.ModelProto:
    for axis, name in dims.items():
        dim = model.graph.input[0].type.tensor_type.shape.dim[axis]
        dim.ClearField("dim_value")
        dim.dim_param = name
    for value in model.graph.output:
        value.type.tensor_type.ClearField("shape")
    return model


def _net() -> onnx.ModelProto:
    g = GraphBuilder()
    y = g.op("Conv", "x", g.weight(32, 3, 7, 7), g.const(np.zeros(32)), strides=[2, 2],
             pads=[3, 3, 3, 3])  # fmt: skip
    y = g.op("Relu", y)
    y = g.op("MaxPool", y, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    y = g.op("Conv", y, g.weight(32, 32, 3, 3), g.const(np.zeros(32)), pads=[1, 1, 1, 1])
    y = g.op("Relu", y)
    y = g.op("Conv", y, g.weight(32, 1, 5, 5), pads=[2, 2, 2, 2], group=32)  # depthwise 5x5
    y = g.op("Conv", y, g.weight(256, 32, 1, 1))  # wide pointwise
    y = g.op("Conv", y, g.weight(16, 256, 3, 3), pads=[6, 6, 6, 6], dilations=[6, 6])  # atrous
    y = g.op("GlobalAveragePool", y)
    g.op("Flatten", y)
    g.nodes[-1].output[0] = "y"
    return make_model(g.nodes, {"x": (np.float32, [1, 3, 64, 64])}, ["y"], g.consts)


@pytest.mark.parametrize(
    "dims", [{0: "batch"}, {0: "batch", 2: "height", 3: "width"}], ids=["batch", "batch_hw"]
)
def test_conv_net_compiled_once_runs_at_every_image_size(dims: dict[int, str]) -> None:
    model = _dynamic(_net(), dims)
    module, params = mlc.from_onnx(model, symbolic_dims=True)
    gm = GraphModule(mlc.build(module, params).jit())
    session = ort.InferenceSession(model.SerializeToString())
    for batch, h, w in SIZES if len(dims) > 1 else [(1, 64, 64), (3, 64, 64)]:
        x = np.random.default_rng(h * w).standard_normal((batch, 3, h, w)).astype(np.float32)
        gm.run(x=x)
        (want,) = session.run(None, {"x": x})
        got = gm.get_output(0)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=f"{x.shape}")
