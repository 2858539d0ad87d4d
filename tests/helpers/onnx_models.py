"""Whole models built with onnx.helper in the patterns torch.onnx.export produces."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper

from helpers.onnx_testing import make_model


class GraphBuilder:
    """Appends nodes with fresh names; constants become initializers."""

    def __init__(self, seed: int = 0) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.consts: dict[str, np.ndarray] = {}
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def const(self, value: object, dtype: object = np.float32) -> str:
        name = f"c{len(self.consts)}"
        self.consts[name] = np.asarray(value, dtype)
        return name

    def weight(self, *shape: int, scale: float | None = None) -> str:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        std = scale if scale is not None else np.sqrt(2.0 / fan_in)
        return self.const(self.rng.normal(0, std, shape))

    def op(self, op_type: str, *inputs: str, outputs: int = 1, **attrs: object) -> str:
        self.count += 1
        outs = [f"{op_type.lower()}_{self.count}_{k}" for k in range(outputs)]
        self.nodes.append(
            helper.make_node(op_type, list(inputs), outs, name=f"/{op_type}_{self.count}", **attrs)
        )
        return outs[0]

    def constant_node(self, value: object, dtype: object = np.int64) -> str:
        """A `Constant` node (torch exports small constants this way)."""
        array = np.asarray(value, dtype)
        return self.op("Constant", value=onnx.numpy_helper.from_array(array))


def mobilenet_like(opset: int = 13) -> onnx.ModelProto:
    """Conv-BN-ReLU6, a depthwise block, F.pad sub-graph, GlobalAveragePool, view(n, -1), Gemm."""
    g = GraphBuilder()
    x = "image"
    y = g.op(
        "Conv", x, g.weight(8, 3, 3, 3), g.const(np.zeros(8)), strides=[2, 2], pads=[1, 1, 1, 1]
    )
    y = g.op(
        "BatchNormalization",
        y,
        g.const(np.ones(8) * 1.1),
        g.const(np.full(8, 0.1)),
        g.const(np.full(8, 0.05)),
        g.const(np.full(8, 0.9)),
    )
    y = g.op("Clip", y, g.constant_node(0.0, np.float32), g.constant_node(6.0, np.float32))
    # F.pad(y, (1, 1, 1, 1)) as torch exports it: pads built from a constant sub-graph.
    zeros = g.op(
        "ConstantOfShape",
        g.constant_node([4]),
        value=helper.make_tensor("v", TensorProto.INT64, [1], [0]),
    )
    pads = g.op("Concat", g.constant_node([1, 1, 1, 1]), zeros, axis=0)
    pads = g.op("Reshape", pads, g.constant_node([-1, 2]))
    pads = g.op(
        "Slice",
        pads,
        g.constant_node([-1]),
        g.constant_node([-(2**63)]),
        g.constant_node([0]),
        g.constant_node([-1]),
    )
    pads = g.op("Transpose", pads, perm=[1, 0])
    pads = g.op("Reshape", pads, g.constant_node([-1]))
    pads = g.op("Cast", pads, to=TensorProto.INT64)
    y = g.op("Pad", y, pads, g.constant_node(0.0, np.float32), mode="constant")
    y = g.op(
        "Conv", y, g.weight(8, 1, 3, 3), g.const(np.full(8, 0.01)), group=8
    )  # depthwise, pads already added
    y = g.op("Clip", y, g.constant_node(0.0, np.float32), g.constant_node(6.0, np.float32))
    y = g.op("Conv", y, g.weight(16, 8, 1, 1), g.const(np.zeros(16)))
    y = g.op("Relu", y)
    y = g.op("GlobalAveragePool", y)
    # x.view(x.size(0), -1)
    batch = g.op("Gather", g.op("Shape", y), g.constant_node(0), axis=0)
    target = g.op(
        "Concat", g.op("Unsqueeze", batch, g.constant_node([0])), g.constant_node([-1]), axis=0
    )
    y = g.op("Reshape", y, target)
    y = g.op("Gemm", y, g.weight(10, 16), g.const(np.full(10, 0.1)), transB=1)
    g.nodes[-1].output[0] = "logits"
    return make_model(
        g.nodes, {"image": (np.float32, [1, 3, 16, 16])}, ["logits"], g.consts, opset=opset
    )


def _layer_norm(g: GraphBuilder, x: str, dim: int, fused: bool) -> str:
    gamma, beta = g.const(np.ones(dim) * 0.9), g.const(np.full(dim, 0.05))
    if fused:
        return g.op("LayerNormalization", x, gamma, beta, axis=-1, epsilon=1e-5)
    mean = g.op("ReduceMean", x, axes=[-1])
    centered = g.op("Sub", x, mean)
    var = g.op("ReduceMean", g.op("Pow", centered, g.constant_node(2.0, np.float32)), axes=[-1])
    std = g.op("Sqrt", g.op("Add", var, g.constant_node(1e-5, np.float32)))
    return g.op("Add", g.op("Mul", g.op("Div", centered, std), gamma), beta)


def _split_heads(g: GraphBuilder, t: str, source: str, heads: int, head_dim: int) -> str:
    """[B, S, D] -> [B, H, S, Dh] with the shape taken from `source` as torch does."""
    shape = g.op("Shape", source)
    b = g.op("Unsqueeze", g.op("Gather", shape, g.constant_node(0), axis=0), g.constant_node([0]))
    s = g.op("Unsqueeze", g.op("Gather", shape, g.constant_node(1), axis=0), g.constant_node([0]))
    target = g.op("Concat", b, s, g.constant_node([heads]), g.constant_node([head_dim]), axis=0)
    return g.op("Transpose", g.op("Reshape", t, target), perm=[0, 2, 1, 3])


def encoder_layer(
    opset: int = 13,
    *,
    batch: int = 2,
    seq: int = 5,
    dim: int = 16,
    heads: int = 4,
    fused_layer_norm: bool = False,
) -> onnx.ModelProto:
    """A BERT-style encoder layer: position embedding (Range + Gather), multi-head attention with
    an Equal/Where/Expand padding mask, Erf GELU, residuals, LayerNorm (fused or decomposed), and
    the first token pooled with Slice + Squeeze."""
    g = GraphBuilder(seed=1)
    head_dim = dim // heads
    x, mask = "hidden", "attention_mask"
    # position ids = Range(0, seq) from the input shape: folded with the embedding lookup
    seq_len = g.op("Gather", g.op("Shape", x), g.constant_node(1), axis=0)
    positions = g.op("Range", g.constant_node(0), seq_len, g.constant_node(1))
    pos = g.op(
        "Gather",
        g.weight(32, dim, scale=0.1),
        g.op("Unsqueeze", positions, g.constant_node([0])),
        axis=0,
    )
    x = g.op("Add", x, pos)
    q, k, v = (
        g.op("Add", g.op("MatMul", x, g.weight(dim, dim, scale=0.3)), g.const(np.full(dim, 0.01)))
        for _ in range(3)
    )
    q, k, v = (_split_heads(g, t, x, heads, head_dim) for t in (q, k, v))
    scores = g.op("MatMul", q, g.op("Transpose", k, perm=[0, 1, 3, 2]))
    scores = g.op("Div", scores, g.constant_node(np.sqrt(head_dim), np.float32))
    # padding mask: (mask == 0) broadcast to the scores, filled with -inf
    pad = g.op("Unsqueeze", g.op("Equal", mask, g.constant_node(0)), g.constant_node([1, 2]))
    pad = g.op("Expand", pad, g.op("Shape", scores))
    scores = g.op("Where", pad, g.constant_node(-np.inf, np.float32), scores)
    probs = g.op(
        "Dropout", g.op("Softmax", scores, axis=-1), g.constant_node(0.1, np.float32), outputs=1
    )
    context = g.op("Transpose", g.op("MatMul", probs, v), perm=[0, 2, 1, 3])
    shape = g.op("Shape", x)
    merged = g.op(
        "Concat",
        g.op("Slice", shape, g.constant_node([0]), g.constant_node([2])),
        g.constant_node([dim]),
        axis=0,
    )
    context = g.op("Reshape", context, merged)
    attn = g.op(
        "Add", g.op("MatMul", context, g.weight(dim, dim, scale=0.3)), g.const(np.zeros(dim))
    )
    x = _layer_norm(g, g.op("Add", g.op("Identity", attn), x), dim, fused_layer_norm)
    # feed-forward with the exact (erf) GELU as torch exports it
    h = g.op(
        "Add", g.op("MatMul", x, g.weight(dim, 4 * dim, scale=0.2)), g.const(np.zeros(4 * dim))
    )
    erf = g.op("Erf", g.op("Div", h, g.constant_node(1.4142135, np.float32)))
    h = g.op(
        "Mul",
        g.op("Mul", h, g.op("Add", erf, g.constant_node(1.0, np.float32))),
        g.constant_node(0.5, np.float32),
    )
    h = g.op("Add", g.op("MatMul", h, g.weight(4 * dim, dim, scale=0.1)), g.const(np.zeros(dim)))
    out = _layer_norm(g, g.op("Add", h, x), dim, fused_layer_norm)
    g.nodes[-1].output[0] = "last_hidden_state"
    first = g.op(
        "Slice",
        "last_hidden_state",
        g.constant_node([0]),
        g.constant_node([1]),
        g.constant_node([1]),
    )
    g.op("Squeeze", first, g.constant_node([1]))
    g.nodes[-1].output[0] = "pooled"
    assert out
    inputs = {"hidden": (np.float32, [batch, seq, dim]), "attention_mask": (np.int64, [batch, seq])}
    return make_model(g.nodes, inputs, ["last_hidden_state", "pooled"], g.consts, opset=opset)
