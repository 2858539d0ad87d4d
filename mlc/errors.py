"""The one hierarchy of user-facing mlc errors.

Internal invariants are `assert`s; everything a user can cause is an `MlcError` whose message
names the op, pass or node involved and says what to do. The CLIs map these to exit codes
(`mlc.driver`, `mlc.opt`).
"""

from __future__ import annotations


class MlcError(Exception):
    """Base class of every error mlc reports to a user."""


class DiagnosticError(MlcError):
    """An error anchored at an IR location (an op, or an ONNX node through its NameLoc)."""

    def __init__(
        self,
        message: str,
        location: object | None = None,
        more: list[tuple[str, object | None]] | None = None,
    ) -> None:
        super().__init__(message if not more else "\n".join([message] + [m for m, _ in more]))
        self.message = message
        self.location = location
        self.more = more or []

    @classmethod
    def many(cls, items: list[tuple[str, object | None]]) -> DiagnosticError:
        """One error carrying several diagnostics (a verifier reports every violation)."""
        assert items
        return cls(items[0][0], items[0][1], items[1:])

    def items(self) -> list[tuple[str, object | None]]:
        return [(self.message, self.location)] + self.more


class _WithDiags(MlcError):
    """An error carrying structured diagnostics (`mlc.passes.diagnostics.Diag` records)."""

    def __init__(self, message: str, diags: list | None = None, filename: str = "-") -> None:  # type: ignore[type-arg]
        self.diags = list(diags or [])
        self.filename = filename
        self.diagnostics = [d.format(filename) for d in self.diags]
        super().__init__("\n".join(self.diagnostics) if self.diagnostics else message)


class PassFailedError(_WithDiags):
    """A pass pipeline failed; `diagnostics` holds `file:line:col: error: ...` lines."""


class PipelineParseError(MlcError):
    """A pass pipeline string that does not parse, with the 0-based position of the fault."""

    def __init__(self, message: str, text: str, pos: int) -> None:
        self.text = text
        self.pos = pos
        self.reason = message
        caret = " " * pos + "^"
        super().__init__(f"pass pipeline:1:{pos + 1}: error: {message}\n  {text}\n  {caret}")


class PassOptionError(MlcError):
    """An unknown, duplicated or ill-typed pass option."""


class UnsupportedOpError(MlcError):
    """Model content mlc cannot convert (ops, opsets, dtypes), listed all at once."""


class UnsupportedOpsetError(UnsupportedOpError):
    """An operator's opset is below the earliest version mlc implements."""

    def __init__(self, op_type: str, opset: int, min_supported: int, domain: str = "") -> None:
        name = f"{domain}.{op_type}" if domain else op_type
        super().__init__(
            f"{name}: opset {opset} is not supported; the earliest implemented version is "
            f"{min_supported}. Re-export the model with opset >= {min_supported}."
        )
        self.op_type = op_type
        self.opset = opset
        self.min_supported = min_supported


class ModelLoadError(MlcError):
    """A file that is not a readable ONNX model (corrupt, missing external data, ...)."""


class InputShapeError(UnsupportedOpError):
    """Input shapes that are missing (dynamic dims) or do not fit the model's inputs."""


class MissingDependencyError(MlcError):
    """An optional package is not installed; the message carries the pip command."""

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(
            f"this feature needs the optional package '{package}'. "
            f"Install it with: pip install 'mlc[{extra}]'"
        )
        self.package = package
        self.extra = extra


class ToolError(MlcError):
    """An external step (linker, compiler, JIT) failed; the message names the step."""


class RuntimeInputError(MlcError):
    """Wrong input name, shape or dtype given to a compiled module."""
