"""Reference interpreter: data-movement ops, constants and concat; every op is covered."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

import mlc
from helpers.reference_oracle import OrtCase, cases_of, check_against_ort, i64, rand
from mlc.dialects.graph import OPS
from mlc.dialects.graph.reference import IMPLS, UnsupportedDtypeError, evaluate, has_reference
from mlc.dialects.graph.spec import TensorT

X = rand(2, 3, 4)

CASES: list[OrtCase] = [
    OrtCase("reshape", [X], {"shape": (4, 6)}, "Reshape", consts=[i64(4, 6)]),
    # graph.range(start, step) {size} is ONNX Range(start, start + size * step, step)
    OrtCase(
        "range",
        [np.array(3, np.int64), np.array(-2, np.int64)],
        {"size": (7,)},
        "Range",
        consts=[np.array(-11, np.int64)],
        onnx_inputs=["in0", "c0", "in1"],
        id="range_int_descending",
    ),
    OrtCase(
        "range",
        [np.array(0.5, np.float32), np.array(0.25, np.float32)],
        {"size": (9,)},
        "Range",
        consts=[np.array(2.75, np.float32)],
        onnx_inputs=["in0", "c0", "in1"],
        id="range_float",
    ),
    OrtCase("transpose", [X], {"perm": (2, 0, 1)}, "Transpose", {"perm": [2, 0, 1]}),
    OrtCase(
        "slice",
        [rand(5, 10)],
        {"starts": (1, 8), "ends": (100, -100), "axes": (0, 1), "steps": (2, -3)},
        "Slice",
        consts=[i64(1, 8), i64(100, -100), i64(0, 1), i64(2, -3)],
        id="slice_clamped_negative_step",
    ),
    OrtCase(
        "slice",
        [rand(5, 10)],
        {"starts": (-3,), "ends": (-1,), "axes": (-1,), "steps": (1,)},
        "Slice",
        consts=[i64(-3), i64(-1), i64(-1), i64(1)],
        id="slice_negative_bounds",
    ),
    OrtCase(
        "gather",
        [X, i64(-1, 0, 2, -3)],
        {"axis": 1},
        "Gather",
        {"axis": 1},
        id="gather_negative_indices",
    ),
    OrtCase(
        "gather",
        [X, np.array([[1, 0], [1, 1]], np.int32)],
        {},
        "Gather",
        id="gather_2d_i32_indices",
    ),
    OrtCase(
        "pad",
        [X],
        {"pads": (0, 1, 2, 1, 0, 1), "value": 1.5},
        "Pad",
        consts=[i64(0, 1, 2, 1, 0, 1), np.float32(1.5)],
        id="pad_constant",
    ),
    OrtCase(
        "pad",
        [X],
        {"pads": (0, 2, 1, 0, 1, 3), "mode": "reflect"},
        "Pad",
        {"mode": "reflect"},
        consts=[i64(0, 2, 1, 0, 1, 3)],
        id="pad_reflect",
    ),
    OrtCase(
        "pad",
        [X],
        {"pads": (1, 2, 0, 0, 1, 3), "mode": "edge"},
        "Pad",
        {"mode": "edge"},
        consts=[i64(1, 2, 0, 0, 1, 3)],
        id="pad_edge",
    ),
    OrtCase(
        "pad",
        [X],
        {"pads": (0, -1, 1, 0, 0, -2)},
        "Pad",
        consts=[i64(0, -1, 1, 0, 0, -2)],
        id="pad_negative_crops",
    ),
    OrtCase("squeeze", [rand(1, 3, 1, 2)], {"axes": (0, -2)}, "Squeeze", consts=[i64(0, -2)]),
    OrtCase("unsqueeze", [X], {"axes": (0, -1)}, "Unsqueeze", consts=[i64(0, -1)]),
    OrtCase("flatten", [X], {"axis": 2}, "Flatten", {"axis": 2}),
    OrtCase("flatten", [X], {"axis": 0}, "Flatten", {"axis": 0}, id="flatten_axis0"),
    OrtCase("expand", [rand(3, 1)], {"shape": (2, 1, 4)}, "Expand", consts=[i64(2, 1, 4)]),
    OrtCase("tile", [X], {"repeats": (1, 2, 3)}, "Tile", consts=[i64(1, 2, 3)]),
    OrtCase(
        "tensor.concat",
        [X, rand(2, 1, 4, seed=1), rand(2, 2, 4, seed=2)],
        {"dim": 1},
        "Concat",
        {"axis": 1},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_against_onnxruntime(case: OrtCase) -> None:
    check_against_ort(case)


def test_layout_transform_by_hand() -> None:
    x = rand(1, 8, 2, 3)
    blocked = evaluate("layout_transform", [x], {"src_layout": "NCHW", "dst_layout": "NCHW4c"})
    assert blocked.shape == (1, 2, 2, 3, 4)
    for c in range(8):
        np.testing.assert_array_equal(blocked[:, c // 4, :, :, c % 4], x[:, c])
    back = evaluate("layout_transform", [blocked], {"src_layout": "NCHW4c", "dst_layout": "NCHW"})
    np.testing.assert_array_equal(back, x)
    reblocked = evaluate(
        "layout_transform", [blocked], {"src_layout": "NCHW4c", "dst_layout": "NCHW2c"}
    )
    for c in range(8):
        np.testing.assert_array_equal(reblocked[:, c // 2, :, :, c % 2], x[:, c])


def test_constant_from_array_and_literal() -> None:
    value = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(evaluate("constant", [], {"value": value}), value)
    with mlc.Context():
        literal = ir.Attribute.parse("dense<[1, -2, 3]> : tensor<3xi64>")
        got = evaluate("constant", [], {"value": literal}, TensorT((3,), "i64"))
    assert got.tolist() == [1, -2, 3] and got.dtype == np.int64


def test_gather_rejects_out_of_range_indices() -> None:
    with pytest.raises(ValueError, match="out of range"):
        evaluate("gather", [X, i64(3)], {"axis": 1})


def test_result_type_mismatch_is_reported() -> None:
    with pytest.raises(ValueError, match="the op's type is tensor<2x3xf32>"):
        evaluate("relu", [X], {}, TensorT((2, 3), "f32"))
    with pytest.raises(ValueError, match="the op's type"):
        evaluate("relu", [X], {}, TensorT((2, 3, 4), "f16"))


def test_unknown_op_and_dtype_and_missing_attribute() -> None:
    with pytest.raises(ValueError, match="no reference implementation for 'graph.nope'"):
        evaluate("graph.nope", [X], {})
    with pytest.raises(UnsupportedDtypeError, match="bf16"):
        evaluate("cast", [X], {"to": "bf16"})
    with pytest.raises(ValueError, match="attribute 'perm' is required"):
        evaluate("transpose", [X], {})


def test_every_op_has_a_reference() -> None:
    missing = [name for name in OPS if not has_reference(name)]
    assert not missing, f"graph ops without a reference implementation: {missing}"
    assert has_reference("tensor.concat") and has_reference("graph.conv2d")


def test_every_op_is_checked_by_a_test() -> None:
    """An op added later needs an oracle case here or in one of the other tables."""
    tables = [
        "test_reference_math.py",
        "test_reference_nn.py",
        "test_reference_indexing.py",
        "test_reference_elem.py",
        "test_reference_rnn.py",
        "test_reference_quant.py",
        "test_reference_vision.py",
    ]
    by_oracle = {c.op for c in CASES + [case for t in tables for case in cases_of(t)]}
    # constant, layout_transform: the tests above; requantize: ONNX's QLinearMatMul reference;
    # deform_im2col, max_pool_indices: hand-written tests in test_reference_vision;
    # winograd_input/output: composed into a conv, in tests/passes/test_graph_winograd.
    by_hand = {"constant", "layout_transform", "requantize", "deform_im2col", "max_pool_indices"}
    by_hand |= {"winograd_input", "winograd_output"}
    # dim_values (sizes as an i64 vector, no operands): tests/lowering/test_emit_range.py
    by_hand |= {"dim_values"}
    # lookup (a table of an elementwise chain): test_reference_quant's requantization table
    by_hand |= {"lookup"}
    untested = sorted(set(IMPLS) - by_oracle - by_hand)
    assert not untested, f"reference implementations without an oracle test: {untested}"
