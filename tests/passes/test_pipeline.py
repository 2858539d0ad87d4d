"""The pipeline grammar: parse -> print -> parse round trip, typed options, positioned errors."""

from __future__ import annotations

import dataclasses
from typing import ClassVar, Literal

import pytest

from mlc.errors import PassOptionError, PipelineParseError
from mlc.passes.base import ModulePass, PassContext
from mlc.passes.pipeline import parse_pipeline


@dataclasses.dataclass(frozen=True)
class _TypedPass(ModulePass):
    """A pass with one option of every supported type."""

    name: ClassVar[str] = "typed-test-pass"

    count: int = 4
    """An int."""
    ratio: float = 0.5
    """A float."""
    flag: bool = False
    """A bool."""
    label: str = "x"
    """A string."""
    sizes: tuple[int, ...] = (8, 32)
    """A list of ints."""
    mode: Literal["fast", "exact"] = "fast"
    """A choice."""
    limit: int | None = None
    """An optional int."""

    def run(self, module: object, ctx: PassContext) -> None:  # pragma: no cover - never run
        pass


@pytest.mark.parametrize(
    "text",
    [
        "builtin.module(graph-verify)",
        "builtin.module(graph-verify,func.func(canonicalize,cse),mlc-dce)",
        "builtin.module(func.func(canonicalize{max-iterations=3 region-simplify=disabled}))",
        "builtin.module()",
        "builtin.module(func.func(cse),func.func(cse))",
        "builtin.module(convert-linalg-to-loops,lower-affine,convert-scf-to-cf)",
    ],
)
def test_round_trip(text: str) -> None:
    p = parse_pipeline(text)
    assert str(p) == text
    assert parse_pipeline(str(p)) == p


def test_whitespace_is_canonicalized() -> None:
    p = parse_pipeline("  builtin.module( graph-verify ,  func.func( cse ) )  ")
    assert str(p) == "builtin.module(graph-verify,func.func(cse))"


def test_typed_options_parse_and_print() -> None:
    raw = {
        "count": "7",
        "ratio": "0.25",
        "flag": None,
        "label": '"a b"',
        "sizes": "1,2,3",
        "mode": "exact",
        "limit": "9",
    }
    p = _TypedPass.from_options(raw)
    assert p == _TypedPass(7, 0.25, True, "a b", (1, 2, 3), "exact", 9)
    expected = 'typed-test-pass{count=7 ratio=0.25 flag=true label="a b" sizes=1,2,3 mode=exact'
    assert str(p) == expected + " limit=9}"
    assert str(_TypedPass()) == "typed-test-pass"


@pytest.mark.parametrize(
    "raw, message",
    [
        ({"count": "seven"}, "invalid value 'seven' for option 'count' (expected int)"),
        ({"flag": "maybe"}, "expected true or false"),
        ({"mode": "slow"}, "expected one of fast, exact"),
        ({"sizes": "1,x"}, "for option 'sizes' (expected list of int)"),
        ({"nope": "1"}, "unknown option 'nope'"),
    ],
)
def test_bad_options(raw: dict[str, str], message: str) -> None:
    with pytest.raises(PassOptionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _TypedPass.from_options(raw)


@pytest.mark.parametrize(
    "text, pos, message",
    [
        ("builtin.module(graph-verfy)", 15, "did you mean 'graph-verify'"),
        ("builtin.module(cse", 18, "expected ')'"),
        ("builtin.module(cse))", 19, "unexpected ')'"),
        ("cse", 0, "must name the op it runs on"),
        ("", 0, "empty pass pipeline"),
        ("builtin.module(func.func(mlc-dce))", 25, "cannot be nested in func.func(...)"),
        ("builtin.module(mlc-dce{x=1})", 15, "unknown option 'x'"),
        ("builtin.module(mlc-dce{x=1 x=2})", 15, "option 'x' is given twice"),
        ("builtin.module(cse,,cse)", 19, "expected a pass or operation name"),
        ("builtin.module(canonicalize{max-iterations=zz})", 15, "upstream pass 'canonicalize'"),
        ('builtin.module(cse{a="unterminated})', 21, "unterminated string"),
    ],
)
def test_errors_have_positions(text: str, pos: int, message: str) -> None:
    with pytest.raises(PipelineParseError) as info:
        parse_pipeline(text)
    assert info.value.pos == pos
    assert message in info.value.reason
    assert str(info.value).splitlines()[2].index("^") == pos + 2
