"""Shared fixtures: an mlc context, paths of the lit tree and examples."""

from __future__ import annotations

import pathlib

import pytest
from mlir import ir

import mlc

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture
def ctx() -> ir.Context:
    return mlc.Context()


@pytest.fixture
def root() -> pathlib.Path:
    return ROOT
