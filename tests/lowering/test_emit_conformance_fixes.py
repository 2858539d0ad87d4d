"""Regression tests for lowering bugs found by the ONNX conformance cases (scripts/conformance.py).

Each test names the ONNX node cases that exposed the bug; the cases themselves are also in
tests/frontend/onnx/conformance_passing.txt.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

from mlc.dialects.graph import builders as g

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))  # importlib mode: find the helpers
from test_emit_coverage import PIPELINE, SCHEDULED, check, run_graph  # noqa: E402


@pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED], ids=["loops", "scheduled"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_mod_fmod0_takes_the_sign_of_the_divisor(pipeline: str, dtype: str) -> None:
    """Mod-28 fmod=0 on floats is numpy's mod, not C fmod (test_mod_float*_mixed_sign_fmod_0,
    test_mod_float_edge_cases_fmod_0_*): the lowering used to ignore fmod for floats."""
    inf, nan = np.inf, np.nan
    x = np.array([-4.3, 7.2, 5.0, 4.3, -7.2, 8.0, 0.0, -0.0, 0.0, -0.0, -3.0, 3.0, -1.0, 1.0,
                  inf, -inf, 1.0, 1.0, nan, 1.0], dtype)
    y = np.array([2.1, -3.4, 8.0, -2.1, 3.4, 5.0, -2.0, 2.0, 2.0, -2.0, inf, inf, -inf, -inf,
                  2.0, 2.0, 0.0, -0.0, 2.0, nan], dtype)
    got, ref = run_graph(lambda a, b: [g.mod(a, b, fmod=0), g.mod(a, b, fmod=1)], [x, y])
    with np.errstate(all="ignore"):
        floor_mod, c_fmod = np.mod(x, y), np.fmod(x, y)
    rtol = 1e-3 if dtype == "float16" else 1e-6
    check(got[0], ref[0], floor_mod, rtol=rtol, atol=0, what="fmod=0")
    check(got[1], ref[1], c_fmod, rtol=rtol, atol=0, what="fmod=1")
    # assert_allclose equates +0 and -0; the spec gives a zero the divisor's sign.
    np.testing.assert_array_equal(np.signbit(got[0][6:10]), np.signbit(floor_mod[6:10]))
    np.testing.assert_array_equal(np.isnan(got[0]), np.isnan(floor_mod))


@pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED], ids=["loops", "scheduled"])
def test_kernel_with_an_empty_result_writes_nothing(pipeline: str) -> None:
    """A kernel whose result has no elements used to get a tp.block with a 0 extent, which
    tp-verify rejects (test_rotary_embedding*_expanded: an empty Split part fed to Concat)."""
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

    def body(v: object) -> list[object]:
        empty = g.slice(v, starts=[4], ends=[4], axes=[2], steps=[1])  # 2x3x0
        return [empty, g.add(v, v), g.slice(v, starts=[0], ends=[0], axes=[0], steps=[1])]

    got, ref = run_graph(body, [x], pipeline=pipeline)
    check(got[0], ref[0], np.zeros((2, 3, 0), np.float32), what="empty slice")
    check(got[1], ref[1], x + x, rtol=0, atol=0, what="add")
    check(got[2], ref[2], np.zeros((0, 3, 4), np.float32), what="empty slice at axis 0")
