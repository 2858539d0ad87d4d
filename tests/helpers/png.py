"""Reading what a test needs from a PNG (no image library): size and the tEXt 'Title'."""

from __future__ import annotations

import pathlib
import struct

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_info(path: pathlib.Path) -> tuple[int, int, str | None]:
    """Width, height and the 'Title' text chunk of a PNG, read chunk by chunk (AssertionError
    for a file that is not a whole PNG)."""
    data = path.read_bytes()
    assert data[:8] == SIGNATURE, f"{path} is not a PNG"
    pos, size, title, ended = 8, (0, 0), None, False
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"tEXt" and body.startswith(b"Title\0"):
            title = body[6:].decode("latin-1")
        ended = kind == b"IEND"
        pos += 12 + length
    assert ended, f"{path} has no IEND chunk (truncated)"
    return size[0], size[1], title
