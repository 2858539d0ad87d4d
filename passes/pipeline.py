"""MLIR's textual pass-pipeline grammar, parsed once into typed passes and printed canonically.

    pipeline := anchor '(' elements? ')'
    elements := element (',' element)*
    element  := name options? | anchor '(' elements? ')'
    options  := '{' (key ('=' value)?)* '}'   value: word, "quoted", or {balanced}

Unknown names are rejected with their position before anything runs. mlc passes and named
pipelines are instantiated with typed options; upstream passes are validated by MLIR's own parser.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, Union

from mlir import ir
from mlir.passmanager import PassManager as _MlirPassManager

from mlc.errors import MlcError, PipelineParseError

from . import registry
from .base import ModulePass

ElementKind = Literal["mlc", "pipeline", "upstream"]
MODULE_ANCHOR = "builtin.module"


@dataclass(frozen=True)
class PassEntry:
    name: str
    options: tuple[tuple[str, str | None], ...]
    kind: ElementKind
    instance: ModulePass | None = None  # mlc passes and named pipelines
    pos: int = field(default=0, compare=False)

    def __str__(self) -> str:
        if self.instance is not None:
            return str(self.instance)
        return self.name + format_raw_options(self.options)


@dataclass(frozen=True)
class Nest:
    anchor: str
    body: tuple[Element, ...]
    pos: int = field(default=0, compare=False)

    def __str__(self) -> str:
        return f"{self.anchor}({','.join(str(e) for e in self.body)})"

    def walk(self) -> Iterator[PassEntry]:
        for e in self.body:
            if isinstance(e, Nest):
                yield from e.walk()
            else:
                yield e


Element = Union[PassEntry, Nest]


@dataclass(frozen=True)
class Pipeline(Nest):
    """A whole pipeline: the top-level nest (normally anchored on builtin.module)."""


def format_raw_options(options: tuple[tuple[str, str | None], ...]) -> str:
    if not options:
        return ""
    return "{" + " ".join(k if v is None else f"{k}={v}" for k, v in options) + "}"


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, message: str, pos: int | None = None) -> PipelineParseError:
        return PipelineParseError(message, self.text, self.pos if pos is None else pos)

    def ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.ws()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            found = repr(self.peek()) if self.peek() else "end of string"
            raise self.error(f"expected '{ch}', found {found}")
        self.pos += 1

    def name(self) -> tuple[str, int]:
        self.ws()
        start = self.pos
        while self.pos < len(self.text) and (
            self.text[self.pos].isalnum() or self.text[self.pos] in "-_."
        ):
            self.pos += 1
        if start == self.pos:
            found = repr(self.text[self.pos]) if self.pos < len(self.text) else "end of string"
            raise self.error(f"expected a pass or operation name, found {found}")
        return self.text[start : self.pos], start

    def elements(self) -> list[tuple[str, int, object]]:
        """Raw elements: (name, pos, options-tuple | list-of-children)."""
        items: list[tuple[str, int, object]] = []
        if self.peek() == ")":
            return items
        while True:
            name, start = self.name()
            if self.peek() == "(":
                self.pos += 1
                children = self.elements()
                self.expect(")")
                items.append((name, start, children))
            elif self.peek() == "{":
                items.append((name, start, self.options()))
            else:
                items.append((name, start, ()))
            if self.peek() != ",":
                return items
            self.pos += 1

    def options(self) -> tuple[tuple[str, str | None], ...]:
        self.expect("{")
        out: list[tuple[str, str | None]] = []
        while True:
            ch = self.peek()
            if ch == "}":
                self.pos += 1
                return tuple(out)
            if not ch:
                raise self.error("unterminated option list: missing '}'")
            key_start = self.pos
            while (
                self.pos < len(self.text)
                and not self.text[self.pos].isspace()
                and self.text[self.pos] not in "=}"
            ):
                self.pos += 1
            key = self.text[key_start : self.pos]
            if not key:
                raise self.error("expected an option name")
            value: str | None = None
            if self.pos < len(self.text) and self.text[self.pos] == "=":
                self.pos += 1
                value = self.value()
            out.append((key, value))

    def value(self) -> str:
        start = self.pos
        depth = 0
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch == '"':
                end = self.text.find('"', self.pos + 1)
                if end < 0:
                    raise self.error("unterminated string in option value", self.pos)
                self.pos = end + 1
                continue
            if ch == "{":
                depth += 1
            elif ch == "}":
                if depth == 0:
                    break
                depth -= 1
            elif ch.isspace() and depth == 0:
                break
            self.pos += 1
        if depth:
            raise self.error("unbalanced '{' in option value", start)
        return self.text[start : self.pos]


def parse_pipeline(text: str) -> Pipeline:
    """Parse and resolve a full pipeline string; raises PipelineParseError with the position."""
    p = _Parser(text)
    if not p.peek():
        raise p.error("empty pass pipeline; expected e.g. builtin.module(graph-verify)")
    anchor, start = p.name()
    if p.peek() != "(":
        raise p.error(
            f"the pipeline must name the op it runs on: write '{MODULE_ANCHOR}({text.strip()})'",
            start,
        )
    p.pos += 1
    raw = p.elements()
    p.expect(")")
    if p.peek():
        raise p.error(f"unexpected {p.peek()!r} after the end of the pipeline")
    body = tuple(_resolve(p, raw, (anchor,)))
    return Pipeline(anchor, body, start)


def parse_elements(text: str) -> tuple[Element, ...]:
    """Parse a comma-separated element list (what `PassManager.add` takes) at module level."""
    return parse_pipeline(f"{MODULE_ANCHOR}({text})").body


def _resolve(
    p: _Parser, raw: list[tuple[str, int, object]], anchors: tuple[str, ...]
) -> Iterator[Element]:
    for name, pos, payload in raw:
        if isinstance(payload, list):
            yield Nest(name, tuple(_resolve(p, payload, anchors + (name,))), pos)
            continue
        options: tuple[tuple[str, str | None], ...] = payload  # type: ignore[assignment]
        cls = registry.get_pass(name) or registry.get_pipeline(name)
        if cls is not None:
            yield _mlc_entry(p, cls, name, options, pos, anchors)
        elif name in registry.upstream_pass_names():
            _check_upstream(p, name, options, pos, anchors)
            yield PassEntry(name, options, "upstream", None, pos)
        else:
            raise p.error(
                f"'{name}' does not refer to a registered pass or pass pipeline"
                f"{registry.suggest(name)}",
                pos,
            )


def _mlc_entry(
    p: _Parser,
    cls: type,
    name: str,
    options: tuple[tuple[str, str | None], ...],
    pos: int,
    anchors: tuple[str, ...],
) -> PassEntry:
    kind: ElementKind = "mlc" if name in registry.all_passes() else "pipeline"
    if anchors != (MODULE_ANCHOR,):
        where = "(".join(anchors[1:]) + "(...)" + ")" * (len(anchors) - 2)
        raise p.error(
            f"mlc {'pass' if kind == 'mlc' else 'pipeline'} '{name}' runs on "
            f"{MODULE_ANCHOR} and cannot be nested in {where}; move it to the top "
            f"level: {MODULE_ANCHOR}(..., {name})",
            pos,
        )
    seen: set[str] = set()
    for key, _ in options:
        if key in seen:
            raise p.error(f"{name}: option '{key}' is given twice", pos)
        seen.add(key)
    try:
        instance = cls.from_options(dict(options))
    except MlcError as e:
        raise p.error(str(e), pos) from None
    return PassEntry(name, options, kind, instance, pos)


def _check_upstream(
    p: _Parser,
    name: str,
    options: tuple[tuple[str, str | None], ...],
    pos: int,
    anchors: tuple[str, ...],
) -> None:
    text = name + format_raw_options(options)
    for anchor in reversed(anchors[1:]):
        text = f"{anchor}({text})"
    problem = _upstream_problem(f"{anchors[0]}({text})")
    if problem:
        raise p.error(f"upstream pass '{name}': {problem}", pos)


@lru_cache(maxsize=4096)
def _upstream_problem(pipeline: str) -> str:
    """MLIR's complaint about an upstream pipeline ('' if it parses). Cached, in one shared
    context: creating a context per check dominated the parse of every pipeline."""
    try:
        with _validation_context():
            _MlirPassManager.parse(pipeline)
    except ValueError as e:
        return " ".join(str(e).split())
    return ""


@lru_cache(maxsize=1)
def _validation_context() -> ir.Context:
    return ir.Context()
