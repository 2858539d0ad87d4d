"""What the reads of a tp.block say about how to vectorize and tile it: which output axis is
contiguous, which axes the vector operands depend on (columns), which they do not (rows of a
register tile), which only they depend on (companions), which axis to gather along.

Shared by the default schedule and the tuner's knob spaces.
"""

from __future__ import annotations

from mlir import ir

from mlc.dialects.tp import BlockView
from mlc.dialects.tp.affine import linear_coeff
from mlc.dialects.walk import walk

L2_BYTES = 1 << 20  # per core on Zen 4/5 (and Intel since Ice Lake: 1.25-2 MiB)
IMAGE_BYTES = 64 << 10  # less per index of the first dim is a matrix's row, not an image
STRIDED_STEPS = (2, 3, 4)
"""Lane strides read as one wide load and a shuffle (a stride-2 window reads every other
element: 32 floats and a vpermt2ps for 16 lanes instead of 16 scalar loads)."""


def elem_bytes(view: BlockView) -> int:
    return getattr(ir.MemRefType(view.out.type).element_type, "width", 32) // 8


def lanes_of(elem: ir.Type, width_bits: int) -> int:
    """Vector lanes for an output element type; 8-bit outputs (int8 tensors, bools) take 16
    lanes, a 16-byte store: what computes them is mostly wider (the f32 math of a quantize)."""
    bits = getattr(elem, "width", 0)
    if bits == 8:
        return width_bits // 16
    return width_bits // bits if bits in (16, 32, 64) else 0


def vector_axis(view: BlockView) -> str | None:
    """The spatial axis that walks the output's last dim with unit stride, if any (the dim
    itself, or its unit term: `j` of `p * 16 + j`, a product written from panels to rows)."""
    amap = view.out_map
    if not amap.results:
        return None
    *others, last = amap.results
    last = last.maybe_downcast()
    if isinstance(last, ir.AffineDimExpr):
        axis = view.axes[last.position]
        return axis if view.kinds[last.position] == "S" else None
    for pos, (axis, kind) in enumerate(zip(view.axes, view.kinds)):
        if kind == "S" and linear_coeff(last, pos) == 1:
            if all(linear_coeff(r, pos) == 0 for r in others):
                return axis
    return None


def read_maps(view: BlockView) -> list[ir.AffineMap]:
    """The index map of every read in the block's body, in body order."""
    return [
        ir.AffineMapAttr(op.attributes["map"]).value
        for op in walk(view.op)
        if op.name in ("tp.read", "tp.read_padded")
    ]


def minor_dim(shape: list[int]) -> int:
    """The innermost dim of a buffer that is not a unit dim (trailing unit dims, as in a
    matrix-vector product's [K, 1] operand, leave the one before them contiguous)."""
    return next((d for d in range(len(shape) - 1, -1, -1) if shape[d] != 1), len(shape) - 1)


def steps_along(coeffs: list[int | None], dim: int) -> bool:
    """Whether an index whose per-dim steps are `coeffs` moves by one along `dim` only."""
    return coeffs[dim] == 1 and all(c == 0 for i, c in enumerate(coeffs) if i != dim)


def _reads_along(view: BlockView, axis: str) -> list[tuple[ir.AffineMap, list[int | None], int]]:
    """(map, per-dim steps along `axis`, buffer's innermost non-unit dim) of every read that
    depends on `axis` (broadcasts left out)."""
    pos = view.axes.index(axis)
    reads = []
    for op in walk(view.op):
        if op.name not in ("tp.read", "tp.read_padded"):
            continue
        amap = ir.AffineMapAttr(op.attributes["map"]).value
        coeffs = [linear_coeff(e, pos) for e in amap.results]
        if any(c != 0 for c in coeffs):
            minor = minor_dim(list(ir.MemRefType(op.operands[0].type).shape))
            reads.append((amap, coeffs, minor))
    return reads


def contiguous_along(view: BlockView, axis: str) -> bool:
    """Whether every read that depends on `axis` walks its buffer's innermost non-unit dim
    with unit stride along it, and no other dim."""
    reads = _reads_along(view, axis)
    return bool(reads) and all(steps_along(coeffs, minor) for _, coeffs, minor in reads)


def _gathered_reads(view: BlockView, axis: str) -> list[tuple[ir.AffineMap, int]]:
    """The maps (and buffers' innermost non-unit dims) of the reads that depend on `axis` and,
    vectorized along it, would load their lanes one by one: they move along a dim other than
    their buffer's innermost non-unit one, or by more than STRIDED_STEPS elements along it."""
    return [
        (amap, minor)
        for amap, coeffs, minor in _reads_along(view, axis)
        if not steps_along(coeffs, minor)
        and not (coeffs[-1] in (1, *STRIDED_STEPS) and all(c == 0 for c in coeffs[:-1]))
    ]


