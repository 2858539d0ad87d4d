"""Regression tests for lowering bugs found by the ONNX conformance cases
(python -m tools.conformance).

Each test names the ONNX node cases that exposed the bug; the cases themselves are also in
tests/frontend/onnx/conformance_passing.txt.
"""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

import mlc
from helpers.graph_exec import PIPELINE, SCHEDULED, build_main, check, run_graph
from mlc.dialects.graph import builders as g
from mlc.testing import run_compiled


@pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED], ids=["loops", "scheduled"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_mod_fmod0_takes_the_sign_of_the_divisor(pipeline: str, dtype: str) -> None:
    """Mod-28 fmod=0 on floats is numpy's mod, not C fmod (test_mod_float*_mixed_sign_fmod_0,
    test_mod_float_edge_cases_fmod_0_*): the lowering used to ignore fmod for floats."""
    inf, nan = np.inf, np.nan
    x = np.array(
        [
            -4.3,
            7.2,
            5.0,
            4.3,
            -7.2,
            8.0,
            0.0,
            -0.0,
            0.0,
            -0.0,
            -3.0,
            3.0,
            -1.0,
            1.0,
            inf,
            -inf,
            1.0,
            1.0,
            nan,
            1.0,
        ],
        dtype,
    )
    y = np.array(
        [
            2.1,
            -3.4,
            8.0,
            -2.1,
            3.4,
            5.0,
            -2.0,
            2.0,
            2.0,
            -2.0,
            inf,
            inf,
            -inf,
            -inf,
            2.0,
            2.0,
            0.0,
            -0.0,
            2.0,
            nan,
        ],
        dtype,
    )
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


@pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED], ids=["loops", "scheduled"])
def test_reduction_over_an_empty_set_gives_the_initial_value(pipeline: str) -> None:
    """Reducing a 0-length axis used to give a tp.block with a 0 extent (test_reduce_*_empty_set
    with constant axes): now every output element is the reduction's value over nothing."""
    x = np.zeros((2, 0, 4), np.float32)
    flags = np.zeros((2, 0, 4), np.bool_)

    def body(v: object, b: object) -> list[object]:
        return [
            g.reduce_sum(v, axes=[1], keepdims=1),
            g.reduce_prod(v, axes=[1], keepdims=0),
            g.reduce_max(v, axes=[1], keepdims=1),
            g.reduce_min(v, axes=[1], keepdims=1),
            g.reduce_l2(v, axes=[1], keepdims=1),
            g.reduce_max(b, axes=[1], keepdims=1),
            g.reduce_min(b, axes=[1], keepdims=1),
            g.reduce_sum(v, axes=[0, 1, 2], keepdims=0),
        ]

    # Compiled only: the reference interpreter has no value for an empty max/min (numpy raises).
    with mlc.Context(), ir.Location.unknown():
        module = build_main(body, [x, flags])
        mlc.PassManager.parse(pipeline).run(module)
        got = run_compiled(module, {}, [x, flags])
    expected = [
        np.zeros((2, 1, 4), np.float32),
        np.ones((2, 4), np.float32),
        np.full((2, 1, 4), -np.inf, np.float32),
        np.full((2, 1, 4), np.inf, np.float32),
        np.zeros((2, 1, 4), np.float32),
        np.zeros((2, 1, 4), np.bool_),
        np.ones((2, 1, 4), np.bool_),
        np.zeros((), np.float32),
    ]
    assert len(got) == len(expected)
    for k, want in enumerate(expected):
        assert got[k].dtype == want.dtype and got[k].shape == want.shape, (
            k,
            got[k].dtype,
            got[k].shape,
        )
        np.testing.assert_array_equal(got[k], want, err_msg=f"output {k}")


def test_bool_max_min_start_from_false_and_true() -> None:
    """Bool reduce_max / reduce_min start from False / True (were -128 / 127 bytes): any / all."""
    b = np.array([[True, False, False], [False, False, False], [True, True, True]])
    got, ref = run_graph(
        lambda v: [
            g.reduce_max(v, axes=[1], keepdims=0),
            g.reduce_min(v, axes=[1], keepdims=0),
            g.argmax(v, axis=1, keepdims=0, select_last_index=0),
        ],
        [b],
        pipeline=SCHEDULED,
    )
    check(got[0], ref[0], b.any(axis=1), what="any")
    check(got[1], ref[1], b.all(axis=1), what="all")
    check(got[2], ref[2], np.argmax(b, axis=1), what="argmax")
