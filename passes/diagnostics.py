"""Diagnostics as plain records, formatted `file:line:col: error: message` like mlir-opt.

MLIR diagnostic objects are only valid inside a handler, so they are copied into `Diag`
records at once; mlc's own errors (`DiagnosticError`) become the same records.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from mlir import ir

SEVERITY = {
    "DiagnosticSeverity.ERROR": "error",
    "DiagnosticSeverity.WARNING": "warning",
    "DiagnosticSeverity.NOTE": "note",
    "DiagnosticSeverity.REMARK": "remark",
}


def file_position(loc: ir.Location) -> tuple[str, int, int] | None:
    """(file, line, col) of the first file location inside `loc`, if any."""
    if loc.is_a_file():
        return loc.filename, loc.start_line, loc.start_col
    if loc.is_a_name():
        return file_position(loc.child_loc)
    if loc.is_a_fused():
        for inner in loc.locations:
            pos = file_position(inner)
            if pos:
                return pos
    if loc.is_a_callsite():
        return file_position(loc.callee)
    return None


def node_names(loc: ir.Location) -> list[str]:
    """Names carried by NameLocs (ONNX node names) inside `loc`."""
    if loc.is_a_name():
        return [loc.name_str]
    if loc.is_a_fused():
        return [n for inner in loc.locations for n in node_names(inner)]
    if loc.is_a_callsite():
        return node_names(loc.callee)
    return []


@dataclass(frozen=True)
class Diag:
    severity: str
    message: str
    file: str | None = None
    line: int = 0
    col: int = 0
    names: tuple[str, ...] = field(default=())

    @classmethod
    def at(cls, severity: str, message: str, loc: object | None) -> Diag:
        if not isinstance(loc, ir.Location):
            return cls(severity, message)
        pos = file_position(loc)
        names = tuple(node_names(loc))
        if pos is None:
            return cls(severity, message, names=names)
        return cls(severity, message, pos[0], pos[1], pos[2], names)

    @classmethod
    def from_mlir(cls, diag: ir.Diagnostic) -> list[Diag]:
        """The diagnostic and its notes (call inside the handler or on an MLIRError)."""
        out = [cls.at(SEVERITY.get(str(diag.severity), "error"), diag.message, diag.location)]
        for note in diag.notes:
            out += cls.from_mlir(note)
        return out

    def where(self, filename: str = "-") -> str:
        if self.file is not None:
            name = filename if self.file in ("-", "") else self.file
            text = f"{name}:{self.line}:{self.col}"
            return f"{text}: [{', '.join(self.names)}]" if self.names else text
        if self.names:
            return ", ".join(self.names)
        return filename if filename != "-" else "<unknown>"

    def format(self, filename: str = "-") -> str:
        return f"{self.where(filename)}: {self.severity}: {self.message}"


def format_location(loc: ir.Location, filename: str = "-") -> str:
    return Diag.at("error", "", loc).where(filename)


def diags_of_error(error: Exception) -> list[Diag]:
    """The diagnostics carried by an MLIRError (parse or pass failure)."""
    diags = getattr(error, "error_diagnostics", None)
    if diags:
        return [d for diag in diags for d in Diag.from_mlir(diag)]
    return [Diag("error", " ".join(str(error).split()))]


def format_diags(diags: Iterable[Diag], filename: str = "-") -> list[str]:
    return [d.format(filename) for d in diags]


def format_error_diagnostics(error: Exception, filename: str = "-") -> list[str]:
    return format_diags(diags_of_error(error), filename)
