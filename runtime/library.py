"""`CompiledLibrary`: an LLVM-dialect module + its manifest + its params, and what it turns into.

    lib = CompiledLibrary.from_module(llvm_module, params)          # an LLVM-dialect module
    gm = GraphModule(lib.jit())                                    # in-process JIT
    lib.export_object("m.o"); lib.export_shared("m.so")            # native, manifest inside
    lib.export_library("m.tar")                                    # a package for load_module

An engine that loaded an MLIR runtime library is never destroyed: destroying a second
ExecutionEngine that loaded the async runtime tears down the runtime the others still use, and
the next parallel call segfaults (checked on the pinned stack). Such engines are kept for the
process lifetime. Engines that loaded no library (no runtime_libs; object export) are freed
normally: creating and dropping them next to a live async engine was checked to be safe.
Object export needs the runtime symbols resolvable all the same (see `_resolve_externals`).
"""

from __future__ import annotations

import ctypes
import os
import pathlib
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
from mlir import ir

from mlc import progress
from mlc.contract import (
    LIBRARIES_ATTR,
    MANIFEST_ATTR,
    Manifest,
    ManifestError,
    SourceModel,
    buffer_element_types,
    is_c_identifier,
    params_digest,
    profile_symbol,
)
from mlc.errors import MlcError, ToolError
from mlc.files import atomic_output
from mlc.runtime import embedded, linker
from mlc.runtime.module import CIFACE_PREFIX, JitEntry, RuntimeModule, SharedEntry, check_params
from mlc.runtime.target import host_target
from mlc.runtime.toolchain import OPENMP_LIB, USER_LIBS
from mlc.version import __version__, mlir_version

OPT_LEVEL = 3

_LIVE_ENGINES: list[object] = []
"""Every ExecutionEngine created here that loaded runtime libraries; each is also given an extra
reference so that not even interpreter shutdown destroys it (see the module docstring)."""

_RUNTIME_SYMBOL_PREFIXES = {"mlirAsyncRuntime": "mlir_async_runtime"}
"""Declared (external) functions that come from an MLIR runtime library, by name prefix."""

_PRELOADED: dict[str, ctypes.CDLL] = {}


def _resolve_externals(module: ir.Module, runtime_libs: tuple[str, ...]) -> None:
    """Make the module's external functions resolvable in this process, or raise ToolError.

    The ExecutionEngine resolves declarations against the process when it compiles (for JIT and
    for `dump_to_object_file` alike), and an unresolved one *aborts the process* ("Failed to
    materialize symbols"). So the runtime libraries are loaded RTLD_GLOBAL first (this neither
    registers nor later destroys the async runtime the way `shared_libs=` does), and every
    declaration is then looked up before an engine is created.
    """
    for name in runtime_libs:
        if name not in _PRELOADED:
            _PRELOADED[name] = ctypes.CDLL(
                str(linker.installed_runtime_lib(name)), mode=os.RTLD_GLOBAL
            )
    process = ctypes.CDLL(None)
    missing = []
    for symbol, arity in _llvm_funcs(module).items():
        if arity is None:
            try:
                getattr(process, symbol)
            except AttributeError:
                missing.append(symbol)
    if missing:
        raise ToolError(
            f"the module calls functions that no loaded library defines: "
            f"{', '.join(sorted(missing))}"
        )


def _compile_entry(engine: object, entry: str) -> None:
    """Make the engine compile and link the module now (looking up the entry's packed wrapper),
    or raise ToolError. Code generation may call helpers the module never declares (on x86,
    an f64 -> f16 truncation calls `__truncdfhf2`); if one cannot be resolved, the lookup fails
    and LLVM prints `JIT session error: Symbols not found: [...]` on stderr, which is captured
    for the message (and still shown)."""
    symbol = CIFACE_PREFIX + entry
    with tempfile.TemporaryFile() as captured:
        saved = os.dup(2)
        os.dup2(captured.fileno(), 2)
        try:
            address = engine.raw_lookup(symbol)  # type: ignore[attr-defined]
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        captured.seek(0)
        llvm_says = captured.read().decode(errors="replace").strip()
    if llvm_says:
        print(llvm_says, file=sys.stderr)
    if not address:
        raise ToolError(
            f"JIT compilation failed: the code of {symbol} could not be linked"
            + (f" ({llvm_says})" if llvm_says else "")
            + "; a symbol the generated code needs is not defined in this process"
        )


