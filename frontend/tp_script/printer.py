"""Print a tp kernel as tp script (the DSL `parser` reads), so generated kernels read as Python.

Body ops the DSL has sugar for print as operators and `T.` calls; any other one-result op prints
as `T.op("dialect.name", operands..., result="type", attr="...")`, so every kernel round-trips.
Values used once are inlined; others get a local name.
"""

from __future__ import annotations

import ast
import keyword

from mlir import ir

from mlc.dialects.tp import BlockView

from .dtypes import dtype_name
from .print_exprs import (
    COMBINE,
    ExprPrinter,
    PrintError,
    attr_number,
    buffer_type,
    const,
    dsl,
    dsl_call,
    number,
    shape_tuple,
)

__all__ = ["PrintError", "to_script"]


class _Names:
    def __init__(self) -> None:
        self.used: set[str] = {"T"}

    def fresh(self, want: str) -> str:
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in want) or "x"
        if base[0].isdigit():
            base = "_" + base
        name, n = base, 0
        while name in self.used or keyword.iskeyword(name):
            n += 1
            name = f"{base}_{n}"
        self.used.add(name)
        return name


class _KernelPrinter(ExprPrinter):
    def __init__(self, fn: ir.Operation) -> None:
        self.fn = fn
        self.names = _Names()
        self.buffers: dict[ir.Value, str] = {}

    def function(self) -> ast.FunctionDef:
        entry = self.fn.regions[0].blocks[0]
        args = []
        for i, a in enumerate(entry.arguments):
            name = self.names.fresh(chr(ord("A") + i) if i < 26 else f"buf{i}")
            self.buffers[a] = name
            args.append(ast.arg(name, buffer_type(a.type)))
        self.consts: dict[ir.Value, int] = {}
        self.scalars: dict[ir.Value, ast.expr] = {}  # serial loop variables, outer scalars
        self.writer: dict[ir.Value, str] = {}  # a temporary is named after the block filling it
        self._find_writers(entry)
        body = self.top_ops([op.operation for op in entry.operations])
        sym = ir.StringAttr(self.fn.attributes["sym_name"]).value
        return ast.FunctionDef(
            name=self.names.fresh(sym),
            args=ast.arguments([], args, None, [], [], None, []),
            body=body or [ast.Pass()],
            decorator_list=[dsl("script")],
            returns=None,
            type_params=[],
            lineno=1,
        )

    def _find_writers(self, block: ir.Block) -> None:
        for op in block.operations:
            op = op.operation
            if op.name == "tp.block":
                self.writer.setdefault(op.operands[0], BlockView(op).name)
            for region in op.regions:
                for inner in region.blocks:
                    self._find_writers(inner)

    def _buffer_name(self, v: ir.Value, fallback: str) -> str:
        name = self.names.fresh(self.writer.get(v, fallback))
        self.buffers[v] = name
        return name

    def top_ops(self, ops: list[ir.Operation]) -> list[ast.stmt]:
        """Statements for the ops of a kernel body or of a serial loop's body."""
        body: list[ast.stmt] = []
        for op in ops:
            if op.name in ("func.return", "scf.yield"):
                continue
            if op.name == "arith.constant":  # printed where used
                if isinstance(op.result.type, ir.IndexType):
                    self.consts[op.result] = ir.IntegerAttr(op.attributes["value"]).value
            elif op.name == "memref.alloc" and not op.operands:
                t = ir.MemRefType(op.result.type)
                call = dsl_call("alloc_buffer", shape_tuple(t), const(dtype_name(t.element_type)))
                body.append(ast.Assign([ast.Name(self._buffer_name(op.result, "tmp"))], call))
            elif (
                op.name == "memref.view" and len(op.operands) == 2 and op.operands[1] in self.consts
            ):
                t = ir.MemRefType(op.result.type)
                call = dsl_call(
                    "view",
                    ast.Name(self.buffers[op.operands[0]]),
                    const(self.consts[op.operands[1]]),
                    shape_tuple(t),
                    const(dtype_name(t.element_type)),
                )
                body.append(ast.Assign([ast.Name(self._buffer_name(op.result, "view"))], call))
            elif op.name == "memref.subview":
                body.append(self.subview(op))
            elif op.name == "scf.for" and not op.results:
                body.append(self.serial(op))
            elif op.name == "tp.block":
                outer = set(self.names.used)  # loop, block and local names are per block
                body.append(self.block(BlockView(op)))
                self.names.used = outer
            elif len(op.results) == 1 and not op.regions:  # a scalar outside the blocks
                self.bvars, self.axes = [], []
                expr = self.expr(op, {})
                name = self.names.fresh(f"s{len(self.scalars)}")
                self.scalars[op.result] = ast.Name(name)
                body.append(ast.Assign([ast.Name(name)], expr))
            else:
                raise PrintError(f"tp script cannot express '{op.name}' at the top of a kernel")
        return body

    def subview(self, op: ir.Operation) -> ast.stmt:
        attrs = op.attributes
        static = list(ir.DenseI64ArrayAttr(attrs["static_offsets"]))
        sizes = list(ir.DenseI64ArrayAttr(attrs["static_sizes"]))
        strides = list(ir.DenseI64ArrayAttr(attrs["static_strides"]))
        dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
        if any(x == dynamic for x in sizes) or any(x != 1 for x in strides):
            raise PrintError("tp script has subviews of static sizes and unit strides only")
        operands = iter(list(op.operands)[1:])
        offsets = [self.scalar(next(operands)) if x == dynamic else const(x) for x in static]
        call = dsl_call(
            "subview",
            ast.Name(self.buffers[op.operands[0]]),
            ast.List(offsets),
            ast.List([const(x) for x in sizes]),
            const(str(op.result.type)),
        )
        return ast.Assign([ast.Name(self._buffer_name(op.result, "sub"))], call)

    def scalar(self, v: ir.Value) -> ast.expr:
        got = self.scalars.get(v)
        if got is not None:
            return got
        expr = self.captured(v)
        if expr is None:
            raise PrintError("tp script cannot express a value defined outside the kernel body")
        return expr

    def serial(self, op: ir.Operation) -> ast.stmt:
        bounds = list(op.operands)[:3]
        if any(b not in self.consts for b in bounds):
            raise PrintError("tp script has serial loops with constant bounds only")
        lo, hi, step = (self.consts[b] for b in bounds)
        args = [hi] if (lo, step) == (0, 1) else [lo, hi, step]
        body_block = op.regions[0].blocks[0]
        var = self.names.fresh("t")
        self.scalars[body_block.arguments[0]] = ast.Name(var)
        inner = self.top_ops([o.operation for o in body_block.operations])
        return ast.For(
            ast.Name(var), dsl_call("serial", *[const(a) for a in args]), inner or [ast.Pass()], []
        )

    def block(self, view: BlockView) -> ast.stmt:
        loop_names = [self.names.fresh(a) for a in view.axes]
        if loop_names != view.axes:
            raise PrintError(f"block '{view.name}': axis names {view.axes} are not Python names")
        bvars = [self.names.fresh(f"v{a}") for a in view.axes]
        self.bvars = bvars
        self.axes = view.axes
        stmts: list[ast.stmt] = [
            ast.Assign(
                [ast.Tuple([ast.Name(v) for v in bvars]) if len(bvars) > 1 else ast.Name(bvars[0])],
                dsl_call("remap", const(view.kinds), ast.List([ast.Name(n) for n in loop_names])),
            )
        ]
        stmts[0].value.func = ast.Attribute(dsl("axis"), "remap")  # type: ignore[attr-defined]
        sched = view.schedule
        if sched != type(sched)():
            kw: dict[str, ast.expr] = {}
            if sched.tile:
                kw["tile"] = const({k: list(v) for k, v in sched.tile.items()})
            if sched.order:
                kw["order"] = const(list(sched.order))
            if sched.unroll:
                kw["unroll"] = const(dict(sched.unroll))
            if sched.vectorize:
                kw["vectorize"] = const(sched.vectorize)
            if sched.parallel:
                kw["parallel"] = const(list(sched.parallel))
            stmts.append(ast.Expr(dsl_call("schedule", **kw)))
        target = ast.Subscript(
            ast.Name(self.buffers[view.out]),
            self.index_tuple(view.out_map.results),
        )
        elem = ir.MemRefType(view.out.type).element_type
        if not isinstance(view.init, ir.UnitAttr):
            init = number(elem, attr_number(view.init))
            stmts.append(ast.With([ast.withitem(dsl_call("init"))], [ast.Assign([target], init)]))
        body_ops = [op.operation for op in view.body.operations]
        value, *position = self.body(body_ops, stmts)
        combiner = view.combiner
        if view.scatter:  # OUT[T.scatter(i, j, combiner="add")] = value
            kw = {} if combiner == "none" else {"combiner": const(combiner)}
            target.slice = dsl_call("scatter", *position, **kw)
            stmts.append(ast.Assign([target], value))
        elif combiner == "none":
            stmts.append(ast.Assign([target], value))
        elif isinstance(view.init, ir.UnitAttr):
            if combiner not in ("add", "mul"):
                raise PrintError(f"block '{view.name}': combiner {combiner} without init")
            op = ast.Add() if combiner == "add" else ast.Mult()
            stmts.append(ast.AugAssign(target, op, value))
        elif combiner in ("add", "mul"):
            op = ast.Add() if combiner == "add" else ast.Mult()
            stmts.append(ast.Assign([target], ast.BinOp(target, op, value)))
        else:
            stmts.append(ast.Assign([target], dsl_call(COMBINE[combiner], target, value)))
        grid = dsl_call("grid", *[const(e) for e in view.extents])
        names = [ast.Name(n) for n in loop_names]
        return ast.For(
            ast.Tuple(names) if len(names) > 1 else names[0],
            grid,
            [ast.With([ast.withitem(dsl_call("block", const(view.name)))], stmts)],
            [],
        )


def to_script(fn: ir.Operation) -> str:
    """The tp script text of one `tp.kernel` function (raises PrintError when it has no form)."""
    printer = _KernelPrinter(fn)
    with fn.context:
        tree = ast.Module([printer.function()], [])
    header = "from mlc import tp as T\n\n\n"
    return header + ast.unparse(ast.fix_missing_locations(tree)) + "\n"
