"""Write an anchor's result through the transpose/reshape that follows it in its kernel.

graph-fuse lets a matmul keep the transposes and reshapes of its result (graph-pack-weights'
panel-major product [N/p, M, p] back to rows [M, N]) and the elementwise ops after them. Lowered
as such, the product fills a scratch buffer and the kernel's last block reads it back through
the remap, a second pass over a (for a dense layer) megabytes-large result. When that remap is
a bijection this module inverts it and makes the product write the kernel's output directly
(`out_map` composed with the inverse: (p, m, j) -> (m, p * 16 + j)); the last block then reads
the output in place and tp-to-loops applies it to the register tile before the store.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from mlir import ir

from mlc.dialects.tp import BlockView
from mlc.dialects.tp.affine import is_identity, linear_coeff
from mlc.dialects.walk import walk
from mlc.symbolic import Dim

READS = ("tp.read", "tp.read_padded", "tp.load")


Size = int | Dim


def fold_output_remap(
    entry: ir.Block, output: ir.Value, dims_of: Callable[[ir.Value], Sequence[Size] | None]
) -> ir.Value | None:
    """In a kernel whose last block writes `output` from a scratch buffer that one reduction
    block before it fills, have that block write `output` itself (see the module doc). Returns
    the scratch buffer it no longer uses (its view op erased), or None. `dims_of`: a buffer's
    sizes (a `Dim` where known at run time only; None when unknown)."""
    blocks = [op.operation for op in entry.operations if op.operation.name == "tp.block"]
    if len(blocks) < 2:
        return None
    last = BlockView(blocks[-1])
    shape = dims_of(output)
    if last.out != output or last.combiner != "none" or not is_identity(last.out_map):
        return None
    if shape is None or last.extents != list(shape):
        return None
    reads = [op for op in walk(last.op) if op.name in READS]
    elem = ir.MemRefType(output.type).element_type
    for temp in dict.fromkeys(op.operands[0] for op in reads):
        if ir.MemRefType(temp.type).element_type != elem:
            continue  # an f32 accumulator of a half result, rounded by the last block
        image = dims_of(temp)
        writer = _sole_writer(blocks[:-1], temp, image, last.op) if image is not None else None
        if writer is None or image is None:
            continue
        temp_reads = _reads_of(temp, last)
        maps = {str(ir.AffineMapAttr(op.attributes["map"]).value) for op in temp_reads}
        if len(maps) != 1 or any(op.name != "tp.read" for op in temp_reads):
            continue
        remap = ir.AffineMapAttr(temp_reads[0].attributes["map"]).value
        inverse = invert(remap, list(shape), list(image))
        if inverse is None:
            continue
        out_map = writer.out_map
        composed = [r.compose(out_map) for r in inverse.results]
        # The product's contiguous axis must stay the output's (else its vectors would be
        # gathered and scattered: a transposed result keeps its own pass).
        inner = out_map.results[-1].maybe_downcast().position  # type: ignore[attr-defined]
        if linear_coeff(composed[-1], inner) != 1:
            continue
        _retarget(writer, output, ir.AffineMap.get(out_map.n_dims, 0, composed))
        identity = ir.AffineMapAttr.get(ir.AffineMap.get_identity(len(shape)))
        for op in temp_reads:
            op.operands[0] = output
            op.attributes["map"] = identity
        if _copies_in_place(last):
            last.op.erase()
        temp.owner.operation.erase()
        return temp
    return None


def invert(remap: ir.AffineMap, extents: list[Size], image: list[Size]) -> ir.AffineMap | None:
    """The inverse of `remap` (index of a buffer of `extents` -> index of one of `image`) when
    it is a bijection made of whole dims, and dims split into (d floordiv c, d mod c): what
    transposes and reshapes compose to; None otherwise. A size known at run time only is
    never taken for 1 (the inverse stays right when it is)."""
    results = [r.maybe_downcast() for r in remap.results]
    if math.prod(extents) != math.prod(image) or len(results) != len(image):
        return None
    t = [ir.AffineDimExpr.get(k) for k in range(len(image))]
    merged = _merged_dims(results, extents, image, t)
    inverse: list[ir.AffineExpr] = []
    used: set[int] = set()
    for j, extent in enumerate(extents):
        if _is_one(extent):
            inverse.append(ir.AffineConstantExpr.get(0))
            continue
        if j in merged:
            expr, k = merged[j]
            inverse.append(expr)
            used.add(k)
            continue
        whole = [k for k, r in enumerate(results) if _is_dim(r, j)]
        quot = [k for k, r in enumerate(results) if _split(r, j, ir.AffineFloorDivExpr)]
        rem = [k for k, r in enumerate(results) if _split(r, j, ir.AffineModExpr)]
        if len(whole) == 1 and not quot and not rem and image[whole[0]] == extent:
            inverse.append(t[whole[0]])
            used.add(whole[0])
        elif not whole and len(quot) == 1 and len(rem) == 1:
            q, r = quot[0], rem[0]
            c = _divisor(results[q])
            if c != _divisor(results[r]) or image[r] != c or image[q] * c != extent:
                return None
            inverse.append(t[q] * c + t[r])
            used |= {q, r}
        else:
            return None
    if used != {k for k, n in enumerate(image) if not _is_one(n)} or any(
        not _is_constant_zero(results[k])
        for k, n in enumerate(image)
        if _is_one(n) and k not in used
    ):
        return None
    return ir.AffineMap.get(len(image), 0, inverse)


def _merged_dims(
    results: list[ir.AffineExpr], extents: list[Size], image: list[Size], t: list[ir.AffineExpr]
) -> dict[int, tuple[ir.AffineExpr, int]]:
    """Dims that a reshape merged row-major into one image dim k (d_a * 56 + d_b, with d_b of
    extent 56), each with its inverse ((t_k floordiv 56, t_k mod 56)) and k."""
    out: dict[int, tuple[ir.AffineExpr, int]] = {}
    for k, r in enumerate(results):
        if isinstance(r, (ir.AffineDimExpr, ir.AffineConstantExpr)):
            continue
        coeffs = {j: linear_coeff(r, j) for j in range(len(extents)) if not _is_one(extents[j])}
        if any(c is None for c in coeffs.values()):
            continue
        terms = sorted(((c, j) for j, c in coeffs.items() if c), reverse=True)
        if len(terms) < 2 or _constant_term(r, len(extents)) != 0:
            continue
        stride: Size = 1
        row_major = True
        for c, j in reversed(terms):
            row_major &= c == stride
            stride *= extents[j]
        if not row_major or stride != image[k] or any(j in out for _, j in terms):
            continue
        for i, (c, j) in enumerate(terms):
            expr = ir.AffineExpr.get_floor_div(t[k], c) if c > 1 else t[k]
            out[j] = (expr if i == 0 else expr % extents[j], k)
    return out


def _constant_term(e: ir.AffineExpr, n_dims: int) -> int | None:
    """`e` with every dim at 0 (its constant offset), when that is a constant."""
    zeros = ir.AffineMap.get(n_dims, 0, [ir.AffineConstantExpr.get(0)] * n_dims)
    c = e.compose(zeros).maybe_downcast()
    return c.value if isinstance(c, ir.AffineConstantExpr) else None


def _is_one(n: Size) -> bool:
    return isinstance(n, int) and n == 1


def _is_dim(e: ir.AffineExpr, j: int) -> bool:
    return isinstance(e, ir.AffineDimExpr) and e.position == j


def _split(e: ir.AffineExpr, j: int, kind: type) -> bool:
    """`e` is d_j floordiv c or d_j mod c (by `kind`) with a constant c > 1."""
    if not isinstance(e, kind):
        return False
    lhs, rhs = e.lhs.maybe_downcast(), e.rhs.maybe_downcast()
    return _is_dim(lhs, j) and isinstance(rhs, ir.AffineConstantExpr) and rhs.value > 1


def _divisor(e: ir.AffineExpr) -> int:
    return ir.AffineConstantExpr(e.maybe_downcast().rhs).value  # type: ignore[attr-defined]


def _is_constant_zero(e: ir.AffineExpr) -> bool:
    return isinstance(e, ir.AffineConstantExpr) and e.value == 0


def _reads_of(buffer: ir.Value, view: BlockView) -> list[ir.Operation]:
    return [op for op in walk(view.op) if op.name in READS and op.operands[0] == buffer]


def _sole_writer(
    blocks: list[ir.Operation], temp: ir.Value, shape: Sequence[Size], last: ir.Operation
) -> BlockView | None:
    """The reduction block that writes all of `temp` (a scratch view) when nothing but it and
    the last block's reads uses `temp`."""
    owner = temp.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "memref.view":
        return None
    writers = [BlockView(b) for b in blocks if b.operands[0] == temp]
    if len(writers) != 1:
        return None
    writer = writers[0]
    if writer.combiner == "none" or not _covers(writer, shape):
        return None
    for use in temp.uses:
        user = use.owner
        if user == writer.op:
            continue
        parent = user.parent
        while parent is not None and parent != last:
            parent = parent.parent
        if parent is None:
            return None
    return writer


def _covers(view: BlockView, shape: Sequence[Size]) -> bool:
    """Every element of a buffer of `shape` gets a value: the out map sends distinct spatial
    axes, each of the buffer's extent, to its dims."""
    results = [r.maybe_downcast() for r in view.out_map.results]
    if len(results) != len(shape):
        return False
    seen = set()
    for r, n in zip(results, shape):
        if not isinstance(r, ir.AffineDimExpr) or view.kinds[r.position] != "S":
            return False
        if view.extents[r.position] != n or r.position in seen:
            return False
        seen.add(r.position)
    return True


def _copies_in_place(view: BlockView) -> bool:
    """The block only yields what it reads of its own output at the point it writes."""
    ops = [op.operation for op in view.body.operations]
    return (
        len(ops) == 2
        and ops[0].name == "tp.read"
        and ops[0].operands[0] == view.out
        and is_identity(ir.AffineMapAttr(ops[0].attributes["map"]).value)
        and ops[1].operands[0] == ops[0].results[0]
    )


def _retarget(view: BlockView, output: ir.Value, out_map: ir.AffineMap) -> None:
    view.op.operands[0] = output
    view.op.attributes["out_map"] = ir.AffineMapAttr.get(out_map)
