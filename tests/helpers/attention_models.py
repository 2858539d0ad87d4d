"""Attention blocks built with onnx.helper the way torch.onnx.export (TorchScript) writes them:
F.scaled_dot_product_attention (SDPA) and a BERT layer with eager attention."""

from __future__ import annotations

import numpy as np
import onnx

from helpers.onnx_models import GraphBuilder
from helpers.onnx_testing import make_model

INT64_MAX = np.iinfo(np.int64).max


def _sdpa_scale(g: GraphBuilder, query: str) -> str:
    """1 / sqrt(E) from the query's shape, as torch's `_attention_scale`."""
    last = g.op("Slice", g.op("Shape", query), g.constant_node([-1]), g.constant_node([INT64_MAX]))
    size = g.op("Cast", last, to=onnx.TensorProto.FLOAT)
    scale = g.op("Div", g.constant_node([1.0], np.float32), g.op("Sqrt", size))
    return g.op("Cast", scale, to=onnx.TensorProto.FLOAT)


def _sdpa_causal_mask(g: GraphBuilder, query: str, key: str) -> str:
    """0 on and below the diagonal, -inf above: Expand + Trilu + Equal + Where of shapes."""
    target = g.op("Slice", g.op("Shape", query), g.constant_node([-2]), g.constant_node([-1]))
    source = g.op("Slice", g.op("Shape", key), g.constant_node([-2]), g.constant_node([-1]))
    ones = g.op(
        "Expand", g.constant_node([1.0], np.float32), g.op("Concat", target, source, axis=0)
    )
    lower = g.op("Trilu", ones, upper=0)
    zero, ninf = g.constant_node([0.0], np.float32), g.constant_node([-np.inf], np.float32)
    return g.op("Where", g.op("Equal", lower, zero), ninf, zero)


def sdpa(
    mask: str | None, *, batch: int = 2, heads: int = 3, q_len: int = 5, kv_len: int = 5
) -> onnx.ModelProto:
    """scaled_dot_product_attention(q, k, v, attn_mask, is_causal) of torch's opset-14 symbolic.
    `mask`: None, "float" (added), "bool" (Where(mask, 0, -inf) added; the probabilities of
    fully masked rows, NaN, are zeroed with IsNaN + Where) or "causal"."""
    g = GraphBuilder()
    scale = _sdpa_scale(g, "q")
    attn_mask = "mask" if mask in ("float", "bool") else None
    if mask == "causal":
        attn_mask = _sdpa_causal_mask(g, "q", "k")
    key_t = g.op("Transpose", "k", perm=[0, 1, 3, 2])
    q = g.op("Mul", "q", g.op("Sqrt", scale))
    k = g.op("Mul", key_t, g.op("Sqrt", scale))
    scores = g.op("MatMul", q, k)
    if mask == "bool":
        zero, ninf = g.constant_node([0.0], np.float32), g.constant_node([-np.inf], np.float32)
        attn_mask = g.op("Where", "mask", zero, ninf)
    if attn_mask is not None:
        scores = g.op("Add", scores, attn_mask)
    probs = g.op("Softmax", scores, axis=-1)
    if mask == "bool":
        probs = g.op("Where", g.op("IsNaN", probs), g.constant_node([0.0], np.float32), probs)
    g.op("MatMul", probs, "v")
    g.nodes[-1].output[0] = "out"
    inputs: dict[str, tuple[object, list[int]]] = {
        "q": (np.float32, [batch, heads, q_len, 8]),
        "k": (np.float32, [batch, heads, kv_len, 8]),
        "v": (np.float32, [batch, heads, kv_len, 8]),
    }
    if mask in ("float", "bool"):
        inputs["mask"] = (np.float32 if mask == "float" else np.bool_, [batch, 1, q_len, kv_len])
    return make_model(g.nodes, inputs, ["out"], g.consts, opset=14)


def bert_eager_layer(
    opset: int = 17, *, batch: int = 1, seq: int = 128, dim: int = 32, heads: int = 4
) -> onnx.ModelProto:
    """Embeddings and one encoder layer of a BERT exported with attn_implementation="eager":
    position ids sliced from a [1, 512] buffer, token type ids taken from their buffer with
    torch.gather (GatherElements on constants), the extended mask (1 - mask) * finfo.min added
    to QK^T / sqrt(d), softmax, and the output projection with a LayerNorm residual."""
    g = GraphBuilder(seed=3)
    head_dim = dim // heads
    positions = g.const(np.arange(512).reshape(1, 512), np.int64)
    token_types = g.const(np.zeros((1, 512)), np.int64)
    seq_len = g.op("Gather", g.op("Shape", "input_ids"), g.constant_node(1), axis=0)
    end = g.op("Unsqueeze", seq_len, g.constant_node([0]))
    position_ids = g.op("Slice", positions, g.constant_node([0]), end, g.constant_node([1]))
    buffered = g.op("Expand", token_types, g.constant_node([batch, 512]))
    type_ids = g.op("GatherElements", buffered, position_ids, axis=1)
    g.nodes[-1].name = "/model/embeddings/GatherElements"
    x = g.op("Gather", g.weight(100, dim, scale=0.5), "input_ids", axis=0)
    x = g.op("Add", x, g.op("Gather", g.weight(2, dim, scale=0.5), type_ids, axis=0))
    x = g.op("Add", x, g.op("Gather", g.weight(512, dim, scale=0.5), position_ids, axis=0))
    gamma, beta = g.const(np.ones(dim) * 0.9), g.const(np.full(dim, 0.05))
    x = g.op("LayerNormalization", x, gamma, beta, axis=-1, epsilon=1e-12)

    def heads_of(t: str) -> str:
        split = g.op("Reshape", t, g.constant_node([batch, seq, heads, head_dim]))
        return g.op("Transpose", split, perm=[0, 2, 1, 3])

    q, k, v = (
        heads_of(g.op("Add", g.op("MatMul", x, g.weight(dim, dim, scale=0.3)), g.const(0.01)))
        for _ in range(3)
    )
    scores = g.op("MatMul", q, g.op("Transpose", k, perm=[0, 1, 3, 2]))
    scores = g.op("Div", scores, g.constant_node(np.sqrt(head_dim), np.float32))
    extended = g.op("Cast", g.op("Unsqueeze", "attention_mask", g.constant_node([1, 2])), to=1)
    inverted = g.op("Sub", g.constant_node(1.0, np.float32), extended)
    bias = g.op("Mul", inverted, g.constant_node(np.finfo(np.float32).min, np.float32))
    probs = g.op("Softmax", g.op("Add", scores, bias), axis=-1)
    context = g.op("Transpose", g.op("MatMul", probs, v), perm=[0, 2, 1, 3])
    context = g.op("Reshape", context, g.constant_node([batch, seq, dim]))
    out = g.op("Add", g.op("MatMul", context, g.weight(dim, dim, scale=0.3)), g.const(0.0))
    g.op("LayerNormalization", g.op("Add", out, x), gamma, beta, axis=-1, epsilon=1e-12)
    g.nodes[-1].output[0] = "last_hidden_state"
    inputs = {"input_ids": (np.int64, [batch, seq]), "attention_mask": (np.int64, [batch, seq])}
    return make_model(g.nodes, inputs, ["last_hidden_state"], g.consts, opset=opset)
