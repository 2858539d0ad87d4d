"""Evaluate a tp.block body at one point of its iteration space (scalar or vector lanes).

A point is an affine expression per axis over the loop induction variables (`dims`); in vector
mode the vectorized axis's expression is lane 0 and the value of lane l adds l. Reads become
`memref.load` / `vector.load` / broadcasts / per-lane gathers, padded reads clamp and select,
other body ops are re-created on scalars or vectors. Computed-index loads whose last index is
the vectorized axis are one `vector.load`; those differing per lane in the last index only, a
`vector.gather` (hardware gathers: a linear Resize's width pass ran ~15 % faster than with
per-lane loads).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from mlc.dialects.tp import BlockView
from mlc.dialects.tp.affine import expr_range, linear_coeff
from mlc.errors import DiagnosticError
from mlc.symbolic import Dim, UndecidableError, compare

from ..schedule_reads import STRIDED_STEPS, minor_dim, steps_along
from .dot4 import emit_dot4
from .emit_util import (
    CONTRACTIBLE,
    apply,
    broadcast,
    combine,
    contract,
    index_const,
    lane_indices,
    scalar_const,
)
from .lookup8 import BYTE_TABLE, lookup_bytes, table_bytes


@dataclass
class Point:
    dims: list[ir.Value]
    terms: dict[str, ir.AffineExpr]
    vec_axis: str | None = None
    lanes: int = 1

    def with_lane(self, lane: int) -> Point:
        assert self.vec_axis is not None
        terms = dict(self.terms)
        terms[self.vec_axis] = terms[self.vec_axis] + lane
        return Point(self.dims, terms)


class BodyEmitter:
    """Emits a block's body; `Point` says where, the insertion point says where in the IR.
    `vnni_bits`: the widest x86 VNNI instruction `tp.dot4` may use (0: none); `madd_bits`: the
    widest vpmaddwd it falls back to without VNNI (0: none); `vbmi`: table lookups may use
    vpermi2b (`lookup_bytes`)."""

    def __init__(
        self, block: BlockView, vnni_bits: int = 0, madd_bits: int = 0, vbmi: bool = False
    ) -> None:
        self.block = block
        self.vbmi = vbmi
        self.tables: dict[ir.Value, list[ir.Value] | None] = {}  # byte tables at the entry
        self.vnni_bits = vnni_bits
        self.madd_bits = madd_bits
        self.axes = block.axes
        self.ranges = [(0, e - 1) for e in block.extents]
        self.ops = list(block.body.operations)[:-1]
        self.yielded = list(list(block.body.operations)[-1].operands)
        self.result = self.yielded[0]
        self.overrides: dict[ir.Value, ir.Value] = {}
        # lane vectors base + [0, 1, ...] of the vectorized axis -> their base (contiguous loads)
        self.consecutive: dict[ir.Value, ir.Value] = {}

    # -- indices ---------------------------------------------------------------------------
    def exprs(
        self, amap: ir.AffineMap, point: Point, extra_dim: bool = False
    ) -> list[ir.AffineExpr]:
        """`amap` results over the loop dims (plus a lane dim at the end when extra_dim)."""
        n = len(point.dims) + (1 if extra_dim else 0)
        terms = []
        for a in self.axes:
            t = point.terms[a]
            if extra_dim and a == point.vec_axis:
                t = t + ir.AffineDimExpr.get(n - 1)
            terms.append(t)
        axis_map = ir.AffineMap.get(n, 0, terms)
        return [r.compose(axis_map) for r in amap.results]

    def indices(self, amap: ir.AffineMap, point: Point) -> list[ir.Value]:
        return [apply(e, point.dims) for e in self.exprs(amap, point)]

    def lane_coeffs(self, amap: ir.AffineMap, point: Point) -> list[int | None]:
        lane = len(point.dims)
        return [linear_coeff(e, lane) for e in self.exprs(amap, point, extra_dim=True)]

    # -- evaluation ------------------------------------------------------------------------
    def value(
        self,
        point: Point,
        overrides: dict[ir.Value, ir.Value] | None = None,
        accumulate: ir.Value | None = None,
    ) -> ir.Value:
        """The body's value at `point`; a read of a buffer in `overrides` yields the given value
        instead (the caller guarantees the read is at the point itself: a fused epilogue).
        With `accumulate` (only when `folds_accumulation`), the value plus it."""
        return self.values(point, overrides, accumulate)[0]

    def values(
        self,
        point: Point,
        overrides: dict[ir.Value, ir.Value] | None = None,
        accumulate: ir.Value | None = None,
    ) -> list[ir.Value]:
        """Everything the body yields at `point`: the value, then a scatter block's position."""
        self.overrides = overrides or {}
        env: dict[ir.Value, ir.Value] = {}
        for op in self.ops:
            op = op.operation
            if op.name == "tp.dot4":
                acc = accumulate if op.results[0] == self.result else None
                lhs, rhs = (env.get(v, v) for v in op.operands)
                env[op.results[0]] = emit_dot4(lhs, rhs, acc, self.vnni_bits, self.madd_bits)
                continue
            results = self._emit(op, env, point)
            for old, new in zip(op.results, results):
                env[old] = new
        return [env.get(v, v) for v in self.yielded]

    def folds_accumulation(self, combiner: str) -> bool:
        """Whether the yielded value is a `tp.dot4` that can take the sum in (VNNI adds the
        accumulator in the same instruction)."""
        owner = self.result.owner
        return (
            combiner == "add"
            and not isinstance(owner, ir.Block)
            and owner.name == "tp.dot4"
            and owner in [op.operation for op in self.ops]
        )

    def accumulated(self, combiner: str, acc: ir.Value, point: Point) -> ir.Value:
        """combine(acc, value at `point`)."""
        if self.folds_accumulation(combiner):
            return self.value(point, accumulate=acc)
        return combine(combiner, acc, self.value(point))

    def _emit(
        self, op: ir.Operation, env: dict[ir.Value, ir.Value], point: Point
    ) -> list[ir.Value]:
        name = op.name
        if name == "tp.read" or name == "tp.read_padded":
            return [self._read(op, point)]
        if name == "tp.index":
            return [self._index(ir.StringAttr(op.attributes["axis"]).value, point)]
        if name == "tp.load":
            return [self._load(op, env, point)]
        if op.regions and len(op.regions) and any(len(r.blocks) for r in op.regions):
            raise DiagnosticError(
                f"tp-to-loops: '{name}' has regions, which tp.block bodies do not "
                "support; use arith.select instead of scf.if",
                op.location,
            )
        operands = [env.get(v, v) for v in op.operands]
        vtypes = [v.type for v in operands if isinstance(v.type, ir.VectorType)]
        results = [r.type for r in op.results]
        if vtypes:
            lanes = ir.VectorType(vtypes[0]).shape
            operands = [
                v
                if isinstance(v.type, ir.VectorType)
                else broadcast(v, ir.VectorType.get(lanes, v.type))
                for v in operands
            ]
            results = [ir.VectorType.get(lanes, t) for t in results]
        attrs = {k: op.attributes[k] for k in op.attributes}  # iteration yields names
        if name in CONTRACTIBLE:
            attrs["fastmath"] = contract()
        new = ir.Operation.create(
            name, results=results, operands=operands, attributes=attrs, loc=op.location
        )
        return list(new.results)

    def _index(self, axis: str, point: Point) -> ir.Value:
        base = apply(point.terms[axis], point.dims)
        if axis != point.vec_axis:
            return base
        vtype = ir.VectorType.get([point.lanes], ir.IndexType.get())
        lanes = arith.AddIOp(broadcast(base, vtype), lane_indices(point.lanes)).result
        self.consecutive[lanes] = base
        return lanes

    def _read(self, op: ir.Operation, point: Point) -> ir.Value:
        buf = op.operands[0]
        if buf in self.overrides:
            return self.overrides[buf]
        amap = ir.AffineMapAttr(op.attributes["map"]).value
        padded = op.name == "tp.read_padded"
        elem = ir.MemRefType(buf.type).element_type
        if point.vec_axis is None:
            return self._scalar_read(op, buf, amap, point, padded)
        coeffs = self.lane_coeffs(amap, point)
        if all(c == 0 for c in coeffs):
            return self._scalar_read(op, buf, amap, point, padded)  # broadcast later when used
        vtype = ir.VectorType.get([point.lanes], elem)
        mtype = ir.MemRefType(buf.type)
        shape = list(mtype.shape)
        minor = minor_dim(shape)
        plain = mtype.layout == ir.AffineMapAttr.get(ir.AffineMap.get_identity(len(shape)))
        if minor < len(shape) - 1 and plain and not padded and steps_along(coeffs, minor):
            # Trailing unit dims ([K, 1]): the lanes are contiguous along the dim before them.
            reassoc = [[d] for d in range(minor)] + [list(range(minor, len(shape)))]
            flat = ir.MemRefType.get(shape[: minor + 1], elem)
            view = memref.CollapseShapeOp(flat, buf, reassoc).result
            idx = self.indices(amap, point)[: minor + 1]
            return vector.LoadOp(vtype, view, idx).result
        contiguous = steps_along(coeffs, len(coeffs) - 1)
        if contiguous and not padded:
            return vector.LoadOp(vtype, buf, self.indices(amap, point)).result
        if contiguous:
            return self._loaded_or_lanes(op, buf, amap, point, vtype, 1, padded)
        step = coeffs[-1]
        if plain and step in STRIDED_STEPS and all(c == 0 for c in coeffs[:-1]):
            return self._loaded_or_lanes(op, buf, amap, point, vtype, step, padded)
        return self._gather(op, buf, amap, point, vtype, padded)

    def _lanes_inside(self, amap: ir.AffineMap, point: Point, dim: int) -> bool:
        """Whether a padded read's lanes along its innermost dim always lie inside it (the
        channel lanes of a blocked layout): only the outer dims can leave the buffer."""
        assert point.vec_axis is not None
        extent = self.ranges[self.axes.index(point.vec_axis)][1] + 1
        lo, hi = expr_range(amap.results[-1], self.ranges)
        return extent % point.lanes == 0 and lo >= 0 and hi < dim

    def _loaded_or_lanes(
        self,
        op: ir.Operation,
        buf: ir.Value,
        amap: ir.AffineMap,
        point: Point,
        vtype: ir.VectorType,
        step: int,
        padded: bool,
    ) -> ir.Value:
        """Lanes `step` apart along the innermost dim (1: a padded contiguous read; 2-4: a
        stride-2 pooling window in NCDHW): one load of `step` x lanes (and a shuffle of every
        `step`-th element) when that stays inside the buffer, lane by lane at the borders."""
        idx = self.indices(amap, point)
        shape = ir.MemRefType(buf.type).shape
        wide = ir.VectorType.get([point.lanes * step], vtype.element_type)
        inside: ir.Value | None = None
        ult = arith.CmpIPredicate.ult
        for k, (value, dim) in enumerate(zip(idx, shape)):
            last = k == len(idx) - 1
            lo, hi = expr_range(amap.results[k], self.ranges)
            checks = []
            if padded and _may(lo, "<", 0) and _may(hi, ">=", dim) and not last:
                # One unsigned compare tests both ends of an outer index.
                inside = _and(inside, arith.CmpIOp(ult, value, _size(buf, k)).result)
                continue
            if padded and _may(lo, "<", 0):
                checks.append(arith.CmpIOp(arith.CmpIPredicate.sge, value, index_const(0)).result)
            if (padded and _may(hi, ">=", dim)) or last:
                limit = _size(buf, k) if last or ir.ShapedType.is_dynamic_size(dim) else None
                if last:
                    limit = arith.SubIOp(limit, index_const(point.lanes * step - 1)).result
                if limit is None:
                    limit = index_const(dim)
                checks.append(arith.CmpIOp(arith.CmpIPredicate.slt, value, limit).result)
            for c in checks:
                inside = c if inside is None else arith.AndIOp(inside, c).result
        assert inside is not None
        branch = scf.IfOp(inside, [vtype], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            loaded = vector.LoadOp(wide, buf, idx).result
            if step > 1:
                lanes = [i * step for i in range(point.lanes)]
                loaded = vector.ShuffleOp(loaded, loaded, lanes).result
            scf.YieldOp([loaded])
        with ir.InsertionPoint(branch.else_block):
            if padded and step == 1 and self._lanes_inside(amap, point, shape[-1]):
                # Only an outer index left the buffer (a row or column of a depthwise conv's
                # window over the image border): every lane is padding.
                fill = broadcast(scalar_const(op.attributes["value"]), vtype)
                scf.YieldOp([fill])
            else:
                scf.YieldOp([self._border_lanes(op, buf, idx, amap, vtype, step, padded)])
        return branch.results[0]

    def _border_lanes(
        self,
        op: ir.Operation,
        buf: ir.Value,
        idx: list[ir.Value],
        amap: ir.AffineMap,
        vtype: ir.VectorType,
        step: int,
        padded: bool,
    ) -> ir.Value:
        """Lanes `step` apart along the innermost dim, some outside the buffer: one masked
        gather whose indices are clamped into it (masked lanes take the padding value). Lane
        by lane (a clamped load and a select each), an average pool 3x3 with pads 2 on 28x28
        lowered to 21,600 lines and took 6 s to compile, 3.4 of them in canonicalize."""
        shape = ir.MemRefType(buf.type).shape
        base, ok = idx[:-1], None
        if padded:
            base, ok = self._clamped(buf, idx[:-1], amap.results[:-1])
        lanes = vtype.shape[0]
        itype = ir.VectorType.get([lanes], ir.IndexType.get())
        cols = arith.AddIOp(broadcast(idx[-1], itype), lane_indices(lanes, step)).result
        width = _size(buf, len(shape) - 1)
        zero, last = broadcast(index_const(0), itype), broadcast(width, itype)
        mask = arith.AndIOp(
            arith.CmpIOp(arith.CmpIPredicate.sge, cols, zero).result,
            arith.CmpIOp(arith.CmpIPredicate.slt, cols, last).result,
        ).result
        if ok is not None:
            mtype = ir.VectorType.get([lanes], ir.IntegerType.get_signless(1))
            mask = arith.AndIOp(mask, broadcast(ok, mtype)).result
        top = broadcast(arith.SubIOp(width, index_const(1)).result, itype)
        cols = arith.MinSIOp(arith.MaxSIOp(cols, zero).result, top).result
        elem = vtype.element_type
        fill = (
            scalar_const(op.attributes["value"])
            if padded
            else arith.ConstantOp(elem, _zero_attr(elem)).result
        )
        return vector.GatherOp(
            vtype, buf, base + [index_const(0)], cols, mask, broadcast(fill, vtype)
        ).result

    def _gather(
        self,
        op: ir.Operation,
        buf: ir.Value,
        amap: ir.AffineMap,
        point: Point,
        vtype: ir.VectorType,
        padded: bool,
    ) -> ir.Value:
        lanes = [
            self._scalar_read(op, buf, amap, point.with_lane(i), padded) for i in range(point.lanes)
        ]
        return vector.FromElementsOp(vtype, lanes).result

    def _scalar_read(
        self, op: ir.Operation, buf: ir.Value, amap: ir.AffineMap, point: Point, padded: bool
    ) -> ir.Value:
        idx = self.indices(amap, point)
        if not padded:
            return memref.LoadOp(buf, idx).result
        clamped, ok = self._clamped(buf, idx, amap.results)
        loaded = memref.LoadOp(buf, clamped).result
        if ok is None:
            return loaded
        return arith.SelectOp(ok, loaded, scalar_const(op.attributes["value"])).result

    def _clamped(
        self, buf: ir.Value, idx: list[ir.Value], exprs: list[ir.AffineExpr]
    ) -> tuple[list[ir.Value], ir.Value | None]:
        """The indices of a padded read clamped into the buffer where their range leaves it,
        and whether all of them were inside (None: always)."""
        ok: ir.Value | None = None
        clamped = []
        shape = ir.MemRefType(buf.type).shape
        for k, (value, dim, expr) in enumerate(zip(idx, shape, exprs)):
            lo, hi = expr_range(expr, self.ranges)
            conds = []
            if _may(lo, "<", 0):
                conds.append(arith.CmpIOp(arith.CmpIPredicate.sge, value, index_const(0)).result)
                value = arith.MaxSIOp(value, index_const(0)).result
            if ir.ShapedType.is_dynamic_size(dim) or _may(hi, ">=", dim):
                size = _size(buf, k)
                conds.append(arith.CmpIOp(arith.CmpIPredicate.slt, value, size).result)
                value = arith.MinSIOp(value, arith.SubIOp(size, index_const(1)).result).result
            for c in conds:
                ok = c if ok is None else arith.AndIOp(ok, c).result
            clamped.append(value)
        return clamped, ok

    def _load(self, op: ir.Operation, env: dict[ir.Value, ir.Value], point: Point) -> ir.Value:
        buf = op.operands[0]
        idx = [env.get(v, v) for v in list(op.operands)[1:]]
        if not any(isinstance(v.type, ir.VectorType) for v in idx):
            return memref.LoadOp(buf, idx).result
        lanes = point.lanes
        elem = ir.MemRefType(buf.type).element_type
        if idx[-1] in self.consecutive and not any(
            isinstance(v.type, ir.VectorType) for v in idx[:-1]
        ):  # the vectorized axis itself as the last index: the lanes are contiguous
            vtype = ir.VectorType.get([lanes], elem)
            return vector.LoadOp(vtype, buf, idx[:-1] + [self.consecutive[idx[-1]]]).result
        if self.vbmi and BYTE_TABLE in op.attributes and lanes % 16 == 0:
            if buf not in self.tables:
                self.tables[buf] = table_bytes(buf)
            table = self.tables[buf]
            if table is not None:
                return lookup_bytes(table, idx[-1])
        if not any(isinstance(v.type, ir.VectorType) for v in idx[:-1]):
            # lanes differ in the last index only: one gather along the innermost dim
            vtype = ir.VectorType.get([lanes], elem)
            mask = vector.ConstantMaskOp(
                ir.VectorType.get([lanes], ir.IntegerType.get_signless(1)), [lanes]
            ).result
            zero = arith.ConstantOp(
                vtype, ir.DenseElementsAttr.get_splat(vtype, _zero_attr(elem))
            ).result
            return vector.GatherOp(
                vtype, buf, idx[:-1] + [index_const(0)], idx[-1], mask, zero
            ).result
        values = []
        for lane in range(lanes):
            lane_idx = [
                vector.ExtractOp(v, [], [lane]).result if isinstance(v.type, ir.VectorType) else v
                for v in idx
            ]
            values.append(memref.LoadOp(buf, lane_idx).result)
        return vector.FromElementsOp(ir.VectorType.get([lanes], elem), values).result


def _and(a: ir.Value | None, b: ir.Value) -> ir.Value:
    return b if a is None else arith.AndIOp(a, b).result


def _zero_attr(elem: ir.Type) -> ir.Attribute:
    if isinstance(elem, ir.IntegerType):
        return ir.IntegerAttr.get(elem, 0)
    return ir.FloatAttr.get(elem, 0.0)


def _size(buf: ir.Value, k: int) -> ir.Value:
    """Dim `k` of buffer `buf` as an index value (memref.dim when known at run time only)."""
    dim = ir.MemRefType(buf.type).shape[k]
    if ir.ShapedType.is_dynamic_size(dim):
        return memref.DimOp(buf, index_const(k)).result
    return index_const(dim)


def _may(a: int | Dim, op: str, b: int | Dim) -> bool:
    """`a op b`, or True when it compares sizes known at run time only (a check that may be
    needed is emitted)."""
    try:
        return compare(a, op, b)
    except UndecidableError:
        return True
