"""Blocks whose activation reads the layer's output several times, built with onnx.helper as the
exporters write them, compiled by mlc (1 and 2 threads) against onnxruntime: an EfficientNet-like
conv + SiLU (Sigmoid, Mul) block, BERT's dense + erf-GELU and GPT-2's dense + tanh-GELU with
Pow(x, 3). Each activation runs inside its conv/matmul kernel (checked on the fused graph).
Tolerance: rtol 1e-4, atol 1e-5."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from mlir import ir

import mlc
from mlc.dialects.walk import top_level_funcs
from mlc.runtime import GraphModule

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from helpers.onnx_testing import run_ort  # noqa: E402

pytestmark = pytest.mark.slow

GRAPH_STAGE = (
    "builtin.module(graph-verify,graph-simplify,graph-fold-constants,"
    "graph-alter-layout{block=8},graph-simplify,graph-fold-constants,mlc-cse,mlc-dce,graph-fuse)"
)


class Builder:
    """Nodes and initializers of a model under construction."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self.count = 0

    def const(self, value: np.ndarray | float) -> str:
        name = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(value, np.float32), name))
        return name

    def weight(self, *shape: int, scale: float) -> str:
        return self.const((self.rng.standard_normal(shape) * scale).astype(np.float32))

    def node(self, op: str, *inputs: str, **attrs: Any) -> str:
        self.count += 1
        out = f"{op.lower()}{self.count}"
        self.nodes.append(helper.make_node(op, list(inputs), [out], **attrs))
        return out

    def model(self, x: str, shape: list[int], y: str) -> Any:
        graph = helper.make_graph(
            self.nodes,
            "block",
            [helper.make_tensor_value_info(x, TensorProto.FLOAT, shape)],
            [helper.make_tensor_value_info(y, TensorProto.FLOAT, None)],
            self.inits,
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def conv_silu_block() -> tuple[Any, list[int]]:
    """Two 3x3 conv + SiLU layers (the second depthwise) and a 1x1 projection, 28x28."""
    b = Builder(0)
    h = "x"
    for group, cin in ((1, 16), (32, 32)):
        w = b.weight(32, cin // group, 3, 3, scale=0.3 / math.sqrt(cin))
        c = b.node("Conv", h, w, b.weight(32, scale=0.1), pads=[1, 1, 1, 1], group=group)
        h = b.node("Mul", c, b.node("Sigmoid", c))
    y = b.node("Conv", h, b.weight(24, 32, 1, 1, scale=0.2), b.weight(24, scale=0.1))
    return b.model("x", [1, 16, 28, 28], y), [1, 16, 28, 28]


def mlp_block(gelu: str) -> tuple[Any, list[int]]:
    """MatMul + bias, GELU, MatMul + bias over [1, 50, 64] (rows no register tile divides)."""
    b = Builder(1)
    h = b.node(
        "Add", b.node("MatMul", "x", b.weight(64, 256, scale=0.125)), b.weight(256, scale=0.1)
    )
    if gelu == "erf":
        e = b.node("Erf", b.node("Div", h, b.const(math.sqrt(2.0))))
        g = b.node("Mul", b.node("Mul", h, b.node("Add", e, b.const(1.0))), b.const(0.5))
    else:
        cube = b.node("Pow", h, b.const(3.0))
        inner = b.node("Add", h, b.node("Mul", b.const(0.044715), cube))
        t = b.node("Tanh", b.node("Mul", b.const(math.sqrt(2 / math.pi)), inner))
        g = b.node("Mul", b.node("Mul", b.const(0.5), h), b.node("Add", b.const(1.0), t))
    y = b.node("Add", b.node("MatMul", g, b.weight(256, 64, scale=0.06)), b.weight(64, scale=0.1))
    return b.model("x", [1, 50, 64], y), [1, 50, 64]


# builder, the kernels its activations live in, how many kernels in all
BLOCKS = {
    "conv_silu": (conv_silu_block, ["fused_conv2d_sigmoid_mul"] * 2, 5),
    "mlp_gelu_erf": (lambda: mlp_block("erf"), ["fused_matmul_add_mul_etc"], 2),
    "mlp_gelu_tanh": (lambda: mlp_block("tanh"), ["fused_matmul_add_mul_etc"], 2),
}


def _kernel_names(model: Any) -> list[str]:
    module, params = mlc.from_onnx(model)
    with module.context:
        mlc.PassManager.parse(GRAPH_STAGE).run(module, params=params)
        return [
            ir.StringAttr(f.attributes["sym_name"]).value for f in top_level_funcs(module.operation)
        ]


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_activation_fused_into_its_layer(name: str) -> None:
    build, fused, count = BLOCKS[name]
    kernels = [n for n in _kernel_names(build()[0]) if n != "main"]
    assert len(kernels) == count, kernels  # the layout transforms of the NCHW8c convs included
    assert sorted(n.rsplit("_", 1)[0] for n in kernels if n.rsplit("_", 1)[0] in fused) == fused


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_matches_onnxruntime(name: str, threads: int) -> None:
    model, shape = BLOCKS[name][0]()
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    (want,) = run_ort(model, {"x": x})
    gm = GraphModule(mlc.build(*mlc.from_onnx(model), threads=threads).jit())
    gm.set_input("x", x)
    gm.run()
    np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-4, atol=1e-5)
