"""The onnxruntime oracle of the reference-interpreter tests checks what it is given."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.reference_oracle import assert_same, rand, run_ort


def test_oracle_runs_a_node() -> None:
    x = rand(2, 3)
    np.testing.assert_array_equal(run_ort("Neg", [x], {}, []), -x)


def test_oracle_detects_a_difference() -> None:
    with pytest.raises(AssertionError):
        assert_same(np.float32([1.0, 2.0]), np.float32([1.0, 2.1]), 1e-5, 1e-6)
    with pytest.raises(AssertionError):
        assert_same(np.float32([1.0]), np.float64([1.0]), 1e-5, 1e-6)
