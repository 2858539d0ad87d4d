"""Loop: unrolled at import when the trip count and every condition are known; loop-carried
values, scan outputs, the iteration number, outer-scope reads; what is refused and why."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from helpers.onnx_testing import check_numerics, import_model, make_model, op_names
from mlc.errors import UnsupportedOpError

Y = np.array([0.5, -1.0, 2.0], np.float32)


def _body(cond_out: list[onnx.NodeProto] | None = None) -> onnx.GraphProto:
    """acc_out = acc_in * w + float(i); scan = acc_out; w is read from the outer graph."""
    nodes = [
        helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["acc_in", "w"], ["scaled"]),
        helper.make_node("Add", ["scaled", "fi"], ["acc_out"]),
        helper.make_node("Identity", ["acc_out"], ["scan"]),
    ]
    nodes += cond_out or [helper.make_node("Identity", ["cond_in"], ["cond_out"])]
    return helper.make_graph(
        nodes,
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [3]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [3]),
            helper.make_tensor_value_info("scan", TensorProto.FLOAT, [3]),
        ],
    )


def _loop_model(
    body: onnx.GraphProto,
    trips: int | None = 4,
    cond: bool | None = None,
    runtime: tuple[str, ...] = (),
    opset: int = 13,
) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    inits: dict[str, np.ndarray] = {"w": np.array([1.5, 0.5, -1.0], np.float32)}
    feeds: dict[str, np.ndarray] = {"y": Y}
    if trips is not None:
        (feeds if "M" in runtime else inits)["M"] = np.array(trips, np.int64)
    if cond is not None:
        (feeds if "c" in runtime else inits)["c"] = np.array(cond)
    ins = ["M" if trips is not None else "", "c" if cond is not None else "", "y"]
    node = helper.make_node("Loop", ins, ["final", "all"], name="loop", body=body)
    spec = {"y": (np.float32, [3])}
    spec |= {n: (feeds[n].dtype, []) for n in runtime}
    return make_model([node], spec, ["final", "all"], inits, opset), feeds


@pytest.mark.parametrize("opset", [11, 13, 16, 19, 21])
def test_for_loop_with_carried_value_and_scan_output(opset: int) -> None:
    model, feeds = _loop_model(_body(), trips=4, opset=opset)
    module = check_numerics(model, feeds)
    assert op_names(module).count("graph.mul") == 4  # one body copy per iteration
    assert "tensor.concat" in op_names(module)  # the scan outputs stacked


def test_while_loop_stops_on_a_condition_known_at_import() -> None:
    """cond_out = i < 2: three iterations although M allows ten."""
    stop = [
        helper.make_node("Constant", [], ["two"], value=numpy_helper.from_array(np.array(2))),
        helper.make_node("Less", ["i", "two"], ["cond_out"]),
    ]
    model, feeds = _loop_model(_body(stop), trips=10, cond=True)
    module = check_numerics(model, feeds)
    assert op_names(module).count("graph.mul") == 3


def test_initial_false_condition_runs_no_iteration() -> None:
    body = _body()
    del body.output[2]  # no scan output: the final value is the initial one
    del body.node[3]
    node = helper.make_node("Loop", ["M", "c", "y"], ["final"], body=body)
    inits = {"M": np.array(3), "c": np.array(False), "w": np.ones(3, np.float32)}
    model = make_model([node], {"y": (np.float32, [3])}, ["final"], inits, 13)
    check_numerics(model, {"y": Y})


def test_run_time_trip_count_names_the_input() -> None:
    model, _ = _loop_model(_body(), runtime=("M",))
    with pytest.raises(UnsupportedOpError, match=r"the trip count M \('M'\) must be computable"):
        import_model(model)


def test_condition_computed_at_run_time_is_refused() -> None:
    stop = [
        helper.make_node("ReduceSum", ["acc_out"], ["total"], keepdims=0),
        helper.make_node("Less", ["total", "limit"], ["cond_out"]),
    ]
    body = _body(stop)
    body.initializer.append(numpy_helper.from_array(np.array(5.0, np.float32), "limit"))
    model, _ = _loop_model(body, trips=10, cond=True)
    with pytest.raises(UnsupportedOpError, match="Loop node 'loop'.*depends on run-time values"):
        import_model(model)


def test_ignored_condition_that_would_stop_is_refused() -> None:
    """No condition input: the spec ignores the body's condition, onnxruntime stops on it."""
    stop = [
        helper.make_node(
            "Constant", [], ["cond_out"], value=numpy_helper.from_array(np.array(False))
        )
    ]
    model, _ = _loop_model(_body(stop), trips=3)
    with pytest.raises(UnsupportedOpError, match="spec ignores that condition"):
        import_model(model)


def test_endless_and_too_long_loops_are_refused() -> None:
    model, _ = _loop_model(_body(), trips=None)
    with pytest.raises(UnsupportedOpError, match="neither a trip count nor a condition"):
        import_model(model)
    model, _ = _loop_model(_body(), trips=5000)
    with pytest.raises(UnsupportedOpError, match="iterations exceed the 1024 mlc unrolls"):
        import_model(model)
