"""Printing block bodies as tp script expressions: operators and `T.` calls where the parser
reads them back as the same op, `T.op(...)` for any other op."""

from __future__ import annotations

import ast
import math

from mlir import ir

from mlc.dialects.tp.affine import is_identity
from mlc.errors import MlcError

from .dtypes import dtype_name, is_float
from .exprs import CMPF, CMPI, FLOAT_BIN, INT_BIN, MATH_UNARY

_BIN = {f"arith.{n}": op for table in (FLOAT_BIN, INT_BIN) for op, n in table.items()}
_CMP = {("arith.cmpf", p): op for op, p in CMPF.items()}
_CMP.update({("arith.cmpi", p): op for op, p in CMPI.items()})
_CALLS = {f"math.{n}": n for n in MATH_UNARY}
_CALLS.update(
    {
        "math.absf": "abs",
        "math.absi": "abs",
        "math.powf": "pow",
        "arith.maxnumf": "fastmax",
        "arith.maxui": "maxui",
        "arith.minui": "minui",
        "arith.select": "select",
        "tp.dot4": "dot4",
    }
)
_MINMAX = {"arith.maximumf": "max", "arith.minimumf": "min", "arith.maxsi": "max",
           "arith.minsi": "min"}  # fmt: skip
_CASTS = ("arith.extf", "arith.truncf", "arith.sitofp", "arith.fptosi", "arith.extsi",
          "arith.trunci", "arith.index_cast")  # fmt: skip
_NO_FASTMATH = "#arith.fastmath<none>"
"""The default the op builders add: printed as no attribute."""
COMBINE = {"max": "max", "min": "min", "fastmax": "fastmax", "maxui": "maxui", "minui": "minui"}


class PrintError(MlcError):
    """A kernel the tp script cannot express."""


def dsl(attr: str) -> ast.expr:
    return ast.Attribute(ast.Name("T"), attr)


def dsl_call(name: str, *args: ast.expr, **kw: ast.expr) -> ast.Call:
    return ast.Call(dsl(name), list(args), [ast.keyword(k, v) for k, v in kw.items()])


def const(value: object) -> ast.expr:
    return ast.Constant(value)


def number(t: ir.Type, value: float | int) -> ast.expr:
    name = dtype_name(t)
    if name is None:
        raise PrintError(f"no tp script dtype for {t}")
    if isinstance(value, float) and not math.isfinite(value):
        return dsl_call(name, const(str(value)))
    return dsl_call(name, const(value))


def shape_tuple(t: ir.MemRefType) -> ast.expr:
    dims = [const(None if ir.ShapedType.is_dynamic_size(d) else d) for d in t.shape]
    return ast.Tuple(dims)


def buffer_type(t: ir.Type) -> ast.expr:
    mtype = ir.MemRefType(t)
    name = dtype_name(mtype.element_type)
    layout = mtype.layout
    if name is None or not (isinstance(layout, ir.AffineMapAttr) and is_identity(layout.value)):
        raise PrintError(f"no tp script buffer type for {t}")
    return dsl_call("Buffer", shape_tuple(mtype), const(name))


def attr_number(attr: ir.Attribute) -> float | int:
    try:
        return ir.FloatAttr(attr).value
    except ValueError:
        pass
    try:
        return ir.IntegerAttr(attr).value
    except ValueError:
        raise PrintError(f"tp script has no constant form for {attr}") from None