def _keep_forever(engine: object) -> None:
    _LIVE_ENGINES.append(engine)
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(engine))


@dataclass(frozen=True)
class CompiledLibrary:
    """A module in the LLVM dialect that follows the compiled-module contract."""

    module: ir.Module
    manifest: Manifest
    params: Mapping[str, np.ndarray]

    def __post_init__(self) -> None:
        check_params(self.manifest, self.params)
        digest = params_digest(self.manifest, self.params)
        if self.manifest.params_sha256 is None:
            object.__setattr__(self, "manifest", replace(self.manifest, params_sha256=digest))
        elif self.manifest.params_sha256 != digest:
            raise ManifestError("the params differ from those the manifest records (params_sha256)")

    # -- construction --------------------------------------------------------------------
    @classmethod
    def from_module(
        cls,
        module: ir.Module,
        params: Mapping[str, np.ndarray],
        *,
        pipeline: str | None = None,
        source: SourceModel | None = None,
        entry: str | None = None,
    ) -> CompiledLibrary:
        """Wrap a module already lowered to the LLVM dialect (manifest read from `mlc.manifest`).
        `entry` renames the entry function in `module` (in place) and in the manifest."""
        manifest = read_manifest(module)
        if entry is not None and entry != manifest.entry:
            rename_entry(module, manifest.entry, entry)
            manifest = replace(manifest, entry=entry)
        funcs = _llvm_funcs(module)
        ciface = CIFACE_PREFIX + manifest.entry
        if ciface not in funcs or funcs[ciface] is None:
            present = ", ".join(sorted(n for n, a in funcs.items() if a is not None)) or "none"
            raise ManifestError(
                f"module has no llvm.func @{ciface}: the entry '{manifest.entry}' must carry "
                f"llvm.emit_c_interface and the module must be lowered to the LLVM dialect "
                f"(defined functions: {present})"
            )
        arity = len(manifest.inputs) + len(manifest.outputs) + 2
        if funcs[ciface] != arity:
            raise ManifestError(
                f"@{ciface} takes {funcs[ciface]} arguments; the manifest implies {arity} "
                f"({len(manifest.inputs)} inputs, {len(manifest.outputs)} outputs, params, "
                "workspace)"
            )
        libs = sorted(
            {
                lib
                for name, n_args in funcs.items()
                if n_args is None
                for prefix, lib in _RUNTIME_SYMBOL_PREFIXES.items()
                if name.startswith(prefix)
            }
            | ({OPENMP_LIB} if _uses_openmp(module) else set())
            | _user_libraries(module)
        )
        manifest = manifest.with_build_info(
            pipeline=pipeline if pipeline is not None else manifest.pipeline,
            target=host_target(),
            mlc_version=__version__,
            mlir_version=mlir_version(),
            runtime_libs=tuple(libs),
            source=source if source is not None else manifest.source,
        )
        return cls(module, manifest, dict(params))

    # -- running and exporting ----------------------------------------------------------
    def jit(self) -> RuntimeModule:
        """Compile in process (opt_level 3, host CPU); the engine lives as long as the process."""
        from mlir.execution_engine import ExecutionEngine

        libs = [str(linker.installed_runtime_lib(n)) for n in self.manifest.runtime_libs]
        _resolve_externals(self.module, self.manifest.runtime_libs)
        split = self._jit_split()
        if split is not None:
            return split
        try:
            engine = ExecutionEngine(self.module, opt_level=OPT_LEVEL, shared_libs=libs)
        except RuntimeError as e:
            raise ToolError(f"JIT compilation failed: {e}") from None
        if libs:
            _keep_forever(engine)
        _compile_entry(engine, self.manifest.entry)
        return RuntimeModule(
            self.manifest,
            self.params,
            JitEntry(engine, self.manifest.entry),
            "jit",
            keepalive=(self.module,),
        )

    def _split_objects(self, work: pathlib.Path) -> list[pathlib.Path] | None:
        """The module's code as separately generated objects (`codegen.py`: units compiled on
        every core, cached), or None where it compiles whole (few kernels, no C compiler)."""
        from mlc.runtime.codegen import generate_objects

        if not linker.has_c_compiler():
            return None
        libs = [linker.installed_runtime_lib(n) for n in self.manifest.runtime_libs]
        with progress.stage("generating code by kernel"):
            return generate_objects(self.module, libs, work, OPT_LEVEL)

    def _jit_split(self) -> RuntimeModule | None:
        """jit() through split objects linked into a shared library loaded in this process."""
        libs = self.manifest.runtime_libs
        with tempfile.TemporaryDirectory(prefix="mlc-jit-") as tmp:
            work = pathlib.Path(tmp)
            objects = self._split_objects(work)
            if objects is None:
                return None
            so = work / "model.so"
            rpaths = [str(linker.installed_runtime_lib(n).parent) for n in libs]
            linker.link_shared(objects[0], so, libs, rpaths, objects[1:])
            library = linker.load_shared(so)  # stays mapped once the file is gone
        return RuntimeModule(
            self.manifest,
            self.params,
            SharedEntry(library, self.manifest.entry),
            "jit",
            keepalive=(library,),
        )

    def export_object(self, path: str | pathlib.Path) -> pathlib.Path:
        """Write a position-independent object file (host CPU, opt_level 3) that carries its
        manifest (`embedded.py`), sealed, written under a temporary name and renamed."""
        path = pathlib.Path(path)
        with progress.stage("generating code"), atomic_output(path) as tmp:
            self._object(tmp)
            embedded.seal(tmp)
        return path

    def _object(self, path: pathlib.Path) -> None:
        from mlir.execution_engine import ExecutionEngine

        self._embed_manifest()
        _resolve_externals(self.module, self.manifest.runtime_libs)
        with tempfile.TemporaryDirectory(prefix="mlc-codegen-") as tmp:
            objects = self._split_objects(pathlib.Path(tmp))
            if objects is not None:
                linker.merge_objects(objects, path)
                return
        try:
            engine = ExecutionEngine(self.module, opt_level=OPT_LEVEL, enable_pic=True)
            # Compile before dumping. With an empty object cache, dump_to_object_file compiles by
            # looking up the packed wrapper of *every* defined function; internal-linkage
            # functions (mlc's kernels) have none, and the unhandled llvm::Error aborts the
            # process. Looking up the entry's wrapper compiles the whole module first.
            if not engine.raw_lookup(CIFACE_PREFIX + self.manifest.entry):
                raise ToolError(f"the JIT found no {CIFACE_PREFIX}{self.manifest.entry} to compile")
            engine.dump_to_object_file(str(path))
        except RuntimeError as e:
            raise ToolError(f"object file generation failed: {e}") from None
        del engine  # loaded no runtime library: safe to destroy
        if not path.is_file() or path.stat().st_size == 0:
            raise ToolError(f"ExecutionEngine.dump_to_object_file wrote no object to {path}")

    def _embed_manifest(self) -> None:
        """Add the manifest record global (replacing an earlier one) before code generation."""
        body = self.module.body
        for op in list(body.operations):
            attrs = op.operation.attributes
            if op.operation.name == "llvm.mlir.global" and ir.StringAttr(
                attrs["sym_name"]
            ).value.startswith(embedded.SYMBOL_PREFIX):
                op.operation.erase()
        with self.module.context, ir.Location.unknown():
            body.append(ir.Operation.parse(embedded.record_global(self.manifest)))

    def export_shared(
        self, path: str | pathlib.Path, *, embed_params: bool = False
    ) -> pathlib.Path:
        """Link a `.so` with `cc -shared`, exporting the C API (`capi.py`; `embed_params` puts
        the params blob inside it). It finds the runtime libraries beside itself first (rpath
        $ORIGIN: copy libiomp5.so along with it), then where they are installed now."""
        rpaths = ["$ORIGIN"]
        rpaths += [str(linker.installed_runtime_lib(n).parent) for n in self.manifest.runtime_libs]
        path = pathlib.Path(path)
        with atomic_output(path, executable=True) as tmp:
            self._link(tmp, rpaths, embed_params=embed_params)
        return path

    def export_library(self, path: str | pathlib.Path) -> pathlib.Path:
        """Write a package (.tar): the `.so` (rpath $ORIGIN), manifest.json, params.npz and
        the runtime libraries it needs. `mlc.runtime.load_module` loads it without compiling."""
        from mlc.runtime.package import write_package

        path = pathlib.Path(path)
        with tempfile.TemporaryDirectory(prefix="mlc-export-") as tmp:
            so = self._link(pathlib.Path(tmp) / "model.so", ["$ORIGIN"])
            with progress.stage(f"writing {path}"):
                write_package(path, so, self.manifest, self.params)
        return path

    def _link(
        self, out: pathlib.Path, rpaths: list[str], *, embed_params: bool = False
    ) -> pathlib.Path:
        """Link a sealed shared library at `out`, with the C API."""
        from mlc.runtime import capi
        from mlc.runtime.params_blob import write_params_blob

        with tempfile.TemporaryDirectory(prefix="mlc-link-") as tmp:
            work = pathlib.Path(tmp)
            obj = self.export_object(work / "model.o")
            with progress.stage("linking"):
                blob = None
                if embed_params:
                    blob = work / "params.bin"
                    write_params_blob(blob, self.manifest, self.params)
                extra = capi.build_objects(linker.c_compiler(), self.manifest, work, blob)
                linker.link_shared(obj, out, self.manifest.runtime_libs, rpaths, extra)
                linker.require_symbol(out, CIFACE_PREFIX + self.manifest.entry)
                embedded.seal(out)
        return out