def lanes_gathered(view: BlockView, axis: str) -> bool:
    """Whether some read that depends on `axis`, vectorized, would load its lanes one by one
    (an NCHW global pool's channels lie 7 x 7 floats apart; a transpose's input)."""
    return bool(_gathered_reads(view, axis))


def gathered_source_axis(view: BlockView, vec: str) -> str | None:
    """For a map whose vectors along `vec` gather a read: the other spatial axis along which
    that read walks its buffer's innermost dim with unit stride (a transpose's output row
    axis), if any."""
    for amap, minor in _gathered_reads(view, vec):
        for i, (axis, kind) in enumerate(zip(view.axes, view.kinds)):
            if axis != vec and kind == "S" and linear_coeff(amap.results[minor], i) == 1:
                return axis
    return None


def buffer_shape(view: BlockView, read: ir.Operation) -> list[int]:
    """The shape of the buffer `read` reads, a run-time dim estimated by the range of its index
    over the view's extents (a `SampledView`'s samples): the dynamic-size sentinel multiplied
    into byte counts put a dense layer's 196 KiB of input at 10^41 bytes."""
    mtype = ir.MemRefType(read.operands[0].type)
    amap = ir.AffineMapAttr(read.attributes["map"]).value
    shape = []
    for n, e in zip(mtype.shape, amap.results):
        if not ir.ShapedType.is_dynamic_size(n):
            shape.append(n)
            continue
        span = 1
        for pos, extent in enumerate(view.extents):
            coeff = linear_coeff(e, pos)
            sample = extent if isinstance(extent, int) else RUNTIME_SAMPLE
            span += abs(coeff or 0) * (sample - 1)
        shape.append(span)
    return shape


RUNTIME_SAMPLE = 64
"""An extent known at run time only, in `buffer_shape` of a view that was not sampled."""

ALIASED_STEP = 4096
"""Addresses this many bytes apart (or a multiple) fall in one set of the L1 data cache."""


def read_steps(view: BlockView, axis: str, skip: str | None = None) -> list[int]:
    """How far (bytes) each read moves in its buffer per step of `axis` (row-major buffers),
    leaving out the reads that `skip` moves (with `skip` the vector axis: the broadcasts)."""
    pos = view.axes.index(axis)
    skip_pos = view.axes.index(skip) if skip is not None else None
    steps = []
    for op in walk(view.op):
        if op.name not in ("tp.read", "tp.read_padded"):
            continue
        mtype = ir.MemRefType(op.operands[0].type)
        amap = ir.AffineMapAttr(op.attributes["map"]).value
        if skip_pos is not None and any(linear_coeff(e, skip_pos) != 0 for e in amap.results):
            continue
        stride, step = getattr(mtype.element_type, "width", 32) // 8, 0
        shape = buffer_shape(view, op)
        for dim in reversed(range(len(shape))):
            coeff = linear_coeff(amap.results[dim], pos)
            if coeff is None:
                break
            step += coeff * stride
            stride *= shape[dim]
        else:
            if step:
                steps.append(abs(step))
    return steps


def reads_buffer(view: BlockView, buffer: ir.Value) -> bool:
    """Whether any read or load of `view` is of `buffer`."""
    return any(
        op.name in ("tp.read", "tp.read_padded", "tp.load") and op.operands[0] == buffer
        for op in walk(view.op)
    )


def reads_using(view: BlockView, axis: str) -> list[ir.AffineMap]:
    pos = view.axes.index(axis)
    return [m for m in read_maps(view) if any(linear_coeff(e, pos) != 0 for e in m.results)]


def row_axis(view: BlockView, vec: str) -> str | None:
    """A spatial axis no vector read depends on, with the largest extent (> 1)."""
    vector_reads = reads_using(view, vec)
    best = None
    for i, (axis, kind, extent) in enumerate(zip(view.axes, view.kinds, view.extents)):
        if kind != "S" or axis == vec or extent < 2:
            continue
        if any(linear_coeff(e, i) != 0 for m in vector_reads for e in m.results):
            continue
        if best is None or extent >= view.extents[view.axes.index(best)]:
            best = axis
    return best


def companion_axis(view: BlockView, vec: str) -> str | None:
    """A spatial axis only the vector reads depend on (a conv's output-channel block index):
    unrolling it gives each broadcast operand more vector FMAs. Of several, the one whose step
    moves the vector reads least: an NCHW conv vectorized along `ow` could pair output rows
    (`oh`, whose inputs overlap in the kernel window) or images (`n`, an image apart); images
    ran a grouped 3x3 conv at batch 8 several times slower per image than rows at batch 1."""
    vector_reads = reads_using(view, vec)
    other_reads = [m for m in read_maps(view) if m not in vector_reads]
    if not other_reads:
        return None
    best: tuple[int, str] | None = None
    for i, (axis, kind, extent) in enumerate(zip(view.axes, view.kinds, view.extents)):
        if kind != "S" or axis == vec or extent % 2:
            continue
        used_by_vector = any(linear_coeff(e, i) != 0 for m in vector_reads for e in m.results)
        used_by_other = any(linear_coeff(e, i) != 0 for m in other_reads for e in m.results)
        if used_by_vector and not used_by_other:
            step = max(read_steps(view, axis), default=0)
            if best is None or step < best[0]:
                best = (step, axis)
    return best[1] if best else None


