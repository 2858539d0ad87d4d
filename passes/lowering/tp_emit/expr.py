"""Inline expressions: elementwise and injective graph ops evaluated inside a consumer's block.

An `Expr` yields the scalar value of a tensor at an index given as affine expressions over
the enclosing block's axes. Leaves read buffers (`tp.read`, or `tp.read_padded` for constant
padding); `Remap` re-indexes (reshape, transpose, slice, broadcast ...); `Elementwise` computes a
scalar from its children. Nothing is materialized: the consumer's loops compute it on the fly.
Expressions form a DAG when a value has several uses (x * sigmoid(x)): one `emit` emits each
(sub-expression, index) pair once and reuses its value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith

from mlc.dialects import tp
from mlc.symbolic import Dim

from ..runtime_extents import UnsupportedSymbolic

Index = list[ir.AffineExpr]
ScalarFn = Callable[[list[ir.Value]], ir.Value]


Memo = dict[tuple[int, tuple[ir.AffineExpr, ...]], ir.Value]
"""(id of a sub-expression, index) -> its value, within one `Expr.emit`."""


@dataclass
class Expr:
    shape: tuple[int, ...]
    dtype: str

    def emit(self, axes: Sequence[str], idx: Index) -> ir.Value:
        """The value at `idx`, emitted at the current insertion point."""
        return self.emit_shared(axes, idx, {})

    def emit_shared(self, axes: Sequence[str], idx: Index, memo: Memo) -> ir.Value:
        """`emit`, reusing the values in `memo` (all emitted into the current block)."""
        key = (id(self), tuple(idx))
        value = memo.get(key)
        if value is None:
            value = memo[key] = self._emit(axes, idx, memo)
        return value

    def _emit(self, axes: Sequence[str], idx: Index, memo: Memo) -> ir.Value:
        raise NotImplementedError


@dataclass
class Leaf(Expr):
    buffer: ir.Value

    def _emit(self, axes: Sequence[str], idx: Index, memo: Memo) -> ir.Value:
        return to_logical(read(self.buffer, axes, idx), self.dtype)


@dataclass
class PadLeaf(Expr):
    """Constant padding of a buffer: index minus `begin`, out of bounds reads `value`."""

    buffer: ir.Value
    begin: tuple[int, ...]
    value: float

    def _emit(self, axes: Sequence[str], idx: Index, memo: Memo) -> ir.Value:
        shifted = [e - b if b else e for e, b in zip(idx, self.begin)]
        return to_logical(read(self.buffer, axes, shifted, pad=self.value), self.dtype)


@dataclass
class Remap(Expr):
    child: Expr
    fn: Callable[[Index], Index]

    def _emit(self, axes: Sequence[str], idx: Index, memo: Memo) -> ir.Value:
        return self.child.emit_shared(axes, self.fn(idx), memo)


@dataclass
class Elementwise(Expr):
    children: list[Expr]
    fn: ScalarFn
    child_index: list[Callable[[Index], Index]]

    def _emit(self, axes: Sequence[str], idx: Index, memo: Memo) -> ir.Value:
        values = [
            c.emit_shared(axes, f(idx), memo) for c, f in zip(self.children, self.child_index)
        ]
        return self.fn(values)


@dataclass
class Computed(Expr):
    """A value computed from the index itself (e.g. the number of valid taps of a window)."""

    fn: Callable[[Sequence[str], Index], ir.Value]

    def _emit(self, axes: Sequence[str], idx: Index, memo: Memo) -> ir.Value:
        return self.fn(axes, idx)


def affine_value(axes: Sequence[str], expr: ir.AffineExpr) -> ir.Value:
    """An `index` value for `expr` over the block axes, with arith ops (they vectorize)."""
    from mlir.dialects import arith

    expr = expr.maybe_downcast()
    index = ir.IndexType.get()
    if isinstance(expr, ir.AffineDimExpr):
        return ir.Operation.create(
            "tp.index", results=[index], attributes={"axis": ir.StringAttr.get(axes[expr.position])}
        ).result
    if isinstance(expr, ir.AffineConstantExpr):
        return arith.ConstantOp(index, expr.value).result
    lhs, rhs = affine_value(axes, expr.lhs), affine_value(axes, expr.rhs)
    if isinstance(expr, ir.AffineAddExpr):
        return arith.AddIOp(lhs, rhs).result
    if isinstance(expr, ir.AffineMulExpr):
        return arith.MulIOp(lhs, rhs).result
    if isinstance(expr, ir.AffineFloorDivExpr):
        return arith.FloorDivSIOp(lhs, rhs).result
    if isinstance(expr, ir.AffineCeilDivExpr):
        return arith.CeilDivSIOp(lhs, rhs).result
    rem = arith.RemSIOp(lhs, rhs).result  # mod by a positive constant: non-negative result
    neg = arith.CmpIOp(arith.CmpIPredicate.slt, rem, arith.ConstantOp(index, 0).result).result
    return arith.SelectOp(neg, arith.AddIOp(rem, rhs).result, rem).result


def storage_type(elem: ir.Type) -> ir.Type:
    """The element type a buffer of `elem` values holds: i1 is one byte (i8 0 or 1), as numpy
    stores bools; memref<...xi1> loads and stores do not lower to LLVM (and i1 vectors would be
    bit-packed in memory). Unsigned `uiN` is signless `iN`: arith computes on signless integers
    only, and the ops where signedness matters take it from the graph-level dtype."""
    if isinstance(elem, ir.IntegerType) and elem.width == 1:
        return ir.IntegerType.get_signless(8)
    if isinstance(elem, ir.IntegerType) and not elem.is_signless:
        return ir.IntegerType.get_signless(elem.width)
    return elem


def body_type(dtype: str) -> ir.Type:
    """The type a block body computes `dtype` values in: `i1` for bools, signless `iN` for
    signed and unsigned integers, the float type itself."""
    t = ir.Type.parse(dtype)
    if isinstance(t, ir.IntegerType) and not t.is_signless:
        return ir.IntegerType.get_signless(t.width)
    return t


def to_logical(v: ir.Value, dtype: str) -> ir.Value:
    """A value read from a buffer as its tensor element type (a bool byte becomes i1)."""
    if dtype == "i1" and v.type != ir.IntegerType.get_signless(1):
        return arith.TruncIOp(ir.IntegerType.get_signless(1), v).result
    return v


def to_storage(v: ir.Value, buffer: ir.Value) -> ir.Value:
    """`v` as the element type of `buffer` (i1 becomes a bool byte)."""
    elem = ir.MemRefType(buffer.type).element_type
    if v.type != elem and v.type == ir.IntegerType.get_signless(1):
        return arith.ExtUIOp(elem, v).result
    return v


def read(buffer: ir.Value, axes: Sequence[str], idx: Index, pad: float | None = None) -> ir.Value:
    amap = ir.AffineMap.get(len(axes), 0, list(idx))
    mtype = ir.MemRefType(buffer.type)
    attrs: dict[str, ir.Attribute] = {"map": ir.AffineMapAttr.get(amap)}
    name = "tp.read"
    if pad is not None:
        name = "tp.read_padded"
        elem = mtype.element_type
        attrs["value"] = (
            ir.FloatAttr.get(elem, pad)
            if not isinstance(elem, ir.IntegerType)
            else ir.IntegerAttr.get(elem, int(pad))
        )
    return ir.Operation.create(
        name, results=[mtype.element_type], operands=[buffer], attributes=attrs
    ).result


def broadcast_index(in_shape: Sequence[int], out_shape: Sequence[int]) -> Callable[[Index], Index]:
    """numpy broadcasting: trailing alignment, size-1 dims read index 0."""
    offset = len(out_shape) - len(in_shape)
    zero = ir.AffineConstantExpr.get(0)

    def fn(idx: Index) -> Index:
        return [
            zero if d == 1 and out_shape[offset + k] != 1 else idx[offset + k]
            for k, d in enumerate(in_shape)
        ]

    return fn


def reshape_groups(in_shape: Sequence[int], out_shape: Sequence[int]) -> list[tuple[range, range]]:
    """Pair up runs of input and output dims with equal products (MLIR's reassociation groups):
    a reshape only mixes dims within a group. Leftover trailing unit dims form no group."""
    groups: list[tuple[range, range]] = []
    i = j = 0
    while i < len(in_shape) and j < len(out_shape):
        i0, j0 = i, j
        pi, pj = in_shape[i], out_shape[j]
        i, j = i + 1, j + 1
        while pi != pj:
            if pi < pj:
                pi, i = pi * in_shape[i], i + 1
            else:
                pj, j = pj * out_shape[j], j + 1
        groups.append((range(i0, i), range(j0, j)))
    return groups


def reshape_index(in_shape: Sequence[int], out_shape: Sequence[int]) -> Callable[[Index], Index]:
    """Row-major reshape: output index -> input index. Within each reassociation group the
    output dims are linearised and split again (floordiv/mod) over the input dims; keeping the
    arithmetic per group is what lets chains of reshapes (channel shuffles) simplify."""
    zero = ir.AffineConstantExpr.get(0)
    groups = (
        reshape_groups(in_shape, out_shape) if 0 not in in_shape else []
    )  # empty: nothing is read

    # Dims of 1 take index 0; the first dim of a group may have any size (it is never a
    # divisor or multiplier), the others must be static: affine maps multiply and divide by
    # constants only.
    groups = [
        ([k for k in ins if in_shape[k] != 1], [k for k in outs if out_shape[k] != 1])
        for ins, outs in groups
    ]
    for ins, outs in groups:
        inner = [in_shape[k] for k in ins[1:]] + [out_shape[k] for k in outs[1:]]
        if any(isinstance(d, Dim) for d in inner):
            raise UnsupportedSymbolic(
                f"a reshape from {list(in_shape)} to {list(out_shape)} that splits or merges "
                "dims known only at run time"
            )

    def fn(idx: Index) -> Index:
        src: Index = [zero] * len(in_shape)
        for ins, outs in groups:
            if not ins:
                continue
            linear: ir.AffineExpr = idx[outs[0]] if outs else zero
            for k in outs[1:]:
                linear = linear * out_shape[k] + idx[k]
            stride = 1
            for k in reversed(ins):
                e = ir.AffineExpr.get_floor_div(linear, stride) if stride > 1 else linear
                src[k] = e if k == ins[0] else e % in_shape[k]
                if k != ins[0]:
                    stride *= in_shape[k]
        return src

    return fn


def block_over(
    out: ir.Value, name: str, shape: Sequence[int]
) -> tuple[tp.BlockHandle, list[str], Index]:
    """A fresh elementwise block over the whole of `out`: axes i0..iN, identity out map."""
    axes = [f"i{k}" for k in range(len(shape))] or ["i0"]
    extents = list(shape) or [1]
    out_map = "(" + ", ".join(axes[: len(shape)]) + ")"
    blk = tp.block(
        out, name=name, axes=axes, kinds="S" * len(axes), extents=extents, out_map=out_map
    )
    idx = [ir.AffineDimExpr.get(k) for k in range(len(shape))]
    return blk, axes, idx