def rename_entry(module: ir.Module, old: str, new: str) -> None:
    """Rename the entry `old` (and its C interface wrapper) to `new` in an LLVM-dialect module."""
    if not is_c_identifier(new):
        raise MlcError(
            f"entry name '{new}' is not a C identifier (letters, digits and '_', "
            "not starting with a digit)"
        )
    funcs = _llvm_funcs(module)
    for name in (new, CIFACE_PREFIX + new):
        if name in funcs:
            raise MlcError(f"entry name '{new}' clashes with the module's function @{name}")
    pairs = [(old, new), (CIFACE_PREFIX + old, CIFACE_PREFIX + new)]
    if _has_symbol(module, f"{old}_num_threads"):  # the thread count (passes/omp_threads.py)
        pairs += [(f"{old}_num_threads", f"{new}_num_threads")]
    if profile_symbol(old) in funcs:  # compiled with kernel timers: their reader follows
        pairs += [(profile_symbol(old), profile_symbol(new))]
        pairs += [(CIFACE_PREFIX + profile_symbol(old), CIFACE_PREFIX + profile_symbol(new))]
    for before, after in pairs:
        for op in module.body.operations:
            attrs = op.operation.attributes
            if "sym_name" in attrs and ir.StringAttr(attrs["sym_name"]).value == before:
                ir.SymbolTable.set_symbol_name(op.operation, after)
        ir.SymbolTable.replace_all_symbol_uses(before, after, module.operation)


