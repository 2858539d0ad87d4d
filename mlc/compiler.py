"""`mlc.build`: a graph-dialect module and its params -> a `CompiledLibrary` (TVM's relay.build).

module, params = mlc.from_onnx("resnet50.onnx")
lib = mlc.build(module, params, threads=2)
gm = mlc.runtime.GraphModule(lib.jit())
lib.export_library("resnet50.tar")

`compile_model` is `mlc compile`: every path is checked before the (possibly long) work starts,
the stages are reported through `mlc.progress`, and every output is written whole or not at all.
"""

from __future__ import annotations

import logging
import pathlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from mlir import ir

from mlc import progress
from mlc.contract import is_c_identifier
from mlc.errors import MlcError
from mlc.files import (
    check_input_file,
    check_output_directory,
    check_output_file,
    write_text_atomic,
)
from mlc.npz import read_npz

if TYPE_CHECKING:
    from mlc.contract import TargetInfo
    from mlc.passes.diagnostics import Diag
    from mlc.runtime import CompiledLibrary, SourceModel
    from mlc.tuner.graph_knobs import GraphConfig

_log = logging.getLogger(__name__)

_TARGET = re.compile(r"^\s*llvm(\s+-mcpu=(native|host))?\s*$")
OUTPUT_KINDS = {".tar": "package", ".so": "shared library", ".o": "object file"}


def check_target(target: str) -> None:
    """mlc generates code for the machine it runs on (the JIT's host CPU)."""
    if not _TARGET.match(target):
        raise MlcError(
            f"unsupported target '{target}': mlc compiles for the host CPU; use "
            "'llvm' or 'llvm -mcpu=native'"
        )


@dataclass(frozen=True)
class BuildOptions:
    """How `build` compiles. `pipeline` replaces the default (`mlc-default`) entirely, so the
    options that configure the default pipeline (`threads`, `tuning_records`) are refused with
    it rather than ignored. Checked when made: a bad value is an MlcError naming the flag."""

    target: str = "llvm -mcpu=native"
    threads: int | None = None
    """Worker threads of the default pipeline (None: 1)."""
    pipeline: str | None = None
    tuning_records: str | None = None
    save_temps: str | None = None
    print_ir_after_all: bool = False
    entry_name: str | None = None
    """The model's entry symbol (default `mlc_main`; `compile_model` derives one from the
    model's name): distinct names let several models link into one program."""
    profile: bool = False
    """Compile kernel timers in (mlc-default's profile): `GraphModule.profile()` reads them."""
    embed_params: bool = False
    """Put the params blob inside the `.so` (no `<stem>.params.bin`; C API `<entry>_create`)."""

    def __post_init__(self) -> None:
        check_target(self.target)
        if self.threads is not None and self.threads < 1:
            raise MlcError(f"threads (--threads) must be >= 1, got {self.threads}")
        if self.pipeline and self.threads is not None:
            raise MlcError(
                f"--threads {self.threads} configures the default pipeline, which "
                "--pass-pipeline replaces; set it in your pipeline instead: "
                f"builtin.module(mlc-default{{threads={self.threads}}})"
            )
        if self.pipeline and self.profile:
            raise MlcError(
                "--profile configures the default pipeline, which --pass-pipeline replaces; "
                "add tp-profile after graph-to-tp's scheduling passes, or "
                "mlc-default{profile=true}, to your pipeline instead"
            )
        if self.pipeline and self.tuning_records:
            raise MlcError(
                "--tuning-records applies to the default pipeline; with --pass-pipeline add "
                "tp-apply-records{file=...} after graph-to-tp yourself"
            )
        if self.entry_name is not None and not is_c_identifier(self.entry_name):
            raise MlcError(
                f"entry name (--entry-name) '{self.entry_name}' is not a C identifier: use "
                "letters, digits and '_', not starting with a digit"
            )

    def pipeline_text(self, module: ir.Module | None = None) -> str:
        """`pipeline`, or mlc-default as chosen for the host (`MlcDefaultPipeline.for_target`),
        with the graph-level knobs (layout block, Winograd) the tuning records hold for
        `module` when given."""
        if self.pipeline:
            return self.pipeline
        from mlc.passes.mlc_default import MlcDefaultPipeline
        from mlc.target import host_target

        target = host_target()
        graph = self.graph_config(module, target) if module is not None else None
        default = MlcDefaultPipeline.for_target(
            target,
            threads=self.threads or 1,
            records=self.tuning_records or "",
            profile=self.profile,
            layout_block=None if graph is None else graph.layout_block,
            winograd=None if graph is None else graph.winograd,
        )
        return f"builtin.module({default})"

    def graph_config(self, module: ir.Module, target: TargetInfo) -> GraphConfig | None:
        """The best graph-level record of `module` in the tuning records (None: none)."""
        if not self.tuning_records:
            return None
        from mlc.tuner.graph_knobs import graph_choice, graph_key
        from mlc.tuner.records import RecordError, read_records

        try:
            log = read_records(self.tuning_records)
        except RecordError:
            return None  # tp-apply-records reports the file with its pass name
        choice = graph_choice(log.records, graph_key(module), target, self.threads or 1)
        return None if choice is None else choice[0]


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
    filename: str = "-",
    **kwargs: object,
) -> CompiledLibrary:
    """Compile `module` (graph dialect, entry @main) with `params` into a CompiledLibrary.

    Keyword arguments are BuildOptions fields (`threads=2`, `pipeline=...`); an unknown one is
    an error. `filename` names the module's source file in diagnostics. Raises
    PassFailedError / PipelineParseError / MlcError with located diagnostics. Warnings and
    remarks of the passes (tp-apply-records' coverage, records that do not fit) are appended to
    `diagnostics` when given, else warnings are logged (logger `mlc.compiler`).
    """
    from mlc.dialects.graph.verify import symbol_bounds
    from mlc.passes.pass_manager import PassManager
    from mlc.runtime import CompiledLibrary
    from mlc.runtime.library import read_manifest
    from mlc.symbolic import assume

    if options is None:
        unknown = set(kwargs) - set(BuildOptions.__dataclass_fields__)
        if unknown:
            raise TypeError(f"build() got unknown option(s) {sorted(unknown)}")
        options = BuildOptions(**kwargs)  # type: ignore[arg-type]
    elif kwargs:
        raise TypeError("pass either options= or keyword options, not both")
    if options.tuning_records and not pathlib.Path(options.tuning_records).is_file():
        raise MlcError(f"tuning records '{options.tuning_records}' do not exist")
    work = _copy(module)
    table = dict(params or {})
    pm = PassManager.parse(options.pipeline_text(module))
    if options.print_ir_after_all:
        pm.enable_ir_printing()
    if options.save_temps:
        pm.save_temps(pathlib.Path(options.save_temps))
        pm.save_temp("00-input.mlir", module.operation.get_asm(enable_debug_info=True))
    # the passes decide sizes under the bounds the import recorded (--input-shapes ranges)
    bounds, checks = symbol_bounds(work.operation), _shape_checks(work.operation)
    with progress.stage(f"running {sum(1 for _ in pm.steps())} passes"), assume(bounds):
        pm.run(work, params=table, filename=filename)
    _record_symbols(work, bounds, checks)
    if diagnostics is not None:
        diagnostics.extend(pm.diagnostics)
    else:
        for d in pm.diagnostics:
            if d.severity == "warning":
                _log.warning("%s", d.format())
    # A param only dead ops read (outputs cut at an intermediate tensor) is gone from the
    # module, so the library neither needs nor accepts it.
    used = {p.name for p in read_manifest(work).params}
    table = {name: value for name, value in table.items() if name in used}
    return CompiledLibrary.from_module(
        work, table, pipeline=str(pm), source=source, entry=options.entry_name
    )


