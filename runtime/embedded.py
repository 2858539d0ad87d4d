"""The manifest a compiled library carries inside itself, and the digest that seals the file.

Every object and shared library mlc writes defines one constant data symbol,
`_mlc_manifest_<entry>` (distinct per entry, so that several models link into one program):

    b"MLCMANI1"       8 bytes: magic and record version
    digest            32 bytes: sha256 of the whole file with these 32 bytes zeroed
    manifest          UTF-8 JSON (`Manifest.to_json()`, params_sha256 included)

`record_global` is the record as an op that `CompiledLibrary` adds to the LLVM-dialect module
before code generation; `seal` writes the digest into the finished file (the linker copies an
object's record into the library, which is then sealed again). `read_sealed` checks a file
*before* anything loads it: a flipped byte or a truncation anywhere in the library changes its
digest, and a damaged library can crash the process inside dlopen. The manifest it returns is
the truth about the code; a `manifest.json` or params file beside it must agree with it.
"""

from __future__ import annotations

import hashlib
import pathlib

from mlc.contract import Manifest, ManifestError
from mlc.errors import MlcError
from mlc.runtime.elf import ElfError, ElfFile, Symbol, read_elf

MAGIC = b"MLCMANI1"
SYMBOL_PREFIX = "_mlc_manifest_"
_DIGEST = slice(len(MAGIC), len(MAGIC) + 32)


class LibraryIntegrityError(MlcError):
    """A library whose content does not match its seal, or that carries no mlc manifest."""


def record_symbol(entry: str) -> str:
    return SYMBOL_PREFIX + entry


def record_global(manifest: Manifest) -> str:
    """The record as an `llvm.mlir.global` op (text), digest zeroed, for the LLVM module."""
    payload = MAGIC + bytes(32) + manifest.to_json().encode()
    printable = set(range(0x20, 0x7F)) - {ord('"'), ord("\\")}
    literal = "".join(chr(b) if b in printable else f"\\{b:02X}" for b in payload)
    return (
        f'llvm.mlir.global external constant @{record_symbol(manifest.entry)}("{literal}") '
        f"{{addr_space = 0 : i32}} : !llvm.array<{len(payload)} x i8>"
    )


def _record(elf: ElfFile) -> Symbol:
    found = elf.symbols(SYMBOL_PREFIX)
    if not found:
        raise LibraryIntegrityError(
            f"{elf.name} carries no mlc manifest: it was not written by this version of "
            "mlc (or not by mlc at all); compile the model again"
        )
    if len(found) > 1:
        names = ", ".join(sorted(s.name[len(SYMBOL_PREFIX) :] for s in found))
        raise LibraryIntegrityError(
            f"{elf.name} holds several mlc models (entries {names}); load a library that "
            "`mlc compile` wrote for one model"
        )
    symbol = found[0]
    if symbol.size < _DIGEST.stop or elf.data[symbol.offset : symbol.offset + 8] != MAGIC:
        raise LibraryIntegrityError(f"{elf.name}: its manifest record is damaged")
    return symbol


def _digest(elf: ElfFile, symbol: Symbol) -> bytes:
    data = bytearray(elf.data)
    start = symbol.offset + _DIGEST.start
    data[start : start + 32] = bytes(32)
    return hashlib.sha256(data).digest()


def seal(path: pathlib.Path) -> None:
    """Write the digest of `path` (an object or library with one manifest record) into it."""
    elf = read_elf(path)
    symbol = _record(elf)
    with open(path, "r+b") as f:
        f.seek(symbol.offset + _DIGEST.start)
        f.write(_digest(elf, symbol))


def read_sealed(path: pathlib.Path, shown: str | None = None) -> Manifest:
    """The manifest embedded in `path`, after checking the file against its digest.
    Reads the file only (no dlopen). Errors name the file as `shown` (default: the path)."""
    name = shown or str(path)
    try:
        elf = read_elf(path)
        elf.name = name
        symbol = _record(elf)
    except ElfError as e:
        raise LibraryIntegrityError(f"{e}; it is not a loadable mlc library") from None
    record = elf.data[symbol.offset : symbol.offset + symbol.size]
    if _digest(elf, symbol) != record[_DIGEST]:
        raise LibraryIntegrityError(
            f"{name} is damaged: its bytes do not match the digest it was sealed with "
            "(modified or truncated after mlc wrote it); compile the model again"
        )
    try:
        manifest = Manifest.from_json(record[_DIGEST.stop :].decode("utf-8"))
    except (UnicodeDecodeError, ManifestError) as e:
        raise LibraryIntegrityError(f"{name}: its embedded manifest is unreadable: {e}") from None
    if record_symbol(manifest.entry) != symbol.name:
        raise LibraryIntegrityError(
            f"{name}: its manifest names the entry '{manifest.entry}' but is stored as "
            f"{symbol.name}"
        )
    return manifest


def embedded_params_offset(path: pathlib.Path, manifest: Manifest) -> int | None:
    """The file offset of the params blob a library built with --embed-params carries
    (`<entry>_embedded_params`), None if it has none."""
    try:
        elf = read_elf(path)
    except ElfError as e:
        raise LibraryIntegrityError(f"{e}; it is not a loadable mlc library") from None
    name = f"{manifest.entry}_embedded_params"
    found = [s for s in elf.symbols(name) if s.name == name]
    return found[0].offset if found else None
