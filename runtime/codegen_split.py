"""Split an LLVM-dialect module into units that LLVM can compile separately (and in parallel).

    units = split_units(module, key="...")   # [entry unit, kernel unit, kernel unit, ...]

Kernels (defined functions of local linkage) go into kernel units: a module holding a kernel
(or a few consecutive small ones), copies of the local helpers and constants they use, and
declarations of the rest. Each kernel is renamed after a digest of its text and of what it
uses (`<name>_<16 hex>`, hidden visibility), so equal kernels get equal names and objects (the
object cache's key is the unit's digest) and two models loaded in one process cannot mix
theirs up. The entry unit is the module without the kernels, calling them
through declarations. Units are compiled one ExecutionEngine each and linked together; kernels
were not inlined into the entry before (each is an OpenMP region or a large loop nest), so the
code of each function is what one engine for the whole module generates.

The split works on the module's printed form, whose top-level operations start at an indent of
two spaces: every top-level op is one chunk of lines, and symbol uses are `@name` tokens.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from mlir import ir

_SYMBOL = re.compile(r'@("(?:[^"\\]|\\.)*"|[A-Za-z_$.][\w$.-]*)')
_HEAD = re.compile(r"^  ([\w.]+)(?: (\w+))*? ?@")
_LOCAL = {"internal", "private"}
_COPYABLE = _LOCAL | {"linkonce", "linkonce_odr", "weak_odr"}
_PLACEHOLDER = "__mlc_unit_kernel__"
GROUP_CHARS = 150_000
"""Least text per kernel unit (ResNet-50: 10-250 kB per kernel, 90 kB on average)."""


@dataclass(frozen=True)
class Unit:
    """One module to compile alone."""

    label: str
    """What the unit holds, for messages: the kernel's name in the module, or 'entry'."""
    text: str
    """A standalone LLVM-dialect module."""
    lookup: str
    """A function of external linkage whose lookup compiles the unit."""
    externals: tuple[str, ...]
    """Symbols the unit uses that another unit defines (resolved when the units are linked)."""
    digest: str
    """sha256 of the unit text and the key: the object cache's key."""


@dataclass
class _Chunk:
    op: str  # llvm.func, llvm.mlir.global, omp.declare_reduction, ...
    name: str
    linkage: str
    text: str
    defined: bool
    refs: set[str]
    constant: bool


