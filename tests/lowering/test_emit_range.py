"""graph.range and graph.dim_values (the ops symbolic sizes import to) compiled with static
sizes, against the reference interpreter and numpy."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.graph_exec import PIPELINE, SCHEDULED, check, run_graph
from mlc.dialects.graph import builders as gb
from mlc.dialects.graph.builders import constant
from mlc.dialects.graph.reference.core import mlir_dtype


def _literal(value: np.ndarray):  # type: ignore[no-untyped-def]
    from mlir import ir

    attr = ir.DenseElementsAttr.get(value)
    return constant(attr, attr.type)


@pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED])
@pytest.mark.parametrize(
    ("start", "step", "dtype"), [(3, -2, np.int64), (0, 1, np.int32), (0.5, 0.25, np.float32)]
)
def test_range_plus_input(pipeline: str, start: float, step: float, dtype: type) -> None:
    x = np.arange(37, dtype=dtype)[::-1].copy()

    def body(a):  # type: ignore[no-untyped-def]
        r = gb.range(_literal(np.array(start, dtype)), _literal(np.array(step, dtype)), size=[37])
        return gb.add(a, r)

    (got,), (ref,) = run_graph(body, [x], pipeline=pipeline)
    want = x + (start + step * np.arange(37)).astype(dtype)
    assert mlir_dtype(got.dtype) == mlir_dtype(np.dtype(dtype))
    check(got, ref, want, what=f"range {start}:{step}")


def test_dim_values_as_data() -> None:
    x = np.ones((3,), np.int64)

    def body(a):  # type: ignore[no-untyped-def]
        return gb.mul(a, gb.dim_values(values=[7, 1, 12]))

    (got,), (ref,) = run_graph(body, [x])
    check(got, ref, np.array([7, 1, 12], np.int64))
