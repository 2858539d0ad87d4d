"""tp-default-schedule: give every unscheduled tp.block a reasonable schedule.

The heuristic mirrors a hand-written CPU kernel: vectorize the output's contiguous axis, and for
reductions keep a register tile of `rows x vectors` accumulators across the reduce loops, where
the rows are an axis the vector loads do not depend on (so each vector load is reused by every
row: `a[i,k]` broadcasts against `b[k,j:j+16]` in a matmul, one input vector against the output
channels of a conv). Tiles need not divide their axes: the last row tile is guarded, the last
vector tile runs on narrower vectors (a 197-token attention: 14-row tiles, 16 vectors of 16 and a
tail of 5). The outer spatial loops run in parallel when the block has enough work. Knob values
chosen here are what a tuner later overrides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import ClassVar

from mlir import ir

from mlc.dialects.tp import BlockView, Schedule
from mlc.dialects.walk import walk
from mlc.symbolic import free_symbols
from mlc.target import DEFAULT_L2_BYTES, VectorUnit, host_vector_unit, vector_unit_for_bits

from .base import ModulePass, PassContext
from .register_tiles import apply_register_tile, register_tile
from .schedule_reads import (
    batch_axes,
    gather_axis,
    gathered_source_axis,
    image_axis,
    lanes_gathered,
    lanes_of,
    read_maps,
    reads_using,
    row_axis,
    vector_axis,
    vector_only_axes,
)
from .schedule_shapes import (
    SampledView,
    in_parallel_loop,
    kernel_of,
    largest_other,
    rows_first,
    runtime_axes,
    tile_runtime_vector,
    window_row,
)
from .special_schedules import block_reduction, row_reduction, scatter_schedule, streaming_gemv
from .symbol_samples import leading_symbols, sample_sizes

MANY_READS = 4
"""Reads from which a map's work counts them (`parallel-by-reads`)."""
GATHERED_READ_COST = 4
"""What an element of a map whose vector reads gather counts for against min-parallel-work."""


