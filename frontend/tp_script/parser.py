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

from .dtypes import mlir_type
from .errors import ScriptError
from .exprs import BodyBuilder, Scope, affine_text, dsl_name, literal_number

COMBINER_CALLS = ("max", "min", "fastmax", "maxui", "minui")


@dataclass
class _Col:
    col_offset: int


@dataclass
class _Loop:
    name: str
    extent: int


class FunctionParser:
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
        loops: list[_Loop] = []
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

    def loop_header(self, node: ast.For) -> list[_Loop]:
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
        return [_Loop(n.id, e) for n, e in zip(names, extents)]  # type: ignore[attr-defined]

    def block(self, node: ast.With, loops: list[_Loop]) -> None:
        call = node.items[0].context_expr
        assert isinstance(call, ast.Call)
        if (
            len(call.args) != 1
            or not isinstance(call.args[0], ast.Constant)
            or not isinstance(call.args[0].value, str)
        ):
            raise self.err(call, 'T.block takes the block name: T.block("Y")')
        name = call.args[0].value
        if name in self.block_names:
            raise self.err(call, f"block name '{name}' is used twice in this function")
        self.block_names.add(name)
        stmts = [s for s in node.body if not isinstance(s, ast.Pass)]
        if not stmts:
            raise self.err(node, f"block '{name}' is empty")
        axes, kinds, scope = self.remap(stmts[0], loops, name)
        extents = [next(lp.extent for lp in loops if lp.name == a) for a in axes]
        schedule, init, body, store = self.block_parts(stmts[1:], node, name)
        out, out_node, combiner, value = self.store_form(store, init, name)
        position = self.scatter_position(out_node, init)
        if position is not None:
            combiner = self.scatter_combiner(out_node.slice, store)  # type: ignore[arg-type]
        if "R" in kinds and combiner == "none":
            raise self.err(
                store,
                f"block '{name}' has reduce axes: give it `with T.init():` "
                "and an update (Y[...] = Y[...] + value, T.max(Y[...], value) ...)",
            )
        out_buf = self.buffers.get(out_node.value.id)  # type: ignore[attr-defined]
        out_map = (
            self.out_map(out_node, scope, axes)
            if position is None
            else ir.AffineMap.get(len(axes), 0, [])
        )
        init_value = None
        if init is not None:
            init_value = literal_number(init.value)
            if init_value is None:
                raise self.err(
                    init.value,
                    'the init value is a constant: 0.0, T.float32(0), T.float32("-inf") ...',
                )
        if schedule is not None:
            problems = schedule[0].check(axes, kinds, extents)
            if problems:
                raise self.err(schedule[1], f"block '{name}': " + "; ".join(problems))
        with self.loc(node):
            handle = tp.block(
                out_buf,
                name=name,
                axes=axes,
                kinds=kinds,
                extents=extents,
                out_map=out_map,
                combiner=combiner,
                init=init_value,
                schedule=None if schedule is None else schedule[0],
            )
        builder = BodyBuilder(self, scope, self.buffers)
        builder.locals.update(self.scalars)  # captured from outside the block
        with ir.InsertionPoint(handle.body):
            for stmt in body:
                builder.local(stmt)
            result = builder.value(value, want=ir.MemRefType(out_buf.type).element_type)
            index = ir.IndexType.get()
            at = [builder.cast(builder.value(e, index), index) for e in position or []]
            with self.loc(store):
                tp.yield_(result, at=at)

    def remap(self, stmt: ast.stmt, loops: list[_Loop], name: str) -> tuple[list[str], str, Scope]:
        call = stmt.value if isinstance(stmt, ast.Assign) else None
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(call, ast.Call)
            and dsl_name(call.func) == "remap"
            and len(call.args) == 2
        ):
            raise self.err(
                stmt,
                f"block '{name}' starts with its axes: "
                'vi, vj, vk = T.axis.remap("SSR", [i, j, k])',
            )
        kinds_node, vars_node = call.args
        kinds = kinds_node.value if isinstance(kinds_node, ast.Constant) else None
        if not isinstance(kinds, str) or set(kinds) - {"S", "R"}:
            raise self.err(kinds_node, "axis kinds are a string of S (spatial) and R (reduce)")
        if not isinstance(vars_node, (ast.List, ast.Tuple)) or not all(
            isinstance(v, ast.Name) for v in vars_node.elts
        ):
            raise self.err(vars_node, "T.axis.remap's second argument lists loop variables")
        axes = [v.id for v in vars_node.elts]  # type: ignore[attr-defined]
        target = stmt.targets[0]
        bound = target.elts if isinstance(target, ast.Tuple) else [target]
        if not all(isinstance(b, ast.Name) for b in bound):
            raise self.err(target, "block variables must be plain names")
        loop_names = [lp.name for lp in loops]
        if not (len(kinds) == len(axes) == len(bound)):
            raise self.err(
                stmt,
                f"{len(bound)} block variable(s), {len(kinds)} kind(s) and "
                f"{len(axes)} loop(s): they must match",
            )
        if sorted(axes) != sorted(loop_names):
            raise self.err(
                vars_node,
                f"T.axis.remap must list every loop variable once: {loop_names}, got {axes}",
            )
        scope = Scope({b.id: i for i, b in enumerate(bound)}, axes)  # type: ignore[attr-defined]
        return axes, kinds, scope

    def block_parts(
        self, stmts: list[ast.stmt], node: ast.With, name: str
    ) -> tuple[tuple[tp.Schedule, ast.AST] | None, ast.Assign | None, list[ast.stmt], ast.stmt]:
        schedule = init = None
        body: list[ast.stmt] = []
        if not stmts:
            raise self.err(node, f"block '{name}' has no store: end it with OUT[...] = value")
        for stmt in stmts[:-1]:
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Call)
                and dsl_name(stmt.value.func) == "schedule"
            ):
                schedule = (self.schedule(stmt.value), stmt)
            elif (
                isinstance(stmt, ast.With)
                and len(stmt.items) == 1
                and isinstance(stmt.items[0].context_expr, ast.Call)
                and dsl_name(stmt.items[0].context_expr.func) == "init"
            ):
                inner = stmt.body
                if len(inner) != 1 or not isinstance(inner[0], ast.Assign):
                    raise self.err(stmt, "T.init() holds one store: OUT[...] = <constant>")
                init = inner[0]
            else:
                body.append(stmt)
        return schedule, init, body, stmts[-1]

    def schedule(self, call: ast.Call) -> tp.Schedule:
        """`T.schedule(tile={"j": [8]}, order=[...], unroll={...}, vectorize="j.1",
        parallel=[...])`: the block's schedule attribute, checked against its axes."""
        fields: dict[str, object] = {}
        for kw in call.keywords:
            try:
                value = ast.literal_eval(kw.value)
            except ValueError:
                raise self.err(kw.value, "schedule knobs are literals") from None
            if kw.arg == "tile":
                value = {k: tuple(v) for k, v in value.items()}
            elif kw.arg in ("order", "parallel"):
                value = tuple(value)
            elif kw.arg not in ("unroll", "vectorize"):
                raise self.err(
                    kw,
                    f"unknown schedule knob '{kw.arg}' (tile, order, unroll, vectorize, parallel)",
                )
            fields[kw.arg] = value  # type: ignore[index]
        if call.args:
            raise self.err(call, "T.schedule takes keyword arguments only")
        return tp.Schedule(**fields)  # type: ignore[arg-type]

    def store_form(
        self, store: ast.stmt, init: ast.Assign | None, name: str
    ) -> tuple[ir.Value, ast.Subscript, str, ast.expr]:
        """(buffer, store target, combiner, value expression) of the block's last statement."""
        if isinstance(store, ast.AugAssign):
            target, op = store.target, type(store.op)
            combiner = {ast.Add: "add", ast.Mult: "mul"}.get(op)  # type: ignore[call-overload]
            if combiner is None:
                raise self.err(store, "only += and *= update a buffer in place")
            value = store.value
        elif isinstance(store, ast.Assign) and len(store.targets) == 1:
            target, combiner, value = store.targets[0], "none", store.value
        else:
            raise self.err(store, f"block '{name}' ends with its store: OUT[...] = value")
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
            raise self.err(store, f"block '{name}' ends with its store: OUT[...] = value")
        if target.value.id not in self.buffers:
            raise self.err(target.value, f"unknown buffer '{target.value.id}'")
        if init is not None:
            itarget = init.targets[0]
            if len(init.targets) != 1 or ast.dump(itarget) != ast.dump(target):
                raise self.err(
                    init,
                    f"T.init() must store to the same element as the block: {ast.unparse(target)}",
                )
            if combiner == "none":
                combiner, value = self.combiner(value, target, store)
        return self.buffers[target.value.id], target, combiner, value

    def combiner(
        self, value: ast.expr, target: ast.Subscript, store: ast.stmt
    ) -> tuple[str, ast.expr]:
        same = ast.dump(target).replace("ctx=Store()", "ctx=Load()")

        def is_out(e: ast.expr) -> bool:
            return ast.dump(e) == same

        if isinstance(value, ast.BinOp) and type(value.op) in (ast.Add, ast.Mult):
            kind = "add" if isinstance(value.op, ast.Add) else "mul"
            if is_out(value.left):
                return kind, value.right
            if is_out(value.right):
                return kind, value.left
        if isinstance(value, ast.Call) and dsl_name(value.func) in COMBINER_CALLS:
            args = value.args
            if len(args) == 2 and is_out(args[0]):
                return dsl_name(value.func), args[1]  # type: ignore[return-value]
            if len(args) == 2 and is_out(args[1]):
                return dsl_name(value.func), args[0]  # type: ignore[return-value]
        raise self.err(
            store,
            "a block with T.init() updates its element: "
            f"{ast.unparse(target)} = {ast.unparse(target)} + value (or *, T.max, "
            "T.min)",
        )

    def scatter_position(self, target: ast.Subscript, init: ast.Assign | None) -> list | None:
        """The position expressions of `OUT[T.scatter(i, j, ...)]` (a scatter block), or None."""
        s = target.slice
        if not (isinstance(s, ast.Call) and dsl_name(s.func) == "scatter"):
            return None
        if init is not None:
            raise self.err(init, "a scatter block has no T.init(): it combines into the output")
        rank = ir.MemRefType(self.buffers[target.value.id].type).rank  # type: ignore[attr-defined]
        if len(s.args) != rank:
            raise self.err(s, f"T.scatter needs {rank} position(s), one per output dim")
        return list(s.args)

    def scatter_combiner(self, call: ast.Call, store: ast.stmt) -> str:
        if not isinstance(store, ast.Assign):
            raise self.err(store, 'a scatter block combines with T.scatter(..., combiner="add")')
        combiner = "none"
        for kw in call.keywords:
            value = kw.value.value if isinstance(kw.value, ast.Constant) else None
            if kw.arg != "combiner" or value not in tp.COMBINERS:
                raise self.err(kw, f"T.scatter takes combiner= one of {', '.join(tp.COMBINERS)}")
            combiner = value
        return combiner

    def out_map(self, target: ast.Subscript, scope: Scope, axes: list[str]) -> ir.AffineMap:
        idx = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
        exprs = []
        for e in idx:
            text = affine_text(e, scope)
            if text is None:
                raise self.err(
                    e,
                    "a store index is an affine expression of the block variables "
                    "(vi, vi * 2 + vk, vi // 4, vi % 4 ...)",
                )
            exprs.append(text)
        dims = ", ".join(f"d{i}" for i in range(len(axes)))
        return ir.AffineMapAttr(
            ir.Attribute.parse(f"affine_map<({dims}) -> ({', '.join(exprs)})>")
        ).value
