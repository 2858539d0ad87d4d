"""Shared pieces of the numpy reference: the op table, element-type mapping, float helpers.

An implementation takes the operand arrays, the op's attributes as plain Python values (as
`attrs.from_attr` gives them) and the declared result type (None when unknown), and returns
the result array with the element type the op's shape rule gives.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mlc.contract import NUMPY_DTYPES

from ..spec import TensorT, norm_axis

Impl = Callable[[list[np.ndarray], dict[str, object], TensorT | None], np.ndarray]

# op name ("conv2d", or "tensor.concat" for the upstream op) -> implementation.
IMPLS: dict[str, Impl] = {}


def reference(*names: str) -> Callable[[Impl], Impl]:
    """Register one implementation under one or more op names."""

    def register(fn: Impl) -> Impl:
        for name in names:
            assert name not in IMPLS, f"duplicate reference implementation of {name}"
            IMPLS[name] = fn
        return fn

    return register


class UnsupportedDtypeError(NotImplementedError):
    """An element type numpy cannot represent (bf16, f8 ...)."""


_NP_DTYPES = {name: np.dtype(numpy) for name, numpy in NUMPY_DTYPES.items()}
_MLIR_NAMES = {v: k for k, v in _NP_DTYPES.items()}


def np_dtype(mlir_name: str) -> np.dtype:
    """MLIR element type name (`f32`, `i64`, `i1`) -> numpy dtype."""
    try:
        return _NP_DTYPES[mlir_name]
    except KeyError:
        raise UnsupportedDtypeError(
            f"element type {mlir_name} has no numpy equivalent in the reference"
        ) from None


def mlir_dtype(dtype: np.dtype) -> str:
    """numpy dtype -> MLIR element type name."""
    try:
        return _MLIR_NAMES[np.dtype(dtype)]
    except KeyError:
        raise UnsupportedDtypeError(f"numpy dtype {dtype} has no MLIR element type") from None


def acc_dtype(dtype: np.dtype) -> np.dtype:
    """Type to compute floating math in: f16 goes through f32 (as onnxruntime does), integers
    through f64; f32 and f64 stay."""
    dtype = np.dtype(dtype)
    if dtype == np.float16:
        return np.dtype(np.float32)
    return dtype if np.issubdtype(dtype, np.floating) else np.dtype(np.float64)


def to_dtype(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Cast with C semantics (float -> int truncates), without numpy's overflow warnings."""
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(dtype, copy=False)


def is_float(x: np.ndarray) -> bool:
    return bool(np.issubdtype(x.dtype, np.floating))


def float_map(fn: Callable[[np.ndarray], np.ndarray]) -> Impl:
    """An elementwise float op: computed in `acc_dtype`, returned in the input's type."""

    def impl(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
        x = ins[0]
        with np.errstate(all="ignore"):
            return to_dtype(fn(x.astype(acc_dtype(x.dtype))), x.dtype)

    return impl


def axes_of(attrs: dict[str, object], rank: int) -> tuple[int, ...]:
    return tuple(sorted(norm_axis(int(a), rank) for a in attrs["axes"]))  # type: ignore[union-attr]


def axis_of(attrs: dict[str, object], rank: int, key: str = "axis") -> int:
    return norm_axis(int(attrs[key]), rank)  # type: ignore[arg-type]


def trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer division rounding toward zero (C / ONNX), in the operands' type."""
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.floor_divide(a, b)
        r = a - q * b
    fix = (r != 0) & ((a < 0) != (b < 0))
    return (q + fix.astype(q.dtype)).astype(np.result_type(a, b), copy=False)
