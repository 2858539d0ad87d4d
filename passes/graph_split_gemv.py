"""graph-split-gemv: give each thread its own block of rows of a streamed matrix-vector product.

A product `a[1, K] x B[K, N]` with a large constant B reads B from memory on every call (a
model's other weights and activations evict it from the caches), and memory decides its
speed. Split by columns (tp-default-schedule's streaming schedule: each thread half of every
row), two threads read no faster than one on a 2-core EPYC VM: numpy summing a 9216 x 4096 f32
matrix that way ran at 17.5 GB/s against 18.2 on one thread, while each thread summing a
contiguous half of the rows ran at 26-29 GB/s. AlexNet's 9216 x 4096 layer took 7.6 ms on two
threads against 5.1 on one. So the rows (the reduction) are split instead, by graph ops on the
constant:

    Bs = reshape(B, [T, K/T, N])                         # row blocks are contiguous already
    Y  = reduce_sum(matmul(reshape(a, [T, 1, K/T]), Bs), [0])

The batched product streams each block on a thread of its own; the sum of the T partial rows
is a small kernel that also takes the bias and activation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph import builders as gb
from mlc.dialects.walk import walk

from .base import ModulePass, PassContext
from .graph_pack_weights import constant_product, dense_epilogue


@dataclass(frozen=True)
class GraphSplitGemvPass(ModulePass):
    """Split the rows of a matrix-vector product with a large constant matrix over the threads."""

    name: ClassVar[str] = "graph-split-gemv"
    symbolic_dims: ClassVar[bool] = True

    threads: int = 1
    """Blocks of rows, one per thread; 1 leaves every product whole."""
    min_bytes: int = 1 << 20
    """Smaller matrices stay whole: tp-default-schedule streams a matrix from 1 MiB on. Inside
    a model even a classifier that fits the last-level cache comes from memory (the rest of the
    model evicts it): GoogLeNet's 1024 x 1000 took 0.46 ms at 2 threads in the model, 0.04 ms
    alone; split, the classifiers of MobileNetV2, EfficientNet-B0, GoogLeNet and ResNet-18 ran
    0.03-0.08 ms faster in the model, and alone, warm, 0.98-1.35x the whole product's speed."""

    def __post_init__(self) -> None:
        if self.threads < 1:
            raise ValueError(f"threads must be >= 1, got {self.threads}")
        if self.min_bytes < 0:
            raise ValueError(f"min-bytes must be >= 0, got {self.min_bytes}")

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        if self.threads == 1:
            return
        for op in [o for o in walk(module) if o.name in ("graph.matmul", "graph.dense")]:
            if self._splittable(op):
                self._rewrite(op)

    def _splittable(self, op: ir.Operation) -> bool:
        types = constant_product(op)
        if types is None:
            return False
        at, bt = types
        if not all(isinstance(d, int) for d in at.shape) or math.prod(at.shape[:-1]) != 1:
            return False  # a batch of rows re-reads the matrix from cache: not bound by memory
        k, n = bt.shape
        return k % self.threads == 0 and k * n * 4 >= self.min_bytes

    def _rewrite(self, op: ir.Operation) -> None:
        a, b = op.operands[0], op.operands[1]
        a_t, b_t = tensor_t(a.type), tensor_t(b.type)
        assert a_t is not None and b_t is not None
        (k, n), t = b_t.shape, self.threads
        with ir.InsertionPoint(op), op.location:
            blocks = gb.reshape(b, shape=(t, k // t, n))
            rows = gb.reshape(a, shape=(t, 1, k // t))
            partial = gb.matmul(rows, blocks)  # [T, 1, N]
            total = gb.make("reduce_sum", partial, axes=[0], keepdims=0)  # [1, N]
            y = gb.reshape(total, shape=(*a_t.shape[:-1], n)) if len(a_t.shape) != 2 else total
            if op.name == "graph.dense":
                y = dense_epilogue(op, y)
        op.results[0].replace_all_uses_with(y)
        op.erase()
