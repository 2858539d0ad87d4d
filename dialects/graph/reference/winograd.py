"""Reference implementations of the Winograd transforms (winograd_input, winograd_output)."""

from __future__ import annotations

import numpy as np

from ..spec import TensorT
from ..winograd import TRANSFORMS, tile_grid
from .core import reference, to_dtype
from .layout import from_nchw, to_nchw


def _ints(attrs: dict[str, object], key: str) -> tuple[int, ...]:
    return tuple(int(v) for v in attrs[key])  # type: ignore[union-attr]


@reference("winograd_input")
def winograd_input(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    x = to_nchw(ins[0], str(attrs["data_layout"])).astype(np.float64)
    m, (top, left) = int(attrs["tile"]), _ints(attrs, "pads")  # type: ignore[call-overload]
    bt = TRANSFORMS[m][0]
    th, tw = tile_grid(_ints(attrs, "out_size"), m)
    n, c, h, w = x.shape
    rows, cols = m * th + 2, m * tw + 2
    xp = np.zeros((n, c, max(rows, top + h), max(cols, left + w)))
    xp[:, :, top : top + h, left : left + w] = x
    # d[n, c, ty, tx, i, j] = xp[n, c, m*ty + i, m*tx + j]
    d = np.stack(
        [
            np.stack([xp[:, :, i : i + m * th : m, j : j + m * tw : m] for j in range(m + 2)], -1)
            for i in range(m + 2)
        ],
        -2,
    )
    v = np.einsum("ai,nctxij,bj->abntxc", bt, d, bt)
    return to_dtype(v.reshape((m + 2) ** 2, n * th * tw, c), ins[0].dtype)


@reference("winograd_output")
def winograd_output(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    m, n = int(attrs["tile"]), int(attrs["batch"])  # type: ignore[call-overload]
    oh, ow = _ints(attrs, "out_size")
    at = TRANSFORMS[m][2]
    th, tw = tile_grid((oh, ow), m)
    k = ins[0].shape[2]
    mm = ins[0].astype(np.float64).reshape(m + 2, m + 2, n, th, tw, k)
    y = np.einsum("ia,abntxk,jb->nktixj", at, mm, at).reshape(n, k, th * m, tw * m)[:, :, :oh, :ow]
    if len(ins) > 1:
        y = y + ins[1].astype(np.float64).reshape(1, k, 1, 1)
    return from_nchw(to_dtype(y, ins[0].dtype), str(attrs["out_layout"]))
