""".npz files of named arrays (parameters, inputs, outputs): one reader and one writer for mlc.

An .npz is a zip of `<name>.npy` entries. mlc never loads pickled objects, and writes entries one
by one with any name (np.savez's keyword form clashes with names such as `file`). A leaf module:
the frontend, the runtime and the CLIs all read and write parameters through it.
"""

from __future__ import annotations

import io
import math
import os
import tokenize
import zipfile
from collections.abc import Mapping
from typing import BinaryIO

import numpy as np

from mlc.errors import MlcError
from mlc.files import atomic_output

PathLike = str | os.PathLike[str]


class NpzError(MlcError):
    """An .npz file that cannot be read; the message names the file and what is wrong with it."""


def read_npz(
    path: PathLike, what: str = "arrays", shown: str | None = None
) -> dict[str, np.ndarray]:
    """Every array of the .npz at `path`, by name. Errors name the file's role (`what`:
    `parameters`, `--inputs`) and the file as the user knows it (`shown`, default `path`)."""
    where = f"cannot read {what} '{shown or os.fspath(path)}'"
    try:
        with open(path, "rb") as f:
            head = f.read(6)
    except OSError as e:
        raise NpzError(f"{where}: {e.strerror or e}") from None
    if head.startswith(b"\x93NUMPY"):
        raise NpzError(
            f"{where}: it is a single .npy array, not an .npz archive of named arrays; "
            "write one with numpy.savez(path, name=array)"
        )
    if not zipfile.is_zipfile(path):
        raise NpzError(
            f"{where}: not an .npz archive (a zip of .npy arrays); "
            "write one with numpy.savez(path, name=array)"
        )
    try:
        _check_sizes(path, where)
        with np.load(path, allow_pickle=False) as data:
            return {name: data[name] for name in data.files}
    except ValueError as e:
        if "pickle" in str(e):
            raise NpzError(
                f"{where}: it holds Python objects (pickled), which mlc does not "
                "load; store plain numeric arrays"
            ) from None
        raise NpzError(f"{where}: {e}") from None
    # NotImplementedError: zipfile on entry flags it does not support (encryption, patches)
    except (OSError, zipfile.BadZipFile, EOFError, NotImplementedError) as e:
        raise NpzError(f"{where}: a damaged archive ({e})") from None


def _check_sizes(path: PathLike, where: str) -> None:
    """Every entry holds the bytes its .npy header declares: a header one edit away from the
    real one (a dim of 2**40, a product past int64) is an error here, before numpy allocates
    what it declares."""
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if not info.filename.endswith(".npy"):
                continue
            with archive.open(info) as f:
                try:
                    version = np.lib.format.read_magic(f)
                    read = (
                        np.lib.format.read_array_header_1_0
                        if version == (1, 0)
                        else np.lib.format.read_array_header_2_0
                    )
                    shape, _, dtype = read(f)
                except (ValueError, TypeError, SyntaxError, tokenize.TokenError) as e:
                    raise NpzError(f"{where}: entry '{info.filename}': {e}") from None
                header = f.tell()
            if dtype.hasobject:
                continue  # refused by np.load without pickle, with its own message
            declared = math.prod(shape) * dtype.itemsize
            if header + declared != info.file_size:
                raise NpzError(
                    f"{where}: entry '{info.filename}' declares shape {tuple(shape)} of "
                    f"{dtype} ({declared} bytes) but holds {info.file_size - header}: "
                    "damaged or truncated; write it again"
                )


def write_npz(target: PathLike | BinaryIO, arrays: Mapping[str, np.ndarray]) -> None:
    """Write `arrays` as an uncompressed .npz, entry by entry (large models are not buffered);
    a path is written under a temporary name and renamed once complete."""
    if isinstance(target, (str, os.PathLike)):
        with atomic_output(target) as tmp:
            _write(tmp, arrays)
    else:
        _write(target, arrays)


def _write(target: PathLike | BinaryIO, arrays: Mapping[str, np.ndarray]) -> None:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as archive:
        for name, array in arrays.items():
            # np.require keeps a rank-0 array rank 0 (np.ascontiguousarray makes it [1])
            value = np.require(array, requirements="C")
            with archive.open(f"{name}.npy", "w", force_zip64=True) as entry:
                np.lib.format.write_array(entry, value, allow_pickle=False)


def npz_bytes(arrays: Mapping[str, np.ndarray]) -> bytes:
    """The .npz of `arrays` as bytes (for a package member)."""
    buf = io.BytesIO()
    write_npz(buf, arrays)
    return buf.getvalue()


__all__ = ["NpzError", "npz_bytes", "read_npz", "write_npz"]