@dataclass(frozen=True)
class TpDefaultSchedulePass(ModulePass):
    """Schedule tp blocks: vectorized output axis, register tiles for reductions, parallel loops."""

    name: ClassVar[str] = "tp-default-schedule"
    symbolic_dims: ClassVar[bool] = True

    vector_bits: int | None = None
    """SIMD register width in bits; none: the host's (512 with AVX-512, 256 with AVX2); 0 disables
    vectorization."""
    max_accumulators: int | None = None
    """Vector registers a reduction's register tile may use for accumulators; none: all but
    two of the unit's registers (30 of AVX-512's 32, 14 of AVX2's 16)."""
    parallel: bool = True
    """Mark the outer spatial loops parallel in blocks with enough work."""
    min_parallel_work: int = 1 << 17
    """Blocks with fewer iterations (all axes; times the reads of a map with many of them, see
    `parallel-by-reads`) than this stay sequential: a parallel region costs
    about a microsecond when both threads have a core, and a relu over 2^16 floats took 2.3 us
    on one thread and 2.2 us on two (2^17: 7.6 -> 3.2 us). When other processes crowd the
    cores, each region costs ~60 us (the worker waits for a time slice), so small ones hurt."""
    min_parallel_work_in_region: int = 1 << 14
    """A block of a kernel that forks anyway (another of its blocks runs on the threads) is
    parallel from this much work on: inside the kernel's one region (omp-merge-regions) a serial
    block costs the same barrier and leaves the other threads waiting in it. ResNet-50's
    Winograd input transform at 14x14 ran five of its thirteen blocks serially: 0.53x as fast
    on 2 threads as on 1 (now 1.47x)."""
    reduce_cost: float = 0.5
    """What one iteration of a reduction that reuses every read (a conv's or a matmul's
    multiply-add on one lane of a register tile) counts for against `min-parallel-work`,
    relative to one element of a map: a conv with 2^17 multiply-adds runs in about 3 us on one
    core, a relu over 2^17 floats in 7.6 us. A reduction with a read that streams an element
    per iteration (a pool, a matrix-vector product, a depthwise conv's input) counts one."""
    parallel_by_reads: bool = True
    """Count the work of a map (a block without reduce axes) with at least MANY_READS (4) reads
    as its iterations times its reads. Fewer reads count as one: SE-block products and residual adds
    made parallel by their two or three reads left RegNet-Y's 2-thread latency as it was at
    best and 35 % worse at the median (more regions to wait in on a shared host)."""
    min_parallel_trips: int = 16
    """Collapse outer spatial loops into the parallel set until they have this many iterations."""
    threads: int = 1
    """Threads the kernels will run on (how many slices a streamed matrix-vector product gets)."""
    block_reductions: bool = True
    """Split the outer reduce loop when the vector operand's panel outgrows the caches."""
    l2_bytes: int = DEFAULT_L2_BYTES
    """Per-core L2 cache the reduction blocking is sized for (mlc-default: the host's)."""
    overwrite: bool = False
    """Replace existing schedules too (by default only empty ones are filled)."""
    symbol_hint: int = 64
    """The size a block's run-time extents' symbols are assumed to have when choosing its
    tiles (the tiles then cover any size, the last one guarded)."""

    def __post_init__(self) -> None:
        if self.threads < 1:
            raise ValueError(f"threads must be >= 1, got {self.threads}")
        if self.vector_bits is not None and (self.vector_bits < 0 or self.vector_bits % 64):
            raise ValueError(f"vector-bits must be 0 or a multiple of 64, got {self.vector_bits}")
        if self.l2_bytes < 1 << 14:
            raise ValueError(f"l2-bytes must be at least 16384, got {self.l2_bytes}")
        if self.max_accumulators is not None and self.max_accumulators < 1:
            raise ValueError(f"max-accumulators must be >= 1, got {self.max_accumulators}")
        if self.min_parallel_work_in_region < 1:
            raise ValueError(
                f"min-parallel-work-in-region must be >= 1, got {self.min_parallel_work_in_region}"
            )
        if self.reduce_cost <= 0:
            raise ValueError(f"reduce-cost must be > 0, got {self.reduce_cost}")

    @property
    def unit(self) -> VectorUnit:
        """The vector unit schedules are sized for."""
        if self.vector_bits is None:
            return host_vector_unit()
        return vector_unit_for_bits(self.vector_bits)

    @property
    def accumulators(self) -> int:
        return self.max_accumulators or self.unit.registers - 2

    @property
    def _threads(self) -> int:
        """The threads a kernel's loops may be split over (1 with `parallel` off)."""
        return self.threads if self.parallel else 1

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        leading = leading_symbols(module)
        blocks = [BlockView(o) for o in walk(module) if o.name == "tp.block"]
        fresh = []
        for view in blocks:
            if not self.overwrite and len(ir.DictAttr(view.op.attributes["schedule"])) > 0:
                continue
            if view.symbolic:
                view.set_schedule(self._parallel_at_run_time(view, leading))
            else:
                view.set_schedule(self.schedule_for(view))
                fresh.append(view)
        if self.parallel and self.threads > 1:
            self._join_forked_kernels(blocks, fresh)

    def _join_forked_kernels(self, blocks: list[BlockView], fresh: list[BlockView]) -> None:
        """Give the serial blocks of a kernel that forks anyway `min-parallel-work-in-region`'s
        lower threshold (only blocks this run scheduled: records' schedules stay)."""
        forks = {
            kernel_of(v) for v in blocks if v.schedule.parallel and not v.schedule.parallel_from
        }
        eager = replace(self, min_parallel_work=self.min_parallel_work_in_region)
        for view in fresh:
            if (
                kernel_of(view) in forks
                and not view.schedule.parallel
                and self.work(view) >= self.min_parallel_work_in_region
            ):
                view.set_schedule(eager.schedule_for(view))

    def _runtime_extents_schedule(self, view: BlockView, leading: set[str]) -> Schedule:
        """A block whose extents are known at run time only is scheduled as if its symbols had
        sample sizes (`symbol-hint`, a batch 1: `symbol_samples`), less what needs static trips
        (fit_runtime_extents); when that still does not fit, its spatial loops run in order,
        the outer one parallel."""
        extents = view.extents
        symbols = {s for e in extents for s in free_symbols(e)}
        hinted = SampledView(view.op, sample_sizes(symbols, self.symbol_hint, leading))
        if symbols & leading and self._streams_rows(hinted):
            # A streamed matrix-vector product serves one row: with a batch of run-time size
            # each row would stream the matrix again (MobileNet's classifier at batch 4: 2.3x
            # the register tiles' time). Scheduled for the hint, a batch of 1 runs one partial
            # row tile, which reads the matrix once too.
            hinted = SampledView(view.op, sample_sizes(symbols, self.symbol_hint, set()))
        sampled = tile_runtime_vector(self.schedule_for(hinted), view.kinds, extents, hinted)
        schedule = sampled.fit_runtime_extents(view.axes, extents)
        if not schedule.check(view.axes, view.kinds, extents):
            return schedule
        fallback = self._scalar_schedule(hinted).fit_runtime_extents(view.axes, extents)
        return fallback if not fallback.check(view.axes, view.kinds, extents) else Schedule()

    def _parallel_at_run_time(self, view: BlockView, leading: set[str]) -> Schedule:
        """The schedule of a block with run-time extents. When its work at the sample sizes
        is too small for threads, the sizes at run time may not be: it gets the parallel
        loops it would have with enough work, run on threads only from the iteration count
        that reaches `min-parallel-work` (`parallel_from`; a block of 64 rows serial, of 512
        rows split)."""
        schedule = self._runtime_extents_schedule(view, leading)
        if schedule.parallel or not self.parallel or self.threads == 1:
            return schedule
        eager = replace(self, min_parallel_work=1)._runtime_extents_schedule(view, leading)
        if not eager.parallel or in_parallel_loop(view):
            return schedule
        sample = SampledView(
            view.op, {s: self.symbol_hint for e in view.extents for s in free_symbols(e)}
        )
        per_iteration = self.work(sample) / math.prod(sample.extents)
        start = math.ceil(self.min_parallel_work / per_iteration)
        fitted = replace(eager, parallel_from=start)
        return fitted if not fitted.check(view.axes, view.kinds, view.extents) else schedule

    def _streams_rows(self, view: BlockView) -> bool:
        """Whether `view` gets the streamed matrix-vector product's schedule."""
        full = lanes_of(ir.MemRefType(view.out.type).element_type, self.unit.bits)
        return streaming_gemv(view, vector_axis(view), full, self._threads) is not None

    # -- the schedule ------------------------------------------------------------------------
    def schedule_for(self, view: BlockView) -> Schedule:
        if view.scatter:
            return scatter_schedule(view, self.unit.bits)
        full = lanes_of(ir.MemRefType(view.out.type).element_type, self.unit.bits)
        streaming = streaming_gemv(view, vector_axis(view), full, self._threads)
        if streaming is not None:
            return streaming
        rows = row_reduction(view, full)
        if rows is not None:
            spatial = [a for a, k in zip(view.axes, view.kinds) if k == "S"]
            return replace(
                rows, parallel=self._parallel_prefix(view, rows.tile, rows.order, spatial)
            )
        choice = self._vector_axis(view, full)
        if choice is None:
            return self._scalar_schedule(view)
        return self._vector_schedule(view, *choice)

    def _scalar_schedule(self, view: BlockView) -> Schedule:
        """No vectors (vectorization off, or no axis to put them on): spatial loops first."""
        loops = Schedule().loops(view.axes, view.kinds, view.extents)
        spatial = [lp.name for lp in loops if lp.kind == "S"]
        order = tuple(spatial + [lp.name for lp in loops if lp.kind != "S"])
        return Schedule(order=order, parallel=self._parallel_prefix(view, {}, order, spatial))

    def _vector_schedule(
        self, view: BlockView, vec: str, lanes: int, gathered: bool, max_rows: int = 0
    ) -> Schedule:
        """`vec` on vectors of `lanes`; a reduction gets a register tile around them, column
        blocks outside row blocks and, where its vector operand outgrows the caches, a blocked
        reduce axis. A reduction with the work for threads whose register tile holds every
        output (an SE block's global pool: 12 channel blocks over 56 x 56 pixels) gets a
        tile of at most a thread's share of the rows (`max_rows`), so that threads can
        split them."""
        axes, kinds, extents = view.axes, view.kinds, view.extents
        reduction = "R" in kinds
        tile: dict[str, tuple[int, ...]] = {}
        unroll: dict[str, int] = {}
        inner: list[str] = []
        vectors = 1
        if reduction:
            regs = register_tile(
                view, vec, lanes, gathered, self.accumulators, self.unit.registers, max_rows
            )
            vectors = regs.vectors
            inner = apply_register_tile(view, regs, tile, unroll)
        inner.append(self._vectorize(vec, lanes * vectors, extents[axes.index(vec)], tile))
        outer = [lp.name for lp in Schedule(tile=tile).loops(axes, kinds, extents)]
        outer = [n for n in outer if n not in inner]
        spatial = [n for n in outer if kinds[axes.index(n.split(".")[0])] == "S"]
        reduce = [n for n in outer if n not in spatial]
        columns = vector_only_axes(view, vec) if reduction else []
        # Column blocks outside row blocks: the vector operand's panel (a matmul's B columns,
        # a conv's weights for a channel block) stays in cache while every row block uses it.
        # Batch axes go first: the other blocks of an attention kernel share those loops.
        batches = batch_axes(view) - {vec} if reduction else set()
        if batches:  # with the unit dims before them: rows are the output's leading dims
            batches |= {a for a, k, e in zip(axes, kinds, extents) if k == "S" and e == 1}
        image = image_axis(view, vec) if reduction else None
        if image is not None:
            batches.add(image)
        spatial.sort(key=lambda n: (n.split(".")[0] not in batches, n.split(".")[0] not in columns))
        source = None if reduction else gathered_source_axis(view, vec)
        if source is not None:
            # A transpose: the loop along the gathered read's rows goes just outside the
            # vectors, so one tile of vectors reuses the same few lines of each input row from
            # L1 (rows 2 KiB apart fall into two L1 sets: BERT's Kᵀ went to L2 per element).
            spatial.sort(key=lambda n: n.split(".")[0] == source)
        order = tuple(spatial + reduce + inner)
        if reduction and not gathered and rows_first(view, vec, image):
            # Rows (images first), then columns; the weights are re-read from cache per pixel
            # tile, so blocking the reduction would only re-stream the large input and output
            # per slice (3x3 conv 256 -> 256 at 64x64: 76.6 -> 25.1 ms).
            spatial.sort(key=lambda n: n.split(".")[0] in columns)
            order = tuple(spatial + reduce + inner)
        elif reduction and self.block_reductions and not gathered:
            width = tile.get(vec, (extents[axes.index(vec)],))[0]
            blocked = block_reduction(
                view, columns, width, inner, tile, unroll, spatial, reduce, self.l2_bytes
            )
            order = blocked or order
        parallel = self._parallel_prefix(view, tile, order, spatial)
        if (
            reduction
            and not parallel
            and not max_rows
            and self.parallel
            and self.threads > 1
            and self.work(view) >= self.min_parallel_work
        ):
            row = row_axis(view, vec) or window_row(view, vec) or largest_other(view, vec)
            extent = view.extents[view.axes.index(row)] if row else 1
            if extent >= self.threads:
                return self._vector_schedule(
                    view, vec, lanes, gathered, max_rows=-(-extent // self.threads)
                )
        return Schedule(
            tile=tile, order=order, unroll=unroll, vectorize=inner[-1], parallel=parallel
        )

    def _vector_axis(self, view: BlockView, full: int) -> tuple[str, int, bool] | None:
        """(axis, lanes, gathered): the output's contiguous axis on vectors as wide as it
        allows (narrower only when the axis is shorter than a register: tiles may be
        partial), or, for a reduction over a short contiguous axis (a 7x7 feature map),
        another output axis along which the reads that vary are gathered; `gathered` also
        when the output's axis loads its lanes one by one (`lanes_gathered`)."""
        axes, extents = view.axes, view.extents
        vec = vector_axis(view)
        if not full:
            return None  # vectorization off
        lanes = full
        extent = extents[axes.index(vec)] if vec else 0
        while lanes > 2 and extent < lanes:
            lanes //= 2
        short = lanes < full // 2 or (extent % lanes and extent < 2 * full)
        if "R" in view.kinds and full and (not vec or short):
            width = full
            while (other := gather_axis(view, width)) is None and width > 8:
                width //= 2  # 1000 output channels: 8 lanes where 16 do not divide
            if other is not None and (not vec or width > lanes):
                return other, width, True
        if vec is None or lanes < 2:
            return None
        # A reduction whose reads lie far apart along the output's axis (an NCHW global pool:
        # channels 49 floats apart) loads each lane alone: one register's worth per step, as
        # a gathered axis. Four registers of lanes took LLVM's SLP vectorizer 6 s on one
        # kernel (448 scalar loads feeding insertelement chains), and ran no faster.
        return vec, lanes, "R" in view.kinds and lanes_gathered(view, vec)

    @staticmethod
    def _vectorize(vec: str, width: int, extent: int, tile: dict[str, tuple[int, ...]]) -> str:
        """Tile `vec` by `width` (unless that is the whole axis); the vectorized loop's name."""
        if extent <= width:
            return vec
        tile[vec] = (width,)
        return f"{vec}.1"

    # -- threads ------------------------------------------------------------------------------
    def work(self, view: BlockView) -> float:
        """A block's cost in elements of a map: its iterations, times its reads for a map with
        many of them, times `reduce-cost` for a reduction."""
        work = 1.0
        for e in view.extents:
            work *= e
        if "R" in view.kinds:
            # every read reused across some axis (a conv's inputs across output channels, its
            # weights across pixels), so no read streams one element per iteration
            maps = read_maps(view)
            long = [a for a, e in zip(view.axes, view.extents) if e > 1]
            streamed = [m for m in maps if all(m in reads_using(view, a) for a in long)]
            return work * self.reduce_cost if maps and not streamed else work
        if self.parallel_by_reads:
            reads = sum(op.name.startswith("tp.read") for op in view.body.operations)
            if reads >= MANY_READS:
                # a Winograd transform pass summing 5 inputs per output over 52K outputs
                # (ResNet's 56 x 56 stage) is as much work as a relu over 260K elements
                work *= reads
        vec = vector_axis(view)
        if vec is not None and lanes_gathered(view, vec):
            # vectors assembled lane by lane: BERT's Kᵀ (8 x 64 x 128, a column of the input
            # per vector) takes 14 us on one thread even tiled as a transpose (175 us before),
            # a relu of that size 5 us
            work *= GATHERED_READ_COST
        return work

    def _parallel_prefix(
        self,
        view: BlockView,
        tile: dict[str, tuple[int, ...]],
        order: tuple[str, ...],
        spatial: list[str],
    ) -> tuple[str, ...]:
        """The outer spatial loops up to the first real one, then more while the collapsed trip
        count is too small to split evenly over the threads (3 trips on 2 threads: 2:1)."""
        axes, kinds, extents = view.axes, view.kinds, view.extents
        if not self.parallel or self.work(view) < self.min_parallel_work or in_parallel_loop(view):
            return ()
        loops = Schedule(tile=tile, order=order).loops(axes, kinds, extents)
        trips = {lp.name: lp.trip for lp in loops}
        # A loop over a run-time extent (sampled at `symbol-hint`) may run once: a batch of 1.
        # It counts one trip, so the loops after it join the parallel nest and feed the threads.
        runtime = runtime_axes(view)
        parallel: tuple[str, ...] = ()
        product = 1
        for i, name in enumerate(order):
            if name not in spatial or (product >= self.min_parallel_trips and parallel):
                break
            product *= 1 if name.split(".")[0] in runtime else trips[name]
            if product >= 2 or name.split(".")[0] in runtime:
                parallel = order[: i + 1]
        return parallel
