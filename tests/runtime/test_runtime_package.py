"""Packages: contents, loading in this and in a new process, and safe extraction."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import mmap
import pathlib
import tarfile

import numpy as np
import pytest

from helpers.runtime import assert_matches_reference, run_python
from mlc.runtime import (
    CompiledLibrary,
    GraphModule,
    PackageError,
    UnsafePackageError,
    load_module,
)
from mlc.runtime.target import TargetMismatchError


def _members(path: pathlib.Path) -> dict[str, bytes]:
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers()}  # type: ignore[union-attr]


def test_package_contents(pkg2: pathlib.Path, params) -> None:
    members = _members(pkg2)
    assert sorted(members) == ["libiomp5.so", "manifest.json", "model.so", "params.bin"]
    manifest = json.loads(members["manifest.json"])
    assert manifest["runtime_libs"] == ["iomp5"]
    assert manifest["pipeline"] == "builtin.module(lower-to-llvm{threads=2})"
    assert {"mlc_version", "mlir_version", "target"} <= set(manifest)
    assert members["model.so"][:4] == b"\x7fELF"
    # params.bin is the packed blob: each param at its manifest offset, last in the tar
    blob = members["params.bin"]
    assert len(blob) == manifest["params_size"]
    assert hashlib.sha256(blob).hexdigest() == manifest["params_sha256"]
    for spec in manifest["params"]:
        value = np.frombuffer(blob, spec["dtype"], int(np.prod(spec["shape"])), spec["offset"])
        np.testing.assert_array_equal(value.reshape(spec["shape"]), params[spec["name"]])
    with tarfile.open(pkg2) as tar:
        assert tar.getnames()[-1] == "params.bin"


def test_loaded_params_are_mapped_from_the_package(pkg2: pathlib.Path, params) -> None:
    """No copy of the weights: the module's blob is a view of a mapping of the package."""
    rt = load_module(pkg2)
    blob = rt.params_blob
    assert blob is not None and isinstance(blob.base.obj, mmap.mmap)  # type: ignore[union-attr]
    assert blob.ctypes.data % 64 == 0
    for name, value in rt.params.items():
        assert np.shares_memory(value, blob)
        np.testing.assert_array_equal(value, params[name])
    assert GraphModule(rt)._params is blob


def test_single_thread_package_has_no_runtime_library(pkg1: pathlib.Path) -> None:
    assert sorted(_members(pkg1)) == ["manifest.json", "model.so", "params.bin"]


@pytest.mark.parametrize("which", ["pkg1", "pkg2"])
def test_load_in_this_process(which: str, request: pytest.FixtureRequest, inputs, params) -> None:
    rt = load_module(request.getfixturevalue(which))
    assert rt.kind == "shared"
    gm = GraphModule(rt)
    gm.run(**inputs)
    assert_matches_reference({"y": gm.get_output(0), "r": gm.get_output(1)}, inputs, params)


def test_load_in_a_new_process_without_compiling(pkg1: pathlib.Path, pkg2: pathlib.Path) -> None:
    code = f"""
import sys, numpy as np
from helpers import contract_module as cm
from mlc.runtime import GraphModule, load_module
x = cm.make_inputs()
ref = cm.reference(x, cm.make_params())
for path in ({str(pkg1)!r}, {str(pkg2)!r}):
    gm = GraphModule(load_module(path))
    gm.run(**x)
    for i, name in enumerate(("y", "r")):
        np.testing.assert_allclose(gm.get_output(i), ref[name], rtol=1e-5, atol=1e-5)
    print("ok", path)
compiled = [m for m in ("mlir.execution_engine", "mlc.runtime.library", "mlc.passes.pass_manager",
                        "mlir", "ml_dtypes")  # not even mlir.runtime: its import costs seconds
            if m in sys.modules]
print("compiler modules:", compiled)
"""
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("ok ") == 2
    assert "compiler modules: []" in proc.stdout


