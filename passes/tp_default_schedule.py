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
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar

from mlir import ir

from mlc.dialects.tp import BlockView, Schedule
from mlc.dialects.tp.affine import linear_coeff
from mlc.dialects.tp.schedule import MAX_VECTOR_LANES
from mlc.dialects.walk import walk
from mlc.symbolic import Dim, evaluate, free_symbols
from mlc.target import DEFAULT_L2_BYTES, VectorUnit, host_vector_unit, vector_unit_for_bits

from .base import ModulePass, PassContext
from .schedule_reads import (
    ALIASED_STEP,
    batch_axes,
    companion_axis,
    contiguous_along,
    elem_bytes,
    gather_axis,
    gathered_source_axis,
    image_axis,
    lanes_gathered,
    lanes_of,
    read_bytes,
    read_maps,
    read_steps,
    reads_using,
    row_axis,
    shares_index,
    vector_axis,
    vector_only_axes,
)
from .symbol_samples import leading_symbols, sample_sizes

_VECTOR_COMBINERS = ("add", "mul", "max", "min", "maxui", "minui", "fastmax")
STREAMING_BYTES = 1 << 20  # a matrix at least this large is streamed from memory, not reused
# A vector-operand panel larger than L2 / PANEL_SHARE gets its reduction blocked into slices of
# at most L2 / SLICE_SHARE: 256 / 128 KiB on Zen 5 (1 MiB L2), 128 / 64 KiB on Zen 3 (512 KiB),
# where the Zen 5 sizes ran vgg19 at 0.75x onnxruntime and these at 0.96x (1 thread).
PANEL_SHARE = 4
SLICE_SHARE = 8
ROWS_FIRST_BYTES = 4 << 20  # inputs (per image) larger than this are swept once, rows outermost


@dataclass(frozen=True)
class RegisterTile:
    """The accumulators a reduction keeps in registers: `rows` of an axis no vector read
    depends on, times `companions` of an axis only they depend on, times `vectors` registers
    along the vectorized axis."""

    row: str | None
    rows: int
    companion: str | None
    companions: int
    vectors: int


ALIASED_ROWS = 8
"""Most rows of a register tile whose broadcast reads lie a multiple of 4 KiB apart: they fall
in one set of the 12-way L1, and with the vector operand's lines more rows than ways evict each
other every reduce step (attention's P·V over 1024 keys with 8 columns: 27 rows ran 2x slower
than 12)."""

WINDOW_ROWS = 8
"""Most rows of a depthwise conv's register tile along its sliding window (`ow`): each row
costs a load as well as an accumulator, and LLVM unrolls the short kernel-tap loop and keeps
the window's inputs live across taps, so 28 rows spilled (77 GFLOP/s; 7-8 rows: 118-125)."""


def _window_row(view: BlockView, vec: str) -> str | None:
    """The output's innermost spatial axis that slides over a reduce axis in some read (a
    depthwise conv's `ow` over `kw`): rows along it share the weight vector of each tap."""
    found = None
    for axis, kind, extent in zip(view.axes, view.kinds, view.extents):
        if kind != "S" or axis == vec or extent == 1:
            continue
        if any(k == "R" and shares_index(view, axis, r) for r, k in zip(view.axes, view.kinds)):
            found = axis
    return found


@dataclass(frozen=True)
class SampledView(BlockView):
    """A block seen with its run-time extents evaluated at sample symbol values."""

    sample: dict[str, int] = field(default_factory=dict)

    @property
    def extents(self) -> list[int]:  # type: ignore[override]
        return [evaluate(e, self.sample) for e in super().extents]


def tile_runtime_vector(
    schedule: Schedule, kinds: str, extents: Sequence[int | Dim], sampled: BlockView
) -> Schedule:
    """`schedule` (chosen at the sample sizes) with its vectorized axis, when that is whole and
    of run-time extent, tiled by the vector's sampled width: vectors then run to the last full
    one and the rest takes narrower ones (`fit_runtime_extents` would drop the vectors; an
    attention's scores and softmax rows ran on scalars, 3-7x slower). The loop over the tiles
    goes where the block's spatial loops end (before the first reduce loop) for a spatial
    axis, else right outside the vectors."""
    vec = schedule.vectorize
    if not vec or vec not in sampled.axes or vec in schedule.tile:
        return schedule
    pos = sampled.axes.index(vec)
    if not isinstance(extents[pos], Dim):
        return schedule
    lanes = sampled.extents[pos]
    order = [n for n in schedule.order if n != vec] if schedule.order else []
    if not order:
        return schedule
    first_r = next((i for i, n in enumerate(order) if _kind_of(n, sampled) == "R"), len(order))
    at = first_r if kinds[pos] == "S" else len(order)
    order[at:at] = [f"{vec}.0"]
    order.append(f"{vec}.1")
    return Schedule(
        tile={**schedule.tile, vec: (lanes,)},
        order=tuple(order),
        unroll=dict(schedule.unroll),
        vectorize=f"{vec}.1",
        parallel=schedule.parallel,
    )


