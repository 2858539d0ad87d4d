"""Reference implementations of the pooling ops (ONNX MaxPool / AveragePool / Global*Pool).

Windows that `ceil_mode` adds past the explicit end padding read a value that never wins the max
and are never counted in an average; `count_include_pad` counts the explicit padding only
(the onnxruntime / PyTorch convention).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..spec import TensorT, pool_out
from .core import acc_dtype, is_float, reference, to_dtype
from .layout import from_nchw, to_nchw


def _ints(attrs: dict[str, object], key: str) -> tuple[int, ...]:
    return tuple(int(v) for v in attrs[key])  # type: ignore[union-attr]


def _windows(
    xp: np.ndarray,
    k: tuple[int, ...],
    s: tuple[int, ...],
    d: tuple[int, ...],
    out_hw: tuple[int, int],
) -> list[np.ndarray]:
    """The kh*kw strided views of a padded [..., H, W] array, one per kernel position."""
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = k, s, d, out_hw
    return [
        xp[..., i * dh : i * dh + sh * (oh - 1) + 1 : sh, j * dw : j * dw + sw * (ow - 1) + 1 : sw]
        for i in range(kh)
        for j in range(kw)
    ]


def _geometry(
    shape: tuple[int, ...], attrs: dict[str, object]
) -> tuple[tuple[int, int], tuple[tuple[int, int], tuple[int, int]]]:
    """Output (OH, OW) and the padding ((top, bottom'), (left, right')) that makes every
    window fit, where bottom'/right' include the extra rows/cols ceil_mode needs."""
    h, w = shape[-2:]
    k, s, d = _ints(attrs, "kernel_shape"), _ints(attrs, "strides"), _ints(attrs, "dilations")
    pt, pl, pb, pr = _ints(attrs, "pads")
    ceil = bool(int(attrs["ceil_mode"]))  # type: ignore[call-overload]
    oh = pool_out(h, k[0], s[0], pt, pb, d[0], ceil)
    ow = pool_out(w, k[1], s[1], pl, pr, d[1], ceil)
    need_h = (oh - 1) * s[0] + d[0] * (k[0] - 1) + 1
    need_w = (ow - 1) * s[1] + d[1] * (k[1] - 1) + 1
    extra_h, extra_w = max(0, need_h - (h + pt + pb)), max(0, need_w - (w + pl + pr))
    return (oh, ow), ((pt, pb + extra_h), (pl, pr + extra_w))


def _pool(
    attrs: dict[str, object],
    x: np.ndarray,
    body: Callable[[np.ndarray, dict[str, object]], np.ndarray],
) -> np.ndarray:
    layout = str(attrs["layout"])
    return from_nchw(body(to_nchw(x, layout), attrs), layout)


def _max_nchw(x: np.ndarray, attrs: dict[str, object]) -> np.ndarray:
    out_hw, (ph, pw) = _geometry(x.shape, attrs)
    low = -np.inf if is_float(x) else np.iinfo(x.dtype).min
    xp = np.pad(x, ((0, 0), (0, 0), ph, pw), constant_values=low)
    views = _windows(
        xp, _ints(attrs, "kernel_shape"), _ints(attrs, "strides"), _ints(attrs, "dilations"), out_hw
    )
    return np.max(np.stack(views), axis=0).astype(x.dtype, copy=False)


def _avg_nchw(x: np.ndarray, attrs: dict[str, object]) -> np.ndarray:
    acc = acc_dtype(x.dtype)
    h, w = x.shape[-2:]
    out_hw, (ph, pw) = _geometry(x.shape, attrs)
    k, s, d = _ints(attrs, "kernel_shape"), _ints(attrs, "strides"), _ints(attrs, "dilations")
    xp = np.pad(x.astype(acc), ((0, 0), (0, 0), ph, pw))
    total = np.sum(np.stack(_windows(xp, k, s, d, out_hw)), axis=0)
    # Which padded positions count as window members: the input, plus the explicit padding
    # when count_include_pad; never the rows/cols added for ceil_mode.
    pt, pl, pb, pr = _ints(attrs, "pads")
    mask = np.zeros((h + ph[0] + ph[1], w + pw[0] + pw[1]), acc)
    if int(attrs["count_include_pad"]):  # type: ignore[call-overload]
        mask[: pt + h + pb, : pl + w + pr] = 1
    else:
        mask[pt : pt + h, pl : pl + w] = 1
    count = np.sum(np.stack(_windows(mask, k, s, d, out_hw)), axis=0)
    with np.errstate(all="ignore"):
        return to_dtype(total / count, x.dtype)


@reference("max_pool2d")
def max_pool2d(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    return _pool(attrs, ins[0], _max_nchw)


@reference("avg_pool2d")
def avg_pool2d(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    return _pool(attrs, ins[0], _avg_nchw)


@reference("global_avg_pool2d")
def global_avg_pool2d(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    x = ins[0]
    axes = tuple(range(2, x.ndim))
    return to_dtype(np.mean(x, axis=axes, dtype=acc_dtype(x.dtype), keepdims=True), x.dtype)


@reference("global_max_pool2d")
def global_max_pool2d(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    x = ins[0]
    return np.max(x, axis=tuple(range(2, x.ndim)), keepdims=True)
