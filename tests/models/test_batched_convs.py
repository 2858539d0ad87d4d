"""Convs at batch 2 keep the register tiles they have at batch 1 (issue 31, batch 8 against
onnxruntime), compiled by mlc-default for 512-bit vectors and checked against onnxruntime
(rtol 1e-4, atol 1e-4):

- an NCHW grouped 3x3 conv (4 channels per group, vectorized along `ow`) pairs two output rows
  in its register tile, whose inputs overlap in the kernel window, not two images (tp-default-
  schedule's companion axis: of several, the nearest in memory);
- a 1x1 conv + relu at 56x56, whose per-image output outgrows L2, is chunked by whole register
  tiles of output-channel blocks, not by one block (tp-chunk-rows);
- a max pool after a conv (squeezenet's stem: 3x3/2, ceil mode; here padded too) takes its
  taps with one vmaxps each (`fastmax`) on the channel blocks, padding never winning, also
  over all-negative windows."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from mlir import ir

import mlc
from mlc.dialects.walk import walk
from mlc.passes.mlc_default import MlcDefaultPipeline
from mlc.testing import run_compiled

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from helpers.onnx_testing import run_ort  # noqa: E402

BATCH = 2


def conv_relu(cin: int, cout: int, size: int, kernel: int, group: int) -> Any:
    rng = np.random.default_rng(cin + cout + kernel)
    w = (rng.standard_normal((cout, cin // group, kernel, kernel)) * 0.2).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], group=group, pads=[kernel // 2] * 4),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [BATCH, cin, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def conv_schedule(model: Any) -> dict[str, Any]:
    """The conv block's schedule after mlc-default's graph and tp stages (512-bit vectors)."""
    module, params = mlc.from_onnx(model)
    graph, tp = MlcDefaultPipeline(threads=1, vector_bits=512).stages()[:2]
    mlc.PassManager.parse(f"builtin.module({graph},{tp})").run(module, params=params)
    (block,) = [
        op
        for op in walk(module.operation)
        if op.name == "tp.block" and "conv2d" in ir.StringAttr(op.attributes["name"]).value
    ]
    schedule = ir.DictAttr(block.attributes["schedule"])
    unroll = ir.DictAttr(schedule["unroll"])
    return {unroll[i].name: ir.IntegerAttr(unroll[i].attr).value for i in range(len(unroll))}


def check_values(model: Any) -> None:
    cin = model.graph.input[0].type.tensor_type.shape.dim[1].dim_value
    size = model.graph.input[0].type.tensor_type.shape.dim[2].dim_value
    x = np.random.default_rng(5).standard_normal((BATCH, cin, size, size)).astype(np.float32)
    (want,) = run_ort(model, {"x": x})
    module, params = mlc.from_onnx(model)
    mlc.PassManager.parse("builtin.module(mlc-default{vector-bits=512})").run(module, params=params)
    (got,) = run_compiled(module, params, [x])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_grouped_conv_pairs_output_rows_not_images() -> None:
    model = conv_relu(64, 64, 28, 3, 16)
    unroll = conv_schedule(model)
    assert unroll.get("oh.1") == 2 and "n" not in unroll and "n.1" not in unroll, unroll
    check_values(model)


def test_pointwise_conv_chunks_keep_the_register_tile() -> None:
    model = conv_relu(64, 256, 56, 1, 1)
    unroll = conv_schedule(model)
    assert unroll.get("ocb.1") == 2, unroll  # two output-channel blocks per register tile
    check_values(model)


def test_max_pool_on_channel_blocks_takes_fastmax() -> None:
    rng = np.random.default_rng(3)
    w = (rng.standard_normal((32, 3, 3, 3)) * 0.3).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], strides=[2, 2]),
        # no relu: the windows at the border hold negative values only, and -inf pads them
        helper.make_node(
            "MaxPool",
            ["c"],
            ["y"],
            kernel_shape=[3, 3],
            strides=[2, 2],
            pads=[1, 1, 1, 1],
            ceil_mode=1,
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "stem",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [BATCH, 3, 31, 31])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    module, params = mlc.from_onnx(model)
    graph_stage, tp_stage = MlcDefaultPipeline(threads=1, vector_bits=512).stages()[:2]
    mlc.PassManager.parse(f"builtin.module({graph_stage},{tp_stage})").run(module, params=params)
    (pool,) = [
        op
        for op in walk(module.operation)
        if op.name == "tp.block" and "max_pool" in ir.StringAttr(op.attributes["name"]).value
    ]
    assert ir.StringAttr(pool.attributes["combiner"]).value == "fastmax"
    assert "cb" in [ir.StringAttr(a).value for a in ir.ArrayAttr(pool.attributes["axes"])]
    x = -np.abs(rng.standard_normal((BATCH, 3, 31, 31))).astype(np.float32)
    (want,) = run_ort(model, {"x": x})
    module, params = mlc.from_onnx(model)
    mlc.PassManager.parse("builtin.module(mlc-default{vector-bits=512})").run(module, params=params)
    (got,) = run_compiled(module, params, [x])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
