"""A tiny GPT-2-like decoder with a KV cache, built with onnx.helper in the patterns of
bench/decode_models.py's export (transformers 5.24, torch 2.13 TorchScript exporter, opset 17).

Signature (symbolic dims batch, seq, past; `past + seq` is an expression dim):

    input_ids [batch, seq]  attention_mask [batch, past + seq]  position_ids [batch, seq]
    past_key_values.{i}.key|value [batch, heads, past, head_dim]
    -> logits [batch, seq, vocab], present.{i}.key|value [batch, heads, past + seq, head_dim]

The sub-graphs the export has and this model repeats: the first layer's past key through a
one-input Concat; past length from Shape -> Gather(2) of that key, total = past + seq (Add),
query positions Range(seq) + past; the causal mask LessOrEqual(kv_idx, q_idx) And'ed with the
padding mask read by Flatten + Gather at b * total + kv_idx, Expand to [batch, -1, seq, total]
through the ConstantOfShape/Equal/Where idiom, then Where(mask, 0, finfo.min); linear layers as
Reshape to [-1, D] -> Gemm -> Reshape back with Shape/Gather/Slice/Squeeze/Unsqueeze/Concat
shapes; Split of the fused QKV; heads by Reshape [b, s, -1, hd] + Transpose; present =
Concat(past, new, axis=-2); GELU (tanh); the LM head a MatMul with the transposed embedding.

`greedy_decode` and the runners come from bench/bench_decode.py (on the tests' path).
"""

from __future__ import annotations

import numpy as np
import onnx
from bench_decode import DecoderSignature, greedy_decode, onnxruntime_runner
from onnx import TensorProto, helper, numpy_helper

from helpers.onnx_models import GraphBuilder

__all__ = [
    "EXPORT_OP_TYPES",
    "DecoderSignature",
    "greedy_decode",
    "onnxruntime_runner",
    "tiny_decoder",
]

INT64_MAX = np.iinfo(np.int64).max
FLOAT_MIN = float(np.finfo(np.float32).min)
EXPORT_OP_TYPES = frozenset(
    "Add And Cast Concat Constant ConstantOfShape Equal Expand Flatten Gather Gemm Identity "
    "LayerNormalization LessOrEqual MatMul Mul Pow Range Reshape Shape Slice Softmax Split "
    "Squeeze Tanh Transpose Unsqueeze Where".split()
)
"""Op types of bench/decode_models.py's gpt2_decoder export (its counts, 2 layers: Constant 186,
Unsqueeze 56, Shape 45, Gather 37, Concat 34, Reshape 30, Identity 14, Add 14, Mul 12, ...)."""


