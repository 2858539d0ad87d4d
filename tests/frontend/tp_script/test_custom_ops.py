"""Hand-written tp kernels inside models: a custom-domain ONNX op and a standard one implemented
by tp script functions, compiled by mlc.build, run by JIT and from an exported package."""

from __future__ import annotations

import pathlib

import numpy as np
import onnx
import pytest
from mlir import ir
from onnx import TensorProto, helper

import mlc
from helpers.cli import assert_clean_failure, run_cli
from mlc import tp as T
from mlc.errors import MlcError
from mlc.runtime import GraphModule, load_module


@T.script
def channel_scale(
    X: T.Buffer((1, 4, 6, 6), "float32"),
    S: T.Buffer((4,), "float32"),
    Y: T.Buffer((1, 4, 6, 6), "float32"),
):
    for n, c, h, w in T.grid(1, 4, 6, 6):
        with T.block("Y"):
            vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
            Y[vn, vc, vh, vw] = X[vn, vc, vh, vw] * S[vc] + T.float32(0.5)


@T.script
def clipped_relu(X: T.Buffer((1, 4, 6, 6), "float32"), Y: T.Buffer((1, 4, 6, 6), "float32")):
    for n, c, h, w in T.grid(1, 4, 6, 6):
        with T.block("Y"):
            vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
            Y[vn, vc, vh, vw] = T.min(T.max(X[vn, vc, vh, vw], 0.0), 1.0)


RNG = np.random.default_rng(0)
W = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
SCALE = np.array([1.0, -2.0, 0.5, 3.0], np.float32)


def _model() -> onnx.ModelProto:
    """Conv (mlc) -> ScaleShift (com.example, the tp kernel) -> Relu -> Conv."""
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("ChannelScale", ["c", "s"], ["t"], domain="com.example"),
        helper.make_node("Relu", ["t"], ["r"]),
        helper.make_node("Conv", ["r", "w2"], ["y"], pads=[1, 1, 1, 1]),
    ]
    w2 = RNG.standard_normal((2, 4, 3, 3)).astype(np.float32)
    graph = helper.make_graph(
        nodes,
        "custom",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 6, 6])],
        [
            onnx.numpy_helper.from_array(W, "w"),
            onnx.numpy_helper.from_array(SCALE, "s"),
            onnx.numpy_helper.from_array(w2, "w2"),
        ],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)]
    return helper.make_model(graph, opset_imports=opsets)


def _conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((1, w.shape[0], 6, 6), np.float64)
    for kh in range(3):
        for kw in range(3):
            out += np.einsum("nchw,oc->nohw", xp[:, :, kh : kh + 6, kw : kw + 6], w[:, :, kh, kw])
    return out


def _run(lib: object, x: np.ndarray) -> np.ndarray:
    gm = GraphModule(lib)
    gm.set_input(0, x)
    gm.run()
    return gm.get_output(0)


@pytest.fixture
def registered() -> object:
    T.register_onnx_op("ChannelScale", channel_scale, domain="com.example")
    yield
    T.unregister_onnx_op("ChannelScale", domain="com.example")


def test_custom_domain_op_in_a_package(registered: object, tmp_path: pathlib.Path) -> None:
    model = _model()
    module, params = mlc.from_onnx(model)
    assert "tp.impl = @tp_channel_scale" in str(module)
    lib = mlc.build(module, params)
    x = RNG.standard_normal((1, 3, 6, 6)).astype(np.float32)
    t = _conv(x, W) * SCALE[None, :, None, None] + 0.5
    w2 = onnx.numpy_helper.to_array(model.graph.initializer[2])
    ref = _conv(np.maximum(t, 0), w2)
    np.testing.assert_allclose(_run(lib.jit(), x), ref, rtol=1e-4, atol=1e-4)
    lib.export_library(tmp_path / "m.tar")
    np.testing.assert_allclose(_run(load_module(tmp_path / "m.tar"), x), ref, rtol=1e-4, atol=1e-4)


