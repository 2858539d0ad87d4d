"""Packages: one `.tar` holding everything needed to run a compiled module, and `load_module`.

Layout (flat, uncompressed tar):

    model.so                  position-independent shared library, RUNPATH $ORIGIN, carrying
                              its manifest and sealed with its digest (`embedded.py`)
    manifest.json             `Manifest.to_json()` (contract + build info): the same manifest
    libiomp5.so ...           each runtime library listed in manifest.runtime_libs
    params.bin                the params blob exactly as the entry takes it (`params_size`
                              bytes, each parameter at its manifest offset); last, so its data
                              starts on a 512-byte tar block; its sha256 is params_sha256

A package is written under a temporary name and renamed into place (never half-written); a
bare `.so` or `.o` output has `<stem>.manifest.json` and `<stem>.params.bin` beside it.

Loading maps params.bin from the package file copy-on-write (`mmap`, nothing read up front):
`load_module` costs the library's seal check and a dlopen, not a pass over the weights. The
params digest recorded at build time is checked on request (`verify_params=True`,
`verify_package`, `mlc run --verify-only`); the size is always checked.

Extraction trusts nothing in the archive: every member must be a regular file with a plain
name from that list (absolute paths, `..`, links, devices, FIFOs, directories other than `.`,
duplicates and unknown names are rejected before anything is written), and the libraries are
written by this module (`O_EXCL | O_NOFOLLOW`, owner-only permissions) into a fresh private
temporary directory, which is removed once the library is loaded.
"""

from __future__ import annotations

import io
import json
import logging
import os
import pathlib
import shutil
import tarfile
import tempfile
from collections.abc import Mapping

import numpy as np

from mlc.contract import Manifest, ManifestError, params_digest
from mlc.errors import ToolError
from mlc.files import atomic_output
from mlc.npz import NpzError, read_npz
from mlc.runtime import embedded, linker
from mlc.runtime.module import CIFACE_PREFIX, RuntimeModule, SharedEntry, check_params
from mlc.runtime.params_blob import (
    PackageError,
    check_blob_digest,
    map_params,
    params_blob,
    params_views,
)
from mlc.runtime.target import check_host

LIBRARY, MANIFEST, PARAMS = "model.so", "manifest.json", "params.bin"
MAX_MEMBER_BYTES = 64 << 30
"""A member declaring more (a forged tar header) is refused before anything is extracted."""
_log = logging.getLogger(__name__)


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
    """Write the package tar (members in a fixed order with normalized metadata) under a
    temporary name, renamed to `path` once complete."""
    with atomic_output(path) as tmp, tarfile.open(tmp, "w", format=tarfile.PAX_FORMAT) as tar:
        _add_bytes(tar, MANIFEST, manifest.to_json().encode(), 0o644)
        _add_bytes(tar, LIBRARY, shared_lib.read_bytes(), 0o755)
        for name in manifest.runtime_libs:
            _add_bytes(
                tar, runtime_member(name), linker.installed_runtime_lib(name).read_bytes(), 0o755
            )
        _add_bytes(tar, PARAMS, params_blob(manifest, params), 0o644)


def sidecar_files(library: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """(manifest, params) files written beside a bare `.so` or `.o`: `<stem>.manifest.json`
    and `<stem>.params.bin`, named after it so that several libraries can share a folder."""
    return (
        library.with_name(f"{library.stem}.{MANIFEST}"),
        library.with_name(f"{library.stem}.{PARAMS}"),
    )


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes | memoryview, mode: int) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), mode, 0
    tar.addfile(info, io.BytesIO(data))


def load_params(path: pathlib.Path, shown: str | None = None) -> dict[str, np.ndarray]:
    """Read a params .npz (pickle disabled); RuntimeModule checks names, shapes and dtypes."""
    try:
        return read_npz(path, "parameters", shown=shown or path.name)
    except NpzError as e:
        raise PackageError(str(e)) from None


def check_params_digest(manifest: Manifest, params: Mapping[str, np.ndarray], shown: str) -> None:
    """The params are those the library was compiled with (names, shapes, dtypes, values)."""
    check_params(manifest, params)
    if manifest.params_sha256 and params_digest(manifest, params) != manifest.params_sha256:
        raise PackageError(
            f"{shown} holds other parameter values than the library was compiled with "
            "(a params file of another build?); use the files written together with it"
        )


