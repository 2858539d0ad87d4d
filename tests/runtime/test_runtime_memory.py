"""A module whose buffers do not fit in the memory available fails before allocating, with a
message giving both sizes (a 64 GiB workspace used to end in exit 70, a MemoryError)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from mlc.driver import _main
from mlc.runtime import GraphModule, load_module, memory


def test_a_module_larger_than_the_memory_available(
    pkg1: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = load_module(pkg1)
    need = sum(memory.needed_bytes(module.manifest).values())
    monkeypatch.setattr(memory, "available_bytes", lambda: need - 1)
    with pytest.raises(memory.MemoryLimitError, match=r"needs .* of memory \(.*\), more than"):
        GraphModule(module)
    assert _main(["run", str(pkg1)]) == 4
    err = capsys.readouterr().err
    assert f"more than the {need - 1} B available here" in err and "internal error" not in err
    monkeypatch.setattr(memory, "available_bytes", lambda: need)
    GraphModule(module)  # exactly enough is enough


def test_available_memory_honours_the_address_space_limit() -> None:
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); "
        "from mlc.runtime.memory import available_bytes; print(available_bytes())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 0 < int(out.stdout) <= 3 << 30
