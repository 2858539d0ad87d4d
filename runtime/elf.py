"""Just enough ELF to find a data symbol's bytes in a file without loading it.

A corrupted shared library can crash the process inside dlopen, so what mlc needs from a
library before loading it (its embedded manifest record, see `embedded.py`) is read from the
file: the section headers, the symbol tables (`.symtab`, or `.dynsym` of a stripped library)
and the bytes a symbol covers. 64-bit little-endian ELF only (x86-64, AArch64); every offset
is bounds-checked, and anything malformed is an `ElfError` naming the file.
"""

from __future__ import annotations

import pathlib
import struct
from dataclasses import dataclass

from mlc.errors import MlcError

_SHT_SYMTAB, _SHT_DYNSYM, _SHT_NOBITS = 2, 11, 8
_SHN_LORESERVE = 0xFF00


class ElfError(MlcError):
    """A file that is not a well-formed 64-bit little-endian ELF object or library."""


@dataclass(frozen=True)
class _Section:
    type: int
    addr: int
    offset: int
    size: int
    link: int
    entsize: int


@dataclass(frozen=True)
class Symbol:
    name: str
    offset: int
    """Where the symbol's bytes start in the file."""
    size: int


class ElfFile:
    """An ELF image held in memory (`data`), with its symbols located in the file."""

    def __init__(self, data: bytes, name: str) -> None:
        self.data = data
        self.name = name
        if len(data) < 64 or data[:4] != b"\x7fELF":
            raise ElfError(f"{name} is not an ELF file (a shared library or object)")
        if data[4] != 2 or data[5] != 1:
            raise ElfError(f"{name} is not a 64-bit little-endian ELF file")
        (shoff,) = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
        if shentsize != 64 or shnum == 0 or shoff + shnum * 64 > len(data):
            raise ElfError(f"{name}: the ELF section headers are damaged or truncated")
        self.sections = [self._section(shoff + 64 * i) for i in range(shnum)]

    def _section(self, at: int) -> _Section:
        sh_type, _flags, addr, offset, size, link, _info, _align, entsize = self._unpack(
            "<4xIQQQQIIQQ", at, "a section header"
        )
        return _Section(sh_type, addr, offset, size, link, entsize)

    def _unpack(self, fmt: str, offset: int, what: str) -> tuple[int, ...]:
        if offset < 0 or offset + struct.calcsize(fmt) > len(self.data):
            raise ElfError(f"{self.name}: {what} lies outside the file (truncated?)")
        return struct.unpack_from(fmt, self.data, offset)

    def symbols(self, prefix: str) -> list[Symbol]:
        """Defined symbols whose name starts with `prefix`, from .symtab, else .dynsym."""
        tables = [s for s in self.sections if s.type == _SHT_SYMTAB] or [
            s for s in self.sections if s.type == _SHT_DYNSYM
        ]
        found: dict[str, Symbol] = {}
        for table in tables:
            if table.entsize != 24 or table.link >= len(self.sections):
                raise ElfError(f"{self.name}: a symbol table is damaged")
            strings = self.sections[table.link]
            if table.offset + table.size > len(self.data):
                raise ElfError(f"{self.name}: a symbol table lies outside the file (truncated?)")
            for at in range(table.offset, table.offset + table.size - 23, 24):
                name_off, _info, _other, shndx, value, size = self._unpack(
                    "<IBBHQQ", at, "a symbol"
                )
                name = self._string(strings, name_off)
                if not name.startswith(prefix) or shndx == 0 or shndx >= _SHN_LORESERVE:
                    continue
                found[name] = self._locate(name, shndx, value, size)
        return list(found.values())

    def _string(self, table: _Section, offset: int) -> str:
        start = table.offset + offset
        if offset >= table.size or start >= len(self.data):
            raise ElfError(f"{self.name}: a symbol name lies outside its string table")
        end = self.data.find(b"\0", start, table.offset + table.size)
        if end < 0:
            raise ElfError(f"{self.name}: an unterminated symbol name")
        return self.data[start:end].decode("utf-8", "replace")

    def _locate(self, name: str, shndx: int, value: int, size: int) -> Symbol:
        if shndx >= len(self.sections):
            raise ElfError(f"{self.name}: symbol {name} names a missing section")
        section = self.sections[shndx]
        inside = value - section.addr
        if section.type == _SHT_NOBITS or inside < 0 or inside + size > section.size:
            raise ElfError(f"{self.name}: symbol {name} lies outside its section")
        offset = section.offset + inside
        if offset + size > len(self.data):
            raise ElfError(f"{self.name}: symbol {name} lies outside the file (truncated?)")
        return Symbol(name, offset, size)


def read_elf(path: pathlib.Path) -> ElfFile:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ElfError(f"cannot read {path}: {e.strerror or e}") from None
    return ElfFile(data, str(path))