class _Decoder:
    def __init__(self, g: GraphBuilder, width: int, heads: int) -> None:
        self.g, self.width, self.heads = g, width, heads

    def dim(self, tensor: str, axis: int) -> str:
        """Gather(Shape(tensor), axis): a scalar size."""
        g = self.g
        return g.op("Gather", g.op("Shape", tensor), g.constant_node(axis), axis=0)

    def last_dim(self, tensor: str) -> str:
        """Squeeze(Slice(Shape(tensor), -1, INT64_MAX)): how the export reads the feature dim."""
        g = self.g
        last = g.op(
            "Slice",
            g.op("Shape", tensor),
            g.constant_node([-1]),
            g.constant_node([INT64_MAX]),
            g.constant_node([0]),
        )
        return g.op("Squeeze", last, g.constant_node([0]))

    def vec(self, scalar: str) -> str:
        return self.g.op("Unsqueeze", scalar, self.g.constant_node([0]))

    def linear(self, x: str, rows: int, cols: int, scale: float) -> str:
        """GPT-2's Conv1D: [b, s, rows] -> Reshape [-1, rows] -> Gemm -> [b, s, cols]."""
        g = self.g
        batch, seq = self.dim(x, 0), self.dim(x, 1)
        flat_shape = g.op("Concat", g.constant_node([-1]), self.vec(self.last_dim(x)), axis=0)
        flat = g.op("Reshape", x, flat_shape)
        y = g.op("Gemm", flat, g.weight(rows, cols, scale=scale), g.weight(cols, scale=0.05))
        shape = g.op("Concat", self.vec(batch), self.vec(seq), g.constant_node([cols]), axis=0)
        return g.op("Reshape", y, shape)

    def layer_norm(self, x: str, shared: tuple[str, str] | None = None) -> str:
        """`shared`: (gamma, beta) of another norm, read through Identity nodes as the export
        reads equal parameters (it keeps one initializer of each)."""
        g = self.g
        if shared:
            gamma, beta = (g.op("Identity", t) for t in shared)
        else:
            gamma = g.const(1.0 + g.rng.normal(0, 0.1, self.width))
            beta = g.const(g.rng.normal(0, 0.05, self.width))
        self.last_norm = (gamma, beta)
        return g.op("LayerNormalization", x, gamma, beta, axis=-1, epsilon=1e-5)

    def split_heads(self, t: str) -> str:
        g = self.g
        shape = g.op(
            "Concat",
            self.vec(self.dim(t, 0)),
            self.vec(self.dim(t, 1)),
            g.constant_node([-1]),
            g.constant_node([self.width // self.heads]),
            axis=0,
        )
        return g.op("Transpose", g.op("Reshape", t, shape), perm=[0, 2, 1, 3])

    def gelu(self, x: str) -> str:
        g = self.g
        half = g.op("Mul", x, g.constant_node(0.5, np.float32))
        cube = g.op(
            "Mul",
            g.op("Pow", x, g.constant_node(3.0, np.float32)),
            g.constant_node(0.044715, np.float32),
        )
        inner = g.op("Mul", g.op("Add", x, cube), g.constant_node(0.7978846, np.float32))
        return g.op("Mul", half, g.op("Add", g.op("Tanh", inner), g.constant_node(1.0, np.float32)))

    def attention_bias(self, x: str, ids: str, past_key: str) -> str:
        """[batch, 1, seq, past + seq]: 0 where attended, finfo.min elsewhere."""
        g = self.g
        mask = g.op(
            "Reshape",
            "attention_mask",
            g.op("Concat", self.vec(self.dim(ids, 0)), g.constant_node([-1]), axis=0),
        )
        mask = g.op("Cast", mask, to=TensorProto.BOOL)
        seq, past, batch = self.dim(x, 1), self.dim(past_key, 2), self.dim(x, 0)
        total = g.op("Add", past, seq)

        def arange(n: str) -> str:
            limit = g.op("Cast", n, to=TensorProto.INT64)
            return g.op("Range", g.constant_node(0), limit, g.constant_node(1))

        def unsqueeze(t: str, *axes: int) -> str:
            for axis in axes:
                t = g.op("Unsqueeze", t, g.constant_node([axis]))
            return t

        b_idx = unsqueeze(arange(batch), 1, 2, 3)
        q_idx = unsqueeze(
            g.op("Add", arange(seq), g.op("Cast", past, to=TensorProto.INT64)), 0, 1, 3
        )
        kv_idx = unsqueeze(arange(total), 0, 1, 2)
        true = g.op(
            "ConstantOfShape",
            g.constant_node(np.zeros(0, np.int64)),
            value=helper.make_tensor("v", TensorProto.BOOL, [1], [True]),
        )
        causal = g.op("Cast", g.op("LessOrEqual", kv_idx, q_idx), to=TensorProto.BOOL)
        both = g.op("And", true, causal)
        # The padding mask read at [b, kv]: Flatten to [b * total, 1] and Gather b * total + kv.
        length = g.op("Gather", g.op("Shape", mask), g.constant_node([1]), axis=0)
        flat = g.op("Flatten", mask, axis=2)
        index = g.op("Add", kv_idx, g.op("Mul", b_idx, length))
        padding = g.op("Reshape", g.op("Gather", flat, index, axis=0), g.constant_node([-1]))
        padding = g.op("Reshape", padding, g.op("Concat", g.op("Shape", index), axis=0))
        both = g.op("And", both, g.op("Cast", padding, to=TensorProto.BOOL))
        target = g.op(
            "Concat",
            self.vec(batch),
            g.constant_node([-1]),
            self.vec(seq),
            self.vec(total),
            axis=0,
        )
        target = g.op("Reshape", target, g.constant_node([-1]))
        ones = g.op(
            "ConstantOfShape",
            g.op("Shape", target),
            value=helper.make_tensor("v", TensorProto.INT64, [1], [1]),
        )
        is_minus_one = g.op("Equal", target, g.op("Mul", ones, g.constant_node(-1)))
        target = g.op("Where", is_minus_one, ones, target)
        return g.op(
            "Where",
            g.op("Expand", both, target),
            g.constant_node(0.0, np.float32),
            g.constant_node(FLOAT_MIN, np.float32),
        )


def tiny_decoder(
    layers: int = 2, width: int = 32, heads: int = 4, vocab: int = 50, positions: int = 128
) -> onnx.ModelProto:
    """The decoder of the module docstring with seeded weights (large enough that greedy tokens
    vary from step to step)."""
    g = GraphBuilder(seed=28)
    d = _Decoder(g, width, heads)
    head_dim = width // heads
    first_key = g.op("Concat", "past_key_values.0.key", axis=-2)
    ids = g.op(
        "Reshape",
        "input_ids",
        g.op("Concat", g.constant_node([-1]), d.vec(d.dim("input_ids", 1)), axis=0),
    )
    embedding = g.rng.normal(0, 1.0, (vocab, width)).astype(np.float32)
    tokens = g.op("Gather", g.const(embedding), ids, axis=0)
    pos = g.op("Gather", g.weight(positions, width, scale=0.5), "position_ids", axis=0)
    x = g.op("Add", tokens, g.op("Cast", pos, to=TensorProto.FLOAT))
    bias = d.attention_bias(tokens, ids, first_key)
    model_width = d.last_dim(x)
    outputs = ["logits"]
    first_norm: tuple[str, str] | None = None
    for i in range(layers):
        qkv = d.linear(d.layer_norm(x), width, 3 * width, scale=0.4)
        first_norm = first_norm or d.last_norm
        q, k, v = _split_qkv(g, d, qkv, width)
        past_key = first_key if i == 0 else f"past_key_values.{i}.key"
        key = g.op("Concat", past_key, k, axis=-2)
        value = g.op("Concat", f"past_key_values.{i}.value", v, axis=-2)
        g.nodes[-2].output[0], g.nodes[-1].output[0] = f"present.{i}.key", f"present.{i}.value"
        key, value = f"present.{i}.key", f"present.{i}.value"
        outputs += [key, value]
        scores = g.op("MatMul", q, g.op("Transpose", key, perm=[0, 1, 3, 2]))
        scores = g.op("Mul", scores, g.constant_node(1.0 / np.sqrt(head_dim), np.float32))
        probs = g.op("Softmax", g.op("Add", scores, bias), axis=-1)
        context = g.op("MatMul", g.op("Cast", probs, to=TensorProto.FLOAT), value)
        context = g.op("Transpose", context, perm=[0, 2, 1, 3])
        merged = g.op(
            "Concat",
            d.vec(d.dim(context, 0)),
            d.vec(d.dim(context, 1)),
            g.constant_node([-1]),
            axis=0,
        )
        context = g.op("Reshape", context, merged)
        x = g.op("Add", d.linear(context, width, width, scale=0.4), x)
        hidden = d.gelu(d.linear(d.layer_norm(x), width, 4 * width, scale=0.4))
        x = g.op("Add", x, d.linear(hidden, 4 * width, width, scale=0.2))
    x = d.layer_norm(x, shared=first_norm)
    head_shape = g.op(
        "Concat",
        g.constant_node([-1]),
        d.vec(d.dim("input_ids", 1)),
        d.vec(model_width),
        axis=0,
    )
    g.op("MatMul", g.op("Reshape", x, head_shape), g.const(embedding.T))
    g.nodes[-1].output[0] = "logits"
    return _model(g, layers, heads, head_dim, vocab, outputs)


def _split_qkv(g: GraphBuilder, d: _Decoder, qkv: str, width: int) -> list[str]:
    g.op("Split", qkv, g.constant_node([width] * 3), axis=2, outputs=3)
    return [d.split_heads(t) for t in g.nodes[-1].output]


def _model(
    g: GraphBuilder, layers: int, heads: int, head_dim: int, vocab: int, outputs: list[str]
) -> onnx.ModelProto:
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    cache = ["batch", heads, "past", head_dim]
    present = ["batch", heads, "past + seq", head_dim]
    inputs = [
        helper.make_tensor_value_info("input_ids", i64, ["batch", "seq"]),
        helper.make_tensor_value_info("attention_mask", i64, ["batch", "past + seq"]),
        helper.make_tensor_value_info("position_ids", i64, ["batch", "seq"]),
    ]
    results = [helper.make_tensor_value_info("logits", f32, ["batch", "seq", vocab])]
    for i in range(layers):
        for kind in ("key", "value"):
            inputs.append(helper.make_tensor_value_info(f"past_key_values.{i}.{kind}", f32, cache))
            results.append(helper.make_tensor_value_info(f"present.{i}.{kind}", f32, present))
    assert [r.name for r in results] == outputs
    initializers = [numpy_helper.from_array(np.asarray(a), n) for n, a in g.consts.items()]
    graph = helper.make_graph(g.nodes, "tiny_decoder", inputs, results, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    return model
