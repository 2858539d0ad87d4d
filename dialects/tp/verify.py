"""Semantic checks of `tp` ops: axes, index maps in range, combiner/init, schedules."""

from __future__ import annotations

from mlir import ir

from mlc.errors import DiagnosticError

from ..walk import ops_named, walk
from .affine import dims_used, out_of_bounds
from .ops import COMBINERS, BlockView
from .schedule import Schedule


def _memref(v: ir.Value) -> ir.MemRefType:
    return ir.MemRefType(v.type)


class _Memo:
    """What one check of a module computes once: a block's axes for all of its accesses, and
    the range checks and schedule checks that repeat across blocks of equal shapes."""

    def __init__(self) -> None:
        self.blocks: dict[ir.Operation, _Axes] = {}
        self.ranges: dict[tuple, list[str]] = {}
        self.schedules: dict[tuple, list[str]] = {}

    def axes(self, block: ir.Operation) -> _Axes:
        if block not in self.blocks:
            self.blocks[block] = _Axes(block)
        return self.blocks[block]

    def out_of_bounds(self, amap: ir.AffineMap, extents: list, shape: list[int]) -> list[str]:
        key = (amap, tuple(extents), tuple(shape))
        if key not in self.ranges:
            self.ranges[key] = out_of_bounds(amap, extents, shape)
        return self.ranges[key]

    def schedule(self, attr: ir.Attribute, axes: list[str], kinds: str, extents: list) -> list[str]:
        key = (attr, tuple(axes), kinds, tuple(extents))
        if key not in self.schedules:
            self.schedules[key] = Schedule.from_attr(attr).check(axes, kinds, extents)
        return self.schedules[key]


def _check_block(op: ir.Operation, memo: _Memo) -> list[str]:
    b = BlockView(op)
    axes, kinds, extents = b.axes, b.kinds, b.extents
    problems: list[str] = []
    if len(set(axes)) != len(axes) or not all(a.isidentifier() for a in axes):
        problems.append(f"axes {axes} must be distinct identifiers")
    if len(kinds) != len(axes) or set(kinds) - {"S", "R"}:
        problems.append(f"kinds '{kinds}' must have one S (spatial) or R (reduce) per axis")
    if len(extents) != len(axes) or any(isinstance(e, int) and e < 1 for e in extents):
        problems.append(f"extents {extents} must give one positive extent per axis")
    if problems:
        return problems
    out = _memref(b.out)
    amap = b.out_map
    scatter = b.scatter
    results = 0 if scatter else out.rank
    if amap.n_dims != len(axes) or len(amap.results) != results:
        why = " (a scatter block yields its positions)" if scatter else ""
        return [f"out_map {amap} must have {len(axes)} dims and {results} results{why}"]
    reduce_dims = {i for i, k in enumerate(kinds) if k == "R"}
    for expr in amap.results:
        used = dims_used(expr) & reduce_dims
        if used:
            problems.append(f"out_map uses reduce axis '{axes[min(used)]}'")
    problems += [f"out_map {p}" for p in memo.out_of_bounds(amap, extents, out.shape)]
    combiner = b.combiner
    if combiner not in COMBINERS:
        problems.append(f"combiner '{combiner}' is not one of {', '.join(COMBINERS)}")
    elif scatter and reduce_dims:
        problems.append("a scatter block has spatial axes only (its combiner needs none)")
    elif not scatter and (combiner == "none") != (not reduce_dims):
        problems.append("a block with reduce axes needs a combiner other than 'none', and only it")
    init = b.init
    if (
        combiner != "none"
        and not scatter
        and (not isinstance(init, (ir.FloatAttr, ir.IntegerAttr)) or init.type != out.element_type)
    ):
        problems.append(f"init must be a {out.element_type} constant, got {init}")
    if combiner == "none" and not isinstance(init, ir.UnitAttr):
        problems.append("init must be `unit` for a block without reduction")
    elif scatter and not isinstance(init, ir.UnitAttr):
        problems.append("init must be `unit` for a scatter block (it combines into the output)")
    try:
        schedule = Schedule.from_attr(op.attributes["schedule"])
        checked = memo.schedule(op.attributes["schedule"], axes, kinds, extents)
        problems += [f"schedule: {m}" for m in checked]
        if scatter and schedule.parallel:
            problems.append(
                "schedule: a scatter block runs sequentially (repeated positions apply in "
                "order): no parallel loops"
            )
        lane_axis = schedule.vectorize.split(".")[0]
        if scatter and schedule.vectorize and lane_axis != b.scatter_lane_axis:
            problems.append(
                f"schedule: a scatter block may only vectorize the axis that is its last "
                f"output position (lanes must write consecutive elements), not '{lane_axis}'"
            )
    except ValueError as e:
        problems.append(f"schedule: {e}")
    problems += _check_body(b, out)
    return problems