def _chunks(text: str) -> tuple[str, str, list[_Chunk], str]:
    """(header lines before `module`, the module line, top-level chunks, closing line)."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("module"))
    end = max(i for i, line in enumerate(lines) if line.startswith("}"))
    chunks: list[list[str]] = []
    for line in lines[start + 1 : end]:
        # a top-level op starts at an indent of two with its name; block labels ("  ^bb1:")
        # and closing braces ("  }", "  } combiner {") at that indent continue it
        if line.startswith("  ") and (line[2].isalpha() or line[2] == '"') or not chunks:
            chunks.append([line])
        else:
            chunks[-1].append(line)
    parsed = []
    for chunk in chunks:
        body = "".join(chunk)
        m = _HEAD.match(chunk[0])
        names = _SYMBOL.findall(chunk[0])
        op = m.group(1) if m else chunk[0].split()[0]
        name = names[0] if m and names else ""
        words = chunk[0][: chunk[0].find("@")].split()[1:] if m else []
        linkage = next((w for w in words if w in _COPYABLE or w == "external"), "external")
        defined = op != "llvm.func" or chunk[0].rstrip().endswith("{")
        refs = set(_SYMBOL.findall(body)) - {name}
        parsed.append(_Chunk(op, name, linkage, body, defined, refs, "constant" in words))
    return "".join(lines[:start]), lines[start], parsed, "".join(lines[end:])


def _declaration(op: ir.Operation, name: str) -> str:
    """A hidden external declaration of the function or global `op` under `name`."""
    attrs = op.attributes
    if op.name == "llvm.func":
        extra = "".join(
            f", {k} = {attrs[k]}" for k in ("arg_attrs", "res_attrs", "CConv") if k in attrs
        )
        return (
            f'  "llvm.func"() <{{function_type = {attrs["function_type"]}, linkage = '
            f'#llvm.linkage<external>, sym_name = "{name}", visibility_ = 1 : i64{extra}}}> '
            "({}) : () -> ()\n"
        )
    space = attrs["addr_space"] if "addr_space" in attrs else "0 : i32"
    kind = "constant " if "constant" in attrs else ""
    global_type = ir.TypeAttr(attrs["global_type"]).value
    return f"  llvm.mlir.global external {kind}@{name}() {{addr_space = {space}}} : {global_type}\n"


def _rename(text: str, renames: dict[str, str]) -> str:
    if not renames:
        return text
    return _SYMBOL.sub(lambda m: "@" + renames.get(m.group(1), m.group(1)), text)


def split_units(module: ir.Module, key: str) -> list[Unit]:
    """The entry unit first, then one unit per kernel; [] when the module has no kernel to split
    off. `key` (target, LLVM version, options) goes into every digest."""
    text = module.operation.get_asm(assume_verified=True)
    header, module_line, chunks, closing = _chunks(text)
    by_name = {c.name: c for c in chunks if c.name}
    ops = {
        ir.StringAttr(op.operation.attributes["sym_name"]).value: op.operation
        for op in module.body.operations
        if "sym_name" in op.operation.attributes
    }
    callers: dict[str, set[str]] = {}
    for c in chunks:
        for r in c.refs:
            callers.setdefault(r, set()).add(c.name)
    kernels = [
        c
        for c in chunks
        if c.op == "llvm.func" and c.defined and c.linkage in _LOCAL and c.name in callers
    ]
    # a kernel some other kernel calls stays with its callers (copied into their units)
    kernel_names = {c.name for c in kernels}
    kernels = [c for c in kernels if not callers[c.name] & kernel_names]
    if not kernels:
        return []
    pieces: list[_Piece] = []
    renames: dict[str, str] = {}
    for kernel in kernels:
        piece = _kernel_piece(kernel, by_name, ops, key)
        if piece is None:
            continue
        renames[kernel.name] = piece.name
        if all(p.name != piece.name for p in pieces):  # equal kernels: one copy
            pieces.append(piece)
    units = _group(pieces, header, key)
    if not units:
        return []
    kept = [c.text for c in chunks if c.name not in renames]
    # equal kernels share one name: declared once
    first = {new: old for old, new in reversed(list(renames.items()))}
    decls = [_declaration(ops[old], new) for new, old in first.items()]
    entry_text = header + module_line + "".join(decls) + _rename("".join(kept), renames) + closing
    entry = ops.get(_entry_name(chunks))
    if entry is None:
        return []
    entry_digest = hashlib.sha256((key + "\n" + entry_text).encode()).hexdigest()
    head = Unit(
        "entry", entry_text, _entry_name(chunks), tuple(sorted(set(renames.values()))), entry_digest
    )
    return [head, *units]


def _entry_name(chunks: list[_Chunk]) -> str:
    """The external function that carries the C interface (its packed wrapper is looked up)."""
    for c in chunks:
        if c.op == "llvm.func" and c.defined and c.linkage == "external":
            if "llvm.emit_c_interface" in c.text.split("\n", 1)[0]:
                return c.name
    return next(c.name for c in chunks if c.op == "llvm.func" and c.defined)


@dataclass(frozen=True)
class _Piece:
    """One kernel, renamed, with what its unit must hold besides it."""

    label: str
    name: str
    text: str
    deps: tuple[str, ...]  # declarations and copied local chunks, in a fixed order
    externals: tuple[str, ...]


def _group(pieces: list[_Piece], header: str, key: str) -> list[Unit]:
    """Consecutive kernels in units of at least GROUP_CHARS of text: an engine per unit costs
    10-20 ms, which small kernels (DenseNet's BN-ReLU, pools) would not pay back."""
    units: list[Unit] = []
    group: list[_Piece] = []
    size = 0
    for n, piece in enumerate(pieces):
        group.append(piece)
        size += len(piece.text)
        if size < GROUP_CHARS and n + 1 < len(pieces):
            continue
        deps = list(dict.fromkeys(d for p in group for d in p.deps))
        text = header + "module {\n" + "".join(deps) + "".join(p.text for p in group) + "}\n"
        digest = hashlib.sha256((key + "\n" + text).encode()).hexdigest()
        label = group[0].label + (f" (and {len(group) - 1} more kernels)" if len(group) > 1 else "")
        externals = tuple(sorted({e for p in group for e in p.externals}))
        units.append(Unit(label, text, group[0].name, externals, digest))
        group, size = [], 0
    return units


def _kernel_piece(
    kernel: _Chunk,
    by_name: dict[str, _Chunk],
    ops: dict[str, ir.Operation],
    key: str,
) -> _Piece | None:
    """One kernel ready for a unit, or None when it uses something it cannot take along."""
    body: list[str] = []
    decls: list[str] = []
    externals: list[str] = []
    seen = {kernel.name}
    todo = sorted(kernel.refs)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        dep = by_name.get(name)
        if dep is None:
            return None  # a symbol that is no top-level op (nested symbol tables)
        if dep.op == "llvm.func" and not dep.defined:
            decls.append(dep.text)
        elif dep.op == "llvm.mlir.global" and dep.linkage in _COPYABLE and not dep.constant:
            return None  # state the entry shares (a copy would be another variable)
        elif dep.linkage in _COPYABLE or dep.op not in ("llvm.func", "llvm.mlir.global"):
            body.append(dep.text)
            todo.extend(sorted(dep.refs))
        elif dep.name in ops:
            decls.append(_declaration(ops[dep.name], dep.name))
            externals.append(dep.name)
        else:
            return None
    base = re.sub(r"_\d+$", "", kernel.name.strip('"')) or "kernel"
    own = _rename(kernel.text, {kernel.name: _PLACEHOLDER})
    local = f"llvm.func {kernel.linkage} @{_PLACEHOLDER}("
    if local not in own:
        return None
    own = own.replace(local, f"llvm.func hidden @{_PLACEHOLDER}(", 1)
    deps = tuple(decls + body)
    digest = hashlib.sha256((key + "\n" + base + "\n" + "".join(deps) + own).encode()).hexdigest()
    name = f"{base}_{digest[:16]}"
    return _Piece(
        kernel.name, name, own.replace(f"@{_PLACEHOLDER}", f"@{name}"), deps, tuple(externals)
    )
