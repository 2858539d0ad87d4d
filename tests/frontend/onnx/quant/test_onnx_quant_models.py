"""Quantized models built and calibrated here (no downloads), compiled by mlc, compared with
onnxruntime's int8 execution (ORT_ENABLE_ALL: its QDQ fusions and int8 kernels).

- A small CNN (conv-relu, strided conv-relu, max-pool, global average pool, Gemm) and an MLP
  (MatMul+Add, Relu, Gemm), quantized by `quantize_static` in QDQ format with per-channel int8
  weights and uint8 activations: mlc runs every conv / matmul / Gemm as an integer kernel
  (graph-fuse-qdq; checked on the IR). The outputs are dequantized int8 values; they must lie
  within one output quantization step of onnxruntime's. Where they differ, onnxruntime's own
  float rounding is why: its requantization multiplies in f32 (mlc: the exact f64 product), and
  its QLinearGlobalAveragePool rounds the mean its own way (mlc: the float mean of the
  dequantized values, then QuantizeLinear, as the QDQ graph says).
- The MLP quantized by `quantize_dynamic` (DynamicQuantizeLinear + MatMulInteger): integer
  matrix products, float scaling after them; equal to float rounding (rtol 1e-5).

On x86 hosts without VNNI onnxruntime saturates uint8 x int8 products pairwise at int16
(`ort_u8s8_exact`), so there the weights are quantized with `reduce_range` (7 bits), as
onnxruntime's quantizer advises for such hosts; elsewhere with the full 8 bits.
"""

from __future__ import annotations

import pathlib
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import mlc
from helpers.onnx_testing import import_model, ort_u8s8_exact, run_compiled

ort = pytest.importorskip("onnxruntime")
quantization = pytest.importorskip("onnxruntime.quantization")


