"""Helpers of the runtime tests (importable: tests/runtime is put on sys.path by conftest)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from mlir import ir

import contract_module as cm
import mlc
from mlc.runtime import CompiledLibrary, SourceModel


def build_library(threads: int = 1, *, text: str | None = None,
                  params: dict[str, np.ndarray] | None = None,
                  source: SourceModel | None = None, runtime: str = "openmp") -> CompiledLibrary:
    """Parse the contract module (or `text`) in a fresh context and lower it to LLVM."""
    ctx = mlc.Context()
    with ctx:
        module = ir.Module.parse(text or cm.module_text())
    return CompiledLibrary.lower(module, params or cm.make_params(), threads=threads, runtime=runtime,
                                 source=source)


def assert_matches_reference(outputs: dict[str, np.ndarray], inputs: dict[str, np.ndarray],
                             params: dict[str, np.ndarray] | None = None) -> None:
    ref = cm.reference(inputs, params or cm.make_params())
    assert set(outputs) == set(ref)
    for name, expected in ref.items():
        np.testing.assert_allclose(outputs[name], expected, rtol=1e-5, atol=1e-5, err_msg=name)


def run_python(code: str, cwd: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter of this venv (new-process loads, crash isolation)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)
