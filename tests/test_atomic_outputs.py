"""Outputs are written whole or not at all (issue 11, item 2: SIGINT while `model.tar` was being
written left a 0-byte file where a working package was). Each case interrupts a real `mlc`
command mid-write with a signal and checks the previous file is intact and no temporary file
is left behind."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from helpers.cli import conv_model
from mlc.files import atomic_output, write_bytes_atomic

pytest.importorskip("onnx")

TESTS = pathlib.Path(__file__).resolve().parent

# Where each output kind is slowed down, right after part of the temporary file is written.
_SLOW = {
    "tar": (
        "mlc.runtime.package",
        "_add_bytes",
        "lambda real: lambda tar, name, *a: "
        "(real(tar, name, *a), name == 'params.bin' and stall())",
    ),
    "so": ("mlc.runtime.embedded", "seal", "lambda real: lambda path: (real(path), stall())"),
    "npz": (
        "mlc.npz",
        "_write",
        "lambda real: lambda target, arrays: (real(target, arrays), stall())",
    ),
}

# The child takes SIGINT as Ctrl-C even where the test runs as a background job (a shell starts
# those with SIGINT ignored, and the child would inherit that and sleep on).
_DRIVER = """
import importlib, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
def stall():
    print("mid-write", flush=True)
    time.sleep(120)
module = importlib.import_module({module!r})
setattr(module, {name!r}, ({wrap})(getattr(module, {name!r})))
from mlc.driver import _main
sys.exit(_main({argv!r}))
"""


def _interrupt(kind: str, argv: list[str], sig: int) -> subprocess.CompletedProcess[str]:
    module, name, wrap = _SLOW[kind]
    code = _DRIVER.format(module=module, name=name, wrap=wrap, argv=argv)
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=TESTS,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 240
    while True:
        line = proc.stdout.readline()
        if "mid-write" in line:
            break
        assert line and time.monotonic() < deadline, proc.communicate()[1]
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize(
    "kind, suffix, sig",
    [("tar", ".tar", signal.SIGINT), ("so", ".so", signal.SIGTERM), ("so", ".o", signal.SIGINT)],
)
def test_an_interrupted_compile_keeps_the_previous_output(
    tmp_path: pathlib.Path, kind: str, suffix: str, sig: int
) -> None:
    model = conv_model(tmp_path / "m.onnx")
    out = tmp_path / f"m{suffix}"
    out.write_bytes(b"the previous, working output")
    proc = _interrupt(kind, ["compile", str(model), "-o", str(out)], sig)
    assert proc.returncode == 130, proc.stderr
    assert "mlc compile: error: interrupted (outputs not written)" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert out.read_bytes() == b"the previous, working output"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_an_interrupted_import_keeps_the_previous_params(tmp_path: pathlib.Path) -> None:
    model = conv_model(tmp_path / "m.onnx")
    params = tmp_path / "m.mlir.npz"
    params.write_bytes(b"previous parameters")
    proc = _interrupt("npz", ["import", str(model), "-o", str(tmp_path / "m.mlir")], signal.SIGINT)
    assert proc.returncode == 130, proc.stderr
    assert params.read_bytes() == b"previous parameters"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_atomic_output_on_error_and_success(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "f.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_output(target) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("disk full")
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["f.bin"]
    write_bytes_atomic(target, b"new", executable=True)
    assert target.read_bytes() == b"new" and os.listdir(tmp_path) == ["f.bin"]
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o777 & ~mask


def test_tuning_records_are_appended_whole(tmp_path: pathlib.Path) -> None:
    """Records are an append-only log (several writers may share it): each append is whole
    lines or nothing, never half a record."""
    from mlc.tuner.records import Record, append_records, load_records

    log = tmp_path / "log.jsonl"
    append_records(log, [Record("w", "b", "{}", 3.0)])

    def failing() -> Iterator[Record]:
        yield Record("w", "c", "{}", 1.0)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        append_records(log, failing())
    append_records(log, [Record("v", "b", "{}", 2.0), Record("v", "c", "{}", 4.0)])
    assert [(r.workload, r.block) for r in load_records(log)] == [
        ("w", "b"),
        ("v", "b"),
        ("v", "c"),
    ]
