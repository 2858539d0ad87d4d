"""Register tiles of tp-default-schedule's reductions: how many rows, companion blocks and
vectors of accumulators a block keeps in registers across its reduce loops, and the tiles and
unrolls that put them there."""

from __future__ import annotations

from dataclasses import dataclass

from mlc.dialects.tp import BlockView
from mlc.dialects.tp.schedule import MAX_VECTOR_LANES

from .schedule_reads import ALIASED_STEP, companion_axis, read_steps, row_axis, shares_index
from .schedule_shapes import coverage, largest_other, window_row


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


def register_tile(
    view: BlockView,
    vec: str,
    lanes: int,
    gathered: bool,
    accumulators: int,
    registers: int,
    max_rows: int = 0,
) -> RegisterTile:
    """The register tile (of at most `accumulators` of the unit's `registers`) with enough
    accumulators to hide FMA latency (about 8), then the
    most FMAs per load (each row's broadcast and each vector operand is one load per reduce
    step), discounted by what partial last tiles waste."""
    axes, extents = view.axes, view.extents
    vec_extent = extents[axes.index(vec)]
    row = row_axis(view, vec)
    most = accumulators
    window = False
    if row is None:  # every read is a vector (a depthwise conv): rows still add accumulators
        row = window_row(view, vec)
        window = row is not None
        if window:
            most = min(most, WINDOW_ROWS)
        else:
            row = largest_other(view, vec)
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
            v <= accumulators and v * lanes <= MAX_VECTOR_LANES
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
            limit = min(most, registers - 1 - per_row) // per_row
            for r in range(1, min(limit, max_rows) + 1):
                acc = r * per_row
                # Partial tiles run less efficient code as well: coverage counts twice.
                waste = (coverage(row_extent, r) * coverage(vec_extent, width)) ** 2
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


def apply_register_tile(
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
