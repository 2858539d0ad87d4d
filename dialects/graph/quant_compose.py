"""Integer convolution and matrix product with zero points, composed from graph ops.

    sum_k (x_k - zx) * (w_k - zw) = sum_k x_k * w'_k - zx * sum_k w'_k,   w' = w - zw

The product of the raw input with the (usually constant) shifted weights is `conv2d_integer` /
`matmul_integer`, and `zx * sum(w')` a per-output-channel correction that graph-fold-constants
evaluates once when the weights and zx are constants (MLAS handles zero points the same way).
A convolution pads with zx so that padded taps cancel in the correction. A matrix product of
uint8 activations with uint8 weights (or a nonzero weight zero point) multiplies by int8 weights
b - 128 instead, with a row-sum correction: the 4-way dot products take uint8 x int8 only.
The ONNX importer (ConvInteger, QLinearConv, MatMulInteger, QLinearMatMul) and
`graph-fuse-qdq` both use this.

`emit(op, *operands, **attrs)` builds one graph op where the caller wants it (the importer
names the ONNX node in errors); zero points come with their value when it is known.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from mlir import ir

from ..attrs import tensor_t
from .spec import TensorT

Emit = Callable[..., ir.Value]


@dataclass(frozen=True)
class ZeroPoint:
    """A zero point as a graph value broadcastable to its operand, and its value if constant.
    A known zero needs no graph value (`value` None): nothing reads it."""

    value: ir.Value | None
    known: np.ndarray | None = None

    def __post_init__(self) -> None:
        assert self.value is not None or self.is_zero, "a nonzero zero point needs its value"

    @property
    def graph_value(self) -> ir.Value:
        assert self.value is not None
        return self.value

    @property
    def is_zero(self) -> bool:
        return self.known is not None and not np.any(self.known)

    @property
    def constant_scalar(self) -> int | None:
        """The zero point if it is one known value (per-tensor), else None."""
        if self.known is None or np.unique(self.known).size != 1:
            return None
        return int(self.known.reshape(-1)[0])


def _type(v: ir.Value) -> TensorT:
    t = tensor_t(v.type)
    assert t is not None, v.type
    return t


def shifted(emit: Emit, w: ir.Value, zw: ZeroPoint) -> ir.Value:
    """w - zw in i16 (8-bit differences need 9 bits); w itself when zw is known to be 0."""
    if zw.is_zero:
        return w
    wide = emit("cast", w, to="i16")
    return emit("sub", wide, emit("cast", zw.graph_value, to="i16"))


def integer_conv(
    emit: Emit,
    x: ir.Value,
    w: ir.Value,
    zx: ZeroPoint,
    zw: ZeroPoint,
    bias: ir.Value | None = None,
    **window: object,
) -> ir.Value:
    """conv(x - zx, w - zw) + bias in i32; `zw` broadcasts against w ([O, 1, 1, 1] per
    channel), `bias` is i32 [O]. The bias and the zero-point correction are one constant."""
    w2 = shifted(emit, w, zw)
    pad = zx.constant_scalar
    if pad is None:  # a zero point known only at run time: subtract it from the input once
        x = emit("sub", emit("cast", x, to="i16"), emit("cast", zx.graph_value, to="i16"))
        pad = 0
    y = emit("conv2d_integer", x, w2, pad_value=pad, **window)
    offset = bias
    if pad != 0:
        sums = emit("reduce_sum", emit("cast", w2, to="i32"), axes=[1, 2, 3], keepdims=0)
        correction = emit("mul", emit("cast", zx.graph_value, to="i32"), sums)
        offset = emit("neg", correction) if bias is None else emit("sub", bias, correction)
    if offset is None:
        return y
    return emit("add", y, emit("reshape", offset, shape=[_type(w).shape[0], 1, 1]))


def integer_matmul(
    emit: Emit,
    a: ir.Value,
    b: ir.Value,
    za: ZeroPoint,
    zb: ZeroPoint,
    bias: ir.Value | None = None,
) -> ir.Value:
    """matmul(a - za, b - zb) + bias in i32; za broadcasts against a (scalar, or [..., M, 1]
    per row), zb against b (scalar, or [N] / [..., 1, N] per column), bias against the result."""
    b2 = shifted(emit, b, zb)
    signed = _signed_weights(emit, a, b, zb)
    y = emit("matmul_integer", a, b2 if signed is None else signed[0])
    offset = bias
    if signed is not None and signed[1] is not None:  # - zb' sum(a): b' - zb' = b - zb
        a_t = _type(a)
        rows = emit(
            "reduce_sum", emit("cast", a, to="i32"), axes=[a_t.rank - 1], keepdims=int(a_t.rank > 1)
        )
        term = emit("mul", rows, signed[1])
        offset = emit("neg", term) if offset is None else emit("sub", offset, term)
    if not za.is_zero:
        a_t, b_t = _type(a), _type(b)
        if b_t.rank == 1:
            sums = emit("reduce_sum", emit("cast", b2, to="i32"), axes=[0], keepdims=0)
        else:  # column sums, kept as a row [..., 1, N] (or [..., N] for a vector lhs)
            keep = 1 if a_t.rank > 1 else 0
            sums = emit(
                "reduce_sum", emit("cast", b2, to="i32"), axes=[b_t.rank - 2], keepdims=keep
            )
        correction = emit("mul", emit("cast", za.graph_value, to="i32"), sums)
        offset = emit("neg", correction) if offset is None else emit("sub", offset, correction)
    return y if offset is None else emit("add", y, offset)


def _signed_weights(
    emit: Emit, a: ir.Value, b: ir.Value, zb: ZeroPoint
) -> tuple[ir.Value, ir.Value | None] | None:
    """For uint8 activations with uint8 weights or a nonzero weight zero point: int8 weights
    b' (b - 128 for uint8) and zb' (zb - 128, i32), so that the product is uint8 x int8 (one
    vpdpbusd per four k) instead of a product with 16-bit shifted weights (3-4x slower):
    sum (a - za)(b - zb) = sum a b' - zb' sum a - za sum (b - zb). zb' None: it is zero."""
    a_t, b_t = _type(a), _type(b)
    if a_t.dtype != "ui8" or zb.known is None or b_t.dtype not in ("ui8", "i8"):
        return None
    if b_t.dtype == "i8" and zb.is_zero:
        return None  # already the fast case
    shift = 128 if b_t.dtype == "ui8" else 0
    if np.asarray(zb.known).size not in (1, b_t.shape[-1]):
        return None
    b1 = b
    if shift:
        wide = emit("cast", b, to="i16")
        b1 = emit("cast", emit("sub", wide, _literal(emit, np.array(shift, np.int16))), to="i8")
    zb1 = np.asarray(zb.known).astype(np.int32).reshape(-1) - shift
    if not np.any(zb1):
        return b1, None
    return b1, _literal(emit, zb1 if zb1.size > 1 else zb1.reshape(()))


def _literal(emit: Emit, array: np.ndarray) -> ir.Value:
    attr = ir.DenseElementsAttr.get(array)
    return emit("constant", result=attr.type, value=attr)


def requantize(
    emit: Emit, acc: ir.Value, x_scale: ir.Value, w_scale: ir.Value, y_scale: ir.Value, zy: ir.Value
) -> ir.Value:
    """The QLinear* output stage: the multiplier x_scale * w_scale / y_scale is computed in the
    scales' type (as ONNX's reference does), the rest by `requantize`."""
    multiplier = emit("div", emit("mul", x_scale, w_scale), y_scale)
    return emit("requantize", acc, multiplier, zy)
