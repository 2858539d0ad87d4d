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

import math
from fractions import Fraction

import numpy as np

from mlc.symbolic import floordiv

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

POINTS: dict[int, tuple[Fraction, ...]] = {
    2: (Fraction(0), Fraction(1), Fraction(-1)),
    # 1/2 where Lavin & Gray take 2: a third of the rounding error (max over random 64-channel
    # tiles in f32: 4.1e-6 -> 1.5e-6 of the largest output) for 26 nonzeros in B^T, not 22
    4: (Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(-2)),
}
"""Interpolation points of F(m x m, 3 x 3) per output tile size m (and one at infinity)."""


def _evaluation(points: tuple[Fraction, ...], degree: int) -> list[list[Fraction]]:
    """Rows evaluate a polynomial with `degree` coefficients at each point, then at infinity
    (its leading coefficient)."""
    rows = [[p**k for k in range(degree)] for p in points]
    return rows + [[Fraction(int(k == degree - 1)) for k in range(degree)]]


def _inverse(matrix: list[list[Fraction]]) -> list[list[Fraction]]:
    """Exact Gauss-Jordan inverse (the evaluation matrices are small and invertible)."""
    n = len(matrix)
    rows = [row + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(matrix)]
    for c in range(n):
        pivot = next(r for r in range(c, n) if rows[r][c] != 0)
        rows[c], rows[pivot] = rows[pivot], rows[c]
        rows[c] = [v / rows[c][c] for v in rows[c]]
        for r in range(n):
            if r != c and rows[r][c] != 0:
                rows[r] = [a - rows[r][c] * b for a, b in zip(rows[r], rows[c], strict=True)]
    return [row[n:] for row in rows]


def toom_cook(m: int, points: tuple[Fraction, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(B^T, G, A^T) of F(m, 3) from m + 1 finite points and infinity: correlation is the
    transpose of Toom-Cook polynomial multiplication, so A^T evaluates the m outputs' polynomial
    (transposed), G evaluates the filter and B^T is the inverse-transpose of the full
    evaluation; row j of B^T is scaled by prod_l (p_j - p_l) and row j of G by its inverse,
    which makes B^T's entries small (Lavin & Gray's matrices for points 0, +-1, +-2)."""
    n = m + 2
    assert len(points) == n - 1
    a_t = [list(col) for col in zip(*_evaluation(points, m), strict=True)]
    g = _evaluation(points, 3)
    b_t = [list(col) for col in zip(*_inverse(_evaluation(points, n)), strict=True)]
    scale = [math.prod(p - q for q in points if q != p) for p in points] + [Fraction(1)]
    # each row's first nonzero positive (a sign moved between B^T and G changes nothing)
    scale = [
        f if next(v for v in row if v) * f > 0 else -f for row, f in zip(b_t, scale, strict=True)
    ]
    b_t = [[v * f for v in row] for row, f in zip(b_t, scale, strict=True)]
    g = [[v / f for v in row] for row, f in zip(g, scale, strict=True)]
    return tuple(np.array(x, dtype=np.float64) for x in (b_t, g, a_t))  # type: ignore[return-value]


TRANSFORMS: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {
    m: toom_cook(m, points) for m, points in POINTS.items()
}
"""(B^T, G, A^T) per output tile size m: (m+2)x(m+2), (m+2)x3 and m x (m+2)."""
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
    n = int(attrs["batch"]) or floordiv(t.shape[1], th * tw)  # type: ignore[call-overload]
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
        (
            _TILE,
            _OUT_SIZE,
            AttrSpec("batch", "int", 1, "images; 0: the tile count's (a run-time batch)"),
            AttrSpec("out_layout", "str", "NCHW"),
        ),
        "Winograd output transform A^T M A of [(m+2)^2, tiles, K] products, plus a bias.",
        "nn",
        infer_winograd_output,
        kind="compute",
    ),
)
