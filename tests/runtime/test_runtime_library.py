"""CompiledLibrary: contract checks, JIT (1 and 2 threads), object and shared-library export."""

from __future__ import annotations

import dataclasses
import json
import pathlib
import re
import subprocess

import numpy as np
import pytest
from mlir import ir

import mlc
from helpers import contract_module as cm
from helpers.runtime import assert_matches_reference, build_library, lower_library, run_python
from mlc.errors import ToolError
from mlc.npz import npz_bytes
from mlc.runtime import CompiledLibrary, GraphModule, ManifestError, load_module
from mlc.runtime.library import _LIVE_ENGINES
from mlc.runtime.linker import defined_symbols, link_command
from mlc.runtime.package import PackageError
from mlc.runtime.params_blob import write_params_blob
from mlc.runtime.target import host_target
from mlc.version import __version__, mlir_version


def _run(gm: GraphModule, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    gm.run(**inputs)
    return {name: gm.get_output(name) for name in gm.get_output_info()}


def test_jit_single_thread_matches_numpy(lib1: CompiledLibrary, inputs, params) -> None:
    assert lib1.manifest.runtime_libs == ()
    assert lib1.manifest.pipeline == "builtin.module(lower-to-llvm)"
    assert lib1.manifest.target == host_target()
    assert (lib1.manifest.mlc_version, lib1.manifest.mlir_version) == (__version__, mlir_version())
    assert_matches_reference(_run(GraphModule(lib1.jit()), inputs), inputs, params)


def test_jit_two_threads_uses_openmp(lib2: CompiledLibrary, inputs, params) -> None:
    assert lib2.manifest.runtime_libs == ("iomp5",)
    assert lib2.manifest.pipeline == "builtin.module(lower-to-llvm{threads=2})"
    assert "omp.parallel" in str(lib2.module)
    rt = lib2.jit()
    assert rt.kind == "jit"
    assert any(e is rt.entry.engine for e in _LIVE_ENGINES)  # type: ignore[attr-defined]
    assert_matches_reference(_run(GraphModule(rt), inputs), inputs, params)


def test_jit_two_threads_on_the_async_runtime(inputs, params) -> None:
    lib = build_library(2, runtime="async")
    assert lib.manifest.runtime_libs == ("mlir_async_runtime",)
    assert lib.manifest.pipeline == "builtin.module(lower-to-llvm{threads=2 runtime=async})"
    assert_matches_reference(_run(GraphModule(lib.jit()), inputs), inputs, params)


@pytest.mark.parametrize(
    ("schedule", "clause"),
    [
        ("dynamic", r"dynamic = %\w+ : i32\)"),
        ("guided", r"guided = "),
        ("steal", r"dynamic = %\w+ : i32, nonmonotonic\)"),
    ],
)
def test_jit_two_threads_with_chunked_schedules(schedule: str, clause: str, inputs, params) -> None:
    lib = build_library(2, schedule=schedule)
    assert re.search(rf"omp.wsloop (nowait )?schedule\({clause}", str(lib.module))
    assert_matches_reference(_run(GraphModule(lib.jit()), inputs), inputs, params)


def test_other_params_change_the_result(inputs) -> None:
    other = {k: v * 2 + 1 for k, v in cm.make_params().items()}
    lib = build_library(1, params=other)
    assert_matches_reference(_run(GraphModule(lib.jit()), inputs), inputs, other)


def test_second_async_engine_dropped_does_not_break_the_first() -> None:
    # Without the keep-alive, dropping the second engine tears down the async runtime and the
    # next call of the first one segfaults; a subprocess keeps a crash out of this process.
    code = """
import gc
import numpy as np
from helpers import contract_module as cm
from helpers.runtime import build_library
from mlc.runtime import GraphModule
x = cm.make_inputs()
first = GraphModule(build_library(2, runtime="async").jit()); first.run(**x)
second = GraphModule(build_library(2, runtime="async").jit()); second.run(**x)
del second; gc.collect()
first.run(**x)
ref = cm.reference(x, cm.make_params())
print(float(np.abs(first.get_output("r") - ref["r"]).max()))
"""
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert float(proc.stdout.split()[-1]) < 1e-5


def test_wrong_params_are_rejected(lib1: CompiledLibrary, params) -> None:
    with pytest.raises(ManifestError, match=r"param 'w' expects float32\[8\], got float64\[8\]"):
        CompiledLibrary(lib1.module, lib1.manifest, {**params, "w": params["w"].astype(np.float64)})
    with pytest.raises(ManifestError, match="params missing: b"):
        CompiledLibrary(lib1.module, lib1.manifest, {"w": params["w"]})
    with pytest.raises(ManifestError, match="params not in the manifest: extra"):
        CompiledLibrary(lib1.module, lib1.manifest, {**params, "extra": params["w"]})


def _parse(text: str) -> ir.Module:
    with mlc.Context():
        return ir.Module.parse(text)


def test_contract_mismatch_is_caught_before_lowering(params) -> None:
    manifest = cm.manifest_dict()
    manifest["inputs"][0]["shape"] = [4, 9]
    with pytest.raises(
        ManifestError,
        match=r"argument #0 \(x\) is memref<4x8xf32>; the manifest implies memref<4x9xf32>",
    ):
        lower_library(_parse(cm.module_text(manifest)), params)
    manifest = cm.manifest_dict()
    manifest["workspace_size"] = 256
    with pytest.raises(ManifestError, match=r"workspace blob\) is memref<128xi8>"):
        lower_library(_parse(cm.module_text(manifest)), params)
    manifest = cm.manifest_dict()
    manifest["entry"] = "other"
    with pytest.raises(ManifestError, match="no func.func @other"):
        lower_library(_parse(cm.module_text(manifest)), params)
    text = cm.module_text().replace("attributes {llvm.emit_c_interface}", "")
    with pytest.raises(ManifestError, match="lacks the llvm.emit_c_interface"):
        lower_library(_parse(text), params)


def test_module_without_manifest_or_not_lowered(params) -> None:
    text = cm.module_text()
    bare = text.replace("mlc.manifest =", "other.attr =")
    with pytest.raises(ManifestError, match="has no 'mlc.manifest' attribute"):
        CompiledLibrary.from_module(_parse(bare), params)
    with pytest.raises(ManifestError, match="has no llvm.func @_mlir_ciface_mlc_main"):
        CompiledLibrary.from_module(_parse(text), params)  # still func/memref, not lowered


def test_export_object(lib1: CompiledLibrary, tmp_path: pathlib.Path) -> None:
    obj = lib1.export_object(tmp_path / "m.o")
    assert obj.read_bytes()[:4] == b"\x7fELF"
    from mlc.runtime.toolchain import llvm_bin

    nm = subprocess.run(
        [str(llvm_bin() / "llvm-nm"), "--defined-only", "--format=just-symbols", str(obj)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "_mlir_ciface_mlc_main" in nm and "mlc_main" in nm


def test_export_shared_and_load_the_bare_so(
    lib2: CompiledLibrary, tmp_path: pathlib.Path, inputs, params
) -> None:
    so = lib2.export_shared(tmp_path / "m.so")
    assert "_mlir_ciface_mlc_main" in defined_symbols(so)
    # the library carries its manifest; its params are m.params.bin beside it, or given
    with pytest.raises(PackageError, match=r"m.so needs its 2 parameters: expected .*m.params.bin"):
        load_module(so)
    rt = load_module(so, params=params)
    assert rt.kind == "shared" and rt.manifest == lib2.manifest
    assert_matches_reference(_run(GraphModule(rt), inputs), inputs, params)
    (tmp_path / "p.npz").write_bytes(npz_bytes(params))  # an .npz given explicitly still loads
    assert_matches_reference(
        _run(GraphModule(load_module(so, params=tmp_path / "p.npz")), inputs), inputs, params
    )
    write_params_blob(tmp_path / "m.params.bin", lib2.manifest, params)
    (tmp_path / "m.manifest.json").write_text(lib2.manifest.to_json())
    assert_matches_reference(_run(GraphModule(load_module(so)), inputs), inputs, params)


def test_bare_so_with_other_params_or_manifest_is_refused(
    lib1: CompiledLibrary, tmp_path: pathlib.Path, params
) -> None:
    so = lib1.export_shared(tmp_path / "m.so")
    other = {k: v + 1 for k, v in params.items()}
    with pytest.raises(PackageError, match="other parameter values than the library was compiled"):
        load_module(so, params=other)
    edited = dataclasses.replace(lib1.manifest, workspace_size=lib1.manifest.workspace_size + 64)
    (tmp_path / "m.manifest.json").write_text(edited.to_json())
    with pytest.raises(PackageError, match=r"m.manifest.json does not match .* \(workspace_size"):
        load_module(so, params=params)


def test_link_command_is_pure_and_complete(tmp_path: pathlib.Path) -> None:
    cmd = link_command(
        "cc",
        tmp_path / "a.o",
        tmp_path / "a.so",
        ["mlir_async_runtime"],
        ["$ORIGIN"],
        [pathlib.Path("/m/lib"), pathlib.Path("/l/lib")],
    )
    assert cmd[:5] == ["cc", "-shared", "-o", str(tmp_path / "a.so"), str(tmp_path / "a.o")]
    for flag in (
        "-L/m/lib",
        "-lmlir_async_runtime",
        "-Wl,-rpath,$ORIGIN",
        "-Wl,-rpath-link,/m/lib:/l/lib",
        "-Wl,--no-undefined",
        "-lm",
    ):
        assert flag in cmd
    assert not any(
        "async" in a
        for a in link_command(
            "cc", tmp_path / "a.o", tmp_path / "a.so", [], [], [pathlib.Path("/m")]
        )
    )
    capi = tmp_path / "a_capi.o"  # the C API object follows the model's
    with_capi = link_command("cc", tmp_path / "a.o", tmp_path / "a.so", [], [], [], [capi])
    assert with_capi[4:6] == [str(tmp_path / "a.o"), str(capi)]


def test_shared_libraries_export_the_c_api_and_find_runtime_libraries_beside_them(
    lib2: CompiledLibrary, tmp_path: pathlib.Path
) -> None:
    so = lib2.export_shared(tmp_path / "m.so")
    names = ("create_from_file", "create_from_memory", "create", "run", "set_input", "free")
    assert {f"mlc_main_{n}" for n in names} <= defined_symbols(so)
    runpath = subprocess.run(["readelf", "-d", str(so)], capture_output=True, text=True).stdout
    assert "[$ORIGIN:" in runpath  # $ORIGIN first: a libiomp5.so copied beside it wins


def test_missing_compiler_is_a_tool_error(
    lib1: CompiledLibrary, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CC", "no-such-compiler-xyz")
    with pytest.raises(ToolError, match="no C compiler found"):
        lib1.export_shared(tmp_path / "m.so")


def test_manifest_of_the_module_matches_the_contract(lib1: CompiledLibrary) -> None:
    attr = lib1.module.operation.attributes["mlc.manifest"]
    assert json.loads(ir.StringAttr(attr).value) == cm.manifest_dict()


def test_unresolvable_external_function_is_a_tool_error_not_an_abort(
    tmp_path: pathlib.Path,
) -> None:
    text = cm.module_text().replace(
        "%yv = arith.addf %tv, %one : f32", "%yv = func.call @mlc_no_such_fn(%tv) : (f32) -> f32"
    )
    text = text.replace(
        "  func.func @mlc_main",
        "  func.func private @mlc_no_such_fn(f32) -> f32\n  func.func @mlc_main",
    )
    lib = build_library(1, text=text)
    with pytest.raises(ToolError, match="no loaded library defines: mlc_no_such_fn"):
        lib.jit()
    with pytest.raises(ToolError, match="mlc_no_such_fn"):
        lib.export_object(tmp_path / "m.o")


@pytest.mark.parametrize("runtime", ["async", "openmp"])
def test_export_in_a_fresh_process_does_not_abort(tmp_path: pathlib.Path, runtime: str) -> None:
    # Two ways dump_to_object_file used to abort the process (so: a subprocess): exporting an
    # async module before any JIT loaded the async runtime, and a module with an
    # internal-linkage function (no packed wrapper) and an empty object cache.
    code = f"""
import numpy as np
from helpers import contract_module as cm
from helpers.runtime import build_library
from mlc.runtime import GraphModule, load_module
lib = build_library(2, text=cm.module_text(internal_helper=True), runtime={runtime!r})
assert "internal" in str(lib.module)
lib.export_library({str(tmp_path / "m.tar")!r})
gm = GraphModule(load_module({str(tmp_path / "m.tar")!r}))
x = cm.make_inputs()
gm.run(**x)
print(float(np.abs(gm.get_output("y") - cm.reference(x, cm.make_params())["y"]).max()))
"""
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert float(proc.stdout.split()[-1]) < 1e-5
