"""The blocks of a tp script: `with T.block("Y")` inside a loop nest becomes one `tp.block`
(axes from `T.axis.remap`, out_map from the store, init and combiner from `T.init()` and the
update's form, scatter positions from `OUT[T.scatter(...)]`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mlir import ir

from mlc.dialects import tp

from .body_builder import BodyBuilder
from .errors import ScriptError
from .exprs import Scope, affine_text, dsl_name, literal_number

COMBINER_CALLS = ("max", "min", "fastmax", "maxui", "minui")


@dataclass
class Loop:
    name: str
    extent: int


class BlockParser:
    """The block half of FunctionParser (which provides err, loc, buffers, scalars)."""

    buffers: dict[str, ir.Value]
    scalars: dict[str, ir.Value]
    block_names: set[str]

    if TYPE_CHECKING:

        def err(self, node: ast.AST, message: str) -> ScriptError: ...

        def loc(self, node: ast.AST) -> ir.Location: ...

    def block(self, node: ast.With, loops: list[Loop]) -> None:
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

    def remap(self, stmt: ast.stmt, loops: list[Loop], name: str) -> tuple[list[str], str, Scope]:
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
