"""Errors of the tp script DSL: they point at the Python source line."""

from __future__ import annotations

import ast

from mlc.errors import MlcError


class ScriptError(MlcError):
    """A tp script that does not parse; the message starts with `file:line:col`."""

    def __init__(self, message: str, filename: str, line: int, node: ast.AST | None = None):
        col = getattr(node, "col_offset", -1) + 1
        where = f"{filename}:{line}:{col}" if col > 0 else f"{filename}:{line}"
        super().__init__(f"{where}: error: {message}")
        self.message = message
        self.filename = filename
        self.line = line
