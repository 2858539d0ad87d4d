"""ONNX frontend tests: skip without onnx; make `onnx_testing` importable from every sub-folder."""

from __future__ import annotations

import pathlib
import sys

import pytest

pytest.importorskip("onnx")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
