"""The params blob outside memory: `params.bin` (a package member, or `<stem>.params.bin`
beside a `.so`) holds it exactly as the entry takes it (`params_size` bytes, each parameter at
its manifest offset), so loading maps it instead of reading and packing parameters one by one.
Its sha256 is the manifest's `params_sha256` (`mlc.contract.params_digest`)."""

from __future__ import annotations

import hashlib
import mmap
import os
import pathlib
from collections.abc import Mapping

import numpy as np

from mlc.contract import ALIGNMENT, Manifest
from mlc.errors import MlcError
from mlc.files import atomic_output
from mlc.runtime.graph_module import aligned_empty, pack_params

__all__ = [
    "PackageError",
    "check_blob_digest",
    "map_params",
    "params_blob",
    "params_views",
    "write_params_blob",
]


class PackageError(MlcError):
    """A package that is not a readable mlc package (missing or unexpected members), or params
    that do not fit its library (defined here, where params files are read; `package` exports
    it)."""


def params_blob(manifest: Manifest, params: Mapping[str, np.ndarray]) -> memoryview:
    """The params blob the entry takes (the content of params.bin)."""
    return memoryview(pack_params(manifest, params))


def write_params_blob(
    path: pathlib.Path, manifest: Manifest, params: Mapping[str, np.ndarray]
) -> None:
    """Write `<stem>.params.bin` (under a temporary name, renamed into place)."""
    with atomic_output(path) as tmp:
        tmp.write_bytes(params_blob(manifest, params))


def map_params(path: pathlib.Path, manifest: Manifest, shown: str, offset: int = 0) -> np.ndarray:
    """The params blob stored in `path` from `offset` (a params.bin, or the member of a
    package), mapped copy-on-write: pages are read when the model first touches them. A
    sidecar file must hold exactly `params_size` bytes; PackageError names a truncated one."""
    size = manifest.params_size
    try:
        with open(path, "rb") as f:
            available = os.fstat(f.fileno()).st_size - offset
            if available < size or (offset == 0 and available != size):
                raise PackageError(
                    f"{shown} holds {max(available, 0)} bytes of parameters; the library needs "
                    f"{size} (truncated, or from another build): use the files mlc compile wrote"
                )
            if size == 0:
                return aligned_empty((0,), np.uint8)
            start = offset - offset % mmap.ALLOCATIONGRANULARITY
            mapped = mmap.mmap(
                f.fileno(), offset + size - start, access=mmap.ACCESS_COPY, offset=start
            )
    except OSError as e:
        raise PackageError(f"cannot read {shown}: {e.strerror or e}") from None
    blob = np.frombuffer(mapped, np.uint8, count=size, offset=offset - start)
    if blob.ctypes.data % ALIGNMENT:  # a tar member starts on 512 bytes: never, in practice
        aligned = aligned_empty((size,), np.uint8)
        aligned[:] = blob
        return aligned
    return blob


def params_views(manifest: Manifest, blob: np.ndarray) -> dict[str, np.ndarray]:
    """Each parameter as a view into the blob (no copy)."""
    return {
        p.name: blob[p.offset : p.offset + p.nbytes].view(p.dtype).reshape(p.shape)
        for p in manifest.params
    }


def check_blob_digest(manifest: Manifest, blob: np.ndarray, shown: str) -> None:
    """The blob is the one the library was compiled with (one full read of it)."""
    if manifest.params_sha256 and hashlib.sha256(blob).hexdigest() != manifest.params_sha256:
        raise PackageError(
            f"{shown} holds other parameter values than the library was compiled with "
            "(a params file of another build, or modified); use the files written together"
        )
