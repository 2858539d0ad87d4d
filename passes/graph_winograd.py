"""graph-winograd: run 3x3 stride-1 convolutions as Winograd F(m x m, 3 x 3) transforms and GEMMs.

A blocked (NCHW<b>c) 3x3 conv with stride and dilation 1, one group and constant weights becomes

    V = winograd_input(x)                  [(m+2)^2, tiles, C]   B^T d B of every input tile
    U = G g G^T of the weights             [(m+2)^2, C, K]       graph ops graph-fold-constants
                                                                  evaluates once
    Y = winograd_output(matmul(V, U), b)   NCHW<b>c              A^T M A, plus the bias

(`dialects/graph/winograd.py`). The GEMMs do (m+2)^2 / (9 m^2) of the conv's multiply-adds: 0.44
for m = 2, 0.25 for m = 4, and the transforms add passes over the input and the products. A
product with few rows (tiles) is limited by reading U, 16/9 (m = 2) or 4 (m = 4) times the size
of the weights; so each conv takes the largest m whose product has at least `min-rows` rows, and
none when no m does (the late stages of ImageNet CNNs, 7x7 outputs, stay direct). Measured on
Zen 4, 2 threads, one conv alone: see bench/RESULTS.md ("Stop 25"). Half-precision convs and
convs with fewer than `min-channels` input or output channels (the transforms' cost per tile
and channel does not shrink with them) are left alone. Run after graph-alter-layout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from mlir import ir

from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph import builders as gb
from mlc.dialects.graph.spec import kernel_blocks, layout_block
from mlc.dialects.graph.winograd import TILES, filter_transform, tile_grid
from mlc.dialects.walk import walk
from mlc.symbolic import interval, is_static

from .base import ModulePass, PassContext
from .graph_simplify_common import attr as _attr
from .graph_simplify_common import is_constant, literal_constant


@dataclass(frozen=True)
class GraphWinogradPass(ModulePass):
    """Rewrite blocked 3x3 stride-1 convs into Winograd transforms around a batched GEMM."""

    name: ClassVar[str] = "graph-winograd"
    symbolic_dims: ClassVar[bool] = True

    tile: int = 4
    """Largest output tile m of F(m x m, 3 x 3): 2 or 4 (0 turns the pass off)."""
    min_rows: int = 40
    """Fewest tiles (rows of each GEMM) a conv must have for a tile size to be used."""
    min_channels: int = 32
    """Fewest input and output channels a conv must have to be rewritten."""

    def __post_init__(self) -> None:
        if self.tile not in (0, *TILES):
            raise ValueError(f"tile must be 0 (off) or one of {list(TILES)}, got {self.tile}")
        if self.min_rows < 1:
            raise ValueError(f"min-rows must be >= 1, got {self.min_rows}")
        if self.min_channels < 1:
            raise ValueError(f"min-channels must be >= 1, got {self.min_channels}")

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        if not self.tile:
            return
        for op in [o for o in walk(module) if o.name == "graph.conv2d"]:
            m = self._tile_for(op)
            if m:
                self._rewrite(op, m)

    def _tile_for(self, op: ir.Operation) -> int:
        """The largest tile size this conv qualifies for, 0 for none."""
        x_t, w_t, y_t = (tensor_t(v.type) for v in (op.operands[0], op.operands[1], op.results[0]))
        if x_t is None or w_t is None or y_t is None or x_t.dtype != "f32":
            return 0
        layout = str(_attr(op, "data_layout"))
        block = layout_block(layout, "NCHW")
        bi, bo = kernel_blocks(str(_attr(op, "kernel_layout")))
        if not block or str(_attr(op, "out_layout")) != layout or (bi, bo) != (block, block):
            return 0
        if tuple(w_t.shape[2:4]) != (3, 3) or int(_attr(op, "group")) != 1:  # type: ignore[call-overload]
            return 0
        if tuple(_attr(op, "strides")) != (1, 1) or tuple(_attr(op, "dilations")) != (1, 1):  # type: ignore[arg-type]
            return 0
        if min(x_t.shape[1], y_t.shape[1]) * block < self.min_channels:
            return 0
        if not is_constant(op.operands[1]):
            return 0
        if not all(is_static(d) for d in (*x_t.shape[1:], *y_t.shape[1:])):
            return 0  # the transforms take a static image size: run-time ones stay direct
        n, oh, ow = y_t.shape[0], y_t.shape[2], y_t.shape[3]
        # a run-time batch: the fewest rows it admits (more rows only favour Winograd more)
        fits = [
            m
            for m in TILES
            if m <= self.tile
            and interval(n * math.prod(tile_grid((oh, ow), m)))[0] >= self.min_rows
        ]
        return max(fits, default=0)

    def _rewrite(self, op: ir.Operation, m: int) -> None:
        x, w = op.operands[0], op.operands[1]
        bias = op.operands[2] if len(op.operands) > 2 else None
        y_t = tensor_t(op.results[0].type)
        w_t = tensor_t(w.type)
        assert y_t is not None and w_t is not None
        layout = str(_attr(op, "data_layout"))
        kb, cb, _, _, bi, bo = w_t.shape
        c, k = cb * bi, kb * bo
        top, left = tuple(_attr(op, "pads"))[:2]  # type: ignore[arg-type]
        out_size = (y_t.shape[2], y_t.shape[3])
        with ir.InsertionPoint(op), op.location:
            v = gb.winograd_input(
                x, tile=m, out_size=out_size, pads=(top, left), data_layout=layout
            )
            # OIHW<b>i<b>o -> [kh, kw, C, K] -> [9, C*K]; U = G g G^T as one [(m+2)^2, 9] product
            taps = gb.reshape(gb.transpose(w, perm=(2, 3, 1, 4, 0, 5)), shape=(9, c * k))
            g = literal_constant(filter_transform(m).astype(np.float32), "f32")
            u = gb.reshape(gb.matmul(g, taps), shape=((m + 2) ** 2, c, k))
            y = gb.winograd_output(
                gb.matmul(v, u),
                bias,
                tile=m,
                out_size=out_size,
                batch=y_t.shape[0] if is_static(y_t.shape[0]) else 0,
                out_layout=layout,
            )
        op.results[0].replace_all_uses_with(y)
        op.erase()
