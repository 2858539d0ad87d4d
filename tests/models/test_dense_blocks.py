"""DenseNet-style layers: the concatenated features go through BatchNorm + ReLU before the
next conv (pre-activation). mlc-default fuses the concat with that epilogue; the kernel writes
each input's part of the result once, with the epilogue applied (graph-to-tp's concat kernel
form), instead of copying the inputs into a temporary and then passing over it again.
Checked against onnxruntime (rtol 1e-4, atol 1e-4) at batch 2, NCHW16c blocks (512-bit
vectors), with inputs whose channel counts put some offsets inside a 16-channel block."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from mlir import ir

import mlc
from mlc.dialects.walk import walk
from mlc.passes.mlc_default import MlcDefaultPipeline
from mlc.runtime import GraphModule
from mlc.testing import run_compiled

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from helpers.onnx_testing import run_ort  # noqa: E402

BATCH, SIZE = 2, 10


def dense_layer(widths: list[int], out: int, batch: int | str = BATCH) -> Any:
    """concat(x_0 .. x_k) -> BatchNorm -> ReLU -> 1x1 conv -> ReLU, every x_i from a 3x3 conv
    of the input (so the concat's inputs are kernel results, as in a dense block)."""
    rng = np.random.default_rng(sum(widths) + out)
    total = sum(widths)
    inits, nodes, pieces = [], [], []
    for k, width in enumerate(widths):
        w = (rng.standard_normal((width, 16, 3, 3)) * 0.2).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"w{k}"))
        nodes.append(helper.make_node("Conv", ["x", f"w{k}"], [f"p{k}"], pads=[1] * 4))
        pieces.append(f"p{k}")
    for name, value in (
        ("scale", rng.uniform(0.5, 1.5, total)),
        ("shift", rng.standard_normal(total)),
        ("mean", rng.standard_normal(total) * 0.1),
        ("var", rng.uniform(0.5, 2.0, total)),
    ):
        inits.append(numpy_helper.from_array(value.astype(np.float32), name))
    w = (rng.standard_normal((out, total, 1, 1)) * 0.2).astype(np.float32)
    inits.append(numpy_helper.from_array(w, "wc"))
    nodes += [
        helper.make_node("Concat", pieces, ["cat"], axis=1),
        helper.make_node("BatchNormalization", ["cat", "scale", "shift", "mean", "var"], ["bn"]),
        helper.make_node("Relu", ["bn"], ["act"]),
        helper.make_node("Conv", ["act", "wc"], ["c"]),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "dense_layer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 16, SIZE, SIZE])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def concat_kernel_blocks(model: Any) -> list[str]:
    """The names of the tp blocks of the kernel that holds the concat (mlc-default, 512 bits)."""
    module, params = mlc.from_onnx(model)
    graph, tp = MlcDefaultPipeline(threads=1, vector_bits=512).stages()[:2]
    mlc.PassManager.parse(f"builtin.module({graph},{tp})").run(module, params=params)
    (kernel,) = [
        op
        for op in walk(module.operation)
        if op.name == "func.func" and "concat" in ir.StringAttr(op.attributes["sym_name"]).value
    ]
    return [
        ir.StringAttr(op.attributes["name"]).value for op in walk(kernel) if op.name == "tp.block"
    ]


@pytest.mark.parametrize("widths", [[32, 16, 16], [16, 8, 24]])
def test_concat_with_pre_activation_matches_onnxruntime(widths: list[int]) -> None:
    model = dense_layer(widths, 32)
    x = np.random.default_rng(3).standard_normal((BATCH, 16, SIZE, SIZE)).astype(np.float32)
    (want,) = run_ort(model, {"x": x})
    module, params = mlc.from_onnx(model)
    mlc.PassManager.parse("builtin.module(mlc-default{vector-bits=512})").run(module, params=params)
    (got,) = run_compiled(module, params, [x])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_concat_applies_its_epilogue_per_input() -> None:
    """One block per input writing the output, no copy into a temporary and second pass."""
    blocks = concat_kernel_blocks(dense_layer([32, 16, 16], 32))
    assert blocks == ["concat_0", "concat_1", "concat_2"], blocks


def test_concat_with_pre_activation_on_a_run_time_batch() -> None:
    """Compiled once with a symbolic batch (the blocks' batch extent known at run time only),
    run at batch 1 and 3."""
    model = dense_layer([16, 8, 24], 32, batch="batch")
    module, params = mlc.from_onnx(model, symbolic_dims=True)
    gm = GraphModule(mlc.build(module, params).jit())
    for batch in (1, 3):
        x = np.random.default_rng(batch).standard_normal((batch, 16, SIZE, SIZE))
        x = x.astype(np.float32)
        (want,) = run_ort(model, {"x": x})
        gm.set_input(0, x)
        gm.run()
        np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-4, atol=1e-4)


def transition(bias: bool, kernel: int = 2) -> Any:
    """BatchNorm -> ReLU -> 1x1 conv (16 -> 8 channels) -> average pool, stride = kernel."""
    rng = np.random.default_rng(7)
    inits = [
        numpy_helper.from_array(v.astype(np.float32), name)
        for name, v in (
            ("scale", rng.uniform(0.5, 1.5, 16)),
            ("shift", rng.standard_normal(16)),
            ("mean", rng.standard_normal(16) * 0.1),
            ("var", rng.uniform(0.5, 2.0, 16)),
            ("w", rng.standard_normal((8, 16, 1, 1)) * 0.3),
            ("b", rng.standard_normal(8)),
        )
    ]
    conv_inputs = ["act", "w", "b"] if bias else ["act", "w"]
    nodes = [
        helper.make_node("BatchNormalization", ["x", "scale", "shift", "mean", "var"], ["bn"]),
        helper.make_node("Relu", ["bn"], ["act"]),
        helper.make_node("Conv", conv_inputs, ["c"]),
        helper.make_node(
            "AveragePool", ["c"], ["y"], kernel_shape=[kernel] * 2, strides=[kernel] * 2
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "transition",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [BATCH, 16, SIZE, SIZE])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("kernel", [2, 3])
def test_transition_pools_before_its_conv(bias: bool, kernel: int) -> None:
    """graph-simplify runs the 1x1 conv on the pooled pixels; values as onnxruntime's (a 3x3
    pool of stride 3 on 10x10 drops the last row and column: floor rounding)."""
    model = transition(bias, kernel)
    module, params = mlc.from_onnx(model)
    mlc.PassManager.parse("builtin.module(graph-simplify)").run(module, params=params)
    (conv,) = [op for op in walk(module.operation) if op.name == "graph.conv2d"]
    out = SIZE // kernel
    assert ir.RankedTensorType(conv.operands[0].type).shape == [BATCH, 16, out, out]
    x = np.random.default_rng(4).standard_normal((BATCH, 16, SIZE, SIZE)).astype(np.float32)
    (want,) = run_ort(model, {"x": x})
    module, params = mlc.from_onnx(model)
    mlc.PassManager.parse("builtin.module(mlc-default{vector-bits=512})").run(module, params=params)
    (got,) = run_compiled(module, params, [x])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
