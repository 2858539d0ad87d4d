"""Packages: one `.tar` holding everything needed to run a compiled module, and `load_module`.

Layout (flat, uncompressed tar):

    model.so                  position-independent shared library, RUNPATH $ORIGIN
    manifest.json             `Manifest.to_json()` (contract + build info)
    params.npz                one .npy per parameter, keyed by name (no pickle)
    libmlir_async_runtime.so  each MLIR runtime library listed in manifest.runtime_libs

Extraction trusts nothing in the archive: every member must be a regular file with a plain
name from that list (absolute paths, `..`, links, devices, FIFOs, directories other than `.`,
duplicates and unknown names are rejected before anything is written), and the files are
written by this module (`O_EXCL | O_NOFOLLOW`, owner-only permissions) into a fresh private
temporary directory, which is removed once the library is loaded.
"""

from __future__ import annotations

import io
import logging
import os
import pathlib
import shutil
import tarfile
import tempfile
from collections.abc import Mapping

import numpy as np

from mlc.contract import Manifest, ManifestError
from mlc.errors import MlcError, ToolError
from mlc.npz import NpzError, npz_bytes, read_npz
from mlc.runtime import linker
from mlc.runtime.module import CIFACE_PREFIX, RuntimeModule, SharedEntry
from mlc.runtime.target import check_host

LIBRARY, MANIFEST, PARAMS = "model.so", "manifest.json", "params.npz"
_log = logging.getLogger(__name__)


class PackageError(MlcError):
    """A package that is not a readable mlc package (missing or unexpected members)."""


class UnsafePackageError(PackageError):
    """A package member that could write outside the extraction directory, or is not a file."""


def runtime_member(name: str) -> str:
    return f"lib{name}.so"


# -- writing ---------------------------------------------------------------------------------
def write_package(
    path: pathlib.Path,
    shared_lib: pathlib.Path,
    manifest: Manifest,
    params: Mapping[str, np.ndarray],
) -> None:
    """Write the package tar (members in a fixed order with normalized metadata)."""
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tar:
        _add_bytes(tar, MANIFEST, manifest.to_json().encode(), 0o644)
        _add_bytes(tar, PARAMS, params_to_npz(manifest, params), 0o644)
        _add_bytes(tar, LIBRARY, shared_lib.read_bytes(), 0o755)
        for name in manifest.runtime_libs:
            _add_bytes(
                tar, runtime_member(name), linker.installed_runtime_lib(name).read_bytes(), 0o755
            )


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes, mode: int) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), mode, 0
    tar.addfile(info, io.BytesIO(data))


def params_to_npz(manifest: Manifest, params: Mapping[str, np.ndarray]) -> bytes:
    """The params table as .npz bytes, one array per manifest param, in manifest order."""
    return npz_bytes({spec.name: params[spec.name] for spec in manifest.params})


def load_params(path: pathlib.Path) -> dict[str, np.ndarray]:
    """Read params.npz (pickle disabled); RuntimeModule checks names, shapes and dtypes."""
    try:
        return read_npz(path, "parameters", shown=path.name)
    except NpzError as e:
        raise PackageError(str(e)) from None


# -- safe extraction -------------------------------------------------------------------------
def check_member(member: tarfile.TarInfo) -> str | None:
    """The plain file name a member may be extracted to, None for a `.` directory entry;
    UnsafePackageError for anything else."""
    name = member.name
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UnsafePackageError(f"package member '{name}' has an absolute path")
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UnsafePackageError(f"package member '{name}' refers to a parent directory ('..')")
    if member.issym() or member.islnk():
        kind = "symbolic" if member.issym() else "hard"
        raise UnsafePackageError(
            f"package member '{name}' is a {kind} link to "
            f"'{member.linkname}'; packages contain regular files only"
        )
    if member.isdev() or member.isfifo():
        raise UnsafePackageError(f"package member '{name}' is a device or FIFO")
    if member.isdir() and not parts:
        return None
    if not member.isfile():
        raise UnsafePackageError(f"package member '{name}' is not a regular file")
    if len(parts) != 1:
        raise UnsafePackageError(
            f"package member '{name}' is in a sub-directory; the package layout is flat"
        )
    return parts[0]


