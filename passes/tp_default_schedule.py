"""tp-default-schedule: give every unscheduled tp.block a reasonable schedule.

The heuristic mirrors a hand-written CPU kernel: vectorize the output's contiguous axis, and for
reductions keep a register tile of `unroll x lanes` accumulators across the reduce loops, where
the unrolled axis is one the vector loads do not depend on (so each vector load is reused by
every unrolled row: `a[i,k]` broadcasts against `b[k,j:j+8]` in a matmul, one input vector
against four output channels in an NCHW convolution). The outermost spatial loop runs in
parallel when the block has enough work. Knob values chosen here are what a tuner later overrides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from mlc.dialects.tp import BlockView, Schedule
from mlc.dialects.tp.affine import linear_coeff
from mlc.dialects.walk import walk
from mlc.target import VectorUnit, host_vector_unit, vector_unit_for_bits

from .base import ModulePass, PassContext

STREAMING_BYTES = 1 << 20  # a matrix at least this large is streamed from memory, not reused
PANEL_BYTES = 64 << 10  # a vector-operand panel larger than this gets its reduction blocked...
PANEL_TARGET = 48 << 10  # ...into slices of at most this size


def _elem_bytes(view: BlockView) -> int:
    return getattr(ir.MemRefType(view.out.type).element_type, "width", 32) // 8


def _lanes(elem: ir.Type, width_bits: int) -> int:
    bits = getattr(elem, "width", 0)
    return width_bits // bits if bits in (16, 32, 64) else 0


def vector_axis(view: BlockView) -> str | None:
    """The spatial axis that walks the output's last dim with unit stride, if any."""
    amap = view.out_map
    if not amap.results:
        return None
    last = amap.results[-1].maybe_downcast()
    if not isinstance(last, ir.AffineDimExpr):
        return None
    axis = view.axes[last.position]
    return axis if view.kinds[last.position] == "S" else None


def _reads_using(view: BlockView, axis: str) -> list[ir.AffineMap]:
    pos = view.axes.index(axis)
    maps = []
    for op in walk(view.op):
        if op.name in ("tp.read", "tp.read_padded"):
            amap = ir.AffineMapAttr(op.attributes["map"]).value
            if any(linear_coeff(e, pos) != 0 for e in amap.results):
                maps.append(amap)
    return maps


def _row_axis(view: BlockView, vec: str) -> str | None:
    """A spatial axis no vector read depends on, with the largest extent (> 1)."""
    vector_reads = _reads_using(view, vec)
    best = None
    for i, (axis, kind, extent) in enumerate(zip(view.axes, view.kinds, view.extents)):
        if kind != "S" or axis == vec or extent < 2:
            continue
        if any(linear_coeff(e, i) != 0 for m in vector_reads for e in m.results):
            continue
        if best is None or extent >= view.extents[view.axes.index(best)]:
            best = axis
    return best


def _companion_axis(view: BlockView, vec: str) -> str | None:
    """A spatial axis only the vector reads depend on (a conv's output-channel block index):
    unrolling it gives each broadcast operand more vector FMAs."""
    vector_reads = _reads_using(view, vec)
    all_reads = [
        ir.AffineMapAttr(op.attributes["map"]).value
        for op in walk(view.op)
        if op.name in ("tp.read", "tp.read_padded")
    ]
    other_reads = [m for m in all_reads if m not in vector_reads]
    for i, (axis, kind, extent) in enumerate(zip(view.axes, view.kinds, view.extents)):
        if kind != "S" or axis == vec or extent % 2:
            continue
        used_by_vector = any(linear_coeff(e, i) != 0 for m in vector_reads for e in m.results)
        used_by_other = any(linear_coeff(e, i) != 0 for m in other_reads for e in m.results)
        if used_by_vector and not used_by_other and other_reads:
            return axis
    return None


def _vector_only_axes(view: BlockView, vec: str) -> set[str]:
    """Spatial axes the vector reads depend on and the other reads do not (vec included)."""
    vector_reads = _reads_using(view, vec)
    others = [
        ir.AffineMapAttr(op.attributes["map"]).value
        for op in walk(view.op)
        if op.name in ("tp.read", "tp.read_padded")
    ]
    others = [m for m in others if m not in vector_reads]
    out = set()
    for i, (axis, kind) in enumerate(zip(view.axes, view.kinds)):
        if kind != "S":
            continue
        if any(linear_coeff(e, i) != 0 for m in vector_reads for e in m.results) and not any(
            linear_coeff(e, i) != 0 for m in others for e in m.results
        ):
            out.add(axis)
    return out


