"""Reference implementations of the quantization ops (ONNX QuantizeLinear / DequantizeLinear,
the QLinear* requantization, ConvInteger / MatMulInteger without zero points)."""

from __future__ import annotations

import numpy as np

from ..quant import QUANT_RANGE, dot4_kernel_layout
from ..spec import TensorT
from .core import mlir_dtype, np_dtype, reference
from .layout import from_nchw, kernel_to_oihw, to_nchw
from .nn import conv2d_nchw


def saturate(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Integral float values clamped to the range of `dtype` (NaN gives the minimum), cast."""
    lo, hi = QUANT_RANGE[mlir_dtype(dtype)]
    clean = np.where(np.isnan(values), lo, values)
    return np.clip(clean, lo, hi).astype(dtype)


@reference("quantize_linear")
def quantize_linear(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    """The division and the rounding (half to even) in the input's type, then the zero point."""
    x, scale, zp = ins
    with np.errstate(all="ignore"):
        rounded = np.rint(x / scale).astype(np.float64)
    return saturate(rounded + zp.astype(np.float64), zp.dtype)


@reference("lookup")
def lookup(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x, table = ins
    offset = 128 if x.dtype == np.int8 else 0
    return table[x.astype(np.int64) + offset].astype(np_dtype(str(attrs["to"])))


@reference("dequantize_linear")
def dequantize_linear(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    """(x - zp) in i32 (wrapping), converted to f32 (f64 for f64 scales), times the scale,
    rounded once to the scale's type (f16 scales multiply in f32, as onnxruntime does)."""
    x, scale, zp = ins
    diff = (x.astype(np.int64) - zp.astype(np.int64)).astype(np.int32)
    compute = np.float64 if scale.dtype == np.float64 else np.float32
    return (diff.astype(compute) * scale.astype(compute)).astype(scale.dtype)


@reference("requantize")
def requantize(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    acc, multiplier, zp = ins
    product = acc.astype(np.float64) * multiplier.astype(np.float64)
    return saturate(np.rint(product) + zp.astype(np.float64), zp.dtype)


@reference("conv2d_integer")
def conv2d_integer(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    """Padding reads `pad_value`; products summed exactly (int64), wrapped to i32."""
    x = to_nchw(ins[0], str(attrs["data_layout"])).astype(np.int64)
    w, layout = ins[1], str(attrs["kernel_layout"])
    packed = dot4_kernel_layout(layout)
    if packed is not None:  # [O/o, I/i, KH, KW, q, o, 4] -> [O/o, I/i, KH, KW, i, o]
        w = w.transpose(0, 1, 2, 3, 4, 6, 5).reshape(w.shape[:4] + (packed[0], packed[1]))
        layout = f"OIHW{packed[0]}i{packed[1]}o"
    w = kernel_to_oihw(w, layout).astype(np.int64)
    pad = int(attrs["pad_value"])  # type: ignore[call-overload]
    pt, pl, pb, pr = (int(p) for p in attrs["pads"])  # type: ignore[union-attr]
    x = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=pad)
    y = _exact_conv(x, w, attrs)
    return from_nchw(y.astype(np.int32), str(attrs["out_layout"]))


def _exact_conv(x: np.ndarray, w: np.ndarray, attrs: dict[str, object]) -> np.ndarray:
    """conv2d_nchw computes in float64, exact while every partial sum stays below 2**53; the
    int64 result is checked against that bound."""
    bound = np.abs(x).max(initial=0) * np.abs(w).max(initial=0) * w[0].size
    if bound >= 2**53:
        raise ValueError("conv2d_integer: the reference cannot sum these products exactly")
    return conv2d_nchw(
        x,
        w,
        None,
        tuple(int(s) for s in attrs["strides"]),  # type: ignore[union-attr]
        (0, 0, 0, 0),
        tuple(int(d) for d in attrs["dilations"]),  # type: ignore[union-attr]
        int(attrs["group"]),  # type: ignore[call-overload]
    )


@reference("matmul_integer")
def matmul_integer(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    a, b = ins
    if attrs["rhs_layout"] == "KN4k":  # [K/4, N, 4] -> [K, N]
        b = b.transpose(0, 2, 1).reshape(b.shape[0] * 4, b.shape[1])
    return np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(np.int32)
