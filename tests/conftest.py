"""Shared fixtures: an mlc context, paths of the lit tree and examples."""

from __future__ import annotations

import os
import pathlib

import pytest
from mlir import ir

import mlc

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session", autouse=True)
def _own_object_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Code generation's object cache (runtime/codegen.py, opt-in) on, in a folder of this
    session: models with several kernels compile as units (and the zoo's second compile of a
    model hits), never with objects of earlier runs (CLI subprocesses inherit it)."""
    if "MLC_CACHE_DIR" not in os.environ:
        os.environ["MLC_CACHE_DIR"] = str(tmp_path_factory.mktemp("mlc-cache"))


@pytest.fixture
def ctx() -> ir.Context:
    return mlc.Context()


@pytest.fixture
def root() -> pathlib.Path:
    return ROOT
