"""ONNX frontend tests: skip without onnx; make `onnx_testing` importable from every sub-folder."""

from __future__ import annotations

import pytest

pytest.importorskip("onnx")
