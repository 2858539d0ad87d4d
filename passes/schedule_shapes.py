"""What tp-default-schedule reads off a block's shape: its sliding-window rows, its longest
other axis, a partial tile's waste, whether its rows go first, the run-time extents of a sampled
block, and where the block sits (its kernel, an enclosing parallel loop)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mlir import ir

from mlc.dialects.tp import BlockView, Schedule
from mlc.symbolic import Dim, evaluate

from .schedule_reads import read_bytes, shares_index

ROWS_FIRST_BYTES = 4 << 20  # inputs (per image) larger than this are swept once, rows outermost


def window_row(view: BlockView, vec: str) -> str | None:
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
    first_r = next((i for i, n in enumerate(order) if kind_of(n, sampled) == "R"), len(order))
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


def kind_of(loop: str, view: BlockView) -> str:
    return view.kinds[view.axes.index(loop.split(".")[0])]


def largest_other(view: BlockView, vec: str) -> str | None:
    """The longest spatial axis besides `vec` (rows of a tile whose reads are all vectors)."""
    spatial = [(e, a) for a, k, e in zip(view.axes, view.kinds, view.extents)
               if k == "S" and a != vec and e > 1]  # fmt: skip
    return max(spatial)[1] if spatial else None


def coverage(extent: int, tile: int) -> float:
    """The useful fraction of the tiles covering `extent` (the last one may be partial)."""
    return extent / (-(-extent // tile) * tile)


def rows_first(view: BlockView, vec: str, image: str | None) -> bool:
    """Rows outside the column blocks when the inputs (one image's, when images go first)
    outgrow what the caches keep between column blocks and the weights are the smaller operand:
    each column block then re-reads the weights (from L2/L3) instead of the inputs (from
    memory). SegFormer's 1x1 conv 1024 -> 256 at 64x64 (16 MiB of input): 45.7 -> 17.0 ms."""
    weights, inputs = read_bytes(view, vec)
    if image is not None:
        inputs //= view.extents[view.axes.index(image)]
    return inputs > ROWS_FIRST_BYTES and weights < inputs


def runtime_axes(view: BlockView) -> set[str]:
    """The axes of a sampled block whose extents are known at run time only."""
    if not isinstance(view, SampledView):
        return set()
    return {a for a, e in zip(view.axes, BlockView(view.op).extents) if not isinstance(e, int)}


def kernel_of(view: BlockView) -> ir.Operation | None:
    """The func.func a block belongs to (its kernel)."""
    parent = view.op.operation.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.parent
    return parent


def in_parallel_loop(view: BlockView) -> bool:
    """Whether the block runs inside an scf.parallel (an attention kernel's chunk of queries):
    its own loops then stay serial, one parallel region per kernel."""
    parent = view.op.operation.parent
    while parent is not None and parent.name != "func.func":
        if parent.name == "scf.parallel":
            return True
        parent = parent.parent
    return False
