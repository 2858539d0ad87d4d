"""mlc-default: the whole compilation, graph dialect to the LLVM dialect, as one named pipeline."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlc.contract import TargetInfo

from .base import NamedPipeline, format_option_value

GRAPH_STAGE = (
    "graph-verify,graph-simplify,graph-fold-constants,%s"
    "graph-simplify,graph-fold-constants,mlc-cse,mlc-dce,graph-fuse{max-group-size=%d}"
)
TP_STAGE = "graph-to-tp,%stp-default-schedule{threads=%d},tp-verify"
LOOP_STAGE = "tp-to-loops{threads=%d},func.func(canonicalize,cse),lower-to-llvm{threads=%d}"


@dataclass(frozen=True)
class MlcDefaultPipeline(NamedPipeline):
    """Compile a graph-dialect model to the LLVM dialect: fuse, lower to tp, schedule, to LLVM."""

    name: ClassVar[str] = "mlc-default"

    threads: int = 1
    """Worker threads for parallel loops (1: sequential, no threading runtime)."""
    max_group_size: int = 32
    """Most ops per fused kernel (1 turns fusion off)."""
    layout_block: int = 8
    """Run convolutions in NCHW<layout-block>c (0 keeps NCHW)."""
    records: str = ""
    """Tuning records (JSON lines) whose best schedules replace the default ones."""

    def __post_init__(self) -> None:
        if self.threads < 1 or self.max_group_size < 1:
            raise ValueError("threads and max-group-size must be >= 1")
        if self.layout_block == 1 or self.layout_block < 0:
            raise ValueError("layout-block must be 0 (off) or >= 2")

    @classmethod
    def for_target(
        cls, target: TargetInfo, *, threads: int = 1, records: str = ""
    ) -> MlcDefaultPipeline:
        """The pipeline `mlc compile` and `mlc tune` use for a target: convolutions in NCHW16c
        where a 16-lane f32 vector is one register (AVX-512), NCHW8c elsewhere. On an AVX-512
        host (znver5) tuned 3x3 and 1x1 convs of ResNet-50 ran 1.5-1.7x faster in NCHW16c than
        the best NCHW8c schedules (8 lanes use half of each 512-bit FMA)."""
        block = 16 if "avx512f" in target.features else 8
        return cls(threads=threads, layout_block=block, records=records)

    def stages(self) -> tuple[str, str, str]:
        """The body in three parts: the graph passes; graph-to-tp and scheduling (records,
        defaults); tp to the LLVM dialect. The tuner extracts kernels after the second part and
        lowers its candidates with the third."""
        alter = f"graph-alter-layout{{block={self.layout_block}}}," if self.layout_block else ""
        records = (
            f"tp-apply-records{{file={format_option_value(self.records)} threads={self.threads}}},"
            if self.records
            else ""
        )
        return (
            GRAPH_STAGE % (alter, self.max_group_size),
            TP_STAGE % (records, self.threads),
            LOOP_STAGE % (self.threads, self.threads),
        )

    def expand(self) -> str:
        return ",".join(self.stages())
