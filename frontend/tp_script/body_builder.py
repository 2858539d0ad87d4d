"""Scalar values of a block body (and of scalars outside blocks): the ops of a block's region,
built from Python expressions."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mlir import ir

from mlc.dialects import tp

from .dtypes import DTYPES, bit_width, is_float, is_int, mlir_type
from .exprs import (
    CMPF,
    CMPI,
    FLOAT_BIN,
    INT_BIN,
    MATH_UNARY,
    MINMAX,
    Scope,
    affine_text,
    dsl_name,
    literal_number,
)

if TYPE_CHECKING:
    from .parser import FunctionParser


@dataclass(frozen=True)
class _Lit:
    """A Python number whose type comes from where it is used."""

    value: float | int


class BodyBuilder:
    """Emits the ops of one block body at the current insertion point."""

    def __init__(self, parser: FunctionParser, scope: Scope, buffers: dict[str, ir.Value]):
        self.p = parser
        self.scope = scope
        self.buffers = buffers
        self.locals: dict[str, ir.Value] = {}
        self.node: ast.AST = parser.fdef

    def local(self, stmt: ast.stmt) -> None:
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            raise self.p.err(
                stmt,
                "a block body holds `name = expression` lines, then its store OUT[...] = value",
            )
        name = stmt.targets[0].id
        if name in self.scope.vars or name in self.buffers:
            raise self.p.err(stmt, f"'{name}' is a block variable or buffer: pick another name")
        self.locals[name] = self.value(stmt.value)

    def value(self, node: ast.expr, want: ir.Type | None = None) -> ir.Value:
        got = self.eval(node)
        if isinstance(got, _Lit):
            if want is None:
                raise self.p.err(
                    node,
                    f"the type of {ast.unparse(node)} is unknown: write "
                    "T.float32(...) / T.int32(...)",
                )
            return self.const(want, got.value, node)
        return got

    # -- helpers ----------------------------------------------------------------------------
    def op(self, name: str, operands: list[ir.Value], result: ir.Type | None,
           attrs: dict[str, ir.Attribute] | None = None) -> ir.Value:  # fmt: skip
        created = ir.Operation.create(
            name,
            results=[] if result is None else [result],
            operands=operands,
            attributes=attrs or {},
            loc=self.p.loc(self.node),  # type: ignore[arg-type]
        )
        return created.result

    def const(self, t: ir.Type, value: float | int, node: ast.AST) -> ir.Value:
        if is_float(t):
            attr = ir.FloatAttr.get(t, float(value))
        elif is_int(t):
            if isinstance(value, float) and not value.is_integer():
                raise self.p.err(node, f"{value} is not an integer ({t})")
            attr = ir.IntegerAttr.get(t, int(value))
        else:
            raise self.p.err(node, f"no constants of type {t}")
        return self.op("arith.constant", [], t, {"value": attr})

    def pair(self, a: Any, b: Any, node: ast.AST) -> tuple[ir.Value, ir.Value]:
        if isinstance(a, _Lit):
            a = self.const(b.type, a.value, node)
        if isinstance(b, _Lit):
            b = self.const(a.type, b.value, node)
        if a.type != b.type:
            raise self.p.err(
                node,
                f"operands of {ast.unparse(node)} have types {a.type} and "
                f'{b.type}: convert one with T.cast(x, "dtype")',
            )
        return a, b

    def cast(self, x: ir.Value, t: ir.Type) -> ir.Value:
        s = x.type
        if s == t:
            return x
        index = ir.IndexType.get()
        i64 = ir.IntegerType.get_signless(64)
        if isinstance(s, ir.IndexType) and not isinstance(t, ir.IntegerType):
            return self.cast(self.op("arith.index_cast", [x], i64), t)
        if isinstance(s, ir.IndexType) or isinstance(t, ir.IndexType):
            if is_float(s):
                return self.op("arith.index_cast", [self.cast(x, i64)], index)
            return self.op("arith.index_cast", [x], t)
        if is_float(s) and is_float(t):
            wider = bit_width(t) > bit_width(s)
            return self.op("arith.extf" if wider else "arith.truncf", [x], t)
        if is_int(s) and is_float(t):
            return self.op("arith.sitofp", [x], t)
        if is_float(s) and is_int(t):
            return self.op("arith.fptosi", [x], t)
        wider = bit_width(t) > bit_width(s)
        return self.op("arith.extsi" if wider else "arith.trunci", [x], t)

    def indices(self, node: ast.Subscript) -> list[ast.expr]:
        s = node.slice
        return list(s.elts) if isinstance(s, ast.Tuple) else [s]

    def affine_map(self, idx: list[ast.expr]) -> ir.AffineMap | None:
        texts = [affine_text(e, self.scope) for e in idx]
        if any(t is None for t in texts):
            return None
        dims = ", ".join(f"d{i}" for i in range(len(self.scope.axes)))
        text = f"affine_map<({dims}) -> ({', '.join(texts)})>"  # type: ignore[arg-type]
        return ir.AffineMapAttr(ir.Attribute.parse(text)).value

    def buffer(self, node: ast.Subscript) -> ir.Value:
        if not isinstance(node.value, ast.Name) or node.value.id not in self.buffers:
            raise self.p.err(node.value, f"unknown buffer {ast.unparse(node.value)}")
        buf = self.buffers[node.value.id]
        rank = ir.MemRefType(buf.type).rank
        if len(self.indices(node)) != rank:
            raise self.p.err(
                node,
                f"buffer '{node.value.id}' has {rank} dim(s), indexed with "
                f"{len(self.indices(node))}",
            )
        return buf

    # -- expressions ------------------------------------------------------------------------
    def eval(self, node: ast.expr) -> ir.Value | _Lit:
        saved, self.node = self.node, node
        try:
            return self._eval(node)
        finally:
            self.node = saved

    def _eval(self, node: ast.expr) -> ir.Value | _Lit:
        number = literal_number(node)
        if number is not None and not isinstance(node, ast.Call):
            return _Lit(number)
        if isinstance(node, ast.Name):
            if node.id in self.locals:
                return self.locals[node.id]
            if node.id in self.scope.vars:
                axis = self.scope.axes[self.scope.vars[node.id]]
                return tp.index(axis, loc=self.p.loc(node))
            raise self.p.err(node, f"unknown name '{node.id}'")
        if isinstance(node, ast.Subscript):
            buf = self.buffer(node)
            amap = self.affine_map(self.indices(node))
            if amap is not None:
                return tp.read(buf, self.scope.axes, amap, loc=self.p.loc(node))
            index = ir.IndexType.get()
            idx = [self.cast(self.value(e, index), index) for e in self.indices(node)]
            return tp.load(buf, idx, loc=self.p.loc(node))
        if isinstance(node, ast.BinOp):
            return self.binary(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            x = self.eval(node.operand)
            if isinstance(x, _Lit):
                return _Lit(-x.value)
            if is_float(x.type):
                return self.op("arith.negf", [x], x.type)
            return self.op("arith.subi", [self.const(x.type, 0, node), x], x.type)
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise self.p.err(node, f"unsupported expression {ast.unparse(node)}")

    def binary(self, node: ast.BinOp) -> ir.Value | _Lit:
        a, b = self.eval(node.left), self.eval(node.right)
        if isinstance(a, _Lit) and isinstance(b, _Lit):
            folded = eval(  # noqa: S307 - two numbers and one operator of a parsed AST
                compile(ast.Expression(ast.BinOp(ast.Constant(a.value), node.op,
                                                 ast.Constant(b.value))), "<fold>", "eval")
            )  # fmt: skip
            return _Lit(folded)
        a, b = self.pair(a, b, node)
        table = FLOAT_BIN if is_float(a.type) else INT_BIN
        name = table.get(type(node.op))  # type: ignore[call-overload]
        if name is None:
            raise self.p.err(node, f"operator {type(node.op).__name__} is not defined on {a.type}")
        return self.op(f"arith.{name}", [a, b], a.type)

    def compare(self, node: ast.Compare) -> ir.Value:
        if len(node.ops) != 1:
            raise self.p.err(node, "chained comparisons are not supported: use T.op or &")
        a, b = self.pair(self.eval(node.left), self.eval(node.comparators[0]), node)
        floating = is_float(a.type)
        pred = (CMPF if floating else CMPI).get(type(node.ops[0]))  # type: ignore[call-overload]
        if pred is None:
            raise self.p.err(node, f"unsupported comparison {ast.unparse(node)}")
        i64 = ir.IntegerType.get_signless(64)
        return self.op(
            "arith.cmpf" if floating else "arith.cmpi",
            [a, b],
            ir.IntegerType.get_signless(1),
            {"predicate": ir.IntegerAttr.get(i64, pred)},
        )

    def call(self, node: ast.Call) -> ir.Value | _Lit:
        name = dsl_name(node.func)
        args = node.args
        if name in DTYPES:
            number = literal_number(node)
            if number is None:
                raise self.p.err(
                    node, f'T.{name}(...) is a constant; convert values with T.cast(x, "{name}")'
                )
            return self.const(mlir_type(name), number, node)  # type: ignore[arg-type]
        if name == "op":
            return self.generic(node)
        if node.keywords:
            raise self.p.err(node, f"T.{name} takes no keyword arguments")
        if name in ("max", "min", "fastmax", "maxui", "minui") and len(args) == 2:
            a, b = self.pair(self.eval(args[0]), self.eval(args[1]), node)
            if name in ("max", "min"):
                return self.op(f"arith.{MINMAX[(name, is_float(a.type))]}", [a, b], a.type)
            op = {"maxui": "arith.maxui", "minui": "arith.minui", "fastmax": "arith.maxnumf"}
            return self.op(op[name], [a, b], a.type)
        if name in MATH_UNARY and len(args) == 1:
            x = self.value(args[0])
            if not is_float(x.type):
                raise self.p.err(node, f"T.{name} takes a float, got {x.type}")
            return self.op(f"math.{name}", [x], x.type)
        if name == "abs" and len(args) == 1:
            x = self.value(args[0])
            return self.op("math.absf" if is_float(x.type) else "math.absi", [x], x.type)
        if name == "pow" and len(args) == 2:
            a, b = self.pair(self.eval(args[0]), self.eval(args[1]), node)
            return self.op("math.powf", [a, b], a.type)
        if name == "select" and len(args) == 3:
            cond = self.value(args[0])
            a, b = self.pair(self.eval(args[1]), self.eval(args[2]), node)
            return self.op("arith.select", [cond, a, b], a.type)
        if name == "cast" and len(args) == 2:
            dtype = args[1].value if isinstance(args[1], ast.Constant) else None
            t = mlir_type(dtype) if isinstance(dtype, str) else None
            if t is None:
                raise self.p.err(args[1], f"unknown dtype {ast.unparse(args[1])}")
            return self.cast(self.value(args[0], t), t)
        if name == "padded" and len(args) == 2 and isinstance(args[0], ast.Subscript):
            buf = self.buffer(args[0])
            amap = self.affine_map(self.indices(args[0]))
            pad = literal_number(args[1])
            if amap is None or pad is None:
                raise self.p.err(node, "T.padded(X[affine indices], constant)")
            return tp.read(buf, self.scope.axes, amap, pad=pad, loc=self.p.loc(node))
        if name == "dot4" and len(args) == 2:
            return tp.dot4(self.value(args[0]), self.value(args[1]), loc=self.p.loc(node))
        raise self.p.err(
            node, f"unknown tp script call {ast.unparse(node.func)} with {len(args)} argument(s)"
        )

    def generic(self, node: ast.Call) -> ir.Value:
        """`T.op("arith.uitofp", x, result="f32", attr="<MLIR attribute>")`: any one-result op."""
        if not node.args or not isinstance(node.args[0], ast.Constant):
            raise self.p.err(node, 'T.op("dialect.name", operands..., result="type", ...)')
        name = node.args[0].value
        operands = [self.value(a) for a in node.args[1:]]
        result = None
        attrs: dict[str, ir.Attribute] = {}
        keywords = []
        for kw in node.keywords:
            if kw.arg != "attrs":
                keywords.append((kw.arg, kw.value))
            elif isinstance(kw.value, ast.Dict):
                keywords += [
                    (getattr(k, "value", None), v) for k, v in zip(kw.value.keys, kw.value.values)
                ]
            else:
                raise self.p.err(kw.value, 'T.op\'s attrs= is a dict {"name": "<MLIR attribute>"}')
        for arg, value in keywords:
            text = value.value if isinstance(value, ast.Constant) else None
            if not isinstance(text, str) or not isinstance(arg, str):
                raise self.p.err(value, f"T.op's {arg}= is MLIR text in a string")
            try:
                if arg == "result":
                    result = ir.Type.parse(text)
                else:
                    attrs[arg] = ir.Attribute.parse(text)
            except ValueError:
                raise self.p.err(value, f"{arg}={text!r} does not parse") from None
        if result is None:
            raise self.p.err(node, 'T.op needs result="type"')
        try:
            return self.op(name, operands, result, attrs)
        except ValueError as e:
            raise self.p.err(node, f"T.op {name!r}: {e}") from None