def test_extraction_leaves_nothing_behind(
    pkg1: pathlib.Path, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    load_module(pkg1)
    assert list(tmp_path.iterdir()) == []


# -- malicious and malformed packages --------------------------------------------------------
def _tar(path: pathlib.Path, members: list[tarfile.TarInfo | tuple[str, bytes]]) -> pathlib.Path:
    with tarfile.open(path, "w") as tar:
        for m in members:
            if isinstance(m, tarfile.TarInfo):
                tar.addfile(m)
            else:
                info = tarfile.TarInfo(m[0])
                info.size = len(m[1])
                tar.addfile(info, io.BytesIO(m[1]))
    return path


def _special(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, linkname
    return info


@pytest.fixture
def valid_members(pkg1: pathlib.Path) -> list[tuple[str, bytes]]:
    return list(_members(pkg1).items())


@pytest.mark.parametrize(
    ("evil", "message"),
    [
        (("/tmp/mlc-evil-abs.so", b"x"), "has an absolute path"),
        (("../mlc-evil-up.so", b"x"), r"refers to a parent directory \('..'\)"),
        (("sub/../../mlc-evil-up2.so", b"x"), r"refers to a parent directory"),
        (
            _special("model2.so", tarfile.SYMTYPE, "/etc/passwd"),
            "is a symbolic link to '/etc/passwd'",
        ),
        (
            _special("link.so", tarfile.SYMTYPE, "../../outside"),
            "is a symbolic link to '../../outside'",
        ),
        (_special("hard.so", tarfile.LNKTYPE, "/etc/passwd"), "is a hard link to '/etc/passwd'"),
        (_special("null", tarfile.CHRTYPE), "is a device or FIFO"),
        (_special("disk", tarfile.BLKTYPE), "is a device or FIFO"),
        (_special("pipe", tarfile.FIFOTYPE), "is a device or FIFO"),
        (("lib/model.so", b"x"), "is in a sub-directory"),
        (_special("lib", tarfile.DIRTYPE), "is not a regular file"),
    ],
)
def test_unsafe_members_are_rejected(
    evil, message: str, valid_members, tmp_path: pathlib.Path
) -> None:
    path = _tar(tmp_path / "evil.tar", [*valid_members, evil])
    with pytest.raises(UnsafePackageError, match=message):
        load_module(path)
    assert not pathlib.Path("/tmp/mlc-evil-abs.so").exists()
    assert not (tmp_path.parent / "mlc-evil-up.so").exists()


def test_symlink_then_write_through_it_is_rejected(valid_members, tmp_path: pathlib.Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    evil = [_special("model.so", tarfile.SYMTYPE, str(outside / "pwned.so")), *valid_members]
    with pytest.raises(UnsafePackageError, match="symbolic link"):
        load_module(_tar(tmp_path / "evil.tar", evil))
    assert list(outside.iterdir()) == []


def test_duplicate_unknown_and_missing_members(valid_members, tmp_path: pathlib.Path) -> None:
    with pytest.raises(UnsafePackageError, match="'model.so' appears twice"):
        load_module(_tar(tmp_path / "a.tar", [*valid_members, ("./model.so", b"x")]))
    with pytest.raises(PackageError, match="unexpected members: notes.txt"):
        load_module(_tar(tmp_path / "b.tar", [*valid_members, ("notes.txt", b"x")]))
    without_params = [m for m in valid_members if m[0] != "params.bin"]
    with pytest.raises(PackageError, match="lacks members: params.bin"):
        load_module(_tar(tmp_path / "c.tar", without_params))
    without_manifest = [m for m in valid_members if m[0] != "manifest.json"]
    with pytest.raises(PackageError, match="has no manifest.json: not an mlc package"):
        load_module(_tar(tmp_path / "d.tar", without_manifest))
    (tmp_path / "e.tar").write_bytes(b"not a tar at all" * 100)
    with pytest.raises(PackageError, match="e.tar"):
        load_module(tmp_path / "e.tar")
    with pytest.raises(PackageError, match="does not exist"):
        load_module(tmp_path / "nope.tar")


def test_dot_directory_entry_is_accepted(valid_members, tmp_path: pathlib.Path, inputs) -> None:
    members = [_special(".", tarfile.DIRTYPE)] + [(f"./{n}", b) for n, b in valid_members]
    gm = GraphModule(load_module(_tar(tmp_path / "dot.tar", members)))
    gm.run(**inputs)
    assert_matches_reference({"y": gm.get_output(0), "r": gm.get_output(1)}, inputs)


def test_params_of_the_wrong_size_are_refused(valid_members, tmp_path: pathlib.Path) -> None:
    blob = dict(valid_members)["params.bin"]
    for name, data in (("short", blob[:-4]), ("long", blob + bytes(64)), ("empty", b"")):
        members = [(n, data if n == "params.bin" else b) for n, b in valid_members]
        with pytest.raises(
            PackageError,
            match=rf"{name}.tar \(params.bin\) holds {len(data)} bytes of parameters; the "
            rf"library needs {len(blob)}",
        ):
            load_module(_tar(tmp_path / f"{name}.tar", members))


def test_a_truncated_package_is_refused(pkg1: pathlib.Path, tmp_path: pathlib.Path) -> None:
    data = pkg1.read_bytes()
    with tarfile.open(pkg1) as tar:
        params = tar.getmember("params.bin")
    for cut in (params.offset_data + params.size - 1, len(data) // 2):
        (tmp_path / "cut.tar").write_bytes(data[:cut])
        with pytest.raises(PackageError, match="cut.tar"):
            load_module(tmp_path / "cut.tar")


def _built_for(lib1, dest: pathlib.Path, **target_changes: object) -> pathlib.Path:
    """A package of `lib1` whose manifest (embedded and listed) records another target."""
    target = dataclasses.replace(lib1.manifest.target, **target_changes)
    manifest = dataclasses.replace(lib1.manifest, target=target)
    return CompiledLibrary(lib1.module, manifest, lib1.params).export_library(dest)


def test_package_for_a_missing_cpu_feature_is_refused(lib1, tmp_path: pathlib.Path) -> None:
    features = lib1.manifest.target.features
    if "amx_tile" in features:
        pytest.skip("this host has AMX")
    pkg = _built_for(lib1, tmp_path / "amx.tar", features=(*features, "amx_tile"))
    with pytest.raises(TargetMismatchError, match="uses amx_tile, which this host"):
        load_module(pkg)


def test_package_for_another_architecture_is_refused(lib1, tmp_path: pathlib.Path) -> None:
    pkg = _built_for(lib1, tmp_path / "rv.tar", triple="riscv64-unknown-linux-gnu")
    with pytest.raises(TargetMismatchError, match="compiled for riscv64-unknown-linux-gnu"):
        load_module(pkg)


def test_a_member_declaring_a_size_past_the_limit_is_refused(
    valid_members, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checked on the header, before anything is read or written; a forged header whose data
    is not there is a damaged package."""
    from mlc.runtime import package

    huge = tarfile.TarInfo("params.npz")
    huge.size = package.MAX_MEMBER_BYTES + 1
    members = [m for m in valid_members if m[0] != "params.npz"]
    with pytest.raises(package.PackageError, match="damaged or truncated"):
        load_module(_tar(tmp_path / "huge.tar", [*members, huge]))
    monkeypatch.setattr(package, "MAX_MEMBER_BYTES", 1000)
    path = _tar(tmp_path / "big.tar", valid_members)
    with pytest.raises(UnsafePackageError, match=r"declares \d+ bytes, more than the 1000"):
        load_module(path)


def test_a_rebuilt_library_loaded_again_runs_its_new_code(tmp_path: pathlib.Path) -> None:
    """dlopen returns the library it already has for a path it has seen: load_module loads a
    private copy, so a model rebuilt at the same path runs its own code (here Relu, then
    Sigmoid, both compiled to m.so and loaded in this one process)."""
    import onnx
    from onnx import TensorProto, helper

    from mlc.driver import _main
    from mlc.runtime import GraphModule

    x = np.linspace(-2, 2, 8, dtype=np.float32)
    for op, want in (("Relu", np.maximum(x, 0)), ("Sigmoid", 1 / (1 + np.exp(-x)))):
        io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [8]) for n in ("x", "y")]
        graph = helper.make_graph([helper.make_node(op, ["x"], ["y"])], op, io[:1], io[1:])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        onnx.save(model, tmp_path / f"{op}.onnx")
        assert (
            _main(["compile", str(tmp_path / f"{op}.onnx"), "-o", str(tmp_path / "m.so"), "-q"])
            == 0
        )
        gm = GraphModule(load_module(tmp_path / "m.so"))
        gm.run(x=x)
        np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-5, atol=1e-6, err_msg=op)
