"""Parse a tp script function (Python AST, never executed) into a `tp.kernel` `func.func`.

    @T.script
    def mm_relu(A: T.Buffer((128, 128), "float32"), B: ..., C: ...):
        Y = T.alloc_buffer((128, 128), "float32")
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        ...

Each `with T.block` becomes one `tp.block`: its axes are the grid's loop variables in the order
`axis.remap` lists them, the store's indices its out_map, `T.init()` its init and the update
form (`+`, `*`, `T.max`, `T.min`) its combiner. DSL names are recognised by their last
attribute (`T.grid`, `tp.grid`, or a bare `grid` all work): the namespace is not evaluated.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, func, memref, scf

from mlc.dialects import tp
from mlc.dialects.tp.verify import verify_tp

from .blocks import BlockParser, Loop
from .body_builder import BodyBuilder
from .dtypes import mlir_type
from .errors import ScriptError
from .exprs import Scope, dsl_name, literal_number


@dataclass
class _Col:
    col_offset: int


class FunctionParser(BlockParser):
    """Builds one kernel from one `ast.FunctionDef`; errors are ScriptErrors at the source line."""

    def __init__(self, fdef: ast.FunctionDef, filename: str, ip: ir.InsertionPoint) -> None:
        self.fdef = fdef
        self.filename = filename
        self.ip = ip
        self.buffers: dict[str, ir.Value] = {}
        self.scalars: dict[
            str, ir.Value
        ] = {}  # serial loop variables, scalars computed outside blocks
        self.block_names: set[str] = set()

    def err(self, node: ast.AST, message: str) -> ScriptError:
        return ScriptError(message, self.filename, getattr(node, "lineno", 0), node)

    def loc(self, node: ast.AST) -> ir.Location:
        return ir.Location.file(self.filename, node.lineno, node.col_offset + 1)

    # -- function ---------------------------------------------------------------------------
    def parse(self) -> ir.Operation:
        args = self.fdef.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.defaults:
            raise self.err(
                self.fdef,
                "tp script parameters are plain buffers: no *args, "
                "**kwargs, keyword-only parameters or defaults",
            )
        types = []
        for a in args.args:
            if a.annotation is None:
                raise self.err(
                    a,
                    f"parameter '{a.arg}' needs a type: {a.arg}: T.Buffer((128, 128), \"float32\")",
                )
            types.append(self.buffer_type(a.annotation, a.arg))
        with self.loc(self.fdef):
            fn = func.FuncOp(self.fdef.name, (types, []), ip=self.ip)
            fn.attributes[tp.KERNEL_ATTR] = ir.UnitAttr.get()
            entry = fn.add_entry_block()
        for a, value in zip(args.args, entry.arguments):
            self.buffers[a.arg] = value
        with ir.InsertionPoint(entry):
            for stmt in self.fdef.body:
                self.top_statement(stmt)
            with self.loc(self.fdef):
                func.ReturnOp([])
        problems = verify_tp(fn.operation)
        if problems:  # at the op's Python line: blocks and reads carry file locations
            where = re.search(r":(\d+):(\d+)", str(problems[0].location))
            line, col = (int(where[1]), int(where[2])) if where else (self.fdef.lineno, 0)
            raise ScriptError(problems[0].message, self.filename, line, _Col(col - 1))
        return fn.operation

    def buffer_type(self, node: ast.expr, what: str) -> ir.MemRefType:
        """`T.Buffer((2, 3), "float32")` or `T.Buffer[(2, 3), "float32"]`; None is a dynamic dim."""
        if isinstance(node, ast.Call) and dsl_name(node.func) in ("Buffer", "alloc_buffer"):
            parts = list(node.args)
        elif isinstance(node, ast.Subscript) and dsl_name(node.value) == "Buffer":
            parts = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        else:
            raise self.err(node, f"'{what}' must be a T.Buffer((dims...), \"dtype\")")
        if len(parts) != 2:
            raise self.err(node, f"'{what}': T.Buffer takes a shape and a dtype")
        shape_node, dtype_node = parts
        elts = shape_node.elts if isinstance(shape_node, (ast.Tuple, ast.List)) else [shape_node]
        shape = []
        for e in elts:
            if isinstance(e, ast.Constant) and e.value is None:
                shape.append(ir.ShapedType.get_dynamic_size())
            elif isinstance(e, ast.Constant) and type(e.value) is int and e.value >= 0:
                shape.append(e.value)
            else:
                raise self.err(
                    e, f"'{what}': dims are non-negative integer literals (None: dynamic)"
                )
        dtype = dtype_node.value if isinstance(dtype_node, ast.Constant) else None
        elem = mlir_type(dtype) if isinstance(dtype, str) else None
        if elem is None or dtype in ("bool", "index"):
            raise self.err(
                dtype_node,
                f"'{what}': unknown buffer dtype {ast.unparse(dtype_node)} "
                "(float16, bfloat16, float32, float64, int8 ... int64)",
            )
        return ir.MemRefType.get(shape, elem)

    def top_statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            return  # docstring
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Return) and stmt.value is None):
            return
        if isinstance(stmt, ast.For):
            it = stmt.iter
            if isinstance(it, ast.Call) and dsl_name(it.func) == "serial":
                self.serial(stmt)
            else:
                self.loop_nest(stmt)
            return
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call)
        ):
            name = stmt.targets[0].id
            if name in self.buffers:
                raise self.err(stmt, f"buffer '{name}' is already defined")
            kind = dsl_name(stmt.value.func)
            with self.loc(stmt):
                if kind == "alloc_buffer":
                    mtype = self.buffer_type(stmt.value, name)
                    self.buffers[name] = memref.AllocOp(mtype, [], []).result
                    return
                if kind == "view":
                    self.buffers[name] = self.view(stmt.value, name)
                    return
                if kind == "subview":
                    self.buffers[name] = self.subview(stmt.value, name)
                    return
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):  # a scalar outside the blocks (index arithmetic on serial loop variables)
            name = stmt.targets[0].id
            if name in self.buffers or name in self.scalars:
                raise self.err(stmt, f"'{name}' is already defined")
            self.scalars[name] = self.outer_builder().value(stmt.value)
            return
        raise self.err(
            stmt,
            "expected a loop nest (for ... in T.grid(...)), "
            "X = T.alloc_buffer(...) or X = T.view(...) at the top of a tp script",
        )

    def view(self, call: ast.Call, name: str) -> ir.Value:
        """`T.view(scratch, byte_offset, (dims...), "dtype")`: a typed view into an i8 buffer."""
        if len(call.args) != 4 or not isinstance(call.args[0], ast.Name):
            raise self.err(call, f"'{name}': T.view(buffer, byte_offset, (dims...), \"dtype\")")
        source = self.buffers.get(call.args[0].id)
        if source is None:
            raise self.err(call.args[0], f"unknown buffer '{call.args[0].id}'")
        offset = literal_number(call.args[1])
        if type(offset) is not int or offset < 0:
            raise self.err(call.args[1], f"'{name}': the byte offset is a non-negative integer")
        typed = ast.copy_location(ast.Call(ast.Name("Buffer"), call.args[2:], []), call)
        mtype = self.buffer_type(typed, name)
        at = arith.ConstantOp(ir.IndexType.get(), offset).result
        return memref.ViewOp(mtype, source, at, []).result

    def outer_builder(self) -> BodyBuilder:
        """Evaluates scalars outside blocks: they may use serial loop variables and earlier
        scalars, not block variables or buffer elements' positions."""
        builder = BodyBuilder(self, Scope({}, []), self.buffers)
        builder.locals.update(self.scalars)
        return builder

    def subview(self, call: ast.Call, name: str) -> ir.Value:
        """`T.subview(X, [offsets], [sizes], "memref<...>")`: unit strides, the result type as
        MLIR text (subviews that drop unit dims have strided layouts)."""
        if (
            len(call.args) != 4
            or not isinstance(call.args[0], ast.Name)
            or not all(isinstance(a, (ast.List, ast.Tuple)) for a in call.args[1:3])
            or not isinstance(call.args[3], ast.Constant)
        ):
            raise self.err(
                call, f"'{name}': T.subview(buffer, [offsets], [sizes], \"memref<...>\")"
            )
        source = self.buffers.get(call.args[0].id)
        if source is None:
            raise self.err(call.args[0], f"unknown buffer '{call.args[0].id}'")
        dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
        offsets, static = [], []
        builder = self.outer_builder()
        index = ir.IndexType.get()
        for e in call.args[1].elts:  # type: ignore[attr-defined]
            number = literal_number(e)
            if type(number) is int:
                static.append(number)
            else:
                static.append(dynamic)
                offsets.append(builder.cast(builder.value(e, index), index))
        sizes = [literal_number(e) for e in call.args[2].elts]  # type: ignore[attr-defined]
        if any(type(n) is not int for n in sizes) or len(sizes) != len(static):
            raise self.err(call.args[2], f"'{name}': sizes are integer literals, one per dim")
        try:
            result = ir.Type.parse(call.args[3].value)
        except ValueError:
            raise self.err(call.args[3], f"'{name}': the result type does not parse") from None
        ones = [1] * len(sizes)
        op = memref.SubViewOp(result, source, offsets, [], [], static, sizes, ones)
        return op.result

    def serial(self, stmt: ast.For) -> None:
        """`for t in T.serial(n)` / `T.serial(lo, hi, step)`: a sequential loop around blocks."""
        if not isinstance(stmt.target, ast.Name) or stmt.orelse:
            raise self.err(stmt, "a serial loop has one loop variable")
        bounds = [literal_number(a) for a in stmt.iter.args]  # type: ignore[attr-defined]
        if not 1 <= len(bounds) <= 3 or any(type(b) is not int for b in bounds):
            raise self.err(stmt.iter, "T.serial(n) or T.serial(lo, hi, step) of integer literals")
        lo, hi, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
        with self.loc(stmt):
            index = ir.IndexType.get()
            c = [arith.ConstantOp(index, b).result for b in (lo, hi, step)]
            loop = scf.ForOp(c[0], c[1], c[2])
            name = stmt.target.id
            saved = dict(self.scalars), dict(self.buffers)  # names inside stay inside
            self.scalars[name] = loop.induction_variable
            with ir.InsertionPoint(loop.body):
                for inner in stmt.body:
                    self.top_statement(inner)
                scf.YieldOp([])
            self.scalars, self.buffers = saved

    # -- loops and blocks -------------------------------------------------------------------
    def loop_nest(self, stmt: ast.For) -> None:
        loops: list[Loop] = []
        node: ast.stmt = stmt
        while isinstance(node, ast.For):
            loops += self.loop_header(node)
            body = [s for s in node.body if not isinstance(s, ast.Pass)]
            if len(body) != 1 or node.orelse:
                raise self.err(
                    node,
                    "a loop nest holds exactly one `with T.block(...)` (or "
                    "one inner loop): write one nest per block",
                )
            node = body[0]
        names = [lp.name for lp in loops]
        if len(set(names)) != len(names):
            raise self.err(stmt, f"loop variables {names} must be distinct")
        if not (
            isinstance(node, ast.With)
            and len(node.items) == 1
            and isinstance(node.items[0].context_expr, ast.Call)
            and dsl_name(node.items[0].context_expr.func) == "block"
        ):
            raise self.err(node, 'expected `with T.block("name"):` inside the loops')
        self.block(node, loops)

    def loop_header(self, node: ast.For) -> list[Loop]:
        target = node.target
        names = target.elts if isinstance(target, ast.Tuple) else [target]
        if not all(isinstance(n, ast.Name) for n in names):
            raise self.err(target, "loop variables must be plain names")
        it = node.iter
        kind = dsl_name(it.func) if isinstance(it, ast.Call) else None
        if kind not in ("grid", "range") or it.keywords:
            raise self.err(it, "loops iterate over T.grid(e0, e1, ...) or range(e)")
        extents = [literal_number(a) for a in it.args]
        if any(type(e) is not int or e < 1 for e in extents):
            raise self.err(it, "loop extents are positive integer literals")
        if len(extents) != len(names):
            raise self.err(node, f"{len(names)} loop variable(s) for {len(extents)} extent(s)")
        return [Loop(n.id, e) for n, e in zip(names, extents)]  # type: ignore[attr-defined]