def check_same_manifest(listed: Manifest, embedded_manifest: Manifest, shown: str) -> None:
    """A manifest file must say exactly what the library's embedded manifest says."""
    a, b = listed.to_dict(), embedded_manifest.to_dict()
    differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    if differ:
        detail = "; ".join(
            f"{k}: {_short(a.get(k))} in the file, {_short(b.get(k))} in the library"
            for k in differ[:3]
        )
        raise PackageError(
            f"{shown} does not match the manifest embedded in the library ({detail}): it was "
            "edited, or comes from another build; use the files written together"
        )


def _short(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


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
    if member.size > MAX_MEMBER_BYTES:
        raise UnsafePackageError(
            f"package member '{name}' declares {member.size} bytes, more than the "
            f"{MAX_MEMBER_BYTES} a package member may hold"
        )
    return parts[0]


def extract_package(
    path: pathlib.Path, dest: pathlib.Path, *, with_params: bool = True
) -> tuple[Manifest, int]:
    """Validate every member, read the manifest, then write the expected files into `dest`
    (params.bin too unless `with_params` is False). Returns the manifest and the offset of
    params.bin's data in the package file (where `map_params` maps it from)."""
    try:
        tar = tarfile.open(path, "r:")  # packages are never compressed
    except OSError as e:
        raise PackageError(f"cannot read {path}: {e.strerror or e}") from None
    except tarfile.TarError:
        hint = {
            ".onnx": f"; compile it first: mlc compile {path} -o {path.stem}.tar",
            ".mlir": f"; compile it first: mlc compile {path} -o {path.stem}.tar",
            ".o": "; an object file is for linking into a program: compile to .tar or .so to run",
        }.get(path.suffix, "")
        raise PackageError(
            f"{path} is not an mlc package (an uncompressed .tar written by mlc compile){hint}"
        ) from None
    try:
        with tar:
            return _extract(path, tar, dest, with_params)
    except (tarfile.TarError, EOFError) as e:
        raise PackageError(f"{path} is damaged or truncated ({e}); write it again") from None


def _extract(
    path: pathlib.Path, tar: tarfile.TarFile, dest: pathlib.Path, with_params: bool
) -> tuple[Manifest, int]:
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
    try:
        manifest = Manifest.from_json(_read(tar, files[MANIFEST]).decode("utf-8", "replace"))
    except ManifestError as e:
        raise PackageError(f"{path}: {MANIFEST}: {e}") from None
    expected = {MANIFEST, PARAMS, LIBRARY} | {runtime_member(n) for n in manifest.runtime_libs}
    unexpected = sorted(set(files) - expected)
    if unexpected:
        raise PackageError(f"{path} has unexpected members: {', '.join(unexpected)}")
    missing = sorted(expected - set(files))
    if missing:
        raise PackageError(f"{path} lacks members: {', '.join(missing)}")
    params = files[PARAMS]
    if params.size != manifest.params_size:
        raise PackageError(
            f"{path} ({PARAMS}) holds {params.size} bytes of parameters; the library needs "
            f"{manifest.params_size}: the package was edited or is damaged; write it again"
        )
    for name, member in files.items():
        if name == PARAMS and not with_params:
            continue
        mode = 0o700 if name.endswith(".so") else 0o600
        fd = os.open(dest / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        with os.fdopen(fd, "wb") as out:
            out.write(_read(tar, member))
    return manifest, params.offset_data


def _read(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    f = tar.extractfile(member)
    assert f is not None, "check_member admits regular files only"
    data = f.read()
    if len(data) != member.size:
        raise PackageError(f"package member '{member.name}' is truncated")
    return data


# -- loading ---------------------------------------------------------------------------------
ParamsArg = Mapping[str, np.ndarray] | str | os.PathLike[str] | None


def load_module(
    path: str | os.PathLike[str], *, params: ParamsArg = None, verify_params: bool = False
) -> RuntimeModule:
    """Load a package (a tar, whatever its suffix), or a bare `.so`, without compiling.

    Nothing is loaded before it is checked: the library against the digest it was sealed with
    and its embedded manifest against the package's `manifest.json` (or the `<stem>.manifest
    .json` beside a bare `.so`), the params' size against the manifest. params.bin is mapped,
    not read; `verify_params=True` also checks it against the digest the manifest records
    (one read of every byte; params given as a mapping or an .npz are always checked). A bare
    `.so` takes its params from `params` (a mapping, a params .bin or an .npz path), by
    default from `<stem>.params.bin` beside it.
    """
    path = pathlib.Path(path)
    if not path.exists():
        raise PackageError(f"{path} does not exist")
    if path.is_dir():
        raise PackageError(f"{path} is a directory, not a package (.tar) or library (.so)")
    if path.suffix != ".so":
        if params is not None:
            raise ValueError("params= applies to a bare .so, not to a package")
        return _load_package(path, verify_params)
    manifest, table, blob = _library_params(path, params, verify_params)
    # dlopen a private copy: the loader hands back an already-loaded library for a path it has
    # seen (a rebuilt m.so loaded again in one process would run the old code), and a file
    # rewritten in place under a loaded library crashes the process
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="mlc-so-"))  # mode 0700
    try:
        copy = tmp / path.name
        shutil.copyfile(path, copy)
        return _load(copy, manifest, table, blob)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # the loaded library stays mapped


def _library_params(
    path: pathlib.Path, params: ParamsArg, verify_params: bool
) -> tuple[Manifest, dict[str, np.ndarray], np.ndarray | None]:
    """The sealed manifest of a bare `.so` and its params (a mapped blob, or a table)."""
    manifest = embedded.read_sealed(path)
    listed, default_params = sidecar_files(path)
    if listed.is_file():
        check_same_manifest(_read_manifest_file(listed), manifest, str(listed))
    if params is not None and not isinstance(params, (str, os.PathLike)):
        table = dict(params)
        check_params_digest(manifest, table, "the params given")
        return manifest, table, None
    ppath = pathlib.Path(params) if params is not None else default_params
    if params is None and not ppath.is_file():
        at = embedded.embedded_params_offset(path, manifest)
        if at is not None:  # --embed-params: inside the library, covered by its seal
            shown = f"{path} (embedded params)"
            blob = map_params(path, manifest, shown, offset=at)
            if verify_params:
                check_blob_digest(manifest, blob, shown)
            return manifest, params_views(manifest, blob), blob
    if not ppath.is_file():
        if manifest.params:
            raise PackageError(
                f"{path.name} needs its {len(manifest.params)} parameters: expected {ppath} "
                "(written beside it by mlc compile)"
            )
        return manifest, {}, None
    if ppath.suffix == ".npz":
        table = load_params(ppath, shown=str(ppath))
        check_params_digest(manifest, table, str(ppath))
        return manifest, table, None
    blob = map_params(ppath, manifest, str(ppath))
    if verify_params:
        check_blob_digest(manifest, blob, str(ppath))
    return manifest, params_views(manifest, blob), blob


def _read_manifest_file(path: pathlib.Path) -> Manifest:
    try:
        return Manifest.from_json(path.read_text(encoding="utf-8", errors="replace"))
    except OSError as e:
        raise PackageError(f"cannot read {path}: {e.strerror or e}") from None
    except ManifestError as e:
        raise PackageError(f"{path}: {e}") from None


def _checked_package(
    path: pathlib.Path, tmp: pathlib.Path, verify_params: bool
) -> tuple[Manifest, np.ndarray]:
    """Extract the libraries of a package into `tmp`, check them and map its params."""
    listed, params_offset = extract_package(path, tmp, with_params=False)
    manifest = embedded.read_sealed(tmp / LIBRARY, shown=f"{path} ({LIBRARY})")
    check_same_manifest(listed, manifest, f"{path} ({MANIFEST})")
    shown = f"{path} ({PARAMS})"
    blob = map_params(path, manifest, shown, offset=params_offset)
    if verify_params:
        check_blob_digest(manifest, blob, shown)
    return manifest, blob


def _load_package(path: pathlib.Path, verify_params: bool) -> RuntimeModule:
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="mlc-pkg-"))  # mode 0700
    try:
        manifest, blob = _checked_package(path, tmp, verify_params)
        return _load(tmp / LIBRARY, manifest, params_views(manifest, blob), blob)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # the loaded library stays mapped


def verify_package(path: str | os.PathLike[str]) -> Manifest:
    """Check a package or a bare `.so` completely without loading it (no dlopen): the library's
    seal, its manifest against manifest.json, the params' size and digest. Returns the
    manifest; PackageError / LibraryIntegrityError say what is wrong."""
    path = pathlib.Path(path)
    if not path.exists():
        raise PackageError(f"{path} does not exist")
    if path.is_dir():
        raise PackageError(f"{path} is a directory, not a package (.tar) or library (.so)")
    if path.suffix == ".so":
        return _library_params(path, None, verify_params=True)[0]
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="mlc-verify-"))
    try:
        return _checked_package(path, tmp, verify_params=True)[0]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _load(
    so: pathlib.Path,
    manifest: Manifest,
    params: dict[str, np.ndarray],
    blob: np.ndarray | None = None,
) -> RuntimeModule:
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
        manifest,
        params,
        SharedEntry(lib, manifest.entry),
        "shared",
        keepalive=(lib,),
        params_blob=blob,
    )
