"""Helpers of the runtime tests: the contract module lowered to a library, subprocess runs."""

from __future__ import annotations

import pathlib
import subprocess
import sys
from collections.abc import Mapping

import numpy as np
from mlir import ir

import mlc
from helpers import contract_module as cm
from mlc.runtime import CompiledLibrary, SourceModel
from mlc.runtime.library import check_contract, read_manifest

TESTS = pathlib.Path(__file__).resolve().parents[1]


def build_library(
    threads: int = 1,
    *,
    text: str | None = None,
    params: dict[str, np.ndarray] | None = None,
    source: SourceModel | None = None,
    runtime: str = "openmp",
    schedule: str = "static",
) -> CompiledLibrary:
    """Parse the contract module (or `text`) in a fresh context and lower it to LLVM."""
    ctx = mlc.Context()
    with ctx:
        module = ir.Module.parse(text or cm.module_text())
    return lower_library(
        module,
        params or cm.make_params(),
        threads=threads,
        runtime=runtime,
        source=source,
        schedule=schedule,
    )


def lower_library(
    module: ir.Module,
    params: Mapping[str, np.ndarray],
    *,
    threads: int = 1,
    runtime: str = "openmp",
    source: SourceModel | None = None,
    schedule: str = "static",
) -> CompiledLibrary:
    """Check `module` (loops over memrefs) against its manifest, run lower-to-llvm, wrap it."""
    check_contract(module, read_manifest(module))
    options = f"threads={threads} runtime={runtime}"
    if schedule != "static":
        options += f" schedule={schedule}"
    pm = mlc.PassManager.parse(f"builtin.module(lower-to-llvm{{{options}}})")
    pm.run(module)
    return CompiledLibrary.from_module(module, params, pipeline=str(pm), source=source)


def assert_matches_reference(
    outputs: dict[str, np.ndarray],
    inputs: dict[str, np.ndarray],
    params: dict[str, np.ndarray] | None = None,
) -> None:
    ref = cm.reference(inputs, params or cm.make_params())
    assert set(outputs) == set(ref)
    for name, expected in ref.items():
        np.testing.assert_allclose(outputs[name], expected, rtol=1e-5, atol=1e-5, err_msg=name)


def run_python(code: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter of this venv (new-process loads, crash isolation), from
    the tests folder so that it can import `helpers`."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, cwd=TESTS
    )
