"""mlc-default: the whole compilation, graph dialect to the LLVM dialect, as one named pipeline."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .base import NamedPipeline

GRAPH_STAGE = "graph-verify,graph-simplify,graph-fold-constants,mlc-cse,mlc-dce,graph-fuse{max-group-size=%d}"
TP_STAGE = "graph-to-tp,tp-default-schedule,tp-verify"
LOOP_STAGE = "tp-to-loops,func.func(canonicalize,cse),lower-to-llvm{threads=%d}"


@dataclass(frozen=True)
class MlcDefaultPipeline(NamedPipeline):
    """Compile a graph-dialect model to the LLVM dialect: simplify, fold, fuse, lower to tp, schedule, lower to loops and LLVM."""

    name: ClassVar[str] = "mlc-default"

    threads: int = 1
    """Worker threads for parallel loops (1: sequential, no async runtime)."""
    max_group_size: int = 32
    """Most ops per fused kernel (1 turns fusion off)."""

    def __post_init__(self) -> None:
        if self.threads < 1 or self.max_group_size < 1:
            raise ValueError("threads and max-group-size must be >= 1")

    def expand(self) -> str:
        return ",".join([GRAPH_STAGE % self.max_group_size, TP_STAGE, LOOP_STAGE % self.threads])
