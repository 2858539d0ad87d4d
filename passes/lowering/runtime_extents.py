"""Run-time extents in tp lowering: a block extent that is a symbolic dim (`batch*seq`) becomes
an `index` value computed from the kernel's symbol arguments where the loops need it."""

from __future__ import annotations

import ast
from collections.abc import Mapping

from mlir import ir
from mlir.dialects import arith

from mlc.dialects.tp import SYMBOLS_ATTR
from mlc.symbolic import Dim

from .emit_util import index_const


class UnsupportedSymbolic(ValueError):
    """A lowering that does not handle this use of run-time sizes yet (graph-to-tp names the
    op)."""


def kernel_symbols(op: ir.Operation) -> dict[str, ir.Value]:
    """The symbol arguments of the kernel enclosing `op` (`tp.symbols` names its `index`
    arguments, which follow its output buffer), by name."""
    fn = op
    while fn is not None and fn.name != "func.func":
        fn = fn.parent
    if fn is None or SYMBOLS_ATTR not in fn.attributes:
        return {}
    names = [ir.StringAttr(a).value for a in ir.ArrayAttr(fn.attributes[SYMBOLS_ATTR])]
    args = [a for a in fn.regions[0].blocks[0].arguments if isinstance(a.type, ir.IndexType)]
    return dict(zip(names, args))


def materialize(value: int | Dim, symbols: Mapping[str, ir.Value]) -> ir.Value:
    """`value` as an `index` SSA value at the current insertion point (sizes are >= 0, so
    floor division and remainder by a positive divisor are the signed ones)."""
    if isinstance(value, int):
        return index_const(value)
    return _emit(ast.parse(str(value), mode="eval").body, symbols)


def _emit(node: ast.AST, symbols: Mapping[str, ir.Value]) -> ir.Value:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return index_const(node.value)
    if isinstance(node, ast.Name):
        if node.id not in symbols:
            raise ValueError(f"the kernel has no argument for symbol '{node.id}'")
        return symbols[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return arith.SubIOp(index_const(0), _emit(node.operand, symbols)).result
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        op = {"max": arith.MaxSIOp, "min": arith.MinSIOp}[node.func.id]
        result = _emit(node.args[0], symbols)
        for arg in node.args[1:]:
            result = op(result, _emit(arg, symbols)).result
        return result
    assert isinstance(node, ast.BinOp), ast.dump(node)
    lhs, rhs = _emit(node.left, symbols), _emit(node.right, symbols)
    if isinstance(node.op, ast.Mod):
        quotient = arith.FloorDivSIOp(lhs, rhs).result
        return arith.SubIOp(lhs, arith.MulIOp(quotient, rhs).result).result
    ops = {ast.Add: arith.AddIOp, ast.Sub: arith.SubIOp, ast.Mult: arith.MulIOp}
    ops[ast.FloorDiv] = arith.FloorDivSIOp
    return ops[type(node.op)](lhs, rhs).result
