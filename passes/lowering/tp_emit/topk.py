"""Anchors for `topk` (a bitonic selection network over index permutations) and
`take_along_axis`.

topk sorts *entries*: every stage is one data-parallel block that reads the previous stage's
entries at the element and at its partner (affine maps: the partner of j at distance s is
j XOR s) and keeps the better or the worse of the two. For values of 32 bits or less an entry
is one i64 key, (the value mapped to an order-preserving u32) << 32 | (2^32 - 1 - index), so
comparing keys as unsigned integers compares values, then prefers the lower index (ONNX's
tie-break), and the last stage decodes the index; wider values sort indices and compare the
values they point to (`tp.load`), then the indices. The axis is padded to a power of two n2
with entries that lose to every element (key 0, or an index >= n).

With K2 = the power of two >= k, the network first sorts blocks of K2 in alternating
directions (log2(K2) (log2(K2) + 1) / 2 stages over n2 elements), then halves until K2
remain: the elementwise better of an ascending and a descending block holds the best K2 of
both as a bitonic sequence, which log2(K2) merge stages sort again. Total work is about
n2 (log2(K2)^2 / 2 + log2(K2) + 1) compare-exchanges (a full sort would be n2 log2(n2)^2 / 2);
the last stage writes only the k best positions, into the output.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith

from mlc.dialects import tp
from mlc.dialects.graph import TensorT

from .expr import Expr, Index, affine_value, block_over, read, to_storage
from .kernel import KernelBuilder, anchor

I64 = ir.IntegerType.get_signless
_FLOAT_PRED = {"gt": arith.CmpFPredicate.OGT, "lt": arith.CmpFPredicate.OLT}
_INT_PRED = {
    ("gt", False): arith.CmpIPredicate.sgt,
    ("lt", False): arith.CmpIPredicate.slt,
    ("gt", True): arith.CmpIPredicate.ugt,
    ("lt", True): arith.CmpIPredicate.ult,
}


@dataclass(frozen=True)
class Stage:
    """One network stage: `sort` (compare-exchange at distance `stride`, direction blocks of
    `size`) or `halve` (better of blocks 2b and 2b+1 of `size`), producing `length` entries."""

    kind: str
    size: int
    stride: int
    length: int


def stages(n2: int, k2: int) -> list[Stage]:
    out = [
        Stage("sort", 1 << s, 1 << t, n2)
        for s in range(1, k2.bit_length())
        for t in range(s - 1, -1, -1)
    ]
    length = n2
    while length > k2:
        length //= 2
        out.append(Stage("halve", k2, 0, length))
        out += [Stage("sort", k2, 1 << t, length) for t in range(k2.bit_length() - 2, -1, -1)]
    return out


def _index(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), v).result


def _i64(v: int) -> ir.Value:
    return arith.ConstantOp(I64(64), v).result


class _Network:
    """Emits the stages of one topk op. Entries are packed keys for values of 32 bits or less
    (`packed`), else indices compared through loads of the values they point to."""

    def __init__(self, kb: KernelBuilder, op: ir.Operation) -> None:
        a = kb.attrs(op)
        self.kb = kb
        self.x_t = kb.type_of(op.operands[0])
        self.axis = int(a["axis"]) % self.x_t.rank  # type: ignore[call-overload]
        self.n = self.x_t.shape[self.axis]
        self.largest = bool(a["largest"])
        self.x = kb.buffer(op.operands[0])
        dtype = self.x_t.dtype
        self.unsigned = dtype.startswith("ui")
        self.is_float = dtype in ("f16", "bf16", "f32", "f64")
        self.packed = ir.Type.parse(dtype).width <= 32  # type: ignore[attr-defined]

    # -- packed keys: (order-preserving 32-bit value) << 32 | (2^32 - 1 - index) ----------------
    def _ordered(self, v: ir.Value) -> ir.Value:
        """The value as an i64 in [0, 2^32) that orders like the value (larger is better)."""
        i32, i64 = I64(32), I64(64)
        if self.is_float:
            f32 = ir.F32Type.get()
            if v.type != f32:
                v = arith.ExtFOp(f32, v).result
            zero = arith.ConstantOp(f32, ir.FloatAttr.get(f32, 0.0)).result
            is_zero = arith.CmpFOp(arith.CmpFPredicate.OEQ, v, zero).result
            v = arith.SelectOp(is_zero, zero, v).result  # -0.0 ties with +0.0
            bits = arith.BitcastOp(i32, v).result
            negative = arith.CmpIOp(arith.CmpIPredicate.slt, bits, arith.ConstantOp(i32, 0))
            flipped = arith.XOrIOp(bits, arith.ConstantOp(i32, -1)).result
            sign = arith.XOrIOp(bits, arith.ConstantOp(i32, -(2**31))).result
            ordered = arith.SelectOp(negative.result, flipped, sign).result
        elif self.unsigned:
            ordered = v if v.type.width == 32 else arith.ExtUIOp(i32, v).result  # type: ignore[attr-defined]
        else:
            wide = v if v.type.width == 32 else arith.ExtSIOp(i32, v).result  # type: ignore[attr-defined]
            ordered = arith.XOrIOp(wide, arith.ConstantOp(i32, -(2**31))).result
        key = arith.ExtUIOp(i64, ordered).result
        if not self.largest:
            key = arith.XOrIOp(key, _i64(2**32 - 1)).result
        return key

    def _initial(self, axes: list[str], idx: Index, pos: ir.AffineExpr) -> ir.Value:
        """The first stage's entry at position `pos` of the axis."""
        at = affine_value(axes, pos)
        if not self.packed:
            return arith.IndexCastOp(I64(64), at).result
        where = list(idx)
        where[self.axis] = pos
        value = read(self.x, axes, where, pad=0)
        inside = arith.CmpIOp(arith.CmpIPredicate.slt, at, _index(self.n)).result
        rank = arith.SubIOp(_i64(2**32 - 1), arith.IndexCastOp(I64(64), at).result).result
        shifted = arith.ShLIOp(self._ordered(value), _i64(32)).result
        return arith.SelectOp(inside, arith.OrIOp(shifted, rank).result, _i64(0)).result

    def _result(self, entry: ir.Value) -> ir.Value:
        """The index an entry of the last stage stands for."""
        if not self.packed:
            return entry
        low = arith.AndIOp(entry, _i64(2**32 - 1)).result
        return arith.SubIOp(_i64(2**32 - 1), low).result

    def better(self, a: ir.Value, b: ir.Value, axes: list[str], idx: Index) -> ir.Value:
        """Whether entry a ranks before entry b: a valid position first, then the larger
        (smaller) value, then the lower index. Padding keys are 0, below every real key."""
        if self.packed:
            return arith.CmpIOp(arith.CmpIPredicate.ugt, a, b).result

        def value(i: ir.Value) -> ir.Value:
            pos = arith.MinSIOp(arith.IndexCastOp(ir.IndexType.get(), i).result, _index(self.n - 1))
            where = [
                pos.result if d == self.axis else affine_value(axes, e) for d, e in enumerate(idx)
            ]
            return tp.load(self.x, where)

        va, vb = value(a), value(b)
        rel = "gt" if self.largest else "lt"
        if self.is_float:
            wins = arith.CmpFOp(_FLOAT_PRED[rel], va, vb).result
            ties = arith.CmpFOp(arith.CmpFPredicate.OEQ, va, vb).result
        else:
            wins = arith.CmpIOp(_INT_PRED[(rel, self.unsigned)], va, vb).result
            ties = arith.CmpIOp(arith.CmpIPredicate.eq, va, vb).result
        lower = arith.CmpIOp(arith.CmpIPredicate.slt, a, b).result
        valid_a = arith.CmpIOp(arith.CmpIPredicate.slt, a, _i64(self.n)).result
        invalid_b = arith.CmpIOp(arith.CmpIPredicate.sge, b, _i64(self.n)).result
        ranked = arith.OrIOp(wins, arith.AndIOp(ties, lower).result).result
        return arith.AndIOp(valid_a, arith.OrIOp(invalid_b, ranked).result).result

    def stage(
        self, st: Stage, src: ir.Value | None, dst: ir.Value, extent: int, last: bool
    ) -> None:
        shape = list(self.x_t.shape)
        shape[self.axis] = extent
        blk, axes, idx = block_over(dst, self.kb.name(f"topk_{st.kind}"), shape)
        j = idx[self.axis]

        def at(pos: ir.AffineExpr) -> ir.Value:
            if src is None:
                return self._initial(axes, idx, pos)
            where = list(idx)
            where[self.axis] = pos
            return read(src, axes, where)

        def parity(e: ir.AffineExpr) -> ir.Value:  # (e mod 2) == 0
            v = affine_value(axes, e % 2)
            return arith.CmpIOp(arith.CmpIPredicate.eq, v, _index(0)).result

        with ir.InsertionPoint(blk.body):
            if st.kind == "halve":
                first = j + ir.AffineExpr.get_floor_div(j, st.size) * st.size
                a, b = at(first), at(first + st.size)
                pick_a = self.better(a, b, axes, idx)
            else:
                s = st.stride
                # j XOR s, written so that its range is provably inside the axis
                partner = ir.AffineExpr.get_floor_div(j, 2 * s) * (2 * s) + (j % (2 * s) + s) % (
                    2 * s
                )
                a, b = at(j), at(partner)
                keep_better = arith.CmpIOp(
                    arith.CmpIPredicate.eq,
                    parity(ir.AffineExpr.get_floor_div(j, s)),
                    parity(ir.AffineExpr.get_floor_div(j, st.size)),
                ).result
                pick_a = arith.CmpIOp(
                    arith.CmpIPredicate.eq, keep_better, self.better(a, b, axes, idx)
                ).result
            entry = arith.SelectOp(pick_a, a, b).result
            tp.yield_(to_storage(self._result(entry) if last else entry, dst))


