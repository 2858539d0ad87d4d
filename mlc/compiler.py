"""`mlc.build`: a graph-dialect module and its params -> a `CompiledLibrary` (TVM's relay.build).

module, params = mlc.from_onnx("resnet50.onnx")
lib = mlc.build(module, params, threads=2)
gm = mlc.runtime.GraphModule(lib.jit())
lib.export_library("resnet50.tar")
"""

from __future__ import annotations

import logging
import pathlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from mlir import ir

from mlc.errors import MlcError
from mlc.npz import npz_bytes, read_npz

if TYPE_CHECKING:
    from mlc.passes.diagnostics import Diag
    from mlc.runtime import CompiledLibrary, SourceModel

_log = logging.getLogger(__name__)

_TARGET = re.compile(r"^\s*llvm(\s+-mcpu=(native|host))?\s*$")


def check_target(target: str) -> None:
    """mlc generates code for the machine it runs on (the JIT's host CPU)."""
    if not _TARGET.match(target):
        raise MlcError(
            f"unsupported target '{target}': mlc compiles for the host CPU; use "
            "'llvm' or 'llvm -mcpu=native'"
        )


@dataclass(frozen=True)
class BuildOptions:
    """How `build` compiles. `pipeline` replaces the default (`mlc-default`) entirely."""

    target: str = "llvm -mcpu=native"
    threads: int = 1
    pipeline: str | None = None
    tuning_records: str | None = None
    save_temps: str | None = None
    print_ir_after_all: bool = False
    extra: dict[str, object] = field(default_factory=dict)

    def pipeline_text(self) -> str:
        """`pipeline`, or mlc-default as chosen for the host (`MlcDefaultPipeline.for_target`)."""
        if self.pipeline:
            return self.pipeline
        from mlc.passes.mlc_default import MlcDefaultPipeline
        from mlc.target import host_target

        default = MlcDefaultPipeline.for_target(
            host_target(), threads=self.threads, records=self.tuning_records or ""
        )
        return f"builtin.module({default})"


def _copy(module: ir.Module) -> ir.Module:
    """A deep copy (passes mutate in place; the caller keeps its module), locations included."""
    text = module.operation.get_asm(enable_debug_info=True)
    return ir.Module.parse(text, module.context)


def build(
    module: ir.Module,
    params: Mapping[str, np.ndarray] | None = None,
    *,
    options: BuildOptions | None = None,
    source: SourceModel | None = None,
    diagnostics: list[Diag] | None = None,
    **kwargs: object,
) -> CompiledLibrary:
    """Compile `module` (graph dialect, entry @main) with `params` into a CompiledLibrary.

    Keyword arguments are BuildOptions fields (`threads=2`, `pipeline=...`); an unknown one is
    an error. Raises PassFailedError / PipelineParseError / MlcError with located diagnostics.
    Warnings and remarks of the passes (tp-apply-records' coverage, records that do not fit) are
    appended to `diagnostics` when given, else warnings are logged (logger `mlc.compiler`).
    """
    from mlc.passes.pass_manager import PassManager
    from mlc.runtime import CompiledLibrary

    if options is None:
        unknown = set(kwargs) - set(BuildOptions.__dataclass_fields__)
        if unknown:
            raise TypeError(f"build() got unknown option(s) {sorted(unknown)}")
        options = BuildOptions(**kwargs)  # type: ignore[arg-type]
    elif kwargs:
        raise TypeError("pass either options= or keyword options, not both")
    check_target(options.target)
    if options.threads < 1:
        raise MlcError(f"threads must be >= 1, got {options.threads}")
    work = _copy(module)
    table = dict(params or {})
    pm = PassManager.parse(options.pipeline_text())
    if options.print_ir_after_all:
        pm.enable_ir_printing()
    if options.save_temps:
        pm.save_temps(pathlib.Path(options.save_temps))
        _write(
            pathlib.Path(options.save_temps) / "00-input.mlir",
            module.operation.get_asm(enable_debug_info=True),
        )
    if options.tuning_records and options.pipeline:
        raise MlcError(
            "--tuning-records applies to the default pipeline; with --pass-pipeline add "
            "tp-apply-records{file=...} after graph-to-tp yourself"
        )
    if options.tuning_records and not pathlib.Path(options.tuning_records).is_file():
        raise MlcError(f"tuning records '{options.tuning_records}' do not exist")
    pm.run(work, params=table)
    if diagnostics is not None:
        diagnostics.extend(pm.diagnostics)
    else:
        for d in pm.diagnostics:
            if d.severity == "warning":
                _log.warning("%s", d.format())
    return CompiledLibrary.from_module(work, table, pipeline=str(pm), source=source)


def _write(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def compile_model(
    model: str | pathlib.Path,
    output: str | pathlib.Path,
    *,
    options: BuildOptions,
    shape_dict: Mapping[str, list[int]] | None = None,
    params_path: str | pathlib.Path | None = None,
    diagnostics: list[Diag] | None = None,
) -> CompiledLibrary:
    """`mlc compile`: an .onnx model (or a graph-dialect .mlir with its params .npz) to a
    package `.tar`, a shared library `.so` (+ manifest.json, params.npz) or an object `.o`."""
    from mlc.runtime.target import source_model

    model = pathlib.Path(model)
    output = pathlib.Path(output)
    if output.suffix not in (".tar", ".so", ".o"):
        raise MlcError(
            f"output '{output}' must end in .tar (package), .so (shared library) or .o (object)"
        )
    if model.suffix == ".mlir":
        module, params = _load_mlir(model, params_path)
        source = None
    else:
        from mlc.frontend import from_onnx

        module, params = from_onnx(model, shape_dict=shape_dict)
        source = source_model(model)
    lib = build(module, params, options=options, source=source, diagnostics=diagnostics)
    output.parent.mkdir(parents=True, exist_ok=True)
    if output.suffix == ".tar":
        lib.export_library(output)
    elif output.suffix == ".so":
        lib.export_shared(output)
        (output.parent / "manifest.json").write_text(lib.manifest.to_json())

        (output.parent / "params.npz").write_bytes(
            npz_bytes({p.name: lib.params[p.name] for p in lib.manifest.params})
        )
    else:
        lib.export_object(output)
    return lib


def _load_mlir(
    path: pathlib.Path, params_path: str | pathlib.Path | None
) -> tuple[ir.Module, dict[str, np.ndarray]]:
    import mlc
    from mlc.passes.diagnostics import format_error_diagnostics

    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise MlcError(f"cannot read '{path}': {e}") from None
    try:
        module = ir.Module.parse(text, mlc.Context())
    except ir.MLIRError as e:  # malformed input
        raise MlcError("\n".join(format_error_diagnostics(e, str(path)))) from None
    params: dict[str, np.ndarray] = {}
    if params_path is not None:
        params = read_npz(params_path, "parameters")
    return module, params