def _model(nodes: list[Any], shape: list[int], out: str, inits: dict[str, np.ndarray]) -> Any:
    graph = helper.make_graph(
        nodes,
        "float",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)],
        [numpy_helper.from_array(a.astype(np.float32), n) for n, a in inits.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def small_cnn(rng: np.random.Generator) -> tuple[Any, list[int]]:
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        n("Relu", ["c1"], ["r1"]),
        n("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
        n("Relu", ["c2"], ["r2"]),
        n("MaxPool", ["r2"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        n("GlobalAveragePool", ["p"], ["g"]),
        n("Flatten", ["g"], ["f"]),
        n("Gemm", ["f", "w3", "b3"], ["y"], transB=1),
    ]
    inits = {
        "w1": rng.standard_normal((16, 3, 3, 3)) * 0.3,
        "b1": rng.standard_normal(16) * 0.1,
        "w2": rng.standard_normal((32, 16, 3, 3)) * 0.1,
        "b2": rng.standard_normal(32) * 0.1,
        "w3": rng.standard_normal((10, 32)) * 0.3,
        "b3": rng.standard_normal(10) * 0.1,
    }
    return _model(nodes, [1, 3, 16, 16], "y", inits), [1, 3, 16, 16]


def small_fire(rng: np.random.Generator) -> tuple[Any, list[int]]:
    """squeezenet's fire module: a squeeze conv, two expand convs concatenated, a max pool."""
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["c1"], strides=[2, 2]),
        n("Relu", ["c1"], ["r1"]),
        n("MaxPool", ["r1"], ["p1"], kernel_shape=[3, 3], strides=[2, 2]),
        n("Conv", ["p1", "ws", "bs"], ["s"]),
        n("Relu", ["s"], ["rs"]),
        n("Conv", ["rs", "we1", "be1"], ["e1"]),
        n("Relu", ["e1"], ["re1"]),
        n("Conv", ["rs", "we3", "be3"], ["e3"], pads=[1, 1, 1, 1]),
        n("Relu", ["e3"], ["re3"]),
        n("Concat", ["re1", "re3"], ["cat"], axis=1),
        n("MaxPool", ["cat"], ["p2"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        n("Conv", ["p2", "w2", "b2"], ["c2"]),
        n("GlobalAveragePool", ["c2"], ["g"]),
        n("Flatten", ["g"], ["y"]),
    ]
    inits = {
        "w1": rng.standard_normal((16, 3, 3, 3)) * 0.3,
        "b1": rng.standard_normal(16) * 0.1,
        "ws": rng.standard_normal((8, 16, 1, 1)) * 0.3,
        "bs": rng.standard_normal(8) * 0.1,
        "we1": rng.standard_normal((16, 8, 1, 1)) * 0.3,
        "be1": rng.standard_normal(16) * 0.1,
        "we3": rng.standard_normal((16, 8, 3, 3)) * 0.2,
        "be3": rng.standard_normal(16) * 0.1,
        "w2": rng.standard_normal((10, 32, 1, 1)) * 0.2,
        "b2": rng.standard_normal(10) * 0.1,
    }
    return _model(nodes, [1, 3, 33, 33], "y", inits), [1, 3, 33, 33]


def small_residual(rng: np.random.Generator) -> tuple[Any, list[int]]:
    """Two bottleneck-style residual blocks: the second adds the first's output, whose
    dequantize graph-fuse computes inside the add's conv kernel."""
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1]),
        n("Relu", ["c0"], ["r0"]),
        n("Conv", ["r0", "w1", "b1"], ["c1"]),
        n("Relu", ["c1"], ["r1"]),
        n("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
        n("Add", ["c2", "r0"], ["a1"]),
        n("Relu", ["a1"], ["o1"]),
        n("Conv", ["o1", "w3", "b3"], ["c3"]),
        n("Relu", ["c3"], ["r3"]),
        n("Conv", ["r3", "w4", "b4"], ["c4"], pads=[1, 1, 1, 1]),
        n("Add", ["c4", "o1"], ["a2"]),
        n("Relu", ["a2"], ["o2"]),
        n("GlobalAveragePool", ["o2"], ["g"]),
        n("Flatten", ["g"], ["y"]),
    ]
    inits = {"w0": rng.standard_normal((16, 3, 3, 3)) * 0.3, "b0": rng.standard_normal(16) * 0.1}
    for i, shape in enumerate([(8, 16, 1, 1), (16, 8, 3, 3), (8, 16, 1, 1), (16, 8, 3, 3)], 1):
        inits[f"w{i}"] = rng.standard_normal(shape) * 0.3
        inits[f"b{i}"] = rng.standard_normal(shape[0]) * 0.1
    return _model(nodes, [1, 3, 12, 12], "y", inits), [1, 3, 12, 12]


def small_mlp(rng: np.random.Generator) -> tuple[Any, list[int]]:
    n = helper.make_node
    nodes = [
        n("MatMul", ["x", "w1"], ["h"]),
        n("Add", ["h", "b1"], ["h1"]),
        n("Relu", ["h1"], ["r"]),
        n("Gemm", ["r", "w2", "b2"], ["y"]),
    ]
    inits = {
        "w1": rng.standard_normal((64, 48)) * 0.2,
        "b1": rng.standard_normal(48) * 0.1,
        "w2": rng.standard_normal((48, 10)) * 0.2,
        "b2": rng.standard_normal(10) * 0.1,
    }
    return _model(nodes, [4, 64], "y", inits), [4, 64]


def quantize_static(
    model: Any, shape: list[int], rng: np.random.Generator, tmp: pathlib.Path, fmt: str = "QDQ"
) -> Any:
    class Reader(quantization.CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            batches = [{"x": rng.standard_normal(shape).astype(np.float32)} for _ in range(8)]
            self.batches = iter(batches)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    onnx.save(model, tmp / "float.onnx")
    quantization.quantize_static(
        str(tmp / "float.onnx"),
        str(tmp / f"{fmt}.onnx"),
        Reader(),
        quant_format=getattr(quantization.QuantFormat, fmt),
        per_channel=True,
        activation_type=quantization.QuantType.QUInt8,
        weight_type=quantization.QuantType.QInt8,
        reduce_range=not ort_u8s8_exact(),
    )
    return onnx.load(tmp / f"{fmt}.onnx")


def ort_int8(model: Any, x: np.ndarray) -> np.ndarray:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, {"x": x})[0]


def output_step(model: Any) -> float:
    """The scale of the last DequantizeLinear: one step of the int8 output."""
    last = [n for n in model.graph.node if n.op_type == "DequantizeLinear"][-1]
    inits = {i.name: i for i in model.graph.initializer}
    return float(numpy_helper.to_array(inits[last.input[1]]))


def integer_kernels(model: Any) -> list[str]:
    """The conv / matmul ops left after graph-fuse-qdq (and folding) on the imported model."""
    module, params = import_model(model)
    pm = mlc.PassManager.parse("builtin.module(graph-fuse-qdq,graph-fold-constants,mlc-dce)")
    pm.run(module, params=params)
    text = str(module)
    kinds = ("conv2d", "conv2d_integer", "matmul", "matmul_integer", "dense")
    return [k for k in kinds for _ in range(text.count(f'"graph.{k}"'))]


@pytest.mark.parametrize(
    "build",
    [small_cnn, small_fire, small_residual, small_mlp],
    ids=["cnn", "fire", "residual", "mlp"],
)
def test_static_qdq_per_channel(build: Any, tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(0)
    model, shape = build(rng)
    qdq = quantize_static(model, shape, rng, tmp_path)
    kernels = integer_kernels(qdq)
    expected = {
        small_cnn: ["conv2d_integer"] * 2 + ["matmul_integer"],
        small_fire: ["conv2d_integer"] * 5,
        small_residual: ["conv2d_integer"] * 5,
        small_mlp: ["matmul_integer"] * 2,
    }[build]
    assert sorted(kernels) == sorted(expected), kernels
    step = output_step(qdq)
    differing = 0
    for seed in range(4):
        x = np.random.default_rng(100 + seed).standard_normal(shape).astype(np.float32)
        got, want = run_compiled(qdq, {"x": x})[0], ort_int8(qdq, x)
        steps = np.abs(got - want) / step
        assert steps.max() <= 1.0 + 1e-3, steps.max()
        differing += int(np.count_nonzero(steps > 1e-3))
    assert differing <= 2, f"{differing} outputs differ by one step"


def test_fire_module_concatenates_and_pools_uint8(tmp_path: pathlib.Path) -> None:
    """graph-stay-quantized: the fire module's concat and both max pools run on uint8 (its
    convs write uint8), where the QDQ graph dequantizes to float around them."""
    rng = np.random.default_rng(1)
    model, shape = small_fire(rng)
    module, params = import_model(quantize_static(model, shape, rng, tmp_path))
    mlc.PassManager.parse(
        "builtin.module(graph-fuse-qdq,graph-stay-quantized,graph-fold-constants,mlc-dce)"
    ).run(module, params=params)
    text = str(module)
    pools = [line for line in text.splitlines() if '"graph.max_pool2d"' in line]
    concats = [line for line in text.splitlines() if "tensor.concat" in line]
    assert len(pools) == 2 and len(concats) == 1, text
    assert all("xf32>" not in line for line in pools + concats), pools + concats


def compiled(model: Any) -> tuple[Any, int]:
    """The model compiled with kernel timers (a GraphModule) and its number of kernel calls."""
    from mlc.contract import profiled_calls
    from mlc.runtime import GraphModule

    gm = GraphModule(mlc.build(*import_model(model), profile=True).jit())
    calls = profiled_calls(gm.manifest)
    assert calls is not None
    return gm, len(calls)


def run(gm: Any, x: np.ndarray) -> np.ndarray:
    gm.set_input("x", x)
    gm.run()
    return gm.get_output(0)


@pytest.mark.parametrize(
    "build,contrib",
    [
        (small_cnn, {"QGemm", "QLinearGlobalAveragePool"}),
        (small_fire, {"QLinearConcat", "QLinearGlobalAveragePool"}),
        (small_residual, {"QLinearAdd", "QLinearGlobalAveragePool"}),
    ],
    ids=["cnn", "fire", "residual"],
)
def test_static_qoperator_compiles_like_its_qdq_twin(
    build: Any, contrib: set[str], tmp_path: pathlib.Path
) -> None:
    """quantize_static's QOperator format (QLinearConv, com.microsoft QLinear* ops, QGemm):
    within one output step of onnxruntime, compiled to as many kernels as the same model in QDQ
    format (a QLinearAdd or QLinearConcat costs no kernel of its own, as in QDQ), and to the
    same values (the import is the QDQ graph; same calibration, same parameters)."""
    rng = np.random.default_rng(0)
    model, shape = build(rng)
    qop = quantize_static(model, shape, np.random.default_rng(7), tmp_path, "QOperator")
    qdq = quantize_static(model, shape, np.random.default_rng(7), tmp_path, "QDQ")
    ops = {n.op_type for n in qop.graph.node if n.domain == "com.microsoft"}
    assert ops == contrib, ops
    (gm_qop, kernels_qop), (gm_qdq, kernels_qdq) = compiled(qop), compiled(qdq)
    assert kernels_qop == kernels_qdq
    step = output_step(qop)
    for seed in range(3):
        x = np.random.default_rng(300 + seed).standard_normal(shape).astype(np.float32)
        got = run(gm_qop, x)
        assert np.abs(got - ort_int8(qop, x)).max() / step <= 1.0 + 1e-3
        np.testing.assert_array_equal(got, run(gm_qdq, x))


@pytest.mark.parametrize("per_channel", [False, True], ids=["per_tensor", "per_channel"])
def test_dynamic_matmul_integer(per_channel: bool, tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(1)
    model, shape = small_mlp(rng)
    onnx.save(model, tmp_path / "float.onnx")
    quantization.quantize_dynamic(
        str(tmp_path / "float.onnx"),
        str(tmp_path / "dynamic.onnx"),
        weight_type=quantization.QuantType.QInt8,
        per_channel=per_channel,
        reduce_range=not ort_u8s8_exact(),
    )
    dynamic = onnx.load(tmp_path / "dynamic.onnx")
    ops = {n.op_type for n in dynamic.graph.node}
    assert {"DynamicQuantizeLinear", "MatMulInteger"} <= ops, ops
    for seed in range(3):
        x = np.random.default_rng(200 + seed).standard_normal(shape).astype(np.float32)
        got, want = run_compiled(dynamic, {"x": x})[0], ort_int8(dynamic, x)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("opset", [13, 17, 19])
def test_constant_dequantize_folds_at_any_opset(opset: int) -> None:
    """quantize_dynamic's position embeddings: Gather(quantized table, constant ids) then
    DequantizeLinear, all constant. onnx.reference implements DequantizeLinear from opset 19
    only; the fold of an opset-13/17 model must not fail."""
    table = np.random.default_rng(0).integers(0, 255, (16, 8)).astype(np.uint8)
    nodes = [
        helper.make_node("Gather", ["table_q", "pos"], ["rows_q"]),
        helper.make_node("DequantizeLinear", ["rows_q", "scale", "zp"], ["rows"]),
        helper.make_node("Add", ["x", "rows"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "dql_fold",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])],
        initializer=[
            numpy_helper.from_array(table, "table_q"),
            numpy_helper.from_array(np.arange(4, dtype=np.int64), "pos"),
            numpy_helper.from_array(np.array(0.02, np.float32), "scale"),
            numpy_helper.from_array(np.array(128, np.uint8), "zp"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    x = np.ones((4, 8), np.float32)
    (got,) = run_compiled(model, {"x": x})
    want = x + (table[:4].astype(np.float32) - 128) * np.float32(0.02)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