@anchor("topk")
def topk(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    net = _Network(kb, op)
    k = kb.type_of(op.results[0]).shape[net.axis]
    n2, k2 = 1 << (net.n - 1).bit_length(), 1 << (k - 1).bit_length()
    plan = stages(n2, k2)
    if not plan:  # a single element: index 0
        blk, _, _ = block_over(out, kb.name("topk_single"), kb.type_of(op.results[0]).shape)
        with ir.InsertionPoint(blk.body):
            tp.yield_(_i64(0))
        return None
    shape = list(net.x_t.shape)
    shape[net.axis] = n2
    temps = [kb.temp(TensorT(tuple(shape), "i64")) for _ in range(min(2, len(plan) - 1))]
    src: ir.Value | None = None
    for i, st in enumerate(plan):
        last = i == len(plan) - 1
        dst = out if last else temps[i % 2]
        net.stage(st, src, dst, k if last else st.length, last)
        src = dst
    return None


def _wrap_clamp(i: ir.Value, n: int) -> ir.Value:
    """An index in [-n, n) as a position in [0, n) (clamped: out-of-range input is undefined)."""
    neg = arith.CmpIOp(arith.CmpIPredicate.slt, i, _index(0)).result
    i = arith.SelectOp(neg, arith.AddIOp(i, _index(n)).result, i).result
    return arith.MinSIOp(arith.MaxSIOp(i, _index(0)).result, _index(n - 1)).result


@anchor("take_along_axis")
def take_along_axis(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    x_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    axis = int(kb.attrs(op)["axis"]) % x_t.rank  # type: ignore[call-overload]
    x = kb.buffer(op.operands[0])
    indices = kb.expr(op.operands[1])
    blk, axes, idx = block_over(out, kb.name("take_along_axis"), y_t.shape)
    with ir.InsertionPoint(blk.body):
        raw = arith.IndexCastOp(ir.IndexType.get(), indices.emit(axes, idx)).result
        at = _wrap_clamp(raw, x_t.shape[axis])
        tp.yield_(
            tp.load(x, [at if d == axis else affine_value(axes, e) for d, e in enumerate(idx)])
        )
    return None