class ExprPrinter:
    """The expression half of the kernel printer (which sets buffers, bvars, axes, scalars)."""

    buffers: dict[ir.Value, str]
    bvars: list[str]
    axes: list[str]
    scalars: dict[ir.Value, ast.expr]

    def captured(self, v: ir.Value) -> ast.expr | None:
        """A constant defined outside the block (bodies may use them): printed in place."""
        op = v.owner
        if isinstance(op, ir.Block) or v in self.buffers:
            return None
        if op.name == "arith.constant" and len(op.attributes) == 1 and dtype_name(v.type):
            return number(v.type, attr_number(op.attributes["value"]))
        raise PrintError(f"tp script cannot express a block reading '{op.name}' from outside")

    def index_tuple(self, exprs: list[ir.AffineExpr]) -> ast.expr:
        items = [self.affine(e) for e in exprs]
        return ast.Tuple(items) if len(items) != 1 else items[0]

    def affine(self, e: ir.AffineExpr) -> ast.expr:
        e = e.maybe_downcast()
        if isinstance(e, ir.AffineDimExpr):
            return ast.Name(self.bvars[e.position])
        if isinstance(e, ir.AffineConstantExpr):
            return const(e.value)
        if isinstance(e, ir.AffineAddExpr):
            rhs = e.rhs.maybe_downcast()
            if isinstance(rhs, ir.AffineConstantExpr) and rhs.value < 0:
                return ast.BinOp(self.affine(e.lhs), ast.Sub(), const(-rhs.value))
            if isinstance(rhs, ir.AffineMulExpr):
                k = rhs.rhs.maybe_downcast()
                if isinstance(k, ir.AffineConstantExpr) and k.value == -1:
                    return ast.BinOp(self.affine(e.lhs), ast.Sub(), self.affine(rhs.lhs))
            return ast.BinOp(self.affine(e.lhs), ast.Add(), self.affine(e.rhs))
        if isinstance(e, ir.AffineMulExpr):
            return ast.BinOp(self.affine(e.lhs), ast.Mult(), self.affine(e.rhs))
        if isinstance(e, ir.AffineFloorDivExpr):
            return ast.BinOp(self.affine(e.lhs), ast.FloorDiv(), self.affine(e.rhs))
        if isinstance(e, ir.AffineModExpr):
            return ast.BinOp(self.affine(e.lhs), ast.Mod(), self.affine(e.rhs))
        raise PrintError(f"tp script has no form for the index expression {e}")

    def body(self, ops: list[ir.Operation], stmts: list[ast.stmt]) -> list[ast.expr]:
        """Statements for the body's ops (into `stmts`); the expressions of what the body yields
        (the value, then a scatter block's position)."""
        exprs: dict[ir.Value, ast.expr] = {}
        uses: dict[ir.Value, int] = {}
        for op in ops:
            for v in op.operands:
                uses[v] = uses.get(v, 0) + 1
        for op in ops[:-1]:
            if len(op.results) != 1 or op.regions:
                raise PrintError(f"tp script cannot express '{op.name}' in a block body")
            expr = self.expr(op, exprs)
            v = op.result
            if uses.get(v, 0) == 1:  # body ops are pure: inlining keeps the dataflow
                exprs[v] = expr
            else:
                name = self.names.fresh(f"t{len(stmts)}")
                stmts.append(ast.Assign([ast.Name(name)], expr))
                exprs[v] = ast.Name(name)
        return [  # type: ignore[misc]
            exprs.get(v) or self.scalars.get(v) or self.captured(v) for v in ops[-1].operands
        ]

    def expr(self, op: ir.Operation, exprs: dict[ir.Value, ast.expr]) -> ast.expr:
        args = [exprs.get(v) or self.scalars.get(v) or self.captured(v) for v in op.operands]
        named = [op.attributes[i] for i in range(len(op.attributes))]
        named = [a for a in named if not (a.name == "fastmath" and str(a.attr) == _NO_FASTMATH)]
        attrs = {a.name for a in named}
        t = op.result.type
        if op.name == "arith.constant" and attrs == {"value"} and dtype_name(t):
            return number(t, attr_number(op.attributes["value"]))
        if op.name in ("tp.read", "tp.read_padded"):
            amap = ir.AffineMapAttr(op.attributes["map"]).value
            ref = ast.Subscript(
                ast.Name(self.buffers[op.operands[0]]), self.index_tuple(amap.results)
            )
            if op.name == "tp.read":
                return ref
            pad = number(t, attr_number(op.attributes["value"]))
            return dsl_call("padded", ref, pad)
        if op.name == "tp.load":
            return ast.Subscript(ast.Name(self.buffers[op.operands[0]]), ast.Tuple(args[1:]))
        if op.name == "tp.index":
            axis = ir.StringAttr(op.attributes["axis"]).value
            return ast.Name(self.bvars[self.axes.index(axis)])
        if not attrs:
            if op.name in _BIN and len(args) == 2 and self._bin_matches(op):
                return ast.BinOp(args[0], _BIN[op.name](), args[1])
            if op.name == "arith.negf":
                return ast.UnaryOp(ast.USub(), args[0])
            if op.name in _MINMAX:
                return dsl_call(_MINMAX[op.name], *args)
            if op.name in _CALLS:
                return dsl_call(_CALLS[op.name], *args)
            if op.name in _CASTS and dtype_name(t) and self._cast_matches(op):
                return dsl_call("cast", args[0], const(dtype_name(t)))
        if op.name in ("arith.cmpf", "arith.cmpi") and attrs == {"predicate"}:
            pred = ir.IntegerAttr(op.attributes["predicate"]).value
            cmp = _CMP.get((op.name, pred))
            if cmp is not None:
                return ast.Compare(args[0], [cmp()], [args[1]])
        kw = {a.name: const(str(a.attr)) for a in named if a.name.isidentifier()}
        odd = {a.name: str(a.attr) for a in named if not a.name.isidentifier()}
        if odd or {"result", "attrs"} & set(kw):
            kw = {"attrs": const({a.name: str(a.attr) for a in named})}
        return dsl_call("op", const(op.name), *args, result=const(str(t)), **kw)

    def _bin_matches(self, op: ir.Operation) -> bool:
        """The parser makes float `/`, `%` divf/remf and integer ones divsi/remsi: only then is
        the operator form the same op."""
        floating = is_float(op.result.type)
        return op.name.endswith("f") == floating

    def _cast_matches(self, op: ir.Operation) -> bool:
        """Whether `T.cast` parses back to this very op (the parser picks one op per pair)."""
        s, t = op.operands[0].type, op.result.type
        if op.name == "arith.index_cast":
            return isinstance(s, ir.IndexType) != isinstance(t, ir.IndexType) and not (
                isinstance(s, ir.IndexType) and not isinstance(t, ir.IntegerType)
            )
        return not isinstance(s, ir.IndexType) and not isinstance(t, ir.IndexType)
