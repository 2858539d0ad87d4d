"""Reference implementations of the N-D window ops (`conv_nd`, `max_pool_nd`, `avg_pool_nd`,
`lp_pool_nd`): strided views of the padded input, one per kernel position.

Pooling windows that `ceil_mode` adds past the end padding never win a max, are never counted
in an average and add nothing to an Lp sum (the onnxruntime / PyTorch convention, as for the
2-D ops).
"""

from __future__ import annotations

import itertools

import numpy as np

from ..spec import TensorT, pool_out
from .core import acc_dtype, is_float, reference, to_dtype


def _ints(attrs: dict[str, object], key: str) -> tuple[int, ...]:
    return tuple(int(v) for v in attrs[key])  # type: ignore[union-attr]


def _geometry(
    shape: tuple[int, ...], kernel: tuple[int, ...], attrs: dict[str, object], ceil: bool
) -> tuple[list[int], list[tuple[int, int]]]:
    """Output spatial sizes and per-dim (begin, end) padding that makes every window fit (the
    end includes what ceil_mode needs beyond the explicit padding)."""
    spatial = len(kernel)
    s, d, p = _ints(attrs, "strides"), _ints(attrs, "dilations"), _ints(attrs, "pads")
    sizes, widths = [], []
    for i in range(spatial):
        n = shape[2 + i]
        out = pool_out(n, kernel[i], s[i], p[i], p[spatial + i], d[i], ceil)
        need = (out - 1) * s[i] + d[i] * (kernel[i] - 1) + 1
        sizes.append(out)
        widths.append((p[i], p[spatial + i] + max(0, need - (n + p[i] + p[spatial + i]))))
    return sizes, widths


def _views(
    xp: np.ndarray, kernel: tuple[int, ...], attrs: dict[str, object], out: list[int]
) -> list[np.ndarray]:
    """One strided view of the padded array per kernel position (row-major over the kernel)."""
    s, d = _ints(attrs, "strides"), _ints(attrs, "dilations")
    views = []
    for pos in itertools.product(*(range(k) for k in kernel)):
        index = (Ellipsis,) + tuple(
            slice(pos[i] * d[i], pos[i] * d[i] + s[i] * (out[i] - 1) + 1, s[i])
            for i in range(len(kernel))
        )
        views.append(xp[index])
    return views


@reference("conv_nd")
def conv_nd(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x, w = ins[0], ins[1]
    b = ins[2] if len(ins) > 2 else None
    acc = acc_dtype(x.dtype)
    group = int(attrs["group"])  # type: ignore[call-overload]
    kernel = tuple(w.shape[2:])
    sizes, widths = _geometry(x.shape, kernel, attrs, False)
    xp = np.pad(x.astype(acc), [(0, 0), (0, 0), *widths])
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    cols = np.stack(_views(xp, kernel, attrs, sizes), axis=2)  # [N, C, K, *out]
    cols = cols.reshape(n, group, cg * int(np.prod(kernel)), int(np.prod(sizes)))
    wg = w.astype(acc).reshape(group, o // group, cg * int(np.prod(kernel)))
    y = np.matmul(wg, cols).reshape(n, o, *sizes)
    if b is not None:
        y = y + b.astype(acc).reshape((1, o) + (1,) * len(sizes))
    return to_dtype(y, x.dtype)


@reference("max_pool_nd")
def max_pool_nd(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x = ins[0]
    kernel = _ints(attrs, "kernel_shape")
    sizes, widths = _geometry(x.shape, kernel, attrs, bool(attrs["ceil_mode"]))
    low = -np.inf if is_float(x) else np.iinfo(x.dtype).min
    xp = np.pad(x, [(0, 0), (0, 0), *widths], constant_values=low)
    return np.max(np.stack(_views(xp, kernel, attrs, sizes)), axis=0).astype(x.dtype, copy=False)


def _window_sum(x: np.ndarray, attrs: dict[str, object]) -> tuple[np.ndarray, np.ndarray]:
    """(sum of each window over the zero-padded input, the number of members it counts)."""
    kernel = _ints(attrs, "kernel_shape")
    sizes, widths = _geometry(x.shape, kernel, attrs, bool(attrs["ceil_mode"]))
    total = np.sum(np.stack(_views(np.pad(x, [(0, 0), (0, 0), *widths]), kernel, attrs, sizes)), 0)
    # Members: the input, plus the explicit padding with count_include_pad; never the
    # positions added for ceil_mode.
    spatial = len(kernel)
    pads = _ints(attrs, "pads")
    mask = np.zeros([x.shape[2 + i] + sum(widths[i]) for i in range(spatial)], x.dtype)
    sizes_in = [x.shape[2 + i] for i in range(spatial)]
    if int(attrs.get("count_include_pad", 0)):  # type: ignore[call-overload]
        mask[tuple(slice(0, pads[i] + n + pads[spatial + i]) for i, n in enumerate(sizes_in))] = 1
    else:
        mask[tuple(slice(pads[i], pads[i] + n) for i, n in enumerate(sizes_in))] = 1
    count = np.sum(np.stack(_views(mask, kernel, attrs, sizes)), axis=0)
    return total, count


@reference("avg_pool_nd")
def avg_pool_nd(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x = ins[0]
    total, count = _window_sum(x.astype(acc_dtype(x.dtype)), attrs)
    with np.errstate(all="ignore"):
        return to_dtype(total / count, x.dtype)


@reference("lp_pool_nd")
def lp_pool_nd(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x = ins[0]
    p = float(attrs["p"])  # type: ignore[arg-type]
    powered = np.abs(x.astype(acc_dtype(x.dtype))) ** p
    total, _ = _window_sum(powered, attrs)
    return to_dtype(total ** (1.0 / p), x.dtype)


@reference("max_pool_indices")
def max_pool_indices(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    x = ins[0]
    kernel = _ints(attrs, "kernel_shape")
    spatial = len(kernel)
    sizes, widths = _geometry(x.shape, kernel, attrs, bool(attrs["ceil_mode"]))
    low = -np.inf if is_float(x) else np.iinfo(x.dtype).min
    xp = np.pad(x, [(0, 0), (0, 0), *widths], constant_values=low)
    # the flat index of every padded position (padding never wins the max)
    dims = x.shape[2:]
    if int(attrs["storage_order"]):  # type: ignore[call-overload]
        strides = [int(np.prod(dims[:d])) for d in range(spatial)]
    else:
        strides = [int(np.prod(dims[d + 1 :])) for d in range(spatial)]
    grids = np.meshgrid(*(np.arange(-w[0], n + w[1]) for w, n in zip(widths, dims)), indexing="ij")
    within = sum(g * s for g, s in zip(grids, strides))
    planes = np.arange(x.shape[0] * x.shape[1]).reshape(x.shape[:2]) * int(np.prod(dims))
    flat = planes.reshape(x.shape[:2] + (1,) * spatial) + within
    values = np.stack(_views(xp, kernel, attrs, sizes))
    picks = np.argmax(values, axis=0)  # the first maximum in the window's row-major order
    positions = np.stack(_views(np.broadcast_to(flat, xp.shape), kernel, attrs, sizes))
    return np.take_along_axis(positions, picks[None], axis=0)[0].astype(np.int64)
