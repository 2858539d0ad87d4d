"""Reference implementations of the reductions (`reduce_*`, `argmax`, `argmin`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..spec import TensorT
from .core import acc_dtype, axes_of, axis_of, is_float, reference, to_dtype, trunc_div

Reducer = Callable[[np.ndarray, tuple[int, ...]], np.ndarray]


def _sum_dtype(x: np.ndarray) -> np.dtype:
    """Accumulator of sums: f16 through f32; integers wrap in their own type like ORT."""
    return acc_dtype(x.dtype) if is_float(x) else x.dtype


def _mean(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    if is_float(x):
        return np.mean(x, axis=axes, dtype=_sum_dtype(x), keepdims=True)
    count = int(np.prod([x.shape[a] for a in axes]))
    total = np.sum(
        x, axis=axes, dtype=np.int64 if x.dtype.kind == "i" else np.uint64, keepdims=True
    )
    return trunc_div(total, np.asarray(count, total.dtype))


def _l2(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    xf = x.astype(acc_dtype(x.dtype))
    return np.sqrt(np.sum(xf * xf, axis=axes, keepdims=True))


def _sum_square(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    xa = x.astype(_sum_dtype(x))
    return np.sum(xa * xa, axis=axes, keepdims=True)


def _extreme(fn: Callable[..., np.ndarray], is_max: bool) -> Reducer:
    """np.max / np.min, except that over an empty set the result is the identity (ONNX: the
    lowest / highest value of the type, -inf / +inf for floats), as in the compiled code."""

    def reducer(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        if all(x.shape[a] for a in axes):
            return fn(x, axis=axes, keepdims=True)
        shape = tuple(1 if d in axes else n for d, n in enumerate(x.shape))
        return np.full(shape, _identity(x.dtype, is_max), x.dtype)

    return reducer


def _identity(dtype: np.dtype, is_max: bool) -> object:
    """The start value of a max (`is_max`) or min reduction of `dtype` values."""
    if dtype == np.bool_:
        return not is_max
    if np.issubdtype(dtype, np.floating):
        return -np.inf if is_max else np.inf
    info = np.iinfo(dtype)
    return info.min if is_max else info.max


_REDUCERS: dict[str, Reducer] = {
    "reduce_sum": lambda x, ax: np.sum(x, axis=ax, dtype=_sum_dtype(x), keepdims=True),
    "reduce_mean": _mean,
    "reduce_max": _extreme(np.max, is_max=True),
    "reduce_min": _extreme(np.min, is_max=False),
    "reduce_prod": lambda x, ax: np.prod(x, axis=ax, dtype=_sum_dtype(x), keepdims=True),
    "reduce_l2": _l2,
    "reduce_sum_square": _sum_square,
}


def _reduce_impl(fn: Reducer) -> Callable[..., np.ndarray]:
    def impl(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
        x = ins[0]
        axes = axes_of(attrs, x.ndim)
        with np.errstate(all="ignore"):
            y = fn(x, axes)
        if not int(attrs["keepdims"]):  # type: ignore[call-overload]
            y = np.squeeze(y, axis=axes)
        return to_dtype(y, x.dtype)

    return impl


for _name, _fn in _REDUCERS.items():
    reference(_name)(_reduce_impl(_fn))


def _arg_impl(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """argmax/argmin; select_last_index=1 picks the last of equal extremes."""

    def impl(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
        x = ins[0]
        axis = axis_of(attrs, x.ndim)
        if int(attrs["select_last_index"]):  # type: ignore[call-overload]
            idx = x.shape[axis] - 1 - fn(np.flip(x, axis), axis=axis)
        else:
            idx = fn(x, axis=axis)
        if int(attrs["keepdims"]):  # type: ignore[call-overload]
            idx = np.expand_dims(idx, axis)
        return np.asarray(idx, dtype=np.int64)

    return impl


reference("argmax")(_arg_impl(np.argmax))
reference("argmin")(_arg_impl(np.argmin))