def _has_symbol(module: ir.Module, name: str) -> bool:
    for op in module.body.operations:
        attrs = op.operation.attributes
        if "sym_name" in attrs and ir.StringAttr(attrs["sym_name"]).value == name:
            return True
    return False


def read_manifest(module: ir.Module) -> Manifest:
    attrs = module.operation.attributes
    if MANIFEST_ATTR not in attrs:
        raise ManifestError(
            f"module has no '{MANIFEST_ATTR}' attribute: it was not produced by "
            "graph-to-tp (or the attribute was dropped)"
        )
    attr = attrs[MANIFEST_ATTR]
    if not isinstance(attr, ir.StringAttr):
        raise ManifestError(f"'{MANIFEST_ATTR}' must be a string attribute holding JSON")
    return Manifest.from_json(attr.value)


def _uses_openmp(module: ir.Module) -> bool:
    """omp.* ops stay in the LLVM-dialect module; their `__kmpc_*` calls to the OpenMP runtime
    only appear when the module is translated to LLVM IR."""
    found = False

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal found
        if op.name.startswith("omp."):
            found = True
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _user_libraries(module: ir.Module) -> set[str]:
    """The libraries of the module's library kernels (`mlc.libraries`), registered as runtime
    libraries of this process: linked, bundled in packages and loaded before the JIT."""
    attrs = module.operation.attributes
    if LIBRARIES_ATTR not in attrs:
        return set()
    names = set()
    for named in ir.DictAttr(attrs[LIBRARIES_ATTR]):
        path = pathlib.Path(ir.StringAttr(named.attr).value)
        if not path.is_file():
            raise ToolError(f"library {path} (called by a library kernel) does not exist")
        USER_LIBS[named.name] = path
        names.add(named.name)
    return names


