"""Reference implementations of the ops of `graph/elementwise.py` (ONNX semantics)."""

from __future__ import annotations

import numpy as np

from ..spec import TensorT
from .core import float_map, np_dtype, reference

for _name, _fn in {
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
}.items():
    reference(_name)(float_map(_fn))

reference("bitwise_and")(lambda ins, attrs, out: np.bitwise_and(ins[0], ins[1]))
reference("bitwise_or")(lambda ins, attrs, out: np.bitwise_or(ins[0], ins[1]))
reference("bitwise_xor")(lambda ins, attrs, out: np.bitwise_xor(ins[0], ins[1]))
reference("bitwise_not")(lambda ins, attrs, out: np.invert(ins[0]))
reference("is_nan")(lambda ins, attrs, out: np.isnan(ins[0]))


@reference("is_inf")
def is_inf(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x = ins[0]
    negative = np.isneginf(x) if attrs["detect_negative"] else np.zeros(x.shape, np.bool_)
    positive = np.isposinf(x) if attrs["detect_positive"] else np.zeros(x.shape, np.bool_)
    return negative | positive


@reference("bit_shift")
def bit_shift(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    """BitShift-28: a shift by a negative amount or by the width or more leaves the sign fill
    (-1 for a right shift of a negative value, else 0); numpy's shifts by such amounts are
    undefined, so they never see one."""
    x, y = np.broadcast_arrays(*ins)
    bits = x.dtype.itemsize * 8
    valid = (y >= 0) & (y < bits)
    amount = np.where(valid, y, 0).astype(y.dtype)
    if attrs["direction"] == "LEFT":
        shifted, fill = np.left_shift(x, amount), np.zeros_like(x)
    else:
        shifted = np.right_shift(x, amount)  # arithmetic for signed types
        fill = np.where(x < 0, x.dtype.type(-1) if x.dtype.kind == "i" else 0, 0).astype(x.dtype)
    return np.where(valid, shifted, fill).astype(x.dtype)


@reference("bitcast")
def bitcast(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x, target = ins[0], np_dtype(str(attrs["to"]))
    if x.dtype == np.bool_:
        x = x.astype(np.uint8)
    if target == np.bool_:
        return np.ascontiguousarray(x).view(np.uint8) != 0
    return np.ascontiguousarray(x).view(target)


@reference("trilu")
def trilu(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    k = int(attrs["k"])  # type: ignore[call-overload]
    return np.triu(ins[0], k) if attrs["upper"] else np.tril(ins[0], k)
