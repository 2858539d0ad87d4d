"""Builders and accessors for `tp` ops.

    blk = tp.block(C, name="matmul", axes="i j k", kinds="SSR", extents=[64, 16, 32],
                   out_map="(i, j)", combiner="add", init=0.0)
    with ir.InsertionPoint(blk.body):
        a = tp.read(A, blk, "(i, k)")
        b = tp.read(B, blk, "(k, j)")
        tp.yield_(arith.mulf(a, b))

Maps are written over the block's axis names; they are stored as affine maps whose dims are
the axes in declared order.

A *scatter* block writes each value at a computed position instead: its out_map has no
results and its body yields the value followed by one `index` per output dim
(`tp.yield_(v, at=[i, j])`); see `BlockView.scatter`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import gpu

from mlc.symbolic import Dim
from mlc.symbolic import parse as parse_dim

from .affine import dims_used
from .schedule import Schedule

COMBINERS = ("none", "add", "mul", "max", "min", "maxui", "minui", "fastmax")
"""*ui: unsigned integers. `fastmax`: the float maximum of operands that are not NaN; with a NaN
operand the result is unspecified (x86's maxps: one instruction, where NaN-propagating `max`
takes four on AVX2). For reductions whose result does not matter once a NaN is present: a
softmax's row maximum (a NaN element makes the row's sum NaN whatever the maximum is)."""
KERNEL_ATTR = "tp.kernel"
EXTENT_EXPRS = "extent_exprs"
"""On a block with run-time extents: one string per axis, the extent's expression over the
kernel's symbols (`mlc.symbolic` syntax; "" for a static axis, whose `extents` entry holds it;
a symbolic one holds -1 there)."""
SYMBOLS_ATTR = "tp.symbols"
"""On a kernel whose blocks have run-time extents: the names of its trailing `index` arguments,
one per symbol the extents use (the caller passes their values)."""
ARG_SHAPES_ATTR = "tp.arg_shapes"
"""On a kernel with symbols: the shape of each buffer argument (inputs, output, then scratch
when it has one), one string per dim in `mlc.symbolic` syntax ("batch", "seq*4", "64"): what a
caller that knows the symbols' values allocates (the tuner measures a kernel alone at chosen
sizes)."""
IMPL_ATTR = "tp.impl"
"""On a graph kernel: the hand-written tp function that implements it (mlc.tp's call_tp); the
graph kernel's body is a placeholder that graph-to-tp replaces by that function."""


def axis_map(axes: Sequence[str], exprs: str) -> ir.AffineMap:
    """`"(oh * 2 + kh, ow)"` over named axes -> affine map with one dim per axis."""
    body = exprs.strip()
    if not (body.startswith("(") and body.endswith(")")):
        body = f"({body})"
    for i, name in sorted(enumerate(axes), key=lambda p: -len(p[1])):
        body = re.sub(rf"(?<![\w.]){re.escape(name)}(?![\w.])", f"d{i}", body)
    dims = ", ".join(f"d{i}" for i in range(len(axes)))
    return ir.AffineMapAttr(ir.Attribute.parse(f"affine_map<({dims}) -> {body}>")).value


@dataclass(frozen=True)
class BlockView:
    """Read access to a `tp.block` op's attributes."""

    op: ir.Operation

    @property
    def name(self) -> str:
        return ir.StringAttr(self.op.attributes["name"]).value

    @property
    def axes(self) -> list[str]:
        return [ir.StringAttr(a).value for a in ir.ArrayAttr(self.op.attributes["axes"])]

    @property
    def kinds(self) -> str:
        return ir.StringAttr(self.op.attributes["kinds"]).value

    @property
    def extents(self) -> list[int | Dim]:
        """Each axis's extent: an int, or a `Dim` when it is only known at run time."""
        static = list(ir.DenseI64ArrayAttr(self.op.attributes["extents"]))
        if EXTENT_EXPRS not in self.op.attributes:
            return static
        exprs = [ir.StringAttr(a).value for a in ir.ArrayAttr(self.op.attributes[EXTENT_EXPRS])]
        return [parse_dim(x) if x else e for e, x in zip(static, exprs)]

    @property
    def symbolic(self) -> bool:
        return EXTENT_EXPRS in self.op.attributes

    @property
    def out_map(self) -> ir.AffineMap:
        return ir.AffineMapAttr(self.op.attributes["out_map"]).value

    @property
    def combiner(self) -> str:
        return ir.StringAttr(self.op.attributes["combiner"]).value

    @property
    def init(self) -> ir.Attribute:
        return self.op.attributes["init"]

    @property
    def schedule(self) -> Schedule:
        return Schedule.from_attr(self.op.attributes["schedule"])

    @property
    def out(self) -> ir.Value:
        return self.op.operands[0]

    @property
    def scatter(self) -> bool:
        """Whether the block writes at positions its body computes (the yield carries them after
        the value) rather than at out_map(p). Such a block has spatial axes only; its combiner
        (`none`: store, else combine with the element already there) takes no init, and it runs
        its points sequentially in order, so repeated positions are applied in that order."""
        ops = list(self.body.operations)
        return bool(ops) and len(ops[-1].operation.operands) > 1

    @property
    def scatter_lane_axis(self) -> str | None:
        """The axis a scatter block may vectorize: its last output position is that axis's value
        itself and no other position depends on it, so the lanes of one vector write
        consecutive, distinct elements (the order between vectors stays sequential)."""
        position = list(list(self.body.operations)[-1].operation.operands)[1:]
        if not position:
            return None
        last = position[-1].owner
        if isinstance(last, ir.Block) or last.name != "tp.index":
            return None
        axis = ir.StringAttr(last.attributes["axis"]).value
        dim = self.axes.index(axis)
        if any(_depends_on(v, axis, dim, {}) for v in position[:-1]):
            return None
        return axis

    @property
    def body(self) -> ir.Block:
        return self.op.regions[0].blocks[0]

    def set_schedule(self, schedule: Schedule) -> None:
        self.op.attributes["schedule"] = schedule.to_attr()


class BlockHandle:
    """What `block()` returns: the op plus its body for an InsertionPoint."""

    def __init__(self, op: ir.Operation) -> None:
        self.op = op
        self.view = BlockView(op)
        self.body = op.regions[0].blocks[0]

    @property
    def axes(self) -> list[str]:
        return self.view.axes


def _depends_on(value: ir.Value, axis: str, dim: int, seen: dict[ir.Value, bool]) -> bool:
    """Whether a block body value varies with `axis` (declared at position `dim`)."""
    if value in seen:
        return seen[value]
    op = value.owner
    found = False
    if not isinstance(op, ir.Block) and op.name != "gpu.yield":
        if op.name == "tp.index":
            found = ir.StringAttr(op.attributes["axis"]).value == axis
        elif op.name in ("tp.read", "tp.read_padded"):
            amap = ir.AffineMapAttr(op.attributes["map"]).value
            found = any(dim in dims_used(e) for e in amap.results)
        found = found or any(_depends_on(v, axis, dim, seen) for v in op.operands)
    seen[value] = found
    return found


def _scalar_attr(element_type: ir.Type, value: float | int | bool) -> ir.Attribute:
    if isinstance(element_type, ir.IntegerType):
        return ir.IntegerAttr.get(element_type, int(value))
    return ir.FloatAttr.get(element_type, float(value))


def block(
    out: ir.Value,
    *,
    name: str,
    axes: str | Sequence[str],
    kinds: str,
    extents: Sequence[int | Dim],
    out_map: str | ir.AffineMap,
    combiner: str = "none",
    init: float | int | None = None,
    schedule: Schedule | None = None,
    loc: ir.Location | None = None,
    ip: ir.InsertionPoint | None = None,
) -> BlockHandle:
    """Create an empty `tp.block` writing `out`; fill its body, then end it with `yield_`."""
    axis_list = axes.split() if isinstance(axes, str) else list(axes)
    elem = ir.MemRefType(out.type).element_type
    init_attr = ir.UnitAttr.get() if init is None else _scalar_attr(elem, init)
    attrs = {
        "name": ir.StringAttr.get(name),
        "axes": ir.ArrayAttr.get([ir.StringAttr.get(a) for a in axis_list]),
        "kinds": ir.StringAttr.get(kinds),
        "extents": ir.DenseI64ArrayAttr.get([e if isinstance(e, int) else -1 for e in extents]),
        "out_map": ir.AffineMapAttr.get(
            out_map if isinstance(out_map, ir.AffineMap) else axis_map(axis_list, out_map)
        ),
        "combiner": ir.StringAttr.get(combiner),
        "init": init_attr,
        "schedule": (schedule or Schedule()).to_attr(),
    }
    if any(isinstance(e, Dim) for e in extents):
        attrs[EXTENT_EXPRS] = ir.ArrayAttr.get(
            [ir.StringAttr.get("" if isinstance(e, int) else str(e)) for e in extents]
        )
    op = ir.Operation.create(
        "tp.block", operands=[out], attributes=attrs, regions=1, loc=loc, ip=ip
    )
    op.regions[0].blocks.append()
    return BlockHandle(op)


def _axes_of(where: BlockHandle | Sequence[str]) -> Sequence[str]:
    return where.axes if isinstance(where, BlockHandle) else where


def read(
    buffer: ir.Value,
    where: BlockHandle | Sequence[str],
    exprs: str | ir.AffineMap,
    *,
    pad: float | int | None = None,
    loc: ir.Location | None = None,
) -> ir.Value:
    """Element of `buffer` at `exprs` (over the axes of `where`, or an affine map of them);
    with `pad`, out-of-bounds positions read `pad`."""
    mtype = ir.MemRefType(buffer.type)
    if not isinstance(exprs, ir.AffineMap):
        exprs = axis_map(_axes_of(where), exprs)
    amap = ir.AffineMapAttr.get(exprs)
    if pad is None:
        op = ir.Operation.create(
            "tp.read",
            results=[mtype.element_type],
            operands=[buffer],
            attributes={"map": amap},
            loc=loc,
        )
    else:
        op = ir.Operation.create(
            "tp.read_padded",
            results=[mtype.element_type],
            operands=[buffer],
            attributes={"map": amap, "value": _scalar_attr(mtype.element_type, pad)},
            loc=loc,
        )
    return op.result


def load(
    buffer: ir.Value, indices: Sequence[ir.Value], *, loc: ir.Location | None = None
) -> ir.Value:
    """Element of `buffer` at computed `index` values (for data-dependent access: gather)."""
    elem = ir.MemRefType(buffer.type).element_type
    return ir.Operation.create(
        "tp.load", results=[elem], operands=[buffer, *indices], loc=loc
    ).result


def index(axis: str, *, loc: ir.Location | None = None) -> ir.Value:
    """The current value of a block axis, as `index`."""
    return ir.Operation.create(
        "tp.index",
        results=[ir.IndexType.get()],
        attributes={"axis": ir.StringAttr.get(axis)},
        loc=loc,
    ).result


def dot4(lhs: ir.Value, rhs: ir.Value, *, loc: ir.Location | None = None) -> ir.Value:
    """sum_j u8(byte j of lhs) * s8(byte j of rhs) of two i32 words, as an i32 (x86 VNNI's
    vpdpbusd lane): an int8 product over four consecutive elements of a reduction."""
    i32 = ir.IntegerType.get_signless(32)
    return ir.Operation.create("tp.dot4", results=[i32], operands=[lhs, rhs], loc=loc).result


def yield_(value: ir.Value, *, at: Sequence[ir.Value] = (), loc: ir.Location | None = None) -> None:
    """End a block body with the element it computes; `at`: the output position of a scatter
    block (one `index` per output dim)."""
    gpu.YieldOp([value, *at], loc=loc)


def kernels(module: ir.Module | ir.Operation) -> list[ir.Operation]:
    """Every `func.func` marked as a tensor program, in module order."""
    op = module.operation if isinstance(module, ir.Module) else module
    return [
        f.operation
        for f in op.regions[0].blocks[0].operations
        if f.operation.name == "func.func" and KERNEL_ATTR in f.operation.attributes
    ]
