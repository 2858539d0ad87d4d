"""Transformer ops: Attention (23, 24, 25) and RotaryEmbedding (23), composed of graph ops.

Attention: 3-D inputs [batch, seq, heads * size] are split into heads ([batch, heads, seq,
size]); past keys/values are concatenated before the new ones (the present outputs); Q and K
are scaled by sqrt(scale) each, as the spec prescribes against overflow. Grouped-query
attention needs no repeated K/V: the G query heads of one KV head are stacked into its rows
([batch * kv_heads, G * q, size]), so both products are one batch_matmul each. The scores get
the soft cap, then the bias (`attention_bias`), then a softmax along the keys (in
`softmax_precision` when given), and fully masked rows become zeros. Versions: 24 adds the
`nonpad_kv_seqlen` input (an external KV cache), 25 the `left/right_window_size` window.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from mlc.dialects.attrs import tensor_t

from ..dtypes import mlir_type_of, numpy_dtype_of
from .attention_bias import Frame, attention_bias
from .common import as_dtype
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

# qk_matmul_output modes: raw scores, after the soft cap, plus the bias, the probabilities.
RAW, CAPPED, BIASED, PROBS = range(4)


def _shape(v: ir.Value) -> list[int]:
    t = tensor_t(v.type)
    assert t is not None
    return list(t.shape)


def _heads(ctx: ImportContext, node: onnx.NodeProto, i: int, attr: str) -> ir.Value:
    """Input `i` as [batch, heads, seq, size] (3-D inputs are split into `attr` heads)."""
    value, t = ctx.operand(node, i), ctx.type(node, i)
    assert value is not None
    if t.rank == 4:
        return value
    if t.rank != 3:
        raise ctx.unsupported(f"Q, K and V must be 3-D or 4-D, got {t}")
    if not ctx.attrs.has(attr):
        raise ctx.unsupported(f"3-D inputs need the {attr} attribute")
    heads = ctx.attrs.int(attr)
    batch, seq, hidden = t.shape
    if heads <= 0 or hidden % heads:
        raise ctx.unsupported(f"{attr}={heads} does not divide the hidden size {hidden}")
    split = ctx.emit("reshape", value, shape=[batch, seq, heads, hidden // heads])
    return ctx.emit("transpose", split, perm=[0, 2, 1, 3])


def _with_past(ctx: ImportContext, node: onnx.NodeProto, i: int, new: ir.Value) -> ir.Value:
    """The present cache: past (input `i`) then the new entries along the sequence."""
    if not ctx.input_name(node, i):
        return new
    return ctx.concat([ctx.value(node.input[i]), new], 2)


def _grouped_product(ctx: ImportContext, a: ir.Value, b: ir.Value, kv_heads: int) -> ir.Value:
    """[B, H, M, K] x [B, Hkv, K, N] -> [B, H, M, N] where head h uses KV head h // (H / Hkv):
    one batch_matmul over [B * Hkv, (H / Hkv) * M, K]."""
    (batch, heads, m, k), n = _shape(a), _shape(b)[-1]
    rows = heads // kv_heads * m
    lhs = ctx.emit("reshape", a, shape=[batch * kv_heads, rows, k])
    rhs = ctx.emit("reshape", b, shape=[batch * kv_heads, k, n])
    product = ctx.emit("batch_matmul", lhs, rhs)
    return ctx.emit("reshape", product, shape=[batch, heads, m, n])


def _scores(
    ctx: ImportContext, q: ir.Value, keys: ir.Value, kv_heads: int, dtype: np.dtype
) -> tuple[ir.Value, ir.Value]:
    """(Q K^T with both scaled by sqrt(scale), the same after the soft cap)."""
    scale = ctx.attrs.float("scale", 1.0 / math.sqrt(_shape(q)[3]))
    root = np.array(math.sqrt(scale), dtype)  # rounded to the inputs' type, as the spec does
    if root != 1:
        factor = ctx.literal(root)
        q, keys = ctx.emit("mul", q, factor), ctx.emit("mul", keys, factor)
    raw = _grouped_product(ctx, q, ctx.emit("transpose", keys, perm=[0, 1, 3, 2]), kv_heads)
    softcap = ctx.attrs.float("softcap", 0.0)
    if softcap <= 0:
        return raw, raw
    cap = ctx.literal(np.array(softcap, dtype))
    return raw, ctx.emit("mul", ctx.emit("tanh", ctx.emit("div", raw, cap)), cap)


def _softmax(ctx: ImportContext, scores: ir.Value, masked: ir.Value | None, dtype: str) -> ir.Value:
    """Softmax along the keys in `softmax_precision` (default: the scores' type); fully masked
    rows are zeros; the result in `dtype`."""
    precision = dtype
    if ctx.attrs.has("softmax_precision"):
        precision = mlir_type_of(ctx.attrs.int("softmax_precision"), f"{ctx.where} precision")
    if precision != dtype:
        scores = ctx.emit("cast", scores, to=precision)
    probs = ctx.emit("softmax", scores, axis=-1)
    if masked is not None:
        zero = ctx.literal(np.array(0, numpy_dtype_of(precision)))
        probs = ctx.emit("where", masked, zero, probs)
    return probs if precision == dtype else ctx.emit("cast", probs, to=dtype)


def _attention(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value | None]:
    """Y, present_key, present_value and qk_matmul_output (see the module docstring); opset 24
    adds the nonpad_kv_seqlen input."""
    q_t = ctx.type(node, 0)
    dtype = numpy_dtype_of(q_t.dtype)
    mode = ctx.attrs.int("qk_matmul_output_mode", RAW)
    if mode not in (RAW, CAPPED, BIASED, PROBS):
        raise ctx.unsupported(f"qk_matmul_output_mode {mode} is not 0, 1, 2 or 3")
    if bool(ctx.input_name(node, 4)) != bool(ctx.input_name(node, 5)):
        raise ctx.unsupported("past_key and past_value must be given together")
    nonpad = None
    if ctx.opset >= 24 and ctx.input_name(node, 6):
        if ctx.input_name(node, 4):
            raise ctx.unsupported("nonpad_kv_seqlen cannot be combined with past_key/past_value")
        batch = ctx.type(node, 6).size
        nonpad = ctx.emit("reshape", as_dtype(ctx, node, 6, "i64"), shape=[batch, 1, 1, 1])
    q = _heads(ctx, node, 0, "q_num_heads")
    present_k = _with_past(ctx, node, 4, _heads(ctx, node, 1, "kv_num_heads"))
    present_v = _with_past(ctx, node, 5, _heads(ctx, node, 2, "kv_num_heads"))
    batch, heads, q_len, _ = _shape(q)
    kv_heads, kv_len = _shape(present_k)[1], _shape(present_k)[2]
    if heads % kv_heads:
        raise ctx.unsupported(f"{heads} query heads are not a multiple of {kv_heads} KV heads")
    raw, capped = _scores(ctx, q, present_k, kv_heads, dtype)
    past_len = ctx.type(node, 4).shape[2] if ctx.input_name(node, 4) else 0
    window = (ctx.attrs.int("left_window_size", -1), ctx.attrs.int("right_window_size", -1))
    frame = Frame(
        q_len, kv_len, past_len, bool(ctx.attrs.int("is_causal", 0)), *window, np.dtype(dtype)
    )
    bias, masked = attention_bias(ctx, node, frame, nonpad)
    scores = capped if bias is None else ctx.emit("add", capped, bias)
    probs = _softmax(ctx, scores, masked, q_t.dtype)
    y = _grouped_product(ctx, probs, present_v, kv_heads)
    if q_t.rank == 3:
        y = ctx.emit("transpose", y, perm=[0, 2, 1, 3])
        y = ctx.emit("reshape", y, shape=[batch, q_len, heads * _shape(present_v)[3]])
    qk = (raw, capped, scores, probs)[mode]
    return [y, present_k, present_v, qk][: len(node.output)]


for _since in (23, 24):
    converter("Attention", since=_since)(_attention)


@converter("Attention", since=25)
def attention_v25(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value | None]:
    """Opset 25 adds the sliding window; Q/K/V head counts come from the shapes of 4-D inputs,
    so giving q_num_heads/kv_num_heads with them is an error."""
    if ctx.type(node, 0).rank == 4 and (
        ctx.attrs.has("q_num_heads") or ctx.attrs.has("kv_num_heads")
    ):
        raise ctx.unsupported("q_num_heads and kv_num_heads must not be given for 4-D inputs")
    for attr in ("left_window_size", "right_window_size"):
        if ctx.attrs.int(attr, -1) < -1:
            raise ctx.unsupported(f"{attr} must be -1 or non-negative")
    return _attention(ctx, node)


@converter("RotaryEmbedding", since=23)
def rotary_embedding(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Rotate the first `rotary_embedding_dim` (default all) entries of each head: pairs (x1,
    x2) are the two halves, or even and odd entries when `interleaved`; out = (cos x1 - sin x2,
    sin x1 + cos x2), the rest passes through. cos/sin are gathered at position_ids, or given
    per [batch, seq]."""
    t = ctx.type(node, 0)
    x = ctx.operand(node, 0)
    assert x is not None
    if t.rank == 3:  # [batch, seq, hidden] -> [batch, seq, heads, size]
        heads = ctx.attrs.int("num_heads", 0)
        if heads <= 0 or t.shape[2] % heads:
            raise ctx.unsupported(f"3-D input {t} needs num_heads dividing its hidden size")
        x = ctx.emit("reshape", x, shape=[*t.shape[:2], heads, t.shape[2] // heads])
    elif t.rank != 4:
        raise ctx.unsupported(f"the input must be 3-D or 4-D, got {t}")
    size = _shape(x)[3]
    dim = ctx.attrs.int("rotary_embedding_dim", 0) or size
    if dim % 2 or dim > size:
        raise ctx.unsupported(f"rotary_embedding_dim {dim} must be even and at most {size}")
    cos, sin = _caches(ctx, node, dim // 2, head_axis=1 if t.rank == 4 else 2)
    interleaved = bool(ctx.attrs.int("interleaved", 0))

    def part(start: int, end: int, step: int) -> ir.Value:
        return ctx.emit("slice", x, starts=[start], ends=[end], axes=[3], steps=[step])

    x1, x2 = (
        (part(0, dim, 2), part(1, dim, 2))
        if interleaved
        else (part(0, dim // 2, 1), part(dim // 2, dim, 1))
    )
    real = ctx.emit("sub", ctx.emit("mul", cos, x1), ctx.emit("mul", sin, x2))
    imag = ctx.emit("add", ctx.emit("mul", sin, x1), ctx.emit("mul", cos, x2))
    if interleaved:  # real, imag, real, imag ...
        pairs = [ctx.emit("unsqueeze", v, axes=[4]) for v in (real, imag)]
        rotated = ctx.emit("reshape", ctx.concat(pairs, 4), shape=[*_shape(real)[:3], dim])
    else:
        rotated = ctx.concat([real, imag], 3)
    out = rotated if dim == size else ctx.concat([rotated, part(dim, size, 1)], 3)
    return [ctx.emit("reshape", out, shape=list(t.shape)) if t.rank == 3 else out]


def _caches(
    ctx: ImportContext, node: onnx.NodeProto, half: int, head_axis: int
) -> tuple[ir.Value, ir.Value]:
    """cos and sin as [batch, 1, seq, half] (4-D input) or [batch, seq, 1, half] (3-D)."""
    out = []
    for i in (1, 2):
        cache, t = ctx.operand(node, i), ctx.type(node, i)
        if ctx.input_name(node, 3):
            cache = ctx.emit("gather", cache, ctx.operand(node, 3), axis=0)
        if _shape(cache)[-1] != half or len(_shape(cache)) != 3:
            raise ctx.unsupported(
                f"cos/sin cache {t} must give {half} values per position ([positions, {half}] "
                f"with position_ids, [batch, seq, {half}] without)"
            )
        out.append(ctx.emit("unsqueeze", cache, axes=[head_axis]))
    return out[0], out[1]
