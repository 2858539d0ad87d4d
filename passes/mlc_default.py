"""mlc-default: the whole compilation, graph dialect to the LLVM dialect, as one named pipeline."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlc.contract import TargetInfo
from mlc.dialects.graph.winograd import TILES
from mlc.target import (
    has_vector_ldexp,
    host_features,
    host_int8_dot_bits,
    host_int8_madd_bits,
    host_l2_bytes,
    host_vector_unit,
    int8_dot_bits,
    int8_madd_bits,
    vector_unit_for_bits,
    vector_unit_of,
)

from .base import NamedPipeline, format_option_value
from .omp_schedule import ScheduleKind

GRAPH_STAGE = (
    "graph-verify,%s%sgraph-decompose-3d,graph-simplify,graph-fold-constants,%s"
    "graph-simplify,graph-fold-constants,mlc-cse,mlc-dce,%sgraph-fuse{max-group-size=%d}"
)
TP_STAGE = (
    "graph-to-tp,tp-defer-row-scale,%stp-default-schedule{threads=%d vector-bits=%d l2-bytes=%d},"
    "tp-chunk-rows,tp-verify"
)
# cse before canonicalize: tp-to-loops emits many equal index constants and affine.apply ops, and
# canonicalize costs ~40 % less on the merged IR (inception_v1: 0.86 -> 0.49 s CPU) for the same
# machine code (checked with llvm-objdump on resnet50 and inception_v1).
LOOP_STAGE = "tp-to-loops{threads=%d%s},func.func(cse,canonicalize,cse),lower-to-llvm{threads=%d%s}"


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
    widen_half: bool = True
    """Compute f16/bf16 ops in f32, rounding only at the model's interface and explicit casts
    (graph-widen-half): what onnxruntime does on CPUs without half arithmetic."""
    fuse_qdq: bool = True
    """Run quantize-dequantize groups (QDQ models) as integer kernels (graph-fuse-qdq)."""
    lookup_tables: bool = True
    """Elementwise chains from one 8-bit tensor to a quantize (QLinearSigmoid, int8 SiLU) as
    256-entry tables gathered in the producer's epilogue (graph-lookup-tables)."""
    l2_bytes: int | None = None
    """Per-core L2 cache size the reduction blocking is sized for; none: the host's (sysfs)."""
    weight_panel: int | None = None
    """Columns per panel of constant matmul / dense weights (graph-pack-weights); 0 keeps them
    [K, N]; none: two registers of f32 (16 on AVX2, 32 on AVX-512: on Zen 4 the BERT/ViT/Mixer
    dense layers ran 1-59 % faster than unpacked, bench_gemm.py), 0 without vector units."""
    winograd: int = 4
    """Largest Winograd output tile for 3x3 stride-1 convs (graph-winograd: 2 or 4, each conv
    takes the largest with enough tiles); 0 runs every conv directly."""
    pad_blocks: bool = True
    """Run chains of convs whose channel counts only a narrower block divides (24, 40, 72,
    120) on the full block, their channels padded with zeros and kept padded from conv to conv
    (graph-alter-layout's `pad-blocks`): MnasNet 1.0 at batch 1 ran 6-10 % faster."""
    omp_schedule: ScheduleKind = "static"
    """How parallel loops split their iterations over the threads (lower-to-llvm's schedule)."""
    vnni_bits: int | None = None
    """Widest x86 VNNI int8 dot product (vpdpbusd) to use: 0 none, 256 (AVX-VNNI, or AVX512-VNNI
    with VL), 512 (AVX512-VNNI); none: the host's. Nonzero packs uint8 x int8 kernels for it."""
    madd_bits: int | None = None
    """Without VNNI, the widest vpmaddwd int8 dot products fall back to: 0 none (kernels stay
    unpacked, products of widened i32), 256 (AVX2), 512 (AVX512BW); none: the host's. Nonzero
    packs uint8 x int8 kernels as for VNNI (two vpmaddwd per vpdpbusd: on Zen 3
    a QDQ 3x3 conv of ResNet-50 ran 2.5x faster than with the i32 products of unpacked kernels,
    exact where onnxruntime's vpmaddubsw saturates)."""
    vbmi: bool | None = None
    """Look up int8 tables (graph-lookup-tables) with vpermi2b (tp-to-loops' vbmi); none: where
    the host has AVX512-VBMI."""
    vector_ldexp: bool | None = None
    """exp scales by 2^k with one llvm.ldexp (lower-to-llvm's vector-ldexp); none: where the
    host has AVX-512 (vscalefps: exp 0.33 -> 0.25 ns per element on Zen 4, bench_math.py)."""

    merge_kernels: bool = True
    """Compile kernels equal up to i64 constants once (lower-to-llvm's merge-kernels: DenseNet's
    layers, one channel count apart): less code to generate."""

    profile: bool = False
    """Time every kernel call inside the run (tp-profile): `GraphModule.profile()`, `mlc run
    --profile`."""

    def __post_init__(self) -> None:
        if self.threads < 1 or self.max_group_size < 1:
            raise ValueError("threads and max-group-size must be >= 1")
        if self.layout_block is not None and (self.layout_block == 1 or self.layout_block < 0):
            raise ValueError("layout-block must be 0 (off) or >= 2")
        if self.vector_bits is not None and (self.vector_bits < 0 or self.vector_bits % 64):
            raise ValueError(f"vector-bits must be 0 or a multiple of 64, got {self.vector_bits}")
        if self.l2_bytes is not None and self.l2_bytes < 1 << 14:
            raise ValueError(f"l2-bytes must be at least 16384, got {self.l2_bytes}")
        if self.weight_panel is not None and (self.weight_panel < 0 or self.weight_panel == 1):
            raise ValueError(f"weight-panel must be 0 (off) or >= 2, got {self.weight_panel}")
        if self.winograd not in (0, *TILES):
            raise ValueError(f"winograd must be 0 (off), 2 or 4, got {self.winograd}")
        if self.vnni_bits not in (None, 0, 256, 512):
            raise ValueError(f"vnni-bits must be 0, 256 or 512, got {self.vnni_bits}")
        if self.madd_bits not in (None, 0, 256, 512):
            raise ValueError(f"madd-bits must be 0, 256 or 512, got {self.madd_bits}")

    @classmethod
    def for_target(
        cls,
        target: TargetInfo,
        *,
        threads: int = 1,
        records: str = "",
        profile: bool = False,
        layout_block: int | None = None,
        winograd: int | None = None,
    ) -> MlcDefaultPipeline:
        """The pipeline `mlc compile` and `mlc tune` use for a target, with its vector width and
        int8 dot product named: convolutions in NCHW16c where a 16-lane f32 vector is one register
        (AVX-512), NCHW8c elsewhere. On an AVX-512 host (znver5) tuned 3x3 and 1x1 convs of
        ResNet-50 ran 1.5-1.7x faster in NCHW16c than the best NCHW8c schedules. `layout_block`
        and `winograd` override those choices (graph-level tuning records)."""
        features = frozenset(target.features)
        return cls(
            layout_block=layout_block,
            winograd=cls.winograd if winograd is None else winograd,
            threads=threads,
            records=records,
            vector_bits=vector_unit_of(features).bits,
            vnni_bits=int8_dot_bits(features),
            madd_bits=int8_madd_bits(features),
            vector_ldexp=has_vector_ldexp(features),
            vbmi="avx512vbmi" in features,
            profile=profile,
        )

    def stages(self) -> tuple[str, str, str]:
        """The body in three parts: the graph passes; graph-to-tp and scheduling (records,
        defaults); tp to the LLVM dialect. The tuner extracts kernels after the second part and
        lowers its candidates with the third."""
        unit = (
            host_vector_unit()
            if self.vector_bits is None
            else vector_unit_for_bits(self.vector_bits)
        )
        block = max(unit.lanes(32), 8) if self.layout_block is None else self.layout_block
        vnni = host_int8_dot_bits() if self.vnni_bits is None else self.vnni_bits
        ldexp = (
            has_vector_ldexp(host_features()) if self.vector_ldexp is None else self.vector_ldexp
        )
        madd = 0 if vnni else host_int8_madd_bits() if self.madd_bits is None else self.madd_bits
        layout_opts = " int8-dot=true" if vnni or madd else ""
        layout_opts += " pad-blocks=true" if self.pad_blocks else ""
        vbmi = "avx512vbmi" in host_features() if self.vbmi is None else self.vbmi
        vbmi = vbmi and unit.bits >= 512
        alter = f"graph-alter-layout{{block={block}{layout_opts}}}," if block else ""
        if alter and self.fuse_qdq:  # dequantize after the layout transforms it adds
            alter += "graph-stay-quantized,"
        panel = self.weight_panel
        if panel is None:
            panel = 2 * unit.lanes(32) if unit.bits >= 256 else 0
        if panel:
            alter += f"graph-pack-weights{{panel={panel}}},"
        if block and self.winograd:
            alter += f"graph-winograd{{tile={self.winograd}}},"
        if self.threads > 1:
            alter += f"graph-split-gemv{{threads={self.threads}}},"
        qdq = "graph-fuse-qdq,graph-stay-quantized," if self.fuse_qdq else ""
        widen = "graph-widen-half," if self.widen_half else ""
        # With vpermi2b a lookup is cheaper than even a leaky relu's arithmetic (a 1x1 conv
        # 16 -> 96 at 112x112 with QLinearLeakyRelu: 0.42 ms vs 0.62, conv alone 0.32); a
        # vpgatherdd is not (0.85 ms), so without VBMI only chains with costly ops take tables.
        tables = ""
        if self.lookup_tables and self.fuse_qdq:
            tables = "graph-lookup-tables{cheap-chains=true}," if vbmi else "graph-lookup-tables,"
        records = (
            f"tp-apply-records{{file={format_option_value(self.records)} threads={self.threads}}},"
            if self.records
            else ""
        )
        return (
            GRAPH_STAGE % (widen, qdq, alter, tables, self.max_group_size),
            TP_STAGE % (records, self.threads, unit.bits, self.l2_bytes or host_l2_bytes())
            + (",tp-profile" if self.profile else ""),
            LOOP_STAGE
            % (
                self.threads,
                (f" vnni-bits={vnni}" if vnni else "")
                + (f" madd-bits={madd}" if madd else "")
                + (" vbmi=true" if vbmi else ""),
                self.threads,
                ("" if self.approx_math else " approx-math=false")
                + (" vector-ldexp=true" if self.approx_math and ldexp else "")
                + ("" if self.omp_schedule == "static" else f" schedule={self.omp_schedule}")
                + ("" if self.merge_kernels else " merge-kernels=false"),
            ),
        )

    def expand(self) -> str:
        return ",".join(self.stages())