def _shares_index(view: BlockView, a: str, b: str) -> bool:
    """Whether some read index depends on both axes (e.g. `ow + kw`)."""
    ia, ib = view.axes.index(a), view.axes.index(b)
    for op in walk(view.op):
        if op.name in ("tp.read", "tp.read_padded"):
            for e in ir.AffineMapAttr(op.attributes["map"]).value.results:
                if linear_coeff(e, ia) != 0 and linear_coeff(e, ib) != 0:
                    return True
    return False


def _gather_axis(view: BlockView, lanes: int) -> str | None:
    """A spatial axis divisible by `lanes` that the fewest reads depend on (largest if tied)."""
    reads = sum(1 for op in walk(view.op) if op.name in ("tp.read", "tp.read_padded"))
    best: tuple[int, int, str] | None = None
    for axis, kind, extent in zip(view.axes, view.kinds, view.extents):
        if kind != "S" or extent % lanes:
            continue
        gathered = len(_reads_using(view, axis))
        if gathered >= reads:
            continue  # nothing is reused across lanes: gathers would only add work
        key = (-gathered, extent, axis)
        if best is None or key > best:
            best = key
    return best[2] if best else None


@dataclass(frozen=True)
class TpDefaultSchedulePass(ModulePass):
    """Schedule tp blocks: vectorized output axis, register tiles for reductions, parallel loops."""

    name: ClassVar[str] = "tp-default-schedule"

    vector_bits: int | None = None
    """SIMD register width in bits; none: the host's (512 with AVX-512, 256 with AVX2); 0 disables
    vectorization."""
    max_accumulators: int | None = None
    """Vector registers a reduction's register tile may use for accumulators; none: all but
    two of the unit's registers (30 of AVX-512's 32, 14 of AVX2's 16)."""
    parallel: bool = True
    """Mark the outer spatial loops parallel in blocks with enough work."""
    min_parallel_work: int = 1 << 16
    """Blocks with fewer iterations (all axes) than this stay sequential."""
    min_parallel_trips: int = 16
    """Collapse outer spatial loops into the parallel set until they have this many iterations."""
    threads: int = 1
    """Threads the kernels will run on (how many slices a streamed matrix-vector product gets)."""
    block_reductions: bool = True
    """Split the outer reduce loop when the vector operand's panel outgrows the caches."""
    overwrite: bool = False
    """Replace existing schedules too (by default only empty ones are filled)."""

    def __post_init__(self) -> None:
        if self.threads < 1:
            raise ValueError(f"threads must be >= 1, got {self.threads}")
        if self.vector_bits is not None and (self.vector_bits < 0 or self.vector_bits % 64):
            raise ValueError(f"vector-bits must be 0 or a multiple of 64, got {self.vector_bits}")
        if self.max_accumulators is not None and self.max_accumulators < 1:
            raise ValueError(f"max-accumulators must be >= 1, got {self.max_accumulators}")

    @property
    def unit(self) -> VectorUnit:
        """The vector unit schedules are sized for."""
        if self.vector_bits is None:
            return host_vector_unit()
        return vector_unit_for_bits(self.vector_bits)

    @property
    def accumulators(self) -> int:
        return self.max_accumulators or self.unit.registers - 2

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        for op in [o for o in walk(module) if o.name == "tp.block"]:
            view = BlockView(op)
            if not self.overwrite and len(ir.DictAttr(op.attributes["schedule"])) > 0:
                continue
            view.set_schedule(self.schedule_for(view))

    def _block_reduction(
        self,
        view: BlockView,
        columns: set[str],
        width: int,
        inner: list[str],
        tile: dict[str, tuple[int, ...]],
        unroll: dict[str, int],
        spatial: list[str],
        reduce: list[str],
    ) -> tuple[str, ...] | None:
        """When the vector operand's panel for one column block (a conv's weights for two
        channel blocks: all input channels x kh x kw) outgrows the caches, split the outer
        reduce loop and sweep the pixels once per slice of it, so one slice of the panel
        stays in L1/L2 (tile registers are then loaded from and stored to the output per
        slice). vgg19's 512-channel 3x3 convs: 73 -> 48 ms (medians) for one 28x28 layer."""
        axes, extents = view.axes, view.extents
        panel = _elem_bytes(view) * width
        for n in inner:
            if n.split(".")[0] in columns:  # the companion blocks of the register tile
                panel *= unroll.get(n, 1)
        for k, e in zip(view.kinds, extents):
            if k == "R":
                panel *= e
        if not reduce or panel <= PANEL_BYTES:
            return None
        first = reduce[0]
        if first not in axes or first in unroll:  # a tiled axis has loops `first.0`, `first.1`
            return None
        extent = extents[axes.index(first)]
        per_step = panel // extent
        fits = [d for d in range(1, extent) if extent % d == 0 and d * per_step <= PANEL_TARGET]
        if not fits:
            return None
        tile[first] = (max(fits),)
        ncols = next(
            (i for i, n in enumerate(spatial) if n.split(".")[0] not in columns), len(spatial)
        )
        return tuple(
            spatial[:ncols] + [f"{first}.0"] + spatial[ncols:] + [f"{first}.1"] + reduce[1:] + inner
        )

    def _streaming_gemv(self, view: BlockView, vec: str | None, lanes: int) -> Schedule | None:
        """A matrix-vector product whose matrix does not fit in L2 (a classifier's dense layer at
        batch 1) is bound by reading the matrix: walk its rows in memory order (k outer) and keep
        the output (or one slice per thread) updated in memory. Register tiles over 64-column
        panels instead jump a whole row per k step: on vgg19's 25088 x 4096 layer 55 -> 37 ms
        on one thread, 42 -> 30 ms on two."""
        axes, kinds, extents = view.axes, view.kinds, view.extents
        if vec is None or lanes < 2 or kinds.count("R") != 1 or _row_axis(view, vec) is not None:
            return None
        extent = extents[axes.index(vec)]
        k = kinds.index("R")
        while lanes > 4 and extent % lanes:
            lanes //= 2  # 1000 columns: 8-lane vectors where 16 do not divide
        if extent % lanes or extent * extents[k] * _elem_bytes(view) < STREAMING_BYTES:
            return None
        if any(e > 1 for a, kind, e in zip(axes, kinds, extents) if kind == "S" and a != vec):
            return None
        pos = axes.index(vec)
        for amap in _reads_using(view, vec):  # the matrix's rows must be contiguous along vec
            if linear_coeff(amap.results[-1], pos) != 1 or linear_coeff(amap.results[-1], k) != 0:
                return None
        vectors = extent // lanes
        # One slice per thread; whole rows on one thread (half rows ran 1.35x slower there).
        chunks = (
            next(c for c in range(min(self.threads, vectors), vectors + 1) if vectors % c == 0)
            if self.parallel and self.threads > 1
            else 1
        )
        per_chunk = lanes * (vectors // chunks)
        others = [a for a, kind in zip(axes, kinds) if kind == "S" and a != vec]
        if per_chunk >= extent:
            return Schedule(
                tile={vec: (lanes,)},
                order=tuple(others + [axes[k], f"{vec}.0", f"{vec}.1"]),
                vectorize=f"{vec}.1",
            )
        return Schedule(
            tile={vec: (per_chunk, lanes)},
            order=tuple([f"{vec}.0"] + others + [axes[k], f"{vec}.1", f"{vec}.2"]),
            vectorize=f"{vec}.2",
            parallel=(f"{vec}.0",),
        )

    def _register_tile(
        self,
        view: BlockView,
        vec: str,
        vectors: int,
        tile: dict[str, tuple[int, ...]],
        unroll: dict[str, int],
    ) -> list[str]:
        """Unroll a row axis (and a companion axis) around the vector axis; the loop names
        that go innermost. Picks the tile with enough accumulators to hide FMA latency (about 8)
        and then the most FMAs per load."""
        axes, extents = view.axes, view.extents
        row = _row_axis(view, vec)
        if row is None:  # every read is a vector (a depthwise conv): rows still add accumulators
            spatial = [
                (e, a)
                for a, k, e in zip(axes, view.kinds, extents)
                if k == "S" and a != vec and e > 1
            ]
            row = max(spatial)[1] if spatial else None
        if row is None:
            return []
        comp = _companion_axis(view, vec)
        if comp == row:  # the fallback row can be the only companion candidate: unroll it once
            comp = None
        row_extent = extents[axes.index(row)]
        best: tuple[tuple[float, float], int, int] | None = None
        for uc in (1, 2) if comp else (1,):
            per_row = vectors * uc
            # Accumulators, the per-row vector operands and one broadcast must fit the registers.
            limit = min(self.accumulators, self.unit.registers - 1 - per_row) // per_row
            choices = [r for r in range(1, min(limit, row_extent) + 1) if row_extent % r == 0]
            for r in choices:
                acc = r * per_row
                key = (min(acc, 8), acc / (per_row + r), -acc)
                if best is None or key > best[0]:
                    best = (key, uc, r)
        assert best is not None
        _, uc, r = best

        def per_row_of(companion: int) -> int:
            return vectors * companion

        inner = []
        for axis, factor in ((row, r), (comp, uc)):
            if axis is None or factor == 1:
                continue
            if factor == extents[axes.index(axis)]:
                unroll[axis] = factor
                inner.append(axis)
            else:
                tile[axis] = (factor,)
                unroll[f"{axis}.1"] = factor
                inner.append(f"{axis}.1")
        reduce = [a for a, k in zip(axes, view.kinds) if k == "R"]
        last = reduce[-1]
        # e.g. the 8 input channels of a block, while the unrolled body stays small (64 FMAs)
        trip = extents[axes.index(last)]
        if trip <= 8 and r * per_row_of(uc) * trip <= 64 and not _shares_index(view, last, row):
            unroll[last] = trip
        return inner

    def schedule_for(self, view: BlockView) -> Schedule:
        axes, kinds, extents = view.axes, view.kinds, view.extents
        lanes = _lanes(ir.MemRefType(view.out.type).element_type, self.unit.bits)
        vec = vector_axis(view)
        streaming = self._streaming_gemv(view, vec, lanes)
        if streaming is not None:
            return streaming
        tile: dict[str, tuple[int, ...]] = {}
        unroll: dict[str, int] = {}
        vectorize = ""
        inner: list[str] = []
        full = lanes
        gathered = False
        extent = extents[axes.index(vec)] if vec else 0
        while lanes > 2 and extent % lanes:
            lanes //= 2  # narrower vectors (SSE, then pairs) rather than scalar code
        if "R" in kinds and full and (not vec or lanes < full // 2 or extent % lanes):
            # The contiguous axis is too short (a 7x7 feature map): vectorize another output
            # axis, gathering the operands that vary along it (the weights of a conv).
            width = full
            while (other := _gather_axis(view, width)) is None and width > 8:
                width //= 2  # 1000 output channels: 8 lanes where 16 do not divide
            if other is not None and (not vec or width > lanes):
                vec, lanes, extent = other, width, extents[axes.index(other)]
                gathered = True
        if vec and lanes > 1 and extent % lanes == 0:
            double = extent % (lanes * 2) == 0 and "R" in kinds and not gathered
            width = lanes * 2 if double else lanes
            if "R" in kinds and not gathered and _row_axis(view, vec) is None:
                # No row to unroll (a matrix-vector product): more vectors along the axis give
                # the independent accumulators that hide FMA latency.
                for v in (8, 4, 2):
                    if v <= self.accumulators and extent % (lanes * v) == 0:
                        width = lanes * v
                        break
            if extent == width:
                vectorize = vec
            else:
                tile[vec] = (width,)
                vectorize = f"{vec}.1"
            inner = [vectorize]
            if "R" in kinds:
                inner = self._register_tile(view, vec, width // lanes, tile, unroll) + inner
        schedule = Schedule(tile=tile)
        loops = [lp.name for lp in schedule.loops(axes, kinds, extents)]
        outer = [n for n in loops if n not in inner]
        spatial = [n for n in outer if kinds[axes.index(n.split(".")[0])] == "S"]
        if vectorize and "R" in kinds:
            # Column blocks outside row blocks: the vector operand's panel (a matmul's B columns,
            # a conv's weights for a channel block) stays in cache while every row block uses it.
            columns = _vector_only_axes(view, vec)  # type: ignore[arg-type]
            spatial.sort(key=lambda n: n.split(".")[0] not in columns)
        reduce = [n for n in outer if n not in spatial]
        order = tuple(spatial + reduce + inner)
        if vectorize and "R" in kinds and not gathered and self.block_reductions:
            order = (
                self._block_reduction(view, columns, width, inner, tile, unroll, spatial, reduce)
                or order
            )
        parallel: tuple[str, ...] = ()
        work = 1
        for e in extents:
            work *= e
        if self.parallel and work >= self.min_parallel_work:
            trips = {
                lp.name: lp.trip
                for lp in Schedule(tile=tile, order=order).loops(axes, kinds, extents)
            }
            # The outer spatial loops up to the first real one, then more while the collapsed
            # trip count is too small to split evenly over the threads (3 trips on 2 threads: 2:1).
            product = 1
            for i, name in enumerate(order):
                if name not in spatial or (product >= self.min_parallel_trips and parallel):
                    break
                product *= trips[name]
                if product >= 2:
                    parallel = order[: i + 1]
        return Schedule(
            tile=tile, order=order, unroll=unroll, vectorize=vectorize, parallel=parallel
        )
