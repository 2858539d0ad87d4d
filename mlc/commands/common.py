"""Argument parsing shared by the sub-commands."""

from __future__ import annotations

import argparse
import contextlib
import re
from collections.abc import Callable, Iterator

from mlc.errors import InputShapeError, MlcError

# A name (anything, ':' included, e.g. TF's `input:0`; not starting with a separator), then the
# last ':' before a '[': the shortest name that is followed by `:[` wins.
_SHAPE = re.compile(r"\s*([^\s,\[\]][^\[\]]*?)\s*:\s*\[([^\]]*)\]\s*")


class UsageError(MlcError):
    """Flags that do not go together, or a flag that would be ignored (exit status 1)."""


def parse_input_shapes(text: str) -> dict[str, list[int | str]]:
    """`"data:[1,3,224,224] mask:[1,128]"` -> {"data": [1, 3, 224, 224], "mask": [1, 128]}.

    Entries are separated by spaces or commas; a name may contain ':' (`"input:0:[1,3]"`).
    A dim may be a range `lo..hi` (`lo..`: no upper bound), kept as the string `"lo..hi"`: the
    model's dynamic dim there stays symbolic, within those bounds (`"ids:[1..8,1..512]"`).
    """
    out: dict[str, list[int]] = {}
    pos = 0
    while pos < len(text):
        if text[pos] in ", ":
            pos += 1
            continue
        m = _SHAPE.match(text, pos)
        if not m:
            raise argparse.ArgumentTypeError(
                f"cannot parse input shapes at '{text[pos:]}': expected name:[d0,d1,...]"
            )
        name = m.group(1)
        try:
            dims = [_dim(d) for d in m.group(2).split(",") if d.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"dims of '{name}' must be integers or ranges lo..hi: [{m.group(2)}]"
            ) from None
        if any(isinstance(d, int) and d < 0 for d in dims):
            raise argparse.ArgumentTypeError(f"dims of '{name}' must be non-negative")
        if name in out:
            raise argparse.ArgumentTypeError(f"input '{name}' is given twice")
        out[name] = dims
        pos = m.end()
    if not out:
        raise argparse.ArgumentTypeError("no input shapes given; expected name:[d0,d1,...]")
    return out


_RANGE = re.compile(r"\s*(\d+)\s*\.\.\s*(\d*)\s*")


def _dim(text: str) -> int | str:
    """A size, or a range `lo..hi` / `lo..` normalized (ValueError: neither, or empty)."""
    m = _RANGE.fullmatch(text)
    if m is None:
        return int(text)
    if m[2] and int(m[2]) < int(m[1]):
        raise argparse.ArgumentTypeError(f"the range {text.strip()} is empty ({m[1]} > {m[2]})")
    return f"{int(m[1])}..{int(m[2]) if m[2] else ''}"


def sizes_only(shapes: dict[str, list[int | str]] | None, flag: str) -> dict[str, list[int]]:
    """`shapes` when every dim is a size; UsageError naming `flag` for a range."""
    for name, dims in (shapes or {}).items():
        ranges = [d for d in dims if isinstance(d, str)]
        if ranges:
            raise UsageError(
                f"{flag} takes sizes here, not ranges: '{name}' has {', '.join(ranges)}"
            )
    return shapes or {}  # type: ignore[return-value]


@contextlib.contextmanager
def blaming_input_shapes() -> Iterator[None]:
    """Input-shape errors of the library name the flag that gave the shapes."""
    try:
        yield
    except InputShapeError as e:
        if "--input-shapes" in str(e):
            raise
        raise InputShapeError(f"--input-shapes: {e}") from None


def _bounded(kind: type, low: float, inclusive: bool) -> Callable[[str], float]:
    word = "a number" if kind is float else "an integer"
    bound = f">= {low:g}" if inclusive else f"> {low:g}"

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {word} {bound}, got '{text}'") from None
        if value < low or (value == low and not inclusive) or value != value:  # NaN
            raise argparse.ArgumentTypeError(f"must be {bound}, got {text}")
        return value

    return parse


positive_int = _bounded(int, 1, True)
positive_float = _bounded(float, 0, False)
non_negative_int = _bounded(int, 0, True)
non_negative_float = _bounded(float, 0, True)
