"""Fixtures of the runtime tests: the hand-written contract module, lowered, JIT-ed and packaged.

Lowering + JIT takes ~0.3-0.7 s, so libraries and packages are built once per test session
(per xdist worker) and treated as read-only by the tests.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import contract_module as cm  # noqa: E402
from rt_helpers import build_library  # noqa: E402

from mlc.runtime import CompiledLibrary  # noqa: E402


@pytest.fixture(scope="session")
def lib1() -> CompiledLibrary:
    return build_library(1)


@pytest.fixture(scope="session")
def lib2() -> CompiledLibrary:
    return build_library(2)


@pytest.fixture(scope="session")
def pkg1(lib1: CompiledLibrary, tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return lib1.export_library(tmp_path_factory.mktemp("pkg1") / "model.tar")


@pytest.fixture(scope="session")
def pkg2(lib2: CompiledLibrary, tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return lib2.export_library(tmp_path_factory.mktemp("pkg2") / "model.tar")


@pytest.fixture
def inputs() -> dict[str, np.ndarray]:
    return cm.make_inputs()


@pytest.fixture
def params() -> dict[str, np.ndarray]:
    return cm.make_params()