def _shape_checks(module: ir.Operation) -> list[str]:
    """The run-time shape checks the import recorded on @main (`mlc.shape_checks`)."""
    checks: list[str] = []
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and "mlc.shape_checks" in op.operation.attributes:
            attr = ir.ArrayAttr(op.operation.attributes["mlc.shape_checks"])
            checks += [ir.StringAttr(a).value for a in attr]
    return checks


def _record_symbols(
    module: ir.Module, bounds: Mapping[str, tuple[int, int | None]], checks: list[str]
) -> None:
    """Put the bounds and shape checks of @main in the manifest, where graph-to-tp has not:
    code compiled under `seq <= 512` must never run at 600 (the runtime checks them)."""
    import json

    from mlc.contract import MANIFEST_ATTR

    attrs = module.operation.attributes
    if MANIFEST_ATTR not in attrs or not (bounds or checks):
        return
    manifest = json.loads(ir.StringAttr(attrs[MANIFEST_ATTR]).value)
    if "symbols" in manifest or "shape_checks" in manifest:
        return
    if bounds:
        manifest["symbols"] = {k: [lo, hi] for k, (lo, hi) in sorted(bounds.items())}
    if checks:
        manifest["shape_checks"] = checks
    with module.context:
        attrs[MANIFEST_ATTR] = ir.StringAttr.get(json.dumps(manifest, sort_keys=True))


def default_entry_name(model: str | pathlib.Path) -> str:
    """`mlc_<model file stem>` as a C identifier (`resnet50-v1.onnx` -> `mlc_resnet50_v1`)."""
    stem = re.sub(r"[^A-Za-z0-9_]+", "_", pathlib.Path(model).stem).strip("_")
    return f"mlc_{stem}" if stem else "mlc_main"


