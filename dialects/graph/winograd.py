"""Winograd convolution ops: the input and output transforms of F(m x m, 3 x 3) (Lavin & Gray).

A 3x3 stride-1 conv computes each m x m tile of its output from an (m+2) x (m+2) tile d of its
input and the 3x3 filter g as

    Y = A^T [ (G g G^T) * (B^T d B) ] A          (* elementwise)

Over all tiles and channels the elementwise product becomes (m+2)^2 independent matrix products

    M[xi] = V[xi] . U[xi]      V: [(m+2)^2, tiles, C] (winograd_input)
                               U: [(m+2)^2, C, K]     (the weights: G g G^T, at compile time)

so the conv does (m+2)^2 / (9 m^2) of its multiply-adds in a GEMM (0.44 for m = 2, 0.25 for
m = 4); winograd_output applies A^T . A to M (and adds the bias). Tiles are numbered
(n, tile row, tile column) in row-major order; a tile past the output's last row or column
reads zeros and is not written.
"""

from __future__ import annotations

import numpy as np

from .spec import (
    AttrSpec,
    OpSpec,
    TensorT,
    ints,
    is_float,
    layout_block,
    need,
    present,
    register,
    same_dtype,
)

# (B^T, G, A^T) per output tile size m: B^T is (m+2)x(m+2), G (m+2)x3, A^T m x (m+2).
TRANSFORMS: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {
    2: (
        np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], np.float64),
        np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], np.float64),
        np.array([[1, 1, 1, 0], [0, 1, -1, -1]], np.float64),
    ),
    4: (
        np.array(
            [
                [4, 0, -5, 0, 1, 0],
                [0, -4, -4, 1, 1, 0],
                [0, 4, -4, -1, 1, 0],
                [0, -2, -1, 2, 1, 0],
                [0, 2, -1, -2, 1, 0],
                [0, 4, 0, -5, 0, 1],
            ],
            np.float64,
        ),
        np.array(
            [
                [1 / 4, 0, 0],
                [-1 / 6, -1 / 6, -1 / 6],
                [-1 / 6, 1 / 6, -1 / 6],
                [1 / 24, 1 / 12, 1 / 6],
                [1 / 24, -1 / 12, 1 / 6],
                [0, 0, 1],
            ],
            np.float64,
        ),
        np.array(
            [[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]],
            np.float64,
        ),
    ),
}
TILES = tuple(TRANSFORMS)


def tile_grid(out_size: tuple[int, ...], m: int) -> tuple[int, int]:
    """Tile rows and columns covering an oh x ow output with m x m tiles."""
    return -(-out_size[0] // m), -(-out_size[1] // m)


def filter_transform(m: int) -> np.ndarray:
    """[(m+2)^2, 9]: row xi = (alpha, beta) maps a flattened 3x3 filter to U[xi] (G g G^T)."""
    g = TRANSFORMS[m][1]
    return np.einsum("ai,bj->abij", g, g).reshape((m + 2) ** 2, 9)


def _tile(attrs: dict[str, object]) -> int:
    m = int(attrs["tile"])  # type: ignore[call-overload]
    need(m in TRANSFORMS, f"tile must be one of {list(TILES)}, got {m}")
    return m


def _out_size(attrs: dict[str, object]) -> tuple[int, int]:
    size = ints(attrs, "out_size")
    need(len(size) == 2 and min(size) > 0, "out_size must be 2 positive ints [rows, columns]")
    return size[0], size[1]


def infer_winograd_input(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = present(ins, 0)
    need(is_float(x.dtype), f"element type {x.dtype} is not a float type")
    layout = str(attrs["data_layout"])
    block = layout_block(layout, "NCHW")
    need(x.rank == (5 if block else 4), f"input {x} does not have layout {layout}")
    n, c = x.shape[0], x.shape[1] * max(block, 1)
    m = _tile(attrs)
    pads = ints(attrs, "pads")
    need(len(pads) == 2 and min(pads) >= 0, "pads must be 2 non-negative ints [top, left]")
    th, tw = tile_grid(_out_size(attrs), m)
    return [TensorT(((m + 2) ** 2, n * th * tw, c), x.dtype)]


def infer_winograd_output(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    t = present(ins, 0)
    dtype = same_dtype(ins)
    m = _tile(attrs)
    oh, ow = _out_size(attrs)
    th, tw = tile_grid((oh, ow), m)
    need(t.rank == 3 and t.shape[0] == (m + 2) ** 2, f"input {t} is not [{(m + 2) ** 2}, tiles, K]")
    n = int(attrs["batch"])  # type: ignore[call-overload]
    need(n >= 1 and t.shape[1] == n * th * tw, f"input {t} does not hold {n} x {th} x {tw} tiles")
    k = t.shape[2]
    if len(ins) > 1 and ins[1] is not None:
        need(ins[1].shape == (k,), f"bias {ins[1]} must have shape [{k}]")
    block = layout_block(str(attrs["out_layout"]), "NCHW")
    if not block:
        return [TensorT((n, k, oh, ow), dtype)]
    need(k % block == 0, f"{k} channels are not divisible by the block {block}")
    return [TensorT((n, k // block, oh, ow, block), dtype)]


_TILE = AttrSpec("tile", "int", 2, "output tile size m of F(m x m, 3 x 3): 2 or 4")
_OUT_SIZE = AttrSpec("out_size", "ints", doc="the conv's output rows and columns")

register(
    OpSpec(
        "winograd_input",
        ("input",),
        (
            _TILE,
            _OUT_SIZE,
            AttrSpec("pads", "ints", (1, 1), "the conv's top and left padding"),
            AttrSpec("data_layout", "str", "NCHW"),
        ),
        "Winograd input transform B^T d B of every (m+2)x(m+2) input tile: [(m+2)^2, tiles, C].",
        "nn",
        infer_winograd_input,
        kind="compute",
    ),
    OpSpec(
        "winograd_output",
        ("input", "bias?"),
        (_TILE, _OUT_SIZE, AttrSpec("batch", "int", 1), AttrSpec("out_layout", "str", "NCHW")),
        "Winograd output transform A^T M A of [(m+2)^2, tiles, K] products, plus a bias.",
        "nn",
        infer_winograd_output,
        kind="compute",
    ),
)
