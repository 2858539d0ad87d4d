"""Reference interpreter: element and N-d gathers and scatters against onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.reference_oracle import OrtCase, check_against_ort, rand
from mlc.dialects.graph.reference import evaluate

X = rand(3, 4, 5)
I64 = np.int64


def idx(values: object, dtype: type = I64) -> np.ndarray:
    return np.array(values, dtype)


CASES: list[OrtCase] = [
    OrtCase(
        "gather_elements",
        [X, rand(3, 2, 5, dtype=I64, low=-4, high=3, seed=1)],
        {"axis": 1},
        "GatherElements",
        {"axis": 1},
        id="gather_elements_negative_indices",
    ),
    OrtCase(
        "gather_elements",
        [X, rand(2, 4, 3, dtype=np.int32, low=0, high=2, seed=2)],
        {"axis": 0},
        "GatherElements",
        id="gather_elements_smaller_other_dims_i32",
    ),
    OrtCase(
        "gather_elements",
        [np.arange(512, dtype=I64).reshape(1, 512), np.arange(128, dtype=I64).reshape(1, 128)],
        {"axis": -1},
        "GatherElements",
        {"axis": -1},
        id="gather_elements_512_positions",  # onnx.reference's np.choose fails here
    ),
    OrtCase("gather_nd", [X, idx([[0, 1], [2, -1]])], {}, "GatherND", id="gather_nd_slices"),
    OrtCase(
        "gather_nd", [X, idx([[[1, 3, 4]], [[0, 0, 0]]])], {}, "GatherND", id="gather_nd_elements"
    ),
    OrtCase(
        "gather_nd",
        [X, idx([[[1], [0]], [[3], [3]], [[2], [1]]])],
        {"batch_dims": 1},
        "GatherND",
        {"batch_dims": 1},
        id="gather_nd_batch_dims",
    ),
    *(
        OrtCase(
            "scatter_elements",
            [X, idx(np.tile([[[0], [3], [0]]], (3, 1, 5))), rand(3, 3, 5, seed=3)],
            {"axis": 1, "reduction": r},
            "ScatterElements",
            {"axis": 1, "reduction": r},
            id=f"scatter_elements_duplicates_{r}",
        )
        for r in ("add", "mul", "max", "min")
    ),
    OrtCase(
        "scatter_elements",
        [X, idx([[[-1, 0, 2, 1, -2]]]), rand(1, 1, 5, seed=4)],
        {"axis": -2, "reduction": "none"},
        "ScatterElements",
        {"axis": -2},
        id="scatter_elements_negative_axis_and_indices",
    ),
    OrtCase(
        "scatter_nd",
        [X, idx([[2], [0]]), rand(2, 4, 5, seed=5)],
        {},
        "ScatterND",
        id="scatter_nd_slices",
    ),
    *(
        OrtCase(
            "scatter_nd",
            [X, idx([[1, 2], [1, 2], [0, 3]]), rand(3, 5, seed=6)],
            {"reduction": r},
            "ScatterND",
            {"reduction": r},
            id=f"scatter_nd_duplicates_{r}",
        )
        for r in ("add", "mul", "max", "min")
    ),
    OrtCase(
        "scatter_nd",
        [rand(4, 3, dtype=np.int32, low=-9, high=9), idx([[3, 2], [0, 0]]), idx([7, -8], np.int32)],
        {},
        "ScatterND",
        id="scatter_nd_elements_i32",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_against_onnxruntime(case: OrtCase) -> None:
    check_against_ort(case)


@pytest.mark.parametrize(
    "op, inputs",
    [
        ("gather_elements", [X, np.full((3, 4, 5), 4, I64)]),
        ("gather_nd", [X, idx([[0, -5]])]),
        ("scatter_elements", [X, np.full((1, 1, 1), -6, I64), rand(1, 1, 1)]),
        ("scatter_nd", [X, idx([[3]]), rand(1, 4, 5)]),
    ],
)
def test_out_of_range_indices_are_rejected(op: str, inputs: list[np.ndarray]) -> None:
    attrs = {"axis": 1} if op in ("gather_elements", "scatter_elements") else {}
    with pytest.raises(ValueError, match=f"{op}: indices out of range"):
        evaluate(op, inputs, attrs)


def test_scatter_without_reduction_keeps_the_last_update() -> None:
    out = evaluate(
        "scatter_elements",
        [np.zeros(3, np.float32), idx([1, 1, 1]), np.float32([1, 2, 3])],
        {"axis": 0},
    )
    np.testing.assert_array_equal(out, [0, 3, 0])