def output_files(output: pathlib.Path, embed_params: bool = False) -> list[pathlib.Path]:
    """Every file `compile_model` writes for `output`: a package alone, or a `.so`/`.o` with
    its `<stem>.manifest.json` and `<stem>.params.bin` (not with `embed_params`), and a `.so`
    with its C header `<stem>.h`."""
    from mlc.runtime.package import sidecar_files

    if output.suffix == ".tar":
        return [output]
    manifest, params = sidecar_files(output)
    files = [output, manifest] + ([] if embed_params else [params])
    return files + ([output.with_suffix(".h")] if output.suffix == ".so" else [])


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
    package `.tar`, or a shared library `.so` / object `.o` with its manifest and params
    beside it. The entry symbol defaults to `default_entry_name(model)`."""
    from mlc.runtime.target import source_model

    model, output = pathlib.Path(model), pathlib.Path(output)
    is_mlir = model.suffix == ".mlir"
    params_path = _check_paths(model, output, options, shape_dict, params_path, is_mlir)
    if options.entry_name is None:
        options = replace(options, entry_name=default_entry_name(model))
    if is_mlir:
        shown = f" with parameters {params_path}" if params_path else ""
        with progress.stage(f"reading {model}{shown}"):
            module, params = _load_mlir(model, params_path)
        source = None
    else:
        from mlc.frontend import from_onnx

        with progress.stage(f"importing {model}"):
            # dims the shapes do not fix stay symbolic: one package for every size
            module, params = from_onnx(model, shape_dict=shape_dict, symbolic_dims=True)
        source = source_model(model)
    lib = build(
        module, params, options=options, source=source, filename=str(model), diagnostics=diagnostics
    )
    if options.profile and not is_mlir:
        from mlc.contract import with_op_types
        from mlc.frontend import node_op_types

        lib = replace(lib, manifest=with_op_types(lib.manifest, node_op_types(model)))
    _write_outputs(lib, output, options.embed_params)
    return lib


def _check_paths(
    model: pathlib.Path,
    output: pathlib.Path,
    options: BuildOptions,
    shape_dict: Mapping[str, list[int]] | None,
    params_path: str | pathlib.Path | None,
    is_mlir: bool,
) -> pathlib.Path | None:
    """Check every input and output before compiling; the params file a .mlir model uses."""
    if output.suffix not in OUTPUT_KINDS:
        raise MlcError(
            f"output '{output}' must end in .tar (package), .so (shared library) or .o (object)"
        )
    check_input_file(model, "model")
    if is_mlir and shape_dict:
        raise MlcError(
            f"--input-shapes applies to ONNX models; the shapes of {model} are fixed in it "
            "(import the ONNX model again with mlc import --input-shapes)"
        )
    if not is_mlir and params_path is not None:
        raise MlcError(
            f"--params applies to a .mlir model; the ONNX model {model} carries its parameters"
        )
    if is_mlir:
        if params_path is not None:
            params_path = check_input_file(params_path, "--params")
        elif model.with_name(model.name + ".npz").is_file():
            params_path = model.with_name(model.name + ".npz")  # where `mlc import` writes them
            _log.info("using the parameters %s found beside %s", params_path, model)
    if options.embed_params and output.suffix != ".so":
        raise MlcError(
            f"--embed-params applies to a shared library (-o NAME.so), not to '{output}': a "
            "package keeps its params in params.bin, an object beside it"
        )
    for path in output_files(output, options.embed_params):
        check_output_file(path, "output")
    if options.tuning_records:
        check_input_file(options.tuning_records, "--tuning-records")
    if options.save_temps:
        from mlc.passes.pass_manager import prepare_temps_dir

        check_output_directory(options.save_temps, "--save-temps")
        prepare_temps_dir(pathlib.Path(options.save_temps))
    return pathlib.Path(params_path) if params_path is not None else None


def _write_outputs(lib: CompiledLibrary, output: pathlib.Path, embed_params: bool) -> None:
    from mlc.runtime import capi
    from mlc.runtime.package import sidecar_files
    from mlc.runtime.params_blob import write_params_blob

    if output.suffix == ".tar":
        lib.export_library(output)
        return
    if output.suffix == ".so":
        lib.export_shared(output, embed_params=embed_params)
        write_text_atomic(output.with_suffix(".h"), capi.header_text(lib.manifest))
    else:
        lib.export_object(output)
    manifest_path, params_path = sidecar_files(output)
    with progress.stage(f"writing {manifest_path.name} and {params_path.name}"):
        write_text_atomic(manifest_path, lib.manifest.to_json())
        if not embed_params:
            write_params_blob(params_path, lib.manifest, lib.params)


def referenced_params(module: ir.Module) -> list[str]:
    """Names of the `#graph.param<"...">` constants of a graph-dialect module, in order."""
    from mlc.dialects.attrs import param_name

    names: list[str] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "graph.constant" and "value" in op.attributes:
            name = param_name(op.attributes["value"])
            if name is not None and name not in names:
                names.append(name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return names


def _load_mlir(
    path: pathlib.Path, params_path: pathlib.Path | None
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
    params = read_npz(params_path, "parameters") if params_path is not None else {}
    missing = [n for n in referenced_params(module) if n not in params]
    if missing:
        shown = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        given = (
            f"the parameters {params_path} lack them"
            if params_path is not None
            else f"no parameters were given and there is no {path.name}.npz beside it"
        )
        raise MlcError(
            f"{path} uses {len(missing)} parameters ({shown}) but {given}; pass the .npz that "
            f"mlc import wrote with --params FILE.npz"
        )
    return module, params
