"""Expressions of tp script: DSL names, literals, index maps (affine over block variables) and
the tables of operators the parser and the printer share."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .dtypes import DTYPES

MATH_UNARY = (
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "tanh", "erf",
    "sin", "cos", "tan", "atan", "floor", "ceil", "round", "roundeven", "trunc",
)  # fmt: skip
"""`T.<name>(x)` is `math.<name>` on floats."""
FLOAT_BIN = {ast.Add: "addf", ast.Sub: "subf", ast.Mult: "mulf", ast.Div: "divf", ast.Mod: "remf"}
INT_BIN = {
    ast.Add: "addi",
    ast.Sub: "subi",
    ast.Mult: "muli",
    ast.Div: "divsi",
    ast.FloorDiv: "floordivsi",
    ast.Mod: "remsi",
    ast.BitAnd: "andi",
    ast.BitOr: "ori",
    ast.BitXor: "xori",
    ast.LShift: "shli",
    ast.RShift: "shrsi",
}
CMPF = {ast.Lt: 4, ast.LtE: 5, ast.Gt: 2, ast.GtE: 3, ast.Eq: 1, ast.NotEq: 13}
CMPI = {ast.Lt: 2, ast.LtE: 3, ast.Gt: 4, ast.GtE: 5, ast.Eq: 0, ast.NotEq: 1}
MINMAX = {("max", True): "maximumf", ("min", True): "minimumf",
          ("max", False): "maxsi", ("min", False): "minsi"}  # fmt: skip


def dsl_name(node: ast.expr) -> str | None:
    """The DSL name a callee spells: `T.grid` -> "grid", `T.axis.remap` -> "remap", `range`."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def literal_number(node: ast.expr) -> float | int | None:
    """A constant written as `3`, `-0.5`, `T.float32(0)` or `T.float32("-inf")`, else None."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = literal_number(node.operand)
        return None if inner is None else -inner
    if (
        isinstance(node, ast.Call)
        and dsl_name(node.func) in DTYPES
        and len(node.args) == 1
        and not node.keywords
    ):
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            try:
                return float(arg.value)
            except ValueError:
                return None
        return literal_number(arg)
    return None


@dataclass
class Scope:
    """The block variables (name -> axis position) and the axes they stand for."""

    vars: dict[str, int]
    axes: list[str]


def affine_text(node: ast.expr, scope: Scope) -> str | None:
    """MLIR affine text over d0.. of an index expression, or None when it is not affine."""
    got = _affine(node, scope)
    return None if got is None else got[0]


def _affine(node: ast.expr, scope: Scope) -> tuple[str, int | None] | None:
    """(text, constant value or None)."""
    if isinstance(node, ast.Name) and node.id in scope.vars:
        return f"d{scope.vars[node.id]}", None
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return str(node.value), node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _affine(node.operand, scope)
        if inner is None:
            return None
        return f"({inner[0]} * -1)", None if inner[1] is None else -inner[1]
    if not isinstance(node, ast.BinOp):
        return None
    lhs, rhs = _affine(node.left, scope), _affine(node.right, scope)
    if lhs is None or rhs is None:
        return None
    op = type(node.op)
    if op in (ast.Add, ast.Sub):
        sym = "+" if op is ast.Add else "-"
        value = None
        if lhs[1] is not None and rhs[1] is not None:
            value = lhs[1] + rhs[1] if op is ast.Add else lhs[1] - rhs[1]
        return f"({lhs[0]} {sym} {rhs[0]})", value
    if op is ast.Mult and (lhs[1] is not None or rhs[1] is not None):
        both = lhs[1] is not None and rhs[1] is not None
        return f"({lhs[0]} * {rhs[0]})", lhs[1] * rhs[1] if both else None  # type: ignore[operator]
    if op in (ast.FloorDiv, ast.Mod) and rhs[1] is not None and rhs[1] > 0:
        sym = "floordiv" if op is ast.FloorDiv else "mod"
        return f"({lhs[0]} {sym} {rhs[0]})", None
    return None
