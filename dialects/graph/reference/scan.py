"""Reference implementations of the scans (`cumsum`, `cumprod`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..spec import TensorT
from .core import Impl, acc_dtype, axis_of, is_float, reference, to_dtype


def _scan(fn: Callable[..., np.ndarray], identity: int) -> Impl:
    """Floats are scanned in `acc_dtype` (f16 through f32, rounded once); integers wrap in
    their own type. `exclusive` shifts the inclusive scan by one, starting at the identity."""

    def impl(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
        x = ins[0]
        axis = axis_of(attrs, x.ndim)
        acc = acc_dtype(x.dtype) if is_float(x) else x.dtype
        data = np.flip(x, axis) if attrs["reverse"] else x
        with np.errstate(all="ignore"):
            y = fn(data.astype(acc), axis=axis, dtype=acc)
        if attrs["exclusive"]:
            first = np.full_like(np.take(y, [0], axis=axis), identity)
            y = np.concatenate([first, np.take(y, range(y.shape[axis] - 1), axis=axis)], axis)
        if attrs["reverse"]:
            y = np.flip(y, axis)
        return np.ascontiguousarray(to_dtype(y, x.dtype))

    return impl


reference("cumsum")(_scan(np.cumsum, 0))
reference("cumprod")(_scan(np.cumprod, 1))
