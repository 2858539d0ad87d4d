"""The additive attention bias of ONNX Attention (23-25): mask, causal frontier, sliding window
and the key padding of `nonpad_kv_seqlen`, each broadcastable to [batch, heads, q, kv].

A boolean mask allows where True; a float mask is added to the scores. The causal frontier and
the window are relative to `offset + i` for query i: `offset` is the past length (an internal
cache) or, per batch entry, nonpad_kv_seqlen[b] - q (an external cache). Everything that is
static becomes one numpy array; what depends on runtime inputs is built with graph ops. The
disallowed positions add -inf. A query row whose whole bias is -inf is *fully masked* and
gives zeros instead of the softmax's NaN (`masked_rows`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from mlc.dialects.attrs import tensor_t

from ..dtypes import numpy_dtype_of

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


@dataclass(frozen=True)
class Frame:
    """The attention's static sizes and options that decide its bias."""

    q_len: int
    kv_len: int  # past + new keys
    past_len: int
    causal: bool
    left: int  # window sizes, -1: unbounded
    right: int
    dtype: np.dtype


def _static_allowed(frame: Frame) -> np.ndarray | None:
    """[q, kv] positions the causal frontier and the window allow, for a static offset."""
    if not frame.causal and frame.left < 0 and frame.right < 0:
        return None
    i = np.arange(frame.q_len)[:, None] + frame.past_len
    j = np.arange(frame.kv_len)[None, :]
    allowed = np.ones((frame.q_len, frame.kv_len), bool)
    if frame.causal:
        allowed &= j <= i
    if frame.left >= 0:
        allowed &= i - j <= frame.left
    if frame.right >= 0:
        allowed &= j - i <= frame.right
    return allowed


def _runtime_allowed(ctx: ImportContext, frame: Frame, nonpad: ir.Value) -> ir.Value:
    """[batch, 1, q, kv] allowed positions with offset[b] = nonpad[b] - q, plus key padding
    (j < nonpad[b]). With d = j - i + q, query i attends key j when d <= nonpad[b] (causal),
    nonpad[b] <= left + d (left window) and d - right <= nonpad[b] (right window)."""
    i = np.arange(frame.q_len)[:, None]
    j = np.arange(frame.kv_len)[None, :]
    d = j - i + frame.q_len

    def const(values: np.ndarray, what: str) -> ir.Value:
        return ctx.constant(values.astype(np.int64), f"{ctx.node_name}.{what}")

    checks = [ctx.emit("less", const(np.broadcast_to(j, d.shape), "keys"), nonpad)]
    if frame.causal:
        checks.append(ctx.emit("less_equal", const(d, "causal"), nonpad))
    if frame.left >= 0:
        checks.append(ctx.emit("less_equal", nonpad, const(d + frame.left, "left")))
    if frame.right >= 0:
        checks.append(ctx.emit("less_equal", const(d - frame.right, "right"), nonpad))
    allowed = checks[0]
    for c in checks[1:]:
        allowed = ctx.emit("and", allowed, c)
    return allowed


def _additive(ctx: ImportContext, allowed: ir.Value, dtype: np.dtype) -> ir.Value:
    zero, ninf = (ctx.literal(np.array(v, dtype)) for v in (0.0, -np.inf))
    return ctx.emit("where", allowed, zero, ninf)


def _mask(ctx: ImportContext, node: onnx.NodeProto, frame: Frame) -> ir.Value | np.ndarray | None:
    """The attn_mask input as an additive bias (padded with -inf up to kv_len keys)."""
    if not ctx.input_name(node, 3):
        return None
    t = ctx.type(node, 3)
    pad = frame.kv_len - t.shape[-1]
    if pad < 0:
        raise ctx.unsupported(f"attn_mask {t} has more keys than the {frame.kv_len} keys")
    array = ctx.const(node, 3)
    if array is not None:
        bias = np.where(array, 0, -np.inf) if array.dtype == bool else array
        bias = bias.astype(frame.dtype)
        widths = [(0, 0)] * (bias.ndim - 1) + [(0, pad)]
        return np.pad(bias, widths, constant_values=-np.inf)
    mask = ctx.operand(node, 3)
    assert mask is not None
    if t.dtype == "i1":
        mask = _additive(ctx, mask, frame.dtype)
    if pad:
        pads = [0] * (2 * t.rank)
        pads[2 * t.rank - 1] = pad
        mask = ctx.emit("pad", mask, pads=pads, mode="constant", value=float("-inf"))
    return mask


def attention_bias(
    ctx: ImportContext, node: onnx.NodeProto, frame: Frame, nonpad: ir.Value | None
) -> tuple[ir.Value | None, ir.Value | None]:
    """(bias to add to the scores, or None; fully masked rows [..., q, 1] (i1), or None)."""
    mask = _mask(ctx, node, frame)
    allowed = _static_allowed(frame) if nonpad is None else None
    static = None if allowed is None else np.where(allowed, 0, -np.inf).astype(frame.dtype)
    if isinstance(mask, np.ndarray):
        static = mask if static is None else mask + static
        mask = None
    runtime = (
        None
        if nonpad is None
        else _additive(ctx, _runtime_allowed(ctx, frame, nonpad), frame.dtype)
    )
    parts = [p for p in (mask, runtime) if p is not None]
    if static is not None:
        if not parts:
            rows = np.isneginf(static.max(axis=-1, keepdims=True))
            bias = ctx.constant(static, f"{ctx.node_name}.bias")
            return bias, (ctx.constant(rows, f"{ctx.node_name}.masked") if rows.any() else None)
        parts.append(ctx.constant(static, f"{ctx.node_name}.bias"))
    if not parts:
        return None, None
    bias = parts[0]
    for p in parts[1:]:
        bias = ctx.emit("add", bias, p)
    return bias, _masked_rows(ctx, bias)


def _masked_rows(ctx: ImportContext, bias: ir.Value) -> ir.Value:
    """[..., q, 1]: whether every key of the row is disallowed (its bias is all -inf)."""
    t = tensor_t(bias.type)
    assert t is not None
    top = ctx.emit("reduce_max", bias, axes=[t.rank - 1], keepdims=1)
    return ctx.emit("equal", top, ctx.literal(np.array(-np.inf, numpy_dtype_of(t.dtype))))
