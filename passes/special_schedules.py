"""tp-default-schedule's schedules for special shapes: reductions along their reads' rows (a
softmax's maximum and sum), scatters, reductions blocked to fit a cache, and matrix-vector
products streamed from memory (split over the threads themselves; a row reduction's parallel
loops are left to the caller)."""

from __future__ import annotations

from mlir import ir

from mlc.dialects.tp import BlockView, Schedule
from mlc.dialects.tp.affine import linear_coeff
from mlc.dialects.tp.schedule import MAX_VECTOR_LANES

from .schedule_reads import (
    batch_axes,
    contiguous_along,
    elem_bytes,
    lanes_of,
    reads_using,
    row_axis,
    vector_axis,
)

VECTOR_COMBINERS = ("add", "mul", "max", "min", "maxui", "minui", "fastmax")
STREAMING_BYTES = 1 << 20  # a matrix at least this large is streamed from memory, not reused
# A vector-operand panel larger than L2 / PANEL_SHARE gets its reduction blocked into slices of
# at most L2 / SLICE_SHARE: 256 / 128 KiB on Zen 5 (1 MiB L2), 128 / 64 KiB on Zen 3 (512 KiB),
# where the Zen 5 sizes ran vgg19 at 0.75x onnxruntime and these at 0.96x (1 thread).
PANEL_SHARE = 4
SLICE_SHARE = 8


def row_reduction(view: BlockView, full: int) -> Schedule | None:
    """A reduction along the contiguous axis of its reads (a softmax's row maximum and sum,
    a layer norm's mean and variance, a sum over the last axis) whose output has no vector
    axis of its own: the reduce axis is vectorized, its lanes are partial results combined
    once per row. Gathering rows instead ran them as scalar code (softmax 6 ns / element)."""
    axes, kinds, extents = view.axes, view.kinds, view.extents
    if "R" not in kinds or view.combiner not in VECTOR_COMBINERS or full < 4:
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
    return Schedule(tile=tile, order=order, vectorize=inner[-1])


def scatter_schedule(view: BlockView, bits: int) -> Schedule:
    """A scatter block runs in order on one thread (repeated positions apply in sequence);
    it is vectorized along its last axis when that axis is its last output position."""
    axis = view.scatter_lane_axis
    lanes = lanes_of(ir.MemRefType(view.out.type).element_type, bits)
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


def block_reduction(
    view: BlockView,
    columns: set[str],
    width: int,
    inner: list[str],
    tile: dict[str, tuple[int, ...]],
    unroll: dict[str, int],
    spatial: list[str],
    reduce: list[str],
    l2_bytes: int,
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
    if not reduce or panel <= l2_bytes // PANEL_SHARE:
        return None
    first = reduce[0]
    if first not in axes or first in unroll:  # a tiled axis has loops `first.0`, `first.1`
        return None
    extent = extents[axes.index(first)]
    per_step = panel // extent
    target = l2_bytes // SLICE_SHARE
    fits = [d for d in range(1, extent) if extent % d == 0 and d * per_step <= target]
    if not fits:
        return None
    tile[first] = (max(fits),)
    ncols = next((i for i, n in enumerate(spatial) if n.split(".")[0] not in columns), len(spatial))
    return tuple(
        spatial[:ncols] + [f"{first}.0"] + spatial[ncols:] + [f"{first}.1"] + reduce[1:] + inner
    )


def streaming_gemv(view: BlockView, vec: str | None, lanes: int, threads: int) -> Schedule | None:
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
    wide = [a for a, kind, e in zip(axes, kinds, extents) if kind == "S" and a != vec and e > 1]
    if wide and set(wide) - batch_axes(view):
        return None
    pos = axes.index(vec)
    for amap in reads_using(view, vec):  # the matrix's rows must be contiguous along vec
        if linear_coeff(amap.results[-1], pos) != 1 or linear_coeff(amap.results[-1], k) != 0:
            return None
    others = [a for a, kind in zip(axes, kinds) if kind == "S" and a != vec]
    if wide:
        # A batch of products, each with a matrix of its own (graph-split-gemv's blocks of
        # rows): whole matrices per thread, each read in memory order.
        outer = wide + [a for a in others if a not in wide]
        return Schedule(
            tile={vec: (lanes,)},
            order=tuple(outer + [axes[k], f"{vec}.0", f"{vec}.1"]),
            vectorize=f"{vec}.1",
            parallel=(wide[0],) if threads > 1 else (),
        )
    vectors = extent // lanes
    # One slice per thread; whole rows on one thread (half rows ran 1.35x slower there).
    chunks = (
        next(c for c in range(min(threads, vectors), vectors + 1) if vectors % c == 0)
        if threads > 1
        else 1
    )
    per_chunk = lanes * (vectors // chunks)
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