def extract_package(path: pathlib.Path, dest: pathlib.Path) -> Manifest:
    """Validate every member, read the manifest, then write the expected files into `dest`."""
    try:
        tar = tarfile.open(path, "r:*")
    except (OSError, tarfile.TarError) as e:
        raise PackageError(f"{path} is not a readable package (tar): {e}") from None
    with tar:
        files: dict[str, tarfile.TarInfo] = {}
        for member in tar.getmembers():
            name = check_member(member)
            if name is None:
                continue
            if name in files:
                raise UnsafePackageError(f"package member '{name}' appears twice")
            files[name] = member
        if MANIFEST not in files:
            raise PackageError(f"{path} has no {MANIFEST}: not an mlc package")
        manifest = Manifest.from_json(_read(tar, files[MANIFEST]).decode("utf-8", "replace"))
        expected = {MANIFEST, PARAMS, LIBRARY} | {runtime_member(n) for n in manifest.runtime_libs}
        unexpected = sorted(set(files) - expected)
        if unexpected:
            raise PackageError(f"{path} has unexpected members: {', '.join(unexpected)}")
        missing = sorted(expected - set(files))
        if missing:
            raise PackageError(f"{path} lacks members: {', '.join(missing)}")
        for name, member in files.items():
            mode = 0o700 if name.endswith(".so") else 0o600
            fd = os.open(dest / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
            with os.fdopen(fd, "wb") as out:
                out.write(_read(tar, member))
    return manifest


def _read(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    f = tar.extractfile(member)
    assert f is not None, "check_member admits regular files only"
    return f.read()


# -- loading ---------------------------------------------------------------------------------
def load_module(
    path: str | os.PathLike[str],
    *,
    manifest: Manifest | str | os.PathLike[str] | None = None,
    params: Mapping[str, np.ndarray] | str | os.PathLike[str] | None = None,
) -> RuntimeModule:
    """Load a package (a tar, whatever its suffix), or a bare `.so` with its manifest and
    params, without compiling.

    For a bare `.so`, `manifest` (a Manifest or a path) defaults to `manifest.json` next to it
    and `params` (a mapping or an .npz path) to `params.npz` next to it.
    """
    path = pathlib.Path(path)
    if not path.exists():
        raise PackageError(f"{path} does not exist")
    if path.suffix != ".so":
        if manifest is not None or params is not None:
            raise ValueError("manifest= and params= apply to a bare .so, not to a package")
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="mlc-pkg-"))  # mode 0700
        try:
            found = extract_package(path, tmp)
            return _load(tmp / LIBRARY, found, load_params(tmp / PARAMS))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)  # the loaded library stays mapped
    if isinstance(manifest, Manifest):
        found = manifest
    else:
        mpath = pathlib.Path(manifest) if manifest is not None else path.with_name(MANIFEST)
        if not mpath.is_file():
            raise ManifestError(
                f"no manifest for {path.name}: expected {mpath} (or pass manifest=)"
            )
        found = Manifest.from_json(mpath.read_text())
    if params is None or isinstance(params, (str, os.PathLike)):
        ppath = pathlib.Path(params) if params is not None else path.with_name(PARAMS)
        table = load_params(ppath) if found.params or ppath.is_file() else {}
    else:
        table = dict(params)
    return _load(path, found, table)


def _load(so: pathlib.Path, manifest: Manifest, params: dict[str, np.ndarray]) -> RuntimeModule:
    check_host(manifest.target)
    from mlc.version import mlir_version

    if manifest.mlir_version and manifest.mlir_version != mlir_version():
        _log.warning(
            "package built with MLIR %s, running with %s", manifest.mlir_version, mlir_version()
        )
    lib = linker.load_shared(so)
    symbol = CIFACE_PREFIX + manifest.entry
    try:
        getattr(lib, symbol)
    except AttributeError:
        raise ToolError(f"{so.name} does not export {symbol}") from None
    return RuntimeModule(
        manifest, params, SharedEntry(lib, manifest.entry), "shared", keepalive=(lib,)
    )
