"""Sealed libraries and packages: a library carries its manifest and a digest of itself, and
nothing damaged, mismatched or edited is loaded (issue 11, item 1: crashes and wrong answers)."""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import io
import json
import pathlib
import shutil
import tarfile

import numpy as np
import pytest

from helpers import contract_module as cm
from helpers.cli import assert_clean_failure, run_cli
from mlc.runtime import CompiledLibrary, GraphModule, PackageError, load_module
from mlc.runtime.embedded import MAGIC, LibraryIntegrityError, read_sealed, record_symbol
from mlc.runtime.linker import defined_symbols
from mlc.runtime.package import verify_package
from mlc.runtime.params_blob import params_blob, write_params_blob


@pytest.fixture(scope="module")
def so1(lib1: CompiledLibrary, tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    d = tmp_path_factory.mktemp("sealed")
    so = lib1.export_shared(d / "m.so")
    write_params_blob(d / "m.params.bin", lib1.manifest, cm.make_params())
    return so


def test_the_library_and_the_object_carry_their_manifest(
    lib1: CompiledLibrary, so1: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    obj = lib1.export_object(tmp_path / "m.o")
    assert read_sealed(so1) == lib1.manifest == read_sealed(obj)
    assert lib1.manifest.params_sha256 and len(lib1.manifest.params_sha256) == 64
    symbol = record_symbol("mlc_main")
    assert symbol in defined_symbols(so1)
    # the record is plain data: readable through the loaded library as well
    record = ctypes.c_char * 8
    assert bytes(record.in_dll(ctypes.CDLL(str(so1)), symbol)) == MAGIC


def test_any_damage_is_refused_before_the_library_is_loaded(
    so1: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    data = so1.read_bytes()
    rng = np.random.default_rng(11)
    bad = tmp_path / "bad.so"
    offsets = [0, 4, 5, 0x28, 0x3A, len(data) // 2, len(data) - 1]
    offsets += [int(i) for i in rng.integers(0, len(data), 60)]
    for offset in offsets:
        damaged = bytearray(data)
        damaged[offset] ^= 1 << int(rng.integers(0, 8))
        bad.write_bytes(damaged)
        with pytest.raises(LibraryIntegrityError):
            read_sealed(bad)
    for length in [0, 3, 63, 200, len(data) // 2, len(data) - 1]:
        bad.write_bytes(data[:length])
        with pytest.raises(LibraryIntegrityError):
            read_sealed(bad)


def test_damaged_libraries_fail_cleanly_in_a_new_process(
    so1: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    """The crash of the issue (a flipped byte in the .so: SIGSEGV) is an error message now."""
    data = so1.read_bytes()
    for name, offset in (("header", 0x20), ("middle", len(data) // 2), ("end", len(data) - 8)):
        damaged = bytearray(data)
        damaged[offset] ^= 0xFF
        (tmp_path / f"{name}.so").write_bytes(damaged)
        shutil.copy(so1.with_name("m.params.bin"), tmp_path / f"{name}.params.bin")
        err = assert_clean_failure(run_cli("mlc", "run", tmp_path / f"{name}.so"))
        assert f"{name}.so" in err and ("is damaged" in err or "not a loadable" in err), err
    (tmp_path / "cut.so").write_bytes(data[: len(data) // 3])
    err = assert_clean_failure(run_cli("mlc", "run", tmp_path / "cut.so"))
    assert "cut.so" in err


def test_a_library_from_another_tool_or_version_is_refused(tmp_path: pathlib.Path) -> None:
    libm = pathlib.Path(ctypes.util.find_library("m") or "")
    plain = next(
        (p for p in (pathlib.Path("/lib/x86_64-linux-gnu/libm.so.6"), libm) if p.is_file()), None
    )
    if plain is None:
        pytest.skip("no libm.so.6 to copy")
    shutil.copy(plain, tmp_path / "other.so")
    with pytest.raises(LibraryIntegrityError, match="carries no mlc manifest"):
        load_module(tmp_path / "other.so")
    (tmp_path / "text.so").write_text("not a library")
    with pytest.raises(LibraryIntegrityError, match="is not an ELF file"):
        load_module(tmp_path / "text.so")


def _repack(pkg: pathlib.Path, dest: pathlib.Path, replace: dict[str, bytes]) -> pathlib.Path:
    with tarfile.open(pkg) as src, tarfile.open(dest, "w") as out:
        for m in src.getmembers():
            data = replace.get(m.name, src.extractfile(m).read())  # type: ignore[union-attr]
            info = tarfile.TarInfo(m.name)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
    return dest


def test_an_edited_package_manifest_is_refused(pkg1: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """Issue 11: a package whose manifest said batch 4 ran and returned garbage."""
    with tarfile.open(pkg1) as tar:
        doc = json.loads(tar.extractfile("manifest.json").read())  # type: ignore[union-attr]
    doc["inputs"][0]["shape"][0] = 8
    edited = _repack(pkg1, tmp_path / "edited.tar", {"manifest.json": json.dumps(doc).encode()})
    with pytest.raises(PackageError, match=r"manifest.json\) does not match .*\(inputs: "):
        load_module(edited)
    err = assert_clean_failure(run_cli("mlc", "run", edited))
    assert "edited.tar (manifest.json) does not match the manifest embedded" in err


def test_params_of_another_build_are_refused(
    lib1: CompiledLibrary, pkg1: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    """The digest is checked on request (load_module(verify_params=True), verify_package,
    mlc run --verify-only), not on every load: loading maps the params without reading them."""
    other = {k: v * 2 for k, v in cm.make_params().items()}  # same names, shapes and dtypes
    blob = bytes(params_blob(lib1.manifest, other))
    swapped = _repack(pkg1, tmp_path / "swapped.tar", {"params.bin": blob})
    with pytest.raises(PackageError, match=r"\(params.bin\) holds other parameter values"):
        load_module(swapped, verify_params=True)
    with pytest.raises(PackageError, match=r"swapped.tar \(params.bin\) holds other parameter"):
        verify_package(swapped)
    err = assert_clean_failure(run_cli("mlc", "run", swapped, "--verify-only"))
    assert "swapped.tar (params.bin) holds other parameter values" in err
    assert verify_package(pkg1) == lib1.manifest
    ok = run_cli("mlc", "run", pkg1, "--verify-only")
    assert ok.returncode == 0 and "intact" in ok.stdout, ok.stderr
    load_module(swapped)  # unverified: mapped, not read


def test_verify_only_checks_a_bare_library_and_refuses_other_flags(
    so1: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    assert run_cli("mlc", "run", so1, "--verify-only").returncode == 0
    bad = tmp_path / "m.so"
    shutil.copy(so1, bad)
    blob = bytearray(so1.with_name("m.params.bin").read_bytes())
    blob[-1] ^= 1
    (tmp_path / "m.params.bin").write_bytes(blob)
    err = assert_clean_failure(run_cli("mlc", "run", bad, "--verify-only"))
    assert "m.params.bin holds other parameter values" in err
    (tmp_path / "m.params.bin").write_bytes(blob[:-1])
    err = assert_clean_failure(run_cli("mlc", "run", bad, "--verify-only"))
    assert f"m.params.bin holds {len(blob) - 1} bytes of parameters; the library needs" in err
    with pytest.raises(PackageError, match="truncated"):
        load_module(bad)
    data = bytearray(so1.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad.write_bytes(data)
    err = assert_clean_failure(run_cli("mlc", "run", bad, "--verify-only"))
    assert "m.so is damaged" in err or "not a loadable" in err
    usage = run_cli("mlc", "run", so1, "--verify-only", "--print-time")
    assert usage.returncode == 1 and "--verify-only takes no other run flags" in usage.stderr


def test_the_library_of_another_build_is_refused(
    lib1: CompiledLibrary, pkg1: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    bigger = dataclasses.replace(lib1.manifest, workspace_size=lib1.manifest.workspace_size + 64)
    other = CompiledLibrary(lib1.module, bigger, lib1.params).export_library(tmp_path / "o.tar")
    with tarfile.open(other) as tar:
        library = tar.extractfile("model.so").read()  # type: ignore[union-attr]
    mixed = _repack(pkg1, tmp_path / "mixed.tar", {"model.so": library})
    with pytest.raises(PackageError, match=r"does not match .*\(workspace_size: "):
        load_module(mixed)


def test_truncated_and_foreign_packages(pkg1: pathlib.Path, tmp_path: pathlib.Path) -> None:
    data = pkg1.read_bytes()
    with tarfile.open(pkg1) as tar:
        end = max(m.offset_data + m.size for m in tar.getmembers())  # then padding only
    for length in (end - 1, len(data) // 2, 2000):
        (tmp_path / "cut.tar").write_bytes(data[:length])
        with pytest.raises(PackageError, match="cut.tar is damaged or truncated"):
            load_module(tmp_path / "cut.tar")
    err = assert_clean_failure(run_cli("mlc", "run", tmp_path / "cut.tar"))
    assert "cut.tar is damaged or truncated" in err
    (tmp_path / "model.onnx").write_bytes(b"\x08\x07onnx-ish")
    with pytest.raises(PackageError, match="is not an mlc package .*mlc compile .*model.onnx"):
        load_module(tmp_path / "model.onnx")


def test_a_sealed_package_still_runs(pkg1: pathlib.Path, inputs, params) -> None:
    gm = GraphModule(load_module(pkg1))
    gm.run(**inputs)
    ref = cm.reference(inputs, params)
    np.testing.assert_allclose(gm.get_output("y"), ref["y"], rtol=1e-5, atol=1e-5)
