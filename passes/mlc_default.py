"""mlc-default: the whole compilation, graph dialect to the LLVM dialect, as one named pipeline."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlc.target import host_vector_unit, vector_unit_for_bits

from .base import NamedPipeline, format_option_value

GRAPH_STAGE = (
    "graph-verify,graph-simplify,graph-fold-constants,%s"
    "graph-simplify,graph-fold-constants,mlc-cse,mlc-dce,graph-fuse{max-group-size=%d}"
)
TP_STAGE = "graph-to-tp,%stp-default-schedule{threads=%d vector-bits=%d},tp-verify"
LOOP_STAGE = "tp-to-loops{threads=%d},func.func(canonicalize,cse),lower-to-llvm{threads=%d%s}"


@dataclass(frozen=True)
class MlcDefaultPipeline(NamedPipeline):
    """Compile a graph-dialect model to the LLVM dialect: fuse, lower to tp, schedule, to LLVM."""

    name: ClassVar[str] = "mlc-default"

    threads: int = 1
    """Worker threads for parallel loops (1: sequential, no threading runtime)."""
    max_group_size: int = 32
    """Most ops per fused kernel (1 turns fusion off)."""
    layout_block: int | None = None
    """Run convolutions in NCHW<layout-block>c (0 keeps NCHW); none: floats per SIMD register."""
    vector_bits: int | None = None
    """SIMD register width the schedules assume; none: the host's (512 with AVX-512, 256 with
    AVX2). The expansion names the resolved values, so a recorded pipeline replays exactly."""
    records: str = ""
    """Tuning records (JSON lines) whose best schedules replace the default ones."""
    approx_math: bool = True
    """Inline vector polynomials for f32 exp/log/tanh/erf/sin/cos/... instead of libm calls
    (lower-to-llvm's approx-math)."""

    def __post_init__(self) -> None:
        if self.threads < 1 or self.max_group_size < 1:
            raise ValueError("threads and max-group-size must be >= 1")
        if self.layout_block is not None and (self.layout_block == 1 or self.layout_block < 0):
            raise ValueError("layout-block must be 0 (off) or >= 2")
        if self.vector_bits is not None and (self.vector_bits < 0 or self.vector_bits % 64):
            raise ValueError(f"vector-bits must be 0 or a multiple of 64, got {self.vector_bits}")

    def expand(self) -> str:
        unit = (
            host_vector_unit()
            if self.vector_bits is None
            else vector_unit_for_bits(self.vector_bits)
        )
        block = max(unit.lanes(32), 8) if self.layout_block is None else self.layout_block
        alter = f"graph-alter-layout{{block={block}}}," if block else ""
        records = (
            f"tp-apply-records{{file={format_option_value(self.records)}}}," if self.records else ""
        )
        return ",".join(
            [
                GRAPH_STAGE % (alter, self.max_group_size),
                TP_STAGE % (records, self.threads, unit.bits),
                LOOP_STAGE
                % (self.threads, self.threads, "" if self.approx_math else " approx-math=false"),
            ]
        )
