"""graph-pack-weights: store the constant right operand of a matrix product in column panels.

A product `A[.., M, K] x B[K, N]` with a constant B reads, for each block of output columns, a
K-long panel of B whose rows are N floats apart: every step of the reduction touches another
cache line and, for N >= 1024, another 4 KiB page (a BERT-base dense layer, K = 768 and N =
3072, jumps 12 KiB per step: a 48 KiB panel over 768 pages, more than the L1 TLB holds). BLAS
libraries pack such a matrix into panels first; here that is done once, at compile time, by graph
ops on the constant (graph-fold-constants evaluates them):

    Bp = transpose(reshape(B, [K, N/p, p]), [1, 0, 2])          # [N/p, K, p], panels contiguous
    Y  = reshape(transpose(matmul(A', Bp)), [.., M, N])    # A' = A: [M, K] or [1, M, K]
                                                            # else A' = A as [rows, K]

The product becomes a batched matmul whose batch axis is the panel: its default schedule runs
panel by panel (the batch axes go first) over the rows in register tiles, reading each panel in
memory order; the transpose back is an index remap fused into the kernel's epilogue (one pass
over the output, in cache). Measured on Zen 3 (AVX2), one thread, including that pass:
128x768x3072 47 -> 75 GFLOP/s (onnxruntime 77), 128x3072x768 37 -> 63, 128x768x768 66 -> 77.

`dense` (Gemm) with a constant B (computed from constants: graph-alter-layout's transpose of
a B given transposed) and no transposed A is rewritten the same way, its alpha and C
as explicit ops after the product. Products with few rows (a matrix-vector product: streamed
row by row instead) or with N not a multiple of the panel are left alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from mlc.dialects.attrs import from_attr, tensor_t
from mlc.dialects.graph import builders as gb
from mlc.dialects.graph.spec import TensorT
from mlc.dialects.walk import walk
from mlc.symbolic import Dim, UndecidableError

from .base import ModulePass, PassContext
from .graph_simplify_common import is_constant, scalar_constant


def _shape(v: ir.Value) -> tuple[int, ...]:
    t = tensor_t(v.type)
    assert t is not None
    return t.shape


@dataclass(frozen=True)
class GraphPackWeightsPass(ModulePass):
    """Store constant matmul/dense weights [K, N] as contiguous column panels [N/p, K, p]."""

    name: ClassVar[str] = "graph-pack-weights"
    symbolic_dims: ClassVar[bool] = True

    panel: int = 16
    """Columns per panel (mlc-default: two SIMD registers of f32); 0 turns the pass off."""
    min_rows: int = 8
    """Products with fewer rows (M times the batch) stay as they are: a matrix-vector product
    streams the matrix in memory order already."""

    def __post_init__(self) -> None:
        if self.panel < 0 or self.panel == 1:
            raise ValueError(f"panel must be 0 (off) or >= 2, got {self.panel}")
        if self.min_rows < 1:
            raise ValueError(f"min-rows must be >= 1, got {self.min_rows}")

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        if not self.panel:
            return
        for op in [o for o in walk(module) if o.name in ("graph.matmul", "graph.dense")]:
            if self._packable(op):
                self._rewrite(op)

    def _packable(self, op: ir.Operation) -> bool:
        types = constant_product(op)
        if types is None:
            return False
        at, bt = types
        n = bt.shape[1]
        rows = math.prod(at.shape[:-1])
        if not (n % self.panel == 0 and n > self.panel):
            return False
        try:
            return rows >= self.min_rows
        except UndecidableError:  # rows known at run time: packed (panels pay from 8 rows)
            return True

    def _rewrite(self, op: ir.Operation) -> None:
        a, b = op.operands[0], op.operands[1]
        a_shape, (k, n) = _shape(a), _shape(b)
        p = self.panel
        with ir.InsertionPoint(op), op.location:
            split = gb.reshape(b, shape=(k, n // p, p))
            packed = gb.transpose(split, perm=(1, 0, 2))
            if len(a_shape) == 2 or (len(a_shape) == 3 and a_shape[0] == 1):
                # [M, K], or [1, M, K] broadcasting against the panels as it is (a reshape to
                # [M, K] first would be a kernel copying A when A is a model input)
                lhs = a
            else:
                # B is shared by every batch: its rows are all rows of one product (ConvNeXt's
                # [1, 56, 56, 96] was 56 x 24 products of 56 rows each)
                lhs = gb.reshape(a, shape=(math.prod(a_shape[:-1]), k))
            if any(isinstance(d, Dim) for d in a_shape) and lhs is not a:
                # rows known at run time: merging the batch axes into them would need a
                # division by a run-time size to index A; the panels get an axis of their own
                lhs = gb.reshape(a, shape=(*a_shape[:-2], 1, *a_shape[-2:]))
                product = gb.matmul(lhs, packed)  # [.., N/p, M, p]
                r = len(a_shape) + 1
                perm = (*range(r - 3), r - 2, r - 3, r - 1)
                y = gb.reshape(gb.transpose(product, perm=perm), shape=(*a_shape[:-1], n))
            else:
                product = gb.matmul(lhs, packed)  # [N/p, rows, p]
                y = gb.reshape(gb.transpose(product, perm=(1, 0, 2)), shape=(*a_shape[:-1], n))
            if op.name == "graph.dense":
                y = dense_epilogue(op, y)
        op.results[0].replace_all_uses_with(y)
        op.erase()


def constant_product(op: ir.Operation) -> tuple[TensorT, TensorT] | None:
    """(A, B) types of an f32 matmul or untransposed dense whose B is a constant [K, N]
    (graph-alter-layout's transpose of a Gemm's B included), else None."""
    a, b = op.operands[0], op.operands[1]
    if not is_constant(b):
        return None
    at, bt = tensor_t(a.type), tensor_t(b.type)
    if at is None or bt is None or at.dtype != "f32" or bt.dtype != "f32":
        return None
    if len(bt.shape) != 2 or len(at.shape) < 2:
        return None
    if op.name == "graph.dense" and (
        from_attr(op.attributes["transA"]) or from_attr(op.attributes["transB"])
    ):
        return None
    return at, bt


def dense_epilogue(op: ir.Operation, y: ir.Value) -> ir.Value:
    """alpha * Y + beta * C, as the dense op computed them."""
    alpha = float(from_attr(op.attributes["alpha"]))  # type: ignore[arg-type]
    beta = float(from_attr(op.attributes["beta"]))  # type: ignore[arg-type]

    if alpha != 1.0:
        y = gb.mul(y, scalar_constant(alpha, "f32"))
    if len(op.operands) > 2 and beta != 0.0:
        c = op.operands[2]
        y = gb.add(y, c if beta == 1.0 else gb.mul(c, scalar_constant(beta, "f32")))
    return y
