"""Seeded mutators: bytes (libFuzzer's classic moves), `.mlir` text and pipeline strings (token
aware, so that most mutants still parse and reach the passes instead of dying in the lexer).

Every mutator takes a `random.Random` and returns a new value; the same seed gives the same
mutants, so a finding is reproduced from (target, seed, iteration) alone.
"""

from __future__ import annotations

import random
import re

INTERESTING_INTS = (
    0, 1, -1, 2, 3, 7, 8, 16, 127, 128, 255, 256, 1023, 4096, 65535, 65536,
    2**31 - 1, 2**31, -(2**31), 2**32, 2**40, 2**62, 2**63 - 1, 2**63, -(2**63), 2**64,
)  # fmt: skip
INTERESTING_FLOATS = ("0.0", "-0.0", "1e308", "-1e308", "1e-45", "nan", "inf", "-inf", "0.5")


def mutate_bytes(rng: random.Random, data: bytes, others: list[bytes] | None = None) -> bytes:
    """1 to 4 byte-level edits: bit flips, random or boundary values, chunk deletion,
    insertion, duplication, splicing with another input, truncation."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        move = rng.randrange(9)
        n = len(buf)
        if n == 0:
            buf += rng.randbytes(rng.randint(1, 16))
            continue
        at = rng.randrange(n)
        if move == 0:
            buf[at] ^= 1 << rng.randrange(8)
        elif move == 1:
            buf[at] = rng.randrange(256)
        elif move == 2:
            width = rng.choice((1, 2, 4, 8))
            value = rng.choice(INTERESTING_INTS) % (1 << (8 * width))
            order = rng.choice(("little", "big"))
            buf[at : at + width] = value.to_bytes(width, order)
        elif move == 3:
            del buf[at : at + rng.randint(1, max(1, min(64, n // 8)))]
        elif move == 4:
            buf[at:at] = rng.randbytes(rng.randint(1, 16))
        elif move == 5:
            size = rng.randint(1, max(1, min(256, n - at)))
            buf[at:at] = buf[at : at + size]
        elif move == 6 and others:
            other = rng.choice(others)
            if other:
                start = rng.randrange(len(other))
                buf[at:] = other[start : start + rng.randint(1, len(other) - start)]
        elif move == 7:
            del buf[at:]
        else:
            buf[at] = rng.choice(b"\x00\xff\x7f\x80 \n{}<>()[]\"'%@,:=x-.0123456789")
    return bytes(buf)


_MLIR_TOKEN = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|[%@#^!]?[A-Za-z_][\w.$-]*|\s+|.", re.S)


def mutate_mlir(rng: random.Random, text: str) -> str:
    """Token-level edits of MLIR text: a number to a boundary value (tensor dims, attribute
    values, indices), an identifier to another of the same file (SSA values, types, op names,
    attribute keys), a token or line deleted, duplicated or swapped; now and then a byte edit."""
    if rng.random() < 0.1:
        return mutate_bytes(rng, text.encode()).decode("utf-8", "replace")
    tokens = _MLIR_TOKEN.findall(text)
    words = [t for t in tokens if t[:1].isalpha() or t[:1] in "%@#^!"]
    numbers = [i for i, t in enumerate(tokens) if _is_number(t)]
    for _ in range(rng.randint(1, 3)):
        if not tokens:
            return mutate_bytes(rng, text.encode()).decode("utf-8", "replace")
        move = rng.randrange(6)
        if move <= 1 and numbers:
            i = rng.choice(numbers)
            is_float = "." in tokens[i] or "e" in tokens[i]
            tokens[i] = str(rng.choice(INTERESTING_FLOATS if is_float else INTERESTING_INTS))
        elif move == 2 and words:
            i = rng.randrange(len(tokens))
            if tokens[i][:1].isalpha() or tokens[i][:1] in "%@#^!":
                tokens[i] = rng.choice(words)
        elif move == 3 and tokens:
            del tokens[rng.randrange(len(tokens))]
        else:
            lines = "".join(tokens).split("\n")
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            if move == 4:
                lines.insert(a, lines[b])
            elif rng.random() < 0.5:
                lines[a], lines[b] = lines[b], lines[a]
            else:
                del lines[a]
            tokens = _MLIR_TOKEN.findall("\n".join(lines))
            numbers = [i for i, t in enumerate(tokens) if _is_number(t)]
    return "".join(tokens)


def _is_number(token: str) -> bool:
    return token[:1].isdigit() or (token[:1] == "-" and token[1:2].isdigit())


_PIPE_TOKEN = re.compile(r"[A-Za-z_][\w.-]*|-?\d+|\s+|.", re.S)


def mutate_pipeline(rng: random.Random, text: str, pass_names: list[str]) -> str:
    """Edits of a textual pass pipeline: a pass name to another registered one, an option
    value to a boundary value or a word, an option block added, a token deleted or repeated,
    brackets unbalanced; now and then a byte edit."""
    if rng.random() < 0.1:
        return mutate_bytes(rng, text.encode()).decode("utf-8", "replace")
    tokens = _PIPE_TOKEN.findall(text)
    for _ in range(rng.randint(1, 3)):
        if not tokens:
            tokens = ["builtin.module", "("]
        i = rng.randrange(len(tokens))
        move = rng.randrange(7)
        tok = tokens[i]
        if move == 0 and tok[:1].isalpha():
            tokens[i] = rng.choice(pass_names)
        elif move == 1 and _is_number(tok):
            tokens[i] = str(rng.choice(INTERESTING_INTS))
        elif move == 2:
            key = rng.choice(["max-trip-count", "tile", "factor", "num-workers", "x", "size"])
            value = rng.choice([*map(str, INTERESTING_INTS[:8]), "true", "abc", "{}", "1,2"])
            tokens.insert(i, f"{{{key}={value}}}")
        elif move == 3:
            del tokens[i]
        elif move == 4:
            tokens.insert(i, tok)
        elif move == 5:
            tokens.insert(i, rng.choice("(){},="))
        else:
            tokens.insert(i, "," + rng.choice(pass_names))
    return "".join(tokens)
