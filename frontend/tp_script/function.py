"""`script`: a decorated Python function parsed into a tp kernel (`PrimFunc`)."""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable
from typing import Any

from mlir import ir

from mlc.dialects import tp
from mlc.dialects.context import make_context

from .errors import ScriptError
from .parser import FunctionParser


class PrimFunc:
    """One tp kernel in a module of its own. `str()` is its tp IR; `.script()` the DSL text."""

    def __init__(self, module: ir.Module, source: str | None = None) -> None:
        kernels = tp.kernels(module)
        assert len(kernels) == 1, "a PrimFunc holds one tp kernel"
        self.module = module
        self.source = source

    @property
    def func(self) -> ir.Operation:
        return tp.kernels(self.module)[0]

    @property
    def name(self) -> str:
        return ir.StringAttr(self.func.attributes["sym_name"]).value

    @property
    def context(self) -> ir.Context:
        return self.module.context

    def __str__(self) -> str:
        return str(self.func)

    def script(self) -> str:
        from .printer import to_script

        return to_script(self.func)

    def copy(self) -> PrimFunc:
        return PrimFunc(ir.Module.parse(str(self.module), self.context), self.source)


def parse_script(text: str, filename: str = "<tp-script>", first_line: int = 1) -> PrimFunc:
    """Parse the first `def` of `text` (tp script source) into a PrimFunc."""
    try:
        tree = ast.parse(text, filename)
    except SyntaxError as e:
        raise ScriptError(
            f"not Python: {e.msg}", filename, (e.lineno or 1) + first_line - 1
        ) from None
    ast.increment_lineno(tree, first_line - 1)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if not defs:
        raise ScriptError("no function definition in the tp script", filename, first_line)
    ctx = make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        FunctionParser(defs[0], filename, ir.InsertionPoint(module.body)).parse()
    return PrimFunc(module, text)


def script(fn: Callable[..., Any]) -> PrimFunc:
    """Decorator: parse a Python function written in the tp script DSL (never run it)."""
    lines, first = inspect.getsourcelines(fn)
    filename = inspect.getsourcefile(fn) or "<tp-script>"
    return parse_script(textwrap.dedent("".join(lines)), filename, first)