def _llvm_funcs(module: ir.Module) -> dict[str, int | None]:
    """llvm.func symbols of the module: name -> argument count, None for declarations."""
    funcs: dict[str, int | None] = {}
    for op in module.body.operations:
        if op.operation.name != "llvm.func":
            continue
        name = ir.StringAttr(op.operation.attributes["sym_name"]).value
        blocks = op.operation.regions[0].blocks
        funcs[name] = len(blocks[0].arguments) if len(blocks) else None
    return funcs


def check_contract(module: ir.Module, manifest: Manifest) -> None:
    """Before lowering: the entry func.func's memref arguments match the manifest exactly."""
    entry = None
    for op in module.body.operations:
        if (
            op.operation.name == "func.func"
            and ir.StringAttr(op.operation.attributes["sym_name"]).value == manifest.entry
        ):
            entry = op
    if entry is None:
        raise ManifestError(f"module has no func.func @{manifest.entry} (the manifest's entry)")
    if "llvm.emit_c_interface" not in entry.operation.attributes:
        raise ManifestError(f"@{manifest.entry} lacks the llvm.emit_c_interface attribute")
    got = [str(a.type) for a in entry.operation.regions[0].blocks[0].arguments]
    expected: list[tuple[str, tuple[str, ...]]] = []
    for spec in manifest.inputs + manifest.outputs:
        dims = "".join(f"{d if isinstance(d, int) else '?'}x" for d in spec.shape)
        expected.append(
            (spec.name, tuple(f"memref<{dims}{t}>" for t in buffer_element_types(spec.dtype)))
        )
    expected.append(("params blob", (f"memref<{manifest.params_size}xi8>",)))
    expected.append(("workspace blob", (f"memref<{manifest.workspace_size}xi8>",)))
    if len(got) != len(expected):
        raise ManifestError(
            f"@{manifest.entry} has {len(got)} arguments; the manifest implies "
            f"{len(expected)} (inputs, outputs, params blob, workspace blob)"
        )
    for i, ((name, allowed), actual) in enumerate(zip(expected, got)):
        if actual not in allowed:
            raise ManifestError(
                f"@{manifest.entry} argument #{i} ({name}) is {actual}; the "
                f"manifest implies {allowed[0]}"
            )
