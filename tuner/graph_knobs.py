"""Graph-level knobs: mlc-default's layout block (graph-alter-layout's NCHW<b>c) and Winograd
tile (graph-winograd; 0: every conv direct), tuned for a whole model.

They change which kernels exist and the layout transforms between them, so a point is measured
as the whole model (`mlc.graph_tuning`), and its record is a model's, not a kernel's:

    {"workload": "graph-9c1e...", "block": "@graph", "schedule": "layout-block=8 winograd=0",
     "config": {"layout_block": 8, "winograd": 0}, "cost_ms": 4.1, ...}

`workload` hashes the graph-dialect model as imported (`graph_key`), so `mlc compile
--tuning-records` finds the record of the model it compiles (`graph_choice`) and builds with its
knobs; tp-apply-records never matches such a record to a kernel. Light: the compiler reads it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mlir import ir

from mlc.contract import TargetInfo
from mlc.target import vector_unit_of

from .records import Record, best_records

GRAPH_BLOCK = "@graph"
"""The `block` of a graph-level record (no tp block has this name)."""
WINOGRAD_TILES = (4, 2, 0)
"""Winograd choices tried, mlc-default's first (0: every conv runs directly)."""


@dataclass(frozen=True)
class GraphConfig:
    """One point of the graph-level space."""

    layout_block: int
    winograd: int

    def text(self) -> str:
        """The record's `schedule`: mlc-default's option syntax."""
        return f"layout-block={self.layout_block} winograd={self.winograd}"

    def config(self) -> dict[str, Any]:
        return {"layout_block": self.layout_block, "winograd": self.winograd}

    @classmethod
    def of_record(cls, record: Record) -> GraphConfig | None:
        """The knobs of a graph-level record; None when they are not valid knob values."""
        block, tile = record.config.get("layout_block"), record.config.get("winograd")
        if not isinstance(block, int) or not isinstance(tile, int):
            return None
        if block < 0 or block == 1 or tile not in (0, 2, 4):
            return None
        return cls(block, tile)


def default_block(target: TargetInfo) -> int:
    """mlc-default's layout block for a target (floats per SIMD register, at least 8)."""
    return max(vector_unit_of(frozenset(target.features)).lanes(32), 8)


def default_config(target: TargetInfo) -> GraphConfig:
    return GraphConfig(default_block(target), WINOGRAD_TILES[0])


def graph_space(target: TargetInfo) -> list[GraphConfig]:
    """The points to measure, mlc-default's first: blocks of 8 and 16 floats (one register of
    AVX2 / AVX-512, or two), each with every Winograd choice."""
    first = default_block(target)
    blocks = [first] + [b for b in (8, 16) if b != first]
    return [GraphConfig(b, t) for b in blocks for t in WINOGRAD_TILES]


def graph_key(module: ir.Module) -> str:
    """The workload of a graph-dialect model: a hash of its text without locations (the same
    ONNX file and input shapes give the same key in `mlc tune` and `mlc compile`)."""
    text = module.operation.get_asm(enable_debug_info=False)
    return "graph-" + hashlib.sha256(text.encode()).hexdigest()[:16]


def graph_choice(
    records: Iterable[Record], key: str, target: TargetInfo, threads: int
) -> tuple[GraphConfig, Record] | None:
    """The fastest graph-level point recorded for model `key` on `target` with `threads`."""
    mine = [r for r in records if r.workload == key and r.block == GRAPH_BLOCK]
    best = best_records(mine, target=target, threads=threads).get((key, GRAPH_BLOCK))
    if best is None:
        return None
    config = GraphConfig.of_record(best)
    return None if config is None else (config, best)
