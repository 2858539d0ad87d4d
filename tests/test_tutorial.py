"""docs/tutorial.md: every ```python and ```sh snippet runs, in order, in one namespace and one
scratch folder (python snippets are written to files so that @T.script can read their source)."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

from mlc import tp as T

ROOT = pathlib.Path(__file__).resolve().parents[1]
SNIPPET = re.compile(r"^```(python|sh)\n(.*?)^```$", re.S | re.M)


def snippets() -> list[tuple[str, str]]:
    return SNIPPET.findall((ROOT / "docs" / "tutorial.md").read_text())


def test_tutorial_snippets_run(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = snippets()
    assert [kind for kind, _ in found].count("python") >= 8 and "sh" in [k for k, _ in found]
    monkeypatch.chdir(tmp_path)
    env = dict(os.environ, PATH=f"{pathlib.Path(sys.executable).parent}:{os.environ['PATH']}")
    namespace: dict[str, object] = {"__name__": "tutorial"}
    try:
        for n, (kind, code) in enumerate(found):
            if kind == "sh":
                proc = subprocess.run(["bash", "-e", "-c", code], env=env, capture_output=True)
                assert proc.returncode == 0, f"snippet {n}:\n{code}\n{proc.stderr.decode()}"
                continue
            path = tmp_path / f"snippet_{n}.py"
            path.write_text(code)
            exec(compile(code, str(path), "exec"), namespace)  # noqa: S102 - the docs' own code
    finally:
        for op in ("ScaleRows", "Softsign"):
            T.unregister_onnx_op(op, domain="com.example")
