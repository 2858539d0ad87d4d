"""Output files written whole or not at all, and paths checked before any work starts.

A leaf module. Every file mlc writes (packages, `.so`, `.o`, `.mlir`, `.npz`, manifests) goes to
a temporary name in the destination's folder and is renamed over the destination only once it
is complete: an interrupt (Ctrl-C, SIGTERM, a full disk, an exception) leaves the previous file
as it was and removes the temporary one.

    with atomic_output("model.tar") as tmp:   # a path in the same folder
        write_everything(tmp)
    write_bytes_atomic("m.npz", data)

Paths are checked up front (`check_output_file`, `check_input_file`) so that a typo in `-o`
fails in a second, not after a long compilation; messages name the path and its role.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import signal
import tempfile
from collections.abc import Iterator

from mlc.errors import MlcError

PathLike = str | os.PathLike[str]


class PathError(MlcError):
    """An input that cannot be read or an output that cannot be written, found before work."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_output(path: PathLike, *, executable: bool = False) -> Iterator[pathlib.Path]:
    """Yield a temporary path beside `path`; on success it replaces `path` (permissions as a
    newly created file: 0666, or 0777 when `executable`, minus the umask), on any exception
    (KeyboardInterrupt included) it is removed and `path` is left untouched."""
    path = pathlib.Path(path)
    tmp = _temporary_beside(path)
    try:
        yield tmp
        try:
            os.chmod(tmp, (0o777 if executable else 0o666) & ~_umask())
            os.replace(tmp, path)
        except OSError as e:
            raise PathError(f"cannot write '{path}': {e.strerror or e}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _temporary_beside(path: pathlib.Path) -> pathlib.Path:
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise PathError(
            f"cannot write '{path}': {e.strerror or e} (in the folder '{path.parent}')"
        ) from None
    os.close(fd)
    return pathlib.Path(name)


def write_bytes_atomic(path: PathLike, data: bytes, *, executable: bool = False) -> None:
    with atomic_output(path, executable=executable) as tmp:
        tmp.write_bytes(data)


def write_text_atomic(path: PathLike, text: str) -> None:
    with atomic_output(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def check_output_file(path: PathLike, what: str) -> pathlib.Path:
    """`path` can be written as a file: not a directory, in an existing writable folder.
    `what` names its role in messages (`output`, `--params`, ...). Nothing is created."""
    path = pathlib.Path(path)
    where = f"{what} '{path}'"
    if path.is_dir():
        raise PathError(f"{where} is a directory; give a file name inside it")
    parent = path.parent
    for ancestor in [parent, *parent.parents]:
        if ancestor.exists() and not ancestor.is_dir():
            raise PathError(f"{where}: '{ancestor}' is a file, not a folder")
    if not parent.is_dir():
        raise PathError(f"{where}: the folder '{parent}' does not exist; create it first")
    try:  # a real probe: permission bits say nothing for root or a read-only file system
        _temporary_beside(path).unlink()
    except PathError:
        raise PathError(f"{where}: cannot create files in the folder '{parent}'") from None
    return path


def check_input_file(path: PathLike, what: str) -> pathlib.Path:
    """`path` is an existing readable regular file; `what` names its role in messages."""
    path = pathlib.Path(path)
    where = f"{what} '{path}'"
    if not path.exists():
        raise PathError(f"{where}: no such file")
    if path.is_dir():
        raise PathError(f"{where} is a directory, not a file")
    if not os.access(path, os.R_OK):
        raise PathError(f"{where} is not readable (permissions)")
    return path


def check_output_directory(path: PathLike, what: str) -> pathlib.Path:
    """`path` is an existing writable folder, or can be created as one (its parent exists)."""
    path = pathlib.Path(path)
    where = f"{what} '{path}'"
    if path.exists():
        if not path.is_dir():
            raise PathError(f"{where} is a file, not a folder")
        try:
            _temporary_beside(path / "probe").unlink()
        except PathError:
            raise PathError(f"{where}: cannot create files in it") from None
        return path
    check_output_file(path, what)
    return path


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Inside: SIGTERM raises KeyboardInterrupt (as Ctrl-C does), so that `atomic_output`
    cleans up and the CLIs exit with their interrupt status instead of dying mid-write."""

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


__all__ = [
    "PathError",
    "atomic_output",
    "check_input_file",
    "check_output_directory",
    "check_output_file",
    "terminate_as_interrupt",
    "write_bytes_atomic",
    "write_text_atomic",
]
