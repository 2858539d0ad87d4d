"""Library kernels: a graph calls a C function from the user's shared library (the course's
"environment library functions"), destination-passing like a tp kernel.

The function receives one pointer per buffer, the inputs in order and then the output, each to
the first element of a dense row-major array of the static shapes the graph gives it:

    void my_add(const float *a, const float *b, float *out);

The library is recorded in the module (`mlc.libraries`, see mlc/contract.py): the runtime loads
it for the JIT, links exported libraries against it and bundles it in packages.
"""

from __future__ import annotations

import os
import pathlib
import re
from collections.abc import Sequence

from mlir import ir

from mlc.contract import LIBRARIES_ATTR, is_c_identifier

from .dtypes import mlir_type
from .graph_call import CallError, _call_impl, _fresh, _module_of

_LIB_NAME = re.compile(r"lib([A-Za-z0-9_+-]+)\.so")


def library_name(path: str | os.PathLike[str]) -> str:
    """`.../libfoo.so` -> "foo" (the name it is linked and bundled under); CallError if the file
    is missing or not named lib<name>.so."""
    p = pathlib.Path(path)
    m = _LIB_NAME.fullmatch(p.name)
    if m is None:
        raise CallError(f"library {p} must be named lib<name>.so (it is linked as -l<name>)")
    if not p.is_file():
        raise CallError(f"library {p} does not exist")
    return m[1]


def _impl_text(impl: str, symbol: str, types: list[ir.MemRefType]) -> str:
    """A function on memrefs that calls `symbol` with the address of each buffer's first element."""
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    lines = [f"func.func private @{impl}({args}) {{"]
    for i, t in enumerate(types):
        width = ir.MemRefType(t).element_type
        nbytes = (width.width if isinstance(width, ir.IntegerType) else _float_bits(width)) // 8
        rank = t.rank
        dims = f", %s{i}:{rank}, %t{i}:{rank}" if rank else ""
        index_types = ", ".join(["index"] * (1 + 2 * rank))
        lines += [
            f"  %b{i}, %o{i}{dims} = memref.extract_strided_metadata %a{i} : {t} -> "
            f"memref<{t.element_type}>, {index_types}",
            f"  %p{i} = memref.extract_aligned_pointer_as_index %a{i} : {t} -> index",
            f"  %e{i} = arith.constant {nbytes} : index",
            f"  %d{i} = arith.muli %o{i}, %e{i} : index",
            f"  %q{i} = arith.addi %p{i}, %d{i} : index",
            f"  %w{i} = arith.index_cast %q{i} : index to i64",
            f"  %r{i} = llvm.inttoptr %w{i} : i64 to !llvm.ptr",
        ]
    ptrs = ", ".join(f"%r{i}" for i in range(len(types)))
    sig = ", ".join(["!llvm.ptr"] * len(types))
    lines += [f"  llvm.call @{symbol}({ptrs}) : ({sig}) -> ()", "  return", "}"]
    return "\n".join(lines)


def _float_bits(t: ir.Type) -> int:
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[str(t)]


def call_library(
    symbol: str,
    inputs: Sequence[ir.Value],
    output: tuple[Sequence[int], str],
    library: str | os.PathLike[str],
    *,
    ip: ir.InsertionPoint,
    loc: ir.Location,
    what: str = "call_library",
) -> ir.Value:
    """Call the C function `symbol` of `library` on tensor `inputs` at `ip` (in a graph
    function); `output` is the result's (shape, dtype). Returns the result tensor."""
    if not is_c_identifier(symbol):
        raise CallError(f"{what}: '{symbol}' is not a C function name")
    name = library_name(library)
    module, top = _module_of(ip)
    shape, dtype = output
    with module.context, loc:
        elem = mlir_type(dtype)
        if elem is None or dtype in ("bool", "index"):
            raise CallError(f"{what}: unknown output dtype '{dtype}'")
        out_text = str(ir.RankedTensorType.get(list(shape), elem))
        types = []
        for v in [*inputs, None]:
            t = ir.RankedTensorType(v.type if v is not None else ir.Type.parse(out_text))
            types.append(ir.MemRefType.get(t.shape, t.element_type))
        impl = _fresh(module, f"lib_{symbol}")
        text = _impl_text(impl, symbol, types)
        sig = ", ".join(["!llvm.ptr"] * len(types))
        declared = any(
            o.operation.name == "llvm.func"
            and ir.StringAttr(o.operation.attributes["sym_name"]).value == symbol
            for o in module.regions[0].blocks[0].operations
        )
        if not declared:
            text = f"llvm.func @{symbol}({sig})\n" + text
        parsed = ir.Module.parse(text)  # alive while its ops move
        for op in list(parsed.body.operations):
            op.operation.move_before(top)
        libs = (
            dict((n.name, n.attr) for n in ir.DictAttr(module.attributes[LIBRARIES_ATTR]))
            if LIBRARIES_ATTR in module.attributes
            else {}
        )
        libs[name] = ir.StringAttr.get(str(pathlib.Path(library).resolve()))
        module.attributes[LIBRARIES_ATTR] = ir.DictAttr.get(libs)
        return _call_impl(module, top, symbol, impl, inputs, out_text, ip)