def vector_only_axes(view: BlockView, vec: str) -> set[str]:
    """Spatial axes the vector reads depend on and the other reads do not (vec included)."""
    vector_reads = reads_using(view, vec)
    others = [m for m in read_maps(view) if m not in vector_reads]
    out = set()
    for i, (axis, kind) in enumerate(zip(view.axes, view.kinds)):
        if kind != "S":
            continue
        if any(linear_coeff(e, i) != 0 for m in vector_reads for e in m.results) and not any(
            linear_coeff(e, i) != 0 for m in others for e in m.results
        ):
            out.add(axis)
    return out


def batch_axes(view: BlockView) -> set[str]:
    """Of a single-reduction block (a matmul), the spatial axes every read depends on: the
    batch of a product of two activations (attention's heads), whose operands are new for
    each batch index, so nothing is reused across it."""
    if view.kinds.count("R") != 1:
        return set()
    maps = read_maps(view)
    return {
        axis
        for i, (axis, kind) in enumerate(zip(view.axes, view.kinds))
        if kind == "S"
        and maps
        and all(any(linear_coeff(e, i) != 0 for e in m.results) for m in maps)
    }


def image_axis(view: BlockView, vec: str) -> str | None:
    """The batch of images of a conv or of a product by constant weights: the spatial axis of
    the output's first dim (extent > 1) that the vector reads (the weights) do not depend on,
    when all the weights take fewer bytes than one image of the other reads, or when the whole
    batch's inputs outgrow L2 and one image's (at least IMAGE_BYTES: a matmul's rows are not
    images) fit in half of it. Images first then stream each image's input from cache once
    per column block instead of the whole batch from L3:
    ResNet-50's 1x1 convs at batch 4 ran at 0.4x onnxruntime with the columns outermost, its
    3x3 128-channel convs at 28x28 0.81x (1.00x images first)."""
    first = view.out_map.results[0].maybe_downcast() if view.out_map.results else None
    if not isinstance(first, ir.AffineDimExpr):
        return None
    axis = view.axes[first.position]
    extent = view.extents[first.position]
    vector_reads = reads_using(view, vec)
    if extent < 2 or view.kinds[first.position] != "S" or reads_using(view, axis) == []:
        return None
    if any(linear_coeff(e, first.position) != 0 for m in vector_reads for e in m.results):
        return None
    weights, inputs = read_bytes(view, vec)
    if inputs > L2_BYTES and IMAGE_BYTES <= inputs // extent <= L2_BYTES // 2:
        return axis  # one image's inputs stay in L2 across the column blocks; all would not
    return axis if weights * extent < inputs else None


def read_bytes(view: BlockView, vec: str) -> tuple[int, int]:
    """Bytes of the buffers read by the vector reads (a conv's weights) and by the others."""
    vector_reads = reads_using(view, vec)
    sizes = [0, 0]
    for op in walk(view.op):
        if op.name not in ("tp.read", "tp.read_padded"):
            continue
        amap = ir.AffineMapAttr(op.attributes["map"]).value
        mtype = ir.MemRefType(op.operands[0].type)
        size = getattr(mtype.element_type, "width", 32) // 8
        for n in buffer_shape(view, op):
            size *= n
        sizes[0 if amap in vector_reads else 1] += size
    return sizes[0], sizes[1]


def shares_index(view: BlockView, a: str, b: str) -> bool:
    """Whether some read index depends on both axes (e.g. `ow + kw`)."""
    ia, ib = view.axes.index(a), view.axes.index(b)
    return any(
        linear_coeff(e, ia) != 0 and linear_coeff(e, ib) != 0
        for m in read_maps(view)
        for e in m.results
    )


def gather_axis(view: BlockView, lanes: int) -> str | None:
    """A spatial axis divisible by `lanes` that the fewest reads depend on (largest if tied)."""
    reads = len(read_maps(view))
    best: tuple[int, int, str] | None = None
    for axis, kind, extent in zip(view.axes, view.kinds, view.extents):
        if kind != "S" or extent % lanes:
            continue
        gathered = len(reads_using(view, axis))
        if gathered >= reads:
            continue  # nothing is reused across lanes: gathers would only add work
        if any(step % ALIASED_STEP == 0 for step in read_steps(view, axis)):
            continue  # every lane's element in one L1 set (attention's P·V along queries)
        key = (-gathered, extent, axis)
        if best is None or key > best:
            best = key
    return best[2] if best else None