def _check_body(b: BlockView, out: ir.MemRefType) -> list[str]:
    body = list(b.body.operations)
    if not body or body[-1].operation.name != "gpu.yield":
        return ["body must end with gpu.yield of the computed element"]
    yielded = list(body[-1].operation.operands)
    if not yielded or yielded[0].type != out.element_type:
        got = ", ".join(str(v.type) for v in yielded)
        return [f"body must yield one {out.element_type}, got ({got})"]
    if len(yielded) > 1 and (
        len(yielded) != 1 + out.rank
        or not all(isinstance(v.type, ir.IndexType) for v in yielded[1:])
    ):
        got = ", ".join(str(v.type) for v in yielded)
        return [
            f"a scatter block yields one {out.element_type} and {out.rank} index values "
            f"(its output position), got ({got})"
        ]
    return []


class _Axes:
    """A block's axes and extents, read once for all of its accesses."""

    def __init__(self, block: ir.Operation) -> None:
        view = BlockView(block)
        self.axes, self.extents, self.view = view.axes, view.extents, view


def _check_access(op: ir.Operation, block: ir.Operation | None, memo: _Memo) -> str | None:
    if block is None:
        return "must be nested in a tp.block"
    if op.name == "tp.dot4":
        return None  # operand and result types are IRDL constraints
    view = memo.axes(block)
    if op.name == "tp.index":
        axis = ir.StringAttr(op.attributes["axis"]).value
        return (
            None
            if axis in view.axes
            else f"axis '{axis}' is not an axis of block '{view.view.name}'"
        )
    buf = _memref(op.operands[0])
    if op.results[0].type != buf.element_type:
        return f"result type {op.results[0].type} must be the element type {buf.element_type}"
    if op.name == "tp.load":
        n = len(op.operands) - 1
        return None if n == buf.rank else f"needs {buf.rank} indices, got {n}"
    amap = ir.AffineMapAttr(op.attributes["map"]).value
    if amap.n_dims != len(view.axes) or len(amap.results) != buf.rank:
        return f"map {amap} must have {len(view.axes)} dims and {buf.rank} results"
    if op.name == "tp.read":
        bad = memo.out_of_bounds(amap, view.extents, buf.shape)
        if bad:
            return "reads out of bounds (use tp.read_padded for padding): " + "; ".join(bad)
    elif op.attributes["value"].type != buf.element_type:  # type: ignore[union-attr]
        return f"pad value must be a {buf.element_type} constant"
    return None


def _enclosing_block(op: ir.Operation) -> ir.Operation | None:
    parent = op.parent
    while parent is not None and parent.name != "builtin.module":
        if parent.name == "tp.block":
            return parent.operation
        parent = parent.parent
    return None


def verify_tp(
    root: ir.Operation, candidates: list[ir.Operation] | None = None
) -> list[DiagnosticError]:
    """Check the tp ops under `root` (or those among `candidates`, see verify_graph)."""
    errors: list[DiagnosticError] = []
    ops = ops_named(root, "tp.") if candidates is None else candidates
    memo = _Memo()
    for op in (o for o in ops if o.name.startswith("tp.")):
        if op.name == "tp.block":
            problems = _check_block(op, memo)
        else:
            problem = _check_access(op, _enclosing_block(op), memo)
            problems = [problem] if problem else []
        errors += [DiagnosticError(f"'{op.name}' op {p}", op.location) for p in problems]
    return errors


__all__ = ["verify_tp", "walk"]