def test_standard_op_replaced_by_a_tp_kernel() -> None:
    nodes = [helper.make_node("Relu", ["x"], ["y"])]
    graph = helper.make_graph(
        nodes,
        "relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 6, 6])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    T.register_onnx_op("Relu", clipped_relu)
    try:
        module, params = mlc.from_onnx(model)
    finally:
        T.unregister_onnx_op("Relu")
    x = RNG.standard_normal((1, 4, 6, 6)).astype(np.float32) * 2
    np.testing.assert_array_equal(_run(mlc.build(module, params).jit(), x), np.clip(x, 0, 1))
    assert "graph.relu" in str(mlc.from_onnx(model)[0])  # mlc's converter once unregistered


def test_mismatched_kernel_names_node_and_kernel() -> None:
    T.register_onnx_op("ChannelScale", clipped_relu, domain="com.example")
    try:
        with pytest.raises(MlcError) as info:
            mlc.from_onnx(_model())
    finally:
        T.unregister_onnx_op("ChannelScale", domain="com.example")
    message = str(info.value)
    assert "ChannelScale node" in message and "tp kernel @clipped_relu" in message
    assert "takes 1 input buffer(s) and then its output, called with 2 input(s)" in message


OPS_FILE = """
from mlc import tp as T


@T.script
def channel_scale(
    X: T.Buffer((1, 4, 6, 6), "float32"),
    S: T.Buffer((4,), "float32"),
    Y: T.Buffer((1, 4, 6, 6), "float32"),
):
    for n, c, h, w in T.grid(1, 4, 6, 6):
        with T.block("Y"):
            vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
            Y[vn, vc, vh, vw] = X[vn, vc, vh, vw] * S[vc] + T.float32(0.5)


T.register_onnx_op("ChannelScale", channel_scale, domain="com.example")
"""


def test_compile_cli_takes_tp_ops(tmp_path: pathlib.Path) -> None:
    model = _model()
    onnx.save(model, tmp_path / "m.onnx")
    (tmp_path / "ops.py").write_text(OPS_FILE)
    proc = run_cli("mlc", "-q", "compile", tmp_path / "m.onnx", "--tp-ops", tmp_path / "ops.py",
                   "-o", tmp_path / "m.tar")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    x = RNG.standard_normal((1, 3, 6, 6)).astype(np.float32)
    t = _conv(x, W) * SCALE[None, :, None, None] + 0.5
    ref = _conv(np.maximum(t, 0), onnx.numpy_helper.to_array(model.graph.initializer[2]))
    np.testing.assert_allclose(_run(load_module(tmp_path / "m.tar"), x), ref, rtol=1e-4, atol=1e-4)

    (tmp_path / "bad.py").write_text("from mlc import tp as T\n\nT.register_onnx_op('X', None)\n")
    proc = run_cli("mlc", "compile", tmp_path / "m.onnx", "--tp-ops", tmp_path / "bad.py")
    message = assert_clean_failure(proc, 4)
    assert f"--tp-ops {tmp_path / 'bad.py'}:3: register_onnx_op('X'): the kernel must be" in message
    proc = run_cli("mlc", "compile", tmp_path / "m.onnx")  # without the kernel: no converter
    assert "com.example.ChannelScale" in assert_clean_failure(proc, 4)


GRAPH = """
func.func @main(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    attributes {mlc.input_names = ["x"], mlc.output_names = ["y"]} {
  %n = "graph.neg"(%x) : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %n : tensor<1x4x6x6xf32>
}
"""


def test_call_tp_in_a_hand_built_graph() -> None:
    """call_tp on a graph module built in Python: y = clipped_relu(-x)."""
    ctx = mlc.Context()
    module = ir.Module.parse(GRAPH, ctx)
    main = module.body.operations[0]
    ret = list(main.regions[0].blocks[0].operations)[-1]
    with ctx:
        y = T.call_tp(clipped_relu, [ret.operands[0]], ip=ir.InsertionPoint(ret), loc=ret.location)
        ret.operands[0] = y
    x = RNG.standard_normal((1, 4, 6, 6)).astype(np.float32) * 2
    np.testing.assert_array_equal(_run(mlc.build(module, {}).jit(), x), np.clip(-x, 0, 1))
