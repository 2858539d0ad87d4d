"""graph-to-tp of the sampling and selection ops (resample, ...), compiled with and without
the default schedules, against the reference interpreter and independent numpy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator

from helpers.graph_exec import SCHEDULED, check, lower_to_tp, rand, run_graph
from helpers.onnx_testing import node_model
from mlc.dialects.graph import builders as g
from mlc.passes.lowering.tp_emit.topk import stages

PIPELINES = {"plain": None, "scheduled": SCHEDULED}


def _run(body: Any, inputs: list[np.ndarray], pipeline: str, params: Any = None) -> Any:
    if PIPELINES[pipeline] is None:
        return run_graph(body, inputs, params)
    return run_graph(body, inputs, params, pipeline=PIPELINES[pipeline])


def _tables(size: int, out: int, taps: int, seed: int, dtype: str) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, size, (taps, out)).astype(np.int64)
    return idx, rng.uniform(-1, 1, (taps, out)).astype(dtype)


def _numpy_resample(x: np.ndarray, idx: np.ndarray, w: np.ndarray, axis: int) -> np.ndarray:
    taken = np.take(x.astype(w.dtype), idx, axis=axis)
    weights = w.reshape((1,) * axis + w.shape + (1,) * (x.ndim - axis - 1))
    return np.sum(taken * weights, axis=axis).astype(x.dtype)


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("axis,out,taps", [(3, 16, 2), (2, 9, 4), (1, 2, 1)])
def test_resample(axis: int, out: int, taps: int, pipeline: str) -> None:
    x = rand((2, 3, 5, 8), seed=1)
    idx, w = _tables(x.shape[axis], out, taps, seed=2, dtype="float32")
    got, ref = _run(lambda v, i, w_: g.resample(v, i, w_, axis=axis), [x, idx, w], pipeline)
    check(got[0], ref[0], _numpy_resample(x, idx, w, axis), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype,wdtype", [("float16", "float32"), ("float64", "float64")])
def test_resample_half_and_double(dtype: str, wdtype: str) -> None:
    x = rand((1, 2, 6, 7), dtype, seed=3)
    idx, w = _tables(7, 10, 3, seed=4, dtype=wdtype)
    got, ref = run_graph(
        lambda v, i, w_: g.resample(v, i, w_, axis=3), [x, idx, w], pipeline=SCHEDULED
    )
    tol = 1e-3 if dtype == "float16" else 1e-12
    check(got[0], ref[0], _numpy_resample(x, idx, w, 3), rtol=tol, atol=tol)


def test_resample_tables_are_params_and_reads_are_loads() -> None:
    """The input element is a computed-index load; the tables are plain reads."""
    x = rand((1, 2, 4, 4), seed=5)
    idx, w = _tables(4, 8, 2, seed=6, dtype="float32")
    text = lower_to_tp(lambda v, i, w_: g.resample(v, i, w_, axis=3), [x, idx, w])
    assert text.count('"tp.load"') == 1 and text.count('"tp.read"') == 2
    assert 'combiner = "add"' in text and 'name = "resample_0"' in text


# -- topk / take_along_axis -----------------------------------------------------------------------


def _numpy_topk(x: np.ndarray, k: int, axis: int, largest: bool) -> np.ndarray:
    _, rank = np.unique(x, return_inverse=True)
    key = -rank.reshape(x.shape) if largest else rank.reshape(x.shape)
    order = np.argsort(key, axis=axis, kind="stable")
    return np.take(order, np.arange(k), axis=axis).astype(np.int64)


def test_topk_network_plan() -> None:
    """Sort blocks of 4 (3 stages), then halve 16 -> 8 -> 4, each halving merged in 2 stages."""
    plan = stages(16, 4)
    assert [(s.kind, s.size, s.stride, s.length) for s in plan] == [
        ("sort", 2, 1, 16),
        ("sort", 4, 2, 16),
        ("sort", 4, 1, 16),
        ("halve", 4, 0, 8),
        ("sort", 4, 2, 8),
        ("sort", 4, 1, 8),
        ("halve", 4, 0, 4),
        ("sort", 4, 2, 4),
        ("sort", 4, 1, 4),
    ]
    assert len(stages(8, 8)) == 6 and stages(1, 1) == []


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize(
    "shape,axis,k,largest",
    [
        ((3, 10), 1, 3, True),
        ((13, 2, 3), 0, 13, False),
        ((2, 33), -1, 1, True),
        ((1, 1), 1, 1, True),
    ],
)
def test_topk(shape: tuple[int, ...], axis: int, k: int, largest: bool, pipeline: str) -> None:
    x = np.random.default_rng(7).integers(0, 5, shape).astype(np.float32)  # many ties
    got, ref = _run(lambda v: g.topk(v, k=k, axis=axis, largest=int(largest)), [x], pipeline)
    check(got[0], ref[0], _numpy_topk(x, k, axis, largest))


def test_topk_of_unsigned_values_compares_unsigned() -> None:
    x = np.array([[3, 250, 7, 128, 250]], np.uint8)
    got, ref = run_graph(lambda v: g.topk(v, k=3, axis=1, largest=1), [x], pipeline=SCHEDULED)
    check(got[0], ref[0], np.array([[1, 4, 3]], np.int64))


def test_topk_is_one_block_per_stage() -> None:
    text = lower_to_tp(lambda v: g.topk(v, k=2, axis=1, largest=1), [rand((2, 8), seed=8)])
    assert text.count('"tp.block"') == len(stages(8, 2)) == 5


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_take_along_axis_wraps_negative_indices(pipeline: str) -> None:
    x = rand((3, 5, 2), seed=9)
    idx = np.random.default_rng(10).integers(-5, 5, (3, 4, 2))
    got, ref = _run(lambda v, i: g.take_along_axis(v, i, axis=1), [x, idx], pipeline)
    check(got[0], ref[0], np.take_along_axis(x, idx % 5, axis=1), rtol=0, atol=0)


# -- grid_sample ----------------------------------------------------------------------------------


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize(
    "mode,padding,align",
    [
        ("linear", "zeros", 0),
        ("linear", "reflection", 1),
        ("nearest", "border", 0),
        ("cubic", "border", 1),
        ("cubic", "reflection", 0),
    ],
)
def test_grid_sample(mode: str, padding: str, align: int, pipeline: str) -> None:
    x = rand((2, 3, 5, 6), seed=11)
    grid = np.random.default_rng(12).uniform(-2.5, 2.5, (2, 4, 3, 2)).astype(np.float32)
    grid[0, 0, 0] = (0.25, -1.0)  # on a pixel centre / edge
    attrs = {"mode": mode, "padding_mode": padding, "align_corners": align}
    got, ref = _run(lambda v, w: g.grid_sample(v, w, **attrs), [x, grid], pipeline)
    model = node_model("GridSample", {"x": x, "g": grid}, opset=20, **attrs)
    expected = ReferenceEvaluator(model).run(None, {"x": x, "g": grid})[0]
    check(got[0], ref[0], expected, rtol=1e-5, atol=1e-5)


def test_grid_sample_nearest_of_integers_and_f64_grid() -> None:
    x = np.arange(24, dtype=np.int32).reshape(1, 2, 3, 4)
    grid = np.random.default_rng(13).uniform(-1.2, 1.2, (1, 2, 5, 2))
    got, ref = run_graph(lambda v, w: g.grid_sample(v, w, mode="nearest"), [x, grid])
    model = node_model("GridSample", {"x": x, "g": grid}, opset=20, mode="nearest")
    check(got[0], ref[0], ReferenceEvaluator(model).run(None, {"x": x, "g": grid})[0])


# -- roi_align / max_unpool / col2im ---------------------------------------------------------------


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("mode,ratio", [("avg", 2), ("max", 1), ("avg", 0), ("max", 0)])
def test_roi_align(mode: str, ratio: int, pipeline: str) -> None:
    x = rand((2, 3, 7, 9), seed=14)
    rois = np.array([[0, 0, 8, 6], [1.5, 2, 5, 10], [-3, 4, 12, 9]], np.float32)
    batch = np.array([1, 0, 1], np.int64)
    grid = (ratio, ratio) if ratio else (4, 8)  # the largest adaptive grids: ceil(15 / 2) ...
    attrs = {
        "mode": mode,
        "output_height": 2,
        "output_width": 2,
        "sampling_ratio": ratio,
        "spatial_scale": 1.0,
        "half_pixel": 0,
        "grid_h": grid[0],
        "grid_w": grid[1],
    }
    got, ref = _run(lambda v, r, b: g.roi_align(v, r, b, **attrs), [x, rois, batch], pipeline)
    model = node_model(
        "RoiAlign",
        {"x": x, "rois": rois, "b": batch},
        opset=16,
        mode=mode,
        output_height=2,
        output_width=2,
        sampling_ratio=ratio,
        coordinate_transformation_mode="output_half_pixel",
    )
    expected = ReferenceEvaluator(model).run(None, {"x": x, "rois": rois, "b": batch})[0]
    check(got[0], ref[0], expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_max_unpool_with_overlapping_windows(pipeline: str) -> None:
    """Kernel 3, stride 2: two windows can pick the same element (same index, same value)."""
    x = np.array([[[[9.0, 9.0, 2.0], [4.0, 4.0, 0.5]]]], np.float32)
    idx = np.array([[[[2, 2, 6], [9, 9, 13]]]], np.int64)  # into the unpooled 2 x 7 map
    attrs = {
        "kernel_shape": (1, 3),
        "strides": (1, 2),
        "pads": (0, 0, 0, 0),
        "output_shape": (2, 8),
    }
    got, ref = _run(lambda v, i: g.max_unpool(v, i, **attrs), [x, idx], pipeline)
    expected = np.zeros((1, 1, 2, 8), np.float32)
    for value, flat in zip(x.reshape(-1), idx.reshape(-1)):
        expected[0, 0, flat // 7, flat % 7] = value
    check(got[0], ref[0], expected, rtol=0, atol=0)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_col2im_half_precision(pipeline: str) -> None:
    x = rand((1, 2 * 4, 9), "float16", seed=15)
    attrs = {
        "image_shape": (4, 4),
        "block_shape": (2, 2),
        "strides": (1, 1),
        "pads": (0, 0, 0, 0),
        "dilations": (1, 1),
    }
    got, ref = _run(lambda v: g.col2im(v, **attrs), [x], pipeline)
    cols = x.astype(np.float32).reshape(1, 2, 2, 2, 3, 3)
    expected = np.zeros((1, 2, 4, 4), np.float32)
    for kh in range(2):
        for kw in range(2):
            expected[:, :, kh : kh + 3, kw : kw + 3] += cols[:, :, kh, kw]
    check(got[0], ref[0], expected.astype(np.float16), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("with_mask", [False, True])
def test_deform_im2col(with_mask: bool, pipeline: str) -> None:
    x = rand((1, 4, 5, 6), seed=16)
    offset = np.random.default_rng(17).uniform(-2, 2, (1, 2 * 4 * 2, 4, 5)).astype(np.float32)
    inputs = [x, offset]
    if with_mask:
        inputs.append(np.random.default_rng(18).uniform(0, 1, (1, 2 * 4, 4, 5)).astype(np.float32))
    attrs = {"kernel_shape": (2, 2), "offset_group": 2}
    got, ref = _run(lambda *v: g.deform_im2col(*v, **attrs), inputs, pipeline)
    one_hot = np.eye(16, dtype=np.float32).reshape(16, 4, 2, 2)
    names = {"x": x, "w": one_hot, "offset": offset}
    order = ["x", "w", "offset"]
    if with_mask:
        names["mask"] = inputs[2]
        order += ["", "mask"]
    model = node_model("DeformConv", names, order=order, opset=19, offset_group=2)
    expected = ReferenceEvaluator(model).run(None, names)[0].reshape(got[0].shape)
    check(got[0], ref[0], expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "x",
    [
        np.array([[0.0, -0.0, -1.5, 2.0, -0.0, 0.0, -7.0, 2.0]], np.float32),  # -0.0 ties +0.0
        np.array([[3, -128, 127, -1, 0, -128, 5]], np.int8),
        np.array([[4294967295, 0, 7, 4294967295, 1]], np.uint32),
        np.array([[0.5, -0.25, 0.5, -3.0, 1e-3]], np.float16),
        np.array([[-2.5, 1e300, -1e300, 1e300, 0.0]], np.float64),  # wider than a key
    ],
    ids=["f32_signed_zeros", "i8", "u32", "f16", "f64"],
)
@pytest.mark.parametrize("largest", [1, 0])
def test_topk_keys_order_like_values(x: np.ndarray, largest: int) -> None:
    k = x.shape[1] - 1
    got, ref = run_graph(lambda v: g.topk(v, k=k, axis=1, largest=largest), [x], pipeline=SCHEDULED)
    check(got[0], ref[0], _numpy_topk(x, k, 1, bool(largest)))
