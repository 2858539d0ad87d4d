"""The pass contract: a frozen dataclass with a kebab-case `name`, a one-line summary (the first
docstring line) and typed options (its fields, each documented by an attribute docstring).

Options are parsed from MLIR pipeline syntax (`{tile-sizes=8,32 unroll=true}`) by field type:
int, float, bool, str, tuple[int, ...], tuple[str, ...], Literal[...] and `X | None`.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
import types
import typing
from functools import lru_cache
from typing import Any, ClassVar, Literal, get_args, get_origin

from mlir import ir

from mlc.errors import PassOptionError

from .diagnostics import Diag


@dataclasses.dataclass
class PassContext:
    """Per-run state handed to every mlc pass (passes themselves are immutable).

    `params` maps parameter names (`#graph.param<"name">`) to numpy arrays; passes that fold
    constants read it and add the arrays they create. It is None when no values are known
    (e.g. `mlc-opt` without `--params`): such passes then fold only literals.
    `diagnostics` collects the warnings and remarks passes report without failing (errors are
    raised as DiagnosticError); the PassManager hands them to its caller after the run.
    """

    params: dict[str, Any] | None = None
    diagnostics: list[Diag] = dataclasses.field(default_factory=list)

    def warn(self, message: str, location: object | None = None) -> None:
        self.diagnostics.append(Diag.at("warning", message, location))

    def remark(self, message: str, location: object | None = None) -> None:
        self.diagnostics.append(Diag.at("remark", message, location))


@dataclasses.dataclass(frozen=True)
class ModulePass:
    """Base class of mlc passes. Subclasses are frozen dataclasses anchored on builtin.module."""

    name: ClassVar[str] = ""
    symbolic_dims: ClassVar[bool] = False
    """Whether the pass handles tensors with symbolic dims (`tensor<?x4xf32, ["n", 4]>`); the
    pass manager refuses to run one that does not on IR holding them."""
    checks_only: ClassVar[bool] = False
    """Whether the pass only inspects the IR (graph-verify, tp-verify, llvm-verify): it leaves
    verified IR as it found it, so the pass manager does not verify it again."""
    emits_mlc_dialects: ClassVar[bool] = True
    """Whether the pass may create graph or tp ops. One that may not (the passes that run on
    loops, after tp-to-loops) cannot make a module without them need mlc's dialect checks,
    which are skipped after it: they are a Python walk over every op of a lowered module."""

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        raise NotImplementedError

    @classmethod
    def summary(cls) -> str:
        return (inspect.getdoc(cls) or "").split("\n", 1)[0]

    @classmethod
    def options(cls) -> list[OptionInfo]:
        return _options_of(cls)

    @classmethod
    def from_options(cls, raw: dict[str, str | None]) -> ModulePass:
        """Instantiate from `{option-name: text}`; raises PassOptionError naming the option."""
        infos = {o.name: o for o in cls.options()}
        kwargs: dict[str, Any] = {}
        for key, text in raw.items():
            info = infos.get(key)
            if info is None:
                known = ", ".join(infos) or "none"
                raise PassOptionError(f"{cls.name}: unknown option '{key}' (options: {known})")
            kwargs[info.field] = parse_option_value(cls.name, info, text)
        try:
            return cls(**kwargs)
        except (ValueError, TypeError) as e:
            raise PassOptionError(f"{cls.name}: {e}") from e

    def option_text(self) -> str:
        """Non-default options in pipeline syntax, e.g. `{max-trip-count=4}`; '' if none."""
        parts = []
        for info in self.options():
            value = getattr(self, info.field)
            if value != info.default:
                parts.append(f"{info.name}={format_option_value(value)}")
        return "{" + " ".join(parts) + "}" if parts else ""

    def __str__(self) -> str:
        return self.name + self.option_text()


@dataclasses.dataclass(frozen=True)
class OptionInfo:
    name: str  # kebab-case
    field: str
    type: Any
    default: Any
    owner: type
    """The pass (or pipeline) class that declares the option."""

    @property
    def doc(self) -> str:
        """The field's docstring, read from the source only when asked (listings, help): parsing
        every pass's source cost ~0.6 s of CPU per compile."""
        return _field_docs(self.owner).get(self.field, "")

    @property
    def type_text(self) -> str:
        return _type_text(self.type)