def _kind_of(loop: str, view: BlockView) -> str:
    return view.kinds[view.axes.index(loop.split(".")[0])]


def _largest_other(view: BlockView, vec: str) -> str | None:
    """The longest spatial axis besides `vec` (rows of a tile whose reads are all vectors)."""
    spatial = [(e, a) for a, k, e in zip(view.axes, view.kinds, view.extents)
               if k == "S" and a != vec and e > 1]  # fmt: skip
    return max(spatial)[1] if spatial else None


def _coverage(extent: int, tile: int) -> float:
    """The useful fraction of the tiles covering `extent` (the last one may be partial)."""
    return extent / (-(-extent // tile) * tile)


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
            _kernel_of(v) for v in blocks if v.schedule.parallel and not v.schedule.parallel_from
        }
        eager = replace(self, min_parallel_work=self.min_parallel_work_in_region)
        for view in fresh:
            if (
                _kernel_of(view) in forks
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
        if not eager.parallel or _in_parallel_loop(view):
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
        return self._streaming_gemv(view, vector_axis(view), full) is not None

    # -- the schedule ------------------------------------------------------------------------
    def schedule_for(self, view: BlockView) -> Schedule:
        if view.scatter:
            return self._scatter_schedule(view)
        full = lanes_of(ir.MemRefType(view.out.type).element_type, self.unit.bits)
        streaming = self._streaming_gemv(view, vector_axis(view), full)
        if streaming is not None:
            return streaming
        rows = self._row_reduction(view, full)
        if rows is not None:
            return rows
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
            regs = self._register_tile(view, vec, lanes, gathered, max_rows)
            vectors = regs.vectors
            inner = self._apply_register_tile(view, regs, tile, unroll)
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
        if reduction and not gathered and _rows_first(view, vec, image):
            # Rows (images first), then columns; the weights are re-read from cache per pixel
            # tile, so blocking the reduction would only re-stream the large input and output
            # per slice (3x3 conv 256 -> 256 at 64x64: 76.6 -> 25.1 ms).
            spatial.sort(key=lambda n: n.split(".")[0] in columns)
            order = tuple(spatial + reduce + inner)
        elif reduction and self.block_reductions and not gathered:
            width = tile.get(vec, (extents[axes.index(vec)],))[0]
            blocked = self._block_reduction(
                view, columns, width, inner, tile, unroll, spatial, reduce
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
            row = row_axis(view, vec) or _window_row(view, vec) or _largest_other(view, vec)
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

    # -- register tiles -----------------------------------------------------------------------
    def _register_tile(
        self, view: BlockView, vec: str, lanes: int, gathered: bool, max_rows: int = 0
    ) -> RegisterTile:
        """The register tile with enough accumulators to hide FMA latency (about 8), then the
        most FMAs per load (each row's broadcast and each vector operand is one load per reduce
        step), discounted by what partial last tiles waste."""
        axes, extents = view.axes, view.extents
        vec_extent = extents[axes.index(vec)]
        row = row_axis(view, vec)
        most = self.accumulators
        window = False
        if row is None:  # every read is a vector (a depthwise conv): rows still add accumulators
            row = _window_row(view, vec)
            window = row is not None
            if window:
                most = min(most, WINDOW_ROWS)
            else:
                row = _largest_other(view, vec)
        comp = companion_axis(view, vec)
        if comp == row:  # the fallback row can be the only companion candidate
            comp = None
        limit_rows = max_rows
        max_rows = row_extent = extents[axes.index(row)] if row else 1
        if row is not None and any(s % ALIASED_STEP == 0 for s in read_steps(view, row, skip=vec)):
            max_rows = min(max_rows, ALIASED_ROWS)
        if limit_rows:
            max_rows = min(max_rows, limit_rows)
        if row_extent == 1 and not gathered:
            # A matrix-vector product: the vector axis alone gives the independent accumulators
            # (its operands feed the FMAs from memory).
            v = next(v for v in (8, 4, 2, 1) if v == 1 or (
                v <= self.accumulators and v * lanes <= MAX_VECTOR_LANES
                and vec_extent % (v * lanes) == 0))  # fmt: skip
            return RegisterTile(None, 1, None, 1, v)
        best: tuple[tuple[float, float, int], RegisterTile] | None = None
        # Powers of two: LLVM splits vector<64xf32> into four registers, but legalizes a
        # vector<48xf32> with shuffles (9 rows x 48 lanes ran at 3 GFLOP/s, 14 x 32 at 256).
        for v in (1,) if gathered else (1, 2, 4):
            width = v * lanes
            if width > MAX_VECTOR_LANES or (v > 1 and width > vec_extent):
                break
            for uc in (1, 2) if comp else (1,):
                per_row = v * uc
                # Accumulators, the per-row vector operands and one broadcast fit the registers.
                limit = min(most, self.unit.registers - 1 - per_row) // per_row
                for r in range(1, min(limit, max_rows) + 1):
                    acc = r * per_row
                    # Partial tiles run less efficient code as well: coverage counts twice.
                    waste = (_coverage(row_extent, r) * _coverage(vec_extent, width)) ** 2
                    key = (
                        # a window: one load per FMA whatever the tile, so the useful accumulators
                        (round(acc * waste**0.5, 3), waste, -acc)
                        if window
                        # ties: wider vectors before companion blocks (a packed weight panel
                        # of 16 read as one 64-byte line per step, not two 32-byte halves in
                        # two passes: 197x3072x768 ran 1.1x faster)
                        else (min(acc, 8), round(acc / (per_row + r) * waste, 3), -acc, v)
                    )
                    if best is None or key > best[0]:
                        best = (key, RegisterTile(row, r, comp, uc, v))
        assert best is not None
        return best[1]

    def _apply_register_tile(
        self,
        view: BlockView,
        regs: RegisterTile,
        tile: dict[str, tuple[int, ...]],
        unroll: dict[str, int],
    ) -> list[str]:
        """Tile and unroll the register tile's axes; the loop names that go innermost (before
        the vectorized one). The last reduce axis is unrolled too when short (the input
        channels of a block) and the unrolled body stays small."""
        axes, extents = view.axes, view.extents
        inner = []
        for axis, factor in ((regs.row, regs.rows), (regs.companion, regs.companions)):
            if axis is None or factor == 1:
                continue
            if factor == extents[axes.index(axis)]:
                unroll[axis] = factor
                inner.append(axis)
            else:
                tile[axis] = (factor,)
                unroll[f"{axis}.1"] = factor
                inner.append(f"{axis}.1")
        last = [a for a, k in zip(axes, view.kinds) if k == "R"][-1]
        trip = extents[axes.index(last)]
        body = regs.rows * regs.companions * regs.vectors * trip
        if trip <= 8 and body <= 64 and not (regs.row and shares_index(view, last, regs.row)):
            unroll[last] = trip
        return inner

    # -- special shapes -----------------------------------------------------------------------
    def _row_reduction(self, view: BlockView, full: int) -> Schedule | None:
        """A reduction along the contiguous axis of its reads (a softmax's row maximum and sum,
        a layer norm's mean and variance, a sum over the last axis) whose output has no vector
        axis of its own: the reduce axis is vectorized, its lanes are partial results combined
        once per row. Gathering rows instead ran them as scalar code (softmax 6 ns / element)."""
        axes, kinds, extents = view.axes, view.kinds, view.extents
        if "R" not in kinds or view.combiner not in _VECTOR_COMBINERS or full < 4:
            return None
        vec = vector_axis(view)
        if vec is not None and extents[axes.index(vec)] >= full // 2:
            return None  # the output's own vectors
        r = [a for a, k in zip(axes, kinds) if k == "R"][-1]
        pos = axes.index(r)
        if extents[pos] < 8 or not contiguous_along(view, r):
            return None
        # Up to four registers of lanes: independent partial results, so that consecutive
        # reduce steps do not wait for each other (one register's chain of adds is latency
        # bound: softmax rows ran 1.4x slower than with four).
        lanes = min(full * 4, MAX_VECTOR_LANES)
        while lanes > 4 and extents[pos] < lanes:
            lanes //= 2
        tile = {r: (lanes,)} if extents[pos] > lanes else {}
        spatial = [a for a, k in zip(axes, kinds) if k == "S"]
        reduce = [a for a, k in zip(axes, kinds) if k == "R" and a != r]
        inner = [f"{r}.0", f"{r}.1"] if tile else [r]
        order = tuple(spatial + reduce + inner)
        parallel = self._parallel_prefix(view, tile, order, spatial)
        return Schedule(tile=tile, order=order, vectorize=inner[-1], parallel=parallel)

    def _scatter_schedule(self, view: BlockView) -> Schedule:
        """A scatter block runs in order on one thread (repeated positions apply in sequence);
        it is vectorized along its last axis when that axis is its last output position."""
        axis = view.scatter_lane_axis
        lanes = lanes_of(ir.MemRefType(view.out.type).element_type, self.unit.bits)
        if axis is None or axis != view.axes[-1] or lanes < 2:
            return Schedule()
        extent = view.extents[-1]
        while lanes > 2 and extent % lanes:
            lanes //= 2
        if extent % lanes:
            return Schedule()
        if extent == lanes:
            return Schedule(vectorize=axis)
        return Schedule(tile={axis: (lanes,)}, vectorize=f"{axis}.1")

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
        panel = elem_bytes(view) * width
        for n in inner:
            if n.split(".")[0] in columns:  # the companion blocks of the register tile
                panel *= unroll.get(n, 1)
        for k, e in zip(view.kinds, extents):
            if k == "R":
                panel *= e
        if not reduce or panel <= self.l2_bytes // PANEL_SHARE:
            return None
        first = reduce[0]
        if first not in axes or first in unroll:  # a tiled axis has loops `first.0`, `first.1`
            return None
        extent = extents[axes.index(first)]
        per_step = panel // extent
        target = self.l2_bytes // SLICE_SHARE
        fits = [d for d in range(1, extent) if extent % d == 0 and d * per_step <= target]
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
        if vec is None or lanes < 2 or kinds.count("R") != 1 or row_axis(view, vec) is not None:
            return None
        if view.op.parent is not None and view.op.parent.name == "scf.for":
            # Re-run every iteration (a recurrence's H R^T): the matrix is re-read and should
            # stay in L2, which the register tile's panels allow; streamed, an LSTM with a 1 MiB
            # R ran 5x slower (seq 100, hidden 256: 6.0 vs 1.2 ms).
            return None
        extent = extents[axes.index(vec)]
        k = kinds.index("R")
        while lanes > 4 and extent % lanes:
            lanes //= 2  # 1000 columns: 8-lane vectors where 16 do not divide
        if extent % lanes or extent * extents[k] * elem_bytes(view) < STREAMING_BYTES:
            return None
        if any(e > 1 for a, kind, e in zip(axes, kinds, extents) if kind == "S" and a != vec):
            return None
        pos = axes.index(vec)
        for amap in reads_using(view, vec):  # the matrix's rows must be contiguous along vec
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
        if not self.parallel or self.work(view) < self.min_parallel_work or _in_parallel_loop(view):
            return ()
        loops = Schedule(tile=tile, order=order).loops(axes, kinds, extents)
        trips = {lp.name: lp.trip for lp in loops}
        # A loop over a run-time extent (sampled at `symbol-hint`) may run once: a batch of 1.
        # It counts one trip, so the loops after it join the parallel nest and feed the threads.
        runtime = _runtime_axes(view)
        parallel: tuple[str, ...] = ()
        product = 1
        for i, name in enumerate(order):
            if name not in spatial or (product >= self.min_parallel_trips and parallel):
                break
            product *= 1 if name.split(".")[0] in runtime else trips[name]
            if product >= 2 or name.split(".")[0] in runtime:
                parallel = order[: i + 1]
        return parallel


def _rows_first(view: BlockView, vec: str, image: str | None) -> bool:
    """Rows outside the column blocks when the inputs (one image's, when images go first)
    outgrow what the caches keep between column blocks and the weights are the smaller operand:
    each column block then re-reads the weights (from L2/L3) instead of the inputs (from
    memory). SegFormer's 1x1 conv 1024 -> 256 at 64x64 (16 MiB of input): 45.7 -> 17.0 ms."""
    weights, inputs = read_bytes(view, vec)
    if image is not None:
        inputs //= view.extents[view.axes.index(image)]
    return inputs > ROWS_FIRST_BYTES and weights < inputs


def _runtime_axes(view: BlockView) -> set[str]:
    """The axes of a sampled block whose extents are known at run time only."""
    if not isinstance(view, SampledView):
        return set()
    return {a for a, e in zip(view.axes, BlockView(view.op).extents) if not isinstance(e, int)}


def _kernel_of(view: BlockView) -> ir.Operation | None:
    """The func.func a block belongs to (its kernel)."""
    parent = view.op.operation.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.parent
    return parent


def _in_parallel_loop(view: BlockView) -> bool:
    """Whether the block runs inside an scf.parallel (an attention kernel's chunk of queries):
    its own loops then stay serial, one parallel region per kernel."""
    parent = view.op.operation.parent
    while parent is not None and parent.name != "func.func":
        if parent.name == "scf.parallel":
            return True
        parent = parent.parent
    return False
