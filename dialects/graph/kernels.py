"""Fusion at the graph level: what an op may fuse with, and how an outlined kernel is marked."""

from __future__ import annotations

from mlir import ir

from .spec import OPS, FusionKind

KERNEL_ATTR = "graph.kernel"
"""Unit attribute of a private `func.func` holding one fused group of graph ops (a kernel)."""


def op_kind(op: ir.Operation) -> FusionKind:
    """What `op` may fuse with: its spec's kind for graph ops; upstream `tensor.concat` (mlc's
    N-ary concat) is data movement; every other op is opaque."""
    if op.name == "tensor.concat":
        return "injective"
    spec = OPS.get(op.name.removeprefix("graph.")) if op.name.startswith("graph.") else None
    if spec is None:
        return "opaque"
    assert spec.kind is not None
    return spec.kind
