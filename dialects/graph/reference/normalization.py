"""Reference implementations of `rms_norm`, `group_norm`, `mean_variance_norm` and `lp_norm`.

Computed in `acc_dtype` (f16 through f32) and rounded once, as the compiled kernels do.
"""

from __future__ import annotations

import numpy as np

from ..spec import TensorT
from .core import acc_dtype, axes_of, axis_of, reference, to_dtype


def _f(attrs: dict[str, object], key: str) -> float:
    return float(attrs[key])  # type: ignore[arg-type]


@reference("rms_norm")
def rms_norm(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x, scale = ins
    acc = acc_dtype(x.dtype)
    xf = x.astype(acc)
    axes = tuple(range(axis_of(attrs, x.ndim), x.ndim))
    mean_square = np.mean(xf * xf, axis=axes, keepdims=True)
    y = xf / np.sqrt(mean_square + _f(attrs, "epsilon")) * scale.astype(acc)
    return to_dtype(y, x.dtype)


@reference("group_norm")
def group_norm(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x, scale, bias = ins
    acc = acc_dtype(x.dtype)
    groups = int(attrs["num_groups"])  # type: ignore[call-overload]
    grouped = x.astype(acc).reshape(x.shape[0], groups, -1)
    mean = grouped.mean(axis=2, keepdims=True)
    var = ((grouped - mean) ** 2).mean(axis=2, keepdims=True)
    normalized = ((grouped - mean) / np.sqrt(var + _f(attrs, "epsilon"))).reshape(x.shape)
    per_channel = (x.shape[1],) + (1,) * (x.ndim - 2)
    y = normalized * scale.astype(acc).reshape(per_channel) + bias.astype(acc).reshape(per_channel)
    return to_dtype(y, x.dtype)


@reference("mean_variance_norm")
def mean_variance_norm(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    x = ins[0]
    xf = x.astype(acc_dtype(x.dtype))
    axes = axes_of(attrs, x.ndim)
    centered = xf - xf.mean(axis=axes, keepdims=True)
    std = np.sqrt((centered**2).mean(axis=axes, keepdims=True))
    return to_dtype(centered / (std + _f(attrs, "epsilon")), x.dtype)


@reference("lp_norm")
def lp_norm(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x = ins[0]
    xf = x.astype(acc_dtype(x.dtype))
    axis = axis_of(attrs, x.ndim)
    if int(attrs["p"]) == 1:  # type: ignore[call-overload]
        norm = np.abs(xf).sum(axis=axis, keepdims=True)
    else:
        norm = np.sqrt((xf * xf).sum(axis=axis, keepdims=True))
    with np.errstate(all="ignore"):
        y = np.where(norm == 0, 0, xf / norm)
    return to_dtype(y, x.dtype)
