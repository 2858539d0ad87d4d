"""lower-to-llvm: the named pipeline from loops over memrefs (scf/vector/memref/arith/math) to
the LLVM dialect, ready for the ExecutionEngine or an object file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, get_args

from .base import NamedPipeline
from .omp_schedule import ScheduleKind

Runtime = Literal["openmp", "async"]
RUNTIMES = get_args(Runtime)

# Order matters: vector transfers become scf loops before scf is lowered; ub.poison appears
# after vectorization, so convert-ub-to-llvm is needed or the ExecutionEngine fails. llvm-verify
# turns whatever no conversion lowered (graph or tp ops, tensors) into an error.
_TAIL = (
    "convert-vector-to-scf,convert-linalg-to-loops,expand-strided-metadata,lower-affine,"
    "arith-expand,convert-scf-to-cf,convert-vector-to-llvm,finalize-memref-to-llvm,convert-math-to-llvm,"
    "convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,"
    "convert-ub-to-llvm,reconcile-unrealized-casts,llvm-verify"
)


@dataclass(frozen=True)
class LowerToLlvmPipeline(NamedPipeline):
    """Lower scf/vector/memref/arith/math (and scf.parallel to threads) to the LLVM dialect."""

    name: ClassVar[str] = "lower-to-llvm"

    threads: int = 1
    """Worker threads for scf.parallel loops; 1 runs them sequentially (no threading runtime)."""
    runtime: Runtime = "openmp"
    """What runs scf.parallel on threads: `openmp` (libiomp5; its workers spin briefly after a
    region, so the next one starts at once) or `async` (MLIR's async runtime; its workers sleep,
    and waking them cost 20-30 us per region here)."""
    schedule: ScheduleKind = "static"
    """How OpenMP loops split their iterations over the threads (omp-schedule's kind). Static
    stays the default: on the 2-core VM dynamic chunks ran ResNet-50 1.04x faster but
    EfficientNet-B0, MobileNet-V2 and ViT-S 0.93-0.97x (both threads then touch every weight
    block instead of half of them each)."""
    merge_regions: bool = True
    """With OpenMP: one parallel region for consecutive parallel loops of a function (a
    kernel's blocks), the threads meeting at barriers between them (omp-merge-regions)."""
    approx_math: bool = True
    """Replace f32 (and, extended to f32, f16/bf16) exp, expm1, log, log1p, tanh, erf, sin, cos and
    powf with inline vector polynomials (mlc-math-approx, within a few ulp) instead of one libm
    call per lane."""
    vector_ldexp: bool = False
    """mlc-math-approx's vector-ldexp: exp scales by 2^k with one llvm.ldexp (vscalefps); for
    AVX-512 targets only (elsewhere: a libm call per lane)."""
    merge_kernels: bool = True
    """Compile kernels that differ only in i64 constants (DenseNet's dense layers: channel counts)
    once, the constants passed as arguments (llvm-merge-kernels): less code to generate."""

    def __post_init__(self) -> None:
        if self.threads < 1:
            raise ValueError(f"threads must be >= 1, got {self.threads}")
        if self.runtime not in RUNTIMES:
            raise ValueError(f"runtime must be one of {', '.join(RUNTIMES)}, got '{self.runtime}'")

    def expand(self) -> str:
        # LLVM intrinsics where LLVM has them (exp, log, sqrt, fma, floor...); libm calls for
        # the rest (erf, tanh, ...), vectors unrolled into scalar calls: ~5-20 ns per element
        # for exp/erf/tanh, hence mlc-math-approx first (~0.3-1 ns).
        # Integer powers (math.ipowi) have neither: convert-math-to-funcs outlines them first.
        head = ["convert-math-to-funcs", "convert-math-to-llvm", "convert-math-to-libm"]
        if self.approx_math:
            approx = (
                "mlc-math-approx{vector-ldexp=true}" if self.vector_ldexp else "mlc-math-approx"
            )
            head = ["math-extend-to-supported-types", approx] + head
        tail = _TAIL
        if self.threads > 1 and self.runtime == "async":
            head += [
                f"async-parallel-for{{num-workers={self.threads} min-task-size=1}}",
                "async-to-async-runtime",
                "async-runtime-ref-counting",
                "async-runtime-ref-counting-opt",
                "arith-expand",
                "convert-async-to-llvm",
            ]
        elif self.threads > 1:
            # scf-to-openmp wraps each parallel body in memref.alloca_scope, whose region
            # convert-scf-to-cf would split into blocks (invalid); canonicalize inlines the
            # scopes, which hold no allocas.
            head += [f"convert-scf-to-openmp{{num-threads={self.threads}}}", "canonicalize"]
            if self.merge_regions:
                head.append("omp-merge-regions")
            if self.schedule != "static":
                head.append(f"omp-schedule{{kind={self.schedule}}}")
            # the count is read at run time from a global (the C API's num_threads sets it)
            head.append(f"omp-threads{{threads={self.threads}}}")
            tail = tail.replace("convert-cf-to-llvm,", "convert-cf-to-llvm,convert-openmp-to-llvm,")
        if self.merge_kernels:
            tail += ",llvm-merge-kernels"
        return ",".join(head + [tail])
