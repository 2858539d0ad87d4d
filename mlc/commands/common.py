"""Argument parsing shared by the sub-commands."""

from __future__ import annotations

import argparse
import re

_SHAPE = re.compile(r"\s*([^\s:][^:]*?)\s*:\s*\[([^\]]*)\]\s*")


def parse_input_shapes(text: str) -> dict[str, list[int]]:
    """`"data:[1,3,224,224] mask:[1,128]"` -> {"data": [1, 3, 224, 224], "mask": [1, 128]}.

    Names may contain any character but ':'; entries are separated by spaces or commas.
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
        try:
            dims = [int(d) for d in m.group(2).split(",") if d.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"dims of '{m.group(1)}' must be integers: [{m.group(2)}]"
            ) from None
        if any(d < 0 for d in dims):
            raise argparse.ArgumentTypeError(f"dims of '{m.group(1)}' must be non-negative")
        out[m.group(1)] = dims
        pos = m.end()
    return out
