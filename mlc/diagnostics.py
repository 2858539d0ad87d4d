"""Formatting MLIR diagnostics as `file:line:col: error: message` lines, like mlir-opt."""

from __future__ import annotations

from collections.abc import Iterable

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


def format_location(loc: ir.Location, filename: str = "-") -> str:
    pos = file_position(loc)
    names = node_names(loc)
    if pos:
        name = filename if pos[0] in ("-", "") else pos[0]
        text = f"{name}:{pos[1]}:{pos[2]}"
        return f"{text}: [{', '.join(names)}]" if names else text
    if names:
        return ", ".join(names)
    return "<unknown>"


def format_diagnostic(diag: ir.Diagnostic, filename: str = "-") -> list[str]:
    severity = SEVERITY.get(str(diag.severity), "error")
    lines = [f"{format_location(diag.location, filename)}: {severity}: {diag.message}"]
    for note in diag.notes:
        lines += format_diagnostic(note, filename)
    return lines


def format_all(diags: Iterable[ir.Diagnostic], filename: str = "-") -> list[str]:
    return [line for d in diags for line in format_diagnostic(d, filename)]


def format_error_diagnostics(error: Exception, filename: str = "-") -> list[str]:
    """The diagnostics carried by an MLIRError (parse or pass failure), formatted."""
    diags = getattr(error, "error_diagnostics", None)
    if diags:
        return format_all(diags, filename)
    return [f"{filename}: error: {' '.join(str(error).split())}"]