def _type_text(tp: Any) -> str:
    origin = get_origin(tp)
    if origin is Literal:
        return "|".join(str(a) for a in get_args(tp))
    if origin is tuple:
        return f"list of {_type_text(get_args(tp)[0])}"
    if origin in (typing.Union, types.UnionType):
        return (
            " or ".join(_type_text(a) for a in get_args(tp) if a is not type(None)) + " (optional)"
        )
    return getattr(tp, "__name__", str(tp))


@lru_cache(maxsize=None)
def _field_docs(cls: type) -> dict[str, str]:
    """Attribute docstrings (a string literal right after a field) of cls and its bases."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass is object or not dataclasses.is_dataclass(klass):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for stmt, nxt in zip(body, body[1:]):
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)
            ):
                docs[stmt.target.id] = " ".join(nxt.value.value.split())
    return docs


@lru_cache(maxsize=None)
def _options_of(cls: type) -> list[OptionInfo]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        default = (
            f.default
            if f.default is not dataclasses.MISSING
            else (f.default_factory() if f.default_factory is not dataclasses.MISSING else None)
        )
        out.append(OptionInfo(f.name.replace("_", "-"), f.name, hints[f.name], default, cls))
    return out


def _split_list(text: str) -> list[str]:
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1]
    return [t.strip() for t in text.split(",") if t.strip()]


def _parse_scalar(tp: Any, text: str) -> Any:
    if tp is bool:
        low = text.lower()
        if low in ("true", "1", "on", ""):
            return True
        if low in ("false", "0", "off"):
            return False
        raise ValueError(f"expected true or false, got '{text}'")
    if tp is int:
        return int(text, 0)
    if tp is float:
        return float(text)
    if tp is str:
        if len(text) >= 2 and text[0] == text[-1] == '"':
            return text[1:-1]
        return text
    if get_origin(tp) is Literal:
        choices = get_args(tp)
        for c in choices:
            if str(c) == text:
                return c
        raise ValueError(f"expected one of {', '.join(map(str, choices))}, got '{text}'")
    raise TypeError(f"unsupported option type {tp}")


def parse_option_value(pass_name: str, info: OptionInfo, text: str | None) -> Any:
    tp = info.type
    origin = get_origin(tp)
    try:
        if origin in (typing.Union, types.UnionType):
            if text is None or text.lower() == "none":
                return None
            tp = next(a for a in get_args(tp) if a is not type(None))
            origin = get_origin(tp)
        if text is None:
            if tp is bool:
                return True
            raise ValueError("needs a value")
        if origin is tuple:
            elem = get_args(tp)[0]
            return tuple(_parse_scalar(elem, t) for t in _split_list(text))
        return _parse_scalar(tp, text)
    except ValueError as e:
        raise PassOptionError(
            f"{pass_name}: invalid value '{text}' for option '{info.name}' "
            f"(expected {info.type_text}): {e}"
        ) from None


def format_option_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(format_option_value(v) for v in value)
    if value is None:
        return "none"
    text = str(value)
    if any(c.isspace() or c in "{}," for c in text) or text == "":
        return '"' + text + '"'
    return text


@dataclasses.dataclass(frozen=True)
class NamedPipeline(ModulePass):
    """Base class of named pipelines: typed options like a pass, and a body of pass elements."""

    def expand(self) -> str:
        """The pipeline body (comma-separated elements, anchored on builtin.module)."""
        raise NotImplementedError

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        raise AssertionError("named pipelines are expanded by the PassManager, never run")
