"""Fixtures of the runtime tests: the hand-written contract module, lowered, JIT-ed and packaged.

Lowering + JIT takes ~0.3-0.7 s, so libraries and packages are built once per test session
(per xdist worker) and treated as read-only by the tests.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from helpers import contract_module as cm
from helpers.runtime import build_library
from mlc.runtime import CompiledLibrary


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
